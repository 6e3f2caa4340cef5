/*
 * ir.c — building and querying the IR graph: tensors (with a name hash), nodes,
 * attributes, topological order with cycle and dangling-input reports, dead-code removal.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"

static const char *const op_names[] = {
#define X(e, s, ...) s,
#include "ir_ops.def"
#undef X
};

static const struct {
    ir_op_class cls;
    int min_in, max_in, min_out, max_out;
} op_info[] = {
#define X(e, s, cls, min_in, max_in, min_out, max_out, ...) {cls, min_in, max_in, min_out, max_out},
#include "ir_ops.def"
#undef X
};

static const char *const op_inputs[][IR_OP_MAX_INPUTS] = {
#define X(e, s, cls, min_in, max_in, min_out, max_out, ...) {__VA_ARGS__},
#include "ir_ops.def"
#undef X
};

_Static_assert(sizeof op_names / sizeof op_names[0] == IR_OP_COUNT, "one name per op");
_Static_assert(sizeof op_info / sizeof op_info[0] == IR_OP_COUNT, "one op_info row per op");
_Static_assert(sizeof op_inputs / sizeof op_inputs[0] == IR_OP_COUNT, "one op_inputs row per op");

/* Each row names every input slot, and its counts are in order. */
#define IR_N_NAMES(...) (sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *))
#define X(e, s, cls, min_in, max_in, min_out, max_out, ...)                                        \
    _Static_assert((max_in) < 0 || IR_N_NAMES(__VA_ARGS__) == (size_t)(max_in),                    \
                   #e ": one input name per input slot");                                          \
    _Static_assert((max_in) <= IR_OP_MAX_INPUTS && 0 <= (min_in) &&                                \
                       ((max_in) < 0 || (min_in) <= (max_in)),                                     \
                   #e ": input counts out of order");                                              \
    _Static_assert(0 <= (min_out) && (min_out) <= (max_out), #e ": output counts out of order");
#include "ir_ops.def"
#undef X
#undef IR_N_NAMES

const char *
ir_op_name(ir_op op)
{
    if ((int)op < 0 || op >= IR_OP_COUNT)
        return "?";
    return op_names[op];
}

ir_op
ir_op_from_name(const char *s)
{
    int i;
    for (i = 0; i < IR_OP_COUNT; i++)
        if (strcmp(op_names[i], s) == 0)
            return (ir_op)i;
    return IR_OP_COUNT;
}

ir_op_class
ir_op_class_of(ir_op op)
{
    return op_info[op].cls;
}

void
ir_op_arity(ir_op op, int *min_in, int *max_in, int *min_out, int *max_out)
{
    *min_in = op_info[op].min_in;
    *max_in = op_info[op].max_in;
    *min_out = op_info[op].min_out;
    *max_out = op_info[op].max_out;
}

const char *
ir_op_input_name(ir_op op, int i)
{
    if ((int)op < 0 || op >= IR_OP_COUNT || i < 0 || i >= IR_OP_MAX_INPUTS)
        return NULL;
    return op_inputs[op][i];
}

const char *
ir_dtype_name(ir_dtype t)
{
    switch (t) {
    case IR_DT_F32: return "f32";
    case IR_DT_I64: return "i64";
    case IR_DT_I32: return "i32";
    case IR_DT_BOOL: return "bool";
    case IR_DT_I8: return "i8";
    case IR_DT_I16: return "i16";
    default: return "undef";
    }
}

size_t
ir_dtype_size(ir_dtype t)
{
    switch (t) {
    case IR_DT_F32: return 4;
    case IR_DT_I64: return 8;
    case IR_DT_I32: return 4;
    case IR_DT_BOOL: return 1;
    case IR_DT_I8: return 1;
    case IR_DT_I16: return 2;
    default: return 0;
    }
}

int
ir_shape_known(const ir_shape *s)
{
    int i;
    if (s->rank < 0)
        return 0;
    for (i = 0; i < s->rank; i++)
        if (s->d[i] < 0)
            return 0;
    return 1;
}

int64_t
ir_shape_numel(const ir_shape *s)
{
    int64_t n = 1;
    int i;
    if (!ir_shape_known(s))
        return -1;
    for (i = 0; i < s->rank; i++) {
        if (s->d[i] == 0)
            return 0;
    }
    for (i = 0; i < s->rank; i++) {
        if (s->d[i] > IR_MAX_ELEMS || n > IR_MAX_ELEMS / s->d[i])
            return -2;
        n *= s->d[i];
    }
    return n > IR_MAX_ELEMS ? -2 : n;
}

/* --- graph and tensors ------------------------------------------------------------- */

ir_graph *
ir_graph_new(arena *a, const char *name, const char *file)
{
    ir_graph *g = arena_alloc(a, sizeof *g);
    g->a = a;
    g->name = arena_strdup(a, name ? name : "graph");
    g->file = arena_strdup(a, file ? file : "model");
    ir_data_join(g, arena_alloc(a, ir_data_store_size()));
    return g;
}

void
ir_qscale_add(ir_graph *g, float s)
{
    g->qscales = arena_grow(g->a, g->qscales, sizeof *g->qscales, (size_t)g->n_qscales,
                            &g->cap_qscales, (size_t)g->n_qscales + 1);
    g->qscales[g->n_qscales++] = s;
    g->qscales_sorted = 0;
}

static int
cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

const float *
ir_qscales(ir_graph *g, int *n)
{
    int i, m = 0;
    if (!g->qscales_sorted && g->n_qscales > 0) {
        qsort(g->qscales, (size_t)g->n_qscales, sizeof *g->qscales, cmp_float);
        for (i = 0; i < g->n_qscales; i++)
            if (m == 0 || g->qscales[i] != g->qscales[m - 1])
                g->qscales[m++] = g->qscales[i];
        g->n_qscales = m;
    }
    g->qscales_sorted = 1;
    *n = g->n_qscales;
    return g->qscales;
}

static size_t
hash_str(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void
hash_insert(ir_graph *g, ir_tensor *t)
{
    size_t i;
    if ((size_t)(g->n_tensors + 1) * 2 > g->hcap) {
        size_t ncap = g->hcap ? g->hcap * 2 : 64, k;
        ir_tensor **nt = arena_calloc(g->a, ncap, sizeof *nt);
        for (k = 0; k < g->hcap; k++) {
            ir_tensor *o = g->htab[k];
            if (!o)
                continue;
            i = hash_str(o->name) & (ncap - 1);
            while (nt[i])
                i = (i + 1) & (ncap - 1);
            nt[i] = o;
        }
        g->htab = nt;
        g->hcap = ncap;
    }
    i = hash_str(t->name) & (g->hcap - 1);
    while (g->htab[i])
        i = (i + 1) & (g->hcap - 1);
    g->htab[i] = t;
}

ir_tensor *
ir_tensor_find(const ir_graph *g, const char *name)
{
    size_t i;
    if (!g->hcap || !name)
        return NULL;
    i = hash_str(name) & (g->hcap - 1);
    while (g->htab[i]) {
        if (strcmp(g->htab[i]->name, name) == 0)
            return g->htab[i];
        i = (i + 1) & (g->hcap - 1);
    }
    return NULL;
}

ir_tensor *
ir_tensor_new(ir_graph *g, const char *name, ir_dtype dt, const ir_shape *shape)
{
    ir_tensor *t;
    size_t cap = (size_t)g->cap_tensors;
    if (ir_tensor_find(g, name))
        return NULL;
    t = arena_alloc(g->a, sizeof *t);
    t->id = g->n_tensors;
    t->name = arena_strdup(g->a, name);
    t->dtype = dt;
    if (shape)
        t->shape = *shape;
    else
        t->shape.rank = -1;
    g->tensors = arena_grow(g->a, g->tensors, sizeof *g->tensors, (size_t)g->n_tensors, &cap,
                            (size_t)g->n_tensors + 1);
    g->cap_tensors = (int)cap;
    g->tensors[g->n_tensors++] = t;
    hash_insert(g, t);
    return t;
}

ir_tensor *
ir_tensor_tmp(ir_graph *g, const char *hint, ir_dtype dt, const ir_shape *shape)
{
    for (;;) {
        char *name = arena_printf(g->a, "%s__%d", hint ? hint : "t", g->tmp_counter++);
        if (!ir_tensor_find(g, name))
            return ir_tensor_new(g, name, dt, shape);
    }
}

ir_tensor *
ir_const_new(ir_graph *g, const char *hint, ir_dtype dt, const ir_shape *shape, const void *data)
{
    ir_tensor *t = ir_tensor_tmp(g, hint, dt, shape);
    int64_t n = ir_shape_numel(shape);
    size_t bytes = (size_t)(n > 0 ? n : 0) * ir_dtype_size(dt);
    t->data = ir_data_alloc(g, bytes);
    if (bytes && data)
        memcpy(t->data, data, bytes);
    return t;
}

void
ir_graph_add_input(ir_graph *g, ir_tensor *t)
{
    size_t cap = (size_t)g->cap_inputs;
    g->inputs = arena_grow(g->a, g->inputs, sizeof *g->inputs, (size_t)g->n_inputs, &cap,
                           (size_t)g->n_inputs + 1);
    g->cap_inputs = (int)cap;
    g->inputs[g->n_inputs++] = t;
    t->is_input = 1;
}

void
ir_graph_add_output(ir_graph *g, ir_tensor *t)
{
    size_t cap = (size_t)g->cap_outputs;
    g->outputs = arena_grow(g->a, g->outputs, sizeof *g->outputs, (size_t)g->n_outputs, &cap,
                            (size_t)g->n_outputs + 1);
    g->cap_outputs = (int)cap;
    g->outputs[g->n_outputs++] = t;
    t->is_output = 1;
}

/* --- nodes ------------------------------------------------------------------------- */

ir_node *
ir_node_new(ir_graph *g, ir_op op, const char *name, const char *op_type, int n_in, int n_out)
{
    ir_node *n = arena_alloc(g->a, sizeof *n);
    size_t cap = (size_t)g->cap_nodes;
    n->id = g->n_nodes;
    n->op = op;
    n->op_type = arena_strdup(g->a, op_type ? op_type : ir_op_name(op));
    if (name && *name)
        n->name = arena_strdup(g->a, name);
    else
        n->name = arena_printf(g->a, "%s_%d", n->op_type, g->n_nodes);
    n->opset = g->opset;
    n->unnamed = 0;
    n->onnx_index = -1;
    n->n_inputs = n_in;
    n->inputs = arena_calloc(g->a, (size_t)(n_in > 0 ? n_in : 1), sizeof *n->inputs);
    n->n_outputs = n_out;
    n->outputs = arena_calloc(g->a, (size_t)(n_out > 0 ? n_out : 1), sizeof *n->outputs);
    g->nodes = arena_grow(g->a, g->nodes, sizeof *g->nodes, (size_t)g->n_nodes, &cap,
                          (size_t)g->n_nodes + 1);
    g->cap_nodes = (int)cap;
    g->nodes[g->n_nodes++] = n;
    return n;
}

void
ir_node_origin(ir_node *n, const ir_node *from)
{
    n->unnamed = from->unnamed;
    n->onnx_index = from->onnx_index;
}

void
ir_node_set_output(ir_node *n, int i, ir_tensor *t)
{
    n->outputs[i] = t;
    if (t)
        t->producer = n;
}

ir_tensor *
ir_in(const ir_node *n, int i)
{
    return i >= 0 && i < n->n_inputs ? n->inputs[i] : NULL;
}

ir_tensor *
ir_out(const ir_node *n, int i)
{
    return i >= 0 && i < n->n_outputs ? n->outputs[i] : NULL;
}

/* --- attributes -------------------------------------------------------------------- */

ir_attr *
ir_attr_add(ir_graph *g, ir_node *n, const char *name, ir_attr_kind kind)
{
    ir_attr *na;
    int i;
    for (i = 0; i < n->n_attrs; i++) {
        if (strcmp(n->attrs[i].name, name) == 0) {
            memset(&n->attrs[i], 0, sizeof n->attrs[i]);
            n->attrs[i].name = arena_strdup(g->a, name);
            n->attrs[i].kind = kind;
            return &n->attrs[i];
        }
    }
    na = arena_calloc(g->a, (size_t)n->n_attrs + 1, sizeof *na);
    if (n->n_attrs)
        memcpy(na, n->attrs, (size_t)n->n_attrs * sizeof *na);
    n->attrs = na;
    na = &n->attrs[n->n_attrs++];
    na->name = arena_strdup(g->a, name);
    na->kind = kind;
    return na;
}

void
ir_attr_set_int(ir_graph *g, ir_node *n, const char *name, int64_t v)
{
    ir_attr_add(g, n, name, IR_ATTR_INT)->i = v;
}

void
ir_attr_set_float(ir_graph *g, ir_node *n, const char *name, float v)
{
    ir_attr_add(g, n, name, IR_ATTR_FLOAT)->f = v;
}

void
ir_attr_set_string(ir_graph *g, ir_node *n, const char *name, const char *v)
{
    ir_attr_add(g, n, name, IR_ATTR_STRING)->s = arena_strdup(g->a, v);
}

void
ir_attr_set_ints(ir_graph *g, ir_node *n, const char *name, const int64_t *v, int count)
{
    ir_attr *at = ir_attr_add(g, n, name, IR_ATTR_INTS);
    at->n = count;
    at->ints = arena_calloc(g->a, (size_t)(count > 0 ? count : 1), sizeof *at->ints);
    if (count > 0)
        memcpy(at->ints, v, (size_t)count * sizeof *v);
}

void
ir_attr_set_floats(ir_graph *g, ir_node *n, const char *name, const float *v, int count)
{
    ir_attr *at = ir_attr_add(g, n, name, IR_ATTR_FLOATS);
    at->n = count;
    at->floats = arena_calloc(g->a, (size_t)(count > 0 ? count : 1), sizeof *at->floats);
    if (count > 0)
        memcpy(at->floats, v, (size_t)count * sizeof *v);
}

void
ir_attr_set_strings(ir_graph *g, ir_node *n, const char *name, const char *const *v, int count)
{
    ir_attr *at = ir_attr_add(g, n, name, IR_ATTR_STRINGS);
    int i;
    at->n = count;
    at->strings = arena_calloc(g->a, (size_t)(count > 0 ? count : 1), sizeof *at->strings);
    for (i = 0; i < count; i++)
        at->strings[i] = arena_strdup(g->a, v[i]);
}

const ir_attr *
ir_attr_get(const ir_node *n, const char *name)
{
    int i;
    for (i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

int64_t
ir_attr_int(const ir_node *n, const char *name, int64_t dflt)
{
    const ir_attr *a = ir_attr_get(n, name);
    return a && a->kind == IR_ATTR_INT ? a->i : dflt;
}

float
ir_attr_float(const ir_node *n, const char *name, float dflt)
{
    const ir_attr *a = ir_attr_get(n, name);
    return a && a->kind == IR_ATTR_FLOAT ? a->f : dflt;
}

const char *
ir_attr_string(const ir_node *n, const char *name, const char *dflt)
{
    const ir_attr *a = ir_attr_get(n, name);
    return a && a->kind == IR_ATTR_STRING ? a->s : dflt;
}

/* --- order ------------------------------------------------------------------------- */

static int
tensor_available(const ir_tensor *t)
{
    return !t->producer && (t->is_input || t->data);
}

/*
 * Kahn's algorithm over live nodes. Nodes left over sit on a cycle or behind one; a
 * dangling input (no producer, no data, no graph input) is reported first.
 */
int
ir_toposort(ir_graph *g, diag *d)
{
    arena *a = g->a;
    int n = g->n_nodes, i, j, k, head = 0, tail = 0, errors = 0;
    int *pending = arena_calloc(a, (size_t)n + 1, sizeof *pending);
    int *queue = arena_calloc(a, (size_t)n + 1, sizeof *queue);
    int *n_users = arena_calloc(a, (size_t)g->n_tensors + 1, sizeof *n_users);
    int **users = arena_calloc(a, (size_t)g->n_tensors + 1, sizeof *users);
    int *fill = arena_calloc(a, (size_t)g->n_tensors + 1, sizeof *fill);
    ir_node **sorted;

    for (i = 0; i < n; i++) {
        ir_node *nd = g->nodes[i];
        nd->id = i;
        if (nd->dead)
            continue;
        for (j = 0; j < nd->n_inputs; j++) {
            ir_tensor *t = nd->inputs[j];
            if (!t)
                continue;
            if (!t->producer && !tensor_available(t)) {
                diag_node(d, nd,
                          "input '%s' is not produced by any node, initializer or graph input",
                          t->name);
                errors++;
                continue;
            }
            if (t->producer && !t->producer->dead) {
                pending[i]++;
                n_users[t->id]++;
            }
        }
    }
    for (k = 0; k < g->n_outputs; k++) {
        ir_tensor *t = g->outputs[k];
        if (!t->producer && !tensor_available(t)) {
            diag_error(d, "graph output '%s' is not produced by any node, initializer or "
                          "graph input",
                       t->name);
            errors++;
        }
    }
    if (errors)
        return -1;
    for (k = 0; k < g->n_tensors; k++)
        users[k] = arena_calloc(a, (size_t)n_users[k] + 1, sizeof **users);
    for (i = 0; i < n; i++) {
        ir_node *nd = g->nodes[i];
        if (nd->dead)
            continue;
        for (j = 0; j < nd->n_inputs; j++) {
            ir_tensor *t = nd->inputs[j];
            if (t && t->producer && !t->producer->dead)
                users[t->id][fill[t->id]++] = i;
        }
        if (pending[i] == 0)
            queue[tail++] = i;
    }
    sorted = arena_calloc(a, (size_t)n + 1, sizeof *sorted);
    while (head < tail) {
        ir_node *nd = g->nodes[queue[head++]];
        sorted[head - 1] = nd;
        for (j = 0; j < nd->n_outputs; j++) {
            ir_tensor *t = nd->outputs[j];
            if (!t)
                continue;
            for (k = 0; k < fill[t->id]; k++) {
                int u = users[t->id][k];
                if (--pending[u] == 0)
                    queue[tail++] = u;
            }
        }
    }
    k = 0;
    for (i = 0; i < n; i++)
        if (!g->nodes[i]->dead)
            k++;
    if (tail != k) {
        for (i = 0; i < n; i++) {
            if (!g->nodes[i]->dead && pending[i] > 0) {
                diag_node(d, g->nodes[i], "is part of a cycle (or depends on one): the graph "
                                          "is not acyclic");
            }
        }
        return -1;
    }
    memcpy(g->nodes, sorted, (size_t)tail * sizeof *sorted);
    g->n_nodes = tail;
    for (i = 0; i < tail; i++)
        g->nodes[i]->id = i;
    return 0;
}

/* Walk backwards from the graph outputs; everything not reached dies. Needs topo order. */
void
ir_dce(ir_graph *g)
{
    char *live = arena_calloc(g->a, (size_t)g->n_tensors + 1, 1);
    int i, j, k = 0;
    for (i = 0; i < g->n_outputs; i++)
        live[g->outputs[i]->id] = 1;
    for (i = g->n_nodes - 1; i >= 0; i--) {
        ir_node *n = g->nodes[i];
        int used = 0;
        if (n->dead)
            continue;
        for (j = 0; j < n->n_outputs; j++)
            if (n->outputs[j] && live[n->outputs[j]->id])
                used = 1;
        if (!used) {
            n->dead = 1;
            continue;
        }
        for (j = 0; j < n->n_inputs; j++)
            if (n->inputs[j])
                live[n->inputs[j]->id] = 1;
    }
    for (i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead)
            g->nodes[k++] = g->nodes[i];
    g->n_nodes = k;
    for (i = 0; i < k; i++)
        g->nodes[i]->id = i;
}

int
ir_n_consumers(const ir_graph *g, const ir_tensor *t)
{
    int i, j, c = 0;
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (j = 0; j < n->n_inputs; j++)
            if (n->inputs[j] == t)
                c++;
    }
    return c;
}
