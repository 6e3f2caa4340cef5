/* board.h — what the firmware needs from the board (startup.c): text out and exit. */
#ifndef BOARD_H
#define BOARD_H

void board_puts(const char *s);      /* semihosting SYS_WRITE0 */
void board_exit(int status);         /* semihosting SYS_EXIT; never returns */

#endif
