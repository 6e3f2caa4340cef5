/*
 * shape_elt.c — dtype and shape rules of issue 20's element-wise, logical and generator
 * ops: Where, Equal/Less/Greater/LessOrEqual/GreaterOrEqual, And/Or/Not, Pow, the unary
 * ops with parameters (Reciprocal, Log, Abs, Clip, LeakyRelu, HardSigmoid, HardSwish, Erf),
 * Tile, Range and CumSum. The values are computed by the runtime kernels (rt_eltwise2.c):
 * prepare folds a node whose inputs are all constant with them (kprog/fold.c), so a shape
 * subgraph (Shape -> Equal -> Where -> Expand) becomes constant once the dims are bound.
 */
#include "diag.h"
#include "ir.h"
#include "shape_impl.h"

#include <math.h>

/* Numpy broadcasting of inputs [0, count) of n into *s; reports when they do not. */
static int
bcast_inputs(ir_node *n, int count, ir_shape *s, diag *d)
{
    int i;
    *s = ir_in(n, 0)->shape;
    for (i = 1; i < count; i++) {
        const ir_tensor *t = ir_in(n, i);
        if (t && shape_broadcast(s, &t->shape, s) < 0) {
            diag_node(d, n, "input '%s' %s does not broadcast with the other inputs",
                      shape_iname(n, i), shape_str(&t->shape));
            return -1;
        }
    }
    return 0;
}

static int
need_present(ir_node *n, int count, diag *d)
{
    int i;
    for (i = 0; i < count; i++) {
        if (!ir_in(n, i)) {
            diag_node(d, n, "input '%s' is missing", shape_iname(n, i));
            return -1;
        }
    }
    return 0;
}

/* Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or, Where, Pow, PRelu, Min, Max
 * (two inputs each: the importer chains a variadic Min / Max). */
int
shape_infer_elt_binary(ir_graph *g, ir_node *n, diag *d)
{
    ir_shape s;
    ir_dtype out;
    (void)g;
    switch (n->op) {
    case IR_OP_WHERE:
        if (need_present(n, 3, d) < 0 || shape_need_dtype(n, 0, M_BOOL, "bool", d) < 0 ||
            shape_same_dtype(n, 1, 2, d) < 0 || bcast_inputs(n, 3, &s, d) < 0)
            return -1;
        out = ir_in(n, 1)->dtype;
        break;
    case IR_OP_AND:
    case IR_OP_OR:
        if (need_present(n, 2, d) < 0 || shape_need_dtype(n, 0, M_BOOL, "bool", d) < 0 ||
            shape_need_dtype(n, 1, M_BOOL, "bool", d) < 0 || bcast_inputs(n, 2, &s, d) < 0)
            return -1;
        out = IR_DT_BOOL;
        break;
    case IR_OP_POW:
        if (need_present(n, 2, d) < 0 || shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0 ||
            shape_need_dtype(n, 1, M_NUM, "f32, i32 or i64", d) < 0 ||
            bcast_inputs(n, 2, &s, d) < 0)
            return -1;
        out = ir_in(n, 0)->dtype;
        break;
    case IR_OP_PRELU: /* unidirectional: slope broadcasts to X, the output is X's shape */
        if (need_present(n, 2, d) < 0 || shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0 ||
            shape_same_dtype(n, 0, 1, d) < 0 || bcast_inputs(n, 2, &s, d) < 0)
            return -1;
        if (!shape_same_dims(&s, &ir_in(n, 0)->shape)) {
            diag_node(d, n,
                      "input 'slope' %s does not broadcast to input 'X' %s (PRelu broadcasts "
                      "slope to X, never X to slope)",
                      shape_str(&ir_in(n, 1)->shape), shape_str(&ir_in(n, 0)->shape));
            return -1;
        }
        out = ir_in(n, 0)->dtype;
        break;
    case IR_OP_MIN:
    case IR_OP_MAX:
        if (need_present(n, 2, d) < 0 || shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0 ||
            shape_same_dtype(n, 0, 1, d) < 0 || bcast_inputs(n, 2, &s, d) < 0)
            return -1;
        out = ir_in(n, 0)->dtype;
        break;
    default: /* the comparisons: Equal also on bool */
        if (need_present(n, 2, d) < 0 ||
            shape_need_dtype(n, 0, n->op == IR_OP_EQUAL ? M_ANY : M_NUM,
                             n->op == IR_OP_EQUAL ? "f32, i32, i64 or bool" : "f32, i32 or i64",
                             d) < 0 ||
            shape_same_dtype(n, 0, 1, d) < 0 || bcast_inputs(n, 2, &s, d) < 0)
            return -1;
        out = IR_DT_BOOL;
        break;
    }
    return shape_set_out(n, 0, out, &s, d);
}

/* Not, Reciprocal, Log, Abs, Clip, LeakyRelu, HardSigmoid, HardSwish, Erf, Floor, Ceil,
 * Sign, Round, Softplus, Elu, Selu, Sin, Cos. */
int
shape_infer_elt_unary(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int i;
    (void)g;
    switch (n->op) {
    case IR_OP_NOT:
        if (shape_need_dtype(n, 0, M_BOOL, "bool", d) < 0)
            return -1;
        break;
    case IR_OP_ABS:
    case IR_OP_SIGN:
        if (shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0)
            return -1;
        break;
    case IR_OP_CLIP:
        if (shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0)
            return -1;
        for (i = 1; i < 3; i++) {
            const ir_tensor *b = ir_in(n, i);
            if (!b)
                continue;
            if (shape_same_dtype(n, 0, i, d) < 0)
                return -1;
            if (shape_numel(&b->shape) != 1 || b->shape.rank > 1) {
                diag_node(d, n, "input '%s' has shape %s; Clip's bounds are scalars",
                          shape_iname(n, i), shape_str(&b->shape));
                return -1;
            }
        }
        break;
    default:
        if (shape_need_dtype(n, 0, M_F32, "f32", d) < 0)
            return -1;
        break;
    }
    return shape_set_out(n, 0, x->dtype, &x->shape, d);
}

/* Tile: output dim i is input dim i times repeats[i]. */
int
shape_infer_tile(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int64_t r[IR_MAX_RANK];
    ir_shape s = x->shape;
    int cnt, i;
    (void)g;
    if (!ir_in(n, 1)) {
        diag_node(d, n, "input 'repeats' is missing");
        return -1;
    }
    if ((cnt = shape_const_ints(n, 1, r, IR_MAX_RANK, d)) < 0)
        return -1;
    if (cnt != x->shape.rank) {
        diag_node(d, n, "input 'repeats' has %d values; input 'input' has rank %d", cnt,
                  x->shape.rank);
        return -1;
    }
    for (i = 0; i < cnt; i++) {
        if (r[i] < 0) {
            diag_node(d, n, "input 'repeats' %s has a negative value", shape_ints_str(r, cnt));
            return -1;
        }
        if (r[i] != 0 && s.d[i] > IR_MAX_ELEMS / r[i]) {
            diag_node(d, n, "input 'repeats' %s makes more than 2^31 elements",
                      shape_ints_str(r, cnt));
            return -1;
        }
        s.d[i] *= r[i];
        s.sym[i] = NULL;
    }
    return shape_set_out(n, 0, x->dtype, &s, d);
}

/* Range: start, limit, delta are scalars of one dtype, constant once the dims are bound
 * (the output's length depends on their values); the length as ONNX Runtime computes it. */
int
shape_infer_range(ir_graph *g, ir_node *n, diag *d)
{
    const ir_tensor *st = ir_in(n, 0), *li = ir_in(n, 1), *de = ir_in(n, 2);
    double len;
    ir_shape s;
    int i;
    (void)g;
    if (need_present(n, 3, d) < 0 || shape_need_consts(n, 0, d) < 0 ||
        shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0 ||
        shape_same_dtype(n, 0, 1, d) < 0 || shape_same_dtype(n, 0, 2, d) < 0)
        return -1;
    for (i = 0; i < 3; i++) {
        const ir_tensor *t = ir_in(n, i);
        if (shape_numel(&t->shape) != 1 || t->shape.rank > 1) {
            diag_node(d, n, "input '%s' has shape %s; expected a scalar", shape_iname(n, i),
                      shape_str(&t->shape));
            return -1;
        }
    }
    if (st->dtype == IR_DT_F32) {
        float a = *(const float *)st->data, b = *(const float *)li->data;
        float c = *(const float *)de->data;
        if (c == 0.0f || !isfinite(a) || !isfinite(b) || !isfinite(c)) {
            diag_node(d, n, "input 'delta' is 0, or an input is not finite");
            return -1;
        }
        len = ceil((double)(b - a) / (double)c);
    } else {
        int64_t a = shape_elem_i64(st, 0), b = shape_elem_i64(li, 0), c = shape_elem_i64(de, 0);
        if (c == 0) {
            diag_node(d, n, "input 'delta' is 0");
            return -1;
        }
        len = ceil(((double)b - (double)a) / (double)c);
    }
    if (len < 0)
        len = 0;
    if (len > (double)IR_MAX_ELEMS) {
        diag_node(d, n, "makes more than 2^31 elements");
        return -1;
    }
    s = shape_make(1);
    s.d[0] = (int64_t)len;
    return shape_set_out(n, 0, st->dtype, &s, d);
}

/* CumSum: same dtype and shape as x; axis a constant scalar in [-rank, rank). */
int
shape_infer_cumsum(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int64_t v[1];
    int axis;
    (void)g;
    if (shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0)
        return -1;
    if (!ir_in(n, 1)) {
        diag_node(d, n, "input 'axis' is missing");
        return -1;
    }
    if (shape_const_ints(n, 1, v, 1, d) != 1) {
        if (ir_in(n, 1)->data)
            diag_node(d, n, "input 'axis' must hold one value");
        return -1;
    }
    if (x->shape.rank < 1) {
        diag_node(d, n, "input 'x' is a scalar; CumSum needs rank >= 1");
        return -1;
    }
    if (shape_norm_axis(n, "input 'axis'", v[0], x->shape.rank, 0, &axis, d) < 0)
        return -1;
    return shape_set_out(n, 0, x->dtype, &x->shape, d);
}
