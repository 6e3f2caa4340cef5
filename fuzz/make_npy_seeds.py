#!/usr/bin/env python3
"""make_npy_seeds.py — write the .npy seed corpus of fuzz_npy into fuzz/corpus/npy/.

Plain Python (no numpy), deterministic: valid files of every supported dtype, version and
rank, and broken ones, each a step away from valid (bad magic, fortran order, big-endian,
unsupported dtype, negative or overflowing dims, header longer than the file, short data,
duplicate or missing keys, unterminated header).
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "npy")


def npy(descr, shape, data=b"", version=(1, 0), fortran="False", raw_header=None, pad=True):
    if raw_header is None:
        dims = ", ".join(str(d) for d in shape)
        if len(shape) == 1:
            dims += ","
        raw_header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
            descr, fortran, dims)
    h = raw_header.encode("latin1")
    lenfmt = "<H" if version[0] == 1 else "<I"
    pre = 6 + 2 + struct.calcsize(lenfmt)
    if pad:
        total = pre + len(h) + 1
        h += b" " * ((64 - total % 64) % 64) + b"\n"
    return b"\x93NUMPY" + bytes(version) + struct.pack(lenfmt, len(h)) + h + data


def f32(n):
    return b"".join(struct.pack("<f", 0.5 * i - 1.0) for i in range(n))


def i64(n):
    return b"".join(struct.pack("<q", i - 2) for i in range(n))


def i32(n):
    return b"".join(struct.pack("<i", i * 7 - 3) for i in range(n))


seeds = {
    # valid
    "f32_2x3.npy": npy("<f4", (2, 3), f32(6)),
    "f32_5x1x4.npy": npy("<f4", (5, 1, 4), f32(20)),
    "f32_scalar.npy": npy("<f4", (), f32(1)),
    "f32_empty.npy": npy("<f4", (0, 3)),
    "f32_rank8.npy": npy("<f4", (1, 2, 1, 2, 1, 1, 2, 1), f32(8)),
    "i64_4.npy": npy("<i8", (4,), i64(4)),
    "i32_2x2.npy": npy("<i4", (2, 2), i32(4)),
    "b1_3.npy": npy("|b1", (3,), b"\x01\x00\x01"),
    "u1_2.npy": npy("|u1", (2,), b"\x07\x00"),
    "v2_f32.npy": npy("<f4", (2,), f32(2), version=(2, 0)),
    "v3_f32.npy": npy("<f4", (2,), f32(2), version=(3, 0)),
    "keys_reordered.npy": npy("<f4", (2,), f32(2),
                              raw_header="{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}"),
    # broken
    "bad_magic.npy": b"\x93NUMPZ" + npy("<f4", (2,), f32(2))[6:],
    "bad_version.npy": npy("<f4", (2,), f32(2), version=(9, 0)),
    "fortran.npy": npy("<f4", (2, 2), f32(4), fortran="True"),
    "big_endian.npy": npy(">f4", (2,), f32(2)),
    "f8.npy": npy("<f8", (1,), b"\0" * 8),
    "negative_dim.npy": npy("<f4", (2, -1), f32(2)),
    "overflow_dims.npy": npy("<f4", (4294967296, 4294967296, 16)),
    "huge_dim.npy": npy("<f4", (99999999999999999999,)),
    "short_data.npy": npy("<f4", (4, 4), f32(3)),
    "header_len_past_eof.npy": b"\x93NUMPY\x01\x00\xff\x0f{'descr': '<f4', ",
    "header_unterminated.npy": npy("<f4", (2,), pad=False,
                                   raw_header="{'descr': '<f4', 'fortran_order': False, 'shape': (2,"),
    "dup_key.npy": npy("<f4", (2,), f32(2),
                       raw_header="{'descr': '<f4', 'descr': '<f4', 'shape': (2,), }"),
    "missing_key.npy": npy("<f4", (2,), f32(2), raw_header="{'descr': '<f4', 'shape': (2,), }"),
    "rank9.npy": npy("<f4", (1,) * 9, f32(1)),
    "magic_only.npy": b"\x93NUMPY",
}

os.makedirs(OUT, exist_ok=True)
for name, data in sorted(seeds.items()):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
