/*
 * arena.c — bump allocator in chunks, with a byte cap and one OOM handler.
 */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 64
#define ARENA_CHUNK ((size_t)1 << 20)
#define ARENA_DEFAULT_CAP ((size_t)8 << 30)

typedef struct chunk {
    struct chunk *next;
    size_t size; /* usable bytes from base */
    size_t used;
    char *base;  /* first byte aligned to ARENA_ALIGN after the header */
} chunk;

struct arena {
    chunk *head;
    size_t cap;  /* most bytes the arena may hand out */
    size_t used; /* bytes handed out, alignment padding included */
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

void
arena_reset(arena *a)
{
    chunk *c, *next;
    if (!a)
        return;
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
