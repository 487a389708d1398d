// SPDX-License-Identifier: MIT
// ete_generator.h: an ETE packet generator: runs a scripted execution path
// over an A64 program image and writes the trace an ETE trace unit would
// (TRCCONFIGR: timestamps on, return stack off, no cycle counts, MAXSPEC 0;
// see snapshot_writer.h for the registers), plus the path itself so a test
// can compare a decode with it (issue 21).
//
// The walk is the decoder's (arm-trace-facts.md §6.3) run forwards: from
// the start address, classify each instruction (armisa); a non-P0
// instruction just executes; at a P0 instruction an atom is written:
//   conditional branch   E/N from the script (gen_script.h)
//   B / BL               E; BL pushes the return address
//   BR / BLR             E, then a long address packet with the scripted
//                        target (return stack off: every indirect target
//                        is in the trace); BLR pushes
//   RET                  E + address packet = the popped return address
//   ERET                 E + address packet = the exception's PER
//   ISB (other P0)       E, execution goes on at the next instruction
// A scripted exception at LOC writes an Exception packet (E=01, PER = LOC:
// the range up to LOC executed) and the vector as a target address.
// Stream layout: A-Sync, Trace Info, Trace On, address with context (start,
// AArch64 EL el NS), [timestamp], atoms..., [timestamp]. Each recorded range
// is what an OpenCSD-style decoder reports as INSTR_RANGE: [start, end)
// with end = last instruction + 4.
//
// Errors (false, *error): an address outside the image, a script that runs
// out of outcomes or targets, a RET with an empty call stack, more than
// max_instructions.
#ifndef MABUTRACE_HOST_ETE_GEN_ETE_GENERATOR_H
#define MABUTRACE_HOST_ETE_GEN_ETE_GENERATOR_H

#include <cstdint>
#include <string>
#include <vector>

#include "gen_script.h"
#include "memory_image.h"

namespace mabutrace::ete_gen {

struct GenRange {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
  uint32_t num_instr = 0;
  bool ends_in_p0 = false;  // false: cut by an exception
  bool taken = false;       // the P0's atom (ends_in_p0)
};

struct GenException {
  size_t after_range = 0;  // number of ranges before it
  uint8_t type = 0;
  uint64_t preferred_return = 0;
  uint64_t vector = 0;
};

struct GenResult {
  std::vector<uint8_t> trace;
  std::vector<GenRange> ranges;
  std::vector<GenException> exceptions;
  std::vector<uint64_t> timestamps;  // values written, in order
  uint64_t instructions = 0;
  uint64_t atoms = 0;
};

bool Generate(const armisa::MemoryImage& image, const GenScript& script, GenResult* out, std::string* error);

}  // namespace mabutrace::ete_gen

#endif  // MABUTRACE_HOST_ETE_GEN_ETE_GENERATOR_H
