/*
 * sweep_inter.c — the alpha_inter sweep of issue 5 (MICRO'18 §VI-C) over one trained model,
 * linked against a library lstmc generated. Built by bench/sweep_inter.sh with
 *   -DMODEL_H='"name.h"' -DPFX=name -DUPFX=NAME -DN_LAYERS=L   [-DBASELINE]
 *
 *   sweep_inter EVAL_X.npy EVAL_Y.npy FIRST COUNT REPS ALPHA...
 *
 * runs samples FIRST .. FIRST+COUNT-1 of EVAL_X (K samples of the model's input shape stacked
 * on axis 0), scores argmax over the output's last axis against EVAL_Y (K * positions int64
 * labels), and for every ALPHA (set with PFX_set_thresholds, no recompilation) prints one
 * row: alpha, accuracy, agreement with the first ALPHA's predictions (give 0 first: the exact
 * result), mean sub-layers and tissues per layer (ctx->tissue_stats, which sums the layers of
 * a run, / N_LAYERS), median microseconds per inference over all runs (each sample REPS
 * times) and the median over the samples of each one's fastest run. -DBASELINE: a library compiled
 * without the breakpoints pass; one row, no thresholds.
 *
 *   sweep_inter slice IN.npy OUT.npy FIRST COUNT
 *
 * writes samples FIRST .. FIRST+COUNT-1 of IN (axis 0) to OUT (the calibration slice; no
 * Python needed).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include MODEL_H
#include "lstmc_rt_npy.h"
#include "sweep_common.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(s) CAT(PFX, s)
#define MAC(s) CAT(UPFX, s)

static unsigned char arena_raw[MAC(_ARENA_SIZE) + LSTMC_RT_ALIGN];
static float out[MAC(_OUTPUT_0_NUMEL)];

int
main(int argc, char **argv)
{
    unsigned char *arena =
        arena_raw + (LSTMC_RT_ALIGN - (size_t)arena_raw % LSTMC_RT_ALIGN) % LSTMC_RT_ALIGN;
    static const int64_t oshape[] = MAC(_OUTPUT_0_SHAPE);
    const int64_t C = oshape[MAC(_OUTPUT_0_RANK) - 1], POS = MAC(_OUTPUT_0_NUMEL) / C;
    lstmc_npy_info xi, yi;
    unsigned char *X;
    int64_t *Yl, first, count, k, p, *pred0 = NULL, *pred;
    int reps, a, r, n_alpha;
    double *times, *mins;
    size_t sample_bytes;
    API(_ctx) ctx;

    if (argc == 6 && strcmp(argv[1], "slice") == 0) {
        char err[256];
        int64_t f = atoll(argv[4]), n = atoll(argv[5]);
        size_t sb;
        X = load_npy("sweep_inter", argv[2], &xi);
        if (f < 0 || n < 1 || f + n > xi.dims[0]) {
            fprintf(stderr, "sweep_inter: slice out of range\n");
            return 1;
        }
        sb = xi.n_bytes / (size_t)xi.dims[0];
        xi.dims[0] = n;
        if (lstmc_npy_write(argv[3], xi.dtype, xi.rank, xi.dims, X + (size_t)f * sb, err,
                            sizeof err) != 0) {
            fprintf(stderr, "sweep_inter: %s: %s\n", argv[3], err);
            return 1;
        }
        return 0;
    }
    if (argc < 6) {
        fprintf(stderr, "usage: sweep_inter EVAL_X EVAL_Y FIRST COUNT REPS ALPHA...\n");
        return 2;
    }
    X = load_npy("sweep_inter", argv[1], &xi);
    Yl = load_npy("sweep_inter", argv[2], &yi);
    first = atoll(argv[3]);
    count = atoll(argv[4]);
    reps = atoi(argv[5]);
    n_alpha = argc - 6;
    sample_bytes = xi.n_bytes / (size_t)xi.dims[0];
    if (sample_bytes != (size_t)MAC(_INPUT_0_NUMEL) * lstmc_rt_dtype_size(MAC(_INPUT_0_DTYPE)) ||
        yi.n_elems != xi.dims[0] * POS || first < 0 || count < 1 || first + count > xi.dims[0] ||
        reps < 1) {
        fprintf(stderr, "sweep_inter: data does not fit the model or the range\n");
        return 1;
    }
    if (API(_init)(&ctx, arena, MAC(_ARENA_SIZE)) != LSTMC_RT_OK)
        return 1;
    pred = malloc((size_t)(count * POS) * sizeof *pred);
    pred0 = malloc((size_t)(count * POS) * sizeof *pred0);
    times = malloc((size_t)(count * reps) * sizeof *times);
    mins = malloc((size_t)count * sizeof *mins);
#ifdef BASELINE
    n_alpha = 1;
#endif
    for (a = 0; a < n_alpha; a++) {
        double alpha = 0, sub = 0, tis = 0;
        int64_t correct = 0, agree = 0;
#ifndef BASELINE
        alpha = atof(argv[6 + a]);
        if (API(_set_thresholds)(&ctx, (float)alpha, 0.0f) != LSTMC_RT_OK) {
            fprintf(stderr, "sweep_inter: bad alpha %s\n", argv[6 + a]);
            return 1;
        }
#endif
        for (k = 0; k < count; k++) {
            const void *in[1];
            void *o[1];
            in[0] = X + (size_t)(first + k) * sample_bytes;
            o[0] = out;
            for (r = 0; r < reps; r++) {
                double t0 = now_us();
                if (API(_run)(&ctx, in, o) != LSTMC_RT_OK) {
                    fprintf(stderr, "sweep_inter: run failed\n");
                    return 1;
                }
                times[k * reps + r] = now_us() - t0;
            }
#ifndef BASELINE
            sub += (double)ctx.tissue_stats.sub_layers / N_LAYERS;
            tis += (double)ctx.tissue_stats.tissues / N_LAYERS;
#endif
            for (p = 0; p < POS; p++) {
                const float *v = out + p * C;
                int64_t best = 0, j;
                for (j = 1; j < C; j++)
                    if (v[j] > v[best])
                        best = j;
                pred[k * POS + p] = best;
                correct += best == Yl[(first + k) * POS + p];
            }
        }
        if (a == 0)
            memcpy(pred0, pred, (size_t)(count * POS) * sizeof *pred);
        for (k = 0; k < count * POS; k++)
            agree += pred[k] == pred0[k];
        /* the last column: per sample its fastest run (on a shared machine the undisturbed
         * one), the median of those over the samples */
        for (k = 0; k < count; k++) {
            double best = times[k * reps];
            for (r = 1; r < reps; r++)
                best = times[k * reps + r] < best ? times[k * reps + r] : best;
            mins[k] = best;
        }
        qsort(mins, (size_t)count, sizeof *mins, cmp_d);
        qsort(times, (size_t)(count * reps), sizeof *times, cmp_d);
#ifdef BASELINE
        printf("baseline %.2f %.2f - - %.1f %.1f\n", 100.0 * correct / (count * POS),
               100.0 * agree / (count * POS), times[count * reps / 2], mins[count / 2]);
#else
        printf("%g %.2f %.2f %.2f %.2f %.1f %.1f\n", alpha, 100.0 * correct / (count * POS),
               100.0 * agree / (count * POS), sub / count, tis / count, times[count * reps / 2],
               mins[count / 2]);
#endif
        fflush(stdout);
    }
    return 0;
}
