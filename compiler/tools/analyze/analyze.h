/*
 * analyze.h — working set, DRAM traffic and data reuse efficiency of a kernel program
 * (`lstmc analyze`), and the per-layer figures of `lstmc inspect`.
 *
 * Arm'19 §III-A, Eq. 1:  DRE = AvgRW / WorkingSet — the bytes read from and written to
 * memory per run over the bytes the run needs (weights + inputs + intermediate values).
 * DRE = 1 is ideal: every byte crosses the memory bus once. The traffic comes from the
 * paper's §V analytical model: the program's memory requests, fed to an LRU last-level
 * cache (cachesim.h), whose misses are read traffic and whose write-backs are write
 * traffic. Here the requests are those the runtime's reference kernels really make, kernel
 * by kernel, replayed over the lowered program (kprog.h) and its memory plan (memplan.h),
 * so one model serves schedule A (one fused kernel per layer that reads G = [W | U] at
 * every step, Arm'19 §II) and schedule A+ (G1 = W applied to all steps by one GEMM, then
 * only G2 = U in the loop, Arm'19 §IV, Algorithm 2).
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder uses only the
 * driver's API (driver.h), cli's helpers and, read-only, ir.h, kprog.h, memplan.h,
 * target.h, formats/ and the runtime's headers; never passes.h or codegen internals.
 */
#ifndef LSTMC_ANALYZE_H
#define LSTMC_ANALYZE_H

#include <stdint.h>
#include <stdio.h>

typedef struct arena arena;
typedef struct diag diag;
typedef struct ir_graph ir_graph;
typedef struct kprog kprog;
typedef struct memplan memplan;
typedef struct target target;
typedef struct driver_options driver_options;

/* The cache model and how the program is replayed through it. */
typedef struct analyze_options {
    int64_t llc_bytes; /* last-level cache capacity */
    int32_t assoc;     /* ways; 0 = fully associative (the paper's model) */
    int32_t line;      /* bytes; 0 = 64 */
    int32_t runs;      /* replay the program this many times, report the last; 0 = 1 */
} analyze_options;

/* One recurrent layer: a KP_RNN call (schedule A), or a KP_RNN_PROJ and the KP_RNN_REC
 * that reads its P (schedule A+). */
typedef struct analyze_layer {
    const char *name; /* the recurrent node's name (borrowed from the graph) */
    const char *op;   /* "LSTM", "GRU", "RNN" */
    int32_t cell;     /* lstmc_rt_cell */
    int32_t split;    /* 1: schedule A+ (projection + recurrence) */
    int64_t T, N, I, H, D, G;
    int64_t flops;        /* per run: 2*G*H*(I+H)*T*N*D + element-wise */
    int64_t weight_bytes; /* constant bytes its kernels read */
    int64_t arena_bytes;  /* arena buffers and scratch its kernels touch */
    int64_t io_bytes;     /* caller input/output buffers its kernels touch */
    int64_t working_set;  /* weight_bytes + arena_bytes + io_bytes */
    int64_t read_bytes;   /* DRAM read traffic while its kernels run (line fills) */
    int64_t write_bytes;  /* DRAM write traffic while its kernels run (write-backs) */
    int32_t n_calls;
    int32_t calls[4]; /* indexes into kp->calls */
} analyze_layer;

typedef struct analyze_report {
    int n_layers;
    analyze_layer *layers; /* in program order, in the arena passed to analyze_kprog */
    int64_t const_bytes;   /* every constant the program reads */
    int64_t arena_bytes;   /* mp->arena_size */
    int64_t io_bytes;      /* graph inputs and outputs */
    int64_t working_set;   /* const_bytes + arena_bytes + io_bytes */
    int64_t read_bytes;    /* DRAM traffic of the (last) run, dirty lines flushed at the end */
    int64_t write_bytes;
    int64_t line_accesses; /* lines the model streamed through the cache in that run */
    analyze_options opt;   /* as used (defaults filled in) */
} analyze_report;

/*
 * Replay kp over the plan mp through an LRU cache configured by o, and fill *r (its arrays
 * in a). Every buffer gets its own address range: each graph input and output, each
 * constant, and the arena (its tensors and scratch at their planned offsets). Returns 0,
 * or -1 after reporting through d (an inconsistent cache configuration).
 */
int analyze_kprog(arena *a, const ir_graph *g, const kprog *kp, const memplan *mp,
                  const analyze_options *o, analyze_report *r, diag *d);

/* DRE = (read + write) / working set; 0 when the working set is 0. */
double analyze_dre(int64_t read_bytes, int64_t write_bytes, int64_t working_set);


/*
 * The last-level cache of the machine lstmc runs on: sysconf(_SC_LEVEL3_CACHE_SIZE), else
 * the highest cache level under /sys/devices/system/cpu/cpu0/cache, else 0 (unknown).
 */
int64_t analyze_host_llc(void);

/* The last-level cache of target t: the host's for "host", else its largest CPU cache
 * (l2_bytes, l1d_bytes); 0 when the profile does not say. */
int64_t analyze_target_llc(const target *t);

/*
 * `lstmc analyze MODEL.onnx [--target=NAME] [--dim SYM=N]... [--llc=BYTES] [--assoc=W]
 * [--runs=R] [--schedule=A|A+|both] [--csv]`: lower the model for schedule A (split_gates
 * disabled) and A+ (the target's passes), replay both and print per layer and for the
 * whole model the working set, the DRAM traffic and the DRE side by side. argv[0] is
 * "analyze". Returns the exit status: 0, 1 (bad model), 2 (bad usage); never exits.
 */
int analyze_main(int argc, char **argv);

/*
 * The per-layer part of `lstmc inspect`: for each recurrent node of g (as imported, not
 * prepared) its shapes, parameters, FLOPs per sequence and weight bytes; when every
 * symbolic input dim is bound by o->dims, also the lowered program's working set and arena
 * bytes per layer (schedule of o's passes), else the --dim options that are missing.
 * Prints to f. Returns 0, or -1 after reporting through d.
 */
int analyze_inspect(arena *a, const ir_graph *g, const driver_options *o, FILE *f, diag *d);

#endif /* LSTMC_ANALYZE_H */
