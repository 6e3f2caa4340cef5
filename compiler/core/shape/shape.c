/*
 * shape.c — dtype and shape inference, one rule per IR op, dispatched by a table indexed by
 * ir_op (ORDER IR_OP). Shapes follow the ONNX operators at their newest opset; inputs are
 * concrete (symbolic dims are bound by the driver first), so every rule can check exact
 * dims and report what a bad model got wrong in the model's own terms:
 *   input 'W' has shape [1,12,3]; hidden_size 4 with 1 direction needs [1,16,3]
 *
 * This file holds the helpers every rule shares and the dispatch; the rules live in
 * shape_rnn.c, shape_linalg.c, shape_eltwise.c and shape_layout.c (see shape_impl.h).
 *
 * Every computed dim is bounded before it is multiplied (IR_MAX_ELEMS), so a hostile
 * shape constant gives an error, never an overflow.
 */
#include "shape.h"

#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "shape_impl.h"

#include <stdio.h>
#include <string.h>

typedef int (*shape_fn)(ir_graph *g, ir_node *n, diag *d);

/* --- helpers ---------------------------------------------------------------------- */

/* The ONNX input names come from ir_ops.def; "input" where it names none. */
const char *
shape_input_name(int op, int i)
{
    const char *s = op < 0 || op >= IR_OP_COUNT ? NULL : ir_op_input_name((ir_op)op, i);
    return s ? s : "input";
}

const char *
shape_iname(const ir_node *n, int i)
{
    return shape_input_name((int)n->op, i);
}

int
shape_fmt(const ir_shape *s, char *buf, size_t n)
{
    size_t len = 0;
    int i;
    char tmp[64];
#define PUT(str)                                                                                   \
    do {                                                                                           \
        const char *p_ = (str);                                                                    \
        size_t l_ = strlen(p_);                                                                    \
        if (n && len < n - 1) {                                                                    \
            size_t c_ = l_ < n - 1 - len ? l_ : n - 1 - len;                                       \
            memcpy(buf + len, p_, c_);                                                             \
        }                                                                                          \
        len += l_;                                                                                 \
    } while (0)
    if (s->rank < 0) {
        PUT("?");
    } else {
        PUT("[");
        for (i = 0; i < s->rank && i < IR_MAX_RANK; i++) {
            if (i)
                PUT(",");
            if (s->d[i] >= 0) {
                snprintf(tmp, sizeof tmp, "%lld", (long long)s->d[i]);
                PUT(tmp);
            } else if (s->sym[i]) {
                PUT(s->sym[i]);
            } else {
                PUT("?");
            }
        }
        PUT("]");
    }
#undef PUT
    if (n)
        buf[len < n ? len : n - 1] = '\0';
    return (int)len;
}

/* shape_fmt into a ring of static buffers, for messages with several shapes. */
const char *
shape_str(const ir_shape *s)
{
    static char ring[4][256];
    static int k;
    char *b = ring[k++ & 3];
    shape_fmt(s, b, sizeof ring[0]);
    return b;
}

const char *
shape_ints_str(const int64_t *v, int n)
{
    static char ring[2][256];
    static int k;
    char *b = ring[k++ & 1];
    size_t len = 0;
    int i;
    len += (size_t)snprintf(b, sizeof ring[0], "[");
    for (i = 0; i < n && len < sizeof ring[0]; i++)
        len += (size_t)snprintf(b + len, sizeof ring[0] - len, "%s%lld", i ? "," : "",
                                (long long)v[i]);
    if (len < sizeof ring[0])
        snprintf(b + len, sizeof ring[0] - len, "]");
    return b;
}

ir_shape
shape_make(int rank)
{
    ir_shape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    return s;
}

int
shape_same_dims(const ir_shape *a, const ir_shape *b)
{
    int i;
    if (a->rank != b->rank)
        return 0;
    for (i = 0; i < a->rank; i++)
        if (a->d[i] != b->d[i])
            return 0;
    return 1;
}

int
shape_broadcast(const ir_shape *a, const ir_shape *b, ir_shape *out)
{
    ir_shape r;
    int i;
    if (a->rank < 0 || b->rank < 0) {
        *out = shape_make(-1);
        return 0;
    }
    r = shape_make(a->rank > b->rank ? a->rank : b->rank);
    for (i = 0; i < r.rank; i++) {
        int ia = i - (r.rank - a->rank), ib = i - (r.rank - b->rank);
        int64_t da = ia >= 0 ? a->d[ia] : 1, db = ib >= 0 ? b->d[ib] : 1;
        const char *sa = ia >= 0 ? a->sym[ia] : NULL, *sb = ib >= 0 ? b->sym[ib] : NULL;
        if (da == 1) {
            r.d[i] = db, r.sym[i] = sb;
        } else if (db == 1) {
            r.d[i] = da, r.sym[i] = sa;
        } else if (da >= 0 && db >= 0) {
            if (da != db)
                return -1;
            r.d[i] = da;
        } else if (da >= 0 || db >= 0) {
            r.d[i] = da >= 0 ? da : db; /* unknown vs known: assume it binds to the known */
        } else {
            r.d[i] = -1;
            r.sym[i] = sa && sb && strcmp(sa, sb) == 0 ? sa : NULL;
        }
    }
    *out = r;
    return 0;
}

/* Element count of a concrete shape, or -1 when it exceeds IR_MAX_ELEMS. */
int64_t
shape_numel(const ir_shape *s)
{
    int64_t n = ir_shape_numel(s);
    return n < 0 ? -1 : n;
}

/* Set output i (when present) to dtype dt and shape s; checks the element count. */
int
shape_set_out(ir_node *n, int i, ir_dtype dt, const ir_shape *s, diag *d)
{
    ir_tensor *t = ir_out(n, i);
    int k;
    if (!t)
        return 0;
    for (k = 0; k < s->rank; k++) {
        if (s->d[k] < 0 || s->d[k] > IR_MAX_ELEMS) {
            diag_node(d, n, "output '%s' would have dim %d = %lld", t->name, k, (long long)s->d[k]);
            return -1;
        }
    }
    if (shape_numel(s) < 0) {
        diag_node(d, n, "output '%s' would have shape %s, more than %lld elements", t->name,
                  shape_str(s), (long long)IR_MAX_ELEMS);
        return -1;
    }
    t->dtype = dt;
    t->shape = *s;
    for (k = 0; k < IR_MAX_RANK; k++)
        t->shape.sym[k] = NULL;
    return 0;
}

int
shape_need_dtype(ir_node *n, int i, unsigned mask, const char *want, diag *d)
{
    ir_tensor *t = ir_in(n, i);
    if (t && !(mask & (1u << t->dtype))) {
        diag_node(d, n, "input '%s' has dtype %s; expected %s", shape_iname(n, i),
                  ir_dtype_name(t->dtype), want);
        return -1;
    }
    return 0;
}

int
shape_need_rank(ir_node *n, int i, int rank, const char *what, diag *d)
{
    ir_tensor *t = ir_in(n, i);
    if (t && t->shape.rank != rank) {
        diag_node(d, n, "input '%s' has shape %s; expected rank %d%s%s", shape_iname(n, i),
                  shape_str(&t->shape), rank, what ? " " : "", what ? what : "");
        return -1;
    }
    return 0;
}

int
shape_same_dtype(ir_node *n, int i, int j, diag *d)
{
    ir_tensor *a = ir_in(n, i), *b = ir_in(n, j);
    if (a && b && a->dtype != b->dtype) {
        diag_node(d, n, "inputs '%s' (%s) and '%s' (%s) have different dtypes", shape_iname(n, i),
                  ir_dtype_name(a->dtype), shape_iname(n, j), ir_dtype_name(b->dtype));
        return -1;
    }
    return 0;
}

/* Normalise axis a for rank r into [0, r) (or [0, r] with inclusive). */
int
shape_norm_axis(ir_node *n, const char *what, int64_t a, int r, int inclusive, int *out, diag *d)
{
    int hi = inclusive ? r : r - 1;
    if (a < -(int64_t)r || a > hi) {
        diag_node(d, n, "%s is %lld; expected %d to %d for rank %d", what, (long long)a, -r, hi, r);
        return -1;
    }
    *out = (int)(a < 0 ? a + r : a);
    return 0;
}

int64_t
shape_elem_i64(const ir_tensor *t, int64_t k)
{
    switch (t->dtype) {
    case IR_DT_I64:
        return ((const int64_t *)t->data)[k];
    case IR_DT_I32:
        return ((const int32_t *)t->data)[k];
    case IR_DT_BOOL:
        return ((const uint8_t *)t->data)[k];
    case IR_DT_I8:
        return ((const int8_t *)t->data)[k];
    case IR_DT_I16:
        return ((const int16_t *)t->data)[k];
    default:
        return 0;
    }
}

void
shape_put_i64(ir_tensor *t, int64_t k, int64_t v)
{
    switch (t->dtype) {
    case IR_DT_I64:
        ((int64_t *)t->data)[k] = v;
        break;
    case IR_DT_I32:
        ((int32_t *)t->data)[k] = (int32_t)v;
        break;
    case IR_DT_BOOL:
        ((uint8_t *)t->data)[k] = v != 0;
        break;
    default:
        break;
    }
}

/*
 * The graph input whose values t is computed from, or NULL: a walk up the producers that
 * does not go through Shape (which reads only dims, bound by then). At most 4096 steps, so
 * a hostile graph cannot make it slow; NULL when none was found within them.
 */
static const ir_tensor *
dyn_source(const ir_tensor *t)
{
    const ir_tensor *stack[256];
    int sp = 0, steps = 0, i;
    stack[sp++] = t;
    while (sp > 0 && steps++ < 4096) {
        const ir_tensor *u = stack[--sp];
        const ir_node *p = u->producer;
        if (u->is_input)
            return u;
        if (!p || u->data || p->op == IR_OP_SHAPE)
            continue;
        for (i = p->n_inputs - 1; i >= 0; i--)
            if (p->inputs[i] && sp < (int)(sizeof stack / sizeof stack[0]))
                stack[sp++] = p->inputs[i];
    }
    return NULL;
}

/* "'shape' (tensor 'x', from the values of graph input 'ids')" for a non-constant operand. */
static size_t
dyn_operand(char *buf, size_t size, const ir_node *n, int i)
{
    const ir_tensor *t = ir_in(n, i), *src = t ? dyn_source(t) : NULL;
    if (src == t)
        return (size_t)snprintf(buf, size, "'%s' (graph input '%s')", shape_iname(n, i), t->name);
    if (src)
        return (size_t)snprintf(buf, size,
                                "'%s' (tensor '%s', computed from the values of graph "
                                "input '%s')",
                                shape_iname(n, i), t->name, src->name);
    return (size_t)snprintf(buf, size, "'%s' (tensor '%s')", shape_iname(n, i), t ? t->name : "?");
}

/* The message for non-constant shape operands: what they are and why lstmc needs them
 * constant (README, "Shape operands"). */
static void
dyn_report(ir_node *n, const char *names, int bad, int any_source, diag *d)
{
    diag_node(d, n,
              "%s %s %s not constant once the input dims are bound%s; lstmc compiles static "
              "shapes only, so a shape operand must not depend on a graph input's values "
              "(dynamic shapes are not supported)",
              bad > 1 ? "shape operands" : "shape operand", names, bad > 1 ? "are" : "is",
              any_source ? ""
              : bad > 1  ? " (lstmc could not fold them)"
                         : " (lstmc could not fold it)");
}

int
shape_need_consts(ir_node *n, int from, diag *d)
{
    char names[1024];
    size_t k = 0;
    int i, bad = 0, any_source = 0;
    names[0] = '\0';
    for (i = from; i < n->n_inputs; i++) {
        const ir_tensor *t = ir_in(n, i);
        if (!t || t->data)
            continue;
        any_source |= dyn_source(t) != NULL;
        if (k < sizeof names && bad)
            k += (size_t)snprintf(names + k, sizeof names - k, ", ");
        if (k < sizeof names)
            k += dyn_operand(names + k, sizeof names - k, n, i);
        bad++;
    }
    if (bad)
        dyn_report(n, names, bad, any_source, d);
    return bad ? -1 : 0;
}

/*
 * Read constant input i as up to max integers (int64 or int32, rank 0 or 1). Reports when
 * the input is not constant. Returns the count, or -1.
 */
int
shape_const_ints(ir_node *n, int i, int64_t *v, int max, diag *d)
{
    ir_tensor *t = ir_in(n, i);
    int64_t cnt, k;
    if (!t->data) {
        char name[512];
        dyn_operand(name, sizeof name, n, i);
        dyn_report(n, name, 1, dyn_source(t) != NULL, d);
        return -1;
    }
    if (t->dtype != IR_DT_I64 && t->dtype != IR_DT_I32) {
        diag_node(d, n, "input '%s' has dtype %s; expected i64", shape_iname(n, i),
                  ir_dtype_name(t->dtype));
        return -1;
    }
    if (t->shape.rank > 1) {
        diag_node(d, n, "input '%s' has shape %s; expected rank 1", shape_iname(n, i),
                  shape_str(&t->shape));
        return -1;
    }
    cnt = shape_numel(&t->shape);
    if (cnt < 0 || cnt > max) {
        diag_node(d, n, "input '%s' has %lld values; at most %d are supported", shape_iname(n, i),
                  (long long)cnt, max);
        return -1;
    }
    for (k = 0; k < cnt; k++)
        v[k] = shape_elem_i64(t, k);
    return (int)cnt;
}

/* 1 when the output should get constant data: every present input is a constant of an
 * integer dtype (or `any_dtype`), and the output is small. */
int
shape_foldable(const ir_node *n, int any_dtype)
{
    ir_tensor *o = ir_out(n, 0);
    int i;
    if (!o)
        return 0;
    for (i = 0; i < n->n_inputs; i++) {
        ir_tensor *t = n->inputs[i];
        if (!t)
            continue;
        if (!t->data)
            return 0;
        if (!any_dtype && t->dtype != IR_DT_I64 && t->dtype != IR_DT_I32)
            return 0;
    }
    return shape_numel(&o->shape) <= FOLD_MAX;
}

void *
shape_out_data(ir_graph *g, ir_tensor *o)
{
    size_t bytes = (size_t)shape_numel(&o->shape) * ir_dtype_size(o->dtype);
    o->data = ir_data_alloc(g, bytes);
    return o->data;
}

/* Output 0 takes input 0's data unchanged (Identity, Reshape, Squeeze, Unsqueeze,
 * Flatten: same elements in the same order). */
void
shape_fold_copy(ir_graph *g, ir_node *n)
{
    ir_tensor *o = ir_out(n, 0), *x = ir_in(n, 0);
    if (!shape_foldable(n, 0) || o->dtype != x->dtype)
        return;
    memcpy(shape_out_data(g, o), x->data, (size_t)shape_numel(&o->shape) * ir_dtype_size(o->dtype));
}

/* Flat index into `in` (broadcast to `out`) of flat output index k. */
int64_t
shape_bcast_index(const ir_shape *out, const ir_shape *in, int64_t k)
{
    int64_t idx = 0, stride = 1;
    int i;
    for (i = out->rank - 1; i >= 0; i--) {
        int64_t c = k % out->d[i];
        int j = i - (out->rank - in->rank);
        k /= out->d[i];
        if (j >= 0) {
            if (in->d[j] != 1)
                idx += c * stride;
            stride *= in->d[j];
        }
    }
    return idx;
}

/* --- dispatch ------------------------------------------------------------------------- */

/* The internal ops (lstmc.RnnProj, .RnnRec, .RnnTissue, .RnnDrs, .RnnQ, .GemmQ) have no row: the
 * pass that makes them sets their shapes, and shape inference runs before the passes.
 * lstmc.Quantize and .Dequantize have one: the importer makes them from QuantizeLinear and
 * DequantizeLinear of activations (issue 22). */
_Static_assert(IR_OP_COUNT == 97, "ORDER IR_OP: give the new op a row in shape_table");

static const shape_fn shape_table[IR_OP_COUNT] = {
    [IR_OP_LSTM] = shape_infer_rnn,
    [IR_OP_GRU] = shape_infer_rnn,
    [IR_OP_RNN] = shape_infer_rnn,
    [IR_OP_GEMM] = shape_infer_gemm,
    [IR_OP_MATMUL] = shape_infer_matmul,
    [IR_OP_ADD] = shape_infer_binary,
    [IR_OP_SUB] = shape_infer_binary,
    [IR_OP_MUL] = shape_infer_binary,
    [IR_OP_DIV] = shape_infer_binary,
    [IR_OP_RELU] = shape_infer_unary,
    [IR_OP_SIGMOID] = shape_infer_unary,
    [IR_OP_TANH] = shape_infer_unary,
    [IR_OP_NEG] = shape_infer_unary,
    [IR_OP_EXP] = shape_infer_unary,
    [IR_OP_SQRT] = shape_infer_unary,
    [IR_OP_SOFTMAX] = shape_infer_softmax,
    [IR_OP_LOG_SOFTMAX] = shape_infer_softmax,
    [IR_OP_ARGMAX] = shape_infer_argmax,
    [IR_OP_CAST] = shape_infer_cast,
    [IR_OP_QUANTIZE] = shape_infer_quant, /* issue 22 */
    [IR_OP_DEQUANTIZE] = shape_infer_quant,
    [IR_OP_GATHER] = shape_infer_gather,
    [IR_OP_TRANSPOSE] = shape_infer_transpose,
    [IR_OP_SQUEEZE] = shape_infer_squeeze,
    [IR_OP_UNSQUEEZE] = shape_infer_unsqueeze,
    [IR_OP_SLICE] = shape_infer_slice,
    [IR_OP_SHAPE] = shape_infer_shape,
    [IR_OP_SIZE] = shape_infer_size,
    [IR_OP_CONCAT] = shape_infer_concat,
    [IR_OP_RESHAPE] = shape_infer_reshape,
    [IR_OP_FLATTEN] = shape_infer_flatten,
    [IR_OP_EXPAND] = shape_infer_expand,
    [IR_OP_CONSTANT_OF_SHAPE] = shape_infer_constant_of_shape,
    [IR_OP_IDENTITY] = shape_infer_unary,
    /* issue 20, elt */
    [IR_OP_WHERE] = shape_infer_elt_binary,
    [IR_OP_EQUAL] = shape_infer_elt_binary,
    [IR_OP_LESS] = shape_infer_elt_binary,
    [IR_OP_GREATER] = shape_infer_elt_binary,
    [IR_OP_LESS_OR_EQUAL] = shape_infer_elt_binary,
    [IR_OP_GREATER_OR_EQUAL] = shape_infer_elt_binary,
    [IR_OP_AND] = shape_infer_elt_binary,
    [IR_OP_OR] = shape_infer_elt_binary,
    [IR_OP_NOT] = shape_infer_elt_unary,
    [IR_OP_POW] = shape_infer_elt_binary,
    [IR_OP_RECIPROCAL] = shape_infer_elt_unary,
    [IR_OP_LOG] = shape_infer_elt_unary,
    [IR_OP_ABS] = shape_infer_elt_unary,
    [IR_OP_CLIP] = shape_infer_elt_unary,
    [IR_OP_LEAKY_RELU] = shape_infer_elt_unary,
    [IR_OP_HARD_SIGMOID] = shape_infer_elt_unary,
    [IR_OP_HARD_SWISH] = shape_infer_elt_unary,
    [IR_OP_ERF] = shape_infer_elt_unary,
    [IR_OP_TILE] = shape_infer_tile,
    [IR_OP_RANGE] = shape_infer_range,
    [IR_OP_CUMSUM] = shape_infer_cumsum,
    /* issue 20, red */
    [IR_OP_REDUCE_MEAN] = shape_infer_reduce,
    [IR_OP_REDUCE_SUM] = shape_infer_reduce,
    [IR_OP_REDUCE_MAX] = shape_infer_reduce,
    [IR_OP_REDUCE_MIN] = shape_infer_reduce,
    [IR_OP_REDUCE_L2] = shape_infer_reduce,
    [IR_OP_LAYER_NORM] = shape_infer_layernorm,
    [IR_OP_PAD] = shape_infer_pad,
    [IR_OP_SPLIT] = shape_infer_split,
    [IR_OP_TOPK] = shape_infer_topk,
    [IR_OP_SCATTER_ELEMENTS] = shape_infer_scatter_elements,
    /* issue 20, conv */
    [IR_OP_CONV] = shape_infer_conv,
    [IR_OP_CONV_TRANSPOSE] = shape_infer_conv,
    [IR_OP_BATCH_NORM] = shape_infer_batch_norm,
    [IR_OP_MAX_POOL] = shape_infer_conv,
    [IR_OP_AVERAGE_POOL] = shape_infer_conv,
    [IR_OP_GLOBAL_AVERAGE_POOL] = shape_infer_conv,
    [IR_OP_GLOBAL_MAX_POOL] = shape_infer_conv,
    /* issue 20, ops */
    [IR_OP_PRELU] = shape_infer_elt_binary,
    [IR_OP_MIN] = shape_infer_elt_binary,
    [IR_OP_MAX] = shape_infer_elt_binary,
    [IR_OP_FLOOR] = shape_infer_elt_unary,
    [IR_OP_CEIL] = shape_infer_elt_unary,
    [IR_OP_SIGN] = shape_infer_elt_unary,
    [IR_OP_ROUND] = shape_infer_elt_unary,
    [IR_OP_SOFTPLUS] = shape_infer_elt_unary,
    [IR_OP_ELU] = shape_infer_elt_unary,
    [IR_OP_SELU] = shape_infer_elt_unary,
    [IR_OP_SIN] = shape_infer_elt_unary,
    [IR_OP_COS] = shape_infer_elt_unary,
    [IR_OP_ARGMIN] = shape_infer_argmax,
    [IR_OP_REDUCE_SUM_SQUARE] = shape_infer_reduce,
    [IR_OP_REDUCE_L1] = shape_infer_reduce,
    [IR_OP_REDUCE_PROD] = shape_infer_reduce,
    [IR_OP_REDUCE_LOG_SUM] = shape_infer_reduce,
    [IR_OP_REDUCE_LOG_SUM_EXP] = shape_infer_reduce,
    [IR_OP_INSTANCE_NORM] = shape_infer_instance_norm,
};

int
shape_infer_node(ir_graph *g, ir_node *n, diag *d)
{
    int i, errors = 0;
    if ((int)n->op < 0 || n->op >= IR_OP_COUNT || !shape_table[n->op]) {
        diag_node(d, n, "no shape inference for this op");
        return -1;
    }
    for (i = 0; i < n->n_inputs; i++) {
        ir_tensor *t = n->inputs[i];
        if (!t)
            continue;
        if (t->dtype == IR_DT_UNDEF) {
            diag_node(d, n, "input '%s' (tensor '%s') has no known dtype", shape_iname(n, i),
                      t->name);
            errors++;
        } else if (!ir_shape_known(&t->shape)) {
            diag_node(d, n, "input '%s' (tensor '%s') has shape %s; every dim must be known",
                      shape_iname(n, i), t->name, shape_str(&t->shape));
            errors++;
        }
    }
    if (n->op == IR_OP_CONCAT) {
        for (i = 0; i < n->n_inputs; i++) {
            if (!n->inputs[i]) {
                diag_node(d, n, "input %d is missing", i);
                errors++;
            }
        }
    }
    if (n->n_inputs < 1 || !n->inputs[0]) {
        diag_node(d, n, "input '%s' is missing", shape_iname(n, 0));
        errors++;
    }
    if (errors)
        return -1;
    return shape_table[n->op](g, n, d);
}
