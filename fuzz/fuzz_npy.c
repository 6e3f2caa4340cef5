/*
 * fuzz_npy.c — libFuzzer harness for the .npy reader (runtime/src/rt_npy.c): the bytes are
 * written to a temporary file, then lstmc_npy_info_read parses the header and, when it
 * accepts it, lstmc_npy_read_data reads the data into a buffer of exactly info.n_bytes
 * (and must refuse a buffer one byte short).
 *
 * Invariants checked (abort() on violation, so libFuzzer keeps the input): an accepted
 * header has 0 <= rank <= LSTMC_RT_MAX_RANK, non-negative dims whose product is n_elems,
 * data_offset + n_bytes within the file, and a NUL-terminated error message on failure.
 */
#include "lstmc_rt_npy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void
remove_file(void)
{
    unlink(path);
}

static void
write_file(const uint8_t *data, size_t size)
{
    FILE *f;
    if (!path[0]) {
        /* tmpfs when there is one: a file rewritten per input is the main cost */
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(path, sizeof path, "%s/lstmc_fuzz_npy.%ld", dir, (long)getpid());
        atexit(remove_file);
    }
    f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
}

static void
check_err(const char *err, size_t errlen)
{
    if (memchr(err, '\0', errlen) == NULL || err[0] == '\0')
        abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lstmc_npy_info info;
    char err[256];
    unsigned char *buf;
    int64_t n = 1;
    int i;

    write_file(data, size);
    memset(err, 'x', sizeof err);
    if (lstmc_npy_info_read(path, &info, err, sizeof err) != 0) {
        check_err(err, sizeof err);
        return 0;
    }
    if (info.rank < 0 || info.rank > LSTMC_RT_MAX_RANK)
        abort();
    for (i = 0; i < info.rank; i++) {
        if (info.dims[i] < 0 || __builtin_mul_overflow(n, info.dims[i], &n))
            abort();
    }
    if (n != info.n_elems || info.data_offset > size || info.n_bytes > size - info.data_offset)
        abort();
    buf = malloc(info.n_bytes ? info.n_bytes : 1);
    if (!buf)
        abort();
    memset(err, 'x', sizeof err);
    if (lstmc_npy_read_data(path, &info, buf, info.n_bytes, err, sizeof err) != 0)
        abort(); /* the header said the data is there */
    if (info.n_bytes > 0) {
        memset(err, 'x', sizeof err);
        if (lstmc_npy_read_data(path, &info, buf, info.n_bytes - 1, err, sizeof err) == 0)
            abort();
        check_err(err, sizeof err);
    }
    free(buf);
    return 0;
}
