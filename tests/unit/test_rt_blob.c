/*
 * test_rt_blob.c — the weight blob check (runtime/src/rt_blob.c, --weights-placement=blob):
 * CRC-32 against the standard check value, and every refusal of lstmc_rt_blob_open on a
 * blob built here by hand from the layout the file comment gives.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "lstmc_rt.h"

#define PAYLOAD 40

static _Alignas(LSTMC_RT_ALIGN) unsigned char blob[LSTMC_RT_BLOB_HEADER + PAYLOAD + 8];

/* A valid blob of PAYLOAD bytes 0, 1, 2, ...; returns the payload's CRC. */
static uint32_t
make_blob(void)
{
    uint32_t bom = 0x01020304u, crc;
    int i;
    memset(blob, 0, sizeof blob);
    memcpy(blob, "LSTMCWB1", 8);
    memcpy(blob + 8, &bom, 4);
    blob[12] = LSTMC_RT_BLOB_HEADER;
    blob[16] = PAYLOAD;
    for (i = 0; i < PAYLOAD; i++)
        blob[LSTMC_RT_BLOB_HEADER + i] = (unsigned char)i;
    crc = lstmc_rt_crc32(blob + LSTMC_RT_BLOB_HEADER, PAYLOAD);
    for (i = 0; i < 4; i++)
        blob[24 + i] = (unsigned char)(crc >> (8 * i));
    return crc;
}

Test(rt_blob, crc32_check_value)
{
    /* the CRC-32/ISO-HDLC check value of "123456789" (zlib crc32) */
    cr_assert_eq(lstmc_rt_crc32("123456789", 9), 0xcbf43926u);
    cr_assert_eq(lstmc_rt_crc32("", 0), 0u);
}

Test(rt_blob, accepts_a_good_blob_in_place)
{
    const unsigned char *p = NULL;
    uint32_t crc = make_blob();
    cr_assert_eq(lstmc_rt_blob_open(blob, LSTMC_RT_BLOB_HEADER + PAYLOAD, PAYLOAD, crc, &p),
                 LSTMC_RT_OK);
    cr_assert_eq(p, blob + LSTMC_RT_BLOB_HEADER);
}

Test(rt_blob, refuses_bad_blobs)
{
    const unsigned char *p = NULL;
    uint32_t crc = make_blob();
    size_t n = LSTMC_RT_BLOB_HEADER + PAYLOAD;
    cr_assert_eq(lstmc_rt_blob_open(NULL, n, PAYLOAD, crc, &p), LSTMC_RT_ERR_NULL);
    cr_assert_eq(lstmc_rt_blob_open(blob + 4, n, PAYLOAD, crc, &p), LSTMC_RT_ERR_MISALIGNED);
    cr_assert_eq(lstmc_rt_blob_open(blob, 10, PAYLOAD, crc, &p), LSTMC_RT_ERR_BLOB_SIZE);
    cr_assert_eq(lstmc_rt_blob_open(blob, n - 1, PAYLOAD, crc, &p), LSTMC_RT_ERR_BLOB_SIZE);
    cr_assert_eq(lstmc_rt_blob_open(blob, n + 1, PAYLOAD, crc, &p), LSTMC_RT_ERR_BLOB_SIZE);
    /* made for another model: other payload size or CRC */
    cr_assert_eq(lstmc_rt_blob_open(blob, n, PAYLOAD + 4, crc, &p), LSTMC_RT_ERR_BLOB_FORMAT);
    cr_assert_eq(lstmc_rt_blob_open(blob, n, PAYLOAD, crc ^ 1u, &p), LSTMC_RT_ERR_BLOB_FORMAT);
    blob[LSTMC_RT_BLOB_HEADER + 7] ^= 0x10; /* one payload bit */
    cr_assert_eq(lstmc_rt_blob_open(blob, n, PAYLOAD, crc, &p), LSTMC_RT_ERR_BLOB_CHECKSUM);
    make_blob();
    blob[0] = 'X'; /* magic */
    cr_assert_eq(lstmc_rt_blob_open(blob, n, PAYLOAD, crc, &p), LSTMC_RT_ERR_BLOB_FORMAT);
    make_blob();
    blob[8] = 1; /* the byte-order mark read in the other order */
    blob[11] = 4;
    cr_assert_eq(lstmc_rt_blob_open(blob, n, PAYLOAD, crc, &p), LSTMC_RT_ERR_BLOB_FORMAT);
}
