/*
 * test_dims.c — issue 21: the sample points of ranged dims and the fit of the host code's
 * numbers (codegen/c/dims.c) on hand-made programs whose sizes are known formulas of T and
 * N, checked against those formulas (and refused where no polynomial linear in each dim
 * fits).
 */
#include "arena.h"
#include "codegen.h"
#include "diag.h"
#include "ir.h"
#include "kprog.h"
#include "memplan.h"

#include <criterion/criterion.h>
#include <string.h>

/* The box T in 1..9, N in 1..3 of an input X [T, N, 4]. */
static cg_dims
box(void)
{
    cg_dims dm;
    memset(&dm, 0, sizeof dm);
    dm.n = 2;
    dm.name[0] = "seq";
    dm.name[1] = "batch";
    dm.min[0] = 1;
    dm.max[0] = 9;
    dm.min[1] = 1;
    dm.max[1] = 3;
    return dm;
}

Test(dims, sample_points)
{
    cg_dims dm = box();
    int64_t sv[CG_DIMS_SAMPLES_MAX][CG_DIMS_MAX];
    int n = cg_dims_samples(&dm, sv), j, corners = 0, all_max = 0, k;
    /* T in {1, 2, 9} x N in {1, 2, 3} (N's 2: MIN 1 with MAX 3), less (9, 3): 8 corners,
     * then MIN + 1 (2, 2) already there, the middle (5, 2), MAX - 1 (8, 2), a mix (2, 2) */
    for (j = 0; j < n; j++) {
        int64_t t = sv[j][0], b = sv[j][1];
        cr_assert(t >= 1 && t <= 9 && b >= 1 && b <= 3, "sample (%lld, %lld) outside", (long long)t,
                  (long long)b);
        corners += (t == 1 || t == 2 || t == 9) && (b >= 1 && b <= 3);
        all_max += t == 9 && b == 3;
        for (k = 0; k < j; k++)
            cr_assert(sv[k][0] != t || sv[k][1] != b, "sample (%lld, %lld) twice", (long long)t,
                      (long long)b);
    }
    cr_assert_eq(all_max, 0, "the all-MAX point is the program itself, not a sample");
    cr_assert_eq(corners, 8);
    cr_assert_eq(n, 10, "8 corners + the middle (5, 2) + MAX - 1 (8, 2): %d", n);
}

/* A program of one KP_FILL of f(T, N) elements at (T, N), over graph g. */
static kprog *
fill_prog(arena *a, int64_t n)
{
    kprog *kp = arena_calloc(a, 1, sizeof *kp);
    kp->calls = arena_calloc(a, 1, sizeof *kp->calls);
    kp->n_calls = kp->cap_calls = 1;
    kp->calls[0].kind = KP_FILL;
    kp->calls[0].p.fill.n = n;
    kp->calls[0].p.fill.elem_size = 4;
    kp->calls[0].n_out = 1;
    return kp;
}

static ir_graph *
graph_at(arena *a, int64_t T, int64_t N)
{
    ir_graph *g = ir_graph_new(a, "g", "g.onnx");
    ir_shape s = {3, {T, N, 4}, {"seq", "batch", NULL}};
    ir_graph_add_input(g, ir_tensor_new(g, "X", IR_DT_F32, &s));
    return g;
}

/* Fit the fill sizes f(T, N) over the box (dense: the samples a floor needs); 0 or -1,
 * *size the expression, *want_dense whether the fit asked for dense samples. */
static int
fit_fill_at(int64_t (*f)(int64_t, int64_t), int dense, const char **size, const char **in_shape,
            const char **err, int *want_dense)
{
    arena *a = arena_new(0);
    diag *d = diag_new(a, "g.onnx", NULL);
    static cg_dims dm;
    int64_t sv[CG_DIMS_SAMPLES_MAX][CG_DIMS_MAX];
    const ir_graph *sg[CG_DIMS_SAMPLES_MAX];
    const kprog *skp[CG_DIMS_SAMPLES_MAX];
    const memplan *smp[CG_DIMS_SAMPLES_MAX];
    memplan *mp = arena_calloc(a, 1, sizeof *mp);
    ir_graph *g = graph_at(a, 9, 3);
    kprog *kp = fill_prog(a, f(9, 3));
    int n, j, rc;
    dm = box();
    dm.dense = dense;
    n = cg_dims_samples(&dm, sv);
    mp->tensor = arena_calloc(a, 4, sizeof *mp->tensor);
    for (j = 0; j < n; j++) {
        sg[j] = graph_at(a, sv[j][0], sv[j][1]);
        skp[j] = fill_prog(a, f(sv[j][0], sv[j][1]));
        smp[j] = mp;
    }
    rc = cg_dims_fit(a, g, kp, mp, sg, skp, smp, n, (const int64_t(*)[CG_DIMS_MAX])sv, &dm, d);
    *size = rc == 0 && dm.call_size[0] ? strdup(dm.call_size[0]) : NULL;
    *in_shape = rc == 0 ? strdup(dm.in_shape[0]) : NULL;
    *err = strdup(diag_text(d));
    *want_dense = dm.want_dense;
    if (rc == 0) /* a FILL's size is no field an LLVM kernel reads */
        cr_assert_eq(kp->calls[0].dyn, *size ? (unsigned)KP_DYN_OTHER : 0u);
    arena_free(a);
    return rc;
}

static int
fit_fill(int64_t (*f)(int64_t, int64_t), const char **size, const char **in_shape, const char **err)
{
    int want_dense;
    return fit_fill_at(f, 0, size, in_shape, err, &want_dense);
}

static int64_t
bilinear(int64_t t, int64_t n)
{
    return 3 * t * n + 2;
}
static int64_t
affine(int64_t t, int64_t n)
{
    return 2 * t - 1 + 0 * n;
}
static int64_t
square(int64_t t, int64_t n)
{
    return t * t * n;
}
static int64_t
cube(int64_t t, int64_t n)
{
    return t * t * t * n;
}
static int64_t
halves(int64_t t, int64_t n)
{
    return ((t - 1) / 2 + 1) * n;
}
static int64_t
fixed(int64_t t, int64_t n)
{
    return 7 + 0 * t * n;
}

Test(dims, fit_polynomials)
{
    const char *size, *shape, *err;
    cr_assert_eq(fit_fill(bilinear, &size, &shape, &err), 0, "%s", err);
    cr_assert_str_eq(size, "(dims[0] * dims[1] * 3 + 2)");
    cr_assert_str_eq(shape, "{dims[0], dims[1], 4}");
    cr_assert_eq(fit_fill(affine, &size, &shape, &err), 0, "%s", err);
    cr_assert_str_eq(size, "(dims[0] * 2 - 1)");
    cr_assert_eq(fit_fill(fixed, &size, &shape, &err), 0, "%s", err);
    cr_assert_null(size, "a size that does not vary stays a constant: %s", size);
}

Test(dims, fit_refuses_what_is_no_polynomial_it_knows)
{
    const char *size, *shape, *err;
    int want_dense;
    /* sparse samples: T * T * N is refused, asking for dense ones */
    cr_assert_eq(fit_fill_at(square, 0, &size, &shape, &err, &want_dense), -1);
    cr_assert(want_dense);
    cr_assert(strstr(err, "is no polynomial of the ranged dims, linear in each"), "%s", err);
    cr_assert(strstr(err, "(243 at the maximum)"), "%s", err);
    /* dense: a cube is still refused */
    cr_assert_eq(fit_fill_at(cube, 1, &size, &shape, &err, &want_dense), -1);
    cr_assert(strstr(err, "(2187 at the maximum)"), "%s", err);
}

/* A stride-2 convolution's output length: sparse samples ask for dense ones, on which the
 * floor of T is found; a [T, T] matrix's size is a square of T. */
Test(dims, fit_floors_and_squares_on_dense_samples)
{
    const char *size, *shape, *err;
    int want_dense;
    cr_assert_eq(fit_fill_at(halves, 0, &size, &shape, &err, &want_dense), -1);
    cr_assert(want_dense, "a number that is no polynomial asks for dense samples");
    cr_assert_eq(fit_fill_at(halves, 1, &size, &shape, &err, &want_dense), 0, "%s", err);
    cr_assert_str_eq(size, "((dims[0] + 1) / 2) * dims[1]");
    cr_assert_eq(fit_fill_at(square, 1, &size, &shape, &err, &want_dense), 0, "%s", err);
    cr_assert_str_eq(size, "dims[0] * dims[0] * dims[1]");
}
