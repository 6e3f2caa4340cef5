/*
 * driver_impl.h — what the driver's files share (driver.c, prepare.c, limits.c). Private to
 * compiler/driver/.
 */
#ifndef LSTMC_DRIVER_IMPL_H
#define LSTMC_DRIVER_IMPL_H

#include "driver.h"

typedef struct memplan memplan;

/* Print g to stdout when o->print_after names stage (a stage that is not a pass). */
void driver_print_after(const ir_graph *g, const driver_options *o, const char *stage);

/* Refuse weights or an arena over o's limits. Returns 0 or -1 after reporting through d. */
int driver_check_limits(const ir_graph *g, const memplan *mp, const driver_options *o, diag *d);

#endif /* LSTMC_DRIVER_IMPL_H */
