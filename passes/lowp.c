/*
 * lowp.c — reduced-precision weights (issue 12; contract in lowp.h, story in
 * docs/PRECISION.md).
 *
 * After the passes, the packed G1 (lstmc.RnnProj input 1, [D, I, G*H]) and G2 (lstmc.RnnRec
 * input 1, [D, H, G*H]) of every layer are replaced by constants in the runtime's layout
 * (lstmc_rt_kernels.h "reduced-precision weights"), stored as int32 words so that every backend
 * (const arrays, weight blobs, the size report) handles them as it handles any constant, and
 * the node gets the attribute "wfmt"; lowering (kprog/lower.c) then calls the format's kernels.
 *
 *   fp16, bf16  round to nearest even (what ONNX Runtime's Cast does);
 *   int8        per output row g of W / U (a column of the packed matrix): s = max|w| / 127,
 *               q = round(w / s), unless one of the model's own DequantizeLinear scales
 *               represents the row exactly (lowp_quant_row).
 */
#include "lowp.h"

#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "lstmc_rt_kernels.h"
#include "passes.h"
#include "wfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The converted copy of weight tensor w [D, K, GH] in fmt; NULL after reporting. */
static ir_tensor *
convert(ir_graph *g, const ir_node *n, ir_tensor *w, int fmt, diag *d)
{
    const int64_t D = w->shape.d[0], K = w->shape.d[1], GH = w->shape.d[2];
    const int64_t bytes = lstmc_rt_lowp_bytes(fmt, D, K, GH), words = (bytes + 3) / 4;
    const float *src = w->data;
    unsigned char *buf;
    ir_shape s = {0};
    ir_tensor *t;
    int64_t i, dd, g2;

    for (i = 0; i < D * K * GH; i++) {
        if (!isfinite(src[i])) {
            diag_node(d, n, "weight tensor '%s' holds %g, which --weights=%s cannot store", w->name,
                      (double)src[i], lowp_name(fmt));
            return NULL;
        }
        if (fmt == LSTMC_RT_WFMT_FP16 && (lowp_f32_to_f16(src[i]) & 0x7c00u) == 0x7c00u) {
            diag_node(d, n,
                      "weight tensor '%s' holds %g, outside fp16's range (65504); use "
                      "--weights=bf16 or int8",
                      w->name, (double)src[i]);
            return NULL;
        }
    }
    s.rank = 1;
    s.d[0] = words;
    t = ir_const_new(g, arena_printf(g->a, "%s.%s", w->name, lowp_name(fmt)), IR_DT_I32, &s, NULL);
    buf = t->data; /* zeroed: the padding stays 0 */
    if (fmt == LSTMC_RT_WFMT_INT8) {
        signed char *q = (signed char *)buf + D * GH * 4;
        int nq;
        const float *qs = ir_qscales(g, &nq);
        for (dd = 0; dd < D; dd++)
            for (g2 = 0; g2 < GH; g2++) {
                float sc =
                    lowp_quant_row(src + dd * K * GH + g2, K, GH, qs, nq, q + dd * K * GH + g2, GH);
                memcpy(buf + 4 * (dd * GH + g2), &sc, 4);
            }
        return t;
    }
    for (i = 0; i < D * K * GH; i++) {
        uint16_t h = fmt == LSTMC_RT_WFMT_FP16 ? lowp_f32_to_f16(src[i]) : lowp_f32_to_bf16(src[i]);
        buf[2 * i] = (unsigned char)(h & 0xffu); /* little-endian, as the runtime reads it */
        buf[2 * i + 1] = (unsigned char)(h >> 8);
    }
    return t;
}

/* The fp16 / bf16 copy of w (any shape), element by element, as 2-byte elements in int32 words
 * (the last padded with 0); NULL after reporting. */
static ir_tensor *
convert_flat(ir_graph *g, const ir_node *n, ir_tensor *w, int fmt, diag *d)
{
    const int64_t ne = ir_shape_numel(&w->shape), words = (2 * ne + 3) / 4;
    const float *src = w->data;
    uint16_t *dst;
    ir_shape s = {0};
    ir_tensor *t;
    int64_t i;

    for (i = 0; i < ne; i++)
        if (!isfinite(src[i]) ||
            (fmt == LSTMC_RT_WFMT_FP16 && (lowp_f32_to_f16(src[i]) & 0x7c00u) == 0x7c00u)) {
            diag_node(d, n, "weight tensor '%s' holds %g, which --weights=%s cannot store", w->name,
                      (double)src[i], lowp_name(fmt));
            return NULL;
        }
    s.rank = 1;
    s.d[0] = words;
    t = ir_const_new(g, arena_printf(g->a, "%s.%s", w->name, lowp_name(fmt)), IR_DT_I32, &s, NULL);
    dst = t->data;
    for (i = 0; i < ne; i++)
        dst[i] = fmt == LSTMC_RT_WFMT_FP16 ? lowp_f32_to_f16(src[i]) : lowp_f32_to_bf16(src[i]);
    return t;
}

/* A new int32-word tensor for the int8 copy of w: n_scales float scales, then the ne int8 q
 * (zeroed: the padding stays 0); NULL after reporting a value int8 cannot store. */
static ir_tensor *
int8_tensor(ir_graph *g, const ir_node *n, const ir_tensor *w, int64_t n_scales, diag *d)
{
    const int64_t ne = ir_shape_numel(&w->shape);
    const float *src = w->data;
    ir_shape s = {0};
    int64_t i;

    for (i = 0; i < ne; i++)
        if (!isfinite(src[i])) {
            diag_node(d, n, "weight tensor '%s' holds %g, which --weights=int8 cannot store",
                      w->name, (double)src[i]);
            return NULL;
        }
    s.rank = 1;
    s.d[0] = n_scales + (ne + 3) / 4;
    return ir_const_new(g, arena_printf(g->a, "%s.int8", w->name), IR_DT_I32, &s, NULL);
}

/* The int8 copy of a tissue's U panels w [D, H * 4H] (lstmc_rt_lstm_tissue_pack's 16-column
 * panels): D x 4H float column scales, each lowp_quant_row of its column's H values in the
 * panel, then the q panels in the same order (lstmc_rt_tissue_params.wfmt); NULL after
 * reporting. */
static ir_tensor *
convert_tissue_int8(ir_graph *g, const ir_node *n, ir_tensor *w, diag *d)
{
    const int64_t D = w->shape.d[0], H = ir_attr_int(n, "hidden_size", 0), G = 4 * H;
    const float *src = w->data;
    ir_tensor *t;
    signed char *q;
    int64_t dd, c;
    int nq;
    const float *qs = ir_qscales(g, &nq);

    if (H < 1 || ir_shape_numel(&w->shape) != D * H * G || !(t = int8_tensor(g, n, w, D * G, d)))
        return NULL;
    q = (signed char *)((float *)t->data + D * G);
    for (dd = 0; dd < D; dd++)
        for (c = 0; c < G; c++) { /* column c: panel c / 16, width 16 (the last: G % 16) */
            const int64_t p0 = c / 16 * 16, wp = G - p0 < 16 ? G - p0 : 16;
            const int64_t at = dd * H * G + p0 * H + (c - p0);
            float sc = lowp_quant_row(src + at, H, wp, qs, nq, q + at, wp);
            memcpy((float *)t->data + dd * G + c, &sc, 4);
        }
    return t;
}

/* The copy of DRS's Ufic w [D, H*3*H] (lstmc_rt_drs_pack: unit j's rows of U_i, U_f, U_c, H
 * contiguous floats each) in fmt: fp16 / bf16 element by element; int8 as D x [H, 3H] of the
 * runtime's layout, D x 3H row scales (each lowp_quant_row of its row, the same values as the
 * exact int8 recurrence's column of U) in front of the q rows. NULL after reporting. */
static ir_tensor *
convert_drs_rows(ir_graph *g, const ir_node *n, ir_tensor *w, int fmt, diag *d)
{
    const int64_t D = w->shape.d[0], H = ir_attr_int(n, "hidden_size", 0), R = 3 * H;
    const float *src = w->data;
    ir_tensor *t;
    signed char *q;
    int64_t r;
    int nq;
    const float *qs = ir_qscales(g, &nq);

    if (fmt != LSTMC_RT_WFMT_INT8)
        return convert_flat(g, n, w, fmt, d);
    if (H < 1 || ir_shape_numel(&w->shape) != D * R * H || !(t = int8_tensor(g, n, w, D * R, d)))
        return NULL;
    q = (signed char *)((float *)t->data + D * R);
    for (r = 0; r < D * R; r++) {
        float sc = lowp_quant_row(src + r * H, H, 1, qs, nq, q + r * H, 1);
        memcpy((float *)t->data + r, &sc, 4);
    }
    return t;
}

/* DRS's weights (RnnDrs inputs 1, 2; a DRS tissue's 9, 10) in fmt, the attribute set; -1 after
 * reporting. */
static int
convert_drs(ir_graph *g, ir_node *n, int uo, int fmt, diag *d)
{
    n->inputs[uo] = convert(g, n, n->inputs[uo], fmt, d);
    if (!n->inputs[uo])
        return -1;
    n->inputs[uo + 1] = convert_drs_rows(g, n, n->inputs[uo + 1], fmt, d);
    if (!n->inputs[uo + 1])
        return -1;
    ir_attr_set_int(g, n, "wfmt", fmt);
    return 0;
}

/* Why DRS's weights (inputs uo, uo + 1) cannot be converted, or NULL. */
static const char *
drs_refusal(const ir_node *n, int uo)
{
    const ir_tensor *a = ir_in(n, uo), *b = ir_in(n, uo + 1);
    if (!a || !a->data || a->dtype != IR_DT_F32 || a->shape.rank != 3 || !b || !b->data ||
        b->dtype != IR_DT_F32)
        return "its U_o and U_f,i,c (the drs pass's split) are not constants";
    return NULL;
}

/* Why node n cannot take reduced-precision weights, or NULL when it can (or has none): every
 * format has the same kernels. */
static const char *
refusal(const ir_node *n)
{
    const ir_tensor *w;
    switch (n->op) {
    case IR_OP_LSTM:
    case IR_OP_GRU:
    case IR_OP_RNN:
        return "schedule A (split_gates disabled) has no reduced-precision kernel; keep the "
               "split_gates pass";
    case IR_OP_RNN_TISSUE: /* issue 24: fp16 / bf16 / int8 U panels, widened as the tissue
                              reads them; with DRS, its U_o and U_f,i,c */
        if (n->n_inputs > 9)
            return drs_refusal(n, 9);
        w = ir_in(n, 1);
        if (!w || !w->data || w->dtype != IR_DT_F32)
            return "its U panels are not constants";
        return NULL;
    case IR_OP_RNN_DRS: /* issue 24: U_o and U_f,i,c in every format (CPU and OpenCL) */
        return drs_refusal(n, 1);
    case IR_OP_RNN_PROJ:
    case IR_OP_RNN_REC:
        break;
    default:
        return NULL;
    }
    if (n->op == IR_OP_RNN_REC && ir_attr_float(n, "hsparse_th", 0.0f) > 0.0f)
        return "hidden-state sparsity (--hsparse) reads fp32 U; it does not combine with "
               "reduced-precision weights";
    if (ir_attr_int(n, "packed", 0) == LSTMC_RT_PACK_ESELL)
        return "its weights are stored sparse in eSELL (--sparse, passes/sparse.c) with fp32 "
               "values; sparse storage does not combine with reduced-precision weights";
    if (!ir_attr_int(n, "packed", 0))
        return "its weights are not packed (the fold_constants pass did not run): the "
               "reduced-precision kernels read packed weights only";
    w = ir_in(n, 1);
    if (!w || !w->data || w->dtype != IR_DT_F32 || w->shape.rank != 3)
        return "its weights are not constants (a graph input), so they cannot be converted "
               "ahead of time";
    return NULL;
}

int
lowp_apply(ir_graph *g, const char *weights, int opencl, diag *d)
{
    int fmt = weights ? lowp_parse(weights) : g->weights_hint, i, bad = 0;
    ir_tensor **done_from, **done_to;
    int n_done = 0;

    if (fmt < 0) {
        diag_error(d, "--weights takes fp32, fp16, bf16 or int8, got '%s'", weights);
        return -1;
    }
    if (fmt == LSTMC_RT_WFMT_FP32)
        return 0;
    /* the OpenCL kernels of the exact schedule read every format (codegen/opencl/opencl.c); the
     * schedules they do not cover are refused as on the CPU, the target named */
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        const char *why = n->dead ? NULL : refusal(n);
        if (!why)
            continue;
        if (!weights) {
            diag_note(d, n, "the model's %s weights run as fp32%s: %s", lowp_name(fmt),
                      opencl ? " on the OpenCL target" : "", why);
            return 0;
        }
        diag_node(d, n, "--weights=%s%s: %s", weights, opencl ? " on an OpenCL target" : "", why);
        bad++;
    }
    if (bad)
        return -1;
    done_from = arena_calloc(g->a, (size_t)g->n_nodes + 1, sizeof *done_from);
    done_to = arena_calloc(g->a, (size_t)g->n_nodes + 1, sizeof *done_to);
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        ir_tensor *w, *t = NULL;
        int k;
        if (n->dead || (n->op != IR_OP_RNN_PROJ && n->op != IR_OP_RNN_REC &&
                        n->op != IR_OP_RNN_TISSUE && n->op != IR_OP_RNN_DRS))
            continue;
        if (n->op == IR_OP_RNN_DRS || (n->op == IR_OP_RNN_TISSUE && n->n_inputs > 9)) {
            if (convert_drs(g, n, n->op == IR_OP_RNN_DRS ? 1 : 9, fmt, d) < 0)
                return -1;
            continue;
        }
        w = ir_in(n, 1);
        if (n->op == IR_OP_RNN_TISSUE) { /* the panels [D, H * 4H], element by element */
            n->inputs[1] = fmt == LSTMC_RT_WFMT_INT8 ? convert_tissue_int8(g, n, w, d)
                                                     : convert_flat(g, n, w, fmt, d);
            if (!n->inputs[1])
                return -1;
            ir_attr_set_int(g, n, "wfmt", fmt);
            continue;
        }
        for (k = 0; k < n_done; k++) /* a weight two nodes share is converted once */
            if (done_from[k] == w)
                t = done_to[k];
        if (!t) {
            t = convert(g, n, w, fmt, d);
            if (!t)
                return -1;
            done_from[n_done] = w;
            done_to[n_done++] = t;
        }
        n->inputs[1] = t;
        ir_attr_set_int(g, n, "wfmt", fmt);
    }
    return 0;
}

int
pass_lowp(ir_graph *g, const pass_ctx *cx, diag *d)
{
    return lowp_apply(g, cx->weights, cx->gpu, d);
}
