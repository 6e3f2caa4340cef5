/*
 * memplan.c — lifetimes of kernel-program buffers, then first-fit placement in one arena.
 */
#include "memplan.h"

#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "kprog.h"
#include "lstmc_rt_config.h"

#include <stdlib.h>

typedef struct interval {
    int first, last; /* call indices, inclusive */
    int64_t size;    /* bytes, aligned */
    int64_t *where;  /* receives the offset */
} interval;

typedef struct block {
    int64_t off, size;
    int last;
} block;

static int64_t
align_up(int64_t n)
{
    return (n + LSTMC_RT_ALIGN - 1) / LSTMC_RT_ALIGN * LSTMC_RT_ALIGN;
}

static int
by_first(const void *pa, const void *pb)
{
    const interval *a = pa, *b = pb;
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    if (a->size != b->size) /* larger first packs better */
        return a->size > b->size ? -1 : 1;
    return 0;
}

static int
by_off(const void *pa, const void *pb)
{
    const block *a = pa, *b = pb;
    return a->off < b->off ? -1 : a->off > b->off;
}

int
memplan_run(arena *a, const ir_graph *g, const kprog *kp, memplan *mp, diag *d)
{
    int nt = g->n_tensors, i, j, n_iv = 0, n_live = 0;
    int *first = arena_calloc(a, (size_t)nt + 1, sizeof *first);
    int *last = arena_calloc(a, (size_t)nt + 1, sizeof *last);
    interval *iv = arena_calloc(a, (size_t)nt + (size_t)kp->n_calls + 1, sizeof *iv);
    block *live = arena_calloc(a, (size_t)nt + (size_t)kp->n_calls + 1, sizeof *live);
    int64_t top = 0;

    mp->tensor = arena_calloc(a, (size_t)nt + 1, sizeof *mp->tensor);
    mp->scratch = arena_calloc(a, (size_t)kp->n_calls + 1, sizeof *mp->scratch);
    mp->naive_size = 0;
    for (i = 0; i < nt; i++)
        first[i] = -1;
    for (i = 0; i < g->n_inputs; i++) {
        mp->tensor[g->inputs[i]->id].kind = MEMPLAN_INPUT;
        mp->tensor[g->inputs[i]->id].index = i;
    }
    for (i = 0; i < kp->n_outputs; i++) {
        memplan_loc *l = &mp->tensor[kp->outputs[i]->id];
        l->kind = MEMPLAN_OUTPUT;
        l->index = i;
    }
    for (i = 0; i < kp->n_calls; i++) {
        const kp_call *c = &kp->calls[i];
        int lo = i, hi = i, w;
        for (w = 0; w < kp->n_waves; w++) /* a wavefront runs its calls at the same time */
            if (kp->waves[w].first <= i && i <= kp->waves[w].last) {
                lo = kp->waves[w].first;
                hi = kp->waves[w].last;
            }
        for (j = 0; j < c->n_in + c->n_out; j++) {
            const ir_tensor *t = j < c->n_in ? c->in[j] : c->out[j - c->n_in];
            if (!t)
                continue;
            if (t->data && mp->tensor[t->id].kind == MEMPLAN_NONE) {
                mp->tensor[t->id].kind = MEMPLAN_CONST;
                mp->tensor[t->id].index = t->id;
                continue;
            }
            if (first[t->id] < 0 || first[t->id] > lo)
                first[t->id] = lo;
            if (last[t->id] < hi)
                last[t->id] = hi;
        }
        mp->scratch[i] = -1;
        if (c->scratch_bytes > 0) {
            iv[n_iv].first = lo;
            iv[n_iv].last = hi;
            iv[n_iv].size = align_up(c->scratch_bytes);
            iv[n_iv].where = &mp->scratch[i];
            n_iv++;
        }
    }
    for (i = 0; i < nt; i++) {
        const ir_tensor *t = g->tensors[i];
        int64_t bytes;
        if (first[i] < 0 || mp->tensor[i].kind != MEMPLAN_NONE)
            continue;
        bytes = ir_shape_numel(&t->shape);
        if (bytes < 0) {
            diag_tensor(d, t, "shape is not known at memory planning");
            return -1;
        }
        mp->tensor[i].kind = MEMPLAN_ARENA;
        iv[n_iv].first = first[i];
        iv[n_iv].last = last[i];
        iv[n_iv].size = align_up(bytes * (int64_t)ir_dtype_size(t->dtype));
        iv[n_iv].where = &mp->tensor[i].offset;
        n_iv++;
    }
    qsort(iv, (size_t)n_iv, sizeof *iv, by_first);
    for (i = 0; i < n_iv; i++) {
        int64_t off = 0;
        int k = 0;
        /* retire blocks whose lifetime ended before this one starts */
        for (j = 0; j < n_live; j++)
            if (live[j].last >= iv[i].first)
                live[k++] = live[j];
        n_live = k;
        qsort(live, (size_t)n_live, sizeof *live, by_off);
        for (j = 0; j < n_live; j++) {
            if (live[j].off - off >= iv[i].size)
                break;
            if (live[j].off + live[j].size > off)
                off = live[j].off + live[j].size;
        }
        *iv[i].where = off;
        live[n_live].off = off;
        live[n_live].size = iv[i].size;
        live[n_live].last = iv[i].last;
        n_live++;
        if (off + iv[i].size > top)
            top = off + iv[i].size;
        mp->naive_size += iv[i].size;
    }
    mp->arena_size = top;
    return 0;
}
