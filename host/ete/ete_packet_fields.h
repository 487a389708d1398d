// SPDX-License-Identifier: MIT
// ete_packet_fields.h: one read function per ETE packet kind, and the
// packet-layer state those packets update (R-F1).
//
// The packet processor (ete_packet_processor.h) owns synchronisation, the
// header table, errors and the callback; what the bytes of each packet kind
// mean is written here, once, for every path that reads packets:
//
//   processor hot loop   >= kMaxPacketBytes in hand: n is a constant, the
//                        inline readers' length checks fold away
//   processor tail       the last bytes of a push, or a packet completed in
//                        the processor's 48-byte buffer: n is what is there
//   (issue 15) ETMv4     the same packet kinds behind another header table
//
// Contract of every reader Xxx(p, n, ...): p[0] is the packet's header byte
// and p[0..n) the bytes in hand (n >= 1). It never reads p[n] or beyond and
// returns a PacketExtent:
//
//   {length 0}                the packet is longer than n: nothing changed,
//                             call again with more bytes
//   {length L}                the packet is p[0..L): its fields are in
//                             packet(), the persistent state is updated
//   {length L, malformed}     p[0..L) is malformed (`error` says how: an
//                             overlong continuation field, a bad extension
//                             byte): nothing changed
//
// Persistent state (the way OpenCSD's lister prints packets, ete_packet.h):
// the 3-entry address history (§4.12), the full timestamp (§4.5), the
// context (§4.12), the Trace Info CYCT threshold (§4.4, §4.9). A reader sets
// only the per-packet fields of its kind; ClearPacketFields() resets them
// after the packet was handed out, so the next reader starts clean.
//
// Encodings: arm-trace-facts.md §4 (Arm ARM DDI0487 D5.3, the packet list;
// D5.1 the field encodings), section numbers given per reader. The config
// predicates (commit mode, VMID/CONTEXTID sizes, ...) are EteConfig's.
#ifndef MABUTRACE_HOST_ETE_ETE_PACKET_FIELDS_H
#define MABUTRACE_HOST_ETE_ETE_PACKET_FIELDS_H

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ete/ete_config.h"
#include "ete/ete_packet.h"

namespace mabutrace::ete {

struct PacketExtent {
  uint8_t length = 0;                               // bytes of the packet; 0 = more bytes needed
  bool malformed = false;                           // the packet's fields were not read
  EteErrorKind error = EteErrorKind::kBadSequence;  // why, when malformed
};

namespace internal {
// Atom headers 0xC0-0xFF (§4.15).
struct AtomPattern {
  uint32_t bits;  // bit i = atom i, oldest first: 1 = E, 0 = N
  uint8_t count;
  PacketType format;
};
constexpr AtomPattern AtomOf(unsigned h) {
  constexpr uint32_t kF4[4] = {0xE, 0x0, 0xA, 0x5};  // 0xDC NEEE, NNNN, NENE, ENEN
  if (h >= 0xF8) return {h & 7, 3, PacketType::kAtomF3};
  if (h >= 0xF6) return {h & 1, 1, PacketType::kAtomF1};
  if (h >= 0xDC && h <= 0xDF) return {kF4[h & 3], 4, PacketType::kAtomF4};
  if (h >= 0xD8 && h <= 0xDB) return {h & 3, 2, PacketType::kAtomF2};
  if (h == 0xF5) return {0x1E, 5, PacketType::kAtomF5};  // F5.1 NEEEE
  if (h >= 0xD5 && h <= 0xD7) return {h == 0xD5 ? 0x00u : h == 0xD6 ? 0x0Au : 0x15u, 5, PacketType::kAtomF5};  // F5.2
  // F6 (0b11 A CCCCC): COUNT + 3 E atoms, then E (A = 0) or N (A = 1).
  const unsigned e = (h & 0x1F) + 3u;
  return {((1u << e) - 1) | ((h & 0x20) ? 0u : 1u << e), static_cast<uint8_t>(e + 1), PacketType::kAtomF6};
}
// Indexed by the whole header (0xC0-0xFF; the entries below are unused and
// never loaded): no mask per atom.
constexpr std::array<AtomPattern, 256> MakeAtomPatterns() {
  std::array<AtomPattern, 256> t{};
  for (unsigned h = 0xC0; h < 256; ++h) t[h] = AtomOf(h);
  return t;
}
inline constexpr std::array<AtomPattern, 256> kAtomPatterns = MakeAtomPatterns();

// Little-endian words in one load each (a loop of byte loads is not merged into one).
template <typename T>
T LoadLe(const uint8_t* f) {
  T v;
  std::memcpy(&v, f, sizeof v);
  if constexpr (std::endian::native == std::endian::big)
    v = static_cast<T>(__builtin_bswap64(v) >> (64 - 8 * sizeof v));
  return v;
}

}  // namespace internal

class PacketFields {
 public:
  // `config` must outlive this object.
  explicit PacketFields(const EteConfig& config)
      : config_(config), vmid_bytes_(config.vmid_bytes()), cid_bytes_(config.cid_bytes()) {
    Reset();
  }

  // Back to the state before any packet (no Trace Info, no address, no context).
  void Reset();
  // The packet the readers fill; the processor sets its framing fields
  // (type, index, raw, size...) and hands it out.
  EtePacket& packet() { return pkt_; }
  // Clears the per-packet fields (atoms, cycle count, commit, context
  // "updated" flags, Trace Info "initial", err_type) after a packet was
  // handed out, so that the next reader starts from a clean packet.
  void ClearPacketFields() {
    ClearHotFields();
    ClearAtomCount();
    pkt_.atom_bits = 0;
    pkt_.context.updated = false;
    pkt_.context.updated_vmid = false;
    pkt_.context.updated_cid = false;
    pkt_.tinfo_initial = false;
    pkt_.err_type = PacketType::kNotSync;
  }
  // The atom count, before a packet is read: an atom packet (two in three)
  // leaves it set rather than clearing it after itself.
  void ClearAtomCount() { pkt_.atom_count = 0; }
  // After a hot kind, the only per-packet fields they set but the atom
  // count (cleared before the next packet).
  void ClearHotFields() {
    pkt_.cc_valid = false;
    pkt_.commit_valid = false;
  }

  // The atom format of header h (0xC0-0xFF).
  static PacketType AtomFormat(uint8_t h) { return internal::kAtomPatterns[h].format; }

  // Every reader has this signature, so that a header table can hold it;
  // `is` is the sub-ISA (IS0 / IS1) the header gives an address packet's
  // address (unused by the others).
  using Reader = PacketExtent (PacketFields::*)(const uint8_t* p, size_t n, uint8_t is);

  // ---- hot kinds: inline, never malformed

  // Trace On, Ignore, Timestamp Marker, Transaction Start / Commit: no payload.
  PacketExtent NoPayload(const uint8_t* /*p*/, size_t /*n*/, uint8_t /*is*/) { return {1}; }

  // Atom F1-F6 (§4.15): header only; E/N pattern from the header
  // (AtomFormat(h) says which format a header is).
  PacketExtent Atom(const uint8_t* p, size_t /*n*/, uint8_t /*is*/) {
    const internal::AtomPattern& a = internal::kAtomPatterns[p[0]];
    pkt_.atom_bits = a.bits;
    pkt_.atom_count = a.count;
    return {1};
  }
  // Target / Source Address Exact Match (§4.12, §4.14): header[1:0] = history entry.
  PacketExtent ExactMatchAddress(const uint8_t* p, size_t /*n*/, uint8_t /*is*/) {
    ExactMatch(p[0] & 3);
    return {1};
  }
  // Target / Source Address Short IS0 / IS1 (§4.12): 1 or 2 address bytes.
  PacketExtent ShortAddress(const uint8_t* p, size_t n, uint8_t is) {
    if (n < 2 || n < 1 + ShortAddressBytes(p[1])) return {0};
    return {static_cast<uint8_t>(1 + ShortAddressField(p + 1, is))};
  }
  // Target / Source Address Long 32-bit (§4.12): 4 address bytes.
  PacketExtent LongAddress32(const uint8_t* p, size_t n, uint8_t is) {
    if (n < 5) return {0};
    SetAddress32(Long32(p + 1, is), is);
    return {5};
  }
  // Target / Source Address Long 64-bit (§4.12): 8 address bytes.
  PacketExtent LongAddress64(const uint8_t* p, size_t n, uint8_t is) {
    if (n < 9) return {0};
    SetAddress64(Long64(p + 1, is), is);
    return {9};
  }
  // Cycle Count format 2 (§4.9): one byte AAAA BBBB; COMMIT in commit mode 0.
  PacketExtent CycleCountF2(const uint8_t* p, size_t n, uint8_t /*is*/) {
    if (n < 2) return {0};
    if (!config_.commit_opt1()) {
      // 0x0C: AAAA + 1; 0x0D (large commit): MAXSPEC + AAAA - 15.
      const int base = (p[0] & 1) ? static_cast<int>(config_.max_spec()) - 15 : 1;
      SetCommit(static_cast<uint32_t>(((p[1] >> 4) & 0xF) + base));
    }
    SetCycleCount(CycleThreshold() + (p[1] & 0xF));
    return {2};
  }
  // Cycle Count format 3 (§4.9): header 0001 AA BB, COMMIT = AA + 1 in commit mode 0.
  PacketExtent CycleCountF3(const uint8_t* p, size_t /*n*/, uint8_t /*is*/) {
    if (!config_.commit_opt1()) SetCommit(((p[0] >> 2) & 3) + 1u);
    SetCycleCount(CycleThreshold() + (p[0] & 3));
    return {1};
  }

  // ---- the other kinds (ete_packet_fields.cpp)

  // Extension (§4.3): A-Sync (0x00 x11, 0x80), Discard (00 03), Overflow
  // (00 05); sets packet().type to which one. Malformed: any other second
  // byte, a zero run longer than 11 bytes, a run not ending in 0x80.
  PacketExtent Extension(const uint8_t* p, size_t n, uint8_t is);
  // Trace Info (§4.4): PLCTL (at most 4 bytes here), then the INFO, KEY,
  // SPEC, CYCT and commit-window sections it announces (ULEB128, 5 bytes at
  // most). Resets the address history, the timestamp/CYCT validity and the
  // context's VMID and CONTEXTID (to 0).
  PacketExtent TraceInfo(const uint8_t* p, size_t n, uint8_t is);
  // Timestamp (§4.5): bit-replaced TS (9 bytes at most), then COUNT
  // (ULEB128, 3 bytes at most, masked to TRCIDR2.CCSIZE) for header 0x03.
  PacketExtent Timestamp(const uint8_t* p, size_t n, uint8_t is);
  // Event (§4.11): header[3:0] = the event mask.
  PacketExtent Event(const uint8_t* p, size_t n, uint8_t is);
  // Exception (§4.7): info byte (+ a TYPE extension byte on ETMv4-M); ETE
  // TYPE 0 (PE Reset) and 0x18 (Transaction Failure) take 3 bytes and set
  // packet().type, the address history gets (0, IS0).
  PacketExtent Exception(const uint8_t* p, size_t n, uint8_t is);
  // Instrumentation (§4.8): EL byte, then VALUE[63:0] little-endian.
  PacketExtent Instrumentation(const uint8_t* p, size_t n, uint8_t is);
  // Cycle Count format 1 (§4.9): [COMMIT (commit mode 0)] [COUNT (0x0E)].
  PacketExtent CycleCountF1(const uint8_t* p, size_t n, uint8_t is);
  // Commit (§4.10): COMMIT, ULEB128.
  PacketExtent Commit(const uint8_t* p, size_t n, uint8_t is);
  // Cancel format 1, with or without mispredict (§4.10): CANCEL, ULEB128.
  PacketExtent CancelF1(const uint8_t* p, size_t n, uint8_t is);
  // Mispredict 0x30-0x33 and Cancel format 2 0x34-0x37 (§4.10): header
  // AA = atoms before it; Cancel F2 cancels 1.
  PacketExtent MispredictOrCancelF2(const uint8_t* p, size_t n, uint8_t is);
  // Cancel format 3 (§4.10): header CC A: (E atom if A) cancel CC + 2.
  PacketExtent CancelF3(const uint8_t* p, size_t n, uint8_t is);
  // Context (§4.12): 0x80 "same", 0x81 info byte + VMID / CONTEXTID.
  PacketExtent Context(const uint8_t* p, size_t n, uint8_t is);
  // Target Address with Context, 32 / 64-bit (§4.12): the address, then the
  // context (whose SF decides how a 32-bit address is printed).
  PacketExtent AddressWithContext32(const uint8_t* p, size_t n, uint8_t is);
  PacketExtent AddressWithContext64(const uint8_t* p, size_t n, uint8_t is);
  // Q (§4.13): header TYPE selects an exact match, short or 32-bit address
  // field (or none), then COUNT (ULEB128) except for TYPE 0xF.
  PacketExtent Q(const uint8_t* p, size_t n, uint8_t is);

 private:
  // Address fields (§4.12). Each builds the new value in a local and stores
  // it whole into the packet and the history (writing the bytes one by one
  // and then copying the struct stalls store forwarding).
  static size_t ShortAddressBytes(uint8_t first) { return (first & 0x80) ? 2 : 1; }
  // f[0] (and f[1] when f[0] bit 7): IS0 A[8:2] / A[16:9], IS1 A[7:1] / A[15:8].
  size_t ShortAddressField(const uint8_t* f, uint8_t is) {
    const unsigned shift = 2u - is;
    uint32_t v = static_cast<uint32_t>(f[0] & 0x7F) << shift;
    unsigned bits = 7 + shift;
    const size_t bytes = ShortAddressBytes(f[0]);
    if (bytes == 2) {
      v |= static_cast<uint32_t>(f[1]) << (7 + shift);
      bits += 8;
    }
    SetAddressLow(v, is, static_cast<uint8_t>(bits));
    return bytes;
  }
  // f[0..4): IS0 A[8:2] A[15:9] (bit 7 of each not address), IS1 A[7:1]
  // A[15:8]; then A[23:16] A[31:24]. One load, not four.
  static uint32_t Long32(const uint8_t* f, uint8_t is) {
    const uint32_t v = internal::LoadLe<uint32_t>(f);
    const uint32_t low = is == 0 ? ((v & 0x7Fu) << 2) | ((v & 0x7F00u) << 1) : ((v & 0x7Fu) << 1) | (v & 0xFF00u);
    return low | (v & 0xFFFF0000u);
  }
  // f[0..8): Long32, then A[63:32].
  static uint64_t Long64(const uint8_t* f, uint8_t is) {
    return Long32(f, is) | static_cast<uint64_t>(internal::LoadLe<uint32_t>(f + 4)) << 32;
  }
  // `a` becomes the packet's address, history entry 0; entries 0 and 1
  // move to 1 and 2. Entry 0 is pkt_.addr itself (every address packet
  // sets both to the same value): a 16-byte copy fewer per push.
  void PushAddress(const PacketAddress& a) {
    older_addrs_[1] = older_addrs_[0];
    older_addrs_[0] = pkt_.addr;
    pkt_.addr = a;
  }
  void SetAddress64(uint64_t v, uint8_t is) {
    PacketAddress a;
    a.value = v;
    a.valid_bits = 64;
    a.pkt_bits = 64;
    a.is64 = true;
    a.isa = is;
    PushAddress(a);
  }
  void SetAddress32(uint32_t v, uint8_t is) {
    PacketAddress a = pkt_.addr;
    a.pkt_bits = 32;
    // OpenCSD 1.8.0 keeps the printed width once 64-bit; outside AArch64
    // the upper half is cleared.
    if (pkt_.context_valid && pkt_.context.sf)
      a.is64 = true;
    else
      a.value &= 0xFFFFFFFFull;
    if (a.valid_bits < 32) a.valid_bits = 32;
    a.value = (a.value & ~0xFFFFFFFFull) | v;
    a.isa = is;
    PushAddress(a);
  }
  // Bit replacement of the low `bits` bits (short addresses).
  void SetAddressLow(uint32_t v, uint8_t is, uint8_t bits) {
    const uint64_t mask = (1ull << bits) - 1;
    PacketAddress a = pkt_.addr;
    a.pkt_bits = bits;
    if (a.valid_bits < bits) a.valid_bits = bits;
    a.value = (a.value & ~mask) | (v & mask);
    a.isa = is;
    PushAddress(a);
  }
  // History entry idx (0..2) becomes the address and is pushed again.
  void ExactMatch(uint8_t idx) {
    pkt_.exact_match_idx = idx;
    const PacketAddress a = idx == 1 || idx == 2 ? older_addrs_[idx - 1] : pkt_.addr;
    PushAddress(a);
  }
  // Trace Info's PLCTL and sections (TraceInfo's uncommon case), and what
  // the packet sets from them (`present`: PLCTL[4:0]).
  PacketExtent TraceInfoWithSections(const uint8_t* p, size_t n);
  void SetTraceInfo(uint8_t present, const std::array<uint32_t, 5>& section);
  // The context info byte at f[0], then VMID and CONTEXTID (§4.12); the
  // field's size in bytes.
  size_t ContextBytes(uint8_t info) const;
  void ContextField(const uint8_t* f);

  uint32_t CycleThreshold() const { return cc_thresh_valid_ ? pkt_.cc_threshold : 0; }
  void SetCycleCount(uint32_t count) {
    pkt_.cycle_count = count;
    pkt_.cc_valid = true;
  }
  void SetCommit(uint32_t commit) {
    pkt_.commit = commit;
    pkt_.commit_valid = true;
  }

  const EteConfig& config_;
  // The configuration's VMID and CONTEXTID sizes (1, 2, 4 bytes, 0: none),
  // read from its registers once: a Context packet needs them twice.
  const uint8_t vmid_bytes_;
  const uint8_t cid_bytes_;
  EtePacket pkt_;
  // Address history entries 1 and 2 (entry 0 is pkt_.addr).
  std::array<PacketAddress, 2> older_addrs_{};
  bool first_tinfo_ = false;      // a Trace Info has been seen since reset
  bool ts_valid_ = false;         // a timestamp has been seen since the last Trace Info
  bool cc_thresh_valid_ = false;  // the last Trace Info had a CYCT section
};

}  // namespace mabutrace::ete

#endif  // MABUTRACE_HOST_ETE_ETE_PACKET_FIELDS_H
