/*
 * roofline.c — the machine's ceilings for bench/compare: peak fp32 FMA rate and read
 * bandwidth of L1, L2, L3 and DRAM, with 1 and 2 threads. Prints one JSON object.
 *
 *   cc -O2 -march=native -pthread roofline.c -o roofline && ./roofline [--quick]
 *
 * FMA: each thread runs independent chains of vector FMAs (16 accumulators, enough to cover
 * the FMA latency on two ports) with the widest vectors the compiler targets (-march=native:
 * 512-bit on AVX-512 parts), and with 256-bit vectors for the AVX2 ceiling.
 * Bandwidth: each thread sums its own buffer of the given size over and over (streaming
 * reads, 8 independent vector accumulators); the buffer is touched before timing so the
 * level it fits in is warm. The best of several repetitions is kept (a ceiling).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float v16 __attribute__((vector_size(64)));
typedef float v8 __attribute__((vector_size(32)));

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct job {
    int kind; /* 0: FMA 512-bit, 1: FMA 256-bit, 2: read */
    long iters;
    float *buf;
    size_t n; /* floats in buf */
    double sink;
    pthread_barrier_t *bar;
    double seconds;
} job;

#define FMA_BODY(V, W)                                                                    \
    do {                                                                                  \
        V a[16], m, c;                                                                    \
        int k;                                                                            \
        for (k = 0; k < W; k++) {                                                         \
            m[k] = 0.999999f;                                                             \
            c[k] = 1e-7f;                                                                 \
        }                                                                                 \
        for (k = 0; k < 16; k++)                                                          \
            a[k] = m * (float)k;                                                          \
        for (i = 0; i < j->iters; i++) {                                                  \
            /* fully unrolled, so the 16 chains live in registers */                      \
            _Pragma("GCC unroll 16") for (k = 0; k < 16; k++) a[k] = a[k] * m + c;       \
        }                                                                                 \
        for (k = 1; k < 16; k++)                                                          \
            a[0] += a[k];                                                                 \
        j->sink = a[0][0];                                                                \
    } while (0)

static void *
job_main(void *p)
{
    job *j = p;
    long i;
    double t0;
    pthread_barrier_wait(j->bar);
    t0 = now_s();
    if (j->kind == 0) {
        FMA_BODY(v16, 16);
    } else if (j->kind == 1) {
        FMA_BODY(v8, 8);
    } else {
        /* 8 chains: two loads a cycle times the add latency of 4 */
        v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0}, s5 = {0}, s6 = {0}, s7 = {0};
        for (i = 0; i < j->iters; i++) {
            const v16 *v = (const v16 *)j->buf;
            size_t k, nv = j->n / 16;
            for (k = 0; k + 8 <= nv; k += 8) {
                s0 += v[k];
                s1 += v[k + 1];
                s2 += v[k + 2];
                s3 += v[k + 3];
                s4 += v[k + 4];
                s5 += v[k + 5];
                s6 += v[k + 6];
                s7 += v[k + 7];
            }
            __asm__ volatile("" : : "x"(s0), "x"(s1), "x"(s2), "x"(s3));
            __asm__ volatile("" : : "x"(s4), "x"(s5), "x"(s6), "x"(s7));
        }
        s0 += s1 + s2 + s3 + s4 + s5 + s6 + s7;
        j->sink = s0[0];
    }
    j->seconds = now_s() - t0;
    return NULL;
}

/* Run nt threads of kind; returns the wall time of the slowest. */
static double
run_jobs(int nt, int kind, long iters, float **bufs, size_t n)
{
    pthread_t th[2];
    job jobs[2];
    pthread_barrier_t bar;
    double worst = 0;
    int t;
    pthread_barrier_init(&bar, NULL, (unsigned)nt);
    for (t = 0; t < nt; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].kind = kind;
        jobs[t].iters = iters;
        jobs[t].buf = bufs ? bufs[t] : NULL;
        jobs[t].n = n;
        jobs[t].bar = &bar;
        pthread_create(&th[t], NULL, job_main, &jobs[t]);
    }
    for (t = 0; t < nt; t++) {
        pthread_join(th[t], NULL);
        if (jobs[t].seconds > worst)
            worst = jobs[t].seconds;
    }
    pthread_barrier_destroy(&bar);
    return worst;
}

/* Peak GFLOP/s (2 per FMA lane) of nt threads, best of reps. */
static double
fma_peak(int nt, int kind, int reps)
{
    int lanes = kind == 0 ? 16 : 8, r;
    long iters = 2000000;
    double best = 0;
    for (r = 0; r < reps; r++) {
        double s = run_jobs(nt, kind, iters, NULL, 0);
        double g = 2.0 * lanes * 16 * (double)iters * nt / s / 1e9;
        if (g > best)
            best = g;
    }
    return best;
}

/* Read GB/s of nt threads, each over its own buffer of bytes, best of reps. */
static double
read_bw(int nt, size_t bytes, int reps, double target_s)
{
    float *bufs[2];
    size_t n = bytes / sizeof(float);
    long iters;
    double best = 0, s;
    int t, r;
    for (t = 0; t < nt; t++) {
        if (posix_memalign((void **)&bufs[t], 64, bytes) != 0) {
            fprintf(stderr, "roofline: out of memory\n");
            exit(1);
        }
        for (size_t i = 0; i < n; i++)
            bufs[t][i] = (float)(i & 7);
    }
    s = run_jobs(nt, 2, 1, bufs, n); /* warm, and a time to size the runs */
    iters = (long)(target_s / (s > 1e-9 ? s : 1e-9)) + 1;
    for (r = 0; r < reps; r++) {
        double g;
        s = run_jobs(nt, 2, iters, bufs, n);
        g = (double)bytes * (double)iters * nt / s / 1e9;
        if (g > best)
            best = g;
    }
    for (t = 0; t < nt; t++)
        free(bufs[t]);
    return best;
}

int
main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    int reps = quick ? 2 : 5;
    double tgt = quick ? 0.02 : 0.1;
    /* Sizes: well inside L1d (48 KiB) and L2 (2 MiB) per core, past L2 and inside L3, and far
     * past every cache (DRAM). compare.py passes the cache sizes it read from sysfs. */
    size_t l1 = 16u << 10, l2 = 1u << 20, l3 = 16u << 20, dram = 1024u << 20;
    int t;
    if (argc > 2) {
        l1 = strtoull(argv[2], NULL, 10);
        l2 = strtoull(argv[3], NULL, 10);
        l3 = strtoull(argv[4], NULL, 10);
        dram = strtoull(argv[5], NULL, 10);
    }
    printf("{");
    for (t = 1; t <= 2; t++) {
        printf("%s\"fma512_t%d\": %.2f, \"fma256_t%d\": %.2f, ", t > 1 ? ", " : "", t,
               fma_peak(t, 0, reps), t, fma_peak(t, 1, reps));
        printf("\"L1_t%d\": %.2f, \"L2_t%d\": %.2f, \"L3_t%d\": %.2f, \"DRAM_t%d\": %.2f", t,
               read_bw(t, l1, reps, tgt), t, read_bw(t, l2, reps, tgt), t,
               read_bw(t, l3, reps, tgt), t, read_bw(t, dram, quick ? 1 : 3, tgt));
    }
    printf(", \"sizes\": [%zu, %zu, %zu, %zu]}\n", l1, l2, l3, dram);
    return 0;
}
