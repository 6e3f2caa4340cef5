/*
 * driver.h — the compiler pipeline, one call per stage (QBE main.c; driver.c reads it top to
 * bottom):
 *
 *   import → clone → bind dims → toposort → infer shapes + fold constants → dce → stream
 *   analysis → passes → lower → schedule → memplan → limits → step program → memory budget →
 *   codegen
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder
 * (compiler/driver) may use every folder but cli/ and tools/; it is the only place that
 * wires the stages.
 */
#ifndef LSTMC_DRIVER_H
#define LSTMC_DRIVER_H

#include "ir.h"
#include "lstmc_rt_npy.h"

#include <stddef.h>
#include <stdint.h>

typedef struct arena arena;
typedef struct diag diag;

#define DRIVER_MAX_BINDINGS 64

/* Default limits (--max-weights, --max-arena): a model whose weights or working memory
 * would exceed them is refused with a message rather than compiled. */
#define DRIVER_MAX_WEIGHTS ((int64_t)1 << 30)
#define DRIVER_MAX_ARENA   ((int64_t)1 << 30)

/* A value for a symbolic dim (--dim NAME=N), or a whole input shape (from a .npy). */
typedef struct driver_binding {
    const char *name; /* dim_param name, or graph input name for a shape */
    int64_t value;    /* dim bindings (for a range, its MAX) */
    int64_t min;      /* dim bindings: 0, or the MIN of --dim=SYM=MIN..MAX (issue 21; the
                         library then takes the dim's value per run, NAME_run_dims) */
    ir_shape shape;   /* input-shape bindings */
    int dtype;        /* input-shape bindings: ir_dtype of the data, 0 if unknown */
    const char *what; /* where the binding comes from, for messages ("x.npy") */
    int force;        /* input-shape bindings: replaces even dims the model fixes (the
                         streaming step program binds the time axis to 1) */
} driver_binding;

typedef struct driver_options {
    const char *model;       /* path of the ONNX file */
    const char *target;      /* built-in target name */
    const char *outdir;      /* where codegen writes */
    const char *name;        /* library name; NULL: derived from the model file name */
    const char *print_after; /* stage or pass name whose IR is printed to stdout, or NULL */
    const char *passes;      /* comma-separated pass list; NULL: the target's default */
    int n_disable;
    const char *disable[16]; /* passes to leave out (--disable-pass) */
    int time_passes;         /* print each pass's time to stderr */
    float alpha_inter;       /* --alpha-inter: breakpoint threshold (MICRO'18 §IV) */
    int has_alpha_inter;     /* given: the breakpoints pass runs */
    const char *calib;       /* --calib: CALIB file giving the breakpoints pass h_pred/c_pred */
    int relevance;           /* --relevance: lstmc_rt_relevance, 0 Algorithm 2's bound; the
                                others read --calib's um / ur */
    int max_sublayer;        /* --max-sublayer: the longest sub-layer, forced breakpoints */
    float alpha_intra;       /* --alpha-intra: dynamic row skip threshold (MICRO'18 §V) */
    int has_alpha_intra;     /* given: the drs pass runs */
    float alpha_inter_max;   /* --thresholds: the tuned range (lstmc tune), 0 = none */
    float alpha_intra_max;
    const char *hsparse; /* --hsparse: E-LSTM hidden-state sparsity thresholds, or NULL */
    const char *prune;   /* --prune: "W:F,U:F" magnitude pruning (passes/sparse.c), or NULL */
    const char *sparse;  /* --sparse: auto (NULL), auto:F, esell, off (passes/sparse.c) */
    int64_t max_weights; /* refuse more constant bytes than this; 0: DRIVER_MAX_WEIGHTS */
    int64_t max_arena;   /* refuse a bigger arena than this; 0: DRIVER_MAX_ARENA */
    int no_budget;       /* --no-budget: compile even when the model does not fit the
                            target's ram_bytes / flash_bytes (limits.c) */
    const char *weights_placement; /* --weights-placement: "const" (NULL), "blob", "pointer" */
    const char *emit;              /* CPU kernels: "c" (portable runtime) or "llvm"; NULL: llvm when
                                      this lstmc has LLVM, else c */
    const char *weights;           /* --weights: fp32|fp16|bf16|int8 (passes/lowp.h); NULL: the
                                      format the model's own weights were stored in */
    int activations;               /* --activations: 0 (float), 8 or 16: integer recurrent layers
                                      (issue 22, passes/qact.c) */
    const char *calib_data;        /* --calib-data: the samples their activation ranges come from */
    int io_int; /* --io=int: integer graph inputs and outputs (no float at all) */
    const struct pass_qrange *qranges; /* the ranges measured from calib_data (qrange.c) */
    int n_qranges;
    int threads;          /* --threads: threads of the LLVM LSTM layers; 0: the target's */
    double sph;           /* --sph: the hidden-state sparsity the elstm target plans for */
    int cpu_only;         /* no OpenCL side even for a target with a GPU (lstmc tune for
                             another machine: accuracy is the same on the host's C) */
    const char *parallel; /* --parallel: auto (NULL), split or wave (compiler/kprog/schedule.c) */
    int n_nofold;         /* issue 21: tensors whose producer prepare must not fold (their
                             values depend on a ranged dim, e.g. a Range up to the sequence
                             length): the node runs at run time with the run's sizes */
    const char *const *nofold;
    int n_dims;
    driver_binding dims[DRIVER_MAX_BINDINGS];
    int n_shapes;
    driver_binding shapes[DRIVER_MAX_BINDINGS];
} driver_options;

/* Import only (inspect). NULL after reporting through d. */
ir_graph *driver_import(arena *a, const char *model, diag *d);

/* After driver_import failed: when unsupported operators were its only refusals, prepare
 * and lower the part of the graph that does not read their results (dims from o) and say
 * through d whether it compiles (a note) or not (its errors). Issue 20. */
void driver_check_rest(arena *a, const driver_options *o, diag *d);

/*
 * Bind symbolic input dims from o (dims by name, whole shapes by input name), infer every
 * shape and fold every constant subgraph. Returns 0 or -1 after reporting through d.
 */
int driver_prepare(ir_graph *g, const driver_options *o, diag *d);

/* The axis of graph input `in` (of g, imported: shapes may be symbolic) that is the batch:
 * the one that reaches a recurrent layer's batch axis (LSTM/GRU/RNN: axis 1 of X, initial_h,
 * initial_c with layout 0, axis 0 with layout 1) through element-wise ops, Transpose,
 * Gather (embeddings), Unsqueeze/Squeeze, MatMul/Gemm, Slice, Concat, and axis 0 of the
 * convolutions, pools and BatchNormalization (batch.c). -1: none.
 * *rnn (may be NULL) receives the layer reached. */
int driver_batch_axis(const ir_graph *g, const ir_tensor *in, const ir_node **rnn);

/* The shape of one sample of data [K, dims[0..rank)] for graph input `in` of g (imported):
 * dims itself when the sample has the input's rank ([K, <input shape>]); with one dim fewer,
 * the sample is taken to lack the batch axis (driver_batch_axis), which is put back with
 * size 1 ([N, T, C] read as N samples [1, T, C], or [T, 1, C] for a seq-first model: the
 * same bytes). Returns 0, or -1 after reporting through d (what names the data). */
int driver_sample_shape(const ir_graph *g, const ir_tensor *in, const int64_t *dims, int rank,
                        const char *what, ir_shape *s, diag *d);

/* --activations (issue 22): the float ranges of every recurrent layer of the import g0 over
 * o->calib_data's samples (none without it). Returns 0 or -1 after reporting through d. */
struct pass_qrange;
int driver_qranges(arena *a, const ir_graph *g0, const driver_options *o, struct pass_qrange **out,
                   int *n_out, diag *d);

/* Bind g's one input to the shape of one sample of the stacked samples in path (info: its
 * header; [K, <input shape>] or [K, ...] without the batch axis): a binding appended to o.
 * lstmc calibrate, tune and --calib-data read their samples through it. 0, or -1 after
 * reporting through d. */
int driver_bind_samples(const ir_graph *g, driver_options *o, const lstmc_npy_info *info,
                        const char *path, diag *d);

/* --prune on a prepared graph (passes/sparse.c; the elstm target prunes before it encodes).
 * Returns 0 (also without --prune) or -1 after reporting through d. */
int driver_prune(ir_graph *g, const driver_options *o, diag *d);

/* Everything but codegen: import, prepare, the passes, lowering and the memory plan. On
 * success *gp, *kp and *mp describe the program (all in a) and 0 is returned; else -1
 * after reporting through d. */
typedef struct kprog kprog;
typedef struct memplan memplan;
int driver_lower(arena *a, const driver_options *o, ir_graph **gp, kprog *kp, memplan *mp, diag *d);

/* The whole pipeline: import o->model once, then driver_compile_graph. Returns 0, or -1
 * after reporting through d. */
int driver_compile(arena *a, const driver_options *o, diag *d);

/* The pipeline on a graph already imported (lstmc run reads the model once to check the
 * data against its inputs). g0 is not changed: each program is compiled from a copy. */
int driver_compile_graph(arena *a, const ir_graph *g0, const driver_options *o, diag *d);

/* Check the value of a pass option ("--hsparse", "--prune", "--sparse") as the passes will
 * read it (options.c): 0, or -1 with the message in err[0..n) (a usage error). */
int driver_check_option(const char *opt, const char *value, char *err, size_t n);

/* --relevance's values: "bound", "calibrated", "sensitivity" as lstmc_rt_relevance (-1 for
 * anything else), and back. */
int driver_relevance_parse(const char *v);
const char *driver_relevance_name(int relevance);

/* 1 when the host CPU's built-in kernel defaults leave out the software prefetch of weights
 * beyond L2 (cg_cpu_streams_without_prefetch: AMD Zen), for `lstmc profile --search`'s
 * defaults. */
int driver_host_streams_without_prefetch(void);
/* 1 when the host's kernels have the AVX-512 BF16 dot product (cg_host_bf16_dot). */
int driver_host_bf16_dot(void);
/* 1 when the host's full-integer layers run the AVX-512 VNNI kernel (cg_host_vnni). */
int driver_host_vnni(void);

/* A C identifier derived from a model path ("models/har-lstm.onnx" -> "har_lstm"). */
const char *driver_default_name(arena *a, const char *model);

#endif /* LSTMC_DRIVER_H */
