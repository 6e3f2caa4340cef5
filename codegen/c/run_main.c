/*
 * run_main.c — <name>_run.c, the generated .npy driver: reads the inputs, runs the model
 * once or --bench N times (or --stream SPEC through <name>_step), writes the outputs as .npy.
 * Its buffers are static: no allocation.
 */
#include "c_impl.h"
#include "ir.h"
#include "kprog.h"
#include "stream.h"

#include <stdio.h>

static void
put_dtype_check(FILE *f, const char *NAME, const char *what, int i)
{
    fprintf(f, "%s_%s_%d_DTYPE", NAME, what, i);
}

/* Copy layer j's initial h or c (which) from graph input `in` at float offset `off` into the
 * state: as it is, or (an integer state of --activations, issue 22: NAME_STATE_<j>_H_SCALE)
 * quantised to the state's grid. */
static void
put_state_copy(FILE *f, const char *NAME, const char *which, int j, int in, int64_t off)
{
    const char W = which[0] == 'h' ? 'H' : 'C';
    fprintf(f,
            "#ifdef %s_STATE_%d_%c_SCALE\n"
            "    {\n        const float *src = (const float *)inputs[%d] + %lld;\n"
            "        const long hi = sizeof state.%s%d[0] == 1 ? 127 : 32767;\n"
            "        size_t i;\n"
            "        for (i = 0; i < sizeof state.%s%d / sizeof state.%s%d[0]; i++) {\n"
            "            long v = lrintf(src[i] / %s_STATE_%d_%c_SCALE);\n"
            "            state.%s%d[i] = v < -hi ? -hi : v > hi ? hi : v;\n"
            "        }\n    }\n#else\n"
            "    memcpy(state.%s%d, (const float *)inputs[%d] + %lld, sizeof state.%s%d);\n"
            "#endif\n",
            NAME, j, W, in, (long long)off, which, j, which, j, which, j, NAME, j, W, which, j,
            which, j, in, (long long)off, which, j);
}

/* run_stream(ctx, spec, inputs, outputs) of <name>_run.c: --stream SPEC feeds the whole
 * sequence through <name>_step in chunks of the sizes SPEC lists (cycled; the last chunk
 * is cut to what is left) and assembles the outputs _run would write. */
static void
put_driver_stream(FILE *f, const ir_graph *g, const kprog *kp, const cg_options *o)
{
    const stream_info *si = o->stream;
    int64_t T = si ? si->seq_len : 0, outer, inner;
    char NAME[128];
    int i, j;
    int slices = 0;         /* whether a time axis is copied: the loops over its outer rows */
    if (!cg_c_stream_on(o)) /* main refuses --stream */
        return;
    cg_c_upper(o->name, NAME, sizeof NAME);
    for (i = 0; i < g->n_inputs; i++)
        slices |= si->in_axis[i] >= 0;
    for (i = 0; i < kp->n_outputs; i++)
        slices |= si->out_kind[i] == STREAM_TIME;
    fprintf(f,
            "static lstmc_rt_status\nrun_stream(%s_ctx *ctx, const char *spec, int64_t T, "
            "const void *const *inputs,\n           void *const *outputs)\n{\n",
            o->name);
    fprintf(f, "    static %s_state state;\n", o->name);
    for (i = 0; i < g->n_inputs; i++)
        if (si->in_axis[i] >= 0)
            fprintf(f, "    static %s chunk_in%d[sizeof in%d / sizeof in%d[0]];\n",
                    cg_c_ctype(g->inputs[i]->dtype), i, i, i);
    for (i = 0; i < kp->n_outputs; i++)
        if (si->out_kind[i] == STREAM_TIME)
            fprintf(f, "    static %s chunk_out%d[sizeof out%d / sizeof out%d[0]];\n",
                    cg_c_ctype(g->outputs[i]->dtype), i, i, i);
    fprintf(f,
            "    const void *cin[%d];\n    void *cout[%d];\n    const char *p = spec;\n"
            "    int64_t t = 0, n%s;\n    lstmc_rt_status st = %s_reset(&state);\n"
            "    if (st != LSTMC_RT_OK)\n        return st;\n",
            g->n_inputs + 1, kp->n_outputs + 1, slices ? ", o" : "", o->name);
    for (j = 0; j < si->n_layers; j++) { /* initial states the model takes as inputs */
        const stream_layer *l = &si->layers[j];
        if (l->init_h_input >= 0)
            put_state_copy(f, NAME, "h", j, l->init_h_input, l->init_h_off);
        if (l->init_c_input >= 0)
            put_state_copy(f, NAME, "c", j, l->init_c_input, l->init_c_off);
    }
    fputs("    while (t < T) {\n        char *end;\n"
          "        n = strtol(p, &end, 10);\n"
          "        if (end == p || n < 1)\n            return LSTMC_RT_ERR_BAD_PARAMS;\n"
          "        p = *end == ',' ? end + 1 : spec;\n"
          "        if (n > T - t)\n            n = T - t;\n",
          f);
    for (i = 0; i < g->n_inputs; i++) {
        if (si->in_axis[i] < 0) {
            fprintf(f, "        cin[%d] = inputs[%d];\n", i, i);
            continue;
        }
        cg_c_time_slice(g->inputs[i], si->in_axis[i], &outer, &inner);
        fprintf(f,
                "        for (o = 0; o < %lld; o++)\n"
                "            memcpy((unsigned char *)chunk_in%d + (size_t)(o * n) * %lldu,\n"
                "                   (const unsigned char *)inputs[%d] + (size_t)(o * T + t) * "
                "%lldu,\n                   (size_t)n * %lldu);\n        cin[%d] = chunk_in%d;\n",
                (long long)outer, i, (long long)inner, i, (long long)inner, (long long)inner, i, i);
    }
    for (i = 0; i < kp->n_outputs; i++)
        if (si->out_kind[i] == STREAM_TIME)
            fprintf(f, "        cout[%d] = chunk_out%d;\n", i, i);
        else
            fprintf(f, "        cout[%d] = outputs[%d];\n", i, i);
    fprintf(f,
            "        st = %s_step(ctx, &state, n, cin, cout);\n"
            "        if (st != LSTMC_RT_OK)\n            return st;\n",
            o->name);
    for (i = 0; i < kp->n_outputs; i++) {
        if (si->out_kind[i] != STREAM_TIME)
            continue;
        cg_c_time_slice(g->outputs[i], si->out_axis[i], &outer, &inner);
        outer *= si->out_om[i]; /* the entries merged with the steps (reshape(-1, H)) */
        inner *= si->out_im[i];
        j = si->out_axis[i];
        fprintf(f,
                "        for (o = 0; o < %lld; o++) /* T (%lld compiled) along axis %d */\n"
                "            memcpy((unsigned char *)outputs[%d] + (size_t)(o * T + t) * "
                "%lldu,\n                   (const unsigned char *)chunk_out%d + (size_t)(o * n) "
                "* %lldu,\n                   (size_t)n * %lldu);\n",
                (long long)outer, (long long)T, j, i, (long long)inner, i, (long long)inner,
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
    cg_c_upper(o->name, NAME, sizeof NAME);
    if (o->placement == CG_WEIGHTS_CONST) /* compiled in: main refuses --weights-file */
        return;
    fprintf(f,
            "static lstmc_rt_status\nload_weights(%s_ctx *ctx, const char *path, const char "
            "*argv0)\n{\n",
            o->name);
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

/* Issue 21: the run's dims from the inputs' .npy headers (cg_dims: dim k is axis
 * in_axis[k] of input in_of[k]), then every input's and output's shape at them. */
static void
put_driver_dims(FILE *f, const ir_graph *g, const kprog *kp, const cg_options *o)
{
    const cg_dims *dm = o->dims;
    int k, i;
    fprintf(f,
            "    int64_t dims[%d];\n    {\n        lstmc_npy_info info;\n"
            "        char err[256];\n",
            dm->n);
    for (k = 0; k < dm->n; k++)
        fprintf(f,
                "        if (lstmc_npy_info_read(paths[%d], &info, err, sizeof err) != 0) {\n"
                "            fprintf(stderr, \"input '%%s' (%%s): %%s\\n\", input_names[%d], "
                "paths[%d], err);\n            return 1;\n        }\n"
                "        dims[%d] = info.rank > %d ? info.dims[%d] : -1;\n"
                "        if (dims[%d] < %lld || dims[%d] > %lld) {\n"
                "            fprintf(stderr, \"input '%%s' (%%s): dim %d ('%s') is %%lld, outside "
                "the compiled range %lld..%lld\\n\",\n"
                "                    input_names[%d], paths[%d], (long long)dims[%d]);\n"
                "            return 1;\n        }\n",
                dm->in_of[k], dm->in_of[k], dm->in_of[k], k, dm->in_axis[k], dm->in_axis[k], k,
                (long long)dm->min[k], k, (long long)dm->max[k], dm->in_axis[k], dm->name[k],
                (long long)dm->min[k], (long long)dm->max[k], dm->in_of[k], dm->in_of[k], k);
    fputs("    }\n", f);
    for (i = 0; i < g->n_inputs; i++)
        if (g->inputs[i]->shape.rank > 0)
            fprintf(f, "    (void)%s_input_shape(dims, %d, in%d_dims);\n", o->name, i, i);
    for (i = 0; i < kp->n_outputs; i++)
        if (g->outputs[i]->shape.rank > 0)
            fprintf(f, "    (void)%s_output_shape(dims, %d, out%d_dims);\n", o->name, i, i);
}

int
cg_c_write_driver(const ir_graph *g, const kprog *kp, const cg_options *o, diag *d)
{
    out_file of;
    FILE *f;
    char fname[256];
    char NAME[128], run[512]; /* run: the call that runs the model once */
    int i;
    cg_c_upper(o->name, NAME, sizeof NAME);
    snprintf(fname, sizeof fname, "%s_run.c", o->name);
    if (cg_c_open_out(&of, o->outdir, fname, d) < 0)
        return -1;
    f = of.f;
    fprintf(
        f,
        "/*\n * %s_run.c — generated by lstmc: runs %s on .npy inputs, writes .npy "
        "outputs.\n *\n *   %s_run [--bench N] [--print] [--output-dir DIR] "
        "[--input NAME=FILE.npy]... [INPUT.npy]...\n"
        " *\n * Each input by its ONNX name (--input NAME=FILE.npy, as lstmc run takes them) or "
        "by\n * position: the files not given by name fill the other inputs in graph order: ",
        o->name, o->name, o->name);
    for (i = 0; i < g->n_inputs; i++)
        fprintf(f, "%s'%s'", i ? ", " : "", g->inputs[i]->name);
    fprintf(f,
            ". Buffers are static: no allocation.\n */\n"
            "#define _POSIX_C_SOURCE 199309L\n#include <math.h>\n#include <stdio.h>\n#include "
            "<stdlib.h>\n"
            "#include <string.h>\n#include <time.h>\n\n#include \"%s.h\"\n"
            "#include \"lstmc_rt_npy.h\"\n\n",
            o->name);
    fprintf(f, "static unsigned char arena_raw[%s_ARENA_SIZE + LSTMC_RT_ALIGN];\n", NAME);
    for (i = 0; i < g->n_inputs; i++) {
        const ir_tensor *t = g->inputs[i];
        int64_t n = ir_shape_numel(&t->shape);
        fprintf(f, "static %s in%d[%lld];\nstatic %sint64_t in%d_dims[] = ", cg_c_ctype(t->dtype),
                i, (long long)(n > 0 ? n : 1), o->dims ? "" : "const ", i);
        cg_c_put_i64s(f, t->shape.d, t->shape.rank);
        fputs(";\n", f);
    }
    for (i = 0; i < kp->n_outputs; i++) {
        const ir_tensor *t = g->outputs[i];
        int64_t n = ir_shape_numel(&t->shape);
        char san[512];
        cg_sanitize_filename(t->name, san, sizeof san);
        fprintf(f, "static %s out%d[%lld];\nstatic %sint64_t out%d_dims[] = ", cg_c_ctype(t->dtype),
                i, (long long)(n > 0 ? n : 1), o->dims ? "" : "const ", i);
        cg_c_put_i64s(f, t->shape.d, t->shape.rank);
        fprintf(f, ";\nstatic const char out%d_file[] = \"%s.npy\";\n", i, san);
    }
    fputs("\nstatic const char *const input_names[] = {", f);
    for (i = 0; i < g->n_inputs; i++)
        fprintf(f, "%s_INPUT_%d_NAME, ", NAME, i);
    fputs("NULL};\n\n", f);
    fputs("static long\nnumel(const int64_t *dims, int rank)\n{\n    long n = 1;\n"
          "    while (rank-- > 0)\n        n *= (long)dims[rank];\n    return n;\n}\n\n",
          f);
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
            "    const char *pos[%s_N_INPUTS + 1] = {0};\n    int n_pos = 0, k;\n"
            "    const void *inputs[%s_N_INPUTS + 1] = {0};\n    void *outputs[%s_N_OUTPUTS + 1] = "
            "{0};\n"
            "    %s_ctx ctx;\n    lstmc_rt_status st;\n    long bench = 0;\n    int print = 0;\n"
            "    const char *stream = NULL, *weights_file = NULL;\n"
            "    int n_paths = 0, i;\n"
            "    unsigned char *arena = arena_raw + (LSTMC_RT_ALIGN - (size_t)arena_raw %% "
            "LSTMC_RT_ALIGN) %% LSTMC_RT_ALIGN;\n\n",
            NAME, NAME, NAME, NAME, o->name);
    fprintf(
        f,
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
        "        } else if ((strcmp(argv[i], \"--input\") == 0 && i + 1 < argc) ||\n"
        "                   strncmp(argv[i], \"--input=\", 8) == 0) {\n"
        "            /* NAME=FILE: NAME is the ONNX input name (the longest that matches) */\n"
        "            const char *spec = argv[i][7] == '=' ? argv[i] + 8 : argv[++i];\n"
        "            size_t best = 0;\n            int which = -1;\n"
        "            for (k = 0; k < %s_N_INPUTS; k++) {\n"
        "                size_t n = strlen(input_names[k]);\n"
        "                if (strncmp(spec, input_names[k], n) == 0 && spec[n] == '=' &&\n"
        "                    (which < 0 || n > best))\n"
        "                    which = k, best = n;\n            }\n"
        "            if (which < 0) {\n"
        "                fprintf(stderr, \"%s_run: --input %%s: the model has no input of that "
        "name (NAME=FILE.npy; its inputs:\", spec);\n"
        "                for (k = 0; k < %s_N_INPUTS; k++)\n"
        "                    fprintf(stderr, \" '%%s'\", input_names[k]);\n"
        "                fprintf(stderr, \")\\n\");\n                return 2;\n            }\n"
        "            if (paths[which]) {\n"
        "                fprintf(stderr, \"%s_run: input '%%s' is given twice\\n\", "
        "input_names[which]);\n                return 2;\n            }\n"
        "            paths[which] = spec + best + 1;\n            n_paths++;\n"
        "        } else if (argv[i][0] == '-' && argv[i][1] == '-') {\n"
        "            fprintf(stderr, \"%s_run: unknown option '%%s'\\n\", argv[i]);\n"
        "            return 2;\n"
        "        } else if (n_pos < %s_N_INPUTS) {\n"
        "            pos[n_pos++] = argv[i];\n"
        "        } else {\n"
        "            fprintf(stderr, \"%s_run: too many inputs (the model has %%d)\\n\", "
        "%s_N_INPUTS);\n            return 2;\n        }\n    }\n"
        "    /* the files given by position fill the inputs not given by name, in graph order */\n"
        "    for (k = 0, i = 0; k < %s_N_INPUTS && i < n_pos; k++)\n"
        "        if (!paths[k]) {\n            paths[k] = pos[i++];\n            n_paths++;\n"
        "        }\n"
        "    if (i < n_pos) {\n"
        "        fprintf(stderr, \"%s_run: too many inputs (the model has %%d)\\n\", "
        "%s_N_INPUTS);\n        return 2;\n    }\n",
        o->name, o->name, NAME, o->name, NAME, o->name, o->name, NAME, o->name, NAME, NAME, o->name,
        NAME);
    fprintf(f,
            "    if (n_paths != %s_N_INPUTS) {\n"
            "        for (k = 0; k < %s_N_INPUTS; k++)\n"
            "            if (!paths[k])\n"
            "                fprintf(stderr, \"%s_run: no data for input '%%s'\\n\", "
            "input_names[k]);\n"
            "        fprintf(stderr, \"usage: %s_run [--bench N] [--print] [--output-dir DIR] "
            "[--stream SPEC] [--weights-file FILE]\\n\"\n"
            "                        \"       [--input NAME=FILE.npy]... [INPUT.npy]...\\n\"\n"
            "                        \"  each input by its ONNX name, or by position in graph "
            "order:\");\n"
            "        for (k = 0; k < %s_N_INPUTS; k++)\n"
            "            fprintf(stderr, \" '%%s'\", input_names[k]);\n"
            "        fprintf(stderr, \"\\n\");\n        return 2;\n    }\n",
            NAME, NAME, o->name, o->name, NAME);
    if (o->dims)
        put_driver_dims(f, g, kp, o);
    for (i = 0; i < g->n_inputs; i++) {
        fprintf(f, "    if (load(%d, paths[%d], ", i, i);
        put_dtype_check(f, NAME, "INPUT", i);
        fprintf(f,
                ", %d, in%d_dims, in%d, sizeof in%d) != 0)\n        return 1;\n"
                "    inputs[%d] = in%d;\n",
                g->inputs[i]->shape.rank, i, i, i, i, i);
    }
    for (i = 0; i < kp->n_outputs; i++)
        fprintf(f, "    outputs[%d] = out%d;\n", i, i);
    {
        char once[256], T[64] = "0";
        if (o->dims)
            snprintf(once, sizeof once, "%s_run_dims(&ctx, dims, inputs, outputs)", o->name);
        else
            snprintf(once, sizeof once, "%s_run(&ctx, inputs, outputs)", o->name);
        for (i = 0; cg_c_stream_on(o) && i < g->n_inputs; i++)
            if (o->stream->in_axis[i] >= 0) { /* the run's T: the first streamed input's */
                snprintf(T, sizeof T, "in%d_dims[%d]", i, o->stream->in_axis[i]);
                break;
            }
        if (cg_c_stream_on(o))
            snprintf(run, sizeof run,
                     "stream ? run_stream(&ctx, stream, %s, inputs, outputs)\n"
                     "                    : %s",
                     T, once);
        else /* --stream was refused above */
            snprintf(run, sizeof run, "%s", once);
    }
    fprintf(f,
            "    if (stream && !%s_STREAMABLE) {\n"
            "        fprintf(stderr, \"%s_run: --stream: the model does not stream: %%s\\n\",\n"
            "                %s_STREAM_WHY);\n        return 1;\n    }\n",
            NAME, o->name, NAME);
    if (o->placement == CG_WEIGHTS_CONST)
        fprintf(f,
                "    if (weights_file) {\n"
                "        fprintf(stderr, \"%s_run: --weights-file: the weights are compiled in "
                "(--weights-placement=const)\\n\");\n        return 2;\n    }\n",
                o->name);
    fprintf(f,
            "    st = %s_init(&ctx, arena, %s_ARENA_SIZE);\n"
            "%s"
            "    if (st == LSTMC_RT_OK)\n"
            "        st = %s;\n"
            "    if (st != LSTMC_RT_OK) {\n"
            "        fprintf(stderr, \"%s_run: %%s\\n\", lstmc_rt_status_str(st));\n"
            "        return 1;\n    }\n",
            o->name, NAME,
            o->placement != CG_WEIGHTS_CONST
                ? "    if (st == LSTMC_RT_OK)\n        st = load_weights(&ctx, weights_file, "
                  "argv[0]);\n"
                : "",
            run, o->name);
    fprintf(f,
            "    if (bench > 0) {\n"
            "        static double ms[1000000];\n        long r;\n"
            "        for (r = 0; r < bench; r++) {\n            struct timespec t0, t1;\n"
            "            clock_gettime(CLOCK_MONOTONIC, &t0);\n"
            "            %s;\n"
            "            clock_gettime(CLOCK_MONOTONIC, &t1);\n"
            "            ms[r] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - "
            "t0.tv_nsec) / 1e6;\n        }\n"
            "        qsort(ms, (size_t)bench, sizeof ms[0], cmp_double);\n"
            "        printf(\"%s: median %%.4f ms over %%ld runs\\n\", ms[bench / 2], bench);\n"
            "    }\n",
            run, o->name);
    for (i = 0; i < kp->n_outputs; i++) {
        const ir_tensor *t = g->outputs[i];
        int64_t n = ir_shape_numel(&t->shape);
        fprintf(f, "    if (print) {\n        long e;\n        printf(\"%%s %s",
                cg_c_ctype(t->dtype));
        cg_c_put_shape(f, &t->shape);
        fprintf(f,
                ":\", %s_OUTPUT_%d_NAME);\n"
                "        for (e = 0; e < numel(out%d_dims, %d) && e < 64; e++)\n",
                NAME, i, i, t->shape.rank);
        if (t->dtype == IR_DT_F32)
            fprintf(f, "            printf(\" %%.6g\", (double)out%d[e]);\n", i);
        else
            fprintf(f, "            printf(\" %%lld\", (long long)out%d[e]);\n", i);
        fprintf(f,
                "        printf(\"%%s\\n\", numel(out%d_dims, %d) > 64 ? \" ...\" : \"\");\n"
                "    }\n",
                i, t->shape.rank);
        (void)n;
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
                i, cg_c_rt_dtype(t->dtype), t->shape.rank, i, i, o->name);
    }
    fputs("    return 0;\n}\n", f);
    return cg_c_close_out(&of, d);
}
