/*
 * A stand-in for <criterion/criterion.h> (the parts tests/unit/test_rt_pool.c uses), for
 * tests/e2e/tsan.sh: Criterion itself does not start under ThreadSanitizer (its
 * inheritable arena collides with TSan's memory map). Every Test runs in its own child
 * process, as under Criterion; a failed assertion prints where and exits 1.
 */
#ifndef TSAN_SHIM_CRITERION_H
#define TSAN_SHIM_CRITERION_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHIM_MAX_TESTS 32
static struct {
    void (*fn)(void);
    const char *what;
} shim_tests[SHIM_MAX_TESTS];
static int shim_n;

#define Test(suite, name)                                                                      \
    static void suite##_##name(void);                                                          \
    __attribute__((constructor)) static void shim_reg_##suite##_##name(void)                   \
    {                                                                                          \
        if (shim_n < SHIM_MAX_TESTS) {                                                         \
            shim_tests[shim_n].fn = suite##_##name;                                            \
            shim_tests[shim_n++].what = #suite "::" #name;                                     \
        }                                                                                      \
    }                                                                                          \
    static void suite##_##name(void)

#define cr_assert(cond, ...)                                                                   \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);      \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)
#define cr_assert_eq(a, b, ...)  cr_assert((a) == (b))
#define cr_assert_neq(a, b, ...) cr_assert((a) != (b))

int
main(void)
{
    int i, bad = 0;
    for (i = 0; i < shim_n; i++) {
        pid_t pid;
        fflush(stdout); /* else the child prints what the parent buffered */
        pid = fork();
        int st = 0;
        if (pid == 0) {
            shim_tests[i].fn();
            exit(0);
        }
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "FAIL %s (status %d)\n", shim_tests[i].what, st);
            bad++;
        } else {
            printf("ok %s\n", shim_tests[i].what);
        }
    }
    return bad ? 1 : 0;
}

#endif
