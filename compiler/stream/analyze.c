/*
 * analyze.c — which models stream (issue 9; contract in stream.h). The step program that
 * streams them is step.c's transform of the imported graph.
 *
 * The analysis gives every tensor a class: constant, static (graph inputs without a time
 * axis), per time step along an axis, or "last" (the state after the last step fed). The
 * time axis of each graph input is not declared anywhere, so every assignment of an input
 * axis whose size is T (or none) is tried, in order, until one explains every recurrent
 * layer's X; the first failure's reason is kept for the message.
 */
#include "stream.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "ir.h"

typedef struct tclass {
    stream_kind k;
    int axis; /* STREAM_TIME only */
} tclass;

typedef struct actx {
    const ir_graph *g;
    stream_info *si;
    tclass *cls; /* by tensor id */
    int bad;
    char why[512];
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
        v[i] = t->dtype == IR_DT_I64 ? ((const int64_t *)t->data)[i]
                                     : ((const int32_t *)t->data)[i];
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
    tclass c = {STREAM_CONST, -1};
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

/*
 * Element-wise combination with numpy broadcasting into rank r: per step if any input is
 * per step (all on the same output axis, every other input of size 1 along it), else last
 * if any is last, else static or constant.
 */
static tclass
combine(actx *x, const ir_node *n, int first, int count, int r)
{
    tclass o = {STREAM_CONST, -1};
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
            if (o.k == STREAM_TIME && o.axis != oa) {
                fail(x, n, "combines values whose time axes differ");
                o.k = STREAM_BAD;
                return o;
            }
            o.k = STREAM_TIME;
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
                fail(x, n, "reads a value indexed by time step ('%s') that no stream has",
                     t->name);
                o.k = STREAM_BAD;
                return o;
            }
        }
        return o;
    }
    o.k = has_last ? STREAM_LAST : has_static ? STREAM_STATIC : STREAM_CONST;
    return o;
}

/* A reshape-like op (Reshape, Flatten) keeps the time axis when the elements before it and
 * those after it stay apart: out = [outer..., T, inner...] with the same outer product. */
static tclass
reshape_axis(actx *x, const ir_node *n, tclass c)
{
    const ir_shape *in = &n->inputs[0]->shape, *out = &ir_out(n, 0)->shape;
    int64_t outer = 1, p = 1;
    int i;
    if (c.k != STREAM_TIME)
        return c;
    for (i = 0; i < c.axis; i++)
        outer *= in->d[i];
    for (i = 0; i < out->rank; i++) {
        if (p == outer && out->d[i] == in->d[c.axis]) {
            c.axis = i;
            return c;
        }
        p *= out->d[i];
    }
    fail(x, n, "merges the time axis with another axis");
    c.k = STREAM_BAD;
    return c;
}

/* The constant initial state of a layer's input i, or NULL when absent, not constant or
 * all zero (reset then clears the state instead of copying zeros from flash). */
static const float *
init_state(const ir_node *n, int i, int64_t count)
{
    const ir_tensor *t = ir_in(n, i);
    const float *v;
    int64_t k;
    if (!t || !t->data || t->dtype != IR_DT_F32 || ir_shape_numel(&t->shape) != count)
        return NULL;
    v = t->data;
    for (k = 0; k < count; k++)
        if (v[k] != 0.0f)
            return v;
    return NULL;
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
    tclass c = cls_of(x, X), bad = {STREAM_BAD, -1};
    tclass y = {STREAM_TIME, layout ? 1 : 0}, last = {STREAM_LAST, -1};
    stream_layer *l;

    if (dir != 0) {
        fail(x, n, "is %s: it reads the sequence backwards, so no output is known before "
                   "the whole sequence is", dir == 2 ? "bidirectional" : "a reverse layer");
        goto bad;
    }
    if (ir_in(n, 4)) {
        fail(x, n, "has sequence_lens: each batch entry has its own length");
        goto bad;
    }
    if (c.k != STREAM_TIME || c.axis != (layout ? 1 : 0)) {
        fail(x, n, "input X has no time axis that a stream could feed");
        goto bad;
    }
    for (i = 1; i < n->n_inputs; i++) {
        tclass w = cls_of(x, n->inputs[i]);
        if (n->inputs[i] && w.k != STREAM_CONST && w.k != STREAM_STATIC) {
            fail(x, n, "input %d ('%s') changes with time", i, n->inputs[i]->name);
            goto bad;
        }
        if ((i == 5 || i == 6) && w.k == STREAM_STATIC && !n->inputs[i]->is_input) {
            fail(x, n, "computes its initial state from the inputs; a stream takes it from "
                       "<name>_set_state");
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
    l->init_h = init_state(n, 5, l->batch * l->hidden);
    l->init_c = n->op == IR_OP_LSTM ? init_state(n, 6, l->batch * l->hidden) : NULL;
    l->init_h_input = l->init_c_input = -1;
    for (i = 0; i < x->g->n_inputs; i++) {
        if (ir_in(n, 5) == x->g->inputs[i])
            l->init_h_input = i;
        if (n->op == IR_OP_LSTM && ir_in(n, 6) == x->g->inputs[i])
            l->init_c_input = i;
    }
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

/* The rule of an op whose class has none: c is input 0's class; the output's class. */
static tclass
op_rule(actx *x, const ir_node *n, tclass c)
{
    const ir_tensor *in0 = ir_in(n, 0), *out0 = ir_out(n, 0);
    tclass bad = {STREAM_BAD, -1};
    int64_t v[IR_MAX_RANK * 2], st[IR_MAX_RANK], en[IR_MAX_RANK], ax[IR_MAX_RANK];
    int64_t sp[IR_MAX_RANK];
    int r = out0 ? out0->shape.rank : 0, i, k, cnt;

    switch (n->op) {
    case IR_OP_GEMM: {
        int ta = (int)ir_attr_int(n, "transA", 0);
        tclass b = cls_of(x, ir_in(n, 1)), cc = cls_of(x, ir_in(n, 2));
        if (b.k == STREAM_TIME || cc.k == STREAM_TIME ||
            (c.k == STREAM_TIME && c.axis != (ta ? 1 : 0))) {
            fail(x, n, "sums over the time axis");
            c = bad;
            break;
        }
        if (c.k == STREAM_TIME && ir_in(n, 2) && ir_in(n, 2)->shape.rank == 2 &&
            ir_in(n, 2)->shape.d[0] != 1) {
            fail(x, n, "adds a bias indexed by time step");
            c = bad;
            break;
        }
        c = combine(x, n, 0, 3, 2);
        if (c.k == STREAM_TIME)
            c.axis = 0;
        break;
    }
    case IR_OP_MATMUL: {
        tclass b = cls_of(x, ir_in(n, 1));
        int ra = in0->shape.rank;
        if (b.k == STREAM_TIME || (c.k == STREAM_TIME && c.axis == ra - 1) ||
            (c.k == STREAM_TIME && ra == 1)) {
            fail(x, n, "sums over the time axis");
            c = bad;
            break;
        }
        if (c.k == STREAM_TIME && c.axis < ra - 2 && ir_in(n, 1)->shape.rank >= ra - c.axis &&
            ir_in(n, 1)->shape.d[ir_in(n, 1)->shape.rank - (ra - c.axis)] != 1) {
            fail(x, n, "multiplies by a matrix indexed by time step");
            c = bad;
            break;
        }
        {
            tclass o = combine(x, n, 0, 2, r < 2 ? 2 : r);
            if (o.k == STREAM_TIME)
                o.axis = c.axis + (r - ra);
            c = o;
        }
        break;
    }
    case IR_OP_ARGMAX:
        if (c.k == STREAM_TIME) {
            int a = norm_axis(ir_attr_int(n, "axis", 0), in0->shape.rank);
            if (c.axis == a) {
                fail(x, n, "looks for a maximum over the time axis");
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
        } else if (c.k == STREAM_TIME && a == c.axis) {
            cnt = const_ints(ir_in(n, 1), v, 1);
            if (cnt != 1 || !is_last_index(v[0], in0->shape.d[a])) {
                fail(x, n, "picks a time step other than the last, which a stream only "
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
                c.k = STREAM_TIME;
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
            for (i = 0; i < ns; i++) {
                int64_t s = st[i], step = ir_in(n, 4) ? sp[i] : 1;
                if ((ir_in(n, 3) ? norm_axis(ax[i], in0->shape.rank) : i) != c.axis)
                    continue;
                if (s < 0)
                    s += T;
                if (out0->shape.d[c.axis] == T && step == 1)
                    continue; /* the whole axis */
                if (out0->shape.d[c.axis] == 1 && (s >= T - 1 || (step < 0 && s >= T - 1)))
                    c.k = STREAM_LAST;
                else {
                    fail(x, n, "keeps only some time steps");
                    c = bad;
                }
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
    tclass c = cls_of(x, in0), bad = {STREAM_BAD, -1};
    int r = out0 ? out0->shape.rank : 0, i;

    switch (ir_op_class_of(n->op)) {
    case IR_CLASS_RNN:
        recurrent(x, n);
        return;
    case IR_CLASS_UNARY:
        break;
    case IR_CLASS_BINARY:
        c = combine(x, n, 0, 2, r);
        break;
    case IR_CLASS_NORM:
        if (c.k == STREAM_TIME) {
            int legacy = (int)ir_attr_int(n, "legacy", 0);
            int a = norm_axis(ir_attr_int(n, "axis", legacy ? 1 : -1), in0->shape.rank);
            if (legacy ? c.axis >= a : c.axis == a) {
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
    si->seq_len = 0;
    for (i = 0; i < g->n_tensors; i++) {
        x->cls[i].k = g->tensors[i]->data ? STREAM_CONST : STREAM_BAD;
        x->cls[i].axis = -1;
    }
    for (i = 0; i < g->n_inputs; i++) {
        x->cls[g->inputs[i]->id].k = in_axis[i] >= 0 ? STREAM_TIME : STREAM_STATIC;
        x->cls[g->inputs[i]->id].axis = in_axis[i];
    }
    for (i = 0; i < g->n_nodes && !x->bad; i++)
        if (!g->nodes[i]->dead)
            node_class(x, g->nodes[i]);
    if (!x->bad && si->n_layers == 0)
        fail(x, NULL, "the model has no recurrent layer, so it has no state to carry");
    for (i = 0; i < g->n_outputs && !x->bad; i++) {
        tclass c = cls_of(x, g->outputs[i]);
        if (c.k == STREAM_BAD)
            fail(x, NULL, "output '%s' mixes time steps", g->outputs[i]->name);
    }
    return x->bad ? -1 : 0;
}

/* The next assignment of input time axes (each input: its axes of size T in order, then
 * none); 0 when all were tried. */
static int
next_assignment(const ir_graph *g, int64_t T, int *in_axis)
{
    int i;
    for (i = g->n_inputs - 1; i >= 0; i--) {
        const ir_shape *s = &g->inputs[i]->shape;
        int a = in_axis[i] + 1;
        while (a < s->rank && s->d[a] != T)
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
    int *axis, i, tries = 0;
    char first_why[512] = "";
    int64_t T = first_seq_len(g);

    memset(si, 0, sizeof *si);
    si->n_inputs = g->n_inputs;
    si->n_outputs = g->n_outputs;
    si->in_axis = arena_calloc(g->a, (size_t)g->n_inputs + 1, sizeof *si->in_axis);
    si->out_axis = arena_calloc(g->a, (size_t)g->n_outputs + 1, sizeof *si->out_axis);
    si->out_kind = arena_calloc(g->a, (size_t)g->n_outputs + 1, sizeof *si->out_kind);
    memset(&x, 0, sizeof x);
    x.g = g;
    x.si = si;
    x.cls = arena_calloc(g->a, (size_t)g->n_tensors + 1, sizeof *x.cls);
    axis = arena_calloc(g->a, (size_t)g->n_inputs + 1, sizeof *axis);
    if (T <= 0) {
        snprintf(si->why, sizeof si->why, "the model has no recurrent layer, so it has no "
                                          "state to carry");
        return;
    }
    for (i = 0; i < g->n_inputs; i++)
        axis[i] = -1;
    /* first assignment: every input on its first axis of size T */
    for (i = 0; i < g->n_inputs; i++) {
        const ir_shape *s = &g->inputs[i]->shape;
        int a = 0;
        while (a < s->rank && s->d[a] != T)
            a++;
        axis[i] = a < s->rank ? a : -1;
    }
    do {
        if (attempt(g, &x, axis) == 0) {
            si->ok = 1;
            memcpy(si->in_axis, axis, sizeof *axis * (size_t)g->n_inputs);
            for (i = 0; i < g->n_outputs; i++) {
                tclass c = cls_of(&x, g->outputs[i]);
                si->out_kind[i] = c.k;
                si->out_axis[i] = c.k == STREAM_TIME ? c.axis : -1;
            }
            return;
        }
        if (!first_why[0])
            memcpy(first_why, x.why, sizeof first_why);
    } while (++tries < 256 && next_assignment(g, T, axis));
    memcpy(si->why, first_why, sizeof si->why);
    si->n_layers = 0;
}
