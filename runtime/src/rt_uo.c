/*
 * rt_uo.c — the user-oriented threshold controller (lstmc_rt_uo.h).
 */
#include "lstmc_rt_uo.h"

static float
clamp01(float x)
{
    return x > 1.0f ? 1.0f : x >= 0.0f ? x : 0.0f; /* NaN -> 0 */
}

static float
nonneg(float x)
{
    return x >= 0.0f ? x : 0.0f;
}

void
lstmc_rt_uo_init(lstmc_rt_uo *uo, float inter_max, float intra_max, float level)
{
    uo->inter_max = nonneg(inter_max);
    uo->intra_max = nonneg(intra_max);
    uo->level = clamp01(level);
    uo->up = LSTMC_RT_UO_UP;
    uo->down = LSTMC_RT_UO_DOWN;
}

void
lstmc_rt_uo_feedback(lstmc_rt_uo *uo, int accepted, float *alpha_inter, float *alpha_intra)
{
    uo->level = clamp01(accepted ? uo->level + uo->up : uo->level - uo->down);
    *alpha_inter = uo->level * uo->inter_max;
    *alpha_intra = uo->level * uo->intra_max;
}
