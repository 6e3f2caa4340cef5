/*
 * sweep_common.h — what bench/sweep_inter.c and bench/sweep_intra.c share: a monotonic clock,
 * a comparison for qsort (medians), whole-file .npy loading and, for a driver built against
 * a generated library (MODEL_H included first, PFX / UPFX defined), the eval-set sweep: load
 * and check the data, bind the context, run and time every sample, score its predictions
 * (benchmark drivers, so they may allocate and exit). Included once by each driver;
 * everything is static.
 */
#ifndef LSTMC_SWEEP_COMMON_H
#define LSTMC_SWEEP_COMMON_H

#include "lstmc_rt_npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int
cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The whole .npy at path (info filled), or exit(1) with a message naming prog. */
static void *
load_npy(const char *prog, const char *path, lstmc_npy_info *info)
{
    char err[256];
    void *buf;
    if (lstmc_npy_info_read(path, info, err, sizeof err) != 0 ||
        !(buf = malloc(info->n_bytes ? info->n_bytes : 1)) ||
        lstmc_npy_read_data(path, info, buf, info->n_bytes, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, err);
        exit(1);
    }
    return buf;
}

#ifdef UPFX /* a driver built against a generated library: MODEL_H included before */

#define CAT_(a, b) a##b
#define CAT(a, b)  CAT_(a, b)
#define API(s)     CAT(PFX, s)
#define MAC(s)     CAT(UPFX, s)

static unsigned char arena_raw[MAC(_ARENA_SIZE) + LSTMC_RT_ALIGN];
static float out[MAC(_OUTPUT_0_NUMEL)];

/* A sweep over samples first .. first+count-1 of an eval set (argv EVAL_X EVAL_Y FIRST COUNT
 * REPS): the model's context, the data, and per pass the times and predictions. */
typedef struct sweep {
    API(_ctx) ctx;
    unsigned char *X;
    int64_t *Yl, first, count, C, POS;
    size_t sample_bytes;
    int reps;
    int64_t *pred, *pred0; /* argmax per position: this pass, the first pass */
    double *times;         /* [count, reps] microseconds of this pass */
    double *mins;          /* [count]: each sample's fastest run, sorted */
} sweep;

/* Load and check argv[1..5] and bind the context; exit with a message naming prog. */
static void
sweep_open(sweep *s, const char *prog, char **argv)
{
    static const int64_t oshape[] = MAC(_OUTPUT_0_SHAPE);
    unsigned char *arena =
        arena_raw + (LSTMC_RT_ALIGN - (size_t)arena_raw % LSTMC_RT_ALIGN) % LSTMC_RT_ALIGN;
    lstmc_npy_info xi, yi;

    s->C = oshape[MAC(_OUTPUT_0_RANK) - 1];
    s->POS = MAC(_OUTPUT_0_NUMEL) / s->C;
    s->X = load_npy(prog, argv[1], &xi);
    s->Yl = load_npy(prog, argv[2], &yi);
    s->first = atoll(argv[3]);
    s->count = atoll(argv[4]);
    s->reps = atoi(argv[5]);
    s->sample_bytes = xi.n_bytes / (size_t)xi.dims[0];
    if (s->sample_bytes != (size_t)MAC(_INPUT_0_NUMEL) * lstmc_rt_dtype_size(MAC(_INPUT_0_DTYPE)) ||
        yi.n_elems != xi.dims[0] * s->POS || s->first < 0 || s->count < 1 ||
        s->first + s->count > xi.dims[0] || s->reps < 1) {
        fprintf(stderr, "%s: data does not fit the model or the range\n", prog);
        exit(1);
    }
    if (API(_init)(&s->ctx, arena, MAC(_ARENA_SIZE)) != LSTMC_RT_OK) {
        fprintf(stderr, "%s: init failed\n", prog);
        exit(1);
    }
    s->pred = malloc((size_t)(s->count * s->POS) * sizeof *s->pred);
    s->pred0 = malloc((size_t)(s->count * s->POS) * sizeof *s->pred0);
    s->times = malloc((size_t)(s->count * s->reps) * sizeof *s->times);
    s->mins = malloc((size_t)s->count * sizeof *s->mins);
    if (!s->pred || !s->pred0 || !s->times || !s->mins)
        exit(1);
}

/* One pass with the current thresholds: every sample REPS times (times, mins), its
 * predictions (pred; pred0 too when first), after each sample per_sample(s, arg) when not
 * NULL (the ctx's stats of that run). Returns the correct predictions; *agree the ones equal
 * to pred0. Exits if a run fails. */
static int64_t
sweep_pass(sweep *s, const char *prog, int first, void (*per_sample)(const sweep *, void *),
           void *arg, int64_t *agree)
{
    int64_t k, p, correct = 0;
    int r;

    for (k = 0; k < s->count; k++) {
        const void *in[1];
        void *o[1];
        in[0] = s->X + (size_t)(s->first + k) * s->sample_bytes;
        o[0] = out;
        for (r = 0; r < s->reps; r++) {
            double t0 = now_us();
            if (API(_run)(&s->ctx, in, o) != LSTMC_RT_OK) {
                fprintf(stderr, "%s: run failed\n", prog);
                exit(1);
            }
            s->times[k * s->reps + r] = now_us() - t0;
        }
        if (per_sample)
            per_sample(s, arg);
        for (p = 0; p < s->POS; p++) {
            const float *v = out + p * s->C;
            int64_t best = 0, j;
            for (j = 1; j < s->C; j++)
                if (v[j] > v[best])
                    best = j;
            s->pred[k * s->POS + p] = best;
            correct += best == s->Yl[(s->first + k) * s->POS + p];
        }
        /* on a shared machine a run is undisturbed or shares its core: the fastest counts */
        s->mins[k] = s->times[k * s->reps];
        for (r = 1; r < s->reps; r++)
            if (s->times[k * s->reps + r] < s->mins[k])
                s->mins[k] = s->times[k * s->reps + r];
    }
    if (first)
        memcpy(s->pred0, s->pred, (size_t)(s->count * s->POS) * sizeof *s->pred);
    *agree = 0;
    for (k = 0; k < s->count * s->POS; k++)
        *agree += s->pred[k] == s->pred0[k];
    qsort(s->mins, (size_t)s->count, sizeof *s->mins, cmp_d);
    qsort(s->times, (size_t)(s->count * s->reps), sizeof *s->times, cmp_d);
    return correct;
}

#endif /* UPFX */

#endif /* LSTMC_SWEEP_COMMON_H */
