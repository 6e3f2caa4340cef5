/*
 * startup.c — the least a Cortex-M needs to run C, for every example board (ARMv6-M,
 * ARMv7-M, ARMv8-M; examples/cortex_m*): the vector table, a reset handler that copies .data,
 * clears .bss, turns the FPU / Helium on when the code is built for one and starts SysTick,
 * and semihosting (ARM's debug-host calls, `bkpt 0xab`) for text output and exit, which
 * qemu-system-arm implements with -semihosting-config enable=on. No C library stdio: printf
 * would bring in malloc. The ARMv8-M boards (AN505, AN547) boot in the secure state; the
 * code runs there, with the SAU off (everything secure).
 *
 * Time: SysTick counts the core clock (BOARD_CPU_HZ, from board.env) down from 2^24 - 1, and
 * its interrupt counts the wraps, so board_time_ns() is 64-bit. Under qemu -icount shift=0
 * one instruction takes one nanosecond of virtual time, so a difference of board_time_ns()
 * is the number of instructions executed (to within one tick: 1e9 / BOARD_CPU_HZ ns).
 */
#include <stdint.h>

#include "board.h"

#ifndef BOARD_CPU_HZ
#error "BOARD_CPU_HZ: the core clock in Hz (examples/cortex_m/board.env, CPU_HZ)"
#endif

#define SYST_CSR   (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR   (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR   (*(volatile uint32_t *)0xE000E018u)
#define SYST_RANGE (1u << 24) /* SysTick is a 24-bit down counter */

extern uint32_t _estack, _sidata, _sdata, _edata, _sbss, _ebss;
int main(void);
void reset_handler(void);

static volatile uint32_t systick_wraps; /* SysTick periods ended, + 1 (see board_time_ns) */

static void
fault_handler(void)
{
    board_puts("fault\n");
    board_exit(1);
}

static void
systick_handler(void)
{
    systick_wraps++;
}

__attribute__((section(".isr_vector"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&_estack, /* initial stack pointer */
    reset_handler,
    fault_handler,   /* NMI */
    fault_handler,   /* HardFault */
    fault_handler,   /* MemManage (ARMv7-M, ARMv8-M Mainline) */
    fault_handler,   /* BusFault */
    fault_handler,   /* UsageFault */
    fault_handler,   /* SecureFault (ARMv8-M with the Security Extension) */
    0,               /* reserved */
    0,               /* reserved */
    0,               /* reserved */
    0,               /* SVCall */
    0,               /* DebugMonitor */
    0,               /* reserved */
    0,               /* PendSV */
    systick_handler, /* SysTick */
};

void
reset_handler(void)
{
    uint32_t *src = &_sidata, *dst;
    for (dst = &_sdata; dst < &_edata;)
        *dst++ = *src++;
    for (dst = &_sbss; dst < &_ebss;)
        *dst++ = 0;
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    /* CPACR: full access to CP10 and CP11 (the FPU, and Helium on ARMv8.1-M) before any
     * float or vector instruction; a soft-float build leaves the FPU off */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    SYST_RVR = SYST_RANGE - 1;
    SYST_CVR = 0; /* reloads from SYST_RVR at the first tick, without an interrupt */
    systick_wraps = 1;
    SYST_CSR = 7; /* enable, interrupt on wrap, the core clock */
    board_exit(main());
}

uint64_t
board_time_ns(void)
{
    uint32_t wraps, cvr;
    uint64_t ticks;
    do { /* a wrap between the two reads takes the interrupt at once: read again */
        wraps = systick_wraps;
        cvr = SYST_CVR;
    } while (wraps != systick_wraps);
    /* a period counts SYST_RVR (2^24 - 1) down to 0, and the interrupt comes as the counter
     * reaches 0: at 0 the wrap is counted already, a tick early */
    if (cvr == 0)
        wraps--;
    ticks = (uint64_t)wraps * SYST_RANGE + (SYST_RANGE - 1 - cvr);
    return ticks * 1000000000u / BOARD_CPU_HZ;
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
