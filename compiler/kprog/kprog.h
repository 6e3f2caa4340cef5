/*
 * kprog.h — the kernel program: the optimised graph lowered to a flat list of runtime
 * kernel calls over explicit buffers (DESIGN.md pipeline step 4).
 *
 * Each call names one lstmc_rt kernel, carries its params struct exactly as the generated
 * code will declare it, and lists its buffer arguments in the kernel's argument order.
 * The same call can be executed here (kp_exec: constant folding, reference evaluation) or
 * printed as C by codegen, so the compiler and the device run the very same kernels.
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder (compiler/kprog)
 * uses only core/, target/ and the runtime's headers.
 */
#ifndef LSTMC_KPROG_H
#define LSTMC_KPROG_H

#include "lstmc_rt_kernels.h"

#include <stdint.h>

typedef struct arena arena;
typedef struct diag diag;
typedef struct ir_graph ir_graph;
typedef struct ir_node ir_node;
typedef struct ir_tensor ir_tensor;

/* The kernel kinds: one per row of kp_kinds.def (which lists each one's arguments). */
typedef enum kp_kind {
#define X(kind, ...) kind,
#include "kp_kinds.def"
#undef X
    KP_KIND_COUNT
} kp_kind;

/* The weight formats a kind with WFMTS = EACH has a kernel for (lstmc_rt_wfmt). */
#define KP_WFMT_COUNT (LSTMC_RT_WFMT_INT8 + 1)

/* Bits of kp_kind_info.stats: the kernel takes the per-run threshold alpha_inter and an
 * lstmc_rt_tissue_stats * (TISSUE), alpha_intra and an lstmc_rt_drs_stats * (DRS). */
enum { KP_STATS_NONE = 0, KP_STATS_TISSUE = 1, KP_STATS_DRS = 2, KP_STATS_TISSUE_DRS = 3 };

/* A row of kp_kinds.def, as data (kinds.c). */
typedef struct kp_kind_info {
    const char *fn;                     /* the runtime function ("lstmc_rt_rnn") */
    const char *fn_wfmt[KP_WFMT_COUNT]; /* its kernel per weight format (fn for every one when
                                           the kind has one kernel only) */
    int n_in, n_out;                    /* buffer arguments */
    const char *in_types, *out_types;   /* a letter per argument: f, i, l, v (kp_kinds.def) */
    const char *scratch;                /* C type of the scratch argument; NULL = none */
    int stats;                          /* KP_STATS_* bits */
    int own_call;                       /* the argument list is not the standard one */
    const char *src;                    /* the runtime source defining fn ("rt_rnn") */
} kp_kind_info;

extern const kp_kind_info kp_kinds[KP_KIND_COUNT];

#define KP_MAX_ARGS 11

/*
 * Issue 23: the parameters of the LLVM kernel of a KP_RNN_REC, KP_RNN_PROJ or (x86 VNNI)
 * KP_RNN_Q call (codegen/llvm/kparams.c, target.h target_kernels), set by the LLVM backend,
 * read by the kernels and the size report; kind 0 when the call has none (the C kernels run it, or
 * another kind of call).
 */
typedef struct kp_tuning {
    int kind;             /* 0 none, 1 rec (h U), 2 proj (x W), 3 int (KP_RNN_Q on VNNI) */
    int cls;              /* TK_L2, TK_LLC, TK_DRAM: where the weight matrix lives */
    int v[6];             /* TK_TILE, TK_ROWS (proj, int), TK_PREFETCH (0: none; rec, proj),
                             TK_ALTERNATE (rec, int; 1: U's tiles backwards on every other
                             step), TK_DOT (rec with bf16 weights only: bf16 pieces of h for
                             vdpbf16ps, 0: U widened to fp32), TK_PIPE (int: 1 the pipelined
                             steps where they apply) */
    unsigned char set[6]; /* 1: v[k] came from the target profile, 0: the built-in default */
    int vector_bits;      /* of the whole kernels object */
    unsigned char vector_set;
} kp_tuning;

typedef struct kp_call {
    kp_kind kind;
    const ir_node *node; /* where it comes from (for comments and messages); may be NULL */
    union {
        lstmc_rt_rnn_params rnn; /* KP_RNN and KP_RNN_REC */
        struct {
            lstmc_rt_tissue_params p; /* static: the layer and its MTS */
            float alpha_inter;        /* a kernel argument: changeable per run */
            float alpha_intra;        /* KP_LSTM_TISSUE_DRS: likewise */
        } tissue;                     /* KP_LSTM_TISSUE, KP_LSTM_TISSUE_DRS */
        struct {
            lstmc_rt_rnn_params p; /* the layer (LSTM, packed) */
            float alpha_intra;     /* a kernel argument: changeable per run */
        } drs;                     /* KP_LSTM_DRS */
        lstmc_rt_rnn_proj_params proj;
        lstmc_rt_gemm_params gemm;
        lstmc_rt_matmul_params matmul;
        lstmc_rt_binary_params binary;
        lstmc_rt_unary_params unary;
        lstmc_rt_softmax_params softmax;
        lstmc_rt_cast_params cast;
        lstmc_rt_argmax_params argmax;
        lstmc_rt_strided_params strided;
        lstmc_rt_gather_params gather;
        lstmc_rt_concat_params concat;
        lstmc_rt_ewise_params ewise; /* issue 20, elt */
        lstmc_rt_range_params range;
        lstmc_rt_cumsum_params cumsum;
        /* issue 20, red */
        lstmc_rt_reduce_params reduce;
        lstmc_rt_layernorm_params layernorm;
        lstmc_rt_instancenorm_params instancenorm; /* issue 20, ops */
        lstmc_rt_pad_params pad;
        lstmc_rt_topk_params topk;
        lstmc_rt_scatter_params scatter;
        lstmc_rt_conv_params conv;           /* KP_CONV, KP_CONV_TRANSPOSE */
        lstmc_rt_pool_params pool;           /* KP_POOL */
        lstmc_rt_batchnorm_params batchnorm; /* KP_BATCHNORM */
        lstmc_rt_rnnq_params rnnq;           /* KP_RNN_Q (issue 22) */
        struct {
            lstmc_rt_tissueq_params p;
            float alpha_inter; /* kernel arguments: changeable per run */
            float alpha_intra; /* KP_LSTM_TISSUE_DRS_Q */
        } tissueq;             /* KP_LSTM_TISSUE_Q, KP_LSTM_TISSUE_DRS_Q (issue 24) */
        struct {
            lstmc_rt_rnnq_params p;
            float alpha_intra; /* a kernel argument: changeable per run */
        } drsq;                /* KP_LSTM_DRS_Q (issue 24) */
        lstmc_rt_quant_params quant;         /* KP_QUANT, KP_DEQUANT */
        lstmc_rt_gemmq_params gemmq;         /* KP_GEMM_Q */
        struct {
            int64_t n;
            int32_t elem_size;
            int32_t dtype; /* ir_dtype of the value (how the generated code spells it) */
            unsigned char value[8];
        } fill;
        struct {
            int64_t n_bytes;
        } copy;
    } p;
    int n_in, n_out;
    ir_tensor *in[KP_MAX_ARGS];  /* kernel input order; NULL = absent optional */
    ir_tensor *out[KP_MAX_ARGS]; /* kernel output order; NULL = not wanted */
    int64_t scratch_bytes;       /* > 0: the call takes a scratch buffer last */
    int32_t wfmt;   /* KP_RNN_PROJ / KP_RNN_REC: storage format of in[1] (lstmc_rt_wfmt; 0 =
                       fp32): the call goes to that format's kernel (kp_call_fn) */
    int wlayout;    /* how in[1]'s data is laid out now: 0 C order, else a backend's key (the
                       LLVM kernels' column panels); kept on the first call that reads the
                       tensor as its weights (kp_wlayout) */
    int ulayout;    /* KP_RNN_Q: the same for in[2] (U), codegen/llvm/panels.c rnnq_relayout */
    unsigned dyn;   /* issue 21: KP_DYN_* bits, the params fields that depend on a ranged dim
                       (--dim=SYM=MIN..MAX); 0 = every field fixed. p holds the values at each
                       dim's MAX; the generated code passes the run's values, so a kernel
                       specialised to the shapes reads these fields from its p at run time */
    kp_tuning tune; /* issue 23: the LLVM kernel parameters the call was compiled with */
} kp_call;

/* Bits of kp_call.dyn (issue 21, codegen/c/dims.c): which params fields vary with the run's
 * dims. SEQ_LEN and BATCH: lstmc_rt_rnn_params.seq_len / .batch (also inside the tissue
 * and drs params); ROWS: lstmc_rt_rnn_proj_params.rows; N: lstmc_rt_conv_params.n,
 * lstmc_rt_pool_params.nc, lstmc_rt_layernorm_params.outer; H: a conv's or pool's in_h and
 * out_h; W: their in_w and out_w; OTHER: any other field (or a FILL or COPY size). */
enum {
    KP_DYN_SEQ_LEN = 1,
    KP_DYN_BATCH = 2,
    KP_DYN_ROWS = 4,
    KP_DYN_OTHER = 8,
    KP_DYN_N = 16,
    KP_DYN_H = 32,
    KP_DYN_W = 64
};

/* A wavefront group (issue 4, compiler/kprog/schedule.c): calls [first, last] are stacked LSTM
 * layers (REC, then [COPY] PROJ REC per later layer) that one multi-core kernel runs as a pipeline:
 * thread q runs layers [stage_end[q-1], stage_end[q]) and hands time steps to thread q+1 in
 * chunks of `chunk`. memplan keeps every buffer of the group live over all of it. */
#define KP_WAVE_MAX 16
typedef struct kp_wave {
    int first, last;            /* call indices, inclusive */
    int threads;                /* threads of the pool the kernel runs on */
    int n_layers, stages;       /* stages <= threads; a stage holds >= 1 layer */
    int64_t chunk;              /* time steps per hand-over */
    int stage_end[KP_WAVE_MAX]; /* layers [stage_end[q-1], stage_end[q]) on thread q */
    int rec[KP_WAVE_MAX];       /* call index of each layer's REC */
} kp_wave;

/* A whole program: the calls in execution order. */
typedef struct kprog {
    int n_calls, cap_calls;
    kp_call *calls;
    int n_outputs;
    ir_tensor **outputs; /* the tensor that fills each graph output slot, in order */
    int n_waves;         /* wavefront groups (cg_wave_plan), in call order; 0 = none */
    kp_wave *waves;
} kprog;

/* The layout field of the tensor t that calls of kp read as their weights (in[1], and a
 * KP_RNN_Q's U, in[2]): the first such call's wlayout (ulayout), so every call sharing t sees
 * one state. NULL when no call does. */
int *kp_wlayout(kprog *kp, const ir_tensor *t);

/* Free the blobs (ir_data_sweep) that no graph of g's store and no call of kps[n] reads;
 * the bytes freed. */
size_t kp_sweep(ir_graph *g, const kprog *const *kps, int n);

/* Name of the runtime function a kind calls ("lstmc_rt_rnn"). */
const char *kp_kind_fn(kp_kind k);

/* Name of the runtime function call c calls: kp_kind_fn, or the reduced-precision kernel of
 * its weights' format ("lstmc_rt_rnn_rec_f16"). */
const char *kp_call_fn(const kp_call *c);

/* C type of buffer argument j of c (inputs first, then outputs) as its kind's row gives it
 * ("float", "int32_t", "int64_t"); NULL = untyped (void). */
const char *kp_arg_type(const kp_call *c, int j);

/*
 * Lower one node (shapes inferred, constant inputs resolved) to kernel calls appended to
 * kp. Returns 0, or -1 after reporting through d (an op that cannot be lowered).
 */
int kp_lower_node(arena *a, kprog *kp, const ir_node *n, diag *d);

/*
 * Lower every live node of g (topologically sorted, shapes inferred, constants folded) and
 * bind the graph outputs: an output that is a graph input, a constant or already bound to
 * an earlier slot gets a copy into a fresh tensor. Returns 0 or -1 (reported through d).
 */
int kp_lower_graph(arena *a, ir_graph *g, kprog *kp, diag *d);

/*
 * Run call c now. in[i]/out[i] point at the data of c->in[i]/c->out[i] (NULL where those
 * are NULL); scratch holds c->scratch_bytes bytes. Returns the kernel's status.
 */
lstmc_rt_status kp_exec(const kp_call *c, const void *const *in, void *const *out, void *scratch);

/*
 * Fold node n of g (every input constant) by running its kernels (fold.c): its outputs get
 * data in g's arena and n is unlinked. Nothing happens when the outputs would take more
 * than 64 MiB or more than *budget bytes (what is folded is taken off *budget). Returns 0,
 * or -1 after reporting through d when a kernel fails on the constants.
 */
int kp_fold_node(ir_graph *g, ir_node *n, int64_t *budget, diag *d);

/* --- schedule.c: stacked LSTM layers as a wavefront across threads (issue 4) ------------ */

struct target;

/* A kernel backend's answer to "do you run call c in your own kernel?" (codegen.h). */
typedef int (*kp_handles_fn)(const kp_call *c);

/*
 * Find the stacks of LSTM layers in kp that one multi-core kernel of the backend (whose
 * handles says which calls it runs; NULL: none) can run as a pipeline (kp_wave) and record
 * those the threads should run that way: parallel "wave" takes every stack it can, "split"
 * none (each layer splits its hidden units), NULL or "auto" decides from the shapes and the
 * target (schedule.c wave_wanted). threads as --threads (0: the target's cores). Grows the
 * scratch of the layers it takes. Call before memplan_run.
 */
void kp_schedule(struct arena *a, kprog *kp, const struct target *t, kp_handles_fn handles,
                 int threads, const char *parallel);

/*
 * The scratch of the fast KP_RNN_Q kernels (codegen/llvm/rnnq.c, issue 22): byte offsets
 * from the start, every region 64-byte aligned. The kernel hoists W.x for tc steps at a time
 * (a GEMM over the chunk's input rows) and keeps the activation rows it multiplies padded to
 * kx, kh elements of at most 2 bytes. kp_schedule grows a KP_RNN_Q call's scratch to `bytes`
 * when the backend's handles takes the call with it (cg_llvm_handles checks the size).
 */
typedef struct kp_rnnq_scratch {
    int64_t tc;       /* time steps per chunk of the hoisted W.x */
    int64_t kx, kh;   /* I and H rounded up to 64 */
    int64_t corr;     /* int32 [2, D, G*H]: -128 * the row sums of W, then of U */
    int64_t ones;     /* bytes of 1 [max(kx, kh)] */
    int64_t xa;       /* [tc, kx] the chunk's input rows as the dot product reads them */
    int64_t ha, ha2;  /* [kh] h as the dot product reads it: even steps read ha, odd ha2 */
    int64_t rha;      /* [kh] GRU (linear_before_reset = 0): r * h */
    int64_t accw;     /* int64 [tc, G*H] W.x of the chunk's steps (x86: its requant + bW) */
    int64_t accu;     /* int64 [G*H] U.h of the step */
    int64_t h, c, rg; /* int32 [H] each: the state, GRU's r gate */
    int64_t bytes;    /* the total */
    /* after bytes, what only the x86 kernels use (kp_schedule grows an x86 target's call to
     * x86_bytes; the kernel does without them in less) */
    int64_t qs;        /* int32 [7, D, G*H]: Q's fields mW .. bR by field, copied per call */
    int64_t pw, pu;    /* W, U packed per call when I, H <= KP_RNNQ_PACK_K: [D, G*H, up4(K)]
                          (unused when laid out at compile time, VNNI: rnnq_relayout) */
    int64_t x86_bytes; /* the total with them */
} kp_rnnq_scratch;

/* the longest rows the x86 kernels pack (rnnq.c, pack_rows); int16 sums stay in int32 below 516 */
#define KP_RNNQ_PACK_K 64

void kp_rnnq_scratch_of(const lstmc_rt_rnnq_params *p, kp_rnnq_scratch *s);

/* The group that call i belongs to, or NULL. */
const kp_wave *kp_wave_of(const kprog *kp, int i);

/* Index of the first argument slot of call i in its group's argument array: the group's
 * calls in order, each with its inputs, outputs and (if any) scratch. */
int kp_wave_slot(const kprog *kp, const kp_wave *w, int i);

#endif /* LSTMC_KPROG_H */
