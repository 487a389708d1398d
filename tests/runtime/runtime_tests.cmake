# SPDX-License-Identifier: MIT
# The sources of runtime_tests (GoogleTest) and of its helper library, in one
# place: tests/runtime/CMakeLists.txt builds them for the host, and
# tests/port/aarch64 builds the same suite for AArch64 (run under qemu-user).
set(MABUTRACE_RUNTIME_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})
set(MABUTRACE_RUNTIME_TEST_UTIL_SOURCES ${MABUTRACE_RUNTIME_TEST_DIR}/test_util.cpp)
set(MABUTRACE_RUNTIME_TEST_C_SOURCES ${MABUTRACE_RUNTIME_TEST_DIR}/c_api_test.c)
set(MABUTRACE_RUNTIME_TEST_SOURCES
  ${MABUTRACE_RUNTIME_TEST_DIR}/macros_test.cpp
  ${MABUTRACE_RUNTIME_TEST_DIR}/c_api_gtest.cpp
  ${MABUTRACE_RUNTIME_TEST_DIR}/ring_test.cpp
  ${MABUTRACE_RUNTIME_TEST_DIR}/flow_test.cpp
  ${MABUTRACE_RUNTIME_TEST_DIR}/misuse_test.cpp
  ${MABUTRACE_RUNTIME_TEST_DIR}/threads_test.cpp
  ${MABUTRACE_RUNTIME_TEST_DIR}/json_test.cpp
  ${MABUTRACE_RUNTIME_TEST_DIR}/clock_test.cpp)
