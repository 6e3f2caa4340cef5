/*
 * builder.c — the LLVM emitter's control flow: counted loops whose counter lives in an entry
 * alloca, if blocks, and the start of a function (an entry block for the allocas, then the
 * body). The generator state and the one-line instruction helpers (ci, gepf, fadd, fma_, ...)
 * are in llvm_impl.h.
 */
#include "llvm_impl.h"

#ifdef LSTMC_HAVE_LLVM
#include <llvm-c/DebugInfo.h>
#endif

#ifdef LSTMC_HAVE_LLVM

/* --- loops --------------------------------------------------------------------------- */

LLVMValueRef
loop_begin(kg *g, kloop *l, LLVMValueRef start, LLVMValueRef end)
{
    LLVMBasicBlockRef body;
    l->var = entry_alloca(g, g->i64);
    l->end = end;
    LLVMBuildStore(g->b, start, l->var);
    l->cond = LLVMAppendBasicBlockInContext(g->cx, g->fn, "cond");
    body = LLVMAppendBasicBlockInContext(g->cx, g->fn, "body");
    l->exit = LLVMAppendBasicBlockInContext(g->cx, g->fn, "exit");
    LLVMBuildBr(g->b, l->cond);
    LLVMPositionBuilderAtEnd(g->b, l->cond);
    LLVMBuildCondBr(
        g->b, LLVMBuildICmp(g->b, LLVMIntSLT, LLVMBuildLoad2(g->b, g->i64, l->var, ""), end, ""),
        body, l->exit);
    LLVMPositionBuilderAtEnd(g->b, body);
    l->iv = LLVMBuildLoad2(g->b, g->i64, l->var, "");
    return l->iv;
}

void
loop_end(kg *g, kloop *l)
{
    LLVMBuildStore(g->b, add(g, l->iv, ci(g, 1)), l->var);
    LLVMBuildBr(g->b, l->cond);
    LLVMPositionBuilderAtEnd(g->b, l->exit);
}

/* loop_end with the loop marked "llvm.loop.unroll.disable": a loop whose body LLVM would
 * otherwise unroll completely and whose loads an enclosing loop would then hoist (and spill). */
void
loop_end_rolled(kg *g, kloop *l)
{
    LLVMMetadataRef tmp = LLVMTemporaryMDNode(g->cx, NULL, 0), ops[2], self;
    LLVMValueRef br;

    LLVMBuildStore(g->b, add(g, l->iv, ci(g, 1)), l->var);
    br = LLVMBuildBr(g->b, l->cond);
    ops[0] = tmp;
    ops[1] = LLVMMDStringInContext2(g->cx, "llvm.loop.unroll.disable", 24);
    ops[1] = LLVMMDNodeInContext2(g->cx, &ops[1], 1);
    self = LLVMMDNodeInContext2(g->cx, ops, 2);
    LLVMMetadataReplaceAllUsesWith(tmp, self);
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(g->cx, "llvm.loop", 9),
                    LLVMMetadataAsValue(g->cx, self));
    LLVMPositionBuilderAtEnd(g->b, l->exit);
}

/* if (c) { ... }: the then-block ends in a return; returns the block to continue in. */
LLVMBasicBlockRef
if_begin(kg *g, LLVMValueRef c)
{
    LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(g->cx, g->fn, "then");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->cx, g->fn, "join");
    LLVMBuildCondBr(g->b, c, then, join);
    LLVMPositionBuilderAtEnd(g->b, then);
    return join;
}

/* --- run-time dims (issue 21) ---------------------------------------------------------- */

/* The int64_t at byte offset off of the params struct at p: a dim the run sets (kp_call.dyn). */
LLVMValueRef
ld_param_i64(kg *g, LLVMValueRef p, size_t off)
{
    LLVMValueRef idx = ci(g, (int64_t)off);
    LLVMValueRef at = LLVMBuildInBoundsGEP2(g->b, LLVMInt8TypeInContext(g->cx), p, &idx, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(g->b, g->i64, at, "");
    LLVMSetAlignment(v, 8);
    return v;
}

/* Return LSTMC_RT_ERR_BAD_PARAMS from g->fn (a kernel returning lstmc_rt_status) unless
 * 0 <= v <= max, the size the code was compiled for (one unsigned compare). */
void
emit_dim_check(kg *g, LLVMValueRef v, int64_t max)
{
    LLVMBasicBlockRef join = if_begin(g, LLVMBuildICmp(g->b, LLVMIntUGT, v, ci(g, max), ""));
    LLVMBuildRet(g->b, LLVMConstInt(g->i32, LSTMC_RT_ERR_BAD_PARAMS, 0));
    LLVMPositionBuilderAtEnd(g->b, join);
}

/* --- functions --------------------------------------------------------------------------- */

/* Start function f: an entry block for the allocas and a "start" block the builder is at,
 * returned (the caller branches to it from the entry block when the body is done). */
LLVMBasicBlockRef
fn_begin(kg *g, LLVMValueRef f)
{
    LLVMBasicBlockRef body;
    g->fn = f;
    g->alloca_bb = LLVMAppendBasicBlockInContext(g->cx, f, "entry");
    body = LLVMAppendBasicBlockInContext(g->cx, f, "start");
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMPositionBuilderAtEnd(g->b, body);
    return body;
}

/* A new nounwind function fname of type fty, started (fn_begin). */
LLVMBasicBlockRef
fn_add(kg *g, const char *fname, LLVMTypeRef fty)
{
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMValueRef f = LLVMAddFunction(g->m, fname, fty);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(g->cx, nounwind, 0));
    return fn_begin(g, f);
}

#endif /* LSTMC_HAVE_LLVM */
