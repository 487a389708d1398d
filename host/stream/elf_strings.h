// SPDX-License-Identifier: MIT
// elf_strings.h: reads NUL-terminated strings out of a firmware ELF by their
// run-time address, to resolve the name pointers of a raw RAM dump
// (docs/raw-dump.md). ELF32 and ELF64, either byte order, through libelf
// (gelf); the strings come from allocated sections that hold file data
// (.rodata, .data, ...), found by address (ELF spec, "Sections").
#ifndef MABUTRACE_HOST_STREAM_ELF_STRINGS_H
#define MABUTRACE_HOST_STREAM_ELF_STRINGS_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mabutrace::host {

class ElfStrings {
 public:
  // Loads `path`; nullptr with *error set ("FILE: not an ELF file", ...).
  static std::unique_ptr<ElfStrings> Open(const std::string& path, std::string* error);

  // The string at device address `addr` (up to its NUL, at most `max`
  // bytes), or nullopt when no section with file data covers `addr` or the
  // string runs off its section without a NUL.
  std::optional<std::string> At(uint64_t addr, size_t max = 65535) const;

  // True if `addr` begins a string: the first byte of its section, or just
  // after a NUL. (A linker may merge string tails, so a true name can fail
  // this; many failures mean the ELF is not the dump's firmware.)
  bool StartsString(uint64_t addr) const;

  bool big_endian() const { return big_endian_; }
  unsigned pointer_size() const { return pointer_size_; }
  size_t sections() const { return sections_.size(); }

 private:
  struct Section {
    uint64_t addr;
    std::string bytes;  // the section's contents
  };
  std::vector<Section> sections_;  // sorted by addr, non-overlapping
  bool big_endian_ = false;
  unsigned pointer_size_ = 0;
};

}  // namespace mabutrace::host

#endif  // MABUTRACE_HOST_STREAM_ELF_STRINGS_H
