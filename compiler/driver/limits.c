/*
 * limits.c — bounded resources (issue 11): a model whose weights or working memory would
 * exceed the configured limits is refused with a message rather than compiled; and the
 * memory budget of the target (issue 19): a model that does not fit its RAM and flash is
 * refused, one that fits says how.
 */
#include <stdio.h>

#include "codegen.h"
#include "diag.h"
#include "driver.h"
#include "driver_impl.h"
#include "ir.h"
#include "kprog.h"
#include "lstmc_rt_kernels.h"
#include "memplan.h"
#include "stream.h"
#include "target.h"

/* Refuse weights or an arena over the configured limits (issue 11: bounded resources). */
int
driver_check_limits(const ir_graph *g, const memplan *mp, const driver_options *o, diag *d)
{
    int64_t max_w = o->max_weights > 0 ? o->max_weights : DRIVER_MAX_WEIGHTS;
    int64_t max_a = o->max_arena > 0 ? o->max_arena : DRIVER_MAX_ARENA;
    int64_t weights = 0;
    int i, bad = 0;
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        if (mp->tensor[i].kind == MEMPLAN_CONST)
            weights += ir_shape_numel(&t->shape) * (int64_t)ir_dtype_size(t->dtype);
    }
    if (weights > max_w) {
        diag_error(d, "the weights would take %lld bytes, more than the limit of %lld "
                      "(--max-weights=BYTES to change it)",
                   (long long)weights, (long long)max_w);
        bad++;
    }
    if (mp->arena_size > max_a) {
        diag_error(d, "the working memory (arena) would take %lld bytes, more than the limit "
                      "of %lld (--max-arena=BYTES to change it)",
                   (long long)mp->arena_size, (long long)max_a);
        bad++;
    }
    return bad ? -1 : 0;
}


/* --- the memory budget (issue 19; docs/TARGETS.md "Memory budget") ------------------------
 *
 * RAM: what <name>_run needs, <NAME>_ARENA_SIZE + sizeof(<name>_ctx); or, for a model that
 * streams, what <name>_step alone needs, <NAME>_STREAM_ARENA_SIZE + sizeof(<name>_state) +
 * sizeof(<name>_ctx). The caller's input and output buffers and the stack are not counted.
 * Flash: the weights (the code comes on top: the size report, make size). Where the weights
 * are: const arrays in flash; on a target without flash_bytes (a Linux board) the program
 * and its weights are loaded into RAM, so they count against ram_bytes; with
 * --weights-placement=blob|pointer the caller puts them anywhere: in flash when they fit it,
 * else in RAM beside the arena.
 */

typedef struct budget_buf {
    const char *what; /* "" for a tensor, "scratch of node " for a call's scratch */
    const char *name;
    int64_t bytes;
} budget_buf;

/* The three largest buffers of mp's arena, "'name' 1234 B, ..." in out[0..n). */
static void
largest_buffers(const ir_graph *g, const kprog *kp, const memplan *mp, char *out, size_t n)
{
    budget_buf top[3], b;
    int nt = 0, i, k;
    size_t len = 0;
    for (i = 0; i < g->n_tensors + kp->n_calls; i++) {
        if (i < g->n_tensors) {
            const ir_tensor *t = g->tensors[i];
            int64_t e = ir_shape_numel(&t->shape);
            if (mp->tensor[i].kind != MEMPLAN_ARENA)
                continue;
            b.what = "";
            b.name = t->name;
            b.bytes = (e > 0 ? e : 1) * (int64_t)ir_dtype_size(t->dtype);
        } else {
            const kp_call *c = &kp->calls[i - g->n_tensors];
            if (c->scratch_bytes <= 0 || mp->scratch[i - g->n_tensors] < 0)
                continue;
            b.what = "scratch of node ";
            b.name = c->node ? c->node->name : "?";
            b.bytes = c->scratch_bytes;
        }
        for (k = nt < 3 ? nt++ : 3; k > 0 && top[k - 1].bytes < b.bytes; k--)
            if (k < 3)
                top[k] = top[k - 1];
        if (k < 3)
            top[k] = b;
    }
    out[0] = '\0';
    for (k = 0; k < nt && len < n; k++)
        len += (size_t)snprintf(out + len, n - len, "%s%s'%.80s' %lld B", k ? ", " : "",
                                top[k].what, top[k].name, (long long)top[k].bytes);
    if (!nt)
        snprintf(out, n, "none");
}

/* " (--weights=fp16: N B, --weights=int8: M B)" when the weights are fp32 and smaller
 * formats would shrink them; else "". */
static void
weights_hint(const ir_graph *g, const kprog *kp, const memplan *mp, int64_t w, int64_t extra,
             char *out, size_t n)
{
    int64_t per[4];
    int fmt;
    cg_weights_per_format(g, kp, mp, w, per, &fmt);
    out[0] = '\0';
    if (fmt == LSTMC_RT_WFMT_FP32 && per[LSTMC_RT_WFMT_INT8] < w)
        snprintf(out, n, "; --weights=fp16 would make the weights %lld B, --weights=int8 %lld B",
                 (long long)(per[LSTMC_RT_WFMT_FP16] + extra),
                 (long long)(per[LSTMC_RT_WFMT_INT8] + extra));
}

/* 100 * part / whole, rounded up (a model that takes a byte more than 99% shows 100%). */
static int
percent(int64_t part, int64_t whole)
{
    return whole > 0 ? (int)((part * 100 + whole - 1) / whole) : 0;
}

int
driver_check_budget(const ir_graph *g, const kprog *kp, const memplan *mp, const target *t,
                    const cg_options *co, const cg_c_sizes *sz, diag *d, char *note, size_t n)
{
    int64_t ram = t->ram_bytes, flash = t->flash_bytes;
    int64_t w = sz->weights + sz->stream_weights, w_ram = 0;
    int streams = cg_c_streams(co);
    int64_t whole = sz->arena + sz->ctx;
    int64_t step = streams ? sz->stream_arena + sz->state + sz->ctx : 0;
    int placed = co->placement != CG_WEIGHTS_CONST;
    int flash_bad, whole_ok, step_ok, bad = 0;
    const char *tn = t->name;
    char wram[128] = "", hint[160], bufs[400], why[700], NAME[128];
    size_t i;

    note[0] = '\0';
    for (i = 0; co->name[i] && i + 1 < sizeof NAME; i++)
        NAME[i] = (char)(co->name[i] >= 'a' && co->name[i] <= 'z' ? co->name[i] - 32
                                                                  : co->name[i]);
    NAME[i] = '\0';
    if (!ram && !flash) {
        snprintf(note, n, "lstmc: %s: target %s gives no RAM or flash size: memory not checked "
                          "(ram_bytes, flash_bytes in a profile file, docs/TARGETS.md)\n",
                 co->name, tn);
        return 0;
    }
    if (!flash || (placed && w > flash)) { /* the weights are in RAM */
        w_ram = w;
        snprintf(wram, sizeof wram, " + weights %lld%s", (long long)w,
                 !flash ? ": no flash_bytes, they load with the program"
                        : ": placed in RAM, more than the flash");
    }
    flash_bad = !placed && flash && w > flash;
    whole_ok = !ram || whole + w_ram <= ram;
    step_ok = streams && (!ram || step + w_ram <= ram);
    weights_hint(g, kp, mp, sz->weights, sz->stream_weights, hint, sizeof hint);

    if (flash_bad) {
        diag_error(d, "the weights take %lld B, more than the %lld B of flash of target %s "
                      "(flash_bytes; the code comes on top)%s; --no-budget compiles anyway",
                   (long long)w, (long long)flash, tn, hint);
        bad = 1;
    }
    if (!whole_ok && !step_ok) {
        largest_buffers(g, kp, mp, bufs, sizeof bufs);
        if (streams)
            snprintf(why, sizeof why, "streaming does not fit either: %s_step needs %lld B "
                                      "(%s_STREAM_ARENA_SIZE %lld + state %lld + context %lld%s)",
                     co->name, (long long)(step + w_ram), NAME, (long long)sz->stream_arena,
                     (long long)sz->state, (long long)sz->ctx, wram);
        else
            snprintf(why, sizeof why, "the model does not stream (%.400s), so %s_step, whose "
                                      "arena holds one time step, cannot help",
                     co->stream && co->stream->why[0] ? co->stream->why : "no step program",
                     co->name);
        diag_error(d, "%s_run needs %lld B of RAM (%s_ARENA_SIZE %lld + context %lld%s), more "
                      "than the %lld B of target %s (ram_bytes); the largest buffers of the "
                      "arena: %s; %s%s; --no-budget compiles anyway",
                   co->name, (long long)(whole + w_ram), NAME, (long long)sz->arena,
                   (long long)sz->ctx, wram, (long long)ram, tn, bufs, why, w_ram ? hint : "");
        bad = 1;
    }
    if (bad && !whole_ok && step_ok) /* refused for the flash: the RAM side too */
        diag_note(d, NULL, "in RAM it fits only streaming: %s_run needs %lld B, %s_step %lld B, "
                           "of %lld B",
                  co->name, (long long)(whole + w_ram), co->name, (long long)(step + w_ram),
                  (long long)ram);
    if (bad)
        return -1;
    if (!whole_ok)
        snprintf(note, n,
                 "lstmc: %s: fits %s only streaming: %s_run needs %lld B of RAM, more than its "
                 "%lld B; %s_step needs %lld B (%s_STREAM_ARENA_SIZE %lld + state %lld + "
                 "context %lld%s): bind the arena with %s_init_stream and feed %s_step\n",
                 co->name, tn, co->name, (long long)(whole + w_ram), (long long)ram, co->name,
                 (long long)(step + w_ram), NAME, (long long)sz->stream_arena,
                 (long long)sz->state, (long long)sz->ctx, wram, co->name, co->name);
    else {
        char r[300], f[200] = "";
        if (ram)
            snprintf(r, sizeof r, "RAM %lld of %lld B, %d%% (%s_ARENA_SIZE %lld + context %lld%s)",
                     (long long)(whole + w_ram), (long long)ram,
                     percent(whole + w_ram, ram), NAME, (long long)sz->arena,
                     (long long)sz->ctx, wram);
        else
            snprintf(r, sizeof r, "RAM not checked (no ram_bytes)");
        if (flash && !w_ram)
            snprintf(f, sizeof f, ", flash %lld of %lld B, %d%% (weights%s; code: make size)",
                     (long long)w, (long long)flash, percent(w, flash),
                     placed ? ", where you place them" : "");
        snprintf(note, n, "lstmc: %s: fits %s: %s%s\n", co->name, tn, r, f);
    }
    return 0;
}
