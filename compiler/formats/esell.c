/*
 * esell.c — eSELL encode/decode, sizes, and the RoCC word packing of Fig. 5 (esell.h).
 */
#include "esell.h"

#include <string.h>

#include "arena.h"

/*
 * Fig. 4(b) as a decode table: code -> the columns a chunk row holds, in order, -1 past the
 * end. A node of the tree shares its code with its leftmost child, so one table serves
 * every depth: a row of n non-zeros is the first n entries of its code's line (the authors'
 * gen_codebook(): (1,2) and (1,2,3) are both 4, (0,3) is 3 and has no child).
 */
static const signed char code_cols[8][ESELL_BLK_W] = {
    {0, 1, 2, 3},   /* 0: (0) (0,1) (0,1,2) (0,1,2,3), and the empty row */
    {0, 1, 3, -1},  /* 1: (0,1,3) */
    {0, 2, 3, -1},  /* 2: (0,2) (0,2,3) */
    {0, 3, -1, -1}, /* 3: (0,3) */
    {1, 2, 3, -1},  /* 4: (1) (1,2) (1,2,3) */
    {1, 3, -1, -1}, /* 5: (1,3) */
    {2, 3, -1, -1}, /* 6: (2) (2,3) */
    {3, -1, -1, -1} /* 7: (3) */
};

int
esell_code(const int *cols, int n)
{
    int c, i;
    if (n < 0 || n > ESELL_BLK_W)
        return -1;
    for (i = 0; i < n; i++)
        if (cols[i] < 0 || cols[i] >= ESELL_BLK_W || (i > 0 && cols[i] <= cols[i - 1]))
            return -1;
    /* the smallest code whose line starts with cols: unique per depth by construction */
    for (c = 0; c < 8; c++) {
        for (i = 0; i < n && code_cols[c][i] == cols[i]; i++)
            ;
        if (i == n)
            return c;
    }
    return -1; /* not reached: every ascending sequence is in the tree */
}

int
esell_code_col(int code, int pos)
{
    if (code < 0 || code > 7 || pos < 0 || pos >= ESELL_BLK_W)
        return -1;
    return code_cols[code][pos];
}

/* --- encode / decode --------------------------------------------------------------- */

/* Element (r, c) of m, zero outside the matrix (the padding of a partial block). */
static float
at(const float *m, int64_t rows, int64_t cols, int64_t r, int64_t c)
{
    return r < rows && c < cols ? m[r * cols + c] : 0.0f;
}

/* Encode block (br, bc): the permutation, the chunk heads, the values at *nv onward. */
static void
encode_block(const float *m, int64_t rows, int64_t cols, int64_t br, int64_t bc,
             esell_chunk *chk, float *val, int64_t *nv)
{
    int nnz[ESELL_BLK_H], colsof[ESELL_BLK_H][ESELL_BLK_W], order[ESELL_BLK_H];
    int i, j, k;
    for (i = 0; i < ESELL_BLK_H; i++) {
        nnz[i] = 0;
        for (j = 0; j < ESELL_BLK_W; j++)
            if (at(m, rows, cols, br * ESELL_BLK_H + i, bc * ESELL_BLK_W + j) != 0.0f)
                colsof[i][nnz[i]++] = j;
    }
    /* STEP2: descending NNZ, stable (insertion sort of 8) */
    for (i = 0; i < ESELL_BLK_H; i++) {
        for (j = i; j > 0 && nnz[order[j - 1]] < nnz[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    /* STEP3/4: two chunks; CHK_w is the NNZ of the chunk's first row */
    for (k = 0; k < ESELL_N_CHK; k++) {
        esell_chunk *c = &chk[k];
        int w = nnz[order[k * ESELL_CHK_H]], r, p;
        c->w = (uint8_t)w;
        c->val = *nv;
        for (r = 0; r < ESELL_CHK_H; r++) {
            int row = order[k * ESELL_CHK_H + r];
            c->row[r] = (uint8_t)row;
            c->eidx[r] = (uint8_t)esell_code(colsof[row], nnz[row]);
            for (p = 0; p < w; p++)
                val[*nv + p * ESELL_CHK_H + r] =
                    p < nnz[row] ? at(m, rows, cols, br * ESELL_BLK_H + row,
                                      bc * ESELL_BLK_W + colsof[row][p])
                                 : 0.0f;
        }
        *nv += (int64_t)w * ESELL_CHK_H;
    }
}

int
esell_encode(arena *a, const float *m, int64_t rows, int64_t cols, esell *out)
{
    int64_t br, bc, nv = 0, i, n_chk;
    memset(out, 0, sizeof *out);
    if (rows <= 0 || cols <= 0 || rows > ((int64_t)1 << 31) / cols)
        return -1;
    out->rows = rows;
    out->cols = cols;
    out->nbr = (rows + ESELL_BLK_H - 1) / ESELL_BLK_H;
    out->nbc = (cols + ESELL_BLK_W - 1) / ESELL_BLK_W;
    n_chk = out->nbr * out->nbc * ESELL_N_CHK;
    out->chunks = arena_calloc(a, (size_t)n_chk, sizeof *out->chunks);
    /* at most every padded element is stored */
    out->val = arena_calloc(a, (size_t)(out->nbr * ESELL_BLK_H * out->nbc * ESELL_BLK_W),
                            sizeof *out->val);
    if (!out->chunks || !out->val)
        return -1;
    for (i = 0; i < rows * cols; i++)
        out->nnz += m[i] != 0.0f;
    for (bc = 0; bc < out->nbc; bc++)
        for (br = 0; br < out->nbr; br++)
            encode_block(m, rows, cols, br, bc,
                         &out->chunks[(bc * out->nbr + br) * ESELL_N_CHK], out->val, &nv);
    out->n_val = nv;
    return 0;
}

/* Put chunk c of block (br, bc) into m; vals[p * 4 + r] is row r's p-th element. The
 * written mask catches a row index used twice in a block. */
static int
decode_chunk(int64_t rows, int64_t cols, int64_t br, int64_t bc, int w, const uint8_t *row,
             const uint8_t *eidx, const float *vals, unsigned *written, float *m)
{
    int r, p;
    for (r = 0; r < ESELL_CHK_H; r++) {
        int64_t gr = br * ESELL_BLK_H + row[r];
        if (row[r] >= ESELL_BLK_H || eidx[r] > 7 || (*written & (1u << row[r])))
            return -1;
        *written |= 1u << row[r];
        for (p = 0; p < w; p++) {
            float v = vals[p * ESELL_CHK_H + r];
            int col = esell_code_col(eidx[r], p);
            int64_t gc = bc * ESELL_BLK_W + col;
            if (v == 0.0f)
                continue; /* padding, or a value fp16 flushed to zero */
            if (col < 0 || gr >= rows || gc >= cols)
                return -1;
            m[gr * cols + gc] = v;
        }
    }
    return 0;
}

int
esell_decode(const esell *e, float *m)
{
    int64_t br, bc;
    memset(m, 0, (size_t)(e->rows * e->cols) * sizeof *m);
    for (bc = 0; bc < e->nbc; bc++)
        for (br = 0; br < e->nbr; br++) {
            const esell_chunk *c = &e->chunks[(bc * e->nbr + br) * ESELL_N_CHK];
            unsigned written = 0;
            int k;
            for (k = 0; k < ESELL_N_CHK; k++)
                if (c[k].w > ESELL_BLK_W ||
                    decode_chunk(e->rows, e->cols, br, bc, c[k].w, c[k].row, c[k].eidx,
                                 e->val + c[k].val, &written, m) != 0)
                    return -1;
        }
    return 0;
}

void
esell_spmv(const esell *e, const float *x, float *y)
{
    int64_t br, bc;
    memset(y, 0, (size_t)e->rows * sizeof *y);
    for (bc = 0; bc < e->nbc; bc++)
        for (br = 0; br < e->nbr; br++) {
            const esell_chunk *c = &e->chunks[(bc * e->nbr + br) * ESELL_N_CHK];
            int k, r, p;
            for (k = 0; k < ESELL_N_CHK; k++)
                for (p = 0; p < c[k].w; p++)
                    for (r = 0; r < ESELL_CHK_H; r++) {
                        float v = e->val[c[k].val + p * ESELL_CHK_H + r];
                        int col = esell_code_col(c[k].eidx[r], p);
                        if (v != 0.0f)
                            y[br * ESELL_BLK_H + c[k].row[r]] += v * x[bc * ESELL_BLK_W + col];
                    }
        }
}

/* --- the runtime's layout ------------------------------------------------------------ */

int64_t
esell_rt_len(const esell *e)
{
    return 2 + e->nbr * e->nbc * ESELL_N_CHK * 2 + e->n_val;
}

void
esell_rt_write(const esell *e, float *out)
{
    int64_t k, n_chk = e->nbr * e->nbc * ESELL_N_CHK;
    float *val = out + 2 + 2 * n_chk;
    *out++ = (float)e->rows;
    *out++ = (float)e->cols;
    for (k = 0; k < n_chk; k++) { /* the stored chunk order is the runtime's walk */
        const esell_chunk *c = &e->chunks[k];
        uint32_t h0 = c->w, h1 = 0;
        int r;
        for (r = 0; r < ESELL_CHK_H; r++) {
            h0 |= (uint32_t)c->eidx[r] << (3 + 3 * r);
            h1 |= (uint32_t)c->row[r] << (3 * r);
        }
        *out++ = (float)h0;
        *out++ = (float)h1;
        memcpy(val, e->val + c->val, (size_t)c->w * ESELL_CHK_H * sizeof *val);
        val += c->w * ESELL_CHK_H;
    }
}

/* --- sizes ------------------------------------------------------------------------- */

/* Bits to write any value 0..n. */
static int64_t
bits_for(int64_t n)
{
    int64_t b = 1;
    while (b < 62 && ((int64_t)1 << b) <= n)
        b++;
    return b;
}

void
esell_size(const esell *e, esell_sizes *s)
{
    int64_t n_chk = e->nbr * e->nbc * ESELL_N_CHK;
    s->dense = 16 * e->rows * e->cols;
    s->csr = 16 * e->nnz + e->nnz * bits_for(e->cols - 1) + (e->rows + 1) * bits_for(e->nnz);
    s->csc = 16 * e->nnz + e->nnz * bits_for(e->rows - 1) + (e->cols + 1) * bits_for(e->nnz);
    s->esell_value = 16 * e->n_val;
    s->esell_index = 12 * n_chk;
    s->esell = s->esell_value + 27 * n_chk;
    s->sell = s->esell_value + 2 * e->n_val + 15 * n_chk;
    s->esell_rocc = 64 * esell_rocc_words(e);
}

/* --- RoCC words ---------------------------------------------------------------------- */

int64_t
esell_rocc_col_words(const esell *e, int64_t bc)
{
    int64_t br, n = 0;
    for (br = 0; br < e->nbr; br++) {
        const esell_chunk *c = &e->chunks[(bc * e->nbr + br) * ESELL_N_CHK];
        n += 1 + c[0].w + c[1].w;
    }
    return n;
}

int64_t
esell_rocc_words(const esell *e)
{
    int64_t bc, n = 0;
    for (bc = 0; bc < e->nbc; bc++)
        n += esell_rocc_col_words(e, bc);
    return n;
}

/* Fig. 5 chunk head: CHK_w (3) | EIDX_col (4 x 3) << 3 | IDX_row (4 x 3) << 15 = 27 bits */
static uint64_t
chunk_head(const esell_chunk *c)
{
    uint64_t h = c->w;
    int r;
    for (r = 0; r < ESELL_CHK_H; r++) {
        h |= (uint64_t)c->eidx[r] << (3 + 3 * r);
        h |= (uint64_t)c->row[r] << (15 + 3 * r);
    }
    return h;
}

void
esell_rocc_pack(const esell *e, uint64_t *out)
{
    int64_t br, bc, n = 0;
    for (bc = 0; bc < e->nbc; bc++)
        for (br = 0; br < e->nbr; br++) {
            const esell_chunk *c = &e->chunks[(bc * e->nbr + br) * ESELL_N_CHK];
            int k, p, r;
            out[n++] = chunk_head(&c[0]) | chunk_head(&c[1]) << 32;
            for (k = 0; k < ESELL_N_CHK; k++)
                for (p = 0; p < c[k].w; p++) {
                    uint64_t word = 0;
                    for (r = 0; r < ESELL_CHK_H; r++)
                        word |= (uint64_t)lowp_f32_to_f16(e->val[c[k].val + p * ESELL_CHK_H + r])
                                << (16 * r);
                    out[n++] = word;
                }
        }
}

int
esell_rocc_unpack(const uint64_t *w, int64_t n, int64_t rows, int64_t cols, float *m)
{
    int64_t nbr = (rows + ESELL_BLK_H - 1) / ESELL_BLK_H;
    int64_t nbc = (cols + ESELL_BLK_W - 1) / ESELL_BLK_W;
    int64_t br, bc, at_w = 0;
    if (rows <= 0 || cols <= 0)
        return -1;
    memset(m, 0, (size_t)(rows * cols) * sizeof *m);
    for (bc = 0; bc < nbc; bc++)
        for (br = 0; br < nbr; br++) {
            unsigned written = 0;
            uint64_t head;
            int k;
            if (at_w >= n)
                return -1;
            head = w[at_w++];
            if (head >> 59 || (head >> 27 & 0x1f)) /* bits 27..31 and 59..63 are unused */
                return -1;
            for (k = 0; k < ESELL_N_CHK; k++) {
                uint64_t h = head >> (32 * k) & 0x7ffffffu;
                uint8_t row[ESELL_CHK_H], eidx[ESELL_CHK_H];
                float vals[ESELL_BLK_W * ESELL_CHK_H];
                int cw = (int)(h & 7), r, p;
                if (cw > ESELL_BLK_W || at_w + cw > n)
                    return -1;
                for (r = 0; r < ESELL_CHK_H; r++) {
                    eidx[r] = (uint8_t)(h >> (3 + 3 * r) & 7);
                    row[r] = (uint8_t)(h >> (15 + 3 * r) & 7);
                }
                for (p = 0; p < cw; p++, at_w++)
                    for (r = 0; r < ESELL_CHK_H; r++)
                        vals[p * ESELL_CHK_H + r] =
                            lstmc_rt_f16_to_f32((uint16_t)(w[at_w] >> (16 * r)));
                if (decode_chunk(rows, cols, br, bc, cw, row, eidx, vals, &written, m) != 0)
                    return -1;
            }
        }
    return at_w == n ? 0 : -1;
}
