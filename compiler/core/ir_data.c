/*
 * ir_data.c — where constant bytes live: small ones in the graph's arena, big ones (the
 * weights) in blobs that a graph and its clones share, sealed read-only once shared, and
 * freed by a sweep when no live graph reads them (ir.h, "Constant bytes").
 *
 * The store is one per import: ir_graph_new makes one, ir_clone joins the clone to its
 * source's. It knows its graphs (the roots of the sweep), its blobs, and the derived bytes
 * made from them (fold's packing, the LLVM backend's panels), so that the whole-sequence
 * and the step program hold one copy of a weight in each layout instead of one each.
 */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"

typedef struct derived {
    const void *src;
    uint64_t key;
    void *res;
} derived;

struct ir_store {
    ir_graph **graphs;
    size_t n_graphs, cap_graphs;
    void **blobs; /* start of each live blob of the store */
    size_t n_blobs, cap_blobs;
    derived *der;
    size_t n_der, cap_der;
};

static size_t
blob_min(void)
{
    static size_t min;
    if (!min) {
        const char *env = getenv("LSTMC_BLOB_MIN");
        char *end;
        unsigned long long v = env && *env ? strtoull(env, &end, 10) : 0;
        min = env && *env && *end == '\0' && v > 0 ? (size_t)v : IR_DATA_BLOB_MIN;
    }
    return min;
}

size_t
ir_data_store_size(void)
{
    return sizeof(ir_store);
}

static ir_store *
store_of(ir_graph *g)
{
    return g->store;
}

void
ir_data_join(ir_graph *g, ir_store *s)
{
    g->store = s;
    s->graphs = arena_grow(g->a, s->graphs, sizeof *s->graphs, s->n_graphs, &s->cap_graphs,
                           s->n_graphs + 1);
    s->graphs[s->n_graphs++] = g;
}

static void
add_blob(ir_graph *g, void *p)
{
    ir_store *s = store_of(g);
    s->blobs = arena_grow(g->a, s->blobs, sizeof *s->blobs, s->n_blobs, &s->cap_blobs,
                          s->n_blobs + 1);
    s->blobs[s->n_blobs++] = p;
}

void *
ir_data_alloc(ir_graph *g, size_t bytes)
{
    void *p;
    if (bytes < blob_min())
        return arena_alloc(g->a, bytes);
    p = arena_blob(g->a, bytes);
    add_blob(g, p);
    return p;
}

void
ir_data_adopt(ir_graph *g, void *p)
{
    add_blob(g, p);
}

/* The start of the blob of g's store that holds p, or NULL. */
static void *
blob_holding(const ir_graph *g, const void *p)
{
    const ir_store *s = g->store;
    size_t i;
    if (!s || !p)
        return NULL;
    for (i = 0; i < s->n_blobs; i++) {
        const char *b = s->blobs[i];
        if ((const char *)p >= b && (const char *)p < b + arena_blob_size(g->a, b))
            return s->blobs[i];
    }
    return NULL;
}

int
ir_data_is_blob(const ir_graph *g, const void *p)
{
    return blob_holding(g, p) != NULL;
}

int
ir_data_share(const ir_graph *g, const void *p)
{
    void *b = blob_holding(g, p);
    if (b)
        arena_blob_seal(g->a, b);
    return b != NULL;
}

static size_t
tensor_bytes(const ir_tensor *t)
{
    int64_t n = ir_shape_numel(&t->shape);
    return (size_t)(n > 0 ? n : 0) * ir_dtype_size(t->dtype);
}

void *
ir_data_mut(ir_graph *g, ir_tensor *t)
{
    void *b = blob_holding(g, t->data);
    if (b && arena_blob_sealed(g->a, b)) {
        size_t n = tensor_bytes(t);
        void *p = ir_data_alloc(g, n);
        memcpy(p, t->data, n);
        t->data = p;
    }
    return t->data;
}

int
ir_data_own(ir_graph *g, const void *p)
{
    ir_store *s = g->store;
    void *b = blob_holding(g, p);
    size_t i, k;
    if (!b)
        return 0;
    for (i = k = 0; i < s->n_der; i++)
        if (blob_holding(g, s->der[i].src) != b && blob_holding(g, s->der[i].res) != b)
            s->der[k++] = s->der[i];
    s->n_der = k;
    arena_blob_unseal(g->a, b);
    return 1;
}

ir_tensor *
ir_const_wrap(ir_graph *g, const char *hint, ir_dtype dt, const ir_shape *shape, void *data)
{
    ir_tensor *t = ir_tensor_tmp(g, hint, dt, shape);
    t->data = data;
    return t;
}

uint64_t
ir_data_key(const char *what, const int64_t *v, int n)
{
    uint64_t h = 1469598103934665603u;
    int i, k;
    for (; *what; what++)
        h = (h ^ (unsigned char)*what) * 1099511628211u;
    for (i = 0; i < n; i++)
        for (k = 0; k < 8; k++)
            h = (h ^ (uint64_t)(((uint64_t)v[i] >> (8 * k)) & 0xff)) * 1099511628211u;
    return h;
}

void *
ir_data_derived(const ir_graph *g, const void *src, uint64_t key)
{
    const ir_store *s = g->store;
    size_t i;
    for (i = 0; s && i < s->n_der; i++)
        if (s->der[i].src == src && s->der[i].key == key)
            return s->der[i].res;
    return NULL;
}

void
ir_data_derive(ir_graph *g, const void *src, uint64_t key, void *result)
{
    ir_store *s = store_of(g);
    void *b = blob_holding(g, result);
    if (!b || !blob_holding(g, src))
        return; /* only blobs are shared; small results are cheap to make again */
    arena_blob_seal(g->a, b);
    s->der = arena_grow(g->a, s->der, sizeof *s->der, s->n_der, &s->cap_der, s->n_der + 1);
    s->der[s->n_der].src = src;
    s->der[s->n_der].key = key;
    s->der[s->n_der].res = result;
    s->n_der++;
}

void
ir_graph_retire(ir_graph *g)
{
    g->retired = 1;
}

/* --- the sweep --------------------------------------------------------------------------- */

static int
cmp_ptr(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    return x < y ? -1 : x > y;
}

typedef struct sweep {
    const ir_graph *g;
    void **blobs; /* sorted by address */
    size_t n;
    unsigned char *live;
} sweep;

/* The index of the blob holding p, or -1. */
static long
find_sorted(const sweep *w, const void *p)
{
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const char *b = w->blobs[mid];
        if ((const char *)p < b)
            hi = mid;
        else if ((const char *)p >= b + arena_blob_size(w->g->a, b))
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}

static void
mark(sweep *w, const void *p)
{
    long i = p ? find_sorted(w, p) : -1;
    if (i >= 0)
        w->live[i] = 1;
}

static void
mark_tensor(sweep *w, const ir_tensor *t)
{
    if (t)
        mark(w, t->data);
}

static void
mark_graph(sweep *w, const ir_graph *g)
{
    int i, j;
    for (i = 0; i < g->n_inputs; i++)
        mark_tensor(w, g->inputs[i]);
    for (i = 0; i < g->n_outputs; i++)
        mark_tensor(w, g->outputs[i]);
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (j = 0; j < n->n_inputs; j++)
            mark_tensor(w, n->inputs[j]);
        for (j = 0; j < n->n_outputs; j++)
            mark_tensor(w, n->outputs[j]);
        for (j = 0; j < n->n_attrs; j++)
            if (n->attrs[j].kind == IR_ATTR_TENSOR)
                mark_tensor(w, n->attrs[j].t);
    }
}

static void
clear_freed(sweep *w, ir_tensor *t)
{
    long i;
    if (t && t->data && (i = find_sorted(w, t->data)) >= 0 && !w->live[i])
        t->data = NULL;
}

size_t
ir_data_sweep(ir_graph *g, const void *const *keep, size_t n_keep)
{
    ir_store *s = g->store;
    sweep w;
    size_t i, k, freed = 0;
    if (!s || !s->n_blobs)
        return 0;
    w.g = g;
    w.n = s->n_blobs;
    w.blobs = s->blobs;
    qsort(w.blobs, w.n, sizeof *w.blobs, cmp_ptr);
    w.live = calloc(w.n, 1);
    if (!w.live)
        return 0; /* freeing is an optimisation */
    for (i = 0; i < s->n_graphs; i++)
        if (!s->graphs[i]->retired)
            mark_graph(&w, s->graphs[i]);
    for (i = 0; i < n_keep; i++)
        mark(&w, keep[i]);
    for (i = 0; i < s->n_graphs; i++) { /* no pointer into a freed blob stays */
        ir_graph *h = s->graphs[i];
        int j, a;
        for (j = 0; j < h->n_tensors; j++)
            clear_freed(&w, h->tensors[j]);
        for (j = 0; j < h->n_nodes; j++)
            for (a = 0; a < h->nodes[j]->n_attrs; a++)
                if (h->nodes[j]->attrs[a].kind == IR_ATTR_TENSOR)
                    clear_freed(&w, h->nodes[j]->attrs[a].t);
    }
    for (i = k = 0; i < s->n_der; i++) { /* a freed address may come back: forget it */
        long a = find_sorted(&w, s->der[i].src), b = find_sorted(&w, s->der[i].res);
        if ((a >= 0 && !w.live[a]) || (b >= 0 && !w.live[b]))
            continue;
        s->der[k++] = s->der[i];
    }
    s->n_der = k;
    for (i = k = 0; i < w.n; i++) {
        if (w.live[i]) {
            s->blobs[k++] = w.blobs[i];
            continue;
        }
        freed += arena_blob_size(g->a, w.blobs[i]);
        arena_blob_free(g->a, w.blobs[i]);
    }
    s->n_blobs = k;
    free(w.live);
    return freed;
}
