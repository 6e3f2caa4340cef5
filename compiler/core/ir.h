/*
 * ir.h — lstmc's graph IR: tensors, nodes, attributes, the graph.
 *
 * A small typed dataflow graph close to ONNX: ops from ir_ops.def with ONNX semantics at
 * their newest opset, tensors with a dtype, a shape whose dims may be symbolic (sequence
 * length, batch) until bound, and constant data for weights and folded values.
 *
 * Ownership: everything hangs off the graph's arena (g->a). Nodes are unlinked (dead = 1),
 * never freed singly. Optional inputs/outputs that are absent are NULL entries.
 * Order: g->nodes is kept in topological order once ir_toposort() has run.
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder (compiler/core)
 * uses only itself and the runtime's headers (runtime/include).
 */
#ifndef LSTMC_IR_H
#define LSTMC_IR_H

#include <stddef.h>
#include <stdint.h>

typedef struct arena arena;
typedef struct diag diag;

/* --- ops -------------------------------------------------------------------------- */

typedef enum ir_op {
#define X(e, ...) e,
#include "ir_ops.def"
#undef X
    IR_OP_COUNT
} ir_op;

/* How the compiler groups ops (column 3 of ir_ops.def). */
typedef enum ir_op_class {
    IR_CLASS_RNN,      /* LSTM, GRU, RNN: the recurrent layers */
    IR_CLASS_RNN_PART, /* lstmc.Rnn*: the pieces passes cut a recurrent layer into */
    IR_CLASS_LINALG,   /* Gemm, MatMul: contractions */
    IR_CLASS_BINARY,   /* element-wise with two broadcast inputs */
    IR_CLASS_UNARY,    /* element-wise with one input: out[i] depends on in[i] only */
    IR_CLASS_NORM,     /* Softmax, LogSoftmax: normalise along one axis */
    IR_CLASS_REDUCE,   /* ArgMax: reduce along one axis */
    IR_CLASS_LAYOUT,   /* move, select or join elements; no arithmetic */
    IR_CLASS_SHAPE,    /* read a shape or make a tensor from one */
    IR_CLASS_SPATIAL,  /* Conv, ConvTranspose, pools, BatchNormalization: [N, C, spatial...]
                          tensors, channel axis 1 */
} ir_op_class;

/* The most input slots of any op (lstmc.RnnTissue's 11). */
#define IR_OP_MAX_INPUTS 11

/* ONNX name of an op ("LSTM"); "?" when out of range. */
const char *ir_op_name(ir_op op);

/* Op for an ONNX op_type in the default domain, or IR_OP_COUNT when unknown. */
ir_op ir_op_from_name(const char *s);

/* The class of a valid op. */
ir_op_class ir_op_class_of(ir_op op);

/* Input and output counts of a valid op (ir_ops.def): *min_in inputs must be present,
 * *max_in slots exist (-1: variadic); likewise for outputs. */
void ir_op_arity(ir_op op, int *min_in, int *max_in, int *min_out, int *max_out);

/* ONNX name of input i of op ("W"), or NULL when the table names none. */
const char *ir_op_input_name(ir_op op, int i);

/* --- dtypes and shapes ------------------------------------------------------------- */

/* Values match lstmc_rt_dtype. */
typedef enum ir_dtype {
    IR_DT_UNDEF = 0,
    IR_DT_F32 = 1,
    IR_DT_I64 = 2,
    IR_DT_I32 = 3,
    IR_DT_BOOL = 4,
    IR_DT_I8 = 5, /* the full-integer layers' activations (issue 22) */
    IR_DT_I16 = 6
} ir_dtype;

const char *ir_dtype_name(ir_dtype t); /* "f32", "i64", ... */
size_t ir_dtype_size(ir_dtype t);      /* 0 for IR_DT_UNDEF */

#define IR_MAX_RANK 8
/* Largest element count a tensor may have (2^31), so every size fits an int64 product
 * and a hostile shape is refused before anything is allocated for it. */
#define IR_MAX_ELEMS ((int64_t)1 << 31)

/* A shape. rank -1: unknown. d[i] >= 0: a known dim; d[i] < 0: unknown, and then sym[i]
 * may name it (ONNX dim_param, e.g. "seq") so that equal names bind to equal values. */
typedef struct ir_shape {
    int rank;
    int64_t d[IR_MAX_RANK];
    const char *sym[IR_MAX_RANK]; /* in the graph arena, or NULL */
} ir_shape;

/* 1 when rank >= 0 and every dim is known. */
int ir_shape_known(const ir_shape *s);

/* Product of dims (1 for rank 0); -1 when unknown; -2 when it exceeds IR_MAX_ELEMS. */
int64_t ir_shape_numel(const ir_shape *s);

/* --- tensors ----------------------------------------------------------------------- */

typedef struct ir_node ir_node;

typedef struct ir_tensor {
    int id;           /* index in g->tensors */
    const char *name; /* ONNX value name; unique in the graph */
    ir_dtype dtype;
    ir_shape shape;
    void *data;        /* constant data, numel * dtype size bytes, C order; NULL if not */
    ir_node *producer; /* NULL for graph inputs and constants */
    int is_input;      /* a graph input (not an initializer) */
    int is_output;     /* a graph output */
    int qsrc;          /* ONNX INT8/UINT8/INT16/UINT16 code of a constant imported from 8- or
                          16-bit data (held widened to i32); only DequantizeLinear (and a
                          Q/DQ's zero point) may read it. 0 otherwise */
    float io_scale;    /* > 0: an integer graph input or output of --io=int (issue 22): its
                          real value is (q - io_zero_point) * io_scale */
    int32_t io_zero_point;
} ir_tensor;

/* --- attributes -------------------------------------------------------------------- */

typedef enum ir_attr_kind {
    IR_ATTR_INT,
    IR_ATTR_FLOAT,
    IR_ATTR_STRING,
    IR_ATTR_INTS,
    IR_ATTR_FLOATS,
    IR_ATTR_STRINGS,
    IR_ATTR_TENSOR
} ir_attr_kind;

typedef struct ir_attr {
    const char *name;
    ir_attr_kind kind;
    int64_t i;
    float f;
    const char *s;
    int n; /* element count for INTS / FLOATS / STRINGS */
    int64_t *ints;
    float *floats;
    const char **strings;
    ir_tensor *t; /* IR_ATTR_TENSOR: a constant tensor not registered in the graph */
} ir_attr;

/* --- nodes ------------------------------------------------------------------------- */

struct ir_node {
    int id;
    ir_op op;
    const char *name;    /* ONNX node name, or a generated "OpType_<k>" when empty */
    int unnamed;         /* 1: the model gave the node no name, so name is invented and
                            messages say "OpType node #onnx_index (unnamed)" (ir_node_label) */
    int onnx_index;      /* index in the ONNX graph's node list; -1: made by a pass */
    const char *op_type; /* ONNX op_type as written in the model */
    int opset;           /* default-domain opset the model imports */
    int n_inputs;
    ir_tensor **inputs; /* NULL entries for absent optional inputs */
    int n_outputs;
    ir_tensor **outputs; /* NULL entries for absent optional outputs */
    int n_attrs;
    ir_attr *attrs;
    int dead; /* unlinked by a pass */
};

/* --- graph ------------------------------------------------------------------------- */

typedef struct ir_store ir_store; /* the constant bytes a graph and its clones share */

typedef struct ir_graph {
    arena *a;
    ir_store *store;    /* ir_data.c; shared with every clone */
    int retired;        /* ir_graph_retire: its constants may be freed by the next sweep */
    const char *name;   /* ONNX graph name */
    const char *file;   /* model path, for messages */
    int64_t file_bytes; /* the model file's size (the folding budget); 0 when not imported */
    int opset;          /* default-domain opset */
    int n_nodes, cap_nodes;
    ir_node **nodes;
    int n_tensors, cap_tensors;
    ir_tensor **tensors;
    int n_inputs, cap_inputs;
    ir_tensor **inputs; /* graph inputs in ONNX order (initializers excluded) */
    int n_outputs, cap_outputs;
    ir_tensor **outputs; /* graph outputs in ONNX order */
    size_t hcap;         /* name -> tensor hash (open addressing), private to ir.c */
    ir_tensor **htab;
    int tmp_counter;  /* for generated names */
    int weights_hint; /* wfmt the model's weights were stored in (float16 initializers,
                         int8 DequantizeLinear); LSTMC_RT_WFMT_FP32 for plain float models */
    /* the DequantizeLinear scales of 8-bit weights, so --weights=int8 can keep the model's
     * own grid (ir_qscale_add, ir_qscales: ascending and distinct once read) */
    int n_qscales, qscales_sorted;
    size_t cap_qscales;
    float *qscales;
} ir_graph;

/* A new empty graph in arena a. */
ir_graph *ir_graph_new(arena *a, const char *name, const char *file);
/* Note s, a DequantizeLinear scale of 8-bit weights (one per channel of a per-axis one). */
void ir_qscale_add(ir_graph *g, float s);
/* The scales noted, ascending and distinct; their count in *n. */
const float *ir_qscales(ir_graph *g, int *n);

/* A new tensor named `name` (copied). Returns NULL when the name is taken. */
ir_tensor *ir_tensor_new(ir_graph *g, const char *name, ir_dtype dt, const ir_shape *shape);

/* The tensor with this name, or NULL. */
ir_tensor *ir_tensor_find(const ir_graph *g, const char *name);

/* A tensor with a fresh unique name derived from `hint`. */
ir_tensor *ir_tensor_tmp(ir_graph *g, const char *hint, ir_dtype dt, const ir_shape *shape);

/* A constant tensor holding a copy of `data` (numel * dtype size bytes). */
ir_tensor *ir_const_new(ir_graph *g, const char *hint, ir_dtype dt, const ir_shape *shape,
                        const void *data);

/* A new node with n_in input and n_out output slots (all NULL), appended to g->nodes.
 * name NULL or "" gives a generated name. */
ir_node *ir_node_new(ir_graph *g, ir_op op, const char *name, const char *op_type, int n_in,
                     int n_out);

/* Set output slot i to t and make n its producer. */
void ir_node_set_output(ir_node *n, int i, ir_tensor *t);

/* n (made by a pass) stands for ONNX node `from`: messages place it there (its onnx_index,
 * and "(unnamed)" when the model left `from` unnamed). */
void ir_node_origin(ir_node *n, const ir_node *from);

/* Add a graph input / output. */
void ir_graph_add_input(ir_graph *g, ir_tensor *t);
void ir_graph_add_output(ir_graph *g, ir_tensor *t);

/* Attributes: add (the value is copied into the arena) and get. */
ir_attr *ir_attr_add(ir_graph *g, ir_node *n, const char *name, ir_attr_kind kind);
void ir_attr_set_int(ir_graph *g, ir_node *n, const char *name, int64_t v);
void ir_attr_set_float(ir_graph *g, ir_node *n, const char *name, float v);
void ir_attr_set_string(ir_graph *g, ir_node *n, const char *name, const char *v);
void ir_attr_set_ints(ir_graph *g, ir_node *n, const char *name, const int64_t *v, int count);
void ir_attr_set_floats(ir_graph *g, ir_node *n, const char *name, const float *v, int count);
void ir_attr_set_strings(ir_graph *g, ir_node *n, const char *name, const char *const *v,
                         int count);
const ir_attr *ir_attr_get(const ir_node *n, const char *name);
int64_t ir_attr_int(const ir_node *n, const char *name, int64_t dflt);
float ir_attr_float(const ir_node *n, const char *name, float dflt);
const char *ir_attr_string(const ir_node *n, const char *name, const char *dflt);

/* Input i if present, else NULL (also when i >= n_inputs). Same for outputs. */
ir_tensor *ir_in(const ir_node *n, int i);
ir_tensor *ir_out(const ir_node *n, int i);

/* Sort g->nodes topologically. On a cycle, reports every node on it through d (naming the
 * first) and returns -1. Also reports inputs that are produced by nothing, are no graph
 * input and hold no constant data ("input 'W' is not produced by any node, initializer
 * or graph input"). Returns 0 on success. */
int ir_toposort(ir_graph *g, diag *d);

/* Drop dead nodes from g->nodes, and nodes none of whose outputs reach a graph output. */
void ir_dce(ir_graph *g);

/*
 * A deep copy of g0 in a (ir_clone.c): the same tensors, nodes, ids, names and name counter,
 * constant data and attributes copied, so that one imported graph serves several compiles
 * (the whole-sequence and the streaming step program). g0 is not changed.
 */
ir_graph *ir_clone(arena *a, const ir_graph *g0);

/*
 * Constant bytes (ir_data.c). Constants of IR_DATA_BLOB_MIN bytes or more (the weights)
 * live in blobs (arena_blob) that a graph and its clones share instead of copying: ir_clone
 * copies the pointer and seals the blob read-only, so a stage that rewrites a constant's
 * bytes in place calls ir_data_mut first (a write to a sealed blob faults). Blobs no live
 * graph reads any more are freed by ir_data_sweep, which keeps lstmc's peak memory near one
 * copy of the weights per layout (issue 19).
 */
#define IR_DATA_BLOB_MIN ((size_t)64 << 10) /* LSTMC_BLOB_MIN (bytes) overrides it: tests */

/* Make g a graph of store s (ir_clone: the clone joins its source's store). */
void ir_data_join(ir_graph *g, ir_store *s);
size_t ir_data_store_size(void); /* ir_graph_new's zeroed store */

/* bytes zeroed and writable for a constant of g: a blob when big, else from g's arena. */
void *ir_data_alloc(ir_graph *g, size_t bytes);

/* t's bytes, writable: a copy replaces them first when they are shared (sealed). */
void *ir_data_mut(ir_graph *g, ir_tensor *t);

/* 1 when p is (inside) a blob of g's store, so that ir_clone shares it. */
int ir_data_is_blob(const ir_graph *g, const void *p);

/* Seal the blob of g's store holding p (ir_clone shares it); 0 when p is in no blob. */
int ir_data_share(const ir_graph *g, const void *p);

/* Take p, a blob of g's arena made outside ir_data_alloc (the importer's decoder), into
 * g's store. */
void ir_data_adopt(ir_graph *g, void *p);

/* g's stage will rewrite the blob at p in place and vouches that every other reader
 * follows (codegen.c: the step program takes the layout the whole-sequence kernels gave
 * the weights both read): p is unsealed, and what was derived from it or into it is
 * forgotten. 0 when p is no blob of g's store. */
int ir_data_own(ir_graph *g, const void *p);

/* A constant tensor over data (not copied; from ir_data_alloc or ir_data_derived). */
ir_tensor *ir_const_wrap(ir_graph *g, const char *hint, ir_dtype dt, const ir_shape *shape,
                         void *data);

/* Derived bytes: what a pure function `key` (a hash of its name and parameters,
 * ir_data_key) made of the bytes at src, made once for every graph of the store (the
 * whole-sequence and step programs pack and lay out the same weights alike). NULL when not
 * made yet; ir_data_derive records (and seals) a result. */
void *ir_data_derived(const ir_graph *g, const void *src, uint64_t key);
void ir_data_derive(ir_graph *g, const void *src, uint64_t key, void *result);
uint64_t ir_data_key(const char *what, const int64_t *v, int n);

/* g (an import that only served to clone) is no root any more: the next sweep may free the
 * constants only it reads, and clears their pointers in g. */
void ir_graph_retire(ir_graph *g);

/* Free every blob of g's store that no live node, input or output of a graph of the store
 * that is not retired reads, and no pointer in keep[n_keep] points into; tensors whose blob
 * is freed get data NULL. Returns the bytes freed. */
size_t ir_data_sweep(ir_graph *g, const void *const *keep, size_t n_keep);

/* Number of live nodes reading t. */
int ir_n_consumers(const ir_graph *g, const ir_tensor *t);

#endif /* LSTMC_IR_H */
