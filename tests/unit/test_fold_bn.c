/*
 * test_fold_bn.c — the fold_bn pass (issue 20, conv): BatchNormalization folded into the
 * Conv, ConvTranspose, Gemm or MatMul before it. For each fixture, after the pass: ir_verify holds,
 * the BatchNormalization nodes that can fold are gone (and the one that cannot stays), and
 * ir_eval's outputs match ONNX Runtime's reference as they did before the pass.
 */
#include "arena.h"
#include "diag.h"
#include "helpers.h"
#include "ir.h"
#include "ir_eval.h"
#include "ir_verify.h"
#include "passes.h"

#include <criterion/criterion.h>
#include <string.h>

static int
count_op(const ir_graph *g, ir_op op)
{
    int i, n = 0;
    for (i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->op == op)
            n++;
    return n;
}

/* Case c before and after fold_bn: want_bn BatchNormalization nodes are left, a `producer`
 * node is there and no `gone` node (IR_OP_COUNT: no check), and the outputs match the
 * reference both times. */
static void
check_case(const char *c, int want_bn, ir_op producer, ir_op gone)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, c, NULL);
    const void *inputs[8] = {0};
    void *before[8] = {0}, *after[8] = {0};
    ir_graph *g = helpers_prepare_case(a, c, d, inputs);
    pass_ctx cx;

    cr_assert_not_null(g, "%s", diag_text(d));
    cr_assert(count_op(g, IR_OP_BATCH_NORM) > 0 && count_op(g, IR_OP_BATCH_NORM) >= want_bn,
              "%s: no BatchNormalization (stale case)", c);
    cr_assert_eq(ir_eval(a, g, inputs, before, d), 0, "%s", diag_text(d));
    cr_assert(helpers_outputs_match(a, c, g, before, "before fold_bn"));
    memset(&cx, 0, sizeof cx);
    cr_assert_eq(pass_run_list(g, "fold_bn", &cx, d), 0, "%s", diag_text(d));
    cr_assert_eq(ir_verify(g, d), 0, "%s", diag_text(d));
    cr_assert_eq(count_op(g, IR_OP_BATCH_NORM), want_bn, "%s", c);
    if (producer != IR_OP_COUNT)
        cr_assert_not_null(helpers_find_op(g, producer, 0), "%s: the folded op is a %s", c,
                           ir_op_name(producer));
    if (gone != IR_OP_COUNT)
        cr_assert_null(helpers_find_op(g, gone, 0), "%s: no %s is left", c, ir_op_name(gone));
    cr_assert_eq(ir_eval(a, g, inputs, after, d), 0, "%s", diag_text(d));
    cr_assert(helpers_outputs_match(a, c, g, after, "after fold_bn"));
    arena_free(a);
}

Test(fold_bn, into_conv)
{
    check_case("bnfold_conv", 0, IR_OP_CONV, IR_OP_COUNT);
}

Test(fold_bn, into_gemm_with_alpha_beta_transB)
{
    check_case("bnfold_gemm", 0, IR_OP_GEMM, IR_OP_COUNT);
}

Test(fold_bn, matmul_becomes_gemm)
{
    check_case("bnfold_matmul", 0, IR_OP_GEMM, IR_OP_MATMUL); /* it became the Gemm */
}

/* The Conv's output has a second reader (Relu): folding would change what Relu sees. */
Test(fold_bn, conv_with_two_readers_keeps_the_kernel)
{
    check_case("bnfold_conv_nobias_shared", 1, IR_OP_CONV, IR_OP_COUNT);
}

/* The PyTorch export: Conv -> BN folds, ReLU -> BN (no linear op before it) stays. */
Test(fold_bn, pytorch_conv_bn_lstm)
{
    check_case("pt_conv_bn_lstm", 1, IR_OP_CONV, IR_OP_COUNT);
}

/* BatchNorm1d over an LSTM's output (behind a Transpose): nothing to fold into. */
Test(fold_bn, after_an_lstm_keeps_the_kernel)
{
    check_case("pt_lstm_bn", 1, IR_OP_LSTM, IR_OP_COUNT);
}

/* ConvTranspose W [C_in, M/group, k...]: the scale on axis 1 within each of two groups, and
 * a bias made for the fold (the ConvTranspose has none). */
Test(fold_bn, into_grouped_conv_transpose_without_bias)
{
    check_case("bnfold_convt_2d_group2", 0, IR_OP_CONV_TRANSPOSE, IR_OP_COUNT);
}

/* The PyTorch decoder: LSTM -> ConvTranspose1d (2 groups) + BatchNorm1d + ReLU. */
Test(fold_bn, pytorch_lstm_conv_transpose_bn)
{
    check_case("pt_lstm_convt_bn", 0, IR_OP_CONV_TRANSPOSE, IR_OP_COUNT);
}
