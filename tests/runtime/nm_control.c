// SPDX-License-Identifier: MIT
/* nm_control.c: a translation unit with CONFIG_MABUTRACE_DISABLE=0, i.e.
 * tracing ENABLED. The nm check must find library symbols in it: this proves
 * the check can fail and that CONFIG_MABUTRACE_DISABLE=0 does not disable. */
#include "mabutrace/mabutrace.h"

#if defined(MABUTRACE_DISABLE)
#error "CONFIG_MABUTRACE_DISABLE=0 must not disable tracing"
#endif

int nm_control_run(void);
int nm_control_run(void) {
  TRACE_SCOPE("control");
  TRACE_INSTANT("control");
  return mabutrace_is_initialized();
}
