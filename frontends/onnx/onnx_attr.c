/*
 * onnx_attr.c — typed getters for ONNX node attributes. A getter that finds the attribute
 * with another type reports it, naming the node and the attribute, so importers never read
 * a field the model did not set.
 */
#include "arena.h"
#include "onnx_impl.h"

#include <limits.h>
#include <string.h>

typedef Onnx__AttributeProto__AttributeType attr_type;

static const char *
attr_type_name(attr_type t)
{
    static const char *const names[] = {
        "UNDEFINED",      "FLOAT",      "INT",         "STRING",  "TENSOR", "GRAPH",
        "FLOATS",         "INTS",       "STRINGS",     "TENSORS", "GRAPHS", "SPARSE_TENSOR",
        "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS",
    };
    if ((int)t >= 0 && (size_t)t < sizeof names / sizeof names[0])
        return names[t];
    return "UNKNOWN";
}

/* The attribute's type: its type field, or for IR version 1 models (no type field) the
 * value field that is set. */
static attr_type
attr_kind(const Onnx__AttributeProto *at)
{
    if (at->has_type && at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
        return at->type;
    if (at->has_f)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    if (at->has_i)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    if (at->has_s)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    if (at->t)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    if (at->g)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    if (at->n_floats)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
    if (at->n_ints)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    if (at->n_strings)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

const Onnx__AttributeProto *
onnx_attr_find(const Onnx__NodeProto *np, const char *name)
{
    size_t i;
    for (i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *at = np->attribute[i];
        if (at && at->name && strcmp(at->name, name) == 0)
            return at;
    }
    return NULL;
}

/* Find `name`; 0 when absent, -1 (reported) when its type is not `want`, else 1. */
static int
lookup(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, attr_type want,
       const Onnx__AttributeProto **out)
{
    const Onnx__AttributeProto *at = onnx_attr_find(np, name);
    attr_type t;
    *out = NULL;
    if (!at)
        return 0;
    t = attr_kind(at);
    if (t != want) {
        onnx_err(cx, "attribute '%s' has type %s; expected %s", name, attr_type_name(t),
                 attr_type_name(want));
        return -1;
    }
    *out = at;
    return 1;
}

/* A list count as int; a list longer than INT_MAX entries is reported. */
static int
list_count(onnx_ctx *cx, const char *name, size_t n, int *out)
{
    if (n > (size_t)INT_MAX) {
        onnx_err(cx, "attribute '%s' has %zu values; too many", name, n);
        return -1;
    }
    *out = (int)n;
    return 0;
}

int
onnx_attr_int(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, int64_t dflt, int64_t *v)
{
    const Onnx__AttributeProto *at;
    int r = lookup(cx, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, &at);
    *v = r == 1 ? at->i : dflt;
    return r;
}

int
onnx_attr_float(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, float dflt, float *v)
{
    const Onnx__AttributeProto *at;
    int r = lookup(cx, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, &at);
    *v = r == 1 ? at->f : dflt;
    return r;
}

static const char *
bin_str(onnx_ctx *cx, ProtobufCBinaryData b)
{
    char *s = arena_alloc(cx->a, b.len + 1);
    if (b.len)
        memcpy(s, b.data, b.len);
    s[b.len] = '\0';
    return s;
}

int
onnx_attr_string(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, const char *dflt,
                 const char **v)
{
    const Onnx__AttributeProto *at;
    int r = lookup(cx, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, &at);
    *v = r == 1 ? bin_str(cx, at->s) : dflt;
    return r;
}

int
onnx_attr_ints(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, const int64_t **v, int *n)
{
    const Onnx__AttributeProto *at;
    int r = lookup(cx, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, &at);
    *v = NULL;
    *n = 0;
    if (r != 1)
        return r;
    if (list_count(cx, name, at->n_ints, n) < 0)
        return -1;
    *v = at->ints;
    return 1;
}

int
onnx_attr_floats(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, const float **v, int *n)
{
    const Onnx__AttributeProto *at;
    int r = lookup(cx, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS, &at);
    *v = NULL;
    *n = 0;
    if (r != 1)
        return r;
    if (list_count(cx, name, at->n_floats, n) < 0)
        return -1;
    *v = at->floats;
    return 1;
}

int
onnx_attr_strings(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name, const char ***v,
                  int *n)
{
    const Onnx__AttributeProto *at;
    const char **out;
    int r = lookup(cx, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS, &at);
    int i;
    *v = NULL;
    *n = 0;
    if (r != 1)
        return r;
    if (list_count(cx, name, at->n_strings, n) < 0)
        return -1;
    out = arena_calloc(cx->a, (size_t)*n + 1, sizeof *out);
    for (i = 0; i < *n; i++)
        out[i] = bin_str(cx, at->strings[i]);
    *v = out;
    return 1;
}

int
onnx_attr_tensor(onnx_ctx *cx, const Onnx__NodeProto *np, const char *name,
                 const Onnx__TensorProto **v)
{
    const Onnx__AttributeProto *at;
    int r = lookup(cx, np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR, &at);
    *v = NULL;
    if (r != 1)
        return r;
    if (!at->t) {
        onnx_err(cx, "attribute '%s' has type TENSOR but holds no tensor", name);
        return -1;
    }
    *v = at->t;
    return 1;
}

/* An INT attribute with default dflt, copied onto n. 0, or -1 after a message. */
int
onnx_attr_copy_int(onnx_ctx *cx, const Onnx__NodeProto *np, ir_node *n, const char *name,
                   int64_t dflt)
{
    int64_t v;
    if (onnx_attr_int(cx, np, name, dflt, &v) < 0)
        return -1;
    ir_attr_set_int(cx->g, n, name, v);
    return 0;
}

/* An INT attribute that must be 0 or 1 (default dflt), copied onto n. 0, or -1 after a
 * message. */
int
onnx_attr_flag(onnx_ctx *cx, const Onnx__NodeProto *np, ir_node *n, const char *name, int64_t dflt)
{
    int64_t v;
    if (onnx_attr_int(cx, np, name, dflt, &v) < 0)
        return -1;
    if (v != 0 && v != 1) {
        onnx_err(cx, "attribute '%s' is %lld; expected 0 or 1", name, (long long)v);
        return -1;
    }
    ir_attr_set_int(cx->g, n, name, v);
    return 0;
}
