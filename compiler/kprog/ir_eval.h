/*
 * ir_eval.h — the slow reference path: run a prepared graph in-process with the runtime
 * kernels, every tensor in its own buffer (no memory plan). Pass tests compare the outputs
 * before and after a pass, and against ONNX Runtime, through it.
 */
#ifndef LSTMC_IR_EVAL_H
#define LSTMC_IR_EVAL_H

typedef struct arena arena;
typedef struct diag diag;
typedef struct ir_graph ir_graph;

/*
 * Lower g and run it on inputs[i] (one per graph input, C order, the input's dtype and
 * shape). outputs[i] receives a buffer in a holding graph output i. Returns 0, or -1 after
 * reporting through d (a kernel's error status, or a graph that cannot be lowered).
 */
int ir_eval(arena *a, ir_graph *g, const void *const *inputs, void **outputs, diag *d);

#endif /* LSTMC_IR_EVAL_H */
