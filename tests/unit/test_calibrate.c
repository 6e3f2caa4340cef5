/*
 * test_calibrate.c — lstmc calibrate (compiler/tools/calibrate.c): the h expectation it writes is
 * the mean over every cell of the layer's Y, checked against ONNX Runtime's Y of a fixture
 * computed independently here; bad CALIB files are refused with a message.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "calibrate.h"
#include "diag.h"
#include "driver.h"
#include "lstmc_rt_npy.h"

#define FIX LSTMC_SOURCE_DIR "/tests/fixtures/cases"

static void *
load(const char *path, lstmc_npy_info *info)
{
    char err[256];
    void *buf;
    cr_assert_eq(lstmc_npy_info_read(path, info, err, sizeof err), 0, "%s: %s", path, err);
    buf = malloc(info->n_bytes);
    cr_assert_eq(lstmc_npy_read_data(path, info, buf, info->n_bytes, err, sizeof err), 0);
    return buf;
}

Test(calibrate, h_mean_matches_ort_Y_bidirectional)
{
    const char *cases[] = {"lstm_bidir_act6", "lstm_fwd_b1"};
    size_t ci;
    for (ci = 0; ci < 2; ci++) {
        char model[512], xp[512], yp[512], data[64], out[64];
        lstmc_npy_info xi, yi;
        float *X, *Y;
        arena *a = arena_new(0);
        diag *d = diag_new(a, "test", stderr);
        driver_options o;
        calib_table tab;
        int64_t dims[8], T, D, N, H, t, dd, n, j;
        int i;
        char err[256];

        snprintf(model, sizeof model, FIX "/%s/model.onnx", cases[ci]);
        snprintf(xp, sizeof xp, FIX "/%s/inputs/X.npy", cases[ci]);
        snprintf(yp, sizeof yp, FIX "/%s/expected/Y.npy", cases[ci]);
        snprintf(data, sizeof data, "/tmp/lstmc_cal_x_%d.npy", (int)getpid());
        snprintf(out, sizeof out, "/tmp/lstmc_cal_%d.calib", (int)getpid());
        X = load(xp, &xi);
        Y = load(yp, &yi); /* [T, D, N, H] (layout 0) from ONNX Runtime */
        dims[0] = 1; /* K = 1 sample */
        for (i = 0; i < xi.rank; i++)
            dims[i + 1] = xi.dims[i];
        cr_assert_eq(lstmc_npy_write(data, xi.dtype, xi.rank + 1, dims, X, err, sizeof err), 0);
        memset(&o, 0, sizeof o);
        o.model = model;
        o.target = "host";
        cr_assert_eq(calibrate_run(a, &o, data, out, d), 0, "%s", cases[ci]);
        cr_assert_eq(calib_read(a, out, &tab, d), 0);
        cr_assert_eq(tab.n, 1);
        T = yi.dims[0];
        D = yi.dims[1];
        N = yi.dims[2];
        H = yi.dims[3];
        cr_assert_eq(tab.layers[0].n_dirs, D);
        cr_assert_eq(tab.layers[0].hidden, H);
        cr_assert_eq(tab.layers[0].cells, T * N);
        for (dd = 0; dd < D; dd++)
            for (j = 0; j < H; j++) {
                double s = 0;
                for (t = 0; t < T; t++)
                    for (n = 0; n < N; n++)
                        s += Y[((t * D + dd) * N + n) * H + j];
                s /= (double)(T * N);
                cr_assert(fabs(s - tab.layers[0].h[dd * H + j]) < 1e-4, "%s h[%lld][%lld] %g vs %g",
                          cases[ci], (long long)dd, (long long)j, s,
                          (double)tab.layers[0].h[dd * H + j]);
                cr_assert(isfinite(tab.layers[0].c[dd * H + j]));
            }
        unlink(data);
        unlink(out);
        free(X);
        free(Y);
        arena_free(a);
    }
}

static int
read_text(const char *text)
{
    char path[64];
    FILE *f;
    arena *a = arena_new(0);
    diag *d = diag_new(a, "test", stderr);
    calib_table t;
    int rc;
    snprintf(path, sizeof path, "/tmp/lstmc_badcal_%d", (int)getpid());
    f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    rc = calib_read(a, path, &t, d);
    if (rc == 0)
        cr_assert_eq(diag_count(d), 0);
    else
        cr_assert_gt(diag_count(d), 0);
    unlink(path);
    arena_free(a);
    return rc;
}

Test(calibrate, good_and_bad_files)
{
    cr_assert_eq(read_text("lstmc-calib 1\n# x\nlayer 1 2 5 a b\nh 0 1 2\nc 0 3 -4.5\n"), 0);
    cr_assert_eq(read_text(""), -1);
    cr_assert_eq(read_text("garbage\n"), -1);
    cr_assert_eq(read_text("lstmc-calib 1\n"), -1);                          /* no layer */
    cr_assert_eq(read_text("lstmc-calib 1\nlayer 1 2 5 a\nh 0 1 2\n"), -1);   /* no c */
    cr_assert_eq(read_text("lstmc-calib 1\nlayer 1 2 5 a\nh 0 1\nc 0 1 2\n"), -1); /* short */
    cr_assert_eq(read_text("lstmc-calib 1\nlayer 1 2 5 a\nh 0 1 2 3\nc 0 1 2\n"), -1);
    cr_assert_eq(read_text("lstmc-calib 1\nlayer 1 2 5 a\nh 0 1 nan\nc 0 1 2\n"), -1);
    cr_assert_eq(read_text("lstmc-calib 1\nlayer 1 2 5 a\nh 1 1 2\nc 0 1 2\n"), -1); /* dir */
    cr_assert_eq(read_text("lstmc-calib 1\nlayer 3 2 5 a\n"), -1);
    cr_assert_eq(read_text("lstmc-calib 1\nlayer 1 2 5\nh 0 1 2\nc 0 1 2\n"), -1); /* name */
    cr_assert_eq(read_text("lstmc-calib 1\nh 0 1 2\n"), -1);
    cr_assert_eq(read_text("lstmc-calib 1\nlayer 1 1 1 a\nh 0 1\nc 0 1\nlayer 1 1 1 a\nh 0 1\nc 0 1\n"), -1);
}
