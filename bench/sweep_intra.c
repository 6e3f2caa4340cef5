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

#ifndef BASELINE
/* the sample's rows of U_f,i,c: total, skipped, loaded, summed in arg[0..2] */
static void
drs_rows(const sweep *s, void *arg)
{
    double *acc = arg;
    acc[0] += (double)s->ctx.drs_stats.rows_total;
    acc[1] += (double)s->ctx.drs_stats.rows_skipped;
    acc[2] += (double)s->ctx.drs_stats.rows_loaded;
}
#endif

int
main(int argc, char **argv)
{
    static sweep sw;
    int a, n_pairs;

    if (argc < 6) {
        fprintf(stderr, "usage: sweep_intra EVAL_X EVAL_Y FIRST COUNT REPS AINTER:AINTRA...\n");
        return 2;
    }
    sweep_open(&sw, "sweep_intra", argv);
    n_pairs = argc - 6;
#ifdef BASELINE
    n_pairs = 1;
#endif
    for (a = 0; a < n_pairs; a++) {
        const double n = (double)(sw.count * sw.POS);
        double ainter = 0, aintra = 0, rows[3] = {0, 0, 0};
        int64_t correct, agree;
#ifndef BASELINE
        char *colon;
        ainter = strtod(argv[6 + a], &colon);
        if (*colon != ':') {
            fprintf(stderr, "sweep_intra: '%s' is not AINTER:AINTRA\n", argv[6 + a]);
            return 2;
        }
        aintra = atof(colon + 1);
        if (API(_set_thresholds)(&sw.ctx, (float)ainter, (float)aintra) != LSTMC_RT_OK) {
            fprintf(stderr, "sweep_intra: bad thresholds %s\n", argv[6 + a]);
            return 1;
        }
        correct = sweep_pass(&sw, "sweep_intra", a == 0, drs_rows, rows, &agree);
#else
        correct = sweep_pass(&sw, "sweep_intra", 1, NULL, NULL, &agree);
#endif
        if (rows[0] <= 0)
            rows[0] = 1;
        printf("%g %g %.2f %.2f %.2f %.2f %.1f %.1f\n", ainter, aintra, 100.0 * correct / n,
               100.0 * agree / n, 100.0 * rows[1] / rows[0], 100.0 * rows[2] / rows[0],
               sw.times[sw.count * sw.reps / 2], sw.times[0]);
        fflush(stdout);
    }
    return 0;
}
