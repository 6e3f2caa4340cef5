/*
 * onnx_rnn.c — LSTM, GRU and RNN importers (ONNX opsets 1–22).
 *
 * Every attribute is validated and normalised onto the IR node so that later stages read
 * plain values and never re-derive a default:
 *   hidden_size          INT, required, 1..ONNX_RNN_MAX_HIDDEN
 *   direction            INT  0 forward, 1 reverse, 2 bidirectional       (D = 1, 1, 2)
 *   layout               INT  0: X [T,N,I], 1: X [N,T,I]   (opset >= 14; else 0)
 *   clip                 FLOAT, only when the model gives it (> 0)
 *   input_forget         INT  0/1 (LSTM)
 *   linear_before_reset  INT  0/1 (GRU)
 *   activations          INTS lstmc_rt_act_kind per activation: G_act * D of them, in
 *                        spec order (LSTM f,g,h; GRU f,g; RNN f), forward first
 *   activation_alpha/_beta  FLOATS, one per activation, defaults filled
 *
 * activation_alpha/beta: the spec says the values "are consumed in the order of activation
 * functions" with defaults "the same as of corresponding ONNX operators". As ONNX Runtime
 * does, an entry is consumed only by an activation that takes the parameter (alpha:
 * Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu; beta: Affine,
 * ScaledTanh, HardSigmoid); when the list runs out the operator default applies: LeakyRelu
 * 0.01, ThresholdedRelu 1.0, HardSigmoid 0.2/0.5, Elu 1.0, ScaledTanh 1.0/1.0, Affine
 * 1.0/0.0. (ONNX Runtime itself defaults ThresholdedRelu, ScaledTanh and Affine to 0.)
 * Activations without a parameter store 0.
 *
 * Inputs:  LSTM X W R B sequence_lens initial_h initial_c P;  GRU/RNN X W R B sequence_lens
 * initial_h.  Outputs: LSTM Y Y_h Y_c;  GRU/RNN Y Y_h.  Absent ones are NULL slots.
 */
#include "arena.h"
#include "onnx_impl.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

/* Hidden sizes above this are refused: no real model needs more, and W [D,4H,I] stays
 * far from any overflow. */
#define ONNX_RNN_MAX_HIDDEN ((int64_t)1 << 20)

enum { CELL_LSTM, CELL_GRU, CELL_RNN };

/* The 11 activations of the spec, in lstmc_rt_act_kind order. */
static const struct {
    const char *name;
    int uses_alpha, uses_beta;
    float alpha, beta; /* operator defaults */
} acts[] = {
    {"Sigmoid", 0, 0, 0.0f, 0.0f},         /* LSTMC_RT_ACT_SIGMOID */
    {"Tanh", 0, 0, 0.0f, 0.0f},            /* LSTMC_RT_ACT_TANH */
    {"Relu", 0, 0, 0.0f, 0.0f},            /* LSTMC_RT_ACT_RELU */
    {"HardSigmoid", 1, 1, 0.2f, 0.5f},     /* LSTMC_RT_ACT_HARD_SIGMOID */
    {"Affine", 1, 1, 1.0f, 0.0f},          /* LSTMC_RT_ACT_AFFINE */
    {"LeakyRelu", 1, 0, 0.01f, 0.0f},      /* LSTMC_RT_ACT_LEAKY_RELU */
    {"ThresholdedRelu", 1, 0, 1.0f, 0.0f}, /* LSTMC_RT_ACT_THRESHOLDED_RELU */
    {"ScaledTanh", 1, 1, 1.0f, 1.0f},      /* LSTMC_RT_ACT_SCALED_TANH */
    {"Elu", 1, 0, 1.0f, 0.0f},             /* LSTMC_RT_ACT_ELU */
    {"Softsign", 0, 0, 0.0f, 0.0f},        /* LSTMC_RT_ACT_SOFTSIGN */
    {"Softplus", 0, 0, 0.0f, 0.0f},        /* LSTMC_RT_ACT_SOFTPLUS */
};
#define N_ACTS ((int)(sizeof acts / sizeof acts[0]))

static const struct {
    ir_op op;
    int n_acts;          /* activations per direction */
    int default_acts[3]; /* spec defaults, per direction */
} cells[] = {
    [CELL_LSTM] = {IR_OP_LSTM, 3, {0, 1, 1}},
    [CELL_GRU] = {IR_OP_GRU, 2, {0, 1, 0}},
    [CELL_RNN] = {IR_OP_RNN, 1, {1, 0, 0}},
};

/* Case-insensitive, as ONNX Runtime accepts "tanh" as well as "Tanh". */
static int
act_find(const char *s)
{
    int k;
    for (k = 0; k < N_ACTS; k++) {
        const char *a = acts[k].name, *b = s;
        while (*a && *b && tolower((unsigned char)*a) == tolower((unsigned char)*b))
            a++, b++;
        if (!*a && !*b)
            return k;
    }
    return -1;
}

static int
import_activations(onnx_ctx *cx, const Onnx__NodeProto *np, ir_node *n, int cell, int n_dirs)
{
    int want = cells[cell].n_acts * n_dirs, n_names, n_alpha, n_beta, i, ia = 0, ib = 0;
    const char **names;
    const float *alpha_in, *beta_in;
    int64_t kinds[6];
    float alpha[6], beta[6];
    int r, errors = 0;

    r = onnx_attr_strings(cx, np, "activations", &names, &n_names);
    if (r < 0)
        return -1;
    if (r == 1 && n_names != want) {
        onnx_err(cx, "attribute 'activations' has %d names; %s with %d direction%s needs %d",
                 n_names, cx->op_type, n_dirs, n_dirs == 1 ? "" : "s", want);
        return -1;
    }
    for (i = 0; i < want; i++) {
        if (r == 1) {
            int k = act_find(names[i]);
            if (k < 0) {
                onnx_err(cx,
                         "attribute 'activations' names '%s'; expected one of Sigmoid, "
                         "Tanh, Relu, HardSigmoid, Affine, LeakyRelu, ThresholdedRelu, "
                         "ScaledTanh, Elu, Softsign, Softplus",
                         names[i]);
                errors++;
                continue;
            }
            kinds[i] = k;
        } else {
            kinds[i] = cells[cell].default_acts[i % cells[cell].n_acts];
        }
    }
    if (errors)
        return -1;

    if (onnx_attr_floats(cx, np, "activation_alpha", &alpha_in, &n_alpha) < 0 ||
        onnx_attr_floats(cx, np, "activation_beta", &beta_in, &n_beta) < 0)
        return -1;
    for (i = 0; i < want; i++) {
        int k = (int)kinds[i];
        alpha[i] = beta[i] = 0.0f;
        if (acts[k].uses_alpha)
            alpha[i] = ia < n_alpha ? alpha_in[ia++] : acts[k].alpha;
        if (acts[k].uses_beta)
            beta[i] = ib < n_beta ? beta_in[ib++] : acts[k].beta;
    }
    ir_attr_set_ints(cx->g, n, "activations", kinds, want);
    ir_attr_set_floats(cx->g, n, "activation_alpha", alpha, want);
    ir_attr_set_floats(cx->g, n, "activation_beta", beta, want);
    return 0;
}

static int
import_cell(onnx_ctx *cx, const Onnx__NodeProto *np, int cell)
{
    const char *dir_s;
    int64_t hidden, layout;
    int dir, n_dirs, errors = 0, r;
    float clip;
    ir_node *n = onnx_node_new(cx, np, cells[cell].op, onnx_arity_of(cells[cell].op));
    if (!n)
        return -1;

    r = onnx_attr_int(cx, np, "hidden_size", 0, &hidden);
    if (r == 0) {
        onnx_err(cx, "attribute 'hidden_size' is required");
        errors++;
    } else if (r == 1 && (hidden < 1 || hidden > ONNX_RNN_MAX_HIDDEN)) {
        onnx_err(cx, "attribute 'hidden_size' is %lld; expected 1 to %lld", (long long)hidden,
                 (long long)ONNX_RNN_MAX_HIDDEN);
        errors++;
    } else if (r < 0) {
        errors++;
    } else {
        ir_attr_set_int(cx->g, n, "hidden_size", hidden);
    }

    if (onnx_attr_string(cx, np, "direction", "forward", &dir_s) < 0) {
        return -1;
    } else if (strcmp(dir_s, "forward") == 0) {
        dir = 0;
    } else if (strcmp(dir_s, "reverse") == 0) {
        dir = 1;
    } else if (strcmp(dir_s, "bidirectional") == 0) {
        dir = 2;
    } else {
        onnx_err(cx,
                 "attribute 'direction' is \"%s\"; expected forward, reverse or "
                 "bidirectional",
                 dir_s);
        return -1;
    }
    n_dirs = dir == 2 ? 2 : 1;
    ir_attr_set_int(cx->g, n, "direction", dir);

    if (onnx_attr_int(cx, np, "layout", 0, &layout) < 0) {
        errors++;
    } else if (layout != 0 && layout != 1) {
        onnx_err(cx, "attribute 'layout' is %lld; expected 0 or 1", (long long)layout);
        errors++;
    } else {
        ir_attr_set_int(cx->g, n, "layout", layout);
    }

    r = onnx_attr_float(cx, np, "clip", 0.0f, &clip);
    if (r < 0) {
        errors++;
    } else if (r == 1 && !(clip > 0.0f && isfinite(clip))) {
        onnx_err(cx, "attribute 'clip' is %g; expected a positive threshold", (double)clip);
        errors++;
    } else if (r == 1) {
        ir_attr_set_float(cx->g, n, "clip", clip);
    }

    if (cell == CELL_LSTM && onnx_attr_flag(cx, np, n, "input_forget", 0) < 0)
        errors++;
    if (cell == CELL_GRU && onnx_attr_flag(cx, np, n, "linear_before_reset", 0) < 0)
        errors++;
    if (import_activations(cx, np, n, cell, n_dirs) < 0)
        errors++;
    return errors ? -1 : 0;
}

int
onnx_import_lstm(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    return import_cell(cx, np, CELL_LSTM);
}

int
onnx_import_gru(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    return import_cell(cx, np, CELL_GRU);
}

int
onnx_import_rnn(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    return import_cell(cx, np, CELL_RNN);
}
