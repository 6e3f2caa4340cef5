/*
 * batch.c — which axis of a graph input is the batch, from the structure of the graph: the
 * axis that reaches a recurrent layer's batch axis (LSTM, GRU, RNN: axis 1 of X, initial_h
 * and initial_c with layout 0, axis 0 with layout 1; sequence_lens [N]). The axis is followed
 * forward from the input through the ops that move axes predictably (element-wise ops, Transpose,
 * Gather as an embedding, Unsqueeze, Squeeze with axes, MatMul/Gemm on their left operand, Slice,
 * Concat, Softmax, a Reshape that copies the dim (0 in its shape), Flatten at axis 1, Expand;
 * Pad, LayerNorm, ScatterElements, a Reduce, Split or TopK that leaves the axis whole);
 * any other op ends the path. A name ("batch", "N") is never read: an
 * exporter may call the dim anything.
 *
 * The driver binds a symbolic batch dim that no --dim names to 1 (prepare.c, as runtimes
 * do), and lstmc calibrate / lstmc tune read [N, T, C] data as N samples of batch 1
 * (driver_sample_shape).
 */
#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "shape.h"

#include <stdlib.h>
#include <string.h>

#define BATCH_MAX_DEPTH 256

typedef struct trace {
    const ir_graph *g;
    unsigned char *seen; /* [n_tensors * IR_MAX_RANK]: (tensor, axis) already followed */
    const ir_node *rnn;  /* the recurrent layer reached */
} trace;

/* The integer values of constant input i of n (rank 0 or 1), or -1. */
static int
const_ints(const ir_node *n, int i, int64_t *v, int max)
{
    const ir_tensor *t = ir_in(n, i);
    int64_t c, k;
    if (!t || !t->data || (t->dtype != IR_DT_I64 && t->dtype != IR_DT_I32) || t->shape.rank > 1)
        return -1;
    c = ir_shape_numel(&t->shape);
    if (c < 0 || c > max)
        return -1;
    for (k = 0; k < c; k++)
        v[k] =
            t->dtype == IR_DT_I64 ? ((const int64_t *)t->data)[k] : ((const int32_t *)t->data)[k];
    return (int)c;
}

static int follow(trace *tr, const ir_tensor *t, int axis, int rank, int depth);

/* 1 when TopK node n over a rank-`rank` input keeps every entry of its axis `axis`: K is
 * that dim, a constant equal to it or PyTorch's Gather(Shape(X), axis) (the batch sorted by
 * length for pack_padded_sequence(enforce_sorted=False): Gather(Shape(lens), -1)). */
static int
topk_whole_axis(const ir_node *n, int axis, int rank)
{
    const ir_tensor *x = ir_in(n, 0), *k = ir_in(n, 1);
    const ir_node *gn = k ? k->producer : NULL, *sn;
    int64_t v[2];
    if (!x || !k)
        return 0;
    if (k->data)
        return const_ints(n, 1, v, 1) == 1 && x->shape.rank > axis && v[0] == x->shape.d[axis] &&
               v[0] > 0;
    if (!gn || gn->op != IR_OP_GATHER || const_ints(gn, 1, v, 1) != 1 ||
        (v[0] < 0 ? v[0] + rank : v[0]) != axis)
        return 0;
    sn = ir_in(gn, 0) ? ir_in(gn, 0)->producer : NULL;
    return sn && sn->op == IR_OP_SHAPE && ir_in(sn, 0) == x && ir_attr_int(sn, "start", 0) == 0;
}

/* Follow axis `axis` of t (rank `rank`) into consumer n, which reads t as input slot i. */
static int
follow_node(trace *tr, const ir_node *n, int i, int axis, int rank, int depth)
{
    const ir_tensor *out = ir_out(n, 0), *other;
    int64_t v[IR_MAX_RANK + 1];
    int c, k, orank, ax;

    switch (n->op) {
    case IR_OP_LSTM:
    case IR_OP_GRU:
    case IR_OP_RNN:
        /* X [T, N, I] / [N, T, I]; initial_h, initial_c [D, N, H] / [N, D, H] */
        if (((i == 0 || i == 5 || i == 6) && rank == 3 &&
             axis == (ir_attr_int(n, "layout", 0) ? 0 : 1)) ||
            (i == 4 && rank == 1 && axis == 0)) { /* sequence_lens [N] */
            tr->rnn = n;
            return 1;
        }
        return 0;
    default:
        break;
    }
    if (!out)
        return 0;
    switch (ir_op_class_of(n->op)) {
    case IR_CLASS_UNARY:
    case IR_CLASS_NORM:
        return follow(tr, out, axis, rank, depth);
    case IR_CLASS_BINARY: /* numpy broadcasting: the lower rank is aligned on the right */
        other = ir_in(n, 1 - i);
        orank = other && other->shape.rank > rank ? other->shape.rank : rank;
        return follow(tr, out, axis + orank - rank, orank, depth);
    case IR_CLASS_SPATIAL: /* Conv, pools, BatchNormalization: X [N, C, ...] -> Y [N, ...] */
        if (i != 0 || axis != 0)
            return 0;
        return follow(tr, out, 0, rank, depth);
    default:
        break;
    }
    switch (n->op) {
    case IR_OP_TRANSPOSE: {
        const ir_attr *p = ir_attr_get(n, "perm");
        if (!p || p->kind != IR_ATTR_INTS || p->n != rank)
            return 0;
        for (k = 0; k < rank; k++)
            if (p->ints[k] == axis)
                return follow(tr, out, k, rank, depth);
        return 0;
    }
    case IR_OP_GATHER: {
        const ir_tensor *data = ir_in(n, 0), *idx = ir_in(n, 1);
        int dr = data ? data->shape.rank : -1, ir_ = idx ? idx->shape.rank : -1;
        int64_t ga = ir_attr_int(n, "axis", 0);
        if (dr < 1 || ir_ < 0)
            return 0;
        if (ga < 0)
            ga += dr;
        if (ga < 0 || ga >= dr)
            return 0;
        if (i == 1) /* an embedding: the indices' axes replace the data's axis ga */
            return follow(tr, out, (int)ga + axis, dr - 1 + ir_, depth);
        if (axis == ga)
            return 0;
        return follow(tr, out, axis < ga ? axis : axis + ir_ - 1, dr - 1 + ir_, depth);
    }
    case IR_OP_UNSQUEEZE:
        if (i != 0 || (c = const_ints(n, 1, v, IR_MAX_RANK)) < 0)
            return 0;
        orank = rank + c;
        for (k = 0; k < c; k++)
            if (v[k] < 0)
                v[k] += orank;
        for (ax = 0, k = 0; ax < orank; ax++) { /* the axis-th kept position */
            int m, ins = 0;
            for (m = 0; m < c; m++)
                ins |= v[m] == ax;
            if (ins)
                continue;
            if (k++ == axis)
                return follow(tr, out, ax, orank, depth);
        }
        return 0;
    case IR_OP_SQUEEZE:
        if (i != 0 || (c = const_ints(n, 1, v, IR_MAX_RANK)) < 1)
            return 0;
        for (ax = axis, k = 0; k < c; k++) {
            int64_t a = v[k] < 0 ? v[k] + rank : v[k];
            if (a == axis)
                return 0;
            if (a < axis)
                ax--;
        }
        return follow(tr, out, ax, rank - c, depth);
    case IR_OP_MATMUL:
        other = ir_in(n, 1);
        if (i != 0 || rank < 2 || axis >= rank - 1 || !other || other->shape.rank < 1)
            return 0;
        orank = other->shape.rank > rank ? other->shape.rank : rank;
        return follow(tr, out, axis + orank - rank, orank, depth);
    case IR_OP_GEMM:
        if (i != 0 || rank != 2 || axis != (ir_attr_int(n, "transA", 0) ? 1 : 0))
            return 0;
        return follow(tr, out, 0, 2, depth);
    case IR_OP_RESHAPE: /* a 0 in the new shape copies that dim (allowzero 0) */
        if (i != 0 || ir_attr_int(n, "allowzero", 0) ||
            (c = const_ints(n, 1, v, IR_MAX_RANK)) <= axis || v[axis] != 0)
            return 0;
        return follow(tr, out, axis, c, depth);
    case IR_OP_FLATTEN: /* [d0 .. d(a-1), rest]: axis 0 stays alone only when a == 1 */
        if (axis != 0 || ir_attr_int(n, "axis", 1) != 1)
            return 0;
        return follow(tr, out, 0, 2, depth);
    case IR_OP_EXPAND: /* broadcast to the shape: aligned on the right */
        if (i != 0 || (c = const_ints(n, 1, v, IR_MAX_RANK)) < 0)
            return 0;
        orank = c > rank ? c : rank;
        return follow(tr, out, axis + orank - rank, orank, depth);
    case IR_OP_SLICE:
    case IR_OP_CONCAT:
        if (n->op == IR_OP_SLICE && i != 0)
            return 0;
        return follow(tr, out, axis, rank, depth);
    /* issue 20, red: Pad and ScatterElements keep their data's axes; a Reduce keeps an axis
     * it does not reduce; Split one it does not split; TopK an axis it only sorts (K = the
     * whole axis, as PyTorch's unsorted packed sequences sort the batch by length) */
    case IR_OP_PAD:
    case IR_OP_SCATTER_ELEMENTS:
        return i == 0 ? follow(tr, out, axis, rank, depth) : 0;
    case IR_OP_REDUCE_MEAN:
    case IR_OP_REDUCE_SUM:
    case IR_OP_REDUCE_MAX:
    case IR_OP_REDUCE_MIN:
    case IR_OP_REDUCE_L2:
    case IR_OP_REDUCE_SUM_SQUARE:
    case IR_OP_REDUCE_L1:
    case IR_OP_REDUCE_PROD:
    case IR_OP_REDUCE_LOG_SUM:
    case IR_OP_REDUCE_LOG_SUM_EXP: {
        int before = 0, hit;
        if (i != 0)
            return 0;
        c = ir_in(n, 1) ? const_ints(n, 1, v, IR_MAX_RANK) : 0;
        if (c < 0)
            return 0;
        hit = c == 0 && !ir_attr_int(n, "noop_with_empty_axes", 0);
        for (k = 0; k < c; k++) {
            int64_t a = v[k] < 0 ? v[k] + rank : v[k];
            hit |= a == axis;
            before += a < axis;
        }
        if (hit)
            return 0;
        return ir_attr_int(n, "keepdims", 1) ? follow(tr, out, axis, rank, depth)
                                             : follow(tr, out, axis - before, rank - c, depth);
    }
    case IR_OP_SPLIT: {
        int64_t sa = ir_attr_int(n, "axis", 0), found = 0;
        if (i != 0 || (sa < 0 ? sa + rank : sa) == axis)
            return 0;
        for (k = 0; k < n->n_outputs; k++)
            if (ir_out(n, k))
                found |= follow(tr, ir_out(n, k), axis, rank, depth);
        return (int)found;
    }
    case IR_OP_TOPK: {
        int64_t ta = ir_attr_int(n, "axis", -1);
        if (i != 0)
            return 0;
        if ((ta < 0 ? ta + rank : ta) == axis && !topk_whole_axis(n, axis, rank))
            return 0;
        return (out && follow(tr, out, axis, rank, depth)) |
               (ir_out(n, 1) && follow(tr, ir_out(n, 1), axis, rank, depth));
    }
    default:
        return 0;
    }
}

static int
follow(trace *tr, const ir_tensor *t, int axis, int rank, int depth)
{
    const ir_graph *g = tr->g;
    int i, j;
    if (axis < 0 || axis >= rank || rank > IR_MAX_RANK || depth > BATCH_MAX_DEPTH)
        return 0;
    if (tr->seen[(size_t)t->id * IR_MAX_RANK + (size_t)axis])
        return 0;
    tr->seen[(size_t)t->id * IR_MAX_RANK + (size_t)axis] = 1;
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (j = 0; j < n->n_inputs; j++)
            if (n->inputs[j] == t && follow_node(tr, n, j, axis, rank, depth + 1))
                return 1;
    }
    return 0;
}

int
driver_batch_axis(const ir_graph *g, const ir_tensor *in, const ir_node **rnn)
{
    trace tr;
    int k, found = -1;
    if (rnn)
        *rnn = NULL;
    if (in->shape.rank < 1 || in->shape.rank > IR_MAX_RANK)
        return -1;
    tr.g = g;
    tr.rnn = NULL;
    tr.seen = calloc((size_t)g->n_tensors * IR_MAX_RANK, 1);
    if (!tr.seen)
        return -1;
    for (k = 0; k < in->shape.rank && found < 0; k++) {
        memset(tr.seen, 0, (size_t)g->n_tensors * IR_MAX_RANK);
        if (follow(&tr, in, k, in->shape.rank, 0))
            found = k;
    }
    free(tr.seen);
    if (rnn)
        *rnn = tr.rnn;
    return found;
}

int
driver_bind_samples(const ir_graph *g, driver_options *o, const lstmc_npy_info *info,
                    const char *path, diag *d)
{
    driver_binding *b;
    if (o->n_shapes >= DRIVER_MAX_BINDINGS) {
        diag_error(d, "too many bindings");
        return -1;
    }
    b = &o->shapes[o->n_shapes++];
    memset(b, 0, sizeof *b);
    b->name = g->inputs[0]->name;
    b->what = path;
    b->dtype = info->dtype;
    return driver_sample_shape(g, g->inputs[0], info->dims + 1, (int)info->rank - 1, path,
                               &b->shape, d);
}

int
driver_sample_shape(const ir_graph *g, const ir_tensor *in, const int64_t *dims, int rank,
                    const char *what, ir_shape *s, diag *d)
{
    char want[256];
    int k, ax;
    memset(s, 0, sizeof *s);
    shape_fmt(&in->shape, want, sizeof want);
    if (in->shape.rank < 0 || rank == in->shape.rank) { /* [K, <the input's shape>] */
        s->rank = rank;
        for (k = 0; k < rank; k++)
            s->d[k] = dims[k];
        return 0;
    }
    if (rank + 1 != in->shape.rank) {
        diag_error(d,
                   "%s: %d dims per sample, the model's input '%s' is %s (%d dims): give the "
                   "samples as [K, <input shape>] or, without the batch axis, [K, %d dims]",
                   what, rank, in->name, want, in->shape.rank, in->shape.rank - 1);
        return -1;
    }
    ax = driver_batch_axis(g, in, NULL);
    if (ax < 0) {
        diag_error(d,
                   "%s: %d dims per sample, the model's input '%s' is %s, and no axis of it "
                   "reaches a recurrent layer's batch axis: give the samples as "
                   "[K, <input shape>]",
                   what, rank, in->name, want);
        return -1;
    }
    if (in->shape.d[ax] > 1) {
        diag_error(d,
                   "%s: %d dims per sample, and the model's input '%s' is %s with its batch "
                   "(dim %d) fixed at %lld: give the samples as [K, <input shape>]",
                   what, rank, in->name, want, ax, (long long)in->shape.d[ax]);
        return -1;
    }
    /* a sample without the batch axis is a sample of batch 1: the same bytes */
    s->rank = rank + 1;
    for (k = 0; k < s->rank; k++)
        s->d[k] = k < ax ? dims[k] : k == ax ? 1 : dims[k - 1];
    return 0;
}
