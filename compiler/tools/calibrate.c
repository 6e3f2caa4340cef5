/*
 * calibrate.c — `lstmc calibrate`, the measuring half (contract in calibrate.h): runs the
 * exact model over the calibration samples and writes the CALIB file (calib.h reads it).
 */
#include "calibrate.h"

#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "ir_eval.h"
#include "kprog.h"
#include "lstmc_rt_kernels.h"
#include "lstmc_rt_npy.h"
#include "passes.h"
#include "target.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One LSTM layer being calibrated. */
typedef struct cal_layer {
    ir_node *n;
    lstmc_rt_rnn_params p; /* as lowered */
    int64_t T, N, H, D;
    int slot[7];         /* graph output slot of rec input i, -1: constant data or absent */
    int y_slot;          /* graph output slot of Y */
    double *hsum, *csum; /* [D, H] */
    int64_t cells;       /* per direction */
    double max_dh;       /* max |h of the one-step run - Y| */
    const float *dsum;   /* row_abs_sum [D, 4H] (fold_constants), or NULL */
    float *S;            /* relevance of every link seen (Algorithm 2), for percentiles */
    int64_t nS, capS;
    /* the calibrated bound (--relevance=calibrated): u = U_r h_{t-1} of every gate row r of
     * every link, its mean over all of them, and a reservoir of links (u and the link's P
     * row, rdir its direction) for the quantile of |u - mean| and the calibrated S */
    double *usum;    /* [D, 4H] */
    int64_t links;   /* per direction summed: links seen */
    int64_t *ulinks; /* [D]: links seen per direction */
    float *ru, *rx;  /* [cap, 4H] each */
    int32_t *rdir;   /* [cap] */
    int64_t nres, cap;
    uint64_t rng;
    float *um, *ur; /* [D, 4H], at the end */
    float *Sc, *Ss; /* calibrated and sensitivity S of the reservoir's links, sorted */
} cal_layer;

/* The quantile of |U_r h - mean| that bounds U h in --relevance=calibrated (calib.h). */
#define CAL_QUANTILE 0.99
/* Links kept for the quantile per layer: all of them up to this many floats of u and P rows */
#define CAL_RES_FLOATS (1 << 23)

/* A link's u and P row into the reservoir (Algorithm R, a fixed LCG: every run the same). */
static void
res_add(cal_layer *L, int dir, const float *u, const float *x)
{
    const int64_t G = 4 * L->H, seen = L->links;
    int64_t slot = -1;
    if (L->nres < L->cap) {
        slot = L->nres++;
    } else {
        L->rng = L->rng * 6364136223846793005ULL + 1442695040888963407ULL;
        slot = (int64_t)((L->rng >> 11) % (uint64_t)(seen + 1));
        if (slot >= L->cap)
            slot = -1;
    }
    if (slot >= 0) {
        memcpy(L->ru + slot * G, u, (size_t)G * sizeof(float));
        memcpy(L->rx + slot * G, x, (size_t)G * sizeof(float));
        L->rdir[slot] = dir;
    }
    L->links++;
}

static int
cmp_f(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static int
add_output(ir_graph *g, ir_tensor *t)
{
    ir_graph_add_output(g, t);
    return g->n_outputs - 1;
}

/* The buffer of rec input i for this sample. */
static const float *
rec_in(const cal_layer *L, int i, void **outs)
{
    const ir_tensor *t = ir_in(L->n, i);
    if (!t)
        return NULL;
    if (L->slot[i] >= 0)
        return outs[L->slot[i]];
    return t->data;
}

/* The calibrated bound of layer L from what the samples left: um the mean of u per gate
 * row and direction, ur the CAL_QUANTILE quantile of |u - um| over the reservoir's links of
 * that direction (sorted, the element at floor(q (n - 1)): numpy's method 'lower'), and the
 * calibrated S of every reservoir link. Returns 0 or -1 (memory). */
static int
cal_bound(arena *a, cal_layer *L)
{
    const int64_t G = 4 * L->H, D = L->D;
    float *dev = arena_alloc(a, (size_t)(L->nres > G ? L->nres : G) * sizeof(float));
    int64_t dd, q, i;

    L->um = arena_calloc(a, (size_t)(D * G), sizeof(float));
    L->ur = arena_calloc(a, (size_t)(D * G), sizeof(float));
    L->Sc = arena_alloc(a, (size_t)(L->nres ? L->nres : 1) * sizeof(float));
    L->Ss = arena_alloc(a, (size_t)(L->nres ? L->nres : 1) * sizeof(float));
    if (!dev || !L->um || !L->ur || !L->Sc || !L->Ss)
        return -1;
    for (dd = 0; dd < D; dd++)
        for (q = 0; q < G; q++) {
            int64_t n = 0;
            if (L->ulinks[dd] == 0)
                continue;
            L->um[dd * G + q] = (float)(L->usum[dd * G + q] / (double)L->ulinks[dd]);
            for (i = 0; i < L->nres; i++)
                if (L->rdir[i] == dd)
                    dev[n++] = fabsf(L->ru[i * G + q] - L->um[dd * G + q]);
            if (n == 0)
                continue;
            qsort(dev, (size_t)n, sizeof *dev, cmp_f);
            L->ur[dd * G + q] = dev[(int64_t)(CAL_QUANTILE * (double)(n - 1))];
        }
    for (dd = 0; dd < D; dd++) { /* the sensitivity's radii, as breakpoints.c stores them */
        memcpy(dev, L->ur + dd * G, (size_t)G * sizeof(float));
        lstmc_rt_lstm_sensitivity_scale(L->H, dev);
        for (i = 0; i < L->nres; i++)
            if (L->rdir[i] == dd)
                L->Ss[i] = lstmc_rt_lstm_sensitivity(L->H, L->rx + i * G, dev, L->um + dd * G);
    }
    for (i = 0; i < L->nres; i++)
        L->Sc[i] = lstmc_rt_lstm_relevance_shifted(L->H, L->rx + i * G, L->ur + L->rdir[i] * G,
                                                   L->um + L->rdir[i] * G);
    qsort(L->Sc, (size_t)L->nres, sizeof *L->Sc, cmp_f);
    qsort(L->Ss, (size_t)L->nres, sizeof *L->Ss, cmp_f);
    return 0;
}

/* " p0=.. p1=.." of the sorted v[n] */
static void
put_percentiles(const float *v, int64_t n)
{
    static const int pc[] = {0, 1, 5, 10, 25, 50, 75, 90, 99, 100};
    size_t q;
    for (q = 0; q < sizeof pc / sizeof pc[0]; q++)
        fprintf(stderr, " p%d=%.4g", pc[q],
                (double)v[(size_t)((double)pc[q] / 100.0 * (double)(n - 1))]);
    fputc('\n', stderr);
}

/* Accumulate one sample of layer L. Returns 0 or -1. */
static int
cal_sample(arena *a, cal_layer *L, void **outs, diag *d)
{
    const int64_t T = L->T, N = L->N, H = L->H, D = L->D, G = 4 * H;
    const int lay = L->p.layout;
    const float *Y = outs[L->y_slot], *P = rec_in(L, 0, outs), *r = rec_in(L, 1, outs),
                *rb = rec_in(L, 2, outs), *ih = rec_in(L, 4, outs), *ic = rec_in(L, 5, outs),
                *peep = rec_in(L, 6, outs);
    lstmc_rt_rnn_params p1 = L->p;
    float *P1 = arena_alloc(a, (size_t)(D * N * G) * sizeof(float));
    float *h0 = arena_calloc(a, (size_t)(D * N * H), sizeof(float));
    float *c0 = arena_calloc(a, (size_t)(D * N * H), sizeof(float));
    float *h1 = arena_alloc(a, (size_t)(D * N * H) * sizeof(float));
    float *c1 = arena_alloc(a, (size_t)(D * N * H) * sizeof(float));
    float *scratch;
    int64_t k, dd, n, j, t;

    /* h from Y, every cell */
    for (t = 0; t < T; t++)
        for (dd = 0; dd < D; dd++)
            for (n = 0; n < N; n++) {
                const float *y =
                    lay ? Y + ((n * T + t) * D + dd) * H : Y + ((t * D + dd) * N + n) * H;
                for (j = 0; j < H; j++)
                    L->hsum[dd * H + j] += y[j];
            }
    /* relevance S of every link (steps 1..T-1), to help choose alpha_inter */
    if (L->dsum)
        for (dd = 0; dd < D; dd++)
            for (n = 0; n < N; n++)
                for (k = 1; k < T; k++) {
                    int rev = D == 2 ? dd == 1 : L->p.reverse;
                    int64_t row;
                    t = rev ? T - 1 - k : k;
                    row = lay ? n * T + t : t * N + n;
                    if (L->nS == L->capS) {
                        float *ns = realloc(L->S, (size_t)(L->capS * 2 + 1024) * sizeof(float));
                        if (!ns)
                            return -1;
                        L->S = ns;
                        L->capS = L->capS * 2 + 1024;
                    }
                    L->S[L->nS++] =
                        lstmc_rt_lstm_relevance(H, P + (dd * T * N + row) * G, L->dsum + dd * G);
                }
    /* u = U h_{t-1} of every link (steps 1..T-1), for the calibrated bound */
    if (L->ru) {
        float *u = arena_alloc(a, (size_t)G * sizeof(float));
        double *acc = arena_alloc(a, (size_t)G * sizeof(double));
        for (dd = 0; dd < D; dd++)
            for (n = 0; n < N; n++)
                for (k = 1; k < T; k++) {
                    int rev = D == 2 ? dd == 1 : L->p.reverse;
                    const int64_t t1 = rev ? T - 1 - k : k, t0 = rev ? t1 + 1 : t1 - 1;
                    const float *hp =
                        lay ? Y + ((n * T + t0) * D + dd) * H : Y + ((t0 * D + dd) * N + n) * H;
                    const int64_t row = lay ? n * T + t1 : t1 * N + n;
                    int64_t q;
                    memset(acc, 0, (size_t)G * sizeof *acc);
                    if (L->p.packed) /* Ut [D, H, 4H]: row j of it times h_j, contiguous */
                        for (j = 0; j < H; j++) {
                            const float *rj = r + (dd * H + j) * G;
                            for (q = 0; q < G; q++)
                                acc[q] += (double)rj[q] * (double)hp[j];
                        }
                    else /* U [D, 4H, H] */
                        for (q = 0; q < G; q++)
                            for (j = 0; j < H; j++)
                                acc[q] += (double)r[(dd * G + q) * H + j] * (double)hp[j];
                    for (q = 0; q < G; q++) {
                        u[q] = (float)acc[q];
                        L->usum[dd * G + q] += acc[q];
                    }
                    L->ulinks[dd]++;
                    res_add(L, (int)dd, u, P + (dd * T * N + row) * G);
                }
    }
    /* c: the same time loop one step at a time; Y_c of each step is c_t */
    p1.seq_len = 1;
    p1.layout = 0;
    scratch = arena_alloc(a, (size_t)lstmc_rt_rnn_scratch(&p1) * sizeof(float) + 64);
    for (dd = 0; dd < D; dd++)
        for (n = 0; n < N; n++) {
            size_t src = lay ? (size_t)((n * D + dd) * H) : (size_t)((dd * N + n) * H);
            if (ih)
                memcpy(h0 + (dd * N + n) * H, ih + src, (size_t)H * sizeof(float));
            if (ic)
                memcpy(c0 + (dd * N + n) * H, ic + src, (size_t)H * sizeof(float));
        }
    for (k = 0; k < T; k++) {
        lstmc_rt_status st;
        for (dd = 0; dd < D; dd++) {
            int rev = D == 2 ? dd == 1 : L->p.reverse;
            t = rev ? T - 1 - k : k;
            for (n = 0; n < N; n++) {
                int64_t row = lay ? n * T + t : t * N + n;
                memcpy(P1 + (dd * N + n) * G, P + (dd * T * N + row) * G,
                       (size_t)G * sizeof(float));
            }
        }
        st = lstmc_rt_rnn_rec(&p1, P1, r, rb, NULL, h0, c0, peep, NULL, h1, c1, scratch);
        if (st != LSTMC_RT_OK)
            return -1;
        for (dd = 0; dd < D; dd++) {
            int rev = D == 2 ? dd == 1 : L->p.reverse;
            t = rev ? T - 1 - k : k;
            for (n = 0; n < N; n++) {
                const float *y =
                    lay ? Y + ((n * T + t) * D + dd) * H : Y + ((t * D + dd) * N + n) * H;
                for (j = 0; j < H; j++) {
                    double e = fabs((double)h1[(dd * N + n) * H + j] - y[j]);
                    if (e > L->max_dh)
                        L->max_dh = e;
                    L->csum[dd * H + j] += c1[(dd * N + n) * H + j];
                }
            }
        }
        memcpy(h0, h1, (size_t)(D * N * H) * sizeof(float));
        memcpy(c0, c1, (size_t)(D * N * H) * sizeof(float));
    }
    L->cells += T * N;
    (void)d;
    return 0;
}

int
calibrate_run(arena *a, const driver_options *o, const char *data, const char *out, diag *d)
{
    calib_summary s;
    return calibrate_run_summary(a, o, data, out, &s, d);
}

int
calibrate_run_summary(arena *a, const driver_options *o, const char *data, const char *out,
                      calib_summary *sum, diag *d)
{
    driver_options o2 = *o;
    const target *t = target_resolve(o->target, d);
    lstmc_npy_info info;
    char err[256];
    ir_graph *g;
    pass_ctx cx;
    cal_layer *L;
    int nl = 0, i, j, n_out0;
    int64_t K, k, sample_bytes;
    unsigned char *buf;
    FILE *f;

    if (!t) {
        if (!diag_count(d))
            diag_error(d, "unknown target '%s'", o->target);
        return -1;
    }
    g = driver_import(a, o->model, d);
    if (!g)
        return -1;
    if (g->n_inputs != 1) {
        diag_error(d, "calibrate handles models with one input; this one has %d", g->n_inputs);
        return -1;
    }
    if (lstmc_npy_info_read(data, &info, err, sizeof err) != 0) {
        diag_error(d, "--data %s: %s", data, err);
        return -1;
    }
    if (info.rank < 2 || info.dims[0] < 1) {
        diag_error(d,
                   "--data %s: expected K samples stacked on a leading axis "
                   "([K, ...input shape], or [K, ...] without the batch axis), got rank %d",
                   data, (int)info.rank);
        return -1;
    }
    K = info.dims[0];
    if (driver_bind_samples(g, &o2, &info, data, d) < 0 || driver_prepare(g, &o2, d) < 0)
        return -1;
    memset(&cx, 0, sizeof cx);
    cx.t = t;
    cx.disable = o->disable;
    cx.n_disable = o->n_disable;
    if (pass_run_list(g, o->passes ? o->passes : t->passes, &cx, d) < 0)
        return -1;

    /* the LSTM layers, their inputs and Y made graph outputs */
    L = arena_calloc(a, (size_t)g->n_nodes + 1, sizeof *L);
    n_out0 = g->n_outputs;
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        cal_layer *l = &L[nl];
        kprog kp1;
        if (n->dead || n->op != IR_OP_RNN_REC || ir_attr_int(n, "cell", -1) != 0)
            continue;
        memset(&kp1, 0, sizeof kp1);
        if (kp_lower_node(a, &kp1, n, d) < 0 || kp1.n_calls != 1)
            return -1;
        l->n = n;
        l->p = kp1.calls[0].p.rnn;
        l->T = l->p.seq_len;
        l->N = l->p.batch;
        l->H = l->p.hidden;
        l->D = l->p.n_dirs;
        if (ir_in(n, 3)) {
            diag_node(d, n, "calibrate does not handle sequence_lens (the layer has one)");
            return -1;
        }
        for (j = 0; j < 7; j++) {
            ir_tensor *x = ir_in(n, j);
            l->slot[j] = x && !x->data ? add_output(g, x) : -1;
        }
        if (!ir_out(n, 0)) {
            ir_shape s = {0};
            s.rank = 4;
            s.d[0] = l->p.layout ? l->N : l->T;
            s.d[1] = l->p.layout ? l->T : l->D;
            s.d[2] = l->p.layout ? l->D : l->N;
            s.d[3] = l->H;
            ir_node_set_output(n, 0, ir_tensor_tmp(g, "calib_Y", IR_DT_F32, &s));
        }
        l->y_slot = add_output(g, ir_out(n, 0));
        {
            const ir_attr *rs = ir_attr_get(n, "row_abs_sum");
            l->dsum = rs && rs->kind == IR_ATTR_TENSOR && rs->t && rs->t->data &&
                              ir_shape_numel(&rs->t->shape) == l->D * 4 * l->H
                          ? rs->t->data
                          : NULL;
        }
        l->hsum = arena_calloc(a, (size_t)(l->D * l->H), sizeof(double));
        l->csum = arena_calloc(a, (size_t)(l->D * l->H), sizeof(double));
        if (ir_in(n, 1) && ir_in(n, 1)->data) { /* U constant: the calibrated bound */
            const int64_t G = 4 * l->H;
            l->cap = CAL_RES_FLOATS / (2 * G) < 8192 ? CAL_RES_FLOATS / (2 * G) : 8192;
            if (l->cap < 64)
                l->cap = 64;
            l->usum = arena_calloc(a, (size_t)(l->D * G), sizeof(double));
            l->ulinks = arena_calloc(a, (size_t)l->D, sizeof(int64_t));
            l->ru = arena_alloc(a, (size_t)(l->cap * G) * sizeof(float));
            l->rx = arena_alloc(a, (size_t)(l->cap * G) * sizeof(float));
            l->rdir = arena_alloc(a, (size_t)l->cap * sizeof(int32_t));
            l->rng = 0x9e3779b97f4a7c15ULL;
            if (!l->usum || !l->ulinks || !l->ru || !l->rx || !l->rdir) {
                diag_error(d, "calibrate: out of memory");
                return -1;
            }
        }
        nl++;
    }
    if (nl == 0) {
        diag_error(d, "no LSTM layer (lstmc.RnnRec) after the passes '%s': nothing to calibrate",
                   o->passes ? o->passes : t->passes);
        return -1;
    }
    (void)n_out0;

    /* every sample */
    sample_bytes = (int64_t)info.n_bytes / K;
    buf = malloc(info.n_bytes ? info.n_bytes : 1);
    if (!buf) {
        diag_error(d, "--data %s: out of memory (%zu bytes)", data, info.n_bytes);
        return -1;
    }
    if (lstmc_npy_read_data(data, &info, buf, info.n_bytes, err, sizeof err) != 0) {
        diag_error(d, "--data %s: %s", data, err);
        free(buf);
        return -1;
    }
    for (k = 0; k < K; k++) {
        arena *s = arena_new(0);
        const void *in[1];
        void **outs = arena_calloc(s, (size_t)g->n_outputs + 1, sizeof *outs);
        int bad = 0;
        in[0] = buf + k * sample_bytes;
        if (ir_eval(s, g, in, outs, d) < 0)
            bad = 1;
        for (i = 0; !bad && i < nl; i++)
            if (cal_sample(s, &L[i], outs, d) < 0) {
                diag_node(d, L[i].n, "the one-step replay of the layer failed");
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
        if (L[i].ru && cal_bound(a, &L[i]) < 0) {
            diag_error(d, "calibrate: out of memory");
            return -1;
        }
    f = fopen(out, "w");
    if (!f) {
        diag_error(d, "cannot write %s: %s", out, strerror(errno));
        return -1;
    }
    fprintf(f,
            "%s\n# model %s, %lld samples from %s; per-element means of h_t and c_t over "
            "every cell (MICRO'18 Eq. 6); um, ur: per gate row the mean of U h_{t-1} and the "
            "%g quantile of its deviation from it\n",
            CALIB_MAGIC, o->model, (long long)K, data, CAL_QUANTILE);
    for (i = 0; i < nl; i++) {
        cal_layer *l = &L[i];
        int64_t dd;
        char label[480];
        ir_node_label(l->n, label, sizeof label);
        if (l->max_dh > 1e-4)
            fprintf(stderr, "lstmc: warning: %s: the one-step replay differs from Y by %g\n", label,
                    l->max_dh);
        fprintf(f, "layer %lld %lld %lld %s\n", (long long)l->D, (long long)l->H,
                (long long)l->cells, l->n->name);
        for (dd = 0; dd < l->D; dd++) {
            int w;
            for (w = 0; w < 2; w++) {
                const double *s = w ? l->csum : l->hsum;
                fprintf(f, "%c %lld", w ? 'c' : 'h', (long long)dd);
                for (j = 0; j < l->H; j++)
                    fprintf(f, " %.9g", (double)(float)(s[dd * l->H + j] / (double)l->cells));
                fputc('\n', f);
            }
        }
        for (dd = 0; l->um && dd < l->D; dd++) {
            int w;
            for (w = 0; w < 2; w++) {
                const float *v = (w ? l->ur : l->um) + dd * 4 * l->H;
                fprintf(f, "u%c %lld", w ? 'r' : 'm', (long long)dd);
                for (j = 0; j < 4 * l->H; j++)
                    fprintf(f, " %.9g", (double)v[j]);
                fputc('\n', f);
            }
        }
        fprintf(stderr, "lstmc: calibrated %s: %lld directions, hidden %lld, %lld cells\n", label,
                (long long)l->D, (long long)l->H, (long long)l->cells);
        if (l->nS > 0) {
            qsort(l->S, (size_t)l->nS, sizeof *l->S, cmp_f);
            fprintf(stderr,
                    "lstmc:   relevance S of its %lld links (Algorithm 2, bound), "
                    "percentiles:",
                    (long long)l->nS);
            put_percentiles(l->S, l->nS);
        }
        if (l->nres > 0) {
            fprintf(stderr, "lstmc:   relevance S (calibrated) of %lld of its links, percentiles:",
                    (long long)l->nres);
            put_percentiles(l->Sc, l->nres);
            fprintf(stderr, "lstmc:   relevance S (sensitivity) of %lld of its links, percentiles:",
                    (long long)l->nres);
            put_percentiles(l->Ss, l->nres);
        }
    }
    memset(sum, 0, sizeof *sum);
    sum->n_layers = nl;
    sum->seq_len = L[0].T;
    sum->hidden = L[0].H;
    for (i = 0; i < nl; i++)
        if (L[i].H < sum->hidden)
            sum->hidden = L[i].H;
    for (k = 0; k < 3; k++) { /* bound, calibrated, sensitivity */
        size_t tot = 0, at = 0;
        float *all;
        for (i = 0; i < nl; i++)
            tot += (size_t)(k ? L[i].nres : L[i].nS);
        all = tot ? malloc(tot * sizeof *all) : NULL;
        if (!all)
            continue;
        for (i = 0; i < nl; i++) {
            const int64_t m = k ? L[i].nres : L[i].nS;
            memcpy(all + at, k == 0 ? L[i].S : k == 1 ? L[i].Sc : L[i].Ss, (size_t)m * sizeof *all);
            at += (size_t)m;
        }
        qsort(all, tot, sizeof *all, cmp_f);
        for (j = 0; j <= 100; j++)
            sum->s_pct_rel[k][j] = all[(size_t)((double)j / 100.0 * (double)(tot - 1))];
        sum->s_max_rel[k] = all[tot - 1];
        sum->has_cal |= k > 0;
        free(all);
    }
    for (i = 0; i < nl; i++)
        free(L[i].S);
    if (ferror(f) | (fclose(f) != 0)) {
        diag_error(d, "writing %s failed", out);
        return -1;
    }
    return 0;
}
