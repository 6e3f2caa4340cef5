/*
 * shape_impl.h — what the shape-inference files share (private to compiler/core/shape/).
 *
 *   shape.c          helpers (messages, dtype/rank checks, constant ints, folding) and the
 *                    dispatch table indexed by ir_op (ORDER IR_OP)
 *   shape_rnn.c      LSTM, GRU, RNN
 *   shape_linalg.c   Gemm, MatMul
 *   shape_eltwise.c  Add/Sub/Mul/Div, unary ops, Softmax, ArgMax, Cast
 *   shape_layout.c   Gather, Transpose, Squeeze, Unsqueeze, Slice, Shape, Concat, Reshape,
 *                    Flatten, Expand, ConstantOfShape
 *   shape_elt.c      Where, comparisons, And/Or/Not, Pow, Reciprocal, Log, Abs, Clip,
 *                    LeakyRelu, HardSigmoid, HardSwish, Erf, Tile, Range, CumSum
 *   shape_red.c      ReduceMean/Sum/Max/Min/L2, LayerNormalization, Pad, Split, TopK,
 *                    ScatterElements
 *   shape_conv.c     Conv, ConvTranspose, the pools, BatchNormalization (issue 20)
 *
 * Adding an op: a rule in the file of its class, its prototype below, a row in shape.c's
 * shape_table.
 */
#ifndef LSTMC_SHAPE_IMPL_H
#define LSTMC_SHAPE_IMPL_H

#include "ir.h"
#include "shape.h"

#include <stdint.h>

/* Integer results up to this many elements are computed at compile time (shape maths). */
#define FOLD_MAX 4096

/* dtype masks for shape_need_dtype */
#define M_F32  (1u << IR_DT_F32)
#define M_I64  (1u << IR_DT_I64)
#define M_I32  (1u << IR_DT_I32)
#define M_BOOL (1u << IR_DT_BOOL)
#define M_INT  (M_I64 | M_I32)
#define M_NUM  (M_F32 | M_INT)
#define M_ANY  (M_NUM | M_BOOL)

/* shape.c: helpers */

/* ONNX name of n's input slot i, for messages. */
const char *shape_iname(const ir_node *n, int i);
/* shape_fmt into a ring of static buffers (4), for messages with several shapes. */
const char *shape_str(const ir_shape *s);
/* "[1,2,3]" into a ring of static buffers (2). */
const char *shape_ints_str(const int64_t *v, int n);
/* A zeroed shape of the given rank. */
ir_shape shape_make(int rank);
/* 1 when a and b have the same rank and dims. */
int shape_same_dims(const ir_shape *a, const ir_shape *b);
/* Element count of a concrete shape, or -1 when it exceeds IR_MAX_ELEMS. */
int64_t shape_numel(const ir_shape *s);
/* Set output i (when present) to dtype dt and shape s; checks the element count. */
int shape_set_out(ir_node *n, int i, ir_dtype dt, const ir_shape *s, diag *d);
/* Input i (when present) must have a dtype in mask (M_*); want names them in the message. */
int shape_need_dtype(ir_node *n, int i, unsigned mask, const char *want, diag *d);
/* Input i (when present) must have the given rank. */
int shape_need_rank(ir_node *n, int i, int rank, const char *what, diag *d);
/* Inputs i and j (when present) must have the same dtype. */
int shape_same_dtype(ir_node *n, int i, int j, diag *d);
/* Normalise axis a for rank r into [0, r) (or [0, r] with inclusive). */
int shape_norm_axis(ir_node *n, const char *what, int64_t a, int r, int inclusive, int *out,
                    diag *d);
/* Element k of an integer or bool constant, as int64. */
int64_t shape_elem_i64(const ir_tensor *t, int64_t k);
/* Store v as element k of an integer or bool tensor. */
void shape_put_i64(ir_tensor *t, int64_t k, int64_t v);
/* Read constant input i as up to max integers (int64 or int32, rank 0 or 1). Reports when
 * the input is not constant. Returns the count, or -1. */
int shape_const_ints(ir_node *n, int i, int64_t *v, int max, diag *d);

/* Every present input from..n_inputs-1 of n must be a constant (shape operands): reports
 * all of those that are not in one message ("inputs 'starts', 'ends' must be constants").
 * Returns 0, or -1 after reporting. */
int shape_need_consts(ir_node *n, int from, diag *d);
/* 1 when the output should get constant data: every present input is a constant of an
 * integer dtype (or `any_dtype`), and the output is small. */
int shape_foldable(const ir_node *n, int any_dtype);
/* Allocate o's data in g's arena (numel × dtype size) and return it. */
void *shape_out_data(ir_graph *g, ir_tensor *o);
/* Output 0 takes input 0's data unchanged (Identity, Reshape, Squeeze, Unsqueeze,
 * Flatten: same elements in the same order). */
void shape_fold_copy(ir_graph *g, ir_node *n);
/* Flat index into `in` (broadcast to `out`) of flat output index k. */
int64_t shape_bcast_index(const ir_shape *out, const ir_shape *in, int64_t k);

/* The rules: set n's outputs from its inputs (shape.h, shape_infer_node). */

/* shape_rnn.c */
int shape_infer_rnn(ir_graph *g, ir_node *n, diag *d);

/* shape_linalg.c */
int shape_infer_gemm(ir_graph *g, ir_node *n, diag *d);
int shape_infer_matmul(ir_graph *g, ir_node *n, diag *d);

/* shape_eltwise.c */
int shape_infer_binary(ir_graph *g, ir_node *n, diag *d);
int shape_infer_unary(ir_graph *g, ir_node *n, diag *d);
int shape_infer_softmax(ir_graph *g, ir_node *n, diag *d);
int shape_infer_argmax(ir_graph *g, ir_node *n, diag *d);
int shape_infer_cast(ir_graph *g, ir_node *n, diag *d);
int shape_infer_quant(ir_graph *g, ir_node *n, diag *d); /* issue 22 */

/* shape_layout.c */
int shape_infer_gather(ir_graph *g, ir_node *n, diag *d);
int shape_infer_transpose(ir_graph *g, ir_node *n, diag *d);
int shape_infer_squeeze(ir_graph *g, ir_node *n, diag *d);
int shape_infer_unsqueeze(ir_graph *g, ir_node *n, diag *d);
int shape_infer_slice(ir_graph *g, ir_node *n, diag *d);
int shape_infer_shape(ir_graph *g, ir_node *n, diag *d);
int shape_infer_size(ir_graph *g, ir_node *n, diag *d);
int shape_infer_concat(ir_graph *g, ir_node *n, diag *d);
int shape_infer_reshape(ir_graph *g, ir_node *n, diag *d);
int shape_infer_flatten(ir_graph *g, ir_node *n, diag *d);
int shape_infer_expand(ir_graph *g, ir_node *n, diag *d);
int shape_infer_constant_of_shape(ir_graph *g, ir_node *n, diag *d);

/* shape_elt.c (issue 20, elt) */
int shape_infer_elt_binary(ir_graph *g, ir_node *n, diag *d);
int shape_infer_elt_unary(ir_graph *g, ir_node *n, diag *d);
int shape_infer_tile(ir_graph *g, ir_node *n, diag *d);
int shape_infer_range(ir_graph *g, ir_node *n, diag *d);
int shape_infer_cumsum(ir_graph *g, ir_node *n, diag *d);
/* shape_red.c (issue 20, red) */
int shape_infer_reduce(ir_graph *g, ir_node *n, diag *d);
int shape_infer_layernorm(ir_graph *g, ir_node *n, diag *d);
int shape_infer_instance_norm(ir_graph *g, ir_node *n, diag *d);
int shape_infer_pad(ir_graph *g, ir_node *n, diag *d);
int shape_infer_split(ir_graph *g, ir_node *n, diag *d);
int shape_infer_topk(ir_graph *g, ir_node *n, diag *d);
int shape_infer_scatter_elements(ir_graph *g, ir_node *n, diag *d);
/* shape_conv.c (issue 20, conv) */
int shape_infer_conv(ir_graph *g, ir_node *n, diag *d);
int shape_infer_batch_norm(ir_graph *g, ir_node *n, diag *d);

#endif /* LSTMC_SHAPE_IMPL_H */
