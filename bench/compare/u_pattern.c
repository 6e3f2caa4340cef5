/*
 * u_pattern.c — read bandwidth of lstmc's RnnRec access pattern over U against a contiguous
 * sweep of the same buffer (the measurement behind the notes in bench/RESULTS.md, issue 4).
 *
 *   cc -O2 -march=native bench/compare/u_pattern.c -o u_pattern && ./u_pattern K N
 *
 * U is packed [K][N] floats (K = H inputs, N = 4H gate columns). The tiled sweep reads it as
 * the LLVM RnnRec kernel does: for each tile of 128 columns (8 zmm accumulators), every row k,
 * 512 bytes at the row stride 4N bytes. Best of 15 alternating repetitions of each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef float v16 __attribute__((vector_size(64)));

static double
now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
    long K, N, tile = 128, c, k;
    size_t bytes, i;
    double best_c = 0, best_t = 0;
    v16 s[8] = {{0}};
    v16 *u;
    int rep, j;
    if (argc != 3) {
        fprintf(stderr, "usage: u_pattern K N\n");
        return 2;
    }
    K = atol(argv[1]);
    N = atol(argv[2]);
    bytes = (size_t)K * (size_t)N * 4;
    if (K < 1 || N < tile || N % tile || posix_memalign((void **)&u, 64, bytes) != 0) {
        fprintf(stderr, "u_pattern: need K >= 1 and N a multiple of %ld\n", tile);
        return 2;
    }
    for (i = 0; i < bytes / 64; i++) {
        v16 z = {0};
        z[0] = (float)(i & 7);
        u[i] = z;
    }
    for (rep = 0; rep < 15; rep++) {
        double t0 = now_s(), t1, t2;
        for (i = 0; i + 8 <= bytes / 64; i += 8)
#pragma GCC unroll 8
            for (j = 0; j < 8; j++)
                s[j] += u[i + j];
        t1 = now_s();
        for (c = 0; c < N; c += tile)
            for (k = 0; k < K; k++) {
                const v16 *p = u + (k * N + c) / 16;
#pragma GCC unroll 8
                for (j = 0; j < 8; j++)
                    s[j] += p[j];
            }
        t2 = now_s();
        if (bytes / (t1 - t0) / 1e9 > best_c)
            best_c = bytes / (t1 - t0) / 1e9;
        if (bytes / (t2 - t1) / 1e9 > best_t)
            best_t = bytes / (t2 - t1) / 1e9;
        __asm__ volatile("" : : "x"(s[0]), "x"(s[1]), "x"(s[2]), "x"(s[3]));
        __asm__ volatile("" : : "x"(s[4]), "x"(s[5]), "x"(s[6]), "x"(s[7]));
    }
    printf("U %ld x %ld (%.1f MiB): contiguous %.1f GB/s, column tiles of %ld (row stride %ld B) "
           "%.1f GB/s\n",
           K, N, bytes / 1048576.0, best_c, tile, N * 4, best_t);
    free(u);
    return 0;
}
