/*
 * replay.c — analyze_kprog: the memory requests of a lowered program replayed through the
 * LRU cache model (cachesim.h) for its working set, DRAM traffic and DRE (contract in
 * analyze.h), after the Arm paper (Arm'19):
 *
 *   §III-A, Eq. 1   DRE = AvgRW / WorkingSet, the working set being weights + inputs +
 *                   intermediate values; 1 is ideal.
 *   §IV, Alg. 2     schedule A+: G1 = [Wf Wi Wo Wc] multiplies all inputs I' at once
 *                   (X' = G1 * I', line 5), so only G2 = [Uf Ui Uo Uc] is read per step
 *                   (line 7). Their example: I = H = 512, T = 100, G = 8 MB does not fit
 *                   the cache: schedule A reads 100 * 8 MB = 800 MB, A+ 4 MB + 100 * 4 MB
 *                   = 404 MB.
 *   §V              the analytical model: the schedule's memory requests go through an LRU
 *                   cache (12 MB, a mobile SoC's); misses are read traffic and write-backs
 *                   write traffic; matrix products use cache blocking.
 *
 * The requests are generated per kernel kind from the loops of the runtime's reference
 * kernels (runtime/src), at cache-line granularity, in their order: e.g. lstmc_rt_rnn, per
 * direction, batch entry and step, reads for each gate row r the input row x_t, W[r], the
 * state h and R[r] (schedule A: all of G every step); lstmc_rt_rnn_rec reads the P row and
 * then, per k < H, h[k] and row k of R^T into the gate vector (all of G2 every step). The
 * projection GEMM lstmc_rt_rnn_proj is modelled blocked as §V assumes: column panels of
 * ANALYZE_PROJ_PANEL floats of W^T [I, G*H], each row of a panel applied to every row of X
 * while that panel of P stays cached, so G1 is read once. Unknown data (sequence_lens, Gather
 * indices that are not constant) are taken at their largest / most spread-out.
 */
#include "analyze_impl.h"

#include "arena.h"
#include "cachesim.h"
#include "diag.h"
#include "ir.h"
#include "kprog.h"
#include "lstmc_rt_kernels.h" /* lstmc_rt_row_at, y_at, state_at: the layouts */
#include "memplan.h"

#include <string.h>

/* Column panel (floats) of the blocked input-projection GEMM (Arm'19 §V "cache blocking"):
 * for each panel of W^T [I, G*H] of ANALYZE_PROJ_PANEL columns, for each i < I, row i of the
 * panel is applied to every row of X (P's panel, rows x PANEL floats, stays cached), so every
 * element of G1 is read exactly once. Must match lstmc_rt_rnn_proj's loop when it blocks
 * (LSTMC_RT_PROJ_PANEL). */
#ifdef LSTMC_RT_PROJ_PANEL
#define ANALYZE_PROJ_PANEL LSTMC_RT_PROJ_PANEL
#else
#define ANALYZE_PROJ_PANEL 64
#endif

/* --- the replay: addresses ---------------------------------------------------------- */

typedef struct replay {
    cachesim *cs;
    const kprog *kp;
    const memplan *mp;
    uint64_t *base; /* by tensor id: address of byte 0 (0 = not a buffer) */
    uint64_t arena_base;
} replay;

#define REGION_ALIGN 4096

static uint64_t
round_up(uint64_t v, uint64_t to)
{
    return (v + to - 1) / to * to;
}

/* Give every buffer a disjoint address range: one per graph input slot, output slot and
 * constant, page-aligned with a page between them; then the arena (tensors and scratch at
 * their planned offsets). Address 0 is never used. */
static void
assign_addresses(arena *a, const ir_graph *g, const kprog *kp, const memplan *mp, replay *r)
{
    uint64_t next = (uint64_t)1 << 30;
    int n_in = g->n_inputs + 1, n_out = kp->n_outputs + 1, i;
    uint64_t *in_base = arena_calloc(a, (size_t)n_in, sizeof *in_base);
    uint64_t *out_base = arena_calloc(a, (size_t)n_out, sizeof *out_base);

    r->base = arena_calloc(a, (size_t)g->n_tensors + 1, sizeof *r->base);
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        const memplan_loc *l = &mp->tensor[t->id];
        uint64_t *slot = NULL;
        if (l->kind == MEMPLAN_INPUT && l->index >= 0 && l->index < n_in)
            slot = &in_base[l->index];
        else if (l->kind == MEMPLAN_OUTPUT && l->index >= 0 && l->index < n_out)
            slot = &out_base[l->index];
        else if (l->kind == MEMPLAN_CONST)
            slot = &r->base[t->id];
        if (!slot)
            continue;
        if (!*slot) {
            *slot = next;
            next = round_up(next + (uint64_t)analyze_tensor_bytes(t), REGION_ALIGN) + REGION_ALIGN;
        }
        r->base[t->id] = *slot;
    }
    r->arena_base = next;
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        if (mp->tensor[t->id].kind == MEMPLAN_ARENA)
            r->base[t->id] = r->arena_base + (uint64_t)mp->tensor[t->id].offset;
    }
}

/* Read / write n bytes at byte offset off of tensor t (nothing when t is NULL). */
static void
rd(replay *r, const ir_tensor *t, int64_t off, int64_t n)
{
    if (t && n > 0 && r->base[t->id]) {
        cachesim_read(r->cs, r->base[t->id] + (uint64_t)off, (uint64_t)n);
    }
}

static void
wr(replay *r, const ir_tensor *t, int64_t off, int64_t n)
{
    if (t && n > 0 && r->base[t->id]) {
        cachesim_write(r->cs, r->base[t->id] + (uint64_t)off, (uint64_t)n);
    }
}

/* The same at an absolute address (scratch). */
static void
rda(replay *r, uint64_t addr, int64_t n)
{
    if (n > 0)
        cachesim_read(r->cs, addr, (uint64_t)n);
}

static void
wra(replay *r, uint64_t addr, int64_t n)
{
    if (n > 0)
        cachesim_write(r->cs, addr, (uint64_t)n);
}

/* --- recurrent kernels (runtime/src/rt_rnn.c) ---------------------------------------- */

typedef struct rnn_ctx {
    const lstmc_rt_rnn_params *p;
    int64_t G, H, I, D;
    int32_t d;
    uint64_t h, c, gates, tmp; /* scratch: h [H] | c [H] | gates [G*H] | tmp [H] */
} rnn_ctx;

/* Schedule A, one step: gates = x W^T + h R^T, a dot product per gate row (lstm_step,
 * gru_step, rnn_step). */
static void
rnn_step_a(replay *r, const rnn_ctx *x, const kp_call *c, int64_t xoff)
{
    const ir_tensor *X = c->in[0], *W = c->in[1], *R = c->in[2], *B = c->in[3];
    const int64_t G = x->G, H = x->H, I = x->I, hb = H * F4;
    const int64_t wo = x->d * G * H * I * F4, ro = x->d * G * H * H * F4;
    const int64_t bo = x->d * 2 * G * H * F4;
    int64_t row;

    if (x->p->cell == LSTMC_RT_CELL_GRU) {
        for (row = 0; row < 3 * H; row++) {
            rd(r, X, xoff, I * F4);
            rd(r, W, wo + row * I * F4, I * F4);
            wra(r, x->gates + (uint64_t)(row * F4), F4);
        }
        for (row = 0; row < 2 * H; row++) {
            rda(r, x->h, hb);
            rd(r, R, ro + row * H * F4, hb);
            wra(r, x->gates + (uint64_t)(row * F4), F4);
        }
        rda(r, x->gates, 2 * H * F4);
        rd(r, B, bo, 2 * H * F4);
        rd(r, B, bo + G * H * F4, 2 * H * F4);
        wra(r, x->gates, 2 * H * F4);
        if (!x->p->linear_before_reset) {
            rda(r, x->h, hb);
            wra(r, x->tmp, hb);
        }
        for (row = 0; row < H; row++) {
            rda(r, x->p->linear_before_reset ? x->h : x->tmp, hb);
            rd(r, R, ro + (2 * H + row) * H * F4, hb);
            wra(r, x->gates + (uint64_t)((2 * H + row) * F4), F4);
        }
        rd(r, B, bo + 2 * H * F4, H * F4);
        rd(r, B, bo + (G * H + 2 * H) * F4, H * F4);
        rda(r, x->gates, G * H * F4);
        wra(r, x->h, hb);
        return;
    }
    for (row = 0; row < G * H; row++) {
        rd(r, X, xoff, I * F4);
        rd(r, W, wo + row * I * F4, I * F4);
        rda(r, x->h, hb);
        rd(r, R, ro + row * H * F4, hb);
        wra(r, x->gates + (uint64_t)(row * F4), F4);
    }
    rda(r, x->gates, G * H * F4);
    rd(r, B, bo, 2 * G * H * F4);
    if (x->p->cell == LSTMC_RT_CELL_LSTM) {
        rd(r, c->in[7], x->d * 3 * H * F4, 3 * H * F4);
        rda(r, x->c, hb);
        wra(r, x->c, hb);
    }
    wra(r, x->h, hb);
}

/* rec_accumulate: gates[0..n) += v * R^T[:, col0 .. col0+n) (packed: a pass over the H rows of
 * R^T [H, ld]), or a dot product per gate row of R [G*H, H] (not packed). */
static void
rec_accumulate(replay *r, const rnn_ctx *x, const ir_tensor *Rt, uint64_t v, int64_t ld,
               int64_t col0, int64_t n, uint64_t out)
{
    const int64_t H = x->H, base = x->d * H * x->G * H * F4;
    int64_t k, g;

    if (!x->p->packed) {
        for (g = 0; g < n; g++) {
            rda(r, v, H * F4);
            rd(r, Rt, base + (col0 + g) * H * F4, H * F4);
            wra(r, out + (uint64_t)(g * F4), F4);
        }
        return;
    }
    for (k = 0; k < H; k++) {
        rda(r, v + (uint64_t)(k * F4), F4);
        rd(r, Rt, base + (k * ld + col0) * F4, n * F4);
        wra(r, out, n * F4);
    }
}

/* Schedule A+, one step: gates = P row, += h R^T (lstm_rec_step, gru_rec_step,
 * rnn_rec_step). */
static void
rnn_step_rec(replay *r, const rnn_ctx *x, const kp_call *c, int64_t prow)
{
    const ir_tensor *P = c->in[0], *Rt = c->in[1], *rb = c->in[2];
    const int64_t G = x->G, H = x->H, GH = G * H, hb = H * F4;

    rd(r, P, prow * GH * F4, GH * F4);
    wra(r, x->gates, GH * F4);
    if (x->p->cell == LSTMC_RT_CELL_GRU) {
        rec_accumulate(r, x, Rt, x->h, 3 * H, 0, 2 * H, x->gates);
        rda(r, x->gates, 2 * H * F4);
        wra(r, x->gates, 2 * H * F4);
        if (x->p->linear_before_reset) {
            wra(r, x->tmp, hb);
            rec_accumulate(r, x, Rt, x->h, 3 * H, 2 * H, H, x->tmp);
            rd(r, rb, x->p->packed ? x->d * hb : (x->d * 2 * GH + GH + 2 * H) * F4, hb);
        } else {
            rda(r, x->h, hb);
            wra(r, x->tmp, hb);
            rec_accumulate(r, x, Rt, x->tmp, 3 * H, 2 * H, H, x->gates + (uint64_t)(2 * H * F4));
        }
        rda(r, x->gates, GH * F4);
        wra(r, x->h, hb);
        return;
    }
    rec_accumulate(r, x, Rt, x->h, GH, 0, GH, x->gates);
    rda(r, x->gates, GH * F4);
    if (x->p->cell == LSTMC_RT_CELL_LSTM) {
        rd(r, c->in[6], x->d * 3 * H * F4, 3 * H * F4);
        rda(r, x->c, hb);
        wra(r, x->c, hb);
    }
    wra(r, x->h, hb);
}

/* lstmc_rt_rnn (KP_RNN) and lstmc_rt_rnn_rec (KP_RNN_REC): run_direction's loops. */
static void
replay_rnn(replay *r, int ci, const kp_call *c)
{
    const lstmc_rt_rnn_params *p = &c->p.rnn;
    const int rec = c->kind == KP_RNN_REC;
    const ir_tensor *SL = c->in[rec ? 3 : 4], *IH = c->in[rec ? 4 : 5], *IC = c->in[rec ? 5 : 6];
    const ir_tensor *Y = c->out[0], *YH = c->out[1], *YC = c->out[2];
    rnn_ctx x;
    uint64_t s = r->arena_base + (uint64_t)(r->mp->scratch ? r->mp->scratch[ci] : 0);
    int64_t n, step, hb;

    x.p = p;
    x.G = analyze_cell_gates(p->cell);
    x.H = p->hidden;
    x.I = p->input_size;
    x.D = p->n_dirs;
    x.h = s;
    x.c = s + (uint64_t)(x.H * F4);
    x.gates = x.c + (uint64_t)(x.H * F4);
    x.tmp = x.gates + (uint64_t)(x.G * x.H * F4);
    hb = x.H * F4;
    for (x.d = 0; x.d < p->n_dirs; x.d++) {
        int rev = p->n_dirs == 2 ? x.d : p->reverse;
        for (n = 0; n < p->batch; n++) {
            const int64_t st = lstmc_rt_state_at(p, x.d, n) * F4;
            rd(r, SL, n * 4, 4); /* its value is unknown here: taken as T */
            rd(r, IH, st, hb);
            wra(r, x.h, hb);
            if (IC && p->cell == LSTMC_RT_CELL_LSTM)
                rd(r, IC, st, hb);
            wra(r, x.c, hb);
            for (step = 0; step < p->seq_len; step++) {
                int64_t t = rev ? p->seq_len - 1 - step : step;
                if (rec)
                    rnn_step_rec(r, &x, c,
                                 x.d * p->seq_len * p->batch + lstmc_rt_row_at(p, t, n));
                else
                    rnn_step_a(r, &x, c, lstmc_rt_row_at(p, t, n) * x.I * F4);
                if (Y) {
                    rda(r, x.h, hb);
                    wr(r, Y, lstmc_rt_y_at(p, t, x.d, n) * F4, hb);
                }
            }
            if (YH) {
                rda(r, x.h, hb);
                wr(r, YH, st, hb);
            }
            if (YC && p->cell == LSTMC_RT_CELL_LSTM) {
                rda(r, x.c, hb);
                wr(r, YC, st, hb);
            }
        }
    }
}

/* lstmc_rt_rnn_proj (KP_RNN_PROJ): P[d] = X W^T + bias. Packed, as a blocked GEMM (see the
 * top of the file); not packed, a dot product per gate row and X row, as the kernel does. */
static void
replay_proj(replay *r, const kp_call *c)
{
    const lstmc_rt_rnn_proj_params *p = &c->p.proj;
    const ir_tensor *X = c->in[0], *W = c->in[1], *B = c->in[2], *P = c->out[0];
    const int64_t GH = analyze_cell_gates(p->cell) * p->hidden, I = p->input_size, rows = p->rows;
    int64_t d, row, i, g, g0;

    for (d = 0; d < p->n_dirs; d++) {
        const int64_t wo = d * I * GH * F4;
        if (!p->packed) {
            for (row = 0; row < rows; row++) {
                const int64_t po = (d * rows + row) * GH * F4;
                for (g = 0; g < GH; g++) {
                    rd(r, B, (d * 2 * GH + g) * F4, F4);
                    rd(r, B, (d * 2 * GH + GH + g) * F4, F4);
                    rd(r, X, row * I * F4, I * F4);
                    rd(r, W, wo + g * I * F4, I * F4);
                    wr(r, P, po + g * F4, F4);
                }
            }
            continue;
        }
        for (g0 = 0; g0 < GH; g0 += ANALYZE_PROJ_PANEL) {
            const int64_t nb = GH - g0 < ANALYZE_PROJ_PANEL ? GH - g0 : ANALYZE_PROJ_PANEL;
            for (row = 0; row < rows; row++) {
                rd(r, B, (d * GH + g0) * F4, nb * F4);
                wr(r, P, ((d * rows + row) * GH + g0) * F4, nb * F4);
            }
            for (i = 0; i < I; i++) {
                rd(r, W, wo + (i * GH + g0) * F4, nb * F4);
                for (row = 0; row < rows; row++) {
                    rd(r, X, (row * I + i) * F4, F4);
                    wr(r, P, ((d * rows + row) * GH + g0) * F4, nb * F4);
                }
            }
        }
    }
}

/* --- other kernels (runtime/src/rt_kernels.c) ---------------------------------------- */

/* Y[M,N] (+)= A[M,K] B[K,N] row by row, i-k-j (lstmc_rt_gemm without trans_b, matmul). */
static void
gemm_ikj(replay *r, const ir_tensor *A, int64_t ao, int trans_a, const ir_tensor *B, int64_t bo,
         const ir_tensor *Y, int64_t yo, int64_t M, int64_t N, int64_t K)
{
    int64_t i, k;
    for (i = 0; i < M; i++) {
        wr(r, Y, yo + i * N * F4, N * F4);
        for (k = 0; k < K; k++) {
            rd(r, A, ao + (trans_a ? k * M + i : i * K + k) * F4, F4);
            rd(r, B, bo + k * N * F4, N * F4);
            wr(r, Y, yo + i * N * F4, N * F4);
        }
    }
}

static void
replay_gemm(replay *r, const kp_call *c)
{
    const lstmc_rt_gemm_params *p = &c->p.gemm;
    const ir_tensor *A = c->in[0], *B = c->in[1], *C = c->in[2], *Y = c->out[0];
    int64_t i, j, k;

    if (!p->trans_b) {
        gemm_ikj(r, A, 0, p->trans_a, B, 0, Y, 0, p->m, p->n, p->k);
    } else {
        for (i = 0; i < p->m; i++)
            for (j = 0; j < p->n; j++) {
                if (p->trans_a)
                    for (k = 0; k < p->k; k++)
                        rd(r, A, (k * p->m + i) * F4, F4);
                else
                    rd(r, A, i * p->k * F4, p->k * F4);
                rd(r, B, j * p->k * F4, p->k * F4);
                wr(r, Y, (i * p->n + j) * F4, F4);
            }
    }
    for (i = 0; C && p->beta != 0.0f && i < p->m; i++) {
        if (p->c_stride_n == 1)
            rd(r, C, i * p->c_stride_m * F4, p->n * F4);
        else if (p->c_stride_n == 0)
            rd(r, C, i * p->c_stride_m * F4, F4);
        else
            for (j = 0; j < p->n; j++)
                rd(r, C, (i * p->c_stride_m + j * p->c_stride_n) * F4, F4);
        wr(r, Y, i * p->n * F4, p->n * F4);
    }
}

static void
replay_matmul(replay *r, const kp_call *c)
{
    const lstmc_rt_matmul_params *p = &c->p.matmul;
    int64_t j[LSTMC_RT_MAX_RANK] = {0}, n_mats = 1, mat, ao = 0, bo = 0;
    int32_t d;

    for (d = 0; d < p->n_batch; d++)
        n_mats *= p->batch[d];
    for (mat = 0; mat < n_mats; mat++) {
        gemm_ikj(r, c->in[0], ao * F4, 0, c->in[1], bo * F4, c->out[0], mat * p->m * p->n * F4,
                 p->m, p->n, p->k);
        for (d = p->n_batch - 1; d >= 0; d--) { /* odometer_next */
            j[d]++;
            ao += p->a_stride[d];
            bo += p->b_stride[d];
            if (j[d] < p->batch[d])
                break;
            ao -= p->a_stride[d] * p->batch[d];
            bo -= p->b_stride[d] * p->batch[d];
            j[d] = 0;
        }
    }
}

/* Read the elements of one innermost row of a strided view: contiguous, broadcast or
 * element by element. */
static void
rd_row(replay *r, const ir_tensor *t, int64_t off, int64_t stride, int64_t n, int64_t es)
{
    int64_t k;
    if (stride == 1)
        rd(r, t, off * es, n * es);
    else if (stride == 0)
        rd(r, t, off * es, es);
    else
        for (k = 0; k < n; k++)
            rd(r, t, (off + k * stride) * es, es);
}

/* An N-d loop over out_dims with up to two strided inputs (binary, strided copy). */
static void
replay_nd(replay *r, int32_t rank, const int64_t *dims, const ir_tensor *a, int64_t a_off,
          const int64_t *as, const ir_tensor *b, const int64_t *bs, const ir_tensor *out,
          int64_t es)
{
    int64_t j[LSTMC_RT_STRIDED_MAX_DIMS] = {0}, ao = a_off, bo = 0, rows = 1, row, last, o = 0;
    int32_t d;

    if (rank == 0) {
        rd(r, a, ao * es, es);
        rd(r, b, 0, es);
        wr(r, out, 0, es);
        return;
    }
    for (d = 0; d < rank - 1; d++)
        rows *= dims[d];
    last = dims[rank - 1];
    for (row = 0; row < rows; row++) {
        rd_row(r, a, ao, as[rank - 1], last, es);
        if (b)
            rd_row(r, b, bo, bs[rank - 1], last, es);
        wr(r, out, o * es, last * es);
        o += last;
        for (d = rank - 2; d >= 0; d--) {
            j[d]++;
            ao += as[d];
            if (b)
                bo += bs[d];
            if (j[d] < dims[d])
                break;
            ao -= as[d] * dims[d];
            if (b)
                bo -= bs[d] * dims[d];
            j[d] = 0;
        }
    }
}

static void
replay_gather(replay *r, const kp_call *c)
{
    const lstmc_rt_gather_params *p = &c->p.gather;
    const ir_tensor *data = c->in[0], *idx = c->in[1], *out = c->out[0];
    const int64_t row = p->inner * p->elem_size, ies = p->index_dtype == LSTMC_RT_I32 ? 4 : 8;
    int64_t o, k;

    for (o = 0; o < p->outer; o++)
        for (k = 0; k < p->n_indices; k++) {
            int64_t v = k;
            if (idx && idx->data)
                v = ies == 4 ? ((const int32_t *)idx->data)[k] : ((const int64_t *)idx->data)[k];
            if (v < 0)
                v += p->axis_len;
            if (v < 0 || v >= p->axis_len)
                v = k % (p->axis_len > 0 ? p->axis_len : 1);
            rd(r, idx, k * ies, ies);
            rd(r, data, (o * p->axis_len + v) * row, row);
            wr(r, out, (o * p->n_indices + k) * row, row);
        }
}

/* issue 20, red: a call that reads each of its inputs once through and writes each of its
 * outputs once through (Reduce*, LayerNormalization, Pad, TopK, ScatterElements), in order. */
static void
replay_whole(replay *r, const kp_call *c)
{
    int i;
    for (i = 0; i < c->n_in; i++)
        if (c->in[i])
            rd(r, c->in[i], 0,
               ir_shape_numel(&c->in[i]->shape) * (int64_t)ir_dtype_size(c->in[i]->dtype));
    for (i = 0; i < c->n_out; i++)
        if (c->out[i])
            wr(r, c->out[i], 0,
               ir_shape_numel(&c->out[i]->shape) * (int64_t)ir_dtype_size(c->out[i]->dtype));
}

static void
replay_call(replay *r, int ci)
{
    const kp_call *c = &r->kp->calls[ci];
    int64_t o, es;

    switch (c->kind) {
    case KP_RNN:
    case KP_RNN_REC:
        replay_rnn(r, ci, c);
        break;
    case KP_RNN_PROJ:
        replay_proj(r, c);
        break;
    case KP_GEMM:
        replay_gemm(r, c);
        break;
    case KP_MATMUL:
        replay_matmul(r, c);
        break;
    case KP_BINARY:
        es = (int64_t)lstmc_rt_dtype_size(c->p.binary.dtype);
        replay_nd(r, c->p.binary.rank, c->p.binary.out_dims, c->in[0], 0, c->p.binary.a_stride,
                  c->in[1], c->p.binary.b_stride, c->out[0], es);
        break;
    case KP_STRIDED:
        replay_nd(r, c->p.strided.rank, c->p.strided.out_dims, c->in[0], c->p.strided.offset,
                  c->p.strided.in_stride, NULL, NULL, c->out[0], c->p.strided.elem_size);
        break;
    case KP_UNARY:
        rd(r, c->in[0], 0, c->p.unary.n * F4);
        wr(r, c->out[0], 0, c->p.unary.n * F4);
        break;
    case KP_SOFTMAX: /* max, then exp and sum into out, then scale out: per outer block */
        for (o = 0; o < c->p.softmax.outer; o++) {
            const int64_t blk = c->p.softmax.axis_len * c->p.softmax.inner * F4;
            rd(r, c->in[0], o * blk, blk);
            rd(r, c->in[0], o * blk, blk);
            wr(r, c->out[0], o * blk, blk);
            rd(r, c->out[0], o * blk, blk);
            wr(r, c->out[0], o * blk, blk);
        }
        break;
    case KP_CAST:
        rd(r, c->in[0], 0, c->p.cast.n * (int64_t)lstmc_rt_dtype_size(c->p.cast.from));
        wr(r, c->out[0], 0, c->p.cast.n * (int64_t)lstmc_rt_dtype_size(c->p.cast.to));
        break;
    case KP_ARGMAX:
        es = (int64_t)lstmc_rt_dtype_size(c->p.argmax.dtype);
        rd(r, c->in[0], 0, c->p.argmax.outer * c->p.argmax.axis_len * c->p.argmax.inner * es);
        wr(r, c->out[0], 0, c->p.argmax.outer * c->p.argmax.inner * 8);
        break;
    case KP_GATHER:
        replay_gather(r, c);
        break;
    case KP_CONCAT:
        es = c->p.concat.elem_size;
        for (o = 0; o < c->p.concat.outer; o++) {
            rd(r, c->in[0], o * c->p.concat.in_cols * es, c->p.concat.in_cols * es);
            wr(r, c->out[0], (o * c->p.concat.out_cols + c->p.concat.offset) * es,
               c->p.concat.in_cols * es);
        }
        break;
    case KP_FILL:
        wr(r, c->out[0], 0, c->p.fill.n * c->p.fill.elem_size);
        break;
    case KP_COPY:
        rd(r, c->in[0], 0, c->p.copy.n_bytes);
        wr(r, c->out[0], 0, c->p.copy.n_bytes);
        break;
    case KP_EWISE: /* issue 20: each operand once, then the outputs (the whole tensors) */
    case KP_RANGE:
    case KP_CUMSUM:
    case KP_REDUCE:
    case KP_LAYERNORM:
    case KP_PAD:
    case KP_TOPK:
    case KP_SCATTER_ELEMENTS:
        replay_whole(r, c);
        break;
    default:
        break;
    }
}


int
analyze_kprog(arena *a, const ir_graph *g, const kprog *kp, const memplan *mp,
              const analyze_options *o, analyze_report *r, diag *d)
{
    cachesim_config cc;
    replay rp;
    int *lay, run, i, runs = o->runs > 0 ? o->runs : 1;

    memset(r, 0, sizeof *r);
    r->opt = *o;
    r->opt.runs = runs;
    r->opt.line = o->line ? o->line : 64;
    cc.capacity = o->llc_bytes;
    cc.assoc = o->assoc;
    cc.line = r->opt.line;
    memset(&rp, 0, sizeof rp);
    rp.cs = cachesim_new(a, &cc, d);
    if (!rp.cs)
        return -1;
    rp.kp = kp;
    rp.mp = mp;
    assign_addresses(a, g, kp, mp, &rp);
    analyze_collect_layers(a, g, kp, mp, r, &lay);
    for (run = 0; run < runs; run++) {
        const int last = run == runs - 1;
        cachesim_stats before, after;
        if (last)
            cachesim_reset_stats(rp.cs);
        for (i = 0; i < kp->n_calls; i++) {
            before = cachesim_get_stats(rp.cs);
            replay_call(&rp, i);
            after = cachesim_get_stats(rp.cs);
            if (last && lay[i] >= 0) {
                analyze_layer *l = &r->layers[lay[i]];
                l->read_bytes += (after.read_misses + after.write_misses - before.read_misses -
                                  before.write_misses) *
                                 cachesim_line(rp.cs);
                l->write_bytes += (after.writebacks - before.writebacks) * cachesim_line(rp.cs);
            }
        }
    }
    cachesim_flush(rp.cs);
    {
        cachesim_stats s = cachesim_get_stats(rp.cs);
        r->read_bytes = cachesim_read_bytes(rp.cs, &s);
        r->write_bytes = cachesim_write_bytes(rp.cs, &s);
        r->line_accesses = s.reads + s.writes;
    }
    return 0;
}
