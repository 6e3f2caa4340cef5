/*
 * conv.c — KP_CONV and KP_POOL as LLVM code (issue 20): lstmc_rt_conv's and lstmc_rt_pool's
 * windows, direct (no im2col, no padded copy), specialised to the call's constant shape.
 *
 * The output of one image (or map) is cut into blocks of mb output channels x nb vectors of
 * vl output columns, held in registers (acc[i][v]) over the window:
 *   for c < C_in / group, kh < k_h with the input row ih = oh * stride_h - pad_h + kh * dil_h
 *   inside X, kw < k_w (unrolled):
 *     x[v] = X[c, ih, ow * stride_w - pad_w + kw * dil_w] for the vl columns ow of vector v
 *     conv: acc[i][v] += W[m + i, c, kh, kw] * x[v]        (W broadcast, one load per i)
 *     pool: acc[0][v] = max(acc, x[v]) or acc + x[v]       (mb = 1: one map)
 * The column blocks whose every tap lies inside X and whose columns all exist are one loop
 * with plain vector loads; the few blocks at the edges (the pads, the last partial vector)
 * are emitted one by one at their constant columns, where each (vector, tap) knows which
 * lanes read inside X: all (a plain load), none (skipped), some (a masked load of those,
 * zero or -inf elsewhere, and a masked store of the columns that exist). A stride_w above
 * 1 builds x[v] from the lanes' scalars. The target's vector width sets vl (1 on Cortex-M:
 * scalar accumulators in the FPU's registers) and the register budget mb x nb.
 * Average pooling divides by the window positions inside X (rows counted at run time,
 * columns known per lane) or, with count_include_pad, by k_h * k_w, as rt_conv.c does; max
 * ignores the padding (an all-padding window gives -inf). The sums run in rt_conv.c's order
 * (bias, then c, kh, kw), with fmuladd; tests/backends compares the two. A Relu or
 * HardSwish the lowering fused (lstmc_rt_conv_params.act) is applied before the store.
 *
 * With a ranged dim (issue 21, kp_call.dyn) the images, rows and (stride_w 1) width are
 * the run's, loaded from p: emit_row_dyn lays a row out from its end.
 *
 * The work is a list of units, one channel block of one (image, group) each, run by one
 * loop; on threads (conv_threads, emit_mt) slice t of nt runs a contiguous share of the
 * units: the blocks write disjoint outputs, so there is no barrier.
 */
#include "llvm_impl.h"

#include <math.h>
#include <stddef.h>

#ifdef LSTMC_HAVE_LLVM

#define WIN_MAX_EDGE  16   /* output columns outside the clean range that the kernel takes */
#define WIN_MAX_KW    512  /* taps per row (unrolled) */
#define WIN_MAX_TAPS  2048 /* k_w x mb x nb: the unrolled multiply-adds of one (c, kh) */
#define WIN_MAX_BLOCK 32   /* accumulators of one block at most */
/* multiply-adds (window positions) per thread below which one thread runs: with --threads;
 * 4 times that without */
#define CONV_MT_MIN (1 << 20)

/* One conv or pool call's geometry, the block shape and the function's arguments. */
typedef struct win {
    int pool;     /* 0: conv, else 1 + lstmc_rt_pool_kind */
    int act;      /* conv: a fused activation before the store (lstmc_rt_conv_act) */
    int incl_pad; /* average pool: count_include_pad */
    int64_t n, c_in, c_out, group, in_h, in_w, out_h, out_w;
    int64_t k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
    int64_t cig, cog; /* input / output channels per group (pool: 1, 1) */
    int vl, mb, nb;   /* lanes, channels and vectors of a block */
    int64_t nvt;      /* vectors of a whole row */
    LLVMTypeRef vt;   /* <vl x float>, or float for vl 1 */
    LLVMValueRef X, W, B, Y;
    /* the run's sizes (i64 values): the constants above, or (issue 21, kp_call.dyn) loaded
     * from p, at most those */
    LLVMValueRef vn, vin_h, vin_w, vout_h, vout_w;
    int dyn_w; /* KP_DYN_W: the right edge blocks sit at columns counted from the run's end */
} win;

static void
win_of(const kp_call *c, win *s)
{
    memset(s, 0, sizeof *s);
    if (c->kind == KP_POOL) {
        const lstmc_rt_pool_params *p = &c->p.pool;
        s->pool = 1 + p->kind, s->incl_pad = p->count_include_pad;
        s->n = p->nc, s->c_in = s->c_out = s->group = 1;
        s->in_h = p->in_h, s->in_w = p->in_w, s->out_h = p->out_h, s->out_w = p->out_w;
        s->k_h = p->k_h, s->k_w = p->k_w, s->stride_h = p->stride_h, s->stride_w = p->stride_w;
        s->dil_h = p->dil_h, s->dil_w = p->dil_w, s->pad_h = p->pad_h, s->pad_w = p->pad_w;
    } else {
        const lstmc_rt_conv_params *p = &c->p.conv;
        s->n = p->n, s->c_in = p->c_in, s->c_out = p->c_out, s->group = p->group;
        s->in_h = p->in_h, s->in_w = p->in_w, s->out_h = p->out_h, s->out_w = p->out_w;
        s->k_h = p->k_h, s->k_w = p->k_w, s->stride_h = p->stride_h, s->stride_w = p->stride_w;
        s->dil_h = p->dil_h, s->dil_w = p->dil_w, s->pad_h = p->pad_h, s->pad_w = p->pad_w;
        s->act = p->act;
    }
    s->cig = s->group > 0 ? s->c_in / s->group : 0;
    s->cog = s->group > 0 ? s->c_out / s->group : 0;
}

/* The run's sizes into s (constants for the fields dyn does not name), from the params at p:
 * n (or nc) for KP_DYN_N, in_h and out_h for KP_DYN_H, in_w and out_w for KP_DYN_W. With
 * check, each loaded size above the compiled one returns LSTMC_RT_ERR_BAD_PARAMS. */
static void
win_dims(kg *g, const kp_call *c, win *s, LLVMValueRef p, int check)
{
    const int pool = c->kind == KP_POOL;
    const size_t o_n =
        pool ? offsetof(lstmc_rt_pool_params, nc) : offsetof(lstmc_rt_conv_params, n);
    const size_t o_ih =
        pool ? offsetof(lstmc_rt_pool_params, in_h) : offsetof(lstmc_rt_conv_params, in_h);
    const size_t o_iw =
        pool ? offsetof(lstmc_rt_pool_params, in_w) : offsetof(lstmc_rt_conv_params, in_w);
    const size_t o_oh =
        pool ? offsetof(lstmc_rt_pool_params, out_h) : offsetof(lstmc_rt_conv_params, out_h);
    const size_t o_ow =
        pool ? offsetof(lstmc_rt_pool_params, out_w) : offsetof(lstmc_rt_conv_params, out_w);
    const struct {
        unsigned bit;
        size_t off;
        int64_t max;
        LLVMValueRef *v;
    } f[5] = {{KP_DYN_N, o_n, s->n, &s->vn},
              {KP_DYN_H, o_ih, s->in_h, &s->vin_h},
              {KP_DYN_H, o_oh, s->out_h, &s->vout_h},
              {KP_DYN_W, o_iw, s->in_w, &s->vin_w},
              {KP_DYN_W, o_ow, s->out_w, &s->vout_w}};
    int k;
    for (k = 0; k < 5; k++) {
        if (!(c->dyn & f[k].bit)) {
            *f[k].v = ci(g, f[k].max);
            continue;
        }
        *f[k].v = ld_param_i64(g, p, f[k].off);
        if (check)
            emit_dim_check(g, *f[k].v, f[k].max);
    }
    s->dyn_w = (c->dyn & KP_DYN_W) != 0;
}

/* Whether output column ow reads input column ow * stride_w - pad_w + kw * dil_w inside X. */
static int
col_in(const win *s, int64_t ow, int64_t kw)
{
    int64_t iw = ow * s->stride_w - s->pad_w + kw * s->dil_w;
    return ow < s->out_w && iw >= 0 && iw < s->in_w;
}

/* The columns [*lo, *hi) whose every tap lies inside X (as rt_conv.c's clip_range pair). */
static void
clean_cols(const win *s, int64_t *lo, int64_t *hi)
{
    int64_t a = 0, b = s->out_w;
    while (a < s->out_w && !(col_in(s, a, 0) && col_in(s, a, s->k_w - 1)))
        a++;
    while (b > a && !(col_in(s, b - 1, 0) && col_in(s, b - 1, s->k_w - 1)))
        b--;
    *lo = a;
    *hi = b;
}

/* Block shape for vl lanes: nb vectors of columns, mb channels (conv: as many as the
 * register budget allows, spread evenly over the group's channels; pool: 1). */
static void
win_blocks(win *s, int vl)
{
    const int budget = vl >= 16 ? 24 : 12;
    int64_t nblk;
    s->vl = vl;
    s->nvt = (s->out_w + vl - 1) / vl;
    if (s->pool) {
        s->mb = 1;
        s->nb = (int)(s->nvt < budget ? s->nvt : budget);
    } else {
        s->nb = (int)(s->nvt < 1 ? 1 : s->nvt < 4 ? s->nvt : 4); /* 1 for an empty row */
        s->mb = budget / s->nb;
        if (s->mb > s->cog)
            s->mb = (int)s->cog;
        nblk = (s->cog + s->mb - 1) / s->mb; /* the same channel count in every block */
        s->mb = (int)((s->cog + nblk - 1) / nblk);
    }
    while (s->k_w * s->mb * s->nb > WIN_MAX_TAPS && s->mb > 1)
        s->mb--;
    while (s->k_w * s->mb * s->nb > WIN_MAX_TAPS && s->nb > 1)
        s->nb--;
    if (s->nb < 1)
        s->nb = 1;
}

/* The geometry the kernel takes: what rt_conv.c accepts, a bounded number of edge columns
 * (each edge block is emitted on its own) and taps. */
static int
win_ok(const win *s)
{
    int64_t lo, hi;
    if (s->n < 0 || s->c_in < 1 || s->c_out < 1 || s->group < 1 || s->c_in % s->group ||
        s->c_out % s->group || s->in_h < 0 || s->in_w < 0 || s->out_h < 0 || s->out_w < 0 ||
        s->act < 0 || s->act > LSTMC_RT_CONV_ACT_HARD_SWISH || s->k_h < 1 || s->k_w < 1 ||
        s->k_w > WIN_MAX_KW || s->stride_h < 1 || s->stride_w < 1 || s->dil_h < 1 || s->dil_w < 1 ||
        s->pad_h < 0 || s->pad_w < 0)
        return 0;
    /* every index below fits easily: bound the sizes well inside int64 */
    if (s->in_h > (1 << 24) || s->in_w > (1 << 24) || s->out_h > (1 << 24) ||
        s->out_w > (1 << 24) || s->k_h > 4096 || s->stride_h > 4096 || s->stride_w > 4096 ||
        s->dil_h > 4096 || s->dil_w > 4096 || s->pad_h > 4096 || s->pad_w > 4096 ||
        s->n > (1 << 24) || s->c_in > (1 << 20) || s->c_out > (1 << 20))
        return 0;
    clean_cols(s, &lo, &hi);
    return lo + (s->out_w - hi) <= WIN_MAX_EDGE;
}

/* v in every lane of s->vt */
static LLVMValueRef
splat(kg *g, const win *s, LLVMValueRef v)
{
    LLVMValueRef z = LLVMConstInt(g->i32, 0, 0), mask[64];
    LLVMValueRef one;
    int i;
    if (s->vl == 1)
        return v;
    one = LLVMBuildInsertElement(g->b, LLVMGetUndef(s->vt), v, z, "");
    for (i = 0; i < s->vl; i++)
        mask[i] = z;
    return LLVMBuildShuffleVector(g->b, one, LLVMGetUndef(s->vt),
                                  LLVMConstVector(mask, (unsigned)s->vl), "");
}

/* A <vl x i1> constant of the lanes set in on. */
static LLVMValueRef
lane_mask(kg *g, const win *s, const int *on)
{
    LLVMValueRef m[64];
    int l;
    for (l = 0; l < s->vl; l++)
        m[l] = LLVMConstInt(g->i1, (unsigned long long)(on[l] != 0), 0);
    return LLVMConstVector(m, (unsigned)s->vl);
}

/* Call the intrinsic `name` overloaded on (vector type, ptr). */
static LLVMValueRef
intrinsic_vp(kg *g, const char *name, LLVMTypeRef vt, LLVMValueRef *args, unsigned n)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMTypeRef tys[2];
    LLVMValueRef f;
    tys[0] = vt;
    tys[1] = g->ptr;
    f = LLVMGetIntrinsicDeclaration(g->m, id, tys, 2);
    return LLVMBuildCall2(g->b, LLVMIntrinsicGetType(g->cx, id, tys, 2), f, args, n, "");
}

/* base + i floats, without inbounds: a masked load's base may lie before X. */
static LLVMValueRef
gepf_any(kg *g, LLVMValueRef base, LLVMValueRef i)
{
    return LLVMBuildGEP2(g->b, g->f32, base, &i, 1, "");
}

/* Where a block's columns are: from col0 (an i64 value), cc its value at the compiled width
 * (the lanes that read inside X are then known; -1: a block of the clean range, every lane
 * inside), nb vectors; tail, when not NULL, the lanes of the last vector that exist (a
 * <vl x i1> value: the clean range's last columns at a run-time width); rt: the lanes inside
 * X and the columns that exist are found at run time (issue 21, a run-time width below the
 * one the edges are laid out for; stride_w 1), dummy a float the off lanes of vl 1 use. */
typedef struct bpos {
    LLVMValueRef col0;
    int64_t cc;
    int nb;
    LLVMValueRef tail;
    int rt;
    LLVMValueRef dummy;
} bpos;

/* The lanes 0 .. vl-1 as <vl x i32> (vl > 1), or the i32 0. */
static LLVMValueRef
lane_ids(kg *g, const win *s)
{
    LLVMValueRef id[64];
    int l;
    for (l = 0; l < s->vl; l++)
        id[l] = LLVMConstInt(g->i32, (unsigned long long)l, 0);
    return s->vl == 1 ? id[0] : LLVMConstVector(id, (unsigned)s->vl);
}

/* v (an i32 value) in every lane of a <vl x i32> (vl > 1). */
static LLVMValueRef
splat_i32(kg *g, const win *s, LLVMValueRef v)
{
    LLVMValueRef z = LLVMConstInt(g->i32, 0, 0), mask[64], one;
    LLVMTypeRef t;
    int i;
    if (s->vl == 1)
        return v;
    t = LLVMVectorType(g->i32, (unsigned)s->vl);
    one = LLVMBuildInsertElement(g->b, LLVMGetUndef(t), v, z, "");
    for (i = 0; i < s->vl; i++)
        mask[i] = z;
    return LLVMBuildShuffleVector(g->b, one, LLVMGetUndef(t),
                                  LLVMConstVector(mask, (unsigned)s->vl), "");
}

/* The run-time mask (bp->rt) of vector v's lanes: tap kw >= 0 reads inside X and the column
 * exists; kw < 0: the column exists. <vl x i1>, or an i1 for vl 1. */
static LLVMValueRef
rt_mask(kg *g, const win *s, const bpos *bp, int v, int64_t kw)
{
    LLVMValueRef c0 = LLVMBuildTrunc(g->b, bp->col0, g->i32, ""), cols, on;
    cols = LLVMBuildAdd(
        g->b,
        splat_i32(g, s, LLVMBuildAdd(g->b, c0, LLVMConstInt(g->i32, (unsigned)(v * s->vl), 0), "")),
        lane_ids(g, s), "");
    on = LLVMBuildICmp(g->b, LLVMIntSLT, cols,
                       splat_i32(g, s, LLVMBuildTrunc(g->b, s->vout_w, g->i32, "")), "");
    if (kw >= 0) {
        LLVMValueRef off = LLVMConstInt(g->i32, (unsigned long long)(kw * s->dil_w - s->pad_w), 1);
        LLVMValueRef iw = LLVMBuildAdd(g->b, cols, splat_i32(g, s, off), "");
        on = LLVMBuildAnd(g->b, on,
                          LLVMBuildICmp(g->b, LLVMIntULT, iw,
                                        splat_i32(g, s, LLVMBuildTrunc(g->b, s->vin_w, g->i32, "")),
                                        ""),
                          "");
    }
    return on;
}

/* The lanes of x[v] for tap kw: the input row xr (ptr at column 0 of the row), the block at
 * bp. Lanes outside X hold fill; NULL when none is inside. */
static LLVMValueRef
load_taps(kg *g, const win *s, LLVMValueRef xr, const bpos *bp, int v, int64_t kw,
          LLVMValueRef fill)
{
    const int64_t off = (int64_t)v * s->vl * s->stride_w - s->pad_w + kw * s->dil_w;
    const int64_t cc = bp->cc;
    int on[64], l, n_on = 0;
    LLVMValueRef base = gepf_any(g, xr, add(g, mul(g, bp->col0, ci(g, s->stride_w)), ci(g, off)));
    if (bp->rt) { /* stride_w 1: masks at run time */
        LLVMValueRef m = rt_mask(g, s, bp, v, kw), args[4];
        if (s->vl == 1) /* off: read the dummy, keep fill */
            return sel(g, m, ldf(g, sel(g, m, base, bp->dummy)), fill);
        args[0] = base;
        args[1] = LLVMConstInt(g->i32, 4, 0);
        args[2] = m;
        args[3] = splat(g, s, fill);
        return intrinsic_vp(g, "llvm.masked.load", s->vt, args, 4);
    }
    if (bp->tail && v == bp->nb - 1) { /* stride_w 1, clean: the columns that exist */
        LLVMValueRef args[4];
        args[0] = base;
        args[1] = LLVMConstInt(g->i32, 4, 0);
        args[2] = bp->tail;
        args[3] = splat(g, s, fill);
        return intrinsic_vp(g, "llvm.masked.load", s->vt, args, 4);
    }
    for (l = 0; l < s->vl; l++) {
        on[l] = cc < 0 || col_in(s, cc + (int64_t)v * s->vl + l, kw);
        n_on += on[l];
    }
    if (n_on == 0)
        return NULL;
    if (s->vl == 1)
        return ldf(g, base);
    if (s->stride_w == 1 && n_on == s->vl)
        return ldt(g, s->vt, base);
    if (s->stride_w == 1) {
        LLVMValueRef args[4];
        args[0] = base;
        args[1] = LLVMConstInt(g->i32, 4, 0);
        args[2] = lane_mask(g, s, on);
        args[3] = splat(g, s, fill);
        return intrinsic_vp(g, "llvm.masked.load", s->vt, args, 4);
    }
    {
        LLVMValueRef x = splat(g, s, fill);
        for (l = 0; l < s->vl; l++)
            if (on[l])
                x = LLVMBuildInsertElement(g->b, x,
                                           ldf(g, gepf_any(g, base, ci(g, l * s->stride_w))),
                                           LLVMConstInt(g->i32, (unsigned long long)l, 0), "");
        return x;
    }
}

/* Store vector v of acc row i: the columns that exist (all for a clean block but its tail). */
static void
store_vec(kg *g, const win *s, LLVMValueRef val, LLVMValueRef yp, const bpos *bp, int v)
{
    const int64_t cc = bp->cc;
    int on[64], l, n_on = 0;
    if (bp->rt || (bp->tail && v == bp->nb - 1)) {
        LLVMValueRef m = bp->rt ? rt_mask(g, s, bp, v, -1) : bp->tail, args[4];
        if (s->vl == 1) { /* off: into the dummy */
            stf(g, val, sel(g, m, yp, bp->dummy));
            return;
        }
        args[0] = val;
        args[1] = yp;
        args[2] = LLVMConstInt(g->i32, 4, 0);
        args[3] = m;
        intrinsic_vp(g, "llvm.masked.store", s->vt, args, 4);
        return;
    }
    for (l = 0; l < s->vl; l++) {
        on[l] = cc < 0 || cc + (int64_t)v * s->vl + l < s->out_w;
        n_on += on[l];
    }
    if (n_on == 0)
        return;
    if (n_on == s->vl) {
        stt(g, val, yp);
    } else {
        LLVMValueRef args[4];
        args[0] = val;
        args[1] = yp;
        args[2] = LLVMConstInt(g->i32, 4, 0);
        args[3] = lane_mask(g, s, on);
        intrinsic_vp(g, "llvm.masked.store", s->vt, args, 4);
    }
}

/* The fused activation of a conv on a (as rt_conv.c): Relu max(a, 0) with NaN giving 0,
 * HardSwish a * clamp(a / 6 + 1/2, 0, 1). */
static LLVMValueRef
conv_act(kg *g, const win *s, LLVMValueRef a)
{
    LLVMValueRef zero = LLVMConstNull(s->vt), one, t;
    if (s->act == LSTMC_RT_CONV_ACT_RELU)
        return sel(g, fgt(g, a, zero), a, zero);
    one = splat(g, s, cf(g, 1.0));
    t = fadd(g, fmul(g, a, splat(g, s, cf(g, 1.0 / 6.0))), splat(g, s, cf(g, 0.5)));
    t = sel(g, flt(g, t, zero), zero, sel(g, fgt(g, t, one), one, t));
    return fmul(g, a, t);
}

/* if (c) { ... } that joins: returns the join block (cond_end goes there). */
static LLVMBasicBlockRef
cond_begin(kg *g, LLVMValueRef c)
{
    LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(g->cx, g->fn, "then");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "join");
    LLVMBuildCondBr(g->b, c, then, join);
    LLVMPositionBuilderAtEnd(g->b, then);
    return join;
}

static void
cond_end(kg *g, LLVMBasicBlockRef join)
{
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
}

/*
 * One block: channels [m, m + mb) of the group whose input channels start at x (conv: w at
 * W row m, b at B[m] or NULL; pool: mb 1), output row oh (i64 value, ih0 = oh * stride_h -
 * pad_h), y at Y[m, oh, 0], columns at bp.
 */
static void
emit_block(kg *g, const win *s, int mb, LLVMValueRef x, LLVMValueRef w, LLVMValueRef b,
           LLVMValueRef ih0, LLVMValueRef y, const bpos *bp)
{
    const LLVMValueRef plane_in = mul(g, s->vin_h, s->vin_w);
    const LLVMValueRef plane_out = mul(g, s->vout_h, s->vout_w);
    const int64_t wrow = s->cig * s->k_h * s->k_w, cc = bp->cc;
    const int max = s->pool == 1 + LSTMC_RT_POOL_MAX, avg = s->pool == 1 + LSTMC_RT_POOL_AVG;
    LLVMValueRef acc[WIN_MAX_BLOCK], cnt = NULL, c, kh, ih, xr, join, xv[WIN_MAX_BLOCK];
    LLVMValueRef fill = cf(g, max ? -INFINITY : 0.0), col0 = bp->col0;
    int nb = bp->nb, i, v, live[WIN_MAX_BLOCK];
    int64_t kw;
    kloop lc, lk;

    for (v = 0; v < nb; v++) /* vectors with a column that exists */
        live[v] = bp->rt || cc < 0 || cc + (int64_t)v * s->vl < s->out_w;
    for (i = 0; i < mb; i++)
        for (v = 0; v < nb; v++) {
            LLVMValueRef init = b ? splat(g, s, ldf(g, gepc(g, b, i))) : splat(g, s, fill);
            acc[i * nb + v] = entry_alloca(g, s->vt);
            LLVMBuildStore(g->b, init, acc[i * nb + v]);
        }
    if (avg && !s->incl_pad) {
        cnt = entry_alloca(g, g->i64);
        LLVMBuildStore(g->b, ci(g, 0), cnt);
    }
    c = loop_begin(g, &lc, ci(g, 0), ci(g, s->cig));
    kh = loop_begin(g, &lk, ci(g, 0), ci(g, s->k_h));
    ih = add(g, ih0, mul(g, kh, ci(g, s->dil_h)));
    join = (LLVMValueRef)cond_begin(g, LLVMBuildICmp(g->b, LLVMIntULT, ih, s->vin_h, ""));
    xr = gepf(g, x, add(g, mul(g, c, plane_in), mul(g, ih, s->vin_w)));
    if (cnt)
        LLVMBuildStore(g->b, add(g, LLVMBuildLoad2(g->b, g->i64, cnt, ""), ci(g, 1)), cnt);
    for (kw = 0; kw < s->k_w; kw++) {
        LLVMValueRef wi =
            s->pool
                ? NULL
                : add(g, mul(g, add(g, mul(g, c, ci(g, s->k_h)), kh), ci(g, s->k_w)), ci(g, kw));
        for (v = 0; v < nb; v++)
            xv[v] = live[v] ? load_taps(g, s, xr, bp, v, kw, fill) : NULL;
        for (i = 0; i < mb; i++) {
            LLVMValueRef wv = NULL;
            for (v = 0; v < nb; v++) {
                LLVMValueRef a, r;
                if (!xv[v])
                    continue;
                a = LLVMBuildLoad2(g->b, s->vt, acc[i * nb + v], "");
                if (s->pool == 0) {
                    if (!wv)
                        wv = splat(g, s, ldf(g, gepf(g, w, add(g, wi, ci(g, i * wrow)))));
                    r = fma_(g, s->vt, wv, xv[v], a);
                } else if (max) {
                    r = sel(g, fgt(g, a, xv[v]), a, xv[v]);
                } else {
                    r = fadd(g, a, xv[v]);
                }
                LLVMBuildStore(g->b, r, acc[i * nb + v]);
            }
        }
    }
    cond_end(g, (LLVMBasicBlockRef)join);
    loop_end(g, &lk);
    loop_end(g, &lc);

    for (v = 0; v < nb; v++) {
        LLVMValueRef div = NULL;
        if (!live[v])
            continue;
        if (avg && s->incl_pad) {
            div = splat(g, s, cf(g, (double)(s->k_h * s->k_w)));
        } else if (avg) { /* rows inside X (counted) x each lane's columns inside X */
            LLVMValueRef rows =
                LLVMBuildSIToFP(g->b, LLVMBuildLoad2(g->b, g->i64, cnt, ""), g->f32, "");
            LLVMValueRef cols[64], ncol = NULL;
            int l;
            for (l = 0; l < s->vl; l++) {
                int64_t k, n_in = 0;
                for (k = 0; k < s->k_w; k++)
                    n_in += cc < 0 || col_in(s, cc + (int64_t)v * s->vl + l, k);
                cols[l] = cf(g, (double)n_in);
            }
            if (bp->rt) /* the taps inside X per lane, counted (exact small integers) */
                for (kw = 0; kw < s->k_w; kw++) {
                    LLVMValueRef one = sel(g, rt_mask(g, s, bp, v, kw), splat(g, s, cf(g, 1.0)),
                                           LLVMConstNull(s->vt));
                    ncol = ncol ? fadd(g, ncol, one) : one;
                }
            div = fmul(g, splat(g, s, rows),
                       ncol         ? ncol
                       : s->vl == 1 ? cols[0]
                                    : LLVMConstVector(cols, (unsigned)s->vl));
        }
        for (i = 0; i < mb; i++) {
            LLVMValueRef a = LLVMBuildLoad2(g->b, s->vt, acc[i * nb + v], "");
            LLVMValueRef yp = gepf(
                g, y, add(g, col0, add(g, mul(g, ci(g, i), plane_out), ci(g, (int64_t)v * s->vl))));
            if (div) /* an empty window gives 0, as pool_point */
                a = sel(g, fgt(g, div, LLVMConstNull(s->vt)), LLVMBuildFDiv(g->b, a, div, ""),
                        LLVMConstNull(s->vt));
            if (s->act) /* fused: Relu or HardSwish */
                a = conv_act(g, s, a);
            store_vec(g, s, a, yp, bp, v);
        }
    }
}

/* emit_block at columns col0 (cc as bpos says) of nb vectors, no tail. */
static void
emit_block_at(kg *g, const win *s, int mb, LLVMValueRef x, LLVMValueRef w, LLVMValueRef b,
              LLVMValueRef ih0, LLVMValueRef y, LLVMValueRef col0, int64_t cc, int nb)
{
    bpos bp;
    memset(&bp, 0, sizeof bp);
    bp.col0 = col0;
    bp.cc = cc;
    bp.nb = nb;
    emit_block(g, s, mb, x, w, b, ih0, y, &bp);
}

/* Every column block of one output row: the edge blocks at their constant columns, the
 * clean ones as a loop. */
static void
emit_row(kg *g, const win *s, int mb, LLVMValueRef x, LLVMValueRef w, LLVMValueRef b,
         LLVMValueRef ih0, LLVMValueRef y)
{
    const int64_t bw = (int64_t)s->nb * s->vl, nblk = (s->out_w + bw - 1) / bw;
    int64_t lo, hi, b0, b1, k;
    clean_cols(s, &lo, &hi);
    b0 = (lo + bw - 1) / bw; /* the blocks inside [lo, hi): [b0, b1) */
    b1 = hi / bw;
    if (b1 < b0)
        b1 = b0;
    for (k = 0; k < b0 && k < nblk; k++)
        emit_block_at(g, s, mb, x, w, b, ih0, y, ci(g, k * bw), k * bw, s->nb);
    if (b1 - b0 == 1) {
        emit_block_at(g, s, mb, x, w, b, ih0, y, ci(g, b0 * bw), -1, s->nb);
    } else if (b1 > b0) {
        kloop l;
        LLVMValueRef k0 = loop_begin(g, &l, ci(g, b0), ci(g, b1));
        emit_block_at(g, s, mb, x, w, b, ih0, y, mul(g, k0, ci(g, bw)), -1, s->nb);
        loop_end(g, &l);
    }
    for (k = b1 > b0 ? b1 : b0; k < nblk; k++)
        emit_block_at(g, s, mb, x, w, b, ih0, y, ci(g, k * bw), k * bw, s->nb);
}

/*
 * The run-time width's layout (issue 21, KP_DYN_W, stride_w 1). With lo, hi the clean
 * columns at the compiled width and R = out_w - hi, the columns a row needs masks for are
 * [0, lo) and its last R, whatever the width: which taps of the last columns lie inside X
 * depends only on the distance to the end, since out_w - in_w is the same. So:
 *   left  [0, LE), LE = lo rounded up to whole vectors: blocks at constant columns, the
 *         masks of the compiled width;
 *   right [OW - RE, OW), RE = R rounded up: blocks at columns counted from the run's end
 *         OW, the masks the compiled width has at the same distance from its end;
 *   clean [LE, OW - RE): the loop of plain blocks, then one block of the vectors left
 *         whose last vector stores (and reads) the columns that exist (a run-time mask).
 * The left and right parts may overlap (a column computed twice, the same float); the
 * layout holds when OW >= dyn_min_w (the left part's columns are inside X at their right
 * end, the right part's at their left end) and OW - IW = out_w - in_w. Narrower rows (and
 * any other p) take blocks whose masks are computed at run time (bpos.rt). Either way every
 * output sums its taps in the order the constant-width kernel does.
 */
static void
dyn_edges(const win *s, int64_t *le, int64_t *re)
{
    int64_t lo, hi;
    clean_cols(s, &lo, &hi);
    *le = (lo + s->vl - 1) / s->vl * s->vl;
    *re = (s->out_w - hi + s->vl - 1) / s->vl * s->vl;
}

/* The narrowest run-time width the dyn layout holds for; above out_w when it never does. */
static int64_t
dyn_min_w(const win *s)
{
    int64_t lo, hi, le, re, a, b;
    clean_cols(s, &lo, &hi);
    if (hi <= lo) /* no clean column at the compiled width: R is not the right edge's */
        return s->out_w + 1;
    dyn_edges(s, &le, &re);
    a = le + (s->out_w - hi);
    b = re + lo;
    return a > b ? a : b;
}

/* Vectors [0, n) of a part starting at column col0 (value; cc its compiled-width column):
 * blocks of at most nb vectors. */
static void
emit_part(kg *g, const win *s, int mb, LLVMValueRef x, LLVMValueRef w, LLVMValueRef b,
          LLVMValueRef ih0, LLVMValueRef y, LLVMValueRef col0, int64_t cc, int64_t n)
{
    int64_t j;
    for (j = 0; j < n; j += s->nb) {
        int64_t k = n - j < s->nb ? n - j : s->nb;
        emit_block_at(g, s, mb, x, w, b, ih0, y, add(g, col0, ci(g, j * s->vl)), cc + j * s->vl,
                      (int)k);
    }
}

/* One output row at the run's width (KP_DYN_W): dyn_edges' layout when it holds, else
 * blocks of bw columns with run-time masks. */
static void
emit_row_dyn(kg *g, const win *s, int mb, LLVMValueRef x, LLVMValueRef w, LLVMValueRef b,
             LLVMValueRef ih0, LLVMValueRef y)
{
    const int64_t bw = (int64_t)s->nb * s->vl, wmin = dyn_min_w(s);
    LLVMValueRef ow = s->vout_w, dummy = entry_alloca(g, g->f32);
    LLVMBasicBlockRef fast = NULL, slow = LLVMAppendBasicBlockInContext(g->cx, g->fn, "dyn_masked");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "dyn_join");
    kloop l;
    bpos bp;

    if (wmin <= s->out_w) {
        LLVMValueRef ok =
            LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntSGE, ow, ci(g, wmin), ""),
                         LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildSub(g->b, ow, s->vin_w, ""),
                                       ci(g, s->out_w - s->in_w), ""),
                         "");
        int64_t le, re;
        LLVMValueRef L, nfull, r, rs, c0, sw;
        int h;
        fast = LLVMAppendBasicBlockInContext(g->cx, g->fn, "dyn_fast");
        LLVMBuildCondBr(g->b, ok, fast, slow);
        LLVMPositionBuilderAtEnd(g->b, fast);
        dyn_edges(s, &le, &re);
        emit_part(g, s, mb, x, w, b, ih0, y, ci(g, 0), 0, le / s->vl);
        rs = LLVMBuildSub(g->b, ow, ci(g, re), ""); /* the right part's first column */
        L = LLVMBuildSub(g->b, rs, ci(g, le), "");
        L = sel(g, LLVMBuildICmp(g->b, LLVMIntSGT, L, ci(g, 0), ""), L, ci(g, 0));
        nfull = LLVMBuildUDiv(g->b, L, ci(g, bw), "");
        c0 = loop_begin(g, &l, ci(g, 0), nfull);
        emit_block_at(g, s, mb, x, w, b, ih0, y, add(g, ci(g, le), mul(g, c0, ci(g, bw))), -1,
                      s->nb);
        loop_end(g, &l);
        /* the r clean columns left: h = ceil(r / vl) vectors, the last one's lanes < r - (h -
         * 1) vl */
        r = LLVMBuildSub(g->b, L, mul(g, nfull, ci(g, bw)), "");
        c0 = add(g, ci(g, le), mul(g, nfull, ci(g, bw)));
        {
            LLVMBasicBlockRef rjoin = LLVMAppendBasicBlockInContext(g->cx, g->fn, "dyn_rest");
            LLVMValueRef hv = LLVMBuildUDiv(g->b, add(g, r, ci(g, s->vl - 1)), ci(g, s->vl), "");
            sw = LLVMBuildSwitch(g->b, hv, rjoin, (unsigned)s->nb);
            for (h = 1; h <= s->nb; h++) {
                LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(g->cx, g->fn, "dyn_vecs");
                LLVMAddCase(sw, ci(g, h), bb);
                LLVMPositionBuilderAtEnd(g->b, bb);
                memset(&bp, 0, sizeof bp);
                bp.col0 = c0;
                bp.cc = -1;
                bp.nb = h;
                if (s->vl > 1) {
                    LLVMValueRef left = LLVMBuildTrunc(
                        g->b, LLVMBuildSub(g->b, r, ci(g, (int64_t)(h - 1) * s->vl), ""), g->i32,
                        "");
                    bp.tail =
                        LLVMBuildICmp(g->b, LLVMIntULT, lane_ids(g, s), splat_i32(g, s, left), "");
                }
                emit_block(g, s, mb, x, w, b, ih0, y, &bp);
                LLVMBuildBr(g->b, rjoin);
            }
            LLVMPositionBuilderAtEnd(g->b, rjoin);
        }
        emit_part(g, s, mb, x, w, b, ih0, y, rs, s->out_w - re, re / s->vl);
        LLVMBuildBr(g->b, join);
    } else {
        LLVMBuildBr(g->b, slow);
    }

    LLVMPositionBuilderAtEnd(g->b, slow); /* any width: masks at run time */
    memset(&bp, 0, sizeof bp);
    bp.col0 = mul(
        g,
        loop_begin(g, &l, ci(g, 0), LLVMBuildUDiv(g->b, add(g, ow, ci(g, bw - 1)), ci(g, bw), "")),
        ci(g, bw));
    bp.cc = -1;
    bp.nb = s->nb;
    bp.rt = 1;
    bp.dummy = dummy;
    emit_block(g, s, mb, x, w, b, ih0, y, &bp);
    loop_end(g, &l);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
}

/* oh * stride_h - pad_h: the input row of tap 0 */
static LLVMValueRef
sub_ih0(kg *g, const win *s, LLVMValueRef oh)
{
    return LLVMBuildSub(g->b, mul(g, oh, ci(g, s->stride_h)), ci(g, s->pad_h), "");
}

/* Channels [m, m + mb) of group grp of image img (m = grp * cog + m_off, m_off an i64
 * value): every output row. */
static void
emit_chan_block(kg *g, const win *s, int mb, LLVMValueRef img, LLVMValueRef grp, LLVMValueRef m_off)
{
    const LLVMValueRef plane_in = mul(g, s->vin_h, s->vin_w);
    const LLVMValueRef plane_out = mul(g, s->vout_h, s->vout_w);
    LLVMValueRef m, x, w = NULL, b = NULL, y, oh;
    kloop lo;
    m = add(g, mul(g, grp, ci(g, s->cog)), m_off);
    x = gepf(g, s->X,
             mul(g, add(g, mul(g, img, ci(g, s->c_in)), mul(g, grp, ci(g, s->cig))), plane_in));
    if (!s->pool)
        w = gepf(g, s->W, mul(g, m, ci(g, s->cig * s->k_h * s->k_w)));
    if (s->B)
        b = gepf(g, s->B, m);
    oh = loop_begin(g, &lo, ci(g, 0), s->vout_h);
    y = gepf(
        g, s->Y,
        add(g, mul(g, add(g, mul(g, img, ci(g, s->c_out)), m), plane_out), mul(g, oh, s->vout_w)));
    if (s->dyn_w)
        emit_row_dyn(g, s, mb, x, w, b, sub_ih0(g, s, oh), y);
    else
        emit_row(g, s, mb, x, w, b, sub_ih0(g, s, oh), y);
    loop_end(g, &lo);
}

/* The work in units of one channel block: (image, group, block) flattened, nblk blocks per
 * group (the full ones of mb channels, then one of the rest). */
static int64_t
win_units(const win *s, int64_t *full, int64_t *rest)
{
    *full = s->cog / s->mb;
    *rest = s->cog - *full * s->mb;
    return s->n * s->group * (*full + (*rest > 0));
}

/* Units [u0, u1) (i64 values): a loop whose body finds (image, group, block) and runs the
 * block. */
static void
emit_units(kg *g, const win *s, LLVMValueRef u0, LLVMValueRef u1)
{
    int64_t full, rest, nblk;
    LLVMValueRef u, img, grp, jb;
    kloop l;
    win_units(s, &full, &rest);
    nblk = full + (rest > 0);
    if (s->out_h <= 0 || s->out_w <= 0)
        return;
    u = loop_begin(g, &l, u0, u1);
    img = LLVMBuildSDiv(g->b, u, ci(g, s->group * nblk), "");
    grp = LLVMBuildSRem(g->b, LLVMBuildSDiv(g->b, u, ci(g, nblk), ""), ci(g, s->group), "");
    jb = LLVMBuildSRem(g->b, u, ci(g, nblk), "");
    if (rest > 0) { /* the last block of a group has the rest's channels */
        LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(g->cx, g->fn, "full");
        LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(g->cx, g->fn, "rest");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "join");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, jb, ci(g, full), ""), then, other);
        LLVMPositionBuilderAtEnd(g->b, then);
        emit_chan_block(g, s, s->mb, img, grp, mul(g, jb, ci(g, s->mb)));
        LLVMBuildBr(g->b, join);
        LLVMPositionBuilderAtEnd(g->b, other);
        emit_chan_block(g, s, (int)rest, img, grp, ci(g, full * s->mb));
        LLVMBuildBr(g->b, join);
        LLVMPositionBuilderAtEnd(g->b, join);
    } else {
        emit_chan_block(g, s, s->mb, img, grp, mul(g, jb, ci(g, s->mb)));
    }
    loop_end(g, &l);
}

/* The run's units: n * group * blocks per group (a constant unless KP_DYN_N). */
static LLVMValueRef
win_units_v(kg *g, const win *s)
{
    int64_t full, rest, U = win_units(s, &full, &rest);
    return s->n > 0 ? mul(g, s->vn, ci(g, U / s->n)) : ci(g, 0);
}

/* s for call c of a function whose pointer arguments are a[0..5) (conv: p, X, W, B, Y) or
 * a[0..3) (pool: p, X, Y); the run's sizes loaded from p (a[0]), checked when check. */
static void
win_setup(kg *g, const kp_call *c, win *s, const LLVMValueRef *a, int check)
{
    win_of(c, s);
    win_blocks(s, g->vl);
    win_dims(g, c, s, a[0], check);
    s->vt = g->vl > 1 ? g->vf : g->f32;
    s->X = a[1];
    if (s->pool) {
        s->Y = a[2];
    } else {
        s->W = a[2];
        s->B = c->n_in > 2 && c->in[2] ? a[3] : NULL;
        s->Y = a[4];
    }
}

/* lstmc_rt_conv(p, X, W, B, Y) or lstmc_rt_pool(p, X, Y) for the call's constant shape
 * (issue 21: the sizes c->dyn names are the run's, read from p, LSTMC_RT_ERR_BAD_PARAMS
 * above the compiled ones). */
void
emit_conv(kg *g, const kp_call *c)
{
    LLVMValueRef a[5];
    int64_t full, rest;
    unsigned k;
    win s;
    for (k = 0; k < (c->kind == KP_POOL ? 3u : 5u); k++)
        a[k] = LLVMGetParam(g->fn, k);
    win_setup(g, c, &s, a, 1);
    if (c->dyn & KP_DYN_N)
        emit_units(g, &s, ci(g, 0), win_units_v(g, &s));
    else if (win_units(&s, &full, &rest) > 0)
        emit_units(g, &s, ci(g, 0), ci(g, win_units(&s, &full, &rest)));
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
}

/* The run's sizes of conv or pool call c checked against the compiled ones (issue 21), in
 * <name>_k<i> before its slices run on the pool (emit_mt). */
void
emit_conv_dim_check(kg *g, const kp_call *c)
{
    win s;
    win_of(c, &s);
    win_dims(g, c, &s, LLVMGetParam(g->fn, 0), 1);
}

/* The slices of emit_conv on nt threads (emit_mt): slice t runs units [U t / nt,
 * U (t + 1) / nt); the blocks write disjoint outputs, so no barrier. */
void
emit_conv_mt_body(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a, LLVMValueRef first,
                  LLVMValueRef end)
{
    int64_t full, rest, U;
    win s;
    int t;
    win_setup(g, kc, &s, a, 0); /* checked by <name>_k<i> (emit_conv_dim_check) */
    U = win_units(&s, &full, &rest);
    for (t = 0; t < nt; t++) {
        int64_t u0 = U * t / nt, u1 = U * (t + 1) / nt;
        LLVMBasicBlockRef join;
        if (kc->dyn & KP_DYN_N) { /* the run's units, split the same way */
            LLVMValueRef Uv = win_units_v(g, &s);
            join = slice_begin(g, first, end, t);
            emit_units(g, &s, LLVMBuildUDiv(g->b, mul(g, Uv, ci(g, t)), ci(g, nt), ""),
                       LLVMBuildUDiv(g->b, mul(g, Uv, ci(g, t + 1)), ci(g, nt), ""));
            slice_end(g, join);
            continue;
        }
        if (u1 <= u0)
            continue;
        join = slice_begin(g, first, end, t);
        emit_units(g, &s, ci(g, u0), ci(g, u1));
        slice_end(g, join);
    }
    LLVMBuildRetVoid(g->b);
}

/* Threads for a conv or pool call: the cores the options give (--threads, else the
 * target's), at most one per channel block, and only for a call of at least CONV_MT_MIN
 * multiply-adds (window positions for a pool) per thread, four times that when --threads
 * was not given, where a pool job (microseconds to wake the workers and wait for them)
 * should pay. The crossover is a guess: the 2-core machine this was written on was never
 * quiet enough to measure it (bench/RESULTS.md, issue 20). */
int
conv_threads(const kp_call *c, int threads, int cores, int vl)
{
    int64_t full, rest, U, work;
    int nt = threads > 0 ? threads : cores;
    win s;
    if (nt > MT_MAX)
        nt = MT_MAX;
    if (nt <= 1 || !conv_handles(c))
        return 1;
    win_of(c, &s);
    win_blocks(&s, vl);
    U = win_units(&s, &full, &rest);
    work = s.n * s.c_out * s.out_h * s.out_w * s.cig * s.k_h * s.k_w;
    if (nt > U)
        nt = (int)U;
    while (nt > 1 && work / nt < (threads > 0 ? CONV_MT_MIN : 4 * CONV_MT_MIN))
        nt--;
    return nt > 1 ? nt : 1;
}

/* The calls emit_conv runs: Conv and the pools whose geometry win_ok takes (every
 * attribute rt_conv.c handles, with a bounded number of edge columns and taps); the rest,
 * ConvTranspose among them, keep their C kernel. */
int
conv_handles(const kp_call *c)
{
    win s;
    if (c->kind != KP_CONV && c->kind != KP_POOL)
        return 0;
    /* issue 21: a run-time width only at stride 1 (dyn_edges, bpos.rt); the rest of dyn is
     * for cg_llvm_handles */
    if ((c->dyn & KP_DYN_W) && (c->kind == KP_POOL ? c->p.pool.stride_w : c->p.conv.stride_w) != 1)
        return 0;
    if (c->kind == KP_POOL && c->p.pool.kind != LSTMC_RT_POOL_MAX &&
        c->p.pool.kind != LSTMC_RT_POOL_AVG)
        return 0;
    if (c->kind == KP_CONV && (!c->in[0] || !c->in[1]))
        return 0;
    win_of(c, &s);
    return win_ok(&s);
}

#endif /* LSTMC_HAVE_LLVM */
