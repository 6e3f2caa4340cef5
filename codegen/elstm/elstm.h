/*
 * elstm.h — the E-LSTM accelerator target (../shared/papers/elstm-embedded-sparse-lstm.txt,
 * docs/ELSTM.md): a RISC-V core with an LSTM co-processor on its 64-bit RoCC port.
 *
 *   - the profile (N_pe SpMV PEs, MACC per PE per cycle, RoCC width, BUF_x, BUF_wx, fp16)
 *   - the fusion factor N_fuse: Eq. 6 time model minimised under the Eq. 7 buffer limits,
 *     by linear search as the paper does (§3.2.4)
 *   - a behavioural cycle model of the accelerator fed with the real eSELL word counts
 *   - emission: per LSTM layer the eSELL RoCC words of W and U, the bias, and the
 *     per-sequence command schedule (binary + readable dump), `lstmc M.onnx --target=elstm`
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this backend uses only
 * core/, formats/ (eSELL) and the runtime's headers, never another backend's *_impl.h.
 */
#ifndef LSTMC_ELSTM_H
#define LSTMC_ELSTM_H

#include <stdint.h>

typedef struct arena arena;
typedef struct diag diag;
typedef struct ir_graph ir_graph;

typedef struct elstm_profile {
    const char *name;
    int n_pe;         /* SpMV PEs: N_pe - 1 compute W x, one computes U h (§3.2.3) */
    int macc_per_pe;  /* MACC per PE per cycle */
    int rocc_bits;    /* RoCC interface width, one word per cycle */
    int value_bits;   /* weight value width (fp16) */
    int64_t buf_x;    /* BUF_x capacity, in values */
    int64_t buf_wx;   /* BUF_wx capacity, in values */
} elstm_profile;

/* §4.5: 3 PEs of 4 MACC, 64-bit RoCC, fp16. The paper gives no buffer sizes: ours are
 * 16 Ki values (32 KiB) for BUF_x and 64 Ki values (128 KiB) for BUF_wx (docs/ELSTM.md). */
extern const elstm_profile elstm_default_profile;

/* One LSTM layer as Eq. 6 sees it. */
typedef struct elstm_layer {
    int64_t x, h, ts;      /* len(x), len(h), time steps per sequence */
    double spw, spu, sph;  /* sparsity of W, U and of the hidden state */
} elstm_layer;

/* Eq. 6, segment by segment, in cycles. */
typedef struct elstm_time {
    double twx, tuh, prolog, iter, main, epilog, total;
} elstm_time;

/* T(N_fuse) by Eq. 6. Values per RoCC word = rocc_bits / value_bits (4 in the paper, where
 * one word is one cycle of one 4-MACC PE); Eq. 6 is written for that case and is scaled
 * when a profile differs. */
double elstm_eq6(const elstm_profile *p, const elstm_layer *l, int nfuse, elstm_time *out);

/* Eq. 7: 1 when N_fuse fits BUF_x, BUF_wx and N_fuse * N_pe <= ts. */
int elstm_feasible(const elstm_profile *p, const elstm_layer *l, int nfuse);

/* The feasible N_fuse of least T, by linear search from 1 (ties: the smaller). 0 when no
 * N_fuse is feasible (a layer too large for the buffers, or N_pe > ts). */
int elstm_choose_nfuse(const elstm_profile *p, const elstm_layer *l, double *t_out);

/* --- behavioural cycle model ------------------------------------------------------- */

typedef struct elstm_sim_layer {
    int64_t ts;
    int64_t w_words;             /* RoCC words of W (its whole eSELL stream) */
    int64_t n_ucols;             /* block columns of U (len(h) / 4) */
    const int64_t *u_col_words;  /* words of each U block column */
    const unsigned char *u_keep; /* [ts][n_ucols]: 1 when the column is loaded at step t
                                    (its 4 h_{t-1} elements are not all pruned); NULL: all */
} elstm_sim_layer;

typedef struct elstm_sim_stats {
    int64_t cycles;
    int64_t w_words, u_words; /* words moved over RoCC */
    int64_t rocc_idle;        /* cycles the port moved nothing */
} elstm_sim_stats;

/*
 * Run one sequence through the accelerator, cycle by cycle: one RoCC word per cycle; the
 * N_pe - 1 W PEs share each W word and spend N_fuse cycles on it (one per fused step); the
 * U PE spends one cycle per word; W is served first when both want the port (Fig. 8). W x of
 * a group of (N_pe - 1) * N_fuse steps needs the previous group's W x done and the one
 * before's U h done (two BUF_wx halves); U h_t needs W x of its group and U h_{t-1}. Vector
 * operations, x/h transfers and the CPU are not modelled (the paper's Eq. 6 omits them too).
 * Returns the cycle count (-1 if the schedule could not go on); st may be NULL.
 */
int64_t elstm_simulate(const elstm_profile *p, const elstm_sim_layer *l, int nfuse,
                       elstm_sim_stats *st);

/*
 * A sim layer from the eSELL forms of W and U: word counts from the streams, and, when
 * sph > 0, each U block column of each step dropped with probability sph (xorshift seeded
 * by seed) — the pruned groups of four h elements of §4.4 at the average rate of Table 2.
 * Returns 0, or -1 when a is full.
 */
typedef struct esell esell;
int elstm_sim_prepare(arena *a, const esell *w, const esell *u, int64_t ts, double sph,
                      uint64_t seed, elstm_sim_layer *out);

/* --- emission ------------------------------------------------------------------------ */

/* Command words of the schedule: op << 56 | layer << 48 | a << 24 | b. */
enum elstm_cmd {
    ELSTM_CFG_LAYER = 1, /* a = len(x), b = len(h) */
    ELSTM_CFG_FUSE = 2,  /* a = N_fuse, b = N_pe */
    ELSTM_LOAD_B = 3,    /* bias of the layer into BUF_b */
    ELSTM_LOAD_X = 4,    /* a = t: x_t into BUF_x */
    ELSTM_WX = 5,        /* a = t0, b = n: W x_t for t0 <= t < t0 + n, fused */
    ELSTM_UH = 6,        /* a = t: U h_{t-1}, skipping pruned block columns, then the cell */
    ELSTM_STORE_H = 7    /* a = t: h_t back to the CPU */
};

#define ELSTM_CMD(op, layer, a, b)                                                           \
    ((uint64_t)(op) << 56 | (uint64_t)(layer) << 48 | (uint64_t)(a) << 24 | (uint64_t)(b))

/* Schedule of one layer into out (NULL: count only); returns the number of commands. */
int64_t elstm_schedule(int layer, const elstm_layer *l, int nfuse, int n_pe, uint64_t *out);

/*
 * Write the accelerator program for every LSTM of the prepared graph g into outdir:
 * layerK_W.rocc, layerK_U.rocc (eSELL RoCC words, little-endian uint64), layerK_U.cols
 * (word offset of each U block column, n_ucols + 1 uint64, for skipping), layerK_b.rocc
 * (fp16 bias, 4 per word), schedule.bin (commands) and elstm.txt (what was chosen and a
 * readable dump of the schedule). sph: the hidden-state sparsity Eq. 6 assumes. Returns 0,
 * or -1 after reporting through d (an LSTM the accelerator cannot run, unknown sizes).
 */
int elstm_emit(arena *a, const ir_graph *g, const elstm_profile *p, double sph,
               const char *outdir, diag *d);

#endif /* LSTMC_ELSTM_H */
