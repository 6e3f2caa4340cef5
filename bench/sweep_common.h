/*
 * sweep_common.h — what bench/sweep_inter.c and bench/sweep_intra.c share: a monotonic clock,
 * a comparison for qsort (medians) and whole-file .npy loading (benchmark drivers, so they
 * may allocate and exit). Included once by each driver; everything is static.
 */
#ifndef LSTMC_SWEEP_COMMON_H
#define LSTMC_SWEEP_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lstmc_rt_npy.h"

static double
now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int
cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The whole .npy at path (info filled), or exit(1) with a message naming prog. */
static void *
load_npy(const char *prog, const char *path, lstmc_npy_info *info)
{
    char err[256];
    void *buf;
    if (lstmc_npy_info_read(path, info, err, sizeof err) != 0 ||
        !(buf = malloc(info->n_bytes ? info->n_bytes : 1)) ||
        lstmc_npy_read_data(path, info, buf, info->n_bytes, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, err);
        exit(1);
    }
    return buf;
}

#endif /* LSTMC_SWEEP_COMMON_H */
