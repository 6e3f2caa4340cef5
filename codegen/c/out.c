/*
 * out.c — the files of the generated library and the C text they are made of: every file is
 * written to a temporary name and renamed when complete (cg_write's promise: a failed run
 * never leaves a half-written file behind); library and output file names; C types,
 * exact float literals, shapes and int64 lists.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "c_impl.h"
#include "cg_ident.h"
#include "diag.h"

int
cg_c_ensure_dir(const char *path, diag *d)
{
    char buf[4096];
    size_t i, n = strlen(path);
    if (n >= sizeof buf) {
        diag_error(d, "output path '%s' is too long", path);
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                diag_error(d, "cannot create folder '%s': %s", buf, strerror(errno));
                return -1;
            }
            buf[i] = c;
        }
    }
    return 0;
}

int
cg_c_open_out(out_file *o, const char *dir, const char *name, diag *d)
{
    if (snprintf(o->path, sizeof o->path, "%s/%s", dir, name) >= (int)sizeof o->path ||
        snprintf(o->tmp, sizeof o->tmp, "%s.tmp", o->path) >= (int)sizeof o->tmp) {
        diag_error(d, "output path '%s/%s' is too long", dir, name);
        return -1;
    }
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        diag_error(d, "cannot write '%s': %s", o->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

int
cg_c_close_out(out_file *o, diag *d)
{
    int bad = ferror(o->f);
    if (fclose(o->f) != 0 || bad) {
        diag_error(d, "cannot write '%s'", o->tmp);
        remove(o->tmp);
        return -1;
    }
    if (rename(o->tmp, o->path) != 0) {
        diag_error(d, "cannot rename '%s' to '%s': %s", o->tmp, o->path, strerror(errno));
        remove(o->tmp);
        return -1;
    }
    return 0;
}

int
cg_name_ok(const char *s)
{
    size_t i;
    if (!s || !*s || strlen(s) > 64)
        return 0;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return 0;
    for (i = 1; s[i]; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

void
cg_sanitize_filename(const char *name, char *buf, unsigned long n)
{
    unsigned long i;
    if (n == 0)
        return;
    for (i = 0; name[i] && i + 1 < n; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.' || c == '-';
        buf[i] = ok ? c : '_';
    }
    buf[i] = '\0';
    /* "", "." and ".." are not file names one can write: prefix '_' */
    if (strcmp(buf, ".") == 0 || strcmp(buf, "..") == 0 || buf[0] == '\0') {
        size_t len = strlen(buf);
        if (len + 2 <= n) {
            memmove(buf + 1, buf, len + 1);
            buf[0] = '_';
        }
    }
}

void
cg_c_upper(const char *s, char *buf, size_t n)
{
    size_t i;
    for (i = 0; s[i] && i + 1 < n; i++)
        buf[i] = (s[i] >= 'a' && s[i] <= 'z') ? (char)(s[i] - 'a' + 'A') : s[i];
    buf[i] = '\0';
}

const char *
cg_c_ctype(ir_dtype t)
{
    switch (t) {
    case IR_DT_F32: return "float";
    case IR_DT_I64: return "int64_t";
    case IR_DT_I32: return "int32_t";
    case IR_DT_BOOL: return "uint8_t";
    case IR_DT_I8: return "int8_t";
    case IR_DT_I16: return "int16_t";
    default: return "unsigned char";
    }
}

const char *
cg_c_rt_dtype(ir_dtype t)
{
    switch (t) {
    case IR_DT_F32: return "LSTMC_RT_F32";
    case IR_DT_I64: return "LSTMC_RT_I64";
    case IR_DT_I32: return "LSTMC_RT_I32";
    case IR_DT_BOOL: return "LSTMC_RT_U8";
    case IR_DT_I8: return "LSTMC_RT_I8";
    case IR_DT_I16: return "LSTMC_RT_I16";
    default: return "0";
    }
}

/* A float as a C literal that reads back to the same value. */
void
cg_c_put_float(FILE *f, float v)
{
    char buf[64];
    if (isnan(v)) {
        fputs("NAN", f);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? "INFINITY" : "-INFINITY", f);
        return;
    }
    snprintf(buf, sizeof buf, "%.9g", (double)v);
    if (!strpbrk(buf, ".en"))
        strcat(buf, ".0");
    fprintf(f, "%sf", buf);
}

void
cg_c_put_shape(FILE *f, const ir_shape *s)
{
    int i;
    fputc('[', f);
    for (i = 0; i < s->rank; i++)
        fprintf(f, "%s%lld", i ? "," : "", (long long)s->d[i]);
    fputc(']', f);
}

void
cg_c_put_i64s(FILE *f, const int64_t *v, int n)
{
    int i;
    fputc('{', f);
    for (i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (n == 0)
        fputc('0', f);
    fputc('}', f);
}

/* The identifier of constant tensor id of g under prefix (cg_const_ident). */
void
cg_c_put_const(FILE *f, const char *prefix, const ir_graph *g, int id)
{
    char buf[CG_IDENT_MAX];
    cg_const_ident(buf, prefix, g, id);
    fputs(buf, f);
}
