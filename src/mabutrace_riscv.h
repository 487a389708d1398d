// SPDX-License-Identifier: MIT
/*
 * mabutrace_riscv.h under src/: for builds that put only src/ on the
 * include path (Arduino IDE, PlatformIO). Forwards to
 * src/port/riscv/mabutrace_riscv.h.
 */
#include "port/riscv/mabutrace_riscv.h"
