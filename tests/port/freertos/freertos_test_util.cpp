// SPDX-License-Identifier: MIT
// freertos_test_util.cpp: see freertos_test_util.h.
#include "freertos_test_util.h"

#include <condition_variable>
#include <mutex>

#include "stream_decoder.h"

namespace ft {

struct Task::Shared {
  std::function<void()> body;
  End end;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
};

namespace {

void TaskEntry(void* arg) {
  // The task holds a reference until it ends: Shared outlives ~Task when
  // a self-deleting task is still running.
  auto* keep = static_cast<std::shared_ptr<Task::Shared>*>(arg);
  std::shared_ptr<Task::Shared> s = *keep;
  delete keep;
  s->body();
  const Task::End end = s->end;
  {
    std::lock_guard<std::mutex> lock(s->m);
    s->done = true;
  }
  s->cv.notify_all();
  s.reset();
  if (end == Task::kPark) {
    vTaskSuspend(nullptr);  // until Delete(): a blocked, not running, task
  } else {
    vTaskDelete(nullptr);
  }
}

}  // namespace

Task::Task(const char* name, int core, std::function<void()> body, End end)
    : shared_(std::make_shared<Shared>()), end_(end) {
  shared_->body = std::move(body);
  shared_->end = end;
  auto* arg = new std::shared_ptr<Shared>(shared_);
  EXPECT_EQ(xTaskCreatePinnedToCore(TaskEntry, name, 4096, arg, 5, &handle_, core), pdPASS);
}

Task::~Task() {
  if (end_ == kPark && !deleted_) Delete();
  // kSelfDelete: the TCB is the idle task's to free (fake::RunIdle).
}

void Task::WaitDone() {
  std::unique_lock<std::mutex> lock(shared_->m);
  if (!shared_->cv.wait_for(lock, std::chrono::seconds(20), [this] { return shared_->done; })) {
    ADD_FAILURE() << "task body did not finish within 20 s";
    return;
  }
  lock.unlock();
  if (end_ == kSelfDelete && !self_deleted_) {
    fake::WaitSelfDeleted(handle_);  // then it waits for the idle task
    self_deleted_ = true;
  }
}

void Task::Delete() {
  if (deleted_ || end_ != kPark) return;
  WaitDone();
  vTaskDelete(handle_);
  deleted_ = true;
}

void FreeRtosTest::SetUp() {
  fake::ClearViolations();
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 256 * 1024;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
}

void FreeRtosTest::TearDown() {
  fake::RunIdle(0);
  fake::RunIdle(1);
  mabutrace_deinit();
  const std::vector<std::string> v = fake::Violations();
  std::string all;
  for (const std::string& s : v) all += "\n  " + s;
  EXPECT_TRUE(v.empty()) << "the fake kernel saw rule violations:" << all;
}

std::vector<uint64_t> TidsNamed(const mt_test::TraceInfo& t, const std::string& name) {
  std::vector<uint64_t> out;
  for (const auto& [tid, n] : t.thread_names) {
    if (n == name) out.push_back(tid);
  }
  return out;
}

uint64_t TidOf(const mt_test::TraceInfo& t, const std::string& name) {
  const std::vector<uint64_t> tids = TidsNamed(t, name);
  if (tids.size() != 1) {
    ADD_FAILURE() << tids.size() << " tracks named \"" << name << "\"";
    return 0;
  }
  return tids[0];
}

std::vector<json> Events(const mt_test::TraceInfo& t, uint64_t tid, const std::string& ph, const std::string& name) {
  std::vector<json> out;
  for (const json& e : t.events) {
    if (e["tid"] == tid && e["ph"] == ph && (name.empty() || e["name"] == name)) out.push_back(e);
  }
  return out;
}

namespace {
std::string* g_stream = nullptr;
void Capture(const uint8_t* data, size_t len) { g_stream->append(reinterpret_cast<const char*>(data), len); }
}  // namespace

std::vector<StreamEvent> FlushAndDecode() {
  std::string bytes;
  g_stream = &bytes;
  EXPECT_EQ(mabutrace_set_output_callback(Capture), MABUTRACE_OK);
  EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_OK);
  EXPECT_EQ(mabutrace_set_output_callback(nullptr), MABUTRACE_OK);
  g_stream = nullptr;
  std::vector<StreamEvent> out;
  mabutrace::host::StreamDecoder dec([&](const mabutrace::host::Event& e) {
    out.push_back(StreamEvent{int(e.type), e.ticks, e.cpu, e.tid, e.in_isr, std::string(e.thread_name),
                              std::string(e.name), e.value});
  });
  mabutrace::host::Status st = dec.Feed(bytes);
  if (st.ok) st = dec.Finish();
  EXPECT_TRUE(st.ok) << st.message;
  EXPECT_TRUE(dec.record_errors().empty());
  return out;
}

}  // namespace ft

#if defined(__SANITIZE_THREAD__)
// The FreeRTOS port records with MABUTRACE_PORT_PLAIN_WORDS: record words
// are plain volatile stores, and an exporter that copies a chunk while a
// writer recycles it reads words being overwritten; the chunk's sequence
// lock catches the copy and it is discarded (ring_buffer.h, snapshot.cpp
// CopyChunk). The C++ memory model calls that a data race, the design
// accepts it (64-bit atomics are library calls on the ESP32s), so races
// whose top frame is a record word access are not reported (ThreadSanitizer
// often cannot restore the reader's stack, so the reader cannot be named).
// Every other race is, among them those on a context's Writer fields, which
// two writers sharing a context would also cause.
extern "C" const char* __tsan_default_suppressions() {
  return "race_top:mabutrace::WriteWord\nrace_top:mabutrace::ReadWord\n";
}
#endif
