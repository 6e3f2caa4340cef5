/*
 * rt_npy.c — .npy reading and writing (lstmc_rt_npy.h) for the generated <name>_run driver
 * and the compiler. Never part of the run path; uses stdio but never allocates.
 *
 * Format (numpy NEP 1, "format.py"): "\x93NUMPY", major, minor, a little-endian header
 * length (uint16 for 1.0, uint32 for 2.0/3.0), then a Python dict literal such as
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * padded with spaces and ended by '\n', then the raw data in C order.
 *
 * Reading is defensive: the header is capped at NPY_MAX_HEADER bytes and read into a stack
 * buffer, parsed by a small strict parser (exactly the three keys, each once), every dim is
 * overflow-checked, and the file must hold all the data it announces. Nothing is read past
 * what fread returns.
 */
#include "lstmc_rt.h"
#include "lstmc_rt_npy.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Longest header accepted; numpy writes 64-byte-aligned headers of well under 256 bytes. */
#define NPY_MAX_HEADER 4096

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int
host_is_big_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;

    memcpy(&b, &one, 1);
    return b == 0;
}

/* Reverse the bytes of each of n elements of size es (es in {2, 4, 8}). */
static void
swap_bytes(unsigned char *p, size_t n, size_t es)
{
    size_t i, k;

    if (es < 2)
        return;
    for (i = 0; i < n; i++, p += es)
        for (k = 0; k < es / 2; k++) {
            unsigned char t = p[k];
            p[k] = p[es - 1 - k];
            p[es - 1 - k] = t;
        }
}

/* Element size of a dtype this file reads and writes (kept local: no link dependency). */
static size_t
npy_elem_size(int32_t dtype)
{
    switch (dtype) {
    case LSTMC_RT_F32:
    case LSTMC_RT_I32:
        return 4;
    case LSTMC_RT_I64:
        return 8;
    case LSTMC_RT_U8:
    case LSTMC_RT_I8:
        return 1;
    case LSTMC_RT_I16:
        return 2;
    default:
        return 0;
    }
}

/* --- header parser ------------------------------------------------------------------- */

typedef struct hdr_parser {
    const char *s; /* header text, not NUL-terminated */
    size_t len;
    size_t pos;
} hdr_parser;

static void
skip_ws(hdr_parser *hp)
{
    while (hp->pos < hp->len && (hp->s[hp->pos] == ' ' || hp->s[hp->pos] == '\t' ||
                                 hp->s[hp->pos] == '\n' || hp->s[hp->pos] == '\r'))
        hp->pos++;
}

static int
accept_char(hdr_parser *hp, char c)
{
    skip_ws(hp);
    if (hp->pos < hp->len && hp->s[hp->pos] == c) {
        hp->pos++;
        return 1;
    }
    return 0;
}

/* A quoted string ('...' or "...", no escapes) into out[outlen]; 0 if malformed/too long. */
static int
parse_string(hdr_parser *hp, char *out, size_t outlen)
{
    char q;
    size_t n = 0;

    skip_ws(hp);
    if (hp->pos >= hp->len || (hp->s[hp->pos] != '\'' && hp->s[hp->pos] != '"'))
        return 0;
    q = hp->s[hp->pos++];
    while (hp->pos < hp->len && hp->s[hp->pos] != q) {
        if (hp->s[hp->pos] == '\\' || n + 1 >= outlen)
            return 0;
        out[n++] = hp->s[hp->pos++];
    }
    if (hp->pos >= hp->len)
        return 0;
    hp->pos++;
    out[n] = '\0';
    return 1;
}

/* True or False; 0 if neither. */
static int
parse_bool(hdr_parser *hp, int *v)
{
    skip_ws(hp);
    if (hp->len - hp->pos >= 4 && memcmp(hp->s + hp->pos, "True", 4) == 0) {
        hp->pos += 4;
        *v = 1;
        return 1;
    }
    if (hp->len - hp->pos >= 5 && memcmp(hp->s + hp->pos, "False", 5) == 0) {
        hp->pos += 5;
        *v = 0;
        return 1;
    }
    return 0;
}

/*
 * A shape tuple: "()", "(3,)", "(2, 3)", "(2, 3,)". Dims are decimal, non-negative and
 * fit int64_t. Returns NULL on success or a reason.
 */
static const char *
parse_shape(hdr_parser *hp, int32_t *rank, int64_t *dims)
{
    int32_t r = 0;

    if (!accept_char(hp, '('))
        return "shape is not a tuple";
    for (;;) {
        int64_t v = 0;
        int digits = 0;

        if (accept_char(hp, ')'))
            break;
        skip_ws(hp);
        if (hp->pos < hp->len && hp->s[hp->pos] == '-')
            return "negative dimension in shape";
        while (hp->pos < hp->len && hp->s[hp->pos] >= '0' && hp->s[hp->pos] <= '9') {
            int64_t dgt = hp->s[hp->pos] - '0';

            if (v > (INT64_MAX - dgt) / 10)
                return "dimension in shape overflows int64";
            v = v * 10 + dgt;
            digits++;
            hp->pos++;
        }
        if (digits == 0)
            return "malformed shape";
        if (r >= LSTMC_RT_MAX_RANK)
            return "shape has more dimensions than LSTMC_RT_MAX_RANK";
        dims[r++] = v;
        if (accept_char(hp, ','))
            continue;
        if (accept_char(hp, ')'))
            break;
        return "malformed shape";
    }
    /* "(3)" (an int to Python; numpy writes "(3,)") is accepted as rank 1. */
    *rank = r;
    return NULL;
}

typedef struct npy_dtype_name {
    const char *descr;
    int32_t dtype;
} npy_dtype_name;

static const npy_dtype_name npy_dtypes[] = {
    {"<f4", LSTMC_RT_F32}, {"<i8", LSTMC_RT_I64}, {"<i4", LSTMC_RT_I32},
    {"|b1", LSTMC_RT_U8},  {"|u1", LSTMC_RT_U8},  {"<u1", LSTMC_RT_U8},
    {"|i1", LSTMC_RT_I8},  {"<i1", LSTMC_RT_I8},  {"<i2", LSTMC_RT_I16},
};

/* Parse the dict; fills dtype, rank, dims. Returns NULL or a reason (static text). */
static const char *
parse_header(const char *s, size_t len, int32_t *dtype, int32_t *rank, int64_t *dims,
             char *bad_descr, size_t bad_len)
{
    hdr_parser hp;
    int have_descr = 0, have_fortran = 0, have_shape = 0, fortran = 0;
    char key[32], descr[32];
    size_t i;

    hp.s = s;
    hp.len = len;
    hp.pos = 0;
    if (!accept_char(&hp, '{'))
        return "header is not a dict";
    for (;;) {
        if (accept_char(&hp, '}'))
            break;
        if (!parse_string(&hp, key, sizeof key))
            return "malformed header key";
        if (!accept_char(&hp, ':'))
            return "malformed header: expected ':'";
        if (strcmp(key, "descr") == 0) {
            if (have_descr++)
                return "duplicate 'descr' in header";
            if (!parse_string(&hp, descr, sizeof descr))
                return "malformed 'descr' in header";
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_fortran++)
                return "duplicate 'fortran_order' in header";
            if (!parse_bool(&hp, &fortran))
                return "malformed 'fortran_order' in header";
        } else if (strcmp(key, "shape") == 0) {
            const char *why;

            if (have_shape++)
                return "duplicate 'shape' in header";
            if ((why = parse_shape(&hp, rank, dims)) != NULL)
                return why;
        } else {
            return "unexpected key in header";
        }
        if (accept_char(&hp, ','))
            continue;
        if (accept_char(&hp, '}'))
            break;
        return "malformed header: expected ',' or '}'";
    }
    skip_ws(&hp);
    if (hp.pos != hp.len)
        return "trailing characters after header dict";
    if (!have_descr || !have_fortran || !have_shape)
        return "header lacks 'descr', 'fortran_order' or 'shape'";
    if (fortran)
        return "fortran_order is True; only C order is supported";
    for (i = 0; i < sizeof npy_dtypes / sizeof npy_dtypes[0]; i++)
        if (strcmp(descr, npy_dtypes[i].descr) == 0) {
            *dtype = npy_dtypes[i].dtype;
            return NULL;
        }
    for (i = 0; i + 1 < bad_len && descr[i]; i++)
        bad_descr[i] = descr[i];
    bad_descr[i] = '\0';
    if (descr[0] == '>')
        return "big-endian dtype";
    return "unsupported dtype";
}

/* --- reading ------------------------------------------------------------------------- */

/* The file's size in bytes, or -1. Leaves the position at the start. */
static long
file_size(FILE *f)
{
    long sz;

    if (fseek(f, 0, SEEK_END) != 0)
        return -1;
    sz = ftell(f);
    if (fseek(f, 0, SEEK_SET) != 0)
        return -1;
    return sz;
}

/* Header of an open file; fills info. Returns 0, or -1 with err set. */
static int
read_header(FILE *f, lstmc_npy_info *info, char *err, size_t errlen)
{
    unsigned char pre[12];
    char header[NPY_MAX_HEADER];
    char bad_descr[32];
    size_t hlen, pre_len, esz, nb;
    long fsz;
    int64_t n = 1;
    int32_t i;
    const char *why;

    fsz = file_size(f);
    if (fsz < 0) {
        set_err(err, errlen, "cannot determine file size");
        return -1;
    }
    if (fread(pre, 1, 8, f) != 8) {
        set_err(err, errlen, "not a .npy file: shorter than the magic string");
        return -1;
    }
    if (memcmp(pre, "\x93NUMPY", 6) != 0) {
        set_err(err, errlen, "not a .npy file: bad magic");
        return -1;
    }
    if (pre[6] == 1 && pre[7] == 0) {
        pre_len = 10;
    } else if ((pre[6] == 2 || pre[6] == 3) && pre[7] == 0) {
        pre_len = 12;
    } else {
        set_err(err, errlen, "unsupported .npy format version %u.%u", (unsigned)pre[6],
                (unsigned)pre[7]);
        return -1;
    }
    if (fread(pre + 8, 1, pre_len - 8, f) != pre_len - 8) {
        set_err(err, errlen, "truncated header length");
        return -1;
    }
    hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (pre_len == 12)
        hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    if (hlen > NPY_MAX_HEADER) {
        set_err(err, errlen, "header of %lu bytes is longer than the %d accepted",
                (unsigned long)hlen, NPY_MAX_HEADER);
        return -1;
    }
    if (fread(header, 1, hlen, f) != hlen) {
        set_err(err, errlen, "truncated header");
        return -1;
    }

    memset(info, 0, sizeof *info);
    bad_descr[0] = '\0';
    why = parse_header(header, hlen, &info->dtype, &info->rank, info->dims, bad_descr,
                       sizeof bad_descr);
    if (why) {
        if (bad_descr[0])
            set_err(err, errlen, "%s '%s'; supported: <f4, <i8, <i4, <i2, |i1, |b1, |u1", why, bad_descr);
        else
            set_err(err, errlen, "%s", why);
        return -1;
    }

    esz = npy_elem_size(info->dtype);
    for (i = 0; i < info->rank; i++) {
        if (info->dims[i] != 0 && n > INT64_MAX / info->dims[i]) {
            set_err(err, errlen, "element count overflows int64");
            return -1;
        }
        n *= info->dims[i];
    }
    if ((uint64_t)n > (uint64_t)(SIZE_MAX / esz)) {
        set_err(err, errlen, "data size overflows size_t");
        return -1;
    }
    nb = (size_t)n * esz;
    info->n_elems = n;
    info->n_bytes = nb;
    info->data_offset = pre_len + hlen;
    if ((unsigned long)fsz < info->data_offset || (unsigned long)fsz - info->data_offset < nb) {
        set_err(err, errlen, "truncated data: header announces %lu bytes, file holds %lu",
                (unsigned long)nb,
                (unsigned long)fsz > info->data_offset
                    ? (unsigned long)fsz - (unsigned long)info->data_offset
                    : 0ul);
        return -1;
    }
    return 0;
}

int
lstmc_npy_info_read(const char *path, lstmc_npy_info *info, char *err, size_t errlen)
{
    FILE *f;
    int rc;

    if (!path || !info) {
        set_err(err, errlen, "NULL path or info");
        return -1;
    }
    f = fopen(path, "rb");
    if (!f) {
        set_err(err, errlen, "cannot open file");
        return -1;
    }
    rc = read_header(f, info, err, errlen);
    fclose(f);
    return rc;
}

/*
 * The header is read again and must agree with info, so a file replaced between the two
 * calls (or an info not from lstmc_npy_info_read) cannot make us read past the file or the
 * buffer.
 */
int
lstmc_npy_read_data(const char *path, const lstmc_npy_info *info, void *buf, size_t buf_size,
                    char *err, size_t errlen)
{
    lstmc_npy_info now;
    FILE *f;
    size_t esz;

    if (!path || !info) {
        set_err(err, errlen, "NULL path or info");
        return -1;
    }
    if (buf_size < info->n_bytes) {
        set_err(err, errlen, "buffer of %lu bytes is smaller than the %lu bytes of data",
                (unsigned long)buf_size, (unsigned long)info->n_bytes);
        return -1;
    }
    if (!buf && info->n_bytes > 0) {
        set_err(err, errlen, "NULL buffer");
        return -1;
    }
    f = fopen(path, "rb");
    if (!f) {
        set_err(err, errlen, "cannot open file");
        return -1;
    }
    if (read_header(f, &now, err, errlen) != 0) {
        fclose(f);
        return -1;
    }
    if (now.dtype != info->dtype || now.n_bytes != info->n_bytes ||
        now.data_offset != info->data_offset) {
        fclose(f);
        set_err(err, errlen, "file changed since its header was read");
        return -1;
    }
    /* read_header left the position at data_offset. */
    if (info->n_bytes > 0 && fread(buf, 1, info->n_bytes, f) != info->n_bytes) {
        fclose(f);
        set_err(err, errlen, "truncated data");
        return -1;
    }
    fclose(f);
    esz = npy_elem_size(info->dtype);
    if (host_is_big_endian() && info->n_bytes > 0)
        swap_bytes((unsigned char *)buf, info->n_bytes / esz, esz);
    return 0;
}

/* --- writing ------------------------------------------------------------------------- */

static const char *
descr_of(int32_t dtype)
{
    switch (dtype) {
    case LSTMC_RT_F32:
        return "<f4";
    case LSTMC_RT_I64:
        return "<i8";
    case LSTMC_RT_I32:
        return "<i4";
    case LSTMC_RT_U8:
        return "|b1";
    case LSTMC_RT_I8:
        return "|i1";
    case LSTMC_RT_I16:
        return "<i2";
    default:
        return NULL;
    }
}

/* Append s to buf[*len..cap); 0 when it does not fit. */
static int
append(char *buf, size_t *len, size_t cap, const char *s)
{
    size_t n = strlen(s);

    if (n >= cap - *len)
        return 0;
    memcpy(buf + *len, s, n);
    *len += n;
    return 1;
}

int
lstmc_npy_write(const char *path, int32_t dtype, int32_t rank, const int64_t *dims,
                const void *data, char *err, size_t errlen)
{
    /* 10-byte preamble + header; rank <= LSTMC_RT_MAX_RANK keeps it far below this. */
    char header[NPY_MAX_HEADER];
    unsigned char pre[10];
    const char *descr = descr_of(dtype);
    size_t len = 0, esz, nb, total;
    int64_t n = 1;
    int32_t i;
    FILE *f;
    int ok;

    if (!path) {
        set_err(err, errlen, "NULL path");
        return -1;
    }
    if (!descr) {
        set_err(err, errlen, "unsupported dtype %d", (int)dtype);
        return -1;
    }
    if (rank < 0 || rank > LSTMC_RT_MAX_RANK || (rank > 0 && !dims)) {
        set_err(err, errlen, "bad rank %d", (int)rank);
        return -1;
    }
    esz = npy_elem_size(dtype);
    for (i = 0; i < rank; i++) {
        if (dims[i] < 0) {
            set_err(err, errlen, "negative dimension");
            return -1;
        }
        if (dims[i] != 0 && n > INT64_MAX / dims[i]) {
            set_err(err, errlen, "element count overflows int64");
            return -1;
        }
        n *= dims[i];
    }
    if ((uint64_t)n > (uint64_t)(SIZE_MAX / esz)) {
        set_err(err, errlen, "data size overflows size_t");
        return -1;
    }
    nb = (size_t)n * esz;
    if (nb > 0 && !data) {
        set_err(err, errlen, "NULL data");
        return -1;
    }

    ok = append(header, &len, sizeof header, "{'descr': '") &&
         append(header, &len, sizeof header, descr) &&
         append(header, &len, sizeof header, "', 'fortran_order': False, 'shape': (");
    for (i = 0; ok && i < rank; i++) {
        char num[32];

        snprintf(num, sizeof num, "%lld", (long long)dims[i]);
        ok = (i == 0 || append(header, &len, sizeof header, ", ")) &&
             append(header, &len, sizeof header, num);
    }
    ok = ok && append(header, &len, sizeof header, rank == 1 ? ",), }" : "), }");
    /* Pad with spaces so preamble + header + '\n' is a multiple of 64, as numpy does. */
    while (ok && (10 + len + 1) % 64 != 0)
        ok = append(header, &len, sizeof header, " ");
    ok = ok && append(header, &len, sizeof header, "\n");
    if (!ok || len > 65535) {
        set_err(err, errlen, "header too long");
        return -1;
    }
    memcpy(pre, "\x93NUMPY\x01\x00", 8);
    pre[8] = (unsigned char)(len & 0xff);
    pre[9] = (unsigned char)(len >> 8);

    f = fopen(path, "wb");
    if (!f) {
        set_err(err, errlen, "cannot create file");
        return -1;
    }
    ok = fwrite(pre, 1, sizeof pre, f) == sizeof pre && fwrite(header, 1, len, f) == len;
    if (ok && nb > 0) {
        if (!host_is_big_endian() || esz == 1) {
            ok = fwrite(data, 1, nb, f) == nb;
        } else {
            /* Big-endian host: swap through a stack buffer, one chunk at a time. */
            unsigned char chunk[4096];
            const unsigned char *src = (const unsigned char *)data;

            for (total = 0; ok && total < nb; total += sizeof chunk) {
                size_t k = nb - total < sizeof chunk ? nb - total : sizeof chunk;

                memcpy(chunk, src + total, k);
                swap_bytes(chunk, k / esz, esz);
                ok = fwrite(chunk, 1, k, f) == k;
            }
        }
    }
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        remove(path);
        set_err(err, errlen, "write failed");
        return -1;
    }
    return 0;
}
