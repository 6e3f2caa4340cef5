/*
 * cmd_run.c — `lstmc run MODEL.onnx --input NAME=FILE.npy... --output-dir DIR`: compile
 * the model for the inputs' shapes into a build folder, build it with make and run the
 * generated NAME_run on the inputs; and `lstmc calibrate`, which runs the model over
 * calibration samples (calibrate.h).
 */
#define _XOPEN_SOURCE 700
#include "cli_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "calibrate.h"
#include "diag.h"
#include "ir.h"
#include "lstmc_rt_npy.h"
#include "outdir.h"
#include "proc.h"
#include "tune.h"

int
cmd_calibrate(cli *c)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, c->o.model, stderr);
    int rc = calibrate_run(a, &c->o, c->data, c->o.outdir, d) == 0 ? 0 : 1;
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

int
cmd_run(cli *c)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, c->o.model, stderr);
    ir_graph *g;
    const char *paths[DRIVER_MAX_BINDINGS];
    char builddir[4096], exe[4200], cflags[1024];
    const char *name;
    int i, j, rc = 1, made_tmp = 0, ranged = 0;

    /* which graph input each --input feeds */
    g = driver_import(a, c->o.model, d);
    if (!g) {
        driver_check_rest(a, &c->o, d); /* does the rest compile? (issue 20) */
        goto out;
    }
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
    for (i = 0; i < c->o.n_dims; i++)
        ranged |= c->o.dims[i].min != 0;
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
        if (ranged) /* one library for the range (issue 21): its driver checks the data */
            continue;
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
    /* the model read once: the graph that mapped the inputs is the one compiled */
    if ((c->thresholds && tune_load(a, c->thresholds, &c->o, d) < 0) ||
        driver_compile_graph(a, g, &c->o, d) < 0)
        goto out;
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
