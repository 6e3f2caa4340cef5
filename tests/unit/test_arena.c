/*
 * test_arena.c — the compiler's bump allocator: zeroed, aligned, growing, capped.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

Test(arena, zeroed_and_aligned)
{
    arena *a = arena_new(0);
    int i;
    for (i = 1; i < 100; i++) {
        unsigned char *p = arena_alloc(a, (size_t)i * 37);
        size_t k;
        cr_assert_eq((uintptr_t)p % 64, 0);
        for (k = 0; k < (size_t)i * 37; k++)
            cr_assert_eq(p[k], 0);
        memset(p, 0xab, (size_t)i * 37);
    }
    arena_free(a);
}

Test(arena, big_blocks_and_strings)
{
    arena *a = arena_new(0);
    char *big = arena_alloc(a, 3u << 20);
    char *s = arena_strdup(a, "lstm_1");
    char *f = arena_printf(a, "%s_%d", "node", 7);
    big[(3u << 20) - 1] = 1;
    cr_assert_str_eq(s, "lstm_1");
    cr_assert_str_eq(f, "node_7");
    cr_assert_geq(arena_used(a), 3u << 20);
    arena_reset(a);
    cr_assert_eq(arena_used(a), 0);
    arena_free(a);
}

Test(arena, grow_keeps_elements)
{
    arena *a = arena_new(0);
    size_t cap = 0;
    int *v = NULL, i;
    for (i = 0; i < 1000; i++) {
        v = arena_grow(a, v, sizeof *v, (size_t)i, &cap, (size_t)i + 1);
        v[i] = i * 3;
    }
    for (i = 0; i < 1000; i++)
        cr_assert_eq(v[i], i * 3);
    cr_assert_geq(cap, 1000);
    arena_free(a);
}

static void
oom_exit(size_t size, size_t cap)
{
    (void)size;
    (void)cap;
    exit(42);
}

/* A capped arena refuses what a hostile model would make us allocate. */
Test(arena, cap_runs_oom_handler, .exit_code = 42)
{
    arena *a = arena_new(1 << 20);
    arena_set_oom_handler(oom_exit);
    arena_alloc(a, 512 << 10);
    arena_alloc(a, 600 << 10); /* over the 1 MiB cap */
    cr_assert_fail("allocation past the cap returned");
}

Test(arena, overflowing_calloc_runs_oom_handler, .exit_code = 42)
{
    arena *a = arena_new(0);
    arena_set_oom_handler(oom_exit);
    arena_calloc(a, SIZE_MAX / 2, 4);
    cr_assert_fail("overflowing calloc returned");
}

Test(arena, default_handler_exits_1, .exit_code = 1)
{
    arena *a = arena_new(4096);
    arena_alloc(a, 8192);
}
