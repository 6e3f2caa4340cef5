/*
 * ranged_firmware.c — a generated ranged library (issue 21, lstmc --dim=SYM=MIN..MAX, the
 * model "model") used as firmware uses it: one context, one arena, and model_run_dims called
 * run after run with the dims changing, built against OUTDIR (libmodel.a, model.h and the
 * runtime's .npy reader, runtime/src/rt_npy.c).
 *
 *   ranged_firmware CASE_DIR TAG...
 *
 * Each TAG is a run of the fixture case (CASE_DIR/runs/t<T>_n<N>: inputs and expected
 * outputs from ONNX Runtime), run in the order given (ranged_firmware.sh: T going down, then
 * up, with the batch changing). For every run: model_input_shape agrees with each input's
 * .npy, model_output_shape with each expected output's; model_run_dims returns LSTMC_RT_OK,
 * every output is close to the reference (npycmp's rule: |got - want| <= 1e-5 + 1e-4 |want|,
 * integers equal) and nothing past the run's packed shape is written (the output buffers
 * are sized for MAX and guard-filled). Then, for each ranged dim, MIN - 1, MAX + 1 and -1
 * give LSTMC_RT_ERR_BAD_PARAMS and leave guard-filled outputs untouched, the shape functions
 * refuse a bad index, and model_run (every dim at MAX) matches the MAX run. Prints one line
 * per run; exits 0 when everything holds, 1 otherwise.
 */
#include "lstmc_rt_npy.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MODEL_N_DIMS
#error "model.h has no MODEL_N_DIMS: compile the model with a ranged --dim (SYM=MIN..MAX)"
#endif

#define GUARD 0xA5
#define RTOL  1e-4
#define ATOL  1e-5

static unsigned char raw[MODEL_ARENA_SIZE + 2 * LSTMC_RT_ALIGN];

static const int64_t dim_min[MODEL_N_DIMS] = {
#ifdef MODEL_DIM_SEQ
    [MODEL_DIM_SEQ] = MODEL_DIM_SEQ_MIN,
#endif
#ifdef MODEL_DIM_BATCH
    [MODEL_DIM_BATCH] = MODEL_DIM_BATCH_MIN,
#endif
};
static const int64_t dim_max[MODEL_N_DIMS] = {
#ifdef MODEL_DIM_SEQ
    [MODEL_DIM_SEQ] = MODEL_DIM_SEQ_MAX,
#endif
#ifdef MODEL_DIM_BATCH
    [MODEL_DIM_BATCH] = MODEL_DIM_BATCH_MAX,
#endif
};

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "ranged_firmware: %s:%d: ", __FILE__, __LINE__);                       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static size_t
dtype_size(int32_t dt)
{
    switch (dt) {
    case LSTMC_RT_F32:
    case LSTMC_RT_I32:
        return 4;
    case LSTMC_RT_I64:
        return 8;
    default:
        return 1;
    }
}

static int64_t
numel(const int64_t *shape, int rank)
{
    int64_t n = 1;
    int k;
    for (k = 0; k < rank; k++)
        n *= shape[k];
    return n;
}

/* The .npy at path into a malloc'd buffer; its header in info. NULL (and a message) when
 * it cannot be read. */
static void *
load(const char *path, lstmc_npy_info *info)
{
    char err[256];
    void *buf;
    if (lstmc_npy_info_read(path, info, err, sizeof err) != 0) {
        fprintf(stderr, "ranged_firmware: %s: %s\n", path, err);
        return NULL;
    }
    buf = malloc(info->n_bytes ? info->n_bytes : 1);
    if (!buf ||
        lstmc_npy_read_data(path, info, buf, info->n_bytes ? info->n_bytes : 1, err, sizeof err)) {
        fprintf(stderr, "ranged_firmware: %s: %s\n", path, buf ? err : "out of memory");
        free(buf);
        return NULL;
    }
    return buf;
}

static double
get(const void *p, int32_t dt, int64_t i)
{
    switch (dt) {
    case LSTMC_RT_F32:
        return ((const float *)p)[i];
    case LSTMC_RT_I32:
        return ((const int32_t *)p)[i];
    case LSTMC_RT_I64:
        return (double)((const int64_t *)p)[i];
    default:
        return ((const unsigned char *)p)[i];
    }
}

/* The names the generated code gives inputs and outputs, for the file names (sanitised as
 * the fixtures do: every character outside [A-Za-z0-9_.-] as '_'). */
static const char *const in_names[MODEL_N_INPUTS] = {
    MODEL_INPUT_0_NAME,
#if MODEL_N_INPUTS > 1
    MODEL_INPUT_1_NAME,
#endif
#if MODEL_N_INPUTS > 2
    MODEL_INPUT_2_NAME,
#endif
#if MODEL_N_INPUTS > 3
    MODEL_INPUT_3_NAME,
#endif
#if MODEL_N_INPUTS > 4
#error "ranged_firmware.c handles up to 4 inputs"
#endif
};
static const char *const out_names[MODEL_N_OUTPUTS] = {
    MODEL_OUTPUT_0_NAME,
#if MODEL_N_OUTPUTS > 1
    MODEL_OUTPUT_1_NAME,
#endif
#if MODEL_N_OUTPUTS > 2
    MODEL_OUTPUT_2_NAME,
#endif
#if MODEL_N_OUTPUTS > 3
#error "ranged_firmware.c handles up to 3 outputs"
#endif
};

static void
path_of(char *buf, size_t n, const char *case_dir, const char *tag, const char *sub,
        const char *name)
{
    char s[128];
    size_t k;
    for (k = 0; name[k] && k + 1 < sizeof s; k++) {
        char c = name[k];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.' || c == '-';
        s[k] = ok ? c : '_';
    }
    s[k] = 0;
    snprintf(buf, n, "%s/runs/%s/%s/%s.npy", case_dir, tag, sub, s);
}

static void *out_buf[MODEL_N_OUTPUTS];
static size_t out_cap[MODEL_N_OUTPUTS]; /* bytes: the output's shape at every MAX, 8 B each */

static void
guard_outputs(void)
{
    int o;
    for (o = 0; o < MODEL_N_OUTPUTS; o++)
        memset(out_buf[o], GUARD, out_cap[o]);
}

/* Bytes of output o from byte `from` on that are not GUARD. */
static size_t
touched(int o, size_t from)
{
    const unsigned char *p = out_buf[o];
    size_t k, n = 0;
    for (k = from; k < out_cap[o]; k++)
        n += p[k] != GUARD;
    return n;
}

/* Compare output o (its values in out_buf[o]) with the expected .npy at path; `what` names
 * the call in messages. */
static void
compare(int o, const int64_t *shape, int rank, const char *path, const char *what)
{
    lstmc_npy_info want;
    void *w = load(path, &want);
    int64_t i, n, bad = 0, worst_i = -1;
    double worst = 0;
    int k;
    if (!w) {
        failures++;
        return;
    }
    CHECK(want.rank == rank, "%s: output %s: model_output_shape gives rank %d, %s has %d", what,
          out_names[o], rank, path, (int)want.rank);
    for (k = 0; k < rank && k < want.rank; k++)
        CHECK(want.dims[k] == shape[k],
              "%s: output %s: model_output_shape dim %d is %lld, %s has %lld", what, out_names[o],
              k, (long long)shape[k], path, (long long)want.dims[k]);
    n = want.n_elems;
    if (rank == want.rank && numel(shape, rank) == n) {
        for (i = 0; i < n; i++) {
            double g = get(out_buf[o], want.dtype, i), e = get(w, want.dtype, i);
            double d = fabs(g - e);
            int ok = want.dtype == LSTMC_RT_F32 ? d <= ATOL + RTOL * fabs(e) : g == e;
            if (!ok) {
                bad++;
                if (d > worst || worst_i < 0) {
                    worst = d;
                    worst_i = i;
                }
            }
        }
        CHECK(bad == 0,
              "%s: output %s: %lld of %lld elements differ from %s (worst at %lld: got %.9g want "
              "%.9g)",
              what, out_names[o], (long long)bad, (long long)n, path, (long long)worst_i,
              worst_i >= 0 ? get(out_buf[o], want.dtype, worst_i) : 0.0,
              worst_i >= 0 ? get(w, want.dtype, worst_i) : 0.0);
        /* nothing written past the run's packed shape */
        CHECK(touched(o, want.n_bytes) == 0,
              "%s: output %s: %zu bytes written past its %zu bytes (the buffer holds MAX)", what,
              out_names[o], touched(o, want.n_bytes), want.n_bytes);
    }
    free(w);
}

/* One run of the case at tag on ctx: returns 0 when it could be set up. */
static int
run_tag(model_ctx *ctx, const char *case_dir, const char *tag, int use_run)
{
    int64_t dims[MODEL_N_DIMS], shape[LSTMC_RT_MAX_RANK];
    long long t = -1, nb = -1;
    const void *ins[MODEL_N_INPUTS];
    void *in_data[MODEL_N_INPUTS] = {0};
    char path[1024], what[160];
    lstmc_rt_status st;
    int i, o, rank, k, failures_before = failures;

    if (sscanf(tag, "t%lld_n%lld", &t, &nb) != 2) {
        fprintf(stderr, "ranged_firmware: tag '%s' is not t<T>_n<N>\n", tag);
        return -1;
    }
    for (k = 0; k < MODEL_N_DIMS; k++)
        dims[k] = dim_max[k];
#ifdef MODEL_DIM_SEQ
    dims[MODEL_DIM_SEQ] = t;
#endif
#ifdef MODEL_DIM_BATCH
    dims[MODEL_DIM_BATCH] = nb;
#endif
    snprintf(what, sizeof what, "%s %s", use_run ? "model_run" : "model_run_dims", tag);
    for (i = 0; i < MODEL_N_INPUTS; i++) {
        lstmc_npy_info info;
        path_of(path, sizeof path, case_dir, tag, "inputs", in_names[i]);
        in_data[i] = load(path, &info);
        if (!in_data[i])
            return -1;
        ins[i] = in_data[i];
        rank = model_input_shape(dims, i, shape);
        CHECK(rank == info.rank, "%s: input %s: model_input_shape gives rank %d, the .npy %d", what,
              in_names[i], rank, (int)info.rank);
        for (k = 0; k < rank && k < info.rank; k++)
            CHECK(shape[k] == info.dims[k],
                  "%s: input %s: model_input_shape dim %d is %lld, the .npy's %lld", what,
                  in_names[i], k, (long long)shape[k], (long long)info.dims[k]);
    }
    guard_outputs();
    st = use_run ? model_run(ctx, ins, out_buf) : model_run_dims(ctx, dims, ins, out_buf);
    CHECK(st == LSTMC_RT_OK, "%s: status %d", what, (int)st);
    if (st == LSTMC_RT_OK) {
        for (o = 0; o < MODEL_N_OUTPUTS; o++) {
            rank = model_output_shape(dims, o, shape);
            path_of(path, sizeof path, case_dir, tag, "expected", out_names[o]);
            compare(o, shape, rank, path, what);
        }
    }
    printf("ranged_firmware: %s (T %lld, batch %lld): %s\n", what, t, nb,
           failures > failures_before ? "FAILED" : "ok");
    /* out of range: MIN - 1, MAX + 1 and -1 for each dim, nothing written */
    if (!use_run) {
        for (k = 0; k < MODEL_N_DIMS; k++) {
            const int64_t bad[3] = {dim_min[k] - 1, dim_max[k] + 1, -1};
            int b;
            for (b = 0; b < 3; b++) {
                int64_t d2[MODEL_N_DIMS];
                memcpy(d2, dims, sizeof d2);
                d2[k] = bad[b];
                guard_outputs();
                st = model_run_dims(ctx, d2, ins, out_buf);
                CHECK(st == LSTMC_RT_ERR_BAD_PARAMS,
                      "%s: dims[%d] = %lld: status %d, want %d (BAD_PARAMS)", what, k,
                      (long long)bad[b], (int)st, (int)LSTMC_RT_ERR_BAD_PARAMS);
                for (o = 0; o < MODEL_N_OUTPUTS; o++)
                    CHECK(touched(o, 0) == 0, "%s: dims[%d] = %lld: output %s: %zu bytes written",
                          what, k, (long long)bad[b], out_names[o], touched(o, 0));
            }
        }
    }
    for (i = 0; i < MODEL_N_INPUTS; i++)
        free(in_data[i]);
    return 0;
}

int
main(int argc, char **argv)
{
    unsigned char *arena = raw + (LSTMC_RT_ALIGN - (size_t)raw % LSTMC_RT_ALIGN) % LSTMC_RT_ALIGN;
    int64_t shape[LSTMC_RT_MAX_RANK];
    model_ctx ctx;
    const char *max_tag = NULL;
    char max_buf[64];
    int a, o, k;

    if (argc < 3) {
        fprintf(stderr, "usage: ranged_firmware CASE_DIR TAG...\n");
        return 2;
    }
    for (k = 0; k < MODEL_N_DIMS; k++)
        CHECK(dim_min[k] >= 0 && dim_min[k] <= dim_max[k] && dim_max[k] > 0,
              "dims[%d]: bounds %lld..%lld (a dim other than seq and batch?)", k,
              (long long)dim_min[k], (long long)dim_max[k]);
    if (failures)
        return 1;
    for (o = 0; o < MODEL_N_OUTPUTS; o++) {
        int rank = model_output_shape(dim_max, o, shape);
        CHECK(rank >= 0, "model_output_shape(MAX, %d) = %d", o, rank);
        if (rank < 0)
            return 1;
        out_cap[o] = (size_t)numel(shape, rank) * 8; /* room for any dtype, and guard bytes */
        out_buf[o] = malloc(out_cap[o] ? out_cap[o] : 1);
        if (!out_buf[o])
            return 1;
    }
    /* a bad index: -1 from the shape functions */
    CHECK(model_input_shape(dim_max, -1, shape) == -1, "model_input_shape(i = -1) is not -1");
    CHECK(model_input_shape(dim_max, MODEL_N_INPUTS, shape) == -1,
          "model_input_shape(i = MODEL_N_INPUTS) is not -1");
    CHECK(model_output_shape(dim_max, -1, shape) == -1, "model_output_shape(i = -1) is not -1");
    CHECK(model_output_shape(dim_max, MODEL_N_OUTPUTS, shape) == -1,
          "model_output_shape(i = MODEL_N_OUTPUTS) is not -1");

    if (model_init(&ctx, arena, MODEL_ARENA_SIZE) != LSTMC_RT_OK) {
        fprintf(stderr, "ranged_firmware: model_init failed\n");
        return 1;
    }
    for (a = 2; a < argc; a++)
        if (run_tag(&ctx, argv[1], argv[a], 0) != 0)
            return 1;
    /* model_run: every dim at MAX, on the same ctx after the others */
    snprintf(max_buf, sizeof max_buf, "t%lld_n%lld",
#ifdef MODEL_DIM_SEQ
             (long long)MODEL_DIM_SEQ_MAX,
#else
             (long long)1,
#endif
#ifdef MODEL_DIM_BATCH
             (long long)MODEL_DIM_BATCH_MAX
#else
             (long long)1
#endif
    );
    max_tag = max_buf;
    if (run_tag(&ctx, argv[1], max_tag, 1) != 0)
        return 1;
    for (o = 0; o < MODEL_N_OUTPUTS; o++)
        free(out_buf[o]);
    if (failures) {
        fprintf(stderr, "ranged_firmware: %d checks failed\n", failures);
        return 1;
    }
    printf("ranged_firmware: %d runs on one context, out-of-range dims refused: ok\n", argc - 2);
    return 0;
}
