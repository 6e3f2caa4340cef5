/*
 * cg_ident.h — the C identifiers that more than one backend prints for the same thing, so
 * that the host code of one (codegen/c/) and the code of another (codegen/opencl/) agree:
 * the tensors of a graph, named from their ONNX names.
 *
 * Header only (static inline): the backends link nothing of codegen/ (CMakeLists.txt).
 */
#ifndef LSTMC_CG_IDENT_H
#define LSTMC_CG_IDENT_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "ir.h"
#include "memplan.h"

/* The longest part of an identifier taken from a tensor name. */
#define CG_IDENT_NAME_MAX 40

/* A buffer that holds any identifier of cg_tensor_ident (prefix up to 128 bytes). */
#define CG_IDENT_MAX 256

/* s as a C identifier fragment into buf (CG_IDENT_NAME_MAX + 1 bytes): each run of
 * characters other than [A-Za-z0-9] becomes one '_', none at either end; "" when s has no
 * letter or digit. The result never holds "__". */
static inline void
cg_ident_part(const char *s, char *buf)
{
    size_t n = 0;
    int gap = 0;
    for (; s && *s && n < CG_IDENT_NAME_MAX; s++) {
        char ch = *s;
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!alnum) {
            gap = n > 0;
            continue;
        }
        if (gap) {
            if (n + 1 >= CG_IDENT_NAME_MAX)
                break;
            buf[n++] = '_';
        }
        gap = 0;
        buf[n++] = ch;
    }
    buf[n] = '\0';
}

/*
 * The identifier of tensor id of g under prefix, into buf (CG_IDENT_MAX bytes):
 * "PREFIX_<name>" when the tensor's ONNX name is already an identifier part (letters,
 * digits and single inner '_', at most CG_IDENT_NAME_MAX long: cg_ident_part leaves it
 * as it is), else "PREFIX_<part>__<id>". Unique in g without looking at the other tensors
 * (a compile of a 20,000-node graph calls this for every reference): ONNX names are
 * unique, a name left as it is never holds "__", and every other name ends in its own id.
 */
static inline void
cg_tensor_ident(char *buf, const char *prefix, const ir_graph *g, int id)
{
    char part[CG_IDENT_NAME_MAX + 1];
    const char *name = g->tensors[id]->name;
    cg_ident_part(name, part);
    if (part[0] && name && strcmp(part, name) == 0)
        snprintf(buf, CG_IDENT_MAX, "%s_%s", prefix, part);
    else
        snprintf(buf, CG_IDENT_MAX, "%s_%s__%d", prefix, part, id);
}

/* The identifier of constant tensor id of g in the generated code: "PREFIX_w_<name>"
 * (cg_tensor_ident under PREFIX_w), the weight's one name in every backend. */
static inline void
cg_const_ident(char *buf, const char *prefix, const ir_graph *g, int id)
{
    char p[160];
    snprintf(p, sizeof p, "%s_w", prefix);
    cg_tensor_ident(buf, p, g, id);
}

/* The constant of g (mp places it: MEMPLAN_CONST) with t's dtype, element count and bytes,
 * or -1: a constant of the streaming step program that the whole-sequence program already
 * holds is that one (its name a #define of the other's), any other is a weight of its own,
 * "<name>_stream_w_<tensor>". */
static inline int
cg_same_const(const ir_graph *g, const memplan *mp, const ir_tensor *t)
{
    int i;
    int64_t n = ir_shape_numel(&t->shape);
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *u = g->tensors[i];
        if (mp->tensor[i].kind != MEMPLAN_CONST || u->dtype != t->dtype ||
            ir_shape_numel(&u->shape) != n || !u->data || !t->data)
            continue;
        if (memcmp(u->data, t->data, (size_t)n * ir_dtype_size(t->dtype)) == 0)
            return i;
    }
    return -1;
}

/* cg_same_const of step-program tensor t against the whole program g (mp): o->stream_same's
 * entry when cg_write made the table. */
static inline int
cg_stream_same(const cg_options *o, const ir_graph *g, const memplan *mp, const ir_tensor *t)
{
    return o->stream_same ? o->stream_same[t->id] : cg_same_const(g, mp, t);
}

#endif /* LSTMC_CG_IDENT_H */
