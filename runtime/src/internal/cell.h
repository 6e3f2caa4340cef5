/*
 * cell.h — pieces of the recurrent time loop shared by the runtime's kernels (rt_rnn.c,
 * rt_tissue.c, rt_drs.c): the element-wise LSTM cell (the tensor offsets of the ONNX layouts,
 * lstmc_rt_row_at / y_at / state_at, are in lstmc_rt_kernels.h). Internal to the runtime
 * sources (static inline, nothing exported; was include/lstmc_rt_cell.h); one copy, so
 * that the exact, tissue and DRS kernels cannot drift apart: with their thresholds at 0 they
 * must produce the same floats (tests/unit/test_rt_tissue.c, test_rt_drs.c pin this).
 */
#ifndef LSTMC_RT_CELL_H
#define LSTMC_RT_CELL_H

#include "lstmc_rt_kernels.h"

/* Bound a gate pre-activation to [-clip, clip] when the layer has clip (NaN passes). */
static inline float
lstmc_rt_clip_pre(const lstmc_rt_rnn_params *p, float v)
{
    if (p->has_clip) {
        if (v < -p->clip)
            return -p->clip;
        if (v > p->clip)
            return p->clip;
    }
    return v;
}

/*
 * One unit's new cell state Ct = ft.Ct-1 + it.ct from its pre-activations, biases and the
 * peepholes of i and f already added (the caller's "+ bias", which is "+ 0.0f" when the
 * biases are folded into P: kept so that every kernel rounds alike, -0.0 included).
 * input_forget couples the gates as ONNX Runtime does: ft = 1 - it.
 */
static inline float
lstmc_rt_lstm_cn(const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, float pi, float pf,
                 float pc, float c_prev)
{
    const float it = lstmc_rt_act_apply(&act[0], lstmc_rt_clip_pre(p, pi));
    const float ft =
        p->input_forget ? 1.0f - it : lstmc_rt_act_apply(&act[0], lstmc_rt_clip_pre(p, pf));
    const float ct = lstmc_rt_act_apply(&act[1], lstmc_rt_clip_pre(p, pc));

    return ft * c_prev + it * ct;
}

/*
 * The element-wise part of an LSTM step: gates [4H] (i o f c) hold X*W^T + H*R^T, plus the
 * biases when Wb is NULL (schedule A+ folds them into P); peepholes Peep [3H] (i o f, or
 * NULL), biases, clip and activations act[3] (f, g, h) are applied here and h, c updated in
 * place. The output gate's peephole sees the new cell state Ct.
 */
static inline void
lstmc_rt_lstm_update(const lstmc_rt_rnn_params *p, const lstmc_rt_act *act, const float *Peep,
                     const float *restrict gates, const float *Wb, const float *Rb,
                     float *restrict h, float *restrict c)
{
    const int64_t H = p->hidden;
    const float *gi = gates, *go = gates + H, *gf = gates + 2 * H, *gc = gates + 3 * H;
    int64_t j;

    for (j = 0; j < H; j++) {
        float pi = gi[j], pf = gf[j], pc = gc[j], po = go[j];
        float bi = 0.0f, bo = 0.0f, bf = 0.0f, bc = 0.0f, ot, cn;

        if (Wb) {
            bi = Wb[j] + Rb[j];
            bo = Wb[H + j] + Rb[H + j];
            bf = Wb[2 * H + j] + Rb[2 * H + j];
            bc = Wb[3 * H + j] + Rb[3 * H + j];
        }
        if (Peep) {
            pi += Peep[j] * c[j];
            pf += Peep[2 * H + j] * c[j];
        }
        cn = lstmc_rt_lstm_cn(p, act, pi + bi, pf + bf, pc + bc, c[j]);
        if (Peep)
            po += Peep[H + j] * cn;
        ot = lstmc_rt_act_apply(&act[0], lstmc_rt_clip_pre(p, po + bo));
        c[j] = cn;
        h[j] = ot * lstmc_rt_act_apply(&act[2], cn);
    }
}

/* The checks the packed-LSTM kernels (rt_drs.c, rt_tissue.c) share: an LSTM with packed
 * weights, sane T, N, H, directions, layout and clip, and activations in range. Each kernel
 * adds its own overflow bound on T * N. */
static inline int
lstmc_rt_packed_lstm_ok(const lstmc_rt_rnn_params *p)
{
    const int64_t T = p->seq_len, N = p->batch, H = p->hidden;
    int32_t k;

    if (p->cell != LSTMC_RT_CELL_LSTM || p->packed != 1)
        return 0;
    if (T < 0 || N < 0 || H < 1 || H > INT32_MAX / 64)
        return 0;
    if (p->n_dirs != 1 && p->n_dirs != 2)
        return 0;
    if (p->reverse != 0 && (p->reverse != 1 || p->n_dirs != 1))
        return 0;
    if (p->layout != 0 && p->layout != 1)
        return 0;
    if (p->has_clip && !(p->clip >= 0.0f))
        return 0;
    for (k = 0; k < 3 * p->n_dirs; k++)
        if (p->act[k].kind < LSTMC_RT_ACT_SIGMOID || p->act[k].kind > LSTMC_RT_ACT_SOFTPLUS)
            return 0;
    return 1;
}

#endif /* LSTMC_RT_CELL_H */
