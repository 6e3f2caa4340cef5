/*
 * wave.c — stacked LSTM layers as a wavefront in LLVM code: one kernel per wave group of
 * compiler/kprog/schedule.c (issue 4), its stages on the threads of the runtime pool.
 */
#include "llvm_impl.h"

#include <stdio.h>
#include <string.h>

#ifdef LSTMC_HAVE_LLVM

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
    const kp_tuning *ptune;             /* the projection's tile and prefetch (kparams.c) */
} wave_layer;

/* slot k of call i (a pointer) from the argument array a */
static LLVMValueRef
wave_arg(kg *g, const kprog *kp, const kp_wave *w, LLVMValueRef a, int i, int k)
{
    LLVMValueRef idx = ci(g, kp_wave_slot(kp, w, i) + k);
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
    L->c.tune = &r->tune;
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
        L->ptune = &pj->tune;
        L->bias = pj->in[2] ? wave_arg(g, kp, w, a, i - 1, 2) : NULL;
        if (kp->calls[i - 2].kind == KP_COPY) {
            L->Xsrc = wave_arg(g, kp, w, a, i - 2, 0);
            L->copy_n = p->batch * L->I;
        }
    }
}

/* Steps [t0, t0 + len) of layer L (t0 an i64 value; len a constant, or at most it when
 * lenv, the run's count, is given): the input rows and their projection first (l > 0), then
 * the steps of every batch row. Nv: the run's batch (issue 21), or NULL for p->batch. */
static void
wave_layer_chunk(kg *g, wave_layer *L, int l, LLVMValueRef t0, int64_t len, LLVMValueRef lenv,
                 LLVMValueRef Nv)
{
    const lstmc_rt_rnn_params *p = L->c.p;
    const int64_t H = p->hidden, GH = 4 * H, N = p->batch;
    LLVMValueRef Nval = Nv ? Nv : ci(g, N), lenval = lenv ? lenv : ci(g, len);
    LLVMValueRef r0 = mul(g, t0, Nval), n, t, row;
    kloop ln, lt;

    if (l > 0) {
        proj_ctx pc;
        memset(&pc, 0, sizeof pc);
        if (L->copy_n && !Nv && !lenv)
            emit_copy(g, gepf(g, L->X, mul(g, t0, ci(g, L->copy_n))),
                      gepf(g, L->Xsrc, mul(g, t0, ci(g, L->copy_n))), len * L->copy_n, NULL);
        else if (L->copy_n) { /* the run's rows of the chunk, I floats each */
            kloop lc;
            LLVMValueRef r = loop_begin(g, &lc, r0, add(g, r0, mul(g, lenval, Nval)));
            emit_copy(g, gepf(g, L->X, mul(g, r, ci(g, L->I))),
                      gepf(g, L->Xsrc, mul(g, r, ci(g, L->I))), L->I, NULL);
            loop_end(g, &lc);
        }
        pc.rows = len * N;
        pc.rowsv = Nv || lenv ? mul(g, lenval, Nval) : NULL;
        pc.I = L->I;
        pc.GH = GH;
        pc.X = gepf(g, L->X, mul(g, r0, ci(g, L->I)));
        pc.wd = L->Wt;
        pc.panels = L->wpanels;
        pc.tune = L->ptune;
        pc.hs = NULL;
        pc.bd = L->bias;
        pc.Pd = gepf(g, L->P, mul(g, r0, ci(g, GH)));
        for_col_segments(g, GH, L->ptune->v[TK_TILE], proj_seg, &pc);
    }
    n = loop_begin(g, &ln, ci(g, 0), Nval);
    L->c.h = gepf(g, L->state, mul(g, n, ci(g, 2 * H)));
    L->c.c = gepc(g, L->c.h, H);
    t = loop_begin(g, &lt, t0, add(g, t0, lenval));
    L->c.flip = L->c.tune->v[TK_ALTERNATE] ? LLVMBuildTrunc(g->b, t, g->i1, "") : NULL;
    row = add(g, mul(g, t, Nval), n); /* layout 0, one direction: Y row = P row */
    emit_lstm_step(g, &L->c, gepf(g, L->P, mul(g, row, ci(g, GH))),
                   L->Y ? gepf(g, L->Y, mul(g, row, ci(g, H))) : NULL);
    loop_end(g, &lt);
    loop_end(g, &ln);
}

/* One chunk of stage q: steps [t0, t0 + len) (lenv: the run's count, at most len). */
static void
wave_chunk(kg *g, const kp_wave *w, wave_layer *L, int q, LLVMValueRef t0, int64_t len,
           LLVMValueRef lenv, LLVMValueRef Nv)
{
    const int l0 = q ? w->stage_end[q - 1] : 0;
    LLVMValueRef t1 = add(g, t0, lenv ? lenv : ci(g, len));
    int l;

    if (q > 0)
        wave_rt_call(g, "lstmc_rt_wave_wait", LLVMConstInt(g->i32, (unsigned)(q - 1), 0), t1);
    for (l = l0; l < w->stage_end[q]; l++)
        wave_layer_chunk(g, &L[l], l, t0, len, lenv, Nv);
    if (q + 1 < w->stages)
        wave_rt_call(g, "lstmc_rt_wave_post", LLVMConstInt(g->i32, (unsigned)q, 0), t1);
}

/* Issue 21: 1 when the group's sizes vary with the run (kp_call.dyn): its kernel then reads
 * T and N from the slot after every buffer (kp_wave_slot of w->last + 1), an int64_t[2] the
 * host passes (codegen/c/schedule.c put_wave_call). */
static int
wave_dyn(const kprog *kp, const kp_wave *w)
{
    int i;
    for (i = w->first; i <= w->last; i++)
        if (kp->calls[i].dyn)
            return 1;
    return 0;
}

/* The run's T (k = 0) or N (k = 1) from the dims slot of a. */
static LLVMValueRef
wave_dim(kg *g, const kprog *kp, const kp_wave *w, LLVMValueRef a, int k)
{
    LLVMValueRef idx = ci(g, kp_wave_slot(kp, w, w->last + 1));
    LLVMValueRef tn =
        LLVMBuildLoad2(g->b, g->ptr, LLVMBuildInBoundsGEP2(g->b, g->ptr, a, &idx, 1, ""), "");
    return ld_param_i64(g, tn, (size_t)k * sizeof(int64_t));
}

/* The whole of stage q (inside the worker function, a = the argument array). */
static void
wave_stage(kg *g, const kprog *kp, const kp_wave *w, LLVMValueRef a, int q, const int *panels)
{
    const int l0 = q ? w->stage_end[q - 1] : 0, l1 = w->stage_end[q];
    const int64_t T = kp->calls[w->rec[0]].p.rnn.seq_len, C = w->chunk;
    LLVMValueRef Tv = wave_dyn(kp, w) ? wave_dim(g, kp, w, a, 0) : NULL;
    LLVMValueRef Nv = wave_dyn(kp, w) ? wave_dim(g, kp, w, a, 1) : NULL;
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
        n = loop_begin(g, &ln, ci(g, 0), Nv ? Nv : ci(g, r->p.rnn.batch)); /* [1, N, H] */
        h = gepf(g, L[l].state, mul(g, n, ci(g, 2 * H)));
        emit_copy(g, h, init_h ? gepf(g, init_h, mul(g, n, ci(g, H))) : NULL, H, NULL);
        emit_copy(g, gepc(g, h, H), init_c ? gepf(g, init_c, mul(g, n, ci(g, H))) : NULL, H, NULL);
        loop_end(g, &ln);
    }
    if (Tv) { /* the run's T: its full chunks, then the rest (issue 21) */
        kloop lk;
        LLVMValueRef nk = LLVMBuildUDiv(g->b, Tv, ci(g, C), ""), rest;
        LLVMBasicBlockRef join;
        LLVMValueRef k = loop_begin(g, &lk, ci(g, 0), nk);
        wave_chunk(g, w, L, q, mul(g, k, ci(g, C)), C, NULL, Nv);
        loop_end(g, &lk);
        rest = LLVMBuildSub(g->b, Tv, mul(g, nk, ci(g, C)), "");
        join = if_begin(g, LLVMBuildICmp(g->b, LLVMIntSGT, rest, ci(g, 0), ""));
        wave_chunk(g, w, L, q, mul(g, nk, ci(g, C)), C, rest, Nv);
        LLVMBuildBr(g->b, join);
        LLVMPositionBuilderAtEnd(g->b, join);
    } else {
        if (T / C > 0) {
            kloop lk;
            LLVMValueRef k = loop_begin(g, &lk, ci(g, 0), ci(g, T / C));
            wave_chunk(g, w, L, q, mul(g, k, ci(g, C)), C, NULL, NULL);
            loop_end(g, &lk);
        }
        if (T % C)
            wave_chunk(g, w, L, q, ci(g, T / C * C), T % C, NULL, NULL);
    }
    for (l = l0; l < l1; l++) { /* Y_h / Y_c: the state after the last step */
        const int64_t H = L[l].c.H;
        LLVMValueRef n, h;
        kloop ln;
        if (!L[l].Y_h && !L[l].Y_c)
            continue;
        n = loop_begin(g, &ln, ci(g, 0), Nv ? Nv : ci(g, L[l].c.p->batch));
        h = gepf(g, L[l].state, mul(g, n, ci(g, 2 * H)));
        if (L[l].Y_h)
            emit_copy(g, gepf(g, L[l].Y_h, mul(g, n, ci(g, H))), h, H, NULL);
        if (L[l].Y_c)
            emit_copy(g, gepf(g, L[l].Y_c, mul(g, n, ci(g, H))), gepc(g, h, H), H, NULL);
        loop_end(g, &ln);
    }
}

/* <name>_wv<w->first> and its worker; panels[l]: bit 0, layer l's U is in (1-thread) panels;
 * bit 1, its W is. */
void
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
    if (wave_dyn(kp, w)) { /* the run's T and N: no more than compiled (issue 21) */
        emit_dim_check(g, wave_dim(g, kp, w, LLVMGetParam(main_fn, 0), 0),
                       kp->calls[w->rec[0]].p.rnn.seq_len);
        emit_dim_check(g, wave_dim(g, kp, w, LLVMGetParam(main_fn, 0), 1),
                       kp->calls[w->rec[0]].p.rnn.batch);
    }
    wave_rt_call(g, "lstmc_rt_wave_reset", NULL, NULL);
    emit_pool_run(g, worker, LLVMGetParam(main_fn, 0), w->threads);
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_OK, 0));
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMBuildBr(g->ab, body);

    /* the worker: stages [first, end) */
    body = fn_begin(g, worker);
    g->wfmt = 0;
    for (q = 0; q < w->stages; q++) {
        LLVMBasicBlockRef join =
            slice_begin(g, LLVMGetParam(worker, 1), LLVMGetParam(worker, 2), q);
        wave_stage(g, kp, w, LLVMGetParam(worker, 0), q, panels);
        slice_end(g, join);
    }
    LLVMBuildRetVoid(g->b);
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMBuildBr(g->ab, body);
    g->fn = main_fn;
}

#endif /* LSTMC_HAVE_LLVM */
