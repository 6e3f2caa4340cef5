/*
 * exec.c — running one kernel call in-process (kp_exec): the compiler folds constants with
 * the very kernels the generated library runs.
 */
#include "kprog.h"

lstmc_rt_status
kp_exec(const kp_call *c, const void *const *in, void *const *out, void *scratch)
{
    switch (c->kind) {
    case KP_RNN:
        return lstmc_rt_rnn(&c->p.rnn, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7],
                            out[0], out[1], out[2], scratch);
    case KP_GEMM:
        return lstmc_rt_gemm(&c->p.gemm, in[0], in[1], in[2], out[0]);
    case KP_MATMUL:
        return lstmc_rt_matmul(&c->p.matmul, in[0], in[1], out[0]);
    case KP_BINARY:
        return lstmc_rt_binary(&c->p.binary, in[0], in[1], out[0]);
    case KP_UNARY:
        return lstmc_rt_unary(&c->p.unary, in[0], out[0]);
    case KP_SOFTMAX:
        return lstmc_rt_softmax(&c->p.softmax, in[0], out[0]);
    case KP_CAST:
        return lstmc_rt_cast(&c->p.cast, in[0], out[0]);
    case KP_ARGMAX:
        return lstmc_rt_argmax(&c->p.argmax, in[0], out[0]);
    case KP_STRIDED:
        return lstmc_rt_strided_copy(&c->p.strided, in[0], out[0]);
    case KP_GATHER:
        return lstmc_rt_gather(&c->p.gather, in[0], in[1], out[0]);
    case KP_CONCAT:
        return lstmc_rt_concat(&c->p.concat, in[0], out[0]);
    case KP_FILL:
        return lstmc_rt_fill(out[0], c->p.fill.n, c->p.fill.elem_size, c->p.fill.value);
    case KP_COPY:
        return lstmc_rt_copy(out[0], in[0], c->p.copy.n_bytes);
    case KP_RNN_PROJ:
        if (c->wfmt == LSTMC_RT_WFMT_FP16)
            return lstmc_rt_rnn_proj_f16(&c->p.proj, in[0], in[1], in[2], out[0]);
        if (c->wfmt == LSTMC_RT_WFMT_BF16)
            return lstmc_rt_rnn_proj_bf16(&c->p.proj, in[0], in[1], in[2], out[0]);
        if (c->wfmt == LSTMC_RT_WFMT_INT8)
            return lstmc_rt_rnn_proj_i8(&c->p.proj, in[0], in[1], in[2], out[0]);
        return lstmc_rt_rnn_proj(&c->p.proj, in[0], in[1], in[2], out[0]);
    case KP_RNN_REC:
        return lstmc_rt_rnn_rec_fmt(c->wfmt, &c->p.rnn, in[0], in[1], in[2], in[3], in[4],
                                    in[5], in[6], out[0], out[1], out[2], scratch);
    case KP_LSTM_TISSUE:
        return lstmc_rt_lstm_tissue(&c->p.tissue.p, c->p.tissue.alpha_inter, in[0], in[1], in[2],
                                    in[3], in[4], in[5], in[6], in[7], in[8], out[0], out[1],
                                    out[2], NULL, scratch);
    case KP_LSTM_DRS:
        return lstmc_rt_lstm_drs(&c->p.drs.p, c->p.drs.alpha_intra, in[0], in[1], in[2], in[3],
                                 in[4], in[5], in[6], out[0], out[1], out[2], NULL, scratch);
    case KP_LSTM_TISSUE_DRS:
        return lstmc_rt_lstm_tissue_drs(&c->p.tissue.p, c->p.tissue.alpha_inter,
                                        c->p.tissue.alpha_intra, in[0], in[1], in[2], in[3],
                                        in[4], in[5], in[6], in[7], in[8], in[9], in[10],
                                        out[0], out[1], out[2], NULL, NULL, scratch);
    default:
        return LSTMC_RT_ERR_BAD_PARAMS;
    }
}
