/*
 * test_passes.c — the pass manager and the passes. Truth comes from outside: every fixture
 * (ONNX Runtime / PyTorch references in tests/fixtures) must match through the reference
 * path (ir_eval) with every pass on, with each pass off, and with none; structure checks
 * use hand-worked values.
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
#include "lstmc_rt_npy.h"
#include "passes.h"
#include "target.h"

#define FIX HELPERS_FIXTURES

/* Every fixture with pass list `passes` minus `disable` (host target) matches its reference
 * within rtol 1e-4, atol 1e-5 (integers exactly). */
static void
every_fixture(const char *passes, const char *disable)
{
    helpers_sweep sw = {passes, "host", disable, NULL, 0};
    int bad, n = helpers_every_fixture(&sw, &bad);

    cr_assert_gt(n, 100, "the corpus has %d cases", n);
    cr_assert_eq(bad, 0, "%d of %d fixtures differ from the reference", bad, n);
}

Test(passes, every_fixture_all_passes)
{
    every_fixture("split_gates,fold_constants,dce", NULL);
}

Test(passes, every_fixture_without_split_gates)
{
    every_fixture("split_gates,fold_constants,dce", "split_gates");
}

Test(passes, every_fixture_without_fold_constants)
{
    every_fixture("split_gates,fold_constants,dce", "fold_constants");
}

Test(passes, every_fixture_no_passes)
{
    every_fixture("", NULL);
}

Test(passes, unknown_pass_is_reported)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "m.onnx", NULL);
    ir_graph *g = ir_graph_new(a, "g", "m.onnx");
    pass_ctx cx;
    const char *dis[1] = {"nope2"};
    memset(&cx, 0, sizeof cx);
    cx.disable = dis;
    cx.n_disable = 1;
    cr_assert_eq(pass_run_list(g, "dce,nope", &cx, d), -1);
    cr_assert(strstr(diag_text(d), "unknown pass 'nope'"), "%s", diag_text(d));
    cr_assert(strstr(diag_text(d), "--disable-pass: unknown pass 'nope2'"), "%s", diag_text(d));
    arena_free(a);
}


/* split_gates on a bidirectional LSTM (I 3, H 4): one projection [2, T*N, 16] before one
 * recurrence; fold_constants packs W^T and sums the biases, checked element by element
 * against the ONNX initializers. */
Test(split_gates, structure_and_folded_constants)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "lstm_bidir_init", NULL);
    const void *inputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, "lstm_bidir_init", d, inputs);
    pass_ctx cx;
    const ir_node *lstm, *proj, *rec;
    const ir_tensor *W, *B, *R, *Wt, *bias, *Rt, *X;
    const ir_attr *sums;
    int64_t D, GH, I, H, r, k, T, N;

    cr_assert_not_null(g, "%s", diag_text(d));
    lstm = helpers_find_op(g, IR_OP_LSTM, 0);
    cr_assert_not_null(lstm);
    X = ir_in(lstm, 0);
    W = ir_in(lstm, 1);
    R = ir_in(lstm, 2);
    B = ir_in(lstm, 3);
    D = W->shape.d[0];
    GH = W->shape.d[1];
    I = W->shape.d[2];
    H = GH / 4;
    T = X->shape.d[0];
    N = X->shape.d[1];
    cr_assert_eq(D, 2);
    memset(&cx, 0, sizeof cx);
    cx.t = target_find("host");
    cr_assert_eq(pass_run_list(g, "split_gates", &cx, d), 0, "%s", diag_text(d));
    cr_assert_null(helpers_find_op(g, IR_OP_LSTM, 0));
    proj = helpers_find_op(g, IR_OP_RNN_PROJ, 0);
    rec = helpers_find_op(g, IR_OP_RNN_REC, 0);
    cr_assert_not_null(proj);
    cr_assert_not_null(rec);
    cr_assert_lt(proj->id, rec->id, "the projection runs before the time loop");
    cr_assert_eq(ir_out(proj, 0)->shape.d[0], D);
    cr_assert_eq(ir_out(proj, 0)->shape.d[1], T * N);
    cr_assert_eq(ir_out(proj, 0)->shape.d[2], GH);
    cr_assert_eq(ir_in(rec, 0), ir_out(proj, 0));
    cr_assert_eq(ir_in(rec, 1), R);
    cr_assert_eq(ir_attr_int(rec, "packed", 1), 0);

    cr_assert_eq(pass_run_list(g, "fold_constants", &cx, d), 0, "%s", diag_text(d));
    Wt = ir_in(proj, 1);
    bias = ir_in(proj, 2);
    Rt = ir_in(rec, 1);
    cr_assert_eq(ir_attr_int(proj, "packed", 0), 1);
    cr_assert_eq(Wt->shape.d[1], I);
    cr_assert_eq(Wt->shape.d[2], GH);
    cr_assert_eq(Rt->shape.d[1], H);
    for (r = 0; r < D * GH; r++) {
        int64_t dd = r / GH, gg = r % GH;
        float want = ((const float *)B->data)[dd * 2 * GH + gg] +
                     ((const float *)B->data)[dd * 2 * GH + GH + gg];
        float absum = 0;
        cr_assert_float_eq(((const float *)bias->data)[r], want, 0);
        for (k = 0; k < I; k++)
            cr_assert_float_eq(((const float *)Wt->data)[(dd * I + k) * GH + gg],
                               ((const float *)W->data)[(dd * GH + gg) * I + k], 0);
        for (k = 0; k < H; k++) {
            cr_assert_float_eq(((const float *)Rt->data)[(dd * H + k) * GH + gg],
                               ((const float *)R->data)[(dd * GH + gg) * H + k], 0);
            absum += fabsf(((const float *)R->data)[(dd * GH + gg) * H + k]);
        }
        sums = ir_attr_get(rec, "row_abs_sum");
        cr_assert_not_null(sums);
        cr_assert_float_eq(((const float *)sums->t->data)[r], absum, 1e-6);
    }
    arena_free(a);
}

/* GRU with linear_before_reset keeps Rbh out of the projection: the recurrence reads it. */
Test(split_gates, gru_linear_before_reset_keeps_rbh)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "gru_fwd_lbr1", NULL);
    const void *inputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, "gru_fwd_lbr1", d, inputs);
    pass_ctx cx;
    const ir_node *rec, *gru;
    const ir_tensor *B;
    int64_t H, j;

    cr_assert_not_null(g, "%s", diag_text(d));
    gru = helpers_find_op(g, IR_OP_GRU, 0);
    B = ir_in(gru, 3);
    cr_assert_not_null(B);
    H = ir_attr_int(gru, "hidden_size", 0);
    memset(&cx, 0, sizeof cx);
    cr_assert_eq(pass_run_list(g, "split_gates,fold_constants", &cx, d), 0);
    rec = helpers_find_op(g, IR_OP_RNN_REC, 0);
    cr_assert_not_null(ir_in(rec, 2));
    cr_assert_eq(ir_in(rec, 2)->shape.d[1], H);
    for (j = 0; j < H; j++)
        cr_assert_float_eq(((const float *)ir_in(rec, 2)->data)[j],
                           ((const float *)B->data)[3 * H + 2 * H + j], 0);
    arena_free(a);
}

/* The default pipeline ends with dedup: every fixture still matches its reference. */
Test(passes, every_fixture_with_dedup)
{
    every_fixture("split_gates,fold_constants,dce,dedup", NULL);
}

/* Constant tensors read by live nodes whose bytes equal another's (same dtype and shape) but
 * which are another tensor: the copies dedup must leave none of. */
static int
n_duplicate_constants(const ir_graph *g)
{
    const ir_tensor *seen[256];
    int n_seen = 0, dup = 0, i, j, k;
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        for (j = 0; !n->dead && j < n->n_inputs; j++) {
            const ir_tensor *t = n->inputs[j];
            int64_t ne;
            if (!t || !t->data || t->producer)
                continue;
            for (k = 0; k < n_seen && seen[k] != t; k++)
                ;
            if (k < n_seen)
                continue;
            ne = ir_shape_numel(&t->shape);
            for (k = 0; k < n_seen; k++)
                if (seen[k]->dtype == t->dtype && ir_shape_numel(&seen[k]->shape) == ne &&
                    memcmp(seen[k]->data, t->data, (size_t)ne * ir_dtype_size(t->dtype)) == 0)
                    dup++;
            cr_assert_lt(n_seen, 256);
            seen[n_seen++] = t;
        }
    }
    return dup;
}

/* How many distinct tensors input `slot` of the live `op` nodes of g are. */
static int
n_distinct_inputs(const ir_graph *g, ir_op op, int slot)
{
    const ir_tensor *seen[64];
    const ir_node *n;
    int n_seen = 0, i, k;
    for (i = 0; (n = helpers_find_op(g, op, i)) != NULL; i++) {
        for (k = 0; k < n_seen && seen[k] != ir_in(n, slot); k++)
            ;
        if (k == n_seen && n_seen < 64)
            seen[n_seen++] = ir_in(n, slot);
    }
    return n_seen;
}

/* A siamese encoder (one 2-layer LSTM + Linear on two windows, the second branch reading
 * every weight through Identity): after packing each layer's W and U exist once per branch;
 * dedup leaves one tensor per weight, shared by both branches' nodes, and drops the zero
 * initial states PyTorch exports. */
Test(dedup, siamese_branches_share_weights)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "pt_siamese_lstm2", NULL);
    const void *inputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, "pt_siamese_lstm2", d, inputs);
    pass_ctx cx;
    int l;

    cr_assert_not_null(g, "%s", diag_text(d));
    memset(&cx, 0, sizeof cx);
    cx.t = target_find("host");
    cr_assert_eq(pass_run_list(g, "split_gates,fold_constants,dce", &cx, d), 0, "%s", diag_text(d));
    cr_assert_gt(n_duplicate_constants(g), 0, "the export holds copies (the case is stale)");
    cr_assert_not_null(ir_in(helpers_find_op(g, IR_OP_RNN_REC, 0), 4), "a zero h0 before");
    cr_assert_eq(pass_run_list(g, "dedup", &cx, d), 0, "%s", diag_text(d));
    cr_assert_eq(n_duplicate_constants(g), 0);
    /* 4 layers (2 per branch) read 2 packed W, 2 summed biases and 2 packed U, each
     * tensor by 2 nodes; no zero initial state is left */
    cr_assert_eq(n_distinct_inputs(g, IR_OP_RNN_PROJ, 1), 2);
    cr_assert_eq(n_distinct_inputs(g, IR_OP_RNN_PROJ, 2), 2);
    cr_assert_eq(n_distinct_inputs(g, IR_OP_RNN_REC, 1), 2);
    for (l = 0; l < 4; l++) {
        const ir_node *r = helpers_find_op(g, IR_OP_RNN_REC, l);
        cr_assert_not_null(r);
        cr_assert_null(ir_in(r, 4));
        cr_assert_null(ir_in(r, 5));
    }
    cr_assert_null(helpers_find_op(g, IR_OP_RNN_REC, 4));
    arena_free(a);
}

/* torch.zeros h0 / c0: the all-zero initial states of the LSTM and the GRU are dropped, and a
 * constant initial state with one non-zero element is kept. */
Test(dedup, zero_initial_states_dropped_nonzero_kept)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "pt_zero_states", NULL);
    const void *inputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, "pt_zero_states", d, inputs);
    pass_ctx cx;
    const ir_node *lstm, *gru;
    ir_tensor *h0, *c0, *gh0;

    cr_assert_not_null(g, "%s", diag_text(d));
    lstm = helpers_find_op(g, IR_OP_LSTM, 0);
    gru = helpers_find_op(g, IR_OP_GRU, 0);
    cr_assert(lstm && gru);
    h0 = ir_in(lstm, 5);
    c0 = ir_in(lstm, 6);
    gh0 = ir_in(gru, 5);
    cr_assert(h0 && c0 && gh0 && h0->data && c0->data && gh0->data, "constant states");
    if (c0 == h0) { /* one tensor for both: give c0 its own copy to change */
        c0 = ir_const_new(g, "c0", c0->dtype, &c0->shape, c0->data);
        ((ir_node *)lstm)->inputs[6] = c0;
    }
    ((float *)c0->data)[3] = 0.5f;
    memset(&cx, 0, sizeof cx);
    cr_assert_eq(pass_run_list(g, "dedup", &cx, d), 0, "%s", diag_text(d));
    cr_assert_null(ir_in(lstm, 5));
    cr_assert_eq(ir_in(lstm, 6), c0, "a non-zero initial state stays");
    cr_assert_null(ir_in(gru, 5));
    arena_free(a);
}
