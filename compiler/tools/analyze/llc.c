/*
 * llc.c — the last-level cache size `lstmc analyze` models by default: the host's
 * (sysconf, else sysfs) or the target profile's (contract in analyze.h).
 */
#define _GNU_SOURCE /* _SC_LEVEL3_CACHE_SIZE */
#include "analyze.h"

#include "cliopt.h"
#include "target.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* --- cache sizes -------------------------------------------------------------------- */

static int64_t
sysfs_llc(void)
{
    int64_t best = 0;
    int best_level = 0, i;
    for (i = 0; i < 16; i++) {
        char path[128], buf[64];
        FILE *f;
        int level = 0;
        int64_t size = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!(f = fopen(path, "r")))
            break;
        if (!fgets(buf, sizeof buf, f))
            buf[0] = 0;
        fclose(f);
        if (strncmp(buf, "Instruction", 11) == 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%d", &level) != 1)
                level = 0;
            fclose(f);
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((f = fopen(path, "r"))) {
            if (fgets(buf, sizeof buf, f)) {
                buf[strcspn(buf, "\n")] = 0;
                if (cli_parse_bytes(buf, &size) < 0)
                    size = 0;
            }
            fclose(f);
        }
        if (size > 0 && level > best_level) {
            best_level = level;
            best = size;
        }
    }
    return best;
}

int64_t
analyze_host_llc(void)
{
    long v = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    if (v > 0)
        return v;
    v = (long)sysfs_llc();
    if (v > 0)
        return v;
#ifdef _SC_LEVEL2_CACHE_SIZE
    v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return v > 0 ? v : 0;
}

int64_t
analyze_target_llc(const target *t)
{
    if (!t)
        return 0;
    if (strcmp(t->name, "host") == 0)
        return analyze_host_llc();
    return t->l2_bytes > 0 ? t->l2_bytes : t->l1d_bytes;
}
