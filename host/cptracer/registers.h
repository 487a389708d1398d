// SPDX-License-Identifier: MIT
// registers.h: CP_Tracer register calculator and decoder (R-I3).
//
// From a declarative description (which masters by MID, address range,
// reads/writes, data types, which messages, window length at the tracer
// clock) compute every CP_Tracer register value, plus the MIPI STM and
// trace buffer (TBR) set-up, and explain existing register values.
//
// Sources and status (ti-cptracer-facts.md §4): register NAMES are TI's as
// given in seed 002 §3.2 (Transaction Qualifier, Module Control and Status,
// Sliding Time Window, Master ID Select A-D, Start/End Address, Address
// Mask, Destination Address); the OFFSETS, BIT POSITIONS and ENCODINGS are
// NOT public (facts §4.2, U) and are this table's design assumption, kept
// in kRegisters (registers.cpp) so that they can be corrected in one place.
// The feature set they encode is verified at API level (facts §1.2, §4.2).
// The STM and TBR set-up values are verified (facts §4.3, §4.4, dsptop).
//
// Window: cycles = round(window_s x clock_hz), no -1 (facts §5.1, D); e.g.
// 10 ms at 200 MHz = 2,000,000 = 0x001E8480, 250 ms = 0x02FAF080.
//
// Errors (returned as text, nothing thrown): window 0 or above 32 bits,
// MID > 127, start > end, start/end with different upper address bits,
// unknown message / data type names.
#ifndef MABUTRACE_HOST_CPTRACER_REGISTERS_H
#define MABUTRACE_HOST_CPTRACER_REGISTERS_H

#include <cstdint>
#include <string>
#include <vector>

namespace mabutrace::cptracer {

// Export-select bits (Module Control and Status EXPORT_SELECT, seed 002 §3.2.2).
enum ExportBits : uint32_t {
  kExportStatistics = 1u << 0,
  kExportEventB = 1u << 1,
  kExportEventC = 1u << 2,
  kExportEventE = 1u << 3,
  kExportStatus = 1u << 4,
};
// Data types (seed 002 §3.2.1: 0 CPU data, 1 CPU instruction, 2 DMA).
enum DtypeBits : uint32_t { kDtypeCpuData = 1u << 0, kDtypeCpuInst = 1u << 1, kDtypeDma = 1u << 2 };
// Read/write qualifier: bit0 reads, bit1 writes.
enum RwBits : uint32_t { kRwRead = 1u, kRwWrite = 2u, kRwBoth = 3u };

struct TracerConfig {
  std::string name = "tracer";
  uint32_t sid = 0;                // tracer SID (read-only in hardware, U)
  double clock_hz = 0;             // tracer clock
  double window_s = 0;             // either window_s ...
  uint64_t window_cycles = 0;      // ... or cycles (wins when set)
  std::vector<uint32_t> masters;   // MIDs for throughput 0 + event export; empty = all
  std::vector<uint32_t> masters1;  // MIDs for throughput 1; empty = same as masters
  bool address_filter = false;
  uint64_t address_start = 0, address_end = 0;  // inclusive, up to 48 bits
  uint32_t address_export_shift = 0;            // exported address bits [shift+9:shift] (U)
  uint32_t rw = kRwBoth;
  uint32_t dtypes = kDtypeCpuData | kDtypeCpuInst | kDtypeDma;
  uint32_t export_select = kExportStatistics;
  bool wait_and_grant = true;             // ACC_WAIT_CNT_EN + NUM_GRANT_CNT_EN
  uint32_t address_mode = 4;              // 0..4 = 32/36/40/44/48-bit (RO, U)
  uint32_t stm_channel = 0;               // destination channel (default SID)
  uint32_t stm_buffer_bytes = 32 * 1024;  // TBR size for ATBSyncCnt
};

struct FieldValue {
  std::string name;
  uint32_t value;
  std::string meaning;
};
struct RegisterValue {
  std::string name;
  uint32_t offset;  // in the tracer's 128-byte block (U) / absolute for STM, TBR
  uint32_t value;
  bool read_only = false;
  std::vector<FieldValue> fields;
};

struct ConfigResult {
  std::vector<RegisterValue> tracer;  // CP_Tracer registers
  std::vector<RegisterValue> stm;     // MIPI STM at 0x0301_8000 (facts §4.3)
  std::vector<RegisterValue> tbr;     // TBR at 0x0301_9000 (facts §4.4)
  uint64_t window_cycles = 0;
};

// Parses "statistics,event_b,event_c,event_e,status" / "cpu_data,cpu_inst,dma"
// / "read|write|both". false + message on unknown names.
bool ParseExportList(const std::string& s, uint32_t* bits, std::string* error);
bool ParseDtypeList(const std::string& s, uint32_t* bits, std::string* error);
bool ParseRw(const std::string& s, uint32_t* bits, std::string* error);
// "0x40,0x41,5" -> MIDs; false on a bad number or MID > 127.
bool ParseMidList(const std::string& s, std::vector<uint32_t>* mids, std::string* error);

// Window cycles for `seconds` at `clock_hz`; error if 0 or > 0xFFFFFFFF.
bool WindowCycles(double seconds, double clock_hz, uint64_t* cycles, std::string* error);

bool ComputeConfig(const TracerConfig& cfg, ConfigResult* out, std::string* error);
// Reads a description file (INI; docs/cptracer.md, examples/cptracer/).
// Every number is checked against its key's range as it is read (sid
// 0..31, clock_hz 1..1e12, window_ms above 0 up to 1e6, window_cycles
// 1..0xFFFFFFFF, stm_channel 0..255, addresses up to 48 bits,
// address_export_shift 0..63; ini_value.h): false with
// "FILE:LINE: [section] key = value: expected ..." otherwise.
bool LoadTracerConfig(const std::string& path, TracerConfig* cfg, std::string* error);

// Explains `value` of CP_Tracer register `name` (case-insensitive; also
// STM/TBR names). With the tracer clock (`clock_hz` > 0, else 0) a
// SLIDING_TIME_WINDOW also gets WINDOW_US, the window in microseconds.
// false if the name is unknown (*error lists the known ones).
bool DecodeRegister(const std::string& name, uint32_t value, double clock_hz, RegisterValue* out, std::string* error);
// Names of all CP_Tracer registers in the table.
std::vector<std::string> RegisterNames();

std::string ConfigJson(const ConfigResult& r);
std::string RegisterJson(const RegisterValue& r);
std::string ConfigText(const ConfigResult& r);
std::string RegisterText(const RegisterValue& r);
// Explained values (`cptracer config --decode ...`): a JSON array of
// RegisterJson objects / the RegisterTexts one after the other.
std::string RegistersJson(const std::vector<RegisterValue>& v);
std::string RegistersText(const std::vector<RegisterValue>& v);

}  // namespace mabutrace::cptracer

#endif  // MABUTRACE_HOST_CPTRACER_REGISTERS_H
