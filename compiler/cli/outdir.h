/*
 * outdir.h — nothing lost: the compiler writes its output into a temporary folder beside
 * OUTDIR and moves it into place only when everything succeeded (issue 11).
 *
 *   outdir_begin   refuse an existing OUTDIR that lstmc did not make (unless force), then
 *                  create OUTDIR's sibling ".OUTDIR.lstmc-XXXXXX" and return its path;
 *   outdir_commit  mark the folder as lstmc's, swap it in (the old output is removed only
 *                  after the new one is in place);
 *   outdir_abort   remove the temporary folder (also run on SIGINT/SIGTERM/SIGHUP).
 * A failed or interrupted compile leaves the previous OUTDIR exactly as it was.
 */
#ifndef LSTMC_OUTDIR_H
#define LSTMC_OUTDIR_H

typedef struct diag diag;

/* Name of the marker file lstmc leaves in every folder it made. */
#define OUTDIR_MARKER ".lstmc-output"

/* Returns the temporary folder to write into (static storage), or NULL after reporting. */
const char *outdir_begin(const char *outdir, int force, diag *d);

/* Move the temporary folder to outdir. Returns 0, or -1 after reporting (the temporary
 * folder is then removed and the old outdir left as it was). */
int outdir_commit(diag *d);

/* Remove the temporary folder, if any. Safe to call more than once. */
void outdir_abort(void);

/* rm -rf path; 0 on success. Used for the temporary folders lstmc itself made. */
int outdir_remove_tree(const char *path);

#endif /* LSTMC_OUTDIR_H */
