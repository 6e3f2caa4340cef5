/*
 * rt_kernels.c — portable reference kernels of the lstmc runtime (lstmc_rt_kernels.h).
 *
 * Plain C99, no allocation, no mutable globals, no I/O. These are the kernels the generated
 * host code calls and the compiler links for constant folding, so they favour obviously
 * correct loops over speed: float accumulation in the natural order (k ascending), GEMM in
 * i-k-j order over row-major data. Tiled/LLVM kernels live elsewhere and are tested
 * against these.
 *
 * Every kernel validates its params struct (LSTMC_RT_ERR_BAD_PARAMS) and its pointers
 * (LSTMC_RT_ERR_NULL; a data pointer may be NULL only when there is nothing to read or
 * write). Index vectors over up to LSTMC_RT_MAX_RANK dims are walked with an odometer.
 */
#include "lstmc_rt_kernels.h"

#include <math.h>
#include <string.h>

/* --- status, dtypes, arena ----------------------------------------------------------- */

const char *
lstmc_rt_status_str(lstmc_rt_status s)
{
    switch (s) {
    case LSTMC_RT_OK:
        return "ok";
    case LSTMC_RT_ERR_NULL:
        return "a required pointer is NULL";
    case LSTMC_RT_ERR_ARENA_TOO_SMALL:
        return "arena too small";
    case LSTMC_RT_ERR_MISALIGNED:
        return "arena misaligned";
    case LSTMC_RT_ERR_BAD_PARAMS:
        return "inconsistent kernel parameters";
    case LSTMC_RT_ERR_INDEX:
        return "index out of range";
    case LSTMC_RT_ERR_SEQ_LEN:
        return "sequence length out of range";
    case LSTMC_RT_ERR_IO:
        return "I/O error";
    case LSTMC_RT_ERR_NO_DEVICE:
        return "no OpenCL device";
    case LSTMC_RT_ERR_DEVICE_BUILD:
        return "the OpenCL kernels did not build";
    case LSTMC_RT_ERR_DEVICE_MEMORY:
        return "out of device memory";
    case LSTMC_RT_ERR_DEVICE:
        return "OpenCL device error";
    case LSTMC_RT_ERR_UNSUPPORTED:
        return "not supported by this model (see its header)";
    case LSTMC_RT_ERR_NO_WEIGHTS:
        return "no weights bound (call the weight init function first)";
    case LSTMC_RT_ERR_BLOB_FORMAT:
        return "weight blob: wrong format or made for another model";
    case LSTMC_RT_ERR_BLOB_SIZE:
        return "weight blob: wrong size";
    case LSTMC_RT_ERR_BLOB_CHECKSUM:
        return "weight blob: checksum mismatch (corrupted)";
    }
    return "unknown status";
}

size_t
lstmc_rt_dtype_size(int32_t dtype)
{
    switch (dtype) {
    case LSTMC_RT_F32:
        return 4;
    case LSTMC_RT_I64:
        return 8;
    case LSTMC_RT_I32:
        return 4;
    case LSTMC_RT_U8:
    case LSTMC_RT_I8:
        return 1;
    case LSTMC_RT_I16:
        return 2;
    default:
        return 0;
    }
}

lstmc_rt_status
lstmc_rt_arena_check(const void *arena, size_t size, size_t need)
{
    if (!arena)
        return LSTMC_RT_ERR_NULL;
    if ((uintptr_t)arena % (uintptr_t)LSTMC_RT_ALIGN != 0)
        return LSTMC_RT_ERR_MISALIGNED;
    if (size < need)
        return LSTMC_RT_ERR_ARENA_TOO_SMALL;
    return LSTMC_RT_OK;
}

/* --- helpers ------------------------------------------------------------------------ */

/*
 * Product of dims[0..rank) into *total. Returns 0 when rank is out of [0, max_rank], a dim
 * is negative or the product overflows int64_t.
 */
static int
dims_total_of(int32_t rank, int32_t max_rank, const int64_t *dims, int64_t *total)
{
    int64_t t = 1;
    int32_t i;

    if (rank < 0 || rank > max_rank)
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

/* dims_total_of for a tensor's dims (rank at most LSTMC_RT_MAX_RANK). */
static int
dims_total(int32_t rank, const int64_t *dims, int64_t *total)
{
    return dims_total_of(rank, LSTMC_RT_MAX_RANK, dims, total);
}

/* a * b for non-negative a, b; -1 on overflow. */
static int64_t
mul_nn(int64_t a, int64_t b)
{
    if (a < 0 || b < 0)
        return -1;
    if (a != 0 && b > INT64_MAX / a)
        return -1;
    return a * b;
}

/*
 * Advance the index vector j over dims[0..n) by one step of dim n-1, with carry, keeping
 * two element offsets in step (strides sa, sb; either may be NULL). The caller loops the
 * innermost dim itself and calls this for the outer dims, so n = rank - 1.
 */
static void
odometer_next(int32_t n, const int64_t *dims, int64_t *j, const int64_t *sa, int64_t *oa,
              const int64_t *sb, int64_t *ob)
{
    int32_t d;

    for (d = n - 1; d >= 0; d--) {
        j[d]++;
        if (sa)
            *oa += sa[d];
        if (sb)
            *ob += sb[d];
        if (j[d] < dims[d])
            return;
        if (sa)
            *oa -= sa[d] * dims[d];
        if (sb)
            *ob -= sb[d] * dims[d];
        j[d] = 0;
    }
}

/* --- dense linear algebra ------------------------------------------------------------ */

#define MM_NR 16 /* columns of Y per block: fixed trip counts, which -O2 vectorises */

/* y[r][c0 .. c0+MM_NR) = a[r] x b[:, c0 .. c0+MM_NR) for rows r0 (and r1, r2, r3 when
 * nr > 1..3; else they repeat r0 and are not stored): four accumulator rows the compiler
 * keeps in registers while the rows of b stream past */
static void
mm_block(int64_t K, const float *restrict a0, const float *restrict a1, const float *restrict a2,
         const float *restrict a3, const float *restrict b, int64_t ldb, float *restrict y0,
         float *restrict y1, float *restrict y2, float *restrict y3, int nr)
{
    float s0[MM_NR], s1[MM_NR], s2[MM_NR], s3[MM_NR];
    int64_t k;
    int g;

    for (g = 0; g < MM_NR; g++)
        s0[g] = s1[g] = s2[g] = s3[g] = 0.0f;
    for (k = 0; k < K; k++) {
        const float *restrict br = b + k * ldb;
        const float v0 = a0[k], v1 = a1[k], v2 = a2[k], v3 = a3[k];

        for (g = 0; g < MM_NR; g++) {
            s0[g] += v0 * br[g];
            s1[g] += v1 * br[g];
            s2[g] += v2 * br[g];
            s3[g] += v3 * br[g];
        }
    }
    for (g = 0; g < MM_NR; g++) {
        y0[g] = s0[g];
        if (nr > 1)
            y1[g] = s1[g];
        if (nr > 2)
            y2[g] = s2[g];
        if (nr > 3)
            y3[g] = s3[g];
    }
}

/*
 * y[M, N] = a[M, K] x b[K, N] (row strides lda, ldb, ldy): each element summed from 0 over k
 * ascending, as the plain i-k-j loop, in blocks of 4 rows x MM_NR columns (mm_block); the
 * columns past the last whole block four rows at a time, the four sums of a column
 * independent chains.
 */
static void
mm_nn(int64_t M, int64_t N, int64_t K, const float *restrict a, int64_t lda,
      const float *restrict b, int64_t ldb, float *restrict y, int64_t ldy)
{
    const int64_t nb = N / MM_NR * MM_NR;
    int64_t i0, c0, k;

    for (i0 = 0; i0 < M; i0 += 4) {
        const int nr = M - i0 < 4 ? (int)(M - i0) : 4;
        const float *a0 = a + i0 * lda, *a1 = nr > 1 ? a0 + lda : a0;
        const float *a2 = nr > 2 ? a0 + 2 * lda : a0, *a3 = nr > 3 ? a0 + 3 * lda : a0;
        float *y0 = y + i0 * ldy, *y1 = nr > 1 ? y0 + ldy : y0;
        float *y2 = nr > 2 ? y0 + 2 * ldy : y0, *y3 = nr > 3 ? y0 + 3 * ldy : y0;

        for (c0 = 0; c0 < nb; c0 += MM_NR)
            mm_block(K, a0, a1, a2, a3, b + c0, ldb, y0 + c0, y1 + c0, y2 + c0, y3 + c0, nr);
        for (c0 = nb; c0 < N; c0++) { /* the last columns */
            float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;

            for (k = 0; k < K; k++) {
                const float bk = b[k * ldb + c0];
                s0 += a0[k] * bk;
                s1 += a1[k] * bk;
                s2 += a2[k] * bk;
                s3 += a3[k] * bk;
            }
            y0[c0] = s0;
            if (nr > 1)
                y1[c0] = s1;
            if (nr > 2)
                y2[c0] = s2;
            if (nr > 3)
                y3[c0] = s3;
        }
    }
}

lstmc_rt_status
lstmc_rt_gemm(const lstmc_rt_gemm_params *p, const float *A, const float *B, const float *C,
              float *Y)
{
    int64_t M, N, K, i, j, k;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    M = p->m;
    N = p->n;
    K = p->k;
    if (M < 0 || N < 0 || K < 0 || mul_nn(M, N) < 0 || mul_nn(M, K) < 0 || mul_nn(K, N) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (M == 0 || N == 0)
        return LSTMC_RT_OK;
    if (!Y || (K > 0 && (!A || !B)))
        return LSTMC_RT_ERR_NULL;

    if (!p->trans_a && !p->trans_b)
        mm_nn(M, N, K, A, K, B, N, Y, N);
    for (i = 0; i < M; i++) {
        float *restrict y = Y + i * N;

        if (p->trans_b) {
            /* B stored [N,K]: each y[j] is a dot product over a contiguous row of B. */
            for (j = 0; j < N; j++) {
                float acc = 0.0f;

                for (k = 0; k < K; k++) {
                    float a = p->trans_a ? A[k * M + i] : A[i * K + k];
                    acc += a * B[j * K + k];
                }
                y[j] = acc;
            }
        } else if (p->trans_a) { /* (neither transposed: mm_nn above) */
            /* i-k-j: stream rows of B into the row of Y. */
            for (j = 0; j < N; j++)
                y[j] = 0.0f;
            for (k = 0; k < K; k++) {
                const float a = A[k * M + i];
                const float *restrict b = B + k * N;

                for (j = 0; j < N; j++)
                    y[j] += a * b[j];
            }
        }
        /* Y = alpha * AB + beta * C; C is skipped when absent or beta == 0, as ORT does. */
        for (j = 0; j < N; j++) {
            float v = p->alpha * y[j];

            if (C && p->beta != 0.0f)
                v += p->beta * C[i * p->c_stride_m + j * p->c_stride_n];
            y[j] = v;
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_matmul(const lstmc_rt_matmul_params *p, const float *A, const float *B, float *Y)
{
    int64_t j[LSTMC_RT_MAX_RANK];
    int64_t n_mats, mat, M, N, K, MN, a_off = 0, b_off = 0;
    int32_t d;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    M = p->m;
    N = p->n;
    K = p->k;
    if (!dims_total(p->n_batch, p->batch, &n_mats) || M < 0 || N < 0 || K < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    MN = mul_nn(M, N);
    if (MN < 0 || mul_nn(M, K) < 0 || mul_nn(K, N) < 0 || mul_nn(n_mats, MN) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (n_mats == 0 || MN == 0)
        return LSTMC_RT_OK;
    if (!Y || (K > 0 && (!A || !B)))
        return LSTMC_RT_ERR_NULL;

    for (d = 0; d < p->n_batch; d++)
        j[d] = 0;
    for (mat = 0; mat < n_mats; mat++) {
        const float *restrict a = A + a_off;
        const float *restrict b = B + b_off;
        float *restrict y = Y + mat * MN;

        mm_nn(M, N, K, a, K, b, N, y, N);
        odometer_next(p->n_batch, p->batch, j, p->a_stride, &a_off, p->b_stride, &b_off);
    }
    return LSTMC_RT_OK;
}

/* --- element-wise ------------------------------------------------------------------ */

/* Integer ops wrap on overflow (two's complement) instead of invoking undefined behaviour. */
static int64_t
binop_i64(int32_t op, int64_t a, int64_t b)
{
    switch (op) {
    case LSTMC_RT_ADD:
        return (int64_t)((uint64_t)a + (uint64_t)b);
    case LSTMC_RT_SUB:
        return (int64_t)((uint64_t)a - (uint64_t)b);
    case LSTMC_RT_MUL:
        return (int64_t)((uint64_t)a * (uint64_t)b);
    default: /* DIV: truncates toward zero; x/0 = 0; INT64_MIN/-1 wraps */
        if (b == 0)
            return 0;
        if (b == -1)
            return (int64_t)(0u - (uint64_t)a);
        return a / b;
    }
}

static float
binop_f32(int32_t op, float a, float b)
{
    switch (op) {
    case LSTMC_RT_ADD:
        return a + b;
    case LSTMC_RT_SUB:
        return a - b;
    case LSTMC_RT_MUL:
        return a * b;
    default:
        return a / b;
    }
}

lstmc_rt_status
lstmc_rt_binary(const lstmc_rt_binary_params *p, const void *a, const void *b, void *out)
{
    int64_t j[LSTMC_RT_MAX_RANK];
    int64_t total, inner, inner_sa, inner_sb, a_off = 0, b_off = 0, o = 0, x;
    int32_t d, outer_rank;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (p->op < LSTMC_RT_ADD || p->op > LSTMC_RT_DIV || !dims_total(p->rank, p->out_dims, &total))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->dtype != LSTMC_RT_F32 && p->dtype != LSTMC_RT_I64 && p->dtype != LSTMC_RT_I32)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (total == 0)
        return LSTMC_RT_OK;
    if (!a || !b || !out)
        return LSTMC_RT_ERR_NULL;

    /* Innermost dim in a tight loop, the outer dims by odometer. */
    outer_rank = p->rank > 0 ? p->rank - 1 : 0;
    inner = p->rank > 0 ? p->out_dims[p->rank - 1] : 1;
    inner_sa = p->rank > 0 ? p->a_stride[p->rank - 1] : 0;
    inner_sb = p->rank > 0 ? p->b_stride[p->rank - 1] : 0;
    for (d = 0; d < outer_rank; d++)
        j[d] = 0;

    while (o < total) {
        switch (p->dtype) {
        case LSTMC_RT_F32: {
            const float *pa = (const float *)a + a_off, *pb = (const float *)b + b_off;
            float *po = (float *)out + o;

            for (x = 0; x < inner; x++)
                po[x] = binop_f32(p->op, pa[x * inner_sa], pb[x * inner_sb]);
            break;
        }
        case LSTMC_RT_I64: {
            const int64_t *pa = (const int64_t *)a + a_off, *pb = (const int64_t *)b + b_off;
            int64_t *po = (int64_t *)out + o;

            for (x = 0; x < inner; x++)
                po[x] = binop_i64(p->op, pa[x * inner_sa], pb[x * inner_sb]);
            break;
        }
        default: {
            const int32_t *pa = (const int32_t *)a + a_off, *pb = (const int32_t *)b + b_off;
            int32_t *po = (int32_t *)out + o;

            /* int32 results wrap modulo 2^32 like ORT's int32 arithmetic. */
            for (x = 0; x < inner; x++)
                po[x] = (int32_t)(uint32_t)(uint64_t)binop_i64(p->op, pa[x * inner_sa],
                                                               pb[x * inner_sb]);
            break;
        }
        }
        o += inner;
        odometer_next(outer_rank, p->out_dims, j, p->a_stride, &a_off, p->b_stride, &b_off);
    }
    return LSTMC_RT_OK;
}

static float
rt_sigmoid(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

lstmc_rt_status
lstmc_rt_unary(const lstmc_rt_unary_params *p, const float *in, float *out)
{
    int64_t i, n;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    n = p->n;
    if (n < 0 || p->op < LSTMC_RT_RELU || p->op > LSTMC_RT_SQRT)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (n == 0)
        return LSTMC_RT_OK;
    if (!in || !out)
        return LSTMC_RT_ERR_NULL;

    /* in == out is allowed: every element is read before it is written. */
    for (i = 0; i < n; i++) {
        float x = in[i];

        switch (p->op) {
        case LSTMC_RT_RELU:
            out[i] = x > 0.0f ? x : 0.0f;
            break;
        case LSTMC_RT_SIGMOID:
            out[i] = rt_sigmoid(x);
            break;
        case LSTMC_RT_TANH:
            out[i] = tanhf(x);
            break;
        case LSTMC_RT_NEG:
            out[i] = -x;
            break;
        case LSTMC_RT_EXP:
            out[i] = expf(x);
            break;
        default:
            out[i] = sqrtf(x);
            break;
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_softmax(const lstmc_rt_softmax_params *p, const float *in, float *out)
{
    int64_t o, r, a, L, S;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    L = p->axis_len;
    S = p->inner;
    if (p->outer < 0 || L < 0 || S < 0 || mul_nn(L, S) < 0 || mul_nn(p->outer, L * S) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->outer == 0 || L == 0 || S == 0)
        return LSTMC_RT_OK;
    if (!in || !out)
        return LSTMC_RT_ERR_NULL;

    for (o = 0; o < p->outer; o++) {
        for (r = 0; r < S; r++) {
            const float *x = in + o * L * S + r;
            float *y = out + o * L * S + r;
            float mx = x[0], sum = 0.0f;

            for (a = 1; a < L; a++)
                if (x[a * S] > mx)
                    mx = x[a * S];
            for (a = 0; a < L; a++)
                sum += expf(x[a * S] - mx);
            /* Each x[a*S] is read before y[a*S] is written, so in == out works. */
            if (p->log_softmax) {
                float ls = logf(sum);

                for (a = 0; a < L; a++)
                    y[a * S] = x[a * S] - mx - ls;
            } else {
                for (a = 0; a < L; a++)
                    y[a * S] = expf(x[a * S] - mx) / sum;
            }
        }
    }
    return LSTMC_RT_OK;
}

/*
 * float -> integer, truncating toward zero. Out-of-range values (undefined behaviour in C)
 * saturate and NaN gives 0, so constant folding is deterministic.
 */
static int64_t
f32_to_i64(float x)
{
    if (x != x)
        return 0;
    if (x >= 9223372036854775807.0f)
        return INT64_MAX;
    if (x <= -9223372036854775808.0f)
        return INT64_MIN;
    return (int64_t)x;
}

static int32_t
f32_to_i32(float x)
{
    if (x != x)
        return 0;
    if (x >= 2147483647.0f)
        return INT32_MAX;
    if (x <= -2147483648.0f)
        return INT32_MIN;
    return (int32_t)x;
}

lstmc_rt_status
lstmc_rt_cast(const lstmc_rt_cast_params *p, const void *in, void *out)
{
    size_t fs, ts;
    int64_t i;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    fs = lstmc_rt_dtype_size(p->from);
    ts = lstmc_rt_dtype_size(p->to);
    if (fs == 0 || ts == 0 || p->n < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->n == 0)
        return LSTMC_RT_OK;
    if (!in || !out)
        return LSTMC_RT_ERR_NULL;

    for (i = 0; i < p->n; i++) {
        /* Read as float or as a wide integer; U8 (bool) reads as 0..255. */
        float fv = 0.0f;
        int64_t iv = 0;
        int is_float = 0;

        switch (p->from) {
        case LSTMC_RT_F32:
            fv = ((const float *)in)[i];
            is_float = 1;
            break;
        case LSTMC_RT_I64:
            iv = ((const int64_t *)in)[i];
            break;
        case LSTMC_RT_I32:
            iv = ((const int32_t *)in)[i];
            break;
        default:
            iv = ((const uint8_t *)in)[i];
            break;
        }
        switch (p->to) {
        case LSTMC_RT_F32:
            ((float *)out)[i] = is_float ? fv : (float)iv;
            break;
        case LSTMC_RT_I64:
            ((int64_t *)out)[i] = is_float ? f32_to_i64(fv) : iv;
            break;
        case LSTMC_RT_I32:
            /* int64 -> int32 keeps the low 32 bits, as a C++ static_cast does. */
            ((int32_t *)out)[i] = is_float ? f32_to_i32(fv) : (int32_t)(uint32_t)(uint64_t)iv;
            break;
        default: /* to bool: nonzero -> 1 */
            ((uint8_t *)out)[i] = (uint8_t)(is_float ? fv != 0.0f : iv != 0);
            break;
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_argmax(const lstmc_rt_argmax_params *p, const void *in, int64_t *out)
{
    int64_t o, r, a, L, S;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    L = p->axis_len;
    S = p->inner;
    if (p->outer < 0 || L < 0 || S < 0 || mul_nn(L, S) < 0 || mul_nn(p->outer, L * S) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->dtype != LSTMC_RT_F32 && p->dtype != LSTMC_RT_I64 && p->dtype != LSTMC_RT_I32)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->outer == 0 || S == 0)
        return LSTMC_RT_OK;
    if (L == 0) /* ArgMax over an empty axis has no answer */
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (!in || !out)
        return LSTMC_RT_ERR_NULL;

    for (o = 0; o < p->outer; o++) {
        for (r = 0; r < S; r++) {
            int64_t base = o * L * S + r, best = 0;

            for (a = 1; a < L; a++) {
                int64_t at = base + a * S, bt = base + best * S;
                int gt, eq; /* gt: x beats the best so far (is smaller, for ArgMin) */

                if (p->dtype == LSTMC_RT_F32) {
                    float x = ((const float *)in)[at], y = ((const float *)in)[bt];
                    gt = p->smallest ? x < y : x > y;
                    eq = x == y;
                } else if (p->dtype == LSTMC_RT_I64) {
                    int64_t x = ((const int64_t *)in)[at], y = ((const int64_t *)in)[bt];
                    gt = p->smallest ? x < y : x > y;
                    eq = x == y;
                } else {
                    int32_t x = ((const int32_t *)in)[at], y = ((const int32_t *)in)[bt];
                    gt = p->smallest ? x < y : x > y;
                    eq = x == y;
                }
                if (gt || (eq && p->select_last_index))
                    best = a;
            }
            out[o * S + r] = best;
        }
    }
    return LSTMC_RT_OK;
}

/* --- data movement ----------------------------------------------------------------- */

/* The elements x < n of in at off + x * stride (elements of es bytes) to out: one copy per
 * element of a constant size, which the compiler inlines (a memcpy of es bytes was a call
 * per element). */
static void
strided_row(const unsigned char *src, int64_t off, int64_t stride, int64_t n, size_t es,
            unsigned char *dst)
{
    int64_t x;
    switch (es) {
    case 4:
        for (x = 0; x < n; x++)
            memcpy(dst + (size_t)x * 4, src + (off + x * stride) * 4, 4);
        break;
    case 8:
        for (x = 0; x < n; x++)
            memcpy(dst + (size_t)x * 8, src + (off + x * stride) * 8, 8);
        break;
    case 2:
        for (x = 0; x < n; x++)
            memcpy(dst + (size_t)x * 2, src + (off + x * stride) * 2, 2);
        break;
    default:
        for (x = 0; x < n; x++)
            dst[x] = src[off + x * stride];
        break;
    }
}

lstmc_rt_status
lstmc_rt_strided_copy(const lstmc_rt_strided_params *p, const void *in, void *out)
{
    int64_t j[LSTMC_RT_STRIDED_MAX_DIMS], dims[LSTMC_RT_STRIDED_MAX_DIMS];
    int64_t strides[LSTMC_RT_STRIDED_MAX_DIMS];
    int64_t total, inner, inner_s, off, o = 0;
    int32_t d, outer_rank, rank = 0;
    size_t es;
    const unsigned char *src = (const unsigned char *)in;
    unsigned char *dst = (unsigned char *)out;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (p->elem_size != 1 && p->elem_size != 2 && p->elem_size != 4 && p->elem_size != 8)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (!dims_total_of(p->rank, LSTMC_RT_STRIDED_MAX_DIMS, p->out_dims, &total))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (total == 0)
        return LSTMC_RT_OK;
    if (!in || !out)
        return LSTMC_RT_ERR_NULL;

    es = (size_t)p->elem_size;
    /* the same copy over fewer axes: axes of size 1 dropped, and an axis merged into the one
     * before it when that one steps over it whole (a Transpose that only moves axes of size
     * 1, or whose last axes stay in order, becomes one or a few long rows) */
    for (d = 0; d < p->rank; d++) {
        if (p->out_dims[d] == 1)
            continue;
        if (rank > 0 && strides[rank - 1] == p->in_stride[d] * p->out_dims[d]) {
            dims[rank - 1] *= p->out_dims[d];
            strides[rank - 1] = p->in_stride[d];
            continue;
        }
        dims[rank] = p->out_dims[d];
        strides[rank] = p->in_stride[d];
        rank++;
    }
    outer_rank = rank > 0 ? rank - 1 : 0;
    inner = rank > 0 ? dims[rank - 1] : 1;
    inner_s = rank > 0 ? strides[rank - 1] : 0;
    for (d = 0; d < outer_rank; d++)
        j[d] = 0;
    off = p->offset;

    while (o < total) {
        /* Element offsets may step backwards (negative strides) but always land in `in`. */
        if (inner_s == 1)
            memcpy(dst + (size_t)o * es, src + (ptrdiff_t)off * (ptrdiff_t)es, (size_t)inner * es);
        else
            strided_row(src, off, inner_s, inner, es, dst + (size_t)o * es);
        o += inner;
        odometer_next(outer_rank, dims, j, strides, &off, NULL, NULL);
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_gather(const lstmc_rt_gather_params *p, const void *data, const void *indices, void *out)
{
    int64_t o, k, L, S, n, row;
    size_t es;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    L = p->axis_len;
    S = p->inner;
    n = p->n_indices;
    if (p->elem_size <= 0 || p->outer < 0 || L < 0 || S < 0 || n < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->index_dtype != LSTMC_RT_I64 && p->index_dtype != LSTMC_RT_I32)
        return LSTMC_RT_ERR_BAD_PARAMS;
    row = mul_nn(S, p->elem_size);
    if (row < 0 || mul_nn(p->outer, mul_nn(L, row)) < 0 || mul_nn(p->outer, mul_nn(n, row)) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (n > 0 && !indices)
        return LSTMC_RT_ERR_NULL;

    /* Validate every index first, so a bad one leaves out untouched. */
    for (k = 0; k < n; k++) {
        int64_t ix = p->index_dtype == LSTMC_RT_I64 ? ((const int64_t *)indices)[k]
                                                    : ((const int32_t *)indices)[k];
        if (ix < -L || ix >= L)
            return LSTMC_RT_ERR_INDEX;
    }
    if (p->outer == 0 || n == 0 || row == 0)
        return LSTMC_RT_OK;
    if (!data || !out)
        return LSTMC_RT_ERR_NULL;

    es = (size_t)row;
    for (o = 0; o < p->outer; o++) {
        for (k = 0; k < n; k++) {
            int64_t ix = p->index_dtype == LSTMC_RT_I64 ? ((const int64_t *)indices)[k]
                                                        : ((const int32_t *)indices)[k];
            if (ix < 0)
                ix += L;
            memcpy((unsigned char *)out + (size_t)(o * n + k) * es,
                   (const unsigned char *)data + (size_t)(o * L + ix) * es, es);
        }
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_concat(const lstmc_rt_concat_params *p, const void *in, void *out)
{
    int64_t o;
    size_t es;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (p->elem_size <= 0 || p->outer < 0 || p->in_cols < 0 || p->out_cols < 0 || p->offset < 0 ||
        p->offset > p->out_cols - p->in_cols ||
        mul_nn(mul_nn(p->outer, p->out_cols), p->elem_size) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->outer == 0 || p->in_cols == 0)
        return LSTMC_RT_OK;
    if (!in || !out)
        return LSTMC_RT_ERR_NULL;

    es = (size_t)p->elem_size;
    for (o = 0; o < p->outer; o++)
        memcpy((unsigned char *)out + (size_t)(o * p->out_cols + p->offset) * es,
               (const unsigned char *)in + (size_t)(o * p->in_cols) * es, (size_t)p->in_cols * es);
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_fill(void *out, int64_t n, int32_t elem_size, const void *value)
{
    int64_t i;
    size_t es;

    if (n < 0 || elem_size <= 0 || mul_nn(n, elem_size) < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (n == 0)
        return LSTMC_RT_OK;
    if (!out || !value)
        return LSTMC_RT_ERR_NULL;
    es = (size_t)elem_size;
    for (i = 0; i < n; i++)
        memcpy((unsigned char *)out + (size_t)i * es, value, es);
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_copy(void *dst, const void *src, int64_t n_bytes)
{
    if (n_bytes < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (n_bytes == 0)
        return LSTMC_RT_OK;
    if (!dst || !src)
        return LSTMC_RT_ERR_NULL;
    if (dst != src)
        memmove(dst, src, (size_t)n_bytes);
    return LSTMC_RT_OK;
}
