/*
 * hsparse.c — E-LSTM's hidden-state sparsity (../shared/papers/elstm-embedded-sparse-lstm.txt
 * §3.2.2, §4.4) on the CPU: every LSTM lstmc.RnnRec gets a threshold th (attribute
 * hsparse_th), and its recurrent product then treats each group of four h_{t-1} elements
 * whose summed magnitude is below th as zero and skips the U columns it multiplies
 * (runtime/src/rt_hsparse.c). th = 0 is exact.
 *
 * --hsparse=TH gives every LSTM layer TH; --hsparse=TH0,TH1,... one per LSTM layer in graph
 * order (the paper picks th per layer). Needs the split_gates form: the recurrent product
 * is its own step there. Not with tissues (breakpoints, --alpha-inter): a tissue multiplies
 * U by the h of several cells at once (MICRO'18 §IV), so a column could only be skipped where
 * every one of them is small; that kernel is not written, and the pass says so. DRS
 * (--alpha-intra) is refused by the driver for the same reason (it skips rows of the same
 * product with its own kernels).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "lstmc_rt_kernels.h"
#include "passes.h"

int
pass_hsparse(ir_graph *g, const pass_ctx *cx, diag *d)
{
    const float *th = cx->hsparse.th;
    int n_th = cx->hsparse.n, i, k = 0, n_rec = 0;
    if (!n_th)
        return 0;
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        if (n->dead)
            continue;
        if (n->op == IR_OP_LSTM) {
            diag_node(d, n, "--hsparse needs the split_gates pass (the recurrent product U h "
                            "as its own kernel); it is disabled or not in the pass list");
            return -1;
        }
        if (n->op == IR_OP_RNN_TISSUE) {
            diag_node(d, n, "--hsparse does not combine with the tissue schedule "
                            "(--alpha-inter, breakpoints pass): a tissue multiplies U by "
                            "several h vectors at once");
            return -1;
        }
        n_rec += n->op == IR_OP_RNN_REC && ir_attr_int(n, "cell", 0) == LSTMC_RT_CELL_LSTM;
    }
    if (n_th != 1 && n_th != n_rec) {
        diag_error(d, "--hsparse gives %d thresholds; the model has %d LSTM layers (give one "
                      "for all, or one per layer)",
                   n_th, n_rec);
        return -1;
    }
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        if (n->dead || n->op != IR_OP_RNN_REC || ir_attr_int(n, "cell", 0) != LSTMC_RT_CELL_LSTM)
            continue;
        ir_attr_set_float(g, n, "hsparse_th", th[n_th == 1 ? 0 : k]);
        k++;
    }
    return 0;
}
