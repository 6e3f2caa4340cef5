#!/usr/bin/python3
"""kparams_int.py LSTMC TRAIN_DIR WORK

Issue 23: the parameters of the full-integer VNNI kernel (a target profile's "kernels": {"int":
...}, docs/TARGETS.md "Kernel parameters"; codegen/llvm/rnnq.c) reach it, and every shape of
tile they ask for computes the integers of the C reference (lstmc_rt_rnn_q) bit for bit.

Two trained character models (tests/train charlm, H 256, and charlm512, H 512) are compiled
with --activations=int8 (calibrated on 10 evaluation samples) once with --emit=c and once with
the LLVM kernels under a profile whose L2 is 256 KiB, so that charlm's int8 U (256 KiB) is in
the l2 class and charlm512's (1 MiB) in the llc class, each class with other odd values: U.h
tiles of 5 and 3 blocks (the default is 8), W.x tiles of 16 blocks x 1 row and 8 x 2 (the
default is 1 x 16), the rows in their order, no pipelined steps; and on 2 threads. The next
10 samples must give the same outputs bit for bit; the size report must say each layer's
values, as the profile's rules give them (worked out here from the profile), and the
default's; and the kernel objects must differ from the default's. Exit 0 on success, 1 on a
difference, 77 (skip) without numpy or on a CPU without AVX-512 VNNI (the parameters are
refused there: tests/e2e/kparams.sh).
"""
import json
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from precision_train import run_all  # noqa: E402

PROFILE = {"cpu": {"cores": 2, "l2_bytes": 262144, "llc_bytes": 33554432},
           "kernels": {"int": {"all": {"tile": 1, "rows": 1},
                               "l2": {"tile": 5},
                               "llc": {"tile": 3, "rows": 2, "alternate": 0, "pipe": 0}}}}


def expected(cls, threads, profile):
    """The int kernel's values for a layer of class cls, by the rules of docs/TARGETS.md."""
    if not profile:
        return {"tile": 8, "rows": 16 if threads == 1 else 4, "alternate": 1, "pipe": 1,
                "from_profile": []}
    k = dict(PROFILE["kernels"]["int"]["all"])
    k.update(PROFILE["kernels"]["int"][cls])
    v = {"tile": k["tile"], "rows": k["rows"], "alternate": k.get("alternate", 1),
         "pipe": k.get("pipe", 1)}
    v["from_profile"] = [n for n in ("tile", "rows", "alternate", "pipe") if n in k]
    return v


def build(lstmc, model, out, flags):
    subprocess.run([lstmc, model, "--name=m", "-o", out, "--force"] + flags, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["make", "-s", "-C", out, "CFLAGS=-O2"], check=True,
                   stdout=subprocess.DEVNULL)


def int_kernels(out):
    with open(os.path.join(out, "m_size.json")) as f:
        rep = json.load(f)
    ks = [k for layer in rep["layers"] for k in layer.get("kernels", []) if k["kind"] == "int"]
    return [{n: k[n] for n in ("class", "tile", "rows", "alternate", "pipe", "from_profile")}
            for k in ks]


def main():
    lstmc, tdir, work = sys.argv[1], sys.argv[2], sys.argv[3]
    with open("/proc/cpuinfo") as f:
        if "avx512_vnni" not in f.read():
            print("SKIP: no AVX-512 VNNI on this CPU")
            sys.exit(77)
    os.makedirs(work, exist_ok=True)
    prof = os.path.join(work, "int_odd.json")
    with open(prof, "w") as f:
        json.dump(PROFILE, f)
    ok = True
    for name, cls in (("charlm", "l2"), ("charlm512", "llc")):
        mdir = os.path.join(tdir, name)
        x = np.load(os.path.join(mdir, "eval_x.npy"))
        calib = os.path.join(work, name + "_calib.npy")
        np.save(calib, np.ascontiguousarray(x[:10]))
        samples = []
        for k in range(10, min(20, x.shape[0])):
            p = os.path.join(work, "%s_x%d.npy" % (name, k))
            np.save(p, np.ascontiguousarray(x[k]))
            samples.append(p)
        flags = ["--activations=int8", "--calib-data=" + calib]
        model = os.path.join(mdir, "model.onnx")
        ref_dir = os.path.join(work, name + "_c")
        build(lstmc, model, ref_dir, flags + ["--emit=c"])
        ref = run_all(os.path.join(ref_dir, "m_run"), samples, os.path.join(work, name + "_rc"))
        for threads in (1, 2):
            objs = {}
            for use in (True, False):
                tag = "%s_t%d_%s" % (name, threads, "odd" if use else "def")
                out = os.path.join(work, tag)
                build(lstmc, model, out, flags + ["--threads=%d" % threads] +
                      (["--target=" + prof] if use else []))
                with open(os.path.join(out, "m_kernels.o"), "rb") as f:
                    objs[use] = f.read()
                got = int_kernels(out)
                want = expected(cls, threads, use)
                if not got or any({n: k[n] for n in want} != want or
                                  (use and k["class"] != cls) for k in got):
                    print("%s: the size report says %s, expected %s (class %s)" %
                          (tag, got, want, cls))
                    ok = False
                res = run_all(os.path.join(out, "m_run"), samples, os.path.join(work, "r_" + tag))
                same = res.tobytes() == ref.tobytes()
                print("%-22s: %d samples, LLVM vs C %s (max |diff| %g), %d int layer(s) %s" %
                      (tag, len(samples), "bit-identical" if same else "DIFFER",
                       float(np.abs(res - ref).max()), len(got), got[0] if got else ""))
                ok = ok and same
            if objs[True] == objs[False]:
                print("%s on %d threads: the profile's kernels are the default's" %
                      (name, threads))
                ok = False
    sys.exit(0 if ok else 1)


main()
