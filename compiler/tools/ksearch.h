/*
 * ksearch.h — `lstmc profile --device=cpu --search` (issue 23): a budgeted coordinate search
 * of the LLVM fp32 kernels' parameters (the profile's "kernels" object, docs/TARGETS.md
 * "Kernel parameters") on the real generated kernels of one single-layer LSTM per shape
 * class (l2, llc, dram), each candidate compiled by lstmc's own driver, built with cc and
 * timed in a harness process. The pure parts (the class's representative hidden size, the
 * state file's parser) are exported for the unit tests.
 */
#ifndef LSTMC_KSEARCH_H
#define LSTMC_KSEARCH_H

#include <stdio.h>

/* vector_bits, rec.tile, rec.prefetch, rec.alternate, proj.tile, proj.rows, proj.prefetch,
 * rec.dot, int.tile, int.rows, int.alternate, int.pipe, threads */
#define KS_N_PARAMS 13
/* The pseudo-class "mt" of the threads step (search_mt), beside target.h's TK_L2 .. TK_DRAM */
#define KS_MT 3
/* The hidden sizes the threads step measures, at most */
#define KS_MT_SIZES 9
#define KS_MAX_RECS 4096

/* One candidate: vb 0 = the CPU's widest (the default), else 128, 256, 512; the rest as in
 * the profile (prefetch 0 = none), but rec.dot: 0 = the class's fp32 model (no dot field),
 * 1 + d = the same model in bf16 weights (--weights=bf16) with "dot": d; int.tile 0 = not the
 * full-integer model, else the model in --activations=int8 with the int fields (the VNNI
 * kernel's, codegen/llvm/rnnq.c; alternate and pipe as in the profile, 0 or 1); threads 0 =
 * compiled for one thread, n = --threads=n (the threads step's candidates). */
typedef struct ks_params {
    int v[KS_N_PARAMS];
} ks_params;

enum {
    KS_VB,
    KS_REC_TILE,
    KS_REC_PF,
    KS_REC_ALT,
    KS_PROJ_TILE,
    KS_PROJ_ROWS,
    KS_PROJ_PF,
    KS_REC_DOT,
    KS_INT_TILE,
    KS_INT_ROWS,
    KS_INT_ALT,
    KS_INT_PIPE,
    KS_THREADS
};

/* The built-in values (codegen/llvm, docs/TARGETS.md), vb 0, int fields 0 (the fp32 model). */
extern const ks_params ks_defaults;
/* The full-integer VNNI kernel's built-in values on one thread: tile 8, rows 16, alternate 1,
 * pipe 1 (KS_INT_TILE .. KS_INT_PIPE). */
extern const int ks_int_defaults[4];

/* "vector_bits", "rec.tile", ... */
extern const char *const ks_param_names[KS_N_PARAMS];

/*
 * The hidden size H of the single-layer LSTM (I = H) that represents shape class cls (0 l2,
 * 1 llc, 2 dram: target.h's TK_*) on a CPU with these caches (bytes; llc <= l2 means no
 * cache beyond L2), or 0 when the machine cannot represent it within the search's limits.
 * U is 16 H^2 bytes. l2: the largest multiple of 32 with 16 H^2 <= l2 / 2 (at least 32).
 * llc: the largest multiple of 32 with 16 H^2 <= llc / 2, at most 1024, and 16 H^2 > l2
 * (else with 16 H^2 <= llc). dram: the smallest multiple of 64 with 16 H^2 >= 2 llc, at
 * most 2048.
 */
long ks_class_hidden(int cls, long long l2_bytes, long long llc_bytes);

/* One measured candidate of the state file: comparison `step` of class cls. */
typedef struct ks_rec {
    int cls, step;
    ks_params p;
    double med, lo, hi; /* median, min and max over the rounds, microseconds */
} ks_rec;

typedef struct ks_state {
    int n;
    ks_rec r[KS_MAX_RECS];
} ks_state;

/*
 * Read a state file (board.json.search) from f into st (appending):
 *   lstmc-kernel-search 4
 *   machine FINGERPRINT
 *   CLASS STEP VB RT RP RA PT PR PP RD IT IR IA IP TH MEDIAN_US MIN_US MAX_US   (one line
 *                                                                            per measurement)
 * CLASS: l2, llc, dram, or mt (the threads step: STEP is the model's hidden size).
 * Returns 1 when read, 0 when the file belongs to another machine or lstmc build (the
 * fingerprint differs: st is left empty), -1 on a malformed line; why says which (line N).
 */
int ks_state_read(FILE *f, const char *fingerprint, ks_state *st, char *why, size_t n_why);

/* The line ks_state_read reads for r, to f. */
void ks_state_write_rec(FILE *f, const ks_rec *r);

/* The search's options (profile.c's command line). */
typedef struct ks_options {
    const char *out;  /* the profile being written; the state file is out + ".search" */
    double budget_s;  /* wall-clock seconds for the whole search */
    int resume;       /* reuse out.search's measurements */
    unsigned classes; /* bit c: search class c, bit KS_MT: the threads step (test option
                         --search-classes) */
} ks_options;

/* The search's result, for the profile. */
typedef struct ks_result {
    int searched[3];     /* class c was searched, its result checked against the defaults */
    int measured[3];     /* class c's coordinate search finished at least one comparison */
    long hidden[3];      /* its representative H */
    ks_params chosen[3]; /* per class; chosen[c].v[KS_VB] is the global vector_bits */
    ks_params def[3];    /* the built-in values per class on this machine: ks_defaults, with
                            no prefetch beyond L2 on AMD Zen (codegen/llvm/kparams.c) */
    double def_us[3], best_us[3]; /* the defaults and the chosen, measured side by side; 1 and 1
                                     when the chosen are the defaults */
    /* rec.dot (a bf16 U, on a CPU with AVX-512 BF16): chosen[c].v[KS_REC_DOT] is 1 + the
     * chosen dot once class c's bf16 model was measured (0: not), against the built-in
     * default dot_default, its time and the chosen's in dot_def_us, dot_best_us */
    int dot_default; /* 2 where the CPU has vdpbf16ps, -1: no bf16 search */
    double dot_def_us[3], dot_best_us[3];
    /* the full-integer VNNI kernel (a CPU with AVX-512 VNNI): per class of its int8 U (the
     * class model whose int8 U falls in it: int_hidden), int_chosen[c] (KS_INT_TILE ..
     * KS_INT_PIPE) against ks_int_defaults, measured side by side in int_def_us, int_best_us */
    int int_search;       /* the CPU has the kernel */
    int int_searched[3];  /* class c's int kernel was searched */
    long int_hidden[3];   /* by the model of this H */
    int int_chosen[3][4]; /* tile, rows, alternate, pipe */
    double int_def_us[3], int_best_us[3];
    /* threads (search_mt, cores >= 2): one-layer LSTMs of mt_h[i] units, one thread against
     * two (mt_us1, mt_us2, medians) and whether two beat one beyond the noise (mt_win);
     * mt_min_hidden the smallest measured H from which two threads win at every larger one
     * measured (0: undetermined: not measured, or two threads lost at the largest) */
    int mt_n, mt_min_hidden;
    long mt_h[KS_MT_SIZES];
    double mt_us1[KS_MT_SIZES], mt_us2[KS_MT_SIZES];
    int mt_win[KS_MT_SIZES];
    int l1d, cores;
    long long l2, llc;
    char cpu_name[96];
} ks_result;

/* Run the search (progress on stderr, the table on stdout). 0, -1 after a message, or -2
 * when SIGINT / SIGTERM interrupted it (the state file keeps what was measured). */
int ks_run(const ks_options *o, ks_result *res);

/* The "kernels" object for res (only fields that differ from the defaults) to f, as
 * `  "kernels": {...},\n`; nothing when every class kept the defaults. */
void ks_write_kernels(FILE *f, const ks_result *res);

#endif /* LSTMC_KSEARCH_H */
