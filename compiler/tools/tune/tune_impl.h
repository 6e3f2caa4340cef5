/*
 * tune_impl.h — what the files of `lstmc tune` share (compiler/tools/tune: cmd.c, search.c,
 * build.c, report.c); the interface is tune.h.
 */
#ifndef LSTMC_TUNE_IMPL_H
#define LSTMC_TUNE_IMPL_H

#include "lstmc_rt_npy.h"
#include "tune.h"
#include "wfmt.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

typedef struct topts {
    const char *model, *target, *data, *labels, *out, *keep, *metric;
    const char *vary; /* both, inter, intra: which thresholds the sets move */
    int relevance;    /* --relevance: lstmc_rt_relevance (default sensitivity) */
    double accuracy, holdout;
    int reps;
    int fmts[LSTMC_RT_WFMT_COUNT - 1], n_fmts; /* --weights: the reduced formats to try */
    int acts[2], n_acts; /* --weights act-int8, act-int16: full-integer layers (issue 22) */
    int fmts_default;    /* no --weights: all of them, each left out if the model refuses it */
    int threads;         /* --threads: every library's (0: lstmc's default for the target) */
} topts;

/* State of one tuning run. */
typedef struct tune_run {
    topts *t;
    arena *a;
    diag *d;
    const char *work;
    const char *cc;
    int measured; /* the target is this machine: time the real code; else estimate */
    int64_t K, n_tune, n_hold, n_layers, T;
    int64_t C, numel; /* output 0: last dim, elements */
    int top1;
    int64_t *labels;                /* K * positions, or NULL */
    float *exact_tune, *exact_hold; /* output 0 of the exact model */
    double exact_acc_tune, exact_acc_hold;
    double exact_us;
    const char *slice; /* the tuning samples (.npy): calibration of the integer modes */
    int threads_now;   /* > 0: tune_compile's --threads instead of t->threads (the search) */
} tune_run;

/* One harness result line. */
typedef struct hres {
    double us, tissues, sub, skipped;
} hres;

/* cmd.c */

/* Set by SIGINT / SIGTERM while tune_main runs. */
extern volatile sig_atomic_t tune_interrupted;

/* 1 (after reporting "interrupted; nothing written") once a signal came, else 0. */
int tune_stopped(tune_run *r);

/* search.c: the whole search for r (the options in r->t), TUNED written last. 0, or -1. */
int tune_search(tune_run *r);

/* build.c */

/* Compile the model into work/sub: the exact schedule (its weights in fmt), or the
 * approximate one (approx 1, with calib; approx > 1: breakpoints only, --max-sublayer=approx).
 * 0, or -1. */
int tune_compile(tune_run *r, const char *sub, int approx, const char *calib,
                 const lstmc_npy_info *xi, int fmt, int act);

/* Run the harness of work/sub over samples [first, first+count) with the threshold pairs
 * (none for the exact build); outputs into *outs (malloc'd, [n_pairs or 1, count, numel]). */
int tune_harness(tune_run *r, const char *sub, int64_t first, int64_t count, int reps,
                 const double *pairs, int n_pairs, hres *res, float **outs);

/* report.c */

/* The work sub-folder of point p's library: approx, approx_<fmt>, approx_act_intN, approx_wN,
 * approx_wN_<fmt>, approx_wN_act_intN, exact_<fmt>, exact_act_intN; tune_fmt_sub: the exact
 * schedule's with its weights in fmt, or its integer layers. */
const char *tune_point_sub(tune_run *r, const tune_point *p);
const char *tune_fmt_sub(tune_run *r, int fmt, int act);

/* What a set's or window's weights are: "fp32", "fp16", "int8", or "act-int8" (integer layers,
 * int8 weights). */
const char *tune_variant_name(tune_run *r, const tune_point *p);

/* "set 3", or "the exact schedule with fp16 weights". */
const char *tune_point_name(tune_run *r, const tune_point *p, int i);

/* The table of the sets, AO and BPA marked, to f. */
void tune_table(FILE *f, const tune_run *r, const tune_point *p, int n, int ao, int bpa);

/* The Fig. 19 style plot to path. 0, or -1. */
int tune_svg(const char *path, const tune_run *r, const tune_point *p, int n, int ao, int bpa,
             double pref);

/* Append the file from to b; copy the file from to to. 0, or -1. */
int tune_cat_file(const char *from, FILE *b);
int tune_copy_file(const char *from, const char *to);

#endif /* LSTMC_TUNE_IMPL_H */
