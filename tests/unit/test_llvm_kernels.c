/*
 * test_llvm_kernels.c — the LLVM CPU kernels (codegen/llvm/) against the C reference
 * kernels (runtime/src/rt_rnn.c): hand-made calls compiled for the host, linked into a shared
 * object with `cc -shared` and loaded with dlopen; the inline sigmoid/tanh against libm; and
 * an aarch64 (tegra-x1) object checked to be an AArch64 ELF holding every kernel's symbol.
 */
#include "arena.h"
#include "codegen.h"
#include "diag.h"
#include "driver.h"
#include "helpers.h"
#include "ir.h"
#include "kprog.h"
#include "lstmc_rt_kernels.h"
#include "memplan.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WORK LSTMC_BINARY_DIR "/llvm_kernels_work"

typedef lstmc_rt_status (*proj_fn)(const lstmc_rt_rnn_proj_params *, const float *, const float *,
                                   const float *, float *);
typedef lstmc_rt_status (*rec_fn)(const lstmc_rt_rnn_params *, const float *, const float *,
                                  const float *, const int32_t *, const float *, const float *,
                                  const float *, float *, float *, float *, float *);

typedef lstmc_rt_status (*drs_fn)(const lstmc_rt_rnn_params *, float, const float *, const float *,
                                  const float *, const int32_t *, const float *, const float *,
                                  const float *, float *, float *, float *, lstmc_rt_drs_stats *,
                                  void *);

/* Stand-ins for the buffers of a hand-made call: only whether each is NULL matters. */
static ir_tensor present[KP_MAX_ARGS];

static void
skip_without_llvm(void)
{
    if (!cg_llvm_available())
        cr_skip_test("lstmc built without LLVM");
}

/* Compile kp's kernels for the host into WORK/<tag> on nt threads (--threads; > 1: with the
 * runtime's pool, rt_pool.c, linked in and started), link them into a shared object and open
 * it. */
static void *
build_so_nt(kprog *kp, const char *tag, unsigned char *handled, int nt)
{
    return helpers_llvm_so(kp, WORK, tag, NULL, nt, NULL, handled);
}

static void *
build_so(kprog *kp, const char *tag, unsigned char *handled)
{
    /* 1 thread: the multi-core kernels need rt_pool.c (build_so_nt links it) */
    return build_so_nt(kp, tag, handled, 1);
}

/* One recurrent layer under schedule A+: projection then time loop, C and LLVM. */
typedef struct rec_case {
    const char *name;
    int32_t cell, n_dirs, reverse, layout, has_clip, input_forget, lbr, peep, seqlens, init;
    int64_t T, N, I, H;
    int32_t act0, act1, act2;
} rec_case;

static void
run_rec_case(const rec_case *rc)
{
    const int64_t T = rc->T, N = rc->N, I = rc->I, H = rc->H, D = rc->n_dirs;
    const int64_t G = rc->cell == LSTMC_RT_CELL_LSTM ? 4 : rc->cell == LSTMC_RT_CELL_GRU ? 3 : 1;
    const int64_t GH = G * H, rows = T * N;
    unsigned seed = 12345;
    kprog kp;
    kp_call calls[2];
    unsigned char handled[2];
    lstmc_rt_rnn_proj_params *pp;
    lstmc_rt_rnn_params *p;
    float *X = helpers_rand_vec((size_t)(rows * I), &seed, 1.0f);
    float *w = helpers_rand_vec((size_t)(D * I * GH), &seed, 0.5f);
    float *b = helpers_rand_vec((size_t)(D * GH), &seed, 0.5f);
    float *r = helpers_rand_vec((size_t)(D * H * GH), &seed, 0.5f);
    float *rbh = helpers_rand_vec((size_t)(D * H), &seed, 0.5f);
    float *h0 = helpers_rand_vec((size_t)(D * N * H), &seed, 1.0f);
    float *c0 = helpers_rand_vec((size_t)(D * N * H), &seed, 1.0f);
    float *pe = helpers_rand_vec((size_t)(D * 3 * H), &seed, 0.5f);
    int32_t *sl = malloc((size_t)N * sizeof *sl);
    size_t ny = (size_t)(T * D * N * H), ns = (size_t)(D * N * H);
    float *P0 = calloc((size_t)(D * rows * GH), sizeof(float));
    float *P1 = calloc((size_t)(D * rows * GH), sizeof(float));
    float *Y0 = calloc(ny, 4), *Y1 = calloc(ny, 4), *Yh0 = calloc(ns, 4), *Yh1 = calloc(ns, 4);
    float *Yc0 = calloc(ns, 4), *Yc1 = calloc(ns, 4);
    float *s0 = calloc((size_t)(H * (G + 3)), 4), *s1 = calloc((size_t)(H * (G + 3)), 4);
    const float *rb_arg = rc->cell == LSTMC_RT_CELL_GRU && rc->lbr ? rbh : NULL;
    void *so;
    proj_fn kproj;
    rec_fn krec;
    int64_t n;
    int j;

    for (n = 0; n < N; n++)
        sl[n] = (int32_t)((n * 7 + 3) % (T + 1)); /* includes 0 and T for N >= 3 */
    memset(&kp, 0, sizeof kp);
    memset(calls, 0, sizeof calls);
    kp.calls = calls;
    kp.n_calls = 2;
    calls[0].kind = KP_RNN_PROJ;
    pp = &calls[0].p.proj;
    pp->cell = rc->cell;
    pp->n_dirs = rc->n_dirs;
    pp->rows = rows;
    pp->input_size = I;
    pp->hidden = H;
    pp->linear_before_reset = rc->lbr;
    pp->packed = 1;
    calls[0].n_in = 3;
    calls[0].n_out = 1;
    for (j = 0; j < 3; j++)
        calls[0].in[j] = &present[j];
    calls[0].out[0] = &present[0];

    calls[1].kind = KP_RNN_REC;
    p = &calls[1].p.rnn;
    p->cell = rc->cell;
    p->seq_len = T;
    p->batch = N;
    p->input_size = I;
    p->hidden = H;
    p->n_dirs = rc->n_dirs;
    p->reverse = rc->reverse;
    p->layout = rc->layout;
    p->has_clip = rc->has_clip;
    p->clip = 0.7f;
    p->input_forget = rc->input_forget;
    p->linear_before_reset = rc->lbr;
    p->packed = 1;
    for (j = 0; j < 6; j += 3) {
        p->act[j] = (lstmc_rt_act){rc->act0, 0.3f, 0.4f};
        p->act[j + 1] = (lstmc_rt_act){rc->act1, 0.8f, 0.1f};
        p->act[j + 2] = (lstmc_rt_act){rc->act2, 1.2f, 0.6f};
    }
    calls[1].n_in = 7;
    calls[1].n_out = 3;
    calls[1].in[0] = calls[1].in[1] = &present[0];
    calls[1].in[2] = rb_arg ? &present[2] : NULL;
    calls[1].in[3] = rc->seqlens ? &present[3] : NULL;
    calls[1].in[4] = rc->init ? &present[4] : NULL;
    calls[1].in[5] = rc->init ? &present[5] : NULL;
    calls[1].in[6] = rc->peep ? &present[6] : NULL;
    calls[1].out[0] = calls[1].out[1] = calls[1].out[2] = &present[7];
    calls[1].scratch_bytes = H * (G + 3) * 4;

    so = build_so(&kp, rc->name, handled);
    kproj = (proj_fn)dlsym(so, "t_k0");
    krec = (rec_fn)dlsym(so, "t_k1");
    cr_assert(kproj && krec, "%s: symbols t_k0, t_k1", rc->name);

    cr_assert_eq(lstmc_rt_rnn_proj(pp, X, w, b, P0), LSTMC_RT_OK);
    cr_assert_eq(kproj(pp, X, w, b, P1), LSTMC_RT_OK);
    cr_assert(helpers_allclose(P1, P0, (size_t)(D * rows * GH), 1e-5f, 1e-5f), "%s: proj",
              rc->name);
    cr_assert_eq(lstmc_rt_rnn_rec(p, P0, r, rb_arg, rc->seqlens ? sl : NULL, rc->init ? h0 : NULL,
                                  rc->init ? c0 : NULL, rc->peep ? pe : NULL, Y0, Yh0, Yc0, s0),
                 LSTMC_RT_OK);
    memset(Y1, 0x7f, ny * 4); /* the kernel must write every element */
    cr_assert_eq(krec(p, P0, r, rb_arg, rc->seqlens ? sl : NULL, rc->init ? h0 : NULL,
                      rc->init ? c0 : NULL, rc->peep ? pe : NULL, Y1, Yh1, Yc1, s1),
                 LSTMC_RT_OK);
    cr_assert(helpers_allclose(Y1, Y0, ny, 1e-4f, 1e-5f), "%s: Y", rc->name);
    cr_assert(helpers_allclose(Yh1, Yh0, ns, 1e-4f, 1e-5f), "%s: Y_h", rc->name);
    if (rc->cell == LSTMC_RT_CELL_LSTM)
        cr_assert(helpers_allclose(Yc1, Yc0, ns, 1e-4f, 1e-5f), "%s: Y_c", rc->name);
    if (rc->seqlens) { /* a bad sequence_lens entry is refused like the C kernel does */
        sl[0] = (int32_t)T + 1;
        cr_assert_eq(krec(p, P0, r, rb_arg, sl, rc->init ? h0 : NULL, rc->init ? c0 : NULL,
                          rc->peep ? pe : NULL, Y1, Yh1, Yc1, s1),
                     LSTMC_RT_ERR_SEQ_LEN);
    }
    dlclose(so);
    free(X), free(w), free(b), free(r), free(rbh), free(h0), free(c0), free(pe), free(sl);
    free(P0), free(P1), free(Y0), free(Y1), free(Yh0), free(Yh1), free(Yc0), free(Yc1);
    free(s0), free(s1);
}

#define SIG  LSTMC_RT_ACT_SIGMOID
#define TANH LSTMC_RT_ACT_TANH

/* H = 37: GH is a whole register tile, a vector tail and a scalar tail on AVX-512, AVX2 and
 * NEON alike; rows = T*N = 15: a PROJ row block remainder. */
static const rec_case rec_cases[] = {
    {"lstm_fwd", LSTMC_RT_CELL_LSTM, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 3, 6, 37, SIG, TANH, TANH},
    {"lstm_everything", LSTMC_RT_CELL_LSTM, 2, 0, 1, 1, 0, 0, 1, 1, 1, 5, 3, 6, 37, SIG, TANH,
     TANH},
    {"lstm_rev_if", LSTMC_RT_CELL_LSTM, 1, 1, 0, 0, 1, 0, 1, 1, 1, 5, 3, 6, 37, SIG, TANH, TANH},
    {"lstm_acts", LSTMC_RT_CELL_LSTM, 1, 0, 0, 0, 0, 0, 0, 1, 1, 4, 3, 5, 9,
     LSTMC_RT_ACT_HARD_SIGMOID, LSTMC_RT_ACT_SCALED_TANH, LSTMC_RT_ACT_ELU},
    {"lstm_big", LSTMC_RT_CELL_LSTM, 1, 0, 0, 0, 0, 0, 0, 0, 1, 4, 1, 70, 200, SIG, TANH, TANH},
    {"gru_lbr1", LSTMC_RT_CELL_GRU, 2, 0, 0, 1, 0, 1, 0, 1, 1, 5, 3, 6, 37, SIG, TANH, TANH},
    {"gru_lbr0", LSTMC_RT_CELL_GRU, 1, 1, 1, 0, 0, 0, 0, 1, 1, 5, 3, 6, 37, SIG, TANH, TANH},
    {"rnn", LSTMC_RT_CELL_RNN, 2, 0, 1, 1, 0, 0, 0, 1, 1, 5, 3, 6, 37, TANH, TANH, TANH},
    {"rnn_acts", LSTMC_RT_CELL_RNN, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 4, 5, LSTMC_RT_ACT_SOFTSIGN,
     TANH, TANH},
};

Test(llvm_kernels, matches_c_reference)
{
    size_t i;
    skip_without_llvm();
    for (i = 0; i < sizeof rec_cases / sizeof rec_cases[0]; i++)
        run_rec_case(&rec_cases[i]);
}

/*
 * The inline activations against libm on a dense grid: an RNN with R = 0, T = 1 and one
 * hidden unit per batch entry turns P's rows into f(P). Max abs error, float vs double.
 */
static double
act_max_err(int32_t kind, double *at)
{
    const int64_t N = 40001;
    kprog kp;
    kp_call call;
    unsigned char handled[1];
    lstmc_rt_rnn_params *p = &call.p.rnn;
    float *P = malloc((size_t)N * 4), *Y = malloc((size_t)N * 4), r = 0.0f, s[4];
    void *so;
    rec_fn k;
    double worst = 0.0;
    int64_t n;

    for (n = 0; n < N; n++)
        P[n] = -20.0f + 40.0f * (float)n / (float)(N - 1);
    memset(&kp, 0, sizeof kp);
    memset(&call, 0, sizeof call);
    kp.calls = &call;
    kp.n_calls = 1;
    call.kind = KP_RNN_REC;
    p->cell = LSTMC_RT_CELL_RNN;
    p->seq_len = 1;
    p->batch = N;
    p->hidden = 1;
    p->n_dirs = 1;
    p->packed = 1;
    p->act[0].kind = kind;
    call.n_in = 7;
    call.n_out = 3;
    call.in[0] = call.in[1] = &present[0];
    call.out[0] = &present[1];
    call.scratch_bytes = 16;
    so = build_so(&kp, kind == SIG ? "act_sigmoid" : "act_tanh", handled);
    k = (rec_fn)dlsym(so, "t_k0");
    cr_assert(k);
    cr_assert_eq(k(p, P, &r, NULL, NULL, NULL, NULL, NULL, Y, NULL, NULL, s), LSTMC_RT_OK);
    for (n = 0; n < N; n++) {
        double x = P[n], want = kind == SIG ? 1.0 / (1.0 + exp(-x)) : tanh(x);
        double e = fabs((double)Y[n] - want);
        if (e > worst) {
            worst = e;
            *at = x;
        }
    }
    dlclose(so);
    free(P);
    free(Y);
    return worst;
}

Test(llvm_kernels, sigmoid_tanh_accuracy)
{
    double at = 0, es, et;
    skip_without_llvm();
    es = act_max_err(SIG, &at);
    cr_log_info("sigmoid: max abs error %.3g at x = %g", es, at);
    et = act_max_err(TANH, &at);
    cr_log_info("tanh: max abs error %.3g at x = %g", et, at);
    cr_assert(es < 1e-6, "sigmoid max abs error %g", es);
    cr_assert(et < 1e-6, "tanh max abs error %g", et);
}

/* The names of the symbols defined in an ELF64 object's .symtab, "\n"-separated. */
static char *
elf_symbols(const unsigned char *buf, size_t size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
    const Elf64_Shdr *sh;
    char *out = calloc(1, size + 1);
    size_t o = 0;
    int i;

    cr_assert(eh->e_shoff + (size_t)eh->e_shnum * sizeof *sh <= size);
    sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
    for (i = 0; i < eh->e_shnum; i++) {
        const Elf64_Sym *sym;
        const char *str;
        size_t k;
        if (sh[i].sh_type != SHT_SYMTAB)
            continue;
        sym = (const Elf64_Sym *)(buf + sh[i].sh_offset);
        str = (const char *)(buf + sh[sh[i].sh_link].sh_offset);
        for (k = 0; k < sh[i].sh_size / sizeof *sym; k++) {
            if (sym[k].st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC)
                continue;
            o += (size_t)sprintf(out + o, "%s\n", str + sym[k].st_name);
        }
    }
    return out;
}

Test(llvm_kernels, aarch64_object)
{
    arena *a;
    diag *d;
    driver_options o;
    ir_graph *g;
    kprog kp;
    memplan mp;
    char path[512], want[64], *syms;
    unsigned char *buf;
    long size;
    FILE *f;
    int i, n = 0;

    skip_without_llvm();
    a = arena_new(0);
    d = diag_new(a, "pt_har_lstm", stderr);
    memset(&o, 0, sizeof o);
    o.model = LSTMC_SOURCE_DIR "/tests/fixtures/cases/pt_har_lstm/model.onnx";
    o.target = "tegra-x1";
    o.outdir = WORK "/aarch64";
    o.name = "har";
    o.emit = "llvm";
    mkdir(WORK, 0777);
    cr_assert_eq(driver_compile(a, &o, d), 0);
    cr_assert_eq(driver_lower(a, &o, &g, &kp, &mp, d), 0);

    /* tegra-x1 runs the layers on its GPU (OpenCL, issue 7): the LLVM kernels are the CPU
     * side of the GPU/CPU policy, har_cpu_k<i> in har_cpu_kernels.o */
    snprintf(path, sizeof path, "%s/har_cpu_kernels.o", o.outdir);
    f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)size);
    cr_assert_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    cr_assert(size > (long)sizeof(Elf64_Ehdr));
    cr_assert(memcmp(buf, ELFMAG, SELFMAG) == 0, "not an ELF file");
    cr_assert_eq(buf[EI_CLASS], ELFCLASS64);
    cr_assert_eq(buf[EI_DATA], ELFDATA2LSB);
    cr_assert_eq(((const Elf64_Ehdr *)buf)->e_machine, EM_AARCH64);
    cr_assert_eq(((const Elf64_Ehdr *)buf)->e_type, ET_REL);
    syms = elf_symbols(buf, (size_t)size);
    for (i = 0; i < kp.n_calls; i++) {
        if (!cg_llvm_handles(&kp.calls[i]))
            continue;
        n++;
        snprintf(want, sizeof want, "har_cpu_k%d\n", i);
        cr_assert(strstr(syms, want), "symbol har_cpu_k%d missing; have:\n%s", i, syms);
    }
    cr_assert_geq(n, 2, "an LSTM model gets at least the projection and the time loop");
    free(syms);
    free(buf);
    arena_free(a);
}

Test(llvm_kernels, emit_c_writes_no_object)
{
    /* a host compile with --emit=c writes no kernels object and calls the C kernels */
    arena *a = arena_new(0);
    diag *d = diag_new(a, "pt_har_lstm", stderr);
    driver_options o;
    char path[512];
    struct stat st;

    memset(&o, 0, sizeof o);
    o.model = LSTMC_SOURCE_DIR "/tests/fixtures/cases/pt_har_lstm/model.onnx";
    o.target = "host";
    o.outdir = WORK "/emit_c";
    o.name = "har";
    o.emit = "c";
    mkdir(WORK, 0777);
    cr_assert_eq(driver_compile(a, &o, d), 0);
    /* tegra-x1 runs the layers on its GPU (OpenCL, issue 7): the LLVM kernels are the CPU
     * side of the GPU/CPU policy, har_cpu_k<i> in har_cpu_kernels.o */
    snprintf(path, sizeof path, "%s/har_cpu_kernels.o", o.outdir);
    cr_assert_neq(stat(path, &st), 0, "--emit=c wrote %s", path);
    arena_free(a);
}

/*
 * Issue 21: a projection and a time loop compiled once at MAX T and N with kp_call.dyn set,
 * then run at smaller T, N (the run's values in p), against the C kernels run with the same
 * params. Every buffer is sized for the run as the C kernels read it; after the run's part
 * the inputs hold NaN (a kernel reading there would spread it into the outputs) and the
 * outputs a guard pattern the kernel must leave as it is.
 */
typedef struct dyn_case {
    const char *name;
    int32_t cell, n_dirs, reverse, layout, seqlens, init, peep, lbr;
    int64_t T, N, I, H; /* the MAX the kernels are compiled for */
    unsigned dyn;       /* KP_DYN_SEQ_LEN, KP_DYN_BATCH */
    int threads;        /* > 1: the multi-core kernels (LSTM: emit_rec_mt, U in panels) */
} dyn_case;

#define DYN_GUARD 64 /* floats after the run's part of every buffer */

/* n floats: the first len random (or copied from src), the rest NaN */
static float *
dyn_input(size_t n, size_t len, const float *src, unsigned *seed)
{
    float *v = helpers_rand_vec(n, seed, 1.0f);
    size_t i;
    if (src)
        memcpy(v, src, len * sizeof *v);
    for (i = len; i < n; i++)
        v[i] = NAN;
    return v;
}

/* n floats of the guard pattern */
static float *
dyn_output(size_t n)
{
    float *v = malloc(n * sizeof *v);
    cr_assert(v);
    memset(v, 0x5a, n * sizeof *v);
    return v;
}

/* whether v[from, n) still holds the guard pattern */
static int
dyn_guard_ok(const float *v, size_t from, size_t n)
{
    const unsigned char *b = (const unsigned char *)(v + from);
    size_t i;
    for (i = 0; i < (n - from) * sizeof *v; i++)
        if (b[i] != 0x5a)
            return 0;
    return 1;
}

static void
run_dyn_one(const dyn_case *dc, proj_fn kproj, rec_fn krec, drs_fn kdrs, const float *Uo,
            const float *Ufic, const lstmc_rt_rnn_proj_params *ppmax,
            const lstmc_rt_rnn_params *pmax, const float *w, const float *b, const float *r,
            const float *rk, const float *rbh, int64_t T, int64_t N)
{
    const int64_t Tm = dc->T, Nm = dc->N, I = dc->I, H = dc->H, D = dc->n_dirs;
    const int64_t G = dc->cell == LSTMC_RT_CELL_LSTM ? 4 : dc->cell == LSTMC_RT_CELL_GRU ? 3 : 1;
    const int64_t GH = G * H, rows = T * N;
    const size_t xmax = (size_t)(Tm * Nm * I) + DYN_GUARD;
    const size_t pmaxn = (size_t)(D * Tm * Nm * GH) + DYN_GUARD;
    const size_t ymax = (size_t)(Tm * D * Nm * H) + DYN_GUARD,
                 smax = (size_t)(D * Nm * H) + DYN_GUARD;
    const size_t np = (size_t)(D * rows * GH), ny = (size_t)(T * D * N * H),
                 ns = (size_t)(D * N * H);
    lstmc_rt_rnn_proj_params pp = *ppmax;
    lstmc_rt_rnn_params p = *pmax;
    unsigned seed = (unsigned)(T * 131 + N * 7 + 1);
    float *X = dyn_input(xmax, (size_t)(rows * I), NULL, &seed);
    float *h0 = dyn_input(smax, ns, NULL, &seed), *c0 = dyn_input(smax, ns, NULL, &seed);
    float *pe = helpers_rand_vec((size_t)(D * 3 * H), &seed, 0.5f);
    float *P0 = dyn_output(pmaxn), *P1 = dyn_output(pmaxn), *Pin;
    float *Y0 = dyn_output(ymax), *Y1 = dyn_output(ymax);
    float *Yh0 = dyn_output(smax), *Yh1 = dyn_output(smax);
    float *Yc0 = dyn_output(smax), *Yc1 = dyn_output(smax);
    float *s0 = calloc((size_t)(H * (G + 3)), 4), *s1 = calloc((size_t)(H * (G + 3)), 4);
    int32_t *sl = malloc((size_t)(Nm + 1) * sizeof *sl);
    const float *rb_arg = dc->cell == LSTMC_RT_CELL_GRU && dc->lbr ? rbh : NULL;
    const int32_t *sl_arg = dc->seqlens ? sl : NULL;
    lstmc_rt_status st0, st1;
    int64_t n;

    cr_log_info("%s: T %lld of %lld, N %lld of %lld", dc->name, (long long)T, (long long)Tm,
                (long long)N, (long long)Nm);
    for (n = 0; n <= Nm; n++) /* T, 0 and values between; past N: out of range */
        sl[n] = n < N ? (int32_t)(n == 0 ? T : (n * 5 + 2) % (T + 1)) : (int32_t)Tm + 7;
    pp.rows = rows;
    p.seq_len = T;
    p.batch = N;

    cr_assert_eq(lstmc_rt_rnn_proj(&pp, X, w, b, P0), LSTMC_RT_OK);
    cr_assert_eq(kproj(&pp, X, w, b, P1), LSTMC_RT_OK, "%s: proj status", dc->name);
    cr_assert(helpers_allclose(P1, P0, np, 1e-5f, 1e-5f), "%s T %lld N %lld: proj", dc->name,
              (long long)T, (long long)N);
    cr_assert(dyn_guard_ok(P1, np, pmaxn), "%s T %lld N %lld: proj wrote past the run's rows",
              dc->name, (long long)T, (long long)N);

    Pin = dyn_input(pmaxn, np, P0, &seed);
    st0 = lstmc_rt_rnn_rec(&p, Pin, r, rb_arg, sl_arg, dc->init ? h0 : NULL, dc->init ? c0 : NULL,
                           dc->peep ? pe : NULL, Y0, Yh0, Yc0, s0);
    st1 = krec(&p, Pin, rk, rb_arg, sl_arg, dc->init ? h0 : NULL, dc->init ? c0 : NULL,
               dc->peep ? pe : NULL, Y1, Yh1, Yc1, s1);
    cr_assert_eq(st1, st0, "%s T %lld N %lld: rec status %d, C %d", dc->name, (long long)T,
                 (long long)N, (int)st1, (int)st0);
    cr_assert(helpers_allclose(Y1, Y0, ny, 1e-4f, 1e-5f), "%s T %lld N %lld: Y", dc->name,
              (long long)T, (long long)N);
    cr_assert(helpers_allclose(Yh1, Yh0, ns, 1e-4f, 1e-5f), "%s T %lld N %lld: Y_h", dc->name,
              (long long)T, (long long)N);
    cr_assert(dyn_guard_ok(Y1, ny, ymax), "%s T %lld N %lld: Y written past the run's rows",
              dc->name, (long long)T, (long long)N);
    cr_assert(dyn_guard_ok(Yh1, ns, smax), "%s: Y_h written past the run's batch", dc->name);
    if (dc->cell == LSTMC_RT_CELL_LSTM) {
        cr_assert(helpers_allclose(Yc1, Yc0, ns, 1e-4f, 1e-5f), "%s T %lld N %lld: Y_c", dc->name,
                  (long long)T, (long long)N);
        cr_assert(dyn_guard_ok(Yc1, ns, smax), "%s: Y_c written past the run's batch", dc->name);
    }
    if (kdrs) { /* the same layer with dynamic row skip (alpha_intra > 0: some rows skipped) */
        lstmc_rt_drs_stats ds0, ds1;
        void *w0 = calloc((size_t)lstmc_rt_lstm_drs_scratch(pmax), 4);
        void *w1 = calloc((size_t)lstmc_rt_lstm_drs_scratch(pmax), 4);
        memset(Y1, 0x5a, ymax * 4), memset(Yh1, 0x5a, smax * 4), memset(Yc1, 0x5a, smax * 4);
        st0 = lstmc_rt_lstm_drs(&p, 0.3f, Pin, Uo, Ufic, sl_arg, dc->init ? h0 : NULL,
                                dc->init ? c0 : NULL, dc->peep ? pe : NULL, Y0, Yh0, Yc0, &ds0, w0);
        st1 = kdrs(&p, 0.3f, Pin, Uo, Ufic, sl_arg, dc->init ? h0 : NULL, dc->init ? c0 : NULL,
                   dc->peep ? pe : NULL, Y1, Yh1, Yc1, &ds1, w1);
        cr_assert_eq(st1, st0, "%s T %lld N %lld: drs status %d, C %d", dc->name, (long long)T,
                     (long long)N, (int)st1, (int)st0);
        cr_assert(helpers_allclose(Y1, Y0, ny, 1e-4f, 1e-5f), "%s T %lld N %lld: drs Y", dc->name,
                  (long long)T, (long long)N);
        cr_assert(helpers_allclose(Yh1, Yh0, ns, 1e-4f, 1e-5f), "%s: drs Y_h", dc->name);
        cr_assert(helpers_allclose(Yc1, Yc0, ns, 1e-4f, 1e-5f), "%s: drs Y_c", dc->name);
        cr_assert(dyn_guard_ok(Y1, ny, ymax), "%s: drs Y written past the run's rows", dc->name);
        cr_assert(dyn_guard_ok(Yh1, ns, smax) && dyn_guard_ok(Yc1, ns, smax),
                  "%s: drs Y_h, Y_c written past the run's batch", dc->name);
        cr_assert(memcmp(&ds1, &ds0, sizeof ds0) == 0, "%s T %lld N %lld: drs stats", dc->name,
                  (long long)T, (long long)N);
        free(w0), free(w1);
    }
    if (dc->seqlens && N > 0) { /* an entry past the run's T is refused */
        sl[N - 1] = (int32_t)T + 1;
        cr_assert_eq(krec(&p, Pin, rk, rb_arg, sl, dc->init ? h0 : NULL, dc->init ? c0 : NULL,
                          dc->peep ? pe : NULL, Y1, Yh1, Yc1, s1),
                     LSTMC_RT_ERR_SEQ_LEN, "%s: seq_lens %lld > T %lld", dc->name, (long long)T + 1,
                     (long long)T);
    }
    free(X), free(h0), free(c0), free(pe), free(P0), free(P1), free(Pin), free(Y0), free(Y1);
    free(Yh0), free(Yh1), free(Yc0), free(Yc1), free(s0), free(s1), free(sl);
}

static void
run_dyn_case(const dyn_case *dc)
{
    const int64_t T = dc->T, N = dc->N, I = dc->I, H = dc->H, D = dc->n_dirs;
    const int64_t G = dc->cell == LSTMC_RT_CELL_LSTM ? 4 : dc->cell == LSTMC_RT_CELL_GRU ? 3 : 1;
    const int64_t GH = G * H;
    const int64_t Ts[] = {0, 1, T / 2, T - 1, T}, Ns[] = {1, N / 2, N};
    unsigned seed = 777;
    kprog kp;
    kp_call calls[3];
    unsigned char handled[3];
    lstmc_rt_rnn_proj_params *pp;
    lstmc_rt_rnn_params *p, big;
    /* an LSTM on 1 thread: also as KP_LSTM_DRS (lstmc_rt_lstm_drs) */
    const int drs = dc->cell == LSTMC_RT_CELL_LSTM && dc->threads <= 1 && !dc->peep;
    float *Uo = malloc((size_t)(D * H * H) * 4), *Ufic = malloc((size_t)(D * 3 * H * H) * 4);
    drs_fn kdrs = NULL;
    float *w = helpers_rand_vec((size_t)(D * I * GH), &seed, 0.5f);
    float *b = helpers_rand_vec((size_t)(D * GH), &seed, 0.5f);
    float *r = helpers_rand_vec((size_t)(D * H * GH), &seed, 0.5f);
    float *rbh = helpers_rand_vec((size_t)(D * H), &seed, 0.5f);
    ir_tensor u; /* U, which the multi-core kernels read in panels (rec_relayout) */
    lstmc_rt_rnn_proj_params bigp;
    void *so;
    proj_fn kproj;
    rec_fn krec;
    size_t ti, ni;
    int j;

    memset(&kp, 0, sizeof kp);
    memset(calls, 0, sizeof calls);
    kp.calls = calls;
    kp.n_calls = 2;
    calls[0].kind = KP_RNN_PROJ;
    calls[0].dyn = KP_DYN_ROWS;
    pp = &calls[0].p.proj;
    pp->cell = dc->cell;
    pp->n_dirs = dc->n_dirs;
    pp->rows = T * N;
    pp->input_size = I;
    pp->hidden = H;
    pp->linear_before_reset = dc->lbr;
    pp->packed = 1;
    calls[0].n_in = 3;
    calls[0].n_out = 1;
    for (j = 0; j < 3; j++)
        calls[0].in[j] = &present[j];
    calls[0].out[0] = &present[0];

    calls[1].kind = KP_RNN_REC;
    calls[1].dyn = dc->dyn;
    p = &calls[1].p.rnn;
    p->cell = dc->cell;
    p->seq_len = T;
    p->batch = N;
    p->input_size = I;
    p->hidden = H;
    p->n_dirs = dc->n_dirs;
    p->reverse = dc->reverse;
    p->layout = dc->layout;
    p->linear_before_reset = dc->lbr;
    p->packed = 1;
    for (j = 0; j < 6; j += 3) {
        p->act[j] = (lstmc_rt_act){SIG, 0, 0};
        p->act[j + 1] = (lstmc_rt_act){TANH, 0, 0};
        p->act[j + 2] = (lstmc_rt_act){TANH, 0, 0};
    }
    calls[1].n_in = 7;
    calls[1].n_out = 3;
    calls[1].in[0] = calls[1].in[1] = &present[0];
    if (dc->threads > 1) {
        memset(&u, 0, sizeof u);
        u.dtype = IR_DT_F32;
        u.shape.rank = 3;
        u.shape.d[0] = D;
        u.shape.d[1] = H;
        u.shape.d[2] = GH;
        u.data = malloc((size_t)(D * H * GH) * sizeof(float));
        memcpy(u.data, r, (size_t)(D * H * GH) * sizeof(float));
        calls[1].in[1] = &u;
    }
    calls[1].in[2] = dc->cell == LSTMC_RT_CELL_GRU && dc->lbr ? &present[2] : NULL;
    calls[1].in[3] = dc->seqlens ? &present[3] : NULL;
    calls[1].in[4] = dc->init ? &present[4] : NULL;
    calls[1].in[5] = dc->init ? &present[5] : NULL;
    calls[1].in[6] = dc->peep ? &present[6] : NULL;
    calls[1].out[0] = calls[1].out[1] = calls[1].out[2] = &present[7];
    calls[1].scratch_bytes = H * (G + 3) * 4;
    if (drs) {
        calls[2] = calls[1];
        calls[2].kind = KP_LSTM_DRS;
        calls[2].p.drs.p = *p;
        calls[2].scratch_bytes = 28 * H;
        kp.n_calls = 3;
        cr_assert_eq(lstmc_rt_drs_pack(D, H, r, Uo, Ufic), LSTMC_RT_OK);
    }

    so = build_so_nt(&kp, dc->name, handled, dc->threads > 1 ? dc->threads : 1);
    kproj = (proj_fn)dlsym(so, "t_k0");
    krec = (rec_fn)dlsym(so, "t_k1");
    cr_assert(kproj && krec, "%s: symbols t_k0, t_k1", dc->name);
    if (drs)
        cr_assert((kdrs = (drs_fn)dlsym(so, "t_k2")), "%s: symbol t_k2", dc->name);
    if (dc->threads > 1) /* both on the pool; the LLVM kernel reads U in panels */
        cr_assert(handled[0] == dc->threads && handled[1] == dc->threads, "%s: threads %d %d",
                  dc->name, handled[0], handled[1]);
    for (ti = 0; ti < sizeof Ts / sizeof Ts[0]; ti++)
        for (ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++) {
            if ((!(dc->dyn & KP_DYN_SEQ_LEN) && Ts[ti] != T) ||
                (!(dc->dyn & KP_DYN_BATCH) && Ns[ni] != N))
                continue;
            run_dyn_one(dc, kproj, krec, kdrs, Uo, Ufic, pp, p, w, b, r,
                        dc->threads > 1 ? u.data : r, rbh, Ts[ti], Ns[ni]);
        }

    /* above the compiled MAX: refused, nothing read or written */
    big = *p;
    big.seq_len = dc->dyn & KP_DYN_SEQ_LEN ? T + 1 : T;
    big.batch = dc->dyn & KP_DYN_BATCH ? N + 1 : N;
    cr_assert_eq(krec(&big, NULL, dc->threads > 1 ? u.data : r, NULL, NULL, NULL, NULL, NULL, NULL,
                      NULL, NULL, NULL),
                 LSTMC_RT_ERR_BAD_PARAMS, "%s: T, N above MAX", dc->name);
    if (kdrs)
        cr_assert_eq(
            kdrs(&big, 0.0f, NULL, Uo, Ufic, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            LSTMC_RT_ERR_BAD_PARAMS, "%s: drs T, N above MAX", dc->name);
    bigp = *pp;
    bigp.rows = T * N + 1;
    cr_assert_eq(kproj(&bigp, NULL, w, NULL, NULL), LSTMC_RT_ERR_BAD_PARAMS, "%s: rows above MAX",
                 dc->name);
    if (dc->threads > 1) /* the pool's threads live in t.so: it stays open */
        free(u.data);
    else
        dlclose(so);
    free(w), free(b), free(r), free(rbh), free(Uo), free(Ufic);
}

/* H = 37 and rows up to T*N = 35 as in rec_cases: a tile, a vector tail and a scalar tail,
 * PROJ row blocks with every remainder. */
static const dyn_case dyn_cases[] = {
    {"dyn_lstm_fwd", LSTMC_RT_CELL_LSTM, 1, 0, 0, 0, 0, 0, 0, 7, 5, 6, 37,
     KP_DYN_SEQ_LEN | KP_DYN_BATCH},
    {"dyn_lstm_bidir_l1_sl", LSTMC_RT_CELL_LSTM, 2, 0, 1, 1, 1, 1, 0, 7, 5, 6, 37,
     KP_DYN_SEQ_LEN | KP_DYN_BATCH},
    {"dyn_lstm_rev_sl", LSTMC_RT_CELL_LSTM, 1, 1, 0, 1, 1, 0, 0, 7, 5, 6, 37, KP_DYN_SEQ_LEN},
    {"dyn_lstm_bidir_l0", LSTMC_RT_CELL_LSTM, 2, 0, 0, 0, 1, 0, 0, 6, 4, 5, 20,
     KP_DYN_SEQ_LEN | KP_DYN_BATCH},
    {"dyn_lstm_batch_l1", LSTMC_RT_CELL_LSTM, 1, 0, 1, 1, 1, 0, 0, 6, 5, 5, 20, KP_DYN_BATCH},
    {"dyn_gru_bidir_sl", LSTMC_RT_CELL_GRU, 2, 0, 0, 1, 1, 0, 1, 7, 5, 6, 37,
     KP_DYN_SEQ_LEN | KP_DYN_BATCH},
    {"dyn_gru_rev_l1", LSTMC_RT_CELL_GRU, 1, 1, 1, 0, 0, 0, 0, 7, 3, 6, 37,
     KP_DYN_SEQ_LEN | KP_DYN_BATCH},
    {"dyn_rnn_bidir_l1", LSTMC_RT_CELL_RNN, 2, 0, 1, 1, 1, 0, 0, 7, 5, 6, 37,
     KP_DYN_SEQ_LEN | KP_DYN_BATCH},
    {"dyn_mt_lstm_bidir_l1_sl", LSTMC_RT_CELL_LSTM, 2, 0, 1, 1, 1, 1, 0, 7, 5, 6, 37,
     KP_DYN_SEQ_LEN | KP_DYN_BATCH, 2},
    {"dyn_mt_lstm_rev_l0", LSTMC_RT_CELL_LSTM, 1, 1, 0, 0, 1, 0, 0, 6, 4, 5, 40,
     KP_DYN_SEQ_LEN | KP_DYN_BATCH, 2},
};

Test(llvm_kernels, dyn_matches_c_reference)
{
    size_t i;
    skip_without_llvm();
    for (i = 0; i < sizeof dyn_cases / sizeof dyn_cases[0]; i++)
        run_dyn_case(&dyn_cases[i]);
}

Test(llvm_kernels, dyn_handles)
{
    /* a field the kernel does not read at run time: the C kernel */
    kp_call c;
    memset(&c, 0, sizeof c);
    c.kind = KP_RNN_PROJ;
    c.p.proj.cell = LSTMC_RT_CELL_LSTM;
    c.p.proj.n_dirs = 1;
    c.p.proj.rows = 8;
    c.p.proj.input_size = 4;
    c.p.proj.hidden = 4;
    c.p.proj.packed = 1;
    skip_without_llvm();
    cr_assert(cg_llvm_handles(&c));
    c.dyn = KP_DYN_ROWS;
    cr_assert(cg_llvm_handles(&c));
    c.dyn = KP_DYN_ROWS | KP_DYN_OTHER;
    cr_assert_not(cg_llvm_handles(&c));
    c.dyn = KP_DYN_SEQ_LEN;
    cr_assert_not(cg_llvm_handles(&c));
}
