/*
 * rnn.cl — the OpenCL C text of one recurrent layer (G1 and the time loop of KP_RNN,
 * KP_RNN_PROJ, KP_RNN_REC), specialised by the macros codegen/opencl/program.c defines before
 * each copy (every size a compile-time constant, every optional input and attribute an #if,
 * so the hot loops hold no runtime branch):
 *
 *   KN(x)            kernel name prefix (k<call>_x)
 *   CELL G GREC      0 LSTM / 1 GRU / 2 RNN; gates; gates in the step kernel's product
 *   T NB IN H D ROWS seq_len, batch, input_size, hidden, directions, T*NB
 *   REV LAYOUT       single reverse direction; ONNX layout attribute
 *   HAS_CLIP CLIPV IFG LBR   clip, input_forget, linear_before_reset
 *   RPI WPR LW TS    rows per work-item, work-items per (d, n) row (WPR*RPI = H), 1-D
 *                    work-group, G1 tile size
 *   LOOP             1: the layer fits one work-group, the `loop` kernel runs it whole
 *   <T>_B <T>_O      buffer (mem or wts) and float offset of tensor <T>; HAS_<T> for
 *                    optional ones. PI: the projection P the step kernels read; PO: the one
 *                    proj writes. WPACK/RPACK: W and R packed transposed; BMODE 0 no bias,
 *                    1 summed [D,GH], 2 ONNX B [D,2GH]; RBMODE 0 none, 1 Rbh [D,H], 2 ONNX B
 *   HA_O HB_O C_O Z_O RH_O   device state: h ping-pong, c, GRU z and r.h
 *   ACT0..ACT2(x)    the layer's activations for direction d
 *   WFMT RFMT        storage format of W / R (lstmc_rt_wfmt: 0 fp32, 1 fp16, 2 bf16, 3 int8
 *                    with per-row scales; issue 12, docs/PRECISION.md); sums stay fp32
 *
 * A template, not a whole program: every size and option is a macro that
 * codegen/opencl/program.c defines before each copy (and #undefs after it), so this file
 * compiles only inside a generated <name>.cl (lstmc compile --target=pocl writes one; PoCL
 * builds it in the e2e_pocl_* tests). The build embeds it (cmake/embed_cl.cmake) as
 * NULL-terminated arrays of lines: a line "//@ SYMBOL ..." starts the array SYMBOL, and every
 * line after it, up to the next marker, is written into <name>.cl verbatim (blank lines
 * included); this comment, above the first marker, is not embedded.
 */

//@ ocl_template_prelude: helpers every layer's copy uses (emitted once, before the layers)
/* Shared by every layer: addressing in the layouts lstmc_rt_rnn documents. */
/* A weight stored in a reduced-precision format (WFMT/RFMT, lstmc_rt.h "reduced-precision
 * weights") as a float; p: the tensor, n: its D*GH fp32 row scales (int8 only). fp16 by
 * vload_half (core OpenCL C, no cl_khr_fp16), bf16 as the top half of a float, int8 as q
 * (the kernel multiplies a row's sum by its scale once: W_ROW / R_ROW). */
#define LOWP_AT(fmt, p, n, i) \
    ((fmt) == 1 ? vload_half((i), (__global const half *)(p)) \
     : (fmt) == 2 ? as_float((uint)((__global const ushort *)(p))[i] << 16) \
     : convert_float(((__global const char *)((p) + (n)))[i]))
#define W_AT(d, k, g) \
    (WFMT ? LOWP_AT(WFMT, W_B + W_O, D * GH, ((d) * IN + (k)) * GH + (g)) \
     : WPACK ? W_B[W_O + ((d) * IN + (k)) * GH + (g)] \
             : W_B[W_O + ((d) * GH + (g)) * IN + (k)])
#define R_AT(d, k, g) \
    (RFMT ? LOWP_AT(RFMT, R_B + R_O, D * GH, ((d) * H + (k)) * GH + (g)) \
     : RPACK ? R_B[R_O + ((d) * H + (k)) * GH + (g)] \
             : R_B[R_O + ((d) * GH + (g)) * H + (k)])
#define W_ROW(d, g, v) (WFMT == 3 ? W_B[W_O + (d) * GH + (g)] * (v) : (v))
#define R_ROW(d, g, v) (RFMT == 3 ? R_B[R_O + (d) * GH + (g)] * (v) : (v))
#define BIAS(d, g) (BMODE == 0 ? 0.0f \
    : BMODE == 1 ? B_B[B_O + (d) * GH + (g)] \
    : B_B[B_O + (d) * 2 * GH + (g)] + \
      (LBRH && (g) >= 2 * H ? 0.0f : B_B[B_O + (d) * 2 * GH + GH + (g)]))
#define RBH(d, j) (RBMODE == 0 ? 0.0f \
    : RBMODE == 1 ? RB_B[RB_O + (d) * H + (j)] \
    : RB_B[RB_O + (d) * 2 * GH + GH + 2 * H + (j)])
#define ROW_AT(t, n) (LAYOUT ? (n) * T + (t) : (t) * NB + (n))
#define Y_AT(t, d, n) \
    ((LAYOUT ? ((n) * T + (t)) * D + (d) : ((t) * D + (d)) * NB + (n)) * H)
#define STATE_AT(d, n) ((LAYOUT ? (n) * D + (d) : (d) * NB + (n)) * H)
#define SEQN(n) (HAS_SEQ ? clamp(((__global const int *)SEQ_B)[SEQ_O + (n)], 0, T) : T)
#define CLIPF(v) (HAS_CLIP ? ((v) < -CLIPV ? -CLIPV : ((v) > CLIPV ? CLIPV : (v))) : (v))

//@ ocl_template_proj: G1, the input projection (KP_RNN, KP_RNN_PROJ)
/* G1 (Arm §IV schedule A+): PO = X * W^T + bias for every time step at once, a
 * TS x TS tile of X and of W in local memory per work-group. */
__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
void KN(proj)(__global float *mem, __global const float *wts)
{
    const int g = (int)get_global_id(0), r = (int)get_global_id(1);
    const int d = (int)get_global_id(2);
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int rc = min(r, ROWS - 1), gc = min(g, GH - 1);
    __local float xs[TS][TS + 1];
    __local float ws[TS][TS + 1];
    float acc = 0.0f;
    for (int k0 = 0; k0 < IN; k0 += TS) {
        /* clamped reads, zeroed padding: no read out of bounds, no NaN from it */
        const float xv = X_B[X_O + rc * IN + min(k0 + lx, IN - 1)];
        const float wv = W_AT(d, min(k0 + ly, IN - 1), gc);
        xs[ly][lx] = k0 + lx < IN ? xv : 0.0f;
        ws[ly][lx] = k0 + ly < IN ? wv : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++)
            acc += xs[ly][k] * ws[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (r < ROWS && g < GH)
        PO_B[PO_O + (d * ROWS + r) * GH + g] = BIAS(d, g) + W_ROW(d, g, acc);
}

//@ ocl_template_lstm_ew: the LSTM cell update, shared by step, tissue and DRS (before them)
#if CELL == 0
/* Unit j of direction d from its gate pre-activations, as rt_rnn.c's lstm_update
 * (peepholes, clip, input_forget, activations): the new c into *cn, h returned. */
float KN(lstm_ew)(__global float *mem, __global const float *wts, const int d,
                  const int j, float pi, float po, float pf, const float pc,
                  const float c, float *cn)
{
    (void)mem; (void)wts; (void)d; (void)j;
#if HAS_PEEP
    pi += PE_B[PE_O + d * 3 * H + j] * c;
    pf += PE_B[PE_O + d * 3 * H + 2 * H + j] * c;
#endif
    const float it = ACT0(CLIPF(pi));
#if IFG
    const float ft = 1.0f - it; (void)pf;
#else
    const float ft = ACT0(CLIPF(pf));
#endif
    const float ct = ACT1(CLIPF(pc));
    *cn = ft * c + it * ct;
#if HAS_PEEP
    po += PE_B[PE_O + d * 3 * H + H + j] * *cn;
#endif
    return ACT0(CLIPF(po)) * ACT2(*cn);
}
#endif

//@ ocl_template_rec: the time loop: init, step (step2), final, loop (KP_RNN, KP_RNN_REC)
/* h and c from initial_h / initial_c (zero when absent). */
void KN(init_body)(__global float *mem, __global const float *wts, const int gid)
{
    const int j = gid % H, n = (gid / H) % NB, d = gid / (NB * H);
    (void)wts; (void)j; (void)n; (void)d;
#if HAS_H0
    mem[HA_O + gid] = H0_B[H0_O + STATE_AT(d, n) + j];
#else
    mem[HA_O + gid] = 0.0f;
#endif
#if HAS_C0 && CELL == 0
    mem[C_O + gid] = C0_B[C0_O + STATE_AT(d, n) + j];
#else
    mem[C_O + gid] = 0.0f;
#endif
}

__kernel void KN(init)(__global float *mem, __global const float *wts)
{
    const int gid = (int)get_global_id(0);
    if (gid < D * NB * H)
        KN(init_body)(mem, wts, gid);
}

/* One time step of every (direction, batch entry) at once. A work-item owns RPI hidden
 * units j = w, w + WPR, ... (MobiRNN §3.2: coarse work units) and all their gate rows:
 * the recurrent product h * R and the element-wise gate update are fused, so a step is
 * one launch (GRU without linear_before_reset: two, r.h needs every r first). */
void KN(step_body)(__global float *mem, __global const float *wts, const int step,
                   const int gid)
{
    const int w = gid % WPR, dn = gid / WPR, n = dn % NB, d = dn / NB;
    const int s = SEQN(n);
    const int rev = D == 2 ? d : REV;
    __global const float *hin = mem + ((step & 1) ? HB_O : HA_O) + dn * H;
    __global float *hout = mem + ((step & 1) ? HA_O : HB_O) + dn * H;
    (void)rev; (void)hout;
    if (step >= s) {
#if !(CELL == 1 && !LBR)
        /* past this sequence's end: carry the state, zero this row of Y */
        for (int m = 0; m < RPI; m++) {
            const int j = w + m * WPR;
            hout[j] = hin[j];
#if HAS_Y
            Y_B[Y_O + Y_AT(step, d, n) + j] = 0.0f;
#endif
        }
#endif
        return;
    }
    const int t = rev ? s - 1 - step : step;
    __global const float *xw = PI_B + PI_O + (d * ROWS + ROW_AT(t, n)) * GH;
    float acc[GREC * RPI];
    for (int q = 0; q < GREC; q++)
        for (int m = 0; m < RPI; m++) /* the GRU's lbr h gate: h*Rh alone */
#if RFMT == 3
            acc[q * RPI + m] = 0.0f; /* int8: scaled before xw is added, below */
#else
            acc[q * RPI + m] =
                (CELL == 1 && LBR && q == 2) ? 0.0f : xw[q * H + w + m * WPR];
#endif
    for (int k = 0; k < H; k++) {
        const float hk = hin[k];
        for (int q = 0; q < GREC; q++)
            for (int m = 0; m < RPI; m++)
                acc[q * RPI + m] += hk * R_AT(d, k, q * H + w + m * WPR);
    }
#if RFMT == 3
    /* int8: each row's sum times its scale, then the projection (as rt_lowp.c) */
    for (int q = 0; q < GREC; q++)
        for (int m = 0; m < RPI; m++) {
            const int col = q * H + w + m * WPR;
            acc[q * RPI + m] = R_ROW(d, col, acc[q * RPI + m]) +
                               (CELL == 1 && LBR && q == 2 ? 0.0f : xw[col]);
        }
#endif
    for (int m = 0; m < RPI; m++) {
        const int j = w + m * WPR;
#if CELL == 0
        float cn;
        const float hn = KN(lstm_ew)(mem, wts, d, j, acc[m], acc[RPI + m], acc[2 * RPI + m],
                                     acc[3 * RPI + m], mem[C_O + dn * H + j], &cn);
        mem[C_O + dn * H + j] = cn;
#elif CELL == 1 && LBR
        const float z = ACT0(CLIPF(acc[m]));
        const float r = ACT0(CLIPF(acc[RPI + m]));
        const float hh = xw[2 * H + j] + r * (acc[2 * RPI + m] + RBH(d, j));
        const float ht = ACT1(CLIPF(hh));
        const float hn = (1.0f - z) * ht + z * hin[j];
#elif CELL == 1
        /* first half of a GRU step: z and r.h for step2 */
        mem[Z_O + dn * H + j] = ACT0(CLIPF(acc[m]));
        mem[RH_O + dn * H + j] = ACT0(CLIPF(acc[RPI + m])) * hin[j];
#else
        const float hn = ACT0(CLIPF(acc[m]));
#endif
#if !(CELL == 1 && !LBR)
        hout[j] = hn;
#if HAS_Y
        Y_B[Y_O + Y_AT(t, d, n) + j] = hn;
#endif
#endif
    }
}

__kernel void KN(step)(__global float *mem, __global const float *wts, const int step)
{
    const int gid = (int)get_global_id(0);
    if (gid < D * NB * WPR)
        KN(step_body)(mem, wts, step, gid);
}

#if CELL == 1 && !LBR
/* Second half of a GRU step: h gate from (r.h) * Rh, then the new h. */
void KN(step2_body)(__global float *mem, __global const float *wts, const int step,
                    const int gid)
{
    const int w = gid % WPR, dn = gid / WPR, n = dn % NB, d = dn / NB;
    const int s = SEQN(n);
    const int rev = D == 2 ? d : REV;
    __global const float *hin = mem + ((step & 1) ? HB_O : HA_O) + dn * H;
    __global float *hout = mem + ((step & 1) ? HA_O : HB_O) + dn * H;
    if (step >= s) {
        for (int m = 0; m < RPI; m++) {
            const int j = w + m * WPR;
            hout[j] = hin[j];
#if HAS_Y
            Y_B[Y_O + Y_AT(step, d, n) + j] = 0.0f;
#endif
        }
        return;
    }
    const int t = rev ? s - 1 - step : step;
    __global const float *xw = PI_B + PI_O + (d * ROWS + ROW_AT(t, n)) * GH;
    __global const float *rh = mem + RH_O + dn * H;
    float acc[RPI];
    for (int m = 0; m < RPI; m++)
        acc[m] = RFMT == 3 ? 0.0f : xw[2 * H + w + m * WPR];
    for (int k = 0; k < H; k++) {
        const float rk = rh[k];
        for (int m = 0; m < RPI; m++)
            acc[m] += rk * R_AT(d, k, 2 * H + w + m * WPR);
    }
#if RFMT == 3
    for (int m = 0; m < RPI; m++)
        acc[m] = R_ROW(d, 2 * H + w + m * WPR, acc[m]) + xw[2 * H + w + m * WPR];
#endif
    for (int m = 0; m < RPI; m++) {
        const int j = w + m * WPR;
        const float z = mem[Z_O + dn * H + j];
        const float ht = ACT1(CLIPF(acc[m]));
        const float hn = (1.0f - z) * ht + z * hin[j];
        hout[j] = hn;
#if HAS_Y
        Y_B[Y_O + Y_AT(t, d, n) + j] = hn;
#endif
    }
}

__kernel void KN(step2)(__global float *mem, __global const float *wts, const int step)
{
    const int gid = (int)get_global_id(0);
    if (gid < D * NB * WPR)
        KN(step2_body)(mem, wts, step, gid);
}
#endif

/* Y_h / Y_c: the state at each sequence's own end, zero for an empty sequence. */
void KN(final_body)(__global float *mem, __global const float *wts, const int gid)
{
    const int j = gid % H, n = (gid / H) % NB, d = gid / (NB * H);
    const int s = SEQN(n);
    (void)wts; (void)j; (void)d; (void)s;
#if HAS_YH
    YH_B[YH_O + STATE_AT(d, n) + j] = s == 0 ? 0.0f : mem[((T & 1) ? HB_O : HA_O) + gid];
#endif
#if HAS_YC && CELL == 0
    YC_B[YC_O + STATE_AT(d, n) + j] = s == 0 ? 0.0f : mem[C_O + gid];
#endif
}

__kernel void KN(final)(__global float *mem, __global const float *wts)
{
    const int gid = (int)get_global_id(0);
    if (gid < D * NB * H)
        KN(final_body)(mem, wts, gid);
}

#if LOOP
/* A layer that fits one work-group runs init, its T steps and final in this one launch:
 * the steps are separated by a work-group barrier instead of a kernel boundary (no
 * launch per step, which dominates small layers). */
__kernel __attribute__((reqd_work_group_size(LW, 1, 1)))
void KN(loop)(__global float *mem, __global const float *wts)
{
    const int gid = (int)get_global_id(0);
    for (int q = gid; q < D * NB * H; q += LW)
        KN(init_body)(mem, wts, q);
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int step = 0; step < T; step++) {
        if (gid < D * NB * WPR)
            KN(step_body)(mem, wts, step, gid);
        barrier(CLK_GLOBAL_MEM_FENCE);
#if CELL == 1 && !LBR
        if (gid < D * NB * WPR)
            KN(step2_body)(mem, wts, step, gid);
        barrier(CLK_GLOBAL_MEM_FENCE);
#endif
    }
    for (int q = gid; q < D * NB * H; q += LW)
        KN(final_body)(mem, wts, q);
}
#endif

