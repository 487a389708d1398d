// SPDX-License-Identifier: MIT
/* c_api_test.c: the macros from C11 (compiled with -std=c11 -Wpedantic
 * -Werror). The C++ side (c_api_gtest.cpp) inits the runtime, calls these
 * and checks the records. Names are arrays with external linkage so the C++
 * side can compare the recorded name pointers. */
#include "c_api_test.h"

#include "mabutrace/mabutrace.h"

const char c_scope_plain[] = "c_scope_plain";
const char c_scope_color[] = "c_scope_color";
const char c_instant[] = "c_instant";
const char c_counter[] = "c_counter";
const char c_out2[] = "c_out2";
const char c_out3[] = "c_out3";
const char c_in2[] = "c_in2";
const char c_in3[] = "c_in3";
const char c_early[] = "c_early";
const char c_loop[] = "c_loop";
const char c_goto[] = "c_goto";
const char c_after[] = "c_after";
const char c_inner[] = "c_inner";

/* Order of records (see c_api_gtest.cpp):
 *   B c_scope_plain, B c_scope_color (COLOR_CYAN), B __func__ (TRC),
 *   B __func__ (TRC in a nested block), E,
 *   i c_instant, i c_instant (0xABCDEF),
 *   C c_counter -7, C c_counter INT32_MIN (COLOR_YELLOW),
 *   out l1 (no name), out l2 c_out2, out l3 c_out3 (COLOR_MAGENTA),
 *   in l1, in l2 c_in2, in l3 c_in3 (COLOR_BROWN),
 *   E, E, E */
const char* c_every_macro(uint16_t links[3]) {
  TRACE_SCOPE(c_scope_plain);
  TRACE_SCOPE(c_scope_color, COLOR_CYAN);
  TRC();
  { TRC(); }
  TRACE_INSTANT(c_instant);
  TRACE_INSTANT(c_instant, 0xABCDEF);
  TRACE_COUNTER(c_counter, -7);
  TRACE_COUNTER(c_counter, INT32_MIN, COLOR_YELLOW);
  links[0] = links[1] = links[2] = 0;
  TRACE_FLOW_OUT(&links[0]);
  TRACE_FLOW_OUT(&links[1], c_out2);
  TRACE_FLOW_OUT(&links[2], c_out3, COLOR_MAGENTA);
  TRACE_FLOW_IN(links[0]);
  TRACE_FLOW_IN(links[1], c_in2);
  TRACE_FLOW_IN(links[2], c_in3, COLOR_BROWN);
  return __func__;
}

/* Left by an early return: the end is recorded before the caller goes on. */
int c_early_return(int x) {
  TRACE_SCOPE(c_early);
  if (x > 0) return 1;
  TRACE_INSTANT(c_inner);
  return 0;
}

/* Left by break: four iterations begin and end, the fourth by break. */
int c_break_out_of_loop(void) {
  int i;
  for (i = 0; i < 10; ++i) {
    TRACE_SCOPE(c_loop);
    if (i == 3) break;
    if (i == 1) continue; /* left by continue too */
    TRACE_INSTANT(c_inner);
  }
  return i;
}

/* Left by goto out of the block: the end comes before c_after. */
void c_goto_out_of_block(int n) {
  int i = 0;
again : {
  TRACE_SCOPE(c_goto);
  {
    TRACE_SCOPE(c_inner);
    if (++i < n) goto again;
    goto out;
  }
}
out:
  TRACE_INSTANT(c_after);
}

int c_is_initialized(void) { return mabutrace_is_initialized(); }

int c_get_written(uint64_t* written) {
  mabutrace_stats_t st;
  const int rc = mabutrace_get_stats(&st);
  *written = st.events_written;
  return rc;
}
