/*
 * cliopt.h — the option syntax every lstmc command shares: "--opt=value" or "--opt value".
 */
#ifndef LSTMC_CLIOPT_H
#define LSTMC_CLIOPT_H

/* If argv[*i] is opt with a value, return the value (advancing *i past a separate one);
 * else NULL. */
const char *cli_opt(int argc, char **argv, int *i, const char *opt);

#endif /* LSTMC_CLIOPT_H */
