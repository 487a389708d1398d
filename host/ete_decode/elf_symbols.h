// SPDX-License-Identifier: MIT
// elf_symbols.h: ete_decode's names for the ELF reader of host/elf
// (elf/elf_symbols.h owns it): Symbol, ElfFile, ReadElfFile, ParseElfSpec,
// SymbolTable.
#ifndef MABUTRACE_HOST_ETE_DECODE_ELF_SYMBOLS_H
#define MABUTRACE_HOST_ETE_DECODE_ELF_SYMBOLS_H

#include "elf/elf_symbols.h"

namespace mabutrace::ete_decode {

using elf::ElfFile;
using elf::ElfSection;
using elf::ElfSegment;
using elf::ParseElfSpec;
using elf::ReadElfFile;
using elf::Symbol;
using elf::SymbolTable;

}  // namespace mabutrace::ete_decode

#endif  // MABUTRACE_HOST_ETE_DECODE_ELF_SYMBOLS_H
