/*
 * ir_verify.c — see ir_verify.h.
 */
#include "ir_verify.h"

#include "arena.h"
#include "diag.h"
#include "ir.h"

static int
check_tensor(const ir_node *n, const ir_tensor *t, diag *d)
{
    if (t->dtype == IR_DT_UNDEF) {
        diag_node(d, n, "verify: tensor '%s' has no dtype", t->name);
        return 1;
    }
    if (!ir_shape_known(&t->shape)) {
        diag_node(d, n, "verify: tensor '%s' has no concrete shape", t->name);
        return 1;
    }
    return 0;
}

int
ir_verify(const ir_graph *g, diag *d)
{
    char *ready = arena_calloc(g->a, (size_t)g->n_tensors + 1, 1);
    int i, j, bad = 0;

    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        if (t->id != i) {
            diag_error(d, "verify: tensor '%s' has id %d at index %d", t->name, t->id, i);
            bad++;
        }
        if (t->is_input || (t->data && !t->producer))
            ready[i] = 1;
    }
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (j = 0; j < n->n_inputs; j++) {
            const ir_tensor *t = n->inputs[j];
            if (!t)
                continue;
            if (!ready[t->id]) {
                diag_node(d, n, "verify: input '%s' is not available before its use",
                          t->name);
                bad++;
            }
            bad += check_tensor(n, t, d);
        }
        for (j = 0; j < n->n_outputs; j++) {
            const ir_tensor *t = n->outputs[j];
            if (!t)
                continue;
            if (t->producer != n) {
                diag_node(d, n, "verify: output '%s' names another producer", t->name);
                bad++;
            }
            if (ready[t->id]) {
                diag_node(d, n, "verify: output '%s' is produced twice", t->name);
                bad++;
            }
            ready[t->id] = 1;
            bad += check_tensor(n, t, d);
        }
    }
    for (i = 0; i < g->n_outputs; i++) {
        if (!ready[g->outputs[i]->id]) {
            diag_error(d, "verify: graph output '%s' is never produced", g->outputs[i]->name);
            bad++;
        }
    }
    return bad ? -1 : 0;
}
