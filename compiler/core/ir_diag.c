/*
 * ir_diag.c — the diag messages about IR objects: diag_node ("node 'name' (OpType): ...", or
 * "OpType node #K (unnamed): ..." for a node the model left unnamed)
 * and diag_tensor ("tensor 'name': ..."). They need ir.h; diag.c itself does not, so the
 * error sink stays a leaf below the IR.
 */
#include "diag.h"
#include "diag_impl.h"
#include "ir.h"

#include <stdarg.h>
#include <stdio.h>

const char *
ir_node_label(const ir_node *n, char *buf, size_t size)
{
    return diag_node_label(buf, size, n->name, n->op_type ? n->op_type : ir_op_name(n->op),
                           n->unnamed ? (long)n->onnx_index : -1);
}

void
diag_node(diag *d, const ir_node *n, const char *fmt, ...)
{
    char prefix[512], label[480];
    va_list ap;
    snprintf(prefix, sizeof prefix, "%s: ", ir_node_label(n, label, sizeof label));
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
    char prefix[512] = "", label[480];
    va_list ap;
    if (n)
        snprintf(prefix, sizeof prefix, "%s: ", ir_node_label(n, label, sizeof label));
    va_start(ap, fmt);
    diag_vnote(d, prefix, fmt, ap);
    va_end(ap);
}
