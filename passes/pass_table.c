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

int
pass_run_list(ir_graph *g, const char *list, const pass_ctx *cx, diag *d)
{
    const char *s = list ? list : "";
    char name[64];
    int errors = 0, i;

    while (next_name(&s, name, sizeof name)) {
        if (!pass_find(name)) {
            diag_error(d, "unknown pass '%s' (passes: split_gates, fold_constants, breakpoints, drs, dce)", name);
            errors++;
        }
    }
    for (i = 0; i < cx->n_disable; i++) {
        if (!pass_find(cx->disable[i])) {
            diag_error(d, "--disable-pass: unknown pass '%s'", cx->disable[i]);
            errors++;
        }
    }
    if (errors)
        return -1;
    s = list ? list : "";
    while (next_name(&s, name, sizeof name)) {
        const pass_info *p = pass_find(name);
        double t0;
        if (disabled(cx, name))
            continue;
        t0 = now_ms();
        if (p->fn(g, cx, d) < 0)
            return -1;
        if (cx->time_passes)
            fprintf(stderr, "lstmc: pass %-16s %8.3f ms\n", name, now_ms() - t0);
        if (ir_verify(g, d) < 0) {
            diag_error(d, "the IR is broken after pass '%s' (a compiler bug)", name);
            return -1;
        }
        if (cx->print_after && strcmp(cx->print_after, name) == 0) {
            printf("; IR after %s\n", name);
            ir_print(g, stdout);
        }
    }
    return 0;
}
