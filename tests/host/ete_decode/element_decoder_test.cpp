// SPDX-License-Identifier: MIT
// element_decoder_test.cpp: the element generator alone, on hand-made
// packets (no packet processor) and a small A64 program image.
//
// The program: test_program.h (A64 at 0x1000).
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ete/ete_packet_processor.h"
#include "ete_decode/ete_element_decoder.h"
#include "test_program.h"

namespace mabutrace::ete_decode {
namespace {

using ete::EtePacket;
using ete::PacketType;

struct Harness {
  armisa::MemoryImage image = test::Program();
  std::vector<std::string> out;
  std::vector<std::string> errors;
  EteElementDecoder dec;
  uint64_t idx = 0;

  explicit Harness(ete::EteConfig cfg = {}) : dec(cfg, &image, &OnElem, this, &OnErr) {}
  static void OnElem(void* c, const EteElement& e) {
    std::string s = std::to_string(e.index) + " ";
    FormatElementOcsd(e, &s);
    static_cast<Harness*>(c)->out.push_back(s);
  }
  static void OnErr(void* c, uint64_t, const std::string& m) { static_cast<Harness*>(c)->errors.push_back(m); }

  EtePacket P(PacketType t) {
    EtePacket p;
    p.type = t;
    p.index = idx++;
    return p;
  }
  void Send(const EtePacket& p) { dec.OnPacket(p); }
  void Sync() {
    Send(P(PacketType::kAsync));
    Send(P(PacketType::kTraceInfo));
    Send(P(PacketType::kTraceOn));
    EtePacket c = P(PacketType::kContext);
    c.context.sf = true;
    c.context.el = 1;
    c.context.ns = true;
    c.context.updated = true;
    Send(c);
  }
  void Addr(uint64_t a) {
    EtePacket p = P(PacketType::kTargetAddrL64Is0);
    p.addr.value = a;
    Send(p);
  }
  void Atoms(const char* en) {  // "EEN": oldest first
    EtePacket p = P(PacketType::kAtomF6);
    for (int i = 0; en[i]; ++i) p.atom_bits |= (en[i] == 'E' ? 1u : 0u) << i;
    p.atom_count = static_cast<uint8_t>(std::strlen(en));
    Send(p);
  }
  void Commit(uint32_t n) {
    EtePacket p = P(PacketType::kCommit);
    p.commit = n;
    p.commit_valid = true;
    Send(p);
  }
  std::vector<std::string> Take() {
    std::vector<std::string> r;
    r.swap(out);
    return r;
  }
};

ete::EteConfig MaxSpec(uint32_t n) {
  ete::EteConfig c;
  c.trcidr8 = n;
  return c;
}

TEST(ElementDecoder, SyncAtomsAndDirectBranches) {
  Harness h;
  h.Sync();
  h.Addr(0x1000);
  h.Atoms("EEE");
  EXPECT_EQ(h.Take(), (std::vector<std::string>{
                          "0 OCSD_GEN_TRC_ELEM_NO_SYNC( [init-decoder])",
                          "2 OCSD_GEN_TRC_ELEM_TRACE_ON( [begin or filter])",
                          "3 OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A64) EL1N; 64-bit; )",
                          "5 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1000:[0x100c] num_i(3) "
                          "last_sz(4) (ISA=A64) E BR  )",
                          "5 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1020:[0x1028] num_i(2) "
                          "last_sz(4) (ISA=A64) E BR  b+link )",
                          "5 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1040:[0x1048] num_i(2) "
                          "last_sz(4) (ISA=A64) E iBR A64:ret )",
                      }));
  // After the RET the next address comes from an address packet.
  h.Addr(0x1028);
  h.Atoms("N");
  EXPECT_EQ(h.Take(), (std::vector<std::string>{"7 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1028:[0x1030] num_i(2) "
                                                "last_sz(4) (ISA=A64) N BR   <cond>)"}));
  h.dec.Finish();
  EXPECT_EQ(h.Take(), (std::vector<std::string>{"7 OCSD_GEN_TRC_ELEM_EO_TRACE( [end-of-trace])"}));
  EXPECT_TRUE(h.errors.empty());
  EXPECT_EQ(h.dec.stats().ranges, 4u);
  EXPECT_EQ(h.dec.stats().instructions, 9u);
}

TEST(ElementDecoder, NothingBeforeAsyncAndTraceInfo) {
  Harness h;
  h.Atoms("E");  // before A-Sync: ignored
  h.Send(h.P(PacketType::kAsync));
  h.Atoms("E");  // before Trace Info: ignored
  EXPECT_EQ(h.Take(), (std::vector<std::string>{"0 OCSD_GEN_TRC_ELEM_NO_SYNC( [init-decoder])"}));
}

TEST(ElementDecoder, SpeculationCancelMispredictCommit) {
  Harness h(MaxSpec(4));
  h.Sync();
  h.Addr(0x1000);
  h.Take();
  h.Atoms("E");  // 5: depth 1
  h.Atoms("E");  // 6: depth 2
  EXPECT_TRUE(h.Take().empty()) << "uncommitted atoms must not produce ranges";
  EtePacket c = h.P(PacketType::kCancelF1);  // 7: cancel the newest atom
  c.cancel = 1;
  h.Send(c);
  h.Send(h.P(PacketType::kMispredict));  // 8: the remaining atom becomes N
  h.Commit(1);                           // 9
  // Trace On and Context wait on the queue with the atoms until a commit.
  EXPECT_EQ(h.Take(), (std::vector<std::string>{"2 OCSD_GEN_TRC_ELEM_TRACE_ON( [begin or filter])",
                                                "3 OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A64) EL1N; 64-bit; )",
                                                "5 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1000:[0x100c] num_i(3) "
                                                "last_sz(4) (ISA=A64) N BR  )"}));
  h.Atoms("E");  // 10
  h.Commit(1);
  EXPECT_EQ(h.Take(), (std::vector<std::string>{"10 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x100c:[0x1028] "
                                                "num_i(7) last_sz(4) (ISA=A64) E BR  b+link )"}));
}

TEST(ElementDecoder, DepthAboveMaxSpecCommitsImplicitly) {
  Harness h(MaxSpec(2));
  h.Sync();
  h.Addr(0x1000);
  h.Take();
  h.Atoms("EE");  // depth 2: nothing yet
  EXPECT_TRUE(h.Take().empty());
  h.Atoms("E");  // depth 3 > 2: the oldest is committed (after Trace On, Context)
  const auto got = h.Take();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_NE(got[2].find("exec range=0x1000:[0x100c]"), std::string::npos);
}

TEST(ElementDecoder, MissingMemoryGivesAddrNaccAndDecodingGoesOn) {
  Harness h;
  h.Sync();
  h.Addr(0x2000);
  h.Atoms("E");
  h.Addr(0x1040);
  h.Atoms("E");
  const auto got = h.Take();
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[3], "5 OCSD_GEN_TRC_ELEM_ADDR_NACC( 0x2000; Memspace [0x2:EL1N] )");
  EXPECT_EQ(got[4],
            "7 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1040:[0x1048] num_i(2) last_sz(4) "
            "(ISA=A64) E iBR "
            "A64:ret )");
  EXPECT_EQ(h.dec.stats().nacc, 1u);
}

TEST(ElementDecoder, AtomsFromAnAddressInMissingMemoryGiveOneAddrNaccWhateverTheAtoms) {
  // MAXSPEC 0: the first packet walks and keeps the hop into missing memory,
  // the next ones from the same address take it (AtomsIntoNacc): one
  // ADDR_NACC per packet, the walker waits for the next address.
  Harness h;
  h.Sync();
  for (const char* atoms : {"EN", "NEE", "E", "NNNNNNN"}) {
    h.Addr(0x2000);
    h.Atoms(atoms);
    h.Atoms("E");  // ignored: no address
  }
  h.Addr(0x1040);
  h.Atoms("E");
  const auto got = h.Take();
  ASSERT_EQ(got.size(), 8u);  // NO_SYNC, TRACE_ON, PE_CONTEXT first
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(got[3 + i], std::to_string(5 + 3 * i) + " OCSD_GEN_TRC_ELEM_ADDR_NACC( 0x2000; Memspace [0x2:EL1N] )");
  EXPECT_EQ(got[7],
            "17 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1040:[0x1048] num_i(2) last_sz(4) "
            "(ISA=A64) E iBR "
            "A64:ret )");
  EXPECT_EQ(h.dec.stats().nacc, 4u);
}

TEST(ElementDecoder, ExceptionWalksToPreferredReturnAddress) {
  Harness h;
  h.Sync();
  h.Addr(0x100c);
  h.Take();
  EtePacket x = h.P(PacketType::kException);  // 5
  x.exception_type = 0x0E;                    // IRQ
  x.exception_addr_interp = 1;
  h.Send(x);
  h.Addr(0x1018);  // 6: PER
  EXPECT_EQ(h.Take(), (std::vector<std::string>{
                          "2 OCSD_GEN_TRC_ELEM_TRACE_ON( [begin or filter])",
                          "3 OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A64) EL1N; 64-bit; )",
                          "5 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x100c:[0x1018] num_i(3) "
                          "last_sz(4) (ISA=A64) E --- )",
                          "5 OCSD_GEN_TRC_ELEM_EXCEPTION(pref ret addr:0x1018; excep num (0x0e) )",
                      }));
}

TEST(ElementDecoder, AnAddressAtAnIdleQueueKeepsItsPlaceBeforeLaterPackets) {
  // MAXSPEC 0: an address packet with nothing waiting is held for the next
  // atom packet (HoldAddress). Any other packet comes after it: here the
  // exception walks from it, and the exception's own address (which arrives
  // while the exception waits) completes the exception.
  Harness h;
  h.Sync();
  h.Addr(0x1000);
  h.Atoms("N");  // 5: 0x1000..0x1008 not taken, the PE is at 0x100c
  h.Take();
  h.Addr(0x1010);                             // 6: held
  EtePacket x = h.P(PacketType::kException);  // 7
  x.exception_type = 0x0E;                    // IRQ
  x.exception_addr_interp = 1;
  h.Send(x);
  h.Addr(0x1018);  // 8: PER
  EXPECT_EQ(h.Take(), (std::vector<std::string>{
                          "7 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1010:[0x1018] num_i(2) "
                          "last_sz(4) (ISA=A64) E --- )",
                          "7 OCSD_GEN_TRC_ELEM_EXCEPTION(pref ret addr:0x1018; excep num (0x0e) )",
                      }));
  h.Addr(0x1020);  // 9: held, then taken by the atoms
  h.Atoms("E");
  EXPECT_EQ(h.Take(), (std::vector<std::string>{"10 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1020:[0x1028] "
                                                "num_i(2) last_sz(4) (ISA=A64) E BR  b+link )"}));
  EXPECT_TRUE(h.errors.empty());
}

TEST(ElementDecoder, CommitWithNothingWaitingIsASequenceError) {
  Harness h(MaxSpec(4));
  h.Sync();
  h.Addr(0x1000);
  h.Take();
  h.Commit(3);  // index 5
  ASSERT_EQ(h.errors.size(), 1u);
  EXPECT_NE(h.errors[0].find("byte "), std::string::npos);
  const auto got = h.Take();
  ASSERT_FALSE(got.empty());
  EXPECT_NE(got.back().find("NO_SYNC( [bad-packet])"), std::string::npos);
  // Resynchronises at the next A-Sync + Trace Info.
  h.Sync();
  h.Addr(0x1040);
  h.Atoms("E");
  h.Commit(1);
  const auto after = h.Take();
  ASSERT_FALSE(after.empty());
  EXPECT_NE(after.back().find("exec range=0x1040:[0x1048]"), std::string::npos);
}

TEST(ElementDecoder, BadPacketGivesNoSyncAtNextPacket) {
  Harness h;
  h.Sync();
  h.Take();
  h.Send(h.P(PacketType::kReserved));  // 4
  h.Atoms("E");                        // 5
  EXPECT_EQ(h.Take(), (std::vector<std::string>{"5 OCSD_GEN_TRC_ELEM_NO_SYNC( [bad-packet])"}));
  EXPECT_EQ(h.errors.size(), 1u);
}

TEST(ElementDecoder, DiscardDropsSpeculativeAtoms) {
  Harness h(MaxSpec(4));
  h.Sync();
  h.Addr(0x1000);
  h.Take();
  h.Atoms("EE");
  EtePacket ts = h.P(PacketType::kTimestamp);  // 6: a timestamp survives the discard
  ts.timestamp = 0x1234;
  h.Send(ts);
  h.Send(h.P(PacketType::kDiscard));  // 7
  EXPECT_EQ(h.Take(), (std::vector<std::string>{"6 OCSD_GEN_TRC_ELEM_TIMESTAMP( [ TS=0x000000001234]; )",
                                                "7 OCSD_GEN_TRC_ELEM_NO_SYNC( [discard])"}));
}

TEST(ElementDecoder, ReturnStackGivesTheReturnAddress) {
  ete::EteConfig cfg;
  cfg.trcconfigr |= 0x1000;  // TRCCONFIGR.RS
  Harness h(cfg);
  h.Sync();
  h.Addr(0x1020);
  h.Atoms("EEN");  // bl 0x1040 (push 0x1028); ret (no address: pop); b.eq not taken
  const auto got = h.Take();
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[5],
            "5 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1028:[0x1030] num_i(2) last_sz(4) "
            "(ISA=A64) N BR  "
            " <cond>)");
}

TEST(ElementDecoder, TimestampsCycleCountsEventsInOrder) {
  Harness h;
  h.Sync();
  h.Addr(0x1000);
  h.Atoms("E");
  h.Take();
  EtePacket ts = h.P(PacketType::kTimestamp);  // 6
  ts.timestamp = 0x7406;
  h.Send(ts);
  EtePacket cc = h.P(PacketType::kCycleCountF3);  // 7
  cc.cycle_count = 0x16;
  h.Send(cc);
  EtePacket ev = h.P(PacketType::kEvent);  // 8
  ev.event = 1;
  h.Send(ev);
  EXPECT_TRUE(h.Take().empty()) << "non-P0 elements wait for the next commit";
  h.Atoms("E");  // 9
  EXPECT_EQ(h.Take(), (std::vector<std::string>{
                          "6 OCSD_GEN_TRC_ELEM_TIMESTAMP( [ TS=0x000000007406]; )",
                          "7 OCSD_GEN_TRC_ELEM_CYCLE_COUNT( [CC=22]; )",
                          "8 OCSD_GEN_TRC_ELEM_EVENT( Numbered:1; )",
                          "9 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1020:[0x1028] num_i(2) "
                          "last_sz(4) (ISA=A64) E BR  b+link )",
                      }));
}

TEST(ElementDecoder, QueueIsBoundedOnStreamsWithoutP0) {
  Harness h;
  h.Sync();
  for (int i = 0; i < 70000; ++i) {
    EtePacket ts = h.P(PacketType::kTimestamp);
    ts.timestamp = 1000 + i;
    h.Send(ts);
  }
  ASSERT_EQ(h.errors.size(), 1u);
  EXPECT_NE(h.errors[0].find("waiting for commit"), std::string::npos) << h.errors[0];
  EXPECT_NE(h.Take().back().find("NO_SYNC( [bad-packet])"), std::string::npos);
}

TEST(ElementDecoder, JsonHasAddressesAsHexStrings) {
  EteElement e;
  e.type = ElemType::kInstrRange;
  e.index = 21;
  e.trace_id = 1;
  e.start = 0xc1484;
  e.end = 0xc1490;
  e.num_instr = 3;
  e.last_type = armisa::InstrType::kIndirectBranch;
  e.last_subtype = armisa::InstrSubtype::kV8Ret;
  e.last_size = 4;
  e.executed = true;
  std::string s;
  FormatElementJson(e, "ETE_0", &s);
  EXPECT_EQ(s,
            "{\"source\":\"ETE_0\",\"trace_id\":1,\"offset\":21,\"elem\":\"instr_range\",\"start\":"
            "\"0xc1484\","
            "\"end\":\"0xc1490\",\"num_instr\":3,\"isa\":\"A64\",\"last_instr_type\":\"iBR\","
            "\"last_instr_subtype\":"
            "\"A64:ret\",\"last_instr_size\":4,\"last_instr_cond\":false,\"taken\":true}");
}

// The source name is a snapshot device name: any byte. The line must parse
// with the name escaped (JsonEscape: quote, backslash, control character,
// invalid UTF-8 as U+FFFD).
TEST(ElementDecoder, JsonEscapesTheSourceName) {
  EteElement e;
  e.type = ElemType::kTraceOn;
  std::string s;
  FormatElementJson(e, "ETE\\0 \"s1\"\t\xc3", &s);
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(s)) << s;
  EXPECT_EQ(j["source"], "ETE\\0 \"s1\"\t\xEF\xBF\xBD");
  EXPECT_EQ(j["reason"], "begin or filter");
}

// ---- issue 17: exception return targets, PE Reset, Trace Info, walk limit, resync

ete::EteConfig ReturnStackOn(uint32_t max_spec = 0) {
  ete::EteConfig cfg = MaxSpec(max_spec);
  cfg.trcconfigr |= 0x1000;  // TRCCONFIGR.RS
  return cfg;
}

// An Exception packet with E = 0b10 (arm-trace-facts.md §4.7) after a taken
// RET without address: the PER is the RET's target, no pop is due.
// Mutation: pop the return stack for E = 0b10 as for E = 0b01 (OpenCSD,
// Linaro/OpenCSD#88) -> "return stack empty" error and NO_SYNC.
TEST(ElementDecoder, ExceptionWithPrevSameAddressDoesNotPopAnEmptyReturnStack) {
  Harness h(ReturnStackOn());
  h.Sync();
  h.Addr(0x1040);
  h.Atoms("E");  // 5: nop; ret taken, its target not traced
  h.Take();
  EtePacket x = h.P(PacketType::kException);  // 6
  x.exception_type = 0x0E;                    // IRQ
  x.exception_addr_interp = 2;                // E = 0b10
  h.Send(x);
  h.Addr(0x1000);  // 7: PER, also the RET's target
  h.Addr(0x1020);  // 8: the vector
  h.Atoms("N");    // 9
  EXPECT_TRUE(h.errors.empty()) << h.errors[0];
  EXPECT_EQ(h.Take(), (std::vector<std::string>{
                          "6 OCSD_GEN_TRC_ELEM_EXCEPTION(pref ret addr:0x1000 [addr also prev br tgt]; "
                          "excep num (0x0e) )",
                          "9 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1020:[0x1028] num_i(2) last_sz(4) "
                          "(ISA=A64) N BR  b+link )",
                      }));
}

// The same with a non-empty stack: the entry stays for the later return.
// Mutation as above: the exception pops 0x1028, the handler's RET then finds
// the stack empty (error) instead of returning to 0x1028.
TEST(ElementDecoder, ExceptionWithPrevSameAddressKeepsTheReturnStackForALaterReturn) {
  Harness h(ReturnStackOn());
  h.Sync();
  h.Addr(0x1020);
  h.Atoms("EE");  // 5: bl 0x1040 (push 0x1028); ret taken, its target not traced
  h.Take();
  EtePacket x = h.P(PacketType::kException);  // 6
  x.exception_type = 0x0E;
  x.exception_addr_interp = 2;  // E = 0b10: the RET went to 0x1000
  h.Send(x);
  h.Addr(0x1000);  // 7: PER
  h.Addr(0x1040);  // 8: vector: nop; ret
  h.Atoms("EN");   // 9: ret taken (pop: 0x1028); b.eq not taken
  EXPECT_TRUE(h.errors.empty()) << h.errors[0];
  const auto got = h.Take();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2],
            "9 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1028:[0x1030] num_i(2) last_sz(4) (ISA=A64) N BR   <cond>)");
}

// PE Reset is a P0 element (§5.1): with MAXSPEC 0 it commits at once and the
// atoms after it are not held one element behind. Mutation: PushPeReset
// without ++depth_ -> the EXCEPTION only appears with the next atom packet,
// and the range of the last atom never appears.
TEST(ElementDecoder, PeResetCountsInTheSpeculationDepth) {
  Harness h;  // MAXSPEC 0
  h.Sync();
  h.Addr(0x1000);
  h.Take();
  EtePacket r = h.P(PacketType::kPeReset);  // 5
  r.exception_type = 0;
  r.exception_addr_interp = 1;
  h.Send(r);
  EXPECT_EQ(h.Take(),
            (std::vector<std::string>{"2 OCSD_GEN_TRC_ELEM_TRACE_ON( [begin or filter])",
                                      "3 OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A64) EL1N; 64-bit; )",
                                      "5 OCSD_GEN_TRC_ELEM_EXCEPTION(pref ret addr:0x0; excep num (0x00) )"}));
  h.Addr(0x1040);  // 6: the reset vector
  h.Atoms("E");    // 7
  EXPECT_EQ(h.Take(), (std::vector<std::string>{"7 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1040:[0x1048] num_i(2) "
                                                "last_sz(4) (ISA=A64) E iBR A64:ret )"}));
  h.dec.Finish();
  EXPECT_TRUE(h.errors.empty());
}

// Bytes -> packet processor -> element decoder, for the cases that need both layers.
std::vector<std::string> DecodeBytes(const std::vector<uint8_t>& bytes, const ete::EteConfig& cfg = {}) {
  struct Run {
    Harness h;
    explicit Run(const ete::EteConfig& c) : h(c) {}
    static void OnPacket(void* c, const EtePacket& p) { static_cast<Run*>(c)->h.dec.OnPacket(p); }
  } run(cfg);
  ete::EtePacketProcessor proc(cfg, &Run::OnPacket, &run);
  proc.Push(0, bytes.data(), bytes.size());
  proc.Finish();
  run.h.dec.Finish();
  return run.h.Take();
}
std::vector<uint8_t> AsyncBytes() {
  std::vector<uint8_t> b(11, 0x00);
  b.push_back(0x80);
  return b;
}
void Append(std::vector<uint8_t>* to, std::initializer_list<uint8_t> bytes) { to->insert(to->end(), bytes); }
// Target Address Long 64-bit IS0 (0x9D, §4.12) of an address below 2^16.
void AppendAddr64(std::vector<uint8_t>* to, uint16_t a) {
  Append(to, {0x9D, static_cast<uint8_t>((a >> 2) & 0x7F), static_cast<uint8_t>((a >> 9) & 0x7F), 0, 0, 0, 0, 0, 0});
}

// A Context packet with VMID/CONTEXTID before a Trace Info (garbage, or an
// old context) must not show in the PE contexts after it (§4.4).
// Mutation: no context_.ForgetIds() at Trace Info -> the second PE_CONTEXT
// reports "VMID=0x0; CTXTID=0x0;" (and, without the packet layer's reset
// too, "VMID=0x44332211; CTXTID=0x88776655;").
TEST(ElementDecoder, TraceInfoResetsVmidAndContextIdOfLaterContexts) {
  std::vector<uint8_t> b = AsyncBytes();
  Append(&b, {0x01, 0x00, 0x04});                                            // Trace Info, Trace On
  Append(&b, {0x81, 0xD1, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88});  // V, C: AArch64 EL1 S
  AppendAddr64(&b, 0x1000);
  Append(&b, {0xF7});              // E: 0x1000..0x100c, b 0x1020
  Append(&b, {0x01, 0x00, 0x04});  // Trace Info, Trace On
  Append(&b, {0x81, 0x11});        // AArch64 EL1 S, no V/C
  AppendAddr64(&b, 0x1040);
  Append(&b, {0xF7});
  std::vector<std::string> contexts;
  for (const std::string& s : DecodeBytes(b))
    if (s.find("PE_CONTEXT") != std::string::npos) contexts.push_back(s.substr(s.find(' ') + 1));
  EXPECT_EQ(contexts, (std::vector<std::string>{
                          "OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A64) EL1S; 64-bit; VMID=0x44332211; CTXTID=0x88776655; )",
                          "OCSD_GEN_TRC_ELEM_PE_CONTEXT((ISA=A64) EL1S; 64-bit; )",
                      }));
}

// A pop of an empty return stack loses where the PE is, nothing else: the
// timestamp after it is still output, a short (relative) address does not
// restore it, the next 64-bit address does, without an A-Sync (MAXSPEC 0
// and MAXSPEC 2 with explicit commits). Mutation: WalkFailed resynchronises
// at the next A-Sync (the old SequenceError) -> no TIMESTAMP, no range at 0x1040.
TEST(ElementDecoder, LostAddressResumesAtTheNextFullAddress) {
  for (const uint32_t max_spec : {0u, 2u}) {
    SCOPED_TRACE("MAXSPEC " + std::to_string(max_spec));
    Harness h(ReturnStackOn(max_spec));
    h.Sync();
    h.Addr(0x1040);
    h.Atoms("EE");                               // 5: ret taken without address, then a P0: pop of an empty stack
    EtePacket ts = h.P(PacketType::kTimestamp);  // 6
    ts.timestamp = 0x55;
    h.Send(ts);
    EtePacket s = h.P(PacketType::kTargetAddrShortIs0);  // 7: short: relative to the lost address
    s.addr.value = 0x1000;
    h.Send(s);
    h.Atoms("E");               // 8: nothing to walk from
    h.Addr(0x1040);             // 9: 64-bit: the PE is known again
    h.Atoms("E");               // 10
    if (max_spec) h.Commit(2);  // 11: the two left above MAXSPEC
    const auto got = h.Take();
    ASSERT_EQ(h.errors.size(), 1u);
    EXPECT_NE(h.errors[0].find("return stack empty"), std::string::npos) << h.errors[0];
    EXPECT_NE(h.errors[0].find("next 64-bit address"), std::string::npos) << h.errors[0];
    ASSERT_GE(got.size(), 3u);
    const std::vector<std::string> tail3(got.end() - 3, got.end());
    EXPECT_EQ(tail3, (std::vector<std::string>{
                         "5 OCSD_GEN_TRC_ELEM_NO_SYNC( [bad-packet])",
                         "6 OCSD_GEN_TRC_ELEM_TIMESTAMP( [ TS=0x000000000055]; )",
                         "10 OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x1040:[0x1048] num_i(2) last_sz(4) (ISA=A64) E "
                         "iBR A64:ret )",
                     }));
  }
}

}  // namespace
}  // namespace mabutrace::ete_decode
