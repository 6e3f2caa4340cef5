/*
 * test_llvm_rnnq.c — the LLVM kernel of the full-integer recurrent layer (KP_RNN_Q,
 * codegen/llvm/rnnq.c, issue 22) against the reference lstmc_rt_rnn_q (runtime/src/rt_rnnq.c):
 * hand-made calls on random weights, inputs and recipe integers, compiled for the host (AVX-512
 * VNNI here for int8, vpmaddwd for int16), for Haswell (AVX2 vpmaddwd) and for baseline x86-64
 * (the generic sext/mul/add), linked with `cc -shared` and loaded with dlopen. Every output
 * integer must be the reference's.
 */
#include "arena.h"
#include "codegen.h"
#include "diag.h"
#include "helpers.h"
#include "ir.h"
#include "kprog.h"
#include "lstmc_rt_kernels.h"
#include "target.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WORK LSTMC_BINARY_DIR "/llvm_rnnq_work"

static ir_tensor present[KP_MAX_ARGS];
static int small_scratch; /* 1: the scratch without the x86 kernels' regions */
static int laid;          /* 1: W and U constant, as the kernels lay them out (rnnq_relayout) */

typedef struct qcase {
    const char *name;
    int32_t cell, bits, n_dirs, reverse, layout, clip, input_forget, lbr, peep, seqlens, init;
    int64_t T, N, I, H;
    int32_t act0, act1, act2, cell_exp;
} qcase;

#define SIG  LSTMC_RT_ACT_SIGMOID
#define TANH LSTMC_RT_ACT_TANH
#define RELU LSTMC_RT_ACT_RELU
#define LSTM LSTMC_RT_CELL_LSTM
#define GRU  LSTMC_RT_CELL_GRU
#define RNN  LSTMC_RT_CELL_RNN

/* name cell bits D rev layout clip ifg lbr peep seqlens init T N I H acts ce */
static const qcase cases[] = {
    {"lstm_i1_h37", LSTM, 8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 9, 2, 1, 37, SIG, TANH, TANH, 12},
    {"lstm_bidir_peep_clip_sl",
     LSTM,
     8,
     2,
     0,
     0,
     1,
     0,
     0,
     1,
     1,
     1,
     20,
     3,
     33,
     70,
     SIG,
     TANH,
     TANH,
     10},
    {"lstm_rev_l1_ifg_16", LSTM, 16, 1, 1, 1, 0, 1, 0, 0, 0, 1, 17, 2, 130, 64, SIG, TANH, SIG, 13},
    {"lstm_h256", LSTM, 8, 1, 0, 0, 0, 0, 0, 0, 0, 1, 20, 1, 128, 256, SIG, TANH, TANH, 12},
    {"lstm_peep_16_bidir_l1",
     LSTM,
     16,
     2,
     0,
     1,
     1,
     0,
     0,
     1,
     1,
     1,
     6,
     3,
     65,
     31,
     TANH,
     SIG,
     TANH,
     11},
    {"gru_lbr0_bidir_sl", GRU, 8, 2, 0, 0, 0, 0, 0, 0, 1, 1, 18, 3, 19, 45, SIG, TANH, 0, 12},
    {"gru_lbr1_16", GRU, 16, 1, 0, 0, 0, 0, 1, 0, 0, 1, 5, 1, 64, 33, SIG, TANH, 0, 12},
    {"gru_lbr1_rev_clip", GRU, 8, 1, 1, 1, 1, 0, 1, 0, 1, 0, 16, 2, 3, 66, SIG, SIG, 0, 12},
    {"rnn_relu_clip_sl", RNN, 8, 1, 0, 0, 1, 0, 0, 0, 1, 1, 16, 3, 7, 100, RELU, 0, 0, 12},
    {"rnn_tanh_16_bidir_l1", RNN, 16, 2, 0, 1, 0, 0, 0, 0, 0, 1, 3, 2, 200, 129, TANH, 0, 0, 12},
    {"rnn_16_long_rows", RNN, 16, 1, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1, 8500, 8, SIG, 0, 0, 12},
    {"lstm_t0", LSTM, 8, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 5, 6, SIG, TANH, TANH, 12},
    /* x86: short rows packed per call (T * N >= 2 groups per row), vectors of 32 / 8 units */
    {"lstm_16_packed", LSTM, 16, 1, 0, 0, 0, 0, 0, 0, 0, 1, 40, 1, 9, 32, SIG, TANH, TANH, 12},
    {"lstm_h16_packed_bidir_sl",
     LSTM,
     8,
     2,
     0,
     1,
     0,
     0,
     0,
     1,
     1,
     1,
     30,
     2,
     16,
     16,
     SIG,
     TANH,
     TANH,
     11},
    {"gru_lbr1_16_packed", GRU, 16, 2, 0, 0, 1, 0, 1, 0, 1, 1, 24, 2, 5, 20, SIG, TANH, 0, 12},
    {"gru_lbr0_16_packed", GRU, 16, 1, 1, 0, 0, 0, 0, 0, 0, 1, 20, 2, 12, 40, SIG, TANH, 0, 12},
    {"rnn_relu_packed_k64", RNN, 8, 1, 0, 0, 1, 0, 0, 0, 0, 1, 33, 1, 64, 24, RELU, 0, 0, 12},
    /* VNNI, W and U laid out at compile time: K % 4 = 2, G*H below 16, narrow blocks */
    {"gru_lbr0_i6_h5_bidir", GRU, 8, 2, 0, 0, 0, 0, 0, 0, 0, 1, 9, 2, 6, 5, SIG, TANH, 0, 12},
    {"rnn_i2_h3", RNN, 8, 1, 0, 0, 0, 0, 0, 0, 0, 1, 12, 1, 2, 3, TANH, 0, 0, 12},
    {"lstm_i10_h21_rev_sl", LSTM, 8, 1, 1, 0, 0, 0, 0, 0, 1, 1, 11, 3, 10, 21, SIG, TANH, TANH, 12},
    {"gru_lbr1_i42_h50_bidir", GRU, 8, 2, 0, 0, 0, 0, 1, 0, 0, 1, 7, 2, 42, 50, SIG, TANH, 0, 12},
    /* the pipelined steps (VNNI, laid out, one thread, chunks of 16): I > H, so the W tile's
     * terms outlast the U tile's in a pair; 9 blocks, so a step's W share is one block or
     * two (one alone after the pairs); a last group of 5 steps; sequences of other lengths */
    {"lstm_pipe_i150_h36_bidir_sl", LSTM, 8, 2, 0, 0, 0, 0, 0, 0, 1, 1, 37, 5, 150, 36, SIG,
     TANH, TANH, 12},
};

static uint32_t rng = 12345;

static int32_t
rnd(int32_t lo, int32_t hi) /* uniform in [lo, hi] */
{
    rng = rng * 1103515245u + 12345u;
    return lo + (int32_t)((rng >> 8) % (uint32_t)(hi - lo + 1));
}

/* the recipe's (m, n) for a real multiplier M > 0 (docs/PRECISION.md, "Multipliers") */
static void
mult(double M, int32_t *m, int32_t *n)
{
    int e;
    double f = frexp(M, &e);
    int64_t mm = (int64_t)floor(f * 2147483648.0 + 0.5);
    if (mm == 2147483648LL) {
        mm = 1073741824LL;
        e++;
    }
    *m = (int32_t)mm;
    *n = 31 - e;
    cr_assert(*n >= 0 && *n <= 62, "multiplier %g", M);
}

typedef lstmc_rt_status (*rnnq_fn)(const lstmc_rt_rnnq_params *, const void *, const int8_t *,
                                   const int8_t *, const int32_t *, const int32_t *, const void *,
                                   const int16_t *, const int16_t *, void *, void *, int16_t *,
                                   int32_t *);

/* Compile kp for target t (NULL: the host) on nt threads into WORK/tag, link and open it
 * (nt > 1: with its own pool of nt threads, which stays open). */
static void *
build(kprog *kp, const char *tag, const target *t, int nt)
{
    unsigned char handled[1];
    void *so = helpers_llvm_so(kp, WORK, tag, t, nt, NULL, handled);
    cr_assert_eq(handled[0], nt, "%s: the kernel on %d threads", tag, handled[0]);
    return so;
}

/* the features named: cg_llvm picks the dot product from the feature string (an empty one
 * would give the generic mode) */
static const target haswell = {.name = "test-haswell",
                               .triple = "x86_64-unknown-linux-gnu",
                               .cpu = "haswell",
                               .features = "+avx,+avx2,+fma,+f16c,+bmi,+bmi2,+popcnt",
                               .cores = 1};
static const target baseline = {.name = "test-x86-64",
                                .triple = "x86_64-unknown-linux-gnu",
                                .cpu = "x86-64",
                                .features = "",
                                .cores = 1};

static void
run_case(const qcase *qc, const target *t, const char *tname, int nt)
{
    const int64_t T = qc->T, N = qc->N, I = qc->I, H = qc->H, D = qc->n_dirs;
    const int64_t G = qc->cell == LSTM ? 4 : qc->cell == GRU ? 3 : 1, GH = G * H;
    const int eb = qc->bits / 8, hmax = qc->bits == 8 ? 127 : 32767;
    const double s_h = 1.0 / hmax;
    size_t nx = (size_t)(T * N * I), ny = (size_t)(T * D * N * H), ns = (size_t)(D * N * H);
    int8_t *W = malloc((size_t)(D * GH * I)), *U = malloc((size_t)(D * GH * H));
    int32_t *Q = calloc((size_t)(D * GH * 8), 4), *sl = malloc((size_t)N * 4);
    void *X = malloc(nx * (size_t)eb + 1), *h0 = malloc(ns * (size_t)eb);
    int16_t *c0 = malloc(ns * 2), *Pe = malloc((size_t)(D * 3 * H) * 2);
    void *Y0 = calloc(ny + 1, (size_t)eb), *Y1 = calloc(ny + 1, (size_t)eb);
    void *Yh0 = calloc(ns, (size_t)eb), *Yh1 = calloc(ns, (size_t)eb);
    int16_t *Yc0 = calloc(ns, 2), *Yc1 = calloc(ns, 2);
    kprog kp;
    kp_call call;
    lstmc_rt_rnnq_params *p = &call.p.rnnq;
    int32_t *s0, *s1, zp = qc->bits == 8 ? rnd(-20, 20) : 0;
    char tag[200];
    void *so;
    const int8_t *KW, *KU; /* W and U as the kernel reads them */
    rnnq_fn k;
    int64_t i, r, d;

    rng = 12345;
    for (i = 0; i < D * GH * I; i++)
        W[i] = (int8_t)rnd(-127, 127);
    for (i = 0; i < D * GH * H; i++)
        U[i] = (int8_t)rnd(-127, 127);
    for (i = 0; i < (int64_t)nx; i++) {
        if (eb == 1)
            ((int8_t *)X)[i] = (int8_t)rnd(-128, 127);
        else
            ((int16_t *)X)[i] = (int16_t)rnd(-32768, 32767);
    }
    for (i = 0; i < (int64_t)ns; i++) {
        if (eb == 1)
            ((int8_t *)h0)[i] = (int8_t)rnd(-127, 127);
        else
            ((int16_t *)h0)[i] = (int16_t)rnd(-32767, 32767);
        c0[i] = (int16_t)rnd(-32768, 32767);
    }
    for (i = 0; i < D * 3 * H; i++)
        Pe[i] = (int16_t)rnd(-16384, 16384);
    for (i = 0; i < N; i++)
        sl[i] = (int32_t)((i * 7 + 3) % (T + 1));
    for (d = 0; d < D; d++)
        for (r = 0; r < GH; r++) {
            int32_t *q = Q + (d * GH + r) * 8;
            const int8_t *w = W + (d * GH + r) * I;
            int64_t sw = 0;
            double xs = qc->bits == 8 ? 127.0 : 32767.0;
            for (i = 0; i < I; i++)
                sw += w[i];
            /* z of a few units in Q.12 for typical rows */
            mult(4096.0 * 1.5 / (127.0 * xs * sqrt((double)I) * 0.6) * (rnd(50, 200) / 100.0),
                 &q[LSTMC_RT_RNNQ_MW], &q[LSTMC_RT_RNNQ_NW]);
            mult(4096.0 * 1.5 / (127.0 * hmax * sqrt((double)H) * 0.4) * (rnd(50, 200) / 100.0),
                 &q[LSTMC_RT_RNNQ_MU], &q[LSTMC_RT_RNNQ_NU]);
            q[LSTMC_RT_RNNQ_ZC] = (int32_t)(-zp * sw);
            q[LSTMC_RT_RNNQ_BW] = rnd(-3000, 3000);
            q[LSTMC_RT_RNNQ_BR] = rnd(-3000, 3000);
        }

    memset(&call, 0, sizeof call);
    call.kind = KP_RNN_Q;
    p->cell = qc->cell;
    p->bits = qc->bits;
    p->seq_len = T;
    p->batch = N;
    p->input_size = I;
    p->hidden = H;
    p->n_dirs = qc->n_dirs;
    p->reverse = qc->reverse;
    p->layout = qc->layout;
    for (i = 0; i < 6; i += 3) {
        p->act[i] = qc->act0;
        p->act[i + 1] = qc->act1;
        p->act[i + 2] = qc->act2;
    }
    if (qc->cell == GRU) {
        p->act[2] = qc->act0;
        p->act[3] = qc->act1;
    }
    if (qc->cell == RNN)
        p->act[1] = qc->act0;
    p->has_clip = qc->clip;
    p->clip_q = 3 * 4096;
    p->input_forget = qc->input_forget;
    p->linear_before_reset = qc->lbr;
    p->cell_exp = qc->cell_exp;
    if (qc->cell == LSTM)
        mult(pow(2.0, -30) / s_h, &p->h_mult, &p->h_shift);
    else if (qc->cell == GRU)
        mult(1.0 / s_h, &p->h_mult, &p->h_shift);
    else if (qc->act0 == RELU)
        mult(pow(2.0, -12) / s_h / 4.0, &p->h_mult, &p->h_shift);
    else
        mult(pow(2.0, -15) / s_h, &p->h_mult, &p->h_shift);
    mult(pow(2.0, -15) * pow(2.0, -qc->cell_exp) * 4096.0, &p->peep_mult, &p->peep_shift);
    call.n_in = 8;
    call.n_out = 3;
    for (i = 0; i < 4; i++)
        call.in[i] = &present[i];
    call.in[4] = qc->seqlens ? &present[4] : NULL;
    call.in[5] = qc->init ? &present[5] : NULL;
    call.in[6] = qc->init && qc->cell == LSTM ? &present[6] : NULL;
    call.in[7] = qc->peep ? &present[7] : NULL;
    call.out[0] = call.out[1] = &present[8];
    call.out[2] = qc->cell == LSTM ? &present[9] : NULL;
    {
        kp_rnnq_scratch L;
        kp_rnnq_scratch_of(p, &L);
        /* enough for the reference too (its own layout); the x86 kernels' regions unless
         * the test leaves them out */
        call.scratch_bytes = small_scratch ? L.bytes : L.x86_bytes;
        if (call.scratch_bytes < lstmc_rt_rnnq_scratch(p) * 4)
            call.scratch_bytes = lstmc_rt_rnnq_scratch(p) * 4;
    }
    s0 = calloc((size_t)call.scratch_bytes, 1);
    s1 = malloc((size_t)call.scratch_bytes);
    memset(s1, 0x5a, (size_t)call.scratch_bytes);
    memset(&kp, 0, sizeof kp);
    kp.calls = &call;
    kp.n_calls = 1;
    for (i = 1; i <= 2; i++) { /* laid: constant W and U, laid out by cg_llvm_kernels */
        int8_t *c = laid ? malloc((size_t)(D * GH * (i == 1 ? I : H))) : NULL;
        if (c)
            memcpy(c, i == 1 ? W : U, (size_t)(D * GH * (i == 1 ? I : H)));
        memset(&present[i], 0, sizeof present[i]);
        present[i].data = c;
        present[i].dtype = IR_DT_I8;
        present[i].shape.rank = 3;
        present[i].shape.d[0] = D;
        present[i].shape.d[1] = GH;
        present[i].shape.d[2] = i == 1 ? I : H;
    }

    snprintf(tag, sizeof tag, "%s_%s%s", qc->name, tname, nt == 2 ? "_mt2" : nt == 3 ? "_mt3" : "");
    if (laid)
        snprintf(tag + strlen(tag), sizeof tag - strlen(tag), "_laid");
    so = build(&kp, tag, t, nt);
    k = (rnnq_fn)dlsym(so, "t_k0");
    cr_assert(k, "%s: t_k0", tag);
    KW = laid ? present[1].data : W;
    KU = laid ? present[2].data : U;
    if (laid) { /* laid out on VNNI in int8 mode (a permutation), else left as they are */
        const int vnni = !t && qc->bits == 8 && __builtin_cpu_supports("avx512vnni");
        const size_t nw = (size_t)(D * GH * I), nu = (size_t)(D * GH * H);
        cr_assert(vnni ? memcmp(KW, W, nw) != 0 || I <= 4 : memcmp(KW, W, nw) == 0,
                  "%s: W laid out %d", tag, vnni);
        cr_assert(vnni ? memcmp(KU, U, nu) != 0 || H <= 4 : memcmp(KU, U, nu) == 0,
                  "%s: U laid out %d", tag, vnni);
    }

#define ARGS(Wp, Up, Y, Yh, Yc, s)                                                                 \
    p, X, Wp, Up, Q, qc->seqlens ? sl : NULL, qc->init ? h0 : NULL,                                \
        qc->init && qc->cell == LSTM ? c0 : NULL, qc->peep ? Pe : NULL, Y, Yh,                     \
        qc->cell == LSTM ? Yc : NULL, s
    cr_assert_eq(lstmc_rt_rnn_q(ARGS(W, U, Y0, Yh0, Yc0, s0)), LSTMC_RT_OK, "%s: reference", tag);
    memset(Y1, 0x7f, ny * (size_t)eb); /* the kernel must write every element */
    memset(Yh1, 0x7f, ns * (size_t)eb);
    cr_assert_eq(k(ARGS(KW, KU, Y1, Yh1, Yc1, s1)), LSTMC_RT_OK, "%s: kernel", tag);
    cr_assert(memcmp(Y0, Y1, ny * (size_t)eb) == 0, "%s: Y", tag);
    cr_assert(memcmp(Yh0, Yh1, ns * (size_t)eb) == 0, "%s: Y_h", tag);
    if (qc->cell == LSTM)
        cr_assert(memcmp(Yc0, Yc1, ns * 2) == 0, "%s: Y_c", tag);
    { /* not a degenerate case: h took more than a handful of values */
        int64_t nz = 0;
        for (i = 0; i < (int64_t)ny; i++)
            nz += (eb == 1 ? ((int8_t *)Y0)[i] : ((int16_t *)Y0)[i]) != 0;
        cr_assert(T == 0 || nz > (int64_t)ny / 10, "%s: %lld of %zu outputs nonzero", tag,
                  (long long)nz, ny);
    }
    if (qc->seqlens && N > 0) {
        sl[0] = (int32_t)T + 1;
        cr_assert_eq(k(ARGS(KW, KU, Y1, Yh1, Yc1, s1)), LSTMC_RT_ERR_SEQ_LEN, "%s: bad seq_lens",
                     tag);
    }
    Q[LSTMC_RT_RNNQ_NU] = 63; /* a row the reference refuses */
    cr_assert_eq(k(ARGS(KW, KU, Y1, Yh1, Yc1, s1)), LSTMC_RT_ERR_BAD_PARAMS, "%s: bad Q", tag);
#undef ARGS
    if (nt == 1)
        dlclose(so);
    free(W), free(U), free(Q), free(sl), free(X), free(h0), free(c0), free(Pe);
    free(Y0), free(Y1), free(Yh0), free(Yh1), free(Yc0), free(Yc1), free(s0), free(s1);
    free(present[1].data), free(present[2].data);
    present[1].data = present[2].data = NULL;
}

static void
skip_without_llvm(void)
{
    if (!cg_llvm_available())
        cr_skip_test("lstmc built without LLVM");
}

/* The variants of the plain host kernel (other targets, scratch sizes, threads) run on some
 * of the cases (CI time; the normal build runs the plain and laid-out host kernels on all):
 * every third (0, 3, 6, ...) under the sanitizers, every second (1, 3, 5, ...) in the normal
 * build, so that between the two builds each variant meets two thirds of the cases. */
#ifdef __SANITIZE_ADDRESS__
enum { VARIANT_STEP = 3, VARIANT_FIRST = 0, PLAIN_SPLIT = 1 };
#else
enum { VARIANT_STEP = 2, VARIANT_FIRST = 1, PLAIN_SPLIT = 0 };
#endif

static int
variant_case(size_t i)
{
    return i % VARIANT_STEP == VARIANT_FIRST;
}

/* the plain kernel of case i, W and U laid out or not: in the normal build both on every
 * case; under the sanitizers (the same codegen instrumented) one or the other, in turn */
static int
plain_case(size_t i, int laid_out)
{
    return !PLAIN_SPLIT || (int)(i % 2) == laid_out;
}

static void
run_all(const target *t, const char *tname)
{
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (t == NULL && !small_scratch ? plain_case(i, laid) : variant_case(i))
            run_case(&cases[i], t, tname, 1);
}

/* The kernel sliced by hidden units on the runtime pool (--threads): 2 threads on the variant
 * cases, 3 (slices of unequal sizes, more threads than this machine's cores) on every third
 * of those. */
Test(llvm_rnnq, threads_match_reference, .timeout = 600)
{
    size_t i;
    skip_without_llvm();
    for (i = VARIANT_FIRST; i < sizeof cases / sizeof cases[0]; i += VARIANT_STEP) {
        run_case(&cases[i], NULL, "host", 2);
        if (i % 3 == 0)
            run_case(&cases[i], NULL, "host", 3);
    }
}

Test(llvm_rnnq, host_matches_reference, .timeout = 300)
{
    skip_without_llvm();
    run_all(NULL, "host");
}

/* the x86 dot products without the element-wise part's regions of the scratch (an x86
 * kernel in the scratch of another target) */
Test(llvm_rnnq, host_small_scratch_matches_reference, .timeout = 300)
{
    skip_without_llvm();
    small_scratch = 1;
    run_all(NULL, "host_small");
}

Test(llvm_rnnq, avx2_matches_reference, .timeout = 300)
{
    skip_without_llvm();
    if (!__builtin_cpu_supports("avx2"))
        cr_skip_test("no AVX2 here");
    run_all(&haswell, "avx2");
}

Test(llvm_rnnq, generic_matches_reference, .timeout = 300)
{
    skip_without_llvm();
    run_all(&baseline, "generic");
}

/* W and U constant (as a model's are): on VNNI the kernels read them laid out at compile time
 * in lanes = rows blocks (rnnq_relayout), on 1, 2 and 3 threads (the ranges of the slices);
 * elsewhere, and in int16 mode, they stay in the ONNX order. */
Test(llvm_rnnq, laid_matches_reference, .timeout = 600)
{
    size_t i;
    skip_without_llvm();
    laid = 1;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (plain_case(i, 1))
            run_case(&cases[i], NULL, "host", 1);
        if (!variant_case(i))
            continue;
        run_case(&cases[i], NULL, "host", 2);
        if (i % 3 == 0)
            run_case(&cases[i], NULL, "host", 3);
    }
}

Test(llvm_rnnq, laid_small_scratch_matches_reference, .timeout = 300)
{
    skip_without_llvm();
    laid = 1;
    small_scratch = 1;
    run_all(NULL, "host_small");
}

Test(llvm_rnnq, laid_avx2_keeps_onnx_order, .timeout = 300)
{
    skip_without_llvm();
    if (!__builtin_cpu_supports("avx2"))
        cr_skip_test("no AVX2 here");
    laid = 1;
    run_all(&haswell, "avx2");
}
