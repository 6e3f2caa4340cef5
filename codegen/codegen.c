/*
 * codegen.c — cg_write: the kernel backends write their kernels (LLVM objects, OpenCL
 * programs) and say which calls they took, then the portable C host code (codegen/c/) is
 * written around them.
 */
#include "codegen.h"

#include <stdio.h>
#include <stdlib.h>

#include "c_impl.h"
#include "diag.h"
#include "kprog.h"
#include "stream.h"

/* Remove OUTDIR/<name>_kernels.o left by an earlier compile when nothing needs it now. */
static void
remove_stale_object(const cg_options *o, const char *name)
{
    char stale[4200];
    snprintf(stale, sizeof stale, "%s/%s_kernels.o", o->outdir, name);
    remove(stale);
}

int
cg_write(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o, diag *d)
{
    unsigned char *handled = NULL, *handled_s = NULL;
    int n_llvm = 0, n_llvm_s = 0, rc = 0;
    char sname[160];

    if (!cg_name_ok(o->name)) {
        diag_error(d, "library name '%s' is not a C identifier (letters, digits, _)", o->name);
        return -1;
    }
    if (cg_c_ensure_dir(o->outdir, d) < 0)
        return -1;
    snprintf(sname, sizeof sname, "%s_stream", o->name);
    if (o->opencl) { /* the recurrent layers on the GPU; the rest keeps the C kernels */
        unsigned char *cpu = calloc((size_t)kp->n_calls + 1, 1);
        handled = calloc((size_t)kp->n_calls + 1, 1);
        if (!handled || !cpu) {
            diag_error(d, "out of memory");
            rc = -1;
        } else if (o->llvm) { /* the policy's CPU side: LLVM kernels <name>_cpu_k<i> */
            cg_options oc = *o;
            char cpu_name[96];
            snprintf(cpu_name, sizeof cpu_name, "%s_cpu", o->name);
            oc.name = cpu_name;
            n_llvm = cg_llvm_kernels(kp, &oc, cpu, d);
            rc = n_llvm < 0 ? -1 : 0;
        }
        if (rc == 0 && cg_opencl_write(g, kp, mp, o, handled, cpu, d) < 0)
            rc = -1;
        free(cpu);
        if (rc < 0) {
            free(handled);
            return -1;
        }
    } else if (o->llvm) {
        handled = calloc((size_t)kp->n_calls + 1, 1);
        if (!handled) {
            diag_error(d, "out of memory");
            return -1;
        }
        n_llvm = cg_llvm_kernels(kp, o, handled, d);
        if (n_llvm < 0) {
            free(handled);
            return -1;
        }
        if (n_llvm == 0) /* nothing for LLVM: no object, the Makefile does not name one */
            remove_stale_object(o, o->name);
    }
    if (o->llvm && cg_c_stream_on(o)) { /* the step program's kernels: <name>_stream_k<i> */
        cg_options so = *o;
        so.name = sname;
        so.threads = 1; /* one step per call: a barrier would cost more than it saves */
        handled_s = calloc((size_t)o->stream->kp.n_calls + 1, 1);
        n_llvm_s = handled_s ? cg_llvm_kernels(&o->stream->kp, &so, handled_s, d) : -1;
        if (n_llvm_s < 0) {
            if (!handled_s)
                diag_error(d, "out of memory");
            free(handled);
            free(handled_s);
            return -1;
        }
    }
    if (n_llvm_s == 0)
        remove_stale_object(o, sname);
    if (cg_c_write_header(g, kp, mp, o, d) < 0 || cg_c_write_weights(g, mp, o, d) < 0 ||
        cg_c_write_host(g, kp, mp, o, handled, handled_s, d) < 0 ||
        cg_c_write_driver(g, kp, o, d) < 0 ||
        cg_c_write_makefile(o, n_llvm, n_llvm_s, cg_c_pool_threads(kp, handled), d) < 0 ||
        cg_c_write_runtime(o, d) < 0 ||
        cg_size_report(g, kp, mp, o, cg_c_total_arena(mp, o), cg_c_stream_arena(o),
                       cg_c_state_bytes(o), cg_c_stream_weights(g, mp, o), d) < 0)
        rc = -1;
    free(handled);
    free(handled_s);
    return rc;
}
