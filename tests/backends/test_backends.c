/*
 * test_backends.c — every kernel kind (kprog.h kp_kind) on every kernel backend against the
 * reference kp_exec (REDESIGN.md §6 step 9, §7), in the manner of ggml's test-backend-ops:
 * random inputs from a fixed seed, a normalised mean squared error bound per case
 * (max_nmse_err), integers exactly.
 *
 * Rows are cases (`cases[]`: a kind, its shape and variant, the NMSE bound); columns are
 * backends (`backends[]`). A case is a one-call kernel program over a hand-made graph: the
 * call's non-constant inputs are graph inputs, its weights are constants, its wanted outputs
 * graph outputs. For each column the program goes through memplan_run and cg_write exactly
 * as the driver sends a model, the generated library is compiled with `cc` (one `make -j2`
 * for all of them, the runtime objects built once per run), loaded with dlopen, and its
 * <name>_run is compared with kp_exec on the same call. So each column exercises more than
 * kp_exec can:
 *   c      --emit=c: the C writer's params initialisers (put_params, float literals), its
 *          buffer expressions (arena offsets from memplan, inputs[], outputs[], scratch),
 *          kp_call_fn's choice of kernel, the weights printed as C text and the runtime
 *          compiled on its own by cc, as the generated Makefile does.
 *   llvm   --emit=llvm on the host: cg_llvm_kernels' object (<name>_k<i> with the runtime
 *          kernel's signature), the weight relayout into panels it makes on the constants,
 *          the generated host code calling it; cg_llvm_handles says which rows it takes.
 *   opencl --target=pocl: cg_opencl_write's .cl kernels on PoCL's CPU device, its host side
 *          (uploads, downloads, weights in device memory); cg_opencl_handles says which.
 * A column that does not take a row (kind not handled, backend not built, or the backend
 * declined the call when it wrote the code) is counted as skipped and summarised on stderr;
 * it never passes silently. A new kind is a builder in `builders[]` and rows (the test
 * every_kind_has_a_row fails until it has both); a new backend is a row in `backends[]`.
 *
 * Built with LSTMC_SANITIZE, the generated code and the runtime are compiled with the same
 * sanitizers (LSTMC_TEST_CC_FLAGS); the LLVM objects and PoCL's kernels are not instrumented.
 */
#include "arena.h"
#include "codegen.h"
#include "diag.h"
#include "helpers.h"
#include "ir.h"
#include "kprog.h"
#include "lowp.h"
#include "lstmc_rt_kernels.h"
#include "memplan.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WORK LSTMC_BINARY_DIR "/backends_work"
#ifndef LSTMC_TEST_CC_FLAGS
#define LSTMC_TEST_CC_FLAGS ""
#endif

/* --- the rows --------------------------------------------------------------------------- */

#define LSTM      LSTMC_RT_CELL_LSTM
#define GRU       LSTMC_RT_CELL_GRU
#define RNN       LSTMC_RT_CELL_RNN
#define ALPHA_MID (-1.0f) /* alpha_inter between two of the layer's relevance values */

typedef struct bcase {
    const char *name;
    kp_kind kind;
    /* recurrent kinds: the layer (T steps, N batch, I inputs, H hidden, D = dirs) */
    int32_t cell, dirs, rev, layout, clip, ifg, lbr, peep, seql, init, acts;
    int64_t T, N, I, H;
    int32_t mts, wfmt;    /* tissue size; weight format (lstmc_rt_wfmt) of PROJ/REC */
    float ainter, aintra; /* thresholds of the tissue and DRS kinds (ALPHA_MID) */
    /* other kinds: dims, an op or variant, a dtype */
    int64_t m, n, k;
    int32_t op, flag, dt;
    double nmse; /* bound on sum (got - want)^2 / sum want^2 of every float output */
} bcase;

/* H = 37 and rows = T*N = 15 are neither whole vectors nor whole tiles of any backend (the
 * LLVM register tiles, the 16-column tissue panels, the OpenCL work-groups); H = 5 is one
 * partial vector; GH = 4H = 148 leaves both a vector and a scalar tail. */
static const bcase cases[] = {
    /* schedule A: the whole layer (OpenCL) */
    {.name = "rnn_lstm_fwd",
     .kind = KP_RNN,
     .cell = LSTM,
     .dirs = 1,
     .T = 5,
     .N = 3,
     .I = 6,
     .H = 37,
     .nmse = 1e-9},
    {.name = "rnn_lstm_bidir_all",
     .kind = KP_RNN,
     .cell = LSTM,
     .dirs = 2,
     .layout = 1,
     .clip = 1,
     .peep = 1,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 4,
     .I = 6,
     .H = 37,
     .nmse = 1e-9},
    {.name = "rnn_lstm_rev_if",
     .kind = KP_RNN,
     .cell = LSTM,
     .dirs = 1,
     .rev = 1,
     .ifg = 1,
     .peep = 1,
     .init = 1,
     .T = 4,
     .N = 2,
     .I = 3,
     .H = 5,
     .nmse = 1e-9},
    {.name = "rnn_gru_lbr",
     .kind = KP_RNN,
     .cell = GRU,
     .dirs = 2,
     .lbr = 1,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 4,
     .I = 6,
     .H = 37,
     .nmse = 1e-9},
    {.name = "rnn_gru",
     .kind = KP_RNN,
     .cell = GRU,
     .dirs = 1,
     .rev = 1,
     .layout = 1,
     .T = 4,
     .N = 3,
     .I = 5,
     .H = 9,
     .nmse = 1e-9},
    {.name = "rnn_rnn_acts",
     .kind = KP_RNN,
     .cell = RNN,
     .dirs = 2,
     .acts = 1,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 4,
     .I = 6,
     .H = 37,
     .nmse = 1e-9},
    /* schedule A+: projection (G1) */
    {.name = "proj_lstm",
     .kind = KP_RNN_PROJ,
     .cell = LSTM,
     .dirs = 1,
     .T = 5,
     .N = 3,
     .I = 6,
     .H = 37,
     .nmse = 1e-10},
    {.name = "proj_lstm_bidir_big",
     .kind = KP_RNN_PROJ,
     .cell = LSTM,
     .dirs = 2,
     .T = 4,
     .N = 5,
     .I = 70,
     .H = 67,
     .nmse = 1e-10},
    {.name = "proj_gru_lbr",
     .kind = KP_RNN_PROJ,
     .cell = GRU,
     .dirs = 2,
     .lbr = 1,
     .T = 5,
     .N = 3,
     .I = 6,
     .H = 37,
     .nmse = 1e-10},
    {.name = "proj_rnn",
     .kind = KP_RNN_PROJ,
     .cell = RNN,
     .dirs = 1,
     .T = 3,
     .N = 1,
     .I = 1,
     .H = 5,
     .nmse = 1e-10},
    {.name = "proj_lstm_fp16",
     .kind = KP_RNN_PROJ,
     .cell = LSTM,
     .dirs = 2,
     .wfmt = LSTMC_RT_WFMT_FP16,
     .T = 5,
     .N = 3,
     .I = 6,
     .H = 37,
     .nmse = 1e-10},
    {.name = "proj_lstm_int8",
     .kind = KP_RNN_PROJ,
     .cell = LSTM,
     .dirs = 1,
     .wfmt = LSTMC_RT_WFMT_INT8,
     .T = 5,
     .N = 3,
     .I = 19,
     .H = 37,
     .nmse = 1e-10},
    /* schedule A+: the time loop (G2) */
    {.name = "rec_lstm_fwd",
     .kind = KP_RNN_REC,
     .cell = LSTM,
     .dirs = 1,
     .T = 5,
     .N = 3,
     .H = 37,
     .nmse = 1e-9},
    {.name = "rec_lstm_bidir_all",
     .kind = KP_RNN_REC,
     .cell = LSTM,
     .dirs = 2,
     .layout = 1,
     .clip = 1,
     .peep = 1,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 4,
     .H = 37,
     .nmse = 1e-9},
    {.name = "rec_lstm_rev_if",
     .kind = KP_RNN_REC,
     .cell = LSTM,
     .dirs = 1,
     .rev = 1,
     .ifg = 1,
     .peep = 1,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 4,
     .H = 37,
     .nmse = 1e-9},
    {.name = "rec_lstm_acts",
     .kind = KP_RNN_REC,
     .cell = LSTM,
     .dirs = 1,
     .acts = 1,
     .init = 1,
     .T = 4,
     .N = 3,
     .H = 9,
     .nmse = 1e-9},
    {.name = "rec_lstm_big",
     .kind = KP_RNN_REC,
     .cell = LSTM,
     .dirs = 1,
     .init = 1,
     .T = 4,
     .N = 1,
     .H = 200,
     .nmse = 1e-9},
    {.name = "rec_gru_lbr",
     .kind = KP_RNN_REC,
     .cell = GRU,
     .dirs = 2,
     .layout = 1,
     .lbr = 1,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 4,
     .H = 37,
     .nmse = 1e-9},
    {.name = "rec_gru",
     .kind = KP_RNN_REC,
     .cell = GRU,
     .dirs = 1,
     .rev = 1,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 4,
     .H = 37,
     .nmse = 1e-9},
    {.name = "rec_rnn",
     .kind = KP_RNN_REC,
     .cell = RNN,
     .dirs = 2,
     .layout = 1,
     .clip = 1,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 4,
     .H = 37,
     .nmse = 1e-9},
    {.name = "rec_rnn_acts",
     .kind = KP_RNN_REC,
     .cell = RNN,
     .dirs = 1,
     .acts = 1,
     .T = 3,
     .N = 2,
     .H = 5,
     .nmse = 1e-9},
    {.name = "rec_lstm_fp16",
     .kind = KP_RNN_REC,
     .cell = LSTM,
     .dirs = 2,
     .wfmt = LSTMC_RT_WFMT_FP16,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 4,
     .H = 37,
     .nmse = 1e-9},
    {.name = "rec_gru_int8",
     .kind = KP_RNN_REC,
     .cell = GRU,
     .dirs = 1,
     .lbr = 1,
     .wfmt = LSTMC_RT_WFMT_INT8,
     .init = 1,
     .T = 5,
     .N = 3,
     .H = 37,
     .nmse = 1e-9},
    /* breakpoints and tissues (MICRO'18 §IV) */
    {.name = "tissue_fwd_mts3",
     .kind = KP_LSTM_TISSUE,
     .cell = LSTM,
     .dirs = 1,
     .T = 7,
     .N = 3,
     .H = 37,
     .mts = 3,
     .nmse = 1e-9},
    {.name = "tissue_bidir_all_cut",
     .kind = KP_LSTM_TISSUE,
     .cell = LSTM,
     .dirs = 2,
     .layout = 1,
     .clip = 1,
     .peep = 1,
     .seql = 1,
     .init = 1,
     .T = 7,
     .N = 3,
     .H = 37,
     .mts = 8,
     .ainter = ALPHA_MID,
     .nmse = 1e-9},
    {.name = "tissue_rev_if_cut_all",
     .kind = KP_LSTM_TISSUE,
     .cell = LSTM,
     .dirs = 1,
     .rev = 1,
     .ifg = 1,
     .peep = 1,
     .seql = 1,
     .init = 1,
     .T = 6,
     .N = 3,
     .H = 5,
     .mts = 1,
     .ainter = 1e30f,
     .nmse = 1e-9},
    /* dynamic row skip (MICRO'18 §V) */
    {.name = "drs_fwd_exact",
     .kind = KP_LSTM_DRS,
     .cell = LSTM,
     .dirs = 1,
     .T = 5,
     .N = 3,
     .H = 37,
     .nmse = 1e-9},
    {.name = "drs_bidir_all_skip",
     .kind = KP_LSTM_DRS,
     .cell = LSTM,
     .dirs = 2,
     .layout = 1,
     .clip = 1,
     .peep = 1,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 4,
     .H = 37,
     .aintra = 0.5f,
     .nmse = 1e-9},
    {.name = "drs_rev_h5_skip",
     .kind = KP_LSTM_DRS,
     .cell = LSTM,
     .dirs = 1,
     .rev = 1,
     .ifg = 1,
     .init = 1,
     .T = 4,
     .N = 2,
     .H = 5,
     .aintra = 0.5f,
     .nmse = 1e-9},
    /* both */
    {.name = "tissue_drs_fwd",
     .kind = KP_LSTM_TISSUE_DRS,
     .cell = LSTM,
     .dirs = 1,
     .T = 7,
     .N = 3,
     .H = 37,
     .mts = 3,
     .aintra = 0.5f,
     .nmse = 1e-9},
    {.name = "tissue_drs_bidir_cut",
     .kind = KP_LSTM_TISSUE_DRS,
     .cell = LSTM,
     .dirs = 2,
     .layout = 1,
     .clip = 1,
     .peep = 1,
     .seql = 1,
     .init = 1,
     .T = 7,
     .N = 3,
     .H = 37,
     .mts = 8,
     .ainter = ALPHA_MID,
     .aintra = 0.5f,
     .nmse = 1e-9},
    /* the rest of the graph: C kernels only so far */
    {.name = "gemm_bias", .kind = KP_GEMM, .m = 5, .n = 37, .k = 13, .flag = 2 | 4, .nmse = 1e-12},
    {.name = "gemm_ta", .kind = KP_GEMM, .m = 7, .n = 3, .k = 37, .flag = 1, .nmse = 1e-12},
    {.name = "matmul_bcast", .kind = KP_MATMUL, .m = 4, .n = 5, .k = 37, .op = 3, .nmse = 1e-12},
    {.name = "binary_add_f32",
     .kind = KP_BINARY,
     .m = 3,
     .n = 37,
     .op = LSTMC_RT_ADD,
     .dt = LSTMC_RT_F32,
     .nmse = 1e-14},
    {.name = "binary_div_i64",
     .kind = KP_BINARY,
     .m = 4,
     .n = 9,
     .op = LSTMC_RT_DIV,
     .dt = LSTMC_RT_I64},
    {.name = "binary_mul_i32",
     .kind = KP_BINARY,
     .m = 2,
     .n = 5,
     .op = LSTMC_RT_MUL,
     .dt = LSTMC_RT_I32},
    {.name = "unary_sigmoid", .kind = KP_UNARY, .m = 37, .op = LSTMC_RT_SIGMOID, .nmse = 1e-13},
    {.name = "unary_tanh", .kind = KP_UNARY, .m = 37, .op = LSTMC_RT_TANH, .nmse = 1e-13},
    {.name = "unary_exp", .kind = KP_UNARY, .m = 37, .op = LSTMC_RT_EXP, .nmse = 1e-13},
    {.name = "softmax", .kind = KP_SOFTMAX, .m = 3, .n = 37, .k = 2, .nmse = 1e-13},
    {.name = "log_softmax", .kind = KP_SOFTMAX, .m = 2, .n = 11, .k = 1, .flag = 1, .nmse = 1e-13},
    {.name = "cast_f32_i64", .kind = KP_CAST, .m = 37, .dt = LSTMC_RT_F32, .op = LSTMC_RT_I64},
    {.name = "cast_i32_f32",
     .kind = KP_CAST,
     .m = 37,
     .dt = LSTMC_RT_I32,
     .op = LSTMC_RT_F32,
     .nmse = 0},
    {.name = "argmax_f32", .kind = KP_ARGMAX, .m = 3, .n = 37, .k = 2, .dt = LSTMC_RT_F32},
    {.name = "argmax_i32_last",
     .kind = KP_ARGMAX,
     .m = 4,
     .n = 9,
     .k = 1,
     .flag = 1,
     .dt = LSTMC_RT_I32},
    {.name = "strided_transpose", .kind = KP_STRIDED, .m = 3, .n = 5, .k = 7, .nmse = 0},
    {.name = "strided_reverse", .kind = KP_STRIDED, .m = 9, .n = 37, .flag = 1, .nmse = 0},
    {.name = "gather_i64", .kind = KP_GATHER, .m = 2, .n = 37, .k = 3, .op = 5, .nmse = 0},
    {.name = "concat_mid", .kind = KP_CONCAT, .m = 3, .n = 37, .k = 5, .op = 11, .nmse = 0},
    {.name = "fill_f32", .kind = KP_FILL, .m = 37, .nmse = 0},
    {.name = "copy", .kind = KP_COPY, .m = 37, .nmse = 0},
    /* issue 20, elt */
    {.name = "ewise_less_f32",
     .kind = KP_EWISE,
     .m = 3,
     .n = 37,
     .op = LSTMC_RT_EW_LESS,
     .dt = LSTMC_RT_F32},
    {.name = "ewise_where_i64",
     .kind = KP_EWISE,
     .m = 4,
     .n = 9,
     .op = LSTMC_RT_EW_WHERE,
     .dt = LSTMC_RT_I64},
    {.name = "ewise_hard_sigmoid",
     .kind = KP_EWISE,
     .m = 3,
     .n = 37,
     .op = LSTMC_RT_EW_HARD_SIGMOID,
     .dt = LSTMC_RT_F32,
     .nmse = 1e-14},
    {.name = "ewise_clip_f32",
     .kind = KP_EWISE,
     .m = 2,
     .n = 37,
     .op = LSTMC_RT_EW_CLIP,
     .dt = LSTMC_RT_F32,
     .nmse = 0},
    {.name = "range_i64", .kind = KP_RANGE, .m = 37, .dt = LSTMC_RT_I64},
    {.name = "range_f32", .kind = KP_RANGE, .m = 37, .dt = LSTMC_RT_F32, .nmse = 0},
    {.name = "cumsum_f32_rev_excl",
     .kind = KP_CUMSUM,
     .m = 3,
     .n = 37,
     .k = 2,
     .flag = 3,
     .dt = LSTMC_RT_F32,
     .nmse = 1e-13},
    {.name = "cumsum_i32", .kind = KP_CUMSUM, .m = 2, .n = 9, .k = 3, .dt = LSTMC_RT_I32},
    /* issue 20, red (rt_reduce.c) */
    {.name = "reduce_mean_mid",
     .kind = KP_REDUCE,
     .m = 3,
     .n = 37,
     .k = 2,
     .op = LSTMC_RT_REDUCE_MEAN,
     .dt = LSTMC_RT_F32,
     .nmse = 1e-12},
    {.name = "reduce_max_i64_outer",
     .kind = KP_REDUCE,
     .m = 4,
     .n = 5,
     .k = 3,
     .flag = 1,
     .op = LSTMC_RT_REDUCE_MAX,
     .dt = LSTMC_RT_I64},
    {.name = "layernorm_bias", .kind = KP_LAYERNORM, .m = 5, .n = 37, .flag = 1, .nmse = 1e-12},
    {.name = "layernorm_no_bias_one_scale",
     .kind = KP_LAYERNORM,
     .m = 3,
     .n = 8,
     .op = 1,
     .nmse = 1e-12},
    {.name = "layernorm_stats", .kind = KP_LAYERNORM_STATS, .m = 5, .n = 37, .nmse = 1e-12},
    {.name = "layernorm_stats_no_mean",
     .kind = KP_LAYERNORM_STATS,
     .m = 3,
     .n = 8,
     .flag = 1,
     .nmse = 1e-12},
    {.name = "instancenorm", .kind = KP_INSTANCENORM, .m = 3, .n = 37, .nmse = 1e-12},
    {.name = "pad_reflect", .kind = KP_PAD, .m = 3, .n = 7, .op = LSTMC_RT_PAD_REFLECT, .nmse = 0},
    {.name = "pad_constant",
     .kind = KP_PAD,
     .m = 2,
     .n = 5,
     .op = LSTMC_RT_PAD_CONSTANT,
     .nmse = 0},
    {.name = "topk_f32",
     .kind = KP_TOPK,
     .m = 2,
     .n = 37,
     .k = 3,
     .op = 5,
     .dt = LSTMC_RT_F32,
     .nmse = 0},
    {.name = "topk_i64_smallest",
     .kind = KP_TOPK,
     .m = 3,
     .n = 9,
     .k = 1,
     .op = 9,
     .flag = 1,
     .dt = LSTMC_RT_I64},
    {.name = "scatter_add_f32",
     .kind = KP_SCATTER_ELEMENTS,
     .m = 4,
     .n = 6,
     .k = 3,
     .op = LSTMC_RT_SCATTER_ADD,
     .dt = LSTMC_RT_F32,
     .nmse = 1e-12},
    /* issue 20, conv */
    {.name = "conv_2d", .kind = KP_CONV, .m = 3, .n = 37, .k = 3, .nmse = 1e-12},
    {.name = "conv_strided_dilated",
     .kind = KP_CONV,
     .m = 2,
     .n = 37,
     .k = 5,
     .flag = 1,
     .nmse = 1e-12},
    {.name = "conv_gemm_blocks", .kind = KP_CONV, .m = 5, .n = 37, .k = 3, .nmse = 1e-12},
    {.name = "conv_dot_long_kernel",
     .kind = KP_CONV,
     .m = 2,
     .n = 70,
     .k = 19,
     .flag = 4,
     .nmse = 1e-12},
    {.name = "conv_depthwise", .kind = KP_CONV, .m = 4, .n = 17, .k = 3, .flag = 2, .nmse = 1e-12},
    {.name = "conv_relu_wide", .kind = KP_CONV, .m = 6, .n = 301, .k = 3, .flag = 8, .nmse = 1e-12},
    {.name = "conv_hardswish_depthwise",
     .kind = KP_CONV,
     .m = 4,
     .n = 29,
     .k = 5,
     .flag = 2 | 16,
     .nmse = 1e-12},
    {.name = "conv_transpose", .kind = KP_CONV_TRANSPOSE, .m = 3, .n = 11, .k = 4, .nmse = 1e-12},
    {.name = "conv_transpose_strided_grouped",
     .kind = KP_CONV_TRANSPOSE,
     .m = 2,
     .n = 9,
     .k = 3,
     .flag = 3,
     .nmse = 1e-12},
    {.name = "pool_max",
     .kind = KP_POOL,
     .m = 3,
     .n = 37,
     .k = 3,
     .op = LSTMC_RT_POOL_MAX,
     .nmse = 0},
    {.name = "pool_avg_pad",
     .kind = KP_POOL,
     .m = 2,
     .n = 11,
     .k = 2,
     .op = LSTMC_RT_POOL_AVG,
     .flag = 1,
     .nmse = 1e-13},
    {.name = "batchnorm", .kind = KP_BATCHNORM, .m = 2, .n = 5, .k = 37, .nmse = 1e-13},
    /* issue 22: the full-integer layer (exact: integers) and its float boundary */
    {.name = "rnnq_lstm8_bidir",
     .kind = KP_RNN_Q,
     .cell = LSTMC_RT_CELL_LSTM,
     .dirs = 2,
     .peep = 1,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 3,
     .I = 7,
     .H = 37,
     .op = 8},
    {.name = "rnnq_gru16_layout1",
     .kind = KP_RNN_Q,
     .cell = LSTMC_RT_CELL_GRU,
     .dirs = 1,
     .layout = 1,
     .lbr = 1,
     .T = 4,
     .N = 2,
     .I = 5,
     .H = 9,
     .op = 16},
    {.name = "rnnq_rnn8_reverse",
     .kind = KP_RNN_Q,
     .cell = LSTMC_RT_CELL_RNN,
     .dirs = 1,
     .rev = 1,
     .T = 6,
     .N = 1,
     .I = 3,
     .H = 5,
     .op = 8},
    /* issue 24: breakpoints and tissues on the integer LSTM (exact: integers) */
    {.name = "tissueq_lstm8_bidir",
     .kind = KP_LSTM_TISSUE_Q,
     .cell = LSTMC_RT_CELL_LSTM,
     .dirs = 2,
     .seql = 1,
     .init = 1,
     .T = 7,
     .N = 2,
     .I = 5,
     .H = 9,
     .op = 8},
    /* issue 24: dynamic row skip on the integer LSTM (exact: integers) */
    {.name = "drsq_lstm16_bidir",
     .kind = KP_LSTM_DRS_Q,
     .cell = LSTMC_RT_CELL_LSTM,
     .dirs = 2,
     .seql = 1,
     .init = 1,
     .T = 5,
     .N = 3,
     .I = 7,
     .H = 37,
     .op = 16},
    {.name = "tissuedrsq_lstm8",
     .kind = KP_LSTM_TISSUE_DRS_Q,
     .cell = LSTMC_RT_CELL_LSTM,
     .dirs = 1,
     .seql = 1,
     .init = 1,
     .T = 7,
     .N = 3,
     .I = 5,
     .H = 9,
     .op = 8},
    {.name = "quantize_int8", .kind = KP_QUANT, .m = 37, .op = 8, .nmse = 0},
    {.name = "dequantize_int16", .kind = KP_DEQUANT, .m = 37, .op = 16, .nmse = 0},
    {.name = "gemmq_int8", .kind = KP_GEMM_Q, .m = 3, .n = 37, .k = 70, .op = 8},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

/* --- building a case: a one-call program over a hand-made graph ------------------------ */

typedef struct bprog {
    arena *a;
    ir_graph *g;
    kprog kp;
    kp_call *c;
    unsigned seed;
    void *in_data[KP_MAX_ARGS]; /* the data of g->inputs[i] */
    float ainter, aintra;       /* the run's thresholds */
} bprog;

static ir_shape
shp(int rank, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    ir_shape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    s.d[0] = d0, s.d[1] = d1, s.d[2] = d2, s.d[3] = d3;
    return s;
}

static float *
rvec(bprog *b, int64_t n, float scale)
{
    float *v = arena_alloc(b->a, (size_t)(n > 0 ? n : 1) * 4);
    int64_t i;
    for (i = 0; i < n; i++)
        v[i] = helpers_frand(&b->seed) * scale;
    return v;
}

/* Integers in [lo, hi] of dtype dt (I64 or I32). */
static void *
ivec(bprog *b, int64_t n, int32_t dt, int64_t lo, int64_t hi)
{
    void *v = arena_alloc(b->a, (size_t)(n > 0 ? n : 1) * 8);
    int64_t i;
    for (i = 0; i < n; i++) {
        int64_t x = lo + (int64_t)((helpers_frand(&b->seed) + 1.0f) * 0.5f * (float)(hi - lo + 1));
        x = x > hi ? hi : x;
        if (dt == LSTMC_RT_I64)
            ((int64_t *)v)[i] = x;
        else
            ((int32_t *)v)[i] = (int32_t)x;
    }
    return v;
}

/* A graph input of the call holding data (copied by reference, in b's arena). */
static ir_tensor *
input(bprog *b, const char *name, ir_dtype dt, ir_shape s, void *data)
{
    ir_tensor *t = ir_tensor_new(b->g, name, dt, &s);
    b->in_data[b->g->n_inputs] = data;
    ir_graph_add_input(b->g, t);
    return t;
}

static ir_tensor *
weight(bprog *b, const char *name, ir_dtype dt, ir_shape s, const void *data)
{
    return ir_const_new(b->g, name, dt, &s, data);
}

static ir_tensor *
output(bprog *b, const char *name, ir_dtype dt, ir_shape s)
{
    ir_tensor *t = ir_tensor_new(b->g, name, dt, &s);
    ir_graph_add_output(b->g, t);
    return t;
}

static int64_t
gates(int32_t cell)
{
    return cell == LSTM ? 4 : cell == GRU ? 3 : 1;
}

static void
rnn_params(const bcase *bc, lstmc_rt_rnn_params *p)
{
    int j;
    memset(p, 0, sizeof *p);
    p->cell = bc->cell;
    p->seq_len = bc->T;
    p->batch = bc->N;
    p->input_size = bc->I;
    p->hidden = bc->H;
    p->n_dirs = bc->dirs;
    p->reverse = bc->rev;
    p->layout = bc->layout;
    p->has_clip = bc->clip;
    p->clip = 0.9f;
    p->input_forget = bc->ifg;
    p->linear_before_reset = bc->lbr;
    for (j = 0; j < 6; j += 3) {
        if (!bc->acts) { /* the ONNX defaults */
            p->act[j] =
                (lstmc_rt_act){bc->cell == RNN ? LSTMC_RT_ACT_TANH : LSTMC_RT_ACT_SIGMOID, 0, 0};
            p->act[j + 1] = p->act[j + 2] = (lstmc_rt_act){LSTMC_RT_ACT_TANH, 0, 0};
        } else {
            p->act[j] = (lstmc_rt_act){
                bc->cell == RNN ? LSTMC_RT_ACT_SOFTSIGN : LSTMC_RT_ACT_HARD_SIGMOID, 0.3f, 0.4f};
            p->act[j + 1] = (lstmc_rt_act){LSTMC_RT_ACT_SCALED_TANH, 0.8f, 1.1f};
            p->act[j + 2] = (lstmc_rt_act){LSTMC_RT_ACT_ELU, 1.2f, 0};
        }
    }
}

/* The layer's sequence_lens, initial state and peepholes as the call's inputs from slot
 * `at` (seq_lens, init_h, init_c, Peep), each present as the row says. zero_po: the P_o
 * part of the peepholes is zero (DRS). */
static void
rnn_state_inputs(bprog *b, const bcase *bc, int at, int zero_po)
{
    const int64_t D = bc->dirs, N = bc->N, H = bc->H, T = bc->T;
    const ir_shape hs = bc->layout ? shp(3, N, D, H, 0) : shp(3, D, N, H, 0);
    kp_call *c = b->c;
    if (bc->seql) {
        int32_t *sl = arena_alloc(b->a, (size_t)N * 4);
        int64_t n;
        for (n = 0; n < N; n++) /* 0 and T among them for N >= 4 */
            sl[n] = (int32_t)((n * 7 + 3) % (T + 1));
        c->in[at] = input(b, "seq_lens", IR_DT_I32, shp(1, N, 0, 0, 0), sl);
    }
    if (bc->init) {
        c->in[at + 1] = input(b, "init_h", IR_DT_F32, hs, rvec(b, D * N * H, 1.0f));
        if (bc->cell == LSTM)
            c->in[at + 2] = input(b, "init_c", IR_DT_F32, hs, rvec(b, D * N * H, 1.0f));
    }
    if (bc->peep && bc->cell == LSTM) {
        float *pe = rvec(b, D * 3 * H, 0.5f);
        int64_t d;
        for (d = 0; zero_po && d < D; d++)
            memset(pe + d * 3 * H + H, 0, (size_t)H * 4);
        c->in[at + 3] = weight(b, "Peep", IR_DT_F32, shp(2, D, 3 * H, 0, 0), pe);
    }
}

/* Y, Y_h, Y_c of a recurrent layer. */
static void
rnn_outputs(bprog *b, const bcase *bc)
{
    const int64_t D = bc->dirs, N = bc->N, H = bc->H, T = bc->T;
    kp_call *c = b->c;
    c->n_out = 3;
    c->out[0] = output(b, "Y", IR_DT_F32, bc->layout ? shp(4, N, T, D, H) : shp(4, T, D, N, H));
    c->out[1] = output(b, "Y_h", IR_DT_F32, bc->layout ? shp(3, N, D, H, 0) : shp(3, D, N, H, 0));
    if (bc->cell == LSTM)
        c->out[2] =
            output(b, "Y_c", IR_DT_F32, bc->layout ? shp(3, N, D, H, 0) : shp(3, D, N, H, 0));
}

/* A packed weight [D, K, GH] as a constant in format wfmt (passes/lowp.c convert). */
static ir_tensor *
packed_weight(bprog *b, const char *name, int32_t wfmt, int64_t D, int64_t K, int64_t GH,
              float scale)
{
    const float *w = rvec(b, D * K * GH, scale);
    int64_t bytes, i, d, g;
    unsigned char *buf;
    if (wfmt == LSTMC_RT_WFMT_FP32)
        return weight(b, name, IR_DT_F32, shp(3, D, K, GH, 0), w);
    bytes = lstmc_rt_lowp_bytes(wfmt, D, K, GH);
    buf = arena_calloc(b->a, (size_t)(bytes + 3) / 4, 4);
    if (wfmt == LSTMC_RT_WFMT_INT8) {
        signed char *q = (signed char *)buf + D * GH * 4;
        for (d = 0; d < D; d++)
            for (g = 0; g < GH; g++) {
                float sc =
                    lowp_quant_row(w + d * K * GH + g, K, GH, NULL, 0, q + d * K * GH + g, GH);
                memcpy(buf + 4 * (d * GH + g), &sc, 4);
            }
    } else {
        for (i = 0; i < D * K * GH; i++) {
            uint16_t h =
                wfmt == LSTMC_RT_WFMT_FP16 ? lowp_f32_to_f16(w[i]) : lowp_f32_to_bf16(w[i]);
            buf[2 * i] = (unsigned char)(h & 0xffu);
            buf[2 * i + 1] = (unsigned char)(h >> 8);
        }
    }
    return weight(b, name, IR_DT_I32, shp(1, (bytes + 3) / 4, 0, 0, 0), buf);
}

static void
build_rnn(bprog *b, const bcase *bc)
{
    const int64_t D = bc->dirs, N = bc->N, H = bc->H, T = bc->T, I = bc->I;
    const int64_t GH = gates(bc->cell) * H;
    kp_call *c = b->c;
    rnn_params(bc, &c->p.rnn);
    c->n_in = 8;
    c->in[0] = input(b, "X", IR_DT_F32, bc->layout ? shp(3, N, T, I, 0) : shp(3, T, N, I, 0),
                     rvec(b, T * N * I, 1.0f));
    c->in[1] = weight(b, "W", IR_DT_F32, shp(3, D, GH, I, 0), rvec(b, D * GH * I, 0.5f));
    c->in[2] = weight(b, "R", IR_DT_F32, shp(3, D, GH, H, 0), rvec(b, D * GH * H, 0.3f));
    c->in[3] = weight(b, "B", IR_DT_F32, shp(2, D, 2 * GH, 0, 0), rvec(b, D * 2 * GH, 0.5f));
    rnn_state_inputs(b, bc, 4, 0); /* seq_lens init_h init_c P: slots 4 to 7 */
    rnn_outputs(b, bc);
    c->scratch_bytes = lstmc_rt_rnn_scratch(&c->p.rnn) * 4;
}

static void
build_proj(bprog *b, const bcase *bc)
{
    const int64_t D = bc->dirs, H = bc->H, rows = bc->T * bc->N, GH = gates(bc->cell) * H;
    lstmc_rt_rnn_proj_params *p = &b->c->p.proj;
    kp_call *c = b->c;
    p->cell = bc->cell;
    p->n_dirs = bc->dirs;
    p->rows = rows;
    p->input_size = bc->I;
    p->hidden = H;
    p->linear_before_reset = bc->lbr;
    p->packed = 1;
    c->wfmt = bc->wfmt;
    c->n_in = 3;
    c->in[0] =
        input(b, "X", IR_DT_F32, shp(3, bc->T, bc->N, bc->I, 0), rvec(b, rows * bc->I, 1.0f));
    c->in[1] = packed_weight(b, "Wt", bc->wfmt, D, bc->I, GH, 0.5f);
    c->in[2] = weight(b, "bias", IR_DT_F32, shp(2, D, GH, 0, 0), rvec(b, D * GH, 0.5f));
    c->n_out = 1;
    c->out[0] = output(b, "P", IR_DT_F32, shp(3, D, rows, GH, 0));
}

static void
build_rec(bprog *b, const bcase *bc)
{
    const int64_t D = bc->dirs, H = bc->H, rows = bc->T * bc->N, GH = gates(bc->cell) * H;
    kp_call *c = b->c;
    rnn_params(bc, &c->p.rnn);
    c->p.rnn.packed = 1;
    c->wfmt = bc->wfmt;
    c->n_in = 7;
    c->in[0] = input(b, "P", IR_DT_F32, shp(3, D, rows, GH, 0), rvec(b, D * rows * GH, 1.0f));
    c->in[1] = packed_weight(b, "Rt", bc->wfmt, D, H, GH, 0.3f);
    if (bc->cell == GRU && bc->lbr)
        c->in[2] = weight(b, "Rbh", IR_DT_F32, shp(2, D, H, 0, 0), rvec(b, D * H, 0.5f));
    rnn_state_inputs(b, bc, 3, 0);
    rnn_outputs(b, bc);
    c->scratch_bytes = lstmc_rt_rnn_scratch(&c->p.rnn) * 4;
}

static int
cmp_float(const void *x, const void *y)
{
    float u = *(const float *)x, v = *(const float *)y;
    return u < v ? -1 : u > v;
}

/* An alpha_inter in the widest gap between the middle half of the layer's relevance values
 * (test_llvm_tissue.c mid_alpha): about half the links cut, none on the edge. */
static float
mid_alpha(const lstmc_rt_rnn_params *p, const float *P, const float *rsum)
{
    const int64_t H = p->hidden, C = p->seq_len * p->batch, n = p->n_dirs * C;
    float *S = malloc((size_t)n * sizeof *S), a;
    int64_t i, best = -1;
    int32_t d;
    for (d = 0; d < p->n_dirs; d++)
        for (i = 0; i < C; i++)
            S[d * C + i] = lstmc_rt_lstm_relevance(H, P + (d * C + i) * 4 * H, rsum + d * 4 * H);
    qsort(S, (size_t)n, sizeof *S, cmp_float);
    for (i = n / 4; i < 3 * n / 4; i++)
        if (best < 0 || S[i + 1] - S[i] > S[best + 1] - S[best])
            best = i;
    a = 0.5f * (S[best] + S[best + 1]);
    free(S);
    return a;
}

/* KP_LSTM_TISSUE, KP_LSTM_DRS, KP_LSTM_TISSUE_DRS: the inputs the breakpoints and drs
 * passes make from a packed Ut (passes/breakpoints.c, passes/drs.c). */
static void
build_lstm_opt(bprog *b, const bcase *bc)
{
    const int64_t D = bc->dirs, H = bc->H, C = bc->T * bc->N, G = 4 * H;
    const int tissue = bc->kind != KP_LSTM_DRS, drs = bc->kind != KP_LSTM_TISSUE;
    kp_call *c = b->c;
    lstmc_rt_rnn_params *p = tissue ? &c->p.tissue.p.rnn : &c->p.drs.p;
    float *P = rvec(b, D * C * G, 2.5f), *rsum = arena_calloc(b->a, (size_t)(D * G), 4);
    /* small enough that the row sums leave S unsaturated (below 16H) for many links */
    float *Ut = rvec(b, D * H * G, 0.05f);
    int64_t j, k, g;

    rnn_params(bc, p);
    p->packed = 1;
    c->in[0] = input(b, "P", IR_DT_F32, shp(3, D, C, G, 0), P);
    for (j = 0; j < D; j++)
        for (k = 0; k < H; k++)
            for (g = 0; g < G; g++)
                rsum[j * G + g] += fabsf(Ut[(j * H + k) * G + g]);
    if (tissue) {
        c->p.tissue.p.mts = bc->mts;
        c->p.tissue.alpha_inter = bc->ainter == ALPHA_MID ? mid_alpha(p, P, rsum) : bc->ainter;
        b->ainter = c->p.tissue.alpha_inter;
        c->n_in = drs ? 11 : 9;
        if (!drs) {
            float *Up = arena_alloc(b->a, (size_t)(D * H * G) * 4);
            cr_assert_eq(lstmc_rt_lstm_tissue_pack(D, H, Ut, Up), LSTMC_RT_OK);
            c->in[1] = weight(b, "Up", IR_DT_F32, shp(2, D, H * G, 0, 0), Up);
        }
        c->in[2] = weight(b, "row_abs_sum", IR_DT_F32, shp(2, D, G, 0, 0), rsum);
        rnn_state_inputs(b, bc, 3, drs);
        c->in[7] = weight(b, "h_pred", IR_DT_F32, shp(2, D, H, 0, 0), rvec(b, D * H, 0.5f));
        c->in[8] = weight(b, "c_pred", IR_DT_F32, shp(2, D, H, 0, 0), rvec(b, D * H, 0.5f));
    } else {
        c->n_in = 7;
        c->p.drs.alpha_intra = bc->aintra;
        rnn_state_inputs(b, bc, 3, 1);
    }
    if (drs) {
        float *Uo = arena_alloc(b->a, (size_t)(D * H * H) * 4);
        float *Ufic = arena_alloc(b->a, (size_t)(D * 3 * H * H) * 4);
        cr_assert_eq(lstmc_rt_drs_pack(D, H, Ut, Uo, Ufic), LSTMC_RT_OK);
        c->in[tissue ? 9 : 1] = weight(b, "Uo", IR_DT_F32, shp(3, D, H, H, 0), Uo);
        c->in[tissue ? 10 : 2] = weight(b, "Ufic", IR_DT_F32, shp(2, D, 3 * H * H, 0, 0), Ufic);
        b->aintra = bc->aintra;
        if (tissue)
            c->p.tissue.alpha_intra = bc->aintra;
    }
    rnn_outputs(b, bc);
    c->scratch_bytes =
        4 * (bc->kind == KP_LSTM_TISSUE ? lstmc_rt_lstm_tissue_scratch(&c->p.tissue.p)
             : bc->kind == KP_LSTM_DRS  ? lstmc_rt_lstm_drs_scratch(p)
                                        : lstmc_rt_lstm_tissue_drs_scratch(&c->p.tissue.p));
}

static void
build_gemm(bprog *b, const bcase *bc)
{
    lstmc_rt_gemm_params *p = &b->c->p.gemm;
    const int64_t M = bc->m, N = bc->n, K = bc->k;
    kp_call *c = b->c;
    p->m = M, p->n = N, p->k = K;
    p->trans_a = bc->flag & 1;
    p->trans_b = (bc->flag & 2) != 0;
    p->alpha = 0.7f;
    p->beta = 1.3f;
    c->n_in = 3;
    c->in[0] = input(b, "A", IR_DT_F32, p->trans_a ? shp(2, K, M, 0, 0) : shp(2, M, K, 0, 0),
                     rvec(b, M * K, 1.0f));
    c->in[1] = weight(b, "B", IR_DT_F32, p->trans_b ? shp(2, N, K, 0, 0) : shp(2, K, N, 0, 0),
                      rvec(b, K * N, 1.0f));
    if (bc->flag & 4) { /* a bias row broadcast over M */
        c->in[2] = weight(b, "C", IR_DT_F32, shp(1, N, 0, 0, 0), rvec(b, N, 1.0f));
        p->c_stride_n = 1;
    }
    c->n_out = 1;
    c->out[0] = output(b, "Y", IR_DT_F32, shp(2, M, N, 0, 0));
}

static void
build_matmul(bprog *b, const bcase *bc)
{
    lstmc_rt_matmul_params *p = &b->c->p.matmul;
    const int64_t M = bc->m, N = bc->n, K = bc->k, NB = bc->op;
    kp_call *c = b->c;
    p->n_batch = 1;
    p->batch[0] = NB;
    p->a_stride[0] = M * K;
    p->b_stride[0] = 0; /* B broadcast over the batch */
    p->m = M, p->n = N, p->k = K;
    c->n_in = 2;
    c->in[0] = input(b, "A", IR_DT_F32, shp(3, NB, M, K, 0), rvec(b, NB * M * K, 1.0f));
    c->in[1] = weight(b, "B", IR_DT_F32, shp(2, K, N, 0, 0), rvec(b, K * N, 1.0f));
    c->n_out = 1;
    c->out[0] = output(b, "Y", IR_DT_F32, shp(3, NB, M, N, 0));
}

static void *
data_of(bprog *b, int32_t dt, int64_t n, int64_t lo, int64_t hi)
{
    return dt == LSTMC_RT_F32 ? (void *)rvec(b, n, (float)hi) : ivec(b, n, dt, lo, hi);
}

static void
build_binary(bprog *b, const bcase *bc)
{
    lstmc_rt_binary_params *p = &b->c->p.binary;
    const int64_t M = bc->m, N = bc->n;
    kp_call *c = b->c;
    p->op = bc->op;
    p->dtype = bc->dt;
    p->rank = 2;
    p->out_dims[0] = M, p->out_dims[1] = N;
    p->a_stride[0] = N, p->a_stride[1] = 1;
    p->b_stride[0] = 0, p->b_stride[1] = 1; /* b [N] broadcast over M */
    c->n_in = 2;
    c->in[0] =
        input(b, "a", (ir_dtype)bc->dt, shp(2, M, N, 0, 0), data_of(b, bc->dt, M * N, -50, 50));
    c->in[1] = weight(b, "b", (ir_dtype)bc->dt, shp(1, N, 0, 0, 0), data_of(b, bc->dt, N, -9, 9));
    c->n_out = 1;
    c->out[0] = output(b, "out", (ir_dtype)bc->dt, shp(2, M, N, 0, 0));
}

static void
build_unary(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    c->p.unary.op = bc->op;
    c->p.unary.n = bc->m;
    c->n_in = 1;
    c->in[0] = input(b, "x", IR_DT_F32, shp(1, bc->m, 0, 0, 0), rvec(b, bc->m, 4.0f));
    c->n_out = 1;
    c->out[0] = output(b, "y", IR_DT_F32, shp(1, bc->m, 0, 0, 0));
}

static void
build_softmax(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    const ir_shape s = shp(3, bc->m, bc->n, bc->k, 0);
    c->p.softmax.log_softmax = bc->flag;
    c->p.softmax.outer = bc->m;
    c->p.softmax.axis_len = bc->n;
    c->p.softmax.inner = bc->k;
    c->n_in = 1;
    c->in[0] = input(b, "x", IR_DT_F32, s, rvec(b, bc->m * bc->n * bc->k, 5.0f));
    c->n_out = 1;
    c->out[0] = output(b, "y", IR_DT_F32, s);
}

static void
build_cast(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    c->p.cast.from = bc->dt;
    c->p.cast.to = bc->op;
    c->p.cast.n = bc->m;
    c->n_in = 1;
    c->in[0] = input(b, "x", (ir_dtype)bc->dt, shp(1, bc->m, 0, 0, 0),
                     data_of(b, bc->dt, bc->m, -1000, 1000));
    c->n_out = 1;
    c->out[0] = output(b, "y", (ir_dtype)bc->op, shp(1, bc->m, 0, 0, 0));
}

static void
build_argmax(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    c->p.argmax.dtype = bc->dt;
    c->p.argmax.select_last_index = bc->flag;
    c->p.argmax.outer = bc->m;
    c->p.argmax.axis_len = bc->n;
    c->p.argmax.inner = bc->k;
    c->n_in = 1;
    c->in[0] = input(b, "x", (ir_dtype)bc->dt, shp(3, bc->m, bc->n, bc->k, 0),
                     data_of(b, bc->dt, bc->m * bc->n * bc->k, -3, 3)); /* ties for ints */
    c->n_out = 1;
    c->out[0] = output(b, "y", IR_DT_I64, shp(2, bc->m, bc->k, 0, 0));
}

static void
build_strided(bprog *b, const bcase *bc)
{
    lstmc_rt_strided_params *p = &b->c->p.strided;
    const int64_t M = bc->m, N = bc->n, K = bc->k;
    kp_call *c = b->c;
    p->elem_size = 4;
    c->n_in = 1;
    c->n_out = 1;
    if (!bc->flag) { /* Transpose [M, N, K] -> [K, M, N] */
        p->rank = 3;
        p->out_dims[0] = K, p->out_dims[1] = M, p->out_dims[2] = N;
        p->in_stride[0] = 1, p->in_stride[1] = N * K, p->in_stride[2] = K;
        c->in[0] = input(b, "x", IR_DT_F32, shp(3, M, N, K, 0), rvec(b, M * N * K, 1.0f));
        c->out[0] = output(b, "y", IR_DT_F32, shp(3, K, M, N, 0));
    } else { /* Slice x[N-1 : N-1-M : -1] of x [N] */
        p->rank = 1;
        p->offset = N - 1;
        p->out_dims[0] = M;
        p->in_stride[0] = -1;
        c->in[0] = input(b, "x", IR_DT_F32, shp(1, N, 0, 0, 0), rvec(b, N, 1.0f));
        c->out[0] = output(b, "y", IR_DT_F32, shp(1, M, 0, 0, 0));
    }
}

static void
build_gather(bprog *b, const bcase *bc)
{
    lstmc_rt_gather_params *p = &b->c->p.gather;
    const int64_t M = bc->m, N = bc->n, K = bc->k, NI = bc->op;
    kp_call *c = b->c;
    p->elem_size = 4;
    p->index_dtype = LSTMC_RT_I64;
    p->outer = M, p->axis_len = N, p->inner = K, p->n_indices = NI;
    c->n_in = 2;
    c->in[0] = input(b, "data", IR_DT_F32, shp(3, M, N, K, 0), rvec(b, M * N * K, 1.0f));
    c->in[1] =
        weight(b, "idx", IR_DT_I64, shp(1, NI, 0, 0, 0), ivec(b, NI, LSTMC_RT_I64, -N, N - 1));
    c->n_out = 1;
    c->out[0] = output(b, "y", IR_DT_F32, shp(3, M, NI, K, 0));
}

static void
build_concat(bprog *b, const bcase *bc)
{
    lstmc_rt_concat_params *p = &b->c->p.concat;
    kp_call *c = b->c;
    p->elem_size = 4;
    p->outer = bc->m, p->in_cols = bc->k, p->out_cols = bc->n, p->offset = bc->op;
    c->n_in = 1;
    c->in[0] = input(b, "x", IR_DT_F32, shp(2, bc->m, bc->k, 0, 0), rvec(b, bc->m * bc->k, 1.0f));
    c->n_out = 1;
    c->out[0] = output(b, "y", IR_DT_F32, shp(2, bc->m, bc->n, 0, 0));
}

static void
build_fill(bprog *b, const bcase *bc)
{
    const float v = -2.75f;
    kp_call *c = b->c;
    c->p.fill.n = bc->m;
    c->p.fill.elem_size = 4;
    memcpy(c->p.fill.value, &v, 4);
    c->n_in = 0;
    c->n_out = 1;
    c->out[0] = output(b, "y", IR_DT_F32, shp(1, bc->m, 0, 0, 0));
}

static void
build_copy(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    c->p.copy.n_bytes = bc->m * 4;
    c->n_in = 1;
    c->in[0] = input(b, "x", IR_DT_F32, shp(1, bc->m, 0, 0, 0), rvec(b, bc->m, 1.0f));
    c->n_out = 1;
    c->out[0] = output(b, "y", IR_DT_F32, shp(1, bc->m, 0, 0, 0));
}

/* issue 20, elt: lstmc_rt_ewise on [M, N] with b [N] broadcast over M (and c, for Where and
 * Clip, a scalar); a bool condition for Where. */
static void
build_ewise(bprog *b, const bcase *bc)
{
    lstmc_rt_ewise_params *p = &b->c->p.ewise;
    const int64_t M = bc->m, N = bc->n;
    kp_call *c = b->c;
    int where = bc->op == LSTMC_RT_EW_WHERE, clip = bc->op == LSTMC_RT_EW_CLIP;
    int cmp = bc->op <= LSTMC_RT_EW_GREATER_EQUAL;
    p->op = bc->op;
    p->dtype = bc->dt;
    p->alpha = 0.3f;
    p->beta = 0.45f;
    p->rank = 2;
    p->out_dims[0] = M, p->out_dims[1] = N;
    p->a_stride[0] = N, p->a_stride[1] = 1;
    p->b_stride[0] = 0, p->b_stride[1] = 1;
    c->n_in = 3;
    if (where) {
        unsigned char *cond = arena_alloc(b->a, (size_t)(M * N));
        int64_t i;
        for (i = 0; i < M * N; i++)
            cond[i] = (unsigned char)((i * 7 + 3) % 5 < 2);
        c->in[0] = input(b, "cond", IR_DT_BOOL, shp(2, M, N, 0, 0), cond);
        c->in[1] =
            weight(b, "x", (ir_dtype)bc->dt, shp(1, N, 0, 0, 0), data_of(b, bc->dt, N, -9, 9));
        c->in[2] =
            input(b, "y", (ir_dtype)bc->dt, shp(2, M, N, 0, 0), data_of(b, bc->dt, M * N, -50, 50));
        p->c_stride[0] = N, p->c_stride[1] = 1;
    } else {
        c->in[0] =
            input(b, "a", (ir_dtype)bc->dt, shp(2, M, N, 0, 0), data_of(b, bc->dt, M * N, -50, 50));
        if (cmp || clip)
            c->in[1] = weight(b, "b", (ir_dtype)bc->dt, shp(1, clip ? 1 : N, 0, 0, 0),
                              data_of(b, bc->dt, clip ? 1 : N, -9, 9));
        if (clip) {
            float *hi = arena_alloc(b->a, 4);
            *hi = 0.5f;
            p->b_stride[1] = 0;
            c->in[2] = weight(b, "hi", IR_DT_F32, shp(1, 1, 0, 0, 0), hi);
        }
    }
    c->n_out = 1;
    c->out[0] = output(b, "out", cmp ? IR_DT_BOOL : (ir_dtype)bc->dt, shp(2, M, N, 0, 0));
}

static void
build_range(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    void *st = data_of(b, bc->dt, 1, -50, 50), *de = data_of(b, bc->dt, 1, -9, 9);
    c->p.range.dtype = bc->dt;
    c->p.range.n = bc->m;
    c->n_in = 2;
    c->in[0] = input(b, "start", (ir_dtype)bc->dt, shp(0, 0, 0, 0, 0), st);
    c->in[1] = input(b, "delta", (ir_dtype)bc->dt, shp(0, 0, 0, 0, 0), de);
    c->n_out = 1;
    c->out[0] = output(b, "y", (ir_dtype)bc->dt, shp(1, bc->m, 0, 0, 0));
}

static void
build_cumsum(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    const ir_shape s = shp(3, bc->m, bc->n, bc->k, 0);
    c->p.cumsum.dtype = bc->dt;
    c->p.cumsum.exclusive = bc->flag & 1;
    c->p.cumsum.reverse = (bc->flag >> 1) & 1;
    c->p.cumsum.outer = bc->m;
    c->p.cumsum.len = bc->n;
    c->p.cumsum.inner = bc->k;
    c->n_in = 1;
    c->in[0] =
        input(b, "x", (ir_dtype)bc->dt, s, data_of(b, bc->dt, bc->m * bc->n * bc->k, -50, 50));
    c->n_out = 1;
    c->out[0] = output(b, "y", (ir_dtype)bc->dt, s);
}

/* --- issue 20, red ----------------------------------------------------------------- */

/* Reduce [m, n, k] over axis 1 (flag 0) or axes 0 and 2 (flag 1). */
static void
build_reduce(bprog *b, const bcase *bc)
{
    lstmc_rt_reduce_params *p = &b->c->p.reduce;
    kp_call *c = b->c;
    p->op = bc->op;
    p->dtype = bc->dt;
    p->rank = 3;
    p->dims[0] = bc->m, p->dims[1] = bc->n, p->dims[2] = bc->k;
    p->reduce[0] = bc->flag, p->reduce[1] = !bc->flag, p->reduce[2] = bc->flag;
    c->n_in = 1;
    c->in[0] = input(b, "x", (ir_dtype)bc->dt, shp(3, bc->m, bc->n, bc->k, 0),
                     data_of(b, bc->dt, bc->m * bc->n * bc->k, -50, 50));
    c->n_out = 1;
    c->out[0] = output(b, "y", (ir_dtype)bc->dt,
                       bc->flag ? shp(1, bc->n, 0, 0, 0) : shp(2, bc->m, bc->k, 0, 0));
}

static void
build_layernorm(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    c->p.layernorm.outer = bc->m;
    c->p.layernorm.n = bc->n;
    c->p.layernorm.epsilon = 1e-5f;
    c->p.layernorm.scale_stride = !bc->op; /* op 1: one scale value */
    c->p.layernorm.bias_stride = bc->flag;
    c->n_in = 3;
    c->in[0] = input(b, "x", IR_DT_F32, shp(2, bc->m, bc->n, 0, 0), rvec(b, bc->m * bc->n, 3.0f));
    c->in[1] = bc->op ? weight(b, "scale", IR_DT_F32, shp(1, 1, 0, 0, 0), rvec(b, 1, 2.0f))
                      : weight(b, "scale", IR_DT_F32, shp(1, bc->n, 0, 0, 0), rvec(b, bc->n, 1.0f));
    c->in[2] =
        bc->flag ? weight(b, "B", IR_DT_F32, shp(1, bc->n, 0, 0, 0), rvec(b, bc->n, 1.0f)) : NULL;
    c->n_out = 1;
    c->out[0] = output(b, "y", IR_DT_F32, shp(2, bc->m, bc->n, 0, 0));
}

/* LayerNormalization's Mean and InvStdDev of [m, n]; flag: Mean absent. */
static void
build_layernorm_stats(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    c->p.layernorm.outer = bc->m;
    c->p.layernorm.n = bc->n;
    c->p.layernorm.epsilon = 1e-3f;
    c->n_in = 1;
    c->in[0] = input(b, "x", IR_DT_F32, shp(2, bc->m, bc->n, 0, 0), rvec(b, bc->m * bc->n, 3.0f));
    c->n_out = 2;
    c->out[0] = bc->flag ? NULL : output(b, "mean", IR_DT_F32, shp(2, bc->m, 1, 0, 0));
    c->out[1] = output(b, "inv_std_dev", IR_DT_F32, shp(2, bc->m, 1, 0, 0));
}

/* InstanceNormalization of [2, m, n]: m channels of n values. */
static void
build_instancenorm(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    c->p.instancenorm.outer = 2;
    c->p.instancenorm.channels = bc->m;
    c->p.instancenorm.inner = bc->n;
    c->p.instancenorm.epsilon = 1e-5f;
    c->n_in = 3;
    c->in[0] =
        input(b, "x", IR_DT_F32, shp(3, 2, bc->m, bc->n, 0), rvec(b, 2 * bc->m * bc->n, 3.0f));
    c->in[1] = weight(b, "scale", IR_DT_F32, shp(1, bc->m, 0, 0, 0), rvec(b, bc->m, 1.0f));
    c->in[2] = weight(b, "B", IR_DT_F32, shp(1, bc->m, 0, 0, 0), rvec(b, bc->m, 1.0f));
    c->n_out = 1;
    c->out[0] = output(b, "y", IR_DT_F32, shp(3, 2, bc->m, bc->n, 0));
}

/* Pad [m, n] by 1 row before and 2 columns on each side, 3 after. */
static void
build_pad(bprog *b, const bcase *bc)
{
    lstmc_rt_pad_params *p = &b->c->p.pad;
    const float v = 0.5f;
    kp_call *c = b->c;
    p->mode = bc->op;
    p->rank = 2;
    p->elem_size = 4;
    p->in_dims[0] = bc->m, p->in_dims[1] = bc->n;
    p->begin[0] = 1, p->begin[1] = 2, p->end[0] = 0, p->end[1] = 3;
    memcpy(p->value, &v, 4);
    c->n_in = 1;
    c->in[0] = input(b, "x", IR_DT_F32, shp(2, bc->m, bc->n, 0, 0), rvec(b, bc->m * bc->n, 1.0f));
    c->n_out = 1;
    c->out[0] = output(b, "y", IR_DT_F32, shp(2, bc->m + 1, bc->n + 5, 0, 0));
}

/* TopK of op entries over the middle dim of [m, n, k]; flag: the smallest. */
static void
build_topk(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    c->p.topk.dtype = bc->dt;
    c->p.topk.largest = !bc->flag;
    c->p.topk.sorted = 1;
    c->p.topk.outer = bc->m, c->p.topk.axis_len = bc->n, c->p.topk.inner = bc->k;
    c->p.topk.k = bc->op;
    c->n_in = 1;
    c->in[0] = input(b, "x", (ir_dtype)bc->dt, shp(3, bc->m, bc->n, bc->k, 0),
                     data_of(b, bc->dt, bc->m * bc->n * bc->k, -3, 3)); /* ties for ints */
    c->n_out = 2;
    c->out[0] = output(b, "values", (ir_dtype)bc->dt, shp(3, bc->m, bc->op, bc->k, 0));
    c->out[1] = output(b, "indices", IR_DT_I64, shp(3, bc->m, bc->op, bc->k, 0));
}

/* ScatterElements into data [m, n] along axis 1, indices [m, k]. */
static void
build_scatter(bprog *b, const bcase *bc)
{
    lstmc_rt_scatter_params *p = &b->c->p.scatter;
    kp_call *c = b->c;
    p->dtype = bc->dt;
    p->index_dtype = LSTMC_RT_I64;
    p->reduction = bc->op;
    p->rank = 2;
    p->axis = 1;
    p->data_dims[0] = bc->m, p->data_dims[1] = bc->n;
    p->idx_dims[0] = bc->m, p->idx_dims[1] = bc->k;
    c->n_in = 3;
    c->in[0] = input(b, "data", (ir_dtype)bc->dt, shp(2, bc->m, bc->n, 0, 0),
                     data_of(b, bc->dt, bc->m * bc->n, -9, 9));
    c->in[1] = weight(b, "idx", IR_DT_I64, shp(2, bc->m, bc->k, 0, 0),
                      ivec(b, bc->m * bc->k, LSTMC_RT_I64, -bc->n, bc->n - 1));
    c->in[2] = input(b, "updates", (ir_dtype)bc->dt, shp(2, bc->m, bc->k, 0, 0),
                     data_of(b, bc->dt, bc->m * bc->k, -9, 9));
    c->n_out = 1;
    c->out[0] = output(b, "y", (ir_dtype)bc->dt, shp(2, bc->m, bc->n, 0, 0));
}

/* One builder per kind: a kind without one fails every_kind_has_a_row. */
typedef void (*builder)(bprog *b, const bcase *bc);
/* --- issue 20, conv ------------------------------------------------------------------- */

/* Conv or ConvTranspose: N 2, C_in m, C_out 2m, group m with flag bit 2 (depthwise), else
 * 1; H 5 (kernel 3, pad 1), W n (kernel k, pad 1; flag bit 1: stride 2 and dilation 2; bit
 * 4: stride 3; bit 8: a fused Relu; bit 16: a fused HardSwish). rt_conv.c's paths: GEMM blocks
 * (stride 1, C_out >= 4), dot products (k >= 16, dilation 1), by tap (the rest, and the channels a
 * block of 4 leaves over). */
static void
build_conv(bprog *b, const bcase *bc)
{
    lstmc_rt_conv_params *p = &b->c->p.conv;
    kp_call *c = b->c;
    const int tr = b->c->kind == KP_CONV_TRANSPOSE;
    int64_t ew;
    p->n = 2, p->c_in = bc->m, p->c_out = 2 * bc->m, p->group = bc->flag & 2 ? bc->m : 1;
    p->in_h = 5, p->in_w = bc->n, p->k_h = 3, p->k_w = bc->k;
    p->stride_h = 1, p->stride_w = bc->flag & 1 ? 2 : bc->flag & 4 ? 3 : 1;
    p->dil_h = 1, p->dil_w = bc->flag & 1 ? 2 : 1;
    p->pad_h = 1, p->pad_w = 1;
    p->act = tr              ? 0
             : bc->flag & 8  ? LSTMC_RT_CONV_ACT_RELU
             : bc->flag & 16 ? LSTMC_RT_CONV_ACT_HARD_SWISH
                             : 0;
    ew = (p->k_w - 1) * p->dil_w + 1;
    p->out_h = tr ? p->stride_h * (p->in_h - 1) + 3 - 2 : (p->in_h + 2 - 3) / p->stride_h + 1;
    p->out_w = tr ? p->stride_w * (p->in_w - 1) + ew - 2 : (p->in_w + 2 - ew) / p->stride_w + 1;
    c->n_in = 3;
    c->in[0] = input(b, "X", IR_DT_F32, shp(4, 2, p->c_in, 5, p->in_w),
                     rvec(b, 2 * p->c_in * 5 * p->in_w, 1.0f));
    c->in[1] = tr ? weight(b, "W", IR_DT_F32, shp(4, p->c_in, p->c_out / p->group, 3, p->k_w),
                           rvec(b, p->c_in * p->c_out / p->group * 3 * p->k_w, 0.5f))
                  : weight(b, "W", IR_DT_F32, shp(4, p->c_out, p->c_in / p->group, 3, p->k_w),
                           rvec(b, p->c_out * p->c_in / p->group * 3 * p->k_w, 0.5f));
    c->in[2] = weight(b, "B", IR_DT_F32, shp(1, p->c_out, 0, 0, 0), rvec(b, p->c_out, 1.0f));
    c->n_out = 1;
    c->out[0] = output(b, "Y", IR_DT_F32, shp(4, 2, p->c_out, p->out_h, p->out_w));
}

/* MaxPool (op 0) / AveragePool (op 1, flag: count_include_pad) over [m, 5, n]: window 3 x k,
 * strides 2, pads 1 at both ends. */
static void
build_pool(bprog *b, const bcase *bc)
{
    lstmc_rt_pool_params *p = &b->c->p.pool;
    kp_call *c = b->c;
    p->kind = bc->op, p->count_include_pad = bc->flag;
    p->nc = bc->m, p->in_h = 5, p->in_w = bc->n, p->k_h = 3, p->k_w = bc->k;
    p->stride_h = p->stride_w = 2, p->dil_h = p->dil_w = 1;
    p->pad_h = p->pad_w = 1;
    p->out_h = (5 + 2 - 3) / 2 + 1;
    p->out_w = (bc->n + 2 - bc->k) / 2 + 1;
    c->n_in = 1;
    c->in[0] =
        input(b, "X", IR_DT_F32, shp(3, bc->m, 5, bc->n, 0), rvec(b, bc->m * 5 * bc->n, 2.0f));
    c->n_out = 1;
    c->out[0] = output(b, "Y", IR_DT_F32, shp(3, bc->m, p->out_h, p->out_w, 0));
}

/* BatchNormalization over [m, n, k] (n channels). */
static void
build_batchnorm(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    float *var = rvec(b, bc->n, 1.0f);
    int64_t i;
    for (i = 0; i < bc->n; i++)
        var[i] = var[i] * var[i] + 0.1f;
    c->p.batchnorm.outer = bc->m, c->p.batchnorm.channels = bc->n, c->p.batchnorm.inner = bc->k;
    c->p.batchnorm.epsilon = 1e-5f;
    c->n_in = 5;
    c->in[0] = input(b, "X", IR_DT_F32, shp(3, bc->m, bc->n, bc->k, 0),
                     rvec(b, bc->m * bc->n * bc->k, 2.0f));
    c->in[1] = weight(b, "scale", IR_DT_F32, shp(1, bc->n, 0, 0, 0), rvec(b, bc->n, 1.0f));
    c->in[2] = weight(b, "B", IR_DT_F32, shp(1, bc->n, 0, 0, 0), rvec(b, bc->n, 1.0f));
    c->in[3] = weight(b, "mean", IR_DT_F32, shp(1, bc->n, 0, 0, 0), rvec(b, bc->n, 1.0f));
    c->in[4] = weight(b, "var", IR_DT_F32, shp(1, bc->n, 0, 0, 0), var);
    c->n_out = 1;
    c->out[0] = output(b, "Y", IR_DT_F32, shp(3, bc->m, bc->n, bc->k, 0));
}

/* issue 22: small integers of `bytes` each in [lo, hi]. */
static void *
qvec(bprog *b, int64_t n, int bytes, int64_t lo, int64_t hi)
{
    int32_t *w = ivec(b, n, LSTMC_RT_I32, lo, hi);
    void *v = arena_alloc(b->a, (size_t)(n > 0 ? n : 1) * (size_t)bytes);
    int64_t i;
    for (i = 0; i < n; i++) {
        if (bytes == 1)
            ((int8_t *)v)[i] = (int8_t)w[i];
        else if (bytes == 2)
            ((int16_t *)v)[i] = (int16_t)w[i];
        else
            ((int32_t *)v)[i] = w[i];
    }
    return v;
}

/* KP_RNN_Q: a layer of the recipe with random integers (multipliers scaled to keep the gates
 * in range); bc->op is the activation bits. */
static void
build_rnnq(bprog *b, const bcase *bc)
{
    lstmc_rt_rnnq_params *p = &b->c->p.rnnq;
    kp_call *c = b->c;
    const int G = bc->cell == LSTMC_RT_CELL_LSTM ? 4 : bc->cell == LSTMC_RT_CELL_GRU ? 3 : 1;
    const int na = bc->cell == LSTMC_RT_CELL_LSTM ? 3 : bc->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
    const int64_t D = bc->dirs, GH = G * bc->H, hm = bc->op == 8 ? 127 : 32767;
    const ir_dtype dt = bc->op == 8 ? IR_DT_I8 : IR_DT_I16;
    int32_t *Q = ivec(b, D * GH * LSTMC_RT_RNNQ_ROW, LSTMC_RT_I32, -4096, 4096);
    int64_t r, i;

    p->cell = bc->cell, p->bits = bc->op, p->seq_len = bc->T, p->batch = bc->N;
    p->input_size = bc->I, p->hidden = bc->H, p->n_dirs = (int32_t)D, p->reverse = bc->rev;
    p->layout = bc->layout, p->linear_before_reset = bc->lbr, p->cell_exp = 13;
    for (i = 0; i < na * D; i++)
        p->act[i] =
            i % na == 0 && bc->cell != LSTMC_RT_CELL_RNN ? LSTMC_RT_ACT_SIGMOID : LSTMC_RT_ACT_TANH;
    p->h_mult = 1 << 30, p->peep_mult = 1 << 30, p->peep_shift = 33;
    p->h_shift = bc->cell == LSTMC_RT_CELL_LSTM  ? 31 + 30 - (bc->op == 8 ? 7 : 15)
                 : bc->cell == LSTMC_RT_CELL_GRU ? 30 - (bc->op == 8 ? 7 : 15)
                                                 : 31 + 15 - (bc->op == 8 ? 7 : 15);
    for (r = 0; r < D * GH; r++) { /* about 2^-(n-30) of the accumulator in Q.12 */
        int32_t *q = Q + r * LSTMC_RT_RNNQ_ROW;
        q[LSTMC_RT_RNNQ_MW] = (1 << 30) + (int32_t)r * 977;
        q[LSTMC_RT_RNNQ_NW] = bc->op == 8 ? 33 : 41;
        q[LSTMC_RT_RNNQ_MU] = (1 << 30) + (int32_t)r * 1231;
        q[LSTMC_RT_RNNQ_NU] = bc->op == 8 ? 34 : 42;
        q[LSTMC_RT_RNNQ_ZC] = (int32_t)(r % 7) * 100 - 300;
    }
    c->n_in = 8;
    c->in[0] =
        input(b, "X", dt, shp(3, bc->layout ? bc->N : bc->T, bc->layout ? bc->T : bc->N, bc->I, 0),
              qvec(b, bc->T * bc->N * bc->I, bc->op / 8, -hm, hm));
    c->in[1] =
        weight(b, "W", IR_DT_I8, shp(3, D, GH, bc->I, 0), qvec(b, D * GH * bc->I, 1, -127, 127));
    c->in[2] =
        weight(b, "U", IR_DT_I8, shp(3, D, GH, bc->H, 0), qvec(b, D * GH * bc->H, 1, -127, 127));
    c->in[3] = weight(b, "Q", IR_DT_I32, shp(3, D, GH, LSTMC_RT_RNNQ_ROW, 0), Q);
    if (bc->seql) {
        int32_t *sl = ivec(b, bc->N, LSTMC_RT_I32, 0, bc->T);
        c->in[4] = input(b, "seq_lens", IR_DT_I32, shp(1, bc->N, 0, 0, 0), sl);
    }
    if (bc->init) {
        c->in[5] = input(b, "init_h", dt, shp(3, D, bc->N, bc->H, 0),
                         qvec(b, D * bc->N * bc->H, bc->op / 8, -hm, hm));
        if (bc->cell == LSTMC_RT_CELL_LSTM)
            c->in[6] = input(b, "init_c", IR_DT_I16, shp(3, D, bc->N, bc->H, 0),
                             qvec(b, D * bc->N * bc->H, 2, -30000, 30000));
    }
    if (bc->peep)
        c->in[7] = weight(b, "P", IR_DT_I16, shp(2, D, 3 * bc->H, 0, 0),
                          qvec(b, D * 3 * bc->H, 2, -32767, 32767));
    c->n_out = 3;
    c->out[0] = output(
        b, "Y", dt, bc->layout ? shp(4, bc->N, bc->T, D, bc->H) : shp(4, bc->T, D, bc->N, bc->H));
    c->out[1] = output(b, "Y_h", dt, shp(3, D, bc->N, bc->H, 0));
    if (bc->cell == LSTMC_RT_CELL_LSTM)
        c->out[2] = output(b, "Y_c", IR_DT_I16, shp(3, D, bc->N, bc->H, 0));
    c->scratch_bytes = lstmc_rt_rnnq_scratch(p) * 4;
}

/* KP_LSTM_TISSUE_Q: build_rnnq's layer (p.rnnq is p.tissueq.p.q: the same first member) with
 * a calibrated bound of random radii and shifts, h_pred, c_pred, and an alpha_inter that
 * cuts some links. */
static void
build_tissueq(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    lstmc_rt_tissueq_params *tp = &c->p.tissueq.p;
    const int64_t D = bc->dirs, G = 4 * bc->H, hm = bc->op == 8 ? 127 : 32767;
    int32_t *R;
    int64_t i;

    build_rnnq(b, bc);
    tp->mts = 3;
    tp->relevance = LSTMC_RT_REL_CALIBRATED;
    c->p.tissueq.alpha_inter = 60.0f;       /* 30 cuts nothing here */
    b->ainter = c->p.tissueq.alpha_inter;   /* the generated library's default */
    if (bc->kind == KP_LSTM_TISSUE_DRS_Q) { /* both: row skip in the tissues too */
        c->p.tissueq.alpha_intra = 0.5f;
        b->aintra = c->p.tissueq.alpha_intra;
    }
    R = ivec(b, D * 2 * G, LSTMC_RT_I32, 0, 3 * 4096);
    for (i = 0; i < D * 2 * G; i++)
        if ((i / G) % 2) /* the shifts */
            R[i] -= 3 * 2048;
    c->n_in = 11;
    c->in[8] = weight(b, "R", IR_DT_I32, shp(3, D, 2, G, 0), R);
    c->in[9] = weight(b, "h_pred", bc->op == 8 ? IR_DT_I8 : IR_DT_I16, shp(2, D, bc->H, 0, 0),
                      qvec(b, D * bc->H, bc->op / 8, -hm, hm));
    c->in[10] = weight(b, "c_pred", IR_DT_I16, shp(2, D, bc->H, 0, 0),
                       qvec(b, D * bc->H, 2, -20000, 20000));
    c->scratch_bytes = lstmc_rt_lstm_tissue_q_scratch(tp) * 4;
}

/* KP_LSTM_DRS_Q: build_rnnq's layer (p.rnnq is p.drsq.p) at an alpha_intra that skips some
 * units. */
static void
build_drsq(bprog *b, const bcase *bc)
{
    build_rnnq(b, bc);
    b->c->p.drsq.alpha_intra = 0.5f;
    b->aintra = b->c->p.drsq.alpha_intra; /* the generated library's default */
}

/* KP_QUANT / KP_DEQUANT of m values, bc->op bits. */
static void
build_quant(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    const int q = c->kind == KP_QUANT;
    const ir_dtype dt = bc->op == 8 ? IR_DT_I8 : IR_DT_I16;
    c->p.quant.n = bc->m, c->p.quant.bits = bc->op;
    c->p.quant.scale = bc->op == 8 ? 0.02f : 1e-4f, c->p.quant.zero_point = bc->op == 8 ? -3 : 0;
    c->n_in = c->n_out = 1;
    c->in[0] =
        q ? input(b, "x", IR_DT_F32, shp(1, bc->m, 0, 0, 0), rvec(b, bc->m, 3.0f))
          : input(b, "q", dt, shp(1, bc->m, 0, 0, 0), qvec(b, bc->m, bc->op / 8, -30000, 30000));
    c->out[0] = output(b, "y", q ? dt : IR_DT_F32, shp(1, bc->m, 0, 0, 0));
}

/* KP_GEMM_Q: A int8 [m, k] with zero point -5, B int8 [n, k], bias int32. */
static void
build_gemmq(bprog *b, const bcase *bc)
{
    kp_call *c = b->c;
    c->p.gemmq.m = bc->m, c->p.gemmq.n = bc->n, c->p.gemmq.k = bc->k;
    c->p.gemmq.bits = bc->op, c->p.gemmq.a_zero_point = -5;
    c->n_in = 3, c->n_out = 1;
    c->in[0] =
        input(b, "A", IR_DT_I8, shp(2, bc->m, bc->k, 0, 0), qvec(b, bc->m * bc->k, 1, -128, 127));
    c->in[1] =
        weight(b, "B", IR_DT_I8, shp(2, bc->n, bc->k, 0, 0), qvec(b, bc->n * bc->k, 1, -127, 127));
    c->in[2] = weight(b, "bias", IR_DT_I32, shp(1, bc->n, 0, 0, 0),
                      ivec(b, bc->n, LSTMC_RT_I32, -99999, 99999));
    c->out[0] = output(b, "Y", IR_DT_I32, shp(2, bc->m, bc->n, 0, 0));
}

static const builder builders[KP_KIND_COUNT] = {
    [KP_RNN] = build_rnn,
    [KP_GEMM] = build_gemm,
    [KP_MATMUL] = build_matmul,
    [KP_BINARY] = build_binary,
    [KP_UNARY] = build_unary,
    [KP_SOFTMAX] = build_softmax,
    [KP_CAST] = build_cast,
    [KP_ARGMAX] = build_argmax,
    [KP_STRIDED] = build_strided,
    [KP_GATHER] = build_gather,
    [KP_CONCAT] = build_concat,
    [KP_FILL] = build_fill,
    [KP_COPY] = build_copy,
    [KP_RNN_PROJ] = build_proj,
    [KP_RNN_REC] = build_rec,
    [KP_LSTM_TISSUE] = build_lstm_opt,
    [KP_LSTM_DRS] = build_lstm_opt,
    [KP_LSTM_TISSUE_DRS] = build_lstm_opt,
    [KP_EWISE] = build_ewise, /* issue 20, elt */
    [KP_RANGE] = build_range,
    [KP_CUMSUM] = build_cumsum,
    /* issue 20, red */
    [KP_REDUCE] = build_reduce,
    [KP_LAYERNORM] = build_layernorm,
    [KP_PAD] = build_pad,
    [KP_TOPK] = build_topk,
    [KP_SCATTER_ELEMENTS] = build_scatter,
    [KP_CONV] = build_conv, /* issue 20, conv */
    [KP_CONV_TRANSPOSE] = build_conv,
    [KP_POOL] = build_pool,
    [KP_BATCHNORM] = build_batchnorm,
    [KP_LAYERNORM_STATS] = build_layernorm_stats, /* issue 20, ops */
    [KP_INSTANCENORM] = build_instancenorm,
    [KP_RNN_Q] = build_rnnq,            /* issue 22 */
    [KP_LSTM_TISSUE_Q] = build_tissueq, /* issue 24 */
    [KP_LSTM_DRS_Q] = build_drsq,
    [KP_LSTM_TISSUE_DRS_Q] = build_tissueq,
    [KP_QUANT] = build_quant,
    [KP_DEQUANT] = build_quant,
    [KP_GEMM_Q] = build_gemmq,
};

/* Case i's program, from its own seed: the same data every time it is built. */
static bprog *
build(int i)
{
    bprog *b = calloc(1, sizeof *b);
    int j;
    b->a = arena_new(0);
    b->g = ir_graph_new(b->a, cases[i].name, "test_backends");
    b->seed = 1000u + 7919u * (unsigned)i;
    b->c = arena_calloc(b->a, 1, sizeof *b->c);
    b->c->kind = cases[i].kind;
    b->kp.calls = b->c;
    b->kp.n_calls = b->kp.cap_calls = 1;
    builders[cases[i].kind](b, &cases[i]);
    b->kp.outputs = arena_calloc(b->a, KP_MAX_ARGS, sizeof *b->kp.outputs);
    for (j = 0; j < b->c->n_out; j++)
        if (b->c->out[j])
            b->kp.outputs[b->kp.n_outputs++] = b->c->out[j];
    return b;
}

static void
bprog_free(bprog *b)
{
    arena_free(b->a);
    free(b);
}

/* --- the columns ---------------------------------------------------------------------- */

static int
always(void)
{
    return 1;
}

static int
every_call(const kp_call *c)
{
    (void)c;
    return 1;
}

static int
opencl_built(void)
{
#ifdef LSTMC_RT_OPENCL
    return 1;
#else
    return 0;
#endif
}

typedef struct backend {
    const char *name;
    int (*available)(void);           /* built into this lstmc and this test */
    int (*handles)(const kp_call *c); /* may take the call */
    int llvm, opencl;                 /* cg_options */
    const char *target;
} backend;

static const backend backends[] = {
    {"c", always, every_call, 0, 0, "host"},
    {"llvm", cg_llvm_available, cg_llvm_handles, 1, 0, "host"},
    {"opencl", opencl_built, cg_opencl_handles, 0, 1, "pocl"},
};
#define N_BACKENDS ((int)(sizeof backends / sizeof backends[0]))

/* --- generating, building, running -------------------------------------------------- */

enum { JOB_SKIP_UNAVAILABLE = 1, JOB_SKIP_KIND, JOB_SKIP_DECLINED, JOB_RUN };

static int job[sizeof cases / sizeof cases[0]][sizeof backends / sizeof backends[0]];

static void
job_dir(char *buf, size_t n, int i, int k)
{
    snprintf(buf, n, "%s/%s/%s", WORK, cases[i].name, backends[k].name);
}

static char *
slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *s;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        n = 0;
    s[n] = '\0';
    fclose(f);
    return s;
}

/* Write case i's library for backend k; the job's state. */
static int
generate(int i, int k)
{
    const backend *be = &backends[k];
    char dir[512], path[600];
    bprog *b;
    diag *d;
    memplan mp;
    cg_options o;
    char *host;
    int st;

    if (!be->available())
        return JOB_SKIP_UNAVAILABLE;
    b = build(i);
    if (!be->handles(b->c)) {
        bprog_free(b);
        return JOB_SKIP_KIND;
    }
    job_dir(dir, sizeof dir, i, k);
    d = diag_new(b->a, cases[i].name, stderr);
    cr_assert_eq(memplan_run(b->a, b->g, &b->kp, &mp, d), 0, "%s: memplan", cases[i].name);
    memset(&o, 0, sizeof o);
    o.name = "t";
    o.outdir = dir;
    o.target = be->target;
    o.llvm = be->llvm;
    o.opencl = be->opencl;
    o.be = cg_backend_resolve(be->target, be->llvm ? "llvm" : "c", 0, d);
    cr_assert(o.be && o.be->gpu == be->opencl, "%s: backend", be->name);
    o.threads = 1;
    o.alpha_inter = b->ainter;
    o.alpha_intra = b->aintra;
    cr_assert_eq(cg_write(b->g, &b->kp, &mp, &o, d), 0, "%s/%s: cg_write", cases[i].name, be->name);
    /* the backend took the call only if the schedule calls its kernel t_k0 */
    snprintf(path, sizeof path, "%s/t.c", dir);
    host = slurp(path);
    cr_assert(host, "%s", path);
    st = (be->llvm || be->opencl) && !strstr(host, "st = t_k0(") ? JOB_SKIP_DECLINED : JOB_RUN;
    free(host);
    bprog_free(b);
    return st;
}

/* One makefile for every library and the runtime objects they share, built by make -j2. */
static void
build_all(void)
{
    static const char *const rt[] = {"rt_blob",   "rt_drs",  "rt_hsparse",  "rt_kernels",
                                     "rt_lowp",   "rt_pool", "rt_rnn",      "rt_spmv",
                                     "rt_tissue", "rt_uo",   "rt_eltwise2", "rt_reduce",
                                     "rt_conv",   "rt_rnnq", "rt_plan"};
    char mk[600], cmd[1400], dir[512];
    FILE *f;
    int i, k, n;

    snprintf(mk, sizeof mk, "%s/all.mk", WORK);
    f = fopen(mk, "w");
    cr_assert(f, "%s", mk);
    fprintf(f, "RT = %s/runtime\nCFLAGS = -O2 -std=c99 -fPIC %s -I$(RT)/include\n",
            LSTMC_SOURCE_DIR, LSTMC_TEST_CC_FLAGS);
    fputs("RTO =", f);
    n = (int)(sizeof rt / sizeof rt[0]);
    for (i = 0; i < n; i++)
        fprintf(f, " rt/%s.o", rt[i]);
    fputs("\nall:", f);
    for (i = 0; i < N_CASES; i++)
        for (k = 0; k < N_BACKENDS; k++)
            if (job[i][k] == JOB_RUN)
                fprintf(f, " %s/%s/t.so", cases[i].name, backends[k].name);
    fputs("\n\nrt/%.o: $(RT)/src/%.c $(wildcard $(RT)/include/*.h)\n"
          "\t@mkdir -p rt\n\t$(CC) $(CFLAGS) -DLSTMC_RT_OPENCL -c -o $@ $<\n\n",
          f);
    for (i = 0; i < N_CASES; i++)
        for (k = 0; k < N_BACKENDS; k++) {
            if (job[i][k] != JOB_RUN)
                continue;
            snprintf(dir, sizeof dir, "%s/%s", cases[i].name, backends[k].name);
            fprintf(f,
                    "%s/t.so: $(RTO)%s $(wildcard %s/t*.[cho])\n"
                    "\t$(CC) $(CFLAGS) -O1 -shared -I%s -o $@ %s/t.c %s/t_weights.%s",
                    dir, backends[k].opencl ? " rt/rt_opencl.o" : "", dir, dir, dir, dir,
                    backends[k].llvm ? "o" : "c"); /* the weights: LLVM's object, or C */
            if (backends[k].opencl)
                fprintf(f, " %s/t_ocl.c rt/rt_opencl.o -DLSTMC_RT_OPENCL", dir);
            if (backends[k].llvm)
                fprintf(f, " %s/t_kernels.o", dir);
            fprintf(f, " $(RTO) %s -pthread -lm\n\n", backends[k].opencl ? "-lOpenCL" : "");
        }
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && make -s -j2 -f all.mk all", WORK);
    cr_assert(system(cmd) == 0, "%s", cmd);
}

/* Bytes of a tensor. */
static size_t
bytes_of(const ir_tensor *t)
{
    return (size_t)ir_shape_numel(&t->shape) * ir_dtype_size(t->dtype);
}

#define POISON 0x7f /* every output byte before a run: a float of 3.4e38 */

/* NMSE of got against want (n floats); positions where want is still POISON must be so in
 * got too and stay out of the sum. *bad = first mismatching index or -1. */
static double
nmse(const float *got, const float *want, size_t n, long *bad)
{
    double num = 0, den = 0;
    size_t i;
    uint32_t pw;
    memset(&pw, POISON, 4);
    *bad = -1;
    for (i = 0; i < n; i++) {
        uint32_t w, g;
        memcpy(&w, want + i, 4);
        memcpy(&g, got + i, 4);
        if (w == pw) {
            if (g != pw && *bad < 0)
                *bad = (long)i;
            continue;
        }
        if (!isfinite(got[i])) {
            if (*bad < 0)
                *bad = (long)i;
            continue;
        }
        num += ((double)got[i] - want[i]) * ((double)got[i] - want[i]);
        den += (double)want[i] * want[i];
    }
    if (*bad >= 0)
        return INFINITY;
    return den > 0 ? num / den : num;
}

typedef lstmc_rt_status (*init_fn)(void *ctx, void *arena, size_t size);
typedef lstmc_rt_status (*thr_fn)(void *ctx, float alpha_inter, float alpha_intra);
typedef lstmc_rt_status (*run_fn)(void *ctx, const void *const *in, void *const *out);
typedef void (*release_fn)(void);

/* Run case i's library for backend k against want (kp_exec's outputs); 0 when it matches. */
static int
check(int i, int k, const bprog *b, const memplan *mp, void *const *want)
{
    const bcase *bc = &cases[i];
    char path[600];
    void *so, *arena_mem, *got[KP_MAX_ARGS];
    _Alignas(64) unsigned char ctx[1024];
    init_fn init;
    thr_fn thr;
    run_fn run;
    release_fn rel;
    lstmc_rt_status st;
    size_t asz = (size_t)(mp->arena_size + 64) / 64 * 64;
    int j, bad = 0;

    job_dir(path, sizeof path, i, k);
    strcat(path, "/t.so");
    so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        fprintf(stderr, "backends: %s/%s: dlopen: %s\n", bc->name, backends[k].name, dlerror());
        return 1;
    }
    init = (init_fn)dlsym(so, "t_init");
    thr = (thr_fn)dlsym(so, "t_set_thresholds");
    run = (run_fn)dlsym(so, "t_run");
    rel = (release_fn)dlsym(so, "t_ocl_release");
    cr_assert(init && thr && run, "%s: t_init, t_set_thresholds, t_run", path);
    arena_mem = aligned_alloc(64, asz);
    for (j = 0; j < b->kp.n_outputs; j++) {
        got[j] = malloc(bytes_of(b->kp.outputs[j]) + 1);
        memset(got[j], POISON, bytes_of(b->kp.outputs[j]));
    }
    st = init(ctx, arena_mem, asz);
    if (st == LSTMC_RT_OK)
        st = thr(ctx, b->ainter, b->aintra);
    if (st == LSTMC_RT_OK)
        st = run(ctx, (const void *const *)b->in_data, got);
    if (st != LSTMC_RT_OK) {
        fprintf(stderr, "backends: %s/%s: %s\n", bc->name, backends[k].name,
                lstmc_rt_status_str(st));
        bad = 1;
    }
    for (j = 0; !bad && j < b->kp.n_outputs; j++) {
        const ir_tensor *t = b->kp.outputs[j];
        size_t n = (size_t)ir_shape_numel(&t->shape);
        if (t->dtype == IR_DT_F32) {
            long at;
            double e = nmse(got[j], want[j], n, &at);
            if (!(e <= bc->nmse)) {
                fprintf(stderr, "backends: %s/%s: output %s: NMSE %.3g > %.3g", bc->name,
                        backends[k].name, t->name, e, bc->nmse);
                if (at >= 0)
                    fprintf(stderr, " (element %ld: %g, want %g)", at,
                            (double)((float *)got[j])[at], (double)((float *)want[j])[at]);
                fputc('\n', stderr);
                bad = 1;
            }
        } else if (memcmp(got[j], want[j], bytes_of(t)) != 0) {
            fprintf(stderr, "backends: %s/%s: output %s differs (integers: exactly)\n", bc->name,
                    backends[k].name, t->name);
            bad = 1;
        }
    }
    for (j = 0; j < b->kp.n_outputs; j++)
        free(got[j]);
    if (rel)
        rel();
    dlclose(so);
    free(arena_mem);
    return bad;
}

static double
seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void
pocl_env(void)
{
    setenv("POCL_CACHE_DIR", LSTMC_BINARY_DIR "/pocl-cache", 1);
    unsetenv("LSTMC_OCL_PLATFORM");
    unsetenv("LSTMC_OCL_DEVICE");
    unsetenv("LSTMC_OCL_POLICY");
}

Test(backends, every_kind_has_a_row)
{
    int k, i, n;
    for (k = 0; k < KP_KIND_COUNT; k++) {
        cr_expect(builders[k], "kind %d (%s) has no builder", k, kp_kind_fn((kp_kind)k));
        for (i = n = 0; i < N_CASES; i++)
            n += cases[i].kind == (kp_kind)k;
        cr_expect_gt(n, 0, "kind %d (%s) has no row in cases[]", k, kp_kind_fn((kp_kind)k));
    }
}

Test(backends, every_kind_every_backend, .timeout = 600)
{
    int i, k, fails = 0, ran[8] = {0}, skipped[8] = {0};
    double t0;
    int saved_stdout, null_fd;
    static const char *const why[] = {"", "backend not built", "kind not handled",
                                      "declined at generation", ""};

    pocl_env();
    t0 = seconds();
    mkdir(WORK, 0777);
    fflush(stdout); /* cg_write's size summaries, one line per library: not wanted here */
    saved_stdout = dup(1);
    null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0)
        dup2(null_fd, 1);
    for (i = 0; i < N_CASES; i++) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", WORK, cases[i].name);
        mkdir(dir, 0777);
        for (k = 0; k < N_BACKENDS; k++)
            job[i][k] = generate(i, k);
    }
    fflush(stdout);
    if (saved_stdout >= 0)
        dup2(saved_stdout, 1);
    if (null_fd >= 0)
        close(null_fd);
    fprintf(stderr, "backends: generated in %.1f s\n", seconds() - t0);
    build_all();
    fprintf(stderr, "backends: built in %.1f s\n", seconds() - t0);
    for (i = 0; i < N_CASES; i++) {
        bprog *b = build(i);
        diag *d = diag_new(b->a, cases[i].name, stderr);
        memplan mp;
        void *want[KP_MAX_ARGS], *ins[KP_MAX_ARGS], *outs[KP_MAX_ARGS], *scratch;
        int j, n = 0;
        lstmc_rt_status st;

        cr_assert_eq(memplan_run(b->a, b->g, &b->kp, &mp, d), 0);
        /* the reference: kp_exec on the call, inputs and constants in place */
        for (j = 0; j < b->c->n_in; j++) {
            const ir_tensor *t = b->c->in[j];
            int q;
            ins[j] = NULL;
            if (!t)
                continue;
            ins[j] = t->data;
            for (q = 0; q < b->g->n_inputs; q++)
                if (b->g->inputs[q] == t)
                    ins[j] = b->in_data[q];
        }
        for (j = 0; j < b->c->n_out; j++) {
            outs[j] = NULL;
            if (!b->c->out[j])
                continue;
            want[n] = outs[j] = malloc(bytes_of(b->c->out[j]) + 1);
            memset(outs[j], POISON, bytes_of(b->c->out[j]));
            n++;
        }
        scratch = calloc(1, (size_t)b->c->scratch_bytes + 64);
        st = kp_exec(b->c, (const void *const *)ins, outs, scratch);
        cr_assert_eq(st, LSTMC_RT_OK, "%s: kp_exec: %s", cases[i].name, lstmc_rt_status_str(st));
        for (k = 0; k < N_BACKENDS; k++) {
            if (job[i][k] != JOB_RUN) {
                skipped[k]++;
                fprintf(stderr, "backends: %s/%s: skipped (%s)\n", cases[i].name, backends[k].name,
                        why[job[i][k]]);
                continue;
            }
            ran[k]++;
            fails += check(i, k, b, &mp, want);
        }
        for (j = 0; j < n; j++)
            free(want[j]);
        free(scratch);
        bprog_free(b);
    }
    fprintf(stderr, "backends: %d cases x %d backends:", N_CASES, N_BACKENDS);
    for (k = 0; k < N_BACKENDS; k++)
        fprintf(stderr, " %s %d run, %d skipped;", backends[k].name, ran[k], skipped[k]);
    fprintf(stderr, " %d failed; %.1f s\n", fails, seconds() - t0);
    cr_assert_eq(fails, 0, "%d case/backend pairs failed (see above)", fails);
}
