// SPDX-License-Identifier: MIT
/* mabutrace_cortex_m.h under src/: the bare-metal Cortex-M port's settings
 * (mabutrace_cortex_m_set_core_hz(), ..._clock_poll()) for Arduino sketches,
 * `#include <mabutrace_cortex_m.h>`; only src/ is on an Arduino build's
 * include path. Forwards to src/port/cortex-m/mabutrace_cortex_m.h.
 * docs/ports.md §5. */
#include "port/cortex-m/mabutrace_cortex_m.h"
