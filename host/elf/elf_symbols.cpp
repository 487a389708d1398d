// SPDX-License-Identifier: MIT
// elf_symbols.cpp: see elf_symbols.h.
#include "elf/elf_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "snapshot/snapshot.h"

namespace mabutrace::elf {

namespace {

struct ElfHandle {
  int fd = -1;
  Elf* elf = nullptr;
  ~ElfHandle() {
    if (elf) elf_end(elf);
    if (fd >= 0) ::close(fd);
  }
};

void ReadSymbols(Elf* elf, Elf_Scn* scn, const GElf_Shdr& sh, int64_t bias, std::vector<Symbol>* out) {
  Elf_Data* d = elf_getdata(scn, nullptr);
  if (!d || sh.sh_entsize == 0) return;
  const size_t n = sh.sh_size / sh.sh_entsize;
  for (size_t i = 0; i < n; ++i) {
    GElf_Sym s;
    if (!gelf_getsym(d, static_cast<int>(i), &s)) continue;
    const int type = GELF_ST_TYPE(s.st_info);
    if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS) continue;
    if (type == STT_SECTION || type == STT_FILE) continue;
    const char* name = elf_strptr(elf, sh.sh_link, s.st_name);
    if (!name || !*name || name[0] == '$') continue;  // mapping symbols $x/$d
    Symbol sym;
    sym.start = static_cast<uint64_t>(static_cast<int64_t>(s.st_value) + bias);
    sym.end = sym.start + s.st_size;
    sym.name = name;
    sym.function = type == STT_FUNC || type == STT_GNU_IFUNC;
    out->push_back(std::move(sym));
  }
}

}  // namespace

std::optional<ElfFile> ReadElfFile(const std::string& path, std::optional<uint64_t> load_address, std::string* error) {
  if (elf_version(EV_CURRENT) == EV_NONE) {
    *error = "libelf: " + std::string(elf_errmsg(-1));
    return std::nullopt;
  }
  ElfHandle h;
  h.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (h.fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  h.elf = elf_begin(h.fd, ELF_C_READ, nullptr);
  GElf_Ehdr eh;
  if (!h.elf || elf_kind(h.elf) != ELF_K_ELF || !gelf_getehdr(h.elf, &eh)) {
    *error = path + ": not an ELF file";
    return std::nullopt;
  }
  ElfFile out;
  out.path = path;
  out.machine = eh.e_machine;
  out.big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
  size_t nph = 0;
  elf_getphdrnum(h.elf, &nph);
  uint64_t lowest = std::numeric_limits<uint64_t>::max();
  std::vector<GElf_Phdr> loads;
  for (size_t i = 0; i < nph; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(h.elf, static_cast<int>(i), &ph) || ph.p_type != PT_LOAD) continue;
    loads.push_back(ph);
    lowest = std::min<uint64_t>(lowest, ph.p_vaddr);
  }
  const int64_t bias = load_address && !loads.empty() ? static_cast<int64_t>(*load_address - lowest)
                       : load_address                 ? static_cast<int64_t>(*load_address)
                                                      : 0;
  out.entry = static_cast<uint64_t>(static_cast<int64_t>(eh.e_entry) + bias);
  size_t file_size = 0;
  const char* raw = elf_rawfile(h.elf, &file_size);
  for (const GElf_Phdr& ph : loads) {
    if (ph.p_filesz == 0) continue;
    if (!raw || ph.p_offset + ph.p_filesz > file_size) {
      *error = path + ": a PT_LOAD segment lies past the end of the file";
      return std::nullopt;
    }
    ElfSegment seg;
    seg.vaddr = static_cast<uint64_t>(static_cast<int64_t>(ph.p_vaddr) + bias);
    seg.bytes.assign(raw + ph.p_offset, raw + ph.p_offset + ph.p_filesz);
    seg.executable = (ph.p_flags & PF_X) != 0;
    out.segments.push_back(std::move(seg));
  }
  std::vector<Symbol> dyn;
  size_t shstrndx = 0;
  elf_getshdrstrndx(h.elf, &shstrndx);
  for (Elf_Scn* scn = elf_nextscn(h.elf, nullptr); scn; scn = elf_nextscn(h.elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    if ((sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS && sh.sh_size) {
      Elf_Data* d = elf_getdata(scn, nullptr);
      if (d && d->d_buf && d->d_size) {
        const char* name = elf_strptr(h.elf, shstrndx, sh.sh_name);
        const auto* p = static_cast<const uint8_t*>(d->d_buf);
        out.sections.push_back({name ? name : "", static_cast<uint64_t>(static_cast<int64_t>(sh.sh_addr) + bias),
                                std::vector<uint8_t>(p, p + d->d_size)});
      }
    }
    if (sh.sh_type == SHT_SYMTAB) ReadSymbols(h.elf, scn, sh, bias, &out.symbols);
    if (sh.sh_type == SHT_DYNSYM) ReadSymbols(h.elf, scn, sh, bias, &dyn);
  }
  if (out.symbols.empty()) out.symbols = std::move(dyn);  // stripped: exported names only
  if (out.segments.empty() && out.symbols.empty()) {
    *error = path + ": no loadable segment and no symbol";
    return std::nullopt;
  }
  return out;
}

bool ParseElfSpec(std::string_view spec, std::string* file, std::optional<uint64_t>* load_address) {
  const size_t at = spec.rfind('@');
  load_address->reset();
  if (at == std::string_view::npos) {
    *file = std::string(spec);
    return true;
  }
  *file = std::string(spec.substr(0, at));
  *load_address = snapshot::ParseUnsigned(spec.substr(at + 1));
  return load_address->has_value() && !file->empty();
}

bool SymbolTable::AddElf(const std::string& path, std::optional<uint64_t> load_address, std::string* error) {
  std::optional<ElfFile> elf = ReadElfFile(path, load_address, error);
  if (!elf) return false;
  Add(*elf);
  return true;
}

void SymbolTable::Add(const ElfFile& elf) {
  files_.push_back(elf.path);
  for (const Symbol& s : elf.symbols)
    if (s.function && s.end > s.start) functions_.push_back(s);
  Sort();
}

void SymbolTable::Sort() {
  // By start; among equal starts the smallest first, so Find's "last start
  // <= address that still covers it" picks the innermost alias.
  std::sort(functions_.begin(), functions_.end(),
            [](const Symbol& a, const Symbol& b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
}

const Symbol* SymbolTable::Find(uint64_t address) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.start; });
  // Walk back over symbols that start before `address`; nested or
  // overlapping ones are rare, so this stays short.
  for (int steps = 0; it != functions_.begin() && steps < 8; ++steps) {
    --it;
    if (address < it->end) return &*it;
  }
  return nullptr;
}

}  // namespace mabutrace::elf
