/*
 * ir_print.h — the stable text form of the IR (--print-after, inspect, tests).
 */
#ifndef LSTMC_IR_PRINT_H
#define LSTMC_IR_PRINT_H

#include <stdio.h>

typedef struct ir_graph ir_graph;

/* Print g: header, inputs, constants (shape only), live nodes in order, outputs. */
void ir_print(const ir_graph *g, FILE *f);

#endif /* LSTMC_IR_PRINT_H */
