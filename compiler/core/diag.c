/*
 * diag.c — collects and prints errors about one model file, with the file, node and op
 * type as prefix so no call site can forget them.
 */
#include "diag.h"

#include <stdarg.h>
#include <string.h>

#include "arena.h"
#include "diag_impl.h"

struct diag {
    arena *a;
    const char *file;
    FILE *sink;
    int count;
    char *text; /* every message, '\n'-separated */
    size_t len, cap;
};

diag *
diag_new(arena *a, const char *file, FILE *sink)
{
    diag *d = arena_alloc(a, sizeof *d);
    d->a = a;
    d->file = arena_strdup(a, file ? file : "lstmc");
    d->sink = sink;
    d->text = arena_alloc(a, 1);
    d->cap = 1;
    return d;
}

static void
append(diag *d, const char *msg)
{
    size_t n = strlen(msg);
    d->text = arena_grow(d->a, d->text, 1, d->len + 1, &d->cap, d->len + n + 2);
    memcpy(d->text + d->len, msg, n);
    d->len += n;
    d->text[d->len++] = '\n';
    d->text[d->len] = '\0';
    d->count++;
    if (d->sink) {
        fprintf(d->sink, "%s\n", msg);
        fflush(d->sink);
    }
}

void
diag_vreport(diag *d, const char *prefix, const char *fmt, va_list ap)
{
    char body[2048];
    char msg[4096];
    vsnprintf(body, sizeof body, fmt, ap);
    snprintf(msg, sizeof msg, "%s: %s%s", d->file, prefix, body);
    append(d, msg);
}

void
diag_error(diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(d, "", fmt, ap);
    va_end(ap);
}

const char *
diag_node_label(char *buf, size_t size, const char *name, const char *op_type, long unnamed)
{
    if (unnamed >= 0)
        snprintf(buf, size, "%s node #%ld (unnamed)", op_type ? op_type : "?", unnamed);
    else
        snprintf(buf, size, "node '%s' (%s)", name ? name : "", op_type ? op_type : "?");
    return buf;
}

void
diag_at(diag *d, const char *node_name, const char *op_type, long unnamed, const char *fmt, ...)
{
    char prefix[512], label[480];
    va_list ap;
    snprintf(prefix, sizeof prefix, "%s: ",
             diag_node_label(label, sizeof label, node_name, op_type, unnamed));
    va_start(ap, fmt);
    diag_vreport(d, prefix, fmt, ap);
    va_end(ap);
}

int
diag_count(const diag *d)
{
    return d->count;
}

const char *
diag_text(const diag *d)
{
    return d->text;
}

void
diag_vnote(diag *d, const char *prefix, const char *fmt, va_list ap)
{
    char body[2048];
    if (!d->sink)
        return;
    vsnprintf(body, sizeof body, fmt, ap);
    fprintf(d->sink, "%s: note: %s%s\n", d->file, prefix, body);
    fflush(d->sink);
}

const char *
diag_file(const diag *d)
{
    return d->file;
}
