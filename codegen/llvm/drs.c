/*
 * drs.c — KP_LSTM_DRS as LLVM code: dynamic row skip (MICRO'18 §V, Algorithm 3), with the
 * helpers the tissue kernel with DRS (tissue.c) shares.
 */
#include "llvm_impl.h"

#include <string.h>

#ifdef LSTMC_HAVE_LLVM

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

/* Offset (floats, i64 value) of row (t, d, n) of Y: lstmc_rt_y_at (lstmc_rt.h, the C copy of
 * the layout formulas) built in IR. */
LLVMValueRef
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
LLVMValueRef
drs_hsum(kg *g, LLVMValueRef start, LLVMValueRef v)
{
    LLVMValueRef args[2], r;

    args[0] = cf(g, 0.0);
    args[1] = v;
    r = intrinsic(g, "llvm.vector.reduce.fadd", g->vf, args, 2);
    LLVMSetFastMathFlags(r, LLVMFastMathAllowReassoc);
    return fadd(g, start, r);
}

/* Line 7 for unit j (an i64 value) and nc cells (nc <= DRS_MAX_CELLS): the pre-activations of
 * i, f, c of cell c from its x[c] into its gates[c], against its h[c]. The rows are loaded once
 * per vector for the nc cells; each cell's sums are those of one cell alone (DRS_NA vectors of
 * accumulators per row, then one horizontal sum), so a cell's floats do not depend on nc.
 * Ufic this direction's rows in g->wfmt (fp16 / bf16 widened as read); int8: scale its 3H row
 * scales, the sums from 0 and x + s * sum at the end (the exact int8 recurrence's order), else
 * NULL. */
void
drs_unit_rows_n(kg *g, int64_t H, LLVMValueRef Ufic, LLVMValueRef scale, LLVMValueRef j, int nc,
                const LLVMValueRef *h, const LLVMValueRef *x, const LLVMValueRef *gates)
{
    static const int64_t goff[3] = {0, 2, 3}; /* gate i, f, c in P and gates (i o f c) */
    const int64_t step = (int64_t)DRS_NA * g->vl, nfull = H / step;
    LLVMValueRef rows = gepw(g, Ufic, mul(g, j, ci(g, 3 * H)));
    LLVMValueRef acc[DRS_MAX_CELLS][3][DRS_NA], sum[DRS_MAX_CELLS][3], xr, uv[3][DRS_NA];
    int64_t k0 = nfull * step, k;
    int r, a, c;

    for (c = 0; c < nc; c++)
        for (r = 0; r < 3; r++)
            for (a = 0; a < DRS_NA; a++) {
                acc[c][r][a] = entry_alloca(g, g->vf);
                LLVMBuildStore(g->b, LLVMConstNull(g->vf), acc[c][r][a]);
            }
    if (nfull > 0) {
        kloop l;
        LLVMValueRef kk = mul(g, loop_begin(g, &l, ci(g, 0), ci(g, nfull)), ci(g, step));

        for (a = 0; a < DRS_NA; a++)
            for (r = 0; r < 3; r++)
                uv[r][a] = emit_ldw(
                    g, gepw(g, gepwc(g, rows, r * H), add(g, kk, ci(g, (int64_t)a * g->vl))),
                    g->vl);
        for (c = 0; c < nc; c++)
            for (a = 0; a < DRS_NA; a++) {
                LLVMValueRef hv =
                    ldt(g, g->vf, gepf(g, h[c], add(g, kk, ci(g, (int64_t)a * g->vl))));

                for (r = 0; r < 3; r++) {
                    LLVMValueRef cur = LLVMBuildLoad2(g->b, g->vf, acc[c][r][a], "");
                    LLVMBuildStore(g->b, fma_(g, g->vf, hv, uv[r][a], cur), acc[c][r][a]);
                }
            }
        loop_end_rolled(g, &l); /* else the cell loops around it hoist the rows (tissue.c) */
    }
    for (c = 0; c < nc; c++)
        for (r = 0; r < 3; r++) {
            LLVMValueRef v = LLVMBuildLoad2(g->b, g->vf, acc[c][r][0], "");

            for (a = 1; a < DRS_NA; a++)
                v = fadd(g, v, LLVMBuildLoad2(g->b, g->vf, acc[c][r][a], ""));
            xr = ldf(g, gepf(g, gepc(g, x[c], goff[r] * H), j));
            sum[c][r] = drs_hsum(g, scale ? cf(g, 0.0) : xr, v);
        }
    for (k = k0; k < H; k++) /* scalar tail (H not a multiple of DRS_NA vectors) */
        for (r = 0; r < 3; r++) {
            LLVMValueRef u = emit_ldw(g, gepwc(g, rows, r * H + k), 1);
            for (c = 0; c < nc; c++)
                sum[c][r] = fma_(g, g->f32, ldf(g, gepc(g, h[c], k)), u, sum[c][r]);
        }
    for (c = 0; c < nc; c++)
        for (r = 0; r < 3; r++) {
            if (scale) {
                LLVMValueRef sc = ldf(g, gepf(g, gepc(g, scale, r), mul(g, j, ci(g, 3))));
                xr = ldf(g, gepf(g, gepc(g, x[c], goff[r] * H), j));
                sum[c][r] = fadd(g, xr, fmul(g, sc, sum[c][r]));
            }
            stf(g, sum[c][r], gepf(g, gepc(g, gates[c], goff[r] * H), j));
        }
}

/* drs_unit_rows_n for one cell. */
void
drs_unit_rows(kg *g, int64_t H, LLVMValueRef Ufic, LLVMValueRef scale, LLVMValueRef j,
              LLVMValueRef h, LLVMValueRef x, LLVMValueRef gates)
{
    drs_unit_rows_n(g, H, Ufic, scale, j, 1, &h, &x, &gates);
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
void
drs_ret_if(kg *g, LLVMValueRef cond, int code)
{
    LLVMBasicBlockRef join = if_begin(g, cond);
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, (unsigned long long)code, 0));
    LLVMPositionBuilderAtEnd(g->b, join);
}

/* Unit j's new cell state f.c + i.g from a gate row gr (i o f c, pre-activations) and its old
 * c (cj), the peepholes of i and f applied (rt_rnn.c, lstmc_rt_lstm_cn). */
LLVMValueRef
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
LLVMValueRef
drs_keep(kg *g, LLVMValueRef o, LLVMValueRef alpha)
{
    return LLVMBuildNot(g->b, flt(g, intrinsic(g, "llvm.fabs", g->f32, &o, 1), alpha), "");
}

/* Line 8 for one cell (o_t already in gates), units [j0, j1): the cell update for the kept
 * units, c = 0 and h = o h(0) for the others; h, c in place, y its Y row or NULL. */
void
drs_update(kg *g, const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, LLVMValueRef peep,
           LLVMValueRef gr, LLVMValueRef alpha, LLVMValueRef hs, LLVMValueRef cs, LLVMValueRef y,
           int64_t j0, int64_t j1)
{
    LLVMValueRef j, o, keep, cn, hj;
    const int64_t H = p->hidden;
    kloop l;

    j = loop_begin(g, &l, ci(g, j0), ci(g, j1));
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

/* The checks of lstmc_rt_lstm_drs before anything is written (g->fn, the kernel's arguments):
 * *stats zeroed, seq_lens in [0, T], P_o peepholes zero; returns 1 when the kernel is complete
 * (no batch). */
static int
drs_entry(kg *g, const kp_call *kc, const rec_dims *dm)
{
    const lstmc_rt_rnn_params *p = &kc->p.drs.p;
    const int64_t H = p->hidden;
    LLVMValueRef Peep = kc->in[6] ? LLVMGetParam(g->fn, 8) : NULL;
    int32_t d;
    kloop l;

    drs_store_stats(g, H, LLVMGetParam(g->fn, 12), ci(g, 0), ci(g, 0));
    if (p->batch == 0) { /* N <= 0 at run time too */
        LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
        return 1;
    }
    if (kc->in[3]) /* every entry in [0, T] before anything is written */
        emit_seq_len_check(g, LLVMGetParam(g->fn, 5), dm->N, dm->T);
    if (Peep) /* o_t must not depend on c_t: P_o == 0 */
        for (d = 0; d < p->n_dirs; d++) {
            LLVMValueRef j = loop_begin(g, &l, ci(g, 0), ci(g, H));
            drs_ret_if(g,
                       LLVMBuildFCmp(g->b, LLVMRealUNE,
                                     ldf(g, gepf(g, gepc(g, Peep, d * 3 * H + H), j)), cf(g, 0.0),
                                     ""),
                       LSTMC_RT_ERR_BAD_PARAMS);
            loop_end(g, &l);
        }
    return 0;
}

/* Line 6 for the units [j0, j1) of the o_t in go: R[j0 ..) = the kept units, ascending;
 * returns their count (an i64 value; cnt an i64 alloca). */
static LLVMValueRef
drs_compact(kg *g, LLVMValueRef go, LLVMValueRef alpha, LLVMValueRef R, LLVMValueRef cnt,
            int64_t j0, int64_t j1)
{
    LLVMValueRef j, o, nk, at;
    kloop l;

    LLVMBuildStore(g->b, ci(g, 0), cnt);
    j = loop_begin(g, &l, ci(g, j0), ci(g, j1));
    o = ldf(g, gepf(g, go, j));
    nk = LLVMBuildLoad2(g->b, g->i64, cnt, "");
    at = add(g, nk, ci(g, j0));
    LLVMBuildStore(g->b, LLVMBuildTrunc(g->b, j, g->i32, ""),
                   LLVMBuildInBoundsGEP2(g->b, g->i32, R, &at, 1, ""));
    LLVMBuildStore(g->b, add(g, nk, LLVMBuildZExt(g->b, drs_keep(g, o, alpha), g->i64, "")), cnt);
    loop_end(g, &l);
    return LLVMBuildLoad2(g->b, g->i64, cnt, "");
}

/* Direction d's weights: rc reads U_o [H, H] (its tiles), *ufd its rows of U_f,i,c and *ufs
 * their int8 scales (else NULL), in g->wfmt (issue 24: reduced-precision layouts). */
static void
drs_dir(kg *g, const lstmc_rt_rnn_params *p, int32_t d, LLVMValueRef Uo, LLVMValueRef Ufic,
        rec_ctx *rc, LLVMValueRef *ufd, LLVMValueRef *ufs)
{
    const int64_t H = p->hidden, D = p->n_dirs;

    memset(rc, 0, sizeof *rc);
    rc->p = p;
    rc->act = &p->act[d * 3];
    rc->H = H;
    rc->GH = H;
    if (g->wfmt) {
        lowp_dir(g, Uo, D, H, H, d, &rc->Rt, &rc->scale);
        lowp_dir(g, Ufic, D, H, 3 * H, d, ufd, ufs);
    } else {
        rc->Rt = gepc(g, Uo, d * H * H);
        *ufd = gepc(g, Ufic, d * 3 * H * H);
        *ufs = NULL;
    }
}

/* Lines 5 (o_t of the units [j0, j1) in place), 6 and 7 of one cell: x its P row, h its
 * h_{t-1}, go = gates + H; adds the kept units to *kept. */
static void
drs_cell_units(kg *g, const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, LLVMValueRef x,
               LLVMValueRef h, LLVMValueRef gates, LLVMValueRef alpha, LLVMValueRef R,
               LLVMValueRef cnt, LLVMValueRef ufd, LLVMValueRef ufs, LLVMValueRef kept, int64_t j0,
               int64_t j1)
{
    const int64_t H = p->hidden;
    LLVMValueRef go = gepc(g, gates, H), j, o, nk, r;
    kloop l;

    j = loop_begin(g, &l, ci(g, j0), ci(g, j1)); /* line 5, a loop of its own: it vectorises */
    o = emit_act(g, &act[0], emit_clip(g, p, ldf(g, gepf(g, go, j))));
    stf(g, o, gepf(g, go, j));
    loop_end(g, &l);
    nk = drs_compact(g, go, alpha, R, cnt, j0, j1); /* line 6 */
    LLVMBuildStore(g->b, add(g, LLVMBuildLoad2(g->b, g->i64, kept, ""), nk), kept);
    r = add(g, loop_begin(g, &l, ci(g, 0), nk), ci(g, j0)); /* line 7: the units in R only */
    j = ld_i32(g, R, r);
    drs_unit_rows(g, H, ufd, ufs, j, h, x, gates);
    loop_end(g, &l);
}

void
emit_drs(kg *g, const kp_call *kc)
{
    const lstmc_rt_rnn_params *p = &kc->p.drs.p;
    const int64_t H = p->hidden, G = 4 * H, D = p->n_dirs;
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
    rec_dims dm; /* T and N, read from p where kc->dyn says (issue 21) */
    int32_t d;

    rec_dims_of(g, p, kc->dyn, LLVMGetParam(g->fn, 0), 1, &dm);
    LLVMBuildStore(g->b, ci(g, 0), cells);
    LLVMBuildStore(g->b, ci(g, 0), kept);
    if (drs_entry(g, kc, &dm))
        return;
    for (d = 0; d < D; d++) {
        const int rev = D == 2 ? d : p->reverse;
        const lstmc_rt_act *act = &p->act[d * 3];
        LLVMValueRef Pp = d == 0 ? P : gepf(g, P, mul(g, rec_rows(g, &dm), ci(g, d * G)));
        LLVMValueRef pe = Peep ? gepc(g, Peep, d * 3 * H) : NULL;
        LLVMValueRef n, s, st, t, x, row, s0, ufd, ufs;
        rec_ctx rc;
        kloop ln, ls, lz;

        drs_dir(g, p, d, Uo, Ufic, &rc, &ufd, &ufs);

        n = loop_begin(g, &ln, ci(g, 0), dm.N);
        s = has_sl ? ld_i32(g, sl, n) : dm.T;
        st = rec_state_at(g, p, &dm, d, n);
        emit_copy(g, h, init_h ? gepf(g, init_h, st) : NULL, H, NULL);
        emit_copy(g, c, init_c ? gepf(g, init_c, st) : NULL, H, NULL);

        t = loop_begin(g, &ls, ci(g, 0), s);
        if (rev)
            t = LLVMBuildSub(g->b, LLVMBuildSub(g->b, s, ci(g, 1), ""), t, "");
        row = rec_row_at(g, p, &dm, t, n);
        x = gepf(g, Pp, mul(g, row, ci(g, G)));
        emit_gemv(g, &rc, h, 0, H, gepc(g, x, H), gepc(g, gates, H)); /* line 4 */
        drs_cell_units(g, p, act, x, h, gates, alpha, R, cnt, ufd, ufs, kept, 0, H);
        LLVMBuildStore(g->b, add(g, LLVMBuildLoad2(g->b, g->i64, cells, ""), ci(g, 1)), cells);
        /* line 8 */
        drs_update(g, p, act, pe, gates, alpha, h, c, NULL, 0, H);
        if (Y)
            emit_copy(g, gepf(g, Y, rec_y_at(g, p, &dm, t, d, n)), h, H, NULL);
        loop_end(g, &ls);

        if (Y && has_sl) { /* rows t >= s are zero */
            t = loop_begin(g, &lz, s, dm.T);
            emit_copy(g, gepf(g, Y, rec_y_at(g, p, &dm, t, d, n)), NULL, H, NULL);
            loop_end(g, &lz);
        }
        s0 = has_sl || dm.dyn_T ? LLVMBuildICmp(g->b, LLVMIntEQ, s, ci(g, 0), "") : NULL;
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

/* &counts[t] of an i64 array */
static LLVMValueRef
drs_cnt(kg *g, LLVMValueRef counts, int t)
{
    LLVMValueRef idx = ci(g, t);
    return LLVMBuildInBoundsGEP2(g->b, g->i64, counts, &idx, 1, "");
}

/*
 * KP_LSTM_DRS on nt threads of the runtime pool (rec_mt.c's pattern): slice t owns the hidden
 * units [j0, j1) (mt_slice) and at every step computes their o columns (h U_o[:, j0..j1)),
 * o_t, their part of R and the rows of U_f,i,c of its kept units, then updates their c and h;
 * h is double-buffered (scratch h and hB: a step reads one, writes the other), one barrier per
 * step. Each unit's sums are the one-thread kernel's, so the floats are the same bit for bit.
 * The extra values after the 14 arguments: kept[MT_MAX] (i64, one count per slice) and
 * cells (i64), zeroed by <name>_k<i>; slice 0 writes *stats after the last barrier.
 */
static void
emit_drs_mt_body(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a, LLVMValueRef first,
                 LLVMValueRef end)
{
    const lstmc_rt_rnn_params *p = &kc->p.drs.p;
    const int64_t H = p->hidden, G = 4 * H, D = p->n_dirs;
    LLVMValueRef alpha = a[1], P = a[2], Uo = a[3], Ufic = a[4], sl = kc->in[3] ? a[5] : NULL;
    LLVMValueRef init_h = kc->in[4] ? a[6] : NULL, init_c = kc->in[5] ? a[7] : NULL;
    LLVMValueRef Peep = kc->in[6] ? a[8] : NULL, Y = kc->out[0] ? a[9] : NULL;
    LLVMValueRef Y_h = kc->out[1] ? a[10] : NULL, Y_c = kc->out[2] ? a[11] : NULL;
    LLVMValueRef stats = a[12], scratch = a[13], kept = a[14], cells = a[15];
    LLVMValueRef hA = scratch, c = gepc(g, scratch, H), gates = gepc(g, scratch, 2 * H);
    LLVMValueRef R = gepc(g, scratch, 6 * H), hB = gepc(g, scratch, 7 * H);
    LLVMValueRef cnt = entry_alloca(g, g->i64), sum;
    LLVMBasicBlockRef join;
    rec_dims dm;
    int64_t j0, j1;
    int32_t d;
    int t;

    rec_dims_of(g, p, kc->dyn, a[0], 0, &dm); /* checked by <name>_k<i> (emit_drs_mt) */
    for (d = 0; d < D; d++) {
        const int rev = D == 2 ? d : p->reverse;
        const lstmc_rt_act *act = &p->act[d * 3];
        LLVMValueRef Pp = d == 0 ? P : gepf(g, P, mul(g, rec_rows(g, &dm), ci(g, d * G)));
        LLVMValueRef pe = Peep ? gepc(g, Peep, d * 3 * H) : NULL;
        LLVMValueRef n, s, st, i, tt, x, y, odd, hc, hn, s0, ufd, ufs;
        rec_ctx rc;
        kloop ln, ls, lz;

        drs_dir(g, p, d, Uo, Ufic, &rc, &ufd, &ufs);
        n = loop_begin(g, &ln, ci(g, 0), dm.N);
        s = sl ? ld_i32(g, sl, n) : dm.T;
        st = rec_state_at(g, p, &dm, d, n);
        for (t = 0; t < nt; t++) {
            mt_slice(H, nt, g->vl, t, &j0, &j1);
            join = slice_begin(g, first, end, t);
            emit_copy(g, gepc(g, hA, j0), init_h ? gepc(g, gepf(g, init_h, st), j0) : NULL, j1 - j0,
                      NULL);
            emit_copy(g, gepc(g, c, j0), init_c ? gepc(g, gepf(g, init_c, st), j0) : NULL, j1 - j0,
                      NULL);
            slice_end(g, join);
        }
        emit_barrier(g); /* the whole initial h before anyone reads it */

        i = loop_begin(g, &ls, ci(g, 0), s);
        tt = rev ? LLVMBuildSub(g->b, LLVMBuildSub(g->b, s, ci(g, 1), ""), i, "") : i;
        x = gepf(g, Pp, mul(g, rec_row_at(g, p, &dm, tt, n), ci(g, G)));
        y = Y ? gepf(g, Y, rec_y_at(g, p, &dm, tt, d, n)) : NULL;
        odd = LLVMBuildTrunc(g->b, i, g->i1, "");
        hc = sel(g, odd, hB, hA);
        hn = sel(g, odd, hA, hB);
        join = slice_begin(g, first, end, 0); /* the cell, counted once (slice 0 may own no unit) */
        LLVMBuildStore(g->b, add(g, LLVMBuildLoad2(g->b, g->i64, cells, ""), ci(g, 1)), cells);
        slice_end(g, join);
        for (t = 0; t < nt; t++) {
            mt_slice(H, nt, g->vl, t, &j0, &j1);
            if (j1 == j0)
                continue;
            join = slice_begin(g, first, end, t);
            rc.hs_of = NULL; /* a bf16 U's pieces of h: this slice's own */
            emit_gemv(g, &rc, hc, j0, j1 - j0, gepc(g, x, H + j0), gepc(g, gates, H + j0));
            drs_cell_units(g, p, act, x, hc, gates, alpha, R, cnt, ufd, ufs, drs_cnt(g, kept, t),
                           j0, j1);
            drs_update(g, p, act, pe, gates, alpha, hn, c, y, j0, j1); /* line 8 */
            slice_end(g, join);
        }
        emit_barrier(g); /* this step's h complete before the next step reads it */
        loop_end(g, &ls);

        hc = sel(g, LLVMBuildTrunc(g->b, s, g->i1, ""), hB, hA); /* the state after s steps */
        s0 = sl || dm.dyn_T ? LLVMBuildICmp(g->b, LLVMIntEQ, s, ci(g, 0), "") : NULL;
        for (t = 0; t < nt; t++) {
            mt_slice(H, nt, g->vl, t, &j0, &j1);
            if (j1 == j0)
                continue;
            join = slice_begin(g, first, end, t);
            if (Y && sl) { /* rows t >= s are zero */
                tt = loop_begin(g, &lz, s, dm.T);
                emit_copy(g, gepc(g, gepf(g, Y, rec_y_at(g, p, &dm, tt, d, n)), j0), NULL, j1 - j0,
                          NULL);
                loop_end(g, &lz);
            }
            if (Y_h)
                emit_copy(g, gepc(g, gepf(g, Y_h, st), j0), gepc(g, hc, j0), j1 - j0, s0);
            if (Y_c)
                emit_copy(g, gepc(g, gepf(g, Y_c, st), j0), gepc(g, c, j0), j1 - j0, s0);
            slice_end(g, join);
        }
        loop_end(g, &ln);
    }
    join = slice_begin(g, first, end, 0); /* every slice's counts are in: the stats */
    sum = ci(g, 0);
    for (t = 0; t < nt; t++)
        sum = add(g, sum, LLVMBuildLoad2(g->b, g->i64, drs_cnt(g, kept, t), ""));
    drs_store_stats(g, H, stats, LLVMBuildLoad2(g->b, g->i64, cells, ""), sum);
    slice_end(g, join);
    LLVMBuildRetVoid(g->b);
}

/* <name>_k<i> (g->fn, lstmc_rt_lstm_drs's signature) on nt threads and its slices. */
void
emit_drs_mt(kg *g, const kp_call *kc, const char *fname, int nt)
{
    LLVMTypeRef kty = LLVMArrayType(g->i64, MT_MAX);
    LLVMValueRef extra[2];
    rec_dims dm;

    rec_dims_of(g, &kc->p.drs.p, kc->dyn, LLVMGetParam(g->fn, 0), 1, &dm);
    if (drs_entry(g, kc, &dm))
        return;
    extra[0] = entry_alloca(g, kty);
    LLVMBuildStore(g->b, LLVMConstNull(kty), extra[0]);
    extra[1] = entry_alloca(g, g->i64);
    LLVMBuildStore(g->b, ci(g, 0), extra[1]);
    emit_mt_ex(g, kc, fname, nt, 14, extra, 2, NULL, emit_drs_mt_body);
}

#endif /* LSTMC_HAVE_LLVM */
