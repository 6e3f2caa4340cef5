/*
 * helpers.c — see helpers.h.
 */
#include "helpers.h"

#include "arena.h"
#include "codegen.h"
#include "diag.h"
#include "driver.h"
#include "ir_eval.h"
#include "kprog.h"
#include "passes.h"
#include "target.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
helpers_allclose(const float *got, const float *want, size_t n, float rtol, float atol)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (!(fabsf(got[i] - want[i]) <= atol + rtol * fabsf(want[i]))) {
            fprintf(stderr, "element %zu: got %.9g want %.9g\n", i, (double)got[i],
                    (double)want[i]);
            return 0;
        }
    }
    return 1;
}

void *
helpers_load_npy(arena *a, const char *path, lstmc_npy_info *info)
{
    char err[256];
    void *buf;
    if (lstmc_npy_info_read(path, info, err, sizeof err) != 0)
        return NULL;
    buf = arena_alloc(a, info->n_bytes);
    if (lstmc_npy_read_data(path, info, buf, info->n_bytes, err, sizeof err) != 0)
        return NULL;
    return buf;
}

ir_graph *
helpers_prepare_case(arena *a, const char *c, diag *d, const void **inputs)
{
    char path[1024], line[1024];
    driver_options o;
    ir_graph *g;
    FILE *f;
    int i;
    memset(&o, 0, sizeof o);
    o.target = "host";
    snprintf(path, sizeof path, HELPERS_FIXTURES "/%s/model.onnx", c);
    g = driver_import(a, arena_strdup(a, path), d);
    if (!g)
        return NULL;
    snprintf(path, sizeof path, HELPERS_FIXTURES "/%s/inputs.txt", c);
    f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
        driver_binding *b = &o.shapes[o.n_shapes];
        lstmc_npy_info info;
        void *data;
        if (!tab)
            continue;
        *tab = '\0';
        if (nl)
            *nl = '\0';
        snprintf(path, sizeof path, HELPERS_FIXTURES "/%s/%s", c, tab + 1);
        data = helpers_load_npy(a, path, &info);
        cr_assert_not_null(data, "%s", path);
        b->name = arena_strdup(a, line);
        b->dtype = info.dtype;
        b->shape.rank = info.rank;
        for (i = 0; i < info.rank; i++)
            b->shape.d[i] = info.dims[i];
        for (i = 0; i < g->n_inputs; i++)
            if (strcmp(g->inputs[i]->name, line) == 0)
                inputs[i] = data;
        o.n_shapes++;
    }
    fclose(f);
    if (driver_prepare(g, &o, d) < 0)
        return NULL;
    return g;
}

int
helpers_outputs_match(arena *a, const char *c, const ir_graph *g, void *const *outputs,
                      const char *tag)
{
    int i;
    for (i = 0; i < g->n_outputs; i++) {
        const ir_tensor *t = g->outputs[i];
        size_t es = ir_dtype_size(t->dtype);
        char name[512], path[1024];
        lstmc_npy_info info;
        const void *want;
        int64_t k, n = ir_shape_numel(&t->shape);
        cg_sanitize_filename(t->name, name, sizeof name);
        snprintf(path, sizeof path, HELPERS_FIXTURES "/%s/expected/%s.npy", c, name);
        want = helpers_load_npy(a, path, &info);
        if (!want || info.n_elems != n || info.dtype != (int32_t)t->dtype) {
            fprintf(stderr, "%s: output %s: reference missing or of another shape\n", c, name);
            return 0;
        }
        for (k = 0; k < n; k++) {
            int good;
            if (t->dtype == IR_DT_F32) {
                float x = ((const float *)outputs[i])[k], y = ((const float *)want)[k];
                good = fabsf(x - y) <= 1e-5f + 1e-4f * fabsf(y);
            } else {
                good = memcmp((const char *)outputs[i] + (size_t)k * es,
                              (const char *)want + (size_t)k * es, es) == 0;
            }
            if (!good) {
                fprintf(stderr, "%s [%s]: output %s element %lld differs\n", c, tag, name,
                        (long long)k);
                return 0;
            }
        }
    }
    return 1;
}

const ir_node *
helpers_find_op(const ir_graph *g, ir_op op, int nth)
{
    int i;
    for (i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->op == op && nth-- == 0)
            return g->nodes[i];
    return NULL;
}

/* Case c through sw (see helpers_every_fixture); 1 when every output matches. */
static int
case_through(const char *c, helpers_sweep *sw)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, c, NULL);
    const void *inputs[64] = {0};
    void *outputs[64] = {0};
    pass_ctx cx;
    ir_graph *g = helpers_prepare_case(a, c, d, inputs);
    const char *dis[1];
    int i, ok;

    if (!g) {
        fprintf(stderr, "%s: %s", c, diag_text(d));
        arena_free(a);
        return 0;
    }
    memset(&cx, 0, sizeof cx);
    cx.t = sw->target ? target_find(sw->target) : NULL;
    if (sw->disable) {
        dis[0] = sw->disable;
        cx.disable = dis;
        cx.n_disable = 1;
    }
    if (pass_run_list(g, sw->passes, &cx, d) < 0 || ir_eval(a, g, inputs, outputs, d) < 0) {
        fprintf(stderr, "%s: %s", c, diag_text(d));
        arena_free(a);
        return 0;
    }
    for (i = 0; sw->count && i < g->n_nodes; i++)
        if (!g->nodes[i]->dead)
            sw->n_counted += sw->count(g->nodes[i]);
    ok = helpers_outputs_match(a, c, g, outputs, sw->passes);
    arena_free(a);
    return ok;
}

int
helpers_every_fixture(helpers_sweep *sw, int *bad)
{
    FILE *f = fopen(HELPERS_FIXTURES "/index.txt", "r");
    char line[256];
    int n = 0;

    *bad = 0;
    cr_assert_not_null(f);
    while (fgets(line, sizeof line, f)) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (!line[0])
            continue;
        n++;
        if (!case_through(line, sw))
            (*bad)++;
    }
    fclose(f);
    return n;
}

float
helpers_frand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

float *
helpers_rand_vec(size_t n, unsigned *s, float scale)
{
    float *v = malloc((n ? n : 1) * sizeof *v);
    size_t i;
    cr_assert_not_null(v);
    for (i = 0; i < n; i++)
        v[i] = scale * helpers_frand(s);
    return v;
}

void *
helpers_llvm_so(struct kprog *kp, const char *work, const char *tag, const struct target *t, int nt,
                const char *extra, unsigned char *handled)
{
    char dir[512], cmd[2048];
    arena *a = arena_new(0);
    diag *d = diag_new(a, "test", stderr);
    cg_options o;
    void *h;
    int n;

    mkdir(work, 0777);
    snprintf(dir, sizeof dir, "%s/%s", work, tag);
    mkdir(dir, 0777);
    memset(&o, 0, sizeof o);
    o.name = "t";
    o.outdir = dir;
    o.target = t ? t->name : "host";
    o.t = t;
    o.llvm = 1;
    o.threads = nt;
    n = cg_llvm_kernels(ir_graph_new(a, "t", "t"), kp, &o, handled, d);
    cr_assert(n == kp->n_calls, "%s: cg_llvm_kernels: %d of %d kernels", tag, n, kp->n_calls);
    if (nt > 1) /* t.so's own pool, with threads (the generated Makefile's -DLSTMC_RT_THREADS) */
        snprintf(cmd, sizeof cmd,
                 "cc -shared -fPIC -O2 -DLSTMC_RT_THREADS -I" LSTMC_SOURCE_DIR
                 "/runtime/include -o %s/t.so %s/t_kernels.o " LSTMC_SOURCE_DIR
                 "/runtime/src/rt_pool.c -lpthread %s",
                 dir, dir, extra ? extra : "");
    else
        snprintf(cmd, sizeof cmd, "cc -shared -o %s/t.so %s/t_kernels.o %s", dir, dir,
                 extra ? extra : "");
    cr_assert(system(cmd) == 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "%s/t.so", dir);
    h = dlopen(cmd, RTLD_NOW | RTLD_LOCAL);
    cr_assert(h, "dlopen: %s", dlerror());
    if (nt > 1) {
        int (*start)(int) = (int (*)(int))dlsym(h, "lstmc_rt_pool_start");
        cr_assert(start, "lstmc_rt_pool_start");
        cr_assert_eq(start(nt), nt, "the pool's threads");
    }
    arena_free(a);
    return h;
}
