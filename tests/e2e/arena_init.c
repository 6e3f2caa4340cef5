/*
 * arena_init.c — a generated library's <name>_init refuses an arena that is too small,
 * misaligned or NULL, and accepts the right one (built against OUTDIR of the model "m").
 */
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
    printf("arena_init: too small, misaligned and NULL arenas refused; %u bytes accepted\n",
           (unsigned)M_ARENA_SIZE);
    return 0;
}
