/*
 * rocc.c — the E-LSTM accelerator's program (elstm.h, docs/ELSTM.md): the per-sequence
 * command schedule of a layer (Fig. 8) and, per LSTM of a model, the eSELL RoCC words of W
 * and U (Fig. 5), the bias, the schedule and a readable dump. The time model is model.c.
 */
#include "elstm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "esell.h"
#include "ir.h"
#include "lstmc_rt_kernels.h"

/* --- schedule ---------------------------------------------------------------------------- */

static void
put(uint64_t *out, int64_t *n, uint64_t cmd)
{
    if (out)
        out[*n] = cmd;
    (*n)++;
}

/* U h and the cell for steps [t0, t1), each h_t sent back to the CPU. */
static void
put_uh(uint64_t *out, int64_t *n, int layer, int64_t t0, int64_t t1)
{
    int64_t t;
    for (t = t0; t < t1; t++) {
        put(out, n, ELSTM_CMD(ELSTM_UH, layer, t, 0));
        put(out, n, ELSTM_CMD(ELSTM_STORE_H, layer, t, 0));
    }
}

int64_t
elstm_schedule(int layer, const elstm_layer *l, int nfuse, int n_pe, uint64_t *out)
{
    int64_t group = (int64_t)(n_pe - 1) * nfuse, g0, t, n = 0;
    put(out, &n, ELSTM_CMD(ELSTM_CFG_LAYER, layer, l->x, l->h));
    put(out, &n, ELSTM_CMD(ELSTM_CFG_FUSE, layer, nfuse, n_pe));
    put(out, &n, ELSTM_CMD(ELSTM_LOAD_B, layer, 0, 0));
    /* prolog: W x of the first group; main: W x of group g beside U h of group g-1;
     * epilog: U h of the last group (Fig. 8) */
    for (g0 = 0; g0 < l->ts; g0 += group) {
        int64_t g1 = g0 + group < l->ts ? g0 + group : l->ts;
        for (t = g0; t < g1; t++)
            put(out, &n, ELSTM_CMD(ELSTM_LOAD_X, layer, t, 0));
        put(out, &n, ELSTM_CMD(ELSTM_WX, layer, g0, g1 - g0));
        if (g0 > 0)
            put_uh(out, &n, layer, g0 - group, g0);
    }
    g0 = (l->ts - 1) / group * group;
    put_uh(out, &n, layer, g0, l->ts);
    return n;
}

/* --- emission ------------------------------------------------------------------------------ */

static const char *cmd_names[] = {"?",      "CFG_LAYER", "CFG_FUSE", "LOAD_B",
                                  "LOAD_X", "WX",        "UH",       "STORE_H"};

/* Write n little-endian uint64 to outdir/name. */
static int
write_words(const char *outdir, const char *name, const uint64_t *w, int64_t n, diag *d)
{
    char path[4096];
    FILE *f;
    int64_t i;
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    f = fopen(path, "wb");
    if (!f) {
        diag_error(d, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    for (i = 0; i < n; i++) {
        unsigned char b[8];
        int k;
        for (k = 0; k < 8; k++)
            b[k] = (unsigned char)(w[i] >> (8 * k));
        fwrite(b, 1, 8, f);
    }
    if (fclose(f) != 0) {
        diag_error(d, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static double
sparsity(const float *m, int64_t n)
{
    int64_t i, z = 0;
    for (i = 0; i < n; i++)
        z += m[i] == 0.0f;
    return (double)z / (double)n;
}

/* A constant of zeros (PyTorch exports initial_h/initial_c as one). */
static int
zero_const(const ir_tensor *t)
{
    int64_t n = ir_shape_numel(&t->shape);
    return t->data && t->dtype == IR_DT_F32 && n >= 0 && sparsity(t->data, n) == 1.0;
}

/* What the accelerator runs: a forward LSTM with the default activations from a zero
 * state. Returns 0, else -1 after naming what it cannot run. */
static int
check_lstm(const ir_node *n, diag *d)
{
    const ir_attr *act = ir_attr_get(n, "activations");
    static const char *why[] = {NULL, NULL, NULL, NULL, "sequence_lens", "initial_h",
                                "initial_c", "P (peepholes)"};
    int i;
    if (ir_attr_int(n, "direction", 0) != 0) {
        diag_node(d, n, "the elstm accelerator runs forward LSTMs only, not %s ones",
                  ir_attr_int(n, "direction", 0) == 1 ? "reverse" : "bidirectional");
        return -1;
    }
    /* the importer always records the activations: sigmoid, tanh, tanh is the default */
    if ((act && (act->n != 3 || act->ints[0] != LSTMC_RT_ACT_SIGMOID ||
                 act->ints[1] != LSTMC_RT_ACT_TANH || act->ints[2] != LSTMC_RT_ACT_TANH)) ||
        ir_attr_get(n, "clip") || ir_attr_int(n, "input_forget", 0)) {
        diag_node(d, n, "the elstm accelerator has fixed sigmoid/tanh gates: no other "
                        "activations, no clip, no input_forget");
        return -1;
    }
    for (i = 4; i < n->n_inputs && i < 8; i++)
        if (n->inputs[i] && !((i == 5 || i == 6) && zero_const(n->inputs[i]))) {
            diag_node(d, n, "the elstm accelerator does not take input %s (it starts from a zero state)", why[i]);
            return -1;
        }
    for (i = 1; i < 3; i++)
        if (!n->inputs[i]->data || n->inputs[i]->shape.rank != 3) {
            diag_node(d, n, "the elstm target needs %s as a constant [1, 4H, *] initializer",
                      i == 1 ? "W" : "R");
            return -1;
        }
    if (n->n_inputs > 3 && n->inputs[3] && !n->inputs[3]->data) {
        diag_node(d, n, "the elstm target needs B as a constant initializer");
        return -1;
    }
    return 0;
}

/* Encode m and write its RoCC words as outdir/layerK_<what>.rocc; the U block-column
 * offsets too when cols is set. */
static int
emit_matrix(arena *a, const char *outdir, int k, const char *what, const float *m,
            int64_t rows, int64_t cols_n, int with_cols, esell *e, diag *d)
{
    int64_t n, bc;
    uint64_t *w;
    if (esell_encode(a, m, rows, cols_n, e) != 0) {
        diag_error(d, "layer %d: cannot encode %s (%lldx%lld) in eSELL", k, what,
                   (long long)rows, (long long)cols_n);
        return -1;
    }
    n = esell_rocc_words(e);
    w = arena_alloc(a, (size_t)(n > e->nbc + 1 ? n : e->nbc + 1) * sizeof *w);
    if (!w)
        return -1;
    esell_rocc_pack(e, w);
    if (write_words(outdir, arena_printf(a, "layer%d_%s.rocc", k, what), w, n, d) != 0)
        return -1;
    if (!with_cols)
        return 0;
    w[0] = 0;
    for (bc = 0; bc < e->nbc; bc++)
        w[bc + 1] = w[bc] + (uint64_t)esell_rocc_col_words(e, bc);
    return write_words(outdir, arena_printf(a, "layer%d_%s.cols", k, what), w, e->nbc + 1, d);
}

/* The bias W_b + R_b of every gate row, fp16, 4 per word. */
static int
emit_bias(arena *a, const char *outdir, int k, const ir_node *n, int64_t h, diag *d)
{
    const float *b = n->n_inputs > 3 && n->inputs[3] ? n->inputs[3]->data : NULL;
    uint64_t *w = arena_calloc(a, (size_t)h, sizeof *w);
    int64_t r;
    if (!w)
        return -1;
    for (r = 0; r < 4 * h; r++) {
        float v = b ? b[r] + b[4 * h + r] : 0.0f;
        w[r / 4] |= (uint64_t)lowp_f32_to_f16(v) << (16 * (r % 4));
    }
    return write_words(outdir, arena_printf(a, "layer%d_b.rocc", k), w, h, d);
}

static void
dump_schedule(FILE *f, const uint64_t *s, int64_t n)
{
    int64_t i;
    for (i = 0; i < n; i++) {
        unsigned op = (unsigned)(s[i] >> 56);
        fprintf(f, "  %016llx  L%u %-9s a=%llu b=%llu\n", (unsigned long long)s[i],
                (unsigned)(s[i] >> 48 & 0xff), op < 8 ? cmd_names[op] : "?",
                (unsigned long long)(s[i] >> 24 & 0xffffff),
                (unsigned long long)(s[i] & 0xffffff));
    }
}

int
elstm_emit(arena *a, const ir_graph *g, const elstm_profile *p, double sph,
           const char *outdir, diag *d)
{
    char path[4096];
    FILE *txt;
    uint64_t *sched = NULL;
    int64_t n_sched = 0;
    int i, k = 0, rc = -1;
    snprintf(path, sizeof path, "%s/elstm.txt", outdir);
    txt = fopen(path, "w");
    if (!txt) {
        diag_error(d, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(txt, "# E-LSTM program (docs/ELSTM.md)\nprofile %s: N_pe %d, %d MACC/PE/cycle, "
                 "RoCC %d bits, fp%d values, BUF_x %lld, BUF_wx %lld values; Sph %.3f\n",
            p->name, p->n_pe, p->macc_per_pe, p->rocc_bits, p->value_bits,
            (long long)p->buf_x, (long long)p->buf_wx, sph);
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        const ir_tensor *x;
        elstm_layer l;
        esell ew, eu;
        elstm_time t1, tn;
        int64_t layout, m;
        int nf;
        uint64_t *more;
        if (n->dead || n->op != IR_OP_LSTM)
            continue;
        if (check_lstm(n, d) != 0)
            goto out;
        x = n->inputs[0];
        layout = ir_attr_int(n, "layout", 0);
        l.h = n->inputs[2]->shape.d[2];
        l.x = n->inputs[1]->shape.d[2];
        l.ts = x->shape.rank == 3 ? x->shape.d[layout ? 1 : 0] : -1;
        if (l.ts < 1) {
            diag_node(d, n, "the elstm target needs a known sequence length: bind it with "
                            "--dim or give the model a fixed one");
            goto out;
        }
        if (l.ts >= (1 << 24) || l.x >= (1 << 24) || l.h >= (1 << 24)) {
            diag_node(d, n, "the elstm command words hold sizes and steps below 2^24");
            goto out;
        }
        m = 4 * l.h;
        l.spw = sparsity(n->inputs[1]->data, m * l.x);
        l.spu = sparsity(n->inputs[2]->data, m * l.h);
        l.sph = sph;
        nf = elstm_choose_nfuse(p, &l, NULL);
        if (!nf) {
            diag_node(d, n, "no fusion factor fits the elstm buffers (len(x) %lld, len(h) "
                            "%lld, %lld steps; BUF_x %lld, BUF_wx %lld values, N_pe %d)",
                      (long long)l.x, (long long)l.h, (long long)l.ts, (long long)p->buf_x,
                      (long long)p->buf_wx, p->n_pe);
            goto out;
        }
        if (emit_matrix(a, outdir, k, "W", n->inputs[1]->data, m, l.x, 0, &ew, d) != 0 ||
            emit_matrix(a, outdir, k, "U", n->inputs[2]->data, m, l.h, 1, &eu, d) != 0 ||
            emit_bias(a, outdir, k, n, l.h, d) != 0)
            goto out;
        {
            elstm_layer l0 = l;
            l0.sph = 0;
            elstm_eq6(p, &l0, 1, &t1);
            elstm_eq6(p, &l, nf, &tn);
        }
        fprintf(txt, "layer %d: node '%s' len(x) %lld len(h) %lld ts %lld Spw %.3f Spu %.3f "
                     "-> N_fuse %d (Eq. 6: %.0f cycles; unoptimised %.0f)\n"
                     "  W %lld RoCC words, U %lld RoCC words in %lld block columns\n",
                k, n->name, (long long)l.x, (long long)l.h, (long long)l.ts, l.spw, l.spu, nf,
                tn.total, t1.total, (long long)esell_rocc_words(&ew),
                (long long)esell_rocc_words(&eu), (long long)eu.nbc);
        m = elstm_schedule(k, &l, nf, p->n_pe, NULL);
        more = arena_alloc(a, (size_t)(n_sched + m) * sizeof *more);
        if (!more)
            goto out;
        if (n_sched)
            memcpy(more, sched, (size_t)n_sched * sizeof *more);
        elstm_schedule(k, &l, nf, p->n_pe, more + n_sched);
        sched = more;
        n_sched += m;
        k++;
    }
    if (!k) {
        diag_error(d, "the elstm target runs LSTM layers and the model has none");
        goto out;
    }
    fprintf(txt, "schedule (%lld commands, one sequence; op << 56 | layer << 48 | a << 24 | "
                 "b):\n",
            (long long)n_sched);
    dump_schedule(txt, sched, n_sched);
    if (write_words(outdir, "schedule.bin", sched, n_sched, d) != 0)
        goto out;
    rc = 0;
out:
    if (fclose(txt) != 0 && rc == 0) {
        diag_error(d, "cannot write %s: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}
