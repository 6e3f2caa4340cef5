/*
 * analyze.c — working set, DRAM traffic and DRE of a lowered program (contract in
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
#define _GNU_SOURCE /* _SC_LEVEL3_CACHE_SIZE */
#include "analyze.h"

#include "arena.h"
#include "cachesim.h"
#include "cliopt.h"
#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"
#include "target.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

#define F4 ((int64_t)sizeof(float))

/* --- small helpers ----------------------------------------------------------------- */

static int64_t
cell_gates(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 4 : cell == LSTMC_RT_CELL_GRU ? 3 : 1;
}

static const char *
cell_name(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? "LSTM" : cell == LSTMC_RT_CELL_GRU ? "GRU" : "RNN";
}

/* Element-wise flops per hidden unit and step: bias adds, activations (one each) and the
 * state update. LSTM: 4 bias + 5 activations + 3 (f.c + i.g) + 1 (o.h(c)) [+ 6 peephole];
 * GRU: 3 bias + 3 activations + 1 (r.h) + 4 ((1-z).h~ + z.h); RNN: 1 bias + 1 activation. */
static int64_t
ew_flops(int32_t cell, int peephole)
{
    return cell == LSTMC_RT_CELL_LSTM  ? 13 + (peephole ? 6 : 0)
           : cell == LSTMC_RT_CELL_GRU ? 11
                                       : 2;
}

static int64_t
tensor_bytes(const ir_tensor *t)
{
    int64_t n = t ? ir_shape_numel(&t->shape) : 0;
    return n > 0 ? n * (int64_t)ir_dtype_size(t->dtype) : 0;
}

double
analyze_dre(int64_t read_bytes, int64_t write_bytes, int64_t working_set)
{
    return working_set > 0 ? (double)(read_bytes + write_bytes) / (double)working_set : 0.0;
}

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
            next = round_up(next + (uint64_t)tensor_bytes(t), REGION_ALIGN) + REGION_ALIGN;
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

static int64_t
row_at(const lstmc_rt_rnn_params *p, int64_t t, int64_t n)
{
    return p->layout ? n * p->seq_len + t : t * p->batch + n;
}

static int64_t
y_at(const lstmc_rt_rnn_params *p, int64_t t, int32_t d, int64_t n)
{
    int64_t D = p->n_dirs;
    return (p->layout ? (n * p->seq_len + t) * D + d : (t * D + d) * p->batch + n) * p->hidden;
}

static int64_t
state_at(const lstmc_rt_rnn_params *p, int32_t d, int64_t n)
{
    return (p->layout ? n * p->n_dirs + d : d * p->batch + n) * p->hidden;
}

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
    x.G = cell_gates(p->cell);
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
            const int64_t st = state_at(p, x.d, n) * F4;
            rd(r, SL, n * 4, 4); /* its value is unknown here: taken as T */
            rd(r, IH, st, hb);
            wra(r, x.h, hb);
            if (IC && p->cell == LSTMC_RT_CELL_LSTM)
                rd(r, IC, st, hb);
            wra(r, x.c, hb);
            for (step = 0; step < p->seq_len; step++) {
                int64_t t = rev ? p->seq_len - 1 - step : step;
                if (rec)
                    rnn_step_rec(r, &x, c, x.d * p->seq_len * p->batch + row_at(p, t, n));
                else
                    rnn_step_a(r, &x, c, row_at(p, t, n) * x.I * F4);
                if (Y) {
                    rda(r, x.h, hb);
                    wr(r, Y, y_at(p, t, x.d, n) * F4, hb);
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
    const int64_t GH = cell_gates(p->cell) * p->hidden, I = p->input_size, rows = p->rows;
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
    int64_t j[LSTMC_RT_MAX_RANK] = {0}, ao = a_off, bo = 0, rows = 1, row, last, o = 0;
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
    default:
        break;
    }
}

/* --- layers ------------------------------------------------------------------------- */

/* The recurrent node a call comes from: split_gates names its halves "<node>/G1" (the
 * projection) and "<node>/G2" (the recurrence); the layer keeps the node's own name. */
static const char *
layer_name(arena *a, const kp_call *c)
{
    const char *s = c->node ? c->node->name : NULL;
    size_t n = s ? strlen(s) : 0;
    char *t;
    if (n > 3 && (c->kind == KP_RNN_PROJ || c->kind == KP_RNN_REC) &&
        (!strcmp(s + n - 3, "/G1") || !strcmp(s + n - 3, "/G2"))) {
        t = arena_alloc(a, n - 2);
        memcpy(t, s, n - 3);
        t[n - 3] = 0;
        return t;
    }
    return s;
}

/* Group the recurrent calls into layers and size each layer's working set. Returns the
 * layer index of every call (-1: not part of a layer) in *of_call. */
static void
collect_layers(arena *a, const ir_graph *g, const kprog *kp, const memplan *mp, analyze_report *r,
               int **of_call)
{
    int *lay = arena_calloc(a, (size_t)kp->n_calls + 1, sizeof *lay);
    int *seen = arena_calloc(a, (size_t)g->n_tensors + 1, sizeof *seen);
    int i, j, k;

    r->layers = arena_calloc(a, (size_t)kp->n_calls + 1, sizeof *r->layers);
    r->n_layers = 0;
    for (i = 0; i < kp->n_calls; i++) {
        const kp_call *c = &kp->calls[i];
        analyze_layer *l = NULL;
        lay[i] = -1;
        if (c->kind == KP_RNN || c->kind == KP_RNN_PROJ) {
            l = &r->layers[r->n_layers];
            lay[i] = r->n_layers++;
        } else if (c->kind == KP_RNN_REC) {
            /* the projection whose P it reads */
            for (j = 0; j < r->n_layers && !l; j++) {
                const analyze_layer *m = &r->layers[j];
                const kp_call *pc = &kp->calls[m->calls[0]];
                if (m->split && m->n_calls == 1 && pc->out[0] == c->in[0]) {
                    l = &r->layers[j];
                    lay[i] = j;
                }
            }
            if (!l) {
                l = &r->layers[r->n_layers];
                lay[i] = r->n_layers++;
            }
        }
        if (!l)
            continue;
        if (l->n_calls < (int)(sizeof l->calls / sizeof l->calls[0]))
            l->calls[l->n_calls++] = i;
        if (c->kind == KP_RNN_PROJ) {
            l->split = 1;
            l->cell = c->p.proj.cell;
            l->I = c->p.proj.input_size;
            l->H = c->p.proj.hidden;
            l->D = c->p.proj.n_dirs;
        } else {
            const lstmc_rt_rnn_params *p = &c->p.rnn;
            l->split |= c->kind == KP_RNN_REC;
            l->cell = p->cell;
            l->T = p->seq_len;
            l->N = p->batch;
            if (c->kind == KP_RNN)
                l->I = p->input_size;
            l->H = p->hidden;
            l->D = p->n_dirs;
        }
        if (!l->name)
            l->name = layer_name(a, c);
        l->G = cell_gates(l->cell);
        l->op = cell_name(l->cell);
        /* working set: each distinct buffer once, plus the scratch */
        for (k = 0; k < c->n_in + c->n_out; k++) {
            const ir_tensor *t = k < c->n_in ? c->in[k] : c->out[k - c->n_in];
            const memplan_kind mk = t ? mp->tensor[t->id].kind : MEMPLAN_NONE;
            if (!t || seen[t->id] == lay[i] + 1)
                continue;
            seen[t->id] = lay[i] + 1;
            if (mk == MEMPLAN_CONST)
                l->weight_bytes += tensor_bytes(t);
            else if (mk == MEMPLAN_ARENA)
                l->arena_bytes += tensor_bytes(t);
            else if (mk == MEMPLAN_INPUT || mk == MEMPLAN_OUTPUT)
                l->io_bytes += tensor_bytes(t);
        }
        if (c->scratch_bytes > 0)
            l->arena_bytes += c->scratch_bytes;
    }
    for (j = 0; j < r->n_layers; j++) {
        analyze_layer *l = &r->layers[j];
        int peep = 0;
        for (k = 0; k < l->n_calls; k++) {
            const kp_call *c = &kp->calls[l->calls[k]];
            if (c->kind == KP_RNN && c->in[7])
                peep = 1;
            if (c->kind == KP_RNN_REC && c->in[6])
                peep = 1;
        }
        l->working_set = l->weight_bytes + l->arena_bytes + l->io_bytes;
        l->flops =
            l->D * l->T * l->N * (2 * l->G * l->H * (l->I + l->H) + ew_flops(l->cell, peep) * l->H);
        if (!l->name)
            l->name = "?";
    }
    /* the whole model */
    r->const_bytes = 0;
    memset(seen, 0, ((size_t)g->n_tensors + 1) * sizeof *seen);
    for (i = 0; i < kp->n_calls; i++) {
        const kp_call *c = &kp->calls[i];
        for (k = 0; k < c->n_in; k++)
            if (c->in[k] && mp->tensor[c->in[k]->id].kind == MEMPLAN_CONST && !seen[c->in[k]->id]) {
                seen[c->in[k]->id] = 1;
                r->const_bytes += tensor_bytes(c->in[k]);
            }
    }
    r->arena_bytes = mp->arena_size;
    r->io_bytes = 0;
    for (i = 0; i < g->n_inputs; i++)
        r->io_bytes += tensor_bytes(g->inputs[i]);
    for (i = 0; i < kp->n_outputs; i++)
        r->io_bytes += tensor_bytes(kp->outputs[i]);
    r->working_set = r->const_bytes + r->arena_bytes + r->io_bytes;
    *of_call = lay;
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
    collect_layers(a, g, kp, mp, r, &lay);
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

/* --- cache sizes -------------------------------------------------------------------- */

int
analyze_parse_bytes(const char *s, int64_t *out)
{
    char *end;
    unsigned long long v;
    int64_t mul = 1;
    char suf[8];
    size_t n, i;

    if (!s || !isdigit((unsigned char)*s))
        return -1;
    v = strtoull(s, &end, 10);
    n = strlen(end);
    if (n >= sizeof suf)
        return -1;
    for (i = 0; i < n && i + 1 < sizeof suf; i++)
        suf[i] = (char)tolower((unsigned char)end[i]);
    suf[i] = '\0';
    if (!*suf)
        mul = 1;
    else if (!strcmp(suf, "k") || !strcmp(suf, "kb") || !strcmp(suf, "kib"))
        mul = (int64_t)1 << 10;
    else if (!strcmp(suf, "m") || !strcmp(suf, "mb") || !strcmp(suf, "mib"))
        mul = (int64_t)1 << 20;
    else if (!strcmp(suf, "g") || !strcmp(suf, "gb") || !strcmp(suf, "gib"))
        mul = (int64_t)1 << 30;
    else if (!strcmp(suf, "b"))
        mul = 1;
    else
        return -1;
    if (v < 1 || v > ((unsigned long long)1 << 40) / (unsigned long long)mul)
        return -1;
    *out = (int64_t)v * mul;
    return 0;
}

/* The size of the highest-level data or unified cache in sysfs, or 0. */
static int64_t
sysfs_llc(void)
{
    int64_t best = 0;
    int best_level = 0, i;
    for (i = 0; i < 16; i++) {
        char path[128], buf[64];
        FILE *f;
        int level = 0;
        int64_t size = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!(f = fopen(path, "r")))
            break;
        if (!fgets(buf, sizeof buf, f))
            buf[0] = 0;
        fclose(f);
        if (strncmp(buf, "Instruction", 11) == 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%d", &level) != 1)
                level = 0;
            fclose(f);
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((f = fopen(path, "r"))) {
            if (fgets(buf, sizeof buf, f)) {
                buf[strcspn(buf, "\n")] = 0;
                if (analyze_parse_bytes(buf, &size) < 0)
                    size = 0;
            }
            fclose(f);
        }
        if (size > 0 && level > best_level) {
            best_level = level;
            best = size;
        }
    }
    return best;
}

int64_t
analyze_host_llc(void)
{
    long v = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    if (v > 0)
        return v;
    v = (long)sysfs_llc();
    if (v > 0)
        return v;
#ifdef _SC_LEVEL2_CACHE_SIZE
    v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return v > 0 ? v : 0;
}

int64_t
analyze_target_llc(const target *t)
{
    if (!t)
        return 0;
    if (strcmp(t->name, "host") == 0)
        return analyze_host_llc();
    return t->l2_bytes > 0 ? t->l2_bytes : t->l1d_bytes;
}

/* --- printing ----------------------------------------------------------------------- */

/* "12.00 MiB" style, into buf. */
static const char *
fmt_bytes(char *buf, size_t n, int64_t v)
{
    if (v >= ((int64_t)1 << 30))
        snprintf(buf, n, "%.2f GiB", (double)v / (double)((int64_t)1 << 30));
    else if (v >= ((int64_t)1 << 20))
        snprintf(buf, n, "%.2f MiB", (double)v / (double)((int64_t)1 << 20));
    else if (v >= 1024)
        snprintf(buf, n, "%.1f KiB", (double)v / 1024.0);
    else
        snprintf(buf, n, "%lld B", (long long)v);
    return buf;
}

static const char *
fmt_count(char *buf, size_t n, int64_t v)
{
    if (v >= 1000000000)
        snprintf(buf, n, "%.2f G", (double)v / 1e9);
    else if (v >= 1000000)
        snprintf(buf, n, "%.2f M", (double)v / 1e6);
    else if (v >= 1000)
        snprintf(buf, n, "%.1f k", (double)v / 1e3);
    else
        snprintf(buf, n, "%lld", (long long)v);
    return buf;
}

static void
print_row(FILE *f, int csv, const char *scope, const char *name, const char *op, const char *sched,
          int64_t weights, int64_t ws, int64_t rd_b, int64_t wr_b)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    double dre = analyze_dre(rd_b, wr_b, ws);
    if (csv) {
        fprintf(f, "%s,%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%.4f\n", scope, name, op, sched,
                (long long)weights, (long long)ws, (long long)rd_b, (long long)wr_b,
                (long long)(rd_b + wr_b), dre);
        return;
    }
    fprintf(f, "%-20.20s %-5s %-3s %12s %12s %12s %12s %12s %9.2f\n", name, op, sched,
            fmt_bytes(b1, sizeof b1, weights), fmt_bytes(b2, sizeof b2, ws),
            fmt_bytes(b3, sizeof b3, rd_b), fmt_bytes(b4, sizeof b4, wr_b),
            fmt_bytes(b5, sizeof b5, rd_b + wr_b), dre);
}

/* --- lstmc analyze ------------------------------------------------------------------- */

typedef struct sched_run {
    const char *label; /* "A", "A+" */
    int ok;
    analyze_report rep;
} sched_run;

/* Lower o for one schedule and replay it. split: 0 = A (split_gates disabled), 1 = A+. */
static int
run_schedule(arena *a, const driver_options *base, int split, const analyze_options *ao,
             sched_run *s, diag *d)
{
    driver_options o = *base;
    ir_graph *g;
    kprog kp;
    memplan mp;
    int i, k = 0;

    for (i = 0; i < base->n_disable; i++)
        if (strcmp(base->disable[i], "split_gates") != 0)
            o.disable[k++] = base->disable[i];
    o.n_disable = k;
    if (!split && o.n_disable < (int)(sizeof o.disable / sizeof o.disable[0]))
        o.disable[o.n_disable++] = "split_gates";
    if (driver_lower(a, &o, &g, &kp, &mp, d) < 0)
        return -1;
    if (analyze_kprog(a, g, &kp, &mp, ao, &s->rep, d) < 0)
        return -1;
    s->ok = 1;
    return 0;
}

static const char analyze_usage[] =
    "usage: lstmc analyze MODEL.onnx [--target=NAME] [--dim=SYM=N]... [--llc=BYTES]\n"
    "                     [--assoc=W] [--runs=R] [--schedule=A|A+|both] [--csv]\n"
    "  --llc=BYTES     last-level cache size (12MiB, 4M, 524288); default: the target's\n"
    "  --assoc=W       W-way set associative (default: fully associative LRU)\n"
    "  --runs=R        replay the program R times and report the last (warm cache)\n"
    "  --schedule=S    A (split_gates disabled), A+ (the target's passes) or both\n"
    "  --csv           scope,name,op,schedule,weights,working_set,read,write,traffic,dre\n";

static int
analyze_bad(const char *msg, const char *arg)
{
    fprintf(stderr, "lstmc analyze: ");
    fprintf(stderr, msg, arg);
    fprintf(stderr, "\n%s", analyze_usage);
    return 2;
}


int
analyze_main(int argc, char **argv)
{
    static driver_options o;
    static char dim_names[DRIVER_MAX_BINDINGS][128];
    analyze_options ao;
    sched_run runs[2];
    const target *t;
    const char *sched = "both";
    int csv = 0, i, rc = 0, k;
    arena *a;
    diag *d;

    memset(&o, 0, sizeof o);
    memset(&ao, 0, sizeof ao);
    memset(runs, 0, sizeof runs);
    o.target = "host";
    for (i = 1; i < argc; i++) {
        const char *v;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(analyze_usage, stdout);
            return 0;
        } else if ((v = cli_opt(argc, argv, &i, "--target"))) {
            o.target = v;
        } else if ((v = cli_opt(argc, argv, &i, "--llc"))) {
            if (analyze_parse_bytes(v, &ao.llc_bytes) < 0)
                return analyze_bad("--llc takes a byte count such as 12MiB, got '%s'", v);
        } else if ((v = cli_opt(argc, argv, &i, "--assoc"))) {
            char *end;
            long w = strtol(v, &end, 10);
            if (*end || end == v || w < 0 || w > 1 << 20)
                return analyze_bad("--assoc takes a way count (0 = fully associative), got '%s'",
                                   v);
            ao.assoc = (int32_t)w;
        } else if ((v = cli_opt(argc, argv, &i, "--runs"))) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 1 || n > 100)
                return analyze_bad("--runs takes a count from 1 to 100, got '%s'", v);
            ao.runs = (int32_t)n;
        } else if ((v = cli_opt(argc, argv, &i, "--schedule"))) {
            if (strcmp(v, "A") && strcmp(v, "A+") && strcmp(v, "both"))
                return analyze_bad("--schedule takes A, A+ or both, got '%s'", v);
            sched = v;
        } else if (!strcmp(argv[i], "--csv")) {
            csv = 1;
        } else if ((v = cli_opt(argc, argv, &i, "--disable-pass"))) {
            if (o.n_disable == (int)(sizeof o.disable / sizeof o.disable[0]))
                return analyze_bad("too many --disable-pass options%s", "");
            o.disable[o.n_disable++] = v;
        } else if ((v = cli_opt(argc, argv, &i, "--passes"))) {
            o.passes = v;
        } else if ((v = cli_opt(argc, argv, &i, "--dim"))) {
            const char *eq = strrchr(v, '=');
            char *end;
            long long n;
            if (!eq || eq == v || (size_t)(eq - v) >= sizeof dim_names[0])
                return analyze_bad("--dim takes SYM=N, got '%s'", v);
            n = strtoll(eq + 1, &end, 10);
            if (*end || end == eq + 1 || n < 1 || n > IR_MAX_ELEMS)
                return analyze_bad("--dim value must be an integer from 1 to 2^31, got '%s'", v);
            if (o.n_dims == DRIVER_MAX_BINDINGS)
                return analyze_bad("too many --dim options%s", "");
            memcpy(dim_names[o.n_dims], v, (size_t)(eq - v));
            dim_names[o.n_dims][eq - v] = '\0';
            o.dims[o.n_dims].name = dim_names[o.n_dims];
            o.dims[o.n_dims++].value = n;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return analyze_bad("unknown or incomplete option '%s'", argv[i]);
        } else if (!o.model) {
            o.model = argv[i];
        } else {
            return analyze_bad("unexpected argument '%s'", argv[i]);
        }
    }
    if (!o.model)
        return analyze_bad("no model given%s", "");
    t = target_find(o.target);
    if (!t) {
        fprintf(stderr, "lstmc analyze: unknown target '%s' (lstmc targets lists them)\n",
                o.target);
        return 2;
    }
    if (!ao.llc_bytes)
        ao.llc_bytes = analyze_target_llc(t);
    if (!ao.llc_bytes) {
        fprintf(stderr, "lstmc analyze: target '%s' gives no cache size; use --llc=BYTES\n",
                t->name);
        return 2;
    }
    if (ao.llc_bytes % 64) {
        fprintf(stderr, "lstmc analyze: --llc must be a multiple of the 64-byte line\n");
        return 2;
    }

    a = arena_new(0);
    d = diag_new(a, o.model, stderr);
    runs[0].label = "A";
    runs[1].label = "A+";
    for (k = 0; k < 2 && !rc; k++)
        if (!strcmp(sched, "both") || !strcmp(sched, runs[k].label))
            if (run_schedule(a, &o, k, &ao, &runs[k], d) < 0)
                rc = 1;
    if (!rc) {
        const analyze_report *r0 = runs[0].ok ? &runs[0].rep : &runs[1].rep;
        char b1[32];
        int n_layers = r0->n_layers;
        if (csv) {
            printf("scope,name,op,schedule,weights,working_set,read,write,traffic,dre\n");
        } else {
            printf("model   %s\ntarget  %s\nLLC     %s (%lld bytes), %s LRU, %d-byte lines, "
                   "write-back, write-allocate\n",
                   o.model, t->name, fmt_bytes(b1, sizeof b1, ao.llc_bytes),
                   (long long)ao.llc_bytes, ao.assoc ? "set-associative" : "fully associative",
                   r0->opt.line);
            if (ao.assoc)
                printf("        %d ways\n", ao.assoc);
            if (r0->opt.runs > 1)
                printf("runs    %d replays, the last reported (warm cache)\n", r0->opt.runs);
            printf("DRE     traffic / working set (Arm'19 Eq. 1); A: G = [W|U] read every step, "
                   "A+: G1 = W once, G2 = U every step (Alg. 2)\n\n");
            printf("%-20s %-5s %-3s %12s %12s %12s %12s %12s %9s\n", "layer", "op", "sch",
                   "weights", "working set", "DRAM read", "DRAM write", "traffic", "DRE");
        }
        for (i = 0; i < n_layers; i++)
            for (k = 0; k < 2; k++) {
                const analyze_layer *l;
                if (!runs[k].ok || i >= runs[k].rep.n_layers)
                    continue;
                l = &runs[k].rep.layers[i];
                print_row(stdout, csv, "layer", l->name, l->op, runs[k].label, l->weight_bytes,
                          l->working_set, l->read_bytes, l->write_bytes);
            }
        for (k = 0; k < 2; k++) {
            const analyze_report *r = &runs[k].rep;
            if (runs[k].ok)
                print_row(stdout, csv, "model", "(model)", "", runs[k].label, r->const_bytes,
                          r->working_set, r->read_bytes, r->write_bytes);
        }
        if (!csv && runs[0].ok && runs[1].ok) {
            int64_t ta = runs[0].rep.read_bytes + runs[0].rep.write_bytes;
            int64_t tb = runs[1].rep.read_bytes + runs[1].rep.write_bytes;
            int split = 0;
            for (i = 0; i < runs[1].rep.n_layers; i++)
                split += runs[1].rep.layers[i].split;
            if (!split)
                printf("\nA+ equals A: split_gates split no layer of this model\n");
            else if (tb > 0)
                printf("\nA+ moves %.1f%% less data than A (A / A+ = %.2fx)\n",
                       100.0 * (double)(ta - tb) / (double)ta, (double)ta / (double)tb);
        }
    }
    arena_free(a);
    return rc;
}

/* --- lstmc inspect: per-layer figures ------------------------------------------------- */

/* A recurrent node of the imported graph: static figures from its weights. */
static void
inspect_static(FILE *f, const ir_node *n)
{
    const ir_tensor *W = ir_in(n, 1), *R = ir_in(n, 2), *B = ir_in(n, 3), *X = ir_in(n, 0);
    const ir_tensor *P = n->op == IR_OP_LSTM ? ir_in(n, 7) : NULL;
    int32_t cell = n->op == IR_OP_LSTM  ? LSTMC_RT_CELL_LSTM
                   : n->op == IR_OP_GRU ? LSTMC_RT_CELL_GRU
                                        : LSTMC_RT_CELL_RNN;
    int64_t G = cell_gates(cell), D = 0, H = 0, I = 0, params = 0;
    int layout = (int)ir_attr_int(n, "layout", 0);
    char b1[32], b2[32];
    int k;

    if (W && W->shape.rank == 3) {
        D = W->shape.d[0];
        I = W->shape.d[2];
        H = W->shape.d[1] / G;
    }
    if (R && R->shape.rank == 3 && R->shape.d[2] > 0)
        H = R->shape.d[2];
    for (k = 0; k < 4; k++) {
        const ir_tensor *t = k == 0 ? W : k == 1 ? R : k == 2 ? B : P;
        int64_t ne = t ? ir_shape_numel(&t->shape) : 0;
        if (ne > 0)
            params += ne;
    }
    fprintf(f, "  %s (%s)  %s  I=%lld H=%lld G=%lld D=%lld", n->name, cell_name(cell),
            D == 2                                ? "bidirectional"
            : ir_attr_int(n, "direction", 0) == 1 ? "reverse"
                                                  : "forward",
            (long long)I, (long long)H, (long long)G, (long long)D);
    if (X && X->shape.rank == 3) {
        for (k = 0; k < 2; k++) {
            int dim = (k == 0) != (layout == 1) ? 0 : 1; /* T then N */
            if (X->shape.d[dim] >= 0)
                fprintf(f, " %s=%lld", k ? "N" : "T", (long long)X->shape.d[dim]);
            else
                fprintf(f, " %s='%s'", k ? "N" : "T", X->shape.sym[dim] ? X->shape.sym[dim] : "?");
        }
    }
    fprintf(f, "\n      params %s (%s of float32 weights)\n", fmt_count(b1, sizeof b1, params),
            fmt_bytes(b2, sizeof b2, params * F4));
    fprintf(f, "      flops per step and batch entry %s (2*G*H*(I+H)*D + element-wise)\n",
            fmt_count(b1, sizeof b1, D * (2 * G * H * (I + H) + ew_flops(cell, P != NULL) * H)));
}

int
analyze_inspect(arena *a, const ir_graph *g, const driver_options *o, FILE *f, diag *d)
{
    const char *missing[DRIVER_MAX_BINDINGS];
    int n_missing = 0, n_rnn = 0, i, k, m;
    driver_options lo;
    ir_graph *lg;
    kprog kp;
    memplan mp;
    diag *quiet;

    (void)d;
    for (i = 0; i < g->n_nodes; i++)
        if (g->nodes[i]->op == IR_OP_LSTM || g->nodes[i]->op == IR_OP_GRU ||
            g->nodes[i]->op == IR_OP_RNN)
            n_rnn++;
    if (!n_rnn)
        return 0;
    /* symbolic input dims that no --dim binds */
    for (i = 0; i < g->n_inputs; i++) {
        const ir_shape *s = &g->inputs[i]->shape;
        for (k = 0; k < s->rank; k++) {
            int bound = 0;
            if (s->d[k] >= 0)
                continue;
            for (m = 0; s->sym[k] && m < o->n_dims; m++)
                if (!strcmp(o->dims[m].name, s->sym[k]))
                    bound = 1;
            for (m = 0; m < n_missing && !bound; m++)
                if (s->sym[k] && !strcmp(missing[m], s->sym[k]))
                    bound = 1;
            if (!bound && n_missing < DRIVER_MAX_BINDINGS)
                missing[n_missing++] = s->sym[k] ? s->sym[k] : "?";
        }
    }
    fprintf(f, "recurrent layers\n");
    if (n_missing) {
        for (i = 0; i < g->n_nodes; i++)
            if (g->nodes[i]->op == IR_OP_LSTM || g->nodes[i]->op == IR_OP_GRU ||
                g->nodes[i]->op == IR_OP_RNN)
                inspect_static(f, g->nodes[i]);
        fprintf(f, "  flops per sequence, working set and arena bytes need every input dim "
                   "bound: give");
        for (m = 0; m < n_missing; m++)
            fprintf(f, " --dim %s=N", missing[m]);
        fprintf(f, "\n\n");
        return 0;
    }
    lo = *o;
    quiet = diag_new(a, o->model, NULL);
    if (driver_lower(a, &lo, &lg, &kp, &mp, quiet) < 0) {
        for (i = 0; i < g->n_nodes; i++)
            if (g->nodes[i]->op == IR_OP_LSTM || g->nodes[i]->op == IR_OP_GRU ||
                g->nodes[i]->op == IR_OP_RNN)
                inspect_static(f, g->nodes[i]);
        fprintf(f, "  (working set not available: the model does not lower)\n\n");
        return 0;
    }
    {
        analyze_report r;
        int *lay;
        char b1[32], b2[32], b3[32], b4[32];
        memset(&r, 0, sizeof r);
        collect_layers(a, lg, &kp, &mp, &r, &lay);
        for (i = 0; i < r.n_layers; i++) {
            const analyze_layer *l = &r.layers[i];
            const ir_node *src = NULL;
            for (k = 0; k < g->n_nodes && !src; k++)
                if (!strcmp(g->nodes[k]->name, l->name))
                    src = g->nodes[k];
            if (src)
                inspect_static(f, src);
            else
                fprintf(f, "  %s (%s)\n", l->name, l->op);
            fprintf(f,
                    "      X [T=%lld, N=%lld, I=%lld] -> Y [T, D=%lld, N, H=%lld]; "
                    "schedule %s\n",
                    (long long)l->T, (long long)l->N, (long long)l->I, (long long)l->D,
                    (long long)l->H, l->split ? "A+ (projection GEMM + recurrence)" : "A");
            fprintf(f, "      flops per sequence %s = 2*G*H*(I+H)*T*N*D + element-wise\n",
                    fmt_count(b1, sizeof b1, l->flops));
            fprintf(
                f, "      working set %s = weights %s + arena %s + inputs/outputs %s\n",
                fmt_bytes(b1, sizeof b1, l->working_set), fmt_bytes(b2, sizeof b2, l->weight_bytes),
                fmt_bytes(b3, sizeof b3, l->arena_bytes), fmt_bytes(b4, sizeof b4, l->io_bytes));
        }
        fprintf(f, "  model: working set %s = constants %s + arena %s + inputs/outputs %s\n\n",
                fmt_bytes(b1, sizeof b1, r.working_set), fmt_bytes(b2, sizeof b2, r.const_bytes),
                fmt_bytes(b3, sizeof b3, r.arena_bytes), fmt_bytes(b4, sizeof b4, r.io_bytes));
    }
    return 0;
}
