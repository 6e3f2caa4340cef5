/*
 * test_kprog.c — lowering nodes to kernel calls (hand-worked params), running them, and
 * the memory plan over a small program.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"

static arena *a;
static diag *d;
static ir_graph *g;

static void
setup(void)
{
    a = arena_new(0);
    d = diag_new(a, "m.onnx", NULL);
    g = ir_graph_new(a, "main", "m.onnx");
}

static void
teardown(void)
{
    arena_free(a);
}

TestSuite(kprog, .init = setup, .fini = teardown);

static ir_shape
shp(int rank, const int64_t *dims)
{
    ir_shape s = {0};
    int i;
    s.rank = rank;
    for (i = 0; i < rank; i++)
        s.d[i] = dims[i];
    return s;
}

static ir_tensor *
i64_const(const int64_t *v, int n)
{
    int64_t dn = n;
    ir_shape s = shp(1, &dn);
    return ir_const_new(g, "c", IR_DT_I64, &s, v);
}

/* X[5,4] sliced along axis 0 from -1 with step -2: rows 4, 2, 0. */
Test(kprog, slice_negative_step)
{
    int64_t xd[2] = {5, 4}, yd[2] = {3, 4};
    int64_t starts = -1, ends = -6, axes = 0, steps = -2;
    ir_shape xs = shp(2, xd), ys = shp(2, yd);
    ir_tensor *x = ir_tensor_new(g, "x", IR_DT_F32, &xs);
    ir_tensor *y = ir_tensor_new(g, "y", IR_DT_F32, &ys);
    ir_node *n = ir_node_new(g, IR_OP_SLICE, "s", "Slice", 5, 1);
    kprog kp = {0};
    float xv[20], yv[12];
    const void *in[KP_MAX_ARGS] = {0};
    void *out[KP_MAX_ARGS] = {0};
    int i, j;
    n->inputs[0] = x;
    n->inputs[1] = i64_const(&starts, 1);
    n->inputs[2] = i64_const(&ends, 1);
    n->inputs[3] = i64_const(&axes, 1);
    n->inputs[4] = i64_const(&steps, 1);
    ir_node_set_output(n, 0, y);
    cr_assert_eq(kp_lower_node(a, &kp, n, d), 0);
    cr_assert_eq(kp.n_calls, 1);
    cr_assert_eq(kp.calls[0].kind, KP_STRIDED);
    cr_assert_eq(kp.calls[0].p.strided.offset, 16);
    cr_assert_eq(kp.calls[0].p.strided.in_stride[0], -8);
    cr_assert_eq(kp.calls[0].p.strided.in_stride[1], 1);
    for (i = 0; i < 20; i++)
        xv[i] = (float)i;
    in[0] = xv;
    out[0] = yv;
    cr_assert_eq(kp_exec(&kp.calls[0], in, out, NULL), LSTMC_RT_OK);
    for (i = 0; i < 3; i++)
        for (j = 0; j < 4; j++)
            cr_assert_float_eq(yv[i * 4 + j], (float)((4 - 2 * i) * 4 + j), 0);
}

/* Tile of a rank-8 X by r: lowered, run, and checked against y[j] = x[j mod d] (axis by
 * axis); want_dims: the strided copy's dims after merging. */
static void
tile_rank8(const int64_t *xd, const int64_t *rep, int want_dims)
{
    int64_t yd[8], xn = 1, yn = 1, k, j[8];
    ir_shape xs, ys;
    ir_tensor *x, *y;
    ir_node *n = ir_node_new(g, IR_OP_TILE, "t", "Tile", 2, 1);
    kprog kp = {0};
    const void *in[KP_MAX_ARGS] = {0};
    void *out[KP_MAX_ARGS] = {0};
    float *xv, *yv;
    int i;
    for (i = 0; i < 8; i++) {
        yd[i] = xd[i] * rep[i];
        xn *= xd[i];
        yn *= yd[i];
    }
    xs = shp(8, xd);
    ys = shp(8, yd);
    x = ir_tensor_new(g, "x", IR_DT_F32, &xs);
    y = ir_tensor_new(g, "y", IR_DT_F32, &ys);
    n->inputs[0] = x;
    n->inputs[1] = i64_const(rep, 8);
    ir_node_set_output(n, 0, y);
    cr_assert_eq(kp_lower_node(a, &kp, n, d), 0, "%s", diag_text(d));
    cr_assert_eq(kp.n_calls, 1);
    cr_assert_eq(kp.calls[0].kind, KP_STRIDED);
    cr_assert_eq(kp.calls[0].p.strided.rank, want_dims);
    xv = arena_alloc(a, (size_t)xn * sizeof *xv);
    yv = arena_alloc(a, (size_t)yn * sizeof *yv);
    for (k = 0; k < xn; k++)
        xv[k] = (float)k;
    in[0] = xv;
    out[0] = yv;
    cr_assert_eq(kp_exec(&kp.calls[0], in, out, NULL), LSTMC_RT_OK);
    for (k = 0; k < yn; k++) {
        int64_t rest = k, src = 0;
        for (i = 7; i >= 0; i--) { /* k's index along each output axis */
            j[i] = rest % yd[i];
            rest /= yd[i];
        }
        for (i = 0; i < 8; i++)
            src = src * xd[i] + j[i] % xd[i];
        if (yv[k] != (float)src)
            cr_assert_fail("y[%lld] = %g, want x[%lld]", (long long)k, yv[k], (long long)src);
    }
}

/* Tile of rank 8 with every axis repeated: 16 strided dims (refused while the copy had 8). */
Test(kprog, tile_rank8_every_axis)
{
    static const int64_t xd[8] = {2, 3, 2, 2, 3, 2, 2, 3}, r[8] = {2, 2, 3, 2, 2, 2, 2, 2};
    tile_rank8(xd, r, 16);
}

/* Repeats on every other axis and the last: the axes between merge, 10 dims. */
Test(kprog, tile_rank8_alternate_axes)
{
    static const int64_t xd[8] = {2, 2, 2, 2, 2, 2, 2, 2}, r[8] = {2, 1, 2, 1, 2, 1, 2, 3};
    tile_rank8(xd, r, 10);
}

/* Opset-11 Softmax on [2,3,4] with axis 1 flattens to [2,12]; opset 13 uses the axis. */
Test(kprog, softmax_legacy_vs_axis)
{
    int64_t dims[3] = {2, 3, 4};
    ir_shape s = shp(3, dims);
    ir_tensor *x = ir_tensor_new(g, "x", IR_DT_F32, &s);
    ir_tensor *y1 = ir_tensor_new(g, "y1", IR_DT_F32, &s);
    ir_tensor *y2 = ir_tensor_new(g, "y2", IR_DT_F32, &s);
    ir_node *n1 = ir_node_new(g, IR_OP_SOFTMAX, "legacy", "Softmax", 1, 1);
    ir_node *n2 = ir_node_new(g, IR_OP_LOG_SOFTMAX, "new", "LogSoftmax", 1, 1);
    kprog kp = {0};
    n1->inputs[0] = x;
    ir_node_set_output(n1, 0, y1);
    ir_attr_set_int(g, n1, "legacy", 1);
    ir_attr_set_int(g, n1, "axis", 1);
    n2->inputs[0] = x;
    ir_node_set_output(n2, 0, y2);
    ir_attr_set_int(g, n2, "axis", 1);
    cr_assert_eq(kp_lower_node(a, &kp, n1, d), 0);
    cr_assert_eq(kp_lower_node(a, &kp, n2, d), 0);
    cr_assert_eq(kp.calls[0].p.softmax.outer, 2);
    cr_assert_eq(kp.calls[0].p.softmax.axis_len, 12);
    cr_assert_eq(kp.calls[0].p.softmax.inner, 1);
    cr_assert_eq(kp.calls[1].p.softmax.outer, 2);
    cr_assert_eq(kp.calls[1].p.softmax.axis_len, 3);
    cr_assert_eq(kp.calls[1].p.softmax.inner, 4);
    cr_assert_eq(kp.calls[1].p.softmax.log_softmax, 1);
}

/* [2,1,3] + [4,1] broadcast to [2,4,3]: strides 0 on the broadcast dims. */
Test(kprog, add_broadcast_strides)
{
    int64_t ad[3] = {2, 1, 3}, bd[2] = {4, 1}, yd[3] = {2, 4, 3};
    ir_shape as = shp(3, ad), bs = shp(2, bd), ys = shp(3, yd);
    ir_tensor *ta = ir_tensor_new(g, "a", IR_DT_F32, &as);
    ir_tensor *tb = ir_tensor_new(g, "b", IR_DT_F32, &bs);
    ir_tensor *ty = ir_tensor_new(g, "y", IR_DT_F32, &ys);
    ir_node *n = ir_node_new(g, IR_OP_ADD, "add", "Add", 2, 1);
    kprog kp = {0};
    const lstmc_rt_binary_params *p;
    n->inputs[0] = ta;
    n->inputs[1] = tb;
    ir_node_set_output(n, 0, ty);
    cr_assert_eq(kp_lower_node(a, &kp, n, d), 0);
    p = &kp.calls[0].p.binary;
    cr_assert_eq(p->rank, 3);
    cr_assert_eq(p->a_stride[0], 3);
    cr_assert_eq(p->a_stride[1], 0);
    cr_assert_eq(p->a_stride[2], 1);
    cr_assert_eq(p->b_stride[0], 0);
    cr_assert_eq(p->b_stride[1], 1);
    cr_assert_eq(p->b_stride[2], 0);
}

/* Batched MatMul [3,2,4] x [4,5]: B is shared across the batch (stride 0). */
Test(kprog, matmul_batch_broadcast)
{
    int64_t ad[3] = {3, 2, 4}, bd[2] = {4, 5}, yd[3] = {3, 2, 5};
    ir_shape as = shp(3, ad), bs = shp(2, bd), ys = shp(3, yd);
    ir_tensor *ta = ir_tensor_new(g, "a", IR_DT_F32, &as);
    ir_tensor *tb = ir_tensor_new(g, "b", IR_DT_F32, &bs);
    ir_tensor *ty = ir_tensor_new(g, "y", IR_DT_F32, &ys);
    ir_node *n = ir_node_new(g, IR_OP_MATMUL, "mm", "MatMul", 2, 1);
    kprog kp = {0};
    const lstmc_rt_matmul_params *p;
    n->inputs[0] = ta;
    n->inputs[1] = tb;
    ir_node_set_output(n, 0, ty);
    cr_assert_eq(kp_lower_node(a, &kp, n, d), 0);
    p = &kp.calls[0].p.matmul;
    cr_assert_eq(p->n_batch, 1);
    cr_assert_eq(p->batch[0], 3);
    cr_assert_eq(p->a_stride[0], 8);
    cr_assert_eq(p->b_stride[0], 0);
    cr_assert_eq(p->m, 2);
    cr_assert_eq(p->k, 4);
    cr_assert_eq(p->n, 5);
}

/* A chain x -> t1 -> t2 -> t3 -> y of 4 KiB copies: t1 and t3 may share bytes, t2 must not
 * overlap t1 or t3, and the arena is smaller than the sum. */
Test(kprog, memplan_reuses_dead_buffers)
{
    int64_t dims[1] = {1024};
    ir_shape s = shp(1, dims);
    ir_tensor *t[5];
    kprog kp = {0};
    memplan mp;
    int i;
    for (i = 0; i < 5; i++) {
        char name[8];
        snprintf(name, sizeof name, "t%d", i);
        t[i] = ir_tensor_new(g, name, IR_DT_F32, &s);
    }
    ir_graph_add_input(g, t[0]);
    for (i = 0; i < 4; i++) {
        ir_node *n = ir_node_new(g, IR_OP_IDENTITY, NULL, "Identity", 1, 1);
        n->inputs[0] = t[i];
        ir_node_set_output(n, 0, t[i + 1]);
    }
    ir_graph_add_output(g, t[4]);
    cr_assert_eq(kp_lower_graph(a, g, &kp, d), 0);
    cr_assert_eq(memplan_run(a, g, &kp, &mp, d), 0);
    cr_assert_eq(mp.tensor[t[0]->id].kind, MEMPLAN_INPUT);
    cr_assert_eq(mp.tensor[t[4]->id].kind, MEMPLAN_OUTPUT);
    for (i = 1; i < 4; i++)
        cr_assert_eq(mp.tensor[t[i]->id].kind, MEMPLAN_ARENA);
    cr_assert_neq(mp.tensor[t[1]->id].offset, mp.tensor[t[2]->id].offset);
    cr_assert_neq(mp.tensor[t[2]->id].offset, mp.tensor[t[3]->id].offset);
    cr_assert_eq(mp.tensor[t[1]->id].offset, mp.tensor[t[3]->id].offset);
    cr_assert_eq(mp.arena_size, 2 * 4096);
    cr_assert_eq(mp.naive_size, 3 * 4096);
}

/* An output that is also an input gets its own copy. */
Test(kprog, output_aliasing_input_is_copied)
{
    int64_t dims[1] = {3};
    ir_shape s = shp(1, dims);
    ir_tensor *x = ir_tensor_new(g, "x", IR_DT_F32, &s);
    kprog kp = {0};
    ir_graph_add_input(g, x);
    ir_graph_add_output(g, x);
    cr_assert_eq(kp_lower_graph(a, g, &kp, d), 0);
    cr_assert_eq(kp.n_calls, 1);
    cr_assert_eq(kp.calls[0].kind, KP_COPY);
    cr_assert_eq(kp.calls[0].in[0], x);
    cr_assert_neq(kp.outputs[0], x);
}
