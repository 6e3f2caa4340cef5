/*
 * passes.h — the optimisation passes and the pass manager (TVM-style: the target chooses
 * an ordered list; each pass is one file and one row of pass_table.c).
 *
 * A pass takes a prepared graph (shapes inferred, constant subgraphs folded, nodes in
 * topological order) and rewrites it in place. It returns 0, or -1 after reporting through
 * d. After each pass the manager runs ir_verify() and stops on a broken invariant.
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder uses only core/,
 * formats/, target/ and the runtime's headers; never kprog, codegen, the driver, frontends
 * or tools.
 */
#ifndef LSTMC_PASSES_H
#define LSTMC_PASSES_H

typedef struct diag diag;
typedef struct ir_graph ir_graph;
typedef struct target target;

/* --- typed pass options (parsed once, by compiler/driver/options.c) ------------------ */

#define PASS_MAX_HSPARSE 64

/* --hsparse: E-LSTM hidden-state sparsity threshold per LSTM layer (one for all when n is
 * 1); n == 0: off. */
typedef struct pass_hsparse_opt {
    int n;
    float th[PASS_MAX_HSPARSE];
} pass_hsparse_opt;

/* --prune=W:F,U:F: the fraction of each matrix's smallest-magnitude weights set to 0, -1
 * for a matrix that is not pruned; on == 0: the pass does nothing. */
typedef struct pass_prune_opt {
    int on;
    double fw, fu;
} pass_prune_opt;

/* --sparse: eSELL storage of the packed weights. */
typedef enum pass_sparse_mode {
    PASS_SPARSE_AUTO = 0, /* where a matrix's zero fraction reaches min (the default) */
    PASS_SPARSE_OFF,      /* never */
    PASS_SPARSE_ESELL     /* every matrix it can store, and refuse the others */
} pass_sparse_mode;

typedef struct pass_sparse_opt {
    pass_sparse_mode mode;
    int has_min; /* auto:F given; otherwise the default depends on the kernels */
    double min;  /* auto:F */
} pass_sparse_opt;

/* --activations=int8|int16 (issue 22, passes/qact.c): the float ranges of one recurrent
 * layer, measured by the driver on the calibration samples (compiler/driver/qrange.c). */
typedef struct pass_qrange {
    const char *node;   /* the layer's node name */
    float x_min, x_max; /* its input X */
    float h_absmax;     /* max |h| over every step */
    float c_absmax;     /* LSTM: max |c| over every step */
} pass_qrange;

typedef struct pass_qact_opt {
    int bits;   /* 0: float activations; 8 or 16 */
    int int_io; /* --io=int: graph inputs and outputs in integers, and a Gemm after the layers */
    int n;
    const pass_qrange *r;
} pass_qact_opt;

typedef struct pass_ctx {
    const target *t;         /* the target profile */
    const char *print_after; /* print the IR after the pass of this name */
    int time_passes;         /* print each pass's wall time to stderr */
    const char *const *disable; /* passes to skip */
    int n_disable;
    float alpha_inter;          /* default breakpoint threshold for the breakpoints pass */
    const char *calib;          /* --calib: the CALIB file's path, for messages */
    int relevance;              /* --relevance: lstmc_rt_relevance (breakpoints.c) */
    int max_sublayer;           /* --max-sublayer: forced breakpoints (breakpoints.c), 0 none */
    const struct calib_table *calib_table; /* its contents (formats/calib.h), read once by
                                              the driver; NULL without --calib */
    float alpha_intra;          /* default dynamic row skip threshold for the drs pass */
    pass_hsparse_opt hsparse;   /* --hsparse thresholds (n == 0: none) */
    pass_prune_opt prune;       /* --prune fractions (.on == 0: none) */
    pass_sparse_opt sparse;     /* --sparse mode */
    int llvm_kernels;           /* the dense kernels are LLVM's (--emit=llvm): auto's default */
    int gpu;                    /* the backend runs the recurrent layers on a GPU (OpenCL) */
    const char *weights;        /* --weights: fp32|fp16|bf16|int8 (checked by the command
                                   line); NULL: the format the model's weights came in */
    pass_qact_opt qact;         /* --activations (issue 22) */
} pass_ctx;

typedef int (*pass_fn)(ir_graph *g, const pass_ctx *cx, diag *d);

typedef struct pass_info {
    const char *name;
    pass_fn fn;
    const char *summary;
} pass_info;

/* Every pass, terminated by a row whose name is NULL. */
extern const pass_info pass_table[];

/* The pass called name, or NULL. */
const pass_info *pass_find(const char *name);

/* An ordered list of passes, typed: names are resolved once, when the list is built. */
#define PASS_LIST_MAX 48

typedef struct pass_list {
    int n;
    const pass_info *p[PASS_LIST_MAX];
} pass_list;

/*
 * Append the comma-separated names of s (NULL or "" adds nothing) to l. Every unknown name
 * is reported, with the list of passes the table has. Returns 0 or -1.
 */
int pass_list_add(pass_list *l, const char *s, diag *d);

/*
 * Run l in order, skipping cx->disable (whose names are checked first). After each pass
 * the IR is verified, and printed when cx->print_after names it. Returns 0 or -1.
 */
int pass_run(ir_graph *g, const pass_list *l, const pass_ctx *cx, diag *d);

/* 1 when l holds the pass called name. */
int pass_list_has(const pass_list *l, const char *name);

/* pass_list_add + pass_run on the comma-separated list (tests and tools). */
int pass_run_list(ir_graph *g, const char *list, const pass_ctx *cx, diag *d);

/* --- the passes (one file each) ---------------------------------------------------- */

/* qact.c: LSTM / GRU / RNN -> lstmc.RnnQ in integers, Quantize / Dequantize around
 * (issue 22, docs/PRECISION.md). */
int pass_qact(ir_graph *g, const pass_ctx *cx, diag *d);

/* split_gates.c: G = [W | U] -> G1 input projection for all steps + G2 loop (Arm §IV). */
int pass_split_gates(ir_graph *g, const pass_ctx *cx, diag *d);

/* fold_constants.c: summed biases, packed weights, row sums D = sum|U| (MICRO'18 Alg. 2). */
int pass_fold_constants(ir_graph *g, const pass_ctx *cx, diag *d);

/* breakpoints.c: packed LSTM RnnRec -> lstmc.RnnTissue: breakpoints + tissues (MICRO'18 §IV). */
int pass_breakpoints(ir_graph *g, const pass_ctx *cx, diag *d);

/* drs.c: LSTM RnnRec -> lstmc.RnnDrs, U split into U_o and U_fic (MICRO'18 §V, Alg. 3). */
int pass_drs(ir_graph *g, const pass_ctx *cx, diag *d);
/* hsparse.c: LSTM RnnRec gets the E-LSTM hidden-state sparsity threshold (§4.4). */
int pass_hsparse(ir_graph *g, const pass_ctx *cx, diag *d);

/* sparse.c: magnitude pruning of W/U before split_gates (--prune, E-LSTM §3.1). */
int pass_prune(ir_graph *g, const pass_ctx *cx, diag *d);
/* sparse.c: packed W/U of RnnProj/RnnRec stored in eSELL for the SpMV kernel (§3.1). */
int pass_sparse(ir_graph *g, const pass_ctx *cx, diag *d);

/* lowp.c: weights in fp16/bf16/int8 storage (--weights, or the model's own precision). */
int pass_lowp(ir_graph *g, const pass_ctx *cx, diag *d);

/* dedup.c: equal constants merged into one tensor, all-zero initial_h / initial_c dropped
 * (absent: the kernels start from zeros), so every constant is stored once. */
int pass_dedup(ir_graph *g, const pass_ctx *cx, diag *d);

/* layernorm.c: the decomposed LayerNorm of opsets <= 16 (ReduceMean, Sub, Pow / Mul,
 * ReduceMean, Add, Sqrt, Div [, Mul gamma, Add beta]) -> one LayerNormalization node. */
int pass_layernorm(ir_graph *g, const pass_ctx *cx, diag *d);

/* dce.c: drop nodes whose outputs nobody reads, and unused constants. */
int pass_dce(ir_graph *g, const pass_ctx *cx, diag *d);
/* fold_bn.c (issue 20, conv): BatchNormalization folded into the Conv, Gemm or MatMul that
 * makes its input (constant weights, a single reader); the others stay. */
int pass_fold_bn(ir_graph *g, const pass_ctx *cx, diag *d);

#endif /* LSTMC_PASSES_H */
