/*
 * lower.c — lowering IR nodes to runtime kernel calls (graph -> kprog); kp_exec, which runs
 * a call in-process, is in exec.c.
 *
 * Every op resolves its shape-dependent work here, once, at compile time: broadcasting
 * becomes strides, Transpose/Slice/Expand become one strided copy, Softmax's axis becomes
 * [outer, axis_len, inner], Concat becomes one call per input. The runtime kernels then
 * only loop.
 */
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "kprog.h"
#include "shape.h"

#include <assert.h>
#include <string.h>

static kp_call *
push(arena *a, kprog *kp, kp_kind kind, const ir_node *n)
{
    size_t cap = (size_t)kp->cap_calls;
    kp_call *c;
    kp->calls = arena_grow(a, kp->calls, sizeof *kp->calls, (size_t)kp->n_calls, &cap,
                           (size_t)kp->n_calls + 1);
    kp->cap_calls = (int)cap;
    c = &kp->calls[kp->n_calls++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->node = n;
    c->n_in = kp_kinds[kind].n_in; /* kp_kinds.def */
    c->n_out = kp_kinds[kind].n_out;
    return c;
}

/* Row-major element strides of a shape. */
static void
strides_of(const ir_shape *s, int64_t *st)
{
    int64_t acc = 1;
    int i;
    for (i = s->rank - 1; i >= 0; i--) {
        st[i] = acc;
        acc *= s->d[i];
    }
}

/* Strides of `in` read through numpy broadcasting into an output of rank `rank`: dims
 * of size 1 (or missing on the left) get stride 0. */
static void
bcast_strides(const ir_shape *in, int rank, const ir_shape *out, int64_t *st)
{
    int64_t s[IR_MAX_RANK];
    int i, off = rank - in->rank;
    strides_of(in, s);
    for (i = 0; i < rank; i++) {
        int j = i - off;
        st[i] = (j < 0 || (in->d[j] == 1 && out->d[i] != 1)) ? 0 : s[j];
    }
}

static int64_t
prod(const ir_shape *s, int from, int to)
{
    int64_t p = 1;
    int i;
    for (i = from; i < to; i++)
        p *= s->d[i];
    return p;
}

static int
norm_axis(int64_t axis, int rank)
{
    return (int)(axis < 0 ? axis + rank : axis);
}

static int64_t
numel(const ir_tensor *t)
{
    return ir_shape_numel(&t->shape);
}

/* The layer's params from a recurrent node (ONNX op, or lstmc.RnnRec made by split_gates). */
static void
rnn_params(const ir_node *n, lstmc_rt_rnn_params *p)
{
    const ir_attr *acts = ir_attr_get(n, "activations");
    const ir_attr *al = ir_attr_get(n, "activation_alpha");
    const ir_attr *be = ir_attr_get(n, "activation_beta");
    int64_t dir = ir_attr_int(n, "direction", 0);
    int i;

    p->layout = (int32_t)ir_attr_int(n, "layout", 0);
    if (n->op == IR_OP_RNN_REC || n->op == IR_OP_RNN_TISSUE || n->op == IR_OP_RNN_DRS) {
        p->cell = (int32_t)ir_attr_int(n, "cell", 0);
        p->seq_len = ir_attr_int(n, "seq_len", 0);
        p->batch = ir_attr_int(n, "batch", 0);
        p->input_size = ir_attr_int(n, "input_size", 0);
        p->packed = (int32_t)ir_attr_int(n, "packed", 0);
    } else {
        const ir_tensor *X = ir_in(n, 0);
        p->cell = n->op == IR_OP_LSTM  ? LSTMC_RT_CELL_LSTM
                  : n->op == IR_OP_GRU ? LSTMC_RT_CELL_GRU
                                       : LSTMC_RT_CELL_RNN;
        p->seq_len = X->shape.d[p->layout ? 1 : 0];
        p->batch = X->shape.d[p->layout ? 0 : 1];
        p->input_size = X->shape.d[2];
    }
    p->hidden = ir_attr_int(n, "hidden_size", 0);
    p->n_dirs = dir == 2 ? 2 : 1;
    p->reverse = dir == 1;
    p->has_clip = ir_attr_get(n, "clip") != NULL;
    p->clip = ir_attr_float(n, "clip", 0.0f);
    p->input_forget = (int32_t)ir_attr_int(n, "input_forget", 0);
    p->linear_before_reset = (int32_t)ir_attr_int(n, "linear_before_reset", 0);
    p->hsparse_th = ir_attr_float(n, "hsparse_th", 0.0f); /* passes/hsparse.c */
    for (i = 0; acts && i < acts->n && i < 6; i++) {
        p->act[i].kind = (int32_t)acts->ints[i];
        p->act[i].alpha = al && i < al->n ? al->floats[i] : 0.0f;
        p->act[i].beta = be && i < be->n ? be->floats[i] : 0.0f;
    }
}

static int
lower_rnn(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    kp_call *c = push(a, kp, n->op == IR_OP_RNN_REC ? KP_RNN_REC : KP_RNN, n);
    lstmc_rt_rnn_params *p = &c->p.rnn;
    int i;

    rnn_params(n, p);
    for (i = 0; i < c->n_in; i++)
        c->in[i] = ir_in(n, i);
    for (i = 0; i < 3; i++)
        c->out[i] = ir_out(n, i);
    c->scratch_bytes = lstmc_rt_rnn_scratch(p) * (int64_t)sizeof(float);
    c->wfmt = (int32_t)ir_attr_int(n, "wfmt", 0); /* passes/lowp.c */
    if (c->scratch_bytes < 0) {
        diag_node(d, n, "its shapes and attributes do not make a valid recurrent layer");
        return -1;
    }
    return 0;
}

/* lstmc.RnnTissue (breakpoints pass): P Up row_abs_sum seq_lens init_h init_c Peep h_pred
 * c_pred -> Y Y_h Y_c, one lstmc_rt_lstm_tissue call. */
static int
lower_tissue(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    kp_call *c = push(a, kp, KP_LSTM_TISSUE, n);
    lstmc_rt_tissue_params *p = &c->p.tissue.p;
    int64_t words;
    int i;

    rnn_params(n, &p->rnn);
    p->mts = (int32_t)ir_attr_int(n, "mts", 8);
    p->relevance = (int32_t)ir_attr_int(n, "relevance", 0); /* lstmc_rt_relevance */
    p->max_run = (int32_t)ir_attr_int(n, "max_run", 0);     /* --max-sublayer */
    p->wfmt = (int32_t)ir_attr_int(n, "wfmt", 0); /* passes/lowp.c: U (with DRS: Uo, Ufic) */
    c->wfmt = p->wfmt;
    c->p.tissue.alpha_inter = ir_attr_float(n, "alpha_inter", 0.0f);
    for (i = 0; i < c->n_in; i++)
        c->in[i] = ir_in(n, i);
    for (i = 0; i < 3; i++)
        c->out[i] = ir_out(n, i);
    words = lstmc_rt_lstm_tissue_scratch(p);
    if (words < 0) {
        diag_node(d, n, "its shapes and attributes do not make a valid tissue LSTM layer");
        return -1;
    }
    c->scratch_bytes = words * 4;
    return 0;
}

/* lstmc.RnnTissue with DRS inputs 9, 10 (drs pass after breakpoints): as lower_tissue plus
 * Uo Ufic, one lstmc_rt_lstm_tissue_drs call. */
static int
lower_tissue_drs(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    kp_call *c;
    int64_t words;
    int i;

    if (lower_tissue(a, kp, n, d) < 0)
        return -1;
    c = &kp->calls[kp->n_calls - 1];
    c->kind = KP_LSTM_TISSUE_DRS;
    c->p.tissue.alpha_intra = ir_attr_float(n, "alpha_intra", 0.0f);
    c->n_in = kp_kinds[KP_LSTM_TISSUE_DRS].n_in;
    for (i = 0; i < c->n_in; i++)
        c->in[i] = ir_in(n, i);
    words = lstmc_rt_lstm_tissue_drs_scratch(&c->p.tissue.p);
    if (words < 0) {
        diag_node(d, n, "its shapes and attributes do not make a valid tissue LSTM layer");
        return -1;
    }
    c->scratch_bytes = words * 4;
    return 0;
}

/* lstmc.RnnDrs (drs pass): P Uo Ufic seq_lens init_h init_c Peep -> Y Y_h Y_c, one
 * lstmc_rt_lstm_drs call. */
static int
lower_drs(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    kp_call *c = push(a, kp, KP_LSTM_DRS, n);
    int64_t words;
    int i;

    rnn_params(n, &c->p.drs.p);
    c->p.drs.alpha_intra = ir_attr_float(n, "alpha_intra", 0.0f);
    c->wfmt = (int32_t)ir_attr_int(n, "wfmt", 0); /* passes/lowp.c: Uo, Ufic (issue 24) */
    for (i = 0; i < c->n_in; i++)
        c->in[i] = ir_in(n, i);
    for (i = 0; i < 3; i++)
        c->out[i] = ir_out(n, i);
    words = lstmc_rt_lstm_drs_scratch(&c->p.drs.p);
    if (words < 0) {
        diag_node(d, n, "its shapes and attributes do not make a valid DRS LSTM layer");
        return -1;
    }
    c->scratch_bytes = words * 4;
    return 0;
}

static int
lower_proj(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_RNN_PROJ, n);
    lstmc_rt_rnn_proj_params *p = &c->p.proj;
    const ir_tensor *P = ir_out(n, 0);
    p->cell = (int32_t)ir_attr_int(n, "cell", 0);
    p->n_dirs = (int32_t)P->shape.d[0];
    p->rows = P->shape.d[1];
    p->input_size = ir_in(n, 0)->shape.d[2];
    p->hidden = ir_attr_int(n, "hidden_size", 0);
    p->linear_before_reset = (int32_t)ir_attr_int(n, "linear_before_reset", 0);
    p->packed = (int32_t)ir_attr_int(n, "packed", 0);
    c->wfmt = (int32_t)ir_attr_int(n, "wfmt", 0); /* passes/lowp.c */
    c->in[0] = ir_in(n, 0);
    c->in[1] = ir_in(n, 1);
    c->in[2] = ir_in(n, 2);
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_gemm(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_GEMM, n);
    lstmc_rt_gemm_params *p = &c->p.gemm;
    const ir_tensor *A = ir_in(n, 0), *C = ir_in(n, 2);
    const ir_tensor *Y = ir_out(n, 0);
    p->trans_a = (int32_t)ir_attr_int(n, "transA", 0);
    p->trans_b = (int32_t)ir_attr_int(n, "transB", 0);
    p->alpha = ir_attr_float(n, "alpha", 1.0f);
    p->beta = ir_attr_float(n, "beta", 1.0f);
    p->m = Y->shape.d[0];
    p->n = Y->shape.d[1];
    p->k = p->trans_a ? A->shape.d[0] : A->shape.d[1];
    if (C) {
        int64_t st[2];
        bcast_strides(&C->shape, 2, &Y->shape, st);
        p->c_stride_m = st[0];
        p->c_stride_n = st[1];
    }
    c->in[0] = ir_in(n, 0);
    c->in[1] = ir_in(n, 1);
    c->in[2] = ir_in(n, 2);
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_matmul(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_MATMUL, n);
    lstmc_rt_matmul_params *p = &c->p.matmul;
    ir_shape sa = ir_in(n, 0)->shape, sb = ir_in(n, 1)->shape;
    int i, nb;
    int64_t sta = 1, stb = 1;

    if (sa.rank == 1) { /* [K] -> [1,K] */
        sa.d[1] = sa.d[0];
        sa.d[0] = 1;
        sa.rank = 2;
    }
    if (sb.rank == 1) { /* [K] -> [K,1] */
        sb.d[1] = 1;
        sb.rank = 2;
    }
    p->m = sa.d[sa.rank - 2];
    p->k = sa.d[sa.rank - 1];
    p->n = sb.d[sb.rank - 1];
    nb = (sa.rank > sb.rank ? sa.rank : sb.rank) - 2;
    p->n_batch = nb;
    /* walk batch dims right to left, accumulating each operand's matrix-count stride */
    for (i = nb - 1; i >= 0; i--) {
        int ja = i - (nb - (sa.rank - 2)), jb = i - (nb - (sb.rank - 2));
        int64_t da = ja >= 0 ? sa.d[ja] : 1, db = jb >= 0 ? sb.d[jb] : 1;
        p->batch[i] = da > db ? da : db;
        p->a_stride[i] = da == 1 ? 0 : sta * p->m * p->k;
        p->b_stride[i] = db == 1 ? 0 : stb * p->k * p->n;
        sta *= da;
        stb *= db;
    }
    c->in[0] = ir_in(n, 0);
    c->in[1] = ir_in(n, 1);
    c->out[0] = ir_out(n, 0);
    return 0;
}

/* The runtime's code for an element-wise op (lstmc_rt_binary / lstmc_rt_unary), or -1. */
static int
eltwise_code(ir_op op)
{
    switch (op) {
    case IR_OP_ADD:
        return LSTMC_RT_ADD;
    case IR_OP_SUB:
        return LSTMC_RT_SUB;
    case IR_OP_MUL:
        return LSTMC_RT_MUL;
    case IR_OP_DIV:
        return LSTMC_RT_DIV;
    case IR_OP_RELU:
        return LSTMC_RT_RELU;
    case IR_OP_SIGMOID:
        return LSTMC_RT_SIGMOID;
    case IR_OP_TANH:
        return LSTMC_RT_TANH;
    case IR_OP_NEG:
        return LSTMC_RT_NEG;
    case IR_OP_EXP:
        return LSTMC_RT_EXP;
    case IR_OP_SQRT:
        return LSTMC_RT_SQRT;
    default:
        return -1;
    }
}

static int
lower_binary(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    kp_call *c;
    lstmc_rt_binary_params *p;
    const ir_tensor *Y = ir_out(n, 0);
    int i, code = eltwise_code(n->op);
    if (code < 0) {
        diag_node(d, n, "has no runtime kernel (lstmc_rt_binary)");
        return -1;
    }
    c = push(a, kp, KP_BINARY, n);
    p = &c->p.binary;
    p->op = code;
    p->dtype = (int32_t)Y->dtype;
    p->rank = Y->shape.rank;
    for (i = 0; i < Y->shape.rank; i++)
        p->out_dims[i] = Y->shape.d[i];
    bcast_strides(&ir_in(n, 0)->shape, Y->shape.rank, &Y->shape, p->a_stride);
    bcast_strides(&ir_in(n, 1)->shape, Y->shape.rank, &Y->shape, p->b_stride);
    c->in[0] = ir_in(n, 0);
    c->in[1] = ir_in(n, 1);
    c->out[0] = ir_out(n, 0);
    return 0;
}

static void
copy_call(arena *a, kprog *kp, const ir_node *n, ir_tensor *in, ir_tensor *out)
{
    kp_call *c = push(a, kp, KP_COPY, n);
    c->p.copy.n_bytes = numel(out) * (int64_t)ir_dtype_size(out->dtype);
    c->in[0] = in;
    c->out[0] = out;
}

static int
lower_unary(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    kp_call *c;
    int code = eltwise_code(n->op);
    if (ir_in(n, 0)->dtype != IR_DT_F32) {
        diag_node(d, n, "only float32 inputs are supported, got %s",
                  ir_dtype_name(ir_in(n, 0)->dtype));
        return -1;
    }
    if (code < 0) {
        diag_node(d, n, "has no runtime kernel (lstmc_rt_unary)");
        return -1;
    }
    c = push(a, kp, KP_UNARY, n);
    c->p.unary.op = code;
    c->p.unary.n = numel(ir_out(n, 0));
    c->in[0] = ir_in(n, 0);
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_softmax(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_SOFTMAX, n);
    const ir_shape *s = &ir_in(n, 0)->shape;
    int legacy = (int)ir_attr_int(n, "legacy", 0);
    int axis = norm_axis(ir_attr_int(n, "axis", legacy ? 1 : -1), s->rank);
    c->p.softmax.log_softmax = n->op == IR_OP_LOG_SOFTMAX;
    c->p.softmax.outer = prod(s, 0, axis);
    if (legacy) {
        c->p.softmax.axis_len = prod(s, axis, s->rank);
        c->p.softmax.inner = 1;
    } else {
        c->p.softmax.axis_len = s->d[axis];
        c->p.softmax.inner = prod(s, axis + 1, s->rank);
    }
    c->in[0] = ir_in(n, 0);
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_argmax(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_ARGMAX, n);
    const ir_tensor *X = ir_in(n, 0);
    const ir_shape *s = &X->shape;
    int axis = norm_axis(ir_attr_int(n, "axis", 0), s->rank);
    c->p.argmax.dtype = (int32_t)X->dtype;
    c->p.argmax.select_last_index = (int32_t)ir_attr_int(n, "select_last_index", 0);
    c->p.argmax.smallest = n->op == IR_OP_ARGMIN;
    c->p.argmax.outer = prod(s, 0, axis);
    c->p.argmax.axis_len = s->d[axis];
    c->p.argmax.inner = prod(s, axis + 1, s->rank);
    c->in[0] = ir_in(n, 0);
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_cast(arena *a, kprog *kp, const ir_node *n)
{
    ir_tensor *X = ir_in(n, 0), *Y = ir_out(n, 0);
    kp_call *c;
    if (X->dtype == Y->dtype) {
        copy_call(a, kp, n, X, Y);
        return 0;
    }
    c = push(a, kp, KP_CAST, n);
    c->p.cast.from = (int32_t)X->dtype;
    c->p.cast.to = (int32_t)Y->dtype;
    c->p.cast.n = numel(Y);
    c->in[0] = X;
    c->out[0] = Y;
    return 0;
}

static int
lower_gather(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_GATHER, n);
    const ir_tensor *D = ir_in(n, 0), *I = ir_in(n, 1);
    const ir_shape *s = &D->shape;
    int axis = norm_axis(ir_attr_int(n, "axis", 0), s->rank);
    c->p.gather.elem_size = (int32_t)ir_dtype_size(D->dtype);
    c->p.gather.index_dtype = (int32_t)I->dtype;
    c->p.gather.outer = prod(s, 0, axis);
    c->p.gather.axis_len = s->d[axis];
    c->p.gather.inner = prod(s, axis + 1, s->rank);
    c->p.gather.n_indices = numel(I);
    c->in[0] = ir_in(n, 0);
    c->in[1] = ir_in(n, 1);
    c->out[0] = ir_out(n, 0);
    return 0;
}

/* A strided copy of `in` into node output 0, given per-output-dim input strides. */
static kp_call *
strided_call(arena *a, kprog *kp, const ir_node *n, int64_t offset, const int64_t *in_stride)
{
    kp_call *c = push(a, kp, KP_STRIDED, n);
    const ir_tensor *Y = ir_out(n, 0);
    int i;
    c->p.strided.rank = Y->shape.rank;
    c->p.strided.elem_size = (int32_t)ir_dtype_size(Y->dtype);
    c->p.strided.offset = offset;
    for (i = 0; i < Y->shape.rank; i++) {
        c->p.strided.out_dims[i] = Y->shape.d[i];
        c->p.strided.in_stride[i] = in_stride[i];
    }
    c->in[0] = ir_in(n, 0);
    c->out[0] = ir_out(n, 0);
    return c;
}

static int
lower_transpose(arena *a, kprog *kp, const ir_node *n)
{
    const ir_attr *perm = ir_attr_get(n, "perm");
    const ir_shape *s = &ir_in(n, 0)->shape;
    int64_t st[IR_MAX_RANK], in_st[IR_MAX_RANK];
    int i;
    strides_of(s, st);
    for (i = 0; i < s->rank; i++)
        in_st[i] = perm && i < perm->n ? st[perm->ints[i]] : st[s->rank - 1 - i];
    strided_call(a, kp, n, 0, in_st);
    return 0;
}

static int
lower_expand(arena *a, kprog *kp, const ir_node *n)
{
    const ir_tensor *Y = ir_out(n, 0);
    int64_t st[IR_MAX_RANK];
    bcast_strides(&ir_in(n, 0)->shape, Y->shape.rank, &Y->shape, st);
    strided_call(a, kp, n, 0, st);
    return 0;
}

static int64_t
const_i64(const ir_tensor *t, int64_t i)
{
    if (t->dtype == IR_DT_I32)
        return ((const int32_t *)t->data)[i];
    return ((const int64_t *)t->data)[i];
}

/* Slice: ONNX clamping rules, then one strided copy starting at the first element. */
static int
lower_slice(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    const ir_tensor *X = ir_in(n, 0), *S = ir_in(n, 1), *A = ir_in(n, 3), *P = ir_in(n, 4);
    const ir_shape *s = &X->shape;
    int64_t st[IR_MAX_RANK], in_st[IR_MAX_RANK], start[IR_MAX_RANK], step[IR_MAX_RANK];
    int64_t off = 0, k, cnt = numel(S);
    int i;
    strides_of(s, st);
    for (i = 0; i < s->rank; i++) {
        start[i] = 0;
        step[i] = 1;
    }
    for (k = 0; k < cnt; k++) {
        int ax = A ? norm_axis(const_i64(A, k), s->rank) : (int)k;
        int64_t dim, b = const_i64(S, k), stp = P ? const_i64(P, k) : 1;
        if (ax < 0 || ax >= s->rank || stp == 0) {
            diag_node(d, n, "bad axes or steps");
            return -1;
        }
        dim = s->d[ax];
        /* |step| >= dim takes at most one element: clamp it so the strides cannot overflow
         * (found by fuzzing: tests/bad/fuzz/slice_huge_step.onnx) */
        if (stp > dim)
            stp = dim > 0 ? dim : 1;
        else if (stp < -dim)
            stp = dim > 0 ? -dim : -1;
        if (b < 0)
            b += dim;
        if (stp > 0)
            b = b < 0 ? 0 : (b > dim ? dim : b);
        else
            b = b < 0 ? -1 : (b > dim - 1 ? dim - 1 : b);
        start[ax] = b;
        step[ax] = stp;
    }
    for (i = 0; i < s->rank; i++) {
        off += start[i] * st[i];
        in_st[i] = st[i] * step[i];
    }
    if (numel(ir_out(n, 0)) == 0)
        off = 0;
    strided_call(a, kp, n, off, in_st);
    return 0;
}

static int
lower_concat(arena *a, kprog *kp, const ir_node *n)
{
    const ir_tensor *Y = ir_out(n, 0);
    const ir_shape *s = &Y->shape;
    int axis = norm_axis(ir_attr_int(n, "axis", 0), s->rank);
    int64_t outer = prod(s, 0, axis), inner = prod(s, axis + 1, s->rank), off = 0;
    int i;
    for (i = 0; i < n->n_inputs; i++) {
        ir_tensor *X = ir_in(n, i);
        kp_call *c;
        int64_t cols;
        if (!X)
            continue;
        cols = X->shape.d[axis] * inner;
        if (cols == 0)
            continue;
        c = push(a, kp, KP_CONCAT, n);
        c->p.concat.elem_size = (int32_t)ir_dtype_size(Y->dtype);
        c->p.concat.outer = outer;
        c->p.concat.in_cols = cols;
        c->p.concat.out_cols = s->d[axis] * inner;
        c->p.concat.offset = off;
        off += cols;
        c->in[0] = X;
        c->out[0] = ir_out(n, 0);
    }
    return 0;
}

static int
lower_fill(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_FILL, n);
    const ir_tensor *Y = ir_out(n, 0);
    const ir_attr *v = ir_attr_get(n, "value");
    size_t es = ir_dtype_size(Y->dtype);
    c->p.fill.n = numel(Y);
    c->p.fill.elem_size = (int32_t)es;
    c->p.fill.dtype = (int32_t)Y->dtype;
    if (v && v->kind == IR_ATTR_TENSOR && v->t && v->t->data)
        memcpy(c->p.fill.value, v->t->data, es);
    c->out[0] = ir_out(n, 0);
    return 0;
}

/* --- issue 20, conv: Conv, ConvTranspose, pools, BatchNormalization ------------------- */

/* Conv / ConvTranspose: the geometry (shape_conv.c) as lstmc_rt_conv_params, a 1-D one
 * with H = 1. */
static int
lower_conv(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    shape_conv_geom cg;
    kp_call *c;
    lstmc_rt_conv_params *p;
    int w = 0; /* the axis that is W: the last one */
    if (shape_conv_geom_of(n, &cg, d) < 0)
        return -1;
    c = push(a, kp, n->op == IR_OP_CONV ? KP_CONV : KP_CONV_TRANSPOSE, n);
    p = &c->p.conv;
    if (cg.nsp == 2)
        w = 1;
    p->n = cg.n, p->c_in = cg.c_in, p->c_out = cg.c_out, p->group = cg.group;
    p->in_h = cg.nsp == 2 ? cg.in[0] : 1, p->in_w = cg.in[w];
    p->out_h = cg.nsp == 2 ? cg.out[0] : 1, p->out_w = cg.out[w];
    p->k_h = cg.nsp == 2 ? cg.k[0] : 1, p->k_w = cg.k[w];
    p->stride_h = cg.nsp == 2 ? cg.stride[0] : 1, p->stride_w = cg.stride[w];
    p->dil_h = cg.nsp == 2 ? cg.dil[0] : 1, p->dil_w = cg.dil[w];
    p->pad_h = cg.nsp == 2 ? cg.pad_b[0] : 0, p->pad_w = cg.pad_b[w];
    c->in[0] = ir_in(n, 0);
    c->in[1] = ir_in(n, 1);
    c->in[2] = ir_in(n, 2);
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_pool(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    shape_conv_geom cg;
    kp_call *c;
    lstmc_rt_pool_params *p;
    int w;
    if (shape_conv_geom_of(n, &cg, d) < 0)
        return -1;
    c = push(a, kp, KP_POOL, n);
    p = &c->p.pool;
    w = cg.nsp == 2 ? 1 : 0;
    p->kind = n->op == IR_OP_MAX_POOL || n->op == IR_OP_GLOBAL_MAX_POOL ? LSTMC_RT_POOL_MAX
                                                                        : LSTMC_RT_POOL_AVG;
    p->count_include_pad = (int32_t)ir_attr_int(n, "count_include_pad", 0);
    p->nc = cg.n * cg.c_in;
    p->in_h = cg.nsp == 2 ? cg.in[0] : 1, p->in_w = cg.in[w];
    p->out_h = cg.nsp == 2 ? cg.out[0] : 1, p->out_w = cg.out[w];
    p->k_h = cg.nsp == 2 ? cg.k[0] : 1, p->k_w = cg.k[w];
    p->stride_h = cg.nsp == 2 ? cg.stride[0] : 1, p->stride_w = cg.stride[w];
    p->dil_h = cg.nsp == 2 ? cg.dil[0] : 1, p->dil_w = cg.dil[w];
    p->pad_h = cg.nsp == 2 ? cg.pad_b[0] : 0, p->pad_w = cg.pad_b[w];
    c->in[0] = ir_in(n, 0);
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_batch_norm(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_BATCHNORM, n);
    const ir_shape *s = &ir_in(n, 0)->shape;
    int i;
    c->p.batchnorm.outer = s->d[0];
    c->p.batchnorm.channels = s->d[1];
    c->p.batchnorm.inner = prod(s, 2, s->rank);
    c->p.batchnorm.epsilon = ir_attr_float(n, "epsilon", 1e-5f);
    for (i = 0; i < 5; i++)
        c->in[i] = ir_in(n, i);
    c->out[0] = ir_out(n, 0);
    return 0;
}

/* --- issue 20, elt: lstmc_rt_ewise, Tile, Range, CumSum ------------------------------ */

/* The lstmc_rt_ewise code of an op, or -1. */
static int
ewise_code(ir_op op)
{
    switch (op) {
    case IR_OP_EQUAL:
        return LSTMC_RT_EW_EQUAL;
    case IR_OP_LESS:
        return LSTMC_RT_EW_LESS;
    case IR_OP_GREATER:
        return LSTMC_RT_EW_GREATER;
    case IR_OP_LESS_OR_EQUAL:
        return LSTMC_RT_EW_LESS_EQUAL;
    case IR_OP_GREATER_OR_EQUAL:
        return LSTMC_RT_EW_GREATER_EQUAL;
    case IR_OP_AND:
        return LSTMC_RT_EW_AND;
    case IR_OP_OR:
        return LSTMC_RT_EW_OR;
    case IR_OP_NOT:
        return LSTMC_RT_EW_NOT;
    case IR_OP_WHERE:
        return LSTMC_RT_EW_WHERE;
    case IR_OP_POW:
        return LSTMC_RT_EW_POW;
    case IR_OP_RECIPROCAL:
        return LSTMC_RT_EW_RECIPROCAL;
    case IR_OP_LOG:
        return LSTMC_RT_EW_LOG;
    case IR_OP_ABS:
        return LSTMC_RT_EW_ABS;
    case IR_OP_CLIP:
        return LSTMC_RT_EW_CLIP;
    case IR_OP_LEAKY_RELU:
        return LSTMC_RT_EW_LEAKY_RELU;
    case IR_OP_HARD_SIGMOID:
        return LSTMC_RT_EW_HARD_SIGMOID;
    case IR_OP_HARD_SWISH:
        return LSTMC_RT_EW_HARD_SWISH;
    case IR_OP_ERF:
        return LSTMC_RT_EW_ERF;
    case IR_OP_PRELU:
        return LSTMC_RT_EW_PRELU;
    case IR_OP_MIN:
        return LSTMC_RT_EW_MIN;
    case IR_OP_MAX:
        return LSTMC_RT_EW_MAX;
    case IR_OP_FLOOR:
        return LSTMC_RT_EW_FLOOR;
    case IR_OP_CEIL:
        return LSTMC_RT_EW_CEIL;
    case IR_OP_SIGN:
        return LSTMC_RT_EW_SIGN;
    case IR_OP_ROUND:
        return LSTMC_RT_EW_ROUND;
    case IR_OP_SOFTPLUS:
        return LSTMC_RT_EW_SOFTPLUS;
    case IR_OP_ELU:
        return LSTMC_RT_EW_ELU;
    case IR_OP_SELU:
        return LSTMC_RT_EW_SELU;
    case IR_OP_SIN:
        return LSTMC_RT_EW_SIN;
    case IR_OP_COS:
        return LSTMC_RT_EW_COS;
    default:
        return -1;
    }
}

/* One lstmc_rt_ewise call of op `code`: inputs a b c in the node's order (Where: condition
 * X Y; Clip: input min max, either bound absent; PRelu: X slope), each read through its
 * broadcast strides. Selu's gamma is beta. */
static int
lower_ewise(arena *a, kprog *kp, const ir_node *n, int code)
{
    kp_call *c = push(a, kp, KP_EWISE, n);
    lstmc_rt_ewise_params *p = &c->p.ewise;
    const ir_tensor *Y = ir_out(n, 0);
    int64_t *st[3];
    int i;
    st[0] = p->a_stride;
    st[1] = p->b_stride;
    st[2] = p->c_stride;
    p->op = code;
    p->dtype = (int32_t)ir_in(n, n->op == IR_OP_WHERE ? 1 : 0)->dtype;
    p->b_dtype = n->op == IR_OP_POW ? (int32_t)ir_in(n, 1)->dtype : 0;
    p->alpha = ir_attr_float(n, "alpha", 0.0f);
    p->beta = ir_attr_float(n, n->op == IR_OP_SELU ? "gamma" : "beta", 0.0f);
    p->rank = Y->shape.rank;
    for (i = 0; i < Y->shape.rank; i++)
        p->out_dims[i] = Y->shape.d[i];
    for (i = 0; i < 3 && i < n->n_inputs; i++) {
        c->in[i] = ir_in(n, i);
        if (c->in[i])
            bcast_strides(&c->in[i]->shape, Y->shape.rank, &Y->shape, st[i]);
    }
    c->out[0] = ir_out(n, 0);
    return 0;
}

/* Tile as one strided copy: output axis i of size r_i * d_i is read as the pair
 * [r_i (stride 0), d_i (the input's stride)]; an axis with r_i = 1 keeps one dim, and dims
 * read contiguously merge. At most two dims per axis: LSTMC_RT_STRIDED_MAX_DIMS holds any
 * rank the IR allows. */
static_assert(2 * IR_MAX_RANK <= LSTMC_RT_STRIDED_MAX_DIMS, "a Tile's strided copy must fit");

static int
lower_tile(arena *a, kprog *kp, const ir_node *n)
{
    const ir_tensor *X = ir_in(n, 0), *Y = ir_out(n, 0);
    int64_t st[IR_MAX_RANK], dims[2 * IR_MAX_RANK], str[2 * IR_MAX_RANK];
    int i, r = 0;
    kp_call *c;
    strides_of(&X->shape, st);
    for (i = 0; i < X->shape.rank; i++) {
        int64_t rep = X->shape.d[i] ? Y->shape.d[i] / X->shape.d[i] : 1;
        if (rep != 1) {
            dims[r] = rep;
            str[r++] = 0;
        }
        if (X->shape.d[i] != 1 || rep == 1) {
            dims[r] = X->shape.d[i];
            str[r++] = st[i];
        }
    }
    for (i = r - 1; i > 0; i--) { /* merge dims read contiguously (fewer odometer steps) */
        if (str[i - 1] == str[i] * dims[i]) {
            int j;
            dims[i - 1] *= dims[i];
            str[i - 1] = str[i];
            for (j = i; j + 1 < r; j++)
                dims[j] = dims[j + 1], str[j] = str[j + 1];
            r--;
        }
    }
    c = push(a, kp, KP_STRIDED, n);
    c->p.strided.rank = r;
    c->p.strided.elem_size = (int32_t)ir_dtype_size(Y->dtype);
    for (i = 0; i < r; i++) {
        c->p.strided.out_dims[i] = dims[i];
        c->p.strided.in_stride[i] = str[i];
    }
    c->in[0] = ir_in(n, 0);
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_range(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_RANGE, n);
    c->p.range.dtype = (int32_t)ir_out(n, 0)->dtype;
    c->p.range.n = numel(ir_out(n, 0));
    c->in[0] = ir_in(n, 0); /* start */
    c->in[1] = ir_in(n, 2); /* delta */
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_cumsum(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    const ir_tensor *X = ir_in(n, 0), *A = ir_in(n, 1);
    const ir_shape *s = &X->shape;
    kp_call *c;
    int axis;
    if (!A || !A->data || ir_shape_numel(&A->shape) != 1) {
        diag_node(d, n, "input 'axis' must be a constant scalar");
        return -1;
    }
    axis = norm_axis(const_i64(A, 0), s->rank);
    c = push(a, kp, KP_CUMSUM, n);
    c->p.cumsum.dtype = (int32_t)X->dtype;
    c->p.cumsum.exclusive = (int32_t)ir_attr_int(n, "exclusive", 0);
    c->p.cumsum.reverse = (int32_t)ir_attr_int(n, "reverse", 0);
    c->p.cumsum.outer = prod(s, 0, axis);
    c->p.cumsum.len = s->d[axis];
    c->p.cumsum.inner = prod(s, axis + 1, s->rank);
    c->in[0] = ir_in(n, 0);
    c->out[0] = ir_out(n, 0);
    return 0;
}

/* --- issue 20, red: Reduce*, LayerNormalization, Pad, Split, TopK, ScatterElements ----- */

/* The lstmc_rt_reduce_op of a Reduce* op. */
static int32_t
reduce_code(ir_op op)
{
    switch (op) {
    case IR_OP_REDUCE_MEAN:
        return LSTMC_RT_REDUCE_MEAN;
    case IR_OP_REDUCE_SUM:
        return LSTMC_RT_REDUCE_SUM;
    case IR_OP_REDUCE_MAX:
        return LSTMC_RT_REDUCE_MAX;
    case IR_OP_REDUCE_MIN:
        return LSTMC_RT_REDUCE_MIN;
    case IR_OP_REDUCE_SUM_SQUARE:
        return LSTMC_RT_REDUCE_SUM_SQUARE;
    case IR_OP_REDUCE_L1:
        return LSTMC_RT_REDUCE_L1;
    case IR_OP_REDUCE_PROD:
        return LSTMC_RT_REDUCE_PROD;
    case IR_OP_REDUCE_LOG_SUM:
        return LSTMC_RT_REDUCE_LOG_SUM;
    case IR_OP_REDUCE_LOG_SUM_EXP:
        return LSTMC_RT_REDUCE_LOG_SUM_EXP;
    default:
        return LSTMC_RT_REDUCE_L2;
    }
}

/* Reduce*: the reduced axes as a mask; axes of size 1 dropped and neighbours of the same
 * kind merged, so the kernel's odometer has few counters. No axis reduced: a copy. */
static int
lower_reduce(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    ir_tensor *X = ir_in(n, 0);
    const ir_shape *s = &X->shape;
    int red[IR_MAX_RANK], i, r = 0;
    kp_call *c;
    lstmc_rt_reduce_params *p;
    if (shape_reduce_axes((ir_node *)n, s->rank, red, d) < 0)
        return -1;
    for (i = 0; i < s->rank && !red[i]; i++)
        ;
    if (i == s->rank && s->rank > 0) { /* noop_with_empty_axes: the data itself */
        if (reduce_code(n->op) >= LSTMC_RT_REDUCE_SUM_SQUARE) {
            /* ONNX's reference squares the data for ReduceSumSquare; the others are not
             * pinned down well enough to copy with confidence */
            diag_node(d, n,
                      "attribute 'noop_with_empty_axes' is 1 with no axes; lstmc does not "
                      "run %s as a no-op",
                      n->op_type);
            return -1;
        }
        copy_call(a, kp, n, X, ir_out(n, 0));
        return 0;
    }
    c = push(a, kp, KP_REDUCE, n);
    p = &c->p.reduce;
    p->op = reduce_code(n->op);
    p->dtype = (int32_t)X->dtype;
    for (i = 0; i < s->rank; i++) {
        if (s->d[i] == 1)
            continue;
        if (r > 0 && p->reduce[r - 1] == red[i]) {
            p->dims[r - 1] *= s->d[i];
            continue;
        }
        p->dims[r] = s->d[i];
        p->reduce[r++] = red[i];
    }
    p->rank = r;
    c->in[0] = X;
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_layernorm(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    const ir_shape *s = &ir_in(n, 0)->shape;
    int axis = norm_axis(ir_attr_int(n, "axis", -1), s->rank);
    int ss = shape_layernorm_param((ir_node *)n, 1, axis, d);
    int bs = shape_layernorm_param((ir_node *)n, 2, axis, d);
    kp_call *c;
    if (ss < 0 || bs < 0)
        return -1;
    c = push(a, kp, KP_LAYERNORM, n);
    c->p.layernorm.outer = prod(s, 0, axis);
    c->p.layernorm.n = prod(s, axis, s->rank);
    c->p.layernorm.epsilon = ir_attr_float(n, "epsilon", 1e-5f);
    c->p.layernorm.scale_stride = ss;
    c->p.layernorm.bias_stride = bs;
    c->in[0] = ir_in(n, 0);
    c->in[1] = ir_in(n, 1);
    c->in[2] = ir_in(n, 2);
    c->out[0] = ir_out(n, 0);
    if (ir_out(n, 1) || ir_out(n, 2)) { /* Mean, InvStdDev: the same rows, the same sums */
        kp_call *st = push(a, kp, KP_LAYERNORM_STATS, n);
        st->p.layernorm = c->p.layernorm;
        st->in[0] = ir_in(n, 0);
        st->out[0] = ir_out(n, 1);
        st->out[1] = ir_out(n, 2);
    }
    return 0;
}

static int
lower_instance_norm(arena *a, kprog *kp, const ir_node *n)
{
    const ir_shape *s = &ir_in(n, 0)->shape;
    kp_call *c = push(a, kp, KP_INSTANCENORM, n);
    c->p.instancenorm.outer = s->d[0];
    c->p.instancenorm.channels = s->d[1];
    c->p.instancenorm.inner = prod(s, 2, s->rank);
    c->p.instancenorm.epsilon = ir_attr_float(n, "epsilon", 1e-5f);
    c->in[0] = ir_in(n, 0);
    c->in[1] = ir_in(n, 1);
    c->in[2] = ir_in(n, 2);
    c->out[0] = ir_out(n, 0);
    return 0;
}

static int
lower_pad(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    ir_tensor *X = ir_in(n, 0), *V = ir_in(n, 2);
    const ir_shape *s = &X->shape;
    const char *mode = ir_attr_string(n, "mode", "constant");
    kp_call *c;
    lstmc_rt_pad_params *p;
    int i;
    c = push(a, kp, KP_PAD, n);
    p = &c->p.pad;
    if (shape_pad_amounts((ir_node *)n, s->rank, p->begin, p->end, d) < 0)
        return -1;
    p->mode = strcmp(mode, "reflect") == 0 ? LSTMC_RT_PAD_REFLECT
              : strcmp(mode, "edge") == 0  ? LSTMC_RT_PAD_EDGE
                                           : LSTMC_RT_PAD_CONSTANT;
    p->rank = s->rank;
    p->elem_size = (int32_t)ir_dtype_size(X->dtype);
    for (i = 0; i < s->rank; i++)
        p->in_dims[i] = s->d[i];
    if (V && V->data)
        memcpy(p->value, V->data, ir_dtype_size(V->dtype));
    c->in[0] = X;
    c->out[0] = ir_out(n, 0);
    return 0;
}

/* Split: one strided copy per output, from its first element along the axis. */
static int
lower_split(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    ir_tensor *X = ir_in(n, 0);
    const ir_shape *s = &X->shape;
    int axis = norm_axis(ir_attr_int(n, "axis", 0), s->rank), i, j;
    int64_t sz[64], st[IR_MAX_RANK], start = 0;
    if (shape_split_sizes((ir_node *)n, s->d[axis], sz, d) < 0)
        return -1;
    strides_of(s, st);
    for (j = 0; j < n->n_outputs; j++) {
        ir_tensor *Y = ir_out(n, j);
        kp_call *c;
        if (Y && sz[j] > 0 && numel(Y) > 0) {
            c = push(a, kp, KP_STRIDED, n);
            c->p.strided.rank = Y->shape.rank;
            c->p.strided.elem_size = (int32_t)ir_dtype_size(Y->dtype);
            c->p.strided.offset = start * st[axis];
            for (i = 0; i < Y->shape.rank; i++) {
                c->p.strided.out_dims[i] = Y->shape.d[i];
                c->p.strided.in_stride[i] = st[i];
            }
            c->in[0] = X;
            c->out[0] = Y;
        }
        start += sz[j];
    }
    return 0;
}

static int
lower_topk(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_TOPK, n);
    const ir_tensor *X = ir_in(n, 0);
    const ir_shape *s = &X->shape;
    int axis = norm_axis(ir_attr_int(n, "axis", -1), s->rank);
    c->p.topk.dtype = (int32_t)X->dtype;
    c->p.topk.largest = (int32_t)ir_attr_int(n, "largest", 1);
    c->p.topk.sorted = (int32_t)ir_attr_int(n, "sorted", 1);
    c->p.topk.outer = prod(s, 0, axis);
    c->p.topk.axis_len = s->d[axis];
    c->p.topk.inner = prod(s, axis + 1, s->rank);
    c->p.topk.k = ir_out(n, 0) ? ir_out(n, 0)->shape.d[axis] : ir_out(n, 1)->shape.d[axis];
    c->in[0] = ir_in(n, 0);
    c->out[0] = ir_out(n, 0);
    c->out[1] = ir_out(n, 1);
    return 0;
}

static int
lower_scatter(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_SCATTER_ELEMENTS, n);
    lstmc_rt_scatter_params *p = &c->p.scatter;
    const ir_tensor *D = ir_in(n, 0), *I = ir_in(n, 1);
    int i;
    p->dtype = (int32_t)D->dtype;
    p->index_dtype = (int32_t)I->dtype;
    p->reduction = (int32_t)ir_attr_int(n, "reduction", 0);
    p->rank = D->shape.rank;
    p->axis = norm_axis(ir_attr_int(n, "axis", 0), D->shape.rank);
    for (i = 0; i < D->shape.rank; i++) {
        p->data_dims[i] = D->shape.d[i];
        p->idx_dims[i] = I->shape.d[i];
    }
    c->in[0] = ir_in(n, 0);
    c->in[1] = ir_in(n, 1);
    c->in[2] = ir_in(n, 2);
    c->out[0] = ir_out(n, 0);
    return 0;
}

/* lstmc.RnnQ (passes/qact.c, issue 22): X W R Q seq_lens init_h init_c P -> Y Y_h Y_c, one
 * lstmc_rt_rnn_q call; the recipe's integers are the node's attributes. With the attribute
 * "tissue" (passes/breakpoints.c, issue 24) inputs 8-10 are the relevance bound, h_pred and
 * c_pred, and the call is lstmc_rt_lstm_tissue_q's; with "drs" (passes/drs.c) it is
 * lstmc_rt_lstm_drs_q's, at the attribute "alpha_intra". */
static int
lower_rnnq(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    const int tissue = ir_attr_int(n, "tissue", 0) != 0, drs = ir_attr_int(n, "drs", 0) != 0;
    kp_call *c = push(a, kp,
                      tissue && drs ? KP_LSTM_TISSUE_DRS_Q
                      : tissue      ? KP_LSTM_TISSUE_Q
                      : drs         ? KP_LSTM_DRS_Q
                                    : KP_RNN_Q,
                      n);
    lstmc_rt_rnnq_params *p = tissue ? &c->p.tissueq.p.q : drs ? &c->p.drsq.p : &c->p.rnnq;
    const ir_attr *acts = ir_attr_get(n, "activations");
    lstmc_rt_rnn_params rp;
    int i;

    memset(&rp, 0, sizeof rp);
    rnn_params(n, &rp);
    p->cell = (int32_t)ir_attr_int(n, "cell", 0);
    p->bits = (int32_t)ir_attr_int(n, "bits", 8);
    p->seq_len = rp.seq_len;
    p->batch = rp.batch;
    p->input_size = rp.input_size;
    p->hidden = rp.hidden;
    p->n_dirs = rp.n_dirs;
    p->reverse = rp.reverse;
    p->layout = rp.layout;
    for (i = 0; acts && i < acts->n && i < 6; i++)
        p->act[i] = (int32_t)acts->ints[i];
    p->has_clip = rp.has_clip;
    p->clip_q = (int32_t)ir_attr_int(n, "clip_q", 0);
    p->input_forget = rp.input_forget;
    p->linear_before_reset = rp.linear_before_reset;
    p->cell_exp = (int32_t)ir_attr_int(n, "cell_exp", 15);
    p->h_mult = (int32_t)ir_attr_int(n, "h_mult", 0);
    p->h_shift = (int32_t)ir_attr_int(n, "h_shift", 0);
    p->peep_mult = (int32_t)ir_attr_int(n, "peep_mult", 0);
    p->peep_shift = (int32_t)ir_attr_int(n, "peep_shift", 0);
    for (i = 0; i < c->n_in; i++)
        c->in[i] = ir_in(n, i);
    for (i = 0; i < 3; i++)
        c->out[i] = ir_out(n, i);
    c->scratch_bytes = lstmc_rt_rnnq_scratch(p) * 4;
    if (drs && !tissue)
        c->p.drsq.alpha_intra = ir_attr_float(n, "alpha_intra", 0.0f);
    if (tissue) {
        lstmc_rt_tissueq_params *tp = &c->p.tissueq.p;
        tp->mts = (int32_t)ir_attr_int(n, "mts", 8);
        tp->relevance = (int32_t)ir_attr_int(n, "relevance", 0);
        tp->max_run = (int32_t)ir_attr_int(n, "max_run", 0);
        c->p.tissueq.alpha_inter = ir_attr_float(n, "alpha_inter", 0.0f);
        c->p.tissueq.alpha_intra = ir_attr_float(n, "alpha_intra", 0.0f);
        c->scratch_bytes = lstmc_rt_lstm_tissue_q_scratch(tp) * 4;
        if (c->scratch_bytes < 0) {
            diag_node(d, n, "its shapes and attributes do not make a valid integer tissue layer");
            return -1;
        }
    }
    if (p->hidden < 1) {
        diag_node(d, n, "its shapes and attributes do not make a valid integer recurrent layer");
        return -1;
    }
    return 0;
}

/* lstmc.Quantize / lstmc.Dequantize: one scale and zero point over the whole tensor. */
static int
lower_quant(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, n->op == IR_OP_QUANTIZE ? KP_QUANT : KP_DEQUANT, n);

    c->p.quant.n = numel(ir_in(n, 0));
    c->p.quant.bits = (int32_t)ir_attr_int(n, "bits", 8);
    c->p.quant.scale = ir_attr_float(n, "scale", 1.0f);
    c->p.quant.zero_point = (int32_t)ir_attr_int(n, "zero_point", 0);
    c->in[0] = ir_in(n, 0);
    c->out[0] = ir_out(n, 0);
    return 0;
}

/* lstmc.GemmQ (passes/qact.c, --io=int): A [..., K] B [N, K] bias -> Y int32 [..., N]. */
static int
lower_gemmq(arena *a, kprog *kp, const ir_node *n)
{
    kp_call *c = push(a, kp, KP_GEMM_Q, n);
    const ir_tensor *A = ir_in(n, 0), *B = ir_in(n, 1);

    c->p.gemmq.k = A->shape.d[A->shape.rank - 1]; /* A's rows: every dim but the last */
    c->p.gemmq.m = c->p.gemmq.k ? numel(A) / c->p.gemmq.k : 0;
    c->p.gemmq.n = B->shape.d[0];
    c->p.gemmq.bits = (int32_t)ir_attr_int(n, "bits", 8);
    c->p.gemmq.a_zero_point = (int32_t)ir_attr_int(n, "a_zero_point", 0);
    c->in[0] = ir_in(n, 0);
    c->in[1] = ir_in(n, 1);
    c->in[2] = ir_in(n, 2);
    c->out[0] = ir_out(n, 0);
    return 0;
}

int
kp_lower_node(arena *a, kprog *kp, const ir_node *n, diag *d)
{
    switch (n->op) { /* the ops whose lowering is their own */
    case IR_OP_LSTM:
    case IR_OP_GRU:
    case IR_OP_RNN:
    case IR_OP_RNN_REC:
        return lower_rnn(a, kp, n, d);
    case IR_OP_RNN_PROJ:
        return lower_proj(a, kp, n);
    case IR_OP_RNN_Q: /* issue 22 */
        return lower_rnnq(a, kp, n, d);
    case IR_OP_QUANTIZE:
    case IR_OP_DEQUANTIZE:
        return lower_quant(a, kp, n);
    case IR_OP_GEMM_Q:
        return lower_gemmq(a, kp, n);
    case IR_OP_RNN_TISSUE:
        if (n->n_inputs > 9)
            return lower_tissue_drs(a, kp, n, d);
        return lower_tissue(a, kp, n, d);
    case IR_OP_RNN_DRS:
        return lower_drs(a, kp, n, d);
    case IR_OP_GEMM:
        return lower_gemm(a, kp, n);
    case IR_OP_MATMUL:
        return lower_matmul(a, kp, n);
    case IR_OP_ARGMAX:
    case IR_OP_ARGMIN:
        return lower_argmax(a, kp, n);
    case IR_OP_CAST:
        return lower_cast(a, kp, n);
    case IR_OP_GATHER:
        return lower_gather(a, kp, n);
    case IR_OP_TRANSPOSE:
        return lower_transpose(a, kp, n);
    case IR_OP_EXPAND:
        return lower_expand(a, kp, n);
    case IR_OP_SLICE:
        return lower_slice(a, kp, n, d);
    case IR_OP_CONCAT:
        return lower_concat(a, kp, n);
    case IR_OP_CONSTANT_OF_SHAPE:
        return lower_fill(a, kp, n);
    case IR_OP_CONV: /* issue 20, conv */
    case IR_OP_CONV_TRANSPOSE:
        return lower_conv(a, kp, n, d);
    case IR_OP_MAX_POOL:
    case IR_OP_AVERAGE_POOL:
    case IR_OP_GLOBAL_AVERAGE_POOL:
    case IR_OP_GLOBAL_MAX_POOL:
        return lower_pool(a, kp, n, d);
    case IR_OP_BATCH_NORM:
        return lower_batch_norm(a, kp, n);
    case IR_OP_SQUEEZE: /* the bytes stay as they are: a copy (or nothing, once planned) */
    case IR_OP_UNSQUEEZE:
    case IR_OP_RESHAPE:
    case IR_OP_FLATTEN:
    case IR_OP_IDENTITY:
        copy_call(a, kp, n, ir_in(n, 0), ir_out(n, 0));
        return 0;
    case IR_OP_TILE: /* issue 20, elt */
        return lower_tile(a, kp, n);
    case IR_OP_RANGE:
        return lower_range(a, kp, n);
    case IR_OP_CUMSUM:
        return lower_cumsum(a, kp, n, d);
    /* issue 20, red */
    case IR_OP_REDUCE_MEAN:
    case IR_OP_REDUCE_SUM:
    case IR_OP_REDUCE_MAX:
    case IR_OP_REDUCE_MIN:
    case IR_OP_REDUCE_L2:
    case IR_OP_REDUCE_SUM_SQUARE:
    case IR_OP_REDUCE_L1:
    case IR_OP_REDUCE_PROD:
    case IR_OP_REDUCE_LOG_SUM:
    case IR_OP_REDUCE_LOG_SUM_EXP:
        return lower_reduce(a, kp, n, d);
    case IR_OP_LAYER_NORM:
        return lower_layernorm(a, kp, n, d);
    case IR_OP_INSTANCE_NORM:
        return lower_instance_norm(a, kp, n);
    case IR_OP_PAD:
        return lower_pad(a, kp, n, d);
    case IR_OP_SPLIT:
        return lower_split(a, kp, n, d);
    case IR_OP_TOPK:
        return lower_topk(a, kp, n);
    case IR_OP_SCATTER_ELEMENTS:
        return lower_scatter(a, kp, n);
    default:
        if (ewise_code(n->op) >= 0)
            return lower_ewise(a, kp, n, ewise_code(n->op));
        if (n->op == IR_OP_NEG && ir_in(n, 0)->dtype != IR_DT_F32) /* integers */
            return lower_ewise(a, kp, n, LSTMC_RT_EW_NEG);
        break;
    }
    switch (ir_op_class_of(n->op)) { /* the rest by class (ir_ops.def) */
    case IR_CLASS_BINARY:
        return lower_binary(a, kp, n, d);
    case IR_CLASS_UNARY:
        return lower_unary(a, kp, n, d);
    case IR_CLASS_NORM:
        return lower_softmax(a, kp, n);
    default: /* Shape and the like: constants by now */
        diag_node(d, n, "cannot be lowered to a kernel (it should have been folded)");
        return -1;
    }
}

/* The activation of call u when it is one a Conv can apply in its store (Relu, HardSwish on
 * floats), else NONE. */
static int
conv_act_of(const kp_call *u)
{
    if (u->kind == KP_UNARY && u->p.unary.op == LSTMC_RT_RELU)
        return LSTMC_RT_CONV_ACT_RELU;
    if (u->kind == KP_EWISE && u->p.ewise.op == LSTMC_RT_EW_HARD_SWISH &&
        u->p.ewise.dtype == LSTMC_RT_F32)
        return LSTMC_RT_CONV_ACT_HARD_SWISH;
    return LSTMC_RT_CONV_ACT_NONE;
}

/* Conv -> Relu or HardSwish (issue 20, conv): the activation goes into the Conv's store
 * (lstmc_rt_conv_params.act), so that the map is written once instead of written, read and
 * written again, when the activation is the only reader of the Conv's output and that is
 * not a graph output; the Conv then writes the activation's output and its call is
 * dropped. */
static void
fuse_conv_relu(arena *a, const ir_graph *g, kprog *kp)
{
    int *readers = arena_calloc(a, (size_t)g->n_tensors + 1, sizeof *readers);
    char *drop = arena_calloc(a, (size_t)kp->n_calls + 1, 1);
    int i, j, n = 0;
    for (i = 0; i < kp->n_calls; i++)
        for (j = 0; j < kp->calls[i].n_in; j++)
            if (kp->calls[i].in[j])
                readers[kp->calls[i].in[j]->id]++;
    for (i = 0; i < g->n_outputs; i++)
        readers[g->outputs[i]->id] += 2;
    for (i = 0; i < kp->n_calls; i++) {
        kp_call *c = &kp->calls[i];
        ir_tensor *y = c->out[0];
        if (c->kind != KP_CONV || c->p.conv.act || !y || readers[y->id] != 1)
            continue;
        for (j = i + 1; j < kp->n_calls; j++) {
            kp_call *u = &kp->calls[j];
            int act = conv_act_of(u), k, other = 0;
            if (u->n_in < 1 || u->in[0] != y)
                continue;
            for (k = 1; k < u->n_in; k++)
                other |= u->in[k] != NULL;
            if (act && !other && u->out[0] && u->out[0]->dtype == IR_DT_F32 &&
                ir_shape_numel(&u->out[0]->shape) == ir_shape_numel(&y->shape)) {
                c->p.conv.act = act;
                c->out[0] = u->out[0];
                drop[j] = 1;
            }
            break;
        }
    }
    for (i = 0; i < kp->n_calls; i++)
        if (!drop[i])
            kp->calls[n++] = kp->calls[i];
    kp->n_calls = n;
}

int
kp_lower_graph(arena *a, ir_graph *g, kprog *kp, diag *d)
{
    int i, j, errors = 0;
    for (i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && kp_lower_node(a, kp, g->nodes[i], d) < 0)
            errors++;
    if (errors)
        return -1;
    fuse_conv_relu(a, g, kp);
    {
        /* a recurrent layer's Y / Y_h / Y_c that nothing reads are not computed at all */
        char *read = arena_calloc(a, (size_t)g->n_tensors + 1, 1);
        for (i = 0; i < kp->n_calls; i++)
            for (j = 0; j < kp->calls[i].n_in; j++)
                if (kp->calls[i].in[j])
                    read[kp->calls[i].in[j]->id] = 1;
        for (i = 0; i < g->n_outputs; i++)
            read[g->outputs[i]->id] = 1;
        for (i = 0; i < kp->n_calls; i++) {
            kp_call *c = &kp->calls[i];
            if (c->kind != KP_RNN && c->kind != KP_RNN_REC && c->kind != KP_LSTM_TISSUE &&
                c->kind != KP_LSTM_DRS && c->kind != KP_LSTM_TISSUE_DRS)
                continue;
            for (j = 0; j < c->n_out; j++)
                if (c->out[j] && !read[c->out[j]->id])
                    c->out[j] = NULL;
        }
    }
    kp->n_outputs = g->n_outputs;
    kp->outputs = arena_calloc(a, (size_t)g->n_outputs + 1, sizeof *kp->outputs);
    for (i = 0; i < g->n_outputs; i++) {
        ir_tensor *t = g->outputs[i];
        int dup = t->is_input || t->data || !t->producer;
        for (j = 0; j < i; j++)
            if (kp->outputs[j] == t)
                dup = 1;
        if (dup) {
            ir_tensor *c = ir_tensor_tmp(g, "output_copy", t->dtype, &t->shape);
            copy_call(a, kp, NULL, t, c);
            t = c;
        }
        kp->outputs[i] = t;
    }
    return 0;
}
