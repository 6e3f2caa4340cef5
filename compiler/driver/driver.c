/*
 * driver.c — the pipeline, one call per stage (docs/ARCHITECTURE.md). The only file that
 * knows the order; every stage it calls lives in its own folder:
 *
 *   import (frontends/onnx) -> clone -> prepare (bind dims, infer shapes, fold) -> stream
 *   analysis -> passes -> lower to kernel calls -> schedule -> memory plan -> limits ->
 *   the step program from another clone -> memory budget -> codegen
 *
 * The ONNX file is read once: the whole-sequence program and the streaming step program
 * are each compiled from their own copy of the imported graph (ir_clone).
 */
#include "driver.h"

#include "arena.h"
#include "calib.h"
#include "codegen.h"
#include "diag.h"
#include "driver_impl.h"
#include "ir_print.h"
#include "kprog.h"
#include "memplan.h"
#include "onnx.h"
#include "options.h"
#include "passes.h"
#include "stream.h"
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
driver_print_after(const ir_graph *g, const driver_options *o, const char *stage)
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

/* The pass context, built once per program from o: the typed pass options and what the
 * chosen kernels prefer. Returns 0, or -1 after reporting through d. */
static int
pass_context(const target *t, const cg_backend *be, const driver_options *o, pass_ctx *cx, diag *d)
{
    char err[512];
    memset(cx, 0, sizeof *cx);
    cx->t = t;
    cx->print_after = o->print_after;
    cx->time_passes = o->time_passes;
    cx->disable = o->disable;
    cx->n_disable = o->n_disable;
    cx->alpha_inter = o->alpha_inter;
    cx->calib = o->calib;
    cx->relevance = o->relevance;
    cx->max_sublayer = o->max_sublayer;
    cx->alpha_intra = o->alpha_intra;
    cx->llvm_kernels = strcmp(cg_backend_cpu(be)->name, "llvm") == 0;
    cx->gpu = be->gpu;
    cx->weights = o->weights;
    cx->qact.bits = o->activations;
    cx->qact.int_io = o->io_int;
    cx->qact.r = o->qranges;
    cx->qact.n = o->n_qranges;
    if (options_parse_passes(o, cx, err, sizeof err) < 0) {
        diag_error(d, "%s", err);
        return -1;
    }
    if (cx->hsparse.n && o->has_alpha_intra) {
        diag_error(d, "--hsparse does not combine with --alpha-intra: dynamic row skip and "
                      "hidden-state sparsity both reshape U h, with different kernels");
        return -1;
    }
    if (cx->hsparse.n && o->has_alpha_inter) {
        diag_error(d, "--hsparse does not combine with --alpha-inter: a tissue multiplies U "
                      "by several h vectors at once (passes/hsparse.c)");
        return -1;
    }
    if (o->activations && be->gpu) {
        diag_error(d,
                   "--activations=int%d does not combine with an OpenCL target ('%s'): its "
                   "kernels compute in float; compile for the CPU",
                   o->activations, o->target);
        return -1;
    }
    if (o->io_int && !o->activations) {
        diag_error(d, "--io=int needs --activations=int8 or int16");
        return -1;
    }
    if (o->activations && o->weights && strcmp(o->weights, "int8") != 0) {
        diag_error(d,
                   "--activations=int%d stores the weights in int8; it does not combine with "
                   "--weights=%s",
                   o->activations, o->weights);
        return -1;
    }
    if (o->activations && (cx->hsparse.n || cx->sparse.mode == PASS_SPARSE_ESELL)) {
        diag_error(d,
                   "--activations=int%d does not combine with --hsparse or --sparse=esell "
                   "yet: their kernels compute in float (--alpha-inter and --alpha-intra do)",
                   o->activations);
        return -1;
    }
    if (o->max_sublayer && !o->has_alpha_inter) {
        diag_error(d, "--max-sublayer cuts breakpoints: it needs --alpha-inter (0 for only its "
                      "forced ones)");
        return -1;
    }
    if (o->max_sublayer && be->gpu) {
        diag_error(d,
                   "--max-sublayer does not combine with an OpenCL target ('%s') yet: its tissue "
                   "kernel plans the cuts on the device without it; compile for the CPU",
                   o->target);
        return -1;
    }
    if (o->relevance && !o->calib) {
        diag_error(d,
                   "--relevance=%s needs --calib CALIB (lstmc calibrate writes the bound of "
                   "U h it uses)",
                   driver_relevance_name(o->relevance));
        return -1;
    }
    if (cx->sparse.mode == PASS_SPARSE_ESELL && (o->has_alpha_inter || o->has_alpha_intra)) {
        diag_error(d, "--sparse=esell does not combine with --alpha-inter / --alpha-intra: the "
                      "tissue and DRS kernels read dense U");
        return -1;
    }
    return 0;
}

/*
 * The pass list of a program: fold_bn (BatchNormalization into the op before it, issue 20),
 * prune (--prune, before split_gates), then o->passes or the
 * target's default (--alpha-inter adds breakpoints, --alpha-intra drs, after packing and
 * before dce, breakpoints first so that DRS runs inside its tissues; --hsparse marks the
 * RnnRec nodes they made), then sparse (eSELL storage of what is pruned), lowp (the
 * weights' storage format) and dedup (each constant once, whatever made the copies).
 */
static int
pass_pipeline(const target *t, const driver_options *o, const pass_ctx *cx, pass_list *l, diag *d)
{
    l->n = 0;
    /* issue 20: every list starts with BatchNormalization folded away where it can be, and
     * the decomposed LayerNorm of opsets <= 16 running the opset-17 kernel */
    if (pass_list_add(l, "fold_bn", d) < 0 || pass_list_add(l, "layernorm", d) < 0)
        return -1;
    if (cx->prune.on && pass_list_add(l, "prune", d) < 0)
        return -1;
    if (cx->qact.bits && pass_list_add(l, "qact", d) < 0) /* issue 22: before split_gates */
        return -1;
    if (pass_list_add(l, o->passes ? o->passes : t->passes, d) < 0)
        return -1;
    if (!cx->hsparse.n && !o->passes && (o->has_alpha_inter || o->has_alpha_intra) &&
        pass_list_add(l,
                      o->has_alpha_inter && o->has_alpha_intra ? "breakpoints,drs,dce"
                      : o->has_alpha_inter                     ? "breakpoints,dce"
                                                               : "drs,dce",
                      d) < 0)
        return -1;
    if (cx->hsparse.n && pass_list_add(l, "hsparse", d) < 0)
        return -1;
    return pass_list_add(l, "sparse,lowp,dedup", d);
}

int
driver_prune(ir_graph *g, const driver_options *o, diag *d)
{
    pass_ctx cx;
    pass_list l;
    char err[512];
    memset(&cx, 0, sizeof cx);
    cx.print_after = o->print_after;
    cx.time_passes = o->time_passes;
    l.n = 0;
    if (options_parse_prune(o->prune, &cx.prune, err, sizeof err) < 0) {
        diag_error(d, "%s", err);
        return -1;
    }
    if (!cx.prune.on)
        return 0;
    return pass_list_add(&l, "prune", d) < 0 ? -1 : pass_run(g, &l, &cx, d);
}

static const target *
resolve_target(const driver_options *o, diag *d)
{
    const target *t = target_resolve(o->target, d);
    if (!t && !diag_count(d))
        diag_error(d,
                   "unknown target '%s' (lstmc targets lists them; a profile file "
                   "is a path ending in .json)",
                   o->target);
    return t;
}

/* Passes, kernel program, schedule, memory plan, limits: what the whole-sequence and the
 * step program share. g is prepared; on success *gp, *kp and *mp describe the program. */
static int
compile_program(arena *a, ir_graph *g, const target *t, const cg_backend *be,
                const driver_options *o, calib_table **calib, ir_graph **gp, kprog *kp, memplan *mp,
                diag *d)
{
    pass_ctx cx;
    pass_list passes;
    if (pass_context(t, be, o, &cx, d) < 0 || pass_pipeline(t, o, &cx, &passes, d) < 0)
        return -1;
    if (o->calib && !*calib && pass_list_has(&passes, "breakpoints")) { /* read once */
        calib_table *tab = arena_calloc(a, 1, sizeof *tab);
        if (calib_read(a, o->calib, tab, d) < 0)
            return -1;
        *calib = tab;
    }
    cx.calib_table = *calib;
    if (pass_run(g, &passes, &cx, d) < 0) /* passes/ */
        return -1;
    memset(kp, 0, sizeof *kp);
    if (kp_lower_graph(a, g, kp, d) < 0) /* kprog/lower.c */
        return -1;
    kp_schedule(a, kp, t, be->gpu ? NULL : be->handles, o->threads, o->parallel);
    if (memplan_run(a, g, kp, mp, d) < 0) /* kprog/memplan.c */
        return -1;
    if (driver_check_limits(g, mp, o, d) < 0) /* limits.c */
        return -1;
    *gp = g;
    return 0;
}

int
driver_lower(arena *a, const driver_options *o, ir_graph **gp, kprog *kp, memplan *mp, diag *d)
{
    const cg_backend *be = cg_backend_resolve(o->target, o->emit, o->cpu_only, d);
    const target *t;
    ir_graph *g;
    driver_options o2 = *o;
    pass_qrange *qr = NULL;
    if (!be || !(t = resolve_target(o, d)) || !(g = driver_import(a, o->model, d)))
        return -1;
    driver_print_after(g, o, "import");
    if (o->activations && driver_qranges(a, g, o, &qr, &o2.n_qranges, d) < 0) /* issue 22 */
        return -1;
    o2.qranges = qr;
    if (driver_prepare(g, o, d) < 0)
        return -1;
    calib_table *calib = NULL;
    return compile_program(a, g, t, be, &o2, &calib, gp, kp, mp, d);
}

static int compile_graph(arena *a, const ir_graph *g0, ir_graph *consume, const driver_options *o,
                         diag *d);

/*
 * Issue 20: after an import that refused only unsupported operators, does the rest of the
 * graph compile? The part that does not wait on them (onnx_import_rest) is prepared (dims
 * bound from o, shapes inferred, constants folded) and lowered to kernel calls with a
 * quiet diag: a note when it passes, an error with the rest's messages when it does not.
 */
void
driver_check_rest(arena *a, const driver_options *o, diag *d)
{
    diag *quiet = diag_new(a, o->model, NULL);
    ir_graph *g = onnx_import_rest(o->model, a, quiet);
    const char *text, *file = diag_file(d);
    size_t fl = file ? strlen(file) : 0;
    kprog kp;
    int n = 0, i, errors = 0;
    char line[2048];
    size_t skip;
    if (!g)
        return;
    skip = strlen(diag_text(quiet)); /* the import's own messages: d has them already */
    for (i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i]->dead;
    memset(&kp, 0, sizeof kp);
    if (driver_prepare(g, o, quiet) == 0 && kp_lower_graph(a, g, &kp, quiet) == 0) {
        diag_note(d, NULL,
                  "the rest of the graph compiles: the %d node%s that do%s not read the "
                  "unsupported operators' results pass%s shape inference, constant folding "
                  "and lowering to kernels",
                  n, n == 1 ? "" : "s", n == 1 ? "es" : "", n == 1 ? "es" : "");
        return;
    }
    /* each of the rest's messages, without the file prefix that d adds again */
    for (text = diag_text(quiet) + skip; *text == '\n'; text++)
        ;
    for (; *text && errors < 8; errors++) {
        size_t len = strcspn(text, "\n");
        if (fl && len > fl + 2 && strncmp(text, file, fl) == 0 && text[fl] == ':')
            text += fl + 2, len -= fl + 2;
        snprintf(line, sizeof line, "%.*s", (int)len, text);
        diag_error(d, "the rest of the graph would not compile either: %s", line);
        text += len;
        if (*text == '\n')
            text++;
    }
}

int
driver_compile(arena *a, const driver_options *o, diag *d)
{
    const cg_backend *be = cg_backend_resolve(o->target, o->emit, o->cpu_only, d);
    ir_graph *g0;
    if (!be || (!be->write_graph && !resolve_target(o, d)))
        return -1;
    if (!(g0 = driver_import(a, o->model, d))) {
        driver_check_rest(a, o, d);
        return -1;
    }
    return compile_graph(a, g0, g0, o, d);
}

/* A backend that is not a C library (E-LSTM): prepare, prune, and its program. */
static int
compile_graph_only(arena *a, const ir_graph *g0, const cg_backend *be, const driver_options *o,
                   diag *d)
{
    ir_graph *g = ir_clone(a, g0);
    cg_options co;
    memset(&co, 0, sizeof co);
    co.be = be;
    co.outdir = o->outdir;
    co.sph = o->sph;
    if (driver_prepare(g, o, d) < 0 || driver_prune(g, o, d) < 0)
        return -1;
    return be->write_graph(a, g, &co, d);
}

int
driver_compile_graph(arena *a, const ir_graph *g0, const driver_options *o, diag *d)
{
    return compile_graph(a, g0, NULL, o, d);
}

/* --- issue 21: dims bound to a range ------------------------------------------------- */

/* The ranged dims of o into dm (names, bounds). Returns how many, or -1 after reporting
 * through d. */
static int
ranged_dims(const driver_options *o, cg_dims *dm, diag *d)
{
    int i;
    memset(dm, 0, sizeof *dm);
    for (i = 0; i < o->n_dims; i++) {
        if (!o->dims[i].min)
            continue;
        if (dm->n == CG_DIMS_MAX) {
            diag_error(d,
                       "--dim: at most %d dims may be ranges (MIN..MAX); bind '%s' to one "
                       "value",
                       CG_DIMS_MAX, o->dims[i].name);
            return -1;
        }
        dm->name[dm->n] = o->dims[i].name;
        dm->min[dm->n] = o->dims[i].min;
        dm->max[dm->n++] = o->dims[i].value;
    }
    return dm->n;
}

#define SAMPLES_MAX CG_DIMS_SAMPLES_MAX

/* Compile the model at every sample point of dm from clones (cl[j]) of the import, then
 * fit the host code's numbers (cg_dims_fit): what varies becomes an expression in the
 * run's dims. Returns 0, or -1 after reporting through d. */
static int
compile_samples(arena *a, ir_graph *const *cl, const target *t, const cg_backend *be,
                const driver_options *o, calib_table **calib, const ir_graph *g, kprog *kp,
                const memplan *mp, cg_dims *dm, int ns, const int64_t (*sv)[CG_DIMS_MAX], diag *d)
{
    const ir_graph *sg[SAMPLES_MAX];
    const kprog *skp[SAMPLES_MAX];
    const memplan *smp[SAMPLES_MAX];
    driver_options *so = arena_calloc(a, 1, sizeof *so);
    int j, i, k;
    for (j = 0; j < ns; j++) {
        diag *quiet = diag_new(a, o->model, NULL);
        kprog *kpj = arena_calloc(a, 1, sizeof *kpj);
        memplan *mpj = arena_calloc(a, 1, sizeof *mpj);
        ir_graph *gj = cl[j];
        *so = *o;
        so->print_after = NULL;
        so->time_passes = 0;
        for (i = 0; i < so->n_dims; i++)
            for (k = 0; k < dm->n; k++)
                if (so->dims[i].min && strcmp(so->dims[i].name, dm->name[k]) == 0)
                    so->dims[i].value = sv[j][k];
        if (driver_prepare(gj, so, quiet) < 0 ||
            compile_program(a, gj, t, be, so, calib, &gj, kpj, mpj, quiet) < 0) {
            const char *text = diag_text(quiet), *msg = strstr(text, "error: ");
            char at[200] = "";
            size_t len = 0;
            for (k = 0; k < dm->n; k++)
                len += (size_t)snprintf(at + len, sizeof at - len, "%s%s=%lld", k ? ", " : "",
                                        dm->name[k], (long long)sv[j][k]);
            msg = msg ? msg + 7 : text;
            diag_error(d, "--dim ranges: the model does not compile at %s: %.*s", at,
                       (int)strcspn(msg, "\n"), msg);
            return -1;
        }
        sg[j] = gj;
        skp[j] = kpj;
        smp[j] = mpj;
    }
    return cg_dims_fit(a, g, kp, mp, sg, skp, smp, ns, sv, dm, d);
}

/* The errors of diag from into d, without the file prefix d adds again. */
static void
relay_errors(diag *d, const diag *from)
{
    const char *text = diag_text(from), *file = diag_file(from);
    size_t fl = file ? strlen(file) : 0;
    while (*text) {
        size_t len = strcspn(text, "\n"), skip = 0;
        if (fl && len > fl + 2 && strncmp(text, file, fl) == 0 && text[fl] == ':')
            skip = fl + 2;
        if (len > skip)
            diag_error(d, "%.*s", (int)(len - skip), text + skip);
        text += len;
        text += *text == '\n';
    }
}

/* consume (g0 itself, or NULL): g0 (the import) serves this compile only, so once both programs are
 * cloned from it its constants may go (ir_graph_retire): lstmc then holds the weights once per
 * layout, not once more for the import (issue 19: a 100 MB model compiles in under 300 MB). */
static int
compile_graph(arena *a, const ir_graph *g0, ir_graph *consume, const driver_options *o, diag *d)
{
    const cg_backend *be;
    const target *t;
    ir_graph *g;
    ir_graph *gs;
    kprog kp;
    memplan mp;
    cg_options co;
    stream_info *si = arena_calloc(a, 1, sizeof *si);
    driver_options so;
    calib_table *calib = NULL; /* --calib, read once when a program runs breakpoints */
    char note[1200] = "";
    cg_dims *dm = arena_calloc(a, 1, sizeof *dm);
    int64_t sv[SAMPLES_MAX][CG_DIMS_MAX];
    ir_graph *cl[SAMPLES_MAX];
    int ns = 0, j, iter;
    driver_options *ro = arena_calloc(a, 1, sizeof *ro); /* o, with the retries' nofold */
    const char *nofold[64];
    int n_nofold = 0;

    if (!(be = cg_backend_resolve(o->target, o->emit, o->cpu_only, d))) /* codegen.c */
        return -1;
    driver_print_after(g0, o, "import");
    if (be->write_graph)
        return compile_graph_only(a, g0, be, o, d);
    if (!(t = resolve_target(o, d))) /* target/ */
        return -1;
    if (ranged_dims(o, dm, d) < 0) /* issue 21 */
        return -1;
    if (dm->n && be->gpu) {
        diag_error(d,
                   "--dim=%s=%lld..%lld: a ranged dim does not combine with an OpenCL "
                   "target ('%s') yet: its kernels are specialised to one shape; bind it "
                   "to one value",
                   dm->name[0], (long long)dm->min[0], (long long)dm->max[0], o->target);
        return -1;
    }
    if (dm->n)
        ns = cg_dims_samples(dm, sv);
    *ro = *o;
    if (o->activations) { /* issue 22: the ranges the integer layers are scaled to */
        pass_qrange *qr;
        if (driver_qranges(a, g0, o, &qr, &ro->n_qranges, d) < 0)
            return -1;
        ro->qranges = qr;
    }
    for (iter = 0;; iter++) { /* once; a ranged compile again with more nofold */
        diag *fd = dm->n ? diag_new(a, o->model, NULL) : d;
        int k, added = 0;
        memset(si, 0, sizeof *si);
        g = ir_clone(a, g0);
        gs = ir_clone(a, g0); /* unbound, for the step program (the weights are shared) */
        for (j = 0; j < ns; j++)
            cl[j] = ir_clone(a, g0); /* the sample points of the ranged dims */
        if (consume && !dm->n)
            ir_graph_retire(consume);
        if (driver_prepare(g, ro, d) < 0) /* prepare.c */
            return -1;
        stream_analyze(g, si); /* stream/ */
        if (si->ok && dm->n)
            stream_check_ranged(si, g, dm->n, dm->name);
        if (si->ok)
            stream_step_options(si, gs, g, ro, &so); /* from g's shapes, before the passes */
        else
            ir_graph_retire(gs);
        if (compile_program(a, g, t, be, ro, &calib, &g, &kp, &mp, d) < 0)
            return -1;
        if (!dm->n || compile_samples(a, cl, t, be, ro, &calib, g, &kp, &mp, dm, ns,
                                      (const int64_t(*)[CG_DIMS_MAX])sv, fd) == 0)
            break;
        /* constants folded from the dims: computed at run time instead, and again */
        for (k = 0; k < dm->n_vary && n_nofold < (int)(sizeof nofold / sizeof nofold[0]); k++) {
            int m;
            for (m = 0; m < n_nofold && strcmp(nofold[m], dm->vary[k]) != 0; m++)
                ;
            if (m == n_nofold) {
                nofold[n_nofold++] = dm->vary[k];
                added = 1;
            }
        }
        if ((!added && !(dm->want_dense && !dm->dense)) || iter == 8) {
            relay_errors(d, fd);
            return -1;
        }
        ro->nofold = nofold;
        ro->n_nofold = n_nofold;
        if (si->ok)
            ir_graph_retire(gs);
        ir_graph_retire(g);
        for (j = 0; j < ns; j++)
            ir_graph_retire(cl[j]);
        if (dm->want_dense && !dm->dense) { /* a floor of a dim, maybe: every value near MIN */
            dm->dense = 1;
            ns = cg_dims_samples(dm, sv);
        }
    }
    if (consume && dm->n)
        ir_graph_retire(consume);
    if (si->ok) { /* the <name>_step program: T = 1, the state in and out */
        diag *quiet = diag_new(a, o->model, NULL);
        stream_step_graph(gs, si); /* T = 1 in the Reshapes that spell it out */
        if (driver_prepare(gs, &so, quiet) < 0 || stream_state_io(gs, si, quiet) < 0 ||
            compile_program(a, gs, t, be, &so, &calib, &si->g, &si->kp, &si->mp, quiet) < 0)
            stream_refuse(si, diag_text(quiet)); /* the reason -> <NAME>_STREAM_WHY */
        else
            stream_check(si); /* e.g. tissues cut links in time */
    }
    { /* the constants only the import and the programs' inputs read: freed */
        const kprog *kps[2] = {&kp, si->ok ? &si->kp : NULL};
        if (!si->ok)
            ir_graph_retire(gs);
        kp_sweep(g, kps, 2);
    }
    memset(&co, 0, sizeof co);
    co.be = be;
    co.t = t;
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
    co.llvm = strcmp(cg_backend_cpu(be)->name, "llvm") == 0;
    co.threads = o->threads;
    co.opencl = be->gpu;
    co.dims = dm->n ? dm : NULL;
    if (co.opencl && co.placement != CG_WEIGHTS_CONST) {
        /* <name>_init uploads the weights to the device; blob and pointer bind them later */
        diag_error(d,
                   "--weights-placement=%s does not combine with an OpenCL target ('%s'): "
                   "the device buffers are filled from the weights at init",
                   o->weights_placement, o->target);
        return -1;
    }
    if (!o->no_budget) { /* the target's RAM and flash, before anything is written */
        cg_c_sizes sz;
        cg_c_sizes_of(g, &mp, &co, &sz);
        if (driver_check_budget(g, &kp, &mp, t, &co, &sz, d, note, sizeof note) < 0)
            return -1; /* limits.c */
    }
    if (cg_write(g, &kp, &mp, &co, d) < 0) /* codegen/ */
        return -1;
    fputs(note, stdout); /* how the model fits, after the size report */
    fflush(stdout);
    return 0;
}

int
driver_host_streams_without_prefetch(void)
{
    return cg_cpu_streams_without_prefetch(NULL);
}

int
driver_host_bf16_dot(void)
{
    return cg_host_bf16_dot();
}

int
driver_host_vnni(void)
{
    return cg_host_vnni();
}
