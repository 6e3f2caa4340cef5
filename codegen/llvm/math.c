/*
 * math.c — the gate arithmetic of the LLVM kernels, inline (no libm call): the activations of
 * lstmc_rt_act and the clip of the gate pre-activations. The gate loops are scalar loops with
 * a constant trip count that LLVM's loop vectoriser turns into vector code:
 *   exp(x):   Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, a degree-6 polynomial for
 *             e^r (Cephes expf) and 2^n built in the exponent bits; x clamped to
 *             [-87.34, 88.38] so 2^n stays normal;
 *   sigmoid:  1 / (1 + exp(-x));
 *   tanh:     the odd/even [13/6] rational approximation used by Eigen and XLA on x clamped
 *             to [-7.9053, 7.9053] (tanh there is 1 to float precision).
 */
#include "llvm_impl.h"

#ifdef LSTMC_HAVE_LLVM

/* exp(x), float, no libm (see the top of the file). */
static LLVMValueRef
emit_exp(kg *g, LLVMValueRef x)
{
    LLVMValueRef fx, r, y, n, pow2n;

    x = sel(g, fgt(g, x, cf(g, 88.3762626647949)), cf(g, 88.3762626647949), x);
    x = sel(g, flt(g, x, cf(g, -87.3365478515625)), cf(g, -87.3365478515625), x);
    fx = fma_(g, g->f32, x, cf(g, 1.44269504088896341), cf(g, 0.5));
    if (g->floor_by_cvt) { /* |fx| < 2^31 here: floor = trunc, minus 1 if that rounded up */
        LLVMValueRef tr = LLVMBuildSIToFP(g->b, LLVMBuildFPToSI(g->b, fx, g->i32, ""), g->f32, "");
        fx = sel(g, fgt(g, tr, fx), fsub(g, tr, cf(g, 1.0)), tr);
    } else {
        fx = intrinsic(g, "llvm.floor", g->f32, &fx, 1);
    }
    r = fsub(g, x, fmul(g, fx, cf(g, 0.693359375)));
    r = fsub(g, r, fmul(g, fx, cf(g, -2.12194440e-4)));
    y = cf(g, 1.9875691500E-4);
    y = fma_(g, g->f32, y, r, cf(g, 1.3981999507E-3));
    y = fma_(g, g->f32, y, r, cf(g, 8.3334519073E-3));
    y = fma_(g, g->f32, y, r, cf(g, 4.1665795894E-2));
    y = fma_(g, g->f32, y, r, cf(g, 1.6666665459E-1));
    y = fma_(g, g->f32, y, r, cf(g, 5.0000001201E-1));
    y = fma_(g, g->f32, y, fmul(g, r, r), fadd(g, r, cf(g, 1.0)));
    n = LLVMBuildFPToSI(g->b, fx, g->i32, "");
    n = LLVMBuildShl(g->b, LLVMBuildAdd(g->b, n, LLVMConstInt(g->i32, 127, 0), ""),
                     LLVMConstInt(g->i32, 23, 0), "");
    pow2n = LLVMBuildBitCast(g->b, n, g->f32, "");
    return fmul(g, y, pow2n);
}

static LLVMValueRef
emit_sigmoid(kg *g, LLVMValueRef x)
{
    LLVMValueRef e = emit_exp(g, LLVMBuildFNeg(g->b, x, ""));
    return LLVMBuildFDiv(g->b, cf(g, 1.0), fadd(g, cf(g, 1.0), e), "");
}

static LLVMValueRef
emit_tanh(kg *g, LLVMValueRef x)
{
    static const double alpha[7] = {
        4.89352455891786e-03,  6.37261928875436e-04, 1.48572235717979e-05, 5.12229709037114e-08,
        -8.60467152213735e-11, 2.00018790482477e-13, -2.76076847742355e-16};
    static const double beta[4] = {4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04,
                                   1.19825839466702e-06};
    const double lim = 7.90531110763549805;
    LLVMValueRef x2, p, q;
    int k;

    x = sel(g, fgt(g, x, cf(g, lim)), cf(g, lim), x);
    x = sel(g, flt(g, x, cf(g, -lim)), cf(g, -lim), x);
    x2 = fmul(g, x, x);
    p = cf(g, alpha[6]);
    for (k = 5; k >= 0; k--)
        p = fma_(g, g->f32, p, x2, cf(g, alpha[k]));
    p = fmul(g, p, x);
    q = cf(g, beta[3]);
    for (k = 2; k >= 0; k--)
        q = fma_(g, g->f32, q, x2, cf(g, beta[k]));
    return LLVMBuildFDiv(g->b, p, q, "");
}

/* 1 when the LLVM kernels implement activation kind k. */
int
act_ok(int32_t k)
{
    return k >= LSTMC_RT_ACT_SIGMOID && k <= LSTMC_RT_ACT_SOFTSIGN;
}

/* lstmc_rt_act_apply, inline. */
LLVMValueRef
emit_act(kg *g, const lstmc_rt_act *a, LLVMValueRef x)
{
    LLVMValueRef zero = cf(g, 0.0), one = cf(g, 1.0), e;

    switch (a->kind) {
    case LSTMC_RT_ACT_SIGMOID:
        return emit_sigmoid(g, x);
    case LSTMC_RT_ACT_TANH:
        return emit_tanh(g, x);
    case LSTMC_RT_ACT_RELU:
        return sel(g, fgt(g, x, zero), x, zero);
    case LSTMC_RT_ACT_HARD_SIGMOID:
        e = fadd(g, fmul(g, cf(g, a->alpha), x), cf(g, a->beta));
        return sel(g, flt(g, e, zero), zero, sel(g, fgt(g, e, one), one, e));
    case LSTMC_RT_ACT_AFFINE:
        return fadd(g, fmul(g, cf(g, a->alpha), x), cf(g, a->beta));
    case LSTMC_RT_ACT_LEAKY_RELU:
        return sel(g, flt(g, x, zero), fmul(g, cf(g, a->alpha), x), x);
    case LSTMC_RT_ACT_THRESHOLDED_RELU:
        return sel(g, fgt(g, x, cf(g, a->alpha)), x, zero);
    case LSTMC_RT_ACT_SCALED_TANH:
        return fmul(g, cf(g, a->alpha), emit_tanh(g, fmul(g, cf(g, a->beta), x)));
    case LSTMC_RT_ACT_ELU:
        e = fmul(g, cf(g, a->alpha), fsub(g, emit_exp(g, x), one));
        return sel(g, LLVMBuildFCmp(g->b, LLVMRealOGE, x, zero, ""), x, e);
    case LSTMC_RT_ACT_SOFTSIGN:
        return LLVMBuildFDiv(g->b, x, fadd(g, one, intrinsic(g, "llvm.fabs", g->f32, &x, 1)), "");
    default:
        return x; /* not reached: act_ok */
    }
}

/* clip_pre of rt_rnn.c: bound a gate pre-activation to [-clip, clip] (NaN passes). */
LLVMValueRef
emit_clip(kg *g, const lstmc_rt_rnn_params *p, LLVMValueRef v)
{
    if (!p->has_clip)
        return v;
    v = sel(g, flt(g, v, cf(g, -p->clip)), cf(g, -p->clip), v);
    return sel(g, fgt(g, v, cf(g, p->clip)), cf(g, p->clip), v);
}

#endif /* LSTMC_HAVE_LLVM */
