/*
 * breakpoints.c — MICRO'18 §IV: LSTM layer division (breakpoints search, §IV-B) and
 * reorganisation into tissues (§IV-C), as one runtime op.
 *
 * After split_gates and fold_constants, an LSTM layer is lstmc.RnnProj (X' = W x_t + b for
 * every step, Fig. 10's Sgemm(W, x)) followed by the packed lstmc.RnnRec (the time loop over
 * U). This pass replaces that RnnRec by lstmc.RnnTissue, whose kernel (lstmc_rt_lstm_tissue,
 * runtime/src/rt_tissue.c; with --emit=llvm its LLVM version, codegen/llvm/
 * emit_tissue) does the per-layer runtime work of Fig. 10: relevance S of every
 * link (Algorithm 2) from P and the row sums D = sum|U| that fold_constants left on the node,
 * cuts at S < alpha_inter, sub-layers started from the predicted context link (Eq. 6),
 * tissues of at most MTS cells (the target's, by hidden size), one pass over U per tissue.
 *
 *   lstmc.RnnTissue  inputs  P, U [D, H * 4H] (lstmc_rt_lstm_tissue_pack's column panels of the
 *                            packed Ut), row_abs_sum [D, 4H], sequence_lens, initial_h, initial_c,
 *                            P(eephole), h_pred [D, H], c_pred [D, H]
 *                    outputs Y, Y_h, Y_c (those of the RnnRec)
 *                    attributes: the RnnRec's (less row_abs_sum), "alpha_inter" (float) and
 *                            "mts" (int)
 *
 * --relevance=calibrated or sensitivity (docs/TUNING.md "The relevance"): input 2 is instead
 * the bound of U h that lstmc calibrate measured, [D, 2, 4H] (the radii, then the shifts of
 * the centre; attribute "relevance", lstmc_rt_relevance), and S is
 * lstmc_rt_lstm_relevance_shifted's or lstmc_rt_lstm_sensitivity's.
 *
 * alpha_inter = 0 cuts nothing and gives the exact result (the batched schedule). GRU and
 * RNN layers, and LSTM layers whose weights are not constants (not packed), keep RnnRec.
 * Not in a default pass list: --passes=split_gates,fold_constants,breakpoints,dce.
 */
#include "arena.h"
#include "calib.h"
#include "diag.h"
#include "ir.h"
#include "lstmc_rt_kernels.h"
#include "passes.h"
#include "target.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * HOOK (--alpha-inter): the compile-time default threshold. pass_ctx has no field for it
 * yet; until the driver passes one, a node's own "alpha_inter" attribute (set by whoever
 * builds the graph) wins, else 0 = exact.
 */
static float
default_alpha(const pass_ctx *cx, const ir_node *rec)
{
    return ir_attr_float(rec, "alpha_inter", cx->alpha_inter);
}

/*
 * --calib: the predicted context link h_pred (Eq. 6, the per-element expectation of h over
 * calibration data) and the predicted cell state c_pred (the same expectation of c) for
 * direction dir of this layer, H floats each, from the CALIB file `lstmc calibrate` wrote
 * (compiler/tools/calibrate.h), keyed by the RnnRec node's name; NULL (zero) without --calib.
 */
static const float *
calib_vector(const calib_layer *cl, const ir_node *rec, int dir, int which_c)
{
    (void)rec;
    if (!cl)
        return NULL;
    return (which_c ? cl->c : cl->h) + (int64_t)dir * cl->hidden;
}

/* A constant [D, H] from the calibration hook (zero where it has nothing). */
static ir_tensor *
pred_tensor(ir_graph *g, const calib_layer *cx, const ir_node *rec, int64_t D, int64_t H,
            int which_c)
{
    ir_shape s = {0};
    ir_tensor *t;
    int64_t dir;

    s.rank = 2;
    s.d[0] = D;
    s.d[1] = H;
    t = ir_const_new(g, which_c ? "c_pred" : "h_pred", IR_DT_F32, &s, NULL); /* zeroed */
    for (dir = 0; dir < D; dir++) {
        const float *v = calib_vector(cx, rec, (int)dir, which_c);
        if (v)
            memcpy((float *)t->data + dir * H, v, (size_t)H * sizeof(float));
    }
    return t;
}

/* U in lstmc_rt_lstm_tissue_pack's column panels, [D, H * 4H], from Ut [D, H, 4H]. */
static ir_tensor *
pack_u(ir_graph *g, const ir_tensor *Ut, int64_t D, int64_t H)
{
    ir_shape s = {0};
    ir_tensor *t;

    s.rank = 2;
    s.d[0] = D;
    s.d[1] = H * 4 * H;
    if (!Ut || !Ut->data || Ut->shape.rank != 3 || Ut->shape.d[0] != D || Ut->shape.d[1] != H ||
        Ut->shape.d[2] != 4 * H)
        return NULL;
    t = ir_const_new(g, "G2_panels", IR_DT_F32, &s, NULL);
    return lstmc_rt_lstm_tissue_pack(D, H, Ut->data, t->data) == LSTMC_RT_OK ? t : NULL;
}

/* --relevance=calibrated / sensitivity: the bound of U h from --calib, [D, 2, 4H]: per
 * direction the radii ur (Algorithm 2's D; for the sensitivity scaled so that S lies in
 * [0, 1], lstmc_rt_lstm_sensitivity_scale), then the shifts um of the centre. */
static ir_tensor *
cal_bound(ir_graph *g, const calib_layer *cl, int64_t D, int64_t H, int rel)
{
    const int64_t G = 4 * H;
    ir_shape s = {0};
    ir_tensor *t;
    int64_t dir;

    s.rank = 3;
    s.d[0] = D;
    s.d[1] = 2;
    s.d[2] = G;
    t = ir_const_new(g, "relevance_bound", IR_DT_F32, &s, NULL);
    for (dir = 0; dir < D; dir++) {
        memcpy((float *)t->data + dir * 2 * G, cl->ur + dir * G, (size_t)G * sizeof(float));
        memcpy((float *)t->data + dir * 2 * G + G, cl->um + dir * G, (size_t)G * sizeof(float));
        if (rel == LSTMC_RT_REL_SENSITIVITY)
            lstmc_rt_lstm_sensitivity_scale(H, (float *)t->data + dir * 2 * G);
    }
    return t;
}

/* n takes old's place: old's attributes (less row_abs_sum and alpha_inter), the tissue ones
 * (alpha_inter, relevance, max_run, the target's MTS for hidden size H), old's outputs. */
static void
take_place(ir_graph *g, const pass_ctx *cx, const calib_layer *cl, ir_node *old, ir_node *n,
           int64_t H)
{
    const int mts = cx && cx->t ? target_mts(cx->t, H) : 0;
    int i;

    for (i = 0; i < old->n_attrs; i++)
        if (strcmp(old->attrs[i].name, "row_abs_sum") != 0 &&
            strcmp(old->attrs[i].name, "alpha_inter") != 0)
            *ir_attr_add(g, n, old->attrs[i].name, old->attrs[i].kind) = old->attrs[i];
    ir_attr_set_float(g, n, "alpha_inter", default_alpha(cx, old));
    ir_attr_set_int(g, n, "relevance", cx && cl && cl->um ? cx->relevance : LSTMC_RT_REL_BOUND);
    if (cx && cx->max_sublayer > 0)
        ir_attr_set_int(g, n, "max_run", cx->max_sublayer);
    ir_attr_set_int(g, n, "mts", mts > 0 ? mts : TARGET_DEFAULT_MTS);
    for (i = 0; i < 3 && i < old->n_outputs; i++)
        if (old->outputs[i])
            ir_node_set_output(n, i, old->outputs[i]);
    old->dead = 1;
}

/* Replace rec; 0 when it is left alone (U is not a constant of the expected shape). */
static int
to_tissue(ir_graph *g, const pass_ctx *cx, const calib_layer *cl, ir_node *rec)
{
    const ir_attr *sums = ir_attr_get(rec, "row_abs_sum");
    int64_t H = ir_attr_int(rec, "hidden_size", 0);
    int64_t D = ir_attr_int(rec, "direction", 0) == 2 ? 2 : 1;
    ir_tensor *Up = pack_u(g, ir_in(rec, 1), D, H);
    char name[512];
    ir_node *n;
    int i;

    if (!Up)
        return 0;
    snprintf(name, sizeof name, "%s/tissues", rec->name);
    n = ir_node_new(g, IR_OP_RNN_TISSUE, name, "lstmc.RnnTissue", 9, 3);
    ir_node_origin(n, rec);
    n->inputs[0] = ir_in(rec, 0);            /* P */
    n->inputs[1] = Up;                       /* U in the kernel's column panels */
    if (cx && cx->relevance && cl && cl->um) /* the calibrated bound, [D, 2, 4H] */
        n->inputs[2] = cal_bound(g, cl, D, H, cx->relevance);
    else
        n->inputs[2] = ir_const_new(g, "row_abs_sum", IR_DT_F32, &sums->t->shape, sums->t->data);
    for (i = 3; i < 7; i++) /* sequence_lens, initial_h, initial_c, peepholes */
        n->inputs[i] = ir_in(rec, i);
    n->inputs[7] = pred_tensor(g, cl, rec, D, H, 0);
    n->inputs[8] = pred_tensor(g, cl, rec, D, H, 1);
    take_place(g, cx, cl, rec, n, H);
    return 1;
}

/* --- the full-integer LSTM (issue 24): lstmc.RnnQ of passes/qact.c --------------------- */

/* round(v * 2^frac) clamped to [lo, hi] */
static int32_t
fixed(double v, int frac, double lo, double hi)
{
    double x = nearbyint(ldexp(v, frac));
    return (int32_t)(x < lo ? lo : x > hi ? hi : x);
}

/* The relevance bound of the integer layer, int32 [D, 2, 4H] (lstmc_rt_lstm_tissue_q): per
 * direction the radii, then the shifts. Without --relevance, Algorithm 2's D for the h the
 * layer can hold: |U_r h| <= sum|U_r| hmax, in Q.12 through row r's own multiplier (the
 * recipe's requant of the U term); calibrated: lstmc calibrate's radii and shifts in Q.12;
 * sensitivity: the radii scaled as the float layer's, in Q.24. */
static ir_tensor *
q_bound(ir_graph *g, const pass_ctx *cx, const calib_layer *cl, const ir_node *q, int64_t D,
        int64_t H)
{
    const int64_t G = 4 * H, hmax = ir_attr_int(q, "bits", 8) == 8 ? 127 : 32767;
    const int8_t *U = ir_in(q, 2)->data;
    const int32_t *Q = ir_in(q, 3)->data;
    const int rel = cx && cl && cl->um ? cx->relevance : LSTMC_RT_REL_BOUND;
    ir_shape s = {0};
    ir_tensor *t;
    int32_t *R;
    int64_t dir, r, k;

    s.rank = 3;
    s.d[0] = D;
    s.d[1] = 2;
    s.d[2] = G;
    t = ir_const_new(g, "relevance_bound_q", IR_DT_I32, &s, NULL);
    R = t->data;
    for (dir = 0; dir < D; dir++) {
        int32_t *rad = R + dir * 2 * G, *shf = rad + G;
        if (rel == LSTMC_RT_REL_BOUND) {
            for (r = 0; r < G; r++) {
                const int32_t *qr = Q + (dir * G + r) * LSTMC_RT_RNNQ_ROW;
                const int32_t m = qr[LSTMC_RT_RNNQ_MU], n = qr[LSTMC_RT_RNNQ_NU];
                int64_t sum = 0, v;
                for (k = 0; k < H; k++)
                    sum += llabs((long long)U[(dir * G + r) * H + k]);
                /* sum * hmax * m < 2^16 * 2^7 * 2^15 * 2^31 would overflow: in double */
                v = (int64_t)fmin(ldexp((double)sum * (double)hmax * (double)m, -n) + 0.5,
                                  1073741824.0);
                rad[r] = (int32_t)v;
            }
            continue;
        }
        {
            float *ur = arena_alloc(g->a, (size_t)G * sizeof(float));
            memcpy(ur, cl->ur + dir * G, (size_t)G * sizeof(float));
            if (rel == LSTMC_RT_REL_SENSITIVITY)
                lstmc_rt_lstm_sensitivity_scale(H, ur);
            for (r = 0; r < G; r++) {
                rad[r] = rel == LSTMC_RT_REL_SENSITIVITY ? fixed(ur[r], 24, 0.0, 67108864.0)
                                                         : fixed(ur[r], 12, 0.0, 1073741824.0);
                shf[r] = fixed(cl->um[dir * G + r], 12, -1073741824.0, 1073741824.0);
            }
        }
    }
    return t;
}

/* h_pred (which_c 0, the layer's h type and scale) or c_pred (1, int16 in the cell's Q),
 * [D, H], from --calib; zero without. */
static ir_tensor *
q_pred(ir_graph *g, const calib_layer *cl, const ir_node *q, int64_t D, int64_t H, int which_c)
{
    const int bits = (int)ir_attr_int(q, "bits", 8);
    const double hmax = bits == 8 ? 127.0 : 32767.0;
    const double sh = ir_attr_float(q, "h_scale", 1.0f);
    const int ce = (int)ir_attr_int(q, "cell_exp", 15);
    ir_shape s = {0};
    ir_tensor *t;
    int64_t i;

    s.rank = 2;
    s.d[0] = D;
    s.d[1] = H;
    t = ir_const_new(g, which_c ? "c_pred_q" : "h_pred_q",
                     which_c || bits == 16 ? IR_DT_I16 : IR_DT_I8, &s, NULL);
    for (i = 0; cl && i < D * H; i++) {
        double v = which_c ? ldexp(cl->c[i], ce) : cl->h[i] / sh;
        const double lim = which_c ? 32767.0 : hmax;
        v = nearbyint(v);
        v = v < -lim ? -lim : v > lim ? lim : v;
        if (which_c || bits == 16)
            ((int16_t *)t->data)[i] = (int16_t)v;
        else
            ((int8_t *)t->data)[i] = (int8_t)v;
    }
    return t;
}

/* Replace the integer LSTM q by its tissue form (the same node with inputs 8-10 and the
 * attribute "tissue": compiler/kprog/lower.c lower_rnnq). */
static int
to_tissue_q(ir_graph *g, const pass_ctx *cx, const calib_layer *cl, ir_node *q)
{
    int64_t H = ir_attr_int(q, "hidden_size", 0);
    int64_t D = ir_attr_int(q, "direction", 0) == 2 ? 2 : 1;
    char name[512];
    ir_node *n;
    int i;

    if (!ir_in(q, 2) || !ir_in(q, 2)->data || !ir_in(q, 3) || !ir_in(q, 3)->data || H < 1 ||
        H > 65536)
        return 0;
    snprintf(name, sizeof name, "%s/tissues", q->name);
    n = ir_node_new(g, IR_OP_RNN_Q, name, "lstmc.RnnQ", 11, 3);
    ir_node_origin(n, q);
    for (i = 0; i < 8; i++)
        n->inputs[i] = ir_in(q, i);
    n->inputs[8] = q_bound(g, cx, cl, q, D, H);
    n->inputs[9] = q_pred(g, cl, q, D, H, 0);
    n->inputs[10] = q_pred(g, cl, q, D, H, 1);
    take_place(g, cx, cl, q, n, H);
    ir_attr_set_int(g, n, "tissue", 1);
    return 1;
}

/* The calibration entry of layer n (rec: an RnnRec; else an RnnQ "<lstm>/intB", whose float
 * layer's RnnRec lstmc calibrate named "<lstm>/G2"), checked against the layer; *cl = NULL
 * without --calib. -1 after a diagnostic. */
static int
calib_of(const pass_ctx *cx, const ir_node *n, int rec, const calib_layer **cl, diag *d)
{
    const calib_layer *c;
    int64_t H = ir_attr_int(n, "hidden_size", 0);
    int64_t D = ir_attr_int(n, "direction", 0) == 2 ? 2 : 1;
    char key[512];

    *cl = NULL;
    if (!cx || !cx->calib_table) /* read once by the driver */
        return 0;
    snprintf(key, sizeof key, "%s", n->name);
    if (!rec) {
        char *slash = strrchr(key, '/');
        if (slash)
            snprintf(slash, sizeof key - (size_t)(slash - key), "/G2");
    }
    c = calib_find(cx->calib_table, key);
    if (!c) {
        diag_node(d, n,
                  "--calib %s has no entry for this LSTM layer (run lstmc "
                  "calibrate on this model)",
                  cx->calib);
        return -1;
    }
    if (c->hidden != H || c->n_dirs != D) {
        diag_node(d, n,
                  "--calib %s: the entry has %lld directions of hidden size "
                  "%lld; the layer has %lld of %lld",
                  cx->calib, (long long)c->n_dirs, (long long)c->hidden, (long long)D,
                  (long long)H);
        return -1;
    }
    if (cx->relevance && !c->um) {
        diag_node(d, n,
                  "--relevance=%s: --calib %s has no bound of U h for this layer "
                  "(um / ur lines); run lstmc calibrate again",
                  cx->relevance == LSTMC_RT_REL_SENSITIVITY ? "sensitivity" : "calibrated",
                  cx->calib);
        return -1;
    }
    *cl = c;
    return 0;
}

int
pass_breakpoints(ir_graph *g, const pass_ctx *cx, diag *d)
{
    int i, n0 = g->n_nodes, changed = 0;
    const calib_layer *cl = NULL;

    for (i = 0; i < n0; i++) {
        ir_node *n = g->nodes[i];
        const ir_attr *sums;

        if (!n->dead && n->op == IR_OP_RNN_Q && ir_attr_int(n, "cell", -1) == LSTMC_RT_CELL_LSTM &&
            !ir_attr_int(n, "tissue", 0)) { /* issue 24: the full-integer LSTM */
            if (calib_of(cx, n, 0, &cl, d) < 0)
                return -1;
            changed |= to_tissue_q(g, cx, cl, n);
            continue;
        }
        if (n->dead || n->op != IR_OP_RNN_REC || ir_attr_int(n, "cell", -1) != 0 ||
            ir_attr_int(n, "packed", 0) != 1)
            continue;
        sums = ir_attr_get(n, "row_abs_sum");
        if (!sums || sums->kind != IR_ATTR_TENSOR || !sums->t || !sums->t->data)
            continue;
        if (calib_of(cx, n, 1, &cl, d) < 0)
            return -1;
        changed |= to_tissue(g, cx, cl, n);
    }
    /* the new nodes were appended; restore topological order */
    return changed ? ir_toposort(g, d) : 0;
}
