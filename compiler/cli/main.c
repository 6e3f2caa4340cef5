/*
 * main.c — the lstmc command line (DESIGN.md "Command line"): the options, and a table of
 * every subcommand (name, function, usage lines); the subcommands are in cmd_*.c and
 * compiler/tools. The only place that exits: 0 success, 1 bad input or unsupported model,
 * 2 bad usage.
 *
 *   lstmc MODEL.onnx --target=NAME -o OUTDIR [options]
 *   lstmc run MODEL.onnx [--input NAME=FILE.npy]... --output-dir DIR [options]
 *   lstmc inspect MODEL.onnx
 *   lstmc targets
 *   lstmc calibrate MODEL.onnx --data FILE.npy -o CALIB
 */
#define _XOPEN_SOURCE 700
#include "analyze.h"
#include "cli_impl.h"
#include "cliopt.h"
#include "driver.h"
#include "ir.h"
#include "profile.h"
#include "tune.h"
#include "wfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char options_text[] =
    "options:\n"
    "  --name=NAME          C prefix of the generated library (default: from the file name)\n"
    "  --dim=SYM=N          value of a symbolic input dim (dim_param SYM)\n"
    "  --dim=SYM=MIN..MAX   a range: the library takes the dim per run (NAME_run_dims)\n"
    "  --print-after=NAME   print the IR after a stage (import, bind, infer) or a pass\n"
    "  --passes=LIST        comma-separated passes to run (default: the target's list)\n"
    "  --disable-pass=NAME  leave a pass out (e.g. split_gates for schedule A)\n"
    "  --time-passes        print the time each pass takes\n"
    "  --emit=c|llvm        CPU kernels: portable C, or LLVM object code for the target\n"
    "                       (default: llvm, or c when lstmc was built without LLVM)\n"
    "  --threads=N          LLVM LSTM layers on N threads (1-16; default: the target's\n"
    "                       cores, for layers with H >= 128)\n"
    "  --parallel=auto|split|wave   how stacked LSTM layers use the threads: split each\n"
    "                       layer's hidden units (split), run the layers as a pipeline\n"
    "                       across threads (wave), or choose from the shapes (auto)\n"
    "                       (default: auto)\n"
    "  --alpha-inter=X, --alpha-intra=Y   approximation thresholds (0 = exact)\n"
    "  --weights-placement=const|blob|pointer   weights compiled in (flash), in\n"
    "                       NAME_weights.bin checked by NAME_init_blob, or raw bytes anywhere\n"
    "                       given to NAME_set_weights\n"
    "  --weights=fp32|fp16|bf16|int8   storage of the recurrent and input weights; fp32\n"
    "                       accumulation (default: the model's own, fp32 for float models)\n"
    "  --activations=fp32|int8|int16   int8 / int16: the LSTM, GRU and RNN layers run in\n"
    "                       integers with int8 weights (docs/PRECISION.md); needs\n"
    "                       --calib-data or a model with QuantizeLinear scales\n"
    "  --calib-data=FILE.npy   samples ([K, <input shape>]) the activation ranges come from\n"
    "  --io=float|int       int: with --activations, the inputs and outputs are integers\n"
    "                       (NAME_INPUT_i_SCALE, _ZERO_POINT) and nothing runs in float\n"
    "  --calib=CALIB        h_pred / c_pred at breakpoints from lstmc calibrate\n"
    "  --relevance=bound|calibrated|sensitivity   the breakpoints' link relevance:\n"
    "                       Algorithm 2 on the bound sum|U| (default) or on --calib's\n"
    "                       calibrated range of U h, or the gates' sensitivity to it\n"
    "  --max-sublayer=L     with --alpha-inter: also cut every sub-layer about to grow past\n"
    "                       L cells, at its lowest-S link in the second half of the run\n"
    "  --thresholds=TUNED   the thresholds (and calibration) lstmc tune chose\n"
    "  --data=FILE.npy      (calibrate) K samples stacked on a leading axis: [K, <input\n"
    "                       shape>], or [K, ...] without the batch axis (batch 1)\n"
    "  --force              replace an existing OUTDIR that lstmc did not make\n"
    "  --max-weights=SIZE, --max-arena=SIZE   refuse bigger weights / working memory\n"
    "                       (default 1GiB each)\n"
    "  --no-budget          compile even when the model does not fit the target's RAM /\n"
    "                       flash (ram_bytes, flash_bytes of its profile, docs/TARGETS.md)\n"
    "  --keep-build=DIR     (run) build the library in DIR and keep it\n"
    "  --sph=X              (--target=elstm) hidden-state sparsity for N_fuse (Eq. 6)\n"
    "  --hsparse=TH[,TH..]  skip U columns of h groups of 4 with sum|h| < TH, per LSTM layer\n"
    "                       (E-LSTM §4.4; 0 = exact)\n"
    "  --prune=W:F,U:F      zero the fraction F of smallest-magnitude weights of each W / U\n"
    "  --sparse=auto[:F]|esell|off  store W/U in eSELL for the SpMV kernel (auto: when at\n"
    "                       least F of a matrix is zero; default F 0.95 with --emit=c, never\n"
    "                       with LLVM kernels, which are faster; docs/ELSTM.md)\n";

/* Every subcommand: the ones with their own options (main; argv[0] is the name) and those
 * that take the options above (fn, after parse_args). compile is the default: `lstmc
 * MODEL.onnx`; usage: its lines of `lstmc -h`. */
typedef struct subcommand {
    const char *name;
    int (*main)(int argc, char **argv);
    int (*fn)(cli *c);
    const char *usage;
} subcommand;

static const subcommand subcommands[] = {
    {"compile", NULL, cmd_compile,
     "  lstmc MODEL.onnx --target=NAME -o OUTDIR [options]   compile to a C library\n"},
    {"run", NULL, cmd_run,
     "  lstmc run MODEL.onnx [--input NAME=FILE.npy]... --output-dir DIR [options]\n"},
    {"inspect", NULL, cmd_inspect,
     "  lstmc inspect MODEL.onnx                             what the model is\n"},
    {"targets", NULL, cmd_targets,
     "  lstmc targets                                        built-in target profiles\n"},
    {"analyze", analyze_main, NULL,
     "  lstmc analyze MODEL.onnx [--llc=BYTES] [--dim=SYM=N]  working set, traffic, DRE\n"},
    {"calibrate", NULL, cmd_calibrate,
     "  lstmc calibrate MODEL.onnx --data FILE.npy -o CALIB  predicted context link (Eq. 6)\n"},
    {"tune", tune_main, NULL,
     "  lstmc tune MODEL.onnx --data X.npy [--labels Y.npy] --accuracy A -o TUNED\n"
     "                                                       choose the thresholds (lstmc tune "
     "-h)\n"},
    {"profile", profile_main, NULL,
     "  lstmc profile --device=opencl[:N]|cpu -o BOARD.json\n"
     "                                                       measure a device (docs/OPENCL.md)\n"
     "  lstmc profile --device=cpu --search [--budget=180] [--resume] -o BOARD.json\n"
     "                                                       and search the CPU kernels' "
     "parameters\n"},
    {NULL, NULL, NULL, NULL},
};

/* "usage:", each subcommand's lines, then the options. */
static void
usage_print(FILE *f)
{
    const subcommand *s;
    fputs("usage:\n", f);
    for (s = subcommands; s->name; s++)
        if (s->usage)
            fputs(s->usage, f);
    fputs(options_text, f);
}

static int
usage(const char *fmt, const char *arg)
{
    fputs("lstmc: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    usage_print(stderr);
    return 2;
}

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
    const subcommand *s;
    char err[512];
    int i, model_seen = 0;
    memset(c, 0, sizeof *c);
    c->o.target = "host";
    i = 1;
    c->cmd = "compile";
    for (s = subcommands + 1; argc > 1 && s->name; s++)
        if (s->fn && strcmp(argv[1], s->name) == 0) {
            c->cmd = argv[1];
            i = 2;
        }
    for (; i < argc; i++) {
        const char *v;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage_print(stdout);
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
                return usage("--max-weights / --max-arena take a size such as 64MiB, got '%s'", v);
            if (strncmp(argv[i], "--max-weights", 13) == 0 ||
                (i > 0 && strcmp(argv[i - 1], "--max-weights") == 0))
                c->o.max_weights = bytes;
            else
                c->o.max_arena = bytes;
        } else if (strcmp(argv[i], "--no-budget") == 0) {
            c->o.no_budget = 1;
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
        } else if ((v = cli_opt(argc, argv, &i, "--activations"))) {
            if (strcmp(v, "fp32") != 0 && strcmp(v, "int8") != 0 && strcmp(v, "int16") != 0)
                return usage("--activations takes fp32, int8 or int16, got '%s'", v);
            c->o.activations = strcmp(v, "int8") == 0 ? 8 : strcmp(v, "int16") == 0 ? 16 : 0;
        } else if ((v = cli_opt(argc, argv, &i, "--io"))) {
            if (strcmp(v, "float") != 0 && strcmp(v, "int") != 0)
                return usage("--io takes float or int, got '%s'", v);
            c->o.io_int = strcmp(v, "int") == 0;
        } else if ((v = cli_opt(argc, argv, &i, "--calib-data"))) {
            c->o.calib_data = v;
        } else if ((v = cli_opt(argc, argv, &i, "--calib"))) {
            c->o.calib = v;
        } else if ((v = cli_opt(argc, argv, &i, "--max-sublayer"))) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 1 || n > 1000000)
                return usage("--max-sublayer takes a cell count from 1 to 1000000, got '%s'", v);
            c->o.max_sublayer = (int)n;
        } else if ((v = cli_opt(argc, argv, &i, "--relevance"))) {
            if ((c->o.relevance = driver_relevance_parse(v)) < 0)
                return usage("--relevance takes bound, calibrated or sensitivity, got '%s'", v);
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
            long long n, lo = 0;
            driver_binding *b;
            if (!eq || eq == v)
                return usage("--dim takes SYM=N or SYM=MIN..MAX, got '%s'", v);
            n = strtoll(eq + 1, &end, 10);
            if (end != eq + 1 && strncmp(end, "..", 2) == 0) { /* a range (issue 21) */
                const char *hi = end + 2;
                lo = n;
                n = strtoll(hi, &end, 10);
                if (*end || end == hi || lo < 1 || n < lo || n > IR_MAX_ELEMS)
                    return usage("--dim range must be MIN..MAX with 1 <= MIN <= MAX <= 2^31, "
                                 "got '%s'",
                                 v);
                if (lo == n)
                    lo = 0; /* one value: a fixed binding */
            } else if (*end || end == eq + 1 || n < 1 || n > IR_MAX_ELEMS)
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
            b->min = lo;
        } else if ((v = cli_opt(argc, argv, &i, "--hsparse"))) {
            if (driver_check_option("--hsparse", v, err, sizeof err) < 0)
                return usage("%s", err); /* a bad value: before the model is read */
            c->o.hsparse = v;
        } else if ((v = cli_opt(argc, argv, &i, "--prune"))) {
            if (driver_check_option("--prune", v, err, sizeof err) < 0)
                return usage("%s", err);
            c->o.prune = v;
        } else if ((v = cli_opt(argc, argv, &i, "--sparse"))) {
            if (driver_check_option("--sparse", v, err, sizeof err) < 0)
                return usage("%s", err);
            c->o.sparse = v;
        } else if ((v = cli_opt(argc, argv, &i, "--sph"))) {
            if (parse_alpha(v, "--sph", &c->sph) || c->sph >= 1)
                return usage("--sph takes a sparsity in [0, 1), got '%s'", v);
            c->o.sph = c->sph;
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
    /* issue 24: forced breakpoints and the calibrated relevances need their inputs */
    if (c->o.max_sublayer && !c->o.has_alpha_inter && !c->thresholds)
        return usage("--max-sublayer needs --alpha-inter (0 for only its forced breakpoints)%s",
                     "");
    if (c->o.relevance && !c->o.calib && !c->thresholds && strcmp(c->cmd, "calibrate") != 0)
        return usage("--relevance=calibrated and sensitivity need --calib CALIB (from lstmc "
                     "calibrate)%s",
                     "");
    /* issue 22: the integer modes' combinations */
    if (c->o.io_int && !c->o.activations)
        return usage("--io=int needs --activations=int8 or int16%s", "");
    if (c->o.activations && c->o.weights && strcmp(c->o.weights, "int8") != 0)
        return usage("--activations stores the weights in int8; it does not combine with "
                     "--weights=%s",
                     c->o.weights);
    for (i = 0; i < c->o.n_dims; i++) /* issue 21: ranges make one library for many runs */
        if (c->o.dims[i].min && strcmp(c->cmd, "compile") != 0 && strcmp(c->cmd, "run") != 0 &&
            strcmp(c->cmd, "inspect") != 0)
            return usage("--dim: a range (%s=MIN..MAX) makes one library for many runs (lstmc "
                         "MODEL, lstmc run, lstmc inspect); give this command one value",
                         c->o.dims[i].name);
    return 0;
}

int
main(int argc, char **argv)
{
    const subcommand *s;
    cli c;
    int rc;
    for (s = subcommands; argc > 1 && s->name; s++)
        if (s->main && strcmp(argv[1], s->name) == 0)
            return s->main(argc - 1, argv + 1);
    rc = parse_args(argc, argv, &c);
    if (rc)
        return rc;
    for (s = subcommands; s->name; s++)
        if (s->fn && strcmp(c.cmd, s->name) == 0)
            break;
    return s->fn(&c);
}
