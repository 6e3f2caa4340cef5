/*
 * lowp_view.h — one direction of a weight tensor in the reduced-precision layout
 * (lstmc_rt_kernels.h "reduced-precision weights": D x [K, GH], int8 with D x GH row scales in
 * front), read element by element by the reference kernels that take any format (the DRS
 * kernels, rt_drs.c and rt_tissue.c; issue 24).
 */
#ifndef LSTMC_RT_LOWP_VIEW_H
#define LSTMC_RT_LOWP_VIEW_H

#include "lstmc_rt_kernels.h"

typedef struct lowp_view {
    const void *w;      /* this direction's [K, GH] elements */
    const float *scale; /* int8: this direction's GH row scales; else NULL */
    int32_t fmt;        /* lstmc_rt_wfmt */
} lowp_view;

/* Direction d of the tensor base holding D x [K, GH] weights in fmt. */
static inline lowp_view
lowp_view_of(int32_t fmt, const void *base, int64_t D, int64_t K, int64_t GH, int64_t d)
{
    lowp_view v;

    v.fmt = fmt;
    v.scale = NULL;
    if (fmt == LSTMC_RT_WFMT_INT8) {
        v.scale = (const float *)base + d * GH;
        v.w = (const signed char *)((const float *)base + D * GH) + d * K * GH;
    } else if (fmt == LSTMC_RT_WFMT_FP16 || fmt == LSTMC_RT_WFMT_BF16) {
        v.w = (const uint16_t *)base + d * K * GH;
    } else {
        v.w = (const float *)base + d * K * GH;
    }
    return v;
}

/* Element e of the view as a float: the weight itself, or int8's q (scale applied by the
 * caller after the sum, as the exact int8 recurrence, rt_lowp.c) */
static inline float
lowp_view_at(const lowp_view *v, int64_t e)
{
    if (v->fmt == LSTMC_RT_WFMT_FP16)
        return lstmc_rt_f16_to_f32(((const uint16_t *)v->w)[e]);
    if (v->fmt == LSTMC_RT_WFMT_BF16)
        return lstmc_rt_bf16_to_f32(((const uint16_t *)v->w)[e]);
    if (v->fmt == LSTMC_RT_WFMT_INT8)
        return (float)((const signed char *)v->w)[e];
    return ((const float *)v->w)[e];
}

/* The gate pre-activation from its start x and the dot product acc of row r (summed from x,
 * or from 0 for int8): x + s[r] acc for int8, acc otherwise. */
static inline float
lowp_view_finish(const lowp_view *v, int64_t r, float x, float acc)
{
    return v->scale ? x + v->scale[r] * acc : acc;
}

/* Where a row's dot product starts: x, or 0 for int8 (lowp_view_finish adds x). */
static inline float
lowp_view_start(const lowp_view *v, float x)
{
    return v->scale ? 0.0f : x;
}

/* DRS line 7 for unit j (rt_drs.c, shared with rt_tissue.c): *gi, *gf, *gc (each the gate's
 * P value on entry) += h . its rows of U_f,i,c in uf, summed in k order (int8: from 0, then
 * P + s * sum, as the exact int8 recurrence). */
void lstmc_rt_drs_unit_rows(int64_t H, const lowp_view *uf, int64_t j, const float *h, float *gi,
                            float *gf, float *gc);

#endif /* LSTMC_RT_LOWP_VIEW_H */
