/*
 * test_target.c — built-in profiles and JSON profile files: fields, MTS lookup, and a
 * clear error for every bad field.
 */
#include "arena.h"
#include "diag.h"
#include "target.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
    const char *p =
        write_tmp("good.json", "{\"name\": \"myboard\", \"cpu\": {\"triple\": "
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

/* Issue 19: RAM and flash sizes. The built-ins' figures are the parts named in
 * docs/TARGETS.md (STM32F407: 192 KiB SRAM, 1 MiB flash; STM32F746: 320 KiB, 1 MiB; Jetson
 * TX1: 4 GB LPDDR4); the host's RAM is what the system reports. */
Test(target, memory_builtins)
{
    const target *m4 = target_find("cortex-m4"), *m7 = target_find("cortex-m7");
    const target *tx1 = target_find("tegra-x1"), *h = target_find("host");
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    cr_assert_eq(m4->ram_bytes, 196608);
    cr_assert_eq(m4->flash_bytes, 1048576);
    cr_assert_eq(m7->ram_bytes, 327680);
    cr_assert_eq(m7->flash_bytes, 1048576);
    /* issue 22: RP2040 (264 KiB SRAM, 2 MiB flash), an nRF9160-class M33 (256 KiB, 1 MiB),
     * the Corstone-300's 512 KiB DTCM and a 2 MiB flash */
    cr_assert_eq(target_find("cortex-m0plus")->ram_bytes, 270336);
    cr_assert_eq(target_find("cortex-m0plus")->flash_bytes, 2097152);
    cr_assert_eq(target_find("cortex-m33")->ram_bytes, 262144);
    cr_assert_eq(target_find("cortex-m33")->flash_bytes, 1048576);
    cr_assert_eq(target_find("cortex-m55")->ram_bytes, 524288);
    cr_assert_eq(target_find("cortex-m55")->flash_bytes, 2097152);
    cr_assert_eq(target_pointer_bytes(target_find("cortex-m55")), 4);
    cr_assert_eq(tx1->ram_bytes, 4294967296LL);
    cr_assert_eq(tx1->flash_bytes, 0, "a Linux board runs its program from RAM");
    cr_assert_eq(target_find("tegra-x1-cpu")->ram_bytes, 4294967296LL);
    cr_assert_eq(h->ram_bytes, (int64_t)pages * page);
    cr_assert_eq(h->flash_bytes, 0);
    cr_assert_eq(target_find("aarch64")->ram_bytes, 0, "varies by board: unknown");
    cr_assert_eq(target_find("armv7")->ram_bytes, 0);
    /* sizeof(void *) of the triple: the generated <name>_ctx's size depends on it */
    cr_assert_eq(target_pointer_bytes(m4), 4);
    cr_assert_eq(target_pointer_bytes(target_find("armv7")), 4);
    cr_assert_eq(target_pointer_bytes(tx1), 8);
    cr_assert_eq(target_pointer_bytes(h), (int)sizeof(void *));
}

Test(target, memory_fields)
{
    const char *p = write_tmp("mem.json", "{\"ram_bytes\": 65536, \"flash_bytes\": 262144,"
                                          " \"cpu\": {\"cores\": 1}}");
    const target *t = target_find(p);
    cr_assert_not_null(t);
    cr_assert_eq(t->ram_bytes, 65536);
    cr_assert_eq(t->flash_bytes, 262144);
    unlink(p);
    p = write_tmp("mem0.json", "{\"ram_bytes\": 0, \"flash_bytes\": 1125899906842624}");
    t = target_find(p);
    cr_assert_not_null(t, "0 (unknown) and 1 PiB are in range");
    cr_assert_eq(t->ram_bytes, 0);
    cr_assert_eq(t->flash_bytes, (int64_t)1 << 50);
    unlink(p);
    p = write_tmp("mem1.json", "{\"name\": \"nomem\"}");
    t = target_find(p);
    cr_assert_eq(t->ram_bytes, 0, "unset: unknown");
    cr_assert_eq(t->flash_bytes, 0);
    unlink(p);
}

Test(target, memory_fields_bad)
{
    expect_error("m1.json", "{\"ram_bytes\": \"192KiB\"}",
                 "field 'ram_bytes' must be an integer from 0 to 1125899906842624, got a string");
    expect_error("m2.json", "{\"flash_bytes\": -1}",
                 "field 'flash_bytes' must be an integer from 0 to 1125899906842624, got an "
                 "out-of-range number");
    expect_error("m3.json", "{\"ram_bytes\": 1.5}", "field 'ram_bytes' must be an integer");
    expect_error("m4.json", "{\"ram_bytes\": 2e15}", "field 'ram_bytes' must be an integer");
    expect_error("m5.json", "{\"flash_bytes\": null}",
                 "field 'flash_bytes' must be an integer from 0 to 1125899906842624, got null");
    expect_error("m6.json", "{\"cpu\": {\"ram_bytes\": 1024}}",
                 "field 'cpu.ram_bytes' is not a cpu field");
    expect_error("m7.json", "{\"rambytes\": 1024}",
                 "field 'rambytes' is not a profile field (name, summary, cpu, gpu, mts, passes, "
                 "ram_bytes, flash_bytes, kernels)");
}

/* Issue 23: the kernel parameters, by kind and shape class ("all" first whatever the key
 * order; prefetch stored + 1 so that an explicit 0, no prefetch, is not "unset"). */
Test(target, kernels_fields)
{
    const char *p =
        write_tmp("k.json", "{\"cpu\": {\"l2_bytes\": 1048576, \"llc_bytes\": 33554432},"
                            " \"kernels\": {\"vector_bits\": 256, \"mt_min_hidden\": 300,"
                            " \"rec\": {\"llc\": {\"tile\": 6, \"alternate\": 0}, \"all\": "
                            "{\"tile\": 4, \"prefetch\": 0}, \"dram\": {\"dot\": 0}, "
                            "\"l2\": {\"dot\": 3}},"
                            " \"proj\": {\"dram\": {\"rows\": 2, \"prefetch\": 16, \"dot\": 1}},"
                            " \"int\": {\"l2\": {\"tile\": 3, \"pipe\": 0}, \"all\": "
                            "{\"rows\": 16, \"alternate\": 0}}}}");
    const target *t = target_find(p);
    cr_assert_not_null(t);
    cr_assert_eq(t->kernels.vector_bits, 256);
    cr_assert_eq(t->kernels.mt_min_hidden, 300);
    cr_assert_eq(t->kernels.rec[TK_L2][TK_TILE], 4);
    cr_assert_eq(t->kernels.rec[TK_LLC][TK_TILE], 6, "a named class overrides all");
    cr_assert_eq(t->kernels.rec[TK_DRAM][TK_TILE], 4);
    cr_assert_eq(t->kernels.rec[TK_LLC][TK_PREFETCH], 1, "prefetch 0, stored + 1");
    cr_assert_eq(t->kernels.rec[TK_LLC][TK_ALTERNATE], 1, "alternate 0, stored + 1");
    cr_assert_eq(t->kernels.rec[TK_L2][TK_ALTERNATE], 0, "unset");
    cr_assert_eq(t->kernels.rec[TK_L2][TK_DOT], 4, "dot 3, stored + 1");
    cr_assert_eq(t->kernels.rec[TK_DRAM][TK_DOT], 1, "dot 0, stored + 1");
    cr_assert_eq(t->kernels.rec[TK_LLC][TK_DOT], 0, "unset");
    cr_assert_eq(t->kernels.proj[TK_DRAM][TK_ROWS], 2);
    cr_assert_eq(t->kernels.proj[TK_DRAM][TK_PREFETCH], 17);
    cr_assert_eq(t->kernels.proj[TK_L2][TK_ROWS], 0, "unset");
    cr_assert_eq(t->kernels.proj[TK_DRAM][TK_DOT], 2, "proj dot 1, stored + 1");
    cr_assert_eq(t->kernels.ints[TK_L2][TK_TILE], 3);
    cr_assert_eq(t->kernels.ints[TK_LLC][TK_TILE], 0, "unset");
    cr_assert_eq(t->kernels.ints[TK_L2][TK_PIPE], 1, "pipe 0, stored + 1");
    cr_assert_eq(t->kernels.ints[TK_DRAM][TK_PIPE], 0, "unset");
    cr_assert_eq(t->kernels.ints[TK_L2][TK_ROWS], 16, "all, under the named class's own");
    cr_assert_eq(t->kernels.ints[TK_DRAM][TK_ALTERNATE], 1, "alternate 0, stored + 1");
    cr_assert_eq(t->kernels.rec[TK_L2][TK_PIPE], 0, "int's only");
    /* the classes by the matrix's bytes against these caches */
    cr_assert_eq(target_kernel_class(t, 1048576), TK_L2);
    cr_assert_eq(target_kernel_class(t, 1048577), TK_LLC);
    cr_assert_eq(target_kernel_class(t, 33554432), TK_LLC);
    cr_assert_eq(target_kernel_class(t, 33554433), TK_DRAM);
    unlink(p);
    p = write_tmp("k0.json", "{\"kernels\": {\"rec\": {\"llc\": {\"tile\": 2}}}}");
    t = target_find(p);
    cr_assert_not_null(t);
    cr_assert_eq(target_kernel_class(t, 1), TK_LLC, "caches unknown: the middle class");
    cr_assert_eq(target_kernel_class(t, (int64_t)1 << 40), TK_LLC);
    unlink(p);
}

Test(target, kernels_fields_bad)
{
    expect_error("k1.json", "{\"kernels\": {\"vector_bits\": 384}}",
                 "field 'kernels.vector_bits' must be 128, 256 or 512");
    expect_error("k2.json", "{\"kernels\": {\"rec\": {\"l3\": {\"tile\": 4}}}}",
                 "field 'kernels.rec.l3' is not a shape class (all, l2, llc, dram)");
    expect_error("k3.json", "{\"kernels\": {\"rec\": {\"all\": {\"rows\": 4}}}}",
                 "field 'kernels.rec.all.rows' is not a rec parameter (tile, prefetch, alternate, "
                 "dot)");
    expect_error("k9.json", "{\"kernels\": {\"proj\": {\"all\": {\"alternate\": 1}}}}",
                 "field 'kernels.proj.all.alternate' is not a proj parameter");
    expect_error("k10.json", "{\"kernels\": {\"rec\": {\"all\": {\"alternate\": 2}}}}",
                 "field 'kernels.rec.all.alternate' must be an integer from 0 to 1");
    expect_error("k4.json", "{\"kernels\": {\"proj\": {\"l2\": {\"tile\": 9}}}}",
                 "field 'kernels.proj.l2.tile' must be an integer from 1 to 8");
    expect_error("k5.json", "{\"kernels\": {\"proj\": {\"l2\": {\"rows\": 3}}}}",
                 "field 'kernels.proj.l2.rows' must be 1, 2, 4 or 8");
    expect_error("k6.json", "{\"kernels\": {\"gemm\": {}}}",
                 "field 'kernels.gemm' is not a kernels field (vector_bits, mt_min_hidden, rec, "
                 "proj, int)");
    expect_error("k11.json", "{\"kernels\": {\"int\": {\"all\": {\"dot\": 1}}}}",
                 "field 'kernels.int.all.dot' is not an int parameter (tile, rows, alternate, "
                 "pipe)");
    expect_error("k12.json", "{\"kernels\": {\"rec\": {\"all\": {\"pipe\": 1}}}}",
                 "field 'kernels.rec.all.pipe' is not a rec parameter");
    expect_error("k13.json", "{\"kernels\": {\"int\": {\"llc\": {\"rows\": 32}}}}",
                 "field 'kernels.int.llc.rows' must be an integer from 1 to 16");
    expect_error("k14.json", "{\"kernels\": {\"int\": {\"llc\": {\"rows\": 12}}}}",
                 "field 'kernels.int.llc.rows' must be 1, 2, 4, 8 or 16");
    expect_error("k7.json", "{\"kernels\": {\"rec\": {\"all\": {\"prefetch\": -1}}}}",
                 "field 'kernels.rec.all.prefetch' must be an integer from 0 to 64");
    expect_error("k8.json", "{\"kernels\": [8]}",
                 "field 'kernels' must be an object, got an array");
}

Test(target, missing_file)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "m.onnx", NULL);
    cr_assert_null(target_resolve("/nonexistent/board.json", d));
    cr_assert(strstr(diag_text(d), "target profile '/nonexistent/board.json' cannot be opened"));
    arena_free(a);
}
