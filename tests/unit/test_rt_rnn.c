/*
 * test_rt_rnn.c — unit tests of runtime/src/rt_rnn.c: the ONNX LSTM/GRU/RNN kernel.
 *
 * Two kinds of truth, neither taken from the code under test:
 *   - hand-worked single steps (H = I = 1), the arithmetic in the comments;
 *   - identities between runs: reverse == forward on the reversed sequence, bidirectional ==
 *     forward and reverse runs side by side, layout 1 == transposed layout 0, a shorter
 *     sequence_lens entry == a run on the truncated sequence with zeros after it, and
 *     leaving outputs NULL changes nothing else.
 */
#include "lstmc_rt_kernels.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* sizes used by the identity tests */
#define T_   5
#define N_   3
#define I_   4
#define H_   3
#define MAXG 4

static float scratch_buf[1024];

static void
assert_close(const float *got, const float *want, int64_t n, float tol)
{
    int64_t i;

    for (i = 0; i < n; i++)
        cr_assert(fabsf(got[i] - want[i]) <= tol + tol * fabsf(want[i]),
                  "element %lld: got %.9g, want %.9g", (long long)i, (double)got[i],
                  (double)want[i]);
}

static void
assert_zero(const float *got, int64_t n)
{
    int64_t i;

    for (i = 0; i < n; i++)
        cr_assert(got[i] == 0.0f, "element %lld: got %.9g, want 0", (long long)i, (double)got[i]);
}

/* Deterministic values in [-scale, scale). */
static void
fill(float *x, int64_t n, uint32_t seed, float scale)
{
    int64_t i;

    for (i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = ((float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
    }
}

static int64_t
gates(int cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 4 : (cell == LSTMC_RT_CELL_GRU ? 3 : 1);
}

static int32_t
acts(int cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 3 : (cell == LSTMC_RT_CELL_GRU ? 2 : 1);
}

static lstmc_rt_act
act(int32_t kind, float alpha, float beta)
{
    lstmc_rt_act a;

    a.kind = kind;
    a.alpha = alpha;
    a.beta = beta;
    return a;
}

/* Params with the spec's default activations for both directions. */
static lstmc_rt_rnn_params
params(int cell, int64_t T, int64_t N, int64_t I, int64_t H, int32_t D)
{
    lstmc_rt_rnn_params p;
    int32_t d, k = acts(cell);

    memset(&p, 0, sizeof p);
    p.cell = cell;
    p.seq_len = T;
    p.batch = N;
    p.input_size = I;
    p.hidden = H;
    p.n_dirs = D;
    for (d = 0; d < 2; d++) {
        if (cell == LSTMC_RT_CELL_LSTM) {
            p.act[d * k + 0] = act(LSTMC_RT_ACT_SIGMOID, 0, 0);
            p.act[d * k + 1] = act(LSTMC_RT_ACT_TANH, 0, 0);
            p.act[d * k + 2] = act(LSTMC_RT_ACT_TANH, 0, 0);
        } else if (cell == LSTMC_RT_CELL_GRU) {
            p.act[d * k + 0] = act(LSTMC_RT_ACT_SIGMOID, 0, 0);
            p.act[d * k + 1] = act(LSTMC_RT_ACT_TANH, 0, 0);
        } else {
            p.act[d] = act(LSTMC_RT_ACT_TANH, 0, 0);
        }
    }
    return p;
}

static lstmc_rt_status
run(const lstmc_rt_rnn_params *p, const float *X, const float *W, const float *R, const float *B,
    const int32_t *sl, const float *h0, const float *c0, const float *P, float *Y, float *Yh,
    float *Yc)
{
    cr_assert_leq(lstmc_rt_rnn_scratch(p), (int64_t)(sizeof scratch_buf / sizeof(float)));
    return lstmc_rt_rnn(p, X, W, R, B, sl, h0, c0, P, Y, Yh, Yc, scratch_buf);
}

/* --- activations ------------------------------------------------------------------------ */

Test(rt_rnn, activations)
{
    lstmc_rt_act a;

    a = act(LSTMC_RT_ACT_SIGMOID, 0, 0);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 0.0f), 0.5f, 1e-7f);
    a = act(LSTMC_RT_ACT_TANH, 0, 0);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 0.0f), 0.0f, 0.0f);
    a = act(LSTMC_RT_ACT_RELU, 0, 0);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, -1.0f), 0.0f, 0.0f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 2.0f), 2.0f, 0.0f);
    /* HardSigmoid(alpha .2, beta .5): 1 -> .7, 10 -> 1, -10 -> 0 */
    a = act(LSTMC_RT_ACT_HARD_SIGMOID, 0.2f, 0.5f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 1.0f), 0.7f, 1e-6f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 10.0f), 1.0f, 0.0f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, -10.0f), 0.0f, 0.0f);
    a = act(LSTMC_RT_ACT_AFFINE, 2.0f, 1.0f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 3.0f), 7.0f, 0.0f);
    a = act(LSTMC_RT_ACT_LEAKY_RELU, 0.1f, 0);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, -2.0f), -0.2f, 1e-7f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 2.0f), 2.0f, 0.0f);
    a = act(LSTMC_RT_ACT_THRESHOLDED_RELU, 1.0f, 0);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 1.0f), 0.0f, 0.0f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 1.5f), 1.5f, 0.0f);
    /* ScaledTanh(2, .5)(1) = 2 tanh(.5) = 0.92423431452 */
    a = act(LSTMC_RT_ACT_SCALED_TANH, 2.0f, 0.5f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 1.0f), 0.92423431452f, 1e-6f);
    /* Elu(1)(-1) = e^-1 - 1 = -0.63212055883 */
    a = act(LSTMC_RT_ACT_ELU, 1.0f, 0);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, -1.0f), -0.63212055883f, 1e-6f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 3.0f), 3.0f, 0.0f);
    a = act(LSTMC_RT_ACT_SOFTSIGN, 0, 0);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 1.0f), 0.5f, 0.0f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, -3.0f), -0.75f, 0.0f);
    /* Softplus(0) = ln 2; no overflow at 100; tends to 0 at -100 */
    a = act(LSTMC_RT_ACT_SOFTPLUS, 0, 0);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 0.0f), 0.69314718056f, 1e-6f);
    cr_assert_float_eq(lstmc_rt_act_apply(&a, 100.0f), 100.0f, 1e-4f);
    cr_assert(lstmc_rt_act_apply(&a, -100.0f) >= 0.0f);
    cr_assert(lstmc_rt_act_apply(&a, -100.0f) < 1e-30f);
}

/* --- hand-worked single steps, H = I = 1 ------------------------------------------------ */

/*
 * LSTM, x = 1, h0 = 1, c0 = 1. W (i o f c) = [.5, -.5, 1, 0], R = [.5, .5, 0, .25],
 * Wb = [0, .25, .5, .125], Rb = [-1, -.25, 0, .125]:
 *   i = sigmoid(.5 + .5 - 1)        = sigmoid(0)   = .5
 *   o = sigmoid(-.5 + .5 + .25 - .25) = sigmoid(0) = .5
 *   f = sigmoid(1 + 0 + .5)      = sigmoid(1.5) = 0.8175744761936437
 *   g = tanh(0 + .25 + .125 + .125) = tanh(.5)   = 0.46211715726000974
 *   C = f*1 + i*g = 1.0486330548236484,  H = o*tanh(C) = 0.39063717502965406
 */
static const float lw[4] = {0.5f, -0.5f, 1.0f, 0.0f}, lr[4] = {0.5f, 0.5f, 0.0f, 0.25f};
static const float lb[8] = {0, 0.25f, 0.5f, 0.125f, -1, -0.25f, 0, 0.125f};
static const float one = 1.0f;

Test(rt_rnn, lstm_one_step_hand)
{
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_LSTM, 1, 1, 1, 1, 1);
    float Y, Yh, Yc;

    cr_assert_eq(run(&p, &one, lw, lr, lb, NULL, &one, &one, NULL, &Y, &Yh, &Yc), LSTMC_RT_OK);
    cr_assert_float_eq(Yc, 1.0486330548236484f, 1e-6f);
    cr_assert_float_eq(Yh, 0.39063717502965406f, 1e-6f);
    cr_assert_float_eq(Y, Yh, 0.0f);
}

/* input_forget, with Rbi = -.5 instead of -1 so that i != 1 - i:
 *   i = sigmoid(.5) = 0.6224593312018546, f = 1 - i = 0.3775406687981454 (the forget
 *   weights no longer matter), C = f*1 + i*tanh(.5) = 0.6651898054431133,
 *   H = .5*tanh(C) = 0.2909034199458864 */
Test(rt_rnn, lstm_input_forget_hand)
{
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_LSTM, 1, 1, 1, 1, 1);
    const float b_if[8] = {0, 0.25f, 0.5f, 0.125f, -0.5f, -0.25f, 0, 0.125f};
    float Yh, Yc;

    p.input_forget = 1;
    cr_assert_eq(run(&p, &one, lw, lr, b_if, NULL, &one, &one, NULL, NULL, &Yh, &Yc), LSTMC_RT_OK);
    cr_assert_float_eq(Yc, 0.6651898054431133f, 1e-6f);
    cr_assert_float_eq(Yh, 0.2909034199458864f, 1e-6f);
}

/* Peepholes P (i o f) = [1, 1, -1]:
 *   i = sigmoid(0 + 1*c0) = sigmoid(1) = 0.7310585786300049
 *   f = sigmoid(1.5 - 1*c0) = sigmoid(.5) = 0.6224593312018546
 *   C = f + i*tanh(.5) = 0.9602940433488958
 *   o = sigmoid(0 + 1*C) = 0.7231806736389846   (the o peephole sees the new C)
 *   H = o*tanh(C) = 0.5383414769264665 */
Test(rt_rnn, lstm_peephole_hand)
{
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_LSTM, 1, 1, 1, 1, 1);
    const float P[3] = {1.0f, 1.0f, -1.0f};
    float Yh, Yc;

    cr_assert_eq(run(&p, &one, lw, lr, lb, NULL, &one, &one, P, NULL, &Yh, &Yc), LSTMC_RT_OK);
    cr_assert_float_eq(Yc, 0.9602940433488958f, 1e-6f);
    cr_assert_float_eq(Yh, 0.5383414769264665f, 1e-6f);
}

/* clip = .25 bounds the pre-activations: f = sigmoid(.25), g = tanh(.25) (i, o stay at 0):
 * C = sigmoid(.25) + .5*tanh(.25) = 0.6846358320876527, H = .5*tanh(C) = 0.2972624544715614 */
Test(rt_rnn, lstm_clip_hand)
{
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_LSTM, 1, 1, 1, 1, 1);
    float Yh, Yc;

    p.has_clip = 1;
    p.clip = 0.25f;
    cr_assert_eq(run(&p, &one, lw, lr, lb, NULL, &one, &one, NULL, NULL, &Yh, &Yc), LSTMC_RT_OK);
    cr_assert_float_eq(Yc, 0.6846358320876527f, 1e-6f);
    cr_assert_float_eq(Yh, 0.2972624544715614f, 1e-6f);
}

/*
 * GRU, x = 1, h0 = .5. W (z r h) = [.5, .5, 1], R = [0, 0, 2], Wb = [.25, .25, 0],
 * Rb = [.25, .25, .5]:
 *   z = r = sigmoid(.5 + .25 + .25) = sigmoid(1) = 0.7310585786300049
 *   lbr 0: ht = tanh(1 + (r*.5)*2 + .5)  = tanh(2.231058578630005)  = 0.9771873901534078
 *   lbr 1: ht = tanh(1 + r*(.5*2 + .5))  = tanh(2.0965878679450074) = 0.9702526126668297
 *   H = (1 - z)*ht + z*h0 = 0.6283354549676958 / 0.626470406053571
 */
Test(rt_rnn, gru_one_step_hand)
{
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_GRU, 1, 1, 1, 1, 1);
    const float W[3] = {0.5f, 0.5f, 1}, R[3] = {0, 0, 2};
    const float B[6] = {0.25f, 0.25f, 0, 0.25f, 0.25f, 0.5f};
    const float h0 = 0.5f;
    float Y, Yh, Yc = 42.0f;

    cr_assert_eq(run(&p, &one, W, R, B, NULL, &h0, NULL, NULL, &Y, &Yh, &Yc), LSTMC_RT_OK);
    cr_assert_float_eq(Yh, 0.6283354549676958f, 1e-6f);
    cr_assert_float_eq(Y, Yh, 0.0f);
    cr_assert_float_eq(Yc, 42.0f, 0.0f); /* GRU has no Y_c: left alone */
    p.linear_before_reset = 1;
    cr_assert_eq(run(&p, &one, W, R, B, NULL, &h0, NULL, NULL, &Y, &Yh, NULL), LSTMC_RT_OK);
    cr_assert_float_eq(Yh, 0.626470406053571f, 1e-6f);
}

/* Non-default activations, each in its own slot. LSTM as in lstm_one_step_hand with
 * f = HardSigmoid(.2, .5), g = Affine(2, 0), h = Relu:
 *   i = o = hs(0) = .5, f = hs(1.5) = .8, g = 2*.5 = 1, C = .8*1 + .5*1 = 1.3, H = .5*1.3 = .65
 * GRU as in gru_one_step_hand (lbr 0) with f = HardSigmoid(.2, .5), g = Affine(.5, 0):
 *   z = r = hs(1) = .7, ht = .5*(1 + (.7*.5)*2 + .5) = 1.1, H = .3*1.1 + .7*.5 = .68 */
Test(rt_rnn, custom_activations_hand)
{
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_LSTM, 1, 1, 1, 1, 1);
    const float W[3] = {1, 1, 1}, R[3] = {0, 0, 2}, B[6] = {0, 0, 0, 0, 0, 0.5f};
    const float h0 = 0.5f;
    float Yh, Yc;

    p.act[0] = act(LSTMC_RT_ACT_HARD_SIGMOID, 0.2f, 0.5f);
    p.act[1] = act(LSTMC_RT_ACT_AFFINE, 2.0f, 0.0f);
    p.act[2] = act(LSTMC_RT_ACT_RELU, 0, 0);
    cr_assert_eq(run(&p, &one, lw, lr, lb, NULL, &one, &one, NULL, NULL, &Yh, &Yc), LSTMC_RT_OK);
    cr_assert_float_eq(Yc, 1.3f, 1e-6f);
    cr_assert_float_eq(Yh, 0.65f, 1e-6f);

    p = params(LSTMC_RT_CELL_GRU, 1, 1, 1, 1, 1);
    p.act[0] = act(LSTMC_RT_ACT_HARD_SIGMOID, 0.2f, 0.5f);
    p.act[1] = act(LSTMC_RT_ACT_AFFINE, 0.5f, 0.0f);
    cr_assert_eq(run(&p, &one, W, R, B, NULL, &h0, NULL, NULL, NULL, &Yh, NULL), LSTMC_RT_OK);
    cr_assert_float_eq(Yh, 0.68f, 1e-6f);
}

/* RNN, W = .5, R = 2, Wb = Rb = .25, X = [1, 0], h0 = 0:
 *   h1 = tanh(.5 + .5) = 0.7615941559557649
 *   h2 = tanh(0 + 2*h1 + .5) = tanh(2.0231883119115297) = 0.9656297510817428 */
Test(rt_rnn, rnn_two_steps_hand)
{
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_RNN, 2, 1, 1, 1, 1);
    const float X[2] = {1, 0}, W = 0.5f, R = 2.0f, B[2] = {0.25f, 0.25f};
    const float want[2] = {0.7615941559557649f, 0.9656297510817428f};
    float Y[2], Yh;

    cr_assert_eq(run(&p, X, &W, &R, B, NULL, NULL, NULL, NULL, Y, &Yh, NULL), LSTMC_RT_OK);
    assert_close(Y, want, 2, 1e-6f);
    cr_assert_float_eq(Yh, want[1], 0.0f);
}

/* RNN with Relu and clip 1, W = R = 1, X = [2, -5]:
 *   no clip: h1 = relu(2) = 2, h2 = relu(-5 + 2) = 0
 *   clip 1:  h1 = relu(1) = 1, h2 = relu(clip(-5 + 1)) = relu(-1) = 0; and X = [2, 0.5]:
 *            h2 = relu(clip(.5 + 1)) = 1
 * Affine(1, 0) (the identity) with clip 1 shows the lower bound: X = [-5, 0.5]:
 *   h1 = clip(-5) = -1, h2 = clip(.5 - 1) = -.5 */
Test(rt_rnn, rnn_relu_clip_hand)
{
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_RNN, 2, 1, 1, 1, 1);
    const float X[2] = {2, -5}, X2[2] = {2, 0.5f}, W = 1, R = 1;
    const float want[2] = {2, 0}, want_c[2] = {1, 0}, want_c2[2] = {1, 1};
    float Y[2];

    p.act[0] = act(LSTMC_RT_ACT_RELU, 0, 0);
    cr_assert_eq(run(&p, X, &W, &R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL), LSTMC_RT_OK);
    assert_close(Y, want, 2, 0.0f);
    p.has_clip = 1;
    p.clip = 1.0f;
    cr_assert_eq(run(&p, X, &W, &R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL), LSTMC_RT_OK);
    assert_close(Y, want_c, 2, 0.0f);
    cr_assert_eq(run(&p, X2, &W, &R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL), LSTMC_RT_OK);
    assert_close(Y, want_c2, 2, 0.0f);
    {
        const float X3[2] = {-5, 0.5f}, want3[2] = {-1, -0.5f};

        p.act[0] = act(LSTMC_RT_ACT_AFFINE, 1.0f, 0.0f);
        cr_assert_eq(run(&p, X3, &W, &R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL), LSTMC_RT_OK);
        assert_close(Y, want3, 2, 0.0f);
    }
}

/* --- identities over all three cells ------------------------------------------------------ */

typedef struct model {
    float X[T_ * N_ * I_];
    float W[2 * MAXG * H_ * I_];
    float R[2 * MAXG * H_ * H_];
    float B[2 * 2 * MAXG * H_];
    float P[2 * 3 * H_];
    float h0[2 * N_ * H_];
    float c0[2 * N_ * H_];
} model;

static void
make_model(model *m, uint32_t seed)
{
    fill(m->X, T_ * N_ * I_, seed + 1, 1.0f);
    fill(m->W, 2 * MAXG * H_ * I_, seed + 2, 0.7f);
    fill(m->R, 2 * MAXG * H_ * H_, seed + 3, 0.7f);
    fill(m->B, 2 * 2 * MAXG * H_, seed + 4, 0.5f);
    fill(m->P, 2 * 3 * H_, seed + 5, 0.5f);
    fill(m->h0, 2 * N_ * H_, seed + 6, 0.8f);
    fill(m->c0, 2 * N_ * H_, seed + 7, 0.8f);
}

/* Non-default activations, so a direction picking up the wrong act[] entries shows. */
static void
set_reverse_acts(lstmc_rt_rnn_params *p, int32_t first)
{
    if (p->cell == LSTMC_RT_CELL_LSTM) {
        p->act[first + 0] = act(LSTMC_RT_ACT_HARD_SIGMOID, 0.2f, 0.5f);
        p->act[first + 1] = act(LSTMC_RT_ACT_SCALED_TANH, 1.5f, 0.7f);
        p->act[first + 2] = act(LSTMC_RT_ACT_SOFTSIGN, 0, 0);
    } else if (p->cell == LSTMC_RT_CELL_GRU) {
        p->act[first + 0] = act(LSTMC_RT_ACT_HARD_SIGMOID, 0.2f, 0.5f);
        p->act[first + 1] = act(LSTMC_RT_ACT_ELU, 0.9f, 0);
    } else {
        p->act[first] = act(LSTMC_RT_ACT_LEAKY_RELU, 0.1f, 0);
    }
}

static const int32_t seq_lens[N_] = {T_, 3, 0};

Test(rt_rnn, reverse_equals_forward_on_reversed_sequence)
{
    int cell;

    for (cell = 0; cell < 3; cell++) {
        model m;
        float Xr[T_ * N_ * I_], Yr[T_ * N_ * H_], Yf[T_ * N_ * H_];
        float Yhr[N_ * H_], Yhf[N_ * H_], Ycr[N_ * H_], Ycf[N_ * H_];
        lstmc_rt_rnn_params p = params(cell, T_, N_, I_, H_, 1);
        int64_t t, n;

        make_model(&m, 100u + (uint32_t)cell);
        set_reverse_acts(&p, 0);
        p.linear_before_reset = 1;
        /* Xr: each sequence reversed within its own length. */
        memcpy(Xr, m.X, sizeof Xr);
        for (n = 0; n < N_; n++)
            for (t = 0; t < seq_lens[n]; t++)
                memcpy(Xr + (t * N_ + n) * I_, m.X + ((seq_lens[n] - 1 - t) * N_ + n) * I_,
                       I_ * sizeof(float));

        p.reverse = 1;
        cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, seq_lens, m.h0, m.c0, m.P, Yr, Yhr, Ycr),
                     LSTMC_RT_OK);
        p.reverse = 0;
        cr_assert_eq(run(&p, Xr, m.W, m.R, m.B, seq_lens, m.h0, m.c0, m.P, Yf, Yhf, Ycf),
                     LSTMC_RT_OK);
        for (n = 0; n < N_; n++)
            for (t = 0; t < T_; t++) {
                if (t < seq_lens[n])
                    assert_close(Yr + (t * N_ + n) * H_, Yf + ((seq_lens[n] - 1 - t) * N_ + n) * H_,
                                 H_, 1e-6f);
                else
                    assert_zero(Yr + (t * N_ + n) * H_, H_);
            }
        assert_close(Yhr, Yhf, N_ * H_, 1e-6f);
        if (cell == LSTMC_RT_CELL_LSTM)
            assert_close(Ycr, Ycf, N_ * H_, 1e-6f);
    }
}

/* A bidirectional layer (with clip and different activations per direction) equals its two
 * directions run separately, the second with reverse = 1, placed side by side. */
Test(rt_rnn, bidirectional_is_forward_and_reverse_side_by_side)
{
    int cell;

    for (cell = 0; cell < 3; cell++) {
        model m;
        const int64_t G = gates(cell);
        const int32_t k = acts(cell);
        float Y2[T_ * 2 * N_ * H_], Yh2[2 * N_ * H_], Yc2[2 * N_ * H_];
        float Y1[T_ * N_ * H_], Yh1[N_ * H_], Yc1[N_ * H_];
        lstmc_rt_rnn_params p2 = params(cell, T_, N_, I_, H_, 2), p1;
        int32_t d, j;
        int64_t t;

        make_model(&m, 200u + (uint32_t)cell);
        set_reverse_acts(&p2, k);
        p2.has_clip = 1;
        p2.clip = 0.9f;
        cr_assert_eq(run(&p2, m.X, m.W, m.R, m.B, seq_lens, m.h0, m.c0, m.P, Y2, Yh2, Yc2),
                     LSTMC_RT_OK);
        for (d = 0; d < 2; d++) {
            p1 = p2;
            p1.n_dirs = 1;
            p1.reverse = d;
            for (j = 0; j < k; j++)
                p1.act[j] = p2.act[d * k + j];
            cr_assert_eq(run(&p1, m.X, m.W + d * G * H_ * I_, m.R + d * G * H_ * H_,
                             m.B + d * 2 * G * H_, seq_lens, m.h0 + d * N_ * H_, m.c0 + d * N_ * H_,
                             m.P + d * 3 * H_, Y1, Yh1, Yc1),
                         LSTMC_RT_OK);
            /* Y [T, D, N, H]: direction d's block of each time step. */
            for (t = 0; t < T_; t++)
                assert_close(Y2 + (t * 2 + d) * N_ * H_, Y1 + t * N_ * H_, N_ * H_, 1e-6f);
            assert_close(Yh2 + d * N_ * H_, Yh1, N_ * H_, 1e-6f);
            if (cell == LSTMC_RT_CELL_LSTM)
                assert_close(Yc2 + d * N_ * H_, Yc1, N_ * H_, 1e-6f);
        }
    }
}

Test(rt_rnn, layout1_is_transposed_layout0)
{
    int cell;

    for (cell = 0; cell < 3; cell++) {
        model m;
        float X1[N_ * T_ * I_], h01[N_ * 2 * H_], c01[N_ * 2 * H_];
        float Y0[T_ * 2 * N_ * H_], Yh0[2 * N_ * H_], Yc0[2 * N_ * H_];
        float Y1[N_ * T_ * 2 * H_], Yh1[N_ * 2 * H_], Yc1[N_ * 2 * H_];
        lstmc_rt_rnn_params p = params(cell, T_, N_, I_, H_, 2);
        int64_t t, n, d;

        make_model(&m, 300u + (uint32_t)cell);
        /* X [T,N,I] -> [N,T,I]; initial states [D,N,H] -> [N,D,H] */
        for (t = 0; t < T_; t++)
            for (n = 0; n < N_; n++)
                memcpy(X1 + (n * T_ + t) * I_, m.X + (t * N_ + n) * I_, I_ * sizeof(float));
        for (d = 0; d < 2; d++)
            for (n = 0; n < N_; n++) {
                memcpy(h01 + (n * 2 + d) * H_, m.h0 + (d * N_ + n) * H_, H_ * sizeof(float));
                memcpy(c01 + (n * 2 + d) * H_, m.c0 + (d * N_ + n) * H_, H_ * sizeof(float));
            }
        cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, seq_lens, m.h0, m.c0, m.P, Y0, Yh0, Yc0),
                     LSTMC_RT_OK);
        p.layout = 1;
        cr_assert_eq(run(&p, X1, m.W, m.R, m.B, seq_lens, h01, c01, m.P, Y1, Yh1, Yc1),
                     LSTMC_RT_OK);
        /* Y [T,D,N,H] vs [N,T,D,H]; Y_h/Y_c [D,N,H] vs [N,D,H] */
        for (t = 0; t < T_; t++)
            for (d = 0; d < 2; d++)
                for (n = 0; n < N_; n++)
                    assert_close(Y1 + ((n * T_ + t) * 2 + d) * H_, Y0 + ((t * 2 + d) * N_ + n) * H_,
                                 H_, 0.0f);
        for (d = 0; d < 2; d++)
            for (n = 0; n < N_; n++) {
                assert_close(Yh1 + (n * 2 + d) * H_, Yh0 + (d * N_ + n) * H_, H_, 0.0f);
                if (cell == LSTMC_RT_CELL_LSTM)
                    assert_close(Yc1 + (n * 2 + d) * H_, Yc0 + (d * N_ + n) * H_, H_, 0.0f);
            }
    }
}

/* Entry n with length s behaves like a run of that batch entry alone on X[0..s): Y rows
 * t >= s are zero and Y_h/Y_c is the state after s steps. */
Test(rt_rnn, shorter_sequence_is_truncated_run_then_zeros)
{
    int cell;

    for (cell = 0; cell < 3; cell++) {
        model m;
        float Y[T_ * N_ * H_], Yh[N_ * H_], Yc[N_ * H_];
        lstmc_rt_rnn_params p = params(cell, T_, N_, I_, H_, 1);
        int64_t n, t;

        make_model(&m, 400u + (uint32_t)cell);
        fill(Y, T_ * N_ * H_, 9, 5.0f); /* garbage that must be overwritten */
        cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, seq_lens, m.h0, m.c0, m.P, Y, Yh, Yc),
                     LSTMC_RT_OK);
        for (n = 0; n < N_; n++) {
            const int32_t s = seq_lens[n];
            float Xn[T_ * I_], Ys[T_ * H_], Yhs[H_], Ycs[H_];
            lstmc_rt_rnn_params ps = p;

            for (t = 0; t < T_; t++) {
                if (t >= s) {
                    assert_zero(Y + (t * N_ + n) * H_, H_);
                    continue;
                }
                memcpy(Xn + t * I_, m.X + (t * N_ + n) * I_, I_ * sizeof(float));
            }
            if (s == 0) {
                /* Zero-length sequence: zero state even with initial_h/initial_c, as
                 * ONNX Runtime does (tests/fixtures *_seqlens_zero cases). */
                assert_zero(Yh + n * H_, H_);
                if (cell == LSTMC_RT_CELL_LSTM)
                    assert_zero(Yc + n * H_, H_);
                continue;
            }
            ps.seq_len = s;
            ps.batch = 1;
            cr_assert_eq(
                run(&ps, Xn, m.W, m.R, m.B, NULL, m.h0 + n * H_, m.c0 + n * H_, m.P, Ys, Yhs, Ycs),
                LSTMC_RT_OK);
            for (t = 0; t < s; t++)
                assert_close(Y + (t * N_ + n) * H_, Ys + t * H_, H_, 1e-6f);
            assert_close(Yh + n * H_, Yhs, H_, 1e-6f);
            /* Y_h is the last valid row of Y for the forward direction */
            assert_close(Yh + n * H_, Y + ((s - 1) * N_ + n) * H_, H_, 0.0f);
            if (cell == LSTMC_RT_CELL_LSTM)
                assert_close(Yc + n * H_, Ycs, H_, 1e-6f);
        }
    }
}

Test(rt_rnn, zero_length_without_initial_state_is_zero)
{
    model m;
    const int32_t sl[N_] = {0, 0, 0};
    float Y[T_ * 2 * N_ * H_], Yh[2 * N_ * H_], Yc[2 * N_ * H_];
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_LSTM, T_, N_, I_, H_, 2);

    make_model(&m, 500u);
    fill(Y, T_ * 2 * N_ * H_, 1, 1.0f);
    fill(Yh, 2 * N_ * H_, 2, 1.0f);
    fill(Yc, 2 * N_ * H_, 3, 1.0f);
    cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, sl, NULL, NULL, NULL, Y, Yh, Yc), LSTMC_RT_OK);
    assert_zero(Y, T_ * 2 * N_ * H_);
    assert_zero(Yh, 2 * N_ * H_);
    assert_zero(Yc, 2 * N_ * H_);
}

Test(rt_rnn, no_seq_lens_means_full_length)
{
    model m;
    const int32_t full[N_] = {T_, T_, T_};
    float Ya[T_ * N_ * H_], Yb[T_ * N_ * H_];
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_GRU, T_, N_, I_, H_, 1);

    make_model(&m, 600u);
    cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, NULL, NULL, NULL, NULL, Ya, NULL, NULL), LSTMC_RT_OK);
    cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, full, NULL, NULL, NULL, Yb, NULL, NULL), LSTMC_RT_OK);
    assert_close(Ya, Yb, T_ * N_ * H_, 0.0f);
}

Test(rt_rnn, any_output_subset)
{
    model m;
    float Y[T_ * 2 * N_ * H_], Yh[2 * N_ * H_], Yc[2 * N_ * H_];
    float Y2[T_ * 2 * N_ * H_], Yh2[2 * N_ * H_], Yc2[2 * N_ * H_];
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_LSTM, T_, N_, I_, H_, 2);
    int mask;

    make_model(&m, 700u);
    cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, seq_lens, m.h0, m.c0, m.P, Y, Yh, Yc), LSTMC_RT_OK);
    for (mask = 0; mask < 8; mask++) {
        memset(Y2, 0x7f, sizeof Y2);
        memset(Yh2, 0x7f, sizeof Yh2);
        memset(Yc2, 0x7f, sizeof Yc2);
        cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, seq_lens, m.h0, m.c0, m.P, (mask & 1) ? Y2 : NULL,
                         (mask & 2) ? Yh2 : NULL, (mask & 4) ? Yc2 : NULL),
                     LSTMC_RT_OK);
        if (mask & 1)
            assert_close(Y2, Y, T_ * 2 * N_ * H_, 0.0f);
        if (mask & 2)
            assert_close(Yh2, Yh, 2 * N_ * H_, 0.0f);
        if (mask & 4)
            assert_close(Yc2, Yc, 2 * N_ * H_, 0.0f);
    }
}

/* clip larger than any pre-activation changes nothing. */
Test(rt_rnn, huge_clip_is_no_clip)
{
    int cell;

    for (cell = 0; cell < 3; cell++) {
        model m;
        float Ya[T_ * N_ * H_], Yb[T_ * N_ * H_];
        lstmc_rt_rnn_params p = params(cell, T_, N_, I_, H_, 1);

        make_model(&m, 800u + (uint32_t)cell);
        cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, NULL, m.h0, m.c0, m.P, Ya, NULL, NULL),
                     LSTMC_RT_OK);
        p.has_clip = 1;
        p.clip = 1e30f;
        cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, NULL, m.h0, m.c0, m.P, Yb, NULL, NULL),
                     LSTMC_RT_OK);
        assert_close(Ya, Yb, T_ * N_ * H_, 0.0f);
    }
}

/* --- errors ------------------------------------------------------------------------------- */

Test(rt_rnn, seq_len_out_of_range)
{
    model m;
    const int32_t too_long[N_] = {T_, T_ + 1, 0}, negative[N_] = {1, -1, 2};
    float Y[T_ * N_ * H_];
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_LSTM, T_, N_, I_, H_, 1);

    make_model(&m, 900u);
    memset(Y, 0x7f, sizeof Y);
    cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, too_long, NULL, NULL, NULL, Y, NULL, NULL),
                 LSTMC_RT_ERR_SEQ_LEN);
    cr_assert_eq(run(&p, m.X, m.W, m.R, m.B, negative, NULL, NULL, NULL, Y, NULL, NULL),
                 LSTMC_RT_ERR_SEQ_LEN);
    {
        unsigned char b[sizeof Y];
        memset(b, 0x7f, sizeof b);
        cr_assert(memcmp(Y, b, sizeof Y) == 0, "Y written before the error");
    }
}

Test(rt_rnn, null_and_bad_params)
{
    model m;
    float Y[T_ * 2 * N_ * H_];
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_LSTM, T_, N_, I_, H_, 1), q;

    make_model(&m, 1000u);
    cr_assert_eq(
        lstmc_rt_rnn(NULL, m.X, m.W, m.R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL, scratch_buf),
        LSTMC_RT_ERR_NULL);
    cr_assert_eq(run(&p, NULL, m.W, m.R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL),
                 LSTMC_RT_ERR_NULL);
    cr_assert_eq(run(&p, m.X, m.W, NULL, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL),
                 LSTMC_RT_ERR_NULL);
    cr_assert_eq(lstmc_rt_rnn(&p, m.X, m.W, m.R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL, NULL),
                 LSTMC_RT_ERR_NULL);

    q = p;
    q.n_dirs = 3;
    cr_assert_eq(run(&q, m.X, m.W, m.R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL),
                 LSTMC_RT_ERR_BAD_PARAMS);
    q = p;
    q.n_dirs = 2;
    q.reverse = 1; /* reverse is for D == 1 only */
    cr_assert_eq(run(&q, m.X, m.W, m.R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL),
                 LSTMC_RT_ERR_BAD_PARAMS);
    q = p;
    q.layout = 2;
    cr_assert_eq(run(&q, m.X, m.W, m.R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL),
                 LSTMC_RT_ERR_BAD_PARAMS);
    q = p;
    q.act[2].kind = 11;
    cr_assert_eq(run(&q, m.X, m.W, m.R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL),
                 LSTMC_RT_ERR_BAD_PARAMS);
    q = p;
    q.cell = 3;
    cr_assert_eq(
        lstmc_rt_rnn(&q, m.X, m.W, m.R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL, scratch_buf),
        LSTMC_RT_ERR_BAD_PARAMS);
    q = p;
    q.has_clip = 1;
    q.clip = -1.0f;
    cr_assert_eq(run(&q, m.X, m.W, m.R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL),
                 LSTMC_RT_ERR_BAD_PARAMS);
    q = p;
    q.seq_len = INT64_MAX / 2;
    cr_assert_eq(run(&q, m.X, m.W, m.R, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL),
                 LSTMC_RT_ERR_BAD_PARAMS);
}

Test(rt_rnn, scratch_size)
{
    lstmc_rt_rnn_params p = params(LSTMC_RT_CELL_LSTM, T_, N_, I_, H_, 2);

    cr_assert_geq(lstmc_rt_rnn_scratch(&p), 6 * H_); /* at least h, c and 4 gates */
    p.cell = LSTMC_RT_CELL_GRU;
    cr_assert_geq(lstmc_rt_rnn_scratch(&p), 4 * H_);
    cr_assert_eq(lstmc_rt_rnn_scratch(NULL), -1);
    p.hidden = 0;
    cr_assert_eq(lstmc_rt_rnn_scratch(&p), -1);
    p.hidden = 1;
    p.cell = 9;
    cr_assert_eq(lstmc_rt_rnn_scratch(&p), -1);
}
