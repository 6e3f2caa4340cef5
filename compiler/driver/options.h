/*
 * options.h — the typed values of the options that passes take, parsed once from the
 * command line's text (options.c). main.c parses them before it reads the model, so a
 * malformed value is a usage error (exit 2); the driver parses them again for callers that
 * fill driver_options themselves and reports through diag.
 */
#ifndef LSTMC_OPTIONS_H
#define LSTMC_OPTIONS_H

#include <stddef.h>

#include "passes.h"

typedef struct driver_options driver_options;

/*
 * Each parser takes the option's text (NULL: not given, which is the default value) and
 * fills *out. Returns 0, or -1 with the message (no "lstmc: " prefix, no newline) in
 * err[0..n).
 */
int options_parse_hsparse(const char *s, pass_hsparse_opt *out, char *err, size_t n);
int options_parse_prune(const char *s, pass_prune_opt *out, char *err, size_t n);
int options_parse_sparse(const char *s, pass_sparse_opt *out, char *err, size_t n);

/* All of o's pass options into cx's typed fields; 0, or -1 with the first message in err. */
int options_parse_passes(const driver_options *o, pass_ctx *cx, char *err, size_t n);

#endif /* LSTMC_OPTIONS_H */
