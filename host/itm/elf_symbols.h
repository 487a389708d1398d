// SPDX-License-Identifier: MIT
// elf_symbols.h: a Cortex-M firmware ELF's function symbols and its vector
// table, to name ITM exception trace and DWT PC samples (docs/itm.md).
// The file is read by host/elf (elf/elf_symbols.h, the one ELF reader):
// symbols from .symtab (else .dynsym); this adds the Cortex-M view of them.
//
// Function(addr): the STT_FUNC symbol whose [value, value + size) holds addr
// (Thumb bit 0 of the value ignored; a symbol of size 0 reaches the next
// one), or nullptr.
// Handler(n): the name of the function exception n's vector points at: the
// table is the symbol __isr_vector / g_pfnVectors / __vector_table /
// __Vectors / _vectors / vector_table, else the section .isr_vector /
// .vectors / .vector_table, else the lowest allocated section with data
// (Armv7-M ARM B1.5.3: entry n at VTOR + 4n, little-endian, bit 0 = Thumb).
#ifndef MABUTRACE_HOST_ITM_ELF_SYMBOLS_H
#define MABUTRACE_HOST_ITM_ELF_SYMBOLS_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mabutrace::itm {

class ElfSymbols {
 public:
  // nullptr with *error ("FILE: not an ELF file", "FILE: no function symbols").
  static std::unique_ptr<ElfSymbols> Open(const std::string& path, std::string* error);

  const std::string* Function(uint64_t addr) const;
  const std::string* Handler(unsigned exception) const;
  std::optional<uint32_t> Word(uint64_t addr) const;
  size_t functions() const { return funcs_.size(); }
  std::optional<uint64_t> vector_table() const { return vectors_; }

 private:
  struct Func {
    uint64_t start, end;
    std::string name;
  };
  struct Section {
    uint64_t addr;
    std::string bytes;
  };
  std::vector<Func> funcs_;        // sorted by start
  std::vector<Section> sections_;  // sorted by addr
  std::optional<uint64_t> vectors_;
  bool big_endian_ = false;
};

}  // namespace mabutrace::itm

#endif  // MABUTRACE_HOST_ITM_ELF_SYMBOLS_H
