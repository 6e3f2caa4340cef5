/*
 * worker.h — the command loop shared by the C timing workers of bench/compare (lstmc_worker.c,
 * dnnl_worker.c). compare.py starts one worker per system, keeps it alive for a whole
 * configuration, and talks to it on stdin/stdout, one line each way:
 *
 *   run N [L]   run the model N times, or stop after the call that takes the total past L
 *               nanoseconds; answer the latencies in nanoseconds
 *   out PATH    run once and write the output (raw float32, C order) to PATH; answer "ok"
 *   quit        exit
 *
 * The worker says "ready" once the model is loaded, so loading is never timed. Each latency is
 * one call of the system's whole-sequence run, taken with CLOCK_MONOTONIC around it.
 */
#ifndef BENCH_WORKER_H
#define BENCH_WORKER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*worker_run_fn)(void *self);

static long long
worker_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *
worker_read_file(const char *path, size_t want)
{
    FILE *f = fopen(path, "rb");
    void *p = malloc(want ? want : 1);
    if (!f || !p || fread(p, 1, want, f) != want) {
        fprintf(stderr, "worker: cannot read %zu bytes from %s\n", want, path);
        exit(1);
    }
    fclose(f);
    return p;
}

/* Serve commands until "quit" or end of input; out/out_bytes is the output after a run. */
static int
worker_loop(worker_run_fn run, void *self, const float *out, size_t out_bytes)
{
    char line[4352];
    printf("ready\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "run ", 4)) {
            char *end;
            long n = strtol(line + 4, &end, 10), i;
            long long limit = strtoll(end, NULL, 10), start = worker_now_ns();
            for (i = 0; i < n; i++) {
                long long t0 = worker_now_ns(), t1;
                if (run(self) != 0) {
                    fprintf(stderr, "worker: run failed\n");
                    return 1;
                }
                t1 = worker_now_ns();
                printf(i ? " %lld" : "%lld", t1 - t0);
                if (limit > 0 && t1 - start > limit)
                    break;
            }
            printf("\n");
        } else if (!strncmp(line, "out ", 4)) {
            FILE *f;
            line[strcspn(line, "\n")] = '\0';
            if (run(self) != 0) {
                fprintf(stderr, "worker: run failed\n");
                return 1;
            }
            f = fopen(line + 4, "wb");
            if (!f || fwrite(out, 1, out_bytes, f) != out_bytes || fclose(f) != 0) {
                fprintf(stderr, "worker: cannot write %s\n", line + 4);
                return 1;
            }
            printf("ok\n");
        } else if (!strncmp(line, "quit", 4)) {
            break;
        } else {
            fprintf(stderr, "worker: unknown command %s", line);
            return 1;
        }
        fflush(stdout);
    }
    return 0;
}

#endif /* BENCH_WORKER_H */
