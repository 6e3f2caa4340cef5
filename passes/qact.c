/*
 * qact.c — full-integer recurrent layers (issue 22, docs/PRECISION.md "Full-integer recurrent
 * layers"): every LSTM, GRU and RNN node becomes
 *
 *     X -> lstmc.Quantize -> lstmc.RnnQ -> lstmc.Dequantize -> Y (and Y_h, Y_c)
 *
 * with the weights quantised per row to int8 and the recipe's integers (multipliers, Q.12
 * biases, the cell exponent) computed here from the activation ranges the driver measured
 * on the calibration samples (cx->qact). A layer whose input comes, through Squeeze,
 * Unsqueeze, Reshape, Flatten, Identity or Transpose, from a layer this pass already made
 * integer reads that layer's integers (the moves run on them) instead of a Dequantize and
 * a Quantize: stacked layers stay integer from the first layer's input to the last one's
 * output. Anything the recipe cannot express is refused, naming the node.
 */
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "lstmc_rt_kernels.h"
#include "passes.h"
#include "wfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A real multiplier as (m, n) with M ~ m * 2^-n, m < 2^bits (the recipe's "Multipliers"). */
static int
qmult(double M, int bits, int32_t *m, int32_t *n)
{
    int e;
    double f;
    int64_t mm;

    *m = *n = 0;
    if (!(M > 0.0))
        return 0;
    f = frexp(M, &e);
    mm = (int64_t)floor(f * (double)((int64_t)1 << bits) + 0.5);
    if (mm == (int64_t)1 << bits) {
        mm >>= 1;
        e++;
    }
    if (bits - e > 62)
        return 0; /* too small to matter */
    if (bits - e < 0)
        return -1;
    *m = (int32_t)mm;
    *n = bits - e;
    return 0;
}

/* Bits of the accumulator bound b, and the multiplier bits that keep acc * m within int64. */
static int
mult_bits(double bound)
{
    int b = (int)ceil(log2(bound + 1.0)) + 1;
    return b + 31 <= 62 ? 31 : 62 - b < 8 ? 8 : 62 - b;
}

static const pass_qrange *
range_of(const pass_ctx *cx, const ir_node *n)
{
    int i;
    for (i = 0; i < cx->qact.n; i++)
        if (strcmp(cx->qact.r[i].node, n->name) == 0)
            return &cx->qact.r[i];
    return NULL;
}

static int
is_move(ir_op op)
{
    return op == IR_OP_SQUEEZE || op == IR_OP_UNSQUEEZE || op == IR_OP_RESHAPE ||
           op == IR_OP_FLATTEN || op == IR_OP_IDENTITY || op == IR_OP_TRANSPOSE;
}

/* Move m (Squeeze, Transpose, Gather, ...) again on the integers src: the copy's output, a
 * new integer tensor of m's output shape. */
static ir_tensor *
move_on_ints(ir_graph *g, const ir_node *m, ir_tensor *src)
{
    ir_tensor *o = ir_tensor_tmp(g, "q_move", src->dtype, &ir_out(m, 0)->shape);
    ir_node *c;
    char name[512];
    int k;

    snprintf(name, sizeof name, "%s/q", m->name);
    c = ir_node_new(g, m->op, name, m->op_type, m->n_inputs, 1);
    ir_node_origin(c, m);
    c->inputs[0] = src;
    for (k = 1; k < m->n_inputs; k++)
        c->inputs[k] = m->inputs[k];
    for (k = 0; k < m->n_attrs; k++)
        *ir_attr_add(g, c, m->attrs[k].name, m->attrs[k].kind) = m->attrs[k];
    ir_node_set_output(c, 0, o);
    return o;
}

/* The Dequantize X comes from through up to 8 moves (chain[0..*nc): X's producer first), or
 * NULL. */
static ir_node *
dq_behind(const ir_tensor *X, ir_node **chain, int *nc)
{
    *nc = 0;
    while (X->producer && is_move(X->producer->op) && *nc < 8) {
        chain[(*nc)++] = X->producer;
        X = ir_in(X->producer, 0);
    }
    return X->producer && X->producer->op == IR_OP_DEQUANTIZE ? X->producer : NULL;
}

/*
 * When X is a Dequantize (this pass's, or the model's DequantizeLinear) of `bits` integers,
 * or reaches one through moves, the integer tensor with X's shape (the moves copied to run
 * on integers), its scale and zero point; NULL otherwise.
 */
static ir_tensor *
int_source(ir_graph *g, ir_tensor *X, int bits, float *scale, int *zp)
{
    ir_node *chain[8];
    int nc, i;
    ir_tensor *src;
    ir_node *dq = dq_behind(X, chain, &nc);

    if (!dq || ir_attr_int(dq, "bits", 0) != bits)
        return NULL;
    *scale = ir_attr_float(dq, "scale", 1.0f);
    *zp = (int)ir_attr_int(dq, "zero_point", 0);
    src = ir_in(dq, 0);
    for (i = nc - 1; i >= 0; i--) /* the moves again, on the integers */
        src = move_on_ints(g, chain[i], src);
    return src;
}

/* The bits of the Dequantize X comes from, through moves; 0 when it comes from none. */
static int
dq_bits(const ir_tensor *X)
{
    ir_node *chain[8];
    int nc;
    const ir_node *dq = dq_behind(X, chain, &nc);
    return dq ? (int)ir_attr_int(dq, "bits", 0) : 0;
}

/* A Quantize or Dequantize node from `in` to `out`. */
static ir_node *
quant_node(ir_graph *g, ir_op op, const char *name, ir_tensor *in, ir_tensor *out, float scale,
           int zp, int bits, const ir_node *origin)
{
    ir_node *q = ir_node_new(g, op, name,
                             op == IR_OP_QUANTIZE ? "lstmc.Quantize" : "lstmc.Dequantize", 1, 1);
    ir_node_origin(q, origin);
    q->inputs[0] = in;
    ir_node_set_output(q, 0, out);
    ir_attr_set_float(g, q, "scale", scale);
    ir_attr_set_int(g, q, "zero_point", zp);
    ir_attr_set_int(g, q, "bits", bits);
    return q;
}

/* A float tensor as integers: a constant quantised here, or a Quantize node. */
static ir_tensor *
quantized(ir_graph *g, ir_tensor *t, float scale, int zp, int bits, const ir_node *n,
          const char *what)
{
    const ir_dtype dt = bits == 8 ? IR_DT_I8 : IR_DT_I16;
    const int64_t cnt = ir_shape_numel(&t->shape);
    const int32_t lo = bits == 8 ? -128 : -32768, hi = bits == 8 ? 127 : 32767;
    char name[512];
    int64_t k;

    if (t->data && t->dtype == IR_DT_F32) {
        void *q = arena_alloc(g->a, (size_t)(cnt * (bits / 8)) + 1);
        for (k = 0; k < cnt; k++) {
            double v = nearbyint((double)((const float *)t->data)[k] / scale) + zp;
            int32_t r = v < lo ? lo : v > hi ? hi : (int32_t)v;
            if (bits == 8)
                ((int8_t *)q)[k] = (int8_t)r;
            else
                ((int16_t *)q)[k] = (int16_t)r;
        }
        return ir_const_wrap(g, what, dt, &t->shape, q);
    }
    {
        ir_tensor *o = ir_tensor_tmp(g, what, dt, &t->shape);
        snprintf(name, sizeof name, "%s/%s", n->name, what);
        quant_node(g, IR_OP_QUANTIZE, name, t, o, scale, zp, bits, n);
        return o;
    }
}

/* The output slot i of n as integers with a Dequantize to its float tensor. */
static ir_tensor *
dequantized(ir_graph *g, ir_node *n, int i, ir_dtype dt, float scale, int bits, int is_h)
{
    ir_tensor *y = ir_out(n, i), *q;
    ir_node *dq;
    char name[512];

    if (!y)
        return NULL;
    q = ir_tensor_tmp(g, "yq", dt, &y->shape);
    snprintf(name, sizeof name, "%s/dq%d", n->name, i);
    dq = quant_node(g, IR_OP_DEQUANTIZE, name, q, y, scale, 0, bits, n);
    if (is_h)
        ir_attr_set_int(g, dq, "qact_h", 1); /* a later layer may read q itself */
    return q;
}

/* The model's QuantizeLinear (lstmc.Quantize) that reads t, or NULL. */
static const ir_node *
quantize_reader(const ir_graph *g, const ir_tensor *t)
{
    int i;
    for (i = 0; t && i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        if (!n->dead && n->op == IR_OP_QUANTIZE && ir_in(n, 0) == t)
            return n;
    }
    return NULL;
}

/* The largest |value| an int8 or int16 Quantize node represents. */
static double
quant_absmax(const ir_node *q)
{
    const double s = ir_attr_float(q, "scale", 1.0f), zp = (double)ir_attr_int(q, "zero_point", 0);
    const double lo = ir_attr_int(q, "bits", 8) == 16 ? -32768.0 : -128.0;
    return fmax(fabs((lo - zp) * s), fabs((-lo - 1.0 - zp) * s));
}

/*
 * A QDQ model's ranges for layer n (issue 22), where no calibration measured them: h from the
 * QuantizeLinear that reads Y or Y_h (tanh and sigmoid cells: at most 1 without one), c from
 * one that reads Y_c (else 8: docs/PRECISION.md). X's scale is the DequantizeLinear's the
 * caller found. NULL when a range is unknown (a Relu RNN without a QuantizeLinear after it).
 */
static const pass_qrange *
qdq_range(ir_graph *g, const ir_node *n, int relu)
{
    pass_qrange *r = arena_calloc(g->a, 1, sizeof *r);
    const ir_node *qy = quantize_reader(g, ir_out(n, 0));
    const ir_node *qc = n->op == IR_OP_LSTM ? quantize_reader(g, ir_out(n, 2)) : NULL;

    if (!qy)
        qy = quantize_reader(g, ir_out(n, 1));
    if (!qy && relu)
        return NULL;
    r->node = n->name;
    r->h_absmax = qy ? (float)quant_absmax(qy) : 1.0f;
    r->c_absmax = qc ? (float)quant_absmax(qc) : 8.0f;
    return r;
}

/* A recurrent state input of the streaming step program (compiler/stream/step.c names them
 * lstmc_state_h<k>, lstmc_state_c<k>). */
static int
is_state_input(const ir_tensor *t)
{
    return t && t->is_input && !t->data && strncmp(t->name, "lstmc_state_", 12) == 0;
}

/* The step program's state in integers: the state input t itself holds the layer's integers
 * (the state struct then has the integer h and c), its scale kept in io_scale. */
static ir_tensor *
int_state(ir_tensor *t, ir_dtype dt, float scale)
{
    t->dtype = dt;
    t->io_scale = scale;
    t->io_zero_point = 0;
    return t;
}

/* The step program's next state: the last of g's outputs that is y (the state outputs follow
 * the graph's own) becomes q, the integers. */
static void
int_state_out(ir_graph *g, ir_tensor *y, ir_tensor *q, float scale)
{
    int i, still = 0;
    for (i = g->n_outputs - 1; i >= 0; i--)
        if (g->outputs[i] == y) {
            g->outputs[i] = q;
            q->is_output = 1;
            q->io_scale = scale;
            break;
        }
    for (i = 0; i < g->n_outputs; i++)
        still |= g->outputs[i] == y;
    y->is_output = still;
}

static int
act_ok(int64_t kind, int cell)
{
    return kind == LSTMC_RT_ACT_SIGMOID || kind == LSTMC_RT_ACT_TANH ||
           (kind == LSTMC_RT_ACT_RELU && cell == LSTMC_RT_CELL_RNN);
}

static const char *const act_label[] = {
    "Sigmoid",         "Tanh",       "Relu", "HardSigmoid", "Affine",  "LeakyRelu",
    "ThresholdedRelu", "ScaledTanh", "Elu",  "Softsign",    "Softplus"};

static int
convert(ir_graph *g, ir_node *n, const pass_ctx *cx, diag *d)
{
    const int bits = cx->qact.bits, cell = n->op == IR_OP_LSTM  ? LSTMC_RT_CELL_LSTM
                                           : n->op == IR_OP_GRU ? LSTMC_RT_CELL_GRU
                                                                : LSTMC_RT_CELL_RNN;
    const int G = cell == LSTMC_RT_CELL_LSTM ? 4 : cell == LSTMC_RT_CELL_GRU ? 3 : 1;
    const int n_act = cell == LSTMC_RT_CELL_LSTM ? 3 : cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    const ir_dtype dt = bits == 8 ? IR_DT_I8 : IR_DT_I16;
    const double hmax = bits == 8 ? 127.0 : 32767.0;
    ir_tensor *X = ir_in(n, 0), *W = ir_in(n, 1), *R = ir_in(n, 2), *B = ir_in(n, 3);
    ir_tensor *Pp = cell == LSTMC_RT_CELL_LSTM ? ir_in(n, 7) : NULL, *Xq, *t;
    const ir_attr *acts = ir_attr_get(n, "activations");
    const pass_qrange *r = range_of(cx, n);
    const int64_t H = ir_attr_int(n, "hidden_size", 0), dir = ir_attr_int(n, "direction", 0);
    const int64_t D = dir == 2 ? 2 : 1, I = X->shape.d[2], GH = G * H;
    int nq;
    const float *qs = ir_qscales(g, &nq);
    int64_t dd, row, k;
    float sx = 1.0f, sh, sp = 0.0f;
    int zx = 0, ce = 15, act[6] = {0}, i, mbW, mbU;
    int8_t *Wq, *Rq;
    int32_t *Q;
    float *sw, *su;
    ir_node *q;
    char name[512];
    ir_shape s;
    int32_t m, sh_n;
    double hr;

    /* the recipe's preconditions */
    if (!W->data || !R->data || (B && !B->data) || (Pp && !Pp->data)) {
        diag_node(d, n,
                  "--activations=int%d needs constant W, R, B and P (a weight is computed "
                  "at run time here)",
                  bits);
        return -1;
    }
    for (i = 0; i < n_act * D; i++) {
        int64_t kind = acts && i < acts->n ? acts->ints[i]
                       : i % n_act == 0    ? LSTMC_RT_ACT_SIGMOID
                                           : LSTMC_RT_ACT_TANH;
        if (cell == LSTMC_RT_CELL_RNN && !acts)
            kind = LSTMC_RT_ACT_TANH;
        if (!act_ok(kind, cell)) {
            diag_node(d, n,
                      "--activations=int%d: activation %s has no integer recipe (Sigmoid and "
                      "Tanh%s do; docs/PRECISION.md)",
                      bits, kind >= 0 && kind <= 10 ? act_label[kind] : "?",
                      cell == LSTMC_RT_CELL_RNN ? ", and Relu for RNN," : "");
            return -1;
        }
        act[i] = (int)kind;
    }
    if (bits == 8 && (I > 65536 || H > 65536)) {
        diag_node(d, n,
                  "--activations=int8: rows of %lld terms overflow the int32 accumulators "
                  "(at most 65536); use --activations=int16",
                  (long long)(I > H ? I : H));
        return -1;
    }
    Xq = int_source(g, X, bits, &sx, &zx);
    if (!r && Xq) /* a QDQ model: its own scales */
        r = qdq_range(g, n, cell == LSTMC_RT_CELL_RNN && act[0] == LSTMC_RT_ACT_RELU);
    if (!r && dq_bits(X) && dq_bits(X) != bits) {
        diag_node(d, n,
                  "the model quantises its input to %d bits (QuantizeLinear / "
                  "DequantizeLinear); compile it with --activations=int%d, not int%d",
                  dq_bits(X), dq_bits(X), bits);
        return -1;
    }
    if (!r) {
        diag_node(d, n,
                  "--activations=int%d needs the layer's activation ranges: give "
                  "--calib-data=SAMPLES.npy (the samples lstmc calibrate takes), or "
                  "quantise its input and output in the model (QuantizeLinear / "
                  "DequantizeLinear)",
                  bits);
        return -1;
    }
    /* scales */
    if (!Xq) {
        double lo = fmin(r->x_min, 0.0), hi = fmax(r->x_max, 0.0);
        if (bits == 8) {
            sx = hi > lo ? (float)((hi - lo) / 255.0) : 1.0f;
            zx = (int)fmax(-128.0, fmin(127.0, nearbyint(-128.0 - lo / sx)));
        } else {
            double a = fmax(-lo, hi);
            sx = a > 0.0 ? (float)(a / 32767.0) : 1.0f;
        }
        Xq = quantized(g, X, sx, zx, bits, n, "xq");
    }
    hr = r->h_absmax * 1.05;
    if (cell != LSTMC_RT_CELL_RNN || act[0] != LSTMC_RT_ACT_RELU)
        hr = fmin(hr, 1.0);
    if (!(hr > 1e-6))
        hr = 1e-6;
    sh = (float)(hr / hmax);
    if (cell == LSTMC_RT_CELL_LSTM) {
        double c = r->c_absmax * 1.05;
        ce = c > 1.0 ? 15 - (int)ceil(log2(c)) : 15;
        if (ce < 0) {
            diag_node(d, n, "--activations=int%d: the cell state reaches %g, beyond int16's Q15.0",
                      bits, r->c_absmax);
            return -1;
        }
    }

    /* weights per row, the row integers */
    Wq = arena_alloc(g->a, (size_t)(D * GH * I));
    Rq = arena_alloc(g->a, (size_t)(D * GH * H));
    Q = arena_calloc(g->a, (size_t)(D * GH * LSTMC_RT_RNNQ_ROW), sizeof *Q);
    sw = arena_alloc(g->a, (size_t)(D * GH) * sizeof *sw);
    su = arena_alloc(g->a, (size_t)(D * GH) * sizeof *su);
    mbW = mult_bits((double)I * 127.0 * (bits == 8 ? 256.0 : 32768.0));
    mbU = mult_bits((double)H * 127.0 * hmax);
    for (dd = 0; dd < D; dd++)
        for (row = 0; row < GH; row++) {
            const int64_t rw = dd * GH + row;
            int32_t *qr = Q + rw * LSTMC_RT_RNNQ_ROW;
            const float *wr = (const float *)W->data + rw * I,
                        *ur = (const float *)R->data + rw * H;
            int64_t wsum = 0;
            double b;

            sw[rw] = lowp_quant_row(wr, I, 1, qs, nq, (signed char *)Wq + rw * I, 1);
            su[rw] = lowp_quant_row(ur, H, 1, qs, nq, (signed char *)Rq + rw * H, 1);
            for (k = 0; k < I; k++)
                wsum += Wq[rw * I + k];
            if (qmult((double)sw[rw] * sx * 4096.0, mbW, &qr[LSTMC_RT_RNNQ_MW],
                      &qr[LSTMC_RT_RNNQ_NW]) < 0 ||
                qmult((double)su[rw] * sh * 4096.0, mbU, &qr[LSTMC_RT_RNNQ_MU],
                      &qr[LSTMC_RT_RNNQ_NU]) < 0) {
                diag_node(d, n,
                          "--activations=int%d: a weight row's scale is too large for the "
                          "integer recipe",
                          bits);
                return -1;
            }
            qr[LSTMC_RT_RNNQ_ZC] = (int32_t)(-(int64_t)zx * wsum);
            for (k = 0; k < 2; k++) {
                b = B ? ((const float *)B->data)[dd * 2 * GH + k * GH + row] : 0.0;
                b = nearbyint(b * 4096.0);
                if (fabs(b) >= 1073741824.0) {
                    diag_node(d, n, "--activations=int%d: a bias (%g) is beyond Q.12's range", bits,
                              b / 4096.0);
                    return -1;
                }
                qr[k ? LSTMC_RT_RNNQ_BR : LSTMC_RT_RNNQ_BW] = (int32_t)b;
            }
        }

    /* the node */
    snprintf(name, sizeof name, "%s/int%d", n->name, bits);
    q = ir_node_new(g, IR_OP_RNN_Q, name, "lstmc.RnnQ", 8, 3);
    ir_node_origin(q, n);
    for (i = 0; i < n->n_attrs; i++)
        *ir_attr_add(g, q, n->attrs[i].name, n->attrs[i].kind) = n->attrs[i];
    {
        int64_t a64[6];
        for (i = 0; i < 6; i++)
            a64[i] = act[i];
        ir_attr_set_ints(g, q, "activations", a64, n_act * (int)D);
    }
    ir_attr_set_int(g, q, "bits", bits);
    ir_attr_set_int(g, q, "cell", cell);
    ir_attr_set_float(g, q, "x_scale", sx);
    ir_attr_set_int(g, q, "x_zero_point", zx);
    ir_attr_set_float(g, q, "h_scale", sh);
    ir_attr_set_int(g, q, "cell_exp", ce);
    if (ir_attr_get(n, "clip")) {
        double c = nearbyint((double)ir_attr_float(n, "clip", 0.0f) * 4096.0);
        ir_attr_set_int(g, q, "clip_q", (int64_t)fmin(c, 2147483647.0));
    }
    /* h's multiplier: LSTM o*tanh(c) in Q0.30, GRU n in Q0.15 to s_h/32768, RNN Q0.15 or Q.12 */
    if (cell == LSTMC_RT_CELL_LSTM)
        qmult(ldexp(1.0, -30) / sh, 31, &m, &sh_n);
    else if (cell == LSTMC_RT_CELL_GRU)
        qmult(1.0 / sh, 31, &m, &sh_n);
    else if (act[0] == LSTMC_RT_ACT_RELU)
        qmult(ldexp(1.0, -12) / sh, 24, &m, &sh_n);
    else
        qmult(ldexp(1.0, -15) / sh, 31, &m, &sh_n);
    ir_attr_set_int(g, q, "h_mult", m);
    ir_attr_set_int(g, q, "h_shift", sh_n);

    s.rank = 3;
    s.d[0] = D;
    s.d[1] = GH;
    s.d[2] = I;
    q->inputs[0] = Xq;
    q->inputs[1] = ir_const_wrap(g, "wq", IR_DT_I8, &s, Wq);
    s.d[2] = H;
    q->inputs[2] = ir_const_wrap(g, "rq", IR_DT_I8, &s, Rq);
    s.d[2] = LSTMC_RT_RNNQ_ROW;
    q->inputs[3] = ir_const_wrap(g, "qrows", IR_DT_I32, &s, Q);
    q->inputs[4] = ir_in(n, 4);
    if ((t = ir_in(n, 5)))
        q->inputs[5] =
            is_state_input(t) ? int_state(t, dt, sh) : quantized(g, t, sh, 0, bits, n, "h0q");
    if (cell == LSTMC_RT_CELL_LSTM && (t = ir_in(n, 6)))
        q->inputs[6] = is_state_input(t) ? int_state(t, IR_DT_I16, ldexpf(1.0f, -ce))
                                         : quantized(g, t, ldexpf(1.0f, -ce), 0, 16, n, "c0q");
    if (Pp) {
        const int64_t np = ir_shape_numel(&Pp->shape);
        const float *pv = Pp->data;
        float pmax = 0.0f;
        for (k = 0; k < np; k++)
            pmax = fmaxf(pmax, fabsf(pv[k]));
        sp = pmax > 0.0f ? pmax / 32767.0f : 1.0f;
        q->inputs[7] = quantized(g, Pp, sp, 0, 16, n, "peepq");
        qmult((double)sp * ldexp(1.0, -ce) * 4096.0, 31, &m, &sh_n);
        ir_attr_set_int(g, q, "peep_mult", m);
        ir_attr_set_int(g, q, "peep_shift", sh_n);
    }
    {
        ir_tensor *yh = ir_out(n, 1), *yc = cell == LSTMC_RT_CELL_LSTM ? ir_out(n, 2) : NULL;
        ir_node_set_output(q, 0, dequantized(g, n, 0, dt, sh, bits, 1));
        ir_node_set_output(q, 1, dequantized(g, n, 1, dt, sh, bits, 1));
        if (cell == LSTMC_RT_CELL_LSTM)
            ir_node_set_output(q, 2, dequantized(g, n, 2, IR_DT_I16, ldexpf(1.0f, -ce), 16, 0));
        if (is_state_input(ir_in(n, 5)) && yh && ir_out(q, 1)) /* the step program's state */
            int_state_out(g, yh, ir_out(q, 1), sh);
        if (cell == LSTMC_RT_CELL_LSTM && is_state_input(ir_in(n, 6)) && yc && ir_out(q, 2))
            int_state_out(g, yc, ir_out(q, 2), ldexpf(1.0f, -ce));
    }
    n->dead = 1;
    return 0;
}

/* --- --io=int: no float left ------------------------------------------------------- */

/* Replace every read of `from` by `to` (node inputs and graph outputs). */
static void
replace_uses(ir_graph *g, const ir_tensor *from, ir_tensor *to)
{
    int i, k;
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        for (k = 0; !n->dead && k < n->n_inputs; k++)
            if (n->inputs[k] == from)
                n->inputs[k] = to;
    }
    for (i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == from)
            g->outputs[i] = to;
}

/* The only live node reading t (and t no graph output), or NULL. */
static ir_node *
only_reader(const ir_graph *g, const ir_tensor *t)
{
    ir_node *r = NULL;
    int i, k;
    if (t->is_output)
        return NULL;
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        for (k = 0; !n->dead && k < n->n_inputs; k++)
            if (n->inputs[k] == t) {
                if (r && r != n)
                    return NULL;
                r = n;
            }
    }
    return r;
}

/* A graph input read (through moves) only by a Quantize: the input becomes integer. */
static void
int_input(ir_graph *g, ir_tensor *t)
{
    ir_node *chain[8], *m = only_reader(g, t);
    int nc = 0, i;
    ir_dtype dt;

    while (m && is_move(m->op) && ir_in(m, 0) == t && nc < 8) {
        chain[nc++] = m;
        m = only_reader(g, ir_out(m, 0));
    }
    if (!m || m->op != IR_OP_QUANTIZE)
        return;
    dt = ir_out(m, 0)->dtype;
    t->dtype = dt;
    t->io_scale = ir_attr_float(m, "scale", 1.0f);
    t->io_zero_point = (int32_t)ir_attr_int(m, "zero_point", 0);
    for (i = 0; i < nc; i++)
        ir_out(chain[i], 0)->dtype = dt;
    replace_uses(g, ir_out(m, 0), ir_in(m, 0));
    m->dead = 1;
}

/* A Quantize q fed, through moves, by a Gather of rows of a float constant (an embedding):
 * the table quantised here with q's scale and zero point (as q would, half to even), the
 * Gather and the moves on its integers, q gone. */
static void
int_table(ir_graph *g, ir_node *q)
{
    ir_node *chain[8], *ga;
    ir_tensor *t = ir_in(q, 0), *tab, *tq, *src;
    const float s = ir_attr_float(q, "scale", 1.0f);
    const int zp = (int)ir_attr_int(q, "zero_point", 0), bits = (int)ir_attr_int(q, "bits", 8);
    const double lo = bits == 8 ? -128.0 : -32768.0, hi = bits == 8 ? 127.0 : 32767.0;
    int nc = 0, i;
    int64_t k, n;
    void *v;

    while (t->producer && is_move(t->producer->op) && only_reader(g, t) && nc < 8) {
        chain[nc++] = t->producer;
        t = ir_in(t->producer, 0);
    }
    ga = t->producer;
    if (!ga || ga->op != IR_OP_GATHER || !only_reader(g, t) || !(tab = ir_in(ga, 0))->data ||
        tab->dtype != IR_DT_F32)
        return;
    n = ir_shape_numel(&tab->shape);
    v = arena_alloc(g->a, (size_t)(n * (bits / 8)) + 1);
    for (k = 0; k < n; k++) {
        const double r =
            fmax(lo, fmin(hi, (double)nearbyintf(((const float *)tab->data)[k] / s) + zp));
        if (bits == 8)
            ((int8_t *)v)[k] = (int8_t)r;
        else
            ((int16_t *)v)[k] = (int16_t)r;
    }
    tq = ir_const_wrap(g, "table_q", bits == 8 ? IR_DT_I8 : IR_DT_I16, &tab->shape, v);
    src = move_on_ints(g, ga, tq); /* the Gather again, on the integer table */
    for (i = nc - 1; i >= 0; i--)
        src = move_on_ints(g, chain[i], src);
    replace_uses(g, ir_out(q, 0), src);
    q->dead = 1;
}

/* y = Dequantize(q) read by a Gemm with constant weights as its A, or a MatMul by a constant
 * [K, N] (A of any rank: its rows): lstmc.GemmQ on q, then a Dequantize of its int32.
 * Returns 1 when rewritten, 0 when it does not apply, -1 refused. */
static int
gemm_q(ir_graph *g, ir_node *dq, ir_node *m, diag *d)
{
    const int mm = m->op == IR_OP_MATMUL;
    ir_tensor *q = ir_in(dq, 0), *B = ir_in(m, 1), *C = mm ? NULL : ir_in(m, 2), *Y = ir_out(m, 0);
    ir_tensor *yq;
    const int tb = mm ? 0 : (int)ir_attr_int(m, "transB", 0);
    const float alpha = mm ? 1.0f : ir_attr_float(m, "alpha", 1.0f);
    const float beta = mm ? 1.0f : ir_attr_float(m, "beta", 1.0f);
    const float sa = ir_attr_float(dq, "scale", 1.0f);
    int64_t K, N, j, k, nc;
    float bmax = 0.0f, sb, so;
    int8_t *bq;
    int32_t *bias = NULL;
    ir_node *gq;
    ir_shape s;
    char name[512];

    if (ir_in(m, 0) != ir_out(dq, 0) || (!mm && ir_attr_int(m, "transA", 0)) || !B->data ||
        B->dtype != IR_DT_F32 || B->shape.rank != 2 || (C && (!C->data || C->dtype != IR_DT_F32)) ||
        (mm ? q->shape.rank < 2 : q->shape.rank != 2) ||
        q->shape.d[q->shape.rank - 1] != (tb ? B->shape.d[1] : B->shape.d[0]))
        return 0;
    if (!(alpha > 0.0f)) {
        diag_node(d, m, "--io=int: alpha %g has no integer form", (double)alpha);
        return -1;
    }
    K = tb ? B->shape.d[1] : B->shape.d[0];
    N = tb ? B->shape.d[0] : B->shape.d[1];
    nc = C ? ir_shape_numel(&C->shape) : 0;
    if (C && nc != N && nc != 1) {
        diag_node(d, m,
                  "--io=int: a bias C of %lld values (one per column, or one, has an "
                  "integer form)",
                  (long long)nc);
        return -1;
    }
    for (k = 0; k < K * N; k++)
        bmax = fmaxf(bmax, fabsf(((const float *)B->data)[k]));
    sb = bmax > 0.0f ? bmax / 127.0f : 1.0f;
    so = alpha * sa * sb;
    bq = arena_alloc(g->a, (size_t)(K * N));
    for (j = 0; j < N; j++)
        for (k = 0; k < K; k++) {
            float w = ((const float *)B->data)[tb ? j * K + k : k * N + j];
            bq[j * K + k] = (int8_t)fmax(-127.0, fmin(127.0, nearbyint((double)w / sb)));
        }
    if (C) {
        bias = arena_alloc(g->a, (size_t)N * sizeof *bias);
        for (j = 0; j < N; j++) {
            double b = nearbyint((double)beta * ((const float *)C->data)[nc == 1 ? 0 : j] / so);
            if (fabs(b) >= 2147483647.0) {
                diag_node(d, m, "--io=int: the bias does not fit int32 at the output's scale");
                return -1;
            }
            bias[j] = (int32_t)b;
        }
    }
    snprintf(name, sizeof name, "%s/int", m->name);
    gq = ir_node_new(g, IR_OP_GEMM_Q, name, "lstmc.GemmQ", 3, 1);
    ir_node_origin(gq, m);
    gq->inputs[0] = q;
    s.rank = 2;
    s.d[0] = N;
    s.d[1] = K;
    gq->inputs[1] = ir_const_wrap(g, "gemm_bq", IR_DT_I8, &s, bq);
    if (bias) {
        s.rank = 1;
        s.d[0] = N;
        gq->inputs[2] = ir_const_wrap(g, "gemm_bias", IR_DT_I32, &s, bias);
    }
    ir_attr_set_int(g, gq, "bits", q->dtype == IR_DT_I8 ? 8 : 16);
    ir_attr_set_int(g, gq, "a_zero_point", ir_attr_int(dq, "zero_point", 0));
    yq = ir_tensor_tmp(g, "gemm_q", IR_DT_I32, &Y->shape);
    ir_node_set_output(gq, 0, yq);
    snprintf(name, sizeof name, "%s/dq", m->name);
    quant_node(g, IR_OP_DEQUANTIZE, name, yq, Y, so, 0, 32, m);
    m->dead = 1;
    dq->dead = 1;
    return 1;
}

/* y = Dequantize(GemmQ(...)) read by an Add of a constant with one value per column (or one):
 * the constant joins GemmQ's int32 bias and the Dequantize writes the Add's output. */
static int
bias_q(ir_graph *g, ir_node *dq, ir_node *m, diag *d)
{
    ir_tensor *y = ir_out(dq, 0), *c = ir_in(m, 0) == y ? ir_in(m, 1) : ir_in(m, 0);
    ir_node *gq = ir_in(dq, 0)->producer;
    const float so = ir_attr_float(dq, "scale", 1.0f);
    int64_t N, nc, j;
    int32_t *bias;
    ir_shape s;

    if (!gq || gq->op != IR_OP_GEMM_Q || ir_attr_int(dq, "zero_point", 0) || !c || !c->data ||
        c->dtype != IR_DT_F32 || ir_out(m, 0)->shape.rank != y->shape.rank)
        return 0;
    N = ir_in(gq, 1)->shape.d[0];
    nc = ir_shape_numel(&c->shape);
    if ((nc != N && nc != 1) || (nc == N && c->shape.rank && c->shape.d[c->shape.rank - 1] != N))
        return 0;
    bias = arena_alloc(g->a, (size_t)N * sizeof *bias);
    for (j = 0; j < N; j++) {
        double b = nearbyint((double)((const float *)c->data)[nc == 1 ? 0 : j] / so);
        if (ir_in(gq, 2))
            b += ((const int32_t *)ir_in(gq, 2)->data)[j];
        if (fabs(b) >= 2147483647.0) {
            diag_node(d, m, "--io=int: the bias does not fit int32 at the output's scale");
            return -1;
        }
        bias[j] = (int32_t)b;
    }
    s.rank = 1;
    s.d[0] = N;
    gq->inputs[2] = ir_const_wrap(g, "gemm_bias", IR_DT_I32, &s, bias);
    ir_node_set_output(dq, 0, ir_out(m, 0));
    m->dead = 1;
    return 1;
}

/* Dequantize dq moved after its only reader, a move or a Gather, when that reads it as its
 * data: the move then runs on the integers (exact: dequantising commutes with moving). 1:
 * moved, 0: stays. */
static int
sink_move(ir_graph *g, ir_node *dq)
{
    ir_tensor *y = ir_out(dq, 0);
    ir_node *m = only_reader(g, y);
    ir_tensor *o;
    char name[512];

    if (!m || !(is_move(m->op) || m->op == IR_OP_GATHER) || ir_in(m, 0) != y)
        return 0;
    o = move_on_ints(g, m, ir_in(dq, 0));
    snprintf(name, sizeof name, "%s/dq", m->name);
    quant_node(g, IR_OP_DEQUANTIZE, name, o, ir_out(m, 0), ir_attr_float(dq, "scale", 1.0f),
               (int)ir_attr_int(dq, "zero_point", 0), (int)ir_attr_int(dq, "bits", 8), m);
    m->dead = 1;
    dq->dead = 1;
    return 1;
}

/* Every Dequantize sunk through the moves and Gathers after it (sink_move), so that the float
 * boundary converts what the model reads on (a classifier reading the last step of Y
 * dequantises H values, not T * H). */
static void
sink_moves(ir_graph *g)
{
    int i, moved;
    do {
        moved = 0;
        for (i = 0; i < g->n_nodes; i++)
            if (!g->nodes[i]->dead && g->nodes[i]->op == IR_OP_DEQUANTIZE)
                moved |= sink_move(g, g->nodes[i]);
    } while (moved);
}

/* One Dequantize moved one node towards the outputs. 1: moved, 0: stays, -1: refused. */
static int
sink(ir_graph *g, ir_node *dq, diag *d)
{
    ir_tensor *q = ir_in(dq, 0), *y = ir_out(dq, 0);
    ir_node *m;
    int i;

    if (y->is_output && !only_reader(g, y) && q->producer) {
        /* a graph output: it keeps its name and holds the integers */
        ir_node *pq = q->producer;
        for (i = 0; i < pq->n_outputs && pq->outputs[i] != q; i++)
            ;
        if (i == pq->n_outputs)
            return 0;
        dq->dead = 1;
        replace_uses(g, q, y);
        y->dtype = q->dtype;
        y->io_scale = ir_attr_float(dq, "scale", 1.0f);
        y->io_zero_point = (int32_t)ir_attr_int(dq, "zero_point", 0);
        ir_node_set_output(pq, i, y);
        return 1;
    }
    if (sink_move(g, dq))
        return 1;
    m = only_reader(g, y);
    if (!m)
        return 0;
    if (m->op == IR_OP_GEMM || m->op == IR_OP_MATMUL)
        return gemm_q(g, dq, m, d);
    if (m->op == IR_OP_ADD)
        return bias_q(g, dq, m, d);
    return 0;
}

static int
int_io(ir_graph *g, diag *d)
{
    int i, moved, bad = 0;

    ir_dce(g); /* the float paths the layers no longer read */
    for (i = 0; i < g->n_inputs; i++)
        if (g->inputs[i]->dtype == IR_DT_F32)
            int_input(g, g->inputs[i]);
    for (i = 0; i < g->n_nodes; i++) /* embeddings: their tables in integers */
        if (!g->nodes[i]->dead && g->nodes[i]->op == IR_OP_QUANTIZE)
            int_table(g, g->nodes[i]);
    do {
        moved = 0;
        for (i = 0; i < g->n_nodes; i++) {
            ir_node *n = g->nodes[i];
            int r;
            if (n->dead || n->op != IR_OP_DEQUANTIZE)
                continue;
            if ((r = sink(g, n, d)) < 0)
                return -1;
            moved |= r;
        }
    } while (moved);
    if (ir_toposort(g, d) < 0) /* ir_dce walks the sorted nodes backwards */
        return -1;
    ir_dce(g);
    for (i = 0; i < g->n_inputs; i++)
        if (g->inputs[i]->dtype == IR_DT_F32) {
            diag_error(d,
                       "--io=int: input '%s' is read in float (only an input the model "
                       "quantises before integer layers becomes integer)",
                       g->inputs[i]->name);
            bad = 1;
        }
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        if (!n->dead && ir_out(n, 0) && ir_out(n, 0)->dtype == IR_DT_F32) {
            diag_node(d, n,
                      "--io=int: computes in float (no integer kernel for it after the "
                      "integer layers)");
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

int
pass_qact(ir_graph *g, const pass_ctx *cx, diag *d)
{
    int i, nl = 0, bad = 0;
    ir_node **layers;

    if (!cx->qact.bits)
        return 0;
    /* the layers in graph order (sorted), so a layer's input layer is converted first */
    layers = arena_alloc(g->a, (size_t)(g->n_nodes + 1) * sizeof *layers);
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        if (!n->dead && (n->op == IR_OP_LSTM || n->op == IR_OP_GRU || n->op == IR_OP_RNN))
            layers[nl++] = n;
    }
    for (i = 0; i < nl; i++)
        if (convert(g, layers[i], cx, d) < 0)
            bad = 1;
    if (bad || ir_toposort(g, d) < 0)
        return -1;
    ir_dce(g); /* the float paths the layers no longer read */
    sink_moves(g);
    if (ir_toposort(g, d) < 0)
        return -1;
    if (cx->qact.int_io && (int_io(g, d) < 0 || ir_toposort(g, d) < 0))
        return -1;
    ir_dce(g); /* the Dequantize of a state nothing reads in float any more */
    return 0;
}
