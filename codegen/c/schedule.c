/*
 * schedule.c — <name>.c, the kernel program as a readable schedule (llama2.c-style): one
 * block per kernel call with a shape comment, its params and its buffers as fixed arena
 * offsets, inputs, outputs or weights; a wavefront group as one call of its LLVM kernel;
 * <name>_init, _set_thresholds and _run. Nothing generated here allocates.
 */
#include "c_impl.h"
#include "cg_ident.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>

/* ORDER KP_KIND: the OWN calls of kp_kinds.def (FILL, COPY) are written by hand in
 * cg_c_put_call; every other call is its row's standard argument list. */
static_assert(KP_KIND_COUNT == 39, "ORDER KP_KIND: a new OWN row needs its call in cg_c_put_call");

/* NAME_OFF_<tensor>: the arena offset of tensor id of g (name: the lower-case prefix). */
static void
put_off(FILE *f, const char *name, const ir_graph *g, int id)
{
    char NAME[128], prefix[160], buf[CG_IDENT_MAX];
    cg_c_upper(name, NAME, sizeof NAME);
    snprintf(prefix, sizeof prefix, "%s_OFF", NAME);
    cg_tensor_ident(buf, prefix, g, id);
    fputs(buf, f);
}

/* NAME_SCRATCH<idx>: the arena offset of the scratch of call idx. */
static void
put_scratch(FILE *f, const char *name, int idx)
{
    char NAME[128];
    cg_c_upper(name, NAME, sizeof NAME);
    fprintf(f, "%s_SCRATCH%d", NAME, idx);
}

void
cg_c_put_arena_names(FILE *f, const char *name, const ir_graph *g, const memplan *mp,
                     const kprog *kp)
{
    int i, n = 0;
    for (i = 0; i < g->n_tensors; i++) {
        if (mp->tensor[i].kind != MEMPLAN_ARENA)
            continue;
        if (n++ == 0)
            fputs("/* where the buffers are in the arena (bytes from its start) */\n", f);
        fputs("#define ", f);
        put_off(f, name, g, i);
        fprintf(f, " %lld /* %s %s", (long long)mp->tensor[i].offset, g->tensors[i]->name,
                ir_dtype_name(g->tensors[i]->dtype));
        cg_c_put_shape(f, &g->tensors[i]->shape);
        fputs(" */\n", f);
    }
    for (i = 0; i < kp->n_calls; i++) {
        if (kp->calls[i].scratch_bytes <= 0)
            continue;
        if (n++ == 0)
            fputs("/* where the buffers are in the arena (bytes from its start) */\n", f);
        fputs("#define ", f);
        put_scratch(f, name, i);
        fprintf(f, " %lld /* scratch of call %d */\n", (long long)mp->scratch[i], i);
    }
    if (n)
        fputc('\n', f);
}

static void
put_buf(FILE *f, const char *name, const ir_graph *g, const memplan *mp, const ir_tensor *t,
        const char *type, int is_const)
{
    const char *ty = type ? type : "void";
    const memplan_loc *l;
    if (!t) {
        fputs("NULL", f);
        return;
    }
    l = &mp->tensor[t->id];
    switch (l->kind) {
    case MEMPLAN_INPUT:
        fprintf(f, "(const %s *)inputs[%d]", ty, l->index);
        break;
    case MEMPLAN_OUTPUT:
        fprintf(f, "(%s%s *)outputs[%d]", is_const ? "const " : "", ty, l->index);
        break;
    case MEMPLAN_CONST:
        cg_c_put_const(f, name, g, l->index);
        break;
    case MEMPLAN_ARENA:
        fprintf(f, "(%s%s *)(arena + ", is_const ? "const " : "", ty);
        put_off(f, name, g, t->id);
        fputc(')', f);
        break;
    default:
        fputs("NULL", f);
        break;
    }
}

static void
put_tensor_comment(FILE *f, const ir_tensor *t)
{
    fprintf(f, "%s %s", t->name, ir_dtype_name(t->dtype));
    cg_c_put_shape(f, &t->shape);
}

void
cg_c_put_call(FILE *f, const char *name, const ir_graph *g, const memplan *mp, const kp_call *c,
              int idx, int llvm, const cg_dims *dims)
{
    const char *dyn_params = dims ? dims->call_params[idx] : NULL;
    const char *dyn_size = dims ? dims->call_size[idx] : NULL;
    const kp_kind_info *k = &kp_kinds[c->kind];
    int j, first = 1;
    fprintf(f, "    /* --- %d: ", idx);
    if (c->node)
        fprintf(f, "node '%s' (%s)", c->node->name, c->node->op_type);
    else
        fputs("output copy", f);
    fputs("\n     *   in:  ", f);
    for (j = 0; j < c->n_in; j++) {
        if (!c->in[j])
            continue;
        fputs(first ? "" : ", ", f);
        put_tensor_comment(f, c->in[j]);
        first = 0;
    }
    first = 1;
    fputs("\n     *   out: ", f);
    for (j = 0; j < c->n_out; j++) {
        if (!c->out[j])
            continue;
        fputs(first ? "" : ", ", f);
        put_tensor_comment(f, c->out[j]);
        first = 0;
    }
    fputs(" */\n    {\n", f);
    if (dyn_params) { /* issue 21: this run's sizes */
        fputs("        ", f);
        fputs(dyn_params, f);
    } else if (c->kind != KP_COPY) {
        fputs("        ", f);
        cg_c_put_params(f, c);
    }
    if (k->stats & KP_STATS_TISSUE)
        fputs("        lstmc_rt_tissue_stats stats;\n", f);
    if (k->stats & KP_STATS_DRS)
        fputs("        lstmc_rt_drs_stats drs;\n", f);
    if (llvm)
        fprintf(f, "        st = %s_k%d(", name, idx); /* LLVM kernel, same signature */
    else
        fprintf(f, "        st = %s(", kp_call_fn(c)); /* per weight format (lowp.h) */
    if (c->kind == KP_FILL) {                          /* the OWN calls of kp_kinds.def */
        put_buf(f, name, g, mp, c->out[0], NULL, 0);
        if (dyn_size)
            fprintf(f, ", %s, %d, value);\n", dyn_size, c->p.fill.elem_size);
        else
            fprintf(f, ", %lld, %d, value);\n", (long long)c->p.fill.n, c->p.fill.elem_size);
    } else if (c->kind == KP_COPY) {
        put_buf(f, name, g, mp, c->out[0], NULL, 0);
        fputs(", ", f);
        put_buf(f, name, g, mp, c->in[0], NULL, 1);
        if (dyn_size)
            fprintf(f, ", %s);\n", dyn_size);
        else
            fprintf(f, ", %lld);\n", (long long)c->p.copy.n_bytes);
    } else {
        fputs("&p", f);
        if (k->stats & KP_STATS_TISSUE) /* per-run (§IV-D) */
            fputs(", ctx->alpha_inter", f);
        if (k->stats & KP_STATS_DRS) /* per-run (§V, §VI-C) */
            fputs(", ctx->alpha_intra", f);
        for (j = 0; j < c->n_in; j++) {
            fputs(j % 3 == 0 ? ",\n                " : ", ", f);
            put_buf(f, name, g, mp, c->in[j], kp_arg_type(c, j), 1);
        }
        for (j = 0; j < c->n_out; j++) {
            fputs(",\n                ", f);
            put_buf(f, name, g, mp, c->out[j], kp_arg_type(c, c->n_in + j), 0);
        }
        if (k->stats & KP_STATS_TISSUE)
            fputs(",\n                &stats", f);
        if (k->stats & KP_STATS_DRS)
            fputs(",\n                &drs", f);
        if (c->scratch_bytes > 0) {
            fprintf(f, ",\n                (%s *)(arena + ", k->scratch ? k->scratch : "float");
            put_scratch(f, name, idx);
            fputc(')', f);
        }
        fputs(");\n", f);
    }
    fputs("        if (st != LSTMC_RT_OK)\n            return st;\n", f);
    if (k->stats & KP_STATS_DRS)
        fputs("        ctx->drs_stats.cells += drs.cells;\n"
              "        ctx->drs_stats.rows_total += drs.rows_total;\n"
              "        ctx->drs_stats.rows_skipped += drs.rows_skipped;\n"
              "        ctx->drs_stats.rows_loaded += drs.rows_loaded;\n",
              f);
    if (k->stats & KP_STATS_TISSUE)
        fputs("        ctx->tissue_stats.cells += stats.cells;\n"
              "        ctx->tissue_stats.links += stats.links;\n"
              "        ctx->tissue_stats.sub_layers += stats.sub_layers;\n"
              "        ctx->tissue_stats.tissues += stats.tissues;\n",
              f);
    fputs("    }\n", f);
}

/* What the calls of kp read of their function's variables (CG_C_USES_*): the generated
 * functions declare and take only those. */
unsigned
cg_c_calls_use(const kprog *kp, const memplan *mp)
{
    unsigned u = 0;
    int i, j;
    for (i = 0; i < kp->n_calls; i++) {
        const kp_call *c = &kp->calls[i];
        const kp_kind_info *k = &kp_kinds[c->kind];
        if (c->scratch_bytes > 0)
            u |= CG_C_USES_ARENA;
        if (k->stats & (KP_STATS_TISSUE | KP_STATS_DRS))
            u |= CG_C_USES_CTX;
        for (j = 0; j < c->n_in + c->n_out; j++) {
            const ir_tensor *t = j < c->n_in ? c->in[j] : c->out[j - c->n_in];
            memplan_kind m = t ? mp->tensor[t->id].kind : MEMPLAN_NONE;
            u |= m == MEMPLAN_ARENA    ? CG_C_USES_ARENA
                 : m == MEMPLAN_INPUT  ? CG_C_USES_INPUTS
                 : m == MEMPLAN_OUTPUT ? CG_C_USES_OUTPUTS
                 : m == MEMPLAN_CONST  ? CG_C_USES_WEIGHTS
                                       : 0;
        }
    }
    return u;
}

/* The calls of wavefront group w (compiler/kprog/schedule.c): one call of the LLVM kernel
 * <name>_wv<first> with every buffer of the group in an array (cg_wave_slot order). */
/* Issue 21: the value of field (".seq_len = ", ".batch = ") in call i's params of this run
 * (cg_dims.call_params), or its constant. */
static void
put_field_expr(FILE *f, const cg_dims *dims, int i, const char *field, int64_t v)
{
    const char *at = dims && dims->call_params[i] ? strstr(dims->call_params[i], field) : NULL;
    if (at)
        fprintf(f, "%.*s", (int)strcspn(at + strlen(field), ",}"), at + strlen(field));
    else
        fprintf(f, "%lld", (long long)v);
}

static void
put_wave_call(FILE *f, const char *name, const ir_graph *g, const memplan *mp, const kprog *kp,
              const kp_wave *w, const cg_dims *dims)
{
    int i, j, q, dyn = 0;
    for (i = w->first; i <= w->last; i++)
        dyn |= kp->calls[i].dyn != 0;
    fprintf(f,
            "    /* --- %d..%d: wavefront: %d LSTM layers on %d threads, chunks of %lld steps"
            " (layers per thread:",
            w->first, w->last, w->n_layers, w->threads, (long long)w->chunk);
    for (q = 0; q < w->stages; q++)
        fprintf(f, " %d", w->stage_end[q] - (q ? w->stage_end[q - 1] : 0));
    fputs(")\n     *   nodes:", f);
    for (i = w->first; i <= w->last; i++)
        if (kp->calls[i].node)
            fprintf(f, " '%s' (%s)", kp->calls[i].node->name, kp->calls[i].node->op_type);
    fputs(" */\n    {\n", f);
    if (dyn) { /* the run's T and N after the buffers (codegen/llvm/wave.c, issue 21) */
        const kp_call *r = &kp->calls[w->rec[0]];
        fputs("        int64_t tn[2] = {", f);
        put_field_expr(f, dims, w->rec[0], ".seq_len = ", r->p.rnn.seq_len);
        fputs(", ", f);
        put_field_expr(f, dims, w->rec[0], ".batch = ", r->p.rnn.batch);
        fputs("};\n", f);
    }
    fputs("        void *const a[] = {", f);
    for (i = w->first; i <= w->last; i++) {
        const kp_call *c = &kp->calls[i];
        for (j = 0; j < c->n_in + c->n_out; j++) {
            fputs("\n            (void *)", f);
            put_buf(f, name, g, mp, j < c->n_in ? c->in[j] : c->out[j - c->n_in], NULL, 0);
            fputc(',', f);
        }
        if (c->scratch_bytes > 0) {
            fputs("\n            (void *)(arena + ", f);
            put_scratch(f, name, i);
            fputs("),", f);
        }
    }
    if (dyn)
        fputs("\n            (void *)tn,", f);
    fprintf(f, "\n        };\n        st = %s_wv%d(a);\n", name, w->first);
    fputs("        if (st != LSTMC_RT_OK)\n            return st;\n    }\n", f);
}

/* Declarations of the kernels another backend runs (<name>_kernels.o, <name>_ocl.c): each
 * has the function type of the runtime kernel it replaces (lstmc_rt_kernels.h, FN_fn). */
void
cg_c_put_llvm_protos(FILE *f, const char *name, const kprog *kp, const unsigned char *handled)
{
    int i, n = 0;
    for (i = 0; handled && i < kp->n_calls; i++) {
        if (!handled[i])
            continue;
        if (n++ == 0)
            fprintf(f,
                    "/* kernels specialised to this model's shapes: %s_kernels.o (LLVM) or "
                    "%s_ocl.c (OpenCL) */\n",
                    name, name);
        cg_c_put_kernel_decl(f, &kp->calls[i], name, "k", i);
    }
    if (n)
        fputc('\n', f);
}

void
cg_c_put_kernel_decl(FILE *f, const kp_call *c, const char *name, const char *tag, int idx)
{
    /* weights in a reduced-precision format (passes/lowp.c) are words, not floats; the tissue
     * kernel takes U as const void * in every format (its params say which) */
    fprintf(f, "%s%s_fn %s_%s%d;\n", kp_kinds[c->kind].fn,
            c->wfmt && c->kind != KP_LSTM_TISSUE ? "_lowp" : "", name, tag, idx);
}

/* Threads of the LLVM kernels (cg_llvm_kernels: handled[i] > 1 for a multi-core kernel). */
int
cg_c_pool_threads(const kprog *kp, const unsigned char *handled)
{
    int i, n = 1;
    for (i = 0; handled && i < kp->n_calls; i++)
        if (handled[i] > n)
            n = handled[i];
    return n;
}

/* Issue 21: dims_ok (every ranged dim within its bounds) and <name>_input_shape /
 * _output_shape, the shapes of a run at dims (cg_dims: expressions over dims[k]). */
static void
put_dims_functions(FILE *f, const ir_graph *g, const kprog *kp, const cg_options *o)
{
    const cg_dims *dm = o->dims;
    int i, w;
    fputs("/* every ranged dim within its bounds (lstmc --dim=SYM=MIN..MAX) */\n"
          "static int\ndims_ok(const int64_t *dims)\n{\n    return ",
          f);
    for (i = 0; i < dm->n; i++)
        fprintf(f, "%sdims[%d] >= %lld && dims[%d] <= %lld", i ? " &&\n           " : "", i,
                (long long)dm->min[i], i, (long long)dm->max[i]);
    fputs(";\n}\n\n", f);
    for (w = 0; w < 2; w++) {
        const int n = w ? kp->n_outputs : g->n_inputs;
        char *const *shape = w ? dm->out_shape : dm->in_shape;
        fprintf(f,
                "int\n%s_%s_shape(const int64_t *dims, int i, int64_t *shape)\n{\n"
                "    if (!dims || !shape || !dims_ok(dims))\n        return -1;\n"
                "    switch (i) {\n",
                o->name, w ? "output" : "input");
        for (i = 0; i < n; i++) {
            const ir_tensor *t = w ? kp->outputs[i] : g->inputs[i];
            if (t->shape.rank <= 0)
                fprintf(f, "    case %d:\n        return 0;\n", i);
            else
                fprintf(f,
                        "    case %d: {\n        const int64_t s[%d] = %s;\n"
                        "        memcpy(shape, s, sizeof s);\n        return %d;\n    }\n",
                        i, t->shape.rank, shape[i], t->shape.rank);
        }
        fputs("    default:\n        return -1;\n    }\n}\n\n", f);
    }
}

int
cg_c_write_host(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
                const unsigned char *handled, const unsigned char *handled_s, diag *d)
{
    out_file of;
    FILE *f;
    char fname[256];
    char NAME[128];
    int i, use_arena = (cg_c_calls_use(kp, mp) & CG_C_USES_ARENA) != 0;
    cg_c_upper(o->name, NAME, sizeof NAME);
    snprintf(fname, sizeof fname, "%s.c", o->name);
    if (cg_c_open_out(&of, o->outdir, fname, d) < 0)
        return -1;
    f = of.f;
    fprintf(f,
            "/*\n * %s.c — generated by lstmc from %s: the schedule, one kernel call per "
            "block.\n * Buffers live in the caller's arena at fixed offsets (%lld bytes in "
            "all); nothing\n * here allocates.\n */\n"
            "#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n#include "
            "\"%s.h\"\n#include "
            "\"%s_weights.h\"\n#include \"lstmc_rt_kernels.h\"\n\n",
            o->name, g->file, (long long)mp->arena_size, o->name, o->name);
    cg_c_put_llvm_protos(f, o->name, kp, handled);
    for (i = 0; handled && i < kp->n_waves; i++) /* stacked layers as a wavefront (wave.c) */
        fprintf(f, "lstmc_rt_status %s_wv%d(void *const *a);\n%s", o->name, kp->waves[i].first,
                i + 1 == kp->n_waves ? "\n" : "");
    if (o->opencl) /* the recurrent layers run on an OpenCL device (codegen/opencl/opencl.c) */
        fprintf(f, "#include \"%s_ocl.h\"\n\n", o->name);
    cg_c_put_weight_macros(f, g, mp, o);
    cg_c_put_arena_names(f, o->name, g, mp, kp);
    fprintf(f,
            "lstmc_rt_status\n%s_init(%s_ctx *ctx, void *arena, size_t size)\n{\n"
            "    lstmc_rt_status st;\n    if (!ctx)\n        return LSTMC_RT_ERR_NULL;\n"
            "    st = lstmc_rt_arena_check(arena, size, %s_ARENA_SIZE);\n"
            "    if (st != LSTMC_RT_OK)\n        return st;\n"
            "    ctx->arena = (unsigned char *)arena;\n    ctx->arena_size = size;\n"
            "    ctx->weights = NULL;\n"
            "    ctx->alpha_inter = %s_ALPHA_INTER;\n    ctx->alpha_intra = %s_ALPHA_INTRA;\n"
            "    memset(&ctx->tissue_stats, 0, sizeof ctx->tissue_stats);\n"
            "    memset(&ctx->drs_stats, 0, sizeof ctx->drs_stats);\n",
            o->name, o->name, NAME, NAME, NAME);
    if (o->opencl) /* device, kernels and device buffers: once, here */
        fprintf(f, "    st = %s_ocl_init();\n    if (st != LSTMC_RT_OK)\n        return st;\n",
                o->name);
    if (cg_c_pool_threads(kp, handled) > 1) /* the multi-core kernels' workers: here, not in _run */
        fprintf(f, "    (void)lstmc_rt_pool_start(%d);\n", cg_c_pool_threads(kp, handled));
    fputs("    return LSTMC_RT_OK;\n}\n\n", f);
    cg_c_put_weight_binders(f, o);
    fprintf(f,
            "lstmc_rt_status\n%s_set_thresholds(%s_ctx *ctx, float alpha_inter, float "
            "alpha_intra)\n{\n"
            "    if (!ctx)\n        return LSTMC_RT_ERR_NULL;\n"
            "    /* x - x is 0 for finite x, NaN for NaN and infinity */\n"
            "    if (!(alpha_inter >= 0.0f && alpha_inter - alpha_inter == 0.0f) ||\n"
            "        !(alpha_intra >= 0.0f && alpha_intra - alpha_intra == 0.0f))\n"
            "        return LSTMC_RT_ERR_BAD_PARAMS;\n"
            "    ctx->alpha_inter = alpha_inter;\n    ctx->alpha_intra = alpha_intra;\n"
            "    return LSTMC_RT_OK;\n}\n\n",
            o->name, o->name);
    if (o->dims)
        put_dims_functions(f, g, kp, o);
    fprintf(f,
            "lstmc_rt_status\n%s_run%s(%s_ctx *ctx, %sconst void *const *inputs, void *const "
            "*outputs)\n{\n%s    lstmc_rt_status st = LSTMC_RT_OK;\n"
            "    if (!ctx || !inputs || !outputs%s)\n        return LSTMC_RT_ERR_NULL;\n"
            "%s"
            "    if (ctx->arena_size < %s_RUN_ARENA_SIZE) /* bound by _init_stream */\n"
            "        return LSTMC_RT_ERR_ARENA_TOO_SMALL;\n"
            "%s%s"
            "    memset(&ctx->tissue_stats, 0, sizeof ctx->tissue_stats);\n"
            "    memset(&ctx->drs_stats, 0, sizeof ctx->drs_stats);\n",
            o->name, o->dims ? "_dims" : "", o->name, o->dims ? "const int64_t *dims, " : "",
            use_arena ? "    unsigned char *arena;\n" : "", o->dims ? " || !dims" : "",
            o->dims ? "    if (!dims_ok(dims))\n        return LSTMC_RT_ERR_BAD_PARAMS;\n" : "",
            NAME,
            o->placement != CG_WEIGHTS_CONST
                ? "    if (!ctx->weights)\n        return LSTMC_RT_ERR_NO_WEIGHTS;\n"
                : "",
            use_arena ? "    arena = ctx->arena;\n" : "");
    for (i = 0; i < g->n_inputs; i++)
        fprintf(f, "    if (!inputs[%d])\n        return LSTMC_RT_ERR_NULL;\n", i);
    for (i = 0; i < kp->n_outputs; i++)
        fprintf(f, "    if (!outputs[%d])\n        return LSTMC_RT_ERR_NULL;\n", i);
    fputc('\n', f);
    for (i = 0; i < kp->n_calls; i++) {
        const kp_wave *w = handled ? kp_wave_of(kp, i) : NULL;
        if (w) { /* the group's calls run in one kernel */
            if (i == w->first)
                put_wave_call(f, o->name, g, mp, kp, w, o->dims);
            continue;
        }
        cg_c_put_call(f, o->name, g, mp, &kp->calls[i], i, handled && handled[i], o->dims);
    }
    fputs("    return st;\n}\n", f);
    if (o->dims) { /* _run: every dim at its MAX */
        fprintf(f,
                "\nlstmc_rt_status\n%s_run(%s_ctx *ctx, const void *const *inputs, void "
                "*const *outputs)\n{\n    static const int64_t dims[%d] = {",
                o->name, o->name, o->dims->n);
        for (i = 0; i < o->dims->n; i++)
            fprintf(f, "%s%lld", i ? ", " : "", (long long)o->dims->max[i]);
        fprintf(f, "};\n    return %s_run_dims(ctx, dims, inputs, outputs);\n}\n", o->name);
    }
    cg_c_put_stream_host(f, g, mp, o, handled_s);
    return cg_c_close_out(&of, d);
}
