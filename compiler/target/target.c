/*
 * target.c — built-in target profiles and the JSON profile loader (cJSON, Debian
 * libcjson-dev). Figures for tegra-x1 are MICRO'18 Table I (Jetson TX1: Maxwell GPU, 2 SMM,
 * 256 cores, 998 MHz, 4 GB LPDDR4 at 25.6 GB/s; 4x Cortex-A57 + 4x Cortex-A53) and its
 * measured MTS (Fig. 9: 5, and 6 for BABI's hidden size 256).
 */
#define _POSIX_C_SOURCE 200809L
#include "target.h"

#include "arena.h"
#include "diag.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What every CPU target runs unless it says otherwise. */
#define LSTMC_DEFAULT_PASSES "split_gates,fold_constants,dce"

/* Largest profile file read (a profile is a few hundred bytes). */
#define TARGET_FILE_MAX (1 << 20)

#define TARGET_GIB ((int64_t)1 << 30)

const target target_builtin[] = {
    {.name = "host",
     .summary = "the machine lstmc runs on (caches, cores and RAM detected)",
     .triple = "",
     .cpu = "",
     .features = "",
     .passes = LSTMC_DEFAULT_PASSES},
    {.name = "tegra-x1",
     .summary = "NVIDIA Jetson TX1: 4x Cortex-A57 + Maxwell GPU (2 SMM, 256 cores)",
     .triple = "aarch64-unknown-linux-gnu",
     .cpu = "cortex-a57",
     .features = "+neon,+fp-armv8",
     .cores = 4,
     .l1d_bytes = 32 * 1024,
     .l2_bytes = 2 * 1024 * 1024,
     .llc_bytes = 2 * 1024 * 1024,
     .gpu = "Maxwell GM20B",
     .gpu_device = "gpu",
     .gpu_compute_units = 2,
     .gpu_mhz = 998,
     .gpu_shared_bytes = 64 * 1024,
     .dram_gbps = 25.6,
     .gpu_work_group = 128,
     .mts = 5,
     .n_mts = 2,
     .mts_hidden = {128, 256},
     .mts_value = {5, 6},
     .ram_bytes = 4 * TARGET_GIB, /* 4 GB LPDDR4, shared by CPU and GPU; no flash: the
                                     program runs from RAM (Linux on eMMC) */
     .passes = LSTMC_DEFAULT_PASSES},
    /* The Jetson TX1's CPU side alone: the same Cortex-A57 cluster, no GPU section, so the
     * whole model runs in the LLVM aarch64 kernels and the library needs no OpenCL (the
     * CPU-only firmware of a TX1, examples/aarch64_linux). */
    {.name = "tegra-x1-cpu",
     .summary = "NVIDIA Jetson TX1, CPU side only: 4x Cortex-A57 (NEON), no OpenCL",
     .triple = "aarch64-unknown-linux-gnu",
     .cpu = "cortex-a57",
     .features = "+neon,+fp-armv8",
     .cores = 4,
     .l1d_bytes = 32 * 1024,
     .l2_bytes = 2 * 1024 * 1024,
     .llc_bytes = 2 * 1024 * 1024,
     .dram_gbps = 25.6,
     .mts = 5,
     .n_mts = 2,
     .mts_hidden = {128, 256},
     .mts_value = {5, 6},
     .ram_bytes = 4 * TARGET_GIB,
     .passes = LSTMC_DEFAULT_PASSES},
    /* Generic 64-bit Arm Linux (any Cortex-A53/A57/A72/...): NEON is part of the base ISA.
     * Caches and cores vary by SoC: unknown here, give --llc to `lstmc analyze` or write a
     * profile file for the board. */
    {.name = "aarch64",
     .summary = "64-bit Arm Linux, any ARMv8-A core (NEON)",
     .triple = "aarch64-unknown-linux-gnu",
     .cpu = "generic",
     .features = "+neon,+fp-armv8",
     .passes = LSTMC_DEFAULT_PASSES},
    /* 32-bit Arm Linux, hard-float ABI (Debian armhf's gcc). Cortex-A7 is the scheduling
     * model: the most common ARMv7-A core on current boards (Raspberry Pi 2, Allwinner
     * H3, i.MX7), in order, so code scheduled for it does not lose on the out-of-order A9/
     * A15/A17, and it implies exactly the VFPv4 + NEON named here. Debian's armhf baseline
     * (VFPv3-D16, no NEON) needs a profile file without +neon. */
    {.name = "armv7",
     .summary = "32-bit Arm Linux, hard float (gnueabihf), Cortex-A7 class, VFPv4 + NEON",
     .triple = "armv7a-unknown-linux-gnueabihf",
     .cpu = "cortex-a7",
     .features = "+neon,+vfp4",
     .passes = LSTMC_DEFAULT_PASSES},
    /* Cortex-M with the FPU, bare metal, hard-float ABI (gcc -mfloat-abi=hard). No float
     * SIMD: the LLVM kernels are scalar. M4: FPv4-SP-D16. M7: its FPv5 in the single-
     * precision form (fpv5-sp-d16), which every FPU-equipped M7 has (the kernels use
     * no double). One core, no data cache worth modelling (M4 has none).
     * Memory (the budget of issue 19): a typical part of each. M4: STM32F407/F417, 192 KiB
     * SRAM (128 KiB + 64 KiB CCM) and 1 MiB flash (the F401/F411/F446 have 64-128 KiB and
     * 256-512 KiB: write a profile file). M7: STM32F746, 320 KiB SRAM (incl. 64 KiB DTCM)
     * and 1 MiB flash. */
    {.name = "cortex-m4",
     .summary = "Cortex-M4F bare metal (thumbv7em, FPv4-SP-D16, hard float), STM32F407-sized",
     .triple = "thumbv7em-none-eabihf",
     .cpu = "cortex-m4",
     .features = "+vfp4d16sp",
     .cores = 1,
     .ram_bytes = 192 * 1024,
     .flash_bytes = 1024 * 1024,
     .passes = LSTMC_DEFAULT_PASSES},
    {.name = "cortex-m7",
     .summary = "Cortex-M7 bare metal (thumbv7em, FPv5-SP-D16, hard float), STM32F746-sized",
     .triple = "thumbv7em-none-eabihf",
     .cpu = "cortex-m7",
     .features = "+fp-armv8d16sp,-fp64",
     .cores = 1,
     .ram_bytes = 320 * 1024,
     .flash_bytes = 1024 * 1024,
     .passes = LSTMC_DEFAULT_PASSES},
    /* Cortex-M without an FPU (issue 22), soft-float ABI (gcc -mfloat-abi=soft): every float
     * operation of the LLVM kernels is a call into libgcc's float emulation (__aeabi_fadd,
     * __aeabi_fmul, ...), as gcc's code for the C kernels is; the integer build
     * (--activations=int8|int16) needs none. M0+: ARMv6-M, Thumb-1 with a few Thumb-2
     * instructions, no DSP, no hardware divide; memory of an RP2040 (Raspberry Pi Pico):
     * 264 KiB SRAM, 2 MiB QSPI flash (XIP). M33: ARMv8-M Mainline with the DSP extension
     * (SIMD on 8/16-bit lanes, SMLAD) but built without its optional FPU (-fpregs turns every
     * floating-point feature of LLVM's cortex-m33 off), as the nRF5340's network core is;
     * memory of an nRF9160 / STM32L552 class part (256 KiB SRAM, 1 MiB flash; those two do
     * have the FPU: a -mfloat-abi=softfp program links these objects, a hard-float one
     * needs a profile with the eabihf triple and +fp-armv8d16sp). */
    {.name = "cortex-m0plus",
     .summary = "Cortex-M0+ bare metal (thumbv6m, no FPU, soft float), RP2040-sized",
     .triple = "thumbv6m-none-eabi",
     .cpu = "cortex-m0plus",
     .features = "",
     .cores = 1,
     .ram_bytes = 264 * 1024,
     .flash_bytes = 2 * 1024 * 1024,
     .passes = LSTMC_DEFAULT_PASSES},
    {.name = "cortex-m33",
     .summary = "Cortex-M33 bare metal (thumbv8m.main, DSP, no FPU, soft float), nRF9160-sized",
     .triple = "thumbv8m.main-none-eabi",
     .cpu = "cortex-m33",
     .features = "+dsp,-fpregs",
     .cores = 1,
     .ram_bytes = 256 * 1024,
     .flash_bytes = 1024 * 1024,
     .passes = LSTMC_DEFAULT_PASSES},
    /* Cortex-M55 (ARMv8.1-M Mainline): Helium (MVE) for integers and floats and the FPU
     * (FPv5 with double precision), hard-float ABI (gcc -mcpu=cortex-m55 -mfloat-abi=hard).
     * The float kernels stay scalar (vector_floats gives 4 only with +neon); the integer
     * build may use MVE. Memory: RAM is the 512 KiB DTCM of the Corstone-300 (SSE-300, the
     * AN547 FPGA image that examples/cortex_m55 runs on), flash 2 MiB, a typical M55
     * microcontroller's (the Corstone-300 runs code from its 512 KiB ITCM). */
    {.name = "cortex-m55",
     .summary = "Cortex-M55 bare metal (thumbv8.1m.main, MVE, FPU, hard float), Corstone-300-sized",
     .triple = "thumbv8.1m.main-none-eabihf",
     .cpu = "cortex-m55",
     .features = "+mve.fp,+fp-armv8d16",
     .cores = 1,
     .ram_bytes = 512 * 1024,
     .flash_bytes = 2 * 1024 * 1024,
     .passes = LSTMC_DEFAULT_PASSES},
    {.name = "pocl",
     .summary = "OpenCL on the host CPU through PoCL (for tests of the GPU path)",
     .triple = "",
     .cpu = "",
     .features = "",
     .gpu = "PoCL CPU device",
     .gpu_device = "cpu",
     .gpu_work_group = 64,
     .passes = LSTMC_DEFAULT_PASSES},
    {.name = NULL},
};

static long
sys_long(int name)
{
    long v = sysconf(name);
    return v > 0 ? v : 0;
}

static const target *
host_profile(void)
{
    static target host;
    static int done;
    if (!done) {
        host = target_builtin[0];
        host.cores = (int)sys_long(_SC_NPROCESSORS_ONLN);
#ifdef _SC_LEVEL1_DCACHE_SIZE
        host.l1d_bytes = sys_long(_SC_LEVEL1_DCACHE_SIZE);
        host.l2_bytes = sys_long(_SC_LEVEL2_CACHE_SIZE);
        host.llc_bytes = sys_long(_SC_LEVEL3_CACHE_SIZE);
#endif
        if (host.llc_bytes == 0)
            host.llc_bytes = host.l2_bytes;
#ifdef _SC_PHYS_PAGES
        host.ram_bytes = (int64_t)sys_long(_SC_PHYS_PAGES) * (int64_t)sys_long(_SC_PAGESIZE);
#endif
        done = 1;
    }
    return &host;
}

/* --- JSON profiles --------------------------------------------------------------- */

typedef struct loader {
    const char *path;
    diag *d;
    int errors;
} loader;

static void
bad(loader *L, const char *field, const char *fmt, const char *detail)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, detail ? detail : "");
    if (L->d)
        diag_error(L->d, "target profile '%s': field '%s' %s", L->path, field, msg);
    else
        fprintf(stderr, "lstmc: target profile '%s': field '%s' %s\n", L->path, field, msg);
    L->errors++;
}

static const char *
kind_of(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsObject(v))
        return "an object";
    if (cJSON_IsArray(v))
        return "an array";
    return "null";
}

/* Profiles live for the whole process, in one arena of their own. */
static arena *profiles;

static arena *
profile_arena(void)
{
    if (!profiles)
        profiles = arena_new(8 << 20);
    return profiles;
}

static char *
dup_str(const char *s)
{
    return arena_strdup(profile_arena(), s);
}

static void
get_str(loader *L, const cJSON *v, const char *field, const char **out)
{
    if (!cJSON_IsString(v) || !v->valuestring) {
        bad(L, field, "must be a string, got %s", kind_of(v));
        return;
    }
    if (strlen(v->valuestring) > 256) {
        bad(L, field, "is longer than 256 characters%s", "");
        return;
    }
    *out = dup_str(v->valuestring);
}

static void
get_int(loader *L, const cJSON *v, const char *field, int64_t lo, int64_t hi, int64_t *out)
{
    char range[96];
    snprintf(range, sizeof range, "%lld to %lld", (long long)lo, (long long)hi);
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble < (double)lo || v->valuedouble > (double)hi) {
        char want[160];
        snprintf(want, sizeof want, "must be an integer from %s, got %%s", range);
        bad(L, field, want, cJSON_IsNumber(v) ? "an out-of-range number" : kind_of(v));
        return;
    }
    *out = (int64_t)v->valuedouble;
}

static void
get_num(loader *L, const cJSON *v, const char *field, double hi, double *out)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > hi) {
        bad(L, field, "must be a number from 0 up, got %s",
            cJSON_IsNumber(v) ? "an out-of-range number" : kind_of(v));
        return;
    }
    *out = v->valuedouble;
}

#define GIB TARGET_GIB

/* ram_bytes, flash_bytes: up to 1 PiB (0 = unknown) */
#define TARGET_MAX_MEMORY ((int64_t)1 << 50)

static void
load_cpu(loader *L, const cJSON *o, target *t)
{
    const cJSON *v;
    int64_t x;
    if (!cJSON_IsObject(o)) {
        bad(L, "cpu", "must be an object, got %s", kind_of(o));
        return;
    }
    cJSON_ArrayForEach(v, o)
    {
        const char *k = v->string;
        char f[64];
        snprintf(f, sizeof f, "cpu.%.40s", k);
        if (strcmp(k, "triple") == 0)
            get_str(L, v, f, &t->triple);
        else if (strcmp(k, "cpu") == 0)
            get_str(L, v, f, &t->cpu);
        else if (strcmp(k, "features") == 0)
            get_str(L, v, f, &t->features);
        else if (strcmp(k, "cores") == 0) {
            x = t->cores;
            get_int(L, v, f, 1, 1024, &x);
            t->cores = (int)x;
        } else if (strcmp(k, "l1d_bytes") == 0)
            get_int(L, v, f, 0, GIB, &t->l1d_bytes);
        else if (strcmp(k, "l2_bytes") == 0)
            get_int(L, v, f, 0, 64 * GIB, &t->l2_bytes);
        else if (strcmp(k, "llc_bytes") == 0)
            get_int(L, v, f, 0, 64 * GIB, &t->llc_bytes);
        else if (strcmp(k, "gflops") == 0)
            get_num(L, v, f, 1e6, &t->cpu_gflops);
        else
            bad(L, f,
                "is not a cpu field (triple, cpu, features, cores, l1d_bytes, l2_bytes, "
                "llc_bytes, gflops)%s",
                "");
    }
}

static void
load_gpu(loader *L, const cJSON *o, target *t)
{
    const cJSON *v;
    int64_t x;
    if (!cJSON_IsObject(o)) {
        bad(L, "gpu", "must be an object, got %s", kind_of(o));
        return;
    }
    t->gpu = "gpu";
    cJSON_ArrayForEach(v, o)
    {
        const char *k = v->string;
        char f[64];
        snprintf(f, sizeof f, "gpu.%.40s", k);
        if (strcmp(k, "name") == 0)
            get_str(L, v, f, &t->gpu);
        else if (strcmp(k, "opencl_device") == 0) {
            get_str(L, v, f, &t->gpu_device);
            if (t->gpu_device && strcmp(t->gpu_device, "gpu") != 0 &&
                strcmp(t->gpu_device, "cpu") != 0 && strcmp(t->gpu_device, "accelerator") != 0)
                bad(L, f, "must be \"gpu\", \"cpu\" or \"accelerator\", got \"%s\"", t->gpu_device);
        } else if (strcmp(k, "compute_units") == 0) {
            x = 0;
            get_int(L, v, f, 1, 65536, &x);
            t->gpu_compute_units = (int)x;
        } else if (strcmp(k, "clock_mhz") == 0) {
            x = 0;
            get_int(L, v, f, 1, 100000, &x);
            t->gpu_mhz = (int)x;
        } else if (strcmp(k, "shared_mem_bytes") == 0)
            get_int(L, v, f, 0, GIB, &t->gpu_shared_bytes);
        else if (strcmp(k, "shared_mem_gbps") == 0)
            get_num(L, v, f, 1e6, &t->gpu_shared_gbps);
        else if (strcmp(k, "dram_gbps") == 0)
            get_num(L, v, f, 1e6, &t->dram_gbps);
        else if (strcmp(k, "work_group") == 0) {
            x = 0;
            get_int(L, v, f, 1, 4096, &x);
            t->gpu_work_group = (int)x;
        } else if (strcmp(k, "launch_us") == 0)
            get_num(L, v, f, 1e6, &t->gpu_launch_us);
        else if (strcmp(k, "gflops") == 0)
            get_num(L, v, f, 1e6, &t->gpu_gflops);
        else
            bad(L, f,
                "is not a gpu field (name, opencl_device, compute_units, clock_mhz, "
                "shared_mem_bytes, shared_mem_gbps, dram_gbps, work_group, launch_us, "
                "gflops)%s",
                "");
    }
}

/* "mts": 5, or {"default": 5, "by_hidden": {"128": 5, "256": 6}} */
static void
load_mts(loader *L, const cJSON *o, target *t)
{
    const cJSON *v, *e;
    int64_t x;
    if (cJSON_IsNumber(o)) {
        x = 0;
        get_int(L, o, "mts", 1, 1024, &x);
        t->mts = (int)x;
        return;
    }
    if (!cJSON_IsObject(o)) {
        bad(L, "mts", "must be an integer or an object, got %s", kind_of(o));
        return;
    }
    cJSON_ArrayForEach(v, o)
    {
        if (strcmp(v->string, "default") == 0) {
            x = 0;
            get_int(L, v, "mts.default", 1, 1024, &x);
            t->mts = (int)x;
        } else if (strcmp(v->string, "by_hidden") == 0 && cJSON_IsObject(v)) {
            cJSON_ArrayForEach(e, v)
            {
                char *end;
                long long h = strtoll(e->string, &end, 10);
                char f[96];
                snprintf(f, sizeof f, "mts.by_hidden.%.40s", e->string);
                if (*end || h < 1 || h > (1 << 20)) {
                    bad(L, f, "names no hidden size (a key must be an integer)%s", "");
                    continue;
                }
                if (t->n_mts == TARGET_MAX_MTS) {
                    bad(L, f, "is one measurement too many (at most 16)%s", "");
                    break;
                }
                x = 0;
                get_int(L, e, f, 1, 1024, &x);
                t->mts_hidden[t->n_mts] = h;
                t->mts_value[t->n_mts++] = (int)x;
            }
        } else {
            char f[64];
            snprintf(f, sizeof f, "mts.%.40s", v->string);
            bad(L, f, "is not an mts field (default, by_hidden: an object)%s", "");
        }
    }
}

const char *const target_class_names[TK_N_CLASSES] = {"l2", "llc", "dram"};
const char *const target_kernel_param_names[TK_N_PARAMS] = {"tile",      "rows", "prefetch",
                                                            "alternate", "dot",  "pipe"};

int
target_kernel_class(const target *t, int64_t bytes)
{
    if (t->l2_bytes <= 0 && t->llc_bytes <= 0) /* caches unknown: the middle class */
        return TK_LLC;
    if (t->l2_bytes > 0 && bytes <= t->l2_bytes)
        return TK_L2;
    if (bytes <= (t->llc_bytes > 0 ? t->llc_bytes : t->l2_bytes))
        return TK_LLC;
    return TK_DRAM;
}

/* One class's {"tile": .., "rows": .., "prefetch": ..} of kernel kind `kind` ("rec" takes no
 * rows; "int": tile, rows, alternate, pipe) into p[class] (every class for "all", which a
 * named class overrides whatever the order of the keys: named classes are read after "all",
 * by load_kernels). */
static void
load_kclass(loader *L, const cJSON *o, const char *kind, const char *cls, int p[TK_N_PARAMS])
{
    static const char *const lists[3] = {"a rec parameter (tile, prefetch, alternate, dot)",
                                         "a proj parameter (tile, rows, prefetch, dot)",
                                         "an int parameter (tile, rows, alternate, pipe)"};
    static const unsigned char takes[3][TK_N_PARAMS] = {
        {1, 0, 1, 1, 1, 0}, {1, 1, 1, 0, 1, 0}, {1, 1, 0, 1, 0, 1}};
    const int kk = kind[0] == 'r' ? 0 : kind[0] == 'p' ? 1 : 2;
    const int64_t hi[TK_N_PARAMS] = {kk == 1 ? 8 : kk == 2 ? 8 : 16, kk == 2 ? 16 : 8, 64, 1, 3, 1};
    const cJSON *v;
    char f[96];
    int k;
    if (!cJSON_IsObject(o)) {
        snprintf(f, sizeof f, "kernels.%s.%s", kind, cls);
        bad(L, f, "must be an object, got %s", kind_of(o));
        return;
    }
    cJSON_ArrayForEach(v, o)
    {
        int64_t x = 0;
        snprintf(f, sizeof f, "kernels.%s.%s.%.40s", kind, cls, v->string);
        for (k = 0; k < TK_N_PARAMS; k++)
            if (strcmp(v->string, target_kernel_param_names[k]) == 0 && takes[kk][k])
                break;
        if (k == TK_N_PARAMS) {
            bad(L, f, "is not %s", lists[kk]);
            continue;
        }
        x = -1;
        get_int(L, v, f, k >= TK_PREFETCH ? 0 : 1, hi[k], &x);
        if (x < 0)
            continue;
        if (k == TK_ROWS && (x & (x - 1))) { /* proj.c divides the run's rows by it */
            bad(L, f, kk == 2 ? "must be 1, 2, 4, 8 or 16%s" : "must be 1, 2, 4 or 8%s", "");
            continue;
        }
        p[k] = (int)(k >= TK_PREFETCH ? x + 1 : x);
    }
}

/* "kernels": {"vector_bits": 256, "mt_min_hidden": 128, "rec": {"all"|"l2"|"llc"|"dram":
 * {...}}, "proj": {...}} (docs/TARGETS.md "Kernel parameters") */
static void
load_kernels(loader *L, const cJSON *o, target *t)
{
    target_kernels *k = &t->kernels;
    const cJSON *v, *c;
    int64_t x;
    int pass, i;
    if (!cJSON_IsObject(o)) {
        bad(L, "kernels", "must be an object, got %s", kind_of(o));
        return;
    }
    cJSON_ArrayForEach(v, o)
    {
        char f[64];
        snprintf(f, sizeof f, "kernels.%.40s", v->string);
        if (strcmp(v->string, "vector_bits") == 0) {
            x = 0;
            get_int(L, v, f, 128, 512, &x);
            if (x && x != 128 && x != 256 && x != 512)
                bad(L, f, "must be 128, 256 or 512%s", "");
            else
                k->vector_bits = (int)x;
        } else if (strcmp(v->string, "mt_min_hidden") == 0) {
            x = 0;
            get_int(L, v, f, 1, 1 << 20, &x);
            k->mt_min_hidden = (int)x;
        } else if (strcmp(v->string, "rec") == 0 || strcmp(v->string, "proj") == 0 ||
                   strcmp(v->string, "int") == 0) {
            int(*p)[TK_N_PARAMS] = v->string[0] == 'r'   ? k->rec
                                   : v->string[0] == 'p' ? k->proj
                                                         : k->ints;
            if (!cJSON_IsObject(v)) {
                bad(L, f, "must be an object, got %s", kind_of(v));
                continue;
            }
            for (pass = 0; pass < 2; pass++) /* "all" first, then the named classes */
                cJSON_ArrayForEach(c, v)
                {
                    const int all = strcmp(c->string, "all") == 0;
                    if (all != (pass == 0))
                        continue;
                    if (all) {
                        int q[TK_N_PARAMS] = {0};
                        load_kclass(L, c, v->string, "all", q);
                        for (i = 0; i < TK_N_CLASSES; i++)
                            memcpy(p[i], q, sizeof q);
                        continue;
                    }
                    for (i = 0; i < TK_N_CLASSES; i++)
                        if (strcmp(c->string, target_class_names[i]) == 0)
                            break;
                    if (i == TK_N_CLASSES) {
                        char g[128];
                        snprintf(g, sizeof g, "%s.%.40s", f, c->string);
                        bad(L, g, "is not a shape class (all, l2, llc, dram)%s", "");
                        continue;
                    }
                    load_kclass(L, c, v->string, c->string, p[i]);
                }
        } else
            bad(L, f, "is not a kernels field (vector_bits, mt_min_hidden, rec, proj, int)%s", "");
    }
}

static target *
load_file(const char *path, diag *d)
{
    loader L = {path, d, 0};
    FILE *f = fopen(path, "rb");
    char *text;
    long n;
    cJSON *root, *v;
    target *t;

    if (!f) {
        if (d)
            diag_error(d, "target profile '%s' cannot be opened: %s", path, strerror(errno));
        else
            fprintf(stderr, "lstmc: target profile '%s' cannot be opened: %s\n", path,
                    strerror(errno));
        return NULL;
    }
    text = malloc(TARGET_FILE_MAX + 1);
    n = text ? (long)fread(text, 1, TARGET_FILE_MAX + 1, f) : -1;
    fclose(f);
    if (n < 0 || n > TARGET_FILE_MAX) {
        free(text);
        if (d)
            diag_error(d, "target profile '%s' is larger than 1 MiB", path);
        else
            fprintf(stderr, "lstmc: target profile '%s' is larger than 1 MiB\n", path);
        return NULL;
    }
    text[n] = '\0';
    root = cJSON_ParseWithLength(text, (size_t)n);
    if (!root || !cJSON_IsObject(root)) {
        const char *at = cJSON_GetErrorPtr();
        long line = 1, i, off = at && at >= text && at <= text + n ? (long)(at - text) : 0;
        for (i = 0; i < off; i++)
            line += text[i] == '\n';
        if (d)
            diag_error(d,
                       "target profile '%s' is not a JSON object (syntax error near line "
                       "%ld)",
                       path, line);
        else
            fprintf(stderr,
                    "lstmc: target profile '%s' is not a JSON object (syntax error near "
                    "line %ld)\n",
                    path, line);
        cJSON_Delete(root);
        free(text);
        return NULL;
    }
    free(text);
    t = arena_alloc(profile_arena(), sizeof *t);
    t->name = dup_str(path);
    t->summary = "a profile from a file";
    t->triple = t->cpu = t->features = "";
    t->passes = LSTMC_DEFAULT_PASSES;
    cJSON_ArrayForEach(v, root)
    {
        const char *k = v->string;
        if (strcmp(k, "name") == 0)
            get_str(&L, v, "name", &t->name);
        else if (strcmp(k, "summary") == 0)
            get_str(&L, v, "summary", &t->summary);
        else if (strcmp(k, "cpu") == 0)
            load_cpu(&L, v, t);
        else if (strcmp(k, "gpu") == 0)
            load_gpu(&L, v, t);
        else if (strcmp(k, "mts") == 0)
            load_mts(&L, v, t);
        else if (strcmp(k, "passes") == 0)
            get_str(&L, v, "passes", &t->passes);
        else if (strcmp(k, "ram_bytes") == 0)
            get_int(&L, v, "ram_bytes", 0, TARGET_MAX_MEMORY, &t->ram_bytes);
        else if (strcmp(k, "flash_bytes") == 0)
            get_int(&L, v, "flash_bytes", 0, TARGET_MAX_MEMORY, &t->flash_bytes);
        else if (strcmp(k, "kernels") == 0)
            load_kernels(&L, v, t);
        else
            bad(&L, k,
                "is not a profile field (name, summary, cpu, gpu, mts, passes, ram_bytes, "
                "flash_bytes, kernels)%s",
                "");
    }
    cJSON_Delete(root);
    if (L.errors)
        return NULL;
    if (t->llc_bytes == 0)
        t->llc_bytes = t->l2_bytes > t->l1d_bytes ? t->l2_bytes : t->l1d_bytes;
    return t;
}

typedef struct loaded {
    char *path;
    target *t;
} loaded;

static loaded cache[16];
static int n_cache;

static int
is_path(const char *name)
{
    size_t n = strlen(name);
    return strchr(name, '/') || (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

const target *
target_resolve(const char *name, diag *d)
{
    int i;
    target *t;
    if (!name)
        return NULL;
    if (strcmp(name, "host") == 0)
        return host_profile();
    for (i = 1; target_builtin[i].name; i++)
        if (strcmp(target_builtin[i].name, name) == 0)
            return &target_builtin[i];
    if (!is_path(name))
        return NULL;
    for (i = 0; i < n_cache; i++)
        if (strcmp(cache[i].path, name) == 0)
            return cache[i].t;
    t = load_file(name, d);
    if (t && n_cache < (int)(sizeof cache / sizeof cache[0])) {
        cache[n_cache].path = dup_str(name);
        cache[n_cache++].t = t;
    }
    return t;
}

int
target_pointer_bytes(const target *t)
{
    char arch[32];
    size_t n;
    if (!t->triple || !t->triple[0])
        return (int)sizeof(void *);
    n = strcspn(t->triple, "-");
    if (n >= sizeof arch)
        n = sizeof arch - 1;
    memcpy(arch, t->triple, n);
    arch[n] = '\0';
    /* x86_64, aarch64, arm64, riscv64, powerpc64(le), mips64(el), sparcv9, s390x, loongarch64 */
    return strstr(arch, "64") || strcmp(arch, "s390x") == 0 || strcmp(arch, "sparcv9") == 0 ? 8 : 4;
}

const target *
target_find(const char *name)
{
    return target_resolve(name, NULL);
}

int
target_mts(const target *t, int64_t hidden)
{
    int i, best = -1;
    for (i = 0; i < t->n_mts; i++)
        if (t->mts_hidden[i] <= hidden && (best < 0 || t->mts_hidden[i] > t->mts_hidden[best]))
            best = i;
    return best >= 0 ? t->mts_value[best] : t->mts;
}

const target *
target_parse_file(const char *path, diag *d)
{
    return load_file(path, d);
}

void
target_forget_files(void)
{
    n_cache = 0;
    arena_free(profiles);
    profiles = NULL;
}
