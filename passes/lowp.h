/*
 * lowp.h — reduced-precision weights (issue 12, docs/PRECISION.md): --weights=fp32|fp16|bf16|
 * int8 turns G1 (lstmc.RnnProj input 1) and G2 (lstmc.RnnRec input 1) of the exact split
 * schedule into the storage formats of lstmc_rt.h ("reduced-precision weights"); the kernels
 * convert as they read and accumulate in fp32.
 */
#ifndef LSTMC_LOWP_H
#define LSTMC_LOWP_H

#include "wfmt.h" /* lowp_parse, lowp_name, the converters: formats/wfmt.c */

typedef struct diag diag;
typedef struct ir_graph ir_graph;

/*
 * Convert the weights of g (after the passes) to the format `weights` names, or, when weights
 * is NULL, to the format the model's own weights were stored in (g->weights_hint). opencl: the
 * target runs the recurrent layers on an OpenCL device (the messages name it; its exact
 * schedule, tissue and DRS kernels read every format). A schedule without reduced-precision
 * kernels (schedule A, --hsparse, unpacked weights) is refused with a
 * message naming the combination when the format was asked for, and keeps fp32 (with a note on
 * stderr) when it only comes from the model. Returns 0, or -1 after reporting through d.
 */
int lowp_apply(ir_graph *g, const char *weights, int opencl, diag *d);

#endif /* LSTMC_LOWP_H */
