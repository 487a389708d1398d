// SPDX-License-Identifier: MIT
// An executable of the disabled translation units, linked WITHOUT the
// library: it links only if they name no library symbol, and it fails if
// any traced argument was evaluated (R-A8).
#include <stdio.h>

extern "C" {
int disabled_run_c(void);        // disabled_use.c, -DMABUTRACE_DISABLE
int disabled_run_cpp(void);      // disabled_use.cpp, -DMABUTRACE_DISABLE
int disabled_run_c_cfg(void);    // disabled_use.c, -DCONFIG_MABUTRACE_DISABLE=1
int disabled_run_cpp_cfg(void);  // disabled_use.cpp, -DCONFIG_MABUTRACE_DISABLE=1
}

int main() {
  struct {
    const char* what;
    int (*run)(void);
  } const variants[] = {
      {"C, MABUTRACE_DISABLE", disabled_run_c},
      {"C++, MABUTRACE_DISABLE", disabled_run_cpp},
      {"C, CONFIG_MABUTRACE_DISABLE=1", disabled_run_c_cfg},
      {"C++, CONFIG_MABUTRACE_DISABLE=1", disabled_run_cpp_cfg},
  };
  int failures = 0;
  for (const auto& v : variants) {
    const int r = v.run();
    if (r != 0) {
      fprintf(stderr, "FAIL %s: %s\n", v.what,
              r < 0 ? "an API call did not return its disabled value" : "traced arguments were evaluated");
      ++failures;
    } else {
      printf("ok   %s: no argument evaluated\n", v.what);
    }
  }
  return failures ? 1 : 0;
}
