/*
 * module.c — the LLVM emitter's entry points (codegen.h): which calls it handles
 * (cg_llvm_handles), and cg_llvm_kernels, which emits a function per handled call (and per
 * wave group) into one module for the target's triple, CPU and features, optimises it with
 * the new pass manager at O3, writes it as a position-independent ELF object
 * OUTDIR/<name>_kernels.o and brings the weights to the layout the kernels read. Without
 * LSTMC_HAVE_LLVM the entry points say so.
 */
#include "llvm_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef LSTMC_HAVE_LLVM

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

/* --- which calls ----------------------------------------------------------------------- */

/* The KP_DYN_* bits (issue 21) the kernel of c's kind reads from its p at run time: the
 * rows of a projection, T and N of a time loop (with or without dynamic row skip), the rows
 * of a LayerNorm, the images (or maps), height and width of a Conv or pool (a run-time width
 * at stride 1 only, conv_handles). A call with any other bit runs the C kernel. */
static unsigned
dyn_handled(kp_kind k)
{
    if (k == KP_RNN_PROJ)
        return KP_DYN_ROWS;
    if (k == KP_RNN_REC || k == KP_LSTM_DRS)
        return KP_DYN_SEQ_LEN | KP_DYN_BATCH;
    if (k == KP_LAYERNORM)
        return KP_DYN_N;
    if (k == KP_CONV || k == KP_POOL)
        return KP_DYN_N | KP_DYN_H | KP_DYN_W;
    return 0;
}

int
cg_llvm_handles(const kp_call *c)
{
    int k, nacts;

    if (c->dyn & ~dyn_handled(c->kind))
        return 0;

    if (c->kind == KP_RNN_PROJ) {
        const lstmc_rt_rnn_proj_params *p = &c->p.proj;
        if (p->packed == LSTMC_RT_PACK_ESELL) /* sparse W: the C kernel (rt_spmv.c) */
            return 0;
        return p->packed && p->rows >= 0 && p->input_size >= 1 && p->hidden >= 1 &&
               (p->n_dirs == 1 || p->n_dirs == 2) && p->cell >= LSTMC_RT_CELL_LSTM &&
               p->cell <= LSTMC_RT_CELL_RNN;
    }
    if (c->kind == KP_RNN_REC) {
        const lstmc_rt_rnn_params *p = &c->p.rnn;
        if (!p->packed || p->cell < LSTMC_RT_CELL_LSTM || p->cell > LSTMC_RT_CELL_RNN ||
            p->hidden < 1 || p->seq_len < 0 || p->batch < 0 || (p->n_dirs != 1 && p->n_dirs != 2) ||
            (p->layout != 0 && p->layout != 1) || (p->has_clip && !(p->clip >= 0.0f)) ||
            c->scratch_bytes <= 0)
            return 0;
        if (p->hsparse_th != 0.0f) /* hidden-state sparsity: the C kernel (rt_hsparse.c) */
            return 0;
        if (p->packed == LSTMC_RT_PACK_ESELL) /* sparse U: the C kernel (rt_spmv.c) */
            return 0;
        nacts = p->cell == LSTMC_RT_CELL_LSTM ? 3 : p->cell == LSTMC_RT_CELL_GRU ? 2 : 1;
        for (k = 0; k < nacts * p->n_dirs; k++)
            if (!act_ok(p->act[k].kind))
                return 0;
        return 1;
    }
    if (c->kind == KP_LSTM_DRS) {
        const lstmc_rt_rnn_params *p = &c->p.drs.p;
        if (p->cell != LSTMC_RT_CELL_LSTM || !p->packed || p->hidden < 1 || p->seq_len < 0 ||
            p->batch < 0 || (p->n_dirs != 1 && p->n_dirs != 2) ||
            (p->layout != 0 && p->layout != 1) || (p->has_clip && !(p->clip >= 0.0f)) ||
            c->scratch_bytes < 28 * p->hidden)
            return 0;
        for (k = 0; k < 3 * p->n_dirs; k++)
            if (!act_ok(p->act[k].kind))
                return 0;
        return 1;
    }
    if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS)
        return tissue_handles(c);
    if (c->kind == KP_LAYERNORM) /* issue 20, red; the other red kinds keep their C kernel */
        return layernorm_handles(c);
    if (c->kind == KP_CONV || c->kind == KP_POOL) /* issue 20, conv */
        return conv_handles(c);
    if (c->kind == KP_RNN_Q) /* issue 22 */
        return rnnq_handles(c);
    return 0;
}

/* --- module, passes, object file ------------------------------------------------------ */

static void
init_targets(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeARMTargetInfo();
    LLVMInitializeARMTarget();
    LLVMInitializeARMTargetMC();
    LLVMInitializeARMAsmPrinter();
}

/* Whether the comma-separated LLVM feature list turns feature name on (1) or off (0), the
 * last mention winning as in LLVM; -1 when it does not mention it. */
static int
feature_state(const char *features, const char *name)
{
    size_t n = strlen(name);
    int state = -1;
    const char *p = features;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n + 1 && (p[0] == '+' || p[0] == '-') && strncmp(p + 1, name, n) == 0)
            state = p[0] == '+';
        p += len + (end != NULL);
    }
    return state;
}

/* vdpbf16ps at vl floats per vector (x86 features): AVX-512 BF16, with AVX-512 VL below 16. */
static int
bf16_dot(const char *features, int vl)
{
    return feature_state(features, "avx512bf16") == 1 &&
           (vl == 16 || (vl >= 4 && feature_state(features, "avx512vl") == 1));
}

/* Floats per vector register for the target's features. 32-bit Arm has float vectors only
 * with NEON, which a profile must name (+neon): Cortex-M (thumbv7em, FPU only) gets 1, so
 * the tiles are scalar accumulators in the FPU's registers rather than <4 x float> values
 * LLVM would split into scalars anyway, with four times the register pressure. AArch64
 * always has NEON unless the profile says -neon. */
static int
vector_floats(const char *triple, const char *features)
{
    if (strncmp(triple, "x86_64", 6) == 0 || strncmp(triple, "i686", 4) == 0) {
        if (strstr(features, "+avx512f"))
            return 16;
        if (strstr(features, "+avx"))
            return 8;
    }
    if (strncmp(triple, "arm", 3) == 0 || strncmp(triple, "thumb", 5) == 0)
        return feature_state(features, "neon") == 1 ? 4 : 1;
    if (strncmp(triple, "aarch64", 7) == 0)
        return feature_state(features, "neon") == 0 ? 1 : 4;
    return 4; /* SSE */
}

/* Whether cpu is one of the names in list (NULL-terminated); a name ending in '*' is a
 * prefix. */
static int
cpu_in(const char *cpu, const char *const *list)
{
    for (; *list; list++) {
        size_t n = strlen(*list);
        if ((*list)[n - 1] == '*' ? strncmp(cpu, *list, n - 1) == 0 : strcmp(cpu, *list) == 0)
            return 1;
    }
    return 0;
}

/* The integer dot-product instructions of an Arm target (the full-integer kernel,
 * rnnq.c): named in the features, or implied by the CPU (LLVM's processor definitions;
 * the features the profile names win, "-dotprod" turning it off on a core that has it). */
static void
arm_int_features(kg *g, const char *triple, const char *cpu, const char *features)
{
    static const char *const dotprod[] = {
        "cortex-a55",      "cortex-a65*", "cortex-a75",  "cortex-a76*", "cortex-a77",
        "cortex-a78*",     "cortex-a510", "cortex-a520", "cortex-a710", "cortex-a715",
        "cortex-a720",     "cortex-x*",   "neoverse-n*", "neoverse-v*", "neoverse-e1",
        "neoverse-512tvb", "apple-a13",   "apple-a14",   "apple-a15",   "apple-a16",
        "apple-a17",       "apple-m*",    "ampere1*",    "exynos-m4",   "exynos-m5",
        "tsv110",          NULL};
    static const char *const dsp[] = {"cortex-m4",  "cortex-m7",  "cortex-m33", "cortex-m35p",
                                      "cortex-m52", "cortex-m55", "cortex-m85", NULL};
    static const char *const mve[] = {"cortex-m52", "cortex-m55", "cortex-m85", NULL};
    int s;

    if (strncmp(triple, "aarch64", 7) == 0) {
        s = feature_state(features, "dotprod");
        g->arm_dotprod = s == 1 || (s == -1 && cpu_in(cpu, dotprod));
        return;
    }
    if (strncmp(triple, "thumbv7em", 9) && strncmp(triple, "thumbv8m.main", 13) &&
        strncmp(triple, "thumbv8.1m.main", 15))
        return; /* the M-profile cores with the DSP extension */
    s = feature_state(features, "dsp");
    g->arm_dsp = s == 1 || (s == -1 && cpu_in(cpu, dsp));
    s = feature_state(features, "mve");
    if (s == -1)
        s = feature_state(features, "mve.fp");
    g->arm_mve = s == 1 || (s == -1 && cpu_in(cpu, mve));
}

/*
 * LLVMCreateTargetMachine with a check of the CPU and feature names. LLVM only prints
 * "'+x' is not a recognized feature for this target (ignoring feature)" (or "processor")
 * on stderr and goes on, which would give an object for a different CPU than the profile
 * says; so stderr is captured while the target machine (and with it the subtarget) is made,
 * and such a warning is an error naming the profile. Anything else LLVM prints is passed on.
 */
static LLVMTargetMachineRef
checked_target_machine(LLVMTargetRef tgt, const char *triple, const char *cpu, const char *features,
                       const char *tname, diag *d)
{
    LLVMTargetMachineRef tm;
    FILE *cap = tmpfile();
    int saved = -1, bad = 0;
    char line[512];

    fflush(stderr);
    if (cap)
        saved = dup(2);
    if (saved >= 0 && dup2(fileno(cap), 2) < 0) {
        close(saved);
        saved = -1;
    }
    tm = LLVMCreateTargetMachine(tgt, triple, cpu, features, LLVMCodeGenLevelAggressive,
                                 LLVMRelocPIC, LLVMCodeModelDefault);
    if (saved < 0) { /* no capture possible: make the machine unchecked */
        if (cap)
            fclose(cap);
        return tm;
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    while (fgets(line, sizeof line, cap)) {
        line[strcspn(line, "\n")] = '\0';
        if (strstr(line, "is not a recognized")) {
            diag_error(d, "target '%s': LLVM for '%s' (cpu %s, features '%s'): %s", tname, triple,
                       cpu, features, line);
            bad = 1;
            break; /* LLVM repeats the warning once per table it looks in */
        } else if (line[0]) {
            fprintf(stderr, "%s\n", line);
        }
    }
    fclose(cap);
    if (bad && tm) {
        LLVMDisposeTargetMachine(tm);
        tm = NULL;
    }
    return tm;
}

/* --- the kernels of a program ------------------------------------------------------------ */

/* Build the function for call i, named <name>_k<i>, with the runtime kernel's signature. */
static void
emit_call(kg *g, const char *name, const kp_call *c, int i)
{
    LLVMTypeRef params[20];
    unsigned n = c->kind == KP_RNN_PROJ || c->kind == KP_LAYERNORM || c->kind == KP_CONV ? 5
                 : c->kind == KP_POOL                                                    ? 3
                 : c->kind == KP_LSTM_DRS                                                ? 14
                 : c->kind == KP_RNN_Q                                                   ? 13
                                                                                         : 12,
             k;
    LLVMTypeRef fty;
    LLVMBasicBlockRef body;
    char fname[256];
    unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);

    for (k = 0; k < n; k++)
        params[k] = g->ptr;
    if (c->kind == KP_LSTM_DRS)
        params[1] = g->f32; /* alpha_intra */
    if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS) {
        n = c->kind == KP_LSTM_TISSUE ? 16 : 20; /* alpha_inter (and alpha_intra) floats */
        for (k = 0; k < n; k++)
            params[k] = g->ptr;
        params[1] = g->f32;
        params[2] = c->kind == KP_LSTM_TISSUE ? g->ptr : g->f32;
    }
    fty = LLVMFunctionType(g->i32, params, n, 0);
    snprintf(fname, sizeof fname, "%s_k%d", name, i);
    body = fn_add(g, fname, fty);
    for (k = 1; k < n; k++)
        if (LLVMGetTypeKind(params[k]) == LLVMPointerTypeKind)
            LLVMAddAttributeAtIndex(g->fn, k + 1, LLVMCreateEnumAttribute(g->cx, noalias, 0));
    g->wfmt = c->wfmt; /* the register tiles read it (emit_tile) */
    if (c->kind == KP_RNN_PROJ && g->threads > 1) {
        proj_rows(g, c, LLVMGetParam(g->fn, 0), 1); /* the run's rows checked, once */
        emit_mt(g, c, fname, g->threads, 5, emit_proj_mt_body);
    } else if (c->kind == KP_RNN_PROJ)
        emit_proj(g, c);
    else if (c->kind == KP_LSTM_DRS && g->threads > 1)
        emit_drs_mt(g, c, fname, g->threads);
    else if (c->kind == KP_LSTM_DRS)
        emit_drs(g, c);
    else if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_TISSUE_DRS)
        emit_tissue(g, c, c->kind == KP_LSTM_TISSUE_DRS, fname);
    else if (c->kind == KP_LAYERNORM)
        emit_layernorm(g, c);
    else if (c->kind == KP_RNN_Q)
        emit_rnnq(g, c, fname);
    else if ((c->kind == KP_CONV || c->kind == KP_POOL) && g->threads > 1) {
        if (c->dyn)
            emit_conv_dim_check(g, c); /* the run's sizes checked, once */
        emit_mt(g, c, fname, g->threads, c->kind == KP_POOL ? 3 : 5, emit_conv_mt_body);
    } else if (c->kind == KP_CONV || c->kind == KP_POOL)
        emit_conv(g, c);
    else if (g->threads > 1)
        emit_rec_mt(g, c, fname, g->threads);
    else
        emit_rec(g, c);
    g->wfmt = 0;
    LLVMPositionBuilderAtEnd(g->ab, g->alloca_bb);
    LLVMBuildBr(g->ab, body);
}

int
llvm_target_open(const cg_options *o, llvm_target *lt, diag *d)
{
    const target *t = o->t ? o->t : target_resolve(o->target ? o->target : "host", d);
    const char *tname = o->target ? o->target : "host";
    LLVMTargetRef tgt;
    char *err = NULL;
    int n_diag;

    memset(lt, 0, sizeof *lt);
    if (!t)
        return -1; /* reported by target_resolve */
    lt->t = t;
    init_targets();
    if (!t->triple || !t->triple[0]) { /* the host: its triple, CPU and detected features */
        lt->triple = LLVMGetDefaultTargetTriple();
        lt->cpu = t->cpu && t->cpu[0] ? LLVMCreateMessage(t->cpu) : LLVMGetHostCPUName();
        lt->features = t->features && t->features[0] ? LLVMCreateMessage(t->features)
                                                     : LLVMGetHostCPUFeatures();
    } else {
        /* normalised: "thumbv7em-none-eabihf" has its environment (eabihf, the hard-float
         * ABI) in the OS position, which LLVM only finds after normalising; unnormalised,
         * the object silently gets the soft-float ABI */
        lt->triple = LLVMNormalizeTargetTriple(t->triple);
        lt->cpu = LLVMCreateMessage(t->cpu && t->cpu[0] ? t->cpu : "generic");
        lt->features = LLVMCreateMessage(t->features ? t->features : "");
    }
    if (LLVMGetTargetFromTriple(lt->triple, &tgt, &err)) {
        diag_error(d, "target '%s': this lstmc's LLVM has no backend for triple '%s' (%s)", tname,
                   lt->triple, err ? err : "unknown");
        LLVMDisposeMessage(err);
        llvm_target_close(lt);
        return -1;
    }
    n_diag = diag_count(d);
    lt->tm = checked_target_machine(tgt, lt->triple, lt->cpu, lt->features, tname, d);
    if (!lt->tm) {
        if (diag_count(d) == n_diag) /* else checked_target_machine said why */
            diag_error(d, "target '%s': LLVM cannot make a target machine for '%s' (cpu %s)", tname,
                       lt->triple, lt->cpu);
        llvm_target_close(lt);
        return -1;
    }
    return 0;
}

void
llvm_target_close(llvm_target *lt)
{
    if (lt->tm)
        LLVMDisposeTargetMachine(lt->tm);
    LLVMDisposeMessage(lt->triple);
    LLVMDisposeMessage(lt->cpu);
    LLVMDisposeMessage(lt->features);
    memset(lt, 0, sizeof *lt);
}

void
llvm_module_for(LLVMModuleRef m, const llvm_target *lt)
{
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(lt->tm);
    char *dl = LLVMCopyStringRepOfTargetData(td);
    LLVMSetTarget(m, lt->triple);
    LLVMSetDataLayout(m, dl);
    LLVMDisposeMessage(dl);
    LLVMDisposeTargetData(td);
}

int
cg_llvm_kernels(ir_graph *gr, kprog *kp, const cg_options *o, unsigned char *handled, diag *d)
{
    const target *t;
    const char *triple, *features;
    char *err = NULL;
    char path[4096], fname[256];
    llvm_target lt;
    LLVMTargetMachineRef tm;
    LLVMPassBuilderOptionsRef pbo;
    LLVMErrorRef perr;
    kg g;
    int i, n = 0, rc = -1, hwpf;

    for (i = 0; i < kp->n_calls; i++) {
        handled[i] = (unsigned char)cg_llvm_handles(&kp->calls[i]);
        n += handled[i];
    }
    if (llvm_target_open(o, &lt, d) < 0)
        return -1;
    t = lt.t;
    tm = lt.tm;
    triple = lt.triple;
    features = lt.features;

    memset(&g, 0, sizeof g);
    g.cx = LLVMContextCreate();
    snprintf(fname, sizeof fname, "%s_kernels", o->name);
    g.m = LLVMModuleCreateWithNameInContext(fname, g.cx);
    llvm_module_for(g.m, &lt);
    g.b = LLVMCreateBuilderInContext(g.cx);
    g.ab = LLVMCreateBuilderInContext(g.cx);
    g.f32 = LLVMFloatTypeInContext(g.cx);
    g.i32 = LLVMInt32TypeInContext(g.cx);
    g.i64 = LLVMInt64TypeInContext(g.cx);
    g.i1 = LLVMInt1TypeInContext(g.cx);
    g.ptr = LLVMPointerTypeInContext(g.cx, 0);
    g.vl = kparams_vl(t, vector_floats(triple, features), d);
    if (g.vl < 0)
        goto out_module;
    if (strncmp(triple, "x86_64", 6) == 0) {
        g.x86_avx512bw = feature_state(features, "avx512bw") == 1;
        g.x86_vnni = g.x86_avx512bw && feature_state(features, "avx512vnni") == 1;
        g.x86_avx2 = feature_state(features, "avx2") == 1;
        g.x86_bf16 = bf16_dot(features, g.vl);
    }
    for (i = 0; i < 2 * TK_N_CLASSES; i++) { /* issue 23: the bf16 dot product, if there is one */
        const int(*kc)[TK_N_PARAMS] = i < TK_N_CLASSES ? t->kernels.rec : t->kernels.proj;
        const int cls = i % TK_N_CLASSES;
        if (kc[cls][TK_DOT] > 1 && !g.x86_bf16) {
            const int all = kc[0][TK_DOT] == kc[1][TK_DOT] && kc[1][TK_DOT] == kc[2][TK_DOT];
            diag_error(d,
                       "target profile '%s': field 'kernels.%s.%s.dot' asks for the AVX-512 "
                       "BF16 dot product (vdpbf16ps); its CPU (%s) has none%s",
                       t->name, i < TK_N_CLASSES ? "rec" : "proj",
                       all ? "all" : target_class_names[cls], lt.cpu,
                       g.vl > 1 && g.vl < 16 ? " at this vector width" : "");
            diag_note(d, NULL,
                      "dot 0 (or no dot field: the default on such a CPU) widens bf16 "
                      "weights to fp32");
            goto out_module;
        }
    }
    for (i = 0; i < TK_N_CLASSES * TK_N_PARAMS; i++) /* the VNNI kernel's, if there is one */
        if (t->kernels.ints[i / TK_N_PARAMS][i % TK_N_PARAMS] && !g.x86_vnni) {
            const int(*q)[TK_N_PARAMS] = t->kernels.ints, k = i % TK_N_PARAMS;
            const int all = q[0][k] == q[1][k] && q[1][k] == q[2][k];
            diag_error(d,
                       "target profile '%s': field 'kernels.int.%s.%s' sets a parameter of the "
                       "full-integer AVX-512 VNNI kernel; its CPU (%s) has no AVX-512 VNNI",
                       t->name, all ? "all" : target_class_names[i / TK_N_PARAMS],
                       target_kernel_param_names[k], lt.cpu);
            diag_note(d, NULL, "the kernels.int parameters are this machine's: remove them");
            goto out_module;
        }
    hwpf = cg_cpu_streams_without_prefetch(lt.cpu);
    for (i = 0; i < kp->n_calls; i++) /* issue 23: each LLVM call's tile and prefetch */
        if (handled[i])
            kparams_of(t, &kp->calls[i], g.vl, g.x86_bf16, hwpf, rnnq_lays_out(&g, &kp->calls[i]),
                       &kp->calls[i].tune);
        else
            memset(&kp->calls[i].tune, 0, sizeof kp->calls[i].tune);
    g.vf = LLVMVectorType(g.f32, (unsigned)g.vl);
    g.floor_by_cvt = strncmp(triple, "arm", 3) == 0 || strncmp(triple, "thumb", 5) == 0;
    g.f16_native = (strncmp(triple, "x86_64", 6) == 0 && feature_state(features, "f16c") == 1) ||
                   strncmp(triple, "aarch64", 7) == 0;

    arm_int_features(&g, triple, lt.cpu, features);
    g.word32 = strncmp(triple, "arm", 3) == 0 || strncmp(triple, "thumb", 5) == 0;
    g.prefetch = g.vl > 1; /* no vector unit: a microcontroller, no data cache to fill */
    for (i = 0; i < kp->n_calls; i++) {
        const kp_wave *w = kp_wave_of(kp, i);
        if (w && i == w->first) { /* the whole group: one kernel (emit_wave) */
            int panels[KP_WAVE_MAX], l;
            for (l = 0; l < w->n_layers; l++) /* the PROJ of layer l > 0 is at rec[l] - 1 */
                panels[l] = rec_pack_ok(kp, w->rec[l], o) |
                            (l > 0 && rec_pack_ok(kp, w->rec[l] - 1, o)) << 1;
            emit_wave(&g, kp, w, o->name, panels);
        }
        if (w) {
            if (handled[i]) /* the pool's size (codegen/c/schedule.c cg_c_pool_threads) */
                handled[i] = (unsigned char)w->threads;
            continue;
        }
        if (handled[i]) {
            int hint = rec_hint_threads(kp, i, o); /* the step program: the whole's layout */
            g.panels = rec_pack_ok(kp, i, o);
            g.rnnq_laid = rnnq_lays_out(&g, &kp->calls[i])
                              ? rnnq_pack_ok(kp, i, 0, o) | rnnq_pack_ok(kp, i, 1, o) << 1
                              : 0;
            g.threads = hint > 1 ? hint
                        : kp->calls[i].kind == KP_CONV || kp->calls[i].kind == KP_POOL
                            ? conv_threads(&kp->calls[i], o->threads, t->cores, g.vl)
                            : rec_threads(kp, i, o, t);
            g.serial = hint > 1;
            if (g.threads > 1)
                handled[i] = (unsigned char)g.threads;
            emit_call(&g, o->name, &kp->calls[i], i);
            g.serial = 0;
        }
    }

    for (i = 0; i < kp->n_calls; i++) /* the int kernel's W.x rows on its threads, reported */
        if (kp->calls[i].tune.kind == 3)
            kp->calls[i].tune.v[TK_ROWS] = rnnq_rows(&kp->calls[i], &kp->calls[i].tune, handled[i]);
    if (LLVMVerifyModule(g.m, LLVMReturnStatusAction, &err)) {
        diag_error(d, "internal error: the LLVM kernels do not verify: %s", err);
        LLVMDisposeMessage(err);
        goto out_module;
    }
    LLVMDisposeMessage(err);
    err = NULL;
    if (t->kernels.vector_bits) { /* the vectorisers too (issue 23): no wider vectors */
        char bits[16];
        LLVMValueRef f;
        snprintf(bits, sizeof bits, "%d", 32 * g.vl);
        for (f = LLVMGetFirstFunction(g.m); f; f = LLVMGetNextFunction(f))
            if (!LLVMIsDeclaration(f))
                LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                        LLVMCreateStringAttribute(g.cx, "prefer-vector-width", 19,
                                                                  bits, (unsigned)strlen(bits)));
    }
    pbo = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(pbo, 1);
    LLVMPassBuilderOptionsSetSLPVectorization(pbo, 1);
    LLVMPassBuilderOptionsSetLoopUnrolling(pbo, 1);
    perr = LLVMRunPasses(g.m, "default<O3>", tm, pbo);
    LLVMDisposePassBuilderOptions(pbo);
    if (perr) {
        char *msg = LLVMGetErrorMessage(perr);
        diag_error(d, "internal error: LLVM passes failed: %s", msg);
        LLVMDisposeErrorMessage(msg);
        goto out_module;
    }
    if (snprintf(path, sizeof path, "%s/%s.o", o->outdir, fname) >= (int)sizeof path) {
        diag_error(d, "output path '%s/%s.o' is too long", o->outdir, fname);
        goto out_module;
    }
    if (LLVMTargetMachineEmitToFile(tm, g.m, path, LLVMObjectFile, &err)) {
        diag_error(d, "cannot write '%s': %s", path, err ? err : "LLVM error");
        LLVMDisposeMessage(err);
        remove(path);
        goto out_module;
    }
    for (i = 0; i < kp->n_calls; i++) /* the weights as the kernels read them */
        if ((kp->calls[i].kind == KP_RNN_REC || kp->calls[i].kind == KP_RNN_PROJ) &&
            kp->calls[i].in[1] &&
            (*kp_wlayout(kp, kp->calls[i].in[1]) || (handled[i] && rec_pack_ok(kp, i, o))) &&
            rec_relayout(gr, kp, i,
                         handled[i] && rec_pack_ok(kp, i, o)
                             ? PANELS_KEY(g.vl, kp_wave_of(kp, i) ? 1 : handled[i],
                                          kp->calls[i].tune.v[TK_TILE],
                                          rec_dot(&g, &kp->calls[i].tune, kp->calls[i].wfmt, 1) > 0)
                             : 0,
                         d) < 0)
            goto out_module;
    for (i = 0; i < kp->n_calls; i++) { /* a full-integer layer's W and U (VNNI) */
        const kp_call *c = &kp->calls[i];
        int u;
        for (u = 0; c->kind == KP_RNN_Q && u < 2; u++) {
            const int laid = handled[i] && rnnq_lays_out(&g, c) && rnnq_pack_ok(kp, i, u, o);
            if (c->in[1 + u] && c->in[1 + u]->data && (*kp_wlayout(kp, c->in[1 + u]) || laid) &&
                rnnq_relayout(
                    gr, kp, i, u,
                    laid ? RNNQ_KEY(handled[i], u, rnnq_tile_blocks(c, u, handled[i])) : 0, d) < 0)
                goto out_module;
        }
    }
    rc = n;
out_module:
    LLVMDisposeBuilder(g.b);
    LLVMDisposeBuilder(g.ab);
    LLVMDisposeModule(g.m);
    LLVMContextDispose(g.cx);
    llvm_target_close(&lt);
    return rc;
}

int
cg_llvm_available(void)
{
    return 1;
}

/* The host CPU's x86 feature: 0 the bf16 dot product, 1 AVX-512 VNNI (0 on another host). */
static int
host_x86_has(int what)
{
#if defined(__x86_64__)
    char *f = LLVMGetHostCPUFeatures();
    const int r = what == 0
                      ? bf16_dot(f, vector_floats("x86_64", f))
                      : feature_state(f, "avx512bw") == 1 && feature_state(f, "avx512vnni") == 1;
    LLVMDisposeMessage(f);
    return r;
#else
    (void)what;
    return 0;
#endif
}

int
cg_host_bf16_dot(void)
{
    return host_x86_has(0);
}

int
cg_host_vnni(void)
{
    return host_x86_has(1);
}

int
cg_cpu_streams_without_prefetch(const char *cpu)
{
    char *host = NULL;
    int zen;
    if (!cpu || !*cpu)
        cpu = host = LLVMGetHostCPUName();
    zen = strncmp(cpu, "znver", 5) == 0;
    if (host)
        LLVMDisposeMessage(host);
    return zen;
}

#else /* !LSTMC_HAVE_LLVM */

int
cg_llvm_handles(const kp_call *c)
{
    (void)c;
    return 0;
}

int
cg_llvm_kernels(ir_graph *gr, kprog *kp, const cg_options *o, unsigned char *handled, diag *d)
{
    (void)gr;
    (void)kp;
    (void)o;
    (void)handled;
    diag_error(d, "--emit=llvm: this lstmc was built without LLVM (install llvm-19-dev and "
                  "rebuild), use --emit=c");
    return -1;
}

int
cg_llvm_available(void)
{
    return 0;
}

int
cg_cpu_streams_without_prefetch(const char *cpu)
{
    (void)cpu;
    return 0;
}

int
cg_host_bf16_dot(void)
{
    return 0;
}

int
cg_host_vnni(void)
{
    return 0;
}

#endif
