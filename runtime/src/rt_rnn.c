/*
 * rt_rnn.c — the ONNX LSTM, GRU and RNN operators (opset 7..22), every attribute, as one
 * reference kernel: lstmc_rt_rnn. It is the exact layer the compiler's split/fold/DRS
 * passes must reproduce with their thresholds at 0, and what constant folding runs.
 *
 * Notation of the ONNX operator spec (Operators.md, LSTM/GRU/RNN); "." is the element-wise
 * product, f/g/h the activations, clip() bounds a pre-activation to [-clip, clip]:
 *
 *   LSTM (gates i o f c; W [4H,I], R [4H,H], B = [Wb, Rb] [8H], P = [Pi, Po, Pf] [3H])
 *     it = f(clip(Xt*Wi^T + Ht-1*Ri^T + Pi.Ct-1 + Wbi + Rbi))
 *     ft = f(clip(Xt*Wf^T + Ht-1*Rf^T + Pf.Ct-1 + Wbf + Rbf))   (input_forget: ft = 1 - it)
 *     ct = g(clip(Xt*Wc^T + Ht-1*Rc^T + Wbc + Rbc))
 *     Ct = ft.Ct-1 + it.ct
 *     ot = f(clip(Xt*Wo^T + Ht-1*Ro^T + Po.Ct + Wbo + Rbo))
 *     Ht = ot.h(Ct)
 *   GRU (gates z r h; W [3H,I], R [3H,H], B [6H])
 *     zt = f(clip(Xt*Wz^T + Ht-1*Rz^T + Wbz + Rbz))
 *     rt = f(clip(Xt*Wr^T + Ht-1*Rr^T + Wbr + Rbr))
 *     ht = g(clip(Xt*Wh^T + (rt.Ht-1)*Rh^T + Rbh + Wbh))          linear_before_reset = 0
 *     ht = g(clip(Xt*Wh^T + rt.(Ht-1*Rh^T + Rbh) + Wbh))          linear_before_reset = 1
 *     Ht = (1 - zt).ht + zt.Ht-1
 *   RNN (W [H,I], R [H,H], B [2H])
 *     Ht = f(clip(Xt*Wi^T + Ht-1*Ri^T + Wbi + Rbi))
 *
 * The terms are summed in ONNX Runtime's order (X*W^T, then + H*R^T, then + peephole, then
 * + (Wb + Rb)), which keeps us within float rounding of it. Each batch entry is run on its
 * own (its own sequence length), one direction at a time; the scratch holds one h, c and
 * gate vector, so it does not grow with T or N.
 */
#include "lstmc_rt_kernels.h"
#include "internal/cell.h"
#include "internal/testing.h"

#include <math.h>
#include <string.h>

/* --- activations ------------------------------------------------------------------- */

float
lstmc_rt_act_apply(const lstmc_rt_act *a, float x)
{
    float e;

    if (!a)
        return x;
    switch (a->kind) {
    case LSTMC_RT_ACT_SIGMOID:
        return 1.0f / (1.0f + expf(-x));
    case LSTMC_RT_ACT_TANH:
        return tanhf(x);
    case LSTMC_RT_ACT_RELU:
        return x > 0.0f ? x : 0.0f;
    case LSTMC_RT_ACT_HARD_SIGMOID:
        e = a->alpha * x + a->beta;
        return e < 0.0f ? 0.0f : (e > 1.0f ? 1.0f : e);
    case LSTMC_RT_ACT_AFFINE:
        return a->alpha * x + a->beta;
    case LSTMC_RT_ACT_LEAKY_RELU:
        return x < 0.0f ? a->alpha * x : x;
    case LSTMC_RT_ACT_THRESHOLDED_RELU:
        return x > a->alpha ? x : 0.0f;
    case LSTMC_RT_ACT_SCALED_TANH:
        return a->alpha * tanhf(a->beta * x);
    case LSTMC_RT_ACT_ELU:
        return x >= 0.0f ? x : a->alpha * (expf(x) - 1.0f);
    case LSTMC_RT_ACT_SOFTSIGN:
        return x / (1.0f + fabsf(x));
    case LSTMC_RT_ACT_SOFTPLUS:
        /* log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|). */
        return (x > 0.0f ? x : 0.0f) + log1pf(expf(-fabsf(x)));
    default:
        return x; /* unreachable: lstmc_rt_rnn validates kinds */
    }
}

/* --- parameters ---------------------------------------------------------------------- */

/* Gates per cell: LSTM 4, GRU 3, RNN 1; 0 for an unknown cell. */
static int64_t
cell_gates(int32_t cell)
{
    switch (cell) {
    case LSTMC_RT_CELL_LSTM:
        return 4;
    case LSTMC_RT_CELL_GRU:
        return 3;
    case LSTMC_RT_CELL_RNN:
        return 1;
    default:
        return 0;
    }
}

/* Activations per direction: LSTM f,g,h; GRU f,g; RNN f. */
static int32_t
cell_acts(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 3 : (cell == LSTMC_RT_CELL_GRU ? 2 : 1);
}

/* a * b for non-negative a, b; -1 on overflow. */
static int64_t
mul_nn(int64_t a, int64_t b)
{
    if (a < 0 || b < 0)
        return -1;
    if (a != 0 && b > INT64_MAX / a)
        return -1;
    return a * b;
}

/*
 * Scratch layout, in floats: h [H] | c [H] | gates [G*H] | tmp [H]. Returns -1 when p is
 * NULL, names an unknown cell or hidden is not positive, or the size overflows.
 */
int64_t
lstmc_rt_rnn_scratch(const lstmc_rt_rnn_params *p)
{
    int64_t G;

    if (!p)
        return -1;
    G = cell_gates(p->cell);
    if (G == 0 || p->hidden <= 0)
        return -1;
    return mul_nn(p->hidden, G + 3);
}

/* Everything lstmc_rt_rnn checks about p itself. */
static int
params_ok(const lstmc_rt_rnn_params *p)
{
    int64_t T = p->seq_len, N = p->batch, I = p->input_size, H = p->hidden, G, D;
    int32_t k;

    G = cell_gates(p->cell);
    if (G == 0 || T < 0 || N < 0 || I < 0 || H <= 0)
        return 0;
    if (p->n_dirs != 1 && p->n_dirs != 2)
        return 0;
    if (p->reverse != 0 && (p->reverse != 1 || p->n_dirs != 1))
        return 0;
    if (p->layout != 0 && p->layout != 1)
        return 0;
    if (p->has_clip && !(p->clip >= 0.0f)) /* also rejects NaN */
        return 0;
    D = p->n_dirs;
    /* Every tensor size must fit int64_t: X, Y, W, R. */
    if (mul_nn(mul_nn(T, N), I) < 0 || mul_nn(mul_nn(mul_nn(T, N), D), H) < 0 ||
        mul_nn(mul_nn(mul_nn(D, G), H), I) < 0 || mul_nn(mul_nn(mul_nn(D, G), H), H) < 0 ||
        mul_nn(H, G + 3) < 0)
        return 0;
    for (k = 0; k < cell_acts(p->cell) * p->n_dirs; k++)
        if (p->act[k].kind < LSTMC_RT_ACT_SIGMOID || p->act[k].kind > LSTMC_RT_ACT_SOFTPLUS)
            return 0;
    return 1;
}

/* --- one direction ------------------------------------------------------------------- */

/* Per-direction inputs and outputs, already offset to direction d. */
typedef struct dir_args {
    const lstmc_rt_rnn_params *p;
    int32_t d;               /* 0 forward (or the only direction), 1 reverse of bidirectional */
    int32_t rev;             /* 1: steps run s-1 .. 0 */
    const lstmc_rt_act *act; /* cell_acts(cell) entries for this direction */
    const float *X;          /* whole X */
    const float *W;          /* [G*H, I] */
    const float *R;          /* [G*H, H] */
    const float *Wb, *Rb;    /* [G*H] each, or NULL */
    const float *P;          /* [3H] (i o f) or NULL */
    const int32_t *seq_lens; /* [N] or NULL */
    const float *init_h;     /* whole initial_h or NULL */
    const float *init_c;     /* whole initial_c or NULL */
    float *Y, *Y_h, *Y_c;    /* whole outputs, each may be NULL */
    float *scratch;          /* lstmc_rt_rnn_scratch(p) floats */
    const float *Pp;         /* schedule A+: this direction's projection [rows, G*H], or NULL */
    const float *Rt;         /* schedule A+: R packed transposed [H, G*H], or R [G*H, H] */
    const float *rb_h;       /* schedule A+, GRU linear_before_reset: Rbh [H], or NULL */
    int32_t wfmt;            /* schedule A+: G2's storage format (rt_lowp.c), 0 = float Rt */
    const void *Rq;          /* wfmt != 0: the whole weight tensor (all directions) */
} dir_args;

static float
dot(const float *restrict a, const float *restrict b, int64_t n)
{
    float acc = 0.0f;
    int64_t k;

    for (k = 0; k < n; k++)
        acc += a[k] * b[k];
    return acc;
}

/* Offset (floats) of row (t, n) of X. */
static int64_t
x_at(const lstmc_rt_rnn_params *p, int64_t t, int64_t n)
{
    return lstmc_rt_row_at(p, t, n) * p->input_size;
}

/* One LSTM step: h, c updated in place; gates [4H] is scratch. */
static void
lstm_step(const dir_args *a, const float *restrict x, float *restrict h, float *restrict c,
          float *restrict gates)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t H = p->hidden, I = p->input_size;

    int64_t r;

    for (r = 0; r < 4 * H; r++)
        gates[r] = dot(x, a->W + r * I, I) + dot(h, a->R + r * H, H);
    lstmc_rt_lstm_update(p, a->act, a->P, gates, a->Wb, a->Rb, h, c);
}

/* One GRU step: h updated in place; gates [3H] and tmp [H] are scratch. */
static void
gru_step(const dir_args *a, const float *restrict x, float *restrict h, float *restrict gates,
         float *restrict tmp)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t H = p->hidden, I = p->input_size;
    float *z = gates, *rg = gates + H, *hh = gates + 2 * H;
    const float *Rh = a->R + 2 * H * H;
    int64_t r, j;

    for (r = 0; r < 3 * H; r++)
        gates[r] = dot(x, a->W + r * I, I);
    for (r = 0; r < 2 * H; r++)
        gates[r] += dot(h, a->R + r * H, H);
    for (j = 0; j < H; j++) {
        float pz = z[j], pr = rg[j];

        if (a->Wb) {
            pz += a->Wb[j] + a->Rb[j];
            pr += a->Wb[H + j] + a->Rb[H + j];
        }
        z[j] = lstmc_rt_act_apply(&a->act[0], lstmc_rt_clip_pre(p, pz));
        rg[j] = lstmc_rt_act_apply(&a->act[0], lstmc_rt_clip_pre(p, pr));
    }

    if (p->linear_before_reset) {
        /* ht pre-activation = Xt*Wh^T + rt.(Ht-1*Rh^T + Rbh) + Wbh */
        for (j = 0; j < H; j++) {
            float lin = dot(h, Rh + j * H, H) + (a->Rb ? a->Rb[2 * H + j] : 0.0f);

            hh[j] += rg[j] * lin;
            if (a->Wb)
                hh[j] += a->Wb[2 * H + j];
        }
    } else {
        /* ht pre-activation = Xt*Wh^T + (rt.Ht-1)*Rh^T + Rbh + Wbh */
        for (j = 0; j < H; j++)
            tmp[j] = rg[j] * h[j];
        for (j = 0; j < H; j++) {
            hh[j] += dot(tmp, Rh + j * H, H);
            if (a->Wb)
                hh[j] += a->Wb[2 * H + j] + a->Rb[2 * H + j];
        }
    }
    for (j = 0; j < H; j++) {
        float ht = lstmc_rt_act_apply(&a->act[1], lstmc_rt_clip_pre(p, hh[j]));

        h[j] = (1.0f - z[j]) * ht + z[j] * h[j];
    }
}

/* One RNN step: h updated in place; gates [H] is scratch. */
static void
rnn_step(const dir_args *a, const float *restrict x, float *restrict h, float *restrict gates)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t H = p->hidden, I = p->input_size;
    int64_t j;

    for (j = 0; j < H; j++) {
        gates[j] = dot(x, a->W + j * I, I) + dot(h, a->R + j * H, H);
        if (a->Wb)
            gates[j] += a->Wb[j] + a->Rb[j];
    }
    for (j = 0; j < H; j++)
        h[j] = lstmc_rt_act_apply(&a->act[0], lstmc_rt_clip_pre(p, gates[j]));
}

/* --- schedule A+: the time loop over a precomputed input projection ----------------- */

/* gates[0..n) += h * Rt[:, col0 .. col0+n) over the H rows of Rt [H, ld]: one pass over the
 * rows of U (G2), each read once and contiguously. */
static void
rec_accumulate(const dir_args *a, const float *restrict h, int64_t ld, int64_t col0, int64_t n,
               float *restrict gates)
{
    const int64_t H = a->p->hidden;
    int64_t k, g;

    if (a->wfmt) { /* reduced-precision G2: rt_lowp.c */
        lstmc_rt_lowp_accumulate(a->wfmt, a->Rq, a->p->n_dirs, a->d, h, H, ld, col0, n, gates);
        return;
    }
    if (a->p->packed == LSTMC_RT_PACK_ESELL) { /* sparse U (rt_spmv.c): LSTM and RNN only,
                                                  so col0 = 0 and n = G*H */
        lstmc_rt_esell_spmv(a->Rt, h, a->p->hsparse_th, gates);
        return;
    }
    if (a->p->hsparse_th > 0.0f) { /* E-LSTM hidden-state sparsity: rt_hsparse.c */
        lstmc_rt_hsparse_accumulate(h, a->Rt, H, ld, col0, n, a->p->packed, a->p->hsparse_th,
                                    gates);
        return;
    }
    if (!a->p->packed) { /* R [G*H, H]: a dot product per gate row */
        for (g = 0; g < n; g++)
            gates[g] += dot(h, a->Rt + (col0 + g) * H, H);
        return;
    }
    for (k = 0; k < H; k++) {
        const float hk = h[k];
        const float *restrict row = a->Rt + k * ld + col0;

        for (g = 0; g < n; g++)
            gates[g] += hk * row[g];
    }
}

static void
lstm_rec_step(const dir_args *a, const float *restrict xw, float *restrict h, float *restrict c,
              float *restrict gates)
{
    const int64_t H = a->p->hidden;

    memcpy(gates, xw, (size_t)(4 * H) * sizeof(float));
    rec_accumulate(a, h, 4 * H, 0, 4 * H, gates);
    lstmc_rt_lstm_update(a->p, a->act, a->P, gates, NULL, NULL, h, c);
}

static void
gru_rec_step(const dir_args *a, const float *restrict xw, float *restrict h, float *restrict gates,
             float *restrict tmp)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t H = p->hidden;
    float *z = gates, *rg = gates + H, *hh = gates + 2 * H;
    int64_t j;

    memcpy(gates, xw, (size_t)(3 * H) * sizeof(float));
    rec_accumulate(a, h, 3 * H, 0, 2 * H, gates);
    for (j = 0; j < H; j++) {
        z[j] = lstmc_rt_act_apply(&a->act[0], lstmc_rt_clip_pre(p, z[j]));
        rg[j] = lstmc_rt_act_apply(&a->act[0], lstmc_rt_clip_pre(p, rg[j]));
    }
    if (p->linear_before_reset) {
        /* ht pre-activation = (Xt*Wh^T + Wbh) + rt.(Ht-1*Rh^T + Rbh) */
        memset(tmp, 0, (size_t)H * sizeof(float));
        rec_accumulate(a, h, 3 * H, 2 * H, H, tmp);
        for (j = 0; j < H; j++)
            hh[j] += rg[j] * (tmp[j] + (a->rb_h ? a->rb_h[j] : 0.0f));
    } else {
        /* ht pre-activation = (Xt*Wh^T + Wbh + Rbh) + (rt.Ht-1)*Rh^T */
        for (j = 0; j < H; j++)
            tmp[j] = rg[j] * h[j];
        rec_accumulate(a, tmp, 3 * H, 2 * H, H, hh);
    }
    for (j = 0; j < H; j++) {
        float ht = lstmc_rt_act_apply(&a->act[1], lstmc_rt_clip_pre(p, hh[j]));

        h[j] = (1.0f - z[j]) * ht + z[j] * h[j];
    }
}

static void
rnn_rec_step(const dir_args *a, const float *restrict xw, float *restrict h, float *restrict gates)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t H = p->hidden;
    int64_t j;

    memcpy(gates, xw, (size_t)H * sizeof(float));
    rec_accumulate(a, h, H, 0, H, gates);
    for (j = 0; j < H; j++)
        h[j] = lstmc_rt_act_apply(&a->act[0], lstmc_rt_clip_pre(p, gates[j]));
}

static void
run_direction(const dir_args *a)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t T = p->seq_len, H = p->hidden;
    const size_t hbytes = (size_t)H * sizeof(float);
    float *h = a->scratch, *c = h + H, *gates = c + H;
    float *tmp = gates + cell_gates(p->cell) * H;
    int64_t n, step, t;

    for (n = 0; n < p->batch; n++) {
        const int64_t s = a->seq_lens ? a->seq_lens[n] : T;
        const int64_t st = lstmc_rt_state_at(p, a->d, n);

        if (a->init_h)
            memcpy(h, a->init_h + st, hbytes);
        else
            memset(h, 0, hbytes);
        if (a->init_c && p->cell == LSTMC_RT_CELL_LSTM)
            memcpy(c, a->init_c + st, hbytes);
        else
            memset(c, 0, hbytes);

        /* A reverse direction reads the sequence from its own last valid step s-1 down to 0,
         * so Y[t] of either direction is the state after consuming X[t]. */
        for (step = 0; step < s; step++) {
            const float *x;

            t = a->rev ? s - 1 - step : step;
            if (a->Pp) { /* schedule A+: the input projection row, biases included */
                x = a->Pp + lstmc_rt_row_at(p, t, n) * cell_gates(p->cell) * p->hidden;
                if (p->cell == LSTMC_RT_CELL_LSTM)
                    lstm_rec_step(a, x, h, c, gates);
                else if (p->cell == LSTMC_RT_CELL_GRU)
                    gru_rec_step(a, x, h, gates, tmp);
                else
                    rnn_rec_step(a, x, h, gates);
            } else {
                x = a->X + x_at(p, t, n);
                if (p->cell == LSTMC_RT_CELL_LSTM)
                    lstm_step(a, x, h, c, gates);
                else if (p->cell == LSTMC_RT_CELL_GRU)
                    gru_step(a, x, h, gates, tmp);
                else
                    rnn_step(a, x, h, gates);
            }
            if (a->Y)
                memcpy(a->Y + lstmc_rt_y_at(p, t, a->d, n), h, hbytes);
        }
        if (a->Y)
            for (t = s; t < T; t++)
                memset(a->Y + lstmc_rt_y_at(p, t, a->d, n), 0, hbytes);

        /*
         * Y_h/Y_c hold the state at the sequence's own end. For s == 0 they are zero, even
         * with initial_h/initial_c given: that is what ONNX Runtime writes for LSTM, GRU and
         * RNN in every direction (checked by the fixture corpus, *_seqlens_zero cases).
         */
        if (s == 0) {
            memset(h, 0, hbytes);
            memset(c, 0, hbytes);
        }
        if (a->Y_h)
            memcpy(a->Y_h + st, h, hbytes);
        if (a->Y_c && p->cell == LSTMC_RT_CELL_LSTM)
            memcpy(a->Y_c + st, c, hbytes);
    }
}

/* --- entry point --------------------------------------------------------------------- */

/*
 * Contract in lstmc_rt_kernels.h. Checks p (LSTMC_RT_ERR_BAD_PARAMS), the required pointers X, W, R
 * and scratch (LSTMC_RT_ERR_NULL) and every sequence_lens entry (LSTMC_RT_ERR_SEQ_LEN)
 * before writing any output. init_c, P and Y_c are ignored for GRU and RNN. For LSTM, B and
 * P are per direction [D,8H] and [D,3H]; Wb = B[d][0..4H), Rb = B[d][4H..8H).
 */
lstmc_rt_status
lstmc_rt_rnn(const lstmc_rt_rnn_params *p, const float *X, const float *W, const float *R,
             const float *B, const int32_t *seq_lens, const float *init_h, const float *init_c,
             const float *P, float *Y, float *Y_h, float *Y_c, float *scratch)
{
    int64_t G, H, I, n;
    int32_t d;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (!params_ok(p))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->batch == 0)
        return LSTMC_RT_OK;
    if (!X || !W || !R || !scratch)
        return LSTMC_RT_ERR_NULL;
    if (seq_lens)
        for (n = 0; n < p->batch; n++)
            if (seq_lens[n] < 0 || seq_lens[n] > p->seq_len)
                return LSTMC_RT_ERR_SEQ_LEN;

    G = cell_gates(p->cell);
    H = p->hidden;
    I = p->input_size;
    for (d = 0; d < p->n_dirs; d++) {
        dir_args a;

        a.p = p;
        a.d = d;
        a.rev = p->n_dirs == 2 ? d : p->reverse;
        a.act = &p->act[d * cell_acts(p->cell)];
        a.X = X;
        a.W = W + d * G * H * I;
        a.R = R + d * G * H * H;
        a.Wb = B ? B + d * 2 * G * H : NULL;
        a.Rb = B ? B + d * 2 * G * H + G * H : NULL;
        a.P = P && p->cell == LSTMC_RT_CELL_LSTM ? P + d * 3 * H : NULL;
        a.seq_lens = seq_lens;
        a.init_h = init_h;
        a.init_c = init_c;
        a.Y = Y;
        a.Y_h = Y_h;
        a.Y_c = Y_c;
        a.scratch = scratch;
        a.Pp = NULL;
        a.Rt = NULL;
        a.rb_h = NULL;
        a.wfmt = 0;
        a.Rq = NULL;
        run_direction(&a);
    }
    return LSTMC_RT_OK;
}

/* Summed bias of gate row g for direction d from ONNX's B [D, 2*G*H]: Wb + Rb, except the
 * GRU h gate under linear_before_reset, whose Rbh stays in the loop. */
static float
proj_bias(const lstmc_rt_rnn_proj_params *p, const float *B, int32_t d, int64_t g)
{
    const int64_t GH = cell_gates(p->cell) * p->hidden;
    const float *Bd = B + d * 2 * GH;

    if (p->cell == LSTMC_RT_CELL_GRU && p->linear_before_reset && g >= 2 * p->hidden)
        return Bd[g];
    return Bd[g] + Bd[GH + g];
}

/* lstmc_rt_rnn_proj with W in eSELL sections (rt_spmv.c), b the summed bias [D, G*H]. */
static lstmc_rt_status
proj_esell(const lstmc_rt_rnn_proj_params *p, const float *X, const float *w, const float *b,
           float *P)
{
    const int64_t GH = cell_gates(p->cell) * p->hidden, I = p->input_size;
    int64_t r, g, len;
    int32_t d;

    for (d = 0; d < p->n_dirs; d++, w += len) {
        float *Pd = P + d * p->rows * GH;

        len = lstmc_rt_esell_len(w, GH, I);
        if (len < 0)
            return LSTMC_RT_ERR_BAD_PARAMS;
        for (r = 0; r < p->rows; r++)
            for (g = 0; g < GH; g++)
                Pd[r * GH + g] = b ? b[d * GH + g] : 0.0f;
        lstmc_rt_esell_spmm(w, X, I, p->rows, Pd, GH);
    }
    return LSTMC_RT_OK;
}

/* Contract in lstmc_rt_kernels.h: X' = G1 * I' for every direction (Arm Algorithm 2, line 5). */
lstmc_rt_status
lstmc_rt_rnn_proj(const lstmc_rt_rnn_proj_params *p, const float *X, const float *w,
                  const float *b, float *P)
{
    int64_t r, i, g, GH, I;
    int32_t d;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    GH = cell_gates(p->cell) * p->hidden;
    I = p->input_size;
    if (p->rows < 0 || I < 1 || p->hidden < 1 || GH < 1 || p->n_dirs < 1 || p->n_dirs > 2)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->rows == 0)
        return LSTMC_RT_OK;
    if (!X || !w || !P)
        return LSTMC_RT_ERR_NULL;
    if (p->packed == LSTMC_RT_PACK_ESELL)
        return proj_esell(p, X, w, b, P);
    for (d = 0; d < p->n_dirs; d++) {
        const float *wd = w + d * I * GH;
        float *Pd = P + d * p->rows * GH;
        int64_t g0;

        if (!p->packed) { /* W [G*H, I]: a dot product per gate row */
            for (r = 0; r < p->rows; r++)
                for (g = 0; g < GH; g++)
                    Pd[r * GH + g] = (b ? proj_bias(p, b, d, g) : 0.0f) +
                                     dot(X + r * I, wd + g * I, I);
            continue;
        }
        /* Blocked: a panel of LSTMC_RT_PROJ_PANEL columns of W^T is applied to every row
         * before the next, so G1 is read once whatever the cache; each P element still sums
         * bias + X[r][0]*W[0] + X[r][1]*W[1] + ... in that order. */
        for (g0 = 0; g0 < GH; g0 += LSTMC_RT_PROJ_PANEL) {
            const int64_t g1 = g0 + LSTMC_RT_PROJ_PANEL < GH ? g0 + LSTMC_RT_PROJ_PANEL : GH;

            for (r = 0; r < p->rows; r++)
                for (g = g0; g < g1; g++)
                    Pd[r * GH + g] = b ? b[d * GH + g] : 0.0f;
            for (i = 0; i < I; i++) {
                const float *restrict wi = wd + i * GH;

                for (r = 0; r < p->rows; r++) {
                    const float xi = X[r * I + i];
                    float *restrict out = Pd + r * GH;

                    for (g = g0; g < g1; g++)
                        out[g] += xi * wi[g];
                }
            }
        }
    }
    return LSTMC_RT_OK;
}

/* Contract in lstmc_rt_kernels.h: the time loop reading only G2 (Arm Algorithm 2, lines 6-17). */
lstmc_rt_status
lstmc_rt_rnn_rec(const lstmc_rt_rnn_params *p, const float *P, const float *r, const float *rb,
                 const int32_t *seq_lens, const float *init_h, const float *init_c,
                 const float *Peep, float *Y, float *Y_h, float *Y_c, float *scratch)
{
    return lstmc_rt_rnn_rec_fmt(LSTMC_RT_WFMT_FP32, p, P, r, rb, seq_lens, init_h, init_c,
                                Peep, Y, Y_h, Y_c, scratch);
}

/* Contract in lstmc_rt_kernels.h: lstmc_rt_rnn_rec with G2 stored as wfmt (packed only). */
lstmc_rt_status
lstmc_rt_rnn_rec_fmt(int32_t wfmt, const lstmc_rt_rnn_params *p, const float *P, const void *r,
                     const float *rb, const int32_t *seq_lens, const float *init_h,
                     const float *init_c, const float *Peep, float *Y, float *Y_h, float *Y_c,
                     float *scratch)
{
    int64_t G, H, rows, n;
    int32_t d;

    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (!params_ok(p) || wfmt < LSTMC_RT_WFMT_FP32 || wfmt >= LSTMC_RT_WFMT_COUNT ||
        (wfmt && (p->packed != 1 || p->hsparse_th > 0.0f)))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->batch == 0)
        return LSTMC_RT_OK;
    if (!P || !r || !scratch)
        return LSTMC_RT_ERR_NULL;
    if (seq_lens)
        for (n = 0; n < p->batch; n++)
            if (seq_lens[n] < 0 || seq_lens[n] > p->seq_len)
                return LSTMC_RT_ERR_SEQ_LEN;

    G = cell_gates(p->cell);
    H = p->hidden;
    rows = p->seq_len * p->batch;
    if (p->packed == LSTMC_RT_PACK_ESELL) { /* LSTM and RNN: U h is one product */
        const float *e = r;
        for (d = 0; d < p->n_dirs; d++) {
            const int64_t len = lstmc_rt_esell_len(e, G * H, H);
            if (len < 0 || p->cell == LSTMC_RT_CELL_GRU)
                return LSTMC_RT_ERR_BAD_PARAMS;
            e += len;
        }
    }
    for (d = 0; d < p->n_dirs; d++) {
        dir_args a;

        memset(&a, 0, sizeof a);
        a.p = p;
        a.d = d;
        a.rev = p->n_dirs == 2 ? d : p->reverse;
        a.act = &p->act[d * cell_acts(p->cell)];
        a.P = Peep && p->cell == LSTMC_RT_CELL_LSTM ? Peep + d * 3 * H : NULL;
        a.seq_lens = seq_lens;
        a.init_h = init_h;
        a.init_c = init_c;
        a.Y = Y;
        a.Y_h = Y_h;
        a.Y_c = Y_c;
        a.scratch = scratch;
        a.Pp = P + d * rows * G * H;
        a.Rt = wfmt ? NULL : (const float *)r + d * H * G * H;
        a.wfmt = wfmt;
        a.Rq = wfmt ? r : NULL;
        if (p->packed == LSTMC_RT_PACK_ESELL) { /* one eSELL section per direction */
            a.Rt = r;
            r = (const float *)r + lstmc_rt_esell_len(r, G * H, H);
        }
        a.rb_h = NULL;
        if (rb && p->cell == LSTMC_RT_CELL_GRU && p->linear_before_reset)
            a.rb_h = p->packed ? rb + d * H : rb + d * 2 * G * H + G * H + 2 * H;
        run_direction(&a);
    }
    return LSTMC_RT_OK;
}
