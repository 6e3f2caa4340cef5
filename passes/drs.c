/*
 * drs.c — MICRO'18 §V: dynamic row skip (Algorithm 3), the intra-cell optimisation.
 *
 * After split_gates and fold_constants, the time loop of an LSTM layer is the packed
 * lstmc.RnnRec, whose cell multiplies all of U_{f,i,c,o} by h_{t-1} (Algorithm 1 line 4).
 * This pass splits the recurrent weight into U_o and U_fic (lstmc_rt_drs_pack: U_o k-major,
 * U_fic with the three rows of each hidden unit contiguous) and replaces the RnnRec by
 *
 *   lstmc.RnnDrs  inputs  P, Uo [D, H, H], Ufic [D, H*3*H], sequence_lens, initial_h,
 *                         initial_c, P(eephole)
 *                 outputs Y, Y_h, Y_c (the RnnRec's)
 *                 attributes: the RnnRec's (less row_abs_sum) and "alpha_intra" (float)
 *
 * whose kernel (lstmc_rt_lstm_drs, runtime/src/rt_drs.c; an LLVM version in
 * codegen/llvm/) runs every cell as Algorithm 3 lines 4-8: U_o h_{t-1} and o_t
 * first, the compact list R of the units whose |o_t| is not below alpha_intra, the rows of
 * U_f, U_i, U_c for the units in R only, then the element-wise step with c_t = 0 and
 * h_t = o_t h(0) for the skipped units (lstmc_rt_kernels.h says why). An lstmc.RnnTissue (the
 * breakpoints pass ran first) gets the same two weights as inputs 9 and 10 and the
 * attribute: its kernel skips rows inside tissues (rt_tissue.c).
 *
 * alpha_intra is the compile-time default (--alpha-intra); the generated
 * <name>_set_thresholds changes it per run. 0 skips nothing and gives the exact result.
 *
 * Eligible: LSTM layers with constant (packed) recurrent weights and no output-gate
 * peephole. GRU and vanilla RNN layers have no output gate — no o_t says which rows cannot
 * reach h_t — so they keep their RnnRec; so does an LSTM whose P_o peephole is not zero
 * (o_t then depends on c_t, which needs every row). Each is reported on stderr as a note.
 */
#include "diag.h"
#include "ir.h"
#include "lstmc_rt_kernels.h"
#include "passes.h"

#include <stdio.h>
#include <string.h>

static void
note(diag *d, const ir_node *n, const char *why)
{
    diag_note(d, n, "dynamic row skip left out: %s", why);
}

/* An LSTM has the output gate o_t DRS reads; a GRU or RNN cell gets a note and is left. */
static int
has_o_gate(const ir_node *n, diag *d)
{
    if (ir_attr_int(n, "cell", -1) == LSTMC_RT_CELL_LSTM)
        return 1;
    note(d, n,
         "a GRU or vanilla RNN cell has no output gate o_t, and DRS skips the rows whose o_t "
         "is near zero (MICRO'18 §V-A)");
    return 0;
}

/* 1 when the peephole input is absent or its P_o part [D, H..2H) is constant zero. */
static int
po_is_zero(const ir_tensor *Peep, int64_t D, int64_t H)
{
    const float *v;
    int64_t d, j;

    if (!Peep)
        return 1;
    if (!Peep->data || Peep->dtype != IR_DT_F32 || ir_shape_numel(&Peep->shape) != D * 3 * H)
        return 0;
    v = Peep->data;
    for (d = 0; d < D; d++)
        for (j = 0; j < H; j++)
            if (v[d * 3 * H + H + j] != 0.0f)
                return 0;
    return 1;
}

/* Ut [D, H, 4H] from U in lstmc_rt_lstm_tissue_pack's panels of 16 columns (the tissue's
 * input 1), so an RnnTissue's weights can be split like an RnnRec's. */
static float *
unpack_panels(ir_graph *g, const ir_tensor *Up, int64_t D, int64_t H)
{
    const int64_t G = 4 * H, NR = 16;
    ir_shape s = {0};
    ir_tensor *t;
    const float *src;
    float *ut;
    int64_t d, g0, k, c;

    if (!Up || !Up->data || ir_shape_numel(&Up->shape) != D * H * G)
        return NULL;
    s.rank = 3;
    s.d[0] = D;
    s.d[1] = H;
    s.d[2] = G;
    t = ir_const_new(g, "G2_unpacked", IR_DT_F32, &s, NULL);
    src = Up->data;
    ut = t->data;
    for (d = 0; d < D; d++)
        for (g0 = 0; g0 < G; g0 += NR) {
            const int64_t gn = G - g0 < NR ? G - g0 : NR;
            const float *pan = src + d * H * G + g0 * H;

            for (k = 0; k < H; k++)
                for (c = 0; c < gn; c++)
                    ut[(d * H + k) * G + g0 + c] = pan[k * gn + c];
        }
    return ut;
}

/* Uo [D, H, H] and Ufic [D, H*3*H] from Ut [D, H, 4H]; 0 on success. */
static int
split_u(ir_graph *g, const float *Ut, int64_t D, int64_t H, ir_tensor **Uo, ir_tensor **Ufic)
{
    ir_shape s = {0};

    s.rank = 3;
    s.d[0] = D;
    s.d[1] = H;
    s.d[2] = H;
    *Uo = ir_const_new(g, "G2_Uo", IR_DT_F32, &s, NULL);
    s.rank = 2;
    s.d[1] = H * 3 * H;
    s.d[2] = 0;
    *Ufic = ir_const_new(g, "G2_Ufic", IR_DT_F32, &s, NULL);
    return lstmc_rt_drs_pack(D, H, Ut, (*Uo)->data, (*Ufic)->data) == LSTMC_RT_OK ? 0 : -1;
}

/* Copy n's attributes to m, less row_abs_sum and alpha_intra, then set alpha_intra. */
static void
copy_attrs(ir_graph *g, const ir_node *n, ir_node *m, float alpha)
{
    int i;

    for (i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, "row_abs_sum") != 0 &&
            strcmp(n->attrs[i].name, "alpha_intra") != 0)
            *ir_attr_add(g, m, n->attrs[i].name, n->attrs[i].kind) = n->attrs[i];
    ir_attr_set_float(g, m, "alpha_intra", alpha);
}

/* An eligible LSTM node (RnnRec or RnnTissue) rebuilt with DRS; 0 when left alone. */
static int
to_drs(ir_graph *g, const pass_ctx *cx, ir_node *n, diag *d)
{
    const int tissue = n->op == IR_OP_RNN_TISSUE;
    const int64_t H = ir_attr_int(n, "hidden_size", 0);
    const int64_t D = ir_attr_int(n, "direction", 0) == 2 ? 2 : 1;
    const float alpha = ir_attr_float(n, "alpha_intra", cx ? cx->alpha_intra : 0.0f);
    const ir_tensor *U = ir_in(n, 1);
    const float *Ut;
    ir_tensor *Uo, *Ufic;
    char name[512];
    ir_node *m;
    int i;

    if (!has_o_gate(n, d))
        return 0;
    if (ir_attr_int(n, "packed", 0) != 1 || !U || !U->data || H < 1) {
        note(d, n,
             "the recurrent weights are not packed constants (drs runs after "
             "fold_constants)");
        return 0;
    }
    if (!po_is_zero(ir_in(n, 6), D, H)) {
        note(d, n, "the output gate's peephole makes o_t depend on c_t, which needs every row");
        return 0;
    }
    if (tissue)
        Ut = unpack_panels(g, U, D, H);
    else
        Ut = ir_shape_numel(&U->shape) == D * H * 4 * H ? U->data : NULL;
    if (!Ut || split_u(g, Ut, D, H, &Uo, &Ufic) < 0) {
        note(d, n, "the recurrent weight has an unexpected shape");
        return 0;
    }
    snprintf(name, sizeof name, "%s/drs", n->name);
    if (tissue) {
        m = ir_node_new(g, IR_OP_RNN_TISSUE, name, "lstmc.RnnTissue", 11, 3);
        ir_node_origin(m, n);
        for (i = 0; i < 9; i++)
            m->inputs[i] = ir_in(n, i);
        m->inputs[1] = NULL; /* the panels: Uo and Ufic replace them */
        m->inputs[9] = Uo;
        m->inputs[10] = Ufic;
    } else {
        m = ir_node_new(g, IR_OP_RNN_DRS, name, "lstmc.RnnDrs", 7, 3);
        ir_node_origin(m, n);
        m->inputs[0] = ir_in(n, 0); /* P */
        m->inputs[1] = Uo;
        m->inputs[2] = Ufic;
        for (i = 3; i < 7; i++) /* sequence_lens, initial_h, initial_c, peepholes */
            m->inputs[i] = ir_in(n, i);
    }
    copy_attrs(g, n, m, alpha);
    for (i = 0; i < 3 && i < n->n_outputs; i++)
        if (n->outputs[i])
            ir_node_set_output(m, i, n->outputs[i]);
    n->dead = 1;
    return 1;
}

/* Issue 24: the full-integer LSTM (qact's lstmc.RnnQ) keeps its node and its weights (U's
 * rows are already a unit's rows i, o, f, c at j, H + j, 2H + j, 3H + j); the attributes
 * "drs" and "alpha_intra" make it an lstmc_rt_lstm_drs_q call, or with the breakpoints
 * pass's "tissue" an lstmc_rt_lstm_tissue_drs_q one (compiler/kprog/lower.c). */
static int
to_drs_q(ir_graph *g, const pass_ctx *cx, ir_node *n, diag *d)
{
    const ir_tensor *Peep = ir_in(n, 7);
    const int64_t H = ir_attr_int(n, "hidden_size", 0);
    const int64_t D = ir_attr_int(n, "direction", 0) == 2 ? 2 : 1;
    int64_t k;

    if (!has_o_gate(n, d))
        return 0;
    if (Peep) { /* int16 [D, 3H]: P_o must be zero */
        const int16_t *v = Peep->data;
        int po = !v || Peep->dtype != IR_DT_I16 || ir_shape_numel(&Peep->shape) != D * 3 * H;
        for (k = 0; !po && k < D * 3 * H; k++)
            po = k % (3 * H) >= H && k % (3 * H) < 2 * H && v[k] != 0;
        if (po) {
            note(d, n,
                 "the output gate has a peephole, so o_t depends on c_t, which needs "
                 "every row");
            return 0;
        }
    }
    ir_attr_set_int(g, n, "drs", 1);
    ir_attr_set_float(g, n, "alpha_intra",
                      ir_attr_float(n, "alpha_intra", cx ? cx->alpha_intra : 0.0f));
    return 0; /* the node stays where it is */
}

int
pass_drs(ir_graph *g, const pass_ctx *cx, diag *d)
{
    int i, n0 = g->n_nodes, changed = 0;

    for (i = 0; i < n0; i++) {
        ir_node *n = g->nodes[i];

        if (!n->dead && n->op == IR_OP_RNN_Q && !ir_attr_int(n, "drs", 0)) {
            if (to_drs_q(g, cx, n, d) < 0)
                return -1;
            continue;
        }
        if (n->dead || (n->op != IR_OP_RNN_REC && n->op != IR_OP_RNN_TISSUE))
            continue;
        if (n->op == IR_OP_RNN_TISSUE && n->n_inputs > 9)
            continue; /* already has DRS */
        changed |= to_drs(g, cx, n, d);
    }
    /* the new nodes were appended; restore topological order */
    return changed ? ir_toposort(g, d) : 0;
}
