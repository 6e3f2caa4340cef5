/*
 * step.c — the streaming step program as a translation of the imported graph (issue 9;
 * contract in stream.h): every time axis bound to 1, the initial state of every recurrent
 * layer a graph input and its final state a graph output. The driver prepares and compiles
 * the translated copy like any other graph; nothing here imports or compiles.
 */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "driver.h"
#include "ir.h"
#include "stream.h"

int
stream_step_options(stream_info *si, const ir_graph *g0, const ir_graph *g,
                    const driver_options *o, driver_options *so)
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

/* After prepare, before the passes: the initial state of every recurrent layer becomes a
 * graph input, its final state a graph output (appended in layer order, h then c). -1 when
 * the layers are not the ones the analysis found. */
int
stream_state_io(ir_graph *g, const stream_info *si)
{
    int i, k = 0;
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        const stream_layer *l;
        ir_shape s;
        int j, nst;
        if (n->dead || (n->op != IR_OP_LSTM && n->op != IR_OP_GRU && n->op != IR_OP_RNN))
            continue;
        if (k >= si->n_layers || strcmp(si->layers[k].node, n->name) != 0)
            return -1;
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
    return k == si->n_layers ? 0 : -1;
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

int
stream_check(stream_info *si)
{
    int i;
    for (i = 0; i < si->kp.n_calls; i++)
        if (si->kp.calls[i].kind == KP_LSTM_TISSUE) {
            si->ok = 0;
            snprintf(si->why, sizeof si->why,
                     "compiled with breakpoints (--alpha-inter): they cut links inside a "
                     "sequence, which a stream does not have");
            return -1;
        }
    return 0;
}
