/*
 * ir_verify.h — invariants of a prepared graph, checked after every pass (QBE's ssacheck).
 */
#ifndef LSTMC_IR_VERIFY_H
#define LSTMC_IR_VERIFY_H

typedef struct diag diag;
typedef struct ir_graph ir_graph;

/*
 * Check g: live nodes in topological order, every input available before its use (graph
 * input, constant, or output of an earlier live node), every output produced by exactly
 * its node, every used tensor with a dtype and a concrete shape, every graph output
 * available. Reports each violation through d and returns -1; 0 when all hold.
 */
int ir_verify(const ir_graph *g, diag *d);

#endif /* LSTMC_IR_VERIFY_H */
