/*
 * ir_eval.c — see ir_eval.h.
 */
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "ir_eval.h"
#include "kprog.h"

#include <string.h>

int
ir_eval(arena *a, ir_graph *g, const void *const *inputs, void **outputs, diag *d)
{
    kprog kp;
    void **buf;
    int i, j;

    memset(&kp, 0, sizeof kp);
    if (kp_lower_graph(a, g, &kp, d) < 0)
        return -1;
    /* after lowering: it may add tensors (output copies) */
    buf = arena_calloc(a, (size_t)g->n_tensors + 1, sizeof *buf);
    for (i = 0; i < g->n_inputs; i++)
        buf[g->inputs[i]->id] = (void *)inputs[i];
    for (i = 0; i < g->n_tensors; i++) {
        ir_tensor *t = g->tensors[i];
        int64_t n = ir_shape_numel(&t->shape);
        if (t->data && !t->producer)
            buf[i] = t->data;
        else if (!buf[i] && n >= 0)
            buf[i] = arena_alloc(a, (size_t)n * ir_dtype_size(t->dtype));
    }
    for (i = 0; i < kp.n_calls; i++) {
        const kp_call *c = &kp.calls[i];
        const void *in[KP_MAX_ARGS] = {0};
        void *out[KP_MAX_ARGS] = {0};
        void *scratch = c->scratch_bytes > 0 ? arena_alloc(a, (size_t)c->scratch_bytes) : NULL;
        lstmc_rt_status st;
        for (j = 0; j < c->n_in; j++)
            in[j] = c->in[j] ? buf[c->in[j]->id] : NULL;
        for (j = 0; j < c->n_out; j++)
            out[j] = c->out[j] ? buf[c->out[j]->id] : NULL;
        st = kp_exec(c, in, out, scratch);
        if (st != LSTMC_RT_OK) {
            if (c->node)
                diag_node(d, c->node, "kernel %s failed: %s", kp_kind_fn(c->kind),
                          lstmc_rt_status_str(st));
            else
                diag_error(d, "kernel %s failed: %s", kp_kind_fn(c->kind), lstmc_rt_status_str(st));
            return -1;
        }
    }
    for (i = 0; i < kp.n_outputs; i++)
        outputs[i] = buf[kp.outputs[i]->id];
    return 0;
}
