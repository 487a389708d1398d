// SPDX-License-Identifier: MIT
// function_slices.cpp: see function_slices.h.
#include "function_slices.h"

#include <cinttypes>
#include <cstdio>

#include "ete/ete_packet_text.h"

namespace mabutrace::ete_decode {

namespace {
constexpr uint32_t kColorFunction = 0x1000000 | 0x4a90d9;
constexpr uint32_t kColorUnknown = 0x1000000 | 0x9b9b9b;
constexpr uint32_t kColorException = 0x1000000 | 0xd0021b;
}  // namespace

FunctionSlices::Stack& FunctionSlices::StackOf(model::Track track) {
  const size_t i = track.tid ? track.tid - 1 : 0;
  if (i >= stacks_.size()) stacks_.resize(i + 1);
  return stacks_[i];
}

void FunctionSlices::Push(model::EventSink* sink, model::Track track, uint32_t cpu, Stack& s, Frame f, uint64_t ns) {
  const uint32_t color = f.exception ? kColorException : f.symbol ? kColorFunction : kColorUnknown;
  sink->OnBegin(track, f.name, ns, cpu, color);
  s.frames.push_back(std::move(f));
  ++slices_;
}

void FunctionSlices::Pop(model::EventSink* sink, model::Track track, Stack& s, uint64_t ns) {
  sink->OnEnd(track, s.frames.back().name, ns, "");
  s.frames.pop_back();
}

void FunctionSlices::OnRange(model::EventSink* sink, model::Track track, uint32_t cpu, const EteElement& range,
                             uint64_t begin_ns, uint64_t end_ns) {
  Stack& s = StackOf(track);
  s.any_range = true;
  const Symbol* sym = symbols_ ? symbols_->Find(range.start) : nullptr;
  ++(sym ? with_symbol_ : without_symbol_);
  Frame f;
  f.symbol = sym;
  if (sym) {
    f.name = sym->name;
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, range.start);
    f.name = buf;
  }
  if (s.frames.empty() || s.pending_call || s.frames.back().exception) {
    Push(sink, track, cpu, s, std::move(f), begin_ns);
  } else if (s.frames.back().symbol != sym) {
    // Not a call and not a return: a jump into another function (tail call).
    Pop(sink, track, s, begin_ns);
    Push(sink, track, cpu, s, std::move(f), begin_ns);
  }
  s.pending_call = false;
  CountInstructions(s, sym ? sym->name : std::string("(no symbol)"), range.num_instr);
  if (!range.executed) return;
  switch (range.last_subtype) {
    case armisa::InstrSubtype::kBrLink: s.pending_call = true; break;
    case armisa::InstrSubtype::kV8Ret:
      if (!s.frames.empty() && !s.frames.back().exception) {
        Pop(sink, track, s, end_ns);
      } else {
        ++unmatched_returns_;
      }
      break;
    case armisa::InstrSubtype::kV8Eret: {
      bool in_exception = false;
      for (const Frame& fr : s.frames) in_exception |= fr.exception;
      if (!in_exception) {
        ++unmatched_returns_;
        if (!s.frames.empty()) Pop(sink, track, s, end_ns);
        break;
      }
      while (!s.frames.empty()) {
        const bool was_exception = s.frames.back().exception;
        Pop(sink, track, s, end_ns);
        if (was_exception) break;
      }
      break;
    }
    default: break;
  }
}

void FunctionSlices::CountInstructions(const Stack& s, const std::string& self, uint64_t n) {
  if (!n) return;
  instructions_[self].self += n;
  // Total: once per distinct function on the stack (recursion counts once).
  seen_.clear();
  for (const Frame& f : s.frames) {
    if (f.exception || !f.symbol) continue;
    bool again = false;
    for (const std::string* name : seen_) again = again || *name == f.name;
    if (again) continue;
    seen_.push_back(&f.name);
    instructions_[f.name].total += n;
  }
  if (s.frames.empty() || !s.frames.back().symbol) instructions_[self].total += n;  // code outside every frame
}

void FunctionSlices::OnException(model::EventSink* sink, model::Track track, uint32_t cpu, const EteElement& e,
                                 uint64_t ns) {
  Stack& s = StackOf(track);
  Frame f;
  f.exception = true;
  f.name = std::string("exception ") + ete::ExceptionTypeName(e.exception_number);
  Push(sink, track, cpu, s, std::move(f), ns);
  s.pending_call = false;
  ++exceptions_;
}

void FunctionSlices::OnDiscontinuity(model::EventSink* sink, model::Track track, uint64_t ns) {
  Stack& s = StackOf(track);
  if (!s.any_range) return;
  while (!s.frames.empty()) Pop(sink, track, s, ns);
  s.pending_call = false;
}

void FunctionSlices::WriteMetadata(model::EventSink* sink) const {
  sink->OnMetadata("ete.function_slices", static_cast<int64_t>(slices_));
  sink->OnMetadata("ete.function_exceptions", static_cast<int64_t>(exceptions_));
  sink->OnMetadata("ete.ranges_with_symbol", static_cast<int64_t>(with_symbol_));
  sink->OnMetadata("ete.ranges_without_symbol", static_cast<int64_t>(without_symbol_));
  sink->OnMetadata("ete.unmatched_returns", static_cast<int64_t>(unmatched_returns_));
  for (const auto& [name, n] : instructions_) {
    sink->OnMetadata("ete.function_instructions." + name, static_cast<int64_t>(n.self));
    sink->OnMetadata("ete.function_instructions_total." + name, static_cast<int64_t>(n.total));
  }
}

}  // namespace mabutrace::ete_decode
