/*
 * build.c — what `lstmc tune` measures with: the model compiled into the work folder, each
 * library built with make and cc together with compiler/tools/tune/harness.c (embedded in
 * lstmc), and the harness run over the samples, its outputs read back as .npy.
 */
#include "arena.h"
#include "calibrate.h"
#include "cliopt.h"
#include "diag.h"
#include "driver.h"
#include "lstmc_rt.h"
#include "lstmc_rt_npy.h"
#include "outdir.h"
#include "proc.h"
#include "target.h"
#include "tune_impl.h"
#include "tuned.h"
#include "wfmt.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const unsigned char
    tune_harness_src[]; /* compiler/tools/tune/harness.c, embedded by cmake */

int
tune_build_harness(const char *cc_path, const char *dir, long long n_layers, int baseline,
                   const char *make_out)
{
    char ccvar[512], src[4200], exe[4200], inc1[4200], inc2[4200], rtnpy[4200], libp[4200], nl[64];
    static char make_s[] = "make", s_s[] = "-s", c_s[] = "-C", cf[] = "CFLAGS=-O2",
                lib[] = "libm.a";
    static char o2[] = "-O2", std[] = "-std=c11", mh[] = "-DMODEL_H=\"m.h\"", pfx[] = "-DPFX=m",
                upfx[] = "-DUPFX=M", bl[] = "-DBASELINE", lm[] = "-lm", oo[] = "-o";
    char *mk[] = {make_s, s_s, c_s, (char *)dir, ccvar, cf, lib, NULL};
    char *cc[20]; /* 16 arguments at most, and the NULL */
    FILE *f;
    int k = 0;

    snprintf(ccvar, sizeof ccvar, "CC=%s", cc_path);
    if (proc_run(mk, make_out) != 0)
        return -1;
    snprintf(src, sizeof src, "%s/tune_harness.c", dir);
    f = fopen(src, "w");
    if (!f || fputs((const char *)tune_harness_src, f) < 0) {
        if (f)
            fclose(f);
        return -2;
    }
    if (fclose(f) != 0)
        return -2;
    snprintf(exe, sizeof exe, "%s/harness", dir);
    snprintf(inc1, sizeof inc1, "-I%s", dir);
    snprintf(inc2, sizeof inc2, "-I%s/runtime/include", dir);
    snprintf(rtnpy, sizeof rtnpy, "%s/runtime/src/rt_npy.c", dir);
    snprintf(libp, sizeof libp, "%s/libm.a", dir);
    snprintf(nl, sizeof nl, "-DN_LAYERS=%lld", n_layers);
    cc[k++] = (char *)cc_path;
    cc[k++] = o2;
    cc[k++] = std;
    cc[k++] = mh;
    cc[k++] = pfx;
    cc[k++] = upfx;
    cc[k++] = nl;
    if (baseline)
        cc[k++] = bl;
    cc[k++] = inc1;
    cc[k++] = inc2;
    cc[k++] = src;
    cc[k++] = rtnpy;
    cc[k++] = libp;
    cc[k++] = lm;
    cc[k++] = oo;
    cc[k++] = exe;
    cc[k] = NULL;
    return proc_run(cc, NULL) != 0 ? -3 : 0;
}

/* Build the library in dir with make, and the harness beside it. */
static int
build(tune_run *r, const char *dir, int baseline)
{
    switch (tune_build_harness(r->cc, dir, (long long)r->n_layers, baseline, NULL)) {
    case -1:
        diag_error(r->d, "building the generated library in %s failed", dir);
        return -1;
    case -2:
        diag_error(r->d, "cannot write %s/tune_harness.c", dir);
        return -1;
    case -3:
        diag_error(r->d, "building the tuning harness in %s failed", dir);
        return -1;
    }
    return 0;
}

/* Compile the model into work/sub: the exact schedule (its weights in fmt), or the
 * approximate one. */
int
tune_compile(tune_run *r, const char *sub, int approx, const char *calib, const lstmc_npy_info *xi,
             int fmt, int act)
{
    driver_options o;
    arena *a = arena_new(0);
    diag *d = diag_new(a, r->t->model, stderr);
    driver_binding *b;
    int rc;

    memset(&o, 0, sizeof o);
    o.model = r->t->model;
    o.target = r->t->target;
    o.name = "m";
    o.no_budget = 1; /* a harness built on this machine; the real compile checks the budget */
    o.threads = r->threads_now > 0 ? r->threads_now : r->t->threads;
    o.outdir = arena_printf(r->a, "%s/%s", r->work, sub);
    if (!r->measured) { /* another machine: the portable C kernels, on this CPU */
        o.emit = "c";
        o.cpu_only = 1;
    }
    if (act) { /* issue 22: integer layers calibrated on the tuning samples (int8 weights) */
        o.activations = act;
        o.calib_data = r->slice;
    } else if (fmt != LSTMC_RT_WFMT_FP32) {
        o.weights = lowp_name(fmt);
    }
    if (approx) {
        o.has_alpha_inter = strcmp(r->t->vary, "intra") != 0 || approx > 1;
        o.has_alpha_intra = strcmp(r->t->vary, "inter") != 0 && approx == 1;
        o.max_sublayer = approx > 1 ? approx : 0;
        o.calib = o.has_alpha_inter ? calib : NULL;
        o.relevance = o.has_alpha_inter ? r->t->relevance : 0;
    }
    if (proc_mkdirs(o.outdir) != 0) {
        diag_error(r->d, "cannot create %s: %s", o.outdir, strerror(errno));
        arena_free(a);
        return -1;
    }
    b = &o.shapes[o.n_shapes++];
    b->name = NULL; /* the model's one input, by position: set below */
    {
        ir_graph *g = driver_import(a, o.model, d);
        if (!g || g->n_inputs != 1) {
            if (g)
                diag_error(r->d, "tune handles models with one input; this one has %d",
                           g->n_inputs);
            arena_free(a);
            return -1;
        }
        b->name = arena_printf(r->a, "%s", g->inputs[0]->name);
        /* [K, <input shape>], or [K, ...] without the batch axis: batch 1 */
        if (driver_sample_shape(g, g->inputs[0], xi->dims + 1, (int)xi->rank - 1, r->t->data,
                                &b->shape, d) < 0) {
            arena_free(a);
            return -1;
        }
    }
    b->what = r->t->data;
    b->dtype = xi->dtype;
    rc = driver_compile(a, &o, d);
    arena_free(a);
    if (rc < 0)
        return -1;
    return build(r, o.outdir, !approx);
}

/* Run the harness of work/sub over samples [first, first+count) with the threshold pairs
 * (none for the exact build); outputs into *outs (malloc'd, [n_pairs or 1, count, numel]). */
int
tune_harness(tune_run *r, const char *sub, int64_t first, int64_t count, int reps,
             const double *pairs, int n_pairs, hres *res, float **outs)
{
    char exe[4200], first_s[32], count_s[32], reps_s[32], npy[4200], txt[4200], err[256];
    char num[TUNE_SETS * 2][40];
    char *argv[8 + TUNE_SETS * 2];
    lstmc_npy_info info;
    FILE *f;
    int k = 0, i, n_sets = n_pairs ? n_pairs : 1;
    long long c_, numel_;

    snprintf(exe, sizeof exe, "%s/%s/harness", r->work, sub);
    snprintf(first_s, sizeof first_s, "%lld", (long long)first);
    snprintf(count_s, sizeof count_s, "%lld", (long long)count);
    snprintf(reps_s, sizeof reps_s, "%d", reps);
    snprintf(npy, sizeof npy, "%s/%s/out.npy", r->work, sub);
    snprintf(txt, sizeof txt, "%s/%s/out.txt", r->work, sub);
    argv[k++] = exe;
    argv[k++] = (char *)r->t->data;
    argv[k++] = first_s;
    argv[k++] = count_s;
    argv[k++] = reps_s;
    argv[k++] = npy;
    for (i = 0; i < 2 * n_pairs; i++) {
        snprintf(num[i], sizeof num[i], "%.9g", pairs[i]);
        argv[k++] = num[i];
    }
    argv[k] = NULL;
    if (proc_run(argv, txt) != 0) {
        if (!tune_interrupted)
            diag_error(r->d, "the tuning harness %s failed", exe);
        return -1;
    }
    f = fopen(txt, "r");
    if (!f || fscanf(f, "out %lld %lld", &c_, &numel_) != 2) {
        diag_error(r->d, "cannot read the harness's results %s", txt);
        if (f)
            fclose(f);
        return -1;
    }
    r->C = c_;
    r->numel = numel_;
    for (i = 0; i < n_sets; i++) {
        int s;
        if (fscanf(f, "%d %lf %lf %lf %lf", &s, &res[i].us, &res[i].tissues, &res[i].sub,
                   &res[i].skipped) != 5 ||
            s != i) {
            fclose(f);
            diag_error(r->d, "cannot read the harness's results %s", txt);
            return -1;
        }
    }
    fclose(f);
    if (lstmc_npy_info_read(npy, &info, err, sizeof err) != 0 ||
        info.n_elems != n_sets * count * r->numel || info.dtype != LSTMC_RT_F32 ||
        !(*outs = malloc(info.n_bytes)) ||
        lstmc_npy_read_data(npy, &info, *outs, info.n_bytes, err, sizeof err) != 0) {
        diag_error(r->d, "cannot read the harness's outputs %s", npy);
        return -1;
    }
    return 0;
}
