// SPDX-License-Identifier: MIT
// snapshot_writer.h: writes a generated trace as an OpenCSD-style snapshot
// directory (arm-trace-facts.md §7) that `mabutrace ete decode|export` and
// OpenCSD's trc_pkt_lister read:
//   snapshot.ini   [snapshot] version=1.0; [device_list] cpu_0.ini,
//                  ETE_0_s1.ini; [trace] metadata=trace.ini
//   cpu_0.ini      core ARM-AA64; [regs] PC, CNTFRQ_EL0 (the timestamp
//                  frequency, when known); one [dumpN] per loadable
//                  segment of the program (mem_N.bin at its address)
//   ETE_0_s1.ini   trace source ETE with the registers the generator's
//                  trace assumes (below)
//   trace.ini      buffer ETB_1 = session1.bin, format source_data (a raw
//                  single-source stream, as a TRBE writes)
//   session1.bin   the trace bytes
//   generated_path.txt  the executed ranges, one "start end n E|N|X" a line
// Registers (Arm ARM D24.4, §8): TRCCONFIGR = 0x801 (bit 11 TS: timestamps;
// RS bit 12 = 0: no return stack, so every indirect target is traced; CCI 0),
// TRCTRACEIDR = 0x10, TRCIDR0 = 0x28000EA1 (64-bit timestamps, TSSIZE 8),
// TRCIDR1 = 0x4100F403, TRCIDR2 = 0x00001088 (32-bit CID/VMID, WFXMODE 0),
// TRCIDR8 = 0 (MAXSPEC 0: every P0 element committed at once, no commit
// packets), TRCDEVARCH = 0x47705A13 (ETE r0, so no timestamp markers).
#ifndef MABUTRACE_HOST_ETE_GEN_SNAPSHOT_WRITER_H
#define MABUTRACE_HOST_ETE_GEN_SNAPSHOT_WRITER_H

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ete_decode/elf_symbols.h"
#include "ete_generator.h"

namespace mabutrace::ete_gen {

struct SnapshotImage {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};

// Creates `dir` (and parents) and writes the files above; timestamp_hz 0:
// no CNTFRQ_EL0. false after *error naming the file.
bool WriteSnapshot(const std::filesystem::path& dir, const std::vector<SnapshotImage>& images, const GenResult& result,
                   uint64_t timestamp_hz, std::string* error);

// The loadable segments of an ELF as snapshot images.
std::vector<SnapshotImage> ImagesOf(const ete_decode::ElfFile& elf);

}  // namespace mabutrace::ete_gen

#endif  // MABUTRACE_HOST_ETE_GEN_SNAPSHOT_WRITER_H
