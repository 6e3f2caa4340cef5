/*
 * onnx_misc.c — importers for the non-recurrent ops around LSTM layers (projections,
 * element-wise maths, shape plumbing), and Constant.
 *
 * Older opset forms are rewritten onto the newest one, as compiler/core/ir_ops.def states:
 *   Squeeze/Unsqueeze (< 13)   attribute axes        → constant int64 input 1
 *   Slice (< 10)               attributes starts, ends, axes → constant inputs 1..3
 *   Reshape (< 5)              attribute shape       → constant int64 input 1
 *   Softmax/LogSoftmax (< 13)  legacy = 1 (2-D coercion), default axis 1; else axis -1
 *   Cast                       "to" holds an ir_dtype
 *   ConstantOfShape            "value" always present (default float 0)
 *   Transpose                  "perm" filled with the reversed order when the input's
 *                              rank is known here; shape inference fills it otherwise
 * Every attribute the IR op has is stored, defaults included.
 */
#include "arena.h"
#include "lstmc_rt_kernels.h"
#include "onnx_impl.h"
#include "wfmt.h"

#include <math.h>
#include <string.h>

static ir_op
op_of(const Onnx__NodeProto *np)
{
    return ir_op_from_name(np->op_type);
}

/* --- Constant --------------------------------------------------------------------- */

int
onnx_import_constant(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    static const char *const unsupported[] = {"sparse_value", "value_string", "value_strings"};
    const char *out = np->n_output == 1 ? np->output[0] : NULL;
    const Onnx__TensorProto *tp;
    const int64_t *iv;
    const float *fv;
    ir_tensor *v = NULL, *t;
    size_t k;
    int n_given = 0, n, r;
    float f;
    int64_t i;

    if (!out || !out[0]) {
        onnx_err(cx, "has %zu outputs; Constant has exactly one", np->n_output);
        return -1;
    }
    if (np->n_input) {
        onnx_err(cx, "has %zu inputs; Constant takes none", np->n_input);
        return -1;
    }
    for (k = 0; k < sizeof unsupported / sizeof unsupported[0]; k++) {
        if (onnx_attr_find(np, unsupported[k])) {
            onnx_err(cx, "attribute '%s' is not supported", unsupported[k]);
            return -1;
        }
    }
    /* Build the value as a loose tensor, then give it the output's name. */
    v = arena_alloc(cx->a, sizeof *v);
    v->id = -1;
    if ((r = onnx_attr_tensor(cx, np, "value", &tp)) == 1) {
        n_given++;
        if (!(v = onnx_tensor_read(cx, tp, out, 0)))
            return -1;
    }
    if (r < 0 || (r = onnx_attr_float(cx, np, "value_float", 0.0f, &f)) < 0)
        return -1;
    if (r == 1 && n_given++ == 0) {
        v->dtype = IR_DT_F32;
        v->data = arena_alloc(cx->a, sizeof f);
        memcpy(v->data, &f, sizeof f);
    }
    if ((r = onnx_attr_int(cx, np, "value_int", 0, &i)) < 0)
        return -1;
    if (r == 1 && n_given++ == 0) {
        v->dtype = IR_DT_I64;
        v->data = arena_alloc(cx->a, sizeof i);
        memcpy(v->data, &i, sizeof i);
    }
    if ((r = onnx_attr_floats(cx, np, "value_floats", &fv, &n)) < 0)
        return -1;
    if (r == 1 && n_given++ == 0) {
        v->dtype = IR_DT_F32;
        v->shape.rank = 1;
        v->shape.d[0] = n;
        v->data = arena_alloc(cx->a, (size_t)n * sizeof *fv);
        if (n)
            memcpy(v->data, fv, (size_t)n * sizeof *fv);
    }
    if ((r = onnx_attr_ints(cx, np, "value_ints", &iv, &n)) < 0)
        return -1;
    if (r == 1 && n_given++ == 0) {
        v->dtype = IR_DT_I64;
        v->shape.rank = 1;
        v->shape.d[0] = n;
        v->data = arena_alloc(cx->a, (size_t)n * sizeof *iv);
        if (n)
            memcpy(v->data, iv, (size_t)n * sizeof *iv);
    }
    if (n_given != 1) {
        onnx_err(cx,
                 "needs exactly one of the attributes value, value_float, value_floats, "
                 "value_int, value_ints; it has %d",
                 n_given);
        return -1;
    }

    t = onnx_tensor_ref(cx, out); /* a placeholder when a node used it already */
    if (t->producer || t->data || t->is_input) {
        onnx_err(cx, "output '%s' is also %s", out,
                 t->producer   ? "produced by another node"
                 : t->is_input ? "a graph input"
                               : "an initializer or Constant");
        return -1;
    }
    t->dtype = v->dtype;
    t->shape = v->shape;
    t->data = v->data;
    t->qsrc = v->qsrc;
    return 0;
}

/* --- DequantizeLinear ------------------------------------------------------------- */

/* The constant behind input i of np, or NULL after reporting why there is none. */
static const ir_tensor *
dq_const(onnx_ctx *cx, const Onnx__NodeProto *np, size_t i, const char *what)
{
    const ir_tensor *t =
        i < np->n_input && np->input[i][0] ? ir_tensor_find(cx->g, np->input[i]) : NULL;
    if (!t || !t->data) {
        if (i == 0)
            onnx_err(cx,
                     "input '%s' is not a constant: lstmc dequantises weights, not "
                     "activations (quantise only the initializers, or run the model in float)",
                     i < np->n_input ? np->input[i] : "");
        else
            onnx_err(cx, "%s '%s' must be a constant", what, i < np->n_input ? np->input[i] : "");
        return NULL;
    }
    return t;
}

/* --- QuantizeLinear / DequantizeLinear of activations (issue 22) ------------------- */

/* 1 for an unsigned ONNX integer type (UINT8, UINT16), 0 for INT8, INT16; bits in *bits. */
static int
qtype(int32_t code, int *bits)
{
    *bits = code == ONNX__TENSOR_PROTO__DATA_TYPE__INT16 ||
                    code == ONNX__TENSOR_PROTO__DATA_TYPE__UINT16
                ? 16
                : 8;
    return code == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8 ||
           code == ONNX__TENSOR_PROTO__DATA_TYPE__UINT16;
}

/*
 * The scalar scale and the zero point of a Q/DQ node (inputs 1 and 2) as lstmc.Quantize's
 * attributes: signed integers of `bits` (8 or 16), an unsigned zero point moved down by 128
 * (UINT8) or 32768 (UINT16), q - 2^(bits-1) holding the same value, so that every activation
 * is int8 or int16 inside lstmc. The type is the zero point's, else dtype (the ONNX code
 * QuantizeLinear's output_dtype or the QuantizeLinear before a DequantizeLinear names).
 */
static int
qdq_params(onnx_ctx *cx, const Onnx__NodeProto *np, int32_t dtype, float *scale, int *zp,
           int32_t *code, int *bits)
{
    const ir_tensor *sc =
        np->n_input > 1 && np->input[1][0] ? ir_tensor_find(cx->g, np->input[1]) : NULL;
    const ir_tensor *z =
        np->n_input > 2 && np->input[2][0] ? ir_tensor_find(cx->g, np->input[2]) : NULL;
    if (!sc || !sc->data || sc->dtype != IR_DT_F32 || ir_shape_numel(&sc->shape) != 1) {
        onnx_err(cx, "the scale of an activation must be one float constant (per-axis "
                     "activation scales are not supported)");
        return -1;
    }
    *scale = *(const float *)sc->data;
    if (!(*scale > 0.0f) || !isfinite(*scale)) {
        onnx_err(cx, "scale %g: it must be finite and > 0", (double)*scale);
        return -1;
    }
    *code = dtype;
    *zp = 0;
    if (z) {
        if (!z->data || !z->qsrc || ir_shape_numel(&z->shape) != 1) {
            onnx_err(cx, "the zero point must be one INT8, UINT8, INT16 or UINT16 constant "
                         "(other activation types are not supported)");
            return -1;
        }
        *code = z->qsrc;
        *zp = *(const int32_t *)z->data;
    }
    if (qtype(*code, bits))
        *zp -= 1 << (*bits - 1);
    return 0;
}

/* The lstmc.Quantize / .Dequantize node (op) from x to the output called out, with the scale
 * and zero point of `bits` integers; NULL after reporting when out is produced already. */
static ir_node *
qdq_node(onnx_ctx *cx, ir_op op, ir_tensor *x, const char *out, float scale, int zp, int bits)
{
    ir_tensor *y = onnx_tensor_ref(cx, out);
    ir_node *n;
    if (y->producer || y->data || y->is_input) {
        onnx_err(cx, "output '%s' is produced twice", out);
        return NULL;
    }
    n = ir_node_new(cx->g, op, cx->node, cx->op_type, 1, 1);
    n->opset = cx->opset;
    n->inputs[0] = x;
    ir_node_set_output(n, 0, y);
    ir_attr_set_float(cx->g, n, "scale", scale);
    ir_attr_set_int(cx->g, n, "zero_point", zp);
    ir_attr_set_int(cx->g, n, "bits", bits);
    return n;
}

/* The elements after one step of `axis` in x (the channel of element i is (i / inner) mod
 * numel(sc)) for a 1-D scale sc of x.shape[axis] values; 1 for a scalar; -1 after reporting
 * (the scale, what, does not match x). */
static int64_t
per_axis_inner(onnx_ctx *cx, const ir_tensor *x, const ir_tensor *sc, int64_t axis,
               const char *what)
{
    const int64_t n_ch = ir_shape_numel(&sc->shape);
    int64_t inner = 1, i;
    if (sc->shape.rank == 1) {
        if (axis < 0)
            axis += x->shape.rank;
        if (axis < 0 || axis >= x->shape.rank || x->shape.d[axis] != n_ch) {
            onnx_err(cx,
                     "%s has %lld values; per-axis scales need axis (%lld) to name a "
                     "dimension of x of that size",
                     what, (long long)n_ch, (long long)axis);
            return -1;
        }
        for (i = axis + 1; i < x->shape.rank; i++)
            inner *= x->shape.d[i];
    } else if (n_ch != 1) {
        onnx_err(cx, "%s must hold one value", what);
        return -1;
    }
    return inner;
}

/*
 * QuantizeLinear of a float constant (the fake quantisation a quantisation-aware export writes
 * on its weights: QuantizeLinear then DequantizeLinear of the float initializer), folded here
 * into a quantised constant as an INT8 / UINT8 / INT16 / UINT16 initializer would be (qsrc),
 * per tensor or per `axis`, by the run-time Quantize kernel (lstmc_rt_quantize: ONNX's
 * rounding and saturation; unsigned types shifted into its signed range and back); the
 * DequantizeLinear after it then folds it as weights, keeping the grid.
 */
static int
fold_quantize_const(onnx_ctx *cx, const Onnx__NodeProto *np, const ir_tensor *x, const char *out,
                    int64_t axis, int64_t odt)
{
    const ir_tensor *sc = dq_const(cx, np, 1, "y_scale"), *zp = NULL;
    const int64_t numel = ir_shape_numel(&x->shape);
    int64_t n_ch, inner, i, k;
    int32_t code, shift, *q;
    int16_t *q16;
    int bits;
    ir_tensor *t;

    if (!sc)
        return -1;
    if (np->n_input == 3 && np->input[2][0] && !(zp = dq_const(cx, np, 2, "y_zero_point")))
        return -1;
    if (x->dtype != IR_DT_F32 || sc->dtype != IR_DT_F32 || sc->shape.rank > 1) {
        onnx_err(cx, "a constant x must be float and y_scale a float scalar or 1-D tensor");
        return -1;
    }
    n_ch = ir_shape_numel(&sc->shape);
    code = zp ? zp->qsrc : odt ? (int32_t)odt : ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
    if (zp && (!zp->qsrc || ir_shape_numel(&zp->shape) != n_ch || (odt && odt != zp->qsrc))) {
        onnx_err(cx, "y_zero_point '%s' must be an 8- or 16-bit integer of y_scale's shape",
                 np->input[2]);
        return -1;
    }
    if ((inner = per_axis_inner(cx, x, sc, axis, "y_scale")) < 0)
        return -1;
    shift = qtype(code, &bits) ? 1 << (bits - 1) : 0;
    q = arena_alloc(cx->a, (size_t)(numel > 0 ? numel : 1) * sizeof *q);
    q16 = arena_alloc(cx->a, (size_t)(inner > 0 ? inner : 1) * sizeof *q16);
    for (i = 0; i < numel; i += inner) { /* runs of inner elements of one channel */
        const int64_t ch = sc->shape.rank == 1 ? (i / inner) % n_ch : 0;
        lstmc_rt_quant_params p;
        p.n = inner < numel - i ? inner : numel - i;
        p.bits = bits;
        p.scale = ((const float *)sc->data)[ch];
        p.zero_point = (zp ? ((const int32_t *)zp->data)[ch] : 0) - shift;
        if (!(p.scale > 0.0f) || !isfinite(p.scale)) {
            onnx_err(cx, "y_scale %g: it must be finite and > 0", (double)p.scale);
            return -1;
        }
        (void)lstmc_rt_quantize(&p, (const float *)x->data + i, q16); /* p is valid */
        for (k = 0; k < p.n; k++)
            q[i + k] = (bits == 8 ? ((const int8_t *)q16)[k] : q16[k]) + shift;
    }
    t = onnx_tensor_ref(cx, out);
    if (t->producer || t->data || t->is_input) {
        onnx_err(cx, "output '%s' is produced twice", out);
        return -1;
    }
    t->dtype = IR_DT_I32;
    t->shape = x->shape;
    t->data = q;
    t->qsrc = code;
    return 0;
}

/* QuantizeLinear of an activation: lstmc.Quantize to int8 or int16 (UINT8 and UINT16 models
 * shifted by 128 and 32768). The node keeps the model's type in "onnx_type". */
int
onnx_import_quantize(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    const char *out = np->n_output == 1 ? np->output[0] : NULL;
    int64_t axis, odt, sat, block;
    float scale;
    int zp, bits;
    int32_t code;
    ir_node *n;

    if (np->n_input < 2 || np->n_input > 3 || !out || !out[0]) {
        onnx_err(cx,
                 "has %zu inputs and %zu outputs; QuantizeLinear takes 2 or 3 inputs and "
                 "has one output",
                 np->n_input, np->n_output);
        return -1;
    }
    if (onnx_attr_int(cx, np, "axis", 1, &axis) < 0 ||
        onnx_attr_int(cx, np, "output_dtype", 0, &odt) < 0 ||
        onnx_attr_int(cx, np, "saturate", 1, &sat) < 0)
        return -1;
    if (odt != 0 && odt != ONNX__TENSOR_PROTO__DATA_TYPE__INT8 &&
        odt != ONNX__TENSOR_PROTO__DATA_TYPE__UINT8 &&
        odt != ONNX__TENSOR_PROTO__DATA_TYPE__INT16 &&
        odt != ONNX__TENSOR_PROTO__DATA_TYPE__UINT16) {
        onnx_err(cx,
                 "output_dtype %s: lstmc quantises activations to INT8, UINT8, INT16 and "
                 "UINT16",
                 onnx_dtype_name((int32_t)odt));
        return -1;
    }
    if (onnx_attr_int(cx, np, "block_size", 0, &block) < 0)
        return -1;
    if (block != 0) {
        onnx_err(cx, "attribute 'block_size' is %lld; blocked quantisation is not supported",
                 (long long)block);
        return -1;
    }
    {
        const ir_tensor *x0 = ir_tensor_find(cx->g, np->input[0]);
        if (x0 && x0->data) /* a constant: weights, fake-quantised */
            return fold_quantize_const(cx, np, x0, out, axis, odt);
    }
    if (qdq_params(cx, np, odt ? (int32_t)odt : ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, &scale, &zp,
                   &code, &bits) < 0)
        return -1;
    if (odt != 0 && odt != code) {
        onnx_err(cx, "output_dtype %s but a zero point of %s", onnx_dtype_name((int32_t)odt),
                 onnx_dtype_name(code));
        return -1;
    }
    if (!(n = qdq_node(cx, IR_OP_QUANTIZE, onnx_tensor_ref(cx, np->input[0]), out, scale, zp,
                       bits)))
        return -1;
    ir_attr_set_int(cx->g, n, "onnx_type", code);
    return 0;
}

/* DequantizeLinear of an activation (what a QuantizeLinear made): lstmc.Dequantize. */
static int
import_dequantize_act(onnx_ctx *cx, const Onnx__NodeProto *np, const char *out)
{
    ir_tensor *x = onnx_tensor_ref(cx, np->input[0]);
    const ir_node *q = x->producer;
    float scale;
    int zp, bits;
    int32_t code;

    if (!q || q->op != IR_OP_QUANTIZE) {
        onnx_err(cx,
                 "input '%s' is not a constant nor a QuantizeLinear's output: lstmc "
                 "dequantises weights and the activations the model quantises itself",
                 np->input[0]);
        return -1;
    }
    if (qdq_params(cx, np, (int32_t)ir_attr_int(q, "onnx_type", 0), &scale, &zp, &code, &bits) < 0)
        return -1;
    if (code != ir_attr_int(q, "onnx_type", 0)) {
        onnx_err(cx, "its zero point's type is not that of the QuantizeLinear before it");
        return -1;
    }
    return qdq_node(cx, IR_OP_DEQUANTIZE, x, out, scale, zp, bits) ? 0 : -1;
}

/*
 * DequantizeLinear of 8-, 16- and 32-bit constants (quantised weights and biases):
 * y = (x - zero_point) * scale, per tensor or per channel along `axis`, folded into a float
 * constant here. For 8-bit ones the graph notes that its weights were int8
 * (ir_graph.weights_hint) and the scales, so the compiler stores them as int8 again on the
 * same grid.
 */
int
onnx_import_dequantize(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    const char *out = np->n_output == 1 ? np->output[0] : NULL;
    const ir_tensor *x, *sc, *zp = NULL;
    const int32_t *xv, *zv;
    const float *sv;
    int64_t axis, block, numel, n_ch, inner, i;
    int bits;
    float *y;
    ir_tensor *t;

    if (np->n_input < 2 || np->n_input > 3 || !out || !out[0]) {
        onnx_err(cx,
                 "has %zu inputs and %zu outputs; DequantizeLinear takes 2 or 3 inputs "
                 "and has one output",
                 np->n_input, np->n_output);
        return -1;
    }
    if (onnx_attr_int(cx, np, "axis", 1, &axis) < 0 ||
        onnx_attr_int(cx, np, "block_size", 0, &block) < 0)
        return -1;
    if (block != 0) {
        onnx_err(cx, "attribute 'block_size' is %lld; blocked quantisation is not supported",
                 (long long)block);
        return -1;
    }
    {
        const ir_tensor *x0 = np->input[0][0] ? ir_tensor_find(cx->g, np->input[0]) : NULL;
        if (x0 && !x0->data) /* an activation (issue 22) */
            return import_dequantize_act(cx, np, out);
    }
    if (!(x = dq_const(cx, np, 0, "x")) || !(sc = dq_const(cx, np, 1, "x_scale")))
        return -1;
    if (np->n_input == 3 && np->input[2][0] && !(zp = dq_const(cx, np, 2, "x_zero_point")))
        return -1;
    /* INT32: the biases a static quantiser writes (scale = input scale * weight scale) */
    if (!x->qsrc && x->dtype != IR_DT_I32) {
        onnx_err(cx,
                 "input '%s' is %s; lstmc dequantises INT8, UINT8, INT16, UINT16 and INT32 "
                 "only",
                 np->input[0], ir_dtype_name(x->dtype));
        return -1;
    }
    if (sc->dtype != IR_DT_F32 || sc->shape.rank > 1) {
        onnx_err(cx, "x_scale '%s' must be a float scalar or 1-D tensor", np->input[1]);
        return -1;
    }
    if (zp && (zp->qsrc != x->qsrc || zp->dtype != x->dtype || zp->shape.rank != sc->shape.rank ||
               ir_shape_numel(&zp->shape) != ir_shape_numel(&sc->shape))) {
        onnx_err(cx, "x_zero_point '%s' must have x's type and x_scale's shape", np->input[2]);
        return -1;
    }
    numel = ir_shape_numel(&x->shape);
    n_ch = ir_shape_numel(&sc->shape);
    if ((inner = per_axis_inner(cx, x, sc, axis, "x_scale")) < 0)
        return -1;

    xv = x->data;
    sv = sc->data;
    zv = zp ? zp->data : NULL;
    y = arena_alloc(cx->a, (size_t)numel * sizeof *y);
    for (i = 0; i < numel; i++) {
        int64_t ch = sc->shape.rank == 1 ? (i / inner) % n_ch : 0;
        y[i] = (float)((int64_t)xv[i] - (zv ? zv[ch] : 0)) * sv[ch];
    }
    /* Every scale of 8-bit weights is a candidate grid, whatever the zero point: the int8
     * quantiser keeps a row on it only when the row's values are exactly q * scale with q in
     * -128..127. 16- and 32-bit ones are finer than any lstmc stores but fp32: floats, no hint. */
    (void)qtype(x->qsrc, &bits);
    if (x->qsrc && bits == 8) {
        for (i = 0; i < n_ch; i++)
            ir_qscale_add(cx->g, sv[i]);
        if (cx->g->weights_hint < LSTMC_RT_WFMT_INT8)
            cx->g->weights_hint = LSTMC_RT_WFMT_INT8;
    }

    t = onnx_tensor_ref(cx, out);
    if (t->producer || t->data || t->is_input) {
        onnx_err(cx, "output '%s' is also %s", out,
                 t->producer   ? "produced by another node"
                 : t->is_input ? "a graph input"
                               : "an initializer or Constant");
        return -1;
    }
    t->dtype = IR_DT_F32;
    t->shape = x->shape;
    t->data = y;
    return 0;
}

/* --- projections and element-wise ops --------------------------------------------- */

int
onnx_import_gemm(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    onnx_arity ar = onnx_arity_of(IR_OP_GEMM);
    ir_node *n;
    float alpha, beta;
    if (cx->opset < 11)
        ar.min_in = 3; /* C is optional from opset 11 */
    n = onnx_node_new(cx, np, IR_OP_GEMM, ar);
    if (!n)
        return -1;
    if (onnx_attr_float(cx, np, "alpha", 1.0f, &alpha) < 0 ||
        onnx_attr_float(cx, np, "beta", 1.0f, &beta) < 0)
        return -1;
    ir_attr_set_float(cx->g, n, "alpha", alpha);
    ir_attr_set_float(cx->g, n, "beta", beta);
    if (onnx_attr_flag(cx, np, n, "transA", 0) < 0 || onnx_attr_flag(cx, np, n, "transB", 0) < 0)
        return -1;
    return 0;
}

int
onnx_import_matmul(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    return onnx_node_new(cx, np, IR_OP_MATMUL, onnx_arity_of(IR_OP_MATMUL)) ? 0 : -1;
}

int
onnx_import_binary(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n;
    int64_t bc;
    if (cx->opset < 7) {
        /* Opsets 1-6 broadcast only with broadcast=1, and then from `axis` if given. */
        if (onnx_attr_find(np, "axis")) {
            onnx_err(cx,
                     "legacy broadcasting with attribute 'axis' (opset %d) is not "
                     "supported",
                     cx->opset);
            return -1;
        }
        if (onnx_attr_int(cx, np, "broadcast", 0, &bc) < 0)
            return -1;
    }
    n = onnx_node_new(cx, np, op_of(np), onnx_arity_of(op_of(np)));
    return n ? 0 : -1;
}

int
onnx_import_unary(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    return onnx_node_new(cx, np, op_of(np), onnx_arity_of(op_of(np))) ? 0 : -1;
}

int
onnx_import_softmax(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, op_of(np), onnx_arity_of(op_of(np)));
    int legacy = cx->opset < 13;
    if (!n)
        return -1;
    if (onnx_attr_copy_int(cx, np, n, "axis", legacy ? 1 : -1) < 0)
        return -1;
    ir_attr_set_int(cx->g, n, "legacy", legacy);
    return 0;
}

int
onnx_import_argmax(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, op_of(np), onnx_arity_of(op_of(np))); /* or ArgMin */
    if (!n)
        return -1;
    if (onnx_attr_copy_int(cx, np, n, "axis", 0) < 0 ||
        onnx_attr_flag(cx, np, n, "keepdims", 1) < 0 ||
        onnx_attr_flag(cx, np, n, "select_last_index", 0) < 0)
        return -1;
    return 0;
}

int
onnx_import_cast(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_CAST, onnx_arity_of(IR_OP_CAST));
    int64_t to;
    int r;
    if (!n)
        return -1;
    if (cx->opset < 6) {
        /* Cast-1 names the type as a string ("FLOAT"). */
        const char *s;
        size_t k;
        r = onnx_attr_string(cx, np, "to", NULL, &s);
        if (r < 0)
            return -1;
        to = -1;
        for (k = 0; r == 1 && k < 24; k++)
            if (strcmp(onnx_dtype_name((int32_t)k), s) == 0)
                to = (int64_t)k;
        if (r == 0)
            to = -2;
    } else {
        r = onnx_attr_int(cx, np, "to", -2, &to);
        if (r < 0)
            return -1;
    }
    if (to == -2) {
        onnx_err(cx, "attribute 'to' is required");
        return -1;
    }
    if (to < 0 || to > INT32_MAX || onnx_dtype((int32_t)to) == IR_DT_UNDEF) {
        onnx_err(cx, "attribute 'to' is %s; supported: FLOAT, INT64, INT32, BOOL",
                 to >= 0 && to <= INT32_MAX ? onnx_dtype_name((int32_t)to) : "not a type");
        return -1;
    }
    ir_attr_set_int(cx->g, n, "to", onnx_dtype((int32_t)to));
    return 0;
}

/* --- shape plumbing --------------------------------------------------------------- */

int
onnx_import_gather(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_GATHER, onnx_arity_of(IR_OP_GATHER));
    if (!n)
        return -1;
    return onnx_attr_copy_int(cx, np, n, "axis", 0);
}

int
onnx_import_transpose(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_TRANSPOSE, onnx_arity_of(IR_OP_TRANSPOSE));
    const int64_t *perm;
    int r, k;
    if (!n)
        return -1;
    r = onnx_attr_ints(cx, np, "perm", &perm, &k);
    if (r < 0)
        return -1;
    if (r == 1) {
        ir_attr_set_ints(cx->g, n, "perm", perm, k);
    } else if (n->inputs[0]->shape.rank >= 0) {
        int64_t rev[IR_MAX_RANK];
        int rank = n->inputs[0]->shape.rank;
        for (k = 0; k < rank; k++)
            rev[k] = rank - 1 - k;
        ir_attr_set_ints(cx->g, n, "perm", rev, rank);
    }
    return 0;
}

/* Squeeze and Unsqueeze: axes is an attribute before opset 13, input 1 from 13. */
int
onnx_import_squeeze(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_op op = op_of(np);
    int is_unsqueeze = op == IR_OP_UNSQUEEZE;
    const int64_t *axes;
    int n_axes, r;
    ir_node *n;

    if (cx->opset >= 13) {
        return onnx_node_new(cx, np, op, onnx_arity_of(op)) ? 0 : -1;
    } else {
        onnx_arity ar = {1, 1, 1, 1}; /* data only: axes is an attribute */
        r = onnx_attr_ints(cx, np, "axes", &axes, &n_axes);
        if (r < 0)
            return -1;
        if (r == 0 && is_unsqueeze) {
            onnx_err(cx, "attribute 'axes' is required");
            return -1;
        }
        ar.max_out = 1;
        n = onnx_node_new(cx, np, op, ar);
        if (!n)
            return -1;
        /* widen to the opset-13 form: data, axes */
        {
            ir_tensor **in = arena_calloc(cx->a, 2, sizeof *in);
            in[0] = n->inputs[0];
            in[1] = r == 1 ? onnx_const_i64(cx, "axes", axes, n_axes) : NULL;
            n->inputs = in;
            n->n_inputs = 2;
        }
        return 0;
    }
}

int
onnx_import_slice(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    static const char *const names[] = {"starts", "ends", "axes"};
    const int64_t *v[3];
    int cnt[3], r[3], k;
    ir_tensor **in;
    ir_node *n;

    if (cx->opset >= 10)
        return onnx_node_new(cx, np, IR_OP_SLICE, onnx_arity_of(IR_OP_SLICE)) ? 0 : -1;
    for (k = 0; k < 3; k++) {
        r[k] = onnx_attr_ints(cx, np, names[k], &v[k], &cnt[k]);
        if (r[k] < 0)
            return -1;
        if (r[k] == 0 && k < 2) {
            onnx_err(cx, "attribute '%s' is required", names[k]);
            return -1;
        }
    }
    {
        onnx_arity ar = {1, 1, 1, 1}; /* data only: starts, ends, axes are attributes */
        n = onnx_node_new(cx, np, IR_OP_SLICE, ar);
    }
    if (!n)
        return -1;
    in = arena_calloc(cx->a, 5, sizeof *in);
    in[0] = n->inputs[0];
    for (k = 0; k < 3; k++)
        in[k + 1] = r[k] == 1 ? onnx_const_i64(cx, names[k], v[k], cnt[k]) : NULL;
    n->inputs = in;
    n->n_inputs = 5;
    return 0;
}

int
onnx_import_shape(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_SHAPE, onnx_arity_of(IR_OP_SHAPE));
    int64_t end;
    int r;
    if (!n)
        return -1;
    if (onnx_attr_copy_int(cx, np, n, "start", 0) < 0)
        return -1;
    r = onnx_attr_int(cx, np, "end", 0, &end);
    if (r < 0)
        return -1;
    if (r == 1)
        ir_attr_set_int(cx->g, n, "end", end);
    return 0;
}

int
onnx_import_concat(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_CONCAT, onnx_arity_of(IR_OP_CONCAT));
    int64_t axis;
    int r, k;
    if (!n)
        return -1;
    for (k = 0; k < n->n_inputs; k++) {
        if (!n->inputs[k]) {
            onnx_err(cx, "input %d is empty; Concat's inputs are all required", k);
            return -1;
        }
    }
    r = onnx_attr_int(cx, np, "axis", 1, &axis); /* Concat-1 defaulted to 1 */
    if (r < 0)
        return -1;
    if (r == 0 && cx->opset >= 4) {
        onnx_err(cx, "attribute 'axis' is required");
        return -1;
    }
    ir_attr_set_int(cx->g, n, "axis", axis);
    return 0;
}

int
onnx_import_reshape(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n;
    if (cx->opset >= 5) {
        n = onnx_node_new(cx, np, IR_OP_RESHAPE, onnx_arity_of(IR_OP_RESHAPE));
        if (!n)
            return -1;
    } else {
        onnx_arity ar = {1, 1, 1, 1}; /* data only: shape is an attribute */
        const int64_t *shape;
        int k, r = onnx_attr_ints(cx, np, "shape", &shape, &k);
        ir_tensor **in;
        if (r < 0)
            return -1;
        if (r == 0) {
            onnx_err(cx, "attribute 'shape' is required");
            return -1;
        }
        n = onnx_node_new(cx, np, IR_OP_RESHAPE, ar);
        if (!n)
            return -1;
        in = arena_calloc(cx->a, 2, sizeof *in);
        in[0] = n->inputs[0];
        in[1] = onnx_const_i64(cx, "shape", shape, k);
        n->inputs = in;
        n->n_inputs = 2;
    }
    return onnx_attr_flag(cx, np, n, "allowzero", 0);
}

int
onnx_import_flatten(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n = onnx_node_new(cx, np, IR_OP_FLATTEN, onnx_arity_of(IR_OP_FLATTEN));
    if (!n)
        return -1;
    return onnx_attr_copy_int(cx, np, n, "axis", 1);
}

int
onnx_import_expand(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    return onnx_node_new(cx, np, IR_OP_EXPAND, onnx_arity_of(IR_OP_EXPAND)) ? 0 : -1;
}

int
onnx_import_constant_of_shape(onnx_ctx *cx, const Onnx__NodeProto *np)
{
    ir_node *n =
        onnx_node_new(cx, np, IR_OP_CONSTANT_OF_SHAPE, onnx_arity_of(IR_OP_CONSTANT_OF_SHAPE));
    const Onnx__TensorProto *tp;
    ir_tensor *v;
    ir_attr *at;
    int r;
    if (!n)
        return -1;
    r = onnx_attr_tensor(cx, np, "value", &tp);
    if (r < 0)
        return -1;
    if (r == 1) {
        v = onnx_tensor_read(cx, tp, "value", 0);
        if (!v)
            return -1;
        if (ir_shape_numel(&v->shape) != 1) {
            onnx_err(cx, "attribute 'value' must hold exactly one element");
            return -1;
        }
    } else {
        v = arena_alloc(cx->a, sizeof *v);
        v->id = -1;
        v->name = "value";
        v->dtype = IR_DT_F32;
        v->shape.rank = 1;
        v->shape.d[0] = 1;
        v->data = arena_alloc(cx->a, 4); /* zeroed: 0.0f */
    }
    at = ir_attr_add(cx->g, n, "value", IR_ATTR_TENSOR);
    at->t = v;
    return 0;
}
