/*
 * test_onnx.c — the ONNX frontend on small models built here with the generated
 * protobuf-c structs, packed to a temporary file and imported. Expected values come from
 * the ONNX operator spec (defaults, normalised forms), not from lstmc's output.
 */
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "onnx.h"
#include "onnx/onnx.pb-c.h"
#include "wfmt.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static arena *A;
static diag *D;
static char dir[64];

static void
setup(void)
{
    A = arena_new(0);
    D = diag_new(A, "model.onnx", NULL);
    strcpy(dir, "/tmp/lstmc_test_onnx_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void
teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    arena_free(A);
}

TestSuite(onnx, .init = setup, .fini = teardown);

/* --- model builder ---------------------------------------------------------------- */

#define MAXN 32

typedef struct mb {
    Onnx__ModelProto m;
    Onnx__GraphProto g;
    Onnx__OperatorSetIdProto opset;
    Onnx__OperatorSetIdProto *opsets[1];
    Onnx__NodeProto *nodes[MAXN];
    Onnx__TensorProto *inits[MAXN];
    Onnx__ValueInfoProto *inputs[MAXN], *outputs[MAXN];
} mb;

static mb *
model_new(int opset)
{
    mb *b = arena_alloc(A, sizeof *b);
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    Onnx__OperatorSetIdProto o = ONNX__OPERATOR_SET_ID_PROTO__INIT;
    b->m = m;
    b->g = g;
    b->opset = o;
    b->opset.domain = (char *)"";
    b->opset.has_version = 1;
    b->opset.version = opset;
    b->opsets[0] = &b->opset;
    b->m.has_ir_version = 1;
    b->m.ir_version = 8;
    b->m.n_opset_import = 1;
    b->m.opset_import = b->opsets;
    b->m.graph = &b->g;
    b->g.name = (char *)"test";
    b->g.node = b->nodes;
    b->g.initializer = b->inits;
    b->g.input = b->inputs;
    b->g.output = b->outputs;
    return b;
}

/* Split "a,b,,c" into an arena array of strings ("" kept). */
static char **
split(const char *s, size_t *n)
{
    char **v = arena_calloc(A, 16, sizeof *v);
    const char *p = s;
    *n = 0;
    if (!*s)
        return v;
    for (;;) {
        size_t l = strcspn(p, ",");
        char *e = arena_alloc(A, l + 1);
        memcpy(e, p, l);
        v[(*n)++] = e;
        if (!p[l])
            break;
        p += l + 1;
    }
    return v;
}

static Onnx__NodeProto *
node(mb *b, const char *op, const char *name, const char *ins, const char *outs)
{
    Onnx__NodeProto *np = arena_alloc(A, sizeof *np);
    Onnx__NodeProto init = ONNX__NODE_PROTO__INIT;
    *np = init;
    np->op_type = (char *)op;
    np->name = (char *)name;
    np->input = split(ins, &np->n_input);
    np->output = split(outs, &np->n_output);
    np->attribute = arena_calloc(A, 16, sizeof *np->attribute);
    b->nodes[b->g.n_node++] = np;
    return np;
}

static Onnx__AttributeProto *
attr(Onnx__NodeProto *np, const char *name, Onnx__AttributeProto__AttributeType t)
{
    Onnx__AttributeProto *at = arena_alloc(A, sizeof *at);
    Onnx__AttributeProto init = ONNX__ATTRIBUTE_PROTO__INIT;
    *at = init;
    at->name = (char *)name;
    at->has_type = 1;
    at->type = t;
    np->attribute[np->n_attribute++] = at;
    return at;
}

static void
attr_int(Onnx__NodeProto *np, const char *name, int64_t v)
{
    Onnx__AttributeProto *at = attr(np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    at->has_i = 1;
    at->i = v;
}

static void
attr_float(Onnx__NodeProto *np, const char *name, float v)
{
    Onnx__AttributeProto *at = attr(np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    at->has_f = 1;
    at->f = v;
}

static void
attr_string(Onnx__NodeProto *np, const char *name, const char *v)
{
    Onnx__AttributeProto *at = attr(np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    at->has_s = 1;
    at->s.data = (uint8_t *)v;
    at->s.len = strlen(v);
}

static void
attr_ints(Onnx__NodeProto *np, const char *name, int n, const int64_t *v)
{
    Onnx__AttributeProto *at = attr(np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    at->n_ints = (size_t)n;
    at->ints = (int64_t *)v;
}

static void
attr_floats(Onnx__NodeProto *np, const char *name, int n, const float *v)
{
    Onnx__AttributeProto *at = attr(np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    at->n_floats = (size_t)n;
    at->floats = (float *)v;
}

static void
attr_strings(Onnx__NodeProto *np, const char *name, const char *csv)
{
    Onnx__AttributeProto *at = attr(np, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
    size_t n, i;
    char **v = split(csv, &n);
    at->n_strings = n;
    at->strings = arena_calloc(A, n + 1, sizeof *at->strings);
    for (i = 0; i < n; i++) {
        at->strings[i].data = (uint8_t *)v[i];
        at->strings[i].len = strlen(v[i]);
    }
}

static Onnx__TensorProto *
tensor(const char *name, int32_t dtype, int rank, const int64_t *dims)
{
    Onnx__TensorProto *tp = arena_alloc(A, sizeof *tp);
    Onnx__TensorProto init = ONNX__TENSOR_PROTO__INIT;
    *tp = init;
    tp->name = (char *)name;
    tp->has_data_type = 1;
    tp->data_type = dtype;
    tp->n_dims = (size_t)rank;
    tp->dims = (int64_t *)dims;
    return tp;
}

/* A FLOAT initializer with float_data holding n values 0, 1, 2, ... */
static Onnx__TensorProto *
init_f32(mb *b, const char *name, int rank, const int64_t *dims, size_t n)
{
    Onnx__TensorProto *tp = tensor(name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, rank, dims);
    size_t i;
    tp->n_float_data = n;
    tp->float_data = arena_calloc(A, n + 1, sizeof(float));
    for (i = 0; i < n; i++)
        tp->float_data[i] = (float)i;
    b->inits[b->g.n_initializer++] = tp;
    return tp;
}

static Onnx__ValueInfoProto *
value_info(const char *name, int32_t elem, int rank, const int64_t *dims, const char *const *syms)
{
    Onnx__ValueInfoProto *vi = arena_alloc(A, sizeof *vi);
    Onnx__ValueInfoProto vinit = ONNX__VALUE_INFO_PROTO__INIT;
    Onnx__TypeProto *tp = arena_alloc(A, sizeof *tp);
    Onnx__TypeProto tinit = ONNX__TYPE_PROTO__INIT;
    Onnx__TypeProto__Tensor *tt = arena_alloc(A, sizeof *tt);
    Onnx__TypeProto__Tensor ttinit = ONNX__TYPE_PROTO__TENSOR__INIT;
    Onnx__TensorShapeProto *sp = arena_alloc(A, sizeof *sp);
    Onnx__TensorShapeProto sinit = ONNX__TENSOR_SHAPE_PROTO__INIT;
    int i;
    *vi = vinit;
    *tp = tinit;
    *tt = ttinit;
    *sp = sinit;
    vi->name = (char *)name;
    vi->type = tp;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    tt->has_elem_type = 1;
    tt->elem_type = elem;
    if (rank >= 0) {
        tt->shape = sp;
        sp->n_dim = (size_t)rank;
        sp->dim = arena_calloc(A, (size_t)rank + 1, sizeof *sp->dim);
        for (i = 0; i < rank; i++) {
            Onnx__TensorShapeProto__Dimension *dm = arena_alloc(A, sizeof *dm);
            Onnx__TensorShapeProto__Dimension dinit = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
            *dm = dinit;
            if (syms && syms[i]) {
                dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
                dm->dim_param = (char *)syms[i];
            } else if (dims[i] >= 0) {
                dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
                dm->dim_value = dims[i];
            }
            sp->dim[i] = dm;
        }
    }
    return vi;
}

static void
input(mb *b, const char *name, int rank, const int64_t *dims, const char *const *syms)
{
    b->inputs[b->g.n_input++] =
        value_info(name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, rank, dims, syms);
}

static void
output(mb *b, const char *name)
{
    b->outputs[b->g.n_output++] =
        value_info(name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, -1, NULL, NULL);
}

static const char *
write_bytes(const char *file, const void *buf, size_t len)
{
    char *path = arena_printf(A, "%s/%s", dir, file);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    if (len)
        cr_assert_eq(fwrite(buf, 1, len, f), len);
    fclose(f);
    return path;
}

static const char *
write_model(mb *b, size_t *len_out)
{
    size_t len = onnx__model_proto__get_packed_size(&b->m);
    uint8_t *buf = arena_alloc(A, len);
    cr_assert_eq(onnx__model_proto__pack(&b->m, buf), len);
    if (len_out)
        *len_out = len;
    return write_bytes("model.onnx", buf, len);
}

static ir_graph *
import(mb *b)
{
    return onnx_import(write_model(b, NULL), A, D);
}

static ir_node *
find_node(ir_graph *g, const char *name)
{
    int i;
    for (i = 0; i < g->n_nodes; i++)
        if (strcmp(g->nodes[i]->name, name) == 0)
            return g->nodes[i];
    cr_assert_fail("no node '%s'", name);
    return NULL;
}

static void
expect_error(const char *want)
{
    cr_assert(strstr(diag_text(D), want), "expected error containing\n  %s\ngot\n  %s", want,
              diag_text(D));
}

/* An LSTM with I=3, H=4, D directions: X input [seq,2,3], W, R, B initializers. */
static Onnx__NodeProto *
lstm_model(mb *b, int n_dirs, const char *ins, const char *outs)
{
    static int64_t xd[3] = {-1, 2, 3};
    static const char *const xs[3] = {"seq", NULL, NULL};
    static int64_t wd[2][3] = {{1, 16, 3}, {2, 16, 3}}, rd[2][3] = {{1, 16, 4}, {2, 16, 4}};
    static int64_t bd[2][2] = {{1, 32}, {2, 32}};
    Onnx__NodeProto *np;
    size_t n, i;
    char **o;
    input(b, "X", 3, xd, xs);
    init_f32(b, "W", 3, wd[n_dirs - 1], (size_t)n_dirs * 48);
    init_f32(b, "R", 3, rd[n_dirs - 1], (size_t)n_dirs * 64);
    init_f32(b, "B", 2, bd[n_dirs - 1], (size_t)n_dirs * 32);
    np = node(b, "LSTM", "lstm_1", ins, outs);
    attr_int(np, "hidden_size", 4);
    o = split(outs, &n);
    for (i = 0; i < n; i++)
        if (o[i][0])
            output(b, o[i]);
    return np;
}

/* --- recurrent layers -------------------------------------------------------------- */

Test(onnx, lstm_defaults_normalised)
{
    mb *b = model_new(14);
    ir_graph *g;
    ir_node *n;
    const ir_attr *at;
    lstm_model(b, 1, "X,W,R,B", "Y,,Y_c");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "lstm_1");
    cr_assert_eq(n->op, IR_OP_LSTM);
    cr_assert_eq(n->n_inputs, 8);
    cr_assert_eq(n->n_outputs, 3);
    cr_assert_str_eq(n->inputs[1]->name, "W");
    cr_assert_null(n->inputs[4]);
    cr_assert_null(n->inputs[7]);
    cr_assert_str_eq(n->outputs[0]->name, "Y");
    cr_assert_null(n->outputs[1]);
    cr_assert_str_eq(n->outputs[2]->name, "Y_c");
    cr_assert_eq(ir_attr_int(n, "hidden_size", -1), 4);
    cr_assert_eq(ir_attr_int(n, "direction", -1), 0);
    cr_assert_eq(ir_attr_int(n, "layout", -1), 0);
    cr_assert_eq(ir_attr_int(n, "input_forget", -1), 0);
    cr_assert_null(ir_attr_get(n, "clip"));
    /* spec defaults: f = Sigmoid, g = Tanh, h = Tanh */
    at = ir_attr_get(n, "activations");
    cr_assert_not_null(at);
    cr_assert_eq(at->kind, IR_ATTR_INTS);
    cr_assert_eq(at->n, 3);
    cr_assert_eq(at->ints[0], 0);
    cr_assert_eq(at->ints[1], 1);
    cr_assert_eq(at->ints[2], 1);
    at = ir_attr_get(n, "activation_alpha");
    cr_assert_eq(at->kind, IR_ATTR_FLOATS);
    cr_assert_eq(at->n, 3);
    /* graph input with a dim_param stays symbolic */
    cr_assert_eq(g->n_inputs, 1);
    cr_assert_eq(g->inputs[0]->shape.rank, 3);
    cr_assert_lt(g->inputs[0]->shape.d[0], 0);
    cr_assert_str_eq(g->inputs[0]->shape.sym[0], "seq");
    cr_assert_eq(g->inputs[0]->shape.d[1], 2);
    cr_assert_eq(g->inputs[0]->dtype, IR_DT_F32);
    /* initializers are constants with their data */
    cr_assert_not_null(n->inputs[1]->data);
    cr_assert_eq(n->inputs[1]->shape.d[1], 16);
    cr_assert_float_eq(((float *)n->inputs[1]->data)[47], 47.0f, 0);
    cr_assert_eq(g->n_outputs, 2);
}

Test(onnx, lstm_bidirectional_activations_and_params)
{
    static const float alpha[] = {0.3f, 0.7f};
    static const float beta[] = {0.55f};
    mb *b = model_new(14);
    Onnx__NodeProto *np = lstm_model(b, 2, "X,W,R,B", "Y,Y_h");
    ir_graph *g;
    ir_node *n;
    const ir_attr *k, *al, *be;
    attr_string(np, "direction", "bidirectional");
    attr_int(np, "layout", 0);
    attr_float(np, "clip", 2.5f);
    attr_int(np, "input_forget", 1);
    /* alpha consumed by HardSigmoid (0.3), Elu (0.7), then LeakyRelu defaults to 0.01;
     * beta by HardSigmoid (0.55), ScaledTanh defaults to 1.0 */
    attr_strings(np, "activations", "Sigmoid,Tanh,HardSigmoid,Elu,LeakyRelu,ScaledTanh");
    attr_floats(np, "activation_alpha", 2, alpha);
    attr_floats(np, "activation_beta", 1, beta);
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "lstm_1");
    cr_assert_eq(ir_attr_int(n, "direction", -1), 2);
    cr_assert_eq(ir_attr_int(n, "input_forget", -1), 1);
    cr_assert_float_eq(ir_attr_float(n, "clip", 0), 2.5f, 0);
    k = ir_attr_get(n, "activations");
    al = ir_attr_get(n, "activation_alpha");
    be = ir_attr_get(n, "activation_beta");
    cr_assert_eq(k->n, 6);
    cr_assert_eq(al->n, 6);
    cr_assert_eq(be->n, 6);
    {
        static const int64_t want_k[6] = {0, 1, 3, 8, 5, 7};
        static const float want_a[6] = {0, 0, 0.3f, 0.7f, 0.01f, 1.0f};
        static const float want_b[6] = {0, 0, 0.55f, 0, 0, 1.0f};
        int i;
        for (i = 0; i < 6; i++) {
            cr_assert_eq(k->ints[i], want_k[i], "activation %d", i);
            cr_assert_float_eq(al->floats[i], want_a[i], 1e-7, "alpha %d", i);
            cr_assert_float_eq(be->floats[i], want_b[i], 1e-7, "beta %d", i);
        }
    }
}

Test(onnx, activation_defaults_per_function)
{
    /* no alpha/beta given: every function takes its operator's default */
    mb *b = model_new(14);
    Onnx__NodeProto *np = lstm_model(b, 2, "X,W,R,B", "Y");
    const ir_attr *al, *be;
    ir_graph *g;
    ir_node *n;
    attr_string(np, "direction", "bidirectional");
    attr_strings(np, "activations", "ThresholdedRelu,Affine,HardSigmoid,Elu,ScaledTanh,LeakyRelu");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "lstm_1");
    al = ir_attr_get(n, "activation_alpha");
    be = ir_attr_get(n, "activation_beta");
    cr_assert_float_eq(al->floats[0], 1.0f, 0); /* ThresholdedRelu */
    cr_assert_float_eq(al->floats[1], 1.0f, 0); /* Affine */
    cr_assert_float_eq(be->floats[1], 0.0f, 0);
    cr_assert_float_eq(al->floats[2], 0.2f, 0); /* HardSigmoid */
    cr_assert_float_eq(be->floats[2], 0.5f, 0);
    cr_assert_float_eq(al->floats[3], 1.0f, 0); /* Elu */
    cr_assert_float_eq(al->floats[4], 1.0f, 0); /* ScaledTanh */
    cr_assert_float_eq(be->floats[4], 1.0f, 0);
    cr_assert_float_eq(al->floats[5], 0.01f, 0); /* LeakyRelu */
}

Test(onnx, gru_and_rnn_slots)
{
    mb *b = model_new(7);
    static int64_t xd[3] = {5, 1, 3}, wd[3] = {1, 12, 3}, rd[3] = {1, 12, 4};
    static int64_t wr[3] = {1, 4, 3}, rr[3] = {1, 4, 4};
    Onnx__NodeProto *np;
    ir_graph *g;
    ir_node *n;
    input(b, "X", 3, xd, NULL);
    init_f32(b, "W", 3, wd, 36);
    init_f32(b, "R", 3, rd, 48);
    init_f32(b, "Wr", 3, wr, 12);
    init_f32(b, "Rr", 3, rr, 16);
    np = node(b, "GRU", "gru", "X,W,R", "Y,Y_h");
    attr_int(np, "hidden_size", 4);
    attr_int(np, "linear_before_reset", 1);
    np = node(b, "RNN", "rnn", "X,Wr,Rr", ",H");
    attr_int(np, "hidden_size", 4);
    attr_string(np, "direction", "reverse");
    output(b, "Y");
    output(b, "Y_h");
    output(b, "H");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "gru");
    cr_assert_eq(n->n_inputs, 6);
    cr_assert_eq(n->n_outputs, 2);
    cr_assert_eq(ir_attr_int(n, "linear_before_reset", -1), 1);
    cr_assert_eq(ir_attr_get(n, "activations")->n, 2);
    cr_assert_eq(ir_attr_get(n, "activations")->ints[0], 0); /* Sigmoid */
    cr_assert_eq(ir_attr_get(n, "activations")->ints[1], 1); /* Tanh */
    n = find_node(g, "rnn");
    cr_assert_eq(n->op, IR_OP_RNN);
    cr_assert_eq(ir_attr_int(n, "direction", -1), 1);
    cr_assert_null(n->outputs[0]);
    cr_assert_str_eq(n->outputs[1]->name, "H");
    cr_assert_eq(ir_attr_get(n, "activations")->n, 1);
    cr_assert_eq(ir_attr_get(n, "activations")->ints[0], 1); /* Tanh */
}

Test(onnx, hidden_size_out_of_range)
{
    mb *b = model_new(14);
    Onnx__NodeProto *np = lstm_model(b, 1, "X,W,R,B", "Y");
    np->attribute[0]->i = (int64_t)1 << 40;
    cr_assert_null(import(b));
    expect_error("model.onnx: node 'lstm_1' (LSTM): attribute 'hidden_size' is 1099511627776; "
                 "expected 1 to 1048576");
}

Test(onnx, rnn_attribute_errors)
{
    mb *b = model_new(14);
    Onnx__NodeProto *np = lstm_model(b, 1, "X,W,R,B", "Y");
    np->attribute[0]->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    np->attribute[0]->has_f = 1;
    attr_int(np, "layout", 2);
    attr_strings(np, "activations", "Sigmoid,Tanh");
    cr_assert_null(import(b));
    expect_error("node 'lstm_1' (LSTM): attribute 'hidden_size' has type FLOAT; expected INT");
    expect_error("node 'lstm_1' (LSTM): attribute 'layout' is 2; expected 0 or 1");
    expect_error("node 'lstm_1' (LSTM): attribute 'activations' has 2 names; LSTM with 1 "
                 "direction needs 3");
}

Test(onnx, rnn_bad_direction_and_activation_name)
{
    mb *b = model_new(14);
    Onnx__NodeProto *np = lstm_model(b, 1, "X,W,R,B", "Y");
    Onnx__NodeProto *np2;
    attr_string(np, "direction", "sideways");
    np2 = node(b, "GRU", "gru_2", "X,W,R", "Z");
    attr_int(np2, "hidden_size", 4);
    attr_strings(np2, "activations", "Sigmoid,Swish");
    cr_assert_null(import(b));
    expect_error("node 'lstm_1' (LSTM): attribute 'direction' is \"sideways\"; expected "
                 "forward, reverse or bidirectional");
    expect_error("node 'gru_2' (GRU): attribute 'activations' names 'Swish'");
}

/* --- older opsets normalised ------------------------------------------------------- */

Test(onnx, squeeze_opset11_axes_become_input)
{
    static int64_t xd[3] = {1, 2, 1};
    static const int64_t axes[2] = {0, -1};
    mb *b = model_new(11);
    Onnx__NodeProto *np;
    ir_graph *g;
    ir_node *n;
    const int64_t *v;
    input(b, "X", 3, xd, NULL);
    np = node(b, "Squeeze", "sq", "X", "Y");
    attr_ints(np, "axes", 2, axes);
    np = node(b, "Unsqueeze", "usq", "Y", "Z");
    attr_ints(np, "axes", 1, axes);
    output(b, "Z");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "sq");
    cr_assert_eq(n->op, IR_OP_SQUEEZE);
    cr_assert_eq(n->n_inputs, 2);
    cr_assert_not_null(n->inputs[1]);
    cr_assert_eq(n->inputs[1]->dtype, IR_DT_I64);
    cr_assert_eq(n->inputs[1]->shape.rank, 1);
    cr_assert_eq(n->inputs[1]->shape.d[0], 2);
    v = n->inputs[1]->data;
    cr_assert_eq(v[0], 0);
    cr_assert_eq(v[1], -1);
    cr_assert_null(ir_attr_get(n, "axes"));
    n = find_node(g, "usq");
    cr_assert_eq(n->n_inputs, 2);
    cr_assert_eq(((const int64_t *)n->inputs[1]->data)[0], 0);
}

Test(onnx, squeeze_opset13_input_passes_through)
{
    static int64_t xd[2] = {1, 4};
    static int64_t ad[1] = {1};
    mb *b = model_new(13);
    Onnx__TensorProto *tp;
    ir_graph *g;
    ir_node *n;
    input(b, "X", 2, xd, NULL);
    tp = tensor("axes", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, ad);
    tp->n_int64_data = 1;
    tp->int64_data = arena_calloc(A, 1, 8);
    b->inits[b->g.n_initializer++] = tp;
    node(b, "Squeeze", "sq", "X,axes", "Y");
    node(b, "Squeeze", "sq_all", "X", "Y2");
    output(b, "Y");
    output(b, "Y2");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "sq");
    cr_assert_str_eq(n->inputs[1]->name, "axes");
    n = find_node(g, "sq_all");
    cr_assert_eq(n->n_inputs, 2);
    cr_assert_null(n->inputs[1]);
}

Test(onnx, slice_opset9_attributes_become_inputs)
{
    static int64_t xd[2] = {4, 6};
    static const int64_t starts[2] = {1, 0}, ends[2] = {3, -1}, axes[2] = {0, 1};
    mb *b = model_new(9);
    Onnx__NodeProto *np;
    ir_graph *g;
    ir_node *n;
    input(b, "X", 2, xd, NULL);
    np = node(b, "Slice", "sl", "X", "Y");
    attr_ints(np, "starts", 2, starts);
    attr_ints(np, "ends", 2, ends);
    attr_ints(np, "axes", 2, axes);
    output(b, "Y");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "sl");
    cr_assert_eq(n->n_inputs, 5);
    cr_assert_eq(((const int64_t *)n->inputs[1]->data)[0], 1);
    cr_assert_eq(((const int64_t *)n->inputs[2]->data)[1], -1);
    cr_assert_eq(((const int64_t *)n->inputs[3]->data)[1], 1);
    cr_assert_null(n->inputs[4]);
}

Test(onnx, slice_opset11_inputs)
{
    static int64_t xd[1] = {10};
    mb *b = model_new(11);
    ir_graph *g;
    ir_node *n;
    input(b, "X", 1, xd, NULL);
    input(b, "s", 1, (int64_t[]){1}, NULL);
    input(b, "e", 1, (int64_t[]){1}, NULL);
    node(b, "Slice", "sl", "X,s,e,,", "Y");
    output(b, "Y");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "sl");
    cr_assert_eq(n->n_inputs, 5);
    cr_assert_str_eq(n->inputs[1]->name, "s");
    cr_assert_null(n->inputs[3]);
}

Test(onnx, softmax_cast_argmax_defaults)
{
    static int64_t xd[2] = {2, 3};
    mb *b = model_new(11);
    Onnx__NodeProto *np;
    ir_graph *g;
    ir_node *n;
    input(b, "X", 2, xd, NULL);
    node(b, "Softmax", "sm", "X", "S");
    np = node(b, "Cast", "c", "X", "C");
    attr_int(np, "to", ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
    node(b, "ArgMax", "am", "X", "A");
    node(b, "Transpose", "tr", "X", "T");
    node(b, "ConstantOfShape", "cos", "A", "Z");
    output(b, "S");
    output(b, "C");
    output(b, "T");
    output(b, "Z");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "sm");
    cr_assert_eq(ir_attr_int(n, "axis", -7), 1); /* opset < 13 default */
    cr_assert_eq(ir_attr_int(n, "legacy", -7), 1);
    n = find_node(g, "c");
    cr_assert_eq(ir_attr_int(n, "to", -7), IR_DT_I64);
    n = find_node(g, "am");
    cr_assert_eq(ir_attr_int(n, "axis", -7), 0);
    cr_assert_eq(ir_attr_int(n, "keepdims", -7), 1);
    cr_assert_eq(ir_attr_int(n, "select_last_index", -7), 0);
    n = find_node(g, "tr");
    cr_assert_eq(ir_attr_get(n, "perm")->n, 2);
    cr_assert_eq(ir_attr_get(n, "perm")->ints[0], 1);
    cr_assert_eq(ir_attr_get(n, "perm")->ints[1], 0);
    n = find_node(g, "cos");
    cr_assert_eq(ir_attr_get(n, "value")->kind, IR_ATTR_TENSOR);
    cr_assert_eq(ir_attr_get(n, "value")->t->dtype, IR_DT_F32);
    cr_assert_float_eq(*(float *)ir_attr_get(n, "value")->t->data, 0.0f, 0);
}

Test(onnx, softmax_opset13_default_axis)
{
    static int64_t xd[2] = {2, 3};
    mb *b = model_new(13);
    ir_graph *g;
    input(b, "X", 2, xd, NULL);
    node(b, "LogSoftmax", "lsm", "X", "S");
    output(b, "S");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    cr_assert_eq(ir_attr_int(find_node(g, "lsm"), "axis", -7), -1);
    cr_assert_eq(ir_attr_int(find_node(g, "lsm"), "legacy", -7), 0);
}

Test(onnx, constant_nodes_become_constants)
{
    static int64_t xd[2] = {2, 3};
    static int64_t cd[1] = {2};
    static const int64_t shape[2] = {3, 2};
    mb *b = model_new(13);
    Onnx__NodeProto *np;
    Onnx__TensorProto *tp;
    ir_graph *g;
    ir_tensor *t;
    input(b, "X", 2, xd, NULL);
    np = node(b, "Constant", "k1", "", "shape");
    attr_ints(np, "value_ints", 2, shape);
    np = node(b, "Constant", "k2", "", "two");
    tp = tensor("", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, cd);
    tp->has_raw_data = 1;
    tp->raw_data.len = 8;
    tp->raw_data.data = arena_alloc(A, 8);
    ((float *)tp->raw_data.data)[0] = 2.0f;
    ((float *)tp->raw_data.data)[1] = -0.5f;
    attr(np, "value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR)->t = tp;
    np = node(b, "Constant", "k3", "", "half");
    attr_float(np, "value_float", 0.5f);
    node(b, "Reshape", "rs", "X,shape", "Y");
    output(b, "Y");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    cr_assert_eq(g->n_nodes, 1); /* only the Reshape */
    t = ir_tensor_find(g, "shape");
    cr_assert_null(t->producer);
    cr_assert_eq(t->dtype, IR_DT_I64);
    cr_assert_eq(t->shape.rank, 1);
    cr_assert_eq(((int64_t *)t->data)[1], 2);
    t = ir_tensor_find(g, "two");
    cr_assert_eq(t->dtype, IR_DT_F32);
    cr_assert_float_eq(((float *)t->data)[1], -0.5f, 0);
    t = ir_tensor_find(g, "half");
    cr_assert_eq(t->shape.rank, 0);
    cr_assert_float_eq(*(float *)t->data, 0.5f, 0);
    cr_assert_eq(ir_attr_int(find_node(g, "rs"), "allowzero", -1), 0);
}

/* --- errors ------------------------------------------------------------------------- */

/* ONNX Runtime's quantisers' own operators (QOperator format): where they came from, and the
 * float model (or the QDQ format) instead */
Test(onnx, ort_quantised_ops_say_what_to_give_instead)
{
    static int64_t xd[3] = {5, 1, 3};
    mb *b = model_new(13);
    Onnx__NodeProto *np;
    input(b, "X", 3, xd, NULL);
    np = node(b, "DynamicQuantizeLSTM", "dq_lstm", "X", "Y");
    np->domain = (char *)"com.microsoft";
    output(b, "Y");
    cr_assert_null(import(b));
    expect_error("node 'dq_lstm' (DynamicQuantizeLSTM): unsupported operator "
                 "'DynamicQuantizeLSTM' (domain 'com.microsoft'; written by ONNX Runtime's "
                 "quantize_dynamic / quantize_static (QOperator format): give lstmc the float "
                 "model: --weights=int8");
}

Test(onnx, every_unsupported_node_listed)
{
    static int64_t xd[2] = {2, 3};
    mb *b = model_new(13);
    Onnx__NodeProto *np;
    input(b, "X", 2, xd, NULL);
    node(b, "Einsum", "ein_1", "X", "A");
    node(b, "Relu", "relu_1", "A", "B");
    node(b, "Frobnicate", "", "B", "C");
    np = node(b, "LSTM", "ms_lstm", "C", "D");
    np->domain = (char *)"com.microsoft";
    output(b, "D");
    cr_assert_null(import(b));
    expect_error("model.onnx: node 'ein_1' (Einsum): unsupported operator 'Einsum'");
    expect_error("Frobnicate node #2 (unnamed): unsupported operator 'Frobnicate'");
    expect_error("node 'ms_lstm' (LSTM): unsupported operator 'LSTM' (domain 'com.microsoft')");
    /* issue 20: the PyTorch construct behind an op the hint table knows, and a last line
     * saying the unsupported ops are the only obstacle (relu_1 reads ein_1's result) */
    expect_error("unsupported operator 'Einsum' (in PyTorch usually from torch.einsum)");
    expect_error("3 of the 4 nodes use operators lstmc does not support (Einsum, Frobnicate, LSTM "
                 "(com.microsoft)); they are the only obstacle the import found: every other "
                 "node is supported as written (1 of them read their results");
    cr_assert_eq(diag_count(D), 4, "%s", diag_text(D));
}

Test(onnx, bad_initializer_dims)
{
    static int64_t wd[2] = {2, 3}, nd[2] = {2, -3}, huge[2] = {(int64_t)1 << 20, (int64_t)1 << 20};
    mb *b = model_new(13);
    Onnx__TensorProto *tp;
    init_f32(b, "W", 2, wd, 5);
    init_f32(b, "Neg", 2, nd, 0);
    init_f32(b, "Huge", 2, huge, 0);
    tp = init_f32(b, "Raw", 2, wd, 0);
    tp->has_raw_data = 1;
    tp->raw_data.len = 20;
    tp->raw_data.data = arena_alloc(A, 20);
    tp = tensor("Str", ONNX__TENSOR_PROTO__DATA_TYPE__STRING, 1, wd);
    b->inits[b->g.n_initializer++] = tp;
    node(b, "Identity", "id", "W", "Y");
    output(b, "Y");
    cr_assert_null(import(b));
    expect_error("model.onnx: tensor 'W': float_data has 5 values; dims [2,3] need 6");
    expect_error("tensor 'Neg': has a negative dim in dims [2,-3]");
    expect_error("tensor 'Huge': dims [1048576,1048576] hold more than 2147483648 elements");
    expect_error("tensor 'Raw': raw_data has 20 bytes; dims [2,3] of FLOAT need 24");
    expect_error("tensor 'Str': has element type STRING");
}

Test(onnx, external_data)
{
    static int64_t wd[1] = {3};
    static const float w[4] = {9.0f, 1.5f, -2.0f, 4.25f};
    mb *b = model_new(13);
    Onnx__TensorProto *tp;
    Onnx__StringStringEntryProto *kv[2],
        e[2] = {ONNX__STRING_STRING_ENTRY_PROTO__INIT, ONNX__STRING_STRING_ENTRY_PROTO__INIT};
    ir_graph *g;
    const float *v;
    write_bytes("w.bin", w, sizeof w);
    tp = tensor("W", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, wd);
    tp->has_data_location = 1;
    tp->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    e[0].key = (char *)"location";
    e[0].value = (char *)"w.bin";
    e[1].key = (char *)"offset";
    e[1].value = (char *)"4";
    kv[0] = &e[0];
    kv[1] = &e[1];
    tp->n_external_data = 2;
    tp->external_data = kv;
    b->inits[b->g.n_initializer++] = tp;
    node(b, "Identity", "id", "W", "Y");
    output(b, "Y");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    v = ir_tensor_find(g, "W")->data;
    cr_assert_float_eq(v[0], 1.5f, 0);
    cr_assert_float_eq(v[2], 4.25f, 0);

    /* the same model pointing at a missing file */
    e[0].value = (char *)"missing.bin";
    cr_assert_null(import(b));
    expect_error("tensor 'W': external data file '");
    expect_error("/missing.bin' cannot be opened: No such file or directory");

    /* and outside the model's folder */
    e[0].value = (char *)"../w.bin";
    cr_assert_null(import(b));
    expect_error("tensor 'W': external data location '../w.bin' must be a relative path");
}

Test(onnx, truncated_empty_and_random_files)
{
    mb *b = model_new(14);
    size_t len;
    const char *path;
    uint8_t *buf;
    FILE *f;
    unsigned i;
    lstm_model(b, 1, "X,W,R,B", "Y");
    path = write_model(b, &len);
    buf = arena_alloc(A, len);
    f = fopen(path, "rb");
    cr_assert_eq(fread(buf, 1, len, f), len);
    fclose(f);

    cr_assert_null(onnx_import(write_bytes("trunc.onnx", buf, len / 2), A, D));
    expect_error("not a valid ONNX model (");
    cr_assert_null(onnx_import(write_bytes("empty.onnx", buf, 0), A, D));
    expect_error("not a valid ONNX model (the file is empty)");
    srand(7);
    for (i = 0; i < len; i++)
        buf[i] = (uint8_t)rand();
    cr_assert_null(onnx_import(write_bytes("random.onnx", buf, len), A, D));
    cr_assert_null(onnx_import(arena_printf(A, "%s/nope.onnx", dir), A, D));
    expect_error("cannot open the model: No such file or directory");
}

Test(onnx, no_default_opset_and_missing_inputs)
{
    static int64_t xd[2] = {2, 3};
    mb *b = model_new(13);
    ir_graph *g;
    input(b, "X", 2, xd, NULL);
    node(b, "Add", "add", "X,nowhere", "Y");
    node(b, "MatMul", "mm", "X", "Z");
    output(b, "Y");
    output(b, "Z");
    g = import(b);
    cr_assert_null(g);
    expect_error("node 'mm' (MatMul): input 1 ('B') is required but missing");

    b->opset.domain = (char *)"ai.onnx.ml";
    cr_assert_null(import(b));
    expect_error("not a valid ONNX model (it imports no opset of the default domain)");
}

Test(onnx, dangling_input_reported)
{
    static int64_t xd[2] = {2, 3};
    mb *b = model_new(13);
    input(b, "X", 2, xd, NULL);
    node(b, "Add", "add", "X,nowhere", "Y");
    output(b, "Y");
    cr_assert_null(import(b));
    expect_error("node 'add' (Add): input 'nowhere' is not produced by any node, initializer "
                 "or graph input");
}

Test(onnx, output_produced_twice)
{
    static int64_t xd[2] = {2, 3};
    mb *b = model_new(13);
    input(b, "X", 2, xd, NULL);
    node(b, "Relu", "r1", "X", "Y");
    node(b, "Tanh", "r2", "X", "Y");
    output(b, "Y");
    cr_assert_null(import(b));
    expect_error("node 'r2' (Tanh): output 'Y' is also produced by node 'r1'");
}

/* --- reduced-precision weights ----------------------------------------------------- */

Test(onnx, half_and_bfloat16_initializers_become_exact_floats)
{
    static int64_t d[1] = {6};
    /* binary16: 1.0, -2.5, 65504 (max), 2^-24 (smallest subnormal), -0, inf */
    static const uint16_t h[6] = {0x3c00, 0xc100, 0x7bff, 0x0001, 0x8000, 0x7c00};
    static const float hv[6] = {1.0f, -2.5f, 65504.0f, 5.9604644775390625e-8f, -0.0f, INFINITY};
    /* bfloat16: 1.0, -3.0, 1/3 rounded (0x3eab = 0.333984375), 3.4e38ish (0x7f7f) */
    static const uint16_t bf[4] = {0x3f80, 0xc040, 0x3eab, 0x7f7f};
    static const float bv[4] = {1.0f, -3.0f, 0.333984375f, 3.38953139e38f};
    static int64_t bd[1] = {4};
    mb *b = model_new(13);
    Onnx__TensorProto *tp = tensor("H", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16, 1, d);
    ir_graph *g;
    const float *f;
    int i;
    tp->has_raw_data = 1;
    tp->raw_data.len = sizeof h;
    tp->raw_data.data = (uint8_t *)h;
    b->inits[b->g.n_initializer++] = tp;
    tp = tensor("BF", ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16, 1, bd);
    tp->n_int32_data = 4; /* the typed form: one value per int32 */
    tp->int32_data = arena_calloc(A, 4, sizeof(int32_t));
    for (i = 0; i < 4; i++)
        tp->int32_data[i] = bf[i];
    b->inits[b->g.n_initializer++] = tp;
    node(b, "Identity", "a", "H", "Y");
    node(b, "Identity", "b", "BF", "Z");
    output(b, "Y");
    output(b, "Z");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    f = ir_tensor_find(g, "H")->data;
    cr_assert_eq(ir_tensor_find(g, "H")->dtype, IR_DT_F32);
    for (i = 0; i < 6; i++)
        cr_assert(memcmp(&f[i], &hv[i], 4) == 0, "H[%d] = %a, want %a", i, f[i], hv[i]);
    f = ir_tensor_find(g, "BF")->data;
    for (i = 0; i < 4; i++)
        cr_assert_eq(f[i], bv[i], "BF[%d] = %a, want %a", i, f[i], bv[i]);
    cr_assert_eq(g->weights_hint, LSTMC_RT_WFMT_BF16); /* the coarser of the two formats seen */
}

Test(onnx, dequantize_linear_folds_per_channel_int8)
{
    static int64_t d[2] = {2, 3}, sd[1] = {2};
    static const int8_t q[6] = {-127, 0, 5, 127, -1, 2};
    static const float s[2] = {0.5f, 0.25f};
    static const int8_t z[2] = {0, 1};
    /* y = (q - z[row]) * s[row], axis 0 */
    static const float want[6] = {-63.5f, 0.0f, 2.5f, 31.5f, -0.5f, 0.25f};
    mb *b = model_new(13);
    Onnx__TensorProto *tp = tensor("Q", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 2, d);
    Onnx__NodeProto *np;
    ir_graph *g;
    const float *y, *qs;
    int i, nq;
    tp->has_raw_data = 1;
    tp->raw_data.len = 6;
    tp->raw_data.data = (uint8_t *)q;
    b->inits[b->g.n_initializer++] = tp;
    tp = tensor("S", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, sd);
    tp->n_float_data = 2;
    tp->float_data = (float *)s;
    b->inits[b->g.n_initializer++] = tp;
    tp = tensor("Z", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 1, sd);
    tp->has_raw_data = 1;
    tp->raw_data.len = 2;
    tp->raw_data.data = (uint8_t *)z;
    b->inits[b->g.n_initializer++] = tp;
    np = node(b, "DequantizeLinear", "dq", "Q,S,Z", "W");
    attr_int(np, "axis", 0);
    node(b, "Identity", "id", "W", "Y");
    output(b, "Y");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    y = ir_tensor_find(g, "W")->data;
    for (i = 0; i < 6; i++)
        cr_assert_eq(y[i], want[i], "W[%d] = %g, want %g", i, y[i], want[i]);
    cr_assert_eq(g->weights_hint, LSTMC_RT_WFMT_INT8);
    qs = ir_qscales(g, &nq); /* ascending */
    cr_assert_eq(nq, 2);
    cr_assert_eq(qs[0], 0.25f);
    cr_assert_eq(qs[1], 0.5f);
}

/* 16-bit integers (issue 22): INT16 weights behind DequantizeLinear fold to float with no
 * int8 hint nor candidate grid; a UINT16 QuantizeLinear / DequantizeLinear pair of an
 * activation becomes 16-bit lstmc.Quantize / .Dequantize, the zero point moved down by 32768 */
Test(onnx, sixteen_bit_weights_and_activations)
{
    static int64_t d[1] = {3}, xd[2] = {2, 3};
    static const uint8_t q[6] = {0x01, 0x80, 0xff, 0x7f, 0x02, 0x00}; /* -32767, 32767, 2 */
    static const float s = 0.5f, sa = 0.125f;
    static const float want[3] = {-16383.5f, 16383.5f, 1.0f};
    static int32_t za[1] = {40000};
    mb *b = model_new(21);
    Onnx__TensorProto *tp = tensor("Q", ONNX__TENSOR_PROTO__DATA_TYPE__INT16, 1, d);
    const ir_node *qn = NULL, *dqn = NULL;
    const float *y;
    ir_graph *g;
    int i, nq;
    tp->has_raw_data = 1; /* little-endian */
    tp->raw_data.len = 6;
    tp->raw_data.data = (uint8_t *)q;
    b->inits[b->g.n_initializer++] = tp;
    tp = tensor("S", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 0, NULL);
    tp->n_float_data = 1;
    tp->float_data = (float *)&s;
    b->inits[b->g.n_initializer++] = tp;
    tp = tensor("SA", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 0, NULL);
    tp->n_float_data = 1;
    tp->float_data = (float *)&sa;
    b->inits[b->g.n_initializer++] = tp;
    tp = tensor("ZA", ONNX__TENSOR_PROTO__DATA_TYPE__UINT16, 0, NULL); /* int32_data */
    tp->n_int32_data = 1;
    tp->int32_data = za;
    b->inits[b->g.n_initializer++] = tp;
    input(b, "X", 2, xd, NULL);
    node(b, "DequantizeLinear", "dq_w", "Q,S", "W");
    node(b, "QuantizeLinear", "q_x", "X,SA,ZA", "XQ");
    node(b, "DequantizeLinear", "dq_x", "XQ,SA,ZA", "XD");
    node(b, "Identity", "id", "W", "Y");
    node(b, "Identity", "id2", "XD", "Y2");
    output(b, "Y");
    output(b, "Y2");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    y = ir_tensor_find(g, "W")->data;
    for (i = 0; i < 3; i++)
        cr_assert_eq(y[i], want[i], "W[%d] = %g, want %g", i, y[i], want[i]);
    cr_assert_eq(g->weights_hint, LSTMC_RT_WFMT_FP32, "16-bit weights are no int8 hint");
    (void)ir_qscales(g, &nq);
    cr_assert_eq(nq, 0, "16-bit weights give no int8 grid");
    for (i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i]->op == IR_OP_QUANTIZE)
            qn = g->nodes[i];
        if (g->nodes[i]->op == IR_OP_DEQUANTIZE)
            dqn = g->nodes[i];
    }
    cr_assert(qn && dqn, "no lstmc.Quantize / .Dequantize");
    cr_assert_eq(ir_attr_int(qn, "bits", 0), 16);
    cr_assert_eq(ir_attr_int(dqn, "bits", 0), 16);
    cr_assert_eq(ir_attr_int(qn, "zero_point", 0), 40000 - 32768);
    cr_assert_eq(ir_attr_int(dqn, "zero_point", 0), 40000 - 32768);
    cr_assert_eq(ir_attr_float(qn, "scale", 0.0f), 0.125f);
}

Test(onnx, dequantize_and_int8_errors)
{
    static int64_t d[1] = {3};
    static const int8_t q[3] = {1, 2, 3};
    mb *b = model_new(21);
    Onnx__TensorProto *tp = tensor("Q", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 1, d);
    Onnx__NodeProto *np;
    tp->has_raw_data = 1;
    tp->raw_data.len = 3;
    tp->raw_data.data = (uint8_t *)q;
    b->inits[b->g.n_initializer++] = tp;
    init_f32(b, "S", 0, NULL, 1);
    input(b, "X", 1, d, NULL);
    node(b, "DequantizeLinear", "dq_act", "X,S", "A");      /* an activation */
    np = node(b, "DequantizeLinear", "dq_blk", "Q,S", "B"); /* blocked */
    attr_int(np, "block_size", 2);
    node(b, "Relu", "raw_int8", "Q", "C"); /* int8 read directly */
    output(b, "A");
    output(b, "B");
    output(b, "C");
    cr_assert_null(import(b));
    expect_error("node 'dq_act' (DequantizeLinear): input 'X' is not a constant nor a "
                 "QuantizeLinear's output: lstmc dequantises weights and the activations the "
                 "model quantises itself");
    expect_error("node 'dq_blk' (DequantizeLinear): attribute 'block_size' is 2");
    expect_error(
        "node 'raw_int8' (Relu): input 'Q' is INT8; lstmc reads 8- and 16-bit tensors only "
        "through DequantizeLinear");
}

/* --- issue 20, red: Reduce*, LayerNormalization, Pad, Split, TopK, ScatterElements ------- */

/* The constant input i of n as int64 values (the attribute form rewritten onto it). */
static void
expect_const_i64(const ir_node *n, int i, int cnt, const int64_t *want)
{
    const ir_tensor *t = ir_in(n, i);
    int k;
    cr_assert_not_null(t, "%s: input %d missing", n->name, i);
    cr_assert_not_null(t->data, "%s: input %d is not a constant", n->name, i);
    cr_assert_eq(t->dtype, IR_DT_I64);
    cr_assert_eq(ir_shape_numel(&t->shape), cnt);
    for (k = 0; k < cnt; k++)
        cr_assert_eq(((const int64_t *)t->data)[k], want[k], "%s: input %d[%d]", n->name, i, k);
}

/* ONNX spec: ReduceX's axes attribute (opset < 18; ReduceSum < 13) becomes input 1, and
 * keepdims defaults to 1; Pad-2's pads and value, Split-11's split and TopK-9's k become
 * inputs; Scatter (opset 9) is ScatterElements. */
Test(onnx, red_attribute_forms_become_inputs)
{
    static int64_t xd[3] = {2, 3, 4};
    static const int64_t ax[2] = {1, -1}, pads[6] = {0, 1, 0, 0, 2, 0}, sp[2] = {1, 2};
    static const int64_t three = 3;
    mb *b = model_new(9);
    Onnx__NodeProto *np;
    ir_graph *g;
    ir_node *n;
    input(b, "X", 3, xd, NULL);
    np = node(b, "ReduceMean", "rm", "X", "RM");
    attr_ints(np, "axes", 2, ax);
    np = node(b, "ReduceSum", "rs", "X", "RS");
    attr_int(np, "keepdims", 0);
    np = node(b, "Pad", "pd", "X", "P");
    attr_ints(np, "pads", 6, pads);
    attr_float(np, "value", 2.5f);
    attr_string(np, "mode", "edge");
    np = node(b, "Split", "sp", "X", "S0,S1");
    attr_int(np, "axis", 1);
    attr_ints(np, "split", 2, sp);
    np = node(b, "TopK", "tk", "X", "V,I");
    attr_int(np, "k", 3);
    node(b, "Scatter", "sc", "X,I,V", "SC");
    output(b, "RM");
    output(b, "RS");
    output(b, "P");
    output(b, "S1");
    output(b, "SC");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "rm");
    expect_const_i64(n, 1, 2, ax);
    cr_assert_eq(ir_attr_int(n, "keepdims", -7), 1);
    cr_assert_eq(ir_attr_int(n, "noop_with_empty_axes", -7), 0);
    n = find_node(g, "rs");
    cr_assert_null(ir_in(n, 1), "no axes: every axis");
    cr_assert_eq(ir_attr_int(n, "keepdims", -7), 0);
    n = find_node(g, "pd");
    expect_const_i64(n, 1, 6, pads);
    cr_assert_float_eq(*(const float *)ir_in(n, 2)->data, 2.5f, 0);
    cr_assert_str_eq(ir_attr_string(n, "mode", ""), "edge");
    n = find_node(g, "sp");
    expect_const_i64(n, 1, 2, sp);
    cr_assert_eq(n->n_outputs, 2);
    n = find_node(g, "tk");
    expect_const_i64(n, 1, 1, &three);
    cr_assert_eq(ir_attr_int(n, "axis", -7), -1);
    cr_assert_eq(ir_attr_int(n, "largest", -7), 1);
    cr_assert_eq(ir_attr_int(n, "sorted", -7), 1);
    n = find_node(g, "sc");
    cr_assert_eq(n->op, IR_OP_SCATTER_ELEMENTS);
    cr_assert_eq(ir_attr_int(n, "reduction", -7), 0);
}

/* LayerNormalization's defaults (axis -1, epsilon 1e-5); an empty Scale (PyTorch 1.13's
 * nn.LayerNorm(elementwise_affine=False) at opset 17) reads as one scale of 1. */
Test(onnx, red_layernorm_defaults_and_empty_scale)
{
    static int64_t xd[2] = {2, 4};
    mb *b = model_new(17);
    ir_graph *g;
    ir_node *n;
    input(b, "X", 2, xd, NULL);
    node(b, "LayerNormalization", "ln", "X,", "Y");
    output(b, "Y");
    g = import(b);
    cr_assert_not_null(g, "%s", diag_text(D));
    n = find_node(g, "ln");
    cr_assert_eq(ir_attr_int(n, "axis", -7), -1);
    cr_assert_float_eq(ir_attr_float(n, "epsilon", 0), 1e-5f, 1e-12);
    cr_assert_not_null(ir_in(n, 1));
    cr_assert_eq(ir_shape_numel(&ir_in(n, 1)->shape), 1);
    cr_assert_float_eq(*(const float *)ir_in(n, 1)->data, 1.0f, 0);
    cr_assert_null(ir_in(n, 2));
}

/* What lstmc does not run is refused by name, every node in one run. */
Test(onnx, red_refusals_name_the_attribute)
{
    static int64_t xd[2] = {2, 4};
    static int64_t two = 2;
    mb *b = model_new(18);
    Onnx__NodeProto *np;
    input(b, "X", 2, xd, NULL);
    init_f32(b, "g", 1, xd + 1, 4);
    init_f32(b, "pads", 1, xd + 1, 4);
    np = node(b, "LayerNormalization", "ln_stash", "X,g", "Y2");
    attr_int(np, "stash_type", 11);
    np = node(b, "Pad", "pad_wrap", "X,pads", "P");
    attr_string(np, "mode", "wrap");
    np = node(b, "ScatterElements", "sc_bad", "X,X,X", "SC");
    attr_string(np, "reduction", "mean");
    np = node(b, "Split", "sp_both", "X,spl", "S0,S1");
    attr_int(np, "num_outputs", 2);
    init_f32(b, "spl", 1, &two, 2);
    output(b, "Y");
    cr_assert_null(import(b));
    expect_error("node 'ln_stash' (LayerNormalization): attribute 'stash_type' is 11");
    expect_error("node 'pad_wrap' (Pad): attribute 'mode' is \"wrap\"");
    expect_error("node 'sc_bad' (ScatterElements): attribute 'reduction' is \"mean\"");
    expect_error("node 'sp_both' (Split): has both input 'split' and attribute 'num_outputs'");
}
