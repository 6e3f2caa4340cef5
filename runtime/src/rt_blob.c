/*
 * rt_blob.c — weights that live outside the library (lstmc --weights-placement=blob):
 * checking a weight blob before the model reads it, and the CRC-32 that guards it.
 *
 * Blob layout (little-endian fields, written by lstmc as <name>_weights.bin):
 *   0   8  magic "LSTMCWB1"
 *   8   4  0x01020304 in the writer's byte order (a reader of the other order sees it
 *          swapped: LSTMC_RT_ERR_BLOB_FORMAT)
 *   12  4  header size, 64
 *   16  8  payload size in bytes
 *   24  4  CRC-32 (IEEE 802.3, as zlib's crc32) of the payload
 *   28  4  0
 *   32 32  model name, NUL-padded (informative)
 *   64  .. payload: the constant tensors at the offsets <name>_weights.h gives
 */
#include "lstmc_rt.h"

#include <string.h>

/* CRC-32 with a 16-entry table (nibble at a time): 64 bytes of flash, ~8 ops per byte. */
uint32_t
lstmc_rt_crc32(const void *data, size_t n)
{
    static const uint32_t tab[16] = {
        0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
        0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
        0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};
    const unsigned char *p = data;
    uint32_t c = 0xffffffffu;
    size_t i;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        c = (c >> 4) ^ tab[c & 15u];
        c = (c >> 4) ^ tab[c & 15u];
    }
    return c ^ 0xffffffffu;
}

static uint32_t
rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

lstmc_rt_status
lstmc_rt_blob_open(const void *blob, size_t size, uint64_t payload_size, uint32_t crc,
                   const unsigned char **payload)
{
    const unsigned char *b = blob;
    uint64_t psize;
    uint32_t bom;
    if (!blob || !payload)
        return LSTMC_RT_ERR_NULL;
    if ((uintptr_t)blob % LSTMC_RT_ALIGN != 0)
        return LSTMC_RT_ERR_MISALIGNED;
    if (size < LSTMC_RT_BLOB_HEADER)
        return LSTMC_RT_ERR_BLOB_SIZE;
    memcpy(&bom, b + 8, sizeof bom);
    if (memcmp(b, "LSTMCWB1", 8) != 0 || bom != 0x01020304u ||
        rd32(b + 12) != LSTMC_RT_BLOB_HEADER)
        return LSTMC_RT_ERR_BLOB_FORMAT;
    psize = (uint64_t)rd32(b + 16) | (uint64_t)rd32(b + 20) << 32;
    if (psize != payload_size || rd32(b + 24) != crc)
        return LSTMC_RT_ERR_BLOB_FORMAT; /* a blob of another model or compile */
    if (size - LSTMC_RT_BLOB_HEADER != payload_size)
        return LSTMC_RT_ERR_BLOB_SIZE;
    if (lstmc_rt_crc32(b + LSTMC_RT_BLOB_HEADER, (size_t)payload_size) != crc)
        return LSTMC_RT_ERR_BLOB_CHECKSUM;
    *payload = b + LSTMC_RT_BLOB_HEADER;
    return LSTMC_RT_OK;
}
