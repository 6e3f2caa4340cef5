/*
 * test_tune.c — lstmc tune's choices (compiler/tools/tune/tune.c) on hand-worked cases: N_min of
 * MICRO'18 Eq. 7, the AO / BPA picks of §VI-C, reading TUNED files (and refusing bad ones),
 * and the user-oriented controller of the runtime (runtime/src/rt_uo.c).
 */
#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "lstmc_rt_uo.h"
#include "tune.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

Test(tune, n_min_eq7)
{
    /* the paper's BABI: 86 cells, MTS 6 -> 15 tissues; MTS 5 -> 18 */
    cr_assert_eq(tune_n_min(86, 6), 15);
    cr_assert_eq(tune_n_min(86, 5), 18);
    cr_assert_eq(tune_n_min(128, 8), 16);
    cr_assert_eq(tune_n_min(7, 7), 1);
    cr_assert_eq(tune_n_min(7, 0), 7); /* unknown MTS: no tissue merges cells */
}

static tune_point
pt(double speedup, double norm_acc)
{
    tune_point p;
    memset(&p, 0, sizeof p);
    p.speedup = speedup;
    p.norm_acc = norm_acc;
    return p;
}

Test(tune, ao_and_bpa_hand_worked)
{
    /* speed-up and normalised accuracy of 11 sets, shaped like the paper's Fig. 19 */
    tune_point p[TUNE_SETS];
    int ao, bpa;
    p[0] = pt(0.98, 1.000);
    p[1] = pt(1.20, 1.000);
    p[2] = pt(1.50, 0.995);
    p[3] = pt(1.90, 0.985);
    p[4] = pt(2.40, 0.975); /* just below 0.98 */
    p[5] = pt(3.00, 0.900); /* 2.70 */
    p[6] = pt(3.60, 0.800); /* 2.88: the best product */
    p[7] = pt(4.00, 0.700); /* 2.80 */
    p[8] = pt(4.20, 0.600);
    p[9] = pt(4.30, 0.500);
    p[10] = pt(4.40, 0.400);
    tune_pick(p, TUNE_SETS, 0.98, &ao, &bpa);
    cr_assert_eq(ao, 3, "AO: the fastest set within 2 %% (got %d)", ao);
    cr_assert_eq(bpa, 6, "BPA: the highest speed-up x accuracy (got %d)", bpa);
    tune_pick(p, TUNE_SETS, 0.70, &ao, &bpa);
    cr_assert_eq(ao, 7);
}

Test(tune, exact_wins_when_no_set_is_faster)
{
    /* every approximate set slower than the exact schedule (the host's C tissue kernel):
     * both picks are the exact schedule, index -1 */
    tune_point p[3];
    int ao, bpa;
    p[0] = pt(0.08, 1.0);
    p[1] = pt(0.09, 0.99);
    p[2] = pt(0.10, 0.2);
    tune_pick(p, 3, 0.98, &ao, &bpa);
    cr_assert_eq(ao, -1);
    cr_assert_eq(bpa, -1);
}

static const char *
write_tmp(const char *name, const char *text)
{
    static char path[256];
    FILE *f;
    snprintf(path, sizeof path, "/tmp/lstmc_test_tune_%d_%s", (int)getpid(), name);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

Test(tune, load_tuned_file)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "m.onnx", stderr);
    driver_options o;
    const char *p = write_tmp("ok", "lstmc-thresholds 1\n# comment\nschedule approx\n"
                                    "alpha_inter 511.5\nalpha_intra 0.25\n"
                                    "alpha_inter_max 512\nalpha_intra_max 0.5\n"
                                    "bpa_alpha_inter 512\nbpa_alpha_intra 0.5\n"
                                    "calib x.tuned.calib\n");
    char want[300];
    memset(&o, 0, sizeof o);
    cr_assert_eq(tune_load(a, p, &o, d), 0);
    cr_assert_eq(o.has_alpha_inter, 1);
    cr_assert_eq(o.has_alpha_intra, 1); /* vary both (the default) with a row-skip range */
    cr_assert_float_eq(o.alpha_inter, 511.5f, 1e-6);
    cr_assert_float_eq(o.alpha_intra, 0.25f, 1e-6);
    cr_assert_float_eq(o.alpha_inter_max, 512.0f, 1e-6);
    cr_assert_float_eq(o.alpha_intra_max, 0.5f, 1e-6);
    snprintf(want, sizeof want, "/tmp/x.tuned.calib"); /* relative to the TUNED file */
    cr_assert_str_eq(o.calib, want);
    unlink(p);
    arena_free(a);
}

Test(tune, load_vary_intra_compiles_row_skip_only)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "m.onnx", stderr);
    driver_options o;
    const char *p = write_tmp("intra", "lstmc-thresholds 1\nvary intra\nschedule approx\n"
                                       "alpha_inter 0\nalpha_intra 0.2\nalpha_inter_max 0\n"
                                       "alpha_intra_max 0.5\ncalib c\n");
    memset(&o, 0, sizeof o);
    cr_assert_eq(tune_load(a, p, &o, d), 0);
    cr_assert_eq(o.has_alpha_inter, 0, "no breakpoints pass when tune moved alpha_intra only");
    cr_assert_eq(o.has_alpha_intra, 1);
    cr_assert_float_eq(o.alpha_intra, 0.2f, 1e-6);
    unlink(p);
    arena_free(a);
}

Test(tune, load_exact_schedule_sets_nothing_approximate)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "m.onnx", stderr);
    driver_options o;
    const char *p = write_tmp("exact", "lstmc-thresholds 1\nschedule exact\nalpha_inter 0\n"
                                       "alpha_intra 0\nalpha_inter_max 512\n");
    memset(&o, 0, sizeof o);
    cr_assert_eq(tune_load(a, p, &o, d), 0);
    cr_assert_eq(o.has_alpha_inter, 0);
    cr_assert_float_eq(o.alpha_inter_max, 512.0f, 1e-6);
    unlink(p);
    arena_free(a);
}

/* issue 24: the relevance, the forced breakpoints and tune's threads; a command line's own
 * --threads / --max-sublayer win */
Test(tune, load_relevance_window_threads)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "m.onnx", stderr);
    driver_options o;
    const char *p = write_tmp("win", "lstmc-thresholds 1\nvary inter\nschedule approx\n"
                                     "alpha_inter 0\nalpha_intra 0\nweights fp16\n"
                                     "max_sublayer 25\nrelevance sensitivity\nthreads 1\n"
                                     "calib c\n");
    memset(&o, 0, sizeof o);
    cr_assert_eq(tune_load(a, p, &o, d), 0);
    cr_assert_eq(o.has_alpha_inter, 1);
    cr_assert_eq(o.relevance, driver_relevance_parse("sensitivity"));
    cr_assert_eq(o.relevance, 2);
    cr_assert_eq(o.max_sublayer, 25);
    cr_assert_eq(o.threads, 1);
    cr_assert_str_eq(o.weights, "fp16");
    memset(&o, 0, sizeof o);
    o.threads = 2;
    o.max_sublayer = 10;
    cr_assert_eq(tune_load(a, p, &o, d), 0);
    cr_assert_eq(o.threads, 2);
    cr_assert_eq(o.max_sublayer, 10);
    unlink(p);
    /* tissues read int8 U too: a window with int8 weights loads */
    p = write_tmp("win8", "lstmc-thresholds 1\nvary inter\nschedule approx\nalpha_inter 0\n"
                          "alpha_intra 0\nweights int8\nmax_sublayer 12\ncalib c\n");
    memset(&o, 0, sizeof o);
    cr_assert_eq(tune_load(a, p, &o, d), 0);
    cr_assert_str_eq(o.weights, "int8");
    cr_assert_eq(o.max_sublayer, 12);
    unlink(p);
    arena_free(a);
}

Test(tune, load_refuses_bad_files)
{
    static const char *bad[] = {
        "",                                                     /* empty */
        "lstmc-calib 1\n",                                      /* another format */
        "lstmc-thresholds 1\nschedule approx\nalpha_inter 1\n", /* no alpha_intra */
        "lstmc-thresholds 1\nschedule maybe\nalpha_inter 1\nalpha_intra 0\n",
        "lstmc-thresholds 1\nschedule approx\nalpha_inter -1\nalpha_intra 0\n",
        "lstmc-thresholds 1\nschedule approx\nalpha_inter nan\nalpha_intra 0\n",
        "lstmc-thresholds 1\nschedule approx\nalpha_inter 1x\nalpha_intra 0\n",
        "lstmc-thresholds 1\nschedule approx\nalpha_inter 1\nalpha_intra 0\nspeed 9\n",
        "lstmc-thresholds 1\nschedule\n",
        "lstmc-thresholds 1\nvary sideways\nschedule approx\nalpha_inter 1\nalpha_intra 0\n",
        "lstmc-thresholds 1\nschedule approx\nalpha_inter 1\nalpha_intra 0\nrelevance best\n",
        "lstmc-thresholds 1\nschedule approx\nalpha_inter 1\nalpha_intra 0\nmax_sublayer 0\n",
        "lstmc-thresholds 1\nschedule approx\nalpha_inter 1\nalpha_intra 0\nthreads 17\n",
        "lstmc-thresholds 1\nschedule approx\nalpha_inter 1\nalpha_intra 0\nthreads 2x\n",
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        arena *a = arena_new(0);
        FILE *sink = fopen("/dev/null", "w");
        diag *d = diag_new(a, "m.onnx", sink);
        driver_options o;
        const char *p = write_tmp("bad", bad[i]);
        memset(&o, 0, sizeof o);
        cr_assert_eq(tune_load(a, p, &o, d), -1, "bad file %zu accepted", i);
        cr_assert_gt(diag_count(d), 0);
        unlink(p);
        fclose(sink);
        arena_free(a);
    }
}

Test(tune, uo_controller_hand_worked)
{
    lstmc_rt_uo uo;
    float ai = -1, aa = -1;
    lstmc_rt_uo_init(&uo, 500.0f, 0.4f, 0.0f);
    lstmc_rt_uo_feedback(&uo, 1, &ai, &aa); /* level 0.1 */
    cr_assert_float_eq(ai, 50.0f, 1e-4);
    cr_assert_float_eq(aa, 0.04f, 1e-6);
    lstmc_rt_uo_feedback(&uo, 1, &ai, &aa); /* 0.2 */
    lstmc_rt_uo_feedback(&uo, 1, &ai, &aa); /* 0.3 */
    cr_assert_float_eq(ai, 150.0f, 1e-3);
    lstmc_rt_uo_feedback(&uo, 0, &ai, &aa); /* rejected: 0.1 */
    cr_assert_float_eq(ai, 50.0f, 1e-3);
    lstmc_rt_uo_feedback(&uo, 0, &ai, &aa); /* 0 (clamped, not -0.1) */
    cr_assert_eq(ai, 0.0f);
    cr_assert_eq(aa, 0.0f);
    lstmc_rt_uo_init(&uo, 500.0f, NAN, 5.0f); /* level clamped to 1, NaN max -> 0 */
    lstmc_rt_uo_feedback(&uo, 1, &ai, &aa);
    cr_assert_float_eq(ai, 500.0f, 1e-3);
    cr_assert_eq(aa, 0.0f);
}
