/*
 * lstmc_rt_kernels.h — the lstmc runtime's kernel ABI: what the generated <name>.c calls.
 *
 * The portable reference kernels (recurrent cells, GEMM, element-wise and data-movement ops,
 * tissues and dynamic row skip, reduced-precision and eSELL weights), their params structs,
 * the worker pool and wavefront hand-over of the multi-core kernels, the weight formats
 * (LSTMC_RT_WFMT_TABLE) and the ONE C copy of the RNN layout formulas (lstmc_rt_row_at /
 * y_at / state_at). The compiler links the very same kernels to fold constant subgraphs, so
 * what lstmc computes at compile time and what the device computes at run time cannot drift
 * apart. An application needs only lstmc_rt.h, which this header includes.
 *
 * Contract for every kernel:
 *   - it never allocates, prints, exits or aborts; it returns an lstmc_rt_status;
 *   - buffers are borrowed from the caller; inputs are const, outputs must not alias inputs
 *     unless a kernel says so;
 *   - shapes are fixed by the compiler and passed in a params struct whose fields are plain
 *     integers and floats, so the generated code can declare them `static const`;
 *   - element counts are int64_t, dims of a tensor are at most LSTMC_RT_MAX_RANK.
 */
#ifndef LSTMC_RT_KERNELS_H
#define LSTMC_RT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "lstmc_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- recurrent cells (ONNX LSTM / GRU / RNN, every attribute) ------------------------ */

/* Activation functions of the ONNX RNN operators, in the spec's notation. */
typedef enum lstmc_rt_act_kind {
    LSTMC_RT_ACT_SIGMOID = 0,          /* 1/(1+e^-x) */
    LSTMC_RT_ACT_TANH = 1,             /* tanh(x) */
    LSTMC_RT_ACT_RELU = 2,             /* max(0, x) */
    LSTMC_RT_ACT_HARD_SIGMOID = 3,     /* min(max(alpha*x + beta, 0), 1) */
    LSTMC_RT_ACT_AFFINE = 4,           /* alpha*x + beta */
    LSTMC_RT_ACT_LEAKY_RELU = 5,       /* x < 0 ? alpha*x : x */
    LSTMC_RT_ACT_THRESHOLDED_RELU = 6, /* x > alpha ? x : 0 */
    LSTMC_RT_ACT_SCALED_TANH = 7,      /* alpha*tanh(beta*x) */
    LSTMC_RT_ACT_ELU = 8,              /* x >= 0 ? x : alpha*(e^x - 1) */
    LSTMC_RT_ACT_SOFTSIGN = 9,         /* x/(1+|x|) */
    LSTMC_RT_ACT_SOFTPLUS = 10         /* log(1+e^x) */
} lstmc_rt_act_kind;

typedef struct lstmc_rt_act {
    int32_t kind; /* lstmc_rt_act_kind */
    float alpha;  /* already defaulted by the compiler where the spec gives a default */
    float beta;
} lstmc_rt_act;

/* Apply one activation to a scalar. */
float lstmc_rt_act_apply(const lstmc_rt_act *a, float x);

typedef enum lstmc_rt_cell {
    LSTMC_RT_CELL_LSTM = 0, /* gates i o f c, W [D,4H,I], R [D,4H,H], B [D,8H], P [D,3H] (i o f) */
    LSTMC_RT_CELL_GRU = 1,  /* gates z r h,   W [D,3H,I], R [D,3H,H], B [D,6H] */
    LSTMC_RT_CELL_RNN = 2   /* gate  i,       W [D,H,I],  R [D,H,H],  B [D,2H] */
} lstmc_rt_cell;

/*
 * One recurrent layer exactly as the ONNX operators LSTM/GRU/RNN define it.
 * Dims:  T = seq_len, N = batch, I = input_size, H = hidden, D = n_dirs.
 * layout 0:  X [T,N,I]  Y [T,D,N,H]  Y_h/Y_c [D,N,H]  initial_h/c [D,N,H]
 * layout 1:  X [N,T,I]  Y [N,T,D,H]  Y_h/Y_c [N,D,H]  initial_h/c [N,D,H]
 * act[] holds the activations per direction in spec order: LSTM f,g,h (forward first, then
 * reverse), GRU f,g, RNN f.
 * sequence_lens entries must lie in [0, T]; for an entry s, Y rows t >= s are zero and
 * Y_h/Y_c are the state after s steps (the initial state, or zero, when s == 0).
 */
typedef struct lstmc_rt_rnn_params {
    int32_t cell;       /* lstmc_rt_cell */
    int64_t seq_len;    /* T */
    int64_t batch;      /* N */
    int64_t input_size; /* I */
    int64_t hidden;     /* H */
    int32_t n_dirs;     /* D: 1 or 2 */
    int32_t reverse;    /* D == 1 only: 1 runs the single direction backwards */
    int32_t layout;     /* 0 or 1, see above */
    int32_t has_clip;   /* 1: clip gate pre-activations to [-clip, clip] */
    float clip;
    int32_t input_forget;        /* LSTM: couple input and forget gates */
    int32_t linear_before_reset; /* GRU */
    lstmc_rt_act act[6];
    int32_t packed; /* lstmc_rt_rnn_rec only: 1 = R packed transposed, see there */
    float hsparse_th; /* lstmc_rt_rnn_rec, LSTM: > 0 skips the U columns of each group of 4
                         h elements whose summed |h| is below it (E-LSTM §4.4; 0 = exact) */
} lstmc_rt_rnn_params;

/*
 * Where an element of the layouts above lives: the ONE C copy of these formulas, used by
 * the runtime's kernels (rt_rnn.c, rt_tissue.c, rt_drs.c) and by lstmc analyze's replay.
 * The LLVM emitter (codegen/llvm/rec.c, drs.c, tissue.c) and the OpenCL kernels (ROW_AT,
 * Y_AT, STATE_AT in codegen/opencl/kernels/rnn.cl) build the same offsets in their own
 * languages.
 */

/* Row index of (t, n) in X's (and P's) own order: layout 0 [T, N], layout 1 [N, T]. */
static inline int64_t
lstmc_rt_row_at(const lstmc_rt_rnn_params *p, int64_t t, int64_t n)
{
    return p->layout ? n * p->seq_len + t : t * p->batch + n;
}

/* Offset (floats) of row (t, d, n) of Y: layout 0 [T, D, N, H], layout 1 [N, T, D, H]. */
static inline int64_t
lstmc_rt_y_at(const lstmc_rt_rnn_params *p, int64_t t, int32_t d, int64_t n)
{
    const int64_t D = p->n_dirs;

    return (p->layout ? (n * p->seq_len + t) * D + d : (t * D + d) * p->batch + n) * p->hidden;
}

/* Offset of row (d, n) of Y_h, Y_c, initial_h, initial_c: [D, N, H] or [N, D, H]. */
static inline int64_t
lstmc_rt_state_at(const lstmc_rt_rnn_params *p, int32_t d, int64_t n)
{
    return (p->layout ? n * p->n_dirs + d : d * p->batch + n) * p->hidden;
}

/* Scratch floats lstmc_rt_rnn needs for p (h, c and gate buffers). */
int64_t lstmc_rt_rnn_scratch(const lstmc_rt_rnn_params *p);

/*
 * Run the layer. X, W, R are required; B, seq_lens, init_h, init_c, P may be NULL (zero /
 * full length); Y, Y_h, Y_c may be NULL when the output is not wanted. scratch holds
 * lstmc_rt_rnn_scratch(p) floats. Returns LSTMC_RT_ERR_SEQ_LEN for a bad sequence_lens entry.
 */
typedef lstmc_rt_status lstmc_rt_rnn_fn(const lstmc_rt_rnn_params *p, const float *X,
                                        const float *W, const float *R, const float *B,
                                        const int32_t *seq_lens, const float *init_h,
                                        const float *init_c, const float *P, float *Y,
                                        float *Y_h, float *Y_c, float *scratch);
/* The recurrent kernels have a function type, FN_fn (FN_lowp_fn for the reduced-precision
 * variants, whose weights are words): a kernel specialised to a model (the LLVM kernels
 * NAME_k<i>, the OpenCL wrappers) has the type of the runtime kernel it replaces, and the
 * generated code declares it by that type. */
lstmc_rt_rnn_fn lstmc_rt_rnn;

/*
 * The same layer split as the Arm paper's schedule A+ (§IV, Algorithm 2): G = [W | U] is
 * broken into G1 = W, applied to every time step at once before the time loop, and G2 = U,
 * the only matrix the loop still reads.
 *
 * lstmc_rt_rnn_proj — line 5, X' = G1 * I': for every direction d and every row r of X
 * viewed as [rows, I] (rows = T*N, in X's own order), P[d][r][g] = bias[d][g] +
 * sum_i X[r][i] * W[d][g][i] for g < G*H.
 *   packed = 1: w is W packed transposed [D, I, G*H] and b the summed bias [D, G*H]
 *               (Wb + Rb; for a GRU with linear_before_reset, Wb alone on the h gate);
 *   packed = 0: w is W as ONNX has it [D, G*H, I] and b is ONNX's B [D, 2*G*H], summed here.
 * b may be NULL (no bias).
 */
typedef struct lstmc_rt_rnn_proj_params {
    int32_t cell;       /* lstmc_rt_cell */
    int32_t n_dirs;     /* D */
    int64_t rows;       /* T * N */
    int64_t input_size; /* I */
    int64_t hidden;     /* H */
    int32_t linear_before_reset;
    int32_t packed;
} lstmc_rt_rnn_proj_params;

typedef lstmc_rt_status lstmc_rt_rnn_proj_fn(const lstmc_rt_rnn_proj_params *p, const float *X,
                                             const float *w, const float *b, float *P);
lstmc_rt_rnn_proj_fn lstmc_rt_rnn_proj;

/*
 * lstmc_rt_rnn_rec — lines 6-17: the time loop of lstmc_rt_rnn with the input projection
 * and biases already in P [D, rows, G*H] (rows in X's order: layout 0 t*N + n, layout 1
 * n*T + t). With p->packed = 1, r is R packed transposed [D, H, G*H] and rb the GRU's Rbh
 * [D, H] (linear_before_reset = 1 only: it multiplies r, so it cannot be folded into P); with
 * p->packed = 0, r is ONNX's R [D, G*H, H] and rb ONNX's B [D, 2*G*H] (only Rbh is read).
 * rb is NULL when there is no such bias. Everything else, including sequence_lens and the
 * outputs, is as lstmc_rt_rnn; p->input_size is not used. scratch holds
 * lstmc_rt_rnn_scratch(p) floats.
 */
typedef lstmc_rt_status lstmc_rt_rnn_rec_fn(const lstmc_rt_rnn_params *p, const float *P,
                                            const float *r, const float *rb,
                                            const int32_t *seq_lens, const float *init_h,
                                            const float *init_c, const float *Peep, float *Y,
                                            float *Y_h, float *Y_c, float *scratch);
lstmc_rt_rnn_rec_fn lstmc_rt_rnn_rec;

/* --- dense linear algebra ------------------------------------------------------------ */

/*
 * ONNX Gemm: Y[M,N] = alpha * A'[M,K] * B'[K,N] + beta * C, where A' = trans_a ? A^T : A
 * (A stored [K,M] when transposed) and B' likewise. C (may be NULL) is broadcast to [M,N]
 * through its strides: element (m,n) is C[m*c_stride_m + n*c_stride_n] (0 for a broadcast
 * dim).
 */
typedef struct lstmc_rt_gemm_params {
    int64_t m, n, k;
    int32_t trans_a, trans_b;
    float alpha, beta;
    int64_t c_stride_m, c_stride_n;
} lstmc_rt_gemm_params;

lstmc_rt_status lstmc_rt_gemm(const lstmc_rt_gemm_params *p, const float *A, const float *B,
                              const float *C, float *Y);

/*
 * numpy MatMul of float tensors after the compiler has resolved broadcasting: the output is
 * batch dims batch[0..n_batch) then [M,N]. For batch index vector b, A's matrix starts at
 * sum b[i]*a_stride[i] (elements) and B's at sum b[i]*b_stride[i]; a stride is 0 on a
 * broadcast dim. Each matrix is row-major, A [M,K], B [K,N].
 */
typedef struct lstmc_rt_matmul_params {
    int32_t n_batch;
    int64_t batch[LSTMC_RT_MAX_RANK];
    int64_t a_stride[LSTMC_RT_MAX_RANK];
    int64_t b_stride[LSTMC_RT_MAX_RANK];
    int64_t m, n, k;
} lstmc_rt_matmul_params;

lstmc_rt_status lstmc_rt_matmul(const lstmc_rt_matmul_params *p, const float *A, const float *B,
                                float *Y);

/* --- element-wise ------------------------------------------------------------------ */

typedef enum lstmc_rt_binop {
    LSTMC_RT_ADD = 0,
    LSTMC_RT_SUB = 1,
    LSTMC_RT_MUL = 2,
    LSTMC_RT_DIV = 3 /* integer division truncates toward zero, as ONNX Runtime does */
} lstmc_rt_binop;

/*
 * out = a (op) b with numpy broadcasting resolved by the compiler: out has dims
 * out_dims[0..rank); element at index vector j reads a[sum j[i]*a_stride[i]] and
 * b[sum j[i]*b_stride[i]] (stride 0 on broadcast dims). dtype is F32, I64 or I32;
 * a, b and out share it. Integer division by zero yields 0.
 */
typedef struct lstmc_rt_binary_params {
    int32_t op;    /* lstmc_rt_binop */
    int32_t dtype; /* lstmc_rt_dtype */
    int32_t rank;  /* 0 for scalars */
    int64_t out_dims[LSTMC_RT_MAX_RANK];
    int64_t a_stride[LSTMC_RT_MAX_RANK];
    int64_t b_stride[LSTMC_RT_MAX_RANK];
} lstmc_rt_binary_params;

lstmc_rt_status lstmc_rt_binary(const lstmc_rt_binary_params *p, const void *a, const void *b,
                                void *out);

typedef enum lstmc_rt_unop {
    LSTMC_RT_RELU = 0,
    LSTMC_RT_SIGMOID = 1,
    LSTMC_RT_TANH = 2,
    LSTMC_RT_NEG = 3,
    LSTMC_RT_EXP = 4,
    LSTMC_RT_SQRT = 5
} lstmc_rt_unop;

/* out[i] = op(in[i]) for n float elements; in and out may be the same buffer. */
typedef struct lstmc_rt_unary_params {
    int32_t op; /* lstmc_rt_unop */
    int64_t n;
} lstmc_rt_unary_params;

lstmc_rt_status lstmc_rt_unary(const lstmc_rt_unary_params *p, const float *in, float *out);

/*
 * Softmax (log_softmax = 0) or LogSoftmax (1) over the middle dim of a tensor viewed as
 * [outer, axis_len, inner]. The compiler maps both the opset-13 per-axis form (inner = prod
 * of dims after axis) and the older 2-D coercion (inner = 1, axis_len = prod of dims from
 * axis on) onto this. Numerically stable (max subtracted).
 */
typedef struct lstmc_rt_softmax_params {
    int32_t log_softmax;
    int64_t outer, axis_len, inner;
} lstmc_rt_softmax_params;

lstmc_rt_status lstmc_rt_softmax(const lstmc_rt_softmax_params *p, const float *in, float *out);

/* Cast n elements from one dtype to another; float to integer truncates toward zero. */
typedef struct lstmc_rt_cast_params {
    int32_t from, to; /* lstmc_rt_dtype */
    int64_t n;
} lstmc_rt_cast_params;

lstmc_rt_status lstmc_rt_cast(const lstmc_rt_cast_params *p, const void *in, void *out);

/*
 * ArgMax (ArgMin with smallest) over the middle dim of [outer, axis_len, inner]; out is
 * int64 [outer, inner]. Ties: the first index, or the last with select_last_index. dtype is F32,
 * I64 or I32.
 */
typedef struct lstmc_rt_argmax_params {
    int32_t dtype;
    int32_t select_last_index;
    int64_t outer, axis_len, inner;
    int32_t smallest; /* 1: ArgMin (the index of the smallest value) */
} lstmc_rt_argmax_params;

lstmc_rt_status lstmc_rt_argmax(const lstmc_rt_argmax_params *p, const void *in, int64_t *out);

/* --- data movement ----------------------------------------------------------------- */

/*
 * Strided N-d copy, the one kernel behind Transpose, Expand, Slice and broadcasting copies:
 * for every index vector j over out_dims[0..rank), out (contiguous, row-major) gets
 * in[offset + sum j[i]*in_stride[i]]. Strides and offset are in elements and may be
 * negative (Slice with negative steps) or 0 (broadcast). elem_size is 1, 2, 4 or 8 bytes.
 * rank is at most LSTMC_RT_STRIDED_MAX_DIMS (a Tile reads each axis as two dims).
 */
typedef struct lstmc_rt_strided_params {
    int32_t rank;
    int32_t elem_size;
    int64_t offset;
    int64_t out_dims[LSTMC_RT_STRIDED_MAX_DIMS];
    int64_t in_stride[LSTMC_RT_STRIDED_MAX_DIMS];
} lstmc_rt_strided_params;

lstmc_rt_status lstmc_rt_strided_copy(const lstmc_rt_strided_params *p, const void *in,
                                      void *out);

/*
 * Gather along one axis: data viewed as [outer, axis_len, inner], indices (n_indices
 * entries, dtype I64 or I32; negative ones count from the end) give out
 * [outer, n_indices, inner]. An index outside [-axis_len, axis_len) returns
 * LSTMC_RT_ERR_INDEX and leaves out partly written.
 */
typedef struct lstmc_rt_gather_params {
    int32_t elem_size;
    int32_t index_dtype;
    int64_t outer, axis_len, inner;
    int64_t n_indices;
} lstmc_rt_gather_params;

lstmc_rt_status lstmc_rt_gather(const lstmc_rt_gather_params *p, const void *data,
                                const void *indices, void *out);

/*
 * One input of a Concat: in viewed as [outer, in_axis*inner] is written into out viewed as
 * [outer, out_axis*inner] starting at column `offset` (elements). The compiler calls it once
 * per input with increasing offsets.
 */
typedef struct lstmc_rt_concat_params {
    int32_t elem_size;
    int64_t outer;
    int64_t in_cols;  /* in_axis * inner */
    int64_t out_cols; /* out_axis * inner */
    int64_t offset;
} lstmc_rt_concat_params;

lstmc_rt_status lstmc_rt_concat(const lstmc_rt_concat_params *p, const void *in, void *out);

/* Fill n elements of elem_size bytes with the value at `value` (ConstantOfShape). */
lstmc_rt_status lstmc_rt_fill(void *out, int64_t n, int32_t elem_size, const void *value);

/* Copy n bytes (Reshape, Squeeze, Unsqueeze, Flatten, Identity); src == dst is allowed. */
lstmc_rt_status lstmc_rt_copy(void *dst, const void *src, int64_t n_bytes);

/* --- issue 20, red: reductions, LayerNorm, Pad, TopK, ScatterElements (rt_reduce.c) --- */

typedef enum lstmc_rt_reduce_op {
    LSTMC_RT_REDUCE_MEAN = 0,
    LSTMC_RT_REDUCE_SUM = 1,
    LSTMC_RT_REDUCE_MAX = 2,
    LSTMC_RT_REDUCE_MIN = 3,
    LSTMC_RT_REDUCE_L2 = 4,         /* sqrt of the sum of squares */
    LSTMC_RT_REDUCE_SUM_SQUARE = 5, /* the sum of squares */
    LSTMC_RT_REDUCE_L1 = 6,         /* the sum of absolute values */
    LSTMC_RT_REDUCE_PROD = 7,       /* the product */
    LSTMC_RT_REDUCE_LOG_SUM = 8,    /* log of the sum */
    LSTMC_RT_REDUCE_LOG_SUM_EXP = 9 /* log of the sum of exp, accumulated as logaddexp */
} lstmc_rt_reduce_op;

/*
 * ReduceMean / Sum / Max / Min / L2 over any set of axes: in has dims[0..rank); axis i is
 * reduced when reduce[i] is 1. out holds the kept axes in order (keepdims only changes the
 * shape, not the bytes). The compiler merges neighbouring axes of the same kind, so rank is
 * small (at most 2 * #reduced + 1). dtype is F32 (every op), I64 or I32 (SUM, MAX, MIN,
 * SUM_SQUARE, L1, PROD; integers wrap). Float sums accumulate in float, as ONNX Runtime
 * does. A reduction over zero elements gives 0 (SUM, MEAN: NaN as 0/0, L2, SUM_SQUARE,
 * L1), 1 (PROD), -inf (LOG_SUM, LOG_SUM_EXP) or the dtype's lowest / highest value
 * (MAX / MIN).
 */
typedef struct lstmc_rt_reduce_params {
    int32_t op;    /* lstmc_rt_reduce_op */
    int32_t dtype; /* lstmc_rt_dtype */
    int32_t rank;
    int64_t dims[LSTMC_RT_MAX_RANK];
    int32_t reduce[LSTMC_RT_MAX_RANK];
} lstmc_rt_reduce_params;

lstmc_rt_status lstmc_rt_reduce(const lstmc_rt_reduce_params *p, const void *in, void *out);

/*
 * LayerNormalization (opset 17) over the last n elements of each of `outer` rows:
 *   mean = sum x / n, var = sum (x - mean)^2 / n,
 *   Y = (x - mean) / sqrt(var + epsilon) * Scale + B
 * Scale and B (B may be NULL) hold n values, or one value broadcast (scale_stride /
 * bias_stride 0). Mean and variance are float, two passes over the row.
 */
typedef struct lstmc_rt_layernorm_params {
    int64_t outer, n;
    float epsilon;
    int32_t scale_stride, bias_stride; /* 1: one value per element of the row; 0: one value */
} lstmc_rt_layernorm_params;

typedef lstmc_rt_status lstmc_rt_layernorm_fn(const lstmc_rt_layernorm_params *p, const float *X,
                                              const float *scale, const float *B, float *Y);
lstmc_rt_layernorm_fn lstmc_rt_layernorm; /* the LLVM kernels have this type too */

/*
 * LayerNormalization's optional outputs, row by row of the same [outer, n] view (scale_stride
 * and bias_stride unused): mean[o] and inv_std_dev[o] = 1 / sqrt(var + epsilon), computed as
 * lstmc_rt_layernorm computes them (the same float operations in the same order), so Y, Mean
 * and InvStdDev agree. Either output may be NULL (not asked for).
 */
lstmc_rt_status lstmc_rt_layernorm_stats(const lstmc_rt_layernorm_params *p, const float *X,
                                         float *mean, float *inv_std_dev);

/*
 * InstanceNormalization of X [outer, channels, inner] (N, C, the spatial dims merged): each
 * row of `inner` values is normalised with its own mean and variance (the rows of
 * lstmc_rt_layernorm), then scaled and shifted by its channel's scale[c] and B[c]:
 *   Y = (x - mean) / sqrt(var + epsilon) * scale[c] + B[c]
 */
typedef struct lstmc_rt_instancenorm_params {
    int64_t outer, channels, inner;
    float epsilon;
} lstmc_rt_instancenorm_params;

lstmc_rt_status lstmc_rt_instancenorm(const lstmc_rt_instancenorm_params *p, const float *X,
                                      const float *scale, const float *B, float *Y);

typedef enum lstmc_rt_pad_mode {
    LSTMC_RT_PAD_CONSTANT = 0,
    LSTMC_RT_PAD_REFLECT = 1, /* mirrored without repeating the edge: numpy "reflect" */
    LSTMC_RT_PAD_EDGE = 2     /* the edge value repeated */
} lstmc_rt_pad_mode;

/*
 * Pad: out has dims in_dims[i] + begin[i] + end[i], and out element j reads in at
 * j[i] - begin[i] on every axis; a coordinate outside [0, in_dims[i]) takes `value`
 * (CONSTANT), the mirrored coordinate (REFLECT, as often as needed) or the nearest edge
 * (EDGE). Negative pads crop. elem_size is 1, 2, 4 or 8; value holds one element.
 * REFLECT and EDGE need every padded axis non-empty (else LSTMC_RT_ERR_BAD_PARAMS).
 */
typedef struct lstmc_rt_pad_params {
    int32_t mode; /* lstmc_rt_pad_mode */
    int32_t rank;
    int32_t elem_size;
    int64_t in_dims[LSTMC_RT_MAX_RANK];
    int64_t begin[LSTMC_RT_MAX_RANK];
    int64_t end[LSTMC_RT_MAX_RANK];
    unsigned char value[8];
} lstmc_rt_pad_params;

lstmc_rt_status lstmc_rt_pad(const lstmc_rt_pad_params *p, const void *in, void *out);

/*
 * TopK over the middle dim of in viewed as [outer, axis_len, inner]: values [outer, k,
 * inner] (dtype F32, I64 or I32) and their indices (int64). The k largest (largest = 1) or
 * smallest, best first; equal values keep their order (the lower index first), as ONNX
 * specifies. `sorted` = 0 is allowed and gives the same (sorted) order. k <= axis_len.
 */
typedef struct lstmc_rt_topk_params {
    int32_t dtype;
    int32_t largest, sorted;
    int64_t outer, axis_len, inner, k;
} lstmc_rt_topk_params;

lstmc_rt_status lstmc_rt_topk(const lstmc_rt_topk_params *p, const void *in, void *values,
                              int64_t *indices);

typedef enum lstmc_rt_scatter_reduction {
    LSTMC_RT_SCATTER_NONE = 0,
    LSTMC_RT_SCATTER_ADD = 1,
    LSTMC_RT_SCATTER_MUL = 2,
    LSTMC_RT_SCATTER_MAX = 3,
    LSTMC_RT_SCATTER_MIN = 4
} lstmc_rt_scatter_reduction;

/*
 * ScatterElements: out = data, then for every index vector j over idx_dims[0..rank),
 * out[j with axis coordinate replaced by indices[j]] (op)= updates[j]. data has
 * data_dims; indices (I64 or I32; negative ones count from the end) and updates have
 * idx_dims. dtype F32, I64 or I32. An index outside [-data_dims[axis], data_dims[axis])
 * returns LSTMC_RT_ERR_INDEX before anything is written. out may be data.
 */
typedef struct lstmc_rt_scatter_params {
    int32_t dtype;
    int32_t index_dtype;
    int32_t reduction; /* lstmc_rt_scatter_reduction */
    int32_t rank, axis;
    int64_t data_dims[LSTMC_RT_MAX_RANK];
    int64_t idx_dims[LSTMC_RT_MAX_RANK];
} lstmc_rt_scatter_params;

lstmc_rt_status lstmc_rt_scatter_elements(const lstmc_rt_scatter_params *p, const void *data,
                                          const void *indices, const void *updates, void *out);

/* --- inter-cell optimisation: breakpoints and tissues (MICRO'18 §IV), LSTM ------------ */

/*
 * lstmc_rt_lstm_relevance — MICRO'18 Algorithm 2: the relevance value S of the link from the
 * previous cell to the current one. x is the current cell's projection row [4H] (X^j + b^j:
 * lstmc_rt_rnn_proj folds the biases into P) and dsum the row sums D = sum|U| [4H]
 * (fold_constants' "row_abs_sum"), both in the kernels' ONNX gate order i, o, f, c. Per
 * element j (a = |X^j + b^j|):
 *   S_f^j = min(4, max(X_f^j + b_f^j + D_f^j + 2, 0))                      line 4
 *   S_g^j = min(2 + min(2, a), min(2, 2 + D_g^j - max(2, a)))  g = i, c, o  line 5
 *   S    += S_o^j * (S_f^j + S_i^j * S_c^j)                                 lines 6-7
 * One deviation, needed for the result to mean anything: line 5 goes negative when the
 * whole range [a - D, a + D] lies in the insensitive area (a > 2 + D); that is "no
 * overlap", so S_g is clamped at 0 (otherwise two negative gates would multiply into a
 * positive relevance). Hence S >= 0 always, and S == 0 when U == 0.
 */
float lstmc_rt_lstm_relevance(int64_t hidden, const float *x, const float *dsum);

/*
 * lstmc_rt_lstm_relevance_shifted — S with a calibrated bound (--relevance=calibrated,
 * docs/TUNING.md "The relevance"): Algorithm 2 with X^j + b^j + shift^j in place of
 * X^j + b^j and radius^j in place of D^j, where shift is the mean of U^j h_{t-1} and radius
 * a high quantile of its deviation from that mean over the calibration samples (lstmc
 * calibrate). shift NULL is lstmc_rt_lstm_relevance(hidden, x, radius), to the bit.
 */
float lstmc_rt_lstm_relevance_shifted(int64_t hidden, const float *x, const float *radius,
                                      const float *shift);

/*
 * lstmc_rt_lstm_sensitivity — the relevance of --relevance=sensitivity (docs/TUNING.md "The
 * relevance"): how far the gates of the cell can move when h_{t-1} moves over its calibrated
 * range, to first order. With z = x + shift (the centre of U h's range added to X + b) and r
 * = radius, per unit j
 *   S += 1/4 (T4(z_i) r_i + T4(z_o) r_o + T4(z_f) r_f) + T2(z_c) r_c
 * where T4(z) = max(0, 1 - |z| / 4) and T2(z) = max(0, 1 - |z| / 2) are the triangles under
 * sigmoid' / (1/4) and tanh' (rows i, o, f, c as the kernels store them): no exp, the same
 * floats in every kernel. A link whose gates are saturated, or whose U h barely varies,
 * scores low.
 */
float lstmc_rt_lstm_sensitivity(int64_t hidden, const float *x, const float *radius,
                                const float *shift);

/*
 * lstmc_rt_lstm_sensitivity_scale — radius scaled in place so that the sensitivity lies in
 * [0, 1]: divided by sum_j 1/4 (r_i + r_o + r_f) + r_c, the S of a cell whose gates all sit
 * at the peak of their slope (--relevance=sensitivity stores the radii so: one alpha_inter
 * then means the same fraction of the largest possible sensitivity in every layer). Radii
 * that sum to 0 are left as they are.
 */
void lstmc_rt_lstm_sensitivity_scale(int64_t hidden, float *radius);

/* The relevance of the links of a tissue layer (lstmc_rt_tissue_params.relevance). */
typedef enum lstmc_rt_relevance {
    LSTMC_RT_REL_BOUND = 0,       /* Algorithm 2: radius D = sum|U|, row_abs_sum [D, 4H] */
    LSTMC_RT_REL_CALIBRATED = 1,  /* Algorithm 2 on the calibrated range: [D, 2, 4H] */
    LSTMC_RT_REL_SENSITIVITY = 2  /* lstmc_rt_lstm_sensitivity on it: [D, 2, 4H] */
} lstmc_rt_relevance;

/*
 * lstmc_rt_lstm_tissue_pack — lay U out for lstmc_rt_lstm_tissue: from Ut, U packed transposed
 * [D, H, 4H] (fold_constants' form, lstmc_rt_rnn_rec's input), to column panels of 16 gate
 * columns, each [H, 16] row-major (the last panel narrower when 4H is not a multiple of 16),
 * so the per-tissue product reads U contiguously. Up holds D * H * 4H floats. The compiler
 * calls it once at compile time (breakpoints pass).
 */
lstmc_rt_status lstmc_rt_lstm_tissue_pack(int64_t n_dirs, int64_t hidden, const float *Ut,
                                          float *Up);

/* The layer (rnn.cell = LSTM, rnn.packed = 1) and its maximum tissue size. */
typedef struct lstmc_rt_tissue_params {
    lstmc_rt_rnn_params rnn;
    int32_t mts; /* maximum tissue size (MICRO'18 §IV-C, from the target), >= 1 */
    /* the links' relevance (lstmc_rt_relevance) and so what row_abs_sum holds: BOUND [D, 4H]
     * radii D = sum|U|; CALIBRATED and SENSITIVITY [D, 2, 4H], per direction the radii of U
     * h's calibrated range, then the shifts of its centre */
    int32_t relevance;
    /* the longest sub-layer (--max-sublayer; 0: no limit): a sub-layer about to grow past
     * max_run cells is cut at its lowest-S link in the second half of that run (a forced
     * breakpoint, whatever alpha_inter), so every layer runs in about seq_len / (max_run
     * * 3/4) tissues or fewer */
    int32_t max_run;
    /* U's storage format (issue 24): LSTMC_RT_WFMT_FP32, or _FP16 / _BF16, Up then holding
     * the same panels as 2-byte elements (lstmc_rt_lowp_pack's conversion, widened to float as
     * they are read), or _INT8, Up then holding D x 4H float column scales s[d][g] and then
     * the panels as int8 q (U[d][k][g] = s[d][g] q; each gate adds s[g] sum_k h_k q[k][g], as
     * the exact int8 recurrence); with DRS inside tissues (lstmc_rt_lstm_tissue_drs) Uo and
     * Ufic are in this format too (lstmc_rt_lstm_drs_f16's layouts) */
    int32_t wfmt;
} lstmc_rt_tissue_params;

/* Scratch lstmc_rt_lstm_tissue needs, in 4-byte words (floats and int32); -1 for bad p. */
int64_t lstmc_rt_lstm_tissue_scratch(const lstmc_rt_tissue_params *p);

/*
 * lstmc_rt_lstm_tissue — the LSTM time loop of lstmc_rt_rnn_rec reorganised as MICRO'18 §IV:
 * per direction (Fig. 10 steps 5-9),
 *   1. breakpoint search: for every batch entry n and every link into step k >= 1 of its own
 *      sequence, S = lstmc_rt_lstm_relevance(P row of that step, row_abs_sum[d]); the link
 *      is cut when S < alpha_inter (strict: alpha_inter <= 0, or NaN, cuts nothing). Each
 *      batch entry's sequence is a chain; the cuts split it into sub-layers;
 *   2. tissue formation and alignment (lstmc_rt_tissue_align, p->mts), sub-layers ordered by
 *      batch entry, then by step;
 *   3. per tissue, one pass over U: gates[cells, 4H] = P rows + H_prev[cells, H] x U, U
 *      streamed once for all the tissue's cells; then the element-wise update of
 *      every cell, exactly lstmc_rt_rnn_rec's (clip, activations, peepholes, input_forget).
 * The first sub-layer of a chain starts from init_h/init_c (or zero) as usual; every other
 * sub-layer starts from the predicted context link h_pred[d] [D, H] (Eq. 6) and the
 * predicted cell state c_pred[d] [D, H]; NULL for either means zero (no calibration).
 * With alpha_inter = 0 nothing is cut: N chains, tissues of one cell per batch entry (while
 * N <= mts), the same numbers as lstmc_rt_rnn_rec.
 *
 * Up is U from lstmc_rt_lstm_tissue_pack [D, H * 4H]. P, seq_lens, init_h, init_c, Peep, Y,
 * Y_h, Y_c are as lstmc_rt_rnn_rec's. row_abs_sum [D, 4H] ([D, 2, 4H] with a calibrated
 * p->relevance: then S is lstmc_rt_lstm_relevance_shifted's or lstmc_rt_lstm_sensitivity's)
 * may be NULL only when alpha_inter <= 0.
 * alpha_inter is an argument, not a params field, so that it can change per run. stats may
 * be NULL. scratch holds lstmc_rt_lstm_tissue_scratch(p) 4-byte words (any 4-aligned
 * address). Errors: LSTMC_RT_ERR_NULL, LSTMC_RT_ERR_BAD_PARAMS (not an LSTM, not packed,
 * mts < 1, sizes out of range), LSTMC_RT_ERR_SEQ_LEN; all checked before any output is
 * written.
 */
typedef lstmc_rt_status lstmc_rt_lstm_tissue_fn(const lstmc_rt_tissue_params *p,
                                                float alpha_inter, const float *P,
                                                const void *Up, const float *row_abs_sum,
                                                const int32_t *seq_lens, const float *init_h,
                                                const float *init_c, const float *Peep,
                                                const float *h_pred, const float *c_pred,
                                                float *Y, float *Y_h, float *Y_c,
                                                lstmc_rt_tissue_stats *stats, void *scratch);
lstmc_rt_lstm_tissue_fn lstmc_rt_lstm_tissue;
/* p->wfmt says Up's format: one function (and type) for every format */
typedef lstmc_rt_lstm_tissue_fn lstmc_rt_lstm_tissue_lowp_fn;

/* --- intra-cell optimisation: dynamic row skip (MICRO'18 §V, Algorithm 3), LSTM ------- */

/*
 * Dynamic row skip. h_t = o_t . h(c_t) (Eq. 5): where the output gate o_t is near zero, h_t is
 * near zero whatever c_t is, so rows j of U_f, U_i, U_c (which only feed c_t[j]) are skipped
 * for that cell. Per cell (Algorithm 3 lines 4-8):
 *   4  go = P_o + U_o h_{t-1}                (Sgemv(U_o, h_{t-1}))
 *   5  o_t = f(clip(go))                     (lstm_ew(o_t))
 *   6  R = { j : |o_t[j]| >= alpha_intra }   (DRS(o_t, alpha_intra, R): lstmc_rt_drs_compact)
 *   7  for j in R: rows j of U_i, U_f, U_c times h_{t-1}   (Sgemv(U_f,i,c, h_{t-1}, R))
 *   8  for j in R: c_t[j], h_t[j] as the exact cell;
 *      for j not in R: c_t[j] = 0 (the paper's approximation of c_t) and
 *                      h_t[j] = o_t[j] . h(0) (Eq. 5 with that c_t: 0 for tanh).
 * R here is the compact list of the rows that are KEPT (the paper's R lists the trivial
 * rows; the complement carries the same information and is what the row kernel iterates
 * over, so every iteration does useful work). alpha_intra <= 0 (or NaN) keeps every row,
 * and the result is the exact cell. With sigmoid as f, o >= 0 and |o| < alpha is the paper's
 * "o below the near-zero threshold".
 *
 * Weights (lstmc_rt_drs_pack, done once at compile time by the drs pass):
 *   Uo   [D, H, H]    Uo[d][k][j] = U_o[j][k]: k-major like the packed Ut, so line 4 sums
 *                     P_o + h[0]*U[0][j] + h[1]*U[1][j] + ... exactly as lstmc_rt_rnn_rec;
 *   Ufic [D, H, 3, H] Ufic[d][j][g][k] = U_g[j][k], g = i, f, c: the three rows of hidden unit
 *                     j are one contiguous block of 3H floats, so a skipped unit is a block
 *                     that is never touched (no load, no multiply).
 * Only LSTMs qualify: GRU and vanilla RNN cells have no output gate, so there is no o_t
 * that tells which rows of the recurrent matrix cannot reach h_t (the GRU's h_t mixes the
 * candidate with h_{t-1} through z_t, which is no multiplicative mask on everything U
 * computes). A peephole on the output gate (P_o != 0) makes o_t depend on c_t, which needs
 * every row; such layers are not eligible either (P_i, P_f are fine).
 *
 * An OpenCL (or other GPU) backend follows the same split: one kernel for lines 4-5 (one
 * work-item per o column), a work-group prefix sum over the keep flags for line 6 (R and its
 * length, the software counterpart of the paper's CTA reorganisation module), and a row
 * kernel launched over R only (work-item r handles unit R[r]), so no work-item idles on a
 * skipped row; lstmc_rt_drs_stats is summed on the host from the R lengths.
 */

/* Ut [D, H, 4H] (fold_constants' packed form, gates i o f c) -> Uo [D, H, H] and
 * Ufic [D, H, 3, H] as above. */
lstmc_rt_status lstmc_rt_drs_pack(int64_t n_dirs, int64_t hidden, const float *Ut, float *Uo,
                                  float *Ufic);

/* Scratch lstmc_rt_lstm_drs needs, in 4-byte words (h, c, 4H work, R, a second h for the LLVM
 * kernel on threads); -1 for bad p. */
int64_t lstmc_rt_lstm_drs_scratch(const lstmc_rt_rnn_params *p);

/*
 * lstmc_rt_lstm_drs — lstmc_rt_rnn_rec's LSTM time loop (p->cell = LSTM, p->packed = 1) with
 * every cell run by lstmc_rt_lstm_drs_cell. Uo [D, H, H] and Ufic [D, H*3*H] come from
 * lstmc_rt_drs_pack; P, seq_lens, init_h, init_c, Peep, Y, Y_h, Y_c are as lstmc_rt_rnn_rec's.
 * alpha_intra is an argument, not a params field, so that it can change per run; 0 gives the
 * same floats as lstmc_rt_rnn_rec (the rows are summed in the same order). stats may be NULL
 * (it is set, not added to). Errors (checked before any output is written):
 * LSTMC_RT_ERR_NULL, LSTMC_RT_ERR_BAD_PARAMS (not a packed LSTM, a non-zero P_o peephole),
 * LSTMC_RT_ERR_SEQ_LEN.
 */
typedef lstmc_rt_status lstmc_rt_lstm_drs_fn(const lstmc_rt_rnn_params *p, float alpha_intra,
                                             const float *P, const void *Uo,
                                             const void *Ufic, const int32_t *seq_lens,
                                             const float *init_h, const float *init_c,
                                             const float *Peep, float *Y, float *Y_h,
                                             float *Y_c, lstmc_rt_drs_stats *stats,
                                             void *scratch);
lstmc_rt_lstm_drs_fn lstmc_rt_lstm_drs;
/* Issue 24: lstmc_rt_lstm_drs with Uo and Ufic stored in fp16, bf16 or int8 ("reduced-precision
 * weights" below: Uo as D x [H, H], Ufic as D x [H, 3H], int8 with one scale per column of Uo
 * and per row of Ufic in front, so each gate adds s * sum_k h_k q as the exact int8
 * recurrence). alpha_intra = 0 gives the floats of lstmc_rt_rnn_rec_f16 / _bf16 / _i8 with the
 * same values (lstmc_rt_drs_pack's split of U before conversion). */
typedef lstmc_rt_lstm_drs_fn lstmc_rt_lstm_drs_lowp_fn;
lstmc_rt_lstm_drs_lowp_fn lstmc_rt_lstm_drs_f16, lstmc_rt_lstm_drs_bf16, lstmc_rt_lstm_drs_i8;

/*
 * DRS inside tissues (MICRO'18 §IV + §V): lstmc_rt_lstm_tissue with every tissue's cells run
 * as Algorithm 3. Per tissue of m cells:
 *   lines 4-5  go[m, H] = P_o rows + H_prev[m, H] x U_o (one pass over U_o for the tissue,
 *              U_o k-major as lstmc_rt_drs_pack writes it), o_t of every cell;
 *   line 6     R_c per cell c (lstmc_rt_drs_compact), and the tissue's union of them;
 *   line 7     for each unit j in the union, its three rows of U_f,i,c are loaded once and
 *              multiplied only for the cells of the tissue whose R_c holds j (the row stays
 *              in L1 for those cells); a unit no cell of the tissue keeps is never loaded;
 *   line 8     per cell as lstmc_rt_lstm_drs_cell.
 * So a row is skipped for a cell whose o is below the threshold (no multiply), and its load
 * is saved only when every cell of the tissue skips it: drs_stats->rows_loaded counts the
 * loads (3 per unit of the union per tissue), rows_skipped the multiplies saved.
 * Arguments are lstmc_rt_lstm_tissue's with Up unused (may be NULL) and Uo, Ufic
 * (lstmc_rt_drs_pack) after c_pred; alpha_intra and drs_stats (may be NULL) as
 * lstmc_rt_lstm_drs's. Peep's P_o part must be zero (LSTMC_RT_ERR_BAD_PARAMS otherwise).
 * alpha_intra = 0 gives the floats of lstmc_rt_lstm_tissue.
 */
int64_t lstmc_rt_lstm_tissue_drs_scratch(const lstmc_rt_tissue_params *p);
typedef lstmc_rt_status lstmc_rt_lstm_tissue_drs_fn(
    const lstmc_rt_tissue_params *p, float alpha_inter, float alpha_intra, const float *P,
    const void *Up, const float *row_abs_sum, const int32_t *seq_lens, const float *init_h,
    const float *init_c, const float *Peep, const float *h_pred, const float *c_pred,
    const void *Uo, const void *Ufic, float *Y, float *Y_h, float *Y_c,
    lstmc_rt_tissue_stats *stats, lstmc_rt_drs_stats *drs_stats, void *scratch);
lstmc_rt_lstm_tissue_drs_fn lstmc_rt_lstm_tissue_drs;
/* p->wfmt says Uo's and Ufic's format (lstmc_rt_lstm_drs_f16's layouts); one function for all */
typedef lstmc_rt_lstm_tissue_drs_fn lstmc_rt_lstm_tissue_drs_lowp_fn;

/*
 * The tissue plan, shared by lstmc_rt_lstm_tissue(_drs) and the LLVM tissue kernels
 * (codegen/llvm/), so that both cut and align alike. Offsets are in 4-byte words
 * from the start of the kernel's scratch; C = T*N cells per direction.
 */
typedef struct lstmc_rt_tissue_layout {
    int64_t cells;     /* C */
    int64_t cap;       /* most cells of a tissue: min(mts, C), >= 1 */
    int64_t slots;     /* state slots: min(2 mts, C), >= 1 */
    int64_t gates;     /* float [cap, 4H]: the tissue's gate rows */
    int64_t hbuf;      /* float [cap, H]: its cells' h_{t-1} */
    int64_t hbuf2;     /* float [cap, H]: a second hbuf, for kernels on threads (the LLVM one
                          alternates them, so a tissue's gather need not wait for the others
                          to finish reading the last one's) */
    int64_t state;     /* float [slots, 2H]: h then c of each live sub-layer */
    int64_t tstart;    /* int32 [C + 1]: tissue k holds cells [tstart[k], tstart[k+1]) */
    int64_t cell_n;    /* int32 [C], in execution order: the cell's batch entry */
    int64_t cell_t;    /* int32 [C]: its time step (row t of P and Y) */
    int64_t cell_slot; /* int32 [C]: its state slot */
    int64_t cell_flag; /* int32 [C]: LSTMC_RT_TISSUE_* */
    int64_t rel;       /* float [C]: room for a caller's relevance values (plan's rel) */

    int64_t plan;      /* the planner's own words */
    int64_t words;     /* lstmc_rt_lstm_tissue_scratch */
} lstmc_rt_tissue_layout;

#define LSTMC_RT_TISSUE_SEQ_START 1 /* first cell of a sequence: init_h/init_c or zero */
#define LSTMC_RT_TISSUE_CUT_START 2 /* first cell after a cut: h_pred/c_pred or zero */
#define LSTMC_RT_TISSUE_SEQ_END   4 /* last cell of a sequence: its state is Y_h/Y_c */

/* The layout of p's scratch; 0, or -1 for bad p (as lstmc_rt_lstm_tissue_scratch). */
int lstmc_rt_tissue_layout_of(const lstmc_rt_tissue_params *p, lstmc_rt_tissue_layout *l);

/*
 * Steps 1 and 2 of lstmc_rt_lstm_tissue for direction d (P, row_abs_sum and seq_lens whole,
 * as the kernel gets them): the cuts, the sub-layers, their tissues, and the schedule in
 * the layout's tstart / cell_* words: cells grouped by tissue, each with its batch entry,
 * step, state slot (a sub-layer's, reused once it ends) and flags. rel, when not NULL, gives
 * S of the link into each row of P (direction d's [C], in P's row order) instead of computing
 * it here from P and row_abs_sum. Adds to *stats. Returns the number of tissues, or -1 (bad
 * arguments, a sequence length out of [0, T]).
 */
int32_t lstmc_rt_tissue_plan(const lstmc_rt_tissue_params *p, int32_t d, float alpha_inter,
                             const float *P, const float *row_abs_sum, const float *rel,
                             const int32_t *seq_lens, lstmc_rt_tissue_stats *stats, void *scratch);

/*
 * lstmc_rt_tissue_plan with the links' relevance as integer scores: score(score_ctx, r) is the
 * score of the link into row r of P (direction d's rows), and a link is cut when its score is
 * below alpha_key (alpha_key <= 0 cuts nothing; score may then be NULL, and it is NULL also
 * when there is nothing to rank --max-sublayer's forced cuts by: they fall on the first link
 * of the window). lstmc_rt_tissue_plan is this with the bits of the float S and alpha_inter
 * as the scores (for S >= 0 the same order); the full-integer tissues (lstmc_rt_lstm_tissue_q)
 * score in fixed point. Same result and errors as lstmc_rt_tissue_plan.
 */
typedef int64_t lstmc_rt_tissue_score_fn(const void *score_ctx, int64_t row);
int32_t lstmc_rt_tissue_plan_scored(const lstmc_rt_tissue_params *p, int32_t d, int64_t alpha_key,
                                    lstmc_rt_tissue_score_fn *score, const void *score_ctx,
                                    const int32_t *seq_lens, lstmc_rt_tissue_stats *stats,
                                    void *scratch);

/* --- reduced-precision weights (issue 12, docs/PRECISION.md; rt_lowp.c) --------------- */

/*
 * The storage formats of G1 (lstmc_rt_rnn_proj's w) and G2 (lstmc_rt_rnn_rec's r) under
 * lstmc --weights=fp32|fp16|bf16|int8, as ONE table shared by the runtime and the compiler
 * (compiler/formats/wfmt.c: names, parse, bytes): a new format is one row here, a decoder in
 * rt_lowp.c and an encoder in wfmt.c. The kernels convert each weight to float when they read
 * it and accumulate in float.
 *
 * Layout of a weight tensor of D directions, each packed transposed [K, G*H] (K = I for G1,
 * H for G2; column g is output row g of W or U), in 4-byte words, little-endian:
 *   FP16, BF16  D*K*G*H 16-bit values [D][K][G*H] (IEEE binary16 / bfloat16);
 *   INT8        D*G*H float scales s[d][g], then D*K*G*H int8 q [D][K][G*H]:
 *               w[d][k][g] = s[d][g] * q[d][k][g] (one scale per output row).
 * The tensor is padded to a whole number of words. Only packed weights have these forms.
 */
/* X(ID, name, bytes per weight, fp32 scales per output row); the row order is the value of
 * LSTMC_RT_WFMT_<ID> (the "wfmt" attribute, kp_call.wfmt and the OpenCL WFMT/RFMT macros). */
#define LSTMC_RT_WFMT_TABLE(X)                                                                \
    X(FP32, "fp32", 4, 0)                                                                     \
    X(FP16, "fp16", 2, 0)                                                                     \
    X(BF16, "bf16", 2, 0)                                                                     \
    X(INT8, "int8", 1, 1)

typedef enum lstmc_rt_wfmt {
#define LSTMC_RT_WFMT_ENUM(id, name, bytes, row_scales) LSTMC_RT_WFMT_##id,
    LSTMC_RT_WFMT_TABLE(LSTMC_RT_WFMT_ENUM)
#undef LSTMC_RT_WFMT_ENUM
    LSTMC_RT_WFMT_COUNT
} lstmc_rt_wfmt;

/* IEEE binary16 / bfloat16 bits to float (exact: every value of either is a float). */
float lstmc_rt_f16_to_f32(uint16_t h);
float lstmc_rt_bf16_to_f32(uint16_t h);

/* Bytes of a weight tensor of D x [K, GH] in format wfmt (unpadded), -1 for a bad wfmt. */
int64_t lstmc_rt_lowp_bytes(int32_t wfmt, int64_t D, int64_t K, int64_t GH);

/* lstmc_rt_rnn_proj with packed weights (p->packed = 1) stored as wfmt. */
typedef lstmc_rt_status lstmc_rt_rnn_proj_lowp_fn(const lstmc_rt_rnn_proj_params *p,
                                                  const float *X, const void *w,
                                                  const float *b, float *P);
lstmc_rt_rnn_proj_lowp_fn lstmc_rt_rnn_proj_f16, lstmc_rt_rnn_proj_bf16, lstmc_rt_rnn_proj_i8;

/* lstmc_rt_rnn_rec with packed weights (p->packed = 1) stored as wfmt; hsparse_th must be 0.
 * lstmc_rt_rnn_rec_fmt is the one behind them all (rt_rnn.c). */
lstmc_rt_status lstmc_rt_rnn_rec_fmt(int32_t wfmt, const lstmc_rt_rnn_params *p,
                                     const float *P, const void *r, const float *rb,
                                     const int32_t *seq_lens, const float *init_h,
                                     const float *init_c, const float *Peep, float *Y,
                                     float *Y_h, float *Y_c, float *scratch);
typedef lstmc_rt_status lstmc_rt_rnn_rec_lowp_fn(const lstmc_rt_rnn_params *p,
                                                 const float *P, const void *r,
                                                 const float *rb, const int32_t *seq_lens,
                                                 const float *init_h, const float *init_c,
                                                 const float *Peep, float *Y, float *Y_h,
                                                 float *Y_c, float *scratch);
lstmc_rt_rnn_rec_lowp_fn lstmc_rt_rnn_rec_f16, lstmc_rt_rnn_rec_bf16, lstmc_rt_rnn_rec_i8;

/* --- sparse weights in eSELL (E-LSTM §3.1; rt_spmv.c) ---------------------------------- */

/*
 * packed = LSTMC_RT_PACK_ESELL (lstmc_rt_rnn_proj, and lstmc_rt_rnn_rec for LSTM and RNN
 * cells): the weight argument holds, for each direction in turn, one eSELL section of
 * that direction's matrix in ONNX orientation (W [G*H, I], R [G*H, H]) — y = M x. A section
 * is floats: rows, cols, then per chunk (block column by block column, top to bottom, two
 * chunks of 4 rows per 8 x 4 block) a head of two floats holding small integers,
 * CHK_w | EIDX_col[r] << (3 + 3r) and IDX_row[r] << 3r (r = 0..3); then, in the same chunk
 * order, each chunk's CHK_w x 4 values, column by column. Written by passes/sparse.c with
 * compiler/esell.c.
 */
#define LSTMC_RT_PACK_ESELL 2

/* --- full-integer recurrent layers (issue 22, docs/PRECISION.md; rt_rnnq.c) ---------- */

/*
 * One LSTM / GRU / RNN layer in integers only: the recipe of docs/PRECISION.md ("Full-integer
 * recurrent layers"), which this kernel is the bit-exact reference of. Sizes, directions,
 * reverse and layouts as lstmc_rt_rnn_params; act[] holds LSTMC_RT_ACT_SIGMOID, _TANH or
 * (RNN only) _RELU per direction in spec order. No field is a float.
 */
typedef struct lstmc_rt_rnnq_params {
    int32_t cell;       /* lstmc_rt_cell */
    int32_t bits;       /* 8 or 16: X, init_h, Y, Y_h are int8_t or int16_t */
    int64_t seq_len;    /* T */
    int64_t batch;      /* N */
    int64_t input_size; /* I */
    int64_t hidden;     /* H */
    int32_t n_dirs;     /* D: 1 or 2 */
    int32_t reverse;    /* D == 1 only */
    int32_t layout;     /* 0 or 1 */
    int32_t act[6];     /* lstmc_rt_act_kind */
    int32_t has_clip;
    int32_t clip_q;     /* clip in Q.12 */
    int32_t input_forget;
    int32_t linear_before_reset;
    int32_t cell_exp;   /* LSTM: c = c_q * 2^-cell_exp, 0..15 */
    int32_t h_mult, h_shift;       /* the requantisation to h (per cell kind, see the doc) */
    int32_t peep_mult, peep_shift; /* Peep * c to Q.12 */
} lstmc_rt_rnnq_params;

/* Per-row integers of Q [D, G*H, LSTMC_RT_RNNQ_ROW]. */
enum {
    LSTMC_RT_RNNQ_MW = 0,
    LSTMC_RT_RNNQ_NW = 1,
    LSTMC_RT_RNNQ_MU = 2,
    LSTMC_RT_RNNQ_NU = 3,
    LSTMC_RT_RNNQ_ZC = 4,
    LSTMC_RT_RNNQ_BW = 5,
    LSTMC_RT_RNNQ_BR = 6,
    LSTMC_RT_RNNQ_ROW = 8
};

/* Scratch int32 words lstmc_rt_rnn_q needs for p. */
int64_t lstmc_rt_rnnq_scratch(const lstmc_rt_rnnq_params *p);

/*
 * Run the layer: X [T, N, I] (layout 1: [N, T, I]) of int8_t or int16_t (p->bits), W int8
 * [D, G*H, I], U int8 [D, G*H, H], Q int32 [D, G*H, 8]; seq_lens, init_h (bits), init_c
 * (int16), Peep (int16 [D, 3H]) may be NULL; Y, Y_h (bits), Y_c (int16) may be NULL.
 * Returns LSTMC_RT_ERR_BAD_PARAMS for inconsistent params, LSTMC_RT_ERR_SEQ_LEN for a bad
 * sequence_lens entry.
 */
typedef lstmc_rt_status lstmc_rt_rnn_q_fn(const lstmc_rt_rnnq_params *p, const void *X,
                                          const int8_t *W, const int8_t *U, const int32_t *Q,
                                          const int32_t *seq_lens, const void *init_h,
                                          const int16_t *init_c, const int16_t *Peep, void *Y,
                                          void *Y_h, int16_t *Y_c, int32_t *scratch);
lstmc_rt_rnn_q_fn lstmc_rt_rnn_q;

/*
 * Breakpoints and tissues on a full-integer LSTM layer (issue 24; MICRO'18 §IV on the recipe
 * above): lstmc_rt_lstm_tissue's schedule with lstmc_rt_rnn_q's integers. Per direction:
 *   1. every step's W x as lstmc_rt_rnn_q, and from it the Q3.12 x_r = the recipe's W term
 *      plus both biases of row r (z without the U h term);
 *   2. the relevance of the link into each step in fixed point, no float: with R's radius
 *      r_q and shift m_q ([D, 2, 4H] int32: per direction the 4H radii, then the 4H shifts,
 *      Q3.12) and z = x + m, Algorithm 2's terms in Q.12 (2 = 8192, clamped at 0 as
 *      lstmc_rt_lstm_relevance's) and S_q = sum_j so (sf 4096 + si sc), which is S * 2^36;
 *      SENSITIVITY: radii in Q.24, T4 = max(0, 16384 - |z|), T2 = 2 max(0, 8192 - |z|)
 *      (Q.14), S_q = sum_j T4i ri + T4o ro + T4f rf + 4 T2c rc = S * 2^40. A link is cut when
 *      S_q < ceil(alpha_inter * 2^36) (2^40), computed from alpha_inter's bits;
 *   3. lstmc_rt_tissue_plan_scored's sub-layers and tissues (mts, max_run as there);
 *   4. per tissue one pass over U: each row of U is multiplied with the h of every cell of
 *      the tissue while it is in L1, then every cell is updated exactly as lstmc_rt_rnn_q's
 *      step. A sub-layer after a cut starts from h_pred [D, H] (the layer's h type) and
 *      c_pred [D, H] (int16, the cell's Q), zero when NULL.
 * So every cell computes the integers of lstmc_rt_rnn_q's step on its own h and c: with
 * alpha_inter <= 0 the result is lstmc_rt_rnn_q's, bit for bit. p->q.cell must be LSTM.
 * Other arguments as lstmc_rt_rnn_q's (R, h_pred, c_pred after them); stats may be NULL; scratch holds
 * lstmc_rt_lstm_tissue_q_scratch(p) int32 words.
 */
typedef struct lstmc_rt_tissueq_params {
    lstmc_rt_rnnq_params q;
    int32_t mts;       /* as lstmc_rt_tissue_params' */
    int32_t relevance; /* lstmc_rt_relevance: what R holds */
    int32_t max_run;   /* as lstmc_rt_tissue_params' */
} lstmc_rt_tissueq_params;

int64_t lstmc_rt_lstm_tissue_q_scratch(const lstmc_rt_tissueq_params *p);
typedef lstmc_rt_status lstmc_rt_lstm_tissue_q_fn(
    const lstmc_rt_tissueq_params *p, float alpha_inter, const void *X, const int8_t *W,
    const int8_t *U, const int32_t *Q, const int32_t *seq_lens, const void *init_h,
    const int16_t *init_c, const int16_t *Peep, const int32_t *R, const void *h_pred,
    const int16_t *c_pred, void *Y, void *Y_h, int16_t *Y_c, lstmc_rt_tissue_stats *stats,
    int32_t *scratch);
lstmc_rt_lstm_tissue_q_fn lstmc_rt_lstm_tissue_q;
/*
 * Both (issue 24): lstmc_rt_lstm_tissue_q's tissues with every cell run as
 * lstmc_rt_lstm_drs_q's (Algorithm 3 inside tissues, as lstmc_rt_lstm_tissue_drs): per
 * tissue each cell's o rows, its kept units, and the rows i, f, c of a unit multiplied for
 * the cells that keep it, loaded once for the tissue (drs_stats as there: rows_loaded 3 per
 * unit some cell keeps, per tissue). alpha_intra 0 gives lstmc_rt_lstm_tissue_q's integers,
 * alpha_inter 0 lstmc_rt_lstm_drs_q's. P_o must be zero. Scratch: lstmc_rt_lstm_tissue_q's.
 */
typedef lstmc_rt_status lstmc_rt_lstm_tissue_drs_q_fn(
    const lstmc_rt_tissueq_params *p, float alpha_inter, float alpha_intra, const void *X,
    const int8_t *W, const int8_t *U, const int32_t *Q, const int32_t *seq_lens,
    const void *init_h, const int16_t *init_c, const int16_t *Peep, const int32_t *R,
    const void *h_pred, const int16_t *c_pred, void *Y, void *Y_h, int16_t *Y_c,
    lstmc_rt_tissue_stats *stats, lstmc_rt_drs_stats *drs_stats, int32_t *scratch);
lstmc_rt_lstm_tissue_drs_q_fn lstmc_rt_lstm_tissue_drs_q;

/*
 * Dynamic row skip on a full-integer LSTM layer (issue 24; MICRO'18 §V, Algorithm 3 on the
 * recipe above): per cell, the o rows of U first (U_o h_{t-1}) and o = the recipe's o gate
 * (Q0.15); a unit j is kept when |o_j| >= ceil(alpha_intra * 2^15) (from alpha_intra's bits:
 * alpha_intra <= 0 or NaN keeps every unit, and the result is lstmc_rt_rnn_q's bit for bit);
 * for a kept unit the rows i, f, c of U are multiplied and the unit updated exactly as
 * lstmc_rt_rnn_q's step; for a skipped one they are not read, c_j = 0 and h_j = the recipe's
 * h of o_j and c = 0 (sat(requant(o_j h_act(0)))). U stays in the layer's row layout [D, 4H, H]
 * (a unit's rows are j, 2H + j, 3H + j). Arguments as lstmc_rt_rnn_q's (p->cell LSTM; the
 * peephole's P_o part must be zero: o may not depend on c_t), stats as lstmc_rt_lstm_drs's
 * (may be NULL); scratch: lstmc_rt_rnnq_scratch(p) int32 words.
 */
typedef lstmc_rt_status lstmc_rt_lstm_drs_q_fn(const lstmc_rt_rnnq_params *p, float alpha_intra,
                                               const void *X, const int8_t *W, const int8_t *U,
                                               const int32_t *Q, const int32_t *seq_lens,
                                               const void *init_h, const int16_t *init_c,
                                               const int16_t *Peep, void *Y, void *Y_h,
                                               int16_t *Y_c, lstmc_rt_drs_stats *stats,
                                               int32_t *scratch);
lstmc_rt_lstm_drs_q_fn lstmc_rt_lstm_drs_q;

/* The fixed-point threshold of step 2: ceil(alpha * 2^frac) from alpha's bits (no float
 * arithmetic); 0 for alpha <= 0 or NaN, INT64_MAX past int64. */
int64_t lstmc_rt_fixed_threshold(float alpha, int32_t frac);

/* The Q0.15 activation of a Q3.12 value through the interpolated table (the recipe's act). */
int32_t lstmc_rt_q_sigmoid(int32_t v);
int32_t lstmc_rt_q_tanh(int32_t v);
/* The 513 entries of act's table (LSTMC_RT_ACT_SIGMOID or _TANH): what other kernels of the
 * recipe (the LLVM ones) copy. */
const int16_t *lstmc_rt_q_table(int32_t act);

/*
 * The integer Gemm after full-integer layers (issue 22, --io=int): Y[m][j] = bias[j] +
 * sum_k (A[m][k] - a_zero_point) * B[j][k], A int8 or int16 (bits) [M, K], B int8 [N, K] (one
 * row per output), bias int32 [N] or NULL, Y int32 [M, N]: exact integers (int64 sums,
 * saturated to int32). Y's real value is Y * (A's scale * B's scale), which the compiler
 * keeps.
 */
typedef struct lstmc_rt_gemmq_params {
    int64_t m, n, k;
    int32_t bits; /* 8 or 16 */
    int32_t a_zero_point;
} lstmc_rt_gemmq_params;

lstmc_rt_status lstmc_rt_gemm_q(const lstmc_rt_gemmq_params *p, const void *A, const int8_t *B,
                                const int32_t *bias, int32_t *Y);

/*
 * QuantizeLinear / DequantizeLinear of n elements with one scale and zero point, ONNX's
 * semantics: q = sat(round_half_even(x / scale) + zero_point) into int8 (bits 8) or int16
 * (bits 16); x = (q - zero_point) * scale.
 */
typedef struct lstmc_rt_quant_params {
    int64_t n;
    int32_t bits; /* 8 or 16; dequantize also 32 (int32: lstmc_rt_gemm_q's output) */
    float scale;
    int32_t zero_point;
} lstmc_rt_quant_params;

lstmc_rt_status lstmc_rt_quantize(const lstmc_rt_quant_params *p, const float *x, void *q);
lstmc_rt_status lstmc_rt_dequantize(const lstmc_rt_quant_params *p, const void *q, float *x);

/* --- worker threads of the multi-core kernels (rt_pool.c) ----------------------------- */

/*
 * fn(ctx, first, end) runs slices [first, end) of a kernel. lstmc_rt_pool_start(n) (in
 * <name>_init) starts n - 1 workers once and returns the threads the pool has (1 without
 * LSTMC_RT_THREADS); lstmc_rt_pool_run(fn, ctx, n) runs slice t on thread t when the pool has
 * exactly n threads, else all n slices in order on the caller; lstmc_rt_pool_barrier waits
 * for every slice of the running job (nothing when the slices run in order). No malloc.
 */
typedef void (*lstmc_rt_pool_job)(void *ctx, int first, int end);
int lstmc_rt_pool_start(int n);
int lstmc_rt_pool_threads(void);
void lstmc_rt_pool_run(lstmc_rt_pool_job fn, void *ctx, int n);
void lstmc_rt_pool_barrier(void);

/*
 * Hand-over between the stages of a wavefront kernel (compiler/kprog/schedule.c, issue 4): stage q posts
 * how many time steps of its last layer are complete (lstmc_rt_wave_post, a release store),
 * stage q + 1 waits until at least `steps` are (lstmc_rt_wave_wait, an acquire load; spins,
 * then sleeps until a post wakes it). lstmc_rt_wave_reset zeroes every stage's count before a run. The stages of a
 * run that lstmc_rt_pool_run executes in order on one thread never wait: each one finds its
 * predecessor complete. Without LSTMC_RT_THREADS all three do nothing.
 */
void lstmc_rt_wave_reset(void);
void lstmc_rt_wave_post(int stage, int64_t steps);
void lstmc_rt_wave_wait(int stage, int64_t steps);

/* --- issue 20, elt: comparisons, logic, Where, parametric unary ops, Range, CumSum --- */

/* The ops of lstmc_rt_ewise (rt_eltwise2.c), in the notation of the ONNX operators. */
typedef enum lstmc_rt_ewop {
    LSTMC_RT_EW_EQUAL = 0,         /* a == b -> bool */
    LSTMC_RT_EW_LESS = 1,          /* a < b -> bool */
    LSTMC_RT_EW_GREATER = 2,       /* a > b -> bool */
    LSTMC_RT_EW_LESS_EQUAL = 3,    /* a <= b -> bool */
    LSTMC_RT_EW_GREATER_EQUAL = 4, /* a >= b -> bool */
    LSTMC_RT_EW_AND = 5,           /* bool a && b */
    LSTMC_RT_EW_OR = 6,            /* bool a || b */
    LSTMC_RT_EW_NOT = 7,           /* bool !a */
    LSTMC_RT_EW_WHERE = 8,         /* a (bool) ? b : c */
    LSTMC_RT_EW_POW = 9,           /* pow(a, b); b may have its own dtype (b_dtype) */
    LSTMC_RT_EW_RECIPROCAL = 10,   /* 1 / a */
    LSTMC_RT_EW_LOG = 11,          /* log(a) */
    LSTMC_RT_EW_ABS = 12,          /* |a| */
    LSTMC_RT_EW_CLIP = 13,         /* min(max(a, b), c); b or c NULL: no bound */
    LSTMC_RT_EW_LEAKY_RELU = 14,   /* a < 0 ? alpha * a : a */
    LSTMC_RT_EW_HARD_SIGMOID = 15, /* max(0, min(1, alpha * a + beta)) */
    LSTMC_RT_EW_HARD_SWISH = 16,   /* a * max(0, min(1, a / 6 + 1 / 2)) */
    LSTMC_RT_EW_ERF = 17,          /* erf(a) */
    LSTMC_RT_EW_PRELU = 18,        /* a < 0 ? b * a : a (b: the slope) */
    LSTMC_RT_EW_MIN = 19,          /* min(a, b); NaN if either is NaN */
    LSTMC_RT_EW_MAX = 20,          /* max(a, b); NaN if either is NaN */
    LSTMC_RT_EW_FLOOR = 21,        /* floor(a) */
    LSTMC_RT_EW_CEIL = 22,         /* ceil(a) */
    LSTMC_RT_EW_SIGN = 23,         /* -1, 0 or 1 */
    LSTMC_RT_EW_ROUND = 24,        /* a rounded to the nearest integer, halves to even */
    LSTMC_RT_EW_SOFTPLUS = 25,     /* log(exp(a) + 1) */
    LSTMC_RT_EW_ELU = 26,          /* a < 0 ? alpha * (exp(a) - 1) : a */
    LSTMC_RT_EW_SELU = 27,         /* beta * (a > 0 ? a : alpha * (exp(a) - 1)) (beta: gamma) */
    LSTMC_RT_EW_SIN = 28,          /* sin(a) */
    LSTMC_RT_EW_COS = 29,          /* cos(a) */
    LSTMC_RT_EW_NEG = 30           /* -a (integers; floats run lstmc_rt_unary) */
} lstmc_rt_ewop;

/*
 * out = op(a[, b[, c]]) element by element, with numpy broadcasting resolved by the compiler
 * as in lstmc_rt_binary: out has dims out_dims[0..rank), and the element at index vector j
 * reads a[sum j[i]*a_stride[i]] (b, c likewise; stride 0 on a broadcast dim). Dtypes:
 *   comparisons   a, b: dtype (F32, I64, I32 or U8 for Equal); out U8 (bool, 0 or 1)
 *   And, Or, Not  a, b, out: U8
 *   Where         a: U8; b, c, out: dtype (any)
 *   Pow           a, out: dtype (F32, I64, I32); b: b_dtype (F32, I64, I32)
 *   the others    a, (b, c for Clip, b for PRelu, Min, Max), out: dtype (F32; Abs, Clip,
 *                 PRelu, Min, Max, Sign and Neg also I64, I32)
 * Integer Pow computes in double and truncates, as ONNX Runtime does; a, b, c and out are
 * never the same buffer unless out's dims equal a's and a is read with unit strides.
 */
typedef struct lstmc_rt_ewise_params {
    int32_t op;      /* lstmc_rt_ewop */
    int32_t dtype;   /* lstmc_rt_dtype, see above */
    int32_t b_dtype; /* Pow's exponent */
    int32_t rank;    /* 0 for scalars */
    float alpha, beta;
    int64_t out_dims[LSTMC_RT_MAX_RANK];
    int64_t a_stride[LSTMC_RT_MAX_RANK];
    int64_t b_stride[LSTMC_RT_MAX_RANK];
    int64_t c_stride[LSTMC_RT_MAX_RANK];
} lstmc_rt_ewise_params;

lstmc_rt_status lstmc_rt_ewise(const lstmc_rt_ewise_params *p, const void *a, const void *b,
                               const void *c, void *out);

/*
 * ONNX Range: out[i] for i < n, of dtype (F32, I64 or I32), from the scalars start and
 * delta: the value starts at *start and grows by *delta after each element (ONNX Runtime's
 * accumulation, so float results match it bit for bit). n is fixed by the compiler:
 * max(ceil((limit - start) / delta), 0).
 */
typedef struct lstmc_rt_range_params {
    int32_t dtype;
    int64_t n;
} lstmc_rt_range_params;

lstmc_rt_status lstmc_rt_range(const lstmc_rt_range_params *p, const void *start,
                               const void *delta, void *out);

/*
 * ONNX CumSum over the middle dim of in viewed as [outer, len, inner] (dtype F32, I64 or
 * I32): out[o, k, i] = sum of in[o, m, i] for m <= k (m < k with exclusive; with reverse
 * the sum runs from the end: m >= k, or m > k with exclusive).
 */
typedef struct lstmc_rt_cumsum_params {
    int32_t dtype;
    int32_t exclusive, reverse;
    int64_t outer, len, inner;
} lstmc_rt_cumsum_params;

lstmc_rt_status lstmc_rt_cumsum(const lstmc_rt_cumsum_params *p, const void *in, void *out);
/* --- issue 20, conv: convolutions, pooling, batch normalisation (rt_conv.c) ---------- */

/*
 * The geometry of a 2-D convolution or pooling window over [N, C, H, W] tensors, C order; a
 * 1-D one is the same with H = 1 (in_h = out_h = k_h = 1, stride_h = dil_h = 1, pad_h = 0).
 * The compiler resolves ONNX's auto_pad, pads, ceil_mode, output_padding and output_shape
 * into these numbers: pad_h / pad_w are the padding before the first element (top, left);
 * the end padding is whatever out_h / out_w imply.
 *
 *   Conv           Y[n, m, oh, ow] = B[m] + sum_{c in m's group, kh, kw}
 *                    X[n, c, oh*stride_h - pad_h + kh*dil_h, ow*stride_w - pad_w + kw*dil_w]
 *                    * W[m, c - group_start, kh, kw]         (outside X reads 0)
 *                  X [N, c_in, in_h, in_w], W [c_out, c_in/group, k_h, k_w], B [c_out] or
 *                  NULL, Y [N, c_out, out_h, out_w].
 *   ConvTranspose  the adjoint: every X[n, c, ih, iw] adds X * W[c, m - group_start, kh, kw]
 *                  to Y[n, m, ih*stride_h - pad_h + kh*dil_h, iw*stride_w - pad_w + kw*dil_w]
 *                  when that lands inside Y; Y starts at B. W [c_in, c_out/group, k_h, k_w].
 */
typedef struct lstmc_rt_conv_params {
    int64_t n, c_in, c_out, group;
    int64_t in_h, in_w, out_h, out_w;
    int64_t k_h, k_w;
    int64_t stride_h, stride_w, dil_h, dil_w;
    int64_t pad_h, pad_w;
    int32_t act; /* Conv only: lstmc_rt_conv_act, an activation the lowering fused
                    (kp_lower_graph) applied to Y after the bias; NONE for ConvTranspose */
} lstmc_rt_conv_params;

/* The activations a Conv applies in its store: Relu as lstmc_rt_unary's (NaN gives 0),
 * HardSwish as lstmc_rt_ewise's, x * clamp(x / 6 + 1/2, 0, 1). */
typedef enum lstmc_rt_conv_act {
    LSTMC_RT_CONV_ACT_NONE = 0,
    LSTMC_RT_CONV_ACT_RELU = 1,
    LSTMC_RT_CONV_ACT_HARD_SWISH = 2
} lstmc_rt_conv_act;

typedef lstmc_rt_status lstmc_rt_conv_fn(const lstmc_rt_conv_params *p, const float *X,
                                         const float *W, const float *B, float *Y);
lstmc_rt_conv_fn lstmc_rt_conv; /* the LLVM kernels have this type too */
lstmc_rt_status lstmc_rt_conv_transpose(const lstmc_rt_conv_params *p, const float *X,
                                        const float *W, const float *B, float *Y);

typedef enum lstmc_rt_pool_kind {
    LSTMC_RT_POOL_MAX = 0,
    LSTMC_RT_POOL_AVG = 1
} lstmc_rt_pool_kind;

/*
 * MaxPool / AveragePool (and the global pools: the window is the whole map) over
 * [nc = N*C, in_h, in_w] -> [nc, out_h, out_w], window k_h x k_w with strides, dilations and
 * begin pads as lstmc_rt_conv_params. Max ignores the padding (an all-padding window gives
 * -inf). Average divides by the window's positions inside X, or with count_include_pad by
 * k_h * k_w, the whole window, as ONNX Runtime does (also for a ceil_mode window that runs
 * past the end padding, where PyTorch counts less).
 */
typedef struct lstmc_rt_pool_params {
    int32_t kind;              /* lstmc_rt_pool_kind */
    int32_t count_include_pad; /* average only */
    int64_t nc, in_h, in_w, out_h, out_w;
    int64_t k_h, k_w, stride_h, stride_w, dil_h, dil_w;
    int64_t pad_h, pad_w;
} lstmc_rt_pool_params;

typedef lstmc_rt_status lstmc_rt_pool_fn(const lstmc_rt_pool_params *p, const float *X, float *Y);
lstmc_rt_pool_fn lstmc_rt_pool; /* the LLVM kernels have this type too */

/*
 * BatchNormalization, inference form: X viewed as [outer, channels, inner],
 * Y = (X - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c]. X and Y may be one buffer.
 */
typedef struct lstmc_rt_batchnorm_params {
    int64_t outer, channels, inner;
    float epsilon;
} lstmc_rt_batchnorm_params;

lstmc_rt_status lstmc_rt_batchnorm(const lstmc_rt_batchnorm_params *p, const float *X,
                                   const float *scale, const float *B, const float *mean,
                                   const float *var, float *Y);

#ifdef __cplusplus
}
#endif

#endif /* LSTMC_RT_KERNELS_H */
