/*
 * calibrate.h — `lstmc calibrate`: the predicted context link of MICRO'18 §IV-B (Eq. 6).
 *
 * calibrate_run runs the exact model (the target's default passes, evaluated in-process with
 * ir_eval) over K calibration samples stacked on the leading axis of a .npy file and
 * writes, for every LSTM layer (lstmc.RnnRec node, cell 0) and direction, the per-element
 * expectation over every cell of every sample of
 *   h_t  (read from the layer's Y output), and
 *   c_t  (the cell state after every step: Y only holds h, so the layer's time loop is run
 *         again one step at a time with the same runtime kernel, lstmc_rt_rnn_rec, and the
 *         Y_c of each one-step call is taken; its Y_h is checked against Y),
 * and, per gate row r and direction, the mean of u = U_r h_{t-1} over every link (t >= 1)
 * and the 0.99 quantile of |u - mean| (over all links, or a fixed-seed reservoir of them
 * when they exceed 2^23 floats of u and P rows): the calibrated bound of
 * --relevance=calibrated (docs/TUNING.md "The relevance").
 * With equal weights per cell this expectation is Eq. 6's sum_i h_j(i) * rho_ij.
 *
 * The CALIB file it writes is described in calib.h.
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder uses only the
 * driver's API (driver.h), cli's helpers and, read-only, ir.h, kprog.h, memplan.h,
 * target.h, formats/ and the runtime's headers; never passes.h or codegen internals.
 */
#ifndef LSTMC_CALIBRATE_H
#define LSTMC_CALIBRATE_H

#include <stdint.h>

#include "calib.h"

typedef struct arena arena;
typedef struct diag diag;
typedef struct driver_options driver_options;

/* Run the model of o over data (a .npy, [K, ...input shape]) and write the CALIB file out.
 * Returns 0, or -1 after reporting through d. */
int calibrate_run(arena *a, const driver_options *o, const char *data, const char *out,
                  diag *d);

/* What calibrate_run_summary also tells (lstmc tune sizes its threshold range from it). */
typedef struct calib_summary {
    int n_layers;     /* LSTM layers calibrated */
    int64_t seq_len;  /* T of the first layer (N_origin of MICRO'18 Eq. 7) */
    int64_t hidden;   /* the smallest hidden size of the layers */
    /* per --relevance (lstmc_rt_relevance: bound, calibrated, sensitivity), the largest S of
     * any link seen and the percentiles 0..100 of S over the links of every layer; the
     * calibrated two only when has_cal */
    float s_max_rel[3], s_pct_rel[3][101];
    int has_cal;
} calib_summary;

/* calibrate_run, filling *s as well. */
int calibrate_run_summary(arena *a, const driver_options *o, const char *data, const char *out,
                          calib_summary *s, diag *d);

#endif /* LSTMC_CALIBRATE_H */
