// SPDX-License-Identifier: MIT
// elf_strings.cpp: see elf_strings.h.
#include "elf_strings.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace mabutrace::host {

std::unique_ptr<ElfStrings> ElfStrings::Open(const std::string& path, std::string* error) {
  if (elf_version(EV_CURRENT) == EV_NONE) {
    *error = "libelf: " + std::string(elf_errmsg(-1));
    return nullptr;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return nullptr;
  }
  std::unique_ptr<ElfStrings> out;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (!elf || elf_kind(elf) != ELF_K_ELF) {
    *error = path + ": not an ELF file";
  } else {
    out.reset(new ElfStrings);
    GElf_Ehdr eh;
    if (gelf_getehdr(elf, &eh)) {
      out->big_endian_ = eh.e_ident[EI_DATA] == ELFDATA2MSB;
      out->pointer_size_ = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
    }
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh)) continue;
      // Loaded (SHF_ALLOC), with bytes in the file (not .bss), not empty.
      if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0) continue;
      Elf_Data* d = elf_getdata(scn, nullptr);
      if (!d || !d->d_buf || d->d_size == 0) continue;
      out->sections_.push_back({sh.sh_addr, std::string(static_cast<const char*>(d->d_buf), d->d_size)});
    }
    std::sort(out->sections_.begin(), out->sections_.end(),
              [](const Section& a, const Section& b) { return a.addr < b.addr; });
    if (out->sections_.empty()) {
      *error = path + ": no loaded sections with data (stripped or not a firmware image?)";
      out.reset();
    }
  }
  if (elf) elf_end(elf);
  ::close(fd);
  return out;
}

std::optional<std::string> ElfStrings::At(uint64_t addr, size_t max) const {
  auto it = std::upper_bound(sections_.begin(), sections_.end(), addr,
                             [](uint64_t a, const Section& s) { return a < s.addr; });
  if (it == sections_.begin()) return std::nullopt;
  --it;
  const uint64_t off = addr - it->addr;
  if (off >= it->bytes.size()) return std::nullopt;
  const size_t room = std::min<size_t>(it->bytes.size() - off, max + 1);
  const char* p = it->bytes.data() + off;
  const void* nul = std::memchr(p, '\0', room);
  if (!nul) {
    if (room == max + 1) return std::string(p, max);  // cut, as the stream does
    return std::nullopt;
  }
  return std::string(p, static_cast<const char*>(nul) - p);
}

bool ElfStrings::StartsString(uint64_t addr) const {
  auto it = std::upper_bound(sections_.begin(), sections_.end(), addr,
                             [](uint64_t a, const Section& s) { return a < s.addr; });
  if (it == sections_.begin()) return false;
  --it;
  const uint64_t off = addr - it->addr;
  return off < it->bytes.size() && (off == 0 || it->bytes[off - 1] == '\0');
}

}  // namespace mabutrace::host
