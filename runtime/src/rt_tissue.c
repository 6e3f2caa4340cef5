/*
 * rt_tissue.c — MICRO'18 §IV, inter-cell optimisation of an LSTM layer (Fig. 8, Fig. 10):
 *
 *   breakpoints search   Algorithm 2: relevance S of every link between consecutive cells,
 *                        from the projection X' = W x_t + b (P, already computed for every
 *                        step by lstmc_rt_rnn_proj) and the row sums D = sum|U|; a link with
 *                        S < alpha_inter is cut, so a sequence falls into independent
 *                        sub-layers (Fig. 8 a1);
 *   accuracy recovery    every sub-layer but a sequence's first starts from the predicted
 *                        context link h_pred (Eq. 6: the expectation of h over calibration
 *                        data; Fig. 8 a2);
 *   tissues              one cell per sub-layer per tissue (b1), then aligned so no tissue
 *                        holds more than MTS cells without breaking a link (b2);
 *   execution            per tissue one Sgemm(U, H_t) instead of one Sgemv per cell (Fig. 10
 *                        step 9): U is read once per tissue, not once per cell. U comes in
 *                        column panels (lstmc_rt_lstm_tissue_pack) so that the blocked
 *                        product walks it contiguously.
 *
 * The cell state at a breakpoint. The paper predicts only the context link h; a cut also
 * loses c_{t-1}. The sub-layer starts from c_pred, the expectation of c collected like Eq. 6
 * (lstmc calibrate), or from zero without calibration. Zero is the state every sequence
 * starts from (ONNX's default initial_c), and it is what a weak link means for c: S_f,
 * Algorithm 2's forget-gate term, is small only when X_f + b_f + D_f < -2, i.e. when f_t is
 * below sigmoid(-2) whatever h_{t-1} is, so little of c_{t-1} would have reached c_t anyway.
 *
 * Batch entries are independent chains: with alpha_inter = 0 nothing is cut, the sub-layers
 * are the N sequences and tissue k holds step k of every sequence (while N <= MTS) — the
 * batched schedule, U read once per step for the whole batch. Cells are updated by the same
 * element-wise code as rt_rnn.c's lstm_update (copied below, kept identical; the unit tests
 * pin the two kernels to each other), and the recurrent product sums h[k] * Ut[k][g] for
 * k = 0..H-1 onto the P row in the same order as lstmc_rt_rnn_rec, so with alpha_inter = 0
 * the results are the same floats.
 *
 * No allocation: the plan (sub-layers, tissues) and the states live in the caller's scratch.
 */
#include "lstmc_rt.h"

#include <math.h>
#include <string.h>

/* Largest cell count T*N per direction: the plan indexes cells with int32. */
#define MAX_CELLS (INT32_MAX / 16)

/* --- Algorithm 2: relevance value ----------------------------------------------------- */

static float
minf(float a, float b)
{
    return a < b ? a : b;
}

static float
maxf(float a, float b)
{
    return a > b ? a : b;
}

/* Line 5 for one element of gate i, c or o, clamped at 0 (see lstmc_rt.h). */
static float
gate_overlap(float xb, float d)
{
    const float a = fabsf(xb);
    const float s = minf(2.0f + minf(2.0f, a), minf(2.0f, 2.0f + d - maxf(2.0f, a)));

    return s > 0.0f ? s : 0.0f;
}

float
lstmc_rt_lstm_relevance(int64_t hidden, const float *x, const float *dsum)
{
    const int64_t H = hidden;
    float S = 0.0f; /* line 1 */
    int64_t j;

    if (!x || !dsum || H < 1)
        return 0.0f;
    for (j = 0; j < H; j++) { /* line 3; P and D rows are i, o, f, c */
        const float sf = minf(4.0f, maxf(x[2 * H + j] + dsum[2 * H + j] + 2.0f, 0.0f)); /* 4 */
        const float si = gate_overlap(x[j], dsum[j]);                                 /* 5 */
        const float so = gate_overlap(x[H + j], dsum[H + j]);
        const float sc = gate_overlap(x[3 * H + j], dsum[3 * H + j]);

        S += so * (sf + si * sc); /* lines 6-7 */
    }
    return S;
}

/* --- tissue formation and alignment -------------------------------------------------- */

int64_t
lstmc_rt_tissue_align_work(int64_t n_sub)
{
    return n_sub < 0 || n_sub > INT32_MAX / 4 ? -1 : 3 * n_sub;
}

/* One alignment attempt for K tissues; the tissue count, or -1 when K is infeasible. */
static int32_t
align_try(int32_t n_sub, const int32_t *len, int32_t mts, int32_t K, int32_t *tissue,
          int32_t *work)
{
    int32_t *start = work, *pos = work + n_sub, *act = work + 2 * n_sub;
    int32_t n_act = n_sub, k, i, j, s;

    for (s = 0; s < n_sub; s++) {
        pos[s] = 0;
        act[s] = s; /* unfinished sub-layers, in sub-layer order */
    }
    for (k = 0; n_act > 0; k++) {
        int32_t used = 0;

        /* Sub-layers whose remaining cells need every tissue up to K must go now. Once
         * critical, a sub-layer stays critical (rem and K - k both drop by one). */
        for (i = 0; i < n_act; i++) {
            s = act[i];
            if (len[s] - pos[s] >= K - k) {
                if (used == mts || len[s] - pos[s] > K - k)
                    return -1;
                tissue[start[s] + pos[s]++] = k;
                used++;
                act[i] = -1 - s; /* placed in this tissue */
            }
        }
        /* The free places go to the others in sub-layer order: the later sub-layers are the
         * ones moved on to thinner tissues (Fig. 8: cells 7 and 8). */
        for (i = 0; i < n_act && used < mts; i++) {
            s = act[i];
            if (s >= 0) {
                tissue[start[s] + pos[s]++] = k;
                used++;
            }
        }
        for (i = j = 0; i < n_act; i++) {
            s = act[i] < 0 ? -1 - act[i] : act[i];
            if (pos[s] < len[s])
                act[j++] = s;
        }
        n_act = j;
    }
    return k;
}

int32_t
lstmc_rt_tissue_align(int32_t n_sub, const int32_t *len, int32_t mts, int32_t *tissue,
                      int32_t *work)
{
    int64_t total = 0, K;
    int32_t s, k, maxlen = 0;

    if (n_sub < 0 || n_sub > INT32_MAX / 4)
        return -1;
    if (n_sub == 0)
        return 0;
    if (!len || !tissue || !work)
        return -1;
    for (s = 0; s < n_sub; s++) {
        if (len[s] < 1 || total > INT32_MAX - len[s])
            return -1;
        work[s] = (int32_t)total; /* start of sub-layer s */
        total += len[s];
        if (len[s] > maxlen)
            maxlen = len[s];
    }
    if (mts <= 0) { /* formation (b1) only */
        for (s = 0; s < n_sub; s++)
            for (k = 0; k < len[s]; k++)
                tissue[work[s] + k] = k;
        return maxlen;
    }
    /* N_min = ceil(N_origin / MTS) (Eq. 7), and no fewer than the longest sub-layer. */
    K = (total + mts - 1) / mts;
    if (K < maxlen)
        K = maxlen;
    for (; K <= total; K++) { /* K = total always succeeds: one cell per tissue */
        int32_t n = align_try(n_sub, len, mts, (int32_t)K, tissue, work);

        if (n >= 0)
            return n;
    }
    return -1; /* unreachable */
}

/* --- the LSTM cell ------------------------------------------------------------------- */

typedef struct dir_ctx {
    const lstmc_rt_rnn_params *p;
    int32_t d, rev;
    const lstmc_rt_act *act; /* f, g, h of this direction */
    const float *Peep;       /* [3H] (i o f) or NULL */
} dir_ctx;

static float
clip_pre(const lstmc_rt_rnn_params *p, float v)
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
 * rt_rnn.c's lstm_update with the biases already in the gates (schedule A+): gates [4H]
 * (i o f c) hold X*W^T + b + H*R^T; peepholes, clip and activations are applied here and
 * h, c updated in place. Keep identical to rt_rnn.c.
 */
static void
lstm_update(const dir_ctx *a, const float *restrict gates, float *restrict h, float *restrict c)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t H = p->hidden;
    const float *gi = gates, *go = gates + H, *gf = gates + 2 * H, *gc = gates + 3 * H;
    int64_t j;

    for (j = 0; j < H; j++) {
        float pi = gi[j], pf = gf[j], pc = gc[j], po = go[j];
        float it, ft, ct, ot, cn;

        if (a->Peep) {
            pi += a->Peep[j] * c[j];
            pf += a->Peep[2 * H + j] * c[j];
        }
        /* "+ 0.0f" is rt_rnn.c's "+ bi" with no bias: kept so both round alike (-0.0). */
        it = lstmc_rt_act_apply(&a->act[0], clip_pre(p, pi + 0.0f));
        /* input_forget couples the gates as ONNX Runtime does: ft = 1 - it. */
        ft = p->input_forget ? 1.0f - it : lstmc_rt_act_apply(&a->act[0], clip_pre(p, pf + 0.0f));
        ct = lstmc_rt_act_apply(&a->act[1], clip_pre(p, pc + 0.0f));
        cn = ft * c[j] + it * ct;
        /* The output gate's peephole sees the new cell state Ct. */
        if (a->Peep)
            po += a->Peep[H + j] * cn;
        ot = lstmc_rt_act_apply(&a->act[0], clip_pre(p, po + 0.0f));
        c[j] = cn;
        h[j] = ot * lstmc_rt_act_apply(&a->act[2], cn);
    }
}

/* --- the per-tissue recurrent product ------------------------------------------------- */

/* Register block of tissue_gemm: MR cells x NR gate columns of accumulators; NR is also the
 * panel width of lstmc_rt_lstm_tissue_pack. */
#define MR 4
#define NR 16

lstmc_rt_status
lstmc_rt_lstm_tissue_pack(int64_t n_dirs, int64_t hidden, const float *Ut, float *Up)
{
    const int64_t H = hidden, G = 4 * hidden;
    int64_t d, g0, k, g;

    if (!Ut || !Up)
        return LSTMC_RT_ERR_NULL;
    if (n_dirs < 1 || n_dirs > 2 || H < 1 || H > INT32_MAX / 64)
        return LSTMC_RT_ERR_BAD_PARAMS;
    for (d = 0; d < n_dirs; d++)
        for (g0 = 0; g0 < G; g0 += NR) {
            const int64_t gn = G - g0 < NR ? G - g0 : NR;
            float *pan = Up + d * H * G + g0 * H;

            for (k = 0; k < H; k++)
                for (g = 0; g < gn; g++)
                    pan[k * gn + g] = Ut[(d * H + k) * G + g0 + g];
        }
    return LSTMC_RT_OK;
}

/*
 * gates[m, 4H] += hbuf[m, H] x U (Fig. 10 step 9, Sgemm(U, H_t)), U in panels (see
 * lstmc_rt_lstm_tissue_pack): per panel, MR cells accumulate in registers while the panel's
 * H rows stream past, contiguously; so U leaves memory once per tissue (a panel is re-read
 * from cache for the next MR cells). Every gate still sums P + h[0]*U[0][g] + h[1]*U[1][g] +
 * ... in lstmc_rt_rnn_rec's order, so the results are the same floats.
 */
static void
tissue_gemm(int64_t m, int64_t H, const float *restrict hbuf, const float *restrict Up,
            float *restrict gates)
{
    const int64_t G = 4 * H;
    int64_t g0, i0, k, c, g;

    for (g0 = 0; g0 < G; g0 += NR) {
        const int64_t gn = G - g0 < NR ? G - g0 : NR;
        const float *restrict pan = Up + g0 * H; /* [H, gn] */

        for (i0 = 0; i0 < m; i0 += MR) {
            const int64_t mi = m - i0 < MR ? m - i0 : MR;

            if (gn == NR && mi == MR) { /* full block: fixed trip counts, vectorisable */
                float acc[MR][NR];

                for (c = 0; c < MR; c++)
                    for (g = 0; g < NR; g++)
                        acc[c][g] = gates[(i0 + c) * G + g0 + g];
                for (k = 0; k < H; k++) {
                    const float *restrict row = pan + k * NR;

                    for (c = 0; c < MR; c++) {
                        const float hk = hbuf[(i0 + c) * H + k];

                        for (g = 0; g < NR; g++)
                            acc[c][g] += hk * row[g];
                    }
                }
                for (c = 0; c < MR; c++)
                    for (g = 0; g < NR; g++)
                        gates[(i0 + c) * G + g0 + g] = acc[c][g];
            } else if (gn == NR) { /* fewer than MR cells left */
                for (c = 0; c < mi; c++) {
                    float acc[NR];

                    for (g = 0; g < NR; g++)
                        acc[g] = gates[(i0 + c) * G + g0 + g];
                    for (k = 0; k < H; k++) {
                        const float hk = hbuf[(i0 + c) * H + k];
                        const float *restrict row = pan + k * NR;

                        for (g = 0; g < NR; g++)
                            acc[g] += hk * row[g];
                    }
                    for (g = 0; g < NR; g++)
                        gates[(i0 + c) * G + g0 + g] = acc[g];
                }
            } else { /* the last, narrow panel */
                for (c = 0; c < mi; c++)
                    for (k = 0; k < H; k++) {
                        const float hk = hbuf[(i0 + c) * H + k];

                        for (g = 0; g < gn; g++)
                            gates[(i0 + c) * G + g0 + g] += hk * pan[k * gn + g];
                    }
            }
        }
    }
}

/* --- DRS inside tissues (MICRO'18 §V in a tissue; contract in lstmc_rt.h) ------------- */

/* This direction's DRS weights and threshold; NULL drs = the plain tissue kernel. */
typedef struct drs_in {
    const float *Uo, *Ufic; /* this direction's, lstmc_rt_drs_pack's layouts */
    float alpha;
    int32_t *keep;  /* scratch [cap, H]: 1 where cell i keeps unit j */
    int32_t *count; /* scratch [H]: cells of the tissue keeping unit j */
    int32_t *R;     /* scratch [H]: one cell's R, then the tissue's union */
    lstmc_rt_drs_stats *st;
} drs_in;

/* Lines 4 (U_o part of the tissue's Sgemm) to 7 for the m cells of a tissue: the o columns
 * of gates get P_o + H_prev x U_o (summed in lstmc_rt_rnn_rec's order), o_t is applied in
 * place, then the rows of U_f,i,c of every unit some cell keeps are read once and multiplied
 * for the cells that keep it. */
static void
drs_tissue_product(const dir_ctx *a, const drs_in *dr, int64_t m, const float *restrict hbuf,
                   float *restrict gates)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t H = p->hidden, G = 4 * H;
    int64_t i, j, k, j0, c, g, n_union = 0;
    int32_t n, r;

    /* line 4: go[i] = P_o + hbuf[i] x U_o, MR cells x NR columns in registers */
    for (j0 = 0; j0 < H; j0 += NR) {
        const int64_t jn = H - j0 < NR ? H - j0 : NR;

        for (i = 0; i < m; i += MR) {
            const int64_t mi = m - i < MR ? m - i : MR;
            float acc[MR][NR];

            for (c = 0; c < mi; c++)
                for (g = 0; g < jn; g++)
                    acc[c][g] = gates[(i + c) * G + H + j0 + g];
            for (k = 0; k < H; k++) {
                const float *restrict row = dr->Uo + k * H + j0;

                for (c = 0; c < mi; c++) {
                    const float hk = hbuf[(i + c) * H + k];

                    for (g = 0; g < jn; g++)
                        acc[c][g] += hk * row[g];
                }
            }
            for (c = 0; c < mi; c++)
                for (g = 0; g < jn; g++)
                    gates[(i + c) * G + H + j0 + g] = acc[c][g];
        }
    }
    /* lines 5-6: o_t, each cell's R, the tissue's union */
    memset(dr->count, 0, (size_t)H * sizeof(int32_t));
    for (i = 0; i < m; i++) {
        float *go = gates + i * G + H;
        int32_t *keep = dr->keep + i * H;

        for (j = 0; j < H; j++)
            go[j] = lstmc_rt_act_apply(&a->act[0], clip_pre(p, go[j] + 0.0f));
        n = lstmc_rt_drs_compact(H, go, dr->alpha, dr->R);
        memset(keep, 0, (size_t)H * sizeof(int32_t));
        for (r = 0; r < n; r++) {
            keep[dr->R[r]] = 1;
            dr->count[dr->R[r]]++;
        }
        dr->st->cells++;
        dr->st->rows_total += 3 * H;
        dr->st->rows_skipped += 3 * (H - n);
    }
    for (j = 0; j < H; j++)
        if (dr->count[j] > 0)
            dr->R[n_union++] = (int32_t)j;
    dr->st->rows_loaded += 3 * n_union;
    /* line 7: a unit's three rows (3H contiguous floats) are loaded once for the tissue and
     * multiplied for the cells that keep it, up to MR cells at a time (3 MR independent sums,
     * each in k order) */
    for (r = 0; r < n_union; r++) {
        const float *ri, *rf, *rc;
        int64_t cell[MR], nc = 0;

        j = dr->R[r];
        ri = dr->Ufic + j * 3 * H;
        rf = ri + H;
        rc = rf + H;
        for (i = 0; i <= m; i++) {
            float acc[3][MR];

            if (i < m && dr->keep[i * H + j])
                cell[nc++] = i;
            if (nc < MR && !(i == m && nc > 0))
                continue;
            for (c = 0; c < nc; c++) {
                acc[0][c] = gates[cell[c] * G + j];
                acc[1][c] = gates[cell[c] * G + 2 * H + j];
                acc[2][c] = gates[cell[c] * G + 3 * H + j];
            }
            if (nc == MR) { /* fixed trip count: unrolled, 3 MR chains */
                for (k = 0; k < H; k++)
                    for (c = 0; c < MR; c++) {
                        const float hk = hbuf[cell[c] * H + k];

                        acc[0][c] += hk * ri[k];
                        acc[1][c] += hk * rf[k];
                        acc[2][c] += hk * rc[k];
                    }
            } else { /* the cells left, one at a time */
                for (c = 0; c < nc; c++) {
                    const float *restrict h = hbuf + cell[c] * H;
                    float ai = acc[0][c], af = acc[1][c], ac = acc[2][c];

                    for (k = 0; k < H; k++) {
                        ai += h[k] * ri[k];
                        af += h[k] * rf[k];
                        ac += h[k] * rc[k];
                    }
                    acc[0][c] = ai;
                    acc[1][c] = af;
                    acc[2][c] = ac;
                }
            }
            for (c = 0; c < nc; c++) {
                gates[cell[c] * G + j] = acc[0][c];
                gates[cell[c] * G + 2 * H + j] = acc[1][c];
                gates[cell[c] * G + 3 * H + j] = acc[2][c];
            }
            nc = 0;
        }
    }
}

/* Line 8 for one cell: lstm_update for the kept units (o_t already applied at [H, 2H)), c = 0
 * and h = o h(0) for the others. */
static void
drs_update(const dir_ctx *a, const float *restrict gates, const int32_t *keep, float *restrict h,
           float *restrict c)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t H = p->hidden;
    const float *gi = gates, *go = gates + H, *gf = gates + 2 * H, *gc = gates + 3 * H;
    const float h0 = lstmc_rt_act_apply(&a->act[2], 0.0f);
    int64_t j;

    for (j = 0; j < H; j++) {
        float pi = gi[j], pf = gf[j], it, ft, ct, cn;

        if (!keep[j]) {
            c[j] = 0.0f;
            h[j] = go[j] * h0;
            continue;
        }
        if (a->Peep) {
            pi += a->Peep[j] * c[j];
            pf += a->Peep[2 * H + j] * c[j];
        }
        it = lstmc_rt_act_apply(&a->act[0], clip_pre(p, pi + 0.0f));
        ft = p->input_forget ? 1.0f - it : lstmc_rt_act_apply(&a->act[0], clip_pre(p, pf + 0.0f));
        ct = lstmc_rt_act_apply(&a->act[1], clip_pre(p, gc[j] + 0.0f));
        cn = ft * c[j] + it * ct;
        c[j] = cn;
        h[j] = go[j] * lstmc_rt_act_apply(&a->act[2], cn);
    }
}

/* --- layout helpers (as rt_rnn.c) ------------------------------------------------------ */

static int64_t
row_at(const lstmc_rt_rnn_params *p, int64_t t, int64_t n)
{
    return p->layout ? n * p->seq_len + t : t * p->batch + n;
}

static int64_t
y_at(const lstmc_rt_rnn_params *p, int64_t t, int32_t d, int64_t n)
{
    int64_t D = p->n_dirs;

    return (p->layout ? (n * p->seq_len + t) * D + d : (t * D + d) * p->batch + n) * p->hidden;
}

static int64_t
state_at(const lstmc_rt_rnn_params *p, int32_t d, int64_t n)
{
    return (p->layout ? n * p->n_dirs + d : d * p->batch + n) * p->hidden;
}

/* --- parameters and scratch ---------------------------------------------------------- */

/* Per-direction plan sizes: C cells at most, tissues of cap cells, slots live states. */
typedef struct sizes {
    int64_t C, cap, slots;
} sizes;

static int
params_ok(const lstmc_rt_tissue_params *tp, sizes *z)
{
    const lstmc_rt_rnn_params *p = &tp->rnn;
    int64_t T = p->seq_len, N = p->batch, H = p->hidden;
    int32_t k;

    if (p->cell != LSTMC_RT_CELL_LSTM || p->packed != 1 || tp->mts < 1)
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
    if (N != 0 && T > MAX_CELLS / N)
        return 0;
    for (k = 0; k < 3 * p->n_dirs; k++)
        if (p->act[k].kind < LSTMC_RT_ACT_SIGMOID || p->act[k].kind > LSTMC_RT_ACT_SOFTPLUS)
            return 0;
    z->C = T * N;
    z->cap = tp->mts < z->C ? tp->mts : z->C;
    /* Live sub-layers (started, not finished) never exceed 2 * MTS: at most MTS critical
     * ones (each places a cell in every tissue) and, since the free places always go to the
     * first unfinished non-critical sub-layers, at most MTS started non-critical ones. */
    z->slots = 2 * (int64_t)tp->mts < z->C ? 2 * (int64_t)tp->mts : z->C;
    if (z->cap < 1)
        z->cap = 1;
    if (z->slots < 1)
        z->slots = 1;
    return 1;
}

/* floats: gates [cap, 4H] | hbuf [cap, H] | state [slots, 2H];
 * int32:  sub_n, sub_step0, sub_len, tissue, order, slot_of [C] each | tstart [C+1] |
 *         free [slots] | work [3C] (alignment; then cursor and pos) */
static int64_t
scratch_words(const sizes *z, int64_t H)
{
    return z->cap * 5 * H + z->slots * 2 * H + 6 * z->C + (z->C + 1) + z->slots + 3 * z->C;
}

int64_t
lstmc_rt_lstm_tissue_scratch(const lstmc_rt_tissue_params *p)
{
    sizes z;

    if (!p || !params_ok(p, &z))
        return -1;
    return scratch_words(&z, p->rnn.hidden);
}

/* --- execution ----------------------------------------------------------------------- */

typedef struct plan {
    float *gates, *hbuf, *state;
    int32_t *sub_n, *sub_step0, *sub_len, *tissue, *order, *slot_of, *tstart, *free_slots, *work;
} plan;

typedef struct io {
    const float *P, *Up, *dsum; /* this direction's */
    const int32_t *seq_lens;
    const float *init_h, *init_c, *h_pred, *c_pred;
    float *Y, *Y_h, *Y_c;
} io;

static int64_t
seq_of(const lstmc_rt_rnn_params *p, const int32_t *seq_lens, int64_t n)
{
    return seq_lens ? seq_lens[n] : p->seq_len;
}

static lstmc_rt_status
run_direction(const dir_ctx *a, const sizes *z, const plan *pl, const io *o, float alpha_inter,
              lstmc_rt_tissue_stats *st, const drs_in *dr)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t H = p->hidden, G = 4 * H, N = p->batch;
    const size_t hbytes = (size_t)H * sizeof(float);
    const int cut_some = alpha_inter > 0.0f; /* S >= 0: alpha <= 0 (or NaN) cuts nothing */
    int32_t n_sub = 0, n_cells = 0, K, s, tau, n_free;
    int64_t n, step, t, i, k;

    /* 1. breakpoints search: chains (batch entries) split into sub-layers */
    for (n = 0; n < N; n++) {
        const int64_t sn = seq_of(p, o->seq_lens, n);

        for (step = 0; step < sn; step++) {
            t = a->rev ? sn - 1 - step : step;
            if (step == 0 ||
                (cut_some && lstmc_rt_lstm_relevance(H, o->P + row_at(p, t, n) * G,
                                                     o->dsum) < alpha_inter)) {
                pl->sub_n[n_sub] = (int32_t)n;
                pl->sub_step0[n_sub] = (int32_t)step;
                pl->sub_len[n_sub++] = 1;
            } else {
                pl->sub_len[n_sub - 1]++;
            }
        }
        n_cells += (int32_t)sn;
        if (sn > 0)
            st->links += sn - 1;
    }
    st->cells += n_cells;
    st->sub_layers += n_sub;

    /* 2. tissue formation and alignment */
    K = lstmc_rt_tissue_align(n_sub, pl->sub_len, (int32_t)z->cap, pl->tissue, pl->work);
    if (K < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    st->tissues += K;
    /* order: the sub-layer of each cell, grouped by tissue (counting sort) */
    for (tau = 0; tau <= K; tau++)
        pl->tstart[tau] = 0;
    for (i = 0; i < n_cells; i++)
        pl->tstart[pl->tissue[i] + 1]++;
    for (tau = 0; tau < K; tau++) {
        pl->tstart[tau + 1] += pl->tstart[tau];
        pl->work[tau] = pl->tstart[tau]; /* cursor */
    }
    for (s = 0, i = 0; s < n_sub; s++)
        for (k = 0; k < pl->sub_len[s]; k++, i++)
            pl->order[pl->work[pl->tissue[i]]++] = s;
    for (s = 0; s < n_sub; s++)
        pl->work[s] = 0; /* pos: cells of sub-layer s done */
    for (n_free = 0; n_free < z->slots; n_free++)
        pl->free_slots[n_free] = (int32_t)(z->slots - 1 - n_free);

    /* 3. the tissues, in order */
    for (tau = 0; tau < K; tau++) {
        const int32_t c0 = pl->tstart[tau], m = pl->tstart[tau + 1] - c0;

        if (m > z->cap)
            return LSTMC_RT_ERR_BAD_PARAMS; /* cannot happen: alignment keeps m <= mts */
        /* gather: P rows and previous h of every cell of the tissue */
        for (i = 0; i < m; i++) {
            const int32_t sl = pl->order[c0 + i];
            float *hs, *cs;

            n = pl->sub_n[sl];
            step = pl->sub_step0[sl] + pl->work[sl];
            t = a->rev ? seq_of(p, o->seq_lens, n) - 1 - step : step;
            if (pl->work[sl] == 0) { /* the sub-layer's first cell: a state slot */
                if (n_free == 0)
                    return LSTMC_RT_ERR_BAD_PARAMS; /* cannot happen, see params_ok */
                pl->slot_of[sl] = pl->free_slots[--n_free];
                hs = pl->state + pl->slot_of[sl] * 2 * H;
                cs = hs + H;
                if (pl->sub_step0[sl] == 0) { /* the sequence's start */
                    if (o->init_h)
                        memcpy(hs, o->init_h + state_at(p, a->d, n), hbytes);
                    else
                        memset(hs, 0, hbytes);
                    if (o->init_c)
                        memcpy(cs, o->init_c + state_at(p, a->d, n), hbytes);
                    else
                        memset(cs, 0, hbytes);
                } else { /* after a breakpoint: the predicted context link (Eq. 6) */
                    if (o->h_pred)
                        memcpy(hs, o->h_pred, hbytes);
                    else
                        memset(hs, 0, hbytes);
                    if (o->c_pred)
                        memcpy(cs, o->c_pred, hbytes);
                    else
                        memset(cs, 0, hbytes);
                }
            }
            hs = pl->state + pl->slot_of[sl] * 2 * H;
            memcpy(pl->gates + i * G, o->P + row_at(p, t, n) * G, (size_t)G * sizeof(float));
            memcpy(pl->hbuf + i * H, hs, hbytes);
        }
        /* Sgemm(U, H_t): one pass over Ut for the whole tissue (DRS: U_o, then the rows of
         * U_f,i,c some cell of the tissue keeps) */
        if (dr)
            drs_tissue_product(a, dr, m, pl->hbuf, pl->gates);
        else
            tissue_gemm(m, H, pl->hbuf, o->Up, pl->gates);
        /* lstm_ew per cell, outputs, and the end of sub-layers */
        for (i = 0; i < m; i++) {
            const int32_t sl = pl->order[c0 + i];
            float *hs = pl->state + pl->slot_of[sl] * 2 * H, *cs = hs + H;
            int64_t sn;

            n = pl->sub_n[sl];
            sn = seq_of(p, o->seq_lens, n);
            step = pl->sub_step0[sl] + pl->work[sl];
            t = a->rev ? sn - 1 - step : step;
            if (dr)
                drs_update(a, pl->gates + i * G, dr->keep + i * H, hs, cs);
            else
                lstm_update(a, pl->gates + i * G, hs, cs);
            if (o->Y)
                memcpy(o->Y + y_at(p, t, a->d, n), hs, hbytes);
            if (++pl->work[sl] == pl->sub_len[sl]) {
                if (step == sn - 1) { /* the sequence's last cell */
                    if (o->Y_h)
                        memcpy(o->Y_h + state_at(p, a->d, n), hs, hbytes);
                    if (o->Y_c)
                        memcpy(o->Y_c + state_at(p, a->d, n), cs, hbytes);
                }
                pl->free_slots[n_free++] = pl->slot_of[sl];
            }
        }
    }

    /* rows past each sequence's end are zero; an empty sequence has zero Y_h / Y_c (as
     * lstmc_rt_rnn_rec, matching ONNX Runtime) */
    for (n = 0; n < N; n++) {
        const int64_t sn = seq_of(p, o->seq_lens, n);

        if (o->Y)
            for (t = sn; t < p->seq_len; t++)
                memset(o->Y + y_at(p, t, a->d, n), 0, hbytes);
        if (sn == 0) {
            if (o->Y_h)
                memset(o->Y_h + state_at(p, a->d, n), 0, hbytes);
            if (o->Y_c)
                memset(o->Y_c + state_at(p, a->d, n), 0, hbytes);
        }
    }
    return LSTMC_RT_OK;
}

/* DRS weights of lstmc_rt_lstm_tissue_drs (NULL: the plain kernel). */
typedef struct drs_args {
    const float *Uo, *Ufic;
    float alpha;
    lstmc_rt_drs_stats *st;
} drs_args;

static lstmc_rt_status
tissue_run(const lstmc_rt_tissue_params *tp, float alpha_inter, const float *P, const float *Up,
           const float *row_abs_sum, const int32_t *seq_lens, const float *init_h,
           const float *init_c, const float *Peep, const float *h_pred, const float *c_pred,
           float *Y, float *Y_h, float *Y_c, lstmc_rt_tissue_stats *stats, void *scratch,
           const drs_args *da)
{
    const lstmc_rt_rnn_params *p;
    lstmc_rt_tissue_stats local;
    sizes z;
    plan pl;
    int64_t H, G, n;
    int32_t d;
    float *f;
    int32_t *w;

    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!tp)
        return LSTMC_RT_ERR_NULL;
    if (!params_ok(tp, &z))
        return LSTMC_RT_ERR_BAD_PARAMS;
    p = &tp->rnn;
    if (p->batch == 0)
        return LSTMC_RT_OK;
    if (!P || (!Up && !da) || !scratch || (alpha_inter > 0.0f && !row_abs_sum))
        return LSTMC_RT_ERR_NULL;
    if (da && (!da->Uo || !da->Ufic))
        return LSTMC_RT_ERR_NULL;
    if (da && Peep) /* o_t must not depend on c_t */
        for (d = 0; d < p->n_dirs; d++)
            for (n = 0; n < p->hidden; n++)
                if (Peep[d * 3 * p->hidden + p->hidden + n] != 0.0f)
                    return LSTMC_RT_ERR_BAD_PARAMS;
    if (seq_lens)
        for (n = 0; n < p->batch; n++)
            if (seq_lens[n] < 0 || seq_lens[n] > p->seq_len)
                return LSTMC_RT_ERR_SEQ_LEN;

    H = p->hidden;
    G = 4 * H;
    f = scratch;
    pl.gates = f;
    pl.hbuf = pl.gates + z.cap * G;
    pl.state = pl.hbuf + z.cap * H;
    w = (int32_t *)(void *)(pl.state + z.slots * 2 * H);
    pl.sub_n = w;
    pl.sub_step0 = pl.sub_n + z.C;
    pl.sub_len = pl.sub_step0 + z.C;
    pl.tissue = pl.sub_len + z.C;
    pl.order = pl.tissue + z.C;
    pl.slot_of = pl.order + z.C;
    pl.tstart = pl.slot_of + z.C;
    pl.free_slots = pl.tstart + z.C + 1;
    pl.work = pl.free_slots + z.slots;

    for (d = 0; d < p->n_dirs; d++) {
        dir_ctx a;
        io o;
        drs_in dr;
        lstmc_rt_status s;

        if (da) { /* after the plan: keep [cap, H] | count [H] | R [H] */
            dr.Uo = da->Uo + d * H * H;
            dr.Ufic = da->Ufic + d * 3 * H * H;
            dr.alpha = da->alpha;
            dr.keep = pl.work + 3 * z.C;
            dr.count = dr.keep + z.cap * H;
            dr.R = dr.count + H;
            dr.st = da->st;
        }

        a.p = p;
        a.d = d;
        a.rev = p->n_dirs == 2 ? d : p->reverse;
        a.act = &p->act[d * 3];
        a.Peep = Peep ? Peep + d * 3 * H : NULL;
        o.P = P + d * z.C * G;
        o.Up = Up ? Up + d * H * G : NULL;
        o.dsum = row_abs_sum ? row_abs_sum + d * G : NULL;
        o.seq_lens = seq_lens;
        o.init_h = init_h;
        o.init_c = init_c;
        o.h_pred = h_pred ? h_pred + d * H : NULL;
        o.c_pred = c_pred ? c_pred + d * H : NULL;
        o.Y = Y;
        o.Y_h = Y_h;
        o.Y_c = Y_c;
        s = run_direction(&a, &z, &pl, &o, alpha_inter, stats, da ? &dr : NULL);
        if (s != LSTMC_RT_OK)
            return s;
    }
    return LSTMC_RT_OK;
}

/* Contract in lstmc_rt.h. */
lstmc_rt_status
lstmc_rt_lstm_tissue(const lstmc_rt_tissue_params *tp, float alpha_inter, const float *P,
                     const float *Up, const float *row_abs_sum, const int32_t *seq_lens,
                     const float *init_h, const float *init_c, const float *Peep,
                     const float *h_pred, const float *c_pred, float *Y, float *Y_h,
                     float *Y_c, lstmc_rt_tissue_stats *stats, void *scratch)
{
    return tissue_run(tp, alpha_inter, P, Up, row_abs_sum, seq_lens, init_h, init_c, Peep,
                      h_pred, c_pred, Y, Y_h, Y_c, stats, scratch, NULL);
}

int64_t
lstmc_rt_lstm_tissue_drs_scratch(const lstmc_rt_tissue_params *p)
{
    sizes z;

    if (!p || !params_ok(p, &z))
        return -1;
    return scratch_words(&z, p->rnn.hidden) + (z.cap + 2) * p->rnn.hidden;
}

/* Contract in lstmc_rt.h ("DRS inside tissues"). */
lstmc_rt_status
lstmc_rt_lstm_tissue_drs(const lstmc_rt_tissue_params *tp, float alpha_inter, float alpha_intra,
                         const float *P, const float *Up, const float *row_abs_sum,
                         const int32_t *seq_lens, const float *init_h, const float *init_c,
                         const float *Peep, const float *h_pred, const float *c_pred,
                         const float *Uo, const float *Ufic, float *Y, float *Y_h, float *Y_c,
                         lstmc_rt_tissue_stats *stats, lstmc_rt_drs_stats *drs_stats,
                         void *scratch)
{
    lstmc_rt_drs_stats local;
    drs_args da;

    (void)Up; /* Uo and Ufic replace the panels */
    if (!drs_stats)
        drs_stats = &local;
    memset(drs_stats, 0, sizeof *drs_stats);
    da.Uo = Uo;
    da.Ufic = Ufic;
    da.alpha = alpha_intra;
    da.st = drs_stats;
    return tissue_run(tp, alpha_inter, P, NULL, row_abs_sum, seq_lens, init_h, init_c, Peep,
                      h_pred, c_pred, Y, Y_h, Y_c, stats, scratch, &da);
}
