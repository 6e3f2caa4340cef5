/*
 * codegen.h — writes the generated library (DESIGN.md "The generated library"):
 *
 *   OUTDIR/<name>.h            API: <name>_init / <name>_run, arena size, I/O shapes
 *   OUTDIR/<name>.c            host code: the kernel program as a readable schedule
 *   OUTDIR/<name>_weights.h    constant tensors in kernel layout: in <name>_weights.o
 *                              (LLVM, cg_backend.weights) or <name>_weights.c
 *   OUTDIR/<name>_run.c        .npy in/out driver with --bench N
 *   OUTDIR/runtime/            the runtime sources (embedded in lstmc)
 *   OUTDIR/Makefile            builds lib<name>.a and <name>_run
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: codegen/ and each
 * codegen/<backend>/ use only core/, kprog/, stream.h, target/, the runtime's headers and
 * their own *_impl.h; never the driver, passes, frontends, cli, tools or another backend's
 * *_impl.h.
 */
#ifndef LSTMC_CODEGEN_H
#define LSTMC_CODEGEN_H

#include <stdint.h>

typedef struct diag diag;
typedef struct ir_graph ir_graph;
typedef struct kprog kprog;
typedef struct kp_call kp_call;
typedef struct memplan memplan;
typedef struct stream_info stream_info;

/* Where the weights go (--weights-placement). */
enum {
    CG_WEIGHTS_CONST = 0, /* const arrays in <name>_weights.c: flash */
    CG_WEIGHTS_BLOB,      /* <name>_weights.bin with a checked header: <name>_init_blob */
    CG_WEIGHTS_POINTER    /* <name>_weights.bin, raw, anywhere in memory: <name>_set_weights */
};

typedef struct cg_backend cg_backend;
struct arena;
struct target;

/* A layer of the whole-sequence program whose weights are laid out for threads slices. */
typedef struct cg_layout_hint {
    const char *node; /* the layer's node (the step program's has the same name) */
    int kind;         /* KP_RNN_PROJ or KP_RNN_REC */
    int threads;
} cg_layout_hint;

/*
 * Issue 21: the dims bound to a range (--dim=SYM=MIN..MAX) and what the generated code
 * computes from their run-time values (codegen/c/dims.c, cg_dims_fit). The program is
 * compiled at every dim's MAX; each number of the host code that differs between the
 * programs compiled at the sample points is a polynomial in the dims, linear in each (the
 * run's value of dim k is dims[k] in the generated code).
 */
#define CG_DIMS_MAX 4
typedef struct cg_dims {
    int n;                         /* ranged dims, in --dim order */
    const char *name[CG_DIMS_MAX]; /* the ONNX dim_param */
    int64_t min[CG_DIMS_MAX], max[CG_DIMS_MAX];
    /* Where the generated .npy driver reads dim k: axis in_axis[k] of graph input in_of[k]
     * (an axis whose size is exactly the dim). */
    int in_of[CG_DIMS_MAX], in_axis[CG_DIMS_MAX];
    /* By call of the whole-sequence program: the params initialiser with the run's values
     * ("const lstmc_rt_<kind>_params p = {...};"), NULL where no field varies; for KP_FILL
     * and KP_COPY the size argument as an expression (call_size), else NULL. */
    char **call_params, **call_size;
    /* By graph input / output: "{e0, e1, ...}", each dim of its shape as an expression. */
    char **in_shape, **out_shape;
    /* When cg_dims_fit failed because calls read constants whose values depend on the dims
     * (folded from an input's shape): their names, so that the driver compiles again with
     * them computed at run time (driver_options.nofold). */
    int n_vary;
    const char *vary[16];
    /* Dense samples (cg_dims_samples: every value of each dim from MIN up to 2 x
     * CG_DIMS_MAX_STRIDE above it, then a stride of them): set by the driver when a fit
     * asked for them (want_dense), so that a number may be a polynomial in a floor of a dim
     * (a strided convolution's output length, (T + r) / s with s <= CG_DIMS_MAX_STRIDE). */
    int dense, want_dense;
} cg_dims;
#define CG_DIMS_MAX_STRIDE 16

typedef struct cg_options {
    const cg_backend *be;   /* the kernel backend, resolved once (cg_backend_resolve) */
    const struct target *t; /* the target profile (NULL: resolve o->target, tests only) */
    const char *name;       /* C identifier prefix of everything generated */
    const char *outdir;     /* created if missing */
    const char *target;     /* target profile name (header comment; LLVM triple and cpu) */
    int llvm;               /* 1: CPU kernels as LLVM object code <name>_kernels.o (--emit=llvm) */
    int opencl;             /* 1: recurrent layers as OpenCL kernels (target with a GPU), issue 7 */
    float alpha_inter;      /* default thresholds compiled into <name>_init */
    float alpha_intra;
    float alpha_inter_max; /* the range lstmc tune found (0: not tuned) */
    float alpha_intra_max;
    int placement;       /* CG_WEIGHTS_* */
    double sph;          /* E-LSTM: the hidden-state sparsity N_fuse plans for (Eq. 6) */
    stream_info *stream; /* the streaming analysis and step program (compiler/stream/stream.h);
                            NULL: the model does not stream */
    int threads;         /* --threads: LLVM LSTM layers on this many threads; 0: the target's cores
                            for layers big enough to gain (llvm/panels.c rec_threads) */
    /* The step program only: the thread slices the whole-sequence program laid out the
     * weights of each multi-core layer for (codegen.c), so that both programs lay a shared
     * U or W out alike and the library stores it once; the step kernels run those slices
     * one after the other on the caller's thread. */
    const cg_layout_hint *layout_hints;
    int n_layout_hints;
    /* By step-program tensor id: the whole-sequence program's constant with the same bytes
     * (cg_same_const), or -1. cg_write makes it once, after both programs' weights are laid
     * out; NULL: not made (cg_stream_same computes it). */
    const int *stream_same;
    /* Objects the CPU backend's weights() wrote (<name>_weights.o, <name>_weights1.o, ...):
     * the Makefile links them; set by cg_write. */
    int n_weight_objects;
    const cg_dims *dims; /* issue 21: the ranged dims; NULL when every dim is fixed */
} cg_options;

/*
 * Issue 21: fill dm (n, name, min, max set by the caller) for the program kp of g, compiled
 * at every dim's MAX, from the same model compiled at ns sample points (sv[j][k]: the
 * value of dim k in sample j; sg[j], skp[j], smp[j] its program): every corner of the box
 * of dims (but the all-MAX one, which is kp) and some points inside it. The programs must
 * make the same calls over the same buffers (no bigger than at MAX) and the same constants;
 * every integer of a call's params (and of graph input and output shapes) that differs
 * must be a polynomial in the dims with integer coefficients, linear in each dim, that
 * every sample agrees with. Sets kp->calls[i].dyn. Returns 0, or -1 after reporting through
 * d what varies otherwise (naming the node and field).
 */
#define CG_DIMS_SAMPLES_MAX 300
/* The sample points for dm (sv[j][k]: dim k's value in sample j; not the all-MAX point):
 * every combination of each dim's MIN, MAX and, when MIN is 1 and MAX at least 3, 2 (the
 * polynomials are fitted on [2, MAX] there: at size 1 a broadcasting stride is 0 whatever
 * it is elsewhere, a value no run reads), then points inside the box. Returns how many. */
int cg_dims_samples(const cg_dims *dm, int64_t (*sv)[CG_DIMS_MAX]);
int cg_dims_fit(struct arena *a, const ir_graph *g, kprog *kp, const memplan *mp,
                const ir_graph *const *sg, const kprog *const *skp, const memplan *const *smp,
                int ns, const int64_t (*sv)[CG_DIMS_MAX], cg_dims *dm, diag *d);

/* 1 when s is a valid C identifier that lstmc accepts as a library name. */
int cg_name_ok(const char *s);

/* --- the kernel backends (codegen.c) -------------------------------------------------- */

/*
 * A kernel backend: what it can run and how it writes it (ggml supports_op, Glow
 * isOpSupported). The portable C host code (codegen/c/) is always written; a backend
 * replaces the calls it handles by its own kernels and adds its own files. Resolved once
 * per compile (cg_backend_resolve); nothing else asks for a target by name.
 */
struct cg_backend {
    const char *name;                 /* "c", "llvm", "opencl", "elstm" */
    int (*handles)(const kp_call *c); /* may this backend run call c? NULL: none (C kernels) */
    /* Write the kernels of the calls it handles for kp (o->name prefixes them): handled[i]
     * (kp->n_calls entries) says which (> 1: that many threads). The weights of the calls
     * it takes may be rewritten into its layout (LLVM's column panels), hence kprog is not
     * const. Returns the number of kernels, or -1 after reporting through d. NULL: none. */
    int (*emit)(ir_graph *g, kprog *kp, const memplan *mp, const cg_options *o,
                unsigned char *handled, diag *d);
    const cg_backend *cpu; /* OpenCL: the backend of the CPU side (its policy's other half) */
    int gpu;               /* 1: calls run on a GPU through OpenCL */
    /* A backend whose output is not a C library (E-LSTM's RoCC program) writes it from the
     * prepared graph; the driver then runs prune only. NULL for the others. */
    int (*write_graph)(struct arena *a, const ir_graph *g, const cg_options *o, diag *d);
    /* Write the constant tensors of the const placement as object files for the target,
     * OUTDIR/<name>_weights.o (then <name>_weights1.o, ... for a big model: objects of a
     * bounded size), after emit (the weights in its layout): what cc would make of
     * <name>_weights.c, for the cost of copying the bytes (issue 19). Returns the number of
     * objects, or -1. NULL: the C writer's portable <name>_weights.c (cg_weights_object). */
    int (*weights)(const ir_graph *g, const memplan *mp, const ir_graph *sg, const memplan *smp,
                   const cg_options *o, diag *d);
};

/* 1 when o's constant tensors go into <name>_weights.o, written by the CPU backend's
 * weights(), rather than into <name>_weights.c: the const placement with a backend that
 * writes objects (LLVM). The C writer then writes <name>_weights.h only, and the Makefile
 * links the object as it links <name>_kernels.o. */
static inline int
cg_weights_object(const cg_options *o)
{
    const cg_backend *cpu = o->be && o->be->cpu ? o->be->cpu : o->be;
    return o->placement == CG_WEIGHTS_CONST && cpu && cpu->weights;
}

/*
 * The backend for --target=target_name and --emit=emit (NULL: LLVM when this lstmc has it,
 * else C): OpenCL for a built-in target with a GPU (its CPU side LLVM or C) unless
 * cpu_only, E-LSTM for "elstm". NULL after reporting through d (--emit=llvm without LLVM).
 */
const cg_backend *cg_backend_resolve(const char *target_name, const char *emit, int cpu_only,
                                     diag *d);

/* The backend that runs the CPU side of be's programs (be itself, or OpenCL's cpu). */
const cg_backend *cg_backend_cpu(const cg_backend *be);

/*
 * Write every file of the library for the planned program through o->be. Errors (cannot
 * create the folder or a file) are reported through d; returns 0 or -1. Files are written
 * to a temporary name and renamed, so a failed run never leaves a half-written file behind.
 * The backend may relay the weights its kernels read (kp and the step program's).
 */
int cg_write(ir_graph *g, kprog *kp, const memplan *mp, const cg_options *o, diag *d);

/* Output file name for a graph output: every char outside [A-Za-z0-9_.-] becomes '_'.
 * Writes at most n bytes including the NUL. */
void cg_sanitize_filename(const char *name, char *buf, unsigned long n);

/* --- codegen/c: the portable C library, always written -------------------------------- */

/* Sizes the C writer computed, for the size report and the memory budget. */
typedef struct cg_c_sizes {
    int64_t arena;          /* <NAME>_ARENA_SIZE */
    int64_t stream_arena;   /* <NAME>_STREAM_ARENA_SIZE (0: the model does not stream) */
    int64_t state;          /* sizeof(<name>_state) */
    int64_t stream_weights; /* bytes of constants only the streaming step has */
    int64_t weights;        /* bytes of the constants of the whole-sequence program */
    int64_t ctx;            /* sizeof(<name>_ctx) on the target (its pointer size) */
} cg_c_sizes;

/* The sizes cg_c_library reports, computed without writing anything (the driver's memory
 * budget runs before codegen). */
void cg_c_sizes_of(const ir_graph *g, const memplan *mp, const cg_options *o, cg_c_sizes *sz);

/* Check o->name and create o->outdir. Returns 0, or -1 after reporting through d. */
int cg_c_begin(const cg_options *o, diag *d);

/* 1 when o's model streams and the step program is written. */
int cg_c_streams(const cg_options *o);

/*
 * Every file of the C library around the kernels a backend took: handled[i] (NULL: none)
 * for the calls of kp, handled_s for the step program's; n_obj / n_obj_s the backend's
 * object files' kernels (0: no object). Fills *sz. Returns 0, or -1 after reporting.
 */
int cg_c_library(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
                 unsigned char *handled, unsigned char *handled_s, int n_obj, int n_obj_s,
                 cg_c_sizes *sz, diag *d);

/* --- size_report.c ------------------------------------------------------------------- */

/*
 * Write OUTDIR/<name>_size.json (docs/SIZE_REPORT.md) and one summary line on stdout, after
 * the other files (it reads <name>_kernels.o). arena_bytes is <NAME>_ARENA_SIZE, stream_arena
 * <NAME>_STREAM_ARENA_SIZE, state_bytes sizeof(<name>_state), stream_weights the bytes of constants
 * only the streaming step has. Returns 0, or -1 after reporting through d.
 */
int cg_size_report(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
                   int64_t arena_bytes, int64_t stream_arena, int64_t state_bytes,
                   int64_t stream_weights, diag *d);

/* Bytes of the constant tensors of mp (the weights, flash.weights of the report). */
int64_t cg_const_bytes(const ir_graph *g, const memplan *mp);

/* weights_per_format of the report: what the constants of mp (weights bytes) would take with
 * G1/G2 stored in each lowp format (per[LSTMC_RT_WFMT_*]); *fmt: the format they have. */
void cg_weights_per_format(const ir_graph *g, const kprog *kp, const memplan *mp, int64_t weights,
                           int64_t per[4], int *fmt);

/* --- codegen/llvm/: CPU kernels through the LLVM C API -------------------------------- */

/* 1 when this lstmc was built with LLVM (otherwise only --emit=c works). */
int cg_llvm_available(void);

/* 1 when the LLVM CPU cpu ("" or NULL: the host's) is one whose hardware prefetchers stream a
 * weight matrix from beyond L2 faster without the kernels' software prefetch: AMD Zen
 * ("znver*"; measured on Zen 4, bench/RESULTS.md issue 23), where the built-in default of
 * rec.prefetch and proj.prefetch in the llc and dram classes is 0 (codegen/llvm/kparams.c). */
int cg_cpu_streams_without_prefetch(const char *cpu);

/* 1 when the host CPU's kernels at its widest vectors have vdpbf16ps (AVX-512 BF16), where a
 * bf16 U's built-in kernels.rec.dot is 2 (codegen/llvm/kparams.c). */
int cg_host_bf16_dot(void);
/* 1 when the host CPU has AVX-512 BW and VNNI: its int8 full-integer layers run the VNNI
 * kernel (codegen/llvm/rnnq.c), whose parameters kernels.int sets. */
int cg_host_vnni(void);

/* 1 when call c gets an LLVM kernel (KP_RNN_PROJ / KP_RNN_REC with packed weights and
 * activations other than softplus); every other call keeps its C runtime kernel. */
int cg_llvm_handles(const kp_call *c);

/*
 * Write OUTDIR/<name>_kernels.o for o->target's triple and CPU (the host's triple, CPU and
 * features for "host"): a function <name>_k<i> for every call i of kp that cg_llvm_handles,
 * with the same C signature as the runtime kernel it replaces. handled[i] (kp->n_calls
 * entries, written) says which. Returns the number of kernels, or -1 after reporting
 * through d (no LLVM backend for the triple, cannot write the file).
 */
int cg_llvm_kernels(ir_graph *g, kprog *kp, const cg_options *o, unsigned char *handled, diag *d);

/*
 * Write OUTDIR/<name>_weights.o for o->target's triple (as cg_llvm_kernels): one constant
 * global per constant tensor of g that mp places (MEMPLAN_CONST), and per constant of the
 * streaming step program sg (smp; NULL: none) that g does not hold (cg_same_const, named
 * under <name>_stream), named as the C writer names it (cg_const_ident), aligned to 64 bytes,
 * holding the tensor's bytes exactly (a tensor of no elements: one zero element), so that <name>.c
 * links against it as against the arrays of a <name>_weights.c. Refuses a big-endian target (the
 * bytes are the host's, little-endian). Returns 0, or -1 after reporting through d.
 */
int cg_llvm_weights(const ir_graph *g, const memplan *mp, const ir_graph *sg, const memplan *smp,
                    const cg_options *o, diag *d);

/* --- opencl.c: recurrent layers as OpenCL kernels (docs/OPENCL.md) ------------------- */

/* 1 when call c runs on the OpenCL device (KP_RNN, KP_RNN_PROJ, KP_RNN_REC). */
int cg_opencl_handles(const kp_call *c);

/*
 * Write OUTDIR/<name>.cl, <name>_ocl.h and <name>_ocl.c for o->target: a function
 * <name>_k<i>, with the runtime kernel's signature, for every call i that
 * cg_opencl_handles; handled[i] (kp->n_calls entries, written) says which. cpu_llvm[i]
 * (may be NULL) marks the calls whose CPU side (the GPU/CPU policy) is the LLVM kernel
 * <name>_cpu_k<i> rather than the runtime's C kernel. Returns the number of offloaded
 * calls, or -1 after reporting through d.
 */
int cg_opencl_write(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
                    unsigned char *handled, const unsigned char *cpu_llvm, diag *d);

#endif /* LSTMC_CODEGEN_H */
