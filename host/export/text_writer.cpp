// SPDX-License-Identifier: MIT
// text_writer.cpp: see text_writer.h.
#include "text_writer.h"

#include <cinttypes>
#include <cstdio>

namespace mabutrace::exporter {
namespace {

// Control bytes would break the one-event-per-line promise.
void AppendClean(std::string& out, std::string_view s) {
  for (char c : s) out.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
}

}  // namespace

void TextWriter::Head(uint64_t ns, model::Track t, const char* kind) {
  char tmp[96];
  std::snprintf(tmp, sizeof tmp, "%6" PRIu64 ".%09" PRIu64 " %" PRIu32 "/%" PRIu32 " %-4s ", ns / 1000000000u,
                ns % 1000000000u, t.pid, t.tid, kind);
  line_ = tmp;
}

void TextWriter::Emit() {
  line_.push_back('\n');
  if (ok_ && !write_(line_.data(), line_.size())) ok_ = false;
}

void TextWriter::OnProcess(uint32_t pid, std::string_view name) {
  line_ = "process " + std::to_string(pid) + " ";
  AppendClean(line_, name);
  Emit();
}

void TextWriter::OnThread(model::Track t, std::string_view name) {
  line_ = "thread " + std::to_string(t.pid) + "/" + std::to_string(t.tid) + " ";
  AppendClean(line_, name);
  Emit();
}

void TextWriter::OnBegin(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t color) {
  Head(ns, t, "B");
  AppendClean(line_, name);
  line_ += " cpu=" + std::to_string(cpu);
  if (color) {
    char c[16];
    std::snprintf(c, sizeof c, " color=#%06x", unsigned(color & 0xFFFFFF));
    line_ += c;
  }
  Emit();
}

void TextWriter::OnEnd(model::Track t, std::string_view name, uint64_t ns, std::string_view flag) {
  Head(ns, t, "E");
  AppendClean(line_, name);
  if (!flag.empty()) {
    line_ += " (";
    AppendClean(line_, flag);
    line_ += ")";
  }
  Emit();
}

void TextWriter::OnInstant(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu, uint32_t) {
  Head(ns, t, "I");
  AppendClean(line_, name);
  line_ += " cpu=" + std::to_string(cpu);
  Emit();
}

void TextWriter::OnCounter(model::Track t, std::string_view name, uint64_t ns, int64_t value) {
  Head(ns, t, "C");
  AppendClean(line_, name);
  line_ += " = " + std::to_string(value);
  Emit();
}

void TextWriter::OnFlowPoint(model::Track t, bool start, uint64_t id, std::string_view name, uint64_t ns, uint32_t cpu,
                             uint32_t, bool) {
  Head(ns, t, start ? "P>" : "P<");
  AppendClean(line_, name.empty() ? (start ? "flow_out" : "flow_in") : name);
  if (id) line_ += " flow " + std::to_string(id);
  line_ += " cpu=" + std::to_string(cpu);
  Emit();
}

void TextWriter::OnFlow(model::Track t, bool start, uint64_t id, uint64_t ns) {
  Head(ns, t, start ? "F>" : "F<");
  line_ += "flow " + std::to_string(id);
  Emit();
}

void TextWriter::OnMetadata(std::string_view key, int64_t value) {
  line_ = "meta ";
  AppendClean(line_, key);
  line_ += " = " + std::to_string(value);
  Emit();
}

void TextWriter::OnMetadata(std::string_view key, std::string_view value) {
  line_ = "meta ";
  AppendClean(line_, key);
  line_ += " = ";
  AppendClean(line_, value);
  Emit();
}

}  // namespace mabutrace::exporter
