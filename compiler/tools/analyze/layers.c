/*
 * layers.c — the recurrent layers of a lowered program (contract in analyze.h): which
 * kernel calls make up each layer (one KP_RNN for schedule A; a KP_RNN_PROJ and the
 * KP_RNN_REC that reads its P for schedule A+, Arm'19 §IV, Alg. 2), its FLOPs and its
 * working set (Arm'19 §III-A, Eq. 1: weights + inputs + intermediate values); and the
 * per-layer part of `lstmc inspect`.
 */
#include "analyze_impl.h"

#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"

#include <string.h>

/* --- small helpers ----------------------------------------------------------------- */

int64_t
analyze_cell_gates(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 4 : cell == LSTMC_RT_CELL_GRU ? 3 : 1;
}

static const char *
cell_name(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? "LSTM" : cell == LSTMC_RT_CELL_GRU ? "GRU" : "RNN";
}

/* Element-wise flops per hidden unit and step: bias adds, activations (one each) and the
 * state update. LSTM: 4 bias + 5 activations + 3 (f.c + i.g) + 1 (o.h(c)) [+ 6 peephole];
 * GRU: 3 bias + 3 activations + 1 (r.h) + 4 ((1-z).h~ + z.h); RNN: 1 bias + 1 activation. */
static int64_t
ew_flops(int32_t cell, int peephole)
{
    return cell == LSTMC_RT_CELL_LSTM  ? 13 + (peephole ? 6 : 0)
           : cell == LSTMC_RT_CELL_GRU ? 11
                                       : 2;
}

int64_t
analyze_tensor_bytes(const ir_tensor *t)
{
    int64_t n = t ? ir_shape_numel(&t->shape) : 0;
    return n > 0 ? n * (int64_t)ir_dtype_size(t->dtype) : 0;
}

double
analyze_dre(int64_t read_bytes, int64_t write_bytes, int64_t working_set)
{
    return working_set > 0 ? (double)(read_bytes + write_bytes) / (double)working_set : 0.0;
}

/* --- layers ------------------------------------------------------------------------- */

/* The recurrent node a call comes from: split_gates names its halves "<node>/G1" (the
 * projection) and "<node>/G2" (the recurrence); the layer keeps the node's own name. */
static const char *
layer_name(arena *a, const kp_call *c)
{
    const char *s = c->node ? c->node->name : NULL;
    size_t n = s ? strlen(s) : 0;
    char *t;
    if (n > 3 && (c->kind == KP_RNN_PROJ || c->kind == KP_RNN_REC) &&
        (!strcmp(s + n - 3, "/G1") || !strcmp(s + n - 3, "/G2"))) {
        t = arena_alloc(a, n - 2);
        memcpy(t, s, n - 3);
        t[n - 3] = 0;
        return t;
    }
    return s;
}

/* Group the recurrent calls into layers and size each layer's working set. Returns the
 * layer index of every call (-1: not part of a layer) in *of_call. */
void
analyze_collect_layers(arena *a, const ir_graph *g, const kprog *kp, const memplan *mp,
                       analyze_report *r, int **of_call)
{
    int *lay = arena_calloc(a, (size_t)kp->n_calls + 1, sizeof *lay);
    int *seen = arena_calloc(a, (size_t)g->n_tensors + 1, sizeof *seen);
    int i, j, k;

    r->layers = arena_calloc(a, (size_t)kp->n_calls + 1, sizeof *r->layers);
    r->n_layers = 0;
    for (i = 0; i < kp->n_calls; i++) {
        const kp_call *c = &kp->calls[i];
        analyze_layer *l = NULL;
        lay[i] = -1;
        if (c->kind == KP_RNN || c->kind == KP_RNN_PROJ) {
            l = &r->layers[r->n_layers];
            lay[i] = r->n_layers++;
        } else if (c->kind == KP_RNN_REC) {
            /* the projection whose P it reads */
            for (j = 0; j < r->n_layers && !l; j++) {
                const analyze_layer *m = &r->layers[j];
                const kp_call *pc = &kp->calls[m->calls[0]];
                if (m->split && m->n_calls == 1 && pc->out[0] == c->in[0]) {
                    l = &r->layers[j];
                    lay[i] = j;
                }
            }
            if (!l) {
                l = &r->layers[r->n_layers];
                lay[i] = r->n_layers++;
            }
        }
        if (!l)
            continue;
        if (l->n_calls < (int)(sizeof l->calls / sizeof l->calls[0]))
            l->calls[l->n_calls++] = i;
        if (c->kind == KP_RNN_PROJ) {
            l->split = 1;
            l->cell = c->p.proj.cell;
            l->I = c->p.proj.input_size;
            l->H = c->p.proj.hidden;
            l->D = c->p.proj.n_dirs;
        } else {
            const lstmc_rt_rnn_params *p = &c->p.rnn;
            l->split |= c->kind == KP_RNN_REC;
            l->cell = p->cell;
            l->T = p->seq_len;
            l->N = p->batch;
            if (c->kind == KP_RNN)
                l->I = p->input_size;
            l->H = p->hidden;
            l->D = p->n_dirs;
        }
        if (!l->name)
            l->name = layer_name(a, c);
        l->G = analyze_cell_gates(l->cell);
        l->op = cell_name(l->cell);
        /* working set: each distinct buffer once, plus the scratch */
        for (k = 0; k < c->n_in + c->n_out; k++) {
            const ir_tensor *t = k < c->n_in ? c->in[k] : c->out[k - c->n_in];
            const memplan_kind mk = t ? mp->tensor[t->id].kind : MEMPLAN_NONE;
            if (!t || seen[t->id] == lay[i] + 1)
                continue;
            seen[t->id] = lay[i] + 1;
            if (mk == MEMPLAN_CONST)
                l->weight_bytes += analyze_tensor_bytes(t);
            else if (mk == MEMPLAN_ARENA)
                l->arena_bytes += analyze_tensor_bytes(t);
            else if (mk == MEMPLAN_INPUT || mk == MEMPLAN_OUTPUT)
                l->io_bytes += analyze_tensor_bytes(t);
        }
        if (c->scratch_bytes > 0)
            l->arena_bytes += c->scratch_bytes;
    }
    for (j = 0; j < r->n_layers; j++) {
        analyze_layer *l = &r->layers[j];
        int peep = 0;
        for (k = 0; k < l->n_calls; k++) {
            const kp_call *c = &kp->calls[l->calls[k]];
            if (c->kind == KP_RNN && c->in[7])
                peep = 1;
            if (c->kind == KP_RNN_REC && c->in[6])
                peep = 1;
        }
        l->working_set = l->weight_bytes + l->arena_bytes + l->io_bytes;
        l->flops =
            l->D * l->T * l->N * (2 * l->G * l->H * (l->I + l->H) + ew_flops(l->cell, peep) * l->H);
        if (!l->name)
            l->name = "?";
    }
    /* the whole model */
    r->const_bytes = 0;
    memset(seen, 0, ((size_t)g->n_tensors + 1) * sizeof *seen);
    for (i = 0; i < kp->n_calls; i++) {
        const kp_call *c = &kp->calls[i];
        for (k = 0; k < c->n_in; k++)
            if (c->in[k] && mp->tensor[c->in[k]->id].kind == MEMPLAN_CONST && !seen[c->in[k]->id]) {
                seen[c->in[k]->id] = 1;
                r->const_bytes += analyze_tensor_bytes(c->in[k]);
            }
    }
    r->arena_bytes = mp->arena_size;
    r->io_bytes = 0;
    for (i = 0; i < g->n_inputs; i++)
        r->io_bytes += analyze_tensor_bytes(g->inputs[i]);
    for (i = 0; i < kp->n_outputs; i++)
        r->io_bytes += analyze_tensor_bytes(kp->outputs[i]);
    r->working_set = r->const_bytes + r->arena_bytes + r->io_bytes;
    *of_call = lay;
}

/* --- lstmc inspect: per-layer figures ------------------------------------------------- */

/* A recurrent node of the imported graph: static figures from its weights. */
static void
inspect_static(FILE *f, const ir_node *n)
{
    const ir_tensor *W = ir_in(n, 1), *R = ir_in(n, 2), *B = ir_in(n, 3), *X = ir_in(n, 0);
    const ir_tensor *P = n->op == IR_OP_LSTM ? ir_in(n, 7) : NULL;
    int32_t cell = n->op == IR_OP_LSTM  ? LSTMC_RT_CELL_LSTM
                   : n->op == IR_OP_GRU ? LSTMC_RT_CELL_GRU
                                        : LSTMC_RT_CELL_RNN;
    int64_t G = analyze_cell_gates(cell), D = 0, H = 0, I = 0, params = 0;
    int layout = (int)ir_attr_int(n, "layout", 0);
    char b1[32], b2[32];
    int k;

    if (W && W->shape.rank == 3) {
        D = W->shape.d[0];
        I = W->shape.d[2];
        H = W->shape.d[1] / G;
    }
    if (R && R->shape.rank == 3 && R->shape.d[2] > 0)
        H = R->shape.d[2];
    for (k = 0; k < 4; k++) {
        const ir_tensor *t = k == 0 ? W : k == 1 ? R : k == 2 ? B : P;
        int64_t ne = t ? ir_shape_numel(&t->shape) : 0;
        if (ne > 0)
            params += ne;
    }
    fprintf(f, "  %s (%s)  %s  I=%lld H=%lld G=%lld D=%lld", n->name, cell_name(cell),
            D == 2                                ? "bidirectional"
            : ir_attr_int(n, "direction", 0) == 1 ? "reverse"
                                                  : "forward",
            (long long)I, (long long)H, (long long)G, (long long)D);
    if (X && X->shape.rank == 3) {
        for (k = 0; k < 2; k++) {
            int dim = (k == 0) != (layout == 1) ? 0 : 1; /* T then N */
            if (X->shape.d[dim] >= 0)
                fprintf(f, " %s=%lld", k ? "N" : "T", (long long)X->shape.d[dim]);
            else
                fprintf(f, " %s='%s'", k ? "N" : "T", X->shape.sym[dim] ? X->shape.sym[dim] : "?");
        }
    }
    fprintf(f, "\n      params %s (%s of float32 weights)\n", analyze_fmt_count(b1, sizeof b1, params),
            analyze_fmt_bytes(b2, sizeof b2, params * F4));
    fprintf(f, "      flops per step and batch entry %s (2*G*H*(I+H)*D + element-wise)\n",
            analyze_fmt_count(b1, sizeof b1, D * (2 * G * H * (I + H) + ew_flops(cell, P != NULL) * H)));
}

int
analyze_inspect(arena *a, const ir_graph *g, const driver_options *o, FILE *f, diag *d)
{
    const char *missing[DRIVER_MAX_BINDINGS];
    int n_missing = 0, n_rnn = 0, i, k, m;
    driver_options lo;
    ir_graph *lg;
    kprog kp;
    memplan mp;
    diag *quiet;

    (void)d;
    for (i = 0; i < g->n_nodes; i++)
        if (g->nodes[i]->op == IR_OP_LSTM || g->nodes[i]->op == IR_OP_GRU ||
            g->nodes[i]->op == IR_OP_RNN)
            n_rnn++;
    if (!n_rnn)
        return 0;
    /* symbolic input dims that no --dim binds (the batch needs none: the compile makes it
     * 1, driver_batch_axis) */
    for (i = 0; i < g->n_inputs; i++) {
        const ir_shape *s = &g->inputs[i]->shape;
        int batch = -2;
        for (k = 0; k < s->rank; k++) {
            int bound = 0;
            if (s->d[k] >= 0)
                continue;
            if (batch == -2)
                batch = driver_batch_axis(g, g->inputs[i], NULL);
            if (k == batch)
                continue;
            for (m = 0; s->sym[k] && m < o->n_dims; m++)
                if (!strcmp(o->dims[m].name, s->sym[k]))
                    bound = 1;
            for (m = 0; m < n_missing && !bound; m++)
                if (s->sym[k] && !strcmp(missing[m], s->sym[k]))
                    bound = 1;
            if (!bound && n_missing < DRIVER_MAX_BINDINGS)
                missing[n_missing++] = s->sym[k] ? s->sym[k] : "?";
        }
    }
    fprintf(f, "recurrent layers\n");
    if (n_missing) {
        for (i = 0; i < g->n_nodes; i++)
            if (g->nodes[i]->op == IR_OP_LSTM || g->nodes[i]->op == IR_OP_GRU ||
                g->nodes[i]->op == IR_OP_RNN)
                inspect_static(f, g->nodes[i]);
        fprintf(f, "  flops per sequence, working set and arena bytes need every input dim "
                   "bound: give");
        for (m = 0; m < n_missing; m++)
            fprintf(f, " --dim %s=N", missing[m]);
        fprintf(f, "\n\n");
        return 0;
    }
    lo = *o;
    quiet = diag_new(a, o->model, NULL);
    if (driver_lower(a, &lo, &lg, &kp, &mp, quiet) < 0) {
        for (i = 0; i < g->n_nodes; i++)
            if (g->nodes[i]->op == IR_OP_LSTM || g->nodes[i]->op == IR_OP_GRU ||
                g->nodes[i]->op == IR_OP_RNN)
                inspect_static(f, g->nodes[i]);
        fprintf(f, "  (working set not available: the model does not lower)\n\n");
        return 0;
    }
    {
        analyze_report r;
        int *lay;
        char b1[32], b2[32], b3[32], b4[32];
        memset(&r, 0, sizeof r);
        analyze_collect_layers(a, lg, &kp, &mp, &r, &lay);
        for (i = 0; i < r.n_layers; i++) {
            const analyze_layer *l = &r.layers[i];
            const ir_node *src = NULL;
            for (k = 0; k < g->n_nodes && !src; k++)
                if (!strcmp(g->nodes[k]->name, l->name))
                    src = g->nodes[k];
            if (src)
                inspect_static(f, src);
            else
                fprintf(f, "  %s (%s)\n", l->name, l->op);
            fprintf(f,
                    "      X [T=%lld, N=%lld, I=%lld] -> Y [T, D=%lld, N, H=%lld]; "
                    "schedule %s\n",
                    (long long)l->T, (long long)l->N, (long long)l->I, (long long)l->D,
                    (long long)l->H, l->split ? "A+ (projection GEMM + recurrence)" : "A");
            fprintf(f, "      flops per sequence %s = 2*G*H*(I+H)*T*N*D + element-wise\n",
                    analyze_fmt_count(b1, sizeof b1, l->flops));
            fprintf(
                f, "      working set %s = weights %s + arena %s + inputs/outputs %s\n",
                analyze_fmt_bytes(b1, sizeof b1, l->working_set), analyze_fmt_bytes(b2, sizeof b2, l->weight_bytes),
                analyze_fmt_bytes(b3, sizeof b3, l->arena_bytes), analyze_fmt_bytes(b4, sizeof b4, l->io_bytes));
        }
        fprintf(f, "  model: working set %s = constants %s + arena %s + inputs/outputs %s\n\n",
                analyze_fmt_bytes(b1, sizeof b1, r.working_set), analyze_fmt_bytes(b2, sizeof b2, r.const_bytes),
                analyze_fmt_bytes(b3, sizeof b3, r.arena_bytes), analyze_fmt_bytes(b4, sizeof b4, r.io_bytes));
    }
    return 0;
}
