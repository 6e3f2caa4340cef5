/*
 * tune_harness.c — the measuring program of `lstmc tune` (compiler/tools/tune/tune.c). lstmc embeds
 * this file, writes it next to a library it generated and builds it with the library:
 *
 *   cc -O2 -DMODEL_H='"NAME.h"' -DPFX=NAME -DUPFX=UPPER_NAME -DN_LAYERS=L [-DBASELINE]
 *      tune_harness.c runtime/src/rt_npy.c libNAME.a -lm
 *
 *   harness X.npy FIRST COUNT REPS OUT.npy [ALPHA_INTER ALPHA_INTRA]...
 *
 * For every threshold pair (set per run with NAME_set_thresholds, no recompilation; one set
 * and no pairs with -DBASELINE, a library compiled without the approximations), runs samples
 * FIRST .. FIRST+COUNT-1 of X (samples of the model's one input stacked on axis 0) once per
 * round, REPS rounds, the sets interleaved within each round (LSTMC_TUNE_PROGRESS in the
 * environment: a progress line per round and set on stderr), and prints one line per set
 *
 *   SET MEDIAN_US TISSUES_PER_LAYER SUB_LAYERS_PER_LAYER ROWS_SKIPPED_FRACTION
 *
 * after a first line "out C NUMEL" (the last dim and the element count of output 0)
 * (median microseconds of one inference over COUNT * REPS runs; the tissue counts are the
 * runtime's tissue_stats, which sum the layers of a run, over N_LAYERS, averaged over the
 * samples; 0 with -DBASELINE; the fraction is ctx.drs_stats' rows skipped over rows, dynamic
 * row skip, over every run). OUT.npy receives output 0 of every run: float32
 * [SETS, COUNT, OUTPUT_0_NUMEL]; the model's other outputs (a PyTorch LSTM's h_n and c_n,
 * say; up to MAX_OUTS in all) are written to buffers of their own and not kept. The caller
 * (lstmc) scores the outputs.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include MODEL_H
#include "lstmc_rt_npy.h"

#define CAT_(a, b) a##b
#define CAT(a, b)  CAT_(a, b)
#define API(s)     CAT(PFX, s)
#define MAC(s)     CAT(UPFX, s)

static unsigned char arena_raw[MAC(_ARENA_SIZE) + LSTMC_RT_ALIGN];

#define MAX_OUTS 16
/* output i's bytes, rounded up to whole 64-byte lines (0 past the model's outputs) */
#define OUT_BYTES(i)                                                                               \
    (((size_t)MAC(_OUTPUT_##i##_NUMEL) * lstmc_rt_dtype_size(MAC(_OUTPUT_##i##_DTYPE)) + 63) /     \
     64 * 64)

/* the buffers of outputs 1 .. N_OUTPUTS - 1 (output 0 goes to the results) */
static int
other_outputs(void **o)
{
    size_t bytes[MAX_OUTS] = {0}, total = 0;
    unsigned char *buf;
    int i;
#if MAC(_N_OUTPUTS) > MAX_OUTS
    return -1;
#endif
#if MAC(_N_OUTPUTS) > 1
    bytes[1] = OUT_BYTES(1);
#endif
#if MAC(_N_OUTPUTS) > 2
    bytes[2] = OUT_BYTES(2);
#endif
#if MAC(_N_OUTPUTS) > 3
    bytes[3] = OUT_BYTES(3);
#endif
#if MAC(_N_OUTPUTS) > 4
    bytes[4] = OUT_BYTES(4);
#endif
#if MAC(_N_OUTPUTS) > 5
    bytes[5] = OUT_BYTES(5);
#endif
#if MAC(_N_OUTPUTS) > 6
    bytes[6] = OUT_BYTES(6);
#endif
#if MAC(_N_OUTPUTS) > 7
    bytes[7] = OUT_BYTES(7);
#endif
#if MAC(_N_OUTPUTS) > 8
    bytes[8] = OUT_BYTES(8);
#endif
#if MAC(_N_OUTPUTS) > 9
    bytes[9] = OUT_BYTES(9);
#endif
#if MAC(_N_OUTPUTS) > 10
    bytes[10] = OUT_BYTES(10);
#endif
#if MAC(_N_OUTPUTS) > 11
    bytes[11] = OUT_BYTES(11);
#endif
#if MAC(_N_OUTPUTS) > 12
    bytes[12] = OUT_BYTES(12);
#endif
#if MAC(_N_OUTPUTS) > 13
    bytes[13] = OUT_BYTES(13);
#endif
#if MAC(_N_OUTPUTS) > 14
    bytes[14] = OUT_BYTES(14);
#endif
#if MAC(_N_OUTPUTS) > 15
    bytes[15] = OUT_BYTES(15);
#endif
    for (i = 1; i < MAX_OUTS; i++)
        total += bytes[i];
    buf = total ? aligned_alloc(64, total) : NULL;
    if (total && !buf)
        return -1;
    for (i = 1; i < MAX_OUTS; i++) {
        o[i] = buf;
        buf += bytes[i];
    }
    return 0;
}

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

static int
fail(const char *what)
{
    fprintf(stderr, "tune_harness: %s\n", what);
    return 1;
}

int
main(int argc, char **argv)
{
    unsigned char *arena =
        arena_raw + (LSTMC_RT_ALIGN - (size_t)arena_raw % LSTMC_RT_ALIGN) % LSTMC_RT_ALIGN;
    const int64_t numel = MAC(_OUTPUT_0_NUMEL);
    char err[256];
    lstmc_npy_info xi;
    unsigned char *X;
    float *outs;
    double *times;
    int64_t first, count, k, dims[3];
    int reps, s, r, n_sets, progress = getenv("LSTMC_TUNE_PROGRESS") != NULL;
    double *stats; /* per set: tissues, sub-layers, rows, rows skipped (summed, round 0) */
    size_t sample_bytes;
    void *o[MAX_OUTS] = {0};
    API(_ctx) ctx;

    if (argc < 6 || (argc - 6) % 2 != 0)
        return fail("usage: harness X.npy FIRST COUNT REPS OUT.npy [ALPHA_INTER ALPHA_INTRA]...");
    if (MAC(_OUTPUT_0_DTYPE) != LSTMC_RT_F32)
        return fail("output 0 is not float32");
    if (other_outputs(o) != 0)
        return fail("more than 16 outputs, or out of memory");
    if (lstmc_npy_info_read(argv[1], &xi, err, sizeof err) != 0 || xi.rank < 1 || xi.dims[0] < 1)
        return fail(err);
    first = atoll(argv[2]);
    count = atoll(argv[3]);
    reps = atoi(argv[4]);
    sample_bytes = xi.n_bytes / (size_t)xi.dims[0];
    if (sample_bytes != (size_t)MAC(_INPUT_0_NUMEL) * lstmc_rt_dtype_size(MAC(_INPUT_0_DTYPE)) ||
        first < 0 || count < 1 || first + count > xi.dims[0] || reps < 1)
        return fail("the data does not fit the model, or the sample range is wrong");
#ifdef BASELINE
    n_sets = 1;
#else
    n_sets = (argc - 6) / 2;
    if (n_sets < 1)
        return fail("no threshold pairs");
#endif
    X = malloc(xi.n_bytes);
    outs = malloc((size_t)(n_sets * count * numel) * sizeof *outs);
    times = malloc((size_t)(n_sets * count * reps) * sizeof *times);
    stats = calloc((size_t)n_sets * 4, sizeof *stats);
    if (!X || !outs || !times || !stats)
        return fail("out of memory");
    if (lstmc_npy_read_data(argv[1], &xi, X, xi.n_bytes, err, sizeof err) != 0)
        return fail(err);
    if (API(_init)(&ctx, arena, MAC(_ARENA_SIZE)) != LSTMC_RT_OK)
        return fail("init failed");
    {
        static const int64_t oshape[] = MAC(_OUTPUT_0_SHAPE);
        printf("out %lld %lld\n", (long long)oshape[MAC(_OUTPUT_0_RANK) - 1], (long long)numel);
    }
    /* rounds outermost: every set runs once per round, so a change of the machine's load
     * during the measurement hits every set alike */
    for (r = 0; r < reps; r++) {
        for (s = 0; s < n_sets; s++) {
            double *st = stats + 4 * s;
#ifndef BASELINE
            if (API(_set_thresholds)(&ctx, (float)atof(argv[6 + 2 * s]),
                                     (float)atof(argv[7 + 2 * s])) != LSTMC_RT_OK)
                return fail("bad thresholds");
#endif
            if (progress)
                fprintf(stderr, "lstmc: tune: round %d/%d, set %d/%d\n", r + 1, reps, s + 1,
                        n_sets);
            for (k = 0; k < count; k++) {
                const void *in[1];
                double t0;
                in[0] = X + (size_t)(first + k) * sample_bytes;
                o[0] = outs + (s * count + k) * numel;
                t0 = now_us();
                if (API(_run)(&ctx, in, o) != LSTMC_RT_OK)
                    return fail("run failed");
                times[(s * count + k) * reps + r] = now_us() - t0;
#ifndef BASELINE
                if (r == 0) {
                    st[0] += (double)ctx.tissue_stats.tissues / N_LAYERS;
                    st[1] += (double)ctx.tissue_stats.sub_layers / N_LAYERS;
                    st[2] += (double)ctx.drs_stats.rows_total;
                    st[3] += (double)ctx.drs_stats.rows_skipped;
                }
#endif
            }
        }
    }
    for (s = 0; s < n_sets; s++) {
        double *t = times + s * count * reps, *st = stats + 4 * s;
        qsort(t, (size_t)(count * reps), sizeof *t, cmp_d);
        printf("%d %.3f %.4f %.4f %.6f\n", s, t[count * reps / 2], st[0] / count, st[1] / count,
               st[2] > 0 ? st[3] / st[2] : 0.0);
    }
    dims[0] = n_sets;
    dims[1] = count;
    dims[2] = numel;
    if (lstmc_npy_write(argv[5], LSTMC_RT_F32, 3, dims, outs, err, sizeof err) != 0)
        return fail(err);
    free(X);
    free(stats);
    free(outs);
    free(times);
    return 0;
}
