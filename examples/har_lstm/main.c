/*
 * main.c — using a generated library the way firmware does: a static arena, no heap.
 *
 * Build after `lstmc examples/har_lstm/model.onnx --target=host --name=har -o build/har`:
 *   cc -O2 -Ibuild/har -Ibuild/har/runtime/include examples/har_lstm/main.c \
 *      build/har/libhar.a -lm -o build/har_demo
 *
 * It feeds 128 steps of a synthetic 9-channel signal (a slow sine on every channel, as an
 * accelerometer would see walking) and prints the six class probabilities.
 */
#include <math.h>
#include <stdio.h>

#include "har.h"

/* The arena, aligned by hand so the example needs no compiler extension. */
static unsigned char arena_raw[HAR_ARENA_SIZE + LSTMC_RT_ALIGN];
static float signal[HAR_INPUT_0_NUMEL]; /* [1, 128, 9] */
static float probs[HAR_OUTPUT_0_NUMEL]; /* [1, 6] */

int
main(void)
{
    unsigned char *arena =
        arena_raw + (LSTMC_RT_ALIGN - (size_t)arena_raw % LSTMC_RT_ALIGN) % LSTMC_RT_ALIGN;
    const void *inputs[HAR_N_INPUTS];
    void *outputs[HAR_N_OUTPUTS];
    har_ctx ctx;
    lstmc_rt_status st;
    int t, ch, best = 0;

    for (t = 0; t < 128; t++)
        for (ch = 0; ch < 9; ch++)
            signal[t * 9 + ch] = 0.5f * sinf(0.2f * (float)t + 0.7f * (float)ch);
    inputs[0] = signal;
    outputs[0] = probs;
    st = har_init(&ctx, arena, HAR_ARENA_SIZE);
    if (st == LSTMC_RT_OK)
        st = har_run(&ctx, inputs, outputs);
    if (st != LSTMC_RT_OK) {
        fprintf(stderr, "har: %s\n", lstmc_rt_status_str(st));
        return 1;
    }
    printf("arena %u bytes; class probabilities:", (unsigned)HAR_ARENA_SIZE);
    for (ch = 0; ch < 6; ch++) {
        printf(" %.4f", (double)probs[ch]);
        if (probs[ch] > probs[best])
            best = ch;
    }
    printf("\nmost likely class: %d\n", best);
    return 0;
}
