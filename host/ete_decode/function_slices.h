// SPDX-License-Identifier: MIT
// function_slices.h: executed ranges -> per-function slices nested by calls
// and returns, like perf's cs-etm call stacks with symbols (issue 21).
//
// Per track (one trace source) a stack of open frames:
//   range after an executed branch-with-link (BL, BLR*: the previous
//     range's last instruction, armisa kBrLink)   push a frame named after
//                                                 the symbol holding the
//                                                 range's start
//   range ending in an executed RET* (kV8Ret)     pop the top function frame
//                                                 at the range's end
//   Exception element                             push "exception <Type>"
//                                                 (ete::ExceptionTypeName);
//                                                 the handler's code opens
//                                                 frames inside it
//   range ending in an executed ERET* (kV8Eret)   pop frames up to and with
//                                                 the newest exception frame
//   range outside the top frame's function        (a B to another function,
//     without call or return                      a tail call) the top frame
//                                                 is replaced at the same depth
//   Trace On / No Sync after the first range      every frame closed (the
//                                                 call stack is not known
//                                                 across the gap)
// Code no symbol covers is a frame named by the address of its first range
// ("0x400100"); consecutive unknown ranges stay in that frame.
//
// Instructions: every executed range's num_instr counts for the function
// holding its start ("self", code no symbol covers under "(no symbol)") and
// once for each distinct function on the stack ("total": itself and its
// callers) — an exact, sampling-free profile, written as metadata
// "ete.function_instructions.NAME" and "ete.function_instructions_total.NAME"
// (one pair per function; `mabutrace stats` shows them as a table).
//
// Slices are written to the sink as Begin/End pairs in time order; what is
// open at the end stays open, and model::Normalizer closes it with the
// open_at_end flag. Times are the caller's (ete_timeline.h): a range is
// [begin_ns, end_ns).
#ifndef MABUTRACE_HOST_ETE_DECODE_FUNCTION_SLICES_H
#define MABUTRACE_HOST_ETE_DECODE_FUNCTION_SLICES_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "elf_symbols.h"
#include "ete_element.h"
#include "trace_model.h"

namespace mabutrace::ete_decode {

class FunctionSlices {
 public:
  // `symbols` must outlive this (may be empty: every frame by address).
  explicit FunctionSlices(const SymbolTable* symbols) : symbols_(symbols) {}

  void OnRange(model::EventSink* sink, model::Track track, uint32_t cpu, const EteElement& range, uint64_t begin_ns,
               uint64_t end_ns);
  void OnException(model::EventSink* sink, model::Track track, uint32_t cpu, const EteElement& exception, uint64_t ns);
  // Trace On / No Sync: closes every frame of the track at ns.
  void OnDiscontinuity(model::EventSink* sink, model::Track track, uint64_t ns);

  // Writes the "ete.function_*" counters and the per-function instructions.
  void WriteMetadata(model::EventSink* sink) const;

  uint64_t slices() const { return slices_; }
  uint64_t ranges_with_symbol() const { return with_symbol_; }
  uint64_t ranges_without_symbol() const { return without_symbol_; }

 private:
  struct Frame {
    std::string name;
    const Symbol* symbol = nullptr;  // nullptr: unknown code or an exception
    bool exception = false;
  };
  struct Stack {
    std::vector<Frame> frames;
    bool pending_call = false;
    bool any_range = false;
  };
  Stack& StackOf(model::Track track);
  void Push(model::EventSink* sink, model::Track track, uint32_t cpu, Stack& s, Frame f, uint64_t ns);
  void Pop(model::EventSink* sink, model::Track track, Stack& s, uint64_t ns);

  void CountInstructions(const Stack& s, const std::string& self, uint64_t n);

  const SymbolTable* symbols_;
  std::vector<Stack> stacks_;  // by track tid - 1
  struct Instructions {
    uint64_t self = 0, total = 0;
  };
  std::map<std::string, Instructions> instructions_;  // by function name
  std::vector<const std::string*> seen_;              // CountInstructions' scratch
  uint64_t slices_ = 0, with_symbol_ = 0, without_symbol_ = 0, exceptions_ = 0, unmatched_returns_ = 0;
};

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_FUNCTION_SLICES_H
