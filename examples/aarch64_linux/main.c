/*
 * main.c — the CPU side of a Jetson TX1 (4x Cortex-A57, aarch64 Linux) classifying one
 * window of motion-sensor data with the HAR model that lstmc compiled for --target=tegra-x1:
 * the recurrent layers run in the LLVM-emitted aarch64 object har_kernels.o (NEON, shapes
 * as constants), the rest in the generated C and its runtime. See README.md for the build.
 *
 *   har_tx1 WINDOW.npy [REFERENCE.npy] [--repeat N]
 *
 * WINDOW is float32 [1, 128, 9] (128 steps of 9 channels at 50 Hz). It prints the six class
 * scores, the most likely class and the time per window (the median of N runs, 1 by
 * default). With REFERENCE (float32 [1, 6], e.g. ONNX Runtime's output for the same
 * window) it compares every score at the fixtures' tolerance, |got - want| <=
 * 1e-5 + 1e-4 |want|, and exits 1 on a mismatch. Memory: one static arena, no heap in the
 * model's run path.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "har.h"
#include "lstmc_rt_npy.h"

#define MAX_REPEAT 10000

static unsigned char arena_raw[HAR_ARENA_SIZE + LSTMC_RT_ALIGN];
static float window[HAR_INPUT_0_NUMEL];
static float probs[HAR_OUTPUT_0_NUMEL];
static float want[HAR_OUTPUT_0_NUMEL];
static double run_us[MAX_REPEAT];

/* Read a float32 .npy of exactly the given shape into buf. */
static int
load(const char *path, const int64_t *shape, int rank, float *buf, size_t n)
{
    lstmc_npy_info info;
    char err[256];
    int k;
    if (lstmc_npy_info_read(path, &info, err, sizeof err) != 0) {
        fprintf(stderr, "har_tx1: %s: %s\n", path, err);
        return -1;
    }
    if (info.dtype != LSTMC_RT_F32 || info.rank != rank) {
        fprintf(stderr, "har_tx1: %s: want a float32 array of rank %d\n", path, rank);
        return -1;
    }
    for (k = 0; k < rank; k++)
        if (info.dims[k] != shape[k]) {
            fprintf(stderr, "har_tx1: %s: dim %d is %lld, want %lld\n", path, k,
                    (long long)info.dims[k], (long long)shape[k]);
            return -1;
        }
    if (lstmc_npy_read_data(path, &info, buf, n * sizeof *buf, err, sizeof err) != 0) {
        fprintf(stderr, "har_tx1: %s: %s\n", path, err);
        return -1;
    }
    return 0;
}

static double
now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
    static const int64_t in_shape[] = HAR_INPUT_0_SHAPE, out_shape[] = HAR_OUTPUT_0_SHAPE;
    unsigned char *arena =
        arena_raw + (LSTMC_RT_ALIGN - (size_t)arena_raw % LSTMC_RT_ALIGN) % LSTMC_RT_ALIGN;
    const char *window_path = NULL, *ref_path = NULL;
    const void *inputs[HAR_N_INPUTS];
    void *outputs[HAR_N_OUTPUTS];
    har_ctx ctx;
    lstmc_rt_status st;
    int i, repeat = 1, best = 0, bad = 0;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            repeat = atoi(argv[++i]);
            if (repeat < 1 || repeat > MAX_REPEAT) {
                fprintf(stderr, "har_tx1: --repeat takes 1 to %d\n", MAX_REPEAT);
                return 2;
            }
        } else if (!window_path) {
            window_path = argv[i];
        } else if (!ref_path) {
            ref_path = argv[i];
        } else {
            fprintf(stderr, "har_tx1: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!window_path) {
        fprintf(stderr, "usage: har_tx1 WINDOW.npy [REFERENCE.npy] [--repeat N]\n");
        return 2;
    }
    if (load(window_path, in_shape, HAR_INPUT_0_RANK, window, HAR_INPUT_0_NUMEL) != 0 ||
        (ref_path && load(ref_path, out_shape, HAR_OUTPUT_0_RANK, want, HAR_OUTPUT_0_NUMEL) != 0))
        return 1;

    inputs[0] = window;
    outputs[0] = probs;
    st = har_init(&ctx, arena, HAR_ARENA_SIZE);
    for (i = 0; i < repeat && st == LSTMC_RT_OK; i++) {
        double t0 = now_us();
        st = har_run(&ctx, inputs, outputs);
        run_us[i] = now_us() - t0;
    }
    if (st != LSTMC_RT_OK) {
        fprintf(stderr, "har_tx1: %s\n", lstmc_rt_status_str(st));
        return 1;
    }
    qsort(run_us, (size_t)repeat, sizeof run_us[0], cmp_double);

    printf("class scores:");
    for (i = 0; i < HAR_OUTPUT_0_NUMEL; i++) {
        printf(" %.5f", (double)probs[i]);
        if (probs[i] > probs[best])
            best = i;
    }
    printf("\nmost likely class: %d\n", best);
    printf("%.1f us per window (median of %d), arena %u bytes\n", run_us[repeat / 2], repeat,
           (unsigned)HAR_ARENA_SIZE);
    if (ref_path) {
        double worst = 0.0;
        for (i = 0; i < HAR_OUTPUT_0_NUMEL; i++) {
            double d = fabs((double)probs[i] - (double)want[i]);
            if (d > worst)
                worst = d;
            if (!(d <= 1e-5 + 1e-4 * fabs((double)want[i]))) {
                fprintf(stderr, "har_tx1: class %d: %.7g, reference %.7g\n", i,
                        (double)probs[i], (double)want[i]);
                bad = 1;
            }
        }
        printf("reference %s: %s (largest difference %.3g)\n", ref_path,
               bad ? "MISMATCH" : "match", worst);
    }
    return bad;
}
