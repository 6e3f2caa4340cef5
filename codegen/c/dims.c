/*
 * dims.c — issue 21: the host code of a library whose dims are bound to ranges
 * (--dim=SYM=MIN..MAX). The driver compiles the model at every dim's MAX (the program the
 * library runs, its arena sized for it) and at sample points of the box of dims; here each
 * number the host code passes to a kernel is compared across the samples. A number that
 * differs becomes an expression in the run's dims: a polynomial with integer coefficients
 * that is linear in each dim (T * N * H, 2 * T - 1, ...), found from the corners of the box
 * and checked at the points inside it. What cannot be written that way (a stride-2
 * convolution's (T - 1) / 2 + 1, a constant whose bytes depend on T) is refused, naming the
 * node.
 *
 * The numbers are read from the C text that params.c writes for each call, so every kernel
 * kind is covered without a table of fields: two texts must be equal but for their integer
 * literals, and the name of the field a literal initialises (".seq_len = 5") says which
 * KP_DYN_* bit it sets.
 */
#include "arena.h"
#include "c_impl.h"
#include "diag.h"
#include "kprog.h"
#include "memplan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORNERS (1 << CG_DIMS_MAX)

/* The box and the samples: corner[m] is the sample whose dim k is max when bit k of m is
 * set and min otherwise (ns: the MAX program itself). */
typedef struct fitter {
    const cg_dims *dm;
    int ns;
    const int64_t (*sv)[CG_DIMS_MAX];
    int corner[CORNERS];
    int64_t lo[CG_DIMS_MAX]; /* the corners' low value of each dim (fit_lo) */
    int *want_dense;         /* set when a floor was wanted and the samples were sparse */
} fitter;

/* The low end of the box the polynomials are fitted on: 2 for a dim from 1 to 3 or more. */
static int64_t
fit_lo(const cg_dims *dm, int k)
{
    return dm->min[k] == 1 && dm->max[k] >= 3 ? 2 : dm->min[k];
}

/* The middle level of a dim, for a square of it (dense samples only). */
static int64_t
fit_mid(const cg_dims *dm, int k)
{
    return fit_lo(dm, k) + (dm->max[k] - fit_lo(dm, k)) / 2;
}

int
cg_dims_samples(const cg_dims *dm, int64_t (*sv)[CG_DIMS_MAX])
{
    int64_t vals[CG_DIMS_MAX][4];
    int nv[CG_DIMS_MAX], idx[CG_DIMS_MAX] = {0}, k, j, n = 0, p;
    for (k = 0; k < dm->n; k++) {
        nv[k] = 0;
        vals[k][nv[k]++] = dm->min[k];
        if (fit_lo(dm, k) != dm->min[k])
            vals[k][nv[k]++] = fit_lo(dm, k);
        if (dm->dense && fit_mid(dm, k) > fit_lo(dm, k) && fit_mid(dm, k) < dm->max[k])
            vals[k][nv[k]++] = fit_mid(dm, k); /* a third level: squares */
        vals[k][nv[k]++] = dm->max[k];
    }
    for (;;) { /* every combination but all-MAX */
        int all_max = 1;
        for (k = 0; k < dm->n; k++) {
            sv[n][k] = vals[k][idx[k]];
            all_max &= idx[k] == nv[k] - 1;
        }
        n += !all_max;
        for (k = 0; k < dm->n && ++idx[k] == nv[k]; k++)
            idx[k] = 0;
        if (k == dm->n)
            break;
    }
    for (k = 0; dm->dense && k < dm->n; k++) { /* every value near MIN, then a stride */
        int64_t x, step = (dm->max[k] - dm->min[k]) / 8 + 1;
        for (x = dm->min[k]; x < dm->max[k] && n < CG_DIMS_SAMPLES_MAX - 8; x++) {
            int64_t v[CG_DIMS_MAX];
            int dup = 0, i;
            if (x > dm->min[k] + 2 * CG_DIMS_MAX_STRIDE && (x - dm->min[k]) % step)
                continue;
            for (i = 0; i < dm->n; i++)
                v[i] = i == k ? x : dm->max[i];
            for (j = 0; j < n && !dup; j++)
                dup = memcmp(sv[j], v, sizeof(int64_t) * (size_t)dm->n) == 0;
            if (!dup)
                memcpy(sv[n++], v, sizeof v);
        }
    }
    for (p = 0; p < 4; p++) { /* inside: MIN + 1, the middle, MAX - 1, and a mix */
        int64_t v[CG_DIMS_MAX];
        int dup = 0, all_max = 1;
        for (k = 0; k < dm->n; k++) {
            const int64_t lo = dm->min[k], hi = dm->max[k];
            v[k] = p == 0   ? lo + 1
                   : p == 1 ? lo + (hi - lo) / 2
                   : p == 2 ? hi - 1
                   : k == 0 ? lo + 1
                            : hi - 1;
            if (v[k] < lo || v[k] > hi)
                v[k] = hi;
            all_max &= v[k] == hi;
        }
        for (j = 0; j < n && !dup; j++)
            dup = memcmp(sv[j], v, sizeof(int64_t) * (size_t)dm->n) == 0;
        if (!dup && !all_max)
            memcpy(sv[n++], v, sizeof v);
    }
    return n;
}

/* The dims of sample j (j == ns: every dim at MAX). */
static int64_t
sample_dim(const fitter *f, int j, int k)
{
    return j == f->ns ? f->dm->max[k] : f->sv[j][k];
}

/* 1 when sample j has a dim at 1 that the polynomials are not fitted on (fit_lo 2): the
 * program there is a degenerate form of the one from 2 up (a broadcast stride 0, size-1
 * axes merged, a copy for an Expand to the same shape), which the fitted one, evaluated at
 * 1, computes too. Only the graph's shapes are compared there (its ranks, input and output
 * shapes), which catch a change of meaning at size 1 (a Squeeze without axes). */
static int
at_one(const fitter *f, int j)
{
    int k;
    for (k = 0; k < f->dm->n; k++)
        if (sample_dim(f, j, k) == 1 && f->lo[k] > 1)
            return 1;
    return 0;
}

/* A fitted number: coef[m] times the monomial prod_{k in m} x_k, where x_k is dims[k], or
 * for k == ak the floor (dims[k] + ar) / as (a stride-as convolution's or pool's output
 * length, nested ones included: floor((floor(x / a) + c) / b) = floor((x + a c) / ab)). */
typedef struct poly {
    int64_t coef[CORNERS];
    int ak;         /* the dim read through a floor, or -1 */
    int64_t as, ar; /* its divisor (>= 2) and offset (0 <= ar < as) */
    int qk;         /* the dim that may appear squared (x_qk^2 times the monomials of the
                       others, coefficient sq[m]: a [T, T] matrix's strides), or -1 */
    int64_t sq[CORNERS];
} poly;

/* x_k under p's atom, for the dim's value x and for sample j. */
static int64_t
atom_of(const poly *p, int k, int64_t x)
{
    return k == p->ak ? (x + p->ar) / p->as : x;
}

static int64_t
atom_at(const fitter *f, const poly *p, int j, int k)
{
    return atom_of(p, k, sample_dim(f, j, k));
}

/* p->coef through the values v[j] (j <= ns) at the corners, under p's atom, checked at
 * every other sample (strict: also those at_one). 0, or -1 when no polynomial with
 * integer coefficients fits. */
static int
fit_atom(const fitter *f, const int64_t *v, poly *p, int strict)
{
    const int K = f->dm->n, nc = 1 << K;
    int m, k, j;
    for (m = 0; m < nc; m++)
        p->coef[m] = v[f->corner[m]];
    for (k = 0; k < K; k++) { /* x_k: values at (lo, max) -> (intercept, slope) */
        const int64_t lo = atom_of(p, k, f->lo[k]), span = atom_of(p, k, f->dm->max[k]) - lo;
        if (span <= 0)
            return -1;
        for (m = 0; m < nc; m++) {
            int64_t a, b, slope;
            if (m & (1 << k))
                continue;
            a = p->coef[m];
            b = p->coef[m | 1 << k];
            if ((b - a) % span)
                return -1;
            slope = (b - a) / span;
            p->coef[m] = a - slope * lo;
            p->coef[m | 1 << k] = slope;
        }
    }
    for (j = 0; j <= f->ns; j++) {
        int64_t sum = 0;
        for (m = 0; m < nc; m++) {
            int64_t t = p->coef[m];
            for (k = 0; k < K; k++)
                if (m & (1 << k))
                    t *= atom_at(f, p, j, k);
            sum += t;
        }
        if (sum != v[j] && (strict || !at_one(f, j)))
            return -1;
    }
    return 0;
}

/* The sample whose dims are x[0..n), or -1. */
static int
sample_with(const fitter *f, const int64_t *x)
{
    int j, k;
    for (j = 0; j <= f->ns; j++) {
        for (k = 0; k < f->dm->n && sample_dim(f, j, k) == x[k]; k++)
            ;
        if (k == f->dm->n)
            return j;
    }
    return -1;
}

/* v as sum_m (coef[m] + sq[m] x_q^2) prod_{k in m} x_k, where m never holds q beyond the
 * linear term: the other dims at (lo, max), dim q at (lo, mid, max) (dense samples),
 * Newton's divided differences along q, checked at every other sample. 0 or -1. */
static int
fit_square(const fitter *f, const int64_t *v, poly *p, int q, int strict)
{
    const int K = f->dm->n, nc = 1 << K;
    const int64_t x0 = f->lo[q], x1 = fit_mid(f->dm, q), x2 = f->dm->max[q];
    int m, k, j;
    if (!(x0 < x1 && x1 < x2))
        return -1;
    p->qk = q;
    for (m = 0; m < nc; m++) { /* m without bit q: the corner of the others */
        int64_t x[CG_DIMS_MAX], w[3], d01, d12, c;
        int lvl;
        if (m & (1 << q))
            continue;
        for (lvl = 0; lvl < 3; lvl++) {
            for (k = 0; k < K; k++)
                x[k] = k == q           ? (lvl == 0   ? x0
                                           : lvl == 1 ? x1
                                                      : x2)
                       : (m & (1 << k)) ? f->dm->max[k]
                                        : f->lo[k];
            j = sample_with(f, x);
            if (j < 0)
                return -1;
            w[lvl] = v[j];
        }
        if ((w[1] - w[0]) % (x1 - x0) || (w[2] - w[1]) % (x2 - x1))
            return -1;
        d01 = (w[1] - w[0]) / (x1 - x0);
        d12 = (w[2] - w[1]) / (x2 - x1);
        if ((d12 - d01) % (x2 - x0))
            return -1;
        c = (d12 - d01) / (x2 - x0);
        p->coef[m] = w[0] - d01 * x0 + c * x0 * x1; /* Newton -> a + b x + c x^2 */
        p->coef[m | 1 << q] = d01 - c * (x0 + x1);
        p->sq[m] = c;
    }
    for (k = 0; k < K; k++) { /* the other dims: (lo, max) -> (intercept, slope) */
        const int64_t lo = f->lo[k], span = f->dm->max[k] - lo;
        if (k == q)
            continue;
        for (m = 0; m < nc; m++) {
            int64_t *arr[2] = {p->coef, p->sq};
            int t;
            if (m & (1 << k))
                continue;
            for (t = 0; t < 2; t++) {
                int64_t a = arr[t][m], b = arr[t][m | 1 << k], slope;
                if (t == 1 && (m & (1 << q)))
                    continue; /* sq is indexed without q */
                if ((b - a) % span)
                    return -1;
                slope = (b - a) / span;
                arr[t][m] = a - slope * lo;
                arr[t][m | 1 << k] = slope;
            }
        }
    }
    for (m = 0; m < nc; m++)
        if (m & (1 << q))
            p->sq[m] = 0;
    for (j = 0; j <= f->ns; j++) {
        int64_t sum = 0;
        for (m = 0; m < nc; m++) {
            int64_t t = p->coef[m], u = p->sq[m];
            for (k = 0; k < K; k++)
                if (m & (1 << k)) {
                    t *= sample_dim(f, j, k);
                    u *= sample_dim(f, j, k);
                }
            sum += t + u * sample_dim(f, j, q) * sample_dim(f, j, q);
        }
        if (sum != v[j] && (strict || !at_one(f, j)))
            return -1;
    }
    return 0;
}

/* Fit v: a polynomial in the dims, else (when the samples are dense, f->dm->dense: every
 * value of each dim near its MIN and a stride of them up to MAX, so that no two floors
 * agree on them all) one in a floor of one dim. -1 when neither fits; *want_dense set when
 * the samples were too sparse to try the floors. */
static int
fit(const fitter *f, const int64_t *v, poly *p, int strict, int *want_dense)
{
    int k;
    int64_t s, r;
    p->ak = -1;
    p->as = 1;
    p->ar = 0;
    p->qk = -1;
    if (fit_atom(f, v, p, strict) == 0)
        return 0;
    if (!f->dm->dense) {
        *want_dense = 1;
        return -1;
    }
    for (k = 0; k < f->dm->n; k++)
        for (s = 2; s <= CG_DIMS_MAX_STRIDE; s++)
            for (r = 0; r < s; r++) {
                p->ak = k;
                p->as = s;
                p->ar = r;
                if (fit_atom(f, v, p, strict) == 0)
                    return 0;
            }
    p->ak = -1;
    p->as = 1;
    p->ar = 0;
    for (k = 0; k < f->dm->n; k++)
        if (fit_square(f, v, p, k, strict) == 0)
            return 0;
    p->qk = -1;
    return -1;
}

/* The polynomial as a C expression over dims[k] ("dims[0] * 12 + 3"), in buf. */
static void
poly_str(const fitter *f, const poly *p, char *buf, size_t n)
{
    const int K = f->dm->n, nc = 1 << K;
    size_t len = 0;
    int m, k, terms = 0;
    buf[0] = '\0';
    for (m = nc - 1; m >= 0; m--) {
        int64_t c = p->coef[m];
        if (c == 0 || len >= n)
            continue;
        if (terms++)
            len += (size_t)snprintf(buf + len, n - len, c < 0 ? " - " : " + ");
        else if (c < 0)
            len += (size_t)snprintf(buf + len, n - len, "-");
        c = c < 0 ? -c : c;
        for (k = 0; k < K && len < n; k++) {
            const char *sep = len && (buf[len - 1] == ']' || buf[len - 1] == ')') ? " * " : "";
            char x[96];
            if (!(m & (1 << k)))
                continue;
            if (k == p->ak && p->ar)
                snprintf(x, sizeof x, "((dims[%d] + %lld) / %lld)", k, (long long)p->ar,
                         (long long)p->as);
            else if (k == p->ak)
                snprintf(x, sizeof x, "(dims[%d] / %lld)", k, (long long)p->as);
            else
                snprintf(x, sizeof x, "dims[%d]", k);
            len += (size_t)snprintf(buf + len, n - len, "%s%s", sep, x);
        }
        if (len < n && (c != 1 || m == 0))
            len += (size_t)snprintf(buf + len, n - len, "%s%lld", m ? " * " : "", (long long)c);
    }
    for (m = nc - 1; p->qk >= 0 && m >= 0; m--) { /* the squares of dim qk */
        int64_t c = p->sq[m];
        if (c == 0 || (m & (1 << p->qk)) || len >= n)
            continue;
        if (terms++)
            len += (size_t)snprintf(buf + len, n - len, c < 0 ? " - " : " + ");
        else if (c < 0)
            len += (size_t)snprintf(buf + len, n - len, "-");
        c = c < 0 ? -c : c;
        len += (size_t)snprintf(buf + len, n - len, "dims[%d] * dims[%d]", p->qk, p->qk);
        for (k = 0; k < K && len < n; k++)
            if (m & (1 << k))
                len += (size_t)snprintf(buf + len, n - len, " * dims[%d]", k);
        if (len < n && c != 1)
            len += (size_t)snprintf(buf + len, n - len, " * %lld", (long long)c);
    }
    if (!terms)
        snprintf(buf, n, "0");
    else if (terms > 1 && len + 2 < n) { /* parenthesised */
        memmove(buf + 1, buf, len + 1);
        buf[0] = '(';
        buf[len + 1] = ')';
        buf[len + 2] = '\0';
    }
}

/* --- numbers in C text ------------------------------------------------------------------ */

typedef struct num {
    size_t at, len; /* where in the text */
    int is_int;     /* an integer literal (else a float: compared as text) */
    long long v;    /* its value, when is_int */
    char field[48]; /* the designated field it initialises (".rows = 12": "rows") */
} num;

static int
ident_char(int c)
{
    return isalnum(c) || c == '_';
}

/* The numbers of s (at most max), with the skeleton (s without them) checked by the
 * caller. Returns how many, or -1 when there are more than max. */
static int
scan_numbers(const char *s, num *out, int max)
{
    size_t i = 0, n = strlen(s);
    int cnt = 0;
    char field[48] = "";
    while (i < n) {
        if (s[i] == '.' && i + 1 < n && (isalpha((unsigned char)s[i + 1]) || s[i + 1] == '_')) {
            size_t j = i + 1, l;
            while (j < n && ident_char((unsigned char)s[j]))
                j++;
            l = j - i - 1 < sizeof field - 1 ? j - i - 1 : sizeof field - 1;
            memcpy(field, s + i + 1, l);
            field[l] = '\0';
            i = j;
            continue;
        }
        if (ident_char((unsigned char)s[i]) && !isdigit((unsigned char)s[i])) {
            while (i < n && ident_char((unsigned char)s[i]))
                i++;
            continue;
        }
        if (isdigit((unsigned char)s[i]) ||
            (s[i] == '-' && i + 1 < n && isdigit((unsigned char)s[i + 1]))) {
            size_t j = i + (s[i] == '-');
            int is_int = 1;
            while (j < n &&
                   (isalnum((unsigned char)s[j]) || s[j] == '.' ||
                    ((s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E')))) {
                if (!isdigit((unsigned char)s[j]))
                    is_int = 0;
                j++;
            }
            if (cnt == max)
                return -1;
            out[cnt].at = i;
            out[cnt].len = j - i;
            out[cnt].is_int = is_int;
            out[cnt].v = is_int ? strtoll(s + i, NULL, 10) : 0;
            snprintf(out[cnt].field, sizeof out[cnt].field, "%s", field);
            cnt++;
            i = j;
            continue;
        }
        i++;
    }
    return cnt;
}

/* 1 when a and b are equal but for their integer literals (the same count, the floats
 * equal). */
static int
same_skeleton(const char *a, const num *na, int ca, const char *b, const num *nb, int cb)
{
    size_t pa = 0, pb = 0;
    int i;
    if (ca != cb)
        return 0;
    for (i = 0; i <= ca; i++) {
        size_t ea = i < ca ? na[i].at : strlen(a), eb = i < cb ? nb[i].at : strlen(b);
        if (ea - pa != eb - pb || memcmp(a + pa, b + pb, ea - pa) != 0)
            return 0;
        if (i == ca)
            break;
        if (na[i].is_int != nb[i].is_int ||
            (!na[i].is_int &&
             (na[i].len != nb[i].len || memcmp(a + na[i].at, b + nb[i].at, na[i].len) != 0)))
            return 0;
        pa = ea + na[i].len;
        pb = eb + nb[i].len;
    }
    return 1;
}

static char *
print_params(const kp_call *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    if (c->kind != KP_COPY)
        cg_c_put_params(f, c);
    if (c->kind == KP_FILL)
        fprintf(f, "/*n*/ %lld", (long long)c->p.fill.n);
    if (c->kind == KP_COPY)
        fprintf(f, "/*n_bytes*/ %lld", (long long)c->p.copy.n_bytes);
    fclose(f);
    return buf;
}

#define MAX_NUMS 512

/* The KP_DYN_* bit of a field that varies. */
static unsigned
field_bit(const kp_call *c, const char *field)
{
    if (c->kind == KP_FILL || c->kind == KP_COPY)
        return KP_DYN_OTHER;
    if (strcmp(field, "seq_len") == 0)
        return KP_DYN_SEQ_LEN;
    if (strcmp(field, "batch") == 0)
        return KP_DYN_BATCH;
    if (strcmp(field, "rows") == 0 && c->kind == KP_RNN_PROJ)
        return KP_DYN_ROWS;
    if (c->kind == KP_CONV || c->kind == KP_CONV_TRANSPOSE || c->kind == KP_POOL) {
        if (strcmp(field, "n") == 0 || strcmp(field, "nc") == 0)
            return KP_DYN_N;
        if (strcmp(field, "in_h") == 0 || strcmp(field, "out_h") == 0)
            return KP_DYN_H;
        if (strcmp(field, "in_w") == 0 || strcmp(field, "out_w") == 0)
            return KP_DYN_W;
    }
    if (c->kind == KP_LAYERNORM && strcmp(field, "outer") == 0)
        return KP_DYN_N;
    return KP_DYN_OTHER;
}

static const char *
call_label(const kp_call *c, int i, char *buf, size_t n)
{
    if (c->node)
        snprintf(buf, n, "node '%s' (%s)", c->node->name, c->node->op_type);
    else
        snprintf(buf, n, "call %d (an output copy)", i);
    return buf;
}

static void
put_dims_at(const fitter *f, int j, char *buf, size_t n)
{
    size_t len = 0;
    int k;
    buf[0] = '\0';
    for (k = 0; k < f->dm->n && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s=%lld", k ? ", " : "", f->dm->name[k],
                                (long long)sample_dim(f, j, k));
}

/* Call i's params across the samples: the template with expressions into dm, its dyn bits
 * into c. */
static int
fit_call(arena *a, const fitter *f, kprog *kp, const kprog *const *skp, int i, cg_dims *dm, diag *d)
{
    kp_call *c = &kp->calls[i];
    const int ns = f->ns;
    char *text[CG_DIMS_SAMPLES_MAX + 1];
    static num nums[CG_DIMS_SAMPLES_MAX + 1][MAX_NUMS];
    int cnt[CG_DIMS_SAMPLES_MAX + 1], j, q, status = 0, varies = 0;
    char label[400], at[200];
    char *out = NULL;
    size_t outlen = 0, pos = 0;
    FILE *o = NULL;
    for (j = 0; j <= ns; j++) {
        text[j] = print_params(j == ns ? c : &skp[j]->calls[i]);
        cnt[j] = text[j] ? scan_numbers(text[j], nums[j], MAX_NUMS) : -1;
    }
    for (j = 0; j < ns && status == 0; j++) {
        if (at_one(f, j))
            continue;
        if (cnt[j] < 0 || cnt[ns] < 0 ||
            !same_skeleton(text[ns], nums[ns], cnt[ns], text[j], nums[j], cnt[j])) {
            put_dims_at(f, j, at, sizeof at);
            diag_error(d,
                       "--dim ranges: %s takes other parameters at %s than at the "
                       "maximum (not only other sizes); bind those dims to one value",
                       call_label(c, i, label, sizeof label), at);
            status = -1;
        }
    }
    if (status == 0) {
        o = open_memstream(&out, &outlen);
        if (!o)
            status = -1;
    }
    for (q = 0; status == 0 && q < cnt[ns]; q++) {
        const num *nm = &nums[ns][q];
        int64_t v[CG_DIMS_SAMPLES_MAX + 1];
        poly pf;
        int differs = 0;
        char expr[400];
        fwrite(text[ns] + pos, 1, nm->at - pos, o);
        pos = nm->at + nm->len;
        if (!nm->is_int) {
            fwrite(text[ns] + nm->at, 1, nm->len, o);
            continue;
        }
        for (j = 0; j <= ns; j++) {
            if (j < ns && at_one(f, j)) { /* not compared (fit skips it) */
                v[j] = nums[ns][q].v;
                continue;
            }
            v[j] = nums[j][q].v;
            differs |= v[j] != nums[ns][q].v;
        }
        if (!differs) {
            fwrite(text[ns] + nm->at, 1, nm->len, o);
            continue;
        }
        if (fit(f, v, &pf, 0, f->want_dense) < 0) {
            diag_error(d,
                       "--dim ranges: the '%s' of %s (%lld at the maximum) is no "
                       "polynomial of the ranged dims, linear in each but one that may be "
                       "squared (nor of a floor of one, (T + r) / s with s up to 16, as a "
                       "strided convolution's length); bind those dims to one value",
                       nm->field[0] ? nm->field : "size", call_label(c, i, label, sizeof label),
                       (long long)v[ns]);
            status = -1;
            break;
        }
        poly_str(f, &pf, expr, sizeof expr);
        fputs(expr, o);
        c->dyn |= field_bit(c, nm->field);
        varies = 1;
    }
    if (o) {
        fputs(text[ns] + pos, o);
        fclose(o);
    }
    if (status == 0 && varies) {
        char *s = out;
        /* the params of this run: not static */
        if (strncmp(s, "static const ", 13) == 0)
            s += 7;
        if (c->kind == KP_FILL || c->kind == KP_COPY) {
            char *mark = strstr(s, "/*n");
            char *e = mark ? strstr(mark, "*/") : NULL;
            dm->call_size[i] = arena_strdup(a, e ? e + 2 + strspn(e + 2, " ") : "0");
            if (mark)
                *mark = '\0';
        }
        dm->call_params[i] = c->kind == KP_COPY ? NULL : arena_strdup(a, s);
    }
    free(out);
    for (j = 0; j <= ns; j++)
        free(text[j]);
    return status;
}

/* The shape of tensor t as "{e0, e1, ...}" over the samples (ts[j]: its counterpart). */
static char *
fit_shape(arena *a, const fitter *f, const ir_tensor *t, const ir_tensor *const *ts,
          const char *what, diag *d)
{
    char buf[2048], expr[400];
    size_t len = 0;
    int r, j;
    len += (size_t)snprintf(buf, sizeof buf, "{");
    for (r = 0; r < t->shape.rank; r++) {
        int64_t v[CG_DIMS_SAMPLES_MAX + 1];
        poly pf;
        for (j = 0; j <= f->ns; j++) {
            const ir_tensor *u = j == f->ns ? t : ts[j];
            v[j] = u->shape.rank == t->shape.rank ? u->shape.d[r] : -1;
        }
        if (fit(f, v, &pf, 1, f->want_dense) < 0) {
            diag_error(d,
                       "--dim ranges: dim %d of %s '%s' is no polynomial of the ranged "
                       "dims, linear in each but one that may be squared (nor of a floor "
                       "of one); bind those dims to one value",
                       r, what, t->name);
            return NULL;
        }
        poly_str(f, &pf, expr, sizeof expr);
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", r ? ", " : "", expr);
        if (len >= sizeof buf)
            return NULL;
    }
    snprintf(buf + len, sizeof buf - len, "}");
    return arena_strdup(a, buf);
}

static int
same_tensor(const ir_tensor *t, const ir_tensor *u)
{
    if (!t || !u)
        return t == u;
    return strcmp(t->name, u->name) == 0 && t->dtype == u->dtype;
}

/* 1 when t (placed by mp) and u (by mu) are constants of the same type and bytes. */
static int
same_const(const ir_tensor *t, const memplan *mp, const ir_tensor *u, const memplan *mu)
{
    int64_t n;
    if (!t || !u || mp->tensor[t->id].kind != MEMPLAN_CONST ||
        mu->tensor[u->id].kind != MEMPLAN_CONST || t->dtype != u->dtype || !t->data || !u->data)
        return 0;
    n = ir_shape_numel(&t->shape);
    return n == ir_shape_numel(&u->shape) &&
           memcmp(t->data, u->data, (size_t)n * ir_dtype_size(t->dtype)) == 0;
}

/* Name a constant whose values depend on the dims (cg_dims.vary), once. */
static void
add_vary(cg_dims *dm, const char *name)
{
    int i;
    for (i = 0; i < dm->n_vary; i++)
        if (strcmp(dm->vary[i], name) == 0)
            return;
    if (dm->n_vary < (int)(sizeof dm->vary / sizeof dm->vary[0]))
        dm->vary[dm->n_vary++] = name;
}

/* Do the programs make the same calls over the same buffers? Constants whose values differ
 * are all named in dm->vary (the first one reported). */
static int
same_structure(const fitter *f, const ir_graph *g, const kprog *kp, const memplan *mp,
               const ir_graph *const *sg, const kprog *const *skp, const memplan *const *smp,
               cg_dims *dm, diag *d)
{
    int j, i, k, n_vary = 0;
    char vary_msg[2048] = "";
    char label[400], at[200];
    for (j = 0; j < f->ns; j++) {
        const kprog *s = skp[j];
        put_dims_at(f, j, at, sizeof at);
        for (i = 0; i < g->n_tensors; i++) { /* the model's meaning: every rank */
            const ir_tensor *t = g->tensors[i], *u = ir_tensor_find(sg[j], t->name);
            if (u && u->shape.rank != t->shape.rank && t->producer && u->producer &&
                strcmp(t->producer->name, u->producer->name) == 0 &&
                strcmp(t->producer->op_type, u->producer->op_type) == 0) {
                diag_error(d,
                           "--dim ranges: at %s '%s' has rank %d, %d at the maximum (the model "
                           "changes shape there, e.g. a Squeeze without axes); bind those dims "
                           "to one value or start the range above",
                           at, t->name, u->shape.rank, t->shape.rank);
                return -1;
            }
        }
        if (at_one(f, j))
            continue;
        if (s->n_calls != kp->n_calls || s->n_outputs != kp->n_outputs) {
            diag_error(d,
                       "--dim ranges: at %s the model compiles to another program (%d "
                       "kernel calls, %d at the maximum); bind those dims to one value",
                       at, s->n_calls, kp->n_calls);
            return -1;
        }
        if (at_one(f, j))
            continue;
        for (i = 0; i < kp->n_calls; i++) {
            const kp_call *c = &kp->calls[i], *sc = &s->calls[i];
            const char *why = NULL;
            char whyb[600];
            if (c->kind != sc->kind || c->wfmt != sc->wfmt || c->n_in != sc->n_in ||
                c->n_out != sc->n_out || !c->node != !sc->node ||
                (c->node && strcmp(c->node->name, sc->node->name) != 0))
                why = "is another kernel call";
            else if (sc->scratch_bytes > c->scratch_bytes)
                why = "needs a bigger scratch buffer";
            for (k = 0; !why && k < c->n_in + c->n_out; k++) {
                const ir_tensor *t = k < c->n_in ? c->in[k] : c->out[k - c->n_in];
                const ir_tensor *u = k < c->n_in ? sc->in[k] : sc->out[k - c->n_in];
                int64_t nt, nu;
                if (!same_tensor(t, u) &&
                    !same_const(t, mp, u, smp[j])) { /* dedup may keep another name */
                    snprintf(whyb, sizeof whyb,
                             "reads or writes '%s' where at the maximum it "
                             "has '%s' (a step folded or rewritten at those sizes only)",
                             u ? u->name : "nothing", t ? t->name : "nothing");
                    why = whyb;
                    if (t && mp->tensor[t->id].kind == MEMPLAN_CONST)
                        add_vary(dm, t->name); /* a constant folded from the dims */
                    break;
                }
                if (!t)
                    continue;
                if (mp->tensor[t->id].kind != smp[j]->tensor[u->id].kind) {
                    snprintf(whyb, sizeof whyb, "places '%s' otherwise", t->name);
                    why = whyb;
                    break;
                }
                nt = ir_shape_numel(&t->shape);
                nu = ir_shape_numel(&u->shape);
                if (nu > nt) {
                    snprintf(whyb, sizeof whyb, "has a bigger '%s' than at the maximum", t->name);
                    why = whyb;
                } else if (mp->tensor[t->id].kind == MEMPLAN_CONST &&
                           (nu != nt || (t->data != u->data &&
                                         memcmp(t->data, u->data,
                                                (size_t)nt * ir_dtype_size(t->dtype)) != 0))) {
                    snprintf(whyb, sizeof whyb,
                             "reads the constant '%s', whose values depend "
                             "on the dims (computed from an input's shape at compile time)",
                             t->name);
                    why = whyb;
                    add_vary(dm, t->name);
                }
            }
            if (why && dm->n_vary > n_vary) { /* every such constant named, then refused */
                if (!vary_msg[0])
                    snprintf(vary_msg, sizeof vary_msg,
                             "--dim ranges: at %s, %s %s; bind "
                             "those dims to one value",
                             at, call_label(c, i, label, sizeof label), why);
                n_vary = dm->n_vary;
            } else if (why) {
                diag_error(d, "--dim ranges: at %s, %s %s; bind those dims to one value", at,
                           call_label(c, i, label, sizeof label), why);
                return -1;
            }
        }
    }
    if (vary_msg[0]) {
        diag_error(d, "%s", vary_msg);
        return -1;
    }
    return 0;
}

int
cg_dims_fit(arena *a, const ir_graph *g, kprog *kp, const memplan *mp, const ir_graph *const *sg,
            const kprog *const *skp, const memplan *const *smp, int ns,
            const int64_t (*sv)[CG_DIMS_MAX], cg_dims *dm, diag *d)
{
    fitter f;
    int i, j, k, m;
    const ir_tensor *ts[CG_DIMS_SAMPLES_MAX];
    memset(&f, 0, sizeof f);
    f.dm = dm;
    f.ns = ns;
    f.sv = sv;
    if (ns > CG_DIMS_SAMPLES_MAX || dm->n > CG_DIMS_MAX)
        return -1;
    for (k = 0; k < dm->n; k++)
        f.lo[k] = fit_lo(dm, k);
    dm->want_dense = 0;
    f.want_dense = &dm->want_dense;
    for (m = 0; m < (1 << dm->n); m++) {
        f.corner[m] = -1;
        if (m == (1 << dm->n) - 1)
            f.corner[m] = ns;
        for (j = 0; j < ns && f.corner[m] < 0; j++) {
            for (k = 0; k < dm->n; k++)
                if (sv[j][k] != ((m & (1 << k)) ? dm->max[k] : f.lo[k]))
                    break;
            if (k == dm->n)
                f.corner[m] = j;
        }
        if (f.corner[m] < 0) {
            diag_error(d, "internal error: --dim ranges: corner %d not sampled", m);
            return -1;
        }
    }
    dm->n_vary = 0;
    if (same_structure(&f, g, kp, mp, sg, skp, smp, dm, d) < 0)
        return -1;
    dm->call_params = arena_calloc(a, (size_t)kp->n_calls + 1, sizeof *dm->call_params);
    dm->call_size = arena_calloc(a, (size_t)kp->n_calls + 1, sizeof *dm->call_size);
    for (i = 0; i < kp->n_calls; i++) {
        kp->calls[i].dyn = 0;
        if (fit_call(a, &f, kp, skp, i, dm, d) < 0)
            return -1;
    }
    /* a wavefront's kernel (codegen/llvm/wave.c) takes the run's T and N; a group with any
     * other size that varies runs layer by layer, each call in its own kernel (the plan's
     * buffers stay valid: a group only kept them live longer) */
    for (i = j = 0; i < kp->n_waves; i++) {
        const kp_wave *w = &kp->waves[i];
        int c, other = 0;
        for (c = w->first; c <= w->last; c++) {
            const kp_call *kc = &kp->calls[c];
            unsigned ok = kc->kind == KP_RNN_REC    ? KP_DYN_SEQ_LEN | KP_DYN_BATCH
                          : kc->kind == KP_RNN_PROJ ? KP_DYN_ROWS
                          : kc->kind == KP_COPY     ? KP_DYN_OTHER /* its rows, done inside */
                                                    : 0;
            other |= (kc->dyn & ~ok) != 0;
        }
        if (!other)
            kp->waves[j++] = *w;
    }
    kp->n_waves = j;
    dm->in_shape = arena_calloc(a, (size_t)g->n_inputs + 1, sizeof *dm->in_shape);
    dm->out_shape = arena_calloc(a, (size_t)kp->n_outputs + 1, sizeof *dm->out_shape);
    for (i = 0; i < g->n_inputs; i++) {
        for (j = 0; j < ns; j++)
            ts[j] = sg[j]->n_inputs == g->n_inputs ? sg[j]->inputs[i] : g->inputs[i];
        if (!(dm->in_shape[i] = fit_shape(a, &f, g->inputs[i], ts, "input", d)))
            return -1;
    }
    for (i = 0; i < kp->n_outputs; i++) {
        for (j = 0; j < ns; j++)
            ts[j] = skp[j]->outputs[i];
        if (!(dm->out_shape[i] = fit_shape(a, &f, kp->outputs[i], ts, "output", d)))
            return -1;
    }
    /* where the .npy driver reads each dim: an input axis that is exactly it */
    for (k = 0; k < dm->n; k++) {
        char want[32];
        snprintf(want, sizeof want, "dims[%d]", k);
        dm->in_of[k] = -1;
        for (i = 0; i < g->n_inputs && dm->in_of[k] < 0; i++) {
            const char *s = dm->in_shape[i] + 1;
            int axis = 0;
            while (*s && *s != '}') {
                size_t l = strcspn(s, ",}");
                if (l == strlen(want) && strncmp(s, want, l) == 0) {
                    dm->in_of[k] = i;
                    dm->in_axis[k] = axis;
                    break;
                }
                s += l;
                s += strspn(s, ", ");
                axis++;
            }
        }
        if (dm->in_of[k] < 0) {
            diag_error(d,
                       "--dim=%s=%lld..%lld: no input of the model has an axis of exactly "
                       "'%s', so a run could not tell its value from its inputs; bind it "
                       "to one value",
                       dm->name[k], (long long)dm->min[k], (long long)dm->max[k], dm->name[k]);
            return -1;
        }
    }
    return 0;
}
