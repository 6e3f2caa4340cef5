/*
 * shape_linalg.c — dtype and shape rules of the projections: Gemm (with transA/transB and a
 * broadcast C) and MatMul (numpy batch broadcasting).
 */
#include "diag.h"
#include "ir.h"
#include "shape_impl.h"

/* --- projections -------------------------------------------------------------------- */

int
shape_infer_gemm(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *a = ir_in(n, 0), *b = ir_in(n, 1), *c = ir_in(n, 2);
    int ta = ir_attr_int(n, "transA", 0) != 0, tb = ir_attr_int(n, "transB", 0) != 0;
    int64_t M, K, K2, N;
    ir_shape s, bc;
    (void)g;
    if (shape_need_dtype(n, 0, M_F32, "f32", d) < 0 ||
        shape_need_dtype(n, 1, M_F32, "f32", d) < 0 ||
        shape_need_dtype(n, 2, M_F32, "f32", d) < 0 || shape_need_rank(n, 0, 2, NULL, d) < 0 ||
        shape_need_rank(n, 1, 2, NULL, d) < 0)
        return -1;
    M = a->shape.d[ta ? 1 : 0];
    K = a->shape.d[ta ? 0 : 1];
    K2 = b->shape.d[tb ? 1 : 0];
    N = b->shape.d[tb ? 0 : 1];
    if (K != K2) {
        diag_node(d, n,
                  "inputs 'A' %s (transA %d) and 'B' %s (transB %d) do not multiply: "
                  "K is %lld vs %lld",
                  shape_str(&a->shape), ta, shape_str(&b->shape), tb, (long long)K, (long long)K2);
        return -1;
    }
    s = shape_make(2);
    s.d[0] = M, s.d[1] = N;
    if (c && (c->shape.rank > 2 || shape_broadcast(&c->shape, &s, &bc) < 0 ||
              !shape_same_dims(&bc, &s))) {
        diag_node(d, n, "input 'C' has shape %s; it does not broadcast to [M,N] = %s",
                  shape_str(&c->shape), shape_str(&s));
        return -1;
    }
    return shape_set_out(n, 0, IR_DT_F32, &s, d);
}

int
shape_infer_matmul(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *a = ir_in(n, 0), *b = ir_in(n, 1);
    ir_shape sa = a->shape, sb = b->shape, ba, bb, bo, s;
    int a1 = sa.rank == 1, b1 = sb.rank == 1, i;
    (void)g;
    if (shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0 || shape_same_dtype(n, 0, 1, d) < 0)
        return -1;
    if (sa.rank < 1 || sb.rank < 1) {
        diag_node(d, n, "input '%s' is a scalar; MatMul needs rank >= 1", sa.rank < 1 ? "A" : "B");
        return -1;
    }
    if (a1) { /* [K] → [1,K] */
        sa.rank = 2, sa.d[1] = sa.d[0], sa.d[0] = 1;
    }
    if (b1) { /* [K] → [K,1] */
        sb.rank = 2, sb.d[1] = 1;
    }
    if (sa.d[sa.rank - 1] != sb.d[sb.rank - 2]) {
        diag_node(d, n, "inputs 'A' %s and 'B' %s do not multiply: K is %lld vs %lld",
                  shape_str(&a->shape), shape_str(&b->shape), (long long)sa.d[sa.rank - 1],
                  (long long)sb.d[sb.rank - 2]);
        return -1;
    }
    ba = shape_make(sa.rank - 2);
    bb = shape_make(sb.rank - 2);
    for (i = 0; i < ba.rank; i++)
        ba.d[i] = sa.d[i];
    for (i = 0; i < bb.rank; i++)
        bb.d[i] = sb.d[i];
    if (shape_broadcast(&ba, &bb, &bo) < 0) {
        diag_node(d, n, "inputs 'A' %s and 'B' %s: batch dims do not broadcast",
                  shape_str(&a->shape), shape_str(&b->shape));
        return -1;
    }
    s = bo;
    if (!a1)
        s.d[s.rank++] = sa.d[sa.rank - 2];
    if (!b1)
        s.d[s.rank++] = sb.d[sb.rank - 1];
    return shape_set_out(n, 0, a->dtype, &s, d);
}
