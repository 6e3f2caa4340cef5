/*
 * step.c — the streaming step program as a translation of the imported graph (issue 9;
 * contract in stream.h): every time axis bound to 1, the initial state of every recurrent
 * layer a graph input and its final state a graph output. The driver prepares and compiles
 * the translated copy like any other graph; nothing here imports or compiles.
 */
#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "stream.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int
stream_step_options(stream_info *si, const ir_graph *g0, const ir_graph *g, const driver_options *o,
                    driver_options *so)
{
    int i, j;
    *so = *o;
    so->print_after = NULL;
    so->time_passes = 0;
    /* bind every time axis to 1: whole-shape bindings of the time inputs, and the --dim of
     * their time symbol dropped (it would contradict the 1) */
    for (i = 0; i < g->n_inputs; i++) {
        const ir_tensor *t = g->inputs[i];
        int ax = si->in_axis[i], m;
        const char *sym; /* the model's own symbol on the time axis */
        driver_binding *b = NULL;
        if (ax < 0)
            continue;
        sym = i < g0->n_inputs && ax < g0->inputs[i]->shape.rank ? g0->inputs[i]->shape.sym[ax]
                                                                 : NULL;
        for (m = 0; m < so->n_shapes; m++)
            if (strcmp(so->shapes[m].name, t->name) == 0)
                b = &so->shapes[m];
        if (!b) {
            if (so->n_shapes >= DRIVER_MAX_BINDINGS) {
                si->ok = 0;
                snprintf(si->why, sizeof si->why, "too many inputs to bind");
                return -1;
            }
            b = &so->shapes[so->n_shapes++];
            memset(b, 0, sizeof *b);
            b->name = t->name;
        }
        b->shape = t->shape;
        for (j = 0; j < b->shape.rank; j++)
            b->shape.sym[j] = NULL;
        b->shape.d[ax] = 1;
        b->force = 1;
        b->what = "the streaming step (one time step)";
        for (m = 0; sym && m < so->n_dims; m++) /* its --dim would contradict the 1 */
            if (strcmp(so->dims[m].name, sym) == 0) {
                so->dims[m] = so->dims[so->n_dims - 1];
                so->n_dims--;
                m--;
            }
    }
    return 0;
}

int
stream_step_graph(ir_graph *g, const stream_info *si)
{
    int i, k, done = 0;
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        ir_tensor *sh = ir_in(n, 1), *one;
        int64_t *v;
        if (n->dead || n->op != IR_OP_RESHAPE || !sh || !sh->data || sh->dtype != IR_DT_I64 ||
            sh->shape.rank != 1)
            continue;
        for (k = 0; k < si->n_reshapes; k++) {
            int a = si->reshape_axis[k];
            if (strcmp(si->reshape_node[k], n->name) != 0 || a >= sh->shape.d[0] ||
                ((const int64_t *)sh->data)[a] != si->seq_len * si->reshape_step[k])
                continue;
            one = ir_const_new(g, sh->name, IR_DT_I64, &sh->shape, sh->data);
            v = one->data;
            v[a] = si->reshape_step[k];
            n->inputs[1] = one;
            done++;
            break;
        }
    }
    return done;
}

/* Grow n's input or output slot array to at least k entries. */
static ir_tensor **
grow_slots(ir_graph *g, ir_tensor **v, int *n, int k)
{
    ir_tensor **w;
    if (*n >= k)
        return v;
    w = arena_calloc(g->a, (size_t)k, sizeof *w);
    memcpy(w, v, sizeof *w * (size_t)*n);
    *n = k;
    return w;
}

/* The node named `name`, live, or NULL. */
static ir_node *
node_named(const ir_graph *g, const char *name)
{
    int i;
    for (i = 0; name && i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && strcmp(g->nodes[i]->name, name) == 0)
            return g->nodes[i];
    return NULL;
}

/* An i64 constant [n] holding v. */
static ir_tensor *
ints_const(ir_graph *g, const char *hint, const int64_t *v, int n)
{
    ir_shape s;
    memset(&s, 0, sizeof s);
    s.rank = 1;
    s.d[0] = n;
    return ir_const_new(g, hint, IR_DT_I64, &s, v);
}

/*
 * History k (stream_hist) of the step program: X, the convolution's input before its
 * padding along time ([.., 1, ..] here), is read after the K - 1 steps the state holds:
 *     cat  = Concat(hist_k, X) along time          [.., K, ..]
 *     next = Slice(cat, 1, K) along time           the state after this step
 * and the padding along time is dropped (the Pad's, or the Conv's own, written out as
 * explicit pads without it), so the Conv reads the window that ends at this step, as
 * the whole-sequence program does.
 */
static int
hist_io(ir_graph *g, const stream_hist *h, int k, diag *d)
{
    ir_node *conv = node_named(g, h->conv), *pad = node_named(g, h->pad), *cn, *sn;
    ir_tensor *X, *hin, *cat, *next, *ins[4];
    ir_shape s;
    int64_t v[2 * IR_MAX_RANK], pads[4];
    char name[96];
    int i, j, other = 0;
    if (!conv || conv->op != IR_OP_CONV || (h->pad && (!pad || pad->op != IR_OP_PAD))) {
        diag_error(d, "the step program has no convolution '%s'%s%s", h->conv,
                   h->pad ? " after Pad " : "", h->pad ? h->pad : "");
        return -1;
    }
    X = ir_in(pad ? pad : conv, 0);
    if (!X || X->shape.rank <= h->axis || X->shape.d[h->axis] != 1) {
        diag_error(d, "convolution '%s': its input has no step on axis %d", h->conv, h->axis);
        return -1;
    }
    snprintf(name, sizeof name, "lstmc_state_x%d", k);
    hin = ir_tensor_tmp(g, name, IR_DT_F32, &h->shape);
    ir_graph_add_input(g, hin);
    s = h->shape;
    s.d[h->axis] = h->frames + 1;
    cn = ir_node_new(g, IR_OP_CONCAT, NULL, "Concat", 2, 1);
    ir_node_origin(cn, conv);
    cn->inputs[0] = hin;
    cn->inputs[1] = X;
    ir_attr_set_int(g, cn, "axis", h->axis);
    cat = ir_tensor_tmp(g, "lstmc_history", IR_DT_F32, &s);
    ir_node_set_output(cn, 0, cat);
    sn = ir_node_new(g, IR_OP_SLICE, NULL, "Slice", 5, 1);
    ir_node_origin(sn, conv);
    v[0] = 1;
    ins[0] = ints_const(g, "lstmc_history_start", v, 1);
    v[0] = h->frames + 1;
    ins[1] = ints_const(g, "lstmc_history_end", v, 1);
    v[0] = h->axis;
    ins[2] = ints_const(g, "lstmc_history_axis", v, 1);
    v[0] = 1;
    ins[3] = ints_const(g, "lstmc_history_step", v, 1);
    sn->inputs[0] = cat;
    for (i = 0; i < 4; i++)
        sn->inputs[1 + i] = ins[i];
    snprintf(name, sizeof name, "lstmc_state_x%d_next", k);
    next = ir_tensor_tmp(g, name, IR_DT_F32, &h->shape);
    ir_node_set_output(sn, 0, next);
    ir_graph_add_output(g, next);
    if (pad) { /* its pads along time dropped; a Pad left with none is bypassed */
        ir_tensor *pt = ir_in(pad, 1), *ax = ir_in(pad, 3);
        int r = X->shape.rank, na = ax ? (int)ir_shape_numel(&ax->shape) : r;
        if (!pt || !pt->data || pt->dtype != IR_DT_I64 || ir_shape_numel(&pt->shape) != 2 * na ||
            na > IR_MAX_RANK || (ax && (!ax->data || ax->dtype != IR_DT_I64))) {
            diag_error(d, "Pad '%s' of the step program has pads that are not constant", pad->name);
            return -1;
        }
        memcpy(v, pt->data, sizeof *v * (size_t)(2 * na));
        for (j = 0; j < na; j++) {
            int64_t a = ax ? ((const int64_t *)ax->data)[j] : j;
            if ((a < 0 ? a + r : a) == h->axis)
                v[j] = v[na + j] = 0;
            other |= v[j] || v[na + j];
        }
        if (other) {
            pad->inputs[0] = cat;
            pad->inputs[1] = ints_const(g, pt->name, v, 2 * na);
        } else {
            for (i = 0; i < conv->n_inputs; i++)
                if (conv->inputs[i] == ir_out(pad, 0))
                    conv->inputs[i] = cat;
            pad->dead = 1;
        }
    } else {
        conv->inputs[0] = cat;
    }
    /* the Conv's own padding, as the whole-sequence program resolved it, none on time */
    for (i = 0; i < h->nsp; i++) {
        pads[i] = i == h->axis - 2 ? 0 : h->pad_b[i];
        pads[h->nsp + i] = i == h->axis - 2 ? 0 : h->pad_e[i];
    }
    ir_attr_set_string(g, conv, "auto_pad", "NOTSET");
    ir_attr_set_ints(g, conv, "pads", pads, 2 * h->nsp);
    if (ir_out(conv, 0)) /* one step: its look-ahead outputs (a chomped Conv) are gone */
        ir_out(conv, 0)->shape.d[h->axis] = 1;
    return 0;
}

/* The Slice that drops a Conv's look-ahead steps (stream_info.chomp_node) keeps the one
 * step the step program's Conv gives: its end along time becomes INT64_MAX. */
static int
chomp_io(ir_graph *g, const char *name, int axis, diag *d)
{
    ir_node *n = node_named(g, name);
    ir_tensor *en, *ax;
    int64_t v[IR_MAX_RANK];
    int i, na, r;
    if (!n || n->op != IR_OP_SLICE || !(en = ir_in(n, 2)) || !en->data || en->dtype != IR_DT_I64 ||
        (na = (int)ir_shape_numel(&en->shape)) > IR_MAX_RANK || na < 1) {
        diag_error(d, "the step program has no Slice '%s' with constant ends", name);
        return -1;
    }
    ax = ir_in(n, 3);
    r = ir_in(n, 0)->shape.rank;
    memcpy(v, en->data, sizeof *v * (size_t)na);
    for (i = 0; i < na; i++) {
        int64_t a = ax && ax->data && ax->dtype == IR_DT_I64 ? ((const int64_t *)ax->data)[i] : i;
        if ((a < 0 ? a + r : a) == axis)
            v[i] = INT64_MAX;
    }
    n->inputs[2] = ints_const(g, en->name, v, na);
    return 0;
}

/* After prepare, before the passes: the initial state of every recurrent layer becomes a
 * graph input, its final state a graph output (appended in layer order, h then c); then
 * the convolution histories (hist_io). -1 when the layers or convolutions are not the ones
 * the analysis found. */
int
stream_state_io(ir_graph *g, const stream_info *si, diag *d)
{
    int i, k = 0;
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        const stream_layer *l;
        ir_shape s;
        int j, nst;
        if (n->dead || (n->op != IR_OP_LSTM && n->op != IR_OP_GRU && n->op != IR_OP_RNN))
            continue;
        if (k >= si->n_layers || strcmp(si->layers[k].node, n->name) != 0) {
            diag_error(d,
                       "the step program's recurrent layer '%s' is not the whole "
                       "sequence's",
                       n->name);
            return -1;
        }
        l = &si->layers[k];
        memset(&s, 0, sizeof s);
        s.rank = 3;
        s.d[0] = ir_attr_int(n, "layout", 0) ? l->batch : 1;
        s.d[1] = ir_attr_int(n, "layout", 0) ? 1 : l->batch;
        s.d[2] = l->hidden;
        nst = n->op == IR_OP_LSTM ? 2 : 1;
        n->inputs = grow_slots(g, n->inputs, &n->n_inputs, 5 + nst);
        n->outputs = grow_slots(g, n->outputs, &n->n_outputs, 1 + nst);
        for (j = 0; j < nst; j++) {
            char name[96];
            ir_tensor *in, *out = n->outputs[1 + j];
            snprintf(name, sizeof name, "lstmc_state_%s%d", j ? "c" : "h", k);
            in = ir_tensor_tmp(g, name, IR_DT_F32, &s);
            ir_graph_add_input(g, in);
            n->inputs[5 + j] = in;
            if (!out) {
                snprintf(name, sizeof name, "lstmc_state_%s%d_next", j ? "c" : "h", k);
                out = ir_tensor_tmp(g, name, IR_DT_F32, &s);
                ir_node_set_output(n, 1 + j, out);
            }
            ir_graph_add_output(g, out);
        }
        k++;
    }
    if (k != si->n_layers) {
        diag_error(d, "the step program has %d recurrent layers; the whole sequence's %d", k,
                   si->n_layers);
        return -1;
    }
    for (k = 0; k < si->n_hists; k++)
        if (hist_io(g, &si->hists[k], k, d) < 0)
            return -1;
    for (k = 0; k < si->n_chomps; k++)
        if (chomp_io(g, si->chomp_node[k], si->chomp_axis[k], d) < 0)
            return -1;
    return si->n_hists ? ir_toposort(g, d) : 0;
}

void
stream_refuse(stream_info *si, const char *msg)
{
    const char *nl = msg ? strchr(msg, '\n') : NULL;
    si->ok = 0;
    snprintf(si->why, sizeof si->why, "the one-step program does not compile%s%.*s",
             msg && *msg ? ": " : "", msg ? (int)(nl ? nl - msg : (long)strlen(msg)) : 0,
             msg ? msg : "");
}

void
stream_check_ranged(stream_info *si, const ir_graph *g, int n, const char *const *names)
{
    int i, k, m;
    for (i = 0; si->ok && i < g->n_inputs; i++) {
        const ir_tensor *t = g->inputs[i];
        for (k = 0; si->ok && k < t->shape.rank; k++) {
            if (k == si->in_axis[i] || !t->shape.sym[k])
                continue;
            for (m = 0; m < n; m++)
                if (strcmp(t->shape.sym[k], names[m]) == 0)
                    break;
            if (m == n)
                continue;
            si->ok = 0;
            snprintf(si->why, sizeof si->why,
                     "dim '%s' is a range (--dim=%s=MIN..MAX) and is axis %d of input '%s', "
                     "not its time axis: the one-step program is compiled for one value of "
                     "it; bind it to one value to stream",
                     names[m], names[m], k, t->name);
        }
    }
}

int
stream_check(stream_info *si)
{
    int i;
    for (i = 0; i < si->kp.n_calls; i++)
        if (kp_kinds[si->kp.calls[i].kind].stats & KP_STATS_TISSUE) { /* any tissue kernel */
            si->ok = 0;
            snprintf(si->why, sizeof si->why,
                     "compiled with breakpoints (--alpha-inter): they cut links inside a "
                     "sequence, which a stream does not have");
            return -1;
        }
    return 0;
}
