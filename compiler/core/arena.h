/*
 * arena.h — bump allocator for the compiler (QBE's pool, Redis's one allocation path).
 *
 * Every compiler object (IR, strings, constant data) lives in an arena and is freed with
 * it, never singly. Allocation never returns NULL: past the arena's byte cap, or when the
 * system is out of memory, the OOM handler runs; the default one prints what was asked and
 * exits with status 1. The cap bounds what a hostile model can make us allocate.
 */
#ifndef LSTMC_ARENA_H
#define LSTMC_ARENA_H

#include <stddef.h>

typedef struct arena arena;

/* Called when an allocation of `size` bytes fails; must not return. */
typedef void (*arena_oom_fn)(size_t size, size_t cap);

/* A new arena allowed to hold at most cap bytes in all (0: the default cap, 8 GiB, or
 * the LSTMC_MEMORY_LIMIT environment variable in bytes). */
arena *arena_new(size_t cap);

/* Free every chunk and the arena itself. NULL is allowed. */
void arena_free(arena *a);

/* Free every chunk but keep the arena usable (a pass's scratch). */
void arena_reset(arena *a);

/* size zeroed bytes, aligned to 64. size 0 returns a valid unique pointer. */
void *arena_alloc(arena *a, size_t size);

/* n * size zeroed bytes; an overflowing product runs the OOM handler. */
void *arena_calloc(arena *a, size_t n, size_t size);

/* Copy of s (NULL gives NULL). */
char *arena_strdup(arena *a, const char *s);

/* printf into the arena. */
char *arena_printf(arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Grow an array of n elements of elem_size to at least want elements, copying the old
 * ones (the old block stays in the arena). Returns the new block; *cap is updated. */
void *arena_grow(arena *a, void *old, size_t elem_size, size_t n, size_t *cap, size_t want);

/*
 * Blobs: big blocks (weights) mapped on their own, so that one can be freed before the arena
 * and made read-only. Zeroed, page-aligned, counted against the cap like chunks, unmapped
 * with the arena (arena_reset, arena_free) or singly (arena_blob_free). A sealed blob is
 * read-only: a write to bytes that several graphs share faults instead of changing them
 * behind the others' backs (compiler/core/ir_data.c).
 */
void *arena_blob(arena *a, size_t size);

/* Bytes of the blob that starts at p; 0 when p is not the start of a live blob of a. */
size_t arena_blob_size(const arena *a, const void *p);

/* Make the blob at p read-only (idempotent); 1 if it is sealed. */
void arena_blob_seal(arena *a, const void *p);
int arena_blob_sealed(const arena *a, const void *p);

/* Make the blob at p writable again (its owner vouches for every reader). */
void arena_blob_unseal(arena *a, const void *p);

/* Unmap the blob at p now (p must be a live blob of a). */
void arena_blob_free(arena *a, void *p);

/* Bytes handed out so far. */
size_t arena_used(const arena *a);

/* Replace the OOM handler for every arena (tests); NULL restores the default. */
void arena_set_oom_handler(arena_oom_fn fn);

#endif /* LSTMC_ARENA_H */
