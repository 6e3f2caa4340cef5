/*
 * tissue.cl — the OpenCL C text of an LSTM layer under the tissue schedule (MICRO'18
 * §IV, KP_LSTM_TISSUE; the C reference is runtime/src/rt_tissue.c), specialised by the
 * macros codegen/opencl/program.c defines (the layer macros of rnn.cl, plus):
 *
 *   CAP SLOTS NC     cells per tissue (min(MTS, T*NB)), live sub-layer states (min(2 MTS,
 *                    T*NB)), cells per direction (T*NB)
 *   CPI CB           gate columns per work-item (4H / LW rounded up: MobiRNN's coarse
 *                    units), cells per register block of the tissue GEMM
 *   HLOC             1: the tissue's h rows are staged in __local memory (they fit)
 *   UP DS HP CP      packed U panels (lstmc_rt_lstm_tissue_pack), row sums |U|, h_pred,
 *                    c_pred (<T>_B / <T>_O; HAS_HP, HAS_CP)
 *   RFMT             the panels' storage format (issue 24; rnn.cl's LOWP_AT): int8 with D x 4H
 *                    column scales in front, each gate's sum from 0 and P + s * sum at the
 *                    end (rt_tissue.c's order)
 *   TG_O TS_O THB_O  device state per direction: tissue gates [CAP, 4H], sub-layer states
 *                    [SLOTS, 2H] (h, c), global h rows [CAP, H] (when !HLOC)
 *   TI_O TF_STR TI_STR  the int plan region and the per-direction strides
 *
 * One work-group per direction (the directions are independent), one launch per layer:
 *   1. breakpoints search (Algorithm 2), every work-item a share of the cells;
 *   2. sub-layers, tissue formation and alignment (Fig. 8 b1/b2) and the state-slot
 *      bookkeeping: sequential, work-item 0 (data dependent and cheap: O(cells x tissues));
 *   3. per tissue: gather the cells' h rows (local memory), one GEMM over the packed U for all
 *      the tissue's cells (each U element read once per CB cells), the element-wise update.
 * The plan depends on the data (P), so doing it on the device saves a host round trip per
 * layer; the tissues are separated by work-group barriers, not kernel launches.
 *
 * A template, not a whole program: every size and option is a macro that
 * codegen/opencl/program.c defines before each copy (and #undefs after it), so this file
 * compiles only inside a generated <name>.cl (lstmc compile --target=pocl writes one; PoCL
 * builds it in the e2e_pocl_* tests). The build embeds it (cmake/embed_cl.cmake) as
 * NULL-terminated arrays of lines: a line "//@ SYMBOL ..." starts the array SYMBOL, and every
 * line after it, up to the next marker, is written into <name>.cl verbatim (blank lines
 * included); this comment, above the first marker, is not embedded.
 */
//@ ocl_template_tissue: k<i>_tissue (after ocl_template_lstm_ew of rnn.cl)
/* element e of direction d's U panels in RFMT as a float (int8: q) */
#define UP_AT(d, e) \
    (RFMT ? LOWP_AT(RFMT, UP_B + UP_O, D * GH, (d) * H * GH + (e)) : UP_B[UP_O + (d) * H * GH + (e)])
/* Algorithm 2 (as lstmc_rt_lstm_relevance, same operation order, no contraction, so the
 * same links are cut as by the C runtime). */
float KN(overlap)(float xb, float dd)
{
#pragma OPENCL FP_CONTRACT OFF
    const float a = fabs(xb);
    const float s = fmin(2.0f + fmin(2.0f, a), fmin(2.0f, 2.0f + dd - fmax(2.0f, a)));
    return s > 0.0f ? s : 0.0f;
}

float KN(relevance)(__global const float *x, __global const float *ds)
{
#pragma OPENCL FP_CONTRACT OFF
    float S = 0.0f;
    for (int j = 0; j < H; j++) {
        float xi = x[j], xo = x[H + j], xf = x[2 * H + j], xc = x[3 * H + j];
#if DS_SH /* calibrated: ds holds the radii, then the shifts (lstmc_rt_lstm_relevance_shifted) */
        xi += ds[GH + j];
        xo += ds[GH + H + j];
        xf += ds[GH + 2 * H + j];
        xc += ds[GH + 3 * H + j];
#endif
#if DS_SH == 2 /* lstmc_rt_lstm_sensitivity */
        const float s3 = fmax(0.0f, 1.0f - fabs(xi) * 0.25f) * ds[j] +
                         fmax(0.0f, 1.0f - fabs(xo) * 0.25f) * ds[H + j] +
                         fmax(0.0f, 1.0f - fabs(xf) * 0.25f) * ds[2 * H + j];
        S += 0.25f * s3 + fmax(0.0f, 1.0f - fabs(xc) * 0.5f) * ds[3 * H + j];
        continue;
#endif
        const float sf = fmin(4.0f, fmax(xf + ds[2 * H + j] + 2.0f, 0.0f));
        const float si = KN(overlap)(xi, ds[j]);
        const float so = KN(overlap)(xo, ds[H + j]);
        const float sc = KN(overlap)(xc, ds[3 * H + j]);
        S += so * (sf + si * sc);
    }
    return S;
}

/* One alignment attempt for K tissues (rt_tissue.c align_try): the count or -1. */
int KN(align_try)(const int n_sub, __global const int *len, const int K,
                  __global int *tissue, __global int *work)
{
    __global int *start = work, *pos = work + n_sub, *act = work + 2 * n_sub;
    int n_act = n_sub, k;
    for (int s = 0; s < n_sub; s++) {
        pos[s] = 0;
        act[s] = s;
    }
    for (k = 0; n_act > 0; k++) {
        int used = 0, i, j;
        for (i = 0; i < n_act; i++) {
            const int s = act[i];
            if (len[s] - pos[s] >= K - k) {
                if (used == CAP || len[s] - pos[s] > K - k)
                    return -1;
                tissue[start[s] + pos[s]++] = k;
                used++;
                act[i] = -1 - s;
            }
        }
        for (i = 0; i < n_act && used < CAP; i++) {
            const int s = act[i];
            if (s >= 0) {
                tissue[start[s] + pos[s]++] = k;
                used++;
            }
        }
        for (i = j = 0; i < n_act; i++) {
            const int s = act[i] < 0 ? -1 - act[i] : act[i];
            if (pos[s] < len[s])
                act[j++] = s;
        }
        n_act = j;
    }
    return k;
}

/* Step 2 (work-item 0): sub-layers from the cut links, the tissues (lstmc_rt_tissue_align
 * with MTS = CAP), then, simulating rt_tissue.c's state slots, one record per cell in
 * tissue order: n, t, slot and flags (1 sequence start, 2 after a breakpoint, 4 the
 * sequence's last cell). Returns the tissue count. */
int KN(plan)(__global float *mem, __global const float *wts, __global int *I, const int d)
{
    __global int *cut = I, *sub_n = I + NC, *sub_s0 = I + 2 * NC, *sub_len = I + 3 * NC;
    __global int *tis = I + 4 * NC, *order = I + 5 * NC, *rn = I + 6 * NC, *rt = I + 7 * NC;
    __global int *rs = I + 8 * NC, *rf = I + 9 * NC, *slot_of = I + 10 * NC;
    __global int *tstart = I + 11 * NC, *work = I + 12 * NC + 1;
    __global int *fr = I + 15 * NC + 1, *st = I + 15 * NC + 1 + SLOTS;
    const int rev = D == 2 ? d : REV;
    int n_sub = 0, n_cells = 0, links = 0, total = 0, maxlen = 0, K, n_free, i, s, tau;
    for (int n = 0; n < NB; n++) {
        const int sn = SEQN(n);
        for (int step = 0; step < sn; step++) {
            if (step == 0 || cut[n * T + step]) {
                sub_n[n_sub] = n;
                sub_s0[n_sub] = step;
                sub_len[n_sub++] = 1;
            } else {
                sub_len[n_sub - 1]++;
            }
        }
        n_cells += sn;
        links += sn > 0 ? sn - 1 : 0;
    }
    /* lstmc_rt_tissue_align: N_min = ceil(cells / MTS) (Eq. 7), at least the longest */
    for (s = 0; s < n_sub; s++) {
        work[s] = total;
        total += sub_len[s];
        maxlen = max(maxlen, sub_len[s]);
    }
    K = 0;
    if (n_sub > 0)
        for (int k = max((total + CAP - 1) / CAP, maxlen); k <= total; k++)
            if ((K = KN(align_try)(n_sub, sub_len, k, tis, work)) >= 0)
                break;
    /* order: the sub-layer of each cell, grouped by tissue (counting sort) */
    for (tau = 0; tau <= K; tau++)
        tstart[tau] = 0;
    for (i = 0; i < n_cells; i++)
        tstart[tis[i] + 1]++;
    for (tau = 0; tau < K; tau++) {
        tstart[tau + 1] += tstart[tau];
        work[tau] = tstart[tau];
    }
    for (s = 0, i = 0; s < n_sub; s++)
        for (int k = 0; k < sub_len[s]; k++, i++)
            order[work[tis[i]]++] = s;
    for (s = 0; s < n_sub; s++)
        work[s] = 0;
    for (n_free = 0; n_free < SLOTS; n_free++)
        fr[n_free] = SLOTS - 1 - n_free;
    for (tau = 0; tau < K; tau++) {
        const int c0 = tstart[tau], c1 = tstart[tau + 1];
        for (i = c0; i < c1; i++) {
            const int sl = order[i], n = sub_n[sl], step = sub_s0[sl] + work[sl];
            rn[i] = n;
            rt[i] = rev ? SEQN(n) - 1 - step : step;
            rf[i] = 0;
            if (work[sl] == 0) {
                slot_of[sl] = fr[--n_free];
                rf[i] = sub_s0[sl] == 0 ? 1 : 2;
            }
            rs[i] = slot_of[sl];
        }
        for (i = c0; i < c1; i++) {
            const int sl = order[i], step = sub_s0[sl] + work[sl];
            if (++work[sl] == sub_len[sl]) {
                if (step == SEQN(sub_n[sl]) - 1)
                    rf[i] |= 4;
                fr[n_free++] = slot_of[sl];
            }
        }
    }
    st[0] = K;
    st[1] = n_cells;
    st[2] = links;
    st[3] = n_sub;
    return K;
}

__kernel __attribute__((reqd_work_group_size(LW, 1, 1)))
void KN(tissue)(__global float *mem, __global const float *wts, const float alpha)
{
    const int lid = (int)get_local_id(0), d = (int)get_group_id(0);
    const int rev = D == 2 ? d : REV;
    __global int *I = (__global int *)mem + TI_O + d * TI_STR;
    __global const int *rn = I + 6 * NC, *rt = I + 7 * NC, *rs = I + 8 * NC;
    __global const int *rf = I + 9 * NC, *tstart = I + 11 * NC;
    __global float *gates = mem + TG_O + d * TF_STR;
    __global float *state = mem + TS_O + d * TF_STR;
    __global const float *Pd = PI_B + PI_O + d * ROWS * GH;
#if HLOC
    __local float hb[CAP * H];
#else
    __global float *hb = mem + THB_O + d * TF_STR;
#endif
    (void)rev;
    /* 1. breakpoints search: a link is cut when its relevance S < alpha */
    for (int q = lid; q < NC; q += LW) {
        const int n = q / T, step = q % T, sn = SEQN(n);
        int cut = 0;
#if HAS_DS
        if (alpha > 0.0f && step > 0 && step < sn) {
            const int t = rev ? sn - 1 - step : step;
            cut = KN(relevance)(Pd + ROW_AT(t, n) * GH, DS_B + DS_O + d * GH * (DS_SH ? 2 : 1)) < alpha;
        }
#endif
        I[q] = cut;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    /* 2. sub-layers, tissues, state slots */
    if (lid == 0)
        KN(plan)(mem, wts, I, d);
    barrier(CLK_GLOBAL_MEM_FENCE);
    const int K = I[15 * NC + 1 + SLOTS];
    /* 3. the tissues in order */
    for (int tau = 0; tau < K; tau++) {
        const int c0 = tstart[tau], m = tstart[tau + 1] - c0;
        /* gather the cells' previous h (the slot's, or the start / predicted state) */
        for (int q = lid; q < m * H; q += LW) {
            const int i = q / H, k = q % H, f = rf[c0 + i];
            float v = mem[TS_O + d * TF_STR + rs[c0 + i] * 2 * H + k];
#if HAS_H0
            v = (f & 1) ? H0_B[H0_O + STATE_AT(d, rn[c0 + i]) + k] : v;
#else
            v = (f & 1) ? 0.0f : v;
#endif
#if HAS_HP
            v = (f & 2) ? HP_B[HP_O + d * H + k] : v;
#else
            v = (f & 2) ? 0.0f : v;
#endif
            hb[i * H + k] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        /* Sgemm(U, H_t): gates[i] = P row + h_i x U for the m cells, CPI columns per
         * work-item, up to CB cells per register block: each U element leaves memory
         * once per CB cells. The cell count of a block is the same for the whole
         * work-group (no divergence); out-of-range columns are clamped, not branched
         * on, and not written. Sums in lstmc_rt_rnn_rec's order: P, then k = 0..H-1. */
        for (int b0 = 0; b0 < m; b0 += CB) {
            const int mb = min(CB, m - b0);
            float acc[CB * CPI];
            int uo[CPI], us[CPI]; /* column r's first element and row stride in U's panels */
            for (int r = 0; r < CPI; r++) {
                const int g = min(lid + r * LW, GH - 1), g0 = g / 16 * 16;
                uo[r] = g0 * H + g - g0;
                us[r] = min(16, GH - g0);
            }
            for (int c = 0; c < mb; c++) {
                const int ci = c0 + b0 + c;
                __global const float *pr = Pd + ROW_AT(rt[ci], rn[ci]) * GH;
                for (int r = 0; r < CPI; r++)
                    acc[c * CPI + r] = RFMT == 3 ? 0.0f : pr[min(lid + r * LW, GH - 1)];
            }
            for (int k = 0; k < H; k++) {
                for (int r = 0; r < CPI; r++) {
                    const float u = UP_AT(d, uo[r] + k * us[r]);
                    for (int c = 0; c < mb; c++)
                        acc[c * CPI + r] += hb[(b0 + c) * H + k] * u;
                }
            }
            for (int c = 0; c < mb; c++) {
#if RFMT == 3 /* int8: P + s * sum */
                const int ci = c0 + b0 + c;
                __global const float *pr = Pd + ROW_AT(rt[ci], rn[ci]) * GH;
                for (int r = 0; r < CPI; r++) {
                    const int g = min(lid + r * LW, GH - 1);
                    acc[c * CPI + r] = pr[g] + UP_B[UP_O + d * GH + g] * acc[c * CPI + r];
                }
#endif
                for (int r = 0; r < CPI; r++)
                    if (lid + r * LW < GH)
                        gates[(b0 + c) * GH + lid + r * LW] = acc[c * CPI + r];
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* the element-wise update of every cell of the tissue (as the step kernel) */
        for (int q = lid; q < m * H; q += LW) {
            const int i = q / H, j = q % H, ci = c0 + i, f = rf[ci], n = rn[ci], t = rt[ci];
            __global float *hs = state + rs[ci] * 2 * H;
            __global const float *ga = gates + i * GH;
            float c = hs[H + j];
#if HAS_C0
            c = (f & 1) ? C0_B[C0_O + STATE_AT(d, n) + j] : c;
#else
            c = (f & 1) ? 0.0f : c;
#endif
#if HAS_CP
            c = (f & 2) ? CP_B[CP_O + d * H + j] : c;
#else
            c = (f & 2) ? 0.0f : c;
#endif
            float cn;
            const float hn = KN(lstm_ew)(mem, wts, d, j, ga[j], ga[H + j], ga[2 * H + j],
                                         ga[3 * H + j], c, &cn);
            hs[j] = hn;
            hs[H + j] = cn;
            (void)n; (void)t; (void)f;
#if HAS_Y
            Y_B[Y_O + Y_AT(t, d, n) + j] = hn;
#endif
#if HAS_YH
            if (f & 4)
                YH_B[YH_O + STATE_AT(d, n) + j] = hn;
#endif
#if HAS_YC
            if (f & 4)
                YC_B[YC_O + STATE_AT(d, n) + j] = cn;
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
    /* rows past each sequence's end are zero, so are Y_h / Y_c of an empty sequence */
#if HAS_Y
    for (int q = lid; q < NC * H; q += LW) {
        const int j = q % H, tn = q / H, n = tn / T, t = tn % T;
        if (t >= SEQN(n))
            Y_B[Y_O + Y_AT(t, d, n) + j] = 0.0f;
    }
#endif
    for (int q = lid; q < NB * H; q += LW) {
        const int j = q % H, n = q / H;
        (void)j;
#if HAS_YH
        if (SEQN(n) == 0)
            YH_B[YH_O + STATE_AT(d, n) + j] = 0.0f;
#endif
#if HAS_YC
        if (SEQN(n) == 0)
            YC_B[YC_O + STATE_AT(d, n) + j] = 0.0f;
#endif
    }
}
#undef UP_AT
