/*
 * test_llvm_tissue.c — the LLVM tissue kernel (codegen/llvm/, emit_tissue) against
 * the portable C one (runtime/src/rt_tissue.c, lstmc_rt_lstm_tissue): hand-made layers
 * compiled for the host and linked with the runtime into a shared object. alpha_inter = 0
 * (nothing cut: the exact schedule, also checked against lstmc_rt_rnn_rec), an alpha between
 * two of the layer's relevance values (about half the links cut, so the predicted context
 * link, slot reuse and uneven tissues are exercised) and an alpha above every S (every link
 * cut): the same sub-layers and tissues as the C kernel and the same outputs to rounding.
 */
#include "arena.h"
#include "codegen.h"
#include "diag.h"
#include "helpers.h"
#include "kprog.h"
#include "lstmc_rt_kernels.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WORK LSTMC_BINARY_DIR "/llvm_tissue_work"

typedef lstmc_rt_status (*tissue_drs_fn)(const lstmc_rt_tissue_params *, float, float,
                                         const float *, const float *, const float *,
                                         const int32_t *, const float *, const float *,
                                         const float *, const float *, const float *, const float *,
                                         const float *, float *, float *, float *,
                                         lstmc_rt_tissue_stats *, lstmc_rt_drs_stats *, void *);
typedef lstmc_rt_status (*tissue_fn)(const lstmc_rt_tissue_params *, float, const float *,
                                     const float *, const float *, const int32_t *, const float *,
                                     const float *, const float *, const float *, const float *,
                                     float *, float *, float *, lstmc_rt_tissue_stats *, void *);

static ir_tensor present[KP_MAX_ARGS];
static int runtime_built;

/* The kernel of kp's single call, built for the host on nt threads into WORK/<tag> and linked
 * with the runtime sources it calls (lstmc_rt_tissue_plan), loaded with dlopen (nt > 1: with
 * its own pool of nt threads, which stays open). */
static void *
build_so(kprog *kp, const char *tag, int nt)
{
    char cmd[2048], extra[1024];
    unsigned char handled[1];
    void *h;

    mkdir(WORK, 0777);
    if (!runtime_built) { /* the runtime sources the kernel calls, compiled once */
        snprintf(cmd, sizeof cmd,
                 "cd %s && cc -c -fPIC -O2 -I%s/runtime/include %s/runtime/src/rt_tissue.c "
                 "%s/runtime/src/rt_rnn.c %s/runtime/src/rt_drs.c %s/runtime/src/rt_hsparse.c "
                 "%s/runtime/src/rt_lowp.c %s/runtime/src/rt_spmv.c %s/runtime/src/rt_plan.c",
                 WORK, LSTMC_SOURCE_DIR, LSTMC_SOURCE_DIR, LSTMC_SOURCE_DIR, LSTMC_SOURCE_DIR,
                 LSTMC_SOURCE_DIR, LSTMC_SOURCE_DIR, LSTMC_SOURCE_DIR, LSTMC_SOURCE_DIR);
        cr_assert(system(cmd) == 0, "%s", cmd);
        runtime_built = 1;
    }
    snprintf(extra, sizeof extra,
             "%s/rt_tissue.o %s/rt_rnn.o %s/rt_drs.o %s/rt_hsparse.o %s/rt_lowp.o %s/rt_spmv.o "
             "%s/rt_plan.o -lm",
             WORK, WORK, WORK, WORK, WORK, WORK, WORK);
    h = helpers_llvm_so(kp, WORK, tag, NULL, nt, extra, handled);
    cr_assert_eq(handled[0], nt, "%s: the kernel on %d threads", tag, handled[0]);
    return h;
}

/* The kernel t_k0 of kp built on nt threads (tag prefix pre, case name) into *so, and on one
 * thread into *so1 when nt > 1 (else *so1 = NULL); returns the nt-thread symbol, *k1 the
 * one-thread one (or NULL). */
static void *
build_pair(kprog *kp, const char *pre, const char *name, int nt, void **so, void **so1, void **k1)
{
    char tag[128];
    void *k;

    snprintf(tag, sizeof tag, "%s%s_t%d", pre, name, nt);
    *so = build_so(kp, tag, nt);
    k = dlsym(*so, "t_k0");
    cr_assert(k, "%s: symbol t_k0", tag);
    *so1 = *k1 = NULL;
    if (nt > 1) {
        snprintf(tag, sizeof tag, "%s%s_t1", pre, name);
        *so1 = build_so(kp, tag, 1);
        *k1 = dlsym(*so1, "t_k0");
        cr_assert(*k1, "%s: symbol t_k0", tag);
    }
    return k;
}

typedef struct tcase {
    const char *name;
    int32_t n_dirs, reverse, layout, has_clip, input_forget, peep, seqlens, init;
    int64_t T, N, H;
    int32_t mts;
} tcase;

/* The layer of case tc: an LSTM with sigmoid, tanh, tanh, clip 1.5 when it has clip. */
static void
init_params(const tcase *tc, lstmc_rt_tissue_params *tp)
{
    lstmc_rt_rnn_params *p = &tp->rnn;
    int j;

    memset(tp, 0, sizeof *tp);
    p->cell = LSTMC_RT_CELL_LSTM;
    p->seq_len = tc->T;
    p->batch = tc->N;
    p->input_size = 3;
    p->hidden = tc->H;
    p->n_dirs = tc->n_dirs;
    p->reverse = tc->reverse;
    p->layout = tc->layout;
    p->has_clip = tc->has_clip;
    p->clip = 1.5f;
    p->input_forget = tc->input_forget;
    p->packed = 1;
    for (j = 0; j < 6; j += 3) {
        p->act[j] = (lstmc_rt_act){LSTMC_RT_ACT_SIGMOID, 0, 0};
        p->act[j + 1] = (lstmc_rt_act){LSTMC_RT_ACT_TANH, 0, 0};
        p->act[j + 2] = (lstmc_rt_act){LSTMC_RT_ACT_TANH, 0, 0};
    }
    tp->mts = tc->mts;
}

/* kp = the one call of kind (KP_LSTM_TISSUE or _DRS) for case tc, which the LLVM kernels
 * must handle: its optional inputs present as the case says, every output wanted. */
static void
one_call(kprog *kp, kp_call *call, kp_kind kind, const tcase *tc, const lstmc_rt_tissue_params *tp,
         int64_t words)
{
    int j;

    memset(kp, 0, sizeof *kp);
    memset(call, 0, sizeof *call);
    kp->calls = call;
    kp->n_calls = 1;
    call->kind = kind;
    call->p.tissue.p = *tp;
    call->n_in = kind == KP_LSTM_TISSUE ? 9 : 11;
    call->n_out = 3;
    for (j = 0; j < call->n_in; j++)
        call->in[j] = &present[j];
    call->in[3] = tc->seqlens ? &present[3] : NULL;
    call->in[4] = call->in[5] = tc->init ? &present[4] : NULL;
    call->in[6] = tc->peep ? &present[6] : NULL;
    call->out[0] = call->out[1] = call->out[2] = &present[0];
    call->scratch_bytes = words * 4;
    cr_assert(cg_llvm_handles(call), "%s: kind %d handled", tc->name, (int)kind);
}

static int
cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* An alpha between two distinct relevance values of the layer's links, near their median,
 * with a gap wide enough that rounding cannot move a link across it. */
static float
mid_alpha(const lstmc_rt_tissue_params *tp, const float *P, const float *rsum)
{
    const int64_t H = tp->rnn.hidden, C = tp->rnn.seq_len * tp->rnn.batch;
    int64_t n = tp->rnn.n_dirs * C, i, best = -1;
    float *S = malloc((size_t)n * sizeof *S), a;
    int32_t d;

    for (d = 0; d < tp->rnn.n_dirs; d++)
        for (i = 0; i < C; i++)
            S[d * C + i] = lstmc_rt_lstm_relevance(H, P + (d * C + i) * 4 * H, rsum + d * 4 * H);
    qsort(S, (size_t)n, sizeof *S, cmp_float);
    for (i = n / 4; i < 3 * n / 4; i++) /* the widest gap in the middle half */
        if (best < 0 || S[i + 1] - S[i] > S[best + 1] - S[best])
            best = i;
    cr_assert(best >= 0 && S[best + 1] - S[best] > 1e-3f * fabsf(S[best]),
              "no usable gap between relevance values");
    a = 0.5f * (S[best] + S[best + 1]);
    free(S);
    return a;
}

/* Case tc with the LLVM kernel on nt threads (slices of hidden units, tissue.c): the C
 * kernel's sub-layers and tissues and outputs to rounding; on nt > 1 also the one-thread LLVM
 * kernel's outputs bit for bit (every gate sums the same terms in the same order). */
static void
run_case(const tcase *tc, int nt)
{
    const int64_t T = tc->T, N = tc->N, H = tc->H, D = tc->n_dirs, G = 4 * H, C = T * N;
    unsigned seed = 4242;
    lstmc_rt_tissue_params tp;
    lstmc_rt_rnn_params *p = &tp.rnn;
    kprog kp;
    kp_call call;
    float *P = helpers_rand_vec((size_t)(D * C * G), &seed, 2.5f);
    /* small enough that the row sums D leave S unsaturated (below 16H) for many links */
    float *Ut = helpers_rand_vec((size_t)(D * H * G), &seed, 0.05f);
    float *Up = calloc((size_t)(D * H * G), sizeof(float));
    float *rsum = calloc((size_t)(D * G), sizeof(float));
    float *h0 = helpers_rand_vec((size_t)(D * N * H), &seed, 1.0f);
    float *c0 = helpers_rand_vec((size_t)(D * N * H), &seed, 1.0f);
    float *pe = helpers_rand_vec((size_t)(D * 3 * H), &seed, 0.5f);
    float *hp = helpers_rand_vec((size_t)(D * H), &seed, 0.5f),
          *cp = helpers_rand_vec((size_t)(D * H), &seed, 0.5f);
    int32_t *sl = malloc((size_t)N * sizeof *sl);
    const size_t ny = (size_t)(T * D * N * H), ns = (size_t)(D * N * H);
    float *Y0 = calloc(ny, 4), *Y1 = calloc(ny, 4), *Yh0 = calloc(ns, 4), *Yh1 = calloc(ns, 4);
    float *Yc0 = calloc(ns, 4), *Yc1 = calloc(ns, 4), *Yr = calloc(ny, 4);
    float alphas[3];
    int64_t words, n, k, g, chains = 0;
    void *s0, *s1, *so, *so1, *k1;
    tissue_fn kt, kt1;
    int a, j;

    init_params(tc, &tp);
    for (n = 0; n < N; n++) {
        sl[n] = tc->seqlens ? (int32_t)((n * 5 + 2) % (T + 1)) : (int32_t)T;
        chains += sl[n] > 0;
    }
    cr_assert_eq(lstmc_rt_lstm_tissue_pack(D, H, Ut, Up), LSTMC_RT_OK);
    for (j = 0; j < D; j++)
        for (k = 0; k < H; k++)
            for (g = 0; g < G; g++)
                rsum[j * G + g] += fabsf(Ut[(j * H + k) * G + g]);
    words = lstmc_rt_lstm_tissue_scratch(&tp);
    cr_assert(words > 0);
    s0 = calloc((size_t)words, 4);
    s1 = calloc((size_t)words, 4);

    one_call(&kp, &call, KP_LSTM_TISSUE, tc, &tp, words);
    kt = (tissue_fn)build_pair(&kp, "", tc->name, nt, &so, &so1, &k1);
    kt1 = (tissue_fn)k1;

    alphas[0] = 0.0f;
    alphas[1] = mid_alpha(&tp, P, rsum);
    alphas[2] = 1e30f;
    for (a = 0; a < 3; a++) {
        lstmc_rt_tissue_stats st0, st1;
        const int32_t *slp = tc->seqlens ? sl : NULL;
        const float *ih = tc->init ? h0 : NULL, *ic = tc->init ? c0 : NULL;
        const float *pp = tc->peep ? pe : NULL;

        cr_assert_eq(lstmc_rt_lstm_tissue(&tp, alphas[a], P, Up, rsum, slp, ih, ic, pp, hp, cp, Y0,
                                          Yh0, Yc0, &st0, s0),
                     LSTMC_RT_OK);
        memset(Y1, 0x7f, ny * 4); /* the kernel must write every element */
        memset(Yh1, 0x7f, ns * 4);
        memset(Yc1, 0x7f, ns * 4);
        memset(&st1, 0x55, sizeof st1);
        cr_assert_eq(
            kt(&tp, alphas[a], P, Up, rsum, slp, ih, ic, pp, hp, cp, Y1, Yh1, Yc1, &st1, s1),
            LSTMC_RT_OK, "%s alpha %g", tc->name, alphas[a]);
        cr_assert(st1.cells == st0.cells && st1.links == st0.links &&
                      st1.sub_layers == st0.sub_layers && st1.tissues == st0.tissues,
                  "%s alpha %g: stats %lld %lld %lld %lld, C %lld %lld %lld %lld", tc->name,
                  alphas[a], (long long)st1.cells, (long long)st1.links, (long long)st1.sub_layers,
                  (long long)st1.tissues, (long long)st0.cells, (long long)st0.links,
                  (long long)st0.sub_layers, (long long)st0.tissues);
        cr_assert(helpers_allclose(Y1, Y0, ny, 1e-4f, 2e-5f), "%s alpha %g: Y", tc->name,
                  alphas[a]);
        cr_assert(helpers_allclose(Yh1, Yh0, ns, 1e-4f, 2e-5f), "%s alpha %g: Y_h", tc->name,
                  alphas[a]);
        cr_assert(helpers_allclose(Yc1, Yc0, ns, 1e-4f, 2e-5f), "%s alpha %g: Y_c", tc->name,
                  alphas[a]);
        if (kt1) { /* threads: the one-thread kernel's floats */
            memset(Y0, 0x7f, ny * 4);
            cr_assert_eq(
                kt1(&tp, alphas[a], P, Up, rsum, slp, ih, ic, pp, hp, cp, Y0, Yh0, Yc0, &st0, s0),
                LSTMC_RT_OK);
            cr_assert(memcmp(Y0, Y1, ny * 4) == 0 && memcmp(Yh0, Yh1, ns * 4) == 0 &&
                          memcmp(Yc0, Yc1, ns * 4) == 0,
                      "%s alpha %g: %d threads vs 1, bit for bit", tc->name, alphas[a], nt);
            cr_assert(st1.sub_layers == st0.sub_layers && st1.tissues == st0.tissues,
                      "%s alpha %g: %d threads, the same plan", tc->name, alphas[a], nt);
        }
        if (a == 0) { /* nothing cut: one sub-layer per non-empty sequence, the exact layer */
            float *sr = calloc((size_t)(7 * H), 4);
            lstmc_rt_rnn_params rp = *p;

            cr_assert_eq(st1.sub_layers, chains * D, "%s: alpha 0 cuts nothing", tc->name);
            cr_assert_eq(lstmc_rt_rnn_rec(&rp, P, Ut, NULL, slp, ih, ic, pp, Yr, NULL, NULL, sr),
                         LSTMC_RT_OK);
            cr_assert(helpers_allclose(Y1, Yr, ny, 1e-4f, 2e-5f), "%s: alpha 0 vs exact", tc->name);
            free(sr);
        } else { /* links were cut: the predicted context link was used */
            cr_assert_gt(st1.sub_layers, chains * D, "%s alpha %g cuts", tc->name, alphas[a]);
        }
        if (a == 2)
            cr_assert_eq(st1.sub_layers, st1.cells, "%s: every link cut", tc->name);
    }
    if (tc->seqlens) { /* a bad sequence_lens entry is refused before anything is written */
        sl[0] = (int32_t)T + 1;
        cr_assert_eq(
            kt(&tp, 0.0f, P, Up, rsum, sl, NULL, NULL, NULL, hp, cp, Y1, Yh1, Yc1, NULL, s1),
            LSTMC_RT_ERR_SEQ_LEN);
    }
    if (nt == 1) /* a pool's threads stay with their library */
        dlclose(so);
    if (so1)
        dlclose(so1);
    free(P), free(Ut), free(Up), free(rsum), free(h0), free(c0), free(pe), free(hp), free(cp);
    free(sl), free(Y0), free(Y1), free(Yh0), free(Yh1), free(Yc0), free(Yc1), free(Yr);
    free(s0), free(s1);
}

/*
 * DRS inside tissues: lstmc_rt_lstm_tissue_drs in C and LLVM, alpha_intra 0.5 (sigmoid o
 * below 0.5 skips the unit's rows, about half) with nothing cut, with about half the links
 * cut and with every link cut: the same sub-layers, tissues and row counts (loaded once per
 * tissue), outputs to rounding.
 */
static void
run_drs_case(const tcase *tc, int nt)
{
    const int64_t T = tc->T, N = tc->N, H = tc->H, D = tc->n_dirs, G = 4 * H, C = T * N;
    unsigned seed = 777;
    lstmc_rt_tissue_params tp;
    lstmc_rt_rnn_params *p = &tp.rnn;
    kprog kp;
    kp_call call;
    float *P = helpers_rand_vec((size_t)(D * C * G), &seed, 2.5f);
    float *Ut = helpers_rand_vec((size_t)(D * H * G), &seed, 0.05f);
    float *Uo = calloc((size_t)(D * H * H), 4), *Ufic = calloc((size_t)(D * 3 * H * H), 4);
    float *rsum = calloc((size_t)(D * G), sizeof(float));
    float *h0 = helpers_rand_vec((size_t)(D * N * H), &seed, 1.0f);
    float *c0 = helpers_rand_vec((size_t)(D * N * H), &seed, 1.0f);
    float *pe = helpers_rand_vec((size_t)(D * 3 * H), &seed, 0.5f);
    float *hp = helpers_rand_vec((size_t)(D * H), &seed, 0.5f),
          *cp = helpers_rand_vec((size_t)(D * H), &seed, 0.5f);
    int32_t *sl = malloc((size_t)N * sizeof *sl);
    const size_t ny = (size_t)(T * D * N * H), ns = (size_t)(D * N * H);
    float *Y0 = calloc(ny, 4), *Y1 = calloc(ny, 4), *Yh0 = calloc(ns, 4), *Yh1 = calloc(ns, 4);
    float *Yc0 = calloc(ns, 4), *Yc1 = calloc(ns, 4);
    float ainter[3], aintra[3] = {0.0f, 0.5f, 0.5f};
    int64_t words, n, k, g;
    void *s0, *s1, *so, *so1, *k1;
    tissue_drs_fn kt, kt1;
    int a, j;

    init_params(tc, &tp);
    for (n = 0; n < N; n++)
        sl[n] = tc->seqlens ? (int32_t)((n * 5 + 2) % (T + 1)) : (int32_t)T;
    for (j = 0; j < D; j++) { /* DRS needs o_t independent of c_t: no output peephole */
        memset(pe + j * 3 * H + H, 0, (size_t)H * 4);
        for (k = 0; k < H; k++)
            for (g = 0; g < G; g++)
                rsum[j * G + g] += fabsf(Ut[(j * H + k) * G + g]);
    }
    cr_assert_eq(lstmc_rt_drs_pack(D, H, Ut, Uo, Ufic), LSTMC_RT_OK);
    words = lstmc_rt_lstm_tissue_drs_scratch(&tp);
    cr_assert(words > 0);
    s0 = calloc((size_t)words, 4);
    s1 = calloc((size_t)words, 4);

    one_call(&kp, &call, KP_LSTM_TISSUE_DRS, tc, &tp, words);
    kt = (tissue_drs_fn)build_pair(&kp, "drs_", tc->name, nt, &so, &so1, &k1);
    kt1 = (tissue_drs_fn)k1;

    ainter[0] = 0.0f;
    ainter[1] = mid_alpha(&tp, P, rsum);
    ainter[2] = 1e30f;
    for (a = 0; a < 3; a++) {
        lstmc_rt_tissue_stats st0, st1;
        lstmc_rt_drs_stats d0, d1;
        const int32_t *slp = tc->seqlens ? sl : NULL;
        const float *ih = tc->init ? h0 : NULL, *ic = tc->init ? c0 : NULL;
        const float *pp = tc->peep ? pe : NULL;

        cr_assert_eq(lstmc_rt_lstm_tissue_drs(&tp, ainter[a], aintra[a], P, NULL, rsum, slp, ih, ic,
                                              pp, hp, cp, Uo, Ufic, Y0, Yh0, Yc0, &st0, &d0, s0),
                     LSTMC_RT_OK);
        memset(Y1, 0x7f, ny * 4);
        memset(Yh1, 0x7f, ns * 4);
        memset(Yc1, 0x7f, ns * 4);
        memset(&d1, 0x55, sizeof d1);
        cr_assert_eq(kt(&tp, ainter[a], aintra[a], P, NULL, rsum, slp, ih, ic, pp, hp, cp, Uo, Ufic,
                        Y1, Yh1, Yc1, &st1, &d1, s1),
                     LSTMC_RT_OK, "%s DRS alpha %g", tc->name, ainter[a]);
        cr_assert(st1.sub_layers == st0.sub_layers && st1.tissues == st0.tissues &&
                      st1.cells == st0.cells,
                  "%s DRS alpha %g: tissue stats", tc->name, ainter[a]);
        cr_assert(d1.cells == d0.cells && d1.rows_total == d0.rows_total &&
                      d1.rows_skipped == d0.rows_skipped && d1.rows_loaded == d0.rows_loaded,
                  "%s DRS alpha %g: rows %lld %lld %lld %lld, C %lld %lld %lld %lld", tc->name,
                  ainter[a], (long long)d1.cells, (long long)d1.rows_total,
                  (long long)d1.rows_skipped, (long long)d1.rows_loaded, (long long)d0.cells,
                  (long long)d0.rows_total, (long long)d0.rows_skipped, (long long)d0.rows_loaded);
        if (a > 0)
            cr_assert_gt(d1.rows_skipped, 0, "%s: alpha_intra 0.5 skips rows", tc->name);
        cr_assert(helpers_allclose(Y1, Y0, ny, 1e-4f, 2e-5f), "%s DRS alpha %g: Y", tc->name,
                  ainter[a]);
        cr_assert(helpers_allclose(Yh1, Yh0, ns, 1e-4f, 2e-5f), "%s DRS: Y_h", tc->name);
        cr_assert(helpers_allclose(Yc1, Yc0, ns, 1e-4f, 2e-5f), "%s DRS: Y_c", tc->name);
        if (kt1) { /* threads: the one-thread kernel's floats and counts */
            memset(Y0, 0x7f, ny * 4);
            cr_assert_eq(kt1(&tp, ainter[a], aintra[a], P, NULL, rsum, slp, ih, ic, pp, hp, cp, Uo,
                             Ufic, Y0, Yh0, Yc0, &st0, &d0, s0),
                         LSTMC_RT_OK);
            cr_assert(memcmp(Y0, Y1, ny * 4) == 0 && memcmp(Yh0, Yh1, ns * 4) == 0 &&
                          memcmp(Yc0, Yc1, ns * 4) == 0,
                      "%s DRS alpha %g: %d threads vs 1, bit for bit", tc->name, ainter[a], nt);
            cr_assert(d1.cells == d0.cells && d1.rows_skipped == d0.rows_skipped &&
                          d1.rows_loaded == d0.rows_loaded && st1.tissues == st0.tissues,
                      "%s DRS alpha %g: %d threads, the counts", tc->name, ainter[a], nt);
        }
    }
    if (nt == 1)
        dlclose(so);
    if (so1)
        dlclose(so1);
    free(P), free(Ut), free(Uo), free(Ufic), free(rsum), free(h0), free(c0), free(pe);
    free(hp), free(cp), free(sl), free(Y0), free(Y1), free(Yh0), free(Yh1), free(Yc0);
    free(Yc1), free(s0), free(s1);
}

/* H = 37: 4H = 148 is nine 16-column panels and a narrow one of 4, and not a whole number of
 * vectors for the relevance loop; H = 5: one panel and a narrow one; H = 64: whole panels.
 * MTS 1, 3 and 8 with N = 3 chains: tissues of one cell, uneven ones, and all cells of a step
 * plus cut sub-layers. */
static const tcase cases[] = {
    {"fwd_h37_mts3", 1, 0, 0, 0, 0, 0, 0, 0, 7, 3, 37, 3},
    {"bidir_all_h37_mts8", 2, 0, 1, 1, 0, 1, 1, 1, 7, 3, 37, 8},
    {"rev_if_h5_mts1", 1, 1, 0, 0, 1, 1, 1, 1, 6, 3, 5, 1},
    {"fwd_h64_mts8_seqlens", 1, 0, 0, 0, 0, 0, 1, 1, 9, 3, 64, 8},
    {"fwd_b1_h64_mts5", 1, 0, 1, 0, 0, 0, 0, 1, 12, 1, 64, 5},
};

Test(llvm_tissue, matches_c_tissue_kernel)
{
    size_t i;

    if (!cg_llvm_available())
        cr_skip_test("lstmc built without LLVM");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], 1);
}

/* The kernel sliced by hidden units on the runtime pool (--threads): 2 threads on every case
 * (H = 37 and 5: slices that cut panels; H = 64: whole panels each), 3 (more threads than
 * this machine's cores, uneven slices) on H = 37 and 64. */
Test(llvm_tissue, threads_match_one_thread, .timeout = 600)
{
    size_t i;

    if (!cg_llvm_available())
        cr_skip_test("lstmc built without LLVM");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], 2);
    run_case(&cases[1], 3);
    run_case(&cases[3], 3);
}

Test(llvm_tissue, drs_matches_c_tissue_drs_kernel)
{
    if (!cg_llvm_available())
        cr_skip_test("lstmc built without LLVM");
    run_drs_case(&cases[1], 1); /* bidirectional, layout 1, clip, peepholes, seqlens, H = 37 */
    run_drs_case(&cases[2], 1); /* reverse, input_forget, MTS 1, H = 5 */
    run_drs_case(&cases[3], 1); /* H = 64, MTS 8 */
}

/* DRS inside tissues sliced by hidden units: 2 threads (H = 37, 64), 3 (H = 5: a slice of one
 * unit) against the one-thread kernel bit for bit, and the C kernel's counts */
Test(llvm_tissue, drs_threads_match_one_thread, .timeout = 600)
{
    if (!cg_llvm_available())
        cr_skip_test("lstmc built without LLVM");
    run_drs_case(&cases[1], 2);
    run_drs_case(&cases[3], 2);
    run_drs_case(&cases[2], 3);
}
