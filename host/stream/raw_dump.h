// SPDX-License-Identifier: MIT
// raw_dump.h: a raw RAM dump of mabutrace's memory block (a debugger's
// `dump memory`, or all of SRAM) turned into the binary stream of
// docs/stream-format.md, so that the stream decoder and `mabutrace
// convert` handle it like a captured stream (R-C3, docs/raw-dump.md).
//
// The dump is searched for the DumpDescriptor that mabutrace_init wrote
// (src/format/dump_format.h); it gives the buffer geometry and the field
// layout. Name pointers are resolved through the firmware ELF. Errors carry
// the byte offset in the dump file:
// - fatal (no descriptor, unknown version, geometry outside the dump): the
//   conversion stops;
// - per chunk or record (a chunk being recycled at dump time, a commit
//   beyond the chunk, a name pointer not in the ELF): the chunk is skipped,
//   or the name is shown as "<0xADDR>", and everything else is kept.
#ifndef MABUTRACE_HOST_STREAM_RAW_DUMP_H
#define MABUTRACE_HOST_STREAM_RAW_DUMP_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "elf_strings.h"
#include "stream_decoder.h"

namespace mabutrace::host {

struct RawDumpResult {
  // The stream bytes of one EVENTS record's words, and where they are in
  // the dump.
  struct Segment {
    uint64_t stream_offset, dump_offset, bytes;
  };

  // An error of the stream decoder on `stream`, re-addressed to the dump:
  // offsets inside copied words become dump offsets; others (the records
  // this conversion made up) name the descriptor.
  Status ToDump(const Status& s) const;

  Status fatal;                    // !ok: nothing usable was produced
  std::string stream;              // the equivalent binary stream
  std::vector<Status> errors;      // damaged chunks and unresolved names (dump offsets)
  uint64_t descriptor_offset = 0;  // where the descriptor was found in the dump
  uint32_t chunks = 0;             // chunks with records
  uint32_t chunks_skipped = 0;     // unusable at dump time (see errors)
  std::vector<Segment> segments;
};

// True if `data` holds a DumpDescriptor's magic (at any offset).
bool LooksLikeRawDump(const uint8_t* data, size_t len);

// Converts the dump. `elf` may be nullptr: names then stay "<0xADDR>" and
// each distinct pointer is reported once.
RawDumpResult RawDumpToStream(const uint8_t* data, size_t len, const ElfStrings* elf);

}  // namespace mabutrace::host

#endif  // MABUTRACE_HOST_STREAM_RAW_DUMP_H
