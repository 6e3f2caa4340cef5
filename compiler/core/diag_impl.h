/*
 * diag_impl.h — what diag.c shares with ir_diag.c (private to compiler/core/).
 */
#ifndef LSTMC_DIAG_IMPL_H
#define LSTMC_DIAG_IMPL_H

#include <stdarg.h>

typedef struct diag diag;

/* Format "file: <prefix><message>" and append it to d (and print it to the sink). */
void diag_vreport(diag *d, const char *prefix, const char *fmt, va_list ap);

/* Print "file: note: <prefix><message>" to d's sink (nothing without one); not counted. */
void diag_vnote(diag *d, const char *prefix, const char *fmt, va_list ap);

#endif /* LSTMC_DIAG_IMPL_H */
