/*
 * test_rt_drs.c — unit tests of runtime/src/rt_drs.c and the DRS part of rt_tissue.c:
 * MICRO'18 §V dynamic row skip (Algorithm 3) for LSTM.
 *
 * Truth from outside the code under test:
 *   - R (line 6) on hand-made o vectors;
 *   - one DRS cell (H = 2) worked by hand / numpy (the arithmetic in the comments);
 *   - with alpha_intra = 0, lstmc_rt_rnn_rec (the exact kernel): same floats, bit for bit;
 *   - tissues: with alpha_intra = 0, lstmc_rt_lstm_tissue bit for bit; with alpha_intra > 0,
 *     the per-cell DRS kernel (a tissue changes which loads happen, not the arithmetic);
 *   - the weight layouts of lstmc_rt_drs_pack, element by element from U.
 */
#include "internal/testing.h" /* runtime/src/internal: the runtime's test hooks */

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define T_ 7
#define N_ 3
#define H_ 5
#define G_ (4 * H_)

static float scratch_a[1 << 15], scratch_b[1 << 15];

static void
fill(float *x, int64_t n, uint32_t seed, float scale)
{
    int64_t i;

    for (i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = ((float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
    }
}

static lstmc_rt_rnn_params
lstm_params(int64_t T, int64_t N, int64_t H, int dirs)
{
    lstmc_rt_rnn_params p;
    int k;

    memset(&p, 0, sizeof p);
    p.cell = LSTMC_RT_CELL_LSTM;
    p.seq_len = T;
    p.batch = N;
    p.hidden = H;
    p.input_size = 1;
    p.n_dirs = dirs;
    p.packed = 1;
    for (k = 0; k < 6; k++)
        p.act[k].kind = k % 3 == 0 ? LSTMC_RT_ACT_SIGMOID : LSTMC_RT_ACT_TANH;
    return p;
}

/* U as rows [D, 4H, H] (ONNX R) -> Ut [D, H, 4H] (fold_constants' packed form). */
static void
pack_t(int64_t D, int64_t H, const float *U, float *Ut)
{
    int64_t d, r, k;

    for (d = 0; d < D; d++)
        for (r = 0; r < 4 * H; r++)
            for (k = 0; k < H; k++)
                Ut[(d * H + k) * 4 * H + r] = U[(d * 4 * H + r) * H + k];
}

Test(rt_drs, compact_by_hand)
{
    /* |o| < alpha is skipped; NaN and |o| >= alpha are kept, in ascending order */
    const float o[7] = {0.5f, 0.05f, 0.2f, 0.0f, -0.9f, NAN, 0.1f};
    int32_t R[7];

    cr_assert_eq(lstmc_rt_drs_compact(7, o, 0.1f, R), 5);
    cr_assert(R[0] == 0 && R[1] == 2 && R[2] == 4 && R[3] == 5 && R[4] == 6);
    cr_assert_eq(lstmc_rt_drs_compact(7, o, 0.0f, R), 7, "alpha 0 keeps every row");
    cr_assert_eq(lstmc_rt_drs_compact(7, o, -1.0f, R), 7);
    cr_assert_eq(lstmc_rt_drs_compact(7, o, NAN, R), 7, "NaN alpha skips nothing");
    cr_assert_eq(lstmc_rt_drs_compact(7, o, 0.6f, R), 2);
    cr_assert(R[0] == 4 && R[1] == 5);
    cr_assert_eq(lstmc_rt_drs_compact(7, o, 1e30f, R), 1); /* only the NaN */
    cr_assert_eq(R[0], 5);
    cr_assert_eq(lstmc_rt_drs_compact(0, o, 0.1f, R), 0);
    cr_assert_eq(lstmc_rt_drs_compact(7, NULL, 0.1f, R), 0);
}

Test(rt_drs, pack_layouts)
{
    float U[2 * G_ * H_], Ut[2 * G_ * H_], Uo[2 * H_ * H_], Ufic[2 * 3 * H_ * H_];
    int64_t d, j, k;

    fill(U, 2 * G_ * H_, 11, 1.0f);
    pack_t(2, H_, U, Ut);
    cr_assert_eq(lstmc_rt_drs_pack(2, H_, Ut, Uo, Ufic), LSTMC_RT_OK);
    for (d = 0; d < 2; d++)
        for (j = 0; j < H_; j++)
            for (k = 0; k < H_; k++) {
                const float *Ud = U + d * G_ * H_;

                /* Uo k-major; Ufic: unit j's rows i, f, c (ONNX rows j, 2H+j, 3H+j) */
                cr_assert_eq(Uo[(d * H_ + k) * H_ + j], Ud[(H_ + j) * H_ + k]);
                cr_assert_eq(Ufic[((d * H_ + j) * 3 + 0) * H_ + k], Ud[j * H_ + k]);
                cr_assert_eq(Ufic[((d * H_ + j) * 3 + 1) * H_ + k], Ud[(2 * H_ + j) * H_ + k]);
                cr_assert_eq(Ufic[((d * H_ + j) * 3 + 2) * H_ + k], Ud[(3 * H_ + j) * H_ + k]);
            }
    cr_assert_eq(lstmc_rt_drs_pack(3, H_, Ut, Uo, Ufic), LSTMC_RT_ERR_BAD_PARAMS);
    cr_assert_eq(lstmc_rt_drs_pack(1, H_, NULL, Uo, Ufic), LSTMC_RT_ERR_NULL);
}

/*
 * H = 2, gates i o f c. x = P row = [i .1 -.2 | o .5 -3 | f .3 .1 | c .2 -.4],
 * h_{t-1} = [.5, -1], c_{t-1} = [.25, -.5], U rows (ONNX R [8, 2]):
 *   U_i = [[.2 .1] [-.3 .4]]  U_o = [[.6 -.2] [.1 .9]]  U_f = [[.05 .3] [-.1 .2]]
 *   U_c = [[.7 -.5] [.2 .1]]
 * line 4: go = [.5 + .3 + .2, -3 + .05 - .9] = [1, -3.85]; line 5: o = [0.7310586, 0.0208363]
 * line 6 with alpha .1: R = {0}. line 7, unit 0: i = .1 + .1 - .1 = .1,
 * f = .3 + .025 - .3 = .025, c~ = .2 + .35 + .5 = 1.05.
 * line 8: c_0 = s(.025) * .25 + s(.1) * tanh(1.05) = 0.5369945, h_0 = o_0 tanh(c_0) = 0.3587374;
 * unit 1 skipped: c_1 = 0, h_1 = o_1 tanh(0) = 0 (exact would be c -0.3531808, h -0.0070676).
 */
Test(rt_drs, one_cell_by_hand)
{
    const float x[8] = {0.1f, -0.2f, 0.5f, -3.0f, 0.3f, 0.1f, 0.2f, -0.4f};
    const float U[16] = {0.2f, 0.1f,  -0.3f, 0.4f, 0.6f, -0.2f, 0.1f, 0.9f,
                         0.05f, 0.3f, -0.1f, 0.2f, 0.7f, -0.5f, 0.2f, 0.1f};
    float Ut[16], Uo[4], Ufic[12], h[2] = {0.5f, -1.0f}, c[2] = {0.25f, -0.5f};
    float work[8 + 2];
    lstmc_rt_rnn_params p = lstm_params(1, 1, 2, 1);
    lstmc_rt_drs_stats st;

    memset(&st, 0, sizeof st);
    pack_t(1, 2, U, Ut);
    cr_assert_eq(lstmc_rt_drs_pack(1, 2, Ut, Uo, Ufic), LSTMC_RT_OK);
    cr_assert_eq(lstmc_rt_lstm_drs_cell(&p, 0, 0.1f, x, Uo, Ufic, NULL, h, c, work, &st), 1);
    cr_assert_float_eq(work[2], 0.7310586f, 1e-6f, "o_0");
    cr_assert_float_eq(work[3], 0.0208363f, 1e-6f, "o_1");
    cr_assert_float_eq(c[0], 0.5369945f, 1e-6f);
    cr_assert_float_eq(h[0], 0.3587374f, 1e-6f);
    cr_assert(c[1] == 0.0f && h[1] == 0.0f, "skipped unit: c %g h %g", (double)c[1],
              (double)h[1]);
    cr_assert(st.cells == 1 && st.rows_total == 6 && st.rows_skipped == 3 &&
              st.rows_loaded == 3);

    /* alpha 0: the exact cell, unit 1 included */
    h[0] = 0.5f, h[1] = -1.0f, c[0] = 0.25f, c[1] = -0.5f;
    cr_assert_eq(lstmc_rt_lstm_drs_cell(&p, 0, 0.0f, x, Uo, Ufic, NULL, h, c, work, NULL), 2);
    cr_assert_float_eq(c[1], -0.3531808f, 1e-6f);
    cr_assert_float_eq(h[1], -0.0070676f, 1e-6f);
    cr_assert_float_eq(h[0], 0.3587374f, 1e-6f);
}

/* Random layer: P [D, T*N, 4H], Ut, Uo, Ufic, init states, seq_lens. */
typedef struct layer {
    float P[2 * T_ * N_ * G_], U[2 * G_ * H_], Ut[2 * G_ * H_], Uo[2 * H_ * H_];
    float Ufic[2 * 3 * H_ * H_], h0[2 * N_ * H_], c0[2 * N_ * H_], Peep[2 * 3 * H_];
    int32_t sl[N_];
} layer;

static layer L;

static void
make_layer(uint32_t seed, int dirs)
{
    fill(L.P, 2 * T_ * N_ * G_, seed, 2.0f);
    fill(L.U, 2 * G_ * H_, seed + 1, 0.8f);
    fill(L.h0, 2 * N_ * H_, seed + 2, 1.0f);
    fill(L.c0, 2 * N_ * H_, seed + 3, 1.0f);
    fill(L.Peep, 2 * 3 * H_, seed + 4, 0.5f);
    memset(L.Peep + H_, 0, H_ * sizeof(float)); /* P_o = 0: DRS-eligible */
    memset(L.Peep + 4 * H_, 0, H_ * sizeof(float));
    pack_t(dirs, H_, L.U, L.Ut);
    cr_assert_eq(lstmc_rt_drs_pack(dirs, H_, L.Ut, L.Uo, L.Ufic), LSTMC_RT_OK);
    L.sl[0] = T_;
    L.sl[1] = 3;
    L.sl[2] = 0;
}

#define Y_N (T_ * 2 * N_ * H_)
#define S_N (2 * N_ * H_)

Test(rt_drs, alpha0_equals_rnn_rec_bit_for_bit)
{
    static float Y[Y_N], Yh[S_N], Yc[S_N], Y2[Y_N], Yh2[S_N], Yc2[S_N];
    int dirs, layout, peep;

    for (dirs = 1; dirs <= 2; dirs++)
        for (layout = 0; layout <= 1; layout++)
            for (peep = 0; peep <= 1; peep++) {
                lstmc_rt_rnn_params p = lstm_params(T_, N_, H_, dirs);
                lstmc_rt_drs_stats st;
                const float *pe = peep ? L.Peep : NULL;

                p.layout = layout;
                p.has_clip = peep;
                p.clip = 1.5f;
                make_layer(100u + (uint32_t)(dirs * 4 + layout * 2 + peep), dirs);
                cr_assert_eq(lstmc_rt_rnn_rec(&p, L.P, L.Ut, NULL, L.sl, L.h0, L.c0, pe, Y, Yh,
                                              Yc, scratch_a),
                             LSTMC_RT_OK);
                cr_assert_eq(lstmc_rt_lstm_drs(&p, 0.0f, L.P, L.Uo, L.Ufic, L.sl, L.h0, L.c0, pe,
                                               Y2, Yh2, Yc2, &st, scratch_b),
                             LSTMC_RT_OK);
                cr_assert(memcmp(Y, Y2, sizeof Y) == 0, "Y differs (dirs %d layout %d)", dirs,
                          layout);
                cr_assert(memcmp(Yh, Yh2, sizeof Yh) == 0 && memcmp(Yc, Yc2, sizeof Yc) == 0);
                cr_assert_eq(st.cells, dirs * (T_ + 3));
                cr_assert_eq(st.rows_skipped, 0);
                cr_assert_eq(st.rows_total, st.cells * 3 * H_);
            }
}

Test(rt_drs, skips_rows_and_zeroes_their_state)
{
    static float Y[Y_N], Yh[S_N], Yc[S_N];
    lstmc_rt_rnn_params p = lstm_params(T_, N_, H_, 2);
    lstmc_rt_drs_stats st;
    int64_t i, zero_h = 0, zero_c = 0;

    make_layer(7, 2);
    cr_assert_eq(lstmc_rt_lstm_drs(&p, 0.4f, L.P, L.Uo, L.Ufic, NULL, L.h0, L.c0, NULL, Y, Yh,
                                   Yc, &st, scratch_a),
                 LSTMC_RT_OK);
    cr_assert_eq(st.cells, 2 * T_ * N_);
    cr_assert(st.rows_skipped > 0 && st.rows_skipped < st.rows_total, "skipped %lld of %lld",
              (long long)st.rows_skipped, (long long)st.rows_total);
    cr_assert_eq(st.rows_skipped % 3, 0);
    cr_assert_eq(st.rows_loaded, st.rows_total - st.rows_skipped);
    /* every skipped unit's c is 0 and its h is o tanh(0) = 0 */
    for (i = 0; i < S_N; i++) {
        zero_c += Yc[i] == 0.0f;
        zero_h += Yh[i] == 0.0f;
    }
    cr_assert(zero_c > 0 && zero_c == zero_h, "zero c %lld, zero h %lld", (long long)zero_c,
              (long long)zero_h);
    /* a huge threshold skips everything: h and c are all zero */
    cr_assert_eq(lstmc_rt_lstm_drs(&p, 2.0f, L.P, L.Uo, L.Ufic, NULL, L.h0, L.c0, NULL, Y, Yh,
                                   Yc, &st, scratch_a),
                 LSTMC_RT_OK);
    cr_assert_eq(st.rows_skipped, st.rows_total);
    for (i = 0; i < S_N; i++)
        cr_assert(Yh[i] == 0.0f && Yc[i] == 0.0f);
}

Test(rt_drs, bad_params)
{
    static float Y[Y_N];
    lstmc_rt_rnn_params p = lstm_params(T_, N_, H_, 1);
    int32_t bad_sl[N_] = {1, T_ + 1, 0};

    make_layer(3, 1);
    L.Peep[H_ + 1] = 0.5f; /* a P_o peephole: o_t would need c_t */
    cr_assert_eq(lstmc_rt_lstm_drs(&p, 0.1f, L.P, L.Uo, L.Ufic, NULL, NULL, NULL, L.Peep, Y,
                                   NULL, NULL, NULL, scratch_a),
                 LSTMC_RT_ERR_BAD_PARAMS);
    cr_assert_eq(lstmc_rt_lstm_drs(&p, 0.1f, L.P, L.Uo, L.Ufic, bad_sl, NULL, NULL, NULL, Y,
                                   NULL, NULL, NULL, scratch_a),
                 LSTMC_RT_ERR_SEQ_LEN);
    cr_assert_eq(lstmc_rt_lstm_drs(&p, 0.1f, L.P, NULL, L.Ufic, NULL, NULL, NULL, NULL, Y, NULL,
                                   NULL, NULL, scratch_a),
                 LSTMC_RT_ERR_NULL);
    p.cell = LSTMC_RT_CELL_GRU; /* no output gate: not DRS-eligible */
    cr_assert_eq(lstmc_rt_lstm_drs_scratch(&p), -1);
    cr_assert_eq(lstmc_rt_lstm_drs(&p, 0.1f, L.P, L.Uo, L.Ufic, NULL, NULL, NULL, NULL, Y, NULL,
                                   NULL, NULL, scratch_a),
                 LSTMC_RT_ERR_BAD_PARAMS);
}

/* --- DRS inside tissues ------------------------------------------------------------- */

static lstmc_rt_tissue_params
tissue_params(int dirs, int mts)
{
    lstmc_rt_tissue_params tp;

    memset(&tp, 0, sizeof tp); /* every field not set below is 0: fp32, Algorithm 2, no limit */
    tp.rnn = lstm_params(T_, N_, H_, dirs);
    tp.mts = mts;
    return tp;
}

Test(rt_drs, tissue_alpha0_equals_tissue_bit_for_bit)
{
    static float Up[2 * G_ * H_], Y[Y_N], Yh[S_N], Yc[S_N], Y2[Y_N], Yh2[S_N], Yc2[S_N];
    lstmc_rt_tissue_params tp = tissue_params(2, 8);
    lstmc_rt_drs_stats st;

    make_layer(21, 2);
    cr_assert_eq(lstmc_rt_lstm_tissue_pack(2, H_, L.Ut, Up), LSTMC_RT_OK);
    cr_assert(lstmc_rt_lstm_tissue_drs_scratch(&tp) * 4 <= (int64_t)sizeof scratch_b);
    cr_assert_eq(lstmc_rt_lstm_tissue(&tp, 0.0f, L.P, Up, NULL, L.sl, L.h0, L.c0, NULL, NULL,
                                      NULL, Y, Yh, Yc, NULL, scratch_a),
                 LSTMC_RT_OK);
    cr_assert_eq(lstmc_rt_lstm_tissue_drs(&tp, 0.0f, 0.0f, L.P, NULL, NULL, L.sl, L.h0, L.c0,
                                          NULL, NULL, NULL, L.Uo, L.Ufic, Y2, Yh2, Yc2, NULL,
                                          &st, scratch_b),
                 LSTMC_RT_OK);
    cr_assert(memcmp(Y, Y2, sizeof Y) == 0 && memcmp(Yh, Yh2, sizeof Yh) == 0 &&
              memcmp(Yc, Yc2, sizeof Yc) == 0);
    cr_assert_eq(st.rows_skipped, 0);
    cr_assert_eq(st.cells, 2 * (T_ + 3));
}

/* A tissue decides loads, not arithmetic: with alpha_intra > 0 the outputs are those of the
 * per-cell DRS kernel; the loads are the per-tissue unions, between max and sum of the cells'. */
Test(rt_drs, tissue_skips_like_the_cells)
{
    static float Y[Y_N], Yh[S_N], Yc[S_N], Y2[Y_N], Yh2[S_N], Yc2[S_N];
    lstmc_rt_rnn_params p = lstm_params(T_, N_, H_, 2);
    lstmc_rt_tissue_params tp = tissue_params(2, 8);
    lstmc_rt_tissue_stats ts;
    lstmc_rt_drs_stats st, st2;

    make_layer(33, 2);
    cr_assert_eq(lstmc_rt_lstm_drs(&p, 0.45f, L.P, L.Uo, L.Ufic, L.sl, L.h0, L.c0, L.Peep, Y, Yh,
                                   Yc, &st, scratch_a),
                 LSTMC_RT_OK);
    cr_assert_eq(lstmc_rt_lstm_tissue_drs(&tp, 0.0f, 0.45f, L.P, NULL, NULL, L.sl, L.h0, L.c0,
                                          L.Peep, NULL, NULL, L.Uo, L.Ufic, Y2, Yh2, Yc2, &ts,
                                          &st2, scratch_b),
                 LSTMC_RT_OK);
    cr_assert(st.rows_skipped > 0);
    cr_assert(memcmp(Y, Y2, sizeof Y) == 0 && memcmp(Yh, Yh2, sizeof Yh) == 0 &&
              memcmp(Yc, Yc2, sizeof Yc) == 0);
    cr_assert_eq(st2.rows_skipped, st.rows_skipped);
    cr_assert_eq(st2.rows_total, st.rows_total);
    /* N = 3 cells per tissue at alpha_inter 0: a unit is loaded if any of them keeps it */
    cr_assert(st2.rows_loaded <= st.rows_loaded, "tissue loads %lld, cells %lld",
              (long long)st2.rows_loaded, (long long)st.rows_loaded);
    cr_assert(st2.rows_loaded * N_ >= st.rows_loaded);
    cr_assert(ts.tissues > 0);
}
