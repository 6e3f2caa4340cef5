/*
 * exec.c — running one kernel call in-process (kp_exec): the compiler folds constants with
 * the very kernels the generated library runs.
 */
#include "kprog.h"

#include <assert.h>
#include <stddef.h>

/* The argument lists of kp_kinds.def's STD calls: in[0..N_IN), out[0..N_OUT), the per-run
 * thresholds (STATS) from the union member ALPHAS, no stats (NULL), the scratch. */
#define KP_IN_0
#define KP_IN_1  , in[0]
#define KP_IN_2  KP_IN_1, in[1]
#define KP_IN_3  KP_IN_2, in[2]
#define KP_IN_4  KP_IN_3, in[3]
#define KP_IN_5  KP_IN_4, in[4]
#define KP_IN_6  KP_IN_5, in[5]
#define KP_IN_7  KP_IN_6, in[6]
#define KP_IN_8  KP_IN_7, in[7]
#define KP_IN_9  KP_IN_8, in[8]
#define KP_IN_10 KP_IN_9, in[9]
#define KP_IN_11 KP_IN_10, in[10]
#define KP_OUT_1 , out[0]
#define KP_OUT_2 KP_OUT_1, out[1]
#define KP_OUT_3 KP_OUT_2, out[2]
#define KP_ALPHAS_NONE(m)
#define KP_ALPHAS_TISSUE(m)     , c->p.m.alpha_inter
#define KP_ALPHAS_DRS(m)        , c->p.m.alpha_intra
#define KP_ALPHAS_TISSUE_DRS(m) , c->p.m.alpha_inter, c->p.m.alpha_intra
#define KP_NO_STATS_NONE
#define KP_NO_STATS_TISSUE     , NULL
#define KP_NO_STATS_DRS        , NULL
#define KP_NO_STATS_TISSUE_DRS , NULL, NULL
#define KP_SCRATCH_NONE
#define KP_SCRATCH_float , scratch
#define KP_SCRATCH_void  , scratch

/* The kernel of c's weight format (WFMTS = EACH), the suffixes of kp_kinds.def. */
static_assert(KP_WFMT_COUNT == 4, "a new weight format needs its kernel in KP_CALL_EACH");
#define KP_CALL_ONE(fn, args) return fn args;
#define KP_CALL_EACH(fn, args)                                                                     \
    if (c->wfmt == LSTMC_RT_WFMT_FP16)                                                             \
        return fn##_f16 args;                                                                      \
    if (c->wfmt == LSTMC_RT_WFMT_BF16)                                                             \
        return fn##_bf16 args;                                                                     \
    if (c->wfmt == LSTMC_RT_WFMT_INT8)                                                             \
        return fn##_i8 args;                                                                       \
    return fn args;
#define KP_EXEC_OWN(kind, fn, wfmts, args)
#define KP_EXEC_STD(kind, fn, wfmts, args)                                                         \
    case kind:                                                                                     \
        KP_CALL_##wfmts(fn, args)

/* ORDER KP_KIND: the OWN calls below are the FILL and COPY rows of kp_kinds.def. */
static_assert(KP_KIND_COUNT == 39, "ORDER KP_KIND: a new OWN row needs its case in kp_exec");

lstmc_rt_status
kp_exec(const kp_call *c, const void *const *in, void *const *out, void *scratch)
{
    switch (c->kind) {
#define X(kind, fn, params, n_in, n_out, in_types, out_types, scratch_, stats, alphas, call,       \
          wfmts, src)                                                                              \
    KP_EXEC_##call(kind, fn, wfmts,                                                                \
                   (&c->p.params KP_ALPHAS_##stats(alphas)                                         \
                         KP_IN_##n_in KP_OUT_##n_out KP_NO_STATS_##stats KP_SCRATCH_##scratch_))
#include "kp_kinds.def"
#undef X
    case KP_FILL:
        return lstmc_rt_fill(out[0], c->p.fill.n, c->p.fill.elem_size, c->p.fill.value);
    case KP_COPY:
        return lstmc_rt_copy(out[0], in[0], c->p.copy.n_bytes);
    default:
        return LSTMC_RT_ERR_BAD_PARAMS;
    }
}
