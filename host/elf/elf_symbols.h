// SPDX-License-Identifier: MIT
// elf_symbols.h: the one reader of ELF files (libelf / gelf) in host/: their
// function symbols, loadable bytes and allocated sections, for naming
// executed ranges (ete_decode/function_slices.h, `arm export --elf`), the ETE
// packet generator's program image (host/ete_gen) and the ITM handler and
// PC-sample names (itm/elf_symbols.h: the vector table on top of this).
//
//   SymbolTable syms;
//   std::string err;
//   if (!syms.AddElf("prog.elf", std::nullopt, &err)) die(err);  // names the file
//   const Symbol* s = syms.Find(0x400010);                      // "f", or nullptr
//
// Symbols: STT_FUNC entries of .symtab (or .dynsym when stripped) with a
// non-zero size, as [address, address + size). A load address (FILE@ADDR)
// moves every symbol by ADDR - (lowest PT_LOAD p_vaddr): the address the
// image's first segment was loaded at, for PIC / shared objects.
// Overlapping symbols (aliases): the one with the highest start wins, then
// the smallest; a lookup is a binary search (O(log n)).
#ifndef MABUTRACE_HOST_ELF_ELF_SYMBOLS_H
#define MABUTRACE_HOST_ELF_ELF_SYMBOLS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mabutrace::elf {

struct Symbol {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
  std::string name;
  bool function = true;  // STT_FUNC (false: any other typed/labelled symbol)
};

struct ElfSegment {
  uint64_t vaddr = 0;          // where the bytes are (after the load bias)
  std::vector<uint8_t> bytes;  // p_filesz bytes of the file
  bool executable = false;     // PF_X
};

struct ElfSection {
  std::string name;   // ".isr_vector", ".text"...
  uint64_t addr = 0;  // sh_addr (after the load bias)
  std::vector<uint8_t> bytes;
};

// What one ELF file holds. Addresses already include the load bias.
struct ElfFile {
  std::string path;
  uint16_t machine = 0;              // e_machine (EM_AARCH64 = 183)
  bool big_endian = false;           // EI_DATA = ELFDATA2MSB
  std::vector<Symbol> symbols;       // every named symbol with an address (labels too)
  std::vector<ElfSegment> segments;  // PT_LOAD with file bytes
  std::vector<ElfSection> sections;  // SHF_ALLOC sections with file bytes (not NOBITS), in file order
  uint64_t entry = 0;
};

// Reads `path`. load_address: see above (nullopt = the linked addresses).
// nullopt after *error = "PATH: REASON" (missing file, not an ELF, no
// loadable segment and no symbol).
std::optional<ElfFile> ReadElfFile(const std::string& path, std::optional<uint64_t> load_address, std::string* error);

// Parses "FILE" or "FILE@ADDR" (ADDR with base auto-detection: 0x..).
// false when ADDR is not a number.
bool ParseElfSpec(std::string_view spec, std::string* file, std::optional<uint64_t>* load_address);

class SymbolTable {
 public:
  // Adds the function symbols of one ELF file. false after *error (names it).
  bool AddElf(const std::string& path, std::optional<uint64_t> load_address, std::string* error);
  void Add(const ElfFile& elf);
  // The function that holds `address`, or nullptr.
  const Symbol* Find(uint64_t address) const;
  bool empty() const { return functions_.empty(); }
  size_t size() const { return functions_.size(); }
  const std::vector<std::string>& files() const { return files_; }

 private:
  void Sort();
  std::vector<Symbol> functions_;  // sorted by start
  std::vector<std::string> files_;
};

}  // namespace mabutrace::elf

#endif  // MABUTRACE_HOST_ELF_ELF_SYMBOLS_H
