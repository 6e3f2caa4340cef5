/*
 * driver_impl.h — what the driver's files share (driver.c, prepare.c, limits.c). Private to
 * compiler/driver/.
 */
#ifndef LSTMC_DRIVER_IMPL_H
#define LSTMC_DRIVER_IMPL_H

#include "driver.h"

typedef struct memplan memplan;
typedef struct kprog kprog;
typedef struct target target;
typedef struct cg_options cg_options;
typedef struct cg_c_sizes cg_c_sizes;

/* Print g to stdout when o->print_after names stage (a stage that is not a pass). */
void driver_print_after(const ir_graph *g, const driver_options *o, const char *stage);

/* Refuse weights or an arena over o's limits. Returns 0 or -1 after reporting through d. */
int driver_check_limits(const ir_graph *g, const memplan *mp, const driver_options *o, diag *d);

/*
 * The memory budget (issue 19, docs/TARGETS.md "Memory budget"): the program g / kp / mp
 * about to be written with co (its sizes sz) against t's ram_bytes and flash_bytes. Refuses
 * (-1, after reporting through d: the numbers, the largest buffers of the arena, what would
 * help) a model that fits neither whole nor streaming; else 0 with the line to print after
 * codegen in note[0..n) (how it fits; "" for none).
 */
int driver_check_budget(const ir_graph *g, const kprog *kp, const memplan *mp, const target *t,
                        const cg_options *co, const cg_c_sizes *sz, diag *d, char *note,
                        size_t n);

#endif /* LSTMC_DRIVER_IMPL_H */
