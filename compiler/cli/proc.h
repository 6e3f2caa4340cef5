/*
 * proc.h — running the tools lstmc drives (make, cc, a generated program) and making
 * folders: shared by `lstmc run` and `lstmc tune`.
 */
#ifndef LSTMC_PROC_H
#define LSTMC_PROC_H

/* Run argv (argv[0] looked up in PATH), wait, and return its exit status, or 1 (127 when it
 * cannot start) with a message on stderr. stdout_path: where its stdout goes (truncated),
 * or NULL to share lstmc's. */
int proc_run(char *const argv[], const char *stdout_path);

/* mkdir -p path. 0, or -1 with errno set. */
int proc_mkdirs(const char *path);

#endif /* LSTMC_PROC_H */
