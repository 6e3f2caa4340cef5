/*
 * wfmt.h — the storage formats of weights (--weights=fp32|fp16|bf16|int8).
 *
 * The kernels always accumulate in fp32; the format only says how the recurrent and input
 * weights are stored and read. int8 carries one fp32 scale per output row.
 */
#ifndef LSTMC_WFMT_H
#define LSTMC_WFMT_H

typedef enum wfmt {
    WFMT_FP32 = 0,
    WFMT_FP16 = 1,
    WFMT_BF16 = 2,
    WFMT_INT8 = 3,
    WFMT_COUNT
} wfmt;

#endif
