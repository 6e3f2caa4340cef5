/*
 * main.c — bare-metal Cortex-M firmware (every example board: examples/cortex_m*) running an
 * LSTM activity classifier (HAR: 9 sensor channels, 2 LSTM layers of 32, 6 classes) compiled
 * by lstmc, fed one sensor sample at a time through the streaming API, as a device sees them
 * arrive.
 *
 * Memory: everything is static — the step arena (HAR_STREAM_ARENA_SIZE, a few KiB) and the
 * recurrent state (har_state); the weights are const (flash). No heap: the ctest checks that
 * no malloc/free/_sbrk is linked. Output goes through semihosting:
 *   "out I 0xBITS DEC"  element I of the class probabilities after the last sample (exact
 *                       bits, then a readable decimal)
 *   "run_identical 1"   har_run on the whole window gives the same bits
 * and the cost, in instructions when qemu runs with -icount shift=0 (startup.c, board_time_ns):
 *   "calibration_loop_instructions 2N measured M"
 *                       a counted loop of N iterations of two instructions, the check that
 *                       the clock counts instructions (M must be about 2N)
 *   "instructions_per_step S"        har_step, the mean over the window
 *   "instructions_per_inference I"   har_run on the whole window
 */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "har.h"

#define FEATURES      (HAR_INPUT_0_NUMEL / HAR_STREAM_SEQ_LEN) /* one sample: [1, 1, 9] */
#define CALIBRATION_N 1000000u

extern const float har_input[HAR_INPUT_0_NUMEL]; /* a recorded window [1, T, 9] */

static unsigned char stream_arena[HAR_STREAM_ARENA_SIZE] __attribute__((aligned(LSTMC_RT_ALIGN)));
static unsigned char run_arena[HAR_RUN_ARENA_SIZE] __attribute__((aligned(LSTMC_RT_ALIGN)));
static har_state state;
static float probs[HAR_OUTPUT_0_NUMEL], probs_run[HAR_OUTPUT_0_NUMEL];

static void
put_uint(uint64_t v, int min_digits)
{
    char buf[21];
    int n = 0;
    do {
        buf[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v || n < min_digits);
    {
        char out[22];
        int i;
        for (i = 0; i < n; i++)
            out[i] = buf[n - 1 - i];
        out[n] = '\0';
        board_puts(out);
    }
}

static void
put_hex(uint32_t v)
{
    char out[11] = "0x";
    int i;
    for (i = 0; i < 8; i++)
        out[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
    out[10] = '\0';
    board_puts(out);
}

/* the float with these bits with 6 decimals (|x| < 2^32), enough to read; the exact bits are
 * printed too. Integer arithmetic only, so that the firmware itself needs no float: an
 * integer library on an FPU-less core links no soft-float helper (no_float_symbols.sh). */
static void
put_dec(uint32_t bits)
{
    int e = (int)(bits >> 23 & 0xff) - 150; /* x = m * 2^e */
    uint64_t m = (bits & 0x7fffffu) | (e > -150 ? 0x800000u : 0), v;
    if (e == -150) /* subnormal */
        e = -149;
    if (bits >> 31)
        board_puts("-");
    if (e >= 8) { /* 2^32 or more (or inf, nan): not a probability */
        board_puts("big");
        return;
    }
    v = m * 1000000u; /* < 2^44 */
    if (e >= 0)
        v <<= e;
    else
        v = -e < 64 ? (v + ((uint64_t)1 << (-e - 1))) >> -e : 0; /* rounded */
    put_uint(v / 1000000u, 1);
    board_puts(".");
    put_uint(v % 1000000u, 6);
}

static int
check(const char *what, lstmc_rt_status st)
{
    if (st == LSTMC_RT_OK)
        return 0;
    board_puts(what);
    board_puts(": ");
    board_puts(lstmc_rt_status_str(st));
    board_puts("\n");
    return 1;
}

/* N iterations of a two-instruction loop (subs, bne): 2N instructions. gcc's inline assembly
 * is in the divided syntax for Thumb-1 (ARMv6-M), where `sub` is the flag-setting form. */
static void
count_loop(uint32_t n)
{
#if __ARM_ARCH_ISA_THUMB == 1
    __asm__ volatile("1: sub %0, #1\n\tbne 1b" : "+l"(n) : : "cc");
#else
    __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+l"(n) : : "cc");
#endif
}

static void
put_count(const char *what, uint64_t n)
{
    board_puts(what);
    board_puts(" ");
    put_uint(n, 1);
    board_puts("\n");
}

/* a float's bits as an integer of the same order (integer compares: no soft-float helper) */
static int32_t
float_order(const float *x)
{
    int32_t b;
    memcpy(&b, x, sizeof b);
    return b < 0 ? (int32_t)(0x80000000u - (uint32_t)b) : b;
}

static int
argmax(const float *v, int n)
{
    int i, k = 0;
    for (i = 1; i < n; i++)
        if (float_order(&v[i]) > float_order(&v[k]))
            k = i;
    return k;
}

int
main(void)
{
    har_ctx ctx, run_ctx;
    const void *in[1];
    void *out[1];
    uint32_t bits;
    uint64_t t0, t_stream = 0;
    int t, i;

    board_puts("har: LSTM classifier, streaming one sample at a time (lstmc)\n");
    t0 = board_time_ns();
    count_loop(CALIBRATION_N);
    t0 = board_time_ns() - t0;
    board_puts("calibration_loop_instructions ");
    put_uint(2u * CALIBRATION_N, 1);
    put_count(" measured", t0);
    if (check("har_init_stream", har_init_stream(&ctx, stream_arena, sizeof stream_arena)) ||
        check("har_reset", har_reset(&state)))
        return 1;
    for (t = 0; t < HAR_STREAM_SEQ_LEN; t++) {
        in[0] = har_input + t * FEATURES; /* the sample that just arrived */
        out[0] = probs;
        t0 = board_time_ns();
        if (check("har_step", har_step(&ctx, &state, 1, in, out)))
            return 1;
        t_stream += board_time_ns() - t0;
        if ((t + 1) % 32 == 0) {
            board_puts("after ");
            put_uint((uint32_t)(t + 1), 1);
            board_puts(" samples: class ");
            put_uint((uint32_t)argmax(probs, HAR_OUTPUT_0_NUMEL), 1);
            board_puts("\n");
        }
    }
    for (i = 0; i < HAR_OUTPUT_0_NUMEL; i++) {
        memcpy(&bits, &probs[i], sizeof bits);
        board_puts("out ");
        put_uint((uint32_t)i, 1);
        board_puts(" ");
        put_hex(bits);
        board_puts(" ");
        put_dec(bits);
        board_puts("\n");
    }
    /* the whole window at once on the same device: the same bits */
    in[0] = har_input;
    out[0] = probs_run;
    if (check("har_init", har_init(&run_ctx, run_arena, sizeof run_arena)))
        return 1;
    t0 = board_time_ns();
    if (check("har_run", har_run(&run_ctx, in, out)))
        return 1;
    t0 = board_time_ns() - t0;
    put_count("instructions_per_step", t_stream / HAR_STREAM_SEQ_LEN);
    put_count("instructions_per_inference", t0);
    board_puts(memcmp(probs, probs_run, sizeof probs) == 0 ? "run_identical 1\n"
                                                           : "run_identical 0\n");
    return 0;
}
