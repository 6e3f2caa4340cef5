/*
 * ir_diag.c — the diag messages about IR objects: diag_node ("node 'name' (OpType): ...")
 * and diag_tensor ("tensor 'name': ..."). They need ir.h; diag.c itself does not, so the
 * error sink stays a leaf below the IR.
 */
#include "diag.h"
#include "diag_impl.h"
#include "ir.h"

#include <stdarg.h>
#include <stdio.h>

void
diag_node(diag *d, const ir_node *n, const char *fmt, ...)
{
    char prefix[512];
    va_list ap;
    snprintf(prefix, sizeof prefix, "node '%s' (%s): ", n->name,
             n->op_type ? n->op_type : ir_op_name(n->op));
    va_start(ap, fmt);
    diag_vreport(d, prefix, fmt, ap);
    va_end(ap);
}

void
diag_tensor(diag *d, const ir_tensor *t, const char *fmt, ...)
{
    char prefix[512];
    va_list ap;
    snprintf(prefix, sizeof prefix, "tensor '%s': ", t->name);
    va_start(ap, fmt);
    diag_vreport(d, prefix, fmt, ap);
    va_end(ap);
}

void
diag_note(diag *d, const ir_node *n, const char *fmt, ...)
{
    char prefix[512] = "";
    va_list ap;
    if (n)
        snprintf(prefix, sizeof prefix, "node '%s' (%s): ", n->name,
                 n->op_type ? n->op_type : ir_op_name(n->op));
    va_start(ap, fmt);
    diag_vnote(d, prefix, fmt, ap);
    va_end(ap);
}
