/*
 * onnx.h — the ONNX frontend: ModelProto file → ir_graph.
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder uses only
 * compiler/core, compiler/formats and the protobuf-c code.
 */
#ifndef LSTMC_ONNX_H
#define LSTMC_ONNX_H

#include <stddef.h>

typedef struct arena arena;
typedef struct diag diag;
typedef struct ir_graph ir_graph;

/*
 * Read the ONNX model at `path` and build its IR graph in arena a.
 *
 * The graph holds the graph inputs (initializers excluded) with their dtypes and shapes as
 * declared (dim_param dims stay symbolic, named), the initializers and Constant nodes as
 * constant tensors, one IR node per remaining ONNX node with its attributes normalised onto
 * the newest opset (see compiler/core/ir_ops.def), and the graph outputs; nodes are sorted
 * topologically. Shapes of node outputs are not inferred here (compiler/core/shape/shape.c does that
 * once symbolic dims are bound).
 *
 * Everything wrong with the file is reported through d, as many problems as one pass can
 * find (every unsupported operator, every bad initializer); then NULL is returned. The
 * file is read in full, but never more than its real size, and decoding memory is capped
 * relative to it. Everything returned lives in a.
 */
ir_graph *onnx_import(const char *path, arena *a, diag *d);

/*
 * Issue 20: the part of a model whose only problems are unsupported operators that does
 * not wait on them, so the driver can say whether the rest would compile. The nodes that
 * read a refused node's result (directly or not) are dropped; the graph outputs are those
 * left plus every tensor a dropped or refused node reads. NULL when nothing was refused or
 * something else was (d then holds the import's messages; pass a quiet diag).
 */
ir_graph *onnx_import_rest(const char *path, arena *a, diag *d);

/*
 * The same for a model already in memory: data[size] (borrowed; copied into a) is decoded
 * as onnx_import decodes a file's bytes. `name` stands for the file in messages, and its
 * folder is where external data is looked for.
 */
ir_graph *onnx_import_buffer(const void *data, size_t size, const char *name, arena *a, diag *d);

#endif /* LSTMC_ONNX_H */
