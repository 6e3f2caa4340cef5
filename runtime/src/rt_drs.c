/*
 * rt_drs.c — MICRO'18 §V, intra-cell optimisation of an LSTM layer: dynamic row skip (DRS),
 * Algorithm 3. Contract and weight layouts in lstmc_rt_kernels.h ("dynamic row skip").
 *
 * Algorithm 1 multiplies all of U_{f,i,c,o} by h_{t-1} per cell. Algorithm 3 reorders the
 * cell: U_o first (line 4), o_t (line 5), the compact list R of the units whose o_t is not
 * near zero (line 6), then only the rows of U_f, U_i, U_c of the units in R (line 7), then the
 * element-wise step (line 8). A unit left out of R has c_t[j] approximated to zero (§V-A:
 * "some of its elements corresponding to the skipped rows will be approximated to zero") and
 * h_t[j] = o_t[j] . h(c_t[j]) = o_t[j] . h(0) by Eq. 5 (zero for the default tanh): the
 * next cell's forget gate then multiplies a zero c_{t-1}[j], as the paper argues.
 *
 * Exactness: the U_o product sums P_o + h[0]*U[0][j] + h[1]*U[1][j] + ... and the row
 * product of line 7 sums P_g[j] + h[0]*U_g[j][0] + h[1]*U_g[j][1] + ... (three independent
 * chains, i, f and c, for ILP), which is lstmc_rt_rnn_rec's order for every gate; the
 * element-wise code is rt_rnn.c's (internal/cell.h). So with alpha_intra = 0 the floats are those
 * of lstmc_rt_rnn_rec (tests/unit/test_rt_drs.c pins this).
 *
 * No allocation: h, c, the gate buffer and R live in the caller's scratch.
 */
#include "internal/cell.h"
#include "internal/lowp_view.h"
#include "internal/testing.h"
#include "lstmc_rt_kernels.h"

#include <math.h>
#include <string.h>

/* --- weights ------------------------------------------------------------------------- */

lstmc_rt_status
lstmc_rt_drs_pack(int64_t n_dirs, int64_t hidden, const float *Ut, float *Uo, float *Ufic)
{
    const int64_t H = hidden, G = 4 * hidden;
    /* row offset in Ut's columns of gate g of Ufic: i 0, f 2H, c 3H (ONNX order i o f c) */
    const int64_t off[3] = {0, 2 * hidden, 3 * hidden};
    int64_t d, k, j, g;

    if (!Ut || !Uo || !Ufic)
        return LSTMC_RT_ERR_NULL;
    if (n_dirs < 1 || n_dirs > 2 || H < 1 || H > INT32_MAX / 64)
        return LSTMC_RT_ERR_BAD_PARAMS;
    for (d = 0; d < n_dirs; d++) {
        const float *ut = Ut + d * H * G;

        for (k = 0; k < H; k++)
            for (j = 0; j < H; j++)
                Uo[(d * H + k) * H + j] = ut[k * G + H + j];
        for (j = 0; j < H; j++)
            for (g = 0; g < 3; g++)
                for (k = 0; k < H; k++)
                    Ufic[((d * H + j) * 3 + g) * H + k] = ut[k * G + off[g] + j];
    }
    return LSTMC_RT_OK;
}

/* --- Algorithm 3 line 6: the compact list R ------------------------------------------ */

int32_t
lstmc_rt_drs_compact(int64_t hidden, const float *o, float alpha_intra, int32_t *R)
{
    int32_t n = 0;
    int64_t j;

    if (!o || !R || hidden < 1 || hidden > INT32_MAX)
        return 0;
    /* Branch-free: R[n] is always written and n advances for a kept unit; this is the
     * sequential form of the prefix sum a GPU would use. NaN o is kept (no skip). */
    for (j = 0; j < hidden; j++) {
        R[n] = (int32_t)j;
        n += !(fabsf(o[j]) < alpha_intra);
    }
    return n;
}

/* --- one cell ------------------------------------------------------------------------ */

/* Contract in internal/lowp_view.h. */
void
lstmc_rt_drs_unit_rows(int64_t H, const lowp_view *uf, int64_t j, const float *restrict h,
                       float *gi, float *gf, float *gc)
{
    const int64_t e = j * 3 * H;
    float ai = lowp_view_start(uf, *gi), af = lowp_view_start(uf, *gf);
    float ac = lowp_view_start(uf, *gc);
    int64_t k;

    if (uf->fmt == LSTMC_RT_WFMT_FP32) {
        const float *ri = (const float *)uf->w + e, *rf = ri + H, *rc = rf + H;
        for (k = 0; k < H; k++) {
            const float hk = h[k];

            ai += hk * ri[k];
            af += hk * rf[k];
            ac += hk * rc[k];
        }
    } else {
        for (k = 0; k < H; k++) {
            const float hk = h[k];

            ai += hk * lowp_view_at(uf, e + k);
            af += hk * lowp_view_at(uf, e + H + k);
            ac += hk * lowp_view_at(uf, e + 2 * H + k);
        }
    }
    *gi = lowp_view_finish(uf, 3 * j, *gi, ai);
    *gf = lowp_view_finish(uf, 3 * j + 1, *gf, af);
    *gc = lowp_view_finish(uf, 3 * j + 2, *gc, ac);
}

/* One cell of lstmc_rt_lstm_drs_cell's contract, U_o and U_f,i,c this direction's views. */
static int32_t
drs_cell(const lstmc_rt_rnn_params *p, int32_t dir, float alpha_intra, const float *x,
         const lowp_view *uo, const lowp_view *uf, const float *Peep, float *h, float *c,
         void *work, lstmc_rt_drs_stats *stats)
{
    const int64_t H = p->hidden;
    const lstmc_rt_act *act = &p->act[dir * 3];
    float *gates = work, *gi = gates, *go = gates + H, *gf = gates + 2 * H, *gc = gates + 3 * H;
    int32_t *R = (int32_t *)(void *)(gates + 4 * H);
    const float h0 = lstmc_rt_act_apply(&act[2], 0.0f); /* h(0) for skipped units */
    int32_t n, r;
    int64_t j, k;

    /* line 4: go = P_o + h_{t-1} U_o, U_o k-major (one contiguous row per k); int8: the sums
     * from 0 in gi (free until line 7), then P_o + s * sum */
    if (uo->fmt == LSTMC_RT_WFMT_FP32) {
        memcpy(go, x + H, (size_t)H * sizeof(float));
        for (k = 0; k < H; k++) {
            const float hk = h[k];
            const float *restrict row = (const float *)uo->w + k * H;

            for (j = 0; j < H; j++)
                go[j] += hk * row[j];
        }
    } else {
        float *acc = uo->scale ? gi : go;

        for (j = 0; j < H; j++)
            acc[j] = lowp_view_start(uo, x[H + j]);
        for (k = 0; k < H; k++) {
            const float hk = h[k];

            for (j = 0; j < H; j++)
                acc[j] += hk * lowp_view_at(uo, k * H + j);
        }
        for (j = 0; j < H; j++)
            go[j] = lowp_view_finish(uo, j, x[H + j], acc[j]);
    }
    /* line 5: o_t (the output gate's peephole is zero: the drs pass checks it) */
    for (j = 0; j < H; j++)
        go[j] = lstmc_rt_act_apply(&act[0], lstmc_rt_clip_pre(p, go[j] + 0.0f));
    /* line 6 */
    n = lstmc_rt_drs_compact(H, go, alpha_intra, R);
    /* line 7: only the rows of the units in R are read */
    for (r = 0; r < n; r++) {
        j = R[r];
        gi[j] = x[j];
        gf[j] = x[2 * H + j];
        gc[j] = x[3 * H + j];
        lstmc_rt_drs_unit_rows(H, uf, j, h, gi + j, gf + j, gc + j);
    }
    /* line 8: rt_rnn.c's cell update (lstmc_rt_lstm_cn) for the units in R, the approximation for
     * the others */
    for (j = 0, r = 0; j < H; j++) {
        const float ot = go[j];

        if (r < n && R[r] == j) {
            float pi = gi[j], pf = gf[j], pc = gc[j], cn;

            r++;
            if (Peep) {
                pi += Peep[j] * c[j];
                pf += Peep[2 * H + j] * c[j];
            }
            cn = lstmc_rt_lstm_cn(p, act, pi + 0.0f, pf + 0.0f, pc + 0.0f, c[j]);
            c[j] = cn;
            h[j] = ot * lstmc_rt_act_apply(&act[2], cn);
        } else {
            c[j] = 0.0f;
            h[j] = ot * h0;
        }
    }
    if (stats) {
        stats->cells++;
        stats->rows_total += 3 * H;
        stats->rows_skipped += 3 * (H - n);
        stats->rows_loaded += 3 * (int64_t)n;
    }
    return n;
}

int32_t
lstmc_rt_lstm_drs_cell(const lstmc_rt_rnn_params *p, int32_t dir, float alpha_intra, const float *x,
                       const float *Uo, const float *Ufic, const float *Peep, float *h, float *c,
                       void *work, lstmc_rt_drs_stats *stats)
{
    const int64_t H = p->hidden;
    const lowp_view uo = lowp_view_of(LSTMC_RT_WFMT_FP32, Uo, 1, H, H, 0);
    const lowp_view uf = lowp_view_of(LSTMC_RT_WFMT_FP32, Ufic, 1, H, 3 * H, 0);

    return drs_cell(p, dir, alpha_intra, x, &uo, &uf, Peep, h, c, work, stats);
}

/* --- the layer ----------------------------------------------------------------------- */

static int
params_ok(const lstmc_rt_rnn_params *p)
{
    const int64_t T = p->seq_len, N = p->batch;

    if (!lstmc_rt_packed_lstm_ok(p))
        return 0;
    return N == 0 || T <= INT64_MAX / N / 4 / p->hidden / p->n_dirs;
}

int64_t
lstmc_rt_lstm_drs_scratch(const lstmc_rt_rnn_params *p)
{
    if (!p || !params_ok(p))
        return -1;
    return 8 * p->hidden; /* h, c [H] | gates [4H] | R [H] int32 | the LLVM kernel's second h on
                             threads [H] */
}

/* lstmc_rt_lstm_drs in weight format wfmt (the loop is rt_rnn.c's run_direction). */
static lstmc_rt_status
drs_run(int32_t wfmt, const lstmc_rt_rnn_params *p, float alpha_intra, const float *P,
        const void *Uo, const void *Ufic, const int32_t *seq_lens, const float *init_h,
        const float *init_c, const float *Peep, float *Y, float *Y_h, float *Y_c,
        lstmc_rt_drs_stats *stats, void *scratch)
{
    lstmc_rt_drs_stats local;
    int64_t H, G, T, n, step, t, j;
    size_t hbytes;
    float *h, *c;
    int32_t d;

    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!p)
        return LSTMC_RT_ERR_NULL;
    if (!params_ok(p))
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (p->batch == 0)
        return LSTMC_RT_OK;
    if (!P || !Uo || !Ufic || !scratch)
        return LSTMC_RT_ERR_NULL;
    H = p->hidden;
    G = 4 * H;
    T = p->seq_len;
    if (seq_lens)
        for (n = 0; n < p->batch; n++)
            if (seq_lens[n] < 0 || seq_lens[n] > T)
                return LSTMC_RT_ERR_SEQ_LEN;
    if (Peep) /* o_t must not depend on c_t */
        for (d = 0; d < p->n_dirs; d++)
            for (j = 0; j < H; j++)
                if (Peep[d * 3 * H + H + j] != 0.0f)
                    return LSTMC_RT_ERR_BAD_PARAMS;

    hbytes = (size_t)H * sizeof(float);
    h = scratch;
    c = h + H;
    for (d = 0; d < p->n_dirs; d++) {
        const int32_t rev = p->n_dirs == 2 ? d : p->reverse;
        const float *Pd = P + d * T * p->batch * G, *Pe = Peep ? Peep + d * 3 * H : NULL;
        /* Uo [D, H, H] and Ufic [D, H, 3H] in wfmt (int8: H and 3H row scales in front) */
        const lowp_view uo = lowp_view_of(wfmt, Uo, p->n_dirs, H, H, d);
        const lowp_view uf = lowp_view_of(wfmt, Ufic, p->n_dirs, H, 3 * H, d);

        for (n = 0; n < p->batch; n++) {
            const int64_t s = seq_lens ? seq_lens[n] : T, st = lstmc_rt_state_at(p, d, n);

            if (init_h)
                memcpy(h, init_h + st, hbytes);
            else
                memset(h, 0, hbytes);
            if (init_c)
                memcpy(c, init_c + st, hbytes);
            else
                memset(c, 0, hbytes);
            for (step = 0; step < s; step++) {
                t = rev ? s - 1 - step : step;
                drs_cell(p, d, alpha_intra, Pd + lstmc_rt_row_at(p, t, n) * G, &uo, &uf, Pe, h, c,
                         c + H, stats);
                if (Y)
                    memcpy(Y + lstmc_rt_y_at(p, t, d, n), h, hbytes);
            }
            if (Y)
                for (t = s; t < T; t++)
                    memset(Y + lstmc_rt_y_at(p, t, d, n), 0, hbytes);
            if (s == 0) { /* as lstmc_rt_rnn_rec: zero Y_h / Y_c for an empty sequence */
                memset(h, 0, hbytes);
                memset(c, 0, hbytes);
            }
            if (Y_h)
                memcpy(Y_h + st, h, hbytes);
            if (Y_c)
                memcpy(Y_c + st, c, hbytes);
        }
    }
    return LSTMC_RT_OK;
}

/* Contract in lstmc_rt_kernels.h. */
lstmc_rt_status
lstmc_rt_lstm_drs(const lstmc_rt_rnn_params *p, float alpha_intra, const float *P, const void *Uo,
                  const void *Ufic, const int32_t *seq_lens, const float *init_h,
                  const float *init_c, const float *Peep, float *Y, float *Y_h, float *Y_c,
                  lstmc_rt_drs_stats *stats, void *scratch)
{
    return drs_run(LSTMC_RT_WFMT_FP32, p, alpha_intra, P, Uo, Ufic, seq_lens, init_h, init_c, Peep,
                   Y, Y_h, Y_c, stats, scratch);
}

/* lstmc_rt_lstm_drs with Uo and Ufic in a reduced-precision format (lstmc_rt_kernels.h). */
#define DRS_LOWP(suffix, fmt)                                                                      \
    lstmc_rt_status lstmc_rt_lstm_drs_##suffix(                                                    \
        const lstmc_rt_rnn_params *p, float alpha_intra, const float *P, const void *Uo,           \
        const void *Ufic, const int32_t *seq_lens, const float *init_h, const float *init_c,       \
        const float *Peep, float *Y, float *Y_h, float *Y_c, lstmc_rt_drs_stats *stats,            \
        void *scratch)                                                                             \
    {                                                                                              \
        return drs_run(fmt, p, alpha_intra, P, Uo, Ufic, seq_lens, init_h, init_c, Peep, Y, Y_h,   \
                       Y_c, stats, scratch);                                                       \
    }
DRS_LOWP(f16, LSTMC_RT_WFMT_FP16)
DRS_LOWP(bf16, LSTMC_RT_WFMT_BF16)
DRS_LOWP(i8, LSTMC_RT_WFMT_INT8)
