/*
 * test_breakpoints.c — the breakpoints pass (passes/breakpoints.c, MICRO'18 §IV): structure
 * of lstmc.RnnTissue, and with alpha_inter = 0 every fixture still matches its ONNX Runtime
 * reference through ir_eval (the exact result; helpers_every_fixture).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "helpers.h"
#include "ir.h"
#include "ir_eval.h"
#include "ir_verify.h"
#include "lstmc_rt_npy.h"
#include "passes.h"
#include "target.h"

#define FIX HELPERS_FIXTURES
#define PIPELINE "split_gates,fold_constants,breakpoints,dce"

static int
is_tissue(const ir_node *n)
{
    return n->op == IR_OP_RNN_TISSUE;
}

/* Every fixture through PIPELINE for target_name matches its reference (rtol 1e-4, atol
 * 1e-5, integers exactly), and enough LSTM layers became tissues. */
static void
every_fixture(const char *target_name)
{
    helpers_sweep sw = {PIPELINE, target_name, NULL, is_tissue, 0};
    int bad, n = helpers_every_fixture(&sw, &bad);

    cr_assert_gt(n, 100, "the corpus has %d cases", n);
    cr_assert_gt(sw.n_counted, 30, "only %d LSTM layers became tissues", sw.n_counted);
    cr_assert_eq(bad, 0, "%d of %d fixtures differ from the reference", bad, n);
}

/* alpha_inter = 0 (the default) is exact: every fixture, with the host's MTS (8) and the
 * Tegra X1's (5: smaller than some batches, so alignment splits the batch). */
Test(breakpoints, every_fixture_alpha0_host)
{
    every_fixture("host");
}

Test(breakpoints, every_fixture_alpha0_tegra_x1)
{
    every_fixture("tegra-x1");
}


/* lstm_fwd_b3_noB (H from the model): the packed RnnRec becomes one RnnTissue reading the
 * projection, the packed U, D = sum|U| per gate row (checked against the ONNX R), zero
 * h_pred / c_pred [1, H], alpha_inter 0 and the target's MTS. */
Test(breakpoints, structure_lstm_fwd_b3_noB)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "lstm_fwd_b3_noB", NULL);
    const void *inputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, "lstm_fwd_b3_noB", d, inputs);
    const ir_node *lstm, *proj, *tis;
    const ir_tensor *R, *Y_h, *sums, *Up;
    pass_ctx cx;
    int64_t H, r, k;

    cr_assert_not_null(g, "%s", diag_text(d));
    lstm = helpers_find_op(g, IR_OP_LSTM, 0);
    cr_assert_not_null(lstm);
    R = ir_in(lstm, 2);
    Y_h = ir_out(lstm, 1);
    H = ir_attr_int(lstm, "hidden_size", 0);
    memset(&cx, 0, sizeof cx);
    cx.t = target_find("host");
    cr_assert_eq(pass_run_list(g, PIPELINE, &cx, d), 0, "%s", diag_text(d));
    cr_assert_eq(ir_verify(g, d), 0, "%s", diag_text(d));
    cr_assert_null(helpers_find_op(g, IR_OP_RNN_REC, 0));
    proj = helpers_find_op(g, IR_OP_RNN_PROJ, 0);
    tis = helpers_find_op(g, IR_OP_RNN_TISSUE, 0);
    cr_assert_not_null(proj);
    cr_assert_not_null(tis);
    cr_assert_null(helpers_find_op(g, IR_OP_RNN_TISSUE, 1));
    cr_assert_str_eq(tis->op_type, "lstmc.RnnTissue");
    cr_assert_lt(proj->id, tis->id);
    cr_assert_eq(tis->n_inputs, 9);
    cr_assert_eq(ir_in(tis, 0), ir_out(proj, 0), "P from the hoisted projection");
    /* U in column panels of 16: element (k, g) of R's row g at g0*H + k*w + g - g0 */
    Up = ir_in(tis, 1);
    cr_assert_eq(Up->shape.rank, 2);
    cr_assert_eq(Up->shape.d[1], H * 4 * H);
    for (r = 0; r < 4 * H; r++)
        for (k = 0; k < H; k++) {
            int64_t g0 = r / 16 * 16, w = 4 * H - g0 < 16 ? 4 * H - g0 : 16;
            cr_assert_eq(((const float *)Up->data)[g0 * H + k * w + r - g0],
                         ((const float *)R->data)[r * H + k]);
        }
    if (Y_h)
        cr_assert_eq(ir_out(tis, 1), Y_h, "the layer's outputs are the tissue node's");
    sums = ir_in(tis, 2);
    cr_assert_not_null(sums->data, "row_abs_sum is a constant input");
    cr_assert_eq(sums->shape.d[1], 4 * H);
    for (r = 0; r < 4 * H; r++) {
        float want = 0.0f;
        for (k = 0; k < H; k++)
            want += fabsf(((const float *)R->data)[r * H + k]);
        cr_assert_float_eq(((const float *)sums->data)[r], want, 1e-6);
    }
    for (k = 7; k <= 8; k++) {
        const ir_tensor *pred = ir_in(tis, (int)k);
        int64_t j;
        cr_assert_not_null(pred->data);
        cr_assert_eq(pred->shape.rank, 2);
        cr_assert_eq(pred->shape.d[0], 1);
        cr_assert_eq(pred->shape.d[1], H);
        for (j = 0; j < H; j++)
            cr_assert_eq(((const float *)pred->data)[j], 0.0f, "no calibration: zero");
    }
    cr_assert_eq(ir_attr_float(tis, "alpha_inter", -1.0f), 0.0f);
    cr_assert_eq(ir_attr_int(tis, "mts", 0), 8, "host knows no MTS: the default 8");
    cr_assert_eq(ir_attr_int(tis, "packed", 0), 1);
    cr_assert_null(ir_attr_get(tis, "row_abs_sum"));
    arena_free(a);
}

/* pt_har_lstm (a PyTorch export) on the Tegra X1 profile: every LSTM layer becomes a tissue
 * node with the MTS the profile gives for its hidden size (MICRO'18 Fig. 9: 5, or 6 from
 * H = 256 on), and nothing else is touched. */
Test(breakpoints, structure_pt_har_lstm_tegra)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "pt_har_lstm", NULL);
    const void *inputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, "pt_har_lstm", d, inputs);
    pass_ctx cx;
    int i, n_lstm = 0, n_tis = 0;

    cr_assert_not_null(g, "%s", diag_text(d));
    for (i = 0; i < g->n_nodes; i++)
        n_lstm += !g->nodes[i]->dead && g->nodes[i]->op == IR_OP_LSTM;
    cr_assert_gt(n_lstm, 0);
    memset(&cx, 0, sizeof cx);
    cx.t = target_find("tegra-x1");
    cr_assert_eq(pass_run_list(g, PIPELINE, &cx, d), 0, "%s", diag_text(d));
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        if (n->dead || n->op != IR_OP_RNN_TISSUE)
            continue;
        n_tis++;
        cr_assert_eq(ir_attr_int(n, "mts", 0),
                     target_mts(cx.t, ir_attr_int(n, "hidden_size", 0)));
        cr_assert_eq(ir_attr_int(n, "cell", -1), 0);
    }
    cr_assert_eq(n_tis, n_lstm);
    cr_assert_null(helpers_find_op(g, IR_OP_RNN_REC, 0));
    arena_free(a);
}

/* GRU and RNN layers keep the exact schedule. */
Test(breakpoints, gru_and_rnn_untouched)
{
    static const char *const cases[] = {"gru_fwd_lbr1", "rnn_bidir_seqlens"};
    int c;

    for (c = 0; c < 2; c++) {
        arena *a = arena_new(0);
        diag *d = diag_new(a, cases[c], NULL);
        const void *inputs[8] = {0};
        ir_graph *g = helpers_prepare_case(a, cases[c], d, inputs);
        pass_ctx cx;

        cr_assert_not_null(g, "%s", diag_text(d));
        memset(&cx, 0, sizeof cx);
        cr_assert_eq(pass_run_list(g, PIPELINE, &cx, d), 0, "%s", diag_text(d));
        cr_assert_not_null(helpers_find_op(g, IR_OP_RNN_REC, 0));
        cr_assert_null(helpers_find_op(g, IR_OP_RNN_TISSUE, 0));
        arena_free(a);
    }
}

/* Without fold_constants the RnnRec is not packed (no D): the pass leaves it. */
Test(breakpoints, unpacked_layer_untouched)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "lstm_fwd_b1", NULL);
    const void *inputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, "lstm_fwd_b1", d, inputs);
    pass_ctx cx;

    cr_assert_not_null(g, "%s", diag_text(d));
    memset(&cx, 0, sizeof cx);
    cr_assert_eq(pass_run_list(g, "split_gates,breakpoints", &cx, d), 0, "%s", diag_text(d));
    cr_assert_not_null(helpers_find_op(g, IR_OP_RNN_REC, 0));
    cr_assert_null(helpers_find_op(g, IR_OP_RNN_TISSUE, 0));
    arena_free(a);
}

/* A node's own alpha_inter (the hook until --alpha-inter reaches pass_ctx) is carried to the
 * tissue node and to the kernel call; a huge one cuts every link and still runs (finite
 * outputs). */
Test(breakpoints, alpha_attribute_carried)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "lstm_seqlens", NULL);
    const void *inputs[8] = {0};
    void *outputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, "lstm_seqlens", d, inputs);
    pass_ctx cx;
    ir_node *rec;
    const ir_node *tis;
    int i;
    int64_t k, n;

    cr_assert_not_null(g, "%s", diag_text(d));
    memset(&cx, 0, sizeof cx);
    cr_assert_eq(pass_run_list(g, "split_gates,fold_constants", &cx, d), 0, "%s", diag_text(d));
    rec = (ir_node *)helpers_find_op(g, IR_OP_RNN_REC, 0);
    cr_assert_not_null(rec);
    ir_attr_set_float(g, rec, "alpha_inter", 1e30f);
    cr_assert_eq(pass_run_list(g, "breakpoints,dce", &cx, d), 0, "%s", diag_text(d));
    tis = helpers_find_op(g, IR_OP_RNN_TISSUE, 0);
    cr_assert_not_null(tis);
    cr_assert_eq(ir_attr_float(tis, "alpha_inter", 0.0f), 1e30f);
    cr_assert_eq(ir_eval(a, g, inputs, outputs, d), 0, "%s", diag_text(d));
    for (i = 0; i < g->n_outputs; i++) {
        n = ir_shape_numel(&g->outputs[i]->shape);
        if (g->outputs[i]->dtype == IR_DT_F32)
            for (k = 0; k < n; k++)
                cr_assert(isfinite(((const float *)outputs[i])[k]));
    }
    arena_free(a);
}
