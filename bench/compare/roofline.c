/*
 * roofline.c — the machine's ceilings for bench/compare: peak fp32 FMA rate and read
 * bandwidth of L1, L2, L3 and DRAM, with 1 and 2 threads. Prints one JSON object.
 *
 *   cc -O2 -march=native -pthread roofline.c -o roofline
 *   ./roofline --quick|--full [L1_BYTES L2_BYTES L3_BYTES DRAM_BYTES]
 *
 * FMA: each thread runs 16 independent chains of vector FMAs (enough to cover the FMA latency
 * on two ports) with 512-bit vectors, and with 256-bit vectors for the AVX2 ceiling.
 * Bandwidth: each thread sums its own buffer of the given size (streaming reads, 8 vector
 * accumulators); the buffer is touched first, so the level it fits in is warm. For DRAM the
 * buffer is swept in 64 MiB pieces, each far past the caches.
 * Every figure is the best of many short samples (about half a millisecond each; the threads
 * start each sample together at a barrier): a ceiling, and robust to the preemptions of a
 * shared machine, which would only make a long sample slower.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float v16 __attribute__((vector_size(64)));
typedef float v8 __attribute__((vector_size(32)));

#define MAX_SAMPLES 4096

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct job {
    int kind;      /* 0: FMA 512-bit, 1: FMA 256-bit, 2: read */
    long iters;    /* FMA rounds, or sweeps of the piece, per sample */
    int samples;
    float *buf;
    size_t n;      /* floats in buf */
    size_t piece;  /* floats read per sweep (the whole buffer, or a DRAM piece) */
    double sink;
    pthread_barrier_t *bar;
    double t0[MAX_SAMPLES], t1[MAX_SAMPLES];
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
        j->sink += a[0][0];                                                               \
    } while (0)

static void
read_sweeps(job *j, size_t off)
{
    /* 8 chains: two loads a cycle times the add latency of 4 */
    v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0}, s5 = {0}, s6 = {0}, s7 = {0};
    long i;
    for (i = 0; i < j->iters; i++) {
        const v16 *v = (const v16 *)(j->buf + off);
        size_t k, nv = j->piece / 16;
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
    j->sink += s0[0];
}

static void *
job_main(void *p)
{
    job *j = p;
    long i;
    int s;
    size_t off = 0;
    for (s = 0; s < j->samples; s++) {
        pthread_barrier_wait(j->bar);
        j->t0[s] = now_s();
        if (j->kind == 0) {
            FMA_BODY(v16, 16);
        } else if (j->kind == 1) {
            FMA_BODY(v8, 8);
        } else {
            read_sweeps(j, off);
            off = off + 2 * j->piece <= j->n ? off + j->piece : 0;
        }
        j->t1[s] = now_s();
    }
    return NULL;
}

/* Run nt threads of kind for the given samples; returns the shortest sample (from the first
 * thread's start to the last thread's end). */
static double
run_jobs(int nt, int kind, long iters, int samples, float **bufs, size_t n, size_t piece)
{
    static job jobs[2];
    pthread_t th[2];
    pthread_barrier_t bar;
    double best = 1e30;
    int t, s;
    pthread_barrier_init(&bar, NULL, (unsigned)nt);
    for (t = 0; t < nt; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].kind = kind;
        jobs[t].iters = iters;
        jobs[t].samples = samples;
        jobs[t].buf = bufs ? bufs[t] : NULL;
        jobs[t].n = n;
        jobs[t].piece = piece;
        jobs[t].bar = &bar;
        pthread_create(&th[t], NULL, job_main, &jobs[t]);
    }
    for (t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    for (s = 0; s < samples; s++) {
        double a = jobs[0].t0[s], b = jobs[0].t1[s];
        for (t = 1; t < nt; t++) {
            a = jobs[t].t0[s] < a ? jobs[t].t0[s] : a;
            b = jobs[t].t1[s] > b ? jobs[t].t1[s] : b;
        }
        if (b - a < best)
            best = b - a;
    }
    pthread_barrier_destroy(&bar);
    return best;
}

/* Peak GFLOP/s (2 per FMA lane) of nt threads. */
static double
fma_peak(int nt, int kind, int samples)
{
    int lanes = kind == 0 ? 16 : 8;
    long iters = 20000; /* 320k FMAs a thread: ~0.1-0.2 ms */
    double s = run_jobs(nt, kind, iters, samples, NULL, 0, 0);
    return 2.0 * lanes * 16 * (double)iters * nt / s / 1e9;
}

/* Read GB/s of nt threads, each over its own buffer of bytes; a buffer over 64 MiB (DRAM) is
 * read in 64 MiB pieces and samples counts passes over it. */
static double
read_bw(int nt, size_t bytes, int samples)
{
    float *bufs[2];
    size_t n = bytes / sizeof(float), piece = n < (16u << 20) ? n : (16u << 20);
    long iters;
    double s;
    int t;
    for (t = 0; t < nt; t++) {
        if (posix_memalign((void **)&bufs[t], 64, bytes) != 0) {
            fprintf(stderr, "roofline: out of memory\n");
            exit(1);
        }
        for (size_t i = 0; i < n; i++)
            bufs[t][i] = (float)(i & 7);
    }
    /* one sweep, warm, to size the samples to about half a millisecond */
    s = run_jobs(nt, 2, 1, 3, bufs, n, piece);
    iters = (long)(0.5e-3 / (s > 1e-9 ? s : 1e-9)) + 1;
    if (piece < n) {
        iters = 1; /* DRAM: one piece per sample, the next piece each time; samples = passes */
        samples *= (int)(n / piece);
    }
    s = run_jobs(nt, 2, iters, samples, bufs, n, piece);
    for (t = 0; t < nt; t++)
        free(bufs[t]);
    return (double)piece * sizeof(float) * (double)iters * nt / s / 1e9;
}

int
main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    int samples = quick ? 200 : 1000;
    /* Defaults: well inside L1d (48 KiB) and L2 (2 MiB) per core, past L2 and inside L3, and
     * far past every cache (DRAM). compare.py passes sizes from the sysfs cache sizes. */
    size_t l1 = 16u << 10, l2 = 1u << 20, l3 = 8u << 20, dram = 1024u << 20;
    int t;
    if (argc > 5) {
        l1 = strtoull(argv[2], NULL, 10);
        l2 = strtoull(argv[3], NULL, 10);
        l3 = strtoull(argv[4], NULL, 10);
        dram = strtoull(argv[5], NULL, 10);
    }
    printf("{");
    for (t = 1; t <= 2; t++) {
        printf("%s\"fma512_t%d\": %.2f, \"fma256_t%d\": %.2f, ", t > 1 ? ", " : "", t,
               fma_peak(t, 0, samples), t, fma_peak(t, 1, samples));
        printf("\"L1_t%d\": %.2f, \"L2_t%d\": %.2f, \"L3_t%d\": %.2f, \"DRAM_t%d\": %.2f", t,
               read_bw(t, l1, samples), t, read_bw(t, l2, samples), t,
               read_bw(t, l3, quick ? 50 : 200), t, read_bw(t, dram, quick ? 1 : 2));
    }
    printf(", \"sizes\": [%zu, %zu, %zu, %zu]}\n", l1, l2, l3, dram);
    return 0;
}
