/*
 * cmd_inspect.c — `lstmc inspect MODEL.onnx`: what the model is (opset, ops, parameters),
 * its recurrent layers' figures (analyze.h) and its IR.
 */
#include "cli_impl.h"

#include <stdint.h>
#include <stdio.h>

#include "analyze.h"
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "ir_print.h"

int
cmd_inspect(cli *c)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, c->o.model, stderr);
    ir_graph *g = driver_import(a, c->o.model, d);
    int rc = 1;
    if (g) {
        int i, counts[IR_OP_COUNT] = {0};
        int64_t params = 0;
        for (i = 0; i < g->n_nodes; i++)
            counts[g->nodes[i]->op]++;
        for (i = 0; i < g->n_tensors; i++) {
            const ir_tensor *t = g->tensors[i];
            if (t->data && !t->producer && t->dtype == IR_DT_F32)
                params += ir_shape_numel(&t->shape);
        }
        printf("model   %s\nopset   %d\nnodes   %d\nparams  %lld float32 values\nops    ",
               c->o.model, g->opset, g->n_nodes, (long long)params);
        for (i = 0; i < IR_OP_COUNT; i++)
            if (counts[i])
                printf(" %s x%d", ir_op_name((ir_op)i), counts[i]);
        printf("\n");
        for (i = 0; i < c->o.n_dims; i++) /* issue 21: the library takes these per run */
            if (c->o.dims[i].min)
                printf("dim     '%s' ranges %lld..%lld (NAME_run_dims; figures below at %lld)\n",
                       c->o.dims[i].name, (long long)c->o.dims[i].min,
                       (long long)c->o.dims[i].value, (long long)c->o.dims[i].value);
        printf("\n");
        analyze_inspect(a, g, &c->o, stdout, d);
        ir_print(g, stdout);
        rc = 0;
    }
    arena_free(a);
    return rc;
}
