/*
 * proj.c — KP_RNN_PROJ as LLVM code: the input projection of the Arm paper's schedule A+
 * (§IV, Algorithm 2 line 5, X' = G1 * I'), P[d][r] = b[d] + X[r] * Wt[d], register tiles of
 * PROJ_RB rows of X by PROJ_NB vectors of columns over W (row-major or in column panels).
 */
#include "llvm_impl.h"

#include <stddef.h>

#ifdef LSTMC_HAVE_LLVM

#define PROJ_RB TK_DEFAULT_PROJ_ROWS /* rows of X per tile (target.h) */

/* Rows of X and vectors of columns per projection tile. With reduced-precision W on
 * AVX-512 (32 registers) the tile is 8 x 3: each widened vector of W (two uops, vpmovsxbd +
 * vcvtdq2ps for int8) then feeds 8 FMAs instead of 4, and 24 accumulators + 3 weights + a
 * broadcast still fit the registers. */
int
proj_rb(int wfmt, int vl)
{
    return wfmt && vl >= 16 ? 8 : PROJ_RB;
}

int
proj_nb(int wfmt, int vl)
{
    return wfmt && vl >= 16 ? 3 : PROJ_NB;
}
/* One tile of rb rows at row r (an i64 value): emit_tile, or with a bf16 W and vdpbf16ps
 * (rec_dot) emit_tile_dot_rows against c->hs. */
static void
proj_tile(kg *g, proj_ctx *c, LLVMValueRef r, int rb, LLVMValueRef wcol, int64_t ldw,
          LLVMValueRef bcol, LLVMValueRef pcol, int nv, int w, int64_t pf, LLVMValueRef scol)
{
    const int dot = w > 1 ? rec_dot(g, c->tune, g->wfmt, c->panels) : 0;
    LLVMValueRef x = gepf(g, c->X, mul(g, r, ci(g, c->I))),
                 p = gepf(g, pcol, mul(g, r, ci(g, c->GH)));
    if (!dot) {
        emit_tile(g, x, c->I, wcol, ldw, c->I, bcol, 0, p, c->GH, rb, nv, w, pf, scol);
        return;
    }
    if (!c->hs) /* the largest tile's rows, KG_DOT_KB terms of each, 3 pieces at most */
        c->hs =
            entry_alloca(g, LLVMArrayType2(LLVMInt16TypeInContext(g->cx),
                                           (uint64_t)(3 * c->tune->v[TK_ROWS] * KG_DOT_KB + 2)));
    emit_tile_dot_rows(g, x, c->I, rb, c->hs, dot, wcol, ldw, c->I, bcol, 0, p, c->GH, nv, w);
}

void
proj_seg(kg *g, LLVMValueRef col, int nv, int w, void *vctx)
{
    proj_ctx *c = vctx;
    const int rb = c->tune->v[TK_ROWS];
    const int64_t nblk = c->rows / rb, rem = c->rows % rb;
    /* in panels this segment's I x nv*w block starts at I*col, read as one stream */
    const int64_t ldw = c->panels ? (int64_t)nv * w : c->GH;
    const int64_t pf =
        c->panels && !g->wfmt && g->prefetch ? (int64_t)c->tune->v[TK_PREFETCH] * nv * w : 0;
    LLVMValueRef wcol = gepw(g, c->wd, c->panels ? mul(g, col, ci(g, c->I)) : col);
    LLVMValueRef bcol = c->bd ? gepf(g, c->bd, col) : NULL;
    LLVMValueRef pcol = gepf(g, c->Pd, col);
    LLVMValueRef scol = g->wfmt == LSTMC_RT_WFMT_INT8 ? gepf(g, c->scale, col) : NULL;
    /* the run's full row blocks: rowsv / rb (rb a power of two), or the constant */
    LLVMValueRef nblkv = c->rowsv ? LLVMBuildUDiv(g->b, c->rowsv, ci(g, rb), "") : ci(g, nblk);

    if (c->rowsv || nblk > 0) {
        kloop l;
        LLVMValueRef r = mul(g, loop_begin(g, &l, ci(g, 0), nblkv), ci(g, rb));
        proj_tile(g, c, r, rb, wcol, ldw, bcol, pcol, nv, w, pf, scol);
        loop_end(g, &l);
    }
    if (c->rowsv) { /* the rows left (fewer than rb): one tile of that height, as the
                       constant case has, so W is read once more, not once per row */
        LLVMValueRef r = mul(g, nblkv, ci(g, rb));
        LLVMValueRef left = LLVMBuildSub(g->b, c->rowsv, r, "");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "proj_join");
        LLVMValueRef sw = LLVMBuildSwitch(g->b, left, join, (unsigned)(rb - 1));
        int h;
        for (h = 1; h < rb; h++) {
            LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(g->cx, g->fn, "proj_rows");
            LLVMAddCase(sw, ci(g, h), bb);
            LLVMPositionBuilderAtEnd(g->b, bb);
            proj_tile(g, c, r, h, wcol, ldw, bcol, pcol, nv, w, pf, scol);
            LLVMBuildBr(g->b, join);
        }
        LLVMPositionBuilderAtEnd(g->b, join);
    } else if (rem > 0) {
        proj_tile(g, c, ci(g, c->rows - rem), (int)rem, wcol, ldw, bcol, pcol, nv, w, pf, scol);
    }
}

/* The run's rows of projection call c whose params are at p (issue 21: KP_DYN_ROWS, read
 * from p; check: return LSTMC_RT_ERR_BAD_PARAMS from g->fn when they exceed c's), or NULL
 * when c's rows are a constant. */
LLVMValueRef
proj_rows(kg *g, const kp_call *c, LLVMValueRef p, int check)
{
    LLVMValueRef v;
    if (!(c->dyn & KP_DYN_ROWS))
        return NULL;
    v = ld_param_i64(g, p, offsetof(lstmc_rt_rnn_proj_params, rows));
    if (check)
        emit_dim_check(g, v, c->p.proj.rows);
    return v;
}

/* lstmc_rt_rnn_proj(p, X, w, b, P) for packed weights: P[d][r] = b[d] + X[r] * Wt[d]
 * (lstmc_rt_rnn_proj_<fmt> for weights in a reduced-precision g->wfmt). */
void
emit_proj(kg *g, const kp_call *c)
{
    const lstmc_rt_rnn_proj_params *p = &c->p.proj;
    const int64_t GH = cell_gates(p->cell) * p->hidden, I = p->input_size;
    LLVMValueRef X = LLVMGetParam(g->fn, 1), w = LLVMGetParam(g->fn, 2);
    LLVMValueRef b = LLVMGetParam(g->fn, 3), P = LLVMGetParam(g->fn, 4);
    LLVMValueRef rowsv = proj_rows(g, c, LLVMGetParam(g->fn, 0), 1);
    int32_t d;

    for (d = 0; d < p->n_dirs; d++) {
        proj_ctx pc;
        pc.rows = p->rows;
        pc.rowsv = rowsv;
        pc.I = I;
        pc.GH = GH;
        pc.X = X;
        pc.panels = g->panels;
        pc.wd = gepc(g, w, d * I * GH);
        pc.scale = NULL;
        if (g->wfmt)
            lowp_dir(g, w, p->n_dirs, I, GH, d, &pc.wd, &pc.scale);
        pc.bd = c->in[2] ? gepc(g, b, d * GH) : NULL;
        pc.Pd = !rowsv || d == 0 ? gepc(g, P, d * p->rows * GH)
                                 : gepf(g, P, mul(g, rowsv, ci(g, d * GH)));
        pc.tune = &c->tune;
        pc.hs = NULL;
        for_col_segments(g, GH, c->tune.v[TK_TILE], proj_seg, &pc);
    }
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
}

#endif /* LSTMC_HAVE_LLVM */
