/*
 * ir_clone.c — a deep copy of a graph, so that one import serves several compiles: the
 * whole-sequence program and the streaming step program each prepare and rewrite their own
 * copy of the imported graph (tract's pulse: streaming is a translation of the graph, not a
 * second import).
 *
 * The copy has the same tensors and nodes in the same order, with the same ids, names and
 * name counter, so every name a later stage generates is the one it would generate on a
 * fresh import. Shapes, attributes, slot arrays and small constants are copied; strings that
 * no stage rewrites in place (names, symbols, attribute strings) are shared, and so are the
 * big constants (blobs, ir_data.c) when the copy is in g0's arena: sealed read-only, so that
 * a stage that rewrites one calls ir_data_mut and gets its own copy.
 */
#include <string.h>

#include "arena.h"
#include "ir.h"

static void *
dup_bytes(arena *a, const void *p, size_t n)
{
    void *q;
    if (!p)
        return NULL;
    q = arena_alloc(a, n ? n : 1);
    if (n)
        memcpy(q, p, n);
    return q;
}

static size_t
data_bytes(const ir_tensor *t)
{
    int64_t n = ir_shape_numel(&t->shape);
    return (size_t)(n > 0 ? n : 0) * ir_dtype_size(t->dtype);
}

/* The fields of t, its data copied into a (a blob's shared and sealed instead); producer
 * and id are the caller's. */
static void
copy_tensor(arena *a, const ir_graph *g0, ir_tensor *dst, const ir_tensor *src)
{
    int id = dst->id;
    const char *name = dst->name;
    *dst = *src;
    dst->id = id;
    dst->name = name;
    dst->producer = NULL;
    if (src->data && a == g0->a && ir_data_share(g0, src->data)) {
        dst->data = src->data;
    } else {
        dst->data = src->data ? dup_bytes(a, src->data, data_bytes(src)) : NULL;
    }
}

static ir_tensor *
attr_tensor(arena *a, const ir_graph *g0, const ir_tensor *src)
{
    ir_tensor *t;
    if (!src)
        return NULL;
    t = arena_alloc(a, sizeof *t);
    t->id = src->id;
    t->name = src->name;
    copy_tensor(a, g0, t, src);
    return t;
}

/* g's tensor for g0's tensor t (same index; by name should a stage have renumbered). */
static ir_tensor *
map_tensor(ir_graph *g, const ir_graph *g0, const ir_tensor *t)
{
    if (!t)
        return NULL;
    if (t->id >= 0 && t->id < g0->n_tensors && g0->tensors[t->id] == t)
        return g->tensors[t->id];
    return ir_tensor_find(g, t->name);
}

ir_graph *
ir_clone(arena *a, const ir_graph *g0)
{
    ir_graph *g = ir_graph_new(a, g0->name, g0->file);
    int i, j;

    if (a == g0->a)
        ir_data_join(g, g0->store); /* big constants are shared, not copied */
    g->opset = g0->opset;
    g->file_bytes = g0->file_bytes;
    for (i = 0; i < g0->n_tensors; i++) {
        const ir_tensor *s = g0->tensors[i];
        ir_tensor *t = ir_tensor_new(g, s->name, s->dtype, &s->shape);
        copy_tensor(a, g0, t, s);
        t->id = s->id;
    }
    for (i = 0; i < g0->n_inputs; i++)
        ir_graph_add_input(g, map_tensor(g, g0, g0->inputs[i]));
    for (i = 0; i < g0->n_outputs; i++)
        ir_graph_add_output(g, map_tensor(g, g0, g0->outputs[i]));
    for (i = 0; i < g0->n_nodes; i++) {
        const ir_node *s = g0->nodes[i];
        ir_node *n = ir_node_new(g, s->op, s->name, s->op_type, s->n_inputs, s->n_outputs);
        n->id = s->id;
        n->opset = s->opset;
        n->unnamed = s->unnamed;
        n->onnx_index = s->onnx_index;
        n->dead = s->dead;
        for (j = 0; j < s->n_inputs; j++)
            n->inputs[j] = map_tensor(g, g0, s->inputs[j]);
        for (j = 0; j < s->n_outputs; j++) {
            n->outputs[j] = map_tensor(g, g0, s->outputs[j]);
            if (n->outputs[j] && s->outputs[j]->producer == s)
                n->outputs[j]->producer = n;
        }
        n->n_attrs = s->n_attrs;
        n->attrs = dup_bytes(a, s->attrs, sizeof *s->attrs * (size_t)s->n_attrs);
        for (j = 0; j < s->n_attrs; j++) {
            ir_attr *at = &n->attrs[j];
            const ir_attr *as = &s->attrs[j];
            at->ints = dup_bytes(a, as->ints, sizeof *as->ints * (size_t)(as->ints ? as->n : 0));
            at->floats =
                dup_bytes(a, as->floats, sizeof *as->floats * (size_t)(as->floats ? as->n : 0));
            at->strings = dup_bytes(a, as->strings,
                                    sizeof *as->strings * (size_t)(as->strings ? as->n : 0));
            at->t = attr_tensor(a, g0, as->t);
        }
    }
    g->tmp_counter = g0->tmp_counter;
    g->weights_hint = g0->weights_hint;
    for (i = 0; i < g0->n_qscales; i++)
        ir_qscale_add(g, g0->qscales[i]);
    return g;
}
