// SPDX-License-Identifier: MIT
// elf_symbols.cpp: see elf_symbols.h.
#include "itm/elf_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mabutrace::itm {

namespace {
const char* const kVectorSymbols[] = {"__isr_vector", "g_pfnVectors", "__vector_table",
                                      "__Vectors",    "_vectors",     "vector_table"};
const char* const kVectorSections[] = {".isr_vector", ".vectors", ".vector_table"};
}  // namespace

std::unique_ptr<ElfSymbols> ElfSymbols::Open(const std::string& path, std::string* error) {
  if (elf_version(EV_CURRENT) == EV_NONE) {
    *error = "libelf: " + std::string(elf_errmsg(-1));
    return nullptr;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return nullptr;
  }
  std::unique_ptr<ElfSymbols> out(new ElfSymbols);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (!elf || elf_kind(elf) != ELF_K_ELF) {
    *error = path + ": not an ELF file";
    out.reset();
  } else {
    GElf_Ehdr eh;
    if (gelf_getehdr(elf, &eh)) out->big_endian_ = eh.e_ident[EI_DATA] == ELFDATA2MSB;
    size_t shstrndx = 0;
    elf_getshdrstrndx(elf, &shstrndx);
    std::vector<std::pair<std::string, uint64_t>> objects;  // every named symbol, for the vector table
    bool have_symtab = false;
    for (int pass = 0; pass < 2; ++pass) {
      for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) continue;
        if (pass == 0) {
          const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
          if ((sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS && sh.sh_size) {
            Elf_Data* d = elf_getdata(scn, nullptr);
            if (d && d->d_buf && d->d_size) {
              out->sections_.push_back({sh.sh_addr, std::string(static_cast<const char*>(d->d_buf), d->d_size)});
              for (const char* v : kVectorSections)
                if (name && !out->vectors_ && std::strcmp(name, v) == 0) out->vectors_ = sh.sh_addr;
            }
          }
          if (sh.sh_type == SHT_SYMTAB) have_symtab = true;
          continue;
        }
        if (sh.sh_type != (have_symtab ? SHT_SYMTAB : SHT_DYNSYM) || sh.sh_entsize == 0) continue;
        Elf_Data* d = elf_getdata(scn, nullptr);
        if (!d) continue;
        const size_t count = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < count; ++i) {
          GElf_Sym sym;
          if (!gelf_getsym(d, static_cast<int>(i), &sym)) continue;
          const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
          if (!name || !*name || sym.st_shndx == SHN_UNDEF) continue;
          if (GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
            const uint64_t start = sym.st_value & ~uint64_t{1};
            out->funcs_.push_back({start, start + sym.st_size, name});
          }
          objects.emplace_back(name, sym.st_value);
        }
      }
    }
    std::sort(out->sections_.begin(), out->sections_.end(),
              [](const Section& a, const Section& b) { return a.addr < b.addr; });
    std::sort(out->funcs_.begin(), out->funcs_.end(), [](const Func& a, const Func& b) { return a.start < b.start; });
    for (size_t i = 0; i < out->funcs_.size(); ++i)
      if (out->funcs_[i].end == out->funcs_[i].start)
        out->funcs_[i].end = i + 1 < out->funcs_.size() ? out->funcs_[i + 1].start : out->funcs_[i].start + 1;
    for (const char* v : kVectorSymbols) {
      for (const auto& [name, value] : objects)
        if (name == v) {
          out->vectors_ = value;
          break;
        }
      if (out->vectors_ && !out->sections_.empty()) break;
    }
    if (!out->vectors_ && !out->sections_.empty()) out->vectors_ = out->sections_.front().addr;
    if (out->funcs_.empty()) {
      *error = path + ": no function symbols (stripped?)";
      out.reset();
    }
  }
  if (elf) elf_end(elf);
  ::close(fd);
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
