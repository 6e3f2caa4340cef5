/*
 * plan.c — the OpenCL plan: which calls run on the device (cg_opencl_handles, and the
 * local-memory limit of a DRS layer), the kernels of each offloaded call and their launch
 * shapes (rows per work-item, MobiRNN §3.2; one-work-group `loop` layers), and the layout
 * of the two device buffers (MobiRNN §3.2: preallocated once, at init): `wts`, the weights
 * the layers read, and `mem`, a mirror of the host arena at the same offsets, then one
 * region per graph input and output, then each layer's state. Every offset is a
 * compile-time constant of the kernels.
 */
#include "opencl_impl.h"

int
cg_opencl_handles(const kp_call *c)
{
    return c->kind == KP_RNN || c->kind == KP_RNN_PROJ || c->kind == KP_RNN_REC ||
           c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_DRS;
}

/* The device location of t (non-NULL) under plan P. */
dev_loc
ocl_loc_of(const ocl_plan *P, const ir_tensor *t)
{
    const memplan_loc *l = &P->mp->tensor[t->id];
    dev_loc r = {0, 0};
    switch (l->kind) {
    case MEMPLAN_CONST:
        r.buf = 1;
        r.off = P->const_off[t->id];
        break;
    case MEMPLAN_ARENA:
        r.off = l->offset / 4;
        break;
    case MEMPLAN_INPUT:
        r.off = P->in_off[l->index];
        break;
    case MEMPLAN_OUTPUT:
        r.off = P->out_off[l->index];
        break;
    default:
        break;
    }
    return r;
}

tissue_geom
ocl_tissue_geometry(const kp_call *c)
{
    const lstmc_rt_tissue_params *tp = &c->p.tissue.p;
    const int64_t H = tp->rnn.hidden;
    tissue_geom z;
    z.nc = tp->rnn.seq_len * tp->rnn.batch;
    z.cap = tp->mts < z.nc ? tp->mts : z.nc;
    z.slots = 2 * (int64_t)tp->mts < z.nc ? 2 * (int64_t)tp->mts : z.nc;
    if (z.cap < 1)
        z.cap = 1;
    if (z.slots < 1)
        z.slots = 1;
    z.f_str = round_up(z.cap * 4 * H + z.slots * 2 * H + z.cap * H, OCL_ALIGN_WORDS);
    z.i_str = round_up(15 * z.nc + 1 + z.slots + 8, OCL_ALIGN_WORDS);
    return z;
}

/* Words of layer state call c needs in mem: h ping-pong, c, GRU z and r.h, and the
 * projection P of an unsplit layer (KP_RNN). */
static int64_t
state_words(const kp_call *c)
{
    const lstmc_rt_rnn_params *p = &c->p.rnn;
    int64_t dnh, w;
    if (c->kind == KP_RNN_PROJ)
        return 0;
    if (c->kind == KP_LSTM_TISSUE) {
        tissue_geom z = ocl_tissue_geometry(c);
        return c->p.tissue.p.rnn.n_dirs * (z.f_str + z.i_str);
    }
    if (c->kind == KP_LSTM_DRS) /* per chain: cells run, rows kept */
        return round_up(2 * c->p.drs.p.n_dirs * c->p.drs.p.batch, OCL_ALIGN_WORDS);
    dnh = round_up(p->n_dirs * p->batch * p->hidden, OCL_ALIGN_WORDS);
    w = 5 * dnh;
    if (c->kind == KP_RNN)
        w += round_up(p->n_dirs * p->seq_len * p->batch * gates(p->cell) * p->hidden,
                      OCL_ALIGN_WORDS);
    return w;
}

/* Lay out both device buffers. Returns 0, or -1 after reporting a layer too big for
 * 32-bit device indexing. */
int
ocl_plan_memory(ocl_plan *P, diag *d)
{
    const ir_graph *g = P->g;
    const kprog *kp = P->kp;
    int64_t w = round_up(P->mp->arena_size / 4, OCL_ALIGN_WORDS);
    int i, j;
    for (i = 0; i < g->n_inputs && i < 64; i++) {
        P->in_off[i] = w;
        w += round_up(numel(g->inputs[i]) * (int64_t)ir_dtype_size(g->inputs[i]->dtype) / 4 + 1,
                      OCL_ALIGN_WORDS);
    }
    for (i = 0; i < kp->n_outputs && i < 64; i++) {
        const ir_tensor *t = kp->outputs[i];
        P->out_off[i] = w;
        w += round_up(numel(t) * (int64_t)ir_dtype_size(t->dtype) / 4 + 1, OCL_ALIGN_WORDS);
    }
    for (i = 0; i < kp->n_calls; i++) {
        const kp_call *c = &kp->calls[i];
        P->state_off[i] = -1;
        if (!P->handled[i])
            continue;
        P->state_off[i] = w;
        w += state_words(c);
        for (j = 0; j < c->n_in; j++) {
            const ir_tensor *t = c->in[j];
            if (t && P->mp->tensor[t->id].kind == MEMPLAN_CONST && P->const_off[t->id] < 0) {
                P->const_off[t->id] = P->wts_words;
                P->wts_words +=
                    round_up(numel(t) * (int64_t)ir_dtype_size(t->dtype) / 4 + 1, OCL_ALIGN_WORDS);
            }
        }
    }
    P->mem_words = w;
    if (P->mem_words >= ((int64_t)1 << 31) || P->wts_words >= ((int64_t)1 << 31)) {
        diag_error(d,
                   "the OpenCL kernels index device memory with 32-bit ints: this model "
                   "needs %lld + %lld words, more than 2^31",
                   (long long)P->mem_words, (long long)P->wts_words);
        return -1;
    }
    return 0;
}

/* Rows per work-item (MobiRNN §3.2): enough rows that the D*N*H rows fill the device's
 * work-items about once, at most OCL_MAX_RPI, and a divisor of H so that every
 * work-item has the same work (no guard in the hot loop). */
int
ocl_rows_per_item(const ocl_plan *P, int64_t dn, int64_t H)
{
    int64_t want = (dn * H + P->threads - 1) / P->threads, r;
    if (want > OCL_MAX_RPI)
        want = OCL_MAX_RPI;
    for (r = want; r > 1; r--)
        if (H % r == 0)
            return (int)r;
    return 1;
}

/* 1 when recurrent call c fits one work-group of the profile's size: its whole time loop
 * is one launch of the `loop` kernel (steps separated by barriers). */
int
ocl_use_loop(const ocl_plan *P, const kp_call *c)
{
    const lstmc_rt_rnn_params *p = &c->p.rnn;
    int rpi;
    if (c->kind == KP_RNN_PROJ || c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_DRS)
        return 0;
    rpi = ocl_rows_per_item(P, p->n_dirs * p->batch, p->hidden);
    return p->n_dirs * p->batch * (p->hidden / rpi) <= P->wg;
}

/* The layer parameters of call c: the recurrent part of KP_RNN/KP_RNN_REC, or NULL. */
const lstmc_rt_rnn_params *
ocl_rec_params(const kp_call *c)
{
    return c->kind == KP_RNN_PROJ      ? NULL
           : c->kind == KP_LSTM_TISSUE ? &c->p.tissue.p.rnn
           : c->kind == KP_LSTM_DRS    ? &c->p.drs.p
                                       : &c->p.rnn;
}

/* Local memory a DRS layer needs (h, o, gates i f c, R, the counts). */
int64_t
ocl_drs_local_bytes(const ocl_plan *P, const kp_call *c)
{
    return (6 * c->p.drs.p.hidden + P->wg + 1) * 4;
}

int64_t
ocl_local_limit(const ocl_plan *P)
{
    return P->t->gpu_shared_bytes > 0 ? P->t->gpu_shared_bytes / 2 : 16384;
}

/* Kernel names of call c, in the order <name>_ocl.c indexes them. */
int
ocl_kernel_names(const ocl_plan *P, const kp_call *c, const char **names)
{
    int n = 0;
    if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_DRS) {
        names[0] = c->kind == KP_LSTM_DRS ? "drs" : "tissue";
        return 1;
    }
    if (c->kind != KP_RNN_REC)
        names[n++] = "proj";
    if (c->kind != KP_RNN_PROJ) {
        names[n++] = "init";
        names[n++] = "step";
        if (c->p.rnn.cell == LSTMC_RT_CELL_GRU && !c->p.rnn.linear_before_reset)
            names[n++] = "step2";
        names[n++] = "final";
        if (ocl_use_loop(P, c))
            names[n++] = "loop";
    }
    return n;
}
