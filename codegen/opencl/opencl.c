/*
 * opencl.c — the OpenCL path of GPU targets (--target=pocl, tegra-x1, a profile with a
 * "gpu" section): every recurrent layer (KP_RNN, KP_RNN_PROJ, KP_RNN_REC) runs as OpenCL
 * kernels specialised to its shapes; every other call keeps its host C kernel.
 *
 *   OUTDIR/<name>.cl      the kernels (also embedded in <name>_ocl.c: the library is
 *                         standalone)
 *   OUTDIR/<name>_ocl.h   <name>_ocl_init / _release / _log / _device / _set_binary_cache
 *   OUTDIR/<name>_ocl.c   the host side: one function per offloaded call with the runtime
 *                         kernel's signature (<name>_k<i>, as the LLVM kernels), so the
 *                         schedule in <name>.c is unchanged
 *
 * Device memory (MobiRNN §3.2: preallocated once, at init) is two buffers: `wts`, the
 * weights the layers read, uploaded at init, and `mem`, a mirror of the host arena at the
 * same offsets (so memplan's sharing holds on the device too), then one region per graph
 * input and output, then each layer's state (h ping-pong, c, GRU z and r.h) and, for an
 * unsplit layer, its projection P. Every offset is a compile-time constant of the kernels.
 * Reduced-precision W and U (--weights, passes/lowp.c) go to `wts` in their storage
 * format (2 or 1 bytes a weight plus int8's row scales); the kernels convert them as they
 * read them and sum in fp32 (kernels/rnn.cl LOWP_AT).
 *
 * Host round trips: a tensor is uploaded only when the device does not hold it yet (graph
 * inputs, host-computed tensors) and downloaded only when a host call, a graph output or
 * a sequence_lens check needs it; a layer enqueues its T steps back to back and the queue
 * is finished only before a host call and at the end of the run.
 */
#include "opencl_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
cg_opencl_write(const ir_graph *g, const kprog *kp, const memplan *mp, const cg_options *o,
                unsigned char *handled, const unsigned char *cpu_llvm, diag *d)
{
    ocl_plan P;
    char cl_path[4200];
    FILE *f;
    int i, n_kern = 0, n = 0, rc = -1;

    memset(&P, 0, sizeof P);
    P.g = g;
    P.kp = kp;
    P.mp = mp;
    P.t = o->t ? o->t : target_resolve(o->target, d);
    if (!P.t || !P.t->gpu) {
        if (!diag_count(d))
            diag_error(d, "target '%s' has no GPU: no OpenCL code", o->target ? o->target : "?");
        return -1;
    }
    if (g->n_inputs > 64 || kp->n_outputs > 64) {
        diag_error(d, "the OpenCL path handles at most 64 graph inputs and outputs");
        return -1;
    }
    P.handled = handled;
    P.cpu_llvm = cpu_llvm;
    P.wg = P.t->gpu_work_group > 0 ? P.t->gpu_work_group : 64;
    if (P.wg > 1024)
        P.wg = 1024;
    for (P.ts = 16; P.ts > 1 && P.ts * P.ts > P.wg; P.ts /= 2)
        ;
    P.threads = (P.t->gpu_compute_units > 0 ? P.t->gpu_compute_units : 1) * P.wg;
    for (i = 0; i < kp->n_calls; i++) {
        const char *kn[6];
        handled[i] = (unsigned char)cg_opencl_handles(&kp->calls[i]);
        if (kp->calls[i].kind == KP_LSTM_DRS &&
            ocl_drs_local_bytes(&P, &kp->calls[i]) > ocl_local_limit(&P))
            handled[i] = 0; /* h, o, gates and R do not fit local memory: the host kernel */
        if (handled[i]) {
            n++;
            n_kern += ocl_kernel_names(&P, &kp->calls[i], kn);
        }
    }
    P.const_off = malloc(sizeof *P.const_off * ((size_t)g->n_tensors + 1));
    P.state_off = malloc(sizeof *P.state_off * ((size_t)kp->n_calls + 1));
    if (!P.const_off || !P.state_off) {
        diag_error(d, "out of memory");
        goto out;
    }
    for (i = 0; i < g->n_tensors; i++)
        P.const_off[i] = -1;
    if (ocl_plan_memory(&P, d) < 0)
        goto out;
    snprintf(cl_path, sizeof cl_path, "%s/%s.cl", o->outdir, o->name);
    f = fopen(cl_path, "w");
    if (!f) {
        diag_error(d, "cannot write '%s': %s", cl_path, strerror(errno));
        goto out;
    }
    ocl_put_program(f, &P, o);
    if (ferror(f) | fclose(f)) {
        diag_error(d, "cannot write '%s'", cl_path);
        goto out;
    }
    if (ocl_write_header(o, d) < 0 || ocl_write_host(&P, o, cl_path, n_kern, d) < 0)
        goto out;
    rc = n;
out:
    free(P.const_off);
    free(P.state_off);
    return rc;
}
