/*
 * lstmc_rt_npy.h — .npy reading and writing for the generated <name>_run driver and for the
 * compiler. It uses stdio and is never part of the run path; it never allocates: data goes
 * into buffers the caller owns.
 *
 * Supported: format version 1.0/2.0/3.0, C order, little-endian '<f4', '<i8', '<i4', '<i2',
 * '|i1' and '|b1'/'|u1' (read as LSTMC_RT_U8), rank 0..LSTMC_RT_MAX_RANK.
 */
#ifndef LSTMC_RT_NPY_H
#define LSTMC_RT_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "lstmc_rt_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lstmc_npy_info {
    int32_t dtype; /* lstmc_rt_dtype */
    int32_t rank;
    int64_t dims[LSTMC_RT_MAX_RANK];
    int64_t n_elems;     /* product of dims (1 for rank 0) */
    size_t n_bytes;      /* n_elems * element size */
    size_t data_offset;  /* where the data starts in the file */
} lstmc_npy_info;

/*
 * Read and validate the header of the .npy file at path. On failure returns -1 and writes
 * a one-line reason (without the path) into err[errlen]; on success returns 0.
 * Rejects: missing file, bad magic, truncated or malformed header, fortran order,
 * big-endian or unsupported dtype, negative or overflowing dims, a file shorter than the
 * data it announces.
 */
int lstmc_npy_info_read(const char *path, lstmc_npy_info *info, char *err, size_t errlen);

/*
 * Read the data of the .npy at path (whose header info came from lstmc_npy_info_read) into
 * buf, which holds buf_size bytes (>= info->n_bytes). Returns 0, or -1 with a reason.
 */
int lstmc_npy_read_data(const char *path, const lstmc_npy_info *info, void *buf, size_t buf_size,
                        char *err, size_t errlen);

/* Write a C-order little-endian .npy. Returns 0, or -1 with a reason in err. */
int lstmc_npy_write(const char *path, int32_t dtype, int32_t rank, const int64_t *dims,
                    const void *data, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* LSTMC_RT_NPY_H */
