/*
 * opencl_drs.h — the OpenCL C text of an LSTM layer with dynamic row skip (MICRO'18 §V,
 * Algorithm 3, KP_LSTM_DRS; the C reference is runtime/src/rt_drs.c), specialised by the
 * layer macros of opencl_template.h plus:
 *
 *   UPI BPI       units per work-item in the products and the update (interleaved, j = lid +
 *                 r LW: consecutive work-items read consecutive U_o columns), and in the
 *                 compaction (a contiguous block each, so R comes out in unit order)
 *   UO UF         U_o [D, H, H] k-major and U_f,i,c [D, H, 3, H] unit-major
 *                 (lstmc_rt_drs_pack), <T>_B / <T>_O
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
 */
#ifndef LSTMC_OPENCL_DRS_H
#define LSTMC_OPENCL_DRS_H

static const char *const ocl_template_drs[] = {
    "__kernel __attribute__((reqd_work_group_size(LW, 1, 1)))\n",
    "void KN(drs)(__global float *mem, __global const float *wts, const float alpha)\n",
    "{\n",
    "    const int lid = (int)get_local_id(0), dn = (int)get_group_id(0);\n",
    "    const int n = dn % NB, d = dn / NB, s = SEQN(n);\n",
    "    const int rev = D == 2 ? d : REV;\n",
    "    __local float hl[H], ol[H], gl[3 * H];\n",
    "    __local int R[H], cnt[LW + 1];\n",
    "    __global const float *Uo = UO_B + UO_O + d * H * H;\n",
    "    __global const float *Uf = UF_B + UF_O + d * 3 * H * H;\n",
    "    __global const float *Pd = PI_B + PI_O + d * ROWS * GH;\n",
    "    float cp[UPI];\n",
    "    int kept = 0;\n",
    "    (void)rev;\n",
    "    for (int r = 0; r < UPI; r++) {\n",
    "        const int j = min(lid + r * LW, H - 1);\n",
    "#if HAS_H0\n",
    "        const float h0 = H0_B[H0_O + STATE_AT(d, n) + j];\n",
    "#else\n",
    "        const float h0 = 0.0f;\n",
    "#endif\n",
    "#if HAS_C0\n",
    "        cp[r] = C0_B[C0_O + STATE_AT(d, n) + j];\n",
    "#else\n",
    "        cp[r] = 0.0f;\n",
    "#endif\n",
    "        if (lid + r * LW < H)\n",
    "            hl[j] = h0;\n",
    "    }\n",
    "    barrier(CLK_LOCAL_MEM_FENCE);\n",
    "    for (int step = 0; step < s; step++) {\n",
    "        const int t = rev ? s - 1 - step : step;\n",
    "        __global const float *x = Pd + ROW_AT(t, n) * GH;\n",
    "        /* lines 4-5: o_t = act(P_o + h U_o) */\n",
    "        for (int r = 0; r < UPI; r++) {\n",
    "            const int j = min(lid + r * LW, H - 1);\n",
    "            float acc = x[H + j];\n",
    "            for (int k = 0; k < H; k++)\n",
    "                acc += hl[k] * Uo[k * H + j];\n",
    "            if (lid + r * LW < H)\n",
    "                ol[j] = ACT0(CLIPF(acc));\n",
    "        }\n",
    "        barrier(CLK_LOCAL_MEM_FENCE);\n",
    "        /* line 6: R = { j : |o_t[j]| >= alpha } in unit order (NaN kept) */\n",
    "        const int j0 = min(lid * BPI, H), j1 = min(j0 + BPI, H);\n",
    "        int nb = 0;\n",
    "        for (int j = j0; j < j1; j++)\n",
    "            nb += !(fabs(ol[j]) < alpha);\n",
    "        cnt[lid + 1] = nb;\n",
    "        barrier(CLK_LOCAL_MEM_FENCE);\n",
    "        if (lid == 0) {\n",
    "            cnt[0] = 0;\n",
    "            for (int q = 1; q <= LW; q++)\n",
    "                cnt[q] += cnt[q - 1];\n",
    "        }\n",
    "        barrier(CLK_LOCAL_MEM_FENCE);\n",
    "        for (int j = j0, at = cnt[lid]; j < j1; j++) {\n",
    "            R[at] = j;\n",
    "            at += !(fabs(ol[j]) < alpha);\n",
    "        }\n",
    "        barrier(CLK_LOCAL_MEM_FENCE);\n",
    "        const int nr = cnt[LW];\n",
    "        kept += nr;\n",
    "        /* line 7: only the rows of U_f,i,c of the kept units */\n",
    "        for (int q = lid; q < nr; q += LW) {\n",
    "            const int j = R[q];\n",
    "            __global const float *ri = Uf + j * 3 * H, *rf = ri + H, *rc = ri + 2 * H;\n",
    "            float ai = x[j], af = x[2 * H + j], ac = x[3 * H + j];\n",
    "            for (int k = 0; k < H; k++) {\n",
    "                const float hk = hl[k];\n",
    "                ai += hk * ri[k];\n",
    "                af += hk * rf[k];\n",
    "                ac += hk * rc[k];\n",
    "            }\n",
    "            gl[j] = ai;\n",
    "            gl[H + j] = af;\n",
    "            gl[2 * H + j] = ac;\n",
    "        }\n",
    "        barrier(CLK_LOCAL_MEM_FENCE);\n",
    "        /* line 8: a skipped unit has c = 0 and h = o h(0) (a select, no branch) */\n",
    "        for (int r = 0; r < UPI; r++) {\n",
    "            const int j = min(lid + r * LW, H - 1);\n",
    "            const float ot = ol[j];\n",
    "            float cf; /* the kept unit's c (lstm_ew's h is not used: o is known) */\n",
    "            (void)KN(lstm_ew)(mem, wts, d, j, gl[j], 0.0f, gl[H + j], gl[2 * H + j],\n",
    "                              cp[r], &cf);\n",
    "            const float cn = fabs(ot) < alpha ? 0.0f : cf;\n",
    "            const float hn = ot * ACT2(cn);\n",
    "            cp[r] = cn;\n",
    "            if (lid + r * LW < H) {\n",
    "                hl[j] = hn;\n",
    "#if HAS_Y\n",
    "                Y_B[Y_O + Y_AT(t, d, n) + j] = hn;\n",
    "#endif\n",
    "            }\n",
    "        }\n",
    "        barrier(CLK_LOCAL_MEM_FENCE);\n",
    "    }\n",
    "    /* rows past the sequence's end are zero; Y_h / Y_c at its end (zero when empty) */\n",
    "    for (int r = 0; r < UPI; r++) {\n",
    "        const int j = lid + r * LW;\n",
    "        if (j < H) {\n",
    "#if HAS_Y\n",
    "            for (int t = s; t < T; t++)\n",
    "                Y_B[Y_O + Y_AT(t, d, n) + j] = 0.0f;\n",
    "#endif\n",
    "#if HAS_YH\n",
    "            YH_B[YH_O + STATE_AT(d, n) + j] = s == 0 ? 0.0f : hl[j];\n",
    "#endif\n",
    "#if HAS_YC\n",
    "            YC_B[YC_O + STATE_AT(d, n) + j] = s == 0 ? 0.0f : cp[r];\n",
    "#endif\n",
    "        }\n",
    "    }\n",
    "    if (lid == 0) {\n",
    "        ((__global int *)mem)[DST_O + 2 * dn] = s;\n",
    "        ((__global int *)mem)[DST_O + 2 * dn + 1] = kept;\n",
    "    }\n",
    "}\n\n",
    NULL};

#endif /* LSTMC_OPENCL_DRS_H */
