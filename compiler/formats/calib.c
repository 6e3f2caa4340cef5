/*
 * calib.c — reading the CALIB file (format in calib.h); lstmc calibrate writes it
 * (compiler/tools/calibrate.c).
 */
#include "calib.h"

#include "arena.h"
#include "diag.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- reading --------------------------------------------------------------------------- */

calib_layer *
calib_find(const calib_table *t, const char *name)
{
    int i;
    for (i = 0; t && i < t->n; i++)
        if (strcmp(t->layers[i].name, name) == 0)
            return &t->layers[i];
    return NULL;
}

/* a whole line into *line (arena); 0 at EOF, -1 too long / NUL byte */
static int
get_line(FILE *f, char *buf, size_t cap)
{
    size_t n = 0;
    int ch;
    while ((ch = fgetc(f)) != EOF) {
        if (ch == '\n')
            break;
        if (ch == '\0' || n + 1 >= cap)
            return -1;
        buf[n++] = (char)ch;
    }
    if (ch == EOF && n == 0)
        return 0;
    if (n && buf[n - 1] == '\r')
        n--;
    buf[n] = '\0';
    return 1;
}

static const char *const vec_names[4] = {"h", "c", "um", "ur"};

/* The kind of a vector line (an index of vec_names), or -1. */
static int
vec_kind(const char *p)
{
    int k;
    for (k = 0; k < 4; k++) {
        size_t n = strlen(vec_names[k]);
        if (strncmp(p, vec_names[k], n) == 0 && p[n] == ' ')
            return k;
    }
    return -1;
}

static int64_t
cur_hidden(const calib_layer *l)
{
    return l ? l->hidden : 0;
}

/* The first line layer l lacks, as dir * 4 + kind, or -1: every direction's h and c, and
 * um with ur for every direction or for none. */
static int64_t
layer_incomplete(const calib_layer *l, const unsigned char *seen)
{
    int64_t x;
    for (x = 0; x < l->n_dirs * 4; x++)
        if (!seen[x] && (x % 4 < 2 || l->um))
            return x;
    return -1;
}

int
calib_read(arena *a, const char *path, calib_table *t, diag *d)
{
    enum { LINE_CAP = 1 << 22 };
    FILE *f = fopen(path, "rb");
    char *line;
    int lineno = 0, r, cap = 0;
    calib_layer *cur = NULL;
    unsigned char *seen = NULL; /* [D][4] of cur: h, c, um, ur */

    memset(t, 0, sizeof *t);
    if (!f) {
        diag_error(d, "--calib %s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    line = malloc(LINE_CAP);
    if (!line) {
        fclose(f);
        diag_error(d, "--calib %s: out of memory", path);
        return -1;
    }
#define BAD(...)                                                                                   \
    do {                                                                                           \
        diag_error(d, "--calib " __VA_ARGS__);                                                     \
        goto fail;                                                                                 \
    } while (0)
    while ((r = get_line(f, line, LINE_CAP)) != 0) {
        char *p = line, *end;
        lineno++;
        if (r < 0)
            BAD("%s:%d: line too long or holds a NUL byte", path, lineno);
        if (lineno == 1) {
            if (strcmp(line, CALIB_MAGIC) != 0 && strcmp(line, CALIB_MAGIC_1) != 0)
                BAD("%s:1: not a CALIB file (expected the first line '%s')", path, CALIB_MAGIC);
            continue;
        }
        if (*p == '#' || *p == '\0')
            continue;
        if (strncmp(p, "layer ", 6) == 0) {
            long long v[3];
            int64_t x;
            int q;
            if (cur && (x = layer_incomplete(cur, seen)) >= 0)
                BAD("%s:%d: layer '%s' lacks its %s line for direction %lld", path, lineno,
                    cur->name, vec_names[x % 4], (long long)(x / 4));
            p += 6;
            for (q = 0; q < 3; q++) {
                errno = 0;
                v[q] = strtoll(p, &end, 10);
                if (end == p || *end != ' ' || errno)
                    BAD("%s:%d: expected 'layer D H CELLS NAME'", path, lineno);
                p = end + 1;
            }
            if (v[0] < 1 || v[0] > 2 || v[1] < 1 || v[1] > (1 << 20) || v[2] < 0)
                BAD("%s:%d: bad layer header (directions %lld, hidden %lld, cells %lld)", path,
                    lineno, v[0], v[1], v[2]);
            if (!*p)
                BAD("%s:%d: layer without a name", path, lineno);
            if (calib_find(t, p))
                BAD("%s:%d: layer '%s' appears twice", path, lineno, p);
            if (t->n == cap) {
                size_t c2 = (size_t)cap;
                t->layers = arena_grow(a, t->layers, sizeof *t->layers, (size_t)t->n, &c2,
                                       (size_t)t->n + 1);
                cap = (int)c2;
            }
            cur = &t->layers[t->n++];
            memset(cur, 0, sizeof *cur);
            cur->name = arena_strdup(a, p);
            cur->n_dirs = v[0];
            cur->hidden = v[1];
            cur->cells = v[2];
            cur->h = arena_calloc(a, (size_t)(v[0] * v[1]), sizeof(float));
            cur->c = arena_calloc(a, (size_t)(v[0] * v[1]), sizeof(float));
            seen = arena_calloc(a, (size_t)v[0] * 4, 1);
        } else if (vec_kind(p) >= 0) {
            const int kind = vec_kind(p);
            const int64_t nv = kind < 2 ? cur_hidden(cur) : 4 * cur_hidden(cur);
            long long dir;
            float *dst;
            int64_t j;
            if (!cur)
                BAD("%s:%d: a vector line before any 'layer' line", path, lineno);
            p += kind < 2 ? 2 : 3;
            errno = 0;
            dir = strtoll(p, &end, 10);
            if (end == p || errno || dir < 0 || dir >= cur->n_dirs)
                BAD("%s:%d: bad direction (layer '%s' has %lld)", path, lineno, cur->name,
                    (long long)cur->n_dirs);
            if (seen[dir * 4 + kind])
                BAD("%s:%d: second %s line for direction %lld", path, lineno, vec_names[kind], dir);
            seen[dir * 4 + kind] = 1;
            p = end;
            if (kind >= 2 && !cur->um) { /* the optional calibrated bound of U h */
                cur->um = arena_calloc(a, (size_t)(cur->n_dirs * 4 * cur->hidden), sizeof(float));
                cur->ur = arena_calloc(a, (size_t)(cur->n_dirs * 4 * cur->hidden), sizeof(float));
            }
            dst = (kind == 0   ? cur->h
                   : kind == 1 ? cur->c
                   : kind == 2 ? cur->um
                               : cur->ur) +
                  dir * nv;
            for (j = 0; j < nv; j++) {
                float x;
                if (*p != ' ')
                    BAD("%s:%d: expected %lld values, got %lld", path, lineno, (long long)nv,
                        (long long)j);
                errno = 0;
                x = strtof(p + 1, &end);
                if (end == p + 1 || (*end != ' ' && *end != '\0'))
                    BAD("%s:%d: value %lld is not a number", path, lineno, (long long)j);
                if (!isfinite(x))
                    BAD("%s:%d: value %lld is not finite", path, lineno, (long long)j);
                if (kind == 3 && x < 0.0f)
                    BAD("%s:%d: value %lld is negative (a radius)", path, lineno, (long long)j);
                dst[j] = x;
                p = end;
            }
            if (*p)
                BAD("%s:%d: more than %lld values", path, lineno, (long long)nv);
        } else {
            BAD("%s:%d: unrecognised line (expected 'layer', 'h', 'c', 'um', 'ur' or '#')", path,
                lineno);
        }
    }
    if (ferror(f))
        BAD("%s: read error", path);
    if (lineno == 0)
        BAD("%s: empty file", path);
    if (!cur)
        BAD("%s: no layer in the file", path);
    {
        const int64_t x = layer_incomplete(cur, seen);
        if (x >= 0)
            BAD("%s: layer '%s' lacks its %s line for direction %lld", path, cur->name,
                vec_names[x % 4], (long long)(x / 4));
    }
#undef BAD
    free(line);
    fclose(f);
    return 0;
fail:
    free(line);
    fclose(f);
    return -1;
}
