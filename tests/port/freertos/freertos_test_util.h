// SPDX-License-Identifier: MIT
// freertos_test_util.h: helpers of the FreeRTOS adapter tests (label
// freertos): tasks of the fake kernel that run a test body, the fixture
// (init/deinit, fake rule checks) and trace queries.
#ifndef MABUTRACE_TESTS_PORT_FREERTOS_TEST_UTIL_H
#define MABUTRACE_TESTS_PORT_FREERTOS_TEST_UTIL_H

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fake_freertos.h"
#include "mabutrace/mabutrace.h"
#include "mabutrace_port_inline.h"
#include "test_util.h"  // tests/runtime: ExportAndCheck, CheckTrace

namespace ft {

using json = nlohmann::json;

// A fake FreeRTOS task running `body`. After the body it either blocks in
// vTaskSuspend(NULL) until Delete() (kPark: a task that is not running,
// deleted by another task) or deletes itself (kSelfDelete: freed later by
// the idle task, fake::RunIdle).
class Task {
 public:
  enum End { kPark, kSelfDelete };
  Task(const char* name, int core, std::function<void()> body, End end = kPark);
  ~Task();  // deletes a parked task still alive
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  // The body has returned (kSelfDelete: and the task deleted itself).
  void WaitDone();
  // vTaskDelete() of the parked task from the calling thread.
  void Delete();
  TaskHandle_t handle() const { return handle_; }

  struct Shared;  // the body and its completion, shared with the task

 private:
  std::shared_ptr<Shared> shared_;
  TaskHandle_t handle_ = nullptr;
  End end_;
  bool deleted_ = false;
  bool self_deleted_ = false;
};

// init with a 256 KiB buffer; TearDown: deinit, then no fake rule broken.
class FreeRtosTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
};

// The thread_name of each tid, and the tids of a name.
std::vector<uint64_t> TidsNamed(const mt_test::TraceInfo& t, const std::string& name);
// The one tid named `name` (a test failure if not exactly one).
uint64_t TidOf(const mt_test::TraceInfo& t, const std::string& name);
// Events of one tid with this ph (and name, unless empty).
std::vector<json> Events(const mt_test::TraceInfo& t, uint64_t tid, const std::string& ph,
                         const std::string& name = "");

// The binary stream (mabutrace_set_output_callback + flush), decoded by
// the host decoder (host/stream).
struct StreamEvent {
  int type;        // mabutrace::host::EventType
  uint64_t ticks;  // the record's device clock
  uint32_t cpu, tid;
  bool in_isr;
  std::string thread_name, name;
  int64_t value;
};
std::vector<StreamEvent> FlushAndDecode();

}  // namespace ft

#endif  // MABUTRACE_TESTS_PORT_FREERTOS_TEST_UTIL_H
