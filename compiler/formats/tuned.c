/*
 * tuned.c — reading the TUNED file lstmc tune writes (format in tuned.h).
 */
#include "tuned.h"

#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "wfmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- reading TUNED ---------------------------------------------------------------------- */

/* A file TUNED names (val): an absolute path as it is, a relative one beside TUNED (path). */
static const char *
beside(arena *a, const char *path, const char *val)
{
    const char *slash = strrchr(path, '/');
    return val[0] == '/' || !slash ? arena_printf(a, "%s", val)
                                   : arena_printf(a, "%.*s/%s", (int)(slash - path), path, val);
}

int
tune_load(arena *a, const char *path, driver_options *o, diag *d)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int lineno = 0, approx = -1, seen = 0, vary = 3; /* bit 1: inter, bit 2: intra */
    const char *weights = NULL;                      /* a static name from lowp_name */
    double v;

    if (!f) {
        diag_error(d, "--thresholds %s: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char key[64], val[4000];
        size_t n = strlen(line);
        lineno++;
        if (n && line[n - 1] == '\n')
            line[--n] = '\0';
        if (lineno == 1) {
            if (strcmp(line, TUNED_MAGIC) != 0) {
                diag_error(d,
                           "--thresholds %s: not a file lstmc tune wrote (the first line "
                           "is not '%s')",
                           path, TUNED_MAGIC);
                goto bad;
            }
            continue;
        }
        if (!line[0] || line[0] == '#')
            continue;
        if (sscanf(line, "%63s %3999[^\n]", key, val) != 2) {
            diag_error(d, "--thresholds %s:%d: expected 'KEY VALUE'", path, lineno);
            goto bad;
        }
        if (strcmp(key, "schedule") == 0) {
            if (strcmp(val, "approx") && strcmp(val, "exact")) {
                diag_error(d, "--thresholds %s:%d: schedule is approx or exact, not '%s'", path,
                           lineno, val);
                goto bad;
            }
            approx = strcmp(val, "approx") == 0;
        } else if (strcmp(key, "weights") == 0 || strcmp(key, "bpa_weights") == 0) {
            if (lowp_parse(val) < 0) {
                diag_error(d, "--thresholds %s:%d: %s is fp32, fp16, bf16 or int8, not '%s'", path,
                           lineno, key, val);
                goto bad;
            }
            if (strcmp(key, "weights") == 0)
                weights = lowp_name(lowp_parse(val));
        } else if (strcmp(key, "activations") == 0 || strcmp(key, "bpa_activations") == 0) {
            if (strcmp(val, "int8") && strcmp(val, "int16")) { /* issue 22 */
                diag_error(d, "--thresholds %s:%d: %s is int8 or int16, not '%s'", path, lineno,
                           key, val);
                goto bad;
            }
            if (strcmp(key, "activations") == 0 && !o->activations)
                o->activations = strcmp(val, "int8") == 0 ? 8 : 16;
        } else if (strcmp(key, "calib_data") == 0) {
            if (!o->calib_data)
                o->calib_data = beside(a, path, val);
        } else if (strcmp(key, "vary") == 0) {
            if (strcmp(val, "both") && strcmp(val, "inter") && strcmp(val, "intra")) {
                diag_error(d, "--thresholds %s:%d: vary is both, inter or intra, not '%s'", path,
                           lineno, val);
                goto bad;
            }
            vary = strcmp(val, "inter") == 0 ? 1 : strcmp(val, "intra") == 0 ? 2 : 3;
        } else if (strcmp(key, "max_sublayer") == 0 || strcmp(key, "threads") == 0) {
            const int thr = key[0] == 't', hi = thr ? 16 : 1000000;
            int *dst = thr ? &o->threads : &o->max_sublayer; /* a command line's value wins */
            char *end;
            long cnt = strtol(val, &end, 10);
            if (*end || end == val || cnt < 1 || cnt > hi) {
                diag_error(d, "--thresholds %s:%d: %s is a count from 1 to %d, not '%s'", path,
                           lineno, key, hi, val);
                goto bad;
            }
            if (!*dst)
                *dst = (int)cnt;
        } else if (strcmp(key, "relevance") == 0) {
            if (driver_relevance_parse(val) < 0) {
                diag_error(d,
                           "--thresholds %s:%d: relevance is bound, calibrated or sensitivity, "
                           "not '%s'",
                           path, lineno, val);
                goto bad;
            }
            o->relevance = driver_relevance_parse(val);
        } else if (strcmp(key, "calib") == 0) {
            if (!o->calib)
                o->calib = beside(a, path, val);
        } else {
            char *end;
            float *dst = NULL;
            v = strtod(val, &end);
            if (*end || end == val || !(v >= 0) || v > 1e30) {
                diag_error(d, "--thresholds %s:%d: %s takes a number >= 0, got '%s'", path, lineno,
                           key, val);
                goto bad;
            }
            if (strcmp(key, "alpha_inter") == 0)
                dst = &o->alpha_inter, seen |= 1;
            else if (strcmp(key, "alpha_intra") == 0)
                dst = &o->alpha_intra, seen |= 2;
            else if (strcmp(key, "alpha_inter_max") == 0)
                dst = &o->alpha_inter_max;
            else if (strcmp(key, "alpha_intra_max") == 0)
                dst = &o->alpha_intra_max;
            else if (strcmp(key, "bpa_alpha_inter") && strcmp(key, "bpa_alpha_intra")) {
                diag_error(d, "--thresholds %s:%d: unknown key '%s'", path, lineno, key);
                goto bad;
            }
            if (dst)
                *dst = (float)v;
        }
    }
    if (lineno == 0 || approx < 0 || seen != 3) {
        diag_error(d,
                   "--thresholds %s: incomplete (needs schedule, alpha_inter and "
                   "alpha_intra)",
                   path);
        goto bad;
    }
    fclose(f);
    o->has_alpha_inter = approx && (vary & 1);
    o->has_alpha_intra = approx && (vary & 2) && (o->alpha_intra > 0 || o->alpha_intra_max > 0);
    if (!o->has_alpha_inter)
        o->alpha_inter = 0;
    if (!o->has_alpha_intra)
        o->alpha_intra = 0;
    if (weights && !o->weights) /* an explicit --weights wins */
        o->weights = weights;
    if (!approx)
        o->alpha_inter = o->alpha_intra = 0;
    return 0;
bad:
    fclose(f);
    return -1;
}
