/*
 * test_rt_npy.c — unit tests of runtime/src/rt_npy.c (lstmc_rt_npy.h): round trips, the
 * exact bytes numpy expects, and malformed files, each rejected with its reason. Crafted
 * files are written byte by byte here, so they do not depend on the writer under test.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "lstmc_rt.h"
#include "lstmc_rt_npy.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];
static char err[256];

/* A fresh temporary path per test (Criterion forks, so this state is per test). */
static void
setup(void)
{
    int fd;

    strcpy(path, "/tmp/lstmc_npy_XXXXXX");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    err[0] = '\0';
}

static void
teardown(void)
{
    unlink(path);
}

TestSuite(rt_npy, .init = setup, .fini = teardown);

static void
write_raw(const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");

    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

/*
 * Build a version-1.0 file: magic, version, uint16 header length, the header text padded
 * to 64 bytes with '\n', then `data_len` bytes of data.
 */
static void
write_v1(const char *dict, const void *data, size_t data_len)
{
    unsigned char buf[1024];
    size_t hl = strlen(dict), n = 10;

    while ((10 + hl + 1) % 64)
        hl++;
    hl++;
    cr_assert_lt(10 + hl + data_len, sizeof buf);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hl & 0xff);
    buf[9] = (unsigned char)(hl >> 8);
    memset(buf + n, ' ', hl);
    memcpy(buf + n, dict, strlen(dict));
    buf[n + hl - 1] = '\n';
    n += hl;
    if (data_len)
        memcpy(buf + n, data, data_len);
    write_raw(buf, n + data_len);
}

static void
expect_reject(const char *why)
{
    lstmc_npy_info info;

    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), -1);
    cr_assert(strstr(err, why) != NULL, "reason \"%s\" lacks \"%s\"", err, why);
}

/* --- round trips ----------------------------------------------------------------------- */

Test(rt_npy, round_trip_f32_2x3)
{
    const float data[6] = {1.5f, -2.0f, 3.25f, 0.0f, 1e-7f, -1e7f};
    const int64_t dims[2] = {2, 3};
    float back[6];
    lstmc_npy_info info;

    cr_assert_eq(lstmc_npy_write(path, LSTMC_RT_F32, 2, dims, data, err, sizeof err), 0, "%s", err);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0, "%s", err);
    cr_assert_eq(info.dtype, LSTMC_RT_F32);
    cr_assert_eq(info.rank, 2);
    cr_assert_eq(info.dims[0], 2);
    cr_assert_eq(info.dims[1], 3);
    cr_assert_eq(info.n_elems, 6);
    cr_assert_eq(info.n_bytes, 24);
    cr_assert_eq(info.data_offset % 64, 0);
    cr_assert_eq(lstmc_npy_read_data(path, &info, back, sizeof back, err, sizeof err), 0, "%s",
                 err);
    cr_assert(memcmp(back, data, sizeof data) == 0);
}

Test(rt_npy, round_trip_i64_i32_u8_rank0)
{
    const int64_t v64[4] = {INT64_MIN, -1, 0, INT64_MAX}, d4[1] = {4};
    const int32_t v32 = -123456;
    const uint8_t b[3] = {1, 0, 1};
    const int64_t d3[1] = {3};
    int64_t b64[4];
    int32_t b32;
    uint8_t bb[3];
    lstmc_npy_info info;

    cr_assert_eq(lstmc_npy_write(path, LSTMC_RT_I64, 1, d4, v64, err, sizeof err), 0);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0, "%s", err);
    cr_assert(info.dtype == LSTMC_RT_I64 && info.rank == 1 && info.n_bytes == 32);
    cr_assert_eq(lstmc_npy_read_data(path, &info, b64, sizeof b64, err, sizeof err), 0);
    cr_assert(memcmp(b64, v64, sizeof v64) == 0);

    cr_assert_eq(lstmc_npy_write(path, LSTMC_RT_I32, 0, NULL, &v32, err, sizeof err), 0);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0, "%s", err);
    cr_assert(info.dtype == LSTMC_RT_I32 && info.rank == 0 && info.n_elems == 1);
    cr_assert_eq(lstmc_npy_read_data(path, &info, &b32, sizeof b32, err, sizeof err), 0);
    cr_assert_eq(b32, v32);

    cr_assert_eq(lstmc_npy_write(path, LSTMC_RT_U8, 1, d3, b, err, sizeof err), 0);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0, "%s", err);
    cr_assert(info.dtype == LSTMC_RT_U8 && info.n_bytes == 3);
    cr_assert_eq(lstmc_npy_read_data(path, &info, bb, sizeof bb, err, sizeof err), 0);
    cr_assert(memcmp(bb, b, 3) == 0);
}

Test(rt_npy, empty_array)
{
    const int64_t dims[2] = {0, 5};
    lstmc_npy_info info;

    cr_assert_eq(lstmc_npy_write(path, LSTMC_RT_F32, 2, dims, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0, "%s", err);
    cr_assert(info.n_elems == 0 && info.n_bytes == 0 && info.dims[1] == 5);
    cr_assert_eq(lstmc_npy_read_data(path, &info, NULL, 0, err, sizeof err), 0, "%s", err);
}

/* The writer produces what numpy writes: v1.0, 64-byte aligned, '\n'-terminated header. */
Test(rt_npy, written_bytes_match_numpy_layout)
{
    const float v[3] = {1, 2, 3};
    const int64_t d[1] = {3};
    static const char want[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
    unsigned char buf[256];
    size_t n, hl;
    FILE *f;

    cr_assert_eq(lstmc_npy_write(path, LSTMC_RT_F32, 1, d, v, err, sizeof err), 0);
    f = fopen(path, "rb");
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert(memcmp(buf, "\x93NUMPY\x01\x00", 8) == 0);
    hl = (size_t)buf[8] | (size_t)buf[9] << 8;
    cr_assert_eq((10 + hl) % 64, 0);
    cr_assert_eq(n, 10 + hl + 12);
    cr_assert(memcmp(buf + 10, want, strlen(want)) == 0);
    cr_assert_eq(buf[10 + hl - 1], '\n');
    cr_assert(memcmp(buf + 10 + hl, v, 12) == 0); /* little-endian host */
}

Test(rt_npy, reads_crafted_v1_and_v2)
{
    const int32_t v[6] = {1, 2, 3, 4, 5, 6};
    unsigned char buf[200];
    lstmc_npy_info info;
    const char *dict = "{\"shape\": (3, 2), \"fortran_order\": False, \"descr\": \"<i4\"}";
    size_t hl = strlen(dict) + 1;

    /* key order and quote style are free in the dict literal */
    write_v1(dict, v, sizeof v);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0, "%s", err);
    cr_assert(info.dtype == LSTMC_RT_I32 && info.dims[0] == 3 && info.dims[1] == 2);

    /* version 2.0: uint32 header length, no padding requirement */
    memcpy(buf, "\x93NUMPY\x02\x00", 8);
    buf[8] = (unsigned char)hl;
    buf[9] = buf[10] = buf[11] = 0;
    memcpy(buf + 12, dict, hl - 1);
    buf[12 + hl - 1] = '\n';
    memcpy(buf + 12 + hl, v, sizeof v);
    write_raw(buf, 12 + hl + sizeof v);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0, "%s", err);
    cr_assert_eq(info.data_offset, 12 + hl);
    cr_assert_eq(info.n_bytes, 24);
}

Test(rt_npy, bool_b1_and_u1)
{
    const uint8_t v[2] = {1, 0};
    lstmc_npy_info info;

    write_v1("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", v, 2);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0, "%s", err);
    cr_assert_eq(info.dtype, LSTMC_RT_U8);
    write_v1("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", v, 2);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0, "%s", err);
    cr_assert_eq(info.dtype, LSTMC_RT_U8);
}

/* --- malformed files -------------------------------------------------------------------- */

Test(rt_npy, missing_file)
{
    unlink(path);
    expect_reject("cannot open");
}

Test(rt_npy, bad_magic)
{
    write_raw("\x93NUMPZ\x01\x00\x10\x00{}              ", 26);
    expect_reject("bad magic");
    write_raw("PK\x03\x04", 4);
    expect_reject("not a .npy");
}

Test(rt_npy, empty_and_tiny_files)
{
    write_raw("", 0);
    expect_reject("not a .npy");
    write_raw("\x93NUMPY\x01\x00\x40", 9);
    expect_reject("truncated");
}

Test(rt_npy, bad_version)
{
    write_raw("\x93NUMPY\x04\x00\x10\x00{}              ", 26);
    expect_reject("version 4.0");
}

Test(rt_npy, truncated_header)
{
    /* header length 118 announced, 20 bytes present */
    write_raw("\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'f", 30);
    expect_reject("truncated header");
}

Test(rt_npy, truncated_data)
{
    const float v[6] = {0};
    lstmc_npy_info info;

    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, 23);
    expect_reject("truncated data");
    /* the full file is fine */
    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, 24);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0, "%s", err);
}

Test(rt_npy, fortran_order_rejected)
{
    const float v[6] = {0};

    write_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", v, 24);
    expect_reject("fortran_order");
}

Test(rt_npy, unsupported_dtypes_rejected)
{
    const double v[2] = {0};

    write_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", v, 16);
    expect_reject("unsupported dtype '<f8'");
    write_v1("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", v, 8);
    expect_reject("big-endian");
    write_v1("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", v, 12);
    expect_reject("unsupported dtype");
}

Test(rt_npy, malformed_headers)
{
    const float v[4] = {0};

    write_v1("['descr', '<f4']", v, 4);
    expect_reject("not a dict");
    write_v1("{'descr': '<f4', 'fortran_order': False}", v, 4);
    expect_reject("lacks");
    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", v, 4);
    expect_reject("unexpected key");
    write_v1("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", v, 4);
    expect_reject("duplicate");
    write_v1("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,)}", v, 4);
    expect_reject("fortran_order");
    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1, , 2)}", v, 4);
    expect_reject("malformed shape");
    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", v, 4);
    expect_reject("not a tuple");
    write_v1("{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", v, 4);
    expect_reject("malformed");
    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk", v, 4);
    expect_reject("trailing");
    write_v1("{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", v, 4);
    expect_reject("expected ','");
}

Test(rt_npy, bad_dims)
{
    const float v[1] = {0};

    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", v, 4);
    expect_reject("negative");
    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", v, 4);
    expect_reject("overflows");
    write_v1("{'descr': '<f4', 'fortran_order': False, "
             "'shape': (4294967296, 4294967296), }",
             v, 4);
    expect_reject("overflow");
    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", v, 4);
    expect_reject("LSTMC_RT_MAX_RANK");
    /* huge but representable: must fail on the file size, not read past it */
    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000,), }", v, 4);
    expect_reject("truncated data");
}

Test(rt_npy, header_too_long)
{
    unsigned char buf[16] = "\x93NUMPY\x02\x00";

    /* 5000-byte header announced (over the 4096 cap) */
    buf[8] = 0x88;
    buf[9] = 0x13;
    buf[10] = buf[11] = 0;
    memcpy(buf + 12, "{   ", 4);
    write_raw(buf, 16);
    expect_reject("longer than");
}

/* --- read_data and write errors, err buffer handling ---------------------------------------- */

Test(rt_npy, read_data_errors)
{
    const float v[4] = {1, 2, 3, 4};
    const int64_t d[1] = {4};
    float back[4];
    lstmc_npy_info info, forged;

    cr_assert_eq(lstmc_npy_write(path, LSTMC_RT_F32, 1, d, v, err, sizeof err), 0);
    cr_assert_eq(lstmc_npy_info_read(path, &info, err, sizeof err), 0);
    cr_assert_eq(lstmc_npy_read_data(path, &info, back, 12, err, sizeof err), -1);
    cr_assert(strstr(err, "smaller") != NULL, "%s", err);
    cr_assert_eq(lstmc_npy_read_data(path, &info, NULL, 16, err, sizeof err), -1);
    /* an info that does not describe the file is refused, not trusted */
    forged = info;
    forged.n_bytes = 8;
    cr_assert_eq(lstmc_npy_read_data(path, &forged, back, sizeof back, err, sizeof err), -1);
    cr_assert(strstr(err, "changed") != NULL, "%s", err);
    /* the file shrank since the header was read */
    write_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", v, 8);
    cr_assert_eq(lstmc_npy_read_data(path, &info, back, sizeof back, err, sizeof err), -1);
    cr_assert(strstr(err, "truncated") != NULL, "%s", err);
}

Test(rt_npy, write_errors)
{
    const int64_t d[2] = {2, -1}, big[LSTMC_RT_MAX_RANK + 1] = {1};
    const float v[2] = {0};

    cr_assert_eq(lstmc_npy_write(path, 99, 1, d, v, err, sizeof err), -1);
    cr_assert(strstr(err, "dtype") != NULL);
    cr_assert_eq(lstmc_npy_write(path, LSTMC_RT_F32, 2, d, v, err, sizeof err), -1);
    cr_assert(strstr(err, "negative") != NULL);
    cr_assert_eq(
        lstmc_npy_write(path, LSTMC_RT_F32, LSTMC_RT_MAX_RANK + 1, big, v, err, sizeof err), -1);
    cr_assert_eq(lstmc_npy_write(path, LSTMC_RT_F32, 1, d, NULL, err, sizeof err), -1);
    cr_assert_eq(lstmc_npy_write("/nonexistent-dir/x.npy", LSTMC_RT_F32, 1, d, v, err, sizeof err),
                 -1);
    cr_assert(strstr(err, "cannot create") != NULL);
}

Test(rt_npy, err_buffer_small_or_null)
{
    char small[8];
    lstmc_npy_info info;

    write_raw("nope", 4);
    cr_assert_eq(lstmc_npy_info_read(path, &info, NULL, 0), -1);
    memset(small, 'x', sizeof small);
    cr_assert_eq(lstmc_npy_info_read(path, &info, small, sizeof small), -1);
    cr_assert_eq(small[7], '\0');
    cr_assert_eq(lstmc_npy_info_read(NULL, &info, err, sizeof err), -1);
}
