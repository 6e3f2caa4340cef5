/*
 * rt_rnnq.c — the full-integer recurrent layer (issue 22): LSTM, GRU and RNN with int8 or
 * int16 activations, int8 weights, int16 cell state, table activations. The portable,
 * bit-exact reference of the recipe in docs/PRECISION.md ("Full-integer recurrent layers");
 * every other kernel of the recipe must produce the same integers. No floating point on the
 * layer's path (lstmc_rt_quantize / _dequantize, the float boundary, are at the end).
 */
#include "lstmc_rt_kernels.h"
#include "internal/rnnq_tables.h"

/* The recipe's shifts of negative values are floors: an arithmetic right shift. */
#if (-1 >> 1) != -1
#error "rt_rnnq.c needs an arithmetic right shift of negative integers"
#endif

static inline int64_t
rshr(int64_t x, int32_t n)
{
    return n ? (x + ((int64_t)1 << (n - 1))) >> n : x;
}

static inline int64_t
requant(int64_t x, int32_t m, int32_t n)
{
    return rshr(x * m, n);
}

static inline int64_t
sat(int64_t x, int64_t lo, int64_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

static inline int32_t
table_act(const int16_t *T, int32_t v)
{
    const int32_t u = v + 32768, i = u >> 7, f = u & 127;

    return T[i] + (int32_t)rshr((int64_t)(T[i + 1] - T[i]) * f, 7);
}

int32_t
lstmc_rt_q_sigmoid(int32_t v)
{
    return table_act(lstmc_rt_q_sigmoid_table, (int32_t)sat(v, -32768, 32767));
}

int32_t
lstmc_rt_q_tanh(int32_t v)
{
    return table_act(lstmc_rt_q_tanh_table, (int32_t)sat(v, -32768, 32767));
}

const int16_t *
lstmc_rt_q_table(int32_t act)
{
    return act == LSTMC_RT_ACT_TANH ? lstmc_rt_q_tanh_table : lstmc_rt_q_sigmoid_table;
}

/* The Q3.12 gate input of the recipe's pre(): the clip, then int16. */
static inline int32_t
pre(const lstmc_rt_rnnq_params *p, int64_t z)
{
    if (p->has_clip)
        z = sat(z, -(int64_t)p->clip_q, p->clip_q);
    return (int32_t)sat(z, -32768, 32767);
}

static inline int32_t
act(int32_t kind, int32_t v)
{
    return kind == LSTMC_RT_ACT_TANH ? table_act(lstmc_rt_q_tanh_table, v)
                                     : table_act(lstmc_rt_q_sigmoid_table, v);
}

/* The layer's element type, read and written by index. */
static inline int32_t
ld(const void *a, int32_t bits, int64_t i)
{
    return bits == 8 ? ((const int8_t *)a)[i] : ((const int16_t *)a)[i];
}

static inline void
st(void *a, int32_t bits, int64_t i, int32_t v)
{
    if (bits == 8)
        ((int8_t *)a)[i] = (int8_t)v;
    else
        ((int16_t *)a)[i] = (int16_t)v;
}

/* sum_k w[k] * x[k] for x of the layer's type (int32 in the int8 mode, int64 in int16). */
static int64_t
dot_x(const int8_t *w, const void *x, int32_t bits, int64_t K)
{
    int64_t k, s = 0;

    if (bits == 8) {
        const int8_t *x8 = x;
        int32_t s32 = 0;
        for (k = 0; k < K; k++)
            s32 += (int32_t)w[k] * x8[k];
        return s32;
    }
    for (k = 0; k < K; k++)
        s += (int32_t)w[k] * ((const int16_t *)x)[k];
    return s;
}

static int64_t
dot_h(const int8_t *w, const int32_t *h, int64_t K)
{
    int64_t k, s = 0;

    for (k = 0; k < K; k++)
        s += (int64_t)w[k] * h[k];
    return s;
}

int64_t
lstmc_rt_rnnq_scratch(const lstmc_rt_rnnq_params *p)
{
    return 5 * p->hidden + 16;
}

/* The recipe's z of row r: the W and U products in Q.12 plus both biases. */
static inline int64_t
gate_z(const int32_t *q, int64_t accW, int64_t accU)
{
    return requant(accW + q[LSTMC_RT_RNNQ_ZC], q[LSTMC_RT_RNNQ_MW], q[LSTMC_RT_RNNQ_NW]) +
           requant(accU, q[LSTMC_RT_RNNQ_MU], q[LSTMC_RT_RNNQ_NU]) + q[LSTMC_RT_RNNQ_BW] +
           q[LSTMC_RT_RNNQ_BR];
}

/* The W product of row r in Q.12, with bW (GRU's n gate under linear_before_reset). */
static inline int64_t
gate_w(const int32_t *q, int64_t accW)
{
    return requant(accW + q[LSTMC_RT_RNNQ_ZC], q[LSTMC_RT_RNNQ_MW], q[LSTMC_RT_RNNQ_NW]) +
           q[LSTMC_RT_RNNQ_BW];
}

typedef struct step_args {
    const lstmc_rt_rnnq_params *p;
    const int8_t *W, *U; /* this direction's */
    const int32_t *Q;
    const int16_t *Peep;
    const int32_t *act; /* this direction's */
    int32_t hmax;
} step_args;

/* One LSTM step: h, c [H] in place (hn the new h). */
static void
lstm_step(const step_args *a, const void *x, const int32_t *h, int32_t *hn, int32_t *c)
{
    const lstmc_rt_rnnq_params *p = a->p;
    const int64_t H = p->hidden, I = p->input_size;
    int64_t j;

    for (j = 0; j < H; j++) {
        const int64_t ri = j, ro = H + j, rf = 2 * H + j, rc = 3 * H + j;
        int64_t zi = gate_z(a->Q + ri * LSTMC_RT_RNNQ_ROW, dot_x(a->W + ri * I, x, p->bits, I),
                            dot_h(a->U + ri * H, h, H));
        int64_t zo = gate_z(a->Q + ro * LSTMC_RT_RNNQ_ROW, dot_x(a->W + ro * I, x, p->bits, I),
                            dot_h(a->U + ro * H, h, H));
        int64_t zf = gate_z(a->Q + rf * LSTMC_RT_RNNQ_ROW, dot_x(a->W + rf * I, x, p->bits, I),
                            dot_h(a->U + rf * H, h, H));
        int64_t zc = gate_z(a->Q + rc * LSTMC_RT_RNNQ_ROW, dot_x(a->W + rc * I, x, p->bits, I),
                            dot_h(a->U + rc * H, h, H));
        int32_t i, f, g, o, tc;
        int64_t cn;

        if (a->Peep) {
            zi += requant((int64_t)a->Peep[j] * c[j], p->peep_mult, p->peep_shift);
            zf += requant((int64_t)a->Peep[2 * H + j] * c[j], p->peep_mult, p->peep_shift);
        }
        i = act(a->act[0], pre(p, zi));
        f = p->input_forget ? 32768 - i : act(a->act[0], pre(p, zf));
        g = act(a->act[1], pre(p, zc));
        cn = sat(rshr((int64_t)f * c[j], 15) + rshr((int64_t)i * g, 30 - p->cell_exp), -32768,
                 32767);
        if (a->Peep)
            zo += requant((int64_t)a->Peep[H + j] * cn, p->peep_mult, p->peep_shift);
        o = act(a->act[0], pre(p, zo));
        tc = (int32_t)sat(p->cell_exp >= 12 ? rshr(cn, p->cell_exp - 12)
                                            : cn * ((int64_t)1 << (12 - p->cell_exp)),
                          -32768, 32767);
        c[j] = (int32_t)cn;
        hn[j] = (int32_t)sat(requant((int64_t)o * act(a->act[2], tc), p->h_mult, p->h_shift),
                             -a->hmax, a->hmax);
    }
}

/* One GRU step; rg, rh [H] scratch. */
static void
gru_step(const step_args *a, const void *x, const int32_t *h, int32_t *hn, int32_t *rg, int32_t *rh)
{
    const lstmc_rt_rnnq_params *p = a->p;
    const int64_t H = p->hidden, I = p->input_size;
    int64_t j;

    for (j = 0; j < H; j++) {
        const int64_t rr = H + j;
        rg[j] = act(a->act[0], pre(p, gate_z(a->Q + rr * LSTMC_RT_RNNQ_ROW,
                                             dot_x(a->W + rr * I, x, p->bits, I),
                                             dot_h(a->U + rr * H, h, H))));
        rh[j] = (int32_t)rshr((int64_t)rg[j] * h[j], 15);
    }
    for (j = 0; j < H; j++) {
        const int64_t rz = j, rn = 2 * H + j;
        const int32_t *qn = a->Q + rn * LSTMC_RT_RNNQ_ROW;
        const int32_t zg = act(a->act[0], pre(p, gate_z(a->Q + rz * LSTMC_RT_RNNQ_ROW,
                                                        dot_x(a->W + rz * I, x, p->bits, I),
                                                        dot_h(a->U + rz * H, h, H))));
        const int64_t accWn = dot_x(a->W + rn * I, x, p->bits, I);
        int64_t zn, N15, H15;
        int32_t ng;

        if (p->linear_before_reset) {
            const int64_t un =
                requant(dot_h(a->U + rn * H, h, H), qn[LSTMC_RT_RNNQ_MU], qn[LSTMC_RT_RNNQ_NU]) +
                qn[LSTMC_RT_RNNQ_BR];
            zn = gate_w(qn, accWn) + rshr((int64_t)rg[j] * un, 15);
        } else {
            zn = gate_z(qn, accWn, dot_h(a->U + rn * H, rh, H));
        }
        ng = act(a->act[1], pre(p, zn));
        N15 = requant(ng, p->h_mult, p->h_shift);
        H15 = (int64_t)h[j] * 32768;
        hn[j] =
            (int32_t)sat(rshr(N15 + rshr((int64_t)zg * (H15 - N15), 15), 15), -a->hmax, a->hmax);
    }
}

/* One RNN step. */
static void
rnn_step(const step_args *a, const void *x, const int32_t *h, int32_t *hn)
{
    const lstmc_rt_rnnq_params *p = a->p;
    const int64_t H = p->hidden, I = p->input_size;
    int64_t j;

    for (j = 0; j < H; j++) {
        int64_t z = gate_z(a->Q + j * LSTMC_RT_RNNQ_ROW, dot_x(a->W + j * I, x, p->bits, I),
                           dot_h(a->U + j * H, h, H));
        int64_t y;

        if (a->act[0] == LSTMC_RT_ACT_RELU) {
            if (p->has_clip)
                z = sat(z, -(int64_t)p->clip_q, p->clip_q);
            y = z > 0 ? z : 0;
        } else {
            y = act(a->act[0], pre(p, z));
        }
        hn[j] = (int32_t)sat(requant(y, p->h_mult, p->h_shift), -a->hmax, a->hmax);
    }
}

static int
params_ok(const lstmc_rt_rnnq_params *p)
{
    const int32_t acts = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    int32_t k;

    if (p->cell < LSTMC_RT_CELL_LSTM || p->cell > LSTMC_RT_CELL_RNN)
        return 0;
    if ((p->bits != 8 && p->bits != 16) || p->seq_len < 0 || p->batch < 0 || p->input_size < 1 ||
        p->hidden < 1 || p->hidden > INT32_MAX / 64)
        return 0;
    if ((p->n_dirs != 1 && p->n_dirs != 2) || (p->reverse != 0 && p->reverse != 1) ||
        (p->reverse && p->n_dirs != 1) || (p->layout != 0 && p->layout != 1))
        return 0;
    if (p->has_clip && p->clip_q < 0)
        return 0;
    if (p->cell_exp < 0 || p->cell_exp > 15 || p->h_mult < 0 || p->h_shift < 0 || p->h_shift > 62 ||
        p->peep_mult < 0 || p->peep_shift < 0 || p->peep_shift > 62)
        return 0;
    for (k = 0; k < acts * p->n_dirs; k++) {
        const int32_t a = p->act[k];
        if (a != LSTMC_RT_ACT_SIGMOID && a != LSTMC_RT_ACT_TANH &&
            !(a == LSTMC_RT_ACT_RELU && p->cell == LSTMC_RT_CELL_RNN))
            return 0;
    }
    return 1;
}

static int
rows_ok(const int32_t *Q, int64_t rows)
{
    int64_t r;

    for (r = 0; r < rows; r++) {
        const int32_t *q = Q + r * LSTMC_RT_RNNQ_ROW;
        if (q[LSTMC_RT_RNNQ_MW] < 0 || q[LSTMC_RT_RNNQ_NW] < 0 || q[LSTMC_RT_RNNQ_NW] > 62 ||
            q[LSTMC_RT_RNNQ_MU] < 0 || q[LSTMC_RT_RNNQ_NU] < 0 || q[LSTMC_RT_RNNQ_NU] > 62)
            return 0;
    }
    return 1;
}

lstmc_rt_status
lstmc_rt_rnn_q(const lstmc_rt_rnnq_params *p, const void *X, const int8_t *W, const int8_t *U,
               const int32_t *Q, const int32_t *seq_lens, const void *init_h, const int16_t *init_c,
               const int16_t *Peep, void *Y, void *Y_h, int16_t *Y_c, int32_t *scratch)
{
    const int64_t T = p ? p->seq_len : 0, N = p ? p->batch : 0, H = p ? p->hidden : 0;
    const int64_t I = p ? p->input_size : 0;
    int32_t d, G, acts;
    int64_t n, j;
    lstmc_rt_rnn_params lp; /* the layout formulas of lstmc_rt_rnn_params */

    if (!p || !X || !W || !U || !Q || !scratch)
        return LSTMC_RT_ERR_NULL;
    if (!params_ok(p))
        return LSTMC_RT_ERR_BAD_PARAMS;
    G = p->cell == LSTMC_RT_CELL_LSTM ? 4 : p->cell == LSTMC_RT_CELL_GRU ? 3 : 1;
    acts = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    if (!rows_ok(Q, p->n_dirs * G * H))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (seq_lens)
        for (n = 0; n < N; n++)
            if (seq_lens[n] < 0 || seq_lens[n] > T)
                return LSTMC_RT_ERR_SEQ_LEN;
    lp.seq_len = T;
    lp.batch = N;
    lp.hidden = H;
    lp.n_dirs = p->n_dirs;
    lp.layout = p->layout;
    for (d = 0; d < p->n_dirs; d++) {
        const int32_t rev = p->n_dirs == 2 ? d : p->reverse;
        step_args a;

        a.p = p;
        a.W = W + (int64_t)d * G * H * I;
        a.U = U + (int64_t)d * G * H * H;
        a.Q = Q + (int64_t)d * G * H * LSTMC_RT_RNNQ_ROW;
        a.Peep = Peep ? Peep + (int64_t)d * 3 * H : NULL;
        a.act = p->act + d * acts;
        a.hmax = p->bits == 8 ? 127 : 32767;
        for (n = 0; n < N; n++) {
            const int64_t s = seq_lens ? seq_lens[n] : T, st_at = lstmc_rt_state_at(&lp, d, n);
            int32_t *h = scratch, *hn = scratch + H, *c = scratch + 2 * H;
            int32_t *rg = scratch + 3 * H, *rh = scratch + 4 * H;
            int64_t step, t;

            for (j = 0; j < H; j++) {
                h[j] = init_h ? ld(init_h, p->bits, st_at + j) : 0;
                c[j] = init_c ? init_c[st_at + j] : 0;
            }
            for (step = 0; step < s; step++) {
                const void *x;
                int32_t *tmp;

                t = rev ? s - 1 - step : step;
                x = (const char *)X + lstmc_rt_row_at(&lp, t, n) * I * (p->bits / 8);
                if (p->cell == LSTMC_RT_CELL_LSTM)
                    lstm_step(&a, x, h, hn, c);
                else if (p->cell == LSTMC_RT_CELL_GRU)
                    gru_step(&a, x, h, hn, rg, rh);
                else
                    rnn_step(&a, x, h, hn);
                tmp = h;
                h = hn;
                hn = tmp;
                if (Y)
                    for (j = 0; j < H; j++)
                        st(Y, p->bits, lstmc_rt_y_at(&lp, t, d, n) + j, h[j]);
            }
            if (Y)
                for (t = s; t < T; t++)
                    for (j = 0; j < H; j++)
                        st(Y, p->bits, lstmc_rt_y_at(&lp, t, d, n) + j, 0);
            for (j = 0; j < H; j++) {
                if (Y_h)
                    st(Y_h, p->bits, st_at + j, h[j]);
                if (Y_c)
                    Y_c[st_at + j] = (int16_t)c[j];
            }
        }
    }
    return LSTMC_RT_OK;
}

/* --- the float boundary: QuantizeLinear and DequantizeLinear -------------------------- */

/* round half to even of a float of magnitude below 2^31 (larger ones saturate anyway) */
static float
round_even(float v)
{
    float r, fl;
    if (!(v > -2147483648.0f && v < 2147483648.0f))
        return v;
    fl = (float)(int64_t)v;
    if (fl > v)
        fl -= 1.0f;
    r = v - fl;
    if (r > 0.5f || (r == 0.5f && ((int64_t)fl & 1)))
        return fl + 1.0f;
    return fl;
}

lstmc_rt_status
lstmc_rt_quantize(const lstmc_rt_quant_params *p, const float *x, void *q)
{
    const int32_t lo = p && p->bits == 8 ? -128 : -32768, hi = p && p->bits == 8 ? 127 : 32767;
    int64_t i;

    if (!p || (!x && p->n) || (!q && p->n))
        return LSTMC_RT_ERR_NULL;
    if ((p->bits != 8 && p->bits != 16) || !(p->scale > 0.0f) || p->n < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    for (i = 0; i < p->n; i++) {
        float v = round_even(x[i] / p->scale) + (float)p->zero_point;
        int32_t r;
        if (v != v) /* NaN: ONNX leaves it undefined; zero point */
            r = p->zero_point;
        else
            r = v <= (float)lo ? lo : v >= (float)hi ? hi : (int32_t)v;
        st(q, p->bits, i, r);
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_dequantize(const lstmc_rt_quant_params *p, const void *q, float *x)
{
    int64_t i;

    if (!p || (!x && p->n) || (!q && p->n))
        return LSTMC_RT_ERR_NULL;
    if ((p->bits != 8 && p->bits != 16) || p->n < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    for (i = 0; i < p->n; i++)
        x[i] = (float)(ld(q, p->bits, i) - p->zero_point) * p->scale;
    return LSTMC_RT_OK;
}
