/*
 * onnx_red.c — importers of issue 20's reductions, normalisation and data movement:
 * ReduceMean/Sum/Max/Min/L2, LayerNormalization, Pad, Split, TopK, ScatterElements (and
 * the deprecated Scatter, the same op without reduction).
 *
 * Older opset forms are rewritten onto the newest (ir_ops.def): a shape operand given as an
 * attribute (Reduce*'s axes before opset 13 / 18, Pad's pads and value before 11, Split's
 * split before 13, TopK's k before 10) becomes a constant input; every attribute the
 * kernels read is set on the node with its default, and an attribute value lstmc does not
 * run is refused by name.
 */
#include "arena.h"
#include "diag.h"
#include "onnx_impl.h"

#include <string.h>

/* Give n (made with `had` input slots) `want` slots, input `slot` the constant c. */
static void
widen(onnx_ctx *cx, ir_node *n, int want, int slot, ir_tensor *c)
{
    ir_tensor **in = arena_calloc(cx->a, (size_t)want, sizeof *in);
    int i;
    for (i = 0; i < n->n_inputs && i < want; i++)
        in[i] = n->inputs[i];
    if (slot >= 0)
        in[slot] = c;
    n->inputs = in;
    n->n_inputs = want;
}

/* ReduceMean/Sum/Max/Min/L2: axes is an attribute before opset 13 (ReduceSum) or 18 (the
 * others), input 1 after; noop_with_empty_axes exists only with the input. */
int
onnx_import_reduce(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_op op = ir_op_from_name(np->op_type);
    int input_form = cx->opset >= (op == IR_OP_REDUCE_SUM ? 13 : 18);
    ir_node *n;
    if (input_form) {
        n = onnx_node_new(cx, np, op, onnx_arity_of(op));
        if (!n)
            return -1;
    } else {
        onnx_arity ar = {1, 1, 1, 1}; /* data only: axes is an attribute */
        const int64_t *axes;
        int cnt, r = onnx_attr_ints(cx, np, "axes", &axes, &cnt);
        if (r < 0)
            return -1;
        n = onnx_node_new(cx, np, op, ar);
        if (!n)
            return -1;
        widen(cx, n, 2, 1, r == 1 && cnt > 0 ? onnx_const_i64(cx, "axes", axes, cnt) : NULL);
    }
    if (onnx_attr_flag(cx, np, n, "keepdims", 1) < 0 ||
        onnx_attr_flag(cx, np, n, "noop_with_empty_axes", 0) < 0)
        return -1;
    return 0;
}

/* LayerNormalization (opset 17): Y and the optional outputs Mean and InvStdDev (X's shape
 * with the normalised axes of size 1); stash_type must be 1 (float), the precision lstmc
 * computes in. An empty Scale is a scale of 1. */
int
onnx_import_layernorm(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    int64_t stash;
    float eps;
    ir_node *n;
    {
        /* Scale is required by the spec, but PyTorch 1.13 writes nn.LayerNorm without
         * elementwise_affine at opset 17 with an empty Scale: read as a scale of 1 */
        onnx_arity ar = onnx_arity_of(IR_OP_LAYER_NORM);
        ar.min_in = 1;
        n = onnx_node_new(cx, np, IR_OP_LAYER_NORM, ar);
    }
    if (!n)
        return -1;
    if (!n->inputs[1]) {
        const float one = 1.0f;
        ir_shape s;
        memset(&s, 0, sizeof s);
        s.rank = 1;
        s.d[0] = 1;
        n->inputs[1] =
            ir_const_new(cx->g, arena_printf(cx->a, "%s_scale", cx->node), IR_DT_F32, &s, &one);
    }
    if (onnx_attr_copy_int(cx, np, n, "axis", -1) < 0 ||
        onnx_attr_float(cx, np, "epsilon", 1e-5f, &eps) < 0 ||
        onnx_attr_int(cx, np, "stash_type", 1, &stash) < 0)
        return -1;
    if (stash != 1) {
        onnx_err(cx,
                 "attribute 'stash_type' is %lld; lstmc computes the mean and variance in "
                 "float (stash_type 1) only",
                 (long long)stash);
        return -1;
    }
    if (!(eps >= 0.0f)) {
        onnx_err(cx, "attribute 'epsilon' is %g; expected a value >= 0", (double)eps);
        return -1;
    }
    ir_attr_set_float(cx->g, n, "epsilon", eps);
    return 0;
}

/* InstanceNormalization (opsets 6, 22): "epsilon" (default 1e-5) and "axis" = 2, the first
 * normalised axis, which the streaming rule of the NORM class reads. */
int
onnx_import_instance_norm(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_INSTANCE_NORM, onnx_arity_of(IR_OP_INSTANCE_NORM));
    float eps;
    if (!n)
        return -1;
    if (onnx_attr_float(cx, np, "epsilon", 1e-5f, &eps) < 0)
        return -1;
    if (!(eps >= 0.0f)) {
        onnx_err(cx, "attribute 'epsilon' is %g; expected a value >= 0", (double)eps);
        return -1;
    }
    ir_attr_set_float(cx->g, n, "epsilon", eps);
    ir_attr_set_int(cx->g, n, "axis", 2);
    return 0;
}

/* Pad: pads (and value) are attributes before opset 11 ("paddings" at opset 1), inputs
 * after; axes is input 3 from opset 18. mode constant, reflect or edge. */
int
onnx_import_pad(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    const char *mode;
    ir_node *n;
    if (onnx_attr_string(cx, np, "mode", "constant", &mode) < 0)
        return -1;
    if (strcmp(mode, "constant") != 0 && strcmp(mode, "reflect") != 0 &&
        strcmp(mode, "edge") != 0) {
        onnx_err(cx, "attribute 'mode' is \"%s\"; supported: constant, reflect, edge", mode);
        return -1;
    }
    if (cx->opset >= 11) {
        n = onnx_node_new(cx, np, IR_OP_PAD, onnx_arity_of(IR_OP_PAD));
        if (!n)
            return -1;
    } else {
        onnx_arity ar = {1, 1, 1, 1}; /* data only: pads and value are attributes */
        const char *name = cx->opset < 2 ? "paddings" : "pads";
        const int64_t *pads;
        int cnt, r = onnx_attr_ints(cx, np, name, &pads, &cnt);
        float value;
        ir_shape s;
        if (r < 0 || onnx_attr_float(cx, np, "value", 0.0f, &value) < 0)
            return -1;
        if (r == 0) {
            onnx_err(cx, "attribute '%s' is required", name);
            return -1;
        }
        n = onnx_node_new(cx, np, IR_OP_PAD, ar);
        if (!n)
            return -1;
        widen(cx, n, 4, 1, onnx_const_i64(cx, "pads", pads, cnt));
        memset(&s, 0, sizeof s); /* a scalar: Pad before opset 11 takes float data only */
        n->inputs[2] =
            ir_const_new(cx->g, arena_printf(cx->a, "%s_value", cx->node), IR_DT_F32, &s, &value);
    }
    ir_attr_set_string(cx->g, n, "mode", mode);
    return 0;
}

/* Split: split is an attribute before opset 13, input 1 after; num_outputs (opset 18) is
 * kept as an attribute. One output slot per output the node names. */
int
onnx_import_split(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    onnx_arity ar = onnx_arity_of(IR_OP_SPLIT);
    const int64_t *split = NULL;
    int cnt = 0, r = 0;
    int64_t k;
    ir_node *n;
    if (np->n_output < 1 || np->n_output > 64) {
        onnx_err(cx, "has %zu outputs; 1 to 64 are supported", np->n_output);
        return -1;
    }
    ar.max_out = (int)np->n_output;
    ar.min_out = (int)np->n_output;
    if (cx->opset < 13) {
        r = onnx_attr_ints(cx, np, "split", &split, &cnt);
        if (r < 0)
            return -1;
        ar.max_in = 1;
    }
    n = onnx_node_new(cx, np, IR_OP_SPLIT, ar);
    if (!n)
        return -1;
    if (cx->opset < 13)
        widen(cx, n, 2, 1, r == 1 ? onnx_const_i64(cx, "split", split, cnt) : NULL);
    if (onnx_attr_copy_int(cx, np, n, "axis", 0) < 0)
        return -1;
    r = onnx_attr_int(cx, np, "num_outputs", 0, &k);
    if (r < 0)
        return -1;
    if (r == 1) {
        if (n->inputs[1]) {
            onnx_err(cx, "has both input 'split' and attribute 'num_outputs'; give one");
            return -1;
        }
        if (k < 1) {
            onnx_err(cx, "attribute 'num_outputs' is %lld; expected >= 1", (long long)k);
            return -1;
        }
        ir_attr_set_int(cx->g, n, "num_outputs", k);
    }
    return 0;
}

/* TopK: k is an attribute before opset 10, input 1 after; largest and sorted from 11. */
int
onnx_import_topk(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n;
    if (cx->opset >= 10) {
        n = onnx_node_new(cx, np, IR_OP_TOPK, onnx_arity_of(IR_OP_TOPK));
        if (!n)
            return -1;
    } else {
        onnx_arity ar = {1, 1, 2, 2};
        int64_t k;
        int r = onnx_attr_int(cx, np, "k", 0, &k);
        if (r < 0)
            return -1;
        if (r == 0) {
            onnx_err(cx, "attribute 'k' is required");
            return -1;
        }
        n = onnx_node_new(cx, np, IR_OP_TOPK, ar);
        if (!n)
            return -1;
        widen(cx, n, 2, 1, onnx_const_i64(cx, "k", &k, 1));
    }
    if (onnx_attr_copy_int(cx, np, n, "axis", -1) < 0 ||
        onnx_attr_flag(cx, np, n, "largest", 1) < 0 || onnx_attr_flag(cx, np, n, "sorted", 1) < 0)
        return -1;
    return 0;
}

/* ScatterElements (opset 11; reduction add/mul from 16, max/min from 18) and Scatter
 * (opsets 9-10, deprecated: the same op without reduction). */
int
onnx_import_scatter_elements(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    static const char *const names[] = {"none", "add", "mul", "max", "min"};
    ir_node *n =
        onnx_node_new(cx, np, IR_OP_SCATTER_ELEMENTS, onnx_arity_of(IR_OP_SCATTER_ELEMENTS));
    const char *red;
    int64_t code;
    if (!n)
        return -1;
    if (onnx_attr_copy_int(cx, np, n, "axis", 0) < 0 ||
        onnx_attr_string(cx, np, "reduction", "none", &red) < 0)
        return -1;
    for (code = 0; code < 5; code++)
        if (strcmp(red, names[code]) == 0)
            break;
    if (code == 5) {
        onnx_err(cx, "attribute 'reduction' is \"%s\"; supported: none, add, mul, max, min", red);
        return -1;
    }
    ir_attr_set_int(cx->g, n, "reduction", code);
    return 0;
}
