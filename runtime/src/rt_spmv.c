/*
 * rt_spmv.c — sparse matrix x vector over E-LSTM's eSELL format
 * (../shared/papers/elstm-embedded-sparse-lstm.txt §3.1; the encoder is compiler/esell.c,
 * the storage passes/sparse.c). Contract and layout in lstmc_rt_kernels.h.
 *
 * The matrix is cut into blocks of 8 x 4; the rows of a block are permuted by descending
 * non-zero count and split into two chunks of 4 rows; the non-zeros of a chunk row are
 * shifted left, the chunk is CHK_w wide (its first row's count), and each row's column
 * indices are one 3-bit code (Fig. 4(b)). Chunks come block column by block column, so
 * the 4 vector elements x[4bc .. 4bc+3] are loaded once per block column, and a whole block
 * column is skipped when those 4 elements count as zero (hidden-state sparsity, §4.4).
 *
 * The metadata lives in the same float array as the values (the weights of a generated
 * library are float arrays): a chunk head is two floats holding small integers, exact in
 * binary32 — CHK_w | EIDX_col << 3 (15 bits) and IDX_row (12 bits), the 27 bits of Fig. 5.
 * All heads come first, then all values: the head of the next chunk is at a fixed place, so
 * the CPU decodes ahead instead of waiting for each width to find the next head (with the
 * heads between the values, as in the RoCC stream, that chain cost 3x at high sparsity).
 */
#include "lstmc_rt_kernels.h"
#include "internal/testing.h"

#define BLK_H 8
#define BLK_W 4
#define CHK_H 4

/* Fig. 4(b): code -> the columns of a chunk row; positions past the row's own length are
 * padding zeros and read column 0 (any column in the block would do: the value is 0). */
static const unsigned char code_col[8][BLK_W] = {
    {0, 1, 2, 3}, {0, 1, 3, 0}, {0, 2, 3, 0}, {0, 3, 0, 0},
    {1, 2, 3, 0}, {1, 3, 0, 0}, {2, 3, 0, 0}, {3, 0, 0, 0},
};

static uint32_t
head_word(float f)
{
    return (uint32_t)f;
}

int64_t
lstmc_rt_esell_len(const float *e, int64_t rows, int64_t cols)
{
    int64_t nbr, nbc, n_chk, k, len;

    if (!e || rows < 1 || cols < 1 || !(e[0] == (float)rows) || !(e[1] == (float)cols))
        return -1;
    nbr = (rows + BLK_H - 1) / BLK_H;
    nbc = (cols + BLK_W - 1) / BLK_W;
    n_chk = nbr * nbc * (BLK_H / CHK_H);
    len = 2 + 2 * n_chk;
    for (k = 0; k < n_chk; k++) {
        const float f = e[2 + 2 * k], g = e[3 + 2 * k];

        if (!(f >= 0.0f && f < 32768.0f) || !(g >= 0.0f && g < 4096.0f) ||
            (head_word(f) & 7u) > BLK_W)
            return -1;
        len += (int64_t)(head_word(f) & 7u) * CHK_H;
    }
    return len;
}

/* One chunk of width w (a constant where the caller's switch inlines it): row r of the chunk
 * adds sum_q v[q * 4 + r] * xs[code_r][q] to y[row0 + IDX_row[r]]. xs[c] holds the block's
 * 4 vector elements in code c's column order. */
static void
chunk(const float *restrict v, const float (*xs)[BLK_W], uint32_t h0, uint32_t h1, int w,
      int64_t row0, int64_t rows, float *restrict y)
{
    int r, q;

    for (r = 0; r < CHK_H; r++) {
        const float *xr = xs[h0 >> (3 + 3 * r) & 7u];
        const int64_t row = row0 + (int64_t)(h1 >> (3 * r) & 7u);
        float acc = 0.0f;

        for (q = 0; q < w; q++)
            acc += v[q * CHK_H + r] * xr[q];
        if (row < rows) /* the zero rows padding a partial block */
            y[row] += acc;
    }
}

void
lstmc_rt_esell_spmv(const float *e, const float *x, float th, float *restrict y)
{
    const int64_t rows = (int64_t)e[0], cols = (int64_t)e[1];
    const int64_t nbr = (rows + BLK_H - 1) / BLK_H, nbc = (cols + BLK_W - 1) / BLK_W;
    const int64_t n_chk = nbr * (BLK_H / CHK_H);
    const float *hd = e + 2, *v = hd + 2 * nbc * n_chk;
    int64_t bc, ck;

    for (bc = 0; bc < nbc; bc++, hd += 2 * n_chk) {
        float x4[BLK_W], xs[8][BLK_W], s = 0.0f;
        int j, c;

        for (j = 0; j < BLK_W; j++) {
            x4[j] = bc * BLK_W + j < cols ? x[bc * BLK_W + j] : 0.0f;
            s += x4[j] < 0.0f ? -x4[j] : x4[j];
        }
        if (th > 0.0f && s < th) { /* rt_hsparse.c's group test: the block column is skipped */
            for (ck = 0; ck < n_chk; ck++)
                v += (int64_t)(head_word(hd[2 * ck]) & 7u) * CHK_H;
            continue;
        }
        /* the 4 elements in each code's column order, once per block column */
        for (c = 0; c < 8; c++)
            for (j = 0; j < BLK_W; j++)
                xs[c][j] = x4[code_col[c][j]];
        for (ck = 0; ck < n_chk; ck++) {
            const uint32_t h0 = head_word(hd[2 * ck]), h1 = head_word(hd[2 * ck + 1]);
            const int64_t row0 = ck / 2 * BLK_H;

            switch (h0 & 7u) {
            case 1:
                chunk(v, (const float(*)[BLK_W])xs, h0, h1, 1, row0, rows, y);
                break;
            case 2:
                chunk(v, (const float(*)[BLK_W])xs, h0, h1, 2, row0, rows, y);
                break;
            case 3:
                chunk(v, (const float(*)[BLK_W])xs, h0, h1, 3, row0, rows, y);
                break;
            case 4:
                chunk(v, (const float(*)[BLK_W])xs, h0, h1, 4, row0, rows, y);
                break;
            default:
                break; /* an empty chunk */
            }
            v += (int64_t)(h0 & 7u) * CHK_H;
        }
    }
}

void
lstmc_rt_esell_spmm(const float *e, const float *X, int64_t ldx, int64_t n, float *Y, int64_t ldy)
{
    const int64_t rows = (int64_t)e[0], cols = (int64_t)e[1];
    const int64_t nbr = (rows + BLK_H - 1) / BLK_H, nbc = (cols + BLK_W - 1) / BLK_W;
    const int64_t n_chk = nbr * (BLK_H / CHK_H);
    const float *hd = e + 2, *v = hd + 2 * nbc * n_chk;
    int64_t bc, ck, i;

    for (bc = 0; bc < nbc; bc++) {
        const float *xb = X + bc * BLK_W;

        for (ck = 0; ck < n_chk; ck++, hd += 2) {
            const uint32_t h0 = head_word(hd[0]), h1 = head_word(hd[1]);
            const int w = (int)(h0 & 7u);
            int r;

            for (r = 0; r < CHK_H && w > 0; r++) {
                /* padding positions read column 0 of the block, always inside X */
                const unsigned char *col = code_col[h0 >> (3 + 3 * r) & 7u];
                const int64_t row = ck / 2 * BLK_H + (int64_t)(h1 >> (3 * r) & 7u);
                const float v0 = v[r], v1 = w > 1 ? v[CHK_H + r] : 0.0f;
                const float v2 = w > 2 ? v[2 * CHK_H + r] : 0.0f;
                const float v3 = w > 3 ? v[3 * CHK_H + r] : 0.0f;
                const int c0 = col[0], c1 = w > 1 ? col[1] : 0, c2 = w > 2 ? col[2] : 0;
                const int c3 = w > 3 ? col[3] : 0;
                float *yr = Y + row;

                if (row >= rows)
                    continue;
                for (i = 0; i < n; i++) {
                    const float *xi = xb + i * ldx;
                    yr[i * ldy] += v0 * xi[c0] + v1 * xi[c1] + v2 * xi[c2] + v3 * xi[c3];
                }
            }
            v += w * CHK_H;
        }
    }
}
