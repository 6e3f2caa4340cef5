/*
 * test_calibrate.c — lstmc calibrate (compiler/tools/calibrate.c): the h expectation it writes is
 * the mean over every cell of the layer's Y, checked against ONNX Runtime's Y of a fixture
 * computed independently here; bad CALIB files are refused with a message. And which input
 * axis is the batch (compiler/driver/batch.c), which the data of calibrate and tune and the
 * binding of a symbolic batch rest on, against what each fixture's export is known to be.
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

/* format 2 (issue 24): um / ur lines of 4H values per direction, both or neither */
Test(calibrate, bound_lines)
{
    static const char *const ok =
        "lstmc-calib 2\nlayer 2 1 5 a\nh 0 1\nc 0 2\nh 1 3\nc 1 4\n"
        "um 0 1 2 3 4\nur 0 0.5 0 1 2\num 1 -1 -2 -3 -4\nur 1 4 3 2 1\n";
    arena *a = arena_new(0);
    diag *d = diag_new(a, "test", stderr);
    char path[64];
    calib_table t;
    FILE *f;

    snprintf(path, sizeof path, "/tmp/lstmc_cal2_%d", (int)getpid());
    f = fopen(path, "w");
    fputs(ok, f);
    fclose(f);
    cr_assert_eq(calib_read(a, path, &t, d), 0, "%s", diag_text(d));
    unlink(path);
    cr_assert_eq(t.n, 1);
    cr_assert_not_null(t.layers[0].um);
    cr_assert_float_eq(t.layers[0].um[3], 4.0f, 0);
    cr_assert_float_eq(t.layers[0].um[4], -1.0f, 0); /* direction 1 at 4H */
    cr_assert_float_eq(t.layers[0].ur[7], 1.0f, 0);
    cr_assert_float_eq(t.layers[0].h[1], 3.0f, 0);
    arena_free(a);
    /* format 1 has none: um stays NULL */
    cr_assert_eq(read_text("lstmc-calib 1\nlayer 1 1 1 a\nh 0 1\nc 0 1\n"), 0);
    cr_assert_eq(read_text("lstmc-calib 3\nlayer 1 1 1 a\nh 0 1\nc 0 1\n"), -1);
    /* 4H values, not H */
    cr_assert_eq(read_text("lstmc-calib 2\nlayer 1 1 1 a\nh 0 1\nc 0 1\num 0 1\nur 0 1\n"), -1);
    /* um without ur, one direction without them, a negative radius, a second um */
    cr_assert_eq(read_text("lstmc-calib 2\nlayer 1 1 1 a\nh 0 1\nc 0 1\num 0 1 2 3 4\n"), -1);
    cr_assert_eq(read_text("lstmc-calib 2\nlayer 2 1 1 a\nh 0 1\nc 0 1\nh 1 1\nc 1 1\n"
                           "um 0 1 2 3 4\nur 0 1 2 3 4\n"),
                 -1);
    cr_assert_eq(read_text("lstmc-calib 2\nlayer 1 1 1 a\nh 0 1\nc 0 1\num 0 1 2 3 4\n"
                           "ur 0 1 -2 3 4\n"),
                 -1);
    cr_assert_eq(read_text("lstmc-calib 2\nlayer 1 1 1 a\nh 0 1\nc 0 1\num 0 1 2 3 4\n"
                           "um 0 1 2 3 4\nur 0 1 2 3 4\n"),
                 -1);
    cr_assert_eq(read_text("lstmc-calib 2\nlayer 1 1 1 a\nh 0 1\nc 0 1\nun 0 1 2 3 4\n"), -1);
}

/* --- the batch axis (driver_batch_axis, driver_sample_shape) ---------------------------- */

static ir_graph *
import_case(arena *a, const char *c, diag **d)
{
    char path[512];
    ir_graph *g;
    snprintf(path, sizeof path, "%s/%s/model.onnx", FIX, c);
    *d = diag_new(a, path, NULL);
    g = driver_import(a, path, *d);
    cr_assert_not_null(g, "%s: %s", c, diag_text(*d));
    return g;
}

static const ir_tensor *
input_named(const ir_graph *g, const char *name)
{
    int i;
    for (i = 0; i < g->n_inputs; i++)
        if (strcmp(g->inputs[i]->name, name) == 0)
            return g->inputs[i];
    cr_assert_fail("no input %s", name);
    return NULL;
}

Test(batch_axis, fixtures)
{
    /* what each model is known to be: layout 0 X [T, N, I]; layout 1 [N, T, I]; PyTorch
     * batch_first (a Transpose before a layout-0 LSTM); seq-first tokens through an
     * embedding (Gather); initial states [D, N, H] / [N, D, H]; sequence_lens [N] */
    static const struct {
        const char *c, *input;
        int axis;
    } cases[] = {
        {"lstm_fwd_b1", "X", 1},
        {"lstm_bidir_init", "X", 1},
        {"lstm_bidir_init", "initial_h", 1},
        {"lstm_bidir_init", "initial_c", 1},
        {"lstm_layout1", "X", 0},
        {"lstm_layout1", "initial_h", 0},
        {"lstm_layout1", "sequence_lens", 0},
        {"gru_layout1", "X", 0},
        {"rnn_layout1", "X", 0},
        {"pt_har_lstm", "input", 0},
        {"pt_lstm3_batchfirst", "x", 0},
        {"pt_gru_cls", "features", 0},
        {"pt_bilstm_tagger", "input.1", 1},
        {"pt_embed_lstm2_cls", "input.1", 0},
        {"pt_ux_batch_lstm", "x", 0},
        {"pt_ux_batch_gru_seqfirst", "tokens", 1},
        /* issue 20, red: the lengths sorted by TopK into sequence_lens; reflect Pad, Split */
        {"pt_red_packed_unsorted", "lens", 0},
        {"pt_red_torch_ops", "x", 0},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        arena *a = arena_new(0);
        diag *d;
        const ir_graph *g = import_case(a, cases[i].c, &d);
        const ir_node *rnn = NULL;
        int ax = driver_batch_axis(g, input_named(g, cases[i].input), &rnn);
        cr_expect_eq(ax, cases[i].axis, "%s input %s: batch axis %d, want %d", cases[i].c,
                     cases[i].input, ax, cases[i].axis);
        cr_expect(rnn && ir_op_class_of(rnn->op) == IR_CLASS_RNN, "%s: no recurrent layer",
                  cases[i].c);
        arena_free(a);
    }
}

/* A model without a batch axis ([T, I] unsqueezed into X [T, 1, I]) has none to find. */
Test(batch_axis, none_when_the_model_makes_the_batch)
{
    arena *a = arena_new(0);
    ir_graph *g = ir_graph_new(a, "g", "m.onnx");
    ir_shape sx = {2, {5, 4}, {NULL}}, s1 = {1, {1}, {NULL}}, sw = {3, {1, 12, 4}, {NULL}},
             sr = {3, {1, 12, 3}, {NULL}};
    int64_t one = 1;
    float w[48] = {0}, r[36] = {0};
    ir_tensor *x = ir_tensor_new(g, "x", IR_DT_F32, &sx);
    ir_tensor *ax = ir_const_new(g, "axes", IR_DT_I64, &s1, &one);
    ir_tensor *W = ir_const_new(g, "W", IR_DT_F32, &sw, w);
    ir_tensor *R = ir_const_new(g, "R", IR_DT_F32, &sr, r);
    ir_tensor *X = ir_tensor_tmp(g, "X", IR_DT_F32, NULL);
    ir_tensor *Y = ir_tensor_tmp(g, "Y", IR_DT_F32, NULL);
    ir_node *u = ir_node_new(g, IR_OP_UNSQUEEZE, "u", NULL, 2, 1);
    ir_node *l = ir_node_new(g, IR_OP_LSTM, "l", NULL, 3, 1);
    ir_graph_add_input(g, x);
    u->inputs[0] = x;
    u->inputs[1] = ax;
    ir_node_set_output(u, 0, X);
    l->inputs[0] = X;
    l->inputs[1] = W;
    l->inputs[2] = R;
    ir_node_set_output(l, 0, Y);
    cr_expect_eq(driver_batch_axis(g, x, NULL), -1);
    arena_free(a);
}

Test(batch_axis, sample_shapes)
{
    static const int64_t t12c6[] = {12, 6}, t7[] = {7}, c6[] = {6}, full[] = {1, 12, 6};
    arena *a = arena_new(0);
    diag *d;
    const ir_graph *g = import_case(a, "pt_ux_batch_lstm", &d);
    const ir_graph *g2;
    diag *d2;
    ir_shape s;
    /* [N, T, C] for x [batch_size, 12, 6]: batch 1 in front */
    cr_assert_eq(driver_sample_shape(g, g->inputs[0], t12c6, 2, "x.npy", &s, d), 0);
    cr_expect(s.rank == 3 && s.d[0] == 1 && s.d[1] == 12 && s.d[2] == 6);
    /* [N, 1, T, C]: as given */
    cr_assert_eq(driver_sample_shape(g, g->inputs[0], full, 3, "x.npy", &s, d), 0);
    cr_expect(s.rank == 3 && s.d[0] == 1 && s.d[1] == 12 && s.d[2] == 6);
    /* two dims fewer: refused, saying what it takes */
    cr_expect_eq(driver_sample_shape(g, g->inputs[0], c6, 1, "x.npy", &s, d), -1);
    cr_expect(strstr(diag_text(d), "without the batch axis"), "%s", diag_text(d));
    /* seq-first tokens [7, N]: [N, 7] samples get the batch as axis 1 */
    g2 = import_case(a, "pt_ux_batch_gru_seqfirst", &d2);
    cr_assert_eq(driver_sample_shape(g2, g2->inputs[0], t7, 1, "t.npy", &s, d2), 0);
    cr_expect(s.rank == 2 && s.d[0] == 7 && s.d[1] == 1);
    arena_free(a);
}

/* A batch fixed above 1 cannot take samples without it (lstm_bidir_init: X [5, 2, 4]). */
Test(batch_axis, fixed_batch_needs_the_full_shape)
{
    static const int64_t t5c4[] = {5, 4};
    arena *a = arena_new(0);
    diag *d;
    const ir_graph *g = import_case(a, "lstm_bidir_init", &d);
    ir_shape s;
    cr_expect_eq(driver_sample_shape(g, g->inputs[0], t5c4, 2, "x.npy", &s, d), -1);
    cr_expect(strstr(diag_text(d), "fixed at 2"), "%s", diag_text(d));
    arena_free(a);
}

/* x [batch, 12, 2, 3] -> Reshape [0, 12, 6] (0: the dim copied) -> Transpose [1, 0, 2] ->
 * LSTM (layout 0): the batch is axis 0 of x; with Reshape [-1, 12, 6] it cannot be told. */
Test(batch_axis, reshape_that_copies_the_dim)
{
    int zero;
    for (zero = 1; zero >= 0; zero--) {
        arena *a = arena_new(0);
        ir_graph *g = ir_graph_new(a, "g", "m.onnx");
        ir_shape sx = {4, {-1, 12, 2, 3}, {"batch"}}, s3 = {1, {3}, {NULL}},
                 sw = {3, {1, 8, 6}, {NULL}}, sr = {3, {1, 8, 2}, {NULL}};
        int64_t shape[3] = {zero ? 0 : -1, 12, 6}, perm[3] = {1, 0, 2};
        float w[48] = {0}, r[16] = {0};
        ir_tensor *x = ir_tensor_new(g, "x", IR_DT_F32, &sx);
        ir_tensor *sh = ir_const_new(g, "shape", IR_DT_I64, &s3, shape);
        ir_tensor *r1 = ir_tensor_tmp(g, "r", IR_DT_F32, NULL);
        ir_tensor *X = ir_tensor_tmp(g, "X", IR_DT_F32, NULL);
        ir_tensor *Y = ir_tensor_tmp(g, "Y", IR_DT_F32, NULL);
        ir_node *rs = ir_node_new(g, IR_OP_RESHAPE, "rs", NULL, 2, 1);
        ir_node *tp = ir_node_new(g, IR_OP_TRANSPOSE, "tp", NULL, 1, 1);
        ir_node *l = ir_node_new(g, IR_OP_LSTM, "l", NULL, 3, 1);
        ir_graph_add_input(g, x);
        rs->inputs[0] = x;
        rs->inputs[1] = sh;
        ir_node_set_output(rs, 0, r1);
        tp->inputs[0] = r1;
        ir_attr_set_ints(g, tp, "perm", perm, 3);
        ir_node_set_output(tp, 0, X);
        l->inputs[0] = X;
        l->inputs[1] = ir_const_new(g, "W", IR_DT_F32, &sw, w);
        l->inputs[2] = ir_const_new(g, "R", IR_DT_F32, &sr, r);
        ir_node_set_output(l, 0, Y);
        cr_expect_eq(driver_batch_axis(g, x, NULL), zero ? 0 : -1, "shape[0] = %lld",
                     (long long)shape[0]);
        arena_free(a);
    }
}
