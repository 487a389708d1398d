// SPDX-License-Identifier: MIT
// snapshot_writer.cpp: see snapshot_writer.h.
#include "snapshot_writer.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace mabutrace::ete_gen {

namespace {

bool WriteFile(const std::filesystem::path& p, const void* data, size_t n, std::string* error) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  if (f) f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
  if (!f) {
    *error = p.string() + ": cannot write";
    return false;
  }
  return true;
}

bool WriteText(const std::filesystem::path& p, const std::string& s, std::string* error) {
  return WriteFile(p, s.data(), s.size(), error);
}

std::string Hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

}  // namespace

std::vector<SnapshotImage> ImagesOf(const ete_decode::ElfFile& elf) {
  std::vector<SnapshotImage> out;
  for (const ete_decode::ElfSegment& s : elf.segments) out.push_back({s.vaddr, s.bytes});
  return out;
}

bool WriteSnapshot(const std::filesystem::path& dir, const std::vector<SnapshotImage>& images, const GenResult& result,
                   uint64_t timestamp_hz, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = dir.string() + ": cannot create: " + ec.message();
    return false;
  }
  if (!WriteText(dir / "snapshot.ini",
                 "[snapshot]\nversion=1.0\ndescription=mabutrace ete generate\n\n"
                 "[device_list]\ndevice0=cpu_0.ini\ndevice1=ETE_0_s1.ini\n\n[trace]\nmetadata=trace.ini\n",
                 error))
    return false;
  std::ostringstream cpu;
  cpu << "[device]\nname=cpu_0\nclass=core\ntype=ARM-AA64\n\n[regs]\nPC(size:64)=" << Hex(0) << "\n";
  if (timestamp_hz) cpu << "CNTFRQ_EL0=" << timestamp_hz << "\n";
  for (size_t i = 0; i < images.size(); ++i) {
    const std::string file = "mem_" + std::to_string(i + 1) + ".bin";
    if (!WriteFile(dir / file, images[i].bytes.data(), images[i].bytes.size(), error)) return false;
    cpu << "\n[dump" << i + 1 << "]\nfile=" << file << "\naddress=" << Hex(images[i].address)
        << "\nlength=" << Hex(images[i].bytes.size()) << "\n";
  }
  if (!WriteText(dir / "cpu_0.ini", cpu.str(), error)) return false;
  if (!WriteText(dir / "ETE_0_s1.ini",
                 "[device]\nname=ETE_0_s1\nclass=trace_source\ntype=ETE\n\n[regs]\n"
                 "TRCCONFIGR(0x004)=0x801\nTRCTRACEIDR(0x010)=0x10\nTRCDEVARCH(0x3ef)=0x47705a13\n"
                 "TRCIDR0(0x078)=0x28000ea1\nTRCIDR1(0x079)=0x4100f403\nTRCIDR2(0x07a)=0x00001088\n"
                 "TRCIDR8(0x060)=0x0\n",
                 error))
    return false;
  if (!WriteText(dir / "trace.ini",
                 "[trace_buffers]\nbuffers=buffer1\n\n[buffer1]\nname=ETB_1\nfile=session1.bin\nformat=source_data\n\n"
                 "[source_buffers]\nETE_0_s1=ETB_1\n\n[core_trace_sources]\ncpu_0=ETE_0_s1\n",
                 error))
    return false;
  if (!WriteFile(dir / "session1.bin", result.trace.data(), result.trace.size(), error)) return false;
  std::ostringstream path;
  path << "# executed ranges: start end(exclusive) instructions E|N (atom) or X (cut by an exception)\n";
  size_t exc = 0;
  for (size_t i = 0; i <= result.ranges.size(); ++i) {
    for (; exc < result.exceptions.size() && result.exceptions[exc].after_range == i; ++exc)
      path << "exception " << static_cast<unsigned>(result.exceptions[exc].type) << " ret "
           << Hex(result.exceptions[exc].preferred_return) << " vector " << Hex(result.exceptions[exc].vector) << "\n";
    if (i == result.ranges.size()) break;
    const GenRange& r = result.ranges[i];
    path << Hex(r.start) << " " << Hex(r.end) << " " << r.num_instr << " "
         << (r.ends_in_p0 ? (r.taken ? "E" : "N") : "X") << "\n";
  }
  return WriteText(dir / "generated_path.txt", path.str(), error);
}

}  // namespace mabutrace::ete_gen
