/*
 * shape_rnn.c — dtype and shape rules of the recurrent layers (ONNX LSTM/GRU/RNN), with
 * G = 4 / 3 / 1 gates, D directions, H hidden:
 *   X [T,N,I] (layout 1: [N,T,I])   W [D,G*H,I]   R [D,G*H,H]   B [D,2*G*H]
 *   sequence_lens [N] int32   initial_h, initial_c [D,N,H] (layout 1: [N,D,H])   P [D,3H]
 *   Y [T,D,N,H] (layout 1: [N,T,D,H])   Y_h, Y_c [D,N,H] (layout 1: [N,D,H])
 */
#include "diag.h"
#include "ir.h"
#include "shape_impl.h"

#include <stdio.h>

/* --- recurrent layers ------------------------------------------------------------- */

static int
rnn_expect(ir_node *n, int i, const ir_shape *want, const char *why, diag *d)
{
    ir_tensor *t = ir_in(n, i);
    if (t && !shape_same_dims(&t->shape, want)) {
        diag_node(d, n, "input '%s' has shape %s; %s needs %s", shape_iname(n, i),
                  shape_str(&t->shape), why, shape_str(want));
        return -1;
    }
    return 0;
}

static ir_shape
dims3(int64_t a, int64_t b, int64_t c)
{
    ir_shape s = shape_make(3);
    s.d[0] = a, s.d[1] = b, s.d[2] = c;
    return s;
}

int
shape_infer_rnn(ir_graph *g, ir_node *n, diag *d)
{
    int G = n->op == IR_OP_LSTM ? 4 : n->op == IR_OP_GRU ? 3 : 1;
    int64_t H = ir_attr_int(n, "hidden_size", 0);
    int D = ir_attr_int(n, "direction", 0) == 2 ? 2 : 1;
    int layout = (int)ir_attr_int(n, "layout", 0);
    int64_t T, N, I;
    ir_tensor *x = ir_in(n, 0), *sl = ir_in(n, 4);
    ir_shape s;
    char why[160], why_state[192];
    int errors = 0, i;
    (void)g;

    if (H <= 0) {
        diag_node(d, n, "attribute 'hidden_size' is missing");
        return -1;
    }
    for (i = 0; i < n->n_inputs; i++)
        if (i != 4 && shape_need_dtype(n, i, M_F32, "f32", d) < 0)
            errors++;
    if (shape_need_dtype(n, 4, M_I32, "i32", d) < 0)
        errors++;
    if (shape_need_rank(n, 0, 3,
                        layout ? "([batch_size, seq_length, input_size], layout 1)"
                               : "([seq_length, batch_size, input_size])",
                        d) < 0 ||
        errors)
        return -1;
    T = layout ? x->shape.d[1] : x->shape.d[0];
    N = layout ? x->shape.d[0] : x->shape.d[1];
    I = x->shape.d[2];

    snprintf(why, sizeof why, "hidden_size %lld with %d direction%s", (long long)H, D,
             D == 1 ? "" : "s");
    snprintf(why_state, sizeof why_state, "%s and batch_size %lld (layout %d)", why, (long long)N,
             layout);
    s = dims3(D, G * H, I);
    errors += rnn_expect(n, 1, &s, why, d) < 0;
    s = dims3(D, G * H, H);
    errors += rnn_expect(n, 2, &s, why, d) < 0;
    s = shape_make(2);
    s.d[0] = D, s.d[1] = 2 * G * H;
    errors += rnn_expect(n, 3, &s, why, d) < 0;
    if (sl) {
        s = shape_make(1);
        s.d[0] = N;
        snprintf(why_state, sizeof why_state, "batch_size %lld", (long long)N);
        errors += rnn_expect(n, 4, &s, why_state, d) < 0;
        if (sl->data && shape_same_dims(&sl->shape, &s)) {
            int64_t k;
            for (k = 0; k < N; k++) {
                int64_t v = shape_elem_i64(sl, k);
                if (v < 0 || v > T) {
                    diag_node(d, n,
                              "input 'sequence_lens' has %lld at index %lld; expected 0 "
                              "to seq_length %lld",
                              (long long)v, (long long)k, (long long)T);
                    errors++;
                    break;
                }
            }
        }
        snprintf(why_state, sizeof why_state, "%s and batch_size %lld (layout %d)", why,
                 (long long)N, layout);
    }
    s = layout ? dims3(N, D, H) : dims3(D, N, H);
    errors += rnn_expect(n, 5, &s, why_state, d) < 0;
    if (n->op == IR_OP_LSTM) {
        errors += rnn_expect(n, 6, &s, why_state, d) < 0;
        s = shape_make(2);
        s.d[0] = D, s.d[1] = 3 * H;
        errors += rnn_expect(n, 7, &s, why, d) < 0;
    }
    if (errors)
        return -1;

    s = shape_make(4);
    if (layout)
        s.d[0] = N, s.d[1] = T, s.d[2] = D, s.d[3] = H;
    else
        s.d[0] = T, s.d[1] = D, s.d[2] = N, s.d[3] = H;
    if (shape_set_out(n, 0, IR_DT_F32, &s, d) < 0)
        return -1;
    s = layout ? dims3(N, D, H) : dims3(D, N, H);
    for (i = 1; i < n->n_outputs; i++)
        if (shape_set_out(n, i, IR_DT_F32, &s, d) < 0)
            return -1;
    return 0;
}
