/*
 * proc.c — see proc.h. POSIX: posix_spawnp, waitpid.
 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

int
proc_run(char *const argv[], const char *stdout_path)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int st, err;

    if (posix_spawn_file_actions_init(&fa) != 0) {
        fprintf(stderr, "lstmc: cannot run '%s': out of memory\n", argv[0]);
        return 1;
    }
    if (stdout_path)
        posix_spawn_file_actions_addopen(&fa, 1, stdout_path, O_WRONLY | O_CREAT | O_TRUNC,
                                         0666);
    err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0) {
        fprintf(stderr, "lstmc: cannot run '%s': %s\n", argv[0], strerror(err));
        return 127;
    }
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "lstmc: waiting for '%s': %s\n", argv[0], strerror(errno));
            return 1;
        }
    }
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    fprintf(stderr, "lstmc: '%s' died of signal %d\n", argv[0], WTERMSIG(st));
    return 1;
}

int
proc_mkdirs(const char *path)
{
    char buf[4096];
    size_t i, n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char ch = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            buf[i] = ch;
        }
    }
    return 0;
}
