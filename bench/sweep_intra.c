/*
 * sweep_intra.c — the alpha_intra sweep of issue 6 (MICRO'18 §V, §VI-B2, §VI-C) over one
 * trained model, linked against a library lstmc generated. Built by bench/sweep_intra.sh with
 *   -DMODEL_H='"name.h"' -DPFX=name -DUPFX=NAME   [-DBASELINE]
 *
 *   sweep_intra EVAL_X.npy EVAL_Y.npy FIRST COUNT REPS AINTER:AINTRA...
 *
 * runs samples FIRST .. FIRST+COUNT-1 of EVAL_X (K samples of the model's input shape stacked
 * on axis 0), scores argmax over the output's last axis against EVAL_Y, and for every
 * threshold pair (set with PFX_set_thresholds per run, no recompilation) prints one row:
 *   ainter aintra accuracy% agreement% skipped% loaded% median_us min_us
 * agreement is with the first pair's predictions (give 0:0 first: the exact result);
 * skipped% = ctx.drs_stats.rows_skipped / rows_total (multiplies of U_f,i,c saved), loaded% =
 * rows_loaded / rows_total (rows of U_f,i,c read; below 100 - skipped% only in tissues, where
 * no skip also shares loads between a tissue's cells), both summed over the layers and
 * samples; median and minimum microseconds per inference over COUNT * REPS runs (on a
 * shared machine the minimum is the least disturbed estimate). -DBASELINE: a library
 * compiled without the drs pass (one row, no thresholds, no stats).
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
    int64_t *Yl, first, count, k, p, *pred0, *pred;
    int reps, a, r, n_pairs;
    double *times;
    size_t sample_bytes;
    API(_ctx) ctx;

    if (argc < 6) {
        fprintf(stderr, "usage: sweep_intra EVAL_X EVAL_Y FIRST COUNT REPS AINTER:AINTRA...\n");
        return 2;
    }
    X = load_npy("sweep_intra", argv[1], &xi);
    Yl = load_npy("sweep_intra", argv[2], &yi);
    first = atoll(argv[3]);
    count = atoll(argv[4]);
    reps = atoi(argv[5]);
    n_pairs = argc - 6;
    sample_bytes = xi.n_bytes / (size_t)xi.dims[0];
    if (sample_bytes != (size_t)MAC(_INPUT_0_NUMEL) * lstmc_rt_dtype_size(MAC(_INPUT_0_DTYPE)) ||
        yi.n_elems != xi.dims[0] * POS || first < 0 || count < 1 || first + count > xi.dims[0] ||
        reps < 1) {
        fprintf(stderr, "sweep_intra: data does not fit the model or the range\n");
        return 1;
    }
    if (API(_init)(&ctx, arena, MAC(_ARENA_SIZE)) != LSTMC_RT_OK)
        return 1;
    pred = malloc((size_t)(count * POS) * sizeof *pred);
    pred0 = malloc((size_t)(count * POS) * sizeof *pred0);
    times = malloc((size_t)(count * reps) * sizeof *times);
#ifdef BASELINE
    n_pairs = 1;
#endif
    for (a = 0; a < n_pairs; a++) {
        double ainter = 0, aintra = 0, total = 0, skipped = 0, loaded = 0;
        int64_t correct = 0, agree = 0;
#ifndef BASELINE
        char *colon;
        ainter = strtod(argv[6 + a], &colon);
        if (*colon != ':') {
            fprintf(stderr, "sweep_intra: '%s' is not AINTER:AINTRA\n", argv[6 + a]);
            return 2;
        }
        aintra = atof(colon + 1);
        if (API(_set_thresholds)(&ctx, (float)ainter, (float)aintra) != LSTMC_RT_OK) {
            fprintf(stderr, "sweep_intra: bad thresholds %s\n", argv[6 + a]);
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
                    fprintf(stderr, "sweep_intra: run failed\n");
                    return 1;
                }
                times[k * reps + r] = now_us() - t0;
            }
#ifndef BASELINE
            total += (double)ctx.drs_stats.rows_total;
            skipped += (double)ctx.drs_stats.rows_skipped;
            loaded += (double)ctx.drs_stats.rows_loaded;
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
        qsort(times, (size_t)(count * reps), sizeof *times, cmp_d);
        if (total <= 0)
            total = 1;
        printf("%g %g %.2f %.2f %.2f %.2f %.1f %.1f\n", ainter, aintra,
               100.0 * correct / (count * POS), 100.0 * agree / (count * POS),
               100.0 * skipped / total, 100.0 * loaded / total, times[count * reps / 2],
               times[0]);
        fflush(stdout);
    }
    return 0;
}
