/*
 * onnx_import.c — the ModelProto walk: read the file, decode it with protobuf-c into the
 * arena, find the default-domain opset, turn initializers into constant tensors, declare
 * graph inputs and outputs, and hand every node to its importer (onnx_ops.c's table).
 *
 * A hostile file must get a message, never a crash or an unbounded allocation: the file is
 * read up to its real size, decoding may use at most DECODE_BASE + DECODE_FACTOR times the
 * file size, and every count and size taken from the model (ranks, dims, element counts,
 * data lengths, external data offsets) is checked before it is used.
 *
 * Constant data is kept little-endian as ONNX stores it: lstmc builds on little-endian
 * hosts only.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "arena.h"
#include "diag.h"
#include "onnx.h"
#include "onnx_impl.h"
#include "shape.h"
#include "wfmt.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Decoding budget: protobuf-c's structs are larger than their encoding (a 2-byte empty
 * message becomes a ~100-byte struct), so allow a generous multiple of the file size. */
#define DECODE_BASE   ((size_t)64 << 20)
#define DECODE_FACTOR 16

/* --- data types ------------------------------------------------------------------- */

static const char *const dtype_names[] = {
    "UNDEFINED",      "FLOAT",      "UINT8",          "INT8",       "UINT16",   "INT16",
    "INT32",          "INT64",      "STRING",         "BOOL",       "FLOAT16",  "DOUBLE",
    "UINT32",         "UINT64",     "COMPLEX64",      "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
    "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",      "INT4",     "FLOAT4E2M1",
};

const char *
onnx_dtype_name(int32_t code)
{
    if (code >= 0 && (size_t)code < sizeof dtype_names / sizeof dtype_names[0])
        return dtype_names[code];
    return "UNKNOWN";
}

ir_dtype
onnx_dtype(int32_t code)
{
    switch (code) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
        return IR_DT_F32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
        return IR_DT_I64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
        return IR_DT_I32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
        return IR_DT_BOOL;
    default:
        return IR_DT_UNDEF;
    }
}

/* --- tensors ---------------------------------------------------------------------- */

/* "tensor 'name': <message>", inside the current node when there is one. */
static void terr(onnx_ctx *cx, const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void
terr(onnx_ctx *cx, const char *name, const char *fmt, ...)
{
    char body[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    onnx_err(cx, "tensor '%s': %s", name, body);
}

/* Parse a non-negative decimal (external data offset/length); -1 when malformed. */
static int64_t
parse_size(const char *s)
{
    int64_t v = 0;
    if (!s || !*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

/* A relative path that stays inside the model's folder: no leading '/', no ".." part. */
static int
path_is_safe(const char *p)
{
    const char *s = p;
    if (!*p || *p == '/')
        return 0;
    while (*s) {
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return 0;
        s += n;
        while (*s == '/')
            s++;
    }
    return 1;
}

/* Read `need` bytes of external data for tensor `name` into the arena; NULL on error. */
static unsigned char *
read_external(onnx_ctx *cx, const Onnx__TensorProto *tp, const char *name, size_t need)
{
    const char *loc = NULL, *off_s = NULL, *len_s = NULL;
    int64_t off = 0, len = (int64_t)need;
    const char *path;
    struct stat st;
    unsigned char *buf;
    FILE *f;
    size_t i;

    for (i = 0; i < tp->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = tp->external_data[i];
        if (!e || !e->key)
            continue;
        if (strcmp(e->key, "location") == 0)
            loc = e->value;
        else if (strcmp(e->key, "offset") == 0)
            off_s = e->value;
        else if (strcmp(e->key, "length") == 0)
            len_s = e->value;
    }
    if (!loc || !*loc) {
        terr(cx, name, "external data has no 'location'");
        return NULL;
    }
    if (!path_is_safe(loc)) {
        terr(cx, name,
             "external data location '%s' must be a relative path inside the "
             "model's folder",
             loc);
        return NULL;
    }
    if (off_s && (off = parse_size(off_s)) < 0) {
        terr(cx, name, "external data offset '%s' is not a non-negative integer", off_s);
        return NULL;
    }
    if (len_s && (len = parse_size(len_s)) < 0) {
        terr(cx, name, "external data length '%s' is not a non-negative integer", len_s);
        return NULL;
    }
    if ((uint64_t)len != need) {
        terr(cx, name, "external data length %lld does not match its dims (%zu bytes)",
             (long long)len, need);
        return NULL;
    }
    path = arena_printf(cx->a, "%s/%s", cx->dir, loc);
    f = fopen(path, "rb");
    if (!f) {
        terr(cx, name, "external data file '%s' cannot be opened: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        terr(cx, name, "external data file '%s' is not a regular file", path);
        fclose(f);
        return NULL;
    }
    if (off > (int64_t)st.st_size || (int64_t)need > (int64_t)st.st_size - off) {
        terr(cx, name,
             "external data file '%s' has %lld bytes; offset %lld + length %zu "
             "does not fit",
             path, (long long)st.st_size, (long long)off, need);
        fclose(f);
        return NULL;
    }
    buf = arena_alloc(cx->scratch, need); /* copied into the tensor, then freed */
    if (fseeko(f, (off_t)off, SEEK_SET) != 0 || fread(buf, 1, need, f) != need) {
        terr(cx, name, "external data file '%s' cannot be read: %s", path, strerror(errno));
        fclose(f);
        return NULL;
    }
    fclose(f);
    return buf;
}

ir_tensor *
onnx_tensor_read(onnx_ctx *cx, const Onnx__TensorProto *tp, const char *name, int in_graph)
{
    int32_t code = tp->has_data_type ? tp->data_type : 0;
    ir_dtype dt = onnx_dtype(code);
    size_t src_size, n_typed = 0, i;
    int is_double = code == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE;
    int half = code == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16 ||
               code == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16;
    /* the quantised integer types: 1 or 2 bytes per value */
    int byte =
        code == ONNX__TENSOR_PROTO__DATA_TYPE__INT8 || code == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8
            ? 1
        : code == ONNX__TENSOR_PROTO__DATA_TYPE__INT16 ||
                code == ONNX__TENSOR_PROTO__DATA_TYPE__UINT16
            ? 2
            : 0;
    const unsigned char *raw = NULL;
    const char *typed_name = NULL;
    unsigned char *data;
    int64_t numel = 1;
    int adopted = 0;
    char dims[256];
    ir_shape s;
    ir_tensor *t;

    /* Doubles and 16-bit floats become floats (the 16-bit ones exactly; the graph remembers
     * the precision so --weights can keep it); 8- and 16-bit integers are widened to i32 and
     * may only feed DequantizeLinear and QuantizeLinear (zero points). */
    if (is_double || half)
        dt = IR_DT_F32;
    if (byte)
        dt = IR_DT_I32;
    if (dt == IR_DT_UNDEF) {
        terr(cx, name,
             "has element type %s; supported: FLOAT, INT64, INT32, BOOL (and DOUBLE, "
             "FLOAT16, BFLOAT16, converted to FLOAT; INT8, UINT8, INT16 and UINT16 through "
             "DequantizeLinear)",
             onnx_dtype_name(code));
        return NULL;
    }
    src_size = is_double ? 8 : half ? 2 : byte ? (size_t)byte : ir_dtype_size(dt);

    memset(&s, 0, sizeof s);
    if (tp->n_dims > IR_MAX_RANK) {
        terr(cx, name, "has rank %zu; lstmc supports at most %d", tp->n_dims, IR_MAX_RANK);
        return NULL;
    }
    s.rank = (int)tp->n_dims;
    {
        size_t len = (size_t)snprintf(dims, sizeof dims, "[");
        for (i = 0; i < tp->n_dims; i++) {
            s.d[i] = tp->dims[i];
            if (len < sizeof dims)
                len += (size_t)snprintf(dims + len, sizeof dims - len, "%s%lld", i ? "," : "",
                                        (long long)tp->dims[i]);
        }
        if (len < sizeof dims)
            snprintf(dims + len, sizeof dims - len, "]");
    }
    for (i = 0; i < tp->n_dims; i++) {
        if (tp->dims[i] < 0) {
            terr(cx, name, "has a negative dim in dims %s", dims);
            return NULL;
        }
    }
    numel = ir_shape_numel(&s);
    if (numel < 0) {
        terr(cx, name, "dims %s hold more than %lld elements, the most lstmc allows", dims,
             (long long)IR_MAX_ELEMS);
        return NULL;
    }
    if (tp->segment) {
        terr(cx, name, "segmented tensors are not supported");
        return NULL;
    }

    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        raw = read_external(cx, tp, name, (size_t)numel * src_size);
        if (!raw)
            return NULL;
    } else if (tp->has_raw_data) {
        if (tp->raw_data.len != (size_t)numel * src_size) {
            terr(cx, name, "raw_data has %zu bytes; dims %s of %s need %zu", tp->raw_data.len, dims,
                 onnx_dtype_name(code), (size_t)numel * src_size);
            return NULL;
        }
        raw = tp->raw_data.data;
    } else {
        switch (code) {
        case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
            n_typed = tp->n_float_data, typed_name = "float_data";
            break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
            n_typed = tp->n_int64_data, typed_name = "int64_data";
            break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
            n_typed = tp->n_double_data, typed_name = "double_data";
            break;
        default: /* INT32, BOOL, and FLOAT16/BFLOAT16/INT8/UINT8/INT16/UINT16 (one value
                  * per int32) */
            n_typed = tp->n_int32_data, typed_name = "int32_data";
            break;
        }
        if (n_typed != (size_t)numel) {
            terr(cx, name, "%s has %zu values; dims %s need %lld", typed_name, n_typed, dims,
                 (long long)numel);
            return NULL;
        }
    }

    if (raw && !is_double && !half && !byte && dt != IR_DT_BOOL &&
        arena_blob_size(cx->a, raw) > 0) {
        /* the decoder's own block of these bytes (a blob, decode_alloc): kept, not copied */
        data = (unsigned char *)raw;
        ir_data_adopt(cx->g, data);
        adopted = 1;
    } else {
        data = in_graph ? ir_data_alloc(cx->g, (size_t)numel * ir_dtype_size(dt))
                        : arena_alloc(cx->a, (size_t)numel * ir_dtype_size(dt));
    }
    if (numel == 0 || adopted) {
        /* nothing to copy, and the typed arrays may be NULL (memcpy from NULL is UB) */
    } else if (raw && is_double) {
        for (i = 0; i < (size_t)numel; i++) {
            double v;
            memcpy(&v, raw + 8 * i, 8);
            ((float *)data)[i] = (float)v;
        }
    } else if (half) {
        for (i = 0; i < (size_t)numel; i++) {
            uint16_t bits;
            if (raw)
                memcpy(&bits, raw + 2 * i, 2);
            else
                bits = (uint16_t)tp->int32_data[i];
            ((float *)data)[i] = code == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16
                                     ? lstmc_rt_f16_to_f32(bits)
                                     : lstmc_rt_bf16_to_f32(bits);
        }
        if (in_graph) {
            int h = code == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16 ? LSTMC_RT_WFMT_FP16
                                                                   : LSTMC_RT_WFMT_BF16;
            if (h > cx->g->weights_hint)
                cx->g->weights_hint = h;
        }
    } else if (byte == 1) {
        int is_signed = code == ONNX__TENSOR_PROTO__DATA_TYPE__INT8;
        for (i = 0; i < (size_t)numel; i++) {
            int32_t v = raw ? (int32_t)raw[i] : tp->int32_data[i];
            ((int32_t *)data)[i] = is_signed ? (int32_t)(int8_t)(uint8_t)v : (int32_t)(uint8_t)v;
        }
    } else if (byte == 2) { /* little-endian in raw_data */
        int is_signed = code == ONNX__TENSOR_PROTO__DATA_TYPE__INT16;
        for (i = 0; i < (size_t)numel; i++) {
            int32_t v = raw ? (int32_t)(raw[2 * i] | raw[2 * i + 1] << 8) : tp->int32_data[i];
            ((int32_t *)data)[i] = is_signed ? (int32_t)(int16_t)(uint16_t)v : (int32_t)(uint16_t)v;
        }
    } else if (raw && dt == IR_DT_BOOL) {
        for (i = 0; i < (size_t)numel; i++)
            data[i] = raw[i] != 0;
    } else if (raw) {
        memcpy(data, raw, (size_t)numel * src_size);
    } else if (is_double) {
        for (i = 0; i < (size_t)numel; i++)
            ((float *)data)[i] = (float)tp->double_data[i];
    } else if (dt == IR_DT_F32) {
        memcpy(data, tp->float_data, (size_t)numel * 4);
    } else if (dt == IR_DT_I64) {
        memcpy(data, tp->int64_data, (size_t)numel * 8);
    } else if (dt == IR_DT_I32) {
        memcpy(data, tp->int32_data, (size_t)numel * 4);
    } else {
        for (i = 0; i < (size_t)numel; i++)
            data[i] = tp->int32_data[i] != 0;
    }

    if (in_graph) {
        t = ir_tensor_new(cx->g, name, dt, &s);
        if (!t) {
            terr(cx, name, "is defined twice");
            return NULL;
        }
    } else {
        t = arena_alloc(cx->a, sizeof *t);
        t->id = -1;
        t->name = arena_strdup(cx->a, name);
        t->dtype = dt;
        t->shape = s;
    }
    t->data = data;
    t->qsrc = byte ? code : 0;
    return t;
}

/* --- graph inputs ----------------------------------------------------------------- */

static int
import_input(onnx_ctx *cx, const Onnx__ValueInfoProto *vi)
{
    const Onnx__TypeProto__Tensor *tt;
    ir_tensor *t;
    ir_shape s;
    size_t i;

    if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !vi->type->tensor_type) {
        diag_error(cx->d, "graph input '%s' is not a tensor (or has no type)", vi->name);
        return -1;
    }
    tt = vi->type->tensor_type;
    if (onnx_dtype(tt->elem_type) == IR_DT_UNDEF) {
        diag_error(cx->d,
                   "graph input '%s' has element type %s; supported: FLOAT, INT64, "
                   "INT32, BOOL",
                   vi->name, onnx_dtype_name(tt->elem_type));
        return -1;
    }
    memset(&s, 0, sizeof s);
    s.rank = -1;
    if (tt->shape) {
        if (tt->shape->n_dim > IR_MAX_RANK) {
            diag_error(cx->d, "graph input '%s' has rank %zu; lstmc supports at most %d", vi->name,
                       tt->shape->n_dim, IR_MAX_RANK);
            return -1;
        }
        s.rank = (int)tt->shape->n_dim;
        for (i = 0; i < tt->shape->n_dim; i++) {
            const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[i];
            s.d[i] = -1;
            if (!dm)
                continue;
            if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
                if (dm->dim_value < 0 || dm->dim_value > IR_MAX_ELEMS) {
                    diag_error(cx->d, "graph input '%s' has dim %zu = %lld; expected 0 to %lld",
                               vi->name, i, (long long)dm->dim_value, (long long)IR_MAX_ELEMS);
                    return -1;
                }
                s.d[i] = dm->dim_value;
            } else if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                       dm->dim_param && dm->dim_param[0]) {
                s.sym[i] = arena_strdup(cx->a, dm->dim_param);
            }
        }
        if (ir_shape_numel(&s) == -2) {
            char buf[256];
            shape_fmt(&s, buf, sizeof buf);
            diag_error(cx->d, "graph input '%s' has shape %s, more than %lld elements", vi->name,
                       buf, (long long)IR_MAX_ELEMS);
            return -1;
        }
    }
    t = ir_tensor_new(cx->g, vi->name, onnx_dtype(tt->elem_type), &s);
    if (!t) {
        diag_error(cx->d, "graph input '%s' is declared twice", vi->name);
        return -1;
    }
    ir_graph_add_input(cx->g, t);
    return 0;
}

/* --- the model -------------------------------------------------------------------- */

typedef struct decode_budget {
    arena *a;   /* scratch: the decoded message, freed after the import */
    arena *dst; /* the graph's arena: big blocks (tensor bytes) are blobs there */
    void **big; /* those blobs, freed after the import unless a tensor adopted one */
    size_t n_big, cap_big;
    size_t used, cap;
    int over;
} decode_budget;

static void *
decode_alloc(void *ud, size_t size)
{
    decode_budget *b = ud;
    size_t r = (size + 63) & ~(size_t)63;
    if (r < size || r > b->cap - b->used) {
        b->over = 1;
        return NULL;
    }
    b->used += r;
    if (size >= IR_DATA_BLOB_MIN) { /* raw_data: the tensor may keep these very bytes */
        void *p = arena_blob(b->dst, size);
        b->big = arena_grow(b->a, b->big, sizeof *b->big, b->n_big, &b->cap_big, b->n_big + 1);
        b->big[b->n_big++] = p;
        return p;
    }
    return arena_alloc(b->a, size);
}

static void
decode_free(void *ud, void *p)
{
    (void)ud;
    (void)p; /* the arena owns it */
}

/* The whole file in the arena; NULL after reporting. */
static unsigned char *
read_model(diag *d, arena *a, const char *path, size_t *len)
{
    struct stat st;
    unsigned char *buf;
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_error(d, "cannot open the model: %s", strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_error(d, "cannot read the model: not a regular file");
        fclose(f);
        return NULL;
    }
    if (st.st_size == 0) {
        diag_error(d, "not a valid ONNX model (the file is empty)");
        fclose(f);
        return NULL;
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / (DECODE_FACTOR + 1)) {
        diag_error(d, "not a valid ONNX model (the file is too large: %lld bytes)",
                   (long long)st.st_size);
        fclose(f);
        return NULL;
    }
    *len = (size_t)st.st_size;
    buf = arena_blob(a, *len); /* freed once decoded (decode_model) */
    if (fread(buf, 1, *len, f) != *len) {
        diag_error(d, "cannot read the model: %s", ferror(f) ? strerror(errno) : "short read");
        fclose(f);
        return NULL;
    }
    fclose(f);
    return buf;
}

static const char *
dir_of(arena *a, const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    if (!slash)
        return ".";
    if (slash == path)
        return "/";
    dir = arena_alloc(a, (size_t)(slash - path) + 1);
    memcpy(dir, path, (size_t)(slash - path));
    return dir;
}

static int
default_opset(const Onnx__ModelProto *m)
{
    size_t i;
    for (i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[i];
        if (!o)
            continue;
        if (!o->domain || !o->domain[0] || strcmp(o->domain, "ai.onnx") == 0) {
            if (!o->has_version || o->version < 1 || o->version > INT_MAX)
                return -1;
            return (int)o->version;
        }
    }
    return 0;
}

static int
is_default_domain(const char *dom)
{
    return !dom || !dom[0] || strcmp(dom, "ai.onnx") == 0;
}

static void
import_node(onnx_ctx *cx, const Onnx__NodeProto *np, size_t k)
{
    onnx_importer fn;
    const char *op = np->op_type && np->op_type[0] ? np->op_type : "?";
    int first = cx->g->n_nodes, i;
    cx->op_type = op;
    cx->unnamed = np->name && np->name[0] ? -1 : (long)k;
    cx->node = np->name && np->name[0] ? np->name : arena_printf(cx->a, "%s_%zu", op, k);
    if (!np->op_type || !np->op_type[0]) {
        onnx_err(cx, "has no op_type");
    } else if (!is_default_domain(np->domain)) {
        const char *hint = onnx_ort_domain_hint(op);
        if (hint)
            onnx_err(cx, "unsupported operator '%s' (domain '%s'; written by %s)", op, np->domain,
                     hint);
        else
            onnx_err(cx, "unsupported operator '%s' (domain '%s')", op, np->domain);
        cx->n_unsupported++;
    } else if (!(fn = onnx_op_find(op))) {
        const char *hint = onnx_pytorch_hint(op);
        if (hint)
            onnx_err(cx, "unsupported operator '%s' (in PyTorch usually from %s)", op, hint);
        else
            onnx_err(cx, "unsupported operator '%s'", op);
        cx->n_unsupported++;
    } else {
        fn(cx, np);
    }
    for (i = first; i < cx->g->n_nodes; i++) { /* the IR nodes made from np */
        cx->g->nodes[i]->onnx_index = (int)k;
        cx->g->nodes[i]->unnamed = cx->unnamed >= 0;
    }
    cx->node = NULL;
    cx->op_type = NULL;
    cx->unnamed = -1;
}

static ir_graph *import_model(const unsigned char *buf, size_t len, const char *path, arena *a,
                              arena *scratch, diag *d, int rest);
static ir_graph *decode_model(const unsigned char *buf, size_t len, const char *path, arena *a,
                              decode_budget *budget, diag *d, int rest);

/*
 * Mark in bad[] (one flag per tensor of g) every tensor that waits on a refused node: a
 * tensor no node makes, no initializer holds and no input feeds is an output of a refused
 * node, and what reads it, directly or not, waits on it too. hit[] (one flag per ONNX node,
 * n_onnx of them) marks the nodes that read such a tensor; returns how many.
 */
static int
taint_refused(ir_graph *g, char *bad, char *hit, size_t n_onnx)
{
    int i, downstream = 0, changed = 1, rounds = 0;
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        bad[i] = !t->producer && !t->data && !t->is_input;
    }
    while (changed && rounds++ < g->n_nodes + 1) {
        changed = 0;
        for (i = 0; i < g->n_nodes; i++) {
            const ir_node *n = g->nodes[i];
            int reads = 0, m;
            if (n->dead)
                continue;
            for (m = 0; m < n->n_inputs; m++)
                reads |= n->inputs[m] && bad[n->inputs[m]->id];
            for (m = 0; reads && m < n->n_outputs; m++) {
                if (n->outputs[m] && !bad[n->outputs[m]->id]) {
                    bad[n->outputs[m]->id] = 1;
                    changed = 1;
                }
            }
            if (reads && n->onnx_index >= 0 && (size_t)n->onnx_index < n_onnx &&
                !hit[n->onnx_index]) {
                hit[n->onnx_index] = 1;
                downstream++;
            }
        }
    }
    return downstream;
}

/*
 * The rest of a graph whose only refusals were unsupported operators (onnx_import_rest):
 * every node that waits on a refused one is dropped, and the graph's outputs become those
 * that do not wait on one plus every tensor a dropped or refused node reads (the frontier),
 * so what feeds the refused nodes is compiled and checked too.
 */
static ir_graph *
rest_graph(onnx_ctx *cx, const Onnx__GraphProto *gp, diag *d)
{
    ir_graph *g = cx->g;
    char *bad = arena_calloc(cx->scratch, (size_t)g->n_tensors + 1, 1);
    char *hit = arena_calloc(cx->scratch, gp->n_node + 1, 1);
    char *kept = arena_calloc(cx->scratch, (size_t)g->n_tensors + 1, 1);
    ir_tensor **outs = arena_calloc(cx->scratch, (size_t)g->n_tensors + 1, sizeof *outs);
    int n_outs = 0, i, m;
    size_t k, q;
#define REST_KEEP(t)                                                                               \
    do {                                                                                           \
        if (!kept[(t)->id]) {                                                                      \
            kept[(t)->id] = 1;                                                                     \
            outs[n_outs++] = (t);                                                                  \
        }                                                                                          \
    } while (0)
    taint_refused(g, bad, hit, gp->n_node);
    for (i = 0; i < g->n_outputs; i++) {
        g->outputs[i]->is_output = 0;
        if (!bad[g->outputs[i]->id])
            REST_KEEP(g->outputs[i]);
    }
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        int reads = 0;
        if (n->dead)
            continue;
        for (m = 0; m < n->n_inputs; m++)
            reads |= n->inputs[m] && bad[n->inputs[m]->id];
        if (!reads)
            continue;
        n->dead = 1;
        for (m = 0; m < n->n_inputs; m++)
            if (n->inputs[m] && !bad[n->inputs[m]->id] && n->inputs[m]->producer)
                REST_KEEP(n->inputs[m]);
    }
    for (k = 0; k < gp->n_node; k++) { /* the refused nodes' own inputs */
        const Onnx__NodeProto *np = gp->node[k];
        int refused = np->op_type && np->op_type[0] &&
                      (!is_default_domain(np->domain) || !onnx_op_find(np->op_type));
        for (q = 0; refused && q < np->n_input; q++) {
            ir_tensor *t = np->input[q] && np->input[q][0] ? ir_tensor_find(g, np->input[q]) : NULL;
            if (t && !bad[t->id] && t->producer)
                REST_KEEP(t);
        }
    }
#undef REST_KEEP
    g->n_outputs = 0;
    for (i = 0; i < n_outs; i++)
        ir_graph_add_output(g, outs[i]);
    if (ir_toposort(g, d) < 0)
        return NULL;
    return g;
}

/*
 * After a run that refused nodes for their op type: one line that says whether those are
 * the only obstacle the import found (every other node's op, attributes and arity are
 * supported) and how many of the other nodes read their results (whose shapes can be
 * checked only once they are supported). `errors` counts every error of the import.
 */
static void
unsupported_summary(onnx_ctx *cx, const Onnx__GraphProto *gp, int errors)
{
    ir_graph *g = cx->g;
    char ops[512];
    size_t k = 0, i, j;
    int other = errors - cx->n_unsupported, downstream;
    size_t n_ops = 0; /* the nodes that compute: Constant nodes are initializers here */
    char *bad = arena_calloc(cx->scratch, (size_t)g->n_tensors + 1, 1);
    char *hit = arena_calloc(cx->scratch, gp->n_node + 1, 1);
    ops[0] = '\0';
    for (i = 0; i < gp->n_node; i++) { /* the distinct op types refused, in node order */
        const char *op = gp->node[i]->op_type, *dom = gp->node[i]->domain;
        int seen = 0, other_domain = !is_default_domain(dom);
        if (!op || !op[0] || (!other_domain && onnx_op_find(op)))
            continue;
        for (j = 0; j < i && !seen; j++)
            seen = gp->node[j]->op_type && strcmp(gp->node[j]->op_type, op) == 0 &&
                   is_default_domain(gp->node[j]->domain) == !other_domain &&
                   (!other_domain || strcmp(gp->node[j]->domain, dom) == 0);
        if (!seen && k < sizeof ops)
            k += (size_t)snprintf(ops + k, sizeof ops - k, "%s%s%s%s%s", k ? ", " : "", op,
                                  other_domain ? " (" : "", other_domain ? dom : "",
                                  other_domain ? ")" : "");
    }
    downstream = taint_refused(g, bad, hit, gp->n_node);
    for (i = 0; i < gp->n_node; i++)
        n_ops += !gp->node[i]->op_type || strcmp(gp->node[i]->op_type, "Constant") != 0;
    if (other <= 0 && downstream == 0)
        diag_error(cx->d,
                   "%d of the %zu nodes use operators lstmc does not support (%s); they are "
                   "the only obstacle the import found: every other node is supported as "
                   "written, and none of them reads their results",
                   cx->n_unsupported, n_ops, ops);
    else if (other <= 0)
        diag_error(cx->d,
                   "%d of the %zu nodes use operators lstmc does not support (%s); they are "
                   "the only obstacle the import found: every other node is supported as "
                   "written (%d of them read their results, so their shapes are checked once "
                   "those operators are supported or removed from the export)",
                   cx->n_unsupported, n_ops, ops, downstream);
    else
        diag_error(cx->d,
                   "%d of the %zu nodes use operators lstmc does not support (%s); besides "
                   "them, the import refused %d other thing%s (above)",
                   cx->n_unsupported, n_ops, ops, other, other == 1 ? "" : "s");
}

/* The file and its decoded protobuf live in a scratch arena, freed once the graph (which
 * copies every name, attribute and tensor it keeps into a) is built: a model's bytes are
 * held once after the import, not three times. */
ir_graph *
onnx_import(const char *path, arena *a, diag *d)
{
    arena *scratch = arena_new(0);
    unsigned char *buf;
    size_t len = 0;
    ir_graph *g = NULL;

    buf = read_model(d, scratch, path, &len);
    if (buf)
        g = import_model(buf, len, path, a, scratch, d, 0);
    arena_free(scratch);
    return g;
}

ir_graph *
onnx_import_rest(const char *path, arena *a, diag *d)
{
    arena *scratch = arena_new(0);
    unsigned char *buf;
    size_t len = 0;
    ir_graph *g = NULL;

    buf = read_model(d, scratch, path, &len);
    if (buf)
        g = import_model(buf, len, path, a, scratch, d, 1);
    arena_free(scratch);
    return g;
}

ir_graph *
onnx_import_buffer(const void *data, size_t size, const char *name, arena *a, diag *d)
{
    unsigned char *buf;
    if (size == 0) {
        diag_error(d, "not a valid ONNX model (the file is empty)");
        return NULL;
    }
    if (size > SIZE_MAX / (DECODE_FACTOR + 1)) {
        diag_error(d, "not a valid ONNX model (the file is too large: %zu bytes)", size);
        return NULL;
    }
    {
        arena *scratch = arena_new(0);
        ir_graph *g;
        buf = arena_alloc(scratch, size);
        memcpy(buf, data, size);
        g = import_model(buf, size, name, a, scratch, d, 0);
        arena_free(scratch);
        return g;
    }
}

/* Decode the ModelProto in buf[len] (into scratch) and build its graph in a; path names it
 * in messages and locates external data. The decoder's big blocks that no tensor kept are
 * freed here. */
static ir_graph *
import_model(const unsigned char *buf, size_t len, const char *path, arena *a, arena *scratch,
             diag *d, int rest)
{
    decode_budget budget;
    ir_graph *g;
    size_t i;
    memset(&budget, 0, sizeof budget);
    budget.a = scratch;
    budget.dst = a;
    budget.cap = DECODE_BASE + DECODE_FACTOR * len;
    g = decode_model(buf, len, path, a, &budget, d, rest);
    for (i = 0; i < budget.n_big; i++)
        if (!g || !ir_data_is_blob(g, budget.big[i]))
            arena_blob_free(a, budget.big[i]);
    return g;
}

static ir_graph *
decode_model(const unsigned char *buf, size_t len, const char *path, arena *a,
             decode_budget *budget, diag *d, int rest)
{
    int errors0 = diag_count(d);
    ProtobufCAllocator alloc;
    Onnx__ModelProto *m;
    const Onnx__GraphProto *gp;
    onnx_ctx cx;
    size_t i;
    int opset;

    alloc.alloc = decode_alloc;
    alloc.free = decode_free;
    alloc.allocator_data = budget;
    m = onnx__model_proto__unpack(&alloc, len, buf);
    if (arena_blob_size(budget->a, buf)) /* the file: decoded, its bytes are not needed */
        arena_blob_free(budget->a, (void *)buf);
    if (!m) {
        if (budget->over)
            diag_error(d, "not a valid ONNX model (decoding it needs more than %zu MiB)",
                       budget->cap >> 20);
        else
            diag_error(d, "not a valid ONNX model (protobuf decoding failed: truncated or "
                          "not a ModelProto)");
        return NULL;
    }
    gp = m->graph;
    if (!gp) {
        diag_error(d, "not a valid ONNX model (it has no graph)");
        return NULL;
    }
    opset = default_opset(m);
    if (opset == 0) {
        diag_error(d, "not a valid ONNX model (it imports no opset of the default domain)");
        return NULL;
    }
    if (opset < 0) {
        diag_error(d, "not a valid ONNX model (the default-domain opset has a bad version)");
        return NULL;
    }

    memset(&cx, 0, sizeof cx);
    cx.unnamed = -1;
    cx.a = a;
    cx.scratch = budget->a;
    cx.d = d;
    cx.opset = opset;
    cx.dir = dir_of(a, path);
    cx.g = ir_graph_new(a, gp->name && gp->name[0] ? gp->name : "graph", path);
    cx.g->opset = opset;
    cx.g->file_bytes = (int64_t)len;

    for (i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *tp = gp->initializer[i];
        if (!tp->name || !tp->name[0]) {
            diag_error(d, "initializer %zu has no name", i);
            continue;
        }
        onnx_tensor_read(&cx, tp, tp->name, 1);
    }
    for (i = 0; i < gp->n_sparse_initializer; i++) {
        const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
        diag_error(d, "tensor '%s': sparse initializers are not supported",
                   sp->values && sp->values->name ? sp->values->name : "?");
    }
    for (i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        ir_tensor *t;
        if (!vi->name || !vi->name[0]) {
            diag_error(d, "graph input %zu has no name", i);
            continue;
        }
        t = ir_tensor_find(cx.g, vi->name);
        if (t && t->data)
            continue; /* an initializer listed as input (IR version < 4): a constant */
        import_input(&cx, vi);
    }
    for (i = 0; i < gp->n_node; i++)
        import_node(&cx, gp->node[i], i);
    for (i = 0; i < gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = gp->output[i];
        ir_tensor *t;
        if (!vi->name || !vi->name[0]) {
            diag_error(d, "graph output %zu has no name", i);
            continue;
        }
        t = onnx_tensor_ref(&cx, vi->name);
        if (t->is_output) {
            diag_error(d, "graph output '%s' is listed twice", vi->name);
            continue;
        }
        ir_graph_add_output(cx.g, t);
    }
    if (gp->n_output == 0)
        diag_error(d, "the graph has no outputs");

    if (rest) /* onnx_import_rest: only when unsupported operators were the only refusals */
        return cx.n_unsupported > 0 && diag_count(d) - errors0 == cx.n_unsupported
                   ? rest_graph(&cx, gp, d)
                   : NULL;
    if (diag_count(d) > errors0) {
        if (cx.n_unsupported > 0)
            unsupported_summary(&cx, gp, diag_count(d) - errors0);
        return NULL;
    }
    if (ir_toposort(cx.g, d) < 0)
        return NULL;
    return cx.g;
}
