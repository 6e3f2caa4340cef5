/*
 * rt_spmv.c — sparse matrix x vector over E-LSTM's eSELL format
 * (../shared/papers/elstm-embedded-sparse-lstm.txt §3.1; the encoder is compiler/esell.c,
 * the storage passes/sparse.c). Contract and layout in lstmc_rt.h.
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
 */
#include "lstmc_rt.h"

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
    int64_t nbr, nbc, n_chk, k, len = 2;

    if (!e || rows < 1 || cols < 1 || !(e[0] == (float)rows) || !(e[1] == (float)cols))
        return -1;
    nbr = (rows + BLK_H - 1) / BLK_H;
    nbc = (cols + BLK_W - 1) / BLK_W;
    n_chk = nbr * nbc * (BLK_H / CHK_H);
    for (k = 0; k < n_chk; k++) {
        const float f = e[len];
        uint32_t w;

        if (!(f >= 0.0f && f < 32768.0f) || !(e[len + 1] >= 0.0f && e[len + 1] < 4096.0f))
            return -1;
        w = head_word(f) & 7u;
        if (w > BLK_W)
            return -1;
        len += 2 + (int64_t)w * CHK_H;
    }
    return len;
}

void
lstmc_rt_esell_spmv(const float *e, const float *x, float th, float *restrict y)
{
    const int64_t rows = (int64_t)e[0], cols = (int64_t)e[1];
    const int64_t nbr = (rows + BLK_H - 1) / BLK_H, nbc = (cols + BLK_W - 1) / BLK_W;
    const float *p = e + 2;
    int64_t bc, ck;

    for (bc = 0; bc < nbc; bc++) {
        float x4[BLK_W], s = 0.0f;
        int j, keep;

        for (j = 0; j < BLK_W; j++) {
            x4[j] = bc * BLK_W + j < cols ? x[bc * BLK_W + j] : 0.0f;
            s += x4[j] < 0.0f ? -x4[j] : x4[j];
        }
        keep = !(th > 0.0f) || !(s < th); /* rt_hsparse.c's group test */
        for (ck = 0; ck < nbr * (BLK_H / CHK_H); ck++) {
            const uint32_t h0 = head_word(p[0]), h1 = head_word(p[1]);
            const int w = (int)(h0 & 7u);
            const float *v = p + 2;
            int r, q;

            p += 2 + w * CHK_H;
            if (!keep || w == 0)
                continue;
            for (r = 0; r < CHK_H; r++) {
                const unsigned char *col = code_col[h0 >> (3 + 3 * r) & 7u];
                const int64_t row = ck / 2 * BLK_H + (int64_t)(h1 >> (3 * r) & 7u);
                float acc = 0.0f;

                for (q = 0; q < w; q++)
                    acc += v[q * CHK_H + r] * x4[col[q]];
                if (row < rows) /* the zero rows padding a partial block */
                    y[row] += acc;
            }
        }
    }
}
