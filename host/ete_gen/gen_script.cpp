// SPDX-License-Identifier: MIT
// gen_script.cpp: see gen_script.h.
#include "gen_script.h"

#include <optional>
#include <sstream>

#include "snapshot/snapshot.h"

namespace mabutrace::ete_gen {

namespace {

std::optional<uint64_t> Resolve(const std::string& loc, const ete_decode::ElfFile& elf) {
  if (auto n = snapshot::ParseUnsigned(loc)) return n;
  std::string name = loc;
  uint64_t offset = 0;
  if (const size_t plus = loc.find('+'); plus != std::string::npos) {
    auto off = snapshot::ParseUnsigned(loc.substr(plus + 1));
    if (!off) return std::nullopt;
    offset = *off;
    name = loc.substr(0, plus);
  }
  for (const ete_decode::Symbol& s : elf.symbols)
    if (s.name == name) return s.start + offset;
  return std::nullopt;
}

std::optional<uint8_t> ExceptionType(const std::string& t) {
  static const std::map<std::string, uint8_t> kTypes = {{"debug_halt", 0x01}, {"call", 0x02},      {"trap", 0x03},
                                                        {"serror", 0x04},     {"alignment", 0x0A}, {"inst_fault", 0x0B},
                                                        {"data_fault", 0x0C}, {"irq", 0x0E},       {"fiq", 0x0F}};
  if (auto it = kTypes.find(t); it != kTypes.end()) return it->second;
  if (auto n = snapshot::ParseUnsigned(t); n && *n < 0x18) return static_cast<uint8_t>(*n);
  return std::nullopt;
}

}  // namespace

bool ParseScript(std::string_view text, std::string_view name, const ete_decode::ElfFile& elf, GenScript* out,
                 std::string* error) {
  std::istringstream in{std::string(text)};
  std::string line;
  unsigned line_no = 0;
  auto fail = [&](const std::string& why) {
    *error = std::string(name) + ":" + std::to_string(line_no) + ": " + why;
    return false;
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.empty()) continue;
    auto loc = [&](size_t i, uint64_t* v) {
      if (i >= w.size()) return fail("'" + w[0] + "': missing argument");
      auto a = Resolve(w[i], elf);
      if (!a) return fail("'" + w[i] + "': not a symbol of " + elf.path + " nor a number");
      *v = *a;
      return true;
    };
    auto num = [&](size_t i, uint64_t* v) {
      if (i >= w.size()) return fail("'" + w[0] + "': missing argument");
      auto a = snapshot::ParseUnsigned(w[i]);
      if (!a) return fail("'" + w[i] + "': not a number");
      *v = *a;
      return true;
    };
    const std::string& d = w[0];
    uint64_t a = 0, b = 0, c = 0;
    if (d == "start") {
      if (!loc(1, &out->start)) return false;
      out->has_start = true;
    } else if (d == "stop") {
      if (!loc(1, &out->stop)) return false;
      out->has_stop = true;
    } else if (d == "cond") {
      if (!loc(1, &a)) return false;
      if (w.size() < 3) return fail("cond: no outcome");
      for (size_t i = 2; i < w.size(); ++i)
        for (char ch : w[i]) {
          if (ch != 'T' && ch != 'N') return fail(std::string("cond: outcome '") + ch + "' is not T or N");
          out->cond[a].push_back(ch == 'T');
        }
    } else if (d == "indirect") {
      if (!loc(1, &a)) return false;
      if (w.size() < 3) return fail("indirect: no target");
      for (size_t i = 2; i < w.size(); ++i) {
        if (!loc(i, &b)) return false;
        out->indirect[a].push_back(b);
      }
    } else if (d == "exception") {
      ScriptedException e;
      if (!loc(1, &e.site)) return false;
      if (w.size() < 4) return fail("exception: LOC TYPE VECTOR [VISIT]");
      auto type = ExceptionType(w[2]);
      if (!type) return fail("exception: unknown type '" + w[2] + "'");
      e.type = *type;
      if (!loc(3, &e.vector)) return false;
      if (w.size() > 4) {
        if (!num(4, &a) || a == 0) return fail("exception: VISIT counts from 1");
        e.visit = static_cast<unsigned>(a);
      }
      out->exceptions.push_back(e);
    } else if (d == "timestamp") {
      if (!num(1, &a) || !num(2, &b) || !num(3, &c)) return false;
      if (a == 0) return fail("timestamp: EVERY must be > 0");
      out->ts_every = static_cast<unsigned>(a);
      out->ts_origin = b;
      out->ts_per_instr = c;
    } else if (d == "timestamp_hz") {
      if (!num(1, &out->ts_hz)) return false;
    } else if (d == "atoms_per_packet") {
      if (!num(1, &a) || a < 1 || a > 3) return fail("atoms_per_packet: 1, 2 or 3");
      out->atoms_per_packet = static_cast<unsigned>(a);
    } else if (d == "el") {
      if (!num(1, &a) || a > 3) return fail("el: 0..3");
      out->el = static_cast<uint8_t>(a);
    } else if (d == "max_instructions") {
      if (!num(1, &out->max_instructions)) return false;
    } else {
      return fail("unknown directive '" + d + "'");
    }
  }
  if (!out->has_start) {
    if (elf.entry == 0) return fail("no 'start' and the ELF has no entry point");
    out->start = elf.entry;
  }
  return true;
}

}  // namespace mabutrace::ete_gen
