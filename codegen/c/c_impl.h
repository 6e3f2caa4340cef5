/*
 * c_impl.h — what the portable C host-code writer's files share (private to codegen/c/,
 * and to codegen/codegen.c until cg_write becomes a loop over the backend table).
 *
 *   out.c       output files (temporary name, then rename) and C text helpers
 *   params.c    the runtime kernels' params structs as C initialisers
 *   schedule.c  <name>.c: buffer expressions, one kernel call per block, _init and _run
 *   stream.c    streaming (issue 9): <name>_state, _reset, _set_state, _step
 *   weights.c   <name>_weights.[ch] (.bin) and --weights-placement
 *   header.c    <name>.h
 *   run_main.c  <name>_run.c, the .npy driver
 *   makefile.c  the Makefile and the copy of the runtime sources it builds
 *
 * Every writer takes the options of cg_write (codegen.h) and writes through a FILE; the
 * write_* functions open, fill and close one file each and return 0, or -1 after
 * reporting through d.
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this backend uses only
 * codegen.h, core/, kprog/, stream.h, target/, the runtime's headers and this header, never
 * another backend's *_impl.h.
 */
#ifndef LSTMC_C_IMPL_H
#define LSTMC_C_IMPL_H

#include "codegen.h"
#include "ir.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An output file being written: to tmp, renamed to path when closed. */
typedef struct out_file {
    FILE *f;
    char path[4096];
    char tmp[4200];
} out_file;

/* --- out.c ----------------------------------------------------------------------- */

/* Create the folder path and its parents (mkdir -p). */
int cg_c_ensure_dir(const char *path, diag *d);

/* Open DIR/NAME for writing, as DIR/NAME.tmp until cg_c_close_out renames it. */
int cg_c_open_out(out_file *o, const char *dir, const char *name, diag *d);

/* Close o and rename it into place; on a write error, remove the temporary file. */
int cg_c_close_out(out_file *o, diag *d);

/* s in upper case into buf (n bytes with the NUL): the macro prefix NAME of a name. */
void cg_c_upper(const char *s, char *buf, size_t n);

/* The C type of an element of dtype t; its LSTMC_RT_* dtype constant. */
const char *cg_c_ctype(ir_dtype t);
const char *cg_c_rt_dtype(ir_dtype t);

/* A float as a C literal that reads back to the same value. */
void cg_c_put_float(FILE *f, float v);

/* "[d0,d1,...]" */
void cg_c_put_shape(FILE *f, const ir_shape *s);

/* "{v0, v1, ...}" ("{0}" for n = 0). */
void cg_c_put_i64s(FILE *f, const int64_t *v, int n);

/* The identifier of constant tensor id of g under prefix (cg_const_ident, cg_ident.h): the
 * one name of a weight everywhere in the generated code. */
void cg_c_put_const(FILE *f, const char *prefix, const ir_graph *g, int id);

/* --- params.c -------------------------------------------------------------------- */

/* "static const lstmc_rt_*_params p = {...};" for call c (the fill value for KP_FILL). */
void cg_c_put_params(FILE *f, const kp_call *c);

/* --- schedule.c ------------------------------------------------------------------ */

/* The block of call idx of a program of graph g whose buffers mp places; name prefixes the
 * constants (cg_c_put_const) and, when llvm, the kernel (name_kIDX) that replaces the
 * runtime's. */
/* What generated calls read besides weights: cg_c_calls_use's bits. */
enum {
    CG_C_USES_ARENA = 1,   /* an arena buffer or a scratch */
    CG_C_USES_INPUTS = 2,  /* the function's inputs[] */
    CG_C_USES_OUTPUTS = 4, /* its outputs[] */
    CG_C_USES_CTX = 8,     /* ctx: the per-run thresholds and statistics */
    CG_C_USES_WEIGHTS = 16 /* a weight: through ctx->weights unless they are const */
};
unsigned cg_c_calls_use(const kprog *kp, const memplan *mp);

/* "FN_fn NAME_TAG<idx>;": a kernel that replaces c's runtime kernel, declared by its type. */
void cg_c_put_kernel_decl(FILE *f, const kp_call *c, const char *name, const char *tag, int idx);
void cg_c_put_call(FILE *f, const char *name, const ir_graph *g, const memplan *mp,
                   const kp_call *c, int idx, int llvm, const cg_dims *dims);

/* "#define NAME_OFF_<tensor> OFFSET" for every arena tensor of g that mp places and
 * "#define NAME_SCRATCH<idx> OFFSET" for every call of kp with scratch (name: the
 * lower-case prefix of the program, NAME its upper case): the names cg_c_put_call uses. */
void cg_c_put_arena_names(FILE *f, const char *name, const ir_graph *g, const memplan *mp,
                          const kprog *kp);

/* Prototypes of the LLVM kernels in <name>_kernels.o: the runtime kernels' signatures. */
void cg_c_put_llvm_protos(FILE *f, const char *name, const kprog *kp, const unsigned char *handled);

/* Threads of the LLVM kernels (cg_llvm_kernels: handled[i] > 1 for a multi-core kernel). */
int cg_c_pool_threads(const kprog *kp, const unsigned char *handled);

/* <name>.c. handled / handled_s (may be NULL): the calls of kp and of the streaming step
 * program that a backend kernel replaces. */
int cg_c_write_host(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
                    const unsigned char *handled, const unsigned char *handled_s, diag *d);

/* --- stream.c -------------------------------------------------------------------- */

/* v rounded up to LSTMC_RT_ALIGN. */
int64_t cg_c_align_up(int64_t v);

/* outer = product of the dims before the time axis, inner = bytes of one step's slice. */
void cg_c_time_slice(const ir_tensor *t, int axis, int64_t *outer, int64_t *inner);

/* 1 when streaming code is generated (o->stream streams, at most 64 inputs and outputs). */
int cg_c_stream_on(const cg_options *o);

/* The arena <name>_init asks for (_run and _step); the one _step alone needs (0: the
 * model does not stream). */
int64_t cg_c_total_arena(const memplan *mp, const cg_options *o);
int64_t cg_c_stream_arena(const cg_options *o);

/* The streaming part of <name>.h; the streaming functions of <name>.c. */
void cg_c_put_stream_header(FILE *f, const ir_graph *g, const char *NAME, const cg_options *o);
void cg_c_put_stream_host(FILE *f, const ir_graph *g, const memplan *mp, const cg_options *o,
                          const unsigned char *handled_s);

/* For the size report: sizeof(<name>_state) on a target with 4-byte floats and 8-byte
 * int64; the bytes of the constants only the streaming step program has. */
int64_t cg_c_state_bytes(const cg_options *o);

/* sizeof(<name>_ctx) as header.c declares it, on o's target (its pointer size; 8-byte
 * aligned int64 as on Arm and x86-64). */
int64_t cg_c_ctx_bytes(const cg_options *o);
int64_t cg_c_stream_weights(const ir_graph *g, const memplan *mp, const cg_options *o);

/* --- weights.c ------------------------------------------------------------------- */

/* In <name>.c: each weight as an expression over ctx->weights (blob and pointer). */
void cg_c_put_weight_macros(FILE *f, const ir_graph *g, const memplan *mp, const cg_options *o);

/* In <name>.c: <name>_init_blob / <name>_set_weights. */
void cg_c_put_weight_binders(FILE *f, const cg_options *o);

/* In <name>.h: the placement and its binder's prototype. */
void cg_c_put_weight_header(FILE *f, const cg_options *o);

/* "STORAGE T NAME_w_TENSOR[n] = {...};" for constant tensor id of g, C order, values exact. */
void cg_c_put_const_array(FILE *f, const char *storage, const char *name, const ir_graph *g,
                          int id);

/* <name>_weights.h and .c (and .bin for the blob and pointer placements). */
int cg_c_write_weights(const ir_graph *g, const memplan *mp, const cg_options *o, diag *d);

/* --- header.c, run_main.c, makefile.c -------------------------------------------- */

/* <name>.h */
int cg_c_write_header(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
                      diag *d);

/* <name>_run.c */
int cg_c_write_driver(const ir_graph *g, const kprog *kp, const cg_options *o, diag *d);

/* The runtime sources a library needs (runtime/src/<file>.c, without ".c"). */
#define CG_C_RUNTIME_MAX 32
typedef struct cg_c_runtime {
    const char *file[CG_C_RUNTIME_MAX];
    int n;
} cg_c_runtime;

/* Those of the whole-sequence program kp and the step program kp_s (NULL: none), with
 * handled / handled_s marking the calls another backend runs: the calls' kernels, what
 * those need, and the pool, blob reader, UO, OpenCL and .npy parts when used. */
void cg_c_runtime_of(cg_c_runtime *rt, const kprog *kp, const unsigned char *handled,
                     const kprog *kp_s, const unsigned char *handled_s, const cg_options *o);

/* The Makefile: rt's sources, n_llvm / n_llvm_s LLVM kernels in <name>[_cpu]_kernels.o and
 * <name>_stream_kernels.o, threads > 1 builds the runtime's worker pool. */
int cg_c_write_makefile(const cg_options *o, const cg_c_runtime *rt, int n_llvm, int n_llvm_s,
                        int threads, diag *d);

/* OUTDIR/runtime/: rt's sources and the headers they and the library include. */
int cg_c_write_runtime(const cg_options *o, const cg_c_runtime *rt, diag *d);

#endif /* LSTMC_C_IMPL_H */
