/*
 * cli_impl.h — what the files of the lstmc command line share (compiler/cli: main.c parses
 * the options and picks the subcommand; cmd_*.c run them). Each cmd_* returns the exit
 * status (0, 1 bad input or unsupported model, 2 bad usage); only main.c exits.
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder (compiler/cli)
 * uses only driver.h, the tools' entry points, its own helpers (cliopt, outdir, proc) and,
 * read-only, ir.h, kprog.h, memplan.h, target.h, formats/ and the runtime's headers; never
 * passes.h or codegen internals.
 */
#ifndef LSTMC_CLI_IMPL_H
#define LSTMC_CLI_IMPL_H

#include "driver.h"

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

/* cmd_compile.c: lstmc MODEL.onnx --target=NAME -o OUTDIR (a C library, or E-LSTM's RoCC
 * program for --target=elstm: a backend like any other; written beside OUTDIR and swapped
 * in only on success). */
int cmd_compile(cli *c);

/* cmd_run.c: lstmc run (compile, build with make, run on .npy inputs); lstmc calibrate. */
int cmd_run(cli *c);
int cmd_calibrate(cli *c);

/* cmd_inspect.c: lstmc inspect (what the model is). */
int cmd_inspect(cli *c);

/* cmd_targets.c: lstmc targets (the built-in target profiles). */
int cmd_targets(cli *c);

#endif /* LSTMC_CLI_IMPL_H */
