/*
 * wave.c — stacked LSTM layers as a wavefront across threads (issue 4): which layers, on
 * which threads, in which chunks of time steps.
 *
 * A stack is a run of consecutive calls REC_0 [COPY] PROJ_1 REC_1 [COPY] PROJ_2 REC_2 ...
 * where each PROJ reads the Y of the REC before it (through the COPY of a Squeeze/Reshape)
 * and each REC the P of its PROJ. Run as a pipeline (llvm/wave.c emit_wave), thread q owns
 * a group of consecutive layers, and the layer after a group boundary runs behind the one
 * before it by a chunk of C time steps: thread q + 1 waits for step t1 of thread q's last
 * layer (lstmc_rt_wave_wait), projects the chunk's rows through its own W (the G1 GEMM of
 * the chunk) and runs the chunk's steps. The threads meet once per chunk instead of once per
 * step (split-H, emit_rec_mt), and each core reads only its own layers' U at every step.
 * Every layer runs exactly the arithmetic of the 1-thread kernels (same tiles, same U
 * panels, same summation order), so the results are bit-identical to --threads=1.
 *
 * What it takes: forward LSTM layers (one direction, not reversed, layout 0, no
 * sequence_lens, fp32 weights), all LLVM kernels; anything else stays as it was (split-H or
 * one thread).
 */
#include "arena.h"
#include "ir.h"
#include "kprog.h"
#include "target.h"

#include <string.h>

/* A REC call the wavefront kernel can run: see the top of the file. */
static int
wave_rec_ok(const kp_call *c, kp_handles_fn handles)
{
    const lstmc_rt_rnn_params *p = &c->p.rnn;
    /* issue 21: a run-time T or N (c->dyn) is read by the layer's own kernel, not by the
     * wavefront's, whose chunks are constants */
    return c->kind == KP_RNN_REC && !c->wfmt && !c->dyn && handles(c) &&
           p->cell == LSTMC_RT_CELL_LSTM && p->packed == 1 && p->n_dirs == 1 && !p->reverse &&
           p->layout == 0 && !c->in[3] && p->batch >= 1 && p->seq_len >= 2 && c->scratch_bytes > 0;
}

/* The PROJ call feeding layer input x (the Y of the layer before) with rows rows. */
static int
wave_proj_ok(const kp_call *c, const ir_tensor *x, int64_t rows, kp_handles_fn handles)
{
    const lstmc_rt_rnn_proj_params *p = &c->p.proj;
    return c->kind == KP_RNN_PROJ && !c->wfmt && !c->dyn && handles(c) && c->in[0] == x &&
           p->cell == LSTMC_RT_CELL_LSTM && p->packed == 1 && p->n_dirs == 1 && p->rows == rows &&
           c->out[0];
}

/* 1 when no input of calls [first, last] other than the links of the chain is written by a
 * call of the same range: the pipeline runs them at the same time. */
static int
wave_independent(const kprog *kp, int first, int last)
{
    int i, j, k, m;
    for (i = first; i <= last; i++) {
        const kp_call *c = &kp->calls[i];
        for (j = 0; j < c->n_in; j++) {
            const ir_tensor *t = c->in[j];
            if (!t || j == 0) /* in[0] of COPY, PROJ, REC: the chain link */
                continue;
            for (k = first; k <= last; k++)
                for (m = 0; m < kp->calls[k].n_out; m++)
                    if (kp->calls[k].out[m] == t)
                        return 0;
        }
    }
    return 1;
}

/* 1 when the U of REC call i is read by no other call except as the U of another REC call
 * (one weight shared by the branches of a siamese encoder, passes/dedup.c): the wavefront
 * lays it out for one thread (rec_relayout), and the backend keeps it in C order unless
 * every call sharing it wants the same layout (llvm/panels.c rec_pack_ok). */
static int
wave_u_private(const kprog *kp, int i)
{
    const ir_tensor *u = kp->calls[i].in[1];
    int k, j;
    for (k = 0; k < kp->n_calls; k++)
        for (j = 0; k != i && j < kp->calls[k].n_in; j++)
            if (kp->calls[k].in[j] == u && (j != 1 || kp->calls[k].kind != KP_RNN_REC))
                return 0;
    return 1;
}

/* The stack starting at REC call i: fills w->first/last/n_layers/rec; 0 when it has fewer
 * than two layers. */
static int
wave_find(const kprog *kp, int i, kp_wave *w, kp_handles_fn handles)
{
    const kp_call *r = &kp->calls[i];
    const int64_t T = r->p.rnn.seq_len, N = r->p.rnn.batch;
    int j = i + 1;

    memset(w, 0, sizeof *w);
    w->first = w->last = i;
    w->rec[0] = i;
    w->n_layers = 1;
    while (w->n_layers < KP_WAVE_MAX && r->out[0]) {
        const ir_tensor *x = r->out[0];
        int k = j;
        const kp_call *c = k < kp->n_calls ? &kp->calls[k] : NULL;
        if (c && c->kind == KP_COPY && c->in[0] == x &&
            c->p.copy.n_bytes == T * N * r->p.rnn.hidden * (int64_t)sizeof(float)) {
            x = c->out[0];
            c = ++k < kp->n_calls ? &kp->calls[k] : NULL;
        }
        if (!c || !wave_proj_ok(c, x, T * N, handles) || k + 1 >= kp->n_calls)
            break;
        c = &kp->calls[k + 1];
        if (!wave_rec_ok(c, handles) || !wave_u_private(kp, k + 1) ||
            c->in[0] != kp->calls[k].out[0] || c->p.rnn.seq_len != T || c->p.rnn.batch != N ||
            kp->calls[k].p.proj.hidden != c->p.rnn.hidden)
            break;
        r = c;
        j = k + 2;
        w->rec[w->n_layers++] = k + 1;
        w->last = k + 1;
    }
    while (w->n_layers >= 2 && !wave_independent(kp, w->first, w->last)) {
        w->n_layers--; /* drop layers from the end until the rest is a clean pipeline */
        w->last = w->rec[w->n_layers - 1];
    }
    return w->n_layers >= 2;
}

/* Cost of layer l of w per time step, in multiply-adds weighted by how fast they run at
 * batch 1: the recurrent product (a matrix-vector product: U read once per step) at 3 per
 * multiply-add, and the input projection that runs inside the kernel (every layer but the
 * first; its 4-row tiles read W once per 4 rows, about 3x the rate) at 1. */
static int64_t
wave_layer_cost(const kprog *kp, const kp_wave *w, int l)
{
    const kp_call *r = &kp->calls[w->rec[l]];
    const int64_t H = r->p.rnn.hidden;
    int64_t f = 3 * 4 * H * H;
    if (l > 0)
        f += 4 * H * kp->calls[w->rec[l] - 1].p.proj.input_size;
    return f;
}

/* Cut the layers into w->stages consecutive groups with the smallest largest cost (exact, by
 * dynamic programming over the cut points); returns that cost. */
static int64_t
wave_balance(const kprog *kp, kp_wave *w)
{
    int64_t best[KP_WAVE_MAX + 1][KP_WAVE_MAX + 1], pre[KP_WAVE_MAX + 1];
    int cut[KP_WAVE_MAX + 1][KP_WAVE_MAX + 1];
    const int L = w->n_layers, S = w->stages;
    int s, l, m;

    pre[0] = 0;
    for (l = 0; l < L; l++)
        pre[l + 1] = pre[l] + wave_layer_cost(kp, w, l);
    /* best[s][l]: the first l layers on s stages */
    for (l = 0; l <= L; l++)
        best[1][l] = pre[l];
    for (s = 2; s <= S; s++)
        for (l = s; l <= L; l++) {
            best[s][l] = -1;
            for (m = s - 1; m < l; m++) {
                int64_t v = best[s - 1][m] > pre[l] - pre[m] ? best[s - 1][m] : pre[l] - pre[m];
                if (best[s][l] < 0 || v < best[s][l]) {
                    best[s][l] = v;
                    cut[s][l] = m;
                }
            }
        }
    for (s = S, l = L; s >= 1; s--) {
        w->stage_end[s - 1] = l;
        if (s > 1)
            l = cut[s][l];
    }
    return best[S][L];
}

/* Time steps per hand-over: a chunk costs the downstream stage a wait and a pass over its W
 * (the chunk's projection reads all of W for C rows), and the pipeline fills in (stages - 1)
 * chunks; (stages - 1) * C + T / C is smallest at C = sqrt(T / (stages - 1)). Multiples of 4
 * keep the projection's 4-row tiles full; at most 16 steps. */
static int64_t
wave_chunk(int64_t T, int stages)
{
    int64_t c = 1;
    while ((c + 1) * (c + 1) * (stages - 1) <= T)
        c++;
    if (c > 16)
        c = 16;
    if (c >= 4)
        c -= c % 4;
    return c;
}

/*
 * The auto rule. Split-H (emit_rec_mt) divides every step's product by the threads but
 * meets the other threads at a barrier after every step of every layer; the wavefront meets
 * them once per chunk, but its speed-up is capped by the slowest stage, its pipeline fills
 * for (stages - 1) chunks, and each chunk's projection reads the stage's W once more. So the
 * wavefront wins where a step is short (the barrier is a large part of it) and its W passes
 * are cheap, i.e. where a layer's U fits in a core's L2 (a step is then a few microseconds:
 * U 1 MiB read at ~166 GB/s is 6 us, against 1-2 us for a barrier on an idle machine and far
 * more on a busy one), and only when the layers balance on the threads (the slowest stage
 * carries at most 1.25x an even share: 2 layers on 2 threads, 4 on 2, not 3 on 2, where
 * split-H's 2x beats the wavefront's 1.5x). Where U does not fit in L2 (H >= ~400 with
 * 2 MiB), a step streams U from L3 for 100 us or more, the barrier is noise, and split-H
 * keeps both cores streaming without the fill and the extra W passes. Without --threads,
 * layers below WAVE_MIN_HIDDEN stay on one thread as rec_threads keeps them: waking the pool
 * costs more than such a layer's steps. Measurements: bench/wave_ab.sh (the integrator's
 * notes in bench/RESULTS.md).
 */
#define WAVE_MAX_IMBALANCE_PCT 125
#define WAVE_MIN_HIDDEN        128
#define WAVE_L2_UNKNOWN        ((int64_t)1 << 20) /* a target profile without an L2 size */

static int
wave_wanted(const kprog *kp, const kp_wave *w, int64_t slowest, const target *t, int threads_given)
{
    const int64_t l2 = t && t->l2_bytes > 0 ? t->l2_bytes : WAVE_L2_UNKNOWN;
    int64_t total = 0;
    int l;
    for (l = 0; l < w->n_layers; l++) {
        const int64_t H = kp->calls[w->rec[l]].p.rnn.hidden;
        total += wave_layer_cost(kp, w, l);
        if (4 * H * H * (int64_t)sizeof(float) > l2)
            return 0;
        if (!threads_given && H < WAVE_MIN_HIDDEN)
            return 0;
    }
    return slowest * w->threads * 100 <= total * WAVE_MAX_IMBALANCE_PCT;
}

/* --- the fast full-integer layer's scratch (issue 22) ---------------------------------- */

static int64_t
up64(int64_t v)
{
    return (v + 63) / 64 * 64;
}

void
kp_rnnq_scratch_of(const lstmc_rt_rnnq_params *p, kp_rnnq_scratch *s)
{
    const int64_t G = p->cell == LSTMC_RT_CELL_LSTM ? 4 : p->cell == LSTMC_RT_CELL_GRU ? 3 : 1;
    const int64_t GH = G * p->hidden, H = p->hidden;
    int64_t at = 0;

    s->tc = p->seq_len >= 16 ? 16 : p->seq_len >= 1 ? p->seq_len : 1;
    s->kx = up64(p->input_size);
    s->kh = up64(H);
    s->corr = at;
    at += up64(2 * p->n_dirs * GH * 4);
    s->ones = at;
    at += s->kx > s->kh ? s->kx : s->kh;
    s->xa = at;
    at += s->tc * s->kx * 2;
    s->ha = at;
    at += s->kh * 2;
    s->ha2 = at;
    at += s->kh * 2;
    s->rha = at;
    at += s->kh * 2;
    s->accw = at;
    at += up64(s->tc * GH * 8);
    s->accu = at;
    at += up64(GH * 8);
    s->h = at;
    at += up64(H * 4);
    s->c = at;
    at += up64(H * 4);
    s->rg = at;
    at += up64(H * 4);
    s->bytes = at;
    s->qs = at;
    at += up64(7 * p->n_dirs * GH * 4);
    s->pw = at;
    if (p->input_size <= KP_RNNQ_PACK_K)
        at += up64(p->n_dirs * GH * ((p->input_size + 3) / 4 * 4));
    s->pu = at;
    if (H <= KP_RNNQ_PACK_K)
        at += up64(p->n_dirs * GH * ((H + 3) / 4 * 4));
    s->x86_bytes = at;
}

/* t's LLVM kernels are x86 ones: its triple, or the host's for "" */
static int
target_is_x86(const target *t)
{
    const char *tr = t && t->triple ? t->triple : "";
    if (!*tr) {
#if defined(__x86_64__) || defined(__i386__)
        return 1;
#else
        return 0;
#endif
    }
    return !strncmp(tr, "x86_64", 6) || !strncmp(tr, "i386", 4) || !strncmp(tr, "i686", 4);
}

void
kp_schedule(arena *a, kprog *kp, const target *t, kp_handles_fn handles, int threads,
            const char *parallel)
{
    int nt = threads > 0 ? threads : t ? t->cores : 1, i, n = 0;
    kp_wave w;

    kp->n_waves = 0;
    kp->waves = NULL;
    if (!handles)
        return; /* no kernel backend runs a pipeline */
    /* the fast integer layers' chunks of W.x */
    for (i = 0; i < kp->n_calls; i++) {
        kp_call *c = &kp->calls[i], tmp;
        kp_rnnq_scratch s;
        if (c->kind != KP_RNN_Q)
            continue;
        kp_rnnq_scratch_of(&c->p.rnnq, &s);
        if (target_is_x86(t))
            s.bytes = s.x86_bytes;
        tmp = *c;
        if (tmp.scratch_bytes < s.bytes)
            tmp.scratch_bytes = s.bytes;
        if (handles(&tmp))
            c->scratch_bytes = tmp.scratch_bytes;
    }
    if (nt > KP_WAVE_MAX)
        nt = KP_WAVE_MAX;
    if (nt <= 1 || (parallel && strcmp(parallel, "split") == 0))
        return;
    for (i = 0; i < kp->n_calls; i++)
        if (wave_rec_ok(&kp->calls[i], handles) && wave_u_private(kp, i) &&
            wave_find(kp, i, &w, handles))
            n++;
    if (!n)
        return;
    kp->waves = arena_calloc(a, (size_t)n, sizeof *kp->waves);
    for (i = 0; i < kp->n_calls; i++) {
        int64_t slowest;
        int l;
        if (!wave_rec_ok(&kp->calls[i], handles) || !wave_u_private(kp, i) ||
            !wave_find(kp, i, &w, handles))
            continue;
        w.threads = nt;
        w.stages = w.n_layers < nt ? w.n_layers : nt;
        slowest = wave_balance(kp, &w);
        w.chunk = wave_chunk(kp->calls[i].p.rnn.seq_len, w.stages);
        if ((!parallel || strcmp(parallel, "wave") != 0) &&
            !wave_wanted(kp, &w, slowest, t, threads > 0)) {
            i = w.last;
            continue;
        }
        for (l = 0; l < w.n_layers; l++) { /* gates [4H], then h and c of every batch row */
            kp_call *r = &kp->calls[w.rec[l]];
            int64_t need = (4 + 2 * r->p.rnn.batch) * r->p.rnn.hidden * (int64_t)sizeof(float);
            if (r->scratch_bytes < need)
                r->scratch_bytes = need;
        }
        kp->waves[kp->n_waves++] = w;
        i = w.last;
    }
}

const kp_wave *
kp_wave_of(const kprog *kp, int i)
{
    int w;
    for (w = 0; w < kp->n_waves; w++)
        if (kp->waves[w].first <= i && i <= kp->waves[w].last)
            return &kp->waves[w];
    return NULL;
}

int
kp_wave_slot(const kprog *kp, const kp_wave *w, int i)
{
    int k, s = 0;
    for (k = w->first; k < i; k++)
        s += kp->calls[k].n_in + kp->calls[k].n_out + (kp->calls[k].scratch_bytes > 0);
    return s;
}
