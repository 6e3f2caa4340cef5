/*
 * lstmc_rt_uo.h — the user-oriented scheme (UO) of MICRO'18 §VI-E: the application moves the
 * approximation thresholds per execution from its own signal, here whether the user
 * accepted the last result, inside the range `lstmc tune` measured (the generated
 * NAME_ALPHA_INTER_MAX / NAME_ALPHA_INTRA_MAX of a library compiled with --thresholds).
 *
 * The controller keeps a level in [0, 1] along the tuned range: thresholds = level x max.
 * An accepted result raises the level by `up` (a little faster next time); a rejected one
 * lowers it by `down` (back towards exact, faster than it went up, so a user who notices the
 * loss gets accuracy back within a few runs). Freestanding C, no allocation.
 *
 *   lstmc_rt_uo uo;
 *   float ai, aa;
 *   lstmc_rt_uo_init(&uo, NAME_ALPHA_INTER_MAX, NAME_ALPHA_INTRA_MAX, 0.0f);
 *   for (;;) {
 *       NAME_run(&ctx, in, out);
 *       int ok = show_and_ask_user(out);        // the application's own signal
 *       lstmc_rt_uo_feedback(&uo, ok, &ai, &aa);
 *       NAME_set_thresholds(&ctx, ai, aa);
 *   }
 */
#ifndef LSTMC_RT_UO_H
#define LSTMC_RT_UO_H

typedef struct lstmc_rt_uo {
    float inter_max, intra_max; /* the tuned range (upper limits; lower limits are 0) */
    float level;                /* 0 = exact .. 1 = the most aggressive tuned set */
    float up, down;             /* level steps after an accepted / a rejected result */
} lstmc_rt_uo;

/* Steps of the default controller: one of lstmc tune's 11 sets up, two down. */
#define LSTMC_RT_UO_UP 0.1f
#define LSTMC_RT_UO_DOWN 0.2f

/* Start at level (clamped to [0, 1]) with the default steps. Negative or NaN maxima count
 * as 0 (that threshold stays exact). */
void lstmc_rt_uo_init(lstmc_rt_uo *uo, float inter_max, float intra_max, float level);

/* The user accepted (accepted != 0) or rejected the last result: move the level and write
 * the thresholds for the next run (for NAME_set_thresholds). */
void lstmc_rt_uo_feedback(lstmc_rt_uo *uo, int accepted, float *alpha_inter,
                          float *alpha_intra);

#endif /* LSTMC_RT_UO_H */
