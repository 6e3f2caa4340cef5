/*
 * fuzz_text.c — libFuzzer harness for lstmc's text readers: the first byte picks the
 * reader, the rest is written to a temporary file and parsed.
 *   byte % 3 == 0: a JSON target profile (compiler/target/target.c, cJSON + field checks)
 *   byte % 3 == 1: a calibration file (compiler/tools/calibrate.c, calib_read)
 *   byte % 3 == 2: a kernel search's state file (compiler/tools/ksearch.c, ks_state_read)
 * A reader must accept or refuse with a message; it must never crash, leak, or accept a
 * profile whose numbers are outside the documented ranges (checked here).
 */
#include "arena.h"
#include "calibrate.h"
#include "diag.h"
#include "ksearch.h"
#include "target.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void
remove_file(void)
{
    unlink(path);
}

static int
write_file(const uint8_t *data, size_t size)
{
    FILE *f;
    if (!path[0]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        /* ".json" so the name is also what a --target path looks like */
        snprintf(path, sizeof path, "%s/lstmc_fuzz_text.%ld.json", dir, (long)getpid());
        atexit(remove_file);
    }
    f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return 0;
}

/* issue 23: the kernel parameters a profile sets stay in their documented ranges
 * (docs/TARGETS.md "Kernel parameters"; prefetch is stored + 1, rows a power of two) */
static void
kernels_in_range(const target_kernels *k)
{
    int c;
    if (k->vector_bits != 0 && k->vector_bits != 128 && k->vector_bits != 256 &&
        k->vector_bits != 512)
        abort();
    if (k->mt_min_hidden < 0 || k->mt_min_hidden > (1 << 20))
        abort();
    for (c = 0; c < TK_N_CLASSES; c++)
        if (k->rec[c][TK_TILE] < 0 || k->rec[c][TK_TILE] > 16 || k->rec[c][TK_ROWS] != 0 ||
            k->rec[c][TK_PREFETCH] < 0 || k->rec[c][TK_PREFETCH] > 65 || k->proj[c][TK_TILE] < 0 ||
            k->proj[c][TK_TILE] > 8 || k->proj[c][TK_ROWS] < 0 || k->proj[c][TK_ROWS] > 8 ||
            (k->proj[c][TK_ROWS] & (k->proj[c][TK_ROWS] - 1)) || k->proj[c][TK_PREFETCH] < 0 ||
            k->proj[c][TK_PREFETCH] > 65 || k->rec[c][TK_ALTERNATE] < 0 ||
            k->rec[c][TK_ALTERNATE] > 2 || k->proj[c][TK_ALTERNATE] != 0 || k->rec[c][TK_DOT] < 0 ||
            k->rec[c][TK_DOT] > 4 || k->proj[c][TK_DOT] < 0 || k->proj[c][TK_DOT] > 4 ||
            k->rec[c][TK_PIPE] != 0 || k->proj[c][TK_PIPE] != 0)
            abort();
    for (c = 0; c < TK_N_CLASSES; c++) /* the full-integer VNNI kernel's */
        if (k->ints[c][TK_TILE] < 0 || k->ints[c][TK_TILE] > 8 || k->ints[c][TK_ROWS] < 0 ||
            k->ints[c][TK_ROWS] > 16 || (k->ints[c][TK_ROWS] & (k->ints[c][TK_ROWS] - 1)) ||
            k->ints[c][TK_PREFETCH] != 0 || k->ints[c][TK_ALTERNATE] < 0 ||
            k->ints[c][TK_ALTERNATE] > 2 || k->ints[c][TK_DOT] != 0 || k->ints[c][TK_PIPE] < 0 ||
            k->ints[c][TK_PIPE] > 2)
            abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena *a;
    diag *d;
    if (size < 1)
        return 0;
    write_file(data + 1, size - 1);
    a = arena_new(64 << 20);
    d = diag_new(a, "fuzz", NULL);
    if (data[0] % 3 == 2) { /* the records it keeps are ones the search could have made */
        static ks_state st;
        char why[256] = "";
        FILE *f = fopen(path, "r");
        int rc, i;
        if (!f)
            abort();
        st.n = 0;
        rc = ks_state_read(f, "cpu=X", &st, why, sizeof why);
        fclose(f);
        if ((rc < 0 && !why[0]) || st.n < 0 || st.n > KS_MAX_RECS)
            abort();
        for (i = 0; rc > 0 && i < st.n; i++)
            if (st.r[i].cls < 0 || st.r[i].cls > KS_MT || !(st.r[i].lo > 0) ||
                !(st.r[i].lo <= st.r[i].med) || !(st.r[i].med <= st.r[i].hi))
                abort();
    } else if (data[0] % 3 == 0) {
        const target *t = target_parse_file(path, d);
        if (t) {
            if (t->cores < 0 || t->cores > 1024 || t->mts < 0 || t->mts > 1024 || t->n_mts < 0 ||
                t->n_mts > TARGET_MAX_MTS || t->l2_bytes < 0 || t->llc_bytes < 0 ||
                !(t->dram_gbps >= 0) || t->ram_bytes < 0 || t->ram_bytes > ((int64_t)1 << 50) ||
                t->flash_bytes < 0 || t->flash_bytes > ((int64_t)1 << 50))
                abort();
            (void)target_mts(t, 256);
            kernels_in_range(&t->kernels);
        } else if (diag_count(d) == 0) {
            abort(); /* refused without saying why */
        }
        target_forget_files();
    } else {
        calib_table tab;
        memset(&tab, 0, sizeof tab);
        if (calib_read(a, path, &tab, d) != 0 && diag_count(d) == 0)
            abort();
    }
    arena_free(a);
    return 0;
}
