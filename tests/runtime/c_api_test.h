// SPDX-License-Identifier: MIT
/* c_api_test.h: the C11 test functions (c_api_test.c) for the C++ side. */
#ifndef MABUTRACE_TESTS_RUNTIME_C_API_TEST_H
#define MABUTRACE_TESTS_RUNTIME_C_API_TEST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern const char c_scope_plain[], c_scope_color[], c_instant[], c_counter[], c_out2[], c_out3[], c_in2[], c_in3[],
    c_early[], c_loop[], c_goto[], c_after[], c_inner[];

/* Runs every macro with every optional argument; returns its __func__ and
 * the three link ids it assigned. */
const char* c_every_macro(uint16_t links[3]);
int c_early_return(int x);
int c_break_out_of_loop(void);
void c_goto_out_of_block(int n);
int c_is_initialized(void);
int c_get_written(uint64_t* written);

#ifdef __cplusplus
}
#endif

#endif
