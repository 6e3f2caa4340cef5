/*
 * test_elstm_hsparse.c — E-LSTM hidden-state sparsity on the CPU (§3.2.2, §4.4): the
 * runtime product against a direct computation, skipped columns never read, a whole LSTM
 * layer against an independent double-precision LSTM that prunes h the same way, and the
 * pass (thresholds per layer, the combinations it refuses).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "helpers.h"
#include "ir.h"
#include "internal/testing.h" /* runtime/src/internal: the runtime's test hooks */
#include "options.h"
#include "passes.h"
#include "target.h"

static uint64_t seed = 99;
static float
frand(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (float)((double)(seed >> 11) / 9007199254740992.0 * 2 - 1);
}

/* 1 when group j (h[4j..4j+3] within H) is pruned at threshold th. */
static int
pruned(const float *h, int H, int j, float th)
{
    double s = 0;
    int k;
    for (k = 4 * j; k < 4 * j + 4 && k < H; k++)
        s += fabs(h[k]);
    return s < th;
}

Test(hsparse, product_skips_and_never_reads_pruned_columns)
{
    enum { H = 13, G = 4 * H };
    float h[H], Rt[H * G], R[G * H], gates[G], want[G];
    static const float ths[] = {0.0f, 0.5f, 1.2f, 2.0f, 100.0f};
    size_t i;
    int k, g, packed;
    for (i = 0; i < sizeof ths / sizeof ths[0]; i++) {
        for (k = 0; k < H; k++)
            h[k] = frand() * (k < 4 ? 0.05f : 1.0f); /* group 0 small */
        for (k = 0; k < H * G; k++)
            Rt[k] = frand();
        for (g = 0; g < G; g++)
            for (k = 0; k < H; k++)
                R[g * H + k] = Rt[k * G + g];
        for (g = 0; g < G; g++) {
            double s = 0.25;
            for (k = 0; k < H; k++)
                if (!pruned(h, H, k / 4, ths[i]))
                    s += (double)h[k] * Rt[k * G + g];
            want[g] = (float)s;
        }
        /* pruned columns of U hold NaN: reading one would show */
        for (k = 0; k < H; k++)
            if (pruned(h, H, k / 4, ths[i]))
                for (g = 0; g < G; g++)
                    Rt[k * G + g] = R[g * H + k] = NAN;
        for (packed = 0; packed < 2; packed++) {
            /* a slice of the gate rows too (col0, n), as the GRU path calls it */
            for (g = 0; g < G; g++)
                gates[g] = 0.25f;
            if (ths[i] > 0) {
                lstmc_rt_hsparse_accumulate(h, packed ? Rt : R, H, G, 0, 20, packed, ths[i],
                                            gates);
                lstmc_rt_hsparse_accumulate(h, packed ? Rt : R, H, G, 20, G - 20, packed,
                                            ths[i], gates + 20);
                for (g = 0; g < G; g++)
                    cr_assert_float_eq(gates[g], want[g], 1e-5f, "th %g packed %d gate %d",
                                       ths[i], packed, g);
            }
        }
    }
}

/* A forward LSTM over T steps from P (projections + biases, [T, N, 4H]) and U' = R packed
 * transposed [H, 4H], in double, with the recurrent product seeing pruned groups as 0. */
static void
lstm_ref(int T, int N, int H, const float *P, const float *Rt, float th, float *Y)
{
    double h[64], c[64], hp[64];
    int t, n, j, k, G = 4 * H;
    for (n = 0; n < N; n++) {
        memset(h, 0, sizeof h);
        memset(c, 0, sizeof c);
        for (t = 0; t < T; t++) {
            float hf[64];
            for (k = 0; k < H; k++)
                hf[k] = (float)h[k];
            for (k = 0; k < H; k++)
                hp[k] = pruned(hf, H, k / 4, th) ? 0.0 : h[k];
            for (j = 0; j < H; j++) {
                double gi = P[(t * N + n) * G + j], go = P[(t * N + n) * G + H + j];
                double gf = P[(t * N + n) * G + 2 * H + j], gc = P[(t * N + n) * G + 3 * H + j];
                for (k = 0; k < H; k++) {
                    gi += hp[k] * Rt[k * G + j];
                    go += hp[k] * Rt[k * G + H + j];
                    gf += hp[k] * Rt[k * G + 2 * H + j];
                    gc += hp[k] * Rt[k * G + 3 * H + j];
                }
                gi = 1 / (1 + exp(-gi));
                gf = 1 / (1 + exp(-gf));
                go = 1 / (1 + exp(-go));
                c[j] = gf * c[j] + gi * tanh(gc);
                Y[(t * N + n) * H + j] = (float)(go * tanh(c[j]));
            }
            for (j = 0; j < H; j++)
                h[j] = Y[(t * N + n) * H + j];
        }
    }
}

Test(hsparse, lstm_layer_matches_pruning_reference)
{
    enum { T = 6, N = 2, H = 10, G = 4 * H };
    float P[T * N * G], Rt[H * G], Y[T * N * H], want[T * N * H], Y0[T * N * H];
    static float scratch[1024];
    lstmc_rt_rnn_params p;
    static const float ths[] = {0.3f, 0.8f, 1.5f};
    size_t i;
    int k;
    for (k = 0; k < T * N * G; k++)
        P[k] = 2 * frand();
    for (k = 0; k < H * G; k++)
        Rt[k] = 1.5f * frand();
    memset(&p, 0, sizeof p);
    p.cell = LSTMC_RT_CELL_LSTM;
    p.seq_len = T;
    p.batch = N;
    p.hidden = H;
    p.n_dirs = 1;
    p.packed = 1;
    p.act[0].kind = LSTMC_RT_ACT_SIGMOID;
    p.act[1].kind = p.act[2].kind = LSTMC_RT_ACT_TANH;
    cr_assert_leq(lstmc_rt_rnn_scratch(&p), 1024);
    cr_assert_eq(lstmc_rt_rnn_rec(&p, P, Rt, NULL, NULL, NULL, NULL, NULL, Y0, NULL, NULL,
                                  scratch),
                 LSTMC_RT_OK);
    for (i = 0; i < sizeof ths / sizeof ths[0]; i++) {
        int differs = 0;
        p.hsparse_th = ths[i];
        cr_assert_eq(lstmc_rt_rnn_rec(&p, P, Rt, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL,
                                      scratch),
                     LSTMC_RT_OK);
        lstm_ref(T, N, H, P, Rt, ths[i], want);
        for (k = 0; k < T * N * H; k++) {
            cr_assert_float_eq(Y[k], want[k], 2e-5f, "th %g element %d", ths[i], k);
            differs += Y[k] != Y0[k];
        }
        cr_assert_gt(differs, 0, "th %g pruned nothing", ths[i]); /* the test has teeth */
    }
    /* a threshold below every non-zero group: only the zero h_0 is skipped, bit-exact */
    p.hsparse_th = 1e-30f;
    cr_assert_eq(lstmc_rt_rnn_rec(&p, P, Rt, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL,
                                  scratch),
                 LSTMC_RT_OK);
    cr_assert_arr_eq(Y, Y0, sizeof Y);
}

static int
run_passes(const char *c, const char *list, const char *hs, diag *d, ir_graph **gp, arena *a)
{
    const void *inputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, c, d, inputs);
    pass_ctx cx;
    cr_assert_not_null(g);
    memset(&cx, 0, sizeof cx);
    cx.t = target_find("host");
    if (hs) { /* the option's text is parsed once, before the passes (driver/options.c) */
        char err[256];
        if (options_parse_hsparse(hs, &cx.hsparse, err, sizeof err) < 0) {
            diag_error(d, "%s", err);
            return -1;
        }
    }
    *gp = g;
    return pass_run_list(g, list, &cx, d);
}

Test(hsparse, pass_sets_thresholds_per_layer)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "t", NULL);
    ir_graph *g;
    const ir_node *r0, *r1;
    cr_assert_eq(run_passes("pt_har_lstm", "split_gates,fold_constants,hsparse", "0.1,0.25", d,
                            &g, a),
                 0, "%s", diag_text(d));
    r0 = helpers_find_op(g, IR_OP_RNN_REC, 0);
    r1 = helpers_find_op(g, IR_OP_RNN_REC, 1);
    cr_assert(r0 && r1);
    cr_assert_float_eq(ir_attr_float(r0, "hsparse_th", -1), 0.1f, 1e-9f);
    cr_assert_float_eq(ir_attr_float(r1, "hsparse_th", -1), 0.25f, 1e-9f);
    arena_free(a);
}

Test(hsparse, pass_refuses)
{
    static const struct { const char *list, *th, *msg; } bad[] = {
        {"split_gates,fold_constants,hsparse", "0.1,0.2,0.3", "2 LSTM layers"},
        {"split_gates,fold_constants,hsparse", "0.1,x", "thresholds >= 0"},
        {"split_gates,fold_constants,hsparse", "-1", "thresholds >= 0"},
        {"fold_constants,hsparse", "0.1", "needs the split_gates pass"},
        {"split_gates,fold_constants,breakpoints,hsparse", "0.1", "tissue schedule"},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        arena *a = arena_new(0);
        diag *d = diag_new(a, "t", NULL);
        ir_graph *g;
        cr_assert_eq(run_passes("pt_har_lstm", bad[i].list, bad[i].th, d, &g, a), -1, "%zu", i);
        cr_assert_not_null(strstr(diag_text(d), bad[i].msg), "%zu: %s", i, diag_text(d));
        arena_free(a);
    }
}
