/*
 * rt_eltwise2.c — the element-wise ops of issue 20 that lstmc_rt_binary / lstmc_rt_unary do
 * not cover (comparisons, And/Or/Not, Where, Pow, Reciprocal, Log, Abs, Clip, LeakyRelu,
 * HardSigmoid, HardSwish, Erf, PRelu, Min, Max, Floor, Ceil, Sign, Round, Softplus, Elu,
 * Selu, Sin, Cos, integer Neg), and the generators Range and CumSum.
 *
 * One kernel, lstmc_rt_ewise, takes up to three broadcast operands by strides (Where's
 * condition, x and y; Clip's input, min and max) and the dtype of each, so a shape
 * subgraph (int64 comparisons, Where on int64 shapes) folds through the same code that a
 * float mask runs at run time. Floats are computed in float with the libm functions ONNX
 * Runtime's CPU kernels use (logf, erff, powf), integers in int64.
 */
#include "lstmc_rt_kernels.h"

#include <math.h>
#include <string.h>

/* 1 when rank and dims are valid; *total = their product (no overflow). */
static int
ew_total(int32_t rank, const int64_t *dims, int64_t *total)
{
    int64_t t = 1;
    int32_t i;

    if (rank < 0 || rank > LSTMC_RT_MAX_RANK)
        return 0;
    for (i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return 0;
        if (dims[i] != 0 && t > INT64_MAX / dims[i])
            return 0;
        t *= dims[i];
    }
    *total = t;
    return 1;
}

static int
ew_int_dtype(int32_t dt)
{
    return dt == LSTMC_RT_I64 || dt == LSTMC_RT_I32;
}

static int64_t
ew_get_i(const void *p, int32_t dt, int64_t i)
{
    switch (dt) {
    case LSTMC_RT_I64:
        return ((const int64_t *)p)[i];
    case LSTMC_RT_I32:
        return ((const int32_t *)p)[i];
    case LSTMC_RT_U8:
        return ((const unsigned char *)p)[i];
    default:
        return (int64_t)((const float *)p)[i];
    }
}

static float
ew_get_f(const void *p, int32_t dt, int64_t i)
{
    if (dt == LSTMC_RT_F32)
        return ((const float *)p)[i];
    return (float)ew_get_i(p, dt, i);
}

static void
ew_put_i(void *p, int32_t dt, int64_t i, int64_t v)
{
    if (dt == LSTMC_RT_I64)
        ((int64_t *)p)[i] = v;
    else if (dt == LSTMC_RT_I32)
        ((int32_t *)p)[i] = (int32_t)(uint32_t)(uint64_t)v; /* wraps, like ORT's int32 */
    else
        ((unsigned char *)p)[i] = (unsigned char)(v != 0);
}

/* Both operands as a pair of doubles would lose int64 precision: compare in the dtype. */
#define EW_CMP(op, x, y)                                                                           \
    ((op) == LSTMC_RT_EW_EQUAL        ? (x) == (y)                                                 \
     : (op) == LSTMC_RT_EW_LESS       ? (x) < (y)                                                  \
     : (op) == LSTMC_RT_EW_GREATER    ? (x) > (y)                                                  \
     : (op) == LSTMC_RT_EW_LESS_EQUAL ? (x) <= (y)                                                 \
                                      : (x) >= (y))

static int
ew_compare(int32_t op, int32_t dt, const void *a, int64_t ia, const void *b, int64_t ib)
{
    if (dt == LSTMC_RT_F32) {
        float x = ((const float *)a)[ia], y = ((const float *)b)[ib];
        return EW_CMP(op, x, y);
    } else {
        int64_t x = ew_get_i(a, dt, ia), y = ew_get_i(b, dt, ib);
        return EW_CMP(op, x, y);
    }
}

/* The float result of a one-operand op (and Clip, Pow with their bounds/exponent). */
static float
ew_float(const lstmc_rt_ewise_params *p, float x, const void *b, int64_t ib, const void *c,
         int64_t ic)
{
    float t;
    switch (p->op) {
    case LSTMC_RT_EW_POW:
        return powf(x, ew_get_f(b, p->b_dtype, ib));
    case LSTMC_RT_EW_RECIPROCAL:
        return 1.0f / x;
    case LSTMC_RT_EW_LOG:
        return logf(x);
    case LSTMC_RT_EW_ABS:
        return fabsf(x);
    case LSTMC_RT_EW_CLIP:
        if (b && x < ((const float *)b)[ib])
            x = ((const float *)b)[ib];
        if (c && x > ((const float *)c)[ic])
            x = ((const float *)c)[ic];
        return x;
    case LSTMC_RT_EW_LEAKY_RELU:
        return x < 0.0f ? p->alpha * x : x;
    case LSTMC_RT_EW_HARD_SIGMOID:
        t = p->alpha * x + p->beta;
        return t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    case LSTMC_RT_EW_HARD_SWISH:
        t = x * (1.0f / 6.0f) + 0.5f;
        return x * (t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t));
    case LSTMC_RT_EW_PRELU:
        return x < 0.0f ? ((const float *)b)[ib] * x : x;
    case LSTMC_RT_EW_MIN:
        t = ((const float *)b)[ib];
        return x != x || t != t ? x + t : (t < x ? t : x);
    case LSTMC_RT_EW_MAX:
        t = ((const float *)b)[ib];
        return x != x || t != t ? x + t : (t > x ? t : x);
    case LSTMC_RT_EW_FLOOR:
        return floorf(x);
    case LSTMC_RT_EW_CEIL:
        return ceilf(x);
    case LSTMC_RT_EW_SIGN:
        return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x == 0.0f ? 0.0f : x; /* NaN stays */
    case LSTMC_RT_EW_ROUND:
        return rintf(x);       /* the default rounding mode: to nearest, halves to even */
    case LSTMC_RT_EW_SOFTPLUS: /* log1p(exp(-|x|)) + max(x, 0): no overflow for large x */
        return log1pf(expf(-fabsf(x))) + (x > 0.0f ? x : 0.0f);
    case LSTMC_RT_EW_ELU:
        return x < 0.0f ? p->alpha * (expf(x) - 1.0f) : x;
    case LSTMC_RT_EW_SELU:
        return p->beta * (x > 0.0f ? x : p->alpha * (expf(x) - 1.0f));
    case LSTMC_RT_EW_SIN:
        return sinf(x);
    case LSTMC_RT_EW_COS:
        return cosf(x);
    case LSTMC_RT_EW_NEG:
        return -x;
    default: /* ERF */
        return erff(x);
    }
}

/* The integer result of Abs, Clip, Pow, PRelu, Min, Max, Sign or Neg on integers (in int64,
 * wrapping; the caller stores it in the dtype). */
static int64_t
ew_int(const lstmc_rt_ewise_params *p, int64_t x, const void *b, int64_t ib, const void *c,
       int64_t ic)
{
    int64_t y;
    switch (p->op) {
    case LSTMC_RT_EW_PRELU:
        return x < 0 ? (int64_t)((uint64_t)x * (uint64_t)ew_get_i(b, p->dtype, ib)) : x;
    case LSTMC_RT_EW_MIN:
        y = ew_get_i(b, p->dtype, ib);
        return y < x ? y : x;
    case LSTMC_RT_EW_MAX:
        y = ew_get_i(b, p->dtype, ib);
        return y > x ? y : x;
    case LSTMC_RT_EW_SIGN:
        return x > 0 ? 1 : x < 0 ? -1 : 0;
    case LSTMC_RT_EW_NEG:
        return (int64_t)(0u - (uint64_t)x);
    case LSTMC_RT_EW_ABS:
        return x < 0 ? (int64_t)(0u - (uint64_t)x) : x;
    case LSTMC_RT_EW_CLIP:
        if (b && x < ew_get_i(b, p->dtype, ib))
            x = ew_get_i(b, p->dtype, ib);
        if (c && x > ew_get_i(c, p->dtype, ic))
            x = ew_get_i(c, p->dtype, ic);
        return x;
    default: { /* POW: in double, truncated toward zero */
        double r = pow((double)x, p->b_dtype == LSTMC_RT_F32 ? (double)((const float *)b)[ib]
                                                             : (double)ew_get_i(b, p->b_dtype, ib));
        return r >= 9.2e18 ? INT64_MAX : r <= -9.2e18 ? INT64_MIN : (int64_t)r;
    }
    }
}

/* 1 when a is read in output order (its strides are out_dims' row-major strides, or the
 * dim is 1) and b and c are each read at one element (every stride 0). */
static int
ew_in_order(const lstmc_rt_ewise_params *p)
{
    int64_t acc = 1;
    int32_t d;
    for (d = p->rank - 1; d >= 0; d--) {
        if (p->out_dims[d] != 1 && p->a_stride[d] != acc)
            return 0;
        if (p->b_stride[d] != 0 || p->c_stride[d] != 0)
            return 0;
        acc *= p->out_dims[d];
    }
    return 1;
}

lstmc_rt_status
lstmc_rt_ewise(const lstmc_rt_ewise_params *p, const void *a, const void *b, const void *c,
               void *out)
{
    int64_t j[LSTMC_RT_MAX_RANK], total, o, ia = 0, ib = 0, ic = 0;
    int32_t d, dt, es;
    int need_b, need_c;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (p->op < LSTMC_RT_EW_EQUAL || p->op > LSTMC_RT_EW_NEG ||
        !ew_total(p->rank, p->out_dims, &total))
        return LSTMC_RT_ERR_BAD_PARAMS;
    dt = p->dtype;
    es = (int32_t)lstmc_rt_dtype_size(dt);
    if (es == 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->op == LSTMC_RT_EW_POW && !lstmc_rt_dtype_size(p->b_dtype))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (total == 0)
        return LSTMC_RT_OK;
    need_b = p->op <= LSTMC_RT_EW_OR || p->op == LSTMC_RT_EW_WHERE || p->op == LSTMC_RT_EW_POW ||
             p->op == LSTMC_RT_EW_PRELU || p->op == LSTMC_RT_EW_MIN || p->op == LSTMC_RT_EW_MAX;
    need_c = p->op == LSTMC_RT_EW_WHERE;
    if (!a || !out || (need_b && !b) || (need_c && !c))
        return LSTMC_RT_ERR_NULL;
    for (d = 0; d < p->rank; d++)
        j[d] = 0;

    /* the common case of an activation: a float input read in order, scalar bounds (Clip)
     * or none, so no index vector to step */
    if (dt == LSTMC_RT_F32 && p->op >= LSTMC_RT_EW_RECIPROCAL && ew_in_order(p)) {
        const float *x = (const float *)a;
        float *y = (float *)out;
        for (o = 0; o < total; o++)
            y[o] = ew_float(p, x[o], b, 0, c, 0);
        return LSTMC_RT_OK;
    }

    for (o = 0; o < total; o++) {
        switch (p->op) {
        case LSTMC_RT_EW_EQUAL:
        case LSTMC_RT_EW_LESS:
        case LSTMC_RT_EW_GREATER:
        case LSTMC_RT_EW_LESS_EQUAL:
        case LSTMC_RT_EW_GREATER_EQUAL:
            ((unsigned char *)out)[o] = (unsigned char)ew_compare(p->op, dt, a, ia, b, ib);
            break;
        case LSTMC_RT_EW_AND:
            ((unsigned char *)out)[o] =
                (unsigned char)(((const unsigned char *)a)[ia] && ((const unsigned char *)b)[ib]);
            break;
        case LSTMC_RT_EW_OR:
            ((unsigned char *)out)[o] =
                (unsigned char)(((const unsigned char *)a)[ia] || ((const unsigned char *)b)[ib]);
            break;
        case LSTMC_RT_EW_NOT:
            ((unsigned char *)out)[o] = (unsigned char)!((const unsigned char *)a)[ia];
            break;
        case LSTMC_RT_EW_WHERE:
            if (((const unsigned char *)a)[ia])
                memcpy((unsigned char *)out + o * es, (const unsigned char *)b + ib * es,
                       (size_t)es);
            else
                memcpy((unsigned char *)out + o * es, (const unsigned char *)c + ic * es,
                       (size_t)es);
            break;
        default:
            if (ew_int_dtype(dt))
                ew_put_i(out, dt, o, ew_int(p, ew_get_i(a, dt, ia), b, ib, c, ic));
            else
                ((float *)out)[o] = ew_float(p, ((const float *)a)[ia], b, ib, c, ic);
            break;
        }
        /* the next index vector: the offsets follow the strides */
        for (d = p->rank - 1; d >= 0; d--) {
            j[d]++;
            ia += p->a_stride[d];
            ib += p->b_stride[d];
            ic += p->c_stride[d];
            if (j[d] < p->out_dims[d])
                break;
            ia -= p->a_stride[d] * p->out_dims[d];
            ib -= p->b_stride[d] * p->out_dims[d];
            ic -= p->c_stride[d] * p->out_dims[d];
            j[d] = 0;
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_range(const lstmc_rt_range_params *p, const void *start, const void *delta, void *out)
{
    int64_t i;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (p->n < 0 || (p->dtype != LSTMC_RT_F32 && !ew_int_dtype(p->dtype)))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->n == 0)
        return LSTMC_RT_OK;
    if (!start || !delta || !out)
        return LSTMC_RT_ERR_NULL;
    if (p->dtype == LSTMC_RT_F32) {
        float v = *(const float *)start, s = *(const float *)delta;
        for (i = 0; i < p->n; i++) {
            ((float *)out)[i] = v;
            v += s;
        }
    } else {
        uint64_t v = (uint64_t)ew_get_i(start, p->dtype, 0);
        uint64_t s = (uint64_t)ew_get_i(delta, p->dtype, 0);
        for (i = 0; i < p->n; i++) {
            ew_put_i(out, p->dtype, i, (int64_t)v);
            v += s;
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_cumsum(const lstmc_rt_cumsum_params *p, const void *in, void *out)
{
    int64_t o, k, i, L, S;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    L = p->len;
    S = p->inner;
    if (p->outer < 0 || L < 0 || S < 0 || (p->dtype != LSTMC_RT_F32 && !ew_int_dtype(p->dtype)))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (L != 0 && S > INT64_MAX / L)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->outer == 0 || L == 0 || S == 0)
        return LSTMC_RT_OK;
    if (p->outer > INT64_MAX / (L * S))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (!in || !out)
        return LSTMC_RT_ERR_NULL;
    for (o = 0; o < p->outer; o++) {
        for (i = 0; i < S; i++) {
            float fs = 0.0f;
            uint64_t is = 0;
            for (k = 0; k < L; k++) {
                int64_t kk = p->reverse ? L - 1 - k : k;
                int64_t at = (o * L + kk) * S + i;
                if (p->dtype == LSTMC_RT_F32) {
                    float x = ((const float *)in)[at];
                    if (!p->exclusive)
                        fs += x;
                    ((float *)out)[at] = fs;
                    if (p->exclusive)
                        fs += x;
                } else {
                    uint64_t x = (uint64_t)ew_get_i(in, p->dtype, at);
                    if (!p->exclusive)
                        is += x;
                    ew_put_i(out, p->dtype, at, (int64_t)is);
                    if (p->exclusive)
                        is += x;
                }
            }
        }
    }
    return LSTMC_RT_OK;
}
