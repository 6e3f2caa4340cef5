/*
 * fuzz_onnx.c — libFuzzer harness for everything the compiler does with a model before
 * codegen: ONNX import (protobuf-c decoding, every importer), binding the symbolic dims,
 * shape inference and constant folding (driver_prepare), the default passes with the IR
 * verified after each, ir_verify, lowering to a kernel program and the memory plan.
 *
 * What counts as a finding: any sanitizer report, a leak, a timeout, and a broken-IR
 * message ("a compiler bug", "verify:") from a model the earlier stages accepted, which the
 * harness turns into abort(). A model that is rejected with a message is a pass.
 *
 * Bounds, so that every input is cheap:
 *  - every arena (the compilation's and the scratch arenas the driver and passes make with
 *    arena_new(0)) is capped at FUZZ_ARENA_CAP; the OOM handler longjmps back here, so an
 *    over-budget model is a clean rejection;
 *  - arena_new/arena_free are wrapped (-Wl,--wrap) to keep a list of live arenas, freed
 *    after such a longjmp, so LeakSanitizer sees no leak that the real compiler (which
 *    exits on OOM) would not have;
 *  - symbolic input dims are bound to FUZZ_DIM, and a model whose declared inputs exceed
 *    FUZZ_MAX_DIM per dim or FUZZ_MAX_NUMEL elements is skipped.
 *
 * The model is named <dir>/fuzz.onnx, where dir (/dev/shm/lstmc_fuzz_onnx.<uid>, made at
 * start-up and left for the next run) holds one external data file, w.bin (FUZZ_EXT_BYTES
 * bytes), so that external data offsets and lengths get fuzzed too (seed:
 * fuzz/corpus/onnx/ext_*.onnx).
 */
#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "ir_print.h"
#include "ir_verify.h"
#include "kprog.h"
#include "memplan.h"
#include "onnx.h"
#include "passes.h"
#include "target.h"

#include <errno.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_ARENA_CAP  ((size_t)64 << 20)
#define FUZZ_MAX_ARENAS 256
#define FUZZ_DIM        2
#define FUZZ_MAX_DIM    64
#define FUZZ_MAX_NUMEL  4096
#define FUZZ_PASSES     "split_gates,fold_constants,dce"
#define FUZZ_EXT_BYTES  1024

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* --- the model's folder, with external data ----------------------------------------- */

static char model_dir[64], model_path[96];

/* The folder is per user and reused by every run (a crash skips atexit, so a folder per
 * process would pile up); w.bin is written to a temporary name and renamed into place, so
 * concurrent runs (-fork, -jobs) always see it whole. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    unsigned char buf[FUZZ_EXT_BYTES];
    char tmp[128], ext[96];
    FILE *f;
    size_t i;
    (void)argc;
    (void)argv;
    snprintf(model_dir, sizeof model_dir, "%s/lstmc_fuzz_onnx.%ld",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getuid());
    if (mkdir(model_dir, 0700) != 0 && errno != EEXIST)
        abort();
    snprintf(model_path, sizeof model_path, "%s/fuzz.onnx", model_dir);
    snprintf(ext, sizeof ext, "%s/w.bin", model_dir);
    snprintf(tmp, sizeof tmp, "%s.%ld", ext, (long)getpid());
    for (i = 0; i < sizeof buf; i++) /* small floats: 0x3c000000 + i, i.e. near 0.0078 */
        buf[i] = (unsigned char)(i % 4 == 3 ? 0x3c : i % 4 == 0 ? i / 4 : 0);
    f = fopen(tmp, "wb");
    if (!f || fwrite(buf, 1, sizeof buf, f) != sizeof buf || fclose(f) != 0 ||
        rename(tmp, ext) != 0)
        abort();
    return 0;
}

/* --- arenas: capped, tracked, freed after an OOM longjmp ---------------------------- */

arena *__real_arena_new(size_t cap);
void __real_arena_free(arena *a);
arena *__wrap_arena_new(size_t cap);
void __wrap_arena_free(arena *a);

static arena *live[FUZZ_MAX_ARENAS];
static int n_live;
static jmp_buf oom_jmp;
static int verbose; /* FUZZ_VERBOSE set: say how far each input got (triage) */

arena *
__wrap_arena_new(size_t cap)
{
    arena *a = __real_arena_new(cap && cap < FUZZ_ARENA_CAP ? cap : FUZZ_ARENA_CAP);
    if (n_live == FUZZ_MAX_ARENAS)
        abort(); /* the compiler nests arenas this deep: worth a look */
    live[n_live++] = a;
    return a;
}

void
__wrap_arena_free(arena *a)
{
    int i;
    for (i = n_live - 1; i >= 0; i--)
        if (live[i] == a) {
            live[i] = live[--n_live];
            break;
        }
    __real_arena_free(a);
}

static void
free_live_arenas(void)
{
    while (n_live > 0)
        __wrap_arena_free(live[n_live - 1]);
}

static void
fuzz_oom(size_t size, size_t cap)
{
    (void)size;
    (void)cap;
    longjmp(oom_jmp, 1);
}

/* --- the pipeline ------------------------------------------------------------------- */

/* Bind every unknown input dim to FUZZ_DIM (named ones through --dim style bindings, as
 * the CLI would; unnamed ones directly). 0 when the inputs are small enough to go on. */
static int
bind_small(ir_graph *g, driver_options *o)
{
    int i, k, m;
    for (i = 0; i < g->n_inputs; i++) {
        ir_shape *s = &g->inputs[i]->shape;
        int64_t numel = 1;
        for (k = 0; k < s->rank; k++) {
            if (s->d[k] < 0 && s->sym[k]) {
                for (m = 0; m < o->n_dims; m++)
                    if (strcmp(o->dims[m].name, s->sym[k]) == 0)
                        break;
                if (m == o->n_dims) {
                    if (o->n_dims == DRIVER_MAX_BINDINGS)
                        return -1;
                    o->dims[o->n_dims].name = s->sym[k];
                    o->dims[o->n_dims++].value = FUZZ_DIM;
                }
            } else if (s->d[k] < 0) {
                s->d[k] = FUZZ_DIM;
            }
            if (s->d[k] > FUZZ_MAX_DIM)
                return -1;
            numel *= s->d[k] < 0 ? FUZZ_DIM : s->d[k];
        }
        if (numel > FUZZ_MAX_NUMEL)
            return -1;
    }
    return 0;
}

/* A broken invariant reported by the pass manager or ir_verify is a compiler bug, not a
 * rejection: make it a crash libFuzzer keeps. */
static void
check_not_bug(const diag *d)
{
    const char *t = diag_text(d);
    if (strstr(t, "a compiler bug") || strstr(t, "verify:")) {
        fprintf(stderr, "fuzz_onnx: broken IR invariant:\n%s\n", t);
        abort();
    }
}

static void
run_model(const uint8_t *data, size_t size, arena *a, diag *d)
{
    static FILE *null_out;
    driver_options o;
    pass_ctx cx;
    ir_graph *g;
    kprog kp;
    memplan mp;

    g = onnx_import_buffer(data, size, model_path, a, d);
    if (!g)
        return;
    memset(&o, 0, sizeof o);
    o.target = "host";
    if (bind_small(g, &o) < 0)
        return;
    if (driver_prepare(g, &o, d) < 0)
        return;
    if (ir_verify(g, d) < 0) {
        check_not_bug(d);
        return;
    }
    memset(&cx, 0, sizeof cx);
    cx.t = target_find("host");
    if (pass_run_list(g, FUZZ_PASSES, &cx, d) < 0) {
        check_not_bug(d);
        return;
    }
    if (ir_verify(g, d) < 0) {
        check_not_bug(d);
        return;
    }
    if (!null_out)
        null_out = fopen("/dev/null", "w");
    if (null_out)
        ir_print(g, null_out);
    memset(&kp, 0, sizeof kp);
    if (kp_lower_graph(a, g, &kp, d) < 0)
        return;
    memset(&mp, 0, sizeof mp);
    if (memplan_run(a, g, &kp, &mp, d) == 0 && verbose)
        fprintf(stderr, "fuzz_onnx: compiled: %d calls, arena %lld bytes\n", kp.n_calls,
                (long long)mp.arena_size);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena *a;
    diag *d;

    arena_set_oom_handler(fuzz_oom);
    verbose = getenv("FUZZ_VERBOSE") != NULL;
    a = arena_new(FUZZ_ARENA_CAP);
    if (setjmp(oom_jmp) == 0) {
        d = diag_new(a, "fuzz.onnx", NULL);
        run_model(data, size, a, d);
        if (verbose && diag_count(d))
            fprintf(stderr, "fuzz_onnx: rejected:\n%s\n", diag_text(d));
    } else if (verbose) {
        fprintf(stderr, "fuzz_onnx: rejected: over the arena cap\n");
    }
    free_live_arenas();
    return 0;
}
