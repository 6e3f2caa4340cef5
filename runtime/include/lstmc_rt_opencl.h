/*
 * lstmc_rt_opencl.h — the OpenCL host runtime of GPU targets (--target=pocl, tegra-x1).
 *
 * Only libraries generated for a target with a GPU build runtime/src/rt_opencl.c (their
 * Makefile defines LSTMC_RT_OPENCL and links -lOpenCL through the ICD loader); bare-metal
 * builds never see it. Like the rest of the runtime it never calls malloc (the OpenCL
 * implementation underneath may), never prints and never exits: every failure is a status.
 *
 *   lstmc_rt_ocl cl;                     // caller-owned (the generated code: a static)
 *   lstmc_rt_ocl_config cfg = {...};     // device kind from the target profile, source
 *   st = lstmc_rt_ocl_open(&cl, &cfg);   // device, context, queue, program: once
 *   st = lstmc_rt_ocl_buffer(&cl, bytes, &mem);   // every device buffer: once, at init
 *   ... clSetKernelArg / clEnqueueNDRangeKernel ... lstmc_rt_ocl_status(err)
 *   lstmc_rt_ocl_close(&cl);
 *
 * Device choice: the first device of cfg->device_type ("gpu", "cpu", "accelerator") on the
 * first platform that has one, else the first device of any kind. The environment
 * overrides it: LSTMC_OCL_PLATFORM=P picks platform P (0-based), LSTMC_OCL_DEVICE=D its
 * device D (any kind); an index that does not exist is LSTMC_RT_ERR_NO_DEVICE.
 */
#ifndef LSTMC_RT_OPENCL_H
#define LSTMC_RT_OPENCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include "lstmc_rt.h"

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LSTMC_RT_OCL_LOG         8192 /* bytes kept of a build log / failure message */
#define LSTMC_RT_OCL_MAX_BUFFERS 8

typedef struct lstmc_rt_ocl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    int n_buffers;
    cl_mem buffers[LSTMC_RT_OCL_MAX_BUFFERS]; /* released by lstmc_rt_ocl_close */
    cl_int err;                               /* the last OpenCL error code seen */
    int from_binary;                          /* 1: the program came from cfg->binary */
    char device_name[128];
    char log[LSTMC_RT_OCL_LOG]; /* why open failed, or the compiler's build log */
} lstmc_rt_ocl;

typedef struct lstmc_rt_ocl_config {
    const char *device_type;    /* preferred kind: "gpu", "cpu", "accelerator"; NULL any */
    const char *const *sources; /* the OpenCL C program: n_sources NUL-terminated pieces */
    cl_uint n_sources;
    const char *build_options; /* clBuildProgram options, may be NULL */
    /* Optional program binary cache (clGetProgramInfo CL_PROGRAM_BINARIES) in a
     * caller-owned buffer: when *binary_len > 0 the program is first created from
     * binary[0..*binary_len) (the source is the fallback if the device refuses it); after a
     * build from source the binary is stored there when it fits binary_cap bytes, and
     * *binary_len set (0 when it does not fit). binary may be NULL: no cache. */
    unsigned char *binary;
    size_t binary_cap;
    size_t *binary_len;
} lstmc_rt_ocl_config;

/* Choose the device, create the context, an in-order queue and build the program.
 * LSTMC_RT_ERR_NO_DEVICE (no platform, no device, a bad override),
 * LSTMC_RT_ERR_DEVICE_BUILD (cl->log holds the build log), LSTMC_RT_ERR_DEVICE_MEMORY or
 * LSTMC_RT_ERR_DEVICE; on failure everything created is released again. */
lstmc_rt_status lstmc_rt_ocl_open(lstmc_rt_ocl *cl, const lstmc_rt_ocl_config *cfg);

/* A device buffer of bytes (at least 4) read-write, kept in cl->buffers and released by
 * close. LSTMC_RT_ERR_DEVICE_MEMORY when the device cannot hold it. */
lstmc_rt_status lstmc_rt_ocl_buffer(lstmc_rt_ocl *cl, size_t bytes, cl_mem *out);

/* Release everything open created (safe on a zeroed or already closed cl). */
void lstmc_rt_ocl_close(lstmc_rt_ocl *cl);

/* The status for an OpenCL error code (CL_SUCCESS -> LSTMC_RT_OK). */
lstmc_rt_status lstmc_rt_ocl_status(cl_int err);

#ifdef __cplusplus
}
#endif

#endif /* LSTMC_RT_OPENCL_H */
