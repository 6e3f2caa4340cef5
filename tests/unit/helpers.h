/*
 * helpers.h — shared test helpers: a fresh arena + diag per test, float comparison.
 */
#ifndef LSTMC_TEST_HELPERS_H
#define LSTMC_TEST_HELPERS_H

#include <stddef.h>

/* 1 when |got - want| <= atol + rtol*|want| for all n elements; prints the first miss. */
int helpers_allclose(const float *got, const float *want, size_t n, float rtol, float atol);

#endif
