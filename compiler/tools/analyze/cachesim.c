/*
 * cachesim.c — the LRU last-level cache model of Arm'19 §V (contract in cachesim.h).
 *
 * Data structure: one pool of nodes, one per line the cache can hold. A node holds a line
 * address (addr / line) and its dirty bit, and sits in two lists: its set's LRU list
 * (doubly linked, head = most recently used) and a bucket chain of the hash map from line
 * address to node. A hit moves the node to the head of its set's list; a miss takes a
 * fresh node from the pool or, when the set is full, re-uses the set's tail (the least
 * recently used line), after writing it back if it is dirty. Every step is O(1) (the hash
 * chains are short: the map has at least twice as many buckets as the cache has lines).
 */
#include "cachesim.h"

#include "arena.h"
#include "diag.h"

#include <string.h>

#define NIL (-1)

typedef struct cs_node {
    uint64_t line; /* addr / line size */
    int32_t prev;  /* LRU list of the set: toward the head (more recent) */
    int32_t next;  /* toward the tail (less recent) */
    int32_t hnext; /* next node in the same hash bucket */
    int32_t dirty;
} cs_node;

typedef struct cs_set {
    int32_t head, tail; /* most / least recently used node, NIL when empty */
    int32_t count;      /* lines held */
} cs_set;

struct cachesim {
    int32_t line;       /* bytes */
    int32_t line_shift; /* log2(line) */
    int32_t ways;       /* lines per set */
    int64_t n_sets;
    cs_set *sets;    /* [n_sets] */
    cs_node *nodes;  /* [n_sets * ways] */
    int32_t n_used;  /* nodes handed out so far */
    int32_t *bucket; /* [hmask + 1] first node of each chain, NIL when empty */
    int32_t hshift;  /* 64 - log2(buckets) */
    int32_t last;    /* node of the last line touched (it is its set's head), or NIL */
    cachesim_stats st;
};

static uint64_t
hash_line(const cachesim *c, uint64_t line)
{
    return (line * UINT64_C(0x9E3779B97F4A7C15)) >> c->hshift;
}

cachesim *
cachesim_new(arena *a, const cachesim_config *cfg, diag *d)
{
    cachesim *c;
    int64_t line = cfg->line ? cfg->line : 64, lines, buckets;
    int32_t shift = 0, bits = 0;

    if (line <= 0 || (line & (line - 1)) != 0) {
        diag_error(d, "cache line of %lld bytes: it must be a power of two", (long long)line);
        return NULL;
    }
    if (cfg->assoc < 0 || cfg->capacity <= 0 || cfg->capacity % line != 0) {
        diag_error(d, "cache of %lld bytes: it must be a positive multiple of the %lld-byte line",
                   (long long)cfg->capacity, (long long)line);
        return NULL;
    }
    lines = cfg->capacity / line;
    if (lines > INT32_MAX / 4) {
        diag_error(d, "cache of %lld bytes: more lines than the model can hold",
                   (long long)cfg->capacity);
        return NULL;
    }
    if (cfg->assoc > 0 && lines % cfg->assoc != 0) {
        diag_error(d, "cache of %lld bytes: not a whole number of %d-way sets of %lld-byte lines",
                   (long long)cfg->capacity, cfg->assoc, (long long)line);
        return NULL;
    }
    c = arena_alloc(a, sizeof *c);
    while (((int64_t)1 << shift) < line)
        shift++;
    c->line = (int32_t)line;
    c->line_shift = shift;
    c->ways = cfg->assoc > 0 ? cfg->assoc : (int32_t)lines;
    c->n_sets = lines / c->ways;
    c->sets = arena_calloc(a, (size_t)c->n_sets, sizeof *c->sets);
    memset(c->sets, 0xff, (size_t)c->n_sets * sizeof *c->sets); /* head = tail = NIL */
    for (int64_t s = 0; s < c->n_sets; s++)
        c->sets[s].count = 0;
    c->nodes = arena_calloc(a, (size_t)lines, sizeof *c->nodes);
    for (buckets = 16, bits = 4; buckets < 2 * lines; buckets *= 2)
        bits++;
    c->bucket = arena_calloc(a, (size_t)buckets, sizeof *c->bucket);
    memset(c->bucket, 0xff, (size_t)buckets * sizeof *c->bucket); /* NIL */
    c->hshift = 64 - bits;
    c->last = NIL;
    return c;
}

/* Unlink node k from its set's LRU list. */
static void
lru_unlink(cachesim *c, cs_set *s, int32_t k)
{
    cs_node *n = &c->nodes[k];
    if (n->prev != NIL)
        c->nodes[n->prev].next = n->next;
    else
        s->head = n->next;
    if (n->next != NIL)
        c->nodes[n->next].prev = n->prev;
    else
        s->tail = n->prev;
}

/* Put node k at the head (most recently used end) of set s. */
static void
lru_push_head(cachesim *c, cs_set *s, int32_t k)
{
    cs_node *n = &c->nodes[k];
    n->prev = NIL;
    n->next = s->head;
    if (s->head != NIL)
        c->nodes[s->head].prev = k;
    else
        s->tail = k;
    s->head = k;
}

/* Remove node k (holding its line) from its hash chain. */
static void
hash_remove(cachesim *c, int32_t k)
{
    int32_t *p = &c->bucket[hash_line(c, c->nodes[k].line)];
    while (*p != k)
        p = &c->nodes[*p].hnext;
    *p = c->nodes[k].hnext;
}

/* Touch one line; write marks it dirty. */
static void
touch(cachesim *c, uint64_t line, int write)
{
    int32_t *b, k;
    cs_set *s;

    if (write)
        c->st.writes++;
    else
        c->st.reads++;
    /* The line touched last is already its set's most recently used: nothing moves. */
    if (c->last != NIL && c->nodes[c->last].line == line) {
        c->nodes[c->last].dirty |= write;
        return;
    }
    s = &c->sets[c->n_sets == 1 ? 0 : (int64_t)(line % (uint64_t)c->n_sets)];
    b = &c->bucket[hash_line(c, line)];
    for (k = *b; k != NIL; k = c->nodes[k].hnext)
        if (c->nodes[k].line == line)
            break;
    if (k != NIL) { /* hit */
        if (s->head != k) {
            lru_unlink(c, s, k);
            lru_push_head(c, s, k);
        }
        c->nodes[k].dirty |= write;
        c->last = k;
        return;
    }
    if (write)
        c->st.write_misses++;
    else
        c->st.read_misses++;
    if (s->count < c->ways) {
        k = c->n_used++;
        s->count++;
    } else { /* evict the least recently used line of the set */
        k = s->tail;
        if (c->nodes[k].dirty)
            c->st.writebacks++;
        lru_unlink(c, s, k);
        hash_remove(c, k);
    }
    c->nodes[k].line = line;
    c->nodes[k].dirty = write;
    c->nodes[k].hnext = *b;
    *b = k;
    lru_push_head(c, s, k);
    c->last = k;
}

static void
access_range(cachesim *c, uint64_t addr, uint64_t bytes, int write)
{
    uint64_t l, first, last;
    if (bytes == 0)
        return;
    first = addr >> c->line_shift;
    last = (addr + bytes - 1) >> c->line_shift;
    for (l = first; l <= last; l++)
        touch(c, l, write);
}

void
cachesim_read(cachesim *c, uint64_t addr, uint64_t bytes)
{
    access_range(c, addr, bytes, 0);
}

void
cachesim_write(cachesim *c, uint64_t addr, uint64_t bytes)
{
    access_range(c, addr, bytes, 1);
}

void
cachesim_flush(cachesim *c)
{
    int32_t k;
    for (k = 0; k < c->n_used; k++)
        if (c->nodes[k].dirty) {
            c->nodes[k].dirty = 0;
            c->st.writebacks++;
        }
}

cachesim_stats
cachesim_get_stats(const cachesim *c)
{
    return c->st;
}

void
cachesim_reset_stats(cachesim *c)
{
    memset(&c->st, 0, sizeof c->st);
}

int32_t
cachesim_line(const cachesim *c)
{
    return c->line;
}

int64_t
cachesim_read_bytes(const cachesim *c, const cachesim_stats *s)
{
    return (s->read_misses + s->write_misses) * c->line;
}

int64_t
cachesim_write_bytes(const cachesim *c, const cachesim_stats *s)
{
    return s->writebacks * c->line;
}
