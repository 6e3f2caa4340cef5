/*
 * rt_lowp.c — the portable C kernels of reduced-precision weights (issue 12,
 * docs/PRECISION.md): G1 (lstmc_rt_rnn_proj) and G2 (lstmc_rt_rnn_rec's recurrent product)
 * read from fp16, bf16 or int8 storage, converted to float as they are read, accumulated in
 * float. Layout and contract in lstmc_rt_kernels.h ("reduced-precision weights").
 *
 * Bytes are read one by one and assembled little-endian (the layout's byte order), so the
 * int32 words the compiler stores the tensor in are never accessed through another type.
 * These are the reference and fallback kernels; the LLVM kernels (codegen/llvm/)
 * are the fast path on CPUs with vector conversions.
 */
#include "lstmc_rt_kernels.h"
#include "internal/testing.h"

#include <string.h>

/* Columns of int8 products summed before the row scale is applied (a stack buffer). */
#define LOWP_CHUNK 64

float
lstmc_rt_f16_to_f32(uint16_t h)
{
    uint32_t em = (uint32_t)h & 0x7fffu, bits;
    float f;

    if (em >= 0x7c00u) { /* inf or NaN: all exponent bits, the payload kept */
        bits = 0x7f800000u | ((em & 0x3ffu) << 13);
        memcpy(&f, &bits, sizeof f);
    } else {
        /* exponent and mantissa moved into place read as 2^-112 times the value (also for
         * subnormal halves, which become float denormals); the multiply is exact */
        bits = em << 13;
        memcpy(&f, &bits, sizeof f);
        f *= 0x1p112f;
    }
    return (h & 0x8000u) ? -f : f;
}

float
lstmc_rt_bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;

    memcpy(&f, &bits, sizeof f);
    return f;
}

int64_t
lstmc_rt_lowp_bytes(int32_t wfmt, int64_t D, int64_t K, int64_t GH)
{
    /* the weights, after the row scales of a format that has them (layout in lstmc_rt_kernels.h) */
    switch (wfmt) {
#define LOWP_BYTES(id, name, bytes, row_scales)                                                \
    case LSTMC_RT_WFMT_##id:                                                                   \
        return D * GH * 4 * (row_scales) + D * K * GH * (bytes);
        LSTMC_RT_WFMT_TABLE(LOWP_BYTES)
#undef LOWP_BYTES
    default:
        return -1;
    }
}

static uint16_t
u16_at(const unsigned char *b, int64_t i)
{
    return (uint16_t)(b[2 * i] | (b[2 * i + 1] << 8));
}

static float
scale_at(const unsigned char *b, int64_t i)
{
    float s;

    memcpy(&s, b + 4 * i, sizeof s);
    return s;
}

void
lstmc_rt_lowp_accumulate(int32_t wfmt, const void *w, int64_t D, int32_t d, const float *h,
                         int64_t K, int64_t ld, int64_t col0, int64_t n, float *gates)
{
    const unsigned char *base = w;
    int64_t k, g, c0;

    if (wfmt == LSTMC_RT_WFMT_FP16 || wfmt == LSTMC_RT_WFMT_BF16) {
        const unsigned char *wd = base + 2 * d * K * ld;
        for (k = 0; k < K; k++) {
            const float hk = h[k];
            const int64_t row = k * ld + col0;

            if (wfmt == LSTMC_RT_WFMT_FP16)
                for (g = 0; g < n; g++)
                    gates[g] += hk * lstmc_rt_f16_to_f32(u16_at(wd, row + g));
            else
                for (g = 0; g < n; g++)
                    gates[g] += hk * lstmc_rt_bf16_to_f32(u16_at(wd, row + g));
        }
        return;
    }
    if (wfmt != LSTMC_RT_WFMT_INT8)
        return;
    {
        const unsigned char *sc = base + 4 * d * ld;
        const signed char *q = (const signed char *)(base + 4 * D * ld) + d * K * ld;

        for (c0 = 0; c0 < n; c0 += LOWP_CHUNK) {
            const int64_t m = n - c0 < LOWP_CHUNK ? n - c0 : LOWP_CHUNK;
            float acc[LOWP_CHUNK];

            for (g = 0; g < m; g++)
                acc[g] = 0.0f;
            for (k = 0; k < K; k++) {
                const float hk = h[k];
                const signed char *row = q + k * ld + col0 + c0;

                for (g = 0; g < m; g++)
                    acc[g] += hk * (float)row[g];
            }
            for (g = 0; g < m; g++)
                gates[c0 + g] += scale_at(sc, col0 + c0 + g) * acc[g];
        }
    }
}

static int64_t
gates_of(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 4 : cell == LSTMC_RT_CELL_GRU ? 3 : 1;
}

/* lstmc_rt_rnn_proj for packed weights in wfmt: a panel of LSTMC_RT_PROJ_PANEL columns of
 * G1 is applied to every row of X before the next panel, so G1 is read from memory once. */
static lstmc_rt_status
proj_lowp(int32_t wfmt, const lstmc_rt_rnn_proj_params *p, const float *X, const void *w,
          const float *b, float *P)
{
    int64_t GH, I, r, g, g0;
    int32_t d;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    GH = gates_of(p->cell) * p->hidden;
    I = p->input_size;
    if (p->rows < 0 || I < 1 || p->hidden < 1 || p->n_dirs < 1 || p->n_dirs > 2 ||
        p->packed != 1 || p->cell < LSTMC_RT_CELL_LSTM || p->cell > LSTMC_RT_CELL_RNN)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->rows == 0)
        return LSTMC_RT_OK;
    if (!X || !w || !P)
        return LSTMC_RT_ERR_NULL;
    for (d = 0; d < p->n_dirs; d++) {
        float *Pd = P + d * p->rows * GH;

        for (g0 = 0; g0 < GH; g0 += LSTMC_RT_PROJ_PANEL) {
            const int64_t n = GH - g0 < LSTMC_RT_PROJ_PANEL ? GH - g0 : LSTMC_RT_PROJ_PANEL;

            for (r = 0; r < p->rows; r++) {
                float *out = Pd + r * GH + g0;

                for (g = 0; g < n; g++)
                    out[g] = b ? b[d * GH + g0 + g] : 0.0f;
                lstmc_rt_lowp_accumulate(wfmt, w, p->n_dirs, d, X + r * I, I, GH, g0, n, out);
            }
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_rnn_proj_f16(const lstmc_rt_rnn_proj_params *p, const float *X, const void *w,
                      const float *b, float *P)
{
    return proj_lowp(LSTMC_RT_WFMT_FP16, p, X, w, b, P);
}

lstmc_rt_status
lstmc_rt_rnn_proj_bf16(const lstmc_rt_rnn_proj_params *p, const float *X, const void *w,
                       const float *b, float *P)
{
    return proj_lowp(LSTMC_RT_WFMT_BF16, p, X, w, b, P);
}

lstmc_rt_status
lstmc_rt_rnn_proj_i8(const lstmc_rt_rnn_proj_params *p, const float *X, const void *w,
                     const float *b, float *P)
{
    return proj_lowp(LSTMC_RT_WFMT_INT8, p, X, w, b, P);
}

lstmc_rt_status
lstmc_rt_rnn_rec_f16(const lstmc_rt_rnn_params *p, const float *P, const void *r,
                     const float *rb, const int32_t *seq_lens, const float *init_h,
                     const float *init_c, const float *Peep, float *Y, float *Y_h, float *Y_c,
                     float *scratch)
{
    return lstmc_rt_rnn_rec_fmt(LSTMC_RT_WFMT_FP16, p, P, r, rb, seq_lens, init_h, init_c,
                                Peep, Y, Y_h, Y_c, scratch);
}

lstmc_rt_status
lstmc_rt_rnn_rec_bf16(const lstmc_rt_rnn_params *p, const float *P, const void *r,
                      const float *rb, const int32_t *seq_lens, const float *init_h,
                      const float *init_c, const float *Peep, float *Y, float *Y_h,
                      float *Y_c, float *scratch)
{
    return lstmc_rt_rnn_rec_fmt(LSTMC_RT_WFMT_BF16, p, P, r, rb, seq_lens, init_h, init_c,
                                Peep, Y, Y_h, Y_c, scratch);
}

lstmc_rt_status
lstmc_rt_rnn_rec_i8(const lstmc_rt_rnn_params *p, const float *P, const void *r,
                    const float *rb, const int32_t *seq_lens, const float *init_h,
                    const float *init_c, const float *Peep, float *Y, float *Y_h, float *Y_c,
                    float *scratch)
{
    return lstmc_rt_rnn_rec_fmt(LSTMC_RT_WFMT_INT8, p, P, r, rb, seq_lens, init_h, init_c,
                                Peep, Y, Y_h, Y_c, scratch);
}
