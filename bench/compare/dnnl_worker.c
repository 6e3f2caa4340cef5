/*
 * dnnl_worker.c — times oneDNN's LSTM primitive (C API, forward inference, f32) on a stack of
 * LSTM layers with the weights of an ONNX model (see worker.h for the protocol).
 *
 *   dnnl_worker DIR I H L T
 *
 * DIR holds x.bin (raw float32 [T, 1, I]) and, per layer l, W_l.bin [4H, I_l], R_l.bin [4H, H]
 * and B_l.bin [8H], in ONNX's layout and gate order (i, o, f, c); compare.py writes them from
 * the .onnx file. Layers with the same input size run as one multi-layer primitive (oneDNN's
 * own stacking), so a stack whose first layer reads I != H is two primitives. The weights are
 * reordered once, at load, into the layout the primitive asks for (format_tag any), as a
 * user of oneDNN would. Threads: OMP_NUM_THREADS; ISA: ONEDNN_MAX_CPU_ISA.
 */
#include <oneapi/dnnl/dnnl.h>

#include "worker.h"

#define CHECK(call)                                                                        \
    do {                                                                                   \
        dnnl_status_t s_ = (call);                                                         \
        if (s_ != dnnl_success) {                                                          \
            fprintf(stderr, "dnnl_worker: %s failed (status %d)\n", #call, (int)s_);       \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

typedef struct group {
    dnnl_primitive_t prim;
    dnnl_memory_t src, wl, wi, bias, dst;
} group;

typedef struct dw {
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    group g[2];
    int ng;
} dw;

/* dnnl's gate g (i, f, c, o) is ONNX's gate onnx_gate[g] (i, o, f, c). */
static const int onnx_gate[4] = {0, 2, 3, 1};

static dnnl_memory_t
user_mem(dw *w, int nd, const dnnl_dims_t dims, dnnl_format_tag_t tag, void *data)
{
    dnnl_memory_desc_t md;
    dnnl_memory_t m;
    CHECK(dnnl_memory_desc_init_by_tag(&md, nd, dims, dnnl_f32, tag));
    CHECK(dnnl_memory_create(&m, &md, w->eng, data ? data : DNNL_MEMORY_ALLOCATE));
    return m;
}

/* A memory in the primitive's layout pd_md, filled from user by a reorder. */
static dnnl_memory_t
reordered(dw *w, const dnnl_memory_desc_t *pd_md, dnnl_memory_t user)
{
    const dnnl_memory_desc_t *umd;
    dnnl_primitive_desc_t rpd;
    dnnl_primitive_t r;
    dnnl_memory_t m;
    dnnl_exec_arg_t args[2];
    CHECK(dnnl_memory_get_memory_desc(user, &umd));
    CHECK(dnnl_memory_create(&m, pd_md, w->eng, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_reorder_primitive_desc_create(&rpd, umd, w->eng, pd_md, w->eng, NULL));
    CHECK(dnnl_primitive_create(&r, rpd));
    args[0].arg = DNNL_ARG_FROM;
    args[0].memory = user;
    args[1].arg = DNNL_ARG_TO;
    args[1].memory = m;
    CHECK(dnnl_primitive_execute(r, w->stream, 2, args));
    CHECK(dnnl_stream_wait(w->stream));
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
    return m;
}

/* Build the primitive for layers [l0, l0 + nl) whose input size is in; src is its input. */
static void
group_init(dw *w, group *g, const char *dir, long l0, long nl, long in, long H, long T,
           dnnl_memory_t src)
{
    dnnl_dims_t d_wl = {nl, 1, in, 4, H}, d_wi = {nl, 1, H, 4, H}, d_b = {nl, 1, 4, H};
    dnnl_dims_t d_dst = {T, 1, H};
    float *wl = malloc(sizeof(float) * (size_t)(nl * in * 4 * H));
    float *wi = malloc(sizeof(float) * (size_t)(nl * H * 4 * H));
    float *b = malloc(sizeof(float) * (size_t)(nl * 4 * H));
    dnnl_memory_desc_t md_wl, md_wi, md_b, md_dst;
    const dnnl_memory_desc_t *md_src;
    dnnl_rnn_desc_t desc;
    dnnl_primitive_desc_t pd;
    dnnl_memory_t u_wl, u_wi;
    long l, k, gi, h;
    char path[4096];

    for (l = 0; l < nl; l++) {
        float *W, *R, *B;
        snprintf(path, sizeof path, "%s/W_%ld.bin", dir, l0 + l);
        W = worker_read_file(path, sizeof(float) * (size_t)(4 * H * in));
        snprintf(path, sizeof path, "%s/R_%ld.bin", dir, l0 + l);
        R = worker_read_file(path, sizeof(float) * (size_t)(4 * H * H));
        snprintf(path, sizeof path, "%s/B_%ld.bin", dir, l0 + l);
        B = worker_read_file(path, sizeof(float) * (size_t)(8 * H));
        /* ldigo: [layer][dir][input][gate][output]; ONNX: [gate * H + output][input]. */
        for (gi = 0; gi < 4; gi++)
            for (h = 0; h < H; h++) {
                long row = onnx_gate[gi] * H + h;
                for (k = 0; k < in; k++)
                    wl[((l * in + k) * 4 + gi) * H + h] = W[row * in + k];
                for (k = 0; k < H; k++)
                    wi[((l * H + k) * 4 + gi) * H + h] = R[row * H + k];
                b[(l * 4 + gi) * H + h] = B[row] + B[4 * H + row];
            }
        free(W);
        free(R);
        free(B);
    }
    u_wl = user_mem(w, 5, d_wl, dnnl_ldigo, wl);
    u_wi = user_mem(w, 5, d_wi, dnnl_ldigo, wi);
    g->bias = user_mem(w, 4, d_b, dnnl_ldgo, b);
    g->src = src;
    g->dst = user_mem(w, 3, d_dst, dnnl_tnc, NULL);

    CHECK(dnnl_memory_desc_init_by_tag(&md_wl, 5, d_wl, dnnl_f32, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_init_by_tag(&md_wi, 5, d_wi, dnnl_f32, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_init_by_tag(&md_b, 4, d_b, dnnl_f32, dnnl_ldgo));
    CHECK(dnnl_memory_desc_init_by_tag(&md_dst, 3, d_dst, dnnl_f32, dnnl_tnc));
    CHECK(dnnl_memory_get_memory_desc(src, &md_src));
    CHECK(dnnl_lstm_forward_desc_init(&desc, dnnl_forward_inference,
                                      dnnl_unidirectional_left2right, md_src, NULL, NULL,
                                      &md_wl, &md_wi, &md_b, &md_dst, NULL, NULL, 0));
    CHECK(dnnl_primitive_desc_create(&pd, &desc, NULL, w->eng, NULL));
    g->wl = reordered(w, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), u_wl);
    g->wi = reordered(w, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1), u_wi);
    CHECK(dnnl_primitive_create(&g->prim, pd));
    dnnl_primitive_desc_destroy(pd);
}

static int
dw_run(void *self)
{
    dw *w = self;
    int i;
    for (i = 0; i < w->ng; i++) {
        group *g = &w->g[i];
        dnnl_exec_arg_t args[5] = {{DNNL_ARG_SRC_LAYER, g->src},
                                   {DNNL_ARG_WEIGHTS_LAYER, g->wl},
                                   {DNNL_ARG_WEIGHTS_ITER, g->wi},
                                   {DNNL_ARG_BIAS, g->bias},
                                   {DNNL_ARG_DST_LAYER, g->dst}};
        if (dnnl_primitive_execute(g->prim, w->stream, 5, args) != dnnl_success)
            return -1;
    }
    return dnnl_stream_wait(w->stream) == dnnl_success ? 0 : -1;
}

int
main(int argc, char **argv)
{
    dw w;
    long I, H, L, T;
    dnnl_dims_t d_x;
    char path[4096];
    void *x, *y;
    if (argc != 6) {
        fprintf(stderr, "usage: dnnl_worker DIR I H L T\n");
        return 2;
    }
    I = atol(argv[2]);
    H = atol(argv[3]);
    L = atol(argv[4]);
    T = atol(argv[5]);
    CHECK(dnnl_engine_create(&w.eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&w.stream, w.eng, dnnl_stream_default_flags));
    snprintf(path, sizeof path, "%s/x.bin", argv[1]);
    x = worker_read_file(path, sizeof(float) * (size_t)(T * I));
    d_x[0] = T;
    d_x[1] = 1;
    d_x[2] = I;
    w.ng = 0;
    if (I != H || L == 1) {
        group_init(&w, &w.g[w.ng], argv[1], 0, 1, I, H, T, user_mem(&w, 3, d_x, dnnl_tnc, x));
        w.ng++;
    }
    if (L > w.ng) {
        long l0 = w.ng;
        dnnl_memory_t src = l0 ? w.g[0].dst : user_mem(&w, 3, d_x, dnnl_tnc, x);
        group_init(&w, &w.g[w.ng], argv[1], l0, L - l0, H, H, T, src);
        w.ng++;
    }
    CHECK(dnnl_memory_get_data_handle(w.g[w.ng - 1].dst, &y));
    return worker_loop(dw_run, &w, y, sizeof(float) * (size_t)(T * H));
}
