/*
 * profile.c — `lstmc profile`: measure a device and write a target profile (issue 7).
 *
 *   lstmc profile --device=opencl[:N]|cpu [--hidden=128,256] [--max-tissue=16]
 *                 [--reps=15] [--name=NAME] -o board.json [--plot=sweep.svg]
 *                 [--search [--budget=180] [--resume]]          (cpu only)
 *
 * For every hidden size H it times the tissue GEMM of MICRO'18 §IV-C: k cells' h vectors
 * [k, H] times U [H, 4H], for k = 1..max, and normalises it the way Fig. 9 does: the speed-
 * up of one layer, k * t(1) / t(k) (k cells for the price of t(k) instead of k * t(1)).
 * Fig. 9's curve rises while U is re-read from on-chip memory by more cells and drops once
 * the on-chip bandwidth saturates; the MTS is its peak. Measured curves are noisy and often
 * flat near the top, so the MTS is the smallest k reaching 97% of the best speed-up.
 * It also measures the off-chip bandwidth (a 64 MiB copy) and the on-chip one (OpenCL:
 * repeated reads of __local memory; CPU: repeated reads of a 16 KiB buffer, L1), prints the
 * sweep as a table, draws it as an SVG, and writes a profile docs/TARGETS.md accepts. It
 * leaves ram_bytes and flash_bytes out (the memory budget is the board's, not a measurement:
 * without them the compile checks nothing) and says so.
 *
 * With --search (issue 23) it then searches the LLVM kernels' parameters on this CPU
 * (ksearch.c) and writes the chosen "kernels" object, with the cpu's cache sizes and cores the
 * shape classes are defined by, into the profile; the search's provenance goes into "summary".
 *
 * OpenCL devices are opened with the generated libraries' runtime (rt_opencl.c), so the
 * device choice and its override are the same; N in opencl:N is LSTMC_OCL_DEVICE.
 */
#include "profile.h"

#include "ksearch.h"
#include "target.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef LSTMC_HAVE_OPENCL
#include "lstmc_rt_opencl.h"
#endif

#define PROF_MAX_H 16
#define PROF_MAX_K 16
#define PROF_BIG   (16 << 20) /* floats of each bandwidth buffer: 64 MiB */

typedef struct prof {
    int opencl;
    int n_hidden;
    long hidden[PROF_MAX_H];
    int max_k, reps;
    const char *out, *plot, *name;
    double ms[PROF_MAX_H][PROF_MAX_K + 1]; /* median ms of the tissue GEMM */
    int mts[PROF_MAX_H];
    double dram_gbps, chip_gbps;
    double launch_us, gflops, cpu_gflops; /* the cost-model policy's inputs */
    char device[128], kind[16];
    long cu, mhz, local_bytes, wg;
    int search; /* --search: the kernel parameters (ksearch.c) */
    ks_options ks;
    ks_result kres;
} prof;

static double
now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int
cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[n / 2];
}

/* Deterministic fill in [-1, 1). */
static void
fill(float *x, long n, unsigned seed)
{
    long i;
    for (i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

/* --- CPU ---------------------------------------------------------------------------- */

/* out[k][g] = sum_j h[k][j] * U[j][g]: U read once per tissue, each row reused k times. */
static void
cpu_tissue(int k, long H, const float *h, const float *U, float *out)
{
    long G = 4 * H, j, g;
    int r;
    memset(out, 0, sizeof *out * (size_t)(k * G));
    for (j = 0; j < H; j++) {
        const float *u = U + j * G;
        for (r = 0; r < k; r++) {
            const float hv = h[r * H + j];
            float *o = out + r * G;
            for (g = 0; g < G; g++)
                o[g] += hv * u[g];
        }
    }
}

static volatile float prof_sink;

static int
cpu_measure(prof *P)
{
    int i, k, r;
    float *big = malloc(sizeof(float) * PROF_BIG * 2);
    double t[64];
    if (!big) {
        fprintf(stderr, "lstmc profile: out of memory\n");
        return -1;
    }
    snprintf(P->device, sizeof P->device, "host CPU");
    snprintf(P->kind, sizeof P->kind, "cpu");
    for (i = 0; i < P->n_hidden; i++) {
        long H = P->hidden[i];
        float *U = malloc(sizeof(float) * (size_t)(4 * H * H));
        float *h = malloc(sizeof(float) * (size_t)(P->max_k * H));
        float *o = malloc(sizeof(float) * (size_t)(P->max_k * 4 * H));
        if (!U || !h || !o) {
            free(U), free(h), free(o), free(big);
            fprintf(stderr, "lstmc profile: out of memory\n");
            return -1;
        }
        fill(U, 4 * H * H, 1);
        fill(h, P->max_k * H, 2);
        for (k = 1; k <= P->max_k; k++) {
            cpu_tissue(k, H, h, U, o); /* warm */
            for (r = 0; r < P->reps; r++) {
                double t0 = now_ms();
                cpu_tissue(k, H, h, U, o);
                t[r] = now_ms() - t0;
            }
            prof_sink = o[0];
            P->ms[i][k] = median(t, P->reps);
        }
        free(U), free(h), free(o);
    }
    /* off-chip: a 64 MiB copy, read + write */
    fill(big, PROF_BIG, 3);
    for (r = 0; r < 5; r++) {
        double t0 = now_ms();
        memcpy(big + PROF_BIG, big, sizeof(float) * PROF_BIG);
        t[r] = now_ms() - t0;
    }
    prof_sink = big[PROF_BIG + 7];
    P->dram_gbps = 2.0 * sizeof(float) * PROF_BIG / (median(t, 5) * 1e6);
    /* on-chip: 4096 floats (16 KiB, L1) read 2048 times */
    for (r = 0; r < 5; r++) {
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        int rep, q;
        double t0 = now_ms();
        for (rep = 0; rep < 2048; rep++)
            for (q = 0; q < 4096; q += 4) {
                s0 += big[q], s1 += big[q + 1], s2 += big[q + 2], s3 += big[q + 3];
            }
        t[r] = now_ms() - t0;
        prof_sink = s0 + s1 + s2 + s3;
    }
    P->chip_gbps = 2048.0 * 4096 * sizeof(float) / (median(t, 5) * 1e6);
    free(big);
    return 0;
}

/* --- OpenCL ------------------------------------------------------------------------- */

#ifdef LSTMC_HAVE_OPENCL
/* Tissue kernels for k = 1..16 (k a constant: acc[] in registers), the tissue's h staged
 * in __local memory tile by tile, one U column per work-item; and the two bandwidth
 * kernels. */
static const char *const prof_src[] = {
    "#define TILE 64\n",
    "#define TISSUE(K) \\\n",
    "__kernel void tissue_##K(__global const float *h, __global const float *U, \\\n",
    "                         __global float *out, const int H) \\\n",
    "{ \\\n",
    "    const int g = get_global_id(0), l = get_local_id(0), L = get_local_size(0); \\\n",
    "    const int G4 = 4 * H; \\\n",
    "    __local float hs[K * TILE]; \\\n",
    "    float acc[K]; \\\n",
    "    for (int r = 0; r < K; r++) acc[r] = 0.0f; \\\n",
    "    for (int k0 = 0; k0 < H; k0 += TILE) { \\\n",
    "        for (int q = l; q < K * TILE; q += L) { \\\n",
    "            const int kk = k0 + q % TILE; \\\n",
    "            hs[q] = kk < H ? h[(q / TILE) * H + kk] : 0.0f; \\\n",
    "        } \\\n",
    "        barrier(CLK_LOCAL_MEM_FENCE); \\\n",
    "        if (g < G4) \\\n",
    "            for (int kk = 0; kk < TILE && k0 + kk < H; kk++) { \\\n",
    "                const float u = U[(k0 + kk) * G4 + g]; \\\n",
    "                for (int r = 0; r < K; r++) acc[r] += hs[r * TILE + kk] * u; \\\n",
    "            } \\\n",
    "        barrier(CLK_LOCAL_MEM_FENCE); \\\n",
    "    } \\\n",
    "    if (g < G4) for (int r = 0; r < K; r++) out[r * G4 + g] = acc[r]; \\\n",
    "}\n",
    "TISSUE(1) TISSUE(2) TISSUE(3) TISSUE(4) TISSUE(5) TISSUE(6) TISSUE(7) TISSUE(8)\n",
    "TISSUE(9) TISSUE(10) TISSUE(11) TISSUE(12) TISSUE(13) TISSUE(14) TISSUE(15) TISSUE(16)\n",
    "__kernel void empty(__global float *a)\n{\n    (void)a;\n}\n",
    "__kernel void copy(__global const float4 *a, __global float4 *b)\n",
    "{\n    b[get_global_id(0)] = a[get_global_id(0)];\n}\n",
    "__kernel void local_read(__global const float *a, __global float *out)\n",
    "{\n",
    "    __local float s[1024];\n",
    "    const int l = get_local_id(0), L = get_local_size(0);\n",
    "    for (int q = l; q < 1024; q += L) s[q] = a[q];\n",
    "    barrier(CLK_LOCAL_MEM_FENCE);\n",
    "    float acc = 0.0f;\n",
    "    for (int i = 0; i < 1024; i++) acc += s[(l + i) & 1023];\n",
    "    out[get_global_id(0)] = acc;\n",
    "}\n",
};

/* Median ms of reps launches of k (each finished before the next starts). */
static double
time_kernel(lstmc_rt_ocl *cl, cl_kernel k, size_t global, size_t local, int reps, cl_int *e)
{
    double t[64];
    int r;
    if (*e == CL_SUCCESS) /* warm-up: PoCL compiles the kernel at its first launch */
        *e = clEnqueueNDRangeKernel(cl->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
    if (*e == CL_SUCCESS)
        *e = clFinish(cl->queue);
    for (r = 0; r < reps && *e == CL_SUCCESS; r++) {
        double t0 = now_ms();
        *e = clEnqueueNDRangeKernel(cl->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
        if (*e == CL_SUCCESS)
            *e = clFinish(cl->queue);
        t[r] = now_ms() - t0;
    }
    return *e == CL_SUCCESS ? median(t, reps) : 0.0;
}

static size_t
round_up(size_t x, size_t m)
{
    return (x + m - 1) / m * m;
}

static int
ocl_measure(prof *P)
{
    lstmc_rt_ocl cl;
    lstmc_rt_ocl_config cfg;
    lstmc_rt_status st;
    cl_mem hb, ub, ob, big1, big2;
    cl_int e = CL_SUCCESS;
    cl_device_type type = 0;
    cl_uint cu = 0, mhz = 0;
    cl_ulong lmem = 0;
    size_t maxwg = 0, wg;
    long maxH = 0;
    float *buf;
    int i, k, rc = -1;

    memset(&cfg, 0, sizeof cfg);
    cfg.device_type = NULL; /* any: --device=opencl:N or LSTMC_OCL_* choose */
    cfg.sources = prof_src;
    cfg.n_sources = (cl_uint)(sizeof prof_src / sizeof prof_src[0]);
    st = lstmc_rt_ocl_open(&cl, &cfg);
    if (st != LSTMC_RT_OK) {
        fprintf(stderr, "lstmc profile: %s: %s\n", lstmc_rt_status_str(st), cl.log);
        return -1;
    }
    clGetDeviceInfo(cl.device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(cl.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    clGetDeviceInfo(cl.device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
    clGetDeviceInfo(cl.device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
    clGetDeviceInfo(cl.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxwg, &maxwg, NULL);
    snprintf(P->device, sizeof P->device, "%s", cl.device_name);
    snprintf(P->kind, sizeof P->kind, "%s",
             (type & CL_DEVICE_TYPE_GPU)   ? "gpu"
             : (type & CL_DEVICE_TYPE_CPU) ? "cpu"
                                           : "accelerator");
    wg = maxwg >= 128 ? 128 : maxwg >= 64 ? 64 : maxwg > 0 ? maxwg : 1;
    P->cu = (long)cu, P->mhz = (long)mhz, P->local_bytes = (long)lmem, P->wg = (long)wg;
    for (i = 0; i < P->n_hidden; i++)
        if (P->hidden[i] > maxH)
            maxH = P->hidden[i];
    buf = malloc(sizeof(float) * (size_t)(4 * maxH * maxH + 16));
    if (!buf) {
        lstmc_rt_ocl_close(&cl);
        fprintf(stderr, "lstmc profile: out of memory\n");
        return -1;
    }
    if (lstmc_rt_ocl_buffer(&cl, sizeof(float) * (size_t)(PROF_MAX_K * maxH), &hb) ||
        lstmc_rt_ocl_buffer(&cl, sizeof(float) * (size_t)(4 * maxH * maxH), &ub) ||
        lstmc_rt_ocl_buffer(&cl, sizeof(float) * (size_t)(PROF_MAX_K * 4 * maxH), &ob) ||
        lstmc_rt_ocl_buffer(&cl, sizeof(float) * PROF_BIG, &big1) ||
        lstmc_rt_ocl_buffer(&cl, sizeof(float) * PROF_BIG, &big2)) {
        fprintf(stderr, "lstmc profile: the device cannot hold the test buffers\n");
        goto out;
    }
    fill(buf, 4 * maxH * maxH, 1);
    e = clEnqueueWriteBuffer(cl.queue, ub, CL_TRUE, 0, sizeof(float) * (size_t)(4 * maxH * maxH),
                             buf, 0, NULL, NULL);
    fill(buf, PROF_MAX_K * maxH, 2);
    if (e == CL_SUCCESS)
        e = clEnqueueWriteBuffer(cl.queue, hb, CL_TRUE, 0,
                                 sizeof(float) * (size_t)(PROF_MAX_K * maxH), buf, 0, NULL, NULL);
    for (i = 0; i < P->n_hidden && e == CL_SUCCESS; i++) {
        cl_int H = (cl_int)P->hidden[i];
        for (k = 1; k <= P->max_k && e == CL_SUCCESS; k++) {
            char name[32];
            cl_kernel kern;
            snprintf(name, sizeof name, "tissue_%d", k);
            kern = clCreateKernel(cl.program, name, &e);
            if (e != CL_SUCCESS)
                break;
            e = clSetKernelArg(kern, 0, sizeof hb, &hb);
            e |= clSetKernelArg(kern, 1, sizeof ub, &ub);
            e |= clSetKernelArg(kern, 2, sizeof ob, &ob);
            e |= clSetKernelArg(kern, 3, sizeof H, &H);
            if (e == CL_SUCCESS)
                P->ms[i][k] =
                    time_kernel(&cl, kern, round_up((size_t)(4 * H), wg), wg, P->reps, &e);
            clReleaseKernel(kern);
        }
    }
    if (e == CL_SUCCESS) { /* launch overhead: an empty kernel, enqueue to finish */
        cl_kernel kern = clCreateKernel(cl.program, "empty", &e);
        if (e == CL_SUCCESS) {
            e = clSetKernelArg(kern, 0, sizeof big1, &big1);
            if (e == CL_SUCCESS)
                P->launch_us = 1e3 * time_kernel(&cl, kern, wg, wg, P->reps, &e);
            clReleaseKernel(kern);
        }
    }
    if (e == CL_SUCCESS) { /* off-chip: copy 64 MiB */
        cl_kernel kern = clCreateKernel(cl.program, "copy", &e);
        if (e == CL_SUCCESS) {
            e = clSetKernelArg(kern, 0, sizeof big1, &big1);
            e |= clSetKernelArg(kern, 1, sizeof big2, &big2);
            if (e == CL_SUCCESS)
                P->dram_gbps = 2.0 * sizeof(float) * PROF_BIG /
                               (time_kernel(&cl, kern, PROF_BIG / 4, wg, 5, &e) * 1e6);
            clReleaseKernel(kern);
        }
    }
    if (e == CL_SUCCESS) { /* on-chip: 1024 __local reads per work-item */
        cl_kernel kern = clCreateKernel(cl.program, "local_read", &e);
        size_t items = (size_t)(cu ? cu : 1) * wg * 64;
        if (e == CL_SUCCESS) {
            e = clSetKernelArg(kern, 0, sizeof big1, &big1);
            e |= clSetKernelArg(kern, 1, sizeof big2, &big2);
            if (e == CL_SUCCESS)
                P->chip_gbps = (double)items * 1024 * sizeof(float) /
                               (time_kernel(&cl, kern, items, wg, 5, &e) * 1e6);
            clReleaseKernel(kern);
        }
    }
    if (e != CL_SUCCESS)
        fprintf(stderr, "lstmc profile: OpenCL error %d (%s)\n", (int)e,
                lstmc_rt_status_str(lstmc_rt_ocl_status(e)));
    else
        rc = 0;
out:
    free(buf);
    lstmc_rt_ocl_close(&cl);
    return rc;
}
#endif /* LSTMC_HAVE_OPENCL */

/* --- results ------------------------------------------------------------------------ */

static double
speedup(const prof *P, int i, int k)
{
    return P->ms[i][k] > 0 ? k * P->ms[i][1] / P->ms[i][k] : 0.0;
}

/* The device's rate on the tissue GEMM (2 k H 4H flops) once the launch is paid: the best
 * over the sweep; and one host core's on a single cell (k = 1) at the largest H. */
static void
find_rates(prof *P)
{
    long maxH = 0;
    int i, k, r;
    for (i = 0; i < P->n_hidden; i++)
        for (k = 1; k <= P->max_k; k++) {
            double us = P->ms[i][k] * 1e3 - P->launch_us;
            double fl = 8.0 * k * (double)P->hidden[i] * (double)P->hidden[i];
            if (us > 0 && fl / (us * 1e3) > P->gflops)
                P->gflops = fl / (us * 1e3);
        }
    for (i = 0; i < P->n_hidden; i++)
        maxH = P->hidden[i] > maxH ? P->hidden[i] : maxH;
    {
        float *U = malloc(sizeof(float) * (size_t)(4 * maxH * maxH));
        float *h = malloc(sizeof(float) * (size_t)maxH);
        float *o = malloc(sizeof(float) * (size_t)(4 * maxH));
        double t[64];
        if (U && h && o) {
            fill(U, 4 * maxH * maxH, 1);
            fill(h, maxH, 2);
            cpu_tissue(1, maxH, h, U, o);
            for (r = 0; r < P->reps; r++) {
                double t0 = now_ms();
                cpu_tissue(1, maxH, h, U, o);
                t[r] = now_ms() - t0;
            }
            prof_sink = o[0];
            P->cpu_gflops = 8.0 * (double)maxH * (double)maxH / (median(t, P->reps) * 1e6);
        }
        free(U), free(h), free(o);
    }
}

/* Fig. 9: the MTS is where the layer speed-up peaks; the smallest k within 3% of it. */
static void
find_mts(prof *P)
{
    int i, k;
    for (i = 0; i < P->n_hidden; i++) {
        double best = 0;
        for (k = 1; k <= P->max_k; k++)
            if (speedup(P, i, k) > best)
                best = speedup(P, i, k);
        P->mts[i] = 1;
        for (k = 1; k <= P->max_k; k++)
            if (speedup(P, i, k) >= 0.97 * best) {
                P->mts[i] = k;
                break;
            }
    }
}

static void
print_table(const prof *P)
{
    int i, k;
    printf("device: %s (%s)\noff-chip bandwidth: %.2f GB/s, on-chip: %.2f GB/s\n", P->device,
           P->kind, P->dram_gbps, P->chip_gbps);
    printf("launch overhead: %.1f us, recurrent product: %.2f GFLOP/s on the device, %.2f on "
           "one CPU core\n\n",
           P->launch_us, P->gflops, P->cpu_gflops);
    printf("tissue GEMM [k,H] x [H,4H]: median ms and layer speed-up k*t(1)/t(k)\n\n| k |");
    for (i = 0; i < P->n_hidden; i++)
        printf(" H=%ld ms | speed-up |", P->hidden[i]);
    printf("\n|---|");
    for (i = 0; i < P->n_hidden; i++)
        printf("---|---|");
    printf("\n");
    for (k = 1; k <= P->max_k; k++) {
        printf("| %d |", k);
        for (i = 0; i < P->n_hidden; i++)
            printf(" %.4f | %.2fx%s |", P->ms[i][k], speedup(P, i, k),
                   P->mts[i] == k ? " (MTS)" : "");
        printf("\n");
    }
}

static int
write_svg(const prof *P)
{
    static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                         "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};
    FILE *f = fopen(P->plot, "w");
    double ymax = 1.0;
    int i, k;
    const double x0 = 60, y0 = 330, w = 480, h = 280;
    if (!f) {
        fprintf(stderr, "lstmc profile: cannot write '%s'\n", P->plot);
        return -1;
    }
    for (i = 0; i < P->n_hidden; i++)
        for (k = 1; k <= P->max_k; k++)
            if (speedup(P, i, k) > ymax)
                ymax = speedup(P, i, k);
    ymax = ceil(ymax);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"600\" height=\"400\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"600\" height=\"400\" "
               "fill=\"white\"/>\n");
    fprintf(f,
            "<text x=\"300\" y=\"24\" text-anchor=\"middle\">Layer speed-up vs tissue size "
            "(MICRO'18 Fig. 9): %s</text>\n",
            P->device);
    fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n", x0, y0, x0 + w,
            y0);
    fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"black\"/>\n", x0, y0, x0,
            y0 - h);
    for (k = 1; k <= P->max_k; k++) {
        double x = x0 + w * (k - 1) / (P->max_k > 1 ? P->max_k - 1 : 1);
        fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%d</text>\n", x, y0 + 16, k);
    }
    for (k = 0; k <= (int)ymax; k++)
        fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%dx</text>\n", x0 - 6,
                y0 - h * k / ymax + 4, k);
    fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">tissue size k</text>\n", x0 + w / 2,
            y0 + 34);
    for (i = 0; i < P->n_hidden; i++) {
        const char *c = colour[i % 8];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
        for (k = 1; k <= P->max_k; k++)
            fprintf(f, "%.1f,%.1f ", x0 + w * (k - 1) / (P->max_k > 1 ? P->max_k - 1 : 1),
                    y0 - h * speedup(P, i, k) / ymax);
        fprintf(f, "\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>\n",
                x0 + w * (P->mts[i] - 1) / (P->max_k > 1 ? P->max_k - 1 : 1),
                y0 - h * speedup(P, i, P->mts[i]) / ymax, c);
        fprintf(f, "<text x=\"%g\" y=\"%d\" fill=\"%s\">H=%ld (MTS %d)</text>\n", x0 + w + 4,
                60 + 16 * i, c, P->hidden[i], P->mts[i]);
    }
    fputs("</svg>\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

static int
write_profile(const prof *P)
{
    FILE *f = fopen(P->out, "w");
    int i;
    if (!f) {
        fprintf(stderr, "lstmc profile: cannot write '%s'\n", P->out);
        return -1;
    }
    fprintf(f, "{\n  \"name\": \"%s\",\n  \"summary\": \"measured by lstmc profile on %s", P->name,
            P->opencl ? "an OpenCL device" : "the host CPU");
    if (P->search) { /* provenance of the kernels object */
        char date[32];
        time_t now = time(NULL);
        struct tm tm;
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
        fprintf(f, " (%s); kernels searched %s, budget %.0f s", P->kres.cpu_name, date,
                P->ks.budget_s);
    }
    fprintf(f, "\",\n");
    if (P->opencl) {
        fprintf(f, "  \"gpu\": {\n    \"name\": \"");
        for (i = 0; P->device[i]; i++) /* JSON string: no quotes or controls */
            fputc(P->device[i] == '"' || P->device[i] == '\\' || (unsigned char)P->device[i] < 32
                      ? '_'
                      : P->device[i],
                  f);
        fprintf(f, "\",\n    \"opencl_device\": \"%s\",\n", P->kind);
        if (P->cu >= 1)
            fprintf(f, "    \"compute_units\": %ld,\n", P->cu);
        if (P->mhz >= 1)
            fprintf(f, "    \"clock_mhz\": %ld,\n", P->mhz);
        fprintf(f,
                "    \"shared_mem_bytes\": %ld,\n    \"shared_mem_gbps\": %.2f,\n"
                "    \"dram_gbps\": %.2f,\n    \"work_group\": %ld,\n"
                "    \"launch_us\": %.2f,\n    \"gflops\": %.3f\n  },\n",
                P->local_bytes, P->chip_gbps, P->dram_gbps, P->wg, P->launch_us, P->gflops);
    }
    if (P->search) { /* the caches define the kernels' shape classes */
        fprintf(f,
                "  \"cpu\": {\"gflops\": %.3f, \"cores\": %d, \"l1d_bytes\": %d, \"l2_bytes\": "
                "%lld, \"llc_bytes\": %lld},\n",
                P->cpu_gflops, P->kres.cores, P->kres.l1d, P->kres.l2, P->kres.llc);
        ks_write_kernels(f, &P->kres);
    } else if (P->cpu_gflops > 0) {
        fprintf(f, "  \"cpu\": {\"gflops\": %.3f},\n", P->cpu_gflops);
    }
    fprintf(f, "  \"mts\": {\"default\": %d, \"by_hidden\": {", P->mts[0]);
    for (i = 0; i < P->n_hidden; i++)
        fprintf(f, "%s\"%ld\": %d", i ? ", " : "", P->hidden[i], P->mts[i]);
    fprintf(f, "}},\n  \"passes\": \"split_gates,fold_constants,dce\"\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* --- command line ------------------------------------------------------------------- */

static int
usage(const char *why)
{
    if (why)
        fprintf(stderr, "lstmc profile: %s\n", why);
    fputs("usage: lstmc profile --device=opencl[:N]|cpu [--hidden=128,256] [--max-tissue=16]\n"
          "                     [--reps=15] [--name=NAME] -o PROFILE.json [--plot=SWEEP.svg]\n"
          "                     [--search [--budget=SECONDS] [--resume]]   (--device=cpu only)\n",
          stderr);
    return 2;
}

/* A whole number in [lo, hi] from s; -1 when it is not one. */
static long
number(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    return end != s && !*end && v >= lo && v <= hi ? v : -1;
}

static const char *
value(int argc, char **argv, int *i, const char *opt)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (strcmp(argv[*i], opt) == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

int
profile_main(int argc, char **argv)
{
    static prof P;
    const char *device = NULL, *v;
    int i, budget_set = 0;
    memset(&P, 0, sizeof P);
    P.max_k = 16;
    P.reps = 15;
    P.name = "measured";
    P.n_hidden = 2;
    P.hidden[0] = 128;
    P.hidden[1] = 256;
    P.ks.budget_s = 180;
    P.ks.classes = 15; /* l2, llc, dram and the threads step (ksearch.h KS_MT) */
    for (i = 1; i < argc; i++) {
        if ((v = value(argc, argv, &i, "--device"))) {
            device = v;
        } else if ((v = value(argc, argv, &i, "--hidden"))) {
            char buf[512], *tok, *save = NULL;
            snprintf(buf, sizeof buf, "%s", v);
            P.n_hidden = 0;
            for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                long h = number(tok, 1, 4096);
                if (h < 0 || P.n_hidden >= PROF_MAX_H)
                    return usage("--hidden takes up to 16 sizes from 1 to 4096, comma-separated");
                P.hidden[P.n_hidden++] = h;
            }
            if (P.n_hidden == 0)
                return usage("--hidden takes at least one size");
        } else if ((v = value(argc, argv, &i, "--max-tissue"))) {
            if ((P.max_k = (int)number(v, 1, PROF_MAX_K)) < 0)
                return usage("--max-tissue takes a number from 1 to 16");
        } else if ((v = value(argc, argv, &i, "--reps"))) {
            if ((P.reps = (int)number(v, 1, 63)) < 0)
                return usage("--reps takes a number from 1 to 63");
        } else if ((v = value(argc, argv, &i, "--name"))) {
            P.name = v;
            if (!*v || strlen(v) > 64 || strpbrk(v, "\"\\"))
                return usage("--name takes 1 to 64 characters, no quotes or backslashes");
        } else if ((v = value(argc, argv, &i, "-o"))) {
            P.out = v;
        } else if ((v = value(argc, argv, &i, "--plot"))) {
            P.plot = v;
        } else if (strcmp(argv[i], "--search") == 0) {
            P.search = 1;
        } else if (strcmp(argv[i], "--resume") == 0) {
            P.ks.resume = 1;
        } else if ((v = value(argc, argv, &i, "--budget"))) {
            budget_set = 1;
            if ((P.ks.budget_s = (double)number(v, 1, 86400)) < 0)
                return usage("--budget takes a number of seconds from 1 to 86400");
        } else if ((v = value(argc, argv, &i, "--search-classes"))) {
            /* tests: which shape classes to search, e.g. l2 or l2,llc, and mt the threads */
            char buf[64], *tok, *save = NULL;
            snprintf(buf, sizeof buf, "%s", v);
            P.ks.classes = 0;
            for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                P.ks.classes |= strcmp(tok, "l2") == 0     ? 1u
                                : strcmp(tok, "llc") == 0  ? 2u
                                : strcmp(tok, "dram") == 0 ? 4u
                                : strcmp(tok, "mt") == 0   ? 8u
                                                           : 16u;
            if (!P.ks.classes || (P.ks.classes & 16u))
                return usage("--search-classes takes l2, llc, dram and mt, comma-separated");
        } else {
            fprintf(stderr, "lstmc profile: unknown option '%s'\n", argv[i]);
            return usage(NULL);
        }
    }
    if (!device || !P.out)
        return usage("--device and -o are required");
    if ((P.ks.resume || budget_set || P.ks.classes != 15) && !P.search)
        return usage("--budget, --resume and --search-classes go with --search");
    if (P.search && strcmp(device, "cpu") != 0)
        return usage("--search searches the CPU kernels: it takes --device=cpu");
    P.ks.out = P.out;
    if (strcmp(device, "cpu") == 0) {
        if (cpu_measure(&P) < 0)
            return 1;
    } else if (strncmp(device, "opencl", 6) == 0 && (device[6] == '\0' || device[6] == ':')) {
#ifdef LSTMC_HAVE_OPENCL
        if (device[6] == ':') {
            if (number(device + 7, 0, 1000) < 0)
                return usage("--device=opencl:N takes a device index N >= 0");
            setenv("LSTMC_OCL_DEVICE", device + 7, 1);
        }
        P.opencl = 1;
        if (ocl_measure(&P) < 0)
            return 1;
#else
        fprintf(stderr, "lstmc profile: this lstmc was built without OpenCL "
                        "(apt-get install ocl-icd-opencl-dev)\n");
        return 1;
#endif
    } else {
        return usage("--device takes opencl, opencl:N or cpu");
    }
    find_rates(&P);
    find_mts(&P);
    print_table(&P);
    if (P.search && (i = ks_run(&P.ks, &P.kres)) < 0)
        return i == -2 ? 130 : 1;
    if (write_profile(&P) < 0 || (P.plot && write_svg(&P) < 0))
        return 1;
    /* the profile must be one the compiler accepts */
    if (!target_parse_file(P.out, NULL)) {
        target_forget_files();
        return 1;
    }
    target_forget_files();
    printf("\nwrote %s%s%s\n", P.out, P.plot ? " and " : "", P.plot ? P.plot : "");
    /* speed is measured; how much memory the board gives a model is not (issue 19) */
    printf("%s has no ram_bytes / flash_bytes: add the board's sizes for the compile's memory "
           "budget (docs/TARGETS.md)\n",
           P.out);
    return 0;
}
