/*
 * test_elt.c — issue 20 (elt): the runtime kernels of runtime/src/rt_eltwise2.c
 * (lstmc_rt_ewise, lstmc_rt_range, lstmc_rt_cumsum) on hand-worked values, and the shape
 * rules of compiler/core/shape/shape_elt.c on the models they must refuse (each message
 * names the input or attribute).
 */
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "lstmc_rt_kernels.h"
#include "shape.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/* --- the kernels ------------------------------------------------------------------------ */

/* A [rows, cols] output; a read [rows, cols] (a_full) or [cols] broadcast (0), b likewise. */
static lstmc_rt_ewise_params
ew(int32_t op, int32_t dt, int64_t rows, int64_t cols, int a_full, int b_full)
{
    lstmc_rt_ewise_params p;
    memset(&p, 0, sizeof p);
    p.op = op;
    p.dtype = dt;
    p.rank = 2;
    p.out_dims[0] = rows, p.out_dims[1] = cols;
    p.a_stride[0] = a_full ? cols : 0, p.a_stride[1] = 1;
    p.b_stride[0] = b_full ? cols : 0, p.b_stride[1] = 1;
    return p;
}

Test(elt, compare_with_nan_and_ties)
{
    /* NaN compares false with everything, also with <= and >=; 1 == 1 ties */
    const float a[4] = {1.0f, NAN, 2.0f, -1.0f}, b[4] = {1.0f, 0.0f, 3.0f, -2.0f};
    static const unsigned char le[4] = {1, 0, 1, 0}, ge[4] = {1, 0, 0, 1}, eq[4] = {1, 0, 0, 0};
    unsigned char out[4];
    lstmc_rt_ewise_params p = ew(LSTMC_RT_EW_LESS_EQUAL, LSTMC_RT_F32, 1, 4, 1, 1);
    cr_assert_eq(lstmc_rt_ewise(&p, a, b, NULL, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, le, 4);
    p.op = LSTMC_RT_EW_GREATER_EQUAL;
    cr_assert_eq(lstmc_rt_ewise(&p, a, b, NULL, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, ge, 4);
    p.op = LSTMC_RT_EW_EQUAL;
    cr_assert_eq(lstmc_rt_ewise(&p, a, b, NULL, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, eq, 4);
}

Test(elt, int64_compare_is_exact)
{
    /* 2^53 + 1 and 2^53 are equal as doubles, not as int64 */
    const int64_t a[1] = {((int64_t)1 << 53) + 1}, b[1] = {(int64_t)1 << 53};
    unsigned char out[1];
    lstmc_rt_ewise_params p = ew(LSTMC_RT_EW_GREATER, LSTMC_RT_I64, 1, 1, 1, 1);
    cr_assert_eq(lstmc_rt_ewise(&p, a, b, NULL, out), LSTMC_RT_OK);
    cr_assert_eq(out[0], 1);
}

Test(elt, where_broadcasts_three_ways)
{
    /* cond [2,1], x [3], y scalar: out[i][j] = cond[i] ? x[j] : y */
    const unsigned char cond[2] = {1, 0};
    const int64_t x[3] = {10, 20, 30}, y[1] = {-7};
    static const int64_t want[6] = {10, 20, 30, -7, -7, -7};
    int64_t out[6];
    lstmc_rt_ewise_params p = ew(LSTMC_RT_EW_WHERE, LSTMC_RT_I64, 2, 3, 0, 0);
    p.a_stride[0] = 1, p.a_stride[1] = 0;
    p.c_stride[0] = 0, p.c_stride[1] = 0;
    cr_assert_eq(lstmc_rt_ewise(&p, cond, x, y, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, want, sizeof want);
}

Test(elt, float_ops_by_hand)
{
    /* x = -3, -1, 0, 0.5, 3 */
    const float x[5] = {-3.0f, -1.0f, 0.0f, 0.5f, 3.0f};
    /* HardSwish: x * clamp(x/6 + 1/2, 0, 1) = 0, -1/3, 0, 0.5*(7/12), 3 */
    const float hswish[5] = {0.0f, -1.0f / 3.0f, 0.0f, 0.5f * (7.0f / 12.0f), 3.0f};
    /* HardSigmoid alpha 0.5 beta 0.25: clamp(0.5x + 0.25) = 0, 0, 0.25, 0.5, 1 */
    const float hsig[5] = {0.0f, 0.0f, 0.25f, 0.5f, 1.0f};
    /* LeakyRelu alpha 0.1: -0.3, -0.1, 0, 0.5, 3 */
    const float lrelu[5] = {-0.3f, -0.1f, 0.0f, 0.5f, 3.0f};
    /* Clip to [-1, 0.5] with the bounds as scalars */
    const float lo[1] = {-1.0f}, hi[1] = {0.5f}, clip[5] = {-1.0f, -1.0f, 0.0f, 0.5f, 0.5f};
    const float maxonly[5] = {-3.0f, -1.0f, 0.0f, 0.5f, 0.5f};
    float out[5];
    int i;
    lstmc_rt_ewise_params p = ew(LSTMC_RT_EW_HARD_SWISH, LSTMC_RT_F32, 1, 5, 1, 0);
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    for (i = 0; i < 5; i++)
        cr_assert_float_eq(out[i], hswish[i], 1e-6f, "hardswish %d", i);
    p.op = LSTMC_RT_EW_HARD_SIGMOID, p.alpha = 0.5f, p.beta = 0.25f;
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    for (i = 0; i < 5; i++)
        cr_assert_float_eq(out[i], hsig[i], 1e-6f, "hardsigmoid %d", i);
    p.op = LSTMC_RT_EW_LEAKY_RELU, p.alpha = 0.1f;
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    for (i = 0; i < 5; i++)
        cr_assert_float_eq(out[i], lrelu[i], 1e-6f, "leakyrelu %d", i);
    p.op = LSTMC_RT_EW_CLIP;
    p.b_stride[1] = 0;
    cr_assert_eq(lstmc_rt_ewise(&p, x, lo, hi, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, clip, sizeof clip);
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, hi, out), LSTMC_RT_OK); /* min absent */
    cr_assert_arr_eq(out, maxonly, sizeof maxonly);
    p.op = LSTMC_RT_EW_ERF; /* erf(0) = 0, erf(-x) = -erf(x) */
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    cr_assert_eq(out[2], 0.0f);
    cr_assert_float_eq(out[1], -erff(1.0f), 0.0f);
}

/* issue 20, ops: PRelu with a per-channel slope (b broadcast down the rows), Min / Max with
 * NaN, the rounding ops (halves to even), Sign, and the activations on hand-worked values. */
Test(elt, prelu_min_max)
{
    const float x[6] = {-2.0f, 1.0f, -0.5f, 3.0f, -4.0f, 0.0f}, slope[2] = {0.5f, 0.25f};
    const float prelu[6] = {-1.0f, 1.0f, -0.25f, 3.0f, -1.0f, 0.0f};
    const float y[6] = {0.0f, NAN, -1.0f, 3.0f, -5.0f, 1.0f};
    const int64_t xi[3] = {-3, 5, 0}, yi[3] = {2, 4, -1}, mini[3] = {-3, 4, -1}, si[1] = {2};
    const int64_t maxi[3] = {2, 5, 0}, preluw[3] = {-6, 5, 0};
    float out[6];
    int64_t outi[3];
    int i;
    /* out [2, 3]: x full, slope [2, 1] (stride 1 down the rows, 0 along them) */
    lstmc_rt_ewise_params p = ew(LSTMC_RT_EW_PRELU, LSTMC_RT_F32, 2, 3, 1, 1);
    p.b_stride[0] = 1, p.b_stride[1] = 0;
    cr_assert_eq(lstmc_rt_ewise(&p, x, slope, NULL, out), LSTMC_RT_OK);
    for (i = 0; i < 6; i++)
        cr_assert_float_eq(out[i], prelu[i], 0.0f, "prelu %d", i);
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_ERR_NULL); /* slope missing */
    p = ew(LSTMC_RT_EW_MIN, LSTMC_RT_F32, 2, 3, 1, 1);
    cr_assert_eq(lstmc_rt_ewise(&p, x, y, NULL, out), LSTMC_RT_OK);
    cr_assert_float_eq(out[0], -2.0f, 0.0f);
    cr_assert(isnan(out[1]), "min with NaN is NaN");
    cr_assert_float_eq(out[4], -5.0f, 0.0f);
    p.op = LSTMC_RT_EW_MAX;
    cr_assert_eq(lstmc_rt_ewise(&p, x, y, NULL, out), LSTMC_RT_OK);
    cr_assert_float_eq(out[0], 0.0f, 0.0f);
    cr_assert(isnan(out[1]), "max with NaN is NaN");
    cr_assert_float_eq(out[5], 1.0f, 0.0f);
    p = ew(LSTMC_RT_EW_MIN, LSTMC_RT_I64, 1, 3, 1, 1);
    cr_assert_eq(lstmc_rt_ewise(&p, xi, yi, NULL, outi), LSTMC_RT_OK);
    cr_assert_arr_eq(outi, mini, sizeof mini);
    p.op = LSTMC_RT_EW_MAX;
    cr_assert_eq(lstmc_rt_ewise(&p, xi, yi, NULL, outi), LSTMC_RT_OK);
    cr_assert_arr_eq(outi, maxi, sizeof maxi);
    p = ew(LSTMC_RT_EW_PRELU, LSTMC_RT_I64, 1, 3, 1, 0);
    p.b_stride[1] = 0;
    cr_assert_eq(lstmc_rt_ewise(&p, xi, si, NULL, outi), LSTMC_RT_OK);
    cr_assert_arr_eq(outi, preluw, sizeof preluw);
}

Test(elt, rounding_sign_and_integer_neg)
{
    const float x[8] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.7f, 2.2f, -0.0f};
    const float rnd[8] = {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -3.0f, 2.0f, -0.0f};
    const float flo[8] = {0.0f, 1.0f, 2.0f, -1.0f, -2.0f, -3.0f, 2.0f, -0.0f};
    const float cei[8] = {1.0f, 2.0f, 3.0f, -0.0f, -1.0f, -2.0f, 3.0f, -0.0f};
    const float sgn[8] = {1.0f, 1.0f, 1.0f, -1.0f, -1.0f, -1.0f, 1.0f, 0.0f};
    const int32_t xi[4] = {-7, 0, 9, INT32_MIN}, sgni[4] = {-1, 0, 1, -1};
    const int32_t negi[4] = {7, 0, -9, INT32_MIN}; /* wraps, as ONNX Runtime's int32 */
    float out[8];
    int32_t outi[4];
    int i;
    lstmc_rt_ewise_params p = ew(LSTMC_RT_EW_ROUND, LSTMC_RT_F32, 1, 8, 1, 0);
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    for (i = 0; i < 8; i++)
        cr_assert_float_eq(out[i], rnd[i], 0.0f, "round %d", i);
    p.op = LSTMC_RT_EW_FLOOR;
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    for (i = 0; i < 8; i++)
        cr_assert_float_eq(out[i], flo[i], 0.0f, "floor %d", i);
    p.op = LSTMC_RT_EW_CEIL;
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    for (i = 0; i < 8; i++)
        cr_assert_float_eq(out[i], cei[i], 0.0f, "ceil %d", i);
    p.op = LSTMC_RT_EW_SIGN;
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    for (i = 0; i < 8; i++)
        cr_assert_float_eq(out[i], sgn[i], 0.0f, "sign %d", i);
    p = ew(LSTMC_RT_EW_SIGN, LSTMC_RT_I32, 1, 4, 1, 0);
    cr_assert_eq(lstmc_rt_ewise(&p, xi, NULL, NULL, outi), LSTMC_RT_OK);
    cr_assert_arr_eq(outi, sgni, sizeof sgni);
    p.op = LSTMC_RT_EW_NEG;
    cr_assert_eq(lstmc_rt_ewise(&p, xi, NULL, NULL, outi), LSTMC_RT_OK);
    cr_assert_arr_eq(outi, negi, sizeof negi);
}

Test(elt, softplus_elu_selu_sin_cos)
{
    /* softplus(0) = ln 2; softplus(100) = 100 (no overflow); softplus(-100) = e^-100 */
    const float x[5] = {0.0f, 100.0f, -100.0f, -1.0f, 2.0f};
    float out[5];
    lstmc_rt_ewise_params p = ew(LSTMC_RT_EW_SOFTPLUS, LSTMC_RT_F32, 1, 5, 1, 0);
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    cr_assert_float_eq(out[0], 0.69314718f, 1e-6f);
    cr_assert_float_eq(out[1], 100.0f, 0.0f);
    cr_assert_float_eq(out[2], 3.7200760e-44f, 1e-45f);
    cr_assert_float_eq(out[3], 0.31326169f, 1e-6f);
    p.op = LSTMC_RT_EW_ELU, p.alpha = 0.5f; /* 0.5 (e^-1 - 1) */
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    cr_assert_float_eq(out[3], -0.31606028f, 1e-6f);
    cr_assert_float_eq(out[4], 2.0f, 0.0f);
    p.op = LSTMC_RT_EW_SELU, p.alpha = 1.6732632f, p.beta = 1.0507010f; /* gamma in beta */
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    cr_assert_float_eq(out[3], -1.1113307f, 1e-6f);
    cr_assert_float_eq(out[4], 2.1014020f, 1e-6f);
    cr_assert_float_eq(out[0], 0.0f, 0.0f);
    p.op = LSTMC_RT_EW_SIN;
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    cr_assert_float_eq(out[4], 0.90929743f, 1e-6f);
    p.op = LSTMC_RT_EW_COS;
    cr_assert_eq(lstmc_rt_ewise(&p, x, NULL, NULL, out), LSTMC_RT_OK);
    cr_assert_float_eq(out[4], -0.41614684f, 1e-6f);
    cr_assert_float_eq(out[0], 1.0f, 0.0f);
}

Test(elt, integer_pow_abs_clip)
{
    /* Pow on int64 with an int64 exponent: 2^10, (-3)^3, 5^0; int32 Abs; Clip min only */
    const int64_t base[3] = {2, -3, 5}, ex[3] = {10, 3, 0}, want[3] = {1024, -27, 1};
    const int32_t xi[3] = {-4, 0, 7}, absw[3] = {4, 0, 7};
    const int64_t lo[1] = {0}, clipw[3] = {2, 0, 5};
    int64_t out[3];
    int32_t out32[3];
    lstmc_rt_ewise_params p = ew(LSTMC_RT_EW_POW, LSTMC_RT_I64, 1, 3, 1, 1);
    p.b_dtype = LSTMC_RT_I64;
    cr_assert_eq(lstmc_rt_ewise(&p, base, ex, NULL, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, want, sizeof want);
    p = ew(LSTMC_RT_EW_ABS, LSTMC_RT_I32, 1, 3, 1, 0);
    cr_assert_eq(lstmc_rt_ewise(&p, xi, NULL, NULL, out32), LSTMC_RT_OK);
    cr_assert_arr_eq(out32, absw, sizeof absw);
    p = ew(LSTMC_RT_EW_CLIP, LSTMC_RT_I64, 1, 3, 1, 0);
    p.b_stride[1] = 0;
    cr_assert_eq(lstmc_rt_ewise(&p, base, lo, NULL, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, clipw, sizeof clipw);
}

Test(elt, ewise_refuses_bad_params)
{
    float a[1] = {0}, out[1];
    lstmc_rt_ewise_params p = ew(LSTMC_RT_EW_LESS, LSTMC_RT_F32, 1, 1, 1, 1);
    cr_assert_eq(lstmc_rt_ewise(&p, a, NULL, NULL, out), LSTMC_RT_ERR_NULL); /* b missing */
    p.op = 99;
    cr_assert_eq(lstmc_rt_ewise(&p, a, a, NULL, out), LSTMC_RT_ERR_BAD_PARAMS);
    p.op = LSTMC_RT_EW_ABS;
    p.rank = LSTMC_RT_MAX_RANK + 1;
    cr_assert_eq(lstmc_rt_ewise(&p, a, NULL, NULL, out), LSTMC_RT_ERR_BAD_PARAMS);
    p.rank = 1;
    p.dtype = 42;
    cr_assert_eq(lstmc_rt_ewise(&p, a, NULL, NULL, out), LSTMC_RT_ERR_BAD_PARAMS);
}

Test(elt, range_accumulates_like_ort)
{
    /* ONNX Runtime adds delta to a running value: 0.1 added 3 times in float, not 3 * 0.1 */
    const float s = 0.0f, d = 0.1f;
    const int64_t si = 10, di = -3, wanti[4] = {10, 7, 4, 1};
    float out[4], v = 0.0f;
    int64_t outi[4];
    int i;
    lstmc_rt_range_params p = {LSTMC_RT_F32, 4};
    cr_assert_eq(lstmc_rt_range(&p, &s, &d, out), LSTMC_RT_OK);
    for (i = 0; i < 4; i++, v += 0.1f)
        cr_assert_eq(out[i], v, "element %d", i);
    p.dtype = LSTMC_RT_I64;
    cr_assert_eq(lstmc_rt_range(&p, &si, &di, outi), LSTMC_RT_OK);
    cr_assert_arr_eq(outi, wanti, sizeof wanti);
    p.n = -1;
    cr_assert_eq(lstmc_rt_range(&p, &si, &di, outi), LSTMC_RT_ERR_BAD_PARAMS);
}

Test(elt, cumsum_exclusive_reverse)
{
    /* [outer 1, len 4, inner 2]: columns (1,2,3,4) and (10,20,30,40) */
    const int32_t x[8] = {1, 10, 2, 20, 3, 30, 4, 40};
    static const int32_t incl[8] = {1, 10, 3, 30, 6, 60, 10, 100};
    static const int32_t excl[8] = {0, 0, 1, 10, 3, 30, 6, 60};
    static const int32_t rev[8] = {10, 100, 9, 90, 7, 70, 4, 40};
    static const int32_t rev_excl[8] = {9, 90, 7, 70, 4, 40, 0, 0};
    int32_t out[8];
    lstmc_rt_cumsum_params p = {LSTMC_RT_I32, 0, 0, 1, 4, 2};
    cr_assert_eq(lstmc_rt_cumsum(&p, x, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, incl, sizeof incl);
    p.exclusive = 1;
    cr_assert_eq(lstmc_rt_cumsum(&p, x, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, excl, sizeof excl);
    p.exclusive = 0, p.reverse = 1;
    cr_assert_eq(lstmc_rt_cumsum(&p, x, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, rev, sizeof rev);
    p.exclusive = 1;
    cr_assert_eq(lstmc_rt_cumsum(&p, x, out), LSTMC_RT_OK);
    cr_assert_arr_eq(out, rev_excl, sizeof rev_excl);
    p.len = INT64_MAX;
    cr_assert_eq(lstmc_rt_cumsum(&p, x, out), LSTMC_RT_ERR_BAD_PARAMS);
}

/* --- the shape rules ---------------------------------------------------------------------- */

static arena *A;
static diag *D;
static ir_graph *G;

static void
setup(void)
{
    A = arena_new(0);
    D = diag_new(A, "model.onnx", NULL);
    G = ir_graph_new(A, "g", "model.onnx");
}

static void
teardown(void)
{
    arena_free(A);
}

TestSuite(elt_shape, .init = setup, .fini = teardown);

static ir_shape
shp(int rank, int64_t d0, int64_t d1)
{
    ir_shape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    s.d[0] = d0, s.d[1] = d1;
    return s;
}

static ir_tensor *
tin(const char *name, ir_dtype dt, ir_shape s)
{
    ir_tensor *t = ir_tensor_new(G, name, dt, &s);
    ir_graph_add_input(G, t);
    return t;
}

static ir_tensor *
cst(ir_dtype dt, ir_shape s, const void *v)
{
    return ir_const_new(G, "c", dt, &s, v);
}

static ir_node *
mk(ir_op op, int n_in, ...)
{
    ir_node *n = ir_node_new(G, op, NULL, NULL, n_in, 1);
    va_list ap;
    int i;
    va_start(ap, n_in);
    for (i = 0; i < n_in; i++)
        n->inputs[i] = va_arg(ap, ir_tensor *);
    va_end(ap);
    ir_node_set_output(n, 0, ir_tensor_tmp(G, "out", IR_DT_UNDEF, NULL));
    return n;
}

static void
fails(ir_node *n, const char *want)
{
    cr_assert_eq(shape_infer_node(G, n, D), -1, "expected an error");
    cr_assert(strstr(diag_text(D), want), "expected error containing\n  %s\ngot\n  %s", want,
              diag_text(D));
}

static void
ok(ir_node *n, ir_dtype dt, ir_shape want)
{
    ir_tensor *o;
    char got[64], exp[64];
    cr_assert_eq(shape_infer_node(G, n, D), 0, "%s", diag_text(D));
    o = ir_out(n, 0);
    cr_assert_eq(o->dtype, dt);
    shape_fmt(&o->shape, got, sizeof got);
    shape_fmt(&want, exp, sizeof exp);
    cr_assert_str_eq(got, exp);
}

Test(elt_shape, comparisons_give_bool_and_broadcast)
{
    ok(mk(IR_OP_LESS, 2, tin("a", IR_DT_F32, shp(2, 3, 1)), tin("b", IR_DT_F32, shp(1, 4, 0))),
       IR_DT_BOOL, shp(2, 3, 4));
    fails(
        mk(IR_OP_GREATER, 2, tin("c", IR_DT_F32, shp(1, 4, 0)), tin("d", IR_DT_I64, shp(1, 4, 0))),
        "dtype");
    fails(mk(IR_OP_LESS, 2, tin("e", IR_DT_BOOL, shp(1, 4, 0)), tin("f", IR_DT_BOOL, shp(1, 4, 0))),
          "input 'A'");
}

Test(elt_shape, where_needs_a_bool_condition_and_one_value_dtype)
{
    ir_tensor *x = tin("x", IR_DT_F32, shp(1, 4, 0)), *y = tin("y", IR_DT_F32, shp(2, 3, 1));
    ok(mk(IR_OP_WHERE, 3, tin("c", IR_DT_BOOL, shp(2, 1, 4)), x, y), IR_DT_F32, shp(2, 3, 4));
    fails(mk(IR_OP_WHERE, 3, tin("cf", IR_DT_F32, shp(1, 4, 0)), x, x), "input 'condition'");
    fails(mk(IR_OP_WHERE, 3, tin("c2", IR_DT_BOOL, shp(1, 4, 0)), x,
             tin("yi", IR_DT_I64, shp(1, 4, 0))),
          "dtype");
    fails(mk(IR_OP_WHERE, 3, tin("c3", IR_DT_BOOL, shp(1, 5, 0)), x, x), "does not broadcast");
}

Test(elt_shape, tile_repeats)
{
    const int64_t r[2] = {2, 3}, r1[1] = {2}, neg[2] = {1, -1};
    ir_tensor *x = tin("x", IR_DT_F32, shp(2, 2, 5));
    ok(mk(IR_OP_TILE, 2, x, cst(IR_DT_I64, shp(1, 2, 0), r)), IR_DT_F32, shp(2, 4, 15));
    fails(mk(IR_OP_TILE, 2, x, cst(IR_DT_I64, shp(1, 1, 0), r1)),
          "input 'repeats' has 1 values; input 'input' has rank 2");
    fails(mk(IR_OP_TILE, 2, x, cst(IR_DT_I64, shp(1, 2, 0), neg)), "negative value");
    fails(mk(IR_OP_TILE, 2, x, tin("reps", IR_DT_I64, shp(1, 2, 0))),
          "shape operand 'repeats' (graph input 'reps') is not constant");
}

Test(elt_shape, range_length_and_refusals)
{
    const float s = 1.5f, l = -2.0f, d = -0.5f, z = 0.0f, big = 1e30f;
    const int64_t si = 0, li = 10, di = 3;
    ir_shape sc = shp(0, 0, 0);
    /* ceil((-2 - 1.5) / -0.5) = 7; ceil(10 / 3) = 4 */
    ok(mk(IR_OP_RANGE, 3, cst(IR_DT_F32, sc, &s), cst(IR_DT_F32, sc, &l), cst(IR_DT_F32, sc, &d)),
       IR_DT_F32, shp(1, 7, 0));
    ok(mk(IR_OP_RANGE, 3, cst(IR_DT_I64, sc, &si), cst(IR_DT_I64, sc, &li),
          cst(IR_DT_I64, sc, &di)),
       IR_DT_I64, shp(1, 4, 0));
    fails(
        mk(IR_OP_RANGE, 3, cst(IR_DT_F32, sc, &s), cst(IR_DT_F32, sc, &l), cst(IR_DT_F32, sc, &z)),
        "input 'delta' is 0");
    fails(mk(IR_OP_RANGE, 3, cst(IR_DT_F32, sc, &z), cst(IR_DT_F32, sc, &big),
             cst(IR_DT_F32, sc, &s)),
          "more than 2^31 elements");
    fails(mk(IR_OP_RANGE, 3, cst(IR_DT_I64, sc, &si), tin("n", IR_DT_I64, sc),
             cst(IR_DT_I64, sc, &di)),
          "shape operand 'limit' (graph input 'n') is not constant");
}

Test(elt_shape, cumsum_axis_and_clip_bounds)
{
    const int64_t ax = 2, ax1 = -1;
    const float b2[2] = {0, 1};
    ir_tensor *x = tin("x", IR_DT_F32, shp(2, 3, 4));
    ok(mk(IR_OP_CUMSUM, 2, x, cst(IR_DT_I64, shp(0, 0, 0), &ax1)), IR_DT_F32, shp(2, 3, 4));
    fails(mk(IR_OP_CUMSUM, 2, x, cst(IR_DT_I64, shp(0, 0, 0), &ax)), "input 'axis'");
    fails(mk(IR_OP_CUMSUM, 2, x, tin("a", IR_DT_I64, shp(0, 0, 0))),
          "shape operand 'axis' (graph input 'a')");
    fails(mk(IR_OP_CLIP, 3, x, cst(IR_DT_F32, shp(1, 2, 0), b2), NULL),
          "input 'min' has shape [2]; Clip's bounds are scalars");
}

Test(elt_shape, operand_traced_through_arithmetic_not_through_shape)
{
    /* Reshape(x, Shape(x)): dims only, named by nobody; Reshape(x, ids + 1): named with the
     * graph input 'ids' behind the Add */
    const int64_t one[2] = {1, 1};
    ir_tensor *x = tin("x", IR_DT_F32, shp(2, 3, 4));
    ir_node *add =
        mk(IR_OP_ADD, 2, tin("ids", IR_DT_I64, shp(1, 2, 0)), cst(IR_DT_I64, shp(1, 2, 0), one));
    cr_assert_eq(shape_infer_node(G, add, D), 0);
    fails(mk(IR_OP_RESHAPE, 2, x, ir_out(add, 0)), "computed from the values of graph input 'ids'");
}

Test(elt_shape, prelu_broadcasts_slope_to_x_only)
{
    ir_tensor *x = tin("x", IR_DT_F32, shp(2, 3, 4));
    ok(mk(IR_OP_PRELU, 2, x, tin("s", IR_DT_F32, shp(2, 3, 1))), IR_DT_F32, shp(2, 3, 4));
    ok(mk(IR_OP_PRELU, 2, x, tin("s1", IR_DT_F32, shp(1, 1, 0))), IR_DT_F32, shp(2, 3, 4));
    fails(
        mk(IR_OP_PRELU, 2, tin("x1", IR_DT_F32, shp(1, 4, 0)), tin("s2", IR_DT_F32, shp(2, 3, 4))),
        "input 'slope' [3,4] does not broadcast to input 'X' [4]");
    fails(mk(IR_OP_PRELU, 2, x, tin("si", IR_DT_I64, shp(1, 4, 0))), "dtype");
}

Test(elt_shape, min_max_sign_dtypes)
{
    ok(mk(IR_OP_MAX, 2, tin("a", IR_DT_I64, shp(2, 3, 1)), tin("b", IR_DT_I64, shp(1, 4, 0))),
       IR_DT_I64, shp(2, 3, 4));
    fails(mk(IR_OP_MIN, 2, tin("c", IR_DT_F32, shp(1, 4, 0)), tin("d", IR_DT_I64, shp(1, 4, 0))),
          "dtype");
    fails(mk(IR_OP_MIN, 2, tin("e", IR_DT_F32, shp(1, 4, 0)), tin("f", IR_DT_F32, shp(1, 5, 0))),
          "does not broadcast");
    ok(mk(IR_OP_SIGN, 1, tin("g", IR_DT_I32, shp(1, 4, 0))), IR_DT_I32, shp(1, 4, 0));
    fails(mk(IR_OP_FLOOR, 1, tin("h", IR_DT_I64, shp(1, 4, 0))), "input 'X'");
}
