/*
 * qrange.c — the activation ranges of --activations=int8|int16 (issue 22): the float model
 * run over the calibration samples (--calib-data, the samples lstmc calibrate takes), and
 * per recurrent layer the range of its input X and the largest |h| and |c| of any step
 * (passes/qact.c turns them into scales). Each layer is replayed one step at a time with
 * the float kernel to see every step's c, which the graph's outputs do not show.
 */
#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "ir_eval.h"
#include "kprog.h"
#include "lstmc_rt_kernels.h"
#include "lstmc_rt_npy.h"
#include "passes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct qlayer {
    ir_node *n;
    lstmc_rt_rnn_params p;
    int x_slot, h_slot, c_slot; /* graph output slots of X, initial_h, initial_c; -1 none */
    pass_qrange *r;
} qlayer;

static int
slot_of(ir_graph *g, ir_tensor *t)
{
    if (!t || t->data)
        return -1;
    ir_graph_add_output(g, t);
    return g->n_outputs - 1;
}

static const float *
buf_of(const qlayer *L, int slot, int in, void **outs)
{
    const ir_tensor *t = ir_in(L->n, in);
    if (!t)
        return NULL;
    return slot >= 0 ? outs[slot] : t->data;
}

/* One sample through layer L: X's range, and every step's h and c (direction by direction,
 * one step at a time). */
static int
replay(arena *s, qlayer *L, void **outs)
{
    const lstmc_rt_rnn_params *p = &L->p;
    const int64_t T = p->seq_len, N = p->batch, I = p->input_size, H = p->hidden;
    const int G = p->cell == LSTMC_RT_CELL_LSTM ? 4 : p->cell == LSTMC_RT_CELL_GRU ? 3 : 1;
    const int na = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    const float *X = buf_of(L, L->x_slot, 0, outs), *W = ir_in(L->n, 1)->data,
                *R = ir_in(L->n, 2)->data, *B = ir_in(L->n, 3) ? ir_in(L->n, 3)->data : NULL;
    const float *h0 = buf_of(L, L->h_slot, 5, outs);
    const float *c0 = p->cell == LSTMC_RT_CELL_LSTM ? buf_of(L, L->c_slot, 6, outs) : NULL;
    const float *P = p->cell == LSTMC_RT_CELL_LSTM && ir_in(L->n, 7) ? ir_in(L->n, 7)->data : NULL;
    lstmc_rt_rnn_params p1 = *p;
    float *x1, *h, *c, *hn, *cn, *scratch;
    int64_t k, n, j, i;
    int32_t d;

    for (k = 0; k < T * N * I; k++) {
        L->r->x_min = fminf(L->r->x_min, X[k]);
        L->r->x_max = fmaxf(L->r->x_max, X[k]);
    }
    p1.seq_len = 1;
    p1.layout = 0;
    p1.n_dirs = 1;
    p1.reverse = 0;
    x1 = arena_alloc(s, (size_t)(N * I) * sizeof(float));
    h = arena_alloc(s, (size_t)(N * H) * sizeof(float));
    c = arena_alloc(s, (size_t)(N * H) * sizeof(float));
    hn = arena_alloc(s, (size_t)(N * H) * sizeof(float));
    cn = arena_alloc(s, (size_t)(N * H) * sizeof(float));
    scratch = arena_alloc(s, (size_t)lstmc_rt_rnn_scratch(&p1) * sizeof(float) + 64);
    for (d = 0; d < p->n_dirs; d++) {
        const int rev = p->n_dirs == 2 ? d : p->reverse;
        for (i = 0; i < na; i++)
            p1.act[i] = p->act[d * na + i];
        for (n = 0; n < N; n++) {
            const int64_t at = lstmc_rt_state_at(p, d, n);
            for (j = 0; j < H; j++) {
                h[n * H + j] = h0 ? h0[at + j] : 0.0f;
                c[n * H + j] = c0 ? c0[at + j] : 0.0f;
            }
        }
        for (k = 0; k < T; k++) {
            const int64_t t = rev ? T - 1 - k : k;
            for (n = 0; n < N; n++)
                memcpy(x1 + n * I, X + lstmc_rt_row_at(p, t, n) * I, (size_t)I * sizeof(float));
            if (lstmc_rt_rnn(&p1, x1, W + (int64_t)d * G * H * I, R + (int64_t)d * G * H * H,
                             B ? B + (int64_t)d * 2 * G * H : NULL, NULL, h, c,
                             P ? P + (int64_t)d * 3 * H : NULL, NULL, hn, cn,
                             scratch) != LSTMC_RT_OK)
                return -1;
            for (j = 0; j < N * H; j++) {
                L->r->h_absmax = fmaxf(L->r->h_absmax, fabsf(hn[j]));
                if (p->cell == LSTMC_RT_CELL_LSTM)
                    L->r->c_absmax = fmaxf(L->r->c_absmax, fabsf(cn[j]));
            }
            memcpy(h, hn, (size_t)(N * H) * sizeof(float));
            memcpy(c, cn, (size_t)(N * H) * sizeof(float));
        }
    }
    return 0;
}

int
driver_qranges(arena *a, const ir_graph *g0, const driver_options *o, pass_qrange **out, int *n_out,
               diag *d)
{
    driver_options o2 = *o;
    ir_graph *g = ir_clone(a, g0);
    lstmc_npy_info info;
    char err[256];
    qlayer *L;
    int nl = 0, i;
    int64_t K, k, sample_bytes;
    unsigned char *buf;

    *out = NULL;
    *n_out = 0;
    if (!o->calib_data)
        return 0;
    if (g->n_inputs != 1) {
        diag_error(d, "--calib-data handles models with one input; this one has %d", g->n_inputs);
        return -1;
    }
    if (lstmc_npy_info_read(o->calib_data, &info, err, sizeof err) != 0) {
        diag_error(d, "--calib-data %s: %s", o->calib_data, err);
        return -1;
    }
    if (info.rank < 2 || info.dims[0] < 1 || info.dtype != (int32_t)g->inputs[0]->dtype) {
        diag_error(d,
                   "--calib-data %s: expected samples of the input's dtype (%s) stacked on a "
                   "leading axis ([K, ...input shape], or [K, ...] without the batch axis)",
                   o->calib_data, ir_dtype_name(g->inputs[0]->dtype));
        return -1;
    }
    K = info.dims[0];
    if (driver_bind_samples(g, &o2, &info, o->calib_data, d) < 0 || driver_prepare(g, &o2, d) < 0)
        return -1;
    L = arena_calloc(a, (size_t)g->n_nodes + 1, sizeof *L);
    *out = arena_calloc(a, (size_t)g->n_nodes + 1, sizeof **out);
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        qlayer *l = &L[nl];
        kprog kp1;
        if (n->dead || (n->op != IR_OP_LSTM && n->op != IR_OP_GRU && n->op != IR_OP_RNN))
            continue;
        if (!ir_in(n, 1)->data || !ir_in(n, 2)->data || (ir_in(n, 3) && !ir_in(n, 3)->data) ||
            (n->op == IR_OP_LSTM && ir_in(n, 7) && !ir_in(n, 7)->data)) {
            diag_node(d, n, "--activations needs constant W, R, B and P");
            return -1;
        }
        memset(&kp1, 0, sizeof kp1);
        if (kp_lower_node(a, &kp1, n, d) < 0 || kp1.n_calls != 1)
            return -1;
        l->n = n;
        l->p = kp1.calls[0].p.rnn;
        l->x_slot = slot_of(g, ir_in(n, 0));
        l->h_slot = slot_of(g, ir_in(n, 5));
        l->c_slot = n->op == IR_OP_LSTM ? slot_of(g, ir_in(n, 6)) : -1;
        l->r = &(*out)[nl];
        l->r->node = n->name;
        l->r->x_min = INFINITY;
        l->r->x_max = -INFINITY;
        nl++;
    }
    sample_bytes = (int64_t)info.n_bytes / K;
    buf = malloc(info.n_bytes ? info.n_bytes : 1);
    if (!buf) {
        diag_error(d, "--calib-data %s: out of memory (%zu bytes)", o->calib_data, info.n_bytes);
        return -1;
    }
    if (lstmc_npy_read_data(o->calib_data, &info, buf, info.n_bytes, err, sizeof err) != 0) {
        diag_error(d, "--calib-data %s: %s", o->calib_data, err);
        free(buf);
        return -1;
    }
    for (k = 0; k < K; k++) {
        arena *s = arena_new(0);
        const void *in[1] = {buf + k * sample_bytes};
        void **outs = arena_calloc(s, (size_t)g->n_outputs + 1, sizeof *outs);
        int bad = ir_eval(s, g, in, outs, d) < 0;
        for (i = 0; !bad && i < nl; i++)
            if (replay(s, &L[i], outs) < 0) {
                diag_node(d, L[i].n,
                          "the float replay of the layer on the calibration samples "
                          "failed");
                bad = 1;
            }
        arena_free(s);
        if (bad) {
            free(buf);
            return -1;
        }
    }
    free(buf);
    for (i = 0; i < nl; i++)
        if (!(L[i].r->x_min <= L[i].r->x_max) || !isfinite(L[i].r->x_min) ||
            !isfinite(L[i].r->x_max) || !isfinite(L[i].r->h_absmax) ||
            !isfinite(L[i].r->c_absmax)) {
            diag_node(d, L[i].n, "--calib-data %s: the layer's activations are not finite",
                      o->calib_data);
            return -1;
        }
    *n_out = nl;
    return 0;
}
