/*
 * test_shape.c — shape inference against hand-worked shapes (numpy broadcasting rules,
 * the ONNX operator definitions).
 */
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "shape.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <string.h>

static arena *A;
static diag *D;
static ir_graph *G;

static void
setup(void)
{
    A = arena_new(0);
    D = diag_new(A, "model.onnx", NULL);
    G = ir_graph_new(A, "g", "model.onnx");
}

static void
teardown(void)
{
    arena_free(A);
}

TestSuite(shape, .init = setup, .fini = teardown);

/* --- builders ----------------------------------------------------------------------- */

static ir_shape
shp(int rank, ...)
{
    ir_shape s;
    va_list ap;
    int i;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    va_start(ap, rank);
    for (i = 0; i < rank; i++)
        s.d[i] = va_arg(ap, int64_t);
    va_end(ap);
    return s;
}

/* A graph input of dtype dt and shape s. */
static ir_tensor *
tin(const char *name, ir_dtype dt, ir_shape s)
{
    ir_tensor *t = ir_tensor_new(G, name, dt, &s);
    ir_graph_add_input(G, t);
    return t;
}

/* A constant int64 vector. */
static ir_tensor *
ci64(int n, ...)
{
    int64_t v[16];
    ir_shape s = shp(1, (int64_t)n);
    va_list ap;
    int i;
    va_start(ap, n);
    for (i = 0; i < n; i++)
        v[i] = va_arg(ap, int64_t);
    va_end(ap);
    return ir_const_new(G, "c", IR_DT_I64, &s, v);
}

/* A node of op with the given inputs and n_out fresh outputs. */
static ir_node *
mk(ir_op op, int n_out, int n_in, ...)
{
    ir_node *n = ir_node_new(G, op, NULL, NULL, n_in, n_out);
    va_list ap;
    int i;
    va_start(ap, n_in);
    for (i = 0; i < n_in; i++)
        n->inputs[i] = va_arg(ap, ir_tensor *);
    va_end(ap);
    for (i = 0; i < n_out; i++)
        ir_node_set_output(n, i, ir_tensor_tmp(G, "out", IR_DT_UNDEF, NULL));
    return n;
}

static void
expect_shape(const ir_tensor *t, ir_shape want)
{
    char got[128], exp[128];
    shape_fmt(&t->shape, got, sizeof got);
    shape_fmt(&want, exp, sizeof exp);
    cr_assert_str_eq(got, exp, "shape of '%s'", t->name);
}

static void
infer_ok(ir_node *n)
{
    cr_assert_eq(shape_infer_node(G, n, D), 0, "%s", diag_text(D));
}

static void
infer_fails(ir_node *n, const char *want)
{
    cr_assert_eq(shape_infer_node(G, n, D), -1, "expected an error for %s", n->name);
    cr_assert(strstr(diag_text(D), want), "expected error containing\n  %s\ngot\n  %s", want,
              diag_text(D));
}

static void
expect_i64(const ir_tensor *t, int n, ...)
{
    va_list ap;
    int i;
    cr_assert_not_null(t->data, "'%s' has no constant data", t->name);
    cr_assert_eq(ir_shape_numel(&t->shape), n);
    va_start(ap, n);
    for (i = 0; i < n; i++) {
        int64_t w = va_arg(ap, int64_t);
        cr_assert_eq(((const int64_t *)t->data)[i], w, "element %d", i);
    }
    va_end(ap);
}

#define I(x) ((int64_t)(x))

/* --- helpers -------------------------------------------------------------------------- */

Test(shape, fmt)
{
    ir_shape s = shp(3, I(-1), I(2), I(-1));
    char buf[64];
    s.sym[0] = "seq";
    cr_assert_eq(shape_fmt(&s, buf, sizeof buf), 9);
    cr_assert_str_eq(buf, "[seq,2,?]");
    s = shp(0);
    shape_fmt(&s, buf, sizeof buf);
    cr_assert_str_eq(buf, "[]");
    s.rank = -1;
    shape_fmt(&s, buf, sizeof buf);
    cr_assert_str_eq(buf, "?");
    s = shp(2, I(1024), I(16));
    cr_assert_eq(shape_fmt(&s, buf, 5), 9); /* "[1024,16]" truncated */
    cr_assert_str_eq(buf, "[102");
}

Test(shape, broadcast_rules)
{
    ir_shape a = shp(4, I(8), I(1), I(6), I(1)), b = shp(3, I(7), I(1), I(5)), o;
    cr_assert_eq(shape_broadcast(&a, &b, &o), 0);
    expect_shape(&(ir_tensor){.name = "o", .shape = o}, shp(4, I(8), I(7), I(6), I(5)));
    a = shp(2, I(2), I(3));
    b = shp(1, I(4));
    cr_assert_eq(shape_broadcast(&a, &b, &o), -1);
    a = shp(0);
    b = shp(1, I(5));
    cr_assert_eq(shape_broadcast(&a, &b, &o), 0);
    cr_assert_eq(o.rank, 1);
    cr_assert_eq(o.d[0], 5);
    /* symbolic: [T,1] with [1,T] gives [T,T]; [T] with [B] gives an unknown dim */
    a = shp(2, I(-1), I(1));
    a.sym[0] = "T";
    b = shp(2, I(1), I(-1));
    b.sym[1] = "T";
    cr_assert_eq(shape_broadcast(&a, &b, &o), 0);
    cr_assert_str_eq(o.sym[0], "T");
    cr_assert_str_eq(o.sym[1], "T");
}

/* --- element-wise ------------------------------------------------------------------- */

Test(shape, add_broadcasts)
{
    ir_node *n = mk(IR_OP_ADD, 1, 2, tin("a", IR_DT_F32, shp(4, I(8), I(1), I(6), I(1))),
                    tin("b", IR_DT_F32, shp(3, I(7), I(1), I(5))));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(4, I(8), I(7), I(6), I(5)));
    cr_assert_eq(n->outputs[0]->dtype, IR_DT_F32);
    n = mk(IR_OP_MUL, 1, 2, tin("c", IR_DT_F32, shp(2, I(2), I(3))),
           tin("d", IR_DT_F32, shp(1, I(4))));
    infer_fails(n, "(Mul): inputs 'A' [2,3] and 'B' [4] do not broadcast");
}

Test(shape, integer_arithmetic_folds)
{
    ir_node *n = mk(IR_OP_MUL, 1, 2, ci64(3, I(1), I(2), I(3)), ci64(1, I(-4)));
    infer_ok(n);
    expect_i64(n->outputs[0], 3, I(-4), I(-8), I(-12));
}

/* --- reshape family ----------------------------------------------------------------- */

Test(shape, reshape_zero_and_minus_one)
{
    ir_tensor *x = tin("x", IR_DT_F32, shp(3, I(2), I(3), I(4)));
    ir_node *n = mk(IR_OP_RESHAPE, 1, 2, x, ci64(2, I(0), I(-1)));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(2), I(12)));
    n = mk(IR_OP_RESHAPE, 1, 2, x, ci64(3, I(-1), I(4), I(1)));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(3, I(6), I(4), I(1)));
    n = mk(IR_OP_RESHAPE, 1, 2, x, ci64(2, I(5), I(-1)));
    infer_fails(n, "cannot reshape input 'data' [2,3,4] (24 elements) to [5,-1]");
    n = mk(IR_OP_RESHAPE, 1, 2, x, ci64(2, I(-1), I(-1)));
    infer_fails(n, "input 'shape' [-1,-1] has more than one -1");
    /* allowzero 1: 0 is a real zero dim, so [0,4] (0 elements) cannot hold 24 */
    n = mk(IR_OP_RESHAPE, 1, 2, x, ci64(2, I(0), I(4)));
    ir_attr_set_int(G, n, "allowzero", 1);
    infer_fails(n, "cannot reshape input 'data' [2,3,4] (24 elements) to [0,4] (0 elements)");
}

Test(shape, reshape_shape_must_be_constant)
{
    ir_node *n = mk(IR_OP_RESHAPE, 1, 2, tin("x", IR_DT_F32, shp(1, I(6))),
                    tin("s", IR_DT_I64, shp(1, I(2))));
    infer_fails(n, "(Reshape): shape operand 'shape' (graph input 's') is not constant once the input "
                   "dims are bound");
}

Test(shape, squeeze_unsqueeze_negative_axes)
{
    ir_tensor *x = tin("x", IR_DT_F32, shp(3, I(1), I(3), I(1)));
    ir_node *n = mk(IR_OP_SQUEEZE, 1, 2, x, ci64(1, I(-1)));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(1), I(3)));
    n = mk(IR_OP_SQUEEZE, 1, 2, x, NULL);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(1, I(3)));
    n = mk(IR_OP_SQUEEZE, 1, 2, x, ci64(1, I(1)));
    infer_fails(n, "cannot squeeze axis 1 of input 'data' [1,3,1]");
    /* [3] unsqueezed at -1 and 0 of the rank-3 output: [1,3,1] */
    n = mk(IR_OP_UNSQUEEZE, 1, 2, tin("v", IR_DT_F32, shp(1, I(3))), ci64(2, I(-1), I(0)));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(3, I(1), I(3), I(1)));
    n = mk(IR_OP_UNSQUEEZE, 1, 2, x, ci64(2, I(4), I(-1)));
    infer_fails(n, "input 'axes' [4,-1] names axis 4 twice");
}

Test(shape, flatten_transpose_expand_concat)
{
    ir_tensor *x = tin("x", IR_DT_F32, shp(3, I(7), I(2), I(5)));
    ir_node *n = mk(IR_OP_FLATTEN, 1, 1, x);
    ir_attr_set_int(G, n, "axis", 0);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(1), I(70)));
    n = mk(IR_OP_FLATTEN, 1, 1, x);
    ir_attr_set_int(G, n, "axis", -1);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(14), I(5)));

    n = mk(IR_OP_TRANSPOSE, 1, 1, x); /* no perm: reversed */
    infer_ok(n);
    expect_shape(n->outputs[0], shp(3, I(5), I(2), I(7)));
    cr_assert_eq(ir_attr_get(n, "perm")->ints[0], 2);
    n = mk(IR_OP_TRANSPOSE, 1, 1, x);
    ir_attr_set_ints(G, n, "perm", (int64_t[]){1, 1, 0}, 3);
    infer_fails(n, "attribute 'perm' is [1,1,0]; expected a permutation of 0..2");

    n = mk(IR_OP_EXPAND, 1, 2, tin("e", IR_DT_F32, shp(2, I(3), I(1))), ci64(3, I(2), I(1), I(4)));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(3, I(2), I(3), I(4)));

    n = mk(IR_OP_CONCAT, 1, 2, x, tin("y", IR_DT_F32, shp(3, I(7), I(3), I(5))));
    ir_attr_set_int(G, n, "axis", -2);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(3, I(7), I(5), I(5)));
    n = mk(IR_OP_CONCAT, 1, 2, x, tin("z", IR_DT_F32, shp(3, I(6), I(3), I(5))));
    ir_attr_set_int(G, n, "axis", 1);
    infer_fails(n, "input 1 has shape [6,3,5]; it must match input 0 [7,2,5] except on axis 1");
}

Test(shape, slice_negative_steps_and_clamping)
{
    static const int64_t v[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    ir_shape s10 = shp(1, I(10));
    ir_tensor *data = ir_const_new(G, "v", IR_DT_I64, &s10, v);
    ir_tensor *x = tin("x", IR_DT_F32, shp(2, I(4), I(6)));
    /* v[-1::-2] = 9,7,5,3,1 */
    ir_node *n = mk(IR_OP_SLICE, 1, 5, data, ci64(1, I(-1)), ci64(1, INT64_MIN), ci64(1, I(0)),
                    ci64(1, I(-2)));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(1, I(5)));
    expect_i64(n->outputs[0], 5, I(9), I(7), I(5), I(3), I(1));
    /* v[2:1000:3] = 2,5,8 */
    n = mk(IR_OP_SLICE, 1, 5, data, ci64(1, I(2)), ci64(1, I(1000)), NULL, ci64(1, I(3)));
    infer_ok(n);
    expect_i64(n->outputs[0], 3, I(2), I(5), I(8));
    /* x[:, -3::2] → [4,2];  x[::-1] on axis 0 → [4,6] */
    n = mk(IR_OP_SLICE, 1, 5, x, ci64(1, I(-3)), ci64(1, INT64_MAX), ci64(1, I(-1)), ci64(1, I(2)));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(4), I(2)));
    n = mk(IR_OP_SLICE, 1, 5, x, ci64(1, I(-1)), ci64(1, -INT64_MAX), ci64(1, I(0)),
           ci64(1, I(-1)));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(4), I(6)));
    /* empty: x[3:1] on axis 1 → [4,0] */
    n = mk(IR_OP_SLICE, 1, 5, x, ci64(1, I(3)), ci64(1, I(1)), ci64(1, I(1)), NULL);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(4), I(0)));
    n = mk(IR_OP_SLICE, 1, 5, x, ci64(1, I(0)), ci64(1, I(1)), ci64(1, I(0)), ci64(1, I(0)));
    infer_fails(n, "input 'steps' has a 0 step for axis 0");
}

Test(shape, gather_negative_axis)
{
    ir_tensor *x = tin("x", IR_DT_F32, shp(3, I(2), I(3), I(4)));
    ir_node *n = mk(IR_OP_GATHER, 1, 2, x, tin("i", IR_DT_I64, shp(2, I(2), I(2))));
    ir_attr_set_int(G, n, "axis", -1);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(4, I(2), I(3), I(2), I(2)));
    n = mk(IR_OP_GATHER, 1, 2, x, ci64(2, I(1), I(-5)));
    ir_attr_set_int(G, n, "axis", -1);
    infer_fails(n, "index -5 is out of range for axis 2 of size 4");
}

Test(shape, shape_chain_gives_reshape_a_constant)
{
    /* x [7,2,5]: Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0), [0]), [-1])) → [7,10] */
    ir_tensor *x = tin("x", IR_DT_F32, shp(3, I(7), I(2), I(5)));
    ir_shape s0 = shp(0);
    int64_t zero = 0;
    ir_node *sh = mk(IR_OP_SHAPE, 1, 1, x);
    ir_node *ga =
        mk(IR_OP_GATHER, 1, 2, sh->outputs[0], ir_const_new(G, "i", IR_DT_I64, &s0, &zero));
    ir_node *us = mk(IR_OP_UNSQUEEZE, 1, 2, ga->outputs[0], ci64(1, I(0)));
    ir_node *cc = mk(IR_OP_CONCAT, 1, 2, us->outputs[0], ci64(1, I(-1)));
    ir_node *rs = mk(IR_OP_RESHAPE, 1, 2, x, cc->outputs[0]);
    ir_node *tail = mk(IR_OP_SHAPE, 1, 1, x);
    ir_attr_set_int(G, cc, "axis", 0);
    ir_attr_set_int(G, tail, "start", -2);
    infer_ok(sh);
    infer_ok(ga);
    infer_ok(us);
    infer_ok(cc);
    infer_ok(rs);
    infer_ok(tail);
    expect_i64(sh->outputs[0], 3, I(7), I(2), I(5));
    expect_shape(ga->outputs[0], shp(0));
    expect_i64(ga->outputs[0], 1, I(7));
    expect_i64(cc->outputs[0], 2, I(7), I(-1));
    expect_shape(rs->outputs[0], shp(2, I(7), I(10)));
    expect_i64(tail->outputs[0], 2, I(2), I(5));
}

/* --- projections -------------------------------------------------------------------- */

Test(shape, matmul_vectors_and_batches)
{
    ir_node *n = mk(IR_OP_MATMUL, 1, 2, tin("a", IR_DT_F32, shp(1, I(3))),
                    tin("b", IR_DT_F32, shp(3, I(2), I(3), I(4))));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(2), I(4)));
    n = mk(IR_OP_MATMUL, 1, 2, tin("c", IR_DT_F32, shp(3, I(5), I(2), I(3))),
           tin("d", IR_DT_F32, shp(2, I(3), I(4))));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(3, I(5), I(2), I(4)));
    n = mk(IR_OP_MATMUL, 1, 2, tin("e", IR_DT_F32, shp(4, I(2), I(1), I(2), I(3))),
           tin("f", IR_DT_F32, shp(3, I(6), I(3), I(1))));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(4, I(2), I(6), I(2), I(1)));
    n = mk(IR_OP_MATMUL, 1, 2, ir_tensor_find(G, "a"), ir_tensor_find(G, "a"));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(0));
    n = mk(IR_OP_MATMUL, 1, 2, ir_tensor_find(G, "d"), ir_tensor_find(G, "d"));
    infer_fails(n, "inputs 'A' [3,4] and 'B' [3,4] do not multiply: K is 4 vs 3");
}

Test(shape, gemm_transposes_and_bias)
{
    ir_node *n = mk(IR_OP_GEMM, 1, 3, tin("a", IR_DT_F32, shp(2, I(5), I(3))),
                    tin("b", IR_DT_F32, shp(2, I(4), I(3))), tin("c", IR_DT_F32, shp(1, I(4))));
    ir_attr_set_int(G, n, "transB", 1);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(5), I(4)));
    n = mk(IR_OP_GEMM, 1, 3, ir_tensor_find(G, "a"), ir_tensor_find(G, "b"),
           tin("c2", IR_DT_F32, shp(1, I(5))));
    ir_attr_set_int(G, n, "transB", 1);
    infer_fails(n, "input 'C' has shape [5]; it does not broadcast to [M,N] = [5,4]");
}

Test(shape, softmax_argmax_cast)
{
    ir_tensor *x = tin("x", IR_DT_F32, shp(3, I(2), I(3), I(4)));
    ir_node *n = mk(IR_OP_SOFTMAX, 1, 1, x);
    ir_attr_set_int(G, n, "axis", 3);
    infer_fails(n, "attribute 'axis' is 3; expected -3 to 2 for rank 3");
    n = mk(IR_OP_ARGMAX, 1, 1, x);
    ir_attr_set_int(G, n, "axis", -2);
    ir_attr_set_int(G, n, "keepdims", 0);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(2), I(4)));
    cr_assert_eq(n->outputs[0]->dtype, IR_DT_I64);
    n = mk(IR_OP_ARGMAX, 1, 1, x);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(3, I(1), I(3), I(4)));
    n = mk(IR_OP_CAST, 1, 1, ci64(2, I(3), I(-1)));
    ir_attr_set_int(G, n, "to", IR_DT_F32);
    infer_ok(n);
    cr_assert_eq(n->outputs[0]->dtype, IR_DT_F32);
    cr_assert_float_eq(((float *)n->outputs[0]->data)[1], -1.0f, 0);
}

Test(shape, constant_of_shape_bounds)
{
    ir_node *n = mk(IR_OP_CONSTANT_OF_SHAPE, 1, 1, ci64(2, I(2), I(3)));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(2, I(2), I(3)));
    cr_assert_eq(n->outputs[0]->dtype, IR_DT_F32);
    n = mk(IR_OP_CONSTANT_OF_SHAPE, 1, 1, ci64(3, I(65536), I(65536), I(2)));
    infer_fails(n, "would have shape [65536,65536,2], more than 2147483648 elements");
}

Test(shape, unknown_input_shape_reported)
{
    ir_shape s = shp(2, I(-1), I(3));
    ir_node *n;
    s.sym[0] = "batch";
    n = mk(IR_OP_RELU, 1, 1, tin("x", IR_DT_F32, s));
    infer_fails(n, "(Relu): input 'X' (tensor 'x') has shape [batch,3]; every dim must be known");
}

/* --- recurrent layers --------------------------------------------------------------- */

static ir_node *
lstm(ir_tensor *x, ir_tensor *w, ir_tensor *r, ir_tensor *b, int64_t hidden, int dir, int layout)
{
    ir_node *n = ir_node_new(G, IR_OP_LSTM, "lstm", "LSTM", 8, 3);
    int i;
    n->inputs[0] = x, n->inputs[1] = w, n->inputs[2] = r, n->inputs[3] = b;
    for (i = 0; i < 3; i++)
        ir_node_set_output(n, i, ir_tensor_tmp(G, "y", IR_DT_UNDEF, NULL));
    ir_attr_set_int(G, n, "hidden_size", hidden);
    ir_attr_set_int(G, n, "direction", dir);
    ir_attr_set_int(G, n, "layout", layout);
    return n;
}

Test(shape, lstm_bidirectional_layout1)
{
    /* N=3, T=5, I=2, H=4, D=2, layout 1 */
    ir_node *n = lstm(tin("X", IR_DT_F32, shp(3, I(3), I(5), I(2))),
                      tin("W", IR_DT_F32, shp(3, I(2), I(16), I(2))),
                      tin("R", IR_DT_F32, shp(3, I(2), I(16), I(4))),
                      tin("B", IR_DT_F32, shp(2, I(2), I(32))), 4, 2, 1);
    n->inputs[4] = tin("sl", IR_DT_I32, shp(1, I(3)));
    n->inputs[5] = tin("h0", IR_DT_F32, shp(3, I(3), I(2), I(4)));
    n->inputs[6] = tin("c0", IR_DT_F32, shp(3, I(3), I(2), I(4)));
    n->inputs[7] = tin("P", IR_DT_F32, shp(2, I(2), I(12)));
    infer_ok(n);
    expect_shape(n->outputs[0], shp(4, I(3), I(5), I(2), I(4)));
    expect_shape(n->outputs[1], shp(3, I(3), I(2), I(4)));
    expect_shape(n->outputs[2], shp(3, I(3), I(2), I(4)));
    cr_assert_eq(n->outputs[0]->dtype, IR_DT_F32);

    /* the same initial_h in layout-0 form [D,N,H] is wrong for layout 1 */
    n->inputs[5] = tin("h0_l0", IR_DT_F32, shp(3, I(2), I(3), I(4)));
    infer_fails(n, "input 'initial_h' has shape [2,3,4]; hidden_size 4 with 2 directions and "
                   "batch_size 3 (layout 1) needs [3,2,4]");
}

Test(shape, lstm_layout0_and_gru_rnn)
{
    ir_tensor *x = tin("X", IR_DT_F32, shp(3, I(5), I(3), I(2)));
    ir_node *n = lstm(x, tin("W", IR_DT_F32, shp(3, I(1), I(16), I(2))),
                      tin("R", IR_DT_F32, shp(3, I(1), I(16), I(4))), NULL, 4, 1, 0);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(4, I(5), I(1), I(3), I(4)));
    expect_shape(n->outputs[1], shp(3, I(1), I(3), I(4)));

    n = ir_node_new(G, IR_OP_GRU, "gru", "GRU", 6, 2);
    n->inputs[0] = x;
    n->inputs[1] = tin("Wg", IR_DT_F32, shp(3, I(2), I(9), I(2)));
    n->inputs[2] = tin("Rg", IR_DT_F32, shp(3, I(2), I(9), I(3)));
    n->inputs[3] = tin("Bg", IR_DT_F32, shp(2, I(2), I(18)));
    ir_node_set_output(n, 1, ir_tensor_tmp(G, "yh", IR_DT_UNDEF, NULL));
    ir_attr_set_int(G, n, "hidden_size", 3);
    ir_attr_set_int(G, n, "direction", 2);
    infer_ok(n);
    expect_shape(n->outputs[1], shp(3, I(2), I(3), I(3)));

    n = ir_node_new(G, IR_OP_RNN, "rnn", "RNN", 6, 2);
    n->inputs[0] = x;
    n->inputs[1] = tin("Wr", IR_DT_F32, shp(3, I(1), I(6), I(2)));
    n->inputs[2] = tin("Rr", IR_DT_F32, shp(3, I(1), I(6), I(6)));
    ir_node_set_output(n, 0, ir_tensor_tmp(G, "yr", IR_DT_UNDEF, NULL));
    ir_attr_set_int(G, n, "hidden_size", 6);
    infer_ok(n);
    expect_shape(n->outputs[0], shp(4, I(5), I(1), I(3), I(6)));
}

Test(shape, lstm_weight_hidden_size_mismatch)
{
    ir_node *n = lstm(tin("X", IR_DT_F32, shp(3, I(5), I(2), I(3))),
                      tin("W", IR_DT_F32, shp(3, I(1), I(12), I(3))),
                      tin("R", IR_DT_F32, shp(3, I(1), I(16), I(4))), NULL, 4, 0, 0);
    infer_fails(n, "model.onnx: node 'lstm' (LSTM): input 'W' has shape [1,12,3]; hidden_size 4 "
                   "with 1 direction needs [1,16,3]");
}

Test(shape, lstm_sequence_lens_checked)
{
    ir_node *n = lstm(tin("X", IR_DT_F32, shp(3, I(5), I(2), I(3))),
                      tin("W", IR_DT_F32, shp(3, I(1), I(16), I(3))),
                      tin("R", IR_DT_F32, shp(3, I(1), I(16), I(4))), NULL, 4, 0, 0);
    n->inputs[4] = tin("sl", IR_DT_I64, shp(1, I(2)));
    infer_fails(n, "input 'sequence_lens' has dtype i64; expected i32");
    {
        int32_t v[2] = {5, 6};
        ir_shape s = shp(1, I(2));
        n->inputs[4] = ir_const_new(G, "sl32", IR_DT_I32, &s, v);
    }
    infer_fails(n, "input 'sequence_lens' has 6 at index 1; expected 0 to seq_length 5");
}
