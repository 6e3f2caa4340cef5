/*
 * search.c — the search of `lstmc tune` (contract in tune.h; MICRO'18 §IV-D, §VI-C): the
 * threshold ranges, the 11 sets, AO and BPA, and writing TUNED; the builds and the harness
 * runs it measures with are in build.c, the table and the plot in report.c.
 *
 * Speed is measured on the real generated code: the model is compiled twice into a work
 * folder — the exact schedule (the target's default passes, LLVM kernels) and the
 * approximate one (breakpoints + tissues with the calibrated context link, thresholds set
 * per run) — each is built with make and cc together with compiler/tools/tune/harness.c (embedded
 * in lstmc), and the harness runs the samples and writes every output back as .npy, which is scored
 * here. For a target that is not this machine both are compiled with --emit=c for the host
 * (accuracy and tissue counts do not depend on the CPU) and the speed-up is the memory model's
 * estimate, T reads of U per layer against one per tissue, labelled as such.
 */
#include "arena.h"
#include "calibrate.h"
#include "cliopt.h"
#include "diag.h"
#include "driver.h"
#include "lstmc_rt.h"
#include "lstmc_rt_npy.h"
#include "outdir.h"
#include "proc.h"
#include "target.h"
#include "tune_impl.h"
#include "tuned.h"
#include "wfmt.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- choosing --------------------------------------------------------------------------- */

void
tune_pick(const tune_point *p, int n, double pref, int *ao, int *bpa)
{
    double best_s = 1.0, best_sa = 1.0;
    int i;
    *ao = -1;
    *bpa = -1;
    for (i = 0; i < n; i++) {
        if (p[i].norm_acc >= pref && p[i].speedup > best_s) {
            best_s = p[i].speedup;
            *ao = i;
        }
        if (p[i].speedup * p[i].norm_acc > best_sa) {
            best_sa = p[i].speedup * p[i].norm_acc;
            *bpa = i;
        }
    }
}

long long
tune_n_min(long long n_origin, int mts)
{
    if (mts < 1)
        mts = 1;
    return (n_origin + mts - 1) / mts;
}
static int64_t
argmax(const float *v, int64_t n)
{
    int64_t j, best = 0;
    for (j = 1; j < n; j++)
        if (v[j] > v[best])
            best = j;
    return best;
}

/* Accuracy of y (count samples from first) against the labels, or against the exact
 * outputs y0 when there are no labels. */
static double
score(const tune_run *r, const float *y, const float *y0, int64_t first, int64_t count)
{
    int64_t k, p, pos = r->numel / r->C, hit = 0;
    double acc = 0;
    if (r->top1) {
        for (k = 0; k < count; k++)
            for (p = 0; p < pos; p++) {
                const float *v = y + (k * pos + p) * r->C;
                int64_t want = r->labels ? r->labels[(first + k) * pos + p]
                                         : argmax(y0 + (k * pos + p) * r->C, r->C);
                hit += argmax(v, r->C) == want;
            }
        return (double)hit / (double)(count * pos);
    }
    for (k = 0; k < count; k++) {
        double e = 0, n = 0;
        for (p = 0; p < r->numel; p++) {
            double a = y[k * r->numel + p], b = y0[k * r->numel + p];
            e += (a - b) * (a - b);
            n += b * b;
        }
        acc += n > 0 ? fmax(0.0, 1.0 - sqrt(e / n)) : (e == 0);
    }
    return acc / (double)count;
}

/* Mean tissues per layer and the fraction of rows skipped at (alpha_inter, alpha_intra),
 * over the first probe samples. */
static int
probe2(tune_run *r, double alpha_inter, double alpha_intra, double *tissues, double *skipped)
{
    double pair[2] = {alpha_inter, alpha_intra};
    int64_t n = r->n_tune < 32 ? r->n_tune : 32;
    hres h;
    float *o = NULL;
    int rc = tune_harness(r, "approx", 0, n, 1, pair, 1, &h, &o);
    free(o);
    *tissues = h.tissues;
    *skipped = h.skipped;
    return rc;
}

static int
probe(tune_run *r, double alpha, double *tissues)
{
    double skipped;
    return probe2(r, alpha, 0, tissues, &skipped);
}

/* The alpha_intra upper limit: the smallest alpha_intra (in [0, 1]: o_t is a sigmoid) at
 * which dynamic row skip skips half of the rows of U_f,i,c, the compression the paper reports
 * on average (50.35 %, §VI-B); 0 when no layer has dynamic row skip. */
static int
intra_limit(tune_run *r, double *limit)
{
    double lo = 0, hi = 1, tis, sk;
    int i;
    *limit = 0;
    if (probe2(r, 0, 1, &tis, &sk) < 0)
        return -1;
    if (sk <= 0)
        return 0; /* no DRS layer (GRU / RNN, output-gate peepholes) */
    if (sk < 0.5) {
        *limit = 1;
        return 0;
    }
    for (i = 0; i < 10; i++) {
        double mid = 0.5 * (lo + hi);
        if (tune_stopped(r) || probe2(r, 0, mid, &tis, &sk) < 0)
            return -1;
        fprintf(stderr,
                "lstmc: tune: alpha_intra limit search %2d/10: alpha %-8.4g %.1f %% of "
                "rows skipped\n",
                i + 1, mid, 100 * sk);
        if (sk >= 0.5)
            hi = mid;
        else
            lo = mid;
    }
    *limit = hi;
    return 0;
}

/* The alpha_inter upper limit (§IV-D step 2): the smallest alpha at which the mean tissue
 * count per layer reaches N_min (within 2 %). */
static int
inter_limit(tune_run *r, double s_max, long long n_min, double *limit)
{
    double lo = 0, hi = s_max > 0 ? s_max * 1.01 : 1, tis, goal = (double)n_min * 1.02 + 1e-9;
    int i;
    if (probe(r, 0, &tis) < 0)
        return -1;
    fprintf(stderr, "lstmc: tune: alpha_inter 0: %.2f tissues per layer (N_min %lld)\n", tis,
            n_min);
    if (tis <= goal) {
        *limit = 0;
        return 0;
    }
    for (i = 0;; i++) {
        if (tune_stopped(r) || probe(r, hi, &tis) < 0)
            return -1;
        if (tis <= goal)
            break;
        if (i == 6) {
            fprintf(stderr,
                    "lstmc: tune: warning: even alpha_inter %g leaves %.2f tissues per "
                    "layer, above N_min %lld; using it as the limit\n",
                    hi, tis, n_min);
            *limit = hi;
            return 0;
        }
        hi *= 10;
    }
    for (i = 0; i < 12; i++) {
        double mid = 0.5 * (lo + hi);
        if (tune_stopped(r) || probe(r, mid, &tis) < 0)
            return -1;
        fprintf(stderr,
                "lstmc: tune: alpha_inter limit search %2d/12: alpha %-10.4g %.2f "
                "tissues per layer\n",
                i + 1, mid, tis);
        if (tis <= goal)
            hi = mid;
        else
            lo = mid;
    }
    *limit = hi;
    return 0;
}

/*
 * alpha_inter of set i. The relevance S of an LSTM's links is far from uniform (on the
 * trained HAR model 99 % of it lies between 504 and 512 = 16 H, its ceiling), so equal steps
 * of alpha would jump from no cut link to all of them. The steps are equal in the share of
 * the calibration links they cut instead: set i cuts i/10 of the links below the limit.
 */
static double
inter_set(const calib_summary *cs, int rel, double limit, int i)
{
    const float *pct = cs->s_pct_rel[rel]; /* the S the library computes */
    double below = 0, f, q;
    int j;
    if (i == 0)
        return 0;
    if (i == TUNE_SETS - 1)
        return limit;
    for (j = 0; j <= 100 && pct[j] < limit; j++)
        below = j;                   /* percent of the links with S below the limit, to 1 % */
    f = below * i / (TUNE_SETS - 1); /* the percentile to cut up to */
    j = (int)f;
    q = j < 100 ? pct[j] + (f - j) * (pct[j + 1] - pct[j]) : pct[100];
    return q < limit ? q : limit;
}
/* --- main ------------------------------------------------------------------------------- */

static int
load_labels(tune_run *r)
{
    lstmc_npy_info li;
    char err[256];
    void *buf;
    int64_t pos = r->numel / r->C, i;
    if (lstmc_npy_info_read(r->t->labels, &li, err, sizeof err) != 0) {
        diag_error(r->d, "--labels %s: %s", r->t->labels, err);
        return -1;
    }
    if ((li.dtype != LSTMC_RT_I64 && li.dtype != LSTMC_RT_I32) || li.n_elems != r->K * pos) {
        diag_error(r->d,
                   "--labels %s: expected %lld int64 or int32 labels (%lld samples x %lld "
                   "positions of output 0), got %lld elements",
                   r->t->labels, (long long)(r->K * pos), (long long)r->K, (long long)pos,
                   (long long)li.n_elems);
        return -1;
    }
    buf = malloc(li.n_bytes ? li.n_bytes : 1);
    r->labels = malloc((size_t)(r->K * pos) * sizeof *r->labels);
    if (!buf || !r->labels ||
        lstmc_npy_read_data(r->t->labels, &li, buf, li.n_bytes, err, sizeof err) != 0) {
        diag_error(r->d, "--labels %s: %s", r->t->labels, buf ? err : "out of memory");
        free(buf);
        return -1;
    }
    for (i = 0; i < r->K * pos; i++) {
        r->labels[i] =
            li.dtype == LSTMC_RT_I64 ? ((int64_t *)buf)[i] : (int64_t)((int32_t *)buf)[i];
        if (r->labels[i] < 0 || r->labels[i] >= r->C) {
            diag_error(r->d,
                       "--labels %s: label %lld at %lld is not a class of output 0 "
                       "(0..%lld)",
                       r->t->labels, (long long)r->labels[i], (long long)i, (long long)(r->C - 1));
            free(buf);
            return -1;
        }
    }
    free(buf);
    return 0;
}

/* Whether point i is the exact schedule with reduced-precision weights or integer layers. */
static int
exact_fmt(const tune_point *p, int i)
{
    return i >= 0 && !p[i].max_run && !p[i].set && (p[i].act || p[i].wfmt != LSTMC_RT_WFMT_FP32);
}

/* The threshold pairs point i's harness takes (exact, formats, integer modes: none). */
static const double *
point_pairs(const tune_point *p, int i, const double *pairs, int *n)
{
    static const double zero[2] = {0, 0};
    *n = i >= 0 && !exact_fmt(p, i) ? 1 : 0;
    if (!*n)
        return NULL;
    return p[i].max_run ? zero : pairs + 2 * (p[i].set ? p[i].set - 1 : i);
}

/*
 * Threads (issue 24), searched for AO's library (i; -1: the exact schedule) when --threads
 * did not fix them: a speed knob only, since every multi-core kernel sums the same terms in
 * the same order however the units are sliced (the outputs are compared here, bit for bit).
 * The library is built again on 1 .. cores threads beside lstmc's default for the target,
 * all measured in interleaved rounds; *best = the fastest count that beats the default by 3 %
 * (noise), else 0.
 * us[0] the default's median, us[k] k threads' (0: not built or not equal).
 */
static int
search_threads(tune_run *r, const tune_point *p, int i, const double *pairs, const char *calib,
               const lstmc_npy_info *xi, int cores, double *us, int *best)
{
    const char *sub = i < 0 ? "exact" : tune_point_sub(r, &p[i]), *subs[TUNE_MAX_THREADS + 1];
    const int rounds = r->t->reps < 3 ? 3 : r->t->reps > 15 ? 15 : r->t->reps;
    double t[TUNE_MAX_THREADS + 1][16];
    const double *pp;
    float *y0 = NULL, *y = NULL;
    int k, rd, n_pp, ok[TUNE_MAX_THREADS + 1];
    hres h[1];

    if (cores > TUNE_MAX_THREADS)
        cores = TUNE_MAX_THREADS;
    pp = point_pairs(p, i, pairs, &n_pp);
    *best = 0;
    subs[0] = sub;
    ok[0] = 1;
    for (k = 1; k <= cores; k++) {
        subs[k] = arena_printf(r->a, "%s_t%d", sub, k);
        r->threads_now = k;
        /* tune_compile's approx: a set 1, a window its max_run, the exact schedule 0 */
        const int approx = i < 0 ? 0 : p[i].max_run ? p[i].max_run : !n_pp ? 0 : 1;
        ok[k] = tune_compile(r, subs[k], approx, calib, xi, i < 0 ? LSTMC_RT_WFMT_FP32 : p[i].wfmt,
                             i < 0 ? 0 : p[i].act) == 0;
        r->threads_now = 0;
        if (tune_stopped(r))
            return -1;
    }
    for (rd = 0; rd < rounds; rd++)
        for (k = 0; k <= cores; k++) {
            if (!ok[k])
                continue;
            if (!k) { /* the default's outputs of this round */
                free(y0);
                y0 = NULL;
            }
            if (tune_harness(r, subs[k], 0, r->n_tune, 1, pp, n_pp, h, k ? &y : &y0) < 0) {
                free(y0);
                return -1;
            }
            t[k][rd] = h[0].us;
            if (k && memcmp(y, y0, (size_t)(r->n_tune * r->numel) * sizeof *y) != 0) {
                fprintf(stderr,
                        "lstmc: tune: %d threads: the outputs differ from the default's; left "
                        "out\n",
                        k);
                ok[k] = 0;
            }
            if (k) {
                free(y);
                y = NULL;
            }
            if (tune_stopped(r)) {
                free(y0);
                return -1;
            }
        }
    free(y0);
    for (k = 0; k <= cores; k++) { /* the medians */
        int a, b;
        us[k] = 0;
        if (!ok[k])
            continue;
        for (a = 1; a < rounds; a++) /* median: insertion sort of a few values */
            for (b = a; b > 0 && t[k][b] < t[k][b - 1]; b--) {
                double x = t[k][b];
                t[k][b] = t[k][b - 1];
                t[k][b - 1] = x;
            }
        us[k] = t[k][rounds / 2];
    }
    for (k = 1; k <= cores; k++) /* another count only when it beats the default by 3 % */
        if (us[k] > 0 && us[k] < 0.97 * us[0] && (!*best || us[k] < us[*best]))
            *best = k;
    return 0;
}

int
tune_search(tune_run *r)
{
    topts *t = r->t;
    lstmc_npy_info xi;
    char err[256];
    const char *slice, *calib;
    calib_summary cs;
    const target *tg = target_resolve(t->target, r->d);
    tune_point p[TUNE_MAX_POINTS];
    double pairs[2 * TUNE_SETS], inter_max = 0, intra_max = 0, us2;
    hres h[TUNE_SETS];
    float *y = NULL;
    long long n_min;
    int mts, i, j, ao, bpa, n = TUNE_SETS + t->n_fmts + t->n_acts, nw = 0, nwf = 0;
    int wins[TUNE_WINDOWS], thr_best, n_cores;
    /* the variants of the windows (beyond fp32) and of the sets: fp16 or int8 weights, int8
     * or int16 layers (the formats and integer modes of --weights) */
    int wfmt[TUNE_VARIANTS * TUNE_WINDOWS], wact[TUNE_VARIANTS * TUNE_WINDOWS];
    int sfmt[TUNE_VARIANTS], sact[TUNE_VARIANTS], nsf = 0, nv = 0, vfmt[TUNE_VARIANTS],
                                                  vact[TUNE_VARIANTS];
    double thr_us[TUNE_MAX_THREADS + 1];

    if (!tg)
        return -1;
    r->measured = !tg->triple || !tg->triple[0];
    if (lstmc_npy_info_read(t->data, &xi, err, sizeof err) != 0) {
        diag_error(r->d, "--data %s: %s", t->data, err);
        return -1;
    }
    if (xi.rank < 2 || xi.dims[0] < 2) {
        diag_error(r->d, "--data %s: expected K >= 2 samples stacked on a leading axis", t->data);
        return -1;
    }
    r->K = xi.dims[0];
    r->n_hold = (int64_t)floor((double)r->K * t->holdout);
    r->n_tune = r->K - r->n_hold;
    if (r->n_tune < 1) {
        diag_error(r->d, "--holdout %g leaves no samples to tune on", t->holdout);
        return -1;
    }

    /* 1. the predicted context link, from the tuning samples only */
    slice = arena_printf(r->a, "%s/tune_x.npy", r->work);
    {
        unsigned char *buf = malloc(xi.n_bytes);
        int64_t dims[LSTMC_RT_MAX_RANK];
        int bad;
        memcpy(dims, xi.dims, sizeof dims);
        dims[0] = r->n_tune;
        snprintf(err, sizeof err, "out of memory");
        bad = !buf || lstmc_npy_read_data(t->data, &xi, buf, xi.n_bytes, err, sizeof err) != 0 ||
              lstmc_npy_write(slice, xi.dtype, xi.rank, dims, buf, err, sizeof err) != 0;
        free(buf);
        if (bad) {
            diag_error(r->d, "--data %s: %s", t->data, err);
            return -1;
        }
    }
    r->slice = slice;
    fprintf(stderr, "lstmc: tune: %lld samples: %lld to tune on, %lld held out\n", (long long)r->K,
            (long long)r->n_tune, (long long)r->n_hold);
    fprintf(stderr, "lstmc: tune: calibrating the predicted context link (Eq. 6)\n");
    calib = arena_printf(r->a, "%s/tuned.calib", r->work);
    {
        driver_options o;
        memset(&o, 0, sizeof o);
        o.model = t->model;
        o.target = t->target;
        if (calibrate_run_summary(r->a, &o, slice, calib, &cs, r->d) < 0)
            return -1;
    }
    r->n_layers = cs.n_layers;
    r->T = cs.seq_len;
    mts = target_mts(tg, cs.hidden);
    if (mts < 1)
        mts = TARGET_DEFAULT_MTS; /* what the breakpoints pass compiles with */
    n_min = tune_n_min(r->T, mts);
    fprintf(stderr,
            "lstmc: tune: MTS %d (target %s, hidden %lld): N_min = ceil(%lld / %d) = "
            "%lld tissues per layer (Eq. 7)\n",
            mts, tg->name, (long long)cs.hidden, (long long)r->T, mts, n_min);
    if (tune_stopped(r))
        return -1;

    /* 2. the exact and the approximate libraries, each with the harness */
    fprintf(stderr, "lstmc: tune: building the exact and the approximate libraries%s\n",
            r->measured ? "" : " (portable C for this machine: speed will be estimated)");
    if (tune_compile(r, "exact", 0, NULL, &xi, LSTMC_RT_WFMT_FP32, 0) < 0 || tune_stopped(r) ||
        tune_compile(r, "approx", 1, calib, &xi, LSTMC_RT_WFMT_FP32, 0) < 0 || tune_stopped(r))
        return -1;
    /* the weights formats and integer modes: by default (every one, issue 24) one the model
     * cannot take is left out with a note; one asked for by --weights is an error */
    for (i = 0; i < t->n_fmts; i++) {
        if (tune_compile(r, tune_fmt_sub(r, t->fmts[i], 0), 0, NULL, &xi, t->fmts[i], 0) < 0) {
            if (!t->fmts_default)
                return -1;
            fprintf(stderr, "lstmc: tune: weights %s left out: the model does not compile so\n",
                    lowp_name(t->fmts[i]));
            memmove(&t->fmts[i], &t->fmts[i + 1], (size_t)(t->n_fmts - i - 1) * sizeof *t->fmts);
            t->n_fmts--, i--;
        }
        if (tune_stopped(r))
            return -1;
    }
    for (i = 0; i < t->n_acts; i++) { /* issue 22 */
        if (tune_compile(r, tune_fmt_sub(r, LSTMC_RT_WFMT_INT8, t->acts[i]), 0, NULL, &xi,
                         LSTMC_RT_WFMT_INT8, t->acts[i]) < 0) {
            if (!t->fmts_default)
                return -1;
            fprintf(stderr,
                    "lstmc: tune: activations int%d left out: the model does not compile so\n",
                    t->acts[i]);
            memmove(&t->acts[i], &t->acts[i + 1], (size_t)(t->n_acts - i - 1) * sizeof *t->acts);
            t->n_acts--, i--;
        }
        if (tune_stopped(r))
            return -1;
    }
    /* issue 24: breakpoints forced at the lowest-S links so that no sub-layer exceeds T/2,
     * T/4, T/6, T/8 cells (--max-sublayer), each a library of its own at alpha 0; and, when
     * fp16 or int8 is among the formats, the same windows with those weights (tissues read
     * them too) */
    for (i = 0; strcmp(t->vary, "intra") != 0 && r->T >= 4 && i < TUNE_WINDOWS; i++) {
        const int w = (int)(r->T / (2 * (i + 1)));
        if (w < 2 || (nw > 0 && wins[nw - 1] == w))
            continue;
        if (tune_compile(r, arena_printf(r->a, "approx_w%d", w), w, calib, &xi, LSTMC_RT_WFMT_FP32,
                         0) < 0 ||
            tune_stopped(r))
            return -1;
        wins[nw++] = w;
    }
    /* the variants: fp16 and int8 weights (tissues and row skip read them) and the integer
     * layers (their tissues and row skip: lstmc_rt_lstm_tissue_q and the like), those of
     * --weights that compiled */
    for (j = 0; j < t->n_fmts; j++)
        if (t->fmts[j] == LSTMC_RT_WFMT_FP16 || t->fmts[j] == LSTMC_RT_WFMT_INT8) {
            vfmt[nv] = t->fmts[j];
            vact[nv++] = 0;
        }
    for (j = 0; j < t->n_acts; j++) {
        vfmt[nv] = LSTMC_RT_WFMT_INT8;
        vact[nv++] = t->acts[j];
    }
    for (j = 0; j < nv; j++) { /* the windows in each variant */
        const int nwf0 = nwf;
        tune_point q;
        memset(&q, 0, sizeof q);
        q.wfmt = vfmt[j];
        q.act = vact[j];
        for (i = 0; i < nw; i++) {
            q.max_run = wins[i];
            if (tune_compile(r, tune_point_sub(r, &q), wins[i], calib, &xi, vfmt[j], vact[j]) < 0) {
                fprintf(stderr,
                        "lstmc: tune: windows with %s left out: the model does not compile so\n",
                        tune_variant_name(r, &q));
                nwf = nwf0;
                break;
            }
            wfmt[nwf] = vfmt[j];
            wact[nwf++] = vact[j];
            if (tune_stopped(r))
                return -1;
        }
    }
    for (j = 0; j < nv; j++) { /* and the threshold sets */
        tune_point q;
        memset(&q, 0, sizeof q);
        q.wfmt = vfmt[j];
        q.act = vact[j];
        q.set = 1;
        if (tune_compile(r, tune_point_sub(r, &q), 1, calib, &xi, vfmt[j], vact[j]) < 0) {
            fprintf(stderr,
                    "lstmc: tune: threshold sets with %s left out: the model does not compile "
                    "so\n",
                    tune_variant_name(r, &q));
            continue;
        }
        sfmt[nsf] = vfmt[j];
        sact[nsf++] = vact[j];
        if (tune_stopped(r))
            return -1;
    }
    n = TUNE_SETS + t->n_fmts + t->n_acts + nw + nwf + nsf * TUNE_SETS;

    /* 3. the exact outputs and time */
    if (tune_harness(r, "exact", 0, r->n_tune, t->reps, NULL, 0, h, &r->exact_tune) < 0)
        return -1;
    r->exact_us = h[0].us;
    r->top1 = t->metric ? strcmp(t->metric, "top1") == 0 : (t->labels || r->C >= 2);
    if (t->labels && !r->top1) {
        diag_error(r->d, "--labels needs the top1 metric");
        return -1;
    }
    if (t->labels && load_labels(r) < 0)
        return -1;
    r->exact_acc_tune = score(r, r->exact_tune, r->exact_tune, 0, r->n_tune);
    if (r->exact_acc_tune <= 0) {
        diag_error(r->d, "the exact model scores 0 on the tuning samples: nothing to keep");
        return -1;
    }

    /* 4. the threshold range */
    if (t->relevance && !cs.has_cal) {
        diag_error(r->d,
                   "--relevance=%s: no LSTM layer with constant U to calibrate; use "
                   "--relevance=bound",
                   driver_relevance_name(t->relevance));
        return -1;
    }
    if (strcmp(t->vary, "intra") != 0 &&
        inter_limit(r, cs.s_max_rel[t->relevance], n_min, &inter_max) < 0)
        return -1;
    if (strcmp(t->vary, "inter") != 0 && intra_limit(r, &intra_max) < 0)
        return -1;
    fprintf(stderr, "lstmc: tune: upper limits: alpha_inter %.6g, alpha_intra %.6g%s\n", inter_max,
            intra_max,
            intra_max > 0 ? "" : " (no layer has dynamic row skip: GRU/RNN or peepholes)");

    /* 5. the 11 sets, interleaved in rounds by the harness */
    for (i = 0; i < TUNE_SETS; i++) {
        pairs[2 * i] = inter_set(&cs, t->relevance, inter_max, i);
        pairs[2 * i + 1] = intra_max * i / (TUNE_SETS - 1);
    }
    fprintf(stderr, "lstmc: tune: measuring %d threshold sets: %lld samples x %d rounds\n",
            TUNE_SETS, (long long)r->n_tune, t->reps);
    if (tune_stopped(r))
        return -1;
    setenv("LSTMC_TUNE_PROGRESS", "1", 1);
    i = tune_harness(r, "approx", 0, r->n_tune, t->reps, pairs, TUNE_SETS, h, &y);
    unsetenv("LSTMC_TUNE_PROGRESS");
    if (i < 0)
        return -1;
    memset(p, 0, sizeof p);
    for (i = 0; i < TUNE_SETS; i++) {
        p[i].wfmt = LSTMC_RT_WFMT_FP32;
        p[i].act = 0;
        p[i].alpha_inter = pairs[2 * i];
        p[i].alpha_intra = pairs[2 * i + 1];
        p[i].us = h[i].us;
        p[i].tissues = h[i].tissues;
        p[i].skipped = h[i].skipped;
        p[i].accuracy = score(r, y + i * r->n_tune * r->numel, r->exact_tune, 0, r->n_tune);
        p[i].norm_acc = p[i].accuracy / r->exact_acc_tune;
        fprintf(stderr,
                "lstmc: tune: [%2d/%d] alpha_inter %-10.4g alpha_intra %-8.4g tissues "
                "%6.2f rows skipped %5.1f %% accuracy %.4f time %.1f us\n",
                i + 1, TUNE_SETS, p[i].alpha_inter, p[i].alpha_intra, p[i].tissues,
                100 * p[i].skipped, p[i].accuracy, p[i].us);
    }
    free(y);
    y = NULL;
    /* 5b. the exact schedule with its weights in each reduced format of --weights */
    for (i = 0; i < t->n_fmts + t->n_acts; i++) {
        tune_point *q = &p[TUNE_SETS + i];
        q->act = i < t->n_fmts ? 0 : t->acts[i - t->n_fmts];
        q->wfmt = i < t->n_fmts ? t->fmts[i] : LSTMC_RT_WFMT_INT8;
        if (tune_harness(r, tune_fmt_sub(r, q->wfmt, q->act), 0, r->n_tune, t->reps, NULL, 0, h,
                         &y) < 0)
            return -1;
        q->us = h[0].us;
        q->accuracy = score(r, y, r->exact_tune, 0, r->n_tune);
        q->norm_acc = q->accuracy / r->exact_acc_tune;
        free(y);
        y = NULL;
        if (q->act)
            fprintf(stderr,
                    "lstmc: tune: [activations int%d] exact schedule: accuracy %.4f time %.1f us\n",
                    q->act, q->accuracy, q->us);
        else
            fprintf(stderr,
                    "lstmc: tune: [weights %s] exact schedule: accuracy %.4f time %.1f us\n",
                    lowp_name(q->wfmt), q->accuracy, q->us);
        if (tune_stopped(r))
            return -1;
    }
    /* 5c. the forced-breakpoint windows */
    for (i = 0; i < nw + nwf; i++) {
        static const double zero[2] = {0, 0};
        tune_point *q = &p[TUNE_SETS + t->n_fmts + t->n_acts + i];
        q->wfmt = i < nw ? LSTMC_RT_WFMT_FP32 : wfmt[i - nw];
        q->act = i < nw ? 0 : wact[i - nw];
        q->max_run = wins[i < nw ? i : (i - nw) % nw];
        if (tune_harness(r, tune_point_sub(r, q), 0, r->n_tune, t->reps, zero, 1, h, &y) < 0)
            return -1;
        q->us = h[0].us;
        q->tissues = h[0].tissues;
        q->accuracy = score(r, y, r->exact_tune, 0, r->n_tune);
        q->norm_acc = q->accuracy / r->exact_acc_tune;
        free(y);
        y = NULL;
        fprintf(stderr,
                "lstmc: tune: [sub-layers <= %d%s%s] tissues %6.2f accuracy %.4f time %.1f us\n",
                q->max_run, i < nw ? "" : " ", i < nw ? "" : tune_variant_name(r, q), q->tissues,
                q->accuracy, q->us);
        if (tune_stopped(r))
            return -1;
    }
    /* 5d. the threshold sets with reduced weights */
    for (j = 0; j < nsf; j++) {
        tune_point *q0 = &p[TUNE_SETS + t->n_fmts + t->n_acts + nw + nwf + j * TUNE_SETS];
        q0->wfmt = sfmt[j];
        q0->act = sact[j];
        q0->set = 1;
        fprintf(stderr, "lstmc: tune: measuring the %d threshold sets with %s%s\n", TUNE_SETS,
                tune_variant_name(r, q0), sact[j] ? " layers" : " weights");
        if (tune_harness(r, tune_point_sub(r, q0), 0, r->n_tune, t->reps, pairs, TUNE_SETS, h, &y) <
            0)
            return -1;
        for (i = 0; i < TUNE_SETS; i++) {
            tune_point *q = &q0[i];
            q->wfmt = sfmt[j];
            q->act = sact[j];
            q->set = i + 1;
            q->alpha_inter = pairs[2 * i];
            q->alpha_intra = pairs[2 * i + 1];
            q->us = h[i].us;
            q->tissues = h[i].tissues;
            q->skipped = h[i].skipped;
            q->accuracy = score(r, y + i * r->n_tune * r->numel, r->exact_tune, 0, r->n_tune);
            q->norm_acc = q->accuracy / r->exact_acc_tune;
            fprintf(stderr,
                    "lstmc: tune: [%2d/%d %s] tissues %6.2f rows skipped %5.1f %% accuracy %.4f "
                    "time %.1f us\n",
                    i + 1, TUNE_SETS, tune_variant_name(r, q), q->tissues, 100 * q->skipped,
                    q->accuracy, q->us);
        }
        free(y);
        y = NULL;
        if (tune_stopped(r))
            return -1;
    }
    /* the exact time again, after the sets: drift hits both */
    if (tune_harness(r, "exact", 0, r->n_tune, t->reps, NULL, 0, h, &y) < 0)
        return -1;
    free(y);
    y = NULL;
    us2 = h[0].us;
    r->exact_us = 0.5 * (r->exact_us + us2);
    /* the estimate: U read T times per layer, against once per tissue, of which the rows of
     * U_f,i,c (3/4 of U) only for the units dynamic row skip keeps; a reduced format reads
     * fewer bytes of the same weights */
    for (i = 0; i < n; i++)
        p[i].speedup =
            r->measured
                ? r->exact_us / p[i].us
                : (p[i].wfmt != LSTMC_RT_WFMT_FP32 ? 4.0 / lowp_elem_bytes(p[i].wfmt) : 1) *
                      (exact_fmt(p, i) ? 1
                                       : (double)r->T / ((p[i].tissues > 0 ? p[i].tissues : r->T) *
                                                         (0.25 + 0.75 * (1 - p[i].skipped))));
    tune_pick(p, n, t->accuracy, &ao, &bpa);
    /* 5e. threads for AO's library (a speed knob only: the outputs are the same floats) */
    thr_best = 0;
    n_cores = tg->cores;
    if (t->threads == 0 && r->measured && n_cores > 1) {
        fprintf(stderr, "lstmc: tune: threads: %s on 1..%d threads beside the default\n",
                ao < 0 ? "the exact schedule" : tune_point_name(r, p, ao),
                n_cores > TUNE_MAX_THREADS ? TUNE_MAX_THREADS : n_cores);
        if (search_threads(r, p, ao, pairs, calib, &xi, n_cores, thr_us, &thr_best) < 0)
            return -1;
    }

    /* 6. held out: the exact model, AO and BPA on samples the tuning did not see */
    {
        FILE *fo;
        char *txt = arena_printf(r->a, "%s.txt", t->out);
        char *tmp = arena_printf(r->a, "%s.tmp", t->out);
        const char *base = strrchr(t->out, '/');
        double hold[2] = {0, 0};
        int n_pp;
        int which[2] = {ao, bpa};
        if (r->n_hold > 0) {
            if (tune_harness(r, "exact", r->n_tune, r->n_hold, 1, NULL, 0, h, &r->exact_hold) < 0)
                return -1;
            r->exact_acc_hold = score(r, r->exact_hold, r->exact_hold, r->n_tune, r->n_hold);
            for (j = 0; j < 2; j++) {
                if (which[j] < 0) {
                    hold[j] = r->exact_acc_hold;
                    continue;
                }
                const double *pp = point_pairs(p, which[j], pairs, &n_pp);
                if (tune_harness(r, tune_point_sub(r, &p[which[j]]), r->n_tune, r->n_hold, 1, pp,
                                 n_pp, h, &y) < 0)
                    return -1;
                hold[j] = score(r, y, r->exact_hold, r->n_tune, r->n_hold);
                free(y);
                y = NULL;
            }
        }
        if (tune_stopped(r))
            return -1;
        fo = fopen(txt, "w");
        if (!fo) {
            diag_error(r->d, "cannot write %s: %s", txt, strerror(errno));
            return -1;
        }
        fprintf(fo,
                "# lstmc tune %s --target=%s: %lld tuning samples, %lld held out; "
                "accuracy %s; speed %s\n\n",
                t->model, tg->name, (long long)r->n_tune, (long long)r->n_hold,
                t->labels ? "against the labels"
                : r->top1 ? "= top-1 agreement with the exact "
                            "model"
                          : "= 1 - relative L2 error vs exact",
                r->measured ? "measured on this machine (median of the runs)"
                            : "ESTIMATED by the memory model (T reads of U per layer vs one per "
                              "tissue, less the rows dynamic row skip leaves): the target is not "
                              "this machine");
        tune_table(fo, r, p, n, ao, bpa);
        fprintf(fo,
                "\nN_min = ceil(%lld / MTS %d) = %lld; upper limits: alpha_inter %.6g, "
                "alpha_intra %.6g. AO (fastest with normalised accuracy >= %.3g): %s; BPA "
                "(best speed-up x accuracy): %s.\n",
                (long long)r->T, mts, n_min, inter_max, intra_max, t->accuracy,
                ao < 0 ? "the exact schedule (no candidate is faster at that accuracy)"
                       : tune_point_name(r, p, ao),
                bpa < 0 ? "the exact schedule" : tune_point_name(r, p, bpa));
        if (r->n_hold > 0)
            fprintf(fo,
                    "Held out (%lld samples): exact %.4f, AO %.4f (normalised %.4f), BPA "
                    "%.4f (normalised %.4f).\n",
                    (long long)r->n_hold, r->exact_acc_hold, hold[0], hold[0] / r->exact_acc_hold,
                    hold[1], hold[1] / r->exact_acc_hold);
        if (t->threads == 0 && r->measured && n_cores > 1) {
            int k;
            fprintf(fo,
                    "Threads (AO's library, medians of interleaved runs; the same outputs): "
                    "default %.1f us",
                    thr_us[0]);
            for (k = 1; k <= n_cores && k <= TUNE_MAX_THREADS; k++)
                if (thr_us[k] > 0)
                    fprintf(fo, ", %d: %.1f us", k, thr_us[k]);
            if (thr_best)
                fprintf(fo, "; TUNED says threads %d.\n", thr_best);
            else
                fprintf(fo, "; the default is fastest.\n");
        }
        if (fclose(fo) != 0) {
            diag_error(r->d, "writing %s failed", txt);
            return -1;
        }
        tune_cat_file(txt, stdout);
        fflush(stdout);
        if (tune_svg(arena_printf(r->a, "%s.svg", t->out), r, p, n, ao, bpa, t->accuracy) != 0 ||
            tune_copy_file(calib, arena_printf(r->a, "%s.calib", t->out)) != 0 ||
            (ao >= 0 && p[ao].act &&
             tune_copy_file(slice, arena_printf(r->a, "%s.x.npy", t->out)) != 0)) {
            diag_error(r->d, "cannot write %s.svg / %s.calib", t->out, t->out);
            return -1;
        }
        fo = fopen(tmp, "w");
        if (!fo) {
            diag_error(r->d, "cannot write %s: %s", tmp, strerror(errno));
            return -1;
        }
        fprintf(fo, "%s\n# lstmc tune %s --target=%s --accuracy %g (see %s.txt)\n", TUNED_MAGIC,
                t->model, tg->name, t->accuracy, base ? base + 1 : t->out);
        fprintf(fo, "vary %s\n", ao >= 0 && p[ao].max_run ? "inter" : t->vary);
        /* a format candidate is the exact schedule: its alphas are 0 */
        fprintf(fo, "schedule %s\nalpha_inter %.9g\nalpha_intra %.9g\n",
                ao < 0 || exact_fmt(p, ao) ? "exact" : "approx", ao < 0 ? 0.0 : p[ao].alpha_inter,
                ao < 0 ? 0.0 : p[ao].alpha_intra);
        if (ao >= 0 && p[ao].wfmt != LSTMC_RT_WFMT_FP32)
            fprintf(fo, "weights %s\n", lowp_name(p[ao].wfmt));
        if (ao >= 0 && p[ao].max_run)
            fprintf(fo, "max_sublayer %d\n", p[ao].max_run);
        if (ao >= 0 && p[ao].act) /* issue 22: calibrated on the samples beside TUNED */
            fprintf(fo, "activations int%d\ncalib_data %s.x.npy\n", p[ao].act,
                    base ? base + 1 : t->out);
        fprintf(fo, "alpha_inter_max %.9g\nalpha_intra_max %.9g\n", inter_max, intra_max);
        fprintf(fo, "bpa_alpha_inter %.9g\nbpa_alpha_intra %.9g\n",
                bpa < 0 ? 0.0 : p[bpa].alpha_inter, bpa < 0 ? 0.0 : p[bpa].alpha_intra);
        if (bpa >= 0 && p[bpa].wfmt != LSTMC_RT_WFMT_FP32)
            fprintf(fo, "bpa_weights %s\n", lowp_name(p[bpa].wfmt));
        if (bpa >= 0 && p[bpa].act)
            fprintf(fo, "bpa_activations int%d\n", p[bpa].act);
        fprintf(fo, "calib %s.calib\n", base ? base + 1 : t->out);
        fprintf(fo, "relevance %s\n", driver_relevance_name(t->relevance));
        if (t->threads || thr_best)
            fprintf(fo, "threads %d\n", t->threads ? t->threads : thr_best);
        if (fclose(fo) != 0 || rename(tmp, t->out) != 0) {
            diag_error(r->d, "cannot write %s: %s", t->out, strerror(errno));
            remove(tmp);
            return -1;
        }
    }
    return 0;
}
