/*
 * kinds.c — kp_kinds.def as data: each kernel kind's runtime function, per weight format,
 * and its buffer arguments' C types (kp_kind_fn, kp_call_fn, kp_arg_type).
 */
#include "ir.h"
#include "kprog.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The kernels of a kind, one per lstmc_rt_wfmt (FP32, FP16, BF16, INT8). */
static_assert(KP_WFMT_COUNT == 4, "a new weight format needs its suffix in KP_FNS_EACH");
#define KP_FNS_ONE(fn)                                                                             \
    {                                                                                              \
#fn, #fn, #fn, #fn                                                                         \
    }
#define KP_FNS_EACH(fn)                                                                            \
    {                                                                                              \
#fn, #fn "_f16", #fn "_bf16", #fn "_i8"                                                    \
    }
#define KP_SCRATCH_NONE  NULL
#define KP_SCRATCH_float "float"
#define KP_SCRATCH_void  "void"

#define KP_CALL_STD 0
#define KP_CALL_OWN 1

const kp_kind_info kp_kinds[KP_KIND_COUNT] = {
#define X(kind, fn, params, n_in, n_out, in_types, out_types, scratch, stats, alphas, call, wfmts, \
          src)                                                                                     \
    [kind] = {#fn,                                                                                 \
              KP_FNS_##wfmts(fn),                                                                  \
              n_in,                                                                                \
              n_out,                                                                               \
              in_types,                                                                            \
              out_types,                                                                           \
              KP_SCRATCH_##scratch,                                                                \
              KP_STATS_##stats,                                                                    \
              KP_CALL_##call,                                                                      \
              #src},
#include "kp_kinds.def"
#undef X
};

/* Every row's type strings say as many arguments as its counts. */
#define X(kind, fn, params, n_in, n_out, in_types, out_types, ...)                                 \
    static_assert(sizeof in_types == (n_in) + 1 && sizeof out_types == (n_out) + 1,                \
                  #kind ": IN_TYPES / OUT_TYPES do not match N_IN / N_OUT");
#include "kp_kinds.def"
#undef X

const char *
kp_kind_fn(kp_kind k)
{
    return k < KP_KIND_COUNT ? kp_kinds[k].fn : "?";
}

const char *
kp_call_fn(const kp_call *c)
{
    if (c->wfmt > 0 && c->wfmt < KP_WFMT_COUNT && c->kind < KP_KIND_COUNT)
        return kp_kinds[c->kind].fn_wfmt[c->wfmt];
    return kp_kind_fn(c->kind);
}

const char *
kp_arg_type(const kp_call *c, int j)
{
    const kp_kind_info *k;
    const char *t;
    size_t i;
    if (c->kind >= KP_KIND_COUNT || j < 0)
        return NULL;
    k = &kp_kinds[c->kind];
    t = j < c->n_in ? k->in_types : k->out_types;
    i = (size_t)(j < c->n_in ? j : j - c->n_in);
    if (i >= strlen(t))
        return NULL;
    switch (t[i]) {
    case 'f':
        return "float";
    case 'i':
        return "int32_t";
    case 'l':
        return "int64_t";
    default:
        return NULL;
    }
}

int *
kp_wlayout(kprog *kp, const ir_tensor *t)
{
    int i;
    for (i = 0; t && i < kp->n_calls; i++)
        if (kp->calls[i].in[1] == t)
            return &kp->calls[i].wlayout;
        else if (kp->calls[i].kind == KP_RNN_Q && kp->calls[i].in[2] == t)
            return &kp->calls[i].ulayout;
    return NULL;
}

size_t
kp_sweep(ir_graph *g, const kprog *const *kps, int n)
{
    const void **keep;
    size_t n_keep = 0, cap = 0, freed;
    int i, c, j;
    for (i = 0; i < n; i++)
        if (kps[i])
            cap += (size_t)kps[i]->n_calls * 2 * KP_MAX_ARGS;
    keep = malloc((cap + 1) * sizeof *keep);
    if (!keep)
        return 0; /* freeing is an optimisation */
    for (i = 0; i < n; i++)
        for (c = 0; kps[i] && c < kps[i]->n_calls; c++) {
            const kp_call *k = &kps[i]->calls[c];
            for (j = 0; j < k->n_in + k->n_out; j++) {
                const ir_tensor *t = j < k->n_in ? k->in[j] : k->out[j - k->n_in];
                if (t && t->data)
                    keep[n_keep++] = t->data;
            }
        }
    freed = ir_data_sweep(g, keep, n_keep);
    free(keep);
    return freed;
}
