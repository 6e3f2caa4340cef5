/*
 * ksearch.c — `lstmc profile --device=cpu --search [--budget=S] [--resume]` (issue 23): the
 * LLVM fp32 kernels' parameters (docs/TARGETS.md "Kernel parameters") searched on this
 * machine, per shape class, on the real generated kernels.
 *
 * A class (l2, llc, dram: where a layer's weight matrix lives) is represented by one
 * single-layer LSTM with I = H (bench/mkmodel.c, included below, builds it in process) whose
 * U and W both fall in the class on this machine's caches (ks_class_hidden). A candidate is a
 * temporary profile: this machine's cpu fields plus a "kernels" object setting every
 * parameter of that class. lstmc's driver compiles the model with it (one thread: the
 * parameters are the kernels', not the threading's), cc builds the library with the harness
 * of `lstmc tune` (compiler/tools/tune/harness.c, embedded) and the harness times it.
 *
 * The search, per class, is a coordinate descent from the defaults: one parameter at a time
 * over a small set of values, the current best measured again beside them, every candidate of
 * the comparison run once per round (the order rotated each round, so drift hits all alike),
 * the median over the rounds kept. An alternative replaces the best only when its median is
 * more than KS_MIN_GAIN faster and below the best's fastest round (outside its noise). The
 * passes repeat until one changes nothing or the budget runs out. vector_bits (where the CPU
 * has 512-bit vectors) is decided first, over every class, by the total time.
 *
 * Every measurement is appended to OUT.search (ks_state_read has the format), headed by a
 * fingerprint of the machine and of the lstmc binary; --resume replays them, so an interrupted
 * search continues where it stopped (the search is deterministic given its measurements).
 */
#define MKMODEL_NO_MAIN
#include "ksearch.h"

#include "../../bench/mkmodel.c"
#include "arena.h"
#include "diag.h"
#include "driver.h"
#include "outdir.h"
#include "proc.h"
#include "target.h"
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KS_MIN_GAIN  0.02 /* an alternative must be 2 % faster than the best's median */
#define KS_ROUNDS    7    /* rounds of a comparison (fewer when the budget is short) */
#define KS_PASSES    3    /* coordinate passes per class at most */
#define KS_ROUND_MS  40.0 /* one harness call's target duration */
#define KS_MAX_BUILT 512  /* candidates built in one search */

/* Set by SIGINT / SIGTERM while ks_run searches: what is measured stays in the state file. */
static volatile sig_atomic_t ks_interrupted;

static void
on_signal(int sig)
{
    (void)sig;
    ks_interrupted = 1;
}

const ks_params ks_defaults = {{0, TK_DEFAULT_REC_TILE, TK_DEFAULT_PREFETCH, 1,
                                TK_DEFAULT_PROJ_TILE, TK_DEFAULT_PROJ_ROWS, TK_DEFAULT_PREFETCH, 0,
                                0, 0, 0, 0, 0}};
const int ks_int_defaults[4] = {TK_DEFAULT_INT_TILE, 16, 1, 1};

const char *const ks_param_names[KS_N_PARAMS] = {
    "vector_bits",   "rec.tile",      "rec.prefetch", "rec.alternate", "proj.tile",
    "proj.rows",     "proj.prefetch", "rec.dot",      "int.tile",      "int.rows",
    "int.alternate", "int.pipe",      "threads"};

/* The values tried per parameter (rows: the parser takes powers of two only); rec.dot has
 * its own comparison (search_dot), after the fp32 coordinate search, and the int fields their
 * own coordinate search on the full-integer model (search_int). */
static const int ks_values[KS_N_PARAMS][4] = {
    {0}, {4, 6, 8, 12}, {0, 4, 8, 16}, {0, 1}, {2, 3, 4, 6}, {2, 4, 8}, {0, 8, 16},
    {0}, {4, 6, 8},     {4, 8, 16},    {0, 1}, {0, 1},       {0},
};
static const int ks_n_values[KS_N_PARAMS] = {0, 4, 4, 2, 4, 3, 3, 0, 3, 3, 2, 2, 0};

/* The threads step's hidden sizes, ascending (search_mt) */
static const long ks_mt_sizes[KS_MT_SIZES] = {32, 64, 96, 128, 160, 192, 256, 384, 512};

/* The name of class c in the state file and the table: target.h's, or "mt". */
static const char *
cls_name(int c)
{
    return c == KS_MT ? "mt" : target_class_names[c];
}

/* --- pure parts --------------------------------------------------------------------- */

long
ks_class_hidden(int cls, long long l2, long long llc)
{
    long h;
    if (cls == 0) {
        for (h = 32; 16LL * (h + 32) * (h + 32) <= l2 / 2; h += 32)
            ;
        return 16LL * h * h <= l2 / 2 ? h : 0;
    }
    if (cls == 1) {
        if (llc <= l2)
            return 0;
        for (h = 1024; h >= 32 && 16LL * h * h > llc / 2; h -= 32)
            ;
        if (h >= 32 && 16LL * h * h > l2)
            return h;
        for (h = 1024; h >= 32 && 16LL * h * h > llc; h -= 32)
            ;
        return h >= 32 && 16LL * h * h > l2 ? h : 0;
    }
    if (llc < l2)
        llc = l2;
    for (h = 64; h <= 2048; h += 64)
        if (16LL * h * h >= 2 * llc)
            return h;
    return 0;
}

static int
class_of(const char *s)
{
    int c;
    for (c = 0; c < TK_N_CLASSES; c++) /* ks_result's classes are target.h's */
        if (strcmp(s, target_class_names[c]) == 0)
            return c;
    return strcmp(s, "mt") == 0 ? KS_MT : -1;
}

/* p in the documented ranges, and one the search could have made */
static int
params_ok(const ks_params *p)
{
    const int *v = p->v;
    return (v[KS_VB] == 0 || v[KS_VB] == 128 || v[KS_VB] == 256 || v[KS_VB] == 512) &&
           v[KS_REC_TILE] >= 1 && v[KS_REC_TILE] <= 16 && v[KS_REC_PF] >= 0 && v[KS_REC_PF] <= 64 &&
           (v[KS_REC_ALT] == 0 || v[KS_REC_ALT] == 1) && v[KS_PROJ_TILE] >= 1 &&
           v[KS_PROJ_TILE] <= 8 &&
           (v[KS_PROJ_ROWS] == 1 || v[KS_PROJ_ROWS] == 2 || v[KS_PROJ_ROWS] == 4 ||
            v[KS_PROJ_ROWS] == 8) &&
           v[KS_PROJ_PF] >= 0 && v[KS_PROJ_PF] <= 64 && v[KS_REC_DOT] >= 0 && v[KS_REC_DOT] <= 4 &&
           v[KS_INT_TILE] >= 0 && v[KS_INT_TILE] <= 8 &&
           (v[KS_INT_TILE] == 0 ? v[KS_INT_ROWS] == 0 && v[KS_INT_ALT] == 0 && v[KS_INT_PIPE] == 0
                                : v[KS_INT_ROWS] >= 1 && v[KS_INT_ROWS] <= 16 &&
                                      !(v[KS_INT_ROWS] & (v[KS_INT_ROWS] - 1)) &&
                                      (v[KS_INT_ALT] == 0 || v[KS_INT_ALT] == 1) &&
                                      (v[KS_INT_PIPE] == 0 || v[KS_INT_PIPE] == 1)) &&
           (v[KS_THREADS] == 0 || (v[KS_THREADS] >= 2 && v[KS_THREADS] <= 16));
}

int
ks_state_read(FILE *f, const char *fingerprint, ks_state *st, char *why, size_t n_why)
{
    char line[512];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        ks_rec r;
        char cls[16], extra[2];
        ln++;
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        else if (!feof(f)) {
            snprintf(why, n_why, "line %d is too long", ln);
            return -1;
        }
        if (ln == 1) {
            if (strcmp(line, "lstmc-kernel-search 4") != 0) {
                snprintf(why, n_why, "line 1 is not 'lstmc-kernel-search 4'");
                return -1;
            }
            continue;
        }
        if (ln == 2) {
            if (strncmp(line, "machine ", 8) != 0) {
                snprintf(why, n_why, "line 2 is not 'machine FINGERPRINT'");
                return -1;
            }
            if (strcmp(line + 8, fingerprint) != 0) {
                snprintf(why, n_why, "measured on another machine or lstmc build (%s)", line + 8);
                st->n = 0;
                return 0;
            }
            continue;
        }
        if (sscanf(line, "%15s %d %d %d %d %d %d %d %d %d %d %d %d %d %d %lf %lf %lf %1s", cls,
                   &r.step, &r.p.v[0], &r.p.v[1], &r.p.v[2], &r.p.v[3], &r.p.v[4], &r.p.v[5],
                   &r.p.v[6], &r.p.v[7], &r.p.v[8], &r.p.v[9], &r.p.v[10], &r.p.v[11], &r.p.v[12],
                   &r.med, &r.lo, &r.hi, extra) != 18 ||
            (r.cls = class_of(cls)) < 0 || r.step < 0 || r.step > 100000 || !params_ok(&r.p) ||
            !(r.lo > 0) || !(r.lo <= r.med) || !(r.med <= r.hi) || !(r.hi < 1e12)) {
            snprintf(
                why, n_why,
                "line %d is not 'CLASS STEP VB RT RP RA PT PR PP RD IT IR IA IP TH MEDIAN MIN MAX'",
                ln);
            return -1;
        }
        if (st->n >= KS_MAX_RECS) {
            snprintf(why, n_why, "more than %d measurements", KS_MAX_RECS);
            return -1;
        }
        st->r[st->n++] = r;
    }
    if (ln < 2) {
        snprintf(why, n_why, "no header (empty file)");
        return -1;
    }
    return 1;
}

void
ks_state_write_rec(FILE *f, const ks_rec *r)
{
    int i;
    fprintf(f, "%s %d", cls_name(r->cls), r->step);
    for (i = 0; i < KS_N_PARAMS; i++)
        fprintf(f, " %d", r->p.v[i]);
    fprintf(f, " %.3f %.3f %.3f\n", r->med, r->lo, r->hi);
}

/* --- the machine -------------------------------------------------------------------- */

static double
now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The CPU's name from /proc/cpuinfo, JSON- and token-safe (no quotes, controls). */
static void
cpu_name(char *buf, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    snprintf(buf, n, "unknown CPU");
    while (f && fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (c && (strncmp(line, "model name", 10) == 0 || strncmp(line, "Hardware", 8) == 0)) {
            size_t i;
            snprintf(buf, n, "%s", c + 1 + (c[1] == ' '));
            for (i = 0; buf[i]; i++)
                if (buf[i] == '"' || buf[i] == '\\' || (unsigned char)buf[i] < 32)
                    buf[i] = buf[i] == '\n' ? '\0' : '_';
            break;
        }
    }
    if (f)
        fclose(f);
}

/* The widest vectors this CPU has, in bits. */
static int
widest_vector(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return 512;
    if (__builtin_cpu_supports("avx"))
        return 256;
#endif
    return 128;
}

/* --- one candidate ------------------------------------------------------------------ */

typedef struct ks_class {
    int cls;
    long H, T;
    char model[4200], data[4200];
} ks_class;

typedef struct ks_built {
    int cls;
    long H; /* the model's (the threads step's models share a class) */
    ks_params p;
    char dir[4200];
} ks_built;

typedef struct ks_run_state {
    const ks_options *o;
    ks_result *res;
    const char *cc;
    char work[4096];
    char fingerprint[256];
    FILE *state;    /* appended to */
    ks_state *memo; /* what --resume read */
    double t_end;   /* now_s() at which the budget (of the class being searched) is spent */
    double t_all;   /* now_s() at which the whole budget is spent */
    double build_s; /* the slowest build so far */
    int reps[7];    /* harness repetitions per call, per class (3 + class: its int8 model; 6:
                       the threads step's current model) */
    ks_built *built;
    int n_built;
    int widest;
} ks_run_state;

static const char *
params_str(int cls, const ks_params *p)
{
    static char s[128];
    snprintf(s, sizeof s, "vb=%d rec %d/%d/%d proj %d/%d/%d", p->v[KS_VB], p->v[KS_REC_TILE],
             p->v[KS_REC_PF], p->v[KS_REC_ALT], p->v[KS_PROJ_TILE], p->v[KS_PROJ_ROWS],
             p->v[KS_PROJ_PF]);
    if (p->v[KS_REC_DOT]) /* the bf16 model */
        snprintf(s + strlen(s), sizeof s - strlen(s), " bf16 dot %d", p->v[KS_REC_DOT] - 1);
    if (p->v[KS_INT_TILE]) /* the full-integer model */
        snprintf(s, sizeof s, "int8 tile %d rows %d alternate %d pipe %d", p->v[KS_INT_TILE],
                 p->v[KS_INT_ROWS], p->v[KS_INT_ALT], p->v[KS_INT_PIPE]);
    if (cls == KS_MT) /* the threads step: this machine's defaults on 1 or n threads */
        snprintf(s, sizeof s, "%d thread%s", p->v[KS_THREADS] ? p->v[KS_THREADS] : 1,
                 p->v[KS_THREADS] ? "s" : "");
    return s;
}

/* The candidate's profile: this machine's cpu fields and every parameter of class cls. */
static int
write_candidate(const ks_run_state *S, int cls, const ks_params *p, const char *path)
{
    FILE *f = fopen(path, "w");
    const char *c = cls == KS_MT ? "all" : target_class_names[cls];
    if (!f)
        return -1;
    fprintf(f,
            "{\"name\": \"search\", \"cpu\": {\"cores\": %d, \"l1d_bytes\": %d, \"l2_bytes\": "
            "%lld, \"llc_bytes\": %lld}",
            S->res->cores, S->res->l1d, S->res->l2, S->res->llc);
    if (cls == KS_MT) { /* the threads step: the kernels' defaults for this machine */
        const int e = fprintf(f, "}\n") < 0;
        return fclose(f) != 0 || e ? -1 : 0;
    }
    fprintf(f, ",\n \"kernels\": {");
    if (p->v[KS_VB])
        fprintf(f, "\"vector_bits\": %d, ", p->v[KS_VB]);
    fprintf(f, "\"rec\": {\"%s\": {\"tile\": %d, \"prefetch\": %d, \"alternate\": %d", c,
            p->v[KS_REC_TILE], p->v[KS_REC_PF], p->v[KS_REC_ALT]);
    if (p->v[KS_REC_DOT])
        fprintf(f, ", \"dot\": %d", p->v[KS_REC_DOT] - 1);
    fprintf(f, "}}, \"proj\": {\"%s\": {\"tile\": %d, \"rows\": %d, \"prefetch\": %d", c,
            p->v[KS_PROJ_TILE], p->v[KS_PROJ_ROWS], p->v[KS_PROJ_PF]);
    if (p->v[KS_INT_TILE]) /* for every class: the int8 U's may not be the model's fp32 one */
        fprintf(f,
                "}}, \"int\": {\"all\": {\"tile\": %d, \"rows\": %d, \"alternate\": %d, "
                "\"pipe\": %d",
                p->v[KS_INT_TILE], p->v[KS_INT_ROWS], p->v[KS_INT_ALT], p->v[KS_INT_PIPE]);
    fprintf(f, "}}}}\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* make the library in dir, and cc the harness beside it (tune_build_harness) */
static int
build_dir(const ks_run_state *S, const char *dir)
{
    static const char *const what[3] = {"building the generated library in %s failed",
                                        "cannot write the harness in %s",
                                        "building the harness in %s failed"};
    int rc = tune_build_harness(S->cc, dir, 1, 1, "/dev/null");
    if (rc < 0) {
        fputs("lstmc profile: ", stderr);
        fprintf(stderr, what[-rc - 1], dir);
        fputc('\n', stderr);
        return -1;
    }
    return 0;
}

/* The harness of candidate p of class k, built once: its folder, or NULL after a message. */
static const char *
candidate(ks_run_state *S, const ks_class *k, const ks_params *p)
{
    driver_options o;
    arena *a;
    diag *d;
    ks_built *b;
    char prof[4300];
    int i, rc, saved;
    double t0 = now_s();
    for (i = 0; i < S->n_built; i++)
        if (S->built[i].cls == k->cls && S->built[i].H == k->H &&
            !memcmp(&S->built[i].p, p, sizeof *p))
            return S->built[i].dir;
    if (S->n_built == KS_MAX_BUILT) {
        fprintf(stderr, "lstmc profile: more than %d candidates\n", KS_MAX_BUILT);
        return NULL;
    }
    b = &S->built[S->n_built];
    b->cls = k->cls;
    b->H = k->H;
    b->p = *p;
    snprintf(b->dir, sizeof b->dir, "%s/%s-%d", S->work, cls_name(k->cls), S->n_built);
    snprintf(prof, sizeof prof, "%s.json", b->dir);
    if (proc_mkdirs(b->dir) != 0 || write_candidate(S, k->cls, p, prof) < 0) {
        fprintf(stderr, "lstmc profile: cannot write %s: %s\n", prof, strerror(errno));
        return NULL;
    }
    a = arena_new(0);
    d = diag_new(a, k->model, stderr);
    memset(&o, 0, sizeof o);
    o.model = k->model;
    o.target = prof;
    o.name = "m";
    o.outdir = b->dir;
    o.no_budget = 1;
    /* the kernels' parameters, not the threads' share, are measured; but in the threads step */
    o.threads = p->v[KS_THREADS] ? p->v[KS_THREADS] : 1;
    if (p->v[KS_REC_DOT])
        o.weights = "bf16";
    if (p->v[KS_INT_TILE]) { /* calibrated on the input it is timed on */
        o.activations = 8;
        o.calib_data = k->data;
    }
    fflush(stdout); /* the compile's summary is not the search's */
    saved = dup(1);
    i = open("/dev/null", O_WRONLY);
    if (saved >= 0 && i >= 0)
        dup2(i, 1);
    if (i >= 0)
        close(i);
    rc = driver_compile(a, &o, d);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, 1);
        close(saved);
    }
    arena_free(a);
    target_forget_files();
    if (rc < 0 || ks_interrupted || build_dir(S, b->dir) < 0) {
        if (ks_interrupted)
            return NULL;
        fprintf(stderr, "lstmc profile: the candidate %s of class %s did not build\n",
                params_str(k->cls, p), cls_name(k->cls));
        return NULL;
    }
    S->n_built++;
    if (now_s() - t0 > S->build_s)
        S->build_s = now_s() - t0;
    return b->dir;
}

/* One harness call: median microseconds per inference over reps runs, or -1. */
static double
time_once(const ks_run_state *S, const ks_class *k, const char *dir, int reps)
{
    char exe[4300], reps_s[32], npy[4300], txt[4300];
    static char zero[] = "0", one[] = "1";
    char *argv[] = {exe, (char *)k->data, zero, one, reps_s, npy, NULL};
    FILE *f;
    double us = -1;
    long long c_, n_;
    int s;
    (void)S;
    snprintf(exe, sizeof exe, "%s/harness", dir);
    snprintf(reps_s, sizeof reps_s, "%d", reps);
    snprintf(npy, sizeof npy, "%s/out.npy", dir);
    snprintf(txt, sizeof txt, "%s/out.txt", dir);
    if (proc_run(argv, txt) != 0)
        return -1;
    f = fopen(txt, "r");
    if (!f)
        return -1;
    if (fscanf(f, "out %lld %lld %d %lf", &c_, &n_, &s, &us) != 4 || s != 0 || !(us > 0))
        us = -1;
    fclose(f);
    return us;
}

static int
cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
 * Measure candidates c[0..n-1] of class k as comparison `step`: replayed from the memo when
 * it holds them all, else every candidate built, then run once per round, the order rotated
 * each round, and the rounds' median, min and max recorded (and appended to the state file).
 * 1 when measured, 0 when the budget ran out first, -1 on an error. force: 5 rounds whatever
 * the budget (the final comparison of the chosen parameters with the defaults).
 */
static int
compare(ks_run_state *S, const ks_class *k, int step, const ks_params *c, int n, ks_rec *out,
        int force)
{
    const char *dir[16];
    double t[16][KS_ROUNDS], round_s = 0;
    const int ri = k->cls == KS_MT ? 6 : k->cls + (c[0].v[KS_INT_TILE] ? 3 : 0);
    int i, j, r, rounds = KS_ROUNDS, hit = 0;
    for (i = 0; i < n; i++) /* replay */
        for (j = 0; S->memo && j < S->memo->n; j++) {
            const ks_rec *m = &S->memo->r[j];
            if (m->cls == k->cls && m->step == step && !memcmp(&m->p, &c[i], sizeof c[i])) {
                out[i] = *m;
                hit++;
                break;
            }
        }
    if (hit == n) {
        for (i = 0; i < n; i++)
            ks_state_write_rec(S->state, &out[i]);
        fflush(S->state);
        return 1;
    }
    if (force)
        rounds = 5;
    for (i = 0; i < n; i++) {
        if (!force && now_s() + S->build_s > S->t_end)
            return 0;
        if (!(dir[i] = candidate(S, k, &c[i])))
            return -1;
    }
    if (!S->reps[ri]) { /* calibrate: one call of about KS_ROUND_MS */
        double us = time_once(S, k, dir[0], 3);
        if (us < 0) {
            if (!ks_interrupted)
                fprintf(stderr, "lstmc profile: the harness of %s failed\n", dir[0]);
            return -1;
        }
        S->reps[ri] = (int)(KS_ROUND_MS * 1e3 / us);
        if (S->reps[ri] < 3)
            S->reps[ri] = 3;
        if (S->reps[ri] > 200)
            S->reps[ri] = 200;
    }
    for (r = 0; r < rounds; r++) {
        double t0 = now_s();
        if (!force && r >= 3 && t0 + round_s > S->t_end)
            rounds = r; /* short of budget: 3 rounds at least */
        if (r >= rounds)
            break;
        if (!force && r < 3 && t0 + round_s > S->t_end)
            return 0;
        for (j = 0; j < n; j++) {
            i = (j + r) % n;
            if (ks_interrupted || (t[i][r] = time_once(S, k, dir[i], S->reps[ri])) < 0) {
                if (ks_interrupted)
                    return -1;
                fprintf(stderr, "lstmc profile: the harness of %s failed\n", dir[i]);
                return -1;
            }
        }
        round_s = now_s() - t0;
    }
    for (i = 0; i < n; i++) {
        qsort(t[i], (size_t)rounds, sizeof t[i][0], cmp_d);
        out[i].cls = k->cls;
        out[i].step = step;
        out[i].p = c[i];
        out[i].med = t[i][rounds / 2];
        out[i].lo = t[i][0];
        out[i].hi = t[i][rounds - 1];
        ks_state_write_rec(S->state, &out[i]);
    }
    fflush(S->state);
    return 1;
}

static void
progress(const ks_run_state *S, const ks_class *k, const ks_rec *m, double best)
{
    double left = S->t_all - now_s();
    fprintf(stderr,
            "lstmc profile: search %s H=%ld: %s: %.1f us (%.1f..%.1f), best %.1f us, %.0f s left\n",
            cls_name(k->cls), k->H, params_str(k->cls, &m->p), m->med, m->lo, m->hi, best,
            left > 0 ? left : 0);
}

/* Does the alternative m beat the best b beyond the noise? */
static int
beats(const ks_rec *m, const ks_rec *b)
{
    return m->med < b->med * (1 - KS_MIN_GAIN) && m->med < b->lo;
}

/* The chosen parameters c1 against the defaults c0 on class k's model, side by side (5
 * rounds, after the budget if need be): their medians in *def_us, *best_us; 1 and 1 without
 * measuring when they are the same. 0, or -1. */
static int
side_by_side(ks_run_state *S, const ks_class *k, int step, const ks_params *c0, const ks_params *c1,
             double *def_us, double *best_us)
{
    ks_params c[2];
    ks_rec m[2];
    *def_us = *best_us = 1;
    if (!memcmp(c0, c1, sizeof *c0))
        return 0;
    c[0] = *c0;
    c[1] = *c1;
    if (compare(S, k, step, c, 2, m, 1) < 0)
        return -1;
    progress(S, k, &m[1], m[1].med);
    progress(S, k, &m[0], m[1].med);
    *def_us = m[0].med;
    *best_us = m[1].med;
    return 0;
}

/* The coordinate search of class k's parameters [q0, q1) from *best, which it updates.
 * *step counts the comparisons. 1 when done, 0 when the budget ended it, or -1. */
static int
coordinates(ks_run_state *S, const ks_class *k, int *step, ks_params *best, int q0, int q1)
{
    int pass, q, changed = 1;
    for (pass = 0; pass < KS_PASSES && changed; pass++) {
        changed = 0;
        for (q = q0; q < q1; q++) {
            ks_params c[8];
            ks_rec m[8];
            int n = 1, i, w = 0, rc;
            c[0] = *best;
            for (i = 0; i < ks_n_values[q]; i++)
                if (ks_values[q][i] != best->v[q]) {
                    c[n] = *best;
                    c[n++].v[q] = ks_values[q][i];
                }
            rc = compare(S, k, (*step)++, c, n, m, 0);
            if (rc <= 0)
                return rc;
            for (i = 1; i < n; i++) {
                progress(S, k, &m[i], m[w].med);
                if (beats(&m[i], &m[0]) && (w == 0 || m[i].med < m[w].med))
                    w = i;
            }
            progress(S, k, &m[0], m[w].med);
            if (w) {
                *best = c[w];
                changed = 1;
            }
            if (q0 == KS_REC_TILE)
                S->res->measured[k->cls] = 1;
        }
    }
    return 1;
}

/* The fp32 kernels' coordinate search of class k from S->res->chosen[k->cls] (its vb
 * already decided). */
static int
search_class(ks_run_state *S, const ks_class *k, int *step)
{
    return coordinates(S, k, step, &S->res->chosen[k->cls], KS_REC_TILE, KS_REC_DOT);
}

/* The full-integer VNNI kernel, on a CPU with it: class k's model in --activations=int8
 * (calibrated on its input), its int fields searched from the built-in values (one thread:
 * ks_int_defaults), then the chosen measured against those side by side; the result is that
 * of the class of the model's int8 U (4 H^2 bytes), unless an earlier model had it. 0 (the
 * budget may have ended it), or -1. */
static int
search_int(ks_run_state *S, const ks_class *k, int step)
{
    ks_result *res = S->res;
    const int ic = target_kernel_class(target_find("host"), 4LL * k->H * k->H);
    ks_params best = res->chosen[k->cls], c0;
    int i, rc;
    if (res->int_searched[ic])
        return 0;
    best.v[KS_REC_DOT] = 0; /* fp32 weights: --activations=int8 quantizes them */
    for (i = 0; i < 4; i++)
        best.v[KS_INT_TILE + i] = ks_int_defaults[i];
    c0 = best;
    if ((rc = coordinates(S, k, &step, &best, KS_INT_TILE, KS_N_PARAMS)) < 0)
        return rc;
    if (rc == 0 && !memcmp(&c0, &best, sizeof best))
        return 0; /* nothing measured: not searched */
    res->int_hidden[ic] = k->H;
    for (i = 0; i < 4; i++)
        res->int_chosen[ic][i] = best.v[KS_INT_TILE + i];
    if (side_by_side(S, k, step, &c0, &best, &res->int_def_us[ic], &res->int_best_us[ic]) < 0)
        return -1;
    res->int_searched[ic] = 1;
    return 0;
}

/* The speed-up of class k's chosen parameters over the defaults. */
static int
final_check(ks_run_state *S, const ks_class *k, int step)
{
    return side_by_side(S, k, step, &S->res->def[k->cls], &S->res->chosen[k->cls],
                        &S->res->def_us[k->cls], &S->res->best_us[k->cls]);
}

/* rec.dot, on a CPU with vdpbf16ps: class k's model in bf16 weights with the chosen fp32
 * parameters and each dot the search may choose (0: U widened; 2, 3: h in that many bf16
 * pieces, as accurate as widening; never 1, which rounds h to bf16: a profile sets that by
 * hand), the built-in default (2) first. proj.dot is not searched: W widened beats W against
 * 2 or 3 pieces of X everywhere measured (bench/RESULTS.md). 0 (the budget may have ended it
 * first), or -1. */
static int
search_dot(ks_run_state *S, const ks_class *k, int step)
{
    static const int dots[3] = {2, 0, 3};
    ks_params c[3];
    ks_rec m[3];
    int i, w = 0, rc;
    for (i = 0; i < 3; i++) {
        c[i] = S->res->chosen[k->cls];
        c[i].v[KS_REC_DOT] = 1 + dots[i];
    }
    rc = compare(S, k, step, c, 3, m, 0);
    if (rc <= 0)
        return rc;
    for (i = 1; i < 3; i++) {
        progress(S, k, &m[i], m[0].med);
        if (beats(&m[i], &m[0]) && (w == 0 || m[i].med < m[w].med))
            w = i;
    }
    progress(S, k, &m[0], m[w].med);
    S->res->chosen[k->cls].v[KS_REC_DOT] = 1 + dots[w];
    S->res->dot_def_us[k->cls] = m[0].med;
    S->res->dot_best_us[k->cls] = m[w].med;
    return 0;
}

/* A one-layer LSTM (I = H) of k->H units and k->T steps as k->model, its input X
 * [1, T, 1, H] as k->data, named `name` in the work folder. 0, or -1 after a message. */
static int
make_model(ks_run_state *S, ks_class *k, const char *name)
{
    mkmodel_config mc;
    char err[4400]; /* "cannot write " and the model's path */
    int64_t dims[4];
    float *x;
    size_t i, n;
    unsigned long long seed = 0x5eedULL;
    int rc;
    (void)mkmodel_write_input; /* X is written below, with the harness's sample axis */
    memset(&mc, 0, sizeof mc);
    mc.hidden = mc.input = k->H;
    mc.layers = mc.batch = 1;
    mc.seq = k->T;
    mc.seed = 7;
    snprintf(k->model, sizeof k->model, "%s/%s.onnx", S->work, name);
    snprintf(k->data, sizeof k->data, "%s/%s_x.npy", S->work, name);
    if (mkmodel_write(&mc, k->model, err, sizeof err) != 0) {
        fprintf(stderr, "lstmc profile: %s\n", err);
        return -1;
    }
    mk_free_all();
    n = (size_t)(k->T * k->H);
    dims[0] = 1, dims[1] = k->T, dims[2] = 1, dims[3] = k->H;
    if (!(x = malloc(n * sizeof *x))) {
        fprintf(stderr, "lstmc profile: out of memory\n");
        return -1;
    }
    for (i = 0; i < n; i++)
        x[i] = mkmodel_rand(&seed);
    rc = lstmc_npy_write(k->data, LSTMC_RT_F32, 4, dims, x, err, sizeof err);
    free(x);
    if (rc != 0) {
        fprintf(stderr, "lstmc profile: %s\n", err);
        return -1;
    }
    return 0;
}

/* The representative model of class c: 1 when made, 0 when the machine has no such class,
 * -1 after a message. */
static int
make_class(ks_run_state *S, int c, ks_class *k)
{
    k->cls = c;
    k->H = ks_class_hidden(c, S->res->l2, S->res->llc);
    k->T = c == 0 ? 64 : c == 1 ? 32 : 16;
    if (!k->H)
        return 0;
    return make_model(S, k, target_class_names[c]) < 0 ? -1 : 1;
}

/*
 * The threads step (a machine with 2 cores or more): for each hidden size of ks_mt_sizes, a
 * one-layer LSTM (I = H, T 64) compiled with this machine's default kernels for one thread
 * and for two, compared as the parameters are (7 rounds, the order rotated); two threads
 * "win" when they beat one beyond the noise (beats). mt_min_hidden is then the smallest
 * measured H from which they win at every larger measured H: the hidden size from which a
 * layer gets threads without --threads (kernels.mt_min_hidden). It stops at the budget, and
 * after two sizes in a row that two threads win (the larger ones win too: the slices' share
 * grows as H^2, the per-step barrier does not). 0, or -1.
 */
static int
search_mt(ks_run_state *S)
{
    ks_result *res = S->res;
    int i, rc, run = 0;
    res->mt_n = res->mt_min_hidden = 0;
    for (i = 0; i < KS_MT_SIZES && run < 2; i++) {
        ks_class k;
        ks_params c[2];
        ks_rec m[2];
        char name[32];
        memset(&k, 0, sizeof k);
        k.cls = KS_MT;
        k.H = ks_mt_sizes[i];
        k.T = 64;
        snprintf(name, sizeof name, "mt%ld", k.H);
        if (make_model(S, &k, name) < 0)
            return -1;
        c[0] = c[1] = ks_defaults;
        c[1].v[KS_THREADS] = 2;
        S->reps[6] = 0; /* calibrated again for this size */
        if ((rc = compare(S, &k, (int)k.H, c, 2, m, 0)) <= 0)
            return rc;
        progress(S, &k, &m[1], m[0].med < m[1].med ? m[0].med : m[1].med);
        progress(S, &k, &m[0], m[0].med < m[1].med ? m[0].med : m[1].med);
        res->mt_h[i] = k.H;
        res->mt_us1[i] = m[0].med;
        res->mt_us2[i] = m[1].med;
        res->mt_win[i] = beats(&m[1], &m[0]);
        res->mt_n = i + 1;
        run = res->mt_win[i] ? run + 1 : 0;
    }
    if (res->mt_n && res->mt_win[res->mt_n - 1]) /* the run of wins that ends the list */
        for (i = res->mt_n - 1; i >= 0 && res->mt_win[i]; i--)
            res->mt_min_hidden = (int)res->mt_h[i];
    return 0;
}

/* vector_bits, for every class at once: the default (the widest) against 256 bits, by the
 * total of the classes' medians; 256 kept only when every class is outside its noise. */
static int
search_vb(ks_run_state *S, ks_class *k, int nk)
{
    double t_def = 0, t_256 = 0;
    int i, better = 1;
    for (i = 0; i < nk; i++) {
        ks_params c[2];
        ks_rec m[2];
        int rc;
        c[0] = c[1] = S->res->def[k[i].cls];
        c[1].v[KS_VB] = 256;
        rc = compare(S, &k[i], 0, c, 2, m, 0);
        if (rc <= 0)
            return rc;
        progress(S, &k[i], &m[1], m[0].med);
        progress(S, &k[i], &m[0], m[0].med < m[1].med ? m[0].med : m[1].med);
        t_def += m[0].med, t_256 += m[1].med;
        better = better && m[1].med < m[0].lo;
    }
    if (better && t_256 < t_def * (1 - KS_MIN_GAIN))
        for (i = 0; i < 3; i++)
            S->res->chosen[i].v[KS_VB] = 256;
    return 0;
}

/* --- the whole search --------------------------------------------------------------- */

static void
fingerprint(ks_run_state *S)
{
    struct stat sb;
    long long sz = 0, mt = 0;
    if (stat("/proc/self/exe", &sb) == 0)
        sz = (long long)sb.st_size, mt = (long long)sb.st_mtime;
    snprintf(S->fingerprint, sizeof S->fingerprint,
             "cpu=%s;cores=%d;l2=%lld;llc=%lld;lstmc=%lld-%lld", S->res->cpu_name, S->res->cores,
             S->res->l2, S->res->llc, sz, mt);
}

static void
print_table(const ks_result *res)
{
    int c, q;
    printf("\nkernel parameter search (median us per inference, one thread):\n\n"
           "| class | H | parameter | default | chosen | speed-up vs default |\n"
           "|---|---|---|---|---|---|\n");
    for (c = 0; c < 3; c++) {
        if (!res->searched[c]) {
            printf("| %s | - | (not represented on this machine, or no budget) | | | |\n",
                   target_class_names[c]);
            continue;
        }
        for (q = 0; q < KS_REC_DOT; q++) {
            int dv = res->def[c].v[q], cv = res->chosen[c].v[q];
            if (q == KS_VB)
                printf("| %s | %ld | %s | widest | %s%.0d |", target_class_names[c], res->hidden[c],
                       ks_param_names[q], cv ? "" : "widest", cv);
            else
                printf("| %s | %ld | %s | %d | %d |", target_class_names[c], res->hidden[c],
                       ks_param_names[q], dv, cv);
            if (q == KS_PROJ_PF && res->def_us[c] == 1 && res->best_us[c] == 1)
                printf(" 1 (the defaults) |\n");
            else if (q == KS_PROJ_PF)
                printf(" %.3fx (%.1f -> %.1f us) |\n", res->def_us[c] / res->best_us[c],
                       res->def_us[c], res->best_us[c]);
            else
                printf(" |\n");
        }
        if (res->dot_default >= 0 && res->chosen[c].v[KS_REC_DOT]) /* its own comparison */
            printf("| %s | %ld | rec.dot (bf16 weights) | %d | %d | %.3fx (%.1f -> %.1f us) |\n",
                   target_class_names[c], res->hidden[c], res->dot_default,
                   res->chosen[c].v[KS_REC_DOT] - 1, res->dot_def_us[c] / res->dot_best_us[c],
                   res->dot_def_us[c], res->dot_best_us[c]);
        else if (res->dot_default >= 0)
            printf("| %s | %ld | rec.dot (bf16 weights) | %d | (not measured: no budget) | |\n",
                   target_class_names[c], res->hidden[c], res->dot_default);
    }
    for (q = 0; q < res->mt_n; q++)
        printf("| mt | %ld | threads (2 against 1) | | | %.3fx (%.1f -> %.1f us)%s |\n",
               res->mt_h[q], res->mt_us1[q] / res->mt_us2[q], res->mt_us1[q], res->mt_us2[q],
               res->mt_win[q] ? "" : " (two threads do not win)");
    if (res->mt_n)
        printf("| mt | - | mt_min_hidden | %d | %s%.0d | |\n", TK_DEFAULT_MT_MIN_HIDDEN,
               res->mt_min_hidden ? "" : "(undetermined: two threads lost at the largest size)",
               res->mt_min_hidden);
    for (c = 0; c < 3 && res->int_search; c++) { /* by the class of the int8 U */
        if (!res->int_searched[c]) {
            printf("| %s | - | int (full-integer kernel) | | (not measured: no model's int8 U in "
                   "this class, or no budget) | |\n",
                   target_class_names[c]);
            continue;
        }
        for (q = 0; q < 4; q++) {
            printf("| %s | %ld | %s (int8) | %d | %d |", target_class_names[c], res->int_hidden[c],
                   ks_param_names[KS_INT_TILE + q], ks_int_defaults[q], res->int_chosen[c][q]);
            if (q < 3)
                printf(" |\n");
            else if (res->int_def_us[c] == 1 && res->int_best_us[c] == 1)
                printf(" 1 (the defaults) |\n");
            else
                printf(" %.3fx (%.1f -> %.1f us) |\n", res->int_def_us[c] / res->int_best_us[c],
                       res->int_def_us[c], res->int_best_us[c]);
        }
    }
}

int
ks_run(const ks_options *o, ks_result *res)
{
    static ks_run_state S;
    static ks_state memo;
    static ks_built built[KS_MAX_BUILT];
    const target *host = target_find("host");
    const char *tmp = getenv("TMPDIR"), *cc = getenv("CC");
    char state_path[4200], why[256];
    ks_class k[3];
    struct sigaction sa, old_int, old_term;
    int nk = 0, c, rc = 0, step[3] = {0, 0, 0};
    FILE *f;

    memset(&S, 0, sizeof S);
    memset(res, 0, sizeof *res);
    S.o = o;
    S.res = res;
    S.built = built;
    S.cc = cc && *cc ? cc : "cc";
    S.t_end = S.t_all = now_s() + o->budget_s;
    S.widest = widest_vector();
    res->dot_default = driver_host_bf16_dot() ? 2 : -1; /* codegen/llvm/kparams.c */
    res->int_search = driver_host_vnni();
    res->cores = host->cores;
    res->l1d = (int)host->l1d_bytes;
    res->l2 = host->l2_bytes;
    res->llc = host->llc_bytes;
    cpu_name(res->cpu_name, sizeof res->cpu_name);
    for (c = 0; c < 3; c++) {
        res->def[c] = ks_defaults;
        if (c != TK_L2 && driver_host_streams_without_prefetch())
            res->def[c].v[KS_REC_PF] = res->def[c].v[KS_PROJ_PF] = 0;
        res->chosen[c] = res->def[c];
    }
    fingerprint(&S);

    snprintf(state_path, sizeof state_path, "%s.search", o->out);
    if (o->resume && (f = fopen(state_path, "r"))) {
        int st = ks_state_read(f, S.fingerprint, &memo, why, sizeof why);
        fclose(f);
        if (st < 0) {
            fprintf(stderr, "lstmc profile: %s: %s; remove it or search without --resume\n",
                    state_path, why);
            return -1;
        }
        if (st == 0)
            fprintf(stderr, "lstmc profile: ignoring %s: %s\n", state_path, why);
        else
            fprintf(stderr, "lstmc profile: resuming from %s (%d measurements)\n", state_path,
                    memo.n);
        S.memo = &memo;
    }
    if (!(S.state = fopen(state_path, "w"))) {
        fprintf(stderr, "lstmc profile: cannot write %s: %s\n", state_path, strerror(errno));
        return -1;
    }
    fprintf(S.state, "lstmc-kernel-search 4\nmachine %s\n", S.fingerprint);
    snprintf(S.work, sizeof S.work, "%s/lstmc-ksearch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(S.work)) {
        fprintf(stderr, "lstmc profile: cannot create a work folder: %s\n", strerror(errno));
        fclose(S.state);
        return -1;
    }
    fprintf(stderr,
            "lstmc profile: searching the kernel parameters for %.0f s (%s, L2 %lld, "
            "LLC %lld bytes); measurements in %s\n",
            o->budget_s, res->cpu_name, res->l2, res->llc, state_path);
    for (c = 0; c < 3 && rc >= 0; c++)
        if (o->classes & (1u << c)) {
            int m = make_class(&S, c, &k[nk]);
            if (m < 0)
                rc = -1;
            else if (m > 0)
                res->hidden[c] = k[nk++].H;
            else
                fprintf(stderr,
                        "lstmc profile: no %s class on this machine (L2 %lld, LLC %lld "
                        "bytes): skipped\n",
                        target_class_names[c], res->l2, res->llc);
        }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    if ((o->classes & (1u << KS_MT)) && res->cores >= 2) /* a fifth of it for the threads */
        S.t_end = S.t_all - 0.2 * o->budget_s;
    if (rc >= 0 && nk && S.widest == 512) {
        rc = search_vb(&S, k, nk);
        for (c = 0; c < nk; c++)
            step[k[c].cls] = 1;
    }
    for (c = 0; c < nk && rc >= 0; c++) {
        double end = S.t_end, now = now_s();
        if (now < end) /* the classes left share what is left of the budget */
            S.t_end = now + (end - now) / (nk - c);
        rc = search_class(&S, &k[c], &step[k[c].cls]);
        S.t_end = end;
    }
    for (c = 0; c < nk && rc >= 0; c++) /* what the search found, against the defaults */
        if (res->measured[k[c].cls] || (res->chosen[k[c].cls].v[KS_VB] && nk))
            if ((rc = final_check(&S, &k[c], step[k[c].cls])) == 0) {
                res->searched[k[c].cls] = 1;
                if (res->dot_default >= 0) /* the bf16 kernel's dot, with what was chosen */
                    rc = search_dot(&S, &k[c], step[k[c].cls] + 1);
                if (rc >= 0 && res->int_search) /* the full-integer kernel */
                    rc = search_int(&S, &k[c], step[k[c].cls] + 2);
            }
    S.t_end = S.t_all;
    if (rc >= 0 && (o->classes & (1u << KS_MT)) && res->cores >= 2)
        rc = search_mt(&S);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    fclose(S.state);
    outdir_remove_tree(S.work);
    if (ks_interrupted) {
        fprintf(stderr,
                "lstmc profile: interrupted; nothing written, the measurements are in %s "
                "(--resume continues)\n",
                state_path);
        return -2;
    }
    if (rc < 0)
        return -1;
    if (now_s() >= S.t_end)
        fprintf(stderr, "lstmc profile: the search's budget is spent; --resume continues it\n");
    for (c = 0; c < 3; c++) /* a class not measured keeps the defaults */
        if (!res->searched[c]) {
            int vb = res->chosen[c].v[KS_VB];
            res->chosen[c] = res->def[c];
            res->chosen[c].v[KS_VB] = vb;
        }
    print_table(res);
    return 0;
}

/* Class c's chosen value of q as the profile writes it (rec.dot stored 1 + d, the int
 * fields in int_chosen). */
static int
chosen(const ks_result *res, int c, int q)
{
    if (q >= KS_INT_TILE)
        return res->int_chosen[c][q - KS_INT_TILE];
    return res->chosen[c].v[q] - (q == KS_REC_DOT);
}

/* Whether class c's chosen q is not what the kernels take without a profile (rec.dot: 1 + d
 * once measured, against the CPU's default d; the int fields once searched, against the
 * one-thread defaults). */
static int
differs(const ks_result *res, int c, int q)
{
    const int v = res->chosen[c].v[q];
    if (q >= KS_INT_TILE)
        return res->int_searched[c] && chosen(res, c, q) != ks_int_defaults[q - KS_INT_TILE];
    if (q == KS_REC_DOT)
        return v != 0 && v - 1 != res->dot_default;
    return v != res->def[c].v[q];
}

void
ks_write_kernels(FILE *f, const ks_result *res)
{
    static const char *const kinds[3] = {"rec", "proj", "int"};
    static const int params[3][5] = {{KS_REC_TILE, KS_REC_PF, KS_REC_ALT, KS_REC_DOT, -1},
                                     {KS_PROJ_TILE, KS_PROJ_ROWS, KS_PROJ_PF, -1},
                                     {KS_INT_TILE, KS_INT_ROWS, KS_INT_ALT, KS_INT_PIPE, -1}};
    const int mt = res->mt_min_hidden && res->mt_min_hidden != TK_DEFAULT_MT_MIN_HIDDEN;
    int vb = res->chosen[0].v[KS_VB], kind, c, q, j, any = vb != 0 || mt, first_kind = 1;
    for (c = 0; c < 3; c++)
        for (q = KS_REC_TILE; q < KS_THREADS; q++)
            any |= differs(res, c, q);
    if (!any)
        return;
    fprintf(f, "  \"kernels\": {");
    if (vb)
        fprintf(f, "\"vector_bits\": %d", vb), first_kind = 0;
    if (mt)
        fprintf(f, "%s\"mt_min_hidden\": %d", first_kind ? "" : ", ", res->mt_min_hidden),
            first_kind = 0;
    for (kind = 0; kind < 3; kind++) {
        int first_cls = 1;
        for (c = 0; c < 3; c++) {
            int first = 1;
            for (j = 0; (q = params[kind][j]) >= 0; j++)
                if (differs(res, c, q)) {
                    if (first_cls)
                        fprintf(f, "%s\"%s\": {", first_kind ? "" : ", ", kinds[kind]),
                            first_kind = 0;
                    if (first)
                        fprintf(f, "%s\"%s\": {", first_cls ? "" : ", ", target_class_names[c]),
                            first_cls = 0;
                    fprintf(f, "%s\"%s\": %d", first ? "" : ", ",
                            strchr(ks_param_names[q], '.') + 1, chosen(res, c, q));
                    first = 0;
                }
            if (!first)
                fprintf(f, "}");
        }
        if (!first_cls)
            fprintf(f, "}");
    }
    fprintf(f, "},\n");
}
