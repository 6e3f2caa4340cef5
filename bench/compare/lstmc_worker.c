/*
 * lstmc_worker.c — times the library lstmc generated for one model, in process: m_init once,
 * then m_run per timed call (see worker.h for the protocol).
 *
 *   cc -O2 -I OUT -I OUT/runtime/include lstmc_worker.c OUT/libm.a -lm -o lstmc_worker
 *   lstmc_worker X.bin          (X: raw float32 [T, 1, I], the model's only input)
 *
 * The model must be compiled with --name=m (compare.py does this for every configuration).
 */
#include "m.h"
#include "worker.h"

typedef struct lw {
    m_ctx ctx;
    const void *in[1];
    void *out[1];
} lw;

static int
lw_run(void *self)
{
    lw *w = self;
    return m_run(&w->ctx, w->in, w->out) == LSTMC_RT_OK ? 0 : -1;
}

int
main(int argc, char **argv)
{
    static unsigned char arena[M_ARENA_SIZE + LSTMC_RT_ALIGN];
    static float y[M_OUTPUT_0_NUMEL];
    unsigned char *a = arena;
    lw w;
    if (argc != 2) {
        fprintf(stderr, "usage: lstmc_worker X.bin\n");
        return 2;
    }
    while ((size_t)a % LSTMC_RT_ALIGN)
        a++;
    if (m_init(&w.ctx, a, M_ARENA_SIZE) != LSTMC_RT_OK) {
        fprintf(stderr, "lstmc_worker: m_init failed\n");
        return 1;
    }
    w.in[0] = worker_read_file(argv[1], M_INPUT_0_NUMEL * sizeof(float));
    w.out[0] = y;
    return worker_loop(lw_run, &w, y, sizeof y);
}
