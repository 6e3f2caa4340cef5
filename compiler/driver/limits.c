/*
 * limits.c — bounded resources (issue 11): a model whose weights or working memory would
 * exceed the configured limits is refused with a message rather than compiled.
 */
#include "diag.h"
#include "driver.h"
#include "driver_impl.h"
#include "ir.h"
#include "memplan.h"

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

