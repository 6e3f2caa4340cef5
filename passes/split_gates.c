/*
 * split_gates.c — the Arm paper's schedule A+ (§IV, Algorithm 2).
 *
 * A recurrent layer multiplies G = [W | U] by [x_t; h_t-1] at every step, so with T steps
 * it reads all of G T times (schedule A; 800 MB for H = 512, T = 100 when G's 8 MB do not
 * fit the cache). Only U depends on the previous step. This pass breaks G into
 *   G1 = W  ->  lstmc.RnnProj: X' = G1 * I' for all T steps (and all batch entries) at once,
 *               one GEMM before the time loop (line 5), reading W once;
 *   G2 = U  ->  lstmc.RnnRec: per step Y' = G2 * h + X'[:, t], then the gate arithmetic
 *               (lines 6-17), reading only U per step (404 MB in the example).
 * For stacked layers the projection of layer l+1 runs on the whole output sequence of layer
 * l, which is complete before it starts. LSTM, GRU and RNN alike; every attribute carries
 * over to the recurrent node. fold_constants then packs W, U and the biases.
 */
#include <stdio.h>

#include "diag.h"
#include "ir.h"
#include "passes.h"

static int
cell_of(ir_op op, int *gates)
{
    switch (op) {
    case IR_OP_LSTM: *gates = 4; return 0;
    case IR_OP_GRU: *gates = 3; return 1;
    default: *gates = 1; return 2;
    }
}

static void
split(ir_graph *g, ir_node *n)
{
    ir_tensor *X = ir_in(n, 0), *P;
    int gates, cell = cell_of(n->op, &gates), i;
    int layout = (int)ir_attr_int(n, "layout", 0);
    int64_t dir = ir_attr_int(n, "direction", 0), H = ir_attr_int(n, "hidden_size", 0);
    int64_t D = dir == 2 ? 2 : 1, T = X->shape.d[layout ? 1 : 0], N = X->shape.d[layout ? 0 : 1];
    ir_shape ps = {0};
    ir_node *proj, *rec;
    char name[512];

    ps.rank = 3;
    ps.d[0] = D;
    ps.d[1] = T * N;
    ps.d[2] = gates * H;
    P = ir_tensor_tmp(g, "proj", IR_DT_F32, &ps);

    snprintf(name, sizeof name, "%s/G1", n->name);
    proj = ir_node_new(g, IR_OP_RNN_PROJ, name, "lstmc.RnnProj", 3, 1);
    ir_node_origin(proj, n);
    proj->inputs[0] = X;
    proj->inputs[1] = ir_in(n, 1); /* W */
    proj->inputs[2] = ir_in(n, 3); /* B */
    ir_node_set_output(proj, 0, P);
    ir_attr_set_int(g, proj, "cell", cell);
    ir_attr_set_int(g, proj, "hidden_size", H);
    ir_attr_set_int(g, proj, "direction", dir);
    ir_attr_set_int(g, proj, "linear_before_reset", ir_attr_int(n, "linear_before_reset", 0));
    ir_attr_set_int(g, proj, "packed", 0);

    snprintf(name, sizeof name, "%s/G2", n->name);
    rec = ir_node_new(g, IR_OP_RNN_REC, name, "lstmc.RnnRec", 7, 3);
    ir_node_origin(rec, n);
    rec->inputs[0] = P;
    rec->inputs[1] = ir_in(n, 2); /* R */
    /* only the GRU's Rbh under linear_before_reset stays out of P */
    if (cell == 1 && ir_attr_int(n, "linear_before_reset", 0))
        rec->inputs[2] = ir_in(n, 3);
    rec->inputs[3] = ir_in(n, 4); /* sequence_lens */
    rec->inputs[4] = ir_in(n, 5); /* initial_h */
    if (cell == 0) {
        rec->inputs[5] = ir_in(n, 6); /* initial_c */
        rec->inputs[6] = ir_in(n, 7); /* P (peepholes) */
    }
    for (i = 0; i < n->n_attrs; i++)
        *ir_attr_add(g, rec, n->attrs[i].name, n->attrs[i].kind) = n->attrs[i];
    ir_attr_set_int(g, rec, "cell", cell);
    ir_attr_set_int(g, rec, "input_size", X->shape.d[2]);
    ir_attr_set_int(g, rec, "seq_len", T);
    ir_attr_set_int(g, rec, "batch", N);
    ir_attr_set_int(g, rec, "packed", 0);
    for (i = 0; i < 3 && i < n->n_outputs; i++)
        ir_node_set_output(rec, i, n->outputs[i]);
    n->dead = 1;
}

int
pass_split_gates(ir_graph *g, const pass_ctx *cx, diag *d)
{
    int i, n0 = g->n_nodes;
    (void)cx;
    for (i = 0; i < n0; i++) {
        ir_node *n = g->nodes[i];
        if (!n->dead && (n->op == IR_OP_LSTM || n->op == IR_OP_GRU || n->op == IR_OP_RNN))
            split(g, n);
    }
    /* the new nodes were appended; restore topological order */
    return ir_toposort(g, d);
}
