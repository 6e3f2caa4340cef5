/*
 * rec_mt.c — the LLVM kernels on several cores of the runtime pool (rt_pool.c): the time loop
 * of an LSTM layer (KP_RNN_REC) sliced by hidden units with a barrier per step, and the input
 * projection (KP_RNN_PROJ) sliced by columns; the worker function and lstmc_rt_pool_run
 * (emit_mt) that wave.c uses too.
 */
#include "llvm_impl.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#ifdef LSTMC_HAVE_LLVM

/*
 * The time loop of an LSTM layer split across nt threads of the runtime pool (rt_pool.c):
 * slice t owns the hidden units [j0, j1) (mt_slice) and, at every step, computes the four
 * gate columns of its units (h * U[:, q*H + j0 .. q*H + j1) for each gate q, the rows of U
 * it reads are the same at every step: they stay in its core's L2), updates c and h of its
 * units and meets the others at lstmc_rt_pool_barrier. h is double-buffered (the scratch's
 * h and tmp: step i reads one and writes the other), so the slices of a step never wait for
 * each other inside it and may also run one after the other on one thread, which is what
 * lstmc_rt_pool_run does when the pool has fewer threads (bare metal, pthread_create failed).
 *   <name>_k<i>(the rnn_rec arguments): checks seq_lens, then
 *       lstmc_rt_pool_run(<name>_k<i>_w, the arguments, nt)
 *   <name>_k<i>_w(args, first, end): slices [first, end).
 * U is in panels cut by the slices (rec_ranges), so each thread's part is contiguous.
 */
/* Units (or columns) [j0, j1) of slice t of nt: cut at multiples of vl (a vector width, a
 * tile) when every slice then gets at least two of them, else at single units. */
void
mt_slice(int64_t H, int nt, int vl, int t, int64_t *j0, int64_t *j1)
{
    const int64_t al = H >= 2LL * nt * vl ? vl : 1;
    *j0 = H * t / nt / al * al;
    *j1 = t + 1 == nt ? H : H * (t + 1) / nt / al * al;
}

void
rec_unit_slice(int64_t H, int nt, int vl, int t, int64_t *j0, int64_t *j1)
{
    const int64_t al = vl / 2;
    if (vl < 16 || H < 2LL * nt * vl) {
        mt_slice(H, nt, vl, t, j0, j1);
        return;
    }
    *j0 = (H * t / nt + al / 2) / al * al;
    *j1 = t + 1 == nt ? H : (H * (t + 1) / nt + al / 2) / al * al;
}

/* if (first <= t && t < end) { ...: returns the block after it */
LLVMBasicBlockRef
slice_begin(kg *g, LLVMValueRef first, LLVMValueRef end, int t)
{
    LLVMValueRef tv = LLVMConstInt(g->i32, (unsigned long long)t, 0);
    return if_begin(g, LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntSLE, first, tv, ""),
                                    LLVMBuildICmp(g->b, LLVMIntSLT, tv, end, ""), ""));
}

void
slice_end(kg *g, LLVMBasicBlockRef join)
{
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
}

void
emit_barrier(kg *g)
{
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(g->cx), NULL, 0, 0);
    LLVMValueRef f = LLVMGetNamedFunction(g->m, "lstmc_rt_pool_barrier");
    if (!f)
        f = LLVMAddFunction(g->m, "lstmc_rt_pool_barrier", fty);
    LLVMBuildCall2(g->b, fty, f, NULL, 0, "");
}

/* dst[j0..j1) = src ? src[j0..j1) : 0, zeroed where zero (an i1) holds. */
static void
emit_copy_units(kg *g, LLVMValueRef dst, LLVMValueRef src, int64_t j0, int64_t j1,
                LLVMValueRef zero)
{
    emit_copy(g, gepc(g, dst, j0), src ? gepc(g, src, j0) : NULL, j1 - j0, zero);
}

/* The body of <name>_k<i>_w (g->fn): params (args, first, end). */
static void
emit_rec_mt_body(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a, LLVMValueRef first,
                 LLVMValueRef end)
{
    const lstmc_rt_rnn_params *p = &kc->p.rnn;
    const int64_t H = p->hidden, GH = 4 * H, D = p->n_dirs;
    LLVMValueRef P, r, sl, init_h, init_c, Peep, Y, Y_h, Y_c, scratch;
    rec_dims dm;
    int t;
    int32_t d;

    P = a[1];
    r = a[2];
    sl = kc->in[3] ? a[4] : NULL;
    init_h = kc->in[4] ? a[5] : NULL;
    init_c = kc->in[5] ? a[6] : NULL;
    Peep = kc->in[6] ? a[7] : NULL;
    Y = kc->out[0] ? a[8] : NULL;
    Y_h = kc->out[1] ? a[9] : NULL;
    Y_c = kc->out[2] ? a[10] : NULL;
    scratch = a[11];
    rec_dims_of(g, p, kc->dyn, a[0], 0, &dm); /* checked by <name>_k<i> (emit_rec_mt) */
    for (d = 0; d < D; d++) {
        const int rev = D == 2 ? d : p->reverse;
        LLVMValueRef Pp = d == 0 ? P : gepf(g, P, mul(g, rec_rows(g, &dm), ci(g, d * GH)));
        LLVMValueRef hA = scratch, hB = gepc(g, scratch, 6 * H);
        LLVMValueRef n, s, st, i, tt, row, x, y, odd, hc, hn, s0;
        LLVMBasicBlockRef join;
        rec_ctx c;
        kloop ln, ls, lz;

        memset(&c, 0, sizeof c);
        c.p = p;
        c.act = &p->act[d * 3];
        c.H = H;
        c.GH = GH;
        c.Rt = gepc(g, r, d * H * GH);
        if (g->wfmt) /* U in a reduced-precision format (issue 12), the same panels */
            lowp_dir(g, r, D, H, GH, d, &c.Rt, &c.scale);
        c.peep = Peep ? gepc(g, Peep, d * 3 * H) : NULL;
        c.c = gepc(g, scratch, H);
        c.gates = gepc(g, scratch, 2 * H);
        c.panels = 1;
        c.tune = &kc->tune;

        n = loop_begin(g, &ln, ci(g, 0), dm.N);
        s = sl ? ld_i32(g, sl, n) : dm.T;
        st = rec_state_at(g, p, &dm, d, n);
        for (t = 0; t < nt; t++) {
            int64_t j0, j1;
            rec_unit_slice(H, nt, g->vl, t, &j0, &j1);
            join = slice_begin(g, first, end, t);
            emit_copy_units(g, hA, init_h ? gepf(g, init_h, st) : NULL, j0, j1, NULL);
            emit_copy_units(g, c.c, init_c ? gepf(g, init_c, st) : NULL, j0, j1, NULL);
            slice_end(g, join);
        }
        emit_barrier(g); /* the whole initial h before anyone reads it */

        i = loop_begin(g, &ls, ci(g, 0), s);
        tt = rev ? LLVMBuildSub(g->b, LLVMBuildSub(g->b, s, ci(g, 1), ""), i, "") : i;
        row = rec_row_at(g, p, &dm, tt, n);
        x = gepf(g, Pp, mul(g, row, ci(g, GH)));
        y = Y ? gepf(g, Y, rec_y_at(g, p, &dm, tt, d, n)) : NULL;
        odd = LLVMBuildTrunc(g->b, i, g->i1, "");
        c.flip = kc->tune.v[TK_ALTERNATE] ? odd : NULL; /* U backwards on odd steps */
        hc = sel(g, odd, hB, hA);
        hn = sel(g, odd, hA, hB);
        for (t = 0; t < nt; t++) {
            int64_t j0, j1, q;
            rec_unit_slice(H, nt, g->vl, t, &j0, &j1);
            if (j1 == j0)
                continue;
            join = slice_begin(g, first, end, t);
            for (q = 0; q < 4; q++) { /* a bf16 U's h cut into pieces once, by the first */
                emit_gemv(g, &c, hc, q * H + j0, j1 - j0, gepc(g, x, q * H + j0),
                          gepc(g, c.gates, q * H + j0));
                c.hs_of = hc;
            }
            c.hs_of = NULL; /* the next slice's code runs on another thread */
            emit_lstm_units(g, &c, j0, j1, hn, y);
            slice_end(g, join);
        }
        emit_barrier(g); /* this step's h complete before the next step reads it */
        loop_end(g, &ls);

        /* after s steps the state is in hA when s is even, in hB when odd */
        hc = sel(g, LLVMBuildTrunc(g->b, s, g->i1, ""), hB, hA);
        s0 = sl || dm.dyn_T ? LLVMBuildICmp(g->b, LLVMIntEQ, s, ci(g, 0), "") : NULL;
        for (t = 0; t < nt; t++) {
            int64_t j0, j1;
            rec_unit_slice(H, nt, g->vl, t, &j0, &j1);
            if (j1 == j0)
                continue;
            join = slice_begin(g, first, end, t);
            if (Y && sl) { /* rows t >= s are zero */
                tt = loop_begin(g, &lz, s, dm.T);
                emit_copy_units(g, gepf(g, Y, rec_y_at(g, p, &dm, tt, d, n)), NULL, j0, j1, NULL);
                loop_end(g, &lz);
            }
            if (Y_h)
                emit_copy_units(g, gepf(g, Y_h, st), hc, j0, j1, s0);
            if (Y_c)
                emit_copy_units(g, gepf(g, Y_c, st), c.c, j0, j1, s0);
            slice_end(g, join);
        }
        loop_end(g, &ln);
    }
    LLVMBuildRetVoid(g->b);
}

/* <fname>_w: void (ptr args, i32 first, i32 end), internal: a multi-core kernel's slices. */
LLVMValueRef
mt_worker_decl(kg *g, const char *fname)
{
    LLVMTypeRef wp[3];
    LLVMValueRef w;
    char wname[300];

    wp[0] = g->ptr;
    wp[1] = g->i32;
    wp[2] = g->i32;
    snprintf(wname, sizeof wname, "%s_w", fname);
    w = LLVMAddFunction(g->m, wname, LLVMFunctionType(LLVMVoidTypeInContext(g->cx), wp, 3, 0));
    LLVMSetLinkage(w, LLVMInternalLinkage);
    return w;
}

/* lstmc_rt_pool_run(w, ctx, nt) */
void
emit_pool_run(kg *g, LLVMValueRef w, LLVMValueRef ctx, int nt)
{
    LLVMTypeRef rty[3], rfty;
    LLVMValueRef run, cargs[3];

    rty[0] = g->ptr;
    rty[1] = g->ptr;
    rty[2] = g->i32;
    rfty = LLVMFunctionType(LLVMVoidTypeInContext(g->cx), rty, 3, 0);
    run = LLVMGetNamedFunction(g->m, "lstmc_rt_pool_run");
    if (!run)
        run = LLVMAddFunction(g->m, "lstmc_rt_pool_run", rfty);
    cargs[0] = w;
    cargs[1] = ctx;
    cargs[2] = LLVMConstInt(g->i32, (unsigned long long)nt, 0);
    LLVMBuildCall2(g->b, rfty, run, cargs, 3, "");
}

/* The rest of <name>_k<i> (g->fn, its first nargs arguments, then the n_extra values extra
 * of g->fn, pointers or floats): lstmc_rt_pool_run of its slices <name>_k<i>_w, whose body
 * emits with a[] = those values in that order, then return the i32 at status (an alloca of
 * g->fn the slices may set), or LSTMC_RT_OK when status is NULL. */
void
emit_mt_ex(kg *g, const kp_call *kc, const char *fname, int nt, unsigned nargs,
           const LLVMValueRef *extra, unsigned n_extra, LLVMValueRef status, mt_body_fn emit)
{
    LLVMValueRef main_fn = g->fn, w, args, a[MT_MAX_ARGS];
    LLVMTypeRef ty[MT_MAX_ARGS];
    LLVMBasicBlockRef main_alloca = g->alloca_bb, body;
    LLVMBuilderRef saved_b = g->b;
    const unsigned n = nargs + n_extra;
    unsigned k;

    assert(n <= MT_MAX_ARGS);                         /* the DRS tissue kernel's 20 + 6 the most */
    args = entry_alloca(g, LLVMArrayType(g->ptr, n)); /* one 8-byte slot per value */
    for (k = 0; k < n; k++) {
        LLVMValueRef idx = ci(g, k),
                     v = k < nargs ? LLVMGetParam(g->fn, (unsigned)k) : extra[k - nargs];
        ty[k] = LLVMTypeOf(v);
        LLVMBuildStore(g->b, v, LLVMBuildInBoundsGEP2(g->b, g->ptr, args, &idx, 1, ""));
    }
    w = mt_worker_decl(g, fname);
    if (g->serial) { /* every slice here, one after the other: w(args, 0, nt) */
        LLVMTypeRef wp[3];
        LLVMValueRef wa[3];
        wp[0] = g->ptr;
        wp[1] = wp[2] = g->i32;
        wa[0] = args;
        wa[1] = LLVMConstInt(g->i32, 0, 0);
        wa[2] = LLVMConstInt(g->i32, (unsigned long long)nt, 0);
        LLVMBuildCall2(g->b, LLVMFunctionType(LLVMVoidTypeInContext(g->cx), wp, 3, 0), w, wa, 3,
                       "");
    } else {
        emit_pool_run(g, w, args, nt);
    }
    LLVMBuildRet(g->b, status ? LLVMBuildLoad2(g->b, g->i32, status, "")
                              : LLVMConstInt(g->i32, LSTMC_RT_OK, 0));

    /* the slices' function, with its own entry block and builder */
    g->fn = w;
    g->alloca_bb = LLVMAppendBasicBlockInContext(g->cx, w, "entry");
    body = LLVMAppendBasicBlockInContext(g->cx, w, "start");
    g->b = LLVMCreateBuilderInContext(g->cx);
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMPositionBuilderAtEnd(g->b, body);
    for (k = 0; k < n; k++) {
        LLVMValueRef idx = ci(g, k), pa = LLVMGetParam(w, 0);
        a[k] =
            LLVMBuildLoad2(g->b, ty[k], LLVMBuildInBoundsGEP2(g->b, g->ptr, pa, &idx, 1, ""), "");
    }
    emit(g, kc, nt, a, LLVMGetParam(w, 1), LLVMGetParam(w, 2));
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMBuildBr(g->ab, body);
    LLVMDisposeBuilder(g->b);
    g->b = saved_b;
    g->fn = main_fn;
    g->alloca_bb = main_alloca;
}

/* emit_mt_ex with the first nargs arguments of g->fn and nothing else */
void
emit_mt(kg *g, const kp_call *kc, const char *fname, int nt, unsigned nargs, mt_body_fn emit)
{
    emit_mt_ex(g, kc, fname, nt, nargs, NULL, 0, NULL, emit);
}

/* <name>_k<i> (g->fn, the rnn_rec signature) and its slices <name>_k<i>_w. */
void
emit_rec_mt(kg *g, const kp_call *kc, const char *fname, int nt)
{
    rec_dims dm;
    rec_dims_of(g, &kc->p.rnn, kc->dyn, LLVMGetParam(g->fn, 0), 1, &dm);
    if (kc->in[3])
        emit_seq_len_check(g, LLVMGetParam(g->fn, 4), dm.N, dm.T);
    emit_mt(g, kc, fname, nt, 12, emit_rec_mt_body);
}

/* The slices of lstmc_rt_rnn_proj: slice t computes the columns [c0, c1) of P (mt_slice of
 * GH in whole tiles, kc->tune), for every row and direction; no barrier. */
void
emit_proj_mt_body(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a, LLVMValueRef first,
                  LLVMValueRef end)
{
    const lstmc_rt_rnn_proj_params *p = &kc->p.proj;
    const int64_t GH = cell_gates(p->cell) * p->hidden, I = p->input_size;
    LLVMValueRef rowsv = proj_rows(g, kc, a[0], 0); /* checked by <name>_k<i> (emit_call) */
    int32_t d;
    int t;

    for (t = 0; t < nt; t++) {
        LLVMBasicBlockRef join;
        int64_t c0, c1;
        mt_slice(GH, nt, kc->tune.v[TK_TILE] * g->vl, t, &c0, &c1);
        if (c1 == c0)
            continue;
        join = slice_begin(g, first, end, t);
        for (d = 0; d < p->n_dirs; d++) {
            proj_ctx pc;
            pc.rows = p->rows;
            pc.rowsv = rowsv;
            pc.I = I;
            pc.GH = GH;
            pc.X = a[1];
            pc.panels = g->panels; /* the range's panels start at I*c0 (rec_relayout) */
            pc.wd = gepc(g, a[2], d * I * GH);
            pc.scale = NULL;
            if (g->wfmt) /* reduced precision: the direction's values (and int8's scales) */
                lowp_dir(g, a[2], p->n_dirs, I, GH, d, &pc.wd, &pc.scale);
            pc.wd = gepwc(g, pc.wd, g->panels ? I * c0 : c0);
            pc.scale = pc.scale ? gepc(g, pc.scale, c0) : NULL;
            pc.bd = kc->in[2] ? gepc(g, a[3], d * GH + c0) : NULL;
            pc.Pd = rowsv && d > 0 ? gepf(g, gepc(g, a[4], c0), mul(g, rowsv, ci(g, d * GH)))
                                   : gepc(g, a[4], d * p->rows * GH + c0);
            pc.tune = &kc->tune;
            pc.hs = NULL;
            for_col_segments(g, c1 - c0, kc->tune.v[TK_TILE], proj_seg, &pc);
        }
        slice_end(g, join);
    }
    LLVMBuildRetVoid(g->b);
}

#endif /* LSTMC_HAVE_LLVM */
