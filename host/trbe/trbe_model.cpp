// SPDX-License-Identifier: MIT
// trbe_model.cpp: the TRBU model (ARM DDI 0487 D6; sheet §1.8-§1.11).
#include "trbe_model.h"

#include <cstdio>

namespace mabutrace::trbe {
namespace {

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

// ---- FlatMemory -------------------------------------------------------------
FlatMemory::FlatMemory(uint64_t base, size_t size, uint8_t fill) : base_(base), bytes_(size, fill) {}

std::optional<Fault> FlatMemory::Write(uint64_t address, uint8_t byte) {
  for (auto it = faults_.rbegin(); it != faults_.rend(); ++it)
    if (address >= it->begin && address < it->end) return it->fault;
  if (address < base_ || address - base_ >= bytes_.size()) return Fault{};
  bytes_[address - base_] = byte;
  return std::nullopt;
}

void FlatMemory::InjectFault(uint64_t begin, uint64_t end, Fault fault) { faults_.push_back({begin, end, fault}); }

std::span<const uint8_t> FlatMemory::Range(uint64_t begin, uint64_t end) const {
  const uint64_t top = base_ + bytes_.size();
  if (begin < base_) begin = base_;
  if (end > top) end = top;
  if (begin >= end) return {};
  return std::span<const uint8_t>(bytes_).subspan(begin - base_, end - begin);
}

// ---- Names -------------------------------------------------------------------
std::string_view EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kRegisterWrite: return "write";
    case EventKind::kIgnoredWrite: return "ignored-write";
    case EventKind::kEnabled: return "enabled";
    case EventKind::kDisabled: return "disabled";
    case EventKind::kWrap: return "wrap";
    case EventKind::kTriggerDetected: return "trigger-detected";
    case EventKind::kTriggerEvent: return "trigger-event";
    case EventKind::kFlushStarted: return "flush-started";
    case EventKind::kFlushCompleted: return "flush-completed";
    case EventKind::kManagementEvent: return "management-event";
    case EventKind::kCollectionStopped: return "collection-stopped";
    case EventKind::kFault: return "fault";
    case EventKind::kSError: return "serror";
    case EventKind::kIrqRaised: return "irq-raised";
    case EventKind::kIrqCleared: return "irq-cleared";
  }
  return "?";
}

std::string_view LinuxIrqClassName(LinuxIrqClass c) {
  switch (c) {
    case LinuxIrqClass::kBufferFull: return "buffer-full";
    case LinuxIrqClass::kFatal: return "fatal";
    case LinuxIrqClass::kSpurious: return "spurious";
  }
  return "?";
}

// Sheet §1.12 (LNX coresight-trbe.c, IRQ handler).
LinuxIrqClass ClassifyLikeLinux(const Status& s, uint64_t ptr, uint64_t base) {
  if (s.trg || s.ea) return LinuxIrqClass::kFatal;
  if (s.ec == kEcStage1Abort || s.ec == kEcStage2Abort) return LinuxIrqClass::kFatal;
  if (s.wrap && s.ec == kEcOther && s.bsc() == kBscFilled && ptr == base) return LinuxIrqClass::kBufferFull;
  return LinuxIrqClass::kSpurious;
}

// ---- TraceBufferUnit -----------------------------------------------------------
TraceBufferUnit::TraceBufferUnit(Memory* memory, ModelOptions options)
    : memory_(memory), options_(options), idr_(Idr::Decode(options.trbidr)) {}

void TraceBufferUnit::Log(EventKind kind, std::string detail) {
  events_.push_back({kind, bytes_taken_, ptr_, status_.Encode(), std::move(detail)});
}

void TraceBufferUnit::SyncIrq() {
  if (status_.irq != irq_seen_) {
    irq_seen_ = status_.irq;
    Log(irq_seen_ ? EventKind::kIrqRaised : EventKind::kIrqCleared);
  }
}

// D24 field descriptions; sheet §1.2-§1.6. Writes while E=1 may be ignored
// (sheet §1.3), except a TRBLIMITR_EL1 write that clears E (§1.2).
WriteResult TraceBufferUnit::WriteRegister(Reg reg, uint64_t value) {
  const std::string what = std::string(RegName(reg)) + " <- " + Hex(value);
  if (reg == Reg::kTrbidrEl1) {
    Log(EventKind::kIgnoredWrite, what + " (read-only)");
    return WriteResult::kReadOnly;
  }
  if (idr_.p) {
    Log(EventKind::kIgnoredWrite, what + " (TRBIDR_EL1.P=1: programming not allowed)");
    return WriteResult::kNotAllowed;
  }
  if (limitr_.e && options_.ignore_writes_while_enabled) {
    const bool clears_e = reg == Reg::kTrblimitrEl1 && !(value & 1);
    if (!clears_e) {
      Log(EventKind::kIgnoredWrite, what + " (ignored while TRBLIMITR_EL1.E=1)");
      return WriteResult::kIgnoredWhileEnabled;
    }
  }
  const uint64_t low_mask = options_.ptr_res0_bits ? ((uint64_t{1} << options_.ptr_res0_bits) - 1) : 0;
  switch (reg) {
    case Reg::kTrblimitrEl1: {
      const bool was = limitr_.e;
      limitr_ = Limitr::Decode(value);
      Log(EventKind::kRegisterWrite, what);
      if (!was && limitr_.e) {
        start_check_ = true;
        Log(EventKind::kEnabled, "fill mode " + std::string(FillModeName(limitr_.fm)) + ", trigger mode " +
                                     std::string(TriggerModeName(limitr_.tm)));
      } else if (was && !limitr_.e) {
        Log(EventKind::kDisabled);
      }
      break;
    }
    case Reg::kTrbptrEl1:
      ptr_ = value & ~low_mask;
      start_check_ = true;
      Log(EventKind::kRegisterWrite, what);
      break;
    case Reg::kTrbbaserEl1:
      base_ = value & ~uint64_t{0xFFF};
      Log(EventKind::kRegisterWrite, what);
      break;
    case Reg::kTrbsrEl1:
      status_ = Status::Decode(value);
      Log(EventKind::kRegisterWrite, what);
      SyncIrq();
      break;
    case Reg::kTrbmarEl1:
      mar_ = Mar::Decode(value);
      Log(EventKind::kRegisterWrite, what);
      break;
    case Reg::kTrbtrgEl1:
      trg_counter_ = static_cast<uint32_t>(value & 0xFFFFFFFF & ~low_mask);
      Log(EventKind::kRegisterWrite, what);
      break;
    case Reg::kTrbidrEl1: break;
  }
  return WriteResult::kOk;
}

uint64_t TraceBufferUnit::ReadRegister(Reg reg) const {
  switch (reg) {
    case Reg::kTrblimitrEl1: return limitr_.Encode();
    case Reg::kTrbptrEl1: return ptr_;
    case Reg::kTrbbaserEl1: return base_;
    case Reg::kTrbsrEl1: return status_.Encode();
    case Reg::kTrbmarEl1: return mar_.Encode();
    case Reg::kTrbtrgEl1: return trg_counter_;
    case Reg::kTrbidrEl1: return idr_.Encode();
  }
  return 0;
}

void TraceBufferUnit::WarmReset() {
  const bool was = limitr_.e;
  limitr_.e = false;
  flush_pending_ = false;
  if (was) Log(EventKind::kDisabled, "warm reset");
}

// D6.2.2 (sheet §1.3): PTR is out of range if PTR < Base, PTR >= Limit, or
// PTR[63:56] differs from Base[63:56] or Limit[63:56].
bool TraceBufferUnit::PointerInRange() const {
  const uint64_t limit = limitr_.limit;
  if (ptr_ < base_ || ptr_ >= limit) return false;
  if ((ptr_ >> 56) != (base_ >> 56) || (ptr_ >> 56) != (limit >> 56)) return false;
  return true;
}

// D6.5 (sheet §1.11): every management event sets IRQ; collection stops and
// the syndrome is recorded only if S was 0.
void TraceBufferUnit::ManagementEvent(bool stop, uint8_t ec, uint16_t mss, const std::string& why, uint32_t mss2) {
  status_.irq = true;
  if (stop && !status_.s) {
    status_.s = true;
    status_.ec = ec;
    status_.mss = mss;
    status_.mss2 = mss2;
    Log(EventKind::kManagementEvent, why);
    Log(EventKind::kCollectionStopped, StatusSummary(status_));
  } else {
    Log(EventKind::kManagementEvent, why + (stop ? " (collection already stopped: syndrome kept)" : ""));
  }
  SyncIrq();
}

void TraceBufferUnit::Collect(std::span<const uint8_t> bytes) {
  for (uint8_t b : bytes) Collect(b);
}

void TraceBufferUnit::Collect(uint8_t byte) {
  // A flush in progress before this byte counts it (sheet §1.10: extra trace
  // written during the flush may raise another event first).
  const bool counts_for_flush = flush_pending_;
  ProcessByte(byte);
  ++bytes_taken_;
  if (counts_for_flush && flush_pending_ && flush_remaining_ > 0 && --flush_remaining_ == 0) CompleteFlush();
}

void TraceBufferUnit::ProcessByte(uint8_t byte) {
  // Step 1 (sheet §1.8): disabled or collection stopped => the byte is lost.
  if (!limitr_.e || status_.s) {
    ++bytes_discarded_;
    return;
  }
  // Collection (re)starts: modes, alignment (D6.2.2, sheet §1.3).
  if (start_check_) {
    start_check_ = false;
    if (limitr_.fm == FillMode::kReserved || limitr_.tm == TriggerMode::kReserved) {
      ManagementEvent(true, kEcImpdef, kMssReservedMode,
                      "reserved FM/TM encoding in TRBLIMITR_EL1 (model: IMPDEF event)");
      ++bytes_discarded_;
      return;
    }
    if (ptr_ & (idr_.alignment_bytes() - 1)) {
      Log(EventKind::kFault, "TRBPTR_EL1 " + Hex(ptr_) + " not aligned to " + std::to_string(idr_.alignment_bytes()) +
                                 " bytes (TRBIDR_EL1.Align)");
      ManagementEvent(true, kEcStage1Abort, kFscAlignment, "alignment fault");
      ++bytes_discarded_;
      return;
    }
  }
  if (!PointerInRange()) {
    ManagementEvent(true, kEcImpdef, kMssPointerOutOfRange,
                    "TRBPTR_EL1 " + Hex(ptr_) + " outside [Base " + Hex(base_) + ", Limit " + Hex(limitr_.limit) +
                        ") (CONSTRAINED UNPREDICTABLE; model: IMPDEF event)");
    ++bytes_discarded_;
    return;
  }
  // Steps 2-3: translate and write (faults: D6.5.4-6, sheet §1.11).
  if (auto fault = memory_->Write(ptr_, byte)) {
    if (fault->external && idr_.ea == 1) {
      // TRBIDR_EL1.EA=0b0001: external aborts are ignored; the byte is lost
      // but collection goes on as if it had been written.
    } else if (fault->external && idr_.ea == 2) {
      ++serrors_;
      Log(EventKind::kSError, "external abort on write to " + Hex(ptr_) + " signalled as SError");
    } else {
      Log(EventKind::kFault,
          "write to " + Hex(ptr_) + " faulted: EC " + Hex(fault->ec) + ", " + FscMeaning(fault->fsc));
      if (fault->external) status_.ea = true;
      // PTR stays at the faulting address (it acts as the fault address register).
      ManagementEvent(true, fault->ec, fault->fsc, "buffer write fault", fault->mss2);
      ++bytes_discarded_;
      return;
    }
  } else {
    ++bytes_written_;
  }
  // Step 4: advance, wrapping from Limit-1 to Base.
  if (ptr_ == limitr_.limit - 1) {
    ptr_ = base_;
    OnWrap();
  } else {
    ++ptr_;
  }
  // Step 5 (D6.5.3, sheet §1.10): the trigger counter counts bytes written
  // after a Detected Trigger.
  if (trg_counter_ != 0 && status_.trg) {
    if (--trg_counter_ == 0) OnTriggerEvent();
  }
}

// D6.1.1, D6.5.2 (sheet §1.9).
void TraceBufferUnit::OnWrap() {
  status_.wrap = true;
  ++trb_wrap_;
  Log(EventKind::kWrap, "write pointer wrapped to Base (fill mode " + std::string(FillModeName(limitr_.fm)) + ")");
  switch (limitr_.fm) {
    case FillMode::kFill: ManagementEvent(true, kEcOther, kBscFilled, "buffer full (wrap in fill mode)"); break;
    case FillMode::kWrap: ManagementEvent(false, kEcOther, 0, "wrap in wrap mode"); break;
    case FillMode::kCircular:
    case FillMode::kReserved:  // cannot happen: caught when collection starts
      break;
  }
}

// D6.5.3 (sheet §1.10).
void TraceBufferUnit::DetectTrigger() {
  if (!limitr_.e) return;  // no Detected Trigger while disabled
  const bool was_trg = status_.trg;
  status_.trg = true;
  Log(EventKind::kTriggerDetected, "trigger counter " + std::to_string(trg_counter_));
  if (trg_counter_ == 0 && !was_trg) OnTriggerEvent();
}

void TraceBufferUnit::OnTriggerEvent() {
  ++trb_trig_;
  Log(EventKind::kTriggerEvent, "trigger mode " + std::string(TriggerModeName(limitr_.tm)));
  if (status_.s) return;  // collection stopped: TRBSR unchanged
  if (limitr_.tm != TriggerMode::kStop && limitr_.tm != TriggerMode::kIrq) return;  // Ignore
  flush_pending_ = true;
  flush_stop_ = limitr_.tm == TriggerMode::kStop;
  flush_remaining_ = options_.flush_latency_bytes;
  Log(EventKind::kFlushStarted);
  if (flush_remaining_ == 0) CompleteFlush();
}

void TraceBufferUnit::CompleteFlush() {
  if (!flush_pending_) return;
  flush_pending_ = false;
  Log(EventKind::kFlushCompleted);
  if (flush_stop_)
    ManagementEvent(true, kEcOther, kBscTriggered, "trigger event (stop on trigger)");
  else
    ManagementEvent(false, kEcOther, 0, "trigger event (IRQ on trigger)");
}

void TraceBufferUnit::RaiseImpdefEvent(uint16_t mss) {
  ManagementEvent(true, kEcImpdef, mss, "IMPLEMENTATION DEFINED event");
}

}  // namespace mabutrace::trbe
