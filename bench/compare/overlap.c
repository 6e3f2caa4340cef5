/*
 * overlap.c — how much of an input projection's FMAs one core can hide under the recurrent
 * product's stream of U (issue 23: lstmc runs a layer's projection, compute-bound, and then
 * its recurrence, bandwidth-bound, one after the other). Per step, h U over U [K, N] in
 * panels of 128 columns (8 zmm accumulators, U read once, from L2 or L3 by its size), and a
 * projection-like block of ROWS rows of X (4 by default) by 2 vectors of a W panel that stays
 * in L1/L2 (2 ROWS FMAs per k against the GEMV's 8: ROWS 2 is one step's projection of
 * I = H, ROWS 4 twice that), alone and in the same loop body:
 *
 *   cc -O3 -march=native -o overlap bench/compare/overlap.c
 *   ./overlap K N REPS MODE [ROWS]   (MODE 1: h U alone, 2: the block alone, 3: both)
 *
 * x86-64 with AVX-512 only. Prints microseconds per step and U's bytes per second.
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
    int K, N, reps, mode, rows = 4, r, c, k, j;
    float *U, *h, *out, *W, *X, acc;
    __m512 p[8];
    double t0, t;
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: overlap K N REPS MODE [ROWS]\n");
        return 2;
    }
    K = atoi(argv[1]), N = atoi(argv[2]), reps = atoi(argv[3]), mode = atoi(argv[4]);
    if (argc == 6)
        rows = atoi(argv[5]);
    if (K < 1 || N < 128 || N % 128 || reps < 1 || mode < 1 || mode > 3 || rows < 1 || rows > 4) {
        fprintf(stderr, "overlap: K >= 1, N a multiple of 128, REPS >= 1, MODE 1..3, ROWS 1..4\n");
        return 2;
    }
    U = aligned_alloc(64, (size_t)K * N * 4);
    h = aligned_alloc(64, ((size_t)K * 4 + 63) / 64 * 64);
    out = aligned_alloc(64, (size_t)N * 4);
    W = aligned_alloc(64, (size_t)K * 128 * 4);
    X = aligned_alloc(64, ((size_t)4 * K * 4 + 63) / 64 * 64);
    if (!U || !h || !out || !W || !X) {
        fprintf(stderr, "overlap: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < (size_t)K * N; i++)
        U[i] = 1e-3f * (float)(i % 7);
    for (k = 0; k < K; k++)
        h[k] = 0.5f;
    for (k = 0; k < K * 128; k++)
        W[k] = 1e-3f;
    for (k = 0; k < 4 * K; k++)
        X[k] = 0.25f;
    for (j = 0; j < 8; j++)
        p[j] = _mm512_setzero_ps();
    t0 = now();
    for (r = 0; r < reps; r++)
        for (c = 0; c < N; c += 128) {
            const float *u = U + (size_t)c * K;
            const int wo = (c / 128) % 4 * 32;
            __m512 a[8];
            for (j = 0; j < 8; j++)
                a[j] = _mm512_setzero_ps();
            for (k = 0; k < K; k++) {
                if (mode & 1) {
                    const __m512 s = _mm512_set1_ps(h[k]);
                    const float *q = u + (size_t)k * 128;
                    for (j = 0; j < 8; j++)
                        a[j] = _mm512_fmadd_ps(s, _mm512_load_ps(q + 16 * j), a[j]);
                }
                if (mode & 2) {
                    const __m512 w0 = _mm512_load_ps(W + (size_t)k * 128 + wo);
                    const __m512 w1 = _mm512_load_ps(W + (size_t)k * 128 + wo + 16);
                    for (j = 0; j < rows; j++) {
                        const __m512 x = _mm512_set1_ps(X[j * K + k]);
                        p[2 * j] = _mm512_fmadd_ps(x, w0, p[2 * j]);
                        p[2 * j + 1] = _mm512_fmadd_ps(x, w1, p[2 * j + 1]);
                    }
                }
            }
            for (j = 1; j < 8; j++)
                a[0] = _mm512_add_ps(a[0], a[j]);
            _mm512_store_ps(out + c % N, a[0]);
        }
    t = (now() - t0) / reps;
    acc = out[0];
    for (j = 0; j < 8; j++)
        acc += _mm512_reduce_add_ps(p[j]);
    printf("K %d N %d mode %d: %.2f us/step (%.1f GB/s of U) [%g]\n", K, N, mode, t * 1e6,
           (double)K * N * 4 / t / 1e9, acc);
    return 0;
}
