/*
 * kparams.c — the parameters of the LLVM kernels of each call (issue 23): the register tile
 * of the recurrent product h U (vectors of columns) and of the input projection x W (vectors
 * of columns by rows of X), and the software prefetch distance of each, in panel rows; the
 * register tiles of the full-integer VNNI kernel (rnnq.c) and its pipelined steps. A
 * target profile sets them by kernel kind and by shape class (target.h target_kernels;
 * `lstmc profile --device=cpu --search` measures them); what it leaves unset is the
 * built-in default below, which was tuned by hand on one machine. The chosen values go to
 * kp_call.tune, which the kernels (rec.c, proj.c, rec_mt.c, wave.c), the weights' panel
 * layout (panels.c) and the size report read.
 */
#include "llvm_impl.h"

#ifdef LSTMC_HAVE_LLVM

/* The full-integer VNNI kernel's (rnnq.c) parameters: the class of its int8 U; U.h tiles of
 * 8 blocks of 16 rows; W.x tiles of 16 / rows blocks by `rows` input rows of a chunk of tc
 * steps: 16 rows (1 block) on one thread, where the pipelined steps take them, 4 on threads
 * (4 x 4: faster where U.h is L2-resident), and a profile's rows halved until they divide tc;
 * for chunks of other sizes 8 blocks x 1 row whatever the profile says (bench/RESULTS.md,
 * issue 22). */
int
rnnq_rows(const kp_call *c, const kp_tuning *k, int nt)
{
    kp_rnnq_scratch L;
    kp_rnnq_scratch_of(&c->p.rnnq, &L);
    return L.tc % 4 != 0 ? 1 : k->set[TK_ROWS] ? k->v[TK_ROWS] : L.tc % 16 == 0 && nt == 1 ? 16 : 4;
}

static void
kparams_int(const target *t, const kp_call *c, kp_tuning *k)
{
    const lstmc_rt_rnnq_params *p = &c->p.rnnq;
    const int(*q)[TK_N_PARAMS] = t->kernels.ints;
    kp_rnnq_scratch L;
    int j;

    kp_rnnq_scratch_of(p, &L);
    k->kind = 3;
    k->cls = target_kernel_class(t, cell_gates(p->cell) * p->hidden * p->hidden);
    for (j = 0; j < TK_N_PARAMS; j++)
        k->set[j] = q[k->cls][j] != 0 && j != TK_PREFETCH && j != TK_DOT;
    k->v[TK_TILE] = k->set[TK_TILE] ? q[k->cls][TK_TILE] : TK_DEFAULT_INT_TILE;
    k->v[TK_ALTERNATE] = k->set[TK_ALTERNATE] ? q[k->cls][TK_ALTERNATE] - 1 : 1;
    k->v[TK_PIPE] = k->set[TK_PIPE] ? q[k->cls][TK_PIPE] - 1 : 1;
    if (L.tc % 4 != 0)
        k->set[TK_ROWS] = 0;
    if (k->set[TK_ROWS])
        for (k->v[TK_ROWS] = q[k->cls][TK_ROWS]; L.tc % k->v[TK_ROWS];)
            k->v[TK_ROWS] /= 2;
    k->v[TK_ROWS] = rnnq_rows(c, k, 1); /* cg_llvm_kernels: the layer's threads' once known */
}

void
kparams_of(const target *t, const kp_call *c, int vl, int bf16dot, int hwpf, int vnni, kp_tuning *k)
{
    const int proj = c->kind == KP_RNN_PROJ;
    int64_t H, K;
    int d[TK_N_PARAMS], j;
    const int(*p)[TK_N_PARAMS];

    memset(k, 0, sizeof *k);
    k->vector_bits = 32 * vl;
    k->vector_set = t->kernels.vector_bits != 0;
    if (c->kind == KP_RNN_Q && vnni)
        kparams_int(t, c, k);
    if (!proj && c->kind != KP_RNN_REC)
        return;
    H = proj ? c->p.proj.hidden : c->p.rnn.hidden;
    K = proj ? c->p.proj.input_size : H;
    k->kind = proj ? 2 : 1;
    k->cls = target_kernel_class(t, cell_gates(proj ? c->p.proj.cell : c->p.rnn.cell) * H * K *
                                        wfmt_bytes(c->wfmt));
    d[TK_TILE] = proj ? proj_nb(c->wfmt, vl) : REC_NB;
    d[TK_ROWS] = proj ? proj_rb(c->wfmt, vl) : 0;
    /* AMD Zen: no software prefetch of weights that stream from L3 or DRAM (its hardware
     * prefetchers alone were 1.06-1.19x faster on Zen 4: bench/RESULTS.md, issue 23) */
    d[TK_PREFETCH] = hwpf && k->cls != TK_L2 ? 0 : KG_PF_ROWS;
    d[TK_ALTERNATE] = !proj; /* rec: backwards every other step (rec.c emit_gemv) */
    /* a bf16 U: h in two bf16 pieces against U's pairs where the CPU has vdpbf16ps (as
     * accurate as widening U to fp32, 1.15-1.5x faster: bench/RESULTS.md), else widened; a
     * bf16 W widened (its 8 rows of X amortise the widening: X in 2 or 3 pieces is slower,
     * in 1 (X rounded to bf16) 1.2x faster, a profile's choice) */
    d[TK_DOT] = bf16dot && !proj ? 2 : 0;
    p = proj ? t->kernels.proj : t->kernels.rec;
    for (j = 0; j < TK_PIPE; j++) {
        k->set[j] = p[k->cls][j] != 0;
        k->v[j] = !k->set[j] ? d[j] : j >= TK_PREFETCH ? p[k->cls][j] - 1 : p[k->cls][j];
    }
    if (c->wfmt != LSTMC_RT_WFMT_BF16) /* dot: bf16 weights' only */
        k->v[TK_DOT] = k->set[TK_DOT] = 0;
}

int
kparams_vl(const target *t, int vl, diag *d)
{
    const int bits = t->kernels.vector_bits;
    if (!bits)
        return vl;
    if (bits > 32 * vl) {
        diag_error(d,
                   "target profile '%s': field 'kernels.vector_bits' asks for %d-bit vectors; "
                   "its CPU has %s",
                   t->name, bits, vl > 1 ? "narrower ones" : "no vector unit");
        if (vl > 1)
            diag_note(d, NULL, "the widest this CPU's vectors go is %d bits", 32 * vl);
        return -1;
    }
    return bits / 32;
}

#endif /* LSTMC_HAVE_LLVM */
