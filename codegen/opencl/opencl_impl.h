/*
 * opencl_impl.h — what the OpenCL backend's files share (private to codegen/opencl/).
 *
 *   opencl.c   the entry points: cg_opencl_wanted, cg_opencl_write
 *   plan.c     which calls run on the device, their kernels and launch shapes, and the
 *              layout of the two device buffers (mem, wts)
 *   program.c  the .cl text: per-layer macros, then the kernel text of kernels/
 *   kernels/   rnn.cl tissue.cl drs.cl: the OpenCL C templates, embedded at build time
 *              (cmake/embed_cl.cmake) as the ocl_template_* arrays below
 *   host.c     <name>_ocl.c and <name>_ocl.h: buffers, uploads, downloads, one function per
 *              offloaded call
 *   cost.c     the GPU/CPU policy and the cost model (docs/OPENCL.md, "GPU or CPU")
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this backend uses only
 * codegen.h, core/, kprog/, stream.h, target/, the runtime's headers and this header, never
 * another backend's *_impl.h.
 */
#ifndef LSTMC_OPENCL_IMPL_H
#define LSTMC_OPENCL_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include "codegen.h"
#include "diag.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"
#include "target.h"

/* Largest rows-per-work-item: acc[] stays in registers (4 gates x 8 rows). */
#define OCL_MAX_RPI 8
/* Words of padding between device regions (keeps them 64-byte aligned). */
#define OCL_ALIGN_WORDS 16

/* Where a tensor lives on the device: buffer 0 = mem, 1 = wts; offset in 4-byte words. */
typedef struct dev_loc {
    int buf;
    int64_t off;
} dev_loc;

typedef struct ocl_plan {
    const ir_graph *g;
    const kprog *kp;
    const memplan *mp;
    const target *t;
    const unsigned char *handled;
    const unsigned char *cpu_llvm; /* by call: 1 = CPU side is <name>_cpu_k<i> (LLVM) */
    int64_t *const_off;            /* by tensor id: word offset in wts, -1 = not on the device */
    int64_t wts_words;
    int64_t in_off[64], out_off[64]; /* graph input/output regions in mem (words) */
    int64_t *state_off;              /* by call: first word of the layer's state in mem */
    int64_t mem_words;
    int wg;      /* 1-D work-group size (profile) */
    int ts;      /* G1 tile size */
    int threads; /* work-items the device runs at once (profile) */
} ocl_plan;

/* The device state of a tissue layer (kernels/tissue.cl), per direction: floats [gates
 * CAP x 4H | sub-layer states SLOTS x 2H | h rows CAP x H], then the int plan. Cell counts
 * and caps as rt_tissue.c's params_ok. */
typedef struct tissue_geom {
    int64_t nc, cap, slots, f_str, i_str;
} tissue_geom;

static inline int64_t
round_up(int64_t x, int64_t m)
{
    return (x + m - 1) / m * m;
}

static inline int64_t
numel(const ir_tensor *t)
{
    int64_t n = ir_shape_numel(&t->shape);
    return n > 0 ? n : 0;
}

static inline int64_t
gates(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 4 : cell == LSTMC_RT_CELL_GRU ? 3 : 1;
}

static inline int
n_acts(int32_t cell)
{
    return cell == LSTMC_RT_CELL_LSTM ? 3 : cell == LSTMC_RT_CELL_GRU ? 2 : 1;
}

/* plan.c */
dev_loc ocl_loc_of(const ocl_plan *P, const ir_tensor *t);
tissue_geom ocl_tissue_geometry(const kp_call *c);
int ocl_plan_memory(ocl_plan *P, diag *d);
int ocl_rows_per_item(const ocl_plan *P, int64_t dn, int64_t H);
int ocl_use_loop(const ocl_plan *P, const kp_call *c);
const lstmc_rt_rnn_params *ocl_rec_params(const kp_call *c);
int64_t ocl_drs_local_bytes(const ocl_plan *P, const kp_call *c);
int64_t ocl_local_limit(const ocl_plan *P);
int ocl_kernel_names(const ocl_plan *P, const kp_call *c, const char **names);

/* The kernels/ templates, embedded by cmake/embed_cl.cmake: NULL-terminated arrays of lines */
extern const char *const ocl_template_prelude[]; /* rnn.cl: helpers, once before the layers */
extern const char *const ocl_template_proj[];    /* rnn.cl: G1 */
extern const char *const ocl_template_lstm_ew[]; /* rnn.cl: the LSTM cell update */
extern const char *const ocl_template_rec[];     /* rnn.cl: the time loop */
extern const char *const ocl_template_tissue[];  /* tissue.cl: the tissue schedule */
extern const char *const ocl_template_drs[];     /* drs.cl: dynamic row skip */

/* program.c */
void ocl_put_program(FILE *f, const ocl_plan *P, const cg_options *o);

/* host.c */
int ocl_write_host(const ocl_plan *P, const cg_options *o, const char *cl_path, int n_kern,
                   diag *d);
int ocl_write_header(const cg_options *o, diag *d);

/* cost.c */
extern const char ocl_policy_c[];
void ocl_put_cost_model(FILE *f, const ocl_plan *P);

#endif
