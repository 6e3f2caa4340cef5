/*
 * opencl.c — the OpenCL path of GPU targets (--target=pocl, tegra-x1, a profile with a
 * "gpu" section): every recurrent layer (KP_RNN, KP_RNN_PROJ, KP_RNN_REC) runs as OpenCL
 * kernels specialised to its shapes; every other call keeps its host C kernel.
 *
 *   OUTDIR/<name>.cl      the kernels (also embedded in <name>_ocl.c: the library is
 *                         standalone)
 *   OUTDIR/<name>_ocl.h   <name>_ocl_init / _release / _log / _device / _set_binary_cache
 *   OUTDIR/<name>_ocl.c   the host side: one function per offloaded call with the runtime
 *                         kernel's signature (<name>_k<i>, as the LLVM kernels), so the
 *                         schedule in <name>.c is unchanged
 *
 * Device memory (MobiRNN §3.2: preallocated once, at init) is two buffers: `wts`, the
 * weights the layers read, uploaded at init, and `mem`, a mirror of the host arena at the
 * same offsets (so memplan's sharing holds on the device too), then one region per graph
 * input and output, then each layer's state (h ping-pong, c, GRU z and r.h) and, for an
 * unsplit layer, its projection P. Every offset is a compile-time constant of the kernels.
 * Reduced-precision W and U (--weights, passes/lowp.c) go to `wts` in their storage
 * format (2 or 1 bytes a weight plus int8's row scales); the kernels convert them as they
 * read them and sum in fp32 (opencl_template.h LOWP_AT).
 *
 * Host round trips: a tensor is uploaded only when the device does not hold it yet (graph
 * inputs, host-computed tensors) and downloaded only when a host call, a graph output or
 * a sequence_lens check needs it; a layer enqueues its T steps back to back and the queue
 * is finished only before a host call and at the end of the run.
 */
#include "codegen.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"
#include "opencl_template.h"
#include "opencl_drs.h"
#include "opencl_tissue.h"
#include "target.h"

/* Largest rows-per-work-item: acc[] stays in registers (4 gates x 8 rows). */
#define OCL_MAX_RPI 8
/* Words of padding between device regions (keeps them 64-byte aligned). */
#define OCL_ALIGN_WORDS 16

/* Where a tensor lives on the device: buffer 0 = mem, 1 = wts; offset in 4-byte words. */
typedef struct dev_loc {
    int buf;
    int64_t off;
} dev_loc;

typedef struct ocl_plan {
    const ir_graph *g;
    const kprog *kp;
    const memplan *mp;
    const target *t;
    const unsigned char *handled;
    const unsigned char *cpu_llvm; /* by call: 1 = CPU side is <name>_cpu_k<i> (LLVM) */
    int64_t *const_off;            /* by tensor id: word offset in wts, -1 = not on the device */
    int64_t wts_words;
    int64_t in_off[64], out_off[64]; /* graph input/output regions in mem (words) */
    int64_t *state_off;              /* by call: first word of the layer's state in mem */
    int64_t mem_words;
    int wg;      /* 1-D work-group size (profile) */
    int ts;      /* G1 tile size */
    int threads; /* work-items the device runs at once (profile) */
} ocl_plan;

int
cg_opencl_wanted(const char *target_name)
{
    const target *t = target_name ? target_find(target_name) : NULL;
    return t && t->gpu != NULL;
}

int
cg_opencl_handles(const kp_call *c)
{
    return c->kind == KP_RNN || c->kind == KP_RNN_PROJ || c->kind == KP_RNN_REC ||
           c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_DRS;
}

static int64_t
round_up(int64_t x, int64_t m)
{
    return (x + m - 1) / m * m;
}

static int64_t
numel(const ir_tensor *t)
{
    int64_t n = ir_shape_numel(&t->shape);
    return n > 0 ? n : 0;
}

static int64_t
gates(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 4 : cell == LSTMC_RT_CELL_GRU ? 3 : 1;
}

static int
n_acts(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 3 : cell == LSTMC_RT_CELL_GRU ? 2 : 1;
}

/* The device location of t (non-NULL) under plan P. */
static dev_loc
loc_of(const ocl_plan *P, const ir_tensor *t)
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

/* The device state of a tissue layer (opencl_tissue.h), per direction: floats [gates
 * CAP x 4H | sub-layer states SLOTS x 2H | h rows CAP x H], then the int plan. Cell counts
 * and caps as rt_tissue.c's params_ok. */
typedef struct tissue_geom {
    int64_t nc, cap, slots, f_str, i_str;
} tissue_geom;

static tissue_geom
tissue_geometry(const kp_call *c)
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
        tissue_geom z = tissue_geometry(c);
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
static int
plan_memory(ocl_plan *P, diag *d)
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

/* --- the .cl text ------------------------------------------------------------------ */

/* A float as an OpenCL C literal that reads back to the same value. */
static void
put_flt(FILE *f, float v)
{
    char buf[64];
    if (isnan(v)) {
        fputs("NAN", f);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? "INFINITY" : "(-INFINITY)", f);
        return;
    }
    snprintf(buf, sizeof buf, "%.9g", (double)v);
    if (!strpbrk(buf, ".en"))
        strcat(buf, ".0");
    fprintf(f, "(%sf)", buf);
}

/* One activation as the body of an OpenCL function of x, exactly lstmc_rt_act_apply. */
static void
put_act(FILE *f, int idx, const lstmc_rt_act *a)
{
    fprintf(f, "float KN(f%d)(float x)\n{\n    ", idx);
    switch (a->kind) {
    case LSTMC_RT_ACT_SIGMOID:
        fputs("return 1.0f / (1.0f + exp(-x));", f);
        break;
    case LSTMC_RT_ACT_TANH:
        fputs("return tanh(x);", f);
        break;
    case LSTMC_RT_ACT_RELU:
        fputs("return x > 0.0f ? x : 0.0f;", f);
        break;
    case LSTMC_RT_ACT_HARD_SIGMOID:
        fputs("const float e = ", f);
        put_flt(f, a->alpha);
        fputs(" * x + ", f);
        put_flt(f, a->beta);
        fputs(";\n    return e < 0.0f ? 0.0f : (e > 1.0f ? 1.0f : e);", f);
        break;
    case LSTMC_RT_ACT_AFFINE:
        fputs("return ", f);
        put_flt(f, a->alpha);
        fputs(" * x + ", f);
        put_flt(f, a->beta);
        fputs(";", f);
        break;
    case LSTMC_RT_ACT_LEAKY_RELU:
        fputs("return x < 0.0f ? ", f);
        put_flt(f, a->alpha);
        fputs(" * x : x;", f);
        break;
    case LSTMC_RT_ACT_THRESHOLDED_RELU:
        fputs("return x > ", f);
        put_flt(f, a->alpha);
        fputs(" ? x : 0.0f;", f);
        break;
    case LSTMC_RT_ACT_SCALED_TANH:
        fputs("return ", f);
        put_flt(f, a->alpha);
        fputs(" * tanh(", f);
        put_flt(f, a->beta);
        fputs(" * x);", f);
        break;
    case LSTMC_RT_ACT_ELU:
        fputs("return x >= 0.0f ? x : ", f);
        put_flt(f, a->alpha);
        fputs(" * (exp(x) - 1.0f);", f);
        break;
    case LSTMC_RT_ACT_SOFTSIGN:
        fputs("return x / (1.0f + fabs(x));", f);
        break;
    default: /* softplus: max(x, 0) + log1p(e^-|x|), as the C kernel */
        fputs("return (x > 0.0f ? x : 0.0f) + log1p(exp(-fabs(x)));", f);
        break;
    }
    fputs("\n}\n", f);
}

/* The C parameters of lstmc_rt_lstm_tissue (for prototypes of its CPU kernels). */
static const char tissue_args_c[] =
    "const lstmc_rt_tissue_params *p, float alpha_inter,\n"
    "    const float *P, const float *Up, const float *row_abs_sum, const int32_t *seq_lens,\n"
    "    const float *init_h, const float *init_c, const float *Peep, const float *h_pred,\n"
    "    const float *c_pred, float *Y, float *Y_h, float *Y_c, lstmc_rt_tissue_stats *stats,\n"
    "    void *scratch";

/* The C parameters of lstmc_rt_lstm_drs. */
static const char drs_args_c[] =
    "const lstmc_rt_rnn_params *p, float alpha_intra,\n"
    "    const float *P, const float *Uo, const float *Ufic, const int32_t *seq_lens,\n"
    "    const float *init_h, const float *init_c, const float *Peep, float *Y, float *Y_h,\n"
    "    float *Y_c, lstmc_rt_drs_stats *stats, void *scratch";

/* Every per-layer macro, #undef'd after each layer. */
static const char *const layer_macros[] = {
    "KN",     "CELL",     "G",     "GH",     "GREC",     "T",     "NB",     "IN",      "H",
    "D",      "ROWS",     "REV",   "LAYOUT", "HAS_CLIP", "CLIPV", "IFG",    "LBR",     "LBRH",
    "RPI",    "WPR",      "TS",    "WPACK",  "RPACK",    "BMODE", "RBMODE", "HAS_SEQ", "HAS_H0",
    "HAS_C0", "HAS_PEEP", "HAS_Y", "HAS_YH", "HAS_YC",   "X_B",   "X_O",    "W_B",     "W_O",
    "B_B",    "B_O",      "PO_B",  "PO_O",   "PI_B",     "PI_O",  "R_B",    "R_O",     "RB_B",
    "RB_O",   "SEQ_B",    "SEQ_O", "H0_B",   "H0_O",     "C0_B",  "C0_O",   "PE_B",    "PE_O",
    "Y_B",    "Y_O",      "YH_B",  "YH_O",   "YC_B",     "YC_O",  "HA_O",   "HB_O",    "C_O",
    "Z_O",    "RH_O",     "ACT0",  "ACT1",   "ACT2",     "LOOP",  "LW",      "CAP",
    "SLOTS",  "NC",       "CPI",   "CB",     "HLOC",     "UP_B",  "UP_O",   "DS_B",    "DS_O",
    "HP_B",   "HP_O",     "CP_B",  "CP_O",   "HAS_DS",   "HAS_HP", "HAS_CP", "TG_O",   "TS_O",
    "THB_O",  "TI_O",     "TF_STR", "TI_STR", "UO_B",  "UO_O",   "UF_B",    "UF_O",
    "UPI",    "BPI",      "DST_O", "WFMT", "RFMT", NULL};

/* "#define NAME_B mem|wts" and "#define NAME_O off" for t, or mem/0 when t is NULL. */
static void
put_tensor_macros(FILE *f, const ocl_plan *P, const char *nm, const ir_tensor *t)
{
    dev_loc l = {0, 0};
    if (t)
        l = loc_of(P, t);
    fprintf(f, "#define %s_B %s\n#define %s_O %lld\n", nm, l.buf ? "wts" : "mem", nm,
            (long long)l.off);
}

/* Rows per work-item (MobiRNN §3.2): enough rows that the D*N*H rows fill the device's
 * work-items about once, at most OCL_MAX_RPI, and a divisor of H so that every
 * work-item has the same work (no guard in the hot loop). */
static int
rows_per_item(const ocl_plan *P, int64_t dn, int64_t H)
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
static int
use_loop(const ocl_plan *P, const kp_call *c)
{
    const lstmc_rt_rnn_params *p = &c->p.rnn;
    int rpi;
    if (c->kind == KP_RNN_PROJ || c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_DRS)
        return 0;
    rpi = rows_per_item(P, p->n_dirs * p->batch, p->hidden);
    return p->n_dirs * p->batch * (p->hidden / rpi) <= P->wg;
}

/* The layer parameters of call c: the recurrent part of KP_RNN/KP_RNN_REC, or NULL. */
static const lstmc_rt_rnn_params *
rec_params(const kp_call *c)
{
    return c->kind == KP_RNN_PROJ      ? NULL
           : c->kind == KP_LSTM_TISSUE ? &c->p.tissue.p.rnn
           : c->kind == KP_LSTM_DRS    ? &c->p.drs.p
                                       : &c->p.rnn;
}

/* The activation functions of layer p and ACT0..ACT2(x) choosing by direction d. */
static void
put_acts(FILE *f, const lstmc_rt_rnn_params *p)
{
    int na = n_acts(p->cell), k;
    for (k = 0; k < na * p->n_dirs; k++)
        put_act(f, k, &p->act[k]);
    for (k = 0; k < 3; k++) {
        if (k >= na) /* unused by this cell */
            fprintf(f, "#define ACT%d(x) (x)\n", k);
        else if (p->n_dirs == 2)
            fprintf(f, "#define ACT%d(x) (d ? KN(f%d)(x) : KN(f%d)(x))\n", k, na + k, k);
        else
            fprintf(f, "#define ACT%d(x) KN(f%d)(x)\n", k, k);
    }
}

/* Columns per work-item of the tissue GEMM (every work-item the same count) and cells per
 * register block (acc[] of at most 64 floats). */
static int
tissue_cpi(const ocl_plan *P, int64_t H)
{
    return (int)((4 * H + P->wg - 1) / P->wg);
}

static int
tissue_cb(const ocl_plan *P, const kp_call *c)
{
    int64_t cpi = tissue_cpi(P, c->p.tissue.p.rnn.hidden), cb = 64 / cpi;
    tissue_geom z = tissue_geometry(c);
    if (cb > z.cap)
        cb = z.cap;
    return cb < 1 ? 1 : (int)cb;
}

/* Local memory a DRS layer needs (h, o, gates i f c, R, the counts). */
static int64_t
drs_local_bytes(const ocl_plan *P, const kp_call *c)
{
    return (6 * c->p.drs.p.hidden + P->wg + 1) * 4;
}

static int64_t
local_limit(const ocl_plan *P)
{
    return P->t->gpu_shared_bytes > 0 ? P->t->gpu_shared_bytes / 2 : 16384;
}

/* The macros every LSTM layer of the approximate schedules shares (sizes, attributes). */
static void
put_lstm_macros(FILE *f, const ocl_plan *P, const lstmc_rt_rnn_params *p)
{
    const int64_t H = p->hidden;
    fprintf(f, "#define CELL 0\n#define G 4\n#define GH %lld\n#define T %lld\n#define NB %lld\n"
               "#define H %lld\n#define D %d\n#define ROWS %lld\n#define REV %d\n"
               "#define LAYOUT %d\n#define HAS_CLIP %d\n#define CLIPV ",
            (long long)(4 * H), (long long)p->seq_len, (long long)p->batch, (long long)H,
            p->n_dirs, (long long)(p->seq_len * p->batch), p->reverse, p->layout, p->has_clip);
    put_flt(f, p->clip);
    fprintf(f, "\n#define IFG %d\n#define LW %d\n", p->input_forget, P->wg);
}

/* The arguments the tissue and DRS kernels share (both take P first, then two weight
 * inputs, then seq_lens init_h init_c Peep, and write Y Y_h Y_c), then the activations
 * and the LSTM cell update. */
static void
put_lstm_io(FILE *f, const ocl_plan *P, const kp_call *c, const lstmc_rt_rnn_params *p)
{
    int k;
    fprintf(f, "#define HAS_SEQ %d\n#define HAS_H0 %d\n#define HAS_C0 %d\n#define HAS_PEEP %d\n"
               "#define HAS_Y %d\n#define HAS_YH %d\n#define HAS_YC %d\n",
            c->in[3] != NULL, c->in[4] != NULL, c->in[5] != NULL, c->in[6] != NULL,
            c->out[0] != NULL, c->out[1] != NULL, c->out[2] != NULL);
    put_tensor_macros(f, P, "PI", c->in[0]);
    put_tensor_macros(f, P, "SEQ", c->in[3]);
    put_tensor_macros(f, P, "H0", c->in[4]);
    put_tensor_macros(f, P, "C0", c->in[5]);
    put_tensor_macros(f, P, "PE", c->in[6]);
    put_tensor_macros(f, P, "Y", c->out[0]);
    put_tensor_macros(f, P, "YH", c->out[1]);
    put_tensor_macros(f, P, "YC", c->out[2]);
    put_acts(f, p);
    for (k = 0; ocl_template_lstm_ew[k]; k++)
        fputs(ocl_template_lstm_ew[k], f);
}

/* KP_LSTM_DRS: the macros of opencl_drs.h, then its text. */
static void
put_drs_layer(FILE *f, const ocl_plan *P, int idx)
{
    const kp_call *c = &P->kp->calls[idx];
    const lstmc_rt_rnn_params *p = &c->p.drs.p;
    const int64_t per = (p->hidden + P->wg - 1) / P->wg;
    int k;

    put_lstm_macros(f, P, p);
    fprintf(f, "#define UPI %lld\n#define BPI %lld\n#define DST_O %lld\n", (long long)per,
            (long long)per, (long long)P->state_off[idx]);
    put_tensor_macros(f, P, "UO", c->in[1]);
    put_tensor_macros(f, P, "UF", c->in[2]);
    put_lstm_io(f, P, c, p);
    for (k = 0; ocl_template_drs[k]; k++)
        fputs(ocl_template_drs[k], f);
}

/* KP_LSTM_TISSUE: the macros of opencl_tissue.h, then its text. */
static void
put_tissue_layer(FILE *f, const ocl_plan *P, int idx)
{
    const kp_call *c = &P->kp->calls[idx];
    const lstmc_rt_rnn_params *p = &c->p.tissue.p.rnn;
    const int64_t H = p->hidden, so = P->state_off[idx];
    tissue_geom z = tissue_geometry(c);
    int k;

    put_lstm_macros(f, P, p);
    fprintf(f, "#define CAP %lld\n#define SLOTS %lld\n"
               "#define NC %lld\n#define CPI %d\n#define CB %d\n#define HLOC %d\n",
            (long long)z.cap, (long long)z.slots, (long long)z.nc, tissue_cpi(P, H),
            tissue_cb(P, c), z.cap * H * 4 <= local_limit(P));
    fprintf(f, "#define TG_O %lld\n#define TS_O %lld\n#define THB_O %lld\n#define TI_O %lld\n"
               "#define TF_STR %lld\n#define TI_STR %lld\n",
            (long long)so, (long long)(so + z.cap * 4 * H),
            (long long)(so + z.cap * 4 * H + z.slots * 2 * H),
            (long long)(so + p->n_dirs * z.f_str), (long long)z.f_str, (long long)z.i_str);
    fprintf(f, "#define HAS_DS %d\n#define HAS_HP %d\n#define HAS_CP %d\n", c->in[2] != NULL,
            c->in[7] != NULL, c->in[8] != NULL);
    put_tensor_macros(f, P, "UP", c->in[1]);
    put_tensor_macros(f, P, "DS", c->in[2]);
    put_tensor_macros(f, P, "HP", c->in[7]);
    put_tensor_macros(f, P, "CP", c->in[8]);
    put_lstm_io(f, P, c, p);
    for (k = 0; ocl_template_tissue[k]; k++)
        fputs(ocl_template_tissue[k], f);
}

static void
put_layer(FILE *f, const ocl_plan *P, int idx)
{
    const kp_call *c = &P->kp->calls[idx];
    const lstmc_rt_rnn_params *p = rec_params(c);
    int64_t so = P->state_off[idx];
    int k;

    fprintf(f, "/* ---- call %d: node '%s' (%s) ---- */\n", idx, c->node ? c->node->name : "?",
            c->node ? c->node->op_type : "?");
    fprintf(f, "#define KN(x) k%d_##x\n#define TS %d\n", idx, P->ts);
    if (c->kind == KP_LSTM_TISSUE) {
        put_tissue_layer(f, P, idx);
    } else if (c->kind == KP_LSTM_DRS) {
        put_drs_layer(f, P, idx);
    } else if (c->kind == KP_RNN_PROJ) {
        const lstmc_rt_rnn_proj_params *q = &c->p.proj;
        int64_t G = gates(q->cell);
        fprintf(f,
                "#define CELL %d\n#define G %lld\n#define GH %lld\n#define H %lld\n"
                "#define IN %lld\n#define D %d\n#define ROWS %lld\n#define WPACK %d\n"
                "#define BMODE %d\n#define LBRH %d\n#define WFMT %d\n",
                q->cell, (long long)G, (long long)(G * q->hidden), (long long)q->hidden,
                (long long)q->input_size, q->n_dirs, (long long)q->rows, q->packed,
                !c->in[2]   ? 0
                : q->packed ? 1
                            : 2,
                q->cell == LSTMC_RT_CELL_GRU && q->linear_before_reset, c->wfmt);
        put_tensor_macros(f, P, "X", c->in[0]);
        put_tensor_macros(f, P, "W", c->in[1]);
        put_tensor_macros(f, P, "B", c->in[2]);
        put_tensor_macros(f, P, "PO", c->out[0]);
    } else {
        int64_t G = gates(p->cell), D = p->n_dirs;
        int rpi = rows_per_item(P, D * p->batch, p->hidden);
        int rnn = c->kind == KP_RNN; /* unsplit: W R B; projection into the layer state */
        const ir_tensor *Rt = c->in[rnn ? 2 : 1];
        const int base = rnn ? 4 : 3; /* index of seq_lens */
        int64_t dnh = round_up(D * p->batch * p->hidden, OCL_ALIGN_WORDS);
        fprintf(f,
                "#define CELL %d\n#define G %lld\n#define GH %lld\n#define GREC %lld\n"
                "#define T %lld\n#define NB %lld\n#define IN %lld\n#define H %lld\n"
                "#define D %lld\n#define ROWS %lld\n#define REV %d\n#define LAYOUT %d\n",
                p->cell, (long long)G, (long long)(G * p->hidden),
                (long long)(p->cell == LSTMC_RT_CELL_GRU && !p->linear_before_reset ? 2 : G),
                (long long)p->seq_len, (long long)p->batch, (long long)p->input_size,
                (long long)p->hidden, (long long)D, (long long)(p->seq_len * p->batch), p->reverse,
                p->layout);
        fprintf(f, "#define HAS_CLIP %d\n#define CLIPV ", p->has_clip);
        put_flt(f, p->clip);
        fprintf(f,
                "\n#define IFG %d\n#define LBR %d\n#define LBRH %d\n#define RPI %d\n"
                "#define WPR %lld\n#define LW %d\n#define LOOP %d\n",
                p->input_forget, p->linear_before_reset,
                p->cell == LSTMC_RT_CELL_GRU && p->linear_before_reset, rpi,
                (long long)(p->hidden / rpi), P->wg, use_loop(P, c));
        /* the recurrent weights and the GRU's Rbh */
        fprintf(f, "#define RPACK %d\n#define RFMT %d\n", rnn ? 0 : p->packed, rnn ? 0 : c->wfmt);
        put_tensor_macros(f, P, "R", Rt);
        if (rnn) {
            fprintf(f, "#define RBMODE %d\n", c->in[3] ? 2 : 0);
            put_tensor_macros(f, P, "RB", c->in[3]);
        } else {
            fprintf(f, "#define RBMODE %d\n", !c->in[2] ? 0 : p->packed ? 1 : 2);
            put_tensor_macros(f, P, "RB", c->in[2]);
        }
        fprintf(f,
                "#define HAS_SEQ %d\n#define HAS_H0 %d\n#define HAS_C0 %d\n#define HAS_PEEP %d\n"
                "#define HAS_Y %d\n#define HAS_YH %d\n#define HAS_YC %d\n",
                c->in[base] != NULL, c->in[base + 1] != NULL, c->in[base + 2] != NULL,
                c->in[base + 3] != NULL && p->cell == LSTMC_RT_CELL_LSTM, c->out[0] != NULL,
                c->out[1] != NULL, c->out[2] != NULL);
        put_tensor_macros(f, P, "SEQ", c->in[base]);
        put_tensor_macros(f, P, "H0", c->in[base + 1]);
        put_tensor_macros(f, P, "C0", c->in[base + 2]);
        put_tensor_macros(f, P, "PE", c->in[base + 3]);
        put_tensor_macros(f, P, "Y", c->out[0]);
        put_tensor_macros(f, P, "YH", c->out[1]);
        put_tensor_macros(f, P, "YC", c->out[2]);
        fprintf(f,
                "#define HA_O %lld\n#define HB_O %lld\n#define C_O %lld\n#define Z_O %lld\n"
                "#define RH_O %lld\n",
                (long long)so, (long long)(so + dnh), (long long)(so + 2 * dnh),
                (long long)(so + 3 * dnh), (long long)(so + 4 * dnh));
        if (rnn) { /* G1 into the layer's own P, then the steps read it */
            fprintf(f, "#define WPACK 0\n#define WFMT 0\n#define BMODE %d\n", c->in[3] ? 2 : 0);
            put_tensor_macros(f, P, "X", c->in[0]);
            put_tensor_macros(f, P, "W", c->in[1]);
            put_tensor_macros(f, P, "B", c->in[3]);
            fprintf(f, "#define PO_B mem\n#define PO_O %lld\n#define PI_B mem\n#define PI_O %lld\n",
                    (long long)(so + 5 * dnh), (long long)(so + 5 * dnh));
        } else {
            put_tensor_macros(f, P, "PI", c->in[0]);
        }
        put_acts(f, p);
    }
    if (c->kind == KP_RNN || c->kind == KP_RNN_PROJ)
        for (k = 0; ocl_template_proj[k]; k++)
            fputs(ocl_template_proj[k], f);
    if (c->kind == KP_RNN || c->kind == KP_RNN_REC)
        for (k = 0; ocl_template_lstm_ew[k]; k++)
            fputs(ocl_template_lstm_ew[k], f);
    if (c->kind == KP_RNN || c->kind == KP_RNN_REC)
        for (k = 0; ocl_template_rec[k]; k++)
            fputs(ocl_template_rec[k], f);
    for (k = 0; layer_macros[k]; k++)
        fprintf(f, "#undef %s\n", layer_macros[k]);
    fputc('\n', f);
}

/* The whole program text into f (the .cl file, or a temporary read back for embedding). */
static void
put_program(FILE *f, const ocl_plan *P, const cg_options *o)
{
    int i, k;
    fprintf(f,
            "/*\n * %s.cl — generated by lstmc: the recurrent layers of '%s' as OpenCL C for "
            "target %s\n * (%s, work-group %d, G1 tile %dx%d). Embedded in %s_ocl.c.\n */\n\n",
            o->name, o->name, P->t->name, P->t->gpu ? P->t->gpu : "?", P->wg, P->ts, P->ts,
            o->name);
    for (k = 0; ocl_template_prelude[k]; k++)
        fputs(ocl_template_prelude[k], f);
    for (i = 0; i < P->kp->n_calls; i++)
        if (P->handled[i])
            put_layer(f, P, i);
}

/* --- the host side ------------------------------------------------------------------ */

/* Kernel names of call c, in the order <name>_ocl.c indexes them. */
static int
kernel_names(const ocl_plan *P, const kp_call *c, const char **names)
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
        if (use_loop(P, c))
            names[n++] = "loop";
    }
    return n;
}

/* Where tensor t is needed on the host after call i: a later host call reads it, a later
 * offloaded layer checks it as sequence_lens, or it is a graph output. */
static int
host_needs(const ocl_plan *P, const ir_tensor *t, int i)
{
    const kprog *kp = P->kp;
    int j, k;
    if (P->mp->tensor[t->id].kind == MEMPLAN_OUTPUT)
        return 1;
    for (k = 0; k < kp->n_outputs; k++)
        if (kp->outputs[k] == t)
            return 1;
    for (j = i + 1; j < kp->n_calls; j++) {
        const kp_call *c = &kp->calls[j];
        for (k = 0; k < c->n_in; k++) {
            if (c->in[k] != t)
                continue;
            if (!P->handled[j])
                return 1;
            if ((c->kind == KP_RNN && k == 4) ||
                ((c->kind == KP_RNN_REC || c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_DRS) &&
                 k == 3))
                return 1;
        }
    }
    return 0;
}

/* The C parameter list of <name>_k<i>: the runtime kernel's, arguments named a0, a1... */
static void
put_signature(FILE *f, const char *name, const kp_call *c, int idx)
{
    int j, n = c->n_in + c->n_out, tissue = c->kind == KP_LSTM_TISSUE, drs = c->kind == KP_LSTM_DRS;
    fprintf(f, "lstmc_rt_status\n%s_k%d(const %s *p%s", name, idx,
            c->kind == KP_RNN_PROJ ? "lstmc_rt_rnn_proj_params"
            : tissue               ? "lstmc_rt_tissue_params"
                                   : "lstmc_rt_rnn_params",
            tissue ? ", float alpha_inter" : drs ? ", float alpha_intra" : "");
    for (j = 0; j < n; j++) {
        int is_seq = (c->kind == KP_RNN && j == 4) ||
                     ((c->kind == KP_RNN_REC || tissue || drs) && j == 3);
        fprintf(f, ",%s%s%s *a%d", j % 4 == 3 ? "\n    " : " ", j < c->n_in ? "const " : "",
                is_seq ? "int32_t" : j == 1 && c->wfmt ? "void" : "float", j);
    }
    if (tissue)
        fputs(", lstmc_rt_tissue_stats *stats, void *scratch", f);
    else if (drs)
        fputs(", lstmc_rt_drs_stats *stats, void *scratch", f);
    else if (c->kind != KP_RNN_PROJ)
        fputs(", float *scratch", f);
    fputs(")\n", f);
}

/* Uploads before call c: the inputs the device does not hold yet. */
static void
put_uploads(FILE *f, const ocl_plan *P, const kp_call *c, unsigned char *dev_valid)
{
    int j;
    for (j = 0; j < c->n_in; j++) {
        const ir_tensor *t = c->in[j];
        int64_t bytes;
        dev_loc l;
        if (!t || P->mp->tensor[t->id].kind == MEMPLAN_CONST || dev_valid[t->id])
            continue;
        dev_valid[t->id] = 1;
        bytes = numel(t) * (int64_t)ir_dtype_size(t->dtype);
        if (bytes == 0)
            continue;
        l = loc_of(P, t);
        fprintf(f,
                "    OCL_DO(clEnqueueWriteBuffer(ocl.queue, ocl_mem, CL_FALSE, %lldu, %lldu, a%d, "
                "0, NULL, NULL)); /* %s */\n",
                (long long)(l.off * 4), (long long)bytes, j, t->name);
    }
}

/* The offloaded call before idx that wrote t, or -1 (a host call, a graph input). */
static int
offloaded_producer(const ocl_plan *P, const ir_tensor *t, int idx)
{
    int j, k;
    for (j = idx - 1; j >= 0; j--)
        for (k = 0; k < P->kp->calls[j].n_out; k++)
            if (P->kp->calls[j].out[k] == t)
                return P->handled[j] ? j : -1;
    return -1;
}

/* Policy model: inputs of call idx that an offloaded call wrote on the other side this
 * run. to_device = 0 (idx runs on the CPU): read back, blocking, what a device layer left
 * on the device; 1 (on the device): upload what a CPU-run layer wrote, unless the plan
 * uploads it anyway (dev_valid 0). */
static void
put_cross_moves(FILE *f, const ocl_plan *P, int idx, int to_device, const unsigned char *dev_valid)
{
    const kp_call *c = &P->kp->calls[idx];
    int j;
    for (j = 0; j < c->n_in; j++) {
        const ir_tensor *t = c->in[j];
        int64_t bytes;
        int pr;
        if (!t || P->mp->tensor[t->id].kind == MEMPLAN_CONST)
            continue;
        pr = offloaded_producer(P, t, idx);
        bytes = numel(t) * (int64_t)ir_dtype_size(t->dtype);
        if (pr < 0 || bytes == 0 || (to_device && !dev_valid[t->id]))
            continue;
        fprintf(f,
                "%s    if (%socl_ran_cpu[%d])\n%s        OCL_DO(clEnqueue%sBuffer(ocl.queue, "
                "ocl_mem, %s, %lldu, %lldu, (void *)a%d, 0, NULL, NULL)); /* %s */\n",
                to_device ? "" : "    ", to_device ? "" : "!", pr, to_device ? "" : "    ",
                to_device ? "Write" : "Read", to_device ? "CL_FALSE" : "CL_TRUE",
                (long long)(loc_of(P, t).off * 4), (long long)bytes, j, t->name);
    }
}

/* Downloads after call idx: the outputs the host needs later. Returns their count. */
static int
put_downloads(FILE *f, const ocl_plan *P, int idx, unsigned char *dev_valid)
{
    const kp_call *c = &P->kp->calls[idx];
    int j, downloads = 0;
    for (j = 0; j < c->n_out; j++) {
        const ir_tensor *t = c->out[j];
        int64_t bytes;
        dev_loc l;
        if (!t)
            continue;
        dev_valid[t->id] = 1;
        bytes = numel(t) * (int64_t)ir_dtype_size(t->dtype);
        if (bytes == 0 || !host_needs(P, t, idx))
            continue;
        l = loc_of(P, t);
        fprintf(
            f,
            "    OCL_DO(clEnqueueReadBuffer(ocl.queue, ocl_mem, CL_FALSE, %lldu, %lldu, a%d, 0, "
            "NULL, NULL)); /* %s */\n",
            (long long)(l.off * 4), (long long)bytes, c->n_in + j, t->name);
        downloads++;
    }
    return downloads;
}

static void
put_call_fn(FILE *f, const ocl_plan *P, const char *name, int idx, int kbase,
            unsigned char *dev_valid)
{
    const kp_call *c = &P->kp->calls[idx];
    const char *kn[6];
    int nk = kernel_names(P, c, kn), j, k, downloads = 0, last_ocl = 1;
    int seq_arg = c->kind == KP_RNN ? 4 : c->kind == KP_RNN_PROJ ? -1 : 3;
    const lstmc_rt_rnn_params *p = rec_params(c);
    const int tissue = c->kind == KP_LSTM_TISSUE, drs = c->kind == KP_LSTM_DRS;

    int first_ocl = 1;
    for (j = 0; j < idx; j++)
        if (P->handled[j])
            first_ocl = 0;
    for (j = idx + 1; j < P->kp->n_calls; j++)
        if (P->handled[j])
            last_ocl = 0;

    if (drs) /* what each chain did, read back for lstmc_rt_drs_stats */
        fprintf(f, "static cl_int ocl_ds%d[%lld][2];\n\n", idx, (long long)(p->n_dirs * p->batch));
    put_signature(f, name, c, idx);
    fputs("{\n    cl_int e = CL_SUCCESS;\n    (void)p;\n", f);
    if (p)
        fputs("    (void)scratch;\n", f);
    fputs("    if (!ocl_ready)\n        return LSTMC_RT_ERR_NO_DEVICE;\n", f);
    if (first_ocl) /* the run's first layer decides where the run's layers go */
        fputs("    ocl_run_begin();\n", f);
    /* the CPU side of the policy: the runtime's C kernel on the host buffers, after what
     * an earlier layer left on the device only is read back (policy model) */
    fprintf(f,
            "    ocl_ran_cpu[%d] = ocl_on_cpu || (ocl_policy == LSTMC_OCL_MODEL && "
            "ocl_model_cpu[%d]);\n    if (ocl_ran_cpu[%d]) {\n        lstmc_rt_status st;\n"
            "        OCL_DO(clFinish(ocl.queue));\n",
            idx, idx, idx);
    put_cross_moves(f, P, idx, 0, dev_valid);
    fputs("        if (e != CL_SUCCESS)\n            return lstmc_rt_ocl_status(e);\n", f);
    if (P->cpu_llvm && P->cpu_llvm[idx])
        fprintf(f, "        st = %s_cpu_k%d(p", name, idx);
    else
        fprintf(f, "        st = %s(p", kp_call_fn(c)); /* per weight format (lowp.h) */
    if (tissue || drs)
        fputs(tissue ? ", alpha_inter" : ", alpha_intra", f);
    for (j = 0; j < c->n_in + c->n_out; j++)
        fprintf(f, ", a%d", j);
    fprintf(f, "%s);\n%s        return st;\n    }\n",
            tissue || drs ? ", stats, scratch"
            : p    ? ", scratch"
                   : "",
            last_ocl ? "        ocl_run_end();\n" : "");
    if (tissue || drs) /* as the C kernels: stats zero unless the device fills them */
        fputs("    if (stats)\n        memset(stats, 0, sizeof *stats);\n", f);
    if (tissue && !c->in[2]) /* no row sums: cutting is impossible, as the C kernel */
        fputs("    if (alpha_inter > 0.0f)\n        return LSTMC_RT_ERR_NULL;\n", f);
    if (p && p->batch == 0) { /* as lstmc_rt_rnn: nothing to do, nothing written */
        fprintf(f, "%s    return LSTMC_RT_OK;\n}\n\n", last_ocl ? "    ocl_run_end();\n" : "");
        return;
    }
    for (j = 0; j < c->n_in + c->n_out; j++)
        if (j != seq_arg)
            fprintf(f, "    (void)a%d;\n", j);
    /* sequence_lens is checked on the host, as the C kernel does, before anything runs */
    if (seq_arg >= 0 && c->in[seq_arg])
        fprintf(f,
                "    for (int n = 0; n < %lld; n++)\n"
                "        if (a%d[n] < 0 || a%d[n] > %lld)\n"
                "            return LSTMC_RT_ERR_SEQ_LEN;\n",
                (long long)p->batch, seq_arg, seq_arg, (long long)p->seq_len);
    put_cross_moves(f, P, idx, 1, dev_valid);
    put_uploads(f, P, c, dev_valid);
    /* the kernels: G1, then init, T steps, final, enqueued back to back (or the one loop
     * launch of a layer that fits a work-group) */
    if (tissue) { /* one launch: a work-group per direction (opencl_tissue.h) */
        tissue_geom z = tissue_geometry(c);
        fprintf(f,
                "    { /* breakpoints, tissues and their GEMMs: %lld direction(s) */\n"
                "        const size_t g = %lld, l = %d;\n"
                "        OCL_DO(clSetKernelArg(ocl_kern[%d], 2, sizeof alpha_inter, "
                "&alpha_inter));\n"
                "        OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, &g, "
                "&l, 0, NULL, NULL));\n",
                (long long)p->n_dirs, (long long)(p->n_dirs * P->wg), P->wg, kbase, kbase);
        for (j = 0; j < p->n_dirs; j++) /* the plan's counts: K, cells, links, sub-layers */
            fprintf(f,
                    "        OCL_DO(clEnqueueReadBuffer(ocl.queue, ocl_mem, CL_FALSE, %lldu, "
                    "sizeof ocl_tst[%d], ocl_tst[%d], 0, NULL, NULL));\n",
                    (long long)(4 * (P->state_off[idx] + p->n_dirs * z.f_str + j * z.i_str +
                                     15 * z.nc + 1 + z.slots)),
                    j, j);
        fputs("    }\n", f);
        downloads++;
    }
    if (drs) { /* one launch: a work-group per chain (opencl_drs.h) */
        fprintf(f,
                "    { /* Algorithm 3, %lld chain(s) of %lld cells */\n"
                "        const size_t g = %lld, l = %d;\n"
                "        OCL_DO(clSetKernelArg(ocl_kern[%d], 2, sizeof alpha_intra, "
                "&alpha_intra));\n"
                "        OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, &g, "
                "&l, 0, NULL, NULL));\n"
                "        OCL_DO(clEnqueueReadBuffer(ocl.queue, ocl_mem, CL_FALSE, %lldu, "
                "sizeof ocl_ds%d, ocl_ds%d, 0, NULL, NULL));\n    }\n",
                (long long)(p->n_dirs * p->batch), (long long)p->seq_len,
                (long long)(p->n_dirs * p->batch * P->wg), P->wg, kbase, kbase,
                (long long)(4 * P->state_off[idx]), idx, idx);
        downloads++;
    }
    for (k = 0; k < nk && !tissue && !drs; k++) {
        const char *n = kn[k];
        if (p && use_loop(P, c) && strcmp(n, "proj") != 0) {
            if (strcmp(n, "loop") == 0)
                fprintf(
                    f,
                    "    { /* init, %lld steps, final: one work-group, one launch */\n"
                    "        const size_t g = %d, l = %d;\n"
                    "        OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, &g, "
                    "&l, 0, NULL, NULL));\n    }\n",
                    (long long)p->seq_len, P->wg, P->wg, kbase + k);
            continue;
        }
        if (strcmp(n, "proj") == 0) {
            int64_t rows = c->kind == KP_RNN_PROJ ? c->p.proj.rows : p->seq_len * p->batch;
            int64_t GH = c->kind == KP_RNN_PROJ ? gates(c->p.proj.cell) * c->p.proj.hidden
                                                : gates(p->cell) * p->hidden;
            int D = c->kind == KP_RNN_PROJ ? c->p.proj.n_dirs : p->n_dirs;
            if (rows == 0)
                continue;
            fprintf(
                f,
                "    { /* G1 */\n        const size_t g[3] = {%lld, %lld, %d}, l[3] = {%d, %d, "
                "1};\n        OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 3, NULL, g, "
                "l, 0, NULL, NULL));\n    }\n",
                (long long)round_up(GH, P->ts), (long long)round_up(rows, P->ts), D, P->ts, P->ts,
                kbase + k);
        } else if (strcmp(n, "init") == 0 || strcmp(n, "final") == 0) {
            fprintf(
                f,
                "    { /* %s */\n        const size_t g = %lld, l = %d;\n"
                "        OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, &g, &l, "
                "0, NULL, NULL));\n    }\n",
                n, (long long)round_up(p->n_dirs * p->batch * p->hidden, P->wg), P->wg, kbase + k);
        }
        if (strcmp(n, "init") == 0) { /* the time loop right after init */
            int rpi = rows_per_item(P, p->n_dirs * p->batch, p->hidden);
            int two = p->cell == LSTMC_RT_CELL_GRU && !p->linear_before_reset;
            fprintf(
                f,
                "    { /* %lld steps, %d row(s) per work-item */\n"
                "        const size_t g = %lld, l = %d;\n"
                "        for (cl_int s = 0; s < %lld && e == CL_SUCCESS; s++) {\n"
                "            OCL_DO(clSetKernelArg(ocl_kern[%d], 2, sizeof s, &s));\n"
                "            OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, &g, "
                "&l, 0, NULL, NULL));\n",
                (long long)p->seq_len, rpi,
                (long long)round_up(p->n_dirs * p->batch * (p->hidden / rpi), P->wg), P->wg,
                (long long)p->seq_len, kbase + k + 1, kbase + k + 1);
            if (two)
                fprintf(
                    f,
                    "            OCL_DO(clSetKernelArg(ocl_kern[%d], 2, sizeof s, &s));\n"
                    "            OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, "
                    "&g, &l, 0, NULL, NULL));\n",
                    kbase + k + 2, kbase + k + 2);
            fputs("        }\n    }\n", f);
        }
    }
    downloads += put_downloads(f, P, idx, dev_valid);
    /* finish before anything on the host may read a download or reuse an uploaded buffer:
     * a download, a host call next, or the end of the run */
    if (downloads || last_ocl || !P->handled[idx + 1 < P->kp->n_calls ? idx + 1 : idx])
        fputs("    OCL_DO(clFinish(ocl.queue));\n", f);
    else
        fputs("    /* the next call is a layer on the device too: no finish */\n", f);
    if (tissue) {
        fputs("    if (e == CL_SUCCESS && stats)\n", f);
        fprintf(f, "        for (int d = 0; d < %d; d++) {\n", p->n_dirs);
        fputs("            stats->tissues += ocl_tst[d][0];\n"
              "            stats->cells += ocl_tst[d][1];\n"
              "            stats->links += ocl_tst[d][2];\n"
              "            stats->sub_layers += ocl_tst[d][3];\n        }\n",
              f);
    }
    if (drs) {
        fprintf(f, "    if (e == CL_SUCCESS && stats)\n        for (int q = 0; q < %lld; q++) {\n",
                (long long)(p->n_dirs * p->batch));
        fprintf(f, "            stats->cells += ocl_ds%d[q][0];\n"
                   "            stats->rows_total += %lldLL * ocl_ds%d[q][0];\n"
                   "            stats->rows_loaded += 3LL * ocl_ds%d[q][1];\n"
                   "            stats->rows_skipped += %lldLL * ocl_ds%d[q][0] - 3LL * "
                   "ocl_ds%d[q][1];\n        }\n",
                idx, (long long)(3 * p->hidden), idx, idx, (long long)(3 * p->hidden), idx, idx);
    }
    if (last_ocl)
        fputs("    ocl_run_end();\n", f);
    fputs("    if (e != CL_SUCCESS)\n        clFinish(ocl.queue);\n"
          "    return lstmc_rt_ocl_status(e);\n}\n\n",
          f);
}

/* --- the cost model (docs/OPENCL.md, "GPU or CPU") ------------------------------------- */

/* The profile's figures, or rough defaults where it has none (a built-in profile; `lstmc
 * profile` measures all three). */
static void
cost_inputs(const ocl_plan *P, double *launch_us, double *gpu_gflops, double *cpu_gflops)
{
    const target *t = P->t;
    *launch_us = t->gpu_launch_us > 0 ? t->gpu_launch_us : 20.0;
    *gpu_gflops = t->gpu_gflops > 0 ? t->gpu_gflops
                  : t->gpu_compute_units > 0 && t->gpu_mhz > 0
                      ? 0.25 * 64e-3 * t->gpu_compute_units * t->gpu_mhz /* 25 % of 32 FMA/clk */
                      : 2.0;
    *cpu_gflops = t->cpu_gflops > 0 ? t->cpu_gflops : 2.0;
}

/* Predicted microseconds of offloaded call c on the device and on one CPU core: launches
 * times the launch overhead plus the flops at the measured rate of the recurrent product
 * (which includes the U traffic of the sizes profiled). */
static void
cost_of(const ocl_plan *P, const kp_call *c, double *gpu_us, double *cpu_us)
{
    const lstmc_rt_rnn_params *p = rec_params(c);
    double launch, gg, cg, flops = 0, launches = 0;
    cost_inputs(P, &launch, &gg, &cg);
    if (c->kind == KP_RNN_PROJ || c->kind == KP_RNN) {
        const int64_t rows = c->kind == KP_RNN_PROJ ? c->p.proj.rows : p->seq_len * p->batch;
        const int64_t in = c->kind == KP_RNN_PROJ ? c->p.proj.input_size : p->input_size;
        const int64_t gh = c->kind == KP_RNN_PROJ ? gates(c->p.proj.cell) * c->p.proj.hidden
                                                  : gates(p->cell) * p->hidden;
        const int D = c->kind == KP_RNN_PROJ ? c->p.proj.n_dirs : p->n_dirs;
        flops += 2.0 * (double)rows * (double)in * (double)gh * D;
        launches += 1;
    }
    if (p) {
        const double G = c->kind == KP_RNN || c->kind == KP_RNN_REC ? (double)gates(p->cell) : 4.0;
        flops += 2.0 * p->n_dirs * (double)p->seq_len * (double)p->batch * (double)p->hidden *
                 G * (double)p->hidden;
        if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_DRS || use_loop(P, c))
            launches += 1;
        else
            launches += 2 + (double)p->seq_len *
                                (p->cell == LSTMC_RT_CELL_GRU && !p->linear_before_reset ? 2 : 1);
    }
    *gpu_us = launches * launch + flops / (gg * 1e3);
    *cpu_us = flops / (cg * 1e3);
}

/* ocl_model_cpu[i]: 1 where the cost model puts offloaded call i on the CPU; the
 * predictions as a comment table. */
static void
put_cost_model(FILE *f, const ocl_plan *P)
{
    double launch, gg, cg;
    int i;
    cost_inputs(P, &launch, &gg, &cg);
    fprintf(f, "/* cost model: launch %.1f us, device %.3f GFLOP/s, CPU %.3f GFLOP/s\n", launch,
            gg, cg);
    for (i = 0; i < P->kp->n_calls; i++) {
        double gu, cu;
        if (!P->handled[i])
            continue;
        cost_of(P, &P->kp->calls[i], &gu, &cu);
        fprintf(f, " *   call %d (%s): device %.1f us, CPU %.1f us -> %s\n", i,
                kp_kind_fn(P->kp->calls[i].kind), gu, cu, cu < gu ? "CPU" : "device");
    }
    fputs(" */\nstatic const unsigned char ocl_model_cpu[] = {", f);
    for (i = 0; i < P->kp->n_calls; i++) {
        double gu = 0, cu = 1;
        if (P->handled[i])
            cost_of(P, &P->kp->calls[i], &gu, &cu);
        fprintf(f, "%s%d", i ? ", " : "", cu < gu);
    }
    fprintf(f, "};\nstatic unsigned char ocl_ran_cpu[%d];\n\n", P->kp->n_calls);
}

/* The GPU/CPU choice (MobiRNN §4.5: a busy GPU can make the CPU faster), per run. */
static const char ocl_policy_c[] =
    "/* GPU/CPU policy (MobiRNN §4.5): LSTMC_OCL_POLICY=gpu (default), cpu, or auto: the\n"
    " * first run of every OCL_REMEASURE goes to the device, the second to the CPU (the\n"
    " * runtime's C kernels), the others to whichever was faster when last measured. A run's\n"
    " * layers all go to one side, so no tensor is ever on the wrong one. */\n"
    "#define OCL_REMEASURE 64\n"
    "static int ocl_policy, ocl_on_cpu;\nstatic long ocl_runs;\n"
    "static double ocl_ms[2], ocl_t0;\n\n"
    "static double\nocl_now_ms(void)\n{\n    struct timespec t;\n"
    "    clock_gettime(CLOCK_MONOTONIC, &t);\n"
    "    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;\n}\n\n"
    "static void\nocl_run_begin(void)\n{\n"
    "    long phase = ocl_runs++ % OCL_REMEASURE;\n"
    "    if (ocl_policy != LSTMC_OCL_AUTO)\n        ocl_on_cpu = ocl_policy == LSTMC_OCL_CPU;\n"
    "    else\n        ocl_on_cpu = phase == 0 ? 0 : phase == 1 ? 1 : ocl_ms[1] < ocl_ms[0];\n"
    "    ocl_t0 = ocl_now_ms();\n}\n\n"
    "static void\nocl_run_end(void)\n{\n    ocl_ms[ocl_on_cpu] = ocl_now_ms() - ocl_t0;\n}\n\n"
    "/* LSTMC_OCL_POLICY=model: each layer where the cost model (lstmc, from the target\n"
    " * profile) predicts it is faster, decided at compile time: ocl_model_cpu. A tensor made\n"
    " * on one side and read on the other is moved when it is read (ocl_ran_cpu says where\n"
    " * each offloaded call ran in this run). */\n";

/* The OpenCL C program as C string literals, one per line. */
static int
put_source_strings(FILE *f, const char *cl_path, diag *d)
{
    FILE *in = fopen(cl_path, "r");
    int ch, at_start = 1, lines = 0;
    if (!in) {
        diag_error(d, "cannot read back '%s': %s", cl_path, strerror(errno));
        return -1;
    }
    fputs("static const char *const ocl_source[] = {\n", f);
    while ((ch = fgetc(in)) != EOF) {
        if (at_start) {
            fputs("    \"", f);
            at_start = 0;
        }
        if (ch == '\n') {
            fputs("\\n\",\n", f);
            at_start = 1;
            lines++;
        } else if (ch == '"' || ch == '\\') {
            fprintf(f, "\\%c", ch);
        } else if (ch < 32 || ch > 126) {
            fprintf(f, "\\%03o", ch);
        } else {
            fputc(ch, f);
        }
    }
    if (!at_start) {
        fputs("\",\n", f);
        lines++;
    }
    fclose(in);
    fprintf(f, "};\n#define OCL_SOURCE_LINES %d\n\n", lines);
    return 0;
}

static int
write_host(const ocl_plan *P, const cg_options *o, const char *cl_path, int n_kern, diag *d)
{
    char path[4200];
    FILE *f;
    int i, k, kbase = 0, rc;
    unsigned char *dev_valid = calloc((size_t)P->g->n_tensors + 1, 1);
    if (!dev_valid) {
        diag_error(d, "out of memory");
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s_ocl.c", o->outdir, o->name);
    f = fopen(path, "w");
    if (!f) {
        free(dev_valid);
        diag_error(d, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(f,
            "/*\n * %s_ocl.c — generated by lstmc: the host side of the OpenCL layers (target "
            "%s).\n * Device buffers are created once in %s_ocl_init; %s_k<i> replace the "
            "runtime's\n * recurrent kernels with the same signature. Never calls malloc.\n */\n"
            "#define _POSIX_C_SOURCE 199309L /* clock_gettime */\n"
            "#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
            "#include <time.h>\n\n#include \"%s.h\"\n#include \"%s_ocl.h\"\n"
            "#include \"%s_weights.h\"\n#include \"lstmc_rt_opencl.h\"\n\n",
            o->name, P->t->name, o->name, o->name, o->name, o->name, o->name);
    if (put_source_strings(f, cl_path, d) < 0) {
        fclose(f);
        free(dev_valid);
        return -1;
    }
    fprintf(f,
            "#define OCL_MEM_BYTES %lldu\n#define OCL_WTS_BYTES %lldu\n#define OCL_N_KERNELS %d\n\n"
            "static lstmc_rt_ocl ocl;\nstatic cl_mem ocl_mem, ocl_wts;\n"
            "static cl_kernel ocl_kern[OCL_N_KERNELS + 1];\nstatic int ocl_ready;\n"
            "static unsigned char *ocl_bin;\nstatic size_t ocl_bin_cap, *ocl_bin_len;\n\n"
            "/* the first OpenCL error of a sequence of calls is kept, the rest skipped */\n"
            "#define OCL_DO(x) do { if (e == CL_SUCCESS) e = (x); } while (0)\n\n",
            (long long)(P->mem_words * 4), (long long)(P->wts_words * 4 + 4), n_kern);
    for (i = 0; i < P->kp->n_calls; i++)
        if (P->handled[i] && P->kp->calls[i].kind == KP_LSTM_TISSUE) {
            fputs("static cl_int ocl_tst[2][4]; /* a tissue layer's counts, per direction */\n\n",
                  f);
            break;
        }
    fputs("static const char *const ocl_kernel_names[] = {", f);
    for (i = 0; i < P->kp->n_calls; i++) {
        const char *kn[6];
        int nk;
        if (!P->handled[i])
            continue;
        nk = kernel_names(P, &P->kp->calls[i], kn);
        for (k = 0; k < nk; k++)
            fprintf(f, "\"k%d_%s\", ", i, kn[k]);
    }
    fputs("NULL};\n\n", f);
    fputs(ocl_policy_c, f);
    put_cost_model(f, P);
    fprintf(f,
            "void\n%s_ocl_set_policy(int policy)\n{\n"
            "    ocl_policy = policy == LSTMC_OCL_CPU || policy == LSTMC_OCL_AUTO ||\n"
            "                         policy == LSTMC_OCL_MODEL\n"
            "                     ? policy\n                     : LSTMC_OCL_GPU;\n"
            "    ocl_runs = 0;\n}\n\n"
            "int\n%s_ocl_last_on_cpu(void)\n{\n    return ocl_on_cpu;\n}\n\n",
            o->name, o->name);

    /* release / init */
    fprintf(
        f,
        "void\n%s_ocl_release(void)\n{\n    int k;\n"
        "    for (k = 0; k < OCL_N_KERNELS; k++)\n        if (ocl_kern[k]) {\n"
        "            clReleaseKernel(ocl_kern[k]);\n            ocl_kern[k] = NULL;\n        }\n"
        "    lstmc_rt_ocl_close(&ocl);\n    ocl_mem = ocl_wts = NULL;\n    ocl_ready = 0;\n}\n\n",
        o->name);
    fprintf(f,
            "void\n%s_ocl_set_binary_cache(unsigned char *buf, size_t cap, size_t *len)\n{\n"
            "    ocl_bin = buf;\n    ocl_bin_cap = cap;\n    ocl_bin_len = len;\n}\n\n"
            "const char *\n%s_ocl_log(void)\n{\n    return ocl.log;\n}\n\n"
            "const char *\n%s_ocl_device(void)\n{\n    return ocl.device_name;\n}\n\n",
            o->name, o->name, o->name);
    fprintf(
        f,
        "lstmc_rt_status\n%s_ocl_init(void)\n{\n"
        "    lstmc_rt_ocl_config cfg;\n    lstmc_rt_status st;\n    cl_int e = CL_SUCCESS;\n"
        "    int k;\n    const char *pol = getenv(\"LSTMC_OCL_POLICY\");\n"
        "    %s_ocl_release();\n"
        "    if (pol)\n        %s_ocl_set_policy(strcmp(pol, \"cpu\") == 0    ? LSTMC_OCL_CPU\n"
        "                               : strcmp(pol, \"auto\") == 0 ? LSTMC_OCL_AUTO\n"
        "                               : strcmp(pol, \"model\") == 0 ? LSTMC_OCL_MODEL\n"
        "                                                            : LSTMC_OCL_GPU);\n"
        "    cfg.device_type = \"%s\";\n    cfg.sources = ocl_source;\n"
        "    cfg.n_sources = OCL_SOURCE_LINES;\n    cfg.build_options = NULL;\n"
        "    cfg.binary = ocl_bin;\n    cfg.binary_cap = ocl_bin_cap;\n"
        "    cfg.binary_len = ocl_bin_len;\n"
        "    st = lstmc_rt_ocl_open(&ocl, &cfg);\n    if (st != LSTMC_RT_OK)\n        return st;\n"
        "    st = lstmc_rt_ocl_buffer(&ocl, OCL_MEM_BYTES, &ocl_mem);\n"
        "    if (st == LSTMC_RT_OK)\n"
        "        st = lstmc_rt_ocl_buffer(&ocl, OCL_WTS_BYTES, &ocl_wts);\n"
        "    if (st != LSTMC_RT_OK) {\n        %s_ocl_release();\n        return st;\n    }\n",
        o->name, o->name, o->name, P->t->gpu_device ? P->t->gpu_device : "gpu", o->name);
    for (i = 0; i < P->g->n_tensors; i++) {
        const ir_tensor *t = P->g->tensors[i];
        int64_t bytes;
        if (P->const_off[i] < 0)
            continue;
        bytes = numel(t) * (int64_t)ir_dtype_size(t->dtype);
        if (bytes > 0)
            fprintf(f,
                    "    OCL_DO(clEnqueueWriteBuffer(ocl.queue, ocl_wts, CL_FALSE, %lldu, %lldu, "
                    "%s_w%d, 0, NULL, NULL));\n",
                    (long long)(P->const_off[i] * 4), (long long)bytes, o->name,
                    P->mp->tensor[i].index);
    }
    fputs("    OCL_DO(clFinish(ocl.queue));\n"
          "    for (k = 0; k < OCL_N_KERNELS && e == CL_SUCCESS; k++) {\n"
          "        ocl_kern[k] = clCreateKernel(ocl.program, ocl_kernel_names[k], &e);\n"
          "        if (e == CL_SUCCESS)\n"
          "            e = clSetKernelArg(ocl_kern[k], 0, sizeof ocl_mem, &ocl_mem);\n"
          "        if (e == CL_SUCCESS)\n"
          "            e = clSetKernelArg(ocl_kern[k], 1, sizeof ocl_wts, &ocl_wts);\n"
          "    }\n",
          f);
    fprintf(f,
            "    if (e != CL_SUCCESS) {\n        st = lstmc_rt_ocl_status(e);\n"
            "        %s_ocl_release();\n        return st;\n    }\n"
            "    ocl_ready = 1;\n    return LSTMC_RT_OK;\n}\n\n",
            o->name);

    for (i = 0; P->cpu_llvm && i < P->kp->n_calls; i++) {
        if (!P->cpu_llvm[i])
            continue;
        if (P->kp->calls[i].kind == KP_RNN_PROJ)
            fprintf(f,
                    "lstmc_rt_status %s_cpu_k%d(const lstmc_rt_rnn_proj_params *p, const "
                    "float *X,\n    const %s *w, const float *b, float *P);\n",
                    o->name, i, P->kp->calls[i].wfmt ? "void" : "float");
        else if (P->kp->calls[i].kind == KP_LSTM_TISSUE)
            fprintf(f, "lstmc_rt_status %s_cpu_k%d(%s);\n", o->name, i, tissue_args_c);
        else if (P->kp->calls[i].kind == KP_LSTM_DRS)
            fprintf(f, "lstmc_rt_status %s_cpu_k%d(%s);\n", o->name, i, drs_args_c);
        else
            fprintf(f,
                    "lstmc_rt_status %s_cpu_k%d(const lstmc_rt_rnn_params *p, const float *P,\n"
                    "    const %s *r, const float *rb, const int32_t *seq_lens,\n"
                    "    const float *init_h, const float *init_c, const float *Peep, "
                    "float *Y,\n    float *Y_h, float *Y_c, float *scratch);\n",
                    o->name, i, P->kp->calls[i].wfmt ? "void" : "float");
    }
    fputc('\n', f);
    for (i = 0; i < P->kp->n_calls; i++) {
        const char *kn[6];
        if (!P->handled[i]) {
            /* a host call: what it writes is on the host only */
            const kp_call *c = &P->kp->calls[i];
            for (k = 0; k < c->n_out; k++)
                if (c->out[k])
                    dev_valid[c->out[k]->id] = 0;
            continue;
        }
        put_call_fn(f, P, o->name, i, kbase, dev_valid);
        kbase += kernel_names(P, &P->kp->calls[i], kn);
    }
    free(dev_valid);
    rc = ferror(f);
    if (fclose(f) != 0 || rc) {
        diag_error(d, "cannot write '%s'", path);
        return -1;
    }
    return 0;
}

static int
write_header(const cg_options *o, diag *d)
{
    char path[4200];
    FILE *f;
    int rc;
    snprintf(path, sizeof path, "%s/%s_ocl.h", o->outdir, o->name);
    f = fopen(path, "w");
    if (!f) {
        diag_error(d, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(
        f,
        "/*\n * %s_ocl.h — generated by lstmc: the OpenCL device behind %s's recurrent "
        "layers.\n * %s_init calls %s_ocl_init; the rest is for the caller.\n */\n"
        "#ifndef %s_OCL_H\n#define %s_OCL_H\n\n#include <stddef.h>\n\n#include \"lstmc_rt.h\"\n\n"
        "/* Choose the device (profile kind, else any; LSTMC_OCL_PLATFORM / LSTMC_OCL_DEVICE\n"
        " * override), build the kernels, allocate every device buffer and upload the\n"
        " * weights. LSTMC_RT_ERR_NO_DEVICE, _DEVICE_BUILD (see %s_ocl_log), _DEVICE_MEMORY\n"
        " * or _DEVICE; calling it again starts over. */\n"
        "lstmc_rt_status %s_ocl_init(void);\n\n"
        "/* Release the device (the next %s_run fails with LSTMC_RT_ERR_NO_DEVICE). */\n"
        "void %s_ocl_release(void);\n\n"
        "/* Program binary cache for the next init (see lstmc_rt_ocl_config): buf of cap\n"
        " * bytes holds *len bytes of binary from an earlier build (0: none yet). */\n"
        "void %s_ocl_set_binary_cache(unsigned char *buf, size_t cap, size_t *len);\n\n"
        "/* The build log after LSTMC_RT_ERR_DEVICE_BUILD, or why init failed. */\n"
        "const char *%s_ocl_log(void);\n\n"
        "/* The name of the device in use (\"\" before init). */\n"
        "const char *%s_ocl_device(void);\n\n"
        "/* Where the recurrent layers run (MobiRNN §4.5): on the device (the default), on the\n"
        " * CPU (the runtime's C kernels), auto: measured, each side once every 64 runs,\n"
        " * the faster one otherwise, or model: each layer where the compiler's cost model\n"
        " * (target profile) placed it. %s_ocl_init reads LSTMC_OCL_POLICY=gpu|cpu|auto|model.\n"
        " */\n"
        "enum { LSTMC_OCL_GPU = 0, LSTMC_OCL_CPU = 1, LSTMC_OCL_AUTO = 2, LSTMC_OCL_MODEL = 3 };\n"
        "void %s_ocl_set_policy(int policy);\n\n"
        "/* 1 when the last run's layers ran on the CPU. */\n"
        "int %s_ocl_last_on_cpu(void);\n\n#endif\n",
        o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name,
        o->name, o->name, o->name, o->name, o->name, o->name);
    rc = ferror(f);
    if (fclose(f) != 0 || rc) {
        diag_error(d, "cannot write '%s'", path);
        return -1;
    }
    return 0;
}

int
cg_opencl_write(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
                unsigned char *handled, const unsigned char *cpu_llvm, diag *d)
{
    ocl_plan P;
    char cl_path[4200];
    FILE *f;
    int i, n_kern = 0, n = 0, rc = -1;

    memset(&P, 0, sizeof P);
    P.g = g;
    P.kp = kp;
    P.mp = mp;
    P.t = target_resolve(o->target, d);
    if (!P.t || !P.t->gpu) {
        if (!diag_count(d))
            diag_error(d, "target '%s' has no GPU: no OpenCL code", o->target ? o->target : "?");
        return -1;
    }
    if (g->n_inputs > 64 || kp->n_outputs > 64) {
        diag_error(d, "the OpenCL path handles at most 64 graph inputs and outputs");
        return -1;
    }
    P.handled = handled;
    P.cpu_llvm = cpu_llvm;
    P.wg = P.t->gpu_work_group > 0 ? P.t->gpu_work_group : 64;
    if (P.wg > 1024)
        P.wg = 1024;
    for (P.ts = 16; P.ts > 1 && P.ts * P.ts > P.wg; P.ts /= 2)
        ;
    P.threads = (P.t->gpu_compute_units > 0 ? P.t->gpu_compute_units : 1) * P.wg;
    for (i = 0; i < kp->n_calls; i++) {
        const char *kn[6];
        handled[i] = (unsigned char)cg_opencl_handles(&kp->calls[i]);
        if (kp->calls[i].kind == KP_LSTM_DRS &&
            drs_local_bytes(&P, &kp->calls[i]) > local_limit(&P))
            handled[i] = 0; /* h, o, gates and R do not fit local memory: the host kernel */
        if (handled[i]) {
            n++;
            n_kern += kernel_names(&P, &kp->calls[i], kn);
        }
    }
    P.const_off = malloc(sizeof *P.const_off * ((size_t)g->n_tensors + 1));
    P.state_off = malloc(sizeof *P.state_off * ((size_t)kp->n_calls + 1));
    if (!P.const_off || !P.state_off) {
        diag_error(d, "out of memory");
        goto out;
    }
    for (i = 0; i < g->n_tensors; i++)
        P.const_off[i] = -1;
    if (plan_memory(&P, d) < 0)
        goto out;
    snprintf(cl_path, sizeof cl_path, "%s/%s.cl", o->outdir, o->name);
    f = fopen(cl_path, "w");
    if (!f) {
        diag_error(d, "cannot write '%s': %s", cl_path, strerror(errno));
        goto out;
    }
    put_program(f, &P, o);
    if (ferror(f) | fclose(f)) {
        diag_error(d, "cannot write '%s'", cl_path);
        goto out;
    }
    if (write_header(o, d) < 0 || write_host(&P, o, cl_path, n_kern, d) < 0)
        goto out;
    rc = n;
out:
    free(P.const_off);
    free(P.state_off);
    return rc;
}
