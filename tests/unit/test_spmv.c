/*
 * test_spmv.c — the runtime's eSELL SpMV (runtime/src/rt_spmv.c) over sections written by
 * compiler/formats/esell.c (esell_rt_write): a hand-built section of one 8 x 4 block, random
 * matrices at several sparsities and awkward sizes against the dense product computed here
 * in double, hidden-state skipping against the product with the small groups zeroed, and
 * corrupt headers refused.
 */
#include "arena.h"
#include "esell.h"
#include "internal/testing.h" /* runtime/src/internal: the runtime's test hooks */

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The block of test_esell.c hand_worked_block, written out in the runtime layout:
 *   r0 [0 a 0 b]  r1 [c d e 0]  r2 [0 0 0 0]  r3 [0 0 f 0]
 *   r4 [g 0 0 h]  r5 [0 i j k]  r6 [l 0 0 0]  r7 [0 m 0 0]
 * CHK0 rows 1 5 0 4, width 3, codes 0 4 5 3; CHK1 rows 3 6 7 2, width 1, codes 6 0 4 0. */
Test(spmv, hand_built_section)
{
    const float h00 = 3 | 0 << 3 | 4 << 6 | 5 << 9 | 3 << 12, h01 = 1 | 5 << 3 | 0 << 6 | 4 << 9;
    const float h10 = 1 | 6 << 3 | 0 << 6 | 4 << 9 | 0 << 12, h11 = 3 | 6 << 3 | 7 << 6 | 2 << 9;
    /* a..m = 1..13 */
    const float e[] = {8,  4, h00, h01, h10, h11, 3, 9, 1,  7,  4,
                       10, 2, 8,   5,   11,  0,   0, 6, 12, 13, 0};
    const float x[4] = {1, 10, 100, 1000};
    /* rows of the matrix times x, by hand */
    const float want[8] = {1 * 10 + 2 * 1000, 3 + 40 + 500,      0,  600,
                           7 + 8000,          90 + 1000 + 11000, 12, 130};
    float y[8] = {0};
    int i;
    cr_assert_eq(lstmc_rt_esell_len(e, 8, 4), (int64_t)(sizeof e / sizeof e[0]));
    lstmc_rt_esell_spmv(e, x, 0.0f, y);
    for (i = 0; i < 8; i++)
        cr_assert_float_eq(y[i], want[i], 1e-3, "row %d: %g, want %g", i, y[i], want[i]);
}

/* A rows x cols matrix with about `sparsity` exact zeros (deterministic). */
static void
random_matrix(float *m, int64_t rows, int64_t cols, double sparsity, unsigned seed)
{
    int64_t i;
    srand(seed);
    for (i = 0; i < rows * cols; i++) {
        double u = rand() / (RAND_MAX + 1.0), v = rand() / (RAND_MAX + 1.0);
        m[i] = u < sparsity ? 0.0f : (float)(2.0 * v - 1.0);
    }
}

/* y = y0 + E x through the section, against the dense product in double. */
static void
check_product(int64_t rows, int64_t cols, double sparsity, unsigned seed)
{
    arena *a = arena_new(0);
    float *m = arena_alloc(a, (size_t)(rows * cols) * sizeof *m);
    float *x = arena_alloc(a, (size_t)cols * sizeof *x), *y = arena_alloc(a, (size_t)rows * 4);
    float *sec;
    esell e;
    int64_t r, c;
    random_matrix(m, rows, cols, sparsity, seed);
    for (c = 0; c < cols; c++)
        x[c] = (float)sin((double)c);
    for (r = 0; r < rows; r++)
        y[r] = (float)r * 0.5f;
    cr_assert_eq(esell_encode(a, m, rows, cols, &e), 0);
    sec = arena_alloc(a, (size_t)esell_rt_len(&e) * sizeof *sec);
    esell_rt_write(&e, sec);
    cr_assert_eq(lstmc_rt_esell_len(sec, rows, cols), esell_rt_len(&e));
    lstmc_rt_esell_spmv(sec, x, 0.0f, y);
    for (r = 0; r < rows; r++) {
        double want = (double)r * 0.5;
        for (c = 0; c < cols; c++)
            want += (double)m[r * cols + c] * (double)x[c];
        cr_assert(fabs(y[r] - want) <= 1e-5 * (double)cols,
                  "%lldx%lld sparsity %.2f row %lld: "
                  "%g, want %g",
                  (long long)rows, (long long)cols, sparsity, (long long)r, (double)y[r], want);
    }
    arena_free(a);
}

/* Y[i] += E X[i] for n vectors with row strides, against the dense product in double. */
static void
check_spmm(int64_t rows, int64_t cols, int64_t n, double sparsity, unsigned seed)
{
    arena *a = arena_new(0);
    const int64_t ldx = cols + 3, ldy = rows + 5;
    float *m = arena_alloc(a, (size_t)(rows * cols) * sizeof *m);
    float *X = arena_alloc(a, (size_t)(n * ldx) * sizeof *X);
    float *Y = arena_alloc(a, (size_t)(n * ldy) * sizeof *Y), *sec;
    esell e;
    int64_t r, c, i;
    random_matrix(m, rows, cols, sparsity, seed);
    for (i = 0; i < n * ldx; i++)
        X[i] = (float)cos((double)i);
    for (i = 0; i < n * ldy; i++)
        Y[i] = (float)i;
    cr_assert_eq(esell_encode(a, m, rows, cols, &e), 0);
    sec = arena_alloc(a, (size_t)esell_rt_len(&e) * sizeof *sec);
    esell_rt_write(&e, sec);
    lstmc_rt_esell_spmm(sec, X, ldx, n, Y, ldy);
    for (i = 0; i < n; i++)
        for (r = 0; r < ldy; r++) {
            double want = (double)(i * ldy + r);
            for (c = 0; r < rows && c < cols; c++)
                want += (double)m[r * cols + c] * (double)X[i * ldx + c];
            cr_assert(fabs(Y[i * ldy + r] - want) <= 1e-5 * (double)(cols + i * ldy + r),
                      "%lldx%lld n %lld: Y[%lld][%lld] = %g, want %g", (long long)rows,
                      (long long)cols, (long long)n, (long long)i, (long long)r,
                      (double)Y[i * ldy + r], want);
        }
    arena_free(a);
}

Test(spmv, spmm_strided_vectors)
{
    check_spmm(13, 7, 5, 0.4, 1);
    check_spmm(64, 32, 3, 0.0, 2);
    check_spmm(40, 9, 1, 0.9, 3);
    check_spmm(8, 4, 4, 1.0, 4);
}

Test(spmv, random_matrices)
{
    static const int64_t sizes[][2] = {{8, 4}, {64, 16}, {13, 7}, {1, 1}, {120, 30}, {4, 33}};
    static const double sp[] = {0.0, 0.3, 0.5, 0.8, 0.95, 1.0};
    size_t i, j;
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (j = 0; j < sizeof sp / sizeof sp[0]; j++)
            check_product(sizes[i][0], sizes[i][1], sp[j], (unsigned)(i * 17 + j));
}

/* th > 0: a group of 4 x elements with sum |x| < th is zero, and its block column is not
 * read (its values are NaN here). The result is the product with those groups zeroed. */
Test(spmv, hidden_state_groups_skipped)
{
    enum { R = 16, C = 12 };
    arena *a = arena_new(0);
    float m[R * C], x[C] = {0.1f, -0.1f, 0.0f, 0.2f, 3, 1, -2, 0.5f, 0.01f, 0, 0, 0.02f};
    float y[R] = {0}, *sec;
    esell e;
    int64_t r, c, k, n_chk;
    float *p;
    random_matrix(m, R, C, 0.3, 7);
    cr_assert_eq(esell_encode(a, m, R, C, &e), 0);
    sec = arena_alloc(a, (size_t)esell_rt_len(&e) * sizeof *sec);
    esell_rt_write(&e, sec);
    /* poison the values of block columns 0 and 2 (sums 0.4 and 0.03 < th = 0.5) */
    n_chk = e.nbr * e.nbc * ESELL_N_CHK;
    for (k = 0, p = sec + 2 + 2 * n_chk; k < n_chk; k++) {
        int w = (int)((uint32_t)sec[2 + 2 * k] & 7u), q;
        int64_t bc = k / (e.nbr * ESELL_N_CHK);
        for (q = 0; q < w * 4; q++)
            if (bc != 1)
                p[q] = NAN;
        p += w * 4;
    }
    lstmc_rt_esell_spmv(sec, x, 0.5f, y);
    for (r = 0; r < R; r++) {
        double want = 0;
        for (c = 4; c < 8; c++)
            want += (double)m[r * C + c] * (double)x[c];
        cr_assert(fabs(y[r] - want) <= 1e-5, "row %lld: %g, want %g", (long long)r, (double)y[r],
                  want);
    }
    arena_free(a);
}

Test(spmv, bad_sections_refused)
{
    float sec[64];
    arena *a = arena_new(0);
    float m[8 * 4] = {1, 0, 0, 2};
    esell e;
    cr_assert_eq(esell_encode(a, m, 8, 4, &e), 0);
    esell_rt_write(&e, sec);
    cr_assert_eq(lstmc_rt_esell_len(sec, 8, 4), esell_rt_len(&e));
    cr_assert_eq(lstmc_rt_esell_len(sec, 16, 4), -1); /* not the matrix it says */
    cr_assert_eq(lstmc_rt_esell_len(sec, 8, 8), -1);
    sec[2] = 5.0f; /* CHK_w 5 > BLK_w */
    cr_assert_eq(lstmc_rt_esell_len(sec, 8, 4), -1);
    sec[2] = -1.0f;
    cr_assert_eq(lstmc_rt_esell_len(sec, 8, 4), -1);
    cr_assert_eq(lstmc_rt_esell_len(NULL, 8, 4), -1);
    arena_free(a);
}
