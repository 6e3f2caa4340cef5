/*
 * cmd_targets.c — `lstmc targets`: the built-in target profiles, and the E-LSTM
 * co-processor.
 */
#include "cli_impl.h"

#include <stdint.h>
#include <stdio.h>

#include "elstm.h"
#include "target.h"

/* "192 KiB", "4 GiB", "23.5 GiB", "1000 B" */
static const char *
human(int64_t b, char *buf, size_t n)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    int64_t scale = 1;
    while (u < 4 && b >= scale * 1024) {
        scale *= 1024;
        u++;
    }
    if (b % scale == 0)
        snprintf(buf, n, "%lld %s", (long long)(b / scale), unit[u]);
    else
        snprintf(buf, n, "%.1f %s", (double)b / (double)scale, unit[u]);
    return buf;
}

int
cmd_targets(cli *c)
{
    int i;
    (void)c;
    for (i = 0; target_builtin[i].name; i++) {
        const target *t = target_find(target_builtin[i].name); /* host: detected */
        char r[32], f[32];
        printf("%-10s %s", t->name, t->summary);
        if (t->ram_bytes) /* the memory budget (docs/TARGETS.md) */
            printf("; RAM %s", human(t->ram_bytes, r, sizeof r));
        if (t->flash_bytes)
            printf(", flash %s", human(t->flash_bytes, f, sizeof f));
        putchar('\n');
    }
    /* not a CPU/GPU profile: codegen/elstm/elstm.c, docs/ELSTM.md */
    printf("%-10s %s\n", elstm_default_profile.name,
           "E-LSTM co-processor on a RISC-V RoCC port: eSELL word streams + schedule");
    return 0;
}
