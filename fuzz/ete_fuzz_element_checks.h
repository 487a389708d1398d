// SPDX-License-Identifier: MIT
// ete_fuzz_element_checks.h: the element invariants of the ETE and ETMv4
// decode fuzz targets (ete_fuzz_checks.h has the packet ones): index inside
// the input; an executed range is non-empty with at most (end - start) / 2
// instructions; text and JSON renderings work.
#ifndef MABUTRACE_FUZZ_ETE_FUZZ_ELEMENT_CHECKS_H
#define MABUTRACE_FUZZ_ETE_FUZZ_ELEMENT_CHECKS_H

#include "ete_decode/ete_element.h"
#include "ete_fuzz_checks.h"

namespace mabutrace_fuzz {

inline void CheckElement(Checks* s, const mabutrace::ete_decode::EteElement& e) {
  using mabutrace::ete_decode::ElemType;
  if (e.index > s->limit) abort();
  if (e.type == ElemType::kInstrRange && (e.num_instr == 0 || e.end <= e.start || e.num_instr > (e.end - e.start) / 2))
    abort();
  s->text.clear();
  mabutrace::ete_decode::FormatElementOcsd(e, &s->text);
  mabutrace::ete_decode::FormatElementJson(e, "fuzz", &s->text);
  if (s->text.empty()) abort();
}

}  // namespace mabutrace_fuzz

#endif  // MABUTRACE_FUZZ_ETE_FUZZ_ELEMENT_CHECKS_H
