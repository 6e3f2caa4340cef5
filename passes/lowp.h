/*
 * lowp.h — reduced-precision weights (issue 12, docs/PRECISION.md): --weights=fp32|fp16|bf16|
 * int8 turns G1 (lstmc.RnnProj input 1) and G2 (lstmc.RnnRec input 1) of the exact split
 * schedule into the storage formats of lstmc_rt.h ("reduced-precision weights"); the kernels
 * convert as they read and accumulate in fp32.
 */
#ifndef LSTMC_LOWP_H
#define LSTMC_LOWP_H

#include <stdint.h>

typedef struct diag diag;
typedef struct ir_graph ir_graph;

/* The wfmt named s ("fp32", "fp16", "bf16", "int8"), or -1. */
int lowp_parse(const char *s);

/* "fp32", "fp16", "bf16", "int8" ("?" out of range). */
const char *lowp_name(int wfmt);

/* Bytes one weight takes in wfmt (int8: 1, its row scales not counted). */
int lowp_elem_bytes(int wfmt);

/* IEEE binary16 / bfloat16 of x, rounded to nearest even; overflow gives infinity. */
uint16_t lowp_f32_to_f16(float x);
uint16_t lowp_f32_to_bf16(float x);

/*
 * The int8 quantiser of one output row of n weights w[0], w[stride], ...: returns its scale
 * and writes q[0], q[qstride], ... If a candidate scale in cands[0..n_cands) (the model's own
 * DequantizeLinear scales) or s = max|w| / 127 represents every weight exactly as q * scale
 * with |q| <= 127 (float multiply), the first such candidate is used (a QDQ model keeps its
 * grid, so it matches ONNX Runtime exactly); otherwise s with q = round(w / s). An all-zero
 * row gets scale 0 and q = 0. w must be finite.
 */
float lowp_quant_row(const float *w, int64_t n, int64_t stride, const float *cands, int n_cands,
                     signed char *q, int64_t qstride);

/*
 * Convert the weights of g (after the passes) to the format `weights` names, or, when weights
 * is NULL, to the format the model's own weights were stored in (g->weights_hint). opencl: the
 * target runs the recurrent layers on an OpenCL device (the messages name it; its exact
 * schedule reads every format). A schedule without reduced-precision
 * kernels (schedule A, tissues, DRS, --hsparse, unpacked weights) is refused with a
 * message naming the combination when the format was asked for, and keeps fp32 (with a note on
 * stderr) when it only comes from the model. Returns 0, or -1 after reporting through d.
 */
int lowp_apply(ir_graph *g, const char *weights, int opencl, diag *d);

#endif /* LSTMC_LOWP_H */
