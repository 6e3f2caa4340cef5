/*
 * tile.c — the register tiles of the LLVM kernels' GEMM parts, written with explicit
 * <VL x float> vectors:
 *   out[r][c .. c+NB*VL) = init + sum_k a[r][k] * B[k][c .. c+NB*VL)
 * with RB x NB accumulators (REC: 1 x 8, the recurrent product h * U for one step; PROJ:
 * 4 x 4, four rows of X at once), a vector tail and a scalar tail for the columns left
 * (for_col_segments). The weights are read in their storage format (fp32, fp16, bf16, int8;
 * issue 12) and widened to float in registers.
 */
#include "llvm_impl.h"

#ifdef LSTMC_HAVE_LLVM

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
#define KG_LINE 16 /* floats per 64-byte cache line */

/* llvm.prefetch(p, read, locality 3 = keep in all levels, data) */
void
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
        sign = LLVMBuildShl(
            g->b, LLVMBuildAnd(g->b, x, splat(i32t, LLVMConstInt(g->i32, 0x8000, 0), w), ""),
            splat(i32t, LLVMConstInt(g->i32, 16, 0), w), "");
        x = LLVMBuildShl(g->b,
                         LLVMBuildAnd(g->b, x, splat(i32t, LLVMConstInt(g->i32, 0x7fff, 0), w), ""),
                         splat(i32t, LLVMConstInt(g->i32, 13, 0), w), "");
        f = fmul(g, LLVMBuildBitCast(g->b, x, fty, ""),
                 splat(fty, LLVMConstReal(g->f32, 5192296858534827628530496329220096.0), w));
        x = LLVMBuildOr(g->b, LLVMBuildBitCast(g->b, f, i32t, ""), sign, "");
        return LLVMBuildBitCast(g->b, x, fty, "");
    }
}

/* Where direction d's weights and scales are in a tensor of D x [K, GH] (lstmc_rt.h). */
void
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
int64_t
wfmt_bytes(int f)
{
    return f == LSTMC_RT_WFMT_INT8 ? 1 : f ? 2 : 4;
}

/* base + i weights of g->wfmt (i an i64 value) */
LLVMValueRef
gepw(kg *g, LLVMValueRef base, LLVMValueRef i)
{
    const int64_t es = wfmt_bytes(g->wfmt);
    if (!g->wfmt)
        return gepf(g, base, i);
    return gepb(g, base, es == 1 ? i : mul(g, i, ci(g, es)));
}

LLVMValueRef
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

LLVMValueRef
emit_ldw(kg *g, LLVMValueRef p, int w)
{
    return ldw(g, p, w);
}

void
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
            LLVMValueRef x0 =
                init && !scale ? ldt(g, ty, gepc(g, init, r * ldi + v * w)) : LLVMConstNull(ty);
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

/* Cover columns [0, ncols) with tiles of nb vectors: a loop over the full tiles, then one
 * tile of the vectors left, then one of the scalar columns left. */
void
for_col_segments(kg *g, int64_t ncols, int nb, seg_fn fn, void *ctx)
{
    for_col_segments_dir(g, ncols, nb, fn, ctx, NULL);
}

/* As for_col_segments, the full tiles from the last to the first when flip (an i1, or NULL:
 * never) is true. */
void
for_col_segments_dir(kg *g, int64_t ncols, int nb, seg_fn fn, void *ctx, LLVMValueRef flip)
{
    const int64_t tw = (int64_t)nb * g->vl, nfull = ncols / tw;
    int64_t col0 = nfull * tw;
    int nv, ns;

    if (nfull == 1) {
        fn(g, ci(g, 0), nb, g->vl, ctx);
    } else if (nfull > 1) {
        kloop l;
        LLVMValueRef t = loop_begin(g, &l, ci(g, 0), ci(g, nfull));
        if (flip)
            t = sel(g, flip, LLVMBuildSub(g->b, ci(g, nfull - 1), t, ""), t);
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

#endif /* LSTMC_HAVE_LLVM */
