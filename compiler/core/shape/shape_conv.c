/*
 * shape_conv.c — dtype and shape rules of the convolution front ends (issue 20): Conv,
 * ConvTranspose, MaxPool, AveragePool, the global pools and BatchNormalization, and the one
 * place that turns their ONNX attributes into window geometry (shape_conv_geom_of), which the
 * lowering (compiler/kprog/lower.c) reads too, so the shapes inferred and the kernels run
 * cannot disagree.
 *
 * Output sizes, per spatial axis, with ek = (k - 1) * dilation + 1 (the ONNX operators):
 *   Conv, pools, auto_pad NOTSET   out = floor((in + pad_b + pad_e - ek) / s) + 1
 *                                  (pools with ceil_mode: ceil, and a last window that would
 *                                  start in the end padding is dropped, as ONNX Runtime and
 *                                  PyTorch do)
 *   VALID                          pads 0, the same formula
 *   SAME_UPPER / SAME_LOWER        out = ceil(in / s); the total padding
 *                                  max(0, (out - 1) * s + ek - in) split in two, the odd one
 *                                  at the end (UPPER) or the beginning (LOWER)
 *   ConvTranspose                  out = s * (in - 1) + output_padding + ek - pad_b - pad_e;
 *                                  with output_shape (or SAME_*: out = in * s) the total
 *                                  padding s * (in - 1) + output_padding + ek - out is split,
 *                                  the odd one at the end for SAME_UPPER, else the beginning
 */
#include "diag.h"
#include "ir.h"
#include "shape_impl.h"

#include <string.h>

/* An INTS attribute of n with exactly `want` entries (or absent: 0 returned). */
static int
ints_attr(const ir_node *n, const char *name, int want, int64_t *v, diag *d)
{
    const ir_attr *a = ir_attr_get(n, name);
    int i;
    if (!a)
        return 0;
    if (a->kind != IR_ATTR_INTS || a->n != want) {
        diag_node(d, n, "attribute '%s' has %d values; the input has %d spatial axes%s", name,
                  a->kind == IR_ATTR_INTS ? a->n : 1, want / (strcmp(name, "pads") ? 1 : 2),
                  strcmp(name, "pads") ? "" : " (pads holds begin values, then end values)");
        return -1;
    }
    for (i = 0; i < want; i++)
        v[i] = a->ints[i];
    return 1;
}

static int64_t
ceil_div(int64_t a, int64_t b)
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

static int64_t
floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int
shape_conv_geom_of(const ir_node *n, shape_conv_geom *cg, diag *d)
{
    const ir_tensor *X = ir_in(n, 0), *W = ir_in(n, 1);
    const char *ap = ir_attr_string(n, "auto_pad", "NOTSET");
    int conv = n->op == IR_OP_CONV, convt = n->op == IR_OP_CONV_TRANSPOSE;
    int global = n->op == IR_OP_GLOBAL_AVERAGE_POOL || n->op == IR_OP_GLOBAL_MAX_POOL;
    int ceil_mode = (int)ir_attr_int(n, "ceil_mode", 0);
    int same_upper = strcmp(ap, "SAME_UPPER") == 0, same_lower = strcmp(ap, "SAME_LOWER") == 0;
    int valid = strcmp(ap, "VALID") == 0;
    int64_t pads[4] = {0, 0, 0, 0}, ks[2], opad[2] = {0, 0}, oshape[2];
    int i, ns, has_k, has_os = 0;

    memset(cg, 0, sizeof *cg);
    if (X->shape.rank != 3 && X->shape.rank != 4) {
        if (X->shape.rank == 5)
            diag_node(d, n,
                      "input 'X' has shape %s: 3-D %s (input rank 5) is not supported; "
                      "lstmc takes 1-D (rank 3) and 2-D (rank 4) ones",
                      shape_str(&X->shape), conv || convt ? "convolution" : "pooling");
        else
            diag_node(d, n,
                      "input 'X' has shape %s; expected [N, C, L] (1-D) or [N, C, H, W] "
                      "(2-D)",
                      shape_str(&X->shape));
        return -1;
    }
    if (X->shape.d[1] < 1) {
        diag_node(d, n, "input 'X' has shape %s: no channels", shape_str(&X->shape));
        return -1;
    }
    ns = cg->nsp = X->shape.rank - 2;
    cg->n = X->shape.d[0];
    cg->c_in = X->shape.d[1];
    cg->c_out = cg->c_in;
    cg->group = 1;
    for (i = 0; i < 2; i++) {
        cg->in[i] = cg->out[i] = cg->k[i] = cg->stride[i] = cg->dil[i] = 1;
        ks[i] = 1;
    }
    for (i = 0; i < ns; i++)
        cg->in[i] = X->shape.d[2 + i];
    if (global) {
        for (i = 0; i < ns; i++) {
            cg->k[i] = cg->in[i];
            cg->out[i] = 1;
        }
        return 0;
    }
    if (!same_upper && !same_lower && !valid && strcmp(ap, "NOTSET") != 0) {
        diag_node(d, n,
                  "attribute 'auto_pad' is \"%s\"; expected NOTSET, SAME_UPPER, "
                  "SAME_LOWER or VALID",
                  ap);
        return -1;
    }
    if ((has_k = ints_attr(n, "kernel_shape", ns, ks, d)) < 0 ||
        ints_attr(n, "strides", ns, cg->stride, d) < 0 ||
        ints_attr(n, "dilations", ns, cg->dil, d) < 0 || ints_attr(n, "pads", 2 * ns, pads, d) < 0)
        return -1;
    if (convt && (ints_attr(n, "output_padding", ns, opad, d) < 0 ||
                  (has_os = ints_attr(n, "output_shape", ns, oshape, d)) < 0))
        return -1;
    if (conv || convt) {
        int64_t grp = ir_attr_int(n, "group", 1);
        if (W->shape.rank != X->shape.rank) {
            diag_node(d, n, "input 'W' has shape %s; X %s needs rank %d", shape_str(&W->shape),
                      shape_str(&X->shape), X->shape.rank);
            return -1;
        }
        if (grp < 1 || cg->c_in % grp) {
            diag_node(d, n, "attribute 'group' is %lld; it must divide the %lld input channels",
                      (long long)grp, (long long)cg->c_in);
            return -1;
        }
        cg->group = grp;
        if (conv) {
            cg->c_out = W->shape.d[0];
            if (W->shape.d[1] * grp != cg->c_in || cg->c_out < 1 || cg->c_out % grp) {
                diag_node(d, n,
                          "input 'W' has shape %s; with group %lld and %lld input channels "
                          "it needs [M, %lld, ...] with M a multiple of %lld",
                          shape_str(&W->shape), (long long)grp, (long long)cg->c_in,
                          (long long)(cg->c_in / grp), (long long)grp);
                return -1;
            }
        } else {
            if (W->shape.d[0] != cg->c_in) {
                diag_node(d, n,
                          "input 'W' has shape %s; ConvTranspose needs [C, M/group, ...] "
                          "with C = %lld input channels",
                          shape_str(&W->shape), (long long)cg->c_in);
                return -1;
            }
            cg->c_out = W->shape.d[1] * grp;
            if (cg->c_out < 1) {
                diag_node(d, n, "input 'W' has shape %s: no output channels", shape_str(&W->shape));
                return -1;
            }
        }
        for (i = 0; i < ns; i++) {
            if (has_k && ks[i] != W->shape.d[2 + i]) {
                diag_node(d, n,
                          "attribute 'kernel_shape' is %s; input 'W' %s has kernel %lld "
                          "on spatial axis %d",
                          shape_ints_str(ks, ns), shape_str(&W->shape),
                          (long long)W->shape.d[2 + i], i);
                return -1;
            }
            cg->k[i] = W->shape.d[2 + i];
        }
    } else {
        if (!has_k) {
            diag_node(d, n, "attribute 'kernel_shape' is required");
            return -1;
        }
        for (i = 0; i < ns; i++)
            cg->k[i] = ks[i];
    }
    for (i = 0; i < ns; i++) {
        int64_t ek, in = cg->in[i], s = cg->stride[i], tot;
        if (cg->k[i] < 1 || s < 1 || cg->dil[i] < 1 || cg->k[i] > IR_MAX_ELEMS ||
            s > IR_MAX_ELEMS || cg->dil[i] > IR_MAX_ELEMS) {
            diag_node(d, n,
                      "spatial axis %d has kernel %lld, stride %lld, dilation %lld; each "
                      "must be at least 1",
                      i, (long long)cg->k[i], (long long)s, (long long)cg->dil[i]);
            return -1;
        }
        if (pads[i] < 0 || pads[ns + i] < 0 || pads[i] > IR_MAX_ELEMS ||
            pads[ns + i] > IR_MAX_ELEMS) {
            diag_node(d, n, "attribute 'pads' is %s; pads must be >= 0",
                      shape_ints_str(pads, 2 * ns));
            return -1;
        }
        if (opad[i] < 0 || opad[i] >= (s > cg->dil[i] ? s : cg->dil[i])) {
            diag_node(d, n,
                      "attribute 'output_padding' is %s; each value must be >= 0 and less "
                      "than the stride or the dilation",
                      shape_ints_str(opad, ns));
            return -1;
        }
        ek = (cg->k[i] - 1) * cg->dil[i] + 1;
        if (ek > IR_MAX_ELEMS) { /* bounded, so the sizes below cannot overflow */
            diag_node(d, n,
                      "spatial axis %d: the window (kernel %lld, dilation %lld) spans %lld "
                      "elements, more than %lld",
                      i, (long long)cg->k[i], (long long)cg->dil[i], (long long)ek,
                      (long long)IR_MAX_ELEMS);
            return -1;
        }
        if (convt) {
            if (has_os || same_upper || same_lower) {
                int64_t out = has_os ? oshape[i] : in * s;
                tot = s * (in - 1) + opad[i] + ek - out;
                if (same_upper) {
                    cg->pad_b[i] = tot / 2;
                } else {
                    cg->pad_b[i] = tot - tot / 2;
                }
                cg->pad_e[i] = tot - cg->pad_b[i];
                cg->out[i] = out;
            } else {
                if (!valid) {
                    cg->pad_b[i] = pads[i];
                    cg->pad_e[i] = pads[ns + i];
                }
                cg->out[i] = s * (in - 1) + opad[i] + ek - cg->pad_b[i] - cg->pad_e[i];
            }
            if (cg->pad_b[i] < 0) {
                diag_node(d, n,
                          "output_shape %s needs negative padding at the beginning of "
                          "spatial axis %d; it is not supported",
                          shape_ints_str(oshape, ns), i);
                return -1;
            }
        } else if (same_upper || same_lower) {
            cg->out[i] = ceil_div(in, s);
            tot = (cg->out[i] - 1) * s + ek - in;
            if (tot < 0)
                tot = 0;
            cg->pad_b[i] = same_upper ? tot / 2 : tot - tot / 2;
            cg->pad_e[i] = tot - cg->pad_b[i];
        } else {
            int64_t span;
            if (!valid) {
                cg->pad_b[i] = pads[i];
                cg->pad_e[i] = pads[ns + i];
            }
            span = in + cg->pad_b[i] + cg->pad_e[i] - ek;
            if (span < 0) {
                diag_node(d, n,
                          "spatial axis %d has %lld elements with padding %lld + %lld; "
                          "the window (kernel %lld, dilation %lld) spans %lld",
                          i, (long long)in, (long long)cg->pad_b[i], (long long)cg->pad_e[i],
                          (long long)cg->k[i], (long long)cg->dil[i], (long long)ek);
                return -1;
            }
            cg->out[i] = (ceil_mode ? ceil_div(span, s) : floor_div(span, s)) + 1;
            if (ceil_mode && (cg->out[i] - 1) * s >= in + cg->pad_b[i])
                cg->out[i]--;
        }
        if (cg->out[i] < 0 || cg->out[i] > IR_MAX_ELEMS) {
            diag_node(d, n, "spatial axis %d would have %lld outputs", i, (long long)cg->out[i]);
            return -1;
        }
    }
    return 0;
}

/* Conv, ConvTranspose, MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool */
int
shape_infer_conv(ir_graph *g, ir_node *n, diag *d)
{
    shape_conv_geom cg;
    ir_shape s;
    int i;
    (void)g;
    if (shape_need_dtype(n, 0, M_F32, "f32", d) < 0 ||
        shape_need_dtype(n, 1, M_F32, "f32", d) < 0 || shape_need_dtype(n, 2, M_F32, "f32", d) < 0)
        return -1;
    if ((n->op == IR_OP_CONV || n->op == IR_OP_CONV_TRANSPOSE) && !ir_in(n, 1)) {
        diag_node(d, n, "input 'W' is missing");
        return -1;
    }
    if (shape_conv_geom_of(n, &cg, d) < 0)
        return -1;
    if (ir_in(n, 2) && (ir_in(n, 2)->shape.rank != 1 || ir_in(n, 2)->shape.d[0] != cg.c_out)) {
        diag_node(d, n, "input 'B' has shape %s; expected [%lld], one bias per output channel",
                  shape_str(&ir_in(n, 2)->shape), (long long)cg.c_out);
        return -1;
    }
    s = shape_make(2 + cg.nsp);
    s.d[0] = cg.n;
    s.d[1] = cg.c_out;
    for (i = 0; i < cg.nsp; i++)
        s.d[2 + i] = cg.out[i];
    return shape_set_out(n, 0, IR_DT_F32, &s, d);
}

int
shape_infer_batch_norm(ir_graph *g, ir_node *n, diag *d)
{
    const ir_tensor *X = ir_in(n, 0);
    int i;
    (void)g;
    if (shape_need_dtype(n, 0, M_F32, "f32", d) < 0)
        return -1;
    if (X->shape.rank < 2) {
        diag_node(d, n, "input 'X' has shape %s; BatchNormalization needs [N, C, ...]",
                  shape_str(&X->shape));
        return -1;
    }
    for (i = 1; i < 5; i++) {
        const ir_tensor *t = ir_in(n, i);
        if (!t) {
            diag_node(d, n, "input '%s' is missing", shape_iname(n, i));
            return -1;
        }
        if (shape_need_dtype(n, i, M_F32, "f32", d) < 0)
            return -1;
        if (t->shape.rank != 1 || t->shape.d[0] != X->shape.d[1]) {
            diag_node(d, n, "input '%s' has shape %s; expected [%lld], one value per channel",
                      shape_iname(n, i), shape_str(&t->shape), (long long)X->shape.d[1]);
            return -1;
        }
    }
    return shape_set_out(n, 0, IR_DT_F32, &X->shape, d);
}
