/*
 * onnx_impl.h — what the ONNX frontend's files share (private to frontends/onnx/).
 *
 *   onnx_import.c  ModelProto walk: file, opset, initializers, graph inputs/outputs
 *   onnx_ops.c     importer per IR op; node/tensor plumbing for the importers
 *   onnx_rnn.c     LSTM, GRU, RNN
 *   onnx_misc.c    every other op (older opset forms rewritten onto the newest)
 *   onnx_red.c     Reduce*, LayerNormalization, Pad, Split, TopK, ScatterElements
 *   onnx_conv.c    Conv, ConvTranspose, the pools, BatchNormalization (issue 20)
 *   onnx_attr.c    typed attribute getters
 *
 * Adding an op: a row in ir_ops.def (name, class, arity, input names), an importer in
 * onnx_misc.c (or its own file), a row in onnx_ops.c's table, a shape rule in
 * compiler/core/shape/shape.c, a test in tests/unit/test_onnx.c.
 */
#ifndef LSTMC_ONNX_IMPL_H
#define LSTMC_ONNX_IMPL_H

#include "ir.h"
#include "onnx/onnx.pb-c.h"

#include <stdint.h>

/* State of one import. The node fields name the node being imported, for messages. */
typedef struct onnx_ctx {
    ir_graph *g;
    arena *a;
    arena *scratch; /* the decoded file and external data: freed after the import */
    diag *d;
    int opset;           /* default-domain opset */
    const char *dir;     /* the model's folder: external data paths are relative to it */
    const char *node;    /* name of the node being imported (generated when empty) */
    const char *op_type; /* its op_type */
    long unnamed;        /* its index in the node list when the model gave it no name (the
                            name is then invented; messages say "Op node #K (unnamed)"), or -1 */
    int n_unsupported;   /* nodes refused for their op type (issue 20: the summary says
                            whether they are the only obstacle) */
} onnx_ctx;

/* An importer: turns one ONNX node into IR (nodes, constants). Reports through cx and
 * returns -1 on a bad node, 0 otherwise. */
typedef int (*onnx_importer)(onnx_ctx *cx, const Onnx__NodeProto *np);

/* Input/output counts an op accepts. max_in -1: variadic (as many slots as given). */
typedef struct onnx_arity {
    int min_in, max_in;
    int min_out, max_out;
} onnx_arity;

/* --- onnx_ops.c ------------------------------------------------------------------- */

/* The importer for a default-domain op_type, or NULL when lstmc does not support it. */
onnx_importer onnx_op_find(const char *op_type);

/* The counts op accepts at its newest opset, from ir_ops.def. An importer of an older
 * opset form adjusts them. */
onnx_arity onnx_arity_of(ir_op op);

/* Report an error about the current node: "node 'x' (Op): <message>". */
void onnx_err(onnx_ctx *cx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * A new IR node for np with the slot counts of ar: max_in input slots (np's count for a
 * variadic op) and max_out output slots, absent ones NULL. Inputs are looked up by name
 * (a name not seen yet gets a placeholder tensor that a later node must produce); outputs
 * get fresh tensors of unknown dtype and shape. Checks the counts (and that the first
 * min_in inputs are present) and that no output is produced twice. Reports and returns
 * NULL on error.
 */
ir_node *onnx_node_new(onnx_ctx *cx, const Onnx__NodeProto *np, ir_op op, onnx_arity ar);

/* The tensor named `name`, or a new placeholder of unknown dtype and shape. */
ir_tensor *onnx_tensor_ref(onnx_ctx *cx, const char *name);

/* A constant int64 tensor [n] for a rewritten attribute (Squeeze axes, Slice starts...). */
ir_tensor *onnx_const_i64(onnx_ctx *cx, const char *hint, const int64_t *v, int n);

/* --- onnx_import.c ---------------------------------------------------------------- */

/*
 * Convert a TensorProto (initializer, Constant value, ConstantOfShape value) to an IR
 * tensor with its data. in_graph: registered in cx->g under `name` (an error when taken);
 * else a loose tensor in the arena (for IR_ATTR_TENSOR). Errors name the tensor ("tensor
 * 'W': ..."), within the current node when there is one. Returns NULL on error.
 */
ir_tensor *onnx_tensor_read(onnx_ctx *cx, const Onnx__TensorProto *tp, const char *name,
                            int in_graph);

/* ONNX TensorProto.DataType code → ir_dtype (IR_DT_UNDEF when unsupported); its name. */
ir_dtype onnx_dtype(int32_t code);
const char *onnx_dtype_name(int32_t code);

/* --- onnx_attr.c ------------------------------------------------------------------ */

/*
 * Typed attribute getters. Each returns 1 when the attribute is present (and stores it),
 * 0 when absent (scalar getters store dflt; list getters store NULL and 0), and -1 when it
 * has another type, after reporting "attribute 'x' has type FLOAT; expected INT" for the
 * current node. Strings are copied into the arena, NUL-terminated.
 */
const Onnx__AttributeProto *onnx_attr_find(const Onnx__NodeProto *np, const char *name);
int onnx_attr_int(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, int64_t dflt,
                  int64_t *v);
int onnx_attr_float(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, float dflt,
                    float *v);
int onnx_attr_string(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, const char *dflt,
                     const char **v);
int onnx_attr_ints(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, const int64_t **v,
                   int *n);
int onnx_attr_floats(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, const float **v,
                     int *n);
int onnx_attr_strings(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, const char ***v,
                      int *n);
/* An INT attribute with a default, set on n. */
int onnx_attr_copy_int(onnx_ctx *cx, const Onnx__NodeProto *np, ir_node *n, const char *name,
                       int64_t dflt);
/* An INT attribute that must be 0 or 1 (default dflt), set on n. */
int onnx_attr_flag(onnx_ctx *cx, const Onnx__NodeProto *np, ir_node *n, const char *name,
                   int64_t dflt);
int onnx_attr_tensor(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name,
                     const Onnx__TensorProto **v);

/* --- importers (onnx_rnn.c, onnx_misc.c) ------------------------------------------ */

int onnx_import_lstm(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_gru(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_rnn(onnx_ctx *cx, const Onnx__NodeProto *np);

int onnx_import_constant(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_dequantize(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_quantize(onnx_ctx *cx, const Onnx__NodeProto *np); /* issue 22 */
int onnx_import_gemm(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_matmul(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_binary(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_unary(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_softmax(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_argmax(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_cast(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_gather(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_transpose(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_squeeze(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_slice(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_shape(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_concat(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_reshape(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_flatten(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_expand(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_constant_of_shape(onnx_ctx *cx, const Onnx__NodeProto *np);

/* onnx_hints.c (issue 20, elt): the PyTorch construct that usually produced op_type
 * ("tensor.repeat" for Tile), or NULL when the table has none. */
const char *onnx_pytorch_hint(const char *op_type);
/* For an ONNX Runtime operator (domain com.microsoft) its quantisers write: where it came from
 * and what to give lstmc instead; NULL for any other op. */
const char *onnx_ort_domain_hint(const char *op_type);

/* onnx_elt.c (issue 20, elt) */
int onnx_import_leaky_relu(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_prelu(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_instance_norm(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_minmax(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_elu(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_selu(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_hard_sigmoid(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_clip(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_cumsum(onnx_ctx *cx, const Onnx__NodeProto *np);
/* onnx_red.c (issue 20, red) */
int onnx_import_reduce(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_layernorm(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_pad(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_split(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_topk(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_scatter_elements(onnx_ctx *cx, const Onnx__NodeProto *np);
/* onnx_conv.c (issue 20, conv) */
int onnx_import_conv(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_pool(onnx_ctx *cx, const Onnx__NodeProto *np);
int onnx_import_batch_norm(onnx_ctx *cx, const Onnx__NodeProto *np);

#endif /* LSTMC_ONNX_IMPL_H */
