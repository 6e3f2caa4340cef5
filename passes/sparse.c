/*
 * sparse.c — E-LSTM's sparse weights (../shared/papers/elstm-embedded-sparse-lstm.txt §3.1)
 * on the CPU: two passes.
 *
 * prune (--prune=W:0.3,U:0.5) — magnitude pruning at compile time, before split_gates: in
 * every constant weight matrix of every LSTM/GRU/RNN layer (per direction, W and U apart)
 * the fraction f of the elements with the smallest |w| becomes 0. Precisely: with k =
 * floor(f * n), every element whose |w| is at most the k-th smallest |w| is zeroed (so ties
 * go together and the rule does not depend on the storage order; tests/e2e/sparse/make_pruned.py
 * applies the same rule to PyTorch's weights to make the reference).
 *
 * sparse (--sparse=auto[:F]|esell|off, default auto) — after the target's passes: the
 * packed weights of lstmc.RnnProj (W, every cell) and lstmc.RnnRec (U, LSTM and RNN) are
 * re-encoded in eSELL (compiler/formats/esell.c) and read by runtime/src/rt_spmv.c. "auto" does it
 * for a matrix whose fraction of exact zeros is at least F (a pruned model; the default F
 * is where eSELL beats the dense kernels of this build, see SPARSE_AUTO_MIN_C); "esell"
 * for every such matrix, and refuses what it cannot encode; "off" never. The GRU's U is
 * left out: its product is split around the reset gate (rt_rnn.c gru_rec_step), which one
 * SpMV over all gate rows cannot do.
 */
#include "arena.h"
#include "diag.h"
#include "esell.h"
#include "ir.h"
#include "lstmc_rt_kernels.h"
#include "passes.h"
#include "target.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* auto: the zero fraction from which a matrix is stored in eSELL, measured on the host
 * (bench/spmv_sweep.sh; bench/RESULTS.md, "Sparse weights on the CPU"): against the
 * portable C kernels (--emit=c) eSELL wins from about 95 % zeros; against the LLVM kernels
 * it lost at every sparsity measured (up to 99 %), so there auto keeps the weights dense
 * unless auto:F says otherwise. */
#define SPARSE_AUTO_MIN_C 0.95
#define SPARSE_AUTO_NEVER 2.0

/* Values in a float stay exact integers up to 2^24 (the section header holds rows, cols). */
#define SPARSE_MAX_DIM ((int64_t)1 << 24)

/* --- --prune ----------------------------------------------------------------------- */

static int
cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Zero the fraction f of m[0..n) with the smallest magnitude (the rule at the top). */
static void
prune_matrix(arena *a, float *m, int64_t n, double f)
{
    int64_t k = (int64_t)floor(f * (double)n), i;
    float *mag, t;
    if (k < 1)
        return;
    mag = arena_alloc(a, (size_t)n * sizeof *mag);
    for (i = 0; i < n; i++)
        mag[i] = fabsf(m[i]);
    qsort(mag, (size_t)n, sizeof *mag, cmp_float);
    t = mag[k - 1];
    for (i = 0; i < n; i++)
        if (fabsf(m[i]) <= t)
            m[i] = 0.0f;
}

/* A pruned copy of the constant weight [D, rows, cols] (one matrix per direction). */
static ir_tensor *
pruned(ir_graph *g, const ir_tensor *w, double f)
{
    ir_tensor *t = ir_const_new(g, w->name, IR_DT_F32, &w->shape, w->data);
    int64_t D = w->shape.d[0], per = w->shape.d[1] * w->shape.d[2], dd;
    for (dd = 0; dd < D; dd++)
        prune_matrix(g->a, (float *)t->data + dd * per, per, f);
    return t;
}

int
pass_prune(ir_graph *g, const pass_ctx *cx, diag *d)
{
    double fw = cx->prune.fw, fu = cx->prune.fu;
    int i, n_layers = 0;
    if (!cx->prune.on)
        return 0;
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        ir_tensor *W, *R;
        if (n->dead || (n->op != IR_OP_LSTM && n->op != IR_OP_GRU && n->op != IR_OP_RNN))
            continue;
        W = ir_in(n, 1);
        R = ir_in(n, 2);
        if (!W->data || !R->data || W->dtype != IR_DT_F32 || R->dtype != IR_DT_F32 ||
            W->shape.rank != 3 || R->shape.rank != 3) {
            diag_node(d, n, "--prune needs constant float32 weights W and R (initializers)");
            return -1;
        }
        if (fw > 0.0)
            n->inputs[1] = pruned(g, W, fw);
        if (fu > 0.0)
            n->inputs[2] = pruned(g, R, fu);
        n_layers++;
    }
    if (!n_layers) {
        diag_error(d, "--prune: the model has no LSTM, GRU or RNN layer to prune (it runs "
                      "before split_gates; is it in the pass list first?)");
        return -1;
    }
    return 0;
}

/* --- --sparse ---------------------------------------------------------------------- */

/* Fraction of exact zeros in t. */
static double
zero_fraction(const ir_tensor *t)
{
    int64_t n = ir_shape_numel(&t->shape), i, z = 0;
    const float *v = t->data;
    for (i = 0; i < n; i++)
        z += v[i] == 0.0f;
    return n ? (double)z / (double)n : 0.0;
}

/*
 * The packed weight pk [D, K, M] (M x K per direction, transposed) as eSELL sections of the
 * M x K matrices (lstmc_rt_kernels.h, LSTMC_RT_PACK_ESELL). NULL when the arena is full.
 */
static ir_tensor *
esell_tensor(ir_graph *g, const ir_tensor *pk, const char *hint)
{
    int64_t D = pk->shape.d[0], K = pk->shape.d[1], M = pk->shape.d[2], dd, r, c, total = 0;
    esell *e = arena_calloc(g->a, (size_t)D, sizeof *e);
    float *m = arena_alloc(g->a, (size_t)(M * K) * sizeof *m), *out;
    ir_shape s = {0};
    ir_tensor *t;
    if (!e || !m)
        return NULL;
    for (dd = 0; dd < D; dd++) {
        const float *src = (const float *)pk->data + dd * K * M;
        for (r = 0; r < M; r++)
            for (c = 0; c < K; c++)
                m[r * K + c] = src[c * M + r];
        if (esell_encode(g->a, m, M, K, &e[dd]) < 0)
            return NULL;
        total += esell_rt_len(&e[dd]);
    }
    s.rank = 1;
    s.d[0] = total;
    t = ir_const_new(g, hint, IR_DT_F32, &s, NULL);
    out = t->data;
    for (dd = 0; dd < D; dd++) {
        esell_rt_write(&e[dd], out);
        out += esell_rt_len(&e[dd]);
    }
    return t;
}

/* Store weight input `slot` of n in eSELL when mode and its zeros say so. 0, or -1 after a
 * message (esell mode: what cannot be stored). */
static int
sparsify(ir_graph *g, ir_node *n, int mode, double min, const char *what, const char *hint, diag *d)
{
    ir_tensor *w = ir_in(n, 1), *t;
    if (!w || !w->data || ir_attr_int(n, "packed", 0) != 1 || w->shape.rank != 3) {
        if (mode == PASS_SPARSE_ESELL) {
            diag_node(d, n,
                      "--sparse=esell: %s is not a constant packed weight "
                      "(fold_constants did not pack it)",
                      what);
            return -1;
        }
        return 0;
    }
    if (mode == PASS_SPARSE_AUTO && zero_fraction(w) < min)
        return 0;
    if (w->shape.d[1] >= SPARSE_MAX_DIM || w->shape.d[2] >= SPARSE_MAX_DIM) {
        diag_node(d, n, "%s is too large for eSELL storage (a dimension of 2^24 or more)", what);
        return -1;
    }
    t = esell_tensor(g, w, hint);
    if (!t) {
        diag_node(d, n, "%s: eSELL encoding failed (out of memory)", what);
        return -1;
    }
    n->inputs[1] = t;
    ir_attr_set_int(g, n, "packed", LSTMC_RT_PACK_ESELL);
    return 0;
}

int
pass_sparse(ir_graph *g, const pass_ctx *cx, diag *d)
{
    int mode = cx->sparse.mode, i;
    double min = cx->sparse.has_min ? cx->sparse.min
                 : cx->llvm_kernels ? SPARSE_AUTO_NEVER
                                    : SPARSE_AUTO_MIN_C;
    if (mode == PASS_SPARSE_OFF)
        return 0;
    if (cx->t && cx->t->gpu) { /* the OpenCL kernels read dense weights (codegen/opencl/opencl.c) */
        if (mode == PASS_SPARSE_AUTO)
            return 0;
        diag_error(d,
                   "--sparse=esell does not combine with the OpenCL target '%s': its "
                   "kernels read dense weights",
                   cx->t->name);
        return -1;
    }
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        int cell;
        if (n->dead)
            continue;
        cell = (int)ir_attr_int(n, "cell", 0);
        if (n->op == IR_OP_RNN_PROJ) {
            if (sparsify(g, n, mode, min, "W (input projection)", "G1_esell", d) < 0)
                return -1;
        } else if (n->op == IR_OP_RNN_REC && cell != LSTMC_RT_CELL_GRU) {
            if (sparsify(g, n, mode, min, "U (recurrent weights)", "G2_esell", d) < 0)
                return -1;
        } else if (mode == PASS_SPARSE_ESELL &&
                   (n->op == IR_OP_RNN_REC || n->op == IR_OP_RNN_TISSUE || n->op == IR_OP_RNN_DRS ||
                    n->op == IR_OP_LSTM || n->op == IR_OP_GRU || n->op == IR_OP_RNN)) {
            diag_node(d, n, "--sparse=esell cannot store this layer's recurrent weights: %s",
                      n->op == IR_OP_RNN_REC      ? "the GRU's U h is split around the reset gate"
                      : n->op == IR_OP_RNN_TISSUE ? "not with tissues (--alpha-inter)"
                      : n->op == IR_OP_RNN_DRS    ? "not with DRS (--alpha-intra)"
                                                  : "it needs the split_gates pass");
            return -1;
        }
    }
    return 0;
}
