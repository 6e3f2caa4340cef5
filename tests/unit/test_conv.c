/*
 * test_conv.c — the convolution front ends (issue 20, conv): window geometry worked by hand
 * against the ONNX formulas (shape_conv_geom_of, through shape inference), and the batch axis
 * traced through Conv, BatchNormalization and MaxPool to the LSTM of a PyTorch export.
 * The kernels' numbers are checked end to end against ONNX Runtime (tests/fixtures, the
 * conv_ / convt_ / bn_ / maxpool_ / avgpool_ / global cases).
 */
#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "helpers.h"
#include "ir.h"
#include "onnx.h"
#include "shape.h"

#include <criterion/criterion.h>
#include <string.h>

static arena *A;
static diag *D;
static ir_graph *G;

static void
setup(void)
{
    A = arena_new(0);
    D = diag_new(A, "m.onnx", NULL);
    G = ir_graph_new(A, "g", "m.onnx");
}

static void
teardown(void)
{
    arena_free(A);
}

TestSuite(conv_geom, .init = setup, .fini = teardown);

static ir_shape
shp(int rank, int64_t d0, int64_t d1, int64_t d2)
{
    ir_shape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    s.d[0] = d0, s.d[1] = d1, s.d[2] = d2;
    return s;
}

/* One node of op over X [1, C, L] (and a constant W of shape w when given). */
static ir_node *
one_node(ir_op op, int64_t C, int64_t L, const ir_shape *w)
{
    ir_shape xs = shp(3, 1, C, L), ys = shp(-1, 0, 0, 0);
    ir_node *n = ir_node_new(G, op, NULL, ir_op_name(op), w ? 3 : 1, 1);
    ir_tensor *x = ir_tensor_tmp(G, "X", IR_DT_F32, &xs);
    ir_graph_add_input(G, x);
    n->inputs[0] = x;
    if (w)
        n->inputs[1] = ir_const_new(G, "W", IR_DT_F32, w, NULL);
    ir_node_set_output(n, 0, ir_tensor_tmp(G, "Y", IR_DT_UNDEF, &ys));
    return n;
}

static void
ints(ir_node *n, const char *name, int64_t a, int64_t b, int count)
{
    int64_t v[2] = {a, b};
    ir_attr_set_ints(G, n, name, v, count);
}

/* Infer n's output and resolve its geometry: out[0], pad_b[0], pad_e[0] must be as given. */
static void
expect(ir_node *n, int64_t out, int64_t pb, int64_t pe)
{
    shape_conv_geom cg;
    cr_assert_eq(shape_infer_node(G, n, D), 0, "%s", diag_text(D));
    cr_assert_eq(shape_conv_geom_of(n, &cg, D), 0, "%s", diag_text(D));
    cr_assert_eq(cg.out[0], out, "out %lld, want %lld", (long long)cg.out[0], (long long)out);
    cr_assert_eq(cg.pad_b[0], pb, "pad_b %lld, want %lld", (long long)cg.pad_b[0], (long long)pb);
    cr_assert_eq(cg.pad_e[0], pe, "pad_e %lld, want %lld", (long long)cg.pad_e[0], (long long)pe);
    cr_assert_eq(ir_out(n, 0)->shape.d[2], out);
}

/* Conv, L 10, kernel 4, stride 3, SAME_LOWER: out = ceil(10/3) = 4, total padding
 * (4-1)*3 + 4 - 10 = 3, the odd one at the beginning: 2 + 1 (SAME_UPPER: 1 + 2). */
Test(conv_geom, same_lower_and_upper)
{
    ir_shape w = shp(3, 3, 2, 4);
    ir_node *n = one_node(IR_OP_CONV, 2, 10, &w);
    ir_attr_set_string(G, n, "auto_pad", "SAME_LOWER");
    ints(n, "strides", 3, 0, 1);
    expect(n, 4, 2, 1);
    ir_attr_set_string(G, n, "auto_pad", "SAME_UPPER");
    expect(n, 4, 1, 2);
}

/* Conv, L 10, kernel 3, dilation 2 (span 5), pads 2 + 1, stride 2: (10 + 3 - 5) / 2 + 1 = 5;
 * VALID: (10 - 5) / 2 + 1 = 3. */
Test(conv_geom, pads_dilation_valid)
{
    ir_shape w = shp(3, 4, 2, 3);
    ir_node *n = one_node(IR_OP_CONV, 2, 10, &w);
    ints(n, "dilations", 2, 0, 1);
    ints(n, "strides", 2, 0, 1);
    ints(n, "pads", 2, 1, 2);
    expect(n, 5, 2, 1);
    ir_attr_set_string(G, n, "auto_pad", "VALID");
    expect(n, 3, 0, 0);
}

/* MaxPool, kernel 3, stride 3, ceil_mode. L 5, pads 1 + 2: ceil((5 + 3 - 3) / 3) + 1 = 3, but
 * the third window would start at 2*3 - 1 = 5, in the end padding: 2. L 6, pads 1 + 1:
 * ceil(5 / 3) + 1 = 3, and the third window starts at 5, inside X: 3 (PyTorch's answers). */
Test(conv_geom, ceil_mode_drops_a_window_in_the_padding)
{
    ir_node *n = one_node(IR_OP_MAX_POOL, 2, 5, NULL);
    ints(n, "kernel_shape", 3, 0, 1);
    ints(n, "strides", 3, 0, 1);
    ints(n, "pads", 1, 1, 2);
    ints(n, "pads", 1, 2, 2);
    ir_attr_set_int(G, n, "ceil_mode", 1);
    expect(n, 2, 1, 2);
    ir_attr_set_int(G, n, "ceil_mode", 0);
    expect(n, 2, 1, 2); /* floor(5 / 3) + 1 */
    n = one_node(IR_OP_MAX_POOL, 2, 6, NULL);
    ints(n, "kernel_shape", 3, 0, 1);
    ints(n, "strides", 3, 0, 1);
    ints(n, "pads", 1, 1, 2);
    ir_attr_set_int(G, n, "ceil_mode", 1);
    expect(n, 3, 1, 1);
}

/* ConvTranspose, L 6, kernel 4, stride 2: 2*5 + 4 = 14 before padding; output_shape 13
 * takes total padding 1, at the beginning (the ONNX rule for NOTSET and SAME_LOWER);
 * SAME_UPPER, output 12 = 6 * 2: total 2, 1 + 1; output_padding 1 with pads 1 + 1: 13. */
Test(conv_geom, conv_transpose_output_shape_and_padding)
{
    ir_shape w = shp(3, 3, 2, 4);
    ir_node *n = one_node(IR_OP_CONV_TRANSPOSE, 3, 6, &w);
    ints(n, "strides", 2, 0, 1);
    ints(n, "output_shape", 13, 0, 1);
    expect(n, 13, 1, 0);
    n->n_attrs = 0;
    ints(n, "strides", 2, 0, 1);
    ir_attr_set_string(G, n, "auto_pad", "SAME_UPPER");
    expect(n, 12, 1, 1);
    n->n_attrs = 0;
    ints(n, "strides", 2, 0, 1);
    ints(n, "pads", 1, 1, 2);
    ints(n, "output_padding", 1, 0, 1);
    expect(n, 13, 1, 1);
}

/* A 3-D convolution is refused naming the rank; a group that does not divide C too. */
Test(conv_geom, refusals_name_what)
{
    ir_shape xs, w = shp(3, 3, 1, 3);
    ir_node *n = one_node(IR_OP_CONV, 4, 8, &w);
    ir_attr_set_int(G, n, "group", 3);
    cr_assert_eq(shape_infer_node(G, n, D), -1);
    cr_assert(strstr(diag_text(D), "attribute 'group' is 3"), "%s", diag_text(D));
    memset(&xs, 0, sizeof xs);
    xs.rank = 5;
    xs.d[0] = xs.d[1] = xs.d[2] = xs.d[3] = xs.d[4] = 2;
    n = one_node(IR_OP_MAX_POOL, 2, 8, NULL);
    n->inputs[0]->shape = xs;
    ints(n, "kernel_shape", 2, 2, 2);
    cr_assert_eq(shape_infer_node(G, n, D), -1);
    cr_assert(strstr(diag_text(D), "3-D pooling (input rank 5) is not supported"), "%s",
              diag_text(D));
    /* a hostile dilation: refused before any size is computed from it */
    n = one_node(IR_OP_CONV_TRANSPOSE, 3, 6, &w);
    ints(n, "dilations", (int64_t)1 << 40, 0, 1);
    cr_assert_eq(shape_infer_node(G, n, D), -1);
    cr_assert(strstr(diag_text(D), "each must be at least 1") || strstr(diag_text(D), "spans"),
              "%s", diag_text(D));
    n = one_node(IR_OP_CONV_TRANSPOSE, 3, 6, &w);
    ints(n, "dilations", (int64_t)1 << 30, 0, 1);
    ints(n, "kernel_shape", 3, 0, 1);
    cr_assert_eq(shape_infer_node(G, n, D), -1);
}

/* The export with a symbolic batch: input axis 0 reaches the LSTM's batch axis through Conv,
 * BatchNormalization, Relu, MaxPool and Transpose. */
Test(conv_geom, batch_axis_through_the_front_end)
{
    const ir_node *rnn = NULL;
    ir_graph *g = onnx_import(HELPERS_FIXTURES "/pt_conv_bn_lstm_dynbatch/model.onnx", A, D);
    cr_assert_not_null(g, "%s", diag_text(D));
    cr_assert_eq(driver_batch_axis(g, g->inputs[0], &rnn), 0);
    cr_assert(rnn && rnn->op == IR_OP_LSTM);
}
