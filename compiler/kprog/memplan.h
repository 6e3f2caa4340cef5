/*
 * memplan.h — static memory plan: every intermediate buffer of a kernel program gets an
 * offset in one arena whose size is a compile-time constant (DESIGN.md step 5).
 *
 * Buffers whose lifetimes (first to last call touching them) do not overlap share bytes;
 * the placement is first-fit by start time (ggml-alloc's consumer-count reuse, in
 * interval form). Offsets are aligned to LSTMC_RT_ALIGN.
 */
#ifndef LSTMC_MEMPLAN_H
#define LSTMC_MEMPLAN_H

#include <stdint.h>

typedef struct arena arena;
typedef struct diag diag;
typedef struct ir_graph ir_graph;
typedef struct kprog kprog;

typedef enum memplan_kind {
    MEMPLAN_NONE = 0, /* not used by any call */
    MEMPLAN_INPUT,    /* the caller's input buffer `index` */
    MEMPLAN_OUTPUT,   /* the caller's output buffer `index` */
    MEMPLAN_CONST,    /* a weight array, `index` = tensor id */
    MEMPLAN_ARENA     /* `offset` bytes into the arena */
} memplan_kind;

typedef struct memplan_loc {
    memplan_kind kind;
    int index;
    int64_t offset;
} memplan_loc;

typedef struct memplan {
    memplan_loc *tensor;   /* by tensor id, g->n_tensors entries */
    int64_t *scratch;      /* by call index: arena offset of the call's scratch, -1 if none */
    int64_t arena_size;    /* bytes, a multiple of LSTMC_RT_ALIGN (0 when nothing is needed) */
    int64_t naive_size;    /* bytes if nothing were shared, for reports */
} memplan;

/*
 * Plan kp over g's tensors. kp->outputs says which tensor fills each graph output slot.
 * Returns 0, or -1 (reported through d) when the arena would not fit in int64 bytes.
 */
int memplan_run(arena *a, const ir_graph *g, const kprog *kp, memplan *mp, diag *d);

#endif /* LSTMC_MEMPLAN_H */
