/*
 * test_cachesim.c — the LRU cache model (Arm'19 §V) on hand-worked traces: hits, LRU
 * eviction order, write-back of dirty lines, set-associative conflicts, byte ranges and the
 * cyclic-stream behaviour the paper's 800 MB example rests on.
 */
#include "arena.h"
#include "cachesim.h"
#include "diag.h"

#include <criterion/criterion.h>

static arena *a;
static diag *d;

static void
setup(void)
{
    a = arena_new(0);
    d = diag_new(a, "cache", NULL);
}

static void
teardown(void)
{
    arena_free(a);
}

TestSuite(cachesim, .init = setup, .fini = teardown);

static cachesim *
mk(int64_t lines, int32_t assoc)
{
    cachesim_config c = {lines * 64, assoc, 64};
    cachesim *cs = cachesim_new(a, &c, d);
    cr_assert_not_null(cs);
    return cs;
}

static void
rl(cachesim *c, uint64_t line)
{
    cachesim_read(c, line * 64, 4);
}

/* 4 lines, fully associative. Reads 0 1 2 3 (4 misses; LRU order 3 2 1 0), 0 (hit: 0 3 2 1),
 * 4 (miss, evicts 1: 4 0 3 2), 1 (miss, evicts 2: 1 4 0 3), 0 (hit), 3 (hit: 3 0 1 4),
 * 2 (miss, evicts 4): 11 reads, 7 misses, no write-backs. */
Test(cachesim, lru_order)
{
    cachesim *c = mk(4, 0);
    static const uint64_t trace[] = {0, 1, 2, 3, 0, 4, 1, 0, 3, 2};
    cachesim_stats s;
    size_t i;
    for (i = 0; i < sizeof trace / sizeof trace[0]; i++)
        rl(c, trace[i]);
    s = cachesim_get_stats(c);
    cr_assert_eq(s.reads, 10);
    cr_assert_eq(s.read_misses, 7);
    cr_assert_eq(s.write_misses, 0);
    cr_assert_eq(s.writebacks, 0);
    /* 4 0 3 2 ... now the cache holds 2 3 0 1; 1 and 0 hit, 4 misses */
    rl(c, 1);
    rl(c, 0);
    cr_assert_eq(cachesim_get_stats(c).read_misses, 7);
    rl(c, 4);
    cr_assert_eq(cachesim_get_stats(c).read_misses, 8);
}

/* W0 (write miss, dirty) R1 R2 R3 R4 (evicts dirty 0: 1 write-back). Flush: 1..4 are clean.
 * W2 (hit, dirty), flush: 1 more; a second flush finds nothing. */
Test(cachesim, write_back)
{
    cachesim *c = mk(4, 0);
    cachesim_stats s;
    cachesim_write(c, 0, 64);
    rl(c, 1);
    rl(c, 2);
    rl(c, 3);
    rl(c, 4);
    s = cachesim_get_stats(c);
    cr_assert_eq(s.write_misses, 1);
    cr_assert_eq(s.read_misses, 4);
    cr_assert_eq(s.writebacks, 1);
    cachesim_flush(c);
    cr_assert_eq(cachesim_get_stats(c).writebacks, 1);
    cachesim_write(c, 2 * 64 + 8, 4);
    cachesim_flush(c);
    cachesim_flush(c);
    s = cachesim_get_stats(c);
    cr_assert_eq(s.writebacks, 2);
    cr_assert_eq(s.write_misses, 1);
    cr_assert_eq(cachesim_read_bytes(c, &s), 5 * 64);
    cr_assert_eq(cachesim_write_bytes(c, &s), 2 * 64);
}

/* 4 lines, 2-way: 2 sets; lines 0, 2, 4 share set 0. R0 R2 R4 (3 misses; 4 evicts 0),
 * R0 misses again (evicts 2) although a fully associative cache of 4 lines would hit;
 * line 1 (set 1) is not disturbed. */
Test(cachesim, set_conflict)
{
    cachesim *c = mk(4, 2), *f = mk(4, 0);
    static const uint64_t trace[] = {1, 0, 2, 4, 0, 1};
    size_t i;
    for (i = 0; i < sizeof trace / sizeof trace[0]; i++) {
        rl(c, trace[i]);
        rl(f, trace[i]);
    }
    cr_assert_eq(cachesim_get_stats(c).read_misses, 5);
    cr_assert_eq(cachesim_get_stats(f).read_misses, 4);
}

/* A byte range touches every line it overlaps, once. */
Test(cachesim, ranges)
{
    cachesim *c = mk(64, 0);
    cachesim_read(c, 60, 8); /* lines 0 and 1 */
    cr_assert_eq(cachesim_get_stats(c).reads, 2);
    cachesim_read(c, 0, 64); /* line 0 */
    cr_assert_eq(cachesim_get_stats(c).reads, 3);
    cachesim_read(c, 64, 0); /* nothing */
    cr_assert_eq(cachesim_get_stats(c).reads, 3);
    cachesim_read(c, 128, 64 * 10); /* lines 2..11 */
    cr_assert_eq(cachesim_get_stats(c).reads, 13);
    cr_assert_eq(cachesim_get_stats(c).read_misses, 12);
}

/* The paper's premise: an LRU cache of C lines streaming a cycle of C + 1 lines misses on
 * every access; a cycle of C lines misses only the first time. */
Test(cachesim, cyclic_stream)
{
    cachesim *c = mk(256, 0), *s = mk(256, 16);
    int rep;
    uint64_t l;
    for (rep = 0; rep < 10; rep++)
        for (l = 0; l < 257; l++)
            rl(c, l);
    cr_assert_eq(cachesim_get_stats(c).read_misses, 2570);
    for (rep = 0; rep < 10; rep++)
        for (l = 0; l < 256; l++)
            rl(s, l);
    cr_assert_eq(cachesim_get_stats(s).read_misses, 256);
}

/* reset_stats keeps the contents: a warm re-read hits. */
Test(cachesim, warm_after_reset)
{
    cachesim *c = mk(8, 0);
    cachesim_read(c, 0, 8 * 64);
    cachesim_reset_stats(c);
    cachesim_read(c, 0, 8 * 64);
    cr_assert_eq(cachesim_get_stats(c).reads, 8);
    cr_assert_eq(cachesim_get_stats(c).read_misses, 0);
}

Test(cachesim, bad_config)
{
    cachesim_config odd_line = {4096, 0, 48}, odd_size = {100, 0, 64}, odd_ways = {64 * 6, 4, 64};
    cr_assert_null(cachesim_new(a, &odd_line, d));
    cr_assert_null(cachesim_new(a, &odd_size, d));
    cr_assert_null(cachesim_new(a, &odd_ways, d));
    cr_assert(strstr(diag_text(d), "power of two") != NULL);
}
