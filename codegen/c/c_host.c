/*
 * c_host.c — portable C99 host code for a planned kernel program: the public header, the
 * schedule (<name>.c, one block per kernel call, llama2.c-style shape comments), the weights,
 * the .npy driver and the Makefile, plus a copy of the runtime sources.
 */
#include "codegen.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "embed.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"
#include "stream.h"

typedef struct out_file {
    FILE *f;
    char path[4096];
    char tmp[4200];
} out_file;

static int
ensure_dir(const char *path, diag *d)
{
    char buf[4096];
    size_t i, n = strlen(path);
    if (n >= sizeof buf) {
        diag_error(d, "output path '%s' is too long", path);
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                diag_error(d, "cannot create folder '%s': %s", buf, strerror(errno));
                return -1;
            }
            buf[i] = c;
        }
    }
    return 0;
}

static int
open_out(out_file *o, const char *dir, const char *name, diag *d)
{
    if (snprintf(o->path, sizeof o->path, "%s/%s", dir, name) >= (int)sizeof o->path ||
        snprintf(o->tmp, sizeof o->tmp, "%s.tmp", o->path) >= (int)sizeof o->tmp) {
        diag_error(d, "output path '%s/%s' is too long", dir, name);
        return -1;
    }
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        diag_error(d, "cannot write '%s': %s", o->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

static int
close_out(out_file *o, diag *d)
{
    int bad = ferror(o->f);
    if (fclose(o->f) != 0 || bad) {
        diag_error(d, "cannot write '%s'", o->tmp);
        remove(o->tmp);
        return -1;
    }
    if (rename(o->tmp, o->path) != 0) {
        diag_error(d, "cannot rename '%s' to '%s': %s", o->tmp, o->path, strerror(errno));
        remove(o->tmp);
        return -1;
    }
    return 0;
}

int
cg_name_ok(const char *s)
{
    size_t i;
    if (!s || !*s || strlen(s) > 64)
        return 0;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return 0;
    for (i = 1; s[i]; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

void
cg_sanitize_filename(const char *name, char *buf, unsigned long n)
{
    unsigned long i;
    if (n == 0)
        return;
    for (i = 0; name[i] && i + 1 < n; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.' || c == '-';
        buf[i] = ok ? c : '_';
    }
    buf[i] = '\0';
    /* "", "." and ".." are not file names one can write: prefix '_' */
    if (strcmp(buf, ".") == 0 || strcmp(buf, "..") == 0 || buf[0] == '\0') {
        size_t len = strlen(buf);
        if (len + 2 <= n) {
            memmove(buf + 1, buf, len + 1);
            buf[0] = '_';
        }
    }
}

static void
upper(const char *s, char *buf, size_t n)
{
    size_t i;
    for (i = 0; s[i] && i + 1 < n; i++)
        buf[i] = (s[i] >= 'a' && s[i] <= 'z') ? (char)(s[i] - 'a' + 'A') : s[i];
    buf[i] = '\0';
}

static const char *
ctype(ir_dtype t)
{
    switch (t) {
    case IR_DT_F32: return "float";
    case IR_DT_I64: return "int64_t";
    case IR_DT_I32: return "int32_t";
    case IR_DT_BOOL: return "uint8_t";
    default: return "unsigned char";
    }
}

static const char *
rt_dtype(ir_dtype t)
{
    switch (t) {
    case IR_DT_F32: return "LSTMC_RT_F32";
    case IR_DT_I64: return "LSTMC_RT_I64";
    case IR_DT_I32: return "LSTMC_RT_I32";
    case IR_DT_BOOL: return "LSTMC_RT_U8";
    default: return "0";
    }
}

/* A float as a C literal that reads back to the same value. */
static void
put_float(FILE *f, float v)
{
    char buf[64];
    if (isnan(v)) {
        fputs("NAN", f);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? "INFINITY" : "-INFINITY", f);
        return;
    }
    snprintf(buf, sizeof buf, "%.9g", (double)v);
    if (!strpbrk(buf, ".en"))
        strcat(buf, ".0");
    fprintf(f, "%sf", buf);
}

static void
put_shape(FILE *f, const ir_shape *s)
{
    int i;
    fputc('[', f);
    for (i = 0; i < s->rank; i++)
        fprintf(f, "%s%lld", i ? "," : "", (long long)s->d[i]);
    fputc(']', f);
}

static void
put_i64s(FILE *f, const int64_t *v, int n)
{
    int i;
    fputc('{', f);
    for (i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (n == 0)
        fputc('0', f);
    fputc('}', f);
}

/* --- params structs as C initialisers -------------------------------------------- */

/* The fields of an lstmc_rt_rnn_params as a C initialiser "{...}". */
static void
put_rnn_fields(FILE *f, const lstmc_rt_rnn_params *p)
{
    int i;
    fprintf(f,
            "{\n"
            "            .cell = %d, .seq_len = %lld, .batch = %lld, .input_size = %lld,\n"
            "            .hidden = %lld, .n_dirs = %d, .reverse = %d, .layout = %d,\n"
            "            .has_clip = %d, .clip = ",
            p->cell, (long long)p->seq_len, (long long)p->batch, (long long)p->input_size,
            (long long)p->hidden, p->n_dirs, p->reverse, p->layout, p->has_clip);
    put_float(f, p->clip);
    fprintf(f, ", .input_forget = %d,\n            .linear_before_reset = %d,\n"
               "            .act = {",
            p->input_forget, p->linear_before_reset);
    for (i = 0; i < 6; i++) {
        fprintf(f, "%s{%d, ", i ? ", " : "", p->act[i].kind);
        put_float(f, p->act[i].alpha);
        fputs(", ", f);
        put_float(f, p->act[i].beta);
        fputc('}', f);
    }
    fprintf(f, "},\n            .packed = %d", p->packed);
    if (p->hsparse_th != 0.0f) { /* passes/hsparse.c */
        fputs(", .hsparse_th = ", f);
        put_float(f, p->hsparse_th);
    }
    fputc('}', f);
}

static void
put_params(FILE *f, const kp_call *c)
{
    int i;
    switch (c->kind) {
    case KP_RNN_PROJ: {
        const lstmc_rt_rnn_proj_params *p = &c->p.proj;
        fprintf(f,
                "static const lstmc_rt_rnn_proj_params p = {.cell = %d, .n_dirs = %d, "
                ".rows = %lld,\n            .input_size = %lld, .hidden = %lld, "
                ".linear_before_reset = %d, .packed = %d};\n",
                p->cell, p->n_dirs, (long long)p->rows, (long long)p->input_size,
                (long long)p->hidden, p->linear_before_reset, p->packed);
        break;
    }
    case KP_RNN:
    case KP_RNN_REC:
        fputs("static const lstmc_rt_rnn_params p = ", f);
        put_rnn_fields(f, &c->p.rnn);
        fputs(";\n", f);
        break;
    case KP_LSTM_DRS:
        fputs("static const lstmc_rt_rnn_params p = ", f);
        put_rnn_fields(f, &c->p.drs.p);
        fputs(";\n", f);
        break;
    case KP_LSTM_TISSUE:
    case KP_LSTM_TISSUE_DRS:
        fputs("static const lstmc_rt_tissue_params p = {.rnn = ", f);
        put_rnn_fields(f, &c->p.tissue.p.rnn);
        fprintf(f, ",\n            .mts = %d};\n", c->p.tissue.p.mts);
        break;
    case KP_GEMM: {
        const lstmc_rt_gemm_params *p = &c->p.gemm;
        fprintf(f,
                "static const lstmc_rt_gemm_params p = {.m = %lld, .n = %lld, .k = %lld, "
                ".trans_a = %d, .trans_b = %d,\n            .alpha = ",
                (long long)p->m, (long long)p->n, (long long)p->k, p->trans_a, p->trans_b);
        put_float(f, p->alpha);
        fputs(", .beta = ", f);
        put_float(f, p->beta);
        fprintf(f, ", .c_stride_m = %lld, .c_stride_n = %lld};\n", (long long)p->c_stride_m,
                (long long)p->c_stride_n);
        break;
    }
    case KP_MATMUL: {
        const lstmc_rt_matmul_params *p = &c->p.matmul;
        fprintf(f, "static const lstmc_rt_matmul_params p = {.n_batch = %d, .batch = ",
                p->n_batch);
        put_i64s(f, p->batch, p->n_batch);
        fputs(",\n            .a_stride = ", f);
        put_i64s(f, p->a_stride, p->n_batch);
        fputs(", .b_stride = ", f);
        put_i64s(f, p->b_stride, p->n_batch);
        fprintf(f, ",\n            .m = %lld, .n = %lld, .k = %lld};\n", (long long)p->m,
                (long long)p->n, (long long)p->k);
        break;
    }
    case KP_BINARY: {
        const lstmc_rt_binary_params *p = &c->p.binary;
        fprintf(f, "static const lstmc_rt_binary_params p = {.op = %d, .dtype = %d, .rank = %d,",
                p->op, p->dtype, p->rank);
        fputs("\n            .out_dims = ", f);
        put_i64s(f, p->out_dims, p->rank);
        fputs(",\n            .a_stride = ", f);
        put_i64s(f, p->a_stride, p->rank);
        fputs(",\n            .b_stride = ", f);
        put_i64s(f, p->b_stride, p->rank);
        fputs("};\n", f);
        break;
    }
    case KP_UNARY:
        fprintf(f, "static const lstmc_rt_unary_params p = {.op = %d, .n = %lld};\n",
                c->p.unary.op, (long long)c->p.unary.n);
        break;
    case KP_SOFTMAX:
        fprintf(f,
                "static const lstmc_rt_softmax_params p = {.log_softmax = %d, .outer = %lld, "
                ".axis_len = %lld, .inner = %lld};\n",
                c->p.softmax.log_softmax, (long long)c->p.softmax.outer,
                (long long)c->p.softmax.axis_len, (long long)c->p.softmax.inner);
        break;
    case KP_CAST:
        fprintf(f, "static const lstmc_rt_cast_params p = {.from = %d, .to = %d, .n = %lld};\n",
                c->p.cast.from, c->p.cast.to, (long long)c->p.cast.n);
        break;
    case KP_ARGMAX:
        fprintf(f,
                "static const lstmc_rt_argmax_params p = {.dtype = %d, .select_last_index = %d,"
                "\n            .outer = %lld, .axis_len = %lld, .inner = %lld};\n",
                c->p.argmax.dtype, c->p.argmax.select_last_index, (long long)c->p.argmax.outer,
                (long long)c->p.argmax.axis_len, (long long)c->p.argmax.inner);
        break;
    case KP_STRIDED: {
        const lstmc_rt_strided_params *p = &c->p.strided;
        fprintf(f,
                "static const lstmc_rt_strided_params p = {.rank = %d, .elem_size = %d, "
                ".offset = %lld,\n            .out_dims = ",
                p->rank, p->elem_size, (long long)p->offset);
        put_i64s(f, p->out_dims, p->rank);
        fputs(", .in_stride = ", f);
        put_i64s(f, p->in_stride, p->rank);
        fputs("};\n", f);
        break;
    }
    case KP_GATHER:
        fprintf(f,
                "static const lstmc_rt_gather_params p = {.elem_size = %d, .index_dtype = %d,"
                "\n            .outer = %lld, .axis_len = %lld, .inner = %lld, .n_indices = "
                "%lld};\n",
                c->p.gather.elem_size, c->p.gather.index_dtype, (long long)c->p.gather.outer,
                (long long)c->p.gather.axis_len, (long long)c->p.gather.inner,
                (long long)c->p.gather.n_indices);
        break;
    case KP_CONCAT:
        fprintf(f,
                "static const lstmc_rt_concat_params p = {.elem_size = %d, .outer = %lld, "
                ".in_cols = %lld,\n            .out_cols = %lld, .offset = %lld};\n",
                c->p.concat.elem_size, (long long)c->p.concat.outer,
                (long long)c->p.concat.in_cols, (long long)c->p.concat.out_cols,
                (long long)c->p.concat.offset);
        break;
    case KP_FILL:
        fputs("static const unsigned char value[8] = {", f);
        for (i = 0; i < 8; i++)
            fprintf(f, "%s%u", i ? ", " : "", c->p.fill.value[i]);
        fputs("};\n", f);
        break;
    default:
        break;
    }
}

/* --- buffer expressions ------------------------------------------------------------ */

/* C type of buffer argument j (inputs first, then outputs) of a call kind; NULL = void. */
static const char *
arg_type(const kp_call *c, int j)
{
    switch (c->kind) {
    case KP_RNN:
        return j == 4 ? "int32_t" : "float";
    case KP_RNN_REC:
    case KP_LSTM_TISSUE:
    case KP_LSTM_DRS:
    case KP_LSTM_TISSUE_DRS:
        return j == 3 ? "int32_t" : "float";
    case KP_RNN_PROJ:
    case KP_GEMM:
    case KP_MATMUL:
    case KP_UNARY:
    case KP_SOFTMAX:
        return "float";
    case KP_ARGMAX:
        return j == c->n_in ? "int64_t" : NULL;
    default:
        return NULL;
    }
}

static void
put_buf(FILE *f, const char *name, const memplan *mp, const ir_tensor *t, const char *type,
        int is_const)
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
        fprintf(f, "%s_w%d", name, l->index);
        break;
    case MEMPLAN_ARENA:
        fprintf(f, "(%s%s *)(arena + %lld)", is_const ? "const " : "", ty, (long long)l->offset);
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
    put_shape(f, &t->shape);
}

static void
put_call(FILE *f, const char *name, const memplan *mp, const kp_call *c, int idx, int llvm)
{
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
    if (c->kind != KP_COPY) {
        fputs("        ", f);
        put_params(f, c);
    }
    if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS)
        fputs("        lstmc_rt_tissue_stats stats;\n", f);
    if (c->kind == KP_LSTM_DRS || c->kind == KP_LSTM_TISSUE_DRS)
        fputs("        lstmc_rt_drs_stats drs;\n", f);
    if (llvm)
        fprintf(f, "        st = %s_k%d(", name, idx); /* LLVM kernel, same signature */
    else
        fprintf(f, "        st = %s(", kp_call_fn(c)); /* per weight format (lowp.h) */
    if (c->kind == KP_FILL) {
        put_buf(f, name, mp, c->out[0], NULL, 0);
        fprintf(f, ", %lld, %d, value);\n", (long long)c->p.fill.n, c->p.fill.elem_size);
    } else if (c->kind == KP_COPY) {
        put_buf(f, name, mp, c->out[0], NULL, 0);
        fputs(", ", f);
        put_buf(f, name, mp, c->in[0], NULL, 1);
        fprintf(f, ", %lld);\n", (long long)c->p.copy.n_bytes);
    } else {
        fputs("&p", f);
        if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS) /* per-run (§IV-D) */
            fputs(", ctx->alpha_inter", f);
        if (c->kind == KP_LSTM_DRS || c->kind == KP_LSTM_TISSUE_DRS) /* per-run (§V, §VI-C) */
            fputs(", ctx->alpha_intra", f);
        for (j = 0; j < c->n_in; j++) {
            fputs(j % 3 == 0 ? ",\n                " : ", ", f);
            put_buf(f, name, mp, c->in[j], arg_type(c, j), 1);
        }
        for (j = 0; j < c->n_out; j++) {
            fputs(",\n                ", f);
            put_buf(f, name, mp, c->out[j], arg_type(c, c->n_in + j), 0);
        }
        if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS)
            fputs(",\n                &stats", f);
        if (c->kind == KP_LSTM_DRS || c->kind == KP_LSTM_TISSUE_DRS)
            fputs(",\n                &drs", f);
        if (c->scratch_bytes > 0)
            fprintf(f, ",\n                (%s *)(arena + %lld)",
                    c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_DRS ||
                            c->kind == KP_LSTM_TISSUE_DRS
                        ? "void"
                        : "float",
                    (long long)mp->scratch[idx]);
        fputs(");\n", f);
    }
    fputs("        if (st != LSTMC_RT_OK)\n            return st;\n", f);
    if (c->kind == KP_LSTM_DRS || c->kind == KP_LSTM_TISSUE_DRS)
        fputs("        ctx->drs_stats.cells += drs.cells;\n"
              "        ctx->drs_stats.rows_total += drs.rows_total;\n"
              "        ctx->drs_stats.rows_skipped += drs.rows_skipped;\n"
              "        ctx->drs_stats.rows_loaded += drs.rows_loaded;\n",
              f);
    if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS)
        fputs("        ctx->tissue_stats.cells += stats.cells;\n"
              "        ctx->tissue_stats.links += stats.links;\n"
              "        ctx->tissue_stats.sub_layers += stats.sub_layers;\n"
              "        ctx->tissue_stats.tissues += stats.tissues;\n",
              f);
    fputs("    }\n", f);
}

/* The calls of wavefront group w (compiler/kprog/schedule.c): one call of the LLVM kernel
 * <name>_wv<first> with every buffer of the group in an array (cg_wave_slot order). */
static void
put_wave_call(FILE *f, const char *name, const memplan *mp, const kprog *kp, const kp_wave *w)
{
    int i, j, q;
    fprintf(f, "    /* --- %d..%d: wavefront: %d LSTM layers on %d threads, chunks of %lld steps"
               " (layers per thread:",
            w->first, w->last, w->n_layers, w->threads, (long long)w->chunk);
    for (q = 0; q < w->stages; q++)
        fprintf(f, " %d", w->stage_end[q] - (q ? w->stage_end[q - 1] : 0));
    fputs(")\n     *   nodes:", f);
    for (i = w->first; i <= w->last; i++)
        if (kp->calls[i].node)
            fprintf(f, " '%s' (%s)", kp->calls[i].node->name, kp->calls[i].node->op_type);
    fputs(" */\n    {\n        void *const a[] = {", f);
    for (i = w->first; i <= w->last; i++) {
        const kp_call *c = &kp->calls[i];
        for (j = 0; j < c->n_in + c->n_out; j++) {
            fputs("\n            (void *)", f);
            put_buf(f, name, mp, j < c->n_in ? c->in[j] : c->out[j - c->n_in], NULL, 0);
            fputc(',', f);
        }
        if (c->scratch_bytes > 0)
            fprintf(f, "\n            (void *)(arena + %lld),", (long long)mp->scratch[i]);
    }
    fprintf(f, "\n        };\n        st = %s_wv%d(a);\n", name, w->first);
    fputs("        if (st != LSTMC_RT_OK)\n            return st;\n    }\n", f);
}

/* --- the files --------------------------------------------------------------------- */

static void
put_io_macros(FILE *f, const char *NAME, const char *what, int i, const ir_tensor *t)
{
    int k;
    int64_t n = ir_shape_numel(&t->shape);
    fprintf(f, "#define %s_%s_%d_NAME  \"", NAME, what, i);
    for (k = 0; t->name[k]; k++) {
        unsigned char ch = (unsigned char)t->name[k];
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 32 || ch > 126)
            fprintf(f, "\\%03o", ch);
        else
            fputc(ch, f);
    }
    fprintf(f, "\"\n#define %s_%s_%d_DTYPE %s\n", NAME, what, i, rt_dtype(t->dtype));
    fprintf(f, "#define %s_%s_%d_RANK  %d\n", NAME, what, i, t->shape.rank);
    fprintf(f, "#define %s_%s_%d_SHAPE ", NAME, what, i);
    put_i64s(f, t->shape.d, t->shape.rank);
    fprintf(f, "\n#define %s_%s_%d_NUMEL %lld\n", NAME, what, i, (long long)n);
}

/* --- streaming (issue 9): <name>_state, _reset, _set_state, _step ------------------- */

/*
 * <name>_step runs the one-step program (compiler/stream/stream.h) once per time step of the
 * caller's chunk. Bytes of the arena past the step program's own: the next state of every
 * state slot, then a staging buffer for every per-step input or output whose step slices
 * are not contiguous in the chunk (dims before the time axis bigger than 1).
 */
typedef struct stream_geo {
    int n_slots;
    int64_t slot_floats[2 * STREAM_MAX_LAYERS];
    int64_t next_off[2 * STREAM_MAX_LAYERS];
    int64_t in_outer[64], in_inner[64], in_off[64];    /* per graph input (bytes) */
    int64_t out_outer[64], out_inner[64], out_off[64]; /* per graph output (bytes) */
    int64_t arena; /* bytes the step needs */
} stream_geo;

static int64_t
align_up(int64_t v)
{
    return (v + LSTMC_RT_ALIGN - 1) / LSTMC_RT_ALIGN * LSTMC_RT_ALIGN;
}

/* outer = product of the dims before the time axis, inner = bytes of one step's slice. */
static void
time_slice(const ir_tensor *t, int axis, int64_t *outer, int64_t *inner)
{
    int i;
    *outer = 1;
    *inner = (int64_t)ir_dtype_size(t->dtype);
    for (i = 0; i < t->shape.rank; i++) {
        if (i < axis)
            *outer *= t->shape.d[i];
        else if (i > axis)
            *inner *= t->shape.d[i];
    }
}

/* 1 when streaming code is generated: the model streams and has at most 64 inputs and
 * outputs (the staging tables' size). */
static int
stream_on(const cg_options *o)
{
    const stream_info *si = o->stream;
    return si && si->ok && si->g && si->n_inputs <= 64 && si->n_outputs <= 64;
}

static void
stream_geometry(const stream_info *si, stream_geo *sg)
{
    int64_t off = si->mp.arena_size;
    int k, i;
    memset(sg, 0, sizeof *sg);
    for (k = 0; k < si->n_layers; k++) {
        int j, nst = si->layers[k].cell == LSTMC_RT_CELL_LSTM ? 2 : 1;
        for (j = 0; j < nst; j++) {
            sg->slot_floats[sg->n_slots] = si->layers[k].batch * si->layers[k].hidden;
            sg->next_off[sg->n_slots] = off;
            off = align_up(off + 4 * sg->slot_floats[sg->n_slots]);
            sg->n_slots++;
        }
    }
    for (i = 0; i < si->n_inputs; i++) {
        sg->in_off[i] = -1;
        if (si->in_axis[i] < 0)
            continue;
        time_slice(si->g->inputs[i], si->in_axis[i], &sg->in_outer[i], &sg->in_inner[i]);
        if (sg->in_outer[i] > 1) {
            sg->in_off[i] = off;
            off = align_up(off + sg->in_outer[i] * sg->in_inner[i]);
        }
    }
    for (i = 0; i < si->n_outputs; i++) {
        sg->out_off[i] = -1;
        if (si->out_kind[i] != STREAM_TIME)
            continue;
        time_slice(si->g->outputs[i], si->out_axis[i], &sg->out_outer[i], &sg->out_inner[i]);
        if (sg->out_outer[i] > 1) {
            sg->out_off[i] = off;
            off = align_up(off + sg->out_outer[i] * sg->out_inner[i]);
        }
    }
    sg->arena = off;
}

/* The arena <name>_init asks for: enough for _run and for _step. */
static int64_t
total_arena(const memplan *mp, const cg_options *o)
{
    stream_geo sg;
    if (!stream_on(o))
        return mp->arena_size;
    stream_geometry(o->stream, &sg);
    return sg.arena > mp->arena_size ? sg.arena : mp->arena_size;
}

/* The arena <name>_step alone needs (0: the model does not stream). */
static int64_t
stream_arena(const cg_options *o)
{
    stream_geo sg;
    if (!stream_on(o))
        return 0;
    stream_geometry(o->stream, &sg);
    return sg.arena;
}

static const char *
stream_kind_name(int k)
{
    switch (k) {
    case STREAM_TIME: return "per step";
    case STREAM_LAST: return "last step";
    case STREAM_STATIC: return "static";
    case STREAM_CONST: return "constant";
    default: return "?";
    }
}

/* The streaming part of <name>.h. */
static void
put_stream_header(FILE *f, const ir_graph *g, const char *NAME, const cg_options *o)
{
    const stream_info *si = o->stream;
    int k, i;
    fprintf(f,
            "/* --- streaming: feed time steps as they arrive -------------------------------\n"
            " *\n"
            " *   static %s_state s;              // caller-owned recurrent state\n"
            " *   %s_reset(&s);                   // the model's initial state\n"
            " *   %s_step(&ctx, &s, n, inputs, outputs);   // n >= 1 steps at a time, any n\n"
            " *\n"
            " * inputs/outputs as for _run, except that every input and output with a time axis\n"
            " * (%s_INPUT_i_TIME_AXIS >= 0) holds n steps along that axis instead of the\n"
            " * compiled sequence length. An output without a time axis (a last-step classifier,\n"
            " * Y_h) is written for the state after the last step fed. After a reset, feeding\n"
            " * the sequence in chunks of any sizes gives bit-identical outputs to _run on the\n"
            " * whole sequence: the same kernels in the same order, one time step at a time.\n"
            " * Models that need the whole sequence (reverse or bidirectional layers,\n"
            " * sequence_lens, a Softmax/ArgMax/Concat over time, a step other than the last)\n"
            " * have %s_STREAMABLE 0; their _step, _reset, _set_state and _init_stream return\n"
            " * LSTMC_RT_ERR_UNSUPPORTED. */\n",
            o->name, o->name, o->name, NAME, NAME);
    if (!stream_on(o)) {
        fprintf(f, "#define %s_STREAMABLE 0\n#define %s_STREAM_WHY \"", NAME, NAME);
        for (i = 0; si && si->why[i]; i++)
            fputc(si->why[i] == '"' || si->why[i] == '\\' ? '\'' : si->why[i], f);
        if (!si)
            fputs("not analysed", f);
        fprintf(f, "\"\n\ntypedef struct %s_state {\n    int64_t steps; /* unused */\n} "
                   "%s_state;\n\n",
                o->name, o->name);
    } else {
        fprintf(f, "#define %s_STREAMABLE 1\n#define %s_STREAM_WHY \"\"\n", NAME, NAME);
        fprintf(f, "#define %s_STREAM_SEQ_LEN %lld /* the compiled T: _run's sequence */\n",
                NAME, (long long)si->seq_len);
        fprintf(f, "#define %s_STREAM_LAYERS %d\n", NAME, si->n_layers);
        for (i = 0; i < si->n_inputs; i++)
            fprintf(f, "#define %s_INPUT_%d_TIME_AXIS %d\n", NAME, i, si->in_axis[i]);
        for (i = 0; i < si->n_outputs; i++)
            fprintf(f, "#define %s_OUTPUT_%d_TIME_AXIS %d /* %s */\n", NAME, i,
                    si->out_axis[i], stream_kind_name(si->out_kind[i]));
        fprintf(f, "\n/* The recurrent state between calls of %s_step: h (and c for LSTM) of "
                   "every\n * layer, [N, H] floats each. */\ntypedef struct %s_state {\n",
                o->name, o->name);
        for (k = 0; k < si->n_layers; k++) {
            const stream_layer *l = &si->layers[k];
            fprintf(f, "    float h%d[%lld]; /* layer %d, node '%s' (%s): h [N=%lld, H=%lld] */\n",
                    k, (long long)(l->batch * l->hidden), k, l->node, l->op,
                    (long long)l->batch, (long long)l->hidden);
            if (l->init_h_input >= 0 || l->init_c_input >= 0)
                fprintf(f, "    /* its initial %s is graph input %d: _reset zeroes it, pass the "
                           "value to %s_set_state */\n",
                        l->init_h_input >= 0 ? "h" : "c",
                        l->init_h_input >= 0 ? l->init_h_input : l->init_c_input, o->name);
            if (l->cell == LSTMC_RT_CELL_LSTM)
                fprintf(f, "    float c%d[%lld]; /* layer %d: c [N=%lld, H=%lld] */\n", k,
                        (long long)(l->batch * l->hidden), k, (long long)l->batch,
                        (long long)l->hidden);
        }
        fputs("    int64_t steps; /* time steps fed since the last reset */\n", f);
        fprintf(f, "} %s_state;\n\n", o->name);
        for (k = 0; k < si->n_layers; k++)
            fprintf(f, "#define %s_STATE_%d_FLOATS %lld /* N*H of layer %d */\n", NAME, k,
                    (long long)(si->layers[k].batch * si->layers[k].hidden), k);
        fputc('\n', f);
    }
    fprintf(f,
            "/* Set state to the model's initial state (its initial_h/initial_c constants, "
            "else\n * zero) and steps to 0. */\n"
            "lstmc_rt_status %s_reset(%s_state *state);\n\n"
            "/* Like _init, for a ctx that only streams: size >= *_STREAM_ARENA_SIZE;\n"
            " * _run on it returns LSTMC_RT_ERR_ARENA_TOO_SMALL if that is below its own. */\n"
            "lstmc_rt_status %s_init_stream(%s_ctx *ctx, void *arena, size_t size);\n\n"
            "/* Set layer's state: h and c are [N*H] floats (c: LSTM only, ignored otherwise);\n"
            " * NULL means zero. LSTMC_RT_ERR_BAD_PARAMS for a layer out of range. */\n"
            "lstmc_rt_status %s_set_state(%s_state *state, int layer, const float *h, const "
            "float *c);\n\n"
            "/* Feed n >= 1 time steps (see above); state is read and advanced by n steps.\n"
            " * Uses ctx's arena (the same as _run: one ctx cannot run both at once). Returns\n"
            " * LSTMC_RT_ERR_BAD_PARAMS for n < 1, or the failing kernel's status, with\n"
            " * state unchanged for the steps not done. */\n"
            "lstmc_rt_status %s_step(%s_ctx *ctx, %s_state *state, int64_t n,\n"
            "                        const void *const *inputs, void *const *outputs);\n\n",
            o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name);
    (void)g;
}

/* The const tensor of the whole-sequence program holding the same bytes as t, or -1. */
static int
same_const(const ir_graph *g, const memplan *mp, const ir_tensor *t)
{
    int i;
    int64_t n = ir_shape_numel(&t->shape);
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *u = g->tensors[i];
        if (mp->tensor[i].kind != MEMPLAN_CONST || u->dtype != t->dtype ||
            ir_shape_numel(&u->shape) != n || !u->data || !t->data)
            continue;
        if (memcmp(u->data, t->data, (size_t)n * ir_dtype_size(t->dtype)) == 0)
            return i;
    }
    return -1;
}

static void
put_const_array(FILE *f, const char *storage, const char *name, const ir_tensor *t, int id);
static void
put_llvm_protos(FILE *f, const char *name, const kprog *kp, const unsigned char *handled);

/* Which calls of the step program every step needs: those the next state and the per-step
 * outputs depend on. The rest (a last-step classifier's head) runs on the chunk's last
 * step only. */
static void
stream_every_step(const stream_info *si, unsigned char *every)
{
    const kprog *kp = &si->kp;
    const ir_graph *g = si->g;
    unsigned char *need = calloc((size_t)g->n_tensors + 1, 1);
    int i, j;
    if (!need) {
        memset(every, 1, (size_t)kp->n_calls);
        return;
    }
    for (i = 0; i < kp->n_outputs; i++)
        if (kp->outputs[i] && (i >= si->n_outputs || si->out_kind[i] == STREAM_TIME))
            need[kp->outputs[i]->id] = 1;
    for (i = kp->n_calls - 1; i >= 0; i--) {
        const kp_call *c = &kp->calls[i];
        every[i] = 0;
        for (j = 0; j < c->n_out; j++)
            if (c->out[j] && need[c->out[j]->id])
                every[i] = 1;
        for (j = 0; every[i] && j < c->n_in; j++)
            if (c->in[j])
                need[c->in[j]->id] = 1;
    }
    free(need);
}

/* The streaming functions of <name>.c. */
static void
put_stream_host(FILE *f, const ir_graph *g, const memplan *mp, const cg_options *o,
                const unsigned char *handled_s)
{
    const stream_info *si = o->stream;
    char sname[160], NAME[128];
    stream_geo sg;
    unsigned char *every;
    int i, k, slot;

    upper(o->name, NAME, sizeof NAME);
    fprintf(f,
            "\nlstmc_rt_status\n%s_init_stream(%s_ctx *ctx, void *arena, size_t size)\n{\n"
            "    lstmc_rt_status st;\n    if (!ctx)\n        return LSTMC_RT_ERR_NULL;\n",
            o->name, o->name);
    if (!stream_on(o))
        fputs("    (void)st;\n    (void)arena;\n    (void)size;\n"
              "    return LSTMC_RT_ERR_UNSUPPORTED;\n}\n",
              f);
    else
        fprintf(f,
                "    st = lstmc_rt_arena_check(arena, size, %lldu);\n"
                "    if (st != LSTMC_RT_OK)\n        return st;\n"
                "    ctx->arena = (unsigned char *)arena;\n    ctx->arena_size = size;\n"
                "    ctx->weights = NULL;\n"
                "    ctx->alpha_inter = %s_ALPHA_INTER;\n    ctx->alpha_intra = %s_ALPHA_INTRA;\n"
                "    memset(&ctx->tissue_stats, 0, sizeof ctx->tissue_stats);\n"
                "    return LSTMC_RT_OK;\n}\n",
                (long long)stream_arena(o), NAME, NAME);
    if (!stream_on(o)) {
        fprintf(f,
                "\n/* --- streaming: not available (%s_STREAM_WHY) --- */\n\n"
                "lstmc_rt_status\n%s_reset(%s_state *state)\n{\n    (void)state;\n"
                "    return LSTMC_RT_ERR_UNSUPPORTED;\n}\n\n"
                "lstmc_rt_status\n%s_set_state(%s_state *state, int layer, const float *h, "
                "const float *c)\n{\n    (void)state;\n    (void)layer;\n    (void)h;\n"
                "    (void)c;\n    return LSTMC_RT_ERR_UNSUPPORTED;\n}\n\n"
                "lstmc_rt_status\n%s_step(%s_ctx *ctx, %s_state *state, int64_t n, const void "
                "*const *inputs,\n          void *const *outputs)\n{\n    (void)ctx;\n"
                "    (void)state;\n    (void)n;\n    (void)inputs;\n    (void)outputs;\n"
                "    return LSTMC_RT_ERR_UNSUPPORTED;\n}\n",
                o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name);
        return;
    }
    snprintf(sname, sizeof sname, "%s_stream", o->name);
    stream_geometry(si, &sg);
    fprintf(f, "\n/* --- streaming: the one-step program (T = 1), run once per time step ---- "
               "*/\n\n");
    /* its constants: the whole-sequence program's where the bytes are the same */
    for (i = 0; i < si->g->n_tensors; i++) {
        int same;
        if (si->mp.tensor[i].kind != MEMPLAN_CONST)
            continue;
        same = same_const(g, mp, si->g->tensors[i]);
        if (same >= 0)
            fprintf(f, "#define %s_w%d %s_w%d\n", sname, i, o->name, same);
        else
            put_const_array(f, "static const", sname, si->g->tensors[i], i);
    }
    for (k = 0; k < si->n_layers; k++) {
        const stream_layer *l = &si->layers[k];
        int j;
        for (j = 0; j < 2; j++) {
            const float *v = j ? l->init_c : l->init_h;
            int64_t m, n = l->batch * l->hidden;
            if (!v)
                continue;
            fprintf(f, "static const float %s_init_%s%d[%lld] = {", sname, j ? "c" : "h", k,
                    (long long)n);
            for (m = 0; m < n; m++) {
                fputs(m % 8 == 0 ? "\n    " : " ", f);
                put_float(f, v[m]);
                fputc(',', f);
            }
            fputs("\n};\n", f);
        }
    }
    put_llvm_protos(f, sname, &si->kp, handled_s);
    every = calloc((size_t)si->kp.n_calls + 1, 1);
    if (every)
        stream_every_step(si, every);
    fprintf(f,
            "\n/* One time step: inputs are the graph's (one step each), then h, c of every "
            "layer;\n * outputs the graph's, then the next h, c. last = 0 skips the calls "
            "only\n * last-step outputs need. */\nstatic lstmc_rt_status\n%s_once(%s_ctx *ctx, "
            "unsigned char *arena, const void *const *inputs,\n"
            "    void *const *outputs, int last)\n{\n    lstmc_rt_status st = LSTMC_RT_OK;\n"
            "    (void)ctx;\n    (void)arena;\n    (void)inputs;\n    (void)outputs;\n"
            "    (void)last;\n",
            sname, o->name);
    for (i = 0; i < si->kp.n_calls; i++) {
        if (every && !every[i])
            fputs("    if (last)\n", f);
        put_call(f, sname, &si->mp, &si->kp.calls[i], i, handled_s && handled_s[i]);
    }
    fputs("    return st;\n}\n\n", f);
    free(every);

    fprintf(f, "lstmc_rt_status\n%s_reset(%s_state *state)\n{\n"
               "    if (!state)\n        return LSTMC_RT_ERR_NULL;\n",
            o->name, o->name);
    for (k = 0; k < si->n_layers; k++) {
        const stream_layer *l = &si->layers[k];
        fprintf(f, "    %s_set_state(state, %d, ", o->name, k);
        if (l->init_h)
            fprintf(f, "%s_init_h%d, ", sname, k);
        else
            fputs("NULL, ", f);
        if (l->init_c)
            fprintf(f, "%s_init_c%d);\n", sname, k);
        else
            fputs("NULL);\n", f);
    }
    fputs("    state->steps = 0;\n    return LSTMC_RT_OK;\n}\n\n", f);

    fprintf(f, "lstmc_rt_status\n%s_set_state(%s_state *state, int layer, const float *h, "
               "const float *c)\n{\n"
               "    if (!state)\n        return LSTMC_RT_ERR_NULL;\n    switch (layer) {\n",
            o->name, o->name);
    for (k = 0; k < si->n_layers; k++) {
        const stream_layer *l = &si->layers[k];
        fprintf(f, "    case %d:\n", k);
        fprintf(f, "        if (h)\n            memcpy(state->h%d, h, sizeof state->h%d);\n"
                   "        else\n            memset(state->h%d, 0, sizeof state->h%d);\n",
                k, k, k, k);
        if (l->cell == LSTMC_RT_CELL_LSTM)
            fprintf(f, "        if (c)\n            memcpy(state->c%d, c, sizeof state->c%d);\n"
                       "        else\n            memset(state->c%d, 0, sizeof state->c%d);\n",
                    k, k, k, k);
        fputs("        break;\n", f);
    }
    fputs("    default:\n        return LSTMC_RT_ERR_BAD_PARAMS;\n    }\n"
          "    (void)c;\n    return LSTMC_RT_OK;\n}\n\n",
          f);

    fprintf(f,
            "lstmc_rt_status\n%s_step(%s_ctx *ctx, %s_state *state, int64_t n, const void "
            "*const *inputs,\n          void *const *outputs)\n{\n"
            "    const void *in[%d];\n    void *out[%d];\n    unsigned char *arena;\n"
            "    lstmc_rt_status st;\n    int64_t t, o;\n"
            "    if (!ctx || !state || !inputs || !outputs)\n        return LSTMC_RT_ERR_NULL;\n"
            "    if (n < 1)\n        return LSTMC_RT_ERR_BAD_PARAMS;\n",
            o->name, o->name, o->name, si->g->n_inputs, si->kp.n_outputs);
    for (i = 0; i < si->n_inputs; i++)
        fprintf(f, "    if (!inputs[%d])\n        return LSTMC_RT_ERR_NULL;\n", i);
    for (i = 0; i < si->n_outputs; i++)
        fprintf(f, "    if (!outputs[%d])\n        return LSTMC_RT_ERR_NULL;\n", i);
    fprintf(f, "    if (ctx->arena_size < %lldu)\n        return LSTMC_RT_ERR_ARENA_TOO_SMALL;\n",
            (long long)sg.arena);
    if (o->placement != CG_WEIGHTS_CONST)
        fputs("    if (!ctx->weights)\n        return LSTMC_RT_ERR_NO_WEIGHTS;\n", f);
    fputs("    arena = ctx->arena;\n    (void)o;\n    for (t = 0; t < n; t++) {\n", f);
    for (i = 0; i < si->n_inputs; i++) {
        if (si->in_axis[i] < 0)
            fprintf(f, "        in[%d] = inputs[%d];\n", i, i);
        else if (sg.in_off[i] < 0)
            fprintf(f, "        in[%d] = (const unsigned char *)inputs[%d] + (size_t)t * %lldu;\n",
                    i, i, (long long)sg.in_inner[i]);
        else
            fprintf(f,
                    "        for (o = 0; o < %lld; o++) /* gather step t of every outer row */\n"
                    "            memcpy(arena + %lld + (size_t)o * %lldu,\n"
                    "                   (const unsigned char *)inputs[%d] + (size_t)(o * n + t) * "
                    "%lldu, %lldu);\n        in[%d] = arena + %lld;\n",
                    (long long)sg.in_outer[i], (long long)sg.in_off[i],
                    (long long)sg.in_inner[i], i, (long long)sg.in_inner[i],
                    (long long)sg.in_inner[i], i, (long long)sg.in_off[i]);
    }
    for (k = 0, slot = 0; k < si->n_layers; k++) {
        fprintf(f, "        in[%d] = state->h%d;\n", si->n_inputs + slot++, k);
        if (si->layers[k].cell == LSTMC_RT_CELL_LSTM)
            fprintf(f, "        in[%d] = state->c%d;\n", si->n_inputs + slot++, k);
    }
    for (i = 0; i < si->n_outputs; i++) {
        if (si->out_kind[i] != STREAM_TIME)
            fprintf(f, "        out[%d] = outputs[%d];\n", i, i);
        else if (sg.out_off[i] < 0)
            fprintf(f, "        out[%d] = (unsigned char *)outputs[%d] + (size_t)t * %lldu;\n",
                    i, i, (long long)sg.out_inner[i]);
        else
            fprintf(f, "        out[%d] = arena + %lld;\n", i, (long long)sg.out_off[i]);
    }
    for (slot = 0; slot < sg.n_slots; slot++)
        fprintf(f, "        out[%d] = arena + %lld;\n", si->n_outputs + slot,
                (long long)sg.next_off[slot]);
    fprintf(f, "        st = %s_once(ctx, arena, in, out, t == n - 1);\n"
               "        if (st != LSTMC_RT_OK)\n            return st;\n",
            sname);
    for (i = 0; i < si->n_outputs; i++)
        if (si->out_kind[i] == STREAM_TIME && sg.out_off[i] >= 0)
            fprintf(f,
                    "        for (o = 0; o < %lld; o++) /* scatter step t to every outer row */\n"
                    "            memcpy((unsigned char *)outputs[%d] + (size_t)(o * n + t) * "
                    "%lldu,\n                   arena + %lld + (size_t)o * %lldu, %lldu);\n",
                    (long long)sg.out_outer[i], i, (long long)sg.out_inner[i],
                    (long long)sg.out_off[i], (long long)sg.out_inner[i],
                    (long long)sg.out_inner[i]);
    for (k = 0, slot = 0; k < si->n_layers; k++) {
        fprintf(f, "        memcpy(state->h%d, arena + %lld, sizeof state->h%d);\n", k,
                (long long)sg.next_off[slot++], k);
        if (si->layers[k].cell == LSTMC_RT_CELL_LSTM)
            fprintf(f, "        memcpy(state->c%d, arena + %lld, sizeof state->c%d);\n", k,
                    (long long)sg.next_off[slot++], k);
    }
    fputs("        state->steps++;\n    }\n    return LSTMC_RT_OK;\n}\n", f);
}

/* --- weight placement (--weights-placement, issue 9) -------------------------------- */

static const char *
placement_name(int p)
{
    return p == CG_WEIGHTS_BLOB ? "blob" : p == CG_WEIGHTS_POINTER ? "pointer" : "const";
}

/* Offsets of the constants in the weight payload (blob and pointer placements), each
 * aligned to LSTMC_RT_ALIGN, into off[] by tensor id (-1: not a weight); the payload size. */
static int64_t
weight_layout(const ir_graph *g, const memplan *mp, int64_t *off)
{
    int64_t at = 0;
    int i;
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        off[i] = -1;
        if (mp->tensor[i].kind != MEMPLAN_CONST)
            continue;
        off[i] = at;
        at = align_up(at + ir_shape_numel(&t->shape) * (int64_t)ir_dtype_size(t->dtype));
    }
    return at;
}

/* The payload bytes (zero padding between tensors); NULL when out of memory. */
static unsigned char *
weight_payload(const ir_graph *g, const int64_t *off, int64_t size)
{
    unsigned char *p = calloc((size_t)size + 1, 1);
    int i;
    for (i = 0; p && i < g->n_tensors; i++)
        if (off[i] >= 0 && g->tensors[i]->data)
            memcpy(p + off[i], g->tensors[i]->data,
                   (size_t)ir_shape_numel(&g->tensors[i]->shape) *
                       ir_dtype_size(g->tensors[i]->dtype));
    return p;
}

/* <name>_weights.h/.c/.bin for the blob and pointer placements: the header gives the
 * layout, the .c file is empty, the .bin holds the bytes (blob: header + payload). */
static int
write_weights_outside(const ir_graph *g, const memplan *mp, const cg_options *o, diag *d)
{
    out_file oh, oc, ob;
    char fname[256], NAME[128];
    int64_t *off = calloc((size_t)g->n_tensors + 1, sizeof *off), size;
    unsigned char *payload = NULL, hdr[LSTMC_RT_BLOB_HEADER];
    uint32_t crc, bom = 0x01020304u;
    uint64_t psize;
    int i, rc = -1;

    upper(o->name, NAME, sizeof NAME);
    if (!off) {
        diag_error(d, "out of memory");
        return -1;
    }
    size = weight_layout(g, mp, off);
    payload = weight_payload(g, off, size);
    if (!payload) {
        diag_error(d, "out of memory");
        free(off);
        return -1;
    }
    crc = lstmc_rt_crc32(payload, (size_t)size);
    snprintf(fname, sizeof fname, "%s_weights.h", o->name);
    if (open_out(&oh, o->outdir, fname, d) < 0)
        goto out;
    fprintf(oh.f,
            "/* %s_weights.h — generated by lstmc: where the weights are in %s_weights.bin\n"
            " * (--weights-placement=%s). Offsets count from the payload's first byte%s. */\n"
            "#ifndef %s_WEIGHTS_H\n#define %s_WEIGHTS_H\n\n"
            "#define %s_WEIGHTS_SIZE %lldu /* payload bytes */\n"
            "#define %s_WEIGHTS_CRC32 0x%08lxu /* lstmc_rt_crc32 of the payload */\n"
            "#define %s_WEIGHTS_FILE_SIZE %lldu /* bytes of %s_weights.bin */\n\n",
            o->name, o->name, placement_name(o->placement),
            o->placement == CG_WEIGHTS_BLOB ? " (after the 64-byte blob header)" : "", NAME,
            NAME, NAME, (long long)size, NAME, (unsigned long)crc, NAME,
            (long long)(size + (o->placement == CG_WEIGHTS_BLOB ? LSTMC_RT_BLOB_HEADER : 0)),
            o->name);
    for (i = 0; i < g->n_tensors; i++) {
        if (off[i] < 0)
            continue;
        fprintf(oh.f, "#define %s_W%d_OFFSET %lldu /* %s %s", NAME, i, (long long)off[i],
                g->tensors[i]->name, ir_dtype_name(g->tensors[i]->dtype));
        put_shape(oh.f, &g->tensors[i]->shape);
        fputs(" */\n", oh.f);
    }
    fputs("\n#endif\n", oh.f);
    if (close_out(&oh, d) < 0)
        goto out;
    snprintf(fname, sizeof fname, "%s_weights.c", o->name);
    if (open_out(&oc, o->outdir, fname, d) < 0)
        goto out;
    fprintf(oc.f, "/* %s_weights.c — generated by lstmc: empty, the weights are in "
                  "%s_weights.bin\n * (--weights-placement=%s). */\n"
                  "typedef int %s_weights_are_outside;\n",
            o->name, o->name, placement_name(o->placement), o->name);
    if (close_out(&oc, d) < 0)
        goto out;
    snprintf(fname, sizeof fname, "%s_weights.bin", o->name);
    if (open_out(&ob, o->outdir, fname, d) < 0)
        goto out;
    if (o->placement == CG_WEIGHTS_BLOB) {
        memset(hdr, 0, sizeof hdr);
        memcpy(hdr, "LSTMCWB1", 8);
        memcpy(hdr + 8, &bom, 4);
        hdr[12] = LSTMC_RT_BLOB_HEADER;
        psize = (uint64_t)size;
        for (i = 0; i < 8; i++)
            hdr[16 + i] = (unsigned char)(psize >> (8 * i));
        for (i = 0; i < 4; i++)
            hdr[24 + i] = (unsigned char)(crc >> (8 * i));
        strncpy((char *)hdr + 32, o->name, 31);
        fwrite(hdr, 1, sizeof hdr, ob.f);
    }
    fwrite(payload, 1, (size_t)size, ob.f);
    if (close_out(&ob, d) < 0)
        goto out;
    rc = 0;
out:
    free(off);
    free(payload);
    return rc;
}

/* In <name>.c: each weight as an expression over ctx->weights (blob and pointer). */
static void
put_weight_macros(FILE *f, const ir_graph *g, const memplan *mp, const cg_options *o)
{
    char NAME[128];
    int i;
    if (o->placement == CG_WEIGHTS_CONST)
        return;
    upper(o->name, NAME, sizeof NAME);
    fputs("/* the weights: in the caller's memory, bound by ", f);
    fprintf(f, "%s */\n", o->placement == CG_WEIGHTS_BLOB ? "_init_blob" : "_set_weights");
    for (i = 0; i < g->n_tensors; i++)
        if (mp->tensor[i].kind == MEMPLAN_CONST)
            fprintf(f, "#define %s_w%d ((const %s *)(ctx->weights + %s_W%d_OFFSET))\n", o->name,
                    i, ctype(g->tensors[i]->dtype), NAME, i);
    fputc('\n', f);
}

/* <name>_init_blob / <name>_set_weights. */
static void
put_weight_binders(FILE *f, const cg_options *o)
{
    char NAME[128];
    upper(o->name, NAME, sizeof NAME);
    if (o->placement == CG_WEIGHTS_BLOB)
        fprintf(f,
                "lstmc_rt_status\n%s_init_blob(%s_ctx *ctx, const void *blob, size_t size)\n{\n"
                "    const unsigned char *w = NULL;\n    lstmc_rt_status st;\n"
                "    if (!ctx)\n        return LSTMC_RT_ERR_NULL;\n"
                "    st = lstmc_rt_blob_open(blob, size, %s_WEIGHTS_SIZE, %s_WEIGHTS_CRC32, &w);\n"
                "    if (st != LSTMC_RT_OK)\n        return st;\n"
                "    ctx->weights = w;\n    return LSTMC_RT_OK;\n}\n\n",
                o->name, o->name, NAME, NAME);
    else if (o->placement == CG_WEIGHTS_POINTER)
        fprintf(f,
                "lstmc_rt_status\n%s_set_weights(%s_ctx *ctx, const void *weights, size_t size)"
                "\n{\n    if (!ctx || !weights)\n        return LSTMC_RT_ERR_NULL;\n"
                "    if ((uintptr_t)weights %% LSTMC_RT_ALIGN != 0)\n"
                "        return LSTMC_RT_ERR_MISALIGNED;\n"
                "    if (size != %s_WEIGHTS_SIZE)\n        return LSTMC_RT_ERR_BLOB_SIZE;\n"
                "    ctx->weights = (const unsigned char *)weights;\n    return LSTMC_RT_OK;\n}\n\n",
                o->name, o->name, NAME);
}

/* In <name>.h: the placement and its binder's prototype. */
static void
put_weight_header(FILE *f, const cg_options *o)
{
    char NAME[128];
    upper(o->name, NAME, sizeof NAME);
    fprintf(f, "/* Where the weights are (lstmc --weights-placement): \"const\" compiled in (flash),\n"
               " * \"blob\" %s_weights.bin given to %s_init_blob, \"pointer\" its bytes anywhere in\n"
               " * memory given to %s_set_weights. */\n#define %s_WEIGHTS_PLACEMENT \"%s\"\n\n",
            o->name, o->name, o->name, NAME, placement_name(o->placement));
    if (o->placement != CG_WEIGHTS_CONST) /* sizes, CRC and layout of the .bin */
        fprintf(f, "#include \"%s_weights.h\"\n\n", o->name);
    if (o->placement == CG_WEIGHTS_BLOB)
        fprintf(f,
                "/* Bind the weight blob (the bytes of %s_weights.bin, aligned to LSTMC_RT_ALIGN,\n"
                " * used in place: keep them) after %s_init. Checks its header, its size and its\n"
                " * CRC-32: LSTMC_RT_ERR_BLOB_FORMAT (not a blob of this model), _BLOB_SIZE\n"
                " * (truncated), _BLOB_CHECKSUM (corrupted), _MISALIGNED. Until then _run and\n"
                " * _step return LSTMC_RT_ERR_NO_WEIGHTS. No file I/O: the caller reads it. */\n"
                "lstmc_rt_status %s_init_blob(%s_ctx *ctx, const void *blob, size_t size);\n\n",
                o->name, o->name, o->name, o->name);
    else if (o->placement == CG_WEIGHTS_POINTER)
        fprintf(f,
                "/* Use the weights at `weights` (the %s_WEIGHTS_SIZE bytes of %s_weights.bin\n"
                " * wherever you put them: a linker section, external flash, a RAM copy;\n"
                " * aligned to LSTMC_RT_ALIGN) after %s_init. Trusted as they are: only NULL,\n"
                " * alignment and size are checked (lstmc_rt_crc32(weights, size) ==\n"
                " * %s_WEIGHTS_CRC32 checks the bytes if you want). */\n"
                "lstmc_rt_status %s_set_weights(%s_ctx *ctx, const void *weights, size_t size);\n\n",
                NAME, o->name, o->name, NAME, o->name, o->name);
}

static int
write_header(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
             diag *d)
{
    out_file of;
    FILE *f;
    char NAME[128];
    int i;
    char fname[256];
    upper(o->name, NAME, sizeof NAME);
    snprintf(fname, sizeof fname, "%s.h", o->name);
    if (open_out(&of, o->outdir, fname, d) < 0)
        return -1;
    f = of.f;
    fprintf(f,
            "/*\n * %s.h — generated by lstmc from %s (graph '%s', target %s).\n"
            " *\n"
            " * Usage:\n"
            " *   static unsigned char arena[%s_ARENA_SIZE + LSTMC_RT_ALIGN];  // caller-owned\n"
            " *   %s_ctx ctx;\n"
            " *   %s_init(&ctx, aligned arena pointer, %s_ARENA_SIZE);\n"
            " *   %s_run(&ctx, inputs, outputs);   // never allocates\n"
            " * inputs[i] / outputs[i] point at C-order buffers of the shapes below.\n */\n",
            o->name, g->file, g->name, o->target ? o->target : "host", NAME, o->name, o->name,
            NAME, o->name);
    fprintf(f, "#ifndef %s_H\n#define %s_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
               "#include \"lstmc_rt.h\"\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
            NAME, NAME);
    fprintf(f, "/* Bytes of working memory %s_run needs (buffers shared across lifetimes; "
               "%lld without sharing). */\n",
            o->name, (long long)mp->naive_size);
    fprintf(f, "#define %s_ARENA_SIZE %lldu\n", NAME, (long long)total_arena(mp, o));
    fprintf(f, "/* What %s_run alone needs, and what %s_step alone needs (%s_init_stream):\n"
               " * a firmware that only streams gives the smaller arena. */\n"
               "#define %s_RUN_ARENA_SIZE %lldu\n#define %s_STREAM_ARENA_SIZE %lldu\n\n",
            o->name, o->name, o->name, NAME, (long long)mp->arena_size, NAME,
            (long long)stream_arena(o));
    fprintf(f, "#define %s_N_INPUTS  %d\n#define %s_N_OUTPUTS %d\n\n", NAME, g->n_inputs, NAME,
            kp->n_outputs);
    for (i = 0; i < g->n_inputs; i++) {
        put_io_macros(f, NAME, "INPUT", i, g->inputs[i]);
        fputc('\n', f);
    }
    for (i = 0; i < kp->n_outputs; i++) {
        put_io_macros(f, NAME, "OUTPUT", i, g->outputs[i]);
        fputc('\n', f);
    }
    fprintf(f, "/* Default thresholds (lstmc --alpha-inter / --alpha-intra); 0 is exact. */\n"
               "#define %s_ALPHA_INTER ",
            NAME);
    put_float(f, o->alpha_inter);
    fprintf(f, "\n#define %s_ALPHA_INTRA ", NAME);
    put_float(f, o->alpha_intra);
    fprintf(f, "\n/* The range lstmc tune measured (--thresholds; 0 when not tuned): the upper\n"
               " * limits of alpha_inter and alpha_intra, bounds for lstmc_rt_uo. */\n"
               "#define %s_ALPHA_INTER_MAX ",
            NAME);
    put_float(f, o->alpha_inter_max);
    fprintf(f, "\n#define %s_ALPHA_INTRA_MAX ", NAME);
    put_float(f, o->alpha_intra_max);
    fprintf(f,
            "\n\ntypedef struct %s_ctx {\n    unsigned char *arena; /* caller-owned, "
            "%s_ARENA_SIZE bytes */\n"
            "    size_t arena_size; /* its bytes: _run and _step check theirs */\n"
            "    const unsigned char *weights; /* --weights-placement=blob|pointer: bound by "
            "the caller */\n"
            "    float alpha_inter; /* breakpoint threshold (MICRO'18 §IV) used by %s_run */\n"
            "    float alpha_intra; /* dynamic row skip threshold (MICRO'18 §V) */\n"
            "    lstmc_rt_tissue_stats tissue_stats; /* the last run's cells, links, sub-layers "
            "and\n                                          tissues, summed over its layers */\n"
            "    lstmc_rt_drs_stats drs_stats; /* the last run's rows of U_f,i,c: total, skipped "
            "and\n                                    loaded (--alpha-intra), summed over its "
            "layers */\n"
            "} %s_ctx;\n\n",
            o->name, NAME, o->name, o->name);
    fprintf(f,
            "/* Bind ctx to the caller's arena: size >= %s_ARENA_SIZE bytes, aligned to\n"
            " * LSTMC_RT_ALIGN. Returns LSTMC_RT_OK, or an error status; never allocates. */\n"
            "lstmc_rt_status %s_init(%s_ctx *ctx, void *arena, size_t size);\n\n",
            NAME, o->name, o->name);
    fprintf(f,
            "/* Change the thresholds for the next runs, no recompilation: alpha_inter cuts\n"
            " * the context links whose relevance is below it (breakpoints; layers compiled\n"
            " * with --alpha-inter only), alpha_intra skips rows (dynamic row skip). 0 is the\n"
            " * exact result. A negative, NaN or infinite value gives LSTMC_RT_ERR_BAD_PARAMS\n"
            " * and changes nothing. */\n"
            "lstmc_rt_status %s_set_thresholds(%s_ctx *ctx, float alpha_inter, float "
            "alpha_intra);\n\n",
            o->name, o->name);
    fprintf(f,
            "/* Run the model once: inputs[%s_N_INPUTS] are read, outputs[%s_N_OUTPUTS] are\n"
            " * written (each a C-order buffer of the shape and dtype above; they must not\n"
            " * overlap each other or the arena). Returns LSTMC_RT_OK or the failing kernel's\n"
            " * status (e.g. LSTMC_RT_ERR_INDEX for an out-of-range token). */\n"
            "lstmc_rt_status %s_run(%s_ctx *ctx, const void *const *inputs, void *const "
            "*outputs);\n\n",
            NAME, NAME, o->name, o->name);
    put_weight_header(f, o);
    put_stream_header(f, g, NAME, o);
    fprintf(f, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s_H */\n", NAME);
    return close_out(&of, d);
}

/* "STORAGE T NAME_wID[n] = {...};" for a constant tensor, C order, values exact. */
static void
put_const_array(FILE *f, const char *storage, const char *name, const ir_tensor *t, int id)
{
    int64_t n = ir_shape_numel(&t->shape), k;
    fprintf(f, "\n/* %s ", t->name);
    put_shape(f, &t->shape);
    fprintf(f, " */\n%s %s %s_w%d[%lld] = {", storage, ctype(t->dtype), name, id,
            (long long)(n > 0 ? n : 1));
    if (n <= 0)
        fputs("0", f);
    for (k = 0; k < n; k++) {
        fputs(k % 8 == 0 ? "\n    " : " ", f);
        switch (t->dtype) {
        case IR_DT_F32:
            put_float(f, ((const float *)t->data)[k]);
            break;
        case IR_DT_I64:
            fprintf(f, "INT64_C(%lld)", (long long)((const int64_t *)t->data)[k]);
            break;
        case IR_DT_I32:
            fprintf(f, "%ld", (long)((const int32_t *)t->data)[k]);
            break;
        default:
            fprintf(f, "%u", ((const unsigned char *)t->data)[k]);
            break;
        }
        fputc(',', f);
    }
    fputs("\n};\n", f);
}

static int
write_weights(const ir_graph *g, const memplan *mp, const cg_options *o, diag *d)
{
    out_file oh, oc;
    char fname[256];
    int i;
    char NAME[128];
    if (o->placement != CG_WEIGHTS_CONST)
        return write_weights_outside(g, mp, o, d);
    upper(o->name, NAME, sizeof NAME);
    snprintf(fname, sizeof fname, "%s_weights.h", o->name);
    if (open_out(&oh, o->outdir, fname, d) < 0)
        return -1;
    snprintf(fname, sizeof fname, "%s_weights.c", o->name);
    if (open_out(&oc, o->outdir, fname, d) < 0) {
        fclose(oh.f);
        remove(oh.tmp);
        return -1;
    }
    fprintf(oh.f,
            "/* %s_weights.h — generated by lstmc: the model's constant tensors. */\n"
            "#ifndef %s_WEIGHTS_H\n#define %s_WEIGHTS_H\n\n#include <stdint.h>\n\n",
            o->name, NAME, NAME);
    fprintf(oc.f,
            "/* %s_weights.c — generated by lstmc: the model's constant tensors, C order. */\n"
            "#include <math.h>\n#include <stdint.h>\n\n#include \"%s_weights.h\"\n\n"
            "/* every array on a cache line of its own: the vector loads of the kernels\n"
            " * never straddle two lines (bench/RESULTS.md, issue 4) */\n"
            "#if defined(__GNUC__) || defined(__clang__)\n"
            "#define LSTMC_WEIGHTS_ALIGNED __attribute__((aligned(64)))\n#else\n"
            "#define LSTMC_WEIGHTS_ALIGNED\n#endif\n",
            o->name, o->name);
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        int64_t n;
        if (mp->tensor[i].kind != MEMPLAN_CONST)
            continue;
        n = ir_shape_numel(&t->shape);
        fprintf(oh.f, "/* %s ", t->name);
        put_shape(oh.f, &t->shape);
        fprintf(oh.f, " */\nextern const %s %s_w%d[%lld];\n", ctype(t->dtype), o->name, i,
                (long long)(n > 0 ? n : 1));
        put_const_array(oc.f, "LSTMC_WEIGHTS_ALIGNED const", o->name, t, i);
    }
    fprintf(oh.f, "\n#endif\n");
    if (close_out(&oh, d) < 0) {
        fclose(oc.f);
        remove(oc.tmp);
        return -1;
    }
    return close_out(&oc, d);
}

/* Prototypes of the LLVM kernels in <name>_kernels.o: the runtime kernels' signatures. */
static void
put_llvm_protos(FILE *f, const char *name, const kprog *kp, const unsigned char *handled)
{
    const char *wty;
    int i, n = 0;
    for (i = 0; handled && i < kp->n_calls; i++) {
        if (!handled[i])
            continue;
        if (n++ == 0)
            fprintf(f, "/* kernels specialised to this model's shapes: %s_kernels.o (LLVM) or "
                       "%s_ocl.c (OpenCL) */\n", name, name);
        /* weights in a reduced-precision format (passes/lowp.c) are words, not floats */
        wty = kp->calls[i].wfmt ? "void" : "float";
        if (kp->calls[i].kind == KP_RNN_PROJ)
            fprintf(f, "lstmc_rt_status %s_k%d(const lstmc_rt_rnn_proj_params *p, const float *X,"
                       "\n    const %s *w, const float *b, float *P);\n", name, i, wty);
        else if (kp->calls[i].kind == KP_LSTM_DRS)
            fprintf(f, "lstmc_rt_status %s_k%d(const lstmc_rt_rnn_params *p, float alpha_intra,\n"
                       "    const float *P, const float *Uo, const float *Ufic,\n"
                       "    const int32_t *seq_lens, const float *init_h, const float *init_c,\n"
                       "    const float *Peep, float *Y, float *Y_h, float *Y_c,\n"
                       "    lstmc_rt_drs_stats *stats, void *scratch);\n", name, i);
        else if (kp->calls[i].kind == KP_LSTM_TISSUE) /* as lstmc_rt_lstm_tissue */
            fprintf(f,
                    "lstmc_rt_status %s_k%d(const lstmc_rt_tissue_params *p, float alpha_inter,"
                    "\n    const float *P, const float *Up, const float *row_abs_sum,\n"
                    "    const int32_t *seq_lens, const float *init_h, const float *init_c,\n"
                    "    const float *Peep, const float *h_pred, const float *c_pred, float *Y,\n"
                    "    float *Y_h, float *Y_c, lstmc_rt_tissue_stats *stats, void *scratch);\n",
                    name, i);
        else if (kp->calls[i].kind == KP_LSTM_TISSUE_DRS) /* as lstmc_rt_lstm_tissue_drs */
            fprintf(f,
                    "lstmc_rt_status %s_k%d(const lstmc_rt_tissue_params *p, float alpha_inter,"
                    "\n    float alpha_intra, const float *P, const float *Up,\n"
                    "    const float *row_abs_sum, const int32_t *seq_lens, const float *init_h,\n"
                    "    const float *init_c, const float *Peep, const float *h_pred,\n"
                    "    const float *c_pred, const float *Uo, const float *Ufic, float *Y,\n"
                    "    float *Y_h, float *Y_c, lstmc_rt_tissue_stats *stats,\n"
                    "    lstmc_rt_drs_stats *drs_stats, void *scratch);\n",
                    name, i);
        else if (kp->calls[i].kind == KP_RNN) /* OpenCL targets only (codegen/opencl/opencl.c) */
            fprintf(f, "lstmc_rt_status %s_k%d(const lstmc_rt_rnn_params *p, const float *X,\n"
                       "    const float *W, const float *R, const float *B, const int32_t "
                       "*seq_lens,\n    const float *init_h, const float *init_c, const float "
                       "*P, float *Y,\n    float *Y_h, float *Y_c, float *scratch);\n", name, i);
        else
            fprintf(f, "lstmc_rt_status %s_k%d(const lstmc_rt_rnn_params *p, const float *P,\n"
                       "    const %s *r, const float *rb, const int32_t *seq_lens,\n"
                       "    const float *init_h, const float *init_c, const float *Peep, "
                       "float *Y,\n    float *Y_h, float *Y_c, float *scratch);\n", name, i, wty);
    }
    if (n)
        fputc('\n', f);
}

/* Threads of the LLVM kernels (cg_llvm_kernels: handled[i] > 1 for a multi-core kernel). */
static int
pool_threads(const kprog *kp, const unsigned char *handled)
{
    int i, n = 1;
    for (i = 0; handled && i < kp->n_calls; i++)
        if (handled[i] > n)
            n = handled[i];
    return n;
}

static int
write_host(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
           const unsigned char *handled, const unsigned char *handled_s, diag *d)
{
    out_file of;
    FILE *f;
    char fname[256];
    char NAME[128];
    int i;
    upper(o->name, NAME, sizeof NAME);
    snprintf(fname, sizeof fname, "%s.c", o->name);
    if (open_out(&of, o->outdir, fname, d) < 0)
        return -1;
    f = of.f;
    fprintf(f,
            "/*\n * %s.c — generated by lstmc from %s: the schedule, one kernel call per "
            "block.\n * Buffers live in the caller's arena at fixed offsets (%lld bytes in "
            "all); nothing\n * here allocates.\n */\n"
            "#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n#include \"%s.h\"\n#include "
            "\"%s_weights.h\"\n\n",
            o->name, g->file, (long long)mp->arena_size, o->name, o->name);
    put_llvm_protos(f, o->name, kp, handled);
    for (i = 0; handled && i < kp->n_waves; i++) /* stacked layers as a wavefront (wave.c) */
        fprintf(f, "lstmc_rt_status %s_wv%d(void *const *a);\n%s", o->name, kp->waves[i].first,
                i + 1 == kp->n_waves ? "\n" : "");
    if (o->opencl) /* the recurrent layers run on an OpenCL device (codegen/opencl/opencl.c) */
        fprintf(f, "#include \"%s_ocl.h\"\n\n", o->name);
    put_weight_macros(f, g, mp, o);
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
    if (pool_threads(kp, handled) > 1) /* the multi-core kernels' workers: here, not in _run */
        fprintf(f, "    (void)lstmc_rt_pool_start(%d);\n", pool_threads(kp, handled));
    fputs("    return LSTMC_RT_OK;\n}\n\n", f);
    put_weight_binders(f, o);
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
    fprintf(f,
            "lstmc_rt_status\n%s_run(%s_ctx *ctx, const void *const *inputs, void *const "
            "*outputs)\n{\n    unsigned char *arena;\n    lstmc_rt_status st = LSTMC_RT_OK;\n"
            "    if (!ctx || !inputs || !outputs)\n        return LSTMC_RT_ERR_NULL;\n"
            "    if (ctx->arena_size < %s_RUN_ARENA_SIZE) /* bound by _init_stream */\n"
            "        return LSTMC_RT_ERR_ARENA_TOO_SMALL;\n"
            "%s"
            "    arena = ctx->arena;\n    (void)arena;\n"
            "    memset(&ctx->tissue_stats, 0, sizeof ctx->tissue_stats);\n"
            "    memset(&ctx->drs_stats, 0, sizeof ctx->drs_stats);\n",
            o->name, o->name, NAME,
            o->placement != CG_WEIGHTS_CONST
                ? "    if (!ctx->weights)\n        return LSTMC_RT_ERR_NO_WEIGHTS;\n"
                : "");
    for (i = 0; i < g->n_inputs; i++)
        fprintf(f, "    if (!inputs[%d])\n        return LSTMC_RT_ERR_NULL;\n", i);
    for (i = 0; i < kp->n_outputs; i++)
        fprintf(f, "    if (!outputs[%d])\n        return LSTMC_RT_ERR_NULL;\n", i);
    fputc('\n', f);
    for (i = 0; i < kp->n_calls; i++) {
        const kp_wave *w = handled ? cg_wave_of(kp, i) : NULL;
        if (w) { /* the group's calls run in one kernel */
            if (i == w->first)
                put_wave_call(f, o->name, mp, kp, w);
            continue;
        }
        put_call(f, o->name, mp, &kp->calls[i], i, handled && handled[i]);
    }
    fputs("    return st;\n}\n", f);
    put_stream_host(f, g, mp, o, handled_s);
    return close_out(&of, d);
}

static void
put_dtype_check(FILE *f, const char *NAME, const char *what, int i)
{
    fprintf(f, "%s_%s_%d_DTYPE", NAME, what, i);
}

/* run_stream(ctx, spec, inputs, outputs) of <name>_run.c: --stream SPEC feeds the whole
 * sequence through <name>_step in chunks of the sizes SPEC lists (cycled; the last chunk
 * is cut to what is left) and assembles the outputs _run would write. */
static void
put_driver_stream(FILE *f, const ir_graph *g, const kprog *kp, const cg_options *o)
{
    const stream_info *si = o->stream;
    int64_t T = si ? si->seq_len : 0, outer, inner;
    int i, j;
    fprintf(f, "static lstmc_rt_status\nrun_stream(%s_ctx *ctx, const char *spec, const void "
               "*const *inputs,\n           void *const *outputs)\n{\n",
            o->name);
    if (!stream_on(o)) {
        fprintf(f, "    static %s_state state;\n    (void)spec;\n"
                   "    return %s_step(ctx, &state, 1, inputs, outputs);\n}\n\n",
                o->name, o->name);
        return;
    }
    fprintf(f, "    static %s_state state;\n", o->name);
    for (i = 0; i < g->n_inputs; i++)
        if (si->in_axis[i] >= 0)
            fprintf(f, "    static %s chunk_in%d[sizeof in%d / sizeof in%d[0]];\n",
                    ctype(g->inputs[i]->dtype), i, i, i);
    for (i = 0; i < kp->n_outputs; i++)
        if (si->out_kind[i] == STREAM_TIME)
            fprintf(f, "    static %s chunk_out%d[sizeof out%d / sizeof out%d[0]];\n",
                    ctype(g->outputs[i]->dtype), i, i, i);
    fprintf(f, "    const void *cin[%d];\n    void *cout[%d];\n    const char *p = spec;\n"
               "    int64_t t = 0, n, o;\n    lstmc_rt_status st = %s_reset(&state);\n"
               "    (void)o;\n    if (st != LSTMC_RT_OK)\n        return st;\n",
            g->n_inputs + 1, kp->n_outputs + 1, o->name);
    for (j = 0; j < si->n_layers; j++) { /* initial states the model takes as inputs */
        const stream_layer *l = &si->layers[j];
        if (l->init_h_input >= 0)
            fprintf(f, "    memcpy(state.h%d, inputs[%d], sizeof state.h%d);\n", j,
                    l->init_h_input, j);
        if (l->init_c_input >= 0)
            fprintf(f, "    memcpy(state.c%d, inputs[%d], sizeof state.c%d);\n", j,
                    l->init_c_input, j);
    }
    fprintf(f, "    while (t < %lld) {\n        char *end;\n"
               "        n = strtol(p, &end, 10);\n"
               "        if (end == p || n < 1)\n            return LSTMC_RT_ERR_BAD_PARAMS;\n"
               "        p = *end == ',' ? end + 1 : spec;\n"
               "        if (n > %lld - t)\n            n = %lld - t;\n",
            (long long)T, (long long)T, (long long)T);
    for (i = 0; i < g->n_inputs; i++) {
        if (si->in_axis[i] < 0) {
            fprintf(f, "        cin[%d] = inputs[%d];\n", i, i);
            continue;
        }
        time_slice(g->inputs[i], si->in_axis[i], &outer, &inner);
        fprintf(f,
                "        for (o = 0; o < %lld; o++)\n"
                "            memcpy((unsigned char *)chunk_in%d + (size_t)(o * n) * %lldu,\n"
                "                   (const unsigned char *)inputs[%d] + (size_t)(o * %lld + t) * "
                "%lldu,\n                   (size_t)n * %lldu);\n        cin[%d] = chunk_in%d;\n",
                (long long)outer, i, (long long)inner, i, (long long)T, (long long)inner,
                (long long)inner, i, i);
    }
    for (i = 0; i < kp->n_outputs; i++)
        if (si->out_kind[i] == STREAM_TIME)
            fprintf(f, "        cout[%d] = chunk_out%d;\n", i, i);
        else
            fprintf(f, "        cout[%d] = outputs[%d];\n", i, i);
    fprintf(f, "        st = %s_step(ctx, &state, n, cin, cout);\n"
               "        if (st != LSTMC_RT_OK)\n            return st;\n",
            o->name);
    for (i = 0; i < kp->n_outputs; i++) {
        if (si->out_kind[i] != STREAM_TIME)
            continue;
        time_slice(g->outputs[i], si->out_axis[i], &outer, &inner);
        j = si->out_axis[i];
        fprintf(f,
                "        for (o = 0; o < %lld; o++) /* T = %lld along axis %d */\n"
                "            memcpy((unsigned char *)outputs[%d] + (size_t)(o * %lld + t) * "
                "%lldu,\n                   (const unsigned char *)chunk_out%d + (size_t)(o * n) "
                "* %lldu,\n                   (size_t)n * %lldu);\n",
                (long long)outer, (long long)g->outputs[i]->shape.d[j], j, i,
                (long long)g->outputs[i]->shape.d[j], (long long)inner, i, (long long)inner,
                (long long)inner);
    }
    fputs("        t += n;\n    }\n    return LSTMC_RT_OK;\n}\n\n", f);
}

/* load_weights(ctx, path, argv0) of <name>_run.c (blob and pointer placements): reads
 * <name>_weights.bin (path, or the one beside the program) and binds it. */
static void
put_driver_weights(FILE *f, const cg_options *o)
{
    char NAME[128];
    upper(o->name, NAME, sizeof NAME);
    fprintf(f, "static lstmc_rt_status\nload_weights(%s_ctx *ctx, const char *path, const char "
               "*argv0)\n{\n",
            o->name);
    if (o->placement == CG_WEIGHTS_CONST) {
        fputs("    (void)ctx;\n    (void)path;\n    (void)argv0;\n    return LSTMC_RT_OK;\n}\n\n",
              f);
        return;
    }
    fprintf(f,
            "    static unsigned char raw[%s_WEIGHTS_FILE_SIZE + LSTMC_RT_ALIGN + 1];\n"
            "    unsigned char *w = raw + (LSTMC_RT_ALIGN - (size_t)raw %% LSTMC_RT_ALIGN) %% "
            "LSTMC_RT_ALIGN;\n"
            "    char buf[4096];\n    size_t n;\n    FILE *f;\n"
            "    if (!path) { /* beside the program */\n"
            "        const char *slash = strrchr(argv0, '/');\n"
            "        snprintf(buf, sizeof buf, \"%%.*s%%s_weights.bin\", slash ? (int)(slash - "
            "argv0 + 1) : 0,\n                 argv0, \"%s\");\n        path = buf;\n    }\n"
            "    f = fopen(path, \"rb\");\n"
            "    if (!f) {\n        fprintf(stderr, \"%s_run: cannot open the weights %%s\\n\", "
            "path);\n        return LSTMC_RT_ERR_IO;\n    }\n"
            "    n = fread(w, 1, %s_WEIGHTS_FILE_SIZE + 1, f); /* + 1: a longer file shows */\n"
            "    fclose(f);\n    return %s_%s(ctx, w, n);\n}\n\n",
            NAME, o->name, o->name, NAME, o->name,
            o->placement == CG_WEIGHTS_BLOB ? "init_blob" : "set_weights");
}

static int
write_driver(const ir_graph *g, const kprog *kp, const cg_options *o, diag *d)
{
    out_file of;
    FILE *f;
    char fname[256];
    char NAME[128];
    int i;
    upper(o->name, NAME, sizeof NAME);
    snprintf(fname, sizeof fname, "%s_run.c", o->name);
    if (open_out(&of, o->outdir, fname, d) < 0)
        return -1;
    f = of.f;
    fprintf(f,
            "/*\n * %s_run.c — generated by lstmc: runs %s on .npy inputs, writes .npy "
            "outputs.\n *\n *   %s_run [--bench N] [--print] [--output-dir DIR] INPUT.npy...\n"
            " *\n * Inputs in graph order: ",
            o->name, o->name, o->name);
    for (i = 0; i < g->n_inputs; i++)
        fprintf(f, "%s'%s'", i ? ", " : "", g->inputs[i]->name);
    fprintf(f, ". Buffers are static: no allocation.\n */\n"
               "#define _POSIX_C_SOURCE 199309L\n#include <stdio.h>\n#include <stdlib.h>\n"
               "#include <string.h>\n#include <time.h>\n\n#include \"%s.h\"\n"
               "#include \"lstmc_rt_npy.h\"\n\n",
            o->name);
    fprintf(f, "static unsigned char arena_raw[%s_ARENA_SIZE + LSTMC_RT_ALIGN];\n", NAME);
    for (i = 0; i < g->n_inputs; i++) {
        const ir_tensor *t = g->inputs[i];
        int64_t n = ir_shape_numel(&t->shape);
        fprintf(f, "static %s in%d[%lld];\nstatic const int64_t in%d_dims[] = ", ctype(t->dtype),
                i, (long long)(n > 0 ? n : 1), i);
        put_i64s(f, t->shape.d, t->shape.rank);
        fputs(";\n", f);
    }
    for (i = 0; i < kp->n_outputs; i++) {
        const ir_tensor *t = g->outputs[i];
        int64_t n = ir_shape_numel(&t->shape);
        char san[512];
        cg_sanitize_filename(t->name, san, sizeof san);
        fprintf(f, "static %s out%d[%lld];\nstatic const int64_t out%d_dims[] = ",
                ctype(t->dtype), i, (long long)(n > 0 ? n : 1), i);
        put_i64s(f, t->shape.d, t->shape.rank);
        fprintf(f, ";\nstatic const char out%d_file[] = \"%s.npy\";\n", i, san);
    }
    fputs("\nstatic const char *const input_names[] = {", f);
    for (i = 0; i < g->n_inputs; i++)
        fprintf(f, "%s_INPUT_%d_NAME, ", NAME, i);
    fputs("NULL};\n\n", f);
    fputs("static int\ncmp_double(const void *a, const void *b)\n{\n"
          "    double x = *(const double *)a, y = *(const double *)b;\n"
          "    return x < y ? -1 : x > y;\n}\n\n",
          f);
    fputs("static const char *\nlstmc_dtype_str(int32_t t)\n{\n"
          "    return t == LSTMC_RT_F32 ? \"float32\" : t == LSTMC_RT_I64 ? \"int64\"\n"
          "         : t == LSTMC_RT_I32 ? \"int32\" : t == LSTMC_RT_U8 ? \"bool\" : \"?\";\n}\n\n",
          f);
    fputs("static int\nload(int i, const char *path, int32_t dtype, int rank, const int64_t "
          "*dims,\n     void *buf, size_t size)\n{\n"
          "    lstmc_npy_info info;\n    char err[256];\n    int k;\n"
          "    if (lstmc_npy_info_read(path, &info, err, sizeof err) != 0) {\n"
          "        fprintf(stderr, \"input '%s' (%s): %s\\n\", input_names[i], path, err);\n"
          "        return -1;\n    }\n"
          "    if (info.dtype != dtype) {\n"
          "        fprintf(stderr, \"input '%s' (%s): dtype %s, the model expects %s\\n\",\n"
          "                input_names[i], path, lstmc_dtype_str(info.dtype), "
          "lstmc_dtype_str(dtype));\n"
          "        return -1;\n    }\n"
          "    for (k = 0; k < rank && info.rank == rank; k++)\n"
          "        if (info.dims[k] != dims[k])\n            break;\n"
          "    if (info.rank != rank || k != rank) {\n"
          "        fprintf(stderr, \"input '%s' (%s): shape \", input_names[i], path);\n"
          "        for (k = 0; k < info.rank; k++)\n"
          "            fprintf(stderr, \"%s%lld\", k ? \"x\" : \"\", (long long)info.dims[k]);\n"
          "        fprintf(stderr, \" does not match the compiled shape \");\n"
          "        for (k = 0; k < rank; k++)\n"
          "            fprintf(stderr, \"%s%lld\", k ? \"x\" : \"\", (long long)dims[k]);\n"
          "        fprintf(stderr, \"\\n\");\n        return -1;\n    }\n"
          "    if (lstmc_npy_read_data(path, &info, buf, size, err, sizeof err) != 0) {\n"
          "        fprintf(stderr, \"input '%s' (%s): %s\\n\", input_names[i], path, err);\n"
          "        return -1;\n    }\n    return 0;\n}\n\n",
          f);
    put_driver_stream(f, g, kp, o);
    put_driver_weights(f, o);
    fprintf(f,
            "int\nmain(int argc, char **argv)\n{\n"
            "    const char *outdir = \".\";\n    const char *paths[%s_N_INPUTS + 1] = {0};\n"
            "    const void *inputs[%s_N_INPUTS + 1] = {0};\n    void *outputs[%s_N_OUTPUTS + 1] = {0};\n"
            "    %s_ctx ctx;\n    lstmc_rt_status st;\n    long bench = 0;\n    int print = 0;\n"
            "    const char *stream = NULL, *weights_file = NULL;\n"
            "    int n_paths = 0, i;\n"
            "    unsigned char *arena = arena_raw + (LSTMC_RT_ALIGN - (size_t)arena_raw %% "
            "LSTMC_RT_ALIGN) %% LSTMC_RT_ALIGN;\n\n",
            NAME, NAME, NAME, o->name);
    fprintf(f,
            "    for (i = 1; i < argc; i++) {\n"
            "        if (strcmp(argv[i], \"--bench\") == 0 && i + 1 < argc) {\n"
            "            char *end;\n            bench = strtol(argv[++i], &end, 10);\n"
            "            if (*end || bench < 1 || bench > 1000000) {\n"
            "                fprintf(stderr, \"%s_run: --bench takes a count from 1 to "
            "1000000\\n\");\n                return 2;\n            }\n"
            "        } else if (strcmp(argv[i], \"--print\") == 0) {\n"
            "            print = 1;\n"
            "        } else if (strcmp(argv[i], \"--weights-file\") == 0 && i + 1 < argc) {\n"
            "            weights_file = argv[++i];\n"
            "        } else if (strcmp(argv[i], \"--stream\") == 0 && i + 1 < argc) {\n"
            "            stream = argv[++i];\n"
            "            if (strspn(stream, \"0123456789,\") != strlen(stream) || !*stream) {\n"
            "                fprintf(stderr, \"%s_run: --stream takes chunk sizes like 1 or "
            "3,1,2\\n\");\n                return 2;\n            }\n"
            "        } else if (strcmp(argv[i], \"--output-dir\") == 0 && i + 1 < argc) {\n"
            "            outdir = argv[++i];\n"
            "        } else if (argv[i][0] == '-' && argv[i][1] == '-') {\n"
            "            fprintf(stderr, \"%s_run: unknown option '%%s'\\n\", argv[i]);\n"
            "            return 2;\n"
            "        } else if (n_paths < %s_N_INPUTS) {\n"
            "            paths[n_paths++] = argv[i];\n"
            "        } else {\n"
            "            fprintf(stderr, \"%s_run: too many inputs (the model has %%d)\\n\", "
            "%s_N_INPUTS);\n            return 2;\n        }\n    }\n",
            o->name, o->name, o->name, NAME, o->name, NAME);
    fprintf(f,
            "    if (n_paths != %s_N_INPUTS) {\n"
            "        fprintf(stderr, \"usage: %s_run [--bench N] [--output-dir DIR]",
            NAME, o->name);
    for (i = 0; i < g->n_inputs; i++)
        fprintf(f, " INPUT%d.npy", i);
    fputs("\\n\");\n        return 2;\n    }\n", f);
    for (i = 0; i < g->n_inputs; i++) {
        fprintf(f,
                "    if (load(%d, paths[%d], ", i, i);
        put_dtype_check(f, NAME, "INPUT", i);
        fprintf(f, ", %d, in%d_dims, in%d, sizeof in%d) != 0)\n        return 1;\n"
                   "    inputs[%d] = in%d;\n",
                g->inputs[i]->shape.rank, i, i, i, i, i);
    }
    for (i = 0; i < kp->n_outputs; i++)
        fprintf(f, "    outputs[%d] = out%d;\n", i, i);
    fprintf(f,
            "    if (stream && !%s_STREAMABLE) {\n"
            "        fprintf(stderr, \"%s_run: --stream: the model does not stream: %%s\\n\",\n"
            "                %s_STREAM_WHY);\n        return 1;\n    }\n"
            "    st = %s_init(&ctx, arena, %s_ARENA_SIZE);\n"
            "%s"
            "    if (st == LSTMC_RT_OK)\n"
            "        st = stream ? run_stream(&ctx, stream, inputs, outputs)\n"
            "                    : %s_run(&ctx, inputs, outputs);\n"
            "    if (st != LSTMC_RT_OK) {\n"
            "        fprintf(stderr, \"%s_run: %%s\\n\", lstmc_rt_status_str(st));\n"
            "        return 1;\n    }\n",
            NAME, o->name, NAME, o->name, NAME,
            o->placement != CG_WEIGHTS_CONST
                ? "    if (st == LSTMC_RT_OK)\n        st = load_weights(&ctx, weights_file, "
                  "argv[0]);\n"
                : "    (void)weights_file;\n",
            o->name, o->name);
    fprintf(f,
            "    if (bench > 0) {\n"
            "        static double ms[1000000];\n        long r;\n"
            "        for (r = 0; r < bench; r++) {\n            struct timespec t0, t1;\n"
            "            clock_gettime(CLOCK_MONOTONIC, &t0);\n"
            "            if (stream)\n                run_stream(&ctx, stream, inputs, outputs);\n"
            "            else\n                %s_run(&ctx, inputs, outputs);\n"
            "            clock_gettime(CLOCK_MONOTONIC, &t1);\n"
            "            ms[r] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - "
            "t0.tv_nsec) / 1e6;\n        }\n"
            "        qsort(ms, (size_t)bench, sizeof ms[0], cmp_double);\n"
            "        printf(\"%s: median %%.4f ms over %%ld runs\\n\", ms[bench / 2], bench);\n"
            "    }\n",
            o->name, o->name);
    for (i = 0; i < kp->n_outputs; i++) {
        const ir_tensor *t = g->outputs[i];
        int64_t n = ir_shape_numel(&t->shape);
        fprintf(f, "    if (print) {\n        long k;\n        printf(\"%%s %s", ctype(t->dtype));
        put_shape(f, &t->shape);
        fprintf(f, ":\", %s_OUTPUT_%d_NAME);\n        for (k = 0; k < %lld && k < 64; k++)\n",
                NAME, i, (long long)n);
        if (t->dtype == IR_DT_F32)
            fprintf(f, "            printf(\" %%.6g\", (double)out%d[k]);\n", i);
        else
            fprintf(f, "            printf(\" %%lld\", (long long)out%d[k]);\n", i);
        fprintf(f, "        printf(\"%%s\\n\", %lld > 64 ? \" ...\" : \"\");\n    }\n",
                (long long)n);
    }
    for (i = 0; i < kp->n_outputs; i++) {
        const ir_tensor *t = g->outputs[i];
        fprintf(f,
                "    {\n        char path[4096], err[256];\n"
                "        snprintf(path, sizeof path, \"%%s/%%s\", outdir, out%d_file);\n"
                "        if (lstmc_npy_write(path, %s, %d, out%d_dims, out%d, err, sizeof err) "
                "!= 0) {\n"
                "            fprintf(stderr, \"%s_run: cannot write %%s: %%s\\n\", path, err);\n"
                "            return 1;\n        }\n    }\n",
                i, rt_dtype(t->dtype), t->shape.rank, i, i, o->name);
    }
    fputs("    return 0;\n}\n", f);
    return close_out(&of, d);
}

static int
write_makefile(const cg_options *o, int n_llvm, int n_llvm_s, int threads, diag *d)
{
    out_file of;
    FILE *f;
    int i;
    if (open_out(&of, o->outdir, "Makefile", d) < 0)
        return -1;
    f = of.f;
    fprintf(f, "# Makefile — generated by lstmc: builds lib%s.a and %s_run.\n"
               "# Override CC, CFLAGS, AR for your toolchain (e.g. make CC=aarch64-linux-gnu-gcc).\n"
               "CC ?= cc\nAR ?= ar\nCFLAGS ?= -O2\n"
               "LSTMC_CPPFLAGS = -I. -Iruntime/include\n"
               "LSTMC_STD = -std=c99\n\nRT_OBJS =",
            o->name, o->name);
    for (i = 0; embed_runtime_files[i].path; i++) {
        const char *p = embed_runtime_files[i].path;
        size_t n = strlen(p);
        if (strncmp(p, "src/", 4) == 0 && n > 2 && strcmp(p + n - 2, ".c") == 0 &&
            strcmp(p, "src/rt_npy.c") != 0 && strcmp(p, "src/rt_opencl.c") != 0)
            fprintf(f, " runtime/%.*s.o", (int)(n - 2), p);
    }
    fprintf(f, "\nOBJS = %s.o %s_weights.o $(RT_OBJS)\n", o->name, o->name);
    if (o->opencl) /* the OpenCL host runtime and layers, through the ICD loader */
        fprintf(f, "OBJS += %s_ocl.o runtime/src/rt_opencl.o\nLSTMC_CPPFLAGS += -DLSTMC_RT_OPENCL\n"
                   "LSTMC_LIBS = -lOpenCL\n", o->name);
    if (threads > 1) /* rt_pool.c with its workers (pthreads) */
        fputs("LSTMC_CPPFLAGS += -DLSTMC_RT_THREADS -pthread\nLSTMC_LIBS += -pthread\n", f);
    /* written by lstmc (LLVM, for the target's triple): no rule makes or cleans it */
    fputs("KOBJS =", f);
    if (n_llvm > 0) /* GPU targets: the CPU side of the OpenCL policy, <name>_cpu_kernels.o */
        fprintf(f, " %s%s_kernels.o", o->name, o->opencl ? "_cpu" : "");
    if (n_llvm_s > 0) /* the streaming step program's kernels */
        fprintf(f, " %s_stream_kernels.o", o->name);
    fputs("\n\n", f);
    fprintf(f, "all: lib%s.a %s_run\n\n", o->name, o->name);
    fprintf(f, "lib%s.a: $(OBJS) $(KOBJS)\n\t$(AR) rcs $@ $(OBJS) $(KOBJS)\n\n", o->name);
    fprintf(f,
            "%s_run: %s_run.c runtime/src/rt_npy.c lib%s.a\n"
            "\t$(CC) $(CFLAGS) $(LSTMC_STD) $(LSTMC_CPPFLAGS) -o $@ %s_run.c "
            "runtime/src/rt_npy.c lib%s.a $(LDFLAGS) $(LSTMC_LIBS) -lm\n\n",
            o->name, o->name, o->name, o->name, o->name);
    fprintf(f, "%%.o: %%.c\n\t$(CC) $(CFLAGS) $(LSTMC_STD) $(LSTMC_CPPFLAGS) -c -o $@ $<\n\n");
    fprintf(f, "$(OBJS): %s.h %s_weights.h runtime/include/lstmc_rt.h\n\n", o->name, o->name);
    /* the code size lstmc cannot know: host code and C runtime, for this CC and CFLAGS */
    fprintf(f, "SIZE ?= size\nsize: $(OBJS)\n\t$(SIZE) -t $(OBJS) $(KOBJS)\n\n");
    fprintf(f, "clean:\n\trm -f $(OBJS) lib%s.a %s_run\n\n.PHONY: all clean size\n", o->name,
            o->name);
    return close_out(&of, d);
}

static int
write_runtime(const cg_options *o, diag *d)
{
    char dir[4096];
    int i;
    for (i = 0; embed_runtime_files[i].path; i++) {
        const embed_file *e = &embed_runtime_files[i];
        const char *slash = strrchr(e->path, '/');
        out_file of;
        snprintf(dir, sizeof dir, "%s/runtime/%.*s", o->outdir,
                 slash ? (int)(slash - e->path) : 0, e->path);
        if (ensure_dir(dir, d) < 0)
            return -1;
        if (open_out(&of, dir, slash ? slash + 1 : e->path, d) < 0)
            return -1;
        fwrite(e->data, 1, e->size, of.f);
        if (close_out(&of, d) < 0)
            return -1;
    }
    return 0;
}

/* sizeof(<name>_state) on a target with 4-byte floats and 8-byte int64. */
static int64_t
state_bytes(const cg_options *o)
{
    int64_t floats = 0;
    int k;
    if (!stream_on(o))
        return 8;
    for (k = 0; k < o->stream->n_layers; k++)
        floats += (o->stream->layers[k].cell == LSTMC_RT_CELL_LSTM ? 2 : 1) *
                  o->stream->layers[k].batch * o->stream->layers[k].hidden;
    return (floats * 4 + 7) / 8 * 8 + 8;
}

/* Bytes of the constants only the streaming step program has (not shared with _run). */
static int64_t
stream_weights(const ir_graph *g, const memplan *mp, const cg_options *o)
{
    const stream_info *si = o->stream;
    int64_t total = 0;
    int i;
    if (!stream_on(o))
        return 0;
    for (i = 0; i < si->g->n_tensors; i++) {
        const ir_tensor *t = si->g->tensors[i];
        if (si->mp.tensor[i].kind == MEMPLAN_CONST && same_const(g, mp, t) < 0)
            total += ir_shape_numel(&t->shape) * (int64_t)ir_dtype_size(t->dtype);
    }
    return total;
}

/* Remove OUTDIR/<name>_kernels.o left by an earlier compile when nothing needs it now. */
static void
remove_stale_object(const cg_options *o, const char *name)
{
    char stale[4200];
    snprintf(stale, sizeof stale, "%s/%s_kernels.o", o->outdir, name);
    remove(stale);
}

int
cg_write(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o, diag *d)
{
    unsigned char *handled = NULL, *handled_s = NULL;
    int n_llvm = 0, n_llvm_s = 0, rc = 0;
    char sname[160];

    if (!cg_name_ok(o->name)) {
        diag_error(d, "library name '%s' is not a C identifier (letters, digits, _)", o->name);
        return -1;
    }
    if (ensure_dir(o->outdir, d) < 0)
        return -1;
    snprintf(sname, sizeof sname, "%s_stream", o->name);
    if (o->opencl) { /* the recurrent layers on the GPU; the rest keeps the C kernels */
        unsigned char *cpu = calloc((size_t)kp->n_calls + 1, 1);
        handled = calloc((size_t)kp->n_calls + 1, 1);
        if (!handled || !cpu) {
            diag_error(d, "out of memory");
            rc = -1;
        } else if (o->llvm) { /* the policy's CPU side: LLVM kernels <name>_cpu_k<i> */
            cg_options oc = *o;
            char cpu_name[96];
            snprintf(cpu_name, sizeof cpu_name, "%s_cpu", o->name);
            oc.name = cpu_name;
            n_llvm = cg_llvm_kernels(kp, &oc, cpu, d);
            rc = n_llvm < 0 ? -1 : 0;
        }
        if (rc == 0 && cg_opencl_write(g, kp, mp, o, handled, cpu, d) < 0)
            rc = -1;
        free(cpu);
        if (rc < 0) {
            free(handled);
            return -1;
        }
    } else if (o->llvm) {
        handled = calloc((size_t)kp->n_calls + 1, 1);
        if (!handled) {
            diag_error(d, "out of memory");
            return -1;
        }
        n_llvm = cg_llvm_kernels(kp, o, handled, d);
        if (n_llvm < 0) {
            free(handled);
            return -1;
        }
        if (n_llvm == 0) /* nothing for LLVM: no object, the Makefile does not name one */
            remove_stale_object(o, o->name);
    }
    if (o->llvm && stream_on(o)) { /* the step program's kernels: <name>_stream_k<i> */
        cg_options so = *o;
        so.name = sname;
        so.threads = 1; /* one step per call: a barrier would cost more than it saves */
        handled_s = calloc((size_t)o->stream->kp.n_calls + 1, 1);
        n_llvm_s = handled_s ? cg_llvm_kernels(&o->stream->kp, &so, handled_s, d) : -1;
        if (n_llvm_s < 0) {
            if (!handled_s)
                diag_error(d, "out of memory");
            free(handled);
            free(handled_s);
            return -1;
        }
    }
    if (n_llvm_s == 0)
        remove_stale_object(o, sname);
    if (write_header(g, kp, mp, o, d) < 0 || write_weights(g, mp, o, d) < 0 ||
        write_host(g, kp, mp, o, handled, handled_s, d) < 0 || write_driver(g, kp, o, d) < 0 ||
        write_makefile(o, n_llvm, n_llvm_s, pool_threads(kp, handled), d) < 0 ||
        write_runtime(o, d) < 0 ||
        cg_size_report(g, kp, mp, o, total_arena(mp, o), stream_arena(o), state_bytes(o),
                       stream_weights(g, mp, o), d) < 0)
        rc = -1;
    free(handled);
    free(handled_s);
    return rc;
}
