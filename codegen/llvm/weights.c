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
#include "llvm_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_ident.h"
#include "memplan.h"

#ifdef LSTMC_HAVE_LLVM

#include <llvm-c/Target.h>

/* Alignment of every weight global (bytes): the cache line of the C writer's arrays. */
#define WEIGHTS_ALIGN 64

/* A global for every constant of g (mp) under prefix; with shared_g, only those that
 * shared_g (shared_mp) does not hold already. 0, or -1 out of memory. */
static int
add_globals(LLVMModuleRef m, LLVMContextRef cx, const ir_graph *g, const memplan *mp,
            const char *prefix, const ir_graph *shared_g, const memplan *shared_mp,
            const cg_options *o)
{
    char sym[CG_IDENT_MAX];
    int i;
    for (i = 0; i < g->n_tensors; i++) {
        const ir_tensor *t = g->tensors[i];
        int64_t n;
        size_t bytes;
        LLVMValueRef init, gv;
        char *zero = NULL;
        if (mp->tensor[i].kind != MEMPLAN_CONST ||
            (shared_g && cg_stream_same(o, shared_g, shared_mp, t) >= 0))
            continue;
        n = ir_shape_numel(&t->shape);
        /* no elements: one zero element, as the C writer's "[1] = {0}" */
        bytes = (size_t)(n > 0 ? n : 1) * ir_dtype_size(t->dtype);
        if (n <= 0 || !t->data) {
            zero = calloc(bytes + 1, 1);
            if (!zero)
                return -1;
        }
        init = LLVMConstStringInContext2(cx, zero ? zero : (const char *)t->data, bytes, 1);
        free(zero);
        cg_const_ident(sym, prefix, g, i);
        gv = LLVMAddGlobal(m, LLVMTypeOf(init), sym);
        LLVMSetInitializer(gv, init);
        LLVMSetGlobalConstant(gv, 1);
        LLVMSetLinkage(gv, LLVMExternalLinkage);
        LLVMSetAlignment(gv, WEIGHTS_ALIGN);
    }
    return 0;
}

int
cg_llvm_weights(const ir_graph *g, const memplan *mp, const ir_graph *sg, const memplan *smp,
                const cg_options *o, diag *d)
{
    llvm_target lt;
    LLVMContextRef cx;
    LLVMModuleRef m;
    LLVMTargetDataRef td;
    char path[4096], tmp[4200], sname[160], *err = NULL;
    int rc = -1;

    if (snprintf(path, sizeof path, "%s/%s_weights.o", o->outdir, o->name) >= (int)sizeof path) {
        diag_error(d, "output path '%s/%s_weights.o' is too long", o->outdir, o->name);
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
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
    cx = LLVMContextCreate();
    m = LLVMModuleCreateWithNameInContext("weights", cx);
    llvm_module_for(m, &lt);
    if (add_globals(m, cx, g, mp, o->name, NULL, NULL, o) < 0 ||
        (sg && add_globals(m, cx, sg, smp, sname, g, mp, o) < 0)) {
        diag_error(d, "out of memory");
        goto out;
    }
    if (LLVMTargetMachineEmitToFile(lt.tm, m, tmp, LLVMObjectFile, &err)) {
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
