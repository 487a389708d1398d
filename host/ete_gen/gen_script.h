// SPDX-License-Identifier: MIT
// gen_script.h: the execution script of the ETE packet generator
// (ete_generator.h): where the traced program starts and stops, and what
// the trace cannot compute from the image alone (conditional outcomes,
// indirect-branch targets, exceptions). RET and ERET targets are not
// scripted: the generator keeps the call and exception stacks.
//
// Text, one directive a line, '#' to the end of a line is a comment.
// LOC = SYMBOL, SYMBOL+OFFSET or a number (0x.. hex), SYMBOL from the ELF's
// symbol table (functions and plain labels):
//   start LOC                       first instruction traced
//   stop LOC                        tracing ends when execution reaches LOC
//   cond LOC OUTCOMES...            the conditional branch at LOC: T (taken)
//                                   or N, one letter a visit, in order
//                                   ("cond loop_br TTN N TTN N")
//   indirect LOC TARGET...          BR/BLR at LOC: targets, one a visit
//   exception LOC TYPE VECTOR [V]   on the V-th arrival at LOC (default 1),
//                                   before it executes: exception TYPE
//                                   (call, trap, irq, fiq, serror,
//                                   alignment, inst_fault, data_fault or a
//                                   number), preferred return address LOC,
//                                   handler at VECTOR
//   timestamp EVERY ORIGIN PER_INSTR  a TIMESTAMP packet before the first
//                                   atom, after every EVERY atoms and at the
//                                   end: ORIGIN + instructions so far *
//                                   PER_INSTR
//   timestamp_hz HZ                 written to the snapshot (CNTFRQ_EL0)
//   atoms_per_packet 1|2|3          pack atoms (format 1, 2 or 3)
//   el 0..3                         exception level in the context packet
//   max_instructions N              guard against a runaway script (1e6)
#ifndef MABUTRACE_HOST_ETE_GEN_GEN_SCRIPT_H
#define MABUTRACE_HOST_ETE_GEN_GEN_SCRIPT_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ete_decode/elf_symbols.h"

namespace mabutrace::ete_gen {

struct ScriptedException {
  uint64_t site = 0;  // preferred return address
  uint8_t type = 0;   // ETE exception TYPE (arm-trace-facts.md §4.7)
  uint64_t vector = 0;
  unsigned visit = 1;
};

struct GenScript {
  uint64_t start = 0;
  bool has_start = false;
  uint64_t stop = 0;
  bool has_stop = false;
  std::map<uint64_t, std::vector<bool>> cond;
  std::map<uint64_t, std::vector<uint64_t>> indirect;
  std::vector<ScriptedException> exceptions;
  unsigned ts_every = 0;  // 0: no timestamps
  uint64_t ts_origin = 0;
  uint64_t ts_per_instr = 1;
  uint64_t ts_hz = 0;
  unsigned atoms_per_packet = 1;
  uint8_t el = 1;
  uint64_t max_instructions = 1000000;
};

// false after *error = "SCRIPT:LINE: reason" (unknown symbol, bad number...).
bool ParseScript(std::string_view text, std::string_view name, const ete_decode::ElfFile& elf, GenScript* out,
                 std::string* error);

}  // namespace mabutrace::ete_gen

#endif  // MABUTRACE_HOST_ETE_GEN_GEN_SCRIPT_H
