/*
 * helpers.h — shared test helpers: float comparison, and the fixture corpus
 * (tests/fixtures/cases/<case>: model.onnx, inputs.txt, expected/*.npy from ONNX Runtime).
 */
#ifndef LSTMC_TEST_HELPERS_H
#define LSTMC_TEST_HELPERS_H

#include "ir.h"
#include "lstmc_rt_npy.h"

#include <stddef.h>

#define HELPERS_FIXTURES LSTMC_SOURCE_DIR "/tests/fixtures/cases"

/* 1 when |got - want| <= atol + rtol*|want| for all n elements; prints the first miss. */
int helpers_allclose(const float *got, const float *want, size_t n, float rtol, float atol);

/* The .npy at path read into a; NULL when it cannot be read. */
void *helpers_load_npy(arena *a, const char *path, lstmc_npy_info *info);

/* Fixture case c imported and prepared with its inputs' shapes bound; inputs[i] receives
 * graph input i's data. NULL on failure (d holds why). */
ir_graph *helpers_prepare_case(arena *a, const char *c, diag *d, const void **inputs);

/* 1 when every graph output of g (outputs[i], from ir_eval) matches case c's ONNX Runtime
 * reference within rtol 1e-4, atol 1e-5 (integers exactly); prints the first miss with tag. */
int helpers_outputs_match(arena *a, const char *c, const ir_graph *g, void *const *outputs,
                          const char *tag);

/* How helpers_every_fixture runs each case: the pass list, the target profile (NULL: none),
 * at most one pass disabled (NULL: none), and count (NULL: none), called on every live node
 * after the passes, whose results are summed in n_counted. */
typedef struct helpers_sweep {
    const char *passes, *target, *disable;
    int (*count)(const ir_node *n);
    int n_counted;
} helpers_sweep;

/* Every case of the fixture corpus through sw's passes and ir_eval, against its reference
 * (as helpers_outputs_match). Returns the number of cases; *bad gets the failing ones. */
int helpers_every_fixture(helpers_sweep *sw, int *bad);

/* The nth live node of op in g, or NULL. */
const ir_node *helpers_find_op(const ir_graph *g, ir_op op, int nth);

/* A linear congruential step of *s as a float in [-1, 1): fixed test data from a seed. */
float helpers_frand(unsigned *s);

/* kp's LLVM kernels for target t (NULL: the host) on nt threads, compiled into WORK/tag,
 * linked (with rt_pool.c when nt > 1, and the link arguments extra, or NULL) into t.so and
 * opened with dlopen; the pool started with nt threads. Asserts every call became a kernel. */
struct kprog;
struct target;
void *helpers_llvm_so(struct kprog *kp, const char *work, const char *tag, const struct target *t,
                      int nt, const char *extra, unsigned char *handled);

/* n such values times scale in a malloc'd array (the caller frees it). */
float *helpers_rand_vec(size_t n, unsigned *s, float scale);

#endif
