/*
 * wfmt.h — the storage formats of weights (--weights=fp32|fp16|bf16|int8): names, parse and
 * sizes from the runtime's table (lstmc_rt_kernels.h LSTMC_RT_WFMT_TABLE), and the encoders.
 *
 * The kernels always accumulate in fp32; the format only says how the recurrent and input
 * weights are stored and read. int8 carries one fp32 scale per output row.
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder
 * (compiler/formats) uses only core/ and the runtime's headers.
 */
#ifndef LSTMC_WFMT_H
#define LSTMC_WFMT_H

#include "lstmc_rt_kernels.h" /* the formats' table LSTMC_RT_WFMT_TABLE, the decoders */

#include <stdint.h>

/* The wfmt named s ("fp32", "fp16", "bf16", "int8"), or -1. */
int lowp_parse(const char *s);

/* "fp32", "fp16", "bf16", "int8" ("?" out of range). */
const char *lowp_name(int wfmt);

/* Bytes one weight takes in wfmt (int8: 1, its row scales not counted). */
int lowp_elem_bytes(int wfmt);

/*
 * IEEE binary16 / bfloat16 of x, rounded to nearest even; overflow gives infinity, a NaN
 * stays a quiet NaN with the top bits of its payload. The compiler's only encoders (the
 * decoders are the runtime's lstmc_rt_f16_to_f32 and lstmc_rt_bf16_to_f32).
 */
uint16_t lowp_f32_to_f16(float x);
uint16_t lowp_f32_to_bf16(float x);

/*
 * The int8 quantiser of one output row of n weights w[0], w[stride], ...: returns its scale
 * and writes q[0], q[qstride], ... If a candidate scale in cands[0..n_cands) (the model's own
 * DequantizeLinear scales, ascending: ir_qscales) or s = max|w| / 127 represents every weight
 * exactly as q * scale with q in -128..127 (float multiply), a candidate is used first (the
 * one with the largest max|w| / scale; a QDQ model keeps its grid, so it matches ONNX Runtime
 * exactly); otherwise s with q = round(w / s). An all-zero row gets scale 0 and q = 0. w must
 * be finite.
 */
float lowp_quant_row(const float *w, int64_t n, int64_t stride, const float *cands, int n_cands,
                     signed char *q, int64_t qstride);

#endif /* LSTMC_WFMT_H */
