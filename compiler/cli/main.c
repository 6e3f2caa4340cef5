/*
 * main.c — the lstmc command line (DESIGN.md "Command line"). The only place that exits:
 * 0 success, 1 bad input or unsupported model, 2 bad usage.
 *
 *   lstmc MODEL.onnx --target=NAME -o OUTDIR [options]
 *   lstmc run MODEL.onnx [--input NAME=FILE.npy]... --output-dir DIR [options]
 *   lstmc inspect MODEL.onnx
 *   lstmc targets
 *   lstmc calibrate MODEL.onnx --data FILE.npy -o CALIB
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "arena.h"
#include "calibrate.h"
#include "cliopt.h"
#include "diag.h"
#include "driver.h"
#include "elstm.h"
#include "ir.h"
#include "ir_print.h"
#include "lowp.h"
#include "lstmc_rt_npy.h"
#include "outdir.h"
#include "proc.h"
#include "tune.h"
#include "profile.h"
#include "target.h"

static const char usage_text[] =
    "usage:\n"
    "  lstmc MODEL.onnx --target=NAME -o OUTDIR [options]   compile to a C library\n"
    "  lstmc run MODEL.onnx [--input NAME=FILE.npy]... --output-dir DIR [options]\n"
    "  lstmc inspect MODEL.onnx                             what the model is\n"
    "  lstmc targets                                        built-in target profiles\n"
    "  lstmc analyze MODEL.onnx [--llc=BYTES] [--dim=SYM=N]  working set, traffic, DRE\n"
    "  lstmc calibrate MODEL.onnx --data FILE.npy -o CALIB  predicted context link (Eq. 6)\n"
    "  lstmc tune MODEL.onnx --data X.npy [--labels Y.npy] --accuracy A -o TUNED\n"
    "                                                       choose the thresholds (lstmc tune -h)\n"
    "options:\n"
    "  --name=NAME          C prefix of the generated library (default: from the file name)\n"
    "  --dim=SYM=N          value of a symbolic input dim (dim_param SYM)\n"
    "  --print-after=NAME   print the IR after a stage (import, bind, infer) or a pass\n"
    "  --passes=LIST        comma-separated passes to run (default: the target's list)\n"
    "  --disable-pass=NAME  leave a pass out (e.g. split_gates for schedule A)\n"
    "  --time-passes        print the time each pass takes\n"
    "  --emit=c|llvm        CPU kernels: portable C, or LLVM object code for the target\n"
    "  --threads=N          LLVM LSTM layers on N threads (1-16; default: the target's\n"
    "                       cores, for layers with H >= 128)\n"
    "  --parallel=auto|split|wave   how stacked LSTM layers use the threads: split each\n"
    "                       layer's hidden units (split), run the layers as a pipeline\n"
    "                       across threads (wave), or choose from the shapes (auto)\n"
    "                       (default: llvm)\n"
    "  --alpha-inter=X, --alpha-intra=Y   approximation thresholds (0 = exact)\n"
    "  --weights-placement=const|blob|pointer   weights compiled in (flash), in\n"
    "                       NAME_weights.bin checked by NAME_init_blob, or raw bytes anywhere\n"
    "                       given to NAME_set_weights\n"
    "  --weights=fp32|fp16|bf16|int8   storage of the recurrent and input weights; fp32\n"
    "                       accumulation (default: the model's own, fp32 for float models)\n"
    "  --calib=CALIB        h_pred / c_pred at breakpoints from lstmc calibrate\n"
    "  --thresholds=TUNED   the thresholds (and calibration) lstmc tune chose\n"
    "  --data=FILE.npy      (calibrate) K samples stacked on a leading axis\n"
    "  --force              replace an existing OUTDIR that lstmc did not make\n"
    "  --max-weights=SIZE, --max-arena=SIZE   refuse bigger weights / working memory\n"
    "                       (default 1GiB each)\n"
    "  --keep-build=DIR     (run) build the library in DIR and keep it\n"
    "  --sph=X              (--target=elstm) hidden-state sparsity for N_fuse (Eq. 6)\n"
    "  --hsparse=TH[,TH..]  skip U columns of h groups of 4 with sum|h| < TH, per LSTM layer\n"
    "                       (E-LSTM §4.4; 0 = exact)\n"
    "  --prune=W:F,U:F      zero the fraction F of smallest-magnitude weights of each W / U\n"
    "  --sparse=auto[:F]|esell|off  store W/U in eSELL for the SpMV kernel (auto: when at\n"
    "                       least F of a matrix is zero; default F 0.95 with --emit=c, never\n"
    "                       with LLVM kernels, which are faster; docs/ELSTM.md)\n";

static int
usage(const char *fmt, const char *arg)
{
    fputs("lstmc: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    fputs(usage_text, stderr);
    return 2;
}

typedef struct cli {
    driver_options o;
    const char *cmd;
    const char *inputs[DRIVER_MAX_BINDINGS]; /* run: NAME=FILE or FILE */
    int n_inputs;
    const char *output_dir;
    const char *keep_build;
    const char *data; /* calibrate: --data */
    const char *thresholds; /* --thresholds=TUNED */
    int force; /* --force: replace an OUTDIR lstmc did not make */
    float sph; /* --sph: hidden-state sparsity the elstm target plans for (Eq. 6) */
} cli;


/* A threshold: a finite number >= 0. Returns 0 and sets *out, or 2 (usage). */
static int
parse_alpha(const char *v, const char *opt, float *out)
{
    char *end;
    double x = strtod(v, &end);
    if (*end || end == v || !(x >= 0) || x > 1e30) {
        fprintf(stderr, "lstmc: %s takes a number >= 0, got '%s'\n", opt, v);
        return 2;
    }
    *out = (float)x;
    return 0;
}

static int
parse_args(int argc, char **argv, cli *c)
{
    int i, model_seen = 0;
    memset(c, 0, sizeof *c);
    c->o.target = "host";
    i = 1;
    if (argc > 1 && (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "inspect") == 0 ||
                     strcmp(argv[1], "targets") == 0 || strcmp(argv[1], "calibrate") == 0)) {
        c->cmd = argv[1];
        i = 2;
    } else {
        c->cmd = "compile";
    }
    for (; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage_text, stdout);
            exit(0);
        } else if ((v = cli_opt(argc, argv, &i, "--target"))) {
            c->o.target = v;
        } else if ((v = cli_opt(argc, argv, &i, "-o"))) {
            c->o.outdir = v;
        } else if ((v = cli_opt(argc, argv, &i, "--output-dir"))) {
            c->output_dir = v;
        } else if ((v = cli_opt(argc, argv, &i, "--name"))) {
            c->o.name = v;
        } else if ((v = cli_opt(argc, argv, &i, "--print-after"))) {
            c->o.print_after = v;
        } else if ((v = cli_opt(argc, argv, &i, "--passes"))) {
            c->o.passes = v;
        } else if ((v = cli_opt(argc, argv, &i, "--disable-pass"))) {
            if (c->o.n_disable == (int)(sizeof c->o.disable / sizeof c->o.disable[0]))
                return usage("too many --disable-pass options%s", "");
            c->o.disable[c->o.n_disable++] = v;
        } else if ((v = cli_opt(argc, argv, &i, "--max-weights")) ||
                   (v = cli_opt(argc, argv, &i, "--max-arena"))) {
            int64_t bytes;
            if (cli_parse_bytes(v, &bytes) != 0 || bytes < 1)
                return usage("--max-weights / --max-arena take a size such as 64MiB, got '%s'",
                             v);
            if (strncmp(argv[i], "--max-weights", 13) == 0 ||
                (i > 0 && strcmp(argv[i - 1], "--max-weights") == 0))
                c->o.max_weights = bytes;
            else
                c->o.max_arena = bytes;
        } else if (strcmp(argv[i], "--force") == 0) {
            c->force = 1;
        } else if (strcmp(argv[i], "--time-passes") == 0) {
            c->o.time_passes = 1;
        } else if ((v = cli_opt(argc, argv, &i, "--emit"))) {
            if (strcmp(v, "c") != 0 && strcmp(v, "llvm") != 0)
                return usage("--emit takes c or llvm, got '%s'", v);
            c->o.emit = v;
        } else if ((v = cli_opt(argc, argv, &i, "--threads"))) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 1 || n > 16)
                return usage("--threads takes a count from 1 to 16, got '%s'", v);
            c->o.threads = (int)n;
        } else if ((v = cli_opt(argc, argv, &i, "--parallel"))) {
            if (strcmp(v, "auto") != 0 && strcmp(v, "split") != 0 && strcmp(v, "wave") != 0)
                return usage("--parallel takes auto, split or wave, got '%s'", v);
            c->o.parallel = v;
        } else if ((v = cli_opt(argc, argv, &i, "--weights-placement"))) {
            if (strcmp(v, "const") != 0 && strcmp(v, "blob") != 0 && strcmp(v, "pointer") != 0)
                return usage("--weights-placement takes const, blob or pointer, got '%s'", v);
            c->o.weights_placement = v;
        } else if ((v = cli_opt(argc, argv, &i, "--weights"))) {
            if (lowp_parse(v) < 0)
                return usage("--weights takes fp32, fp16, bf16 or int8, got '%s'", v);
            c->o.weights = v;
        } else if ((v = cli_opt(argc, argv, &i, "--calib"))) {
            c->o.calib = v;
        } else if ((v = cli_opt(argc, argv, &i, "--thresholds"))) {
            c->thresholds = v;
        } else if ((v = cli_opt(argc, argv, &i, "--data"))) {
            c->data = v;
        } else if ((v = cli_opt(argc, argv, &i, "--keep-build"))) {
            c->keep_build = v;
        } else if ((v = cli_opt(argc, argv, &i, "--input"))) {
            if (c->n_inputs == DRIVER_MAX_BINDINGS)
                return usage("too many --input options", "");
            c->inputs[c->n_inputs++] = v;
        } else if ((v = cli_opt(argc, argv, &i, "--dim"))) {
            const char *eq = strrchr(v, '=');
            char *end;
            long long n;
            driver_binding *b;
            if (!eq || eq == v)
                return usage("--dim takes SYM=N, got '%s'", v);
            n = strtoll(eq + 1, &end, 10);
            if (*end || end == eq + 1 || n < 1 || n > IR_MAX_ELEMS)
                return usage("--dim value must be an integer from 1 to 2^31, got '%s'", v);
            if (c->o.n_dims == DRIVER_MAX_BINDINGS)
                return usage("too many --dim options", "");
            static char dim_names[DRIVER_MAX_BINDINGS][256];
            if ((size_t)(eq - v) >= sizeof dim_names[0])
                return usage("--dim name too long: '%s'", v);
            memcpy(dim_names[c->o.n_dims], v, (size_t)(eq - v));
            dim_names[c->o.n_dims][eq - v] = '\0';
            b = &c->o.dims[c->o.n_dims];
            b->name = dim_names[c->o.n_dims++];
            b->value = n;
        } else if ((v = cli_opt(argc, argv, &i, "--hsparse"))) {
            c->o.hsparse = v;
        } else if ((v = cli_opt(argc, argv, &i, "--prune"))) {
            c->o.prune = v;
        } else if ((v = cli_opt(argc, argv, &i, "--sparse"))) {
            c->o.sparse = v;
        } else if ((v = cli_opt(argc, argv, &i, "--sph"))) {
            if (parse_alpha(v, "--sph", &c->sph) || c->sph >= 1)
                return usage("--sph takes a sparsity in [0, 1), got '%s'", v);
        } else if ((v = cli_opt(argc, argv, &i, "--alpha-inter"))) {
            if (parse_alpha(v, "--alpha-inter", &c->o.alpha_inter))
                return 2;
            c->o.has_alpha_inter = 1;
        } else if ((v = cli_opt(argc, argv, &i, "--alpha-intra"))) {
            if (parse_alpha(v, "--alpha-intra", &c->o.alpha_intra))
                return 2;
            c->o.has_alpha_intra = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage("unknown or incomplete option '%s'", argv[i]);
        } else if (!model_seen) {
            c->o.model = argv[i];
            model_seen = 1;
        } else {
            return usage("unexpected argument '%s'", argv[i]);
        }
    }
    if (strcmp(c->cmd, "targets") == 0)
        return 0;
    if (c->thresholds && (c->o.has_alpha_inter || c->o.has_alpha_intra))
        return usage("give either --thresholds or --alpha-inter / --alpha-intra%s", "");
    if (!c->o.model)
        return usage("no model given%s", "");
    if (strcmp(c->cmd, "compile") == 0 && !c->o.outdir)
        return usage("no output folder: give -o OUTDIR%s", "");
    if (strcmp(c->cmd, "calibrate") == 0 && (!c->data || !c->o.outdir))
        return usage("calibrate needs --data FILE.npy and -o CALIB%s", "");
    if (strcmp(c->cmd, "run") == 0 && !c->output_dir)
        return usage("no output folder: give --output-dir DIR%s", "");
    return 0;
}

static int
cmd_targets(void)
{
    int i;
    for (i = 0; target_builtin[i].name; i++)
        printf("%-10s %s\n", target_builtin[i].name, target_builtin[i].summary);
    /* not a CPU/GPU profile: codegen/elstm/elstm.c, docs/ELSTM.md */
    printf("%-10s %s\n", elstm_default_profile.name,
           "E-LSTM co-processor on a RISC-V RoCC port: eSELL word streams + schedule");
    return 0;
}

static int
cmd_inspect(const cli *c)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, c->o.model, stderr);
    ir_graph *g = driver_import(a, c->o.model, d);
    int rc = 1;
    if (g) {
        int i, counts[IR_OP_COUNT] = {0};
        int64_t params = 0;
        for (i = 0; i < g->n_nodes; i++)
            counts[g->nodes[i]->op]++;
        for (i = 0; i < g->n_tensors; i++) {
            const ir_tensor *t = g->tensors[i];
            if (t->data && !t->producer && t->dtype == IR_DT_F32)
                params += ir_shape_numel(&t->shape);
        }
        printf("model   %s\nopset   %d\nnodes   %d\nparams  %lld float32 values\nops    ",
               c->o.model, g->opset, g->n_nodes, (long long)params);
        for (i = 0; i < IR_OP_COUNT; i++)
            if (counts[i])
                printf(" %s x%d", ir_op_name((ir_op)i), counts[i]);
        printf("\n\n");
        analyze_inspect(a, g, &c->o, stdout, d);
        ir_print(g, stdout);
        rc = 0;
    }
    arena_free(a);
    return rc;
}

static int
cmd_calibrate(const cli *c)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, c->o.model, stderr);
    int rc = calibrate_run(a, &c->o, c->data, c->o.outdir, d) == 0 ? 0 : 1;
    arena_free(a);
    return rc;
}

static int
cmd_compile(cli *c)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, c->o.model, stderr);
    const char *final = c->o.outdir;
    int rc = 1;

    if (c->thresholds && tune_load(a, c->thresholds, &c->o, d) < 0) {
        arena_free(a);
        return 1;
    }
    /* write beside OUTDIR, swap in only on success: a failed compile loses nothing */
    c->o.outdir = outdir_begin(final, c->force, d);
    if (c->o.outdir) {
        if (driver_compile(a, &c->o, d) == 0 && outdir_commit(d) == 0)
            rc = 0;
        else
            outdir_abort();
    }
    arena_free(a);
    return rc;
}

/* --target=elstm: the E-LSTM accelerator's RoCC program instead of a C library. */
static int
cmd_elstm(cli *c)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, c->o.model, stderr);
    const char *final = c->o.outdir;
    ir_graph *g;
    int rc = 1;
    c->o.outdir = outdir_begin(final, c->force, d);
    if (c->o.outdir) {
        g = driver_import(a, c->o.model, d);
        if (g && driver_prepare(g, &c->o, d) == 0 && driver_prune(g, &c->o, d) == 0 &&
            elstm_emit(a, g, &elstm_default_profile, c->sph, c->o.outdir, d) == 0 &&
            outdir_commit(d) == 0)
            rc = 0;
        else
            outdir_abort();
    }
    arena_free(a);
    return rc;
}

/* "'x', 'h0'" */
static const char *
input_list(arena *a, const ir_graph *g)
{
    const char *s = "";
    int i;
    for (i = 0; i < g->n_inputs; i++)
        s = arena_printf(a, "%s%s'%s'", s, i ? ", " : "", g->inputs[i]->name);
    return s;
}

static int
cmd_run(cli *c)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, c->o.model, stderr);
    ir_graph *g;
    const char *paths[DRIVER_MAX_BINDINGS];
    char builddir[4096], exe[4200], cflags[1024];
    const char *name;
    int i, j, rc = 1, made_tmp = 0;

    /* which graph input each --input feeds */
    g = driver_import(a, c->o.model, d);
    if (!g)
        goto out;
    if (g->n_inputs > DRIVER_MAX_BINDINGS) {
        diag_error(d, "the model has %d inputs; lstmc run handles at most %d", g->n_inputs,
                   DRIVER_MAX_BINDINGS);
        goto out;
    }
    for (i = 0; i < g->n_inputs; i++)
        paths[i] = NULL;
    for (i = 0; i < c->n_inputs; i++) {
        const char *arg = c->inputs[i], *eq = strrchr(arg, '='), *file = arg;
        int slot = -1;
        if (eq) {
            for (j = 0; j < g->n_inputs; j++)
                if (strlen(g->inputs[j]->name) == (size_t)(eq - arg) &&
                    strncmp(g->inputs[j]->name, arg, (size_t)(eq - arg)) == 0)
                    slot = j;
            if (slot >= 0)
                file = eq + 1;
        }
        if (slot < 0) {
            /* NAME=FILE with an unknown NAME, unless the whole argument is a file */
            if (eq && access(arg, F_OK) != 0) {
                diag_error(d, "--input %s: the model has no input named '%.*s' (its inputs: %s)",
                           arg, (int)(eq - arg), arg, input_list(a, g));
                goto out;
            }
            if (g->n_inputs != 1) {
                diag_error(d, "--input %s: the model has %d inputs; name each one as "
                              "--input NAME=FILE.npy",
                           arg, g->n_inputs);
                goto out;
            }
            slot = 0;
        }
        if (paths[slot]) {
            diag_error(d, "input '%s' is given twice", g->inputs[slot]->name);
            goto out;
        }
        paths[slot] = file;
    }
    for (i = 0; i < g->n_inputs; i++) {
        lstmc_npy_info info;
        char err[256];
        driver_binding *b;
        int k;
        if (!paths[i]) {
            diag_error(d, "input '%s' has no data: give --input %s=FILE.npy",
                       g->inputs[i]->name, g->inputs[i]->name);
            continue;
        }
        if (lstmc_npy_info_read(paths[i], &info, err, sizeof err) != 0) {
            diag_error(d, "input '%s': %s: %s", g->inputs[i]->name, paths[i], err);
            continue;
        }
        b = &c->o.shapes[c->o.n_shapes++];
        b->name = g->inputs[i]->name;
        b->what = paths[i];
        b->dtype = info.dtype;
        b->shape.rank = info.rank;
        for (k = 0; k < info.rank; k++)
            b->shape.d[k] = info.dims[k];
    }
    if (diag_count(d))
        goto out;

    /* compile into the build folder */
    if (c->keep_build) {
        snprintf(builddir, sizeof builddir, "%s", c->keep_build);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(builddir, sizeof builddir, "%s/lstmc-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(builddir)) {
            diag_error(d, "cannot create a build folder in %s: %s", tmp ? tmp : "/tmp",
                       strerror(errno));
            goto out;
        }
        made_tmp = 1;
    }
    name = c->o.name ? c->o.name : "model";
    c->o.name = name;
    c->o.outdir = builddir;
    {
        /* a fresh arena and diag: the import above only served to map inputs */
        arena *a2 = arena_new(0);
        diag *d2 = diag_new(a2, c->o.model, stderr);
        int bad = (c->thresholds && tune_load(a2, c->thresholds, &c->o, d2) < 0) ||
                  driver_compile(a2, &c->o, d2) < 0;
        arena_free(a2);
        if (bad)
            goto out;
    }
    {
        const char *cc = getenv("CC");
        const char *extra = getenv("LSTMC_CFLAGS");
        char ccvar[512];
        static char make_s[] = "make", dash_s[] = "-s", dash_c[] = "-C";
        char *argv_make[] = {make_s, dash_s, dash_c, builddir, ccvar, cflags, NULL};
        snprintf(ccvar, sizeof ccvar, "CC=%s", cc && *cc ? cc : "cc");
        snprintf(cflags, sizeof cflags, "CFLAGS=-O2 %s", extra ? extra : "");
        if (proc_run(argv_make, NULL) != 0) {
            diag_error(d, "building the generated library in %s failed", builddir);
            goto out;
        }
    }
    if (proc_mkdirs(c->output_dir) != 0) {
        diag_error(d, "cannot create output folder '%s': %s", c->output_dir, strerror(errno));
        goto out;
    }
    {
        char *argv_run[DRIVER_MAX_BINDINGS + 4];
        int k = 0, st;
        snprintf(exe, sizeof exe, "%s/%s_run", builddir, name);
        argv_run[k++] = exe;
        static char outdir_opt[] = "--output-dir";
        argv_run[k++] = outdir_opt;
        argv_run[k++] = (char *)c->output_dir;
        for (i = 0; i < g->n_inputs; i++)
            argv_run[k++] = (char *)paths[i];
        argv_run[k] = NULL;
        st = proc_run(argv_run, NULL);
        rc = st == 0 ? 0 : 1;
    }
out:
    if (made_tmp)
        outdir_remove_tree(builddir);
    arena_free(a);
    return rc;
}

int
main(int argc, char **argv)
{
    cli c;
    int rc;
    if (argc > 1 && strcmp(argv[1], "analyze") == 0)
        return analyze_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "tune") == 0)
        return tune_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "profile") == 0) /* issue 7: measure a device */
        return profile_main(argc - 1, argv + 1);
    rc = parse_args(argc, argv, &c);
    if (rc)
        return rc;
    if (strcmp(c.cmd, "targets") == 0)
        return cmd_targets();
    if (strcmp(c.cmd, "inspect") == 0)
        return cmd_inspect(&c);
    if (strcmp(c.cmd, "run") == 0)
        return cmd_run(&c);
    if (strcmp(c.cmd, "calibrate") == 0)
        return cmd_calibrate(&c);
    if (strcmp(c.o.target, "elstm") == 0)
        return cmd_elstm(&c);
    return cmd_compile(&c);
}
