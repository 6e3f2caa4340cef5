/*
 * cliopt.c — see cliopt.h.
 */
#include "cliopt.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *
cli_opt(int argc, char **argv, int *i, const char *opt)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] == '\0' && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

int
cli_parse_bytes(const char *s, int64_t *out)
{
    char *end;
    unsigned long long v;
    int64_t mul = 1;
    char suf[8];
    size_t n, i;

    if (!s || !isdigit((unsigned char)*s))
        return -1;
    v = strtoull(s, &end, 10);
    n = strlen(end);
    if (n >= sizeof suf)
        return -1;
    for (i = 0; i < n && i + 1 < sizeof suf; i++)
        suf[i] = (char)tolower((unsigned char)end[i]);
    suf[i] = '\0';
    if (!*suf)
        mul = 1;
    else if (!strcmp(suf, "k") || !strcmp(suf, "kb") || !strcmp(suf, "kib"))
        mul = (int64_t)1 << 10;
    else if (!strcmp(suf, "m") || !strcmp(suf, "mb") || !strcmp(suf, "mib"))
        mul = (int64_t)1 << 20;
    else if (!strcmp(suf, "g") || !strcmp(suf, "gb") || !strcmp(suf, "gib"))
        mul = (int64_t)1 << 30;
    else if (!strcmp(suf, "b"))
        mul = 1;
    else
        return -1;
    if (v < 1 || v > ((unsigned long long)1 << 40) / (unsigned long long)mul)
        return -1;
    *out = (int64_t)v * mul;
    return 0;
}
