/*
 * cost.c — GPU or CPU (docs/OPENCL.md, "GPU or CPU: the policy"; MobiRNN §4.5): the run-time
 * policy written into <name>_ocl.c (gpu, cpu, auto: measured), and the compile-time cost
 * model of policy `model`, which predicts each offloaded call's time on both sides from the
 * target profile.
 */
#include "opencl_impl.h"

#include <stdio.h>

/* The profile's figures, or rough defaults where it has none (a built-in profile; `lstmc
 * profile` measures all three). */
static void
cost_inputs(const ocl_plan *P, double *launch_us, double *gpu_gflops, double *cpu_gflops)
{
    const target *t = P->t;
    *launch_us = t->gpu_launch_us > 0 ? t->gpu_launch_us : 20.0;
    *gpu_gflops = t->gpu_gflops > 0 ? t->gpu_gflops
                  : t->gpu_compute_units > 0 && t->gpu_mhz > 0
                      ? 0.25 * 64e-3 * t->gpu_compute_units * t->gpu_mhz /* 25 % of 32 FMA/clk */
                      : 2.0;
    *cpu_gflops = t->cpu_gflops > 0 ? t->cpu_gflops : 2.0;
}

/* Predicted microseconds of offloaded call c on the device and on one CPU core: launches
 * times the launch overhead plus the flops at the measured rate of the recurrent product
 * (which includes the U traffic of the sizes profiled). */
static void
cost_of(const ocl_plan *P, const kp_call *c, double *gpu_us, double *cpu_us)
{
    const lstmc_rt_rnn_params *p = ocl_rec_params(c);
    double launch, gg, cg, flops = 0, launches = 0;
    cost_inputs(P, &launch, &gg, &cg);
    if (c->kind == KP_RNN_PROJ || c->kind == KP_RNN) {
        const int64_t rows = c->kind == KP_RNN_PROJ ? c->p.proj.rows : p->seq_len * p->batch;
        const int64_t in = c->kind == KP_RNN_PROJ ? c->p.proj.input_size : p->input_size;
        const int64_t gh = c->kind == KP_RNN_PROJ ? gates(c->p.proj.cell) * c->p.proj.hidden
                                                  : gates(p->cell) * p->hidden;
        const int D = c->kind == KP_RNN_PROJ ? c->p.proj.n_dirs : p->n_dirs;
        flops += 2.0 * (double)rows * (double)in * (double)gh * D;
        launches += 1;
    }
    if (p) {
        const double G = c->kind == KP_RNN || c->kind == KP_RNN_REC ? (double)gates(p->cell) : 4.0;
        flops += 2.0 * p->n_dirs * (double)p->seq_len * (double)p->batch * (double)p->hidden *
                 G * (double)p->hidden;
        if (c->kind == KP_LSTM_TISSUE || c->kind == KP_LSTM_DRS || ocl_use_loop(P, c))
            launches += 1;
        else
            launches += 2 + (double)p->seq_len *
                                (p->cell == LSTMC_RT_CELL_GRU && !p->linear_before_reset ? 2 : 1);
    }
    *gpu_us = launches * launch + flops / (gg * 1e3);
    *cpu_us = flops / (cg * 1e3);
}

/* ocl_model_cpu[i]: 1 where the cost model puts offloaded call i on the CPU; the
 * predictions as a comment table. */
void
ocl_put_cost_model(FILE *f, const ocl_plan *P)
{
    double launch, gg, cg;
    int i;
    cost_inputs(P, &launch, &gg, &cg);
    fprintf(f, "/* cost model: launch %.1f us, device %.3f GFLOP/s, CPU %.3f GFLOP/s\n", launch,
            gg, cg);
    for (i = 0; i < P->kp->n_calls; i++) {
        double gu, cu;
        if (!P->handled[i])
            continue;
        cost_of(P, &P->kp->calls[i], &gu, &cu);
        fprintf(f, " *   call %d (%s): device %.1f us, CPU %.1f us -> %s\n", i,
                kp_kind_fn(P->kp->calls[i].kind), gu, cu, cu < gu ? "CPU" : "device");
    }
    fputs(" */\nstatic const unsigned char ocl_model_cpu[] = {", f);
    for (i = 0; i < P->kp->n_calls; i++) {
        double gu = 0, cu = 1;
        if (P->handled[i])
            cost_of(P, &P->kp->calls[i], &gu, &cu);
        fprintf(f, "%s%d", i ? ", " : "", cu < gu);
    }
    fprintf(f, "};\nstatic unsigned char ocl_ran_cpu[%d];\n\n", P->kp->n_calls);
}

/* The GPU/CPU choice (MobiRNN §4.5: a busy GPU can make the CPU faster), per run. */
const char ocl_policy_c[] =
    "/* GPU/CPU policy (MobiRNN §4.5): LSTMC_OCL_POLICY=gpu (default), cpu, or auto: the\n"
    " * first run of every OCL_REMEASURE goes to the device, the second to the CPU (the\n"
    " * runtime's C kernels), the others to whichever was faster when last measured. A run's\n"
    " * layers all go to one side, so no tensor is ever on the wrong one. */\n"
    "#define OCL_REMEASURE 64\n"
    "static int ocl_policy, ocl_on_cpu;\nstatic long ocl_runs;\n"
    "static double ocl_ms[2], ocl_t0;\n\n"
    "static double\nocl_now_ms(void)\n{\n    struct timespec t;\n"
    "    clock_gettime(CLOCK_MONOTONIC, &t);\n"
    "    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;\n}\n\n"
    "static void\nocl_run_begin(void)\n{\n"
    "    long phase = ocl_runs++ % OCL_REMEASURE;\n"
    "    if (ocl_policy != LSTMC_OCL_AUTO)\n        ocl_on_cpu = ocl_policy == LSTMC_OCL_CPU;\n"
    "    else\n        ocl_on_cpu = phase == 0 ? 0 : phase == 1 ? 1 : ocl_ms[1] < ocl_ms[0];\n"
    "    ocl_t0 = ocl_now_ms();\n}\n\n"
    "static void\nocl_run_end(void)\n{\n    ocl_ms[ocl_on_cpu] = ocl_now_ms() - ocl_t0;\n}\n\n"
    "/* LSTMC_OCL_POLICY=model: each layer where the cost model (lstmc, from the target\n"
    " * profile) predicts it is faster, decided at compile time: ocl_model_cpu. A tensor made\n"
    " * on one side and read on the other is moved when it is read (ocl_ran_cpu says where\n"
    " * each offloaded call ran in this run). */\n";
