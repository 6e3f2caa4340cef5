/*
 * stream.c — streaming (issue 9): <name>_state, _reset, _set_state, _init_stream and _step,
 * which run the one-step program (T = 1) of compiler/stream/stream.h once per time step of
 * the caller's chunk; the arena and state sizes they need.
 */
#include "stream.h"

#include "c_impl.h"
#include "cg_ident.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * <name>_step runs the one-step program (compiler/stream/stream.h) once per time step of the
 * caller's chunk. Bytes of the arena past the step program's own: the next state of every
 * state slot, then a staging buffer for every per-step input or output whose step slices
 * are not contiguous in the chunk (dims before the time axis bigger than 1).
 */
typedef struct stream_geo {
    int n_slots;
    int64_t slot_floats[2 * STREAM_MAX_LAYERS + STREAM_MAX_HISTS];
    int64_t next_off[2 * STREAM_MAX_LAYERS + STREAM_MAX_HISTS]; /* h, c per layer, then the
                                                                   convolution histories */
    int64_t in_outer[64], in_inner[64], in_off[64];             /* per graph input (bytes) */
    int64_t out_outer[64], out_inner[64], out_off[64];          /* per graph output (bytes) */
    int64_t arena;                                              /* bytes the step needs */
} stream_geo;

int64_t
cg_c_align_up(int64_t v)
{
    return (v + LSTMC_RT_ALIGN - 1) / LSTMC_RT_ALIGN * LSTMC_RT_ALIGN;
}

/* outer = product of the dims before the time axis, inner = bytes of one step's slice. */
void
cg_c_time_slice(const ir_tensor *t, int axis, int64_t *outer, int64_t *inner)
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
int
cg_c_stream_on(const cg_options *o)
{
    const stream_info *si = o->stream;
    return si && si->ok && si->g && si->n_inputs <= 64 && si->n_outputs <= 64;
}

/* The step program's input holding state slot s (h, c of every layer, then the histories,
 * after the graph's own inputs; compiler/stream/step.c), and its element size: float, or the
 * integers of --activations (issue 22, passes/qact.c). */
static const ir_tensor *
slot_tensor(const stream_info *si, int s)
{
    return si->g && si->n_inputs + s < si->g->n_inputs ? si->g->inputs[si->n_inputs + s] : NULL;
}

static int64_t
slot_esize(const stream_info *si, int s)
{
    const ir_tensor *t = slot_tensor(si, s);
    return t ? (int64_t)ir_dtype_size(t->dtype) : 4;
}

static const char *
slot_ctype(const stream_info *si, int s)
{
    const ir_tensor *t = slot_tensor(si, s);
    return t ? cg_c_ctype(t->dtype) : "float";
}

/* The state slot of layer k's h (j = 0) or c (j = 1). */
static int
layer_slot(const stream_info *si, int k, int j)
{
    int s = 0, m;
    for (m = 0; m < k; m++)
        s += si->layers[m].cell == LSTMC_RT_CELL_LSTM ? 2 : 1;
    return s + j;
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
            off = cg_c_align_up(off + slot_esize(si, sg->n_slots) * sg->slot_floats[sg->n_slots]);
            sg->n_slots++;
        }
    }
    for (k = 0; k < si->n_hists; k++) {
        sg->slot_floats[sg->n_slots] = si->hists[k].floats;
        sg->next_off[sg->n_slots] = off;
        off = cg_c_align_up(off + slot_esize(si, sg->n_slots) * sg->slot_floats[sg->n_slots]);
        sg->n_slots++;
    }
    for (i = 0; i < si->n_inputs; i++) {
        sg->in_off[i] = -1;
        if (si->in_axis[i] < 0)
            continue;
        cg_c_time_slice(si->g->inputs[i], si->in_axis[i], &sg->in_outer[i], &sg->in_inner[i]);
        if (sg->in_outer[i] > 1) {
            sg->in_off[i] = off;
            off = cg_c_align_up(off + sg->in_outer[i] * sg->in_inner[i]);
        }
    }
    for (i = 0; i < si->n_outputs; i++) {
        sg->out_off[i] = -1;
        if (si->out_kind[i] != STREAM_TIME)
            continue;
        cg_c_time_slice(si->g->outputs[i], si->out_axis[i], &sg->out_outer[i], &sg->out_inner[i]);
        sg->out_outer[i] *= si->out_om[i]; /* the entries merged with the steps */
        sg->out_inner[i] *= si->out_im[i];
        if (sg->out_outer[i] > 1) {
            sg->out_off[i] = off;
            off = cg_c_align_up(off + sg->out_outer[i] * sg->out_inner[i]);
        }
    }
    sg->arena = off;
}

/* The arena <name>_init asks for: enough for _run and for _step. */
int64_t
cg_c_total_arena(const memplan *mp, const cg_options *o)
{
    stream_geo sg;
    if (!cg_c_stream_on(o))
        return mp->arena_size;
    stream_geometry(o->stream, &sg);
    return sg.arena > mp->arena_size ? sg.arena : mp->arena_size;
}

/* The arena <name>_step alone needs (0: the model does not stream). */
int64_t
cg_c_stream_arena(const cg_options *o)
{
    stream_geo sg;
    if (!cg_c_stream_on(o))
        return 0;
    stream_geometry(o->stream, &sg);
    return sg.arena;
}

/* "[1, 6, 2]" (a static buffer: one call per statement). */
static const char *
shape_str_of(const ir_shape *sh)
{
    static char buf[160];
    size_t k = 0;
    int i;
    buf[k++] = '[';
    for (i = 0; i < sh->rank && k < sizeof buf - 24; i++)
        k +=
            (size_t)snprintf(buf + k, sizeof buf - k, "%s%lld", i ? ", " : "", (long long)sh->d[i]);
    snprintf(buf + k, sizeof buf - k, "]");
    return buf;
}

static const char *
stream_kind_name(int k)
{
    switch (k) {
    case STREAM_TIME:
        return "per step";
    case STREAM_LAST:
        return "last step";
    case STREAM_STATIC:
        return "static";
    case STREAM_CONST:
        return "constant";
    default:
        return "?";
    }
}

/* The streaming part of <name>.h. */
void
cg_c_put_stream_header(FILE *f, const ir_graph *g, const char *NAME, const cg_options *o)
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
            " * compiled sequence length (an axis a reshape(-1, H) merged with the batch: N x n\n"
            " * entries, see its _TIME_AXIS comment). An output without a time axis (a\n"
            " * last-step classifier, Y_h) is written for the state after the last step fed.\n"
            " * After a reset, feeding\n"
            " * the sequence in chunks of any sizes gives bit-identical outputs to _run on the\n"
            " * whole sequence: the same kernels in the same order, one time step at a time.\n"
            " * Models that need the whole sequence (reverse or bidirectional layers,\n"
            " * sequence_lens, a Softmax/ArgMax/Concat over time, a convolution that looks\n"
            " * ahead or strides over time, a step other than the last,\n"
            " * time read backwards)\n"
            " * have %s_STREAMABLE 0; their _step, _reset, _set_state and _init_stream return\n"
            " * LSTMC_RT_ERR_UNSUPPORTED. */\n",
            o->name, o->name, o->name, NAME, NAME);
    if (!cg_c_stream_on(o)) {
        fprintf(f, "#define %s_STREAMABLE 0\n#define %s_STREAM_WHY \"", NAME, NAME);
        for (i = 0; si && si->why[i]; i++)
            fputc(si->why[i] == '"' || si->why[i] == '\\' ? '\'' : si->why[i], f);
        if (!si)
            fputs("not analysed", f);
        fprintf(f,
                "\"\n\ntypedef struct %s_state {\n    int64_t steps; /* unused */\n} "
                "%s_state;\n\n",
                o->name, o->name);
    } else {
        fprintf(f, "#define %s_STREAMABLE 1\n#define %s_STREAM_WHY \"\"\n", NAME, NAME);
        fprintf(f, "#define %s_STREAM_SEQ_LEN %lld /* the compiled T: _run's sequence */\n", NAME,
                (long long)si->seq_len);
        fprintf(f, "#define %s_STREAM_LAYERS %d\n", NAME, si->n_layers);
        fprintf(f,
                "#define %s_STREAM_HISTORIES %d /* causal convolutions over time: their "
                "last steps are state */\n",
                NAME, si->n_hists);
        for (i = 0; i < si->n_inputs; i++)
            fprintf(f, "#define %s_INPUT_%d_TIME_AXIS %d\n", NAME, i, si->in_axis[i]);
        for (i = 0; i < si->n_outputs; i++) {
            fprintf(f, "#define %s_OUTPUT_%d_TIME_AXIS %d /* %s", NAME, i, si->out_axis[i],
                    stream_kind_name(si->out_kind[i]));
            if (si->out_om[i] > 1 || si->out_im[i] > 1) /* a reshape(-1, H) merged it */
                fprintf(f, "; the axis holds %lld x n x %lld entries, step t those [o, t, i]",
                        (long long)si->out_om[i], (long long)si->out_im[i]);
            fputs(" */\n", f);
        }
        fprintf(f,
                "\n/* The recurrent state between calls of %s_step: h (and c for LSTM) of "
                "every\n * layer, [N, H] each: floats, or with --activations the layer's "
                "integers\n * (%s_STATE_<k>_H_SCALE, _C_SCALE: real = value * scale). */\n"
                "typedef struct %s_state {\n",
                o->name, NAME, o->name);
        for (k = 0; k < si->n_layers; k++) {
            const stream_layer *l = &si->layers[k];
            fprintf(f, "    %s h%d[%lld]; /* layer %d, node '%s' (%s): h [N=%lld, H=%lld] */\n",
                    slot_ctype(si, layer_slot(si, k, 0)), k, (long long)(l->batch * l->hidden), k,
                    l->node, l->op, (long long)l->batch, (long long)l->hidden);
            if (l->init_h_input >= 0)
                fprintf(f,
                        "    /* its initial h is graph input %d (from float %lld): _reset "
                        "zeroes it, pass it to %s_set_state */\n",
                        l->init_h_input, (long long)l->init_h_off, o->name);
            if (l->init_c_input >= 0)
                fprintf(f,
                        "    /* its initial c is graph input %d (from float %lld): _reset "
                        "zeroes it, pass it to %s_set_state */\n",
                        l->init_c_input, (long long)l->init_c_off, o->name);
            if (l->cell == LSTMC_RT_CELL_LSTM)
                fprintf(f, "    %s c%d[%lld]; /* layer %d: c [N=%lld, H=%lld] */\n",
                        slot_ctype(si, layer_slot(si, k, 1)), k, (long long)(l->batch * l->hidden),
                        k, (long long)l->batch, (long long)l->hidden);
        }
        for (k = 0; k < si->n_hists; k++) {
            const stream_hist *h = &si->hists[k];
            fprintf(f,
                    "    float x%d[%lld]; /* convolution '%s'%s%s%s: the last %lld step(s) of "
                    "its input,\n                          %s, time on axis %d (_reset: %g) */\n",
                    k, (long long)h->floats, h->conv, h->pad ? " (padded by '" : "",
                    h->pad ? h->pad : "", h->pad ? "')" : "", (long long)h->frames,
                    shape_str_of(&h->shape), h->axis, (double)h->init);
        }
        fputs("    int64_t steps; /* time steps fed since the last reset */\n", f);
        fprintf(f, "} %s_state;\n\n", o->name);
        for (k = 0; k < si->n_layers; k++) {
            const ir_tensor *th = slot_tensor(si, layer_slot(si, k, 0));
            const ir_tensor *tc = si->layers[k].cell == LSTMC_RT_CELL_LSTM
                                      ? slot_tensor(si, layer_slot(si, k, 1))
                                      : NULL;
            fprintf(f, "#define %s_STATE_%d_FLOATS %lld /* N*H of layer %d */\n", NAME, k,
                    (long long)(si->layers[k].batch * si->layers[k].hidden), k);
            if (th && th->io_scale > 0.0f) { /* issue 22: an integer state */
                fprintf(f, "#define %s_STATE_%d_H_SCALE ", NAME, k);
                cg_c_put_float(f, th->io_scale);
                fputc('\n', f);
            }
            if (tc && tc->io_scale > 0.0f) {
                fprintf(f, "#define %s_STATE_%d_C_SCALE ", NAME, k);
                cg_c_put_float(f, tc->io_scale);
                fputc('\n', f);
            }
        }
        fputc('\n', f);
    }
    fprintf(f,
            "/* Set state to the model's initial state (its initial_h/initial_c constants, "
            "else\n * zero; each causal convolution's history to its padding value) and steps to "
            "0. */\n"
            "lstmc_rt_status %s_reset(%s_state *state);\n\n"
            "/* Like _init, for a ctx that only streams: size >= *_STREAM_ARENA_SIZE;\n"
            " * _run on it returns LSTMC_RT_ERR_ARENA_TOO_SMALL if that is below its own. */\n"
            "lstmc_rt_status %s_init_stream(%s_ctx *ctx, void *arena, size_t size);\n\n"
            "/* Set layer's state: h and c are [N*H] elements of the state's types, NULL means\n"
            " * zero; c is an LSTM's\n"
            " * only. LSTMC_RT_ERR_BAD_PARAMS for a layer out of range or a c given to a GRU\n"
            " * or RNN layer. */\n"
            "lstmc_rt_status %s_set_state(%s_state *state, int layer, const void *h, const "
            "void *c);\n\n"
            "/* Feed n >= 1 time steps (see above); state is read and advanced by n steps.\n"
            " * Uses ctx's arena (the same as _run: one ctx cannot run both at once). Returns\n"
            " * LSTMC_RT_ERR_BAD_PARAMS for n < 1, or the failing kernel's status, with\n"
            " * state unchanged for the steps not done. */\n"
            "lstmc_rt_status %s_step(%s_ctx *ctx, %s_state *state, int64_t n,\n"
            "                        const void *const *inputs, void *const *outputs);\n\n",
            o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name);
    (void)g;
}

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

/* The parameters of <name>_stream_once (decl: with their types) or the arguments _step
 * passes: only what its calls read, so nothing is declared unused. */
static void
put_once_args(FILE *f, const char *name, unsigned uses, int last, int decl)
{
    static const struct {
        unsigned use;
        const char *decl, *arg; /* the parameter, and what _step passes for it */
    } p[] = {{CG_C_USES_CTX, "%s_ctx *ctx", "ctx"},
             {CG_C_USES_ARENA, "unsigned char *arena", "arena"},
             {CG_C_USES_INPUTS, "const void *const *inputs", "in"},
             {CG_C_USES_OUTPUTS, "void *const *outputs", "out"},
             {0, "int last", "t == n - 1"}}; /* use 0: when last */
    const char *sep = "";
    size_t k;
    for (k = 0; k < sizeof p / sizeof p[0]; k++) {
        if (p[k].use ? !(uses & p[k].use) : !last)
            continue;
        fputs(sep, f);
        fprintf(f, decl ? p[k].decl : p[k].arg, name);
        sep = ", ";
    }
    if (!*sep && decl)
        fputs("void", f);
}

/* NAME_STREAM_IN<i>, _OUT<i>, _NEXT_H<k>, _NEXT_C<k>: where _step stages one step of a
 * strided input or output and each layer's next state, in the arena after the step
 * program's own buffers (stream_geometry). */
static void
put_staging_names(FILE *f, const stream_info *si, const stream_geo *sg, const char *SNAME)
{
    int i, k, slot;
    fputs("/* where _step stages a step and the next state (bytes from the arena's start) */\n", f);
    for (i = 0; i < si->n_inputs; i++)
        if (si->in_axis[i] >= 0 && sg->in_off[i] >= 0)
            fprintf(f, "#define %s_IN%d %lld /* step t of input %d ('%s'), %lld rows */\n", SNAME,
                    i, (long long)sg->in_off[i], i, si->g->inputs[i]->name,
                    (long long)sg->in_outer[i]);
    for (i = 0; i < si->n_outputs; i++)
        if (si->out_kind[i] == STREAM_TIME && sg->out_off[i] >= 0)
            fprintf(f, "#define %s_OUT%d %lld /* step t of output %d, %lld rows */\n", SNAME, i,
                    (long long)sg->out_off[i], i, (long long)sg->out_outer[i]);
    for (k = 0, slot = 0; k < si->n_layers; k++) {
        fprintf(f, "#define %s_NEXT_H%d %lld /* layer %d's next h */\n", SNAME, k,
                (long long)sg->next_off[slot++], k);
        if (si->layers[k].cell == LSTMC_RT_CELL_LSTM)
            fprintf(f, "#define %s_NEXT_C%d %lld /* layer %d's next c */\n", SNAME, k,
                    (long long)sg->next_off[slot++], k);
    }
    for (k = 0; k < si->n_hists; k++)
        fprintf(f, "#define %s_NEXT_X%d %lld /* convolution '%s': its next history */\n", SNAME, k,
                (long long)sg->next_off[slot++], si->hists[k].conv);
    fputc('\n', f);
}

/* The streaming functions of <name>.c. */
void
cg_c_put_stream_host(FILE *f, const ir_graph *g, const memplan *mp, const cg_options *o,
                     const unsigned char *handled_s)
{
    const stream_info *si = o->stream;
    char sname[160], NAME[128], SNAME[168];
    stream_geo sg;
    unsigned char *every;
    unsigned uses;
    int i, k, slot, last = 0, gather = 0;

    cg_c_upper(o->name, NAME, sizeof NAME);
    fprintf(f,
            "\nlstmc_rt_status\n%s_init_stream(%s_ctx *ctx, void *arena, size_t size)\n{\n"
            "    lstmc_rt_status st;\n    if (!ctx)\n        return LSTMC_RT_ERR_NULL;\n",
            o->name, o->name);
    if (!cg_c_stream_on(o)) /* the arguments checked as the real one does, then refused */
        fputs("    st = lstmc_rt_arena_check(arena, size, 0);\n"
              "    return st != LSTMC_RT_OK ? st : LSTMC_RT_ERR_UNSUPPORTED;\n}\n",
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
                (long long)cg_c_stream_arena(o), NAME, NAME);
    if (!cg_c_stream_on(o)) {
        fprintf(
            f,
            "\n/* --- streaming: not available (%s_STREAM_WHY) --- */\n\n"
            "lstmc_rt_status\n%s_reset(%s_state *state)\n{\n"
            "    return state ? LSTMC_RT_ERR_UNSUPPORTED : LSTMC_RT_ERR_NULL;\n}\n\n"
            "/* No layer has a state, so h and c are never read. */\n"
            "lstmc_rt_status\n%s_set_state(%s_state *state, int layer, const void *h, "
            "const void *c)\n{\n"
            "    (void)h;\n    (void)c;\n"
            "    if (!state)\n        return LSTMC_RT_ERR_NULL;\n"
            "    return layer < 0 ? LSTMC_RT_ERR_BAD_PARAMS : LSTMC_RT_ERR_UNSUPPORTED;\n}\n\n"
            "lstmc_rt_status\n%s_step(%s_ctx *ctx, %s_state *state, int64_t n, const void "
            "*const *inputs,\n          void *const *outputs)\n{\n"
            "    if (!ctx || !state || !inputs || !outputs)\n        return LSTMC_RT_ERR_NULL;\n"
            "    return n < 1 ? LSTMC_RT_ERR_BAD_PARAMS : LSTMC_RT_ERR_UNSUPPORTED;\n}\n",
            o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name);
        return;
    }
    snprintf(sname, sizeof sname, "%s_stream", o->name);
    snprintf(SNAME, sizeof SNAME, "%s_STREAM", NAME);
    stream_geometry(si, &sg);
    fprintf(f, "\n/* --- streaming: the one-step program (T = 1), run once per time step ---- "
               "*/\n\n");
    /* its constants: the whole-sequence program's where the bytes are the same */
    for (i = 0; i < si->g->n_tensors; i++) {
        int same;
        if (si->mp.tensor[i].kind != MEMPLAN_CONST)
            continue;
        same = cg_stream_same(o, g, mp, si->g->tensors[i]);
        if (same >= 0) {
            fputs("#define ", f);
            cg_c_put_const(f, sname, si->g, i);
            fputc(' ', f);
            cg_c_put_const(f, o->name, g, same);
            fputc('\n', f);
        } else if (o->placement != CG_WEIGHTS_CONST) {
            cg_c_put_const_array(f, "static const", sname, si->g, i);
        } /* else in <name>_weights (cg_c_write_weights, cg_backend.weights) */
    }
    for (k = 0; k < si->n_layers; k++) {
        const stream_layer *l = &si->layers[k];
        int j;
        for (j = 0; j < 2; j++) {
            const float *v = j ? l->init_c : l->init_h;
            const ir_tensor *st = slot_tensor(si, layer_slot(si, k, j));
            const int is_int = st && st->dtype != IR_DT_F32 && st->io_scale > 0.0f;
            int64_t m, n = l->batch * l->hidden;
            if (!v)
                continue;
            fprintf(f, "static const %s %s_init_%s%d[%lld] = {",
                    is_int ? cg_c_ctype(st->dtype) : "float", sname, j ? "c" : "h", k,
                    (long long)n);
            for (m = 0; m < n; m++) {
                fputs(m % 8 == 0 ? "\n    " : " ", f);
                if (is_int) { /* issue 22: the learnt initial state on the state's grid */
                    const double hi = st->dtype == IR_DT_I8 ? 127.0 : 32767.0;
                    fprintf(f, "%d",
                            (int)fmax(-hi - 1.0, fmin(hi, nearbyint((double)v[m] / st->io_scale))));
                } else {
                    cg_c_put_float(f, v[m]);
                }
                fputc(',', f);
            }
            fputs("\n};\n", f);
        }
    }
    cg_c_put_llvm_protos(f, sname, &si->kp, handled_s);
    every = calloc((size_t)si->kp.n_calls + 1, 1);
    if (every)
        stream_every_step(si, every);
    fputc('\n', f);
    cg_c_put_arena_names(f, sname, si->g, &si->mp, &si->kp);
    put_staging_names(f, si, &sg, SNAME);
    for (i = 0; i < si->n_inputs; i++)
        gather |= si->in_axis[i] >= 0 && sg.in_off[i] >= 0;
    for (i = 0; i < si->n_outputs; i++)
        gather |= si->out_kind[i] == STREAM_TIME && sg.out_off[i] >= 0;
    uses = cg_c_calls_use(&si->kp, &si->mp);
    if ((uses & CG_C_USES_WEIGHTS) && o->placement != CG_WEIGHTS_CONST)
        uses |= CG_C_USES_CTX; /* the weights the caller bound (cg_c_put_const) */
    for (i = 0; every && i < si->kp.n_calls; i++)
        last |= !every[i];
    /* its parameters: what its calls read (cg_c_calls_use), in this order */
    fprintf(f,
            "/* One time step: inputs are the graph's (one step each), then h, c of every "
            "layer;\n * outputs the graph's, then the next h, c.%s */\nstatic lstmc_rt_status\n"
            "%s_once(",
            last ? " last = 0 skips the calls only\n * last-step outputs need." : "", sname);
    put_once_args(f, o->name, uses, last, 1);
    fputs(")\n{\n    lstmc_rt_status st = LSTMC_RT_OK;\n", f);
    for (i = 0; i < si->kp.n_calls; i++) {
        if (every && !every[i])
            fputs("    if (last)\n", f);
        cg_c_put_call(f, sname, si->g, &si->mp, &si->kp.calls[i], i, handled_s && handled_s[i],
                      NULL);
    }
    fputs("    return st;\n}\n\n", f);
    free(every);

    fprintf(f, "lstmc_rt_status\n%s_reset(%s_state *state)\n{\n", o->name, o->name);
    for (k = 0; k < si->n_hists; k++)
        if (si->hists[k].init != 0.0f || signbit(si->hists[k].init)) {
            fputs("    int64_t i;\n", f);
            break;
        }
    fputs("    if (!state)\n        return LSTMC_RT_ERR_NULL;\n", f);
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
    for (k = 0; k < si->n_hists; k++) {
        if (si->hists[k].init == 0.0f && !signbit(si->hists[k].init)) {
            fprintf(f, "    memset(state->x%d, 0, sizeof state->x%d);\n", k, k);
            continue;
        }
        fprintf(f,
                "    for (i = 0; i < %lld; i++) /* the padding value */\n"
                "        state->x%d[i] = ",
                (long long)si->hists[k].floats, k);
        cg_c_put_float(f, si->hists[k].init);
        fputs(";\n", f);
    }
    fputs("    state->steps = 0;\n    return LSTMC_RT_OK;\n}\n\n", f);

    fprintf(f,
            "lstmc_rt_status\n%s_set_state(%s_state *state, int layer, const void *h, "
            "const void *c)\n{\n"
            "    if (!state)\n        return LSTMC_RT_ERR_NULL;\n    switch (layer) {\n",
            o->name, o->name);
    for (k = 0; k < si->n_layers; k++) {
        const stream_layer *l = &si->layers[k];
        fprintf(f, "    case %d:\n", k);
        if (l->cell != LSTMC_RT_CELL_LSTM) /* a GRU or RNN layer has no c */
            fputs("        if (c)\n            return LSTMC_RT_ERR_BAD_PARAMS;\n", f);
        fprintf(f,
                "        if (h)\n            memcpy(state->h%d, h, sizeof state->h%d);\n"
                "        else\n            memset(state->h%d, 0, sizeof state->h%d);\n",
                k, k, k, k);
        if (l->cell == LSTMC_RT_CELL_LSTM)
            fprintf(f,
                    "        if (c)\n            memcpy(state->c%d, c, sizeof state->c%d);\n"
                    "        else\n            memset(state->c%d, 0, sizeof state->c%d);\n",
                    k, k, k, k);
        fputs("        break;\n", f);
    }
    fputs("    default:\n        return LSTMC_RT_ERR_BAD_PARAMS;\n    }\n"
          "    return LSTMC_RT_OK;\n}\n\n",
          f);

    fprintf(f,
            "lstmc_rt_status\n%s_step(%s_ctx *ctx, %s_state *state, int64_t n, const void "
            "*const *inputs,\n          void *const *outputs)\n{\n"
            "    const void *in[%d];\n    void *out[%d];\n    unsigned char *arena;\n"
            "    lstmc_rt_status st;\n    int64_t t%s;\n"
            "    if (!ctx || !state || !inputs || !outputs)\n        return LSTMC_RT_ERR_NULL;\n"
            "    if (n < 1)\n        return LSTMC_RT_ERR_BAD_PARAMS;\n",
            o->name, o->name, o->name, si->g->n_inputs, si->kp.n_outputs, gather ? ", o" : "");
    for (i = 0; i < si->n_inputs; i++)
        fprintf(f, "    if (!inputs[%d])\n        return LSTMC_RT_ERR_NULL;\n", i);
    for (i = 0; i < si->n_outputs; i++)
        fprintf(f, "    if (!outputs[%d])\n        return LSTMC_RT_ERR_NULL;\n", i);
    fprintf(f, "    if (ctx->arena_size < %lldu)\n        return LSTMC_RT_ERR_ARENA_TOO_SMALL;\n",
            (long long)sg.arena);
    if (o->placement != CG_WEIGHTS_CONST)
        fputs("    if (!ctx->weights)\n        return LSTMC_RT_ERR_NO_WEIGHTS;\n", f);
    fputs("    arena = ctx->arena;\n    for (t = 0; t < n; t++) {\n", f);
    for (i = 0; i < si->n_inputs; i++) {
        if (si->in_axis[i] < 0)
            fprintf(f, "        in[%d] = inputs[%d];\n", i, i);
        else if (sg.in_off[i] < 0)
            fprintf(f, "        in[%d] = (const unsigned char *)inputs[%d] + (size_t)t * %lldu;\n",
                    i, i, (long long)sg.in_inner[i]);
        else
            fprintf(f,
                    "        for (o = 0; o < %lld; o++) /* gather step t of every outer row */\n"
                    "            memcpy(arena + %s_IN%d + (size_t)o * %lldu,\n"
                    "                   (const unsigned char *)inputs[%d] + (size_t)(o * n + t) * "
                    "%lldu, %lldu);\n        in[%d] = arena + %s_IN%d;\n",
                    (long long)sg.in_outer[i], SNAME, i, (long long)sg.in_inner[i], i,
                    (long long)sg.in_inner[i], (long long)sg.in_inner[i], i, SNAME, i);
    }
    for (k = 0, slot = 0; k < si->n_layers; k++) {
        fprintf(f, "        in[%d] = state->h%d;\n", si->n_inputs + slot++, k);
        if (si->layers[k].cell == LSTMC_RT_CELL_LSTM)
            fprintf(f, "        in[%d] = state->c%d;\n", si->n_inputs + slot++, k);
    }
    for (k = 0; k < si->n_hists; k++)
        fprintf(f, "        in[%d] = state->x%d;\n", si->n_inputs + slot++, k);
    for (i = 0; i < si->n_outputs; i++) {
        if (si->out_kind[i] != STREAM_TIME)
            fprintf(f, "        out[%d] = outputs[%d];\n", i, i);
        else if (sg.out_off[i] < 0)
            fprintf(f, "        out[%d] = (unsigned char *)outputs[%d] + (size_t)t * %lldu;\n", i,
                    i, (long long)sg.out_inner[i]);
        else
            fprintf(f, "        out[%d] = arena + %s_OUT%d;\n", i, SNAME, i);
    }
    for (k = 0, slot = 0; k < si->n_layers; k++) {
        fprintf(f, "        out[%d] = arena + %s_NEXT_H%d;\n", si->n_outputs + slot++, SNAME, k);
        if (si->layers[k].cell == LSTMC_RT_CELL_LSTM)
            fprintf(f, "        out[%d] = arena + %s_NEXT_C%d;\n", si->n_outputs + slot++, SNAME,
                    k);
    }
    for (k = 0; k < si->n_hists; k++)
        fprintf(f, "        out[%d] = arena + %s_NEXT_X%d;\n", si->n_outputs + slot++, SNAME, k);
    fprintf(f, "        st = %s_once(", sname);
    put_once_args(f, o->name, uses, last, 0);
    fputs(");\n        if (st != LSTMC_RT_OK)\n            return st;\n", f);
    for (i = 0; i < si->n_outputs; i++)
        if (si->out_kind[i] == STREAM_TIME && sg.out_off[i] >= 0)
            fprintf(f,
                    "        for (o = 0; o < %lld; o++) /* scatter step t to every outer row */\n"
                    "            memcpy((unsigned char *)outputs[%d] + (size_t)(o * n + t) * "
                    "%lldu,\n                   arena + %s_OUT%d + (size_t)o * %lldu, %lldu);\n",
                    (long long)sg.out_outer[i], i, (long long)sg.out_inner[i], SNAME, i,
                    (long long)sg.out_inner[i], (long long)sg.out_inner[i]);
    for (k = 0; k < si->n_layers; k++) {
        fprintf(f, "        memcpy(state->h%d, arena + %s_NEXT_H%d, sizeof state->h%d);\n", k,
                SNAME, k, k);
        if (si->layers[k].cell == LSTMC_RT_CELL_LSTM)
            fprintf(f, "        memcpy(state->c%d, arena + %s_NEXT_C%d, sizeof state->c%d);\n", k,
                    SNAME, k, k);
    }
    for (k = 0; k < si->n_hists; k++)
        fprintf(f, "        memcpy(state->x%d, arena + %s_NEXT_X%d, sizeof state->x%d);\n", k,
                SNAME, k, k);
    fputs("        state->steps++;\n    }\n    return LSTMC_RT_OK;\n}\n", f);
}

/* sizeof(<name>_state) on a target with 4-byte floats and 8-byte int64 (each slot in its
 * type: float, or the integers of --activations). */
int64_t
cg_c_state_bytes(const cg_options *o)
{
    int64_t bytes = 0;
    int k, s = 0, j;
    if (!cg_c_stream_on(o))
        return 8;
    for (k = 0; k < o->stream->n_layers; k++)
        for (j = 0; j < (o->stream->layers[k].cell == LSTMC_RT_CELL_LSTM ? 2 : 1); j++, s++) {
            int64_t e = slot_esize(o->stream, s);
            bytes = (bytes + e - 1) / e * e; /* the member's alignment */
            bytes += e * o->stream->layers[k].batch * o->stream->layers[k].hidden;
        }
    for (k = 0; k < o->stream->n_hists; k++)
        bytes = (bytes + 3) / 4 * 4 + 4 * o->stream->hists[k].floats;
    return (bytes + 7) / 8 * 8 + 8;
}

/* Bytes of the constants only the streaming step program has (not shared with _run). */
int64_t
cg_c_stream_weights(const ir_graph *g, const memplan *mp, const cg_options *o)
{
    const stream_info *si = o->stream;
    int64_t total = 0;
    int i;
    if (!cg_c_stream_on(o))
        return 0;
    for (i = 0; i < si->g->n_tensors; i++) {
        const ir_tensor *t = si->g->tensors[i];
        if (si->mp.tensor[i].kind == MEMPLAN_CONST && cg_stream_same(o, g, mp, t) < 0)
            total += ir_shape_numel(&t->shape) * (int64_t)ir_dtype_size(t->dtype);
    }
    return total;
}
