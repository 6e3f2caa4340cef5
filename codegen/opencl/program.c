/*
 * program.c — the .cl text: the prelude, then for every offloaded call its macros (every
 * size a compile-time constant, every optional input an #if; kernels/rnn.cl lists them)
 * and the kernel text of its kind (G1 and the time loop, kernels/rnn.cl; the tissue
 * schedule, kernels/tissue.cl; dynamic row skip, kernels/drs.cl), each layer's macros
 * #undef'd after it. The kernel text is embedded at build time (cmake/embed_cl.cmake) as
 * the arrays of lines ocl_template_* that opencl_impl.h declares.
 */
#include "opencl_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* Every per-layer macro, #undef'd after each layer. */
static const char *const layer_macros[] = {
    "KN",     "CELL",     "G",      "GH",     "GREC",     "T",      "NB",     "IN",      "H",
    "D",      "ROWS",     "REV",    "LAYOUT", "HAS_CLIP", "CLIPV",  "IFG",    "LBR",     "LBRH",
    "RPI",    "WPR",      "TS",     "WPACK",  "RPACK",    "BMODE",  "RBMODE", "HAS_SEQ", "HAS_H0",
    "HAS_C0", "HAS_PEEP", "HAS_Y",  "HAS_YH", "HAS_YC",   "X_B",    "X_O",    "W_B",     "W_O",
    "B_B",    "B_O",      "PO_B",   "PO_O",   "PI_B",     "PI_O",   "R_B",    "R_O",     "RB_B",
    "RB_O",   "SEQ_B",    "SEQ_O",  "H0_B",   "H0_O",     "C0_B",   "C0_O",   "PE_B",    "PE_O",
    "Y_B",    "Y_O",      "YH_B",   "YH_O",   "YC_B",     "YC_O",   "HA_O",   "HB_O",    "C_O",
    "Z_O",    "RH_O",     "ACT0",   "ACT1",   "ACT2",     "LOOP",   "LW",     "CAP",     "SLOTS",
    "NC",     "CPI",      "CB",     "HLOC",   "UP_B",     "UP_O",   "DS_B",   "DS_O",    "HP_B",
    "HP_O",   "CP_B",     "CP_O",   "HAS_DS", "DS_SH",    "HAS_HP", "HAS_CP", "TG_O",    "TS_O",
    "THB_O",  "TI_O",     "TF_STR", "TI_STR", "UO_B",     "UO_O",   "UF_B",   "UF_O",    "UPI",
    "BPI",    "DST_O",    "WFMT",   "RFMT",   NULL};

/* "#define NAME_B mem|wts" and "#define NAME_O off" for t, or mem/0 when t is NULL. */
static void
put_tensor_macros(FILE *f, const ocl_plan *P, const char *nm, const ir_tensor *t)
{
    dev_loc l = {0, 0};
    if (t)
        l = ocl_loc_of(P, t);
    fprintf(f, "#define %s_B %s\n#define %s_O %lld\n", nm, l.buf ? "wts" : "mem", nm,
            (long long)l.off);
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
    tissue_geom z = ocl_tissue_geometry(c);
    if (cb > z.cap)
        cb = z.cap;
    return cb < 1 ? 1 : (int)cb;
}

/* The macros every LSTM layer of the approximate schedules shares (sizes, attributes). */
static void
put_lstm_macros(FILE *f, const ocl_plan *P, const lstmc_rt_rnn_params *p)
{
    const int64_t H = p->hidden;
    fprintf(f,
            "#define CELL 0\n#define G 4\n#define GH %lld\n#define T %lld\n#define NB %lld\n"
            "#define H %lld\n#define D %d\n#define ROWS %lld\n#define REV %d\n"
            "#define LAYOUT %d\n#define HAS_CLIP %d\n#define CLIPV ",
            (long long)(4 * H), (long long)p->seq_len, (long long)p->batch, (long long)H, p->n_dirs,
            (long long)(p->seq_len * p->batch), p->reverse, p->layout, p->has_clip);
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
    fprintf(f,
            "#define HAS_SEQ %d\n#define HAS_H0 %d\n#define HAS_C0 %d\n#define HAS_PEEP %d\n"
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

/* KP_LSTM_DRS: the macros of kernels/drs.cl, then its text. */
static void
put_drs_layer(FILE *f, const ocl_plan *P, int idx)
{
    const kp_call *c = &P->kp->calls[idx];
    const lstmc_rt_rnn_params *p = &c->p.drs.p;
    const int64_t per = (p->hidden + P->wg - 1) / P->wg;
    int k;

    put_lstm_macros(f, P, p);
    fprintf(f, "#define UPI %lld\n#define BPI %lld\n#define DST_O %lld\n#define RFMT %d\n",
            (long long)per, (long long)per, (long long)P->state_off[idx], c->wfmt);
    put_tensor_macros(f, P, "UO", c->in[1]);
    put_tensor_macros(f, P, "UF", c->in[2]);
    put_lstm_io(f, P, c, p);
    for (k = 0; ocl_template_drs[k]; k++)
        fputs(ocl_template_drs[k], f);
}

/* KP_LSTM_TISSUE: the macros of kernels/tissue.cl, then its text. */
static void
put_tissue_layer(FILE *f, const ocl_plan *P, int idx)
{
    const kp_call *c = &P->kp->calls[idx];
    const lstmc_rt_rnn_params *p = &c->p.tissue.p.rnn;
    const int64_t H = p->hidden, so = P->state_off[idx];
    tissue_geom z = ocl_tissue_geometry(c);
    int k;

    put_lstm_macros(f, P, p);
    fprintf(f,
            "#define CAP %lld\n#define SLOTS %lld\n"
            "#define NC %lld\n#define CPI %d\n#define CB %d\n#define HLOC %d\n",
            (long long)z.cap, (long long)z.slots, (long long)z.nc, tissue_cpi(P, H),
            tissue_cb(P, c), z.cap * H * 4 <= ocl_local_limit(P));
    fprintf(f,
            "#define TG_O %lld\n#define TS_O %lld\n#define THB_O %lld\n#define TI_O %lld\n"
            "#define TF_STR %lld\n#define TI_STR %lld\n",
            (long long)so, (long long)(so + z.cap * 4 * H),
            (long long)(so + z.cap * 4 * H + z.slots * 2 * H),
            (long long)(so + p->n_dirs * z.f_str), (long long)z.f_str, (long long)z.i_str);
    fprintf(f,
            "#define HAS_DS %d\n#define DS_SH %d\n#define HAS_HP %d\n#define HAS_CP %d\n"
            "#define RFMT %d\n",
            c->in[2] != NULL, c->p.tissue.p.relevance, c->in[7] != NULL, c->in[8] != NULL, c->wfmt);
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
    const lstmc_rt_rnn_params *p = ocl_rec_params(c);
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
        int rpi = ocl_rows_per_item(P, D * p->batch, p->hidden);
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
                (long long)(p->hidden / rpi), P->wg, ocl_use_loop(P, c));
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
void
ocl_put_program(FILE *f, const ocl_plan *P, const cg_options *o)
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
