/*
 * lstmc_rt.h — the lstmc runtime: what a firmware author uses.
 *
 * The runtime is the small, freestanding C99 library that every generated model library
 * links. This header is the part of it an application sees through the generated <name>.h:
 * the status codes and their text, the dtypes, the statistics a run reports, the arena
 * check and the weight blob. The kernels the generated <name>.c calls, their params structs,
 * the worker pool and the weight formats are the kernel ABI, in lstmc_rt_kernels.h; the
 * runtime's own internals are under runtime/src/internal/.
 *
 * Nothing here allocates, prints, exits or aborts: every function returns an lstmc_rt_status
 * (or a plain value) and borrows its buffers from the caller.
 *
 * This header includes only <stddef.h>, <stdint.h> and lstmc_rt_config.h.
 */
#ifndef LSTMC_RT_H
#define LSTMC_RT_H

#include <stddef.h>
#include <stdint.h>

#include "lstmc_rt_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- status ------------------------------------------------------------------------- */

typedef enum lstmc_rt_status {
    LSTMC_RT_OK = 0,
    LSTMC_RT_ERR_NULL = 1,            /* a required pointer is NULL */
    LSTMC_RT_ERR_ARENA_TOO_SMALL = 2, /* caller's arena is smaller than the model needs */
    LSTMC_RT_ERR_MISALIGNED = 3,      /* arena not aligned to LSTMC_RT_ALIGN */
    LSTMC_RT_ERR_BAD_PARAMS = 4,      /* a params struct is inconsistent (compiler bug) */
    LSTMC_RT_ERR_INDEX = 5,           /* a Gather index is out of range */
    LSTMC_RT_ERR_SEQ_LEN = 6,         /* a sequence_lens entry is < 0 or > seq_length */
    LSTMC_RT_ERR_IO = 7,              /* .npy reading/writing failed (driver only) */
    /* OpenCL targets only (lstmc_rt_opencl.h): */
    LSTMC_RT_ERR_NO_DEVICE = 8,       /* no OpenCL platform/device (or not the one asked) */
    LSTMC_RT_ERR_DEVICE_BUILD = 9,    /* the kernels did not build: see the build log */
    LSTMC_RT_ERR_DEVICE_MEMORY = 10,  /* the device is out of memory */
    LSTMC_RT_ERR_DEVICE = 11,         /* any other OpenCL error (a failed enqueue...) */
    LSTMC_RT_ERR_UNSUPPORTED = 12,    /* the model cannot do this (<name>_step on a model
                                         that does not stream: see <NAME>_STREAM_WHY) */
    LSTMC_RT_ERR_NO_WEIGHTS = 13,     /* weights placed outside the library are not bound */
    LSTMC_RT_ERR_BLOB_FORMAT = 14,    /* weight blob: bad magic, byte order, version, or made
                                         for another model/compile */
    LSTMC_RT_ERR_BLOB_SIZE = 15,      /* weight blob: shorter or longer than it must be */
    LSTMC_RT_ERR_BLOB_CHECKSUM = 16   /* weight blob: the payload's CRC-32 does not match */
} lstmc_rt_status;

/* Short English text for a status; never NULL. */
const char *lstmc_rt_status_str(lstmc_rt_status s);

/* --- data types ------------------------------------------------------------------- */

typedef enum lstmc_rt_dtype {
    LSTMC_RT_F32 = 1,
    LSTMC_RT_I64 = 2,
    LSTMC_RT_I32 = 3,
    LSTMC_RT_U8 = 4, /* bool */
    LSTMC_RT_I8 = 5,
    LSTMC_RT_I16 = 6
} lstmc_rt_dtype;

/* Size in bytes of one element of dtype, 0 for an unknown dtype. */
size_t lstmc_rt_dtype_size(int32_t dtype);

/* --- what a run did (<name>_ctx.tissue_stats, .drs_stats; MICRO'18 §IV-D, §V) ---------- */

/* What one lstmc_rt_lstm_tissue call did, summed over directions. */
typedef struct lstmc_rt_tissue_stats {
    int64_t cells;      /* cells run: sum of the sequence lengths, times D */
    int64_t links;      /* links between consecutive cells examined */
    int64_t sub_layers; /* independent sub-layers (links cut = sub_layers - chains) */
    int64_t tissues;    /* tissues run = passes over U */
} lstmc_rt_tissue_stats;

/* What one dynamic-row-skip call (lstmc_rt_lstm_drs, lstmc_rt_lstm_tissue_drs) did, summed
 * over directions, batch entries and cells. */
typedef struct lstmc_rt_drs_stats {
    int64_t cells;        /* cells run */
    int64_t rows_total;   /* rows of U_f, U_i, U_c the cells would multiply: 3H per cell */
    int64_t rows_skipped; /* of those, skipped (unit not in R): 3 per skipped unit */
    int64_t rows_loaded;  /* rows of U_f,i,c read from memory (tissues: once per tissue for
                             the units any of its cells keeps; else rows_total - skipped) */
} lstmc_rt_drs_stats;

/* --- arena ------------------------------------------------------------------------- */

/*
 * Check a caller-supplied arena: NULL, smaller than `need` bytes or not aligned to
 * LSTMC_RT_ALIGN are errors. Generated <name>_init() calls this.
 */
lstmc_rt_status lstmc_rt_arena_check(const void *arena, size_t size, size_t need);

/* --- weights outside the library (lstmc --weights-placement=blob|pointer) ------------- */

#define LSTMC_RT_BLOB_HEADER 64 /* bytes before the payload in a weight blob (rt_blob.c) */

/* CRC-32 (IEEE 802.3, zlib's crc32) of n bytes. */
uint32_t lstmc_rt_crc32(const void *data, size_t n);

/*
 * Check a weight blob of `size` bytes (layout in rt_blob.c) made for a model whose payload
 * is payload_size bytes with CRC-32 crc, and point *payload at its payload (in place, no
 * copy: the blob must outlive its use). Errors, in the order checked: LSTMC_RT_ERR_NULL,
 * LSTMC_RT_ERR_MISALIGNED (blob not aligned to LSTMC_RT_ALIGN), LSTMC_RT_ERR_BLOB_SIZE
 * (shorter than a header), LSTMC_RT_ERR_BLOB_FORMAT (magic, byte order, header size, or the
 * header names another payload size or CRC: another model or compile),
 * LSTMC_RT_ERR_BLOB_SIZE (size is not header + payload: truncated or padded),
 * LSTMC_RT_ERR_BLOB_CHECKSUM (the payload's bytes are corrupted).
 */
lstmc_rt_status lstmc_rt_blob_open(const void *blob, size_t size, uint64_t payload_size,
                                   uint32_t crc, const unsigned char **payload);

#ifdef __cplusplus
}
#endif

#endif /* LSTMC_RT_H */
