/*
 * tissue.c — KP_LSTM_TISSUE and KP_LSTM_TISSUE_DRS as LLVM code: breakpoints and tissues
 * (MICRO'18 §IV), and DRS inside tissues (§IV tissues + §V); rt_tissue.c is the reference.
 */
#include "llvm_impl.h"

#include <stdlib.h>
#include <string.h>

#ifdef LSTMC_HAVE_LLVM

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
 * U values of row k are loaded once and used by every cell. int8 U (scale, the column scales
 * at the same offsets as out's columns, non-NULL exactly for int8): the sums start from 0 and
 * out += scale * sum at the end (the exact int8 recurrence's order, rt_lowp.c).
 */
static void
tis_tile(kg *g, int64_t H, LLVMValueRef h, int r, LLVMValueRef U, int np, int64_t ps, int64_t ldu,
         int vpp, int w, LLVMValueRef out, int64_t ldo, LLVMValueRef scale)
{
    LLVMTypeRef ty = w == 1 ? g->f32 : g->vf;
    LLVMValueRef acc[KG_MAX_ACC], u[KG_MAX_ACC], k, urow;
    kloop lk;
    int c, q, nq = np * vpp;

    for (c = 0; c < r; c++)
        for (q = 0; q < nq; q++) {
            acc[c * nq + q] = entry_alloca(g, ty);
            LLVMBuildStore(
                g->b,
                scale ? LLVMConstNull(ty)
                      : ldt(g, ty, gepc(g, out, c * ldo + (q / vpp) * ldu + (q % vpp) * w)),
                acc[c * nq + q]);
        }
    k = loop_begin(g, &lk, ci(g, 0), ci(g, H));
    urow = gepw(g, U, mul(g, k, ci(g, ldu))); /* U in g->wfmt: fp32, or fp16 / bf16 widened */
    /* each panel's line KG_PF_ROWS rows ahead, as the exact kernel's (tile.c): np streams through
     * U, 16 floats wide (charlm512, 1 thread: 10.8 -> 9.6 ms at alpha 0) */
    if (g->prefetch && ldu * 4 >= 64)
        for (q = 0; q < np; q++)
            emit_prefetch(g, gepwc(g, urow, (int64_t)KG_PF_ROWS * ldu + q * ps));
    for (q = 0; q < nq; q++)
        u[q] = emit_ldw(g, gepwc(g, urow, (q / vpp) * ps + (q % vpp) * w), w);
    for (c = 0; c < r; c++) {
        LLVMValueRef hk = tis_splat(g, ldf(g, gepf(g, gepc(g, h, c * H), k)), w);

        for (q = 0; q < nq; q++) {
            LLVMValueRef cur = LLVMBuildLoad2(g->b, ty, acc[c * nq + q], "");
            LLVMBuildStore(g->b, fma_(g, ty, hk, u[q], cur), acc[c * nq + q]);
        }
    }
    loop_end(g, &lk);
    for (c = 0; c < r; c++)
        for (q = 0; q < nq; q++) {
            const int64_t o = (q / vpp) * ldu + (q % vpp) * w;
            LLVMValueRef v = LLVMBuildLoad2(g->b, ty, acc[c * nq + q], "");
            if (scale)
                v = fadd(g, ldt(g, ty, gepc(g, out, c * ldo + o)),
                         fmul(g, ldt(g, ty, gepc(g, scale, o)), v));
            stt(g, v, gepc(g, out, c * ldo + o));
        }
}

/* The whole 16-column panels [*p0, *p1) inside the columns [c0, c1) of U's panels; returns
 * the columns around them, in at most two pieces [e0[k], e1[k]) that cut a panel or are the
 * last, narrow one. */
static int
tis_split(int64_t H, int64_t c0, int64_t c1, int64_t *p0, int64_t *p1, int64_t e0[2], int64_t e1[2])
{
    const int64_t nfull = 4 * H / TIS_PANEL;
    int n = 0;

    *p0 = (c0 + TIS_PANEL - 1) / TIS_PANEL;
    *p1 = c1 / TIS_PANEL < nfull ? c1 / TIS_PANEL : nfull;
    if (*p1 <= *p0) { /* no whole panel: one piece (it may span two panels) */
        *p1 = *p0;
        e0[0] = c0;
        e1[0] = c1;
        return c1 > c0;
    }
    if (c0 < *p0 * TIS_PANEL) {
        e0[n] = c0;
        e1[n++] = *p0 * TIS_PANEL;
    }
    if (c1 > *p1 * TIS_PANEL) {
        e0[n] = *p1 * TIS_PANEL;
        e1[n++] = c1;
    }
    return n;
}

/* gates[i0 + c][16 p0 .. 16 p1) += hbuf[i0 + c] x U[:, 16 p0 .. 16 p1) for r cells (r a
 * constant), over the whole panels [p0, p1): as many panels per tile as the r accumulators
 * and the U values of a row leave registers for. */
static void
tis_cells(kg *g, int64_t H, int r, LLVMValueRef hb, LLVMValueRef Ud, LLVMValueRef gt, int64_t p0,
          int64_t p1, LLVMValueRef Us)
{
    const int64_t G = 4 * H;
    const int vpp = g->vl >= TIS_PANEL ? 1 : TIS_PANEL / g->vl,
              w = g->vl >= TIS_PANEL ? TIS_PANEL : g->vl;
    /* at most 8 panels (8 concurrent streams through U, as the exact kernel's 8 vectors) */
    const int64_t np_b = (tis_acc_budget(g) + 4) / ((r + 1) * vpp) > 1
                             ? (tis_acc_budget(g) + 4) / ((r + 1) * vpp)
                             : 1;
    const int64_t np_r = np_b < 8 ? np_b : 8;
    const int64_t np = np_r < p1 - p0 ? np_r : p1 - p0;
    const int64_t groups = (p1 - p0) / np, rem = (p1 - p0) % np, gstep = np * TIS_PANEL;

    if (groups == 1) {
        tis_tile(g, H, hb, r, gepwc(g, Ud, p0 * TIS_PANEL * H), (int)np, TIS_PANEL * H, TIS_PANEL,
                 vpp, w, gepc(g, gt, p0 * TIS_PANEL), G, Us ? gepc(g, Us, p0 * TIS_PANEL) : NULL);
    } else if (groups > 1) {
        kloop l;
        LLVMValueRef g0 = add(g, mul(g, loop_begin(g, &l, ci(g, 0), ci(g, groups)), ci(g, gstep)),
                              ci(g, p0 * TIS_PANEL));
        tis_tile(g, H, hb, r, gepw(g, Ud, mul(g, g0, ci(g, H))), (int)np, TIS_PANEL * H, TIS_PANEL,
                 vpp, w, gepf(g, gt, g0), G, Us ? gepf(g, Us, g0) : NULL);
        loop_end(g, &l);
    }
    if (rem > 0) {
        const int64_t c0 = p0 * TIS_PANEL + groups * gstep;
        tis_tile(g, H, hb, r, gepwc(g, Ud, c0 * H), (int)rem, TIS_PANEL * H, TIS_PANEL, vpp, w,
                 gepc(g, gt, c0), G, Us ? gepc(g, Us, c0) : NULL);
    }
}

/* gates[c][e0..e1) += hbuf[c] x U[:, e0..e1) for one cell, in scalars: a piece of tis_split
 * (within one panel, or across the boundary of two). */
static void
tis_piece(kg *g, int64_t H, LLVMValueRef hb, LLVMValueRef Ud, LLVMValueRef gt, int64_t e0,
          int64_t e1, LLVMValueRef Us)
{
    const int64_t G = 4 * H, nfull = G / TIS_PANEL;

    while (e0 < e1) {
        const int64_t P = e0 / TIS_PANEL, wp = P < nfull ? TIS_PANEL : G % TIS_PANEL;
        const int64_t pe = P * TIS_PANEL + wp, e = e1 < pe ? e1 : pe;
        tis_tile(g, H, hb, 1, gepwc(g, Ud, P * TIS_PANEL * H + e0 - P * TIS_PANEL), 1, 0, wp,
                 (int)(e - e0), 1, gepc(g, gt, e0), G, Us ? gepc(g, Us, e0) : NULL);
        e0 = e;
    }
}

/* The column ranges of U a slice computes: [0, 4H) on one thread; gate q's columns of the
 * units [j0, j1) on several */
typedef struct tis_cols {
    int n;
    int64_t c0[4], c1[4];
} tis_cols;

static void
tis_cols_of(int64_t H, int64_t j0, int64_t j1, tis_cols *r)
{
    int q;

    if (j0 == 0 && j1 == H) {
        r->n = 1;
        r->c0[0] = 0;
        r->c1[0] = 4 * H;
        return;
    }
    r->n = 4;
    for (q = 0; q < 4; q++) {
        r->c0[q] = q * H + j0;
        r->c1[q] = q * H + j1;
    }
}

/* emit(g, r, i0, ctx) for the m cells (an i64 value) in blocks of min(mb, cap) (mb clamped
 * to >= 1): for (i0 = 0; i0 < m; i0 += mb) a tile of min(mb, m - i0) cells, r a constant in
 * each case of a switch on it. */
typedef void (*tis_block_fn)(kg *g, int r, LLVMValueRef i0, void *ctx);

static void
tis_cell_blocks(kg *g, int mb, int64_t cap, LLVMValueRef m, tis_block_fn emit, void *ctx)
{
    LLVMBasicBlockRef join, dflt, bb;
    LLVMValueRef i0, mi, sw;
    kloop l;
    int r;

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
    join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_join");
    dflt = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_none");
    sw = LLVMBuildSwitch(g->b, mi, dflt, (unsigned)mb);
    for (r = 1; r <= mb; r++) {
        bb = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_cells");
        LLVMAddCase(sw, ci(g, r), bb);
        LLVMPositionBuilderAtEnd(g->b, bb);
        emit(g, r, i0, ctx);
        LLVMBuildBr(g->b, join);
    }
    LLVMPositionBuilderAtEnd(g->b, dflt);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    loop_end(g, &l);
}

/* What a block of tis_product's cells needs. */
typedef struct tis_prod {
    int64_t H;
    LLVMValueRef hbuf, Ud, Us, gates;
    const tis_cols *cols;
    const int64_t *p0, *p1;
} tis_prod;

static void
tis_product_block(kg *g, int r, LLVMValueRef i0, void *ctx)
{
    const tis_prod *x = ctx;
    int k;

    for (k = 0; k < x->cols->n; k++)
        if (x->p1[k] > x->p0[k])
            tis_cells(g, x->H, r, gepf(g, x->hbuf, mul(g, i0, ci(g, x->H))), x->Ud,
                      gepf(g, x->gates, mul(g, i0, ci(g, 4 * x->H))), x->p0[k], x->p1[k], x->Us);
}

/* The tissue's product over the columns cols: its m cells (an i64 value <= cap) in blocks of
 * mb over the whole panels, then cell by cell over the columns around them. */
static void
tis_product(kg *g, int64_t H, int64_t cap, LLVMValueRef m, LLVMValueRef hbuf, LLVMValueRef Ud,
            LLVMValueRef Us, LLVMValueRef gates, const tis_cols *cols)
{
    const int vpp = g->vl >= TIS_PANEL ? 1 : TIS_PANEL / g->vl;
    int k, ne[4], q, any = 0;
    int64_t p0[4], p1[4], e0[4][2], e1[4][2];
    LLVMValueRef i;
    tis_prod x;
    kloop l;

    for (k = 0; k < cols->n; k++) {
        ne[k] = tis_split(H, cols->c0[k], cols->c1[k], &p0[k], &p1[k], e0[k], e1[k]);
        any |= p1[k] > p0[k];
    }
    if (any) { /* the whole panels, register tiles of up to mb cells */
        x.H = H;
        x.hbuf = hbuf;
        x.Ud = Ud;
        x.Us = Us;
        x.gates = gates;
        x.cols = cols;
        x.p0 = p0;
        x.p1 = p1;
        tis_cell_blocks(g, tis_acc_budget(g) / vpp, cap, m, tis_product_block, &x);
    }
    any = 0;
    for (k = 0; k < cols->n; k++)
        any |= ne[k] > 0;
    if (!any)
        return;
    i = loop_begin(g, &l, ci(g, 0), m); /* the cut and narrow panels, per cell */
    for (k = 0; k < cols->n; k++)
        for (q = 0; q < ne[k]; q++)
            tis_piece(g, H, gepf(g, hbuf, mul(g, i, ci(g, H))), Ud,
                      gepf(g, gates, mul(g, i, ci(g, 4 * H))), e0[k][q], e1[k][q], Us);
    loop_end(g, &l);
}

/* --- KP_LSTM_TISSUE_DRS: DRS inside tissues (§IV tissues + §V, rt_tissue.c) ------------ */

/* go[c][j0..j1) += hbuf[c] x Uo[:, j0..j1) for r cells: Uo [H, H] k-major in g->wfmt, column
 * blocks of vectors; int8: Us its H column scales (tis_tile), else NULL. */
static void
tdrs_o_cells(kg *g, int64_t H, int r, LLVMValueRef hb, LLVMValueRef Uo, LLVMValueRef Us,
             LLVMValueRef go, int64_t j0, int64_t j1)
{
    const int w = g->vl, nb0 = tis_acc_budget(g) / r > 0 ? tis_acc_budget(g) / r : 1;
    const int nb = nb0 > 8 ? 8 : nb0;
    const int64_t tw = (int64_t)nb * w, nfull = (j1 - j0) / tw;
    int64_t col = j0 + nfull * tw;
    int nv, ns;

    if (nfull > 0) {
        kloop l;
        LLVMValueRef c0 =
            add(g, mul(g, loop_begin(g, &l, ci(g, 0), ci(g, nfull)), ci(g, tw)), ci(g, j0));
        tis_tile(g, H, hb, r, gepw(g, Uo, c0), 1, 0, H, nb, w, gepf(g, go, c0), 4 * H,
                 Us ? gepf(g, Us, c0) : NULL);
        loop_end(g, &l);
    }
    nv = (int)((j1 - col) / w);
    if (nv > 0 && w > 1) {
        tis_tile(g, H, hb, r, gepwc(g, Uo, col), 1, 0, H, nv, w, gepc(g, go, col), 4 * H,
                 Us ? gepc(g, Us, col) : NULL);
        col += (int64_t)nv * w;
    }
    for (ns = (int)(j1 - col); ns > 0;) { /* scalar columns, per cell */
        int k = ns > 8 ? 8 : ns, c;
        for (c = 0; c < r; c++)
            tis_tile(g, H, gepc(g, hb, c * H), 1, gepwc(g, Uo, col), 1, 0, H, k, 1,
                     gepc(g, go, c * 4 * H + col), 4 * H, Us ? gepc(g, Us, col) : NULL);
        col += k;
        ns -= k;
    }
}

/* What a block of tdrs_o_product's cells needs. */
typedef struct tdrs_prod {
    int64_t H, j0, j1;
    LLVMValueRef hbuf, Uo, Us, gates;
} tdrs_prod;

static void
tdrs_o_block(kg *g, int r, LLVMValueRef i0, void *ctx)
{
    const tdrs_prod *x = ctx;
    tdrs_o_cells(g, x->H, r, gepf(g, x->hbuf, mul(g, i0, ci(g, x->H))), x->Uo, x->Us,
                 gepf(g, x->gates, add(g, mul(g, i0, ci(g, 4 * x->H)), ci(g, x->H))), x->j0, x->j1);
}

/* Line 4 for the tissue, units [j0, j1): the U_o part of its Sgemm, cells in blocks as
 * tis_product. */
static void
tdrs_o_product(kg *g, int64_t H, int64_t cap, LLVMValueRef m, LLVMValueRef hbuf, LLVMValueRef Uo,
               LLVMValueRef Us, LLVMValueRef gates, int64_t j0, int64_t j1)
{
    tdrs_prod x;

    x.Us = Us;
    x.H = H;
    x.j0 = j0;
    x.j1 = j1;
    x.hbuf = hbuf;
    x.Uo = Uo;
    x.gates = gates;
    tis_cell_blocks(g, tis_acc_budget(g) / 2, cap, m, tdrs_o_block, &x);
}

/* Cells of one drs_unit_rows_n call in tdrs_rows: as many as leave each its 3 DRS_NA vector
 * accumulators and the rows' 3 DRS_NA vectors in registers (AVX-512, AArch64: 3; else 1). */
static int
tdrs_cells(const kg *g)
{
    const int n = tis_acc_budget(g) / 6 - 1;
    return n < 1 ? 1 : n > DRS_MAX_CELLS ? DRS_MAX_CELLS : n;
}

/*
 * Lines 5-7 for the m cells of a tissue, units [j0, j1): o_t in place, then per unit j the
 * list of the cells keeping it and the rows of U_f,i,c (3H contiguous weights) multiplied for
 * them, tdrs_cells at a time (the rows loaded once per vector for those cells, as the tissue
 * tiles share U's); the rows come from memory once per tissue (then from cache). Adds the kept
 * units to *kept and the union to *uni.
 */
static void
tdrs_rows(kg *g, const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, LLVMValueRef m, int64_t cap,
          LLVMValueRef hbuf, LLVMValueRef Ufic, LLVMValueRef Ufs, LLVMValueRef gates,
          LLVMValueRef alpha, LLVMValueRef kept, LLVMValueRef uni, int64_t j0, int64_t j1)
{
    const int64_t H = p->hidden, G = 4 * H;
    const int nb = tdrs_cells(g);
    LLVMTypeRef lty = LLVMArrayType(g->i32, (unsigned)cap);
    LLVMValueRef list = entry_alloca(g, lty), cnt = entry_alloca(g, g->i64);
    LLVMValueRef i, j, go, o, gi, nk, q, ngrp, hs[DRS_MAX_CELLS], gs[DRS_MAX_CELLS];
    kloop li, lj, lq;
    int c;

    i = loop_begin(g, &li, ci(g, 0), m); /* line 5 */
    go = gepf(g, gates, add(g, mul(g, i, ci(g, G)), ci(g, H)));
    j = loop_begin(g, &lj, ci(g, j0), ci(g, j1));
    stf(g, emit_act(g, &act[0], emit_clip(g, p, ldf(g, gepf(g, go, j)))), gepf(g, go, j));
    loop_end(g, &lj);
    loop_end(g, &li);
    j = loop_begin(g, &lj, ci(g, j0), ci(g, j1)); /* lines 6-7 */
    LLVMBuildStore(g->b, ci(g, 0), cnt);
    i = loop_begin(g, &li, ci(g, 0), m); /* the cells keeping j, branch-free */
    o = ldf(g, gepf(g, gepf(g, gates, add(g, mul(g, i, ci(g, G)), ci(g, H))), j));
    nk = LLVMBuildLoad2(g->b, g->i64, cnt, "");
    LLVMBuildStore(g->b, LLVMBuildTrunc(g->b, i, g->i32, ""),
                   LLVMBuildInBoundsGEP2(g->b, g->i32, list, &nk, 1, ""));
    LLVMBuildStore(g->b, add(g, nk, LLVMBuildZExt(g->b, drs_keep(g, o, alpha), g->i64, "")), cnt);
    loop_end(g, &li);
    nk = LLVMBuildLoad2(g->b, g->i64, cnt, "");
    LLVMBuildStore(g->b, add(g, LLVMBuildLoad2(g->b, g->i64, kept, ""), nk), kept);
    LLVMBuildStore(
        g->b,
        add(g, LLVMBuildLoad2(g->b, g->i64, uni, ""),
            LLVMBuildZExt(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, nk, ci(g, 0), ""), g->i64, "")),
        uni);
    ngrp = nb > 1 ? LLVMBuildSDiv(g->b, nk, ci(g, nb), "") : ci(g, 0);
    if (nb > 1) { /* groups of nb cells */
        q = mul(g, loop_begin(g, &lq, ci(g, 0), ngrp), ci(g, nb));
        for (c = 0; c < nb; c++) {
            LLVMValueRef qc = add(g, q, ci(g, c));
            LLVMValueRef ic = ld_i32(g, list, qc);
            hs[c] = gepf(g, hbuf, mul(g, ic, ci(g, H)));
            gs[c] = gepf(g, gates, mul(g, ic, ci(g, G)));
        }
        drs_unit_rows_n(g, H, Ufic, Ufs, j, nb, hs, gs, gs);
        loop_end(g, &lq);
    }
    q = loop_begin(g, &lq, mul(g, ngrp, ci(g, nb)), nk); /* the cells left, one at a time */
    i = ld_i32(g, list, q);
    gi = gepf(g, gates, mul(g, i, ci(g, G)));
    drs_unit_rows(g, H, Ufic, Ufs, j, gepf(g, hbuf, mul(g, i, ci(g, H))), gi, gi);
    loop_end(g, &lq);
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

/* The element-wise step of one cell for the units [j0, j1): gates row gr (i o f c, P and the
 * product summed), state h, c updated in place; y the cell's Y row or NULL. */
static void
tis_update(kg *g, const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, LLVMValueRef peep,
           LLVMValueRef gr, LLVMValueRef hs, LLVMValueRef cs, LLVMValueRef y, int64_t j0,
           int64_t j1)
{
    const int64_t H = p->hidden;
    LLVMValueRef j, po, cn, ot, hj;
    kloop l;

    j = loop_begin(g, &l, ci(g, j0), ci(g, j1));
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

/* max(0, 1 - |z| k) (rt_tissue.c's tri) */
static LLVMValueRef
tis_tri(kg *g, int vec, LLVMValueRef z, double k)
{
    LLVMValueRef a = intrinsic(g, "llvm.fabs", vec ? g->vf : g->f32, &z, 1);
    return tis_max(g, tis_k(g, vec, 0.0),
                   fsub(g, tis_k(g, vec, 1.0), fmul(g, a, tis_k(g, vec, k))));
}

/* Lines 4-7 for unit(s) j of P row x: so (sf + si sc), a float or a vector of vl units; the
 * calibrated centre x + shift; or the sensitivity's terms (kind). */
static LLVMValueRef
tis_link_term(kg *g, int kind, int vec, int64_t H, LLVMValueRef x, LLVMValueRef dsum,
              LLVMValueRef shift, LLVMValueRef j)
{
    LLVMTypeRef ty = vec ? g->vf : g->f32;
    LLVMValueRef v[4], dv[4], sf;
    int q;

    for (q = 0; q < 4; q++) { /* P and D rows are i, o, f, c */
        v[q] = ldt(g, ty, gepf(g, gepc(g, x, q * H), j));
        if (shift) /* calibrated: the centre of U h's range */
            v[q] = fadd(g, v[q], ldt(g, ty, gepf(g, gepc(g, shift, q * H), j)));
        dv[q] = ldt(g, ty, gepf(g, gepc(g, dsum, q * H), j));
    }
    if (kind == LSTMC_RT_REL_SENSITIVITY) { /* lstmc_rt_lstm_sensitivity */
        LLVMValueRef s3 = fmul(g, tis_tri(g, vec, v[0], 0.25), dv[0]);
        s3 = fadd(g, s3, fmul(g, tis_tri(g, vec, v[1], 0.25), dv[1]));
        s3 = fadd(g, s3, fmul(g, tis_tri(g, vec, v[2], 0.25), dv[2]));
        return fadd(g, fmul(g, tis_k(g, vec, 0.25), s3),
                    fmul(g, tis_tri(g, vec, v[3], 0.5), dv[3]));
    }
    sf = tis_min(g, tis_k(g, vec, 4.0),
                 tis_max(g, fadd(g, fadd(g, v[2], dv[2]), tis_k(g, vec, 2.0)), tis_k(g, vec, 0.0)));
    return fmul(
        g, tis_overlap(g, vec, v[1], dv[1]),
        fadd(g, sf, fmul(g, tis_overlap(g, vec, v[0], dv[0]), tis_overlap(g, vec, v[3], dv[3]))));
}

/*
 * rel[r] = S of the link into each row r in [r0, r1) of Pd (Algorithm 2, as
 * lstmc_rt_lstm_relevance), summed in vector lanes: the C kernel sums unit by unit, so S may
 * differ from its value in the last bits (a link whose S is within rounding of alpha_inter can
 * be cut by one kernel and not by the other).
 */
static void
tis_relevance(kg *g, int kind, int64_t H, int64_t r0, int64_t r1, LLVMValueRef Pd,
              LLVMValueRef dsum, LLVMValueRef shift, LLVMValueRef rel)
{
    const int64_t nv = H / g->vl;
    LLVMValueRef r, x, acc = entry_alloca(g, g->vf), S, j;
    kloop lr, lj;
    int64_t k;

    r = loop_begin(g, &lr, ci(g, r0), ci(g, r1));
    x = gepf(g, Pd, mul(g, r, ci(g, 4 * H)));
    LLVMBuildStore(g->b, LLVMConstNull(g->vf), acc);
    if (nv > 0) {
        j = mul(g, loop_begin(g, &lj, ci(g, 0), ci(g, nv)), ci(g, g->vl));
        LLVMBuildStore(g->b,
                       fadd(g, LLVMBuildLoad2(g->b, g->vf, acc, ""),
                            tis_link_term(g, kind, 1, H, x, dsum, shift, j)),
                       acc);
        loop_end(g, &lj);
    }
    S = drs_hsum(g, cf(g, 0.0), LLVMBuildLoad2(g->b, g->vf, acc, ""));
    for (k = nv * g->vl; k < H; k++) /* the units left */
        S = fadd(g, S, tis_link_term(g, kind, 0, H, x, dsum, shift, ci(g, k)));
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

/* Offset (floats, i64) of P's / X's row (t, n): lstmc_rt_row_at (lstmc_rt.h) in IR. */
static LLVMValueRef
tis_row(kg *g, const lstmc_rt_rnn_params *p, LLVMValueRef t, LLVMValueRef n)
{
    return p->layout ? add(g, mul(g, n, ci(g, p->seq_len)), t)
                     : add(g, mul(g, t, ci(g, p->batch)), n);
}

/* Offset of state row (d, n): [D, N, H] or [N, D, H]; lstmc_rt_state_at (lstmc_rt.h) in IR. */
static LLVMValueRef
tis_state_at(kg *g, const lstmc_rt_rnn_params *p, int32_t d, LLVMValueRef n)
{
    return mul(g,
               p->layout ? add(g, mul(g, n, ci(g, p->n_dirs)), ci(g, d))
                         : add(g, ci(g, d * p->batch), n),
               ci(g, p->hidden));
}

/* Slice t's counter in an [MT_MAX] x i64 array. */
static LLVMValueRef
tis_cnt(kg *g, LLVMValueRef arr, int t)
{
    LLVMValueRef idx = ci(g, t);
    return LLVMBuildInBoundsGEP2(g->b, g->i64, arr, &idx, 1, "");
}

/* The arguments of lstmc_rt_lstm_tissue (or _drs) and what the kernel's parts share. */
typedef struct tis_args {
    const kp_call *kc;
    const lstmc_rt_tissue_params *tp;
    const lstmc_rt_rnn_params *p;
    lstmc_rt_tissue_layout L;
    int drs;
    LLVMValueRef pp, alpha, alpha_intra, P, Up, rsum, sl, init_h, init_c, Peep, h_pred, c_pred;
    LLVMValueRef Uo, Ufic, Y, Y_h, Y_c, stats, dstats, scratch;
    LLVMValueRef st;                  /* i64[4]: the plans' lstmc_rt_tissue_stats */
    LLVMValueRef kbox, status;        /* on threads: the plan's tissue count, its failure */
    LLVMValueRef dcells, dkept, duni; /* DRS: the counts of drs_stats; kept and union [MT_MAX],
                                         one per slice */
} tis_args;

/* x from the kernel's arguments a[] (lstmc_rt_lstm_tissue's order; _drs: alpha_intra after
 * alpha_inter, Uo and Ufic after c_pred, drs_stats after stats). */
static void
tis_args_of(const kp_call *kc, int drs, const LLVMValueRef *a, tis_args *x)
{
    const unsigned o = drs ? 1 : 0;

    memset(x, 0, sizeof *x);
    x->kc = kc;
    x->tp = &kc->p.tissue.p;
    x->p = &x->tp->rnn;
    x->drs = drs;
    lstmc_rt_tissue_layout_of(x->tp, &x->L); /* cg_llvm_handles checked it */
    x->pp = a[0];
    x->alpha = a[1];
    x->alpha_intra = drs ? a[2] : NULL;
    x->P = a[2 + o];
    x->Up = a[3 + o];
    x->rsum = a[4 + o];
    x->sl = kc->in[3] ? a[5 + o] : NULL;
    x->init_h = kc->in[4] ? a[6 + o] : NULL;
    x->init_c = kc->in[5] ? a[7 + o] : NULL;
    x->Peep = kc->in[6] ? a[8 + o] : NULL;
    x->h_pred = kc->in[7] ? a[9 + o] : NULL;
    x->c_pred = kc->in[8] ? a[10 + o] : NULL;
    x->Uo = drs ? a[12] : NULL;
    x->Ufic = drs ? a[13] : NULL;
    x->Y = kc->out[0] ? a[11 + 3 * o] : NULL;
    x->Y_h = kc->out[1] ? a[12 + 3 * o] : NULL;
    x->Y_c = kc->out[2] ? a[13 + 3 * o] : NULL;
    x->stats = a[14 + 3 * o];
    x->dstats = drs ? a[18] : NULL;
    x->scratch = a[15 + 4 * o];
}

/* The checks before anything is written, in g->fn (which returns the status): *stats (and
 * *drs_stats) zeroed, x->st made; returns 1 when the kernel is complete (no batch). */
static int
tis_entry(kg *g, tis_args *x)
{
    const lstmc_rt_rnn_params *p = x->p;
    const int64_t T = p->seq_len, N = p->batch, H = p->hidden;
    LLVMTypeRef st_ty = LLVMArrayType(g->i64, 4);
    LLVMBasicBlockRef join;
    kloop l;
    int32_t d;

    x->st = entry_alloca(g, st_ty);
    LLVMBuildStore(g->b, LLVMConstNull(st_ty), x->st);
    join = if_begin(g, LLVMBuildIsNotNull(g->b, x->stats, "")); /* zero *stats first, as C */
    LLVMBuildStore(g->b, LLVMConstNull(st_ty), x->stats);
    tis_endif(g, join);
    if (x->drs) {
        LLVMTypeRef cnt_ty = LLVMArrayType(g->i64, MT_MAX);
        x->dcells = entry_alloca(g, g->i64);
        x->dkept = entry_alloca(g, cnt_ty);
        x->duni = entry_alloca(g, cnt_ty);
        LLVMBuildStore(g->b, ci(g, 0), x->dcells);
        LLVMBuildStore(g->b, LLVMConstNull(cnt_ty), x->dkept);
        LLVMBuildStore(g->b, LLVMConstNull(cnt_ty), x->duni);
        tdrs_store_stats(g, H, x->dstats, ci(g, 0), ci(g, 0), ci(g, 0));
    }
    if (N == 0) {
        LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
        return 1;
    }
    if (!x->kc->in[2]) /* no row sums: only alpha <= 0 (nothing cut) is possible */
        drs_ret_if(g, LLVMBuildFCmp(g->b, LLVMRealOGT, x->alpha, cf(g, 0.0), ""),
                   LSTMC_RT_ERR_NULL);
    if (x->sl) { /* every entry in [0, T] before anything is written */
        LLVMValueRef n = loop_begin(g, &l, ci(g, 0), ci(g, N)), s = ld_i32(g, x->sl, n);
        drs_ret_if(g,
                   LLVMBuildOr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, s, ci(g, 0), ""),
                               LLVMBuildICmp(g->b, LLVMIntSGT, s, ci(g, T), ""), ""),
                   LSTMC_RT_ERR_SEQ_LEN);
        loop_end(g, &l);
    }
    if (x->drs && x->Peep) /* o_t must not depend on c_t: P_o == 0 */
        for (d = 0; d < p->n_dirs; d++) {
            LLVMValueRef j = loop_begin(g, &l, ci(g, 0), ci(g, H));
            drs_ret_if(g,
                       LLVMBuildFCmp(g->b, LLVMRealUNE,
                                     ldf(g, gepf(g, gepc(g, x->Peep, d * 3 * H + H), j)),
                                     cf(g, 0.0), ""),
                       LSTMC_RT_ERR_BAD_PARAMS);
            loop_end(g, &l);
        }
    return 0;
}

/* What follows runs on slice t of nt only (nothing to guard on one thread): *j0, *j1 its
 * units, cut at panel boundaries where H allows; tis_slice_end closes it. */
static LLVMBasicBlockRef
tis_slice(kg *g, int64_t H, int nt, int t, LLVMValueRef first, LLVMValueRef end, int64_t *j0,
          int64_t *j1)
{
    if (nt == 1) {
        *j0 = 0;
        *j1 = H;
        return NULL;
    }
    mt_slice(H, nt, TIS_PANEL, t, j0, j1);
    return slice_begin(g, first, end, t);
}

static void
tis_slice_end(kg *g, LLVMBasicBlockRef join)
{
    if (join)
        slice_end(g, join);
}

static void
tis_barrier(kg *g, int nt)
{
    if (nt > 1)
        emit_barrier(g);
}

/* Cell e's gather for the units [j0, j1): its state slot starts from init_h/init_c (its
 * sequence's start) or the predicted context link (after a cut, Eq. 6); its P row into
 * gates row i, its h_{t-1} into row i of hbuf (the tissue's h buffer). */
static void
tis_gather(kg *g, const tis_args *x, int32_t d, LLVMValueRef e, LLVMValueRef i, LLVMValueRef hbuf,
           int64_t j0, int64_t j1)
{
    const lstmc_rt_rnn_params *p = x->p;
    const int64_t H = p->hidden, G = 4 * H, n_u = j1 - j0;
    const lstmc_rt_tissue_layout *L = &x->L;
    LLVMValueRef n = ld_i32(g, gepc(g, x->scratch, L->cell_n), e);
    LLVMValueRef t = ld_i32(g, gepc(g, x->scratch, L->cell_t), e);
    LLVMValueRef slot = ld_i32(g, gepc(g, x->scratch, L->cell_slot), e);
    LLVMValueRef fl = ld_i32(g, gepc(g, x->scratch, L->cell_flag), e);
    LLVMValueRef hs = gepf(g, gepc(g, x->scratch, L->state), mul(g, slot, ci(g, 2 * H)));
    LLVMValueRef cs = gepc(g, hs, H), s, gr, pr;
    LLVMBasicBlockRef j2, jelse, seq0, join;
    int q;

    jelse = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_else");
    j2 = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_started");
    seq0 = LLVMAppendBasicBlockInContext(g->cx, g->fn, "tis_seq0");
    LLVMBuildCondBr(g->b,
                    LLVMBuildICmp(g->b, LLVMIntNE,
                                  LLVMBuildAnd(g->b, fl, ci(g, LSTMC_RT_TISSUE_SEQ_START), ""),
                                  ci(g, 0), ""),
                    seq0, jelse);
    LLVMPositionBuilderAtEnd(g->b, seq0);
    s = add(g, tis_state_at(g, p, d, n), ci(g, j0));
    emit_copy(g, gepc(g, hs, j0), x->init_h ? gepf(g, x->init_h, s) : NULL, n_u, NULL);
    emit_copy(g, gepc(g, cs, j0), x->init_c ? gepf(g, x->init_c, s) : NULL, n_u, NULL);
    LLVMBuildBr(g->b, j2);
    LLVMPositionBuilderAtEnd(g->b, jelse); /* after a cut: Eq. 6 */
    join = if_begin(g, LLVMBuildICmp(g->b, LLVMIntNE,
                                     LLVMBuildAnd(g->b, fl, ci(g, LSTMC_RT_TISSUE_CUT_START), ""),
                                     ci(g, 0), ""));
    emit_copy(g, gepc(g, hs, j0), x->h_pred ? gepc(g, x->h_pred, d * H + j0) : NULL, n_u, NULL);
    emit_copy(g, gepc(g, cs, j0), x->c_pred ? gepc(g, x->c_pred, d * H + j0) : NULL, n_u, NULL);
    tis_endif(g, join);
    LLVMBuildBr(g->b, j2);
    LLVMPositionBuilderAtEnd(g->b, j2);
    gr = gepf(g, gepc(g, x->scratch, x->L.gates), mul(g, i, ci(g, G)));
    pr = gepf(g, gepc(g, x->P, d * L->cells * G), mul(g, tis_row(g, p, t, n), ci(g, G)));
    if (n_u == H)
        emit_copy(g, gr, pr, G, NULL);
    else
        for (q = 0; q < 4; q++)
            emit_copy(g, gepc(g, gr, q * H + j0), gepc(g, pr, q * H + j0), n_u, NULL);
    emit_copy(g, gepc(g, gepf(g, hbuf, mul(g, i, ci(g, H))), j0), gepc(g, hs, j0), n_u, NULL);
}

/* Cell e's update (row i of gates) for the units [j0, j1), then its outputs. */
static void
tis_finish(kg *g, const tis_args *x, int32_t d, LLVMValueRef e, LLVMValueRef i, int64_t j0,
           int64_t j1)
{
    const lstmc_rt_rnn_params *p = x->p;
    const int64_t H = p->hidden, G = 4 * H;
    const lstmc_rt_tissue_layout *L = &x->L;
    const lstmc_rt_act *act = &p->act[d * 3];
    LLVMValueRef pe = x->Peep ? gepc(g, x->Peep, d * 3 * H) : NULL;
    LLVMValueRef n = ld_i32(g, gepc(g, x->scratch, L->cell_n), e);
    LLVMValueRef t = ld_i32(g, gepc(g, x->scratch, L->cell_t), e);
    LLVMValueRef slot = ld_i32(g, gepc(g, x->scratch, L->cell_slot), e);
    LLVMValueRef fl = ld_i32(g, gepc(g, x->scratch, L->cell_flag), e);
    LLVMValueRef hs = gepf(g, gepc(g, x->scratch, L->state), mul(g, slot, ci(g, 2 * H)));
    LLVMValueRef cs = gepc(g, hs, H), s;
    LLVMValueRef gr = gepf(g, gepc(g, x->scratch, L->gates), mul(g, i, ci(g, G)));
    LLVMValueRef y = x->Y ? gepf(g, x->Y, drs_y_at(g, p, t, d, n)) : NULL;
    LLVMBasicBlockRef join;

    if (x->drs)
        drs_update(g, p, act, pe, gr, x->alpha_intra, hs, cs, y, j0, j1);
    else
        tis_update(g, p, act, pe, gr, hs, cs, y, j0, j1);
    if (x->Y_h || x->Y_c) {
        join = if_begin(g, LLVMBuildICmp(g->b, LLVMIntNE,
                                         LLVMBuildAnd(g->b, fl, ci(g, LSTMC_RT_TISSUE_SEQ_END), ""),
                                         ci(g, 0), ""));
        s = add(g, tis_state_at(g, p, d, n), ci(g, j0));
        if (x->Y_h)
            emit_copy(g, gepf(g, x->Y_h, s), gepc(g, hs, j0), j1 - j0, NULL);
        if (x->Y_c)
            emit_copy(g, gepf(g, x->Y_c, s), gepc(g, cs, j0), j1 - j0, NULL);
        tis_endif(g, join);
    }
}

/*
 * Direction d of the layer on slices [first, end) of nt (nt = 1: the whole layer, here).
 * On threads, slice t owns the units [j0, j1) (tis_slice): the gate columns q H + j (the
 * same panels of U at every tissue, which stay in its core's cache when they fit), the state
 * and outputs of its units, and a share of the links' relevances; slice 0 makes the plan.
 * Barriers: after the relevances, after the plan, one per tissue (its h buffer whole before
 * the product reads it; tissues alternate hbuf and hbuf2, so a slice that finishes first may
 * gather the next tissue while the others still read the last one's), and one after the last
 * tissue (before the next direction's plan rewrites the schedule).
 */
static void
tis_direction(kg *g, tis_args *x, int32_t d, int nt, LLVMValueRef first, LLVMValueRef end)
{
    const lstmc_rt_rnn_params *p = x->p;
    const lstmc_rt_tissue_layout *L = &x->L;
    const int64_t T = p->seq_len, N = p->batch, H = p->hidden, G = 4 * H;
    LLVMValueRef args[9], K, tau, c0, m, i, n, s, tt;
    /* int8: D x 4H float column scales, then the q panels (lstmc_rt_tissue_params.wfmt) */
    const int q8 = g->wfmt == LSTMC_RT_WFMT_INT8;
    LLVMValueRef Ud = gepwc(g, q8 ? gepc(g, x->Up, p->n_dirs * G) : x->Up, d * H * G);
    LLVMValueRef Us = q8 ? gepc(g, x->Up, d * G) : NULL, Pd = gepc(g, x->P, d * L->cells * G);
    LLVMValueRef gates = gepc(g, x->scratch, L->gates), hbuf;
    LLVMTypeRef plan_ty;
    LLVMValueRef plan = tis_plan_fn(g, &plan_ty);
    LLVMBasicBlockRef join, sj;
    kloop lt, li;
    int64_t j0, j1;
    int t;

    if (x->kc->in[2]) { /* breakpoint search, S of every link: only when something may be cut */
        const int sh = x->tp->relevance; /* [D, 2, 4H]: radii, then shifts */
        LLVMValueRef rd = gepc(g, x->rsum, d * G * (sh ? 2 : 1));
        /* S when something may be cut: alpha > 0, or always with forced cuts (max_run) */
        if (x->tp->max_run > 0)
            join = if_begin(g, LLVMConstInt(g->i1, 1, 0));
        else
            join = if_begin(g, LLVMBuildFCmp(g->b, LLVMRealOGT, x->alpha, cf(g, 0.0), ""));
        for (t = 0; t < nt; t++) { /* slice t: the links into cells [r0, r1) */
            int64_t r0, r1;
            sj = nt > 1 ? slice_begin(g, first, end, t) : NULL;
            mt_slice(L->cells, nt, 1, t, &r0, &r1);
            tis_relevance(g, sh, H, r0, r1, Pd, rd, sh ? gepc(g, rd, G) : NULL,
                          gepc(g, x->scratch, L->rel));
            tis_slice_end(g, sj);
        }
        tis_endif(g, join);
        tis_barrier(g, nt);
    }
    args[0] = x->pp;
    args[1] = LLVMConstInt(g->i32, (unsigned long long)d, 0);
    args[2] = x->alpha;
    args[3] = x->P;
    args[4] = x->kc->in[2] ? x->rsum : LLVMConstNull(g->ptr);
    args[5] = x->kc->in[2] ? gepc(g, x->scratch, L->rel) : LLVMConstNull(g->ptr);
    args[6] = x->sl ? x->sl : LLVMConstNull(g->ptr);
    args[7] = x->st;
    args[8] = x->scratch;
    if (nt == 1) {
        K = LLVMBuildCall2(g->b, plan_ty, plan, args, 9, "");
        drs_ret_if(g, LLVMBuildICmp(g->b, LLVMIntSLT, K, LLVMConstInt(g->i32, 0, 0), ""),
                   LSTMC_RT_ERR_BAD_PARAMS);
    } else { /* slice 0 plans; a failed plan (checked before: cannot happen) runs no tissue */
        LLVMValueRef bad;
        sj = slice_begin(g, first, end, 0);
        K = LLVMBuildCall2(g->b, plan_ty, plan, args, 9, "");
        bad = LLVMBuildICmp(g->b, LLVMIntSLT, K, LLVMConstInt(g->i32, 0, 0), "");
        join = if_begin(g, bad);
        LLVMBuildStore(g->b, LLVMConstInt(g->i32, LSTMC_RT_ERR_BAD_PARAMS, 0), x->status);
        tis_endif(g, join);
        LLVMBuildStore(g->b, sel(g, bad, LLVMConstInt(g->i32, 0, 0), K), x->kbox);
        slice_end(g, sj);
        emit_barrier(g);
        K = LLVMBuildLoad2(g->b, g->i32, x->kbox, "");
    }
    tau = loop_begin(g, &lt, ci(g, 0), LLVMBuildSExt(g->b, K, g->i64, ""));
    hbuf = nt == 1 ? gepc(g, x->scratch, L->hbuf)
                   : sel(g, LLVMBuildTrunc(g->b, tau, g->i1, ""), gepc(g, x->scratch, L->hbuf2),
                         gepc(g, x->scratch, L->hbuf));
    c0 = ld_i32(g, gepc(g, x->scratch, L->tstart), tau);
    m = LLVMBuildSub(g->b, ld_i32(g, gepc(g, x->scratch, L->tstart), add(g, tau, ci(g, 1))), c0,
                     "");
    for (t = 0; t < nt; t++) { /* gather */
        sj = tis_slice(g, H, nt, t, first, end, &j0, &j1);
        if (j1 > j0) {
            i = loop_begin(g, &li, ci(g, 0), m);
            tis_gather(g, x, d, add(g, c0, i), i, hbuf, j0, j1);
            loop_end(g, &li);
        }
        tis_slice_end(g, sj);
    }
    tis_barrier(g, nt);
    for (t = 0; t < nt; t++) { /* Sgemm(U, H_t) on the slice's columns, update, outputs */
        tis_cols cols;
        sj = tis_slice(g, H, nt, t, first, end, &j0, &j1);
        if (j1 > j0) {
            if (x->drs) { /* U_o, o_t, then the rows of U_f,i,c the cells keep */
                if (t == 0)
                    LLVMBuildStore(g->b, add(g, LLVMBuildLoad2(g->b, g->i64, x->dcells, ""), m),
                                   x->dcells);
                LLVMValueRef uo = gepc(g, x->Uo, d * H * H), uos = NULL;
                LLVMValueRef uf = gepc(g, x->Ufic, d * 3 * H * H), ufs = NULL;
                if (g->wfmt) { /* issue 24: D x [H, H] and D x [H, 3H] in g->wfmt */
                    lowp_dir(g, x->Uo, p->n_dirs, H, H, d, &uo, &uos);
                    lowp_dir(g, x->Ufic, p->n_dirs, H, 3 * H, d, &uf, &ufs);
                }
                tdrs_o_product(g, H, L->cap, m, hbuf, uo, uos, gates, j0, j1);
                tdrs_rows(g, p, &p->act[d * 3], m, L->cap, hbuf, uf, ufs, gates, x->alpha_intra,
                          tis_cnt(g, x->dkept, t), tis_cnt(g, x->duni, t), j0, j1);
            } else {
                tis_cols_of(H, j0, j1, &cols);
                tis_product(g, H, L->cap, m, hbuf, Ud, Us, gates, &cols);
            }
            i = loop_begin(g, &li, ci(g, 0), m);
            tis_finish(g, x, d, add(g, c0, i), i, j0, j1);
            loop_end(g, &li);
        }
        tis_slice_end(g, sj);
    }
    loop_end(g, &lt);
    tis_barrier(g, nt);
    /* rows past each sequence's end are zero; an empty sequence has zero Y_h / Y_c */
    if (x->sl && (x->Y || x->Y_h || x->Y_c))
        for (t = 0; t < nt; t++) {
            sj = tis_slice(g, H, nt, t, first, end, &j0, &j1);
            if (j1 > j0) {
                n = loop_begin(g, &li, ci(g, 0), ci(g, N));
                s = ld_i32(g, x->sl, n);
                if (x->Y) {
                    tt = loop_begin(g, &lt, s, ci(g, T));
                    emit_copy(g, gepc(g, gepf(g, x->Y, drs_y_at(g, p, tt, d, n)), j0), NULL,
                              j1 - j0, NULL);
                    loop_end(g, &lt);
                }
                if (x->Y_h || x->Y_c) {
                    join = if_begin(g, LLVMBuildICmp(g->b, LLVMIntEQ, s, ci(g, 0), ""));
                    if (x->Y_h)
                        emit_copy(g, gepc(g, gepf(g, x->Y_h, tis_state_at(g, p, d, n)), j0), NULL,
                                  j1 - j0, NULL);
                    if (x->Y_c)
                        emit_copy(g, gepc(g, gepf(g, x->Y_c, tis_state_at(g, p, d, n)), j0), NULL,
                                  j1 - j0, NULL);
                    tis_endif(g, join);
                }
                loop_end(g, &li);
            }
            tis_slice_end(g, sj);
        }
}

/* *stats = the plans' counts when stats is not NULL (and *drs_stats with DRS: the nt
 * slices' counts summed) */
static void
tis_store_stats(kg *g, const tis_args *x, int nt)
{
    LLVMTypeRef st_ty = LLVMArrayType(g->i64, 4);
    LLVMBasicBlockRef join = if_begin(g, LLVMBuildIsNotNull(g->b, x->stats, ""));
    LLVMValueRef kept = ci(g, 0), uni = ci(g, 0);
    int t;

    LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, st_ty, x->st, ""), x->stats);
    tis_endif(g, join);
    if (!x->drs)
        return;
    for (t = 0; t < nt; t++) {
        kept = add(g, kept, LLVMBuildLoad2(g->b, g->i64, tis_cnt(g, x->dkept, t), ""));
        uni = add(g, uni, LLVMBuildLoad2(g->b, g->i64, tis_cnt(g, x->duni, t), ""));
    }
    tdrs_store_stats(g, x->p->hidden, x->dstats, LLVMBuildLoad2(g->b, g->i64, x->dcells, ""), kept,
                     uni);
}

/* The slices of the tissue kernel on nt threads (emit_mt_ex): a[] its 16 (DRS: 20)
 * arguments, then the main function's st, kbox and status (DRS: and its counters). */
static void
emit_tissue_mt_body(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a, LLVMValueRef first,
                    LLVMValueRef end)
{
    const int drs = kc->kind == KP_LSTM_TISSUE_DRS;
    const unsigned n = drs ? 20 : 16;
    LLVMBasicBlockRef sj;
    tis_args x;
    int32_t d;

    tis_args_of(kc, drs, a, &x);
    x.st = a[n];
    x.kbox = a[n + 1];
    x.status = a[n + 2];
    if (drs) {
        x.dcells = a[n + 3];
        x.dkept = a[n + 4];
        x.duni = a[n + 5];
    }
    for (d = 0; d < x.p->n_dirs; d++)
        tis_direction(g, &x, d, nt, first, end);
    if (drs) /* every slice's counts in */
        emit_barrier(g);
    sj = slice_begin(g, first, end, 0);
    tis_store_stats(g, &x, nt);
    slice_end(g, sj);
    LLVMBuildRetVoid(g->b);
}

/* lstmc_rt_lstm_tissue, or lstmc_rt_lstm_tissue_drs when drs; on g->threads slices of hidden
 * units (<fname>_w) when g->threads > 1 (rec_threads). */
void
emit_tissue(kg *g, const kp_call *kc, int drs, const char *fname)
{
    LLVMValueRef a[20], extra[6];
    unsigned k, n = drs ? 20 : 16;
    tis_args x;
    int32_t d;

    for (k = 0; k < n; k++)
        a[k] = LLVMGetParam(g->fn, k);
    tis_args_of(kc, drs, a, &x);
    if (tis_entry(g, &x))
        return;
    if (g->threads > 1) {
        x.kbox = entry_alloca(g, g->i32);
        x.status = entry_alloca(g, g->i32);
        LLVMBuildStore(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0), x.status);
        extra[0] = x.st;
        extra[1] = x.kbox;
        extra[2] = x.status;
        extra[3] = x.dcells;
        extra[4] = x.dkept;
        extra[5] = x.duni;
        emit_mt_ex(g, kc, fname, g->threads, n, extra, drs ? 6 : 3, x.status, emit_tissue_mt_body);
        return;
    }
    for (d = 0; d < x.p->n_dirs; d++)
        tis_direction(g, &x, d, 1, NULL, NULL);
    tis_store_stats(g, &x, 1);
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
int
tissue_handles(const kp_call *c)
{
    const lstmc_rt_rnn_params *p = &c->p.tissue.p.rnn;
    lstmc_rt_tissue_layout L;

    if (c->kind == KP_LSTM_TISSUE_DRS) /* keep, count, R after the plain kernel's words */
        return c->in[9] && c->in[10] && lstmc_rt_tissue_layout_of(&c->p.tissue.p, &L) == 0 &&
               c->scratch_bytes >= 4 * lstmc_rt_lstm_tissue_drs_scratch(&c->p.tissue.p) &&
               c->wfmt >= LSTMC_RT_WFMT_FP32 && c->wfmt <= LSTMC_RT_WFMT_INT8 &&
               p->hsparse_th == 0.0f && tissue_act_ok(p);
    if (c->kind != KP_LSTM_TISSUE || !c->in[1] || p->hsparse_th != 0.0f ||
        c->wfmt < LSTMC_RT_WFMT_FP32 || c->wfmt > LSTMC_RT_WFMT_INT8 ||
        lstmc_rt_tissue_layout_of(&c->p.tissue.p, &L) < 0 || c->scratch_bytes < 4 * L.words)
        return 0;
    return tissue_act_ok(p);
}

#endif /* LSTMC_HAVE_LLVM */
