/*
 * layernorm.c — the decomposed LayerNorm of opsets <= 16 folded into one
 * LayerNormalization node (the opset-17 op, one kernel: runtime/src/rt_reduce.c).
 *
 * PyTorch exports nn.LayerNorm / F.layer_norm below opset 17 as
 *
 *   M = ReduceMean(X, axes, keepdims=1)        axes = the last k axes of X
 *   D = Sub(X, M)                              (or two such Subs, one per reader)
 *   Q = Pow(D, 2)  |  Mul(D, D)
 *   V = ReduceMean(Q, axes, keepdims=1)
 *   E = Add(V, eps)  |  Add(eps, V)            eps a one-element constant
 *   S = Sqrt(E)
 *   Y = Div(D, S)  |  Mul(D, Reciprocal(S))
 *  [Y = Mul(Y, gamma) | Mul(gamma, Y)]         gamma, beta constants of the normalized
 *  [Y = Add(Y, beta)  | Add(beta, Y)]          shape (leading 1s allowed) or one value
 *
 * which this pass replaces by LayerNormalization(X, gamma, beta; axis = first of axes,
 * epsilon = eps). Every intermediate must be read only inside the pattern (and not be a
 * graph output), so nothing else sees a value that disappears. Pow and Reciprocal are
 * matched by op name, so the pass also compiles in a tree that lacks those ops (the pattern
 * then cannot occur with them). A missing gamma becomes a constant 1.
 */
#include "diag.h"
#include "ir.h"
#include "passes.h"
#include "shape.h"

#include <stdio.h>
#include <string.h>

/* The live nodes reading t, distinct (Mul(D, D) counts once), up to max; their count. */
static int
readers(const ir_graph *g, const ir_tensor *t, ir_node **out, int max)
{
    int i, j, k = 0;
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (j = 0; j < n->n_inputs; j++) {
            if (n->inputs[j] == t) {
                if (k < max)
                    out[k] = n;
                k++;
                break;
            }
        }
    }
    return k;
}

/* The one node reading t when t is no graph output, else NULL. */
static ir_node *
only_reader(const ir_graph *g, const ir_tensor *t)
{
    ir_node *r[1];
    if (!t || t->is_output || readers(g, t, r, 1) != 1)
        return NULL;
    return r[0];
}

static int
is_op(const ir_node *n, const char *name)
{
    return n && !n->dead && strcmp(ir_op_name(n->op), name) == 0;
}

/* Value of a one-element constant (f32, or an integer), in *v; 0 when t is none. */
static int
scalar_of(const ir_tensor *t, double *v)
{
    if (!t || !t->data || ir_shape_numel(&t->shape) != 1)
        return 0;
    switch (t->dtype) {
    case IR_DT_F32:
        *v = *(const float *)t->data;
        return 1;
    case IR_DT_I64:
        *v = (double)*(const int64_t *)t->data;
        return 1;
    case IR_DT_I32:
        *v = *(const int32_t *)t->data;
        return 1;
    default:
        return 0;
    }
}

/* The first reduced axis when node m is a ReduceMean with keepdims over the last axes of
 * its rank-r input (a suffix [k, r)), else -1; the reduced set in red. */
static int
suffix_axes(ir_node *m, int r, int *red, diag *d)
{
    int k, i;
    if (m->op != IR_OP_REDUCE_MEAN || !ir_attr_int(m, "keepdims", 1) ||
        (ir_in(m, 1) && !ir_in(m, 1)->data))
        return -1;
    if (shape_reduce_axes(m, r, red, d) <= 0)
        return -1;
    for (k = 0; k < r && !red[k]; k++)
        ;
    for (i = k; i < r; i++)
        if (!red[i])
            return -1;
    return k;
}

/* The other input of binary node n, when one of them is t. */
static ir_tensor *
other_in(const ir_node *n, const ir_tensor *t)
{
    if (ir_in(n, 0) == t)
        return ir_in(n, 1);
    if (ir_in(n, 1) == t)
        return ir_in(n, 0);
    return NULL;
}

/* 1 when constant p can be LayerNormalization's Scale / B for x normalized from axis:
 * one value, or the normalized shape after leading 1s. */
static int
param_ok(const ir_tensor *p, const ir_tensor *x, int axis)
{
    int r = x->shape.rank, lead = p->shape.rank - (r - axis), k;
    if (!p->data || p->dtype != IR_DT_F32)
        return 0;
    if (ir_shape_numel(&p->shape) == 1)
        return 1;
    if (lead < 0)
        return 0;
    for (k = 0; k < p->shape.rank; k++)
        if (k < lead ? p->shape.d[k] != 1 : p->shape.d[k] != x->shape.d[axis + k - lead])
            return 0;
    return 1;
}

/* Try the pattern from its first ReduceMean m; rewrite and return 1 when it matches. */
static int
fuse(ir_graph *g, ir_node *m, diag *d)
{
    ir_tensor *X = ir_in(m, 0), *D, *Dn, *Y, *gamma = NULL, *beta = NULL, *t;
    ir_node *sub, *sub2, *sq, *m2, *add, *sqrt, *div, *rcp = NULL, *mul = NULL, *badd = NULL;
    ir_node *ln, *dead[12], *r[3], *subs[3];
    int red[IR_MAX_RANK], red2[IR_MAX_RANK], axis, nd = 0, ns, i;
    double eps, two;
    char name[512];

    if (!X || X->dtype != IR_DT_F32 || X->shape.rank < 1)
        return 0;
    axis = suffix_axes(m, X->shape.rank, red, d);
    if (axis < 0)
        return 0;
    /* D = X - M: one Sub read by the square and by the division (or the multiplication by
     * 1/S), or two equal Subs, one read by each (an exporter without CSE) */
    ns = readers(g, ir_out(m, 0), subs, 3);
    if (ir_out(m, 0)->is_output || ns < 1 || ns > 2)
        return 0;
    for (i = 0; i < ns; i++) {
        t = ir_out(subs[i], 0);
        if (subs[i]->op != IR_OP_SUB || ir_in(subs[i], 0) != X ||
            ir_in(subs[i], 1) != ir_out(m, 0) || !t || t->is_output || !ir_shape_known(&t->shape) ||
            t->shape.rank != X->shape.rank ||
            memcmp(t->shape.d, X->shape.d, sizeof(int64_t) * (size_t)X->shape.rank) != 0)
            return 0;
    }
    sub = subs[0];
    sub2 = ns == 2 ? subs[1] : NULL;
    D = Dn = ir_out(sub, 0);
    if (!sub2) {
        if (readers(g, D, r, 3) != 2)
            return 0;
    } else {
        r[0] = only_reader(g, D);
        r[1] = only_reader(g, ir_out(sub2, 0));
        if (!r[0] || !r[1])
            return 0;
    }
    sq = is_op(r[0], "Pow") || (r[0]->op == IR_OP_MUL && ir_in(r[0], 0) == ir_in(r[0], 1)) ? r[0]
                                                                                           : r[1];
    div = sq == r[0] ? r[1] : r[0];
    if (sub2 && sq == r[1]) { /* the second Sub is the one squared */
        D = ir_out(sub2, 0);
        Dn = ir_out(sub, 0);
    } else if (sub2) {
        Dn = ir_out(sub2, 0);
    }
    if (is_op(sq, "Pow")) {
        if (ir_in(sq, 0) != D || !scalar_of(ir_in(sq, 1), &two) || two != 2.0)
            return 0;
    } else if (!(sq->op == IR_OP_MUL && ir_in(sq, 0) == D && ir_in(sq, 1) == D)) {
        return 0;
    }
    /* V = ReduceMean(Q) over the same axes, E = V + eps, S = sqrt(E) */
    m2 = only_reader(g, ir_out(sq, 0));
    if (!m2 || ir_in(m2, 0) != ir_out(sq, 0) || suffix_axes(m2, D->shape.rank, red2, d) != axis)
        return 0;
    add = only_reader(g, ir_out(m2, 0));
    if (!add || add->op != IR_OP_ADD || !scalar_of(other_in(add, ir_out(m2, 0)), &eps) ||
        !(eps >= 0.0))
        return 0;
    sqrt = only_reader(g, ir_out(add, 0));
    if (!sqrt || sqrt->op != IR_OP_SQRT)
        return 0;
    /* Y = D / S, or D * (1 / S) */
    if (div->op == IR_OP_DIV) {
        if (ir_in(div, 0) != Dn || ir_in(div, 1) != ir_out(sqrt, 0) ||
            only_reader(g, ir_out(sqrt, 0)) != div)
            return 0;
    } else {
        rcp = only_reader(g, ir_out(sqrt, 0));
        if (!is_op(rcp, "Reciprocal") || div->op != IR_OP_MUL ||
            other_in(div, Dn) != ir_out(rcp, 0) || only_reader(g, ir_out(rcp, 0)) != div)
            return 0;
    }
    Y = ir_out(div, 0);
    /* optional affine part: Mul by gamma, then Add beta */
    mul = only_reader(g, Y);
    if (mul && mul->op == IR_OP_MUL && (t = other_in(mul, Y)) && param_ok(t, X, axis)) {
        gamma = t;
        Y = ir_out(mul, 0);
    } else {
        mul = NULL;
    }
    badd = only_reader(g, Y);
    if (badd && badd->op == IR_OP_ADD && (t = other_in(badd, Y)) && param_ok(t, X, axis)) {
        beta = t;
        Y = ir_out(badd, 0);
    } else {
        badd = NULL;
    }
    if (!Y || Y->dtype != IR_DT_F32 || Y->shape.rank != X->shape.rank ||
        memcmp(Y->shape.d, X->shape.d, sizeof(int64_t) * (size_t)X->shape.rank) != 0)
        return 0;

    snprintf(name, sizeof name, "%s/LayerNormalization", m->name);
    ln = ir_node_new(g, IR_OP_LAYER_NORM, name, "LayerNormalization", 3, 1);
    ir_node_origin(ln, m);
    ln->inputs[0] = X;
    if (!gamma) {
        const float one = 1.0f;
        ir_shape s;
        memset(&s, 0, sizeof s);
        s.rank = 1;
        s.d[0] = 1;
        gamma = ir_const_new(g, "layernorm_scale", IR_DT_F32, &s, &one);
    }
    ln->inputs[1] = gamma;
    ln->inputs[2] = beta;
    ir_attr_set_int(g, ln, "axis", axis);
    ir_attr_set_float(g, ln, "epsilon", (float)eps);
    dead[nd++] = m;
    dead[nd++] = sub;
    if (sub2)
        dead[nd++] = sub2;
    dead[nd++] = sq;
    dead[nd++] = m2;
    dead[nd++] = add;
    dead[nd++] = sqrt;
    dead[nd++] = div;
    if (rcp)
        dead[nd++] = rcp;
    if (mul)
        dead[nd++] = mul;
    if (badd)
        dead[nd++] = badd;
    for (i = 0; i < nd; i++)
        dead[i]->dead = 1;
    ir_node_set_output(ln, 0, Y);
    return 1;
}

int
pass_layernorm(ir_graph *g, const pass_ctx *cx, diag *d)
{
    int i, n0 = g->n_nodes, changed = 0;
    (void)cx;
    for (i = 0; i < n0; i++) {
        ir_node *n = g->nodes[i];
        if (!n->dead && n->op == IR_OP_REDUCE_MEAN)
            changed += fuse(g, n, d);
    }
    /* the new nodes were appended; restore topological order */
    return changed ? ir_toposort(g, d) : 0;
}
