/*
 * fold_bn.c — BatchNormalization folded into the Conv, Gemm or MatMul before it (issue 20).
 *
 * Inference BatchNormalization is a per-channel affine map of its input X [N, C, ...]:
 *   Y = (X - mean) * s + beta,   s = scale / sqrt(var + epsilon)
 * When X is made by a linear op whose output channel is C, the map moves into that op's
 * constants and the BatchNormalization disappears:
 *   Conv      W'[m, ...] = W[m, ...] * s[m]          B'[m] = (B[m] - mean[m]) * s[m] + beta[m]
 *   ConvTranspose  W [C_in, M/group, k...]: input channel c of group g = c / (C_in/group)
 *             feeds output channel m = g * M/group + j through W[c, j, ...], so
 *             W'[c, j, ...] = W[c, j, ...] * s[m]    B' as for Conv
 *   Gemm      Y [M, N], channel n:   the columns of op(B) times s[n] (rows of B with transB),
 *             C'[n] = (beta_g * C[n] - mean[n]) * s[n] + beta[n], beta_g = 1
 *   MatMul    A [M, K] x W [K, N] becomes that Gemm (alpha 1, C' as above)
 * A Conv or ConvTranspose without B gets one (B' above with B = 0).
 * It folds only when everything is known now and nothing else sees the intermediate: the
 * statistics, W and B / C are constants; X has no other reader and is no graph output; the
 * Gemm's C broadcasts along M ([N], [1, N], [1] or absent). Anything else keeps the
 * BatchNormalization kernel (rt_conv.c), which computes the same map. The new constants are
 * computed in double and are new tensors: a W another node reads stays as it was.
 */
#include "arena.h"
#include "ir.h"
#include "passes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A float constant, or NULL. */
static const float *
fconst(const ir_tensor *t)
{
    return t && t->data && t->dtype == IR_DT_F32 ? t->data : NULL;
}

/* The Gemm's C as one value per column n, or -1 when C does not broadcast along M. */
static int
gemm_c_per_col(const ir_tensor *c, int64_t N, int64_t *stride)
{
    int64_t numel;
    if (!c) {
        *stride = 0;
        return 0;
    }
    numel = ir_shape_numel(&c->shape);
    if (numel == 1) {
        *stride = 0;
        return 0;
    }
    if (numel == N && (c->shape.rank == 1 || (c->shape.rank == 2 && c->shape.d[0] == 1))) {
        *stride = 1;
        return 0;
    }
    return -1;
}

static int
fold_one(ir_graph *g, ir_node *bn)
{
    ir_tensor *X = ir_in(bn, 0), *Y = ir_out(bn, 0), *W, *Wn, *Bn;
    const float *sc = fconst(ir_in(bn, 1)), *be = fconst(ir_in(bn, 2));
    const float *mu = fconst(ir_in(bn, 3)), *va = fconst(ir_in(bn, 4)), *w, *b = NULL;
    double eps = ir_attr_float(bn, "epsilon", 1e-5f), *s;
    ir_node *p = X ? X->producer : NULL;
    int64_t C, i, j, per, cstride = 0;
    int k;
    float *wn, *bn_;
    ir_shape bs;

    if (!p || p->dead || !sc || !be || !mu || !va || !Y || X->is_output ||
        ir_n_consumers(g, X) != 1 || X->shape.rank < 2)
        return 0;
    for (k = 1; k < bn->n_outputs; k++)
        if (ir_out(bn, k))
            return 0;
    C = X->shape.d[1];
    if (p->op == IR_OP_CONV || p->op == IR_OP_CONV_TRANSPOSE) {
        W = ir_in(p, 1);
        if (!(w = fconst(W)) || (ir_in(p, 2) && !(b = fconst(ir_in(p, 2)))) || W->shape.rank < 2)
            return 0;
        if (p->op == IR_OP_CONV_TRANSPOSE) {
            int64_t grp = ir_attr_int(p, "group", 1);
            if (grp < 1 || W->shape.d[1] * grp != C || W->shape.d[0] % grp)
                return 0;
        }
    } else if (p->op == IR_OP_GEMM || p->op == IR_OP_MATMUL) {
        W = ir_in(p, 1);
        if (X->shape.rank != 2 || !(w = fconst(W)) || W->shape.rank != 2 ||
            ir_in(p, 0)->shape.rank != 2)
            return 0;
        if (p->op == IR_OP_GEMM && (gemm_c_per_col(ir_in(p, 2), C, &cstride) < 0 ||
                                    (ir_in(p, 2) && !(b = fconst(ir_in(p, 2))))))
            return 0;
    } else {
        return 0;
    }

    s = malloc((size_t)C * sizeof *s);
    if (!s)
        return 0;
    for (i = 0; i < C; i++)
        s[i] = sc[i] / sqrt((double)va[i] + eps);
    Wn = ir_const_new(g, "bn_folded_w", IR_DT_F32, &W->shape, W->data);
    wn = Wn->data;
    bs = W->shape;
    bs.rank = 1;
    bs.d[0] = C;
    memset(bs.sym, 0, sizeof bs.sym);
    Bn = ir_const_new(g, "bn_folded_b", IR_DT_F32, &bs, NULL);
    bn_ = Bn->data;
    if (p->op == IR_OP_CONV) { /* W [M, C/group, k...]: row m times s[m] */
        per = ir_shape_numel(&W->shape) / C;
        for (i = 0; i < C; i++) {
            for (j = 0; j < per; j++)
                wn[i * per + j] = (float)(w[i * per + j] * s[i]);
            bn_[i] = (float)(((b ? b[i] : 0.0) - mu[i]) * s[i] + be[i]);
        }
    } else if (p->op == IR_OP_CONV_TRANSPOSE) { /* W [C_in, M/group, k...] */
        int64_t grp = ir_attr_int(p, "group", 1), cin = W->shape.d[0], mg = W->shape.d[1];
        int64_t ksz = ir_shape_numel(&W->shape) / (cin * mg), c, m;
        for (c = 0; c < cin; c++)
            for (j = 0; j < mg; j++) {
                m = c / (cin / grp) * mg + j;
                for (i = 0; i < ksz; i++) {
                    int64_t at = (c * mg + j) * ksz + i;
                    wn[at] = (float)(w[at] * s[m]);
                }
            }
        for (i = 0; i < C; i++)
            bn_[i] = (float)(((b ? b[i] : 0.0) - mu[i]) * s[i] + be[i]);
    } else {
        int tb = p->op == IR_OP_GEMM && ir_attr_int(p, "transB", 0);
        double beta_g = p->op == IR_OP_GEMM ? ir_attr_float(p, "beta", 1.0f) : 1.0;
        int64_t K = tb ? W->shape.d[1] : W->shape.d[0];
        for (i = 0; i < K; i++)
            for (j = 0; j < C; j++) {
                int64_t at = tb ? j * K + i : i * C + j;
                wn[at] = (float)(w[at] * s[j]);
            }
        for (j = 0; j < C; j++)
            bn_[j] = (float)(((b ? beta_g * b[j * cstride] : 0.0) - mu[j]) * s[j] + be[j]);
    }
    free(s);

    if (p->n_inputs < 3) { /* a MatMul, or a Conv / ConvTranspose without B */
        ir_tensor **in = arena_calloc(g->a, 3, sizeof *in);
        memcpy(in, p->inputs, (size_t)p->n_inputs * sizeof *in);
        p->inputs = in;
        p->n_inputs = 3;
    }
    if (p->op == IR_OP_MATMUL) { /* A x W -> Gemm(A, W', C') in place: the order stays */
        p->op = IR_OP_GEMM;
        ir_attr_set_float(g, p, "alpha", 1.0f);
        ir_attr_set_int(g, p, "transA", 0);
        ir_attr_set_int(g, p, "transB", 0);
    }
    p->inputs[1] = Wn;
    p->inputs[2] = Bn;
    if (p->op == IR_OP_GEMM)
        ir_attr_set_float(g, p, "beta", 1.0f);
    ir_node_set_output(p, 0, Y);
    bn->dead = 1;
    return 1;
}

int
pass_fold_bn(ir_graph *g, const pass_ctx *cx, diag *d)
{
    int i, n = 0;
    (void)cx;
    (void)d;
    for (i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->op == IR_OP_BATCH_NORM)
            n += fold_one(g, g->nodes[i]);
    if (n)
        ir_dce(g);
    return 0;
}
