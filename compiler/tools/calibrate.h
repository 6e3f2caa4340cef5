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
 *         Y_c of each one-step call is taken; its Y_h is checked against Y).
 * With equal weights per cell this expectation is Eq. 6's sum_i h_j(i) * rho_ij.
 *
 * CALIB file (text, UTF-8, '\n' lines):
 *   lstmc-calib 1
 *   layer D H CELLS NAME          NAME: the RnnRec node name (rest of the line), D: directions,
 *                                 H: hidden size, CELLS: cells averaged (K * T * batch)
 *   h DIR v_0 ... v_{H-1}         one line per direction, DIR = 0 .. D-1 (%.9g floats)
 *   c DIR v_0 ... v_{H-1}
 *   ...more layer blocks...
 * Lines starting with '#' and blank lines are ignored. Every layer block must have one h
 * and one c line per direction; values must be finite.
 */
#ifndef LSTMC_CALIBRATE_H
#define LSTMC_CALIBRATE_H

#include <stdint.h>

typedef struct arena arena;
typedef struct diag diag;
typedef struct driver_options driver_options;

typedef struct calib_layer {
    const char *name;
    int64_t n_dirs, hidden, cells;
    float *h; /* [n_dirs, hidden] */
    float *c; /* [n_dirs, hidden] */
    int used; /* set by the breakpoints pass when a layer takes it */
} calib_layer;

typedef struct calib_table {
    int n;
    calib_layer *layers;
} calib_table;

/* Run the model of o over data (a .npy, [K, ...input shape]) and write the CALIB file out.
 * Returns 0, or -1 after reporting through d. */
int calibrate_run(arena *a, const driver_options *o, const char *data, const char *out,
                  diag *d);

/* What calibrate_run_summary also tells (lstmc tune sizes its threshold range from it). */
typedef struct calib_summary {
    int n_layers;     /* LSTM layers calibrated */
    int64_t seq_len;  /* T of the first layer (N_origin of MICRO'18 Eq. 7) */
    int64_t hidden;   /* the smallest hidden size of the layers */
    float s_max;      /* the largest relevance S of any link seen (Algorithm 2) */
    float s_pct[101]; /* percentiles 0..100 of S over the links of every layer */
} calib_summary;

/* calibrate_run, filling *s as well. */
int calibrate_run_summary(arena *a, const driver_options *o, const char *data, const char *out,
                          calib_summary *s, diag *d);

/* Read a CALIB file into *t (all in a). Returns 0, or -1 after reporting through d (the
 * file, the line and what is wrong). */
int calib_read(arena *a, const char *path, calib_table *t, diag *d);

/* The layer called name, or NULL. */
calib_layer *calib_find(const calib_table *t, const char *name);

#endif /* LSTMC_CALIBRATE_H */
