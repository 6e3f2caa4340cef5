/*
 * rt_rnnq.c — the full-integer recurrent layer (issue 22): LSTM, GRU and RNN with int8 or
 * int16 activations, int8 weights, int16 cell state, table activations. The portable,
 * bit-exact reference of the recipe in docs/PRECISION.md ("Full-integer recurrent layers");
 * every other kernel of the recipe must produce the same integers. No floating point on the
 * layer's path (lstmc_rt_quantize / _dequantize, the float boundary, are at the end).
 */
#include "internal/rnnq_tables.h"

#include <math.h>
#include <string.h>

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define RNNQ_MVE 1
#else
#define RNNQ_MVE 0
#endif
#if !RNNQ_MVE && defined(__ARM_FEATURE_SIMD32) && __ARM_FEATURE_SIMD32
#include <arm_acle.h>
#define RNNQ_DSP 1
#else
#define RNNQ_DSP 0
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#define RNNQ_AVX2 1
#else
#define RNNQ_AVX2 0
#endif
#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
#define RNNQ_VNNI 1
#else
#define RNNQ_VNNI 0
#endif
#if defined(__AVX512F__) && defined(__AVX512BW__)
#define RNNQ_AVX512 1 /* the LSTM cell's element-wise part on 8 units at a time */
#else
#define RNNQ_AVX512 0
#endif
#include "lstmc_rt_kernels.h"

/* The recipe's shifts of negative values are floors: an arithmetic right shift. */
#if (-1 >> 1) != -1
#error "rt_rnnq.c needs an arithmetic right shift of negative integers"
#endif

static inline int64_t
rshr(int64_t x, int32_t n)
{
    return n ? (x + ((int64_t)1 << (n - 1))) >> n : x;
}

static inline int64_t
requant(int64_t x, int32_t m, int32_t n)
{
    return rshr(x * m, n);
}

/* requant of a value that fits int32 (one 32 x 32 -> 64 multiply on 32-bit cores) */
static inline int64_t
requant32(int32_t x, int32_t m, int32_t n)
{
    return rshr((int64_t)x * m, n);
}

/* requant of an accumulator: int32 in the int8 mode (params_ok bounds the rows), int64 in
 * int16 */
static inline int64_t
requant_acc(int32_t bits, int64_t x, int32_t m, int32_t n)
{
    return bits == 8 ? requant32((int32_t)x, m, n) : requant(x, m, n);
}

static inline int64_t
sat(int64_t x, int64_t lo, int64_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

static inline int32_t
table_act(const int16_t *T, int32_t v)
{
    const int32_t u = v + 32768, i = u >> 7, f = u & 127;

    return T[i] + (int32_t)rshr((int64_t)(T[i + 1] - T[i]) * f, 7);
}

int32_t
lstmc_rt_q_sigmoid(int32_t v)
{
    return table_act(lstmc_rt_q_sigmoid_table, (int32_t)sat(v, -32768, 32767));
}

int32_t
lstmc_rt_q_tanh(int32_t v)
{
    return table_act(lstmc_rt_q_tanh_table, (int32_t)sat(v, -32768, 32767));
}

const int16_t *
lstmc_rt_q_table(int32_t act)
{
    return act == LSTMC_RT_ACT_TANH ? lstmc_rt_q_tanh_table : lstmc_rt_q_sigmoid_table;
}

/* The Q3.12 gate input of the recipe's pre(): the clip, then int16. */
static inline int32_t
pre(const lstmc_rt_rnnq_params *p, int64_t z)
{
    if (p->has_clip)
        z = sat(z, -(int64_t)p->clip_q, p->clip_q);
    return (int32_t)sat(z, -32768, 32767);
}

static inline int32_t
act(int32_t kind, int32_t v)
{
    return kind == LSTMC_RT_ACT_TANH ? table_act(lstmc_rt_q_tanh_table, v)
                                     : table_act(lstmc_rt_q_sigmoid_table, v);
}

/* The layer's element type, read and written by index. */
static inline int32_t
ld(const void *a, int32_t bits, int64_t i)
{
    return bits == 8 ? ((const int8_t *)a)[i] : ((const int16_t *)a)[i];
}

static inline void
st(void *a, int32_t bits, int64_t i, int32_t v)
{
    if (bits == 8)
        ((int8_t *)a)[i] = (int8_t)v;
    else
        ((int16_t *)a)[i] = (int16_t)v;
}

/*
 * sum_k w[k] * x[k] for x of the layer's type (the input row, or h): exact integers whatever
 * the path, so every path gives the same sum. int8: an int32 sum (no overflow below 2^17
 * terms, checked in params_ok); int16: int64. Cortex-M with the DSP extension pairs the
 * products with SMLAD / SMLALD, Helium (M55) sums 16 or 8 lanes with VMLADAVA / VMLALDAVA,
 * x86 with AVX-512 VNNI VPDPBUSD / VPDPWSSD, or AVX2 VPMADDWD of sign-extended halves;
 * elsewhere the plain loop.
 */
#if RNNQ_DSP
static inline uint32_t
ror8(uint32_t v)
{
    return (v >> 8) | (v << 24);
}
#endif

/* sum of w over a row, which the VNNI loops below (the unsigned-times-signed product, every
 * term of the row: whole blocks of 64 and a masked tail) need subtracted 128 times; computed
 * once per row. */
static int32_t
vnni_wsum(const int8_t *w, int64_t K)
{
    int32_t s = 0;
    int64_t k;
    for (k = 0; k < K; k++)
        s += w[k];
    return s;
}

#if RNNQ_VNNI
/* the lanes [0, n) of a 64-byte block, n in [1, 63]: the tail of a row */
static inline __mmask64
tail_mask(int32_t n)
{
    return (__mmask64)(~0ULL >> (64 - n));
}
#endif

static int64_t
dot(const int8_t *w, const void *x, int32_t bits, int64_t K64, const int32_t *wsum)
{
    const int32_t K = (int32_t)K64; /* <= INT32_MAX / 64 (params_ok): 32-bit loops */
    int32_t k = 0;

    if (bits == 8) {
        const int8_t *x8 = x;
        int32_t s = 0;
#if RNNQ_VNNI
        if (wsum) { /* VPDPBUSD: (x + 128) as u8 times w, less 128 * sum w */
            const __m512i flip = _mm512_set1_epi8((char)0x80);
            __m512i acc = _mm512_setzero_si512();
            for (; k + 64 <= K; k += 64) {
                const __m512i a = _mm512_loadu_si512((const void *)(w + k));
                const __m512i b =
                    _mm512_xor_si512(_mm512_loadu_si512((const void *)(x8 + k)), flip);
                acc = _mm512_dpbusd_epi32(acc, b, a);
            }
            if (k < K) { /* the tail: w 0 in the lanes past K, so they add nothing */
                const __mmask64 m = tail_mask(K - k);
                acc = _mm512_dpbusd_epi32(
                    acc, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, x8 + k), flip),
                    _mm512_maskz_loadu_epi8(m, w + k));
                k = K;
            }
            s = _mm512_reduce_add_epi32(acc) - 128 * *wsum;
        }
#else
        (void)wsum;
#endif
#if RNNQ_AVX2
        if (K - k >= 32) { /* 16 products per vpmaddwd of sign-extended halves, int32 lanes */
            __m256i acc = _mm256_setzero_si256();
            for (; k + 32 <= K; k += 32) {
                const __m256i a = _mm256_loadu_si256((const __m256i *)(w + k));
                const __m256i b = _mm256_loadu_si256((const __m256i *)(x8 + k));
                acc = _mm256_add_epi32(
                    acc, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_castsi256_si128(a)),
                                           _mm256_cvtepi8_epi16(_mm256_castsi256_si128(b))));
                acc = _mm256_add_epi32(
                    acc, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_extracti128_si256(a, 1)),
                                           _mm256_cvtepi8_epi16(_mm256_extracti128_si256(b, 1))));
            }
            {
                __m128i h =
                    _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
                h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
                h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xb1));
                s += _mm_cvtsi128_si32(h);
            }
        }
#elif RNNQ_MVE
        for (; k + 16 <= K; k += 16)
            s = vmladavaq_s8(s, vldrbq_s8(w + k), vldrbq_s8(x8 + k));
#elif RNNQ_DSP
        for (; k + 4 <= K; k += 4) {
            uint32_t a, b;
            memcpy(&a, w + k, 4);
            memcpy(&b, x8 + k, 4);
            s = __smlad(__sxtb16(a), __sxtb16(b), s);
            s = __smlad(__sxtb16(ror8(a)), __sxtb16(ror8(b)), s);
        }
#endif
        for (; k < K; k++)
            s += (int32_t)w[k] * x8[k];
        return s;
    }
    {
        const int16_t *x16 = x;
        int64_t s = 0;
#if RNNQ_VNNI
        while (k + 32 <= K) { /* VPDPWSSD in int32 over chunks of <= 4096 terms, then int64 */
            __m512i acc = _mm512_setzero_si512();
            const int32_t end = K - k > 4096 ? k + 4096 : K;
            for (; k + 32 <= end; k += 32)
                acc = _mm512_dpwssd_epi32(
                    acc, _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(w + k))),
                    _mm512_loadu_si512((const void *)(x16 + k)));
            s += (int64_t)_mm512_reduce_add_epi64(
                _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(acc)),
                                 _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(acc, 1))));
        }
#endif
#if RNNQ_AVX2
        if (K - k >=
            16) { /* pairs summed in int32 (|w x| <= 127 * 32768 twice), widened to int64 */
            __m256i acc = _mm256_setzero_si256();
            for (; k + 16 <= K; k += 16) {
                const __m256i p = _mm256_madd_epi16(
                    _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + k))),
                    _mm256_loadu_si256((const __m256i *)(x16 + k)));
                acc = _mm256_add_epi64(acc, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(p)));
                acc = _mm256_add_epi64(acc, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(p, 1)));
            }
            {
                int64_t l[4];
                _mm256_storeu_si256((__m256i *)l, acc);
                s += l[0] + l[1] + l[2] + l[3];
            }
        }
#elif RNNQ_MVE
        for (; k + 8 <= K; k += 8)
            s = vmlaldavaq_s16(s, vldrbq_s16(w + k), vldrhq_s16(x16 + k));
#elif RNNQ_DSP
        for (; k + 4 <= K; k += 4) {
            uint32_t a, x01, x23, w02, w13;
            memcpy(&a, w + k, 4);
            memcpy(&x01, x16 + k, 4);
            memcpy(&x23, x16 + k + 2, 4);
            w02 = __sxtb16(a);
            w13 = __sxtb16(ror8(a));
            s = __smlald((w02 & 0xffffu) | (w13 << 16), x01, s);
            s = __smlald((w13 & 0xffff0000u) | (w02 >> 16), x23, s);
        }
#endif
        for (; k < K; k++)
            s += (int32_t)w[k] * x16[k];
        return s;
    }
}

int64_t
lstmc_rt_rnnq_scratch(const lstmc_rt_rnnq_params *p)
{
    const int64_t G = p->cell == LSTMC_RT_CELL_LSTM ? 4 : p->cell == LSTMC_RT_CELL_GRU ? 3 : 1;
    /* h, hn, c, rg, rh [H], U's row sums [G*H], a step's U h sums int64 [G*H], then one
     * direction's W x of every step, int64 [T*N, G*H] */
    return 5 * p->hidden + 3 * G * p->hidden + 16 + 2 * p->seq_len * p->batch * G * p->hidden;
}

/* ROWS (16) consecutive rows of w (row r at w + r * K) times x: out[r] = dot(w + r K, x), the
 * same exact integers. With AVX-512 VNNI in int8 mode a vector of x meets the 16 rows in 16
 * accumulators, summed by one tree of shuffles into a vector of the 16 row sums (rather than
 * 16 horizontal reductions); elsewhere dot per row. wsum: vnni_wsum of each row. */
#define ROWS 16

static void
dot_rows(const int8_t *w, int64_t rows, const void *x, int32_t bits, int64_t K, const int32_t *wsum,
         int64_t *out)
{
    int64_t r;
#if RNNQ_VNNI
    if (bits == 8 && rows == ROWS) {
        const __m512i flip = _mm512_set1_epi8((char)0x80);
        const int8_t *x8 = x;
        const int32_t K64 = (int32_t)(K / 64 * 64);
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
                a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0, a12 = a0, a13 = a0, a14 = a0,
                a15 = a0, b01, b23, b45, b67, b89, bab, bcd, bef, c0, c1, c2, c3, d0, d1, s;
        int32_t sums[ROWS], k;
        /* blocks of 64 (plain loads), then the tail with every row's lanes past K loaded as
         * 0 (masked loads only there: they cost some 8 % on rows of 512 when in the loop) */
#define ROW_ACC(i, LOAD) a##i = _mm512_dpbusd_epi32(a##i, b, LOAD(w + i * K + k))
#define ROWS_ACC(LOAD)                                                                             \
    do {                                                                                           \
        ROW_ACC(0, LOAD);                                                                          \
        ROW_ACC(1, LOAD);                                                                          \
        ROW_ACC(2, LOAD);                                                                          \
        ROW_ACC(3, LOAD);                                                                          \
        ROW_ACC(4, LOAD);                                                                          \
        ROW_ACC(5, LOAD);                                                                          \
        ROW_ACC(6, LOAD);                                                                          \
        ROW_ACC(7, LOAD);                                                                          \
        ROW_ACC(8, LOAD);                                                                          \
        ROW_ACC(9, LOAD);                                                                          \
        ROW_ACC(10, LOAD);                                                                         \
        ROW_ACC(11, LOAD);                                                                         \
        ROW_ACC(12, LOAD);                                                                         \
        ROW_ACC(13, LOAD);                                                                         \
        ROW_ACC(14, LOAD);                                                                         \
        ROW_ACC(15, LOAD);                                                                         \
    } while (0)
#define LOAD_ALL(q)  _mm512_loadu_si512((const void *)(q))
#define LOAD_TAIL(q) _mm512_maskz_loadu_epi8(m, q)
        for (k = 0; k < K64; k += 64) {
            const __m512i b = _mm512_xor_si512(LOAD_ALL(x8 + k), flip);
            ROWS_ACC(LOAD_ALL);
        }
        if (k < (int32_t)K) {
            const __mmask64 m = tail_mask((int32_t)K - k);
            const __m512i b = _mm512_xor_si512(LOAD_TAIL(x8 + k), flip);
            ROWS_ACC(LOAD_TAIL);
        }
#undef LOAD_TAIL
#undef LOAD_ALL
#undef ROWS_ACC
#undef ROW_ACC
        /* pairs: per 128-bit lane [p, q, p, q] partial sums of rows 2i, 2i + 1 */
#define PAIR(u, v) _mm512_add_epi32(_mm512_unpacklo_epi32(u, v), _mm512_unpackhi_epi32(u, v))
        b01 = PAIR(a0, a1);
        b23 = PAIR(a2, a3);
        b45 = PAIR(a4, a5);
        b67 = PAIR(a6, a7);
        b89 = PAIR(a8, a9);
        bab = PAIR(a10, a11);
        bcd = PAIR(a12, a13);
        bef = PAIR(a14, a15);
#undef PAIR
        /* quads: per 128-bit lane the partial sums of rows 4i .. 4i + 3 */
#define QUAD(u, v) _mm512_add_epi32(_mm512_unpacklo_epi64(u, v), _mm512_unpackhi_epi64(u, v))
        c0 = QUAD(b01, b23);
        c1 = QUAD(b45, b67);
        c2 = QUAD(b89, bab);
        c3 = QUAD(bcd, bef);
#undef QUAD
        /* across the 128-bit lanes, twice: lanes [u0+u1, u2+u3, v0+v1, v2+v3] */
#define LANES(u, v)                                                                                \
    _mm512_add_epi32(_mm512_shuffle_i32x4(u, v, 0x88), _mm512_shuffle_i32x4(u, v, 0xdd))
        d0 = LANES(c0, c1);
        d1 = LANES(c2, c3);
        s = LANES(d0, d1);
#undef LANES
        s = _mm512_sub_epi32(s, _mm512_slli_epi32(_mm512_loadu_si512((const void *)wsum), 7));
        _mm512_storeu_si512((void *)sums, s);
        for (r = 0; r < ROWS; r++)
            out[r] = sums[r];
        return;
    }
#endif
    for (r = 0; r < rows; r++)
        out[r] = dot(w + r * K, x, bits, K, wsum + r);
}

/* out[r] = U_r . x for rows [0, n) of w (each K terms), ROWS at a time */
static void
dot_all(const int8_t *w, int64_t n, const void *x, int32_t bits, int64_t K, const int32_t *wsum,
        int64_t *out)
{
    int64_t r;
    for (r = 0; r < n; r += ROWS)
        dot_rows(w + r * K, n - r < ROWS ? n - r : ROWS, x, bits, K, wsum + r, out + r);
}

/* W x of every row of X (in X's row order) and every gate row, one direction: each block of
 * ROWS rows of W is read once for all T*N inputs (the Arm paper's G1, hoisted out of the time
 * loop). ws: [R] scratch for the rows' vnni_wsum. */
static void
project(const lstmc_rt_rnnq_params *p, const void *X, const int8_t *W, int64_t R, int64_t *P,
        int32_t *ws)
{
    const int64_t TN = p->seq_len * p->batch, I = p->input_size, es = p->bits / 8;
    int64_t r, tn, i, sums[ROWS];

    for (r = 0; r < R; r++)
        ws[r] = vnni_wsum(W + r * I, I);
    for (r = 0; r < R; r += ROWS) {
        const int64_t n = R - r < ROWS ? R - r : ROWS;
        for (tn = 0; tn < TN; tn++) {
            dot_rows(W + r * I, n, (const char *)X + tn * I * es, p->bits, I, ws + r, sums);
            for (i = 0; i < n; i++)
                P[tn * R + r + i] = sums[i];
        }
    }
}

/* The recipe's z of row r: the W and U products in Q.12 plus both biases. */
static inline int64_t
gate_z(int32_t bits, const int32_t *q, int64_t accW, int64_t accU)
{
    return requant_acc(bits, accW + q[LSTMC_RT_RNNQ_ZC], q[LSTMC_RT_RNNQ_MW], q[LSTMC_RT_RNNQ_NW]) +
           requant_acc(bits, accU, q[LSTMC_RT_RNNQ_MU], q[LSTMC_RT_RNNQ_NU]) + q[LSTMC_RT_RNNQ_BW] +
           q[LSTMC_RT_RNNQ_BR];
}

/* The W product of row r in Q.12, with bW (GRU's n gate under linear_before_reset). */
static inline int64_t
gate_w(int32_t bits, const int32_t *q, int64_t accW)
{
    return requant_acc(bits, accW + q[LSTMC_RT_RNNQ_ZC], q[LSTMC_RT_RNNQ_MW], q[LSTMC_RT_RNNQ_NW]) +
           q[LSTMC_RT_RNNQ_BW];
}

typedef struct step_args {
    const lstmc_rt_rnnq_params *p;
    const int8_t *W, *U; /* this direction's */
    const int32_t *usum; /* vnni_wsum of every row of U */
    const int32_t *Q;
    const int16_t *Peep;
    const int32_t *act; /* this direction's */
    int32_t hmax;
    int64_t drs_alpha;       /* > 0: dynamic row skip at |o| >= drs_alpha (Q0.15) */
    int64_t *acc;            /* LSTM: [4H], the step's U h sums */
    lstmc_rt_drs_stats *drs; /* DRS: counts */
} step_args;

/* Unit j of one LSTM step from its four U h sums (rows i, o, f, c): c[j] updated in place,
 * hn[j] written. */
static inline void
lstm_unit(const step_args *a, const int64_t *pw, int64_t j, int64_t ui, int64_t uo, int64_t uf,
          int64_t uc, void *hn, int32_t *c)
{
    const lstmc_rt_rnnq_params *p = a->p;
    const int64_t H = p->hidden, ri = j, ro = H + j, rf = 2 * H + j, rc = 3 * H + j;
    int64_t zi = gate_z(p->bits, a->Q + ri * LSTMC_RT_RNNQ_ROW, pw[ri], ui);
    int64_t zo = gate_z(p->bits, a->Q + ro * LSTMC_RT_RNNQ_ROW, pw[ro], uo);
    int64_t zf = gate_z(p->bits, a->Q + rf * LSTMC_RT_RNNQ_ROW, pw[rf], uf);
    int64_t zc = gate_z(p->bits, a->Q + rc * LSTMC_RT_RNNQ_ROW, pw[rc], uc);
    int32_t i, f, g, o, tc;
    int64_t cn;

    if (a->Peep) {
        zi += requant32(a->Peep[j] * c[j], p->peep_mult, p->peep_shift);
        zf += requant32(a->Peep[2 * H + j] * c[j], p->peep_mult, p->peep_shift);
    }
    i = act(a->act[0], pre(p, zi));
    f = p->input_forget ? 32768 - i : act(a->act[0], pre(p, zf));
    g = act(a->act[1], pre(p, zc));
    cn = sat(rshr((int64_t)f * c[j], 15) + rshr((int64_t)i * g, 30 - p->cell_exp), -32768, 32767);
    if (a->Peep)
        zo += requant32(a->Peep[H + j] * (int32_t)cn, p->peep_mult, p->peep_shift);
    o = act(a->act[0], pre(p, zo));
    tc = (int32_t)sat(p->cell_exp >= 12 ? rshr(cn, p->cell_exp - 12)
                                        : cn * ((int64_t)1 << (12 - p->cell_exp)),
                      -32768, 32767);
    c[j] = (int32_t)cn;
    st(hn, p->bits, j,
       (int32_t)sat(requant32(o * act(a->act[2], tc), p->h_mult, p->h_shift), -a->hmax, a->hmax));
}

#if RNNQ_AVX512
/* --- lstm_unit on 8 units at a time (AVX-512): the same integers, lane by lane ----------- */
/* Each value of the recipe lives in an int64 lane, as in lstm_unit; every product below is
 * of two values that fit int32 (vpmuldq: the low 32 bits of each lane, signed). */

/* rshr with a shift per lane in [0, 63]: (x + (2^n >> 1)) >> n, n = 0 giving x */
static inline __m512i
rshr8v(__m512i x, __m512i n)
{
    const __m512i half = _mm512_srli_epi64(_mm512_sllv_epi64(_mm512_set1_epi64(1), n), 1);
    return _mm512_srav_epi64(_mm512_add_epi64(x, half), n);
}

static inline __m512i
rshr8(__m512i x, int32_t n)
{
    return n ? _mm512_srai_epi64(_mm512_add_epi64(x, _mm512_set1_epi64((int64_t)1 << (n - 1))), n)
             : x;
}

static inline __m512i
sat8(__m512i x, int64_t lo, int64_t hi)
{
    return _mm512_min_epi64(_mm512_max_epi64(x, _mm512_set1_epi64(lo)), _mm512_set1_epi64(hi));
}

/* field f of Q's rows r .. r + 7, sign-extended to int64 lanes */
static inline __m512i
qfield8(const int32_t *Q, int64_t r, int f)
{
    const __m256i at = _mm256_setr_epi32(0, 8, 16, 24, 32, 40, 48, 56);
    return _mm512_cvtepi32_epi64(
        _mm256_i32gather_epi32((const int *)(Q + r * LSTMC_RT_RNNQ_ROW + f), at, 4));
}

/* gate_z of rows r .. r + 7 */
static inline __m512i
gate_z8(const int32_t *Q, int64_t r, const int64_t *pw, const int64_t *acc)
{
    const __m512i w = _mm512_add_epi64(_mm512_loadu_si512((const void *)(pw + r)),
                                       qfield8(Q, r, LSTMC_RT_RNNQ_ZC));
    const __m512i zw = rshr8v(_mm512_mul_epi32(w, qfield8(Q, r, LSTMC_RT_RNNQ_MW)),
                              qfield8(Q, r, LSTMC_RT_RNNQ_NW));
    const __m512i zu = rshr8v(_mm512_mul_epi32(_mm512_loadu_si512((const void *)(acc + r)),
                                               qfield8(Q, r, LSTMC_RT_RNNQ_MU)),
                              qfield8(Q, r, LSTMC_RT_RNNQ_NU));
    return _mm512_add_epi64(
        _mm512_add_epi64(zw, zu),
        _mm512_add_epi64(qfield8(Q, r, LSTMC_RT_RNNQ_BW), qfield8(Q, r, LSTMC_RT_RNNQ_BR)));
}

static inline __m512i
pre8(const lstmc_rt_rnnq_params *p, __m512i z)
{
    if (p->has_clip)
        z = sat8(z, -(int64_t)p->clip_q, p->clip_q);
    return sat8(z, -32768, 32767);
}

/* table_act per lane of v in [-32768, 32767]: T[i] and T[i + 1] in one 32-bit gather */
static inline __m512i
act8(int32_t kind, __m512i v)
{
    const int16_t *T = kind == LSTMC_RT_ACT_TANH ? lstmc_rt_q_tanh_table : lstmc_rt_q_sigmoid_table;
    const __m512i u = _mm512_add_epi64(v, _mm512_set1_epi64(32768));
    const __m256i pair = _mm512_i64gather_epi32(_mm512_srli_epi64(u, 7), (const void *)T, 2);
    const __m256i lo = _mm256_srai_epi32(_mm256_slli_epi32(pair, 16), 16);
    const __m256i hi = _mm256_srai_epi32(pair, 16);
    const __m256i f = _mm512_cvtepi64_epi32(_mm512_and_si512(u, _mm512_set1_epi64(127)));
    const __m256i d = _mm256_mullo_epi32(_mm256_sub_epi32(hi, lo), f);
    return _mm512_cvtepi32_epi64(
        _mm256_add_epi32(lo, _mm256_srai_epi32(_mm256_add_epi32(d, _mm256_set1_epi32(64)), 7)));
}

/* lstm_unit for units j .. j + 7 from acc [4H] (rows i, o, f, c), without peepholes */
static void
lstm_units8(const step_args *a, const int64_t *pw, int64_t j, const int64_t *acc, void *hn,
            int32_t *c)
{
    const lstmc_rt_rnnq_params *p = a->p;
    const int64_t H = p->hidden;
    const __m512i zi = gate_z8(a->Q, j, pw, acc), zo = gate_z8(a->Q, H + j, pw, acc);
    const __m512i zc = gate_z8(a->Q, 3 * H + j, pw, acc);
    const __m512i i = act8(a->act[0], pre8(p, zi));
    const __m512i f = p->input_forget ? _mm512_sub_epi64(_mm512_set1_epi64(32768), i)
                                      : act8(a->act[0], pre8(p, gate_z8(a->Q, 2 * H + j, pw, acc)));
    const __m512i g = act8(a->act[1], pre8(p, zc));
    const __m512i c0 = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(c + j)));
    const __m512i cn = sat8(_mm512_add_epi64(rshr8(_mm512_mul_epi32(f, c0), 15),
                                             rshr8(_mm512_mul_epi32(i, g), 30 - p->cell_exp)),
                            -32768, 32767);
    const __m512i o = act8(a->act[0], pre8(p, zo));
    const __m512i tc = sat8(p->cell_exp >= 12 ? rshr8(cn, p->cell_exp - 12)
                                              : _mm512_slli_epi64(cn, 12 - p->cell_exp),
                            -32768, 32767);
    const __m512i hv = sat8(rshr8(_mm512_mul_epi32(_mm512_mul_epi32(o, act8(a->act[2], tc)),
                                                   _mm512_set1_epi64(p->h_mult)),
                                  p->h_shift),
                            -a->hmax, a->hmax);
    _mm256_storeu_si256((__m256i *)(c + j), _mm512_cvtepi64_epi32(cn));
    if (p->bits == 8)
        _mm_storel_epi64((__m128i *)((int8_t *)hn + j), _mm512_cvtepi64_epi8(hv));
    else
        _mm_storeu_si128((__m128i *)((int16_t *)hn + j), _mm512_cvtepi64_epi16(hv));
}
#endif

/* Units [j0, H) of one LSTM step from acc [4H] (rows i, o, f, c): lstm_unit on each, 8 at a
 * time where AVX-512 is there and the cell has no peepholes. */
static void
lstm_units(const step_args *a, const int64_t *pw, int64_t j0, const int64_t *acc, void *hn,
           int32_t *c)
{
    const int64_t H = a->p->hidden;
    int64_t j = j0;
#if RNNQ_AVX512
    if (!a->Peep)
        for (; j + 8 <= H; j += 8)
            lstm_units8(a, pw, j, acc, hn, c);
#endif
    for (; j < H; j++)
        lstm_unit(a, pw, j, acc[j], acc[H + j], acc[2 * H + j], acc[3 * H + j], hn, c);
}

/* The recipe's o gate of unit j (Q0.15) from its U h sum (no P_o peephole under DRS) */
static inline int32_t
drs_o(const step_args *a, const int64_t *pw, int64_t j, int64_t uo)
{
    const lstmc_rt_rnnq_params *p = a->p;
    const int64_t ro = p->hidden + j;
    return act(a->act[0], pre(p, gate_z(p->bits, a->Q + ro * LSTMC_RT_RNNQ_ROW, pw[ro], uo)));
}

/* Algorithm 3 line 8 for a skipped unit j: c = 0, h = o h(0) */
static inline void
drs_skip(const step_args *a, int64_t j, int32_t o, void *hn, int32_t *c)
{
    const lstmc_rt_rnnq_params *p = a->p;
    c[j] = 0;
    st(hn, p->bits, j,
       (int32_t)sat(requant32(o * act(a->act[2], 0), p->h_mult, p->h_shift), -a->hmax, a->hmax));
}

#if RNNQ_AVX512
/* Units j .. j + 7 under row skip, keep's bit k set for the units kept (o[k] their o gates):
 * lstm_units8 on all 8, the skipped units' U h sums of rows i, f, c zeroed first (they were
 * not computed), then Algorithm 3's c = 0, h = o h(0) written over the skipped ones. */
static void
lstm_units8_drs(const step_args *a, const int64_t *pw, int64_t j, int64_t *acc, int32_t keep,
                const int32_t *o, void *hn, int32_t *c)
{
    const int64_t H = a->p->hidden;
    int64_t k;
    for (k = 0; k < 8; k++)
        if (!(keep >> k & 1))
            acc[j + k] = acc[2 * H + j + k] = acc[3 * H + j + k] = 0;
    lstm_units8(a, pw, j, acc, hn, c);
    for (k = 0; k < 8; k++)
        if (!(keep >> k & 1))
            drs_skip(a, j + k, o[k], hn, c);
}
#endif

/* One LSTM step with dynamic row skip (lstmc_rt_lstm_drs_q): the o rows first, then the
 * rows i, f, c of the kept units only. */
static void
lstm_step_drs(const step_args *a, const int64_t *pw, const void *h, void *hn, int32_t *c)
{
    const lstmc_rt_rnnq_params *p = a->p;
    const int64_t H = p->hidden;
    int64_t j, kept = 0, *uo = a->acc + H;

    dot_all(a->U + H * H, H, h, p->bits, H, a->usum + H, uo); /* the o rows */
    for (j = 0; j < H; j += ROWS) {                           /* blocks of ROWS units */
        const int64_t je = H - j < ROWS ? H : j + ROWS;
        int32_t o[ROWS], keep = 0;
        int64_t u, v;
        for (u = j; u < je; u++) {
            o[u - j] = drs_o(a, pw, u, uo[u]);
            if ((o[u - j] < 0 ? -(int64_t)o[u - j] : o[u - j]) >= a->drs_alpha) {
                keep |= 1 << (u - j);
                kept++;
            }
        }
        if (je - j == ROWS && keep == (1 << ROWS) - 1) { /* all kept: the rows as one block */
            for (v = 0; v < 4; v++)
                if (v != 1)
                    dot_rows(a->U + (v * H + j) * H, ROWS, h, p->bits, H, a->usum + v * H + j,
                             a->acc + v * H + j);
        } else {
            for (u = j; u < je; u++)
                for (v = 0; (keep >> (u - j) & 1) && v < 4; v++)
                    if (v != 1)
                        a->acc[v * H + u] =
                            dot(a->U + (v * H + u) * H, h, p->bits, H, a->usum + v * H + u);
        }
        for (u = j; u < je; u += 8) { /* the cells: lstm_units8 where 8 units are there */
            const int64_t ue = je - u < 8 ? je : u + 8;
            const int32_t k8 = keep >> (u - j) & 0xff;
            int64_t w;
#if RNNQ_AVX512
            if (ue - u == 8 && k8 && !a->Peep) { /* every unit, then the skipped ones again */
                lstm_units8_drs(a, pw, u, a->acc, k8, o + (u - j), hn, c);
                continue;
            }
#endif
            for (w = u; w < ue; w++)
                if (k8 >> (w - u) & 1)
                    lstm_unit(a, pw, w, a->acc[w], uo[w], a->acc[2 * H + w], a->acc[3 * H + w], hn,
                              c);
                else
                    drs_skip(a, w, o[w - j], hn, c);
        }
    }
    a->drs->cells++;
    a->drs->rows_total += 3 * H;
    a->drs->rows_skipped += 3 * (H - kept);
    a->drs->rows_loaded += 3 * kept;
}

/* One LSTM step: pw [G*H] the step's W x (projected before the time loop), h [H] of the
 * layer's type read, hn written, c [H] updated in place. */
static void
lstm_step(const step_args *a, const int64_t *pw, const void *h, void *hn, int32_t *c)
{
    const int64_t H = a->p->hidden;
    const int32_t bits = a->p->bits;

    if (a->drs_alpha > 0) {
        lstm_step_drs(a, pw, h, hn, c);
        return;
    }
    dot_all(a->U, 4 * H, h, bits, H, a->usum, a->acc);
    lstm_units(a, pw, 0, a->acc, hn, c);
}

/* One GRU step; rg [H], rh [H] (of the layer's type) scratch. */
static void
gru_step(const step_args *a, const int64_t *pw, const void *h, void *hn, int32_t *rg, void *rh)
{
    const lstmc_rt_rnnq_params *p = a->p;
    const int64_t H = p->hidden;
    int64_t j;

    for (j = 0; j < H; j++) {
        const int64_t rr = H + j;
        rg[j] = act(a->act[0], pre(p, gate_z(p->bits, a->Q + rr * LSTMC_RT_RNNQ_ROW, pw[rr],
                                             dot(a->U + rr * H, h, p->bits, H, a->usum + rr))));
        st(rh, p->bits, j, (int32_t)rshr((int64_t)rg[j] * ld(h, p->bits, j), 15));
    }
    for (j = 0; j < H; j++) {
        const int64_t rz = j, rn = 2 * H + j;
        const int32_t *qn = a->Q + rn * LSTMC_RT_RNNQ_ROW;
        const int32_t zg =
            act(a->act[0], pre(p, gate_z(p->bits, a->Q + rz * LSTMC_RT_RNNQ_ROW, pw[rz],
                                         dot(a->U + rz * H, h, p->bits, H, a->usum + rz))));
        const int64_t accWn = pw[rn];
        int64_t zn, N15, H15;
        int32_t ng;

        if (p->linear_before_reset) {
            const int64_t un = requant_acc(p->bits, dot(a->U + rn * H, h, p->bits, H, a->usum + rn),
                                           qn[LSTMC_RT_RNNQ_MU], qn[LSTMC_RT_RNNQ_NU]) +
                               qn[LSTMC_RT_RNNQ_BR];
            zn = gate_w(p->bits, qn, accWn) + rshr((int64_t)rg[j] * un, 15);
        } else {
            zn = gate_z(p->bits, qn, accWn, dot(a->U + rn * H, rh, p->bits, H, a->usum + rn));
        }
        ng = act(a->act[1], pre(p, zn));
        N15 = requant(ng, p->h_mult, p->h_shift);
        H15 = (int64_t)ld(h, p->bits, j) * 32768;
        st(hn, p->bits, j,
           (int32_t)sat(rshr(N15 + rshr((int64_t)zg * (H15 - N15), 15), 15), -a->hmax, a->hmax));
    }
}

/* One RNN step. */
static void
rnn_step(const step_args *a, const int64_t *pw, const void *h, void *hn)
{
    const lstmc_rt_rnnq_params *p = a->p;
    const int64_t H = p->hidden;
    int64_t j;

    for (j = 0; j < H; j++) {
        int64_t z = gate_z(p->bits, a->Q + j * LSTMC_RT_RNNQ_ROW, pw[j],
                           dot(a->U + j * H, h, p->bits, H, a->usum + j));
        int64_t y;

        if (a->act[0] == LSTMC_RT_ACT_RELU) {
            if (p->has_clip)
                z = sat(z, -(int64_t)p->clip_q, p->clip_q);
            y = z > 0 ? z : 0;
        } else {
            y = act(a->act[0], pre(p, z));
        }
        st(hn, p->bits, j, (int32_t)sat(requant(y, p->h_mult, p->h_shift), -a->hmax, a->hmax));
    }
}

static int
params_ok(const lstmc_rt_rnnq_params *p)
{
    const int32_t acts = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    int32_t k;

    if (p->cell < LSTMC_RT_CELL_LSTM || p->cell > LSTMC_RT_CELL_RNN)
        return 0;
    if ((p->bits != 8 && p->bits != 16) || p->seq_len < 0 || p->batch < 0 || p->input_size < 1 ||
        p->hidden < 1 || p->hidden > INT32_MAX / 64)
        return 0;
    if ((p->n_dirs != 1 && p->n_dirs != 2) || (p->reverse != 0 && p->reverse != 1) ||
        (p->reverse && p->n_dirs != 1) || (p->layout != 0 && p->layout != 1))
        return 0;
    if (p->has_clip && p->clip_q < 0)
        return 0;
    if (p->bits == 8 && (p->input_size > 65536 || p->hidden > 65536))
        return 0; /* the int32 accumulators of the int8 mode (|w (x - zp)| <= 127 * 255) */
    if (p->cell_exp < 0 || p->cell_exp > 15 || p->h_mult < 0 || p->h_shift < 0 || p->h_shift > 62 ||
        p->peep_mult < 0 || p->peep_shift < 0 || p->peep_shift > 62)
        return 0;
    for (k = 0; k < acts * p->n_dirs; k++) {
        const int32_t a = p->act[k];
        if (a != LSTMC_RT_ACT_SIGMOID && a != LSTMC_RT_ACT_TANH &&
            !(a == LSTMC_RT_ACT_RELU && p->cell == LSTMC_RT_CELL_RNN))
            return 0;
    }
    return 1;
}

static int
rows_ok(const int32_t *Q, int64_t rows)
{
    int64_t r;

    for (r = 0; r < rows; r++) {
        const int32_t *q = Q + r * LSTMC_RT_RNNQ_ROW;
        if (q[LSTMC_RT_RNNQ_MW] < 0 || q[LSTMC_RT_RNNQ_NW] < 0 || q[LSTMC_RT_RNNQ_NW] > 62 ||
            q[LSTMC_RT_RNNQ_MU] < 0 || q[LSTMC_RT_RNNQ_NU] < 0 || q[LSTMC_RT_RNNQ_NU] > 62)
            return 0;
    }
    return 1;
}

static lstmc_rt_status
layer_run(const lstmc_rt_rnnq_params *p, const void *X, const int8_t *W, const int8_t *U,
          const int32_t *Q, const int32_t *seq_lens, const void *init_h, const int16_t *init_c,
          const int16_t *Peep, void *Y, void *Y_h, int16_t *Y_c, int32_t *scratch,
          int64_t drs_alpha, lstmc_rt_drs_stats *drs)
{
    const int64_t T = p ? p->seq_len : 0, N = p ? p->batch : 0, H = p ? p->hidden : 0;
    const int64_t I = p ? p->input_size : 0;
    int32_t d, G, acts;
    int64_t n, j;
    lstmc_rt_rnn_params lp; /* the layout formulas of lstmc_rt_rnn_params */
    int64_t *P;             /* W x of every step, after the five [H] buffers and usum */
    int32_t *usum;
    int64_t *acc; /* a step's U h sums */

    if (!p || !X || !W || !U || !Q || !scratch)
        return LSTMC_RT_ERR_NULL;
    if (!params_ok(p))
        return LSTMC_RT_ERR_BAD_PARAMS;
    G = p->cell == LSTMC_RT_CELL_LSTM ? 4 : p->cell == LSTMC_RT_CELL_GRU ? 3 : 1;
    acts = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    if (!rows_ok(Q, p->n_dirs * G * H))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (seq_lens)
        for (n = 0; n < N; n++)
            if (seq_lens[n] < 0 || seq_lens[n] > T)
                return LSTMC_RT_ERR_SEQ_LEN;
    usum = scratch + 5 * H;
    acc = (int64_t *)(void *)(scratch + ((5 * H + G * H + 1) & ~(int64_t)1));
    P = acc + G * H;
    lp.seq_len = T;
    lp.batch = N;
    lp.hidden = H;
    lp.n_dirs = p->n_dirs;
    lp.layout = p->layout;
    for (d = 0; d < p->n_dirs; d++) {
        const int32_t rev = p->n_dirs == 2 ? d : p->reverse;
        step_args a;

        a.p = p;
        a.W = W + (int64_t)d * G * H * I;
        a.U = U + (int64_t)d * G * H * H;
        a.Q = Q + (int64_t)d * G * H * LSTMC_RT_RNNQ_ROW;
        a.Peep = Peep ? Peep + (int64_t)d * 3 * H : NULL;
        a.act = p->act + d * acts;
        a.hmax = p->bits == 8 ? 127 : 32767;
        a.drs_alpha = drs_alpha;
        a.acc = acc;
        a.drs = drs;
        project(p, X, a.W, G * H, P, usum);
        for (j = 0; j < G * H; j++)
            usum[j] = vnni_wsum(a.U + j * H, H);
        a.usum = usum;
        for (n = 0; n < N; n++) {
            const int64_t s = seq_lens ? seq_lens[n] : T, st_at = lstmc_rt_state_at(&lp, d, n);
            /* h, hn and rh in the layer's type, c and rg int32 */
            void *h = scratch, *hn = scratch + H, *rh = scratch + 4 * H;
            int32_t *c = scratch + 2 * H, *rg = scratch + 3 * H;
            int64_t step, t;

            for (j = 0; j < H; j++) {
                st(h, p->bits, j, init_h ? ld(init_h, p->bits, st_at + j) : 0);
                c[j] = init_c ? init_c[st_at + j] : 0;
            }
            for (step = 0; step < s; step++) {
                const int64_t *pw;
                void *tmp;

                t = rev ? s - 1 - step : step;
                pw = P + lstmc_rt_row_at(&lp, t, n) * G * H;
                if (p->cell == LSTMC_RT_CELL_LSTM)
                    lstm_step(&a, pw, h, hn, c);
                else if (p->cell == LSTMC_RT_CELL_GRU)
                    gru_step(&a, pw, h, hn, rg, rh);
                else
                    rnn_step(&a, pw, h, hn);
                tmp = h;
                h = hn;
                hn = tmp;
                if (Y)
                    memcpy((char *)Y + lstmc_rt_y_at(&lp, t, d, n) * (p->bits / 8), h,
                           (size_t)(H * (p->bits / 8)));
            }
            if (Y)
                for (t = s; t < T; t++)
                    memset((char *)Y + lstmc_rt_y_at(&lp, t, d, n) * (p->bits / 8), 0,
                           (size_t)(H * (p->bits / 8)));
            if (Y_h)
                memcpy((char *)Y_h + st_at * (p->bits / 8), h, (size_t)(H * (p->bits / 8)));
            for (j = 0; Y_c && j < H; j++)
                Y_c[st_at + j] = (int16_t)c[j];
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_rnn_q(const lstmc_rt_rnnq_params *p, const void *X, const int8_t *W, const int8_t *U,
               const int32_t *Q, const int32_t *seq_lens, const void *init_h, const int16_t *init_c,
               const int16_t *Peep, void *Y, void *Y_h, int16_t *Y_c, int32_t *scratch)
{
    return layer_run(p, X, W, U, Q, seq_lens, init_h, init_c, Peep, Y, Y_h, Y_c, scratch, 0, NULL);
}

/* Contract in lstmc_rt_kernels.h. */
lstmc_rt_status
lstmc_rt_lstm_drs_q(const lstmc_rt_rnnq_params *p, float alpha_intra, const void *X,
                    const int8_t *W, const int8_t *U, const int32_t *Q, const int32_t *seq_lens,
                    const void *init_h, const int16_t *init_c, const int16_t *Peep, void *Y,
                    void *Y_h, int16_t *Y_c, lstmc_rt_drs_stats *stats, int32_t *scratch)
{
    lstmc_rt_drs_stats local;
    int64_t j;
    int32_t d;

    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (p->cell != LSTMC_RT_CELL_LSTM || !params_ok(p))
        return LSTMC_RT_ERR_BAD_PARAMS;
    for (d = 0; Peep && d < p->n_dirs; d++) /* o must not depend on c_t */
        for (j = 0; j < p->hidden; j++)
            if (Peep[(int64_t)d * 3 * p->hidden + p->hidden + j] != 0)
                return LSTMC_RT_ERR_BAD_PARAMS;
    return layer_run(p, X, W, U, Q, seq_lens, init_h, init_c, Peep, Y, Y_h, Y_c, scratch,
                     lstmc_rt_fixed_threshold(alpha_intra, 15), stats);
}

/* --- breakpoints and tissues on the integer layer (issue 24) -------------------------- */

/* Contract in lstmc_rt_kernels.h: ceil(alpha * 2^frac) from the IEEE bits. */
int64_t
lstmc_rt_fixed_threshold(float alpha, int32_t frac)
{
    uint32_t b;
    int64_t m, e;

    memcpy(&b, &alpha, sizeof b);
    if ((b >> 31) || b == 0 || frac < 0 || frac > 62)
        return 0; /* alpha <= 0 (or -NaN): nothing cut */
    e = (b >> 23) & 0xff;
    m = b & 0x7fffff;
    if (e == 0xff)
        return m ? 0 : INT64_MAX; /* NaN cuts nothing; +inf cuts every link */
    if (e)
        m |= 0x800000;
    else
        e = 1;          /* subnormal: m * 2^-149 */
    e = e - 150 + frac; /* alpha * 2^frac = m * 2^e */
    if (e >= 0)
        return e > 38 ? INT64_MAX : m << e; /* m < 2^24 */
    return -e >= 25 ? 1 : (m + ((int64_t)1 << -e) - 1) >> -e;
}

#define TQ_ONE 4096 /* 1.0 in Q.12 */

static inline int64_t
min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int64_t
max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Algorithm 2 line 5 in Q.12, clamped at 0 (lstmc_rt_lstm_relevance's gate_overlap) */
static inline int64_t
overlap_q(int64_t z, int64_t d)
{
    const int64_t a = z < 0 ? -z : z, two = 2 * TQ_ONE;
    return max64(0, min64(two + min64(two, a), min64(two, two + d - max64(two, a))));
}

typedef struct tq_scores {
    const lstmc_rt_rnnq_params *p;
    const int64_t *P;   /* this direction's W x of every row */
    const int32_t *Q;   /* this direction's rows */
    const int32_t *rad; /* [4H] */
    const int32_t *shf; /* [4H] */
    int32_t kind;
} tq_scores;

/* x_r + m_r of row r: the recipe's z without U h, plus the calibrated shift */
static inline int64_t
tq_z(const tq_scores *s, const int64_t *pw, int64_t r)
{
    const int32_t *q = s->Q + r * LSTMC_RT_RNNQ_ROW;
    return gate_w(s->p->bits, q, pw[r]) + q[LSTMC_RT_RNNQ_BR] + s->shf[r];
}

/* S_q of the link into P's row `row` (lstmc_rt_kernels.h, lstmc_rt_lstm_tissue_q step 2) */
static int64_t
tq_score(const void *ctx, int64_t row)
{
    const tq_scores *s = ctx;
    const int64_t H = s->p->hidden, *pw = s->P + row * 4 * H;
    const int32_t *r = s->rad;
    int64_t S = 0, j;

    for (j = 0; j < H; j++) {
        const int64_t zi = tq_z(s, pw, j), zo = tq_z(s, pw, H + j), zf = tq_z(s, pw, 2 * H + j),
                      zc = tq_z(s, pw, 3 * H + j);
        if (s->kind == LSTMC_RT_REL_SENSITIVITY) {
            const int64_t ai = zi < 0 ? -zi : zi, ao = zo < 0 ? -zo : zo, af = zf < 0 ? -zf : zf,
                          ac = zc < 0 ? -zc : zc;
            S += max64(0, 16384 - ai) * r[j] + max64(0, 16384 - ao) * r[H + j] +
                 max64(0, 16384 - af) * r[2 * H + j] + 8 * max64(0, 8192 - ac) * r[3 * H + j];
        } else {
            const int64_t sf = min64(4 * TQ_ONE, max64(zf + r[2 * H + j] + 2 * TQ_ONE, 0));
            const int64_t si = overlap_q(zi, r[j]), so = overlap_q(zo, r[H + j]),
                          sc = overlap_q(zc, r[3 * H + j]);
            S += so * (sf * TQ_ONE + si * sc);
        }
    }
    return S;
}

/* The words after the plan's: usum [4H] | hbuf [cap, H] | state h [slots, H] | state c
 * [slots, H] | ob [cap, H] (DRS: each cell's o, Q0.15) | acc int64 [cap, 4H] | P int64
 * [T*N, 4H] (even word offsets for the int64) */
typedef struct tq_layout {
    lstmc_rt_tissue_layout l;
    int64_t usum, hbuf, sh, sc, ob, acc, P, words;
} tq_layout;

static int
tq_layout_of(const lstmc_rt_tissueq_params *p, lstmc_rt_tissue_params *tp, tq_layout *t)
{
    const lstmc_rt_rnnq_params *q = &p->q;
    int64_t H, TN;

    if (!params_ok(q) || q->cell != LSTMC_RT_CELL_LSTM)
        return -1;
    memset(tp, 0, sizeof *tp); /* the plan's view of the layer: sizes and directions */
    tp->rnn.cell = LSTMC_RT_CELL_LSTM;
    tp->rnn.seq_len = q->seq_len;
    tp->rnn.batch = q->batch;
    tp->rnn.input_size = q->input_size;
    tp->rnn.hidden = q->hidden;
    tp->rnn.n_dirs = q->n_dirs;
    tp->rnn.reverse = q->reverse;
    tp->rnn.layout = q->layout;
    tp->rnn.packed = 1;
    /* act[] all LSTMC_RT_ACT_SIGMOID (0): the plan does not read them */
    tp->mts = p->mts;
    tp->relevance = p->relevance;
    tp->max_run = p->max_run;
    if (lstmc_rt_tissue_layout_of(tp, &t->l) < 0)
        return -1;
    H = q->hidden;
    TN = q->seq_len * q->batch;
    if (TN > INT64_MAX / 64 / H)
        return -1;
    t->usum = t->l.words;
    t->hbuf = t->usum + 4 * H;
    t->sh = t->hbuf + t->l.cap * H;
    t->sc = t->sh + t->l.slots * H;
    t->ob = t->sc + t->l.slots * H;
    t->acc = (t->ob + t->l.cap * H + 1) & ~(int64_t)1;
    t->P = t->acc + 2 * t->l.cap * 4 * H;
    t->words = t->P + 2 * TN * 4 * H;
    return 0;
}

int64_t
lstmc_rt_lstm_tissue_q_scratch(const lstmc_rt_tissueq_params *p)
{
    lstmc_rt_tissue_params tp;
    tq_layout t;

    return !p || tq_layout_of(p, &tp, &t) < 0 ? -1 : t.words;
}

/* dst[0..H) of the layer's type = src ? src[0..H) : 0 */
static void
copy_h(void *dst, const void *src, int32_t bits, int64_t H)
{
    if (src)
        memcpy(dst, src, (size_t)(H * (bits / 8)));
    else
        memset(dst, 0, (size_t)(H * (bits / 8)));
}

static void
copy_c(int32_t *dst, const int16_t *src, int64_t H)
{
    int64_t j;
    for (j = 0; j < H; j++)
        dst[j] = src ? src[j] : 0;
}

/* One tissue's U h products (drs_q 0), or Algorithm 3 inside it: every cell's o rows, its
 * keep flags, the rows i, f, c of the units some cell keeps, loaded once for the tissue and
 * multiplied for the cells that keep them (ob: each cell's o). */
static void
tissue_product(const step_args *a, int64_t m, const char *hbuf, const int64_t *P,
               const lstmc_rt_rnn_params *lp, const int32_t *cn, const int32_t *ct, int64_t drs_q,
               int32_t *ob, int64_t *acc, lstmc_rt_drs_stats *ds)
{
    const lstmc_rt_rnnq_params *p = a->p;
    const int64_t H = p->hidden, G = 4 * H, es = p->bits / 8;
    int64_t r, i, j;

    if (drs_q <= 0) { /* each block of ROWS rows meets every cell's h while it is in L1 */
        for (r = 0; r < G; r += ROWS)
            for (i = 0; i < m; i++)
                dot_rows(a->U + r * H, G - r < ROWS ? G - r : ROWS, hbuf + i * H * es, p->bits, H,
                         a->usum + r, acc + i * G + r);
        return;
    }
    for (i = 0; i < m; i++) { /* line 4-5: o of every cell */
        const int64_t *pw = P + lstmc_rt_row_at(lp, ct[i], cn[i]) * G;
        dot_all(a->U + H * H, H, hbuf + i * H * es, p->bits, H, a->usum + H, acc + i * G + H);
        for (j = 0; j < H; j++)
            ob[i * H + j] = drs_o(a, pw, j, acc[i * G + H + j]);
    }
    /* lines 6-7: a unit's rows for the cells that keep it, a block of ROWS units at a time
     * (a cell that keeps the whole block: its rows as one dot_rows per gate) */
    for (j = 0; j < H; j += ROWS) {
        const int64_t je = H - j < ROWS ? H : j + ROWS;
        int64_t u, kept[ROWS] = {0};
        for (i = 0; i < m; i++) {
            const char *h = hbuf + i * H * es;
            int32_t keep = 0;
            for (u = j; u < je; u++) {
                const int32_t o = ob[i * H + u];
                if ((o < 0 ? -(int64_t)o : o) >= drs_q) {
                    keep |= 1 << (u - j);
                    kept[u - j]++;
                }
            }
            if (je - j == ROWS && keep == (1 << ROWS) - 1) {
                for (r = 0; r < G; r += H)
                    if (r != H)
                        dot_rows(a->U + (r + j) * H, ROWS, h, p->bits, H, a->usum + r + j,
                                 acc + i * G + r + j);
                continue;
            }
            for (u = j; u < je; u++)
                for (r = u; (keep >> (u - j) & 1) && r < G; r += H)
                    if (r != H + u)
                        acc[i * G + r] = dot(a->U + r * H, h, p->bits, H, a->usum + r);
        }
        for (u = j; u < je; u++) {
            ds->rows_total += 3 * m;
            ds->rows_skipped += 3 * (m - kept[u - j]);
            ds->rows_loaded += kept[u - j] ? 3 : 0;
        }
    }
    ds->cells += m;
}

static lstmc_rt_status
tissue_q_run(const lstmc_rt_tissueq_params *tqp, float alpha_inter, float alpha_intra,
             const void *X, const int8_t *W, const int8_t *U, const int32_t *Q,
             const int32_t *seq_lens, const void *init_h, const int16_t *init_c,
             const int16_t *Peep, const int32_t *R, const void *h_pred, const int16_t *c_pred,
             void *Y, void *Y_h, int16_t *Y_c, lstmc_rt_tissue_stats *stats, lstmc_rt_drs_stats *ds,
             int32_t *scratch)
{
    const lstmc_rt_rnnq_params *p = tqp ? &tqp->q : NULL;
    lstmc_rt_tissue_stats local;
    lstmc_rt_tissue_params tp;
    tq_layout L;
    int64_t H, G, T, N, es, n, t, j, alpha_q;
    int32_t d;

    const int64_t drs_q = ds ? lstmc_rt_fixed_threshold(alpha_intra, 15) : 0;

    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (ds)
        memset(ds, 0, sizeof *ds);
    if (!tqp || !X || !W || !U || !Q || !scratch)
        return LSTMC_RT_ERR_NULL;
    if (tq_layout_of(tqp, &tp, &L) < 0 || !rows_ok(Q, p->n_dirs * 4 * p->hidden))
        return LSTMC_RT_ERR_BAD_PARAMS;
    for (d = 0; ds && Peep && d < p->n_dirs; d++) /* DRS: o must not depend on c_t */
        for (j = 0; j < p->hidden; j++)
            if (Peep[(int64_t)d * 3 * p->hidden + p->hidden + j] != 0)
                return LSTMC_RT_ERR_BAD_PARAMS;
    H = p->hidden;
    G = 4 * H;
    T = p->seq_len;
    N = p->batch;
    es = p->bits / 8;
    alpha_q =
        lstmc_rt_fixed_threshold(alpha_inter, tqp->relevance == LSTMC_RT_REL_SENSITIVITY ? 40 : 36);
    if (alpha_q > 0 && !R)
        return LSTMC_RT_ERR_NULL;
    for (d = 0; R && d < p->n_dirs; d++) /* radii that keep S_q within int64 */
        for (j = 0; j < G; j++) {
            const int32_t r = R[(int64_t)d * 2 * G + j];
            if (r < 0 || r > (tqp->relevance == LSTMC_RT_REL_SENSITIVITY ? (1 << 26) : (1 << 30)))
                return LSTMC_RT_ERR_BAD_PARAMS;
        }
    if (seq_lens)
        for (n = 0; n < N; n++)
            if (seq_lens[n] < 0 || seq_lens[n] > T)
                return LSTMC_RT_ERR_SEQ_LEN;
    if (N == 0)
        return LSTMC_RT_OK;

    for (d = 0; d < p->n_dirs; d++) {
        const lstmc_rt_rnn_params *lp = &tp.rnn;
        const int32_t *w = scratch, *tstart = w + L.l.tstart, *cell_n = w + L.l.cell_n;
        const int32_t *cell_t = w + L.l.cell_t, *cell_slot = w + L.l.cell_slot;
        const int32_t *cell_flag = w + L.l.cell_flag;
        int32_t *usum = scratch + L.usum, *sc = scratch + L.sc, *ob = scratch + L.ob;
        char *hbuf = (char *)(scratch + L.hbuf), *sh = (char *)(scratch + L.sh);
        int64_t *acc = (int64_t *)(void *)(scratch + L.acc);
        int64_t *P = (int64_t *)(void *)(scratch + L.P);
        step_args a;
        tq_scores sc_ctx;
        int32_t K, tau;

        a.p = p;
        a.W = W + (int64_t)d * G * p->input_size;
        a.U = U + (int64_t)d * G * H;
        a.Q = Q + (int64_t)d * G * LSTMC_RT_RNNQ_ROW;
        a.Peep = Peep ? Peep + (int64_t)d * 3 * H : NULL;
        a.act = p->act + d * 3;
        a.hmax = p->bits == 8 ? 127 : 32767;
        a.drs_alpha = 0; /* the tissues' cells run lstm_unit directly */
        a.acc = NULL;
        a.drs = NULL;
        project(p, X, a.W, G, P, usum);
        for (j = 0; j < G; j++)
            usum[j] = vnni_wsum(a.U + j * H, H);
        a.usum = usum;

        sc_ctx.p = p;
        sc_ctx.P = P;
        sc_ctx.Q = a.Q;
        sc_ctx.rad = R ? R + (int64_t)d * 2 * G : NULL;
        sc_ctx.shf = R ? sc_ctx.rad + G : NULL;
        sc_ctx.kind = tqp->relevance;
        K = lstmc_rt_tissue_plan_scored(&tp, d, alpha_q, R ? tq_score : NULL, &sc_ctx, seq_lens,
                                        stats, scratch);
        if (K < 0)
            return LSTMC_RT_ERR_BAD_PARAMS;
        for (tau = 0; tau < K; tau++) {
            const int32_t c0 = tstart[tau], m = tstart[tau + 1] - c0;
            int64_t i;

            /* gather each cell's h_{t-1}; a sub-layer's first cell starts from init_h /
             * init_c (its sequence's start) or from h_pred / c_pred (after a cut) */
            for (i = 0; i < m; i++) {
                char *hs = sh + cell_slot[c0 + i] * H * es;
                int32_t *cs = sc + cell_slot[c0 + i] * H;
                const int64_t at = lstmc_rt_state_at(lp, d, cell_n[c0 + i]);

                if (cell_flag[c0 + i] & LSTMC_RT_TISSUE_SEQ_START) {
                    copy_h(hs, init_h ? (const char *)init_h + at * es : NULL, p->bits, H);
                    copy_c(cs, init_c ? init_c + at : NULL, H);
                } else if (cell_flag[c0 + i] & LSTMC_RT_TISSUE_CUT_START) {
                    copy_h(hs, h_pred ? (const char *)h_pred + d * H * es : NULL, p->bits, H);
                    copy_c(cs, c_pred ? c_pred + d * H : NULL, H);
                }
                memcpy(hbuf + i * H * es, hs, (size_t)(H * es));
            }
            /* one pass over U (with DRS, over the rows some cell keeps) */
            tissue_product(&a, m, hbuf, P, lp, cell_n + c0, cell_t + c0, drs_q, ob, acc, ds);
            /* every cell's update, its outputs */
            for (i = 0; i < m; i++) {
                char *hs = sh + cell_slot[c0 + i] * H * es;
                int32_t *cs = sc + cell_slot[c0 + i] * H;
                int64_t *ai = acc + i * G;

                n = cell_n[c0 + i];
                t = cell_t[c0 + i];
                if (drs_q <= 0)
                    lstm_units(&a, P + lstmc_rt_row_at(lp, t, n) * G, 0, ai, hs, cs);
                for (j = 0; drs_q > 0 && j < H; j++) {
                    const int32_t o = ob[i * H + j];
#if RNNQ_AVX512
                    if (j % 8 == 0 && j + 8 <= H && !a.Peep) { /* 8 units at a time */
                        int32_t k, keep = 0;
                        for (k = 0; k < 8; k++) {
                            const int32_t ok = ob[i * H + j + k];
                            keep |= ((ok < 0 ? -(int64_t)ok : ok) >= drs_q) << k;
                        }
                        if (keep) {
                            lstm_units8_drs(&a, P + lstmc_rt_row_at(lp, t, n) * G, j, ai, keep,
                                            ob + i * H + j, hs, cs);
                            j += 7;
                            continue;
                        }
                    }
#endif
                    if ((o < 0 ? -(int64_t)o : o) < drs_q)
                        drs_skip(&a, j, o, hs, cs);
                    else
                        lstm_unit(&a, P + lstmc_rt_row_at(lp, t, n) * G, j, ai[j], ai[H + j],
                                  ai[2 * H + j], ai[3 * H + j], hs, cs);
                }
                if (Y)
                    memcpy((char *)Y + lstmc_rt_y_at(lp, t, d, n) * es, hs, (size_t)(H * es));
                if (cell_flag[c0 + i] & LSTMC_RT_TISSUE_SEQ_END) {
                    const int64_t at = lstmc_rt_state_at(lp, d, n);
                    if (Y_h)
                        memcpy((char *)Y_h + at * es, hs, (size_t)(H * es));
                    for (j = 0; Y_c && j < H; j++)
                        Y_c[at + j] = (int16_t)cs[j];
                }
            }
        }
        /* rows past each sequence's end are zero; an empty sequence keeps its initial state
         * as lstmc_rt_rnn_q does */
        for (n = 0; n < N; n++) {
            const int64_t s = seq_lens ? seq_lens[n] : T, at = lstmc_rt_state_at(lp, d, n);
            if (Y)
                for (t = s; t < T; t++)
                    memset((char *)Y + lstmc_rt_y_at(lp, t, d, n) * es, 0, (size_t)(H * es));
            if (s == 0) {
                if (Y_h)
                    copy_h((char *)Y_h + at * es, init_h ? (const char *)init_h + at * es : NULL,
                           p->bits, H);
                for (j = 0; Y_c && j < H; j++)
                    Y_c[at + j] = init_c ? init_c[at + j] : 0;
            }
        }
    }
    return LSTMC_RT_OK;
}

/* Contract in lstmc_rt_kernels.h. */
lstmc_rt_status
lstmc_rt_lstm_tissue_q(const lstmc_rt_tissueq_params *tqp, float alpha_inter, const void *X,
                       const int8_t *W, const int8_t *U, const int32_t *Q, const int32_t *seq_lens,
                       const void *init_h, const int16_t *init_c, const int16_t *Peep,
                       const int32_t *R, const void *h_pred, const int16_t *c_pred, void *Y,
                       void *Y_h, int16_t *Y_c, lstmc_rt_tissue_stats *stats, int32_t *scratch)
{
    return tissue_q_run(tqp, alpha_inter, 0.0f, X, W, U, Q, seq_lens, init_h, init_c, Peep, R,
                        h_pred, c_pred, Y, Y_h, Y_c, stats, NULL, scratch);
}

/* Contract in lstmc_rt_kernels.h. */
lstmc_rt_status
lstmc_rt_lstm_tissue_drs_q(const lstmc_rt_tissueq_params *tqp, float alpha_inter, float alpha_intra,
                           const void *X, const int8_t *W, const int8_t *U, const int32_t *Q,
                           const int32_t *seq_lens, const void *init_h, const int16_t *init_c,
                           const int16_t *Peep, const int32_t *R, const void *h_pred,
                           const int16_t *c_pred, void *Y, void *Y_h, int16_t *Y_c,
                           lstmc_rt_tissue_stats *stats, lstmc_rt_drs_stats *drs_stats,
                           int32_t *scratch)
{
    lstmc_rt_drs_stats local;
    return tissue_q_run(tqp, alpha_inter, alpha_intra, X, W, U, Q, seq_lens, init_h, init_c, Peep,
                        R, h_pred, c_pred, Y, Y_h, Y_c, stats, drs_stats ? drs_stats : &local,
                        scratch);
}

/* --- the integer Gemm after the layers (--io=int) ------------------------------------- */

lstmc_rt_status
lstmc_rt_gemm_q(const lstmc_rt_gemmq_params *p, const void *A, const int8_t *B, const int32_t *bias,
                int32_t *Y)
{
    int64_t i, j, k;

    if (!p || !A || !B || !Y)
        return LSTMC_RT_ERR_NULL;
    if ((p->bits != 8 && p->bits != 16) || p->m < 0 || p->n < 0 || p->k < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    for (i = 0; i < p->m; i++)
        for (j = 0; j < p->n; j++) {
            const int8_t *b = B + j * p->k;
            int64_t s = bias ? bias[j] : 0;
            for (k = 0; k < p->k; k++)
                s += (int64_t)(ld(A, p->bits, i * p->k + k) - p->a_zero_point) * b[k];
            Y[i * p->n + j] = (int32_t)sat(s, INT32_MIN, INT32_MAX);
        }
    return LSTMC_RT_OK;
}

/* --- the float boundary: QuantizeLinear and DequantizeLinear -------------------------- */

/* one value: sat(round_half_even(x / scale) + zero_point); NaN (which ONNX leaves undefined)
 * gives the zero point */
static inline int32_t
quant1(float x, float scale, int32_t zero_point, int32_t lo, int32_t hi)
{
    float v = nearbyintf(x / scale) + (float)zero_point;
    if (v != v)
        return zero_point;
    return v <= (float)lo ? lo : v >= (float)hi ? hi : (int32_t)v;
}

lstmc_rt_status
lstmc_rt_quantize(const lstmc_rt_quant_params *p, const float *x, void *q)
{
    const int32_t lo = p && p->bits == 8 ? -128 : -32768, hi = p && p->bits == 8 ? 127 : 32767;
    int64_t i;

    if (!p || (!x && p->n) || (!q && p->n))
        return LSTMC_RT_ERR_NULL;
    if ((p->bits != 8 && p->bits != 16) || !(p->scale > 0.0f) || p->n < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->bits == 8)
        for (i = 0; i < p->n; i++)
            ((int8_t *)q)[i] = (int8_t)quant1(x[i], p->scale, p->zero_point, lo, hi);
    else
        for (i = 0; i < p->n; i++)
            ((int16_t *)q)[i] = (int16_t)quant1(x[i], p->scale, p->zero_point, lo, hi);
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_dequantize(const lstmc_rt_quant_params *p, const void *q, float *x)
{
    int64_t i;

    if (!p || (!x && p->n) || (!q && p->n))
        return LSTMC_RT_ERR_NULL;
    if ((p->bits != 8 && p->bits != 16 && p->bits != 32) || p->n < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    /* one loop per width, so that the compiler can vectorise each */
    if (p->bits == 8) {
        const int8_t *v = q;
        for (i = 0; i < p->n; i++)
            x[i] = (float)(v[i] - p->zero_point) * p->scale;
    } else if (p->bits == 16) {
        const int16_t *v = q;
        for (i = 0; i < p->n; i++)
            x[i] = (float)(v[i] - p->zero_point) * p->scale;
    } else {
        const int32_t *v = q;
        for (i = 0; i < p->n; i++)
            x[i] = (float)((int64_t)v[i] - p->zero_point) * p->scale;
    }
    return LSTMC_RT_OK;
}
