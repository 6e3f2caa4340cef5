/*
 * shape_red.c — dtype and shape rules of issue 20's reductions, normalisation and data
 * movement: ReduceMean/Sum/Max/Min/L2, LayerNormalization, Pad, Split, TopK,
 * ScatterElements. Every shape operand (axes, pads, split, K) must be a constant once the
 * dims are bound; the importer has already rewritten older opset forms onto inputs
 * (frontends/onnx/onnx_red.c).
 */
#include "diag.h"
#include "ir.h"
#include "shape_impl.h"

#include <string.h>

/* Which axes of a rank-r input a Reduce* node reduces (red[i] = 1): input 'axes' (empty or
 * absent: every axis, or none with noop_with_empty_axes). Returns the count, or -1. */
int
shape_reduce_axes(ir_node *n, int r, int *red, diag *d)
{
    int64_t v[IR_MAX_RANK];
    int cnt = 0, i, a, k = 0;
    for (i = 0; i < r; i++)
        red[i] = 0;
    if (ir_in(n, 1)) {
        if (shape_need_consts(n, 1, d) < 0)
            return -1;
        if ((cnt = shape_const_ints(n, 1, v, IR_MAX_RANK, d)) < 0)
            return -1;
    }
    if (cnt == 0) {
        if (ir_attr_int(n, "noop_with_empty_axes", 0))
            return 0;
        for (i = 0; i < r; i++)
            red[i] = 1;
        return r;
    }
    for (i = 0; i < cnt; i++) {
        if (shape_norm_axis(n, "an entry of input 'axes'", v[i], r, 0, &a, d) < 0)
            return -1;
        if (red[a]) {
            diag_node(d, n, "input 'axes' %s names axis %d twice", shape_ints_str(v, cnt), a);
            return -1;
        }
        red[a] = 1;
        k++;
    }
    return k;
}

int
shape_infer_reduce(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int r = x->shape.rank, red[IR_MAX_RANK], keep = ir_attr_int(n, "keepdims", 1) != 0, i;
    int float_only = n->op == IR_OP_REDUCE_MEAN || n->op == IR_OP_REDUCE_L2 ||
                     n->op == IR_OP_REDUCE_LOG_SUM || n->op == IR_OP_REDUCE_LOG_SUM_EXP;
    ir_shape s;
    (void)g;
    if (shape_need_dtype(n, 0, float_only ? M_F32 : M_NUM, float_only ? "f32" : "f32, i32 or i64",
                         d) < 0)
        return -1;
    if (shape_reduce_axes(n, r, red, d) < 0)
        return -1;
    s = shape_make(0);
    for (i = 0; i < r; i++) {
        if (!red[i])
            s.d[s.rank++] = x->shape.d[i];
        else if (keep)
            s.d[s.rank++] = 1;
    }
    return shape_set_out(n, 0, x->dtype, &s, d);
}

/* The elements Scale / B must hold for a LayerNormalization over x's axes [axis, rank):
 * the normalized shape, after dropping leading 1s (or one element). Returns 1 (one value
 * per element), 0 (one value) or -1 after reporting. */
int
shape_layernorm_param(ir_node *n, int i, int axis, diag *d)
{
    const ir_tensor *x = ir_in(n, 0), *t = ir_in(n, i);
    int r = x->shape.rank, k, lead;
    if (!t)
        return 0;
    if (shape_numel(&t->shape) == 1)
        return 0;
    lead = t->shape.rank - (r - axis);
    for (k = 0; k < t->shape.rank; k++) {
        int xi = axis + k - lead;
        if (k < lead ? t->shape.d[k] != 1 : (xi < axis || t->shape.d[k] != x->shape.d[xi]))
            break;
    }
    if (k < t->shape.rank) {
        diag_node(d, n,
                  "input '%s' has shape %s; expected the normalized shape of input 'X' %s "
                  "from axis %d (or one value)",
                  shape_iname(n, i), shape_str(&t->shape), shape_str(&x->shape), axis);
        return -1;
    }
    if (lead < 0) { /* [H] against normalized [T, H]: a broadcast the kernel does not do */
        diag_node(d, n,
                  "input '%s' has shape %s, broadcast over the normalized shape of input 'X' "
                  "%s from axis %d; only the whole normalized shape (or one value) is supported",
                  shape_iname(n, i), shape_str(&t->shape), shape_str(&x->shape), axis);
        return -1;
    }
    return 1;
}

int
shape_infer_layernorm(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int axis;
    (void)g;
    if (shape_need_dtype(n, 0, M_F32, "f32", d) < 0 ||
        shape_need_dtype(n, 1, M_F32, "f32", d) < 0 || shape_need_dtype(n, 2, M_F32, "f32", d) < 0)
        return -1;
    if (x->shape.rank < 1) {
        diag_node(d, n, "input 'X' is a scalar; LayerNormalization needs rank >= 1");
        return -1;
    }
    if (shape_norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", -1), x->shape.rank, 0, &axis,
                        d) < 0)
        return -1;
    if (shape_layernorm_param(n, 1, axis, d) < 0 || shape_layernorm_param(n, 2, axis, d) < 0)
        return -1;
    {
        /* Mean and InvStdDev: X's shape with the normalised axes (axis on) of size 1 */
        ir_shape st = x->shape;
        int i;
        for (i = axis; i < st.rank; i++)
            st.d[i] = 1;
        if (shape_set_out(n, 1, IR_DT_F32, &st, d) < 0 ||
            shape_set_out(n, 2, IR_DT_F32, &st, d) < 0)
            return -1;
    }
    return shape_set_out(n, 0, x->dtype, &x->shape, d);
}

/* InstanceNormalization: input [N, C, D1, ...] (rank >= 3), scale and B [C]; Y as input. */
int
shape_infer_instance_norm(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int i;
    (void)g;
    for (i = 0; i < 3; i++)
        if (shape_need_dtype(n, i, M_F32, "f32", d) < 0)
            return -1;
    if (x->shape.rank < 3) {
        diag_node(d, n, "input 'input' has shape %s; InstanceNormalization needs [N, C, D1, ...]",
                  shape_str(&x->shape));
        return -1;
    }
    for (i = 1; i < 3; i++) {
        const ir_shape *s = &ir_in(n, i)->shape;
        if (s->rank != 1 || s->d[0] != x->shape.d[1]) {
            diag_node(d, n,
                      "input '%s' has shape %s; expected [%lld] (the channels of input "
                      "'input' %s)",
                      shape_iname(n, i), shape_str(s), (long long)x->shape.d[1],
                      shape_str(&x->shape));
            return -1;
        }
    }
    return shape_set_out(n, 0, x->dtype, &x->shape, d);
}

/* Pad's begin / end per axis of a rank-r input from inputs 'pads' and 'axes'. */
int
shape_pad_amounts(ir_node *n, int r, int64_t *begin, int64_t *end, diag *d)
{
    int64_t pads[2 * IR_MAX_RANK], ax[IR_MAX_RANK];
    int np, na, i, a;
    if (shape_need_consts(n, 1, d) < 0)
        return -1;
    if ((np = shape_const_ints(n, 1, pads, 2 * IR_MAX_RANK, d)) < 0)
        return -1;
    if (ir_in(n, 3)) {
        if ((na = shape_const_ints(n, 3, ax, IR_MAX_RANK, d)) < 0)
            return -1;
    } else {
        na = r;
        for (i = 0; i < r; i++)
            ax[i] = i;
    }
    if (np != 2 * na) {
        diag_node(d, n, "input 'pads' has %d values; expected %d (2 x %d %s)", np, 2 * na, na,
                  ir_in(n, 3) ? "entries of input 'axes'" : "axes of input 'data'");
        return -1;
    }
    for (i = 0; i < r; i++)
        begin[i] = end[i] = 0;
    for (i = 0; i < na; i++) {
        if (shape_norm_axis(n, "an entry of input 'axes'", ax[i], r, 0, &a, d) < 0)
            return -1;
        begin[a] = pads[i];
        end[a] = pads[na + i];
    }
    return 0;
}

int
shape_infer_pad(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *v = ir_in(n, 2);
    int64_t begin[IR_MAX_RANK], end[IR_MAX_RANK];
    const char *mode = ir_attr_string(n, "mode", "constant");
    int r = x->shape.rank, i;
    ir_shape s;
    (void)g;
    if (shape_need_dtype(n, 0, M_ANY, "f32, i32, i64 or bool", d) < 0 ||
        shape_need_dtype(n, 1, M_INT, "i64", d) < 0 || shape_need_dtype(n, 3, M_INT, "i64", d) < 0)
        return -1;
    if (shape_pad_amounts(n, r, begin, end, d) < 0)
        return -1;
    if (v) {
        if (!v->data) {
            diag_node(d, n, "input 'constant_value' must be a constant");
            return -1;
        }
        if (v->dtype != x->dtype || shape_numel(&v->shape) != 1) {
            diag_node(d, n, "input 'constant_value' is %s %s; expected one %s value",
                      ir_dtype_name(v->dtype), shape_str(&v->shape), ir_dtype_name(x->dtype));
            return -1;
        }
    }
    s = x->shape;
    for (i = 0; i < r; i++) {
        s.d[i] = x->shape.d[i] + begin[i] + end[i];
        if (s.d[i] < 0) {
            diag_node(d, n,
                      "pads %lld and %lld on axis %d of input 'data' %s leave a negative "
                      "size",
                      (long long)begin[i], (long long)end[i], i, shape_str(&x->shape));
            return -1;
        }
        if (strcmp(mode, "constant") != 0 && x->shape.d[i] == 0 && s.d[i] > 0) {
            diag_node(d, n, "mode '%s' pads axis %d of input 'data' %s, which is empty", mode, i,
                      shape_str(&x->shape));
            return -1;
        }
    }
    return shape_set_out(n, 0, x->dtype, &s, d);
}

/* The size of each of Split's outputs along its axis (dim long): input 'split', else
 * attribute num_outputs (chunks of ceil(dim / num_outputs), the last smaller), else equal
 * parts, one per output. Returns 0 or -1. */
int
shape_split_sizes(ir_node *n, int64_t dim, int64_t *sz, diag *d)
{
    int n_out = n->n_outputs, i;
    int64_t sum = 0;
    if (ir_in(n, 1)) {
        int cnt;
        if (shape_need_consts(n, 1, d) < 0)
            return -1;
        if ((cnt = shape_const_ints(n, 1, sz, n_out, d)) < 0)
            return -1;
        if (cnt != n_out) {
            diag_node(d, n, "input 'split' has %d values for %d outputs", cnt, n_out);
            return -1;
        }
        for (i = 0; i < n_out; i++) {
            if (sz[i] < 0) {
                diag_node(d, n, "input 'split' has a negative size %lld", (long long)sz[i]);
                return -1;
            }
            sum += sz[i];
        }
        if (sum != dim) {
            diag_node(d, n, "input 'split' sums to %lld; the axis has %lld elements",
                      (long long)sum, (long long)dim);
            return -1;
        }
        return 0;
    }
    if (ir_attr_get(n, "num_outputs")) {
        int64_t k = ir_attr_int(n, "num_outputs", 0), chunk;
        if (k != n_out) {
            diag_node(d, n, "attribute 'num_outputs' is %lld but the node has %d outputs",
                      (long long)k, n_out);
            return -1;
        }
        chunk = (dim + k - 1) / k;
        if (k > 1 && (k - 1) * chunk >= dim) { /* 6 into 4: 2, 2, 2 and nothing left */
            diag_node(d, n,
                      "attribute 'num_outputs' is %lld: chunks of %lld leave nothing for "
                      "the last output of an axis of %lld elements",
                      (long long)k, (long long)chunk, (long long)dim);
            return -1;
        }
        for (i = 0; i < n_out; i++) {
            int64_t left = dim - sum;
            sz[i] = left < chunk ? (left > 0 ? left : 0) : chunk;
            sum += sz[i];
        }
        return 0;
    }
    if (dim % n_out != 0) {
        diag_node(d, n,
                  "cannot split an axis of %lld elements into %d equal outputs; give "
                  "input 'split'",
                  (long long)dim, n_out);
        return -1;
    }
    for (i = 0; i < n_out; i++)
        sz[i] = dim / n_out;
    return 0;
}

int
shape_infer_split(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int64_t sz[64];
    int axis, i;
    (void)g;
    if (x->shape.rank < 1) {
        diag_node(d, n, "input 'input' is a scalar; Split needs rank >= 1");
        return -1;
    }
    if (n->n_outputs < 1 || n->n_outputs > 64) {
        diag_node(d, n, "has %d outputs; 1 to 64 are supported", n->n_outputs);
        return -1;
    }
    if (shape_norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", 0), x->shape.rank, 0, &axis,
                        d) < 0)
        return -1;
    if (shape_split_sizes(n, x->shape.d[axis], sz, d) < 0)
        return -1;
    for (i = 0; i < n->n_outputs; i++) {
        ir_shape s = x->shape;
        s.d[axis] = sz[i];
        if (shape_set_out(n, i, x->dtype, &s, d) < 0)
            return -1;
    }
    return 0;
}

int
shape_infer_topk(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int64_t k;
    int axis;
    ir_shape s;
    (void)g;
    if (shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0)
        return -1;
    if (x->shape.rank < 1) {
        diag_node(d, n, "input 'X' is a scalar; TopK needs rank >= 1");
        return -1;
    }
    if (shape_norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", -1), x->shape.rank, 0, &axis,
                        d) < 0)
        return -1;
    if (shape_need_consts(n, 1, d) < 0 || shape_const_ints(n, 1, &k, 1, d) != 1) {
        if (ir_in(n, 1)->data)
            diag_node(d, n, "input 'K' must hold one value");
        return -1;
    }
    if (k < 0 || k > x->shape.d[axis]) {
        diag_node(d, n, "input 'K' is %lld; axis %d of input 'X' %s has %lld elements",
                  (long long)k, axis, shape_str(&x->shape), (long long)x->shape.d[axis]);
        return -1;
    }
    s = x->shape;
    s.d[axis] = k;
    if (shape_set_out(n, 0, x->dtype, &s, d) < 0 || shape_set_out(n, 1, IR_DT_I64, &s, d) < 0)
        return -1;
    return 0;
}

int
shape_infer_scatter_elements(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *ix = ir_in(n, 1), *u = ir_in(n, 2);
    int r = x->shape.rank, axis, i;
    (void)g;
    if (shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0 ||
        shape_need_dtype(n, 1, M_INT, "i64 or i32", d) < 0 || shape_same_dtype(n, 0, 2, d) < 0)
        return -1;
    if (r < 1) {
        diag_node(d, n, "input 'data' is a scalar; ScatterElements needs rank >= 1");
        return -1;
    }
    if (shape_norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", 0), r, 0, &axis, d) < 0)
        return -1;
    if (!shape_same_dims(&ix->shape, &u->shape) || ix->shape.rank != r) {
        diag_node(d, n,
                  "inputs 'indices' %s and 'updates' %s must have one shape, of the rank "
                  "of input 'data' %s",
                  shape_str(&ix->shape), shape_str(&u->shape), shape_str(&x->shape));
        return -1;
    }
    for (i = 0; i < r; i++) {
        if (i != axis && ix->shape.d[i] > x->shape.d[i]) {
            diag_node(d, n, "input 'indices' %s is larger than input 'data' %s on axis %d",
                      shape_str(&ix->shape), shape_str(&x->shape), i);
            return -1;
        }
    }
    if (ix->data) {
        int64_t k, cnt = shape_numel(&ix->shape), dim = x->shape.d[axis];
        for (k = 0; k < cnt; k++) {
            int64_t v = shape_elem_i64(ix, k);
            if (v < -dim || v >= dim) {
                diag_node(d, n, "index %lld is out of range for axis %d of size %lld", (long long)v,
                          axis, (long long)dim);
                return -1;
            }
        }
    }
    return shape_set_out(n, 0, x->dtype, &x->shape, d);
}
