/*
 * outdir.c — see outdir.h. POSIX: mkdtemp, rename, nftw, sigaction.
 */
#define _XOPEN_SOURCE 700
#include "outdir.h"
#include "proc.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"

static char final_path[4096];
static char tmp_path[4200];
static char old_path[4300];
static volatile sig_atomic_t have_tmp;

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int
outdir_remove_tree(const char *path)
{
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void
outdir_abort(void)
{
    if (have_tmp) {
        have_tmp = 0;
        outdir_remove_tree(tmp_path);
    }
}

static void
on_signal(int sig)
{
    /* nftw is not async-signal-safe, but the process is about to die and nothing else
     * runs: removing the half-written folder is the point of the handler */
    outdir_abort();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void
catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* 1 when path is a folder lstmc made (it holds the marker), 0 when not, -1 when absent. */
static int
made_by_lstmc(const char *path)
{
    struct stat st;
    char marker[4200];
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return 0;
    snprintf(marker, sizeof marker, "%s/%s", path, OUTDIR_MARKER);
    return access(marker, F_OK) == 0;
}

const char *
outdir_begin(const char *outdir, int force, diag *d)
{
    char parent[4096];
    const char *slash, *base;
    size_t n = strlen(outdir);
    struct stat st;
    int mine;

    while (n > 1 && outdir[n - 1] == '/')
        n--;
    if (n == 0 || n >= sizeof final_path - 64) {
        diag_error(d, "output folder '%s': the path is empty or too long", outdir);
        return NULL;
    }
    memcpy(final_path, outdir, n);
    final_path[n] = '\0';
    mine = made_by_lstmc(final_path);
    if (mine == 0 && stat(final_path, &st) == 0 && !S_ISDIR(st.st_mode)) {
        diag_error(d, "output folder '%s' exists and is not a folder", final_path);
        return NULL;
    }
    if (mine == 0 && !force) {
        diag_error(d, "output folder '%s' exists and was not made by lstmc; refusing to "
                      "overwrite it (give --force to replace it)",
                   final_path);
        return NULL;
    }
    slash = strrchr(final_path, '/');
    if (slash) {
        size_t pl = slash == final_path ? 1 : (size_t)(slash - final_path);
        memcpy(parent, final_path, pl);
        parent[pl] = '\0';
        base = slash + 1;
    } else {
        strcpy(parent, ".");
        base = final_path;
    }
    if (proc_mkdirs(parent) != 0 || stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
        diag_error(d, "output folder '%s': cannot create its parent folder '%s': %s",
                   final_path, parent, strerror(errno));
        return NULL;
    }
    if (snprintf(tmp_path, sizeof tmp_path, "%s/.%s.lstmc-XXXXXX", parent, base) >=
        (int)sizeof tmp_path) {
        diag_error(d, "output folder '%s': the path is too long", final_path);
        return NULL;
    }
    catch_signals();
    if (!mkdtemp(tmp_path)) {
        diag_error(d, "cannot create a temporary folder in '%s': %s", parent, strerror(errno));
        return NULL;
    }
    have_tmp = 1;
    return tmp_path;
}

int
outdir_commit(diag *d)
{
    char marker[4300];
    FILE *f;
    int had_old = 0;

    snprintf(marker, sizeof marker, "%s/%s", tmp_path, OUTDIR_MARKER);
    f = fopen(marker, "w");
    if (!f || fputs("made by lstmc; lstmc may replace this folder\n", f) < 0 || fclose(f) != 0) {
        diag_error(d, "cannot write '%s': %s", marker, strerror(errno));
        outdir_abort();
        return -1;
    }
    if (made_by_lstmc(final_path) >= 0) {
        /* move the old output aside first; it is removed only once the new one is in */
        if (snprintf(old_path, sizeof old_path, "%s.old-XXXXXX", tmp_path) >=
                (int)sizeof old_path ||
            !mkdtemp(old_path) || rmdir(old_path) != 0 || rename(final_path, old_path) != 0) {
            diag_error(d, "cannot move the old '%s' aside: %s", final_path, strerror(errno));
            outdir_abort();
            return -1;
        }
        had_old = 1;
    }
    if (rename(tmp_path, final_path) != 0) {
        diag_error(d, "cannot move the new output into '%s': %s", final_path, strerror(errno));
        if (had_old)
            rename(old_path, final_path);
        outdir_abort();
        return -1;
    }
    have_tmp = 0;
    if (had_old)
        outdir_remove_tree(old_path);
    return 0;
}
