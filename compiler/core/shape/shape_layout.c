/*
 * shape_layout.c — dtype and shape rules of the shape plumbing: Gather, Transpose, Squeeze,
 * Unsqueeze, Slice, Shape, Concat, Reshape, Flatten, Expand, ConstantOfShape. Small integer
 * results are computed here (Shape -> Gather -> Concat -> Reshape chains give Reshape a
 * constant shape).
 */
#include "diag.h"
#include "ir.h"
#include "shape_impl.h"

/* --- shape plumbing ----------------------------------------------------------------- */

int
shape_infer_gather(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *ix = ir_in(n, 1), *o;
    int r = x->shape.rank, q = ix->shape.rank, axis, i;
    int64_t dim, k, cnt;
    ir_shape s;
    if (shape_need_dtype(n, 1, M_INT, "i64 or i32", d) < 0)
        return -1;
    if (r < 1) {
        diag_node(d, n, "input 'data' is a scalar; Gather needs rank >= 1");
        return -1;
    }
    if (shape_norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", 0), r, 0, &axis, d) < 0)
        return -1;
    if (r - 1 + q > IR_MAX_RANK) {
        diag_node(d, n, "output would have rank %d; at most %d is supported", r - 1 + q,
                  IR_MAX_RANK);
        return -1;
    }
    dim = x->shape.d[axis];
    if (ix->data) {
        cnt = shape_numel(&ix->shape);
        for (k = 0; k < cnt; k++) {
            int64_t v = shape_elem_i64(ix, k);
            if (v < -dim || v >= dim) {
                diag_node(d, n, "index %lld is out of range for axis %d of size %lld", (long long)v,
                          axis, (long long)dim);
                return -1;
            }
        }
    }
    s = shape_make(0);
    for (i = 0; i < axis; i++)
        s.d[s.rank++] = x->shape.d[i];
    for (i = 0; i < q; i++)
        s.d[s.rank++] = ix->shape.d[i];
    for (i = axis + 1; i < r; i++)
        s.d[s.rank++] = x->shape.d[i];
    if (shape_set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o && shape_foldable(n, 0)) {
        int64_t outer = 1, inner = 1, nidx = shape_numel(&ix->shape), a, j, c;
        for (i = 0; i < axis; i++)
            outer *= x->shape.d[i];
        for (i = axis + 1; i < r; i++)
            inner *= x->shape.d[i];
        shape_out_data(g, o);
        k = 0;
        for (a = 0; a < outer; a++)
            for (j = 0; j < nidx; j++) {
                int64_t v = shape_elem_i64(ix, j);
                if (v < 0)
                    v += dim;
                for (c = 0; c < inner; c++)
                    shape_put_i64(o, k++, shape_elem_i64(x, (a * dim + v) * inner + c));
            }
    }
    return 0;
}

int
shape_infer_transpose(ir_graph *g, ir_node *n, diag *d)
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
                  shape_str(&x->shape), r);
        return -1;
    }
    s = shape_make(r);
    for (i = 0; i < r; i++) {
        int64_t p = pa->ints[i];
        if (p < 0 || p >= r || seen[p]) {
            diag_node(d, n, "attribute 'perm' is %s; expected a permutation of 0..%d",
                      shape_ints_str(pa->ints, pa->n), r - 1);
            return -1;
        }
        seen[p] = 1;
        s.d[i] = x->shape.d[p];
    }
    return shape_set_out(n, 0, x->dtype, &s, d);
}

/* Axes from input 1 normalised into [0, r); duplicates reported. */
static int
read_axes(ir_node *n, int r, int *axes, diag *d)
{
    int64_t v[IR_MAX_RANK];
    int cnt = shape_const_ints(n, 1, v, IR_MAX_RANK, d), i, j;
    if (cnt < 0)
        return -1;
    for (i = 0; i < cnt; i++) {
        if (shape_norm_axis(n, "an entry of input 'axes'", v[i], r, 0, &axes[i], d) < 0)
            return -1;
        for (j = 0; j < i; j++) {
            if (axes[j] == axes[i]) {
                diag_node(d, n, "input 'axes' %s names axis %d twice", shape_ints_str(v, cnt),
                          axes[i]);
                return -1;
            }
        }
    }
    return cnt;
}

int
shape_infer_squeeze(ir_graph *g, ir_node *n, diag *d)
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
                          axes[i], shape_str(&x->shape));
                return -1;
            }
            drop[axes[i]] = 1;
        }
    } else {
        for (i = 0; i < r; i++)
            drop[i] = x->shape.d[i] == 1;
    }
    s = shape_make(0);
    for (i = 0; i < r; i++)
        if (!drop[i])
            s.d[s.rank++] = x->shape.d[i];
    if (shape_set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    shape_fold_copy(g, n);
    return 0;
}

int
shape_infer_unsqueeze(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int64_t v[IR_MAX_RANK + 1];
    int r = x->shape.rank, cnt, out_r, i, j, k, add[IR_MAX_RANK] = {0};
    ir_shape s;
    if (!ir_in(n, 1)) {
        diag_node(d, n, "input 'axes' is required");
        return -1;
    }
    cnt = shape_const_ints(n, 1, v, IR_MAX_RANK + 1, d);
    if (cnt < 0)
        return -1;
    out_r = r + cnt;
    if (out_r > IR_MAX_RANK) {
        diag_node(d, n, "output would have rank %d; at most %d is supported", out_r, IR_MAX_RANK);
        return -1;
    }
    for (i = 0; i < cnt; i++) {
        int a;
        if (shape_norm_axis(n, "an entry of input 'axes'", v[i], out_r, 0, &a, d) < 0)
            return -1;
        if (add[a]) {
            diag_node(d, n, "input 'axes' %s names axis %d twice", shape_ints_str(v, cnt), a);
            return -1;
        }
        add[a] = 1;
    }
    s = shape_make(out_r);
    for (i = 0, j = 0; i < out_r; i++)
        s.d[i] = add[i] ? 1 : x->shape.d[j++];
    (void)k;
    if (shape_set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    shape_fold_copy(g, n);
    return 0;
}

int
shape_infer_slice(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *o;
    int r = x->shape.rank, ns, ne, na, nt, i, j, seen[IR_MAX_RANK] = {0};
    int64_t st[IR_MAX_RANK], en[IR_MAX_RANK], ax[IR_MAX_RANK], sp[IR_MAX_RANK];
    int64_t start[IR_MAX_RANK], step[IR_MAX_RANK];
    ir_shape s = x->shape;

    if (shape_need_consts(n, 1, d) < 0) /* every non-constant one named, not the first */
        return -1;
    if ((ns = shape_const_ints(n, 1, st, IR_MAX_RANK, d)) < 0 ||
        (ne = shape_const_ints(n, 2, en, IR_MAX_RANK, d)) < 0)
        return -1;
    na = ns;
    for (i = 0; i < ns; i++)
        ax[i] = i;
    if (ir_in(n, 3) && (na = shape_const_ints(n, 3, ax, IR_MAX_RANK, d)) < 0)
        return -1;
    nt = ns;
    for (i = 0; i < ns; i++)
        sp[i] = 1;
    if (ir_in(n, 4) && (nt = shape_const_ints(n, 4, sp, IR_MAX_RANK, d)) < 0)
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
        if (shape_norm_axis(n, "an entry of input 'axes'", ax[i], r, 0, &a, d) < 0)
            return -1;
        if (seen[a]) {
            diag_node(d, n, "input 'axes' %s names axis %d twice", shape_ints_str(ax, na), a);
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
    if (shape_set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o && shape_foldable(n, 0)) {
        int64_t k, cnt = shape_numel(&s);
        shape_out_data(g, o);
        for (k = 0; k < cnt; k++) {
            int64_t rem = k, src = 0, stride = 1;
            for (j = r - 1; j >= 0; j--) {
                int64_t c = rem % s.d[j];
                rem /= s.d[j];
                src += (start[j] + c * step[j]) * stride;
                stride *= x->shape.d[j];
            }
            shape_put_i64(o, k, shape_elem_i64(x, src));
        }
    }
    return 0;
}

int
shape_infer_shape(ir_graph *g, ir_node *n, diag *d)
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
    s = shape_make(1);
    s.d[0] = e > b ? e - b : 0;
    if (shape_set_out(n, 0, IR_DT_I64, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o) {
        int64_t *v = shape_out_data(g, o);
        for (k = 0; k < s.d[0]; k++)
            v[k] = x->shape.d[b + k];
    }
    return 0;
}

/* Size: numel of the input, a rank-0 int64 constant (every dim is known once bound). */
int
shape_infer_size(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *o;
    ir_shape s = shape_make(0);
    int64_t numel = ir_shape_numel(&x->shape);
    if (numel < 0) {
        diag_node(d, n, "input 'data' has shape %s, whose element count is %s",
                  shape_str(&x->shape), numel == -2 ? "too large" : "not known");
        return -1;
    }
    if (shape_set_out(n, 0, IR_DT_I64, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o)
        *(int64_t *)shape_out_data(g, o) = numel;
    return 0;
}

int
shape_infer_concat(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0), *o;
    int r = x->shape.rank, axis, i, j;
    ir_shape s = x->shape;
    if (r < 1) {
        diag_node(d, n, "input 0 is a scalar; Concat needs rank >= 1");
        return -1;
    }
    if (shape_norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", 0), r, 0, &axis, d) < 0)
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
                      shape_str(&t->shape), shape_str(&x->shape), axis);
            return -1;
        }
        s.d[axis] += t->shape.d[axis]; /* each <= 2^31: no overflow over 2^31 inputs */
        if (s.d[axis] > IR_MAX_ELEMS) {
            diag_node(d, n, "output would have more than %lld elements on axis %d",
                      (long long)IR_MAX_ELEMS, axis);
            return -1;
        }
    }
    if (shape_set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    o = ir_out(n, 0);
    if (o && shape_foldable(n, 0)) {
        int64_t outer = 1, k = 0, a, c;
        for (j = 0; j < axis; j++)
            outer *= s.d[j];
        shape_out_data(g, o);
        for (a = 0; a < outer; a++)
            for (i = 0; i < n->n_inputs; i++) {
                ir_tensor *t = n->inputs[i];
                int64_t chunk = 1;
                for (j = axis; j < r; j++)
                    chunk *= t->shape.d[j];
                for (c = 0; c < chunk; c++)
                    shape_put_i64(o, k++, shape_elem_i64(t, a * chunk + c));
            }
    }
    return 0;
}

int
shape_infer_reshape(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int64_t v[IR_MAX_RANK], known = 1, in_n = shape_numel(&x->shape);
    int allowzero = ir_attr_int(n, "allowzero", 0) != 0, cnt, i, infer = -1, has_zero = 0;
    ir_shape s;
    if ((cnt = shape_const_ints(n, 1, v, IR_MAX_RANK, d)) < 0)
        return -1;
    s = shape_make(cnt);
    for (i = 0; i < cnt; i++) {
        if (v[i] == -1) {
            if (infer >= 0) {
                diag_node(d, n, "input 'shape' %s has more than one -1", shape_ints_str(v, cnt));
                return -1;
            }
            infer = i;
            continue;
        }
        if (v[i] < -1) {
            diag_node(d, n, "input 'shape' %s has a negative dim", shape_ints_str(v, cnt));
            return -1;
        }
        if (v[i] == 0 && !allowzero) {
            if (i >= x->shape.rank) {
                diag_node(d, n,
                          "input 'shape' %s copies dim %d (0) but input 'data' %s has "
                          "rank %d",
                          shape_ints_str(v, cnt), i, shape_str(&x->shape), x->shape.rank);
                return -1;
            }
            s.d[i] = x->shape.d[i];
        } else {
            if (v[i] == 0)
                has_zero = 1;
            if (v[i] > IR_MAX_ELEMS) {
                diag_node(d, n, "input 'shape' %s has a dim over %lld", shape_ints_str(v, cnt),
                          (long long)IR_MAX_ELEMS);
                return -1;
            }
            s.d[i] = v[i];
        }
        if (s.d[i] != 0 && known > IR_MAX_ELEMS / s.d[i]) {
            diag_node(d, n, "input 'shape' %s has more than %lld elements", shape_ints_str(v, cnt),
                      (long long)IR_MAX_ELEMS);
            return -1;
        }
        known *= s.d[i];
    }
    if (infer >= 0) {
        if (has_zero) {
            diag_node(d, n, "input 'shape' %s has both 0 and -1 with allowzero 1",
                      shape_ints_str(v, cnt));
            return -1;
        }
        if (known == 0 || in_n % known != 0) {
            diag_node(d, n, "cannot reshape input 'data' %s (%lld elements) to %s",
                      shape_str(&x->shape), (long long)in_n, shape_ints_str(v, cnt));
            return -1;
        }
        s.d[infer] = in_n / known;
        known = in_n;
    }
    if (known != in_n) {
        diag_node(d, n, "cannot reshape input 'data' %s (%lld elements) to %s (%lld elements)",
                  shape_str(&x->shape), (long long)in_n, shape_str(&s), (long long)known);
        return -1;
    }
    if (shape_set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    shape_fold_copy(g, n);
    return 0;
}

int
shape_infer_flatten(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int axis, i;
    ir_shape s = shape_make(2);
    if (shape_norm_axis(n, "attribute 'axis'", ir_attr_int(n, "axis", 1), x->shape.rank, 1, &axis,
                        d) < 0)
        return -1;
    s.d[0] = s.d[1] = 1;
    for (i = 0; i < x->shape.rank; i++) /* product <= shape_numel(x) <= IR_MAX_ELEMS */
        s.d[i < axis ? 0 : 1] *= x->shape.d[i];
    if (shape_set_out(n, 0, x->dtype, &s, d) < 0)
        return -1;
    shape_fold_copy(g, n);
    return 0;
}

int
shape_infer_expand(ir_graph *g, ir_node *n, diag *d)
{
    ir_tensor *x = ir_in(n, 0);
    int64_t v[IR_MAX_RANK];
    int cnt, i;
    ir_shape want, s;
    (void)g;
    if ((cnt = shape_const_ints(n, 1, v, IR_MAX_RANK, d)) < 0)
        return -1;
    want = shape_make(cnt);
    for (i = 0; i < cnt; i++) {
        if (v[i] < 0 || v[i] > IR_MAX_ELEMS) {
            diag_node(d, n, "input 'shape' %s has a dim out of range", shape_ints_str(v, cnt));
            return -1;
        }
        want.d[i] = v[i];
    }
    if (shape_broadcast(&x->shape, &want, &s) < 0) {
        diag_node(d, n, "input 'input' %s does not broadcast to shape %s", shape_str(&x->shape),
                  shape_ints_str(v, cnt));
        return -1;
    }
    return shape_set_out(n, 0, x->dtype, &s, d);
}

int
shape_infer_constant_of_shape(ir_graph *g, ir_node *n, diag *d)
{
    const ir_attr *va = ir_attr_get(n, "value");
    ir_dtype dt = va && va->kind == IR_ATTR_TENSOR && va->t ? va->t->dtype : IR_DT_F32;
    int64_t v[IR_MAX_RANK];
    int cnt, i;
    ir_shape s;
    (void)g;
    if ((cnt = shape_const_ints(n, 0, v, IR_MAX_RANK, d)) < 0)
        return -1;
    s = shape_make(cnt);
    for (i = 0; i < cnt; i++) {
        if (v[i] < 0 || v[i] > IR_MAX_ELEMS) {
            diag_node(d, n, "input 'input' %s has a dim out of range", shape_ints_str(v, cnt));
            return -1;
        }
        s.d[i] = v[i];
    }
    return shape_set_out(n, 0, dt, &s, d);
}
