/*
 * test_opencl.c — the OpenCL path (issue 7): the host runtime rt_opencl.c on PoCL (device
 * choice and its override, build failure with the log, binary cache, out-of-memory
 * status) and the kernels lstmc generates for tegra-x1 (sized from its profile, and
 * building on a real OpenCL compiler). The fixtures' numbers on PoCL are checked end to
 * end (tests/e2e, e2e_pocl_*).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "codegen.h"
#include "diag.h"
#include "driver.h"
#include "helpers.h"

#ifdef LSTMC_RT_OPENCL /* the build found libOpenCL */
#include "lstmc_rt_opencl.h"

static const char *const good_src[] = {
    "__kernel void twice(__global float *x)\n",
    "{\n    x[get_global_id(0)] *= 2.0f;\n}\n",
};

static void
pocl_env(void)
{
    setenv("POCL_CACHE_DIR", LSTMC_BINARY_DIR "/pocl-cache", 1);
    unsetenv("LSTMC_OCL_PLATFORM");
    unsetenv("LSTMC_OCL_DEVICE");
}

static lstmc_rt_ocl_config
config(const char *const *src, cl_uint n)
{
    lstmc_rt_ocl_config c;
    memset(&c, 0, sizeof c);
    c.device_type = "cpu";
    c.sources = src;
    c.n_sources = n;
    return c;
}

/* A kernel of the program runs and computes what it should: x * 2. */
static void
check_twice(lstmc_rt_ocl *cl)
{
    float x[4] = {1, -2, 3.5f, 0}, y[4];
    cl_mem m;
    cl_int e;
    size_t g = 4;
    cl_kernel k = clCreateKernel(cl->program, "twice", &e);
    cr_assert_eq(e, CL_SUCCESS);
    cr_assert_eq(lstmc_rt_ocl_buffer(cl, sizeof x, &m), LSTMC_RT_OK);
    cr_assert_eq(clEnqueueWriteBuffer(cl->queue, m, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL),
                 CL_SUCCESS);
    cr_assert_eq(clSetKernelArg(k, 0, sizeof m, &m), CL_SUCCESS);
    cr_assert_eq(clEnqueueNDRangeKernel(cl->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL),
                 CL_SUCCESS);
    cr_assert_eq(clEnqueueReadBuffer(cl->queue, m, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL),
                 CL_SUCCESS);
    cr_assert(y[0] == 2.0f && y[1] == -4.0f && y[2] == 7.0f && y[3] == 0.0f);
    clReleaseKernel(k);
}

Test(opencl, open_run_and_binary_cache)
{
    static unsigned char bin[1 << 20];
    size_t len = 0;
    lstmc_rt_ocl cl;
    lstmc_rt_ocl_config c = config(good_src, 2);
    pocl_env();
    c.binary = bin;
    c.binary_cap = sizeof bin;
    c.binary_len = &len;
    cr_assert_eq(lstmc_rt_ocl_open(&cl, &c), LSTMC_RT_OK, "%s", cl.log);
    cr_assert_neq(cl.device_name[0], '\0');
    cr_assert_eq(cl.from_binary, 0);
    cr_assert_gt(len, 0, "the binary was not stored in the cache");
    check_twice(&cl);
    lstmc_rt_ocl_close(&cl);
    lstmc_rt_ocl_close(&cl); /* twice is harmless */

    /* second open: from the cached binary, and it still computes */
    cr_assert_eq(lstmc_rt_ocl_open(&cl, &c), LSTMC_RT_OK, "%s", cl.log);
    cr_assert_eq(cl.from_binary, 1);
    check_twice(&cl);
    lstmc_rt_ocl_close(&cl);

    /* a corrupt cache falls back to the source */
    memset(bin, 0x5a, 64);
    len = 64;
    cr_assert_eq(lstmc_rt_ocl_open(&cl, &c), LSTMC_RT_OK, "%s", cl.log);
    cr_assert_eq(cl.from_binary, 0);
    check_twice(&cl);
    lstmc_rt_ocl_close(&cl);
}

Test(opencl, build_failure_keeps_the_log)
{
    static const char *const bad[] = {"__kernel void f(__global float *x) { x[0] = y; }\n"};
    lstmc_rt_ocl cl;
    lstmc_rt_ocl_config c = config(bad, 1);
    pocl_env();
    cr_assert_eq(lstmc_rt_ocl_open(&cl, &c), LSTMC_RT_ERR_DEVICE_BUILD);
    cr_assert(strstr(cl.log, "y") != NULL, "build log: %s", cl.log);
    cr_assert_null(cl.context); /* released */
    lstmc_rt_ocl_close(&cl);
}

Test(opencl, no_device)
{
    lstmc_rt_ocl cl;
    lstmc_rt_ocl_config c = config(good_src, 2);
    pocl_env();
    setenv("LSTMC_OCL_PLATFORM", "7", 1);
    cr_assert_eq(lstmc_rt_ocl_open(&cl, &c), LSTMC_RT_ERR_NO_DEVICE);
    cr_assert(strstr(cl.log, "LSTMC_OCL_PLATFORM") != NULL);
    setenv("LSTMC_OCL_PLATFORM", "zero", 1);
    cr_assert_eq(lstmc_rt_ocl_open(&cl, &c), LSTMC_RT_ERR_NO_DEVICE);
    unsetenv("LSTMC_OCL_PLATFORM");
    setenv("LSTMC_OCL_DEVICE", "31", 1);
    cr_assert_eq(lstmc_rt_ocl_open(&cl, &c), LSTMC_RT_ERR_NO_DEVICE);
    setenv("LSTMC_OCL_DEVICE", "0", 1); /* the explicit device 0 exists */
    cr_assert_eq(lstmc_rt_ocl_open(&cl, &c), LSTMC_RT_OK, "%s", cl.log);
    lstmc_rt_ocl_close(&cl);
    unsetenv("LSTMC_OCL_DEVICE");
    cr_assert_eq(lstmc_rt_ocl_open(NULL, &c), LSTMC_RT_ERR_NULL);
    cr_assert_eq(lstmc_rt_ocl_status(-1001), LSTMC_RT_ERR_NO_DEVICE);
    cr_assert_eq(lstmc_rt_ocl_status(CL_MEM_OBJECT_ALLOCATION_FAILURE), LSTMC_RT_ERR_DEVICE_MEMORY);
    cr_assert_str_eq(lstmc_rt_status_str(LSTMC_RT_ERR_NO_DEVICE), "no OpenCL device");
}

Test(opencl, out_of_device_memory)
{
    lstmc_rt_ocl cl;
    cl_mem m;
    lstmc_rt_ocl_config c = config(good_src, 2);
    pocl_env();
    cr_assert_eq(lstmc_rt_ocl_open(&cl, &c), LSTMC_RT_OK, "%s", cl.log);
    cr_assert_eq(lstmc_rt_ocl_buffer(&cl, (size_t)1 << 62, &m), LSTMC_RT_ERR_DEVICE_MEMORY);
    cr_assert_null(m);
    lstmc_rt_ocl_close(&cl);
}

/* Read the whole file at path into a (NUL-terminated); NULL when unreadable. */
static char *
slurp(arena *a, const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *buf;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = arena_alloc(a, (size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        buf = NULL;
    else
        buf[n] = '\0';
    fclose(f);
    return buf;
}

/* tegra-x1: kernels sized from its profile (work-group 128, 2 SMs) that a real OpenCL C
 * compiler accepts, embedded in the host code too. */
Test(opencl, tegra_x1_kernels_build)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, NULL, stderr);
    driver_options o;
    char dir[512], path[600];
    const char *src[1];
    char *cl_text, *host;
    lstmc_rt_ocl cl;
    lstmc_rt_ocl_config c;
    pocl_env();
    memset(&o, 0, sizeof o);
    snprintf(dir, sizeof dir, "%s/test_opencl_tx1", LSTMC_BINARY_DIR);
    o.model = HELPERS_FIXTURES "/lstm_bidir_peephole_seqlens/model.onnx";
    o.target = "tegra-x1";
    o.outdir = dir;
    o.name = "tx1";
    o.emit = "c";
    cr_assert_eq(driver_compile(a, &o, d), 0);
    snprintf(path, sizeof path, "%s/tx1.cl", dir);
    cl_text = slurp(a, path);
    cr_assert_not_null(cl_text);
    cr_assert(strstr(cl_text, "#define LW 128") != NULL, "work-group not from the profile");
    cr_assert(strstr(cl_text, "#define TS 8") != NULL); /* 8x8 <= 128 < 16x16 */
    cr_assert(strstr(cl_text, "reqd_work_group_size(TS, TS, 1)") != NULL);
    cr_assert(strstr(cl_text, "#define HAS_PEEP 1") != NULL);
    cr_assert(strstr(cl_text, "#define HAS_SEQ 1") != NULL);
    snprintf(path, sizeof path, "%s/tx1_ocl.c", dir);
    host = slurp(a, path);
    cr_assert_not_null(host);
    cr_assert(strstr(host, "static const char *const ocl_source[]") != NULL);
    cr_assert(strstr(host, "\"gpu\"") != NULL); /* the profile's device kind */
    cr_assert(strstr(host, "malloc(") == NULL && strstr(host, "free(") == NULL);

    src[0] = cl_text;
    c = config(src, 1);
    cr_assert_eq(lstmc_rt_ocl_open(&cl, &c), LSTMC_RT_OK, "build log:\n%s", cl.log);
    lstmc_rt_ocl_close(&cl);
    arena_free(a);
}

/* A profile without a GPU emits no OpenCL; pocl and tegra-x1 do. */
Test(opencl, wanted_by_profile)
{
    cr_assert(cg_backend_resolve("pocl", NULL, 0, NULL)->gpu);
    cr_assert(cg_backend_resolve("tegra-x1", NULL, 0, NULL)->gpu);
    cr_assert_not(cg_backend_resolve("host", NULL, 0, NULL)->gpu);
    cr_assert_not(cg_backend_resolve("no-such-target", NULL, 0, NULL)->gpu);
}

#endif /* LSTMC_RT_OPENCL */
