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
 *   PRelu              opsets 7-16 as 16 (unidirectional broadcasting of slope to X)
 *   Min, Max           variadic: n inputs become n - 1 two-input nodes (the first reads
 *                      inputs 0 and 1, each next one the last result and one more input);
 *                      one input is an Identity
 *   Elu                "alpha" always present (default 1)
 *   Selu               "alpha", "gamma" always present (defaults 1.67326..., 1.05070...)
 * The other ops of the group (Where, the comparisons, And, Or, Not, Pow, Reciprocal, Log,
 * Abs, HardSwish, Erf, Tile, Range, Floor, Ceil, Sign, Round, Softplus, Sin, Cos) have no
 * attributes at opsets 7-22 and use the generic importers.
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
onnx_import_elu(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_ELU, onnx_arity_of(IR_OP_ELU));
    if (!n)
        return -1;
    return copy_float(cx, np, n, "alpha", 1.0f);
}

int
onnx_import_selu(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_SELU, onnx_arity_of(IR_OP_SELU));
    if (!n)
        return -1;
    if (copy_float(cx, np, n, "alpha", 1.67326319217681884765625f) < 0)
        return -1;
    return copy_float(cx, np, n, "gamma", 1.05070102214813232421875f);
}

int
onnx_import_prelu(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    if (cx->opset < 7) {
        onnx_err(cx,
                 "PRelu at opset %d (per-channel slope without numpy broadcasting) is not "
                 "supported; lstmc reads PRelu from opset 7",
                 cx->opset);
        return -1;
    }
    return onnx_node_new(cx, np, IR_OP_PRELU, onnx_arity_of(IR_OP_PRELU)) ? 0 : -1;
}

/* Min / Max of n inputs: n - 1 two-input nodes, each made for this ONNX node (messages
 * name it), the last writing its output. Opsets before 8 do not broadcast: their inputs
 * must have one shape, which broadcasting accepts as well. */
int
onnx_import_minmax(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_op op = ir_op_from_name(np->op_type);
    ir_node *n = onnx_node_new(cx, np, op, onnx_arity_of(op)), *m;
    ir_tensor **in, *y, *acc;
    int k, cnt;
    if (!n)
        return -1;
    cnt = n->n_inputs;
    in = n->inputs;
    for (k = 0; k < cnt; k++) {
        if (!in[k]) {
            onnx_err(cx, "input %d is empty; %s takes no optional inputs", k, np->op_type);
            return -1;
        }
    }
    if (cnt == 1) { /* the input itself */
        n->op = IR_OP_IDENTITY;
        return 0;
    }
    if (cnt == 2)
        return 0;
    y = ir_out(n, 0);
    acc = ir_tensor_tmp(cx->g, y ? y->name : "minmax", IR_DT_UNDEF, NULL);
    n->n_inputs = 2;
    ir_node_set_output(n, 0, acc);
    for (k = 2; k < cnt; k++) {
        m = ir_node_new(cx->g, op, NULL, np->op_type, 2, 1);
        m->opset = cx->opset;
        ir_node_origin(m, n);
        m->inputs[0] = acc;
        m->inputs[1] = in[k];
        if (k + 1 < cnt)
            acc = ir_tensor_tmp(cx->g, y ? y->name : "minmax", IR_DT_UNDEF, NULL);
        else
            acc = y;
        if (acc)
            ir_node_set_output(m, 0, acc);
    }
    return 0;
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
