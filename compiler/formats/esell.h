/*
 * esell.h — the eSELL sparse-matrix format of E-LSTM (Shi et al., "E-LSTM: An Efficient
 * Hardware Architecture for Long Short-Term Memory", ../shared/papers/elstm-*.txt §3.1).
 *
 * A matrix is cut into blocks of BLK_h x BLK_w = 8 x 4 (STEP1). Inside a block the rows are
 * sorted by descending non-zero count, remembering each row's original index IDX_row
 * (STEP2); the non-zeros of each row are shifted left and the block is split into two chunks
 * of CHK_h = 4 rows; a chunk's width CHK_w is the non-zero count of its first (longest) row,
 * shorter rows are padded with zeros (STEP3). The column indices of a chunk row are coded in
 * 3 bits by the tree of Fig. 4(b) (STEP4). Blocks are stored in chunk-column-major order:
 * block column by block column (the 4 input elements a block column multiplies), top to
 * bottom, so that a block column can be skipped as a whole when its 4 vector elements are
 * zero (hidden-state sparsity, §4.4).
 *
 * Choices where the paper is silent, taken from the authors' scripts
 * (github.com/rbshi/elstm software/esell_format.py): the code book of Fig. 4(b) (see
 * esell.c), the chunk head bit layout CHK_w | EIDX_col << 3 | IDX_row << 15 with the two
 * chunk heads of a block at bits 0 and 32 of one 64-bit head word, and value words holding
 * the 4 rows of one chunk column as fp16 with row i at bits 16*i. Ours differ in one place:
 * rows with equal non-zero counts keep their original order (a stable sort; numpy's argsort
 * there is not stable). A matrix whose size is not a multiple of 8 x 4 is padded with zero
 * rows/columns, which are never stored.
 */
#ifndef LSTMC_ESELL_H
#define LSTMC_ESELL_H

#include <stdint.h>

#include "wfmt.h" /* the fp16 converters */

typedef struct arena arena;

#define ESELL_BLK_H 8
#define ESELL_BLK_W 4
#define ESELL_CHK_H 4
#define ESELL_N_CHK (ESELL_BLK_H / ESELL_CHK_H)

/* One chunk: CHK_h rows of a block, after the permutation. */
typedef struct esell_chunk {
    uint8_t w;                  /* CHK_w: stored columns, 0..4 */
    uint8_t row[ESELL_CHK_H];   /* IDX_row: each row's index in its block, 0..7 */
    uint8_t eidx[ESELL_CHK_H];  /* EIDX_col: each row's 3-bit column code */
    int64_t val;                /* index of its first value in esell.val */
} esell_chunk;

/*
 * An encoded matrix. chunks[(bc * nbr + br) * 2 + k] is chunk k of the block at block row
 * br, block column bc. A chunk's values are w columns of 4 rows, column-major
 * (val[c->val + col * 4 + r]), zeros where a row is shorter than w.
 */
typedef struct esell {
    int64_t rows, cols; /* the dense matrix */
    int64_t nbr, nbc;   /* block rows ceil(rows/8), block columns ceil(cols/4) */
    esell_chunk *chunks;
    float *val;
    int64_t n_val; /* stored values, padding zeros included */
    int64_t nnz;   /* non-zeros of the dense matrix */
} esell;

/* The 3-bit code of a chunk row holding the n ascending columns cols[0..n-1] of a block
 * (0 <= cols[i] < 4, 0 <= n <= 4); -1 when cols is not strictly ascending in range. */
int esell_code(const int *cols, int n);

/* The column of the pos-th stored element of a row coded `code`, or -1 when the code
 * defines no column there (the element must then be a padding zero). */
int esell_code_col(int code, int pos);

/* Encode the rows x cols row-major matrix m (zeros are exact 0.0f; -0.0f is zero too).
 * Everything lives in a. Returns 0, or -1 when a size is out of range or a is full. */
int esell_encode(arena *a, const float *m, int64_t rows, int64_t cols, esell *out);

/* Write the dense rows x cols matrix back into m. Returns 0, or -1 when e is inconsistent
 * (a code without a column for a non-zero, a row index out of range, a row filled twice). */
int esell_decode(const esell *e, float *m);

/* y[rows] = E x[cols] in eSELL order (reference SpMV of the format). */
void esell_spmv(const esell *e, const float *x, float *y);

/* --- the runtime's layout (lstmc_rt.h, LSTMC_RT_PACK_ESELL; runtime/src/rt_spmv.c) ------- */

/* Floats of e's runtime section: rows, cols, two head floats per chunk, the values. */
int64_t esell_rt_len(const esell *e);

/* Write e's runtime section into out[esell_rt_len(e)]: rows, cols, the chunk heads
 * CHK_w | EIDX_col[r] << (3 + 3r) and IDX_row[r] << 3r as exact integer floats, then the
 * values of every chunk in the same order. */
void esell_rt_write(const esell *e, float *out);

/* --- sizes (Fig. 9), in bits ------------------------------------------------------ */

typedef struct esell_sizes {
    int64_t dense;       /* 16 bits per element */
    int64_t csr, csc;    /* 16-bit values + minimal-width indices and pointers */
    int64_t sell;        /* eSELL without STEP4: 2-bit column index per stored element */
    int64_t esell;       /* 16-bit stored values + 27-bit chunk heads */
    int64_t esell_value; /* of which values (padding included) */
    int64_t esell_index; /* of which EIDX_col (12 bits per chunk) */
    int64_t esell_rocc;  /* the RoCC word stream: 64 bits per head word and value word */
} esell_sizes;

/* Sizes of the formats for the matrix behind e. */
void esell_size(const esell *e, esell_sizes *s);

/* --- RoCC words (Fig. 5) ---------------------------------------------------------- */

/* Words of the stream: one head word per block, one value word per chunk column. */
int64_t esell_rocc_words(const esell *e);

/* Words of block column bc (what is skipped when its 4 vector elements are zero). */
int64_t esell_rocc_col_words(const esell *e, int64_t bc);

/* Pack e into out[esell_rocc_words(e)], values rounded to fp16. */
void esell_rocc_pack(const esell *e, uint64_t *out);

/* Decode a stream of n words for a rows x cols matrix into m (fp16 values widened).
 * Returns 0, or -1 when the stream is malformed (wrong length, bad code, row twice). */
int esell_rocc_unpack(const uint64_t *w, int64_t n, int64_t rows, int64_t cols, float *m);

#endif /* LSTMC_ESELL_H */
