/*
 * prepare.c — the first stage after import: bind every symbolic input dim (--dim, or the
 * shapes of the data `lstmc run` was given), sort the nodes, infer every shape and fold
 * every constant subgraph (kprog/fold.c), then drop what nobody reads.
 */
#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "driver_impl.h"
#include "ir.h"
#include "kprog.h"
#include "shape.h"

#include <stdlib.h>
#include <string.h>

/* All folding together may make at most FOLD_BUDGET_BASE + FOLD_BUDGET_PER_BYTE times the
 * model file's size (so a small malicious file cannot make us compute gigabytes). */
#define FOLD_BUDGET_BASE     ((int64_t)64 << 20)
#define FOLD_BUDGET_PER_BYTE 16

static void
fmt_shape(const ir_shape *s, char *buf, size_t n)
{
    shape_fmt(s, buf, n);
}

/* Give every graph input a concrete shape: whole-shape bindings first (they also bind the
 * input's symbols), then --dim values, then 1 for the batch (batch.c: the axis that reaches
 * a recurrent layer's batch axis), with a note; any other dim still unknown is an error. */
static int
bind_inputs(ir_graph *g, const driver_options *o, diag *d)
{
    const char *sym_name[DRIVER_MAX_BINDINGS * IR_MAX_RANK];
    int64_t sym_val[DRIVER_MAX_BINDINGS * IR_MAX_RANK];
    int n_sym = 0, i, j, k, errors = 0;

    for (i = 0; o && i < o->n_dims; i++) {
        sym_name[n_sym] = o->dims[i].name;
        sym_val[n_sym++] = o->dims[i].value;
    }
    for (i = 0; o && i < o->n_shapes; i++) {
        const driver_binding *b = &o->shapes[i];
        ir_tensor *t = NULL;
        char want[256], got[256];
        for (j = 0; j < g->n_inputs; j++)
            if (strcmp(g->inputs[j]->name, b->name) == 0)
                t = g->inputs[j];
        if (!t) {
            diag_error(d, "the model has no input named '%s'", b->name);
            errors++;
            continue;
        }
        fmt_shape(&t->shape, want, sizeof want);
        fmt_shape(&b->shape, got, sizeof got);
        if (b->dtype && t->dtype != (ir_dtype)b->dtype) {
            diag_error(d, "input '%s': %s holds %s data, the model expects %s", t->name,
                       b->what ? b->what : "the data", ir_dtype_name((ir_dtype)b->dtype),
                       ir_dtype_name(t->dtype));
            errors++;
            continue;
        }
        if (t->shape.rank >= 0 && t->shape.rank != b->shape.rank) {
            diag_error(d, "input '%s': %s has shape %s, the model expects %s", t->name,
                       b->what ? b->what : "the data", got, want);
            errors++;
            continue;
        }
        for (k = 0; k < b->shape.rank; k++) {
            if (b->shape.d[k] == 0) {
                diag_error(d,
                           "input '%s': %s has shape %s: dim %d is 0, and a zero-length "
                           "sequence or empty batch cannot be run",
                           t->name, b->what ? b->what : "the data", got, k);
                errors++;
                break;
            }
            if (t->shape.rank >= 0 && t->shape.d[k] >= 0 && t->shape.d[k] != b->shape.d[k] &&
                !b->force) {
                diag_error(d, "input '%s': %s has shape %s, the model expects %s", t->name,
                           b->what ? b->what : "the data", got, want);
                errors++;
                break;
            }
        }
        if (k < b->shape.rank)
            continue;
        for (k = 0; t->shape.rank >= 0 && k < t->shape.rank; k++) {
            if (t->shape.d[k] < 0 && t->shape.sym[k] && n_sym < (int)(sizeof sym_val / 8)) {
                int m;
                for (m = 0; m < n_sym; m++)
                    if (strcmp(sym_name[m], t->shape.sym[k]) == 0)
                        break;
                if (m < n_sym && sym_val[m] != b->shape.d[k]) {
                    diag_error(d, "input '%s': dim '%s' is %lld in %s but %lld elsewhere", t->name,
                               t->shape.sym[k], (long long)b->shape.d[k],
                               b->what ? b->what : "the data", (long long)sym_val[m]);
                    errors++;
                } else if (m == n_sym) {
                    sym_name[n_sym] = t->shape.sym[k];
                    sym_val[n_sym++] = b->shape.d[k];
                }
            }
        }
        t->shape = b->shape;
    }
    if (errors)
        return -1;
    for (i = 0; i < g->n_inputs; i++) {
        ir_tensor *t = g->inputs[i];
        const ir_node *rnn = NULL;
        if (t->shape.rank < 0) {
            diag_error(d,
                       "input '%s' has no declared shape; give its data (lstmc run) to "
                       "fix it",
                       t->name);
            errors++;
            continue;
        }
        for (k = 0; k < t->shape.rank; k++) {
            int m;
            if (t->shape.d[k] >= 0)
                continue;
            for (m = 0; t->shape.sym[k] && m < n_sym; m++)
                if (strcmp(sym_name[m], t->shape.sym[k]) == 0)
                    break;
            if (t->shape.sym[k] && m < n_sym) {
                t->shape.d[k] = sym_val[m];
            } else if (k == driver_batch_axis(g, t, &rnn)) {
                /* the batch, as every runtime does: 1 unless told */
                char label[480];
                t->shape.d[k] = 1;
                if (t->shape.sym[k] && n_sym < (int)(sizeof sym_val / sizeof sym_val[0])) {
                    sym_name[n_sym] = t->shape.sym[k];
                    sym_val[n_sym++] = 1;
                }
                diag_note(d, NULL,
                          "input '%s': dim %d%s%s%s is the batch (it reaches the batch axis of "
                          "%s); compiled with batch 1%s%s%s",
                          t->name, k, t->shape.sym[k] ? " ('" : "",
                          t->shape.sym[k] ? t->shape.sym[k] : "", t->shape.sym[k] ? "')" : "",
                          rnn ? ir_node_label(rnn, label, sizeof label) : "a recurrent layer",
                          t->shape.sym[k] ? " (give --dim " : "",
                          t->shape.sym[k] ? t->shape.sym[k] : "",
                          t->shape.sym[k] ? "=B for batch B)" : "");
            } else {
                diag_error(d,
                           "input '%s': dim %d%s%s%s is symbolic; give it a value with "
                           "--dim %s=N",
                           t->name, k, t->shape.sym[k] ? " ('" : "",
                           t->shape.sym[k] ? t->shape.sym[k] : "", t->shape.sym[k] ? "')" : "",
                           t->shape.sym[k] ? t->shape.sym[k] : "NAME");
                errors++;
                break;
            }
            if (t->shape.d[k] <= 0) {
                diag_error(d, "input '%s': dim %d ('%s') must be at least 1", t->name, k,
                           t->shape.sym[k]);
                errors++;
                break;
            }
        }
        if (!errors && ir_shape_numel(&t->shape) == -2) {
            diag_error(d, "input '%s' has more than 2^31 elements", t->name);
            errors++;
        }
    }
    return errors ? -1 : 0;
}

static int
all_inputs_const(const ir_node *n)
{
    int i;
    for (i = 0; i < n->n_inputs; i++)
        if (n->inputs[i] && !n->inputs[i]->data)
            return 0;
    return 1;
}

/* Issue 21: n's one output is an integer with one element that shape inference computed
 * (a dim of an input: Gather(Shape(x), 1)), named not to fold: n becomes a ConstantOfShape
 * of that value, a fill per run whose value the generated code computes from the run's
 * dims (codegen/c/dims.c), so that nothing before it (a Shape) has to run. 1 when done. */
static int
materialise_scalar(ir_graph *g, ir_node *n)
{
    ir_tensor *y = n->n_outputs == 1 ? n->outputs[0] : NULL, *shape, *value;
    ir_shape s1 = {1, {0}, {NULL}};
    int64_t dims[IR_MAX_RANK];
    ir_attr *at;
    int k;
    if (!y || !y->data || ir_shape_numel(&y->shape) != 1 ||
        (y->dtype != IR_DT_I64 && y->dtype != IR_DT_I32))
        return 0;
    for (k = 0; k < y->shape.rank; k++)
        dims[k] = y->shape.d[k];
    s1.d[0] = y->shape.rank;
    shape = ir_const_new(g, "materialised_shape", IR_DT_I64, &s1, dims);
    value = arena_calloc(g->a, 1, sizeof *value);
    value->name = arena_strdup(g->a, y->name);
    value->dtype = y->dtype;
    value->shape.rank = 1;
    value->shape.d[0] = 1;
    value->data = arena_alloc(g->a, ir_dtype_size(y->dtype));
    memcpy(value->data, y->data, ir_dtype_size(y->dtype));
    n->op = IR_OP_CONSTANT_OF_SHAPE;
    n->op_type = "ConstantOfShape";
    n->n_inputs = 1;
    n->inputs[0] = shape;
    n->n_attrs = 0;
    at = ir_attr_add(g, n, "value", IR_ATTR_TENSOR);
    at->t = value;
    y->data = NULL;
    return 1;
}

/* Issue 21: whether o names an output of n as one not to fold (driver_options.nofold). */
static int
no_fold(const ir_node *n, const driver_options *o)
{
    int i, j;
    for (i = 0; o && i < n->n_outputs; i++)
        for (j = 0; n->outputs[i] && j < o->n_nofold; j++)
            if (strcmp(n->outputs[i]->name, o->nofold[j]) == 0)
                return 1;
    return 0;
}

/*
 * Infer and fold in topological order. A node whose inference fails is reported and the
 * walk goes on, so one run names every problem (every shape operand computed from a graph
 * input's values, on every node); nodes downstream of a failed one are skipped without a
 * message of their own (their inputs have no shape to check).
 */
int
driver_prepare(ir_graph *g, const driver_options *o, diag *d)
{
    int64_t budget = FOLD_BUDGET_BASE + FOLD_BUDGET_PER_BYTE * g->file_bytes;
    char *failed;
    int i, errors = 0, n_failed;
    if (bind_inputs(g, o, d) < 0)
        return -1;
    if (ir_toposort(g, d) < 0)
        return -1;
    driver_print_after(g, o, "bind");
    n_failed = g->n_tensors; /* inference may add tensors: they never fail */
    failed = calloc((size_t)n_failed + 1, 1);
    if (!failed) {
        diag_error(d, "out of memory");
        return -1;
    }
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        int j, done = 1, skip = 0;
        if (n->dead)
            continue;
        for (j = 0; j < n->n_inputs; j++)
            if (n->inputs[j] && n->inputs[j]->id < n_failed && failed[n->inputs[j]->id])
                skip = 1;
        if (skip || shape_infer_node(g, n, d) < 0) {
            for (j = 0; j < n->n_outputs; j++)
                if (n->outputs[j] && n->outputs[j]->id < n_failed)
                    failed[n->outputs[j]->id] = 1;
            errors += !skip;
            continue;
        }
        if (no_fold(n, o)) { /* values of the run's dims: computed at run time */
            if (!materialise_scalar(g, n))
                for (j = 0; j < n->n_outputs; j++)
                    if (n->outputs[j])
                        n->outputs[j]->data = NULL;
            continue;
        }
        for (j = 0; j < n->n_outputs; j++)
            if (n->outputs[j] && !n->outputs[j]->data)
                done = 0;
        if (done) { /* shape inference computed it already (shape arithmetic) */
            for (j = 0; j < n->n_outputs; j++)
                if (n->outputs[j])
                    n->outputs[j]->producer = NULL;
            n->dead = 1;
            continue;
        }
        if (all_inputs_const(n) && n->op != IR_OP_SHAPE && kp_fold_node(g, n, &budget, d) < 0)
            errors++;
    }
    free(failed);
    if (errors)
        return -1;
    ir_dce(g);
    driver_print_after(g, o, "infer");
    return 0;
}
