/*
 * test_rt_tissue.c — unit tests of runtime/src/rt_tissue.c: MICRO'18 §IV (breakpoints,
 * predicted context link, tissues) for LSTM.
 *
 * Truth from outside the code under test:
 *   - Algorithm 2 on a hand-worked H = 2 case (the arithmetic in the comments);
 *   - Fig. 8 of the paper: its nine cells, breakpoints, and tissues before/after alignment;
 *   - alignment against an independent optimum (Hu's highest-level-first schedule, optimal
 *     for unit-time chains) on random sub-layer sets;
 *   - with alpha_inter = 0, lstmc_rt_rnn_rec (the exact schedule A+ kernel);
 *   - with cuts, lstmc_rt_rnn_rec run on each sub-layer on its own from h_pred / c_pred;
 *   - one cell after a breakpoint worked by hand (H = 1).
 */
#include "internal/testing.h" /* runtime/src/internal: the runtime's test hooks */

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define T_ 6
#define N_ 3
#define H_ 3
#define G_ (4 * H_)

static float scratch_buf[1 << 16];
static float ref_scratch[1024];

static void
fill(float *x, int64_t n, uint32_t seed, float scale)
{
    int64_t i;

    for (i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = ((float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
    }
}

static void
assert_close(const float *got, const float *want, int64_t n, float tol, const char *what)
{
    int64_t i;

    for (i = 0; i < n; i++)
        cr_assert(fabsf(got[i] - want[i]) <= tol + tol * fabsf(want[i]),
                  "%s element %lld: got %.9g, want %.9g", what, (long long)i, (double)got[i],
                  (double)want[i]);
}

static lstmc_rt_tissue_params
lstm_params(int64_t T, int64_t N, int64_t H, int dirs, int reverse, int layout, int mts)
{
    lstmc_rt_tissue_params p;
    int k;

    memset(&p, 0, sizeof p);
    p.rnn.cell = LSTMC_RT_CELL_LSTM;
    p.rnn.seq_len = T;
    p.rnn.batch = N;
    p.rnn.input_size = 1;
    p.rnn.hidden = H;
    p.rnn.n_dirs = dirs;
    p.rnn.reverse = reverse;
    p.rnn.layout = layout;
    p.rnn.packed = 1;
    for (k = 0; k < 6; k++)
        p.rnn.act[k].kind = k % 3 == 0 ? LSTMC_RT_ACT_SIGMOID : LSTMC_RT_ACT_TANH;
    p.mts = mts;
    return p;
}

/* D = sum_k |Ut[d][k][g]| (fold_constants' row_abs_sum, from the packed Ut [D, H, 4H]). */
static void
row_sums(const float *Ut, int64_t D, int64_t H, float *dsum)
{
    int64_t d, k, g;

    for (d = 0; d < D; d++)
        for (g = 0; g < 4 * H; g++) {
            float acc = 0.0f;
            for (k = 0; k < H; k++)
                acc += fabsf(Ut[(d * H + k) * 4 * H + g]);
            dsum[d * 4 * H + g] = acc;
        }
}

/* --- Algorithm 2 ----------------------------------------------------------------------- */

/*
 * H = 2. P rows (X + b) and U (ONNX R [4H, H], rows i0 i1 o0 o1 f0 f1 c0 c1):
 *
 *   gate row   U            D = sum|U|    X      b      X+b
 *   i0         [ 0.5, -0.5]  1.0          0.75   0.25   1.0
 *   i1         [ 1,    0  ]  1.0          3.5    0.5    4.0
 *   o0         [ 0.25, 0.25] 0.5          0.5    0      0.5
 *   o1         [-1,    1  ]  2.0         -0.5    0.5    0.0
 *   f0         [ 0.5,  0.5]  1.0         -1.5    0.5   -1.0
 *   f1         [ 0,    0  ]  0.0          2.0    1.0    3.0
 *   c0         [ 1,   -1  ]  2.0         -2.0   -1.0   -3.0
 *   c1         [ 0.5,  0  ]  0.5          0.25   0      0.25
 *
 * Line 5 is min(2 + min(2, a), min(2, 2 + D - max(2, a))) with a = |X + b|.
 * j = 0: S_f = min(4, max(-1 + 1 + 2, 0)) = 2
 *        S_i: a = 1:    min(3, min(2, 2 + 1 - 2 = 1)) = 1
 *        S_o: a = 0.5:  min(2.5, min(2, 2 + 0.5 - 2 = 0.5)) = 0.5
 *        S_c: a = 3:    min(4, min(2, 2 + 2 - 3 = 1)) = 1
 *        S^0 = 0.5 * (2 + 1 * 1) = 1.5
 * j = 1: S_f = min(4, max(3 + 0 + 2, 0)) = min(4, 5) = 4        (clamped at 4)
 *        S_i: a = 4:    min(4, min(2, 2 + 1 - 4 = -1)) = -1 -> 0  (clamped at 0: [3, 5]
 *                       lies in the insensitive area, i does not depend on h)
 *        S_o: a = 0:    min(2, min(2, 2 + 2 - 2 = 2)) = 2
 *        S_c: a = 0.25: min(2.25, min(2, 2 + 0.5 - 2 = 0.5)) = 0.5
 *        S^1 = 2 * (4 + 0 * 0.5) = 8     (unclamped it would be 2 * (4 - 0.5) = 7)
 * S = 1.5 + 8 = 9.5.
 */
Test(rt_tissue, relevance_algorithm2_by_hand)
{
    static const float U[8][2] = {{0.5f, -0.5f}, {1, 0}, {0.25f, 0.25f}, {-1, 1},
                                  {0.5f, 0.5f},  {0, 0}, {1, -1},        {0.5f, 0}};
    static const float X[8] = {0.75f, 3.5f, 0.5f, -0.5f, -1.5f, 2.0f, -2.0f, 0.25f};
    static const float b[8] = {0.25f, 0.5f, 0, 0.5f, 0.5f, 1.0f, -1.0f, 0};
    static const float want_d[8] = {1, 1, 0.5f, 2, 1, 0, 2, 0.5f};
    float Ut[2 * 8], dsum[8], x[8];
    int g, k;

    for (g = 0; g < 8; g++) {
        x[g] = X[g] + b[g];
        for (k = 0; k < 2; k++)
            Ut[k * 8 + g] = U[g][k]; /* packed transposed, as fold_constants does */
    }
    row_sums(Ut, 1, 2, dsum);
    for (g = 0; g < 8; g++)
        cr_assert_float_eq(dsum[g], want_d[g], 0);
    cr_assert_float_eq(lstmc_rt_lstm_relevance(2, x, dsum), 9.5f, 1e-6);
}

/* U = 0: h_{t-1} cannot move any gate, the link is "totally irrelevant": S = 0 for any X + b.
 * And with every X + b far in the insensitive area, S_o = 0 whatever S_f is. */
Test(rt_tissue, relevance_zero_cases)
{
    float x[8], dsum[8] = {0};
    static const float far[8] = {5, -5, 6, -7, 9, 9, -3, 3};
    static const float d1[8] = {1, 1, 1, 1, 1, 1, 1, 1};

    fill(x, 8, 7u, 4.0f);
    cr_assert_eq(lstmc_rt_lstm_relevance(2, x, dsum), 0.0f);
    /* o: a = 6 and 7 > 2 + D = 3: S_o = 0 for both elements */
    cr_assert_eq(lstmc_rt_lstm_relevance(2, far, d1), 0.0f);
}

/*
 * The sensitivity (issue 24), by hand. H = 1, rows i o f c: x = [0, 2, 8, -1], shift =
 * [0, 0, -4, 0] so z = [0, 2, 4, -1]; radius [4, 1, 2, 3].
 *   T4(0) = 1, T4(2) = 0.5, T4(4) = 0, T2(-1) = 0.5
 *   S = 1/4 (1 * 4 + 0.5 * 1 + 0 * 2) + 0.5 * 3 = 1.125 + 1.5 = 2.625
 * Scaled radii: divided by 1/4 (4 + 1 + 2) + 3 = 4.75, so S = 2.625 / 4.75.
 * The calibrated Algorithm 2 with a zero shift is Algorithm 2; a shift of +100 puts every gate
 * in its insensitive area: S_o = 0, S = 0.
 */
Test(rt_tissue, sensitivity_and_shift_by_hand)
{
    static const float x[4] = {0, 2, 8, -1}, shift[4] = {0, 0, -4, 0},
                       far[4] = {100, 100, 100, 100};
    static const float zero[4] = {0, 0, 0, 0};
    float r[4] = {4, 1, 2, 3};

    cr_assert_float_eq(lstmc_rt_lstm_sensitivity(1, x, r, shift), 2.625f, 1e-6);
    cr_assert_float_eq(lstmc_rt_lstm_relevance_shifted(1, x, r, zero),
                       lstmc_rt_lstm_relevance(1, x, r), 0);
    cr_assert_eq(lstmc_rt_lstm_relevance_shifted(1, x, r, far), 0.0f);
    lstmc_rt_lstm_sensitivity_scale(1, r);
    cr_assert_float_eq(r[3], 3.0f / 4.75f, 1e-7);
    cr_assert_float_eq(lstmc_rt_lstm_sensitivity(1, x, r, shift), 2.625f / 4.75f, 1e-6);
}

/*
 * Forced breakpoints (max_run, issue 24), by hand: T = 10, one chain, alpha 0, max_run 4, the
 * relevance of the link into step t given (rel): 9 5 3 7 1 8 6 2 4 9.
 *   steps 0..3 make a run of 4; step 4 would be the fifth: cut at the lowest S of steps
 *   (0 + 2, 4] = {3: 7, 4: 1} -> 4. Steps 4..7 make 4; step 8: lowest of {7: 2, 8: 4} -> 7.
 *   Sub-layers {0..3}, {4..6}, {7..9}: cuts before 4 and 7.
 * Without max_run nothing is cut at alpha 0.
 */
Test(rt_tissue, forced_breakpoints_by_hand)
{
    static const float S[10] = {9, 5, 3, 7, 1, 8, 6, 2, 4, 9};
    static float P[10 * 4];
    static int32_t w[4096];
    lstmc_rt_tissue_params tp = lstm_params(10, 1, 1, 1, 0, 0, 8);
    lstmc_rt_tissue_layout l;
    lstmc_rt_tissue_stats st;
    int32_t K, c, cuts[10], nc = 0;

    cr_assert_eq(lstmc_rt_tissue_layout_of(&tp, &l), 0);
    cr_assert_leq(l.words, (int64_t)(sizeof w / sizeof w[0]));
    memset(&st, 0, sizeof st);
    K = lstmc_rt_tissue_plan(&tp, 0, 0.0f, P, NULL, S, NULL, &st, w);
    cr_assert_eq(K, 10);
    cr_assert_eq(st.sub_layers, 1);
    tp.max_run = 4;
    memset(&st, 0, sizeof st);
    K = lstmc_rt_tissue_plan(&tp, 0, 0.0f, P, NULL, S, NULL, &st, w);
    cr_assert_eq(st.sub_layers, 3);
    cr_assert_eq(K, 4, "the longest sub-layer, 4 cells");
    for (c = 0; c < 10; c++)
        if (w[l.cell_flag + c] & LSTMC_RT_TISSUE_CUT_START)
            cuts[nc++] = w[l.cell_t + c];
    cr_assert_eq(nc, 2);
    cr_assert(cuts[0] + cuts[1] == 11 && (cuts[0] == 4 || cuts[0] == 7), "cuts %d %d", cuts[0],
              cuts[1]);
    tp.max_run = -1;
    cr_assert_eq(lstmc_rt_lstm_tissue_scratch(&tp), -1, "a negative max_run is refused");
}

/* --- Fig. 8 ---------------------------------------------------------------------------- */

/*
 * Nine cells 0..8, breakpoints before cells 3, 4 and 7: sub-layers {0,1,2}, {3}, {4,5,6},
 * {7,8}. Formation (b1): tissues {0,3,4,7}, {1,5,8}, {2,6}. Alignment with MTS 3 (b2): tissue
 * 0 is fat, cells 7 and 8 move on: {0,3,4}, {1,5,7}, {2,6,8}.
 */
Test(rt_tissue, fig8_formation_and_alignment)
{
    static const int32_t len[4] = {3, 1, 3, 2};
    static const int32_t formed[9] = {0, 1, 2, 0, 0, 1, 2, 0, 1};
    static const int32_t aligned[9] = {0, 1, 2, 0, 0, 1, 2, 1, 2};
    int32_t tissue[9], work[12];
    int c;

    cr_assert_eq(lstmc_rt_tissue_align_work(4), 12);
    cr_assert_eq(lstmc_rt_tissue_align(4, len, 0, tissue, work), 3);
    for (c = 0; c < 9; c++)
        cr_assert_eq(tissue[c], formed[c], "formation: cell %d in tissue %d", c, tissue[c]);
    cr_assert_eq(lstmc_rt_tissue_align(4, len, 3, tissue, work), 3);
    for (c = 0; c < 9; c++)
        cr_assert_eq(tissue[c], aligned[c], "alignment: cell %d in tissue %d", c, tissue[c]);
    /* Eq. 7: N_min = ceil(9 / 3) = 3 reached; MTS 4 leaves formation's 3 tissues alone */
    cr_assert_eq(lstmc_rt_tissue_align(4, len, 4, tissue, work), 3);
    for (c = 0; c < 9; c++)
        cr_assert_eq(tissue[c], formed[c]);
}

/* Hu's highest-level-first schedule: optimal tissue count for unit-time chains. */
static int
hlf_tissues(int n, const int32_t *len, int mts)
{
    int32_t rem[64];
    int k, i, left = 0;

    for (i = 0; i < n; i++) {
        rem[i] = len[i];
        left += len[i];
    }
    for (k = 0; left > 0; k++) {
        int placed = 0, pick[64] = {0};
        while (placed < mts) {
            int best = -1;
            for (i = 0; i < n; i++)
                if (rem[i] > 0 && !pick[i] && (best < 0 || rem[i] > rem[best]))
                    best = i;
            if (best < 0)
                break;
            pick[best] = 1;
            placed++;
        }
        for (i = 0; i < n; i++)
            if (pick[i]) {
                rem[i]--;
                left--;
            }
    }
    return k;
}

/* Random sub-layer sets: every alignment keeps links (strictly increasing tissues within a
 * sub-layer), respects MTS, and uses the optimal number of tissues. */
Test(rt_tissue, alignment_random_constraints_and_optimum)
{
    uint32_t seed = 12345u;
    int trial;

    for (trial = 0; trial < 3000; trial++) {
        int32_t len[64], tissue[64 * 12], work[3 * 64], count[64 * 12];
        int n, mts, s, k, c, K, total = 0;

        seed = seed * 1664525u + 1013904223u;
        n = 1 + (int)((seed >> 8) % 20);
        mts = 1 + (int)((seed >> 16) % 6);
        for (s = 0; s < n; s++) {
            seed = seed * 1664525u + 1013904223u;
            len[s] = 1 + (int32_t)((seed >> 8) % ((seed >> 20) % 2 ? 3 : 12));
            total += len[s];
        }
        K = lstmc_rt_tissue_align(n, len, mts, tissue, work);
        cr_assert_gt(K, 0);
        memset(count, 0, sizeof count);
        for (s = 0, c = 0; s < n; s++)
            for (k = 0; k < len[s]; k++, c++) {
                cr_assert(tissue[c] >= 0 && tissue[c] < K);
                if (k > 0)
                    cr_assert_gt(tissue[c], tissue[c - 1], "trial %d: a link is broken", trial);
                count[tissue[c]]++;
            }
        for (k = 0; k < K; k++)
            cr_assert(count[k] >= 1 && count[k] <= mts, "trial %d: tissue %d has %d cells", trial,
                      k, count[k]);
        cr_assert_eq(K, hlf_tissues(n, len, mts), "trial %d: %d tissues, optimum %d", trial, K,
                     hlf_tissues(n, len, mts));
        (void)total;
    }
}

Test(rt_tissue, alignment_bad_arguments)
{
    int32_t len[2] = {2, 0}, tissue[4], work[6];

    cr_assert_eq(lstmc_rt_tissue_align(0, NULL, 3, NULL, NULL), 0);
    cr_assert_eq(lstmc_rt_tissue_align(2, len, 3, tissue, work), -1); /* empty sub-layer */
    cr_assert_eq(lstmc_rt_tissue_align(-1, len, 3, tissue, work), -1);
    cr_assert_eq(lstmc_rt_tissue_align(1, len, 3, NULL, work), -1);
}

/* --- execution ------------------------------------------------------------------------- */

typedef struct layer {
    lstmc_rt_tissue_params p;
    float P[2 * T_ * N_ * G_], Ut[2 * H_ * G_], Up[2 * H_ * G_], dsum[2 * G_], Peep[2 * 3 * H_];
    float init_h[2 * N_ * H_], init_c[2 * N_ * H_], h_pred[2 * H_], c_pred[2 * H_];
    int32_t seq[N_];
} layer;

static void
make_layer(layer *L, int64_t N, int dirs, int reverse, int layout, int mts, uint32_t seed)
{
    static const int32_t seq3[N_] = {6, 0, 4};

    memset(L, 0, sizeof *L);
    L->p = lstm_params(T_, N, H_, dirs, reverse, layout, mts);
    fill(L->P, 2 * T_ * N_ * G_, seed, 1.5f);
    fill(L->Ut, 2 * H_ * G_, seed + 1, 0.7f);
    fill(L->Peep, 2 * 3 * H_, seed + 2, 0.5f);
    fill(L->init_h, 2 * N_ * H_, seed + 3, 0.8f);
    fill(L->init_c, 2 * N_ * H_, seed + 4, 0.8f);
    fill(L->h_pred, 2 * H_, seed + 5, 0.5f);
    fill(L->c_pred, 2 * H_, seed + 6, 0.5f);
    row_sums(L->Ut, dirs, H_, L->dsum);
    cr_assert_eq(lstmc_rt_lstm_tissue_pack(dirs, H_, L->Ut, L->Up), LSTMC_RT_OK);
    memcpy(L->seq, seq3, sizeof seq3);
    if (N == 1)
        L->seq[0] = 5;
}

static int64_t
yrow(const lstmc_rt_rnn_params *p, int64_t t, int d, int64_t n)
{
    return (p->layout ? (n * p->seq_len + t) * p->n_dirs + d : (t * p->n_dirs + d) * p->batch + n) *
           p->hidden;
}

static int64_t
srow(const lstmc_rt_rnn_params *p, int d, int64_t n)
{
    return (p->layout ? n * p->n_dirs + d : d * p->batch + n) * p->hidden;
}

static int64_t
prow(const lstmc_rt_rnn_params *p, int64_t t, int64_t n)
{
    return p->layout ? n * p->seq_len + t : t * p->batch + n;
}

static void
run_tissue(const layer *L, float alpha, int use_seq, float *Y, float *Yh, float *Yc,
           lstmc_rt_tissue_stats *st)
{
    int64_t words = lstmc_rt_lstm_tissue_scratch(&L->p);

    cr_assert(words > 0 && words <= (int64_t)(sizeof scratch_buf / sizeof scratch_buf[0]));
    cr_assert_eq(lstmc_rt_lstm_tissue(&L->p, alpha, L->P, L->Up, L->dsum, use_seq ? L->seq : NULL,
                                      L->init_h, L->init_c, L->Peep, L->h_pred, L->c_pred, Y, Yh,
                                      Yc, st, scratch_buf),
                 LSTMC_RT_OK);
}

/*
 * The reference with cuts: every sub-layer (a run of a sequence between cuts, the cuts
 * decided by S < alpha) run on its own by lstmc_rt_rnn_rec, from init_h/init_c when it starts
 * the sequence, else from h_pred/c_pred.
 */
static void
reference(const layer *L, float alpha, int use_seq, float *Y, float *Yh, float *Yc)
{
    const lstmc_rt_rnn_params *p = &L->p.rnn;
    const int64_t T = p->seq_len, N = p->batch, H = p->hidden, G = 4 * H;
    int d, n;

    memset(Y, 0, sizeof(float) * (size_t)(T * p->n_dirs * N * H));
    memset(Yh, 0, sizeof(float) * (size_t)(p->n_dirs * N * H));
    memset(Yc, 0, sizeof(float) * (size_t)(p->n_dirs * N * H));
    for (d = 0; d < p->n_dirs; d++) {
        const int rev = p->n_dirs == 2 ? d : p->reverse;

        for (n = 0; n < N; n++) {
            const int64_t sn = use_seq ? L->seq[n] : T;
            int64_t step0 = 0, step;

            while (step0 < sn) {
                lstmc_rt_rnn_params q = *p;
                float Pq[T_ * G_], Yq[T_ * H_], hq[H_], cq[H_];
                const float *h0, *c0;
                int64_t len = 1, k;

                /* the sub-layer: extend while the next link is kept */
                for (step = step0 + 1; step < sn; step++) {
                    int64_t t = rev ? sn - 1 - step : step;
                    if (lstmc_rt_lstm_relevance(H, L->P + (d * T * N + prow(p, t, n)) * G,
                                                L->dsum + d * G) < alpha)
                        break;
                    len++;
                }
                for (k = 0; k < len; k++) {
                    int64_t t = rev ? sn - 1 - (step0 + k) : step0 + k;
                    memcpy(Pq + k * G, L->P + (d * T * N + prow(p, t, n)) * G,
                           sizeof(float) * (size_t)G);
                }
                h0 = step0 == 0 ? L->init_h + srow(p, d, n) : L->h_pred + d * H;
                c0 = step0 == 0 ? L->init_c + srow(p, d, n) : L->c_pred + d * H;
                q.seq_len = len;
                q.batch = 1;
                q.n_dirs = 1;
                q.reverse = 0;
                q.layout = 0;
                q.act[0] = p->act[3 * d];
                q.act[1] = p->act[3 * d + 1];
                q.act[2] = p->act[3 * d + 2];
                cr_assert_eq(lstmc_rt_rnn_rec(&q, Pq, L->Ut + d * H * G, NULL, NULL, h0, c0,
                                              L->Peep + d * 3 * H, Yq, hq, cq, ref_scratch),
                             LSTMC_RT_OK);
                for (k = 0; k < len; k++) {
                    int64_t t = rev ? sn - 1 - (step0 + k) : step0 + k;
                    memcpy(Y + yrow(p, t, d, n), Yq + k * H, sizeof(float) * (size_t)H);
                }
                memcpy(Yh + srow(p, d, n), hq, sizeof(float) * (size_t)H);
                memcpy(Yc + srow(p, d, n), cq, sizeof(float) * (size_t)H);
                step0 += len;
            }
        }
    }
}

/* alpha 0 == lstmc_rt_rnn_rec: batch 1 and 3, forward / reverse / bidirectional, layouts,
 * with and without sequence_lens (one entry 0), MTS above and below the batch. */
Test(rt_tissue, alpha0_equals_rnn_rec)
{
    static const int cfg[][3] = {{1, 0, 0}, {1, 1, 0}, {2, 0, 0}, {1, 0, 1}, {2, 0, 1}};
    static layer L;
    static float Y[2 * T_ * N_ * H_], Yh[2 * N_ * H_], Yc[2 * N_ * H_];
    static float Yr[2 * T_ * N_ * H_], Yhr[2 * N_ * H_], Ycr[2 * N_ * H_];
    int c, N, mts, use_seq;

    for (c = 0; c < 5; c++)
        for (N = 1; N <= N_; N += 2)
            for (mts = 1; mts <= 8; mts += 7)
                for (use_seq = 0; use_seq < 2; use_seq++) {
                    const int D = cfg[c][0];
                    lstmc_rt_tissue_stats st;
                    int64_t ny = T_ * D * N * H_, ns = D * N * H_, cells = 0, n;

                    make_layer(&L, N, D, cfg[c][1], cfg[c][2], mts, 100u + (uint32_t)c);
                    memset(Y, 0x7f, sizeof Y); /* garbage: every element must be written */
                    memset(Yh, 0x7f, sizeof Yh);
                    memset(Yc, 0x7f, sizeof Yc);
                    run_tissue(&L, 0.0f, use_seq, Y, Yh, Yc, &st);
                    cr_assert_eq(lstmc_rt_rnn_rec(&L.p.rnn, L.P, L.Ut, NULL, use_seq ? L.seq : NULL,
                                                  L.init_h, L.init_c, L.Peep, Yr, Yhr, Ycr,
                                                  ref_scratch),
                                 LSTMC_RT_OK);
                    assert_close(Y, Yr, ny, 1e-6f, "Y");
                    assert_close(Yh, Yhr, ns, 1e-6f, "Y_h");
                    assert_close(Yc, Ycr, ns, 1e-6f, "Y_c");
                    for (n = 0; n < N; n++)
                        cells += use_seq ? L.seq[n] : T_;
                    cr_assert_eq(st.cells, D * cells);
                    cr_assert_eq(st.sub_layers, D * (use_seq && N == 3 ? N - 1 : N),
                                 "one sub-layer per non-empty sequence");
                    if (mts >= N) /* the batched schedule: tissue k = step k of every entry */
                        cr_assert_eq(st.tissues, D * (use_seq ? L.seq[0] : T_));
                    else
                        cr_assert_eq(st.tissues, D * cells);
                }
}

/* The exact kernel's other attributes: clip, input_forget, other activations. */
Test(rt_tissue, alpha0_equals_rnn_rec_attributes)
{
    static layer L;
    static float Y[2 * T_ * N_ * H_], Yh[2 * N_ * H_], Yc[2 * N_ * H_];
    static float Yr[2 * T_ * N_ * H_], Yhr[2 * N_ * H_], Ycr[2 * N_ * H_];

    make_layer(&L, N_, 2, 0, 0, 2, 9u);
    L.p.rnn.has_clip = 1;
    L.p.rnn.clip = 0.6f;
    L.p.rnn.input_forget = 1;
    L.p.rnn.act[3].kind = LSTMC_RT_ACT_HARD_SIGMOID;
    L.p.rnn.act[3].alpha = 0.2f;
    L.p.rnn.act[3].beta = 0.5f;
    L.p.rnn.act[4].kind = LSTMC_RT_ACT_SOFTSIGN;
    run_tissue(&L, 0.0f, 1, Y, Yh, Yc, NULL);
    cr_assert_eq(lstmc_rt_rnn_rec(&L.p.rnn, L.P, L.Ut, NULL, L.seq, L.init_h, L.init_c, L.Peep, Yr,
                                  Yhr, Ycr, ref_scratch),
                 LSTMC_RT_OK);
    assert_close(Y, Yr, 2 * T_ * N_ * H_, 1e-6f, "Y");
    assert_close(Yh, Yhr, 2 * N_ * H_, 1e-6f, "Y_h");
    assert_close(Yc, Ycr, 2 * N_ * H_, 1e-6f, "Y_c");
}

/* alpha NaN or negative cuts nothing either; without row_abs_sum alpha > 0 is an error. */
Test(rt_tissue, alpha_nan_and_negative_cut_nothing)
{
    static layer L;
    static float Y[2 * T_ * N_ * H_], Yh[2 * N_ * H_], Yc[2 * N_ * H_];
    lstmc_rt_tissue_stats st;

    make_layer(&L, N_, 1, 0, 0, 8, 3u);
    run_tissue(&L, NAN, 0, Y, Yh, Yc, &st);
    cr_assert_eq(st.sub_layers, N_);
    run_tissue(&L, -1.0f, 0, Y, Yh, Yc, &st);
    cr_assert_eq(st.sub_layers, N_);
    cr_assert_eq(st.links, N_ * (T_ - 1));
    cr_assert_eq(lstmc_rt_lstm_tissue(&L.p, 0.0f, L.P, L.Up, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL, Y, Yh, Yc, NULL, scratch_buf),
                 LSTMC_RT_OK);
    cr_assert_eq(lstmc_rt_lstm_tissue(&L.p, 0.5f, L.P, L.Up, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL, Y, Yh, Yc, NULL, scratch_buf),
                 LSTMC_RT_ERR_NULL);
}

/* Cuts at a threshold between the smallest and the largest S: the tissues give the same
 * numbers as each sub-layer run alone, with MTS forcing alignment. */
Test(rt_tissue, cuts_equal_sub_layers_run_alone)
{
    static const int cfg[][3] = {{1, 0, 0}, {1, 1, 1}, {2, 0, 0}, {2, 0, 1}};
    static layer L;
    static float Y[2 * T_ * N_ * H_], Yh[2 * N_ * H_], Yc[2 * N_ * H_];
    static float Yr[2 * T_ * N_ * H_], Yhr[2 * N_ * H_], Ycr[2 * N_ * H_];
    int c, mts, use_seq;

    for (c = 0; c < 4; c++)
        for (mts = 1; mts <= 4; mts++)
            for (use_seq = 0; use_seq < 2; use_seq++) {
                const int D = cfg[c][0];
                lstmc_rt_tissue_stats st;
                float lo = INFINITY, hi = 0.0f, alpha;
                int64_t r, ny = T_ * D * N_ * H_, ns = D * N_ * H_;

                make_layer(&L, N_, D, cfg[c][1], cfg[c][2], mts, 200u + (uint32_t)c);
                for (r = 0; r < D * T_ * N_; r++) {
                    float s =
                        lstmc_rt_lstm_relevance(H_, L.P + r * G_, L.dsum + (r / (T_ * N_)) * G_);
                    lo = s < lo ? s : lo;
                    hi = s > hi ? s : hi;
                }
                alpha = 0.5f * (lo + hi);
                run_tissue(&L, alpha, use_seq, Y, Yh, Yc, &st);
                reference(&L, alpha, use_seq, Yr, Yhr, Ycr);
                assert_close(Y, Yr, ny, 1e-6f, "Y");
                assert_close(Yh, Yhr, ns, 1e-6f, "Y_h");
                assert_close(Yc, Ycr, ns, 1e-6f, "Y_c");
                cr_assert_gt(st.sub_layers, D * N_, "some links are cut");
                cr_assert_lt(st.sub_layers, st.cells, "some links are kept");
                cr_assert_geq(st.tissues * mts, st.cells, "no tissue above MTS");
            }
}

/* A huge alpha cuts every link: every cell but a sequence's first is one step from
 * (h_pred, c_pred), checked against the reference and against stats. */
Test(rt_tissue, large_alpha_cuts_every_link)
{
    static layer L;
    static float Y[2 * T_ * N_ * H_], Yh[2 * N_ * H_], Yc[2 * N_ * H_];
    static float Yr[2 * T_ * N_ * H_], Yhr[2 * N_ * H_], Ycr[2 * N_ * H_];
    lstmc_rt_tissue_stats st;

    make_layer(&L, N_, 2, 0, 0, 4, 77u);
    run_tissue(&L, 1e30f, 1, Y, Yh, Yc, &st);
    reference(&L, 1e30f, 1, Yr, Yhr, Ycr);
    assert_close(Y, Yr, 2 * T_ * N_ * H_, 1e-6f, "Y");
    assert_close(Yh, Yhr, 2 * N_ * H_, 1e-6f, "Y_h");
    assert_close(Yc, Ycr, 2 * N_ * H_, 1e-6f, "Y_c");
    cr_assert_eq(st.sub_layers, st.cells);
    cr_assert_eq(st.cells, 2 * (6 + 0 + 4));
    cr_assert_eq(st.tissues, (st.cells / 2 + 3) / 4 * 2, "ceil(10 / MTS 4) per direction");
}

/*
 * One cell after a breakpoint, by hand. H = 1, T = 2, N = 1, forward, sigmoid/tanh/tanh; every
 * link cut. Cell t = 1 starts from h_pred = 0.5, c_pred = -1 with P row (i o f c) =
 * [0.5, 1.0, -0.5, 0.25] and Ut = [0.2, -0.4, 0.6, 1.0]:
 *   gates = P + 0.5 * Ut = [0.6, 0.8, -0.2, 0.75]
 *   i = s(0.6) = 0.645656306, o = s(0.8) = 0.689974481, f = s(-0.2) = 0.450166003,
 *   c~ = tanh(0.75) = 0.635148952
 *   c = f * (-1) + i * c~ = -0.040078076,  h = o * tanh(c) = -0.027638054
 */
Test(rt_tissue, cell_after_breakpoint_by_hand)
{
    lstmc_rt_tissue_params p = lstm_params(2, 1, 1, 1, 0, 0, 3);
    static const float P[8] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 1.0f, -0.5f, 0.25f};
    static const float Ut[4] = {0.2f, -0.4f, 0.6f, 1.0f}; /* H = 1: its own panel layout */
    static const float dsum[4] = {0.2f, 0.4f, 0.6f, 1.0f};
    const float h_pred = 0.5f, c_pred = -1.0f;
    float Y[2], Yh, Yc;
    lstmc_rt_tissue_stats st;

    cr_assert_eq(lstmc_rt_lstm_tissue(&p, 1e30f, P, Ut, dsum, NULL, NULL, NULL, NULL, &h_pred,
                                      &c_pred, Y, &Yh, &Yc, &st, scratch_buf),
                 LSTMC_RT_OK);
    cr_assert_float_eq(Yc, -0.040078076f, 1e-6);
    cr_assert_float_eq(Yh, -0.027638054f, 1e-6);
    cr_assert_float_eq(Y[1], Yh, 0);
    cr_assert_eq(st.sub_layers, 2);
    cr_assert_eq(st.tissues, 1, "two independent cells share one tissue");
    /* without calibration the cell starts from zero: gates = P row */
    cr_assert_eq(lstmc_rt_lstm_tissue(&p, 1e30f, P, Ut, dsum, NULL, NULL, NULL, NULL, NULL, NULL, Y,
                                      &Yh, &Yc, NULL, scratch_buf),
                 LSTMC_RT_OK);
    {
        float i = 1.0f / (1.0f + expf(-0.5f)), o = 1.0f / (1.0f + expf(-1.0f));
        float c = i * tanhf(0.25f);
        cr_assert_float_eq(Yc, c, 1e-6);
        cr_assert_float_eq(Yh, o * tanhf(c), 1e-6);
    }
}

Test(rt_tissue, bad_params)
{
    static layer L;
    static float Y[2 * T_ * N_ * H_];
    int32_t bad_seq[N_] = {1, 7, 2};
    lstmc_rt_tissue_params q;

    make_layer(&L, N_, 1, 0, 0, 4, 5u);
    q = L.p;
    q.mts = 0;
    cr_assert_eq(lstmc_rt_lstm_tissue_scratch(&q), -1);
    cr_assert_eq(lstmc_rt_lstm_tissue(&q, 0.0f, L.P, L.Up, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                      Y, NULL, NULL, NULL, scratch_buf),
                 LSTMC_RT_ERR_BAD_PARAMS);
    q = L.p;
    q.rnn.cell = LSTMC_RT_CELL_GRU;
    cr_assert_eq(lstmc_rt_lstm_tissue_scratch(&q), -1);
    q = L.p;
    q.rnn.packed = 0;
    cr_assert_eq(lstmc_rt_lstm_tissue_scratch(&q), -1);
    cr_assert_eq(lstmc_rt_lstm_tissue_scratch(NULL), -1);
    cr_assert_eq(lstmc_rt_lstm_tissue(NULL, 0.0f, L.P, L.Up, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL, Y, NULL, NULL, NULL, scratch_buf),
                 LSTMC_RT_ERR_NULL);
    cr_assert_eq(lstmc_rt_lstm_tissue(&L.p, 0.0f, L.P, L.Up, NULL, bad_seq, NULL, NULL, NULL, NULL,
                                      NULL, Y, NULL, NULL, NULL, scratch_buf),
                 LSTMC_RT_ERR_SEQ_LEN);
    cr_assert_eq(lstmc_rt_lstm_tissue(&L.p, 0.0f, NULL, L.Up, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL, Y, NULL, NULL, NULL, scratch_buf),
                 LSTMC_RT_ERR_NULL);
}

/* The panel layout of U, element by element: H = 5, 4H = 20 = one panel of 16 columns then
 * a narrow one of 4; element (k, g) of panel g0 (width w) sits at g0 * H + k * w + g - g0. */
Test(rt_tissue, pack_panels)
{
    float Ut[2 * 5 * 20], Up[2 * 5 * 20];
    int d, k, g;

    for (d = 0; d < 2; d++)
        for (k = 0; k < 5; k++)
            for (g = 0; g < 20; g++)
                Ut[(d * 5 + k) * 20 + g] = (float)(1000 * d + 100 * k + g);
    cr_assert_eq(lstmc_rt_lstm_tissue_pack(2, 5, Ut, Up), LSTMC_RT_OK);
    for (d = 0; d < 2; d++)
        for (k = 0; k < 5; k++)
            for (g = 0; g < 20; g++) {
                int off = g < 16 ? k * 16 + g : 16 * 5 + k * 4 + (g - 16);
                cr_assert_eq(Up[d * 100 + off], (float)(1000 * d + 100 * k + g));
            }
    cr_assert_eq(lstmc_rt_lstm_tissue_pack(3, 5, Ut, Up), LSTMC_RT_ERR_BAD_PARAMS);
    cr_assert_eq(lstmc_rt_lstm_tissue_pack(1, 5, NULL, Up), LSTMC_RT_ERR_NULL);
}

/* The register-blocked product (4 cells x 16 columns, then the remainders): H = 5 and 8,
 * batch 6, bidirectional, MTS 8, 5 and 3 — alpha 0 still equals lstmc_rt_rnn_rec. */
Test(rt_tissue, alpha0_blocked_product_equals_rnn_rec)
{
    enum { T = 4, N = 6, HM = 8 };
    static float P[2 * T * N * 4 * HM], Ut[2 * HM * 4 * HM], Up[2 * HM * 4 * HM];
    static float Peep[2 * 3 * HM], h0[2 * N * HM], c0[2 * N * HM];
    static float Y[T * 2 * N * HM], Yh[2 * N * HM], Yc[2 * N * HM];
    static float Yr[T * 2 * N * HM], Yhr[2 * N * HM], Ycr[2 * N * HM];
    static const int32_t seq[N] = {4, 3, 4, 1, 2, 4};
    static const int hs[2] = {5, 8}, mtss[3] = {8, 5, 3};
    int hi, mi;

    for (hi = 0; hi < 2; hi++)
        for (mi = 0; mi < 3; mi++) {
            const int64_t H = hs[hi];
            lstmc_rt_tissue_params p = lstm_params(T, N, H, 2, 0, 0, mtss[mi]);
            int64_t words = lstmc_rt_lstm_tissue_scratch(&p);

            fill(P, 2 * T * N * 4 * H, 31u, 1.5f);
            fill(Ut, 2 * H * 4 * H, 32u, 0.5f);
            fill(Peep, 2 * 3 * H, 33u, 0.5f);
            fill(h0, 2 * N * H, 34u, 0.5f);
            fill(c0, 2 * N * H, 35u, 0.5f);
            cr_assert_eq(lstmc_rt_lstm_tissue_pack(2, H, Ut, Up), LSTMC_RT_OK);
            cr_assert(words > 0 && words <= (int64_t)(sizeof scratch_buf / sizeof scratch_buf[0]));
            cr_assert_eq(lstmc_rt_lstm_tissue(&p, 0.0f, P, Up, NULL, seq, h0, c0, Peep, NULL, NULL,
                                              Y, Yh, Yc, NULL, scratch_buf),
                         LSTMC_RT_OK);
            cr_assert_eq(
                lstmc_rt_rnn_rec(&p.rnn, P, Ut, NULL, seq, h0, c0, Peep, Yr, Yhr, Ycr, ref_scratch),
                LSTMC_RT_OK);
            assert_close(Y, Yr, T * 2 * N * H, 1e-6f, "Y");
            assert_close(Yh, Yhr, 2 * N * H, 1e-6f, "Y_h");
            assert_close(Yc, Ycr, 2 * N * H, 1e-6f, "Y_c");
        }
}
