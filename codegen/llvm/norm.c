/*
 * norm.c — KP_LAYERNORM as LLVM code (issue 20): lstmc_rt_layernorm's rows, vectorised.
 * Per row of n elements (every shape a constant):
 *   1. mean = sum x / n            vl-wide partial sums, one horizontal sum, then the tail
 *   2. var  = sum (x - mean)^2 / n the same, over the centred values
 *   3. y    = (x - mean) * (1 / sqrt(var + epsilon)) * Scale + B
 * Two passes for the statistics, as the C kernel (runtime/src/rt_reduce.c); the partial
 * sums change the rounding order only (tests/backends compares the two). With a ranged dim
 * (issue 21, KP_DYN_N) the number of rows is the run's, read from p.
 */
#include "llvm_impl.h"

#include <stddef.h>

#ifdef LSTMC_HAVE_LLVM

/* v (a float value) in every lane of a <vl x float>. */
static LLVMValueRef
vsplat(kg *g, LLVMValueRef v)
{
    LLVMValueRef z = LLVMConstInt(g->i32, 0, 0), mask[64];
    LLVMValueRef one = LLVMBuildInsertElement(g->b, LLVMGetUndef(g->vf), v, z, "");
    int i;
    for (i = 0; i < g->vl; i++)
        mask[i] = z;
    return LLVMBuildShuffleVector(g->b, one, LLVMGetUndef(g->vf),
                                  LLVMConstVector(mask, (unsigned)g->vl), "");
}

/* sum over j < n of f(x[j]) where f is x (centre NULL) or (x - centre)^2: vl-wide partial
 * sums over the whole vectors, their horizontal sum, then the scalar tail. */
static LLVMValueRef
row_sum(kg *g, LLVMValueRef x, int64_t n, LLVMValueRef centre)
{
    const int64_t nv = n / g->vl;
    LLVMValueRef vacc = entry_alloca(g, g->vf), acc = entry_alloca(g, g->f32);
    LLVMValueRef vc = centre ? vsplat(g, centre) : NULL, args[2], s;
    kloop l;

    LLVMBuildStore(g->b, LLVMConstNull(g->vf), vacc);
    if (nv > 0) {
        LLVMValueRef j = loop_begin(g, &l, ci(g, 0), ci(g, nv)), v;
        v = ldt(g, g->vf, gepf(g, x, mul(g, j, ci(g, g->vl))));
        if (vc) {
            v = fsub(g, v, vc);
            v = fma_(g, g->vf, v, v, LLVMBuildLoad2(g->b, g->vf, vacc, ""));
        } else {
            v = fadd(g, LLVMBuildLoad2(g->b, g->vf, vacc, ""), v);
        }
        LLVMBuildStore(g->b, v, vacc);
        loop_end(g, &l);
    }
    args[0] = cf(g, 0.0);
    args[1] = LLVMBuildLoad2(g->b, g->vf, vacc, "");
    s = intrinsic(g, "llvm.vector.reduce.fadd", g->vf, args, 2);
    LLVMSetFastMathFlags(s, LLVMFastMathAllowReassoc);
    LLVMBuildStore(g->b, s, acc);
    if (nv * g->vl < n) {
        LLVMValueRef j = loop_begin(g, &l, ci(g, nv * g->vl), ci(g, n)), v;
        v = ldf(g, gepf(g, x, j));
        if (centre) {
            v = fsub(g, v, centre);
            v = fma_(g, g->f32, v, v, ldf(g, acc));
        } else {
            v = fadd(g, ldf(g, acc), v);
        }
        stf(g, v, acc);
        loop_end(g, &l);
    }
    return ldf(g, acc);
}

/* y[j] = (x[j] - mean) * inv * scale[j*ss] + B[j*bs] for j in [from, to), w lanes at a time
 * (ty float or <vl x float>, w 1 or vl). */
static void
row_out(kg *g, LLVMTypeRef ty, int w, int64_t from, int64_t to, LLVMValueRef x, LLVMValueRef y,
        LLVMValueRef scale, int ss, LLVMValueRef B, int bs, LLVMValueRef mean, LLVMValueRef inv)
{
    kloop l;
    LLVMValueRef j, v, sc, m = w > 1 ? vsplat(g, mean) : mean, iv = w > 1 ? vsplat(g, inv) : inv;
    LLVMValueRef s1 = ss ? NULL : (w > 1 ? vsplat(g, ldf(g, scale)) : ldf(g, scale));
    LLVMValueRef b1 = B && !bs ? (w > 1 ? vsplat(g, ldf(g, B)) : ldf(g, B)) : NULL;
    if (to <= from)
        return;
    j = mul(g, loop_begin(g, &l, ci(g, from / w), ci(g, to / w)), ci(g, w));
    v = fmul(g, fsub(g, ldt(g, ty, gepf(g, x, j)), m), iv);
    sc = ss ? ldt(g, ty, gepf(g, scale, j)) : s1;
    v = B ? fma_(g, ty, v, sc, bs ? ldt(g, ty, gepf(g, B, j)) : b1) : fmul(g, v, sc);
    stt(g, v, gepf(g, y, j));
    loop_end(g, &l);
}

/* lstmc_rt_layernorm(p, X, scale, B, Y) for the call's constant shape; with KP_DYN_N in
 * c->dyn (issue 21) the rows are the run's p->outer, loaded from p and refused
 * (LSTMC_RT_ERR_BAD_PARAMS) above the compiled one. */
void
emit_layernorm(kg *g, const kp_call *c)
{
    const lstmc_rt_layernorm_params *p = &c->p.layernorm;
    const int64_t n = p->n, nv = n / g->vl * g->vl;
    LLVMValueRef X = LLVMGetParam(g->fn, 1), scale = LLVMGetParam(g->fn, 2);
    LLVMValueRef B = c->in[2] ? LLVMGetParam(g->fn, 3) : NULL, Y = LLVMGetParam(g->fn, 4);
    LLVMValueRef r, x, y, mean, var, inv, args[1], outer = ci(g, p->outer);
    kloop l;

    if (c->dyn & KP_DYN_N) {
        outer = ld_param_i64(g, LLVMGetParam(g->fn, 0), offsetof(lstmc_rt_layernorm_params, outer));
        emit_dim_check(g, outer, p->outer);
    }
    r = loop_begin(g, &l, ci(g, 0), outer);
    x = gepf(g, X, mul(g, r, ci(g, n)));
    y = gepf(g, Y, mul(g, r, ci(g, n)));
    mean = LLVMBuildFDiv(g->b, row_sum(g, x, n, NULL), cf(g, (double)n), "");
    var = LLVMBuildFDiv(g->b, row_sum(g, x, n, mean), cf(g, (double)n), "");
    args[0] = fadd(g, var, cf(g, (double)p->epsilon));
    inv = LLVMBuildFDiv(g->b, cf(g, 1.0), intrinsic(g, "llvm.sqrt", g->f32, args, 1), "");
    if (g->vl > 1)
        row_out(g, g->vf, g->vl, 0, nv, x, y, scale, p->scale_stride, B, p->bias_stride, mean, inv);
    row_out(g, g->f32, 1, g->vl > 1 ? nv : 0, n, x, y, scale, p->scale_stride, B, p->bias_stride,
            mean, inv);
    loop_end(g, &l);
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
}

/* The calls emit_layernorm runs: a float row of at least one element, Scale and B read
 * whole or as one value. */
int
layernorm_handles(const kp_call *c)
{
    const lstmc_rt_layernorm_params *p = &c->p.layernorm;
    return c->kind == KP_LAYERNORM && p->outer >= 0 && p->n >= 1 && p->scale_stride >= 0 &&
           p->scale_stride <= 1 && p->bias_stride >= 0 && p->bias_stride <= 1 && c->in[1] &&
           p->epsilon >= 0.0f;
}

#endif /* LSTMC_HAVE_LLVM */
