/*
 * onnx_elt.c — importers of issue 20's element-wise, logical and generator ops whose
 * attributes need more than onnx_import_binary / onnx_import_unary: LeakyRelu, HardSigmoid,
 * Clip, CumSum. Older opset forms are rewritten onto the newest (ir_ops.def):
 *   Clip (< 11)        attributes min, max (floats) -> constant f32 scalar inputs 1, 2; an
 *                      absent attribute leaves its input absent (no bound), as the default
 *                      (the lowest / largest float) bounds nothing
 *   LeakyRelu          "alpha" always present (default 0.01)
 *   HardSigmoid        "alpha", "beta" always present (defaults 0.2, 0.5)
 *   CumSum             "exclusive", "reverse" always present (default 0)
 * The other ops of the group (Where, the comparisons, And, Or, Not, Pow, Reciprocal, Log,
 * Abs, HardSwish, Erf, Tile, Range) have no attributes at opsets 7-22 and use the generic
 * importers.
 */
#include "arena.h"
#include "onnx_impl.h"

#include <string.h>

/* Read a FLOAT attribute with a default and store it on n. */
static int
copy_float(onnx_ctx *cx, const Onnx__NodeProto *np, ir_node *n, const char *name, float dflt)
{
    float v;
    if (onnx_attr_float(cx, np, name, dflt, &v) < 0)
        return -1;
    ir_attr_set_float(cx->g, n, name, v);
    return 0;
}

int
onnx_import_leaky_relu(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_LEAKY_RELU, onnx_arity_of(IR_OP_LEAKY_RELU));
    if (!n)
        return -1;
    return copy_float(cx, np, n, "alpha", 0.01f);
}

int
onnx_import_hard_sigmoid(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_HARD_SIGMOID, onnx_arity_of(IR_OP_HARD_SIGMOID));
    if (!n)
        return -1;
    if (copy_float(cx, np, n, "alpha", 0.2f) < 0)
        return -1;
    return copy_float(cx, np, n, "beta", 0.5f);
}

int
onnx_import_clip(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    onnx_arity ar = onnx_arity_of(IR_OP_CLIP);
    static const char *const bound[2] = {"min", "max"};
    ir_node *n;
    int i;
    if (cx->opset < 11 && np->n_input > 1) {
        onnx_err(cx,
                 "has %zu inputs; Clip before opset 11 takes 1 (min and max are "
                 "attributes)",
                 np->n_input);
        return -1;
    }
    if (cx->opset >= 11) {
        for (i = 0; i < 2; i++) {
            if (onnx_attr_find(np, bound[i])) {
                onnx_err(cx,
                         "attribute '%s' is not part of Clip at opset %d (it is input "
                         "%d)",
                         bound[i], cx->opset, i + 1);
                return -1;
            }
        }
    }
    n = onnx_node_new(cx, np, IR_OP_CLIP, ar);
    if (!n)
        return -1;
    for (i = 0; cx->opset < 11 && i < 2; i++) {
        ir_shape s;
        float v;
        int got = onnx_attr_float(cx, np, bound[i], 0.0f, &v);
        if (got < 0)
            return -1;
        if (!got)
            continue;
        memset(&s, 0, sizeof s);
        n->inputs[i + 1] = ir_const_new(cx->g, arena_printf(cx->a, "%s_%s", cx->node, bound[i]),
                                        IR_DT_F32, &s, &v);
    }
    return 0;
}

int
onnx_import_cumsum(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_CUMSUM, onnx_arity_of(IR_OP_CUMSUM));
    if (!n)
        return -1;
    if (onnx_attr_flag(cx, np, n, "exclusive", 0) < 0 ||
        onnx_attr_flag(cx, np, n, "reverse", 0) < 0)
        return -1;
    return 0;
}
