/*
 * dce.c — dead-code elimination: nodes none of whose outputs reach a graph output.
 * Constants nobody reads are simply not emitted (the memory plan only places what a
 * kernel call touches).
 */
#include "ir.h"
#include "passes.h"

int
pass_dce(ir_graph *g, const pass_ctx *cx, diag *d)
{
    (void)cx;
    (void)d;
    ir_dce(g);
    return 0;
}
