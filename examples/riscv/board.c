// SPDX-License-Identifier: MIT
/* board.c: the end of a QEMU run (board.h). */
#include "board.h"

void board_exit(int status) {
  volatile uint32_t* const test = (volatile uint32_t*)0x00100000u; /* SiFive test device */
  *test = status == 0 ? 0x5555u : ((uint32_t)status << 16) | 0x3333u;
  for (;;) {
  }
}
