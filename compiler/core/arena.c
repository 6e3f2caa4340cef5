/*
 * arena.c — bump allocator in chunks, with a byte cap and one OOM handler.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ARENA_ALIGN 64
#define ARENA_CHUNK ((size_t)1 << 20)
#define ARENA_DEFAULT_CAP ((size_t)8 << 30)

typedef struct chunk {
    struct chunk *next;
    size_t size; /* usable bytes from base */
    size_t used;
    char *base;  /* first byte aligned to ARENA_ALIGN after the header */
} chunk;

typedef struct blob {
    void *p;     /* NULL: an empty slot; BLOB_GONE: a freed one (the probe goes on) */
    size_t size; /* bytes mapped (whole pages) */
    int sealed;
} blob;

#define BLOB_GONE ((void *)&blob_gone)
static const char blob_gone;

struct arena {
    chunk *head;
    size_t cap;  /* most bytes the arena may hand out */
    size_t used; /* bytes handed out, alignment padding included, blobs included */
    blob *blobs; /* open addressing by address; n_blobs live + gone slots < cap_blobs / 2 */
    size_t cap_blobs, n_slots;
};

static void
default_oom(size_t size, size_t cap)
{
    fprintf(stderr, "lstmc: out of memory: %zu more bytes wanted, limit %zu bytes "
                    "(set LSTMC_MEMORY_LIMIT to change it)\n",
            size, cap);
    exit(1);
}

static arena_oom_fn oom_handler = default_oom;

void
arena_set_oom_handler(arena_oom_fn fn)
{
    oom_handler = fn ? fn : default_oom;
}

static void
oom(size_t size, size_t cap)
{
    oom_handler(size, cap);
    abort(); /* a handler must not return */
}

arena *
arena_new(size_t cap)
{
    arena *a = calloc(1, sizeof *a);
    if (!a)
        oom(sizeof *a, cap);
    if (cap == 0) {
        const char *env = getenv("LSTMC_MEMORY_LIMIT");
        cap = ARENA_DEFAULT_CAP;
        if (env && *env) {
            char *end;
            unsigned long long v = strtoull(env, &end, 10);
            if (*end == '\0' && v > 0)
                cap = (size_t)v;
        }
    }
    a->cap = cap;
    return a;
}

static size_t
page_size(void)
{
    static size_t ps;
    if (!ps) {
        long v = sysconf(_SC_PAGESIZE);
        ps = v > 0 ? (size_t)v : 4096;
    }
    return ps;
}

static size_t
blob_hash(const void *p, size_t cap)
{
    uintptr_t v = (uintptr_t)p / page_size();
    return (size_t)(v * 0x9E3779B97F4A7C15u) & (cap - 1);
}

/* The slot of the live blob at p, or NULL. */
static blob *
blob_find(const arena *a, const void *p)
{
    size_t i;
    if (!a->cap_blobs || !p)
        return NULL;
    for (i = blob_hash(p, a->cap_blobs); a->blobs[i].p; i = (i + 1) & (a->cap_blobs - 1))
        if (a->blobs[i].p == p)
            return &a->blobs[i];
    return NULL;
}

static void
blob_insert(arena *a, void *p, size_t size)
{
    size_t i;
    if ((a->n_slots + 1) * 2 > a->cap_blobs) { /* grow, dropping the gone slots */
        size_t ncap = a->cap_blobs ? a->cap_blobs * 2 : 64, k;
        blob *nb = calloc(ncap, sizeof *nb);
        if (!nb)
            oom(ncap * sizeof *nb, a->cap);
        a->n_slots = 0;
        for (k = 0; k < a->cap_blobs; k++) {
            if (!a->blobs[k].p || a->blobs[k].p == BLOB_GONE)
                continue;
            for (i = blob_hash(a->blobs[k].p, ncap); nb[i].p; i = (i + 1) & (ncap - 1))
                ;
            nb[i] = a->blobs[k];
            a->n_slots++;
        }
        free(a->blobs);
        a->blobs = nb;
        a->cap_blobs = ncap;
    }
    for (i = blob_hash(p, a->cap_blobs); a->blobs[i].p; i = (i + 1) & (a->cap_blobs - 1))
        ;
    a->blobs[i].p = p;
    a->blobs[i].size = size;
    a->blobs[i].sealed = 0;
    a->n_slots++;
}

void *
arena_blob(arena *a, size_t size)
{
    size_t ps = page_size(), need;
    void *p;
    if (size > SIZE_MAX / 2)
        oom(size, a->cap);
    need = (size + ps - 1) & ~(ps - 1);
    if (need == 0)
        need = ps;
    if (need > a->cap - a->used || a->used > a->cap)
        oom(size, a->cap);
    p = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        oom(size, a->cap);
    blob_insert(a, p, need);
    a->used += need;
    return p; /* anonymous pages are zeroed */
}

size_t
arena_blob_size(const arena *a, const void *p)
{
    const blob *b = blob_find(a, p);
    return b ? b->size : 0;
}

void
arena_blob_seal(arena *a, const void *p)
{
    blob *b = blob_find(a, p);
    if (b && !b->sealed) {
        mprotect(b->p, b->size, PROT_READ);
        b->sealed = 1;
    }
}

void
arena_blob_unseal(arena *a, const void *p)
{
    blob *b = blob_find(a, p);
    if (b && b->sealed) {
        mprotect(b->p, b->size, PROT_READ | PROT_WRITE);
        b->sealed = 0;
    }
}

int
arena_blob_sealed(const arena *a, const void *p)
{
    const blob *b = blob_find(a, p);
    return b && b->sealed;
}

void
arena_blob_free(arena *a, void *p)
{
    blob *b = blob_find(a, p);
    if (!b)
        return;
    munmap(b->p, b->size);
    a->used -= b->size;
    b->p = BLOB_GONE;
}

void
arena_reset(arena *a)
{
    chunk *c, *next;
    size_t k;
    if (!a)
        return;
    for (k = 0; k < a->cap_blobs; k++)
        if (a->blobs[k].p && a->blobs[k].p != BLOB_GONE)
            munmap(a->blobs[k].p, a->blobs[k].size);
    free(a->blobs);
    a->blobs = NULL;
    a->cap_blobs = a->n_slots = 0;
    for (c = a->head; c; c = next) {
        next = c->next;
        free(c);
    }
    a->head = NULL;
    a->used = 0;
}

void
arena_free(arena *a)
{
    arena_reset(a);
    free(a);
}

void *
arena_alloc(arena *a, size_t size)
{
    chunk *c = a->head;
    size_t need, off;
    if (size > SIZE_MAX / 2)
        oom(size, a->cap);
    need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (need == 0)
        need = ARENA_ALIGN;
    if (need > a->cap - a->used || a->used > a->cap)
        oom(size, a->cap);
    off = c ? (c->used + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1) : 0;
    if (!c || off + need > c->size) {
        size_t csize = need > ARENA_CHUNK ? need : ARENA_CHUNK;
        chunk *nc = malloc(sizeof *nc + ARENA_ALIGN + csize);
        if (!nc)
            oom(size, a->cap);
        nc->base = (char *)(((uintptr_t)(nc + 1) + ARENA_ALIGN - 1) &
                            ~(uintptr_t)(ARENA_ALIGN - 1));
        nc->size = csize;
        nc->used = 0;
        if (c && need > ARENA_CHUNK) {
            /* a big block gets its own chunk behind the current one */
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
        off = 0;
    }
    c->used = off + need;
    a->used += need;
    {
        void *p = c->base + off;
        memset(p, 0, need);
        return p;
    }
}

void *
arena_calloc(arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        oom(SIZE_MAX, a->cap);
    return arena_alloc(a, n * size);
}

char *
arena_strdup(arena *a, const char *s)
{
    size_t n;
    char *p;
    if (!s)
        return NULL;
    n = strlen(s);
    p = arena_alloc(a, n + 1);
    memcpy(p, s, n + 1);
    return p;
}

char *
arena_printf(arena *a, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *p;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    p = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void *
arena_grow(arena *a, void *old, size_t elem_size, size_t n, size_t *cap, size_t want)
{
    size_t ncap;
    void *p;
    if (want <= *cap)
        return old;
    ncap = *cap ? *cap * 2 : 8;
    while (ncap < want)
        ncap *= 2;
    p = arena_calloc(a, ncap, elem_size);
    if (n)
        memcpy(p, old, n * elem_size);
    *cap = ncap;
    return p;
}

size_t
arena_used(const arena *a)
{
    return a->used;
}
