/*
 * test_analyze.c — the traffic model against the Arm paper's own example (Arm'19 §IV):
 * I = H = 512, T = 100, one LSTM layer, batch 1. G = [W | U] is 8 MB (4 + 4 MB) and does not
 * fit a 4 MiB LRU cache, so schedule A reads G every step, 100 * 8 MB = 800 MB, and schedule
 * A+ reads G1 = W once and G2 = U every step, 4 + 100 * 4 = 404 MB ("MB" = 2^20 bytes: one
 * 512 x 512 float matrix). Our kernels also move X (200 KB), Y (200 KB), the biases and, in
 * A+, P [T, 4H] (800 KB written, then read), so the totals sit a little above: within 1 %.
 * The model file comes from bench/mkmodel.c, included here (llama2.c's test.c idiom).
 */
#define MKMODEL_NO_MAIN
#include "../../bench/mkmodel.c"
#include "analyze.h"
#include "arena.h"
#include "cliopt.h"
#include "diag.h"
#include "driver.h"
#include "kprog.h"
#include "memplan.h"

#include <criterion/criterion.h>
#include <unistd.h>

#define MiB (1024.0 * 1024.0)

static arena *a;
static diag *d;
static char path[64];

static void
setup(void)
{
    mkmodel_config c = {512, 512, 1, 100, 1, 7};
    char err[256];
    int fd;
    a = arena_new(0);
    d = diag_new(a, "paper.onnx", NULL);
    snprintf(path, sizeof path, "/tmp/lstmc_analyze_XXXXXX");
    fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(mkmodel_write(&c, path, err, sizeof err), 0, "%s", err);
}

static void
teardown(void)
{
    unlink(path);
    arena_free(a);
}

TestSuite(analyze, .init = setup, .fini = teardown);

static analyze_report
analyze_schedule(int split, int64_t llc)
{
    driver_options o;
    ir_graph *g;
    kprog kp;
    memplan mp;
    analyze_options ao = {llc, 0, 64, 1};
    analyze_report r;
    memset(&o, 0, sizeof o);
    o.model = path;
    o.target = "host";
    if (!split)
        o.disable[o.n_disable++] = "split_gates";
    cr_assert_eq(driver_lower(a, &o, &g, &kp, &mp, d), 0, "%s", diag_text(d));
    cr_assert_eq(analyze_kprog(a, g, &kp, &mp, &ao, &r, d), 0, "%s", diag_text(d));
    cr_assert_eq(r.n_layers, 1);
    return r;
}

Test(analyze, paper_800mb_schedule_a, .timeout = 120)
{
    analyze_report r = analyze_schedule(0, 4 << 20);
    double mb = (double)(r.read_bytes + r.write_bytes) / MiB;
    cr_assert_eq(r.layers[0].split, 0);
    cr_assert(mb >= 800.0 && mb <= 800.0 * 1.02, "schedule A moves %.1f MiB, want ~800", mb);
    /* the working set is G (8 MiB) plus small vectors: DRE about 800 / 8.4 */
    cr_assert(r.working_set >= 8 << 20 && r.working_set < 9 << 20);
    cr_assert_eq(r.layers[0].flops, 100LL * (2 * 4 * 512 * (512 + 512) + 13 * 512));
}

Test(analyze, paper_404mb_schedule_a_plus, .timeout = 120)
{
    analyze_report r = analyze_schedule(1, 4 << 20);
    double mb = (double)(r.read_bytes + r.write_bytes) / MiB;
    cr_assert_eq(r.layers[0].split, 1, "split_gates did not split the layer");
    cr_assert(mb >= 404.0 && mb <= 404.0 * 1.02, "schedule A+ moves %.1f MiB, want ~404", mb);
}

/* A cache that holds G: both schedules fill every byte of their working set once (every
 * buffer is read or written-allocated once), and write back only what they wrote. */
Test(analyze, fits_in_cache, .timeout = 120)
{
    analyze_report ra = analyze_schedule(0, 16 << 20), rb = analyze_schedule(1, 16 << 20);
    cr_assert(ra.read_bytes >= ra.working_set * 0.99 && ra.read_bytes <= ra.working_set * 1.01);
    cr_assert(rb.read_bytes >= rb.working_set * 0.99 && rb.read_bytes <= rb.working_set * 1.01);
    cr_assert(analyze_dre(ra.read_bytes, ra.write_bytes, ra.working_set) < 1.2);
    cr_assert(analyze_dre(rb.read_bytes, rb.write_bytes, rb.working_set) < 1.2);
}

Test(analyze, parse_bytes)
{
    int64_t v = 0;
    cr_assert_eq(cli_parse_bytes("12MiB", &v), 0);
    cr_assert_eq(v, 12LL << 20);
    cr_assert_eq(cli_parse_bytes("4m", &v), 0);
    cr_assert_eq(v, 4LL << 20);
    cr_assert_eq(cli_parse_bytes("512K", &v), 0);
    cr_assert_eq(v, 512LL << 10);
    cr_assert_eq(cli_parse_bytes("65536", &v), 0);
    cr_assert_eq(v, 65536);
    cr_assert_eq(cli_parse_bytes("12 MB", &v), -1);
    cr_assert_eq(cli_parse_bytes("x", &v), -1);
    cr_assert_eq(cli_parse_bytes("0", &v), -1);
}
