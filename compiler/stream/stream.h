/*
 * stream.h — the streaming API's compile side (issue 9): which models can be fed a chunk of
 * time steps at a time, and the step program that does it.
 *
 * A model streams when every value is either per time step (a time axis, each step computed
 * from the same step of the inputs and the recurrent state), the state at the end of the
 * steps fed so far (Y_h, Y_c, the last step of a per-step value), or independent of time.
 * stream_analyze decides that on the prepared graph at the compiled sequence length T, op
 * by op. The step program that <name>_step runs once per time step is a translation of the
 * imported graph (step.c): the driver clones the graph, binds every time axis to 1
 * (stream_step_options), turns the initial state of every recurrent layer into graph inputs
 * and its final state into graph outputs (stream_state_io), and compiles that copy as it
 * compiles any graph. The same kernels and the same summation order as the whole-sequence
 * program: results are bit-identical.
 *
 * Not streamable (the reason lands in <name>.h as <NAME>_STREAM_WHY): reverse or
 * bidirectional layers, sequence_lens, ops that mix time steps (a Softmax, ArgMax or Concat
 * over the time axis, a Gather or Slice of any step but the last, a Slice that reverses time,
 * a MatMul contracting time), a time-indexed constant, an initial state computed from the
 * inputs other than as a part of one, breakpoints (--alpha-inter cuts links inside a
 * sequence), a convolution over time that looks ahead, strides, or is not padded by its
 * window less one step at the start (a causal one streams: stream_hist). A MatMul by a weight (a
 * per-step Linear layer on [N, T, C]) keeps the time axis: the weight has no axis lined up with it.
 *
 * The dependency rule of issue 18, enforced by CMakeLists.txt: this folder
 * (compiler/stream) uses only core/ and, read-only, kprog.h; never passes, codegen or the
 * driver.
 */
#ifndef LSTMC_STREAM_H
#define LSTMC_STREAM_H

#include "ir.h"
#include "kprog.h"
#include "memplan.h"

#include <stdint.h>

typedef struct arena arena;
typedef struct diag diag;
typedef struct ir_graph ir_graph;
typedef struct driver_options driver_options;

typedef enum stream_kind {
    STREAM_BAD = 0, /* mixes time steps (or unknown) */
    STREAM_CONST,   /* constant data */
    STREAM_STATIC,  /* depends on graph inputs without a time axis only */
    STREAM_TIME,    /* one slice per time step along `axis` */
    STREAM_LAST     /* a function of the state after the last step fed */
} stream_kind;

#define STREAM_MAX_LAYERS   64
#define STREAM_MAX_RESHAPES 64
#define STREAM_MAX_HISTS    64

/* One recurrent layer whose state the caller's <name>_state holds. */
typedef struct stream_layer {
    const char *node;      /* node name (graph arena) */
    const char *op;        /* "LSTM", "GRU", "RNN" */
    int cell;              /* lstmc_rt_cell */
    int64_t batch, hidden; /* N, H (D is 1) */
    const float *init_h;   /* the model's constant initial state [N*H], or NULL: zero */
    const float *init_c;   /* LSTM only, likewise */
    int init_h_input;      /* graph input index that holds the initial h (the caller passes
                              it to <name>_set_state), or -1 */
    int64_t init_h_off;    /* the initial h's first float in that input (layer k of a
                              stacked h0 [L, N, H]: k * N * H) */
    int init_c_input;      /* likewise for c */
    int64_t init_c_off;
} stream_layer;

/*
 * The history of a convolution over the time axis (issue 20): a causal Conv, whose window
 * of K = (kernel - 1) * dilation + 1 steps ends at the step it computes, padded by K - 1
 * steps at the start of the sequence (by a Pad before it, PyTorch's F.pad(x, (K - 1, 0)),
 * or by its own pads / auto_pad). In a stream those K - 1 steps are the last K - 1 steps of
 * its input fed so far: the caller's <name>_state holds them (initially the padding value),
 * and the step program reads them before the step's own (Concat) and keeps the last K - 1
 * for the next step (Slice).
 */
typedef struct stream_hist {
    const char *conv;  /* the Conv node (graph arena) */
    const char *pad;   /* the Pad node that pads its input along time, or NULL: the Conv's
                          own padding */
    const char *chomp; /* the Slice that drops its look-ahead outputs (a Conv padded at both
                          ends of time, then "chomped": a TCN), or NULL */
    int axis;          /* the time axis of the Conv's input (2 or 3) */
    int64_t frames;    /* K - 1: the steps kept */
    float init;        /* the padding value: what <name>_reset fills the history with */
    int nsp;           /* the Conv's spatial axes (1 or 2) */
    int64_t pad_b[2], pad_e[2]; /* its padding in the whole-sequence program, resolved
                                   (auto_pad): the step program writes it out, 0 on time */
    int64_t floats;             /* the history's size: the input's shape with K - 1 on the axis */
    ir_shape shape;             /* that shape (the step program's, T = 1 elsewhere) */
} stream_hist;

typedef struct stream_info {
    int ok;          /* 1: streamable, and (once the driver compiled it) the step program
                        exists */
    char why[512];   /* ok == 0: why not, one sentence */
    int64_t seq_len; /* T of the whole-sequence program */
    int n_inputs, n_outputs;
    int *in_axis;  /* per graph input: its time axis, or -1 */
    int *out_axis; /* per graph output: its time axis (STREAM_TIME), or -1 */
    stream_kind *out_kind;
    int64_t *out_om, *out_im; /* per graph output: the time axis holds om * T * im entries,
                                 step t those [o, t, i] of that view (1, 1: T only; a
                                 reshape(-1, H) of [T, N, H] gives im = N, of [N, T, H] om = N) */
    int n_layers;
    stream_layer layers[STREAM_MAX_LAYERS];
    /* Reshapes whose constant target shape spells out T on the time axis (a static export's
     * view(N, T, C)): the step program reads 1 there (stream_step_graph) */
    int n_reshapes;
    const char *reshape_node[STREAM_MAX_RESHAPES];
    int reshape_axis[STREAM_MAX_RESHAPES];
    int64_t reshape_step[STREAM_MAX_RESHAPES]; /* the value there for one step (om * im) */
    /* convolutions over time that keep the last steps of their input in the state */
    int n_hists;
    stream_hist hists[STREAM_MAX_HISTS];
    /* Slices that drop the look-ahead steps of such a Conv (its pads at the end of time):
     * the step program's Conv has none, so they keep the whole axis there */
    int n_chomps;
    const char *chomp_node[STREAM_MAX_HISTS];
    int chomp_axis[STREAM_MAX_HISTS];
    /* the step program (T = 1): inputs = the graph's, then h, c per layer, then each
     * history; outputs = the graph's, then the next h, c per layer (c for LSTM only), then
     * each next history */
    ir_graph *g;
    kprog kp;
    memplan mp;
} stream_info;

/*
 * Decide whether g (shapes inferred, constants folded, before the passes) streams; fills
 * si (arrays in g's arena). Never fails the compile: a model that does not stream gets
 * si->ok = 0 and a reason.
 */
void stream_analyze(ir_graph *g, stream_info *si);

/*
 * The options of the step program (step.c): o's, with the shape of every graph input that
 * has a time axis bound with that axis at 1 and the --dim of the model's symbol on it
 * dropped, and no printing. g0 is the graph as imported (its symbols), g the same graph
 * prepared with o (its shapes). Returns 0, or -1 with si->ok cleared and the reason in
 * si->why.
 */
int stream_step_options(stream_info *si, const ir_graph *g0, const ir_graph *g,
                        const driver_options *o, driver_options *so);

/*
 * On the step program's graph as imported (a clone of it), before it is prepared: every
 * Reshape the analysis found with T written in its constant target shape on the time axis
 * gets a copy of that constant with 1 there (the other dims of a time-indexed value do not
 * change with T). Returns the number of Reshapes rewritten.
 */
int stream_step_graph(ir_graph *g, const stream_info *si);

/*
 * On the step program's graph, prepared and before the passes: the initial state of every
 * recurrent layer becomes a graph input, its final state a graph output (appended in layer
 * order, h then c for LSTM); then every convolution history (stream_hist) becomes an input
 * concatenated before the step along time, its next value (the last K - 1 steps of that) an
 * output, and the padding it replaces is dropped. Returns 0, or -1 when g's layers or
 * convolutions are not the ones si found (the reason through d).
 */
int stream_state_io(ir_graph *g, const stream_info *si, diag *d);

/* The step program did not compile: si->ok cleared, si->why says so with msg's first line
 * (the quiet diag's text; NULL or empty for none). */
void stream_refuse(stream_info *si, const char *msg);

/* Issue 21: dims names[0..n) are bound to ranges. The step program takes T = 1 whatever the
 * run's T, but is compiled for one value of every other dim: when a ranged dim is an axis
 * of an input other than its time axis (the batch), si->ok is cleared with the reason.
 * g: the prepared whole-sequence graph (its inputs keep their dim names). */
void stream_check_ranged(stream_info *si, const ir_graph *g, int n, const char *const *names);

/* The step program (si->kp) compiled: refuse what a stream cannot run (breakpoints cut links
 * inside a sequence). Returns 0, or -1 with si->ok cleared and the reason in si->why. */
int stream_check(stream_info *si);

#endif /* LSTMC_STREAM_H */
