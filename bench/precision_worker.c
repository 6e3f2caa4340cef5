/*
 * precision_worker.c — the bench/compare worker (worker.h) for a library compiled with
 * --weights-placement=pointer (bench/precision.py, issue 12): the weights are read from
 * m_weights.bin at start-up rather than compiled in as C, so the large configurations build in
 * seconds in every format.
 *
 *   precision_worker X.bin m_weights.bin
 */
#include <stdint.h>

#include "m.h"
#include "worker.h"

typedef struct pw {
    m_ctx ctx;
    const void *in[1];
    void *out[1];
} pw;

static int
pw_run(void *self)
{
    pw *w = self;
    return m_run(&w->ctx, w->in, w->out) == LSTMC_RT_OK ? 0 : -1;
}

int
main(int argc, char **argv)
{
    static unsigned char arena[M_ARENA_SIZE + LSTMC_RT_ALIGN];
    static float y[M_OUTPUT_0_NUMEL];
    unsigned char *a = arena;
    void *weights;
    pw w;
    if (argc != 3) {
        fprintf(stderr, "usage: precision_worker X.bin m_weights.bin\n");
        return 2;
    }
    while ((size_t)a % LSTMC_RT_ALIGN)
        a++;
    weights = aligned_alloc(LSTMC_RT_ALIGN, (M_WEIGHTS_SIZE + LSTMC_RT_ALIGN - 1) /
                                                LSTMC_RT_ALIGN * LSTMC_RT_ALIGN);
    if (!weights) {
        fprintf(stderr, "precision_worker: out of memory\n");
        return 1;
    }
    memcpy(weights, worker_read_file(argv[2], M_WEIGHTS_SIZE), M_WEIGHTS_SIZE);
    if (m_init(&w.ctx, a, M_ARENA_SIZE) != LSTMC_RT_OK ||
        m_set_weights(&w.ctx, weights, M_WEIGHTS_SIZE) != LSTMC_RT_OK) {
        fprintf(stderr, "precision_worker: m_init / m_set_weights failed\n");
        return 1;
    }
    w.in[0] = worker_read_file(argv[1], M_INPUT_0_NUMEL * sizeof(float));
    w.out[0] = y;
    return worker_loop(pw_run, &w, y, sizeof y);
}
