/*
 * rt_conv.c — the convolution front ends' portable kernels (issue 20): Conv and
 * ConvTranspose (1-D and 2-D, strides, dilations, pads, groups), MaxPool / AveragePool and
 * the global pools, and BatchNormalization's inference form (lstmc_rt_kernels.h).
 *
 * Plain C99, no allocation, no I/O. The compiler has resolved every ONNX attribute into
 * the geometry of lstmc_rt_conv_params / lstmc_rt_pool_params (auto_pad, ceil_mode,
 * output_padding, output_shape), so the kernels only loop. Conv takes one of three paths:
 *   GEMM  (stride_w 1, at least 4 output channels per group, rows of 8+): blocks of 4 output
 *         channels x 8 columns held in registers over j = (c, kh, kw), W[m, j] times the
 *         input row shifted by the tap (an im2col that is never written out);
 *   dot   (dil_w 1, k_w >= 16, e.g. an STFT as a strided Conv1d): 4 output channels at a
 *         time as dot products over contiguous rows of k_w weights and inputs;
 *   tap   (the rest, and the channels a group leaves over): per output channel, input
 *         channel and tap, one axpy over the columns whose input lies inside X (clip_range).
 * The blocked paths run the columns whose every tap is inside X; the few at the edges are
 * computed one by one with bounds checks (conv_point). ConvTranspose gathers: the outputs
 * (qh * stride_h + rh, qw * stride_w + rw) of one phase (rh, rw) read a fixed set of taps at
 * inputs (qh - eh, qw - ew), a small convolution done in the same 4 x 8 register blocks along
 * the rows (convt_gather4); the channels left over scatter by tap (the tap walk with X and Y
 * swapped). Both add each output's terms in the order (c, kh, kw).
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
        p->dil_w < 1 || p->pad_h < 0 || p->pad_w < 0 || p->act < 0 ||
        p->act > (transpose ? 0 : LSTMC_RT_CONV_ACT_HARD_SWISH))
        return 0;
    x = mul_nn(mul_nn(p->n, p->c_in), mul_nn(p->in_h, p->in_w));
    y = mul_nn(mul_nn(p->n, p->c_out), mul_nn(p->out_h, p->out_w));
    w = mul_nn(mul_nn(transpose ? p->c_in : p->c_out,
                      transpose ? p->c_out / p->group : p->c_in / p->group),
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

/* y[i] += a * x[i * stride] for i < n: the inner loop of both convolutions (restrict, so
 * -O2 vectorises the stride-1 case without alias checks). */
static void
axpy(int64_t n, float a, const float *restrict x, int64_t stride, float *restrict y)
{
    int64_t i = 0;
    if (stride == 1) {
        /* eight at a time: straight-line code -O2's SLP vectoriser packs into vectors (its
         * loop vectoriser leaves loops of unknown trip count alone) */
        for (; i + 8 <= n; i += 8) {
            y[i] += a * x[i];
            y[i + 1] += a * x[i + 1];
            y[i + 2] += a * x[i + 2];
            y[i + 3] += a * x[i + 3];
            y[i + 4] += a * x[i + 4];
            y[i + 5] += a * x[i + 5];
            y[i + 6] += a * x[i + 6];
            y[i + 7] += a * x[i + 7];
        }
        for (; i < n; i++)
            y[i] += a * x[i];
    } else
        for (i = 0; i < n; i++)
            y[i] += a * x[i * stride];
}

/* y[i * stride] += a * x[i] for i < n (ConvTranspose's scatter). */
static void
axpy_scatter(int64_t n, float a, const float *restrict x, int64_t stride, float *restrict y)
{
    int64_t i;
    if (stride == 1)
        for (i = 0; i < n; i++)
            y[i] += a * x[i];
    else
        for (i = 0; i < n; i++)
            y[i * stride] += a * x[i];
}

/* Output channel m of image n, whole plane, by tap: y = B[m], then one axpy per input
 * channel, tap and output row over the columns whose input lies inside X. Each output sums
 * its taps in the order (c, kh, kw), as conv_point and conv_block_gemm do, so that an output
 * is the same float whichever path computes it: a stream's one-step program (out_w 1) and
 * the whole sequence (blocks of 8 columns) give bit-identical results. */
static void
conv_bytap(const lstmc_rt_conv_params *p, const float *X, const float *W, const float *B, float *Y,
           int64_t n, int64_t m)
{
    const int64_t plane_in = p->in_h * p->in_w, plane_out = p->out_h * p->out_w;
    const int64_t cig = p->c_in / p->group, g = m / (p->c_out / p->group);
    float *y = Y + (n * p->c_out + m) * plane_out;
    const float b0 = B ? B[m] : 0.0f;
    int64_t c, kh, kw, oh, i;
    for (i = 0; i < plane_out; i++)
        y[i] = b0;
    for (c = 0; c < cig; c++) {
        const float *x = X + (n * p->c_in + g * cig + c) * plane_in;
        for (kh = 0; kh < p->k_h; kh++) {
            int64_t offh = kh * p->dil_h - p->pad_h, h0, h1;
            clip_range(p->out_h, p->stride_h, offh, p->in_h, &h0, &h1);
            for (kw = 0; kw < p->k_w; kw++) {
                int64_t offw = kw * p->dil_w - p->pad_w, w0, w1;
                float wv = W[((m * cig + c) * p->k_h + kh) * p->k_w + kw];
                clip_range(p->out_w, p->stride_w, offw, p->in_w, &w0, &w1);
                for (oh = h0; oh < h1; oh++)
                    axpy(w1 - w0, wv,
                         x + (oh * p->stride_h + offh) * p->in_w + offw + w0 * p->stride_w,
                         p->stride_w, y + oh * p->out_w + w0);
            }
        }
    }
}

/* One output element with every bound checked (the edges of the blocked paths). */
static float
conv_point(const lstmc_rt_conv_params *p, const float *x, const float *w, float b0, int64_t oh,
           int64_t ow)
{
    const int64_t cig = p->c_in / p->group, plane_in = p->in_h * p->in_w;
    int64_t c, kh, kw;
    float acc = b0;
    for (c = 0; c < cig; c++)
        for (kh = 0; kh < p->k_h; kh++) {
            int64_t ih = oh * p->stride_h - p->pad_h + kh * p->dil_h;
            if (ih < 0 || ih >= p->in_h)
                continue;
            for (kw = 0; kw < p->k_w; kw++) {
                int64_t iw = ow * p->stride_w - p->pad_w + kw * p->dil_w;
                if (iw >= 0 && iw < p->in_w)
                    acc += w[(c * p->k_h + kh) * p->k_w + kw] * x[c * plane_in + ih * p->in_w + iw];
            }
        }
    return acc;
}

#define CONV_PM 8 /* output channels per block of conv_point8 */

/* conv_point for CONV_PM output channels at once (w: the first one's weights, the others
 * wrow floats apart): the same taps in the same order for each, as independent chains. */
static void
conv_point8(const lstmc_rt_conv_params *p, const float *x, const float *w, const float *b,
            int64_t oh, int64_t ow, float *y, int64_t ystride)
{
    const int64_t cig = p->c_in / p->group, plane_in = p->in_h * p->in_w;
    const int64_t wrow = cig * p->k_h * p->k_w;
    float acc[CONV_PM];
    int64_t c, kh, kw;
    int i;
    for (i = 0; i < CONV_PM; i++)
        acc[i] = b ? b[i] : 0.0f;
    for (c = 0; c < cig; c++)
        for (kh = 0; kh < p->k_h; kh++) {
            int64_t ih = oh * p->stride_h - p->pad_h + kh * p->dil_h;
            if (ih < 0 || ih >= p->in_h)
                continue;
            for (kw = 0; kw < p->k_w; kw++) {
                int64_t iw = ow * p->stride_w - p->pad_w + kw * p->dil_w, j;
                float xv;
                if (iw < 0 || iw >= p->in_w)
                    continue;
                xv = x[c * plane_in + ih * p->in_w + iw];
                j = (c * p->k_h + kh) * p->k_w + kw;
                for (i = 0; i < CONV_PM; i++)
                    acc[i] += w[i * wrow + j] * xv;
            }
        }
    for (i = 0; i < CONV_PM; i++)
        y[i * ystride] = acc[i];
}

#define CONV_BM 4 /* output channels per register block */
#define CONV_BT 8 /* output columns per register block (GEMM path) */

/* The GEMM path (stride_w 1): Y[m0 .. m0+4, oh, ow .. ow+8) as a 4 x 8 register block over
 * j = (c, kh, kw), reading W[m, j] and the shifted input row X[c, ih, ow + kw*dil - pad ..]
 * directly (an implicit im2col); every tap of these columns is inside X. */
static void
conv_block_gemm(const lstmc_rt_conv_params *p, const float *x, const float *w, const float *b,
                float *y, int64_t kh0, int64_t kh1, int64_t ih0, int64_t ow)
{
    const int64_t cig = p->c_in / p->group, plane_in = p->in_h * p->in_w;
    const int64_t wrow = cig * p->k_h * p->k_w, plane_out = p->out_h * p->out_w;
    float acc[CONV_BM][CONV_BT];
    int64_t c, kh, kw;
    int i, q;
    for (i = 0; i < CONV_BM; i++)
        for (q = 0; q < CONV_BT; q++)
            acc[i][q] = b ? b[i] : 0.0f;
    for (c = 0; c < cig; c++)
        for (kh = kh0; kh < kh1; kh++) {
            const float *xr = x + c * plane_in + (ih0 + kh * p->dil_h) * p->in_w + ow - p->pad_w;
            const float *wr = w + (c * p->k_h + kh) * p->k_w;
            for (kw = 0; kw < p->k_w; kw++) {
                const float *xp = xr + kw * p->dil_w;
                const float w0 = wr[kw], w1 = wr[wrow + kw], w2 = wr[2 * wrow + kw],
                            w3 = wr[3 * wrow + kw];
                for (q = 0; q < CONV_BT; q++) {
                    acc[0][q] += w0 * xp[q];
                    acc[1][q] += w1 * xp[q];
                    acc[2][q] += w2 * xp[q];
                    acc[3][q] += w3 * xp[q];
                }
            }
        }
    for (i = 0; i < CONV_BM; i++)
        for (q = 0; q < CONV_BT; q++)
            y[i * plane_out + q] = acc[i][q];
}

/* The dot path (dil_w 1, long kernels, any stride: an STFT as a Conv1d): Y[m0 .. m0+4, oh, ow]
 * as four dot products over (c, kh) rows of k_w contiguous weights and inputs, eight
 * lanes at a time. */
static void
conv_block_dot(const lstmc_rt_conv_params *p, const float *x, const float *w, const float *b,
               float *y, int64_t kh0, int64_t kh1, int64_t ih0, int64_t ow)
{
    const int64_t cig = p->c_in / p->group, plane_in = p->in_h * p->in_w;
    const int64_t wrow = cig * p->k_h * p->k_w, plane_out = p->out_h * p->out_w;
    float acc[CONV_BM][8], tail[CONV_BM];
    int64_t c, kh, k;
    int i, q;
    for (i = 0; i < CONV_BM; i++) {
        tail[i] = b ? b[i] : 0.0f;
        for (q = 0; q < 8; q++)
            acc[i][q] = 0.0f;
    }
    for (c = 0; c < cig; c++)
        for (kh = kh0; kh < kh1; kh++) {
            const float *xp =
                x + c * plane_in + (ih0 + kh * p->dil_h) * p->in_w + ow * p->stride_w - p->pad_w;
            const float *w0 = w + (c * p->k_h + kh) * p->k_w, *w1 = w0 + wrow, *w2 = w1 + wrow,
                        *w3 = w2 + wrow;
            for (k = 0; k + 8 <= p->k_w; k += 8)
                for (q = 0; q < 8; q++) {
                    acc[0][q] += w0[k + q] * xp[k + q];
                    acc[1][q] += w1[k + q] * xp[k + q];
                    acc[2][q] += w2[k + q] * xp[k + q];
                    acc[3][q] += w3[k + q] * xp[k + q];
                }
            for (; k < p->k_w; k++) {
                tail[0] += w0[k] * xp[k];
                tail[1] += w1[k] * xp[k];
                tail[2] += w2[k] * xp[k];
                tail[3] += w3[k] * xp[k];
            }
        }
    for (i = 0; i < CONV_BM; i++) {
        float s = tail[i];
        for (q = 0; q < 8; q++)
            s += acc[i][q];
        y[i * plane_out] = s;
    }
}

/* One output of the dot path with every bound checked (its edges): the same eight lanes and
 * tail as conv_block_dot, an input outside X read as 0, so that an output at an edge is the
 * float the blocked loop gives when X holds the padding (a stream's history). */
static float
conv_point_dot(const lstmc_rt_conv_params *p, const float *x, const float *w, float b0, int64_t oh,
               int64_t ow)
{
    const int64_t cig = p->c_in / p->group, plane_in = p->in_h * p->in_w;
    const int64_t iw0 = ow * p->stride_w - p->pad_w;
    float acc[8], tail = b0, s;
    int64_t c, kh, k;
    int q;
    for (q = 0; q < 8; q++)
        acc[q] = 0.0f;
    for (c = 0; c < cig; c++)
        for (kh = 0; kh < p->k_h; kh++) {
            int64_t ih = oh * p->stride_h - p->pad_h + kh * p->dil_h;
            const float *xr = x + c * plane_in + ih * p->in_w, *wr = w + (c * p->k_h + kh) * p->k_w;
            if (ih < 0 || ih >= p->in_h)
                continue; /* as conv_block_dot: rows outside X are not visited */
            for (k = 0; k + 8 <= p->k_w; k += 8)
                for (q = 0; q < 8; q++) {
                    int64_t iw = iw0 + k + q;
                    acc[q] += wr[k + q] * (iw >= 0 && iw < p->in_w ? xr[iw] : 0.0f);
                }
            for (; k < p->k_w; k++) {
                int64_t iw = iw0 + k;
                tail += wr[k] * (iw >= 0 && iw < p->in_w ? xr[iw] : 0.0f);
            }
        }
    s = tail;
    for (q = 0; q < 8; q++)
        s += acc[q];
    return s;
}

lstmc_rt_status
lstmc_rt_conv(const lstmc_rt_conv_params *p, const float *X, const float *W, const float *B,
              float *Y)
{
    int64_t n, g, m, oh, ow, cig, cog, plane_in, plane_out, lo, hi, t0, t1, kk;
    int dot, gemm;
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
    /* which blocked path, if any: long contiguous kernels take dot products; stride 1 the
     * 4 x 8 GEMM blocks; the rest (and the channels left over) go by tap */
    dot = p->dil_w == 1 && p->k_w >= 16;
    gemm = !dot && p->stride_w == 1 && p->out_w >= CONV_BT;
    /* the columns whose every tap is inside X */
    clip_range(p->out_w, p->stride_w, -p->pad_w, p->in_w, &lo, &t0);
    clip_range(p->out_w, p->stride_w, (p->k_w - 1) * p->dil_w - p->pad_w, p->in_w, &t1, &hi);
    if (lo > p->out_w)
        lo = p->out_w;
    if (hi < lo)
        hi = lo;
    kk = p->k_h * p->k_w;
    for (n = 0; n < p->n; n++) {
        for (g = 0; g < p->group; g++) {
            const float *x = X + (n * p->c_in + g * cig) * plane_in;
            m = g * cog;
            for (; (dot || gemm) && m + CONV_BM <= (g + 1) * cog; m += CONV_BM) {
                const float *w = W + m * cig * kk, *b = B ? B + m : NULL;
                float *y = Y + (n * p->c_out + m) * plane_out;
                for (oh = 0; oh < p->out_h; oh++) {
                    int64_t ih0 = oh * p->stride_h - p->pad_h, kh0, kh1, i;
                    float *yr = y + oh * p->out_w;
                    /* the taps kh whose input row is inside X */
                    clip_range(p->k_h, p->dil_h, ih0, p->in_h, &kh0, &kh1);
                    ow = lo;
                    if (gemm && hi - lo >= CONV_BT) {
                        for (; ow + CONV_BT <= hi; ow += CONV_BT)
                            conv_block_gemm(p, x, w, b, yr + ow, kh0, kh1, ih0, ow);
                        if (ow < hi) /* the last columns: one block that overlaps the one
                                        before (the same values written twice) */
                            conv_block_gemm(p, x, w, b, yr + hi - CONV_BT, kh0, kh1, ih0,
                                            hi - CONV_BT);
                        ow = hi;
                    } else if (!gemm)
                        for (; ow < hi; ow++)
                            conv_block_dot(p, x, w, b, yr + ow, kh0, kh1, ih0, ow);
                    for (i = 0; i < CONV_BM; i++) { /* the edges, in the path's order */
                        const float *wi = w + i * cig * kk, bi = b ? b[i] : 0.0f;
                        int64_t e;
                        for (e = 0; e < lo; e++)
                            yr[i * plane_out + e] = dot ? conv_point_dot(p, x, wi, bi, oh, e)
                                                        : conv_point(p, x, wi, bi, oh, e);
                        for (e = ow; e < p->out_w; e++)
                            yr[i * plane_out + e] = dot ? conv_point_dot(p, x, wi, bi, oh, e)
                                                        : conv_point(p, x, wi, bi, oh, e);
                    }
                }
            }
            /* a few columns (a stream's one step): output by output in the same order,
               eight channels at a time, without bytap's range arithmetic per tap */
            for (; p->out_w < CONV_BT && m + CONV_PM <= (g + 1) * cog; m += CONV_PM)
                for (oh = 0; oh < p->out_h; oh++)
                    for (ow = 0; ow < p->out_w; ow++)
                        conv_point8(p, x, W + m * cig * kk, B ? B + m : NULL, oh, ow,
                                    Y + (n * p->c_out + m) * plane_out + oh * p->out_w + ow,
                                    plane_out);
            for (; m < (g + 1) * cog; m++) {
                const float *w = W + m * cig * kk, b0 = B ? B[m] : 0.0f;
                float *y = Y + (n * p->c_out + m) * plane_out;
                if (p->out_w >= CONV_BT) {
                    conv_bytap(p, X, W, B, Y, n, m);
                    continue;
                }
                for (oh = 0; oh < p->out_h; oh++)
                    for (ow = 0; ow < p->out_w; ow++)
                        y[oh * p->out_w + ow] = conv_point(p, x, w, b0, oh, ow);
            }
        }
    }
    if (p->act == LSTMC_RT_CONV_ACT_RELU) { /* as lstmc_rt_unary's (NaN gives 0) */
        int64_t i, ny = p->n * p->c_out * plane_out;
        for (i = 0; i < ny; i++)
            Y[i] = Y[i] > 0.0f ? Y[i] : 0.0f;
    } else if (p->act == LSTMC_RT_CONV_ACT_HARD_SWISH) { /* as lstmc_rt_ewise's */
        int64_t i, ny = p->n * p->c_out * plane_out;
        for (i = 0; i < ny; i++) {
            float x = Y[i], t = x * (1.0f / 6.0f) + 0.5f;
            Y[i] = x * (t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t));
        }
    }
    return LSTMC_RT_OK;
}

#define CONVT_MAX_TAPS  64  /* kernel heights and widths the gather path takes */
#define CONVT_MAX_PAIRS 128 /* and the taps (kh, kw) of one phase */

/* One phase (rh, rw) of a ConvTranspose: the taps of each axis that reach its outputs and
 * the input shift of each. Outputs oh = qh * stride_h + rh read the taps kh with
 * kh * dil_h - pad_h - rh = eh * stride_h, at input row qh - eh (and the same along w). */
typedef struct convt_phase {
    int64_t r_h, r_w;
    int64_t sh_h[CONVT_MAX_TAPS], sh_w[CONVT_MAX_TAPS]; /* the shifts eh of the row taps, ew */
    int tap_h[CONVT_MAX_TAPS], tap_w[CONVT_MAX_TAPS];   /* the row taps kh, the column taps kw */
    int n_h, n_w;
} convt_phase;

/* Outputs (qh * stride_h + rh, (q0 + j) * stride_w + rw), j < 8, of 4 output channels, in
 * registers: the row's taps (n of them, in the order (kh, kw)) read X at xoff[t] from input
 * (c, 0, q0) and W at woff[t] from W[c, m, 0, 0]; every tap inside X for every j. */
static void
convt_block(const lstmc_rt_conv_params *p, const float *x, const float *w, int64_t cog,
            const float *b, float *y, const int64_t *xoff, const int *woff, int n, int64_t q0)
{
    const int64_t cig = p->c_in / p->group, kk = p->k_h * p->k_w, plane = p->in_h * p->in_w;
    float acc[CONV_BM][CONV_BT];
    int64_t c;
    int i, q, t;
    for (i = 0; i < CONV_BM; i++)
        for (q = 0; q < CONV_BT; q++)
            acc[i][q] = b ? b[i] : 0.0f;
    for (c = 0; c < cig; c++) {
        const float *xc = x + c * plane + q0, *wc = w + c * cog * kk;
        for (t = 0; t < n; t++) {
            const float *xp = xc + xoff[t];
            const int k = woff[t];
            const float w0 = wc[k], w1 = wc[kk + k], w2 = wc[2 * kk + k], w3 = wc[3 * kk + k];
            for (q = 0; q < CONV_BT; q++) {
                acc[0][q] += w0 * xp[q];
                acc[1][q] += w1 * xp[q];
                acc[2][q] += w2 * xp[q];
                acc[3][q] += w3 * xp[q];
            }
        }
    }
    for (i = 0; i < CONV_BM; i++)
        for (q = 0; q < CONV_BT; q++)
            y[i * p->out_h * p->out_w + (q0 + q) * p->stride_w] = acc[i][q];
}

/* Output column qw * stride_w + rw of row qh * stride_h + rh, 4 output channels (the edge
 * columns of convt_block's rows): the row taps th[] and the column taps that read inside X
 * for this column, in the same order. */
static void
convt_col4(const lstmc_rt_conv_params *p, const float *x, const float *w, int64_t cog,
           const float *b, float *y, const convt_phase *ph, int64_t qh, const int *th, int nh,
           int64_t qw)
{
    const int64_t cig = p->c_in / p->group, kk = p->k_h * p->k_w, plane = p->in_h * p->in_w;
    const int64_t plane_out = p->out_h * p->out_w;
    float acc[CONV_BM];
    int64_t c;
    int i, a, t, tw[CONVT_MAX_TAPS], nw = 0;
    for (t = 0; t < ph->n_w; t++)
        if (qw - ph->sh_w[t] >= 0 && qw - ph->sh_w[t] < p->in_w)
            tw[nw++] = t;
    for (i = 0; i < CONV_BM; i++)
        acc[i] = b ? b[i] : 0.0f;
    for (c = 0; c < cig; c++)
        for (a = 0; a < nh; a++) {
            const float *xr = x + c * plane + (qh - ph->sh_h[th[a]]) * p->in_w + qw;
            const float *wr = w + c * cog * kk + ph->tap_h[th[a]] * p->k_w;
            for (t = 0; t < nw; t++) {
                const float xv = xr[-ph->sh_w[tw[t]]];
                const int64_t kw = ph->tap_w[tw[t]];
                for (i = 0; i < CONV_BM; i++)
                    acc[i] += wr[i * kk + kw] * xv;
            }
        }
    y += (qh * p->stride_h + ph->r_h) * p->out_w + qw * p->stride_w + ph->r_w;
    for (i = 0; i < CONV_BM; i++)
        y[i * plane_out] = acc[i];
}

/* The taps of one axis for phase r: the kernel positions k with k * dil - pad - r a multiple
 * e of the stride, and e; their count. [*lo, *hi): the outputs q < nq for which every such
 * tap reads inside the n_in inputs (0 <= q - e < n_in); empty when there is no tap. */
static int
convt_taps(int64_t k_n, int64_t dil, int64_t pad, int64_t stride, int64_t r, int64_t n_in,
           int64_t nq, int *tap, int64_t *shift, int64_t *lo, int64_t *hi)
{
    int64_t k, e;
    int nt = 0;
    *lo = 0;
    *hi = nq;
    for (k = 0; k < k_n; k++) {
        int64_t num = k * dil - pad - r;
        if (num % stride)
            continue;
        e = num / stride;
        tap[nt] = (int)k;
        shift[nt++] = e;
        if (e > *lo)
            *lo = e;
        if (n_in + e < *hi)
            *hi = n_in + e;
    }
    if (nt == 0 || *lo > nq)
        *lo = *hi = nq;
    if (*hi < *lo)
        *hi = *lo;
    return nt;
}

/* The most taps one phase of an axis has: the largest set of kernel positions whose
 * k * dil are equal modulo the stride (k_n <= CONVT_MAX_TAPS). */
static int64_t
convt_phase_taps(int64_t k_n, int64_t dil, int64_t stride)
{
    int64_t k, j, most = 0;
    for (k = 0; k < k_n; k++) {
        int64_t n = 0;
        for (j = 0; j < k_n; j++)
            n += (j - k) * dil % stride == 0;
        most = n > most ? n : most;
    }
    return most;
}

/* Output channels m0 .. m0+4 of image n of a ConvTranspose, phase by phase: for each phase
 * (rh, rw) and output row qh of it, the row taps inside X; the columns whose every column
 * tap is inside X in 4 x 8 register blocks (a small convolution per phase), the others one
 * by one (convt_col4). Every output adds its terms in the scatter's order (c, kh, kw), so
 * the result is the scatter's bit for bit. 1-D is the case k_h = in_h = out_h = 1. */
static void
convt_gather4(const lstmc_rt_conv_params *p, const float *x, const float *w, int64_t cog,
              const float *b, float *y)
{
    convt_phase ph;
    int64_t rh, rw, qh, q, j, hlo, hhi, qlo, qhi; /* hlo, hhi: unused (rows go tap by tap) */
    int64_t xoff[CONVT_MAX_PAIRS];
    int woff[CONVT_MAX_PAIRS], th[CONVT_MAX_TAPS], nh, a, t, n;
    for (rh = 0; rh < p->stride_h && rh < p->out_h; rh++) {
        int64_t nqh = (p->out_h - rh + p->stride_h - 1) / p->stride_h;
        ph.r_h = rh;
        ph.n_h = convt_taps(p->k_h, p->dil_h, p->pad_h, p->stride_h, rh, p->in_h, nqh, ph.tap_h,
                            ph.sh_h, &hlo, &hhi);
        for (rw = 0; rw < p->stride_w && rw < p->out_w; rw++) {
            int64_t nq = (p->out_w - rw + p->stride_w - 1) / p->stride_w;
            ph.r_w = rw;
            ph.n_w = convt_taps(p->k_w, p->dil_w, p->pad_w, p->stride_w, rw, p->in_w, nq, ph.tap_w,
                                ph.sh_w, &qlo, &qhi);
            for (qh = 0; qh < nqh; qh++) {
                int64_t b0 = nq, b1 = nq;            /* the blocked columns [b0, b1) */
                for (nh = 0, a = 0; a < ph.n_h; a++) /* the row taps inside X for this row */
                    if (qh - ph.sh_h[a] >= 0 && qh - ph.sh_h[a] < p->in_h)
                        th[nh++] = a;
                if (qhi - qlo >= CONV_BT) {
                    float *yr = y + (qh * p->stride_h + rh) * p->out_w + rw;
                    for (n = 0, a = 0; a < nh; a++)
                        for (t = 0; t < ph.n_w; t++, n++) {
                            xoff[n] = -ph.sh_h[th[a]] * p->in_w + qh * p->in_w - ph.sh_w[t];
                            woff[n] = ph.tap_h[th[a]] * (int)p->k_w + ph.tap_w[t];
                        }
                    for (q = qlo; q + CONV_BT <= qhi; q += CONV_BT)
                        convt_block(p, x, w, cog, b, yr, xoff, woff, n, q);
                    if (q < qhi) /* the last columns: a block overlapping the one before */
                        convt_block(p, x, w, cog, b, yr, xoff, woff, n, qhi - CONV_BT);
                    b0 = qlo;
                    b1 = qhi;
                }
                for (j = 0; j < b0; j++)
                    convt_col4(p, x, w, cog, b, y, &ph, qh, th, nh, j);
                for (j = b1; j < nq; j++)
                    convt_col4(p, x, w, cog, b, y, &ph, qh, th, nh, j);
            }
        }
    }
}

lstmc_rt_status
lstmc_rt_conv_transpose(const lstmc_rt_conv_params *p, const float *X, const float *W,
                        const float *B, float *Y)
{
    int64_t n, g, m, m1, c, kh, kw, ih, cig, cog, plane_in, plane_out, i;
    int gather;
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
    /* 4+ output channels per group: gathered in register blocks, phase by phase; the
     * channels left over (and kernels past CONVT_MAX_TAPS along an axis, or with more than
     * CONVT_MAX_PAIRS taps in a phase) scattered by tap */
    gather = p->k_h <= CONVT_MAX_TAPS && p->k_w <= CONVT_MAX_TAPS &&
             convt_phase_taps(p->k_h, p->dil_h, p->stride_h) *
                     convt_phase_taps(p->k_w, p->dil_w, p->stride_w) <=
                 CONVT_MAX_PAIRS;
    for (n = 0; n < p->n; n++) {
        for (g = 0; g < p->group; g++) {
            const float *xg = X + (n * p->c_in + g * cig) * plane_in;
            m1 = g * cog; /* channels [m1, (g+1)*cog) are scattered */
            for (; gather && m1 + CONV_BM <= (g + 1) * cog; m1 += CONV_BM)
                convt_gather4(p, xg, W + (g * cig * cog + (m1 - g * cog)) * p->k_h * p->k_w, cog,
                              B ? B + m1 : NULL, Y + (n * p->c_out + m1) * plane_out);
            for (m = m1; m < (g + 1) * cog; m++) {
                float *y = Y + (n * p->c_out + m) * plane_out;
                float b0 = B ? B[m] : 0.0f;
                for (i = 0; i < plane_out; i++)
                    y[i] = b0;
            }
            for (c = g * cig; m1 < (g + 1) * cog && c < (g + 1) * cig; c++) {
                const float *x = X + (n * p->c_in + c) * plane_in;
                for (m = m1 - g * cog; m < cog; m++) {
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
                            for (ih = h0; ih < h1; ih++)
                                axpy_scatter(w1 - w0, wv, x + ih * p->in_w + w0, p->stride_w,
                                             y + (ih * p->stride_h + offh) * p->out_w + offw +
                                                 w0 * p->stride_w);
                        }
                    }
                }
            }
        }
    }
    return LSTMC_RT_OK;
}

/* Output (oh, ow) of one map with every window position checked (the edges). Max ignores
 * the padding; average divides by the positions inside X, or the whole window with
 * count_include_pad. */
static float
pool_point(const lstmc_rt_pool_params *p, const float *x, int64_t oh, int64_t ow)
{
    const int64_t h0 = oh * p->stride_h - p->pad_h, w0 = ow * p->stride_w - p->pad_w;
    float acc = p->kind == LSTMC_RT_POOL_MAX ? -INFINITY : 0.0f;
    int64_t kh, kw, cnt = 0;
    for (kh = 0; kh < p->k_h; kh++) {
        int64_t h = h0 + kh * p->dil_h;
        if (h < 0 || h >= p->in_h)
            continue;
        for (kw = 0; kw < p->k_w; kw++) {
            int64_t w = w0 + kw * p->dil_w;
            float v;
            if (w < 0 || w >= p->in_w)
                continue;
            cnt++;
            v = x[h * p->in_w + w];
            if (p->kind == LSTMC_RT_POOL_MAX)
                acc = acc > v ? acc : v;
            else
                acc += v;
        }
    }
    if (p->kind == LSTMC_RT_POOL_AVG) {
        int64_t div = p->count_include_pad ? p->k_h * p->k_w : cnt;
        acc = div > 0 ? acc / (float)div : 0.0f;
    }
    return acc;
}

lstmc_rt_status
lstmc_rt_pool(const lstmc_rt_pool_params *p, const float *X, float *Y)
{
    lstmc_rt_pool_params pp;
    int64_t i, oh, ow, kh, kw, plane_in, plane_out;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    if ((p->kind != LSTMC_RT_POOL_MAX && p->kind != LSTMC_RT_POOL_AVG) || p->nc < 0 ||
        p->in_h < 0 || p->in_w < 0 || p->out_h < 0 || p->out_w < 0 || p->k_h < 1 || p->k_w < 1 ||
        p->stride_h < 1 || p->stride_w < 1 || p->dil_h < 1 || p->dil_w < 1 || p->pad_h < 0 ||
        p->pad_w < 0 || mul_nn(p->nc, mul_nn(p->in_h, p->in_w)) < 0 ||
        mul_nn(p->nc, mul_nn(p->out_h, p->out_w)) < 0 || mul_nn(p->k_h, p->dil_h) < 0 ||
        mul_nn(p->k_w, p->dil_w) < 0 || mul_nn(p->out_h, p->stride_h) < 0 ||
        mul_nn(p->out_w, p->stride_w) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    plane_out = p->out_h * p->out_w;
    if (p->nc == 0 || plane_out == 0)
        return LSTMC_RT_OK;
    if (!X || !Y)
        return LSTMC_RT_ERR_NULL;
    pp = *p; /* a local copy: the stores to Y cannot change it, so it stays in registers */
    p = &pp;
    plane_in = p->in_h * p->in_w;
    for (i = 0; i < p->nc; i++) {
        const float *x = X + i * plane_in;
        float *y = Y + i * plane_out;
        for (oh = 0; oh < p->out_h; oh++) {
            int64_t h0 = oh * p->stride_h - p->pad_h, kh0, kh1, lo, hi, t;
            float *yr = y + oh * p->out_w;
            /* the window rows inside X, and the columns [lo, hi) whose window is inside X:
             * those a row at a time, no checks, no branch on the data */
            clip_range(p->k_h, p->dil_h, h0, p->in_h, &kh0, &kh1);
            clip_range(p->out_w, p->stride_w, -p->pad_w, p->in_w, &lo, &t);
            clip_range(p->out_w, p->stride_w, (p->k_w - 1) * p->dil_w - p->pad_w, p->in_w, &t, &hi);
            if (lo > p->out_w)
                lo = p->out_w;
            if (hi < lo || kh1 <= kh0)
                hi = lo;
            for (kh = kh0; kh < kh1; kh++) {
                const float *xr = x + (h0 + kh * p->dil_h) * p->in_w - p->pad_w;
                for (ow = lo; ow < hi; ow++) {
                    const float *xp = xr + ow * p->stride_w;
                    float a = kh == kh0 ? (p->kind == LSTMC_RT_POOL_MAX ? xp[0] : 0.0f) : yr[ow];
                    if (p->kind == LSTMC_RT_POOL_MAX)
                        for (kw = 0; kw < p->k_w; kw++) {
                            float v = xp[kw * p->dil_w];
                            a = a > v ? a : v;
                        }
                    else
                        for (kw = 0; kw < p->k_w; kw++)
                            a += xp[kw * p->dil_w];
                    yr[ow] = a;
                }
            }
            if (p->kind == LSTMC_RT_POOL_AVG) {
                float div = (float)(p->count_include_pad ? p->k_h * p->k_w : (kh1 - kh0) * p->k_w);
                for (ow = lo; ow < hi; ow++)
                    yr[ow] /= div;
            }
            for (ow = 0; ow < lo; ow++) /* the edges, every position checked */
                yr[ow] = pool_point(p, x, oh, ow);
            for (ow = hi; ow < p->out_w; ow++)
                yr[ow] = pool_point(p, x, oh, ow);
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
