/*
 * test_ir.c — graph building, name lookup, topological order, cycles, dangling inputs,
 * dead-code removal and the diag prefixes.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <unistd.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "ir.h"

static arena *a;
static diag *d;
static ir_graph *g;

static void
setup(void)
{
    a = arena_new(0);
    d = diag_new(a, "m.onnx", NULL);
    g = ir_graph_new(a, "main", "m.onnx");
}

static void
teardown(void)
{
    arena_free(a);
}

TestSuite(ir, .init = setup, .fini = teardown);

static ir_shape
shp(int rank, int64_t d0, int64_t d1)
{
    ir_shape s = {0};
    s.rank = rank;
    s.d[0] = d0;
    s.d[1] = d1;
    return s;
}

static ir_node *
add(const char *name, ir_tensor *x, ir_tensor *y, ir_tensor *out)
{
    ir_node *n = ir_node_new(g, IR_OP_ADD, name, "Add", 2, 1);
    n->inputs[0] = x;
    n->inputs[1] = y;
    ir_node_set_output(n, 0, out);
    return n;
}

Test(ir, op_table_round_trips)
{
    int i;
    for (i = 0; i < IR_OP_COUNT; i++)
        cr_assert_eq(ir_op_from_name(ir_op_name((ir_op)i)), i);
    cr_assert_eq(ir_op_from_name("Einsum"), IR_OP_COUNT);
    cr_assert_str_eq(ir_op_name(IR_OP_LSTM), "LSTM");
}

Test(ir, names_are_unique_and_found)
{
    ir_shape s = shp(2, 2, 3);
    ir_tensor *t = ir_tensor_new(g, "x", IR_DT_F32, &s);
    int i;
    cr_assert_not_null(t);
    cr_assert_null(ir_tensor_new(g, "x", IR_DT_F32, &s));
    for (i = 0; i < 500; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%d", i);
        cr_assert_not_null(ir_tensor_new(g, name, IR_DT_F32, &s));
    }
    cr_assert_eq(ir_tensor_find(g, "x"), t);
    cr_assert_str_eq(ir_tensor_find(g, "t499")->name, "t499");
    cr_assert_null(ir_tensor_find(g, "nope"));
    cr_assert_eq(ir_shape_numel(&s), 6);
}

Test(ir, numel_refuses_overflow)
{
    ir_shape s = shp(2, (int64_t)1 << 40, (int64_t)1 << 40);
    cr_assert_eq(ir_shape_numel(&s), -2);
    s = shp(2, -1, 3);
    cr_assert_eq(ir_shape_numel(&s), -1);
}

Test(ir, toposort_orders_reversed_nodes)
{
    ir_shape s = shp(1, 4, 0);
    ir_tensor *x = ir_tensor_new(g, "x", IR_DT_F32, &s);
    ir_tensor *b = ir_tensor_new(g, "b", IR_DT_F32, &s);
    ir_tensor *c = ir_tensor_new(g, "c", IR_DT_F32, &s);
    ir_graph_add_input(g, x);
    add("second", b, x, c);
    add("first", x, x, b);
    ir_graph_add_output(g, c);
    cr_assert_eq(ir_toposort(g, d), 0);
    cr_assert_str_eq(g->nodes[0]->name, "first");
    cr_assert_str_eq(g->nodes[1]->name, "second");
}

Test(ir, cycle_is_reported_with_node_names)
{
    ir_shape s = shp(1, 4, 0);
    ir_tensor *x = ir_tensor_new(g, "x", IR_DT_F32, &s);
    ir_tensor *ta = ir_tensor_new(g, "a", IR_DT_F32, &s);
    ir_tensor *tb = ir_tensor_new(g, "b", IR_DT_F32, &s);
    ir_graph_add_input(g, x);
    add("add_a", x, tb, ta);
    add("add_b", ta, x, tb);
    ir_graph_add_output(g, ta);
    cr_assert_eq(ir_toposort(g, d), -1);
    cr_assert(strstr(diag_text(d), "m.onnx: node 'add_a' (Add): is part of a cycle"),
              "%s", diag_text(d));
    cr_assert(strstr(diag_text(d), "node 'add_b' (Add)"));
}

Test(ir, dangling_input_is_reported)
{
    ir_shape s = shp(1, 4, 0);
    ir_tensor *x = ir_tensor_new(g, "x", IR_DT_F32, &s);
    ir_tensor *w = ir_tensor_new(g, "W_missing", IR_DT_F32, &s);
    ir_tensor *y = ir_tensor_new(g, "y", IR_DT_F32, &s);
    ir_graph_add_input(g, x);
    add("mix", x, w, y);
    ir_graph_add_output(g, y);
    cr_assert_eq(ir_toposort(g, d), -1);
    cr_assert(strstr(diag_text(d), "node 'mix' (Add): input 'W_missing' is not produced"),
              "%s", diag_text(d));
}

Test(ir, dce_drops_unreachable_nodes)
{
    ir_shape s = shp(1, 4, 0);
    ir_tensor *x = ir_tensor_new(g, "x", IR_DT_F32, &s);
    ir_tensor *y = ir_tensor_new(g, "y", IR_DT_F32, &s);
    ir_tensor *z = ir_tensor_new(g, "z", IR_DT_F32, &s);
    ir_graph_add_input(g, x);
    add("used", x, x, y);
    add("unused", x, x, z);
    ir_graph_add_output(g, y);
    cr_assert_eq(ir_toposort(g, d), 0);
    ir_dce(g);
    cr_assert_eq(g->n_nodes, 1);
    cr_assert_str_eq(g->nodes[0]->name, "used");
}

Test(ir, attributes)
{
    ir_node *n = ir_node_new(g, IR_OP_LSTM, NULL, "LSTM", 8, 3);
    int64_t acts[3] = {0, 1, 1};
    ir_attr_set_int(g, n, "hidden_size", 32);
    ir_attr_set_float(g, n, "clip", 2.5f);
    ir_attr_set_ints(g, n, "activations", acts, 3);
    ir_attr_set_int(g, n, "hidden_size", 16); /* replaces */
    cr_assert_eq(ir_attr_int(n, "hidden_size", 0), 16);
    cr_assert_float_eq(ir_attr_float(n, "clip", 0), 2.5f, 0);
    cr_assert_eq(ir_attr_get(n, "activations")->n, 3);
    cr_assert_eq(ir_attr_int(n, "layout", 7), 7);
    cr_assert_str_eq(n->name, "LSTM_0");
    diag_node(d, n, "bad %s", "thing");
    cr_assert_str_eq(diag_text(d), "m.onnx: node 'LSTM_0' (LSTM): bad thing\n");
    cr_assert_eq(diag_count(d), 1);
}

/* ir_clone: the same tensors, nodes, ids, names, counter and attributes, with data and
 * attribute arrays of its own (one import serves the whole-sequence and the step program) */
Test(ir, clone_is_deep_and_equal)
{
    ir_shape s = shp(2, 2, 3);
    const float w[6] = {1, 2, 3, 4, 5, 6};
    ir_tensor *x = ir_tensor_new(g, "x", IR_DT_F32, &s);
    ir_tensor *c = ir_const_new(g, "w", IR_DT_F32, &s, w);
    ir_tensor *y = ir_tensor_new(g, "y", IR_DT_F32, &s);
    int64_t perm[2] = {1, 0};
    ir_node *n = add("add_0", x, c, y);
    ir_graph *h;
    int i;
    ir_graph_add_input(g, x);
    ir_graph_add_output(g, y);
    ir_attr_set_ints(g, n, "perm", perm, 2);
    h = ir_clone(a, g);
    cr_assert_eq(h->n_tensors, g->n_tensors);
    cr_assert_eq(h->n_nodes, g->n_nodes);
    cr_assert_eq(h->tmp_counter, g->tmp_counter);
    for (i = 0; i < g->n_tensors; i++) {
        cr_assert_str_eq(h->tensors[i]->name, g->tensors[i]->name);
        cr_assert_eq(h->tensors[i]->id, g->tensors[i]->id);
        cr_assert_neq(h->tensors[i], g->tensors[i]);
        cr_assert_eq(ir_tensor_find(h, g->tensors[i]->name), h->tensors[i]);
    }
    cr_assert_eq(h->inputs[0], h->tensors[x->id]);
    cr_assert_eq(h->outputs[0], h->tensors[y->id]);
    cr_assert_eq(h->nodes[0]->inputs[1], h->tensors[c->id]);
    cr_assert_eq(h->tensors[y->id]->producer, h->nodes[0]);
    cr_assert_str_eq(h->nodes[0]->name, "add_0");
    /* the copy's data and attributes are its own: a small constant copied, a blob (when
     * LSTMC_BLOB_MIN makes this one a blob) shared until ir_data_mut copies it */
    cr_assert_arr_eq(h->tensors[c->id]->data, w, sizeof w);
    if (ir_data_is_blob(g, c->data)) {
        cr_assert_eq(h->tensors[c->id]->data, c->data);
        ((float *)ir_data_mut(h, h->tensors[c->id]))[0] = 42;
    } else {
        cr_assert_neq(h->tensors[c->id]->data, c->data);
        ((float *)h->tensors[c->id]->data)[0] = 42;
    }
    cr_assert_float_eq(((const float *)h->tensors[c->id]->data)[0], 42.0f, 0);
    cr_assert_float_eq(((const float *)c->data)[0], 1.0f, 0);
    ir_attr_get(h->nodes[0], "perm")->ints[0] = 7;
    cr_assert_eq(ir_attr_get(n, "perm")->ints[0], 1);
    /* a name generated in the copy is the one the original would generate */
    cr_assert_str_eq(ir_tensor_tmp(h, "t", IR_DT_F32, &s)->name,
                     ir_tensor_tmp(g, "t", IR_DT_F32, &s)->name);
}

/* issue 19: a node the model left unnamed is named by its op type and place, never by the
 * invented name; the copy and the nodes a pass makes from it say the same */
Test(ir, unnamed_node_label)
{
    char buf[128];
    ir_node *n = ir_node_new(g, IR_OP_CAST, NULL, "Cast", 1, 1);
    ir_node *m = ir_node_new(g, IR_OP_RNN_REC, "Cast_12/G2", "lstmc.RnnRec", 2, 1);
    ir_graph *h;
    n->unnamed = 1;
    n->onnx_index = 12;
    cr_assert_str_eq(ir_node_label(n, buf, sizeof buf), "Cast node #12 (unnamed)");
    diag_node(d, n, "bad");
    cr_assert_str_eq(diag_text(d), "m.onnx: Cast node #12 (unnamed): bad\n");
    ir_node_origin(m, n);
    cr_assert_str_eq(ir_node_label(m, buf, sizeof buf), "lstmc.RnnRec node #12 (unnamed)");
    h = ir_clone(a, g);
    cr_assert_str_eq(ir_node_label(h->nodes[0], buf, sizeof buf), "Cast node #12 (unnamed)");
    n->unnamed = 0; /* named: the model's name */
    cr_assert_str_eq(ir_node_label(n, buf, sizeof buf), "node 'Cast_0' (Cast)");
}

/* --- constant bytes: blobs shared by clones, sealed, swept (ir_data.c, issue 19) --------- */

#define BIG 65536 /* floats: 256 KiB, a blob at the default IR_DATA_BLOB_MIN */

/* A big constant w = 0, 1, 2, ... read by an Add into y, in g. */
static ir_tensor *
big_const(const char *name, ir_tensor **y)
{
    ir_shape s = shp(1, BIG, 0);
    ir_tensor *x = ir_tensor_new(g, name, IR_DT_F32, &s), *c;
    float *v;
    int i;
    c = ir_const_new(g, "w", IR_DT_F32, &s, NULL);
    v = c->data;
    for (i = 0; i < BIG; i++)
        v[i] = (float)i;
    *y = ir_tensor_tmp(g, "y", IR_DT_F32, &s);
    ir_graph_add_input(g, x);
    ir_graph_add_output(g, *y);
    add(NULL, x, c, *y);
    return c;
}

Test(ir, big_constants_are_shared_by_clones)
{
    ir_tensor *y, *c = big_const("x", &y);
    ir_graph *h;
    float *p;
    cr_assert(ir_data_is_blob(g, c->data));
    h = ir_clone(a, g);
    cr_assert_eq(h->tensors[c->id]->data, c->data, "one copy of the bytes, not two");
    p = ir_data_mut(h, h->tensors[c->id]); /* shared: a copy to write */
    cr_assert_neq(p, c->data);
    cr_assert_arr_eq(p, c->data, BIG * sizeof(float));
    p[5] = -1;
    cr_assert_float_eq(((const float *)c->data)[5], 5.0f, 0);
    cr_assert_eq(ir_data_mut(h, h->tensors[c->id]), p, "a copy of its own is written in place");
}

/* a write to bytes a clone shares, bypassing ir_data_mut, faults instead of changing the
 * other graph's constant behind its back */
static void
on_fault(int sig)
{
    (void)sig;
    _exit(42); /* our own handler: the sanitizers' would report and abort instead */
}

Test(ir, shared_big_constant_is_read_only, .exit_code = 42)
{
    ir_tensor *y, *c = big_const("x", &y);
    ir_graph *h = ir_clone(a, g);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    ((volatile float *)h->tensors[c->id]->data)[0] = 42;
    cr_assert_fail("the write to a shared constant went through");
}

Test(ir, sweep_frees_what_no_live_graph_reads)
{
    ir_tensor *y, *c = big_const("x", &y), *unread, *hc;
    ir_shape s = shp(1, BIG, 0);
    ir_graph *h;
    size_t freed;
    unread = ir_const_new(g, "unread", IR_DT_F32, &s, NULL);
    cr_assert(ir_data_is_blob(g, unread->data));
    h = ir_clone(a, g);
    hc = h->tensors[c->id];
    /* no node reads `unread`: freed, its pointer cleared in both graphs */
    freed = ir_data_sweep(g, NULL, 0);
    cr_assert_geq(freed, BIG * sizeof(float));
    cr_assert_null(unread->data);
    cr_assert_null(h->tensors[unread->id]->data);
    cr_assert_not_null(c->data);
    /* g retired: h still reads c's bytes, so they stay */
    ir_graph_retire(g);
    cr_assert_eq(ir_data_sweep(g, NULL, 0), 0);
    cr_assert_float_eq(((const float *)hc->data)[7], 7.0f, 0);
    /* h's node reads a copy now: the shared bytes go, the copy stays */
    ir_data_mut(h, hc);
    cr_assert_geq(ir_data_sweep(h, NULL, 0), BIG * sizeof(float));
    cr_assert_null(c->data);
    cr_assert_float_eq(((const float *)hc->data)[7], 7.0f, 0);
}

Test(ir, sweep_keeps_what_the_caller_names)
{
    ir_shape s = shp(1, BIG, 0);
    ir_tensor *t = ir_const_new(g, "kept", IR_DT_F32, &s, NULL);
    const void *keep[1];
    keep[0] = (const float *)t->data + 10; /* inside the blob */
    cr_assert_eq(ir_data_sweep(g, keep, 1), 0);
    cr_assert_not_null(t->data);
    cr_assert_geq(ir_data_sweep(g, NULL, 0), BIG * sizeof(float));
    cr_assert_null(t->data);
}

Test(ir, derived_bytes_are_made_once_and_forgotten_with_their_source)
{
    ir_tensor *y, *c = big_const("x", &y);
    const int64_t dims[2] = {BIG, 1};
    uint64_t k = ir_data_key("test.negate", dims, 2), k2 = ir_data_key("test.negate", dims, 1);
    float *r = ir_data_alloc(g, BIG * sizeof(float));
    int i;
    cr_assert_neq(k, k2);
    for (i = 0; i < BIG; i++)
        r[i] = -((const float *)c->data)[i];
    cr_assert_null(ir_data_derived(g, c->data, k));
    ir_data_derive(g, c->data, k, r);
    cr_assert_eq(ir_data_derived(g, c->data, k), r);
    cr_assert_null(ir_data_derived(g, c->data, k2));
    cr_assert_null(ir_data_derived(g, r, k));
    /* nothing reads r: the sweep frees it and forgets it was made */
    ir_data_sweep(g, NULL, 0);
    cr_assert_null(ir_data_derived(g, c->data, k));
}
