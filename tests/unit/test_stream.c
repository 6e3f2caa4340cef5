/*
 * test_stream.c — which models stream (compiler/stream/stream.c): the time axis found for every
 * input and output of fixture models, the refusals with their reasons, and graphs extended
 * here with ops that mix time steps (a Softmax over time, a Gather of the first step) next
 * to the same ops along other axes, which stream.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "helpers.h"
#include "ir.h"
#include "stream.h"

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
