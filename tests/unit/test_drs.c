/*
 * test_drs.c — the drs pass (passes/drs.c, MICRO'18 §V): structure of lstmc.RnnDrs (U split
 * into U_o and U_fic, checked against the ONNX R), which layers are eligible, and with
 * alpha_intra = 0 every fixture still matches its ONNX Runtime reference through ir_eval,
 * alone and after the breakpoints pass (DRS inside tissues).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "helpers.h"
#include "ir.h"
#include "ir_eval.h"
#include "ir_verify.h"
#include "passes.h"
#include "target.h"

#define FIX HELPERS_FIXTURES

/* A layer the drs pass changed: an RnnDrs, or an RnnTissue with the DRS inputs 9 and 10. */
static int
is_drs(const ir_node *n)
{
    return n->op == IR_OP_RNN_DRS || (n->op == IR_OP_RNN_TISSUE && n->n_inputs == 11);
}

/* Every fixture through passes (host target) matches its reference, and enough LSTM layers
 * got DRS. */
static void
every_fixture(const char *passes)
{
    helpers_sweep sw = {passes, "host", NULL, is_drs, 0};
    int bad, n = helpers_every_fixture(&sw, &bad);

    cr_assert_gt(n, 100, "the corpus has %d cases", n);
    cr_assert_gt(sw.n_counted, 30, "only %d LSTM layers got DRS", sw.n_counted);
    cr_assert_eq(bad, 0, "%d of %d fixtures differ from the reference", bad, n);
}

Test(drs, every_fixture_alpha0)
{
    every_fixture("split_gates,fold_constants,drs,dce");
}

Test(drs, every_fixture_alpha0_in_tissues)
{
    every_fixture("split_gates,fold_constants,breakpoints,drs,dce");
}

/* Run the DRS pipeline on case c (alpha_intra 0.25); g is returned, in a. */
static ir_graph *
run_case(arena *a, const char *c, const char *passes)
{
    diag *d = diag_new(a, c, NULL);
    const void *inputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, c, d, inputs);
    pass_ctx cx;

    cr_assert_not_null(g, "%s", diag_text(d));
    memset(&cx, 0, sizeof cx);
    cx.t = target_find("host");
    cx.alpha_intra = 0.25f;
    cr_assert_eq(pass_run_list(g, passes, &cx, d), 0, "%s", diag_text(d));
    cr_assert_eq(ir_verify(g, d), 0, "%s", diag_text(d));
    return g;
}

/* lstm_bidir_init: the RnnRec becomes one RnnDrs with Uo [D, H, H] k-major and Ufic
 * [D, H*3*H] (unit j's rows i, f, c contiguous), each element the ONNX R's; alpha_intra is
 * the pass default; the layer's outputs are the RnnDrs's. */
Test(drs, structure_lstm_bidir_init)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "lstm_bidir_init", NULL);
    const void *inputs[8] = {0};
    ir_graph *g0 = helpers_prepare_case(a, "lstm_bidir_init", d, inputs);
    const ir_node *lstm = helpers_find_op(g0, IR_OP_LSTM, 0), *drs;
    const ir_tensor *R = ir_in(lstm, 2), *Y = ir_out(lstm, 0), *Uo, *Uf;
    const int64_t H = ir_attr_int(lstm, "hidden_size", 0);
    const float *r = R->data;
    arena *a2 = arena_new(0);
    ir_graph *g;
    int64_t dd, j, k;

    g = run_case(a2, "lstm_bidir_init", "split_gates,fold_constants,drs,dce");
    cr_assert_null(helpers_find_op(g, IR_OP_RNN_REC, 0));
    drs = helpers_find_op(g, IR_OP_RNN_DRS, 0);
    cr_assert_not_null(drs);
    cr_assert_str_eq(drs->op_type, "lstmc.RnnDrs");
    cr_assert_eq(drs->n_inputs, 7);
    cr_assert_float_eq(ir_attr_float(drs, "alpha_intra", -1.0f), 0.25f, 0.0f);
    cr_assert_null(ir_attr_get(drs, "row_abs_sum"));
    Uo = ir_in(drs, 1);
    Uf = ir_in(drs, 2);
    cr_assert(Uo->shape.rank == 3 && Uo->shape.d[0] == 2 && Uo->shape.d[1] == H &&
              Uo->shape.d[2] == H);
    cr_assert(Uf->shape.rank == 2 && Uf->shape.d[0] == 2 && Uf->shape.d[1] == 3 * H * H);
    for (dd = 0; dd < 2; dd++)
        for (j = 0; j < H; j++)
            for (k = 0; k < H; k++) {
                const float *rd = r + dd * 4 * H * H; /* rows i o f c */
                const float *u = (const float *)Uf->data + (dd * H + j) * 3 * H;

                cr_assert_eq(((const float *)Uo->data)[(dd * H + k) * H + j],
                             rd[(H + j) * H + k]);
                cr_assert_eq(u[k], rd[j * H + k]);
                cr_assert_eq(u[H + k], rd[(2 * H + j) * H + k]);
                cr_assert_eq(u[2 * H + k], rd[(3 * H + j) * H + k]);
            }
    if (Y)
        cr_assert_str_eq(ir_out(drs, 0)->name, Y->name);
    arena_free(a2);
    arena_free(a);
}

/* GRU and RNN layers (no output gate) and LSTMs with a P_o peephole keep their RnnRec. */
Test(drs, ineligible_layers_are_left_alone)
{
    static const char *const cases[] = {"gru_fwd_lbr1", "rnn_fwd_b1", "lstm_peephole"};
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        arena *a = arena_new(0);
        ir_graph *g = run_case(a, cases[i], "split_gates,fold_constants,drs,dce");
        cr_assert_null(helpers_find_op(g, IR_OP_RNN_DRS, 0), "%s", cases[i]);
        cr_assert_not_null(helpers_find_op(g, IR_OP_RNN_REC, 0), "%s", cases[i]);
        arena_free(a);
    }
}

/* After breakpoints, the RnnTissue gets Uo and Ufic as inputs 9 and 10 (the panels go) and
 * alpha_intra beside alpha_inter. */
Test(drs, tissue_gets_drs_inputs)
{
    arena *a = arena_new(0);
    ir_graph *g = run_case(a, "lstm_fwd_b3_noB", "split_gates,fold_constants,breakpoints,drs,dce");
    const ir_node *t = helpers_find_op(g, IR_OP_RNN_TISSUE, 0);

    cr_assert_not_null(t);
    cr_assert_null(helpers_find_op(g, IR_OP_RNN_TISSUE, 1));
    cr_assert_eq(t->n_inputs, 11);
    cr_assert_null(ir_in(t, 1));
    cr_assert_not_null(ir_in(t, 9));
    cr_assert_not_null(ir_in(t, 10));
    cr_assert_float_eq(ir_attr_float(t, "alpha_intra", -1.0f), 0.25f, 0.0f);
    cr_assert_not_null(ir_attr_get(t, "mts"));
    arena_free(a);
}
