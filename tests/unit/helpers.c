/*
 * helpers.c — see helpers.h.
 */
#include "helpers.h"

#include <math.h>
#include <stdio.h>

int
helpers_allclose(const float *got, const float *want, size_t n, float rtol, float atol)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (!(fabsf(got[i] - want[i]) <= atol + rtol * fabsf(want[i]))) {
            fprintf(stderr, "element %zu: got %.9g want %.9g\n", i, (double)got[i],
                    (double)want[i]);
            return 0;
        }
    }
    return 1;
}
