// SPDX-License-Identifier: MIT
// ete_generator.cpp: see ete_generator.h.
#include "ete_generator.h"

#include <cinttypes>
#include <cstdio>
#include <map>

#include "instr.h"
#include "packet_encoder.h"

namespace mabutrace::ete_gen {

namespace {

std::string Hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

class Walker {
 public:
  Walker(const armisa::MemoryImage& image, const GenScript& script, GenResult* out)
      : image_(image), script_(script), out_(out), enc_(&out->trace) {}

  bool Run(std::string* error);

 private:
  void Atom(bool taken) {
    pending_[npending_++] = taken;
    ++out_->atoms;
    if (npending_ == script_.atoms_per_packet) Flush();
  }
  void Flush() {
    if (npending_) enc_.Atoms(pending_, npending_);
    npending_ = 0;
  }
  void Timestamp() {
    Flush();
    const uint64_t v = script_.ts_origin + out_->instructions * script_.ts_per_instr;
    enc_.Timestamp(v);
    out_->timestamps.push_back(v);
  }
  bool Fail(std::string* error, const std::string& why) {
    *error = why;
    return false;
  }

  const armisa::MemoryImage& image_;
  const GenScript& script_;
  GenResult* out_;
  PacketEncoder enc_;
  bool pending_[3] = {};
  unsigned npending_ = 0;
};

bool Walker::Run(std::string* error) {
  std::map<uint64_t, size_t> cond_used, indirect_used;
  std::map<uint64_t, unsigned> visits;  // arrivals at exception sites
  std::vector<uint64_t> calls, exception_returns;
  enc_.ASync();
  enc_.TraceInfo();
  enc_.TraceOn();
  uint64_t pc = script_.start;
  enc_.AddressWithContext(pc, script_.el);
  if (script_.ts_every) Timestamp();
  uint64_t range_start = pc;
  uint64_t since_ts = 0;
  for (;;) {
    if (script_.has_stop && pc == script_.stop) break;
    bool took_exception = false;
    unsigned visit = 0;  // this arrival at pc, counted once for all its exceptions
    for (const ScriptedException& x : script_.exceptions) {
      if (x.site != pc) continue;
      if (!visit) visit = ++visits[pc];
      if (x.visit != visit) continue;
      Flush();
      if (pc != range_start)
        out_->ranges.push_back({range_start, pc, static_cast<uint32_t>((pc - range_start) / 4), false, false});
      out_->exceptions.push_back({out_->ranges.size(), x.type, pc, x.vector});
      enc_.Exception(x.type, pc);
      enc_.LongAddress(x.vector);
      exception_returns.push_back(pc);
      pc = range_start = x.vector;
      took_exception = true;
      break;
    }
    if (took_exception) continue;
    uint8_t b[4];
    if (image_.Read(pc, 4, b) != 4) return Fail(error, "execution reaches " + Hex(pc) + ", outside the image");
    const uint32_t op = uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
    // WFx are not P0 with TRCIDR2.WFXMODE = 0 (snapshot_writer.h).
    armisa::ClassifyOptions copt;
    copt.wfx_waypoints = false;
    const armisa::InstrInfo in = armisa::ClassifyA64(op, pc, copt);
    if (++out_->instructions > script_.max_instructions)
      return Fail(error, "more than " + std::to_string(script_.max_instructions) + " instructions (at " + Hex(pc) +
                             "): a loop the script does not end?");
    if (!in.is_p0()) {
      pc += 4;
      continue;
    }
    bool taken = true;
    if (in.is_conditional) {
      auto it = script_.cond.find(pc);
      size_t& used = cond_used[pc];
      if (it == script_.cond.end() || used >= it->second.size())
        return Fail(error, "conditional branch at " + Hex(pc) + ": visit " + std::to_string(used + 1) +
                               " has no scripted outcome (cond LOC T|N...)");
      taken = it->second[used++];
    }
    out_->ranges.push_back({range_start, pc + 4, static_cast<uint32_t>((pc + 4 - range_start) / 4), true, taken});
    Atom(taken);
    uint64_t next = pc + 4;
    if (taken && in.type == armisa::InstrType::kBranch) {
      next = in.target;
      if (in.is_link) calls.push_back(pc + 4);
    } else if (taken && in.type == armisa::InstrType::kIndirectBranch) {
      if (in.subtype == armisa::InstrSubtype::kV8Ret) {
        if (calls.empty()) return Fail(error, "RET at " + Hex(pc) + " with an empty call stack");
        next = calls.back();
        calls.pop_back();
      } else if (in.subtype == armisa::InstrSubtype::kV8Eret) {
        if (exception_returns.empty()) return Fail(error, "ERET at " + Hex(pc) + " outside an exception");
        next = exception_returns.back();
        exception_returns.pop_back();
      } else {
        auto it = script_.indirect.find(pc);
        size_t& used = indirect_used[pc];
        if (it == script_.indirect.end() || used >= it->second.size())
          return Fail(error, "indirect branch at " + Hex(pc) + ": visit " + std::to_string(used + 1) +
                                 " has no scripted target (indirect LOC TARGET...)");
        next = it->second[used++];
        if (in.is_link) calls.push_back(pc + 4);
      }
      Flush();
      enc_.LongAddress(next);
    }
    pc = range_start = next;
    if (script_.ts_every && ++since_ts == script_.ts_every) {
      since_ts = 0;
      Timestamp();
    }
  }
  if (script_.ts_every) Timestamp();
  Flush();
  return true;
}

}  // namespace

bool Generate(const armisa::MemoryImage& image, const GenScript& script, GenResult* out, std::string* error) {
  *out = GenResult{};
  Walker w(image, script, out);
  return w.Run(error);
}

}  // namespace mabutrace::ete_gen
