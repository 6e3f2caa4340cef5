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
 * element-wise code as rt_rnn.c (lstmc_rt_lstm_update, internal/cell.h; the unit tests
 * pin the two kernels to each other), and the recurrent product sums h[k] * Ut[k][g] for
 * k = 0..H-1 onto the P row in the same order as lstmc_rt_rnn_rec, so with alpha_inter = 0
 * the results are the same floats.
 *
 * No allocation: the plan (sub-layers, tissues) and the states live in the caller's scratch.
 * The plan (lstmc_rt_tissue_plan) is also what the LLVM tissue kernels run
 * (codegen/llvm/tissue.c, emit_tissue): they replace the gather, product and update below
 * with register-tiled, vectorised code and keep these cuts, tissues and slots.
 */
#include "internal/cell.h"
#include "internal/lowp_view.h"
#include "internal/testing.h"
#include "lstmc_rt_kernels.h"

#include <math.h>
#include <string.h>

/* Largest cell count T*N per direction (rt_plan.c's bound too). */
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

/* Line 5 for one element of gate i, c or o, clamped at 0 (see lstmc_rt_kernels.h). */
static float
gate_overlap(float xb, float d)
{
    const float a = fabsf(xb);
    const float s = minf(2.0f + minf(2.0f, a), minf(2.0f, 2.0f + d - maxf(2.0f, a)));

    return s > 0.0f ? s : 0.0f;
}

float
lstmc_rt_lstm_relevance_shifted(int64_t hidden, const float *x, const float *radius,
                                const float *shift)
{
    const int64_t H = hidden;
    float S = 0.0f; /* line 1 */
    int64_t j;

    if (!x || !radius || H < 1)
        return 0.0f;
    for (j = 0; j < H; j++) { /* line 3; P and D rows are i, o, f, c */
        float xi = x[j], xo = x[H + j], xf = x[2 * H + j], xc = x[3 * H + j];
        float sf, si, so, sc;
        if (shift) { /* the centre of U h's calibrated range */
            xi += shift[j];
            xo += shift[H + j];
            xf += shift[2 * H + j];
            xc += shift[3 * H + j];
        }
        sf = minf(4.0f, maxf(xf + radius[2 * H + j] + 2.0f, 0.0f)); /* 4 */
        si = gate_overlap(xi, radius[j]);                           /* 5 */
        so = gate_overlap(xo, radius[H + j]);
        sc = gate_overlap(xc, radius[3 * H + j]);
        S += so * (sf + si * sc); /* lines 6-7 */
    }
    return S;
}

/* max(0, 1 - |z| k): the triangle under sigmoid' (k = 1/4, times 1/4) and tanh' (k = 1/2) */
static float
tri(float z, float k)
{
    return maxf(0.0f, 1.0f - fabsf(z) * k);
}

float
lstmc_rt_lstm_sensitivity(int64_t hidden, const float *x, const float *radius, const float *shift)
{
    const int64_t H = hidden;
    float S = 0.0f;
    int64_t j;

    if (!x || !radius || H < 1)
        return 0.0f;
    for (j = 0; j < H; j++) { /* rows i, o, f, c */
        float zi = x[j], zo = x[H + j], zf = x[2 * H + j], zc = x[3 * H + j], s3;
        if (shift) {
            zi += shift[j];
            zo += shift[H + j];
            zf += shift[2 * H + j];
            zc += shift[3 * H + j];
        }
        s3 = tri(zi, 0.25f) * radius[j] + tri(zo, 0.25f) * radius[H + j] +
             tri(zf, 0.25f) * radius[2 * H + j];
        S += 0.25f * s3 + tri(zc, 0.5f) * radius[3 * H + j];
    }
    return S;
}

void
lstmc_rt_lstm_sensitivity_scale(int64_t hidden, float *radius)
{
    const int64_t H = hidden;
    double n = 0.0;
    int64_t j;

    if (!radius || H < 1)
        return;
    for (j = 0; j < H; j++)
        n += 0.25 * ((double)radius[j] + radius[H + j] + radius[2 * H + j]) + radius[3 * H + j];
    if (n > 0.0)
        for (j = 0; j < 4 * H; j++)
            radius[j] = (float)(radius[j] / n);
}

float
lstmc_rt_lstm_relevance(int64_t hidden, const float *x, const float *dsum)
{
    return lstmc_rt_lstm_relevance_shifted(hidden, x, dsum, NULL);
}

/* --- the LSTM cell ------------------------------------------------------------------- */

typedef struct dir_ctx {
    const lstmc_rt_rnn_params *p;
    int32_t d, rev;
    const lstmc_rt_act *act; /* f, g, h of this direction */
    const float *Peep;       /* [3H] (i o f) or NULL */
} dir_ctx;

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

/* U element e of the panels in format fmt (fp32, fp16, bf16 or int8's q; tissue_params.wfmt) */
static float
u_at(const void *Up, int32_t fmt, int64_t e)
{
    if (fmt == LSTMC_RT_WFMT_FP16)
        return lstmc_rt_f16_to_f32(((const uint16_t *)Up)[e]);
    if (fmt == LSTMC_RT_WFMT_BF16)
        return lstmc_rt_bf16_to_f32(((const uint16_t *)Up)[e]);
    if (fmt == LSTMC_RT_WFMT_INT8)
        return (float)((const signed char *)Up)[e];
    return ((const float *)Up)[e];
}

/* tissue_gemm with U's panels stored in fmt (fp16 / bf16), widened as they are read: the same
 * sums in the same order, one cell at a time (the reference; the LLVM kernel is the fast
 * one). int8 (scale: the direction's column scales s[4H]): gates += s[g] * sum_k h_k q[k][g],
 * as the exact int8 recurrence (rt_lowp.c). */
static void
tissue_gemm_lowp(int64_t m, int64_t H, const float *restrict hbuf, const void *Up, int32_t fmt,
                 const float *scale, float *restrict gates)
{
    const int64_t G = 4 * H;
    int64_t g0, c, k, g;

    for (g0 = 0; g0 < G; g0 += NR) {
        const int64_t gn = G - g0 < NR ? G - g0 : NR;
        for (c = 0; c < m; c++) {
            float acc[NR];

            for (g = 0; g < gn; g++)
                acc[g] = scale ? 0.0f : gates[c * G + g0 + g];
            for (k = 0; k < H; k++) {
                const float hk = hbuf[c * H + k];
                for (g = 0; g < gn; g++)
                    acc[g] += hk * u_at(Up, fmt, g0 * H + k * gn + g);
            }
            for (g = 0; g < gn; g++)
                gates[c * G + g0 + g] =
                    scale ? gates[c * G + g0 + g] + scale[g0 + g] * acc[g] : acc[g];
        }
    }
}

/* --- DRS inside tissues (MICRO'18 §V in a tissue; contract in lstmc_rt_kernels.h) ---- */

/* This direction's DRS weights and threshold; NULL drs = the plain tissue kernel. */
typedef struct drs_in {
    lowp_view uo, uf; /* this direction's, lstmc_rt_drs_pack's layouts in tp->wfmt */
    float alpha;
    int32_t *keep;  /* scratch [cap, H]: 1 where cell i keeps unit j */
    int32_t *count; /* scratch [H]: cells of the tissue keeping unit j */
    int32_t *R;     /* scratch [H]: one cell's R, then the tissue's union */
    lstmc_rt_drs_stats *st;
} drs_in;

/* Lines 4 and 7 of one cell with U_o and U_f,i,c in a reduced-precision format (the reference:
 * one sum per gate row in k order; int8 from 0, then x + s * sum). keep NULL: line 4 (the o
 * columns of gr); else line 7 for the units keep marks. */
static void
drs_cell_lowp(const drs_in *dr, int64_t H, const float *restrict h, const int32_t *keep,
              float *restrict gr)
{
    int64_t j, k;

    for (j = 0; j < H; j++) {
        if (!keep) {
            float acc = lowp_view_start(&dr->uo, gr[H + j]);
            for (k = 0; k < H; k++)
                acc += h[k] * lowp_view_at(&dr->uo, k * H + j);
            gr[H + j] = lowp_view_finish(&dr->uo, j, gr[H + j], acc);
            continue;
        }
        if (keep[j]) /* i, f, c: gate columns 0, 2H, 3H */
            lstmc_rt_drs_unit_rows(H, &dr->uf, j, h, gr + j, gr + 2 * H + j, gr + 3 * H + j);
    }
}

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
    for (i = 0; dr->uo.fmt != LSTMC_RT_WFMT_FP32 && i < m; i++)
        drs_cell_lowp(dr, H, hbuf + i * H, NULL, gates + i * G);
    for (j0 = 0; dr->uo.fmt == LSTMC_RT_WFMT_FP32 && j0 < H; j0 += NR) {
        const int64_t jn = H - j0 < NR ? H - j0 : NR;

        for (i = 0; i < m; i += MR) {
            const int64_t mi = m - i < MR ? m - i : MR;
            float acc[MR][NR];

            for (c = 0; c < mi; c++)
                for (g = 0; g < jn; g++)
                    acc[c][g] = gates[(i + c) * G + H + j0 + g];
            for (k = 0; k < H; k++) {
                const float *restrict row = (const float *)dr->uo.w + k * H + j0;

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
            go[j] = lstmc_rt_act_apply(&a->act[0], lstmc_rt_clip_pre(p, go[j] + 0.0f));
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
    if (dr->uf.fmt != LSTMC_RT_WFMT_FP32) {
        for (i = 0; i < m; i++)
            drs_cell_lowp(dr, H, hbuf + i * H, dr->keep + i * H, gates + i * G);
        return;
    }
    /* line 7: a unit's three rows (3H contiguous floats) are loaded once for the tissue and
     * multiplied for the cells that keep it, up to MR cells at a time (3 MR independent sums,
     * each in k order) */
    for (r = 0; r < n_union; r++) {
        const float *ri, *rf, *rc;
        int64_t cell[MR], nc = 0;

        j = dr->R[r];
        ri = (const float *)dr->uf.w + j * 3 * H;
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

/* Line 8 for one cell: lstmc_rt_lstm_update for the kept units (o_t already applied at [H, 2H)), c
 * = 0 and h = o h(0) for the others. */
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
        float pi = gi[j], pf = gf[j], cn;

        if (!keep[j]) {
            c[j] = 0.0f;
            h[j] = go[j] * h0;
            continue;
        }
        if (a->Peep) {
            pi += a->Peep[j] * c[j];
            pf += a->Peep[2 * H + j] * c[j];
        }
        cn = lstmc_rt_lstm_cn(p, a->act, pi + 0.0f, pf + 0.0f, gc[j] + 0.0f, c[j]);
        c[j] = cn;
        h[j] = go[j] * lstmc_rt_act_apply(&a->act[2], cn);
    }
}

/* --- parameters and scratch ---------------------------------------------------------- */

/* The plan's checks (lstmc_rt_tissue_layout_of) and the cell's: activations, clip, U's format */
static int
params_ok(const lstmc_rt_tissue_params *tp)
{
    lstmc_rt_tissue_layout l;

    return tp && tp->wfmt >= LSTMC_RT_WFMT_FP32 && tp->wfmt <= LSTMC_RT_WFMT_INT8 &&
           lstmc_rt_packed_lstm_ok(&tp->rnn) && lstmc_rt_tissue_layout_of(tp, &l) == 0;
}

int64_t
lstmc_rt_lstm_tissue_scratch(const lstmc_rt_tissue_params *p)
{
    lstmc_rt_tissue_layout l;

    return !params_ok(p) || lstmc_rt_tissue_layout_of(p, &l) < 0 ? -1 : l.words;
}

/* --- the plan ------------------------------------------------------------------------ */

static int64_t
seq_of(const lstmc_rt_rnn_params *p, const int32_t *seq_lens, int64_t n)
{
    return seq_lens ? seq_lens[n] : p->seq_len;
}

/* The float relevance as a plan score: S >= 0 (or NaN, which cuts nothing), and for such
 * floats the order of their bit patterns as int32 is the order of the values, so S <
 * alpha_inter (alpha_inter > 0) exactly when bits(S) < bits(alpha_inter), and the lowest S
 * has the lowest bits. */
static int64_t
float_key(float v)
{
    int32_t b;

    memcpy(&b, &v, sizeof b);
    return b;
}

typedef struct float_scores {
    int64_t H;
    int32_t kind;
    const float *Pd, *dsum, *shift, *rel;
} float_scores;

/* S of the link into P's row r: the caller's (rel) or Algorithm 2's. */
static int64_t
float_score(const void *ctx, int64_t r)
{
    const float_scores *f = ctx;

    if (f->rel)
        return float_key(f->rel[r]);
    if (f->kind == LSTMC_RT_REL_SENSITIVITY)
        return float_key(lstmc_rt_lstm_sensitivity(f->H, f->Pd + r * 4 * f->H, f->dsum, f->shift));
    return float_key(
        lstmc_rt_lstm_relevance_shifted(f->H, f->Pd + r * 4 * f->H, f->dsum, f->shift));
}

/* Contract in lstmc_rt_kernels.h. */
int32_t
lstmc_rt_tissue_plan(const lstmc_rt_tissue_params *tp, int32_t d, float alpha_inter, const float *P,
                     const float *row_abs_sum, const float *rel, const int32_t *seq_lens,
                     lstmc_rt_tissue_stats *st, void *scratch)
{
    const int cut_some = alpha_inter > 0.0f; /* S >= 0: alpha <= 0 (or NaN) cuts nothing */
    float_scores f;
    int64_t G;

    if (!tp || d < 0 || d >= tp->rnn.n_dirs || tp->rnn.hidden < 1)
        return -1;
    if (tp->rnn.batch > 0 && (!P || (cut_some && !row_abs_sum && !rel)))
        return -1;
    G = 4 * tp->rnn.hidden;
    f.H = tp->rnn.hidden;
    f.kind = tp->relevance;
    f.Pd = P ? P + d * tp->rnn.seq_len * tp->rnn.batch * G : NULL;
    f.dsum = row_abs_sum ? row_abs_sum + d * G * (tp->relevance ? 2 : 1) : NULL;
    f.shift = f.dsum && tp->relevance ? f.dsum + G : NULL; /* calibrated: radii, then shifts */
    f.rel = rel;
    return lstmc_rt_tissue_plan_scored(tp, d, cut_some ? float_key(alpha_inter) : 0,
                                       row_abs_sum || rel ? float_score : NULL, &f, seq_lens, st,
                                       scratch);
}

/* --- execution ----------------------------------------------------------------------- */

typedef struct io {
    const float *P;  /* this direction's */
    const void *Up;  /* this direction's, in tp->wfmt */
    const float *Us; /* int8: this direction's column scales [4H]; else NULL */
    const int32_t *seq_lens;
    const float *init_h, *init_c, *h_pred, *c_pred;
    float *Y, *Y_h, *Y_c;
} io;

/* dst[0..H) = src ? src[0..H) : 0 */
static void
copy_or_zero(float *dst, const float *src, int64_t H)
{
    if (src)
        memcpy(dst, src, (size_t)H * sizeof(float));
    else
        memset(dst, 0, (size_t)H * sizeof(float));
}

static lstmc_rt_status
run_direction(const dir_ctx *a, const lstmc_rt_tissue_params *tp, const lstmc_rt_tissue_layout *l,
              void *scratch, const io *o, float alpha_inter, const float *P,
              const float *row_abs_sum, lstmc_rt_tissue_stats *st, const drs_in *dr)
{
    const lstmc_rt_rnn_params *p = a->p;
    const int64_t H = p->hidden, G = 4 * H, N = p->batch;
    const size_t hbytes = (size_t)H * sizeof(float);
    float *f = scratch, *gates = f + l->gates, *hbuf = f + l->hbuf, *state = f + l->state;
    const int32_t *w = scratch, *tstart = w + l->tstart, *cell_n = w + l->cell_n;
    const int32_t *cell_t = w + l->cell_t, *cell_slot = w + l->cell_slot;
    const int32_t *cell_flag = w + l->cell_flag;
    int32_t K, tau;
    int64_t n, t, i;

    K = lstmc_rt_tissue_plan(tp, a->d, alpha_inter, P, row_abs_sum, NULL, o->seq_lens, st, scratch);
    if (K < 0)
        return LSTMC_RT_ERR_BAD_PARAMS;
    for (tau = 0; tau < K; tau++) {
        const int32_t c0 = tstart[tau], m = tstart[tau + 1] - c0;

        /* gather: P rows and previous h of every cell of the tissue; a sub-layer's first
         * cell starts from init_h/init_c (its sequence's start) or from the predicted
         * context link (after a breakpoint, Eq. 6) */
        for (i = 0; i < m; i++) {
            float *hs = state + cell_slot[c0 + i] * 2 * H, *cs = hs + H;

            n = cell_n[c0 + i];
            t = cell_t[c0 + i];
            if (cell_flag[c0 + i] & LSTMC_RT_TISSUE_SEQ_START) {
                copy_or_zero(hs, o->init_h ? o->init_h + lstmc_rt_state_at(p, a->d, n) : NULL, H);
                copy_or_zero(cs, o->init_c ? o->init_c + lstmc_rt_state_at(p, a->d, n) : NULL, H);
            } else if (cell_flag[c0 + i] & LSTMC_RT_TISSUE_CUT_START) {
                copy_or_zero(hs, o->h_pred, H);
                copy_or_zero(cs, o->c_pred, H);
            }
            memcpy(gates + i * G, o->P + lstmc_rt_row_at(p, t, n) * G, (size_t)G * sizeof(float));
            memcpy(hbuf + i * H, hs, hbytes);
        }
        /* Sgemm(U, H_t): one pass over Ut for the whole tissue (DRS: U_o, then the rows of
         * U_f,i,c some cell of the tissue keeps) */
        if (dr)
            drs_tissue_product(a, dr, m, hbuf, gates);
        else if (tp->wfmt != LSTMC_RT_WFMT_FP32)
            tissue_gemm_lowp(m, H, hbuf, o->Up, tp->wfmt, o->Us, gates);
        else
            tissue_gemm(m, H, hbuf, o->Up, gates);
        /* lstm_ew per cell, outputs */
        for (i = 0; i < m; i++) {
            float *hs = state + cell_slot[c0 + i] * 2 * H, *cs = hs + H;

            n = cell_n[c0 + i];
            t = cell_t[c0 + i];
            if (dr)
                drs_update(a, gates + i * G, dr->keep + i * H, hs, cs);
            else
                lstmc_rt_lstm_update(p, a->act, a->Peep, gates + i * G, NULL, NULL, hs, cs);
            if (o->Y)
                memcpy(o->Y + lstmc_rt_y_at(p, t, a->d, n), hs, hbytes);
            if (cell_flag[c0 + i] & LSTMC_RT_TISSUE_SEQ_END) {
                if (o->Y_h)
                    memcpy(o->Y_h + lstmc_rt_state_at(p, a->d, n), hs, hbytes);
                if (o->Y_c)
                    memcpy(o->Y_c + lstmc_rt_state_at(p, a->d, n), cs, hbytes);
            }
        }
    }

    /* rows past each sequence's end are zero; an empty sequence has zero Y_h / Y_c (as
     * lstmc_rt_rnn_rec, matching ONNX Runtime) */
    for (n = 0; n < N; n++) {
        const int64_t sn = seq_of(p, o->seq_lens, n);

        if (o->Y)
            for (t = sn; t < p->seq_len; t++)
                memset(o->Y + lstmc_rt_y_at(p, t, a->d, n), 0, hbytes);
        if (sn == 0) {
            if (o->Y_h)
                memset(o->Y_h + lstmc_rt_state_at(p, a->d, n), 0, hbytes);
            if (o->Y_c)
                memset(o->Y_c + lstmc_rt_state_at(p, a->d, n), 0, hbytes);
        }
    }
    return LSTMC_RT_OK;
}

/* DRS weights of lstmc_rt_lstm_tissue_drs (NULL: the plain kernel). */
typedef struct drs_args {
    const void *Uo, *Ufic;
    float alpha;
    lstmc_rt_drs_stats *st;
} drs_args;

static lstmc_rt_status
tissue_run(const lstmc_rt_tissue_params *tp, float alpha_inter, const float *P, const void *Up,
           const float *row_abs_sum, const int32_t *seq_lens, const float *init_h,
           const float *init_c, const float *Peep, const float *h_pred, const float *c_pred,
           float *Y, float *Y_h, float *Y_c, lstmc_rt_tissue_stats *stats, void *scratch,
           const drs_args *da)
{
    const lstmc_rt_rnn_params *p;
    lstmc_rt_tissue_stats local;
    lstmc_rt_tissue_layout l;
    int64_t H, G, n;
    int32_t d;

    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!tp)
        return LSTMC_RT_ERR_NULL;
    if (!params_ok(tp) || lstmc_rt_tissue_layout_of(tp, &l) < 0)
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
    for (d = 0; d < p->n_dirs; d++) {
        dir_ctx a;
        io o;
        drs_in dr;
        lstmc_rt_status s;

        if (da) { /* after the plan: keep [cap, H] | count [H] | R [H] */
            dr.uo = lowp_view_of(tp->wfmt, da->Uo, p->n_dirs, H, H, d);
            dr.uf = lowp_view_of(tp->wfmt, da->Ufic, p->n_dirs, H, 3 * H, d);
            dr.alpha = da->alpha;
            dr.keep = (int32_t *)scratch + l.words;
            dr.count = dr.keep + l.cap * H;
            dr.R = dr.count + H;
            dr.st = da->st;
        }

        a.p = p;
        a.d = d;
        a.rev = p->n_dirs == 2 ? d : p->reverse;
        a.act = &p->act[d * 3];
        a.Peep = Peep ? Peep + d * 3 * H : NULL;
        o.P = P + d * l.cells * G;
        /* int8: D x 4H float scales, then the q panels (lstmc_rt_kernels.h) */
        o.Us = Up && tp->wfmt == LSTMC_RT_WFMT_INT8 ? (const float *)Up + d * G : NULL;
        o.Up = !Up ? NULL
               : tp->wfmt == LSTMC_RT_WFMT_INT8
                   ? (const void *)((const signed char *)((const float *)Up + p->n_dirs * G) +
                                    d * H * G)
               : tp->wfmt != LSTMC_RT_WFMT_FP32 ? (const void *)((const uint16_t *)Up + d * H * G)
                                                : (const void *)((const float *)Up + d * H * G);
        o.seq_lens = seq_lens;
        o.init_h = init_h;
        o.init_c = init_c;
        o.h_pred = h_pred ? h_pred + d * H : NULL;
        o.c_pred = c_pred ? c_pred + d * H : NULL;
        o.Y = Y;
        o.Y_h = Y_h;
        o.Y_c = Y_c;
        s = run_direction(&a, tp, &l, scratch, &o, alpha_inter, P, row_abs_sum, stats,
                          da ? &dr : NULL);
        if (s != LSTMC_RT_OK)
            return s;
    }
    return LSTMC_RT_OK;
}
/* Contract in lstmc_rt_kernels.h. */
lstmc_rt_status
lstmc_rt_lstm_tissue(const lstmc_rt_tissue_params *tp, float alpha_inter, const float *P,
                     const void *Up, const float *row_abs_sum, const int32_t *seq_lens,
                     const float *init_h, const float *init_c, const float *Peep,
                     const float *h_pred, const float *c_pred, float *Y, float *Y_h, float *Y_c,
                     lstmc_rt_tissue_stats *stats, void *scratch)
{
    return tissue_run(tp, alpha_inter, P, Up, row_abs_sum, seq_lens, init_h, init_c, Peep, h_pred,
                      c_pred, Y, Y_h, Y_c, stats, scratch, NULL);
}

int64_t
lstmc_rt_lstm_tissue_drs_scratch(const lstmc_rt_tissue_params *p)
{
    lstmc_rt_tissue_layout l;

    if (!params_ok(p) || lstmc_rt_tissue_layout_of(p, &l) < 0)
        return -1;
    return l.words + (l.cap + 2) * p->rnn.hidden; /* keep [cap, H] | count [H] | R [H] */
}

/* Contract in lstmc_rt_kernels.h ("DRS inside tissues"). */
lstmc_rt_status
lstmc_rt_lstm_tissue_drs(const lstmc_rt_tissue_params *tp, float alpha_inter, float alpha_intra,
                         const float *P, const void *Up, const float *row_abs_sum,
                         const int32_t *seq_lens, const float *init_h, const float *init_c,
                         const float *Peep, const float *h_pred, const float *c_pred,
                         const void *Uo, const void *Ufic, float *Y, float *Y_h, float *Y_c,
                         lstmc_rt_tissue_stats *stats, lstmc_rt_drs_stats *drs_stats, void *scratch)
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
    return tissue_run(tp, alpha_inter, P, NULL, row_abs_sum, seq_lens, init_h, init_c, Peep, h_pred,
                      c_pred, Y, Y_h, Y_c, stats, scratch, &da);
}
