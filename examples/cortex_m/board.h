/* board.h — what the firmware needs from the board (startup.c): text out, exit, a clock. */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

void board_puts(const char *s); /* semihosting SYS_WRITE0 */
void board_exit(int status);    /* semihosting SYS_EXIT; never returns */
/* nanoseconds since reset at the core clock (SysTick); under qemu -icount shift=0, the
 * instructions executed since reset */
uint64_t board_time_ns(void);

#endif
