/*
 * target.h — target profiles (DESIGN.md "Targets"): what lstmc knows about a device.
 * Built-in profiles only for now; profile files (--target=./board.json) come with the
 * optimising passes that read them.
 */
#ifndef LSTMC_TARGET_H
#define LSTMC_TARGET_H

#include <stdint.h>

typedef struct target {
    const char *name;
    const char *summary;
    const char *triple;    /* LLVM target triple of the CPU */
    const char *cpu;       /* LLVM cpu name */
    int cores;
    int64_t l1d_bytes, l2_bytes;
    const char *gpu;       /* NULL when the target has no GPU */
    int gpu_compute_units;
    int gpu_mhz;
    int64_t gpu_shared_bytes;   /* on-chip shared memory per compute unit */
    double dram_gbps;           /* off-chip bandwidth */
    int mts;                    /* maximum tissue size (MICRO'18 §IV-C), 0 = unknown */
    const char *passes;         /* default pass list, comma-separated */
} target;

/* The built-in profile called name, or NULL. */
const target *target_find(const char *name);

/* Built-in profiles, terminated by an entry whose name is NULL. */
extern const target target_builtin[];

#endif /* LSTMC_TARGET_H */
