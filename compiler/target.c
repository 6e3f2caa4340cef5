/*
 * target.c — built-in target profiles. Figures for tegra-x1 are from the Jetson TX1
 * documentation as quoted in MICRO'18 §VI-A (Maxwell, 2 SMM, 256 cores, 998 MHz, LPDDR4
 * 25.6 GB/s, MTS 5).
 */
#include "target.h"

#include <string.h>

/* What every CPU target runs unless it says otherwise. */
#define LSTMC_DEFAULT_PASSES "split_gates,fold_constants,dce"

const target target_builtin[] = {
    {"host", "the machine lstmc runs on; portable C kernels", "", "", 0, 0, 0, NULL, 0, 0, 0,
     0.0, 0, LSTMC_DEFAULT_PASSES},
    {"tegra-x1", "NVIDIA Jetson TX1: 4x Cortex-A57 + Maxwell GPU (2 SMM, 256 cores)",
     "aarch64-unknown-linux-gnu", "cortex-a57", 4, 32 * 1024, 2 * 1024 * 1024,
     "Maxwell GM20B", 2, 998, 64 * 1024, 25.6, 5, LSTMC_DEFAULT_PASSES},
    {NULL, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0, 0, 0.0, 0, NULL},
};

const target *
target_find(const char *name)
{
    int i;
    for (i = 0; target_builtin[i].name; i++)
        if (strcmp(target_builtin[i].name, name) == 0)
            return &target_builtin[i];
    return NULL;
}
