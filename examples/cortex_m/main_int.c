/*
 * main_int.c — bare-metal firmware of a full-integer library (lstmc --activations=int8
 * --io=int, issue 22): the trained HAR classifier (tests/train/har) on one recorded window
 * quantised on the host (cm_tool quant), run once with har_run. Nothing here or in the
 * library computes in floating point: the input is int8 (HAR_INPUT_0_SCALE, _ZERO_POINT), the
 * logits int32 (real = HAR_OUTPUT_0_SCALE * value), the class their argmax; the window is
 * also fed one sample at a time through har_step (the integer state in har_state), which
 * must give the same logits. Output through semihosting:
 *   "outq I V"                     logit I as har_run wrote it (int32)
 *   "class C"                      the argmax
 *   "stream_identical 1"           har_step over the window gave the same int32 logits
 *                                  ("none": a library with breakpoints, which does not stream)
 *   "instructions_per_inference N" har_run, in instructions under qemu -icount shift=0
 */
#include <stdint.h>

#include "board.h"
#include "har.h"

extern const int8_t har_input[HAR_INPUT_0_NUMEL];

#define FEATURES (HAR_INPUT_0_NUMEL / HAR_STREAM_SEQ_LEN) /* one sample: [1, 1, 9] */

static unsigned char arena[HAR_ARENA_SIZE] __attribute__((aligned(LSTMC_RT_ALIGN)));
static int32_t logits[HAR_OUTPUT_0_NUMEL];
#ifdef HAR_STREAM_SEQ_LEN
static int32_t logits_stream[HAR_OUTPUT_0_NUMEL];
static har_state state;
#endif

static void
put_int(int64_t v)
{
    char buf[24];
    int n = 0, neg = v < 0;
    uint64_t u = neg ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    do {
        buf[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    {
        char out[26];
        int i, k = 0;
        if (neg)
            out[k++] = '-';
        for (i = 0; i < n; i++)
            out[k++] = buf[n - 1 - i];
        out[k] = '\0';
        board_puts(out);
    }
}

int
main(void)
{
    har_ctx ctx;
    const void *in[1] = {har_input};
    void *out[1] = {logits};
    uint64_t t0, t1;
    int i, best = 0;
#ifdef HAR_STREAM_SEQ_LEN
    int t, same = 1;
#endif

    if (har_init(&ctx, arena, sizeof arena) != LSTMC_RT_OK)
        board_exit(1);
    t0 = board_time_ns();
    if (har_run(&ctx, in, out) != LSTMC_RT_OK)
        board_exit(2);
    t1 = board_time_ns();
    for (i = 0; i < HAR_OUTPUT_0_NUMEL; i++) {
        board_puts("outq ");
        put_int(i);
        board_puts(" ");
        put_int(logits[i]);
        board_puts("\n");
        if (logits[i] > logits[best])
            best = i;
    }
#ifdef HAR_STREAM_SEQ_LEN
    /* the stream: one sample at a time, the int8 state carried in har_state */
    out[0] = logits_stream;
    if (har_reset(&state) != LSTMC_RT_OK)
        board_exit(3);
    for (t = 0; t < HAR_STREAM_SEQ_LEN; t++) {
        in[0] = har_input + t * FEATURES;
        if (har_step(&ctx, &state, 1, in, out) != LSTMC_RT_OK)
            board_exit(4);
    }
    for (i = 0; i < HAR_OUTPUT_0_NUMEL; i++)
        same &= logits_stream[i] == logits[i];
    board_puts("class ");
    put_int(best);
    board_puts(same ? "\nstream_identical 1" : "\nstream_identical 0");
#else /* a library that does not stream (breakpoints cut links inside the window) */
    board_puts("class ");
    put_int(best);
    board_puts("\nstream_identical none");
#endif
    board_puts("\ninstructions_per_inference ");
    put_int((int64_t)(t1 - t0));
    board_puts("\n");
    board_exit(0);
    return 0;
}
