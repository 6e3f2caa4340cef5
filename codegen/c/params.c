/*
 * params.c — the runtime kernels' params structs (lstmc_rt_rnn_params, _gemm_params, ...)
 * as C initialisers: the static const p each block of the schedule passes to its kernel.
 */
#include "c_impl.h"
#include "ir.h"
#include "kprog.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* ORDER KP_KIND: cg_c_put_params has a case for every row of kp_kinds.def that declares
 * params (all but KP_COPY). */
static_assert(KP_KIND_COUNT == 39, "ORDER KP_KIND: give the new kind a case in cg_c_put_params");

/* The names of the runtime's enum constants (lstmc_rt.h), by value. */
static const char *const cell_names[] = {"LSTMC_RT_CELL_LSTM", "LSTMC_RT_CELL_GRU",
                                         "LSTMC_RT_CELL_RNN"};
static const char *const act_names[] = {
    "LSTMC_RT_ACT_SIGMOID",          "LSTMC_RT_ACT_TANH",        "LSTMC_RT_ACT_RELU",
    "LSTMC_RT_ACT_HARD_SIGMOID",     "LSTMC_RT_ACT_AFFINE",      "LSTMC_RT_ACT_LEAKY_RELU",
    "LSTMC_RT_ACT_THRESHOLDED_RELU", "LSTMC_RT_ACT_SCALED_TANH", "LSTMC_RT_ACT_ELU",
    "LSTMC_RT_ACT_SOFTSIGN",         "LSTMC_RT_ACT_SOFTPLUS"};
static const char *const binop_names[] = {"LSTMC_RT_ADD", "LSTMC_RT_SUB", "LSTMC_RT_MUL",
                                          "LSTMC_RT_DIV"};
static const char *const unop_names[] = {"LSTMC_RT_RELU", "LSTMC_RT_SIGMOID", "LSTMC_RT_TANH",
                                         "LSTMC_RT_NEG",  "LSTMC_RT_EXP",     "LSTMC_RT_SQRT"};
/* issue 20, elt and ops */
static const char *const ewop_names[] = {
    "LSTMC_RT_EW_EQUAL",        "LSTMC_RT_EW_LESS",          "LSTMC_RT_EW_GREATER",
    "LSTMC_RT_EW_LESS_EQUAL",   "LSTMC_RT_EW_GREATER_EQUAL", "LSTMC_RT_EW_AND",
    "LSTMC_RT_EW_OR",           "LSTMC_RT_EW_NOT",           "LSTMC_RT_EW_WHERE",
    "LSTMC_RT_EW_POW",          "LSTMC_RT_EW_RECIPROCAL",    "LSTMC_RT_EW_LOG",
    "LSTMC_RT_EW_ABS",          "LSTMC_RT_EW_CLIP",          "LSTMC_RT_EW_LEAKY_RELU",
    "LSTMC_RT_EW_HARD_SIGMOID", "LSTMC_RT_EW_HARD_SWISH",    "LSTMC_RT_EW_ERF",
    "LSTMC_RT_EW_PRELU",        "LSTMC_RT_EW_MIN",           "LSTMC_RT_EW_MAX",
    "LSTMC_RT_EW_FLOOR",        "LSTMC_RT_EW_CEIL",          "LSTMC_RT_EW_SIGN",
    "LSTMC_RT_EW_ROUND",        "LSTMC_RT_EW_SOFTPLUS",      "LSTMC_RT_EW_ELU",
    "LSTMC_RT_EW_SELU",         "LSTMC_RT_EW_SIN",           "LSTMC_RT_EW_COS",
    "LSTMC_RT_EW_NEG"};
static_assert(LSTMC_RT_EW_NEG == 30, "lstmc_rt_ewop: a new op needs its name in ewop_names");
static const char *const dtype_names[] = {NULL,           "LSTMC_RT_F32", "LSTMC_RT_I64",
                                          "LSTMC_RT_I32", "LSTMC_RT_U8",  "LSTMC_RT_I8",
                                          "LSTMC_RT_I16"};
static_assert(LSTMC_RT_CELL_RNN == 2 && LSTMC_RT_ACT_SOFTPLUS == 10 && LSTMC_RT_DIV == 3 &&
                  LSTMC_RT_SQRT == 5 && LSTMC_RT_I16 == 6,
              "lstmc_rt.h: a new enum constant needs its name in params.c");

/* issue 20, red */
static const char *const reduce_names[] = {
    "LSTMC_RT_REDUCE_MEAN",       "LSTMC_RT_REDUCE_SUM",  "LSTMC_RT_REDUCE_MAX",
    "LSTMC_RT_REDUCE_MIN",        "LSTMC_RT_REDUCE_L2",   "LSTMC_RT_REDUCE_SUM_SQUARE",
    "LSTMC_RT_REDUCE_L1",         "LSTMC_RT_REDUCE_PROD", "LSTMC_RT_REDUCE_LOG_SUM",
    "LSTMC_RT_REDUCE_LOG_SUM_EXP"};
static const char *const pad_names[] = {"LSTMC_RT_PAD_CONSTANT", "LSTMC_RT_PAD_REFLECT",
                                        "LSTMC_RT_PAD_EDGE"};
static const char *const scatter_names[] = {"LSTMC_RT_SCATTER_NONE", "LSTMC_RT_SCATTER_ADD",
                                            "LSTMC_RT_SCATTER_MUL", "LSTMC_RT_SCATTER_MAX",
                                            "LSTMC_RT_SCATTER_MIN"};
static_assert(LSTMC_RT_REDUCE_LOG_SUM_EXP == 9 && LSTMC_RT_PAD_EDGE == 2 &&
                  LSTMC_RT_SCATTER_MIN == 4,
              "lstmc_rt_kernels.h: a new enum constant needs its name in params.c");

#define ENUM_NAME(names, v) enum_name(names, (int)(sizeof names / sizeof names[0]), (v))

/* names[v], or NULL when v has no name there. */
static const char *
enum_name(const char *const *names, int n, int v)
{
    return v >= 0 && v < n ? names[v] : NULL;
}

/* An enum field's value: its constant's name where the runtime has one, else the number. */
static void
put_enum(FILE *f, const char *name, int v)
{
    if (name)
        fputs(name, f);
    else
        fprintf(f, "%d", v);
}

/* The fields of an lstmc_rt_rnn_params as a C initialiser "{...}". */
static void
put_rnn_fields(FILE *f, const lstmc_rt_rnn_params *p)
{
    int i, n;
    fputs("{\n            .cell = ", f);
    put_enum(f, ENUM_NAME(cell_names, p->cell), p->cell);
    fprintf(f,
            ", .seq_len = %lld, .batch = %lld, .input_size = %lld,\n"
            "            .hidden = %lld, .n_dirs = %d, .reverse = %d, .layout = %d,\n"
            "            .has_clip = %d, .clip = ",
            (long long)p->seq_len, (long long)p->batch, (long long)p->input_size,
            (long long)p->hidden, p->n_dirs, p->reverse, p->layout, p->has_clip);
    cg_c_put_float(f, p->clip);
    fprintf(f,
            ", .input_forget = %d,\n            .linear_before_reset = %d,\n"
            "            .act = {",
            p->input_forget, p->linear_before_reset);
    /* up to the last slot in use (the rest stay zero), three to a line */
    for (n = 6; n > 1; n--)
        if (p->act[n - 1].kind != 0 || p->act[n - 1].alpha != 0.0f || p->act[n - 1].beta != 0.0f)
            break;
    for (i = 0; i < n; i++) {
        fputs(i == 0 ? "{" : i % 3 ? ", {" : ",\n                    {", f);
        put_enum(f, ENUM_NAME(act_names, p->act[i].kind), p->act[i].kind);
        fputs(", ", f);
        cg_c_put_float(f, p->act[i].alpha);
        fputs(", ", f);
        cg_c_put_float(f, p->act[i].beta);
        fputc('}', f);
    }
    fprintf(f, "},\n            .packed = %d", p->packed);
    if (p->hsparse_th != 0.0f) { /* passes/hsparse.c */
        fputs(", .hsparse_th = ", f);
        cg_c_put_float(f, p->hsparse_th);
    }
    fputc('}', f);
}

/* The params of a per-channel normalisation (lstmc_rt_<kind>_params: BatchNormalization,
 * InstanceNormalization), which share one layout. */
static void
put_channel_norm(FILE *f, const char *kind, int64_t outer, int64_t channels, int64_t inner,
                 float epsilon)
{
    fprintf(f,
            "static const lstmc_rt_%s_params p = {.outer = %lld, .channels = %lld, "
            ".inner = %lld, .epsilon = ",
            kind, (long long)outer, (long long)channels, (long long)inner);
    cg_c_put_float(f, epsilon);
    fputs("};\n", f);
}

void
cg_c_put_params(FILE *f, const kp_call *c)
{
    int i;
    switch (c->kind) {
    case KP_RNN_PROJ: {
        const lstmc_rt_rnn_proj_params *p = &c->p.proj;
        fputs("static const lstmc_rt_rnn_proj_params p = {.cell = ", f);
        put_enum(f, ENUM_NAME(cell_names, p->cell), p->cell);
        fprintf(f,
                ", .n_dirs = %d, .rows = %lld,\n            .input_size = %lld, .hidden = %lld, "
                ".linear_before_reset = %d, .packed = %d};\n",
                p->n_dirs, (long long)p->rows, (long long)p->input_size, (long long)p->hidden,
                p->linear_before_reset, p->packed);
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
        fprintf(f, ",\n            .mts = %d, .relevance = %d, .max_run = %d, .wfmt = %d};\n",
                c->p.tissue.p.mts, c->p.tissue.p.relevance, c->p.tissue.p.max_run,
                c->p.tissue.p.wfmt);
        break;
    case KP_RNN_Q: /* issue 22 */
    case KP_LSTM_TISSUE_Q:
    case KP_LSTM_TISSUE_DRS_Q:
    case KP_LSTM_DRS_Q: {
        const int tq = c->kind == KP_LSTM_TISSUE_Q || c->kind == KP_LSTM_TISSUE_DRS_Q;
        const lstmc_rt_rnnq_params *p = tq                         ? &c->p.tissueq.p.q
                                        : c->kind == KP_LSTM_DRS_Q ? &c->p.drsq.p
                                                                   : &c->p.rnnq;
        fputs(tq ? "static const lstmc_rt_tissueq_params p = {.q = {.cell = "
                 : "static const lstmc_rt_rnnq_params p = {.cell = ",
              f);
        put_enum(f, ENUM_NAME(cell_names, p->cell), p->cell);
        fprintf(f,
                ", .bits = %d, .seq_len = %lld, .batch = %lld,\n"
                "            .input_size = %lld, .hidden = %lld, .n_dirs = %d, .reverse = %d, "
                ".layout = %d,\n            .act = {",
                p->bits, (long long)p->seq_len, (long long)p->batch, (long long)p->input_size,
                (long long)p->hidden, p->n_dirs, p->reverse, p->layout);
        for (i = 0; i < 6; i++) {
            fputs(i ? ", " : "", f);
            put_enum(f, ENUM_NAME(act_names, p->act[i]), p->act[i]);
        }
        fprintf(f,
                "},\n            .has_clip = %d, .clip_q = %d, .input_forget = %d, "
                ".linear_before_reset = %d,\n            .cell_exp = %d, .h_mult = %d, "
                ".h_shift = %d, .peep_mult = %d, .peep_shift = %d}",
                p->has_clip, p->clip_q, p->input_forget, p->linear_before_reset, p->cell_exp,
                p->h_mult, p->h_shift, p->peep_mult, p->peep_shift);
        if (tq)
            fprintf(f, ",\n            .mts = %d, .relevance = %d, .max_run = %d}",
                    c->p.tissueq.p.mts, c->p.tissueq.p.relevance, c->p.tissueq.p.max_run);
        fputs(";\n", f);
        break;
    }
    case KP_GEMM_Q:
        fprintf(f,
                "static const lstmc_rt_gemmq_params p = {.m = %lld, .n = %lld, .k = %lld, "
                ".bits = %d, .a_zero_point = %d};\n",
                (long long)c->p.gemmq.m, (long long)c->p.gemmq.n, (long long)c->p.gemmq.k,
                c->p.gemmq.bits, c->p.gemmq.a_zero_point);
        break;
    case KP_QUANT:
    case KP_DEQUANT:
        fprintf(f, "static const lstmc_rt_quant_params p = {.n = %lld, .bits = %d, .scale = ",
                (long long)c->p.quant.n, c->p.quant.bits);
        cg_c_put_float(f, c->p.quant.scale);
        fprintf(f, ", .zero_point = %d};\n", c->p.quant.zero_point);
        break;
    case KP_GEMM: {
        const lstmc_rt_gemm_params *p = &c->p.gemm;
        fprintf(f,
                "static const lstmc_rt_gemm_params p = {.m = %lld, .n = %lld, .k = %lld, "
                ".trans_a = %d, .trans_b = %d,\n            .alpha = ",
                (long long)p->m, (long long)p->n, (long long)p->k, p->trans_a, p->trans_b);
        cg_c_put_float(f, p->alpha);
        fputs(", .beta = ", f);
        cg_c_put_float(f, p->beta);
        fprintf(f, ", .c_stride_m = %lld, .c_stride_n = %lld};\n", (long long)p->c_stride_m,
                (long long)p->c_stride_n);
        break;
    }
    case KP_MATMUL: {
        const lstmc_rt_matmul_params *p = &c->p.matmul;
        fprintf(f, "static const lstmc_rt_matmul_params p = {.n_batch = %d, .batch = ", p->n_batch);
        cg_c_put_i64s(f, p->batch, p->n_batch);
        fputs(",\n            .a_stride = ", f);
        cg_c_put_i64s(f, p->a_stride, p->n_batch);
        fputs(", .b_stride = ", f);
        cg_c_put_i64s(f, p->b_stride, p->n_batch);
        fprintf(f, ",\n            .m = %lld, .n = %lld, .k = %lld};\n", (long long)p->m,
                (long long)p->n, (long long)p->k);
        break;
    }
    case KP_BINARY: {
        const lstmc_rt_binary_params *p = &c->p.binary;
        fputs("static const lstmc_rt_binary_params p = {.op = ", f);
        put_enum(f, ENUM_NAME(binop_names, p->op), p->op);
        fputs(", .dtype = ", f);
        put_enum(f, ENUM_NAME(dtype_names, p->dtype), p->dtype);
        fprintf(f, ", .rank = %d,", p->rank);
        fputs("\n            .out_dims = ", f);
        cg_c_put_i64s(f, p->out_dims, p->rank);
        fputs(",\n            .a_stride = ", f);
        cg_c_put_i64s(f, p->a_stride, p->rank);
        fputs(",\n            .b_stride = ", f);
        cg_c_put_i64s(f, p->b_stride, p->rank);
        fputs("};\n", f);
        break;
    }
    case KP_UNARY:
        fputs("static const lstmc_rt_unary_params p = {.op = ", f);
        put_enum(f, ENUM_NAME(unop_names, c->p.unary.op), c->p.unary.op);
        fprintf(f, ", .n = %lld};\n", (long long)c->p.unary.n);
        break;
    case KP_SOFTMAX:
        fprintf(f,
                "static const lstmc_rt_softmax_params p = {.log_softmax = %d, .outer = %lld, "
                ".axis_len = %lld, .inner = %lld};\n",
                c->p.softmax.log_softmax, (long long)c->p.softmax.outer,
                (long long)c->p.softmax.axis_len, (long long)c->p.softmax.inner);
        break;
    case KP_CAST:
        fputs("static const lstmc_rt_cast_params p = {.from = ", f);
        put_enum(f, ENUM_NAME(dtype_names, c->p.cast.from), c->p.cast.from);
        fputs(", .to = ", f);
        put_enum(f, ENUM_NAME(dtype_names, c->p.cast.to), c->p.cast.to);
        fprintf(f, ", .n = %lld};\n", (long long)c->p.cast.n);
        break;
    case KP_ARGMAX:
        fputs("static const lstmc_rt_argmax_params p = {.dtype = ", f);
        put_enum(f, ENUM_NAME(dtype_names, c->p.argmax.dtype), c->p.argmax.dtype);
        fprintf(f,
                ", .select_last_index = %d, .smallest = %d,\n            .outer = %lld, "
                ".axis_len = %lld, .inner = %lld};\n",
                c->p.argmax.select_last_index, c->p.argmax.smallest, (long long)c->p.argmax.outer,
                (long long)c->p.argmax.axis_len, (long long)c->p.argmax.inner);
        break;
    case KP_STRIDED: {
        const lstmc_rt_strided_params *p = &c->p.strided;
        fprintf(f,
                "static const lstmc_rt_strided_params p = {.rank = %d, .elem_size = %d, "
                ".offset = %lld,\n            .out_dims = ",
                p->rank, p->elem_size, (long long)p->offset);
        cg_c_put_i64s(f, p->out_dims, p->rank);
        fputs(", .in_stride = ", f);
        cg_c_put_i64s(f, p->in_stride, p->rank);
        fputs("};\n", f);
        break;
    }
    case KP_GATHER:
        fprintf(f, "static const lstmc_rt_gather_params p = {.elem_size = %d, .index_dtype = ",
                c->p.gather.elem_size);
        put_enum(f, ENUM_NAME(dtype_names, c->p.gather.index_dtype), c->p.gather.index_dtype);
        fprintf(f,
                ",\n            .outer = %lld, .axis_len = %lld, .inner = %lld, .n_indices = "
                "%lld};\n",
                (long long)c->p.gather.outer, (long long)c->p.gather.axis_len,
                (long long)c->p.gather.inner, (long long)c->p.gather.n_indices);
        break;
    case KP_CONCAT:
        fprintf(f,
                "static const lstmc_rt_concat_params p = {.elem_size = %d, .outer = %lld, "
                ".in_cols = %lld,\n            .out_cols = %lld, .offset = %lld};\n",
                c->p.concat.elem_size, (long long)c->p.concat.outer, (long long)c->p.concat.in_cols,
                (long long)c->p.concat.out_cols, (long long)c->p.concat.offset);
        break;
    case KP_EWISE: { /* issue 20, elt */
        const lstmc_rt_ewise_params *p = &c->p.ewise;
        fputs("static const lstmc_rt_ewise_params p = {.op = ", f);
        put_enum(f, ENUM_NAME(ewop_names, p->op), p->op);
        fputs(", .dtype = ", f);
        put_enum(f, ENUM_NAME(dtype_names, p->dtype), p->dtype);
        fputs(", .b_dtype = ", f);
        put_enum(f, ENUM_NAME(dtype_names, p->b_dtype), p->b_dtype);
        fprintf(f, ", .rank = %d,\n            .alpha = ", p->rank);
        cg_c_put_float(f, p->alpha);
        fputs(", .beta = ", f);
        cg_c_put_float(f, p->beta);
        fputs(",", f);
        fputs("\n            .out_dims = ", f);
        cg_c_put_i64s(f, p->out_dims, p->rank);
        fputs(",\n            .a_stride = ", f);
        cg_c_put_i64s(f, p->a_stride, p->rank);
        fputs(",\n            .b_stride = ", f);
        cg_c_put_i64s(f, p->b_stride, p->rank);
        fputs(",\n            .c_stride = ", f);
        cg_c_put_i64s(f, p->c_stride, p->rank);
        fputs("};\n", f);
        break;
    }
    case KP_RANGE:
        fputs("static const lstmc_rt_range_params p = {.dtype = ", f);
        put_enum(f, ENUM_NAME(dtype_names, c->p.range.dtype), c->p.range.dtype);
        fprintf(f, ", .n = %lld};\n", (long long)c->p.range.n);
        break;
    case KP_CUMSUM:
        fputs("static const lstmc_rt_cumsum_params p = {.dtype = ", f);
        put_enum(f, ENUM_NAME(dtype_names, c->p.cumsum.dtype), c->p.cumsum.dtype);
        fprintf(f,
                ", .exclusive = %d, .reverse = %d,\n            .outer = %lld, .len = %lld, "
                ".inner = %lld};\n",
                c->p.cumsum.exclusive, c->p.cumsum.reverse, (long long)c->p.cumsum.outer,
                (long long)c->p.cumsum.len, (long long)c->p.cumsum.inner);
        break;
    case KP_FILL: { /* the value in its type (the target's bytes are little-endian) */
        const unsigned char *v = c->p.fill.value;
        if (c->p.fill.dtype == IR_DT_I64 && c->p.fill.elem_size == 8) {
            int64_t x;
            memcpy(&x, v, sizeof x);
            fprintf(f, "static const int64_t value[1] = {%lld};\n", (long long)x);
        } else if (c->p.fill.dtype == IR_DT_I32 && c->p.fill.elem_size == 4) {
            int32_t x;
            memcpy(&x, v, sizeof x);
            fprintf(f, "static const int32_t value[1] = {%d};\n", x);
        } else if (c->p.fill.dtype == IR_DT_F32 && c->p.fill.elem_size == 4) {
            float x;
            memcpy(&x, v, sizeof x);
            fputs("static const float value[1] = {", f);
            cg_c_put_float(f, x);
            fputs("};\n", f);
        } else {
            fputs("static const unsigned char value[8] = {", f);
            for (i = 0; i < 8; i++)
                fprintf(f, "%s%u", i ? ", " : "", v[i]);
            fputs("};\n", f);
        }
        break;
    }
    /* issue 20, red */
    case KP_REDUCE: {
        const lstmc_rt_reduce_params *p = &c->p.reduce;
        fputs("static const lstmc_rt_reduce_params p = {.op = ", f);
        put_enum(f, ENUM_NAME(reduce_names, p->op), p->op);
        fputs(", .dtype = ", f);
        put_enum(f, ENUM_NAME(dtype_names, p->dtype), p->dtype);
        fprintf(f, ", .rank = %d,\n            .dims = ", p->rank);
        cg_c_put_i64s(f, p->dims, p->rank);
        fputs(", .reduce = {", f);
        for (i = 0; i < p->rank; i++)
            fprintf(f, "%s%d", i ? ", " : "", p->reduce[i]);
        fputs("}};\n", f);
        break;
    }
    case KP_LAYERNORM:
    case KP_LAYERNORM_STATS:
        fprintf(f,
                "static const lstmc_rt_layernorm_params p = {.outer = %lld, .n = %lld, "
                ".epsilon = ",
                (long long)c->p.layernorm.outer, (long long)c->p.layernorm.n);
        cg_c_put_float(f, c->p.layernorm.epsilon);
        fprintf(f, ",\n            .scale_stride = %d, .bias_stride = %d};\n",
                c->p.layernorm.scale_stride, c->p.layernorm.bias_stride);
        break;
    case KP_INSTANCENORM: /* issue 20, ops */
        put_channel_norm(f, "instancenorm", c->p.instancenorm.outer, c->p.instancenorm.channels,
                         c->p.instancenorm.inner, c->p.instancenorm.epsilon);
        break;
    case KP_PAD: {
        const lstmc_rt_pad_params *p = &c->p.pad;
        fputs("static const lstmc_rt_pad_params p = {.mode = ", f);
        put_enum(f, ENUM_NAME(pad_names, p->mode), p->mode);
        fprintf(f, ", .rank = %d, .elem_size = %d,\n            .in_dims = ", p->rank,
                p->elem_size);
        cg_c_put_i64s(f, p->in_dims, p->rank);
        fputs(", .begin = ", f);
        cg_c_put_i64s(f, p->begin, p->rank);
        fputs(", .end = ", f);
        cg_c_put_i64s(f, p->end, p->rank);
        fputs(",\n            .value = {", f);
        for (i = 0; i < 8; i++)
            fprintf(f, "%s%u", i ? ", " : "", p->value[i]);
        fputs("}};\n", f);
        break;
    }
    case KP_TOPK:
        fputs("static const lstmc_rt_topk_params p = {.dtype = ", f);
        put_enum(f, ENUM_NAME(dtype_names, c->p.topk.dtype), c->p.topk.dtype);
        fprintf(f,
                ", .largest = %d, .sorted = %d,\n            .outer = %lld, .axis_len = %lld, "
                ".inner = %lld, .k = %lld};\n",
                c->p.topk.largest, c->p.topk.sorted, (long long)c->p.topk.outer,
                (long long)c->p.topk.axis_len, (long long)c->p.topk.inner, (long long)c->p.topk.k);
        break;
    case KP_SCATTER_ELEMENTS: {
        const lstmc_rt_scatter_params *p = &c->p.scatter;
        fputs("static const lstmc_rt_scatter_params p = {.dtype = ", f);
        put_enum(f, ENUM_NAME(dtype_names, p->dtype), p->dtype);
        fputs(", .index_dtype = ", f);
        put_enum(f, ENUM_NAME(dtype_names, p->index_dtype), p->index_dtype);
        fputs(", .reduction = ", f);
        put_enum(f, ENUM_NAME(scatter_names, p->reduction), p->reduction);
        fprintf(f, ",\n            .rank = %d, .axis = %d, .data_dims = ", p->rank, p->axis);
        cg_c_put_i64s(f, p->data_dims, p->rank);
        fputs(", .idx_dims = ", f);
        cg_c_put_i64s(f, p->idx_dims, p->rank);
        fputs("};\n", f);
        break;
    }
    /* issue 20, conv */
    case KP_CONV:
    case KP_CONV_TRANSPOSE: {
        const lstmc_rt_conv_params *p = &c->p.conv;
        fprintf(
            f,
            "static const lstmc_rt_conv_params p = {.n = %lld, .c_in = %lld, .c_out = %lld, "
            ".group = %lld,\n            .in_h = %lld, .in_w = %lld, .out_h = %lld, "
            ".out_w = %lld, .k_h = %lld, .k_w = %lld,\n            .stride_h = %lld, "
            ".stride_w = %lld, .dil_h = %lld, .dil_w = %lld, .pad_h = %lld, .pad_w = %lld%s};\n",
            (long long)p->n, (long long)p->c_in, (long long)p->c_out, (long long)p->group,
            (long long)p->in_h, (long long)p->in_w, (long long)p->out_h, (long long)p->out_w,
            (long long)p->k_h, (long long)p->k_w, (long long)p->stride_h, (long long)p->stride_w,
            (long long)p->dil_h, (long long)p->dil_w, (long long)p->pad_h, (long long)p->pad_w,
            p->act == LSTMC_RT_CONV_ACT_RELU         ? ", .act = LSTMC_RT_CONV_ACT_RELU"
            : p->act == LSTMC_RT_CONV_ACT_HARD_SWISH ? ", .act = LSTMC_RT_CONV_ACT_HARD_SWISH"
                                                     : "");
        break;
    }
    case KP_POOL: {
        const lstmc_rt_pool_params *p = &c->p.pool;
        fprintf(f,
                "static const lstmc_rt_pool_params p = {.kind = %s, .count_include_pad = %d,\n"
                "            .nc = %lld, .in_h = %lld, .in_w = %lld, .out_h = %lld, .out_w = %lld,"
                "\n            .k_h = %lld, .k_w = %lld, .stride_h = %lld, .stride_w = %lld, "
                ".dil_h = %lld, .dil_w = %lld,\n            .pad_h = %lld, .pad_w = %lld};\n",
                p->kind == LSTMC_RT_POOL_MAX ? "LSTMC_RT_POOL_MAX" : "LSTMC_RT_POOL_AVG",
                p->count_include_pad, (long long)p->nc, (long long)p->in_h, (long long)p->in_w,
                (long long)p->out_h, (long long)p->out_w, (long long)p->k_h, (long long)p->k_w,
                (long long)p->stride_h, (long long)p->stride_w, (long long)p->dil_h,
                (long long)p->dil_w, (long long)p->pad_h, (long long)p->pad_w);
        break;
    }
    case KP_BATCHNORM:
        put_channel_norm(f, "batchnorm", c->p.batchnorm.outer, c->p.batchnorm.channels,
                         c->p.batchnorm.inner, c->p.batchnorm.epsilon);
        break;
    default:
        break;
    }
}
