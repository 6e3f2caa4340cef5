/*
 * driver.c — runs the pipeline stages in order and stops at the first stage that reports.
 */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "codegen.h"
#include "diag.h"
#include "ir_print.h"
#include "kprog.h"
#include "lowp.h"
#include "memplan.h"
#include "onnx.h"
#include "passes.h"
#include "shape.h"
#include "stream.h"
#include "target.h"

/* A constant subgraph node bigger than this stays in the program rather than the weights;
 * all folding together may make at most FOLD_BUDGET_BASE + FOLD_BUDGET_PER_BYTE times the
 * model file's size (so a small malicious file cannot make us compute gigabytes). */
#define FOLD_MAX_BYTES ((int64_t)64 << 20)
#define FOLD_BUDGET_BASE ((int64_t)64 << 20)
#define FOLD_BUDGET_PER_BYTE 16

static void
maybe_print(const ir_graph *g, const driver_options *o, const char *stage)
{
    if (o && o->print_after && strcmp(o->print_after, stage) == 0) {
        printf("; IR after %s\n", stage);
        ir_print(g, stdout);
    }
}

ir_graph *
driver_import(arena *a, const char *model, diag *d)
{
    return onnx_import(model, a, d);
}

const char *
driver_default_name(arena *a, const char *model)
{
    const char *base = strrchr(model, '/');
    char *s, *dot;
    size_t i;
    base = base ? base + 1 : model;
    s = arena_strdup(a, base);
    dot = strrchr(s, '.');
    if (dot && dot != s)
        *dot = '\0';
    for (i = 0; s[i]; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            s[i] = '_';
    }
    if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
        s = arena_printf(a, "m_%s", s);
    if (strlen(s) > 48)
        s[48] = '\0';
    return s;
}

static void
fmt_shape(const ir_shape *s, char *buf, size_t n)
{
    shape_fmt(s, buf, n);
}

/* Give every graph input a concrete shape: whole-shape bindings first (they also bind the
 * input's symbols), then --dim values; a dim still unknown is an error. */
static int
bind_inputs(ir_graph *g, const driver_options *o, diag *d)
{
    const char *sym_name[DRIVER_MAX_BINDINGS * IR_MAX_RANK];
    int64_t sym_val[DRIVER_MAX_BINDINGS * IR_MAX_RANK];
    int n_sym = 0, i, j, k, errors = 0;

    for (i = 0; o && i < o->n_dims; i++) {
        sym_name[n_sym] = o->dims[i].name;
        sym_val[n_sym++] = o->dims[i].value;
    }
    for (i = 0; o && i < o->n_shapes; i++) {
        const driver_binding *b = &o->shapes[i];
        ir_tensor *t = NULL;
        char want[256], got[256];
        for (j = 0; j < g->n_inputs; j++)
            if (strcmp(g->inputs[j]->name, b->name) == 0)
                t = g->inputs[j];
        if (!t) {
            diag_error(d, "the model has no input named '%s'", b->name);
            errors++;
            continue;
        }
        fmt_shape(&t->shape, want, sizeof want);
        fmt_shape(&b->shape, got, sizeof got);
        if (b->dtype && t->dtype != (ir_dtype)b->dtype) {
            diag_error(d, "input '%s': %s holds %s data, the model expects %s", t->name,
                       b->what ? b->what : "the data", ir_dtype_name((ir_dtype)b->dtype),
                       ir_dtype_name(t->dtype));
            errors++;
            continue;
        }
        if (t->shape.rank >= 0 && t->shape.rank != b->shape.rank) {
            diag_error(d, "input '%s': %s has shape %s, the model expects %s", t->name,
                       b->what ? b->what : "the data", got, want);
            errors++;
            continue;
        }
        for (k = 0; k < b->shape.rank; k++) {
            if (b->shape.d[k] == 0) {
                diag_error(d, "input '%s': %s has shape %s: dim %d is 0, and a zero-length "
                              "sequence or empty batch cannot be run",
                           t->name, b->what ? b->what : "the data", got, k);
                errors++;
                break;
            }
            if (t->shape.rank >= 0 && t->shape.d[k] >= 0 && t->shape.d[k] != b->shape.d[k] &&
                !b->force) {
                diag_error(d, "input '%s': %s has shape %s, the model expects %s", t->name,
                           b->what ? b->what : "the data", got, want);
                errors++;
                break;
            }
        }
        if (k < b->shape.rank)
            continue;
        for (k = 0; t->shape.rank >= 0 && k < t->shape.rank; k++) {
            if (t->shape.d[k] < 0 && t->shape.sym[k] && n_sym < (int)(sizeof sym_val / 8)) {
                int m;
                for (m = 0; m < n_sym; m++)
                    if (strcmp(sym_name[m], t->shape.sym[k]) == 0)
                        break;
                if (m < n_sym && sym_val[m] != b->shape.d[k]) {
                    diag_error(d, "input '%s': dim '%s' is %lld in %s but %lld elsewhere",
                               t->name, t->shape.sym[k], (long long)b->shape.d[k],
                               b->what ? b->what : "the data", (long long)sym_val[m]);
                    errors++;
                } else if (m == n_sym) {
                    sym_name[n_sym] = t->shape.sym[k];
                    sym_val[n_sym++] = b->shape.d[k];
                }
            }
        }
        t->shape = b->shape;
    }
    if (errors)
        return -1;
    for (i = 0; i < g->n_inputs; i++) {
        ir_tensor *t = g->inputs[i];
        if (t->shape.rank < 0) {
            diag_error(d, "input '%s' has no declared shape; give its data (lstmc run) to "
                          "fix it",
                       t->name);
            errors++;
            continue;
        }
        for (k = 0; k < t->shape.rank; k++) {
            int m;
            if (t->shape.d[k] >= 0)
                continue;
            for (m = 0; t->shape.sym[k] && m < n_sym; m++)
                if (strcmp(sym_name[m], t->shape.sym[k]) == 0)
                    break;
            if (t->shape.sym[k] && m < n_sym) {
                t->shape.d[k] = sym_val[m];
            } else {
                diag_error(d, "input '%s': dim %d%s%s%s is symbolic; give it a value with "
                              "--dim %s=N",
                           t->name, k, t->shape.sym[k] ? " ('" : "",
                           t->shape.sym[k] ? t->shape.sym[k] : "", t->shape.sym[k] ? "')" : "",
                           t->shape.sym[k] ? t->shape.sym[k] : "NAME");
                errors++;
                break;
            }
            if (t->shape.d[k] <= 0) {
                diag_error(d, "input '%s': dim %d ('%s') must be at least 1", t->name, k,
                           t->shape.sym[k]);
                errors++;
                break;
            }
        }
        if (!errors && ir_shape_numel(&t->shape) == -2) {
            diag_error(d, "input '%s' has more than 2^31 elements", t->name);
            errors++;
        }
    }
    return errors ? -1 : 0;
}

static int
all_inputs_const(const ir_node *n)
{
    int i;
    for (i = 0; i < n->n_inputs; i++)
        if (n->inputs[i] && !n->inputs[i]->data)
            return 0;
    return 1;
}

/* Evaluate node n (all inputs constant) with the runtime kernels; its outputs become
 * constants. */
static int
fold_node(ir_graph *g, ir_node *n, int64_t *budget, diag *d)
{
    arena *scratch = arena_new(0);
    kprog kp = {0};
    int i, j, rc = 0;
    int64_t total = 0;

    for (j = 0; j < n->n_outputs; j++) {
        ir_tensor *t = n->outputs[j];
        int64_t ne;
        if (!t)
            continue;
        ne = ir_shape_numel(&t->shape);
        if (ne < 0)
            goto keep;
        total += ne * (int64_t)ir_dtype_size(t->dtype);
    }
    if (total > FOLD_MAX_BYTES || total > *budget)
        goto keep;
    *budget -= total;
    if (kp_lower_node(scratch, &kp, n, d) < 0) {
        rc = -1;
        goto done;
    }
    for (j = 0; j < n->n_outputs; j++) {
        ir_tensor *t = n->outputs[j];
        if (t && !t->data)
            t->data = arena_alloc(g->a, (size_t)ir_shape_numel(&t->shape) *
                                            ir_dtype_size(t->dtype));
    }
    for (i = 0; i < kp.n_calls; i++) {
        const kp_call *c = &kp.calls[i];
        const void *in[KP_MAX_ARGS] = {0};
        void *out[KP_MAX_ARGS] = {0};
        void *s = c->scratch_bytes > 0 ? arena_alloc(scratch, (size_t)c->scratch_bytes) : NULL;
        lstmc_rt_status st;
        for (j = 0; j < c->n_in; j++)
            in[j] = c->in[j] ? c->in[j]->data : NULL;
        for (j = 0; j < c->n_out; j++)
            out[j] = c->out[j] ? c->out[j]->data : NULL;
        st = kp_exec(c, in, out, s);
        if (st != LSTMC_RT_OK) {
            diag_node(d, n, "evaluating it on constant inputs failed: %s",
                      lstmc_rt_status_str(st));
            rc = -1;
            goto done;
        }
    }
    goto fold;
keep:
    arena_free(scratch);
    return 0;
fold:
    for (j = 0; j < n->n_outputs; j++)
        if (n->outputs[j])
            n->outputs[j]->producer = NULL;
    n->dead = 1;
done:
    arena_free(scratch);
    return rc;
}

/* Size of the model file, for the folding budget (0 when it cannot be read). */
static int64_t
file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    if (!f)
        return 0;
    n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : 0;
    fclose(f);
    return n > 0 ? (int64_t)n : 0;
}

int
driver_prepare(ir_graph *g, const driver_options *o, diag *d)
{
    int64_t budget = FOLD_BUDGET_BASE + FOLD_BUDGET_PER_BYTE * file_size(g->file);
    int i;
    if (bind_inputs(g, o, d) < 0)
        return -1;
    if (ir_toposort(g, d) < 0)
        return -1;
    maybe_print(g, o, "bind");
    for (i = 0; i < g->n_nodes; i++) {
        ir_node *n = g->nodes[i];
        int j, done = 1;
        if (n->dead)
            continue;
        if (shape_infer_node(g, n, d) < 0)
            return -1;
        for (j = 0; j < n->n_outputs; j++)
            if (n->outputs[j] && !n->outputs[j]->data)
                done = 0;
        if (done) { /* shape inference computed it already (shape arithmetic) */
            for (j = 0; j < n->n_outputs; j++)
                if (n->outputs[j])
                    n->outputs[j]->producer = NULL;
            n->dead = 1;
            continue;
        }
        if (all_inputs_const(n) && n->op != IR_OP_SHAPE && fold_node(g, n, &budget, d) < 0)
            return -1;
    }
    ir_dce(g);
    maybe_print(g, o, "infer");
    return 0;
}

/* Run the pass list: o->passes, or the target's default, minus o->disable. The IR is
 * verified after every pass. */
static int
driver_passes(ir_graph *g, const target *t, const driver_options *o, diag *d)
{
    pass_ctx cx;
    int rc;
    memset(&cx, 0, sizeof cx);
    cx.t = t;
    cx.print_after = o->print_after;
    cx.time_passes = o->time_passes;
    cx.disable = o->disable;
    cx.n_disable = o->n_disable;
    cx.alpha_inter = o->alpha_inter;
    cx.calib = o->calib;
    cx.alpha_intra = o->alpha_intra;
    cx.hsparse = o->hsparse;
    if (o->hsparse && o->has_alpha_intra) {
        diag_error(d, "--hsparse does not combine with --alpha-intra: dynamic row skip and "
                      "hidden-state sparsity both reshape U h, with different kernels");
        return -1;
    }
    if (o->hsparse && o->has_alpha_inter) {
        diag_error(d, "--hsparse does not combine with --alpha-inter: a tissue multiplies U "
                      "by several h vectors at once (passes/hsparse.c)");
        return -1;
    }
    if (o->hsparse) {
        /* after the target's (or the given) passes: it marks the RnnRec nodes they made */
        rc = pass_run_list(g, o->passes ? o->passes : t->passes, &cx, d);
        return rc ? rc : pass_run_list(g, "hsparse", &cx, d);
    }
    if (!o->passes && (o->has_alpha_inter || o->has_alpha_intra)) {
        /* --alpha-inter turns the breakpoints pass on, --alpha-intra the drs pass (after
         * packing, breakpoints first so that DRS runs inside its tissues, before dce) */
        char list[512];
        snprintf(list, sizeof list, "%s%s%s,dce", t->passes,
                 o->has_alpha_inter ? ",breakpoints" : "", o->has_alpha_intra ? ",drs" : "");
        return pass_run_list(g, list, &cx, d);
    }
    rc = pass_run_list(g, o->passes ? o->passes : t->passes, &cx, d);
    return rc;
}

/* E-LSTM sparse weights (passes/sparse.c): "prune" before the pass list, "sparse" after it.
 * The combinations the eSELL kernels do not cover are refused here or by the pass. */
static int
driver_sparse(ir_graph *g, const target *t, const driver_options *o, const char *pass, diag *d)
{
    pass_ctx cx;
    int explicit_esell = o->sparse && strcmp(o->sparse, "esell") == 0;
    memset(&cx, 0, sizeof cx);
    cx.t = t;
    cx.print_after = o->print_after;
    cx.time_passes = o->time_passes;
    cx.prune = o->prune;
    cx.sparse = o->sparse;
    cx.llvm_kernels = o->emit ? strcmp(o->emit, "llvm") == 0 : cg_llvm_available();
    if (strcmp(pass, "prune") == 0 && !o->prune)
        return 0;
    if (explicit_esell && (o->has_alpha_inter || o->has_alpha_intra)) {
        diag_error(d, "--sparse=esell does not combine with --alpha-inter / --alpha-intra: the "
                      "tissue and DRS kernels read dense U");
        return -1;
    }
    return pass_run_list(g, pass, &cx, d);
}

int
driver_prune(ir_graph *g, const driver_options *o, diag *d)
{
    return driver_sparse(g, NULL, o, "prune", d);
}

/* Refuse weights or an arena over the configured limits (issue 11: bounded resources). */
static int
check_limits(const ir_graph *g, const memplan *mp, const driver_options *o, diag *d)
{
    int64_t max_w = o->max_weights > 0 ? o->max_weights : DRIVER_MAX_WEIGHTS;
    int64_t max_a = o->max_arena > 0 ? o->max_arena : DRIVER_MAX_ARENA;
    int64_t weights = 0;
    int i, bad = 0;
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        if (mp->tensor[i].kind == MEMPLAN_CONST)
            weights += ir_shape_numel(&t->shape) * (int64_t)ir_dtype_size(t->dtype);
    }
    if (weights > max_w) {
        diag_error(d, "the weights would take %lld bytes, more than the limit of %lld "
                      "(--max-weights=BYTES to change it)",
                   (long long)weights, (long long)max_w);
        bad++;
    }
    if (mp->arena_size > max_a) {
        diag_error(d, "the working memory (arena) would take %lld bytes, more than the limit "
                      "of %lld (--max-arena=BYTES to change it)",
                   (long long)mp->arena_size, (long long)max_a);
        bad++;
    }
    return bad ? -1 : 0;
}

int
driver_lower(arena *a, const driver_options *o, ir_graph **gp, kprog *kp, memplan *mp, diag *d)
{
    const target *t = target_resolve(o->target, d);
    ir_graph *g;
    if (!t) {
        if (!diag_count(d))
            diag_error(d, "unknown target '%s' (lstmc targets lists them; a profile file "
                          "is a path ending in .json)",
                       o->target);
        return -1;
    }
    g = driver_import(a, o->model, d);
    if (!g)
        return -1;
    maybe_print(g, o, "import");
    if (driver_prepare(g, o, d) < 0)
        return -1;
    if (o->after_prepare && o->after_prepare(g, o->after_prepare_ctx, d) < 0)
        return -1;
    if (driver_sparse(g, t, o, "prune", d) < 0 || driver_passes(g, t, o, d) < 0 ||
        driver_sparse(g, t, o, "sparse", d) < 0)
        return -1;
    if (lowp_apply(g, o->weights, !o->cpu_only && cg_opencl_wanted(o->target), d) < 0)
        return -1;
    memset(kp, 0, sizeof *kp);
    if (kp_lower_graph(a, g, kp, d) < 0)
        return -1;
    if (!cg_opencl_wanted(o->target) && (o->emit ? strcmp(o->emit, "llvm") == 0
                                                 : cg_llvm_available()))
        cg_wave_plan(a, kp, t, o->threads, o->parallel); /* before memplan: it reads the groups */
    if (memplan_run(a, g, kp, mp, d) < 0)
        return -1;
    if (check_limits(g, mp, o, d) < 0)
        return -1;
    *gp = g;
    return 0;
}

/* The whole-sequence graph, prepared: does it stream? (stream.h) */
static int
stream_hook(ir_graph *g, void *ctx, diag *d)
{
    (void)d;
    stream_analyze(g, ctx);
    return 0;
}

int
driver_compile(arena *a, const driver_options *o, diag *d)
{
    ir_graph *g;
    kprog kp;
    memplan mp;
    cg_options co;
    stream_info *si = arena_calloc(a, 1, sizeof *si);
    driver_options fo = *o;

    fo.after_prepare = stream_hook;
    fo.after_prepare_ctx = si;
    if (driver_lower(a, &fo, &g, &kp, &mp, d) < 0)
        return -1;
    stream_build(a, o, si);
    co.stream = si;
    co.placement = !o->weights_placement || strcmp(o->weights_placement, "const") == 0
                       ? CG_WEIGHTS_CONST
                   : strcmp(o->weights_placement, "blob") == 0 ? CG_WEIGHTS_BLOB
                                                               : CG_WEIGHTS_POINTER;
    co.name = o->name ? o->name : driver_default_name(a, o->model);
    co.outdir = o->outdir;
    co.target = o->target;
    co.alpha_inter = o->alpha_inter;
    co.alpha_intra = o->alpha_intra;
    co.alpha_inter_max = o->alpha_inter_max;
    co.alpha_intra_max = o->alpha_intra_max;
    co.llvm = o->emit ? strcmp(o->emit, "llvm") == 0 : cg_llvm_available();
    co.threads = o->threads;
    co.opencl = !o->cpu_only && cg_opencl_wanted(o->target);
    if (co.opencl && co.placement != CG_WEIGHTS_CONST) {
        /* <name>_init uploads the weights to the device; blob and pointer bind them later */
        diag_error(d, "--weights-placement=%s does not combine with an OpenCL target ('%s'): "
                      "the device buffers are filled from the weights at init",
                   o->weights_placement, o->target);
        return -1;
    }
    return cg_write(g, &kp, &mp, &co, d);
}
