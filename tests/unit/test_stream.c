/*
 * test_stream.c — which models stream (compiler/stream/stream.c): the time axis found for every
 * input and output of fixture models, the refusals with their reasons, and graphs extended
 * here with ops that mix time steps (a Softmax over time, a Gather of the first step) next
 * to the same ops along other axes, which stream.
 */
#include "arena.h"
#include "diag.h"
#include "helpers.h"
#include "ir.h"
#include "stream.h"

#include <criterion/criterion.h>
#include <string.h>

static arena *a;
static diag *d;
static stream_info si;

static void
setup(void)
{
    a = arena_new(0);
    d = diag_new(a, "test", stderr);
}

static void
teardown(void)
{
    arena_free(a);
}

TestSuite(stream, .init = setup, .fini = teardown);

static ir_graph *
prepared(const char *c)
{
    const void *in[8];
    ir_graph *g = helpers_prepare_case(a, c, d, in);
    cr_assert(g, "prepare %s: %s", c, diag_text(d));
    return g;
}

Test(stream, last_step_classifier)
{
    ir_graph *g = prepared("pt_har_lstm"); /* [1,128,9] -> LSTM x2 -> y[:, -1] -> fc */
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.seq_len, 128);
    cr_assert_eq(si.in_axis[0], 1);
    cr_assert_eq(si.out_kind[0], STREAM_LAST);
    cr_assert_eq(si.n_layers, 2);
    cr_assert_eq(si.layers[1].hidden, 32);
    cr_assert_eq(si.layers[1].batch, 1);
}

Test(stream, per_step_and_final_state_outputs)
{
    ir_graph *g = prepared("pt_lstm3_batchfirst"); /* x [2,5,8] -> y [2,5,16], h_n, c_n */
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.in_axis[0], 1);
    cr_assert_eq(si.out_kind[0], STREAM_TIME);
    cr_assert_eq(si.out_axis[0], 1);
    cr_assert_eq(si.out_kind[1], STREAM_LAST);
    cr_assert_eq(si.out_kind[2], STREAM_LAST);
    cr_assert_eq(si.n_layers, 3);
}

Test(stream, token_ids_through_an_embedding)
{
    ir_graph *g = prepared("pt_embed_lstm2_cls"); /* int64 tokens [2,7], batch first */
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.in_axis[0], 1);
    cr_assert_eq(si.layers[0].batch, 2);
}

Test(stream, refuses_bidirectional_and_sequence_lens)
{
    stream_analyze(prepared("pt_bilstm_tagger"), &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "bidirectional"), "%s", si.why);
    stream_analyze(prepared("lstm_seqlens"), &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "sequence_lens"), "%s", si.why);
    stream_analyze(prepared("op_gemm"), &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "no recurrent layer"), "%s", si.why);
}

/* pt_lstm3_batchfirst with its output y [2,5,16] replaced by op(y). */
static ir_node *
append_op(ir_graph *g, ir_op op, const ir_shape *out_shape)
{
    ir_tensor *y = g->outputs[0];
    ir_node *n = ir_node_new(g, op, NULL, NULL, op == IR_OP_GATHER ? 2 : 1, 1);
    ir_tensor *o = ir_tensor_tmp(g, "out", IR_DT_F32, out_shape ? out_shape : &y->shape);
    n->inputs[0] = y;
    ir_node_set_output(n, 0, o);
    y->is_output = 0;
    o->is_output = 1;
    g->outputs[0] = o;
    return n;
}

Test(stream, softmax_over_time_mixes_steps)
{
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_node *n = append_op(g, IR_OP_SOFTMAX, NULL);
    ir_attr_set_int(g, n, "axis", 1); /* the time axis of y [N, T, H] */
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "normalises over the time axis"), "%s", si.why);
}

Test(stream, softmax_over_features_streams)
{
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_node *n = append_op(g, IR_OP_SOFTMAX, NULL);
    ir_attr_set_int(g, n, "axis", -1);
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.out_kind[0], STREAM_TIME);
    cr_assert_eq(si.out_axis[0], 1);
}

static void
gather_step(int64_t index, int want_ok)
{
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_shape s0 = {0}, so = {2, {2, 16}};
    ir_node *n = append_op(g, IR_OP_GATHER, &so);
    n->inputs[1] = ir_const_new(g, "idx", IR_DT_I64, &s0, &index);
    ir_attr_set_int(g, n, "axis", 1);
    stream_analyze(g, &si);
    cr_assert_eq(si.ok, want_ok, "index %lld: %s", (long long)index, si.why);
    if (want_ok)
        cr_assert_eq(si.out_kind[0], STREAM_LAST);
    else
        cr_assert(strstr(si.why, "other than the last"), "%s", si.why);
}

Test(stream, gather_of_a_step)
{
    gather_step(-1, 1); /* y[:, -1]: the last step */
    gather_step(4, 1);  /* T - 1 */
    gather_step(0, 0);  /* the first step: only known at the end of a stream */
    gather_step(2, 0);
}

/* --- PyTorch's default layout (issue 19): batch_first layers with per-step Linear layers,
 * whose MatMul by a weight [C, K] must not be taken for a time-indexed constant --- */

Test(stream, batch_first_denoiser_with_per_step_linear)
{
    /* feats [2,13,22] -> MatMul+Add+Tanh -> GRU -> Concat(feats, axis 2) -> GRU ->
     * MatMul+Add+Sigmoid -> gains [2,13,22] */
    ir_graph *g = prepared("pt_stream_gru_denoiser");
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.seq_len, 13);
    cr_assert_eq(si.in_axis[0], 1);
    cr_assert_eq(si.out_kind[0], STREAM_TIME);
    cr_assert_eq(si.out_axis[0], 1);
    cr_assert_eq(si.n_layers, 2);
    cr_assert_eq(si.layers[1].hidden, 40);
    cr_assert_eq(si.layers[1].batch, 2);
}

Test(stream, batch_first_char_lm)
{
    /* tokens [3,11] -> Embedding -> LSTM -> y.reshape(-1, 48) [33,48] -> Linear: logits
     * [N*T, 40], the time axis merged under the batch (om = 3), h_n, c_n */
    ir_graph *g = prepared("pt_stream_lstm_charlm");
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.in_axis[0], 1);
    cr_assert_eq(si.out_kind[0], STREAM_TIME);
    cr_assert_eq(si.out_axis[0], 0);
    cr_assert_eq(si.out_om[0], 3);
    cr_assert_eq(si.out_im[0], 1);
    cr_assert_eq(si.out_kind[1], STREAM_LAST);
    cr_assert_eq(si.out_kind[2], STREAM_LAST);
}

Test(stream, word_language_model)
{
    /* PyTorch's example: tokens [8,3] seq first, (h0, c0) [2,3,16] inputs, decoder on
     * [T, N, H], view(-1, 50): [T*N, 50], the batch merged under the time axis (im = 3) */
    ir_graph *g = prepared("pt_stream_lstm_wordlm");
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.in_axis[0], 0);
    cr_assert_eq(si.in_axis[1], -1);
    cr_assert_eq(si.out_axis[0], 0);
    cr_assert_eq(si.out_om[0], 1);
    cr_assert_eq(si.out_im[0], 3);
    cr_assert_eq(si.layers[1].init_h_input, 1);
    cr_assert_eq(si.layers[1].init_h_off, 3 * 16);
    cr_assert_eq(si.layers[1].init_c_input, 2);
}

Test(stream, initial_state_graph_inputs)
{
    /* x [2,9,6], h0 [1,2,20]: the GRU reads h0 itself */
    ir_graph *g = prepared("pt_stream_gru_h0");
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.in_axis[0], 1);
    cr_assert_eq(si.in_axis[1], -1);
    cr_assert_eq(si.layers[0].init_h_input, 1);
    cr_assert_eq(si.layers[0].init_h_off, 0);
    cr_assert_eq(si.out_kind[0], STREAM_TIME);
    /* x [1,10,5], h0 and c0 [2,1,12]: layer k reads Slice h0[k:k+1], from float k * 12 */
    g = prepared("pt_stream_lstm_h0c0");
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.n_layers, 2);
    cr_assert_eq(si.layers[0].init_h_input, 1);
    cr_assert_eq(si.layers[0].init_c_input, 2);
    cr_assert_eq(si.layers[0].init_h_off, 0);
    cr_assert_eq(si.layers[1].init_h_input, 1);
    cr_assert_eq(si.layers[1].init_c_input, 2);
    cr_assert_eq(si.layers[1].init_h_off, 12);
    cr_assert_eq(si.layers[1].init_c_off, 12);
    /* its head ends in view(1, 10, 3): the step program reads view(1, 1, 3) */
    cr_assert_eq(si.n_reshapes, 1);
    cr_assert_eq(si.reshape_axis[0], 1);
}

Test(stream, slice_reversing_time_says_so)
{
    stream_analyze(prepared("pt_stream_reversed"), &si); /* torch.flip(y, [1]) */
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "reverses the time axis"), "%s", si.why);
}

/* pt_lstm3_batchfirst's y [2,5,16] replaced by op(in0, in1, ...) of shape os (n_in inputs:
 * y where NULL). */
static ir_node *
append_n(ir_graph *g, ir_op op, const ir_shape *os, int n_in, ir_tensor *const *in)
{
    ir_tensor *y = g->outputs[0];
    ir_node *n = ir_node_new(g, op, NULL, NULL, n_in, 1);
    ir_tensor *o = ir_tensor_tmp(g, "out", IR_DT_F32, os);
    int i;
    for (i = 0; i < n_in; i++)
        n->inputs[i] = in[i] ? in[i] : y;
    ir_node_set_output(n, 0, o);
    y->is_output = 0;
    o->is_output = 1;
    g->outputs[0] = o;
    return n;
}

static float wbuf[2 * 5 * 16 * 4];

static ir_tensor *
wconst(ir_graph *g, const char *name, const ir_shape *s)
{
    return ir_const_new(g, name, IR_DT_F32, s, wbuf);
}

Test(stream, per_step_linear_keeps_the_time_axis)
{
    /* y [2,5,16] @ w [16,3]: a Linear layer on every step, the weight has no time axis */
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_shape ws = {2, {16, 3}}, os = {3, {2, 5, 3}};
    ir_tensor *in[2] = {NULL, wconst(g, "w", &ws)};
    append_n(g, IR_OP_MATMUL, &os, 2, in);
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.out_kind[0], STREAM_TIME);
    cr_assert_eq(si.out_axis[0], 1);
}

Test(stream, batched_weight_broadcast_keeps_the_time_axis)
{
    /* y [2,5,16] viewed as a batch of [5,16] matrices @ w [1,16,4]: T is M, w broadcast */
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_shape ws = {3, {1, 16, 4}}, os = {3, {2, 5, 4}};
    ir_tensor *in[2] = {NULL, wconst(g, "w", &ws)};
    append_n(g, IR_OP_MATMUL, &os, 2, in);
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.out_axis[0], 1);
}

Test(stream, matmul_contracting_time_sums_over_it)
{
    /* w [4,5] @ y [2,5,16]: y's K axis is the time axis */
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_shape ws = {2, {4, 5}}, os = {3, {2, 4, 16}};
    ir_tensor *in[2] = {wconst(g, "w", &ws), NULL};
    append_n(g, IR_OP_MATMUL, &os, 2, in);
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "sums over the time axis"), "%s", si.why);
}

Test(stream, time_indexed_constant_is_named)
{
    /* y [2,5,16] + pos [5,16]: a positional table, one row per time step */
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_shape ws = {2, {5, 16}};
    ir_tensor *in[2] = {NULL, wconst(g, "pos", &ws)};
    append_n(g, IR_OP_ADD, &g->outputs[0]->shape, 2, in);
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "reads 'pos"), "%s", si.why);
    cr_assert(strstr(si.why, "a constant with 5 entries along the time axis"), "%s", si.why);
}

/* y [2,5,16][:, start:end:step] of out_t steps: the reason (want_ok: streams). */
static void
slice_time(int64_t start, int64_t end, int64_t step, int64_t out_t, const char *want)
{
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_shape s1 = {1, {1}}, os = {3, {2, out_t, 16}};
    int64_t ax = 1;
    ir_tensor *in[5] = {NULL, ir_const_new(g, "st", IR_DT_I64, &s1, &start),
                        ir_const_new(g, "en", IR_DT_I64, &s1, &end),
                        ir_const_new(g, "ax", IR_DT_I64, &s1, &ax),
                        ir_const_new(g, "sp", IR_DT_I64, &s1, &step)};
    append_n(g, IR_OP_SLICE, &os, 5, in);
    stream_analyze(g, &si);
    if (!want) {
        cr_assert(si.ok, "[%lld:%lld:%lld] %s", (long long)start, (long long)end, (long long)step,
                  si.why);
        return;
    }
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, want), "[%lld:%lld:%lld] %s", (long long)start, (long long)end,
              (long long)step, si.why);
}

Test(stream, slice_of_time_names_what_it_does)
{
    slice_time(0, 5, 1, 5, NULL);          /* the whole axis */
    slice_time(-1, INT64_MAX, 1, 1, NULL); /* the last step */
    slice_time(-1, INT64_MIN, -1, 5, "reverses the time axis (step -1)");
    slice_time(-1, -3, -1, 2, "reverses the time axis");
    slice_time(0, 1, 1, 1, "picks time step 0 of 5, not the last");
    slice_time(0, 5, 2, 3, "keeps one time step in 2");
    slice_time(1, 4, 1, 3, "keeps only 3 of the 5 time steps (from step 1)");
}

Test(stream, reshape_interleaving_time_mixes_steps)
{
    /* y [2,5,16] -> [2,80]: steps and features interleave into one axis in an order no
     * [om, T, im] view has (time outside the features: om = 2, im = 16 would need [2*5*16]) */
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_shape s1 = {1, {2}}, os = {2, {10, 16}}, os2 = {3, {5, 2, 16}};
    int64_t shp[2] = {10, 16}, shp2[3] = {5, 2, 16};
    ir_tensor *in[2] = {NULL, ir_const_new(g, "shape", IR_DT_I64, &s1, shp)};
    append_n(g, IR_OP_RESHAPE, &os, 2, in); /* [N*T, H]: streams, om = 2 */
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.out_om[0], 2);
    s1.d[0] = 3;
    in[1] = ir_const_new(g, "shape2", IR_DT_I64, &s1, shp2);
    append_n(g, IR_OP_RESHAPE, &os2, 2, in); /* [N*T, H] read as [T', N', H]: mixed */
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "mixes the time steps' entries"), "%s", si.why);
}

/* --- issue 20: causal convolutions keep the last K - 1 steps of their input ------------- */

static ir_node *
node_named(ir_graph *g, const char *name)
{
    int i;
    for (i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && strcmp(g->nodes[i]->name, name) == 0)
            return g->nodes[i];
    cr_assert_fail("no node '%s'", name);
    return NULL;
}

Test(stream, causal_convolutions_keep_their_history)
{
    /* F.pad(x, (2, 0)) + Conv1d(6, 16, 3); F.pad(z, (4, 0)) + Conv1d(16, 16, 3, dilation 2) */
    ir_graph *g = prepared("model_causal_conv_lstm");
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.n_hists, 2);
    cr_assert_str_eq(si.hists[0].conv, "/c1/Conv");
    cr_assert_str_eq(si.hists[0].pad, "/Pad");
    cr_assert_eq(si.hists[0].axis, 2);
    cr_assert_eq(si.hists[0].frames, 2); /* (3 - 1) * 1 */
    cr_assert_eq(si.hists[0].floats, 6 * 2);
    cr_assert_eq(si.hists[1].frames, 4); /* (3 - 1) * 2 */
    cr_assert_eq(si.hists[1].floats, 16 * 4);
    cr_assert_eq(si.hists[1].init, 0.0f);
}

Test(stream, causal_convolution_pads_in_every_onnx_form)
{
    /* a Pad with the value 0.25; a Conv's own pads [4, 0]; auto_pad SAME_LOWER, kernel 2 */
    ir_graph *g = prepared("model_causal_conv_onnx_pads");
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.n_hists, 3);
    cr_assert_not_null(si.hists[0].pad);
    cr_assert_eq(si.hists[0].init, 0.25f);
    cr_assert_eq(si.hists[0].frames, 2);
    cr_assert_null(si.hists[1].pad);
    cr_assert_eq(si.hists[1].frames, 4);
    cr_assert_eq(si.hists[1].pad_b[0], 4);
    cr_assert_null(si.hists[2].pad);
    cr_assert_eq(si.hists[2].frames, 1);
    cr_assert_eq(si.hists[2].pad_b[0], 1, "SAME_LOWER puts the odd pad at the start");
    cr_assert_eq(si.hists[2].pad_e[0], 0);
}

Test(stream, chomped_convolutions_stream)
{
    /* TCN: Conv1d(padding (k-1)d) then a Slice dropping the (k-1)d look-ahead outputs */
    ir_graph *g = prepared("model_tcn_gru");
    int k;
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.n_hists, 4);
    cr_assert_eq(si.n_chomps, 4);
    for (k = 0; k < 4; k++) {
        cr_assert_not_null(si.hists[k].chomp, "conv %d", k);
        cr_assert_eq(si.hists[k].frames, k < 2 ? 2 : 4);
        cr_assert_eq(si.hists[k].pad_e[0], si.hists[k].frames);
    }
}

Test(stream, conv2d_history_over_the_time_rows)
{
    /* [1, 1, T, 10], F.pad (time: 2 at the start, frequency: 1 each side), Conv2d 3x3 */
    ir_graph *g = prepared("model_causal_crnn2d");
    stream_analyze(g, &si);
    cr_assert(si.ok, "%s", si.why);
    cr_assert_eq(si.in_axis[0], 2);
    cr_assert_eq(si.n_hists, 1);
    cr_assert_eq(si.hists[0].axis, 2);
    cr_assert_eq(si.hists[0].frames, 2);
    cr_assert_eq(si.hists[0].shape.d[3], 10, "the history is the input before its padding");
    cr_assert_eq(si.hists[0].floats, 2 * 10);
}

Test(stream, convolutions_that_do_not_stream_say_why)
{
    static const int64_t two[1] = {2}, three[1] = {3};
    ir_graph *g = prepared("model_lookahead_conv_lstm"); /* Conv1d(k3, padding 1) */
    ir_node *n;
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "node '/conv/Conv' (Conv) looks ahead in time"), "%s", si.why);

    g = prepared("model_causal_conv_lstm");
    n = node_named(g, "/c1/Conv");
    ir_attr_set_ints(g, n, "strides", two, 1);
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "'/c1/Conv' (Conv) strides the time axis (stride 2)"), "%s", si.why);

    g = prepared("model_causal_conv_lstm");
    n = node_named(g, "/c2/Conv");
    ir_attr_set_ints(g, n, "dilations", three, 1); /* a window of 7 padded by 4: looks ahead */
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "each output reads 2 steps after its own"), "%s", si.why);
    cr_assert(strstr(si.why, "a window of 7 steps padded by 4 at the start"), "%s", si.why);

    g = prepared("model_causal_conv_lstm");
    n = node_named(g, "/Relu");
    n->inputs[0] = ir_out(node_named(g, "/Pad"), 0); /* Relu of the padded input */
    stream_analyze(g, &si);
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, "padded at its start by '/Pad'; only a convolution"), "%s", si.why);
}

/* Tile of y [2,5,16] by repeats r: along the features each step is copied (streams); along
 * the time axis the copies of step 0 follow step 4 (refused, saying so). */
static void
tile_time(int64_t r1, int64_t r2, const char *want)
{
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_shape rs = {1, {3}}, os = {3, {2, 5 * r1, 16 * r2}};
    int64_t rep[3] = {1, r1, r2};
    ir_tensor *in[2] = {NULL, ir_const_new(g, "repeats", IR_DT_I64, &rs, rep)};
    append_n(g, IR_OP_TILE, &os, 2, in);
    stream_analyze(g, &si);
    if (!want) {
        cr_assert(si.ok, "%s", si.why);
        cr_assert_eq(si.out_kind[0], STREAM_TIME);
        cr_assert_eq(si.out_axis[0], 1);
        return;
    }
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, want), "%s", si.why);
    cr_assert(strstr(si.why, "(Tile)"), "the node is named: %s", si.why);
}

Test(stream, tile_along_features_streams_along_time_refused)
{
    tile_time(1, 3, NULL);
    tile_time(2, 1, "repeats the time axis (2 times)");
}

/* CumSum of y [2,5,16]: a running sum over the features is per step; over time (either
 * direction) each step needs the others. */
static void
cumsum_axis(int64_t axis, int reverse, const char *want)
{
    ir_graph *g = prepared("pt_lstm3_batchfirst");
    ir_shape s0 = {0, {0}}, os = {3, {2, 5, 16}};
    ir_tensor *in[2] = {NULL, ir_const_new(g, "axis", IR_DT_I64, &s0, &axis)};
    ir_node *n = append_n(g, IR_OP_CUMSUM, &os, 2, in);
    if (reverse)
        ir_attr_set_int(g, n, "reverse", 1);
    stream_analyze(g, &si);
    if (!want) {
        cr_assert(si.ok, "%s", si.why);
        cr_assert_eq(si.out_axis[0], 1);
        return;
    }
    cr_assert(!si.ok);
    cr_assert(strstr(si.why, want), "%s", si.why);
    cr_assert(strstr(si.why, "(CumSum)"), "the node is named: %s", si.why);
}

Test(stream, cumsum_along_features_streams_along_time_refused)
{
    cumsum_axis(2, 0, NULL);
    cumsum_axis(-1, 1, NULL);
    cumsum_axis(1, 0, "sums along the time axis: each step adds every step before it");
    cumsum_axis(-2, 1, "sums along the time axis backwards");
}
