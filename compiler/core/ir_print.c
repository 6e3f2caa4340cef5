/*
 * ir_print.c — one line per graph input, constant, node and output:
 *
 *   graph 'main' opset 14
 *   input  %x f32[seq,1,9]
 *   const  %W f32[1,128,9]
 *   %Y, %Y_h, - = LSTM 'lstm_1' (%x, %W, %R, %B) {hidden_size=32, direction=0}
 *   output %Y
 */
#include "ir_print.h"

#include "ir.h"

static void
print_shape(const ir_shape *s, FILE *f)
{
    int i;
    if (s->rank < 0) {
        fputs("[?]", f);
        return;
    }
    fputc('[', f);
    for (i = 0; i < s->rank; i++) {
        if (i)
            fputc(',', f);
        if (s->d[i] >= 0)
            fprintf(f, "%lld", (long long)s->d[i]);
        else
            fputs(s->sym[i] ? s->sym[i] : "?", f);
    }
    fputc(']', f);
}

static void
print_tensor(const ir_tensor *t, FILE *f)
{
    fprintf(f, "%%%s %s", t->name, ir_dtype_name(t->dtype));
    print_shape(&t->shape, f);
}

static void
print_attr(const ir_attr *a, FILE *f)
{
    int i;
    fprintf(f, "%s=", a->name);
    switch (a->kind) {
    case IR_ATTR_INT: fprintf(f, "%lld", (long long)a->i); break;
    case IR_ATTR_FLOAT: fprintf(f, "%.9g", (double)a->f); break;
    case IR_ATTR_STRING: fprintf(f, "\"%s\"", a->s ? a->s : ""); break;
    case IR_ATTR_INTS:
        fputc('[', f);
        for (i = 0; i < a->n; i++)
            fprintf(f, "%s%lld", i ? "," : "", (long long)a->ints[i]);
        fputc(']', f);
        break;
    case IR_ATTR_FLOATS:
        fputc('[', f);
        for (i = 0; i < a->n; i++)
            fprintf(f, "%s%.9g", i ? "," : "", (double)a->floats[i]);
        fputc(']', f);
        break;
    case IR_ATTR_STRINGS:
        fputc('[', f);
        for (i = 0; i < a->n; i++)
            fprintf(f, "%s\"%s\"", i ? "," : "", a->strings[i]);
        fputc(']', f);
        break;
    case IR_ATTR_TENSOR:
        if (a->t) {
            fprintf(f, "tensor %s", ir_dtype_name(a->t->dtype));
            print_shape(&a->t->shape, f);
        }
        break;
    }
}

void
ir_print(const ir_graph *g, FILE *f)
{
    int i, j;
    fprintf(f, "graph '%s' opset %d\n", g->name, g->opset);
    for (i = 0; i < g->n_inputs; i++) {
        fputs("input  ", f);
        print_tensor(g->inputs[i], f);
        fputc('\n', f);
    }
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        if (!t->data || t->producer)
            continue;
        fputs("const  ", f);
        print_tensor(t, f);
        fputc('\n', f);
    }
    for (i = 0; i < g->n_nodes; i++) {
        const ir_node *n = g->nodes[i];
        if (n->dead)
            continue;
        for (j = 0; j < n->n_outputs; j++) {
            fputs(j ? ", " : "", f);
            if (n->outputs[j])
                print_tensor(n->outputs[j], f);
            else
                fputc('-', f);
        }
        fprintf(f, " = %s '%s' (", ir_op_name(n->op), n->name);
        for (j = 0; j < n->n_inputs; j++) {
            fputs(j ? ", " : "", f);
            if (n->inputs[j])
                fprintf(f, "%%%s", n->inputs[j]->name);
            else
                fputc('-', f);
        }
        fputc(')', f);
        if (n->n_attrs) {
            fputs(" {", f);
            for (j = 0; j < n->n_attrs; j++) {
                fputs(j ? ", " : "", f);
                print_attr(&n->attrs[j], f);
            }
            fputc('}', f);
        }
        fputc('\n', f);
    }
    for (i = 0; i < g->n_outputs; i++) {
        fputs("output ", f);
        print_tensor(g->outputs[i], f);
        fputc('\n', f);
    }
}
