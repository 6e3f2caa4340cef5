/*
 * cliopt.h — the option syntax every lstmc command shares: "--opt=value" or "--opt value",
 * and byte counts such as 64MiB.
 */
#ifndef LSTMC_CLIOPT_H
#define LSTMC_CLIOPT_H

#include <stdint.h>

/* If argv[*i] is opt with a value, return the value (advancing *i past a separate one);
 * else NULL. */
const char *cli_opt(int argc, char **argv, int *i, const char *opt);

/*
 * Parse a byte count: digits with an optional suffix K, M, G (also KB/KiB, MB/MiB, GB/GiB,
 * any case), all binary multiples as cache sizes are quoted ("12MiB", "12M" and "12MB" are
 * 12 * 2^20). Returns 0 and sets *out, or -1 for anything else or a value not in
 * [1, 2^40].
 */
int cli_parse_bytes(const char *s, int64_t *out);

#endif /* LSTMC_CLIOPT_H */
