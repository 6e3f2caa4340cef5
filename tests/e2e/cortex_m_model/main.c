/*
 * main.c — one model of the whole-model corpus (tests/fixtures/cases/models.txt) on the
 * Cortex-M4 example board (examples/cortex_m: startup.c, board.h, board.env, mps2_an386.ld,
 * board.json), built by tests/e2e/cortex_m_model.sh. The model is compiled with
 * --name=model; inputs.c (cm_io inputs) holds the case's input tensors as words of their
 * exact bytes. model_run runs once on them and every output goes out through semihosting
 * as exact bits, for cm_io outputs to turn back into .npy files:
 *   "output I NAME"    before the elements of output I (graph order)
 *   "out I K 0xBITS"   element K of output I, two hex digits per byte (8 for float32)
 *   "done"             after the last
 * Memory: the arena (MODEL_ARENA_SIZE) and the output buffers are static; the weights are
 * const (flash); nothing allocates.
 */
#include "board.h"
#include "model.h"

#include <stdint.h>
#include <string.h>

#if MODEL_N_OUTPUTS > 8
#error "more than 8 outputs: add rows below"
#endif

extern const void *const cm_inputs[]; /* inputs.c: the case's inputs in graph order */
extern const int cm_n_inputs;

static unsigned char arena[MODEL_ARENA_SIZE] __attribute__((aligned(LSTMC_RT_ALIGN)));

/* one buffer per output, 8 bytes per element whatever its dtype (the models are small) */
#define OUT_BUF(i) static uint64_t out##i[MODEL_OUTPUT_##i##_NUMEL + 1];
#define OUT_ROW(i)                                                                                 \
    {                                                                                              \
        MODEL_OUTPUT_##i##_NAME, out##i, MODEL_OUTPUT_##i##_DTYPE, MODEL_OUTPUT_##i##_NUMEL        \
    }
#if MODEL_N_OUTPUTS > 0
OUT_BUF(0)
#endif
#if MODEL_N_OUTPUTS > 1
OUT_BUF(1)
#endif
#if MODEL_N_OUTPUTS > 2
OUT_BUF(2)
#endif
#if MODEL_N_OUTPUTS > 3
OUT_BUF(3)
#endif
#if MODEL_N_OUTPUTS > 4
OUT_BUF(4)
#endif
#if MODEL_N_OUTPUTS > 5
OUT_BUF(5)
#endif
#if MODEL_N_OUTPUTS > 6
OUT_BUF(6)
#endif
#if MODEL_N_OUTPUTS > 7
OUT_BUF(7)
#endif

static const struct out {
    const char *name;
    void *buf;
    int32_t dtype;
    long numel;
} outs[MODEL_N_OUTPUTS] = {
#if MODEL_N_OUTPUTS > 0
    OUT_ROW(0),
#endif
#if MODEL_N_OUTPUTS > 1
    OUT_ROW(1),
#endif
#if MODEL_N_OUTPUTS > 2
    OUT_ROW(2),
#endif
#if MODEL_N_OUTPUTS > 3
    OUT_ROW(3),
#endif
#if MODEL_N_OUTPUTS > 4
    OUT_ROW(4),
#endif
#if MODEL_N_OUTPUTS > 5
    OUT_ROW(5),
#endif
#if MODEL_N_OUTPUTS > 6
    OUT_ROW(6),
#endif
#if MODEL_N_OUTPUTS > 7
    OUT_ROW(7),
#endif
};

/* v in decimal into p; returns the end */
static char *
put_uint(char *p, unsigned long v)
{
    char buf[24];
    int n = 0;
    do {
        buf[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = buf[--n];
    return p;
}

/* the low 4 * digits bits of v in hex into p; returns the end */
static char *
put_hex(char *p, uint64_t v, int digits)
{
    int i;
    *p++ = '0';
    *p++ = 'x';
    for (i = digits - 1; i >= 0; i--)
        *p++ = "0123456789abcdef"[(v >> (4 * i)) & 15];
    return p;
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

int
main(void)
{
    model_ctx ctx;
    void *out_ptrs[MODEL_N_OUTPUTS];
    char line[80], *p;
    int i;
    long k;

    if (cm_n_inputs != MODEL_N_INPUTS) {
        board_puts("inputs.c does not hold the model's inputs\n");
        return 1;
    }
    for (i = 0; i < MODEL_N_OUTPUTS; i++)
        out_ptrs[i] = outs[i].buf;
    if (check("model_init", model_init(&ctx, arena, sizeof arena)) ||
        check("model_run", model_run(&ctx, cm_inputs, out_ptrs)))
        return 1;
    for (i = 0; i < MODEL_N_OUTPUTS; i++) {
        size_t es = lstmc_rt_dtype_size(outs[i].dtype);
        board_puts("output ");
        p = put_uint(line, (unsigned long)i);
        *p = '\0';
        board_puts(line);
        board_puts(" ");
        board_puts(outs[i].name);
        board_puts("\n");
        for (k = 0; k < outs[i].numel; k++) {
            uint64_t v = 0; /* little-endian: the element's bytes are v's low bytes */
            memcpy(&v, (const char *)outs[i].buf + es * (size_t)k, es);
            p = line;
            memcpy(p, "out ", 4);
            p = put_uint(p + 4, (unsigned long)i);
            *p++ = ' ';
            p = put_uint(p, (unsigned long)k);
            *p++ = ' ';
            p = put_hex(p, v, (int)(2 * es));
            *p++ = '\n';
            *p = '\0';
            board_puts(line);
        }
    }
    board_puts("done\n");
    return 0;
}
