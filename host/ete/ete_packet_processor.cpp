// SPDX-License-Identifier: MIT
// ete_packet_processor.cpp: ETE packet processor (see ete_packet_processor.h).
//
// Per packet: one header-table lookup selects the packet kind's reader in
// PacketFields (ete_packet_fields.h), which both delimits and decodes it.
// The hot kinds (atoms, addresses, cycle count F2/F3, no payload) are read
// inline from the input; the others, reserved headers and malformed packets
// go through ReadOtherPacket.
#include "ete/ete_packet_processor.h"

#include <cstdio>
#include <cstring>

namespace mabutrace::ete {

// How ReadPacket reads a header: one of the hot kinds inline, or through
// the header's reader in readers_ (kOther), or as a reserved header.
enum class EtePacketProcessor::HotKind : uint8_t {
  kOther,
  kReserved,
  kReservedCfg,  // reserved for this trace unit configuration
  kNoPayload,
  kAtom,
  kExactMatch,
  kShortAddressIs0,  // the sub-ISA in the kind: the address shifts are constants
  kShortAddressIs1,
  kLongAddress32Is0,
  kLongAddress32Is1,
  kLongAddress64,
  kCycleCountF2,
  kCycleCountF3,
};

using Reader = PacketFields::Reader;

const char* EteErrorKindName(EteErrorKind kind) {
  switch (kind) {
    case EteErrorKind::kReservedHeader: return "reserved-header";
    case EteErrorKind::kBadSequence: return "bad-sequence";
    case EteErrorKind::kOverlongField: return "overlong-field";
    case EteErrorKind::kTruncated: return "truncated";
  }
  return "?";
}

EtePacketProcessor::EtePacketProcessor(const EteConfig& config, PacketCallback on_packet, void* context,
                                       ErrorCallback on_error, ErrorPolicy policy)
    : config_(config),
      fields_(config_),
      on_packet_(on_packet),
      context_(context),
      on_error_(on_error),
      policy_(policy) {
  BuildTable();
  Reset();
}

void EtePacketProcessor::Reset() {
  stats_ = EteStats{};
  fields_.Reset();
  synced_ = false;
  pend_len_ = 0;
  pend_index_ = 0;
  unsync_fn_ = UnsyncFn::kNotSync;
  unsync_type_ = PacketType::kNotSync;
  update_index_ = 0;
  unsync_continue_ = false;
}

// The address packets come in two families of the same seven kinds, in
// PacketType order: exact match, short IS0/IS1, long 32-bit IS0/IS1, long
// 64-bit IS0/IS1 (target §4.12, source §4.14).
static_assert(static_cast<int>(PacketType::kTargetAddrL64Is1) - static_cast<int>(PacketType::kTargetAddrExact) == 6);
static_assert(static_cast<int>(PacketType::kSourceAddrL64Is1) - static_cast<int>(PacketType::kSourceAddrExact) == 6);

EtePacketProcessor::HotKind EtePacketProcessor::HotKindOf(Reader reader, uint8_t is) {
  if (reader == &PacketFields::NoPayload) return HotKind::kNoPayload;
  if (reader == &PacketFields::Atom) return HotKind::kAtom;
  if (reader == &PacketFields::ExactMatchAddress) return HotKind::kExactMatch;
  if (reader == &PacketFields::ShortAddress) return is ? HotKind::kShortAddressIs1 : HotKind::kShortAddressIs0;
  if (reader == &PacketFields::LongAddress32) return is ? HotKind::kLongAddress32Is1 : HotKind::kLongAddress32Is0;
  if (reader == &PacketFields::LongAddress64) return HotKind::kLongAddress64;
  if (reader == &PacketFields::CycleCountF2) return HotKind::kCycleCountF2;
  if (reader == &PacketFields::CycleCountF3) return HotKind::kCycleCountF3;
  return HotKind::kOther;
}

// Header table (arm-trace-facts.md §4.2, §4.16), built from the configuration
// as OpenCSD does.
void EtePacketProcessor::BuildTable() {
  auto set = [&](int first, int last, PacketType type, Reader reader, uint8_t is = 0) {
    for (int h = first; h <= last; ++h) {
      table_[static_cast<size_t>(h)] = {type, HotKindOf(reader, is), is};
      readers_[static_cast<size_t>(h)] = reader;
    }
  };
  // Reserved always (§4.2) or in this configuration (§4.16): no reader.
  auto reserve = [&](int first, int last, PacketType type, HotKind why) {
    for (int h = first; h <= last; ++h) {
      table_[static_cast<size_t>(h)] = {type, why, 0};
      readers_[static_cast<size_t>(h)] = nullptr;
    }
  };
  auto set_addresses = [&](int exact, int short_is0, int long32_is0, int long64_is0, PacketType exact_type) {
    auto kind = [&](int k) { return static_cast<PacketType>(static_cast<int>(exact_type) + k); };
    set(exact, exact + 2, kind(0), &PacketFields::ExactMatchAddress);
    for (uint8_t is = 0; is < 2; ++is) {
      set(short_is0 + is, short_is0 + is, kind(1 + is), &PacketFields::ShortAddress, is);
      set(long32_is0 + is, long32_is0 + is, kind(3 + is), &PacketFields::LongAddress32, is);
      set(long64_is0 + is, long64_is0 + is, kind(5 + is), &PacketFields::LongAddress64, is);
    }
  };
  const bool ete = config_.is_ete();
  reserve(0x00, 0xFF, PacketType::kReserved, HotKind::kReserved);
  set(0x00, 0x00, PacketType::kExtension, &PacketFields::Extension);
  set(0x01, 0x01, PacketType::kTraceInfo, &PacketFields::TraceInfo);
  set(0x02, 0x03, PacketType::kTimestamp, &PacketFields::Timestamp);
  set(0x04, 0x04, PacketType::kTraceOn, &PacketFields::NoPayload);
  // 0x05 Function Return: ETMv4 on an M-profile (v8-M) PE only (a return
  // from a Non-secure call, FNC_RETURN); reserved otherwise.
  if (!ete && config_.m_profile)
    set(0x05, 0x05, PacketType::kFunctionReturn, &PacketFields::NoPayload);
  else
    reserve(0x05, 0x05, PacketType::kFunctionReturn, HotKind::kReserved);
  set(0x06, 0x06, PacketType::kException, &PacketFields::Exception);
  if (ete) {
    reserve(0x07, 0x07, PacketType::kExceptionReturn, HotKind::kReservedCfg);
    set(0x0A, 0x0A, PacketType::kTransactionStart, &PacketFields::NoPayload);
    set(0x0B, 0x0B, PacketType::kTransactionCommit, &PacketFields::NoPayload);
    if (config_.minor_version() >= 3) set(0x09, 0x09, PacketType::kInstrumentation, &PacketFields::Instrumentation);
  } else {
    set(0x07, 0x07, PacketType::kExceptionReturn, &PacketFields::NoPayload);
  }
  set(0x0C, 0x0D, PacketType::kCycleCountF2, &PacketFields::CycleCountF2);
  set(0x0E, 0x0F, PacketType::kCycleCountF1, &PacketFields::CycleCountF1);
  set(0x10, 0x1F, PacketType::kCycleCountF3, &PacketFields::CycleCountF3);
  reserve(0x20, 0x2C, PacketType::kDataSyncMarker, HotKind::kReservedCfg);
  set(0x2D, 0x2D, PacketType::kCommit, &PacketFields::Commit);
  set(0x2E, 0x2E, PacketType::kCancelF1, &PacketFields::CancelF1);
  set(0x2F, 0x2F, PacketType::kCancelF1Mispredict, &PacketFields::CancelF1);
  set(0x30, 0x33, PacketType::kMispredict, &PacketFields::MispredictOrCancelF2);
  set(0x34, 0x37, PacketType::kCancelF2, &PacketFields::MispredictOrCancelF2);
  set(0x38, 0x3F, PacketType::kCancelF3, &PacketFields::CancelF3);
  for (int i = 0x40; i <= 0x6F; ++i) {
    // conditional trace: ETMv4 only (TRCIDR0.TRCCOND is RES0 in ETE)
    if (i == 0x6C || i == 0x6D || (i >= 0x40 && i <= 0x4E && i != 0x47 && i != 0x4B) || (i >= 0x50 && i <= 0x5F) ||
        (i >= 0x68 && i <= 0x6B) || i == 0x6E || i == 0x6F)
      reserve(i, i, PacketType::kConditional, HotKind::kReservedCfg);
  }
  if (config_.full_version() >= 0x43) set(0x70, 0x70, PacketType::kIgnore, &PacketFields::NoPayload);
  set(0x71, 0x7F, PacketType::kEvent, &PacketFields::Event);
  set(0x80, 0x81, PacketType::kContext, &PacketFields::Context);
  set(0x82, 0x82, PacketType::kTargetAddrCtxtL32Is0, &PacketFields::AddressWithContext32, 0);
  set(0x83, 0x83, PacketType::kTargetAddrCtxtL32Is1, &PacketFields::AddressWithContext32, 1);
  set(0x85, 0x85, PacketType::kTargetAddrCtxtL64Is0, &PacketFields::AddressWithContext64, 0);
  set(0x86, 0x86, PacketType::kTargetAddrCtxtL64Is1, &PacketFields::AddressWithContext64, 1);
  if (config_.full_version() >= 0x46) set(0x88, 0x88, PacketType::kTimestampMarker, &PacketFields::NoPayload);
  set_addresses(0x90, 0x95, 0x9A, 0x9D, PacketType::kTargetAddrExact);
  // Q (§4.13): TYPEs 3, 4, 7, 8, 9, 0xD, 0xE are reserved.
  constexpr unsigned kReservedQ = 1u << 0x3 | 1u << 0x4 | 1u << 0x7 | 1u << 0x8 | 1u << 0x9 | 1u << 0xD | 1u << 0xE;
  for (int t = 0; t < 16; ++t) {
    if (config_.has_q() && !((kReservedQ >> t) & 1))
      set(0xA0 + t, 0xA0 + t, PacketType::kQ, &PacketFields::Q);
    else
      reserve(0xA0 + t, 0xA0 + t, PacketType::kQ, HotKind::kReserved);
  }
  if (config_.full_version() >= 0x50) set_addresses(0xB0, 0xB4, 0xB6, 0xB8, PacketType::kSourceAddrExact);
  for (int h = 0xC0; h <= 0xFF; ++h) set(h, h, PacketFields::AtomFormat(static_cast<uint8_t>(h)), &PacketFields::Atom);
}

// ---- synchronised: one reader per packet kind

template <EtePacketProcessor::Sink kSink>
void EtePacketProcessor::Emit(uint64_t index, uint64_t stream_offset, const uint8_t* p, size_t len) {
  EtePacket& pkt = fields_.packet();
  pkt.index = index;
  pkt.stream_offset = stream_offset;
  pkt.raw = p;
  pkt.size = static_cast<uint8_t>(len);
  ++stats_.packets;
  if constexpr (kSink == Sink::kSource)
    on_source_packet_(source_context_, source_, pkt);
  else if constexpr (kSink == Sink::kPlain)
    on_packet_(context_, pkt);
  else if (on_source_packet_)
    on_source_packet_(source_context_, source_, pkt);
  else
    on_packet_(context_, pkt);
}

template <EtePacketProcessor::Sink kSink>
__attribute__((always_inline)) inline size_t EtePacketProcessor::ReadPacket(uint64_t index, uint64_t stream_offset,
                                                                            const uint8_t* p, size_t n) {
  const TableEntry& e = table_[p[0]];
  fields_.packet().type = e.type;
  fields_.ClearAtomCount();  // an atom packet leaves its count set (EmitAtom)
  PacketExtent x;
  switch (e.hot) {
    case HotKind::kNoPayload: x = fields_.NoPayload(p, n, e.is); break;
    case HotKind::kAtom: x = fields_.Atom(p, n, e.is); break;
    case HotKind::kExactMatch: x = fields_.ExactMatchAddress(p, n, e.is); break;
    case HotKind::kShortAddressIs0: x = fields_.ShortAddress(p, n, 0); break;
    case HotKind::kShortAddressIs1: x = fields_.ShortAddress(p, n, 1); break;
    case HotKind::kLongAddress32Is0: x = fields_.LongAddress32(p, n, 0); break;
    case HotKind::kLongAddress32Is1: x = fields_.LongAddress32(p, n, 1); break;
    case HotKind::kLongAddress64: x = fields_.LongAddress64(p, n, e.is); break;
    case HotKind::kCycleCountF2: x = fields_.CycleCountF2(p, n, e.is); break;
    case HotKind::kCycleCountF3: x = fields_.CycleCountF3(p, n, e.is); break;
    default: return ReadOtherPacket<kSink>(index, stream_offset, p, n);
  }
  if (x.length == 0) return 0;
  Emit<kSink>(index, stream_offset, p, x.length);
  fields_.ClearHotFields();
  return x.length;
}

// The other kinds through their reader, inline: a call of its own cost
// its frame on every Trace Info, Context, Timestamp... Reserved headers
// and malformed packets go on to ReadReserved / ReadMalformed.
template <EtePacketProcessor::Sink kSink>
__attribute__((always_inline)) inline size_t EtePacketProcessor::ReadOtherPacket(uint64_t index, uint64_t stream_offset,
                                                                                 const uint8_t* p, size_t n) {
  const Reader reader = readers_[p[0]];
  if (!reader) return ReadReserved(index, stream_offset, p);
  const PacketExtent x = (fields_.*reader)(p, n, table_[p[0]].is);  // may refine the type (Extension, Exception)
  if (x.length == 0) return 0;
  if (x.malformed) return ReadMalformed(index, stream_offset, p, x);
  const PacketType type = fields_.packet().type;
  if (type == PacketType::kAsync || type == PacketType::kOverflow) CountExtension(type);
  Emit<kSink>(index, stream_offset, p, x.length);
  fields_.ClearPacketFields();
  return x.length;
}

template <EtePacketProcessor::Sink kSink>
__attribute__((always_inline)) inline void EtePacketProcessor::EmitAtom(uint64_t index, uint64_t stream_offset,
                                                                        const uint8_t* p) {
  const internal::AtomPattern& a = internal::kAtomPatterns[p[0]];  // read once: p aliases the packet
  EtePacket& pkt = fields_.packet();
  pkt.atom_bits = a.bits;
  pkt.atom_count = a.count;
  pkt.type = a.format;
  Emit<kSink>(index, stream_offset, p, 1);  // atom_count stays set: the next packet's reader clears it
}

// The hot loop, over the whole of data[pos, n): stops at a packet that is
// not whole (returns with data[result) its header) or when the processor
// loses sync. A function of its own, so that its few live values stay in
// registers; the readers' length checks are single compares.
size_t EtePacketProcessor::ReadPackets(uint64_t stream_offset, const uint8_t* data, size_t pos, size_t n,
                                       const coresight::DataRun* runs, size_t nruns, size_t run) {
  if (run + 1 == nruns) {
    // One run to the end (a raw stream's push, a block's last run): every
    // packet has its index bias, no lookup.
    const RunStart one = {data + runs[run].pos,
                          runs[run].input_offset - reinterpret_cast<uintptr_t>(data + runs[run].pos)};
    return on_source_packet_ ? ReadPacketsOf<true, Sink::kSource>(stream_offset, data, pos, n, &one)
                             : ReadPacketsOf<true, Sink::kPlain>(stream_offset, data, pos, n, &one);
  }
  // Runs as a table of run starts, the empty ones left out, then two
  // sentinels: the run of each packet is looked up without a branch on
  // "this packet starts a new run" (a run is one frame, some 6 packets,
  // and that branch missed at every run end).
  run_starts_.resize(nruns - run + 2);
  RunStart* const t = run_starts_.data();
  size_t m = 0;
  for (size_t i = run; i < nruns; ++i) {
    t[m] = {data + runs[i].pos, runs[i].input_offset - reinterpret_cast<uintptr_t>(data + runs[i].pos)};
    m += (i + 1 < nruns ? runs[i + 1].pos : n) > runs[i].pos;
  }
  t[m] = t[m + 1] = {reinterpret_cast<const uint8_t*>(UINTPTR_MAX), 0};
  return on_source_packet_ ? ReadPacketsOf<false, Sink::kSource>(stream_offset, data, pos, n, t)
                           : ReadPacketsOf<false, Sink::kPlain>(stream_offset, data, pos, n, t);
}

// ReadPackets over the non-empty runs t[0..] (t[0] holds data[pos]).
// Offsets as the pointer plus a bias: fewer values live across the
// callback. A packet's index is that of its header byte: the index bias is
// that of the run that holds the header; the packet may go on into the
// next runs.
template <bool kOneRun, EtePacketProcessor::Sink kSink>
__attribute__((noinline)) size_t EtePacketProcessor::ReadPacketsOf(uint64_t stream_offset, const uint8_t* data,
                                                                   size_t pos, size_t n, const RunStart* t) {
  // The run of the packet's header (before the step below, maybe the one
  // before): a pointer (an index cost a shift more per packet), stepped
  // without a branch: a branch there (three instructions fewer a packet)
  // missed at every run end and made juno_r1_1 slower.
  const RunStart* r = t;
  const uint64_t one_bias = t[0].index_bias;  // kOneRun: in a register, not reloaded after each callback
  const uint8_t* const stop = data + n;
  const uint64_t stream_bias = stream_offset - reinterpret_cast<uintptr_t>(data);
  const uint8_t* p = data + pos;
  while (p < stop) {
    // Runs are never empty, so a one-byte packet moves at most one run on:
    // one branch-free step here; longer packets step the rest below.
    if constexpr (!kOneRun) r += static_cast<size_t>(p >= r[1].start);
    const uintptr_t at = reinterpret_cast<uintptr_t>(p);
    if (*p >= kFirstAtomHeader) {
      // Atoms, two packets in three on real trace: header only, no state
      // but the packet's own, never malformed (§4.15).
      EmitAtom<kSink>((kOneRun ? one_bias : r->index_bias) + at, stream_bias + at, p);
      ++p;
      continue;
    }
    const size_t len = ReadPacket<kSink>((kOneRun ? one_bias : r->index_bias) + at, stream_bias + at, p,
                                         static_cast<size_t>(stop - p));
    if (len == 0) break;  // not whole: the caller keeps it
    p += len;
    if constexpr (!kOneRun)
      while (p >= r[2].start) ++r;  // over several runs: to the run before the next header's
    // Only a reserved header or a malformed packet (not a hot kind) loses sync.
    if (!synced_) break;
  }
  return static_cast<size_t>(p - data) - pos;
}

static std::string HexBytes(const uint8_t* p, size_t n) {
  std::string s;
  char b[8];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, i ? " %02x" : "%02x", p[i]);
    s += b;
  }
  return s;
}

void EtePacketProcessor::CountExtension(PacketType type) {
  if (type == PacketType::kOverflow) ++stats_.overflows;
  if (type == PacketType::kAsync) ++stats_.syncs;
}

// Off the path of valid packets: a reserved header ...
__attribute__((noinline, cold)) size_t EtePacketProcessor::ReadReserved(uint64_t index, uint64_t stream_offset,
                                                                        const uint8_t* p) {
  const uint8_t h = p[0];
  const TableEntry& e = table_[h];
  EtePacket& pkt = fields_.packet();
  const bool cfg = e.hot == HotKind::kReservedCfg;
  pkt.type = cfg ? PacketType::kReservedCfg : PacketType::kReserved;
  pkt.err_type = e.type;
  Emit(index, stream_offset, p, 1);
  fields_.ClearPacketFields();
  char what[96];
  std::snprintf(what, sizeof what, "reserved header 0x%02x%s", h,
                cfg ? " (not valid for this trace unit configuration)" : "");
  Error(EteErrorKind::kReservedHeader, index, what);
  ApplyErrorPolicy();
  return 1;
}

// ... and a malformed packet p[0..x.length).
__attribute__((noinline, cold)) size_t EtePacketProcessor::ReadMalformed(uint64_t index, uint64_t stream_offset,
                                                                         const uint8_t* p, PacketExtent x) {
  const TableEntry& e = table_[p[0]];
  EtePacket& pkt = fields_.packet();
  // A malformed extension of 3 or more bytes was an A-Sync.
  pkt.err_type = e.type != PacketType::kExtension ? e.type
                 : x.length >= 3                  ? PacketType::kAsync
                                                  : PacketType::kExtension;
  pkt.type = PacketType::kBadSequence;
  Emit(index, stream_offset, p, x.length);
  fields_.ClearPacketFields();
  Error(x.error, index,
        std::string(x.error == EteErrorKind::kOverlongField ? "overlong continuation field in " : "malformed ") +
            PacketTypeName(pkt.err_type) + " packet [" + HexBytes(p, x.length) + "]");
  ApplyErrorPolicy();
  return x.length;
}

void EtePacketProcessor::Error(EteErrorKind kind, uint64_t index, const std::string& what) {
  ++stats_.errors;
  if (!on_error_) return;
  char head[96];
  std::snprintf(head, sizeof head, "byte %llu (trace ID 0x%x): ", static_cast<unsigned long long>(index),
                config_.trace_id());
  on_error_(context_, EteError{kind, index, config_.trace_id(), head + what});
}

void EtePacketProcessor::ApplyErrorPolicy() {
  if (policy_ == ErrorPolicy::kResync) {
    synced_ = false;
    unsync_continue_ = false;
    unsync_fn_ = UnsyncFn::kNotSync;
    unsync_type_ = PacketType::kNotSync;
    update_index_ = 0;
  }
}

// ---- unsynchronised state: OpenCSD's iNotSync / iPktExtension / iPktASync ----

void EtePacketProcessor::EmitPending(PacketType type, PacketType err_type, size_t n) {
  EtePacket& pkt = fields_.packet();
  pkt.type = type;
  pkt.err_type = err_type;
  fields_.ClearAtomCount();
  Emit(pend_index_, pend_stream_, pend_.data(), n);
  fields_.ClearPacketFields();
}

void EtePacketProcessor::DumpUnsynced(size_t n) {
  stats_.not_sync_bytes += n;
  EmitPending(PacketType::kNotSync, PacketType::kNotSync, n);
  std::memmove(pend_.data(), pend_.data() + n, pend_len_ - n);
  pend_len_ -= n;
  pend_stream_ += n;
  unsync_continue_ = true;  // OpenCSD stays in PROC_DATA after dumping
  if (update_index_ != 0) {
    pend_index_ = update_index_;
    update_index_ = 0;
  }
}

void EtePacketProcessor::UnsyncedByte(uint64_t index, uint64_t stream_offset, uint8_t b) {
  if (pend_len_ == 0) pend_stream_ = stream_offset;
  if (pend_len_ == 0 && !unsync_continue_) {  // OpenCSD PROC_HDR
    pend_index_ = index;
    unsync_fn_ = UnsyncFn::kNotSync;
    unsync_type_ = PacketType::kNotSync;
  }
  pend_[pend_len_++] = b;
  switch (unsync_fn_) {
    case UnsyncFn::kNotSync:
      if (b == 0x00) {
        if (pend_len_ > 1) {
          update_index_ = index;
          DumpUnsynced(pend_len_ - 1);
        } else {
          pend_index_ = index;
        }
        unsync_fn_ = UnsyncFn::kExtension;
      } else if (pend_len_ >= 8) {
        update_index_ = index + 1;
        DumpUnsynced(pend_len_);
      }
      break;
    case UnsyncFn::kExtension:
      if (pend_len_ == 2) {
        if (b != 0x00) {
          unsync_fn_ = UnsyncFn::kNotSync;
          unsync_type_ = PacketType::kNotSync;
        } else {
          unsync_fn_ = UnsyncFn::kAsync;
          unsync_type_ = PacketType::kAsync;
        }
      }
      break;
    case UnsyncFn::kAsync:
      if (b != 0x00) {
        if (pend_len_ != 12) {
          unsync_fn_ = UnsyncFn::kNotSync;
          unsync_type_ = PacketType::kNotSync;
          return;
        }
        if (b == 0x80) {
          synced_ = true;
          ++stats_.syncs;
          EmitPending(PacketType::kAsync, PacketType::kNotSync, 12);
        } else {
          EmitPending(PacketType::kBadSequence, PacketType::kAsync, 12);
          Error(EteErrorKind::kBadSequence, pend_index_, "bad A-Sync sequence");
        }
        pend_len_ = 0;
        unsync_continue_ = false;
        unsync_fn_ = UnsyncFn::kNotSync;
        unsync_type_ = PacketType::kNotSync;
      } else if (pend_len_ == 12) {
        DumpUnsynced(1);  // extra leading zero; OpenCSD keeps the packet index
      }
      break;
  }
}

void EtePacketProcessor::Push(uint64_t index, const uint8_t* data, size_t n) {
  const coresight::DataRun run{0, index};
  PushBlock(data, n, &run, 1);
}

void EtePacketProcessor::PushBlock(const uint8_t* data, size_t n, const coresight::DataRun* runs, size_t nruns) {
  const uint64_t base = stats_.bytes;  // stream offset of data[0]
  stats_.bytes += n;
  size_t run = 0;  // the run holding data[pos]
  auto index_at = [&](size_t pos) {
    while (run + 1 < nruns && runs[run + 1].pos <= pos) ++run;
    return runs[run].input_offset + (pos - runs[run].pos);
  };
  size_t pos = 0;
  while (pos < n) {
    if (!synced_) {
      UnsyncedByte(index_at(pos), base + pos, data[pos]);
      ++pos;
      continue;
    }
    if (pend_len_ == 0) {
      index_at(pos);
      pos += ReadPackets(base, data, pos, n, runs, nruns, run);  // run: index_at moves it on as needed
      if (!synced_ || pos >= n) continue;
      // A packet not whole: keep it for the next push. Its header is in
      // one of the last runs: the run is looked for from the end (from
      // `run` on, it was a walk over the whole block).
      size_t last = nruns - 1;
      while (runs[last].pos > pos) --last;
      pend_index_ = runs[last].input_offset + (pos - runs[last].pos);
      pend_stream_ = base + pos;
      std::memcpy(pend_.data(), data + pos, n - pos);
      pend_len_ = n - pos;
      return;
    }
    // A packet split across pushes: complete it in pend_ (the reader
    // decides within kMaxPacketBytes).
    size_t take = kMaxPacketBytes - pend_len_;
    if (take > n - pos) take = n - pos;
    std::memcpy(pend_.data() + pend_len_, data + pos, take);
    const size_t len = ReadPacket(pend_index_, pend_stream_, pend_.data(), pend_len_ + take);
    if (len == 0) {
      pend_len_ += take;
      pos += take;
      continue;
    }
    pos += len - pend_len_;
    pend_len_ = 0;
  }
}

void EtePacketProcessor::Finish() {
  if (pend_len_ == 0) return;
  const PacketType err = synced_ ? table_[pend_[0]].type : unsync_type_;
  const size_t n = pend_len_;
  EmitPending(PacketType::kIncompleteEot, err, n);
  pend_len_ = 0;
  unsync_continue_ = false;
  Error(EteErrorKind::kTruncated, pend_index_,
        std::string("trace ends inside a ") + PacketTypeName(err) + " packet (" + std::to_string(n) + " bytes [" +
            HexBytes(pend_.data(), n) + "])");
  unsync_fn_ = UnsyncFn::kNotSync;
}

}  // namespace mabutrace::ete
