/*
 * dedup.c — every constant stored once (issue 19): the last pass of every program, so each
 * weight placement (const, blob, pointer) and the OpenCL weights buffer, which all store one
 * array per constant tensor the kernel calls read (memplan's MEMPLAN_CONST), store each
 * value once.
 *
 *   - Zero initial states: an initial_h / initial_c input of a recurrent node (LSTM, GRU,
 *     RNN and the lstmc.Rnn* parts) that is a constant of all zeros (PyTorch exports one
 *     for every nn.LSTM call, torch.zeros in forward another) is dropped: every kernel reads
 *     an absent initial state as zeros (ONNX's default).
 *   - Equal constants: tensors of the same dtype, shape and bytes become one tensor, the
 *     one with the lowest id, that every reader shares. That covers an initializer read
 *     through Identity nodes (a siamese encoder: one nn.LSTM applied to two windows;
 *     prepare folds each Identity into a copy), the packed copies fold_constants, lowp and
 *     sparse make per node from one source, and repeated Constant nodes. Found by a hash of
 *     the bytes, then memcmp.
 * Constants that are graph inputs or outputs, or 8-bit sources of a DequantizeLinear
 * (qsrc), keep their identity.
 */
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "passes.h"

/* Input slots of the initial states of recurrent op `op`: *h, *c (-1: none). */
static void
state_slots(ir_op op, int *h, int *c)
{
    *h = *c = -1;
    switch (op) {
    case IR_OP_LSTM:
        *c = 6;
        *h = 5;
        break;
    case IR_OP_GRU:
    case IR_OP_RNN:
        *h = 5;
        break;
    case IR_OP_RNN_REC:
    case IR_OP_RNN_TISSUE:
    case IR_OP_RNN_DRS:
        *h = 4;
        *c = 5;
        break;
    default:
        break;
    }
}

static size_t
const_bytes(const ir_tensor *t)
{
    int64_t n = ir_shape_numel(&t->shape);
    return n < 0 ? 0 : (size_t)n * ir_dtype_size(t->dtype);
}

static int
all_zero(const ir_tensor *t)
{
    const unsigned char *p = t->data;
    size_t n = const_bytes(t), i;
    if (t->dtype != IR_DT_F32 || !p)
        return 0;
    for (i = 0; i < n; i++)
        if (p[i]) /* -0.0f is zero too, but no exporter writes it */
            return 0;
    return 1;
}

/* May t be merged with an equal constant? */
static int
mergeable(const ir_tensor *t)
{
    return t && t->data && !t->producer && !t->is_input && !t->is_output && !t->qsrc &&
           ir_shape_numel(&t->shape) >= 0;
}

/* FNV-1a over the dtype, the shape and the bytes, 8 bytes at a time. */
static uint64_t
const_hash(const ir_tensor *t)
{
    const uint64_t prime = 1099511628211ull;
    uint64_t h = 14695981039346656037ull;
    const unsigned char *p = t->data;
    size_t n = const_bytes(t), i;
    int k;
    h = (h ^ (uint64_t)t->dtype) * prime;
    h = (h ^ (uint64_t)t->shape.rank) * prime;
    for (k = 0; k < t->shape.rank; k++)
        h = (h ^ (uint64_t)t->shape.d[k]) * prime;
    for (i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * prime;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * prime;
    return h ^ (h >> 29);
}

static int
same_const(const ir_tensor *a, const ir_tensor *b)
{
    int k;
    if (a->dtype != b->dtype || a->shape.rank != b->shape.rank)
        return 0;
    for (k = 0; k < a->shape.rank; k++)
        if (a->shape.d[k] != b->shape.d[k])
            return 0;
    return memcmp(a->data, b->data, const_bytes(a)) == 0;
}

int
pass_dedup(ir_graph *g, const pass_ctx *cx, diag *d)
{
    arena *scratch;
    ir_tensor **tab, **canon;
    uint64_t *hash;
    size_t cap = 16, n_const = 0;
    int i, j;
    (void)cx;
    (void)d;

    for (i = 0; i < g->n_nodes; i++) { /* zero initial states: absent */
        ir_node *n = g->nodes[i];
        int h, c;
        if (n->dead)
            continue;
        state_slots(n->op, &h, &c);
        if (h >= 0 && h < n->n_inputs && n->inputs[h] && !n->inputs[h]->producer &&
            !n->inputs[h]->is_input && all_zero(n->inputs[h]))
            n->inputs[h] = NULL;
        if (c >= 0 && c < n->n_inputs && n->inputs[c] && !n->inputs[c]->producer &&
            !n->inputs[c]->is_input && all_zero(n->inputs[c]))
            n->inputs[c] = NULL;
    }

    for (i = 0; i < g->n_tensors; i++)
        n_const += mergeable(g->tensors[i]);
    if (n_const < 2)
        return 0;
    while (cap < 2 * n_const)
        cap *= 2;
    scratch = arena_new(0);
    tab = arena_calloc(scratch, cap, sizeof *tab);
    hash = arena_calloc(scratch, cap, sizeof *hash);
    canon = arena_calloc(scratch, (size_t)g->n_tensors, sizeof *canon);
    for (i = 0; i < g->n_tensors; i++) { /* by id: the first of equal constants stays */
        ir_tensor *t = g->tensors[i];
        uint64_t hv;
        size_t k;
        if (!mergeable(t))
            continue;
        hv = const_hash(t);
        for (k = (size_t)hv & (cap - 1); tab[k]; k = (k + 1) & (cap - 1))
            if (hash[k] == hv && same_const(tab[k], t))
                break;
        if (!tab[k]) {
            tab[k] = t;
            hash[k] = hv;
        }
        canon[i] = tab[k];
    }
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (j = 0; j < n->n_inputs; j++)
            if (n->inputs[j] && canon[n->inputs[j]->id])
                n->inputs[j] = canon[n->inputs[j]->id];
    }
    arena_free(scratch);
    return 0;
}
