/*
 * cmd_compile.c — `lstmc MODEL.onnx --target=NAME -o OUTDIR`: compile to a C library (or,
 * for --target=elstm, the E-LSTM accelerator's RoCC program), written beside OUTDIR and
 * swapped in only on success.
 */
#include "cli_impl.h"

#include <string.h>

#include "arena.h"
#include "diag.h"
#include "outdir.h"
#include "tune.h"

int
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
