/*
 * rnnq.c — KP_RNN_Q, the full-integer LSTM / GRU / RNN layer (issue 22): the recipe of
 * docs/PRECISION.md ("Full-integer recurrent layers") with every shape a constant, bit for
 * bit the integers of lstmc_rt_rnn_q (runtime/src/rt_rnnq.c, the reference).
 *
 * The heavy part is the two int8 dot products per gate row and step, accW = W x and
 * accU = U h. W x is hoisted out of the time loop a chunk of tc steps at a time
 * (kp_rnnq_scratch): the chunk's input rows are converted once and multiplied by W as a
 * GEMM of 4 weight rows x 4 input rows in registers, so W streams once per chunk rather than
 * once per step. U h is a GEMV per step over 4 rows at a time. Both read the weights in the
 * ONNX row layout [D, G*H, K] (row-contiguous dot products), the tails of a row by a masked
 * load on AVX-512 and a scalar loop elsewhere; but VNNI reads them laid out at compile time
 * (emit_lanes, below). The dot product of the target:
 *
 *   QD_VNNI   x86 AVX-512 VNNI, int8 mode: vpdpbusd, unsigned x signed bytes. The activations
 *             are stored biased, a + 128 as a byte, and -128 * sum_k w[k] (computed once per
 *             call, `corr`) added back: sum w (a + 128) - 128 sum w = sum w a, exactly.
 *   QD_WD512  AVX-512BW: the weights sign-extended to int16, vpmaddwd against int16
 *             activations (int16 mode everywhere, int8 mode without VNNI).
 *   QD_WD256  AVX2: the same on ymm (never vpmaddubsw: its int16 pair sums saturate).
 *   QD_SDOT   AArch64 with DotProd, int8 mode: sdot, 16 signed bytes into <4 x i32>.
 *   QD_SMLAD  Cortex-M with the DSP extension (M4, M7, M33): a word of 4 weights split by
 *             sxtb16 into bytes 0, 2 and 1, 3 as int16 pairs, against the activations stored
 *             as int16 in that order ([a0 a2 a1 a3] per group of 4), two smlad (int8 mode)
 *             or smlald (int16 mode, int64 accumulator) per 4 terms.
 *   QD_MVE    Cortex-M55 Helium: acc + vector.reduce.add(mul(sext, sext)) per 16 bytes
 *             (int8) or 8 int16 (int16 mode, in int64), which LLVM selects as vmladava.s8 /
 *             vmlaldava.s16.
 *   QD_GEN    elsewhere: sext to i32, mul, add, <16 x i32>, which LLVM selects per target
 *             (AArch64 without DotProd and Armv7 NEON: sxtl, smull, smlal).
 *
 * Exactness: in int8 mode every partial sum fits int32 (I, H <= 65536, cg_llvm_handles);
 * in int16 mode the int32 lanes of at most 256 vector steps (2 * 32768 * 127 * 256 < 2^31)
 * are widened to int64 and summed there. The element-wise part (requant, the table
 * activations, the cell) is rt_rnnq.c's code line by line, in int64 up to the gate inputs'
 * saturation to int16 and in int32 after it, where every product of two int16 values fits
 * (the bounds at each step in the code); the x86 table activations in int16 lanes.
 *
 * The x86 modes (VNNI, WD512, WD256) add, each path as exact as the above:
 *   - VNNI, int8 mode: W and U laid out at compile time (panels.c rnnq_relayout) in blocks of
 *     16 rows of each range the kernel runs as one (rnnq_ranges), grouped in register tiles
 *     (rnnq_tile_blocks), a group of 4 terms of the 16 rows per 64-byte vector, the tile's
 *     blocks' groups one after the other and the K % 4 tail terms after them, so that every
 *     vpdpbusd against 4 activation bytes broadcast leaves 16 row sums in the lanes, for every
 *     K (emit_lanes, lanes_tile), when every reader of the weights agrees (rnnq_pack_ok);
 *     on one thread with chunks of 16, the next steps' W.x runs in the loops of this step's
 *     U.h (pipe_steps);
 *   - tiles (dot_tile): the accumulators of L rows x 1 activation row (U h) or 4 x 4 (W x)
 *     are summed together by a tree of shuffles and adds (hsum_tree) into vectors of row
 *     sums, rather than one horizontal reduction per dot product;
 *   - short rows packed (emit_pack, lanes_blocks): a row of at most KP_RNNQ_PACK_K terms is
 *     laid out again once per call so that the lanes of a vector are L rows; a group of
 *     activations broadcast to every lane then leaves the L row sums in the lanes, with no
 *     reduction at all (when the call has the steps to pay for the pass);
 *   - the element-wise part on vectors of 32 units, then 8 (emit_units), Q's fields copied
 *     by field once per call, the tables looked up by vpermi2w (AVX-512BW) or a gather;
 *   - the W half of z stored with W x (post_w), and h' as U h reads it stored by the cells.
 */
#include "llvm_impl.h"

#ifdef LSTMC_HAVE_LLVM

#include <stdio.h>

enum { QD_VNNI, QD_WD512, QD_WD256, QD_SDOT, QD_SMLAD, QD_MVE, QD_GEN };

#define RB   4  /* weight rows per register tile */
#define TMAX 32 /* at most: dot products per x86 tile, lanes of an element-wise vector */

typedef struct qctx {
    const lstmc_rt_rnnq_params *p;
    const kp_call *kc; /* its tune: the VNNI kernel's tiles, order and pipelined steps */
    kp_rnnq_scratch L;
    int mode, vk, masked, ab; /* ab: bytes per stored activation (1: int8; VNNI: biased) */
    int biased;               /* VNNI: the activations stored as a + 128 */
    int vw;                   /* x86: units per vector of the element-wise part; 0: scalar */
    LLVMTypeRef i8, i16, acc; /* acc: the vector of int32 lanes */
    LLVMValueRef tab[2];      /* sigmoid, tanh: [513 x i16] */
    LLVMValueRef scratch;
    const struct qdir *post; /* x86, W.x: store requant(sum + zc, mW, nW) + bW (post_w) */
    LLVMValueRef flip;       /* x86, U.h: an i1, true on the steps that run the rows backwards */
} qctx;

typedef struct qdir {
    LLVMValueRef Wd, Ud, Qd, Pd, corrW, corrU;
    LLVMValueRef qs[LSTMC_RT_RNNQ_BR + 1]; /* x86: this direction's rows of each field; NULL */
    LLVMValueRef Pw, Pu;                   /* x86: W, U packed (emit_pack); NULL */
    int wl, ul; /* VNNI: W, U laid out at compile time in tiles of wl, ul blocks (emit_lanes) */
    int zw;     /* x86: accw holds requant(accW + zc, mW, nW) + bW */
    int zb;     /* and bR too (zw, but for GRU's n gate under linear_before_reset) */
    const int32_t *act;
    LLVMValueRef h, c, rg, rha, accw, accu; /* scratch */
    LLVMValueRef ha, ha_next; /* h as the dot reads it: this step's, the next step's */
    int64_t hmax;
} qdir;

/* --- int64 helpers: the recipe's rshr, requant, sat -------------------------------------- */
/* Each works on an i64 or, in the x86 element-wise part, on a vector of q->vw i64 lanes. */

/* ty, or the vector of ty with x's lanes when x is a vector */
static LLVMTypeRef
like(LLVMValueRef x, LLVMTypeRef ty)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMVectorType(ty, LLVMGetVectorSize(t)) : ty;
}

/* the constant v of x's type (an integer or a vector of integers) */
static LLVMValueRef
kof(kg *g, LLVMValueRef x, int64_t v)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef e[TMAX];
    unsigned k, n;

    (void)g;
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return LLVMConstInt(t, (unsigned long long)v, 1);
    n = LLVMGetVectorSize(t);
    for (k = 0; k < n; k++)
        e[k] = LLVMConstInt(LLVMGetElementType(t), (unsigned long long)v, 1);
    return LLVMConstVector(e, n);
}

/* the constant v of the element-wise part's type (q->vw lanes, or a scalar) */
static LLVMValueRef
kv(kg *g, const qctx *q, int64_t v)
{
    LLVMValueRef e[TMAX];
    int k;

    if (!q->vw)
        return ci(g, v);
    for (k = 0; k < q->vw; k++)
        e[k] = ci(g, v);
    return LLVMConstVector(e, (unsigned)q->vw);
}

static LLVMValueRef
sx(kg *g, LLVMValueRef v)
{
    return LLVMBuildSExt(g->b, v, like(v, g->i64), "");
}

/* v sign-extended to the type of t (same lanes) */
static LLVMValueRef
sxt(kg *g, LLVMValueRef v, LLVMValueRef t)
{
    return LLVMBuildSExt(g->b, v, LLVMTypeOf(t), "");
}

/* v (an i64 or a vector of them) as i32 lanes: for values the recipe bounds to int16 */
static LLVMValueRef
n32(kg *g, LLVMValueRef v)
{
    return LLVMBuildTrunc(g->b, v, like(v, g->i32), "");
}

static LLVMValueRef
sub(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSub(g->b, a, b, "");
}

static LLVMValueRef
ashr(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildAShr(g->b, a, b, "");
}

/* floor((x + 2^(n-1)) / 2^n), x for n = 0: the bias (1 << n) >> 1 is 0 at n = 0 */
static LLVMValueRef
rshr(kg *g, LLVMValueRef x, LLVMValueRef n)
{
    LLVMValueRef bias =
        LLVMBuildLShr(g->b, LLVMBuildShl(g->b, kof(g, x, 1), n, ""), kof(g, x, 1), "");
    return ashr(g, add(g, x, bias), n);
}

/*
 * rshr of a product x = a * m of two int32 (|x| < 2^62: the int8 mode's requant_acc) on a
 * 32-bit core, where a 64-bit shift
 * by a register is a sequence of shifts and conditional moves: for the usual n >= 32 the
 * result needs only x's high word hi, as (hi + 2^(s - 1)) >> s with s = n - 32 (the rounding
 * bias 2^(n - 1) lies in the high word; no overflow, |hi| < 2^30), and at s = 0 hi plus the
 * carry of the low word's bit 31. Below 32, rshr.
 */
static LLVMValueRef
rshr_prod(kg *g, const qctx *q, LLVMValueRef x, LLVMValueRef n)
{
    LLVMBasicBlockRef fast, slow, join, bf, bs;
    LLVMValueRef hi, lo, sh, r32, rf, rs, phi, in[2];
    LLVMBasicBlockRef from[2];

    if (!g->word32 || q->p->bits != 8 || LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMVectorTypeKind)
        return rshr(g, x, n); /* int16 mode: x is an int64 accumulator times m */
    fast = LLVMAppendBasicBlockInContext(g->cx, g->fn, "rq_hi");
    slow = LLVMAppendBasicBlockInContext(g->cx, g->fn, "rq_any");
    join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "rq_join");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntUGE, n, ci(g, 32), ""), fast, slow);

    LLVMPositionBuilderAtEnd(g->b, fast);
    hi = LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, x, ci(g, 32), ""), g->i32, "");
    lo = LLVMBuildTrunc(g->b, x, g->i32, "");
    sh = LLVMBuildTrunc(g->b, sub(g, n, ci(g, 32)), g->i32, "");
    r32 = LLVMBuildAdd(g->b, hi,
                       LLVMBuildLShr(g->b, LLVMBuildShl(g->b, LLVMConstInt(g->i32, 1, 0), sh, ""),
                                     LLVMConstInt(g->i32, 1, 0), ""),
                       "");
    r32 = LLVMBuildAdd(g->b, r32,
                       sel(g, LLVMBuildICmp(g->b, LLVMIntEQ, sh, LLVMConstInt(g->i32, 0, 0), ""),
                           LLVMBuildLShr(g->b, lo, LLVMConstInt(g->i32, 31, 0), ""),
                           LLVMConstInt(g->i32, 0, 0)),
                       "");
    rf = sx(g, LLVMBuildAShr(g->b, r32, sh, ""));
    bf = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, join);

    LLVMPositionBuilderAtEnd(g->b, slow);
    rs = rshr(g, x, n);
    bs = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, join);

    LLVMPositionBuilderAtEnd(g->b, join);
    phi = LLVMBuildPhi(g->b, g->i64, "");
    in[0] = rf;
    in[1] = rs;
    from[0] = bf;
    from[1] = bs;
    LLVMAddIncoming(phi, in, from, 2);
    return phi;
}

static LLVMValueRef
rshrc(kg *g, LLVMValueRef x, int n)
{
    return n ? ashr(g, add(g, x, kof(g, x, (int64_t)1 << (n - 1))), kof(g, x, n)) : x;
}

static LLVMValueRef
smax(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return sel(g, LLVMBuildICmp(g->b, LLVMIntSGT, a, b, ""), a, b);
}

static LLVMValueRef
smin(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return sel(g, LLVMBuildICmp(g->b, LLVMIntSLT, a, b, ""), a, b);
}

static LLVMValueRef
satc(kg *g, LLVMValueRef x, int64_t lo, int64_t hi)
{
    return smin(g, smax(g, x, kof(g, x, lo)), kof(g, x, hi));
}

/* byte offset i of base */
static LLVMValueRef
gepb(kg *g, LLVMValueRef base, LLVMValueRef i)
{
    return LLVMBuildInBoundsGEP2(g->b, LLVMInt8TypeInContext(g->cx), base, &i, 1, "");
}

/* element i (an i64 value) of an array of ty at base */
static LLVMValueRef
gept(kg *g, LLVMTypeRef ty, LLVMValueRef base, LLVMValueRef i)
{
    return LLVMBuildInBoundsGEP2(g->b, ty, base, &i, 1, "");
}

static LLVMValueRef
ldi(kg *g, LLVMTypeRef ty, LLVMValueRef base, LLVMValueRef i)
{
    return LLVMBuildLoad2(g->b, ty, gept(g, ty, base, i), "");
}

/* v (an i64 or a vector) as ty at element i of base and on */
static void
sti(kg *g, LLVMTypeRef ty, LLVMValueRef v, LLVMValueRef base, LLVMValueRef i)
{
    LLVMValueRef s =
        LLVMBuildStore(g->b, LLVMBuildTrunc(g->b, v, like(v, ty), ""), gept(g, ty, base, i));
    LLVMSetAlignment(s, LLVMGetIntTypeWidth(ty) / 8);
}

/* element i of base and the q->vw - 1 after it (a scalar without vw) */
static LLVMValueRef
ldw(kg *g, const qctx *q, LLVMTypeRef ty, LLVMValueRef base, LLVMValueRef i)
{
    LLVMValueRef v;
    if (!q->vw)
        return ldi(g, ty, base, i);
    v = LLVMBuildLoad2(g->b, LLVMVectorType(ty, (unsigned)q->vw), gept(g, ty, base, i), "");
    LLVMSetAlignment(v, LLVMGetIntTypeWidth(ty) / 8);
    return v;
}

/* the layer's element (int8 or int16) i of a, as i64 */
static LLVMValueRef
ldx(kg *g, const qctx *q, LLVMValueRef a, LLVMValueRef i)
{
    return sx(g, ldi(g, q->p->bits == 8 ? q->i8 : q->i16, a, i));
}

static void
stx(kg *g, const qctx *q, LLVMValueRef v, LLVMValueRef a, LLVMValueRef i)
{
    sti(g, q->p->bits == 8 ? q->i8 : q->i16, v, a, i);
}

/* the i32 at each pointer of the vector ptrs (llvm.masked.gather, all lanes) */
static LLVMValueRef
gather32(kg *g, LLVMValueRef ptrs)
{
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(ptrs)), k,
             id = LLVMLookupIntrinsicID("llvm.masked.gather", 18);
    LLVMValueRef ones[TMAX], args[4], f;
    LLVMTypeRef tys[2], ft;

    for (k = 0; k < n; k++)
        ones[k] = LLVMConstInt(g->i1, 1, 0);
    tys[0] = LLVMVectorType(g->i32, n);
    tys[1] = LLVMTypeOf(ptrs);
    f = LLVMGetIntrinsicDeclaration(g->m, id, tys, 2);
    ft = LLVMIntrinsicGetType(g->cx, id, tys, 2);
    args[0] = ptrs;
    args[1] = LLVMConstInt(g->i32, 2, 0);
    args[2] = LLVMConstVector(ones, n);
    args[3] = LLVMGetUndef(tys[0]);
    return LLVMBuildCall2(g->b, ft, f, args, 4, "");
}

/* a call of the non-overloaded intrinsic name, its arguments bitcast to its parameter types */
static LLVMValueRef xcall(kg *g, const char *name, LLVMValueRef *args, unsigned n);

/*
 * AVX-512BW: T[i] (s = 0) or T[i + 1] (s = 1) of the table of kind for i, 32 int16 lanes in
 * [0, 511], with no gather: the 513 entries are 8 windows of 64 words, each a two-register
 * vpermi2w on the low 6 bits of i, and bits 6, 7 and 8 of i pick the window by a tree of
 * selects. Constants from the table itself (T[512] is in the last window of s = 1).
 */
static LLVMValueRef
table_perm(kg *g, const qctx *q, int32_t kind, LLVMValueRef i, int s)
{
    const int16_t *T = lstmc_rt_q_table(kind);
    LLVMValueRef e[32], w[8];
    int c, k, bit, nw;

    for (c = 0; c < 8; c++) {
        LLVMValueRef args[3];
        for (k = 0; k < 32; k++)
            e[k] = LLVMConstInt(q->i16, (unsigned long long)(int64_t)T[64 * c + s + k], 1);
        args[0] = LLVMConstVector(e, 32);
        args[1] = i;
        for (k = 0; k < 32; k++)
            e[k] = LLVMConstInt(q->i16, (unsigned long long)(int64_t)T[64 * c + 32 + s + k], 1);
        args[2] = LLVMConstVector(e, 32);
        w[c] = xcall(g, "llvm.x86.avx512.vpermi2var.hi.512", args, 3);
    }
    for (bit = 6, nw = 8; nw > 1; bit++, nw /= 2) {
        LLVMValueRef hi =
            LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildAnd(g->b, i, kof(g, i, (int64_t)1 << bit), ""),
                          LLVMConstNull(LLVMTypeOf(i)), "");
        for (k = 0; k < nw / 2; k++)
            w[k] = sel(g, hi, w[2 * k + 1], w[2 * k]);
    }
    return w[0];
}

/* whether every step T[i + 1] - T[i] of the table of kind is an int16 */
static int
table_steps16(int32_t kind)
{
    const int16_t *T = lstmc_rt_q_table(kind);
    int k;

    for (k = 0; k < 512; k++)
        if (T[k + 1] - T[k] < -32768 || T[k + 1] - T[k] > 32767)
            return 0;
    return 1;
}

/*
 * AVX-512BW: act(v) for a vector v of int32 lanes in [-32768, 32767] in 32 int16 lanes: u =
 * v + 32768 as a uint16 (v ^ 0x8000), and rshr((T[i + 1] - T[i]) * f, 7) as vpmulhrsw of the
 * step and f << 8 (f <= 127: f << 8 <= 32512), which computes floor((d * (f << 8) + 2^14) /
 * 2^15) = floor((d * f + 64) / 128), the recipe's rounding, exactly. The result lies between
 * T[i] and T[i + 1]: an int16. Returns v's type.
 */
static LLVMValueRef
table_act16(kg *g, const qctx *q, int32_t kind, LLVMValueRef v)
{
    const unsigned n = LLVMGetVectorSize(LLVMTypeOf(v));
    LLVMTypeRef v16 = LLVMVectorType(q->i16, 32);
    LLVMValueRef x = LLVMBuildTrunc(g->b, v, LLVMVectorType(q->i16, n), ""), m[32], u, i, f, t0,
                 args[2];
    unsigned k;

    if (n < 32) {
        for (k = 0; k < 32; k++)
            m[k] = k < n ? LLVMConstInt(g->i32, k, 0) : LLVMGetUndef(g->i32);
        x = LLVMBuildShuffleVector(g->b, x, LLVMGetUndef(LLVMTypeOf(x)), LLVMConstVector(m, 32),
                                   "");
    }
    u = LLVMBuildXor(g->b, x, kof(g, x, 0x8000), "");
    i = LLVMBuildLShr(g->b, u, kof(g, u, 7), "");
    f = LLVMBuildAnd(g->b, u, kof(g, u, 127), "");
    t0 = table_perm(g, q, kind, i, 0);
    args[0] = sub(g, table_perm(g, q, kind, i, 1), t0);
    args[1] = LLVMBuildShl(g->b, f, kof(g, f, 8), "");
    x = add(g, t0, xcall(g, "llvm.x86.avx512.pmul.hr.sw.512", args, 2));
    if (n < 32) {
        for (k = 0; k < n; k++)
            m[k] = LLVMConstInt(g->i32, k, 0);
        x = LLVMBuildShuffleVector(g->b, x, LLVMGetUndef(v16), LLVMConstVector(m, n), "");
    }
    return sxt(g, x, v);
}

/*
 * act(v) of the recipe for v in [-32768, 32767] (int32 lanes, or an i32): the table and its
 * interpolation, in v's type. Every value fits int32: u <= 65535, |T[i + 1] - T[i]| * f <
 * 2^16 * 128.
 */
static LLVMValueRef
table_act(kg *g, const qctx *q, int32_t kind, LLVMValueRef v)
{
    LLVMValueRef T = q->tab[kind == LSTMC_RT_ACT_TANH];
    const int vec = LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind;
    LLVMValueRef u, i, f, t0, t1;

    if (vec && (q->mode == QD_VNNI || q->mode == QD_WD512) && table_steps16(kind))
        return table_act16(g, q, kind, v);
    u = add(g, v, kof(g, v, 32768));
    i = ashr(g, u, kof(g, v, 7));
    f = LLVMBuildAnd(g->b, u, kof(g, v, 127), "");
    if (vec) {
        /* AVX2 (or a table with a step past int16): one 32-bit gather at T + 2i: T[i] below,
         * T[i + 1] above (i <= 511) */
        LLVMValueRef tt = gather32(g, gept(g, q->i16, T, i));
        t0 = sxt(g, LLVMBuildTrunc(g->b, tt, like(v, q->i16), ""), v);
        t1 = sxt(g, LLVMBuildAShr(g->b, tt, kof(g, tt, 16), ""), v);
    } else {
        t0 = sxt(g, ldi(g, q->i16, T, i), v);
        t1 = sxt(g, ldi(g, q->i16, T, add(g, i, kof(g, i, 1))), v);
    }
    return add(g, t0, rshrc(g, mul(g, sub(g, t1, t0), f), 7));
}

/* pre(z): the clip, then int16 (as int32 lanes: the table's input) */
static LLVMValueRef
pre(kg *g, const qctx *q, LLVMValueRef z)
{
    if (q->p->has_clip)
        z = satc(g, z, -(int64_t)q->p->clip_q, q->p->clip_q);
    return n32(g, satc(g, z, -32768, 32767));
}

static LLVMValueRef
actz(kg *g, const qctx *q, int32_t kind, LLVMValueRef z)
{
    return table_act(g, q, kind, pre(g, q, z));
}

/* field k of row r (an i64 value) of Qd, as i64 */
static LLVMValueRef
qf(kg *g, LLVMValueRef Qd, LLVMValueRef r, int k)
{
    return sx(g, ldi(g, g->i32, Qd, add(g, mul(g, r, ci(g, LSTMC_RT_RNNQ_ROW)), ci(g, k))));
}

/* field k of row r (rows r .. r + q->vw - 1 with vw), as i64: x86 from the copy by field */
static LLVMValueRef
fld(kg *g, const qctx *q, const qdir *e, LLVMValueRef r, int k)
{
    return e->qs[k] ? sx(g, ldw(g, q, g->i32, e->qs[k], r)) : qf(g, e->Qd, r, k);
}

/* an accumulator x of the int8 mode as the int32 it is (the reference's requant_acc): lets
 * LLVM see a 32 x 32 -> 64 multiply (one smull on a 32-bit core) */
static LLVMValueRef
acc32(kg *g, const qctx *q, const qdir *e, LLVMValueRef x)
{
    (void)e;
    return q->p->bits == 8 ? sx(g, LLVMBuildTrunc(g->b, x, like(x, g->i32), "")) : x;
}

/* requant(accW + zc, mW, nW) + bW; what accw holds already when e->zw */
static LLVMValueRef
gate_w(kg *g, const qctx *q, const qdir *e, LLVMValueRef r, LLVMValueRef accW)
{
    if (e->zw)
        return accW;
    return add(g,
               rshr_prod(g, q,
                         mul(g, acc32(g, q, e, add(g, accW, fld(g, q, e, r, LSTMC_RT_RNNQ_ZC))),
                             fld(g, q, e, r, LSTMC_RT_RNNQ_MW)),
                         fld(g, q, e, r, LSTMC_RT_RNNQ_NW)),
               fld(g, q, e, r, LSTMC_RT_RNNQ_BW));
}

/* requant(accU, mU, nU) */
static LLVMValueRef
gate_uq(kg *g, const qctx *q, const qdir *e, LLVMValueRef r, LLVMValueRef accU)
{
    return rshr_prod(g, q, mul(g, acc32(g, q, e, accU), fld(g, q, e, r, LSTMC_RT_RNNQ_MU)),
                     fld(g, q, e, r, LSTMC_RT_RNNQ_NU));
}

static LLVMValueRef
gate_u(kg *g, const qctx *q, const qdir *e, LLVMValueRef r, LLVMValueRef accU)
{
    return add(g, gate_uq(g, q, e, r, accU), fld(g, q, e, r, LSTMC_RT_RNNQ_BR));
}

/* z = gate_w + gate_u, exact in int64 in any order: with e->zb, accw holds bR too */
static LLVMValueRef
gate_z(kg *g, const qctx *q, const qdir *e, LLVMValueRef r, LLVMValueRef accW, LLVMValueRef accU)
{
    if (e->zb)
        return add(g, accW, gate_uq(g, q, e, r, accU));
    return add(g, gate_w(g, q, e, r, accW), gate_u(g, q, e, r, accU));
}

/* The sums v of rows r .. (an i64, or a vector of i64 for consecutive rows) as they are
 * stored: with q->post, the W half of z (so that a step adds only the U half), else as
 * they are (and bR with it, q->post->zb). */
static LLVMValueRef
post_w(kg *g, const qctx *q, LLVMValueRef r, LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    qctx s = *q;
    qdir raw;

    if (!q->post)
        return v;
    raw = *q->post;
    raw.zw = 0;
    s.vw = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? (int)LLVMGetVectorSize(t) : 0;
    v = gate_w(g, &s, &raw, r, v);
    return q->post->zb ? add(g, v, fld(g, &s, &raw, r, LSTMC_RT_RNNQ_BR)) : v;
}

/* --- the dot products ------------------------------------------------------------------ */

static LLVMValueRef
vload(kg *g, LLVMTypeRef ty, LLVMValueRef p)
{
    LLVMValueRef v = LLVMBuildLoad2(g->b, ty, p, "");
    LLVMSetAlignment(v, 1);
    return v;
}

/* the first n of the vector of type ty at p, zeros after (AVX-512: a masked load) */
static LLVMValueRef
vload_masked(kg *g, LLVMTypeRef ty, LLVMValueRef p, int n)
{
    unsigned len = LLVMGetVectorSize(ty), k, id = LLVMLookupIntrinsicID("llvm.masked.load", 16);
    LLVMValueRef bits[64], args[4], f;
    LLVMTypeRef tys[2], ft;

    for (k = 0; k < len; k++)
        bits[k] = LLVMConstInt(g->i1, (int)k < n, 0);
    tys[0] = ty;
    tys[1] = g->ptr;
    f = LLVMGetIntrinsicDeclaration(g->m, id, tys, 2);
    ft = LLVMIntrinsicGetType(g->cx, id, tys, 2);
    args[0] = p;
    args[1] = LLVMConstInt(g->i32, 1, 0);
    args[2] = LLVMConstVector(bits, len);
    args[3] = LLVMConstNull(ty);
    return LLVMBuildCall2(g->b, ft, f, args, 4, "");
}

/* a call of the non-overloaded intrinsic name, its arguments bitcast to its parameter types */
static LLVMValueRef
xcall(kg *g, const char *name, LLVMValueRef *args, unsigned n)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name)), k;
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->m, id, NULL, 0);
    LLVMTypeRef ft = LLVMIntrinsicGetType(g->cx, id, NULL, 0), pt[8];

    LLVMGetParamTypes(ft, pt);
    for (k = 0; k < n; k++)
        args[k] = LLVMBuildBitCast(g->b, args[k], pt[k], "");
    return LLVMBuildCall2(g->b, ft, f, args, n, "");
}

/* a call of the overloaded intrinsic name for the types tys */
static LLVMValueRef
xcall_t(kg *g, const char *name, LLVMTypeRef *tys, unsigned nt, LLVMValueRef *args, unsigned n)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->m, id, tys, nt);
    return LLVMBuildCall2(g->b, LLVMIntrinsicGetType(g->cx, id, tys, nt), f, args, n, "");
}

/* sum of the lanes of mul(sext w, sext a) in lanes of type lane (MVE: vmladav / vmlaldav) */
static LLVMValueRef
mul_reduce(kg *g, LLVMValueRef w, LLVMValueRef a, LLVMTypeRef lane)
{
    LLVMTypeRef vt = LLVMVectorType(lane, LLVMGetVectorSize(LLVMTypeOf(w)));
    LLVMValueRef m = mul(g, LLVMBuildSExt(g->b, w, vt, ""), LLVMBuildSExt(g->b, a, vt, ""));
    return intrinsic(g, "llvm.vector.reduce.add", vt, &m, 1);
}

/* SMLAD: acc + the 4 products of the word of weights w (<4 x i8>) and a (<4 x i16>, stored
 * [a0 a2 a1 a3]): sxtb16 takes bytes 0 and 2 of a word, sxtb16 of it rotated by 8 bytes 1
 * and 3; int16 mode accumulates in int64 (smlald) */
static LLVMValueRef
dot_smlad(kg *g, const qctx *q, LLVMValueRef acc, LLVMValueRef w, LLVMValueRef a)
{
    LLVMValueRef wi = LLVMBuildBitCast(g->b, w, g->i32, ""), args[3], w02, w13, a02, a13;
    LLVMValueRef av = LLVMBuildBitCast(g->b, a, LLVMVectorType(g->i32, 2), "");
    args[0] = wi;
    args[1] = wi;
    args[2] = LLVMConstInt(g->i32, 8, 0);
    w13 = intrinsic(g, "llvm.fshr", g->i32, args, 3);
    args[0] = wi;
    w02 = xcall(g, "llvm.arm.sxtb16", args, 1);
    args[0] = w13;
    w13 = xcall(g, "llvm.arm.sxtb16", args, 1);
    a02 = LLVMBuildExtractElement(g->b, av, LLVMConstInt(g->i32, 0, 0), "");
    a13 = LLVMBuildExtractElement(g->b, av, LLVMConstInt(g->i32, 1, 0), "");
    args[0] = w02;
    args[1] = a02;
    args[2] = acc;
    acc = xcall(g, q->p->bits == 8 ? "llvm.arm.smlad" : "llvm.arm.smlald", args, 3);
    args[0] = w13;
    args[1] = a13;
    args[2] = acc;
    return xcall(g, q->p->bits == 8 ? "llvm.arm.smlad" : "llvm.arm.smlald", args, 3);
}

/* The weight vector of one step at p (n valid of vk; vk: a full load). */
static LLVMValueRef
wload(kg *g, const qctx *q, LLVMValueRef p, int n)
{
    LLVMTypeRef ty = LLVMVectorType(q->i8, (unsigned)q->vk);
    return n < q->vk ? vload_masked(g, ty, p, n) : vload(g, ty, p);
}

static LLVMValueRef
aload(kg *g, const qctx *q, LLVMValueRef p)
{
    return vload(g, LLVMVectorType(q->ab == 1 ? q->i8 : q->i16, (unsigned)q->vk), p);
}

/* acc + the products of one step, w and a as loaded */
static LLVMValueRef
dot_step(kg *g, const qctx *q, LLVMValueRef acc, LLVMValueRef w, LLVMValueRef a)
{
    LLVMValueRef args[3];
    switch (q->mode) {
    case QD_VNNI:
        args[0] = acc;
        args[1] = a; /* the unsigned operand */
        args[2] = w;
        return xcall(g, "llvm.x86.avx512.vpdpbusd.512", args, 3);
    case QD_SDOT: {
        LLVMTypeRef tys[2];
        tys[0] = q->acc;
        tys[1] = LLVMTypeOf(w);
        args[0] = acc;
        args[1] = w;
        args[2] = a;
        return xcall_t(g, "llvm.aarch64.neon.sdot", tys, 2, args, 3);
    }
    case QD_SMLAD:
        return dot_smlad(g, q, acc, w, a);
    case QD_MVE:
        return add(g, acc, mul_reduce(g, w, a, q->p->bits == 8 ? g->i32 : g->i64));
    case QD_WD512:
    case QD_WD256:
        args[0] = a;
        args[1] = LLVMBuildSExt(g->b, w, LLVMVectorType(q->i16, (unsigned)q->vk), "");
        return add(
            g, acc,
            xcall(g,
                  q->mode == QD_WD512 ? "llvm.x86.avx512.pmaddw.d.512" : "llvm.x86.avx2.pmadd.wd",
                  args, 2));
    default: {
        LLVMTypeRef v32 = LLVMVectorType(g->i32, (unsigned)q->vk);
        return add(g, acc,
                   mul(g, LLVMBuildSExt(g->b, w, v32, ""), LLVMBuildSExt(g->b, a, v32, "")));
    }
    }
}

static LLVMValueRef
reduce_i64(kg *g, const qctx *q, LLVMValueRef acc)
{
    LLVMValueRef v;
    if (LLVMGetTypeKind(q->acc) == LLVMIntegerTypeKind) /* a scalar accumulator */
        return q->acc == g->i64 ? acc : sx(g, acc);
    if (q->p->bits == 8) /* exact in int32 (the file's top) */
        return sx(g, intrinsic(g, "llvm.vector.reduce.add", q->acc, &acc, 1));
    v = LLVMBuildSExt(g->b, acc, LLVMVectorType(g->i64, LLVMGetVectorSize(q->acc)), "");
    return intrinsic(g, "llvm.vector.reduce.add", LLVMTypeOf(v), &v, 1);
}

/* res[j * nr + r] = init[...] + sum_{k0 <= k < K} w_r[k] a_j[k] (i64), one term at a time: the
 * tails of rows that a vector step does not cover (w_r = w + r * ldw, a_j = a + j * lda bytes,
 * as stored: VNNI's biased bytes unsigned) */
static void
scalar_tail(kg *g, const qctx *q, LLVMValueRef w, int64_t ldw, int nr, LLVMValueRef a, int64_t lda,
            int nq, int64_t k0, int64_t K, const LLVMValueRef *init, LLVMValueRef *res)
{
    LLVMValueRef sacc[TMAX], k;
    kloop l;
    int r, j, t;

    for (t = 0; t < nr * nq; t++) {
        sacc[t] = entry_alloca(g, g->i64);
        LLVMBuildStore(g->b, init[t], sacc[t]);
    }
    k = loop_begin(g, &l, ci(g, k0), ci(g, K));
    for (r = 0; r < nr; r++) {
        LLVMValueRef wk = sx(g, ldi(g, q->i8, w, add(g, k, ci(g, r * ldw))));
        for (j = 0; j < nq; j++) {
            LLVMValueRef ak = ldi(g, q->ab == 1 ? q->i8 : q->i16, gepb(g, a, ci(g, j * lda)), k);
            ak = q->mode == QD_VNNI ? LLVMBuildZExt(g->b, ak, g->i64, "") : sx(g, ak);
            LLVMBuildStore(
                g->b, add(g, LLVMBuildLoad2(g->b, g->i64, sacc[j * nr + r], ""), mul(g, wk, ak)),
                sacc[j * nr + r]);
        }
    }
    loop_end(g, &l);
    for (t = 0; t < nr * nq; t++)
        res[t] = LLVMBuildLoad2(g->b, g->i64, sacc[t], "");
}

/*
 * out[r][j] = sum_k w_r[k] * a_j[k] (i64 values) for nr <= RB weight rows w_r = w + r * ldw
 * and nq activation rows a_j = a + j * lda (bytes), K terms: the raw sums of the stored
 * values (VNNI: of the biased activations).
 */
static void
dot_block(kg *g, const qctx *q, LLVMValueRef w, int64_t ldw, int nr, LLVMValueRef a, int64_t lda,
          int nq, int64_t K, LLVMValueRef out[RB][4])
{
    const int64_t nfull = K / q->vk, tail = K % q->vk;
    const int64_t steps = nfull + (q->masked && tail ? 1 : 0);
    const int64_t chunk = q->p->bits == 8 ? (steps > 0 ? steps : 1) : 256;
    int r, j;
    int64_t c0;

    for (r = 0; r < nr; r++)
        for (j = 0; j < nq; j++)
            out[r][j] = ci(g, 0);
    for (c0 = 0; c0 < steps; c0 += chunk) {
        const int64_t c1 = c0 + chunk < nfull ? c0 + chunk : nfull;
        const int last_masked = q->masked && tail && c0 + chunk >= steps;
        LLVMValueRef acc[RB][4], wv[RB], av[4];
        for (r = 0; r < nr; r++)
            for (j = 0; j < nq; j++) {
                acc[r][j] = entry_alloca(g, q->acc);
                LLVMBuildStore(g->b, LLVMConstNull(q->acc), acc[r][j]);
            }
        if (c1 > c0) {
            kloop l;
            LLVMValueRef s = loop_begin(g, &l, ci(g, c0), ci(g, c1));
            LLVMValueRef off = mul(g, s, ci(g, q->vk));
            for (r = 0; r < nr; r++)
                wv[r] = wload(g, q, gepb(g, w, add(g, off, ci(g, r * ldw))), q->vk);
            for (j = 0; j < nq; j++)
                av[j] = aload(g, q, gepb(g, a, add(g, mul(g, off, ci(g, q->ab)), ci(g, j * lda))));
            for (r = 0; r < nr; r++)
                for (j = 0; j < nq; j++)
                    LLVMBuildStore(
                        g->b,
                        dot_step(g, q, LLVMBuildLoad2(g->b, q->acc, acc[r][j], ""), wv[r], av[j]),
                        acc[r][j]);
            loop_end(g, &l);
        }
        if (last_masked) {
            const int64_t off = nfull * q->vk;
            for (r = 0; r < nr; r++)
                wv[r] = wload(g, q, gepb(g, w, ci(g, off + r * ldw)), (int)tail);
            for (j = 0; j < nq; j++)
                av[j] = aload(g, q, gepb(g, a, ci(g, off * q->ab + j * lda)));
            for (r = 0; r < nr; r++)
                for (j = 0; j < nq; j++)
                    LLVMBuildStore(
                        g->b,
                        dot_step(g, q, LLVMBuildLoad2(g->b, q->acc, acc[r][j], ""), wv[r], av[j]),
                        acc[r][j]);
        }
        for (r = 0; r < nr; r++)
            for (j = 0; j < nq; j++)
                out[r][j] = add(g, out[r][j],
                                reduce_i64(g, q, LLVMBuildLoad2(g->b, q->acc, acc[r][j], "")));
    }
    if (!q->masked && tail) { /* the scalar tail, in int64 */
        LLVMValueRef init[RB * 4], res[RB * 4];
        for (r = 0; r < nr; r++)
            for (j = 0; j < nq; j++)
                init[j * nr + r] = out[r][j];
        scalar_tail(g, q, w, ldw, nr, a, lda, nq, nfull * q->vk, K, init, res);
        for (r = 0; r < nr; r++)
            for (j = 0; j < nq; j++)
                out[r][j] = res[j * nr + r];
    }
}

/* The true sum of row r: VNNI's raw sum plus the row's correction corr[r] (i32). */
static LLVMValueRef
corrected(kg *g, const qctx *q, LLVMValueRef raw, LLVMValueRef corr, LLVMValueRef r)
{
    return q->mode == QD_VNNI ? add(g, raw, sx(g, ldi(g, g->i32, corr, r))) : raw;
}

/* --- x86: a tile of dot products reduced together ----------------------------------------- */

/* The x86 dot products reduce tiles of rows together (dot_tile); the others row by row. */
static int
tiled(const qctx *q)
{
    return q->mode == QD_VNNI || q->mode == QD_WD512 || q->mode == QD_WD256;
}

/*
 * The lane sums of n vectors v[0..n) of L lanes (powers of two, L <= n) as n / L vectors, in
 * place: lane l of v[t] becomes the sum of the lanes of the old v[t * L + l]. Pairs combine
 * level by level, a vector of m sums of p partials each (lane i * p + c) and its neighbour
 * making one of 2m sums of p / 2 partials: two two-source shuffles and an add per pair, n - n / L
 * pairs in all, where a reduction per vector costs log2(L) shuffles, adds and an extract.
 */
static void
hsum_tree(kg *g, LLVMValueRef *v, int n, int L)
{
    LLVMValueRef m1[TMAX], m2[TMAX];
    int m, p, i, c, k;

    for (m = 1, p = L; p > 1; m *= 2, p /= 2) {
        const int h = p / 2;
        LLVMValueRef M1, M2;
        for (i = 0; i < 2 * m; i++)
            for (c = 0; c < h; c++) {
                const int src = i < m ? i * p + c : L + (i - m) * p + c;
                m1[i * h + c] = LLVMConstInt(g->i32, (unsigned)src, 0);
                m2[i * h + c] = LLVMConstInt(g->i32, (unsigned)(src + h), 0);
            }
        M1 = LLVMConstVector(m1, (unsigned)L);
        M2 = LLVMConstVector(m2, (unsigned)L);
        for (k = 0; k < n / (2 * m); k++)
            v[k] = add(g, LLVMBuildShuffleVector(g->b, v[2 * k], v[2 * k + 1], M1, ""),
                       LLVMBuildShuffleVector(g->b, v[2 * k], v[2 * k + 1], M2, ""));
    }
}

/* lanes [l, l + len) of v */
static LLVMValueRef
lanes(kg *g, LLVMValueRef v, int l, int len)
{
    LLVMValueRef m[TMAX];
    int k;

    if (l == 0 && len == (int)LLVMGetVectorSize(LLVMTypeOf(v)))
        return v;
    for (k = 0; k < len; k++)
        m[k] = LLVMConstInt(g->i32, (unsigned)(l + k), 0);
    return LLVMBuildShuffleVector(g->b, v, LLVMGetUndef(LLVMTypeOf(v)),
                                  LLVMConstVector(m, (unsigned)len), "");
}

/* acc[j * nr + r] += the products of one step at byte offset off of the rows (n valid) */
static void
tile_step(kg *g, const qctx *q, LLVMValueRef w, int64_t K, int nr, LLVMValueRef a, int64_t lda,
          int nq, LLVMValueRef off, int n, LLVMValueRef *acc)
{
    LLVMValueRef wv[TMAX], av[TMAX];
    int r, j;

    for (r = 0; r < nr; r++)
        wv[r] = wload(g, q, gepb(g, w, add(g, off, ci(g, r * K))), n);
    for (j = 0; j < nq; j++)
        av[j] = aload(g, q, gepb(g, a, add(g, mul(g, off, ci(g, q->ab)), ci(g, j * lda))));
    for (j = 0; j < nq; j++)
        for (r = 0; r < nr; r++)
            LLVMBuildStore(
                g->b,
                dot_step(g, q, LLVMBuildLoad2(g->b, q->acc, acc[j * nr + r], ""), wv[r], av[j]),
                acc[j * nr + r]);
}

/*
 * x86: out[j * ldo + row + r] = w_r . a_j (i64, corrected) for the tile of nr weight rows
 * w_r = w + r * K (rows row + r of the layer) and nq activation rows a_j = a + j * lda (bytes),
 * nr * nq <= TMAX a multiple of the accumulator's lanes L. The accumulators, in the order
 * j * nr + r, go through hsum_tree (in int32 in int8 mode and for int16 rows under 512 terms,
 * exact there; else in int64 per chunk of 256 steps, as dot_block) and are stored as vectors
 * of sums: one tree per tile rather than a reduction per dot product.
 */
static void
dot_tile(kg *g, const qctx *q, LLVMValueRef w, int64_t K, int nr, LLVMValueRef a, int64_t lda,
         int nq, LLVMValueRef corr, LLVMValueRef row, LLVMValueRef out, int64_t ldo)
{
    const int L = (int)LLVMGetVectorSize(q->acc), n = nr * nq, nv = n / L;
    const int64_t nfull = K / q->vk, tail = K % q->vk;
    const int64_t steps = nfull + (q->masked && tail ? 1 : 0);
    const int64_t chunk = q->p->bits == 8 ? (steps > 0 ? steps : 1) : 256;
    /* the tree in int32: int8 mode, or int16 rows short enough that the whole sum fits
     * (K * 128 * 32768 < 2^31, so every partial sum does) */
    const int sum32 = q->p->bits == 8 || K < 512;
    LLVMTypeRef v64 = LLVMVectorType(g->i64, (unsigned)L);
    LLVMValueRef sum[TMAX], acc[TMAX];
    int t, l;
    int64_t c0;

    for (t = 0; t < nv; t++)
        sum[t] = LLVMConstNull(v64);
    for (c0 = 0; c0 < steps; c0 += chunk) {
        const int64_t c1 = c0 + chunk < nfull ? c0 + chunk : nfull;
        LLVMValueRef red[TMAX];
        for (t = 0; t < n; t++) {
            acc[t] = entry_alloca(g, q->acc);
            LLVMBuildStore(g->b, LLVMConstNull(q->acc), acc[t]);
        }
        if (c1 > c0) {
            kloop ls;
            LLVMValueRef s = loop_begin(g, &ls, ci(g, c0), ci(g, c1));
            tile_step(g, q, w, K, nr, a, lda, nq, mul(g, s, ci(g, q->vk)), q->vk, acc);
            loop_end(g, &ls);
        }
        if (q->masked && tail && c0 + chunk >= steps)
            tile_step(g, q, w, K, nr, a, lda, nq, ci(g, nfull * q->vk), (int)tail, acc);
        for (t = 0; t < n; t++) {
            red[t] = LLVMBuildLoad2(g->b, q->acc, acc[t], "");
            if (!sum32)
                red[t] = LLVMBuildSExt(g->b, red[t], v64, "");
        }
        hsum_tree(g, red, n, L);
        for (t = 0; t < nv; t++)
            sum[t] = add(g, sum[t], sum32 ? LLVMBuildSExt(g->b, red[t], v64, "") : red[t]);
    }
    if (!q->masked && tail) { /* the scalar tail, in int64, into the lanes */
        LLVMValueRef init[TMAX] = {0}, res[TMAX];
        for (t = 0; t < n; t++)
            init[t] = ci(g, 0);
        scalar_tail(g, q, w, K, nr, a, lda, nq, nfull * q->vk, K, init, res);
        for (t = 0; t < n; t++)
            sum[t / L] = LLVMBuildInsertElement(
                g->b, sum[t / L],
                add(g,
                    LLVMBuildExtractElement(g->b, sum[t / L],
                                            LLVMConstInt(g->i32, (unsigned)(t % L), 0), ""),
                    res[t]),
                LLVMConstInt(g->i32, (unsigned)(t % L), 0), "");
    }
    for (t = 0; t < nv; t++) /* runs of consecutive rows of one activation row */
        for (l = 0; l < L;) {
            const int idx = t * L + l, len = nr - idx % nr < L - l ? nr - idx % nr : L - l;
            LLVMValueRef v = lanes(g, sum[t], l, len), rr = add(g, row, ci(g, idx % nr)), s;
            if (q->mode == QD_VNNI) {
                LLVMValueRef cv =
                    vload(g, LLVMVectorType(g->i32, (unsigned)len), gept(g, g->i32, corr, rr));
                v = add(g, v, LLVMBuildSExt(g->b, cv, LLVMVectorType(g->i64, (unsigned)len), ""));
            }
            s = LLVMBuildStore(g->b, post_w(g, q, rr, v),
                               gept(g, g->i64, out, add(g, rr, ci(g, idx / nr * ldo))));
            LLVMSetAlignment(s, 8);
            l += len;
        }
}

/* --- x86: short rows packed, the accumulator's lanes are rows ----------------------------- */

/* terms of a row per lane and step of a packed row: VNNI 4 bytes, vpmaddwd 2 */
static int
pack_e(const qctx *q)
{
    return q->vk / (int)LLVMGetVectorSize(q->acc);
}

/* groups of pack_e terms per packed row */
static int64_t
pack_np(const qctx *q, int64_t K)
{
    return (K + pack_e(q) - 1) / pack_e(q);
}

/*
 * P[b][p][l][c] = w[b * L + l][p * e + c] (0 for p * e + c >= K) for the R / L whole blocks of L
 * rows of w [R, K] int8, e = pack_e: one vector load is a group of e terms of L rows, which
 * dot_step multiplies by the same group of an activation row in every lane, leaving L row sums
 * in the accumulator's lanes, with no reduction. Once per call and direction, rows of at most
 * KP_RNNQ_PACK_K terms (their sums stay in int32 in the int16 mode too).
 */
static void
emit_pack(kg *g, const qctx *q, LLVMValueRef w, int64_t R, int64_t K, LLVMValueRef P)
{
    const int64_t L = LLVMGetVectorSize(q->acc), e = pack_e(q), np = pack_np(q, K), nf = K / e;
    LLVMTypeRef ge = LLVMIntTypeInContext(g->cx, (unsigned)(8 * e)); /* one group */
    kloop lb, lp, ll;
    LLVMValueRef b = loop_begin(g, &lb, ci(g, 0), ci(g, R / L)), p, l, v, at;
    int64_t c;

    if (nf > 0) { /* whole groups: e bytes at a time */
        p = loop_begin(g, &lp, ci(g, 0), ci(g, nf));
        l = loop_begin(g, &ll, ci(g, 0), ci(g, L));
        v = LLVMBuildLoad2(
            g->b, ge,
            gepb(g, w,
                 add(g, mul(g, add(g, mul(g, b, ci(g, L)), l), ci(g, K)), mul(g, p, ci(g, e)))),
            "");
        LLVMSetAlignment(v, 1);
        at = mul(g, add(g, mul(g, add(g, mul(g, b, ci(g, np)), p), ci(g, L)), l), ci(g, e));
        LLVMSetAlignment(LLVMBuildStore(g->b, v, gepb(g, P, at)), 1);
        loop_end(g, &ll);
        loop_end(g, &lp);
    }
    if (np > nf) { /* the last group, zeros past K */
        l = loop_begin(g, &ll, ci(g, 0), ci(g, L));
        for (c = 0; c < e; c++) {
            at = add(g,
                     mul(g, add(g, mul(g, add(g, mul(g, b, ci(g, np)), ci(g, nf)), ci(g, L)), l),
                         ci(g, e)),
                     ci(g, c));
            v = nf * e + c < K ? ldi(g, q->i8, w,
                                     add(g, mul(g, add(g, mul(g, b, ci(g, L)), l), ci(g, K)),
                                         ci(g, nf * e + c)))
                               : LLVMConstInt(q->i8, 0, 0);
            LLVMBuildStore(g->b, v, gepb(g, P, at));
        }
        loop_end(g, &ll);
    }
    loop_end(g, &lb);
}

/* Pack rows of K terms, or leave them to the tiles: packing reads the matrix once per call,
 * which pays back when the call has at least 2 steps per group of a row. */
static int
pack_pays(const qctx *q, int64_t K)
{
    return K <= KP_RNNQ_PACK_K && q->p->seq_len * q->p->batch >= 2 * pack_np(q, K);
}

/* the 4 bytes at a + off (one group of pack_e activations) in every lane, as dot_step reads
 * an activation vector */
static LLVMValueRef
abcast(kg *g, const qctx *q, LLVMValueRef a, LLVMValueRef off)
{
    LLVMValueRef v = LLVMBuildLoad2(g->b, g->i32, gepb(g, a, off), "");
    LLVMSetAlignment(v, 1);
    v = LLVMBuildInsertElement(g->b, LLVMGetUndef(q->acc), v, LLVMConstInt(g->i32, 0, 0), "");
    v = LLVMBuildShuffleVector(g->b, v, LLVMGetUndef(q->acc),
                               LLVMConstNull(LLVMVectorType(g->i32, LLVMGetVectorSize(q->acc))),
                               "");
    return LLVMBuildBitCast(g->b, v, LLVMVectorType(q->ab == 1 ? q->i8 : q->i16, (unsigned)q->vk),
                            "");
}

/*
 * The start of a lanes = rows accumulator for the n rows from row: VNNI's corrections
 * corr[row ..] (-128 sum w, for the biased activations), zeros after n or without corr.
 * vpdpbusd wraps and the true sum fits int32 (int8 mode), so the wrapped sum is exact
 * whatever the partial sums.
 */
static LLVMValueRef
acc_start(kg *g, const qctx *q, LLVMValueRef corr, LLVMValueRef row, int n)
{
    LLVMValueRef p;
    if (!corr)
        return LLVMConstNull(q->acc);
    p = gept(g, g->i32, corr, row);
    return n == (int)LLVMGetVectorSize(q->acc) ? vload(g, q->acc, p)
                                               : vload_masked(g, q->acc, p, n);
}

/*
 * out[j * ldo + (b + i) * L + l] = row (b + i) * L + l . a_j (i64, corrected) for the nb packed
 * blocks b + i (i < nb) of P (K terms) and the activation rows a_j = a + j * lda (bytes), j < nq:
 * nb * nq independent accumulators, each group's weights and broadcast loaded once.
 */
static void
lanes_blocks(kg *g, const qctx *q, LLVMValueRef P, int64_t K, LLVMValueRef b, int nb,
             LLVMValueRef a, int64_t lda, int nq, LLVMValueRef corr, LLVMValueRef out, int64_t ldo)
{
    const int L = (int)LLVMGetVectorSize(q->acc), e = pack_e(q);
    const int64_t np = pack_np(q, K);
    LLVMTypeRef v64 = LLVMVectorType(g->i64, (unsigned)L);
    LLVMValueRef acc[TMAX], wv[TMAX], av[4], p;
    kloop l;
    int i, j;

    for (i = 0; i < nb * nq; i++) {
        acc[i] = entry_alloca(g, q->acc);
        LLVMBuildStore(g->b,
                       acc_start(g, q, q->mode == QD_VNNI ? corr : NULL,
                                 mul(g, add(g, b, ci(g, i % nb)), ci(g, L)), L),
                       acc[i]);
    }
    p = loop_begin(g, &l, ci(g, 0), ci(g, np));
    for (i = 0; i < nb; i++)
        wv[i] = wload(
            g, q,
            gepb(g, P,
                 mul(g, add(g, mul(g, add(g, b, ci(g, i)), ci(g, np)), p), ci(g, (int64_t)L * e))),
            q->vk);
    for (j = 0; j < nq; j++)
        av[j] = abcast(g, q, a, add(g, ci(g, j * lda), mul(g, p, ci(g, (int64_t)e * q->ab))));
    for (j = 0; j < nq; j++)
        for (i = 0; i < nb; i++)
            LLVMBuildStore(
                g->b,
                dot_step(g, q, LLVMBuildLoad2(g->b, q->acc, acc[j * nb + i], ""), wv[i], av[j]),
                acc[j * nb + i]);
    loop_end(g, &l);
    for (j = 0; j < nq; j++)
        for (i = 0; i < nb; i++) {
            LLVMValueRef row = mul(g, add(g, b, ci(g, i)), ci(g, L)), s;
            LLVMValueRef v =
                LLVMBuildSExt(g->b, LLVMBuildLoad2(g->b, q->acc, acc[j * nb + i], ""), v64, "");
            s = LLVMBuildStore(g->b, post_w(g, q, row, v),
                               gept(g, g->i64, out, add(g, row, ci(g, j * ldo))));
            LLVMSetAlignment(s, 8);
        }
}

/* --- VNNI: W and U laid out at compile time, the lanes are rows -------------------------- */

/* the K % 4 = tl last terms of the wb rows of a block at p (wb * tl bytes, row l's at l * tl)
 * spread to the first tl bytes of lane l, zeros elsewhere: a masked load and a constant
 * shuffle (an expand: vpexpandb with AVX512-VBMI2) */
static LLVMValueRef
tail_load(kg *g, const qctx *q, LLVMValueRef p, int wb, int tl)
{
    LLVMTypeRef ty = LLVMVectorType(q->i8, 64);
    LLVMValueRef m[64], v = vload_masked(g, ty, p, wb * tl);
    int l, c;

    for (l = 0; l < 16; l++)
        for (c = 0; c < 4; c++)
            m[l * 4 + c] = LLVMConstInt(g->i32, l < wb && c < tl ? (unsigned)(l * tl + c) : 64, 0);
    return LLVMBuildShuffleVector(g->b, v, LLVMConstNull(ty), LLVMConstVector(m, 64), "");
}

/* A tile of lanes_tile in the making: lt_open, lt_group for each group of 4 terms (the
 * whole ones, then the tail), lt_close; two tiles' groups may interleave (pipe_pair). */
typedef struct ltile {
    const qctx *q;
    LLVMValueRef a, out;
    int64_t ng, tl, lda, ldo;
    int nb, wb, nq;
    LLVMValueRef acc[TMAX], base[TMAX], tail[TMAX], row[TMAX];
} ltile;

static void
lt_open(kg *g, ltile *t, const qctx *q, LLVMValueRef w, int64_t K, int64_t r0, LLVMValueRef b,
        int nb, int wb, LLVMValueRef a, int64_t lda, int nq, LLVMValueRef corr, LLVMValueRef out,
        int64_t ldo)
{
    int i;

    t->q = q;
    t->a = a;
    t->out = out;
    t->ng = K / 4;
    t->tl = K % 4;
    t->lda = lda;
    t->ldo = ldo;
    t->nb = nb;
    t->wb = wb;
    t->nq = nq;
    for (i = 0; i < nb; i++) { /* block i's group 0 and its tail (rnnq_relayout) */
        t->row[i] = add(g, ci(g, r0), mul(g, add(g, b, ci(g, i)), ci(g, 16)));
        t->base[i] = gepb(g, w, add(g, mul(g, t->row[0], ci(g, K)), ci(g, (int64_t)i * wb * 4)));
        t->tail[i] = gepb(g, w,
                          add(g, mul(g, t->row[0], ci(g, K)),
                              ci(g, t->ng * nb * wb * 4 + (int64_t)i * wb * t->tl)));
    }
    for (i = 0; i < nb * nq; i++) {
        t->acc[i] = entry_alloca(g, q->acc);
        LLVMBuildStore(g->b, acc_start(g, q, corr, t->row[i % nb], wb), t->acc[i]);
    }
}

/* group p of 4 terms (an i64), or the K % 4 last terms when p is NULL */
static void
lt_group(kg *g, ltile *t, LLVMValueRef p)
{
    const qctx *q = t->q;
    const int nb = t->nb, wb = t->wb;
    LLVMTypeRef v8 = LLVMVectorType(q->i8, 64);
    LLVMValueRef wv[TMAX], av[16];
    int i, j;

    for (i = 0; i < nb; i++) {
        LLVMValueRef at = p ? gepb(g, t->base[i], mul(g, p, ci(g, (int64_t)nb * wb * 4))) : NULL;
        wv[i] = !p         ? tail_load(g, q, t->tail[i], wb, (int)t->tl)
                : wb == 16 ? vload(g, v8, at)
                           : vload_masked(g, v8, at, wb * 4);
    }
    for (j = 0; j < t->nq; j++)
        av[j] = abcast(g, q, t->a,
                       add(g, ci(g, j * t->lda), p ? mul(g, p, ci(g, 4)) : ci(g, t->ng * 4)));
    for (j = 0; j < t->nq; j++)
        for (i = 0; i < nb; i++)
            LLVMBuildStore(
                g->b,
                dot_step(g, q, LLVMBuildLoad2(g->b, q->acc, t->acc[j * nb + i], ""), wv[i], av[j]),
                t->acc[j * nb + i]);
}

static void
lt_close(kg *g, ltile *t)
{
    LLVMTypeRef v64 = LLVMVectorType(g->i64, 16);
    int i, j;

    for (j = 0; j < t->nq; j++)
        for (i = 0; i < t->nb; i++) {
            LLVMValueRef v = lanes(
                g,
                LLVMBuildSExt(g->b, LLVMBuildLoad2(g->b, t->q->acc, t->acc[j * t->nb + i], ""), v64,
                              ""),
                0, t->wb);
            LLVMValueRef s =
                LLVMBuildStore(g->b, post_w(g, t->q, t->row[i], v),
                               gept(g, g->i64, t->out, add(g, t->row[i], ci(g, j * t->ldo))));
            LLVMSetAlignment(s, 8);
        }
}

/* groups [p0, p1) of t */
static void
lt_groups(kg *g, ltile *t, int64_t p0, int64_t p1)
{
    kloop l;
    if (p1 > p0) {
        lt_group(g, t, loop_begin(g, &l, ci(g, p0), ci(g, p1)));
        loop_end(g, &l);
    }
}

/*
 * out[j * ldo + r] = w_r . a_j (i64, corrected when corr) for the rows r of the tile of nb
 * blocks b + i (i < nb) of wb rows each of the range from row r0 (row r0 + 16 (b + i) + l,
 * l < wb) of w laid out by rnnq_relayout (K terms), and the activation rows a_j = a + j * lda
 * (bytes), j < nq: nb * nq accumulators in registers, a group of 4 terms of 16 rows one 64-byte
 * load (masked for a block narrower than 16; the tile's blocks' groups p one after the other),
 * the same 4 activation bytes broadcast to every lane (abcast); the K % 4 last terms one more
 * step (tail_load), against the activation bytes after them too, which multiply zeros. No
 * reduction: the lanes are the row sums.
 */
static void
lanes_tile(kg *g, const qctx *q, LLVMValueRef w, int64_t K, int64_t r0, LLVMValueRef b, int nb,
           int wb, LLVMValueRef a, int64_t lda, int nq, LLVMValueRef corr, LLVMValueRef out,
           int64_t ldo)
{
    ltile t;

    lt_open(g, &t, q, w, K, r0, b, nb, wb, a, lda, nq, corr, out, ldo);
    lt_groups(g, &t, 0, t.ng);
    if (t.tl)
        lt_group(g, &t, NULL);
    lt_close(g, &t);
}

/* Block b of n, or n - 1 - b on the steps q->flip says: a GEMV whose matrix is about the size
 * of the cache misses on every line when it streams it in the same order each step (the
 * cache keeps the lines it needs last); backwards every other step, it starts on the lines
 * the previous step left in the cache. The order of the rows changes no sum. */
static LLVMValueRef
flipped(kg *g, const qctx *q, LLVMValueRef b, int64_t n)
{
    return q->flip ? sel(g, q->flip, sub(g, ci(g, n - 1), b), b) : b;
}

/* out[q0 * ldo + r] = w_r . a_j (i64, corrected) for rows [r0, r1) of w ([*, K] int8) and
 * activation rows j < nq (lda bytes apart): x86 tiles (dot_tile) of L rows x 1 activation row
 * or RB x 4, then blocks of RB rows, then single rows. */
static void
emit_rows(kg *g, const qctx *q, LLVMValueRef w, LLVMValueRef P, int64_t K, int64_t r0, int64_t r1,
          LLVMValueRef a, int64_t lda, int nq, LLVMValueRef corr, LLVMValueRef out, int64_t ldo)
{
    const int tr = nq == 1 ? (int)LLVMGetVectorSize(q->acc) : RB; /* rows per x86 tile */
    LLVMValueRef res[RB][4];
    int64_t nb, rr;
    int r, j;

    if (P) { /* the whole packed blocks in [r0, r1), NB at a time, then the rows around them */
        const int64_t L = LLVMGetVectorSize(q->acc), lo = (r0 + L - 1) / L, hi = r1 / L;
        const int NB = 8 / nq > 0 ? 8 / nq : 1;
        const int64_t ng = (hi - lo) / NB, rest = (hi - lo) % NB;
        if (lo < hi) {
            if (ng > 0) {
                kloop l;
                LLVMValueRef b = flipped(g, q, loop_begin(g, &l, ci(g, 0), ci(g, ng)), ng);
                lanes_blocks(g, q, P, K, add(g, ci(g, lo), mul(g, b, ci(g, NB))), NB, a, lda, nq,
                             corr, out, ldo);
                loop_end(g, &l);
            }
            if (rest)
                lanes_blocks(g, q, P, K, ci(g, lo + ng * NB), (int)rest, a, lda, nq, corr, out,
                             ldo);
            emit_rows(g, q, w, NULL, K, r0, lo * L, a, lda, nq, corr, out, ldo);
            emit_rows(g, q, w, NULL, K, hi * L, r1, a, lda, nq, corr, out, ldo);
            return;
        }
    }

    if (tiled(q) && (tr * nq) % (int)LLVMGetVectorSize(q->acc) == 0 && tr * nq <= TMAX &&
        (r1 - r0) / tr > 0) {
        kloop l;
        LLVMValueRef b =
            flipped(g, q, loop_begin(g, &l, ci(g, 0), ci(g, (r1 - r0) / tr)), (r1 - r0) / tr);
        LLVMValueRef row = add(g, ci(g, r0), mul(g, b, ci(g, tr)));
        dot_tile(g, q, gepb(g, w, mul(g, row, ci(g, K))), K, tr, a, lda, nq, corr, row, out, ldo);
        loop_end(g, &l);
        r0 += (r1 - r0) / tr * tr;
    }
    nb = (r1 - r0) / RB;
    if (nb > 0) {
        kloop l;
        LLVMValueRef b = loop_begin(g, &l, ci(g, 0), ci(g, nb));
        LLVMValueRef row = add(g, ci(g, r0), mul(g, b, ci(g, RB)));
        dot_block(g, q, gepb(g, w, mul(g, row, ci(g, K))), K, RB, a, lda, nq, K, res);
        for (r = 0; r < RB; r++) {
            LLVMValueRef rv = add(g, row, ci(g, r));
            for (j = 0; j < nq; j++)
                LLVMBuildStore(g->b, post_w(g, q, rv, corrected(g, q, res[r][j], corr, rv)),
                               gept(g, g->i64, out, add(g, rv, ci(g, j * ldo))));
        }
        loop_end(g, &l);
    }
    for (rr = r0 + nb * RB; rr < r1; rr++) {
        dot_block(g, q, gepb(g, w, ci(g, rr * K)), K, 1, a, lda, nq, K, res);
        for (j = 0; j < nq; j++)
            LLVMBuildStore(g->b,
                           post_w(g, q, ci(g, rr), corrected(g, q, res[0][j], corr, ci(g, rr))),
                           gept(g, g->i64, out, ci(g, rr + j * ldo)));
    }
}

/* The rows [r0, r1) of a range of w laid out at compile time in tiles of NB blocks
 * (rnnq_relayout, rnnq_tile_blocks), as emit_rows does for the ONNX order: the whole tiles (in
 * the order q->flip says), the tile of the whole blocks left, then the narrow block
 * (lanes_tile). */
static void
emit_lanes(kg *g, const qctx *q, LLVMValueRef w, int64_t K, int NB, int64_t r0, int64_t r1,
           LLVMValueRef a, int64_t lda, int nq, LLVMValueRef corr, LLVMValueRef out, int64_t ldo)
{
    const int64_t nf = (r1 - r0) / 16, wb = (r1 - r0) % 16;
    const int64_t ng = nf / NB, rest = nf % NB;

    if (ng > 0) {
        kloop l;
        LLVMValueRef b = flipped(g, q, loop_begin(g, &l, ci(g, 0), ci(g, ng)), ng);
        lanes_tile(g, q, w, K, r0, mul(g, b, ci(g, NB)), NB, 16, a, lda, nq, corr, out, ldo);
        loop_end(g, &l);
    }
    if (rest)
        lanes_tile(g, q, w, K, r0, ci(g, ng * NB), (int)rest, 16, a, lda, nq, corr, out, ldo);
    if (wb)
        lanes_tile(g, q, w, K, r0, ci(g, nf), 1, (int)wb, a, lda, nq, corr, out, ldo);
}

/* emit_lanes when laid (w laid out at compile time in tiles of laid blocks), else emit_rows */
static void
emit_dot(kg *g, const qctx *q, int laid, LLVMValueRef w, LLVMValueRef P, int64_t K, int64_t r0,
         int64_t r1, LLVMValueRef a, int64_t lda, int nq, LLVMValueRef corr, LLVMValueRef out,
         int64_t ldo)
{
    if (laid)
        emit_lanes(g, q, w, K, laid, r0, r1, a, lda, nq, corr, out, ldo);
    else
        emit_rows(g, q, w, P, K, r0, r1, a, lda, nq, corr, out, ldo);
}

/* corr[r] = -128 * sum_k w[r][k] for the rows of w laid out at compile time for the ranges
 * of u (rnnq_ranges on g->threads): the sums by emit_lanes against a row of ones into tmp
 * (i64 [rows]) */
static void
emit_corr_laid(kg *g, const qctx *q, LLVMValueRef w, int u, int64_t rows, int64_t K,
               LLVMValueRef tmp, LLVMValueRef corr)
{
    LLVMValueRef ones = gepb(g, q->scratch, ci(g, q->L.ones)), r;
    int64_t r0[4 * MT_MAX], n[4 * MT_MAX];
    int nr = rnnq_ranges(q->p, g->threads > 1 ? g->threads : 1, u, r0, n), k;
    qctx raw = *q;
    kloop l;

    raw.post = NULL;
    raw.flip = NULL;
    for (k = 0; k < nr; k++)
        emit_lanes(g, &raw, w, K, rnnq_tile_blocks(q->kc, u, g->threads > 1 ? g->threads : 1),
                   r0[k], r0[k] + n[k], ones, 0, 1, NULL, tmp, 0);
    r = loop_begin(g, &l, ci(g, 0), ci(g, rows));
    sti(g, g->i32, mul(g, ldi(g, g->i64, tmp, r), ci(g, -128)), corr, r);
    loop_end(g, &l);
}

/* corr[r] = -128 * sum_k w[r][k] for rows [0, rows) of w [rows, K] (VNNI only) */
static void
emit_corr(kg *g, const qctx *q, LLVMValueRef w, int64_t rows, int64_t K, LLVMValueRef corr)
{
    const int64_t nb = rows / RB;
    LLVMValueRef ones = gepb(g, q->scratch, ci(g, q->L.ones)), res[RB][4];
    qctx raw = *q;
    int r;
    int64_t rr;

    raw.mode = QD_VNNI; /* the ones as the unsigned operand: sum of the row */
    if (nb > 0) {
        kloop l;
        LLVMValueRef b = loop_begin(g, &l, ci(g, 0), ci(g, nb));
        LLVMValueRef row = mul(g, b, ci(g, RB));
        dot_block(g, &raw, gepb(g, w, mul(g, row, ci(g, K))), K, RB, ones, 0, 1, K, res);
        for (r = 0; r < RB; r++)
            sti(g, g->i32, mul(g, res[r][0], ci(g, -128)), corr, add(g, row, ci(g, r)));
        loop_end(g, &l);
    }
    for (rr = nb * RB; rr < rows; rr++) {
        dot_block(g, &raw, gepb(g, w, ci(g, rr * K)), K, 1, ones, 0, 1, K, res);
        sti(g, g->i32, mul(g, res[0][0], ci(g, -128)), corr, ci(g, rr));
    }
}

/* a[k] = v, k < K, as the dot product reads it: VNNI v + 128 as a byte, SDOT and MVE's int8
 * mode a byte, SMLAD int16 in the order [a0 a2 a1 a3] in each whole group of 4 (k with its
 * bits 0 and 1 swapped; the scalar tail's in place), else int16 */
static void
st_act(kg *g, const qctx *q, LLVMValueRef v, LLVMValueRef a, LLVMValueRef k, int64_t K)
{
    if (q->mode == QD_SMLAD && K >= 4) {
        LLVMValueRef pk = LLVMBuildOr(
            g->b, LLVMBuildAnd(g->b, k, ci(g, ~(int64_t)3), ""),
            LLVMBuildOr(g->b, LLVMBuildShl(g->b, LLVMBuildAnd(g->b, k, ci(g, 1), ""), ci(g, 1), ""),
                        LLVMBuildAnd(g->b, LLVMBuildLShr(g->b, k, ci(g, 1), ""), ci(g, 1), ""), ""),
            "");
        k = sel(g, LLVMBuildICmp(g->b, LLVMIntSLT, k, ci(g, K / 4 * 4), ""), pk, k);
    }
    if (q->ab == 1)
        sti(g, q->i8, q->biased ? LLVMBuildXor(g->b, v, kof(g, v, 128), "") : v, a, k);
    else
        sti(g, q->i16, v, a, k);
}

/* --- the kernel --------------------------------------------------------------------------- */

/* The units j of one pass of the element-wise part: x86 runs vectors of q->vw units (lanes
 * j .. j + vw - 1 of the same int64 code; wide ones give the core independent chains to
 * overlap), then of a quarter as many, then single units; elsewhere single units. */
typedef void (*unit_fn)(kg *g, const qctx *q, const qdir *e, LLVMValueRef j, LLVMValueRef qi,
                        LLVMValueRef y);

static void
emit_units(kg *g, const qctx *q, const qdir *e, int64_t j0, int64_t j1, unit_fn fn, LLVMValueRef qi,
           LLVMValueRef y)
{
    const int ws[3] = {q->vw, q->vw >= 16 ? q->vw / 4 : 0, 1};
    int64_t nv;
    qctx s = *q;
    kloop l;
    int k;

    for (k = 0; k < 3; k++) {
        if (!ws[k] || (nv = (j1 - j0) / ws[k]) == 0)
            continue;
        s.vw = ws[k] > 1 ? ws[k] : 0;
        if (nv == 1) {
            fn(g, &s, e, ci(g, j0), qi, y);
        } else {
            LLVMValueRef b = loop_begin(g, &l, ci(g, 0), ci(g, nv));
            fn(g, &s, e, add(g, ci(g, j0), mul(g, b, ci(g, ws[k]))), qi, y);
            loop_end(g, &l);
        }
        j0 += nv * ws[k];
    }
}

/* requant(Peep[k] * x, peep_mult, peep_shift) in int64, x the cell (int32 lanes) */
static LLVMValueRef
peep(kg *g, const qctx *q, const qdir *e, LLVMValueRef k, LLVMValueRef x)
{
    return rshrc(
        g, mul(g, mul(g, sx(g, ldw(g, q, q->i16, e->Pd, k)), sx(g, x)), kv(g, q, q->p->peep_mult)),
        q->p->peep_shift);
}

/* The element-wise part of one step for unit j at chunk row qi: h (and c) in place, h as the
 * next step's dot reads it, Y's row at y. */
static void
cell_unit(kg *g, const qctx *q, const qdir *e, LLVMValueRef j, LLVMValueRef qi, LLVMValueRef y)
{
    const lstmc_rt_rnnq_params *p = q->p;
    const int64_t H = p->hidden, GH = cell_gates(p->cell) * H;
    LLVMValueRef aw = gept(g, g->i64, e->accw, mul(g, qi, ci(g, GH)));
    LLVMValueRef hj;

#define ACCW(r) ldw(g, q, g->i64, aw, (r))
#define ACCU(r) ldw(g, q, g->i64, e->accu, (r))
    if (p->cell == LSTMC_RT_CELL_LSTM) {
        LLVMValueRef ri, ro, rf, rc, zi, zo, zf, zc, cj, i, f, gg, o, cn, tc;
        ri = j;
        ro = add(g, j, ci(g, H));
        rf = add(g, j, ci(g, 2 * H));
        rc = add(g, j, ci(g, 3 * H));
        zi = gate_z(g, q, e, ri, ACCW(ri), ACCU(ri));
        zo = gate_z(g, q, e, ro, ACCW(ro), ACCU(ro));
        zf = gate_z(g, q, e, rf, ACCW(rf), ACCU(rf));
        zc = gate_z(g, q, e, rc, ACCW(rc), ACCU(rc));
        cj = ldw(g, q, g->i32, e->c, j); /* from here on int32 lanes where the recipe allows */
        if (e->Pd) {
            zi = add(g, zi, peep(g, q, e, j, cj));
            zf = add(g, zf, peep(g, q, e, add(g, j, ci(g, 2 * H)), cj));
        }
        i = actz(g, q, e->act[0], zi);
        f = p->input_forget ? sub(g, kof(g, i, 32768), i) : actz(g, q, e->act[0], zf);
        gg = actz(g, q, e->act[1], zc);
        /* in int32: |f| <= 65536 (32768 - tanh), |c| <= 32768 with c <= 32767, |i g| <= 2^30 */
        cn = satc(g, add(g, rshrc(g, mul(g, f, cj), 15), rshrc(g, mul(g, i, gg), 30 - p->cell_exp)),
                  -32768, 32767);
        if (e->Pd)
            zo = add(g, zo, peep(g, q, e, add(g, j, ci(g, H)), cn));
        o = actz(g, q, e->act[0], zo);
        tc = satc(g,
                  p->cell_exp >= 12 ? rshrc(g, cn, p->cell_exp - 12)
                                    : mul(g, cn, kof(g, cn, (int64_t)1 << (12 - p->cell_exp))),
                  -32768, 32767);
        sti(g, g->i32, cn, e->c, j);
        hj = n32(g, satc(g,
                         rshrc(g,
                               mul(g, sx(g, mul(g, o, table_act(g, q, e->act[2], tc))),
                                   kv(g, q, p->h_mult)),
                               p->h_shift),
                         -e->hmax, e->hmax));
    } else if (p->cell == LSTMC_RT_CELL_GRU) {
        LLVMValueRef rz, rn, zg, zn, ng, N15, H15, hv;
        rz = j;
        rn = add(g, j, ci(g, 2 * H));
        zg = sx(g, actz(g, q, e->act[0], gate_z(g, q, e, rz, ACCW(rz), ACCU(rz))));
        hv = sx(g, ldw(g, q, g->i32, e->h, j));
        if (p->linear_before_reset) {
            LLVMValueRef un = gate_u(g, q, e, rn, ACCU(rn));
            zn = add(g, gate_w(g, q, e, rn, ACCW(rn)),
                     rshrc(g, mul(g, sx(g, ldw(g, q, g->i32, e->rg, j)), un), 15));
        } else {
            zn = gate_z(g, q, e, rn, ACCW(rn), ACCU(rn));
        }
        ng = sx(g, actz(g, q, e->act[1], zn));
        N15 = rshrc(g, mul(g, ng, kv(g, q, p->h_mult)), p->h_shift);
        H15 = mul(g, hv, kv(g, q, 32768));
        hj = satc(g, rshrc(g, add(g, N15, rshrc(g, mul(g, zg, sub(g, H15, N15)), 15)), 15),
                  -e->hmax, e->hmax);
    } else {
        LLVMValueRef z, yv;
        z = gate_z(g, q, e, j, ACCW(j), ACCU(j));
        if (e->act[0] == LSTMC_RT_ACT_RELU) {
            if (p->has_clip)
                z = satc(g, z, -(int64_t)p->clip_q, p->clip_q);
            yv = smax(g, z, kv(g, q, 0));
        } else {
            yv = sx(g, actz(g, q, e->act[0], z));
        }
        hj = satc(g, rshrc(g, mul(g, yv, kv(g, q, p->h_mult)), p->h_shift), -e->hmax, e->hmax);
    }
    sti(g, g->i32, hj, e->h, j);
    st_act(g, q, hj, e->ha_next, j, H);
    if (y)
        stx(g, q, hj, y, j);
}

static void
emit_cells(kg *g, const qctx *q, const qdir *e, LLVMValueRef qi, LLVMValueRef y, int64_t j0,
           int64_t j1)
{
    emit_units(g, q, e, j0, j1, cell_unit, qi, y);
}

/* GRU: rg[j] (the r gate) and, for linear_before_reset = 0, rha = r * h as the dot reads it,
 * for the units [j0, j1) */
static void
gru_r_unit(kg *g, const qctx *q, const qdir *e, LLVMValueRef j, LLVMValueRef qi, LLVMValueRef y)
{
    const lstmc_rt_rnnq_params *p = q->p;
    const int64_t H = p->hidden, GH = 3 * H;
    LLVMValueRef aw = gept(g, g->i64, e->accw, mul(g, qi, ci(g, GH)));
    LLVMValueRef rr = add(g, j, ci(g, H));
    LLVMValueRef rg = actz(g, q, e->act[0], gate_z(g, q, e, rr, ACCW(rr), ACCU(rr)));
    (void)y;
    sti(g, g->i32, rg, e->rg, j);
    if (!p->linear_before_reset)
        st_act(g, q, rshrc(g, mul(g, rg, ldw(g, q, g->i32, e->h, j)), 15), e->rha, j, H);
}

static void
emit_gru_r(kg *g, const qctx *q, const qdir *e, LLVMValueRef qi, int64_t j0, int64_t j1)
{
    emit_units(g, q, e, j0, j1, gru_r_unit, qi, NULL);
}

#undef ACCW
#undef ACCU

/* x86: Q's fields 0 .. bR, row by row, into the copy by field (q->L.qs) */
static void
emit_qs(kg *g, const qctx *q, LLVMValueRef Q, int64_t rows)
{
    kloop l;
    LLVMValueRef r = loop_begin(g, &l, ci(g, 0), ci(g, rows));
    LLVMValueRef qs = gepb(g, q->scratch, ci(g, q->L.qs));
    int k;
    for (k = 0; k <= LSTMC_RT_RNNQ_BR; k++)
        sti(g, g->i32, qf(g, Q, r, k), qs, add(g, r, ci(g, k * rows)));
    loop_end(g, &l);
}

/* fill n bytes at p with v */
static void
emit_fill(kg *g, LLVMValueRef p, int64_t n, int v)
{
    kloop l;
    LLVMValueRef k = loop_begin(g, &l, ci(g, 0), ci(g, n));
    LLVMBuildStore(g->b, LLVMConstInt(LLVMInt8TypeInContext(g->cx), (unsigned)v, 0), gepb(g, p, k));
    loop_end(g, &l);
}

/* return LSTMC_RT_ERR_BAD_PARAMS for a row of Q the reference refuses (rows_ok) */
static void
emit_rows_check(kg *g, LLVMValueRef Q, int64_t rows)
{
    kloop l;
    LLVMValueRef r = loop_begin(g, &l, ci(g, 0), ci(g, rows)), bad;
    LLVMValueRef mw = qf(g, Q, r, LSTMC_RT_RNNQ_MW), nw = qf(g, Q, r, LSTMC_RT_RNNQ_NW);
    LLVMValueRef mu = qf(g, Q, r, LSTMC_RT_RNNQ_MU), nu = qf(g, Q, r, LSTMC_RT_RNNQ_NU);
    LLVMBasicBlockRef join;
    bad = LLVMBuildOr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, mw, ci(g, 0), ""),
                      LLVMBuildICmp(g->b, LLVMIntUGT, nw, ci(g, 62), ""), "");
    bad = LLVMBuildOr(g->b, bad, LLVMBuildICmp(g->b, LLVMIntSLT, mu, ci(g, 0), ""), "");
    bad = LLVMBuildOr(g->b, bad, LLVMBuildICmp(g->b, LLVMIntUGT, nu, ci(g, 62), ""), "");
    join = if_begin(g, bad);
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_ERR_BAD_PARAMS, 0));
    LLVMPositionBuilderAtEnd(g->b, join);
    loop_end(g, &l);
}

/* The module's copy of a table of the recipe. */
static LLVMValueRef
table_global(kg *g, int32_t kind)
{
    const char *name = kind == LSTMC_RT_ACT_TANH ? "lstmc_q_tanh_tab" : "lstmc_q_sigmoid_tab";
    LLVMValueRef gl = LLVMGetNamedGlobal(g->m, name), v[513];
    const int16_t *t = lstmc_rt_q_table(kind);
    LLVMTypeRef i16 = LLVMInt16TypeInContext(g->cx);
    int k;

    if (gl)
        return gl;
    for (k = 0; k < 513; k++)
        v[k] = LLVMConstInt(i16, (unsigned long long)(int64_t)t[k], 1);
    gl = LLVMAddGlobal(g->m, LLVMArrayType(i16, 513), name);
    LLVMSetInitializer(gl, LLVMConstArray(i16, v, 513));
    LLVMSetGlobalConstant(gl, 1);
    LLVMSetLinkage(gl, LLVMPrivateLinkage);
    LLVMSetUnnamedAddr(gl, 1);
    LLVMSetAlignment(gl, 64);
    return gl;
}

int
rnnq_dot_mode(const kg *g, int bits)
{
    if (g->x86_avx512bw)
        return bits == 8 && g->x86_vnni ? QD_VNNI : QD_WD512;
    if (g->x86_avx2)
        return QD_WD256;
    if (g->arm_dotprod && bits == 8)
        return QD_SDOT;
    if (g->arm_mve)
        return QD_MVE;
    if (g->arm_dsp)
        return QD_SMLAD;
    return QD_GEN;
}

int
rnnq_lays_out(const kg *g, const kp_call *c)
{
    return c->kind == KP_RNN_Q && rnnq_dot_mode(g, c->p.rnnq.bits) == QD_VNNI;
}

int
rnnq_tile_blocks(const kp_call *c, int u, int nt)
{
    /* U.h: tile blocks x 1 activation row (8 by default). W.x: 16 / rows blocks x rows rows
     * of the chunk (kparams_int: 1 x 16 on one thread, where the pipelined steps take 1 block
     * x 8 rows; 4 x 4 on threads), 8 x 1 for chunks of other sizes than 4, 8, 12, 16 */
    kp_rnnq_scratch L;
    kp_rnnq_scratch_of(&c->p.rnnq, &L);
    return u ? c->tune.v[TK_TILE] : L.tc % 4 != 0 ? 8 : 16 / rnnq_rows(c, &c->tune, nt);
}

/* The ranges of emit_rnnq_body's emit_dot calls, slice by slice: W.x the gate rows of the
 * slice's units, all gates in one range when the slice has every unit; U.h the same, but for
 * a GRU with linear_before_reset = 0 the z and r gates apart from the h gate. */
int
rnnq_ranges(const lstmc_rt_rnnq_params *p, int nt, int u, int64_t *r0, int64_t *n)
{
    const int64_t H = p->hidden, G = cell_gates(p->cell);
    const int split = u && p->cell == LSTMC_RT_CELL_GRU && !p->linear_before_reset;
    int nr = 0, t;

    for (t = 0; t < nt; t++) {
        int64_t j0, j1, gb, nblk;
        mt_slice(H, nt, 16, t, &j0, &j1);
        if (j1 == j0)
            continue;
        nblk = j0 == 0 && j1 == H ? G : 1;
        for (gb = 0; gb < (split ? 2 : G); gb += nblk, nr++) {
            r0[nr] = gb * H + j0;
            n[nr] = (gb + (nblk > 1 && split ? 2 : nblk) - 1) * H + j1 - r0[nr];
        }
        if (split) {
            r0[nr] = 2 * H + j0;
            n[nr++] = j1 - j0;
        }
    }
    return nr;
}

static void
qctx_init(kg *g, const kp_call *kc, LLVMValueRef scratch, qctx *q)
{
    const lstmc_rt_rnnq_params *p = &kc->p.rnnq;

    memset(q, 0, sizeof *q);
    q->p = p;
    q->kc = kc;
    kp_rnnq_scratch_of(p, &q->L);
    q->scratch = scratch;
    q->i8 = LLVMInt8TypeInContext(g->cx);
    q->i16 = LLVMInt16TypeInContext(g->cx);
    q->mode = rnnq_dot_mode(g, p->bits);
    q->vk = q->mode == QD_VNNI    ? 64
            : q->mode == QD_WD512 ? 32
            : q->mode == QD_SMLAD ? 4
            : q->mode == QD_MVE   ? 128 / p->bits
                                  : 16;
    q->masked = q->mode == QD_VNNI || q->mode == QD_WD512;
    q->ab = q->mode == QD_VNNI || q->mode == QD_SDOT || (q->mode == QD_MVE && p->bits == 8) ? 1 : 2;
    q->biased = q->mode == QD_VNNI;
    if (q->mode == QD_SMLAD || q->mode == QD_MVE)
        q->acc = p->bits == 8 ? g->i32 : g->i64;
    else
        q->acc = LLVMVectorType(g->i32, q->mode == QD_WD256 ? 8 : q->mode == QD_SDOT ? 4 : 16);
    /* the x86 element-wise part and what goes with it, in the scratch kp_schedule gives an
     * x86 target (emit_units) */
    q->vw = tiled(q) && kc->scratch_bytes >= q->L.x86_bytes ? 32 : 0;
    q->tab[0] = table_global(g, LSTMC_RT_ACT_SIGMOID);
    q->tab[1] = table_global(g, LSTMC_RT_ACT_TANH);
}

/* The units [j0, j1) of slice t of nt (one slice: all of them) and the start of its code
 * (slice_begin: run when t is in [first, end)), or NULL for a slice without units. */
static LLVMBasicBlockRef
slice_open(kg *g, const qctx *q, int nt, int t, LLVMValueRef first, LLVMValueRef end, int64_t *j0,
           int64_t *j1)
{
    mt_slice(q->p->hidden, nt, 16, t, j0, j1);
    return *j1 == *j0 ? NULL : slice_begin(g, first, end, t);
}

/* Between the phases of a step: every slice's part done (nothing on one thread). */
static void
phase_end(kg *g, int nt)
{
    if (nt > 1)
        emit_barrier(g);
}

/* --- the pipelined steps (one thread, VNNI, W and U laid out) -------------------------- */

/*
 * On the layers whose U streams from beyond L2, U.h waits on memory with the VNNI unit half
 * idle, and W.x is compute-bound. The pipelined steps compute the W.x of the next group of 8
 * steps during the steps of this one, an eighth a step, each W tile (1 block x 8 rows) in the
 * same loop as a U tile (8 blocks x h), so that out-of-order execution runs the W.x terms
 * while the U lines come. xa and accw are rings of 16 rows (the group the cells read, the
 * group W.x writes), the row of step k at slot k & 15. Bit for bit the chunked steps: the
 * same sums in the same lanes, at another time.
 */
#define PIPE_ROWS 8

static int
pipe_wanted(const qctx *q, const qdir *e, int nt)
{
    const lstmc_rt_rnnq_params *p = q->p;
    return nt == 1 && q->mode == QD_VNNI && q->kc->tune.v[TK_PIPE] && e->wl == 1 && e->ul &&
           e->zw && q->L.tc == 2 * PIPE_ROWS &&
           !(p->cell == LSTMC_RT_CELL_GRU && !p->linear_before_reset);
}

/* The input rows of sequence n for the steps [r0, r1), columns [k0, k1), as the dot product
 * reads them: step k's at xa's row k & 15, which is the chunk's row k - t0 too (chunks of 16
 * steps, or one chunk of fewer), and the pipelined steps' slot. */
static void
quant_rows(kg *g, const qctx *q, const lstmc_rt_rnn_params *lp, const rec_dims *dm, LLVMValueRef X,
           LLVMValueRef n, LLVMValueRef s, int rev, LLVMValueRef r0, LLVMValueRef r1, int64_t k0,
           int64_t k1)
{
    const int64_t I = q->p->input_size, kxb = q->L.kx * q->ab;
    LLVMValueRef st, tt, x, xa, k;
    kloop lq, lb;

    st = loop_begin(g, &lq, r0, r1);
    tt = rev ? sub(g, sub(g, s, ci(g, 1)), st) : st;
    x = gepb(g, X, mul(g, rec_row_at(g, lp, dm, tt, n), ci(g, I * (q->p->bits / 8))));
    xa = gepb(g, q->scratch,
              add(g, ci(g, q->L.xa), mul(g, LLVMBuildAnd(g->b, st, ci(g, 15), ""), ci(g, kxb))));
    k = loop_begin(g, &lb, ci(g, k0), ci(g, k1));
    st_act(g, q, ldx(g, q, x, k), xa, k, I);
    loop_end(g, &lb);
    loop_end(g, &lq);
}

/* The start of step `step` of sequence n: its row of Y (NULL without Y), h as it reads it and
 * as the next step does (e->ha, e->ha_next: double-buffered), and qu, q with U's rows
 * backwards on odd steps (x86, flipped). */
static LLVMValueRef
step_begin(kg *g, const qctx *q, qdir *e, const lstmc_rt_rnn_params *lp, const rec_dims *dm,
           LLVMValueRef Y, LLVMValueRef n, LLVMValueRef s, int rev, int d, LLVMValueRef step,
           LLVMValueRef ha0, LLVMValueRef ha1, qctx *qu)
{
    LLVMValueRef tt = rev ? sub(g, sub(g, s, ci(g, 1)), step) : step;
    LLVMValueRef odd =
        LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildAnd(g->b, step, ci(g, 1), ""), ci(g, 0), "");
    e->ha = sel(g, odd, ha1, ha0);
    e->ha_next = sel(g, odd, ha0, ha1);
    *qu = *q;
    if (q->vw && (q->kc->tune.kind != 3 || q->kc->tune.v[TK_ALTERNATE]))
        qu->flip = LLVMBuildTrunc(g->b, step, g->i1, "");
    return Y ? gepb(g, Y, mul(g, rec_y_at(g, lp, dm, tt, d, n), ci(g, q->p->bits / 8))) : NULL;
}

/* U tile i of the step (in its order) and W tile (block) wb of the next group, their groups
 * of terms in one loop as far as both go */
static void
pipe_pair(kg *g, const qctx *qu, const qctx *qw, const qdir *e, LLVMValueRef i, int64_t nu,
          LLVMValueRef wb, LLVMValueRef xa, LLVMValueRef aw)
{
    const lstmc_rt_rnnq_params *p = qu->p;
    const int64_t H = p->hidden, I = p->input_size, GH = cell_gates(p->cell) * H;
    ltile tu, tw;
    int64_t n;
    kloop l;

    lt_open(g, &tu, qu, e->Ud, H, 0, mul(g, flipped(g, qu, i, nu), ci(g, e->ul)), e->ul, 16, e->ha,
            0, 1, e->corrU, e->accu, 0);
    lt_open(g, &tw, qw, e->Wd, I, 0, wb, 1, 16, xa, qw->L.kx * qw->ab, PIPE_ROWS, e->corrW, aw, GH);
    n = tu.ng < tw.ng ? tu.ng : tw.ng;
    if (n > 0) {
        LLVMValueRef k = loop_begin(g, &l, ci(g, 0), ci(g, n));
        lt_group(g, &tu, k);
        lt_group(g, &tw, k);
        loop_end(g, &l);
    }
    lt_groups(g, &tu, n, tu.ng);
    lt_groups(g, &tw, n, tw.ng);
    if (tu.tl)
        lt_group(g, &tu, NULL);
    if (tw.tl)
        lt_group(g, &tw, NULL);
    lt_close(g, &tu);
    lt_close(g, &tw);
}

/*
 * A step's U.h (qu: its flip) and, when has, the share k (step & 7) of the next group's W.x
 * (qw, into the slots at xa and aw): W blocks [k nbk / 8, (k + 1) nbk / 8), each with a U
 * tile (pipe_pair), then the U tiles and W blocks left; the narrow W block on the group's
 * last step.
 */
static void
pipe_dots(kg *g, const qctx *qu, const qctx *qw, const qdir *e, LLVMValueRef k, LLVMValueRef has,
          LLVMValueRef xa, LLVMValueRef aw)
{
    const lstmc_rt_rnnq_params *p = qu->p;
    const int64_t H = p->hidden, I = p->input_size, GH = cell_gates(p->cell) * H;
    const int64_t nbk = GH / 16, wbk = GH % 16, UB = e->ul, nu = nbk / UB, ru = nbk % UB;
    const int64_t kxb = qu->L.kx * qu->ab;
    LLVMValueRef wlo = LLVMBuildSDiv(g->b, mul(g, k, ci(g, nbk)), ci(g, PIPE_ROWS), "");
    LLVMValueRef whi =
        LLVMBuildSDiv(g->b, mul(g, add(g, k, ci(g, 1)), ci(g, nbk)), ci(g, PIPE_ROWS), "");
    LLVMValueRef wn = sel(g, has, sub(g, whi, wlo), ci(g, 0)), i;
    LLVMBasicBlockRef then, other, join;
    kloop l;

    if (nu > 0) {
        i = loop_begin(g, &l, ci(g, 0), ci(g, nu));
        then = LLVMAppendBasicBlockInContext(g->cx, g->fn, "pair");
        other = LLVMAppendBasicBlockInContext(g->cx, g->fn, "alone");
        join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "join");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, i, wn, ""), then, other);
        LLVMPositionBuilderAtEnd(g->b, then);
        pipe_pair(g, qu, qw, e, i, nu, add(g, wlo, i), xa, aw);
        LLVMBuildBr(g->b, join);
        LLVMPositionBuilderAtEnd(g->b, other);
        lanes_tile(g, qu, e->Ud, H, 0, mul(g, flipped(g, qu, i, nu), ci(g, UB)), (int)UB, 16, e->ha,
                   0, 1, e->corrU, e->accu, 0);
        LLVMBuildBr(g->b, join);
        LLVMPositionBuilderAtEnd(g->b, join);
        loop_end(g, &l);
    }
    i = loop_begin(g, &l, ci(g, nu), wn);
    lanes_tile(g, qw, e->Wd, I, 0, add(g, wlo, i), 1, 16, xa, kxb, PIPE_ROWS, e->corrW, aw, GH);
    loop_end(g, &l);
    if (ru)
        lanes_tile(g, qu, e->Ud, H, 0, ci(g, nu * UB), (int)ru, 16, e->ha, 0, 1, e->corrU, e->accu,
                   0);
    if (wbk) {
        lanes_tile(g, qu, e->Ud, H, 0, ci(g, nbk), 1, (int)wbk, e->ha, 0, 1, e->corrU, e->accu, 0);
        join = if_begin(g, LLVMBuildAnd(g->b, has,
                                        LLVMBuildICmp(g->b, LLVMIntEQ, k, ci(g, PIPE_ROWS - 1), ""),
                                        ""));
        lanes_tile(g, qw, e->Wd, I, 0, ci(g, nbk), 1, (int)wbk, xa, kxb, PIPE_ROWS, e->corrW, aw,
                   GH);
        LLVMBuildBr(g->b, join);
        LLVMPositionBuilderAtEnd(g->b, join);
    }
}

/* Sequence n's s steps, pipelined: group 0's input rows and W.x, then the steps. */
static void
pipe_steps(kg *g, const qctx *q, qdir *e, const lstmc_rt_rnn_params *lp, const rec_dims *dm,
           LLVMValueRef X, LLVMValueRef Y, LLVMValueRef n, LLVMValueRef s, int rev, int d,
           LLVMValueRef ha0, LLVMValueRef ha1)
{
    const lstmc_rt_rnnq_params *p = q->p;
    const int64_t I = p->input_size, H = p->hidden, GH = cell_gates(p->cell) * H;
    const int64_t kxb = q->L.kx * q->ab;
    LLVMValueRef xa0 = gepb(g, q->scratch, ci(g, q->L.xa)), step, k, rn, has, sn, y, slot;
    LLVMBasicBlockRef join;
    qctx qw = *q, qu;
    kloop ls;

    qw.post = e;
    quant_rows(g, q, lp, dm, X, n, s, rev, ci(g, 0), smin(g, ci(g, PIPE_ROWS), s), 0, I);
    emit_dot(g, &qw, e->wl, e->Wd, NULL, I, 0, GH, xa0, kxb, PIPE_ROWS, e->corrW, e->accw, GH);
    step = loop_begin(g, &ls, ci(g, 0), s);
    k = LLVMBuildAnd(g->b, step, ci(g, PIPE_ROWS - 1), "");
    rn = add(g, LLVMBuildAnd(g->b, step, ci(g, -PIPE_ROWS), ""), ci(g, PIPE_ROWS));
    has = LLVMBuildICmp(g->b, LLVMIntSLT, rn, s, "");
    join =
        if_begin(g, LLVMBuildAnd(g->b, has, LLVMBuildICmp(g->b, LLVMIntEQ, k, ci(g, 0), ""), ""));
    quant_rows(g, q, lp, dm, X, n, s, rev, rn, smin(g, add(g, rn, ci(g, PIPE_ROWS)), s), 0, I);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    y = step_begin(g, q, e, lp, dm, Y, n, s, rev, d, step, ha0, ha1, &qu);
    sn = LLVMBuildAnd(g->b, rn, ci(g, 2 * PIPE_ROWS - 1), "");
    pipe_dots(g, &qu, &qw, e, k, has, gepb(g, xa0, mul(g, sn, ci(g, kxb))),
              gept(g, g->i64, e->accw, mul(g, sn, ci(g, GH))));
    slot = LLVMBuildAnd(g->b, step, ci(g, 2 * PIPE_ROWS - 1), "");
    if (p->cell == LSTMC_RT_CELL_GRU)
        emit_gru_r(g, q, e, slot, 0, H);
    emit_cells(g, q, e, slot, y, 0, H);
    loop_end(g, &ls);
}

/*
 * The layer's work, sliced by hidden units over nt threads (emit_mt) or on one (nt = 1,
 * first 0, end 1). a: the 13 arguments of lstmc_rt_rnn_q. Slice t owns the units [j0, j1): the
 * gate rows of its units in W.x and U.h, their element-wise recipe and their outputs. The
 * phases of a step run every slice of [first, end) and end at a barrier: U.h and the cells
 * (GRU with linear_before_reset = 0: the r gate, then U.(r * h) and the cells); h as the dot
 * reads it is double-buffered (step k reads ha[k & 1], writes ha[(k + 1) & 1]), so the slices
 * of a phase are independent and may also run one after the other. Each chunk's input rows
 * are converted by all slices, columns [k0, k1) each, before a barrier.
 */
static void
emit_rnnq_body(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a, LLVMValueRef first,
               LLVMValueRef end)
{
    const lstmc_rt_rnnq_params *p = &kc->p.rnnq;
    const int64_t T = p->seq_len, N = p->batch, I = p->input_size, H = p->hidden;
    const int64_t G = cell_gates(p->cell), GH = G * H, D = p->n_dirs;
    const int nacts = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    LLVMValueRef X = a[1], W = a[2], U = a[3], Q = a[4];
    LLVMValueRef sl = kc->in[4] ? a[5] : NULL;
    LLVMValueRef init_h = kc->in[5] ? a[6] : NULL;
    LLVMValueRef init_c = kc->in[6] && p->cell == LSTMC_RT_CELL_LSTM ? a[7] : NULL;
    LLVMValueRef Peep = kc->in[7] && p->cell == LSTMC_RT_CELL_LSTM ? a[8] : NULL;
    LLVMValueRef Y = kc->out[0] ? a[9] : NULL;
    LLVMValueRef Y_h = kc->out[1] ? a[10] : NULL;
    LLVMValueRef Y_c = kc->out[2] && p->cell == LSTMC_RT_CELL_LSTM ? a[11] : NULL;
    lstmc_rt_rnn_params lp;
    rec_dims dm;
    qctx q, qu;
    int32_t d;
    int t;

    qctx_init(g, kc, a[12], &q);
    memset(&lp, 0, sizeof lp);
    lp.seq_len = T;
    lp.batch = N;
    lp.hidden = H;
    lp.n_dirs = p->n_dirs;
    lp.layout = p->layout;
    dm.T = ci(g, T);
    dm.N = ci(g, N);
    dm.dyn_T = 0;

    for (d = 0; d < D; d++) {
        const int rev = D == 2 ? d : p->reverse;
        const int64_t tc = q.L.tc, qb = tc % 4 != 0        ? 1
                                        : g->rnnq_laid & 1 ? rnnq_rows(kc, &kc->tune, nt)
                                                           : 4;
        LLVMValueRef n, s, st, j, nch, t0, tcn, qi, tt, y, corr, ha0, ha1;
        kloop ln, lj, lc, ls, lz;
        qdir e;

        memset(&e, 0, sizeof e);
        e.Wd = gepb(g, W, ci(g, d * GH * I));
        e.Ud = gepb(g, U, ci(g, d * GH * H));
        e.Qd = gept(g, g->i32, Q, ci(g, d * GH * LSTMC_RT_RNNQ_ROW));
        e.Pd = Peep ? gept(g, q.i16, Peep, ci(g, d * 3 * H)) : NULL;
        corr = gepb(g, q.scratch, ci(g, q.L.corr));
        e.corrW = gept(g, g->i32, corr, ci(g, d * GH));
        e.corrU = gept(g, g->i32, corr, ci(g, D * GH + d * GH));
        e.act = p->act + d * nacts;
        e.hmax = p->bits == 8 ? 127 : 32767;
        if (q.vw) {
            int k;
            for (k = 0; k <= LSTMC_RT_RNNQ_BR; k++)
                e.qs[k] =
                    gept(g, g->i32, gepb(g, q.scratch, ci(g, q.L.qs)), ci(g, k * D * GH + d * GH));
            e.zw = 1;
            e.zb = !(p->cell == LSTMC_RT_CELL_GRU && p->linear_before_reset);
        }
        if (q.mode == QD_VNNI) { /* laid out at compile time (rnnq_relayout) */
            e.wl = g->rnnq_laid & 1 ? rnnq_tile_blocks(kc, 0, nt) : 0;
            e.ul = g->rnnq_laid & 2 ? rnnq_tile_blocks(kc, 1, nt) : 0;
        }
        if (q.vw && !e.wl && pack_pays(&q, I)) /* packed by emit_rnnq */
            e.Pw = gepb(g, q.scratch, ci(g, q.L.pw + d * GH * ((I + 3) / 4 * 4)));
        if (q.vw && !e.ul && pack_pays(&q, H))
            e.Pu = gepb(g, q.scratch, ci(g, q.L.pu + d * GH * ((H + 3) / 4 * 4)));
        e.h = gepb(g, q.scratch, ci(g, q.L.h));
        e.c = gepb(g, q.scratch, ci(g, q.L.c));
        e.rg = gepb(g, q.scratch, ci(g, q.L.rg));
        ha0 = gepb(g, q.scratch, ci(g, q.L.ha));
        ha1 = gepb(g, q.scratch, ci(g, q.L.ha2));
        e.rha = gepb(g, q.scratch, ci(g, q.L.rha));
        e.accw = gepb(g, q.scratch, ci(g, q.L.accw));
        e.accu = gepb(g, q.scratch, ci(g, q.L.accu));

        n = loop_begin(g, &ln, ci(g, 0), dm.N);
        s = sl ? sx(g, ldi(g, g->i32, sl, n)) : dm.T;
        st = rec_state_at(g, &lp, &dm, d, n);
        for (t = 0; t < nt; t++) { /* the initial state of the slice's units */
            LLVMBasicBlockRef join;
            int64_t j0, j1;
            if (!(join = slice_open(g, &q, nt, t, first, end, &j0, &j1)))
                continue;
            j = loop_begin(g, &lj, ci(g, j0), ci(g, j1));
            {
                LLVMValueRef hv = init_h ? ldx(g, &q, init_h, add(g, st, j)) : ci(g, 0);
                sti(g, g->i32, hv, e.h, j);
                st_act(g, &q, hv, ha0, j, H);
            }
            if (p->cell == LSTMC_RT_CELL_LSTM)
                sti(g, g->i32, init_c ? sx(g, ldi(g, q.i16, init_c, add(g, st, j))) : ci(g, 0), e.c,
                    j);
            loop_end(g, &lj);
            slice_end(g, join);
        }
        phase_end(g, nt);

        if (pipe_wanted(&q, &e, nt)) {
            pipe_steps(g, &q, &e, &lp, &dm, X, Y, n, s, rev, d, ha0, ha1);
            goto outputs;
        }
        /* chunks of tc steps: W.x of the chunk, then its steps */
        nch = LLVMBuildSDiv(g->b, add(g, s, ci(g, tc - 1)), ci(g, tc), "");
        t0 = mul(g, loop_begin(g, &lc, ci(g, 0), nch), ci(g, tc));
        tcn = smin(g, ci(g, tc), sub(g, s, t0));
        for (t = 0; t < nt; t++) { /* the chunk's input rows, columns [k0, k1) per slice */
            LLVMBasicBlockRef join;
            int64_t k0, k1;
            mt_slice(I, nt, 4, t, &k0, &k1);
            if (k1 == k0)
                continue;
            join = slice_begin(g, first, end, t);
            quant_rows(g, &q, &lp, &dm, X, n, s, rev, t0, add(g, t0, tcn), k0, k1);
            slice_end(g, join);
        }
        phase_end(g, nt);
        for (t = 0; t < nt; t++) { /* W.x of the slice's gate rows */
            LLVMValueRef xa = gepb(g, q.scratch, ci(g, q.L.xa));
            qctx qw = q; /* x86: accw holds the W half of z (post_w) */
            LLVMBasicBlockRef join;
            int64_t j0, j1, j00, gb, nblk;
            if (e.zw)
                qw.post = &e;
            if (!(join = slice_open(g, &q, nt, t, first, end, &j0, &j1)))
                continue;
            nblk = j0 == 0 && j1 == H ? G : 1; /* all units: the gates' rows in one run */
            for (j00 = 0; j00 < tc; j00 += qb) /* the rows of the chunk, qb at a time */
                for (gb = 0; gb < G; gb += nblk)
                    emit_dot(g, &qw, e.wl, e.Wd, e.Pw, I, gb * H + j0, (gb + nblk - 1) * H + j1,
                             gepb(g, xa, ci(g, j00 * q.L.kx * q.ab)), q.L.kx * q.ab, (int)qb,
                             e.corrW, gept(g, g->i64, e.accw, ci(g, j00 * GH)), GH);
            slice_end(g, join);
        }
        qi = loop_begin(g, &ls, ci(g, 0), tcn);
        y = step_begin(g, &q, &e, &lp, &dm, Y, n, s, rev, d, add(g, t0, qi), ha0, ha1, &qu);
        for (t = 0; t < nt; t++) { /* U.h of the slice's gate rows (GRU lbr 0: z, r; r) */
            LLVMBasicBlockRef join;
            int64_t j0, j1, gb, nblk;
            const int split = p->cell == LSTMC_RT_CELL_GRU && !p->linear_before_reset;
            if (!(join = slice_open(g, &q, nt, t, first, end, &j0, &j1)))
                continue;
            nblk = j0 == 0 && j1 == H ? G : 1;
            for (gb = 0; gb < (split ? 2 : G); gb += nblk)
                emit_dot(g, &qu, e.ul, e.Ud, e.Pu, H, gb * H + j0,
                         (gb + (nblk > 1 && split ? 2 : nblk) - 1) * H + j1, e.ha, 0, 1, e.corrU,
                         e.accu, 0);
            if (p->cell == LSTMC_RT_CELL_GRU)
                emit_gru_r(g, &q, &e, qi, j0, j1);
            slice_end(g, join);
        }
        if (p->cell == LSTMC_RT_CELL_GRU && !p->linear_before_reset) {
            phase_end(g, nt); /* every unit's r * h */
            for (t = 0; t < nt; t++) {
                LLVMBasicBlockRef join;
                int64_t j0, j1;
                if (!(join = slice_open(g, &q, nt, t, first, end, &j0, &j1)))
                    continue;
                emit_dot(g, &qu, e.ul, e.Ud, e.Pu, H, 2 * H + j0, 2 * H + j1, e.rha, 0, 1, e.corrU,
                         e.accu, 0);
                slice_end(g, join);
            }
        }
        for (t = 0; t < nt; t++) {
            LLVMBasicBlockRef join;
            int64_t j0, j1;
            if (!(join = slice_open(g, &q, nt, t, first, end, &j0, &j1)))
                continue;
            emit_cells(g, &q, &e, qi, y, j0, j1);
            slice_end(g, join);
        }
        phase_end(g, nt); /* this step's h before the next step reads it */
        loop_end(g, &ls);
        loop_end(g, &lc);
    outputs:

        for (t = 0; t < nt; t++) { /* the slice's units of Y's rows t >= s, Y_h, Y_c */
            LLVMBasicBlockRef join;
            int64_t j0, j1;
            if (!(Y && sl) && !Y_h && !Y_c)
                break; /* nothing to write */
            if (!(join = slice_open(g, &q, nt, t, first, end, &j0, &j1)))
                continue;
            if (Y && sl) {
                LLVMValueRef yz;
                tt = loop_begin(g, &lz, s, dm.T);
                yz = gepb(g, Y, mul(g, rec_y_at(g, &lp, &dm, tt, d, n), ci(g, p->bits / 8)));
                j = loop_begin(g, &lj, ci(g, j0), ci(g, j1));
                stx(g, &q, ci(g, 0), yz, j);
                loop_end(g, &lj);
                loop_end(g, &lz);
            }
            if (Y_h || Y_c) { /* the state after s steps (the initial one when s = 0) */
                j = loop_begin(g, &lj, ci(g, j0), ci(g, j1));
                if (Y_h)
                    stx(g, &q, sx(g, ldi(g, g->i32, e.h, j)), Y_h, add(g, st, j));
                if (Y_c)
                    sti(g, q.i16, sx(g, ldi(g, g->i32, e.c, j)), Y_c, add(g, st, j));
                loop_end(g, &lj);
            }
            slice_end(g, join);
        }
        loop_end(g, &ln);
    }
    if (nt > 1) /* the slices' function (emit_mt) */
        LLVMBuildRetVoid(g->b);
}

/* lstmc_rt_rnn_q(p, X, W, U, Q, seq_lens, init_h, init_c, Peep, Y, Y_h, Y_c, scratch) as
 * <fname>: the checks of the reference, VNNI's row sums, then the layer (emit_rnnq_body) on
 * g->threads slices. */
void
emit_rnnq(kg *g, const kp_call *kc, const char *fname)
{
    const lstmc_rt_rnnq_params *p = &kc->p.rnnq;
    const int64_t D = p->n_dirs, GH = cell_gates(p->cell) * p->hidden;
    LLVMValueRef a[13];
    qctx q;
    unsigned k;

    for (k = 0; k < 13; k++)
        a[k] = LLVMGetParam(g->fn, k);
    qctx_init(g, kc, a[12], &q);
    emit_rows_check(g, a[4], D * GH);
    if (q.vw) /* Q by field (emit_qs) */
        emit_qs(g, &q, a[4], D * GH);
    if (p->batch == 0) {
        LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
        return;
    }
    if (kc->in[4])
        emit_seq_len_check(g, a[5], ci(g, p->batch), ci(g, p->seq_len));
    if (q.mode == QD_VNNI) {
        LLVMValueRef corr = gepb(g, q.scratch, ci(g, q.L.corr));
        emit_fill(g, gepb(g, q.scratch, ci(g, q.L.ones)), q.L.kx > q.L.kh ? q.L.kx : q.L.kh, 1);
        LLVMValueRef tmp = gepb(g, q.scratch, ci(g, q.L.accu)); /* free before the steps */
        int32_t d;
        if (g->rnnq_laid & 1)
            for (d = 0; d < D; d++)
                emit_corr_laid(g, &q, gepb(g, a[2], ci(g, d * GH * p->input_size)), 0, GH,
                               p->input_size, tmp, gept(g, g->i32, corr, ci(g, d * GH)));
        else
            emit_corr(g, &q, a[2], D * GH, p->input_size, corr);
        if (g->rnnq_laid & 2)
            for (d = 0; d < D; d++)
                emit_corr_laid(g, &q, gepb(g, a[3], ci(g, d * GH * p->hidden)), 1, GH, p->hidden,
                               tmp, gept(g, g->i32, corr, ci(g, D * GH + d * GH)));
        else
            emit_corr(g, &q, a[3], D * GH, p->hidden, gept(g, g->i32, corr, ci(g, D * GH)));
    }
    if (q.vw) { /* x86: short rows packed, every direction's, once per call (emit_pack) */
        const int64_t I = p->input_size, H = p->hidden;
        int32_t d;
        for (d = 0; d < D; d++) {
            if (!(g->rnnq_laid & 1 && q.mode == QD_VNNI) && pack_pays(&q, I))
                emit_pack(g, &q, gepb(g, a[2], ci(g, d * GH * I)), GH, I,
                          gepb(g, q.scratch, ci(g, q.L.pw + d * GH * ((I + 3) / 4 * 4))));
            if (!(g->rnnq_laid & 2 && q.mode == QD_VNNI) && pack_pays(&q, H))
                emit_pack(g, &q, gepb(g, a[3], ci(g, d * GH * H)), GH, H,
                          gepb(g, q.scratch, ci(g, q.L.pu + d * GH * ((H + 3) / 4 * 4))));
        }
    }
    if (g->threads > 1) {
        emit_mt(g, kc, fname, g->threads, 13, emit_rnnq_body);
        return;
    }
    emit_rnnq_body(g, kc, 1, a, LLVMConstInt(g->i32, 0, 0), LLVMConstInt(g->i32, 1, 0));
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
}

/* May the kernel run call c: the reference's valid params, the sizes whose int8 sums stay
 * exact in int32, constant shapes, the scratch of kp_rnnq_scratch_of. */
int
rnnq_handles(const kp_call *c)
{
    const lstmc_rt_rnnq_params *p = &c->p.rnnq;
    const int nacts = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    kp_rnnq_scratch s;
    int k;

    if (c->dyn || p->cell < LSTMC_RT_CELL_LSTM || p->cell > LSTMC_RT_CELL_RNN ||
        (p->bits != 8 && p->bits != 16) || p->seq_len < 0 || p->batch < 0 || p->input_size < 1 ||
        p->input_size > 65536 || p->hidden < 1 || p->hidden > 65536 ||
        (p->n_dirs != 1 && p->n_dirs != 2) || (p->reverse != 0 && p->reverse != 1) ||
        (p->reverse && p->n_dirs != 1) || (p->layout != 0 && p->layout != 1) ||
        (p->has_clip && p->clip_q < 0) || p->cell_exp < 0 || p->cell_exp > 15 || p->h_mult < 0 ||
        p->h_shift < 0 || p->h_shift > 62 || p->peep_mult < 0 || p->peep_shift < 0 ||
        p->peep_shift > 62)
        return 0;
    for (k = 0; k < nacts * p->n_dirs; k++) {
        const int32_t a = p->act[k];
        if (a != LSTMC_RT_ACT_SIGMOID && a != LSTMC_RT_ACT_TANH &&
            !(a == LSTMC_RT_ACT_RELU && p->cell == LSTMC_RT_CELL_RNN))
            return 0;
    }
    kp_rnnq_scratch_of(p, &s);
    return c->scratch_bytes >= s.bytes;
}

#endif /* LSTMC_HAVE_LLVM */
