/*
 * codegen.c — the kernel backends' table and cg_write: the backend writes its kernels
 * (LLVM objects, OpenCL programs) and says which calls it took, then the portable C host
 * code (codegen/c/) is written around them. Adding a backend: a codegen/X/ folder, one row
 * here, one CMake line, one column in tests/backends (docs/ARCHITECTURE.md).
 */
#include "codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_ident.h"
#include "diag.h"
#include "elstm.h"
#include "ir.h"
#include "kprog.h"
#include "stream.h"
#include "target.h"

/* Remove OUTDIR/<name><suffix> left by an earlier compile when nothing needs it now. */
static void
remove_stale(const cg_options *o, const char *name, const char *suffix)
{
    char stale[4200];
    snprintf(stale, sizeof stale, "%s/%s%s", o->outdir, name, suffix);
    remove(stale);
}

static void
remove_stale_object(const cg_options *o, const char *name)
{
    remove_stale(o, name, "_kernels.o");
}

/* --- weights both programs read ------------------------------------------------------- */

/* 1 for the weights slot of a recurrent call (in[1] of lstmc.RnnRec / RnnProj), which the
 * CPU backend may lay out for its kernels (kp_wlayout). */
static int
weight_slot(const kp_call *c, int j)
{
    return j == 1 && (c->kind == KP_RNN_REC || c->kind == KP_RNN_PROJ);
}

/* 1 when every argument of kp and skp pointing at p is a weight slot. */
static int
only_weights_read(const kprog *kp, const kprog *skp, const void *p)
{
    const kprog *k[2] = {kp, skp};
    int i, c, j;
    for (i = 0; i < 2; i++)
        for (c = 0; k[i] && c < k[i]->n_calls; c++) {
            const kp_call *x = &k[i]->calls[c];
            for (j = 0; j < x->n_in + x->n_out; j++) {
                const ir_tensor *t = j < x->n_in ? x->in[j] : x->out[j - x->n_in];
                if (t && t->data == p && !weight_slot(x, j))
                    return 0;
            }
        }
    return 1;
}

/*
 * The whole-sequence and step programs read one copy of their packed weights (a blob,
 * fold_constants' ir_data_derived), sealed. Rather than have each program's kernels lay out
 * a copy of their own (two more copies of every weight while the kernels are written), the
 * whole program's kernels lay the shared bytes out in place (ir_data_own), and the step
 * program starts from that layout (share_layouts): it keeps it when it wants the same one,
 * and makes its own copy otherwise.
 */
static void
own_weights(ir_graph *g, const kprog *kp, const kprog *skp)
{
    int c;
    for (c = 0; skp && c < kp->n_calls; c++) {
        const kp_call *x = &kp->calls[c];
        if (weight_slot(x, 1) && x->in[1] && x->in[1]->data &&
            ir_data_is_blob(g, x->in[1]->data) && only_weights_read(kp, skp, x->in[1]->data))
            ir_data_own(g, x->in[1]->data);
    }
}

static void
share_layouts(ir_graph *g, kprog *kp, kprog *skp)
{
    int c, s;
    for (c = 0; c < kp->n_calls; c++) {
        const kp_call *x = &kp->calls[c];
        if (!weight_slot(x, 1) || !x->in[1] || !x->in[1]->data)
            continue;
        ir_data_share(g, x->in[1]->data); /* sealed again: another layout is a copy */
        for (s = 0; skp && s < skp->n_calls; s++) {
            const kp_call *y = &skp->calls[s];
            if (weight_slot(y, 1) && y->in[1] && y->in[1]->data == x->in[1]->data)
                *kp_wlayout(skp, y->in[1]) = *kp_wlayout(kp, x->in[1]);
        }
    }
}

/* --- the backends ------------------------------------------------------------------- */

static int
llvm_emit(ir_graph *g, kprog *kp, const memplan *mp, const cg_options *o,
          unsigned char *handled, diag *d)
{
    (void)mp;
    return cg_llvm_kernels(g, kp, o, handled, d);
}

/* The recurrent layers on the GPU; the rest keeps the C kernels. The policy's CPU side is
 * the cpu backend's kernels <name>_cpu_k<i> (LLVM) or the runtime's C kernels. */
static int
opencl_emit(ir_graph *g, kprog *kp, const memplan *mp, const cg_options *o,
            unsigned char *handled, diag *d)
{
    unsigned char *cpu = calloc((size_t)kp->n_calls + 1, 1);
    int n_cpu = 0, rc;
    if (!cpu) {
        diag_error(d, "out of memory");
        return -1;
    }
    if (o->be->cpu && o->be->cpu->emit) {
        cg_options oc = *o;
        char cpu_name[96];
        snprintf(cpu_name, sizeof cpu_name, "%s_cpu", o->name);
        oc.name = cpu_name;
        n_cpu = o->be->cpu->emit(g, kp, mp, &oc, cpu, d);
    }
    rc = n_cpu < 0 ? -1 : cg_opencl_write(g, kp, mp, o, handled, cpu, d);
    free(cpu);
    return rc < 0 ? -1 : n_cpu; /* the CPU side's objects: the Makefile links them */
}

static int
elstm_write(arena *a, const ir_graph *g, const cg_options *o, diag *d)
{
    return elstm_emit(a, g, &elstm_default_profile, o->sph, o->outdir, d);
}

static const cg_backend be_c = {"c", NULL, NULL, NULL, 0, NULL, NULL};
static const cg_backend be_llvm = {
    "llvm", cg_llvm_handles, llvm_emit, NULL, 0, NULL, cg_llvm_weights};
static const cg_backend be_opencl_c = {
    "opencl", cg_opencl_handles, opencl_emit, &be_c, 1, NULL, NULL};
static const cg_backend be_opencl_llvm = {
    "opencl", cg_opencl_handles, opencl_emit, &be_llvm, 1, NULL, NULL};
static const cg_backend be_elstm = {"elstm", NULL, NULL, NULL, 0, elstm_write, NULL};

const cg_backend *
cg_backend_resolve(const char *target_name, const char *emit, int cpu_only, diag *d)
{
    const target *t = target_name ? target_find(target_name) : NULL;
    int llvm = emit ? strcmp(emit, "llvm") == 0 : cg_llvm_available();
    if (target_name && strcmp(target_name, "elstm") == 0)
        return &be_elstm;
    if (llvm && !cg_llvm_available()) {
        diag_error(d, "--emit=llvm: this lstmc was built without LLVM (install llvm-19-dev and "
                      "rebuild), use --emit=c");
        return NULL;
    }
    /* OpenCL for a built-in target with a GPU (a profile file stays on the CPU, as before) */
    if (!cpu_only && t && t->gpu)
        return llvm ? &be_opencl_llvm : &be_opencl_c;
    return llvm ? &be_llvm : &be_c;
}

const cg_backend *
cg_backend_cpu(const cg_backend *be)
{
    return be->cpu ? be->cpu : be;
}

/* --- cg_write ---------------------------------------------------------------------- */

int
cg_write(ir_graph *g, kprog *kp, const memplan *mp, const cg_options *o, diag *d)
{
    const cg_backend *cpu_be = cg_backend_cpu(o->be);
    unsigned char *handled = NULL, *handled_s = NULL;
    int *same = NULL;
    cg_options wo;
    int n_llvm = 0, n_llvm_s = 0;
    int rc = 0;
    char sname[160];

    cg_c_sizes sz;

    if (cg_c_begin(o, d) < 0)
        return -1;
    snprintf(sname, sizeof sname, "%s_stream", o->name);
    if (o->be->emit) {
        handled = calloc((size_t)kp->n_calls + 1, 1);
        if (!handled) {
            diag_error(d, "out of memory");
            return -1;
        }
        if (cg_c_streams(o))
            own_weights(g, kp, &o->stream->kp);
        n_llvm = o->be->emit(g, kp, mp, o, handled, d);
        if (n_llvm >= 0 && cg_c_streams(o))
            share_layouts(g, kp, &o->stream->kp);
        if (n_llvm < 0) {
            free(handled);
            return -1;
        }
        if (n_llvm == 0 && !o->be->gpu) /* nothing for LLVM: no object, no Makefile line */
            remove_stale_object(o, o->name);
    }
    if (cpu_be->emit && cg_c_streams(o)) { /* the step program: <name>_stream_k<i> */
        cg_options so = *o;
        cg_layout_hint *hints = calloc((size_t)kp->n_calls + 1, sizeof *hints);
        int i, oom;
        so.name = sname;
        so.threads = 1; /* one step per call: a barrier would cost more than it saves */
        /* but the weights of a layer the whole program runs on several threads (outside a
         * wavefront) are laid out for its slices: the step kernel runs the same slices on
         * one thread, so a U both programs read is stored once */
        for (i = 0; hints && handled && i < kp->n_calls; i++) {
            const kp_call *c = &kp->calls[i];
            if (handled[i] > 1 && c->node && !kp_wave_of(kp, i) &&
                (c->kind == KP_RNN_REC || c->kind == KP_RNN_PROJ)) {
                hints[so.n_layout_hints].node = c->node->name;
                hints[so.n_layout_hints].kind = (int)c->kind;
                hints[so.n_layout_hints++].threads = handled[i];
            }
        }
        so.layout_hints = hints;
        handled_s = calloc((size_t)o->stream->kp.n_calls + 1, 1);
        oom = !handled_s || !hints;
        n_llvm_s = oom ? -1
                       : cpu_be->emit(o->stream->g, &o->stream->kp, &o->stream->mp, &so,
                                      handled_s, d);
        free(hints);
        if (n_llvm_s < 0) {
            if (oom)
                diag_error(d, "out of memory");
            free(handled);
            free(handled_s);
            return -1;
        }
    }
    if (n_llvm_s == 0)
        remove_stale_object(o, sname);
    { /* the layouts the kernels no longer read (rec_relayout's sources): freed before the
       * weights are written */
        const kprog *kps[2] = {kp, cg_c_streams(o) ? &o->stream->kp : NULL};
        kp_sweep(g, kps, 2);
    }
    wo = *o;
    o = &wo;
    if (cg_c_streams(o)) { /* which step constants the whole program holds: once, here */
        const ir_graph *sg = o->stream->g;
        int i;
        same = malloc((size_t)sg->n_tensors * sizeof *same + 1);
        if (!same) {
            diag_error(d, "out of memory");
            free(handled);
            free(handled_s);
            return -1;
        }
        for (i = 0; i < sg->n_tensors; i++)
            same[i] = o->stream->mp.tensor[i].kind == MEMPLAN_CONST
                          ? cg_same_const(g, mp, sg->tensors[i])
                          : -1;
        wo.stream_same = same;
    }
    /* the weights as an object (after emit: in the kernels' layout), or as C: either way
     * the other form an earlier compile left must not be linked */
    if (cg_weights_object(o)) {
        remove_stale(o, o->name, "_weights.c");
        int st = cg_c_streams(o);
        wo.n_weight_objects =
            cpu_be->weights(g, mp, st ? o->stream->g : NULL, st ? &o->stream->mp : NULL, o, d);
        if (wo.n_weight_objects < 0) {
            free(handled);
            free(handled_s);
            free(same);
            return -1;
        }
    } else {
        remove_stale(o, o->name, "_weights.o");
    }
    if (cg_c_library(g, kp, mp, o, handled, handled_s, n_llvm, n_llvm_s, &sz, d) < 0 ||
        cg_size_report(g, kp, mp, o, sz.arena, sz.stream_arena, sz.state, sz.stream_weights,
                       d) < 0)
        rc = -1;
    free(handled);
    free(handled_s);
    free(same);
    return rc;
}
