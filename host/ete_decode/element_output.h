// SPDX-License-Identifier: MIT
// element_output.h: where the parts of the element decoder put their
// elements: one reused EteElement, the callback, and the counts.
//
// The producers (the execution walker for ranges, the PE context, the
// decoder for the rest) call New(type, index), set every field that their
// element type carries (the ones FormatElement* read for that type), and
// Emit() it. The element is reused: the callback copies what it keeps.
#ifndef MABUTRACE_HOST_ETE_DECODE_ELEMENT_OUTPUT_H
#define MABUTRACE_HOST_ETE_DECODE_ELEMENT_OUTPUT_H

#include <cstddef>
#include <cstdint>
#include <string>

#include "ete_element.h"

namespace mabutrace::ete_decode {

using ElementCallback = void (*)(void* ctx, const EteElement& element);
// A decode error: byte index of the packet and a message ("commit of 3
// elements with only 1 waiting"). Errors are rare; the string is built then.
using DecodeErrorCallback = void (*)(void* ctx, uint64_t index, const std::string& message);

struct DecodeStats {
  uint64_t packets = 0;
  uint64_t elements = 0;
  uint64_t ranges = 0;        // INSTR_RANGE elements
  uint64_t instructions = 0;  // instructions in those ranges
  uint64_t nacc = 0;          // ADDR_NACC elements
  uint64_t instr_limits = 0;  // INSTR_LIMIT elements: walks without a P0 within the follower's limit
  uint64_t errors = 0;        // sequence errors (NO_SYNC bad-packet / bad image)

  // Counts one emitted element (every protocol's decoder: ETE/ETMv4,
  // ETMv3, PTM), so the counts mean the same thing for all of them.
  void Count(const EteElement& e) {
    ++elements;
    if (e.type == ElemType::kInstrRange) {
      ++ranges;
      instructions += e.num_instr;
    } else if (e.type == ElemType::kAddrNacc) {
      ++nacc;
    } else if (e.type == ElemType::kInstrLimit) {
      ++instr_limits;
    }
  }
};

// Element of source `source` (index into a buffer's sources).
using SourceElementCallback = void (*)(void* ctx, size_t source, const EteElement& element);

class ElementOutput {
 public:
  ElementOutput(uint8_t trace_id, ElementCallback on_element, void* ctx)
      : sink_(&ToPlainCallback), sink_ctx_(this), on_element_(on_element), ctx_(ctx) {
    element_.trace_id = trace_id;
  }
  ElementOutput(const ElementOutput&) = delete;
  ElementOutput& operator=(const ElementOutput&) = delete;

  // Elements go to on_element(ctx, source, element) from now on, not to the
  // callback given at construction: a buffer session (one decoder per
  // source) saves a call per element.
  void SetSourceSink(SourceElementCallback on_element, void* ctx, size_t source) {
    sink_ = on_element;
    sink_ctx_ = ctx;
    source_ = source;
  }

  // The element to fill. Hot path: only the type-independent fields are
  // reset here, the producer sets the rest of its type's fields.
  EteElement& New(ElemType type, uint64_t index) {
    element_.type = type;
    element_.index = index;
    element_.has_cc = false;
    return element_;
  }
  void Emit(const EteElement& e) {
    stats_.Count(e);
    sink_(sink_ctx_, source_, e);
  }
  // Emit() of an INSTR_RANGE element.
  void EmitRange(const EteElement& e) {
    ++stats_.elements;
    ++stats_.ranges;
    stats_.instructions += e.num_instr;
    sink_(sink_ctx_, source_, e);
  }
  // Emit() of an ADDR_NACC element.
  void EmitNacc(const EteElement& e) {
    ++stats_.elements;
    ++stats_.nacc;
    sink_(sink_ctx_, source_, e);
  }
  // `n` INSTR_RANGE elements of one packet, `instructions` in all:
  // fill(element, i) sets the i-th one's range fields. The sink is read
  // once and the elements counted at once (ExecutionWalker's packet memo).
  template <class Fill>
  void EmitRanges(uint32_t n, uint64_t instructions, uint64_t index, Fill fill) {
    EteElement& o = New(ElemType::kInstrRange, index);
    const SourceElementCallback sink = sink_;
    void* const ctx = sink_ctx_;
    const size_t source = source_;
    for (uint32_t i = 0; i < n; ++i) {
      fill(o, i);
      sink(ctx, source, o);
    }
    stats_.elements += n;
    stats_.ranges += n;
    stats_.instructions += instructions;
  }
  DecodeStats& stats() { return stats_; }
  const DecodeStats& stats() const { return stats_; }

 private:
  static void ToPlainCallback(void* self, size_t, const EteElement& e) {
    auto* o = static_cast<ElementOutput*>(self);
    o->on_element_(o->ctx_, e);
  }

  SourceElementCallback sink_;
  void* sink_ctx_;
  size_t source_ = 0;
  ElementCallback on_element_;
  void* ctx_;
  EteElement element_;
  DecodeStats stats_;
};

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_ELEMENT_OUTPUT_H
