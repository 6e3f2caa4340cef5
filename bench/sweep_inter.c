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

#ifndef N_LAYERS
#define N_LAYERS 1
#endif

#ifndef BASELINE
/* the sample's sub-layers and tissues per layer, summed in arg[0], arg[1] */
static void
tissue_counts(const sweep *s, void *arg)
{
    double *acc = arg;
    acc[0] += (double)s->ctx.tissue_stats.sub_layers / N_LAYERS;
    acc[1] += (double)s->ctx.tissue_stats.tissues / N_LAYERS;
}
#endif

int
main(int argc, char **argv)
{
    static sweep sw;
    lstmc_npy_info xi;
    unsigned char *X;
    int a, n_alpha;

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
    sweep_open(&sw, "sweep_inter", argv);
    n_alpha = argc - 6;
#ifdef BASELINE
    n_alpha = 1;
#endif
    for (a = 0; a < n_alpha; a++) {
        const double n = (double)(sw.count * sw.POS);
        double alpha = 0, counts[2] = {0, 0};
        int64_t correct, agree;
#ifndef BASELINE
        alpha = atof(argv[6 + a]);
        if (API(_set_thresholds)(&sw.ctx, (float)alpha, 0.0f) != LSTMC_RT_OK) {
            fprintf(stderr, "sweep_inter: bad alpha %s\n", argv[6 + a]);
            return 1;
        }
        correct = sweep_pass(&sw, "sweep_inter", a == 0, tissue_counts, counts, &agree);
        printf("%g %.2f %.2f %.2f %.2f %.1f %.1f\n", alpha, 100.0 * correct / n, 100.0 * agree / n,
               counts[0] / sw.count, counts[1] / sw.count, sw.times[sw.count * sw.reps / 2],
               sw.mins[sw.count / 2]);
#else
        (void)counts;
        correct = sweep_pass(&sw, "sweep_inter", 1, NULL, NULL, &agree);
        printf("baseline %.2f %.2f - - %.1f %.1f\n", 100.0 * correct / n, 100.0 * agree / n,
               sw.times[sw.count * sw.reps / 2], sw.mins[sw.count / 2]);
        (void)alpha;
#endif
        fflush(stdout);
    }
    return 0;
}
