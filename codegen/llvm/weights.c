/*
 * weights.c — the constant tensors of the const placement as an object file for the target
 * (issue 19): OUTDIR/<name>_weights.o, a module of one constant global per tensor, written
 * by LLVM as the kernels are. Building the output folder then costs what copying the bytes
 * costs: cc parsed <name>_weights.c's float text at about 1 s and 50 MB of memory per MB of
 * weights (bench/RESULTS.md, issue 19). The globals are what the C writer's arrays were:
 * the same names (cg_const_ident), external, constant, aligned to 64 bytes (a cache line of
 * their own, as LSTMC_WEIGHTS_ALIGNED gave them), the tensor's bytes in C order in the
 * kernels' layout, so <name>.c links against them unchanged.
 */
#include "cg_ident.h"
#include "llvm_impl.h"
#include "memplan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LSTMC_HAVE_LLVM

#include <llvm-c/Target.h>

/* Alignment of every weight global (bytes): the cache line of the C writer's arrays. */
#define WEIGHTS_ALIGN 64

/* Weight bytes per object: LLVM holds a global's bytes twice while it writes it (the
 * constant, then the object's section), so objects of at most this much (a bigger tensor
 * alone) bound what writing costs in memory, whatever the model's size. */
#define WEIGHTS_CHUNK ((size_t)16 << 20)

/* One global: tensor i of g, named under prefix. */
typedef struct wglobal {
    const ir_graph *g;
    int i;
    const char *prefix;
    size_t bytes;
} wglobal;

/* The globals of every constant of g (mp) under prefix, appended to w[*n]; with shared_g,
 * only those that shared_g (shared_mp) does not hold already. */
static void
list_globals(wglobal *w, int *n, const ir_graph *g, const memplan *mp, const char *prefix,
             const ir_graph *shared_g, const memplan *shared_mp, const cg_options *o)
{
    int i;
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        int64_t ne;
        if (mp->tensor[i].kind != MEMPLAN_CONST ||
            (shared_g && cg_stream_same(o, shared_g, shared_mp, t) >= 0))
            continue;
        ne = ir_shape_numel(&t->shape);
        /* no elements: one zero element, as the C writer's "[1] = {0}" */
        w[*n].g = g;
        w[*n].i = i;
        w[*n].prefix = prefix;
        w[*n].bytes = (size_t)(ne > 0 ? ne : 1) * ir_dtype_size(t->dtype);
        (*n)++;
    }
}

/* Globals w[0..n) in a module of their own, written to path (through path.tmp). 0, or -1
 * after reporting. */
static int
write_object(const llvm_target *lt, const wglobal *w, int n, const char *path, diag *d)
{
    char sym[CG_IDENT_MAX], tmp[4200], *err = NULL;
    LLVMContextRef cx = LLVMContextCreate();
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("weights", cx);
    int k, rc = -1;

    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    llvm_module_for(m, lt);
    for (k = 0; k < n; k++) {
        const ir_tensor *t = w[k].g->tensors[w[k].i];
        char *zero = NULL;
        LLVMValueRef init, gv;
        if (ir_shape_numel(&t->shape) <= 0 || !t->data) {
            zero = calloc(w[k].bytes + 1, 1);
            if (!zero) {
                diag_error(d, "out of memory");
                goto out;
            }
        }
        init = LLVMConstStringInContext2(cx, zero ? zero : (const char *)t->data, w[k].bytes, 1);
        free(zero);
        cg_const_ident(sym, w[k].prefix, w[k].g, w[k].i);
        gv = LLVMAddGlobal(m, LLVMTypeOf(init), sym);
        LLVMSetInitializer(gv, init);
        LLVMSetGlobalConstant(gv, 1);
        LLVMSetLinkage(gv, LLVMExternalLinkage);
        LLVMSetAlignment(gv, WEIGHTS_ALIGN);
    }
    if (LLVMTargetMachineEmitToFile(lt->tm, m, tmp, LLVMObjectFile, &err)) {
        diag_error(d, "cannot write '%s': %s", path, err ? err : "LLVM error");
        LLVMDisposeMessage(err);
        remove(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        diag_error(d, "cannot write '%s': %s", path, strerror(errno));
        remove(tmp);
        goto out;
    }
    rc = 0;
out:
    LLVMDisposeModule(m);
    LLVMContextDispose(cx);
    return rc;
}

int
cg_llvm_weights(const ir_graph *g, const memplan *mp, const ir_graph *sg, const memplan *smp,
                const cg_options *o, diag *d)
{
    llvm_target lt;
    LLVMTargetDataRef td;
    char path[4096], sname[160];
    wglobal *w;
    int n = 0, first, k, n_obj = 0, rc = -1;

    if (snprintf(path, sizeof path, "%s/%s_weights.o", o->outdir, o->name) >=
        (int)sizeof path - 16) {
        diag_error(d, "output path '%s/%s_weights.o' is too long", o->outdir, o->name);
        return -1;
    }
    snprintf(sname, sizeof sname, "%s_stream", o->name);
    if (llvm_target_open(o, &lt, d) < 0)
        return -1;
    td = LLVMCreateTargetDataLayout(lt.tm);
    if (LLVMByteOrder(td) == LLVMBigEndian) {
        diag_error(d,
                   "target '%s': '%s' is big-endian; lstmc writes weights in little-endian "
                   "byte order only",
                   o->target ? o->target : "host", lt.triple);
        LLVMDisposeTargetData(td);
        llvm_target_close(&lt);
        return -1;
    }
    LLVMDisposeTargetData(td);
    w = malloc(((size_t)g->n_tensors + (sg ? (size_t)sg->n_tensors : 0) + 1) * sizeof *w);
    if (!w) {
        diag_error(d, "out of memory");
        llvm_target_close(&lt);
        return -1;
    }
    list_globals(w, &n, g, mp, o->name, NULL, NULL, o);
    if (sg)
        list_globals(w, &n, sg, smp, sname, g, mp, o);
    /* <name>_weights.o, then <name>_weights1.o, ... of at most WEIGHTS_CHUNK bytes each */
    for (first = 0; first < n || n_obj == 0; n_obj++) {
        size_t bytes = 0;
        for (k = first; k < n && (k == first || bytes + w[k].bytes <= WEIGHTS_CHUNK); k++)
            bytes += w[k].bytes;
        if (n_obj)
            snprintf(path, sizeof path, "%s/%s_weights%d.o", o->outdir, o->name, n_obj);
        if (write_object(&lt, w + first, k - first, path, d) < 0)
            goto out;
        first = k;
    }
    for (k = n_obj;; k++) { /* the objects of an earlier compile of a bigger model */
        snprintf(path, sizeof path, "%s/%s_weights%d.o", o->outdir, o->name, k);
        if (remove(path) != 0)
            break;
    }
    rc = n_obj;
out:
    free(w);
    llvm_target_close(&lt);
    return rc;
}

#else /* !LSTMC_HAVE_LLVM */

int
cg_llvm_weights(const ir_graph *g, const memplan *mp, const ir_graph *sg, const memplan *smp,
                const cg_options *o, diag *d)
{
    (void)g;
    (void)mp;
    (void)sg;
    (void)smp;
    (void)o;
    diag_error(d, "--emit=llvm: this lstmc was built without LLVM (install llvm-19-dev and "
                  "rebuild), use --emit=c");
    return -1;
}

#endif
