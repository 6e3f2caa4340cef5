/*
 * calib.h — the CALIB file: h_pred / c_pred of MICRO'18 §IV-B (Eq. 6) per LSTM layer and
 * direction, as lstmc calibrate writes it (calibrate.h) and the breakpoints pass reads it.
 *
 * CALIB file (text, UTF-8, '\n' lines):
 *   lstmc-calib 1
 *   layer D H CELLS NAME          NAME: the RnnRec node name (rest of the line), D: directions,
 *                                 H: hidden size, CELLS: cells averaged (K * T * batch)
 *   h DIR v_0 ... v_{H-1}         one line per direction, DIR = 0 .. D-1 (%.9g floats)
 *   c DIR v_0 ... v_{H-1}
 *   um DIR v_0 ... v_{4H-1}       optional (lstmc-calib 2): per gate row of U (the kernels'
 *   ur DIR v_0 ... v_{4H-1}       order i, o, f, c), the mean m of U_r h_{t-1} over every link
 *                                 and the 0.99 quantile of |U_r h_{t-1} - m| (>= 0): the
 *                                 calibrated bound of --relevance=calibrated
 *   ...more layer blocks...
 * Lines starting with '#' and blank lines are ignored. Every layer block must have one h
 * and one c line per direction, and um and ur lines for every direction or for none;
 * values must be finite. Files headed 'lstmc-calib 1' (no um/ur) are read too.
 */
#ifndef LSTMC_CALIB_H
#define LSTMC_CALIB_H

#include <stdint.h>

typedef struct arena arena;
typedef struct diag diag;

#define CALIB_MAGIC "lstmc-calib 2"
#define CALIB_MAGIC_1 "lstmc-calib 1" /* without um / ur; still read */

typedef struct calib_layer {
    const char *name;
    int64_t n_dirs, hidden, cells;
    float *h; /* [n_dirs, hidden] */
    float *c; /* [n_dirs, hidden] */
    float *um, *ur; /* [n_dirs, 4 * hidden]: U h's mean and radius per gate row, or NULL */
} calib_layer;

typedef struct calib_table {
    int n;
    calib_layer *layers;
} calib_table;

/* Read a CALIB file into *t (all in a). Returns 0, or -1 after reporting through d (the
 * file, the line and what is wrong). */
int calib_read(arena *a, const char *path, calib_table *t, diag *d);

/* The layer called name, or NULL. */
calib_layer *calib_find(const calib_table *t, const char *name);

#endif /* LSTMC_CALIB_H */
