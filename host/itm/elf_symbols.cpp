// SPDX-License-Identifier: MIT
// elf_symbols.cpp: see elf_symbols.h.
#include "itm/elf_symbols.h"

#include <algorithm>

#include "elf/elf_symbols.h"

namespace mabutrace::itm {

namespace {
const char* const kVectorSymbols[] = {"__isr_vector", "g_pfnVectors", "__vector_table",
                                      "__Vectors",    "_vectors",     "vector_table"};
const char* const kVectorSections[] = {".isr_vector", ".vectors", ".vector_table"};
}  // namespace

std::unique_ptr<ElfSymbols> ElfSymbols::Open(const std::string& path, std::string* error) {
  std::optional<elf::ElfFile> file = elf::ReadElfFile(path, std::nullopt, error);
  if (!file) return nullptr;
  // A host program's ELF would name no handler and give wrong names to
  // samples: refuse any ELF not for the Arm (AArch32) architecture.
  constexpr uint16_t kEmArm = 40;  // ELF for the Arm Architecture, e_machine EM_ARM
  if (file->machine != kEmArm) {
    if (error)
      *error = path + ": an ELF for machine " + std::to_string(file->machine) +
               ", not Arm (EM_ARM, 40): give the Cortex-M firmware's ELF";
    return nullptr;
  }
  std::unique_ptr<ElfSymbols> out(new ElfSymbols);
  out->big_endian_ = file->big_endian;
  for (elf::ElfSection& sec : file->sections) {
    out->sections_.push_back({sec.addr, std::string(sec.bytes.begin(), sec.bytes.end())});
    for (const char* v : kVectorSections)
      if (!out->vectors_ && sec.name == v) out->vectors_ = sec.addr;
  }
  for (const elf::Symbol& sym : file->symbols) {
    if (!sym.function) continue;
    // Thumb: bit 0 of a function's value is the instruction set, not the address.
    const uint64_t start = sym.start & ~uint64_t{1};
    out->funcs_.push_back({start, start + (sym.end - sym.start), sym.name});
  }
  std::sort(out->sections_.begin(), out->sections_.end(),
            [](const Section& a, const Section& b) { return a.addr < b.addr; });
  std::sort(out->funcs_.begin(), out->funcs_.end(), [](const Func& a, const Func& b) { return a.start < b.start; });
  for (size_t i = 0; i < out->funcs_.size(); ++i)
    if (out->funcs_[i].end == out->funcs_[i].start)
      out->funcs_[i].end = i + 1 < out->funcs_.size() ? out->funcs_[i + 1].start : out->funcs_[i].start + 1;
  for (const char* v : kVectorSymbols) {
    for (const elf::Symbol& sym : file->symbols)
      if (sym.name == v) {
        out->vectors_ = sym.start;
        break;
      }
    if (out->vectors_ && !out->sections_.empty()) break;
  }
  if (!out->vectors_ && !out->sections_.empty()) out->vectors_ = out->sections_.front().addr;
  if (out->funcs_.empty()) {
    *error = path + ": no function symbols (stripped?)";
    return nullptr;
  }
  return out;
}

const std::string* ElfSymbols::Function(uint64_t addr) const {
  auto it = std::upper_bound(funcs_.begin(), funcs_.end(), addr, [](uint64_t a, const Func& f) { return a < f.start; });
  if (it == funcs_.begin()) return nullptr;
  --it;
  // Overlapping symbols (aliases): the nearest start that still covers addr.
  for (;; --it) {
    if (addr < it->end) return &it->name;
    if (it == funcs_.begin() || addr - it->start > (1u << 20)) return nullptr;
  }
}

std::optional<uint32_t> ElfSymbols::Word(uint64_t addr) const {
  auto it = std::upper_bound(sections_.begin(), sections_.end(), addr,
                             [](uint64_t a, const Section& s) { return a < s.addr; });
  if (it == sections_.begin()) return std::nullopt;
  --it;
  const uint64_t off = addr - it->addr;
  if (off + 4 > it->bytes.size()) return std::nullopt;
  const auto* p = reinterpret_cast<const uint8_t*>(it->bytes.data() + off);
  return big_endian_ ? (uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3])
                     : (uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 | uint32_t{p[1]} << 8 | p[0]);
}

const std::string* ElfSymbols::Handler(unsigned exception) const {
  if (!vectors_ || exception == 0) return nullptr;
  const std::optional<uint32_t> w = Word(*vectors_ + 4ull * exception);
  if (!w || *w == 0) return nullptr;
  return Function(*w & ~1u);
}

}  // namespace mabutrace::itm
