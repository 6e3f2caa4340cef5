/*
 * tuned.h — the TUNED file: the thresholds (and weights format) `lstmc tune` chose
 * (MICRO'18 §IV-D, §VI-C), read back by lstmc --thresholds=TUNED.
 *
 * TUNED (text, written last, atomically):
 *   lstmc-thresholds 1
 *   vary both|inter|intra        which thresholds tune moved (the passes compiled in)
 *   schedule approx|exact        exact: the AO choice is the exact schedule
 *   alpha_inter X                the AO thresholds (what --thresholds=TUNED embeds)
 *   alpha_intra Y
 *   alpha_inter_max X            the tuned range (upper limits; the UO scheme's bounds)
 *   alpha_intra_max Y
 *   bpa_alpha_inter X
 *   bpa_alpha_intra Y
 *   weights FMT                  the AO choice's weights format (fp32 when absent)
 *   bpa_weights FMT
 *   calib FILE                   the predicted context link, relative to TUNED's folder
 *   relevance R                  --relevance of the approximate schedule: bound, calibrated
 *                                or sensitivity (bound when absent)
 *   threads N                    tune's --threads (unless --threads is given)
 *   max_sublayer L               AO's --max-sublayer (forced breakpoints), when it has one
 * '#' lines are comments.
 */
#ifndef LSTMC_TUNED_H
#define LSTMC_TUNED_H

typedef struct arena arena;
typedef struct diag diag;
typedef struct driver_options driver_options;

#define TUNED_MAGIC "lstmc-thresholds 1"

/* Read TUNED into o: alpha_inter/alpha_intra (and has_alpha_inter when the schedule is
 * approx), the calib path (unless o->calib is set), the weights format (unless o->weights is
 * set) and the tuned range. Returns 0, or -1
 * after reporting through d. Strings are allocated in a. */
int tune_load(arena *a, const char *path, driver_options *o, diag *d);

#endif /* LSTMC_TUNED_H */
