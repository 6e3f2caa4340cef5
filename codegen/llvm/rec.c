/*
 * rec.c — KP_RNN_REC as LLVM code: the time loop over G2 of the Arm paper's schedule A+
 * (§IV, Algorithm 2 lines 6-17) for LSTM, GRU and RNN layers with packed weights, as
 * rt_rnn.c run_direction does it, every shape a constant: per step the recurrent product
 * h * U (emit_gemv, 1 x REC_NB register tiles) and the fused gate arithmetic.
 */
#include "llvm_impl.h"

#include <stddef.h>
#include <string.h>

#ifdef LSTMC_HAVE_LLVM

static void
gemv_seg(kg *g, LLVMValueRef col, int nv, int w, void *vctx)
{
    const rec_ctx *c = vctx;
    LLVMValueRef scol = c->sscale ? gepf(g, c->sscale, col) : NULL;
    const int64_t pfr = c->tune ? c->tune->v[TK_PREFETCH] : KG_PF_ROWS; /* rows ahead */
    const int dot = w > 1 ? rec_dot(g, c->tune, g->wfmt, c->panels) : 0;
    if (dot) /* a bf16 U in pairs against emit_gemv's pieces of a (tile.c) */
        emit_tile_dot(g, c->sa, c->hs, c->H, dot, gepw(g, c->sb, mul(g, col, ci(g, c->H))),
                      (int64_t)nv * w, c->H, c->sinit ? gepf(g, c->sinit, col) : NULL,
                      gepf(g, c->sout, col), nv, w, g->prefetch ? pfr * nv * w : 0);
    else if (c->panels) /* this segment's H x nv*w panel starts at H*col */
        emit_tile(g, c->sa, 0, gepw(g, c->sb, mul(g, col, ci(g, c->H))), (int64_t)nv * w, c->H,
                  c->sinit ? gepf(g, c->sinit, col) : NULL, 0, gepf(g, c->sout, col), 0, 1, nv, w,
                  g->prefetch ? pfr * nv * w : 0, scol);
    else /* row-major: the reduced-precision tiles prefetch pfr rows (pages) ahead */
        emit_tile(g, c->sa, 0, gepw(g, c->sb, col), c->sldb, c->H,
                  c->sinit ? gepf(g, c->sinit, col) : NULL, 0, gepf(g, c->sout, col), 0, 1, nv, w,
                  g->wfmt && g->prefetch ? pfr * c->sldb : 0, scol);
}

/* out[0..n) = (init ? init : 0) + a[0..H) * Rt[:, col0 .. col0+n) */
void
emit_gemv(kg *g, rec_ctx *c, LLVMValueRef a, int64_t col0, int64_t n, LLVMValueRef init,
          LLVMValueRef out)
{
    const int dot = rec_dot(g, c->tune, g->wfmt, c->panels);
    if (dot && c->hs_of != a) { /* the bf16 pieces of a, for every tile of this product */
        if (!c->hs)
            c->hs = entry_alloca(
                g, LLVMArrayType2(LLVMInt16TypeInContext(g->cx), (uint64_t)(3 * c->H + 2)));
        emit_bf16_split(g, a, c->H, dot, c->hs, c->H);
    }
    c->sa = a;
    c->sb = gepwc(g, c->Rt, c->panels ? c->H * col0 : col0);
    c->sscale = c->scale ? gepc(g, c->scale, col0) : NULL;
    c->sldb = c->GH;
    c->sinit = init;
    c->sout = out;
    for_col_segments_dir(g, n, c->tune ? c->tune->v[TK_TILE] : REC_NB, gemv_seg, c, c->flip);
}

/* lstm_update of units [j0, j1) from the pre-activations in c->gates: c->c in place, the new
 * h to hn and y (this step's Y row, or NULL). */
void
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
void
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
        hh = fadd(g, ldf(g, gepf(g, gepc(g, x, 2 * H), j)), fmul(g, ldf(g, gepf(g, rg, j)), hh));
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
void
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

/* --- the run's T and N (issue 21) ---------------------------------------------------- */

/* T and N of p as the kernel sees them: constants, or (dyn has KP_DYN_SEQ_LEN /
 * KP_DYN_BATCH) loaded from the params struct at pp, an lstmc_rt_rnn_params. check: return
 * LSTMC_RT_ERR_BAD_PARAMS from g->fn when a loaded one exceeds p's, the size compiled for. */
void
rec_dims_of(kg *g, const lstmc_rt_rnn_params *p, unsigned dyn, LLVMValueRef pp, int check,
            rec_dims *dm)
{
    dm->dyn_T = (dyn & KP_DYN_SEQ_LEN) != 0;
    dm->T = ci(g, p->seq_len);
    dm->N = ci(g, p->batch);
    if (dyn & KP_DYN_SEQ_LEN) {
        dm->T = ld_param_i64(g, pp, offsetof(lstmc_rt_rnn_params, seq_len));
        if (check)
            emit_dim_check(g, dm->T, p->seq_len);
    }
    if (dyn & KP_DYN_BATCH) {
        dm->N = ld_param_i64(g, pp, offsetof(lstmc_rt_rnn_params, batch));
        if (check)
            emit_dim_check(g, dm->N, p->batch);
    }
}

/* T * N, the rows of P per direction */
LLVMValueRef
rec_rows(kg *g, const rec_dims *dm)
{
    return mul(g, dm->T, dm->N);
}

/* lstmc_rt_row_at (lstmc_rt.h, the C copy of the layout formulas) built in IR: layout 0
 * t*N + n, layout 1 n*T + t. */
LLVMValueRef
rec_row_at(kg *g, const lstmc_rt_rnn_params *p, const rec_dims *dm, LLVMValueRef t, LLVMValueRef n)
{
    return p->layout ? add(g, mul(g, n, dm->T), t) : add(g, mul(g, t, dm->N), n);
}

/* lstmc_rt_y_at: layout 0 [T, D, N, H], layout 1 [N, T, D, H]. */
LLVMValueRef
rec_y_at(kg *g, const lstmc_rt_rnn_params *p, const rec_dims *dm, LLVMValueRef t, int32_t d,
         LLVMValueRef n)
{
    const int64_t D = p->n_dirs, H = p->hidden;

    return mul(g,
               p->layout ? add(g, mul(g, rec_row_at(g, p, dm, t, n), ci(g, D)), ci(g, d))
                         : add(g, mul(g, add(g, mul(g, t, ci(g, D)), ci(g, d)), dm->N), n),
               ci(g, H));
}

/* lstmc_rt_state_at: [D, N, H] or [N, D, H]. */
LLVMValueRef
rec_state_at(kg *g, const lstmc_rt_rnn_params *p, const rec_dims *dm, int32_t d, LLVMValueRef n)
{
    return mul(g,
               p->layout ? add(g, mul(g, n, ci(g, p->n_dirs)), ci(g, d))
                         : add(g, mul(g, ci(g, d), dm->N), n),
               ci(g, p->hidden));
}

/* Return LSTMC_RT_ERR_SEQ_LEN unless every entry of sl[0..N) is in [0, T] (i64 values),
 * before anything is written. */
void
emit_seq_len_check(kg *g, LLVMValueRef sl, LLVMValueRef N, LLVMValueRef T)
{
    kloop l;
    LLVMValueRef n = loop_begin(g, &l, ci(g, 0), N), s, bad;
    LLVMBasicBlockRef join;
    s = ld_i32(g, sl, n);
    bad = LLVMBuildOr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, s, ci(g, 0), ""),
                      LLVMBuildICmp(g->b, LLVMIntSGT, s, T, ""), "");
    join = if_begin(g, bad);
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_ERR_SEQ_LEN, 0));
    LLVMPositionBuilderAtEnd(g->b, join);
    loop_end(g, &l);
}

/* lstmc_rt_rnn_rec(p, P, r, rb, seq_lens, init_h, init_c, Peep, Y, Y_h, Y_c, scratch)
 * with packed weights: rt_rnn.c run_direction, every shape a constant but T and N where
 * kc->dyn has them (issue 21: read from p, the loops and offsets at run time). */
void
emit_rec(kg *g, const kp_call *kc)
{
    const lstmc_rt_rnn_params *p = &kc->p.rnn;
    const int64_t H = p->hidden, G = cell_gates(p->cell);
    const int64_t GH = G * H, D = p->n_dirs;
    const int nacts = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    LLVMValueRef P = LLVMGetParam(g->fn, 1), r = LLVMGetParam(g->fn, 2);
    LLVMValueRef rb = LLVMGetParam(g->fn, 3), sl = LLVMGetParam(g->fn, 4);
    LLVMValueRef init_h = kc->in[4] ? LLVMGetParam(g->fn, 5) : NULL;
    LLVMValueRef init_c =
        kc->in[5] && p->cell == LSTMC_RT_CELL_LSTM ? LLVMGetParam(g->fn, 6) : NULL;
    LLVMValueRef Peep = kc->in[6] && p->cell == LSTMC_RT_CELL_LSTM ? LLVMGetParam(g->fn, 7) : NULL;
    LLVMValueRef Y = kc->out[0] ? LLVMGetParam(g->fn, 8) : NULL;
    LLVMValueRef Y_h = kc->out[1] ? LLVMGetParam(g->fn, 9) : NULL;
    LLVMValueRef Y_c = kc->out[2] && p->cell == LSTMC_RT_CELL_LSTM ? LLVMGetParam(g->fn, 10) : NULL;
    LLVMValueRef scratch = LLVMGetParam(g->fn, 11);
    int has_sl = kc->in[3] != NULL;
    rec_dims dm;
    int32_t d;

    if (p->batch == 0) { /* N <= 0 at run time too */
        LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
        return;
    }
    rec_dims_of(g, p, kc->dyn, LLVMGetParam(g->fn, 0), 1, &dm);
    if (has_sl)
        emit_seq_len_check(g, sl, dm.N, dm.T);
    for (d = 0; d < D; d++) {
        const int rev = D == 2 ? d : p->reverse;
        LLVMValueRef Pp = d == 0 ? P : gepf(g, P, mul(g, rec_rows(g, &dm), ci(g, d * GH)));
        LLVMValueRef n, s, st, t, x, y, s0, row;
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
        c.tune = &kc->tune;

        n = loop_begin(g, &ln, ci(g, 0), dm.N);
        s = has_sl ? ld_i32(g, sl, n) : dm.T;
        st = rec_state_at(g, p, &dm, d, n);
        emit_copy(g, c.h, init_h ? gepf(g, init_h, st) : NULL, H, NULL);
        if (p->cell == LSTMC_RT_CELL_LSTM)
            emit_copy(g, c.c, init_c ? gepf(g, init_c, st) : NULL, H, NULL);

        /* steps: t = rev ? s-1-step : step */
        t = loop_begin(g, &ls, ci(g, 0), s);
        if (kc->tune.v[TK_ALTERNATE]) /* U backwards on odd steps (kparams.c) */
            c.flip = LLVMBuildTrunc(g->b, t, g->i1, "");
        if (rev)
            t = LLVMBuildSub(g->b, LLVMBuildSub(g->b, s, ci(g, 1), ""), t, "");
        row = rec_row_at(g, p, &dm, t, n);
        x = gepf(g, Pp, mul(g, row, ci(g, GH)));
        y = Y ? gepf(g, Y, rec_y_at(g, p, &dm, t, d, n)) : NULL;
        if (p->cell == LSTMC_RT_CELL_LSTM)
            emit_lstm_step(g, &c, x, y);
        else if (p->cell == LSTMC_RT_CELL_GRU)
            emit_gru_step(g, &c, x, y);
        else
            emit_rnn_step(g, &c, x, y);
        loop_end(g, &ls);

        if (Y && has_sl) { /* rows t >= s are zero */
            t = loop_begin(g, &lz, s, dm.T);
            emit_copy(g, gepf(g, Y, rec_y_at(g, p, &dm, t, d, n)), NULL, H, NULL);
            loop_end(g, &lz);
        }
        /* Y_h / Y_c: the state at the sequence's own end, zero when s == 0 */
        s0 = has_sl || dm.dyn_T ? LLVMBuildICmp(g->b, LLVMIntEQ, s, ci(g, 0), "") : NULL;
        if (Y_h)
            emit_copy(g, gepf(g, Y_h, st), c.h, H, s0);
        if (Y_c)
            emit_copy(g, gepf(g, Y_c, st), c.c, H, s0);
        loop_end(g, &ln);
    }
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
}

#endif /* LSTMC_HAVE_LLVM */
