// SPDX-License-Identifier: MIT
// trbe_model.h: a register-level model of the Trace Buffer Unit (TRBU) of the
// Arm Trace Buffer Extension (R-G1, R-G2).
//
// Feed it trace bytes (e.g. an ETE stream) and register reads/writes; it
// writes the bytes into a Memory and updates TRBPTR_EL1, TRBSR_EL1 and the
// trigger counter exactly as ARM DDI 0487 chapter D6 describes
// (reference/arm-trace-facts.md §1.8-§1.11). Driver writers use it to check
// what their code will see; tests use it as a library.
//
// Per byte taken from the trace unit (D6.1, D6.2; sheet §1.8):
//   1. disabled (TRBLIMITR_EL1.E=0) or collection stopped (TRBSR_EL1.S=1):
//      the byte is discarded;
//   2. the byte is written at TRBPTR_EL1 (a Memory fault becomes a
//      management event, sheet §1.11);
//   3. TRBPTR_EL1 advances; the byte at Limit-1 wraps it to Base and the
//      fill mode decides what the wrap does (D6.1.1, D6.5.2; sheet §1.9);
//   4. while TRBTRG_EL1 != 0 and TRBSR_EL1.TRG == 1 the trigger counter
//      counts the byte down; reaching 0 is the Trigger Event (D6.5.3; §1.10).
//
// Choices the architecture leaves open (CONSTRAINED UNPREDICTABLE or
// IMPLEMENTATION DEFINED), made explicit here:
//  - Out-of-range TRBPTR (PTR < Base, PTR >= Limit, top bytes differ) and a
//    reserved FM/TM encoding when collection starts: a management event with
//    EC=0x1F (IMPDEF) and MSS = kMssPointerOutOfRange / kMssReservedMode.
//  - Misaligned TRBPTR (not a multiple of 2^TRBIDR_EL1.Align) when
//    collection starts: an alignment fault, EC=0x24, FSC=0b100001 (D6.2.2).
//    Collection starts at the first byte after TRBPTR_EL1 was written or the
//    unit was enabled; later bytes move PTR one at a time.
//  - Writes to TRBPTR/TRBBASER/TRBTRG/TRBSR/TRBMAR, and TRBLIMITR writes that
//    keep E=1, are ignored while E=1 (ModelOptions::ignore_writes_while_enabled).
//  - The trace-unit flush after a Trigger Event completes after
//    ModelOptions::flush_latency_bytes more bytes (0: at once), or when
//    CompleteFlush() is called (e.g. the driver's TSB CSYNC).
//  - The trigger counter decrements by 1 per byte (no write granules).
//
// Not thread-safe; one model per simulated PE.
#ifndef MABUTRACE_HOST_TRBE_TRBE_MODEL_H
#define MABUTRACE_HOST_TRBE_TRBE_MODEL_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trbe_registers.h"

namespace mabutrace::trbe {

// A failed buffer write, as the translation regime reports it.
struct Fault {
  uint8_t ec = kEcStage1Abort;      // EC to record: 0x24, 0x25 or 0x1E
  uint8_t fsc = kFscTranslationL3;  // FSC to record in MSS[5:0]
  bool external = false;            // an external abort (handled per TRBIDR_EL1.EA, sheet §1.11)
  uint32_t mss2 = 0;                // MSS2 to record (stage 2: TopLevel/AssuredOnly...)
};

// The memory the TRBU writes into. Implementations decide which addresses
// are writable and which fault.
class Memory {
 public:
  virtual ~Memory() = default;
  // Writes `byte` at `address`, or returns the fault that prevents it.
  virtual std::optional<Fault> Write(uint64_t address, uint8_t byte) = 0;
};

// A flat, writable window [base, base+size) of memory; every other address
// faults with a stage 1 level-3 translation fault. InjectFault makes a
// sub-range fault with a given syndrome (to test the fault paths).
class FlatMemory final : public Memory {
 public:
  FlatMemory(uint64_t base, size_t size, uint8_t fill = 0);
  std::optional<Fault> Write(uint64_t address, uint8_t byte) override;
  // Writes in [begin, end) fault with `fault`. Later injections win.
  void InjectFault(uint64_t begin, uint64_t end, Fault fault);
  void ClearFaults() { faults_.clear(); }

  uint64_t base() const { return base_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  // The bytes of [begin, end) (clamped to the window).
  std::span<const uint8_t> Range(uint64_t begin, uint64_t end) const;

 private:
  struct Injected {
    uint64_t begin, end;
    Fault fault;
  };
  uint64_t base_;
  std::vector<uint8_t> bytes_;
  std::vector<Injected> faults_;
};

struct ModelOptions {
  // TRBIDR_EL1 (read-only to software): default F=1, Align=0 (byte),
  // EA=0b0000 (external aborts reported to the TRBU).
  uint64_t trbidr = 0x20;
  // Bytes the trace unit still delivers after a Trigger Event (Stop or IRQ
  // on trigger) before its flush completes.
  uint64_t flush_latency_bytes = 0;
  // TRBPTR_EL1/TRBTRG_EL1 bits [M-1:0] that are RES0 (M <= TRBIDR.Align).
  unsigned ptr_res0_bits = 0;
  // Ignore direct register writes while E=1 (sheet §1.3, §1.2).
  bool ignore_writes_while_enabled = true;
};

// MSS values of the model's IMPDEF (EC=0x1F) programming-error events.
constexpr uint16_t kMssPointerOutOfRange = 0x0001;
constexpr uint16_t kMssReservedMode = 0x0002;

// Result of a register write.
enum class WriteResult {
  kOk,
  kIgnoredWhileEnabled,  // E=1 and the write does not clear E
  kReadOnly,             // TRBIDR_EL1
  kNotAllowed,           // TRBIDR_EL1.P=1
};

// Something the model did, in order. byte_index is the index (from 0) of the
// byte being processed when it happened (the count of bytes taken so far for
// register writes and external inputs).
enum class EventKind {
  kRegisterWrite,    // detail: register and value
  kIgnoredWrite,     // a register write that had no effect
  kEnabled,          // E went 0 -> 1
  kDisabled,         // E went 1 -> 0
  kWrap,             // PTR wrapped Limit -> Base (TRB_WRAP PMU event 0x400C)
  kTriggerDetected,  // Detected Trigger (ETEEvent 0) while enabled
  kTriggerEvent,     // Trigger Event (TRB_TRIG PMU event 0x400E)
  kFlushStarted,     // trace-unit flush for Stop/IRQ on trigger
  kFlushCompleted,
  kManagementEvent,    // IRQ set; detail says why
  kCollectionStopped,  // S went 0 -> 1
  kFault,              // a buffer write faulted
  kSError,             // external abort signalled as SError (TRBIDR.EA=0b0010)
  kIrqRaised,          // TRBIRQ line 0 -> 1
  kIrqCleared,         // TRBIRQ line 1 -> 0
};
std::string_view EventKindName(EventKind k);

struct ModelEvent {
  EventKind kind;
  uint64_t byte_index = 0;
  uint64_t ptr = 0;    // TRBPTR_EL1 after the event
  uint64_t trbsr = 0;  // TRBSR_EL1 after the event
  std::string detail;
};

class TraceBufferUnit {
 public:
  // `memory` must outlive the model. Registers start at their cold-reset
  // values (all zero; TRBIDR_EL1 from options).
  explicit TraceBufferUnit(Memory* memory, ModelOptions options = {});

  // ---- Software side (MSR/MRS) ----
  WriteResult WriteRegister(Reg reg, uint64_t value);
  uint64_t ReadRegister(Reg reg) const;
  // Warm reset: E=0 (D24: TRBLIMITR_EL1.E resets to 0); flush abandoned.
  void WarmReset();

  // ---- Trace-unit side ----
  // Takes one byte / many bytes of trace.
  void Collect(uint8_t byte);
  void Collect(std::span<const uint8_t> bytes);
  // A Detected Trigger (ETEEvent 0 of the ETE trace unit).
  void DetectTrigger();
  // The trace unit's flush finished (no-op when no flush is pending).
  void CompleteFlush();
  // An IMPLEMENTATION DEFINED management event (EC=0x1F, MSS=mss).
  void RaiseImpdefEvent(uint16_t mss);

  // ---- State ----
  bool enabled() const { return limitr_.e; }
  bool collection_stopped() const { return limitr_.e && status_.s; }
  bool running() const { return limitr_.e && !status_.s; }
  bool irq_line() const { return status_.irq; }  // TRBIRQ: level-sensitive PPI
  bool flush_pending() const { return flush_pending_; }
  uint64_t ptr() const { return ptr_; }
  uint64_t base() const { return base_; }
  uint64_t limit() const { return limitr_.limit; }
  uint32_t trigger_counter() const { return trg_counter_; }
  const Status& status() const { return status_; }
  const Limitr& limitr() const { return limitr_; }
  const Idr& idr() const { return idr_; }

  // PMU-visible and bookkeeping counters.
  uint64_t trb_wrap_events() const { return trb_wrap_; }
  uint64_t trb_trig_events() const { return trb_trig_; }
  uint64_t bytes_taken() const { return bytes_taken_; }
  uint64_t bytes_written() const { return bytes_written_; }
  uint64_t bytes_discarded() const { return bytes_discarded_; }
  uint64_t serrors() const { return serrors_; }

  const std::vector<ModelEvent>& events() const { return events_; }
  void ClearEvents() { events_.clear(); }

 private:
  void ProcessByte(uint8_t byte);
  void OnWrap();
  void OnTriggerEvent();
  // A management event: IRQ=1; if S was 0 and `stop`, S=1 and the syndrome.
  void ManagementEvent(bool stop, uint8_t ec, uint16_t mss, const std::string& why, uint32_t mss2 = 0);
  void Log(EventKind kind, std::string detail = {});
  void SyncIrq();
  bool PointerInRange() const;

  Memory* memory_;
  ModelOptions options_;
  Idr idr_;
  Limitr limitr_;
  Status status_;
  Mar mar_;
  uint64_t ptr_ = 0;
  uint64_t base_ = 0;
  uint32_t trg_counter_ = 0;

  bool start_check_ = true;  // check alignment/range/modes at the next byte
  bool flush_pending_ = false;
  bool flush_stop_ = false;  // the pending flush is for Stop on trigger
  uint64_t flush_remaining_ = 0;
  bool irq_seen_ = false;

  uint64_t trb_wrap_ = 0, trb_trig_ = 0;
  uint64_t bytes_taken_ = 0, bytes_written_ = 0, bytes_discarded_ = 0, serrors_ = 0;
  std::vector<ModelEvent> events_;
};

// How the Linux TRBE driver's IRQ handler classifies a TRBSR value
// (sheet §1.12, coresight-trbe.c): what a driver written like it will do.
enum class LinuxIrqClass {
  kBufferFull,  // WRAP && EC=0 && BSC=FILLED && PTR==Base: normal, collect and re-arm
  kFatal,       // TRG or EA set, or EC=0x24/0x25: stop the session
  kSpurious,    // anything else: re-enable
};
LinuxIrqClass ClassifyLikeLinux(const Status& s, uint64_t ptr, uint64_t base);
std::string_view LinuxIrqClassName(LinuxIrqClass c);

}  // namespace mabutrace::trbe

#endif  // MABUTRACE_HOST_TRBE_TRBE_MODEL_H
