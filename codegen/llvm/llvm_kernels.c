/*
 * llvm_kernels.c — CPU kernels of a kernel program as object code, built with the LLVM C
 * API (DESIGN.md step 6, issue 4): OUTDIR/<name>_kernels.o.
 *
 * For every call of the Arm paper's schedule A+ (§IV, Algorithm 2) that it can handle —
 * KP_RNN_PROJ (line 5, X' = G1 * I') and KP_RNN_REC (lines 6-17, the time loop over G2)
 * with packed weights — it emits a function <name>_k<call index> with exactly the C
 * signature of the runtime kernel it replaces (lstmc_rt_rnn_proj / lstmc_rt_rnn_rec), so the
 * host code only changes the name it calls. Every shape (T, N, I, H, D, layout, direction,
 * which optional buffers exist, the activations and their alpha/beta, clip) is a constant of
 * the IR; the params pointer is ignored. Calls it does not handle (unpacked weights, the
 * softplus activation, every other kernel kind) stay on the portable C runtime.
 *
 * The GEMM parts are register tiles written with explicit <VL x float> vectors:
 *   out[r][c .. c+NB*VL) = init + sum_k a[r][k] * B[k][c .. c+NB*VL)
 * with RB x NB accumulators (REC: 1 x 8, the recurrent product h * U for one step; PROJ:
 * 4 x 4, four rows of X at once), a vector tail and a scalar tail for the columns left.
 * The gate arithmetic is a scalar loop with a constant trip count that LLVM's loop vectoriser
 * turns into vector code: sigmoid and tanh are inline (no libm call):
 *   exp(x):   Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, a degree-6 polynomial for
 *             e^r (Cephes expf) and 2^n built in the exponent bits; x clamped to
 *             [-87.34, 88.38] so 2^n stays normal;
 *   sigmoid:  1 / (1 + exp(-x));
 *   tanh:     the odd/even [13/6] rational approximation used by Eigen and XLA on x clamped
 *             to [-7.9053, 7.9053] (tanh there is 1 to float precision).
 * The module is optimised with the new pass manager at O3 for the target's triple, CPU and
 * features and written as a position-independent ELF object.
 */
#include "codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "ir.h"
#include "kprog.h"
#include "target.h"

#ifdef LSTMC_HAVE_LLVM

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

/* --- generator state ----------------------------------------------------------------- */

typedef struct kg {
    LLVMContextRef cx;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMTypeRef f32, i32, i64, i1, ptr, vf; /* vf = <vl x float> */
    int vl;                                 /* floats per vector register of the target */
    int floor_by_cvt; /* 32-bit Arm: VFPv4 has no VRINTM, llvm.floor would call floorf */
    int prefetch;     /* 1: the target has data caches worth a software prefetch */
    int panels;       /* the call being emitted reads its U in column panels (rec_relayout) */
    int threads;      /* > 1: the call being emitted runs on this many threads (emit_rec_mt) */
    LLVMValueRef fn;
    LLVMBasicBlockRef alloca_bb; /* entry block: allocas only, branches to the body */
    LLVMBuilderRef ab;           /* positioned in alloca_bb */
    int wfmt;       /* the weights of the call being emitted (lstmc_rt_wfmt; issue 12) */
    int f16_native; /* fpext half -> float is an instruction (x86 F16C, AArch64) */
} kg;

static LLVMValueRef
ci(kg *g, int64_t v)
{
    return LLVMConstInt(g->i64, (unsigned long long)v, 1);
}

static LLVMValueRef
cf(kg *g, double v)
{
    return LLVMConstReal(g->f32, v);
}

static LLVMValueRef
entry_alloca(kg *g, LLVMTypeRef ty)
{
    return LLVMBuildAlloca(g->ab, ty, "");
}

/* base + i floats (base a ptr, i an i64 value). */
static LLVMValueRef
gepf(kg *g, LLVMValueRef base, LLVMValueRef i)
{
    return LLVMBuildInBoundsGEP2(g->b, g->f32, base, &i, 1, "");
}

static LLVMValueRef
gepc(kg *g, LLVMValueRef base, int64_t i)
{
    return i == 0 ? base : gepf(g, base, ci(g, i));
}

static LLVMValueRef
ldf(kg *g, LLVMValueRef p)
{
    return LLVMBuildLoad2(g->b, g->f32, p, "");
}

static void
stf(kg *g, LLVMValueRef v, LLVMValueRef p)
{
    LLVMBuildStore(g->b, v, p);
}

/* Load/store a value of type ty (float or <vl x float>) from a float pointer. */
static LLVMValueRef
ldt(kg *g, LLVMTypeRef ty, LLVMValueRef p)
{
    LLVMValueRef v = LLVMBuildLoad2(g->b, ty, p, "");
    LLVMSetAlignment(v, 4);
    return v;
}

static void
stt(kg *g, LLVMValueRef v, LLVMValueRef p)
{
    LLVMValueRef s = LLVMBuildStore(g->b, v, p);
    LLVMSetAlignment(s, 4);
}

static LLVMValueRef
add(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildAdd(g->b, a, b, "");
}

static LLVMValueRef
mul(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildMul(g->b, a, b, "");
}

static LLVMValueRef
fadd(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFAdd(g->b, a, b, "");
}

static LLVMValueRef
fsub(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFSub(g->b, a, b, "");
}

static LLVMValueRef
fmul(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFMul(g->b, a, b, "");
}

/* c ? a : b */
static LLVMValueRef
sel(kg *g, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(g->b, c, a, b, "");
}

static LLVMValueRef
flt(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFCmp(g->b, LLVMRealOLT, a, b, "");
}

static LLVMValueRef
fgt(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFCmp(g->b, LLVMRealOGT, a, b, "");
}

/* Call the overloaded intrinsic `name` at type ty. */
static LLVMValueRef
intrinsic(kg *g, const char *name, LLVMTypeRef ty, LLVMValueRef *args, unsigned n)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->m, id, &ty, 1);
    LLVMTypeRef ft = LLVMIntrinsicGetType(g->cx, id, &ty, 1);
    return LLVMBuildCall2(g->b, ft, f, args, n, "");
}

/* a * b + c, fused where the target has FMA (llvm.fmuladd). */
static LLVMValueRef
fma_(kg *g, LLVMTypeRef ty, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    LLVMValueRef args[3];
    args[0] = a;
    args[1] = b;
    args[2] = c;
    return intrinsic(g, "llvm.fmuladd", ty, args, 3);
}

/* --- loops --------------------------------------------------------------------------- */

/* A counted loop for (i = start; i < end; i++) whose counter lives in an entry alloca (SROA
 * turns it into a phi). The body is emitted between loop_begin and loop_end. */
typedef struct kloop {
    LLVMValueRef var, end, iv;
    LLVMBasicBlockRef cond, exit;
} kloop;

static LLVMValueRef
loop_begin(kg *g, kloop *l, LLVMValueRef start, LLVMValueRef end)
{
    LLVMBasicBlockRef body;
    l->var = entry_alloca(g, g->i64);
    l->end = end;
    LLVMBuildStore(g->b, start, l->var);
    l->cond = LLVMAppendBasicBlockInContext(g->cx, g->fn, "cond");
    body = LLVMAppendBasicBlockInContext(g->cx, g->fn, "body");
    l->exit = LLVMAppendBasicBlockInContext(g->cx, g->fn, "exit");
    LLVMBuildBr(g->b, l->cond);
    LLVMPositionBuilderAtEnd(g->b, l->cond);
    LLVMBuildCondBr(g->b,
                    LLVMBuildICmp(g->b, LLVMIntSLT, LLVMBuildLoad2(g->b, g->i64, l->var, ""),
                                  end, ""),
                    body, l->exit);
    LLVMPositionBuilderAtEnd(g->b, body);
    l->iv = LLVMBuildLoad2(g->b, g->i64, l->var, "");
    return l->iv;
}

static void
loop_end(kg *g, kloop *l)
{
    LLVMBuildStore(g->b, add(g, l->iv, ci(g, 1)), l->var);
    LLVMBuildBr(g->b, l->cond);
    LLVMPositionBuilderAtEnd(g->b, l->exit);
}

/* if (c) { ... }: the then-block ends in a return; returns the block to continue in. */
static LLVMBasicBlockRef
if_begin(kg *g, LLVMValueRef c)
{
    LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(g->cx, g->fn, "then");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "join");
    LLVMBuildCondBr(g->b, c, then, join);
    LLVMPositionBuilderAtEnd(g->b, then);
    return join;
}

/* --- math ---------------------------------------------------------------------------- */

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
    static const double alpha[7] = {4.89352455891786e-03, 6.37261928875436e-04,
                                    1.48572235717979e-05, 5.12229709037114e-08,
                                    -8.60467152213735e-11, 2.00018790482477e-13,
                                    -2.76076847742355e-16};
    static const double beta[4] = {4.89352518554385e-03, 2.26843463243900e-03,
                                   1.18534705686654e-04, 1.19825839466702e-06};
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
static int
act_ok(int32_t k)
{
    return k >= LSTMC_RT_ACT_SIGMOID && k <= LSTMC_RT_ACT_SOFTSIGN;
}

/* lstmc_rt_act_apply, inline. */
static LLVMValueRef
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
        return LLVMBuildFDiv(g->b, x,
                             fadd(g, one, intrinsic(g, "llvm.fabs", g->f32, &x, 1)), "");
    default:
        return x; /* not reached: act_ok */
    }
}

/* clip_pre of rt_rnn.c: bound a gate pre-activation to [-clip, clip] (NaN passes). */
static LLVMValueRef
emit_clip(kg *g, const lstmc_rt_rnn_params *p, LLVMValueRef v)
{
    if (!p->has_clip)
        return v;
    v = sel(g, flt(g, v, cf(g, -p->clip)), cf(g, -p->clip), v);
    return sel(g, fgt(g, v, cf(g, p->clip)), cf(g, p->clip), v);
}

/* --- register tiles ------------------------------------------------------------------ */

/*
 * out[r*ldo + c] = (init ? init[r*ldi + c] : 0) + sum_{k<K} a[r*lda + k] * b[k*ldb + c]
 * for r < rb and c < nv*w, where w is the vector width (1: scalar columns). The rb*nv
 * accumulators stay in registers across the k loop. pf > 0: each k also prefetches the cache
 * lines of the tile's row pf elements ahead (b read as one contiguous stream, a panel, with
 * pf a few rows of it; or row-major with pf a few rows of ldb).
 *
 * b holds the weights in the storage format g->wfmt (issue 12, docs/PRECISION.md; lstmc_rt.h
 * "reduced-precision weights"), ldb and pf counted in its elements. fp32 is loaded as it is;
 * otherwise each <w x i16> or <w x i8> load is widened to <w x float> right after it and the
 * accumulators stay float:
 *   fp16  bitcast to <w x half>, fpext (vcvtph2ps with F16C, fcvtl on AArch64); where that is
 *         no instruction (x86 without F16C, 32-bit Arm), the integer recipe of rt_lowp.c:
 *         (h & 0x7fff) << 13 read as a float times 2^112, the sign or-ed back (the compiler
 *         never stores inf or NaN, lowp.c);
 *   bf16  zext to i32, shl 16, bitcast;
 *   int8  sitofp of a <w x i8> load (vpmovsxbd + vcvtdq2ps); the tile sums a * q and
 *         multiplies by the column scales once at the end (scale: the tile's first column's,
 *         non-NULL exactly for int8): sum_k s*q_k*a_k = s * sum_k q_k*a_k.
 */
#define KG_MAX_ACC 64
#define KG_LINE 16 /* floats per 64-byte cache line */

/* llvm.prefetch(p, read, locality 3 = keep in all levels, data) */
static void
emit_prefetch(kg *g, LLVMValueRef p)
{
    LLVMValueRef args[4];
    args[0] = p;
    args[1] = LLVMConstInt(g->i32, 0, 0);
    args[2] = LLVMConstInt(g->i32, 3, 0);
    args[3] = LLVMConstInt(g->i32, 1, 0);
    intrinsic(g, "llvm.prefetch", g->ptr, args, 4);
}

static LLVMValueRef
gepb(kg *g, LLVMValueRef base, LLVMValueRef i)
{
    return LLVMBuildInBoundsGEP2(g->b, LLVMInt8TypeInContext(g->cx), base, &i, 1, "");
}

/* The constant v in every lane of a w-lane vector of ty (ty itself when w == 1). */
static LLVMValueRef
splat(LLVMTypeRef ty, LLVMValueRef v, int w)
{
    LLVMValueRef lanes[64];
    int i;
    (void)ty;
    if (w == 1)
        return v;
    for (i = 0; i < w; i++)
        lanes[i] = v;
    return LLVMConstVector(lanes, (unsigned)w);
}

/* w weights at byte address p, converted to float (a <w x float> vector, or a float). */
static LLVMValueRef
emit_load_cvt(kg *g, LLVMValueRef p, int w)
{
    LLVMTypeRef i8 = LLVMInt8TypeInContext(g->cx), i16 = LLVMInt16TypeInContext(g->cx);
    LLVMTypeRef ety = g->wfmt == LSTMC_RT_WFMT_INT8 ? i8 : i16;
    LLVMTypeRef ity = w > 1 ? LLVMVectorType(ety, (unsigned)w) : ety;
    LLVMTypeRef i32t = w > 1 ? LLVMVectorType(g->i32, (unsigned)w) : g->i32;
    LLVMTypeRef fty = w > 1 ? LLVMVectorType(g->f32, (unsigned)w) : g->f32;
    LLVMValueRef v = LLVMBuildLoad2(g->b, ity, p, ""), x, sign, f;

    LLVMSetAlignment(v, 1);
    switch (g->wfmt) {
    case LSTMC_RT_WFMT_INT8:
        return LLVMBuildSIToFP(g->b, v, fty, "");
    case LSTMC_RT_WFMT_BF16:
        x = LLVMBuildShl(g->b, LLVMBuildZExt(g->b, v, i32t, ""),
                         splat(i32t, LLVMConstInt(g->i32, 16, 0), w), "");
        return LLVMBuildBitCast(g->b, x, fty, "");
    default: /* fp16 */
        if (g->f16_native) {
            LLVMTypeRef h = LLVMHalfTypeInContext(g->cx);
            LLVMTypeRef hty = w > 1 ? LLVMVectorType(h, (unsigned)w) : h;
            return LLVMBuildFPExt(g->b, LLVMBuildBitCast(g->b, v, hty, ""), fty, "");
        }
        x = LLVMBuildZExt(g->b, v, i32t, "");
        sign = LLVMBuildShl(g->b,
                            LLVMBuildAnd(g->b, x, splat(i32t, LLVMConstInt(g->i32, 0x8000, 0), w),
                                         ""),
                            splat(i32t, LLVMConstInt(g->i32, 16, 0), w), "");
        x = LLVMBuildShl(g->b,
                         LLVMBuildAnd(g->b, x, splat(i32t, LLVMConstInt(g->i32, 0x7fff, 0), w),
                                      ""),
                         splat(i32t, LLVMConstInt(g->i32, 13, 0), w), "");
        f = fmul(g, LLVMBuildBitCast(g->b, x, fty, ""),
                 splat(fty, LLVMConstReal(g->f32, 5192296858534827628530496329220096.0), w));
        x = LLVMBuildOr(g->b, LLVMBuildBitCast(g->b, f, i32t, ""), sign, "");
        return LLVMBuildBitCast(g->b, x, fty, "");
    }
}

/* Where direction d's weights and scales are in a tensor of D x [K, GH] (lstmc_rt.h). */
static void
lowp_dir(kg *g, LLVMValueRef w, int64_t D, int64_t K, int64_t GH, int64_t d, LLVMValueRef *q,
         LLVMValueRef *scale)
{
    if (g->wfmt == LSTMC_RT_WFMT_INT8) {
        *scale = gepc(g, w, d * GH);
        *q = gepb(g, w, ci(g, 4 * D * GH + d * K * GH));
    } else {
        *scale = NULL;
        *q = gepb(g, w, ci(g, 2 * d * K * GH));
    }
}

/* Bytes per weight of storage format f (lstmc_rt_wfmt). */
static int64_t
wfmt_bytes(int f)
{
    return f == LSTMC_RT_WFMT_INT8 ? 1 : f ? 2 : 4;
}

/* base + i weights of g->wfmt (i an i64 value) */
static LLVMValueRef
gepw(kg *g, LLVMValueRef base, LLVMValueRef i)
{
    const int64_t es = wfmt_bytes(g->wfmt);
    if (!g->wfmt)
        return gepf(g, base, i);
    return gepb(g, base, es == 1 ? i : mul(g, i, ci(g, es)));
}

static LLVMValueRef
gepwc(kg *g, LLVMValueRef base, int64_t i)
{
    return i == 0 ? base : gepw(g, base, ci(g, i));
}

/* w weights of g->wfmt at p as floats (a <w x float>, or a float for w == 1). */
static LLVMValueRef
ldw(kg *g, LLVMValueRef p, int w)
{
    return g->wfmt ? emit_load_cvt(g, p, w) : ldt(g, w == 1 ? g->f32 : g->vf, p);
}

static void
emit_tile(kg *g, LLVMValueRef a, int64_t lda, LLVMValueRef b, int64_t ldb, int64_t K,
          LLVMValueRef init, int64_t ldi, LLVMValueRef out, int64_t ldo, int rb, int nv, int w,
          int64_t pf, LLVMValueRef scale)
{
    LLVMTypeRef ty = w == 1 ? g->f32 : g->vf;
    const int64_t line = KG_LINE * 4 / wfmt_bytes(g->wfmt); /* elements per cache line */
    LLVMValueRef acc[KG_MAX_ACC], bv[KG_MAX_ACC], k, brow;
    kloop lk;
    int r, v;

    for (r = 0; r < rb; r++)
        for (v = 0; v < nv; v++) {
            LLVMValueRef x0 = init && !scale ? ldt(g, ty, gepc(g, init, r * ldi + v * w))
                                             : LLVMConstNull(ty);
            acc[r * nv + v] = entry_alloca(g, ty);
            LLVMBuildStore(g->b, x0, acc[r * nv + v]);
        }
    k = loop_begin(g, &lk, ci(g, 0), ci(g, K));
    brow = gepw(g, b, mul(g, k, ci(g, ldb)));
    if (pf > 0) {
        int64_t off;
        for (off = 0; off < (int64_t)nv * w; off += line)
            emit_prefetch(g, gepwc(g, brow, pf + off));
    }
    for (v = 0; v < nv; v++) /* reduced precision: loaded and widened once for the rb rows
                                (fp32 loads in the row loop, which LLVM merges, as before) */
        bv[v] = g->wfmt ? ldw(g, gepwc(g, brow, (int64_t)v * w), w) : NULL;
    for (r = 0; r < rb; r++) {
        LLVMValueRef s = ldf(g, gepf(g, gepc(g, a, r * lda), k));
        if (w > 1) {
            LLVMValueRef vec = LLVMBuildInsertElement(g->b, LLVMGetPoison(g->vf), s,
                                                      LLVMConstInt(g->i32, 0, 0), "");
            s = LLVMBuildShuffleVector(g->b, vec, LLVMGetPoison(g->vf),
                                       LLVMConstNull(LLVMVectorType(g->i32, (unsigned)w)), "");
        }
        for (v = 0; v < nv; v++) {
            LLVMValueRef bk = bv[v] ? bv[v] : ldw(g, gepwc(g, brow, (int64_t)v * w), w);
            LLVMValueRef cur = LLVMBuildLoad2(g->b, ty, acc[r * nv + v], "");
            LLVMBuildStore(g->b, fma_(g, ty, s, bk, cur), acc[r * nv + v]);
        }
    }
    loop_end(g, &lk);
    for (r = 0; r < rb; r++)
        for (v = 0; v < nv; v++) {
            LLVMValueRef x = LLVMBuildLoad2(g->b, ty, acc[r * nv + v], "");
            if (scale) {
                LLVMValueRef sv = ldt(g, ty, gepc(g, scale, v * w));
                x = init ? fma_(g, ty, sv, x, ldt(g, ty, gepc(g, init, r * ldi + v * w)))
                         : fmul(g, sv, x);
            }
            stt(g, x, gepc(g, out, r * ldo + v * w));
        }
}

/* One column segment: columns [col, col + nv*w) (col an i64 value). */
typedef void (*seg_fn)(kg *g, LLVMValueRef col, int nv, int w, void *ctx);

/* Cover columns [0, ncols) with tiles of nb vectors: a loop over the full tiles, then one
 * tile of the vectors left, then one of the scalar columns left. */
static void
for_col_segments(kg *g, int64_t ncols, int nb, seg_fn fn, void *ctx)
{
    const int64_t tw = (int64_t)nb * g->vl, nfull = ncols / tw;
    int64_t col0 = nfull * tw;
    int nv, ns;

    if (nfull == 1) {
        fn(g, ci(g, 0), nb, g->vl, ctx);
    } else if (nfull > 1) {
        kloop l;
        LLVMValueRef t = loop_begin(g, &l, ci(g, 0), ci(g, nfull));
        fn(g, mul(g, t, ci(g, tw)), nb, g->vl, ctx);
        loop_end(g, &l);
    }
    nv = (int)((ncols - col0) / g->vl);
    if (nv > 0) {
        fn(g, ci(g, col0), nv, g->vl, ctx);
        col0 += (int64_t)nv * g->vl;
    }
    ns = (int)(ncols - col0);
    while (ns > 0) { /* scalar columns, at most KG_MAX_ACC per tile */
        int n = ns > 8 ? 8 : ns;
        fn(g, ci(g, col0), n, 1, ctx);
        col0 += n;
        ns -= n;
    }
}

/* --- KP_RNN_PROJ --------------------------------------------------------------------- */

#define PROJ_RB 4 /* rows of X per tile */
#define PROJ_NB 4 /* vectors of columns per tile */

/* Rows of X and vectors of columns per projection tile. With reduced-precision W on
 * AVX-512 (32 registers) the tile is 8 x 3: each widened vector of W (two uops, vpmovsxbd +
 * vcvtdq2ps for int8) then feeds 8 FMAs instead of 4, and 24 accumulators + 3 weights + a
 * broadcast still fit the registers. */
static int
proj_rb(int wfmt, int vl)
{
    return wfmt && vl >= 16 ? 8 : PROJ_RB;
}

static int
proj_nb(int wfmt, int vl)
{
    return wfmt && vl >= 16 ? 3 : PROJ_NB;
}
#define REC_NB 8  /* vectors of columns per tile of the recurrent product */

typedef struct proj_ctx {
    int64_t rows, I, GH;
    LLVMValueRef X, wd, bd, Pd;
    int panels; /* 1: wd is this column range's W in panels (rec_relayout), 0: [I, GH] */
    LLVMValueRef scale; /* int8 (g->wfmt): the direction's column scales; read for int8 only
                           (the multi-thread projection, 1-thread for reduced precision, leaves
                           it unset) */
} proj_ctx;

/* Prefetch distance of the input projection's panels, in panel rows (as REC_PF_ROWS). */
#define PROJ_PF_ROWS 8

static void
proj_seg(kg *g, LLVMValueRef col, int nv, int w, void *vctx)
{
    const proj_ctx *c = vctx;
    const int rb = proj_rb(g->wfmt, g->vl);
    const int64_t nblk = c->rows / rb, rem = c->rows % rb;
    /* in panels this segment's I x nv*w block starts at I*col, read as one stream */
    const int64_t ldw = c->panels ? (int64_t)nv * w : c->GH;
    const int64_t pf = c->panels && !g->wfmt && g->prefetch ? (int64_t)PROJ_PF_ROWS * nv * w : 0;
    LLVMValueRef wcol = gepw(g, c->wd, c->panels ? mul(g, col, ci(g, c->I)) : col);
    LLVMValueRef bcol = c->bd ? gepf(g, c->bd, col) : NULL;
    LLVMValueRef pcol = gepf(g, c->Pd, col);
    LLVMValueRef scol = g->wfmt == LSTMC_RT_WFMT_INT8 ? gepf(g, c->scale, col) : NULL;

    if (nblk > 0) {
        kloop l;
        LLVMValueRef r = mul(g, loop_begin(g, &l, ci(g, 0), ci(g, nblk)), ci(g, rb));
        emit_tile(g, gepf(g, c->X, mul(g, r, ci(g, c->I))), c->I, wcol, ldw, c->I, bcol, 0,
                  gepf(g, pcol, mul(g, r, ci(g, c->GH))), c->GH, rb, nv, w, pf, scol);
        loop_end(g, &l);
    }
    if (rem > 0) {
        int64_t r = c->rows - rem;
        emit_tile(g, gepc(g, c->X, r * c->I), c->I, wcol, ldw, c->I, bcol, 0,
                  gepc(g, pcol, r * c->GH), c->GH, (int)rem, nv, w, pf, scol);
    }
}

static int64_t
cell_gates(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 4 : cell == LSTMC_RT_CELL_GRU ? 3 : 1;
}

/* lstmc_rt_rnn_proj(p, X, w, b, P) for packed weights: P[d][r] = b[d] + X[r] * Wt[d]
 * (lstmc_rt_rnn_proj_<fmt> for weights in a reduced-precision g->wfmt). */
static void
emit_proj(kg *g, const kp_call *c)
{
    const lstmc_rt_rnn_proj_params *p = &c->p.proj;
    const int64_t GH = cell_gates(p->cell) * p->hidden, I = p->input_size;
    LLVMValueRef X = LLVMGetParam(g->fn, 1), w = LLVMGetParam(g->fn, 2);
    LLVMValueRef b = LLVMGetParam(g->fn, 3), P = LLVMGetParam(g->fn, 4);
    int32_t d;

    for (d = 0; d < p->n_dirs; d++) {
        proj_ctx pc;
        pc.rows = p->rows;
        pc.I = I;
        pc.GH = GH;
        pc.X = X;
        pc.panels = g->panels;
        pc.wd = gepc(g, w, d * I * GH);
        pc.scale = NULL;
        if (g->wfmt)
            lowp_dir(g, w, p->n_dirs, I, GH, d, &pc.wd, &pc.scale);
        pc.bd = c->in[2] ? gepc(g, b, d * GH) : NULL;
        pc.Pd = gepc(g, P, d * p->rows * GH);
        for_col_segments(g, GH, proj_nb(g->wfmt, g->vl), proj_seg, &pc);
    }
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
}

/* --- KP_RNN_REC ---------------------------------------------------------------------- */

/* Per-direction values of one lstmc_rt_rnn_rec. */
typedef struct rec_ctx {
    const lstmc_rt_rnn_params *p;
    const lstmc_rt_act *act; /* this direction's activations */
    int64_t H, GH;
    LLVMValueRef Rt;   /* [H, GH] in g->wfmt */
    LLVMValueRef scale; /* int8: the direction's GH column scales, else NULL */
    LLVMValueRef peep; /* [3H] or NULL */
    LLVMValueRef rbh;  /* [H] or NULL */
    LLVMValueRef h, c, gates, tmp; /* scratch */
    /* gemv segment: out[c] = init[c] + sum_k a[k] * b[k*ldb + c] */
    LLVMValueRef sa, sb, sinit, sout, sscale;
    int64_t sldb;
    int panels; /* 1: Rt is in column panels (rec_relayout), 0: row-major [H, GH] */
} rec_ctx;

/* Prefetch distance of the recurrent product's panels, in panel rows: far enough ahead to
 * cover the L3 latency (~100 ns at the 8 cycles a 128-column row of FMAs takes), near enough
 * that the lines are still in L1 when the FMAs get to them. */
#define REC_PF_ROWS 8

static void
gemv_seg(kg *g, LLVMValueRef col, int nv, int w, void *vctx)
{
    const rec_ctx *c = vctx;
    LLVMValueRef scol = c->sscale ? gepf(g, c->sscale, col) : NULL;
    if (c->panels) /* this segment's H x nv*w panel starts at H*col */
        emit_tile(g, c->sa, 0, gepw(g, c->sb, mul(g, col, ci(g, c->H))), (int64_t)nv * w, c->H,
                  c->sinit ? gepf(g, c->sinit, col) : NULL, 0, gepf(g, c->sout, col), 0, 1, nv,
                  w, g->prefetch ? (int64_t)REC_PF_ROWS * nv * w : 0, scol);
    else /* row-major: the reduced-precision tiles prefetch REC_PF_ROWS rows (pages) ahead */
        emit_tile(g, c->sa, 0, gepw(g, c->sb, col), c->sldb, c->H,
                  c->sinit ? gepf(g, c->sinit, col) : NULL, 0, gepf(g, c->sout, col), 0, 1, nv,
                  w, g->wfmt && g->prefetch ? REC_PF_ROWS * c->sldb : 0, scol);
}

/* out[0..n) = (init ? init : 0) + a[0..H) * Rt[:, col0 .. col0+n) */
static void
emit_gemv(kg *g, rec_ctx *c, LLVMValueRef a, int64_t col0, int64_t n, LLVMValueRef init,
          LLVMValueRef out)
{
    c->sa = a;
    c->sb = gepwc(g, c->Rt, c->panels ? c->H * col0 : col0);
    c->sscale = c->scale ? gepc(g, c->scale, col0) : NULL;
    c->sldb = c->GH;
    c->sinit = init;
    c->sout = out;
    for_col_segments(g, n, REC_NB, gemv_seg, c);
}

/* lstm_update of units [j0, j1) from the pre-activations in c->gates: c->c in place, the new
 * h to hn and y (this step's Y row, or NULL). */
static void
emit_lstm_units(kg *g, rec_ctx *c, int64_t j0, int64_t j1, LLVMValueRef hn, LLVMValueRef y)
{
    const lstmc_rt_rnn_params *p = c->p;
    const int64_t H = c->H;
    LLVMValueRef j, pi, po, pf, pc, cj, it, ft, ct, cn, ot, hj;
    kloop l;

    j = loop_begin(g, &l, ci(g, j0), ci(g, j1));
    pi = ldf(g, gepf(g, c->gates, j));
    po = ldf(g, gepf(g, gepc(g, c->gates, H), j));
    pf = ldf(g, gepf(g, gepc(g, c->gates, 2 * H), j));
    pc = ldf(g, gepf(g, gepc(g, c->gates, 3 * H), j));
    cj = ldf(g, gepf(g, c->c, j));
    if (c->peep) {
        pi = fadd(g, pi, fmul(g, ldf(g, gepf(g, c->peep, j)), cj));
        pf = fadd(g, pf, fmul(g, ldf(g, gepf(g, gepc(g, c->peep, 2 * H), j)), cj));
    }
    it = emit_act(g, &c->act[0], emit_clip(g, p, pi));
    ft = p->input_forget ? fsub(g, cf(g, 1.0), it) : emit_act(g, &c->act[0], emit_clip(g, p, pf));
    ct = emit_act(g, &c->act[1], emit_clip(g, p, pc));
    cn = fadd(g, fmul(g, ft, cj), fmul(g, it, ct));
    if (c->peep) /* the output gate's peephole sees the new cell state */
        po = fadd(g, po, fmul(g, ldf(g, gepf(g, gepc(g, c->peep, H), j)), cn));
    ot = emit_act(g, &c->act[0], emit_clip(g, p, po));
    hj = fmul(g, ot, emit_act(g, &c->act[2], cn));
    stf(g, cn, gepf(g, c->c, j));
    stf(g, hj, gepf(g, hn, j));
    if (y)
        stf(g, hj, gepf(g, y, j));
    loop_end(g, &l);
}

/* One LSTM step (rt_rnn.c lstm_rec_step + lstm_update); y = this step's Y row or NULL. */
static void
emit_lstm_step(kg *g, rec_ctx *c, LLVMValueRef x, LLVMValueRef y)
{
    emit_gemv(g, c, c->h, 0, 4 * c->H, x, c->gates);
    emit_lstm_units(g, c, 0, c->H, c->h, y);
}

/* One GRU step (rt_rnn.c gru_rec_step). */
static void
emit_gru_step(kg *g, rec_ctx *c, LLVMValueRef x, LLVMValueRef y)
{
    const lstmc_rt_rnn_params *p = c->p;
    const int64_t H = c->H;
    LLVMValueRef j, z, hh, ht, hj, hp;
    LLVMValueRef zg = c->gates, rg = gepc(g, c->gates, H), hg = gepc(g, c->gates, 2 * H);
    kloop l;

    emit_gemv(g, c, c->h, 0, 2 * H, x, c->gates);
    j = loop_begin(g, &l, ci(g, 0), ci(g, H));
    stf(g, emit_act(g, &c->act[0], emit_clip(g, p, ldf(g, gepf(g, zg, j)))), gepf(g, zg, j));
    stf(g, emit_act(g, &c->act[0], emit_clip(g, p, ldf(g, gepf(g, rg, j)))), gepf(g, rg, j));
    loop_end(g, &l);
    if (p->linear_before_reset) {
        /* ht pre-activation = (Xt*Wh^T + Wbh) + rt.(Ht-1*Rh^T + Rbh) */
        emit_gemv(g, c, c->h, 2 * H, H, NULL, c->tmp);
        j = loop_begin(g, &l, ci(g, 0), ci(g, H));
        hh = ldf(g, gepf(g, c->tmp, j));
        if (c->rbh)
            hh = fadd(g, hh, ldf(g, gepf(g, c->rbh, j)));
        hh = fadd(g, ldf(g, gepf(g, gepc(g, x, 2 * H), j)),
                  fmul(g, ldf(g, gepf(g, rg, j)), hh));
        stf(g, hh, gepf(g, hg, j));
        loop_end(g, &l);
    } else {
        /* ht pre-activation = (Xt*Wh^T + Wbh + Rbh) + (rt.Ht-1)*Rh^T */
        j = loop_begin(g, &l, ci(g, 0), ci(g, H));
        stf(g, fmul(g, ldf(g, gepf(g, rg, j)), ldf(g, gepf(g, c->h, j))), gepf(g, c->tmp, j));
        loop_end(g, &l);
        emit_gemv(g, c, c->tmp, 2 * H, H, gepc(g, x, 2 * H), hg);
    }
    j = loop_begin(g, &l, ci(g, 0), ci(g, H));
    ht = emit_act(g, &c->act[1], emit_clip(g, p, ldf(g, gepf(g, hg, j))));
    z = ldf(g, gepf(g, zg, j));
    hp = ldf(g, gepf(g, c->h, j));
    hj = fadd(g, fmul(g, fsub(g, cf(g, 1.0), z), ht), fmul(g, z, hp));
    stf(g, hj, gepf(g, c->h, j));
    if (y)
        stf(g, hj, gepf(g, y, j));
    loop_end(g, &l);
}

/* One RNN step (rt_rnn.c rnn_rec_step). */
static void
emit_rnn_step(kg *g, rec_ctx *c, LLVMValueRef x, LLVMValueRef y)
{
    LLVMValueRef j, hj;
    kloop l;

    emit_gemv(g, c, c->h, 0, c->H, x, c->gates);
    j = loop_begin(g, &l, ci(g, 0), ci(g, c->H));
    hj = emit_act(g, &c->act[0], emit_clip(g, c->p, ldf(g, gepf(g, c->gates, j))));
    stf(g, hj, gepf(g, c->h, j));
    if (y)
        stf(g, hj, gepf(g, y, j));
    loop_end(g, &l);
}

/* dst[0..n) = src ? src[0..n) : 0, optionally zeroed where zero (an i1) holds. */
static void
emit_copy(kg *g, LLVMValueRef dst, LLVMValueRef src, int64_t n, LLVMValueRef zero)
{
    kloop l;
    LLVMValueRef j = loop_begin(g, &l, ci(g, 0), ci(g, n)), v;

    v = src ? ldf(g, gepf(g, src, j)) : cf(g, 0.0);
    if (zero)
        v = sel(g, zero, cf(g, 0.0), v);
    stf(g, v, gepf(g, dst, j));
    loop_end(g, &l);
}

/* Return LSTMC_RT_ERR_SEQ_LEN unless every entry of sl[0..N) is in [0, T], before anything
 * is written. */
static void
emit_seq_len_check(kg *g, LLVMValueRef sl, int64_t N, int64_t T)
{
    kloop l;
    LLVMValueRef n = loop_begin(g, &l, ci(g, 0), ci(g, N)), s, bad;
    LLVMBasicBlockRef join;
    s = LLVMBuildLoad2(g->b, g->i32, LLVMBuildInBoundsGEP2(g->b, g->i32, sl, &n, 1, ""), "");
    bad = LLVMBuildOr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, s, LLVMConstInt(g->i32, 0, 0), ""),
                      LLVMBuildICmp(g->b, LLVMIntSGT, s,
                                    LLVMConstInt(g->i32, (unsigned long long)T, 0), ""),
                      "");
    join = if_begin(g, bad);
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_ERR_SEQ_LEN, 0));
    LLVMPositionBuilderAtEnd(g->b, join);
    loop_end(g, &l);
}

/* lstmc_rt_rnn_rec(p, P, r, rb, seq_lens, init_h, init_c, Peep, Y, Y_h, Y_c, scratch)
 * with packed weights: rt_rnn.c run_direction, every shape a constant. */
static void
emit_rec(kg *g, const kp_call *kc)
{
    const lstmc_rt_rnn_params *p = &kc->p.rnn;
    const int64_t T = p->seq_len, N = p->batch, H = p->hidden, G = cell_gates(p->cell);
    const int64_t GH = G * H, D = p->n_dirs, rows = T * N;
    const int nacts = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    LLVMValueRef P = LLVMGetParam(g->fn, 1), r = LLVMGetParam(g->fn, 2);
    LLVMValueRef rb = LLVMGetParam(g->fn, 3), sl = LLVMGetParam(g->fn, 4);
    LLVMValueRef init_h = kc->in[4] ? LLVMGetParam(g->fn, 5) : NULL;
    LLVMValueRef init_c = kc->in[5] && p->cell == LSTMC_RT_CELL_LSTM ? LLVMGetParam(g->fn, 6)
                                                                     : NULL;
    LLVMValueRef Peep = kc->in[6] && p->cell == LSTMC_RT_CELL_LSTM ? LLVMGetParam(g->fn, 7)
                                                                   : NULL;
    LLVMValueRef Y = kc->out[0] ? LLVMGetParam(g->fn, 8) : NULL;
    LLVMValueRef Y_h = kc->out[1] ? LLVMGetParam(g->fn, 9) : NULL;
    LLVMValueRef Y_c = kc->out[2] && p->cell == LSTMC_RT_CELL_LSTM ? LLVMGetParam(g->fn, 10)
                                                                   : NULL;
    LLVMValueRef scratch = LLVMGetParam(g->fn, 11);
    int has_sl = kc->in[3] != NULL;
    int32_t d;

    if (N == 0) {
        LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
        return;
    }
    if (has_sl)
        emit_seq_len_check(g, sl, N, T);
    for (d = 0; d < D; d++) {
        const int rev = D == 2 ? d : p->reverse;
        LLVMValueRef Pp = gepc(g, P, d * rows * GH), n, s, st, t, x, y, s0, row;
        rec_ctx c;
        kloop ln, ls, lz;

        memset(&c, 0, sizeof c);
        c.p = p;
        c.act = &p->act[d * nacts];
        c.H = H;
        c.GH = GH;
        c.Rt = gepc(g, r, d * H * GH);
        if (g->wfmt) /* U in a reduced-precision format (issue 12) */
            lowp_dir(g, r, D, H, GH, d, &c.Rt, &c.scale);
        c.peep = Peep ? gepc(g, Peep, d * 3 * H) : NULL;
        c.rbh = kc->in[2] && p->cell == LSTMC_RT_CELL_GRU && p->linear_before_reset
                    ? gepc(g, rb, d * H)
                    : NULL;
        c.h = scratch;
        c.c = gepc(g, scratch, H);
        c.gates = gepc(g, scratch, 2 * H);
        c.tmp = gepc(g, scratch, (2 + G) * H);
        c.panels = g->panels;

        n = loop_begin(g, &ln, ci(g, 0), ci(g, N));
        if (has_sl)
            s = LLVMBuildSExt(g->b,
                              LLVMBuildLoad2(g->b, g->i32,
                                             LLVMBuildInBoundsGEP2(g->b, g->i32, sl, &n, 1, ""),
                                             ""),
                              g->i64, "");
        else
            s = ci(g, T);
        /* state_at: [D,N,H] or [N,D,H] */
        st = mul(g, p->layout ? add(g, mul(g, n, ci(g, D)), ci(g, d))
                              : add(g, ci(g, d * N), n),
                 ci(g, H));
        emit_copy(g, c.h, init_h ? gepf(g, init_h, st) : NULL, H, NULL);
        if (p->cell == LSTMC_RT_CELL_LSTM)
            emit_copy(g, c.c, init_c ? gepf(g, init_c, st) : NULL, H, NULL);

        /* steps: t = rev ? s-1-step : step */
        t = loop_begin(g, &ls, ci(g, 0), s);
        if (rev)
            t = LLVMBuildSub(g->b, LLVMBuildSub(g->b, s, ci(g, 1), ""), t, "");
        row = p->layout ? add(g, mul(g, n, ci(g, T)), t) : add(g, mul(g, t, ci(g, N)), n);
        x = gepf(g, Pp, mul(g, row, ci(g, GH)));
        /* y_at: layout 0 [T,D,N,H], layout 1 [N,T,D,H] */
        y = NULL;
        if (Y)
            y = gepf(g, Y,
                     mul(g,
                         p->layout ? add(g, mul(g, row, ci(g, D)), ci(g, d))
                                   : add(g, mul(g, add(g, mul(g, t, ci(g, D)), ci(g, d)),
                                                ci(g, N)),
                                         n),
                         ci(g, H)));
        if (p->cell == LSTMC_RT_CELL_LSTM)
            emit_lstm_step(g, &c, x, y);
        else if (p->cell == LSTMC_RT_CELL_GRU)
            emit_gru_step(g, &c, x, y);
        else
            emit_rnn_step(g, &c, x, y);
        loop_end(g, &ls);

        if (Y && has_sl) { /* rows t >= s are zero */
            t = loop_begin(g, &lz, s, ci(g, T));
            row = p->layout ? add(g, mul(g, n, ci(g, T)), t) : add(g, mul(g, t, ci(g, N)), n);
            y = gepf(g, Y,
                     mul(g,
                         p->layout ? add(g, mul(g, row, ci(g, D)), ci(g, d))
                                   : add(g, mul(g, add(g, mul(g, t, ci(g, D)), ci(g, d)),
                                                ci(g, N)),
                                         n),
                         ci(g, H)));
            emit_copy(g, y, NULL, H, NULL);
            loop_end(g, &lz);
        }
        /* Y_h / Y_c: the state at the sequence's own end, zero when s == 0 */
        s0 = has_sl ? LLVMBuildICmp(g->b, LLVMIntEQ, s, ci(g, 0), "") : NULL;
        if (Y_h)
            emit_copy(g, gepf(g, Y_h, st), c.h, H, s0);
        if (Y_c)
            emit_copy(g, gepf(g, Y_c, st), c.c, H, s0);
        loop_end(g, &ln);
    }
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
}

/* --- KP_RNN_REC on several cores (LSTM) --------------------------------------------------- */

/*
 * The time loop of an LSTM layer split across nt threads of the runtime pool (rt_pool.c):
 * slice t owns the hidden units [j0, j1) (mt_slice) and, at every step, computes the four
 * gate columns of its units (h * U[:, q*H + j0 .. q*H + j1) for each gate q, the rows of U
 * it reads are the same at every step: they stay in its core's L2), updates c and h of its
 * units and meets the others at lstmc_rt_pool_barrier. h is double-buffered (the scratch's
 * h and tmp: step i reads one and writes the other), so the slices of a step never wait for
 * each other inside it and may also run one after the other on one thread, which is what
 * lstmc_rt_pool_run does when the pool has fewer threads (bare metal, pthread_create failed).
 *   <name>_k<i>(the rnn_rec arguments): checks seq_lens, then
 *       lstmc_rt_pool_run(<name>_k<i>_w, the arguments, nt)
 *   <name>_k<i>_w(args, first, end): slices [first, end).
 * U is in panels cut by the slices (rec_ranges), so each thread's part is contiguous.
 */
#define MT_MAX 16 /* threads at most (LSTMC_RT_MAX_THREADS of the default runtime) */

static LLVMValueRef drs_y_at(kg *g, const lstmc_rt_rnn_params *p, LLVMValueRef t, int32_t d,
                             LLVMValueRef n);

/* Units (or columns) [j0, j1) of slice t of nt: cut at multiples of vl (a vector width, a
 * tile) when every slice then gets at least two of them, else at single units. */
static void
mt_slice(int64_t H, int nt, int vl, int t, int64_t *j0, int64_t *j1)
{
    const int64_t al = H >= 2LL * nt * vl ? vl : 1;
    *j0 = H * t / nt / al * al;
    *j1 = t + 1 == nt ? H : H * (t + 1) / nt / al * al;
}

/* if (first <= t && t < end) { ...: returns the block after it */
static LLVMBasicBlockRef
slice_begin(kg *g, LLVMValueRef first, LLVMValueRef end, int t)
{
    LLVMValueRef tv = LLVMConstInt(g->i32, (unsigned long long)t, 0);
    return if_begin(g, LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntSLE, first, tv, ""),
                                    LLVMBuildICmp(g->b, LLVMIntSLT, tv, end, ""), ""));
}

static void
slice_end(kg *g, LLVMBasicBlockRef join)
{
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
}

static void
emit_barrier(kg *g)
{
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(g->cx), NULL, 0, 0);
    LLVMValueRef f = LLVMGetNamedFunction(g->m, "lstmc_rt_pool_barrier");
    if (!f)
        f = LLVMAddFunction(g->m, "lstmc_rt_pool_barrier", fty);
    LLVMBuildCall2(g->b, fty, f, NULL, 0, "");
}

/* dst[j0..j1) = src ? src[j0..j1) : 0, zeroed where zero (an i1) holds. */
static void
emit_copy_units(kg *g, LLVMValueRef dst, LLVMValueRef src, int64_t j0, int64_t j1,
                LLVMValueRef zero)
{
    emit_copy(g, gepc(g, dst, j0), src ? gepc(g, src, j0) : NULL, j1 - j0, zero);
}

/* The slices of a multi-core kernel: a = its arguments, slices [first, end) (i32). */
typedef void (*mt_body_fn)(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a,
                           LLVMValueRef first, LLVMValueRef end);

/* The body of <name>_k<i>_w (g->fn): params (args, first, end). */
static void
emit_rec_mt_body(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a, LLVMValueRef first,
                 LLVMValueRef end)
{
    const lstmc_rt_rnn_params *p = &kc->p.rnn;
    const int64_t T = p->seq_len, N = p->batch, H = p->hidden, GH = 4 * H, D = p->n_dirs;
    LLVMValueRef P, r, sl, init_h, init_c, Peep, Y, Y_h, Y_c, scratch;
    int t;
    int32_t d;

    P = a[1];
    r = a[2];
    sl = kc->in[3] ? a[4] : NULL;
    init_h = kc->in[4] ? a[5] : NULL;
    init_c = kc->in[5] ? a[6] : NULL;
    Peep = kc->in[6] ? a[7] : NULL;
    Y = kc->out[0] ? a[8] : NULL;
    Y_h = kc->out[1] ? a[9] : NULL;
    Y_c = kc->out[2] ? a[10] : NULL;
    scratch = a[11];
    for (d = 0; d < D; d++) {
        const int rev = D == 2 ? d : p->reverse;
        LLVMValueRef Pp = gepc(g, P, d * T * N * GH), hA = scratch, hB = gepc(g, scratch, 6 * H);
        LLVMValueRef n, s, st, i, tt, row, x, y, odd, hc, hn, s0;
        LLVMBasicBlockRef join;
        rec_ctx c;
        kloop ln, ls, lz;

        memset(&c, 0, sizeof c);
        c.p = p;
        c.act = &p->act[d * 3];
        c.H = H;
        c.GH = GH;
        c.Rt = gepc(g, r, d * H * GH);
        c.peep = Peep ? gepc(g, Peep, d * 3 * H) : NULL;
        c.c = gepc(g, scratch, H);
        c.gates = gepc(g, scratch, 2 * H);
        c.panels = 1;

        n = loop_begin(g, &ln, ci(g, 0), ci(g, N));
        s = sl ? LLVMBuildSExt(g->b,
                               LLVMBuildLoad2(g->b, g->i32,
                                              LLVMBuildInBoundsGEP2(g->b, g->i32, sl, &n, 1, ""),
                                              ""),
                               g->i64, "")
               : ci(g, T);
        st = mul(g, p->layout ? add(g, mul(g, n, ci(g, D)), ci(g, d)) : add(g, ci(g, d * N), n),
                 ci(g, H));
        for (t = 0; t < nt; t++) {
            int64_t j0, j1;
            mt_slice(H, nt, g->vl, t, &j0, &j1);
            join = slice_begin(g, first, end, t);
            emit_copy_units(g, hA, init_h ? gepf(g, init_h, st) : NULL, j0, j1, NULL);
            emit_copy_units(g, c.c, init_c ? gepf(g, init_c, st) : NULL, j0, j1, NULL);
            slice_end(g, join);
        }
        emit_barrier(g); /* the whole initial h before anyone reads it */

        i = loop_begin(g, &ls, ci(g, 0), s);
        tt = rev ? LLVMBuildSub(g->b, LLVMBuildSub(g->b, s, ci(g, 1), ""), i, "") : i;
        row = p->layout ? add(g, mul(g, n, ci(g, T)), tt) : add(g, mul(g, tt, ci(g, N)), n);
        x = gepf(g, Pp, mul(g, row, ci(g, GH)));
        y = Y ? gepf(g, Y, drs_y_at(g, p, tt, d, n)) : NULL;
        odd = LLVMBuildTrunc(g->b, i, g->i1, "");
        hc = sel(g, odd, hB, hA);
        hn = sel(g, odd, hA, hB);
        for (t = 0; t < nt; t++) {
            int64_t j0, j1, q;
            mt_slice(H, nt, g->vl, t, &j0, &j1);
            if (j1 == j0)
                continue;
            join = slice_begin(g, first, end, t);
            for (q = 0; q < 4; q++)
                emit_gemv(g, &c, hc, q * H + j0, j1 - j0, gepc(g, x, q * H + j0),
                          gepc(g, c.gates, q * H + j0));
            emit_lstm_units(g, &c, j0, j1, hn, y);
            slice_end(g, join);
        }
        emit_barrier(g); /* this step's h complete before the next step reads it */
        loop_end(g, &ls);

        /* after s steps the state is in hA when s is even, in hB when odd */
        hc = sel(g, LLVMBuildTrunc(g->b, s, g->i1, ""), hB, hA);
        s0 = sl ? LLVMBuildICmp(g->b, LLVMIntEQ, s, ci(g, 0), "") : NULL;
        for (t = 0; t < nt; t++) {
            int64_t j0, j1;
            mt_slice(H, nt, g->vl, t, &j0, &j1);
            if (j1 == j0)
                continue;
            join = slice_begin(g, first, end, t);
            if (Y && sl) { /* rows t >= s are zero */
                tt = loop_begin(g, &lz, s, ci(g, T));
                emit_copy_units(g, gepf(g, Y, drs_y_at(g, p, tt, d, n)), NULL, j0, j1, NULL);
                loop_end(g, &lz);
            }
            if (Y_h)
                emit_copy_units(g, gepf(g, Y_h, st), hc, j0, j1, s0);
            if (Y_c)
                emit_copy_units(g, gepf(g, Y_c, st), c.c, j0, j1, s0);
            slice_end(g, join);
        }
        loop_end(g, &ln);
    }
    LLVMBuildRetVoid(g->b);
}

/* <fname>_w: void (ptr args, i32 first, i32 end), internal: a multi-core kernel's slices. */
static LLVMValueRef
mt_worker_decl(kg *g, const char *fname)
{
    LLVMTypeRef wp[3];
    LLVMValueRef w;
    char wname[300];

    wp[0] = g->ptr;
    wp[1] = g->i32;
    wp[2] = g->i32;
    snprintf(wname, sizeof wname, "%s_w", fname);
    w = LLVMAddFunction(g->m, wname, LLVMFunctionType(LLVMVoidTypeInContext(g->cx), wp, 3, 0));
    LLVMSetLinkage(w, LLVMInternalLinkage);
    return w;
}

/* lstmc_rt_pool_run(w, ctx, nt) */
static void
emit_pool_run(kg *g, LLVMValueRef w, LLVMValueRef ctx, int nt)
{
    LLVMTypeRef rty[3], rfty;
    LLVMValueRef run, cargs[3];

    rty[0] = g->ptr;
    rty[1] = g->ptr;
    rty[2] = g->i32;
    rfty = LLVMFunctionType(LLVMVoidTypeInContext(g->cx), rty, 3, 0);
    run = LLVMGetNamedFunction(g->m, "lstmc_rt_pool_run");
    if (!run)
        run = LLVMAddFunction(g->m, "lstmc_rt_pool_run", rfty);
    cargs[0] = w;
    cargs[1] = ctx;
    cargs[2] = LLVMConstInt(g->i32, (unsigned long long)nt, 0);
    LLVMBuildCall2(g->b, rfty, run, cargs, 3, "");
}

/* The rest of <name>_k<i> (g->fn, nargs pointer arguments): lstmc_rt_pool_run of its slices
 * <name>_k<i>_w, whose body emits, then return LSTMC_RT_OK. */
static void
emit_mt(kg *g, const kp_call *kc, const char *fname, int nt, unsigned nargs, mt_body_fn emit)
{
    LLVMValueRef main_fn = g->fn, w, args, a[14];
    LLVMBasicBlockRef main_alloca = g->alloca_bb, body;
    LLVMBuilderRef saved_b = g->b;
    unsigned k;

    args = entry_alloca(g, LLVMArrayType(g->ptr, nargs));
    for (k = 0; k < nargs; k++) {
        LLVMValueRef idx = ci(g, k);
        LLVMBuildStore(g->b, LLVMGetParam(g->fn, (unsigned)k),
                       LLVMBuildInBoundsGEP2(g->b, g->ptr, args, &idx, 1, ""));
    }
    w = mt_worker_decl(g, fname);
    emit_pool_run(g, w, args, nt);
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));

    /* the slices' function, with its own entry block and builder */
    g->fn = w;
    g->alloca_bb = LLVMAppendBasicBlockInContext(g->cx, w, "entry");
    body = LLVMAppendBasicBlockInContext(g->cx, w, "start");
    g->b = LLVMCreateBuilderInContext(g->cx);
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMPositionBuilderAtEnd(g->b, body);
    for (k = 0; k < nargs; k++) {
        LLVMValueRef idx = ci(g, k), pa = LLVMGetParam(w, 0);
        a[k] = LLVMBuildLoad2(g->b, g->ptr, LLVMBuildInBoundsGEP2(g->b, g->ptr, pa, &idx, 1, ""),
                              "");
    }
    emit(g, kc, nt, a, LLVMGetParam(w, 1), LLVMGetParam(w, 2));
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMBuildBr(g->ab, body);
    LLVMDisposeBuilder(g->b);
    g->b = saved_b;
    g->fn = main_fn;
    g->alloca_bb = main_alloca;
}

/* <name>_k<i> (g->fn, the rnn_rec signature) and its slices <name>_k<i>_w. */
static void
emit_rec_mt(kg *g, const kp_call *kc, const char *fname, int nt)
{
    if (kc->in[3])
        emit_seq_len_check(g, LLVMGetParam(g->fn, 4), kc->p.rnn.batch, kc->p.rnn.seq_len);
    emit_mt(g, kc, fname, nt, 12, emit_rec_mt_body);
}

/* The slices of lstmc_rt_rnn_proj: slice t computes the columns [c0, c1) of P (mt_slice of
 * GH in tiles of PROJ_NB vectors), for every row and direction; no barrier. */
static void
emit_proj_mt_body(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a, LLVMValueRef first,
                  LLVMValueRef end)
{
    const lstmc_rt_rnn_proj_params *p = &kc->p.proj;
    const int64_t GH = cell_gates(p->cell) * p->hidden, I = p->input_size;
    int32_t d;
    int t;

    for (t = 0; t < nt; t++) {
        LLVMBasicBlockRef join;
        int64_t c0, c1;
        mt_slice(GH, nt, PROJ_NB * g->vl, t, &c0, &c1);
        if (c1 == c0)
            continue;
        join = slice_begin(g, first, end, t);
        for (d = 0; d < p->n_dirs; d++) {
            proj_ctx pc;
            pc.rows = p->rows;
            pc.I = I;
            pc.GH = GH;
            pc.X = a[1];
            pc.panels = g->panels; /* the range's panels start at I*c0 (rec_relayout) */
            pc.wd = gepc(g, a[2], d * I * GH + (g->panels ? I * c0 : c0));
            pc.bd = kc->in[2] ? gepc(g, a[3], d * GH + c0) : NULL;
            pc.Pd = gepc(g, a[4], d * p->rows * GH + c0);
            for_col_segments(g, c1 - c0, PROJ_NB, proj_seg, &pc);
        }
        slice_end(g, join);
    }
    LLVMBuildRetVoid(g->b);
}

/* --- KP_LSTM_DRS: dynamic row skip (MICRO'18 §V, Algorithm 3) --------------------------- */

/*
 * lstmc_rt_lstm_drs(p, alpha_intra, P, Uo, Ufic, seq_lens, init_h, init_c, Peep, Y, Y_h, Y_c,
 * stats, scratch), every shape a constant (rt_drs.c is the reference). Per cell:
 *   line 4  go = P_o + h U_o: the register tiles of the recurrent product over Uo [H, H];
 *   line 5  o = f(clip(go)) (a vectorised loop);
 *   line 6  R[n] = j; n += |o| >= alpha (branch-free compaction, the kept units ascending);
 *   line 7  a loop over R only: unit j's rows of U_i, U_f, U_c (3H contiguous floats of
 *           Ufic) against h, DRS_NA vectors of accumulators per row, reduced horizontally;
 *           the rows of units not in R are never loaded;
 *   line 8  a vectorisable loop: cn = keep ? f.c + i.g : 0, h = o . h(cn), which is o . h(0)
 *           for a skipped unit.
 * The row sums are reassociated (vector lanes), so alpha_intra = 0 matches the exact LLVM
 * kernel to float rounding, not bit for bit.
 */
#define DRS_NA 2 /* vectors of accumulators per row */

/* Offset (floats, i64 value) of row (t, d, n) of Y and of (d, n) of a state tensor. */
static LLVMValueRef
drs_y_at(kg *g, const lstmc_rt_rnn_params *p, LLVMValueRef t, int32_t d, LLVMValueRef n)
{
    const int64_t T = p->seq_len, N = p->batch, D = p->n_dirs, H = p->hidden;
    LLVMValueRef row = p->layout ? add(g, mul(g, n, ci(g, T)), t) : NULL;

    return mul(g,
               p->layout ? add(g, mul(g, row, ci(g, D)), ci(g, d))
                         : add(g, mul(g, add(g, mul(g, t, ci(g, D)), ci(g, d)), ci(g, N)), n),
               ci(g, H));
}

/* Horizontal sum of a <vl x float> (reassociation allowed), plus start. */
static LLVMValueRef
drs_hsum(kg *g, LLVMValueRef start, LLVMValueRef v)
{
    LLVMValueRef args[2], r;

    args[0] = cf(g, 0.0);
    args[1] = v;
    r = intrinsic(g, "llvm.vector.reduce.fadd", g->vf, args, 2);
    LLVMSetFastMathFlags(r, LLVMFastMathAllowReassoc);
    return fadd(g, start, r);
}

/* Line 7 for unit j (an i64 value): the pre-activations of i, f, c into gates. */
static void
drs_unit_rows(kg *g, int64_t H, LLVMValueRef Ufic, LLVMValueRef j, LLVMValueRef h,
              LLVMValueRef x, LLVMValueRef gates)
{
    static const int64_t goff[3] = {0, 2, 3}; /* gate i, f, c in P and gates (i o f c) */
    const int64_t step = (int64_t)DRS_NA * g->vl, nfull = H / step;
    LLVMValueRef rows = gepf(g, Ufic, mul(g, j, ci(g, 3 * H))), acc[3][DRS_NA], sum[3];
    int64_t k0 = nfull * step, k;
    int r, a;

    for (r = 0; r < 3; r++)
        for (a = 0; a < DRS_NA; a++) {
            acc[r][a] = entry_alloca(g, g->vf);
            LLVMBuildStore(g->b, LLVMConstNull(g->vf), acc[r][a]);
        }
    if (nfull > 0) {
        kloop l;
        LLVMValueRef kk = mul(g, loop_begin(g, &l, ci(g, 0), ci(g, nfull)), ci(g, step));

        for (a = 0; a < DRS_NA; a++) {
            LLVMValueRef ka = add(g, kk, ci(g, (int64_t)a * g->vl));
            LLVMValueRef hv = ldt(g, g->vf, gepf(g, h, ka));

            for (r = 0; r < 3; r++) {
                LLVMValueRef uv = ldt(g, g->vf, gepf(g, gepc(g, rows, r * H), ka));
                LLVMValueRef cur = LLVMBuildLoad2(g->b, g->vf, acc[r][a], "");
                LLVMBuildStore(g->b, fma_(g, g->vf, hv, uv, cur), acc[r][a]);
            }
        }
        loop_end(g, &l);
    }
    for (r = 0; r < 3; r++) {
        LLVMValueRef v = LLVMBuildLoad2(g->b, g->vf, acc[r][0], "");

        for (a = 1; a < DRS_NA; a++)
            v = fadd(g, v, LLVMBuildLoad2(g->b, g->vf, acc[r][a], ""));
        sum[r] = drs_hsum(g, ldf(g, gepf(g, gepc(g, x, goff[r] * H), j)), v);
    }
    for (k = k0; k < H; k++) { /* scalar tail (H not a multiple of DRS_NA vectors) */
        LLVMValueRef hk = ldf(g, gepc(g, h, k));

        for (r = 0; r < 3; r++)
            sum[r] = fma_(g, g->f32, hk, ldf(g, gepc(g, rows, r * H + k)), sum[r]);
    }
    for (r = 0; r < 3; r++)
        stf(g, sum[r], gepf(g, gepc(g, gates, goff[r] * H), j));
}

/* *stats = {cells, 3H cells, 3H cells - 3 kept, 3 kept} when stats is not NULL. */
static void
drs_store_stats(kg *g, int64_t H, LLVMValueRef stats, LLVMValueRef cells, LLVMValueRef kept)
{
    LLVMBasicBlockRef join = if_begin(g, LLVMBuildIsNotNull(g->b, stats, ""));
    LLVMValueRef total = mul(g, cells, ci(g, 3 * H)), loaded = mul(g, kept, ci(g, 3));
    LLVMValueRef v[4];
    int i;

    v[0] = cells;
    v[1] = total;
    v[2] = LLVMBuildSub(g->b, total, loaded, "");
    v[3] = loaded;
    for (i = 0; i < 4; i++) {
        LLVMValueRef idx = ci(g, i);
        LLVMBuildStore(g->b, v[i], LLVMBuildInBoundsGEP2(g->b, g->i64, stats, &idx, 1, ""));
    }
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
}

/* return code if cond holds (an i1), else go on */
static void
drs_ret_if(kg *g, LLVMValueRef cond, int code)
{
    LLVMBasicBlockRef join = if_begin(g, cond);
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, (unsigned long long)code, 0));
    LLVMPositionBuilderAtEnd(g->b, join);
}

/* Unit j's new cell state f.c + i.g from a gate row gr (i o f c, pre-activations) and its old
 * c (cj), the peepholes of i and f applied (rt_rnn.c, lstmc_rt_lstm_cn). */
static LLVMValueRef
emit_cell_state(kg *g, const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, LLVMValueRef peep,
                LLVMValueRef gr, LLVMValueRef cj, LLVMValueRef j)
{
    const int64_t H = p->hidden;
    LLVMValueRef pi = ldf(g, gepf(g, gr, j)), pf = ldf(g, gepf(g, gepc(g, gr, 2 * H), j));
    LLVMValueRef pc = ldf(g, gepf(g, gepc(g, gr, 3 * H), j)), it, ft, ct;

    if (peep) {
        pi = fadd(g, pi, fmul(g, ldf(g, gepf(g, peep, j)), cj));
        pf = fadd(g, pf, fmul(g, ldf(g, gepf(g, gepc(g, peep, 2 * H), j)), cj));
    }
    it = emit_act(g, &act[0], emit_clip(g, p, pi));
    ft = p->input_forget ? fsub(g, cf(g, 1.0), it) : emit_act(g, &act[0], emit_clip(g, p, pf));
    ct = emit_act(g, &act[1], emit_clip(g, p, pc));
    return fadd(g, fmul(g, ft, cj), fmul(g, it, ct));
}

/* keep = !(|o| < alpha_intra) (NaN kept), o = gates[H + j] of a cell */
static LLVMValueRef
drs_keep(kg *g, LLVMValueRef o, LLVMValueRef alpha)
{
    return LLVMBuildNot(g->b, flt(g, intrinsic(g, "llvm.fabs", g->f32, &o, 1), alpha), "");
}

/* Line 8 for one cell (o_t already in gates): the cell update for the kept units, c = 0 and
 * h = o h(0) for the others; h, c in place, y its Y row or NULL. */
static void
drs_update(kg *g, const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, LLVMValueRef peep,
           LLVMValueRef gr, LLVMValueRef alpha, LLVMValueRef hs, LLVMValueRef cs, LLVMValueRef y)
{
    const int64_t H = p->hidden;
    LLVMValueRef j, o, keep, cn, hj;
    kloop l;

    j = loop_begin(g, &l, ci(g, 0), ci(g, H));
    o = ldf(g, gepf(g, gepc(g, gr, H), j));
    keep = drs_keep(g, o, alpha);
    cn = sel(g, keep, emit_cell_state(g, p, act, peep, gr, ldf(g, gepf(g, cs, j)), j), cf(g, 0.0));
    hj = fmul(g, o, emit_act(g, &act[2], cn));
    stf(g, cn, gepf(g, cs, j));
    stf(g, hj, gepf(g, hs, j));
    if (y)
        stf(g, hj, gepf(g, y, j));
    loop_end(g, &l);
}

static void
emit_drs(kg *g, const kp_call *kc)
{
    const lstmc_rt_rnn_params *p = &kc->p.drs.p;
    const int64_t T = p->seq_len, N = p->batch, H = p->hidden, G = 4 * H, D = p->n_dirs;
    LLVMValueRef alpha = LLVMGetParam(g->fn, 1), P = LLVMGetParam(g->fn, 2);
    LLVMValueRef Uo = LLVMGetParam(g->fn, 3), Ufic = LLVMGetParam(g->fn, 4);
    LLVMValueRef sl = LLVMGetParam(g->fn, 5);
    LLVMValueRef init_h = kc->in[4] ? LLVMGetParam(g->fn, 6) : NULL;
    LLVMValueRef init_c = kc->in[5] ? LLVMGetParam(g->fn, 7) : NULL;
    LLVMValueRef Peep = kc->in[6] ? LLVMGetParam(g->fn, 8) : NULL;
    LLVMValueRef Y = kc->out[0] ? LLVMGetParam(g->fn, 9) : NULL;
    LLVMValueRef Y_h = kc->out[1] ? LLVMGetParam(g->fn, 10) : NULL;
    LLVMValueRef Y_c = kc->out[2] ? LLVMGetParam(g->fn, 11) : NULL;
    LLVMValueRef stats = LLVMGetParam(g->fn, 12), scratch = LLVMGetParam(g->fn, 13);
    LLVMValueRef h = scratch, c = gepc(g, scratch, H), gates = gepc(g, scratch, 2 * H);
    LLVMValueRef R = gepc(g, scratch, 6 * H); /* [H] int32 */
    LLVMValueRef cells = entry_alloca(g, g->i64), kept = entry_alloca(g, g->i64);
    LLVMValueRef cnt = entry_alloca(g, g->i64);
    const int has_sl = kc->in[3] != NULL;
    int32_t d;
    kloop l;

    LLVMBuildStore(g->b, ci(g, 0), cells);
    LLVMBuildStore(g->b, ci(g, 0), kept);
    drs_store_stats(g, H, stats, ci(g, 0), ci(g, 0));
    if (N == 0) {
        LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
        return;
    }
    if (has_sl) { /* every entry in [0, T] before anything is written */
        LLVMValueRef n = loop_begin(g, &l, ci(g, 0), ci(g, N)), s;
        s = LLVMBuildLoad2(g->b, g->i32, LLVMBuildInBoundsGEP2(g->b, g->i32, sl, &n, 1, ""), "");
        drs_ret_if(g,
                   LLVMBuildOr(g->b,
                               LLVMBuildICmp(g->b, LLVMIntSLT, s, LLVMConstInt(g->i32, 0, 0), ""),
                               LLVMBuildICmp(g->b, LLVMIntSGT, s,
                                             LLVMConstInt(g->i32, (unsigned long long)T, 0), ""),
                               ""),
                   LSTMC_RT_ERR_SEQ_LEN);
        loop_end(g, &l);
    }
    if (Peep) /* o_t must not depend on c_t: P_o == 0 */
        for (d = 0; d < D; d++) {
            LLVMValueRef j = loop_begin(g, &l, ci(g, 0), ci(g, H));
            drs_ret_if(g,
                       LLVMBuildFCmp(g->b, LLVMRealUNE,
                                     ldf(g, gepf(g, gepc(g, Peep, d * 3 * H + H), j)),
                                     cf(g, 0.0), ""),
                       LSTMC_RT_ERR_BAD_PARAMS);
            loop_end(g, &l);
        }
    for (d = 0; d < D; d++) {
        const int rev = D == 2 ? d : p->reverse;
        const lstmc_rt_act *act = &p->act[d * 3];
        LLVMValueRef Pp = gepc(g, P, d * T * N * G), pe = Peep ? gepc(g, Peep, d * 3 * H) : NULL;
        LLVMValueRef n, s, st, t, x, row, s0, j, r, nk;
        LLVMValueRef o, keep;
        rec_ctx rc;
        kloop ln, ls, lj, lr, lz;

        memset(&rc, 0, sizeof rc);
        rc.p = p;
        rc.act = act;
        rc.H = H;
        rc.GH = H; /* the tiles read Uo [H, H] */
        rc.Rt = gepc(g, Uo, d * H * H);

        n = loop_begin(g, &ln, ci(g, 0), ci(g, N));
        s = has_sl ? LLVMBuildSExt(g->b,
                                   LLVMBuildLoad2(g->b, g->i32,
                                                  LLVMBuildInBoundsGEP2(g->b, g->i32, sl, &n, 1,
                                                                        ""),
                                                  ""),
                                   g->i64, "")
                   : ci(g, T);
        st = mul(g, p->layout ? add(g, mul(g, n, ci(g, D)), ci(g, d)) : add(g, ci(g, d * N), n),
                 ci(g, H));
        emit_copy(g, h, init_h ? gepf(g, init_h, st) : NULL, H, NULL);
        emit_copy(g, c, init_c ? gepf(g, init_c, st) : NULL, H, NULL);

        t = loop_begin(g, &ls, ci(g, 0), s);
        if (rev)
            t = LLVMBuildSub(g->b, LLVMBuildSub(g->b, s, ci(g, 1), ""), t, "");
        row = p->layout ? add(g, mul(g, n, ci(g, T)), t) : add(g, mul(g, t, ci(g, N)), n);
        x = gepf(g, Pp, mul(g, row, ci(g, G)));
        /* line 4 */
        emit_gemv(g, &rc, h, 0, H, gepc(g, x, H), gepc(g, gates, H));
        /* line 5, a loop of its own so that it vectorises */
        j = loop_begin(g, &lj, ci(g, 0), ci(g, H));
        o = emit_act(g, &act[0], emit_clip(g, p, ldf(g, gepf(g, gepc(g, gates, H), j))));
        stf(g, o, gepf(g, gepc(g, gates, H), j));
        loop_end(g, &lj);
        /* line 6 */
        LLVMBuildStore(g->b, ci(g, 0), cnt);
        j = loop_begin(g, &lj, ci(g, 0), ci(g, H));
        o = ldf(g, gepf(g, gepc(g, gates, H), j));
        nk = LLVMBuildLoad2(g->b, g->i64, cnt, "");
        LLVMBuildStore(g->b, LLVMBuildTrunc(g->b, j, g->i32, ""),
                       LLVMBuildInBoundsGEP2(g->b, g->i32, R, &nk, 1, ""));
        keep = drs_keep(g, o, alpha);
        LLVMBuildStore(g->b, add(g, nk, LLVMBuildZExt(g->b, keep, g->i64, "")), cnt);
        loop_end(g, &lj);
        nk = LLVMBuildLoad2(g->b, g->i64, cnt, "");
        LLVMBuildStore(g->b, add(g, LLVMBuildLoad2(g->b, g->i64, kept, ""), nk), kept);
        LLVMBuildStore(g->b, add(g, LLVMBuildLoad2(g->b, g->i64, cells, ""), ci(g, 1)), cells);
        /* line 7: the units in R only */
        r = loop_begin(g, &lr, ci(g, 0), nk);
        j = LLVMBuildSExt(g->b,
                          LLVMBuildLoad2(g->b, g->i32,
                                         LLVMBuildInBoundsGEP2(g->b, g->i32, R, &r, 1, ""), ""),
                          g->i64, "");
        drs_unit_rows(g, H, gepc(g, Ufic, d * 3 * H * H), j, h, x, gates);
        loop_end(g, &lr);
        /* line 8 */
        drs_update(g, p, act, pe, gates, alpha, h, c, NULL);
        if (Y)
            emit_copy(g, gepf(g, Y, drs_y_at(g, p, t, d, n)), h, H, NULL);
        loop_end(g, &ls);

        if (Y && has_sl) { /* rows t >= s are zero */
            t = loop_begin(g, &lz, s, ci(g, T));
            emit_copy(g, gepf(g, Y, drs_y_at(g, p, t, d, n)), NULL, H, NULL);
            loop_end(g, &lz);
        }
        s0 = has_sl ? LLVMBuildICmp(g->b, LLVMIntEQ, s, ci(g, 0), "") : NULL;
        if (Y_h)
            emit_copy(g, gepf(g, Y_h, st), h, H, s0);
        if (Y_c)
            emit_copy(g, gepf(g, Y_c, st), c, H, s0);
        loop_end(g, &ln);
    }
    drs_store_stats(g, H, stats, LLVMBuildLoad2(g->b, g->i64, cells, ""),
                    LLVMBuildLoad2(g->b, g->i64, kept, ""));
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
}

/* --- KP_LSTM_TISSUE: breakpoints and tissues (MICRO'18 §IV) ----------------------------- */

/*
 * lstmc_rt_lstm_tissue(p, alpha_inter, P, Up, row_abs_sum, seq_lens, init_h, init_c, Peep,
 * h_pred, c_pred, Y, Y_h, Y_c, stats, scratch), every shape a constant (rt_tissue.c is the
 * reference). Per direction:
 *   plan     a call of the runtime's own lstmc_rt_tissue_plan: the relevance S of every link
 *            (Algorithm 2 on the G1 output P, with this run's alpha_inter), the cuts, tissue
 *            formation and alignment (<= MTS cells), the state slots; so the LLVM and C
 *            kernels cut and align alike. It is O(cells) work against O(cells H^2) below;
 *   gather   per tissue, each cell's P row and h_{t-1}; a sub-layer's first cell starts from
 *            init_h/init_c or, after a cut, from the predicted context link h_pred/c_pred;
 *   product  gates[m, 4H] += hbuf[m, H] x U as ONE register-tiled GEMM over the tissue's
 *            cells: per k, a row of TIS_NP column panels of U (lstmc_rt_lstm_tissue_pack's
 *            16-column panels) is loaded once and multiplied into the accumulators of up to
 *            TIS_MB cells, so U streams once per TIS_MB cells (a whole tissue for MTS <=
 *            TIS_MB), not once per cell. Each gate sums P + h[0]U[0] + h[1]U[1] + ... (fused
 *            multiply-adds, k ascending) as the exact LLVM kernel does;
 *   update   the fused gate arithmetic of each cell (inline sigmoid/tanh), Y, Y_h, Y_c.
 */
#define TIS_PANEL 16 /* lstmc_rt_lstm_tissue_pack's panel width (NR in rt_tissue.c) */

/* Accumulator registers the tissue tiles may use: 32 vector registers on AVX-512 and
 * AArch64 leave 24 for accumulators, 16 (AVX2, SSE, 32-bit NEON) leave 12. */
static int
tis_acc_budget(const kg *g)
{
    return g->vl >= 16 || g->vl == 4 ? 24 : 12;
}

/* An int32 at base[i] (i an i64 value), sign-extended to i64. */
static LLVMValueRef
tis_ld32(kg *g, LLVMValueRef base, LLVMValueRef i)
{
    LLVMValueRef v =
        LLVMBuildLoad2(g->b, g->i32, LLVMBuildInBoundsGEP2(g->b, g->i32, base, &i, 1, ""), "");
    return LLVMBuildSExt(g->b, v, g->i64, "");
}

/* The end of an if_begin block that does not return: go on in join. */
static void
tis_endif(kg *g, LLVMBasicBlockRef join)
{
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
}

/* v broadcast to the vector type when w > 1. */
static LLVMValueRef
tis_splat(kg *g, LLVMValueRef s, int w)
{
    LLVMValueRef vec;

    if (w == 1)
        return s;
    vec = LLVMBuildInsertElement(g->b, LLVMGetPoison(g->vf), s, LLVMConstInt(g->i32, 0, 0), "");
    return LLVMBuildShuffleVector(g->b, vec, LLVMGetPoison(g->vf),
                                  LLVMConstNull(LLVMVectorType(g->i32, (unsigned)w)), "");
}

/*
 * out[c*ldo + p*ldu + v*w ..] += sum_{k<H} h[c*H + k] * U[p*ps + k*ldu + v*w ..] for the
 * r cells c, np panels p of ldu columns and vpp values of width w per panel row: the np*vpp
 * U values of row k are loaded once and used by every cell.
 */
static void
tis_tile(kg *g, int64_t H, LLVMValueRef h, int r, LLVMValueRef U, int np, int64_t ps, int64_t ldu,
         int vpp, int w, LLVMValueRef out, int64_t ldo)
{
    LLVMTypeRef ty = w == 1 ? g->f32 : g->vf;
    LLVMValueRef acc[KG_MAX_ACC], u[KG_MAX_ACC], k, urow;
    kloop lk;
    int c, q, nq = np * vpp;

    for (c = 0; c < r; c++)
        for (q = 0; q < nq; q++) {
            acc[c * nq + q] = entry_alloca(g, ty);
            LLVMBuildStore(g->b,
                           ldt(g, ty, gepc(g, out, c * ldo + (q / vpp) * ldu + (q % vpp) * w)),
                           acc[c * nq + q]);
        }
    k = loop_begin(g, &lk, ci(g, 0), ci(g, H));
    urow = gepf(g, U, mul(g, k, ci(g, ldu)));
    for (q = 0; q < nq; q++)
        u[q] = ldt(g, ty, gepc(g, urow, (q / vpp) * ps + (q % vpp) * w));
    for (c = 0; c < r; c++) {
        LLVMValueRef hk = tis_splat(g, ldf(g, gepf(g, gepc(g, h, c * H), k)), w);

        for (q = 0; q < nq; q++) {
            LLVMValueRef cur = LLVMBuildLoad2(g->b, ty, acc[c * nq + q], "");
            LLVMBuildStore(g->b, fma_(g, ty, hk, u[q], cur), acc[c * nq + q]);
        }
    }
    loop_end(g, &lk);
    for (c = 0; c < r; c++)
        for (q = 0; q < nq; q++)
            stt(g, LLVMBuildLoad2(g->b, ty, acc[c * nq + q], ""),
                gepc(g, out, c * ldo + (q / vpp) * ldu + (q % vpp) * w));
}

/* gates[i0 + c][0..4H) += hbuf[i0 + c] x U for r cells (r a constant): as many panels per
 * tile as the r accumulators and the U values of a row leave registers for. */
static void
tis_cells(kg *g, int64_t H, int r, LLVMValueRef hb, LLVMValueRef Ud, LLVMValueRef gt)
{
    const int64_t G = 4 * H, nfull = G / TIS_PANEL, gw = G % TIS_PANEL;
    const int vpp = g->vl >= TIS_PANEL ? 1 : TIS_PANEL / g->vl,
              w = g->vl >= TIS_PANEL ? TIS_PANEL : g->vl;
        /* at most 8 panels (8 concurrent streams through U, as the exact kernel's 8 vectors) */
    const int64_t np_b = (tis_acc_budget(g) + 4) / ((r + 1) * vpp) > 1
                             ? (tis_acc_budget(g) + 4) / ((r + 1) * vpp)
                             : 1;
    const int64_t np_r = np_b < 8 ? np_b : 8;
    const int64_t np = np_r < nfull ? np_r : (nfull > 0 ? nfull : 1);
    const int64_t groups = nfull / np, rem = nfull % np, gstep = np * TIS_PANEL;
    int c;

    if (groups == 1) {
        tis_tile(g, H, hb, r, Ud, (int)np, TIS_PANEL * H, TIS_PANEL, vpp, w, gt, G);
    } else if (groups > 1) {
        kloop l;
        LLVMValueRef g0 = mul(g, loop_begin(g, &l, ci(g, 0), ci(g, groups)), ci(g, gstep));
        tis_tile(g, H, hb, r, gepf(g, Ud, mul(g, g0, ci(g, H))), (int)np, TIS_PANEL * H, TIS_PANEL,
                 vpp, w, gepf(g, gt, g0), G);
        loop_end(g, &l);
    }
    if (rem > 0)
        tis_tile(g, H, hb, r, gepc(g, Ud, groups * gstep * H), (int)rem, TIS_PANEL * H, TIS_PANEL,
                 vpp, w, gepc(g, gt, groups * gstep), G);
    for (c = 0; gw > 0 && c < r; c++) /* the last, narrow panel [H, gw]: scalar, per cell */
        tis_tile(g, H, gepc(g, hb, c * H), 1, gepc(g, Ud, nfull * TIS_PANEL * H), 1, 0, gw, (int)gw,
                 1, gepc(g, gt, c * G + nfull * TIS_PANEL), G);
}

/* The tissue's product: its m cells (an i64 value <= cap) in blocks of mb. */
static void
tis_product(kg *g, int64_t H, int64_t cap, LLVMValueRef m, LLVMValueRef hbuf, LLVMValueRef Ud,
            LLVMValueRef gates)
{
    const int vpp = g->vl >= TIS_PANEL ? 1 : TIS_PANEL / g->vl;
    int mb = tis_acc_budget(g) / vpp, r;
    LLVMBasicBlockRef join, dflt, *cases;
    LLVMValueRef i0, mi, sw;
    kloop l;

    if (mb < 1)
        mb = 1;
    if (mb > cap)
        mb = (int)cap;
    /* for (i0 = 0; i0 < m; i0 += mb): a tile of min(mb, m - i0) cells, one case each */
    i0 = mul(
        g,
        loop_begin(g, &l, ci(g, 0), LLVMBuildSDiv(g->b, add(g, m, ci(g, mb - 1)), ci(g, mb), "")),
        ci(g, mb));
    mi = LLVMBuildSub(g->b, m, i0, "");
    mi = sel(g, LLVMBuildICmp(g->b, LLVMIntSGT, mi, ci(g, mb), ""), ci(g, mb), mi);
    join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_join");
    dflt = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_none");
    sw = LLVMBuildSwitch(g->b, mi, dflt, (unsigned)mb);
    cases = calloc((size_t)mb + 1, sizeof *cases);
    for (r = 1; r <= mb; r++) {
        cases[r] = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_cells");
        LLVMAddCase(sw, ci(g, r), cases[r]);
        LLVMPositionBuilderAtEnd(g->b, cases[r]);
        tis_cells(g, H, r, gepf(g, hbuf, mul(g, i0, ci(g, H))), Ud,
                  gepf(g, gates, mul(g, i0, ci(g, 4 * H))));
        LLVMBuildBr(g->b, join);
    }
    free(cases);
    LLVMPositionBuilderAtEnd(g->b, dflt);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    loop_end(g, &l);
}

/* --- KP_LSTM_TISSUE_DRS: DRS inside tissues (§IV tissues + §V, rt_tissue.c) ------------ */

/* go[c][0..H) += hbuf[c] x Uo for r cells: Uo [H, H] k-major, column blocks of vectors. */
static void
tdrs_o_cells(kg *g, int64_t H, int r, LLVMValueRef hb, LLVMValueRef Uo, LLVMValueRef go)
{
    const int w = g->vl, nb0 = tis_acc_budget(g) / r > 0 ? tis_acc_budget(g) / r : 1;
    const int nb = nb0 > 8 ? 8 : nb0;
    const int64_t tw = (int64_t)nb * w, nfull = H / tw;
    int64_t col = nfull * tw;
    int nv, ns;

    if (nfull > 0) {
        kloop l;
        LLVMValueRef c0 = mul(g, loop_begin(g, &l, ci(g, 0), ci(g, nfull)), ci(g, tw));
        tis_tile(g, H, hb, r, gepf(g, Uo, c0), 1, 0, H, nb, w, gepf(g, go, c0), 4 * H);
        loop_end(g, &l);
    }
    nv = (int)((H - col) / w);
    if (nv > 0 && w > 1) {
        tis_tile(g, H, hb, r, gepc(g, Uo, col), 1, 0, H, nv, w, gepc(g, go, col), 4 * H);
        col += (int64_t)nv * w;
    }
    for (ns = (int)(H - col); ns > 0;) { /* scalar columns, per cell */
        int k = ns > 8 ? 8 : ns, c;
        for (c = 0; c < r; c++)
            tis_tile(g, H, gepc(g, hb, c * H), 1, gepc(g, Uo, col), 1, 0, H, k, 1,
                     gepc(g, go, c * 4 * H + col), 4 * H);
        col += k;
        ns -= k;
    }
}

/* Line 4 for the tissue: the U_o part of its Sgemm, cells in blocks as tis_product. */
static void
tdrs_o_product(kg *g, int64_t H, int64_t cap, LLVMValueRef m, LLVMValueRef hbuf, LLVMValueRef Uo,
               LLVMValueRef gates)
{
    int mb = tis_acc_budget(g) / 2, r;
    LLVMBasicBlockRef join, dflt;
    LLVMValueRef i0, mi, sw;
    kloop l;

    if (mb > cap)
        mb = (int)cap;
    if (mb < 1)
        mb = 1;
    i0 = mul(
        g,
        loop_begin(g, &l, ci(g, 0), LLVMBuildSDiv(g->b, add(g, m, ci(g, mb - 1)), ci(g, mb), "")),
        ci(g, mb));
    mi = LLVMBuildSub(g->b, m, i0, "");
    mi = sel(g, LLVMBuildICmp(g->b, LLVMIntSGT, mi, ci(g, mb), ""), ci(g, mb), mi);
    join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tdrs_join");
    dflt = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tdrs_none");
    sw = LLVMBuildSwitch(g->b, mi, dflt, (unsigned)mb);
    for (r = 1; r <= mb; r++) {
        LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tdrs_cells");
        LLVMAddCase(sw, ci(g, r), bb);
        LLVMPositionBuilderAtEnd(g->b, bb);
        tdrs_o_cells(g, H, r, gepf(g, hbuf, mul(g, i0, ci(g, H))), Uo,
                     gepf(g, gates, add(g, mul(g, i0, ci(g, 4 * H)), ci(g, H))));
        LLVMBuildBr(g->b, join);
    }
    LLVMPositionBuilderAtEnd(g->b, dflt);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    loop_end(g, &l);
}

/*
 * Lines 5-7 for the m cells of a tissue: o_t in place, then per unit j the rows of
 * U_f,i,c (3H contiguous floats) for every cell keeping j; the rows come from memory once
 * per tissue (then from cache). Adds the kept units to *kept and the union to *uni.
 */
static void
tdrs_rows(kg *g, const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, LLVMValueRef m,
          LLVMValueRef hbuf, LLVMValueRef Ufic, LLVMValueRef gates, LLVMValueRef alpha,
          LLVMValueRef kept, LLVMValueRef uni)
{
    const int64_t H = p->hidden, G = 4 * H;
    LLVMValueRef i, j, go, o, any = entry_alloca(g, g->i64), gi, keep, cur;
    LLVMBasicBlockRef join;
    kloop li, lj;

    i = loop_begin(g, &li, ci(g, 0), m); /* line 5 */
    go = gepf(g, gates, add(g, mul(g, i, ci(g, G)), ci(g, H)));
    j = loop_begin(g, &lj, ci(g, 0), ci(g, H));
    stf(g, emit_act(g, &act[0], emit_clip(g, p, ldf(g, gepf(g, go, j)))), gepf(g, go, j));
    loop_end(g, &lj);
    loop_end(g, &li);
    j = loop_begin(g, &lj, ci(g, 0), ci(g, H)); /* lines 6-7 */
    LLVMBuildStore(g->b, ci(g, 0), any);
    i = loop_begin(g, &li, ci(g, 0), m);
    gi = gepf(g, gates, mul(g, i, ci(g, G)));
    o = ldf(g, gepf(g, gepc(g, gi, H), j));
    keep = drs_keep(g, o, alpha);
    join = if_begin(g, keep);
    LLVMBuildStore(g->b, ci(g, 1), any);
    cur = LLVMBuildLoad2(g->b, g->i64, kept, "");
    LLVMBuildStore(g->b, add(g, cur, ci(g, 1)), kept);
    drs_unit_rows(g, H, Ufic, j, gepf(g, hbuf, mul(g, i, ci(g, H))), gi, gi);
    tis_endif(g, join);
    loop_end(g, &li);
    LLVMBuildStore(
        g->b, add(g, LLVMBuildLoad2(g->b, g->i64, uni, ""), LLVMBuildLoad2(g->b, g->i64, any, "")),
        uni);
    loop_end(g, &lj);
}

/* *drs_stats = {cells, 3H cells, 3 (H cells - kept), 3 union} when drs_stats is not NULL
 * (rt_tissue.c counts a row loaded once per tissue). */
static void
tdrs_store_stats(kg *g, int64_t H, LLVMValueRef stats, LLVMValueRef cells, LLVMValueRef kept,
                 LLVMValueRef uni)
{
    LLVMBasicBlockRef join = if_begin(g, LLVMBuildIsNotNull(g->b, stats, ""));
    LLVMValueRef total = mul(g, cells, ci(g, 3 * H)), v[4];
    int i;

    v[0] = cells;
    v[1] = total;
    v[2] = LLVMBuildSub(g->b, total, mul(g, kept, ci(g, 3)), "");
    v[3] = mul(g, uni, ci(g, 3));
    for (i = 0; i < 4; i++) {
        LLVMValueRef idx = ci(g, i);
        LLVMBuildStore(g->b, v[i], LLVMBuildInBoundsGEP2(g->b, g->i64, stats, &idx, 1, ""));
    }
    tis_endif(g, join);
}

/* The element-wise step of one cell: gates row gr (i o f c, P and the product summed),
 * state h, c updated in place; y the cell's Y row or NULL. */
static void
tis_update(kg *g, const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, LLVMValueRef peep,
           LLVMValueRef gr, LLVMValueRef hs, LLVMValueRef cs, LLVMValueRef y)
{
    const int64_t H = p->hidden;
    LLVMValueRef j, po, cn, ot, hj;
    kloop l;

    j = loop_begin(g, &l, ci(g, 0), ci(g, H));
    po = ldf(g, gepf(g, gepc(g, gr, H), j));
    cn = emit_cell_state(g, p, act, peep, gr, ldf(g, gepf(g, cs, j)), j);
    if (peep) /* the output gate's peephole sees the new cell state */
        po = fadd(g, po, fmul(g, ldf(g, gepf(g, gepc(g, peep, H), j)), cn));
    ot = emit_act(g, &act[0], emit_clip(g, p, po));
    hj = fmul(g, ot, emit_act(g, &act[2], cn));
    stf(g, cn, gepf(g, cs, j));
    stf(g, hj, gepf(g, hs, j));
    if (y)
        stf(g, hj, gepf(g, y, j));
    loop_end(g, &l);
}

/* minf / maxf of rt_tissue.c, on floats or vectors. */
static LLVMValueRef
tis_min(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return sel(g, flt(g, a, b), a, b);
}

static LLVMValueRef
tis_max(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return sel(g, fgt(g, a, b), a, b);
}

/* The constant v as a float, or splat to <vl x float> when vec. */
static LLVMValueRef
tis_k(kg *g, int vec, double v)
{
    LLVMValueRef e[16];
    int i;

    if (!vec)
        return cf(g, v);
    for (i = 0; i < g->vl; i++)
        e[i] = cf(g, v);
    return LLVMConstVector(e, (unsigned)g->vl);
}

/* Algorithm 2 line 5 for gate i, c or o: gate_overlap of rt_tissue.c. */
static LLVMValueRef
tis_overlap(kg *g, int vec, LLVMValueRef xb, LLVMValueRef dsum)
{
    LLVMValueRef a = intrinsic(g, "llvm.fabs", vec ? g->vf : g->f32, &xb, 1), s;
    LLVMValueRef two = tis_k(g, vec, 2.0), zero = tis_k(g, vec, 0.0);

    s = tis_min(g, fadd(g, two, tis_min(g, two, a)),
                tis_min(g, two, fsub(g, fadd(g, two, dsum), tis_max(g, two, a))));
    return sel(g, fgt(g, s, zero), s, zero);
}

/* Lines 4-7 for unit(s) j of P row x: so (sf + si sc), a float or a vector of vl units. */
static LLVMValueRef
tis_link_term(kg *g, int vec, int64_t H, LLVMValueRef x, LLVMValueRef dsum, LLVMValueRef j)
{
    LLVMTypeRef ty = vec ? g->vf : g->f32;
    LLVMValueRef v[4], dv[4], sf;
    int q;

    for (q = 0; q < 4; q++) { /* P and D rows are i, o, f, c */
        v[q] = ldt(g, ty, gepf(g, gepc(g, x, q * H), j));
        dv[q] = ldt(g, ty, gepf(g, gepc(g, dsum, q * H), j));
    }
    sf = tis_min(g, tis_k(g, vec, 4.0),
                 tis_max(g, fadd(g, fadd(g, v[2], dv[2]), tis_k(g, vec, 2.0)), tis_k(g, vec, 0.0)));
    return fmul(
        g, tis_overlap(g, vec, v[1], dv[1]),
        fadd(g, sf, fmul(g, tis_overlap(g, vec, v[0], dv[0]), tis_overlap(g, vec, v[3], dv[3]))));
}

/*
 * rel[r] = S of the link into each of the C rows r of Pd (Algorithm 2, as
 * lstmc_rt_lstm_relevance), summed in vector lanes: the C kernel sums unit by unit, so S may
 * differ from its value in the last bits (a link whose S is within rounding of alpha_inter can
 * be cut by one kernel and not by the other).
 */
static void
tis_relevance(kg *g, int64_t H, int64_t C, LLVMValueRef Pd, LLVMValueRef dsum, LLVMValueRef rel)
{
    const int64_t nv = H / g->vl;
    LLVMValueRef r, x, acc = entry_alloca(g, g->vf), S, j;
    kloop lr, lj;
    int64_t k;

    r = loop_begin(g, &lr, ci(g, 0), ci(g, C));
    x = gepf(g, Pd, mul(g, r, ci(g, 4 * H)));
    LLVMBuildStore(g->b, LLVMConstNull(g->vf), acc);
    if (nv > 0) {
        j = mul(g, loop_begin(g, &lj, ci(g, 0), ci(g, nv)), ci(g, g->vl));
        LLVMBuildStore(
            g->b, fadd(g, LLVMBuildLoad2(g->b, g->vf, acc, ""), tis_link_term(g, 1, H, x, dsum, j)),
            acc);
        loop_end(g, &lj);
    }
    S = drs_hsum(g, cf(g, 0.0), LLVMBuildLoad2(g->b, g->vf, acc, ""));
    for (k = nv * g->vl; k < H; k++) /* the units left */
        S = fadd(g, S, tis_link_term(g, 0, H, x, dsum, ci(g, k)));
    stf(g, S, gepf(g, rel, r));
    loop_end(g, &lr);
}

/* The declaration of the runtime's lstmc_rt_tissue_plan in this module. */
static LLVMValueRef
tis_plan_fn(kg *g, LLVMTypeRef *fty)
{
    LLVMTypeRef a[9];
    LLVMValueRef f = LLVMGetNamedFunction(g->m, "lstmc_rt_tissue_plan");
    int i;

    for (i = 0; i < 9; i++)
        a[i] = g->ptr;
    a[1] = g->i32;
    a[2] = g->f32;
    *fty = LLVMFunctionType(g->i32, a, 9, 0);
    return f ? f : LLVMAddFunction(g->m, "lstmc_rt_tissue_plan", *fty);
}

/* Offset (floats, i64) of P's / X's row (t, n). */
static LLVMValueRef
tis_row(kg *g, const lstmc_rt_rnn_params *p, LLVMValueRef t, LLVMValueRef n)
{
    return p->layout ? add(g, mul(g, n, ci(g, p->seq_len)), t)
                     : add(g, mul(g, t, ci(g, p->batch)), n);
}

/* Offset of state row (d, n): [D, N, H] or [N, D, H]. */
static LLVMValueRef
tis_state_at(kg *g, const lstmc_rt_rnn_params *p, int32_t d, LLVMValueRef n)
{
    return mul(g,
               p->layout ? add(g, mul(g, n, ci(g, p->n_dirs)), ci(g, d))
                         : add(g, ci(g, d * p->batch), n),
               ci(g, p->hidden));
}

/* lstmc_rt_lstm_tissue, or lstmc_rt_lstm_tissue_drs when drs (alpha_intra after
 * alpha_inter; Uo, Ufic after c_pred; drs_stats after stats). */
static void
emit_tissue(kg *g, const kp_call *kc, int drs)
{
    const lstmc_rt_tissue_params *tp = &kc->p.tissue.p;
    const lstmc_rt_rnn_params *p = &tp->rnn;
    const int64_t T = p->seq_len, N = p->batch, H = p->hidden, G = 4 * H, D = p->n_dirs;
    const unsigned o = drs ? 1 : 0;
    LLVMValueRef pp = LLVMGetParam(g->fn, 0), alpha = LLVMGetParam(g->fn, 1);
    LLVMValueRef alpha_intra = drs ? LLVMGetParam(g->fn, 2) : NULL;
    LLVMValueRef P = LLVMGetParam(g->fn, 2 + o), Up = LLVMGetParam(g->fn, 3 + o);
    LLVMValueRef rsum = LLVMGetParam(g->fn, 4 + o), sl = LLVMGetParam(g->fn, 5 + o);
    LLVMValueRef init_h = kc->in[4] ? LLVMGetParam(g->fn, 6 + o) : NULL;
    LLVMValueRef init_c = kc->in[5] ? LLVMGetParam(g->fn, 7 + o) : NULL;
    LLVMValueRef Peep = kc->in[6] ? LLVMGetParam(g->fn, 8 + o) : NULL;
    LLVMValueRef h_pred = kc->in[7] ? LLVMGetParam(g->fn, 9 + o) : NULL;
    LLVMValueRef c_pred = kc->in[8] ? LLVMGetParam(g->fn, 10 + o) : NULL;
    LLVMValueRef Uo = drs ? LLVMGetParam(g->fn, 12) : NULL;
    LLVMValueRef Ufic = drs ? LLVMGetParam(g->fn, 13) : NULL;
    LLVMValueRef Y = kc->out[0] ? LLVMGetParam(g->fn, 11 + 3 * o) : NULL;
    LLVMValueRef Y_h = kc->out[1] ? LLVMGetParam(g->fn, 12 + 3 * o) : NULL;
    LLVMValueRef Y_c = kc->out[2] ? LLVMGetParam(g->fn, 13 + 3 * o) : NULL;
    LLVMValueRef stats = LLVMGetParam(g->fn, 14 + 3 * o);
    LLVMValueRef dstats = drs ? LLVMGetParam(g->fn, 18) : NULL;
    LLVMValueRef scratch = LLVMGetParam(g->fn, 15 + 4 * o);
    LLVMValueRef dcells = entry_alloca(g, g->i64), dkept = entry_alloca(g, g->i64);
    LLVMValueRef duni = entry_alloca(g, g->i64);
    LLVMTypeRef st_ty = LLVMArrayType(g->i64, 4), plan_ty;
    LLVMValueRef st = entry_alloca(g, st_ty), plan = tis_plan_fn(g, &plan_ty);
    LLVMValueRef gates, hbuf, state, tstart, cn_, ct_, cs_, cfl_;
    const int has_sl = kc->in[3] != NULL;
    lstmc_rt_tissue_layout L;
    LLVMBasicBlockRef join;
    int32_t d;
    kloop l;

    lstmc_rt_tissue_layout_of(tp, &L); /* cg_llvm_handles checked it */
    gates = gepc(g, scratch, L.gates);
    hbuf = gepc(g, scratch, L.hbuf);
    state = gepc(g, scratch, L.state);
    tstart = gepc(g, scratch, L.tstart);
    cn_ = gepc(g, scratch, L.cell_n);
    ct_ = gepc(g, scratch, L.cell_t);
    cs_ = gepc(g, scratch, L.cell_slot);
    cfl_ = gepc(g, scratch, L.cell_flag);
    LLVMBuildStore(g->b, LLVMConstNull(st_ty), st);
    join = if_begin(g, LLVMBuildIsNotNull(g->b, stats, "")); /* zero *stats first, as C */
    LLVMBuildStore(g->b, LLVMConstNull(st_ty), stats);
    tis_endif(g, join);
    LLVMBuildStore(g->b, ci(g, 0), dcells);
    LLVMBuildStore(g->b, ci(g, 0), dkept);
    LLVMBuildStore(g->b, ci(g, 0), duni);
    if (drs)
        tdrs_store_stats(g, H, dstats, ci(g, 0), ci(g, 0), ci(g, 0));
    if (N == 0) {
        LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
        return;
    }
    if (!kc->in[2]) /* no row sums: only alpha <= 0 (nothing cut) is possible */
        drs_ret_if(g, LLVMBuildFCmp(g->b, LLVMRealOGT, alpha, cf(g, 0.0), ""), LSTMC_RT_ERR_NULL);
    if (has_sl) { /* every entry in [0, T] before anything is written */
        LLVMValueRef n = loop_begin(g, &l, ci(g, 0), ci(g, N)), s = tis_ld32(g, sl, n);
        drs_ret_if(g,
                   LLVMBuildOr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, s, ci(g, 0), ""),
                               LLVMBuildICmp(g->b, LLVMIntSGT, s, ci(g, T), ""), ""),
                   LSTMC_RT_ERR_SEQ_LEN);
        loop_end(g, &l);
    }
    if (drs && Peep) /* o_t must not depend on c_t: P_o == 0 */
        for (d = 0; d < D; d++) {
            LLVMValueRef j = loop_begin(g, &l, ci(g, 0), ci(g, H));
            drs_ret_if(g,
                       LLVMBuildFCmp(g->b, LLVMRealUNE,
                                     ldf(g, gepf(g, gepc(g, Peep, d * 3 * H + H), j)), cf(g, 0.0),
                                     ""),
                       LSTMC_RT_ERR_BAD_PARAMS);
            loop_end(g, &l);
        }
    for (d = 0; d < D; d++) {
        const lstmc_rt_act *act = &p->act[d * 3];
        LLVMValueRef args[9], K, tau, c0, m, e, n, t, slot, fl, hs, cs, s, y;
        LLVMValueRef pe = Peep ? gepc(g, Peep, d * 3 * H) : NULL;
        LLVMValueRef Ud = gepc(g, Up, d * H * G), Pd = gepc(g, P, d * L.cells * G);
        LLVMBasicBlockRef j2, jelse;
        kloop lt, li;

        args[0] = pp;
        args[1] = LLVMConstInt(g->i32, (unsigned long long)d, 0);
        args[2] = alpha;
        args[3] = P;
        args[4] = kc->in[2] ? rsum : LLVMConstNull(g->ptr);
        args[5] = kc->in[2] ? gepc(g, scratch, L.rel) : LLVMConstNull(g->ptr);
        args[6] = has_sl ? sl : LLVMConstNull(g->ptr);
        args[7] = st;
        args[8] = scratch;
        if (kc->in[2]) { /* breakpoint search, S of every link: only when something may be cut */
            join = if_begin(g, LLVMBuildFCmp(g->b, LLVMRealOGT, alpha, cf(g, 0.0), ""));
            tis_relevance(g, H, L.cells, Pd, gepc(g, rsum, d * G), gepc(g, scratch, L.rel));
            tis_endif(g, join);
        }
        K = LLVMBuildCall2(g->b, plan_ty, plan, args, 9, "");
        drs_ret_if(g, LLVMBuildICmp(g->b, LLVMIntSLT, K, LLVMConstInt(g->i32, 0, 0), ""),
                   LSTMC_RT_ERR_BAD_PARAMS);
        tau = loop_begin(g, &lt, ci(g, 0), LLVMBuildSExt(g->b, K, g->i64, ""));
        c0 = tis_ld32(g, tstart, tau);
        m = LLVMBuildSub(g->b, tis_ld32(g, tstart, add(g, tau, ci(g, 1))), c0, "");
        /* gather */
        e = add(g, c0, loop_begin(g, &li, ci(g, 0), m));
        n = tis_ld32(g, cn_, e);
        t = tis_ld32(g, ct_, e);
        slot = tis_ld32(g, cs_, e);
        fl = tis_ld32(g, cfl_, e);
        hs = gepf(g, state, mul(g, slot, ci(g, 2 * H)));
        cs = gepc(g, hs, H);
        jelse = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_else");
        j2 = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_started");
        {
            LLVMBasicBlockRef seq0 = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_seq0");
            LLVMValueRef f1 = LLVMBuildAnd(g->b, fl, ci(g, LSTMC_RT_TISSUE_SEQ_START), "");
            LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, f1, ci(g, 0), ""), seq0, jelse);
            LLVMPositionBuilderAtEnd(g->b, seq0);
            s = tis_state_at(g, p, d, n);
            emit_copy(g, hs, init_h ? gepf(g, init_h, s) : NULL, H, NULL);
            emit_copy(g, cs, init_c ? gepf(g, init_c, s) : NULL, H, NULL);
            LLVMBuildBr(g->b, j2);
            LLVMPositionBuilderAtEnd(g->b, jelse); /* after a cut: Eq. 6 */
            join = if_begin(
                g, LLVMBuildICmp(g->b, LLVMIntNE,
                                 LLVMBuildAnd(g->b, fl, ci(g, LSTMC_RT_TISSUE_CUT_START), ""),
                                 ci(g, 0), ""));
            emit_copy(g, hs, h_pred ? gepc(g, h_pred, d * H) : NULL, H, NULL);
            emit_copy(g, cs, c_pred ? gepc(g, c_pred, d * H) : NULL, H, NULL);
            tis_endif(g, join);
            LLVMBuildBr(g->b, j2);
            LLVMPositionBuilderAtEnd(g->b, j2);
        }
        emit_copy(g, gepf(g, gates, mul(g, LLVMBuildSub(g->b, e, c0, ""), ci(g, G))),
                  gepf(g, Pd, mul(g, tis_row(g, p, t, n), ci(g, G))), G, NULL);
        emit_copy(g, gepf(g, hbuf, mul(g, LLVMBuildSub(g->b, e, c0, ""), ci(g, H))), hs, H, NULL);
        loop_end(g, &li);
        /* Sgemm(U, H_t); DRS: U_o, o_t, then the rows of U_f,i,c the cells keep */
        if (drs) {
            LLVMBuildStore(g->b, add(g, LLVMBuildLoad2(g->b, g->i64, dcells, ""), m), dcells);
            tdrs_o_product(g, H, L.cap, m, hbuf, gepc(g, Uo, d * H * H), gates);
            tdrs_rows(g, p, act, m, hbuf, gepc(g, Ufic, d * 3 * H * H), gates, alpha_intra, dkept,
                      duni);
        } else {
            tis_product(g, H, L.cap, m, hbuf, Ud, gates);
        }
        /* update and outputs */
        e = add(g, c0, loop_begin(g, &li, ci(g, 0), m));
        n = tis_ld32(g, cn_, e);
        t = tis_ld32(g, ct_, e);
        slot = tis_ld32(g, cs_, e);
        fl = tis_ld32(g, cfl_, e);
        hs = gepf(g, state, mul(g, slot, ci(g, 2 * H)));
        cs = gepc(g, hs, H);
        y = Y ? gepf(g, Y, drs_y_at(g, p, t, d, n)) : NULL;
        if (drs)
            drs_update(g, p, act, pe,
                       gepf(g, gates, mul(g, LLVMBuildSub(g->b, e, c0, ""), ci(g, G))), alpha_intra,
                       hs, cs, y);
        else
            tis_update(g, p, act, pe,
                       gepf(g, gates, mul(g, LLVMBuildSub(g->b, e, c0, ""), ci(g, G))), hs, cs, y);
        if (Y_h || Y_c) {
            join = if_begin(
                g, LLVMBuildICmp(g->b, LLVMIntNE,
                                 LLVMBuildAnd(g->b, fl, ci(g, LSTMC_RT_TISSUE_SEQ_END), ""),
                                 ci(g, 0), ""));
            s = tis_state_at(g, p, d, n);
            if (Y_h)
                emit_copy(g, gepf(g, Y_h, s), hs, H, NULL);
            if (Y_c)
                emit_copy(g, gepf(g, Y_c, s), cs, H, NULL);
            tis_endif(g, join);
        }
        loop_end(g, &li);
        loop_end(g, &lt);
        /* rows past each sequence's end are zero; an empty sequence has zero Y_h / Y_c */
        if (has_sl && (Y || Y_h || Y_c)) {
            n = loop_begin(g, &li, ci(g, 0), ci(g, N));
            s = tis_ld32(g, sl, n);
            if (Y) {
                t = loop_begin(g, &lt, s, ci(g, T));
                emit_copy(g, gepf(g, Y, drs_y_at(g, p, t, d, n)), NULL, H, NULL);
                loop_end(g, &lt);
            }
            if (Y_h || Y_c) {
                join = if_begin(g, LLVMBuildICmp(g->b, LLVMIntEQ, s, ci(g, 0), ""));
                if (Y_h)
                    emit_copy(g, gepf(g, Y_h, tis_state_at(g, p, d, n)), NULL, H, NULL);
                if (Y_c)
                    emit_copy(g, gepf(g, Y_c, tis_state_at(g, p, d, n)), NULL, H, NULL);
                tis_endif(g, join);
            }
            loop_end(g, &li);
        }
    }
    join = if_begin(g, LLVMBuildIsNotNull(g->b, stats, ""));
    LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, st_ty, st, ""), stats);
    tis_endif(g, join);
    if (drs)
        tdrs_store_stats(g, H, dstats, LLVMBuildLoad2(g->b, g->i64, dcells, ""),
                         LLVMBuildLoad2(g->b, g->i64, dkept, ""),
                         LLVMBuildLoad2(g->b, g->i64, duni, ""));
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
}

/* 1 when the LLVM kernels implement every activation of the layer. */
static int
tissue_act_ok(const lstmc_rt_rnn_params *p)
{
    int k;

    for (k = 0; k < 3 * p->n_dirs; k++)
        if (!act_ok(p->act[k].kind))
            return 0;
    return 1;
}

/* 1 when emit_tissue handles call c. */
static int
tissue_handles(const kp_call *c)
{
    const lstmc_rt_rnn_params *p = &c->p.tissue.p.rnn;
    lstmc_rt_tissue_layout L;

    if (c->kind == KP_LSTM_TISSUE_DRS) /* keep, count, R after the plain kernel's words */
        return c->in[9] && c->in[10] && lstmc_rt_tissue_layout_of(&c->p.tissue.p, &L) == 0 &&
               c->scratch_bytes >= 4 * lstmc_rt_lstm_tissue_drs_scratch(&c->p.tissue.p) &&
               p->hsparse_th == 0.0f && tissue_act_ok(p);
    if (c->kind != KP_LSTM_TISSUE || !c->in[1] || p->hsparse_th != 0.0f ||
        lstmc_rt_tissue_layout_of(&c->p.tissue.p, &L) < 0 || c->scratch_bytes < 4 * L.words)
        return 0;
    return tissue_act_ok(p);
}

/* --- U in column panels --------------------------------------------------------------- */

/*
 * Row-major, the recurrent product reads Rt [H, GH] one column tile at a time
 * (for_col_segments), k going down the rows: nv*w floats per k at a stride of GH floats
 * (8 KiB for H 512), which the hardware prefetchers do not follow across pages; at L3 sizes
 * that costs up to 30 % (bench/compare/u_pattern.c, bench/RESULTS.md issue 4). So the
 * weights of the call are stored in panels instead, as MLAS packs B: every tile's H x width
 * block contiguous, in the order the tiles are walked, and emit_tile prefetches the panel
 * REC_PF_ROWS rows ahead. The columns of each gemv range [r0, r0+n) of a direction's block
 * are cut exactly as for_col_segments cuts them (full tiles of REC_NB vectors, one tile of
 * the vectors left, scalar tiles of at most 8); element (k, r0+c0+j) of the segment
 * [c0, c0+ws) goes to H*(r0+c0) + k*ws + j.
 * A U in a reduced-precision format (issue 12) is packed the same way, element for element
 * (2 or 1 bytes each; int8's column scales, in front of the values, stay in column order),
 * so its tiles read one contiguous stream too instead of a new page for every k.
 */

/* The gemv column ranges of a cell (emit_*_step): LSTM [0, 4H); GRU [0, 2H) and [2H, 3H);
 * RNN [0, H); on nt > 1 threads (emit_rec_mt, LSTM) [q*H + j0, q*H + j1) for every slice
 * and gate q. Returns how many. */
static int
rec_ranges(const lstmc_rt_rnn_params *p, int vl, int nt, int64_t r0[4 * MT_MAX],
           int64_t n[4 * MT_MAX])
{
    int nr = 0, t, q;

    if (nt > 1) {
        for (t = 0; t < nt; t++) {
            int64_t j0, j1;
            mt_slice(p->hidden, nt, vl, t, &j0, &j1);
            for (q = 0; q < 4 && j1 > j0; q++, nr++) {
                r0[nr] = q * p->hidden + j0;
                n[nr] = j1 - j0;
            }
        }
        return nr;
    }
    r0[0] = 0;
    n[0] = cell_gates(p->cell) * p->hidden;
    if (p->cell != LSTMC_RT_CELL_GRU)
        return 1;
    n[0] = 2 * p->hidden;
    r0[1] = 2 * p->hidden;
    n[1] = p->hidden;
    return 2;
}

/* The layout key of ir_tensor.panels: vector width and threads. */
#define PANELS_KEY(vl, nt) ((vl) * 64 + (nt))

/*
 * W of the input projection (KP_RNN_PROJ) in panels too. proj_seg walks a column strip of
 * W [I, GH] once per block of rows of X; row-major, each k of the strip is a new page (GH
 * floats apart: 24 KB for H 1500), and a cpu-clock profile of E-Wiki put 48 % of the fp32
 * projection's samples on one W load (bench/RESULTS.md, issue 4). The column ranges are those
 * emit_proj (one, [0, GH)) or emit_proj_mt_body (mt_slice per thread) cut.
 */
static int
proj_ranges(int64_t GH, int vl, int nt, int64_t r0[MT_MAX], int64_t n[MT_MAX])
{
    int t, nr = 0;
    if (nt <= 1) {
        r0[0] = 0;
        n[0] = GH;
        return 1;
    }
    for (t = 0; t < nt; t++) {
        int64_t c0, c1;
        mt_slice(GH, nt, PROJ_NB * vl, t, &c0, &c1);
        r0[nr] = c0;
        n[nr++] = c1 - c0;
    }
    return nr;
}

/* One direction's [K, GH] block of es-byte elements of the weights of call c (the U of a
 * REC call, the W of a PROJ call): dst = src in the panels of layout key (to 1) or back
 * (to 0). Each column range (rec_ranges, proj_ranges) is cut as for_col_segments cuts it;
 * element (k, r0+c0+j) of the segment [c0, c0+ws) goes to K*(r0+c0) + k*ws + j. */
static void
rec_relayout_block(unsigned char *dst, const unsigned char *src, int64_t es, const kp_call *c,
                   int key, int to)
{
    const int vl = key / 64, proj = c->kind == KP_RNN_PROJ;
    const lstmc_rt_rnn_params *p = &c->p.rnn;
    const int64_t H = proj ? c->p.proj.hidden : p->hidden;
    const int64_t GH = cell_gates(proj ? c->p.proj.cell : p->cell) * H;
    const int64_t K = proj ? c->p.proj.input_size : H;
    const int64_t tw = (int64_t)(proj ? proj_nb(c->wfmt, vl) : REC_NB) * vl;
    int64_t r0[4 * MT_MAX], n[4 * MT_MAX], c0, k, j;
    int nr = proj ? proj_ranges(GH, vl, key % 64, r0, n) : rec_ranges(p, vl, key % 64, r0, n);
    int r;

    for (r = 0; r < nr; r++)
        for (c0 = 0; c0 < n[r];) {
            int64_t ws;
            if (c0 < n[r] / tw * tw)
                ws = tw;
            else if ((n[r] - c0) / vl > 0)
                ws = (n[r] - c0) / vl * vl;
            else
                ws = n[r] - c0 > 8 ? 8 : n[r] - c0;
            for (k = 0; k < K; k++)
                for (j = 0; j < ws; j++) {
                    int64_t pi = K * (r0[r] + c0) + k * ws + j, ri = k * GH + r0[r] + c0 + j;
                    if (to)
                        memcpy(dst + pi * es, src + ri * es, (size_t)es);
                    else
                        memcpy(dst + ri * es, src + pi * es, (size_t)es);
                }
            c0 += ws;
        }
}

/* Bring the U of REC call c (the W of a PROJ call) to the panels of layout key (PANELS_KEY)
 * or to C order (0). */
static int
rec_relayout(const kp_call *c, int key, diag *d)
{
    const int proj = c->kind == KP_RNN_PROJ;
    const int32_t D = proj ? c->p.proj.n_dirs : c->p.rnn.n_dirs;
    const int64_t H = proj ? c->p.proj.hidden : c->p.rnn.hidden;
    const int64_t GH = cell_gates(proj ? c->p.proj.cell : c->p.rnn.cell) * H;
    const int64_t K = proj ? c->p.proj.input_size : H, es = wfmt_bytes(c->wfmt);
    ir_tensor *t = c->in[1];
    const size_t blk = (size_t)(GH * K * es); /* bytes of one direction */
    unsigned char *tmp, *data = t->data;
    int32_t dir;

    if (t->panels == key)
        return 0;
    if (c->wfmt == LSTMC_RT_WFMT_INT8) /* the values follow the D*GH scales (lstmc_rt.h) */
        data += 4 * D * GH;
    tmp = malloc(blk);
    if (!tmp) {
        diag_error(d, "out of memory");
        return -1;
    }
    for (dir = 0; dir < D; dir++) {
        unsigned char *b = data + dir * blk;
        memcpy(tmp, b, blk);
        if (t->panels) { /* packed for another layout: back to C order first */
            rec_relayout_block(b, tmp, es, c, t->panels, 0);
            memcpy(tmp, b, blk);
        }
        if (key)
            rec_relayout_block(b, tmp, es, c, key, 1);
    }
    free(tmp);
    t->panels = key;
    return 0;
}

/* 1 when calls u and c read weights of the same shape and format (packed alike). */
static int
same_weights(const kp_call *u, const kp_call *c)
{
    if (u->kind != c->kind || u->wfmt != c->wfmt)
        return 0;
    if (c->kind == KP_RNN_PROJ)
        return u->p.proj.hidden == c->p.proj.hidden && u->p.proj.cell == c->p.proj.cell &&
               u->p.proj.n_dirs == c->p.proj.n_dirs &&
               u->p.proj.input_size == c->p.proj.input_size;
    return u->p.rnn.hidden == c->p.rnn.hidden && u->p.rnn.cell == c->p.rnn.cell &&
           u->p.rnn.n_dirs == c->p.rnn.n_dirs;
}

/* 1 when REC call i of kp (LLVM-handled) may read its U in panels, or PROJ call i its W: a
 * constant f32 (or the int32 words of a reduced-precision format, lowp.c) that no other call
 * reads except as the weights of a call of the same kind, shape and format (packed alike),
 * and no OpenCL side that could read it in C order. */
static int
rec_pack_ok(const kprog *kp, int i, const cg_options *o)
{
    const kp_call *c = &kp->calls[i];
    const ir_tensor *t = c->in[1];
    const int proj = c->kind == KP_RNN_PROJ;
    const int64_t D = proj ? c->p.proj.n_dirs : c->p.rnn.n_dirs;
    const int64_t H = proj ? c->p.proj.hidden : c->p.rnn.hidden;
    const int64_t GH = cell_gates(proj ? c->p.proj.cell : c->p.rnn.cell) * H;
    const int64_t K = proj ? c->p.proj.input_size : H;
    int j, k;

    if (o->opencl || !(c->kind == KP_RNN_REC || proj) || !t || !t->data)
        return 0;
    if (c->wfmt ? t->dtype != IR_DT_I32 ||
                      ir_shape_numel(&t->shape) != (lstmc_rt_lowp_bytes(c->wfmt, D, K, GH) + 3) / 4
                : t->dtype != IR_DT_F32 || ir_shape_numel(&t->shape) != D * GH * K)
        return 0;
    for (j = 0; j < kp->n_calls; j++) {
        const kp_call *u = &kp->calls[j];
        for (k = 0; k < KP_MAX_ARGS; k++) {
            if (u->out[k] == t)
                return 0;
            if (u->in[k] != t)
                continue;
            if (k != 1 || !same_weights(u, c) || !cg_llvm_handles(u))
                return 0;
        }
    }
    return 1;
}

/* Smallest hidden size that gets threads by default (without --threads): below it the
 * per-step barrier costs more than the slices save. */
#define MT_MIN_HIDDEN 128

/* Threads for call i of kp: > 1 for an LLVM LSTM RnnRec whose U can be cut into panels or an
 * LLVM RnnProj, when --threads asks for them or by default (the target's cores) for a big
 * enough LSTM layer. */
static int
rec_threads(const kprog *kp, int i, const cg_options *o, const target *t)
{
    const kp_call *c = &kp->calls[i];
    int nt = o->threads > 0 ? o->threads : t->cores;

    if (nt > MT_MAX)
        nt = MT_MAX;
    if (c->wfmt) /* the reduced-precision tiles (emit_proj_lowp, emit_gemv_lowp) are 1-thread */
        return 1;
    if (nt > 1 && c->kind == KP_RNN_PROJ && cg_llvm_handles(c) && !o->opencl)
        return o->threads > 0 ||
                       (c->p.proj.hidden >= MT_MIN_HIDDEN && c->p.proj.cell == LSTMC_RT_CELL_LSTM)
                   ? nt
                   : 1;
    if (nt <= 1 || c->kind != KP_RNN_REC || c->p.rnn.cell != LSTMC_RT_CELL_LSTM ||
        c->scratch_bytes < 28 * c->p.rnn.hidden || !cg_llvm_handles(c) || !rec_pack_ok(kp, i, o))
        return 1;
    if (o->threads == 0 && c->p.rnn.hidden < MT_MIN_HIDDEN)
        return 1;
    return nt;
}

/* --- which calls ----------------------------------------------------------------------- */

int
cg_llvm_handles(const kp_call *c)
{
    int k, nacts;

    if (c->kind == KP_RNN_PROJ) {
        const lstmc_rt_rnn_proj_params *p = &c->p.proj;
        if (p->packed == LSTMC_RT_PACK_ESELL) /* sparse W: the C kernel (rt_spmv.c) */
            return 0;
        return p->packed && p->rows >= 0 && p->input_size >= 1 && p->hidden >= 1 &&
               (p->n_dirs == 1 || p->n_dirs == 2) && p->cell >= LSTMC_RT_CELL_LSTM &&
               p->cell <= LSTMC_RT_CELL_RNN;
    }
    if (c->kind == KP_RNN_REC) {
        const lstmc_rt_rnn_params *p = &c->p.rnn;
        if (!p->packed || p->cell < LSTMC_RT_CELL_LSTM || p->cell > LSTMC_RT_CELL_RNN ||
            p->hidden < 1 || p->seq_len < 0 || p->batch < 0 ||
            (p->n_dirs != 1 && p->n_dirs != 2) || (p->layout != 0 && p->layout != 1) ||
            (p->has_clip && !(p->clip >= 0.0f)) || c->scratch_bytes <= 0)
            return 0;
        if (p->hsparse_th != 0.0f) /* hidden-state sparsity: the C kernel (rt_hsparse.c) */
            return 0;
        if (p->packed == LSTMC_RT_PACK_ESELL) /* sparse U: the C kernel (rt_spmv.c) */
            return 0;
        nacts = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
        for (k = 0; k < nacts * p->n_dirs; k++)
            if (!act_ok(p->act[k].kind))
                return 0;
        return 1;
    }
    if (c->kind == KP_LSTM_DRS) {
        const lstmc_rt_rnn_params *p = &c->p.drs.p;
        if (p->cell != LSTMC_RT_CELL_LSTM || !p->packed || p->hidden < 1 || p->seq_len < 0 ||
            p->batch < 0 || (p->n_dirs != 1 && p->n_dirs != 2) ||
            (p->layout != 0 && p->layout != 1) || (p->has_clip && !(p->clip >= 0.0f)) ||
            c->scratch_bytes < 28 * p->hidden)
            return 0;
        for (k = 0; k < 3 * p->n_dirs; k++)
            if (!act_ok(p->act[k].kind))
                return 0;
        return 1;
    }
    if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS)
        return tissue_handles(c);
    return 0;
}

/* --- module, passes, object file ------------------------------------------------------ */

static void
init_targets(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeARMTargetInfo();
    LLVMInitializeARMTarget();
    LLVMInitializeARMTargetMC();
    LLVMInitializeARMAsmPrinter();
}

/* Whether the comma-separated LLVM feature list turns feature name on (1) or off (0), the
 * last mention winning as in LLVM; -1 when it does not mention it. */
static int
feature_state(const char *features, const char *name)
{
    size_t n = strlen(name);
    int state = -1;
    const char *p = features;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n + 1 && (p[0] == '+' || p[0] == '-') && strncmp(p + 1, name, n) == 0)
            state = p[0] == '+';
        p += len + (end != NULL);
    }
    return state;
}

/* Floats per vector register for the target's features. 32-bit Arm has float vectors only
 * with NEON, which a profile must name (+neon): Cortex-M (thumbv7em, FPU only) gets 1, so
 * the tiles are scalar accumulators in the FPU's registers rather than <4 x float> values
 * LLVM would split into scalars anyway, with four times the register pressure. AArch64
 * always has NEON unless the profile says -neon. */
static int
vector_floats(const char *triple, const char *features)
{
    if (strncmp(triple, "x86_64", 6) == 0 || strncmp(triple, "i686", 4) == 0) {
        if (strstr(features, "+avx512f"))
            return 16;
        if (strstr(features, "+avx"))
            return 8;
    }
    if (strncmp(triple, "arm", 3) == 0 || strncmp(triple, "thumb", 5) == 0)
        return feature_state(features, "neon") == 1 ? 4 : 1;
    if (strncmp(triple, "aarch64", 7) == 0)
        return feature_state(features, "neon") == 0 ? 1 : 4;
    return 4; /* SSE */
}

/*
 * LLVMCreateTargetMachine with a check of the CPU and feature names. LLVM only prints
 * "'+x' is not a recognized feature for this target (ignoring feature)" (or "processor")
 * on stderr and goes on, which would give an object for a different CPU than the profile
 * says; so stderr is captured while the target machine (and with it the subtarget) is made,
 * and such a warning is an error naming the profile. Anything else LLVM prints is passed on.
 */
static LLVMTargetMachineRef
checked_target_machine(LLVMTargetRef tgt, const char *triple, const char *cpu,
                       const char *features, const char *tname, diag *d)
{
    LLVMTargetMachineRef tm;
    FILE *cap = tmpfile();
    int saved = -1, bad = 0;
    char line[512];

    fflush(stderr);
    if (cap)
        saved = dup(2);
    if (saved >= 0 && dup2(fileno(cap), 2) < 0) {
        close(saved);
        saved = -1;
    }
    tm = LLVMCreateTargetMachine(tgt, triple, cpu, features, LLVMCodeGenLevelAggressive,
                                 LLVMRelocPIC, LLVMCodeModelDefault);
    if (saved < 0) { /* no capture possible: make the machine unchecked */
        if (cap)
            fclose(cap);
        return tm;
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    while (fgets(line, sizeof line, cap)) {
        line[strcspn(line, "\n")] = '\0';
        if (strstr(line, "is not a recognized")) {
            diag_error(d, "target '%s': LLVM for '%s' (cpu %s, features '%s'): %s", tname,
                       triple, cpu, features, line);
            bad = 1;
            break; /* LLVM repeats the warning once per table it looks in */
        } else if (line[0]) {
            fprintf(stderr, "%s\n", line);
        }
    }
    fclose(cap);
    if (bad && tm) {
        LLVMDisposeTargetMachine(tm);
        tm = NULL;
    }
    return tm;
}

/* --- stacked LSTM layers as a wavefront (compiler/kprog/schedule.c, issue 4) ---------------------- */

/*
 * <name>_wv<first>(void *const *a): the calls [w->first, w->last] of a wavefront group, their
 * buffers in a (cg_wave_slot: each call's inputs, outputs and scratch, in call order).
 *   <name>_wv<first>: lstmc_rt_wave_reset, then lstmc_rt_pool_run(<name>_wv<first>_w, a, nt)
 *   <name>_wv<first>_w(a, first, end): stages [first, end), stage q on thread q: for every
 *       chunk of w->chunk steps, wait for the chunk of the stage before (q > 0), then for each
 *       of its layers copy the chunk's rows of the layer's input (the Squeeze), project them
 *       (every layer but the first of the group: its G1 GEMM for the chunk) and run the
 *       chunk's steps, batch row after batch row; then post the chunk (lstmc_rt_wave_post).
 * A layer's step is emit_lstm_step as in emit_rec, on the same U panels: bit-identical to the
 * 1-thread kernels. Scratch of each layer: gates [4H], then h and c of every batch row.
 */

/* void fn(i32, i64) or void fn(void) from the runtime */
static void
wave_rt_call(kg *g, const char *fname, LLVMValueRef stage, LLVMValueRef steps)
{
    LLVMTypeRef pt[2], fty;
    LLVMValueRef f, args[2];
    unsigned n = stage ? 2 : 0;

    pt[0] = g->i32;
    pt[1] = g->i64;
    fty = LLVMFunctionType(LLVMVoidTypeInContext(g->cx), pt, n, 0);
    f = LLVMGetNamedFunction(g->m, fname);
    if (!f)
        f = LLVMAddFunction(g->m, fname, fty);
    args[0] = stage;
    args[1] = steps;
    LLVMBuildCall2(g->b, fty, f, args, n, "");
}

typedef struct wave_layer {
    rec_ctx c;
    LLVMValueRef P, Y, Y_h, Y_c, state; /* state: h, c of every batch row */
    LLVMValueRef X, Xsrc, Wt, bias;     /* the input (copied from Xsrc if a COPY), its PROJ */
    int64_t I, copy_n;                  /* copy_n: floats per time step of the COPY, or 0 */
    int wpanels;                        /* 1: Wt is in (1-thread) panels (rec_relayout) */
} wave_layer;

/* slot k of call i (a pointer) from the argument array a */
static LLVMValueRef
wave_arg(kg *g, const kprog *kp, const kp_wave *w, LLVMValueRef a, int i, int k)
{
    LLVMValueRef idx = ci(g, cg_wave_slot(kp, w, i) + k);
    return LLVMBuildLoad2(g->b, g->ptr, LLVMBuildInBoundsGEP2(g->b, g->ptr, a, &idx, 1, ""), "");
}

static void
wave_layer_init(kg *g, const kprog *kp, const kp_wave *w, LLVMValueRef a, int l, int panels,
                wave_layer *L)
{
    const int i = w->rec[l];
    const kp_call *r = &kp->calls[i];
    const lstmc_rt_rnn_params *p = &r->p.rnn;
    const int64_t H = p->hidden;
    LLVMValueRef scratch = wave_arg(g, kp, w, a, i, r->n_in + r->n_out);

    memset(L, 0, sizeof *L);
    L->c.p = p;
    L->c.act = p->act;
    L->c.H = H;
    L->c.GH = 4 * H;
    L->c.Rt = wave_arg(g, kp, w, a, i, 1);
    L->c.peep = r->in[6] ? wave_arg(g, kp, w, a, i, 6) : NULL;
    L->c.gates = scratch;
    L->c.panels = panels & 1;
    L->wpanels = (panels >> 1) & 1;
    L->P = wave_arg(g, kp, w, a, i, 0);
    L->Y = r->out[0] ? wave_arg(g, kp, w, a, i, r->n_in) : NULL;
    L->Y_h = r->out[1] ? wave_arg(g, kp, w, a, i, r->n_in + 1) : NULL;
    L->Y_c = r->out[2] ? wave_arg(g, kp, w, a, i, r->n_in + 2) : NULL;
    L->state = gepc(g, scratch, 4 * H);
    if (l > 0) { /* PROJ at i - 1, a COPY before it when the chain has one */
        const kp_call *pj = &kp->calls[i - 1];
        L->I = pj->p.proj.input_size;
        L->X = wave_arg(g, kp, w, a, i - 1, 0);
        L->Wt = wave_arg(g, kp, w, a, i - 1, 1);
        L->bias = pj->in[2] ? wave_arg(g, kp, w, a, i - 1, 2) : NULL;
        if (kp->calls[i - 2].kind == KP_COPY) {
            L->Xsrc = wave_arg(g, kp, w, a, i - 2, 0);
            L->copy_n = p->batch * L->I;
        }
    }
}

/* Steps [t0, t0 + len) of layer L (t0 an i64 value, len a constant): the input rows and
 * their projection first (l > 0), then the steps of every batch row. */
static void
wave_layer_chunk(kg *g, wave_layer *L, int l, LLVMValueRef t0, int64_t len)
{
    const lstmc_rt_rnn_params *p = L->c.p;
    const int64_t H = p->hidden, GH = 4 * H, N = p->batch;
    LLVMValueRef r0 = mul(g, t0, ci(g, N)), n, t, row;
    kloop ln, lt;

    if (l > 0) {
        proj_ctx pc;
        if (L->copy_n)
            emit_copy(g, gepf(g, L->X, mul(g, t0, ci(g, L->copy_n))),
                      gepf(g, L->Xsrc, mul(g, t0, ci(g, L->copy_n))), len * L->copy_n, NULL);
        pc.rows = len * N;
        pc.I = L->I;
        pc.GH = GH;
        pc.X = gepf(g, L->X, mul(g, r0, ci(g, L->I)));
        pc.wd = L->Wt;
        pc.panels = L->wpanels;
        pc.bd = L->bias;
        pc.Pd = gepf(g, L->P, mul(g, r0, ci(g, GH)));
        for_col_segments(g, GH, PROJ_NB, proj_seg, &pc);
    }
    n = loop_begin(g, &ln, ci(g, 0), ci(g, N));
    L->c.h = gepf(g, L->state, mul(g, n, ci(g, 2 * H)));
    L->c.c = gepc(g, L->c.h, H);
    t = loop_begin(g, &lt, t0, add(g, t0, ci(g, len)));
    row = add(g, mul(g, t, ci(g, N)), n); /* layout 0, one direction: Y row = P row */
    emit_lstm_step(g, &L->c, gepf(g, L->P, mul(g, row, ci(g, GH))),
                   L->Y ? gepf(g, L->Y, mul(g, row, ci(g, H))) : NULL);
    loop_end(g, &lt);
    loop_end(g, &ln);
}

/* One chunk of stage q: steps [t0, t0 + len). */
static void
wave_chunk(kg *g, const kp_wave *w, wave_layer *L, int q, LLVMValueRef t0, int64_t len)
{
    const int l0 = q ? w->stage_end[q - 1] : 0;
    LLVMValueRef t1 = add(g, t0, ci(g, len));
    int l;

    if (q > 0)
        wave_rt_call(g, "lstmc_rt_wave_wait", LLVMConstInt(g->i32, (unsigned)(q - 1), 0), t1);
    for (l = l0; l < w->stage_end[q]; l++)
        wave_layer_chunk(g, &L[l], l, t0, len);
    if (q + 1 < w->stages)
        wave_rt_call(g, "lstmc_rt_wave_post", LLVMConstInt(g->i32, (unsigned)q, 0), t1);
}

/* The whole of stage q (inside the worker function, a = the argument array). */
static void
wave_stage(kg *g, const kprog *kp, const kp_wave *w, LLVMValueRef a, int q,
           const int *panels)
{
    const int l0 = q ? w->stage_end[q - 1] : 0, l1 = w->stage_end[q];
    const int64_t T = kp->calls[w->rec[0]].p.rnn.seq_len, C = w->chunk;
    wave_layer L[KP_WAVE_MAX];
    int l;

    for (l = l0; l < l1; l++) {
        const kp_call *r = &kp->calls[w->rec[l]];
        const int64_t H = r->p.rnn.hidden;
        LLVMValueRef init_h, init_c, n, h;
        kloop ln;
        wave_layer_init(g, kp, w, a, l, panels[l], &L[l]);
        init_h = r->in[4] ? wave_arg(g, kp, w, a, w->rec[l], 4) : NULL;
        init_c = r->in[5] ? wave_arg(g, kp, w, a, w->rec[l], 5) : NULL;
        n = loop_begin(g, &ln, ci(g, 0), ci(g, r->p.rnn.batch)); /* state_at: [1, N, H] */
        h = gepf(g, L[l].state, mul(g, n, ci(g, 2 * H)));
        emit_copy(g, h, init_h ? gepf(g, init_h, mul(g, n, ci(g, H))) : NULL, H, NULL);
        emit_copy(g, gepc(g, h, H), init_c ? gepf(g, init_c, mul(g, n, ci(g, H))) : NULL, H,
                  NULL);
        loop_end(g, &ln);
    }
    if (T / C > 0) {
        kloop lk;
        LLVMValueRef k = loop_begin(g, &lk, ci(g, 0), ci(g, T / C));
        wave_chunk(g, w, L, q, mul(g, k, ci(g, C)), C);
        loop_end(g, &lk);
    }
    if (T % C)
        wave_chunk(g, w, L, q, ci(g, T / C * C), T % C);
    for (l = l0; l < l1; l++) { /* Y_h / Y_c: the state after the last step */
        const int64_t H = L[l].c.H;
        LLVMValueRef n, h;
        kloop ln;
        if (!L[l].Y_h && !L[l].Y_c)
            continue;
        n = loop_begin(g, &ln, ci(g, 0), ci(g, L[l].c.p->batch));
        h = gepf(g, L[l].state, mul(g, n, ci(g, 2 * H)));
        if (L[l].Y_h)
            emit_copy(g, gepf(g, L[l].Y_h, mul(g, n, ci(g, H))), h, H, NULL);
        if (L[l].Y_c)
            emit_copy(g, gepf(g, L[l].Y_c, mul(g, n, ci(g, H))), gepc(g, h, H), H, NULL);
        loop_end(g, &ln);
    }
}

/* Start function f: an entry block for the allocas and a "start" block the builder is at,
 * returned (the caller branches to it from the entry block when the body is done). */
static LLVMBasicBlockRef
fn_begin(kg *g, LLVMValueRef f)
{
    LLVMBasicBlockRef body;
    g->fn = f;
    g->alloca_bb = LLVMAppendBasicBlockInContext(g->cx, f, "entry");
    body = LLVMAppendBasicBlockInContext(g->cx, f, "start");
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMPositionBuilderAtEnd(g->b, body);
    return body;
}

/* A new nounwind function fname of type fty, started (fn_begin). */
static LLVMBasicBlockRef
fn_add(kg *g, const char *fname, LLVMTypeRef fty)
{
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMValueRef f = LLVMAddFunction(g->m, fname, fty);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(g->cx, nounwind, 0));
    return fn_begin(g, f);
}

/* <name>_wv<w->first> and its worker; panels[l]: bit 0, layer l's U is in (1-thread) panels;
 * bit 1, its W is. */
static void
emit_wave(kg *g, const kprog *kp, const kp_wave *w, const char *name, const int *panels)
{
    LLVMTypeRef pt[1], fty;
    LLVMValueRef main_fn, worker;
    LLVMBasicBlockRef body;
    char fname[256];
    int q;

    pt[0] = g->ptr;
    fty = LLVMFunctionType(g->i32, pt, 1, 0);
    snprintf(fname, sizeof fname, "%s_wv%d", name, w->first);
    body = fn_add(g, fname, fty);
    main_fn = g->fn;
    worker = mt_worker_decl(g, fname);
    wave_rt_call(g, "lstmc_rt_wave_reset", NULL, NULL);
    emit_pool_run(g, worker, LLVMGetParam(main_fn, 0), w->threads);
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMBuildBr(g->ab, body);

    /* the worker: stages [first, end) */
    body = fn_begin(g, worker);
    g->wfmt = 0;
    for (q = 0; q < w->stages; q++) {
        LLVMBasicBlockRef join = slice_begin(g, LLVMGetParam(worker, 1),
                                             LLVMGetParam(worker, 2), q);
        wave_stage(g, kp, w, LLVMGetParam(worker, 0), q, panels);
        slice_end(g, join);
    }
    LLVMBuildRetVoid(g->b);
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMBuildBr(g->ab, body);
    g->fn = main_fn;
}

/* Build the function for call i, named <name>_k<i>, with the runtime kernel's signature. */
static void
emit_call(kg *g, const char *name, const kp_call *c, int i)
{
    LLVMTypeRef params[20];
    unsigned n = c->kind == KP_RNN_PROJ ? 5 : c->kind == KP_LSTM_DRS ? 14 : 12, k;
    LLVMTypeRef fty;
    LLVMBasicBlockRef body;
    char fname[256];
    unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);

    for (k = 0; k < n; k++)
        params[k] = g->ptr;
    if (c->kind == KP_LSTM_DRS)
        params[1] = g->f32; /* alpha_intra */
    if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS) {
        n = c->kind == KP_LSTM_TISSUE ? 16 : 20; /* alpha_inter (and alpha_intra) floats */
        for (k = 0; k < n; k++)
            params[k] = g->ptr;
        params[1] = g->f32;
        params[2] = c->kind == KP_LSTM_TISSUE ? g->ptr : g->f32;
    }
    fty = LLVMFunctionType(g->i32, params, n, 0);
    snprintf(fname, sizeof fname, "%s_k%d", name, i);
    body = fn_add(g, fname, fty);
    for (k = 1; k < n; k++)
        if (LLVMGetTypeKind(params[k]) == LLVMPointerTypeKind)
            LLVMAddAttributeAtIndex(g->fn, k + 1, LLVMCreateEnumAttribute(g->cx, noalias, 0));
    g->wfmt = c->wfmt; /* the register tiles read it (emit_tile) */
    if (c->kind == KP_RNN_PROJ && g->threads > 1)
        emit_mt(g, c, fname, g->threads, 5, emit_proj_mt_body);
    else if (c->kind == KP_RNN_PROJ)
        emit_proj(g, c);
    else if (c->kind == KP_LSTM_DRS)
        emit_drs(g, c);
    else if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS)
        emit_tissue(g, c, c->kind == KP_LSTM_TISSUE_DRS);
    else if (g->threads > 1)
        emit_rec_mt(g, c, fname, g->threads);
    else
        emit_rec(g, c);
    g->wfmt = 0;
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMBuildBr(g->ab, body);
}

int
cg_llvm_kernels(const kprog *kp, const cg_options *o, unsigned char *handled, diag *d)
{
    const target *t = target_resolve(o->target ? o->target : "host", d);
    char *triple = NULL, *cpu = NULL, *features = NULL, *err = NULL;
    char path[4096], fname[256];
    LLVMTargetRef tgt;
    LLVMTargetMachineRef tm = NULL;
    LLVMTargetDataRef td;
    char *dl;
    LLVMPassBuilderOptionsRef pbo;
    LLVMErrorRef perr;
    kg g;
    int i, n = 0, rc = -1, n_diag;

    for (i = 0; i < kp->n_calls; i++) {
        handled[i] = (unsigned char)cg_llvm_handles(&kp->calls[i]);
        n += handled[i];
    }
    if (!t)
        return -1; /* reported by target_resolve */
    init_targets();
    if (!t->triple || !t->triple[0]) { /* the host: its triple, CPU and detected features */
        triple = LLVMGetDefaultTargetTriple();
        cpu = t->cpu && t->cpu[0] ? LLVMCreateMessage(t->cpu) : LLVMGetHostCPUName();
        features = t->features && t->features[0] ? LLVMCreateMessage(t->features)
                                                 : LLVMGetHostCPUFeatures();
    } else {
        /* normalised: "thumbv7em-none-eabihf" has its environment (eabihf, the hard-float
         * ABI) in the OS position, which LLVM only finds after normalising; unnormalised,
         * the object silently gets the soft-float ABI */
        triple = LLVMNormalizeTargetTriple(t->triple);
        cpu = LLVMCreateMessage(t->cpu && t->cpu[0] ? t->cpu : "generic");
        features = LLVMCreateMessage(t->features ? t->features : "");
    }
    if (LLVMGetTargetFromTriple(triple, &tgt, &err)) {
        diag_error(d, "target '%s': this lstmc's LLVM has no backend for triple '%s' (%s)",
                   o->target ? o->target : "host", triple, err ? err : "unknown");
        LLVMDisposeMessage(err);
        goto out_msgs;
    }
    n_diag = diag_count(d);
    tm = checked_target_machine(tgt, triple, cpu, features, o->target ? o->target : "host", d);
    if (!tm) {
        if (diag_count(d) == n_diag) /* else checked_target_machine said why */
            diag_error(d, "target '%s': LLVM cannot make a target machine for '%s' (cpu %s)",
                       o->target ? o->target : "host", triple, cpu);
        goto out_msgs;
    }

    memset(&g, 0, sizeof g);
    g.cx = LLVMContextCreate();
    snprintf(fname, sizeof fname, "%s_kernels", o->name);
    g.m = LLVMModuleCreateWithNameInContext(fname, g.cx);
    LLVMSetTarget(g.m, triple);
    td = LLVMCreateTargetDataLayout(tm);
    dl = LLVMCopyStringRepOfTargetData(td);
    LLVMSetDataLayout(g.m, dl);
    LLVMDisposeMessage(dl);
    LLVMDisposeTargetData(td);
    g.b = LLVMCreateBuilderInContext(g.cx);
    g.ab = LLVMCreateBuilderInContext(g.cx);
    g.f32 = LLVMFloatTypeInContext(g.cx);
    g.i32 = LLVMInt32TypeInContext(g.cx);
    g.i64 = LLVMInt64TypeInContext(g.cx);
    g.i1 = LLVMInt1TypeInContext(g.cx);
    g.ptr = LLVMPointerTypeInContext(g.cx, 0);
    g.vl = vector_floats(triple, features);
    g.vf = LLVMVectorType(g.f32, (unsigned)g.vl);
    g.floor_by_cvt = strncmp(triple, "arm", 3) == 0 || strncmp(triple, "thumb", 5) == 0;
    g.f16_native = (strncmp(triple, "x86_64", 6) == 0 && feature_state(features, "f16c") == 1) ||
                   strncmp(triple, "aarch64", 7) == 0;

    g.prefetch = g.vl > 1; /* no vector unit: a microcontroller, no data cache to fill */
    for (i = 0; i < kp->n_calls; i++) {
        const kp_wave *w = cg_wave_of(kp, i);
        if (w && i == w->first) { /* the whole group: one kernel (emit_wave) */
            int panels[KP_WAVE_MAX], l;
            for (l = 0; l < w->n_layers; l++) /* the PROJ of layer l > 0 is at rec[l] - 1 */
                panels[l] = rec_pack_ok(kp, w->rec[l], o) |
                            (l > 0 && rec_pack_ok(kp, w->rec[l] - 1, o)) << 1;
            emit_wave(&g, kp, w, o->name, panels);
        }
        if (w) {
            if (handled[i]) /* the pool's size (c_host.c pool_threads) */
                handled[i] = (unsigned char)w->threads;
            continue;
        }
        if (handled[i]) {
            g.panels = rec_pack_ok(kp, i, o);
            g.threads = rec_threads(kp, i, o, t);
            if (g.threads > 1)
                handled[i] = (unsigned char)g.threads;
            emit_call(&g, o->name, &kp->calls[i], i);
        }
    }

    if (LLVMVerifyModule(g.m, LLVMReturnStatusAction, &err)) {
        diag_error(d, "internal error: the LLVM kernels do not verify: %s", err);
        LLVMDisposeMessage(err);
        goto out_module;
    }
    LLVMDisposeMessage(err);
    err = NULL;
    pbo = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(pbo, 1);
    LLVMPassBuilderOptionsSetSLPVectorization(pbo, 1);
    LLVMPassBuilderOptionsSetLoopUnrolling(pbo, 1);
    perr = LLVMRunPasses(g.m, "default<O3>", tm, pbo);
    LLVMDisposePassBuilderOptions(pbo);
    if (perr) {
        char *msg = LLVMGetErrorMessage(perr);
        diag_error(d, "internal error: LLVM passes failed: %s", msg);
        LLVMDisposeErrorMessage(msg);
        goto out_module;
    }
    if (snprintf(path, sizeof path, "%s/%s.o", o->outdir, fname) >= (int)sizeof path) {
        diag_error(d, "output path '%s/%s.o' is too long", o->outdir, fname);
        goto out_module;
    }
    if (LLVMTargetMachineEmitToFile(tm, g.m, path, LLVMObjectFile, &err)) {
        diag_error(d, "cannot write '%s': %s", path, err ? err : "LLVM error");
        LLVMDisposeMessage(err);
        remove(path);
        goto out_module;
    }
    for (i = 0; i < kp->n_calls; i++) /* the weights as the kernels read them */
        if ((kp->calls[i].kind == KP_RNN_REC || kp->calls[i].kind == KP_RNN_PROJ) &&
            kp->calls[i].in[1] &&
            (kp->calls[i].in[1]->panels || (handled[i] && rec_pack_ok(kp, i, o))) &&
            rec_relayout(&kp->calls[i],
                         handled[i] && rec_pack_ok(kp, i, o)
                             ? PANELS_KEY(g.vl, cg_wave_of(kp, i) ? 1 : handled[i])
                             : 0,
                         d) < 0)
            goto out_module;
    rc = n;
out_module:
    LLVMDisposeBuilder(g.b);
    LLVMDisposeBuilder(g.ab);
    LLVMDisposeModule(g.m);
    LLVMContextDispose(g.cx);
out_msgs:
    if (tm)
        LLVMDisposeTargetMachine(tm);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
    return rc;
}

int
cg_llvm_available(void)
{
    return 1;
}

#else /* !LSTMC_HAVE_LLVM */

int
cg_llvm_handles(const kp_call *c)
{
    (void)c;
    return 0;
}

int
cg_llvm_kernels(const kprog *kp, const cg_options *o, unsigned char *handled, diag *d)
{
    (void)kp;
    (void)o;
    (void)handled;
    diag_error(d, "--emit=llvm: this lstmc was built without LLVM (install llvm-19-dev and "
                  "rebuild), use --emit=c");
    return -1;
}

int
cg_llvm_available(void)
{
    return 0;
}

#endif
