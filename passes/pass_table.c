/*
 * pass_table.c — the pass registry and the manager loop (QBE main.c: one call per pass,
 * the IR checked between passes).
 */
#include "passes.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "ir.h"
#include "ir_print.h"
#include "ir_verify.h"

const pass_info pass_table[] = {
    {"split_gates", pass_split_gates, "G1/G2 split: input projection hoisted out of the time loop (Arm §IV, schedule A+)"},
    {"fold_constants", pass_fold_constants, "summed biases, packed weights, row sums D (MICRO'18 Alg. 2 l.2)"},
    {"breakpoints", pass_breakpoints, "LSTM breakpoints search + tissues sized by MTS (MICRO'18 §IV, Alg. 2, Fig. 8)"},
    {"drs", pass_drs, "LSTM dynamic row skip: U_o first, rows of U_f,i,c only where o >= alpha_intra (MICRO'18 §V, Alg. 3)"},
    {"dce", pass_dce, "remove dead nodes and unused constants"},
    {"hsparse", pass_hsparse, "hidden-state sparsity: U columns of small h groups skipped (E-LSTM §4.4)"},
    {"prune", pass_prune, "magnitude pruning of W/U (--prune, E-LSTM §3.1)"},
    {"sparse", pass_sparse, "sparse W/U stored in eSELL for the SpMV kernel (E-LSTM §3.1)"},
    {"lowp", pass_lowp, "weights in fp16, bf16 or int8 storage (--weights, docs/PRECISION.md)"},
    {"layernorm", pass_layernorm, "decomposed LayerNorm (opsets <= 16) -> one LayerNormalization kernel"},
    {"fold_bn", pass_fold_bn, "BatchNormalization folded into the Conv / Gemm / MatMul before it (issue 20)"},
    {"qact", pass_qact, "full-integer LSTM / GRU / RNN layers (--activations=int8|int16, docs/PRECISION.md)"},
    {"dedup", pass_dedup, "every constant once: equal constants shared, all-zero initial states dropped"},
    {NULL, NULL, NULL},
};

const pass_info *
pass_find(const char *name)
{
    int i;
    for (i = 0; pass_table[i].name; i++)
        if (strcmp(pass_table[i].name, name) == 0)
            return &pass_table[i];
    return NULL;
}

static int
disabled(const pass_ctx *cx, const char *name)
{
    int i;
    for (i = 0; i < cx->n_disable; i++)
        if (strcmp(cx->disable[i], name) == 0)
            return 1;
    return 0;
}

/* Next comma-separated name of *s into buf; 0 at the end. */
static int
next_name(const char **s, char *buf, size_t n)
{
    const char *p = *s, *e;
    size_t len;
    while (*p == ',' || *p == ' ')
        p++;
    if (!*p)
        return 0;
    e = p;
    while (*e && *e != ',')
        e++;
    len = (size_t)(e - p);
    while (len && p[len - 1] == ' ')
        len--;
    if (len >= n)
        len = n - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    *s = e;
    return 1;
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* "split_gates, fold_constants, ..." from the table (said once). */
static void
table_names(char *buf, size_t n)
{
    size_t k = 0;
    int i;
    buf[0] = '\0';
    for (i = 0; pass_table[i].name && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", pass_table[i].name);
}

int
pass_list_add(pass_list *l, const char *list, diag *d)
{
    const char *s = list ? list : "";
    char name[64], names[512];
    int errors = 0;

    table_names(names, sizeof names);
    while (next_name(&s, name, sizeof name)) {
        const pass_info *p = pass_find(name);
        if (!p) {
            diag_error(d, "unknown pass '%s' (passes: %s)", name, names);
            errors++;
        } else if (l->n == PASS_LIST_MAX) {
            diag_error(d, "more than %d passes in the list", PASS_LIST_MAX);
            return -1;
        } else {
            l->p[l->n++] = p;
        }
    }
    return errors ? -1 : 0;
}

/* Report every unknown name in cx->disable; their count. */
static int
check_disable(const pass_ctx *cx, diag *d)
{
    int errors = 0, i;
    for (i = 0; i < cx->n_disable; i++) {
        if (!pass_find(cx->disable[i])) {
            diag_error(d, "--disable-pass: unknown pass '%s'", cx->disable[i]);
            errors++;
        }
    }
    return errors;
}

int
pass_list_has(const pass_list *l, const char *name)
{
    int i;
    for (i = 0; i < l->n; i++)
        if (strcmp(l->p[i]->name, name) == 0)
            return 1;
    return 0;
}

int
pass_run(ir_graph *g, const pass_list *l, const pass_ctx *cx, diag *d)
{
    int i;

    if (check_disable(cx, d))
        return -1;
    for (i = 0; i < l->n; i++) {
        const pass_info *p = l->p[i];
        double t0;
        if (disabled(cx, p->name))
            continue;
        t0 = now_ms();
        if (p->fn(g, cx, d) < 0)
            return -1;
        if (cx->time_passes)
            fprintf(stderr, "lstmc: pass %-16s %8.3f ms\n", p->name, now_ms() - t0);
        if (ir_verify(g, d) < 0) {
            diag_error(d, "the IR is broken after pass '%s' (a compiler bug)", p->name);
            return -1;
        }
        if (cx->print_after && strcmp(cx->print_after, p->name) == 0) {
            printf("; IR after %s\n", p->name);
            ir_print(g, stdout);
        }
    }
    return 0;
}

int
pass_run_list(ir_graph *g, const char *list, const pass_ctx *cx, diag *d)
{
    pass_list l;
    l.n = 0;
    if (pass_list_add(&l, list, d) < 0) {
        check_disable(cx, d); /* every name that is wrong, in one run */
        return -1;
    }
    return pass_run(g, &l, cx, d);
}
