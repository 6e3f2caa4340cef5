/*
 * shape.c — dtype and shape inference, one rule per IR op, dispatched by a table indexed by
 * ir_op (ORDER IR_OP). Shapes follow the ONNX operators at their newest opset; inputs are
 * concrete (symbolic dims are bound by the driver first), so every rule can check exact
 * dims and report what a bad model got wrong in the model's own terms:
 *   input 'W' has shape [1,12,3]; hidden_size 4 with 1 direction needs [1,16,3]
 *
 * Recurrent layers (ONNX LSTM/GRU/RNN), with G = 4 / 3 / 1 gates, D directions, H hidden:
 *   X [T,N,I] (layout 1: [N,T,I])   W [D,G*H,I]   R [D,G*H,H]   B [D,2*G*H]
 *   sequence_lens [N] int32   initial_h, initial_c [D,N,H] (layout 1: [N,D,H])   P [D,3H]
 *   Y [T,D,N,H] (layout 1: [N,T,D,H])   Y_h, Y_c [D,N,H] (layout 1: [N,D,H])
 *
 * Every computed dim is bounded before it is multiplied (IR_MAX_ELEMS), so a hostile
 * shape constant gives an error, never an overflow.
 */
#include "shape.h"

#include "arena.h"
#include "diag.h"
#include "ir.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Integer results up to this many elements are computed at compile time (shape maths). */
#define FOLD_MAX 4096

typedef int (*shape_fn)(ir_graph *g, ir_node *n, diag *d);

/* --- helpers ---------------------------------------------------------------------- */

/* ONNX input names per op, ORDER IR_OP. */
static const char *const input_names[][8] = {
    [IR_OP_LSTM] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"},
    [IR_OP_GRU] = {"X", "W", "R", "B", "sequence_lens", "initial_h"},
    [IR_OP_RNN] = {"X", "W", "R", "B", "sequence_lens", "initial_h"},
    [IR_OP_GEMM] = {"A", "B", "C"},
    [IR_OP_MATMUL] = {"A", "B"},
    [IR_OP_ADD] = {"A", "B"},
    [IR_OP_SUB] = {"A", "B"},
    [IR_OP_MUL] = {"A", "B"},
    [IR_OP_DIV] = {"A", "B"},
    [IR_OP_RELU] = {"X"},
    [IR_OP_SIGMOID] = {"X"},
    [IR_OP_TANH] = {"input"},
    [IR_OP_NEG] = {"X"},
    [IR_OP_EXP] = {"input"},
    [IR_OP_SQRT] = {"X"},
    [IR_OP_SOFTMAX] = {"input"},
    [IR_OP_LOG_SOFTMAX] = {"input"},
    [IR_OP_ARGMAX] = {"data"},
    [IR_OP_CAST] = {"input"},
    [IR_OP_GATHER] = {"data", "indices"},
    [IR_OP_TRANSPOSE] = {"data"},
    [IR_OP_SQUEEZE] = {"data", "axes"},
    [IR_OP_UNSQUEEZE] = {"data", "axes"},
    [IR_OP_SLICE] = {"data", "starts", "ends", "axes", "steps"},
    [IR_OP_SHAPE] = {"data"},
    [IR_OP_CONCAT] = {NULL},
    [IR_OP_RESHAPE] = {"data", "shape"},
    [IR_OP_FLATTEN] = {"input"},
    [IR_OP_EXPAND] = {"input", "shape"},
    [IR_OP_CONSTANT_OF_SHAPE] = {"input"},
    [IR_OP_IDENTITY] = {"input"},
};

const char *
shape_input_name(int op, int i)
{
    if (op < 0 || op >= (int)(sizeof input_names / sizeof input_names[0]) || i < 0 || i >= 8 ||
        !input_names[op][i])
        return "input";
    return input_names[op][i];
}

static const char *
iname(const ir_node *n, int i)
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
static const char *
fmt(const ir_shape *s)
{
    static char ring[4][256];
    static int k;
    char *b = ring[k++ & 3];
    shape_fmt(s, b, sizeof ring[0]);
    return b;
}

static const char *
fmt_ints(const int64_t *v, int n)
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

static ir_shape
mk_shape(int rank)
{
    ir_shape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    return s;
}

static int
same_dims(const ir_shape *a, const ir_shape *b)
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
        *out = mk_shape(-1);
        return 0;
    }
    r = mk_shape(a->rank > b->rank ? a->rank : b->rank);
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
static int64_t
numel(const ir_shape *s)
{
    int64_t n = ir_shape_numel(s);
    return n < 0 ? -1 : n;
}

/* Set output i (when present) to dtype dt and shape s; checks the element count. */
static int
set_out(ir_node *n, int i, ir_dtype dt, const ir_shape *s, diag *d)
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
    if (numel(s) < 0) {
        diag_node(d, n, "output '%s' would have shape %s, more than %lld elements", t->name, fmt(s),
                  (long long)IR_MAX_ELEMS);
        return -1;
    }
    t->dtype = dt;
    t->shape = *s;
    for (k = 0; k < IR_MAX_RANK; k++)
        t->shape.sym[k] = NULL;
    return 0;
}

static int
need_dtype(ir_node *n, int i, unsigned mask, const char *want, diag *d)
{
    ir_tensor *t = ir_in(n, i);
    if (t && !(mask & (1u << t->dtype))) {
        diag_node(d, n, "input '%s' has dtype %s; expected %s", iname(n, i),
                  ir_dtype_name(t->dtype), want);
        return -1;
    }
    return 0;
}

#define M_F32  (1u << IR_DT_F32)
#define M_I64  (1u << IR_DT_I64)
#define M_I32  (1u << IR_DT_I32)
#define M_BOOL (1u << IR_DT_BOOL)
#define M_INT  (M_I64 | M_I32)
#define M_NUM  (M_F32 | M_INT)
#define M_ANY  (M_NUM | M_BOOL)

static int
need_rank(ir_node *n, int i, int rank, const char *what, diag *d)
{
    ir_tensor *t = ir_in(n, i);
    if (t && t->shape.rank != rank) {
        diag_node(d, n, "input '%s' has shape %s; expected rank %d%s%s", iname(n, i),
                  fmt(&t->shape), rank, what ? " " : "", what ? what : "");
        return -1;
    }
    return 0;
}

static int
same_dtype(ir_node *n, int i, int j, diag *d)
{
    ir_tensor *a = ir_in(n, i), *b = ir_in(n, j);
    if (a && b && a->dtype != b->dtype) {
        diag_node(d, n, "inputs '%s' (%s) and '%s' (%s) have different dtypes", iname(n, i),
                  ir_dtype_name(a->dtype), iname(n, j), ir_dtype_name(b->dtype));
        return -1;
    }
    return 0;
}

/* Normalise axis a for rank r into [0, r) (or [0, r] with inclusive). */
static int
norm_axis(ir_node *n, const char *what, int64_t a, int r, int inclusive, int *out, diag *d)
{
    int hi = inclusive ? r : r - 1;
    if (a < -(int64_t)r || a > hi) {
        diag_node(d, n, "%s is %lld; expected %d to %d for rank %d", what, (long long)a, -r, hi, r);
        return -1;
    }
    *out = (int)(a < 0 ? a + r : a);
    return 0;
}

static int64_t
elem_i64(const ir_tensor *t, int64_t k)
{
    switch (t->dtype) {
    case IR_DT_I64:
        return ((const int64_t *)t->data)[k];
    case IR_DT_I32:
        return ((const int32_t *)t->data)[k];
    case IR_DT_BOOL:
        return ((const uint8_t *)t->data)[k];
    default:
        return 0;
    }
}

static void
put_i64(ir_tensor *t, int64_t k, int64_t v)
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
 * Read constant input i as up to max integers (int64 or int32, rank 0 or 1). Reports when
 * the input is not constant. Returns the count, or -1.
 */
static int
const_ints(ir_node *n, int i, int64_t *v, int max, diag *d)
{
    ir_tensor *t = ir_in(n, i);
    int64_t cnt, k;
    if (!t->data) {
        diag_node(d, n, "input '%s' must be a constant (dynamic shapes are not supported)",
                  iname(n, i));
        return -1;
    }
    if (t->dtype != IR_DT_I64 && t->dtype != IR_DT_I32) {
        diag_node(d, n, "input '%s' has dtype %s; expected i64", iname(n, i),
                  ir_dtype_name(t->dtype));
        return -1;
    }
    if (t->shape.rank > 1) {
        diag_node(d, n, "input '%s' has shape %s; expected rank 1", iname(n, i), fmt(&t->shape));
        return -1;
    }
    cnt = numel(&t->shape);
    if (cnt < 0 || cnt > max) {
        diag_node(d, n, "input '%s' has %lld values; at most %d are supported", iname(n, i),
                  (long long)cnt, max);
        return -1;
    }
    for (k = 0; k < cnt; k++)
        v[k] = elem_i64(t, k);
    return (int)cnt;
}

/* 1 when the output should get constant data: every present input is a constant of an
 * integer dtype (or `any_dtype`), and the output is small. */
static int
foldable(const ir_node *n, int any_dtype)
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
    return numel(&o->shape) <= FOLD_MAX;
}

static void *
out_data(ir_graph *g, ir_tensor *o)
{
    size_t bytes = (size_t)numel(&o->shape) * ir_dtype_size(o->dtype);
    o->data = arena_alloc(g->a, bytes);
    return o->data;
}

/* Output 0 takes input 0's data unchanged (Identity, Reshape, Squeeze, Unsqueeze,
 * Flatten: same elements in the same order). */
static void
fold_copy(ir_graph *g, ir_node *n)
{
    ir_tensor *o = ir_out(n, 0), *x = ir_in(n, 0);
    if (!foldable(n, 0) || o->dtype != x->dtype)
        return;
    memcpy(out_data(g, o), x->data, (size_t)numel(&o->shape) * ir_dtype_size(o->dtype));
}

/* Flat index into `in` (broadcast to `out`) of flat output index k. */
static int64_t
bcast_index(const ir_shape *out, const ir_shape *in, int64_t k)
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

/* --- recurrent layers ------------------------------------------------------------- */

static int
rnn_expect(ir_node *n, int i, const ir_shape *want, const char *why, diag *d)
{
    ir_tensor *t = ir_in(n, i);
    if (t && !same_dims(&t->shape, want)) {
        diag_node(d, n, "input '%s' has shape %s; %s needs %s", iname(n, i), fmt(&t->shape), why,
                  fmt(want));
        return -1;
    }
    return 0;
}

static ir_shape
dims3(int64_t a, int64_t b, int64_t c)
{
    ir_shape s = mk_shape(3);
    s.d[0] = a, s.d[1] = b, s.d[2] = c;
    return s;
}

static int
infer_rnn(ir_graph *g, ir_node *n, diag *d)
{
    int G = n->op == IR_OP_LSTM ? 4 : n->op == IR_OP_GRU ? 3 : 1;
    int64_t H = ir_attr_int(n, "hidden_size", 0);
    int D = ir_attr_int(n, "direction", 0) == 2 ? 2 : 1;
    int layout = (int)ir_attr_int(n, "layout", 0);
    int64_t T, N, I;
    ir_tensor *x = ir_in(n, 0), *sl = ir_in(n, 4);
    ir_shape s;
    char why[160], why_state[192];
    int errors = 0, i;
    (void)g;

    if (H <= 0) {
        diag_node(d, n, "attribute 'hidden_size' is missing");
        return -1;
    }
    for (i = 0; i < n->n_inputs; i++)
        if (i != 4 && need_dtype(n, i, M_F32, "f32", d) < 0)
            errors++;
    if (need_dtype(n, 4, M_I32, "i32", d) < 0)
        errors++;
    if (need_rank(n, 0, 3,
                  layout ? "([batch_size, seq_length, input_size], layout 1)"
                         : "([seq_length, batch_size, input_size])",
                  d) < 0 ||
        errors)
        return -1;
    T = layout ? x->shape.d[1] : x->shape.d[0];
    N = layout ? x->shape.d[0] : x->shape.d[1];
    I = x->shape.d[2];

    snprintf(why, sizeof why, "hidden_size %lld with %d direction%s", (long long)H, D,
             D == 1 ? "" : "s");
    snprintf(why_state, sizeof why_state, "%s and batch_size %lld (layout %d)", why, (long long)N,
             layout);
    s = dims3(D, G * H, I);
    errors += rnn_expect(n, 1, &s, why, d) < 0;
    s = dims3(D, G * H, H);
    errors += rnn_expect(n, 2, &s, why, d) < 0;
    s = mk_shape(2);
    s.d[0] = D, s.d[1] = 2 * G * H;
    errors += rnn_expect(n, 3, &s, why, d) < 0;
    if (sl) {
        s = mk_shape(1);
        s.d[0] = N;
        snprintf(why_state, sizeof why_state, "batch_size %lld", (long long)N);
        errors += rnn_expect(n, 4, &s, why_state, d) < 0;
        if (sl->data && same_dims(&sl->shape, &s)) {
            int64_t k;
            for (k = 0; k < N; k++) {
                int64_t v = elem_i64(sl, k);
                if (v < 0 || v > T) {
                    diag_node(d, n,
                              "input 'sequence_lens' has %lld at index %lld; expected 0 "
                              "to seq_length %lld",
                              (long long)v, (long long)k, (long long)T);
                    errors++;
                    break;
                }
            }
        }
        snprintf(why_state, sizeof why_state, "%s and batch_size %lld (layout %d)", why,
                 (long long)N, layout);
    }
    s = layout ? dims3(N, D, H) : dims3(D, N, H);
    errors += rnn_expect(n, 5, &s, why_state, d) < 0;
    if (n->op == IR_OP_LSTM) {
        errors += rnn_expect(n, 6, &s, why_state, d) < 0;
        s = mk_shape(2);
        s.d[0] = D, s.d[1] = 3 * H;
        errors += rnn_expect(n, 7, &s, why, d) < 0;
    }
    if (errors)
        return -1;

    s = mk_shape(4);
    if (layout)
        s.d[0] = N, s.d[1] = T, s.d[2] = D, s.d[3] = H;
    else
        s.d[0] = T, s.d[1] = D, s.d[2] = N, s.d[3] = H;
    if (set_out(n, 0, IR_DT_F32, &s, d) < 0)
        return -1;
    s = layout ? dims3(N, D, H) : dims3(D, N, H);
    for (i = 1; i < n->n_outputs; i++)
        if (set_out(n, i, IR_DT_F32, &s, d) < 0)
            return -1;
    return 0;
}

/* --- projections -------------------------------------------------------------------- */

static int
infer_gemm(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *a = ir_in(n, 0), *b = ir_in(n, 1), *c = ir_in(n, 2);
    int ta = ir_attr_int(n, "transA", 0) != 0, tb = ir_attr_int(n, "transB", 0) != 0;
    int64_t M, K, K2, N;
    ir_shape s, bc;
    (void)g;
    if (need_dtype(n, 0, M_F32, "f32", d) < 0 || need_dtype(n, 1, M_F32, "f32", d) < 0 ||
        need_dtype(n, 2, M_F32, "f32", d) < 0 || need_rank(n, 0, 2, NULL, d) < 0 ||
        need_rank(n, 1, 2, NULL, d) < 0)
        return -1;
    M = a->shape.d[ta ? 1 : 0];
    K = a->shape.d[ta ? 0 : 1];
    K2 = b->shape.d[tb ? 1 : 0];
    N = b->shape.d[tb ? 0 : 1];
    if (K != K2) {
        diag_node(d, n,
                  "inputs 'A' %s (transA %d) and 'B' %s (transB %d) do not multiply: "
                  "K is %lld vs %lld",
                  fmt(&a->shape), ta, fmt(&b->shape), tb, (long long)K, (long long)K2);
        return -1;
    }
    s = mk_shape(2);
    s.d[0] = M, s.d[1] = N;
    if (c &&
        (c->shape.rank > 2 || shape_broadcast(&c->shape, &s, &bc) < 0 || !same_dims(&bc, &s))) {
        diag_node(d, n, "input 'C' has shape %s; it does not broadcast to [M,N] = %s",
                  fmt(&c->shape), fmt(&s));
        return -1;
    }
    return set_out(n, 0, IR_DT_F32, &s, d);
}

static int
infer_matmul(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *a = ir_in(n, 0), *b = ir_in(n, 1);
    ir_shape sa = a->shape, sb = b->shape, ba, bb, bo, s;
    int a1 = sa.rank == 1, b1 = sb.rank == 1, i;
    (void)g;
    if (need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0 || same_dtype(n, 0, 1, d) < 0)
        return -1;
    if (sa.rank < 1 || sb.rank < 1) {
        diag_node(d, n, "input '%s' is a scalar; MatMul needs rank >= 1", sa.rank < 1 ? "A" : "B");
        return -1;
    }
    if (a1) { /* [K] → [1,K] */
        sa.rank = 2, sa.d[1] = sa.d[0], sa.d[0] = 1;
    }
    if (b1) { /* [K] → [K,1] */
        sb.rank = 2, sb.d[1] = 1;
    }
    if (sa.d[sa.rank - 1] != sb.d[sb.rank - 2]) {
        diag_node(d, n, "inputs 'A' %s and 'B' %s do not multiply: K is %lld vs %lld",
                  fmt(&a->shape), fmt(&b->shape), (long long)sa.d[sa.rank - 1],
                  (long long)sb.d[sb.rank - 2]);
        return -1;
    }
    ba = mk_shape(sa.rank - 2);
    bb = mk_shape(sb.rank - 2);
    for (i = 0; i < ba.rank; i++)
        ba.d[i] = sa.d[i];
    for (i = 0; i < bb.rank; i++)
        bb.d[i] = sb.d[i];
    if (shape_broadcast(&ba, &bb, &bo) < 0) {
        diag_node(d, n, "inputs 'A' %s and 'B' %s: batch dims do not broadcast", fmt(&a->shape),
                  fmt(&b->shape));
        return -1;
    }
    s = bo;
    if (!a1)
        s.d[s.rank++] = sa.d[sa.rank - 2];
    if (!b1)
        s.d[s.rank++] = sb.d[sb.rank - 1];
    return set_out(n, 0, a->dtype, &s, d);
}

/* --- element-wise --------------------------------------------------------------------- */

static int
infer_binary(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *a = ir_in(n, 0), *b = ir_in(n, 1), *o;
    ir_shape s;
    if (need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0 || same_dtype(n, 0, 1, d) < 0)
        return -1;
    if (shape_broadcast(&a->shape, &b->shape, &s) < 0) {
        diag_node(d, n, "inputs 'A' %s and 'B' %s do not broadcast", fmt(&a->shape),
                  fmt(&b->shape));
        return -1;
    }
    if (set_out(n, 0, a->dtype, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o && foldable(n, 0)) {
        int64_t k, cnt = numel(&s);
        int64_t *v = arena_calloc(g->a, (size_t)cnt + 1, sizeof *v);
        for (k = 0; k < cnt; k++) {
            int64_t x = elem_i64(a, bcast_index(&s, &a->shape, k));
            int64_t y = elem_i64(b, bcast_index(&s, &b->shape, k));
            int64_t r;
            switch (n->op) {
            case IR_OP_ADD:
                if (__builtin_add_overflow(x, y, &r))
                    return 0;
                break;
            case IR_OP_SUB:
                if (__builtin_sub_overflow(x, y, &r))
                    return 0;
                break;
            case IR_OP_MUL:
                if (__builtin_mul_overflow(x, y, &r))
                    return 0;
                break;
            default: /* Div: integer division truncating toward zero, as numpy's C */
                if (y == 0 || (x == INT64_MIN && y == -1))
                    return 0;
                r = x / y;
                break;
            }
            v[k] = r;
        }
        out_data(g, o);
        for (k = 0; k < cnt; k++)
            put_i64(o, k, v[k]);
    }
    return 0;
}

static int
infer_unary(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    unsigned mask = M_F32;
    const char *want = "f32";
    if (n->op == IR_OP_RELU || n->op == IR_OP_NEG)
        mask = M_NUM, want = "f32, i32 or i64";
    if (n->op == IR_OP_IDENTITY)
        mask = M_ANY;
    if (need_dtype(n, 0, mask, want, d) < 0)
        return -1;
    if (set_out(n, 0, x->dtype, &x->shape, d) < 0)
        return -1;
    if (n->op == IR_OP_IDENTITY)
        fold_copy(g, n);
    return 0;
}

static int
infer_softmax(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int axis;
    (void)g;
    if (need_dtype(n, 0, M_F32, "f32", d) < 0)
        return -1;
    if (x->shape.rank < 1) {
        diag_node(d, n, "input 'input' is a scalar; %s needs rank >= 1", n->op_type);
        return -1;
    }
    if (norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", -1), x->shape.rank, 0, &axis, d) <
        0)
        return -1;
    return set_out(n, 0, x->dtype, &x->shape, d);
}

static int
infer_argmax(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int axis, keep = ir_attr_int(n, "keepdims", 1) != 0, i;
    ir_shape s;
    (void)g;
    if (need_dtype(n, 0, M_NUM, "f32, i32 or i64", d) < 0)
        return -1;
    if (x->shape.rank < 1) {
        diag_node(d, n, "input 'data' is a scalar; ArgMax needs rank >= 1");
        return -1;
    }
    if (norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", 0), x->shape.rank, 0, &axis, d) < 0)
        return -1;
    s = mk_shape(0);
    for (i = 0; i < x->shape.rank; i++) {
        if (i == axis && !keep)
            continue;
        s.d[s.rank++] = i == axis ? 1 : x->shape.d[i];
    }
    return set_out(n, 0, IR_DT_I64, &s, d);
}

static int
infer_cast(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *o;
    int64_t to = ir_attr_int(n, "to", 0), k, cnt;
    if (to != IR_DT_F32 && to != IR_DT_I64 && to != IR_DT_I32 && to != IR_DT_BOOL) {
        diag_node(d, n, "attribute 'to' is not a supported dtype");
        return -1;
    }
    if (set_out(n, 0, (ir_dtype)to, &x->shape, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (!o || !x->data || (cnt = numel(&x->shape)) > FOLD_MAX)
        return 0;
    if (x->dtype == IR_DT_F32) {
        const float *src = x->data;
        for (k = 0; k < cnt; k++) /* a value no integer holds: leave it to run time */
            if (to != IR_DT_F32 && to != IR_DT_BOOL && !(fabsf(src[k]) < 9.2e18f))
                return 0;
        out_data(g, o);
        for (k = 0; k < cnt; k++) {
            if (to == IR_DT_F32)
                ((float *)o->data)[k] = src[k];
            else
                put_i64(o, k, to == IR_DT_BOOL ? src[k] != 0.0f : (int64_t)src[k]);
        }
    } else {
        out_data(g, o);
        for (k = 0; k < cnt; k++) {
            int64_t v = elem_i64(x, k);
            if (to == IR_DT_F32)
                ((float *)o->data)[k] = (float)v;
            else
                put_i64(o, k, v);
        }
    }
    return 0;
}

/* --- shape plumbing ----------------------------------------------------------------- */

static int
infer_gather(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *ix = ir_in(n, 1), *o;
    int r = x->shape.rank, q = ix->shape.rank, axis, i;
    int64_t dim, k, cnt;
    ir_shape s;
    if (need_dtype(n, 1, M_INT, "i64 or i32", d) < 0)
        return -1;
    if (r < 1) {
        diag_node(d, n, "input 'data' is a scalar; Gather needs rank >= 1");
        return -1;
    }
    if (norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", 0), r, 0, &axis, d) < 0)
        return -1;
    if (r - 1 + q > IR_MAX_RANK) {
        diag_node(d, n, "output would have rank %d; at most %d is supported", r - 1 + q,
                  IR_MAX_RANK);
        return -1;
    }
    dim = x->shape.d[axis];
    if (ix->data) {
        cnt = numel(&ix->shape);
        for (k = 0; k < cnt; k++) {
            int64_t v = elem_i64(ix, k);
            if (v < -dim || v >= dim) {
                diag_node(d, n, "index %lld is out of range for axis %d of size %lld", (long long)v,
                          axis, (long long)dim);
                return -1;
            }
        }
    }
    s = mk_shape(0);
    for (i = 0; i < axis; i++)
        s.d[s.rank++] = x->shape.d[i];
    for (i = 0; i < q; i++)
        s.d[s.rank++] = ix->shape.d[i];
    for (i = axis + 1; i < r; i++)
        s.d[s.rank++] = x->shape.d[i];
    if (set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o && foldable(n, 0)) {
        int64_t outer = 1, inner = 1, nidx = numel(&ix->shape), a, j, c;
        for (i = 0; i < axis; i++)
            outer *= x->shape.d[i];
        for (i = axis + 1; i < r; i++)
            inner *= x->shape.d[i];
        out_data(g, o);
        k = 0;
        for (a = 0; a < outer; a++)
            for (j = 0; j < nidx; j++) {
                int64_t v = elem_i64(ix, j);
                if (v < 0)
                    v += dim;
                for (c = 0; c < inner; c++)
                    put_i64(o, k++, elem_i64(x, (a * dim + v) * inner + c));
            }
    }
    return 0;
}

static int
infer_transpose(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    const ir_attr *pa = ir_attr_get(n, "perm");
    int r = x->shape.rank, i, seen[IR_MAX_RANK] = {0};
    ir_shape s;
    if (!pa) {
        int64_t rev[IR_MAX_RANK];
        for (i = 0; i < r; i++)
            rev[i] = r - 1 - i;
        ir_attr_set_ints(g, n, "perm", rev, r);
        pa = ir_attr_get(n, "perm");
    }
    if (pa->kind != IR_ATTR_INTS || pa->n != r) {
        diag_node(d, n, "attribute 'perm' has %d values; input 'data' %s has rank %d", pa->n,
                  fmt(&x->shape), r);
        return -1;
    }
    s = mk_shape(r);
    for (i = 0; i < r; i++) {
        int64_t p = pa->ints[i];
        if (p < 0 || p >= r || seen[p]) {
            diag_node(d, n, "attribute 'perm' is %s; expected a permutation of 0..%d",
                      fmt_ints(pa->ints, pa->n), r - 1);
            return -1;
        }
        seen[p] = 1;
        s.d[i] = x->shape.d[p];
    }
    return set_out(n, 0, x->dtype, &s, d);
}

/* Axes from input 1 normalised into [0, r); duplicates reported. */
static int
read_axes(ir_node *n, int r, int *axes, diag *d)
{
    int64_t v[IR_MAX_RANK];
    int cnt = const_ints(n, 1, v, IR_MAX_RANK, d), i, j;
    if (cnt < 0)
        return -1;
    for (i = 0; i < cnt; i++) {
        if (norm_axis(n, "an entry of input 'axes'", v[i], r, 0, &axes[i], d) < 0)
            return -1;
        for (j = 0; j < i; j++) {
            if (axes[j] == axes[i]) {
                diag_node(d, n, "input 'axes' %s names axis %d twice", fmt_ints(v, cnt), axes[i]);
                return -1;
            }
        }
    }
    return cnt;
}

static int
infer_squeeze(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int r = x->shape.rank, axes[IR_MAX_RANK], drop[IR_MAX_RANK] = {0}, cnt, i;
    ir_shape s;
    if (ir_in(n, 1)) {
        if ((cnt = read_axes(n, r, axes, d)) < 0)
            return -1;
        for (i = 0; i < cnt; i++) {
            if (x->shape.d[axes[i]] != 1) {
                diag_node(d, n, "cannot squeeze axis %d of input 'data' %s: its size is not 1",
                          axes[i], fmt(&x->shape));
                return -1;
            }
            drop[axes[i]] = 1;
        }
    } else {
        for (i = 0; i < r; i++)
            drop[i] = x->shape.d[i] == 1;
    }
    s = mk_shape(0);
    for (i = 0; i < r; i++)
        if (!drop[i])
            s.d[s.rank++] = x->shape.d[i];
    if (set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    fold_copy(g, n);
    return 0;
}

static int
infer_unsqueeze(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int64_t v[IR_MAX_RANK + 1];
    int r = x->shape.rank, cnt, out_r, i, j, k, add[IR_MAX_RANK] = {0};
    ir_shape s;
    if (!ir_in(n, 1)) {
        diag_node(d, n, "input 'axes' is required");
        return -1;
    }
    cnt = const_ints(n, 1, v, IR_MAX_RANK + 1, d);
    if (cnt < 0)
        return -1;
    out_r = r + cnt;
    if (out_r > IR_MAX_RANK) {
        diag_node(d, n, "output would have rank %d; at most %d is supported", out_r, IR_MAX_RANK);
        return -1;
    }
    for (i = 0; i < cnt; i++) {
        int a;
        if (norm_axis(n, "an entry of input 'axes'", v[i], out_r, 0, &a, d) < 0)
            return -1;
        if (add[a]) {
            diag_node(d, n, "input 'axes' %s names axis %d twice", fmt_ints(v, cnt), a);
            return -1;
        }
        add[a] = 1;
    }
    s = mk_shape(out_r);
    for (i = 0, j = 0; i < out_r; i++)
        s.d[i] = add[i] ? 1 : x->shape.d[j++];
    (void)k;
    if (set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    fold_copy(g, n);
    return 0;
}

static int
infer_slice(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *o;
    int r = x->shape.rank, ns, ne, na, nt, i, j, seen[IR_MAX_RANK] = {0};
    int64_t st[IR_MAX_RANK], en[IR_MAX_RANK], ax[IR_MAX_RANK], sp[IR_MAX_RANK];
    int64_t start[IR_MAX_RANK], step[IR_MAX_RANK];
    ir_shape s = x->shape;

    if ((ns = const_ints(n, 1, st, IR_MAX_RANK, d)) < 0 ||
        (ne = const_ints(n, 2, en, IR_MAX_RANK, d)) < 0)
        return -1;
    na = ns;
    for (i = 0; i < ns; i++)
        ax[i] = i;
    if (ir_in(n, 3) && (na = const_ints(n, 3, ax, IR_MAX_RANK, d)) < 0)
        return -1;
    nt = ns;
    for (i = 0; i < ns; i++)
        sp[i] = 1;
    if (ir_in(n, 4) && (nt = const_ints(n, 4, sp, IR_MAX_RANK, d)) < 0)
        return -1;
    if (ne != ns || na != ns || nt != ns) {
        diag_node(d, n,
                  "inputs 'starts', 'ends', 'axes', 'steps' have %d, %d, %d, %d values; "
                  "they must have the same count",
                  ns, ne, na, nt);
        return -1;
    }
    for (i = 0; i < r; i++)
        start[i] = 0, step[i] = 1;
    for (i = 0; i < ns; i++) {
        int a;
        int64_t dim, b, e, c;
        if (norm_axis(n, "an entry of input 'axes'", ax[i], r, 0, &a, d) < 0)
            return -1;
        if (seen[a]) {
            diag_node(d, n, "input 'axes' %s names axis %d twice", fmt_ints(ax, na), a);
            return -1;
        }
        seen[a] = 1;
        if (sp[i] == 0) {
            diag_node(d, n, "input 'steps' has a 0 step for axis %d", a);
            return -1;
        }
        dim = x->shape.d[a];
        b = st[i] < 0 ? st[i] + dim : st[i];
        e = en[i] < 0 ? en[i] + dim : en[i];
        if (sp[i] > 0) {
            b = b < 0 ? 0 : b > dim ? dim : b;
            e = e < 0 ? 0 : e > dim ? dim : e;
            c = e > b ? (e - b - 1) / sp[i] + 1 : 0;
        } else {
            b = b < 0 ? 0 : b > dim - 1 ? dim - 1 : b;
            e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
            c = b > e ? (b - e - 1) / -sp[i] + 1 : 0;
        }
        s.d[a] = c;
        start[a] = b;
        step[a] = sp[i];
    }
    if (set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o && foldable(n, 0)) {
        int64_t k, cnt = numel(&s);
        out_data(g, o);
        for (k = 0; k < cnt; k++) {
            int64_t rem = k, src = 0, stride = 1;
            for (j = r - 1; j >= 0; j--) {
                int64_t c = rem % s.d[j];
                rem /= s.d[j];
                src += (start[j] + c * step[j]) * stride;
                stride *= x->shape.d[j];
            }
            put_i64(o, k, elem_i64(x, src));
        }
    }
    return 0;
}

static int
infer_shape(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *o;
    int r = x->shape.rank;
    int64_t b = ir_attr_int(n, "start", 0);
    int64_t e = ir_attr_get(n, "end") ? ir_attr_int(n, "end", r) : r, k;
    ir_shape s;
    b = b < 0 ? b + r : b;
    e = e < 0 ? e + r : e;
    b = b < 0 ? 0 : b > r ? r : b;
    e = e < 0 ? 0 : e > r ? r : e;
    s = mk_shape(1);
    s.d[0] = e > b ? e - b : 0;
    if (set_out(n, 0, IR_DT_I64, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o) {
        int64_t *v = out_data(g, o);
        for (k = 0; k < s.d[0]; k++)
            v[k] = x->shape.d[b + k];
    }
    return 0;
}

static int
infer_concat(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *o;
    int r = x->shape.rank, axis, i, j;
    ir_shape s = x->shape;
    if (r < 1) {
        diag_node(d, n, "input 0 is a scalar; Concat needs rank >= 1");
        return -1;
    }
    if (norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", 0), r, 0, &axis, d) < 0)
        return -1;
    for (i = 1; i < n->n_inputs; i++) {
        ir_tensor *t = n->inputs[i];
        int bad = t->shape.rank != r;
        if (t->dtype != x->dtype) {
            diag_node(d, n, "input %d has dtype %s; input 0 has %s", i, ir_dtype_name(t->dtype),
                      ir_dtype_name(x->dtype));
            return -1;
        }
        for (j = 0; !bad && j < r; j++)
            bad = j != axis && t->shape.d[j] != x->shape.d[j];
        if (bad) {
            diag_node(d, n, "input %d has shape %s; it must match input 0 %s except on axis %d", i,
                      fmt(&t->shape), fmt(&x->shape), axis);
            return -1;
        }
        s.d[axis] += t->shape.d[axis]; /* each <= 2^31: no overflow over 2^31 inputs */
        if (s.d[axis] > IR_MAX_ELEMS) {
            diag_node(d, n, "output would have more than %lld elements on axis %d",
                      (long long)IR_MAX_ELEMS, axis);
            return -1;
        }
    }
    if (set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o && foldable(n, 0)) {
        int64_t outer = 1, k = 0, a, c;
        for (j = 0; j < axis; j++)
            outer *= s.d[j];
        out_data(g, o);
        for (a = 0; a < outer; a++)
            for (i = 0; i < n->n_inputs; i++) {
                ir_tensor *t = n->inputs[i];
                int64_t chunk = 1;
                for (j = axis; j < r; j++)
                    chunk *= t->shape.d[j];
                for (c = 0; c < chunk; c++)
                    put_i64(o, k++, elem_i64(t, a * chunk + c));
            }
    }
    return 0;
}

static int
infer_reshape(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int64_t v[IR_MAX_RANK], known = 1, in_n = numel(&x->shape);
    int allowzero = ir_attr_int(n, "allowzero", 0) != 0, cnt, i, infer = -1, has_zero = 0;
    ir_shape s;
    if ((cnt = const_ints(n, 1, v, IR_MAX_RANK, d)) < 0)
        return -1;
    s = mk_shape(cnt);
    for (i = 0; i < cnt; i++) {
        if (v[i] == -1) {
            if (infer >= 0) {
                diag_node(d, n, "input 'shape' %s has more than one -1", fmt_ints(v, cnt));
                return -1;
            }
            infer = i;
            continue;
        }
        if (v[i] < -1) {
            diag_node(d, n, "input 'shape' %s has a negative dim", fmt_ints(v, cnt));
            return -1;
        }
        if (v[i] == 0 && !allowzero) {
            if (i >= x->shape.rank) {
                diag_node(d, n,
                          "input 'shape' %s copies dim %d (0) but input 'data' %s has "
                          "rank %d",
                          fmt_ints(v, cnt), i, fmt(&x->shape), x->shape.rank);
                return -1;
            }
            s.d[i] = x->shape.d[i];
        } else {
            if (v[i] == 0)
                has_zero = 1;
            if (v[i] > IR_MAX_ELEMS) {
                diag_node(d, n, "input 'shape' %s has a dim over %lld", fmt_ints(v, cnt),
                          (long long)IR_MAX_ELEMS);
                return -1;
            }
            s.d[i] = v[i];
        }
        if (s.d[i] != 0 && known > IR_MAX_ELEMS / s.d[i]) {
            diag_node(d, n, "input 'shape' %s has more than %lld elements", fmt_ints(v, cnt),
                      (long long)IR_MAX_ELEMS);
            return -1;
        }
        known *= s.d[i];
    }
    if (infer >= 0) {
        if (has_zero) {
            diag_node(d, n, "input 'shape' %s has both 0 and -1 with allowzero 1",
                      fmt_ints(v, cnt));
            return -1;
        }
        if (known == 0 || in_n % known != 0) {
            diag_node(d, n, "cannot reshape input 'data' %s (%lld elements) to %s", fmt(&x->shape),
                      (long long)in_n, fmt_ints(v, cnt));
            return -1;
        }
        s.d[infer] = in_n / known;
        known = in_n;
    }
    if (known != in_n) {
        diag_node(d, n, "cannot reshape input 'data' %s (%lld elements) to %s (%lld elements)",
                  fmt(&x->shape), (long long)in_n, fmt(&s), (long long)known);
        return -1;
    }
    if (set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    fold_copy(g, n);
    return 0;
}

static int
infer_flatten(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int axis, i;
    ir_shape s = mk_shape(2);
    if (norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", 1), x->shape.rank, 1, &axis, d) < 0)
        return -1;
    s.d[0] = s.d[1] = 1;
    for (i = 0; i < x->shape.rank; i++) /* product <= numel(x) <= IR_MAX_ELEMS */
        s.d[i < axis ? 0 : 1] *= x->shape.d[i];
    if (set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    fold_copy(g, n);
    return 0;
}

static int
infer_expand(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int64_t v[IR_MAX_RANK];
    int cnt, i;
    ir_shape want, s;
    (void)g;
    if ((cnt = const_ints(n, 1, v, IR_MAX_RANK, d)) < 0)
        return -1;
    want = mk_shape(cnt);
    for (i = 0; i < cnt; i++) {
        if (v[i] < 0 || v[i] > IR_MAX_ELEMS) {
            diag_node(d, n, "input 'shape' %s has a dim out of range", fmt_ints(v, cnt));
            return -1;
        }
        want.d[i] = v[i];
    }
    if (shape_broadcast(&x->shape, &want, &s) < 0) {
        diag_node(d, n, "input 'input' %s does not broadcast to shape %s", fmt(&x->shape),
                  fmt_ints(v, cnt));
        return -1;
    }
    return set_out(n, 0, x->dtype, &s, d);
}

static int
infer_constant_of_shape(ir_graph *g, ir_node *n, diag *d)
{
    const ir_attr *va = ir_attr_get(n, "value");
    ir_dtype dt = va && va->kind == IR_ATTR_TENSOR && va->t ? va->t->dtype : IR_DT_F32;
    int64_t v[IR_MAX_RANK];
    int cnt, i;
    ir_shape s;
    (void)g;
    if ((cnt = const_ints(n, 0, v, IR_MAX_RANK, d)) < 0)
        return -1;
    s = mk_shape(cnt);
    for (i = 0; i < cnt; i++) {
        if (v[i] < 0 || v[i] > IR_MAX_ELEMS) {
            diag_node(d, n, "input 'input' %s has a dim out of range", fmt_ints(v, cnt));
            return -1;
        }
        s.d[i] = v[i];
    }
    return set_out(n, 0, dt, &s, d);
}

/* --- dispatch ------------------------------------------------------------------------- */

/* The internal ops (lstmc.RnnProj, lstmc.RnnRec, lstmc.RnnTissue, lstmc.RnnDrs) have no row: the pass
 * that makes them sets their shapes, and shape inference runs before the passes. */
_Static_assert(IR_OP_COUNT == 35, "ORDER IR_OP: give the new op a row in shape_table");

static const shape_fn shape_table[IR_OP_COUNT] = {
    [IR_OP_LSTM] = infer_rnn,
    [IR_OP_GRU] = infer_rnn,
    [IR_OP_RNN] = infer_rnn,
    [IR_OP_GEMM] = infer_gemm,
    [IR_OP_MATMUL] = infer_matmul,
    [IR_OP_ADD] = infer_binary,
    [IR_OP_SUB] = infer_binary,
    [IR_OP_MUL] = infer_binary,
    [IR_OP_DIV] = infer_binary,
    [IR_OP_RELU] = infer_unary,
    [IR_OP_SIGMOID] = infer_unary,
    [IR_OP_TANH] = infer_unary,
    [IR_OP_NEG] = infer_unary,
    [IR_OP_EXP] = infer_unary,
    [IR_OP_SQRT] = infer_unary,
    [IR_OP_SOFTMAX] = infer_softmax,
    [IR_OP_LOG_SOFTMAX] = infer_softmax,
    [IR_OP_ARGMAX] = infer_argmax,
    [IR_OP_CAST] = infer_cast,
    [IR_OP_GATHER] = infer_gather,
    [IR_OP_TRANSPOSE] = infer_transpose,
    [IR_OP_SQUEEZE] = infer_squeeze,
    [IR_OP_UNSQUEEZE] = infer_unsqueeze,
    [IR_OP_SLICE] = infer_slice,
    [IR_OP_SHAPE] = infer_shape,
    [IR_OP_CONCAT] = infer_concat,
    [IR_OP_RESHAPE] = infer_reshape,
    [IR_OP_FLATTEN] = infer_flatten,
    [IR_OP_EXPAND] = infer_expand,
    [IR_OP_CONSTANT_OF_SHAPE] = infer_constant_of_shape,
    [IR_OP_IDENTITY] = infer_unary,
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
            diag_node(d, n, "input '%s' (tensor '%s') has no known dtype", iname(n, i), t->name);
            errors++;
        } else if (!ir_shape_known(&t->shape)) {
            diag_node(d, n, "input '%s' (tensor '%s') has shape %s; every dim must be known",
                      iname(n, i), t->name, fmt(&t->shape));
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
        diag_node(d, n, "input '%s' is missing", iname(n, 0));
        errors++;
    }
    if (errors)
        return -1;
    return shape_table[n->op](g, n, d);
}
