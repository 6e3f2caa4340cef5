/*
 * test_elstm.c — the elstm accelerator target: Eq. 6 against values worked by hand, the
 * N_fuse choice against a brute-force minimum of an independent Eq. 6/7, the cycle model
 * against Eq. 6 on streams Eq. 6 describes exactly, the shape of Fig. 10, and the emitted
 * RoCC program decoded back to the model's weights.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "elstm.h"
#include "esell.h"
#include "helpers.h"
#include "ir.h"
#include "outdir.h"

/* PTB-LSTM1 (Table 2: 800/800, ts 35, Spw 0.2, Spu 0.5, Sph 0.56) on 3 PEs, by hand:
 *   T_wx = 800*800*0.8 = 512000, T_uh = 800*800*0.5 = 320000 (Sph 0), 140800 (Sph 0.56)
 *   N_fuse 1, Sph 0: 512000 + 17*(512000 + 2*320000) + 1*320000 = 20416000
 *   N_fuse 1:        512000 + 17*(512000 + 2*140800) + 140800 = 14144000
 *   N_fuse 2:        1024000 + 8*(1024000 + (563200 - 512000)) + 3*140800 = 10048000
 *   N_fuse 3:        1536000 + 5*1536000 + 5*140800 = 9920000   (the minimum)
 *   N_fuse 4:        2048000 + 4*2048000 + 3*140800 = 10662400 */
Test(elstm, eq6_by_hand)
{
    const elstm_profile *p = &elstm_default_profile;
    elstm_layer l = {800, 800, 35, 0.2, 0.5, 0.0};
    double t;
    cr_assert_float_eq(elstm_eq6(p, &l, 1, NULL), 20416000.0, 1e-3);
    l.sph = 0.56;
    cr_assert_float_eq(elstm_eq6(p, &l, 1, NULL), 14144000.0, 1e-3);
    cr_assert_float_eq(elstm_eq6(p, &l, 2, NULL), 10048000.0, 1e-3);
    cr_assert_float_eq(elstm_eq6(p, &l, 3, NULL), 9920000.0, 1e-3);
    cr_assert_float_eq(elstm_eq6(p, &l, 4, NULL), 10662400.0, 1e-3);
    cr_assert_eq(elstm_choose_nfuse(p, &l, &t), 3);
    cr_assert_float_eq(t, 9920000.0, 1e-3);
}

/* Eq. 6 and Eq. 7 written again from the paper, term by term, in integers where they are. */
static double
eq6_again(int npe, double twx, double tuh, long ts, long nf)
{
    long k = (npe - 1) * nf;
    double prolog = twx * nf;
    double iter = prolog + fmax(0, tuh * nf * (npe - 1) - prolog * (nf - 1) / nf);
    long groups = ts / k + (ts % k != 0);
    return prolog + (double)(groups - 1) * iter + (double)((ts - 1) % k + 1) * tuh;
}

static uint64_t seed = 12345;
static double
urand(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (double)(seed >> 11) / 9007199254740992.0;
}

Test(elstm, nfuse_is_brute_force_minimum)
{
    int trial, none = 0, bound = 0;
    for (trial = 0; trial < 2000; trial++) {
        elstm_profile p = elstm_default_profile;
        elstm_layer l;
        double twx, tuh, best_t = 0, t;
        long nf, best = 0;
        int got;
        p.n_pe = 2 + (int)(urand() * 7);
        p.buf_x = 256 + (int64_t)(urand() * 100000);
        p.buf_wx = 1024 + (int64_t)(urand() * 400000);
        l.x = 1 + (int64_t)(urand() * 2000);
        l.h = 1 + (int64_t)(urand() * 2000);
        l.ts = 1 + (int64_t)(urand() * 120);
        l.spw = urand() * 0.95;
        l.spu = urand() * 0.95;
        l.sph = urand() * 0.9;
        twx = (double)l.x * (double)l.h * (1 - l.spw);
        tuh = (double)l.h * (double)l.h * (1 - l.spu) * (1 - l.sph);
        /* every N_fuse from 1 to ts, feasible or not; Eq. 7 decides */
        for (nf = 1; nf <= l.ts; nf++) {
            if (nf * p.n_pe > l.ts || nf * p.n_pe * l.x > p.buf_x ||
                nf * p.n_pe * 4 * l.h > p.buf_wx)
                continue;
            t = eq6_again(p.n_pe, twx, tuh, l.ts, nf);
            if (!best || t < best_t * (1 - 1e-12)) {
                best = nf;
                best_t = t;
            }
        }
        got = elstm_choose_nfuse(&p, &l, &t);
        if (!best) {
            cr_assert_eq(got, 0, "trial %d: nothing is feasible, chose %d", trial, got);
            none++;
            continue;
        }
        /* the same minimum (an equal T elsewhere would be a tie, not an error) */
        cr_assert_float_eq(t, best_t, 1e-9 * best_t, "trial %d: T %g vs %g", trial, t, best_t);
        cr_assert(elstm_feasible(&p, &l, got));
        if (got == best)
            bound += (best + 1) * p.n_pe <= l.ts; /* the buffers, not ts, stopped the search */
        else
            cr_assert_float_eq(eq6_again(p.n_pe, twx, tuh, l.ts, got), best_t,
                               1e-9 * best_t, "trial %d: %d vs %ld", trial, got, best);
    }
    /* the trials cover infeasible layers and interior minima */
    cr_assert_gt(none, 10);
    cr_assert_gt(bound, 10);
}

/* A stream Eq. 6 describes exactly: W of twx words, U of ncols columns of cw words each,
 * `kept` of them loaded at every step. */
static int64_t
ideal_sim(const elstm_profile *p, int64_t twx, int ncols, int64_t cw, int kept, int64_t ts,
          int nf)
{
    int64_t *cols = malloc((size_t)ncols * sizeof *cols), c;
    unsigned char *keep = malloc((size_t)(ts * ncols));
    elstm_sim_layer l;
    int64_t t, r;
    cr_assert(cols && keep);
    for (c = 0; c < ncols; c++)
        cols[c] = cw;
    for (t = 0; t < ts; t++)
        for (c = 0; c < ncols; c++)
            keep[t * ncols + c] = ((c + t) % ncols) < kept;
    l.ts = ts;
    l.w_words = twx;
    l.n_ucols = ncols;
    l.u_col_words = cols;
    l.u_keep = keep;
    r = elstm_simulate(p, &l, nf, NULL);
    free(cols);
    free(keep);
    return r;
}

Test(elstm, cycle_model_agrees_with_eq6)
{
    static const struct { int64_t twx; int ncols; int64_t cw; int kept; int64_t ts; } c[] = {
        {4000, 32, 50, 20, 28}, {20000, 32, 300, 32, 35}, {1000, 64, 100, 30, 35},
        {9000, 16, 80, 9, 40},  {500, 8, 400, 8, 24},
    };
    const elstm_profile *p = &elstm_default_profile;
    size_t i;
    int nf;
    for (i = 0; i < sizeof c / sizeof c[0]; i++)
        for (nf = 1; nf * p->n_pe <= c[i].ts; nf++) {
            double want = eq6_again(p->n_pe, (double)c[i].twx,
                                    (double)(c[i].cw * c[i].kept), c[i].ts, nf);
            int64_t got = ideal_sim(p, c[i].twx, c[i].ncols, c[i].cw, c[i].kept, c[i].ts, nf);
            /* a few cycles per phase to fill the one-word registers */
            cr_assert(fabs((double)got - want) <= 0.005 * want + 4.0 * c[i].ts,
                      "case %zu N_fuse %d: model %lld, Eq. 6 %.0f", i, nf, (long long)got,
                      want);
        }
}

/* Fig. 10 on the MNIST and PTB layers of Table 2 with eSELL streams of random matrices. */
static void
fig10(int x, int h, int ts, double spw, double spu, double sph, double *s_h, double *s_all)
{
    arena *a = arena_new(0);
    float *w = malloc((size_t)(4 * h * x) * sizeof *w), *u = malloc((size_t)(4 * h * h) * 4);
    esell ew, eu;
    elstm_sim_layer l0, l1;
    elstm_layer l = {x, h, ts, spw, spu, sph};
    int64_t i, c0, c1, c2;
    int nf;
    cr_assert(a && w && u);
    for (i = 0; i < 4 * h * x; i++)
        w[i] = urand() < spw ? 0.0f : 1.0f;
    for (i = 0; i < 4 * h * h; i++)
        u[i] = urand() < spu ? 0.0f : 1.0f;
    cr_assert_eq(esell_encode(a, w, 4 * h, x, &ew), 0);
    cr_assert_eq(esell_encode(a, u, 4 * h, h, &eu), 0);
    cr_assert_eq(elstm_sim_prepare(a, &ew, &eu, ts, 0, 1, &l0), 0);
    cr_assert_eq(elstm_sim_prepare(a, &ew, &eu, ts, sph, 2, &l1), 0);
    nf = elstm_choose_nfuse(&elstm_default_profile, &l, NULL);
    cr_assert_gt(nf, 1);
    c0 = elstm_simulate(&elstm_default_profile, &l0, 1, NULL);
    c1 = elstm_simulate(&elstm_default_profile, &l1, 1, NULL);
    c2 = elstm_simulate(&elstm_default_profile, &l1, nf, NULL);
    *s_h = (double)c0 / (double)c1;
    *s_all = (double)c0 / (double)c2;
    free(w);
    free(u);
    arena_free(a);
}

Test(elstm, fig10_shape)
{
    double h[4], all[4];
    int i, n = 4;
    fig10(28, 128, 28, 0.3, 0.5, 0.22, &h[0], &all[0]);
    fig10(128, 128, 28, 0.2, 0.4, 0.29, &h[1], &all[1]);
#ifdef __SANITIZE_ADDRESS__
    n = 2; /* the PTB layers are ~80 M simulated cycles: the normal build checks them */
#else
    fig10(800, 800, 35, 0.2, 0.5, 0.56, &h[2], &all[2]);
    fig10(800, 800, 35, 0.2, 0.6, 0.41, &h[3], &all[3]);
#endif
    for (i = 0; i < n; i++) {
        /* each optimisation helps; the paper's range is 1.4x-2.2x */
        cr_assert_gt(h[i], 1.1, "layer %d: sparse h %.2f", i, h[i]);
        cr_assert_gt(all[i], h[i] * 1.05, "layer %d: %.2f vs %.2f", i, all[i], h[i]);
        cr_assert(all[i] > 1.25 && all[i] < 2.6, "layer %d: %.2f", i, all[i]);
    }
    /* PTB-LSTM1, of the largest Sph, gains most; fusion adds least on MNIST-LSTM1 */
    for (i = 0; i < n && n == 4; i++)
        if (i != 2)
            cr_assert_gt(all[2], all[i]);
    for (i = 1; i < n; i++)
        cr_assert_lt(all[0] / h[0], all[i] / h[i]);
}

Test(elstm, schedule_order)
{
    elstm_layer l = {16, 16, 35, 0, 0, 0};
    uint64_t s[512];
    int nf, npe = 3;
    for (nf = 1; nf <= 11; nf++) {
        int64_t n = elstm_schedule(2, &l, nf, npe, s), i, k = (npe - 1) * nf, wx = 0;
        int64_t covered_to = 0, next_uh = 0, loaded = 0;
        cr_assert_lt(n, 512);
        cr_assert_eq(s[0] >> 56, ELSTM_CFG_LAYER);
        cr_assert_eq(s[1], ELSTM_CMD(ELSTM_CFG_FUSE, 2, nf, npe));
        for (i = 2; i < n; i++) {
            uint64_t op = s[i] >> 56, a = s[i] >> 24 & 0xffffff, b = s[i] & 0xffffff;
            cr_assert_eq(s[i] >> 48 & 0xff, 2);
            if (op == ELSTM_LOAD_X) {
                cr_assert_eq(a, (uint64_t)loaded++);
            } else if (op == ELSTM_WX) {
                /* groups of (N_pe - 1) * N_fuse steps in order, x loaded first */
                cr_assert_eq(a, (uint64_t)covered_to);
                cr_assert_eq(b, (uint64_t)(35 - covered_to < k ? 35 - covered_to : k));
                covered_to += (int64_t)b;
                cr_assert_eq(loaded, covered_to);
                wx++;
            } else if (op == ELSTM_UH) {
                /* in order, after its W x; at most one group behind W x */
                cr_assert_eq(a, (uint64_t)next_uh++);
                cr_assert_lt(a, (uint64_t)covered_to);
                cr_assert(covered_to == 35 || (int64_t)a >= covered_to - 2 * k);
                cr_assert_eq(s[i + 1], ELSTM_CMD(ELSTM_STORE_H, 2, a, 0));
            }
        }
        cr_assert_eq(next_uh, 35);
        cr_assert_eq(wx, (35 + k - 1) / k);
    }
}

static uint64_t *
read_words(const char *dir, const char *name, int64_t *n)
{
    char path[1024];
    FILE *f;
    long size;
    uint64_t *w;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    cr_assert_eq(size % 8, 0);
    w = malloc((size_t)size + 8);
    cr_assert_eq(fread(w, 1, (size_t)size, f), (size_t)size); /* the host is little-endian */
    fclose(f);
    *n = size / 8;
    return w;
}

/* Both layers of the trained HAR model: the streams decode to fp16(W), fp16(R), and the
 * column table lets U h skip block columns. */
Test(elstm, emit_decodes_to_the_model)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "pt_har_lstm", stderr);
    const void *inputs[8] = {0};
    ir_graph *g = helpers_prepare_case(a, "pt_har_lstm", d, inputs);
    char dir[] = "/tmp/lstmc_elstm_XXXXXX";
    int layer, i;
    cr_assert_not_null(g);
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(elstm_emit(a, g, &elstm_default_profile, 0.3, dir, d), 0);
    for (layer = 0; layer < 2; layer++) {
        const ir_node *n = helpers_find_op(g, IR_OP_LSTM, layer);
        int64_t h = n->inputs[2]->shape.d[2], x = n->inputs[1]->shape.d[2], nw, nu, nc, nb;
        char name[64];
        uint64_t *w, *u, *cols, *b;
        float *back = malloc((size_t)(4 * h * (x > h ? x : h)) * sizeof *back);
        const float *W = n->inputs[1]->data, *R = n->inputs[2]->data, *B = n->inputs[3]->data;
        int64_t k;
        snprintf(name, sizeof name, "layer%d_W.rocc", layer);
        w = read_words(dir, name, &nw);
        snprintf(name, sizeof name, "layer%d_U.rocc", layer);
        u = read_words(dir, name, &nu);
        snprintf(name, sizeof name, "layer%d_U.cols", layer);
        cols = read_words(dir, name, &nc);
        snprintf(name, sizeof name, "layer%d_b.rocc", layer);
        b = read_words(dir, name, &nb);
        cr_assert_eq(esell_rocc_unpack(w, nw, 4 * h, x, back), 0);
        for (k = 0; k < 4 * h * x; k++)
            cr_assert(back[k] == (float)(_Float16)W[k], "layer %d W[%lld]", layer,
                      (long long)k);
        cr_assert_eq(esell_rocc_unpack(u, nu, 4 * h, h, back), 0);
        for (k = 0; k < 4 * h * h; k++)
            cr_assert(back[k] == (float)(_Float16)R[k], "layer %d R[%lld]", layer,
                      (long long)k);
        /* block column c of U is words cols[c] .. cols[c+1]: decoding only column c's words
         * (as a 4-wide matrix) gives columns 4c..4c+3 of R */
        cr_assert_eq(nc, (h + 3) / 4 + 1);
        cr_assert_eq(cols[0], 0);
        cr_assert_eq((int64_t)cols[nc - 1], nu);
        for (i = 0; i + 1 < nc; i++) {
            float sub[4 * 64 * 4];
            int64_t r, c;
            cr_assert_leq(4 * h, 4 * 64);
            cr_assert_eq(esell_rocc_unpack(u + cols[i], (int64_t)(cols[i + 1] - cols[i]),
                                           4 * h, 4, sub),
                         0);
            for (r = 0; r < 4 * h; r++)
                for (c = 0; c < 4 && 4 * i + c < h; c++)
                    cr_assert(sub[r * 4 + c] == (float)(_Float16)R[r * h + 4 * i + c]);
        }
        cr_assert_eq(nb, h);
        for (k = 0; k < 4 * h; k++) {
            uint16_t bits = (uint16_t)(b[k / 4] >> (16 * (k % 4)));
            _Float16 want = (_Float16)(B[k] + B[4 * h + k]);
            uint16_t wb;
            memcpy(&wb, &want, 2);
            cr_assert_eq(bits, wb);
        }
        free(w);
        free(u);
        free(cols);
        free(b);
        free(back);
    }
    outdir_remove_tree(dir);
    arena_free(a);
}

Test(elstm, refuses_what_it_cannot_run)
{
    static const struct { const char *c, *msg; } bad[] = {
        {"lstm_bidir_init", "forward LSTMs only"},
        {"lstm_act_relu", "fixed sigmoid/tanh"},
        {"lstm_peephole", "does not take input"},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        arena *a = arena_new(0);
        diag *d = diag_new(a, bad[i].c, NULL);
        const void *inputs[8] = {0};
        ir_graph *g = helpers_prepare_case(a, bad[i].c, d, inputs);
        char dir[] = "/tmp/lstmc_elstm_XXXXXX";
        cr_assert_not_null(g);
        cr_assert_not_null(mkdtemp(dir));
        cr_assert_eq(elstm_emit(a, g, &elstm_default_profile, 0, dir, d), -1);
        cr_assert_not_null(strstr(diag_text(d), bad[i].msg), "%s: %s", bad[i].c,
                           diag_text(d));
        outdir_remove_tree(dir);
        arena_free(a);
    }
}
