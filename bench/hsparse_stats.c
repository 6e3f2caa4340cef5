/*
 * hsparse_stats.c — linked into a benchmark whose library was built with
 * -DLSTMC_RT_HSPARSE_STATS: prints, at exit, how many groups of four h elements the
 * recurrent products saw and skipped (the measured Sph of E-LSTM Table 2). bench/hsparse_sweep.sh
 */
#include <stdint.h>
#include <stdio.h>

extern int64_t lstmc_rt_hsparse_groups, lstmc_rt_hsparse_skipped;

__attribute__((destructor)) static void
report(void)
{
    fprintf(stderr, "hsparse groups %lld skipped %lld\n", (long long)lstmc_rt_hsparse_groups,
            (long long)lstmc_rt_hsparse_skipped);
}
