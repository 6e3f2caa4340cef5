/*
 * passes.h — the optimisation passes and the pass manager (TVM-style: the target chooses
 * an ordered list; each pass is one file and one row of pass_table.c).
 *
 * A pass takes a prepared graph (shapes inferred, constant subgraphs folded, nodes in
 * topological order) and rewrites it in place. It returns 0, or -1 after reporting through
 * d. After each pass the manager runs ir_verify() and stops on a broken invariant.
 */
#ifndef LSTMC_PASSES_H
#define LSTMC_PASSES_H

typedef struct diag diag;
typedef struct ir_graph ir_graph;
typedef struct target target;

typedef struct pass_ctx {
    const target *t;         /* the target profile */
    const char *print_after; /* print the IR after the pass of this name */
    int time_passes;         /* print each pass's wall time to stderr */
    const char *const *disable; /* passes to skip */
    int n_disable;
    float alpha_inter;          /* default breakpoint threshold for the breakpoints pass */
    const char *calib;          /* --calib: CALIB file (lstmc calibrate) for h_pred / c_pred */
    float alpha_intra;          /* default dynamic row skip threshold for the drs pass */
    const char *hsparse;        /* --hsparse: per-layer thresholds "TH" or "TH0,TH1,..." */
    const char *prune;          /* --prune: "W:F,U:F" magnitude pruning, or NULL */
    const char *sparse;         /* --sparse: "auto" (NULL), "auto:F", "esell", "off" */
    int llvm_kernels;           /* the dense kernels are LLVM's (--emit=llvm): auto's default */
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

/*
 * Run the comma-separated list (an empty string runs nothing), skipping cx->disable.
 * Unknown names are reported (all of them) before anything runs. Returns 0 or -1.
 */
int pass_run_list(ir_graph *g, const char *list, const pass_ctx *cx, diag *d);

/* --- the passes (one file each) ---------------------------------------------------- */

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

/* dce.c: drop nodes whose outputs nobody reads, and unused constants. */
int pass_dce(ir_graph *g, const pass_ctx *cx, diag *d);

#endif /* LSTMC_PASSES_H */
