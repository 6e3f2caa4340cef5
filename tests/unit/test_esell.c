/*
 * test_esell.c — eSELL (E-LSTM §3.1): the Fig. 4(b) code book, a hand-worked block checked
 * element by element, encode -> decode round trips at the paper's sizes and sparsities,
 * the RoCC word stream of Fig. 5 back to the fp16-rounded matrix, and fp16 rounding
 * against the compiler's _Float16.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "esell.h"

/* The authors' gen_codebook() (github.com/rbshi/elstm software/esell_format.py), written
 * out: {depth, columns..., code}. */
static const int book[][6] = {
    {1, 0, 0, 0, 0, 0}, {1, 1, 0, 0, 0, 4}, {1, 2, 0, 0, 0, 6}, {1, 3, 0, 0, 0, 7},
    {2, 0, 1, 0, 0, 0}, {2, 0, 2, 0, 0, 2}, {2, 0, 3, 0, 0, 3}, {2, 1, 2, 0, 0, 4},
    {2, 1, 3, 0, 0, 5}, {2, 2, 3, 0, 0, 6}, {3, 0, 1, 2, 0, 0}, {3, 0, 1, 3, 0, 1},
    {3, 0, 2, 3, 0, 2}, {3, 1, 2, 3, 0, 4}, {4, 0, 1, 2, 3, 0},
};

Test(esell, code_book)
{
    size_t i;
    int empty[1] = {0}, bad[2] = {2, 1};
    for (i = 0; i < sizeof book / sizeof book[0]; i++) {
        int cols[4], n = book[i][0], p;
        for (p = 0; p < n; p++)
            cols[p] = book[i][1 + p];
        cr_assert_eq(esell_code(cols, n), book[i][5], "row %zu", i);
        /* decoding gives the columns back at the first n positions */
        for (p = 0; p < n; p++)
            cr_assert_eq(esell_code_col(book[i][5], p), cols[p]);
    }
    cr_assert_eq(esell_code(empty, 0), 0);
    cr_assert_eq(esell_code(bad, 2), -1);
    /* 15 sequences, at most 6 per depth: 3 bits, codes unique within a depth */
    cr_assert_eq(esell_code_col(3, 2), -1); /* (0,3) has no child */
}

/* 8 x 4 block worked by hand (values exact in fp16):
 *   r0 [0 a 0 b]  r1 [c d e 0]  r2 [0 0 0 0]  r3 [0 0 f 0]
 *   r4 [g 0 0 h]  r5 [0 i j k]  r6 [l 0 0 0]  r7 [0 m 0 0]
 * NNZ 2 3 0 1 2 3 1 1 -> order (descending, ties in row order) r1 r5 r0 r4 | r3 r6 r7 r2.
 * CHK0 = rows 1 5 0 4, CHK_w 3, codes (0,1,2)=0 (1,2,3)=4 (1,3)=5 (0,3)=3;
 * CHK1 = rows 3 6 7 2, CHK_w 1, codes (2)=6 (0)=0 (1)=4 ()=0. */
Test(esell, hand_worked_block)
{
    const float a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8, i = 9, j = 10, k = 11,
                l = 12, m = 13;
    const float mat[8 * 4] = {0, a, 0, b, c, d, e, 0, 0, 0, 0, 0, 0, 0, f, 0,
                              g, 0, 0, h, 0, i, j, k, l, 0, 0, 0, 0, m, 0, 0};
    const float v0[3][4] = {{c, i, a, g}, {d, j, b, h}, {e, k, 0, 0}}, v1[4] = {f, l, m, 0};
    const int rows0[4] = {1, 5, 0, 4}, codes0[4] = {0, 4, 5, 3};
    const int rows1[4] = {3, 6, 7, 2}, codes1[4] = {6, 0, 4, 0};
    arena *ar = arena_new(0);
    esell s;
    uint64_t words[5], head0 = 3, head1 = 1;
    float back[32], y[8], x[4] = {1, -2, 3, 0.5f};
    int r, p;
    cr_assert_eq(esell_encode(ar, mat, 8, 4, &s), 0);
    cr_assert_eq(s.nnz, 13);
    cr_assert_eq(s.chunks[0].w, 3);
    cr_assert_eq(s.chunks[1].w, 1);
    cr_assert_eq(s.n_val, 16);
    for (r = 0; r < 4; r++) {
        cr_assert_eq(s.chunks[0].row[r], rows0[r]);
        cr_assert_eq(s.chunks[0].eidx[r], codes0[r]);
        cr_assert_eq(s.chunks[1].row[r], rows1[r]);
        cr_assert_eq(s.chunks[1].eidx[r], codes1[r]);
        for (p = 0; p < 3; p++)
            cr_assert_eq(s.val[s.chunks[0].val + p * 4 + r], v0[p][r]);
        cr_assert_eq(s.val[s.chunks[1].val + r], v1[r]);
    }
    /* Fig. 5: CHK_w | EIDX_col << 3 | IDX_row << 15, chunk 1 at bit 32; 4 fp16 per word */
    for (r = 0; r < 4; r++) {
        head0 |= (uint64_t)codes0[r] << (3 + 3 * r) | (uint64_t)rows0[r] << (15 + 3 * r);
        head1 |= (uint64_t)codes1[r] << (3 + 3 * r) | (uint64_t)rows1[r] << (15 + 3 * r);
    }
    cr_assert_eq(esell_rocc_words(&s), 5);
    esell_rocc_pack(&s, words);
    cr_assert_eq(words[0], head0 | head1 << 32);
    /* 3.0 = 0x4200, 9.0 = 0x4880, 1.0 = 0x3c00, 7.0 = 0x4700 */
    cr_assert_eq(words[1], 0x4700ull << 48 | 0x3c00ull << 32 | 0x4880ull << 16 | 0x4200ull);
    cr_assert_eq(words[4] >> 48, 0); /* r2 pads chunk 1 */
    cr_assert_eq(esell_rocc_unpack(words, 5, 8, 4, back), 0);
    cr_assert_arr_eq(back, mat, sizeof mat);
    cr_assert_eq(esell_decode(&s, back), 0);
    cr_assert_arr_eq(back, mat, sizeof mat);
    esell_spmv(&s, x, y);
    for (r = 0; r < 8; r++) {
        float want = 0;
        for (p = 0; p < 4; p++)
            want += mat[r * 4 + p] * x[p];
        cr_assert_float_eq(y[r], want, 1e-5f, "row %d", r);
    }
    /* sizes: 13 nnz; eSELL stores 16 values and two 27-bit heads */
    {
        esell_sizes z;
        esell_size(&s, &z);
        cr_assert_eq(z.dense, 16 * 32);
        cr_assert_eq(z.esell, 16 * 16 + 2 * 27);
        cr_assert_eq(z.csr, 16 * 13 + 13 * 2 + 9 * 4);
        cr_assert_eq(z.csc, 16 * 13 + 13 * 3 + 5 * 4);
        cr_assert_eq(z.esell_rocc, 5 * 64);
    }
    /* a stream cut short or with a row index repeated is refused */
    cr_assert_eq(esell_rocc_unpack(words, 4, 8, 4, back), -1);
    words[0] = (words[0] & ~(7ull << 15)) | (5ull << 15); /* chunk 0 row 0 -> 5 (twice) */
    cr_assert_eq(esell_rocc_unpack(words, 5, 8, 4, back), -1);
    arena_free(ar);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double
urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* rows x cols, each element zero with probability sp, else uniform in (-1, 1) \ {0} */
static float *
random_sparse(int64_t rows, int64_t cols, double sp)
{
    float *m = malloc((size_t)(rows * cols) * sizeof *m);
    int64_t i;
    cr_assert_not_null(m);
    for (i = 0; i < rows * cols; i++) {
        float v = (float)(urand() * 2 - 1);
        m[i] = urand() < sp ? 0.0f : (v == 0.0f ? 0.5f : v);
    }
    return m;
}

/* encode -> decode == m, and the RoCC stream -> the fp16 rounding of m */
static void
round_trip(int64_t rows, int64_t cols, double sp)
{
    arena *a = arena_new(0);
    float *m = random_sparse(rows, cols, sp), *back = malloc((size_t)(rows * cols) * 4);
    esell s;
    uint64_t *w;
    int64_t n, i, nnz = 0;
    cr_assert_not_null(back);
    cr_assert_eq(esell_encode(a, m, rows, cols, &s), 0);
    cr_assert_eq(esell_decode(&s, back), 0);
    cr_assert_arr_eq(back, m, (size_t)(rows * cols) * sizeof *m, "%lldx%lld sp %.2f",
                     (long long)rows, (long long)cols, sp);
    for (i = 0; i < rows * cols; i++)
        nnz += m[i] != 0.0f;
    cr_assert_eq(s.nnz, nnz);
    cr_assert_geq(s.n_val, nnz);
    n = esell_rocc_words(&s);
    w = malloc((size_t)n * sizeof *w);
    cr_assert_not_null(w);
    esell_rocc_pack(&s, w);
    cr_assert_eq(esell_rocc_unpack(w, n, rows, cols, back), 0);
    for (i = 0; i < rows * cols; i++) {
        float want = (float)(_Float16)m[i];
        cr_assert(back[i] == want, "%lldx%lld element %lld: %g, want %g", (long long)rows,
                  (long long)cols, (long long)i, back[i], want);
    }
    free(w);
    free(back);
    free(m);
    arena_free(a);
}

Test(esell, round_trip_768)
{
    /* the Fig. 9 matrix, across its sparsity range */
    static const double sp[] = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
    size_t i;
    for (i = 0; i < sizeof sp / sizeof sp[0]; i++)
        round_trip(768, 768, sp[i]);
}

Test(esell, round_trip_table2)
{
    /* Table 2: W is 4*len(h) x len(x) at Sp_w, U is 4*len(h) x len(h) at Sp_u */
    static const struct { int x, h; double spw, spu; } t2[] = {
        {28, 128, 0.3, 0.5},   {128, 128, 0.2, 0.4},   {800, 800, 0.2, 0.5},
        {800, 800, 0.2, 0.6},  {1500, 1500, 0.4, 0.5}, {1500, 1500, 0.3, 0.4},
    };
    size_t i, n = sizeof t2 / sizeof t2[0];
#ifdef __SANITIZE_ADDRESS__
    n = 4; /* the 6000 x 1500 Wikitext matrices cost half a minute under ASan: normal build */
#endif
    for (i = 0; i < n; i++) {
        round_trip(4 * t2[i].h, t2[i].x, t2[i].spw);
        if (i != 1 && i != 3) /* same shapes as the row before: one U per shape is enough */
            round_trip(4 * t2[i].h, t2[i].h, t2[i].spu);
    }
}

Test(esell, round_trip_partial_blocks)
{
    /* sizes that are not multiples of 8 x 4: zero padding is never stored */
    round_trip(13, 7, 0.3);
    round_trip(1, 1, 0.0);
    round_trip(9, 5, 0.9);
    round_trip(5, 130, 0.5);
}

Test(esell, f16_matches_compiler)
{
    int i;
    static const float special[] = {0.0f, -0.0f, 1.0f, 65504.0f, 65520.0f, 1e-8f, 5.96e-8f,
                                    2.98e-8f, 2.99e-8f, 6.1e-5f, 3.0e38f, -1.5e-7f};
    for (i = 0; i < (int)(sizeof special / sizeof special[0]); i++) {
        _Float16 h = (_Float16)special[i];
        uint16_t bits;
        memcpy(&bits, &h, 2);
        cr_assert_eq(lowp_f32_to_f16(special[i]), bits, "%g", special[i]);
        cr_assert(lstmc_rt_f16_to_f32(bits) == (float)h);
    }
    for (i = 0; i < 200000; i++) {
        /* random bit patterns over the whole float range, NaNs aside */
        uint32_t x = (uint32_t)(urand() * 4294967296.0);
        float f;
        _Float16 h;
        uint16_t bits;
        memcpy(&f, &x, 4);
        if (f != f)
            continue;
        h = (_Float16)f;
        memcpy(&bits, &h, 2);
        cr_assert_eq(lowp_f32_to_f16(f), bits, "%a", f);
        cr_assert(lstmc_rt_f16_to_f32(bits) == (float)h);
    }
}
