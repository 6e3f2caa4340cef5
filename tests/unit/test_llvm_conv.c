/*
 * test_llvm_conv.c — which Conv and pool calls the LLVM backend takes (codegen/llvm/conv.c,
 * issue 20) and which it leaves to the C kernels (rt_conv.c): the geometries of the
 * fixtures and the bench models are handled; ConvTranspose, BatchNormalization, geometries
 * rt_conv.c refuses, more edge columns or taps than the kernel unrolls, and an unknown
 * pool kind are declined. The values of the constant-shape kernels are checked elsewhere:
 * against the C kernels in tests/backends (conv and pool rows), against ONNX Runtime by the
 * conv, pool and model fixtures (tests/e2e, tests/cross under qemu, cm4_ on the Cortex-M4
 * board).
 *
 * Issue 21, run-time sizes (kp_call.dyn: KP_DYN_N, _H, _W; LayerNorm's rows): one kernel
 * compiled at MAX, run at sizes from 0 or 1 to MAX, against the kernel compiled for exactly
 * that size (bit for bit: the same sums in the same order) and the C kernel (allclose: it
 * does not fuse the multiply-adds), compiled into one shared object and loaded with dlopen
 * as test_llvm_kernels.c does.
 */
#include "arena.h"
#include "codegen.h"
#include "diag.h"
#include "helpers.h"
#include "ir.h"
#include "kprog.h"
#include "lstmc_rt_kernels.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WORK LSTMC_BINARY_DIR "/llvm_conv_work"

/* Stand-ins for the buffers of a hand-made call: only whether each is NULL matters. */
static ir_tensor present[3];

/* A Conv call: N 1, channels ci -> co in groups, [h, w] -> [oh, ow], kernel kh x kw,
 * strides, dilations, pads as given; bias when b. */
static kp_call
conv_call(int64_t ci, int64_t co, int64_t group, int64_t h, int64_t w, int64_t kh, int64_t kw,
          int64_t s, int64_t dil, int64_t pad, int b)
{
    kp_call c;
    lstmc_rt_conv_params *p = &c.p.conv;
    memset(&c, 0, sizeof c);
    c.kind = KP_CONV;
    p->n = 1, p->c_in = ci, p->c_out = co, p->group = group;
    p->in_h = h, p->in_w = w, p->k_h = kh, p->k_w = kw;
    p->stride_h = h > 1 ? s : 1, p->stride_w = s, p->dil_h = h > 1 ? dil : 1, p->dil_w = dil;
    p->pad_h = h > 1 ? pad : 0, p->pad_w = pad;
    p->out_h = (h + 2 * p->pad_h - (kh - 1) * p->dil_h - 1) / p->stride_h + 1;
    p->out_w = (w + 2 * pad - (kw - 1) * dil - 1) / s + 1;
    c.n_in = 3;
    c.in[0] = &present[0];
    c.in[1] = &present[1];
    c.in[2] = b ? &present[2] : NULL;
    c.n_out = 1;
    return c;
}

static kp_call
pool_call(int kind, int incl, int64_t nc, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t s,
          int64_t pad)
{
    kp_call c;
    lstmc_rt_pool_params *p = &c.p.pool;
    memset(&c, 0, sizeof c);
    c.kind = KP_POOL;
    p->kind = kind, p->count_include_pad = incl;
    p->nc = nc, p->in_h = h, p->in_w = w, p->k_h = kh, p->k_w = kw;
    p->stride_h = p->stride_w = s, p->dil_h = p->dil_w = 1, p->pad_h = p->pad_w = pad;
    p->out_h = (h + 2 * pad - kh) / s + 1;
    p->out_w = (w + 2 * pad - kw) / s + 1;
    c.n_in = 1;
    c.in[0] = &present[0];
    c.n_out = 1;
    return c;
}

static void
skip_without_llvm(void)
{
    if (!cg_llvm_available())
        cr_skip_test("lstmc built without LLVM");
}

Test(llvm_conv, handles_the_front_end_geometries)
{
    kp_call c;
    skip_without_llvm();
    /* the CRNN's Conv2d 1 -> 8 and 8 -> 16, 3 x 3, pad 1 */
    c = conv_call(1, 8, 1, 20, 32, 3, 3, 1, 1, 1, 1);
    cr_assert(cg_llvm_handles(&c));
    c = conv_call(8, 16, 1, 10, 16, 3, 3, 1, 1, 1, 1);
    cr_assert(cg_llvm_handles(&c));
    /* the VAD's STFT: 1 -> 66, kernel 64, stride 32, no pad, no bias */
    c = conv_call(1, 66, 1, 1, 384, 1, 64, 32, 1, 0, 0);
    cr_assert(cg_llvm_handles(&c));
    /* DS-CNN's depthwise Conv1d (group = channels, kernel 5, pad 2) and pointwise */
    c = conv_call(32, 32, 32, 1, 24, 1, 5, 1, 1, 2, 1);
    cr_assert(cg_llvm_handles(&c));
    c = conv_call(32, 32, 1, 1, 24, 1, 1, 1, 1, 0, 1);
    cr_assert(cg_llvm_handles(&c));
    /* strided and dilated, two groups, 2-D */
    c = conv_call(4, 6, 2, 9, 37, 3, 5, 2, 2, 3, 1);
    cr_assert(cg_llvm_handles(&c));
    /* the pools: max 2 x 2 stride 2, average with and without the pad, a global pool */
    c = pool_call(LSTMC_RT_POOL_MAX, 0, 8, 20, 32, 2, 2, 2, 0);
    cr_assert(cg_llvm_handles(&c));
    c = pool_call(LSTMC_RT_POOL_AVG, 0, 3, 7, 11, 3, 3, 2, 1);
    cr_assert(cg_llvm_handles(&c));
    c = pool_call(LSTMC_RT_POOL_AVG, 1, 3, 7, 11, 3, 3, 2, 1);
    cr_assert(cg_llvm_handles(&c));
    c = pool_call(LSTMC_RT_POOL_MAX, 0, 16, 5, 16, 5, 16, 1, 0);
    cr_assert(cg_llvm_handles(&c));
}

Test(llvm_conv, declines_the_rest)
{
    kp_call c;
    skip_without_llvm();
    /* ConvTranspose and BatchNormalization keep their C kernels */
    c = conv_call(4, 4, 1, 1, 16, 1, 3, 1, 1, 1, 1);
    c.kind = KP_CONV_TRANSPOSE;
    cr_assert_not(cg_llvm_handles(&c));
    memset(&c, 0, sizeof c);
    c.kind = KP_BATCHNORM;
    c.p.batchnorm.outer = 1, c.p.batchnorm.channels = 4, c.p.batchnorm.inner = 16;
    cr_assert_not(cg_llvm_handles(&c));
    /* a geometry rt_conv.c refuses: groups that do not divide the channels */
    c = conv_call(4, 6, 4, 1, 16, 1, 3, 1, 1, 1, 1);
    cr_assert_not(cg_llvm_handles(&c));
    /* more edge columns than the kernel emits one by one (pads of 20 on both sides) */
    c = conv_call(2, 2, 1, 1, 100, 1, 3, 1, 1, 20, 1);
    cr_assert_not(cg_llvm_handles(&c));
    /* a kernel longer than the taps it unrolls */
    c = conv_call(1, 4, 1, 1, 2000, 1, 1024, 256, 1, 0, 1);
    cr_assert_not(cg_llvm_handles(&c));
    /* an unknown pool kind, and a missing weight */
    c = pool_call(7, 0, 3, 7, 11, 3, 3, 2, 1);
    cr_assert_not(cg_llvm_handles(&c));
    c = conv_call(4, 4, 1, 1, 16, 1, 3, 1, 1, 1, 1);
    c.in[1] = NULL;
    cr_assert_not(cg_llvm_handles(&c));
}

/* --- issue 21: run-time sizes ----------------------------------------------------------- */

/* Compile kp's kernels for the host into WORK/<tag> (on nt threads: with rt_pool.c linked
 * in and started), link them into a shared object and open it. */
static void *
build_so(kprog *kp, const char *tag, unsigned char *handled, int nt)
{
    return helpers_llvm_so(kp, WORK, tag, NULL, nt, NULL, handled);
}

/* A conv (pool < 0) or pool (pool = lstmc_rt_pool_kind) call compiled at N, H, W, run at
 * smaller sizes of the axes dyn names. The W axis has stride 1; pad_we is the end pad. */
typedef struct dyn_conv_case {
    const char *name;
    int pool, incl, act;
    int64_t ci, co, group, N, H, W, kh, kw, sh, dh, dw, ph, pw, pwe;
    int bias;
    unsigned dyn;
    int threads;
} dyn_conv_case;

/* c's params at n images, input [h, w]. */
static void
dyn_conv_params(const dyn_conv_case *dc, kp_call *c, int64_t n, int64_t h, int64_t w)
{
    const int64_t oh = h + 2 * dc->ph - (dc->kh - 1) * dc->dh - 1 >= 0
                           ? (h + 2 * dc->ph - (dc->kh - 1) * dc->dh - 1) / dc->sh + 1
                           : 0;
    const int64_t ow = w + dc->pw + dc->pwe - (dc->kw - 1) * dc->dw;
    memset(c, 0, sizeof *c);
    if (dc->pool >= 0) {
        lstmc_rt_pool_params *p = &c->p.pool;
        c->kind = KP_POOL;
        p->kind = dc->pool, p->count_include_pad = dc->incl;
        p->nc = n * dc->ci, p->in_h = h, p->in_w = w, p->out_h = oh, p->out_w = ow > 0 ? ow : 0;
        p->k_h = dc->kh, p->k_w = dc->kw, p->stride_h = dc->sh, p->stride_w = 1;
        p->dil_h = dc->dh, p->dil_w = dc->dw, p->pad_h = dc->ph, p->pad_w = dc->pw;
        c->n_in = 1;
    } else {
        lstmc_rt_conv_params *p = &c->p.conv;
        c->kind = KP_CONV;
        p->n = n, p->c_in = dc->ci, p->c_out = dc->co, p->group = dc->group;
        p->in_h = h, p->in_w = w, p->out_h = oh, p->out_w = ow > 0 ? ow : 0;
        p->k_h = dc->kh, p->k_w = dc->kw, p->stride_h = dc->sh, p->stride_w = 1;
        p->dil_h = dc->dh, p->dil_w = dc->dw, p->pad_h = dc->ph, p->pad_w = dc->pw;
        p->act = dc->act;
        c->n_in = 3;
        c->in[1] = &present[1];
        c->in[2] = dc->bias ? &present[2] : NULL;
    }
    c->in[0] = &present[0];
    c->n_out = 1;
}

typedef lstmc_rt_status (*conv_fn)(const lstmc_rt_conv_params *, const float *, const float *,
                                   const float *, float *);
typedef lstmc_rt_status (*pool_fn)(const lstmc_rt_pool_params *, const float *, float *);

#define DYN_SIZES 7
#define GUARD     12345.0f

static lstmc_rt_status
dyn_run(const dyn_conv_case *dc, void *fn, const kp_call *c, const float *X, const float *Wt,
        const float *B, float *Y)
{
    if (dc->pool >= 0)
        return ((pool_fn)fn)(&c->p.pool, X, Y);
    return ((conv_fn)fn)(&c->p.conv, X, Wt, dc->bias ? B : NULL, Y);
}

static void
run_dyn_conv_case(const dyn_conv_case *dc)
{
    /* the sizes of each dyn axis: 1, 2, 3, the middle, MAX - 1, MAX (and a 0 for N) */
    const int dn = (dc->dyn & KP_DYN_N) != 0, dh = (dc->dyn & KP_DYN_H) != 0;
    const int dw = (dc->dyn & KP_DYN_W) != 0;
    int64_t ns[DYN_SIZES], hs[DYN_SIZES], ws[DYN_SIZES];
    kp_call calls[1 + DYN_SIZES], big;
    unsigned char handled[1 + DYN_SIZES];
    kprog kp;
    unsigned seed = 4242;
    int64_t nx, ny, nwt, k;
    float *X, *Wt, *B, *Y0, *Y1, *Y2;
    void *so, *kd;
    int i;

    for (i = 0; i < DYN_SIZES; i++) {
        static const int pick[DYN_SIZES] = {1, 2, 3, 4, 5, 6, 0};
        int64_t v[DYN_SIZES];
        int64_t M;
        M = dc->N;
        v[0] = 0, v[1] = 1, v[2] = M > 2 ? 2 : M, v[3] = M > 3 ? 3 : M, v[4] = (M + 1) / 2,
        v[5] = M > 1 ? M - 1 : M, v[6] = M;
        ns[i] = dn ? v[pick[(i + 3) % DYN_SIZES]] : dc->N;
        M = dc->H;
        v[0] = 1, v[1] = 1, v[2] = M > 2 ? 2 : M, v[3] = M > 3 ? 3 : M, v[4] = (M + 1) / 2,
        v[5] = M > 1 ? M - 1 : M, v[6] = M;
        hs[i] = dh ? v[pick[(i + 5) % DYN_SIZES]] : dc->H;
        M = dc->W;
        v[0] = 1, v[1] = 1, v[2] = M > 2 ? 2 : M, v[3] = M > 3 ? 3 : M, v[4] = (M + 1) / 2,
        v[5] = M > 1 ? M - 1 : M, v[6] = M;
        ws[i] = dw ? v[pick[i]] : dc->W;
    }
    memset(&kp, 0, sizeof kp);
    kp.calls = calls;
    kp.n_calls = 1 + DYN_SIZES;
    dyn_conv_params(dc, &calls[0], dc->N, dc->H, dc->W);
    calls[0].dyn = dc->dyn;
    cr_assert(cg_llvm_handles(&calls[0]), "%s: handled", dc->name);
    for (i = 0; i < DYN_SIZES; i++)
        dyn_conv_params(dc, &calls[1 + i], ns[i] > 0 ? ns[i] : 1, hs[i], ws[i]);
    so = build_so(&kp, dc->name, handled, dc->threads);
    if (dc->threads > 1)
        cr_assert_eq(handled[0], dc->threads, "%s: on %d threads, not %d", dc->name, dc->threads,
                     handled[0]);
    kd = dlsym(so, "t_k0");
    cr_assert(kd);

    nx = dc->N * dc->ci * dc->H * dc->W;
    ny = dc->N * (dc->pool >= 0 ? dc->ci : dc->co) * calls[0].p.conv.out_h * calls[0].p.conv.out_w;
    if (dc->pool >= 0)
        ny = calls[0].p.pool.nc * calls[0].p.pool.out_h * calls[0].p.pool.out_w;
    nwt = dc->co * (dc->ci / dc->group) * dc->kh * dc->kw;
    X = helpers_rand_vec((size_t)nx, &seed, 1.0f);
    Wt = helpers_rand_vec((size_t)nwt, &seed, 0.5f);
    B = helpers_rand_vec((size_t)dc->co, &seed, 0.5f);
    Y0 = malloc((size_t)ny * 4), Y1 = malloc((size_t)ny * 4), Y2 = malloc((size_t)ny * 4);
    for (i = 0; i < DYN_SIZES; i++) {
        kp_call run;
        int64_t nrun, m;
        char sym[32];
        void *kf;
        dyn_conv_params(dc, &run, ns[i], hs[i], ws[i]);
        nrun = dc->pool >= 0 ? run.p.pool.nc * run.p.pool.out_h * run.p.pool.out_w
                             : run.p.conv.n * dc->co * run.p.conv.out_h * run.p.conv.out_w;
        for (k = 0; k < ny; k++)
            Y0[k] = Y1[k] = Y2[k] = GUARD;
        cr_assert_eq(dyn_run(dc, kd, &run, X, Wt, B, Y1), LSTMC_RT_OK, "%s at %lld %lld %lld",
                     dc->name, (long long)ns[i], (long long)hs[i], (long long)ws[i]);
        if (dc->pool >= 0)
            cr_assert_eq(lstmc_rt_pool(&run.p.pool, X, Y0), LSTMC_RT_OK);
        else
            cr_assert_eq(lstmc_rt_conv(&run.p.conv, X, Wt, dc->bias ? B : NULL, Y0), LSTMC_RT_OK);
        cr_assert(helpers_allclose(Y1, Y0, (size_t)nrun, 1e-5f, 1e-5f),
                  "%s at N %lld H %lld W %lld: against lstmc_rt_%s", dc->name, (long long)ns[i],
                  (long long)hs[i], (long long)ws[i], dc->pool >= 0 ? "pool" : "conv");
        snprintf(sym, sizeof sym, "t_k%d", 1 + i);
        kf = dlsym(so, sym);
        cr_assert(kf);
        if (ns[i] > 0) {
            cr_assert_eq(dyn_run(dc, kf, &run, X, Wt, B, Y2), LSTMC_RT_OK);
            for (m = 0; m < nrun; m++)
                cr_assert(memcmp(&Y1[m], &Y2[m], 4) == 0,
                          "%s at N %lld H %lld W %lld: Y[%lld] %.9g, the kernel compiled for "
                          "that size %.9g",
                          dc->name, (long long)ns[i], (long long)hs[i], (long long)ws[i],
                          (long long)m, Y1[m], Y2[m]);
        }
        for (m = nrun; m < ny; m++)
            cr_assert(Y1[m] == GUARD, "%s at N %lld H %lld W %lld: Y[%lld] past the run written",
                      dc->name, (long long)ns[i], (long long)hs[i], (long long)ws[i], (long long)m);
    }
    /* above MAX on each dyn axis: refused */
    for (i = 0; i < 3; i++) {
        unsigned bit = i == 0 ? KP_DYN_N : i == 1 ? KP_DYN_H : KP_DYN_W;
        if (!(dc->dyn & bit))
            continue;
        dyn_conv_params(dc, &big, dc->N + (bit == KP_DYN_N), dc->H + (bit == KP_DYN_H),
                        dc->W + (bit == KP_DYN_W));
        cr_assert_eq(dyn_run(dc, kd, &big, X, Wt, B, Y1), LSTMC_RT_ERR_BAD_PARAMS,
                     "%s: above MAX (dyn bit %u)", dc->name, bit);
    }
    if (dc->threads <= 1) /* the pool's threads live in t.so: it stays open */
        dlclose(so);
    free(X), free(Wt), free(B), free(Y0), free(Y1), free(Y2);
}

#define ALL  (KP_DYN_N | KP_DYN_H | KP_DYN_W)
#define RELU LSTMC_RT_CONV_ACT_RELU
#define HSW  LSTMC_RT_CONV_ACT_HARD_SWISH

static const dyn_conv_case dyn_conv_cases[] = {
    /* name pool incl act ci co group N H W kh kw sh dh dw ph pw pwe bias dyn threads */
    {"conv1d_pad_relu",   -1, 0, RELU, 4, 8, 1, 3, 1, 9, 1, 3, 1, 1, 1, 0, 1, 1, 1,
     KP_DYN_N | KP_DYN_W, 1},
    {"conv1d_long", -1, 0, 0, 3, 10, 1, 2, 1, 77, 1, 5, 1, 1, 2, 0, 4, 4, 1, KP_DYN_W, 1},
    {"conv1d_causal_dil", -1, 0, RELU, 5, 6, 1, 2, 1, 61, 1, 3, 1, 1, 3, 0, 6, 0, 0, ALL, 1},
    {"conv1d_asym_pads", -1, 0, HSW, 4, 4, 2, 2, 1, 40, 1, 4, 1, 1, 1, 0, 2, 1, 1, ALL, 1},
    {"conv1d_depthwise", -1, 0, 0, 8, 8, 8, 2, 1, 50, 1, 5, 1, 1, 1, 0, 2, 2, 1, ALL, 1},
    {"conv1d_valid", -1, 0, 0, 3, 7, 1, 2, 1, 45, 1, 3, 1, 1, 1, 0, 0, 0, 1, KP_DYN_W, 1},
    {"conv2d_time_h",     -1, 0, RELU, 1, 8, 1, 2, 30, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1,
     KP_DYN_N | KP_DYN_H, 1},
    {"conv2d_hw", -1, 0, 0, 2, 5, 1, 2, 11, 37, 3, 3, 2, 2, 1, 1, 1, 1, 1, ALL, 1},
    {"conv1d_mt",         -1, 0, RELU, 16, 32, 1, 4, 1, 600, 1, 3, 1, 1, 1, 0, 1, 1, 1,
     KP_DYN_N | KP_DYN_W, 2},
    {"maxpool1d", LSTMC_RT_POOL_MAX, 0, 0, 3, 3, 1, 2, 1, 50, 1, 3, 1, 1, 1, 0, 1, 1, 0, ALL, 1},
    {"avgpool1d_excl",
     LSTMC_RT_POOL_AVG,
     0,
     0,
     3,
     3,
     1,
     2,
     1,
     47,
     1,
     4,
     1,
     1,
     1,
     0,
     2,
     1,
     0,
     ALL,
     1},
    {"avgpool1d_incl",
     LSTMC_RT_POOL_AVG,
     1,
     0,
     2,
     2,
     1,
     2,
     1,
     40,
     1,
     3,
     1,
     1,
     1,
     0,
     1,
     1,
     0,
     KP_DYN_W,
     1},
    {"avgpool2d_excl",
     LSTMC_RT_POOL_AVG,
     0,
     0,
     2,
     2,
     1,
     2,
     9,
     33,
     3,
     3,
     2,
     1,
     1,
     1,
     1,
     1,
     0,
     ALL,
     1},
    {"maxpool2d", LSTMC_RT_POOL_MAX, 0, 0, 2, 2, 1, 2, 12, 20, 2, 2, 2, 1, 1, 0, 0, 0, 0, ALL, 1},
};

Test(llvm_conv, dyn_matches_fixed_and_c)
{
    size_t i;
    skip_without_llvm();
    for (i = 0; i < sizeof dyn_conv_cases / sizeof dyn_conv_cases[0]; i++)
        run_dyn_conv_case(&dyn_conv_cases[i]);
}

Test(llvm_conv, dyn_handles)
{
    kp_call c;
    skip_without_llvm();
    c = conv_call(4, 8, 1, 1, 64, 1, 3, 1, 1, 1, 1);
    c.dyn = KP_DYN_N | KP_DYN_H | KP_DYN_W;
    cr_assert(cg_llvm_handles(&c));
    c.dyn |= KP_DYN_OTHER;
    cr_assert_not(cg_llvm_handles(&c));
    /* a run-time width at stride 2: the C kernel; a run-time height there is fine */
    c = conv_call(4, 8, 1, 9, 64, 3, 3, 2, 1, 1, 1);
    c.dyn = KP_DYN_W;
    cr_assert_not(cg_llvm_handles(&c));
    c.dyn = KP_DYN_H | KP_DYN_N;
    cr_assert(cg_llvm_handles(&c));
    /* ConvTranspose stays on the C kernel */
    c = conv_call(4, 4, 1, 1, 16, 1, 3, 1, 1, 1, 1);
    c.kind = KP_CONV_TRANSPOSE;
    c.dyn = KP_DYN_N;
    cr_assert_not(cg_llvm_handles(&c));
}

/* LayerNorm over outer rows of n (KP_DYN_N: the run's outer). */
Test(llvm_conv, dyn_layernorm_rows)
{
    typedef lstmc_rt_status (*ln_fn)(const lstmc_rt_layernorm_params *, const float *,
                                     const float *, const float *, float *);
    const int64_t OUT = 11, n = 37, outs[] = {0, 1, 2, 5, 10, 11};
    kp_call calls[2];
    unsigned char handled[2];
    kprog kp;
    unsigned seed = 99;
    float *X = helpers_rand_vec((size_t)(OUT * n), &seed, 2.0f);
    float *sc = helpers_rand_vec((size_t)n, &seed, 1.0f),
          *B = helpers_rand_vec((size_t)n, &seed, 1.0f);
    float *Y0 = malloc((size_t)(OUT * n) * 4), *Y1 = malloc((size_t)(OUT * n) * 4);
    float *Yf = malloc((size_t)(OUT * n) * 4);
    lstmc_rt_layernorm_params p;
    ln_fn kd, kf;
    void *so;
    size_t i;
    int64_t k;

    skip_without_llvm();
    memset(calls, 0, sizeof calls);
    calls[0].kind = KP_LAYERNORM;
    calls[0].p.layernorm.outer = OUT;
    calls[0].p.layernorm.n = n;
    calls[0].p.layernorm.epsilon = 1e-5f;
    calls[0].p.layernorm.scale_stride = 1;
    calls[0].p.layernorm.bias_stride = 1;
    calls[0].n_in = 3;
    calls[0].in[0] = &present[0];
    calls[0].in[1] = &present[1];
    calls[0].in[2] = &present[2];
    calls[0].n_out = 1;
    calls[1] = calls[0];
    calls[0].dyn = KP_DYN_N;
    memset(&kp, 0, sizeof kp);
    kp.calls = calls;
    kp.n_calls = 2;
    so = build_so(&kp, "layernorm", handled, 1);
    kd = (ln_fn)dlsym(so, "t_k0"), kf = (ln_fn)dlsym(so, "t_k1");
    cr_assert(kd && kf);
    p = calls[0].p.layernorm;
    cr_assert_eq(kf(&p, X, sc, B, Yf), LSTMC_RT_OK);
    for (i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        p.outer = outs[i];
        for (k = 0; k < OUT * n; k++)
            Y0[k] = Y1[k] = GUARD;
        cr_assert_eq(kd(&p, X, sc, B, Y1), LSTMC_RT_OK);
        cr_assert_eq(lstmc_rt_layernorm(&p, X, sc, B, Y0), LSTMC_RT_OK);
        cr_assert(helpers_allclose(Y1, Y0, (size_t)(outs[i] * n), 1e-5f, 1e-5f), "outer %lld",
                  (long long)outs[i]);
        cr_assert(memcmp(Y1, Yf, (size_t)(outs[i] * n) * 4) == 0,
                  "outer %lld: not the constant kernel's rows", (long long)outs[i]);
        for (k = outs[i] * n; k < OUT * n; k++)
            cr_assert(Y1[k] == GUARD, "outer %lld: Y[%lld] written", (long long)outs[i],
                      (long long)k);
    }
    p.outer = OUT + 1;
    cr_assert_eq(kd(&p, X, sc, B, Y1), LSTMC_RT_ERR_BAD_PARAMS);
    dlclose(so);
    free(X), free(sc), free(B), free(Y0), free(Y1), free(Yf);
}
