/*
 * options.c — the pass options' text to typed values (options.h), said once: --hsparse
 * (E-LSTM §4.4 thresholds), --prune (E-LSTM §3.1 magnitude pruning), --sparse (eSELL
 * storage).
 */
#include "options.h"

#include "driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
options_parse_hsparse(const char *s, pass_hsparse_opt *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    if (!s)
        return 0;
    while (*s) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || !(v >= 0) || !isfinite(v) || (*end && *end != ',') ||
            out->n == PASS_MAX_HSPARSE) {
            snprintf(err, n,
                     "--hsparse takes thresholds >= 0 separated by commas (at most %d), got "
                     "'%s'",
                     PASS_MAX_HSPARSE, s);
            return -1;
        }
        out->th[out->n++] = (float)v;
        s = *end ? end + 1 : end;
    }
    if (!out->n) {
        snprintf(err, n, "--hsparse needs at least one threshold");
        return -1;
    }
    return 0;
}

int
options_parse_prune(const char *s, pass_prune_opt *out, char *err, size_t n)
{
    const char *p = s;
    memset(out, 0, sizeof *out);
    out->fw = out->fu = -1.0;
    if (!s)
        return 0;
    while (*p) {
        double *f, v;
        char *end;
        if ((p[0] == 'W' || p[0] == 'U' || p[0] == 'R') && p[1] == ':')
            f = p[0] == 'W' ? &out->fw : &out->fu;
        else
            goto bad;
        if (*f >= 0.0) {
            snprintf(err, n, "--prune gives the fraction of %c twice in '%s'", p[0], s);
            return -1;
        }
        v = strtod(p + 2, &end);
        if (end == p + 2 || (*end && (*end != ',' || !end[1])) || !(v >= 0.0 && v < 1.0))
            goto bad;
        *f = v;
        p = *end ? end + 1 : end;
    }
    if (out->fw < 0.0 && out->fu < 0.0)
        goto bad;
    out->on = 1;
    return 0;
bad:
    snprintf(err, n,
             "--prune takes W:F,U:F (either or both; F the fraction in [0, 1) of each "
             "matrix's smallest-magnitude weights set to 0), got '%s'",
             s);
    return -1;
}

int
options_parse_sparse(const char *s, pass_sparse_opt *out, char *err, size_t n)
{
    char *end;
    memset(out, 0, sizeof *out);
    if (!s || strcmp(s, "auto") == 0) {
        out->mode = PASS_SPARSE_AUTO;
        return 0;
    }
    if (strcmp(s, "off") == 0 || strcmp(s, "esell") == 0) {
        out->mode = s[0] == 'o' ? PASS_SPARSE_OFF : PASS_SPARSE_ESELL;
        return 0;
    }
    if (strncmp(s, "auto:", 5) == 0) {
        out->min = strtod(s + 5, &end);
        if (end != s + 5 && !*end && out->min >= 0.0 && out->min <= 1.0) {
            out->mode = PASS_SPARSE_AUTO;
            out->has_min = 1;
            return 0;
        }
    }
    snprintf(err, n,
             "--sparse takes auto, auto:F (F in [0, 1]: the fraction of zero weights from "
             "which a matrix is stored in eSELL), esell or off, got '%s'",
             s);
    return -1;
}

int
options_parse_passes(const driver_options *o, pass_ctx *cx, char *err, size_t n)
{
    if (options_parse_hsparse(o->hsparse, &cx->hsparse, err, n) < 0 ||
        options_parse_prune(o->prune, &cx->prune, err, n) < 0 ||
        options_parse_sparse(o->sparse, &cx->sparse, err, n) < 0)
        return -1;
    return 0;
}

static const char *const relevance_names[] = {"bound", "calibrated", "sensitivity"};

int
driver_relevance_parse(const char *v)
{
    int k;
    for (k = 0; k < 3; k++)
        if (v && strcmp(v, relevance_names[k]) == 0)
            return k; /* LSTMC_RT_REL_BOUND, _CALIBRATED, _SENSITIVITY */
    return -1;
}

const char *
driver_relevance_name(int relevance)
{
    return relevance >= 0 && relevance < 3 ? relevance_names[relevance] : "?";
}

int
driver_check_option(const char *opt, const char *value, char *err, size_t n)
{
    pass_ctx cx;
    if (strcmp(opt, "--hsparse") == 0)
        return options_parse_hsparse(value, &cx.hsparse, err, n);
    if (strcmp(opt, "--prune") == 0)
        return options_parse_prune(value, &cx.prune, err, n);
    if (strcmp(opt, "--sparse") == 0)
        return options_parse_sparse(value, &cx.sparse, err, n);
    snprintf(err, n, "%s is not a pass option", opt);
    return -1;
}
