/*
 * shape_eltwise.c — dtype and shape rules of the element-wise ops: Add/Sub/Mul/Div (numpy
 * broadcasting; small integer constants folded), the unary ops and Identity, Softmax and
 * LogSoftmax, ArgMax, Cast.
 */
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "shape_impl.h"

#include <math.h>

/* --- element-wise --------------------------------------------------------------------- */

int
shape_infer_binary(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *a = ir_in(n, 0), *b = ir_in(n, 1), *o;
    ir_shape s;
    if (shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0 || shape_same_dtype(n, 0, 1, d) < 0)
        return -1;
    if (shape_broadcast(&a->shape, &b->shape, &s) < 0) {
        diag_node(d, n, "inputs 'A' %s and 'B' %s do not broadcast", shape_str(&a->shape),
                  shape_str(&b->shape));
        return -1;
    }
    if (shape_set_out(n, 0, a->dtype, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o && shape_foldable(n, 0)) {
        int64_t k, cnt = shape_numel(&s);
        int64_t *v = arena_calloc(g->a, (size_t)cnt + 1, sizeof *v);
        for (k = 0; k < cnt; k++) {
            int64_t x = shape_elem_i64(a, shape_bcast_index(&s, &a->shape, k));
            int64_t y = shape_elem_i64(b, shape_bcast_index(&s, &b->shape, k));
            int64_t r;
            switch (n->op) {
            case IR_OP_ADD:
                if (__builtin_add_overflow(x, y, &r))
                    return 0;
                break;
            case IR_OP_SUB:
                if (__builtin_sub_overflow(x, y, &r))
                    return 0;
                break;
            case IR_OP_MUL:
                if (__builtin_mul_overflow(x, y, &r))
                    return 0;
                break;
            default: /* Div: integer division truncating toward zero, as numpy's C */
                if (y == 0 || (x == INT64_MIN && y == -1))
                    return 0;
                r = x / y;
                break;
            }
            v[k] = r;
        }
        shape_out_data(g, o);
        for (k = 0; k < cnt; k++)
            shape_put_i64(o, k, v[k]);
    }
    return 0;
}

int
shape_infer_unary(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    unsigned mask = M_F32;
    const char *want = "f32";
    if (n->op == IR_OP_RELU || n->op == IR_OP_NEG)
        mask = M_NUM, want = "f32, i32 or i64";
    if (n->op == IR_OP_IDENTITY)
        mask = M_ANY;
    if (shape_need_dtype(n, 0, mask, want, d) < 0)
        return -1;
    if (shape_set_out(n, 0, x->dtype, &x->shape, d) < 0)
        return -1;
    if (n->op == IR_OP_IDENTITY)
        shape_fold_copy(g, n);
    return 0;
}

int
shape_infer_softmax(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int axis;
    (void)g;
    if (shape_need_dtype(n, 0, M_F32, "f32", d) < 0)
        return -1;
    if (x->shape.rank < 1) {
        diag_node(d, n, "input 'input' is a scalar; %s needs rank >= 1", n->op_type);
        return -1;
    }
    if (shape_norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", -1), x->shape.rank, 0, &axis,
                        d) < 0)
        return -1;
    return shape_set_out(n, 0, x->dtype, &x->shape, d);
}

int
shape_infer_argmax(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int axis, keep = ir_attr_int(n, "keepdims", 1) != 0, i;
    ir_shape s;
    (void)g;
    if (shape_need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0)
        return -1;
    if (x->shape.rank < 1) {
        diag_node(d, n, "input 'data' is a scalar; %s needs rank >= 1", n->op_type);
        return -1;
    }
    if (shape_norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", 0), x->shape.rank, 0, &axis,
                        d) < 0)
        return -1;
    s = shape_make(0);
    for (i = 0; i < x->shape.rank; i++) {
        if (i == axis && !keep)
            continue;
        s.d[s.rank++] = i == axis ? 1 : x->shape.d[i];
    }
    return shape_set_out(n, 0, IR_DT_I64, &s, d);
}

/* lstmc.Quantize (float -> int8 / int16, attribute "bits") and lstmc.Dequantize (back): the
 * input's shape. Issue 22 (QDQ models and --activations). */
int
shape_infer_quant(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    const int q = n->op == IR_OP_QUANTIZE, bits = (int)ir_attr_int(n, "bits", 8);
    const ir_dtype it = bits == 8 ? IR_DT_I8 : bits == 16 ? IR_DT_I16 : IR_DT_I32;
    (void)g;
    if (x->dtype != (q ? IR_DT_F32 : it)) {
        diag_node(d, n, "reads %s; it takes %s", ir_dtype_name(x->dtype),
                  ir_dtype_name(q ? IR_DT_F32 : it));
        return -1;
    }
    return shape_set_out(n, 0, q ? it : IR_DT_F32, &x->shape, d);
}

int
shape_infer_cast(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *o;
    int64_t to = ir_attr_int(n, "to", 0), k, cnt;
    if (to != IR_DT_F32 && to != IR_DT_I64 && to != IR_DT_I32 && to != IR_DT_BOOL) {
        diag_node(d, n, "attribute 'to' is not a supported dtype");
        return -1;
    }
    if (shape_set_out(n, 0, (ir_dtype)to, &x->shape, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (!o || !x->data || (cnt = shape_numel(&x->shape)) > FOLD_MAX)
        return 0;
    if (x->dtype == IR_DT_F32) {
        const float *src = x->data;
        for (k = 0; k < cnt; k++) /* a value no integer holds: leave it to run time */
            if (to != IR_DT_F32 && to != IR_DT_BOOL && !(fabsf(src[k]) < 9.2e18f))
                return 0;
        shape_out_data(g, o);
        for (k = 0; k < cnt; k++) {
            if (to == IR_DT_F32)
                ((float *)o->data)[k] = src[k];
            else
                shape_put_i64(o, k, to == IR_DT_BOOL ? src[k] != 0.0f : (int64_t)src[k]);
        }
    } else {
        shape_out_data(g, o);
        for (k = 0; k < cnt; k++) {
            int64_t v = shape_elem_i64(x, k);
            if (to == IR_DT_F32)
                ((float *)o->data)[k] = (float)v;
            else
                shape_put_i64(o, k, v);
        }
    }
    return 0;
}
