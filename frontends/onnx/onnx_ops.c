/*
 * onnx_ops.c — the table from ONNX op_type to importer, and the node plumbing importers
 * share: wiring inputs and outputs by name, constants for rewritten attributes.
 *
 * An op_type missing from the table is unsupported: onnx_import.c reports it and goes on,
 * so one run lists every unsupported node.
 */
#include "arena.h"
#include "diag.h"
#include "onnx_impl.h"
#include "shape.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The importer of each IR op, ORDER IR_OP; ir_ops.def names its op_type. The internal ops
 * (lstmc.Rnn*, lstmc.Quantize, lstmc.Dequantize) have none: no model may hold them. */
_Static_assert(IR_OP_COUNT == 97, "ORDER IR_OP: give the new op a row in importers");

static const onnx_importer importers[IR_OP_COUNT] = {
    [IR_OP_LSTM] = onnx_import_lstm,
    [IR_OP_GRU] = onnx_import_gru,
    [IR_OP_RNN] = onnx_import_rnn,
    [IR_OP_GEMM] = onnx_import_gemm,
    [IR_OP_MATMUL] = onnx_import_matmul,
    [IR_OP_ADD] = onnx_import_binary,
    [IR_OP_SUB] = onnx_import_binary,
    [IR_OP_MUL] = onnx_import_binary,
    [IR_OP_DIV] = onnx_import_binary,
    [IR_OP_RELU] = onnx_import_unary,
    [IR_OP_SIGMOID] = onnx_import_unary,
    [IR_OP_TANH] = onnx_import_unary,
    [IR_OP_NEG] = onnx_import_unary,
    [IR_OP_EXP] = onnx_import_unary,
    [IR_OP_SQRT] = onnx_import_unary,
    [IR_OP_SOFTMAX] = onnx_import_softmax,
    [IR_OP_LOG_SOFTMAX] = onnx_import_softmax,
    [IR_OP_ARGMAX] = onnx_import_argmax,
    [IR_OP_CAST] = onnx_import_cast,
    [IR_OP_GATHER] = onnx_import_gather,
    [IR_OP_TRANSPOSE] = onnx_import_transpose,
    [IR_OP_SQUEEZE] = onnx_import_squeeze,
    [IR_OP_UNSQUEEZE] = onnx_import_squeeze,
    [IR_OP_SLICE] = onnx_import_slice,
    [IR_OP_SHAPE] = onnx_import_shape,
    [IR_OP_CONCAT] = onnx_import_concat,
    [IR_OP_RESHAPE] = onnx_import_reshape,
    [IR_OP_FLATTEN] = onnx_import_flatten,
    [IR_OP_EXPAND] = onnx_import_expand,
    [IR_OP_CONSTANT_OF_SHAPE] = onnx_import_constant_of_shape,
    [IR_OP_IDENTITY] = onnx_import_unary,
    /* issue 20, elt */
    [IR_OP_WHERE] = onnx_import_unary,
    [IR_OP_EQUAL] = onnx_import_binary,
    [IR_OP_LESS] = onnx_import_binary,
    [IR_OP_GREATER] = onnx_import_binary,
    [IR_OP_LESS_OR_EQUAL] = onnx_import_binary,
    [IR_OP_GREATER_OR_EQUAL] = onnx_import_binary,
    [IR_OP_AND] = onnx_import_binary,
    [IR_OP_OR] = onnx_import_binary,
    [IR_OP_NOT] = onnx_import_unary,
    [IR_OP_POW] = onnx_import_binary,
    [IR_OP_RECIPROCAL] = onnx_import_unary,
    [IR_OP_LOG] = onnx_import_unary,
    [IR_OP_ABS] = onnx_import_unary,
    [IR_OP_CLIP] = onnx_import_clip,
    [IR_OP_LEAKY_RELU] = onnx_import_leaky_relu,
    [IR_OP_HARD_SIGMOID] = onnx_import_hard_sigmoid,
    [IR_OP_HARD_SWISH] = onnx_import_unary,
    [IR_OP_ERF] = onnx_import_unary,
    [IR_OP_TILE] = onnx_import_unary,
    [IR_OP_RANGE] = onnx_import_unary,
    [IR_OP_CUMSUM] = onnx_import_cumsum,
    /* issue 20, red (onnx_red.c) */
    [IR_OP_REDUCE_MEAN] = onnx_import_reduce,
    [IR_OP_REDUCE_SUM] = onnx_import_reduce,
    [IR_OP_REDUCE_MAX] = onnx_import_reduce,
    [IR_OP_REDUCE_MIN] = onnx_import_reduce,
    [IR_OP_REDUCE_L2] = onnx_import_reduce,
    [IR_OP_LAYER_NORM] = onnx_import_layernorm,
    [IR_OP_PAD] = onnx_import_pad,
    [IR_OP_SPLIT] = onnx_import_split,
    [IR_OP_TOPK] = onnx_import_topk,
    [IR_OP_SCATTER_ELEMENTS] = onnx_import_scatter_elements,
    /* issue 20, conv */
    [IR_OP_CONV] = onnx_import_conv,
    [IR_OP_CONV_TRANSPOSE] = onnx_import_conv,
    [IR_OP_BATCH_NORM] = onnx_import_batch_norm,
    [IR_OP_MAX_POOL] = onnx_import_pool,
    [IR_OP_AVERAGE_POOL] = onnx_import_pool,
    [IR_OP_GLOBAL_AVERAGE_POOL] = onnx_import_pool,
    [IR_OP_GLOBAL_MAX_POOL] = onnx_import_pool,
    [IR_OP_SIZE] = onnx_import_unary, /* a shape op: folded */
    /* issue 20, ops */
    [IR_OP_PRELU] = onnx_import_prelu,
    [IR_OP_MIN] = onnx_import_minmax,
    [IR_OP_MAX] = onnx_import_minmax,
    [IR_OP_FLOOR] = onnx_import_unary,
    [IR_OP_CEIL] = onnx_import_unary,
    [IR_OP_SIGN] = onnx_import_unary,
    [IR_OP_ROUND] = onnx_import_unary,
    [IR_OP_SOFTPLUS] = onnx_import_unary,
    [IR_OP_ELU] = onnx_import_elu,
    [IR_OP_SELU] = onnx_import_selu,
    [IR_OP_SIN] = onnx_import_unary,
    [IR_OP_COS] = onnx_import_unary,
    [IR_OP_ARGMIN] = onnx_import_argmax,
    [IR_OP_REDUCE_SUM_SQUARE] = onnx_import_reduce,
    [IR_OP_REDUCE_L1] = onnx_import_reduce,
    [IR_OP_REDUCE_PROD] = onnx_import_reduce,
    [IR_OP_REDUCE_LOG_SUM] = onnx_import_reduce,
    [IR_OP_REDUCE_LOG_SUM_EXP] = onnx_import_reduce,
    [IR_OP_INSTANCE_NORM] = onnx_import_instance_norm,
};

/* The ONNX-only ops the frontend folds away. */
static const struct {
    const char *op_type;
    onnx_importer fn;
} folded[] = {
    {"Constant", onnx_import_constant},           /* becomes a constant tensor, no IR op */
    {"DequantizeLinear", onnx_import_dequantize}, /* constants folded here; activations:
                                                     lstmc.Dequantize (issue 22) */
    {"QuantizeLinear", onnx_import_quantize},     /* lstmc.Quantize (issue 22) */
    {"Scatter", onnx_import_scatter_elements},    /* opsets 9-10: ScatterElements */
};

onnx_importer
onnx_op_find(const char *op_type)
{
    ir_op op = ir_op_from_name(op_type);
    size_t i;
    if (op < IR_OP_COUNT)
        return importers[op];
    for (i = 0; i < sizeof folded / sizeof folded[0]; i++)
        if (strcmp(folded[i].op_type, op_type) == 0)
            return folded[i].fn;
    return NULL;
}

onnx_arity
onnx_arity_of(ir_op op)
{
    onnx_arity ar;
    ir_op_arity(op, &ar.min_in, &ar.max_in, &ar.min_out, &ar.max_out);
    return ar;
}

void
onnx_err(onnx_ctx *cx, const char *fmt, ...)
{
    char body[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    if (cx->node)
        diag_at(cx->d, cx->node, cx->op_type, cx->unnamed, "%s", body);
    else
        diag_error(cx->d, "%s", body);
}

ir_tensor *
onnx_tensor_ref(onnx_ctx *cx, const char *name)
{
    ir_tensor *t = ir_tensor_find(cx->g, name);
    if (!t) {
        ir_shape s;
        memset(&s, 0, sizeof s);
        s.rank = -1;
        t = ir_tensor_new(cx->g, name, IR_DT_UNDEF, &s);
    }
    return t;
}

ir_tensor *
onnx_const_i64(onnx_ctx *cx, const char *hint, const int64_t *v, int n)
{
    ir_shape s;
    memset(&s, 0, sizeof s);
    s.rank = 1;
    s.d[0] = n;
    return ir_const_new(cx->g, arena_printf(cx->a, "%s_%s", cx->node, hint), IR_DT_I64, &s, v);
}

static int
present(const Onnx__NodeProto *np, size_t i)
{
    return i < np->n_input && np->input[i] && np->input[i][0];
}

ir_node *
onnx_node_new(onnx_ctx *cx, const Onnx__NodeProto *np, ir_op op, onnx_arity ar)
{
    int n_in = ar.max_in < 0 ? (int)np->n_input : ar.max_in;
    int errors = 0, i;
    ir_node *n;

    if (ar.max_in >= 0 && np->n_input > (size_t)ar.max_in) {
        onnx_err(cx, "has %zu inputs; %s takes at most %d", np->n_input, cx->op_type, ar.max_in);
        errors++;
    }
    if (np->n_output > (size_t)ar.max_out) {
        onnx_err(cx, "has %zu outputs; %s has at most %d", np->n_output, cx->op_type, ar.max_out);
        errors++;
    }
    for (i = 0; i < ar.min_in; i++) {
        if (!present(np, (size_t)i)) {
            onnx_err(cx, "input %d ('%s') is required but %s", i, shape_input_name(op, i),
                     (size_t)i < np->n_input ? "empty" : "missing");
            errors++;
        }
    }
    for (i = 0; i < ar.min_out; i++) {
        if ((size_t)i >= np->n_output || !np->output[i] || !np->output[i][0]) {
            onnx_err(cx, "output %d is required but %s", i,
                     (size_t)i < np->n_output ? "empty" : "missing");
            errors++;
        }
    }
    if (errors)
        return NULL;

    n = ir_node_new(cx->g, op, cx->node, cx->op_type, n_in, ar.max_out);
    n->opset = cx->opset;
    for (i = 0; i < n_in && (size_t)i < np->n_input; i++) {
        if (!present(np, (size_t)i))
            continue;
        n->inputs[i] = onnx_tensor_ref(cx, np->input[i]);
        if (n->inputs[i]->qsrc) {
            onnx_err(cx,
                     "input '%s' is %s; lstmc reads 8- and 16-bit tensors only through "
                     "DequantizeLinear (quantised weights)",
                     np->input[i], onnx_dtype_name(n->inputs[i]->qsrc));
            errors++;
        }
    }
    for (i = 0; i < ar.max_out && (size_t)i < np->n_output; i++) {
        const char *name = np->output[i];
        ir_tensor *t;
        if (!name || !name[0])
            continue;
        t = onnx_tensor_ref(cx, name);
        if (t->producer) {
            char label[480];
            onnx_err(cx, "output '%s' is also produced by %s", name,
                     ir_node_label(t->producer, label, sizeof label));
            errors++;
            continue;
        }
        if (t->data || t->is_input) {
            onnx_err(cx, "output '%s' is also %s", name,
                     t->is_input ? "a graph input" : "an initializer or Constant");
            errors++;
            continue;
        }
        ir_node_set_output(n, i, t);
    }
    if (errors) {
        n->dead = 1;
        return NULL;
    }
    return n;
}
