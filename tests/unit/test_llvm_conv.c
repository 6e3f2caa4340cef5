/*
 * test_llvm_conv.c — which Conv and pool calls the LLVM backend takes (codegen/llvm/conv.c,
 * issue 20) and which it leaves to the C kernels (rt_conv.c): the geometries of the
 * fixtures and the bench models are handled; ConvTranspose, BatchNormalization, geometries
 * rt_conv.c refuses, more edge columns or taps than the kernel unrolls, and an unknown
 * pool kind are declined. The values the kernels compute are checked elsewhere: against
 * the C kernels in tests/backends (conv and pool rows), against ONNX Runtime by the conv,
 * pool and model fixtures (tests/e2e, tests/cross under qemu, cm4_ on the Cortex-M4 board).
 */
#include "codegen.h"
#include "ir.h"
#include "kprog.h"
#include "lstmc_rt_kernels.h"

#include <criterion/criterion.h>
#include <string.h>

/* Stand-ins for the buffers of a hand-made call: only whether each is NULL matters. */
static ir_tensor present[3];

/* A Conv call: N 1, channels ci -> co in groups, [h, w] -> [oh, ow], kernel kh x kw,
 * strides, dilations, pads as given; bias when b. */
static kp_call
conv_call(int64_t ci, int64_t co, int64_t group, int64_t h, int64_t w, int64_t kh, int64_t kw,
          int64_t s, int64_t dil, int64_t pad, int b)
{
    kp_call c;
    lstmc_rt_conv_params *p = &c.p.conv;
    memset(&c, 0, sizeof c);
    c.kind = KP_CONV;
    p->n = 1, p->c_in = ci, p->c_out = co, p->group = group;
    p->in_h = h, p->in_w = w, p->k_h = kh, p->k_w = kw;
    p->stride_h = h > 1 ? s : 1, p->stride_w = s, p->dil_h = h > 1 ? dil : 1, p->dil_w = dil;
    p->pad_h = h > 1 ? pad : 0, p->pad_w = pad;
    p->out_h = (h + 2 * p->pad_h - (kh - 1) * p->dil_h - 1) / p->stride_h + 1;
    p->out_w = (w + 2 * pad - (kw - 1) * dil - 1) / s + 1;
    c.n_in = 3;
    c.in[0] = &present[0];
    c.in[1] = &present[1];
    c.in[2] = b ? &present[2] : NULL;
    c.n_out = 1;
    return c;
}

static kp_call
pool_call(int kind, int incl, int64_t nc, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t s,
          int64_t pad)
{
    kp_call c;
    lstmc_rt_pool_params *p = &c.p.pool;
    memset(&c, 0, sizeof c);
    c.kind = KP_POOL;
    p->kind = kind, p->count_include_pad = incl;
    p->nc = nc, p->in_h = h, p->in_w = w, p->k_h = kh, p->k_w = kw;
    p->stride_h = p->stride_w = s, p->dil_h = p->dil_w = 1, p->pad_h = p->pad_w = pad;
    p->out_h = (h + 2 * pad - kh) / s + 1;
    p->out_w = (w + 2 * pad - kw) / s + 1;
    c.n_in = 1;
    c.in[0] = &present[0];
    c.n_out = 1;
    return c;
}

static void
skip_without_llvm(void)
{
    if (!cg_llvm_available())
        cr_skip_test("lstmc built without LLVM");
}

Test(llvm_conv, handles_the_front_end_geometries)
{
    kp_call c;
    skip_without_llvm();
    /* the CRNN's Conv2d 1 -> 8 and 8 -> 16, 3 x 3, pad 1 */
    c = conv_call(1, 8, 1, 20, 32, 3, 3, 1, 1, 1, 1);
    cr_assert(cg_llvm_handles(&c));
    c = conv_call(8, 16, 1, 10, 16, 3, 3, 1, 1, 1, 1);
    cr_assert(cg_llvm_handles(&c));
    /* the VAD's STFT: 1 -> 66, kernel 64, stride 32, no pad, no bias */
    c = conv_call(1, 66, 1, 1, 384, 1, 64, 32, 1, 0, 0);
    cr_assert(cg_llvm_handles(&c));
    /* DS-CNN's depthwise Conv1d (group = channels, kernel 5, pad 2) and pointwise */
    c = conv_call(32, 32, 32, 1, 24, 1, 5, 1, 1, 2, 1);
    cr_assert(cg_llvm_handles(&c));
    c = conv_call(32, 32, 1, 1, 24, 1, 1, 1, 1, 0, 1);
    cr_assert(cg_llvm_handles(&c));
    /* strided and dilated, two groups, 2-D */
    c = conv_call(4, 6, 2, 9, 37, 3, 5, 2, 2, 3, 1);
    cr_assert(cg_llvm_handles(&c));
    /* the pools: max 2 x 2 stride 2, average with and without the pad, a global pool */
    c = pool_call(LSTMC_RT_POOL_MAX, 0, 8, 20, 32, 2, 2, 2, 0);
    cr_assert(cg_llvm_handles(&c));
    c = pool_call(LSTMC_RT_POOL_AVG, 0, 3, 7, 11, 3, 3, 2, 1);
    cr_assert(cg_llvm_handles(&c));
    c = pool_call(LSTMC_RT_POOL_AVG, 1, 3, 7, 11, 3, 3, 2, 1);
    cr_assert(cg_llvm_handles(&c));
    c = pool_call(LSTMC_RT_POOL_MAX, 0, 16, 5, 16, 5, 16, 1, 0);
    cr_assert(cg_llvm_handles(&c));
}

Test(llvm_conv, declines_the_rest)
{
    kp_call c;
    skip_without_llvm();
    /* ConvTranspose and BatchNormalization keep their C kernels */
    c = conv_call(4, 4, 1, 1, 16, 1, 3, 1, 1, 1, 1);
    c.kind = KP_CONV_TRANSPOSE;
    cr_assert_not(cg_llvm_handles(&c));
    memset(&c, 0, sizeof c);
    c.kind = KP_BATCHNORM;
    c.p.batchnorm.outer = 1, c.p.batchnorm.channels = 4, c.p.batchnorm.inner = 16;
    cr_assert_not(cg_llvm_handles(&c));
    /* a geometry rt_conv.c refuses: groups that do not divide the channels */
    c = conv_call(4, 6, 4, 1, 16, 1, 3, 1, 1, 1, 1);
    cr_assert_not(cg_llvm_handles(&c));
    /* more edge columns than the kernel emits one by one (pads of 20 on both sides) */
    c = conv_call(2, 2, 1, 1, 100, 1, 3, 1, 1, 20, 1);
    cr_assert_not(cg_llvm_handles(&c));
    /* a kernel longer than the taps it unrolls */
    c = conv_call(1, 4, 1, 1, 2000, 1, 1024, 256, 1, 0, 1);
    cr_assert_not(cg_llvm_handles(&c));
    /* an unknown pool kind, and a missing weight */
    c = pool_call(7, 0, 3, 7, 11, 3, 3, 2, 1);
    cr_assert_not(cg_llvm_handles(&c));
    c = conv_call(4, 4, 1, 1, 16, 1, 3, 1, 1, 1, 1);
    c.in[1] = NULL;
    cr_assert_not(cg_llvm_handles(&c));
}
