/*
 * esell_sizes.c — E-LSTM Fig. 9: the size of a sparse matrix as dense, CSR, CSC, SELL and
 * eSELL (and the RoCC word stream that carries eSELL), for the paper's 768 x 768 example
 * across sparsities and for the Table 2 weight matrices at their sparsities.
 *
 *   esell_sizes            the table, in KiB (values fp16; see docs/ELSTM.md for the
 *                          index widths each format is given)
 *
 * Matrices are random: each element zero with probability Sp (the paper's Fig. 9 matrix
 * is a random sparse matrix too, scipy.sparse.rand in the authors' scripts).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "arena.h"
#include "esell.h"

static uint64_t state = 666;

static double
urand(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) / 9007199254740992.0;
}

static double
kib(int64_t bits)
{
    return (double)bits / 8.0 / 1024.0;
}

static int
row(const char *name, int64_t rows, int64_t cols, double sp)
{
    arena *a = arena_new(0);
    float *m = malloc((size_t)(rows * cols) * sizeof *m);
    esell e;
    esell_sizes s;
    int64_t i;
    if (!m || !a)
        return -1;
    for (i = 0; i < rows * cols; i++)
        m[i] = urand() < sp ? 0.0f : (float)(urand() + 0.01);
    if (esell_encode(a, m, rows, cols, &e) != 0)
        return -1;
    esell_size(&e, &s);
    printf("| %-14s | %5lldx%-5lld | %4.2f | %8.1f | %8.1f | %8.1f | %8.1f | %8.1f "
           "(val %.1f, eidx %.1f) | %8.1f | %5.2f |\n",
           name, (long long)rows, (long long)cols, sp, kib(s.dense), kib(s.csr), kib(s.csc),
           kib(s.sell), kib(s.esell), kib(s.esell_value), kib(s.esell_index),
           kib(s.esell_rocc), (double)s.dense / (double)s.esell);
    free(m);
    arena_free(a);
    return 0;
}

int
main(void)
{
    static const struct { const char *name; int x, h; double spw, spu; } t2[] = {
        {"MNIST-LSTM1", 28, 128, 0.3, 0.5},  {"MNIST-LSTM2", 128, 128, 0.2, 0.4},
        {"PTB-LSTM1", 800, 800, 0.2, 0.5},   {"PTB-LSTM2", 800, 800, 0.2, 0.6},
        {"Wiki-LSTM1", 1500, 1500, 0.4, 0.5}, {"Wiki-LSTM2", 1500, 1500, 0.3, 0.4},
    };
    int k;
    printf("| matrix | size | Sp | dense KiB | CSR KiB | CSC KiB | SELL KiB | eSELL KiB | "
           "RoCC stream KiB | dense/eSELL |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    for (k = 0; k <= 9; k++)
        if (row("Fig. 9", 768, 768, k / 10.0) != 0)
            return 1;
    for (k = 0; k < (int)(sizeof t2 / sizeof t2[0]); k++) {
        char n[32];
        snprintf(n, sizeof n, "%s W", t2[k].name);
        if (row(n, 4 * t2[k].h, t2[k].x, t2[k].spw) != 0)
            return 1;
        snprintf(n, sizeof n, "%s U", t2[k].name);
        if (row(n, 4 * t2[k].h, t2[k].h, t2[k].spu) != 0)
            return 1;
    }
    return 0;
}
