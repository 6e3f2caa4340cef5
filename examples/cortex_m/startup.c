/*
 * startup.c — the least a Cortex-M4 needs to run C: the vector table, a reset handler that
 * copies .data, clears .bss and turns the FPU on, and semihosting (ARM's debug-host calls,
 * `bkpt 0xab`) for text output and exit, which qemu-system-arm implements with
 * -semihosting-config enable=on. No C library stdio: printf would bring in malloc.
 */
#include <stdint.h>

#include "board.h"

extern uint32_t _estack, _sidata, _sdata, _edata, _sbss, _ebss;
int main(void);
void reset_handler(void);

static void
fault_handler(void)
{
    board_puts("fault\n");
    board_exit(1);
}

__attribute__((section(".isr_vector"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&_estack, /* initial stack pointer */
    reset_handler,
    fault_handler, /* NMI */
    fault_handler, /* HardFault */
    fault_handler, /* MemManage */
    fault_handler, /* BusFault */
    fault_handler, /* UsageFault */
};

void
reset_handler(void)
{
    uint32_t *src = &_sidata, *dst;
    for (dst = &_sdata; dst < &_edata;)
        *dst++ = *src++;
    for (dst = &_sbss; dst < &_ebss;)
        *dst++ = 0;
    /* CPACR: full access to CP10 and CP11, the FPU, before any float instruction */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    board_exit(main());
}

static int
semihost(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void
board_puts(const char *s)
{
    semihost(0x04, s); /* SYS_WRITE0 */
}

void
board_exit(int status)
{
    /* SYS_EXIT with ADP_Stopped_ApplicationExit (qemu exits 0) or RunTimeErrorUnknown (1) */
    semihost(0x18, (const void *)(uintptr_t)(status == 0 ? 0x20026u : 0x20023u));
    for (;;)
        ;
}
