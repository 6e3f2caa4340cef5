/*
 * tune.c — `lstmc tune` (contract in tune.h; MICRO'18 §IV-D, §VI-C).
 *
 * Speed is measured on the real generated code: the model is compiled twice into a work
 * folder — the exact schedule (the target's default passes, LLVM kernels) and the
 * approximate one (breakpoints + tissues with the calibrated context link, thresholds set
 * per run) — each is built with make and cc together with compiler/tools/tune/harness.c (embedded in
 * lstmc), and the harness runs the samples and writes every output back as .npy, which is
 * scored here. For a target that is not this machine both are compiled with --emit=c for the
 * host (accuracy and tissue counts do not depend on the CPU) and the speed-up is the memory
 * model's estimate, T reads of U per layer against one per tissue, labelled as such.
 */
#include "tune.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "calibrate.h"
#include "cliopt.h"
#include "diag.h"
#include "driver.h"
#include "lowp.h"
#include "lstmc_rt.h"
#include "lstmc_rt_npy.h"
#include "outdir.h"
#include "proc.h"
#include "target.h"
#include "wfmt.h"

#define TUNED_MAGIC "lstmc-thresholds 1"

extern const unsigned char tune_harness_src[]; /* compiler/tools/tune/harness.c, embedded by cmake */

/* --- choosing --------------------------------------------------------------------------- */

void
tune_pick(const tune_point *p, int n, double pref, int *ao, int *bpa)
{
    double best_s = 1.0, best_sa = 1.0;
    int i;
    *ao = -1;
    *bpa = -1;
    for (i = 0; i < n; i++) {
        if (p[i].norm_acc >= pref && p[i].speedup > best_s) {
            best_s = p[i].speedup;
            *ao = i;
        }
        if (p[i].speedup * p[i].norm_acc > best_sa) {
            best_sa = p[i].speedup * p[i].norm_acc;
            *bpa = i;
        }
    }
}

long long
tune_n_min(long long n_origin, int mts)
{
    if (mts < 1)
        mts = 1;
    return (n_origin + mts - 1) / mts;
}

/* --- reading TUNED ---------------------------------------------------------------------- */

int
tune_load(arena *a, const char *path, driver_options *o, diag *d)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int lineno = 0, approx = -1, seen = 0, vary = 3; /* bit 1: inter, bit 2: intra */
    const char *weights = NULL; /* a static name from lowp_name */
    double v;

    if (!f) {
        diag_error(d, "--thresholds %s: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char key[64], val[4000];
        size_t n = strlen(line);
        lineno++;
        if (n && line[n - 1] == '\n')
            line[--n] = '\0';
        if (lineno == 1) {
            if (strcmp(line, TUNED_MAGIC) != 0) {
                diag_error(d, "--thresholds %s: not a file lstmc tune wrote (the first line "
                              "is not '%s')",
                           path, TUNED_MAGIC);
                goto bad;
            }
            continue;
        }
        if (!line[0] || line[0] == '#')
            continue;
        if (sscanf(line, "%63s %3999[^\n]", key, val) != 2) {
            diag_error(d, "--thresholds %s:%d: expected 'KEY VALUE'", path, lineno);
            goto bad;
        }
        if (strcmp(key, "schedule") == 0) {
            if (strcmp(val, "approx") && strcmp(val, "exact")) {
                diag_error(d, "--thresholds %s:%d: schedule is approx or exact, not '%s'", path,
                           lineno, val);
                goto bad;
            }
            approx = strcmp(val, "approx") == 0;
        } else if (strcmp(key, "weights") == 0 || strcmp(key, "bpa_weights") == 0) {
            if (lowp_parse(val) < 0) {
                diag_error(d, "--thresholds %s:%d: %s is fp32, fp16, bf16 or int8, not '%s'",
                           path, lineno, key, val);
                goto bad;
            }
            if (strcmp(key, "weights") == 0)
                weights = lowp_name(lowp_parse(val));
        } else if (strcmp(key, "vary") == 0) {
            if (strcmp(val, "both") && strcmp(val, "inter") && strcmp(val, "intra")) {
                diag_error(d, "--thresholds %s:%d: vary is both, inter or intra, not '%s'", path,
                           lineno, val);
                goto bad;
            }
            vary = strcmp(val, "inter") == 0 ? 1 : strcmp(val, "intra") == 0 ? 2 : 3;
        } else if (strcmp(key, "calib") == 0) {
            if (!o->calib) {
                const char *slash = strrchr(path, '/');
                o->calib = val[0] == '/' || !slash
                               ? arena_printf(a, "%s", val)
                               : arena_printf(a, "%.*s/%s", (int)(slash - path), path, val);
            }
        } else {
            char *end;
            float *dst = NULL;
            v = strtod(val, &end);
            if (*end || end == val || !(v >= 0) || v > 1e30) {
                diag_error(d, "--thresholds %s:%d: %s takes a number >= 0, got '%s'", path,
                           lineno, key, val);
                goto bad;
            }
            if (strcmp(key, "alpha_inter") == 0)
                dst = &o->alpha_inter, seen |= 1;
            else if (strcmp(key, "alpha_intra") == 0)
                dst = &o->alpha_intra, seen |= 2;
            else if (strcmp(key, "alpha_inter_max") == 0)
                dst = &o->alpha_inter_max;
            else if (strcmp(key, "alpha_intra_max") == 0)
                dst = &o->alpha_intra_max;
            else if (strcmp(key, "bpa_alpha_inter") && strcmp(key, "bpa_alpha_intra")) {
                diag_error(d, "--thresholds %s:%d: unknown key '%s'", path, lineno, key);
                goto bad;
            }
            if (dst)
                *dst = (float)v;
        }
    }
    if (lineno == 0 || approx < 0 || seen != 3) {
        diag_error(d, "--thresholds %s: incomplete (needs schedule, alpha_inter and "
                      "alpha_intra)",
                   path);
        goto bad;
    }
    fclose(f);
    o->has_alpha_inter = approx && (vary & 1);
    o->has_alpha_intra = approx && (vary & 2) && (o->alpha_intra > 0 || o->alpha_intra_max > 0);
    if (!o->has_alpha_inter)
        o->alpha_inter = 0;
    if (!o->has_alpha_intra)
        o->alpha_intra = 0;
    if (weights && approx) {
        diag_error(d, "--thresholds %s: weights %s with the approximate schedule (tissues and "
                      "row skip run on fp32 weights only)",
                   path, weights);
        return -1;
    }
    if (weights && !o->weights) /* an explicit --weights wins */
        o->weights = weights;
    if (!approx)
        o->alpha_inter = o->alpha_intra = 0;
    return 0;
bad:
    fclose(f);
    return -1;
}

/* --- the command ------------------------------------------------------------------------ */

typedef struct topts {
    const char *model, *target, *data, *labels, *out, *keep, *metric;
    const char *vary; /* both, inter, intra: which thresholds the sets move */
    double accuracy, holdout;
    int reps;
    int fmts[WFMT_COUNT - 1], n_fmts; /* --weights: the reduced formats to try */
} topts;

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static const char tune_usage[] =
    "usage: lstmc tune MODEL.onnx --data X.npy [--labels Y.npy] --accuracy A -o TUNED\n"
    "                  [--target=NAME] [--holdout=F] [--reps=N] [--metric=top1|error]\n"
    "                  [--vary=both|inter|intra] [--weights=LIST] [--keep-build=DIR]\n"
    "  --data X.npy      samples of the model's one input stacked on axis 0 [K, ...]\n"
    "  --labels Y.npy    integer labels, K x (positions of output 0); without them accuracy\n"
    "                    is agreement with the exact model\n"
    "  --accuracy A      the accuracy to keep, relative to the exact model's (0.98: lose at\n"
    "                    most 2 %% of it), in (0, 1]\n"
    "  --holdout F       the last F of the samples are held out and only scored (0.3)\n"
    "  --reps N          timed runs per sample (3)\n"
    "  --metric M        top1: argmax over output 0's last axis (default when it has >= 2\n"
    "                    classes); error: 1 - ||y - y_exact|| / ||y_exact|| per sample\n"
    "  --vary V          the thresholds the 11 sets move: both (the paper's, default),\n"
    "                    inter (breakpoints + tissues only) or intra (row skip only)\n"
    "  --weights LIST    also try the exact schedule with its weights stored in these\n"
    "                    formats: a comma list of fp16, bf16, int8 (fp32 is always the\n"
    "                    baseline), or all\n"
    "writes TUNED (for lstmc --thresholds=TUNED), TUNED.calib, TUNED.txt and TUNED.svg\n";

static int
tusage(const char *msg, const char *arg)
{
    fprintf(stderr, "lstmc tune: ");
    fprintf(stderr, msg, arg);
    fprintf(stderr, "\n%s", tune_usage);
    return 2;
}


/* --weights=LIST into t->fmts (each reduced format once, in wfmt order). 0, or -1. */
static int
parse_formats(const char *v, topts *t)
{
    int want[WFMT_COUNT] = {0}, f;
    const char *p = v;
    if (!strcmp(v, "all")) {
        for (f = 0; f < WFMT_COUNT; f++)
            want[f] = 1;
    } else {
        for (;;) {
            char name[8];
            size_t n = strcspn(p, ",");
            if (n == 0 || n >= sizeof name)
                return -1;
            memcpy(name, p, n);
            name[n] = '\0';
            if ((f = lowp_parse(name)) < 0)
                return -1;
            want[f] = 1;
            if (!p[n])
                break;
            p += n + 1;
        }
    }
    t->n_fmts = 0;
    for (f = WFMT_FP32 + 1; f < WFMT_COUNT; f++)
        if (want[f])
            t->fmts[t->n_fmts++] = f;
    return 0;
}

static int
parse(int argc, char **argv, topts *t)
{
    int i;
    memset(t, 0, sizeof *t);
    t->target = "host";
    t->holdout = 0.3;
    t->reps = 3;
    t->accuracy = -1;
    t->vary = "both";
    for (i = 1; i < argc; i++) {
        const char *v;
        char *end;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(tune_usage, stdout);
            exit(0);
        } else if ((v = cli_opt(argc, argv, &i, "--target"))) {
            t->target = v;
        } else if ((v = cli_opt(argc, argv, &i, "--data"))) {
            t->data = v;
        } else if ((v = cli_opt(argc, argv, &i, "--labels"))) {
            t->labels = v;
        } else if ((v = cli_opt(argc, argv, &i, "-o"))) {
            t->out = v;
        } else if ((v = cli_opt(argc, argv, &i, "--keep-build"))) {
            t->keep = v;
        } else if ((v = cli_opt(argc, argv, &i, "--vary"))) {
            if (strcmp(v, "both") && strcmp(v, "inter") && strcmp(v, "intra"))
                return tusage("--vary takes both, inter or intra, got '%s'", v);
            t->vary = v;
        } else if ((v = cli_opt(argc, argv, &i, "--weights"))) {
            if (parse_formats(v, t) < 0)
                return tusage("--weights takes a comma list of fp32, fp16, bf16, int8 or all, "
                              "got '%s'",
                              v);
        } else if ((v = cli_opt(argc, argv, &i, "--metric"))) {
            if (strcmp(v, "top1") && strcmp(v, "error"))
                return tusage("--metric takes top1 or error, got '%s'", v);
            t->metric = v;
        } else if ((v = cli_opt(argc, argv, &i, "--accuracy"))) {
            t->accuracy = strtod(v, &end);
            if (*end || end == v || !(t->accuracy > 0 && t->accuracy <= 1))
                return tusage("--accuracy takes a number in (0, 1], got '%s'", v);
        } else if ((v = cli_opt(argc, argv, &i, "--holdout"))) {
            t->holdout = strtod(v, &end);
            if (*end || end == v || !(t->holdout >= 0 && t->holdout < 1))
                return tusage("--holdout takes a fraction in [0, 1), got '%s'", v);
        } else if ((v = cli_opt(argc, argv, &i, "--reps"))) {
            long r = strtol(v, &end, 10);
            if (*end || end == v || r < 1 || r > 1000)
                return tusage("--reps takes an integer from 1 to 1000, got '%s'", v);
            t->reps = (int)r;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return tusage("unknown or incomplete option '%s'", argv[i]);
        } else if (!t->model) {
            t->model = argv[i];
        } else {
            return tusage("unexpected argument '%s'", argv[i]);
        }
    }
    if (!t->model)
        return tusage("no model given%s", "");
    if (!t->data || !t->out || t->accuracy < 0)
        return tusage("tune needs --data, --accuracy and -o%s", "");
    return 0;
}

/* State of one tuning run. */
typedef struct tune_run {
    topts *t;
    arena *a;
    diag *d;
    const char *work;
    const char *cc;
    int measured; /* the target is this machine: time the real code; else estimate */
    int64_t K, n_tune, n_hold, n_layers, T;
    int64_t C, numel; /* output 0: last dim, elements */
    int top1;
    int64_t *labels;  /* K * positions, or NULL */
    float *exact_tune, *exact_hold; /* output 0 of the exact model */
    double exact_acc_tune, exact_acc_hold;
    double exact_us;
} tune_run;

static int
stopped(tune_run *r)
{
    if (interrupted) {
        diag_error(r->d, "interrupted; nothing written");
        return 1;
    }
    return 0;
}

/* Build the library in dir with make, and the harness beside it. */
static int
build(tune_run *r, const char *dir, int baseline)
{
    char ccvar[512], lib[64], src[4200], exe[4200], inc1[4200], inc2[4200], rtnpy[4200],
        libp[4200], nl[64];
    static char make_s[] = "make", s_s[] = "-s", c_s[] = "-C", cf[] = "CFLAGS=-O2";
    static char o2[] = "-O2", std[] = "-std=c11", mh[] = "-DMODEL_H=\"m.h\"", pfx[] = "-DPFX=m",
                upfx[] = "-DUPFX=M", bl[] = "-DBASELINE", lm[] = "-lm", oo[] = "-o";
    char *mk[] = {make_s, s_s, c_s, (char *)dir, ccvar, cf, lib, NULL};
    char *cc[20]; /* 16 arguments at most, and the NULL */
    FILE *f;
    int k = 0;

    snprintf(ccvar, sizeof ccvar, "CC=%s", r->cc);
    snprintf(lib, sizeof lib, "libm.a");
    if (proc_run(mk, NULL) != 0) {
        diag_error(r->d, "building the generated library in %s failed", dir);
        return -1;
    }
    snprintf(src, sizeof src, "%s/tune_harness.c", dir);
    f = fopen(src, "w");
    if (!f || fputs((const char *)tune_harness_src, f) < 0 || fclose(f) != 0) {
        diag_error(r->d, "cannot write %s", src);
        return -1;
    }
    snprintf(exe, sizeof exe, "%s/harness", dir);
    snprintf(inc1, sizeof inc1, "-I%s", dir);
    snprintf(inc2, sizeof inc2, "-I%s/runtime/include", dir);
    snprintf(rtnpy, sizeof rtnpy, "%s/runtime/src/rt_npy.c", dir);
    snprintf(libp, sizeof libp, "%s/libm.a", dir);
    snprintf(nl, sizeof nl, "-DN_LAYERS=%lld", (long long)r->n_layers);
    cc[k++] = (char *)r->cc;
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
    if (proc_run(cc, NULL) != 0) {
        diag_error(r->d, "building the tuning harness in %s failed", dir);
        return -1;
    }
    return 0;
}

/* Compile the model into work/sub: the exact schedule (its weights in fmt), or the
 * approximate one. */
static int
compile(tune_run *r, const char *sub, int approx, const char *calib, const lstmc_npy_info *xi,
        int fmt)
{
    driver_options o;
    arena *a = arena_new(0);
    diag *d = diag_new(a, r->t->model, stderr);
    driver_binding *b;
    int i, rc;

    memset(&o, 0, sizeof o);
    o.model = r->t->model;
    o.target = r->t->target;
    o.name = "m";
    o.outdir = arena_printf(r->a, "%s/%s", r->work, sub);
    if (!r->measured) { /* another machine: the portable C kernels, on this CPU */
        o.emit = "c";
        o.cpu_only = 1;
    }
    if (fmt != WFMT_FP32)
        o.weights = lowp_name(fmt);
    if (approx) {
        o.has_alpha_inter = strcmp(r->t->vary, "intra") != 0;
        o.has_alpha_intra = strcmp(r->t->vary, "inter") != 0;
        o.calib = o.has_alpha_inter ? calib : NULL;
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
    }
    b->what = r->t->data;
    b->dtype = xi->dtype;
    b->shape.rank = xi->rank - 1;
    for (i = 1; i < xi->rank; i++)
        b->shape.d[i - 1] = xi->dims[i];
    rc = driver_compile(a, &o, d);
    arena_free(a);
    if (rc < 0)
        return -1;
    return build(r, o.outdir, !approx);
}

/* One harness result line. */
typedef struct hres {
    double us, tissues, sub, skipped;
} hres;

/* Run the harness of work/sub over samples [first, first+count) with the threshold pairs
 * (none for the exact build); outputs into *outs (malloc'd, [n_pairs or 1, count, numel]). */
static int
harness(tune_run *r, const char *sub, int64_t first, int64_t count, int reps,
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
        if (!interrupted)
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

static int64_t
argmax(const float *v, int64_t n)
{
    int64_t j, best = 0;
    for (j = 1; j < n; j++)
        if (v[j] > v[best])
            best = j;
    return best;
}

/* Accuracy of y (count samples from first) against the labels, or against the exact
 * outputs y0 when there are no labels. */
static double
score(const tune_run *r, const float *y, const float *y0, int64_t first, int64_t count)
{
    int64_t k, p, pos = r->numel / r->C, hit = 0;
    double acc = 0;
    if (r->top1) {
        for (k = 0; k < count; k++)
            for (p = 0; p < pos; p++) {
                const float *v = y + (k * pos + p) * r->C;
                int64_t want = r->labels ? r->labels[(first + k) * pos + p]
                                         : argmax(y0 + (k * pos + p) * r->C, r->C);
                hit += argmax(v, r->C) == want;
            }
        return (double)hit / (double)(count * pos);
    }
    for (k = 0; k < count; k++) {
        double e = 0, n = 0;
        for (p = 0; p < r->numel; p++) {
            double a = y[k * r->numel + p], b = y0[k * r->numel + p];
            e += (a - b) * (a - b);
            n += b * b;
        }
        acc += n > 0 ? fmax(0.0, 1.0 - sqrt(e / n)) : (e == 0);
    }
    return acc / (double)count;
}

/* Mean tissues per layer and the fraction of rows skipped at (alpha_inter, alpha_intra),
 * over the first probe samples. */
static int
probe2(tune_run *r, double alpha_inter, double alpha_intra, double *tissues, double *skipped)
{
    double pair[2] = {alpha_inter, alpha_intra};
    int64_t n = r->n_tune < 32 ? r->n_tune : 32;
    hres h;
    float *o = NULL;
    int rc = harness(r, "approx", 0, n, 1, pair, 1, &h, &o);
    free(o);
    *tissues = h.tissues;
    *skipped = h.skipped;
    return rc;
}

static int
probe(tune_run *r, double alpha, double *tissues)
{
    double skipped;
    return probe2(r, alpha, 0, tissues, &skipped);
}

/* The alpha_intra upper limit: the smallest alpha_intra (in [0, 1]: o_t is a sigmoid) at
 * which dynamic row skip skips half of the rows of U_f,i,c, the compression the paper reports
 * on average (50.35 %, §VI-B); 0 when no layer has dynamic row skip. */
static int
intra_limit(tune_run *r, double *limit)
{
    double lo = 0, hi = 1, tis, sk;
    int i;
    *limit = 0;
    if (probe2(r, 0, 1, &tis, &sk) < 0)
        return -1;
    if (sk <= 0)
        return 0; /* no DRS layer (GRU / RNN, output-gate peepholes) */
    if (sk < 0.5) {
        *limit = 1;
        return 0;
    }
    for (i = 0; i < 10; i++) {
        double mid = 0.5 * (lo + hi);
        if (stopped(r) || probe2(r, 0, mid, &tis, &sk) < 0)
            return -1;
        fprintf(stderr, "lstmc: tune: alpha_intra limit search %2d/10: alpha %-8.4g %.1f %% of "
                        "rows skipped\n",
                i + 1, mid, 100 * sk);
        if (sk >= 0.5)
            hi = mid;
        else
            lo = mid;
    }
    *limit = hi;
    return 0;
}

/* The alpha_inter upper limit (§IV-D step 2): the smallest alpha at which the mean tissue
 * count per layer reaches N_min (within 2 %). */
static int
inter_limit(tune_run *r, double s_max, long long n_min, double *limit)
{
    double lo = 0, hi = s_max > 0 ? s_max * 1.01 : 1, tis, goal = (double)n_min * 1.02 + 1e-9;
    int i;
    if (probe(r, 0, &tis) < 0)
        return -1;
    fprintf(stderr, "lstmc: tune: alpha_inter 0: %.2f tissues per layer (N_min %lld)\n", tis,
            n_min);
    if (tis <= goal) {
        *limit = 0;
        return 0;
    }
    for (i = 0;; i++) {
        if (stopped(r) || probe(r, hi, &tis) < 0)
            return -1;
        if (tis <= goal)
            break;
        if (i == 6) {
            fprintf(stderr, "lstmc: tune: warning: even alpha_inter %g leaves %.2f tissues per "
                            "layer, above N_min %lld; using it as the limit\n",
                    hi, tis, n_min);
            *limit = hi;
            return 0;
        }
        hi *= 10;
    }
    for (i = 0; i < 12; i++) {
        double mid = 0.5 * (lo + hi);
        if (stopped(r) || probe(r, mid, &tis) < 0)
            return -1;
        fprintf(stderr, "lstmc: tune: alpha_inter limit search %2d/12: alpha %-10.4g %.2f "
                        "tissues per layer\n",
                i + 1, mid, tis);
        if (tis <= goal)
            hi = mid;
        else
            lo = mid;
    }
    *limit = hi;
    return 0;
}

/*
 * alpha_inter of set i. The relevance S of an LSTM's links is far from uniform (on the
 * trained HAR model 99 % of it lies between 504 and 512 = 16 H, its ceiling), so equal steps
 * of alpha would jump from no cut link to all of them. The steps are equal in the share of
 * the calibration links they cut instead: set i cuts i/10 of the links below the limit.
 */
static double
inter_set(const calib_summary *cs, double limit, int i)
{
    double below = 0, f, q;
    int j;
    if (i == 0)
        return 0;
    if (i == TUNE_SETS - 1)
        return limit;
    for (j = 0; j <= 100 && cs->s_pct[j] < limit; j++)
        below = j; /* percent of the links with S below the limit, to 1 % */
    f = below * i / (TUNE_SETS - 1); /* the percentile to cut up to */
    j = (int)f;
    q = j < 100 ? cs->s_pct[j] + (f - j) * (cs->s_pct[j + 1] - cs->s_pct[j]) : cs->s_pct[100];
    return q < limit ? q : limit;
}

/* --- reporting -------------------------------------------------------------------------- */

/* The work sub-folder of the exact schedule with its weights in fmt. */
static const char *
fmt_sub(tune_run *r, int fmt)
{
    return arena_printf(r->a, "exact_%s", lowp_name(fmt));
}

/* "set 3", or "the exact schedule with fp16 weights". */
static const char *
point_name(tune_run *r, const tune_point *p, int i)
{
    return p[i].wfmt != WFMT_FP32
               ? arena_printf(r->a, "the exact schedule with %s weights", lowp_name(p[i].wfmt))
               : arena_printf(r->a, "set %d", i);
}

/* The first column of point i: the set's number or the weights' format. */
static void
point_label(char *buf, size_t n, const tune_point *p, int i)
{
    if (p[i].wfmt != WFMT_FP32)
        snprintf(buf, n, "%s", lowp_name(p[i].wfmt));
    else
        snprintf(buf, n, "%d", i);
}

static void
table(FILE *f, const tune_run *r, const tune_point *p, int n, int ao, int bpa)
{
    int i;
    fprintf(f, "| set | alpha_inter | alpha_intra | tissues/layer | rows skipped | accuracy | "
               "normalised | median us | speed-up%s |\n",
            r->measured ? "" : " (estimated)");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
    fprintf(f, "| exact | - | - | %lld | - | %.4f | 1.0000 | %.1f | 1.00x |\n",
            (long long)r->T, r->exact_acc_tune, r->exact_us);
    for (i = 0; i < n; i++) {
        char tis[32], label[16];
        if (p[i].tissues > 0) /* 0: no layer in tissues (--vary=intra, a format candidate) */
            snprintf(tis, sizeof tis, "%.2f", p[i].tissues);
        else
            snprintf(tis, sizeof tis, "-");
        point_label(label, sizeof label, p, i);
        fprintf(f, "| %s%s%s | %.6g | %.6g | %s | %.1f %% | %.4f | %.4f | %.1f | %.2fx |\n",
                label, i == ao ? " AO" : "", i == bpa ? " BPA" : "", p[i].alpha_inter,
                p[i].alpha_intra, tis, 100 * p[i].skipped, p[i].accuracy, p[i].norm_acc,
                p[i].us, p[i].speedup);
    }
}

/* The Fig. 19 style plot: speed-up (bars) and normalised accuracy (line) per set. */
static int
svg(const char *path, const tune_run *r, const tune_point *p, int n, int ao, int bpa,
    double pref)
{
    FILE *f = fopen(path, "w");
    const double W = 640, H = 360, x0 = 60, y0 = 40, pw = 520, ph = 260;
    double smax = 1, bw = pw / n;
    char label[16];
    int i;
    if (!f)
        return -1;
    for (i = 0; i < n; i++)
        if (p[i].speedup > smax)
            smax = p[i].speedup;
    smax = ceil(smax * 1.1 * 2) / 2;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"%g\" y=\"20\" font-size=\"14\">lstmc tune: speed-up%s and "
               "accuracy per threshold set (accuracy kept: %.3g)</text>\n",
            W, H, x0, r->measured ? "" : " (estimated)", pref);
    fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n", x0, y0 + ph,
            x0 + pw, y0 + ph);
    fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n", x0, y0, x0,
            y0 + ph);
    fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n", x0 + pw,
            y0, x0 + pw, y0 + ph);
    for (i = 0; i <= 4; i++) {
        double y = y0 + ph - ph * i / 4.0;
        fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%.2gx</text>\n", x0 - 4, y + 4,
                smax * i / 4.0);
        fprintf(f, "<text x=\"%g\" y=\"%g\">%d%%</text>\n", x0 + pw + 4, y + 4, 25 * i);
    }
    /* speed-up 1 (the exact schedule) */
    fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"gray\" "
               "stroke-dasharray=\"4\"/>\n",
            x0, y0 + ph - ph / smax, x0 + pw, y0 + ph - ph / smax);
    for (i = 0; i < n; i++) {
        double h = ph * p[i].speedup / smax, x = x0 + i * bw;
        point_label(label, sizeof label, p, i);
        fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"%s\"/>\n",
                x + bw * 0.15, y0 + ph - h, bw * 0.7, h,
                i == ao ? "#2a9d8f" : i == bpa ? "#e9c46a" : "#8ab6d6");
        fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s%s</text>\n", x + bw / 2,
                y0 + ph + 16, label, i == ao ? " AO" : i == bpa ? " BPA" : "");
    }
    fputs("<polyline fill=\"none\" stroke=\"#d62828\" stroke-width=\"2\" points=\"", f);
    for (i = 0; i < n; i++)
        fprintf(f, "%g,%g ", x0 + i * bw + bw / 2,
                y0 + ph - ph * fmin(fmax(p[i].norm_acc, 0), 1));
    fputs("\"/>\n", f);
    fprintf(f, "<text x=\"%g\" y=\"%g\">bars: speed-up over the exact schedule (left); red: "
               "accuracy / exact accuracy (right); threshold set 0..10%s</text>\n",
            x0, H - 12, n > TUNE_SETS ? ", then the exact schedule per weights format" : "");
    fputs("</svg>\n", f);
    return fclose(f);
}

/* Append the file at from to b. 0, or -1. */
static int
cat_file(const char *from, FILE *b)
{
    FILE *a = fopen(from, "rb");
    char buf[65536];
    size_t n;
    int bad = 0;
    if (!a)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0)
        bad |= fwrite(buf, 1, n, b) != n;
    bad |= ferror(a);
    fclose(a);
    return bad ? -1 : 0;
}

static int
copy_file(const char *from, const char *to)
{
    FILE *b = fopen(to, "wb");
    int bad;
    if (!b)
        return -1;
    bad = cat_file(from, b);
    return (fclose(b) != 0 || bad) ? -1 : 0;
}

/* --- main ------------------------------------------------------------------------------- */

static int
load_labels(tune_run *r)
{
    lstmc_npy_info li;
    char err[256];
    void *buf;
    int64_t pos = r->numel / r->C, i;
    if (lstmc_npy_info_read(r->t->labels, &li, err, sizeof err) != 0) {
        diag_error(r->d, "--labels %s: %s", r->t->labels, err);
        return -1;
    }
    if ((li.dtype != LSTMC_RT_I64 && li.dtype != LSTMC_RT_I32) ||
        li.n_elems != r->K * pos) {
        diag_error(r->d, "--labels %s: expected %lld int64 or int32 labels (%lld samples x %lld "
                         "positions of output 0), got %lld elements",
                   r->t->labels, (long long)(r->K * pos), (long long)r->K, (long long)pos,
                   (long long)li.n_elems);
        return -1;
    }
    buf = malloc(li.n_bytes ? li.n_bytes : 1);
    r->labels = malloc((size_t)(r->K * pos) * sizeof *r->labels);
    if (!buf || !r->labels ||
        lstmc_npy_read_data(r->t->labels, &li, buf, li.n_bytes, err, sizeof err) != 0) {
        diag_error(r->d, "--labels %s: %s", r->t->labels, buf ? err : "out of memory");
        free(buf);
        return -1;
    }
    for (i = 0; i < r->K * pos; i++) {
        r->labels[i] =
            li.dtype == LSTMC_RT_I64 ? ((int64_t *)buf)[i] : (int64_t)((int32_t *)buf)[i];
        if (r->labels[i] < 0 || r->labels[i] >= r->C) {
            diag_error(r->d, "--labels %s: label %lld at %lld is not a class of output 0 "
                             "(0..%lld)",
                       r->t->labels, (long long)r->labels[i], (long long)i,
                       (long long)(r->C - 1));
            free(buf);
            return -1;
        }
    }
    free(buf);
    return 0;
}

static int
run(tune_run *r)
{
    topts *t = r->t;
    lstmc_npy_info xi;
    char err[256];
    const char *slice, *calib;
    calib_summary cs;
    const target *tg = target_resolve(t->target, r->d);
    tune_point p[TUNE_MAX_POINTS];
    double pairs[2 * TUNE_SETS], inter_max = 0, intra_max = 0, us2;
    hres h[TUNE_SETS];
    float *y = NULL;
    long long n_min;
    int mts, i, ao, bpa, n = TUNE_SETS + t->n_fmts;

    if (!tg)
        return -1;
    r->measured = !tg->triple || !tg->triple[0];
    if (lstmc_npy_info_read(t->data, &xi, err, sizeof err) != 0) {
        diag_error(r->d, "--data %s: %s", t->data, err);
        return -1;
    }
    if (xi.rank < 2 || xi.dims[0] < 2) {
        diag_error(r->d, "--data %s: expected K >= 2 samples stacked on a leading axis", t->data);
        return -1;
    }
    r->K = xi.dims[0];
    r->n_hold = (int64_t)floor((double)r->K * t->holdout);
    r->n_tune = r->K - r->n_hold;
    if (r->n_tune < 1) {
        diag_error(r->d, "--holdout %g leaves no samples to tune on", t->holdout);
        return -1;
    }

    /* 1. the predicted context link, from the tuning samples only */
    slice = arena_printf(r->a, "%s/tune_x.npy", r->work);
    {
        unsigned char *buf = malloc(xi.n_bytes);
        int64_t dims[LSTMC_RT_MAX_RANK];
        int bad;
        memcpy(dims, xi.dims, sizeof dims);
        dims[0] = r->n_tune;
        snprintf(err, sizeof err, "out of memory");
        bad = !buf || lstmc_npy_read_data(t->data, &xi, buf, xi.n_bytes, err, sizeof err) != 0 ||
              lstmc_npy_write(slice, xi.dtype, xi.rank, dims, buf, err, sizeof err) != 0;
        free(buf);
        if (bad) {
            diag_error(r->d, "--data %s: %s", t->data, err);
            return -1;
        }
    }
    fprintf(stderr, "lstmc: tune: %lld samples: %lld to tune on, %lld held out\n",
            (long long)r->K, (long long)r->n_tune, (long long)r->n_hold);
    fprintf(stderr, "lstmc: tune: calibrating the predicted context link (Eq. 6)\n");
    calib = arena_printf(r->a, "%s/tuned.calib", r->work);
    {
        driver_options o;
        memset(&o, 0, sizeof o);
        o.model = t->model;
        o.target = t->target;
        if (calibrate_run_summary(r->a, &o, slice, calib, &cs, r->d) < 0)
            return -1;
    }
    r->n_layers = cs.n_layers;
    r->T = cs.seq_len;
    mts = target_mts(tg, cs.hidden);
    if (mts < 1)
        mts = TARGET_DEFAULT_MTS; /* what the breakpoints pass compiles with */
    n_min = tune_n_min(r->T, mts);
    fprintf(stderr, "lstmc: tune: MTS %d (target %s, hidden %lld): N_min = ceil(%lld / %d) = "
                    "%lld tissues per layer (Eq. 7)\n",
            mts, tg->name, (long long)cs.hidden, (long long)r->T, mts, n_min);
    if (stopped(r))
        return -1;

    /* 2. the exact and the approximate libraries, each with the harness */
    fprintf(stderr, "lstmc: tune: building the exact and the approximate libraries%s\n",
            r->measured ? "" : " (portable C for this machine: speed will be estimated)");
    if (compile(r, "exact", 0, NULL, &xi, WFMT_FP32) < 0 || stopped(r) ||
        compile(r, "approx", 1, calib, &xi, WFMT_FP32) < 0 || stopped(r))
        return -1;
    for (i = 0; i < t->n_fmts; i++)
        if (compile(r, fmt_sub(r, t->fmts[i]), 0, NULL, &xi, t->fmts[i]) < 0 || stopped(r))
            return -1;

    /* 3. the exact outputs and time */
    if (harness(r, "exact", 0, r->n_tune, t->reps, NULL, 0, h, &r->exact_tune) < 0)
        return -1;
    r->exact_us = h[0].us;
    r->top1 = t->metric ? strcmp(t->metric, "top1") == 0 : (t->labels || r->C >= 2);
    if (t->labels && !r->top1) {
        diag_error(r->d, "--labels needs the top1 metric");
        return -1;
    }
    if (t->labels && load_labels(r) < 0)
        return -1;
    r->exact_acc_tune = score(r, r->exact_tune, r->exact_tune, 0, r->n_tune);
    if (r->exact_acc_tune <= 0) {
        diag_error(r->d, "the exact model scores 0 on the tuning samples: nothing to keep");
        return -1;
    }

    /* 4. the threshold range */
    if (strcmp(t->vary, "intra") != 0 && inter_limit(r, cs.s_max, n_min, &inter_max) < 0)
        return -1;
    if (strcmp(t->vary, "inter") != 0 && intra_limit(r, &intra_max) < 0)
        return -1;
    fprintf(stderr, "lstmc: tune: upper limits: alpha_inter %.6g, alpha_intra %.6g%s\n",
            inter_max, intra_max,
            intra_max > 0 ? "" : " (no layer has dynamic row skip: GRU/RNN or peepholes)");

    /* 5. the 11 sets, interleaved in rounds by the harness */
    for (i = 0; i < TUNE_SETS; i++) {
        pairs[2 * i] = inter_set(&cs, inter_max, i);
        pairs[2 * i + 1] = intra_max * i / (TUNE_SETS - 1);
    }
    fprintf(stderr, "lstmc: tune: measuring %d threshold sets: %lld samples x %d rounds\n",
            TUNE_SETS, (long long)r->n_tune, t->reps);
    if (stopped(r))
        return -1;
    setenv("LSTMC_TUNE_PROGRESS", "1", 1);
    i = harness(r, "approx", 0, r->n_tune, t->reps, pairs, TUNE_SETS, h, &y);
    unsetenv("LSTMC_TUNE_PROGRESS");
    if (i < 0)
        return -1;
    memset(p, 0, sizeof p);
    for (i = 0; i < TUNE_SETS; i++) {
        p[i].wfmt = WFMT_FP32;
        p[i].alpha_inter = pairs[2 * i];
        p[i].alpha_intra = pairs[2 * i + 1];
        p[i].us = h[i].us;
        p[i].tissues = h[i].tissues;
        p[i].skipped = h[i].skipped;
        p[i].accuracy = score(r, y + i * r->n_tune * r->numel, r->exact_tune, 0, r->n_tune);
        p[i].norm_acc = p[i].accuracy / r->exact_acc_tune;
        fprintf(stderr, "lstmc: tune: [%2d/%d] alpha_inter %-10.4g alpha_intra %-8.4g tissues "
                        "%6.2f rows skipped %5.1f %% accuracy %.4f time %.1f us\n",
                i + 1, TUNE_SETS, p[i].alpha_inter, p[i].alpha_intra, p[i].tissues,
                100 * p[i].skipped, p[i].accuracy, p[i].us);
    }
    free(y);
    y = NULL;
    /* 5b. the exact schedule with its weights in each reduced format of --weights */
    for (i = 0; i < t->n_fmts; i++) {
        tune_point *q = &p[TUNE_SETS + i];
        q->wfmt = t->fmts[i];
        if (harness(r, fmt_sub(r, q->wfmt), 0, r->n_tune, t->reps, NULL, 0, h, &y) < 0)
            return -1;
        q->us = h[0].us;
        q->accuracy = score(r, y, r->exact_tune, 0, r->n_tune);
        q->norm_acc = q->accuracy / r->exact_acc_tune;
        free(y);
        y = NULL;
        fprintf(stderr, "lstmc: tune: [weights %s] exact schedule: accuracy %.4f time %.1f us\n",
                lowp_name(q->wfmt), q->accuracy, q->us);
        if (stopped(r))
            return -1;
    }
    /* the exact time again, after the sets: drift hits both */
    if (harness(r, "exact", 0, r->n_tune, t->reps, NULL, 0, h, &y) < 0)
        return -1;
    free(y);
    y = NULL;
    us2 = h[0].us;
    r->exact_us = 0.5 * (r->exact_us + us2);
    /* the estimate: U read T times per layer, against once per tissue, of which the rows of
     * U_f,i,c (3/4 of U) only for the units dynamic row skip keeps; a reduced format reads
     * fewer bytes of the same weights */
    for (i = 0; i < n; i++)
        p[i].speedup = r->measured ? r->exact_us / p[i].us
                       : p[i].wfmt != WFMT_FP32
                           ? 4.0 / lowp_elem_bytes(p[i].wfmt)
                           : (double)r->T / ((p[i].tissues > 0 ? p[i].tissues : r->T) *
                                             (0.25 + 0.75 * (1 - p[i].skipped)));
    tune_pick(p, n, t->accuracy, &ao, &bpa);

    /* 6. held out: the exact model, AO and BPA on samples the tuning did not see */
    {
        FILE *fo;
        char *txt = arena_printf(r->a, "%s.txt", t->out);
        char *tmp = arena_printf(r->a, "%s.tmp", t->out);
        const char *base = strrchr(t->out, '/');
        double hold[2] = {0, 0};
        int which[2] = {ao, bpa}, j;
        if (r->n_hold > 0) {
            if (harness(r, "exact", r->n_tune, r->n_hold, 1, NULL, 0, h, &r->exact_hold) < 0)
                return -1;
            r->exact_acc_hold = score(r, r->exact_hold, r->exact_hold, r->n_tune, r->n_hold);
            for (j = 0; j < 2; j++) {
                if (which[j] < 0) {
                    hold[j] = r->exact_acc_hold;
                    continue;
                }
                if (p[which[j]].wfmt != WFMT_FP32
                        ? harness(r, fmt_sub(r, p[which[j]].wfmt), r->n_tune, r->n_hold, 1,
                                  NULL, 0, h, &y) < 0
                        : harness(r, "approx", r->n_tune, r->n_hold, 1, pairs + 2 * which[j],
                                  1, h, &y) < 0)
                    return -1;
                hold[j] = score(r, y, r->exact_hold, r->n_tune, r->n_hold);
                free(y);
                y = NULL;
            }
        }
        if (stopped(r))
            return -1;
        fo = fopen(txt, "w");
        if (!fo) {
            diag_error(r->d, "cannot write %s: %s", txt, strerror(errno));
            return -1;
        }
        fprintf(fo, "# lstmc tune %s --target=%s: %lld tuning samples, %lld held out; "
                    "accuracy %s; speed %s\n\n",
                t->model, tg->name, (long long)r->n_tune, (long long)r->n_hold,
                t->labels ? "against the labels" : r->top1 ? "= top-1 agreement with the exact "
                                                            "model"
                                                          : "= 1 - relative L2 error vs exact",
                r->measured ? "measured on this machine (median of the runs)"
                            : "ESTIMATED by the memory model (T reads of U per layer vs one per "
                              "tissue, less the rows dynamic row skip leaves): the target is not "
                              "this machine");
        table(fo, r, p, n, ao, bpa);
        fprintf(fo, "\nN_min = ceil(%lld / MTS %d) = %lld; upper limits: alpha_inter %.6g, "
                    "alpha_intra %.6g. AO (fastest with normalised accuracy >= %.3g): %s; BPA "
                    "(best speed-up x accuracy): %s.\n",
                (long long)r->T, mts, n_min, inter_max, intra_max, t->accuracy,
                ao < 0 ? "the exact schedule (no candidate is faster at that accuracy)"
                       : point_name(r, p, ao),
                bpa < 0 ? "the exact schedule" : point_name(r, p, bpa));
        if (r->n_hold > 0)
            fprintf(fo, "Held out (%lld samples): exact %.4f, AO %.4f (normalised %.4f), BPA "
                        "%.4f (normalised %.4f).\n",
                    (long long)r->n_hold, r->exact_acc_hold, hold[0],
                    hold[0] / r->exact_acc_hold, hold[1], hold[1] / r->exact_acc_hold);
        if (fclose(fo) != 0) {
            diag_error(r->d, "writing %s failed", txt);
            return -1;
        }
        cat_file(txt, stdout);
        fflush(stdout);
        if (svg(arena_printf(r->a, "%s.svg", t->out), r, p, n, ao, bpa, t->accuracy) != 0 ||
            copy_file(calib, arena_printf(r->a, "%s.calib", t->out)) != 0) {
            diag_error(r->d, "cannot write %s.svg / %s.calib", t->out, t->out);
            return -1;
        }
        fo = fopen(tmp, "w");
        if (!fo) {
            diag_error(r->d, "cannot write %s: %s", tmp, strerror(errno));
            return -1;
        }
        fprintf(fo, "%s\n# lstmc tune %s --target=%s --accuracy %g (see %s.txt)\n", TUNED_MAGIC,
                t->model, tg->name, t->accuracy, base ? base + 1 : t->out);
        fprintf(fo, "vary %s\n", t->vary);
        /* a format candidate is the exact schedule: its alphas are 0 */
        fprintf(fo, "schedule %s\nalpha_inter %.9g\nalpha_intra %.9g\n",
                ao < 0 || p[ao].wfmt != WFMT_FP32 ? "exact" : "approx",
                ao < 0 ? 0.0 : p[ao].alpha_inter, ao < 0 ? 0.0 : p[ao].alpha_intra);
        if (ao >= 0 && p[ao].wfmt != WFMT_FP32)
            fprintf(fo, "weights %s\n", lowp_name(p[ao].wfmt));
        fprintf(fo, "alpha_inter_max %.9g\nalpha_intra_max %.9g\n", inter_max, intra_max);
        fprintf(fo, "bpa_alpha_inter %.9g\nbpa_alpha_intra %.9g\n",
                bpa < 0 ? 0.0 : p[bpa].alpha_inter, bpa < 0 ? 0.0 : p[bpa].alpha_intra);
        if (bpa >= 0 && p[bpa].wfmt != WFMT_FP32)
            fprintf(fo, "bpa_weights %s\n", lowp_name(p[bpa].wfmt));
        fprintf(fo, "calib %s.calib\n", base ? base + 1 : t->out);
        if (fclose(fo) != 0 || rename(tmp, t->out) != 0) {
            diag_error(r->d, "cannot write %s: %s", t->out, strerror(errno));
            remove(tmp);
            return -1;
        }
    }
    return 0;
}

int
tune_main(int argc, char **argv)
{
    topts t;
    tune_run r;
    struct sigaction sa, old_int, old_term;
    char work[4096];
    const char *tmp = getenv("TMPDIR"), *cc = getenv("CC");
    int rc;

    rc = parse(argc, argv, &t);
    if (rc)
        return rc;
    memset(&r, 0, sizeof r);
    r.t = &t;
    r.a = arena_new(0);
    r.d = diag_new(r.a, t.model, stderr);
    r.cc = cc && *cc ? cc : "cc";
    if (t.keep) {
        snprintf(work, sizeof work, "%s", t.keep);
        if (proc_mkdirs(work) != 0) {
            diag_error(r.d, "cannot create %s: %s", work, strerror(errno));
            arena_free(r.a);
            return 1;
        }
    } else {
        snprintf(work, sizeof work, "%s/lstmc-tune-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(work)) {
            diag_error(r.d, "cannot create a work folder: %s", strerror(errno));
            arena_free(r.a);
            return 1;
        }
    }
    r.work = work;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    rc = run(&r) == 0 ? 0 : interrupted ? 130 : 1;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (!t.keep)
        outdir_remove_tree(work);
    free(r.labels);
    free(r.exact_tune);
    free(r.exact_hold);
    arena_free(r.a);
    return rc;
}
