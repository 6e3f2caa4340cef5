/*
 * test_target.c — built-in profiles and JSON profile files: fields, MTS lookup, and a
 * clear error for every bad field.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "target.h"

static const char *
write_tmp(const char *name, const char *text)
{
    static char path[256];
    FILE *f;
    snprintf(path, sizeof path, "/tmp/lstmc_target_%d_%s", (int)getpid(), name);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

Test(target, builtins)
{
    const target *t = target_find("tegra-x1"), *h = target_find("host");
    cr_assert_not_null(t);
    cr_assert_str_eq(t->cpu, "cortex-a57");
    cr_assert_eq(t->gpu_compute_units, 2);
    cr_assert_eq(t->gpu_mhz, 998);
    cr_assert_float_eq(t->dram_gbps, 25.6, 1e-9);
    /* MICRO'18 Fig. 9: MTS 5, and 6 for BABI (hidden 256) */
    cr_assert_eq(target_mts(t, 256), 6);
    cr_assert_eq(target_mts(t, 128), 5);
    cr_assert_eq(target_mts(t, 64), 5);
    cr_assert_not_null(h);
    cr_assert_gt(h->cores, 0);
    cr_assert_not_null(target_find("pocl"));
    cr_assert_null(target_find("nosuchboard"));
}

Test(target, profile_file)
{
    const char *p = write_tmp("good.json",
                              "{\"name\": \"myboard\", \"cpu\": {\"triple\": "
                              "\"aarch64-unknown-linux-gnu\", \"cores\": 4, \"l2_bytes\": 524288,"
                              " \"gflops\": 3.5},"
                              " \"gpu\": {\"compute_units\": 3, \"dram_gbps\": 12.5,"
                              " \"launch_us\": 7.25, \"gflops\": 40},"
                              " \"mts\": {\"default\": 4, \"by_hidden\": {\"300\": 7}}}");
    const target *t = target_find(p);
    cr_assert_not_null(t);
    cr_assert_str_eq(t->name, "myboard");
    cr_assert_str_eq(t->triple, "aarch64-unknown-linux-gnu");
    cr_assert_eq(t->cores, 4);
    cr_assert_eq(t->llc_bytes, 524288, "llc defaults to the largest cache");
    cr_assert_eq(t->gpu_compute_units, 3);
    /* the cost-model inputs (issue 7) */
    cr_assert_float_eq(t->gpu_launch_us, 7.25, 1e-9);
    cr_assert_float_eq(t->gpu_gflops, 40.0, 1e-9);
    cr_assert_float_eq(t->cpu_gflops, 3.5, 1e-9);
    cr_assert_eq(target_mts(t, 512), 7);
    cr_assert_eq(target_mts(t, 128), 4);
    cr_assert_eq(target_find(p), t, "a file is read once");
    unlink(p);
}

static void
expect_error(const char *name, const char *json, const char *want)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "m.onnx", NULL);
    const char *p = write_tmp(name, json);
    cr_assert_null(target_resolve(p, d), "%s loaded", name);
    cr_assert(strstr(diag_text(d), want), "%s: want '%s' in:\n%s", name, want, diag_text(d));
    unlink(p);
    arena_free(a);
}

Test(target, bad_profiles)
{
    expect_error("t1.json", "{\"cpu\": {\"cores\": \"four\"}}",
                 "field 'cpu.cores' must be an integer from 1 to 1024, got a string");
    expect_error("t2.json", "{\"cpu\": {\"l3\": 5}}", "field 'cpu.l3' is not a cpu field");
    expect_error("t3.json", "{\"colour\": \"red\"}", "field 'colour' is not a profile field");
    expect_error("t4.json", "{\"gpu\": {\"opencl_device\": \"dsp\"}}",
                 "field 'gpu.opencl_device' must be \"gpu\", \"cpu\" or \"accelerator\"");
    expect_error("t5.json", "{\"mts\": -3}", "field 'mts' must be an integer from 1 to 1024");
    expect_error("t6.json", "{\"cpu\": {\n\"cores\": 2,}", "is not a JSON object (syntax error");
    expect_error("t7.json", "[1, 2]", "is not a JSON object");
    expect_error("t8.json", "{\"cpu\": {\"cores\": 2.5}}", "field 'cpu.cores' must be an integer");
}

Test(target, missing_file)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "m.onnx", NULL);
    cr_assert_null(target_resolve("/nonexistent/board.json", d));
    cr_assert(strstr(diag_text(d), "target profile '/nonexistent/board.json' cannot be opened"));
    arena_free(a);
}
