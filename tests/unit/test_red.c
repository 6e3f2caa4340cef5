/*
 * test_red.c — issue 20's reductions, normalisation and data movement: the layernorm pass
 * (passes/layernorm.c: ir_verify, the structure, ir_eval results as before it and as ONNX
 * Runtime's) and the portable kernels of runtime/src/rt_reduce.c on hand-worked cases
 * (ONNX spec semantics: TopK ties, reflect padding, ScatterElements' index checks), and
 * the streaming rules of the new ops.
 */
#include "arena.h"
#include "diag.h"
#include "helpers.h"
#include "ir.h"
#include "ir_eval.h"
#include "ir_verify.h"
#include "lstmc_rt_kernels.h"
#include "passes.h"
#include "stream.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

/* The number of live nodes of op in g. */
static int
count_op(const ir_graph *g, ir_op op)
{
    int k = 0;
    while (helpers_find_op(g, op, k))
        k++;
    return k;
}

/* Case c: ir_eval before the layernorm pass, the pass, ir_verify, ir_eval after: equal
 * outputs (rtol 1e-5) and both as ONNX Runtime's. Returns g after the pass. */
static ir_graph *
through_pass(arena *a, const char *c, diag *d, int want_ln)
{
    const void *inputs[8] = {0};
    void *before[8] = {0}, *after[8] = {0};
    ir_graph *g = helpers_prepare_case(a, c, d, inputs);
    pass_ctx cx;
    int i;

    cr_assert_not_null(g, "%s", diag_text(d));
    cr_assert_eq(count_op(g, IR_OP_LAYER_NORM), 0);
    cr_assert_eq(ir_eval(a, g, inputs, before, d), 0, "%s", diag_text(d));
    memset(&cx, 0, sizeof cx);
    cr_assert_eq(pass_run_list(g, "layernorm", &cx, d), 0, "%s", diag_text(d));
    cr_assert_eq(ir_verify(g, d), 0, "%s", diag_text(d));
    cr_assert_eq(count_op(g, IR_OP_LAYER_NORM), want_ln);
    cr_assert_eq(ir_eval(a, g, inputs, after, d), 0, "%s", diag_text(d));
    for (i = 0; i < g->n_outputs; i++) {
        const ir_tensor *t = g->outputs[i];
        cr_assert(
            helpers_allclose(after[i], before[i], (size_t)ir_shape_numel(&t->shape), 1e-5f, 1e-6f),
            "%s: output '%s' changed", c, t->name);
    }
    cr_assert(helpers_outputs_match(a, c, g, after, "layernorm"));
    return g;
}

/* The LayerNormalization node of g writing tensor `out`. */
static const ir_node *
ln_writing(const ir_graph *g, const char *out)
{
    const ir_node *n;
    int k;
    for (k = 0; (n = helpers_find_op(g, IR_OP_LAYER_NORM, k)) != NULL; k++)
        if (strcmp(ir_out(n, 0)->name, out) == 0)
            return n;
    cr_assert_fail("no LayerNormalization writes '%s'", out);
    return NULL;
}

/* The four decomposed LayerNorms of red_layernorm_decomposed: a (gamma, beta, last axis),
 * b (beta only, axes 1 and 2, Add(eps, V)) and d (x - mean computed twice, gamma [1, 1, 4],
 * Add(beta, Y)) become LayerNormalization; c, whose centred value is a graph output, stays
 * as it is. */
Test(layernorm, decomposed_variants)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "red_layernorm_decomposed", NULL);
    ir_graph *g = through_pass(a, "red_layernorm_decomposed", d, 3);
    const ir_node *la = ln_writing(g, "a_out"), *lb = ln_writing(g, "b_out");
    const ir_node *ld = ln_writing(g, "d_out");

    cr_assert_str_eq(ir_in(la, 0)->name, "x");
    cr_assert_str_eq(ir_in(la, 1)->name, "g4");
    cr_assert_str_eq(ir_in(la, 2)->name, "b4");
    cr_assert_eq(ir_attr_int(la, "axis", -7), 2);
    cr_assert_float_eq(ir_attr_float(la, "epsilon", 0), 1e-5f, 1e-12);
    cr_assert_eq(ir_attr_int(lb, "axis", -7), 1);
    cr_assert_float_eq(*(const float *)ir_in(lb, 1)->data, 1.0f, 0, "no gamma: a scale of 1");
    cr_assert_str_eq(ir_in(lb, 2)->name, "b34");
    cr_assert_str_eq(ir_in(ld, 1)->name, "g114");
    cr_assert_str_eq(ir_in(ld, 2)->name, "b4");
    cr_assert_eq(ir_attr_int(ld, "axis", -7), 2);
    /* c: its ReduceMean pair, Sub, Mul(D, D), Sqrt, Div and Mul(gamma) are left */
    cr_assert_eq(count_op(g, IR_OP_REDUCE_MEAN), 2);
    cr_assert_eq(count_op(g, IR_OP_SQRT), 1);
    cr_assert_eq(count_op(g, IR_OP_DIV), 1);
    arena_free(a);
}

/* A PyTorch BiLSTM + nn.LayerNorm exported at opset 14 (its Pow(D, 2) written Mul(D, D)):
 * one LayerNormalization over the last axis reading ln.weight and ln.bias. */
Test(layernorm, pytorch_export)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "pt_red_bilstm_ln_op14_mul", NULL);
    ir_graph *g = through_pass(a, "pt_red_bilstm_ln_op14_mul", d, 1);
    const ir_node *ln = helpers_find_op(g, IR_OP_LAYER_NORM, 0);

    cr_assert_str_eq(ir_in(ln, 1)->name, "ln.weight");
    cr_assert_str_eq(ir_in(ln, 2)->name, "ln.bias");
    cr_assert_eq(ir_attr_int(ln, "axis", -7), 2);
    cr_assert_eq(count_op(g, IR_OP_SQRT), 0);
    cr_assert_eq(count_op(g, IR_OP_REDUCE_MEAN), 0);
    arena_free(a);
}

/* --- kernels, hand-worked --------------------------------------------------------------- */

/* LayerNorm of [1, 2, 3, 4]: mean 2.5, var 1.25; scale 2, bias 1 (one value each). */
Test(rt_reduce, layernorm_row)
{
    const float x[4] = {1, 2, 3, 4}, g = 2.0f, b = 1.0f;
    float y[4];
    lstmc_rt_layernorm_params p = {1, 4, 0.0f, 0, 0};
    int i;
    cr_assert_eq(lstmc_rt_layernorm(&p, x, &g, &b, y), LSTMC_RT_OK);
    for (i = 0; i < 4; i++)
        cr_assert_float_eq(y[i], (x[i] - 2.5f) / sqrtf(1.25f) * 2.0f + 1.0f, 1e-6f);
    p.scale_stride = 2;
    cr_assert_eq(lstmc_rt_layernorm(&p, x, &g, &b, y), LSTMC_RT_ERR_BAD_PARAMS);
}

/* ReduceMean over axes 0 and 2 of [2, 2, 2] = 0..7: (0+1+4+5)/4, (2+3+6+7)/4; ReduceMax of
 * int64; mean of int data refused. */
Test(rt_reduce, reduce_axes)
{
    const float x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int64_t xi[6] = {3, -9, 4, 4, 0, -1};
    float y[2];
    int64_t yi[2];
    lstmc_rt_reduce_params p = {LSTMC_RT_REDUCE_MEAN, LSTMC_RT_F32, 3, {2, 2, 2}, {1, 0, 1}};
    cr_assert_eq(lstmc_rt_reduce(&p, x, y), LSTMC_RT_OK);
    cr_assert_float_eq(y[0], 2.5f, 0);
    cr_assert_float_eq(y[1], 4.5f, 0);
    p.op = LSTMC_RT_REDUCE_L2;
    cr_assert_eq(lstmc_rt_reduce(&p, x, y), LSTMC_RT_OK);
    cr_assert_float_eq(y[0], sqrtf(0 + 1 + 16 + 25), 1e-5f);
    {
        lstmc_rt_reduce_params q = {LSTMC_RT_REDUCE_MAX, LSTMC_RT_I64, 2, {2, 3}, {0, 1}};
        cr_assert_eq(lstmc_rt_reduce(&q, xi, yi), LSTMC_RT_OK);
        cr_assert_eq(yi[0], 4);
        cr_assert_eq(yi[1], 4);
        q.op = LSTMC_RT_REDUCE_MEAN;
        cr_assert_eq(lstmc_rt_reduce(&q, xi, yi), LSTMC_RT_ERR_BAD_PARAMS);
    }
}

/* issue 20, ops: the five new reductions over axis 1 of [2, 3] = {{1, -2, 3}, {0.5, 4, -1}}
 * (SumSquare 14 / 17.25, L1 6 / 5.5, Prod -6 / -2, LogSum log 2 / log 3.5, LogSumExp
 * numpy's logaddexp.reduce) and over axis 0, element-wise; LogSumExp of 1000 stays finite;
 * the empty reduction gives 0, 1, -inf. */
Test(rt_reduce, more_reductions)
{
    const float x[6] = {1.0f, -2.0f, 3.0f, 0.5f, 4.0f, -1.0f}, big[2] = {1000.0f, 1000.0f};
    const float infs[2] = {INFINITY, INFINITY};
    const int64_t xi[6] = {1, -2, 3, 5, 4, -1};
    float y[3];
    int64_t yi[2];
    lstmc_rt_reduce_params p = {LSTMC_RT_REDUCE_SUM_SQUARE, LSTMC_RT_F32, 2, {2, 3}, {0, 1}};
    cr_assert_eq(lstmc_rt_reduce(&p, x, y), LSTMC_RT_OK);
    cr_assert_float_eq(y[0], 14.0f, 0);
    cr_assert_float_eq(y[1], 17.25f, 0);
    p.op = LSTMC_RT_REDUCE_L1;
    cr_assert_eq(lstmc_rt_reduce(&p, x, y), LSTMC_RT_OK);
    cr_assert_float_eq(y[0], 6.0f, 0);
    cr_assert_float_eq(y[1], 5.5f, 0);
    p.op = LSTMC_RT_REDUCE_PROD;
    cr_assert_eq(lstmc_rt_reduce(&p, x, y), LSTMC_RT_OK);
    cr_assert_float_eq(y[0], -6.0f, 0);
    cr_assert_float_eq(y[1], -2.0f, 0);
    p.op = LSTMC_RT_REDUCE_LOG_SUM;
    cr_assert_eq(lstmc_rt_reduce(&p, x, y), LSTMC_RT_OK);
    cr_assert_float_eq(y[0], logf(2.0f), 1e-6f);
    cr_assert_float_eq(y[1], logf(3.5f), 1e-6f);
    p.op = LSTMC_RT_REDUCE_LOG_SUM_EXP;
    cr_assert_eq(lstmc_rt_reduce(&p, x, y), LSTMC_RT_OK);
    cr_assert_float_eq(y[0], 3.1328452f, 1e-5f);
    cr_assert_float_eq(y[1], 4.0362696f, 1e-5f);
    /* axis 0 reduced, axis 1 kept: accumulated element by element */
    p.reduce[0] = 1, p.reduce[1] = 0;
    cr_assert_eq(lstmc_rt_reduce(&p, x, y), LSTMC_RT_OK);
    cr_assert_float_eq(y[0], 1.4740770f, 1e-5f);
    cr_assert_float_eq(y[1], 4.0024757f, 1e-5f);
    {
        lstmc_rt_reduce_params q = {LSTMC_RT_REDUCE_LOG_SUM_EXP, LSTMC_RT_F32, 1, {2}, {1}};
        cr_assert_eq(lstmc_rt_reduce(&q, big, y), LSTMC_RT_OK);
        cr_assert_float_eq(y[0], 1000.0f + logf(2.0f), 1e-3f);
        cr_assert_eq(lstmc_rt_reduce(&q, infs, y), LSTMC_RT_OK); /* +inf twice: +inf */
        cr_assert(isinf(y[0]) && y[0] > 0);
        q.dims[0] = 0; /* empty: -inf */
        cr_assert_eq(lstmc_rt_reduce(&q, big, y), LSTMC_RT_OK);
        cr_assert(isinf(y[0]) && y[0] < 0);
        q.op = LSTMC_RT_REDUCE_PROD;
        cr_assert_eq(lstmc_rt_reduce(&q, big, y), LSTMC_RT_OK);
        cr_assert_float_eq(y[0], 1.0f, 0);
    }
    {
        lstmc_rt_reduce_params q = {LSTMC_RT_REDUCE_PROD, LSTMC_RT_I64, 2, {2, 3}, {0, 1}};
        cr_assert_eq(lstmc_rt_reduce(&q, xi, yi), LSTMC_RT_OK);
        cr_assert_eq(yi[0], -6);
        cr_assert_eq(yi[1], -20);
        q.op = LSTMC_RT_REDUCE_L1;
        cr_assert_eq(lstmc_rt_reduce(&q, xi, yi), LSTMC_RT_OK);
        cr_assert_eq(yi[0], 6);
        cr_assert_eq(yi[1], 10);
        q.op = LSTMC_RT_REDUCE_LOG_SUM; /* float only */
        cr_assert_eq(lstmc_rt_reduce(&q, xi, yi), LSTMC_RT_ERR_BAD_PARAMS);
    }
}

/* LayerNormalization's Mean and InvStdDev: the mean and 1 / sqrt(var + eps) of each row,
 * the very numbers lstmc_rt_layernorm normalises with; either output may be absent. */
Test(rt_reduce, layernorm_stats)
{
    const float x[8] = {1, 2, 3, 4, -1, -1, 3, 3}, one = 1.0f;
    float mean[2], inv[2], y[8];
    lstmc_rt_layernorm_params p = {2, 4, 0.25f, 0, 0};
    int i;
    cr_assert_eq(lstmc_rt_layernorm_stats(&p, x, mean, inv), LSTMC_RT_OK);
    cr_assert_float_eq(mean[0], 2.5f, 0);
    cr_assert_float_eq(mean[1], 1.0f, 0);
    cr_assert_float_eq(inv[0], 1.0f / sqrtf(1.5f), 1e-6f);
    cr_assert_float_eq(inv[1], 1.0f / sqrtf(4.25f), 1e-6f);
    cr_assert_eq(lstmc_rt_layernorm(&p, x, &one, NULL, y), LSTMC_RT_OK);
    for (i = 0; i < 8; i++)
        cr_assert_eq(y[i], (x[i] - mean[i / 4]) * inv[i / 4], "element %d", i);
    cr_assert_eq(lstmc_rt_layernorm_stats(&p, x, NULL, inv), LSTMC_RT_OK);
    p.n = 0;
    cr_assert_eq(lstmc_rt_layernorm_stats(&p, x, mean, inv), LSTMC_RT_ERR_BAD_PARAMS);
}

/* InstanceNormalization of [1, 2, 4]: channel 0 {1, 2, 3, 4} (mean 2.5, var 1.25) scaled by
 * 2 and shifted by 1, channel 1 {-1, -1, 3, 3} (mean 1, var 4) by 1 and 0. */
Test(rt_reduce, instancenorm_per_channel)
{
    const float x[8] = {1, 2, 3, 4, -1, -1, 3, 3}, g[2] = {2.0f, 1.0f}, b[2] = {1.0f, 0.0f};
    float y[8];
    lstmc_rt_instancenorm_params p = {1, 2, 4, 0.0f};
    int i;
    cr_assert_eq(lstmc_rt_instancenorm(&p, x, g, b, y), LSTMC_RT_OK);
    for (i = 0; i < 4; i++)
        cr_assert_float_eq(y[i], (x[i] - 2.5f) / sqrtf(1.25f) * 2.0f + 1.0f, 1e-6f);
    for (i = 4; i < 8; i++)
        cr_assert_float_eq(y[i], (x[i] - 1.0f) / 2.0f, 1e-6f);
    p.inner = 0;
    cr_assert_eq(lstmc_rt_instancenorm(&p, x, g, b, y), LSTMC_RT_ERR_BAD_PARAMS);
}

/* numpy.pad([1, 2, 3], 2, mode) : reflect 3 2 1 2 3 2 1, edge 1 1 1 2 3 3 3; a pad longer
 * than the axis reflects again (numpy: [1,2,3] by 4 -> 1 2 3 2 | 1 2 3 | 2 1 2 3). */
Test(rt_reduce, pad_modes)
{
    const float x[3] = {1, 2, 3};
    const float reflect[7] = {3, 2, 1, 2, 3, 2, 1}, edge[7] = {1, 1, 1, 2, 3, 3, 3};
    const float far[11] = {1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3};
    float y[11];
    lstmc_rt_pad_params p;
    int i;
    memset(&p, 0, sizeof p);
    p.mode = LSTMC_RT_PAD_REFLECT;
    p.rank = 1;
    p.elem_size = 4;
    p.in_dims[0] = 3;
    p.begin[0] = 2;
    p.end[0] = 2;
    cr_assert_eq(lstmc_rt_pad(&p, x, y), LSTMC_RT_OK);
    for (i = 0; i < 7; i++)
        cr_assert_float_eq(y[i], reflect[i], 0, "reflect[%d]", i);
    p.mode = LSTMC_RT_PAD_EDGE;
    cr_assert_eq(lstmc_rt_pad(&p, x, y), LSTMC_RT_OK);
    for (i = 0; i < 7; i++)
        cr_assert_float_eq(y[i], edge[i], 0, "edge[%d]", i);
    p.mode = LSTMC_RT_PAD_REFLECT;
    p.begin[0] = 4;
    p.end[0] = 4;
    cr_assert_eq(lstmc_rt_pad(&p, x, y), LSTMC_RT_OK);
    for (i = 0; i < 11; i++)
        cr_assert_float_eq(y[i], far[i], 0, "far[%d]", i);
}

/* TopK of [2, 5, 5, 1, 5] k 3: 5 5 5 at 1 2 4 (ties: the lower index first); the smallest
 * two: 1 at 3, 2 at 0. */
Test(rt_reduce, topk_ties)
{
    const float x[5] = {2, 5, 5, 1, 5};
    float v[3];
    int64_t ix[3];
    lstmc_rt_topk_params p = {LSTMC_RT_F32, 1, 1, 1, 5, 1, 3};
    cr_assert_eq(lstmc_rt_topk(&p, x, v, ix), LSTMC_RT_OK);
    cr_assert(ix[0] == 1 && ix[1] == 2 && ix[2] == 4, "%lld %lld %lld", (long long)ix[0],
              (long long)ix[1], (long long)ix[2]);
    cr_assert(v[0] == 5 && v[1] == 5 && v[2] == 5);
    p.largest = 0;
    p.k = 2;
    cr_assert_eq(lstmc_rt_topk(&p, x, v, ix), LSTMC_RT_OK);
    cr_assert(ix[0] == 3 && ix[1] == 0 && v[0] == 1 && v[1] == 2);
    p.k = 6;
    cr_assert_eq(lstmc_rt_topk(&p, x, v, ix), LSTMC_RT_ERR_BAD_PARAMS);
}

/* ScatterElements: an index out of range is an error before anything is written; add
 * accumulates duplicates. */
Test(rt_reduce, scatter_checks_indices)
{
    const float data[4] = {1, 2, 3, 4}, upd[2] = {10, 20};
    const int64_t bad[2] = {0, 4}, dup[2] = {-1, 3};
    float out[4] = {0, 0, 0, 0};
    lstmc_rt_scatter_params p = {LSTMC_RT_F32, LSTMC_RT_I64, LSTMC_RT_SCATTER_ADD, 1, 0, {4}, {2}};
    cr_assert_eq(lstmc_rt_scatter_elements(&p, data, bad, upd, out), LSTMC_RT_ERR_INDEX);
    cr_assert_float_eq(out[0], 0.0f, 0, "nothing written");
    cr_assert_eq(lstmc_rt_scatter_elements(&p, data, dup, upd, out), LSTMC_RT_OK);
    cr_assert(out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 34);
}

/* --- streaming rules (compiler/stream/analyze.c) ---------------------------------------- */

/* pt_red_stream_ln (batch_first LSTM: out [1, 9, 3], time on axis 1) with output 0 replaced
 * by op(out, const input 1 = v[0..nv) when nv >= 0). */
static ir_node *
stream_with(arena *a, diag *d, ir_graph **gp, ir_op op, const int64_t *v, int nv,
            const ir_shape *out_shape)
{
    const void *in[8];
    ir_graph *g = helpers_prepare_case(a, "pt_red_stream_ln", d, in);
    ir_tensor *y, *o;
    ir_node *n;
    cr_assert_not_null(g, "%s", diag_text(d));
    y = g->outputs[0];
    n = ir_node_new(g, op, NULL, NULL, op == IR_OP_PAD ? 4 : 2, 1);
    n->inputs[0] = y;
    if (nv >= 0) {
        ir_shape s;
        memset(&s, 0, sizeof s);
        s.rank = 1;
        s.d[0] = nv;
        n->inputs[1] = ir_const_new(g, "operand", IR_DT_I64, &s, v);
    }
    o = ir_tensor_tmp(g, "out", IR_DT_F32, out_shape ? out_shape : &y->shape);
    ir_node_set_output(n, 0, o);
    y->is_output = 0;
    o->is_output = 1;
    g->outputs[0] = o;
    *gp = g;
    return n;
}

/* A reduction, LayerNorm, Pad over the time axis mixes steps; over the features they stream
 * and ReduceMean without keepdims moves the time axis left by the axes it drops before it. */
Test(stream_red, time_axis_rules)
{
    static const int64_t ax1[1] = {1}, ax0[1] = {0}, ax2[1] = {2}, pad_t[6] = {0, 1, 0, 0, 0, 0};
    static const int64_t pad_f[6] = {0, 0, 1, 0, 0, 2};
    arena *a = arena_new(0);
    diag *d = diag_new(a, "pt_red_stream_ln", NULL);
    stream_info si;
    ir_graph *g;
    ir_node *n;
    ir_shape s;

    memset(&s, 0, sizeof s);
    stream_with(a, d, &g, IR_OP_REDUCE_MEAN, ax1, 1, NULL);
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "reduces over the time axis"), "%s", si.why);

    s.rank = 2, s.d[0] = 9, s.d[1] = 3;
    n = stream_with(a, d, &g, IR_OP_REDUCE_MAX, ax0, 1, &s);
    ir_attr_set_int(g, n, "keepdims", 0);
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.out_axis[0], 0, "the batch axis before time is gone");

    n = stream_with(a, d, &g, IR_OP_LAYER_NORM, NULL, -1, NULL);
    n->inputs[1] = ir_in(helpers_find_op(g, IR_OP_LAYER_NORM, 0), 1);
    ir_attr_set_int(g, n, "axis", 1); /* normalises [T, 3] */
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "normalises over the time axis"), "%s", si.why);

    /* issue 20, ops: the new reductions and ArgMin follow ReduceMean's and ArgMax's rule */
    stream_with(a, d, &g, IR_OP_REDUCE_LOG_SUM_EXP, ax1, 1, NULL);
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "reduces over the time axis"), "%s", si.why);
    stream_with(a, d, &g, IR_OP_REDUCE_L1, ax2, 1, NULL);
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    n = stream_with(a, d, &g, IR_OP_ARGMIN, NULL, -1, NULL);
    ir_attr_set_int(g, n, "axis", 1);
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "looks for a minimum over the time axis"), "%s", si.why);

    s.rank = 3, s.d[0] = 1, s.d[1] = 10, s.d[2] = 3;
    stream_with(a, d, &g, IR_OP_PAD, pad_t, 6, &s);
    stream_analyze(g, &si);
    cr_assert(!si.ok); /* padding at the start of time streams only into a causal Conv */
    cr_assert(strstr(si.why, "is padded along time by"), "%s", si.why);

    s.d[1] = 9, s.d[2] = 6;
    stream_with(a, d, &g, IR_OP_PAD, pad_f, 6, &s);
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.out_axis[0], 1);
    arena_free(a);
}
