/*
 * alpha_check.c — runs a generated library "m" at threshold 0 and then at ALPHA, set per run
 * with m_set_thresholds (no recompilation), and prints the run's stats for each; the second
 * run's outputs are written to OUTDIR/<output name>.npy:
 *   intra  alpha_intra (tests/e2e/drs/case/model.onnx compiled with --alpha-intra=0):
 *          "alpha cells rows_total rows_skipped rows_loaded" from ctx.drs_stats
 *          (drs/check_drs.sh);
 *   inter  alpha_inter (tests/e2e/relevance/case/model.onnx compiled with --alpha-inter=0):
 *          "alpha cells links sub_layers tissues" from ctx.tissue_stats
 *          (relevance/check_relevance.sh).
 * The scripts compare them with their numpy references.
 *
 *   alpha_check X.npy OUTDIR ALPHA intra|inter
 */
#include "lstmc_rt_npy.h"
#include "m.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char raw[M_ARENA_SIZE + LSTMC_RT_ALIGN];
static float x[M_INPUT_0_NUMEL], y0[M_OUTPUT_0_NUMEL], y1[M_OUTPUT_1_NUMEL], y2[M_OUTPUT_2_NUMEL];

static int
save(const char *dir, const char *name, int rank, const int64_t *dims, const float *v)
{
    char path[1024], err[256];

    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    if (lstmc_npy_write(path, LSTMC_RT_F32, rank, dims, v, err, sizeof err) != 0) {
        fprintf(stderr, "alpha_check: %s: %s\n", path, err);
        return 1;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    unsigned char *arena = raw + (LSTMC_RT_ALIGN - (size_t)raw % LSTMC_RT_ALIGN) % LSTMC_RT_ALIGN;
    static const int64_t d0[] = M_OUTPUT_0_SHAPE, d1[] = M_OUTPUT_1_SHAPE, d2[] = M_OUTPUT_2_SHAPE;
    const void *in[1] = {x};
    void *out[3] = {y0, y1, y2};
    char err[256];
    lstmc_npy_info info;
    m_ctx ctx;
    int pass, inter;

    if (argc != 5 || (strcmp(argv[4], "intra") != 0 && strcmp(argv[4], "inter") != 0)) {
        fprintf(stderr, "usage: alpha_check X.npy OUTDIR ALPHA intra|inter\n");
        return 2;
    }
    inter = strcmp(argv[4], "inter") == 0;
    if (lstmc_npy_info_read(argv[1], &info, err, sizeof err) != 0 || info.n_bytes != sizeof x ||
        lstmc_npy_read_data(argv[1], &info, x, sizeof x, err, sizeof err) != 0) {
        fprintf(stderr, "alpha_check: %s: bad input\n", argv[1]);
        return 1;
    }
    if (m_init(&ctx, arena, M_ARENA_SIZE) != LSTMC_RT_OK || ctx.alpha_intra != 0.0f ||
        ctx.alpha_inter != 0.0f)
        return 1;
    for (pass = 0; pass < 2; pass++) {
        float alpha = pass ? (float)atof(argv[3]) : 0.0f;

        if (m_set_thresholds(&ctx, inter ? alpha : 0.0f, inter ? 0.0f : alpha) != LSTMC_RT_OK ||
            m_run(&ctx, in, out) != 0) {
            fprintf(stderr, "alpha_check: run failed\n");
            return 1;
        }
        if (inter)
            printf("%g %lld %lld %lld %lld\n", (double)alpha, (long long)ctx.tissue_stats.cells,
                   (long long)ctx.tissue_stats.links, (long long)ctx.tissue_stats.sub_layers,
                   (long long)ctx.tissue_stats.tissues);
        else
            printf("%g %lld %lld %lld %lld\n", (double)alpha, (long long)ctx.drs_stats.cells,
                   (long long)ctx.drs_stats.rows_total, (long long)ctx.drs_stats.rows_skipped,
                   (long long)ctx.drs_stats.rows_loaded);
    }
    return save(argv[2], "Y", M_OUTPUT_0_RANK, d0, y0) ||
           save(argv[2], "Y_h", M_OUTPUT_1_RANK, d1, y1) ||
           save(argv[2], "Y_c", M_OUTPUT_2_RANK, d2, y2);
}
