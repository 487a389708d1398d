// SPDX-License-Identifier: MIT
// writer_single_core.h: what a single-core port (MABUTRACE_PORT_SINGLE_CORE)
// calls in its writer, writer_single_core.cpp.
#ifndef MABUTRACE_RUNTIME_WRITER_SINGLE_CORE_H
#define MABUTRACE_RUNTIME_WRITER_SINGLE_CORE_H

namespace mabutrace {

// Extends the clock and sends contexts whose time base is over 2^31 ticks
// old to the slow path: the port calls it at least every 2^31 ticks, from
// an interrupt or Thread mode (Cortex-M: mabutrace_cortex_m_clock_poll() in
// the SysTick handler). The first call turns the fast path on.
void PollClock();

}  // namespace mabutrace

#endif  // MABUTRACE_RUNTIME_WRITER_SINGLE_CORE_H
