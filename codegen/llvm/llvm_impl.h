/*
 * llvm_impl.h — what the LLVM emitter's files share (private to codegen/llvm/): CPU kernels of
 * a kernel program as object code, built with the LLVM C API (DESIGN.md step 6, issue 4):
 * OUTDIR/<name>_kernels.o.
 *
 * For every call of the Arm paper's schedule A+ (§IV, Algorithm 2) that it can handle —
 * KP_RNN_PROJ (line 5, X' = G1 * I') and KP_RNN_REC (lines 6-17, the time loop over G2)
 * with packed weights — it emits a function <name>_k<call index> with exactly the C
 * signature of the runtime kernel it replaces (lstmc_rt_rnn_proj / lstmc_rt_rnn_rec), so the
 * host code only changes the name it calls. Every shape (T, N, I, H, D, layout, direction,
 * which optional buffers exist, the activations and their alpha/beta, clip) is a constant of
 * the IR; the params pointer is ignored, except for a call whose kp_call.dyn (issue 21) says
 * the run sets some of its dims: then a projection loads its rows, and a time loop (REC,
 * DRS) its T and N, from p (rec_dims_of, proj_rows; one i64 load each, a value above the
 * compiled MAX refused with LSTMC_RT_ERR_BAD_PARAMS) and bounds its loops and row offsets by
 * them; LayerNorm loads its rows, Conv and the pools their images, height and width (conv.c,
 * emit_row_dyn). Other dyn calls run the C kernels (cg_llvm_handles), and no wavefront group holds
 * a dyn call (kprog/schedule.c). Calls it does not handle (unpacked weights, the
 * softplus activation, every other kernel kind) stay on the portable C runtime.
 *
 *   builder.c  loops, if, function starts (the tiny builder helpers are inline below)
 *   math.c     exp, sigmoid, tanh, the activations, clip: the gate arithmetic, no libm
 *   tile.c     register tiles (emit_tile) over weights in any storage format, column segments
 *   proj.c     KP_RNN_PROJ, the input projection
 *   rec.c      KP_RNN_REC, the time loop of LSTM, GRU and RNN layers
 *   rec_mt.c   KP_RNN_REC (LSTM) and KP_RNN_PROJ on several cores of the runtime pool
 *   drs.c      KP_LSTM_DRS, dynamic row skip (MICRO'18 §V)
 *   tissue.c   KP_LSTM_TISSUE and KP_LSTM_TISSUE_DRS, breakpoints and tissues (MICRO'18 §IV)
 *   norm.c     KP_LAYERNORM, LayerNormalization rows (issue 20)
 *   conv.c     KP_CONV and KP_POOL, direct convolution and pooling windows (issue 20)
 *   rnnq.c     KP_RNN_Q, the full-integer recurrent layer (issue 22): VNNI, vpmaddwd, generic
 *   panels.c   U and W in column panels (the weight relayout), threads per call
 *   wave.c     stacked LSTM layers as a wavefront (compiler/kprog/schedule.c)
 *   module.c   which calls, the target machine, the module, passes, object file; the
 *              public entry points (cg_llvm_*, with fallbacks for an lstmc built without
 *              LLVM)
 *   weights.c  the constant tensors as an object of aligned constant globals
 *              (<name>_weights.o, cg_llvm_weights)
 *
 * Everything below the includes exists only with LSTMC_HAVE_LLVM (LLVM 19).
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this backend uses only
 * codegen.h, core/, kprog/, stream.h, target/, the runtime's headers and this header, never
 * another backend's *_impl.h.
 */
#ifndef LSTMC_LLVM_IMPL_H
#define LSTMC_LLVM_IMPL_H

#include "codegen.h"
#include "diag.h"
#include "ir.h"
#include "kprog.h"
#include "target.h"

#include <stdint.h>
#include <string.h>

#ifdef LSTMC_HAVE_LLVM

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* --- generator state ----------------------------------------------------------------- */

typedef struct kg {
    LLVMContextRef cx;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMTypeRef f32, i32, i64, i1, ptr, vf; /* vf = <vl x float> */
    int vl;                                 /* floats per vector register of the target */
    int floor_by_cvt; /* 32-bit Arm: VFPv4 has no VRINTM, llvm.floor would call floorf */
    int prefetch;     /* 1: the target has data caches worth a software prefetch */
    int panels;       /* the call being emitted reads its U in column panels (rec_relayout) */
    int threads;      /* > 1: the call being emitted runs on this many threads (emit_rec_mt) */
    int serial;       /* 1: ... of slices, but all on the caller's thread (emit_mt): the step
                         program's kernels, in the whole program's weight layout */
    LLVMValueRef fn;
    LLVMBasicBlockRef alloca_bb; /* entry block: allocas only, branches to the body */
    LLVMBuilderRef ab;           /* positioned in alloca_bb */
    int wfmt;       /* the weights of the call being emitted (lstmc_rt_wfmt; issue 12) */
    int f16_native; /* fpext half -> float is an instruction (x86 F16C, AArch64) */
    /* the integer dot products of the target (rnnq.c, issue 22) */
    int x86_vnni, x86_avx512bw, x86_avx2;
    int x86_bf16;    /* AVX-512 BF16 (vdpbf16ps) at the kernels' vector width */
    int arm_dotprod; /* AArch64 SDOT (Armv8.2-A DotProd) */
    int arm_dsp;     /* 32-bit Arm / Thumb-2 DSP extension: SMLAD, SMLALD, SXTB16 */
    int arm_mve;     /* Armv8.1-M Helium (MVE) */
    int word32;      /* a 32-bit core (32-bit Arm): int64 arithmetic takes register pairs */
    int rnnq_laid;   /* KP_RNN_Q: bit 0 W, bit 1 U laid out at compile time (rnnq_relayout) */
} kg;

static inline LLVMValueRef
ci(kg *g, int64_t v)
{
    return LLVMConstInt(g->i64, (unsigned long long)v, 1);
}

static inline LLVMValueRef
cf(kg *g, double v)
{
    return LLVMConstReal(g->f32, v);
}

static inline LLVMValueRef
entry_alloca(kg *g, LLVMTypeRef ty)
{
    return LLVMBuildAlloca(g->ab, ty, "");
}

/* The int32 at base[i] (i an i64 value), sign-extended to i64. */
static inline LLVMValueRef
ld_i32(kg *g, LLVMValueRef base, LLVMValueRef i)
{
    return LLVMBuildSExt(
        g->b,
        LLVMBuildLoad2(g->b, g->i32, LLVMBuildInBoundsGEP2(g->b, g->i32, base, &i, 1, ""), ""),
        g->i64, "");
}

/* base + i floats (base a ptr, i an i64 value). */
static inline LLVMValueRef
gepf(kg *g, LLVMValueRef base, LLVMValueRef i)
{
    return LLVMBuildInBoundsGEP2(g->b, g->f32, base, &i, 1, "");
}

static inline LLVMValueRef
gepc(kg *g, LLVMValueRef base, int64_t i)
{
    return i == 0 ? base : gepf(g, base, ci(g, i));
}

static inline LLVMValueRef
ldf(kg *g, LLVMValueRef p)
{
    return LLVMBuildLoad2(g->b, g->f32, p, "");
}

static inline void
stf(kg *g, LLVMValueRef v, LLVMValueRef p)
{
    LLVMBuildStore(g->b, v, p);
}

/* Load/store a value of type ty (float or <vl x float>) from a float pointer. */
static inline LLVMValueRef
ldt(kg *g, LLVMTypeRef ty, LLVMValueRef p)
{
    LLVMValueRef v = LLVMBuildLoad2(g->b, ty, p, "");
    LLVMSetAlignment(v, 4);
    return v;
}

static inline void
stt(kg *g, LLVMValueRef v, LLVMValueRef p)
{
    LLVMValueRef s = LLVMBuildStore(g->b, v, p);
    LLVMSetAlignment(s, 4);
}

static inline LLVMValueRef
add(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildAdd(g->b, a, b, "");
}

static inline LLVMValueRef
mul(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildMul(g->b, a, b, "");
}

static inline LLVMValueRef
fadd(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFAdd(g->b, a, b, "");
}

static inline LLVMValueRef
fsub(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFSub(g->b, a, b, "");
}

static inline LLVMValueRef
fmul(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFMul(g->b, a, b, "");
}

/* c ? a : b */
static inline LLVMValueRef
sel(kg *g, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(g->b, c, a, b, "");
}

static inline LLVMValueRef
flt(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFCmp(g->b, LLVMRealOLT, a, b, "");
}

static inline LLVMValueRef
fgt(kg *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildFCmp(g->b, LLVMRealOGT, a, b, "");
}

/* Call the overloaded intrinsic `name` at type ty. */
static inline LLVMValueRef
intrinsic(kg *g, const char *name, LLVMTypeRef ty, LLVMValueRef *args, unsigned n)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->m, id, &ty, 1);
    LLVMTypeRef ft = LLVMIntrinsicGetType(g->cx, id, &ty, 1);
    return LLVMBuildCall2(g->b, ft, f, args, n, "");
}

/* a * b + c, fused where the target has FMA (llvm.fmuladd). */
static inline LLVMValueRef
fma_(kg *g, LLVMTypeRef ty, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    LLVMValueRef args[3];
    args[0] = a;
    args[1] = b;
    args[2] = c;
    return intrinsic(g, "llvm.fmuladd", ty, args, 3);
}

/* --- module.c ------------------------------------------------------------------------- */

/* The target of a compile as LLVM sees it: o's profile, its normalised triple, CPU and
 * features (the host's, detected, for "host"), and a target machine for them (an unknown
 * CPU or feature is an error, not a warning). */
typedef struct llvm_target {
    const target *t;
    char *triple, *cpu, *features; /* LLVM messages */
    LLVMTargetMachineRef tm;
} llvm_target;

/* Fill lt for o's target: 0, or -1 after reporting through d (lt then holds nothing). */
int llvm_target_open(const cg_options *o, llvm_target *lt, diag *d);
void llvm_target_close(llvm_target *lt);

/* Give module m lt's triple and data layout. */
void llvm_module_for(LLVMModuleRef m, const llvm_target *lt);

/* --- builder.c ------------------------------------------------------------------------ */

/* A counted loop for (i = start; i < end; i++) whose counter lives in an entry alloca (SROA
 * turns it into a phi). The body is emitted between loop_begin and loop_end. */
typedef struct kloop {
    LLVMValueRef var, end, iv;
    LLVMBasicBlockRef cond, exit;
} kloop;

LLVMValueRef loop_begin(kg *g, kloop *l, LLVMValueRef start, LLVMValueRef end);
void loop_end(kg *g, kloop *l);
void loop_end_rolled(kg *g, kloop *l);
LLVMBasicBlockRef if_begin(kg *g, LLVMValueRef c);
LLVMBasicBlockRef fn_begin(kg *g, LLVMValueRef f);
LLVMValueRef ld_param_i64(kg *g, LLVMValueRef p, size_t off);
void emit_dim_check(kg *g, LLVMValueRef v, int64_t max);
LLVMBasicBlockRef fn_add(kg *g, const char *fname, LLVMTypeRef fty);

/* --- math.c --------------------------------------------------------------------------- */

int act_ok(int32_t k);
LLVMValueRef emit_act(kg *g, const lstmc_rt_act *a, LLVMValueRef x);
LLVMValueRef emit_clip(kg *g, const lstmc_rt_rnn_params *p, LLVMValueRef v);

/* --- tile.c --------------------------------------------------------------------------- */

/* Accumulators of one register tile at most (emit_tile, tissue.c tis_tile). */
#define KG_MAX_ACC 64

/* One column segment: columns [col, col + nv*w) (col an i64 value). */
typedef void (*seg_fn)(kg *g, LLVMValueRef col, int nv, int w, void *ctx);

void lowp_dir(kg *g, LLVMValueRef w, int64_t D, int64_t K, int64_t GH, int64_t d, LLVMValueRef *q,
              LLVMValueRef *scale);
int64_t wfmt_bytes(int f);
LLVMValueRef gepw(kg *g, LLVMValueRef base, LLVMValueRef i);
LLVMValueRef gepwc(kg *g, LLVMValueRef base, int64_t i);
/* w weights of g->wfmt (fp32, fp16, bf16; int8 without its scales) at p, as floats */
LLVMValueRef emit_ldw(kg *g, LLVMValueRef p, int w);
void emit_tile(kg *g, LLVMValueRef a, int64_t lda, LLVMValueRef b, int64_t ldb, int64_t K,
               LLVMValueRef init, int64_t ldi, LLVMValueRef out, int64_t ldo, int rb, int nv, int w,
               int64_t pf, LLVMValueRef scale);
void for_col_segments(kg *g, int64_t ncols, int nb, seg_fn fn, void *ctx);
/* Issue 23, a bf16 U with vdpbf16ps (rec_dot): hs[q*ldq + k] = bf16 piece q of a[k], k < K;
 * and the 1 x nv tile over a panel in pairs against those pieces. */
void emit_bf16_split(kg *g, LLVMValueRef a, int64_t K, int pieces, LLVMValueRef hs, int64_t ldq);
void emit_tile_dot(kg *g, LLVMValueRef a, LLVMValueRef hs, int64_t ldq, int pieces, LLVMValueRef b,
                   int64_t ldb, int64_t K, LLVMValueRef init, LLVMValueRef out, int nv, int w,
                   int64_t pf);
/* The rb x nv tile of the projection over a bf16 W panel in pairs: rows a[r*lda ..] of X cut
 * into bf16 pieces KG_DOT_KB terms at a time into hs ([pieces][rb][KG_DOT_KB] int16). */
#define KG_DOT_KB 256
void emit_tile_dot_rows(kg *g, LLVMValueRef a, int64_t lda, int rb, LLVMValueRef hs, int pieces,
                        LLVMValueRef b, int64_t ldb, int64_t K, LLVMValueRef init, int64_t ldi,
                        LLVMValueRef out, int64_t ldo, int nv, int w);
void for_col_segments_dir(kg *g, int64_t ncols, int nb, seg_fn fn, void *ctx, LLVMValueRef flip);

/* --- proj.c --------------------------------------------------------------------------- */

#define PROJ_NB TK_DEFAULT_PROJ_TILE /* vectors of columns per tile (target.h) */
#define REC_NB  TK_DEFAULT_REC_TILE  /* vectors of columns per tile of the recurrent product */

typedef struct proj_ctx {
    int64_t rows, I, GH;
    LLVMValueRef rowsv; /* issue 21: the run's rows (an i64 value, at most rows), or NULL: rows
                           is a constant */
    LLVMValueRef X, wd, bd, Pd;
    int panels;            /* 1: wd is this column range's W in panels (rec_relayout), 0: [I, GH] */
    LLVMValueRef scale;    /* int8 (g->wfmt): the direction's column scales; read for int8 only
                              (the multi-thread projection, 1-thread for reduced precision, leaves
                              it unset) */
    const kp_tuning *tune; /* the call's tile, rows and prefetch (kparams.c) */
    LLVMValueRef hs;       /* a bf16 W with vdpbf16ps (rec_dot): the bf16 pieces of a block
                              of rows of X, on the stack (made by the first proj_seg); NULL */
} proj_ctx;

/* Gates of a cell: 4 (LSTM), 3 (GRU), 1 (RNN). */
static inline int64_t
cell_gates(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 4 : cell == LSTMC_RT_CELL_GRU ? 3 : 1;
}

int proj_nb(int wfmt, int vl);
int proj_rb(int wfmt, int vl);
void proj_seg(kg *g, LLVMValueRef col, int nv, int w, void *vctx);
void emit_proj(kg *g, const kp_call *c);
LLVMValueRef proj_rows(kg *g, const kp_call *c, LLVMValueRef p, int check);

/* --- rec.c ---------------------------------------------------------------------------- */

/* Per-direction values of one lstmc_rt_rnn_rec. */
typedef struct rec_ctx {
    const lstmc_rt_rnn_params *p;
    const lstmc_rt_act *act; /* this direction's activations */
    int64_t H, GH;
    LLVMValueRef Rt;               /* [H, GH] in g->wfmt */
    LLVMValueRef scale;            /* int8: the direction's GH column scales, else NULL */
    LLVMValueRef peep;             /* [3H] or NULL */
    LLVMValueRef rbh;              /* [H] or NULL */
    LLVMValueRef h, c, gates, tmp; /* scratch */
    /* gemv segment: out[c] = init[c] + sum_k a[k] * b[k*ldb + c] */
    LLVMValueRef sa, sb, sinit, sout, sscale;
    int64_t sldb;
    int panels;            /* 1: Rt is in column panels (rec_relayout), 0: row-major [H, GH] */
    const kp_tuning *tune; /* the call's tile and prefetch (kparams.c); NULL: the defaults */
    LLVMValueRef flip;     /* an i1: this step walks U's tiles backwards (kparams order); NULL */
    LLVMValueRef hs;       /* a bf16 U with vdpbf16ps (rec_dot): the bf16 pieces of the gemv's
                              a, [3][H] int16 on the stack (made by the first emit_gemv) */
    LLVMValueRef hs_of;    /* the a whose pieces hs holds where the code emitted next runs
                              (set by emit_gemv; a caller sets it to NULL where control flow
                              may not have passed the split, NULL: split again) */
} rec_ctx;

void emit_gemv(kg *g, rec_ctx *c, LLVMValueRef a, int64_t col0, int64_t n, LLVMValueRef init,
               LLVMValueRef out);
void emit_lstm_units(kg *g, rec_ctx *c, int64_t j0, int64_t j1, LLVMValueRef hn, LLVMValueRef y);
void emit_lstm_step(kg *g, rec_ctx *c, LLVMValueRef x, LLVMValueRef y);
void emit_copy(kg *g, LLVMValueRef dst, LLVMValueRef src, int64_t n, LLVMValueRef zero);
/* The run's T and N of a time loop (issue 21): i64 values, constants unless the call's
 * dyn bits say the run sets them in its params (at most the compiled values then). */
typedef struct rec_dims {
    LLVMValueRef T, N;
    int dyn_T; /* T is read at run time: a sequence may be empty without sequence_lens */
} rec_dims;

void rec_dims_of(kg *g, const lstmc_rt_rnn_params *p, unsigned dyn, LLVMValueRef pp, int check,
                 rec_dims *dm);
LLVMValueRef rec_rows(kg *g, const rec_dims *dm);
LLVMValueRef rec_row_at(kg *g, const lstmc_rt_rnn_params *p, const rec_dims *dm, LLVMValueRef t,
                        LLVMValueRef n);
LLVMValueRef rec_y_at(kg *g, const lstmc_rt_rnn_params *p, const rec_dims *dm, LLVMValueRef t,
                      int32_t d, LLVMValueRef n);
LLVMValueRef rec_state_at(kg *g, const lstmc_rt_rnn_params *p, const rec_dims *dm, int32_t d,
                          LLVMValueRef n);
void emit_seq_len_check(kg *g, LLVMValueRef sl, LLVMValueRef N, LLVMValueRef T);
void emit_rec(kg *g, const kp_call *kc);

/* --- rec_mt.c ------------------------------------------------------------------------- */

#define MT_MAX 16 /* threads at most (LSTMC_RT_MAX_THREADS of the default runtime) */

/* The slices of a multi-core kernel: a = its arguments, slices [first, end) (i32). */
typedef void (*mt_body_fn)(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a,
                           LLVMValueRef first, LLVMValueRef end);

void mt_slice(int64_t H, int nt, int vl, int t, int64_t *j0, int64_t *j1);
/* The units [j0, j1) of slice t of a recurrent layer on nt threads (emit_rec_mt, rec_ranges):
 * as mt_slice, but on 16 lanes cut at the multiple of half a vector nearest H t / nt, so that
 * an H that is no multiple of 32 leaves the slices within half a vector of work per gate
 * (H 300 on 2 threads: 152 and 148 units, not 144 and 156). */
void rec_unit_slice(int64_t H, int nt, int vl, int t, int64_t *j0, int64_t *j1);
LLVMBasicBlockRef slice_begin(kg *g, LLVMValueRef first, LLVMValueRef end, int t);
void slice_end(kg *g, LLVMBasicBlockRef join);
void emit_barrier(kg *g); /* lstmc_rt_pool_barrier() */
LLVMValueRef mt_worker_decl(kg *g, const char *fname);
void emit_pool_run(kg *g, LLVMValueRef w, LLVMValueRef ctx, int nt);
#define MT_MAX_ARGS 32 /* values a multi-core kernel's slices receive (emit_mt_ex) */
void emit_mt(kg *g, const kp_call *kc, const char *fname, int nt, unsigned nargs, mt_body_fn emit);
void emit_mt_ex(kg *g, const kp_call *kc, const char *fname, int nt, unsigned nargs,
                const LLVMValueRef *extra, unsigned n_extra, LLVMValueRef status, mt_body_fn emit);
void emit_rec_mt(kg *g, const kp_call *kc, const char *fname, int nt);
void emit_proj_mt_body(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a, LLVMValueRef first,
                       LLVMValueRef end);

/* --- drs.c ---------------------------------------------------------------------------- */

LLVMValueRef drs_y_at(kg *g, const lstmc_rt_rnn_params *p, LLVMValueRef t, int32_t d,
                      LLVMValueRef n);
LLVMValueRef drs_hsum(kg *g, LLVMValueRef start, LLVMValueRef v);
void drs_unit_rows(kg *g, int64_t H, LLVMValueRef Ufic, LLVMValueRef scale, LLVMValueRef j,
                   LLVMValueRef h, LLVMValueRef x, LLVMValueRef gates);
#define DRS_MAX_CELLS 4 /* cells of one drs_unit_rows_n */
void drs_unit_rows_n(kg *g, int64_t H, LLVMValueRef Ufic, LLVMValueRef scale, LLVMValueRef j,
                     int nc, const LLVMValueRef *h, const LLVMValueRef *x,
                     const LLVMValueRef *gates);
void drs_ret_if(kg *g, LLVMValueRef cond, int code);
LLVMValueRef emit_cell_state(kg *g, const lstmc_rt_rnn_params *p, const lstmc_rt_act *act,
                             LLVMValueRef peep, LLVMValueRef gr, LLVMValueRef cj, LLVMValueRef j);
LLVMValueRef drs_keep(kg *g, LLVMValueRef o, LLVMValueRef alpha);
void drs_update(kg *g, const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, LLVMValueRef peep,
                LLVMValueRef gr, LLVMValueRef alpha, LLVMValueRef hs, LLVMValueRef cs,
                LLVMValueRef y, int64_t j0, int64_t j1);
void emit_drs(kg *g, const kp_call *kc);
void emit_drs_mt(kg *g, const kp_call *kc, const char *fname, int nt);

/* --- tissue.c ------------------------------------------------------------------------- */

void emit_tissue(kg *g, const kp_call *kc, int drs, const char *fname);
int tissue_handles(const kp_call *c);

/* The default prefetch distance of the recurrent product's and the projection's panels, in
 * panel rows: far enough ahead to cover the L3 latency (~100 ns at the 8 cycles a 128-column
 * row of FMAs takes), near enough that the lines are still in L1 when the FMAs get to them. */
#define KG_PF_ROWS TK_DEFAULT_PREFETCH

/* llvm.prefetch(p) for reading, kept in every cache level (tile.c) */
void emit_prefetch(kg *g, LLVMValueRef p);

/* --- kparams.c ------------------------------------------------------------------------ */

/* The parameters of call c's kernel (a REC or PROJ call, or a KP_RNN_Q call whose kernel is
 * the VNNI one: vnni; kind 0 for any other) on t with vectors of vl floats: the profile's for
 * the call's shape class, else the defaults (bf16dot: the CPU has vdpbf16ps at that width,
 * where a bf16 U's default is dot 2; hwpf: its hardware prefetchers stream better alone,
 * cg_cpu_streams_without_prefetch, where the default prefetch beyond L2 is 0). A KP_RNN_Q
 * call's rows are one thread's (rnnq_rows gives another count's). */
void kparams_of(const target *t, const kp_call *c, int vl, int bf16dot, int hwpf, int vnni,
                kp_tuning *k);
/* The vector width in floats the kernels use: vl (the CPU's widest), or the narrower one
 * t->kernels.vector_bits asks for; -1 after reporting through d when it asks for wider. */
int kparams_vl(const target *t, int vl, diag *d);

/* --- panels.c ------------------------------------------------------------------------- */

/* The layout key of the weights in column panels (kp_call.wlayout): vector width, threads
 * and the tile's vectors of columns (kparams.c), each < 64, and pairs: 1 when the vector
 * tiles of a bf16 U hold rows 2p and 2p + 1 interleaved for vdpbf16ps (rec_dot). */
#define PANELS_KEY(vl, nt, nb, pairs) ((((pairs)*64 + (nb)) * 64 + (vl)) * 64 + (nt))

/* The bf16 pieces of h (of X) the h U product (the x W projection) of a call with this tuning
 * and weights format feeds to vdpbf16ps (kernels.<kind>.<class>.dot, emit_tile_dot,
 * emit_tile_dot_rows), 0 when the weights are widened to fp32: only bf16 weights in panels
 * (panels: the call's), on an x86 CPU with AVX-512 BF16. */
int rec_dot(const kg *g, const kp_tuning *t, int wfmt, int panels);

int rec_relayout(ir_graph *g, kprog *kp, int i, int key, diag *d);
int rec_pack_ok(const kprog *kp, int i, const cg_options *o);
int rec_threads(const kprog *kp, int i, const cg_options *o, const target *t);
/* The thread slices whose weight layout call i of the step program takes from the whole
 * program (o->layout_hints), or 0. */
int rec_hint_threads(const kprog *kp, int i, const cg_options *o);

/* --- wave.c --------------------------------------------------------------------------- */

void emit_wave(kg *g, const kprog *kp, const kp_wave *w, const char *name, const int *panels);

/* --- norm.c (issue 20, red) ----------------------------------------------------------- */

/* KP_LAYERNORM: lstmc_rt_layernorm's rows with vl-wide sums. */
void emit_layernorm(kg *g, const kp_call *c);
int layernorm_handles(const kp_call *c);

/* --- conv.c (issue 20, conv) ---------------------------------------------------------- */

/* KP_CONV and KP_POOL: direct windows in register blocks, edges at constant columns. */
void emit_conv(kg *g, const kp_call *c);
void emit_conv_mt_body(kg *g, const kp_call *kc, int nt, const LLVMValueRef *a, LLVMValueRef first,
                       LLVMValueRef end);
int conv_handles(const kp_call *c);
/* Issue 21: the run's sizes of c (kp_call.dyn) checked against the compiled ones. */
void emit_conv_dim_check(kg *g, const kp_call *c);
/* Threads for conv/pool call c: --threads (threads > 0) or the target's cores, fewer when
 * the call is too small to pay for a pool job; 1 for none. */
int conv_threads(const kp_call *c, int threads, int cores, int vl);

/* --- rnnq.c (issue 22) ------------------------------------------------------------------ */

/* KP_RNN_Q: the full-integer layer, bit for bit lstmc_rt_rnn_q. */
void emit_rnnq(kg *g, const kp_call *c, const char *fname);
int rnnq_handles(const kp_call *c);
/* The dot product rnnq.c uses on g's target for activations of bits bits (its QD_*). */
int rnnq_dot_mode(const kg *g, int bits);
/* 1 when call c's kernel on g's target reads weights laid out at compile time (VNNI). */
int rnnq_lays_out(const kg *g, const kp_call *c);
/* The row ranges [r0, r0 + n) that call c's kernel on nt threads runs as one each, for W
 * (u = 0) or U (u = 1): those of emit_rnnq_body; returns how many (at most 4 * MT_MAX). */
int rnnq_ranges(const lstmc_rt_rnnq_params *p, int nt, int u, int64_t *r0, int64_t *n);

/* The blocks of 16 rows per register tile of call c's W (u = 0) or U (u = 1) laid out, on nt
 * threads (its tune, kparams_of). */
int rnnq_tile_blocks(const kp_call *c, int u, int nt);
/* The input rows per W.x tile of KP_RNN_Q call c (VNNI, W laid out) with tuning k on nt
 * threads: k's when the profile set them, else 16 on one thread and 4 on threads; 1 for
 * chunks of other sizes than 4, 8, 12, 16 (kparams.c). */
int rnnq_rows(const kp_call *c, const kp_tuning *k, int nt);
/* The layout key of a KP_RNN_Q call's W (u = 0) or U (u = 1) in lanes = rows blocks, in tiles
 * of nb blocks (kp_call.wlayout, .ulayout), on nt threads (< 64). */
#define RNNQ_KEY(nt, u, nb) (1 + (u) + 2 * ((nt) + 64 * (nb)))
/* Bring in[1 + u] of KP_RNN_Q call i (W or U) to the layout of key (RNNQ_KEY) or to the
 * ONNX order (0), as rec_relayout does for panels. */
int rnnq_relayout(ir_graph *g, kprog *kp, int i, int u, int key, diag *d);
/* 1 when KP_RNN_Q call i (LLVM-handled) may read in[1 + u] laid out (rnnq_relayout). */
int rnnq_pack_ok(const kprog *kp, int i, int u, const cg_options *o);

#endif /* LSTMC_HAVE_LLVM */

#endif /* LSTMC_LLVM_IMPL_H */
