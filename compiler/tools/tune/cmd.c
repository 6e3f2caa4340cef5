/*
 * cmd.c — `lstmc tune`, the command (contract in tune.h): its options, the work folder, and
 * SIGINT / SIGTERM, which stop the search between measurements with nothing written.
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

/* --- the command ------------------------------------------------------------------------ */

volatile sig_atomic_t tune_interrupted;

static void
on_signal(int sig)
{
    (void)sig;
    tune_interrupted = 1;
}

static const char tune_usage[] =
    "usage: lstmc tune MODEL.onnx --data X.npy [--labels Y.npy] --accuracy A -o TUNED\n"
    "                  [--target=NAME] [--holdout=F] [--reps=N] [--metric=top1|error]\n"
    "                  [--vary=both|inter|intra] [--relevance=R]\n"
    "                  [--weights=LIST] [--threads=N] [--keep-build=DIR]\n"
    "  --data X.npy      samples of the model's one input stacked on axis 0: [K, <input\n"
    "                    shape>], or [K, ...] without the batch axis (batch 1: [K, T, C] for\n"
    "                    an input [batch, T, C] or [T, batch, C])\n"
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
    "  --relevance R     the links' relevance S: sensitivity (the gates' sensitivity to U h\n"
    "                    over its range measured on the tuning samples, default),\n"
    "                    calibrated (Algorithm 2 on that range) or bound (Algorithm 2)\n"
    "  --weights LIST    also try the exact schedule with its weights stored in these\n"
    "                    formats: a comma list of fp16, bf16, int8 (fp32 is always the\n"
    "                    baseline), act-int8, act-int16 (full-integer layers, calibrated\n"
    "                    on the tuning samples), or all (the default, each left out with a\n"
    "                    note when the model does not compile so); fp32: none of them.\n"
    "                    fp16, int8 and the integer layers are also tried with the\n"
    "                    threshold sets and the forced-breakpoint windows\n"
    "  --threads N       compile every library (the exact baseline too) with --threads=N;\n"
    "                    TUNED then says threads N (default: lstmc's for the target)\n"
    "writes TUNED (for lstmc --thresholds=TUNED), TUNED.calib, TUNED.txt and TUNED.svg\n";

/* parse's answer to -h / --help: the usage is printed, nothing more to do */
#define TUNE_HELP (-1)

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
    int want[LSTMC_RT_WFMT_COUNT] = {0}, f;
    const char *p = v;
    int act8 = 0, act16 = 0;
    if (!strcmp(v, "all")) {
        for (f = 0; f < LSTMC_RT_WFMT_COUNT; f++)
            want[f] = 1;
        act8 = act16 = 1;
    } else {
        for (;;) {
            char name[16];
            size_t n = strcspn(p, ",");
            if (n == 0 || n >= sizeof name)
                return -1;
            memcpy(name, p, n);
            name[n] = '\0';
            if (!strcmp(name, "act-int8"))
                act8 = 1;
            else if (!strcmp(name, "act-int16"))
                act16 = 1;
            else if ((f = lowp_parse(name)) < 0)
                return -1;
            else
                want[f] = 1;
            if (!p[n])
                break;
            p += n + 1;
        }
    }
    t->n_fmts = 0;
    for (f = LSTMC_RT_WFMT_FP32 + 1; f < LSTMC_RT_WFMT_COUNT; f++)
        if (want[f])
            t->fmts[t->n_fmts++] = f;
    t->n_acts = 0;
    if (act8)
        t->acts[t->n_acts++] = 8;
    if (act16)
        t->acts[t->n_acts++] = 16;
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
    t->relevance = LSTMC_RT_REL_SENSITIVITY;
    parse_formats("all", t); /* issue 24: every knob unless --weights says which */
    t->fmts_default = 1;
    for (i = 1; i < argc; i++) {
        const char *v;
        char *end;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(tune_usage, stdout);
            return TUNE_HELP; /* main.c, the only exit, ends with 0 */
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
        } else if ((v = cli_opt(argc, argv, &i, "--relevance"))) {
            if ((t->relevance = driver_relevance_parse(v)) < 0)
                return tusage("--relevance takes bound, calibrated or sensitivity, got '%s'", v);
        } else if ((v = cli_opt(argc, argv, &i, "--threads"))) {
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 1 || n > 16)
                return tusage("--threads takes a count from 1 to 16, got '%s'", v);
            t->threads = (int)n;
        } else if ((v = cli_opt(argc, argv, &i, "--weights"))) {
            t->fmts_default = 0;
            if (parse_formats(v, t) < 0)
                return tusage("--weights takes a comma list of fp32, fp16, bf16, int8, "
                              "act-int8, act-int16 or all, got '%s'",
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

int
tune_stopped(tune_run *r)
{
    if (tune_interrupted) {
        diag_error(r->d, "interrupted; nothing written");
        return 1;
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
    if (rc == TUNE_HELP)
        return 0;
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
    rc = tune_search(&r) == 0 ? 0 : tune_interrupted ? 130 : 1;
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
