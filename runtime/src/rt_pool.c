/*
 * rt_pool.c — the worker threads of the multi-core LLVM recurrent kernels (issue 4).
 *
 * A generated library compiled with --threads=N (N > 1) starts N - 1 workers in <name>_init
 * (lstmc_rt_pool_start), never in the run path; a kernel then runs its N slices with
 * lstmc_rt_pool_run, slice t on thread t (the caller is thread 0), and the slices meet at
 * lstmc_rt_pool_barrier once per time step. Each slice is a fixed block of hidden units, so a
 * thread reads the same rows of U at every step and keeps them in its own core's L2 (the CPU
 * analogue of persistent RNN kernels).
 *
 * Everything is static storage: no malloc. Between runs the workers spin a little, then sleep
 * on a condition variable (a pool must not burn a core while the application does something
 * else). The barrier spins and yields the CPU after a while, so an oversubscribed machine
 * still makes progress.
 *
 * Built without LSTMC_RT_THREADS (the default: bare-metal targets have no pthreads) the pool
 * has one thread: lstmc_rt_pool_run runs all slices in order on the caller, which the kernels
 * allow (the hidden state is double-buffered, so the slices of one step are independent),
 * and the barrier does nothing. The same happens when the pool could not start its workers.
 * One run at a time: the pool is not for concurrent calls from several application threads.
 *
 * A wavefront kernel (compiler/kprog/schedule.c) runs one pipeline stage per thread instead of slices,
 * and its stages meet through per-stage step counters (lstmc_rt_wave_*) once per chunk of
 * time steps rather than at a barrier once per step.
 */
#ifdef LSTMC_RT_THREADS
#define _POSIX_C_SOURCE 200809L /* pthreads and sched_yield under -std=c99 */
#endif

#include "lstmc_rt_kernels.h"

#ifdef LSTMC_RT_THREADS

#include <pthread.h>
#include <sched.h>

#define POOL_SPIN 1024 /* polls before a waiting thread yields or sleeps */

static struct {
    int n; /* threads taking part, caller included; 0: not started */
    pthread_t th[LSTMC_RT_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    lstmc_rt_pool_job fn; /* the current job */
    void *ctx;
    unsigned gen;  /* job generation: a worker runs a job when it changes */
    int left;      /* workers still busy with the current job */
    int active;    /* a job is running on all threads: the barrier is real */
    int bcount;    /* barrier arrivals */
    unsigned bgen; /* barrier generation */
} pool = {0, {0}, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0, 0};

/* One poll of a wait: pause for POOL_SPIN polls (the other slices of a step finish within
 * microseconds of each other), then give the CPU away at every poll (the thread waited on is
 * not running: an oversubscribed machine). */
static void
relax(int *spins)
{
    if (*spins >= POOL_SPIN) {
        sched_yield();
    } else {
        ++*spins;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

static void *
worker(void *arg)
{
    const int tid = (int)(intptr_t)arg;
    unsigned seen = 0;

    for (;;) {
        int spins = 0;
        unsigned g;
        while ((g = __atomic_load_n(&pool.gen, __ATOMIC_ACQUIRE)) == seen && spins < POOL_SPIN) {
            spins++;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        if (g == seen) {
            pthread_mutex_lock(&pool.mu);
            while ((g = __atomic_load_n(&pool.gen, __ATOMIC_ACQUIRE)) == seen)
                pthread_cond_wait(&pool.cv, &pool.mu);
            pthread_mutex_unlock(&pool.mu);
        }
        seen = g;
        pool.fn(pool.ctx, tid, tid + 1);
        __atomic_sub_fetch(&pool.left, 1, __ATOMIC_ACQ_REL);
    }
    return NULL;
}

int
lstmc_rt_pool_start(int n)
{
    int i;

    if (n > LSTMC_RT_MAX_THREADS)
        n = LSTMC_RT_MAX_THREADS;
    if (pool.n > 0 || n <= 1) /* already running (a second context): keep it */
        return pool.n > 0 ? pool.n : 1;
    for (i = 1; i < n; i++)
        if (pthread_create(&pool.th[i], NULL, worker, (void *)(intptr_t)i) != 0)
            break; /* fewer threads than asked: the kernels then run serially */
    pool.n = i;
    return pool.n;
}

int
lstmc_rt_pool_threads(void)
{
    return pool.n > 0 ? pool.n : 1;
}

void
lstmc_rt_pool_run(lstmc_rt_pool_job fn, void *ctx, int n)
{
    int spins = 0;

    if (n <= 1 || pool.n != n) {
        fn(ctx, 0, n < 1 ? 1 : n);
        return;
    }
    pool.fn = fn;
    pool.ctx = ctx;
    pool.left = n - 1;
    pool.bcount = 0;
    __atomic_store_n(&pool.active, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&pool.mu);
    __atomic_add_fetch(&pool.gen, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool.cv);
    pthread_mutex_unlock(&pool.mu);
    fn(ctx, 0, 1);
    while (__atomic_load_n(&pool.left, __ATOMIC_ACQUIRE) > 0)
        relax(&spins);
    __atomic_store_n(&pool.active, 0, __ATOMIC_RELAXED);
}

void
lstmc_rt_pool_barrier(void)
{
    unsigned g;
    int spins = 0;

    if (!__atomic_load_n(&pool.active, __ATOMIC_RELAXED))
        return;
    g = __atomic_load_n(&pool.bgen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&pool.bcount, 1, __ATOMIC_ACQ_REL) == pool.n) {
        __atomic_store_n(&pool.bcount, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&pool.bgen, g + 1, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&pool.bgen, __ATOMIC_ACQUIRE) == g)
        relax(&spins);
}

/* Steps completed by each wavefront stage, one cache line each (the stages poll them from
 * different cores). A stage that has waited POOL_SPIN polls sleeps on wave_cv instead of
 * yielding: on a machine whose cores are taken, a stage whose predecessor is not running
 * gives its core away until the predecessor posts (wave_sleepers says whether anyone needs
 * the signal, so a post costs a syscall only then). */
static struct {
    int64_t steps;
    char pad[64 - sizeof(int64_t)];
} wave_done[LSTMC_RT_MAX_THREADS];
static int wave_sleepers;
static pthread_mutex_t wave_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wave_cv = PTHREAD_COND_INITIALIZER;

void
lstmc_rt_wave_reset(void)
{
    int q;
    for (q = 0; q < LSTMC_RT_MAX_THREADS; q++)
        __atomic_store_n(&wave_done[q].steps, 0, __ATOMIC_RELAXED);
}

void
lstmc_rt_wave_post(int stage, int64_t steps)
{
    /* sequentially consistent with the sleeper count: either a stage about to sleep sees
     * these steps, or this post sees the sleeper and wakes it */
    __atomic_store_n(&wave_done[stage].steps, steps, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&wave_sleepers, __ATOMIC_SEQ_CST) > 0) {
        pthread_mutex_lock(&wave_mu);
        pthread_cond_broadcast(&wave_cv);
        pthread_mutex_unlock(&wave_mu);
    }
}

void
lstmc_rt_wave_wait(int stage, int64_t steps)
{
    int spins;
    for (spins = 0; spins < POOL_SPIN; spins++) {
        if (__atomic_load_n(&wave_done[stage].steps, __ATOMIC_ACQUIRE) >= steps)
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&wave_mu);
    __atomic_add_fetch(&wave_sleepers, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&wave_done[stage].steps, __ATOMIC_SEQ_CST) < steps)
        pthread_cond_wait(&wave_cv, &wave_mu);
    __atomic_sub_fetch(&wave_sleepers, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&wave_mu);
}

#else /* !LSTMC_RT_THREADS: one thread */

void
lstmc_rt_wave_reset(void)
{
}

void
lstmc_rt_wave_post(int stage, int64_t steps)
{
    (void)stage;
    (void)steps;
}

void
lstmc_rt_wave_wait(int stage, int64_t steps)
{
    (void)stage;
    (void)steps;
}

int
lstmc_rt_pool_start(int n)
{
    (void)n;
    return 1;
}

int
lstmc_rt_pool_threads(void)
{
    return 1;
}

void
lstmc_rt_pool_run(lstmc_rt_pool_job fn, void *ctx, int n)
{
    fn(ctx, 0, n < 1 ? 1 : n);
}

void
lstmc_rt_pool_barrier(void)
{
}

#endif
