/*
 * analyze.c — which models stream (issue 9; contract in stream.h). The step program that
 * streams them is step.c's transform of the imported graph.
 *
 * The analysis gives every tensor a class: constant, static (graph inputs without a time
 * axis), per time step along an axis, or "last" (the state after the last step fed). The
 * time axis of each graph input is not declared anywhere, so every assignment of an input
 * axis whose size is T (or none) is tried, in order, until one explains every recurrent
 * layer's X. When none does, the reason is that of the attempt that got furthest through
 * the graph: an input whose batch or feature size equals T must not put the blame on an
 * axis that was only guessed.
 */
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "shape.h"
#include "stream.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* STREAM_TIME: the time axis, which may hold other entries merged with the steps (a
 * reshape(-1, H) of [T, N, H] or of [N, T, H]): its extent is om * T * im, step t being the
 * entries [o, t, i] of that [om, T, im] view. 0 reads as 1. */
typedef struct tclass {
    stream_kind k;
    int axis; /* STREAM_TIME only */
    int64_t om, im;
    /* STREAM_TIME: steps of padding before the first step fed (a Pad's output that a Conv
     * reads: its history), and that Pad and its value */
    int64_t lead;
    const ir_node *padn;
    float padv;
    /* STREAM_TIME: steps after the last step fed that look ahead (a Conv padded at the end
     * of time, PyTorch's Conv1d(padding=K-1)), and that Conv: a Slice that drops them (a
     * TCN's "chomp") makes the rest causal */
    int64_t tail;
    const ir_node *tailn;
} tclass;

#define MERGED(c) ((c).om > 1 || (c).im > 1)

typedef struct actx {
    const ir_graph *g;
    stream_info *si;
    tclass *cls; /* by tensor id */
    int bad;
    int reached; /* the node the attempt failed at (n_nodes: after the last) */
    char why[512];
    diag *quiet; /* shape_conv_geom_of's reports (the compile has made them already) */
} actx;

static void
fail(actx *x, const ir_node *n, const char *fmt, ...)
{
    va_list ap;
    size_t k = 0;
    char label[480];
    if (x->bad++)
        return; /* keep the first reason */
    if (n)
        k = (size_t)snprintf(x->why, sizeof x->why, "%s ", ir_node_label(n, label, sizeof label));
    if (k >= sizeof x->why)
        return;
    va_start(ap, fmt);
    vsnprintf(x->why + k, sizeof x->why - k, fmt, ap);
    va_end(ap);
}

/* Integer values of a constant tensor (i64 or i32); count, or -1 when not constant. */
static int
const_ints(const ir_tensor *t, int64_t *v, int max)
{
    int64_t n, i;
    if (!t || !t->data || (t->dtype != IR_DT_I64 && t->dtype != IR_DT_I32))
        return -1;
    n = ir_shape_numel(&t->shape);
    if (n < 0 || n > max)
        return -1;
    for (i = 0; i < n; i++)
        v[i] =
            t->dtype == IR_DT_I64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
    return (int)n;
}

static int
norm_axis(int64_t a, int r)
{
    return (int)(a < 0 ? a + r : a);
}

static tclass
cls_of(const actx *x, const ir_tensor *t)
{
    tclass c = {STREAM_CONST, -1, 0, 0, 0, NULL, 0.0f, 0, NULL};
    if (t && !t->data)
        c = x->cls[t->id];
    return c;
}

static void
set_out(actx *x, const ir_node *n, int i, tclass c)
{
    if (ir_out(n, i))
        x->cls[n->outputs[i]->id] = c;
}

/* The refusal of a value t that is not fed per step but has an axis (ta) that broadcasting
 * lines up with the time axis: a constant (a positional table) or a static input indexed by
 * time step. */
static void
indexed_by_time(actx *x, const ir_node *n, const ir_tensor *t, int ta)
{
    fail(x, n,
         "reads '%s', a %s with %lld entries along the time axis (its axis %d), which "
         "a stream does not feed step by step",
         t->name, t->data ? "constant" : "value that is not per step", (long long)t->shape.d[ta],
         ta);
}

/*
 * Element-wise combination with numpy broadcasting into rank r: per step if any input is
 * per step (all on the same output axis, every other input of size 1 along it), else last
 * if any is last, else static or constant.
 */
static tclass
combine(actx *x, const ir_node *n, int first, int count, int r)
{
    tclass o = {STREAM_CONST, -1, 0, 0, 0, NULL, 0.0f, 0, NULL};
    int i, has_last = 0, has_static = 0;
    for (i = first; i < first + count && i < n->n_inputs; i++) {
        const ir_tensor *t = n->inputs[i];
        tclass c = cls_of(x, t);
        if (!t)
            continue;
        if (c.k == STREAM_BAD)
            return c;
        if (c.k == STREAM_TIME) {
            int oa = c.axis + (r - t->shape.rank);
            if (o.k == STREAM_TIME && (o.axis != oa || o.om != c.om || o.im != c.im)) {
                fail(x, n, "combines values whose time axes differ");
                o.k = STREAM_BAD;
                return o;
            }
            o = c;
            o.axis = oa;
        }
        has_last |= c.k == STREAM_LAST;
        has_static |= c.k == STREAM_STATIC;
    }
    if (o.k == STREAM_TIME) {
        if (has_last) {
            fail(x, n, "combines per-step values with the final state");
            o.k = STREAM_BAD;
            return o;
        }
        for (i = first; i < first + count && i < n->n_inputs; i++) {
            const ir_tensor *t = n->inputs[i];
            int ta;
            if (!t || cls_of(x, t).k == STREAM_TIME)
                continue;
            ta = o.axis - (r - t->shape.rank);
            if (ta >= 0 && t->shape.d[ta] != 1) {
                indexed_by_time(x, n, t, ta);
                o.k = STREAM_BAD;
                return o;
            }
        }
        return o;
    }
    o.k = has_last ? STREAM_LAST : has_static ? STREAM_STATIC : STREAM_CONST;
    return o;
}

/* A reshape-like op (Reshape, Flatten) keeps the time axis when the elements before the
 * steps and those after them stay apart: with the input [B, T, A] around the time axis (B
 * and A: element counts, merged entries included), out's time axis is the first axis i whose
 * dims before multiply to a divisor P of B and after to a divisor S of A, and whose extent is
 * (B / P) * T * (A / S). reshape(-1, H) of [T, N, H] gives [T*N, H], of [N, T, H] [N*T, H]. */
static tclass
reshape_axis(actx *x, const ir_node *n, tclass c)
{
    const ir_shape *in = &n->inputs[0]->shape, *out = &ir_out(n, 0)->shape;
    int64_t om = c.om > 1 ? c.om : 1, im = c.im > 1 ? c.im : 1, before = om, after = im;
    int64_t T, P = 1, S, total = 1;
    int i;
    if (c.k != STREAM_TIME)
        return c;
    T = in->d[c.axis] / (om * im);
    for (i = 0; i < in->rank; i++) {
        if (i < c.axis)
            before *= in->d[i];
        else if (i > c.axis)
            after *= in->d[i];
    }
    for (i = 0; i < out->rank; i++)
        total *= out->d[i];
    for (i = 0; i < out->rank && P > 0; i++) {
        S = P * out->d[i] > 0 ? total / (P * out->d[i]) : 0;
        if (S > 0 && before % P == 0 && after % S == 0 &&
            out->d[i] == (before / P) * T * (after / S)) {
            c.axis = i;
            c.om = before / P;
            c.im = after / S;
            return c;
        }
        P *= out->d[i];
    }
    fail(x, n,
         "mixes the time steps' entries (a reshape that interleaves the time axis with "
         "another)");
    c.k = STREAM_BAD;
    return c;
}

/* The class of out = in, except that a per-step value keeps axis ax (-1: it does not keep
 * it: it is summed over, so the output mixes time steps). */
static tclass
product_term(actx *x, const ir_node *n, const ir_tensor *t, int ax)
{
    tclass c = cls_of(x, t);
    if (c.k == STREAM_TIME && ax < 0) {
        fail(x, n, "sums over the time axis of '%s' (a matrix product contracts it)", t->name);
        c.k = STREAM_BAD;
    } else if (c.k == STREAM_TIME) {
        c.axis = ax;
    }
    return c;
}

/*
 * MatMul (numpy semantics) and Gemm. A [..., M, K] times B [..., K, N] gives [..., M, N]:
 * a time axis on M, on N or on a batch axis stays per step (in the output's place); one
 * on K is summed over. Only the operand that has the time axis carries it: the other one
 * (a Linear layer's weight [K, N]) has no axis lined up with it, except through a batch
 * axis, where it must have size 1 (broadcast) or be per step along the same axis.
 */
static tclass
matmul_class(actx *x, const ir_node *n)
{
    const ir_tensor *A = ir_in(n, 0), *B = ir_in(n, 1), *out = ir_out(n, 0);
    const ir_tensor *ops[2];
    tclass cl[2], o = {STREAM_CONST, -1, 0, 0, 0, NULL, 0.0f, 0, NULL},
                  bad = {STREAM_BAD, -1, 0, 0, 0, NULL, 0.0f, 0, NULL};
    int r = out ? out->shape.rank : 0, i, ob;
    if (!A || !B || !out)
        return bad;
    ob = r - (A->shape.rank >= 2) - (B->shape.rank >= 2); /* MatMul's output batch axes */
    ops[0] = A;
    ops[1] = B;
    if (n->op == IR_OP_GEMM) { /* A [M, K] (transA: [K, M]), B [K, N] (transB: [N, K]) */
        int ta = (int)ir_attr_int(n, "transA", 0), tb = (int)ir_attr_int(n, "transB", 0);
        tclass a = cls_of(x, A), b = cls_of(x, B);
        cl[0] = product_term(x, n, A, a.k == STREAM_TIME && a.axis == (ta ? 1 : 0) ? 0 : -1);
        cl[1] = product_term(x, n, B, b.k == STREAM_TIME && b.axis == (tb ? 0 : 1) ? 1 : -1);
    } else {
        for (i = 0; i < 2; i++) {
            const ir_tensor *t = ops[i];
            tclass c = cls_of(x, t);
            int rt = t->shape.rank, ax = -1;
            if (c.k == STREAM_TIME) {
                if (rt >= 2 && c.axis < rt - 2)
                    ax = ob - (rt - 2) + c.axis; /* a batch axis */
                else if (i == 0 && rt >= 2 && c.axis == rt - 2)
                    ax = ob; /* M */
                else if (i == 1 && rt >= 2 && c.axis == rt - 1)
                    ax = r - 1; /* N */
            }
            cl[i] = product_term(x, n, t, ax);
        }
    }
    if (cl[0].k == STREAM_BAD || cl[1].k == STREAM_BAD)
        return bad;
    for (i = 0; i < 2; i++) {
        if (cl[i].k != STREAM_TIME)
            continue;
        if (o.k == STREAM_TIME && (o.axis != cl[i].axis || o.om != cl[i].om || o.im != cl[i].im)) {
            fail(x, n,
                 "multiplies two per-step values along different axes, which pairs "
                 "every time step with every other");
            return bad;
        }
        o = cl[i];
    }
    if (o.k == STREAM_TIME) {
        for (i = 0; i < 2; i++) {
            const ir_tensor *t = ops[i];
            int ta;
            if (cl[i].k == STREAM_LAST) {
                fail(x, n, "combines per-step values with the final state");
                return bad;
            }
            if (cl[i].k == STREAM_TIME || n->op == IR_OP_GEMM || t->shape.rank < 2)
                continue;
            /* the other operand's batch axis lined up with the output's time axis */
            ta = o.axis - ob + (t->shape.rank - 2);
            if (o.axis < ob && ta >= 0 && ta < t->shape.rank - 2 && t->shape.d[ta] != 1) {
                indexed_by_time(x, n, t, ta);
                return bad;
            }
        }
    } else {
        int has_last = cl[0].k == STREAM_LAST || cl[1].k == STREAM_LAST;
        int has_static = cl[0].k == STREAM_STATIC || cl[1].k == STREAM_STATIC;
        o.k = has_last ? STREAM_LAST : has_static ? STREAM_STATIC : STREAM_CONST;
    }
    if (n->op == IR_OP_GEMM && ir_in(n, 2)) { /* + C, broadcast to [M, N] */
        const ir_tensor *C = ir_in(n, 2);
        tclass cc = cls_of(x, C);
        if (cc.k == STREAM_BAD)
            return bad;
        if (cc.k == STREAM_TIME) {
            int ca = cc.axis + (2 - C->shape.rank);
            if (o.k == STREAM_TIME && (o.axis != ca || o.om != cc.om || o.im != cc.im)) {
                fail(x, n, "combines values whose time axes differ");
                return bad;
            }
            if (o.k == STREAM_LAST) {
                fail(x, n, "combines per-step values with the final state");
                return bad;
            }
            o = cc;
            o.axis = ca;
        } else if (o.k == STREAM_TIME) {
            int ta = o.axis - (2 - C->shape.rank);
            if (cc.k == STREAM_LAST) {
                fail(x, n, "combines per-step values with the final state");
                return bad;
            }
            if (ta >= 0 && C->shape.d[ta] != 1) {
                indexed_by_time(x, n, C, ta);
                return bad;
            }
        } else if (cc.k == STREAM_LAST || (cc.k == STREAM_STATIC && o.k == STREAM_CONST)) {
            o.k = cc.k;
        }
    }
    return o;
}

/* The constant initial state of a layer's input i, or NULL when absent, not constant or
 * all zero (reset then clears the state instead of copying zeros from flash). A copy in
 * g's arena: the constant itself may be a blob that no program reads once the step program
 * takes the state as an input, which the sweep before codegen frees (a learnt h0 that the
 * model expands to a batch of 1 is the initializer itself). */
static const float *
init_state(const ir_graph *g, const ir_node *n, int i, int64_t count)
{
    const ir_tensor *t = ir_in(n, i);
    const float *v;
    int64_t k;
    if (!t || !t->data || t->dtype != IR_DT_F32 || ir_shape_numel(&t->shape) != count)
        return NULL;
    v = t->data;
    for (k = 0; k < count; k++)
        if (v[k] != 0.0f) {
            float *c = arena_alloc(g->a, (size_t)count * sizeof *c);
            memcpy(c, v, (size_t)count * sizeof *c);
            return c;
        }
    return NULL;
}

/*
 * Where a layer's initial state t, static (computed from graph inputs without a time axis),
 * comes from: graph input *input from float *off on, when t is that input or a contiguous
 * part of it (PyTorch passes layer k of a stacked h0 [L, N, H] as Slice h0[k:k+1]), read
 * through ops that keep the element order (Identity, Reshape, Squeeze, Unsqueeze, Flatten,
 * a Transpose that moves only axes of size 1) and Slice / Gather that keep one contiguous
 * block. 0, or -1 when t is computed otherwise.
 */
static int
state_source(const ir_graph *g, const ir_tensor *t, int *input, int64_t *off)
{
    int64_t o = 0, v[IR_MAX_RANK * 4];
    int depth, i;
    for (depth = 0; depth < 64 && t; depth++) {
        const ir_node *p = t->producer;
        const ir_tensor *in;
        const ir_shape *s;
        int64_t stride[IR_MAX_RANK], keep = 1;
        if (!p) {
            if (!t->is_input || t->dtype != IR_DT_F32)
                return -1;
            for (i = 0; i < g->n_inputs; i++)
                if (g->inputs[i] == t) {
                    *input = i;
                    *off = o;
                    return 0;
                }
            return -1;
        }
        in = ir_in(p, 0);
        if (!in)
            return -1;
        s = &in->shape;
        for (i = s->rank - 1; i >= 0; i--) {
            stride[i] = keep;
            keep *= s->d[i];
        }
        switch (p->op) {
        case IR_OP_IDENTITY:
        case IR_OP_RESHAPE:
        case IR_OP_SQUEEZE:
        case IR_OP_UNSQUEEZE:
        case IR_OP_FLATTEN:
            break;
        case IR_OP_TRANSPOSE: { /* moving only axes of size 1 keeps the element order */
            const ir_attr *pm = ir_attr_get(p, "perm");
            int last = -1;
            for (i = 0; pm && i < pm->n && i < s->rank; i++) {
                int a = (int)pm->ints[i];
                if (a < 0 || a >= s->rank)
                    return -1;
                if (s->d[a] == 1)
                    continue;
                if (a < last)
                    return -1;
                last = a;
            }
            if (!pm)
                return -1;
            break;
        }
        case IR_OP_GATHER: { /* one index along an axis with only 1s before it */
            int a = norm_axis(ir_attr_int(p, "axis", 0), s->rank);
            if (const_ints(ir_in(p, 1), v, 1) != 1 || a < 0 || a >= s->rank || v[0] < -s->d[a] ||
                v[0] >= s->d[a])
                return -1;
            for (i = 0; i < a; i++)
                if (s->d[i] != 1)
                    return -1;
            o += (v[0] < 0 ? v[0] + s->d[a] : v[0]) * stride[a];
            break;
        }
        case IR_OP_SLICE: { /* one block: 1s, then a range, then whole axes */
            const ir_shape *os = &ir_out(p, 0)->shape;
            int64_t sp[IR_MAX_RANK], ax[IR_MAX_RANK];
            int ns = const_ints(ir_in(p, 1), v, IR_MAX_RANK), first = -1;
            int na = ir_in(p, 3) ? const_ints(ir_in(p, 3), ax, IR_MAX_RANK) : ns;
            int np = ir_in(p, 4) ? const_ints(ir_in(p, 4), sp, IR_MAX_RANK) : ns;
            int64_t start[IR_MAX_RANK];
            if (ns < 0 || na != ns || np != ns || os->rank != s->rank)
                return -1;
            for (i = 0; i < s->rank; i++)
                start[i] = 0;
            for (i = 0; i < ns; i++) {
                int a = ir_in(p, 3) ? norm_axis(ax[i], s->rank) : i;
                int64_t b;
                if (a < 0 || a >= s->rank || (ir_in(p, 4) && sp[i] != 1))
                    return -1;
                b = v[i] < 0 ? v[i] + s->d[a] : v[i];
                start[a] = b < 0 ? 0 : b > s->d[a] ? s->d[a] : b;
            }
            for (i = 0; i < s->rank; i++) {
                if (first < 0 && os->d[i] != 1)
                    first = i;
                if (first >= 0 && i > first && os->d[i] != s->d[i])
                    return -1;
                o += start[i] * stride[i];
            }
            break;
        }
        default:
            return -1;
        }
        t = in;
    }
    return -1;
}

/* The recurrent layers: forward only, no sequence_lens, X per step along the layout's time
 * axis; Y per step, Y_h / Y_c the final state. */
static void
recurrent(actx *x, const ir_node *n)
{
    stream_info *si = x->si;
    const ir_tensor *X = ir_in(n, 0);
    int layout = (int)ir_attr_int(n, "layout", 0), i;
    int64_t dir = ir_attr_int(n, "direction", 0);
    tclass c = cls_of(x, X), bad = {STREAM_BAD, -1, 0, 0, 0, NULL, 0.0f, 0, NULL};
    tclass y = {STREAM_TIME, layout ? 1 : 0, 0, 0, 0, NULL, 0.0f, 0, NULL},
           last = {STREAM_LAST, -1, 0, 0, 0, NULL, 0.0f, 0, NULL};
    stream_layer *l;
    int src[2] = {-1, -1};
    int64_t off[2] = {0, 0};

    if (dir != 0) {
        fail(x, n,
             "is %s: it reads the sequence backwards, so no output is known before "
             "the whole sequence is",
             dir == 2 ? "bidirectional" : "a reverse layer");
        goto bad;
    }
    if (ir_in(n, 4)) {
        fail(x, n, "has sequence_lens: each batch entry has its own length");
        goto bad;
    }
    if (c.k != STREAM_TIME || c.axis != (layout ? 1 : 0) || MERGED(c)) {
        fail(x, n, "input X has no time axis that a stream could feed");
        goto bad;
    }
    for (i = 1; i < n->n_inputs; i++) {
        tclass w = cls_of(x, n->inputs[i]);
        if (n->inputs[i] && w.k != STREAM_CONST && w.k != STREAM_STATIC) {
            fail(x, n, "input %d ('%s') changes with time", i, n->inputs[i]->name);
            goto bad;
        }
        if ((i == 5 || i == 6) && w.k == STREAM_STATIC &&
            state_source(x->g, n->inputs[i], &src[i - 5], &off[i - 5]) < 0) {
            fail(x, n,
                 "computes its initial %s ('%s') from the inputs other than by taking "
                 "a part of one; a stream takes it from <name>_set_state",
                 i == 5 ? "h" : "c", n->inputs[i]->name);
            goto bad;
        }
    }
    if (si->seq_len == 0)
        si->seq_len = X->shape.d[layout ? 1 : 0];
    if (si->n_layers >= STREAM_MAX_LAYERS) {
        fail(x, n, "is recurrent layer %d; streaming supports %d", si->n_layers + 1,
             STREAM_MAX_LAYERS);
        goto bad;
    }
    l = &si->layers[si->n_layers++];
    l->node = n->name;
    l->op = ir_op_name(n->op);
    l->cell = n->op == IR_OP_LSTM ? 0 : n->op == IR_OP_GRU ? 1 : 2;
    l->batch = X->shape.d[layout ? 0 : 1];
    l->hidden = ir_attr_int(n, "hidden_size", 0);
    l->init_h = init_state(x->g, n, 5, l->batch * l->hidden);
    l->init_c = n->op == IR_OP_LSTM ? init_state(x->g, n, 6, l->batch * l->hidden) : NULL;
    l->init_h_input = src[0];
    l->init_h_off = off[0];
    l->init_c_input = n->op == IR_OP_LSTM ? src[1] : -1;
    l->init_c_off = n->op == IR_OP_LSTM ? off[1] : 0;
    set_out(x, n, 0, y);
    set_out(x, n, 1, last);
    set_out(x, n, 2, last);
    return;
bad:
    for (i = 0; i < n->n_outputs; i++)
        set_out(x, n, i, bad);
}

/* Gather / Slice of the time axis: only the last step keeps its meaning in a stream. */
static int
is_last_index(int64_t v, int64_t T)
{
    return v == -1 || v == T - 1;
}

/* Pad of the time axis by b steps at its start and e at its end: the start of a causal
 * convolution's window (its history, stream_hist) when constant, and nothing else. */
static tclass
pad_time(actx *x, const ir_node *n, tclass c, int64_t b, int64_t e)
{
    tclass bad = {STREAM_BAD, -1, 0, 0, 0, NULL, 0.0f, 0, NULL};
    const char *mode = ir_attr_string(n, "mode", "constant");
    const ir_tensor *cv = ir_in(n, 2);
    if (e > 0) {
        fail(x, n,
             "pads the end of the time axis (%lld steps): what reads them looks ahead "
             "in time, at steps a stream has not been fed yet",
             (long long)e);
        return bad;
    }
    if (b < 0 || e < 0) {
        fail(x, n, "crops the time axis (pads %lld, %lld)", (long long)b, (long long)e);
        return bad;
    }
    if (strcmp(mode, "constant") != 0) {
        fail(x, n,
             "pads the start of the time axis in %s mode; a stream takes constant "
             "padding before a convolution (its history starts as that constant)",
             mode);
        return bad;
    }
    if (MERGED(c) || c.lead) {
        fail(x, n, "pads a time axis that is %s",
             c.lead ? "padded already"
                    : "merged with "
                      "another axis");
        return bad;
    }
    if (cv && (!cv->data || cv->dtype != IR_DT_F32 || ir_shape_numel(&cv->shape) != 1)) {
        fail(x, n, "pads the time axis with a value that is not a float constant");
        return bad;
    }
    c.lead = b;
    c.padn = n;
    c.padv = cv ? ((const float *)cv->data)[0] : 0.0f;
    return c;
}

/* A value whose last steps look ahead (tclass.tail) read by anything but the Slice that
 * drops them: the refusal names the Conv that looks ahead. */
static void
looks_ahead(actx *x, const ir_node *n, tclass c)
{
    char label[480];
    fail(x, c.tailn,
         "looks ahead in time: it pads the end of the time axis by %lld steps, so "
         "its last outputs read steps a stream has not been fed yet, and %s reads "
         "them (pad the start only, or drop those outputs with a Slice, as a "
         "causal convolution does, to stream)",
         (long long)c.tail, n ? ir_node_label(n, label, sizeof label) : "a graph output");
}

/*
 * Conv, ConvTranspose, BatchNormalization and the pools (IR_CLASS_SPATIAL) on a per-step X.
 * Time on the batch axis: each step is its own sample. On a spatial axis: a window over
 * K = (kernel - 1) * dilation + 1 steps streams when it is causal, stride 1 and padded by
 * exactly K - 1 steps at the start (a Pad before it, or its own pads): the step program
 * reads the last K - 1 steps of its input from the state (stream_hist). Anything that looks
 * ahead, strides or spreads over time is refused.
 */
static tclass
spatial_rule(actx *x, const ir_node *n, tclass c)
{
    tclass bad = {STREAM_BAD, -1, 0, 0, 0, NULL, 0.0f, 0, NULL};
    const ir_tensor *X = ir_in(n, 0);
    stream_info *si = x->si;
    shape_conv_geom cg;
    int i, ti, conv = n->op == IR_OP_CONV;
    int64_t K, lead = c.lead;
    if (c.k != STREAM_TIME) /* W, B, scale: constants */
        return combine(x, n, 0, n->n_inputs, ir_out(n, 0)->shape.rank);
    for (i = 1; i < n->n_inputs; i++)
        if (ir_in(n, i) && cls_of(x, ir_in(n, i)).k != STREAM_CONST) {
            fail(x, n, "reads '%s', which is not a constant", ir_in(n, i)->name);
            return bad;
        }
    if (MERGED(c)) {
        fail(x, n, "reads a time axis merged with another axis");
        return bad;
    }
    if (c.axis == 0 && !lead) /* [T, C, ...]: the steps are the samples */
        return c;
    if (c.axis < 2) { /* the channels, or samples padded along time: no window over time */
        if (c.axis == 1)
            fail(x, n, "reads the time axis as its channels (axis 1)");
        else
            fail(x, n, "reads its samples (axis 0) padded along time by '%s'", c.padn->name);
        return bad;
    }
    if (n->op == IR_OP_BATCH_NORM)
        return c; /* per channel: time-local */
    if (n->op == IR_OP_GLOBAL_AVERAGE_POOL || n->op == IR_OP_GLOBAL_MAX_POOL) {
        fail(x, n, "pools over the whole time axis");
        return bad;
    }
    if (shape_conv_geom_of(n, &cg, x->quiet) < 0) {
        fail(x, n, "has a geometry lstmc cannot resolve");
        return bad;
    }
    ti = c.axis - 2; /* the time axis among the spatial ones */
    K = (cg.k[ti] - 1) * cg.dil[ti] + 1;
    if (n->op == IR_OP_CONV_TRANSPOSE &&
        (K > 1 || cg.stride[ti] > 1 || cg.pad_b[ti] || cg.pad_e[ti])) {
        fail(x, n,
             "transposes a convolution over the time axis (kernel %lld, stride %lld): "
             "each step's output spreads over later steps",
             (long long)cg.k[ti], (long long)cg.stride[ti]);
        return bad;
    }
    if (cg.stride[ti] != 1) {
        fail(x, n,
             "strides the time axis (stride %lld): it gives one step for every %lld "
             "fed, and a stream gives one for each",
             (long long)cg.stride[ti], (long long)cg.stride[ti]);
        return bad;
    }
    if (lead + cg.pad_b[ti] < K - 1) {
        fail(x, n,
             "looks ahead in time: each output reads %lld steps after its own, which a "
             "stream has not been fed yet (a window of %lld steps padded by %lld at the "
             "start; a causal convolution pads %lld there, and the end not at all, to "
             "stream)",
             (long long)(K - 1 - lead - cg.pad_b[ti]), (long long)K,
             (long long)(lead + cg.pad_b[ti]), (long long)(K - 1));
        return bad;
    }
    if (lead + cg.pad_b[ti] > K - 1) {
        fail(x, n,
             "reads a window of %lld time steps padded by %lld at the start: its first "
             "outputs come before the first step fed (a causal convolution pads %lld)",
             (long long)K, (long long)(lead + cg.pad_b[ti]), (long long)(K - 1));
        return bad;
    }
    if (cg.pad_e[ti] > 0 && K == 1) {
        fail(x, n, "pads the end of the time axis by %lld steps around a one-step window",
             (long long)cg.pad_e[ti]);
        return bad;
    }
    if (!conv && K > 1) {
        fail(x, n, "pools over %lld time steps; a stream pools over one", (long long)K);
        return bad;
    }
    if (K > 1) {
        stream_hist *h;
        if (lead && cg.pad_b[ti] && c.padv != 0.0f) {
            fail(x, n, "is padded along time by two values (%g by '%s', 0 by its own pads)",
                 (double)c.padv, c.padn->name);
            return bad;
        }
        if (X->dtype != IR_DT_F32) {
            fail(x, n, "convolves %s values over time; a stream keeps float history",
                 ir_dtype_name(X->dtype));
            return bad;
        }
        if (si->n_hists >= STREAM_MAX_HISTS) {
            fail(x, n, "is convolution %d over time; streaming keeps the history of %d",
                 si->n_hists + 1, STREAM_MAX_HISTS);
            return bad;
        }
        for (i = 0; lead && i < si->n_hists; i++)
            if (si->hists[i].pad && strcmp(si->hists[i].pad, c.padn->name) == 0) {
                fail(x, n,
                     "reads the time axis padded by '%s', which another convolution "
                     "reads too",
                     c.padn->name);
                return bad;
            }
        h = &si->hists[si->n_hists++];
        memset(h, 0, sizeof *h);
        h->conv = n->name;
        h->pad = lead ? c.padn->name : NULL;
        h->axis = c.axis;
        h->frames = K - 1;
        h->init = lead ? c.padv : 0.0f;
        h->nsp = cg.nsp;
        for (i = 0; i < 2; i++) {
            h->pad_b[i] = cg.pad_b[i];
            h->pad_e[i] = cg.pad_e[i];
        }
        /* the history: the un-padded input's shape with K - 1 on the time axis */
        h->shape = lead ? ir_in(c.padn, 0)->shape : X->shape;
        h->shape.d[c.axis] = K - 1;
        h->floats = ir_shape_numel(&h->shape);
    }
    c.lead = 0;
    c.padn = NULL;
    c.tail = cg.pad_e[ti]; /* the last outputs look ahead: a Slice must drop them */
    c.tailn = c.tail ? n : NULL;
    return c;
}

/* The rule of an op whose class has none: c is input 0's class; the output's class. */
static tclass
op_rule(actx *x, const ir_node *n, tclass c)
{
    const ir_tensor *in0 = ir_in(n, 0), *out0 = ir_out(n, 0);
    tclass bad = {STREAM_BAD, -1, 0, 0, 0, NULL, 0.0f, 0, NULL};
    int64_t v[IR_MAX_RANK * 2], st[IR_MAX_RANK], en[IR_MAX_RANK], ax[IR_MAX_RANK];
    int64_t sp[IR_MAX_RANK];
    int r = out0 ? out0->shape.rank : 0, i, k, cnt;

    switch (n->op) {
    case IR_OP_GEMM:
    case IR_OP_MATMUL:
        c = matmul_class(x, n);
        break;
    case IR_OP_ARGMAX:
    case IR_OP_ARGMIN:
        if (c.k == STREAM_TIME) {
            int a = norm_axis(ir_attr_int(n, "axis", 0), in0->shape.rank);
            if (c.axis == a) {
                fail(x, n, "looks for a %s over the time axis",
                     n->op == IR_OP_ARGMIN ? "minimum" : "maximum");
                c = bad;
            } else if (!ir_attr_int(n, "keepdims", 1) && a < c.axis) {
                c.axis--;
            }
        }
        break;
    case IR_OP_TRANSPOSE: {
        const ir_attr *p = ir_attr_get(n, "perm");
        if (c.k == STREAM_TIME && p) {
            for (i = 0; i < p->n; i++)
                if (p->ints[i] == c.axis)
                    break;
            c.axis = i;
        }
        break;
    }
    case IR_OP_SQUEEZE:
        if (c.k == STREAM_TIME) {
            int a = c.axis, drop = 0;
            cnt = const_ints(ir_in(n, 1), v, IR_MAX_RANK);
            for (i = 0; i < in0->shape.rank; i++) {
                int gone = 0;
                if (cnt < 0)
                    gone = in0->shape.d[i] == 1;
                for (k = 0; k < cnt; k++)
                    gone |= norm_axis(v[k], in0->shape.rank) == i;
                if (gone && i == a)
                    c.k = STREAM_LAST; /* T == 1: the one step is the last */
                else if (gone && i < a)
                    drop++;
            }
            c.axis = a - drop;
        }
        break;
    case IR_OP_UNSQUEEZE:
        if (c.k == STREAM_TIME) {
            int a = c.axis;
            cnt = const_ints(ir_in(n, 1), v, IR_MAX_RANK);
            for (i = 0, k = 0; i < r; i++) { /* output axis i: inserted, or input axis k */
                int ins = 0, j;
                for (j = 0; j < cnt; j++)
                    ins |= norm_axis(v[j], r) == i;
                if (ins)
                    continue;
                if (k++ == a) {
                    c.axis = i;
                    break;
                }
            }
        }
        break;
    case IR_OP_GATHER: {
        tclass ic = cls_of(x, ir_in(n, 1));
        int a = norm_axis(ir_attr_int(n, "axis", 0), in0->shape.rank);
        int ri = ir_in(n, 1)->shape.rank;
        if (c.k == STREAM_TIME && ic.k == STREAM_TIME) {
            fail(x, n, "gathers per-step values with per-step indices");
            c = bad;
        } else if (c.k == STREAM_TIME && a == c.axis && MERGED(c)) {
            fail(x, n, "picks entries of a time axis merged with another axis");
            c = bad;
        } else if (c.k == STREAM_TIME && a == c.axis) {
            cnt = const_ints(ir_in(n, 1), v, 1);
            if (cnt != 1 || !is_last_index(v[0], in0->shape.d[a])) {
                fail(x, n,
                     "picks a time step other than the last, which a stream only "
                     "knows at its end");
                c = bad;
            } else {
                c.k = STREAM_LAST;
            }
        } else if (c.k == STREAM_TIME) {
            if (a < c.axis)
                c.axis += ri - 1;
            if (ic.k == STREAM_LAST) {
                fail(x, n, "combines per-step values with the final state");
                c = bad;
            }
        } else if (ic.k == STREAM_TIME) { /* an embedding lookup of per-step indices */
            if (c.k == STREAM_LAST) {
                fail(x, n, "combines per-step values with the final state");
                c = bad;
            } else {
                c = ic;
                c.axis = a + ic.axis;
            }
        } else {
            c = combine(x, n, 0, 2, r);
        }
        break;
    }
    case IR_OP_SLICE:
        if (c.k == STREAM_TIME) {
            int ns = const_ints(ir_in(n, 1), st, IR_MAX_RANK);
            int ne = const_ints(ir_in(n, 2), en, IR_MAX_RANK);
            int na = ir_in(n, 3) ? const_ints(ir_in(n, 3), ax, IR_MAX_RANK) : ns;
            int np = ir_in(n, 4) ? const_ints(ir_in(n, 4), sp, IR_MAX_RANK) : ns;
            int64_t T = in0->shape.d[c.axis];
            if (ns < 0 || ne != ns || na != ns || np != ns) {
                fail(x, n, "has slice bounds that are not constant");
                c = bad;
                break;
            }
            for (i = 0; i < ns && c.k == STREAM_TIME; i++) {
                int64_t s = st[i], step = ir_in(n, 4) ? sp[i] : 1, len;
                if ((ir_in(n, 3) ? norm_axis(ax[i], in0->shape.rank) : i) != c.axis)
                    continue;
                len = out0->shape.d[c.axis];
                if (c.tail && s == 0 && step == 1 && len == T - c.tail) { /* the chomp */
                    int h;
                    for (h = 0; h < x->si->n_hists; h++)
                        if (strcmp(x->si->hists[h].conv, c.tailn->name) == 0)
                            x->si->hists[h].chomp = n->name;
                    if (x->si->n_chomps >= STREAM_MAX_HISTS) {
                        fail(x, n,
                             "is Slice %d dropping look-ahead steps; streaming "
                             "supports %d",
                             x->si->n_chomps + 1, STREAM_MAX_HISTS);
                        c = bad;
                        break;
                    }
                    x->si->chomp_node[x->si->n_chomps] = n->name;
                    x->si->chomp_axis[x->si->n_chomps++] = c.axis;
                    c.tail = 0;
                    c.tailn = NULL;
                    continue;
                }
                if (MERGED(c) && !(len == T && step == 1)) {
                    fail(x, n, "slices a time axis merged with another axis");
                    c = bad;
                    break;
                }
                if (s < 0)
                    s += T;
                s = s < 0 ? 0 : s > (step < 0 ? T - 1 : T) ? (step < 0 ? T - 1 : T) : s;
                if (len == T && step == 1)
                    continue; /* the whole axis */
                if (len == 1 && s == T - 1)
                    c.k = STREAM_LAST; /* the last step alone */
                else if (step < 0 && len > 1)
                    fail(x, n,
                         "reverses the time axis (step %lld): its first step is the "
                         "sequence's last, which a stream only knows at its end",
                         (long long)step);
                else if (len == 1)
                    fail(x, n,
                         "picks time step %lld of %lld, not the last, which a stream "
                         "only knows at its end",
                         (long long)s, (long long)T);
                else if (step > 1)
                    fail(x, n, "keeps one time step in %lld (step %lld)", (long long)step,
                         (long long)step);
                else
                    fail(x, n, "keeps only %lld of the %lld time steps (from step %lld)",
                         (long long)len, (long long)T, (long long)s);
                if (x->bad)
                    c = bad;
            }
        }
        break;
    case IR_OP_CONCAT: {
        int a;
        c = combine(x, n, 0, n->n_inputs, r);
        a = norm_axis(ir_attr_int(n, "axis", 0), r);
        if (c.k == STREAM_TIME && c.axis == a) {
            fail(x, n, "concatenates along the time axis");
            c = bad;
        }
        break;
    }
    case IR_OP_RESHAPE:
    case IR_OP_FLATTEN:
        c = reshape_axis(x, n, c);
        if (n->op == IR_OP_RESHAPE && c.k == STREAM_TIME &&
            const_ints(ir_in(n, 1), v, IR_MAX_RANK) == r && v[c.axis] == out0->shape.d[c.axis] &&
            out0->shape.d[c.axis] != (c.om > 1 ? c.om : 1) * (c.im > 1 ? c.im : 1)) {
            if (x->si->n_reshapes >= STREAM_MAX_RESHAPES) {
                fail(x, n,
                     "is Reshape %d with the sequence length in its shape; streaming "
                     "supports %d",
                     x->si->n_reshapes + 1, STREAM_MAX_RESHAPES);
                c = bad;
                break;
            }
            x->si->reshape_node[x->si->n_reshapes] = n->name;
            x->si->reshape_step[x->si->n_reshapes] = (c.om > 1 ? c.om : 1) * (c.im > 1 ? c.im : 1);
            x->si->reshape_axis[x->si->n_reshapes++] = c.axis;
        }
        break;
    case IR_OP_EXPAND:
        if (c.k == STREAM_TIME) {
            c.axis += r - in0->shape.rank;
            if (out0->shape.d[c.axis] != in0->shape.d[c.axis - (r - in0->shape.rank)]) {
                fail(x, n, "expands along the time axis");
                c = bad;
            }
        }
        break;
    /* issue 20, red */
    case IR_OP_REDUCE_MEAN:
    case IR_OP_REDUCE_SUM:
    case IR_OP_REDUCE_MAX:
    case IR_OP_REDUCE_MIN:
    case IR_OP_REDUCE_L2:
    case IR_OP_REDUCE_SUM_SQUARE:
    case IR_OP_REDUCE_L1:
    case IR_OP_REDUCE_PROD:
    case IR_OP_REDUCE_LOG_SUM:
    case IR_OP_REDUCE_LOG_SUM_EXP:
        if (c.k == STREAM_TIME) { /* axes: input 1; none: every axis (or none, noop) */
            int before = 0, hit = 0;
            cnt = ir_in(n, 1) ? const_ints(ir_in(n, 1), v, IR_MAX_RANK) : 0;
            if (cnt == 0 && !ir_attr_int(n, "noop_with_empty_axes", 0))
                hit = 1;
            for (k = 0; k < cnt; k++) {
                int a = norm_axis(v[k], in0->shape.rank);
                hit |= a == c.axis;
                before += a < c.axis;
            }
            if (hit) {
                fail(x, n, "reduces over the time axis");
                c = bad;
            } else if (!ir_attr_int(n, "keepdims", 1)) {
                c.axis -= before;
            }
        }
        break;
    case IR_OP_PAD:
        if (c.k == STREAM_TIME) { /* pads [begins, ends] over input 3's axes (or all) */
            int na = ir_in(n, 3) ? const_ints(ir_in(n, 3), ax, IR_MAX_RANK) : in0->shape.rank;
            cnt = const_ints(ir_in(n, 1), v, 2 * IR_MAX_RANK);
            for (k = 0; k < na && cnt == 2 * na && c.k == STREAM_TIME; k++) {
                int a = ir_in(n, 3) ? norm_axis(ax[k], in0->shape.rank) : k;
                if (a == c.axis && (v[k] || v[na + k]))
                    c = pad_time(x, n, c, v[k], v[na + k]);
            }
            if (cnt != 2 * na) {
                fail(x, n, "has pads that are not constant");
                c = bad;
            }
        }
        break;
    case IR_OP_SPLIT:
        if (c.k == STREAM_TIME && norm_axis(ir_attr_int(n, "axis", 0), in0->shape.rank) == c.axis) {
            fail(x, n, "splits the time axis");
            c = bad;
        }
        break;
    case IR_OP_TILE: /* repeats (input 1) per axis: along another axis each step is copied */
        cnt = const_ints(ir_in(n, 1), v, IR_MAX_RANK);
        if (c.k == STREAM_TIME && (cnt != in0->shape.rank || v[c.axis] != 1)) {
            if (cnt == in0->shape.rank)
                fail(x, n,
                     "repeats the time axis (%lld times): the copies of the first step "
                     "come after the sequence's last, which a stream only knows at its end",
                     (long long)v[c.axis]);
            else
                fail(x, n, "has repeats that are not constant");
            c = bad;
        }
        break;
    case IR_OP_CUMSUM: /* a running sum along one axis (input 1) */
        if (c.k == STREAM_TIME) {
            cnt = const_ints(ir_in(n, 1), v, 1);
            if (cnt != 1 || norm_axis(v[0], in0->shape.rank) == c.axis) {
                fail(x, n, "%s",
                     cnt != 1 ? "has an axis that is not constant"
                     : ir_attr_int(n, "reverse", 0)
                         ? "sums along the time axis backwards: its first step "
                           "needs the sequence's last"
                         : "sums along the time axis: each step adds every step "
                           "before it");
                c = bad;
            }
        }
        break;
    case IR_OP_TOPK:
    case IR_OP_SCATTER_ELEMENTS:
        c = combine(x, n, 0, n->n_inputs, r);
        if (c.k == STREAM_TIME || c.k == STREAM_LAST) {
            fail(x, n, "%s values that change with time",
                 n->op == IR_OP_TOPK ? "sorts" : "scatters");
            c = bad;
        }
        break;
    default:
        fail(x, n, "has no streaming rule");
        c = bad;
        break;
    }
    return c;
}

/* The class of n's outputs from its inputs'. A rule that holds for a whole op class
 * (ir_ops.def) is stated once, by class: an element-wise op is time-local. */
static void
node_class(actx *x, const ir_node *n)
{
    const ir_tensor *in0 = ir_in(n, 0), *out0 = ir_out(n, 0);
    tclass c = cls_of(x, in0), bad = {STREAM_BAD, -1, 0, 0, 0, NULL, 0.0f, 0, NULL};
    int r = out0 ? out0->shape.rank : 0, i;

    for (i = 0; i < n->n_inputs && n->op != IR_OP_CONV; i++) { /* a Pad's history */
        tclass p = cls_of(x, ir_in(n, i));
        if (p.k == STREAM_TIME && p.tail && n->op != IR_OP_SLICE) {
            looks_ahead(x, n, p);
            c = bad;
            break;
        }
        if (p.k == STREAM_TIME && p.lead) {
            fail(x, n,
                 "reads '%s', the time axis padded at its start by '%s'; only a "
                 "convolution over it streams (the padding is then its history)",
                 ir_in(n, i)->name, p.padn->name);
            c = bad;
            break;
        }
    }
    if (c.k == STREAM_BAD) {
        for (i = 0; i < n->n_outputs; i++)
            set_out(x, n, i, c);
        return;
    }
    switch (ir_op_class_of(n->op)) {
    case IR_CLASS_RNN:
        recurrent(x, n);
        return;
    case IR_CLASS_UNARY:
        if (n->n_inputs > 1) /* Clip's min and max */
            c = combine(x, n, 0, n->n_inputs, r);
        break;
    case IR_CLASS_BINARY: /* and Where's three operands */
        c = combine(x, n, 0, n->n_inputs, r);
        break;
    case IR_CLASS_NORM:
        if (c.k == STREAM_TIME) {
            int legacy = (int)ir_attr_int(n, "legacy", 0);
            int a = norm_axis(ir_attr_int(n, "axis", legacy ? 1 : -1), in0->shape.rank);
            /* LayerNormalization normalises over every axis from `axis` on, and
             * InstanceNormalization from 2 (its "axis") */
            if (legacy || n->op == IR_OP_LAYER_NORM || n->op == IR_OP_INSTANCE_NORM ? c.axis >= a
                                                                                    : c.axis == a) {
                fail(x, n, "normalises over the time axis");
                c = bad;
            }
        }
        break;
    case IR_CLASS_SHAPE:
        if (c.k == STREAM_TIME) {
            fail(x, n, "depends on the sequence length");
            c = bad;
        }
        break;
    case IR_CLASS_SPATIAL:
        c = spatial_rule(x, n, c);
        break;
    default:
        c = op_rule(x, n, c);
        break;
    }
    if (c.k == STREAM_BAD && !x->bad)
        fail(x, n, "reads a value that mixes time steps");
    for (i = 0; i < n->n_outputs; i++)
        set_out(x, n, i, c);
}

/* One attempt: in_axis[] fixed; 0 when every output has a stream meaning. */
static int
attempt(ir_graph *g, actx *x, const int *in_axis)
{
    stream_info *si = x->si;
    int i;
    x->bad = 0;
    x->why[0] = '\0';
    si->n_layers = 0;
    si->n_reshapes = 0;
    si->n_hists = 0;
    si->n_chomps = 0;
    si->seq_len = 0;
    for (i = 0; i < g->n_tensors; i++) {
        memset(&x->cls[i], 0, sizeof x->cls[i]);
        x->cls[i].k = g->tensors[i]->data ? STREAM_CONST : STREAM_BAD;
        x->cls[i].axis = -1;
    }
    for (i = 0; i < g->n_inputs; i++) {
        x->cls[g->inputs[i]->id].k = in_axis[i] >= 0 ? STREAM_TIME : STREAM_STATIC;
        x->cls[g->inputs[i]->id].axis = in_axis[i];
    }
    for (i = 0; i < g->n_nodes && !x->bad; i++) {
        x->reached = i;
        if (!g->nodes[i]->dead)
            node_class(x, g->nodes[i]);
    }
    if (!x->bad)
        x->reached = g->n_nodes;
    if (!x->bad && si->n_layers == 0)
        fail(x, NULL, "the model has no recurrent layer, so it has no state to carry");
    for (i = 0; i < g->n_outputs && !x->bad; i++) {
        tclass c = cls_of(x, g->outputs[i]);
        if (c.k == STREAM_BAD)
            fail(x, NULL, "output '%s' mixes time steps", g->outputs[i]->name);
        else if (c.k == STREAM_TIME && c.lead)
            fail(x, NULL, "output '%s' is padded along time by '%s'", g->outputs[i]->name,
                 c.padn->name);
        else if (c.k == STREAM_TIME && c.tail)
            looks_ahead(x, NULL, c);
    }
    return x->bad ? -1 : 0;
}

/* Axis a of s may be the time axis: its size is T, or (loose: no input has an axis of size
 * T) more than T, a sequence that valid convolutions or pools shorten before the first
 * recurrent layer (refused, but by the node that shortens it). */
static int
time_candidate(const ir_shape *s, int a, int64_t T, int loose)
{
    return s->d[a] == T || (loose && s->d[a] > T);
}

/* The next assignment of input time axes (each input: its candidate axes in order, then
 * none); 0 when all were tried. */
static int
next_assignment(const ir_graph *g, int64_t T, int loose, int *in_axis)
{
    int i;
    for (i = g->n_inputs - 1; i >= 0; i--) {
        const ir_shape *s = &g->inputs[i]->shape;
        int a = in_axis[i] + 1;
        while (a < s->rank && !time_candidate(s, a, T, loose))
            a++;
        if (a < s->rank) {
            in_axis[i] = a;
            return 1;
        }
        in_axis[i] = -1;
    }
    return 0;
}

/* T: the X time dim of the first recurrent layer (0 when there is none). */
static int64_t
first_seq_len(const ir_graph *g)
{
    int i;
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        if (!n->dead && ir_op_class_of(n->op) == IR_CLASS_RNN && ir_in(n, 0) &&
            ir_in(n, 0)->shape.rank == 3)
            return ir_in(n, 0)->shape.d[ir_attr_int(n, "layout", 0) ? 1 : 0];
    }
    return 0;
}

void
stream_analyze(ir_graph *g, stream_info *si)
{
    actx x;
    int *axis, i, tries = 0, best = -1, best_timed = -1, loose = 1;
    char best_why[512] = "";
    int64_t T = first_seq_len(g);

    memset(si, 0, sizeof *si);
    si->n_inputs = g->n_inputs;
    si->n_outputs = g->n_outputs;
    si->in_axis = arena_calloc(g->a, (size_t)g->n_inputs + 1, sizeof *si->in_axis);
    si->out_axis = arena_calloc(g->a, (size_t)g->n_outputs + 1, sizeof *si->out_axis);
    si->out_kind = arena_calloc(g->a, (size_t)g->n_outputs + 1, sizeof *si->out_kind);
    si->out_om = arena_calloc(g->a, (size_t)g->n_outputs + 1, sizeof *si->out_om);
    si->out_im = arena_calloc(g->a, (size_t)g->n_outputs + 1, sizeof *si->out_im);
    memset(&x, 0, sizeof x);
    x.g = g;
    x.si = si;
    x.cls = arena_calloc(g->a, (size_t)g->n_tensors + 1, sizeof *x.cls);
    x.quiet = diag_new(g->a, g->file, NULL);
    axis = arena_calloc(g->a, (size_t)g->n_inputs + 1, sizeof *axis);
    if (T <= 0) {
        snprintf(si->why, sizeof si->why,
                 "the model has no recurrent layer, so it has no "
                 "state to carry");
        return;
    }
    for (i = 0; i < g->n_inputs; i++) {
        const ir_shape *s = &g->inputs[i]->shape;
        int a;
        for (a = 0; a < s->rank; a++)
            loose &= s->d[a] != T;
    }
    /* first assignment: every input on its first candidate axis */
    for (i = 0; i < g->n_inputs; i++) {
        const ir_shape *s = &g->inputs[i]->shape;
        int a = 0;
        while (a < s->rank && !time_candidate(s, a, T, loose))
            a++;
        axis[i] = a < s->rank ? a : -1;
    }
    do {
        int timed = 0;
        if (attempt(g, &x, axis) == 0) {
            si->ok = 1;
            memcpy(si->in_axis, axis, sizeof *axis * (size_t)g->n_inputs);
            for (i = 0; i < g->n_outputs; i++) {
                tclass c = cls_of(&x, g->outputs[i]);
                si->out_kind[i] = c.k;
                si->out_axis[i] = c.k == STREAM_TIME ? c.axis : -1;
                si->out_om[i] = c.k == STREAM_TIME && c.om > 1 ? c.om : 1;
                si->out_im[i] = c.k == STREAM_TIME && c.im > 1 ? c.im : 1;
            }
            return;
        }
        for (i = 0; i < g->n_inputs; i++)
            timed |= axis[i] >= 0;
        /* the reason: that of the attempt that explained the most nodes, one that feeds
         * some input step by step before one that feeds none */
        if (timed > best_timed || (timed == best_timed && x.reached > best) ||
            (loose && timed == best_timed && x.reached == best)) { /* loose: the later axis */
            best = x.reached;
            best_timed = timed;
            memcpy(best_why, x.why, sizeof best_why);
        }
    } while (++tries < 256 && next_assignment(g, T, loose, axis));
    memcpy(si->why, best_why, sizeof si->why);
    si->n_layers = 0;
    si->n_hists = 0;
}
