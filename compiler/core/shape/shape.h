/*
 * shape.h — dtype and shape inference per IR op, and shape helpers.
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder uses only
 * compiler/core and the runtime's headers.
 */
#ifndef LSTMC_SHAPE_H
#define LSTMC_SHAPE_H

#include <stddef.h>
#include <stdint.h>

typedef struct diag diag;
typedef struct ir_graph ir_graph;
typedef struct ir_node ir_node;
typedef struct ir_shape ir_shape;

/*
 * Set the dtype and shape of every present output of n from its inputs, checking
 * everything a bad model can get wrong (ranks, dims, dtypes, attribute ranges, constant
 * inputs that shape-computing ops read). Every present input must have a dtype and a
 * concrete shape: the driver binds symbolic dims to numbers before inference.
 *
 * Side effects, all in g's arena: Transpose without "perm" gets the default (reversed)
 * perm; integer shape arithmetic (Shape, and Gather, Unsqueeze, Squeeze, Concat, Slice,
 * Cast, Reshape, Identity, Add, Sub, Mul on small int constants) also fills the output's
 * data when every input is constant, so Shape → Gather → Concat → Reshape chains give
 * Reshape a constant shape. The node stays; passes may fold it.
 *
 * Errors go through diag_node and name the input by its ONNX name (input 'W' ...). Returns
 * 0, or -1 after reporting.
 */
int shape_infer_node(ir_graph *g, ir_node *n, diag *d);

/*
 * numpy broadcasting of a and b into out (rank max of both). Unknown dims broadcast with 1
 * and with an unknown dim of the same symbol; otherwise give an unknown dim. Returns 0, or
 * -1 when a and b are incompatible (out is then unspecified). out may alias a or b.
 */
int shape_broadcast(const ir_shape *a, const ir_shape *b, ir_shape *out);

/*
 * Write s as "[1,16,3]" into buf (n bytes, always NUL-terminated when n > 0): symbolic
 * dims by their name, unknown dims as "?", an unknown rank as "?", rank 0 as "[]".
 * Returns the length the full text has (as snprintf).
 */
int shape_fmt(const ir_shape *s, char *buf, size_t n);

/* ONNX name of input slot i of op ("W" for LSTM's slot 1), or "input" when the op has no
 * name for it (variadic inputs). */
const char *shape_input_name(int op, int i);

/* --- issue 20, red: the operands of Reduce*, LayerNormalization, Pad, Split (shape_red.c),
 * read once more by the lowering (compiler/kprog/lower.c). Each reports through d (when
 * non-NULL) and returns -1 on a bad node; the shape rule has already checked it. */

/* red[i] = 1 for each reduced axis of a rank-r input of a Reduce* node; the count. */
int shape_reduce_axes(ir_node *n, int r, int *red, diag *d);
/* Scale (i = 1) or B (i = 2) of a LayerNormalization over axes [axis, rank): 1 when it
 * holds one value per normalized element, 0 for one value (or absent). */
int shape_layernorm_param(ir_node *n, int i, int axis, diag *d);
/* Pad's begin[i] / end[i] per axis of a rank-r input. Returns 0. */
int shape_pad_amounts(ir_node *n, int r, int64_t *begin, int64_t *end, diag *d);
/* The size of each of Split's n->n_outputs outputs along an axis of dim elements. */
int shape_split_sizes(ir_node *n, int64_t dim, int64_t *sz, diag *d);
/*
 * The window geometry of a Conv, ConvTranspose, MaxPool, AveragePool, GlobalAveragePool or
 * GlobalMaxPool node with its input shapes known (shape_conv.c): ONNX's kernel_shape,
 * strides, dilations, pads, auto_pad, ceil_mode, group, output_padding and output_shape
 * resolved into numbers. Axes beyond nsp hold 1 (sizes, strides) and 0 (pads). Shape
 * inference and the lowering both read it. Returns 0, or -1 after reporting through d.
 */
typedef struct shape_conv_geom {
    int nsp;                       /* spatial axes: 1 (input [N, C, L]) or 2 ([N, C, H, W]) */
    int64_t n, c_in, c_out, group; /* batch, channels, groups (1 for pools) */
    int64_t in[2], out[2];         /* spatial sizes */
    int64_t k[2], stride[2], dil[2];
    int64_t pad_b[2], pad_e[2];    /* padding at the beginning and the end of each axis */
} shape_conv_geom;

int shape_conv_geom_of(const ir_node *n, shape_conv_geom *cg, diag *d);

#endif /* LSTMC_SHAPE_H */
