/*
 * arena_init.c — a generated library's <name>_init refuses an arena that is too small,
 * misaligned or NULL, and accepts the right one (built against OUTDIR of the model "m").
 */
#include <math.h>
#include <stdio.h>

#include "m.h"

static unsigned char raw[M_ARENA_SIZE + 2 * LSTMC_RT_ALIGN];

#define EXPECT(cond)                                                                          \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "arena_init: %s failed\n", #cond);                               \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

int
main(void)
{
    unsigned char *aligned = raw + (LSTMC_RT_ALIGN - (size_t)raw % LSTMC_RT_ALIGN) % LSTMC_RT_ALIGN;
    m_ctx ctx;
    EXPECT(M_ARENA_SIZE > 0);
    EXPECT(m_init(&ctx, aligned, M_ARENA_SIZE - 1) == LSTMC_RT_ERR_ARENA_TOO_SMALL);
    EXPECT(m_init(&ctx, aligned + 4, M_ARENA_SIZE) == LSTMC_RT_ERR_MISALIGNED);
    EXPECT(m_init(&ctx, NULL, M_ARENA_SIZE) == LSTMC_RT_ERR_NULL);
    EXPECT(m_init(NULL, aligned, M_ARENA_SIZE) == LSTMC_RT_ERR_NULL);
    EXPECT(m_init(&ctx, aligned, M_ARENA_SIZE) == LSTMC_RT_OK);
    EXPECT(m_run(&ctx, NULL, NULL) == LSTMC_RT_ERR_NULL);
    /* thresholds out of range: a documented status, nothing changed */
    EXPECT(ctx.alpha_inter == M_ALPHA_INTER);
    EXPECT(m_set_thresholds(&ctx, -1.0f, 0.0f) == LSTMC_RT_ERR_BAD_PARAMS);
    EXPECT(m_set_thresholds(&ctx, NAN, 0.0f) == LSTMC_RT_ERR_BAD_PARAMS);
    EXPECT(m_set_thresholds(&ctx, 0.0f, INFINITY) == LSTMC_RT_ERR_BAD_PARAMS);
    EXPECT(m_set_thresholds(NULL, 0.0f, 0.0f) == LSTMC_RT_ERR_NULL);
    EXPECT(ctx.alpha_inter == M_ALPHA_INTER);
    EXPECT(m_set_thresholds(&ctx, 2.5f, 0.0f) == LSTMC_RT_OK);
    EXPECT(ctx.alpha_inter == 2.5f);
    printf("arena_init: too small, misaligned and NULL arenas and bad thresholds refused; "
           "%u bytes accepted\n",
           (unsigned)M_ARENA_SIZE);
    return 0;
}
