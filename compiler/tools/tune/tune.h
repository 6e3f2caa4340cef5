/*
 * tune.h — `lstmc tune`: the accuracy–performance dial of MICRO'18 §IV-D and §VI-C.
 *
 *   lstmc tune MODEL.onnx --data X.npy [--labels Y.npy] --accuracy A -o TUNED [options]
 *
 * The paper's offline steps, on the user's data: the MTS from the target profile;
 * N_min = ceil(N_origin / MTS) (Eq. 7); the alpha_inter upper limit, the smallest alpha_inter
 * at which the model equipped with the optimisations runs N_min tissues per layer; the
 * alpha_intra range; then 11 threshold sets, set i = (i/10 of each upper limit), each
 * measured for accuracy and speed. AO (accuracy oriented) is the fastest set whose accuracy
 * is at least A times the exact model's; BPA (best performance-accuracy) the set with the
 * highest speed-up x normalised accuracy. The exact schedule itself is a candidate for both,
 * so a set is only chosen when it is really faster. Everything is reported on held-out
 * samples the tuning did not see. With --weights=LIST the search also takes the exact
 * schedule with its weights stored in each listed format (issue 12, docs/PRECISION.md): those
 * candidates are scored and timed like the sets, so a format is chosen only when it is faster
 * and keeps the accuracy. docs/TUNING.md has the whole story.
 *
 * The TUNED file it writes is described in tuned.h, beside it TUNED.calib, TUNED.svg (the
 * Fig. 19 style plot) and TUNED.txt (the table printed on stdout).
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder uses only the
 * driver's API (driver.h), cli's helpers and, read-only, ir.h, kprog.h, memplan.h,
 * target.h, formats/ and the runtime's headers; never passes.h or codegen internals.
 */
#ifndef LSTMC_TUNE_H
#define LSTMC_TUNE_H

#include "tuned.h"

typedef struct arena arena;
typedef struct diag diag;
typedef struct driver_options driver_options;

#define TUNE_SETS    11
#define TUNE_WINDOWS 4 /* forced-breakpoint points: sub-layers of at most T/2, T/4, T/6, T/8 */
/* the windows' and sets' variants beside fp32: fp16 and int8 weights, int8 and int16 layers */
#define TUNE_VARIANTS    4
#define TUNE_MAX_THREADS 16 /* thread counts the search tries at most (1..cores) */
/* the fp32 sets, fp16, bf16, int8, act-int8, act-int16, the windows and the sets in fp32 and
 * in each variant */
#define TUNE_MAX_POINTS                                                                            \
    (TUNE_SETS + 5 + (1 + TUNE_VARIANTS) * TUNE_WINDOWS + TUNE_VARIANTS * TUNE_SETS)

/* One measured threshold set. */
typedef struct tune_point {
    double alpha_inter, alpha_intra;
    double us;       /* median microseconds per inference */
    double speedup;  /* the exact schedule's time / us (or the model's estimate) */
    double accuracy; /* against the labels, or agreement with the exact model */
    double norm_acc; /* accuracy / the exact model's accuracy */
    double tissues;  /* tissues per layer, mean over samples */
    double skipped;  /* fraction of recurrent rows skipped (dynamic row skip), 0..1 */
    int wfmt;        /* the weights' storage format (compiler/formats/wfmt.h); not fp32 only for the
                        exact-schedule candidates of --weights */
    int act;         /* 8 or 16: the full-integer layers of --weights=act-int8|act-int16
                        (issue 22, int8 weights); 0: float activations */
    int max_run;     /* > 0: the approximate schedule at alpha 0 with --max-sublayer=max_run
                        (issue 24: forced breakpoints at the lowest-S links) */
    int set;         /* 1 + k: threshold set k (alpha_inter, alpha_intra) of the approximate
                        schedule with wfmt weights (issue 24: tissues and row skip read them),
                        in int<act> layers when act; 0 otherwise (the fp32 sets are points
                        0 .. TUNE_SETS - 1) */
} tune_point;

/*
 * AO and BPA over p[0..n-1] (MICRO'18 §VI-C). The exact schedule counts as a candidate with
 * speed-up 1 and normalised accuracy 1; it is index -1. AO: the highest speed-up among the
 * points with norm_acc >= pref (ties: the lower index); BPA: the highest speedup * norm_acc
 * (ties: the lower index).
 */
void tune_pick(const tune_point *p, int n, double pref, int *ao, int *bpa);

/* N_min of Eq. 7: ceil(n_origin / mts); mts < 1 counts as 1. */
long long tune_n_min(long long n_origin, int mts);

/*
 * The user-oriented scheme's step (see lstmc_rt_uo.h for the runtime side) lives in the
 * runtime; the compiler side is only the tuned range in TUNED.
 */

/*
 * Build the library lstmc generated into dir (prefix m) with make (its output to make_out, a
 * file, or NULL: this process's), then the measuring harness beside it (dir/harness:
 * compiler/tools/tune/harness.c with -DN_LAYERS=n_layers, -DBASELINE when baseline) with the
 * C compiler cc_path. 0; -1 make failed, -2 the harness source could not be written, -3 cc
 * failed. `lstmc tune` and `lstmc profile --search` (ksearch.c) time their candidates with it.
 */
int tune_build_harness(const char *cc_path, const char *dir, long long n_layers, int baseline,
                       const char *make_out);

/* `lstmc tune ...` (argv[0] is "tune"). Returns the exit status. */
int tune_main(int argc, char **argv);

#endif /* LSTMC_TUNE_H */
