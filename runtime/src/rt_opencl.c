/*
 * rt_opencl.c — OpenCL host runtime (contract in lstmc_rt_opencl.h): device choice,
 * program build with an optional binary cache, buffers allocated once, status mapping.
 *
 * Compiled only into libraries generated for a GPU target (their Makefile defines
 * LSTMC_RT_OPENCL); the guard keeps it out of any build that takes every runtime source.
 */
#ifdef LSTMC_RT_OPENCL

#include "lstmc_rt_opencl.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES   32

/* Copy s into cl->log (truncated), for the caller to show. */
static void
set_log(lstmc_rt_ocl *cl, const char *s)
{
    size_t n = strlen(s);
    if (n >= sizeof cl->log)
        n = sizeof cl->log - 1;
    memcpy(cl->log, s, n);
    cl->log[n] = '\0';
}

lstmc_rt_status
lstmc_rt_ocl_status(cl_int err)
{
    switch (err) {
    case CL_SUCCESS:
        return LSTMC_RT_OK;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case -1001: /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no platform */
        return LSTMC_RT_ERR_NO_DEVICE;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILER_NOT_AVAILABLE:
    case CL_INVALID_BUILD_OPTIONS:
        return LSTMC_RT_ERR_DEVICE_BUILD;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_INVALID_BUFFER_SIZE:
        return LSTMC_RT_ERR_DEVICE_MEMORY;
    default:
        return LSTMC_RT_ERR_DEVICE;
    }
}

/* A non-negative index from the environment variable name, -1 when unset; -2 when set
 * to something that is not an index. */
static int
env_index(const char *name)
{
    const char *v = getenv(name);
    char *end;
    long x;
    if (!v || !*v)
        return -1;
    x = strtol(v, &end, 10);
    if (*end || x < 0 || x > 1000)
        return -2;
    return (int)x;
}

static cl_device_type
device_type(const char *s)
{
    if (!s)
        return CL_DEVICE_TYPE_ALL;
    if (strcmp(s, "gpu") == 0)
        return CL_DEVICE_TYPE_GPU;
    if (strcmp(s, "cpu") == 0)
        return CL_DEVICE_TYPE_CPU;
    if (strcmp(s, "accelerator") == 0)
        return CL_DEVICE_TYPE_ACCELERATOR;
    return CL_DEVICE_TYPE_ALL;
}

/* The first device of type on platform p; 0 when it has none. */
static int
first_device(cl_platform_id p, cl_device_type type, cl_device_id *dev)
{
    cl_uint n = 0;
    return clGetDeviceIDs(p, type, 1, dev, &n) == CL_SUCCESS && n > 0;
}

static lstmc_rt_status
choose_device(lstmc_rt_ocl *cl, const lstmc_rt_ocl_config *cfg)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint n_plat = 0, i;
    int want_p = env_index("LSTMC_OCL_PLATFORM"), want_d = env_index("LSTMC_OCL_DEVICE");
    cl_device_type type = device_type(cfg->device_type);

    if (want_p == -2 || want_d == -2) {
        set_log(cl, "LSTMC_OCL_PLATFORM / LSTMC_OCL_DEVICE must be indices (0, 1, ...)");
        return LSTMC_RT_ERR_NO_DEVICE;
    }
    cl->err = clGetPlatformIDs(MAX_PLATFORMS, plats, &n_plat);
    if (cl->err != CL_SUCCESS || n_plat == 0) {
        set_log(cl, "no OpenCL platform (is an ICD such as pocl-opencl-icd installed?)");
        return LSTMC_RT_ERR_NO_DEVICE;
    }
    if (want_p >= (int)n_plat) {
        set_log(cl, "LSTMC_OCL_PLATFORM names a platform that does not exist");
        return LSTMC_RT_ERR_NO_DEVICE;
    }
    if (want_d >= 0) { /* an explicit device: any kind, on the platform asked (or 0) */
        cl_device_id devs[MAX_DEVICES];
        cl_uint n_dev = 0;
        cl->platform = plats[want_p >= 0 ? want_p : 0];
        cl->err = clGetDeviceIDs(cl->platform, CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &n_dev);
        if (cl->err != CL_SUCCESS || want_d >= (int)n_dev) {
            set_log(cl, "LSTMC_OCL_DEVICE names a device that does not exist");
            return LSTMC_RT_ERR_NO_DEVICE;
        }
        cl->device = devs[want_d];
        return LSTMC_RT_OK;
    }
    /* the profile's kind first, on the asked platform or any; then any kind */
    for (i = 0; i < n_plat; i++) {
        if (want_p >= 0 && (int)i != want_p)
            continue;
        if (first_device(plats[i], type, &cl->device)) {
            cl->platform = plats[i];
            return LSTMC_RT_OK;
        }
    }
    for (i = 0; i < n_plat; i++) {
        if (want_p >= 0 && (int)i != want_p)
            continue;
        if (first_device(plats[i], CL_DEVICE_TYPE_ALL, &cl->device)) {
            cl->platform = plats[i];
            return LSTMC_RT_OK;
        }
    }
    set_log(cl, "no OpenCL device on any platform");
    return LSTMC_RT_ERR_NO_DEVICE;
}

/* The build log into cl->log (an explanation when it does not fit). */
static void
keep_build_log(lstmc_rt_ocl *cl)
{
    size_t n = 0;
    if (clGetProgramBuildInfo(cl->program, cl->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) !=
        CL_SUCCESS) {
        set_log(cl, "(no build log)");
        return;
    }
    if (n > sizeof cl->log) {
        set_log(cl, "(the build log is longer than LSTMC_RT_OCL_LOG bytes)");
        return;
    }
    if (clGetProgramBuildInfo(cl->program, cl->device, CL_PROGRAM_BUILD_LOG, sizeof cl->log,
                              cl->log, NULL) != CL_SUCCESS)
        set_log(cl, "(no build log)");
    cl->log[sizeof cl->log - 1] = '\0';
}

/* Try the cached binary; 1 when the program was built from it. */
static int
build_from_binary(lstmc_rt_ocl *cl, const lstmc_rt_ocl_config *cfg)
{
    const unsigned char *bin = cfg->binary;
    size_t len;
    cl_int st = CL_SUCCESS, e = CL_SUCCESS;
    if (!cfg->binary || !cfg->binary_len || *cfg->binary_len == 0 ||
        *cfg->binary_len > cfg->binary_cap)
        return 0;
    len = *cfg->binary_len;
    cl->program = clCreateProgramWithBinary(cl->context, 1, &cl->device, &len, &bin, &st, &e);
    if (!cl->program || e != CL_SUCCESS || st != CL_SUCCESS) {
        if (cl->program)
            clReleaseProgram(cl->program);
        cl->program = NULL;
        return 0;
    }
    if (clBuildProgram(cl->program, 1, &cl->device, cfg->build_options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(cl->program);
        cl->program = NULL;
        return 0;
    }
    return 1;
}

/* After a build from source: the binary into the caller's cache when it fits. */
static void
store_binary(lstmc_rt_ocl *cl, const lstmc_rt_ocl_config *cfg)
{
    size_t n = 0;
    unsigned char *dst = cfg->binary;
    if (!cfg->binary || !cfg->binary_len)
        return;
    *cfg->binary_len = 0;
    if (clGetProgramInfo(cl->program, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL) != CL_SUCCESS ||
        n == 0 || n > cfg->binary_cap)
        return;
    if (clGetProgramInfo(cl->program, CL_PROGRAM_BINARIES, sizeof dst, &dst, NULL) == CL_SUCCESS)
        *cfg->binary_len = n;
}

static lstmc_rt_status
build(lstmc_rt_ocl *cl, const lstmc_rt_ocl_config *cfg)
{
    if (build_from_binary(cl, cfg)) {
        cl->from_binary = 1;
        return LSTMC_RT_OK;
    }
    cl->program = clCreateProgramWithSource(cl->context, cfg->n_sources,
                                            (const char **)cfg->sources, NULL, &cl->err);
    if (!cl->program || cl->err != CL_SUCCESS) {
        set_log(cl, "clCreateProgramWithSource failed");
        cl->program = NULL;
        return lstmc_rt_ocl_status(cl->err);
    }
    cl->err = clBuildProgram(cl->program, 1, &cl->device, cfg->build_options, NULL, NULL);
    if (cl->err != CL_SUCCESS) {
        keep_build_log(cl);
        return LSTMC_RT_ERR_DEVICE_BUILD;
    }
    store_binary(cl, cfg);
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_ocl_open(lstmc_rt_ocl *cl, const lstmc_rt_ocl_config *cfg)
{
    lstmc_rt_status st;
    if (!cl || !cfg || !cfg->sources || cfg->n_sources == 0)
        return LSTMC_RT_ERR_NULL;
    memset(cl, 0, sizeof *cl);
    st = choose_device(cl, cfg);
    if (st != LSTMC_RT_OK)
        return st;
    if (clGetDeviceInfo(cl->device, CL_DEVICE_NAME, sizeof cl->device_name - 1, cl->device_name,
                        NULL) != CL_SUCCESS)
        cl->device_name[0] = '\0';
    cl->context = clCreateContext(NULL, 1, &cl->device, NULL, NULL, &cl->err);
    if (!cl->context || cl->err != CL_SUCCESS) {
        set_log(cl, "clCreateContext failed");
        cl->context = NULL;
        st = lstmc_rt_ocl_status(cl->err);
        return st == LSTMC_RT_OK ? LSTMC_RT_ERR_DEVICE : st;
    }
    cl->queue = clCreateCommandQueue(cl->context, cl->device, 0, &cl->err);
    if (!cl->queue || cl->err != CL_SUCCESS) {
        set_log(cl, "clCreateCommandQueue failed");
        cl->queue = NULL;
        lstmc_rt_ocl_close(cl);
        return LSTMC_RT_ERR_DEVICE;
    }
    st = build(cl, cfg);
    if (st != LSTMC_RT_OK) {
        /* keep the log and the error across close */
        cl_int err = cl->err;
        if (cl->program)
            clReleaseProgram(cl->program);
        cl->program = NULL;
        clReleaseCommandQueue(cl->queue);
        clReleaseContext(cl->context);
        cl->queue = NULL;
        cl->context = NULL;
        cl->err = err;
        return st;
    }
    return LSTMC_RT_OK;
}

lstmc_rt_status
lstmc_rt_ocl_buffer(lstmc_rt_ocl *cl, size_t bytes, cl_mem *out)
{
    cl_ulong max_alloc = 0;
    if (!cl || !out || !cl->context)
        return LSTMC_RT_ERR_NULL;
    *out = NULL;
    if (cl->n_buffers >= LSTMC_RT_OCL_MAX_BUFFERS)
        return LSTMC_RT_ERR_BAD_PARAMS;
    if (bytes < 4)
        bytes = 4;
    /* refuse up front what the device says it cannot allocate: a clear status rather than
     * a failure at the first enqueue */
    if (clGetDeviceInfo(cl->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc,
                        NULL) == CL_SUCCESS &&
        max_alloc > 0 && (cl_ulong)bytes > max_alloc) {
        set_log(cl, "a buffer is larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE");
        return LSTMC_RT_ERR_DEVICE_MEMORY;
    }
    *out = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes, NULL, &cl->err);
    if (!*out || cl->err != CL_SUCCESS) {
        lstmc_rt_status st = lstmc_rt_ocl_status(cl->err);
        *out = NULL;
        set_log(cl, "clCreateBuffer failed");
        return st == LSTMC_RT_OK || st == LSTMC_RT_ERR_DEVICE ? LSTMC_RT_ERR_DEVICE_MEMORY : st;
    }
    cl->buffers[cl->n_buffers++] = *out;
    return LSTMC_RT_OK;
}

void
lstmc_rt_ocl_close(lstmc_rt_ocl *cl)
{
    int i;
    if (!cl)
        return;
    if (cl->queue)
        clFinish(cl->queue);
    for (i = 0; i < cl->n_buffers; i++)
        if (cl->buffers[i])
            clReleaseMemObject(cl->buffers[i]);
    cl->n_buffers = 0;
    if (cl->program)
        clReleaseProgram(cl->program);
    if (cl->queue)
        clReleaseCommandQueue(cl->queue);
    if (cl->context)
        clReleaseContext(cl->context);
    cl->program = NULL;
    cl->queue = NULL;
    cl->context = NULL;
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int lstmc_rt_opencl_unused;
#endif /* LSTMC_RT_OPENCL */
