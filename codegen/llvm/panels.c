/*
 * panels.c — the weights of the LLVM kernels in column panels: the U of a recurrent call and
 * the W of an input projection relaid so that every register tile reads one contiguous
 * stream (rec_relayout), which calls may have their weights packed (rec_pack_ok), and how
 * many threads a call gets (rec_threads).
 */
#include "llvm_impl.h"

#include <stdlib.h>
#include <string.h>

#ifdef LSTMC_HAVE_LLVM

/*
 * Row-major, the recurrent product reads Rt [H, GH] one column tile at a time
 * (for_col_segments), k going down the rows: nv*w floats per k at a stride of GH floats
 * (8 KiB for H 512), which the hardware prefetchers do not follow across pages; at L3 sizes
 * that costs up to 30 % (bench/compare/u_pattern.c, bench/RESULTS.md issue 4). So the
 * weights of the call are stored in panels instead, as MLAS packs B: every tile's H x width
 * block contiguous, in the order the tiles are walked, and emit_tile prefetches the panel
 * REC_PF_ROWS rows ahead. The columns of each gemv range [r0, r0+n) of a direction's block
 * are cut exactly as for_col_segments cuts them (full tiles of REC_NB vectors, one tile of
 * the vectors left, scalar tiles of at most 8); element (k, r0+c0+j) of the segment
 * [c0, c0+ws) goes to H*(r0+c0) + k*ws + j.
 * A U in a reduced-precision format (issue 12) is packed the same way, element for element
 * (2 or 1 bytes each; int8's column scales, in front of the values, stay in column order),
 * so its tiles read one contiguous stream too instead of a new page for every k.
 */

/* The gemv column ranges of a cell (emit_*_step): LSTM [0, 4H); GRU [0, 2H) and [2H, 3H);
 * RNN [0, H); on nt > 1 threads (emit_rec_mt, LSTM) [q*H + j0, q*H + j1) for every slice
 * and gate q. Returns how many. */
static int
rec_ranges(const lstmc_rt_rnn_params *p, int vl, int nt, int64_t r0[4 * MT_MAX],
           int64_t n[4 * MT_MAX])
{
    int nr = 0, t, q;

    if (nt > 1) {
        for (t = 0; t < nt; t++) {
            int64_t j0, j1;
            rec_unit_slice(p->hidden, nt, vl, t, &j0, &j1);
            for (q = 0; q < 4 && j1 > j0; q++, nr++) {
                r0[nr] = q * p->hidden + j0;
                n[nr] = j1 - j0;
            }
        }
        return nr;
    }
    r0[0] = 0;
    n[0] = cell_gates(p->cell) * p->hidden;
    if (p->cell != LSTMC_RT_CELL_GRU)
        return 1;
    n[0] = 2 * p->hidden;
    r0[1] = 2 * p->hidden;
    n[1] = p->hidden;
    return 2;
}

/*
 * W of the input projection (KP_RNN_PROJ) in panels too. proj_seg walks a column strip of
 * W [I, GH] once per block of rows of X; row-major, each k of the strip is a new page (GH
 * floats apart: 24 KB for H 1500), and a cpu-clock profile of E-Wiki put 48 % of the fp32
 * projection's samples on one W load (bench/RESULTS.md, issue 4). The column ranges are those
 * emit_proj (one, [0, GH)) or emit_proj_mt_body (mt_slice per thread) cut.
 */
static int
proj_ranges(int64_t GH, int tw, int nt, int64_t r0[MT_MAX], int64_t n[MT_MAX])
{
    int t, nr = 0;
    if (nt <= 1) {
        r0[0] = 0;
        n[0] = GH;
        return 1;
    }
    for (t = 0; t < nt; t++) {
        int64_t c0, c1;
        mt_slice(GH, nt, tw, t, &c0, &c1);
        r0[nr] = c0;
        n[nr++] = c1 - c0;
    }
    return nr;
}

/* One direction's [K, GH] block of the weights of call c (the U of a REC call, the W of a PROJ
 * call; elements of its format's bytes): dst = src in the panels of layout key (to 1) or back
 * (to 0). Each column range (rec_ranges, proj_ranges) is cut as for_col_segments cuts it;
 * element (k, r0+c0+j) of the segment [c0, c0+ws) goes to K*(r0+c0) + k*ws + j, or, in a
 * vector segment of a key with pairs, for k < K rounded down to even, to
 * K*(r0+c0) + (k/2)*2*ws + 2*j + k%2: the two bf16 of a vdpbf16ps lane side by side. */
static void
rec_relayout_block(unsigned char *dst, const unsigned char *src, const kp_call *c, int key, int to)
{
    const int64_t es = wfmt_bytes(c->wfmt);
    const int vl = key / 64 % 64, nb = key / 4096 % 64, pairs = key / 262144;
    const int proj = c->kind == KP_RNN_PROJ;
    const lstmc_rt_rnn_params *p = &c->p.rnn;
    const int64_t H = proj ? c->p.proj.hidden : p->hidden;
    const int64_t GH = cell_gates(proj ? c->p.proj.cell : p->cell) * H;
    const int64_t K = proj ? c->p.proj.input_size : H;
    const int64_t tw = (int64_t)nb * vl;      /* the call's tile (kparams.c) */
    const int64_t K2 = pairs ? K / 2 * 2 : 0; /* rows in interleaved pairs */
    int64_t r0[4 * MT_MAX], n[4 * MT_MAX], c0, k, j;
    int nr = proj ? proj_ranges(GH, (int)tw, key % 64, r0, n) : rec_ranges(p, vl, key % 64, r0, n);
    int r;

    for (r = 0; r < nr; r++)
        for (c0 = 0; c0 < n[r];) {
            int64_t ws, kp;
            int vec = 1;
            if (c0 < n[r] / tw * tw)
                ws = tw;
            else if ((n[r] - c0) / vl > 0)
                ws = (n[r] - c0) / vl * vl;
            else {
                ws = n[r] - c0 > 8 ? 8 : n[r] - c0;
                vec = 0;
            }
            kp = vec ? K2 : 0;
            for (k = 0; k < K; k++)
                for (j = 0; j < ws; j++) {
                    /* a vector tile of a bf16 U for vdpbf16ps (rec_dot): (2p, j) and
                     * (2p + 1, j) side by side, the last row of an odd K alone */
                    int64_t pi = K * (r0[r] + c0) +
                                 (k < kp ? k / 2 * 2 * ws + 2 * j + k % 2 : k * ws + j),
                            ri = k * GH + r0[r] + c0 + j;
                    if (to)
                        memcpy(dst + pi * es, src + ri * es, (size_t)es);
                    else
                        memcpy(dst + ri * es, src + pi * es, (size_t)es);
                }
            c0 += ws;
        }
}

/* One direction's block of a layout: dst = src laid out for key (to 1) or back (to 0). */
typedef void (*relayout_fn)(unsigned char *dst, const unsigned char *src, const kp_call *c, int key,
                            int to);

/* Bring weights tensor t of call c from its layout (kp_wlayout, 0: the C / ONNX order) to
 * layout key, one direction of blk bytes after head bytes at a time, with block. Weights
 * another program shares (a sealed blob: the step program reads the same tensor) are not
 * rewritten: the new layout is made once for every program of the import (ir_data_derived
 * under dkey) and the tensor points at it. */
static int
relayout_tensor(ir_graph *g, kprog *kp, const kp_call *c, ir_tensor *t, int key, size_t head,
                size_t blk, int64_t D, uint64_t dkey, relayout_fn block, diag *d)
{
    int *layout = kp_wlayout(kp, t); /* the tensor's state: on its first reader */
    unsigned char *tmp, *data = t->data, *src = t->data, *made;
    int64_t dir;

    if (*layout == key)
        return 0;
    if ((made = ir_data_derived(g, src, dkey))) {
        t->data = made;
        *layout = key;
        return 0;
    }
    tmp = malloc(blk);
    if (!tmp) {
        diag_error(d, "out of memory");
        return -1;
    }
    made = NULL;
    if (ir_data_is_blob(g, src) && ir_data_mut(g, t) != src) /* shared: a copy to lay out */
        data = made = t->data;
    data += head;
    for (dir = 0; dir < D; dir++) {
        unsigned char *b = data + dir * blk;
        memcpy(tmp, b, blk);
        if (*layout) { /* laid out for another key: back to the C order first */
            block(b, tmp, c, *layout, 0);
            memcpy(tmp, b, blk);
        }
        if (key)
            block(b, tmp, c, key, 1);
    }
    free(tmp);
    if (made)
        ir_data_derive(g, src, dkey, made);
    *layout = key;
    return 0;
}

/* Bring the U of REC call i (the W of a PROJ call) to the panels of layout key (PANELS_KEY)
 * or to C order (0): relayout_tensor with rec_relayout_block. */
int
rec_relayout(ir_graph *g, kprog *kp, int i, int key, diag *d)
{
    const kp_call *c = &kp->calls[i];
    const int proj = c->kind == KP_RNN_PROJ;
    const int32_t D = proj ? c->p.proj.n_dirs : c->p.rnn.n_dirs;
    const int64_t H = proj ? c->p.proj.hidden : c->p.rnn.hidden;
    const int64_t cell = proj ? c->p.proj.cell : c->p.rnn.cell;
    const int64_t GH = cell_gates((int)cell) * H;
    const int64_t K = proj ? c->p.proj.input_size : H, es = wfmt_bytes(c->wfmt);
    const size_t blk = (size_t)(GH * K * es); /* bytes of one direction */
    /* int8: the values follow the D*GH scales (lstmc_rt.h) */
    const size_t head = c->wfmt == LSTMC_RT_WFMT_INT8 ? (size_t)(4 * D * GH) : 0;
    const int64_t kv[] = {*kp_wlayout(kp, c->in[1]), key, proj, D, H, cell, K, c->wfmt, es};

    return relayout_tensor(g, kp, c, c->in[1], key, head, blk, D,
                           ir_data_key("panels.rec_relayout", kv, 9), rec_relayout_block, d);
}

/* 1 when calls u and c read weights of the same shape and format (packed alike). */
static int
same_weights(const kp_call *u, const kp_call *c)
{
    if (u->kind != c->kind || u->wfmt != c->wfmt)
        return 0;
    if (c->kind == KP_RNN_PROJ)
        return u->p.proj.hidden == c->p.proj.hidden && u->p.proj.cell == c->p.proj.cell &&
               u->p.proj.n_dirs == c->p.proj.n_dirs && u->p.proj.input_size == c->p.proj.input_size;
    return u->p.rnn.hidden == c->p.rnn.hidden && u->p.rnn.cell == c->p.rnn.cell &&
           u->p.rnn.n_dirs == c->p.rnn.n_dirs;
}

/* 1 when REC call i of kp (LLVM-handled) may read its U in panels, or PROJ call i its W: a
 * constant f32 (or the int32 words of a reduced-precision format, lowp.c) that no other call
 * reads except as the weights of a call of the same kind, shape and format (packed alike),
 * and no OpenCL side that could read it in C order. */
int
rec_pack_ok(const kprog *kp, int i, const cg_options *o)
{
    const kp_call *c = &kp->calls[i];
    const ir_tensor *t = c->in[1];
    const int proj = c->kind == KP_RNN_PROJ;
    const int64_t D = proj ? c->p.proj.n_dirs : c->p.rnn.n_dirs;
    const int64_t H = proj ? c->p.proj.hidden : c->p.rnn.hidden;
    const int64_t GH = cell_gates(proj ? c->p.proj.cell : c->p.rnn.cell) * H;
    const int64_t K = proj ? c->p.proj.input_size : H;
    int j, k;

    if (o->opencl || !(c->kind == KP_RNN_REC || proj) || !t || !t->data)
        return 0;
    if (c->wfmt ? t->dtype != IR_DT_I32 ||
                      ir_shape_numel(&t->shape) != (lstmc_rt_lowp_bytes(c->wfmt, D, K, GH) + 3) / 4
                : t->dtype != IR_DT_F32 || ir_shape_numel(&t->shape) != D * GH * K)
        return 0;
    for (j = 0; j < kp->n_calls; j++) {
        const kp_call *u = &kp->calls[j];
        for (k = 0; k < KP_MAX_ARGS; k++) {
            if (u->out[k] == t)
                return 0;
            if (u->in[k] != t)
                continue;
            /* one tensor, one layout: a call sharing it (passes/dedup.c) must get the same
             * PANELS_KEY, which the wavefront and, outside one, rec_threads decide (the
             * shape, and for a REC call its scratch) */
            if (k != 1 || !same_weights(u, c) || !cg_llvm_handles(u) ||
                !kp_wave_of(kp, j) != !kp_wave_of(kp, i) ||
                (!proj && u->scratch_bytes != c->scratch_bytes))
                return 0;
        }
    }
    return 1;
}

/*
 * The W and U of a full-integer layer (KP_RNN_Q, rnnq.c) on x86 VNNI, in lanes = rows
 * blocks: each row range [r0, r0 + n) the kernel runs as one (rnnq_ranges) is cut into
 * blocks of 16 rows from r0, the last one wb = n mod 16 rows wide, and the whole blocks into
 * tiles of nb (the kernel's register tile, rnnq_tile_blocks; the last tile of those left).
 * A tile of bt blocks of wb rows starting at row r takes the bt * wb * K bytes from r * K of
 * the direction's block, the same bytes as in the ONNX order: first the K / 4 whole groups
 * of 4 terms, bt * wb * 4 bytes each, block i's wb * 4 at i * wb * 4 (row l's terms 4p ..
 * 4p + 3 at l * 4 in it), then the K % 4 terms left, block i's wb * (K % 4) bytes at
 * i * wb * (K % 4) (row l's at l * (K % 4)); the narrow block is a tile of its own. A 64-byte
 * load is a group of 16 rows, which vpdpbusd multiplies by the same 4 activations in every
 * lane: the 16 row sums end in the lanes, and a tile streams from one contiguous run. A
 * permutation of the bytes: the tensor keeps its shape and size.
 */
static void
rnnq_relayout_block(unsigned char *dst, const unsigned char *src, const kp_call *c, int key, int to)
{
    const lstmc_rt_rnnq_params *p = &c->p.rnnq;
    const int u = (key - 1) % 2, nt = (key - 1) / 2 % 64, nb = (key - 1) / 128;
    const int64_t K = u ? p->hidden : p->input_size;
    const int64_t ng = K / 4, tl = K % 4;
    int64_t r0[4 * MT_MAX], n[4 * MT_MAX], b, i, l, k;
    int nr = rnnq_ranges(p, nt, u, r0, n), r;

    for (r = 0; r < nr; r++)
        for (b = 0; b < n[r];) { /* a tile of bt blocks of wb rows from row r0 + b */
            const int64_t nf = (n[r] - b) / 16, wb = nf ? 16 : n[r] - b;
            const int64_t bt = nf ? (nf < nb ? nf : nb) : 1, row = r0[r] + b;
            for (i = 0; i < bt; i++)
                for (l = 0; l < wb; l++)
                    for (k = 0; k < K; k++) {
                        const int64_t pi =
                            row * K + (k < ng * 4
                                           ? k / 4 * bt * wb * 4 + i * wb * 4 + l * 4 + k % 4
                                           : ng * bt * wb * 4 + i * wb * tl + l * tl + k - ng * 4);
                        const int64_t ri = (row + i * 16 + l) * K + k;
                        if (to)
                            dst[pi] = src[ri];
                        else
                            dst[ri] = src[pi];
                    }
            b += bt * wb;
        }
}

int
rnnq_relayout(ir_graph *g, kprog *kp, int i, int u, int key, diag *d)
{
    const kp_call *c = &kp->calls[i];
    const lstmc_rt_rnnq_params *p = &c->p.rnnq;
    ir_tensor *t = c->in[1 + u];
    const int64_t D = p->n_dirs, GH = cell_gates(p->cell) * p->hidden;
    const int64_t K = u ? p->hidden : p->input_size;
    const int64_t kv[] = {*kp_wlayout(kp, t),     key, u, D, p->hidden, p->cell,
                          p->linear_before_reset, K};

    return relayout_tensor(g, kp, c, t, key, 0, (size_t)(GH * K), D,
                           ir_data_key("panels.rnnq_relayout", kv, 8), rnnq_relayout_block, d);
}

/* 1 when KP_RNN_Q call i of kp (LLVM-handled) may read in[1 + u] laid out (rnnq_relayout):
 * constant int8 bytes of the ONNX shape that no other call reads except as the same operand
 * of a KP_RNN_Q call of the same shape that the LLVM kernels run too (so on as many threads
 * and in the same layout), and no OpenCL side. */
int
rnnq_pack_ok(const kprog *kp, int i, int u, const cg_options *o)
{
    const kp_call *c = &kp->calls[i];
    const lstmc_rt_rnnq_params *p = &c->p.rnnq;
    const ir_tensor *t = c->in[1 + u];
    const int64_t GH = cell_gates(p->cell) * p->hidden, K = u ? p->hidden : p->input_size;
    int j, k;

    if (o->opencl || c->kind != KP_RNN_Q || !t || !t->data || t->dtype != IR_DT_I8 ||
        ir_shape_numel(&t->shape) != p->n_dirs * GH * K)
        return 0;
    for (j = 0; j < kp->n_calls; j++) {
        const kp_call *x = &kp->calls[j];
        const lstmc_rt_rnnq_params *q = &x->p.rnnq;
        for (k = 0; k < KP_MAX_ARGS; k++) {
            if (x->out[k] == t)
                return 0;
            if (x->in[k] != t)
                continue;
            if (k != 1 + u || x->kind != KP_RNN_Q || !cg_llvm_handles(x) || q->cell != p->cell ||
                q->hidden != p->hidden || q->input_size != p->input_size ||
                q->n_dirs != p->n_dirs || q->bits != p->bits ||
                q->linear_before_reset != p->linear_before_reset ||
                rnnq_tile_blocks(x, u, 1) != rnnq_tile_blocks(c, u, 1) ||
                rnnq_tile_blocks(x, u, 2) != rnnq_tile_blocks(c, u, 2))
                return 0;
        }
    }
    return 1;
}

/* 1 when call i can run on thread slices (emit_rec_mt, emit_proj_mt_body): an LLVM LSTM
 * RnnRec whose U can be cut into panels, or an LLVM RnnProj, in any weights format (the
 * reduced-precision panels are cut by the slices as fp32's), an integer layer (rnnq.c), a
 * tissue kernel (tissue.c) or a DRS layer (drs.c), and no OpenCL side. */
static int
rec_mt_ok(const kprog *kp, int i, const cg_options *o)
{
    const kp_call *c = &kp->calls[i];
    if (c->kind == KP_RNN_Q) /* rnnq.c: sliced by units, any cell (issue 22) */
        return !o->opencl && cg_llvm_handles(c);
    if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS) /* tissue.c: sliced by
                                                                       units */
        return !o->opencl && cg_llvm_handles(c);
    if (o->opencl || !cg_llvm_handles(c))
        return 0;
    if (c->kind == KP_RNN_PROJ)
        return 1;
    if (c->kind == KP_LSTM_DRS) /* drs.c: sliced by units, h double-buffered (issue 24) */
        return c->scratch_bytes >= 32 * c->p.drs.p.hidden;
    return c->kind == KP_RNN_REC && c->p.rnn.cell == LSTMC_RT_CELL_LSTM &&
           c->scratch_bytes >= 28 * c->p.rnn.hidden && rec_pack_ok(kp, i, o);
}

/* Threads for call i of kp: > 1 for a call rec_mt_ok takes, when --threads asks for them or
 * by default (the target's cores) for a big enough layer. */
int
rec_threads(const kprog *kp, int i, const cg_options *o, const target *t)
{
    const kp_call *c = &kp->calls[i];
    int nt = o->threads > 0 ? o->threads : t->cores;

    if (nt > MT_MAX)
        nt = MT_MAX;
    if (nt <= 1 || !rec_mt_ok(kp, i, o))
        return 1;
    if (o->threads == 0 &&
        (c->kind == KP_RNN_PROJ                                       ? c->p.proj.hidden
         : c->kind == KP_RNN_Q                                        ? c->p.rnnq.hidden
         : c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS ? c->p.tissue.p.rnn.hidden
                                                                      : c->p.rnn.hidden) <
            (t->kernels.mt_min_hidden ? t->kernels.mt_min_hidden : TK_DEFAULT_MT_MIN_HIDDEN))
        return 1;
    if (o->threads == 0 && c->kind == KP_RNN_PROJ && c->p.proj.cell != LSTMC_RT_CELL_LSTM)
        return 1;
    return nt;
}

int
rec_hint_threads(const kprog *kp, int i, const cg_options *o)
{
    const kp_call *c = &kp->calls[i];
    int h;
    if (!c->node || c->kind == KP_RNN_Q || kp_wave_of(kp, i) || !rec_mt_ok(kp, i, o))
        return 0; /* the integer layer: no weight layout to keep (rnnq.c) */
    for (h = 0; h < o->n_layout_hints; h++)
        if (o->layout_hints[h].kind == (int)c->kind &&
            strcmp(o->layout_hints[h].node, c->node->name) == 0)
            return o->layout_hints[h].threads > MT_MAX ? 0 : o->layout_hints[h].threads;
    return 0;
}

#endif /* LSTMC_HAVE_LLVM */
