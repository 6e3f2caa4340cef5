/*
 * npycmp.c — compare a .npy produced by lstmc with a reference .npy:
 *
 *   npycmp GOT.npy WANT.npy [RTOL ATOL]
 *
 * Same dtype and shape required; floats must satisfy |got - want| <= atol + rtol*|want|
 * (numpy.allclose, defaults rtol 1e-4, atol 1e-5), integers must be equal. Prints the worst
 * element; exit 0 when close, 1 otherwise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lstmc_rt.h"
#include "lstmc_rt_npy.h"

static void *
load(const char *path, lstmc_npy_info *info)
{
    char err[256];
    void *buf;
    if (lstmc_npy_info_read(path, info, err, sizeof err) != 0) {
        fprintf(stderr, "npycmp: %s: %s\n", path, err);
        return NULL;
    }
    buf = malloc(info->n_bytes ? info->n_bytes : 1);
    if (!buf || lstmc_npy_read_data(path, info, buf, info->n_bytes ? info->n_bytes : 1, err,
                                    sizeof err) != 0) {
        fprintf(stderr, "npycmp: %s: %s\n", path, buf ? err : "out of memory");
        free(buf);
        return NULL;
    }
    return buf;
}

static double
get(const void *p, int32_t dt, int64_t i)
{
    switch (dt) {
    case LSTMC_RT_F32: return ((const float *)p)[i];
    case LSTMC_RT_I64: return (double)((const int64_t *)p)[i];
    case LSTMC_RT_I32: return ((const int32_t *)p)[i];
    default: return ((const unsigned char *)p)[i];
    }
}

int
main(int argc, char **argv)
{
    lstmc_npy_info gi, wi;
    void *g, *w;
    double rtol = 1e-4, atol = 1e-5, worst = 0;
    int64_t i, worst_i = -1, bad = 0;
    int k;
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: npycmp GOT.npy WANT.npy [RTOL ATOL]\n");
        return 2;
    }
    if (argc == 5) {
        rtol = atof(argv[3]);
        atol = atof(argv[4]);
    }
    g = load(argv[1], &gi);
    w = load(argv[2], &wi);
    if (!g || !w)
        return 1;
    if (gi.dtype != wi.dtype || gi.rank != wi.rank) {
        fprintf(stderr, "npycmp: %s: dtype/rank %d/%d, want %d/%d\n", argv[1], gi.dtype, gi.rank,
                wi.dtype, wi.rank);
        return 1;
    }
    for (k = 0; k < gi.rank; k++) {
        if (gi.dims[k] != wi.dims[k]) {
            fprintf(stderr, "npycmp: %s: dim %d is %lld, want %lld\n", argv[1], k,
                    (long long)gi.dims[k], (long long)wi.dims[k]);
            return 1;
        }
    }
    for (i = 0; i < gi.n_elems; i++) {
        double a = get(g, gi.dtype, i), b = get(w, wi.dtype, i);
        double err = fabs(a - b), lim = gi.dtype == LSTMC_RT_F32 ? atol + rtol * fabs(b) : 0;
        if (!(err <= lim)) {
            bad++;
            if (!(err <= worst) || worst_i < 0) {
                worst = err;
                worst_i = i;
            }
        }
    }
    if (bad) {
        fprintf(stderr, "npycmp: %s: %lld of %lld elements differ; worst at %lld: got %.9g want "
                        "%.9g\n",
                argv[1], (long long)bad, (long long)gi.n_elems, (long long)worst_i,
                get(g, gi.dtype, worst_i), get(w, wi.dtype, worst_i));
    } else {
        printf("npycmp: %s: %lld elements match\n", argv[1], (long long)gi.n_elems);
    }
    free(g);
    free(w);
    return bad ? 1 : 0;
}
