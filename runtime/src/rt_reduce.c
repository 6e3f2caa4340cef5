/*
 * rt_reduce.c — the portable kernels of issue 20's reductions, normalisation and data
 * movement: ReduceMean/Sum/Max/Min/L2/SumSquare/L1/Prod/LogSum/LogSumExp over any axes,
 * LayerNormalization (opset 17, and the decomposed pattern of opsets <= 16 that passes/layernorm.c
 * folds into it), Pad (constant, reflect, edge), TopK and ScatterElements (what PyTorch emits for
 * pack_padded_sequence(enforce_sorted=False)).
 *
 * Every kernel walks its N-d index with an odometer (one counter per axis, offsets updated
 * incrementally), so a kernel costs O(elements) whatever the rank; the compiler merges
 * neighbouring axes that behave alike first (compiler/kprog/lower.c).
 */
#include "lstmc_rt_kernels.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* a * b for non-negative counts, or -1 when it overflows. */
static int64_t
mul_nn(int64_t a, int64_t b)
{
    if (a < 0 || b < 0)
        return -1;
    if (a != 0 && b > INT64_MAX / a)
        return -1;
    return a * b;
}

/* Element count of dims[0..rank), or -1 (a negative dim, an overflow). */
static int64_t
numel_of(const int64_t *dims, int32_t rank)
{
    int64_t n = 1;
    int32_t i;
    for (i = 0; i < rank; i++)
        n = mul_nn(n, dims[i]);
    return n;
}

/* --- reductions --------------------------------------------------------------------- */

/* Start value of an accumulator: 0, 1 (Prod), -inf (LogSumExp), or the lowest / highest
 * value of the dtype (Max / Min). */
static void
reduce_init(int32_t op, int32_t dtype, void *out, int64_t n)
{
    int64_t i;
    if (dtype == LSTMC_RT_F32) {
        float v = op == LSTMC_RT_REDUCE_MAX || op == LSTMC_RT_REDUCE_LOG_SUM_EXP ? -INFINITY
                  : op == LSTMC_RT_REDUCE_MIN                                    ? INFINITY
                  : op == LSTMC_RT_REDUCE_PROD                                   ? 1.0f
                                                                                 : 0.0f;
        for (i = 0; i < n; i++)
            ((float *)out)[i] = v;
    } else if (dtype == LSTMC_RT_I64) {
        int64_t v = op == LSTMC_RT_REDUCE_MAX    ? INT64_MIN
                    : op == LSTMC_RT_REDUCE_MIN  ? INT64_MAX
                    : op == LSTMC_RT_REDUCE_PROD ? 1
                                                 : 0;
        for (i = 0; i < n; i++)
            ((int64_t *)out)[i] = v;
    } else {
        int32_t v = op == LSTMC_RT_REDUCE_MAX    ? INT32_MIN
                    : op == LSTMC_RT_REDUCE_MIN  ? INT32_MAX
                    : op == LSTMC_RT_REDUCE_PROD ? 1
                                                 : 0;
        for (i = 0; i < n; i++)
            ((int32_t *)out)[i] = v;
    }
}

/* x folded into the accumulator a of op (float). NaN wins in Max / Min, as in ONNX Runtime;
 * LogSumExp keeps log(sum exp) itself, as logaddexp(a, x), stable for any magnitude. */
static float
reduce_step_f32(int32_t op, float a, float x)
{
    float hi, lo;
    switch (op) {
    case LSTMC_RT_REDUCE_MAX:
        return x > a || x != x ? x : a;
    case LSTMC_RT_REDUCE_MIN:
        return x < a || x != x ? x : a;
    case LSTMC_RT_REDUCE_L2:
    case LSTMC_RT_REDUCE_SUM_SQUARE:
        return a + x * x;
    case LSTMC_RT_REDUCE_L1:
        return a + fabsf(x);
    case LSTMC_RT_REDUCE_PROD:
        return a * x;
    case LSTMC_RT_REDUCE_LOG_SUM_EXP:
        hi = x > a ? x : a;
        lo = x > a ? a : x;
        if (hi != hi || lo != lo)
            return a + x;
        if (lo == -INFINITY)
            return hi;
        if (lo == hi) /* also +inf twice, where lo - hi is NaN */
            return hi + 0.69314718f;
        return hi + log1pf(expf(lo - hi));
    default: /* SUM, MEAN, LOG_SUM */
        return a + x;
    }
}

/* One row of n floats into the accumulators: fold (the row is a reduced axis) into y[0],
 * or element by element into y[0..n). */
static void
reduce_row_f32(int32_t op, const float *x, int64_t n, float *y, int fold)
{
    int64_t j;
    if (fold) {
        float a = *y;
        if (op == LSTMC_RT_REDUCE_SUM || op == LSTMC_RT_REDUCE_MEAN)
            for (j = 0; j < n; j++)
                a += x[j];
        else
            for (j = 0; j < n; j++)
                a = reduce_step_f32(op, a, x[j]);
        *y = a;
    } else if (op == LSTMC_RT_REDUCE_SUM || op == LSTMC_RT_REDUCE_MEAN) {
        for (j = 0; j < n; j++)
            y[j] += x[j];
    } else {
        for (j = 0; j < n; j++)
            y[j] = reduce_step_f32(op, y[j], x[j]);
    }
}

/* The same for integers of type T (sums wrap, through the unsigned type U). */
#define REDUCE_ROW_INT(name, T, U)                                                                 \
    static void name(int32_t op, const T *x, int64_t n, T *y, int fold)                            \
    {                                                                                              \
        int64_t j;                                                                                 \
        for (j = 0; j < n; j++) {                                                                  \
            T *a = fold ? y : y + j;                                                               \
            *a = op == LSTMC_RT_REDUCE_MAX          ? (x[j] > *a ? x[j] : *a)                      \
                 : op == LSTMC_RT_REDUCE_MIN        ? (x[j] < *a ? x[j] : *a)                      \
                 : op == LSTMC_RT_REDUCE_SUM_SQUARE ? (T)((U)*a + (U)x[j] * (U)x[j])               \
                 : op == LSTMC_RT_REDUCE_L1   ? (T)((U)*a + (x[j] < 0 ? 0u - (U)x[j] : (U)x[j]))   \
                 : op == LSTMC_RT_REDUCE_PROD ? (T)((U)*a * (U)x[j])                               \
                                              : (T)((U)*a + (U)x[j]);                              \
        }                                                                                          \
    }
REDUCE_ROW_INT(reduce_row_i64, int64_t, uint64_t)
REDUCE_ROW_INT(reduce_row_i32, int32_t, uint32_t)

lstmc_rt_status
lstmc_rt_reduce(const lstmc_rt_reduce_params *p, const void *in, void *out)
{
    int64_t n_in, n_out = 1, cnt = 1, ost[LSTMC_RT_MAX_RANK], idx[LSTMC_RT_MAX_RANK];
    int64_t k, o = 0, acc = 1, L, rows, row;
    int32_t i, r;
    int fold;
    size_t es;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    r = p->rank;
    if (r < 0 || r > LSTMC_RT_MAX_RANK || p->op < LSTMC_RT_REDUCE_MEAN ||
        p->op > LSTMC_RT_REDUCE_LOG_SUM_EXP)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->dtype != LSTMC_RT_F32 &&
        ((p->dtype != LSTMC_RT_I64 && p->dtype != LSTMC_RT_I32) || p->op == LSTMC_RT_REDUCE_MEAN ||
         p->op == LSTMC_RT_REDUCE_L2 || p->op >= LSTMC_RT_REDUCE_LOG_SUM))
        return LSTMC_RT_ERR_BAD_PARAMS;
    n_in = numel_of(p->dims, r);
    if (n_in < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    for (i = r - 1; i >= 0; i--) { /* out strides: 0 on a reduced axis */
        ost[i] = p->reduce[i] ? 0 : acc;
        if (p->reduce[i])
            cnt *= p->dims[i];
        else
            acc *= p->dims[i];
        idx[i] = 0;
    }
    n_out = acc;
    if (n_out > 0 && !out)
        return LSTMC_RT_ERR_NULL;
    if (n_in > 0 && !in)
        return LSTMC_RT_ERR_NULL;
    reduce_init(p->op, p->dtype, out, n_out);
    /* rows along the last axis: folded into one accumulator when that axis is reduced, else
     * added element by element into a row of them; an odometer over the other axes moves
     * the output offset */
    L = r > 0 ? p->dims[r - 1] : 1;
    fold = r > 0 && p->reduce[r - 1];
    rows = L > 0 ? n_in / L : 0;
    es = lstmc_rt_dtype_size(p->dtype);
    for (row = 0; row < rows; row++) {
        const unsigned char *x = (const unsigned char *)in + (size_t)(row * L) * es;
        unsigned char *y = (unsigned char *)out + (size_t)o * es;
        if (p->dtype == LSTMC_RT_F32)
            reduce_row_f32(p->op, (const float *)(const void *)x, L, (float *)(void *)y, fold);
        else if (p->dtype == LSTMC_RT_I64)
            reduce_row_i64(p->op, (const int64_t *)(const void *)x, L, (int64_t *)(void *)y, fold);
        else
            reduce_row_i32(p->op, (const int32_t *)(const void *)x, L, (int32_t *)(void *)y, fold);
        for (i = r - 2; i >= 0; i--) {
            o += ost[i];
            if (++idx[i] < p->dims[i])
                break;
            o -= ost[i] * p->dims[i];
            idx[i] = 0;
        }
    }
    if (p->dtype == LSTMC_RT_F32 && (p->op == LSTMC_RT_REDUCE_MEAN || p->op == LSTMC_RT_REDUCE_L2 ||
                                     p->op == LSTMC_RT_REDUCE_LOG_SUM))
        for (k = 0; k < n_out; k++) {
            float *y = (float *)out + k;
            *y = p->op == LSTMC_RT_REDUCE_MEAN ? *y / (float)cnt
                 : p->op == LSTMC_RT_REDUCE_L2 ? sqrtf(*y)
                                               : logf(*y);
        }
    return LSTMC_RT_OK;
}

/* --- LayerNormalization ------------------------------------------------------------- */

/* The mean of x[0..n) and 1 / sqrt(var + epsilon), two passes in float: the one computation
 * of lstmc_rt_layernorm and lstmc_rt_layernorm_stats. */
static void
layernorm_row(const float *x, int64_t n, float epsilon, float *mean_out, float *inv_out)
{
    float mean = 0.0f, var = 0.0f;
    int64_t j;
    for (j = 0; j < n; j++)
        mean += x[j];
    mean /= (float)n;
    for (j = 0; j < n; j++) {
        float dx = x[j] - mean;
        var += dx * dx;
    }
    var /= (float)n;
    *mean_out = mean;
    *inv_out = 1.0f / sqrtf(var + epsilon);
}

lstmc_rt_status
lstmc_rt_layernorm_stats(const lstmc_rt_layernorm_params *p, const float *X, float *mean,
                         float *inv_std_dev)
{
    int64_t o;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (p->outer < 0 || p->n <= 0 || mul_nn(p->outer, p->n) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->outer == 0)
        return LSTMC_RT_OK;
    if (!X)
        return LSTMC_RT_ERR_NULL;
    for (o = 0; o < p->outer; o++) {
        float m, inv;
        layernorm_row(X + o * p->n, p->n, p->epsilon, &m, &inv);
        if (mean)
            mean[o] = m;
        if (inv_std_dev)
            inv_std_dev[o] = inv;
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_layernorm(const lstmc_rt_layernorm_params *p, const float *X, const float *scale,
                   const float *B, float *Y)
{
    int64_t o, j, n;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    n = p->n;
    if (p->outer < 0 || n <= 0 || mul_nn(p->outer, n) < 0 || p->scale_stride < 0 ||
        p->scale_stride > 1 || p->bias_stride < 0 || p->bias_stride > 1)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->outer == 0)
        return LSTMC_RT_OK;
    if (!X || !scale || !Y)
        return LSTMC_RT_ERR_NULL;
    for (o = 0; o < p->outer; o++) {
        const float *x = X + o * n;
        float *y = Y + o * n;
        float mean, inv;
        layernorm_row(x, n, p->epsilon, &mean, &inv);
        for (j = 0; j < n; j++) {
            float v = (x[j] - mean) * inv * scale[j * p->scale_stride];
            y[j] = B ? v + B[j * p->bias_stride] : v;
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_instancenorm(const lstmc_rt_instancenorm_params *p, const float *X, const float *scale,
                      const float *B, float *Y)
{
    int64_t r, j, rows, n;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    n = p->inner;
    rows = mul_nn(p->outer, p->channels);
    if (rows < 0 || n <= 0 || p->channels <= 0 || mul_nn(rows, n) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (rows == 0)
        return LSTMC_RT_OK;
    if (!X || !scale || !B || !Y)
        return LSTMC_RT_ERR_NULL;
    for (r = 0; r < rows; r++) {
        const float *x = X + r * n;
        float *y = Y + r * n, mean, inv, g = scale[r % p->channels], b = B[r % p->channels];
        layernorm_row(x, n, p->epsilon, &mean, &inv);
        for (j = 0; j < n; j++)
            y[j] = (x[j] - mean) * inv * g + b;
    }
    return LSTMC_RT_OK;
}

/* --- Pad ---------------------------------------------------------------------------- */

/* The input coordinate that output coordinate c (already shifted by -begin) reads on an
 * axis of d elements, or -1 for the constant. */
static int64_t
pad_src(int32_t mode, int64_t c, int64_t d)
{
    if (c >= 0 && c < d)
        return c;
    if (mode == LSTMC_RT_PAD_CONSTANT)
        return -1;
    if (mode == LSTMC_RT_PAD_EDGE)
        return c < 0 ? 0 : d - 1;
    if (d == 1)
        return 0;
    { /* reflect: period 2(d-1), mirrored in its second half */
        int64_t per = 2 * (d - 1), m = c % per;
        if (m < 0)
            m += per;
        return m < d ? m : per - m;
    }
}

lstmc_rt_status
lstmc_rt_pad(const lstmc_rt_pad_params *p, const void *in, void *out)
{
    int64_t od[LSTMC_RT_MAX_RANK], ist[LSTMC_RT_MAX_RANK], idx[LSTMC_RT_MAX_RANK];
    int64_t n_out, n_in, rows, row, acc = 1, L, b, ol, j;
    int32_t i, r;
    size_t es;
    unsigned char *o;
    const unsigned char *src;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    r = p->rank;
    if (r < 0 || r > LSTMC_RT_MAX_RANK || p->mode < LSTMC_RT_PAD_CONSTANT ||
        p->mode > LSTMC_RT_PAD_EDGE ||
        (p->elem_size != 1 && p->elem_size != 2 && p->elem_size != 4 && p->elem_size != 8))
        return LSTMC_RT_ERR_BAD_PARAMS;
    es = (size_t)p->elem_size;
    for (i = r - 1; i >= 0; i--) {
        od[i] = p->in_dims[i] + p->begin[i] + p->end[i];
        if (p->in_dims[i] < 0 || od[i] < 0)
            return LSTMC_RT_ERR_BAD_PARAMS;
        if (p->mode != LSTMC_RT_PAD_CONSTANT && p->in_dims[i] == 0 && od[i] > 0)
            return LSTMC_RT_ERR_BAD_PARAMS;
        ist[i] = acc;
        acc = mul_nn(acc, p->in_dims[i]);
        idx[i] = 0;
    }
    n_out = numel_of(od, r);
    n_in = acc;
    if (n_out < 0 || n_in < 0 || mul_nn(n_out, (int64_t)es) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (n_out == 0)
        return LSTMC_RT_OK;
    if (!out || (n_in > 0 && !in))
        return LSTMC_RT_ERR_NULL;
    if (r == 0) {
        memcpy(out, in, es);
        return LSTMC_RT_OK;
    }
    /* row by row along the last axis: the row's source (or the constant), then its
     * columns, the inside as one memcpy */
    L = p->in_dims[r - 1];
    b = p->begin[r - 1];
    ol = od[r - 1];
    rows = n_out / ol;
    o = (unsigned char *)out;
    for (row = 0; row < rows; row++, o += (size_t)ol * es) {
        int64_t off = 0, sv = 0;
        for (i = 0; i < r - 1; i++) {
            int64_t s = pad_src(p->mode, idx[i] - p->begin[i], p->in_dims[i]);
            if (s < 0)
                break;
            off += s * ist[i];
        }
        src = (const unsigned char *)in + (size_t)off * es;
        for (j = 0; j < ol;) {
            int64_t c = j - b;
            if (i < r - 1) { /* a constant row */
                memcpy(o + (size_t)j * es, p->value, es);
                j++;
            } else if (c >= 0 && c < L) {
                int64_t cnt = ol - j < L - c ? ol - j : L - c;
                memcpy(o + (size_t)j * es, src + (size_t)c * es, (size_t)cnt * es);
                j += cnt;
            } else {
                sv = pad_src(p->mode, c, L);
                memcpy(o + (size_t)j * es, sv < 0 ? p->value : src + (size_t)sv * es, es);
                j++;
            }
        }
        for (i = r - 2; i >= 0; i--) {
            if (++idx[i] < od[i])
                break;
            idx[i] = 0;
        }
    }
    return LSTMC_RT_OK;
}

/* --- TopK --------------------------------------------------------------------------- */

/* 1 when element a of in ranks strictly before element b (larger, or smaller). */
static int
topk_better(int32_t dtype, const void *in, int64_t a, int64_t b, int32_t largest)
{
    if (dtype == LSTMC_RT_F32) {
        float x = ((const float *)in)[a], y = ((const float *)in)[b];
        return largest ? x > y : x < y;
    }
    if (dtype == LSTMC_RT_I64) {
        int64_t x = ((const int64_t *)in)[a], y = ((const int64_t *)in)[b];
        return largest ? x > y : x < y;
    }
    {
        int32_t x = ((const int32_t *)in)[a], y = ((const int32_t *)in)[b];
        return largest ? x > y : x < y;
    }
}

lstmc_rt_status
lstmc_rt_topk(const lstmc_rt_topk_params *p, const void *in, void *values, int64_t *indices)
{
    int64_t o, c, L, S, K, j, m, es;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    L = p->axis_len;
    S = p->inner;
    K = p->k;
    es = (int64_t)lstmc_rt_dtype_size(p->dtype);
    if (p->dtype != LSTMC_RT_F32 && p->dtype != LSTMC_RT_I64 && p->dtype != LSTMC_RT_I32)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->outer < 0 || L < 0 || S < 0 || K < 0 || K > L || mul_nn(p->outer, mul_nn(L, S)) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->outer == 0 || S == 0 || K == 0)
        return LSTMC_RT_OK;
    if (!in || !values || !indices)
        return LSTMC_RT_ERR_NULL;
    for (o = 0; o < p->outer; o++)
        for (c = 0; c < S; c++) {
            int64_t base = o * L * S + c, *ix = indices + o * K * S + c;
            m = 0; /* entries kept so far in ix[0, S, 2S, ...], best first */
            for (j = 0; j < L; j++) {
                int64_t at = m < K ? m : K, e = base + j * S;
                /* insertion point: after every kept entry that is at least as good (ties
                 * keep the lower index first, and j only grows) */
                while (at > 0 &&
                       topk_better(p->dtype, in, e, base + ix[(at - 1) * S] * S, p->largest))
                    at--;
                if (at >= K)
                    continue;
                {
                    int64_t q = m < K ? m : K - 1;
                    for (; q > at; q--)
                        ix[q * S] = ix[(q - 1) * S];
                }
                ix[at * S] = j;
                if (m < K)
                    m++;
            }
            for (j = 0; j < K; j++)
                memcpy((unsigned char *)values + (size_t)((o * K + j) * S + c) * (size_t)es,
                       (const unsigned char *)in + (size_t)(base + ix[j * S] * S) * (size_t)es,
                       (size_t)es);
        }
    return LSTMC_RT_OK;
}

/* --- ScatterElements ---------------------------------------------------------------- */

static int64_t
index_at(int32_t dt, const void *ix, int64_t k)
{
    return dt == LSTMC_RT_I64 ? ((const int64_t *)ix)[k] : ((const int32_t *)ix)[k];
}

lstmc_rt_status
lstmc_rt_scatter_elements(const lstmc_rt_scatter_params *p, const void *data, const void *indices,
                          const void *updates, void *out)
{
    int64_t dst[LSTMC_RT_MAX_RANK], idx[LSTMC_RT_MAX_RANK], n_data, n_idx, k, acc = 1, L;
    int32_t i, r;
    size_t es;
    if (!p)
        return LSTMC_RT_ERR_NULL;
    r = p->rank;
    if (r < 1 || r > LSTMC_RT_MAX_RANK || p->axis < 0 || p->axis >= r ||
        p->reduction < LSTMC_RT_SCATTER_NONE || p->reduction > LSTMC_RT_SCATTER_MIN ||
        (p->index_dtype != LSTMC_RT_I64 && p->index_dtype != LSTMC_RT_I32) ||
        (p->dtype != LSTMC_RT_F32 && p->dtype != LSTMC_RT_I64 && p->dtype != LSTMC_RT_I32))
        return LSTMC_RT_ERR_BAD_PARAMS;
    es = lstmc_rt_dtype_size(p->dtype);
    for (i = r - 1; i >= 0; i--) {
        if (p->idx_dims[i] < 0 || p->data_dims[i] < 0 ||
            (i != p->axis && p->idx_dims[i] > p->data_dims[i]))
            return LSTMC_RT_ERR_BAD_PARAMS;
        dst[i] = acc;
        acc = mul_nn(acc, p->data_dims[i]);
        idx[i] = 0;
    }
    n_data = acc;
    n_idx = numel_of(p->idx_dims, r);
    if (n_data < 0 || n_idx < 0 || mul_nn(n_data, (int64_t)es) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    L = p->data_dims[p->axis];
    if (n_idx > 0 && (!indices || !updates))
        return LSTMC_RT_ERR_NULL;
    for (k = 0; k < n_idx; k++) { /* every index first: a bad one writes nothing */
        int64_t v = index_at(p->index_dtype, indices, k);
        if (v < -L || v >= L)
            return LSTMC_RT_ERR_INDEX;
    }
    if (n_data == 0)
        return LSTMC_RT_OK;
    if (!data || !out)
        return LSTMC_RT_ERR_NULL;
    if (out != data)
        memcpy(out, data, (size_t)n_data * es);
    for (k = 0; k < n_idx; k++) {
        int64_t off = 0, v = index_at(p->index_dtype, indices, k);
        if (v < 0)
            v += L;
        for (i = 0; i < r; i++)
            off += (i == p->axis ? v : idx[i]) * dst[i];
        if (p->dtype == LSTMC_RT_F32) {
            float u = ((const float *)updates)[k], *y = (float *)out + off;
            switch (p->reduction) {
            case LSTMC_RT_SCATTER_ADD:
                *y += u;
                break;
            case LSTMC_RT_SCATTER_MUL:
                *y *= u;
                break;
            case LSTMC_RT_SCATTER_MAX:
                *y = u > *y ? u : *y;
                break;
            case LSTMC_RT_SCATTER_MIN:
                *y = u < *y ? u : *y;
                break;
            default:
                *y = u;
                break;
            }
        } else if (p->dtype == LSTMC_RT_I64) {
            int64_t u = ((const int64_t *)updates)[k], *y = (int64_t *)out + off;
            switch (p->reduction) {
            case LSTMC_RT_SCATTER_ADD:
                *y = (int64_t)((uint64_t)*y + (uint64_t)u);
                break;
            case LSTMC_RT_SCATTER_MUL:
                *y = (int64_t)((uint64_t)*y * (uint64_t)u);
                break;
            case LSTMC_RT_SCATTER_MAX:
                *y = u > *y ? u : *y;
                break;
            case LSTMC_RT_SCATTER_MIN:
                *y = u < *y ? u : *y;
                break;
            default:
                *y = u;
                break;
            }
        } else {
            int32_t u = ((const int32_t *)updates)[k], *y = (int32_t *)out + off;
            switch (p->reduction) {
            case LSTMC_RT_SCATTER_ADD:
                *y = (int32_t)((uint32_t)*y + (uint32_t)u);
                break;
            case LSTMC_RT_SCATTER_MUL:
                *y = (int32_t)((uint32_t)*y * (uint32_t)u);
                break;
            case LSTMC_RT_SCATTER_MAX:
                *y = u > *y ? u : *y;
                break;
            case LSTMC_RT_SCATTER_MIN:
                *y = u < *y ? u : *y;
                break;
            default:
                *y = u;
                break;
            }
        }
        for (i = r - 1; i >= 0; i--) {
            if (++idx[i] < p->idx_dims[i])
                break;
            idx[i] = 0;
        }
    }
    return LSTMC_RT_OK;
}
