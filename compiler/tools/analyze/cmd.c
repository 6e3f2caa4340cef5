/*
 * cmd.c — `lstmc analyze` (contract in analyze.h): lower the model for schedule A (G = [W|U]
 * read every step) and A+ (G1 = W once, G2 = U every step, Arm'19 §IV, Alg. 2), replay both
 * through the cache model and print per layer and for the model the working set, the DRAM
 * traffic and the DRE (Arm'19 §III-A, Eq. 1) side by side.
 */
#include "analyze_impl.h"

#include "arena.h"
#include "cliopt.h"
#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"
#include "target.h"

#include <stdlib.h>
#include <string.h>

/* --- printing ----------------------------------------------------------------------- */

/* "12.00 MiB" style, into buf. */
const char *
analyze_fmt_bytes(char *buf, size_t n, int64_t v)
{
    if (v >= ((int64_t)1 << 30))
        snprintf(buf, n, "%.2f GiB", (double)v / (double)((int64_t)1 << 30));
    else if (v >= ((int64_t)1 << 20))
        snprintf(buf, n, "%.2f MiB", (double)v / (double)((int64_t)1 << 20));
    else if (v >= 1024)
        snprintf(buf, n, "%.1f KiB", (double)v / 1024.0);
    else
        snprintf(buf, n, "%lld B", (long long)v);
    return buf;
}

const char *
analyze_fmt_count(char *buf, size_t n, int64_t v)
{
    if (v >= 1000000000)
        snprintf(buf, n, "%.2f G", (double)v / 1e9);
    else if (v >= 1000000)
        snprintf(buf, n, "%.2f M", (double)v / 1e6);
    else if (v >= 1000)
        snprintf(buf, n, "%.1f k", (double)v / 1e3);
    else
        snprintf(buf, n, "%lld", (long long)v);
    return buf;
}

static void
print_row(FILE *f, int csv, const char *scope, const char *name, const char *op, const char *sched,
          int64_t weights, int64_t ws, int64_t rd_b, int64_t wr_b)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    double dre = analyze_dre(rd_b, wr_b, ws);
    if (csv) {
        fprintf(f, "%s,%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%.4f\n", scope, name, op, sched,
                (long long)weights, (long long)ws, (long long)rd_b, (long long)wr_b,
                (long long)(rd_b + wr_b), dre);
        return;
    }
    fprintf(f, "%-20.20s %-5s %-3s %12s %12s %12s %12s %12s %9.2f\n", name, op, sched,
            analyze_fmt_bytes(b1, sizeof b1, weights), analyze_fmt_bytes(b2, sizeof b2, ws),
            analyze_fmt_bytes(b3, sizeof b3, rd_b), analyze_fmt_bytes(b4, sizeof b4, wr_b),
            analyze_fmt_bytes(b5, sizeof b5, rd_b + wr_b), dre);
}

/* --- lstmc analyze ------------------------------------------------------------------- */

typedef struct sched_run {
    const char *label; /* "A", "A+" */
    int ok;
    analyze_report rep;
} sched_run;

/* Lower o for one schedule and replay it. split: 0 = A (split_gates disabled), 1 = A+. */
static int
run_schedule(arena *a, const driver_options *base, int split, const analyze_options *ao,
             sched_run *s, diag *d)
{
    driver_options o = *base;
    ir_graph *g;
    kprog kp;
    memplan mp;
    int i, k = 0;

    for (i = 0; i < base->n_disable; i++)
        if (strcmp(base->disable[i], "split_gates") != 0)
            o.disable[k++] = base->disable[i];
    o.n_disable = k;
    if (!split && o.n_disable < (int)(sizeof o.disable / sizeof o.disable[0]))
        o.disable[o.n_disable++] = "split_gates";
    if (driver_lower(a, &o, &g, &kp, &mp, d) < 0)
        return -1;
    if (analyze_kprog(a, g, &kp, &mp, ao, &s->rep, d) < 0)
        return -1;
    s->ok = 1;
    return 0;
}

static const char analyze_usage[] =
    "usage: lstmc analyze MODEL.onnx [--target=NAME] [--dim=SYM=N]... [--llc=BYTES]\n"
    "                     [--assoc=W] [--runs=R] [--schedule=A|A+|both] [--csv]\n"
    "  --llc=BYTES     last-level cache size (12MiB, 4M, 524288); default: the target's\n"
    "  --assoc=W       W-way set associative (default: fully associative LRU)\n"
    "  --runs=R        replay the program R times and report the last (warm cache)\n"
    "  --schedule=S    A (split_gates disabled), A+ (the target's passes) or both\n"
    "  --csv           scope,name,op,schedule,weights,working_set,read,write,traffic,dre\n";

static int
analyze_bad(const char *msg, const char *arg)
{
    fprintf(stderr, "lstmc analyze: ");
    fprintf(stderr, msg, arg);
    fprintf(stderr, "\n%s", analyze_usage);
    return 2;
}


int
analyze_main(int argc, char **argv)
{
    static driver_options o;
    static char dim_names[DRIVER_MAX_BINDINGS][128];
    analyze_options ao;
    sched_run runs[2];
    const target *t;
    const char *sched = "both";
    int csv = 0, i, rc = 0, k;
    arena *a;
    diag *d;

    memset(&o, 0, sizeof o);
    memset(&ao, 0, sizeof ao);
    memset(runs, 0, sizeof runs);
    o.target = "host";
    for (i = 1; i < argc; i++) {
        const char *v;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(analyze_usage, stdout);
            return 0;
        } else if ((v = cli_opt(argc, argv, &i, "--target"))) {
            o.target = v;
        } else if ((v = cli_opt(argc, argv, &i, "--llc"))) {
            if (cli_parse_bytes(v, &ao.llc_bytes) < 0)
                return analyze_bad("--llc takes a byte count such as 12MiB, got '%s'", v);
        } else if ((v = cli_opt(argc, argv, &i, "--assoc"))) {
            char *end;
            long w = strtol(v, &end, 10);
            if (*end || end == v || w < 0 || w > 1 << 20)
                return analyze_bad("--assoc takes a way count (0 = fully associative), got '%s'",
                                   v);
            ao.assoc = (int32_t)w;
        } else if ((v = cli_opt(argc, argv, &i, "--runs"))) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 1 || n > 100)
                return analyze_bad("--runs takes a count from 1 to 100, got '%s'", v);
            ao.runs = (int32_t)n;
        } else if ((v = cli_opt(argc, argv, &i, "--schedule"))) {
            if (strcmp(v, "A") && strcmp(v, "A+") && strcmp(v, "both"))
                return analyze_bad("--schedule takes A, A+ or both, got '%s'", v);
            sched = v;
        } else if (!strcmp(argv[i], "--csv")) {
            csv = 1;
        } else if ((v = cli_opt(argc, argv, &i, "--disable-pass"))) {
            if (o.n_disable == (int)(sizeof o.disable / sizeof o.disable[0]))
                return analyze_bad("too many --disable-pass options%s", "");
            o.disable[o.n_disable++] = v;
        } else if ((v = cli_opt(argc, argv, &i, "--passes"))) {
            o.passes = v;
        } else if ((v = cli_opt(argc, argv, &i, "--dim"))) {
            const char *eq = strrchr(v, '=');
            char *end;
            long long n;
            if (!eq || eq == v || (size_t)(eq - v) >= sizeof dim_names[0])
                return analyze_bad("--dim takes SYM=N, got '%s'", v);
            n = strtoll(eq + 1, &end, 10);
            if (*end || end == eq + 1 || n < 1 || n > IR_MAX_ELEMS)
                return analyze_bad("--dim value must be an integer from 1 to 2^31, got '%s'", v);
            if (o.n_dims == DRIVER_MAX_BINDINGS)
                return analyze_bad("too many --dim options%s", "");
            memcpy(dim_names[o.n_dims], v, (size_t)(eq - v));
            dim_names[o.n_dims][eq - v] = '\0';
            o.dims[o.n_dims].name = dim_names[o.n_dims];
            o.dims[o.n_dims++].value = n;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return analyze_bad("unknown or incomplete option '%s'", argv[i]);
        } else if (!o.model) {
            o.model = argv[i];
        } else {
            return analyze_bad("unexpected argument '%s'", argv[i]);
        }
    }
    if (!o.model)
        return analyze_bad("no model given%s", "");
    t = target_find(o.target);
    if (!t) {
        fprintf(stderr, "lstmc analyze: unknown target '%s' (lstmc targets lists them)\n",
                o.target);
        return 2;
    }
    if (!ao.llc_bytes)
        ao.llc_bytes = analyze_target_llc(t);
    if (!ao.llc_bytes) {
        fprintf(stderr, "lstmc analyze: target '%s' gives no cache size; use --llc=BYTES\n",
                t->name);
        return 2;
    }
    if (ao.llc_bytes % 64) {
        fprintf(stderr, "lstmc analyze: --llc must be a multiple of the 64-byte line\n");
        return 2;
    }

    a = arena_new(0);
    d = diag_new(a, o.model, stderr);
    runs[0].label = "A";
    runs[1].label = "A+";
    for (k = 0; k < 2 && !rc; k++)
        if (!strcmp(sched, "both") || !strcmp(sched, runs[k].label))
            if (run_schedule(a, &o, k, &ao, &runs[k], d) < 0)
                rc = 1;
    if (!rc) {
        const analyze_report *r0 = runs[0].ok ? &runs[0].rep : &runs[1].rep;
        char b1[32];
        int n_layers = r0->n_layers;
        if (csv) {
            printf("scope,name,op,schedule,weights,working_set,read,write,traffic,dre\n");
        } else {
            printf("model   %s\ntarget  %s\nLLC     %s (%lld bytes), %s LRU, %d-byte lines, "
                   "write-back, write-allocate\n",
                   o.model, t->name, analyze_fmt_bytes(b1, sizeof b1, ao.llc_bytes),
                   (long long)ao.llc_bytes, ao.assoc ? "set-associative" : "fully associative",
                   r0->opt.line);
            if (ao.assoc)
                printf("        %d ways\n", ao.assoc);
            if (r0->opt.runs > 1)
                printf("runs    %d replays, the last reported (warm cache)\n", r0->opt.runs);
            printf("DRE     traffic / working set (Arm'19 Eq. 1); A: G = [W|U] read every step, "
                   "A+: G1 = W once, G2 = U every step (Alg. 2)\n\n");
            printf("%-20s %-5s %-3s %12s %12s %12s %12s %12s %9s\n", "layer", "op", "sch",
                   "weights", "working set", "DRAM read", "DRAM write", "traffic", "DRE");
        }
        for (i = 0; i < n_layers; i++)
            for (k = 0; k < 2; k++) {
                const analyze_layer *l;
                if (!runs[k].ok || i >= runs[k].rep.n_layers)
                    continue;
                l = &runs[k].rep.layers[i];
                print_row(stdout, csv, "layer", l->name, l->op, runs[k].label, l->weight_bytes,
                          l->working_set, l->read_bytes, l->write_bytes);
            }
        for (k = 0; k < 2; k++) {
            const analyze_report *r = &runs[k].rep;
            if (runs[k].ok)
                print_row(stdout, csv, "model", "(model)", "", runs[k].label, r->const_bytes,
                          r->working_set, r->read_bytes, r->write_bytes);
        }
        if (!csv && runs[0].ok && runs[1].ok) {
            int64_t ta = runs[0].rep.read_bytes + runs[0].rep.write_bytes;
            int64_t tb = runs[1].rep.read_bytes + runs[1].rep.write_bytes;
            int split = 0;
            for (i = 0; i < runs[1].rep.n_layers; i++)
                split += runs[1].rep.layers[i].split;
            if (!split)
                printf("\nA+ equals A: split_gates split no layer of this model\n");
            else if (tb > 0)
                printf("\nA+ moves %.1f%% less data than A (A / A+ = %.2fx)\n",
                       100.0 * (double)(ta - tb) / (double)ta, (double)ta / (double)tb);
        }
    }
    arena_free(a);
    return rc;
}
