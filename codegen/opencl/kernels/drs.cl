/*
 * drs.cl — the OpenCL C text of an LSTM layer with dynamic row skip (MICRO'18 §V,
 * Algorithm 3, KP_LSTM_DRS; the C reference is runtime/src/rt_drs.c), specialised by the
 * layer macros of rnn.cl plus:
 *
 *   UPI BPI       units per work-item in the products and the update (interleaved, j = lid +
 *                 r LW: consecutive work-items read consecutive U_o columns), and in the
 *                 compaction (a contiguous block each, so R comes out in unit order)
 *   UO UF         U_o [D, H, H] k-major and U_f,i,c [D, H, 3, H] unit-major
 *                 (lstmc_rt_drs_pack), <T>_B / <T>_O
 *   RFMT          their storage format (issue 24; rnn.cl's LOWP_AT): int8 with a scale per
 *                 column of U_o [D, H] and per row of U_f,i,c [D, 3H] in front, each sum
 *                 from 0 and P + s * sum at the end (rt_drs.c's order)
 *   DST_O         per chain (d, n): cells run and rows kept, for lstmc_rt_drs_stats
 *
 * One work-group per chain (direction, batch entry), the whole time loop in one launch; per
 * cell, separated by work-group barriers:
 *   line 4-5  o_t = act(P_o + h U_o), h in local memory, each work-item UPI units;
 *   line 6    R: each work-item counts the kept units of its block, an exclusive prefix sum
 *             of the counts, each writes its kept units at its offset (R in unit order, as
 *             lstmc_rt_drs_compact);
 *   line 7    the compacted product: the work-items share the nR kept units (no skipped row
 *             is read, no work-item idles on a skipped one), three dot products each;
 *   line 8    the element-wise update, skipped units as a select (c = 0, h = o h(0)).
 * Sums in the C kernel's order (P, then k = 0..H-1), so alpha_intra = 0 gives its floats up
 * to the device's exp/tanh.
 *
 * A template, not a whole program: every size and option is a macro that
 * codegen/opencl/program.c defines before each copy (and #undefs after it), so this file
 * compiles only inside a generated <name>.cl (lstmc compile --target=pocl writes one; PoCL
 * builds it in the e2e_pocl_* tests). The build embeds it (cmake/embed_cl.cmake) as
 * NULL-terminated arrays of lines: a line "//@ SYMBOL ..." starts the array SYMBOL, and every
 * line after it, up to the next marker, is written into <name>.cl verbatim (blank lines
 * included); this comment, above the first marker, is not embedded.
 */
//@ ocl_template_drs: k<i>_drs (after ocl_template_lstm_ew of rnn.cl)
/* U_o[d][k][j] and row r of U_f,i,c of unit j, element k, in RFMT as floats (int8: q) */
#define UO_AT(d, k, j) \
    (RFMT ? LOWP_AT(RFMT, UO_B + UO_O, D * H, ((d) * H + (k)) * H + (j)) \
     : UO_B[UO_O + ((d) * H + (k)) * H + (j)])
#define UF_AT(d, j, r, k) \
    (RFMT ? LOWP_AT(RFMT, UF_B + UF_O, D * 3 * H, (((d) * H + (j)) * 3 + (r)) * H + (k)) \
     : UF_B[UF_O + (((d) * H + (j)) * 3 + (r)) * H + (k)])
__kernel __attribute__((reqd_work_group_size(LW, 1, 1)))
void KN(drs)(__global float *mem, __global const float *wts, const float alpha)
{
    const int lid = (int)get_local_id(0), dn = (int)get_group_id(0);
    const int n = dn % NB, d = dn / NB, s = SEQN(n);
    const int rev = D == 2 ? d : REV;
    __local float hl[H], ol[H], gl[3 * H];
    __local int R[H], cnt[LW + 1];
    __global const float *Pd = PI_B + PI_O + d * ROWS * GH;
    float cp[UPI];
    int kept = 0;
    (void)rev;
    for (int r = 0; r < UPI; r++) {
        const int j = min(lid + r * LW, H - 1);
#if HAS_H0
        const float h0 = H0_B[H0_O + STATE_AT(d, n) + j];
#else
        const float h0 = 0.0f;
#endif
#if HAS_C0
        cp[r] = C0_B[C0_O + STATE_AT(d, n) + j];
#else
        cp[r] = 0.0f;
#endif
        if (lid + r * LW < H)
            hl[j] = h0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = 0; step < s; step++) {
        const int t = rev ? s - 1 - step : step;
        __global const float *x = Pd + ROW_AT(t, n) * GH;
        /* lines 4-5: o_t = act(P_o + h U_o) */
        for (int r = 0; r < UPI; r++) {
            const int j = min(lid + r * LW, H - 1);
            float acc = RFMT == 3 ? 0.0f : x[H + j];
            for (int k = 0; k < H; k++)
                acc += hl[k] * UO_AT(d, k, j);
#if RFMT == 3
            acc = x[H + j] + UO_B[UO_O + d * H + j] * acc;
#endif
            if (lid + r * LW < H)
                ol[j] = ACT0(CLIPF(acc));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* line 6: R = { j : |o_t[j]| >= alpha } in unit order (NaN kept) */
        const int j0 = min(lid * BPI, H), j1 = min(j0 + BPI, H);
        int nb = 0;
        for (int j = j0; j < j1; j++)
            nb += !(fabs(ol[j]) < alpha);
        cnt[lid + 1] = nb;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            cnt[0] = 0;
            for (int q = 1; q <= LW; q++)
                cnt[q] += cnt[q - 1];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = j0, at = cnt[lid]; j < j1; j++) {
            R[at] = j;
            at += !(fabs(ol[j]) < alpha);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int nr = cnt[LW];
        kept += nr;
        /* line 7: only the rows of U_f,i,c of the kept units */
        for (int q = lid; q < nr; q += LW) {
            const int j = R[q];
            float ai = RFMT == 3 ? 0.0f : x[j], af = RFMT == 3 ? 0.0f : x[2 * H + j];
            float ac = RFMT == 3 ? 0.0f : x[3 * H + j];
            for (int k = 0; k < H; k++) {
                const float hk = hl[k];
                ai += hk * UF_AT(d, j, 0, k);
                af += hk * UF_AT(d, j, 1, k);
                ac += hk * UF_AT(d, j, 2, k);
            }
#if RFMT == 3
            ai = x[j] + UF_B[UF_O + d * 3 * H + 3 * j] * ai;
            af = x[2 * H + j] + UF_B[UF_O + d * 3 * H + 3 * j + 1] * af;
            ac = x[3 * H + j] + UF_B[UF_O + d * 3 * H + 3 * j + 2] * ac;
#endif
            gl[j] = ai;
            gl[H + j] = af;
            gl[2 * H + j] = ac;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* line 8: a skipped unit has c = 0 and h = o h(0) (a select, no branch) */
        for (int r = 0; r < UPI; r++) {
            const int j = min(lid + r * LW, H - 1);
            const float ot = ol[j];
            float cf; /* the kept unit's c (lstm_ew's h is not used: o is known) */
            (void)KN(lstm_ew)(mem, wts, d, j, gl[j], 0.0f, gl[H + j], gl[2 * H + j],
                              cp[r], &cf);
            const float cn = fabs(ot) < alpha ? 0.0f : cf;
            const float hn = ot * ACT2(cn);
            cp[r] = cn;
            if (lid + r * LW < H) {
                hl[j] = hn;
#if HAS_Y
                Y_B[Y_O + Y_AT(t, d, n) + j] = hn;
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* rows past the sequence's end are zero; Y_h / Y_c at its end (zero when empty) */
    for (int r = 0; r < UPI; r++) {
        const int j = lid + r * LW;
        if (j < H) {
#if HAS_Y
            for (int t = s; t < T; t++)
                Y_B[Y_O + Y_AT(t, d, n) + j] = 0.0f;
#endif
#if HAS_YH
            YH_B[YH_O + STATE_AT(d, n) + j] = s == 0 ? 0.0f : hl[j];
#endif
#if HAS_YC
            YC_B[YC_O + STATE_AT(d, n) + j] = s == 0 ? 0.0f : cp[r];
#endif
        }
    }
    if (lid == 0) {
        ((__global int *)mem)[DST_O + 2 * dn] = s;
        ((__global int *)mem)[DST_O + 2 * dn + 1] = kept;
    }
}
#undef UO_AT
#undef UF_AT
