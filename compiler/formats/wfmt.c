/*
 * wfmt.c — the weight storage formats' names and encoders (wfmt.h, docs/PRECISION.md):
 * f32 -> IEEE binary16 / bfloat16 rounded to nearest even (what ONNX Runtime's Cast does),
 * and the int8 quantiser of one output row (s = max|w| / 127, q = round(w / s), unless one
 * of the model's own DequantizeLinear scales represents the row exactly). The decoders are
 * the runtime's (runtime/src/rt_lowp.c); passes/lowp.c applies the formats to a graph.
 */
#include "wfmt.h"

#include <math.h>
#include <string.h>

static const char *const names[LSTMC_RT_WFMT_COUNT] = {
#define WFMT_NAME(id, name, bytes, row_scales) name,
    LSTMC_RT_WFMT_TABLE(WFMT_NAME)
#undef WFMT_NAME
};

static const int elem_bytes[LSTMC_RT_WFMT_COUNT] = {
#define WFMT_BYTES(id, name, bytes, row_scales) bytes,
    LSTMC_RT_WFMT_TABLE(WFMT_BYTES)
#undef WFMT_BYTES
};

int
lowp_parse(const char *s)
{
    int i;
    for (i = 0; s && i < LSTMC_RT_WFMT_COUNT; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

const char *
lowp_name(int fmt)
{
    return fmt >= 0 && fmt < LSTMC_RT_WFMT_COUNT ? names[fmt] : "?";
}

int
lowp_elem_bytes(int fmt)
{
    return fmt >= 0 && fmt < LSTMC_RT_WFMT_COUNT ? elem_bytes[fmt] : 4;
}

uint16_t
lowp_f32_to_f16(float x)
{
    uint32_t u, sign;
    memcpy(&u, &x, sizeof u);
    sign = (u >> 16) & 0x8000u;
    u &= 0x7fffffffu;
    if (u >= 0x7f800000u) /* inf stays inf, NaN a quiet NaN keeping its payload's top bits */
        return (uint16_t)(sign | 0x7c00u |
                          (u > 0x7f800000u ? 0x200u | (u & 0x7fffffu) >> 13 : 0u));
    if (u >= 0x477ff000u) /* >= 65520 rounds past the largest half, 65504 */
        return (uint16_t)(sign | 0x7c00u);
    if (u < 0x38800000u) { /* below 2^-14: a subnormal half, x * 2^24 rounded to even */
        float f;
        memcpy(&f, &u, sizeof f);
        return (uint16_t)(sign | (uint32_t)nearbyintf(f * 16777216.0f));
    }
    /* rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even */
    u += 0xc8000fffu + ((u >> 13) & 1u);
    return (uint16_t)(sign | (u >> 13));
}

uint16_t
lowp_f32_to_bf16(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it a quiet NaN */
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* 1 when every weight of the row is q * c exactly with q an int8 (-128..127); writes q.
 * -128 is allowed here: a model's own asymmetric grid (uint8, zero point 128) reaches it. */
static int
fits_grid(const float *w, int64_t n, int64_t stride, float c, signed char *q, int64_t qstride)
{
    int64_t k;
    if (!(c > 0.0f) || !isfinite(c))
        return 0;
    for (k = 0; k < n; k++) {
        float v = w[k * stride], r = roundf(v / c);
        if (!(r >= -128.0f && r <= 127.0f) || r * c != v)
            return 0;
    }
    for (k = 0; k < n; k++)
        q[k * qstride] = (signed char)roundf(w[k * stride] / c);
    return 1;
}

/* The first of the ascending c[0..n) that is >= v; n when none is. */
static int
lower_bound(const float *c, int n, float v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (c[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

float
lowp_quant_row(const float *w, int64_t n, int64_t stride, const float *cands, int n_cands,
               signed char *q, int64_t qstride)
{
    float mx = 0.0f, s;
    int64_t k;
    int i, j;

    for (k = 0; k < n; k++)
        if (fabsf(w[k * stride]) > mx)
            mx = fabsf(w[k * stride]);
    if (mx == 0.0f) {
        for (k = 0; k < n; k++)
            q[k * qstride] = 0;
        return 0.0f;
    }
    /* A model's grid c holds the row's largest |w| as j * c (DequantizeLinear computed it so,
     * in float) for an integer j <= 128 (fits_grid's range): for each j, only the candidates
     * within a few ulps of max|w| / j, found by bisection (a model with a scale per channel
     * has thousands: trying each on each row would cost rows x scales). */
    for (j = 128; n_cands > 0 && j >= 1; j--) {
        const float t = mx / (float)j;
        for (i = lower_bound(cands, n_cands, t * (1.0f - 0x1p-20f));
             i < n_cands && cands[i] <= t * (1.0f + 0x1p-20f); i++)
            if (cands[i] * (float)j == mx && fits_grid(w, n, stride, cands[i], q, qstride))
                return cands[i];
    }
    s = mx / 127.0f;
    if (fits_grid(w, n, stride, s, q, qstride))
        return s;
    for (k = 0; k < n; k++) {
        float r = roundf(w[k * stride] / s);
        q[k * qstride] = (signed char)(r > 127.0f ? 127.0f : r < -127.0f ? -127.0f : r);
    }
    return s;
}
