/*
 * test_lowp.c — reduced-precision weights (issue 12): the compiler's encoders and int8
 * quantiser (passes/lowp.c) and the runtime's decoders and kernels (rt_lowp.c), against
 * hand-worked values (IEEE 754 binary16 / bfloat16 bit patterns, small products by hand).
 */
#include "internal/testing.h" /* runtime/src/internal: the runtime's test hooks */
#include "lowp.h"
#include "wfmt.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

Test(lowp, parse_and_names)
{
    cr_assert_eq(lowp_parse("fp32"), LSTMC_RT_WFMT_FP32);
    cr_assert_eq(lowp_parse("fp16"), LSTMC_RT_WFMT_FP16);
    cr_assert_eq(lowp_parse("bf16"), LSTMC_RT_WFMT_BF16);
    cr_assert_eq(lowp_parse("int8"), LSTMC_RT_WFMT_INT8);
    cr_assert_eq(lowp_parse("fp8"), -1);
    cr_assert_eq(lowp_parse(NULL), -1);
    cr_assert_str_eq(lowp_name(LSTMC_RT_WFMT_BF16), "bf16");
    cr_assert_eq(lowp_elem_bytes(LSTMC_RT_WFMT_INT8), 1);
}

Test(lowp, f16_encode_round_to_nearest_even)
{
    cr_assert_eq(lowp_f32_to_f16(1.0f), 0x3c00);
    cr_assert_eq(lowp_f32_to_f16(-2.0f), 0xc000);
    cr_assert_eq(lowp_f32_to_f16(65504.0f), 0x7bff);                     /* largest half */
    cr_assert_eq(lowp_f32_to_f16(70000.0f), 0x7c00);                     /* overflow: inf */
    cr_assert_eq(lowp_f32_to_f16(1.0f / 3.0f), 0x3555);                  /* 0.333251953125 */
    cr_assert_eq(lowp_f32_to_f16(ldexpf(1.0f, -24)), 0x0001);            /* smallest subnormal */
    cr_assert_eq(lowp_f32_to_f16(ldexpf(1.0f, -25)), 0x0000);            /* tie to even: 0 */
    cr_assert_eq(lowp_f32_to_f16(1.0f + ldexpf(1.0f, -11)), 0x3c00);     /* tie: down */
    cr_assert_eq(lowp_f32_to_f16(1.0f + 3 * ldexpf(1.0f, -11)), 0x3c02); /* tie: up */
}

Test(lowp, bf16_encode_round_to_nearest_even)
{
    float third = 1.0f / 3.0f, t1, t2;
    uint32_t u1 = 0x3f808000u, u2 = 0x3f818000u;
    memcpy(&t1, &u1, 4);
    memcpy(&t2, &u2, 4);
    cr_assert_eq(lowp_f32_to_bf16(1.0f), 0x3f80);
    cr_assert_eq(lowp_f32_to_bf16(third), 0x3eab); /* 0x3eaaaaab rounds up */
    cr_assert_eq(lowp_f32_to_bf16(t1), 0x3f80);    /* tie to even: down */
    cr_assert_eq(lowp_f32_to_bf16(t2), 0x3f82);    /* tie to even: up */
}

Test(lowp, decoders_are_exact)
{
    cr_assert_eq(lstmc_rt_f16_to_f32(0x3555), 0.333251953125f);
    cr_assert_eq(lstmc_rt_f16_to_f32(0x0001), ldexpf(1.0f, -24));
    cr_assert_eq(lstmc_rt_f16_to_f32(0x8400), -ldexpf(1.0f, -14));
    cr_assert_eq(lstmc_rt_f16_to_f32(0x7bff), 65504.0f);
    cr_assert(isinf(lstmc_rt_f16_to_f32(0xfc00)) && lstmc_rt_f16_to_f32(0xfc00) < 0);
    cr_assert_eq(lstmc_rt_bf16_to_f32(0x3eab), 0.333984375f);
    cr_assert_eq(lstmc_rt_bf16_to_f32(0xc000), -2.0f);
}

/* s = max|w| / 127, q = round(w / s), |q| <= 127 */
Test(lowp, quant_row_max_over_127)
{
    const float w[4] = {0.5f, -1.27f, 0.0f, 0.004f};
    signed char q[4];
    float s = lowp_quant_row(w, 4, 1, NULL, 0, q, 1);
    cr_assert_float_eq(s, 0.01f, 1e-9f);
    cr_assert_eq(q[0], 50);
    cr_assert_eq(q[1], -127);
    cr_assert_eq(q[2], 0);
    cr_assert_eq(q[3], 0); /* 0.4 rounds to 0 */
}

/* a row that lies exactly on the model's own DequantizeLinear grid keeps it, among other
 * candidates (ascending, as ir_qscales gives them) and when max|w| / 127 is another scale */
Test(lowp, quant_row_keeps_a_qdq_grid)
{
    const float cands[3] = {0.0005f, 0.0071f, 0.013f};
    const signed char want[5] = {-100, 3, 50, 0, 99};
    float w[10];
    signed char q[5];
    float s;
    int k;
    for (k = 0; k < 5; k++) { /* strided: every other element */
        w[2 * k] = (float)want[k] * 0.0071f;
        w[2 * k + 1] = 1e6f;
    }
    s = lowp_quant_row(w, 5, 2, cands, 3, q, 1);
    cr_assert_eq(s, 0.0071f);
    for (k = 0; k < 5; k++)
        cr_assert_eq(q[k], want[k], "q[%d] = %d, want %d", k, q[k], want[k]);
}

Test(lowp, quant_row_zero)
{
    const float w[3] = {0.0f, -0.0f, 0.0f};
    signed char q[3] = {1, 1, 1};
    cr_assert_eq(lowp_quant_row(w, 3, 1, NULL, 0, q, 1), 0.0f);
    cr_assert(q[0] == 0 && q[1] == 0 && q[2] == 0);
}

/* int8, D = 1, K = 2, GH = 2: scales [0.5, 2], q [[1, -2], [3, 4]], h = [1, 10]:
 * gates += [0.5 * (1 + 30), 2 * (-2 + 40)] = [15.5, 76] */
Test(lowp, rt_accumulate_int8_by_hand)
{
    unsigned char w[12];
    const float sc[2] = {0.5f, 2.0f};
    const signed char q[4] = {1, -2, 3, 4};
    const float h[2] = {1.0f, 10.0f};
    float gates[2] = {1.0f, 0.0f};
    memcpy(w, sc, 8);
    memcpy(w + 8, q, 4);
    cr_assert_eq(lstmc_rt_lowp_bytes(LSTMC_RT_WFMT_INT8, 1, 2, 2), 12);
    lstmc_rt_lowp_accumulate(LSTMC_RT_WFMT_INT8, w, 1, 0, h, 2, 2, 0, 2, gates);
    cr_assert_eq(gates[0], 16.5f);
    cr_assert_eq(gates[1], 76.0f);
}

/* fp16, the second of two directions, K = 2, GH = 2, columns 1..1:
 * direction 1 = [[1, 0.5], [-2, 0.25]], h = [2, 4]: gate = 2 * 0.5 + 4 * 0.25 = 2 */
Test(lowp, rt_accumulate_fp16_direction_and_columns)
{
    const uint16_t v[8] = {0, 0, 0, 0, 0x3c00, 0x3800, 0xc000, 0x3400};
    unsigned char w[16];
    const float h[2] = {2.0f, 4.0f};
    float gate = 0.0f;
    int i;
    for (i = 0; i < 8; i++) { /* little-endian, as lowp.c writes it */
        w[2 * i] = (unsigned char)(v[i] & 0xff);
        w[2 * i + 1] = (unsigned char)(v[i] >> 8);
    }
    lstmc_rt_lowp_accumulate(LSTMC_RT_WFMT_FP16, w, 2, 1, h, 2, 2, 1, 1, &gate);
    cr_assert_eq(gate, 2.0f);
}

/* lstmc_rt_rnn_proj_bf16: one RNN direction, I = 2, H = 1, 2 rows:
 * P[r] = b + X[r] . [1.5, -0.5]: X = [[2, 2], [1, -4]], b = 0.25 -> [2.25, 3.75] */
Test(lowp, rt_proj_bf16_by_hand)
{
    const lstmc_rt_rnn_proj_params p = {.cell = LSTMC_RT_CELL_RNN,
                                        .n_dirs = 1,
                                        .rows = 2,
                                        .input_size = 2,
                                        .hidden = 1,
                                        .packed = 1};
    const unsigned char w[4] = {0xc0, 0x3f, 0x00, 0xbf}; /* 0x3fc0 = 1.5, 0xbf00 = -0.5 */
    const float X[4] = {2.0f, 2.0f, 1.0f, -4.0f}, b = 0.25f;
    float P[2];
    lstmc_rt_rnn_proj_params bad = p;
    cr_assert_eq(lstmc_rt_rnn_proj_bf16(&p, X, w, &b, P), LSTMC_RT_OK);
    cr_assert_eq(P[0], 2.25f);
    cr_assert_eq(P[1], 3.75f);
    bad.packed = 0; /* only packed weights have a reduced-precision form */
    cr_assert_eq(lstmc_rt_rnn_proj_bf16(&bad, X, w, &b, P), LSTMC_RT_ERR_BAD_PARAMS);
}

/* --- lowp_apply on a hand-built graph: the model's own precision is the default --------- */

#include "arena.h"
#include "diag.h"
#include "ir.h"

/* A packed RnnRec (D = 1, K = 2, GH = 2) whose U lies on the grid of scale c. */
static ir_node *
rec_graph(arena *a, ir_graph **gp, float c)
{
    ir_graph *g = ir_graph_new(a, "g", "t.onnx");
    ir_node *n = ir_node_new(g, IR_OP_RNN_REC, "rec", "lstmc.RnnRec", 7, 3);
    ir_shape s = {0};
    const float u[4] = {3 * c, -127 * c, 0.0f, 64 * c};
    s.rank = 3;
    s.d[0] = 1;
    s.d[1] = 2;
    s.d[2] = 2;
    n->inputs[1] = ir_const_new(g, "U", IR_DT_F32, &s, u);
    ir_attr_set_int(g, n, "packed", 1);
    *gp = g;
    return n;
}

Test(lowp, apply_defaults_to_the_models_int8_grid)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "t.onnx", stderr);
    ir_graph *g;
    ir_node *n = rec_graph(a, &g, 0.013f);
    const unsigned char *w;
    float s0, s1;
    g->weights_hint = LSTMC_RT_WFMT_INT8;
    ir_qscale_add(g, 0.5f);
    ir_qscale_add(g, 0.013f);
    cr_assert_eq(lowp_apply(g, NULL, 0, d), 0);
    cr_assert_eq(ir_attr_int(n, "wfmt", 0), LSTMC_RT_WFMT_INT8);
    cr_assert_eq(n->inputs[1]->dtype, IR_DT_I32);
    w = n->inputs[1]->data;
    memcpy(&s0, w, 4);
    memcpy(&s1, w + 4, 4);
    cr_assert_eq(s0, 0.013f); /* column 0: 3c and 0 */
    cr_assert_eq(s1, 0.013f); /* column 1: -127c and 64c */
    cr_assert_eq((signed char)w[8], 3);
    cr_assert_eq((signed char)w[9], -127);
    cr_assert_eq((signed char)w[10], 0);
    cr_assert_eq((signed char)w[11], 64);
    arena_free(a);
}

Test(lowp, apply_explicit_fp32_keeps_the_weights)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "t.onnx", stderr);
    ir_graph *g;
    ir_node *n = rec_graph(a, &g, 0.013f);
    ir_tensor *u = n->inputs[1];
    g->weights_hint = LSTMC_RT_WFMT_FP16;
    cr_assert_eq(lowp_apply(g, "fp32", 0, d), 0);
    cr_assert_eq(n->inputs[1], u);
    cr_assert_eq(ir_attr_int(n, "wfmt", 0), 0);
    arena_free(a);
}

Test(lowp, apply_on_opencl_and_unpacked)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "t.onnx", stderr);
    ir_graph *g;
    ir_node *n = rec_graph(a, &g, 0.013f);
    ir_attr_set_int(g, n, "packed", 0);
    cr_assert_eq(lowp_apply(g, "bf16", 0, d), -1);
    cr_assert(strstr(diag_text(d), "node 'rec' (lstmc.RnnRec): --weights=bf16: "));
    cr_assert(strstr(diag_text(d), "not packed"));
    /* on an OpenCL target the same refusal names the target */
    cr_assert_eq(lowp_apply(g, "fp16", 1, d), -1);
    cr_assert(strstr(diag_text(d), "--weights=fp16 on an OpenCL target: its weights are not "
                                   "packed"));
    /* from the model only: a note, and the layer stays fp32 */
    g->weights_hint = LSTMC_RT_WFMT_FP16;
    cr_assert_eq(lowp_apply(g, NULL, 1, d), 0);
    cr_assert_eq(ir_attr_int(n, "wfmt", 0), 0);
    /* packed: the OpenCL kernels read the format (codegen/opencl/opencl.c), the model's is kept */
    ir_attr_set_int(g, n, "packed", 1);
    cr_assert_eq(lowp_apply(g, NULL, 1, d), 0);
    cr_assert_eq(ir_attr_int(n, "wfmt", 0), LSTMC_RT_WFMT_FP16);
    cr_assert_eq(n->inputs[1]->dtype, IR_DT_I32);
    cr_assert_eq(n->inputs[1]->shape.d[0], 2);                       /* 4 halves in 2 words */
    cr_assert_eq(((const unsigned char *)n->inputs[1]->data)[4], 0); /* the weight 0.0 */
    cr_assert_eq(((const unsigned char *)n->inputs[1]->data)[5], 0);
    arena_free(a);
}
