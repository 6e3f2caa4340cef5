/*
 * test_rt_pool.c — the worker pool of the multi-core kernels (runtime/src/rt_pool.c), built
 * here with LSTMC_RT_THREADS as a generated library with --threads builds it: slices on
 * distinct threads, the barrier's ordering of writes between steps, and the serial fallback
 * (all slices in order on the caller) before the pool starts and for a slice count the pool
 * does not have; the wavefront hand-over (lstmc_rt_wave_*) between pipeline stages.
 * tests/e2e/tsan.sh runs this file under ThreadSanitizer too.
 */
#define LSTMC_RT_THREADS
#include "../../runtime/src/rt_pool.c"

#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#define STEPS 2000

typedef struct job {
    int calls, first[4], end[4];
    pthread_t who[4];
    volatile int value[2]; /* slice t writes value[t] at every step */
    int bad;               /* steps where a slice saw the other's value of another step */
    pthread_mutex_t mu;
} job;

static void
record(void *ctx, int first, int end)
{
    job *j = ctx;
    pthread_mutex_lock(&j->mu);
    if (j->calls < 4) {
        j->first[j->calls] = first;
        j->end[j->calls] = end;
        j->who[j->calls] = pthread_self();
    }
    j->calls++;
    pthread_mutex_unlock(&j->mu);
}

/* Two slices in lockstep: write my step, barrier, read the other's (must be this step),
 * barrier (so nobody writes the next step before both have read). */
static void
lockstep(void *ctx, int first, int end)
{
    job *j = ctx;
    int s, bad = 0;
    record(ctx, first, end);
    if (end - first != 1)
        return;
    for (s = 0; s < STEPS; s++) {
        j->value[first] = s;
        lstmc_rt_pool_barrier();
        if (j->value[1 - first] != s)
            bad++;
        lstmc_rt_pool_barrier();
    }
    pthread_mutex_lock(&j->mu);
    j->bad += bad;
    pthread_mutex_unlock(&j->mu);
}

static job J = {.mu = PTHREAD_MUTEX_INITIALIZER};

Test(rt_pool, serial_before_start_then_parallel)
{
    /* not started: one call, all slices, on the caller */
    cr_assert_eq(lstmc_rt_pool_threads(), 1);
    lstmc_rt_pool_run(record, &J, 2);
    cr_assert_eq(J.calls, 1);
    cr_assert_eq(J.first[0], 0);
    cr_assert_eq(J.end[0], 2);
    cr_assert(pthread_equal(J.who[0], pthread_self()));
    lstmc_rt_pool_barrier(); /* no job running: returns at once */

    cr_assert_eq(lstmc_rt_pool_start(2), 2);
    cr_assert_eq(lstmc_rt_pool_start(4), 2, "a started pool keeps its threads");
    cr_assert_eq(lstmc_rt_pool_threads(), 2);

    /* two slices on two threads, STEPS barriers each, twice (the workers sleep in between) */
    J.calls = 0;
    lstmc_rt_pool_run(lockstep, &J, 2);
    lstmc_rt_pool_run(lockstep, &J, 2);
    cr_assert_eq(J.calls, 4);
    cr_assert_eq(J.bad, 0, "%d steps saw the other slice's value of another step", J.bad);
    cr_assert(J.end[0] - J.first[0] == 1 && J.end[1] - J.first[1] == 1);
    cr_assert_neq(J.first[0], J.first[1], "both slices ran");
    cr_assert(!pthread_equal(J.who[0], J.who[1]), "the slices ran on different threads");

    /* three slices on a pool of two: serial on the caller, barriers do nothing */
    J.calls = 0;
    lstmc_rt_pool_run(lockstep, &J, 3);
    cr_assert_eq(J.calls, 1);
    cr_assert_eq(J.first[0], 0);
    cr_assert_eq(J.end[0], 3);
    cr_assert(pthread_equal(J.who[0], pthread_self()));
}

/* --- the wavefront hand-over (lstmc_rt_wave_*) ----------------------------------------- */

#define WSTEPS 3001 /* not a multiple of WCHUNK: a short last chunk */
#define WCHUNK 8
#define WSTAGES 3

static int wdata[WSTAGES][WSTEPS];

/* Stage q computes step t from step t of stage q - 1, a chunk at a time, as a wavefront
 * kernel does: wait for the chunk of the stage before, compute it, post it. */
static void
pipeline(void *ctx, int first, int end)
{
    int q, t0, t;
    (void)ctx;
    for (q = first; q < end; q++)
        for (t0 = 0; t0 < WSTEPS; t0 += WCHUNK) {
            int t1 = t0 + WCHUNK < WSTEPS ? t0 + WCHUNK : WSTEPS;
            if (q > 0)
                lstmc_rt_wave_wait(q - 1, t1);
            for (t = t0; t < t1; t++)
                wdata[q][t] = (q ? wdata[q - 1][t] : t) * 3 + 1;
            lstmc_rt_wave_post(q, t1);
        }
}

static int
pipeline_bad(int stages)
{
    int t, bad = 0;
    for (t = 0; t < WSTEPS; t++) {
        int want = t, q;
        for (q = 0; q < stages; q++)
            want = want * 3 + 1;
        bad += wdata[stages - 1][t] != want;
    }
    return bad;
}

Test(rt_pool, wavefront_hand_over)
{
    int rep;
    cr_assert_eq(lstmc_rt_pool_start(WSTAGES), WSTAGES);
    for (rep = 0; rep < 20; rep++) { /* stage q on thread q: each sees the chunks posted */
        memset(wdata, 0, sizeof wdata);
        lstmc_rt_wave_reset();
        lstmc_rt_pool_run(pipeline, NULL, WSTAGES);
        cr_assert_eq(pipeline_bad(WSTAGES), 0, "run %d: a stage read a chunk before it was posted",
                     rep);
    }
    /* more stages than threads: serial, in order, on the caller; no wait blocks */
    memset(wdata, 0, sizeof wdata);
    lstmc_rt_wave_reset();
    lstmc_rt_pool_run(pipeline, NULL, 2);
    cr_assert_eq(pipeline_bad(2), 0);
}
