/*
 * fold_constants.c — everything that depends only on the weights, computed once here
 * instead of at every run:
 *
 *   - summed biases: Wb + Rb per gate (the GRU's Rbh under linear_before_reset stays apart:
 *     it is multiplied by r inside the loop) for lstmc.RnnProj;
 *   - packing: W [D, G*H, I] -> [D, I, G*H] and U [D, G*H, H] -> [D, H, G*H], so the
 *     projection and the recurrent product stream each row of G1 / G2 once, contiguously,
 *     accumulating all G*H gate pre-activations together;
 *   - the row sums D = sum_k |U[g][k]| per gate row that breakpoint search reads
 *     (MICRO'18 §IV-B, Algorithm 2 line 2), kept on the node as attribute "row_abs_sum"
 *     [D, G*H] for the passes that use it.
 * Gates stay in ONNX order (LSTM i o f c, GRU z r h): the kernels read that order.
 * Weights that are not constants (a graph input) are left unpacked; the kernels read both.
 */
#include <math.h>
#include <string.h>

#include "ir.h"
#include "passes.h"

static int
gates_of(int64_t cell)
{
    return cell == 0 ? 4 : cell == 1 ? 3 : 1;
}

/* [D, rows, cols] -> [D, cols, rows]: made once for every program of the import (the
 * whole-sequence and step programs pack the same weights, ir_data_derived). */
static ir_tensor *
transpose_dirs(ir_graph *g, const ir_tensor *w, const char *hint)
{
    int64_t D = w->shape.d[0], R = w->shape.d[1], C = w->shape.d[2], d, r, c;
    const int64_t dims[3] = {D, R, C};
    const uint64_t key = ir_data_key("fold_constants.transpose_dirs", dims, 3);
    ir_shape s = w->shape;
    const float *src = w->data;
    float *dst;
    s.d[1] = C;
    s.d[2] = R;
    s.sym[1] = s.sym[2] = NULL;
    if ((dst = ir_data_derived(g, src, key)))
        return ir_const_wrap(g, hint, IR_DT_F32, &s, dst);
    dst = ir_data_alloc(g, (size_t)(D * R * C) * sizeof(float));
    for (d = 0; d < D; d++)
        for (r = 0; r < R; r++)
            for (c = 0; c < C; c++)
                dst[(d * C + c) * R + r] = src[(d * R + r) * C + c];
    ir_data_derive(g, src, key, dst);
    return ir_const_wrap(g, hint, IR_DT_F32, &s, dst);
}

static void
fold_proj(ir_graph *g, ir_node *n)
{
    ir_tensor *W = ir_in(n, 1), *B = ir_in(n, 2);
    int64_t cell = ir_attr_int(n, "cell", 0), H = ir_attr_int(n, "hidden_size", 0);
    int64_t GH = gates_of(cell) * H, D = W->shape.d[0], d, k;
    int lbr = (int)ir_attr_int(n, "linear_before_reset", 0);

    if (!W->data || (B && !B->data))
        return;
    n->inputs[1] = transpose_dirs(g, W, "G1_packed");
    if (B) {
        ir_shape s = {0};
        ir_tensor *bias;
        float *b;
        const float *src = B->data;
        s.rank = 2;
        s.d[0] = D;
        s.d[1] = GH;
        bias = ir_const_new(g, "bias_summed", IR_DT_F32, &s, NULL);
        b = bias->data;
        for (d = 0; d < D; d++)
            for (k = 0; k < GH; k++) {
                const float *Bd = src + d * 2 * GH;
                b[d * GH + k] = (cell == 1 && lbr && k >= 2 * H) ? Bd[k] : Bd[k] + Bd[GH + k];
            }
        n->inputs[2] = bias;
    }
    ir_attr_set_int(g, n, "packed", 1);
}

static void
fold_rec(ir_graph *g, ir_node *n)
{
    ir_tensor *R = ir_in(n, 1), *B = ir_in(n, 2);
    int64_t cell = ir_attr_int(n, "cell", 0), H = ir_attr_int(n, "hidden_size", 0);
    int64_t GH = gates_of(cell) * H, D = R->shape.d[0], d, r, k;
    ir_shape s = {0};
    ir_tensor *sums;
    ir_attr *at;
    const float *src = R->data;
    float *out;

    if (!R->data || (B && !B->data))
        return;
    /* D = sum |U| per gate row, for breakpoint search */
    s.rank = 2;
    s.d[0] = D;
    s.d[1] = GH;
    sums = ir_const_new(g, "row_abs_sum", IR_DT_F32, &s, NULL);
    out = sums->data;
    for (d = 0; d < D; d++)
        for (r = 0; r < GH; r++) {
            float acc = 0.0f;
            for (k = 0; k < H; k++)
                acc += fabsf(src[(d * GH + r) * H + k]);
            out[d * GH + r] = acc;
        }
    at = ir_attr_add(g, n, "row_abs_sum", IR_ATTR_TENSOR);
    at->t = sums;

    n->inputs[1] = transpose_dirs(g, R, "G2_packed");
    if (B) { /* GRU linear_before_reset: keep Rbh [D, H] only */
        s.d[1] = H;
        ir_tensor *rb = ir_const_new(g, "Rbh", IR_DT_F32, &s, NULL);
        for (d = 0; d < D; d++)
            memcpy((float *)rb->data + d * H, (const float *)B->data + d * 2 * GH + GH + 2 * H,
                   (size_t)H * sizeof(float));
        n->inputs[2] = rb;
    }
    ir_attr_set_int(g, n, "packed", 1);
}

int
pass_fold_constants(ir_graph *g, const pass_ctx *cx, diag *d)
{
    int i;
    (void)cx;
    (void)d;
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        if (n->dead || ir_attr_int(n, "packed", 1))
            continue;
        if (n->op == IR_OP_RNN_PROJ)
            fold_proj(g, n);
        else if (n->op == IR_OP_RNN_REC)
            fold_rec(g, n);
    }
    return 0;
}
