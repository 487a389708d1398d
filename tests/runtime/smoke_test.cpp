#include <gtest/gtest.h>
#include <string>
#include "mabutrace/mabutrace.h"

static int Append(void* user, const char* d, size_t n) {
  static_cast<std::string*>(user)->append(d, n);
  return 0;
}

TEST(Smoke, RecordsAndExports) {
  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  {
    TRACE_SCOPE("outer", COLOR_BLUE);
    TRACE_INSTANT("tick");
    TRACE_COUNTER("q", -5);
    uint16_t link = 0;
    TRACE_FLOW_OUT(&link, "send");
    EXPECT_NE(link, 0);
    TRACE_FLOW_IN(link);
  }
  std::string s;
  ASSERT_EQ(mabutrace_export_json(Append, &s), MABUTRACE_OK);
  printf("%s\n", s.c_str());
  mabutrace_deinit();
}
