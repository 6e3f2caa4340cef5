/*
 * test_ksearch.c — the pure parts of `lstmc profile --search` (compiler/tools/ksearch.c,
 * issue 23): the representative hidden size of each shape class, worked by hand from the
 * cache sizes; the state file's reader (a good file, a foreign machine's, bad lines); the
 * kernels object it writes, read back by the profile parser; and the options profile_main
 * refuses with exit code 2 before measuring anything.
 */
#include "ksearch.h"
#include "profile.h"
#include "target.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define KiB 1024LL
#define MiB (1024LL * 1024LL)

/* U = 16 H^2 bytes. l2: 16 H^2 <= l2 / 2; llc: <= llc / 2 (at most 1024) and > l2;
 * dram: >= 2 llc (at most 2048); multiples of 32 (64 for dram). */
static const struct hcase {
    long long l2, llc;
    long want[3];
} hcases[] = {
    /* 1 MiB L2: H^2 <= 32768, H <= 181 -> 160. 32 MiB L3: H <= 1024 -> 1024 (16 MiB > 1 MiB).
     * dram: 16 H^2 >= 64 MiB -> H >= 2048 */
    {1 * MiB, 32 * MiB, {160, 1024, 2048}},
    /* no L3 (llc = l2 = 256 KiB): H^2 <= 8192 -> 64; no llc; 16 H^2 >= 512 KiB -> H >= 181.02
     * -> 192 */
    {256 * KiB, 256 * KiB, {64, 0, 192}},
    /* 2 MiB L2: H^2 <= 65536 -> 256; 384 MiB L3: the cap, 1024; dram needs 16 H^2 >= 768 MiB,
     * H >= 7094 > 2048: none */
    {2 * MiB, 384 * MiB, {256, 1024, 0}},
    /* 4 MiB L3: 16 H^2 <= 2 MiB -> H <= 362 -> 352 (1982464 > 1 MiB); dram: 16 H^2 >= 8 MiB,
     * H >= 724.08 -> 768 */
    {1 * MiB, 4 * MiB, {160, 352, 768}},
    /* 1.5 MiB L3: llc / 2 gives 192 (589824 <= l2: not llc), so 16 H^2 <= 1.5 MiB: H <= 313
     * -> 288 (1327104 > 1 MiB); dram: 16 H^2 >= 3 MiB, H >= 443.4 -> 448 */
    {1 * MiB, 3 * MiB / 2, {160, 288, 448}},
    /* 16 KiB L2: H^2 <= 512, H <= 22 < 32: no l2 class */
    {16 * KiB, 16 * KiB, {0, 0, 64}},
};

Test(ksearch, class_hidden_by_hand)
{
    size_t i;
    int c;
    for (i = 0; i < sizeof hcases / sizeof hcases[0]; i++)
        for (c = 0; c < 3; c++)
            cr_expect_eq(ks_class_hidden(c, hcases[i].l2, hcases[i].llc), hcases[i].want[c],
                         "case %zu class %d: %ld, want %ld", i, c,
                         ks_class_hidden(c, hcases[i].l2, hcases[i].llc), hcases[i].want[c]);
}

static FILE *
text_file(const char *s)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    fputs(s, f);
    rewind(f);
    return f;
}

static ks_state st; /* too big for the stack */

static int
read_text(const char *text, const char *fp, char *why, size_t n)
{
    FILE *f = text_file(text);
    int rc;
    memset(&st, 0, sizeof st);
    rc = ks_state_read(f, fp, &st, why, n);
    fclose(f);
    return rc;
}

Test(ksearch, state_reads_its_own_lines)
{
    char why[256] = "", line[256];
    ks_rec r = {1, 3, {{256, 12, 0, 0, 6, 8, 16, 4, 6, 8, 0, 1, 0}}, 100.5, 99.25, 120.0};
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    fputs("lstmc-kernel-search 4\nmachine cpu=X;l2=1\n", f);
    ks_state_write_rec(f, &r);
    rewind(f);
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "llc 3 256 12 0 0 6 8 16 4 6 8 0 1 0 100.500 99.250 120.000\n");
    rewind(f);
    memset(&st, 0, sizeof st);
    cr_assert_eq(ks_state_read(f, "cpu=X;l2=1", &st, why, sizeof why), 1, "%s", why);
    fclose(f);
    cr_assert_eq(st.n, 1);
    cr_expect_eq(st.r[0].cls, 1);
    cr_expect_eq(st.r[0].step, 3);
    cr_expect_eq(memcmp(&st.r[0].p, &r.p, sizeof r.p), 0);
    cr_expect_float_eq(st.r[0].med, 100.5, 1e-9);
    cr_expect_float_eq(st.r[0].lo, 99.25, 1e-9);
}

/* The threads step's lines: class mt, the step is the hidden size, TH the threads. */
Test(ksearch, state_reads_the_threads_step)
{
    char why[256] = "";
    cr_assert_eq(read_text("lstmc-kernel-search 4\nmachine cpu=X\n"
                           "mt 64 0 8 8 1 4 4 8 0 0 0 0 0 0 56.0 55.8 57.1\n"
                           "mt 64 0 8 8 1 4 4 8 0 0 0 0 0 2 40.1 39.9 41.0\n",
                           "cpu=X", why, sizeof why),
                 1, "%s", why);
    cr_assert_eq(st.n, 2);
    cr_expect_eq(st.r[1].cls, KS_MT);
    cr_expect_eq(st.r[1].step, 64);
    cr_expect_eq(st.r[0].p.v[KS_THREADS], 0);
    cr_expect_eq(st.r[1].p.v[KS_THREADS], 2);
    cr_expect_float_eq(st.r[1].med, 40.1, 1e-9);
}

Test(ksearch, state_of_another_machine_is_ignored)
{
    char why[256] = "";
    cr_assert_eq(read_text("lstmc-kernel-search 4\nmachine cpu=Y;l2=1\n"
                           "l2 0 0 8 8 1 4 4 8 0 0 0 0 0 0 1.0 1.0 1.0\n",
                           "cpu=X;l2=1", why, sizeof why),
                 0);
    cr_expect_eq(st.n, 0);
    cr_expect(strstr(why, "another machine") != NULL, "%s", why);
}

static const struct bcase {
    const char *text, *want;
} bcases[] = {
    {"", "empty"},
    {"lstmc-kernel-search 1\n", "line 1"}, /* the format before rec.alternate */
    {"lstmc-kernel-search 2\n", "line 1"}, /* the format before rec.dot */
    {"lstmc-kernel-search 3\n", "line 1"}, /* the format before the int fields */
    {"lstmc-kernel-search 4\nmachin cpu=X\n", "line 2"},
    {"lstmc-kernel-search 4\nmachine cpu=X\nl3 0 0 8 8 1 4 4 8 0 0 0 0 0 0 1 1 1\n",
     "line 3"}, /* class */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 1 4 6 8 0 0 0 0 0 0 1 1 1\n",
     "line 3"}, /* rows 6 */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 384 8 8 1 4 4 8 0 0 0 0 0 0 1 1 1\n",
     "line 3"}, /* vb */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 17 8 1 4 4 8 0 0 0 0 0 0 1 1 1\n",
     "line 3"}, /* tile */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 2 4 4 8 0 0 0 0 0 0 1 1 1\n",
     "line 3"}, /* alternate */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 1 4 4 8 5 0 0 0 0 0 1 1 1\n",
     "line 3"}, /* dot 4 */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 1 4 4 8 0 0 0 0 0 0 1 2 3\n",
     "line 3"}, /* lo > med */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 1 4 4 8 0 0 0 0 0 0 1 1 1 x\n",
     "line 3"}, /* extra */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 1 4 4 8 0 0 0 0 0 1 1\n",
     "line 3"}, /* short */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 1 4 4 8 0 0 0 0 0 0 1 1 1\nl2 x\n",
     "line 4"},
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 1 4 4 8 0 9 16 1 1 0 1 1 1\n",
     "line 3"}, /* int tile 9 */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 1 4 4 8 0 8 12 1 1 0 1 1 1\n",
     "line 3"}, /* int rows 12 */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 1 4 4 8 0 0 16 1 1 0 1 1 1\n",
     "line 3"}, /* int fields without the int model */
    {"lstmc-kernel-search 4\nmachine cpu=X\nmt 64 0 8 8 1 4 4 8 0 0 0 0 0 1 1 1 1\n",
     "line 3"}, /* threads 1: the one-thread candidate is 0 */
    {"lstmc-kernel-search 4\nmachine cpu=X\nmt 64 0 8 8 1 4 4 8 0 0 0 0 0 17 1 1 1\n",
     "line 3"}, /* threads 17 */
    {"lstmc-kernel-search 4\nmachine cpu=X\nmx 64 0 8 8 1 4 4 8 0 0 0 0 0 2 1 1 1\n",
     "line 3"}, /* class */
    {"lstmc-kernel-search 4\nmachine cpu=X\nl2 0 0 8 8 1 4 4 8 0 8 16 1 2 0 1 1 1\n",
     "line 3"}, /* pipe 2 */
};

Test(ksearch, bad_state_lines_are_refused)
{
    size_t i;
    for (i = 0; i < sizeof bcases / sizeof bcases[0]; i++) {
        char why[256] = "";
        cr_expect_eq(read_text(bcases[i].text, "cpu=X", why, sizeof why), -1, "case %zu", i);
        cr_expect(strstr(why, bcases[i].want) != NULL, "case %zu: '%s', want '%s'", i, why,
                  bcases[i].want);
    }
}

/* The kernels object, inside a profile, read back by target.c: only the fields that differ. */
Test(ksearch, kernels_object_parses)
{
    static ks_result res;
    char path[64];
    const target *t;
    FILE *f;
    int c;
    memset(&res, 0, sizeof res);
    for (c = 0; c < 3; c++)
        res.chosen[c] = res.def[c] = ks_defaults;
    res.chosen[0].v[KS_VB] = res.chosen[1].v[KS_VB] = res.chosen[2].v[KS_VB] = 256;
    res.chosen[0].v[KS_REC_TILE] = 12;
    res.chosen[0].v[KS_PROJ_PF] = 0;
    res.chosen[2].v[KS_PROJ_ROWS] = 8;
    res.dot_default = 2;             /* a CPU with vdpbf16ps: */
    res.chosen[0].v[KS_REC_DOT] = 3; /* l2 measured dot 2, the default: not written */
    res.chosen[1].v[KS_REC_DOT] = 1; /* llc measured dot 0 */
    res.int_search = 1;              /* a CPU with VNNI: */
    res.int_searched[0] = res.int_searched[1] = 1;
    memcpy(res.int_chosen[0], ks_int_defaults, sizeof res.int_chosen[0]); /* not written */
    memcpy(res.int_chosen[1], ks_int_defaults, sizeof res.int_chosen[1]);
    res.int_chosen[1][0] = 6; /* llc: tile 6, pipe 0 */
    res.int_chosen[1][3] = 0;
    res.int_chosen[2][0] = 4; /* dram not searched: not written */
    snprintf(path, sizeof path, "/tmp/lstmc_ksearch_%d.json", (int)getpid());
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("{\n  \"name\": \"x\",\n", f);
    ks_write_kernels(f, &res);
    fputs("  \"passes\": \"split_gates,fold_constants,dce\"\n}\n", f);
    cr_assert_eq(fclose(f), 0);
    t = target_parse_file(path, NULL);
    cr_assert_not_null(t);
    cr_expect_eq(t->kernels.vector_bits, 256);
    cr_expect_eq(t->kernels.rec[TK_L2][TK_TILE], 12);
    cr_expect_eq(t->kernels.rec[TK_LLC][TK_TILE], 0); /* unset: the default */
    cr_expect_eq(t->kernels.rec[TK_L2][TK_PREFETCH], 0);
    cr_expect_eq(t->kernels.proj[TK_L2][TK_PREFETCH], 1); /* 0 (none) is stored as 0 + 1 */
    cr_expect_eq(t->kernels.proj[TK_DRAM][TK_ROWS], 8);
    cr_expect_eq(t->kernels.proj[TK_DRAM][TK_TILE], 0);
    cr_expect_eq(t->kernels.rec[TK_L2][TK_DOT], 0);  /* the default: unset */
    cr_expect_eq(t->kernels.rec[TK_LLC][TK_DOT], 1); /* dot 0, stored + 1 */
    cr_expect_eq(t->kernels.rec[TK_DRAM][TK_DOT], 0);
    cr_expect_eq(t->kernels.proj[TK_LLC][TK_DOT], 0); /* not searched */
    cr_expect_eq(t->kernels.ints[TK_LLC][TK_TILE], 6);
    cr_expect_eq(t->kernels.ints[TK_LLC][TK_PIPE], 1); /* pipe 0, stored + 1 */
    cr_expect_eq(t->kernels.ints[TK_LLC][TK_ROWS], 0); /* the default: unset */
    cr_expect_eq(t->kernels.ints[TK_L2][TK_TILE], 0);
    cr_expect_eq(t->kernels.ints[TK_DRAM][TK_TILE], 0);
    cr_expect_eq(t->kernels.mt_min_hidden, 0); /* not measured: not written */
    target_forget_files();
    /* the threads step chose 64: written, alone */
    res.chosen[0] = res.chosen[1] = res.chosen[2] = ks_defaults;
    memcpy(res.int_chosen[1], ks_int_defaults, sizeof res.int_chosen[1]);
    res.mt_min_hidden = 64;
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("{\n  \"name\": \"x\",\n", f);
    ks_write_kernels(f, &res);
    fputs("  \"passes\": \"dce\"\n}\n", f);
    cr_assert_eq(fclose(f), 0);
    t = target_parse_file(path, NULL);
    cr_assert_not_null(t);
    cr_expect_eq(t->kernels.mt_min_hidden, 64);
    cr_expect_eq(t->kernels.vector_bits, 0);
    target_forget_files();
    res.mt_min_hidden = TK_DEFAULT_MT_MIN_HIDDEN; /* the default: not written */
    /* every class at the defaults: no kernels object at all */
    res.chosen[0] = res.chosen[1] = res.chosen[2] = ks_defaults;
    memcpy(res.int_chosen[1], ks_int_defaults, sizeof res.int_chosen[1]);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    ks_write_kernels(f, &res);
    cr_expect_eq(ftell(f), 0);
    fclose(f);
    unlink(path);
}

/* Usage errors are exit code 2, found before anything is measured. */
static const char *const usage_cases[][8] = {
    {"profile", "--device=opencl", "--search", "-o", "x.json", NULL},
    {"profile", "--device=opencl:0", "--search", "--budget=10", "-o", "x.json", NULL},
    {"profile", "--device=cpu", "--search", "--budget=0", "-o", "x.json", NULL},
    {"profile", "--device=cpu", "--search", "--budget=abc", "-o", "x.json", NULL},
    {"profile", "--device=cpu", "--search", "--budget=-5", "-o", "x.json", NULL},
    {"profile", "--device=cpu", "--budget=10", "-o", "x.json", NULL},
    {"profile", "--device=cpu", "--resume", "-o", "x.json", NULL},
    {"profile", "--device=cpu", "--search", "--search-classes=l3", "-o", "x.json", NULL},
    {"profile", "--device=cpu", "--search", NULL},
};

Test(ksearch, bad_options_exit_2)
{
    size_t i;
    for (i = 0; i < sizeof usage_cases / sizeof usage_cases[0]; i++) {
        char *argv[8];
        int argc = 0;
        while (usage_cases[i][argc]) {
            argv[argc] = (char *)usage_cases[i][argc];
            argc++;
        }
        argv[argc] = NULL;
        cr_expect_eq(profile_main(argc, argv), 2, "case %zu", i);
    }
}
