/*
 * fold.c — constant folding by the device's own kernels: a node whose inputs are all
 * constant is lowered to kernel calls and run with kp_exec at compile time, so a folded
 * value is exactly what the generated library would compute.
 */
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "kprog.h"

#include <stdint.h>

/* A constant subgraph node bigger than this stays in the program rather than the weights. */
#define FOLD_MAX_BYTES ((int64_t)64 << 20)

/* Evaluate node n (all inputs constant) with the runtime kernels; its outputs become
 * constants. */
int
kp_fold_node(ir_graph *g, ir_node *n, int64_t *budget, diag *d)
{
    arena *scratch = arena_new(0);
    kprog kp = {0};
    int i, j, rc = 0;
    int64_t total = 0;

    for (j = 0; j < n->n_outputs; j++) {
        ir_tensor *t = n->outputs[j];
        int64_t ne;
        if (!t)
            continue;
        ne = ir_shape_numel(&t->shape);
        if (ne < 0)
            goto keep;
        total += ne * (int64_t)ir_dtype_size(t->dtype);
    }
    if (total > FOLD_MAX_BYTES || total > *budget)
        goto keep;
    *budget -= total;
    if (kp_lower_node(scratch, &kp, n, d) < 0) {
        rc = -1;
        goto done;
    }
    for (j = 0; j < n->n_outputs; j++) {
        ir_tensor *t = n->outputs[j];
        if (t && !t->data)
            t->data = ir_data_alloc(g, (size_t)ir_shape_numel(&t->shape) * ir_dtype_size(t->dtype));
    }
    for (i = 0; i < kp.n_calls; i++) {
        const kp_call *c = &kp.calls[i];
        const void *in[KP_MAX_ARGS] = {0};
        void *out[KP_MAX_ARGS] = {0};
        void *s = c->scratch_bytes > 0 ? arena_alloc(scratch, (size_t)c->scratch_bytes) : NULL;
        lstmc_rt_status st;
        for (j = 0; j < c->n_in; j++)
            in[j] = c->in[j] ? c->in[j]->data : NULL;
        for (j = 0; j < c->n_out; j++)
            out[j] = c->out[j] ? c->out[j]->data : NULL;
        st = kp_exec(c, in, out, s);
        if (st != LSTMC_RT_OK) {
            diag_node(d, n, "evaluating it on constant inputs failed: %s", lstmc_rt_status_str(st));
            rc = -1;
            goto done;
        }
    }
    goto fold;
keep:
    arena_free(scratch);
    return 0;
fold:
    for (j = 0; j < n->n_outputs; j++)
        if (n->outputs[j])
            n->outputs[j]->producer = NULL;
    n->dead = 1;
done:
    arena_free(scratch);
    return rc;
}
