/*
 * target.h — target profiles (DESIGN.md "Targets"): what lstmc knows about a device.
 *
 * Built in: host (detected at run time), tegra-x1 (MICRO'18 Table I), pocl (OpenCL on the
 * host CPU). A user's board is a JSON file, --target=./board.json; its format is documented
 * in docs/TARGETS.md and every field is checked (unknown fields are errors, so a typo is
 * caught rather than ignored).
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder
 * (compiler/target) uses only core/ (and cJSON).
 */
#ifndef LSTMC_TARGET_H
#define LSTMC_TARGET_H

#include <stdint.h>

typedef struct diag diag;

#define TARGET_MAX_MTS 16

/* MTS when the target does not know one (MICRO'18 Fig. 9 measured 5 and 6 on a Tegra X1;
 * on a CPU a somewhat larger tissue still fits the cache). */
#define TARGET_DEFAULT_MTS 8

/*
 * The LLVM kernels' parameters a profile may set (issue 23; docs/TARGETS.md "Kernel
 * parameters"), by kernel kind and by shape class: where the layer's weight matrix (per
 * direction) lives, in the target's L2, in its last-level cache, or beyond. 0 = unset: the
 * built-in default (codegen/llvm/kparams.c); prefetch, alternate and dot are stored + 1 so
 * that 0 stays unset. dot (rec only): how a bf16 U meets h, 0 widened to fp32 for FMAs, 1..3
 * the AVX-512 BF16 dot product vdpbf16ps against h cut into that many bf16 pieces
 * (codegen/llvm/tile.c emit_tile_dot; docs/PRECISION.md). The full-integer layers' VNNI
 * kernel ("int", codegen/llvm/rnnq.c) takes tile (16-row blocks per U.h register tile), rows
 * (input rows per W.x tile), alternate and pipe (stored + 1: W.x of the next steps in the
 * loops of U.h); its class is that of its int8 U.
 */
struct target;
enum { TK_L2, TK_LLC, TK_DRAM, TK_N_CLASSES };
enum { TK_TILE, TK_ROWS, TK_PREFETCH, TK_ALTERNATE, TK_DOT, TK_PIPE, TK_N_PARAMS };

/* The built-in values of the fp32 kernels (codegen/llvm/kparams.c; the LLVM backend's REC_NB,
 * PROJ_NB, PROJ_RB and KG_PF_ROWS are these), which a profile's kernels object overrides and
 * `lstmc profile --search` starts from (ksearch.c). */
#define TK_DEFAULT_REC_TILE  8 /* vectors of columns per tile of h U */
#define TK_DEFAULT_PROJ_TILE 4 /* of x W */
#define TK_DEFAULT_PROJ_ROWS 4 /* rows of X per tile of x W */
#define TK_DEFAULT_PREFETCH  8 /* panel rows ahead, both */
#define TK_DEFAULT_INT_TILE  8 /* 16-row blocks per tile of the full-integer U.h */
/* The smallest hidden size that gets threads without --threads (kernels.mt_min_hidden): below
 * it the per-step barrier costs more than the slices save (codegen/llvm/panels.c) */
#define TK_DEFAULT_MT_MIN_HIDDEN 128

typedef struct target_kernels {
    int vector_bits;                     /* 128, 256, 512 */
    int mt_min_hidden;                   /* the smallest H that gets threads by default */
    int rec[TK_N_CLASSES][TK_N_PARAMS];  /* h U: tile, -, prefetch, alternate, dot */
    int proj[TK_N_CLASSES][TK_N_PARAMS]; /* x W: tile, rows, prefetch, - */
    int ints[TK_N_CLASSES][TK_N_PARAMS]; /* full-integer VNNI: tile, rows, -, alternate, -, pipe */
} target_kernels;

/* The class of a weight matrix of `bytes` on t (TK_L2, TK_LLC, TK_DRAM). */
int target_kernel_class(const struct target *t, int64_t bytes);

extern const char *const target_class_names[TK_N_CLASSES]; /* "l2", "llc", "dram" */
/* The profile's names of TK_TILE .. TK_PIPE: "tile", "rows", "prefetch", "alternate", "dot",
 * "pipe" */
extern const char *const target_kernel_param_names[TK_N_PARAMS];

typedef struct target {
    const char *name;
    const char *summary;
    /* CPU */
    const char *triple;   /* LLVM target triple; "" = the host's */
    const char *cpu;      /* LLVM cpu name; "" = the host's */
    const char *features; /* LLVM feature string ("+neon,+fp-armv8"); "" = the cpu's */
    int cores;
    int64_t l1d_bytes, l2_bytes;
    const char *gpu; /* GPU name; NULL when the target has no GPU */
    int gpu_compute_units;
    int gpu_mhz;
    int64_t gpu_shared_bytes; /* on-chip shared memory per compute unit */
    double dram_gbps;         /* off-chip bandwidth */
    int mts;                  /* maximum tissue size (MICRO'18 §IV-C), 0 = unknown */
    const char *passes;       /* default pass list, comma-separated */
    /* added with profile files */
    int64_t llc_bytes;      /* last-level cache; 0 = the largest of l1d/l2 */
    const char *gpu_device; /* OpenCL device kind: "gpu", "cpu", "accelerator" */
    double gpu_shared_gbps; /* on-chip shared memory bandwidth */
    int gpu_work_group;     /* preferred work-group size */
    int n_mts;              /* measured MTS per hidden size (MICRO'18 Fig. 9) */
    int64_t mts_hidden[TARGET_MAX_MTS];
    int mts_value[TARGET_MAX_MTS];
    /* the OpenCL cost-model policy (issue 7; measured by lstmc profile, 0 = unknown) */
    double gpu_launch_us; /* one kernel launch, enqueue to finish */
    double gpu_gflops;    /* the recurrent product's rate on the device */
    double cpu_gflops;    /* the same product on one host CPU core */
    /* the memory budget (issue 19; docs/TARGETS.md "Memory budget"; 0 = unknown) */
    int64_t ram_bytes;      /* RAM for the arena, the context and the stream state */
    int64_t flash_bytes;    /* read-only memory the const weights live in; 0: none known,
                               the weights are loaded into RAM with the program */
    target_kernels kernels; /* issue 23: the kernel parameters the profile sets */
} target;

/*
 * The profile called name: a built-in name, or a path to a JSON profile (a name holding
 * '/' or ending in ".json"). A file is read once and kept for the rest of the process.
 * NULL when unknown or when the file is bad; the reason goes to d (stderr when d is NULL).
 */
const target *target_resolve(const char *name, diag *d);

/* Parse the profile file at path without caching it (fuzzing): NULL after reporting
 * through d. What it returns lives until target_forget_files(). */
const target *target_parse_file(const char *path, diag *d);

/* Forget every profile read from a file (and free them). */
void target_forget_files(void);

/* sizeof(void *) on t's triple: 4 on 32-bit architectures (arm, thumb, i386, riscv32,
 * ...), 8 on 64-bit ones; the host's for an empty triple. */
int target_pointer_bytes(const target *t);

/* target_resolve(name, NULL) */
const target *target_find(const char *name);

/* The MTS for a layer of hidden size H: the measured value of the nearest H at or below,
 * else t->mts (0 when unknown). */
int target_mts(const target *t, int64_t hidden);

/* Built-in profiles, terminated by an entry whose name is NULL (host's caches as 0:
 * target_find("host") fills them from the machine). */
extern const target target_builtin[];

#endif /* LSTMC_TARGET_H */
