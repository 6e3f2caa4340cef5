/*
 * embed.h — the runtime sources built into the lstmc binary (cmake/embed_runtime.cmake),
 * copied into every OUTDIR/runtime/ so the generated library builds on its own.
 */
#ifndef LSTMC_EMBED_H
#define LSTMC_EMBED_H

#include <stddef.h>

typedef struct embed_file {
    const char *path;           /* relative to runtime/: "include/lstmc_rt.h" */
    const unsigned char *data;  /* the bytes, NUL-terminated */
    size_t size;                /* without the NUL */
} embed_file;

/* Terminated by an entry whose path is NULL. */
extern const embed_file embed_runtime_files[];

#endif /* LSTMC_EMBED_H */
