/*
 * rt_plan.c — the tissue plan of MICRO'18 §IV (Fig. 8 b1, b2): sub-layers from the links'
 * scores, tissues of at most MTS cells (the alignment), and the schedule every tissue kernel
 * runs: the float one (rt_tissue.c, which scores links with Algorithm 2), the LLVM ones
 * (codegen/llvm/tissue.c) and the full-integer one (rt_rnnq.c, scores in fixed point).
 * Integers only, so that a full-integer library needs no floating point for its tissues.
 */
#include "internal/testing.h"
#include "lstmc_rt_kernels.h"

#include <string.h>

/* Largest cell count T*N per direction: the plan indexes cells with int32. */
#define MAX_CELLS (INT32_MAX / 16)

/* --- tissue formation and alignment -------------------------------------------------- */

int64_t
lstmc_rt_tissue_align_work(int64_t n_sub)
{
    return n_sub < 0 || n_sub > INT32_MAX / 4 ? -1 : 3 * n_sub;
}

/* One alignment attempt for K tissues; the tissue count, or -1 when K is infeasible. */
static int32_t
align_try(int32_t n_sub, const int32_t *len, int32_t mts, int32_t K, int32_t *tissue, int32_t *work)
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

/* --- the layout of the scratch -------------------------------------------------------- */

/* What the plan needs of p: sizes, directions, mts (the kernels check the rest, the
 * activations and clip, with lstmc_rt_packed_lstm_ok; no float here) */
static int
plan_params_ok(const lstmc_rt_tissue_params *tp)
{
    const lstmc_rt_rnn_params *p = &tp->rnn;

    if (tp->mts < 1 || tp->max_run < 0 || tp->relevance < LSTMC_RT_REL_BOUND ||
        tp->relevance > LSTMC_RT_REL_SENSITIVITY || p->cell != LSTMC_RT_CELL_LSTM ||
        p->packed != 1 || p->seq_len < 0 || p->batch < 0 || p->hidden < 1 ||
        p->hidden > INT32_MAX / 64 || (p->n_dirs != 1 && p->n_dirs != 2) ||
        (p->reverse != 0 && (p->reverse != 1 || p->n_dirs != 1)) ||
        (p->layout != 0 && p->layout != 1))
        return 0;
    return p->batch == 0 || p->seq_len <= MAX_CELLS / p->batch;
}

/*
 * Contract in lstmc_rt_kernels.h. Per direction, C = T*N cells at most, tissues of cap cells and
 * slots live states: live sub-layers (started, not finished) never exceed 2 * MTS: at most
 * MTS critical ones (each places a cell in every tissue) and, since the free places always
 * go to the first unfinished non-critical sub-layers, at most MTS started non-critical ones.
 *
 * floats: gates [cap, 4H] | hbuf, hbuf2 [cap, H] | state [slots, 2H];
 *  int32:  tstart [C+1] | cell_n, cell_t, cell_slot, cell_flag [C] each (the schedule) |
 *  float:  rel [C] (the LLVM kernels' relevance values) |
 *         sub_n, sub_step0, sub_len, tissue, order, slot_of [C] each | free [slots] |
 *         work [3C] (alignment; then cursor and pos) (the planner's own)
 */
int
lstmc_rt_tissue_layout_of(const lstmc_rt_tissue_params *p, lstmc_rt_tissue_layout *l)
{
    int64_t C, H;

    if (!p || !l || !plan_params_ok(p))
        return -1;
    H = p->rnn.hidden;
    C = p->rnn.seq_len * p->rnn.batch;
    l->cells = C;
    l->cap = p->mts < C ? p->mts : C;
    l->slots = 2 * (int64_t)p->mts < C ? 2 * (int64_t)p->mts : C;
    if (l->cap < 1)
        l->cap = 1;
    if (l->slots < 1)
        l->slots = 1;
    l->gates = 0;
    l->hbuf = l->gates + l->cap * 4 * H;
    l->hbuf2 = l->hbuf + l->cap * H;
    l->state = l->hbuf2 + l->cap * H;
    l->tstart = l->state + l->slots * 2 * H;
    l->cell_n = l->tstart + C + 1;
    l->cell_t = l->cell_n + C;
    l->cell_slot = l->cell_t + C;
    l->cell_flag = l->cell_slot + C;
    l->rel = l->cell_flag + C;
    l->plan = l->rel + C;
    l->words = l->plan + 6 * C + l->slots + 3 * C;
    return 0;
}

/* --- the plan ------------------------------------------------------------------------ */

static int64_t
seq_of(const lstmc_rt_rnn_params *p, const int32_t *seq_lens, int64_t n)
{
    return seq_lens ? seq_lens[n] : p->seq_len;
}

/* Contract in lstmc_rt_kernels.h. */
int32_t
lstmc_rt_tissue_plan_scored(const lstmc_rt_tissue_params *tp, int32_t d, int64_t alpha_key,
                            lstmc_rt_tissue_score_fn *score, const void *score_ctx,
                            const int32_t *seq_lens, lstmc_rt_tissue_stats *st, void *scratch)
{
    const lstmc_rt_rnn_params *p;
    const int cut_some = alpha_key > 0;
    lstmc_rt_tissue_layout l;
    int32_t *w, *tstart, *cell_n, *cell_t, *cell_slot, *cell_flag;
    int32_t *sub_n, *sub_step0, *sub_len, *tissue, *order, *slot_of, *free_slots, *work;
    int64_t N, n, step, t, i, k;
    int32_t n_sub = 0, n_cells = 0, K, s, tau, n_free, rev;

    if (!tp || lstmc_rt_tissue_layout_of(tp, &l) < 0 || !st || d < 0 || d >= tp->rnn.n_dirs)
        return -1;
    p = &tp->rnn;
    N = p->batch;
    if (N == 0)
        return 0;
    if (!scratch || (cut_some && !score))
        return -1;
    if (seq_lens)
        for (n = 0; n < N; n++)
            if (seq_lens[n] < 0 || seq_lens[n] > p->seq_len)
                return -1;
    rev = p->n_dirs == 2 ? d : p->reverse;
    w = scratch;
    tstart = w + l.tstart;
    cell_n = w + l.cell_n;
    cell_t = w + l.cell_t;
    cell_slot = w + l.cell_slot;
    cell_flag = w + l.cell_flag;
    sub_n = w + l.plan;
    sub_step0 = sub_n + l.cells;
    sub_len = sub_step0 + l.cells;
    tissue = sub_len + l.cells;
    order = tissue + l.cells;
    slot_of = order + l.cells;
    free_slots = slot_of + l.cells;
    work = free_slots + l.slots;

    /* 1. breakpoints search: chains (batch entries) split into sub-layers */
    for (n = 0; n < N; n++) {
        const int64_t sn = seq_of(p, seq_lens, n);

        for (step = 0; step < sn; step++) {
            t = rev ? sn - 1 - step : step;
            if (step == 0 || (cut_some && score(score_ctx, lstmc_rt_row_at(p, t, n)) < alpha_key)) {
                sub_n[n_sub] = (int32_t)n;
                sub_step0[n_sub] = (int32_t)step;
                sub_len[n_sub++] = 1;
            } else if (tp->max_run > 0 && sub_len[n_sub - 1] == tp->max_run) {
                /* the sub-layer would grow past max_run: cut it at its lowest-S link among
                 * the steps (step0 + max_run / 2, step] (the first one without relevance),
                 * which leaves at least max_run / 2 + 1 cells before the cut */
                const int64_t s0 = sub_step0[n_sub - 1], lo = s0 + tp->max_run / 2 + 1;
                int64_t cpos = lo, q, best = 0;
                for (q = lo; score && q <= step; q++) {
                    const int64_t tq = rev ? sn - 1 - q : q;
                    const int64_t sq = score(score_ctx, lstmc_rt_row_at(p, tq, n));
                    if (q == lo || sq < best) {
                        best = sq;
                        cpos = q;
                    }
                }
                sub_len[n_sub - 1] = (int32_t)(cpos - s0);
                sub_n[n_sub] = (int32_t)n;
                sub_step0[n_sub] = (int32_t)cpos;
                sub_len[n_sub++] = (int32_t)(step - cpos + 1);
            } else {
                sub_len[n_sub - 1]++;
            }
        }
        n_cells += (int32_t)sn;
        if (sn > 0)
            st->links += sn - 1;
    }
    st->cells += n_cells;
    st->sub_layers += n_sub;

    /* 2. tissue formation and alignment */
    K = lstmc_rt_tissue_align(n_sub, sub_len, (int32_t)l.cap, tissue, work);
    if (K < 0)
        return -1;
    st->tissues += K;
    /* order: the sub-layer of each cell, grouped by tissue (counting sort) */
    for (tau = 0; tau <= K; tau++)
        tstart[tau] = 0;
    for (i = 0; i < n_cells; i++)
        tstart[tissue[i] + 1]++;
    for (tau = 0; tau < K; tau++) {
        tstart[tau + 1] += tstart[tau];
        work[tau] = tstart[tau]; /* cursor */
    }
    for (s = 0, i = 0; s < n_sub; s++)
        for (k = 0; k < sub_len[s]; k++, i++)
            order[work[tissue[i]]++] = s;

    /* 3. the schedule: each cell's chain, step and state slot, in execution order. A
     * sub-layer takes a free slot when its first cell's tissue starts and gives it back
     * after its last cell's tissue, so the cells of one tissue never share a slot. */
    for (s = 0; s < n_sub; s++)
        work[s] = 0; /* pos: cells of sub-layer s done */
    for (n_free = 0; n_free < l.slots; n_free++)
        free_slots[n_free] = (int32_t)(l.slots - 1 - n_free);
    for (tau = 0; tau < K; tau++) {
        const int32_t c0 = tstart[tau], m = tstart[tau + 1] - c0;

        if (m > l.cap)
            return -1; /* cannot happen: alignment keeps m <= mts */
        for (i = c0; i < c0 + m; i++) {
            const int32_t sl = order[i];
            int64_t sn;

            n = sub_n[sl];
            sn = seq_of(p, seq_lens, n);
            step = sub_step0[sl] + work[sl];
            cell_n[i] = (int32_t)n;
            cell_t[i] = (int32_t)(rev ? sn - 1 - step : step);
            cell_flag[i] = 0;
            if (work[sl] == 0) {
                if (n_free == 0)
                    return -1; /* cannot happen, see lstmc_rt_tissue_layout_of */
                slot_of[sl] = free_slots[--n_free];
                cell_flag[i] =
                    sub_step0[sl] == 0 ? LSTMC_RT_TISSUE_SEQ_START : LSTMC_RT_TISSUE_CUT_START;
            }
            if (step == sn - 1)
                cell_flag[i] |= LSTMC_RT_TISSUE_SEQ_END;
            cell_slot[i] = slot_of[sl];
        }
        for (i = c0; i < c0 + m; i++) {
            const int32_t sl = order[i];

            if (++work[sl] == sub_len[sl])
                free_slots[n_free++] = slot_of[sl];
        }
    }
    return K;
}
