/*
 * test_rt_kernels.c — unit tests of runtime/src/rt_kernels.c (lstmc_rt.h, lstmc_rt_kernels.h):
 * status strings, dtypes, arena check, GEMM/MatMul, element-wise, softmax, cast, argmax and
 * data movement.
 * Expected values are worked by hand in the comments or follow from identities.
 */
#include "lstmc_rt_kernels.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

static void
assert_close(const float *got, const float *want, int64_t n, float tol)
{
    int64_t i;

    for (i = 0; i < n; i++)
        cr_assert(fabsf(got[i] - want[i]) <= tol + tol * fabsf(want[i]),
                  "element %lld: got %.9g, want %.9g", (long long)i, (double)got[i],
                  (double)want[i]);
}

/* --- status, dtypes, arena --------------------------------------------------------------- */

Test(rt_kernels, status_str_never_null)
{
    int s;

    for (s = 0; s <= 8; s++) {
        const char *t = lstmc_rt_status_str((lstmc_rt_status)s);
        cr_assert_not_null(t);
        cr_assert_gt(strlen(t), 0);
    }
    cr_assert_str_eq(lstmc_rt_status_str(LSTMC_RT_OK), "ok");
    cr_assert_str_eq(lstmc_rt_status_str((lstmc_rt_status)999), "unknown status");
}

Test(rt_kernels, dtype_size)
{
    cr_assert_eq(lstmc_rt_dtype_size(LSTMC_RT_F32), 4);
    cr_assert_eq(lstmc_rt_dtype_size(LSTMC_RT_I64), 8);
    cr_assert_eq(lstmc_rt_dtype_size(LSTMC_RT_I32), 4);
    cr_assert_eq(lstmc_rt_dtype_size(LSTMC_RT_U8), 1);
    cr_assert_eq(lstmc_rt_dtype_size(0), 0);
    cr_assert_eq(lstmc_rt_dtype_size(99), 0);
}

/* A static arena, aligned by hand (C99 has no _Alignas). */
static unsigned char arena_store[256 + LSTMC_RT_ALIGN];

static unsigned char *
aligned_arena(void)
{
    uintptr_t u = (uintptr_t)arena_store;
    return arena_store + (LSTMC_RT_ALIGN - u % LSTMC_RT_ALIGN) % LSTMC_RT_ALIGN;
}

Test(rt_kernels, arena_ok)
{
    cr_assert_eq(lstmc_rt_arena_check(aligned_arena(), 256, 256), LSTMC_RT_OK);
    cr_assert_eq(lstmc_rt_arena_check(aligned_arena(), 256, 0), LSTMC_RT_OK);
}

Test(rt_kernels, arena_too_small)
{
    cr_assert_eq(lstmc_rt_arena_check(aligned_arena(), 255, 256), LSTMC_RT_ERR_ARENA_TOO_SMALL);
    cr_assert_eq(lstmc_rt_arena_check(aligned_arena(), 0, 1), LSTMC_RT_ERR_ARENA_TOO_SMALL);
}

Test(rt_kernels, arena_misaligned)
{
    cr_assert_eq(lstmc_rt_arena_check(aligned_arena() + 1, 200, 100), LSTMC_RT_ERR_MISALIGNED);
    cr_assert_eq(lstmc_rt_arena_check(aligned_arena() + LSTMC_RT_ALIGN / 2, 100, 10),
                 LSTMC_RT_ERR_MISALIGNED);
}

Test(rt_kernels, arena_null)
{
    cr_assert_eq(lstmc_rt_arena_check(NULL, 256, 16), LSTMC_RT_ERR_NULL);
}

/* --- GEMM / MatMul ------------------------------------------------------------------------ */

/*
 * A = [[1,2],[3,4]], B = [[5,6,7],[8,9,10]]:
 * AB = [[1*5+2*8, 1*6+2*9, 1*7+2*10], [3*5+4*8, 3*6+4*9, 3*7+4*10]] = [[21,24,27],[47,54,61]]
 * alpha = 2, beta = 0.5, C = [1,2,3] broadcast over rows:
 * Y = [[42.5, 49, 55.5], [94.5, 109, 123.5]]
 */
static const float gemm_want[6] = {42.5f, 49.0f, 55.5f, 94.5f, 109.0f, 123.5f};

Test(rt_kernels, gemm_2x3_hand)
{
    const float A[4] = {1, 2, 3, 4}, B[6] = {5, 6, 7, 8, 9, 10}, C[3] = {1, 2, 3};
    lstmc_rt_gemm_params p = {2, 3, 2, 0, 0, 2.0f, 0.5f, 0, 1};
    float Y[6];

    cr_assert_eq(lstmc_rt_gemm(&p, A, B, C, Y), LSTMC_RT_OK);
    assert_close(Y, gemm_want, 6, 0.0f);
}

Test(rt_kernels, gemm_transposed_inputs)
{
    /* A^T stored [K,M] = [[1,3],[2,4]]; B^T stored [N,K] = [[5,8],[6,9],[7,10]]. */
    const float At[4] = {1, 3, 2, 4}, Bt[6] = {5, 8, 6, 9, 7, 10}, C[3] = {1, 2, 3};
    lstmc_rt_gemm_params p = {2, 3, 2, 1, 1, 2.0f, 0.5f, 0, 1};
    float Y[6];

    cr_assert_eq(lstmc_rt_gemm(&p, At, Bt, C, Y), LSTMC_RT_OK);
    assert_close(Y, gemm_want, 6, 0.0f);
    p.trans_b = 0;
    cr_assert_eq(lstmc_rt_gemm(&p, At, (const float[]){5, 6, 7, 8, 9, 10}, C, Y), LSTMC_RT_OK);
    assert_close(Y, gemm_want, 6, 0.0f);
}

Test(rt_kernels, gemm_c_column_broadcast_and_full)
{
    /* C = [[10],[20]] broadcast over columns: Y = AB + C (alpha = beta = 1). */
    const float A[4] = {1, 2, 3, 4}, B[6] = {5, 6, 7, 8, 9, 10};
    const float Ccol[2] = {10, 20}, Cfull[6] = {1, 1, 1, 2, 2, 2};
    const float want_col[6] = {31, 34, 37, 67, 74, 81};
    const float want_full[6] = {22, 25, 28, 49, 56, 63};
    lstmc_rt_gemm_params p = {2, 3, 2, 0, 0, 1.0f, 1.0f, 1, 0};
    float Y[6];

    cr_assert_eq(lstmc_rt_gemm(&p, A, B, Ccol, Y), LSTMC_RT_OK);
    assert_close(Y, want_col, 6, 0.0f);
    p.c_stride_m = 3;
    p.c_stride_n = 1;
    cr_assert_eq(lstmc_rt_gemm(&p, A, B, Cfull, Y), LSTMC_RT_OK);
    assert_close(Y, want_full, 6, 0.0f);
}

Test(rt_kernels, gemm_no_c_and_k0)
{
    const float A[4] = {1, 2, 3, 4}, B[6] = {5, 6, 7, 8, 9, 10}, C[3] = {1, 2, 3};
    const float want_ab[6] = {21, 24, 27, 47, 54, 61};
    const float want_k0[6] = {3, 6, 9, 3, 6, 9};
    lstmc_rt_gemm_params p = {2, 3, 2, 0, 0, 1.0f, 1.0f, 0, 1};
    float Y[6];

    cr_assert_eq(lstmc_rt_gemm(&p, A, B, NULL, Y), LSTMC_RT_OK);
    assert_close(Y, want_ab, 6, 0.0f);
    /* K = 0: Y = beta * C, A and B unused. */
    p.k = 0;
    p.beta = 3.0f;
    cr_assert_eq(lstmc_rt_gemm(&p, NULL, NULL, C, Y), LSTMC_RT_OK);
    assert_close(Y, want_k0, 6, 0.0f);
}

Test(rt_kernels, gemm_errors)
{
    const float A[4] = {0}, B[6] = {0};
    lstmc_rt_gemm_params p = {2, 3, 2, 0, 0, 1.0f, 0.0f, 0, 0};
    float Y[6];

    cr_assert_eq(lstmc_rt_gemm(NULL, A, B, NULL, Y), LSTMC_RT_ERR_NULL);
    cr_assert_eq(lstmc_rt_gemm(&p, NULL, B, NULL, Y), LSTMC_RT_ERR_NULL);
    cr_assert_eq(lstmc_rt_gemm(&p, A, B, NULL, NULL), LSTMC_RT_ERR_NULL);
    p.m = -1;
    cr_assert_eq(lstmc_rt_gemm(&p, A, B, NULL, Y), LSTMC_RT_ERR_BAD_PARAMS);
    p.m = INT64_MAX;
    cr_assert_eq(lstmc_rt_gemm(&p, A, B, NULL, Y), LSTMC_RT_ERR_BAD_PARAMS);
}

Test(rt_kernels, matmul_batched_broadcast)
{
    /* A: 2 matrices [2,2]: I and 2I; B one [2,3] matrix broadcast (stride 0). */
    const float A[8] = {1, 0, 0, 1, 2, 0, 0, 2};
    const float B[6] = {1, 2, 3, 4, 5, 6};
    const float want[12] = {1, 2, 3, 4, 5, 6, 2, 4, 6, 8, 10, 12};
    lstmc_rt_matmul_params p;
    float Y[12];

    memset(&p, 0, sizeof p);
    p.n_batch = 1;
    p.batch[0] = 2;
    p.a_stride[0] = 4;
    p.b_stride[0] = 0;
    p.m = 2;
    p.n = 3;
    p.k = 2;
    cr_assert_eq(lstmc_rt_matmul(&p, A, B, Y), LSTMC_RT_OK);
    assert_close(Y, want, 12, 0.0f);
}

Test(rt_kernels, matmul_two_batch_dims_matches_gemm)
{
    /* batch [2,3]; A broadcast along dim 1 (stride 0), B along dim 0. Every output matrix
     * must equal a single gemm of the matrices it selected. */
    float A[2 * 4 * 5], B[3 * 5 * 2], Y[6 * 4 * 2], ref[4 * 2];
    lstmc_rt_matmul_params p;
    lstmc_rt_gemm_params g = {4, 2, 5, 0, 0, 1.0f, 0.0f, 0, 0};
    int i, b0, b1;

    for (i = 0; i < N_OF(A); i++)
        A[i] = (float)((i * 7) % 11) - 5.0f;
    for (i = 0; i < N_OF(B); i++)
        B[i] = (float)((i * 5) % 13) * 0.5f - 3.0f;
    memset(&p, 0, sizeof p);
    p.n_batch = 2;
    p.batch[0] = 2;
    p.batch[1] = 3;
    p.a_stride[0] = 20;
    p.a_stride[1] = 0;
    p.b_stride[0] = 0;
    p.b_stride[1] = 10;
    p.m = 4;
    p.n = 2;
    p.k = 5;
    cr_assert_eq(lstmc_rt_matmul(&p, A, B, Y), LSTMC_RT_OK);
    for (b0 = 0; b0 < 2; b0++)
        for (b1 = 0; b1 < 3; b1++) {
            cr_assert_eq(lstmc_rt_gemm(&g, A + b0 * 20, B + b1 * 10, NULL, ref), LSTMC_RT_OK);
            assert_close(Y + (b0 * 3 + b1) * 8, ref, 8, 0.0f);
        }
}

/* MatMul and Gemm in register blocks (mm_nn: 4 rows x 16 columns, the last rows and columns
 * apart): shapes with a partial block of rows and of columns, and whole blocks only, against
 * a double-precision sum of the same products (and Gemm's alpha, beta C). */
Test(rt_kernels, matmul_and_gemm_blocks_match_double_sums)
{
    static const int64_t shapes[][3] = {{7, 37, 19}, {8, 32, 3}, {1, 86, 64}, {5, 15, 1}};
    size_t sh;

    for (sh = 0; sh < N_OF(shapes); sh++) {
        const int64_t M = shapes[sh][0], N = shapes[sh][1], K = shapes[sh][2];
        float *A = malloc((size_t)(M * K) * 4), *B = malloc((size_t)(K * N) * 4);
        float *C = malloc((size_t)N * 4), *Y = malloc((size_t)(M * N) * 4);
        float *Yg = malloc((size_t)(M * N) * 4);
        lstmc_rt_matmul_params p;
        lstmc_rt_gemm_params g = {M, N, K, 0, 0, 0.5f, 2.0f, 0, 1}; /* C broadcast over rows */
        int64_t i, j, k;

        for (i = 0; i < M * K; i++)
            A[i] = (float)((i * 7) % 23) * 0.125f - 1.25f;
        for (i = 0; i < K * N; i++)
            B[i] = (float)((i * 5) % 17) * 0.25f - 2.0f;
        for (j = 0; j < N; j++)
            C[j] = (float)j * 0.5f - 3.0f;
        memset(&p, 0, sizeof p);
        p.n_batch = 1;
        p.batch[0] = 1;
        p.m = M;
        p.n = N;
        p.k = K;
        cr_assert_eq(lstmc_rt_matmul(&p, A, B, Y), LSTMC_RT_OK);
        cr_assert_eq(lstmc_rt_gemm(&g, A, B, C, Yg), LSTMC_RT_OK);
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) {
                double ref = 0.0;
                for (k = 0; k < K; k++)
                    ref += (double)A[i * K + k] * B[k * N + j];
                cr_assert_float_eq(Y[i * N + j], ref, 1e-4 * (1.0 + fabs(ref)),
                                   "%lldx%lldx%lld: Y[%lld][%lld] %g, expected %g", (long long)M,
                                   (long long)N, (long long)K, (long long)i, (long long)j,
                                   Y[i * N + j], ref);
                ref = 0.5 * ref + 2.0 * C[j];
                cr_assert_float_eq(Yg[i * N + j], ref, 1e-4 * (1.0 + fabs(ref)),
                                   "gemm %lldx%lldx%lld [%lld][%lld]", (long long)M, (long long)N,
                                   (long long)K, (long long)i, (long long)j);
            }
        free(A), free(B), free(C), free(Y), free(Yg);
    }
}

/* --- element-wise -------------------------------------------------------------------------- */

Test(rt_kernels, binary_broadcast_add_f32)
{
    /* [2,3] + [3] */
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30};
    const float want[6] = {11, 22, 33, 14, 25, 36};
    lstmc_rt_binary_params p;
    float out[6];

    memset(&p, 0, sizeof p);
    p.op = LSTMC_RT_ADD;
    p.dtype = LSTMC_RT_F32;
    p.rank = 2;
    p.out_dims[0] = 2;
    p.out_dims[1] = 3;
    p.a_stride[0] = 3;
    p.a_stride[1] = 1;
    p.b_stride[0] = 0;
    p.b_stride[1] = 1;
    cr_assert_eq(lstmc_rt_binary(&p, a, b, out), LSTMC_RT_OK);
    assert_close(out, want, 6, 0.0f);
}

Test(rt_kernels, binary_outer_product_rank3)
{
    /* a [2,1,1] * b [1,3,1] -> [2,3,1] (both operands broadcast) */
    const float a[2] = {2, 3}, b[3] = {1, 10, 100};
    const float want[6] = {2, 20, 200, 3, 30, 300};
    lstmc_rt_binary_params p;
    float out[6];

    memset(&p, 0, sizeof p);
    p.op = LSTMC_RT_MUL;
    p.dtype = LSTMC_RT_F32;
    p.rank = 3;
    p.out_dims[0] = 2;
    p.out_dims[1] = 3;
    p.out_dims[2] = 1;
    p.a_stride[0] = 1;
    p.b_stride[1] = 1;
    cr_assert_eq(lstmc_rt_binary(&p, a, b, out), LSTMC_RT_OK);
    assert_close(out, want, 6, 0.0f);
}

Test(rt_kernels, binary_scalar_sub_div)
{
    const float a = 7.0f, b = 2.0f;
    lstmc_rt_binary_params p;
    float out;

    memset(&p, 0, sizeof p);
    p.op = LSTMC_RT_SUB;
    p.dtype = LSTMC_RT_F32;
    p.rank = 0;
    cr_assert_eq(lstmc_rt_binary(&p, &a, &b, &out), LSTMC_RT_OK);
    cr_assert_float_eq(out, 5.0f, 0.0f);
    p.op = LSTMC_RT_DIV;
    cr_assert_eq(lstmc_rt_binary(&p, &a, &b, &out), LSTMC_RT_OK);
    cr_assert_float_eq(out, 3.5f, 0.0f);
}

Test(rt_kernels, binary_int_div_truncates)
{
    /* -7/2 = -3, 7/-2 = -3, 7/2 = 3, 5/0 = 0, INT64_MIN/-1 wraps to INT64_MIN */
    const int64_t a[5] = {-7, 7, 7, 5, INT64_MIN}, b[5] = {2, -2, 2, 0, -1};
    const int64_t want[5] = {-3, -3, 3, 0, INT64_MIN};
    const int32_t a32[3] = {-7, INT32_MAX, 9}, b32[3] = {2, 1, 0};
    lstmc_rt_binary_params p;
    int64_t out[5];
    int32_t out32[3];
    int i;

    memset(&p, 0, sizeof p);
    p.op = LSTMC_RT_DIV;
    p.dtype = LSTMC_RT_I64;
    p.rank = 1;
    p.out_dims[0] = 5;
    p.a_stride[0] = 1;
    p.b_stride[0] = 1;
    cr_assert_eq(lstmc_rt_binary(&p, a, b, out), LSTMC_RT_OK);
    for (i = 0; i < 5; i++)
        cr_assert_eq(out[i], want[i], "i=%d", i);

    p.dtype = LSTMC_RT_I32;
    p.out_dims[0] = 3;
    cr_assert_eq(lstmc_rt_binary(&p, a32, b32, out32), LSTMC_RT_OK);
    cr_assert_eq(out32[0], -3);
    cr_assert_eq(out32[1], INT32_MAX);
    cr_assert_eq(out32[2], 0);
    /* int32 add wraps: INT32_MAX + 1 = INT32_MIN */
    p.op = LSTMC_RT_ADD;
    cr_assert_eq(lstmc_rt_binary(&p, a32, b32, out32), LSTMC_RT_OK);
    cr_assert_eq(out32[1], INT32_MIN);
}

Test(rt_kernels, binary_errors)
{
    lstmc_rt_binary_params p;
    float x = 0;

    memset(&p, 0, sizeof p);
    p.op = 7;
    p.dtype = LSTMC_RT_F32;
    cr_assert_eq(lstmc_rt_binary(&p, &x, &x, &x), LSTMC_RT_ERR_BAD_PARAMS);
    p.op = LSTMC_RT_ADD;
    p.dtype = LSTMC_RT_U8;
    cr_assert_eq(lstmc_rt_binary(&p, &x, &x, &x), LSTMC_RT_ERR_BAD_PARAMS);
    p.dtype = LSTMC_RT_F32;
    p.rank = LSTMC_RT_MAX_RANK + 1;
    cr_assert_eq(lstmc_rt_binary(&p, &x, &x, &x), LSTMC_RT_ERR_BAD_PARAMS);
    p.rank = 0;
    cr_assert_eq(lstmc_rt_binary(&p, NULL, &x, &x), LSTMC_RT_ERR_NULL);
    cr_assert_eq(lstmc_rt_binary(NULL, &x, &x, &x), LSTMC_RT_ERR_NULL);
}

Test(rt_kernels, unary_identities_in_place)
{
    float v[3] = {0.0f, -2.0f, 4.0f};
    lstmc_rt_unary_params p = {LSTMC_RT_SIGMOID, 1};

    /* sigmoid(0) = 0.5 */
    cr_assert_eq(lstmc_rt_unary(&p, v, v), LSTMC_RT_OK);
    cr_assert_float_eq(v[0], 0.5f, 1e-7f);
    {
        float in[3] = {-2.0f, 0.0f, 4.0f}, out[3];
        const float relu[3] = {0, 0, 4}, neg[3] = {2, 0, -4};

        p.n = 3;
        p.op = LSTMC_RT_RELU;
        cr_assert_eq(lstmc_rt_unary(&p, in, out), LSTMC_RT_OK);
        assert_close(out, relu, 3, 0.0f);
        p.op = LSTMC_RT_NEG;
        cr_assert_eq(lstmc_rt_unary(&p, in, out), LSTMC_RT_OK);
        assert_close(out, neg, 3, 0.0f);
        p.op = LSTMC_RT_TANH;
        cr_assert_eq(lstmc_rt_unary(&p, in, out), LSTMC_RT_OK);
        cr_assert_float_eq(out[1], 0.0f, 0.0f);
        cr_assert_float_eq(out[0], -0.96402758f, 1e-6f); /* tanh(-2) */
        p.op = LSTMC_RT_EXP;
        cr_assert_eq(lstmc_rt_unary(&p, in, out), LSTMC_RT_OK);
        cr_assert_float_eq(out[1], 1.0f, 0.0f);
        p.op = LSTMC_RT_SQRT;
        p.n = 2; /* sqrt(0), sqrt(4) */
        cr_assert_eq(lstmc_rt_unary(&p, in + 1, out), LSTMC_RT_OK);
        cr_assert_float_eq(out[0], 0.0f, 0.0f);
        cr_assert_float_eq(out[1], 2.0f, 0.0f);
    }
    /* sigmoid(x) + sigmoid(-x) = 1 */
    {
        float in[4] = {-3.0f, -0.5f, 0.5f, 3.0f}, out[4];

        p.op = LSTMC_RT_SIGMOID;
        p.n = 4;
        cr_assert_eq(lstmc_rt_unary(&p, in, out), LSTMC_RT_OK);
        cr_assert_float_eq(out[0] + out[3], 1.0f, 1e-6f);
        cr_assert_float_eq(out[1] + out[2], 1.0f, 1e-6f);
    }
    p.op = 42;
    cr_assert_eq(lstmc_rt_unary(&p, v, v), LSTMC_RT_ERR_BAD_PARAMS);
}

/* --- softmax ----------------------------------------------------------------------------- */

Test(rt_kernels, softmax_hand_and_rows_sum_to_one)
{
    /* softmax([0, ln 2]) = [1/3, 2/3]; second row is shifted by 1000 (stability). */
    const float in[4] = {0.0f, 0.69314718f, 1000.0f, 1000.69314718f};
    const float want[4] = {1.0f / 3, 2.0f / 3, 1.0f / 3, 2.0f / 3};
    lstmc_rt_softmax_params p = {0, 2, 2, 1};
    float out[4];

    cr_assert_eq(lstmc_rt_softmax(&p, in, out), LSTMC_RT_OK);
    assert_close(out, want, 2, 1e-6f);
    cr_assert_float_eq(out[2] + out[3], 1.0f, 1e-6f);
    cr_assert_float_eq(out[2], 1.0f / 3, 1e-3f);

    p.log_softmax = 1;
    cr_assert_eq(lstmc_rt_softmax(&p, in, out), LSTMC_RT_OK);
    cr_assert_float_eq(out[0], logf(1.0f / 3), 1e-6f);
    cr_assert_float_eq(out[1], logf(2.0f / 3), 1e-6f);
}

Test(rt_kernels, softmax_inner_axis_in_place)
{
    /* [outer=2, axis=3, inner=2]: each column (o, r) sums to 1 over the axis. */
    float x[12];
    lstmc_rt_softmax_params p = {0, 2, 3, 2};
    int o, r, a;

    for (a = 0; a < 12; a++)
        x[a] = (float)(a * a % 7) - 3.0f;
    cr_assert_eq(lstmc_rt_softmax(&p, x, x), LSTMC_RT_OK);
    for (o = 0; o < 2; o++)
        for (r = 0; r < 2; r++) {
            float s = 0.0f;

            for (a = 0; a < 3; a++) {
                float v = x[o * 6 + a * 2 + r];
                cr_assert(v > 0.0f && v < 1.0f);
                s += v;
            }
            cr_assert_float_eq(s, 1.0f, 1e-6f);
        }
}

/* --- cast, argmax ------------------------------------------------------------------------- */

Test(rt_kernels, cast_float_to_int_truncates)
{
    const float in[6] = {2.7f, -2.7f, 0.0f, NAN, 1e20f, -1e20f};
    int64_t o64[6];
    int32_t o32[6];
    lstmc_rt_cast_params p = {LSTMC_RT_F32, LSTMC_RT_I64, 6};

    cr_assert_eq(lstmc_rt_cast(&p, in, o64), LSTMC_RT_OK);
    cr_assert_eq(o64[0], 2);
    cr_assert_eq(o64[1], -2);
    cr_assert_eq(o64[2], 0);
    cr_assert_eq(o64[3], 0); /* NaN: defined as 0 here */
    cr_assert_eq(o64[4], INT64_MAX);
    cr_assert_eq(o64[5], INT64_MIN);
    p.to = LSTMC_RT_I32;
    cr_assert_eq(lstmc_rt_cast(&p, in, o32), LSTMC_RT_OK);
    cr_assert_eq(o32[0], 2);
    cr_assert_eq(o32[1], -2);
    cr_assert_eq(o32[4], INT32_MAX);
}

Test(rt_kernels, cast_ints_bools_floats)
{
    const int64_t in[4] = {0, 3, -1, ((int64_t)1 << 32) + 5};
    int32_t o32[4];
    uint8_t ob[4];
    float of[4];
    lstmc_rt_cast_params p = {LSTMC_RT_I64, LSTMC_RT_I32, 4};

    cr_assert_eq(lstmc_rt_cast(&p, in, o32), LSTMC_RT_OK);
    cr_assert_eq(o32[3], 5); /* low 32 bits */
    cr_assert_eq(o32[2], -1);
    p.to = LSTMC_RT_U8;
    cr_assert_eq(lstmc_rt_cast(&p, in, ob), LSTMC_RT_OK);
    cr_assert(ob[0] == 0 && ob[1] == 1 && ob[2] == 1 && ob[3] == 1);
    p.from = LSTMC_RT_U8;
    p.to = LSTMC_RT_F32;
    cr_assert_eq(lstmc_rt_cast(&p, ob, of), LSTMC_RT_OK);
    cr_assert(of[0] == 0.0f && of[1] == 1.0f);
    p.from = LSTMC_RT_I64;
    cr_assert_eq(lstmc_rt_cast(&p, in, of), LSTMC_RT_OK);
    cr_assert(of[1] == 3.0f && of[2] == -1.0f);
    p.from = 0;
    cr_assert_eq(lstmc_rt_cast(&p, in, of), LSTMC_RT_ERR_BAD_PARAMS);
}

Test(rt_kernels, argmax_ties_and_inner)
{
    /* [outer=1, axis=4, inner=2]: column 0 = 1 5 5 2 (tie at 1, 2), column 1 = 9 0 9 3 */
    const float in[8] = {1, 9, 5, 0, 5, 9, 2, 3};
    const int32_t in32[3] = {-4, -1, -9};
    int64_t out[2];
    lstmc_rt_argmax_params p = {LSTMC_RT_F32, 0, 1, 4, 2};

    cr_assert_eq(lstmc_rt_argmax(&p, in, out), LSTMC_RT_OK);
    cr_assert_eq(out[0], 1);
    cr_assert_eq(out[1], 0);
    p.select_last_index = 1;
    cr_assert_eq(lstmc_rt_argmax(&p, in, out), LSTMC_RT_OK);
    cr_assert_eq(out[0], 2);
    cr_assert_eq(out[1], 2);

    p.dtype = LSTMC_RT_I32;
    p.select_last_index = 0;
    p.axis_len = 3;
    p.inner = 1;
    cr_assert_eq(lstmc_rt_argmax(&p, in32, out), LSTMC_RT_OK);
    cr_assert_eq(out[0], 1);
    p.smallest = 1; /* ArgMin: -9 at 2; of column 0 above, 1 at 0 (last: 0 too) */
    cr_assert_eq(lstmc_rt_argmax(&p, in32, out), LSTMC_RT_OK);
    cr_assert_eq(out[0], 2);
    p.dtype = LSTMC_RT_F32, p.axis_len = 4, p.inner = 2, p.select_last_index = 1;
    cr_assert_eq(lstmc_rt_argmax(&p, in, out), LSTMC_RT_OK);
    cr_assert_eq(out[0], 0);
    cr_assert_eq(out[1], 1); /* 0 once, at 1 */
    p.axis_len = 0;
    cr_assert_eq(lstmc_rt_argmax(&p, in32, out), LSTMC_RT_ERR_BAD_PARAMS);
}

/* --- data movement ---------------------------------------------------------------------- */

Test(rt_kernels, strided_copy_transpose)
{
    /* in [2,3] = [[0,1,2],[3,4,5]] -> out [3,2] = [[0,3],[1,4],[2,5]] */
    const float in[6] = {0, 1, 2, 3, 4, 5};
    const float want[6] = {0, 3, 1, 4, 2, 5};
    lstmc_rt_strided_params p;
    float out[6];

    memset(&p, 0, sizeof p);
    p.rank = 2;
    p.elem_size = 4;
    p.out_dims[0] = 3;
    p.out_dims[1] = 2;
    p.in_stride[0] = 1;
    p.in_stride[1] = 3;
    cr_assert_eq(lstmc_rt_strided_copy(&p, in, out), LSTMC_RT_OK);
    assert_close(out, want, 6, 0.0f);
}

Test(rt_kernels, strided_copy_negative_step_broadcast_rank0)
{
    const int64_t in[5] = {10, 11, 12, 13, 14};
    const uint8_t bytes[2] = {7, 9};
    int64_t out[5];
    uint8_t bout[6];
    lstmc_rt_strided_params p;
    int i;

    /* Slice [::-2] of 5 elements: offset 4, stride -2 -> 14 12 10 */
    memset(&p, 0, sizeof p);
    p.rank = 1;
    p.elem_size = 8;
    p.offset = 4;
    p.out_dims[0] = 3;
    p.in_stride[0] = -2;
    cr_assert_eq(lstmc_rt_strided_copy(&p, in, out), LSTMC_RT_OK);
    cr_assert(out[0] == 14 && out[1] == 12 && out[2] == 10);

    /* Expand [2,1] -> [2,3] with 1-byte elements (stride 0 on the broadcast dim) */
    memset(&p, 0, sizeof p);
    p.rank = 2;
    p.elem_size = 1;
    p.out_dims[0] = 2;
    p.out_dims[1] = 3;
    p.in_stride[0] = 1;
    p.in_stride[1] = 0;
    cr_assert_eq(lstmc_rt_strided_copy(&p, bytes, bout), LSTMC_RT_OK);
    for (i = 0; i < 6; i++)
        cr_assert_eq(bout[i], i < 3 ? 7 : 9);

    /* rank 0: one element at offset */
    memset(&p, 0, sizeof p);
    p.elem_size = 8;
    p.offset = 3;
    cr_assert_eq(lstmc_rt_strided_copy(&p, in, out), LSTMC_RT_OK);
    cr_assert_eq(out[0], 13);
    p.elem_size = 3;
    cr_assert_eq(lstmc_rt_strided_copy(&p, in, out), LSTMC_RT_ERR_BAD_PARAMS);
}

Test(rt_kernels, gather_axis0_and_axis1)
{
    /* data [3,2] = [[1,2],[3,4],[5,6]]; indices [2, -3] along axis 0 -> [[5,6],[1,2]] */
    const float data[6] = {1, 2, 3, 4, 5, 6};
    const int64_t idx[2] = {2, -3};
    const int32_t idx32[3] = {1, 1, -2};
    const float want0[4] = {5, 6, 1, 2};
    /* along axis 1 (outer 3, axis 2, inner 1) with [1,1,-2] -> [[2,2,1],[4,4,3],[6,6,5]] */
    const float want1[9] = {2, 2, 1, 4, 4, 3, 6, 6, 5};
    lstmc_rt_gather_params p = {4, LSTMC_RT_I64, 1, 3, 2, 2};
    float out[9];

    cr_assert_eq(lstmc_rt_gather(&p, data, idx, out), LSTMC_RT_OK);
    assert_close(out, want0, 4, 0.0f);
    p.index_dtype = LSTMC_RT_I32;
    p.outer = 3;
    p.axis_len = 2;
    p.inner = 1;
    p.n_indices = 3;
    cr_assert_eq(lstmc_rt_gather(&p, data, idx32, out), LSTMC_RT_OK);
    assert_close(out, want1, 9, 0.0f);
}

Test(rt_kernels, gather_out_of_range)
{
    const float data[6] = {1, 2, 3, 4, 5, 6};
    const int64_t hi[1] = {3}, lo[1] = {-4}, edge[2] = {-3, 2};
    lstmc_rt_gather_params p = {4, LSTMC_RT_I64, 1, 3, 2, 1};
    float out[4] = {-1, -1, -1, -1};

    cr_assert_eq(lstmc_rt_gather(&p, data, hi, out), LSTMC_RT_ERR_INDEX);
    cr_assert_eq(lstmc_rt_gather(&p, data, lo, out), LSTMC_RT_ERR_INDEX);
    p.n_indices = 2;
    cr_assert_eq(lstmc_rt_gather(&p, data, edge, out), LSTMC_RT_OK);
    p.index_dtype = LSTMC_RT_F32;
    cr_assert_eq(lstmc_rt_gather(&p, data, edge, out), LSTMC_RT_ERR_BAD_PARAMS);
}

Test(rt_kernels, concat_two_inputs)
{
    /* [2,1] ++ [2,2] along axis 1 -> [2,3] */
    const int32_t a[2] = {1, 4}, b[4] = {2, 3, 5, 6};
    int32_t out[6];
    lstmc_rt_concat_params pa = {4, 2, 1, 3, 0}, pb = {4, 2, 2, 3, 1};
    int i;

    cr_assert_eq(lstmc_rt_concat(&pa, a, out), LSTMC_RT_OK);
    cr_assert_eq(lstmc_rt_concat(&pb, b, out), LSTMC_RT_OK);
    for (i = 0; i < 6; i++)
        cr_assert_eq(out[i], i + 1);
    pb.offset = 2; /* 2 + 2 > 3 */
    cr_assert_eq(lstmc_rt_concat(&pb, b, out), LSTMC_RT_ERR_BAD_PARAMS);
}

Test(rt_kernels, fill_and_copy)
{
    const int64_t v = -5;
    int64_t out[4];
    char buf[8] = "abcdefg";
    int i;

    cr_assert_eq(lstmc_rt_fill(out, 4, 8, &v), LSTMC_RT_OK);
    for (i = 0; i < 4; i++)
        cr_assert_eq(out[i], -5);
    cr_assert_eq(lstmc_rt_fill(NULL, 4, 8, &v), LSTMC_RT_ERR_NULL);
    cr_assert_eq(lstmc_rt_fill(out, 0, 8, NULL), LSTMC_RT_OK);
    cr_assert_eq(lstmc_rt_fill(out, -1, 8, &v), LSTMC_RT_ERR_BAD_PARAMS);

    cr_assert_eq(lstmc_rt_copy(buf, buf, 7), LSTMC_RT_OK);
    cr_assert_str_eq(buf, "abcdefg");
    cr_assert_eq(lstmc_rt_copy(buf + 1, buf, 3), LSTMC_RT_OK); /* overlapping */
    cr_assert_str_eq(buf, "aabcefg");
    cr_assert_eq(lstmc_rt_copy(NULL, buf, 1), LSTMC_RT_ERR_NULL);
    cr_assert_eq(lstmc_rt_copy(buf, buf, -1), LSTMC_RT_ERR_BAD_PARAMS);
}
