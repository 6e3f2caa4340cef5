/*
 * diag.h — the error sink for bad models and bad usage (STYLE.md "Errors", kind 1).
 *
 * diag collects errors rather than stopping at the first, so one run lists every
 * unsupported node. Each message is prefixed with the model file, and for diag_node with
 * the node's name and op type:  "model.onnx: node 'lstm_1' (LSTM): attribute ...".
 * Messages are printed to the sink (stderr by default) as they come, and kept in memory so
 * tests can read them back.
 */
#ifndef LSTMC_DIAG_H
#define LSTMC_DIAG_H

#include <stdio.h>

typedef struct arena arena;
typedef struct diag diag;
typedef struct ir_node ir_node;
typedef struct ir_tensor ir_tensor;

#if defined(__GNUC__)
#define DIAG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define DIAG_PRINTF(a, b)
#endif

/* A sink for errors about `file` (borrowed), living in arena a. sink NULL: messages are
 * only kept, not printed. */
diag *diag_new(arena *a, const char *file, FILE *sink);

/* "file: <message>" */
void diag_error(diag *d, const char *fmt, ...) DIAG_PRINTF(2, 3);

/* "file: node 'name' (OpType): <message>" (ir_diag.c, with diag_tensor; ir_node_label) */
void diag_node(diag *d, const ir_node *n, const char *fmt, ...) DIAG_PRINTF(3, 4);

/* "file: tensor 'name': <message>" */
void diag_tensor(diag *d, const ir_tensor *t, const char *fmt, ...) DIAG_PRINTF(3, 4);

/* "file: node 'name' (OpType): <message>" for a node not yet in the IR (importers);
 * unnamed >= 0: the node has no name in the model (node_name is ignored) and is the
 * unnamed-th of the ONNX graph's node list: "file: OpType node #K (unnamed): <message>". */
void diag_at(diag *d, const char *node_name, const char *op_type, long unnamed,
             const char *fmt, ...) DIAG_PRINTF(5, 6);

/* How every message names a node, into buf[0..size): "node 'name' (OpType)", or, for a node
 * the model left unnamed (unnamed >= 0, its index in the ONNX node list), "OpType node #K
 * (unnamed)", so that an invented name is never shown as the model's. Returns buf. */
const char *diag_node_label(char *buf, size_t size, const char *name, const char *op_type,
                            long unnamed);

/* diag_node_label of an IR node (ir_diag.c). */
const char *ir_node_label(const ir_node *n, char *buf, size_t size);

/* Number of errors so far. */
/* A note about node n (NULL: the model), not an error: printed to the sink as
 * "FILE: note: node 'NAME' (OP): ...", neither counted nor kept in diag_text (ir_diag.c). */
void diag_note(diag *d, const ir_node *n, const char *fmt, ...) DIAG_PRINTF(3, 4);

int diag_count(const diag *d);

/* Every message so far, newline-separated ("" when none). */
const char *diag_text(const diag *d);

/* The file name the messages are about. */
const char *diag_file(const diag *d);

#endif /* LSTMC_DIAG_H */
