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

/* The float s in every lane of a <w x float> (s itself for w == 1). */
static LLVMValueRef
bcast(kg *g, LLVMValueRef s, int w)
{
    if (w == 1)
        return s;
    return LLVMBuildShuffleVector(
        g->b, LLVMBuildInsertElement(g->b, LLVMGetPoison(g->vf), s, LLVMConstInt(g->i32, 0, 0), ""),
        LLVMGetPoison(g->vf), LLVMConstNull(LLVMVectorType(g->i32, (unsigned)w)), "");
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
        LLVMValueRef s = bcast(g, ldf(g, gepf(g, gepc(g, a, r * lda), k)), w);
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

/*
 * Issue 23: a bf16 U times h with the AVX-512 BF16 dot product. vdpbf16ps adds to each fp32
 * lane the products of two bf16 pairs (exact in fp32: 8 x 8 significant bits), rounding each
 * sum to nearest even; bf16 subnormals in and fp32 subnormals out are flushed to zero. h is
 * cut into `pieces` bf16 arrays (emit_bf16_split): h = hi + mid + lo, every piece but the last
 * the top 8 significant bits of what is left (truncated, so the rest is exact in fp32), the
 * last rounded to nearest even. One piece: h to bf16 (relative error 2^-9, the products
 * those of bf16 activations); two: |error| <= 2^-16 |h|; three: h exactly (24 bits), unless a
 * piece falls below 2^-126 and is flushed. docs/PRECISION.md has the bounds.
 */
int
rec_dot(const kg *g, const kp_tuning *t, int wfmt, int panels)
{
    return t && t->kind && wfmt == LSTMC_RT_WFMT_BF16 && g->x86_bf16 && panels ? t->v[TK_DOT] : 0;
}

/* The bf16 pieces of x (w lanes: a <w x float>, or a float) into pc[0 .. pieces). */
static void
bf16_pieces(kg *g, LLVMValueRef x, int w, int pieces, LLVMValueRef *pc)
{
    LLVMTypeRef i32t = w > 1 ? LLVMVectorType(g->i32, (unsigned)w) : g->i32;
    LLVMTypeRef i16t = w > 1 ? LLVMVectorType(LLVMInt16TypeInContext(g->cx), (unsigned)w)
                             : LLVMInt16TypeInContext(g->cx);
    LLVMTypeRef fty = w > 1 ? LLVMVectorType(g->f32, (unsigned)w) : g->f32;
    LLVMValueRef s16 = splat(i32t, LLVMConstInt(g->i32, 16, 0), w);
    int q;

    for (q = 0; q < pieces; q++) {
        LLVMValueRef bits = LLVMBuildBitCast(g->b, x, i32t, ""), top;
        if (q + 1 < pieces) { /* truncated: x - top is exact */
            top =
                LLVMBuildAnd(g->b, bits, splat(i32t, LLVMConstInt(g->i32, 0xffff0000u, 0), w), "");
            x = fsub(g, x, LLVMBuildBitCast(g->b, top, fty, ""));
        } else { /* to nearest even: + 0x7fff + bit 16 */
            LLVMValueRef odd = LLVMBuildAnd(g->b, LLVMBuildLShr(g->b, bits, s16, ""),
                                            splat(i32t, LLVMConstInt(g->i32, 1, 0), w), "");
            top = add(g, add(g, bits, splat(i32t, LLVMConstInt(g->i32, 0x7fff, 0), w)), odd);
        }
        pc[q] = LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, top, s16, ""), i16t, "");
    }
}

/* hs[q*ldq + k] = piece q of a[k] (bf16 bits) for k < K: w lanes at a time, then one. */
void
emit_bf16_split(kg *g, LLVMValueRef a, int64_t K, int pieces, LLVMValueRef hs, int64_t ldq)
{
    LLVMTypeRef i16 = LLVMInt16TypeInContext(g->cx);
    const int w = g->vl;
    const int64_t kv = K / w * w;
    LLVMValueRef pc[3], k;
    kloop l;
    int q;

    if (kv > 0) {
        k = loop_begin(g, &l, ci(g, 0), ci(g, kv / w));
        k = mul(g, k, ci(g, w));
        bf16_pieces(g, ldt(g, g->vf, gepf(g, a, k)), w, pieces, pc);
        for (q = 0; q < pieces; q++) {
            LLVMValueRef s = LLVMBuildStore(
                g->b, pc[q],
                LLVMBuildInBoundsGEP2(g->b, i16, hs, (LLVMValueRef[]){add(g, k, ci(g, q * ldq))}, 1,
                                      ""));
            LLVMSetAlignment(s, 2);
        }
        loop_end(g, &l);
    }
    if (kv < K) {
        k = loop_begin(g, &l, ci(g, kv), ci(g, K));
        bf16_pieces(g, ldf(g, gepf(g, a, k)), 1, pieces, pc);
        for (q = 0; q < pieces; q++)
            LLVMBuildStore(g->b, pc[q],
                           LLVMBuildInBoundsGEP2(
                               g->b, i16, hs, (LLVMValueRef[]){add(g, k, ci(g, q * ldq))}, 1, ""));
        loop_end(g, &l);
    }
}

/* vdpbf16ps on w fp32 lanes (4, 8, 16): the intrinsic and its type. */
typedef struct dpbf {
    LLVMValueRef fn;
    LLVMTypeRef fty, bfv; /* bfv: <2w x bfloat>, one operand */
} dpbf;

static dpbf
dpbf_of(kg *g, int w)
{
    static const char *const names[3] = {"llvm.x86.avx512bf16.dpbf16ps.128",
                                         "llvm.x86.avx512bf16.dpbf16ps.256",
                                         "llvm.x86.avx512bf16.dpbf16ps.512"};
    const char *name = names[w == 16 ? 2 : w == 8 ? 1 : 0];
    const unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    dpbf d;
    d.fn = LLVMGetIntrinsicDeclaration(g->m, id, NULL, 0);
    d.fty = LLVMIntrinsicGetType(g->cx, id, NULL, 0);
    d.bfv = LLVMVectorType(LLVMBFloatTypeInContext(g->cx), (unsigned)(2 * w));
    return d;
}

/* The two bf16 at int16 index i of hs (a pair of one piece) in every 32-bit lane. */
static LLVMValueRef
dot_pair(kg *g, const dpbf *d, LLVMValueRef hs, LLVMValueRef i, int w)
{
    LLVMTypeRef i32v = LLVMVectorType(g->i32, (unsigned)w);
    LLVMValueRef s = LLVMBuildLoad2(
        g->b, g->i32, LLVMBuildInBoundsGEP2(g->b, LLVMInt16TypeInContext(g->cx), hs, &i, 1, ""),
        "");
    LLVMSetAlignment(s, 2);
    s = LLVMBuildShuffleVector(
        g->b, LLVMBuildInsertElement(g->b, LLVMGetPoison(i32v), s, LLVMConstInt(g->i32, 0, 0), ""),
        LLVMGetPoison(i32v), LLVMConstNull(i32v), "");
    return LLVMBuildBitCast(g->b, s, d->bfv, "");
}

/* *acc += wv . (hv[0] + ... + hv[pieces-1]), pair by pair, the smallest piece first. */
static void
dot_acc(kg *g, const dpbf *d, LLVMValueRef acc, LLVMValueRef wv, const LLVMValueRef *hv, int pieces)
{
    LLVMValueRef cur = LLVMBuildLoad2(g->b, g->vf, acc, "");
    int q;
    for (q = pieces - 1; q >= 0; q--) {
        LLVMValueRef args[3];
        args[0] = cur;
        args[1] = wv;
        args[2] = hv[q];
        cur = LLVMBuildCall2(g->b, d->fty, d->fn, args, 3, "");
    }
    LLVMBuildStore(g->b, cur, acc);
}

/*
 * emit_tile's one row (rb 1) of nv vectors of w (4, 8 or 16) columns over a bf16 panel laid
 * out in pairs (rec_relayout_block): for k < K rounded down to even, pair p's 2 nv w values at
 * b + 2p ldb, column j's two side by side; an odd K's last row as emit_tile reads it, widened
 * against a[K-1]. hs: emit_bf16_split's pieces of a, piece q at hs + q ldq. pf as emit_tile's
 * (elements of one row of the panel ahead).
 */
void
emit_tile_dot(kg *g, LLVMValueRef a, LLVMValueRef hs, int64_t ldq, int pieces, LLVMValueRef b,
              int64_t ldb, int64_t K, LLVMValueRef init, LLVMValueRef out, int nv, int w,
              int64_t pf)
{
    const dpbf d = dpbf_of(g, w);
    const int64_t line = 32; /* bf16 per cache line */
    LLVMValueRef acc[KG_MAX_ACC], hv[3], k, brow;
    kloop lk;
    int v, q;

    for (v = 0; v < nv; v++) {
        acc[v] = entry_alloca(g, g->vf);
        LLVMBuildStore(g->b, init ? ldt(g, g->vf, gepc(g, init, v * w)) : LLVMConstNull(g->vf),
                       acc[v]);
    }
    if (K >= 2) {
        k = loop_begin(g, &lk, ci(g, 0), ci(g, K / 2));
        brow = gepw(g, b, mul(g, k, ci(g, 2 * ldb)));
        if (pf > 0) {
            int64_t off;
            for (off = 0; off < 2 * (int64_t)nv * w; off += line)
                emit_prefetch(g, gepwc(g, brow, pf + off));
        }
        for (q = 0; q < pieces; q++) /* the pair (a[2p], a[2p+1]) of piece q in every lane */
            hv[q] = dot_pair(g, &d, hs, add(g, mul(g, k, ci(g, 2)), ci(g, q * ldq)), w);
        for (v = 0; v < nv; v++) {
            LLVMValueRef wv = LLVMBuildLoad2(g->b, d.bfv, gepwc(g, brow, 2 * (int64_t)v * w), "");
            LLVMSetAlignment(wv, 2);
            dot_acc(g, &d, acc[v], wv, hv, pieces);
        }
        loop_end(g, &lk);
    }
    if (K % 2) { /* the last row alone, widened */
        LLVMValueRef s = bcast(g, ldf(g, gepf(g, a, ci(g, K - 1))), w);
        brow = gepwc(g, b, (K - 1) * ldb);
        for (v = 0; v < nv; v++) {
            LLVMValueRef cur = LLVMBuildLoad2(g->b, g->vf, acc[v], "");
            LLVMBuildStore(g->b, fma_(g, g->vf, s, ldw(g, gepwc(g, brow, (int64_t)v * w), w), cur),
                           acc[v]);
        }
    }
    for (v = 0; v < nv; v++)
        stt(g, LLVMBuildLoad2(g->b, g->vf, acc[v], ""), gepc(g, out, v * w));
}

/* One block of kn (even) terms from term kb (an i64 value) of emit_tile_dot_rows. */
static void
dot_rows_block(kg *g, LLVMValueRef a, int64_t lda, int rb, LLVMValueRef hs, int pieces,
               LLVMValueRef b, int64_t ldb, LLVMValueRef kb, int64_t kn, LLVMValueRef *acc, int nv,
               int w, const dpbf *d)
{
    LLVMTypeRef i16 = LLVMInt16TypeInContext(g->cx);
    LLVMValueRef hv[8][3], p, brow;
    kloop lp;
    int r, v, q;

    for (r = 0; r < rb; r++) /* the block's terms of each row, in pieces */
        emit_bf16_split(g, gepf(g, gepc(g, a, r * lda), kb), kn, pieces,
                        LLVMBuildInBoundsGEP2(
                            g->b, i16, hs, (LLVMValueRef[]){ci(g, (int64_t)r * KG_DOT_KB)}, 1, ""),
                        (int64_t)rb * KG_DOT_KB);
    p = loop_begin(g, &lp, ci(g, 0), ci(g, kn / 2));
    brow = gepw(g, b, mul(g, add(g, kb, mul(g, p, ci(g, 2))), ci(g, ldb)));
    for (r = 0; r < rb; r++)
        for (q = 0; q < pieces; q++)
            hv[r][q] = dot_pair(
                g, d, hs, add(g, mul(g, p, ci(g, 2)), ci(g, ((int64_t)q * rb + r) * KG_DOT_KB)), w);
    for (v = 0; v < nv; v++) {
        LLVMValueRef wv = LLVMBuildLoad2(g->b, d->bfv, gepwc(g, brow, 2 * (int64_t)v * w), "");
        LLVMSetAlignment(wv, 2);
        for (r = 0; r < rb; r++)
            dot_acc(g, d, acc[r * nv + v], wv, hv[r], pieces);
    }
    loop_end(g, &lp);
}

void
emit_tile_dot_rows(kg *g, LLVMValueRef a, int64_t lda, int rb, LLVMValueRef hs, int pieces,
                   LLVMValueRef b, int64_t ldb, int64_t K, LLVMValueRef init, int64_t ldi,
                   LLVMValueRef out, int64_t ldo, int nv, int w)
{
    const dpbf d = dpbf_of(g, w);
    const int64_t K2 = K / 2 * 2, nkb = K2 / KG_DOT_KB, kt = K2 % KG_DOT_KB;
    LLVMValueRef acc[KG_MAX_ACC];
    int r, v;

    for (r = 0; r < rb; r++)
        for (v = 0; v < nv; v++) {
            acc[r * nv + v] = entry_alloca(g, g->vf);
            LLVMBuildStore(
                g->b, init ? ldt(g, g->vf, gepc(g, init, r * ldi + v * w)) : LLVMConstNull(g->vf),
                acc[r * nv + v]);
        }
    if (nkb > 0) {
        kloop lb;
        LLVMValueRef kb = mul(g, loop_begin(g, &lb, ci(g, 0), ci(g, nkb)), ci(g, KG_DOT_KB));
        dot_rows_block(g, a, lda, rb, hs, pieces, b, ldb, kb, KG_DOT_KB, acc, nv, w, &d);
        loop_end(g, &lb);
    }
    if (kt > 0)
        dot_rows_block(g, a, lda, rb, hs, pieces, b, ldb, ci(g, nkb * KG_DOT_KB), kt, acc, nv, w,
                       &d);
    if (K % 2) { /* the last term alone, widened */
        LLVMValueRef brow = gepwc(g, b, (K - 1) * ldb), bv[KG_MAX_ACC];
        for (v = 0; v < nv; v++)
            bv[v] = ldw(g, gepwc(g, brow, (int64_t)v * w), w);
        for (r = 0; r < rb; r++) {
            LLVMValueRef s = bcast(g, ldf(g, gepc(g, a, r * lda + K - 1)), w);
            for (v = 0; v < nv; v++)
                LLVMBuildStore(
                    g->b,
                    fma_(g, g->vf, s, bv[v], LLVMBuildLoad2(g->b, g->vf, acc[r * nv + v], "")),
                    acc[r * nv + v]);
        }
    }
    for (r = 0; r < rb; r++)
        for (v = 0; v < nv; v++)
            stt(g, LLVMBuildLoad2(g->b, g->vf, acc[r * nv + v], ""), gepc(g, out, r * ldo + v * w));
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
