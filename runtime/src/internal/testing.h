/*
 * testing.h — the runtime's internal entry points: functions one runtime source exports to
 * another (rt_rnn.c calls the accumulate helpers of rt_hsparse.c, rt_lowp.c and rt_spmv.c;
 * rt_tissue.c the DRS compaction of rt_drs.c) that the unit tests (tests/unit/test_rt_*.c,
 * test_lowp.c, test_spmv.c, test_elstm_hsparse.c) also call directly, and that generated code
 * never calls. Not installed with the public headers' meaning: nothing outside the runtime
 * and its tests may include it.
 */
#ifndef LSTMC_RT_TESTING_H
#define LSTMC_RT_TESTING_H

#include <stdint.h>

#include "lstmc_rt_kernels.h"

/* --- tissue formation and alignment (MICRO'18 §IV-C; rt_tissue.c) ----------------------- */

/*
 * lstmc_rt_tissue_align — tissue formation and alignment (MICRO'18 §IV-C, Fig. 8 b1/b2) over
 * n_sub independent sub-layers of len[s] >= 1 cells. Cells are numbered sub-layer-major
 * (the len[0] cells of sub-layer 0, then those of sub-layer 1, ...); tissue[c] receives the
 * tissue of every cell. Returns the number of tissues, or -1 for bad arguments.
 *   mts <= 0: formation only (b1): cell k of every sub-layer goes to tissue k.
 *   mts >= 1: alignment (b2): every tissue holds at most mts cells, and the cells of a
 *             sub-layer stay in order, one per tissue, in strictly increasing tissues (no
 *             link is broken). Greedy, tissue by tissue, for a target count K (first the
 *             lower bound max(longest sub-layer, ceil(cells / mts))): a sub-layer whose
 *             remaining cells need every tissue left (rem >= K - k) must place its next
 *             cell in tissue k; the other places go to the other sub-layers in sub-layer
 *             order, so cells move from fat tissues to later, thinner ones. If K is
 *             infeasible (more than mts sub-layers must place a cell), K grows by one.
 * work holds lstmc_rt_tissue_align_work(n_sub) int32 entries (3 * n_sub).
 */
int64_t lstmc_rt_tissue_align_work(int64_t n_sub);
int32_t lstmc_rt_tissue_align(int32_t n_sub, const int32_t *len, int32_t mts, int32_t *tissue,
                              int32_t *work);

/* --- dynamic row skip, one cell at a time (MICRO'18 §V, Algorithm 3; rt_drs.c) ---------- */

/* Line 6: R[0..n) = the j < hidden with !(|o[j]| < alpha_intra), ascending; returns n. */
int32_t lstmc_rt_drs_compact(int64_t hidden, const float *o, float alpha_intra, int32_t *R);

/*
 * One DRS cell (lines 4-8) of direction dir of layer p (an LSTM): x is the cell's projection
 * row [4H] (P, gates i o f c, biases folded), Uo/Ufic this direction's weights, Peep this
 * direction's [3H] peepholes or NULL (its P_o part must be zero), h and c the state, updated
 * in place. work holds 4H floats followed by H int32 (any 4-aligned address); on return its
 * first 4H floats hold the pre-activations of i, f, c for the kept units and o_t at [H, 2H).
 * Returns the number of kept units |R|; stats (may be NULL) is added to.
 */
int32_t lstmc_rt_lstm_drs_cell(const lstmc_rt_rnn_params *p, int32_t dir, float alpha_intra,
                               const float *x, const float *Uo, const float *Ufic,
                               const float *Peep, float *h, float *c, void *work,
                               lstmc_rt_drs_stats *stats);

/* --- hidden-state sparsity (E-LSTM §3.2.2, §4.4; rt_hsparse.c) ------------------------ */

/*
 * gates[0..n) += sum over the H elements k of h of h[k] * U'[k][col0 + g], where the groups
 * h[4j..4j+3] (the last may be shorter) whose summed magnitude is below th count as zero and
 * their U' rows are never read (sparse matrix x sparse vector). packed = 1: r is U' = R
 * packed transposed [H, ld]; packed = 0: r is ONNX's R [G*H, H] (rows col0..col0+n) and the
 * skipped groups are 4 skipped columns of each row. th <= 0 skips nothing.
 * Built with LSTMC_RT_HSPARSE_STATS, it counts groups seen and skipped in the two globals
 * below (benchmarks only: not thread-safe).
 */
void lstmc_rt_hsparse_accumulate(const float *h, const float *r, int64_t H, int64_t ld,
                                 int64_t col0, int64_t n, int32_t packed, float th,
                                 float *gates);
#ifdef LSTMC_RT_HSPARSE_STATS
extern int64_t lstmc_rt_hsparse_groups, lstmc_rt_hsparse_skipped;
#endif

/* --- reduced-precision weights (issue 12, docs/PRECISION.md; rt_lowp.c) --------------- */

/*
 * gates[0..n) += sum_{k<K} h[k] * w[k][col0 + g] over direction d of a weight tensor w in
 * format wfmt (layout above, D directions of [K, ld]). int8 sums h[k] * q first and multiplies
 * by the row's scale once at the end.
 */
void lstmc_rt_lowp_accumulate(int32_t wfmt, const void *w, int64_t D, int32_t d,
                              const float *h, int64_t K, int64_t ld, int64_t col0, int64_t n,
                              float *gates);

/* --- sparse weights in eSELL (E-LSTM §3.1; rt_spmv.c) ---------------------------------- */

/* Floats of the eSELL section at e for a rows x cols matrix, or -1 when its header does
 * not say rows x cols or a chunk head is out of range. */
int64_t lstmc_rt_esell_len(const float *e, int64_t rows, int64_t cols);

/* y[0..rows) += M x over the section e (checked with lstmc_rt_esell_len). With th > 0 the
 * groups x[4j..4j+3] whose summed magnitude is below th count as zero and their block
 * column is not read (E-LSTM §4.4, as lstmc_rt_hsparse_accumulate). */
void lstmc_rt_esell_spmv(const float *e, const float *x, float th, float *y);

/* Y[i][0..rows) += M X[i] for the n vectors X[i] = X + i * ldx (cols each), Y[i] = Y + i * ldy:
 * the heads are decoded once for all n (the input projection of every step at once). */
void lstmc_rt_esell_spmm(const float *e, const float *X, int64_t ldx, int64_t n, float *Y,
                         int64_t ldy);

#endif /* LSTMC_RT_TESTING_H */
