/*
 * analyze_impl.h — what the files of `lstmc analyze` share (compiler/tools/analyze: cmd.c,
 * replay.c, layers.c, llc.c); the interface is analyze.h.
 */
#ifndef LSTMC_ANALYZE_IMPL_H
#define LSTMC_ANALYZE_IMPL_H

#include "analyze.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ir_tensor ir_tensor;

#define F4 ((int64_t)sizeof(float))

/* layers.c */

/* Gates per cell (lstmc_rt_cell): LSTM 4, GRU 3, RNN 1. */
int64_t analyze_cell_gates(int32_t cell);

/* Bytes of t's data (0 for NULL or an unknown shape). */
int64_t analyze_tensor_bytes(const ir_tensor *t);

/* Group the recurrent calls of kp into r's layers and size each layer's working set and the
 * model's; *of_call gets the layer index of every call (-1: none), in a. */
void analyze_collect_layers(arena *a, const ir_graph *g, const kprog *kp, const memplan *mp,
                            analyze_report *r, int **of_call);

/* cmd.c: "12.00 MiB" and "1.50 M" style, into buf; returns buf. */
const char *analyze_fmt_bytes(char *buf, size_t n, int64_t v);
const char *analyze_fmt_count(char *buf, size_t n, int64_t v);

#endif /* LSTMC_ANALYZE_IMPL_H */
