/*
 * host.c — the host side: <name>_ocl.h (init, release, log, device, binary cache, policy)
 * and <name>_ocl.c, the kernels' source as strings, the device buffers made once at init,
 * and one function per offloaded call with the runtime kernel's signature (<name>_k<i>).
 * Host round trips: a tensor is uploaded only when the device does not hold it yet (graph
 * inputs, host-computed tensors) and downloaded only when a host call, a graph output or
 * a sequence_lens check needs it; a layer enqueues its T steps back to back and the queue
 * is finished only before a host call and at the end of the run.
 */
#include "opencl_impl.h"
#include "cg_ident.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where tensor t is needed on the host after call i: a later host call reads it, a later
 * offloaded layer checks it as sequence_lens, or it is a graph output. */
static int
host_needs(const ocl_plan *P, const ir_tensor *t, int i)
{
    const kprog *kp = P->kp;
    int j, k;
    if (P->mp->tensor[t->id].kind == MEMPLAN_OUTPUT)
        return 1;
    for (k = 0; k < kp->n_outputs; k++)
        if (kp->outputs[k] == t)
            return 1;
    for (j = i + 1; j < kp->n_calls; j++) {
        const kp_call *c = &kp->calls[j];
        for (k = 0; k < c->n_in; k++) {
            if (c->in[k] != t)
                continue;
            if (!P->handled[j])
                return 1;
            if ((c->kind == KP_RNN && k == 4) ||
                ((c->kind == KP_RNN_REC || c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_DRS) &&
                 k == 3))
                return 1;
        }
    }
    return 0;
}

/* The C parameter list of <name>_k<i>: the runtime kernel's, arguments named a0, a1... */
static void
put_signature(FILE *f, const char *name, const kp_call *c, int idx)
{
    int j, n = c->n_in + c->n_out, tissue = c->kind == KP_LSTM_TISSUE, drs = c->kind == KP_LSTM_DRS;
    fprintf(f, "lstmc_rt_status\n%s_k%d(const %s *p%s", name, idx,
            c->kind == KP_RNN_PROJ ? "lstmc_rt_rnn_proj_params"
            : tissue               ? "lstmc_rt_tissue_params"
                                   : "lstmc_rt_rnn_params",
            tissue ? ", float alpha_inter" : drs ? ", float alpha_intra" : "");
    for (j = 0; j < n; j++) {
        int is_seq = (c->kind == KP_RNN && j == 4) ||
                     ((c->kind == KP_RNN_REC || tissue || drs) && j == 3);
        fprintf(f, ",%s%s%s *a%d", j % 4 == 3 ? "\n    " : " ", j < c->n_in ? "const " : "",
                is_seq ? "int32_t" : (j == 1 || (drs && j == 2)) && c->wfmt ? "void" : "float",
                j); /* reduced-precision weights are words: R, or DRS's Uo and Ufic */
    }
    if (tissue)
        fputs(", lstmc_rt_tissue_stats *stats, void *scratch", f);
    else if (drs)
        fputs(", lstmc_rt_drs_stats *stats, void *scratch", f);
    else if (c->kind != KP_RNN_PROJ)
        fputs(", float *scratch", f);
    fputs(")\n", f);
}

/* Uploads before call c: the inputs the device does not hold yet. */
static void
put_uploads(FILE *f, const ocl_plan *P, const kp_call *c, unsigned char *dev_valid)
{
    int j;
    for (j = 0; j < c->n_in; j++) {
        const ir_tensor *t = c->in[j];
        int64_t bytes;
        dev_loc l;
        if (!t || P->mp->tensor[t->id].kind == MEMPLAN_CONST || dev_valid[t->id])
            continue;
        dev_valid[t->id] = 1;
        bytes = numel(t) * (int64_t)ir_dtype_size(t->dtype);
        if (bytes == 0)
            continue;
        l = ocl_loc_of(P, t);
        fprintf(f,
                "    OCL_DO(clEnqueueWriteBuffer(ocl.queue, ocl_mem, CL_FALSE, %lldu, %lldu, a%d, "
                "0, NULL, NULL)); /* %s */\n",
                (long long)(l.off * 4), (long long)bytes, j, t->name);
    }
}

/* The offloaded call before idx that wrote t, or -1 (a host call, a graph input). */
static int
offloaded_producer(const ocl_plan *P, const ir_tensor *t, int idx)
{
    int j, k;
    for (j = idx - 1; j >= 0; j--)
        for (k = 0; k < P->kp->calls[j].n_out; k++)
            if (P->kp->calls[j].out[k] == t)
                return P->handled[j] ? j : -1;
    return -1;
}

/* Policy model: inputs of call idx that an offloaded call wrote on the other side this
 * run. to_device = 0 (idx runs on the CPU): read back, blocking, what a device layer left
 * on the device; 1 (on the device): upload what a CPU-run layer wrote, unless the plan
 * uploads it anyway (dev_valid 0). */
static void
put_cross_moves(FILE *f, const ocl_plan *P, int idx, int to_device, const unsigned char *dev_valid)
{
    const kp_call *c = &P->kp->calls[idx];
    int j;
    for (j = 0; j < c->n_in; j++) {
        const ir_tensor *t = c->in[j];
        int64_t bytes;
        int pr;
        if (!t || P->mp->tensor[t->id].kind == MEMPLAN_CONST)
            continue;
        pr = offloaded_producer(P, t, idx);
        bytes = numel(t) * (int64_t)ir_dtype_size(t->dtype);
        if (pr < 0 || bytes == 0 || (to_device && !dev_valid[t->id]))
            continue;
        fprintf(f,
                "%s    if (%socl_ran_cpu[%d])\n%s        OCL_DO(clEnqueue%sBuffer(ocl.queue, "
                "ocl_mem, %s, %lldu, %lldu, (void *)a%d, 0, NULL, NULL)); /* %s */\n",
                to_device ? "" : "    ", to_device ? "" : "!", pr, to_device ? "" : "    ",
                to_device ? "Write" : "Read", to_device ? "CL_FALSE" : "CL_TRUE",
                (long long)(ocl_loc_of(P, t).off * 4), (long long)bytes, j, t->name);
    }
}

/* Downloads after call idx: the outputs the host needs later. Returns their count. */
static int
put_downloads(FILE *f, const ocl_plan *P, int idx, unsigned char *dev_valid)
{
    const kp_call *c = &P->kp->calls[idx];
    int j, downloads = 0;
    for (j = 0; j < c->n_out; j++) {
        const ir_tensor *t = c->out[j];
        int64_t bytes;
        dev_loc l;
        if (!t)
            continue;
        dev_valid[t->id] = 1;
        bytes = numel(t) * (int64_t)ir_dtype_size(t->dtype);
        if (bytes == 0 || !host_needs(P, t, idx))
            continue;
        l = ocl_loc_of(P, t);
        fprintf(
            f,
            "    OCL_DO(clEnqueueReadBuffer(ocl.queue, ocl_mem, CL_FALSE, %lldu, %lldu, a%d, 0, "
            "NULL, NULL)); /* %s */\n",
            (long long)(l.off * 4), (long long)bytes, c->n_in + j, t->name);
        downloads++;
    }
    return downloads;
}

static void
put_call_fn(FILE *f, const ocl_plan *P, const char *name, int idx, int kbase,
            unsigned char *dev_valid)
{
    const kp_call *c = &P->kp->calls[idx];
    const char *kn[6];
    int nk = ocl_kernel_names(P, c, kn), j, k, downloads = 0, last_ocl = 1;
    int seq_arg = c->kind == KP_RNN ? 4 : c->kind == KP_RNN_PROJ ? -1 : 3;
    const lstmc_rt_rnn_params *p = ocl_rec_params(c);
    const int tissue = c->kind == KP_LSTM_TISSUE, drs = c->kind == KP_LSTM_DRS;

    int first_ocl = 1;
    for (j = 0; j < idx; j++)
        if (P->handled[j])
            first_ocl = 0;
    for (j = idx + 1; j < P->kp->n_calls; j++)
        if (P->handled[j])
            last_ocl = 0;

    if (drs) /* what each chain did, read back for lstmc_rt_drs_stats */
        fprintf(f, "static cl_int ocl_ds%d[%lld][2];\n\n", idx, (long long)(p->n_dirs * p->batch));
    put_signature(f, name, c, idx);
    fputs("{\n    cl_int e = CL_SUCCESS;\n", f);
    fputs("    if (!ocl_ready)\n        return LSTMC_RT_ERR_NO_DEVICE;\n", f);
    if (first_ocl) /* the run's first layer decides where the run's layers go */
        fputs("    ocl_run_begin();\n", f);
    /* the CPU side of the policy: the runtime's C kernel on the host buffers, after what
     * an earlier layer left on the device only is read back (policy model) */
    fprintf(f,
            "    ocl_ran_cpu[%d] = ocl_on_cpu || (ocl_policy == LSTMC_OCL_MODEL && "
            "ocl_model_cpu[%d]);\n    if (ocl_ran_cpu[%d]) {\n        lstmc_rt_status st;\n"
            "        OCL_DO(clFinish(ocl.queue));\n",
            idx, idx, idx);
    put_cross_moves(f, P, idx, 0, dev_valid);
    fputs("        if (e != CL_SUCCESS)\n            return lstmc_rt_ocl_status(e);\n", f);
    if (P->cpu_llvm && P->cpu_llvm[idx])
        fprintf(f, "        st = %s_cpu_k%d(p", name, idx);
    else
        fprintf(f, "        st = %s(p", kp_call_fn(c)); /* per weight format (lowp.h) */
    if (tissue || drs)
        fputs(tissue ? ", alpha_inter" : ", alpha_intra", f);
    for (j = 0; j < c->n_in + c->n_out; j++)
        fprintf(f, ", a%d", j);
    fprintf(f, "%s);\n%s        return st;\n    }\n",
            tissue || drs ? ", stats, scratch"
            : p    ? ", scratch"
                   : "",
            last_ocl ? "        ocl_run_end();\n" : "");
    if (tissue || drs) /* as the C kernels: stats zero unless the device fills them */
        fputs("    if (stats)\n        memset(stats, 0, sizeof *stats);\n", f);
    if (tissue && !c->in[2]) /* no row sums: cutting is impossible, as the C kernel */
        fputs("    if (alpha_inter > 0.0f)\n        return LSTMC_RT_ERR_NULL;\n", f);
    if (p && p->batch == 0) { /* as lstmc_rt_rnn: nothing to do, nothing written */
        fprintf(f, "%s    return LSTMC_RT_OK;\n}\n\n", last_ocl ? "    ocl_run_end();\n" : "");
        return;
    }
    /* sequence_lens is checked on the host, as the C kernel does, before anything runs */
    if (seq_arg >= 0 && c->in[seq_arg])
        fprintf(f,
                "    for (int n = 0; n < %lld; n++)\n"
                "        if (a%d[n] < 0 || a%d[n] > %lld)\n"
                "            return LSTMC_RT_ERR_SEQ_LEN;\n",
                (long long)p->batch, seq_arg, seq_arg, (long long)p->seq_len);
    put_cross_moves(f, P, idx, 1, dev_valid);
    put_uploads(f, P, c, dev_valid);
    /* the kernels: G1, then init, T steps, final, enqueued back to back (or the one loop
     * launch of a layer that fits a work-group) */
    if (tissue) { /* one launch: a work-group per direction (kernels/tissue.cl) */
        tissue_geom z = ocl_tissue_geometry(c);
        fprintf(f,
                "    { /* breakpoints, tissues and their GEMMs: %lld direction(s) */\n"
                "        const size_t g = %lld, l = %d;\n"
                "        OCL_DO(clSetKernelArg(ocl_kern[%d], 2, sizeof alpha_inter, "
                "&alpha_inter));\n"
                "        OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, &g, "
                "&l, 0, NULL, NULL));\n",
                (long long)p->n_dirs, (long long)(p->n_dirs * P->wg), P->wg, kbase, kbase);
        for (j = 0; j < p->n_dirs; j++) /* the plan's counts: K, cells, links, sub-layers */
            fprintf(f,
                    "        OCL_DO(clEnqueueReadBuffer(ocl.queue, ocl_mem, CL_FALSE, %lldu, "
                    "sizeof ocl_tst[%d], ocl_tst[%d], 0, NULL, NULL));\n",
                    (long long)(4 * (P->state_off[idx] + p->n_dirs * z.f_str + j * z.i_str +
                                     15 * z.nc + 1 + z.slots)),
                    j, j);
        fputs("    }\n", f);
        downloads++;
    }
    if (drs) { /* one launch: a work-group per chain (kernels/drs.cl) */
        fprintf(f,
                "    { /* Algorithm 3, %lld chain(s) of %lld cells */\n"
                "        const size_t g = %lld, l = %d;\n"
                "        OCL_DO(clSetKernelArg(ocl_kern[%d], 2, sizeof alpha_intra, "
                "&alpha_intra));\n"
                "        OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, &g, "
                "&l, 0, NULL, NULL));\n"
                "        OCL_DO(clEnqueueReadBuffer(ocl.queue, ocl_mem, CL_FALSE, %lldu, "
                "sizeof ocl_ds%d, ocl_ds%d, 0, NULL, NULL));\n    }\n",
                (long long)(p->n_dirs * p->batch), (long long)p->seq_len,
                (long long)(p->n_dirs * p->batch * P->wg), P->wg, kbase, kbase,
                (long long)(4 * P->state_off[idx]), idx, idx);
        downloads++;
    }
    for (k = 0; k < nk && !tissue && !drs; k++) {
        const char *n = kn[k];
        if (p && ocl_use_loop(P, c) && strcmp(n, "proj") != 0) {
            if (strcmp(n, "loop") == 0)
                fprintf(
                    f,
                    "    { /* init, %lld steps, final: one work-group, one launch */\n"
                    "        const size_t g = %d, l = %d;\n"
                    "        OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, &g, "
                    "&l, 0, NULL, NULL));\n    }\n",
                    (long long)p->seq_len, P->wg, P->wg, kbase + k);
            continue;
        }
        if (strcmp(n, "proj") == 0) {
            int64_t rows = c->kind == KP_RNN_PROJ ? c->p.proj.rows : p->seq_len * p->batch;
            int64_t GH = c->kind == KP_RNN_PROJ ? gates(c->p.proj.cell) * c->p.proj.hidden
                                                : gates(p->cell) * p->hidden;
            int D = c->kind == KP_RNN_PROJ ? c->p.proj.n_dirs : p->n_dirs;
            if (rows == 0)
                continue;
            fprintf(
                f,
                "    { /* G1 */\n        const size_t g[3] = {%lld, %lld, %d}, l[3] = {%d, %d, "
                "1};\n        OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 3, NULL, g, "
                "l, 0, NULL, NULL));\n    }\n",
                (long long)round_up(GH, P->ts), (long long)round_up(rows, P->ts), D, P->ts, P->ts,
                kbase + k);
        } else if (strcmp(n, "init") == 0 || strcmp(n, "final") == 0) {
            fprintf(
                f,
                "    { /* %s */\n        const size_t g = %lld, l = %d;\n"
                "        OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, &g, &l, "
                "0, NULL, NULL));\n    }\n",
                n, (long long)round_up(p->n_dirs * p->batch * p->hidden, P->wg), P->wg, kbase + k);
        }
        if (strcmp(n, "init") == 0) { /* the time loop right after init */
            int rpi = ocl_rows_per_item(P, p->n_dirs * p->batch, p->hidden);
            int two = p->cell == LSTMC_RT_CELL_GRU && !p->linear_before_reset;
            fprintf(
                f,
                "    { /* %lld steps, %d row(s) per work-item */\n"
                "        const size_t g = %lld, l = %d;\n"
                "        for (cl_int s = 0; s < %lld && e == CL_SUCCESS; s++) {\n"
                "            OCL_DO(clSetKernelArg(ocl_kern[%d], 2, sizeof s, &s));\n"
                "            OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, &g, "
                "&l, 0, NULL, NULL));\n",
                (long long)p->seq_len, rpi,
                (long long)round_up(p->n_dirs * p->batch * (p->hidden / rpi), P->wg), P->wg,
                (long long)p->seq_len, kbase + k + 1, kbase + k + 1);
            if (two)
                fprintf(
                    f,
                    "            OCL_DO(clSetKernelArg(ocl_kern[%d], 2, sizeof s, &s));\n"
                    "            OCL_DO(clEnqueueNDRangeKernel(ocl.queue, ocl_kern[%d], 1, NULL, "
                    "&g, &l, 0, NULL, NULL));\n",
                    kbase + k + 2, kbase + k + 2);
            fputs("        }\n    }\n", f);
        }
    }
    downloads += put_downloads(f, P, idx, dev_valid);
    /* finish before anything on the host may read a download or reuse an uploaded buffer:
     * a download, a host call next, or the end of the run */
    if (downloads || last_ocl || !P->handled[idx + 1 < P->kp->n_calls ? idx + 1 : idx])
        fputs("    OCL_DO(clFinish(ocl.queue));\n", f);
    else
        fputs("    /* the next call is a layer on the device too: no finish */\n", f);
    if (tissue) {
        fputs("    if (e == CL_SUCCESS && stats)\n", f);
        fprintf(f, "        for (int d = 0; d < %d; d++) {\n", p->n_dirs);
        fputs("            stats->tissues += ocl_tst[d][0];\n"
              "            stats->cells += ocl_tst[d][1];\n"
              "            stats->links += ocl_tst[d][2];\n"
              "            stats->sub_layers += ocl_tst[d][3];\n        }\n",
              f);
    }
    if (drs) {
        fprintf(f, "    if (e == CL_SUCCESS && stats)\n        for (int q = 0; q < %lld; q++) {\n",
                (long long)(p->n_dirs * p->batch));
        fprintf(f, "            stats->cells += ocl_ds%d[q][0];\n"
                   "            stats->rows_total += %lldLL * ocl_ds%d[q][0];\n"
                   "            stats->rows_loaded += 3LL * ocl_ds%d[q][1];\n"
                   "            stats->rows_skipped += %lldLL * ocl_ds%d[q][0] - 3LL * "
                   "ocl_ds%d[q][1];\n        }\n",
                idx, (long long)(3 * p->hidden), idx, idx, (long long)(3 * p->hidden), idx, idx);
    }
    if (last_ocl)
        fputs("    ocl_run_end();\n", f);
    fputs("    if (e != CL_SUCCESS)\n        clFinish(ocl.queue);\n"
          "    return lstmc_rt_ocl_status(e);\n}\n\n",
          f);
}

/* The OpenCL C program as C string literals, one per line. */
static int
put_source_strings(FILE *f, const char *cl_path, diag *d)
{
    FILE *in = fopen(cl_path, "r");
    int ch, at_start = 1, lines = 0;
    if (!in) {
        diag_error(d, "cannot read back '%s': %s", cl_path, strerror(errno));
        return -1;
    }
    fputs("static const char *const ocl_source[] = {\n", f);
    while ((ch = fgetc(in)) != EOF) {
        if (at_start) {
            fputs("    \"", f);
            at_start = 0;
        }
        if (ch == '\n') {
            fputs("\\n\",\n", f);
            at_start = 1;
            lines++;
        } else if (ch == '"' || ch == '\\') {
            fprintf(f, "\\%c", ch);
        } else if (ch < 32 || ch > 126) {
            fprintf(f, "\\%03o", ch);
        } else {
            fputc(ch, f);
        }
    }
    if (!at_start) {
        fputs("\",\n", f);
        lines++;
    }
    fclose(in);
    fprintf(f, "};\n#define OCL_SOURCE_LINES %d\n\n", lines);
    return 0;
}

int
ocl_write_host(const ocl_plan *P, const cg_options *o, const char *cl_path, int n_kern, diag *d)
{
    char path[4200], w[CG_IDENT_MAX];
    FILE *f;
    int i, k, kbase = 0, rc;
    unsigned char *dev_valid = calloc((size_t)P->g->n_tensors + 1, 1);
    if (!dev_valid) {
        diag_error(d, "out of memory");
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s_ocl.c", o->outdir, o->name);
    f = fopen(path, "w");
    if (!f) {
        free(dev_valid);
        diag_error(d, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(f,
            "/*\n * %s_ocl.c — generated by lstmc: the host side of the OpenCL layers (target "
            "%s).\n * Device buffers are created once in %s_ocl_init; %s_k<i> replace the "
            "runtime's\n * recurrent kernels with the same signature. Never calls malloc.\n */\n"
            "#define _POSIX_C_SOURCE 199309L /* clock_gettime */\n"
            "#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
            "#include <time.h>\n\n#include \"%s.h\"\n#include \"%s_ocl.h\"\n"
            "#include \"%s_weights.h\"\n#include \"lstmc_rt_kernels.h\"\n"
            "#include \"lstmc_rt_opencl.h\"\n\n",
            o->name, P->t->name, o->name, o->name, o->name, o->name, o->name);
    if (put_source_strings(f, cl_path, d) < 0) {
        fclose(f);
        free(dev_valid);
        return -1;
    }
    fprintf(f,
            "#define OCL_MEM_BYTES %lldu\n#define OCL_WTS_BYTES %lldu\n#define OCL_N_KERNELS %d\n\n"
            "static lstmc_rt_ocl ocl;\nstatic cl_mem ocl_mem, ocl_wts;\n"
            "static cl_kernel ocl_kern[OCL_N_KERNELS + 1];\nstatic int ocl_ready;\n"
            "static unsigned char *ocl_bin;\nstatic size_t ocl_bin_cap, *ocl_bin_len;\n\n"
            "/* the first OpenCL error of a sequence of calls is kept, the rest skipped */\n"
            "#define OCL_DO(x) do { if (e == CL_SUCCESS) e = (x); } while (0)\n\n",
            (long long)(P->mem_words * 4), (long long)(P->wts_words * 4 + 4), n_kern);
    for (i = 0; i < P->kp->n_calls; i++)
        if (P->handled[i] && P->kp->calls[i].kind == KP_LSTM_TISSUE) {
            fputs("static cl_int ocl_tst[2][4]; /* a tissue layer's counts, per direction */\n\n",
                  f);
            break;
        }
    fputs("static const char *const ocl_kernel_names[] = {", f);
    for (i = 0; i < P->kp->n_calls; i++) {
        const char *kn[6];
        int nk;
        if (!P->handled[i])
            continue;
        nk = ocl_kernel_names(P, &P->kp->calls[i], kn);
        for (k = 0; k < nk; k++)
            fprintf(f, "\"k%d_%s\", ", i, kn[k]);
    }
    fputs("NULL};\n\n", f);
    fputs(ocl_policy_c, f);
    ocl_put_cost_model(f, P);
    fprintf(f,
            "void\n%s_ocl_set_policy(int policy)\n{\n"
            "    ocl_policy = policy == LSTMC_OCL_CPU || policy == LSTMC_OCL_AUTO ||\n"
            "                         policy == LSTMC_OCL_MODEL\n"
            "                     ? policy\n                     : LSTMC_OCL_GPU;\n"
            "    ocl_runs = 0;\n}\n\n"
            "int\n%s_ocl_last_on_cpu(void)\n{\n    return ocl_on_cpu;\n}\n\n",
            o->name, o->name);

    /* release / init */
    fprintf(
        f,
        "void\n%s_ocl_release(void)\n{\n    int k;\n"
        "    for (k = 0; k < OCL_N_KERNELS; k++)\n        if (ocl_kern[k]) {\n"
        "            clReleaseKernel(ocl_kern[k]);\n            ocl_kern[k] = NULL;\n        }\n"
        "    lstmc_rt_ocl_close(&ocl);\n    ocl_mem = ocl_wts = NULL;\n    ocl_ready = 0;\n}\n\n",
        o->name);
    fprintf(f,
            "void\n%s_ocl_set_binary_cache(unsigned char *buf, size_t cap, size_t *len)\n{\n"
            "    ocl_bin = buf;\n    ocl_bin_cap = cap;\n    ocl_bin_len = len;\n}\n\n"
            "const char *\n%s_ocl_log(void)\n{\n    return ocl.log;\n}\n\n"
            "const char *\n%s_ocl_device(void)\n{\n    return ocl.device_name;\n}\n\n",
            o->name, o->name, o->name);
    fprintf(
        f,
        "lstmc_rt_status\n%s_ocl_init(void)\n{\n"
        "    lstmc_rt_ocl_config cfg;\n    lstmc_rt_status st;\n    cl_int e = CL_SUCCESS;\n"
        "    int k;\n    const char *pol = getenv(\"LSTMC_OCL_POLICY\");\n"
        "    %s_ocl_release();\n"
        "    if (pol)\n        %s_ocl_set_policy(strcmp(pol, \"cpu\") == 0    ? LSTMC_OCL_CPU\n"
        "                               : strcmp(pol, \"auto\") == 0 ? LSTMC_OCL_AUTO\n"
        "                               : strcmp(pol, \"model\") == 0 ? LSTMC_OCL_MODEL\n"
        "                                                            : LSTMC_OCL_GPU);\n"
        "    cfg.device_type = \"%s\";\n    cfg.sources = ocl_source;\n"
        "    cfg.n_sources = OCL_SOURCE_LINES;\n    cfg.build_options = NULL;\n"
        "    cfg.binary = ocl_bin;\n    cfg.binary_cap = ocl_bin_cap;\n"
        "    cfg.binary_len = ocl_bin_len;\n"
        "    st = lstmc_rt_ocl_open(&ocl, &cfg);\n    if (st != LSTMC_RT_OK)\n        return st;\n"
        "    st = lstmc_rt_ocl_buffer(&ocl, OCL_MEM_BYTES, &ocl_mem);\n"
        "    if (st == LSTMC_RT_OK)\n"
        "        st = lstmc_rt_ocl_buffer(&ocl, OCL_WTS_BYTES, &ocl_wts);\n"
        "    if (st != LSTMC_RT_OK) {\n        %s_ocl_release();\n        return st;\n    }\n",
        o->name, o->name, o->name, P->t->gpu_device ? P->t->gpu_device : "gpu", o->name);
    for (i = 0; i < P->g->n_tensors; i++) {
        const ir_tensor *t = P->g->tensors[i];
        int64_t bytes;
        if (P->const_off[i] < 0)
            continue;
        bytes = numel(t) * (int64_t)ir_dtype_size(t->dtype);
        if (bytes > 0) {
            cg_const_ident(w, o->name, P->g, P->mp->tensor[i].index);
            fprintf(f,
                    "    OCL_DO(clEnqueueWriteBuffer(ocl.queue, ocl_wts, CL_FALSE, %lldu, %lldu, "
                    "%s, 0, NULL, NULL));\n",
                    (long long)(P->const_off[i] * 4), (long long)bytes, w);
        }
    }
    fputs("    OCL_DO(clFinish(ocl.queue));\n"
          "    for (k = 0; k < OCL_N_KERNELS && e == CL_SUCCESS; k++) {\n"
          "        ocl_kern[k] = clCreateKernel(ocl.program, ocl_kernel_names[k], &e);\n"
          "        if (e == CL_SUCCESS)\n"
          "            e = clSetKernelArg(ocl_kern[k], 0, sizeof ocl_mem, &ocl_mem);\n"
          "        if (e == CL_SUCCESS)\n"
          "            e = clSetKernelArg(ocl_kern[k], 1, sizeof ocl_wts, &ocl_wts);\n"
          "    }\n",
          f);
    fprintf(f,
            "    if (e != CL_SUCCESS) {\n        st = lstmc_rt_ocl_status(e);\n"
            "        %s_ocl_release();\n        return st;\n    }\n"
            "    ocl_ready = 1;\n    return LSTMC_RT_OK;\n}\n\n",
            o->name);

    for (i = 0; P->cpu_llvm && i < P->kp->n_calls; i++) /* the runtime kernel's type */
        if (P->cpu_llvm[i])
            fprintf(f, "%s%s_fn %s_cpu_k%d;\n", kp_kinds[P->kp->calls[i].kind].fn,
                    P->kp->calls[i].wfmt ? "_lowp" : "", o->name, i);
    fputc('\n', f);
    for (i = 0; i < P->kp->n_calls; i++) {
        const char *kn[6];
        if (!P->handled[i]) {
            /* a host call: what it writes is on the host only */
            const kp_call *c = &P->kp->calls[i];
            for (k = 0; k < c->n_out; k++)
                if (c->out[k])
                    dev_valid[c->out[k]->id] = 0;
            continue;
        }
        put_call_fn(f, P, o->name, i, kbase, dev_valid);
        kbase += ocl_kernel_names(P, &P->kp->calls[i], kn);
    }
    free(dev_valid);
    rc = ferror(f);
    if (fclose(f) != 0 || rc) {
        diag_error(d, "cannot write '%s'", path);
        return -1;
    }
    return 0;
}

int
ocl_write_header(const cg_options *o, diag *d)
{
    char path[4200];
    FILE *f;
    int rc;
    snprintf(path, sizeof path, "%s/%s_ocl.h", o->outdir, o->name);
    f = fopen(path, "w");
    if (!f) {
        diag_error(d, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(
        f,
        "/*\n * %s_ocl.h — generated by lstmc: the OpenCL device behind %s's recurrent "
        "layers.\n * %s_init calls %s_ocl_init; the rest is for the caller.\n */\n"
        "#ifndef %s_OCL_H\n#define %s_OCL_H\n\n#include <stddef.h>\n\n#include \"lstmc_rt.h\"\n\n"
        "/* Choose the device (profile kind, else any; LSTMC_OCL_PLATFORM / LSTMC_OCL_DEVICE\n"
        " * override), build the kernels, allocate every device buffer and upload the\n"
        " * weights. LSTMC_RT_ERR_NO_DEVICE, _DEVICE_BUILD (see %s_ocl_log), _DEVICE_MEMORY\n"
        " * or _DEVICE; calling it again starts over. */\n"
        "lstmc_rt_status %s_ocl_init(void);\n\n"
        "/* Release the device (the next %s_run fails with LSTMC_RT_ERR_NO_DEVICE). */\n"
        "void %s_ocl_release(void);\n\n"
        "/* Program binary cache for the next init (see lstmc_rt_ocl_config): buf of cap\n"
        " * bytes holds *len bytes of binary from an earlier build (0: none yet). */\n"
        "void %s_ocl_set_binary_cache(unsigned char *buf, size_t cap, size_t *len);\n\n"
        "/* The build log after LSTMC_RT_ERR_DEVICE_BUILD, or why init failed. */\n"
        "const char *%s_ocl_log(void);\n\n"
        "/* The name of the device in use (\"\" before init). */\n"
        "const char *%s_ocl_device(void);\n\n"
        "/* Where the recurrent layers run (MobiRNN §4.5): on the device (the default), on the\n"
        " * CPU (the runtime's C kernels), auto: measured, each side once every 64 runs,\n"
        " * the faster one otherwise, or model: each layer where the compiler's cost model\n"
        " * (target profile) placed it. %s_ocl_init reads LSTMC_OCL_POLICY=gpu|cpu|auto|model.\n"
        " */\n"
        "enum { LSTMC_OCL_GPU = 0, LSTMC_OCL_CPU = 1, LSTMC_OCL_AUTO = 2, LSTMC_OCL_MODEL = 3 };\n"
        "void %s_ocl_set_policy(int policy);\n\n"
        "/* 1 when the last run's layers ran on the CPU. */\n"
        "int %s_ocl_last_on_cpu(void);\n\n#endif\n",
        o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name,
        o->name, o->name, o->name, o->name, o->name, o->name);
    rc = ferror(f);
    if (fclose(f) != 0 || rc) {
        diag_error(d, "cannot write '%s'", path);
        return -1;
    }
    return 0;
}
