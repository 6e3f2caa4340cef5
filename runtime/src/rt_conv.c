/*
 * rt_conv.c — the convolution front ends' portable kernels (issue 20): Conv and
 * ConvTranspose (1-D and 2-D, strides, dilations, pads, groups), MaxPool / AveragePool and
 * the global pools, and BatchNormalization's inference form (lstmc_rt_kernels.h).
 *
 * Plain C99, no allocation, no I/O. The compiler has resolved every ONNX attribute into
 * the geometry of lstmc_rt_conv_params / lstmc_rt_pool_params (auto_pad, ceil_mode,
 * output_padding, output_shape), so the kernels only loop. Conv runs "by tap": for each
 * output channel m, input channel c and tap (kh, kw), one multiply-add of a weight over the
 * range of output columns whose input column falls inside X (clip_range), so the inner
 * loop is a branch-free axpy that compilers vectorise; ConvTranspose is the same walk with
 * the roles of X and Y swapped (a scatter by tap).
 */
#include "lstmc_rt_kernels.h"

#include <math.h>

/* a * b, or -1 when either is negative or the product overflows */
static int64_t
mul_nn(int64_t a, int64_t b)
{
    if (a < 0 || b < 0)
        return -1;
    if (a != 0 && b > INT64_MAX / a)
        return -1;
    return a * b;
}

/* The geometry is one a model can have: positive sizes, strides, dilations, groups that
 * divide the channels, element counts that fit. */
static int
conv_ok(const lstmc_rt_conv_params *p, int transpose)
{
    int64_t x, y, w;
    if (p->n < 0 || p->c_in < 1 || p->c_out < 1 || p->group < 1 || p->c_in % p->group ||
        p->c_out % p->group || p->in_h < 0 || p->in_w < 0 || p->out_h < 0 || p->out_w < 0 ||
        p->k_h < 1 || p->k_w < 1 || p->stride_h < 1 || p->stride_w < 1 || p->dil_h < 1 ||
        p->dil_w < 1 || p->pad_h < 0 || p->pad_w < 0)
        return 0;
    x = mul_nn(mul_nn(p->n, p->c_in), mul_nn(p->in_h, p->in_w));
    y = mul_nn(mul_nn(p->n, p->c_out), mul_nn(p->out_h, p->out_w));
    w = mul_nn(mul_nn(transpose ? p->c_in : p->c_out, transpose ? p->c_out / p->group
                                                                : p->c_in / p->group),
               mul_nn(p->k_h, p->k_w));
    return x >= 0 && y >= 0 && w >= 0 && mul_nn(p->k_h, p->dil_h) >= 0 &&
           mul_nn(p->k_w, p->dil_w) >= 0 && mul_nn(p->out_h, p->stride_h) >= 0 &&
           mul_nn(p->out_w, p->stride_w) >= 0 && mul_nn(p->in_h, p->stride_h) >= 0 &&
           mul_nn(p->in_w, p->stride_w) >= 0;
}

/* The outputs o in [0, n_out) whose input o*stride + off lies in [0, n_in): [*lo, *hi). */
static void
clip_range(int64_t n_out, int64_t stride, int64_t off, int64_t n_in, int64_t *lo, int64_t *hi)
{
    int64_t a = 0, b = n_out;
    if (off < 0)
        a = (-off + stride - 1) / stride;
    if (n_in - off <= 0)
        b = 0;
    else if ((n_in - off + stride - 1) / stride < b)
        b = (n_in - off + stride - 1) / stride;
    *lo = a;
    *hi = b > a ? b : a;
}

lstmc_rt_status
lstmc_rt_conv(const lstmc_rt_conv_params *p, const float *X, const float *W, const float *B,
              float *Y)
{
    int64_t n, g, m, c, kh, kw, oh, ow, cig, cog, plane_in, plane_out;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (!conv_ok(p, 0))
        return LSTMC_RT_ERR_BAD_PARAMS;
    plane_out = p->out_h * p->out_w;
    if (p->n == 0 || plane_out == 0)
        return LSTMC_RT_OK;
    if (!X || !W || !Y)
        return LSTMC_RT_ERR_NULL;
    plane_in = p->in_h * p->in_w;
    cig = p->c_in / p->group;
    cog = p->c_out / p->group;
    for (n = 0; n < p->n; n++) {
        for (g = 0; g < p->group; g++) {
            for (m = g * cog; m < (g + 1) * cog; m++) {
                float *y = Y + (n * p->c_out + m) * plane_out;
                float b0 = B ? B[m] : 0.0f;
                for (oh = 0; oh < plane_out; oh++)
                    y[oh] = b0;
                for (c = 0; c < cig; c++) {
                    const float *x = X + (n * p->c_in + g * cig + c) * plane_in;
                    const float *w = W + (m * cig + c) * p->k_h * p->k_w;
                    for (kh = 0; kh < p->k_h; kh++) {
                        int64_t offh = kh * p->dil_h - p->pad_h, h0, h1, w0, w1;
                        clip_range(p->out_h, p->stride_h, offh, p->in_h, &h0, &h1);
                        for (kw = 0; kw < p->k_w; kw++) {
                            int64_t offw = kw * p->dil_w - p->pad_w;
                            float wv = w[kh * p->k_w + kw];
                            clip_range(p->out_w, p->stride_w, offw, p->in_w, &w0, &w1);
                            for (oh = h0; oh < h1; oh++) {
                                const float *xr = x + (oh * p->stride_h + offh) * p->in_w + offw;
                                float *yr = y + oh * p->out_w;
                                if (p->stride_w == 1)
                                    for (ow = w0; ow < w1; ow++)
                                        yr[ow] += wv * xr[ow];
                                else
                                    for (ow = w0; ow < w1; ow++)
                                        yr[ow] += wv * xr[ow * p->stride_w];
                            }
                        }
                    }
                }
            }
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_conv_transpose(const lstmc_rt_conv_params *p, const float *X, const float *W,
                        const float *B, float *Y)
{
    int64_t n, g, m, c, kh, kw, ih, iw, cig, cog, plane_in, plane_out, i;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (!conv_ok(p, 1))
        return LSTMC_RT_ERR_BAD_PARAMS;
    plane_out = p->out_h * p->out_w;
    if (p->n == 0 || plane_out == 0)
        return LSTMC_RT_OK;
    if (!X || !W || !Y)
        return LSTMC_RT_ERR_NULL;
    plane_in = p->in_h * p->in_w;
    cig = p->c_in / p->group;
    cog = p->c_out / p->group;
    for (n = 0; n < p->n; n++) {
        for (m = 0; m < p->c_out; m++) {
            float *y = Y + (n * p->c_out + m) * plane_out;
            float b0 = B ? B[m] : 0.0f;
            for (i = 0; i < plane_out; i++)
                y[i] = b0;
        }
        for (g = 0; g < p->group; g++) {
            for (c = g * cig; c < (g + 1) * cig; c++) {
                const float *x = X + (n * p->c_in + c) * plane_in;
                for (m = 0; m < cog; m++) {
                    float *y = Y + (n * p->c_out + g * cog + m) * plane_out;
                    const float *w = W + (c * cog + m) * p->k_h * p->k_w;
                    for (kh = 0; kh < p->k_h; kh++) {
                        /* the inputs ih with 0 <= ih*stride + offh < out_h */
                        int64_t offh = kh * p->dil_h - p->pad_h, h0, h1, w0, w1;
                        clip_range(p->in_h, p->stride_h, offh, p->out_h, &h0, &h1);
                        for (kw = 0; kw < p->k_w; kw++) {
                            int64_t offw = kw * p->dil_w - p->pad_w;
                            float wv = w[kh * p->k_w + kw];
                            clip_range(p->in_w, p->stride_w, offw, p->out_w, &w0, &w1);
                            for (ih = h0; ih < h1; ih++) {
                                const float *xr = x + ih * p->in_w;
                                float *yr = y + (ih * p->stride_h + offh) * p->out_w + offw;
                                for (iw = w0; iw < w1; iw++)
                                    yr[iw * p->stride_w] += wv * xr[iw];
                            }
                        }
                    }
                }
            }
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_pool(const lstmc_rt_pool_params *p, const float *X, float *Y)
{
    int64_t i, oh, ow, kh, kw, plane_in, plane_out;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    if ((p->kind != LSTMC_RT_POOL_MAX && p->kind != LSTMC_RT_POOL_AVG) || p->nc < 0 ||
        p->in_h < 0 || p->in_w < 0 || p->out_h < 0 || p->out_w < 0 || p->k_h < 1 ||
        p->k_w < 1 || p->stride_h < 1 || p->stride_w < 1 || p->dil_h < 1 || p->dil_w < 1 ||
        p->pad_h < 0 || p->pad_w < 0 ||
        mul_nn(p->nc, mul_nn(p->in_h, p->in_w)) < 0 ||
        mul_nn(p->nc, mul_nn(p->out_h, p->out_w)) < 0 || mul_nn(p->k_h, p->dil_h) < 0 ||
        mul_nn(p->k_w, p->dil_w) < 0 || mul_nn(p->out_h, p->stride_h) < 0 ||
        mul_nn(p->out_w, p->stride_w) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    plane_out = p->out_h * p->out_w;
    if (p->nc == 0 || plane_out == 0)
        return LSTMC_RT_OK;
    if (!X || !Y)
        return LSTMC_RT_ERR_NULL;
    plane_in = p->in_h * p->in_w;
    for (i = 0; i < p->nc; i++) {
        const float *x = X + i * plane_in;
        float *y = Y + i * plane_out;
        for (oh = 0; oh < p->out_h; oh++) {
            int64_t h0 = oh * p->stride_h - p->pad_h;
            for (ow = 0; ow < p->out_w; ow++) {
                int64_t w0 = ow * p->stride_w - p->pad_w, cnt = 0;
                float acc = p->kind == LSTMC_RT_POOL_MAX ? -INFINITY : 0.0f;
                for (kh = 0; kh < p->k_h; kh++) {
                    int64_t h = h0 + kh * p->dil_h;
                    int in_h = h >= 0 && h < p->in_h;
                    for (kw = 0; kw < p->k_w; kw++) {
                        int64_t w = w0 + kw * p->dil_w;
                        if (!in_h || w < 0 || w >= p->in_w)
                            continue;
                        cnt++;
                        if (p->kind == LSTMC_RT_POOL_MAX) {
                            if (x[h * p->in_w + w] > acc || isnan(x[h * p->in_w + w]))
                                acc = x[h * p->in_w + w];
                        } else {
                            acc += x[h * p->in_w + w];
                        }
                    }
                }
                if (p->kind == LSTMC_RT_POOL_AVG) {
                    int64_t div = p->count_include_pad ? p->k_h * p->k_w : cnt;
                    acc = div > 0 ? acc / (float)div : 0.0f;
                }
                y[oh * p->out_w + ow] = acc;
            }
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_batchnorm(const lstmc_rt_batchnorm_params *p, const float *X, const float *scale,
                   const float *B, const float *mean, const float *var, float *Y)
{
    int64_t o, c, i;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (p->outer < 0 || p->channels < 0 || p->inner < 0 ||
        mul_nn(p->outer, mul_nn(p->channels, p->inner)) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->outer == 0 || p->channels == 0 || p->inner == 0)
        return LSTMC_RT_OK;
    if (!X || !scale || !B || !mean || !var || !Y)
        return LSTMC_RT_ERR_NULL;
    for (o = 0; o < p->outer; o++) {
        for (c = 0; c < p->channels; c++) {
            const float *x = X + (o * p->channels + c) * p->inner;
            float *y = Y + (o * p->channels + c) * p->inner;
            float s = scale[c] / sqrtf(var[c] + p->epsilon);
            float t = B[c] - mean[c] * s;
            for (i = 0; i < p->inner; i++)
                y[i] = x[i] * s + t;
        }
    }
    return LSTMC_RT_OK;
}
