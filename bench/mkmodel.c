/*
 * mkmodel.c — write an ONNX model of a stack of L LSTM layers, so benchmarks and CI need no
 * Python:
 *
 *   mkmodel --hidden 512 --input 512 --layers 3 --seq 80 [--batch 1] [--seed 1]
 *           [--seq-name SYM] -o imdb.onnx [--npy x.npy]
 *
 * The graph (opset 14): X [T, N, I] -> LSTM_0 -> Squeeze(axis 1) -> LSTM_1 -> ... ->
 * LSTM_{L-1} -> Y [T, 1, N, H]. Layer l reads W_l [1, 4H, I_l], R_l [1, 4H, H] and
 * B_l [1, 8H] (I_0 = I, I_l = H after), all uniform in [-1, 1) / sqrt(H) from a seeded
 * xorshift generator, like the configurations of MICRO'18 Table II and Arm'19 §V. --npy also
 * writes an input X of that shape (uniform in [-1, 1)). --seq-name makes the time dim of X
 * and Y the symbolic dim SYM (dim_param), so that one model serves lstmc --dim=SYM=N and
 * --dim=SYM=MIN..MAX (bench/dims); --npy then writes X with --seq steps.
 *
 * tests/unit/test_analyze.c includes this file with MKMODEL_NO_MAIN defined, to build its
 * synthetic models the same way (llama2.c's test.c includes run.c).
 */
#include "lstmc_rt.h"
#include "lstmc_rt_npy.h"
#include "onnx/onnx.pb-c.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mkmodel_config {
    long long hidden; /* H */
    long long input;  /* I of the first layer */
    long long layers; /* L */
    long long seq;    /* T */
    long long batch;  /* N */
    unsigned long long seed;
} mkmodel_config;

/* xorshift64*: uniform in [-1, 1). */

/* Every allocation of the protobuf tree is tracked and released by mk_free_all(), so the
 * tool is clean under LeakSanitizer; one that fails ends the tool with a message. */
static void **mk_ptrs;
static size_t mk_n, mk_cap;

static void *
mk_track(void *p)
{
    if (p && mk_n == mk_cap) {
        size_t ncap = mk_cap ? 2 * mk_cap : 256;
        void **np = realloc(mk_ptrs, ncap * sizeof *np);
        if (!np) {
            free(p);
            p = NULL;
        } else {
            mk_ptrs = np;
            mk_cap = ncap;
        }
    }
    if (!p) {
        fprintf(stderr, "mkmodel: out of memory\n");
        exit(1);
    }
    mk_ptrs[mk_n++] = p;
    return p;
}

static void *
mk_calloc(size_t n, size_t size)
{
    return mk_track(calloc(n ? n : 1, size ? size : 1)); /* never NULL for 0 */
}

static void *
mk_malloc(size_t n)
{
    return mk_track(malloc(n ? n : 1));
}

static void
mk_free_all(void)
{
    while (mk_n)
        free(mk_ptrs[--mk_n]);
    free(mk_ptrs);
    mk_ptrs = NULL;
    mk_cap = 0;
}

static float
mkmodel_rand(unsigned long long *s)
{
    unsigned long long x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return (float)((double)((x * 2685821657736338717ULL) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static Onnx__TensorProto *
mkmodel_tensor(const char *name, int32_t dtype, const int64_t *dims, size_t rank, void *data,
               size_t bytes)
{
    Onnx__TensorProto *t = mk_calloc(1, sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    t->has_data_type = 1;
    t->data_type = dtype;
    t->n_dims = rank;
    t->dims = mk_calloc(rank, sizeof *t->dims);
    memcpy(t->dims, dims, rank * sizeof *dims);
    t->has_raw_data = 1;
    t->raw_data.data = data;
    t->raw_data.len = bytes;
    return t;
}

static Onnx__TensorProto *
mkmodel_weight(const char *name, const int64_t *dims, float scale, unsigned long long *seed)
{
    size_t n = (size_t)(dims[0] * dims[1] * dims[2]), i;
    float *v = mk_malloc(n * sizeof *v);
    for (i = 0; i < n; i++)
        v[i] = mkmodel_rand(seed) * scale;
    return mkmodel_tensor(name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, dims, 3, v, n * sizeof *v);
}

/* The name of the symbolic time dim of X and Y (--seq-name), or NULL: a number. */
static const char *mk_seq_name;

static Onnx__ValueInfoProto *
mkmodel_value(const char *name, const int64_t *dims, size_t rank)
{
    Onnx__ValueInfoProto *v = mk_calloc(1, sizeof *v);
    Onnx__TypeProto *tp = mk_calloc(1, sizeof *tp);
    Onnx__TypeProto__Tensor *tt = mk_calloc(1, sizeof *tt);
    Onnx__TensorShapeProto *sh = mk_calloc(1, sizeof *sh);
    size_t i;
    onnx__value_info_proto__init(v);
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(sh);
    sh->n_dim = rank;
    sh->dim = mk_calloc(rank, sizeof *sh->dim);
    for (i = 0; i < rank; i++) {
        Onnx__TensorShapeProto__Dimension *d = mk_calloc(1, sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        if (i == 0 && mk_seq_name) { /* X [T, N, I] and Y [T, 1, N, H]: T first */
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = (char *)mk_seq_name;
        } else {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = dims[i];
        }
        sh->dim[i] = d;
    }
    tt->has_elem_type = 1;
    tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    tt->shape = sh;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    v->name = (char *)name;
    v->type = tp;
    return v;
}

static char *
mkmodel_name(const char *fmt, long long k)
{
    char *s = mk_malloc(64);
    snprintf(s, 64, fmt, k);
    return s;
}

static Onnx__NodeProto *
mkmodel_node(const char *op, char *name, char **in, size_t n_in, char **out, size_t n_out)
{
    Onnx__NodeProto *n = mk_calloc(1, sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = (char *)op;
    n->name = name;
    n->n_input = n_in;
    n->input = mk_calloc(n_in, sizeof *n->input);
    memcpy(n->input, in, n_in * sizeof *in);
    n->n_output = n_out;
    n->output = mk_calloc(n_out, sizeof *n->output);
    memcpy(n->output, out, n_out * sizeof *out);
    return n;
}

/*
 * Write the model for c to path. Returns 0, or -1 with a reason in err. Everything it
 * allocates is left to the process (a short-lived tool).
 */
static int
mkmodel_write(const mkmodel_config *c, const char *path, char *err, size_t errlen)
{
    Onnx__ModelProto m;
    Onnx__GraphProto gr;
    Onnx__OperatorSetIdProto ops;
    Onnx__OperatorSetIdProto *opsp = &ops;
    const long long H = c->hidden, L = c->layers;
    const float scale = (float)(1.0 / sqrt((double)H));
    unsigned long long seed = c->seed ? c->seed : 1;
    static int64_t axes_val = 1;
    int64_t xd[3] = {c->seq, c->batch, c->input}, yd[4] = {c->seq, 1, c->batch, c->hidden};
    int64_t one = 1;
    char *prev = (char *)"X";
    size_t len;
    unsigned char *buf;
    FILE *f;
    long long l;

    if (H < 1 || c->input < 1 || L < 1 || c->seq < 1 || c->batch < 1) {
        snprintf(err, errlen, "--hidden, --input, --layers, --seq and --batch must be >= 1");
        return -1;
    }
    onnx__model_proto__init(&m);
    onnx__graph_proto__init(&gr);
    onnx__operator_set_id_proto__init(&ops);
    ops.domain = (char *)"";
    ops.has_version = 1;
    ops.version = 14;
    m.has_ir_version = 1;
    m.ir_version = 7;
    m.n_opset_import = 1;
    m.opset_import = &opsp;
    m.producer_name = (char *)"lstmc-mkmodel";
    m.graph = &gr;
    gr.name = (char *)"lstm_stack";
    gr.node = mk_calloc((size_t)(2 * L), sizeof *gr.node);
    gr.initializer = mk_calloc((size_t)(3 * L + 1), sizeof *gr.initializer);
    gr.initializer[gr.n_initializer++] = mkmodel_tensor(
        "squeeze_axes", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, &one, 1, &axes_val, sizeof axes_val);
    for (l = 0; l < L; l++) {
        const long long I = l == 0 ? c->input : H;
        int64_t wd[3] = {1, 4 * H, I}, rd[3] = {1, 4 * H, H}, bd[3] = {1, 1, 8 * H};
        char *w = mkmodel_name("W_%lld", l), *r = mkmodel_name("R_%lld", l);
        char *b = mkmodel_name("B_%lld", l);
        char *y = l == L - 1 ? (char *)"Y" : mkmodel_name("Y_%lld", l);
        char *in[4], *out[1];
        Onnx__NodeProto *n;
        Onnx__AttributeProto *hs = mk_calloc(1, sizeof *hs);
        Onnx__TensorProto *bt;

        gr.initializer[gr.n_initializer++] = mkmodel_weight(w, wd, scale, &seed);
        gr.initializer[gr.n_initializer++] = mkmodel_weight(r, rd, scale, &seed);
        bt = mkmodel_weight(b, bd, scale, &seed);
        bt->n_dims = 2; /* B is [1, 8H] */
        bt->dims[1] = 8 * H;
        gr.initializer[gr.n_initializer++] = bt;
        in[0] = prev;
        in[1] = w;
        in[2] = r;
        in[3] = b;
        out[0] = y;
        n = mkmodel_node("LSTM", mkmodel_name("lstm_%lld", l), in, 4, out, 1);
        onnx__attribute_proto__init(hs);
        hs->name = (char *)"hidden_size";
        hs->has_type = 1;
        hs->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        hs->has_i = 1;
        hs->i = H;
        n->n_attribute = 1;
        n->attribute = mk_calloc(1, sizeof *n->attribute);
        n->attribute[0] = hs;
        gr.node[gr.n_node++] = n;
        if (l < L - 1) {
            in[0] = y;
            in[1] = (char *)"squeeze_axes";
            out[0] = mkmodel_name("X_%lld", l + 1);
            gr.node[gr.n_node++] =
                mkmodel_node("Squeeze", mkmodel_name("squeeze_%lld", l), in, 2, out, 1);
            prev = out[0];
        }
    }
    gr.n_input = 1;
    gr.input = mk_calloc(1, sizeof *gr.input);
    gr.input[0] = mkmodel_value("X", xd, 3);
    gr.n_output = 1;
    gr.output = mk_calloc(1, sizeof *gr.output);
    gr.output[0] = mkmodel_value("Y", yd, 4);

    len = onnx__model_proto__get_packed_size(&m);
    buf = malloc(len ? len : 1);
    onnx__model_proto__pack(&m, buf);
    f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    free(buf);
    return 0;
}

/* Write an input X [T, N, I] for c (uniform in [-1, 1), seeded) as .npy. */
static int
mkmodel_write_input(const mkmodel_config *c, const char *path, char *err, size_t errlen)
{
    int64_t dims[3] = {c->seq, c->batch, c->input};
    size_t n = (size_t)(c->seq * c->batch * c->input), i;
    unsigned long long seed = (c->seed ? c->seed : 1) ^ 0x5eedULL;
    float *x = malloc(n * sizeof *x);
    int rc;
    for (i = 0; i < n; i++)
        x[i] = mkmodel_rand(&seed);
    rc = lstmc_npy_write(path, LSTMC_RT_F32, 3, dims, x, err, errlen);
    free(x);
    return rc;
}

#ifndef MKMODEL_NO_MAIN
static int
mkmodel_usage(void)
{
    fprintf(stderr, "usage: mkmodel --hidden H [--input I] [--layers L] [--seq T] [--batch N] "
                    "[--seed S] [--seq-name SYM] -o MODEL.onnx [--npy X.npy]\n");
    return 2;
}

int
main(int argc, char **argv)
{
    mkmodel_config c = {0, 0, 1, 1, 1, 1};
    const char *out = NULL, *npy = NULL;
    char err[256];
    int i;

    for (i = 1; i < argc; i++) {
        const char *o = argv[i];
        char *end;
        long long v;
        if (i + 1 >= argc)
            return mkmodel_usage();
        if (!strcmp(o, "-o")) {
            out = argv[++i];
            continue;
        }
        if (!strcmp(o, "--npy")) {
            npy = argv[++i];
            continue;
        }
        if (!strcmp(o, "--seq-name")) {
            mk_seq_name = argv[++i];
            continue;
        }
        v = strtoll(argv[++i], &end, 10);
        if (*end || v < 1 || v > (1LL << 20))
            return mkmodel_usage();
        if (!strcmp(o, "--hidden"))
            c.hidden = v;
        else if (!strcmp(o, "--input"))
            c.input = v;
        else if (!strcmp(o, "--layers"))
            c.layers = v;
        else if (!strcmp(o, "--seq"))
            c.seq = v;
        else if (!strcmp(o, "--batch"))
            c.batch = v;
        else if (!strcmp(o, "--seed"))
            c.seed = (unsigned long long)v;
        else
            return mkmodel_usage();
    }
    if (!out || c.hidden < 1)
        return mkmodel_usage();
    if (!c.input)
        c.input = c.hidden;
    if (mkmodel_write(&c, out, err, sizeof err) < 0 ||
        (npy && mkmodel_write_input(&c, npy, err, sizeof err) < 0)) {
        fprintf(stderr, "mkmodel: %s\n", err);
        mk_free_all();
        return 1;
    }
    mk_free_all();
    return 0;
}
#endif
