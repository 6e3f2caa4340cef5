/*
 * onnx_conv.c — importers of the convolution front ends (issue 20): Conv, ConvTranspose,
 * MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, BatchNormalization.
 *
 * Every attribute of these ops at opsets 7-22 is read here and either stored on the node
 * (the window geometry: compiler/core/shape/shape_conv.c resolves it once the shapes are
 * known) or refused with a message naming it:
 *   MaxPool            output 'Indices' (the argmax positions) is refused; storage_order
 *                      only concerns it, so it is checked (0 or 1) and otherwise ignored
 *   BatchNormalization training_mode = 1 (opset 14+), spatial = 0 (opsets 7-8) and the
 *                      training outputs (running mean and variance; opsets < 14 also saved
 *                      mean and variance) are refused; momentum only concerns training
 *                      and is ignored
 * Older opset forms need no rewriting: the attributes kept their names and meanings
 * (MaxPool's dilations and ceil_mode arrive at opset 10, AveragePool's dilations at 19;
 * an older model simply has none).
 */
#include "arena.h"
#include "onnx_impl.h"

#include <string.h>

/* Copy the INTS attribute `name` when present; every value must be >= min. */
static int
copy_ints(onnx_ctx *cx, const Onnx__NodeProto *np, ir_node *n, const char *name, int64_t min)
{
    const int64_t *v;
    int k, i, r = onnx_attr_ints(cx, np, name, &v, &k);
    if (r <= 0)
        return r;
    for (i = 0; i < k; i++) {
        if (v[i] < min) {
            onnx_err(cx, "attribute '%s' has value %lld; each must be at least %lld", name,
                     (long long)v[i], (long long)min);
            return -1;
        }
    }
    ir_attr_set_ints(cx->g, n, name, v, k);
    return 0;
}

/* kernel_shape, strides, dilations, pads and auto_pad, common to the windowed ops. */
static int
window_attrs(onnx_ctx *cx, const Onnx__NodeProto *np, ir_node *n)
{
    const char *ap;
    if (copy_ints(cx, np, n, "kernel_shape", 1) < 0 || copy_ints(cx, np, n, "strides", 1) < 0 ||
        copy_ints(cx, np, n, "dilations", 1) < 0 || copy_ints(cx, np, n, "pads", 0) < 0 ||
        onnx_attr_string(cx, np, "auto_pad", "NOTSET", &ap) < 0)
        return -1;
    if (strcmp(ap, "NOTSET") != 0 && strcmp(ap, "SAME_UPPER") != 0 &&
        strcmp(ap, "SAME_LOWER") != 0 && strcmp(ap, "VALID") != 0) {
        onnx_err(cx,
                 "attribute 'auto_pad' is \"%s\"; expected NOTSET, SAME_UPPER, SAME_LOWER "
                 "or VALID",
                 ap);
        return -1;
    }
    if (strcmp(ap, "NOTSET") != 0 && onnx_attr_find(np, "pads")) {
        onnx_err(cx,
                 "attributes 'auto_pad' (\"%s\") and 'pads' are both given; ONNX allows "
                 "one of them",
                 ap);
        return -1;
    }
    ir_attr_set_string(cx->g, n, "auto_pad", ap);
    return 0;
}

int
onnx_import_conv(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_op op = ir_op_from_name(np->op_type);
    ir_node *n = onnx_node_new(cx, np, op, onnx_arity_of(op));
    int64_t group;
    if (!n)
        return -1;
    if (window_attrs(cx, np, n) < 0 || onnx_attr_int(cx, np, "group", 1, &group) < 0)
        return -1;
    if (group < 1) {
        onnx_err(cx, "attribute 'group' is %lld; expected at least 1", (long long)group);
        return -1;
    }
    ir_attr_set_int(cx->g, n, "group", group);
    if (op == IR_OP_CONV_TRANSPOSE && (copy_ints(cx, np, n, "output_padding", 0) < 0 ||
                                       copy_ints(cx, np, n, "output_shape", 0) < 0))
        return -1;
    return 0;
}

int
onnx_import_pool(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_op op = ir_op_from_name(np->op_type);
    onnx_arity ar = onnx_arity_of(op);
    ir_node *n;
    int64_t so;
    if (op == IR_OP_MAX_POOL && np->n_output > 1 && np->output[1][0]) {
        onnx_err(cx,
                 "output 'Indices' ('%s') is not supported: lstmc computes MaxPool's "
                 "values only",
                 np->output[1]);
        return -1;
    }
    if (!(n = onnx_node_new(cx, np, op, ar)))
        return -1;
    if (op == IR_OP_GLOBAL_AVERAGE_POOL || op == IR_OP_GLOBAL_MAX_POOL)
        return 0;
    if (window_attrs(cx, np, n) < 0 || onnx_attr_flag(cx, np, n, "ceil_mode", 0) < 0)
        return -1;
    if (!onnx_attr_find(np, "kernel_shape")) {
        onnx_err(cx, "attribute 'kernel_shape' is required");
        return -1;
    }
    if (op == IR_OP_AVERAGE_POOL)
        return onnx_attr_flag(cx, np, n, "count_include_pad", 0);
    if (onnx_attr_int(cx, np, "storage_order", 0, &so) < 0)
        return -1;
    if (so != 0 && so != 1) {
        onnx_err(cx, "attribute 'storage_order' is %lld; expected 0 or 1", (long long)so);
        return -1;
    }
    return 0;
}

int
onnx_import_batch_norm(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    onnx_arity ar = onnx_arity_of(IR_OP_BATCH_NORM);
    ir_node *n;
    int64_t v;
    float eps;
    size_t k;
    if (onnx_attr_int(cx, np, "training_mode", 0, &v) < 0)
        return -1;
    if (v != 0) {
        onnx_err(cx,
                 "attribute 'training_mode' is %lld: lstmc compiles BatchNormalization's "
                 "inference form only (export the model in eval mode)",
                 (long long)v);
        return -1;
    }
    if (onnx_attr_int(cx, np, "spatial", 1, &v) < 0)
        return -1;
    if (v != 1) {
        onnx_err(cx,
                 "attribute 'spatial' is %lld; only spatial = 1 (one mean and variance per "
                 "channel) is supported",
                 (long long)v);
        return -1;
    }
    for (k = 1; k < np->n_output; k++) {
        static const char *const names[] = {"running_mean", "running_var", "saved_mean",
                                            "saved_var"};
        if (np->output[k][0]) {
            onnx_err(cx,
                     "output '%s' ('%s') is a training output; lstmc compiles "
                     "BatchNormalization's inference form only (export in eval mode)",
                     k - 1 < 4 ? names[k - 1] : "?", np->output[k]);
            return -1;
        }
    }
    if (!(n = onnx_node_new(cx, np, IR_OP_BATCH_NORM, ar)))
        return -1;
    n->n_outputs = 1; /* the training outputs are absent (checked above) */
    if (onnx_attr_float(cx, np, "epsilon", 1e-5f, &eps) < 0)
        return -1;
    if (!(eps >= 0.0f)) {
        onnx_err(cx, "attribute 'epsilon' is %g; expected >= 0", (double)eps);
        return -1;
    }
    ir_attr_set_float(cx->g, n, "epsilon", eps);
    return 0;
}
