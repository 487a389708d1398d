// SPDX-License-Identifier: MIT
// cmd_ete_decode.cpp: `mabutrace arm decode` and `mabutrace arm export`, and
// the same as `mabutrace ete decode|export` (SPEC §4 R-F2, R-F3, R-F6;
// docs/ete-decode.md, docs/arm-trace.md). ETE and ETMv4 sources are decoded,
// then ETMv3 (host/etm3) and PTM (host/ptm) sources (`export` puts them on
// tracks after the others); ITM sources last (host/itm, through itm_cli.h:
// `decode` lists them as `mabutrace itm decode` does, `export` writes them
// as `mabutrace itm export` does, in a process of their own on the same
// timeline, ItmBeside). A source of another protocol (STM) is named on
// stderr (exit code 1) and skipped.
//
//   ete decode SNAPSHOT_DIR [--format text|jsonl] [-o FILE]
//     text:  OpenCSD-lister element lines,
//            "Idx:21; ID:1; OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=...)",
//            with a "# source ..." line before each source
//     jsonl: one object per element: source, trace_id, offset, elem, fields
//   ete export SNAPSHOT_DIR -o OUT.json|OUT.pftrace [--format json|pftrace]
//     a timeline: one track per core, a slice per executed range,
//     exceptions as instants; time base in the metadata (ete.time_base).
//     --elf FILE[@ADDR] (repeatable): per-function slices nested by calls
//     and returns (function_slices.h); --ts-hz HZ: timestamps to ns when
//     the snapshot does not give CNTFRQ_EL0. ITM sources: --port, --clock-hz
//     and --itm-elf as `itm export` takes them (--port, --clock-hz, --elf).
//     An ELF that cannot be read,
//     or whose symbols cover no traced range: error naming it, no output.
// Errors go to stderr as "FILE: SOURCE: byte N: ..."; the exit code is then
// 1 but decoding goes on.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_io.h"
#include "command.h"
#include "ete/trace_protocol.h"
#include "ete_decode/elf_symbols.h"
#include "ete_decode/ete_decode_session.h"
#include "ete_decode/ete_export.h"
#include "etm3/etm3_decode_session.h"
#include "formats.h"
#include "input_kinds.h"
#include "itm_cli.h"
#include "ptm/ptm_decode_session.h"
#include "snapshot.h"

namespace mabutrace::cli {
namespace {

struct DecodeOptions {
  std::string input;
  std::string format = "text";
  std::string output = "-";
  std::string source;
};

struct ExportOptions {
  std::string command;  // "arm export" / "ete export": as the user typed it, for the messages
  std::string input;
  std::string output;
  std::string format;
  std::vector<std::string> elfs;  // FILE[@ADDR]
  double ts_hz = 0;
  ItmTimelineCli itm;  // the snapshot's ITM sources (itm_cli.h)
};

struct ErrorSink {
  std::string file;
  const std::vector<ete::SourceSpec>* sources = nullptr;
  const std::vector<std::string>* other_names = nullptr;  // instead of sources: ETMv3 / PTM buffers
  uint64_t errors = 0;
  FILE* flush_first = nullptr;
};

// One error line. A buffer's own error comes here once: ExportTimeline
// reports it once, OnDecodeError drops it again (BufferErrorOnce).
void ReportError(ErrorSink* s, size_t source, const std::string& message) {
  ++s->errors;
  if (s->flush_first) std::fflush(s->flush_first);
  std::string name;
  if (s->other_names && source < s->other_names->size())
    name = (*s->other_names)[source] + ": ";
  else if (!s->other_names && s->sources && source < s->sources->size())
    name = (*s->sources)[source].name + ": ";
  std::fprintf(stderr, "%s: %s%s\n", s->file.c_str(), name.c_str(), message.c_str());
}

// A buffer's ETMv3 or PTM sources: their names and configurations, and the
// decode of the whole buffer file.
struct OtherBuffer {
  std::string protocol;  // "ETMv3", "PTM"
  snapshot::TraceBuffer buffer;
  std::vector<std::string> names;
  std::vector<std::string> describe;  // config text per source
  std::function<bool(ete_decode::SourceElementCallback, ete_decode::SourceDecodeErrorCallback, void*)> decode;
};

// ETMv3 buffers first, then PTM ones; `keep` holds what the decode closures
// read (it must outlive the result).
struct OtherKeep {
  std::vector<etm3::Etm3DecodeBuffer> etm3;
  std::vector<ptm::PtmDecodeBuffer> ptm;
};
std::vector<OtherBuffer> OtherBuffers(ete_decode::LoadedSnapshot* snap, OtherKeep* keep) {
  keep->etm3 = etm3::Etm3Buffers(snap);
  keep->ptm = ptm::PtmBuffers(snap);
  std::vector<OtherBuffer> out;
  for (const etm3::Etm3DecodeBuffer& b : keep->etm3) {
    OtherBuffer o{"ETMv3", b.buffer, {}, {}, {}};
    for (const etm3::Etm3SourceSpec& src : b.sources) {
      o.names.push_back(src.name);
      o.describe.push_back(src.config.Describe());
    }
    const etm3::Etm3DecodeBuffer* buf = &b;
    o.decode = [buf](ete_decode::SourceElementCallback on_element, ete_decode::SourceDecodeErrorCallback on_error,
                     void* ctx) { return etm3::DecodeEtm3BufferFile(*buf, on_element, on_error, ctx); };
    out.push_back(std::move(o));
  }
  for (const ptm::PtmDecodeBuffer& b : keep->ptm) {
    OtherBuffer o{"PTM", b.buffer, {}, {}, {}};
    for (const ptm::PtmSource& src : b.sources) {
      o.names.push_back(src.name);
      o.describe.push_back(src.config.Describe());
    }
    const ptm::PtmDecodeBuffer* buf = &b;
    o.decode = [buf](ete_decode::SourceElementCallback on_element, ete_decode::SourceDecodeErrorCallback on_error,
                     void* ctx) { return ptm::DecodePtmBufferFile(*buf, on_element, on_error, ctx); };
    out.push_back(std::move(o));
  }
  return out;
}

// ITM sources are decoded by host/itm: `arm decode` lists them through
// itm_cli.h, so they are not named as undecoded there.
bool HasItmSource(const snapshot::Snapshot& snap) {
  for (const snapshot::TraceBuffer& buf : snap.buffers)
    for (const ete::UndecodedSource& u : ete::UndecodedSources(snap, buf))
      if (u.protocol == ete::TraceProtocol::kItm) return true;
  return false;
}

void ForgetItmSources(ete_decode::LoadedSnapshot* snap) {
  for (const snapshot::TraceBuffer& buf : snap->snap.buffers)
    for (const ete::UndecodedSource& u : ete::UndecodedSources(snap->snap, buf))
      if (u.protocol == ete::TraceProtocol::kItm) std::erase(snap->undecoded, u.Message(buf.name));
}

// Whether a core's [device] type names a profile the decoders know
// (arm-trace-facts.md, snapshot format: a known core name, ARMv<maj>[.<min>]-
// <A/R/M>, ARM-AA64 with an optional -R/-M).
bool KnownCoreType(const std::string& type) {
  std::string t;
  for (char c : type) t += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* p : {"CORTEX-A", "CORTEX-R", "CORTEX-M", "CORTEX-X", "NEOVERSE", "ARMV", "ARM-AA64", "ARM-AA32"})
    if (t.rfind(p, 0) == 0) return true;
  return false;
}

// A core type no decoder recognises: the A profile is assumed (instruction
// sets as the trace says); named so that an M-profile core spelt otherwise
// is not decoded as A-profile without a word.
void WarnUnknownCores(const snapshot::Snapshot& snap) {
  for (const snapshot::Device& d : snap.devices)
    if (d.device_class == "core" && !KnownCoreType(d.type))
      std::fprintf(
          stderr,
          "mabutrace: warning: %s: core %s: type '%s' not recognised: A profile assumed (a Cortex-M needs a type "
          "such as Cortex-M4 or ARMv7-M)\n",
          d.ini_file.string().c_str(), d.name.c_str(), d.type.c_str());
}

bool LoadOrReport(const std::string& input, ete_decode::LoadedSnapshot* out, OtherKeep* keep = nullptr,
                  std::vector<OtherBuffer>* others = nullptr, bool list_itm = false) {
  std::error_code ec;
  if (!std::filesystem::is_directory(input, ec)) {
    std::fprintf(stderr, "%s: not a snapshot directory\n", input.c_str());
    return false;
  }
  try {
    *out = ete_decode::LoadSnapshotForDecode(input);
    if (others) *others = OtherBuffers(out, keep);
    if (list_itm) ForgetItmSources(out);
  } catch (const snapshot::SnapshotError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return false;
  }
  for (const std::string& w : out->warnings) std::fprintf(stderr, "mabutrace: warning: %s\n", w.c_str());
  WarnUnknownCores(out->snap);
  for (const std::string& u : out->undecoded) std::fprintf(stderr, "%s: %s\n", input.c_str(), u.c_str());
  if (out->buffers.empty() && (!others || others->empty()) && !(list_itm && HasItmSource(out->snap))) {
    std::fprintf(stderr, "%s: no ETE or ETMv4%s trace source\n", input.c_str(),
                 others ? (list_itm ? ", ETMv3, PTM or ITM" : ", ETMv3 or PTM") : "");
    return false;
  }
  return true;
}

// ---- decode

struct DecodeOut {
  FILE* f = stdout;
  std::string buf;
  bool jsonl = false;
  const std::vector<ete::SourceSpec>* sources = nullptr;
  const std::vector<std::string>* other_names = nullptr;  // instead of sources: ETMv3 / PTM buffers
  long only = -1;                                         // source filter
  ErrorSink err;
  ete_decode::BufferErrorOnce buffer_errors;  // the ETMv3 and PTM decoders of one buffer both find its framing errors
  void Flush() {
    if (!buf.empty()) std::fwrite(buf.data(), 1, buf.size(), f);
    buf.clear();
  }
};

void OnDecodeElement(void* c, size_t source, const ete_decode::EteElement& e) {
  auto* o = static_cast<DecodeOut*>(c);
  if (o->only >= 0 && static_cast<long>(source) != o->only) return;
  if (o->jsonl) {
    ete_decode::FormatElementJson(e, o->other_names ? (*o->other_names)[source] : (*o->sources)[source].name, &o->buf);
  } else {
    ete_decode::FormatElementLine(e, &o->buf);
  }
  o->buf.push_back('\n');
  if (o->buf.size() > (1u << 16)) o->Flush();
}

void OnDecodeError(void* c, size_t source, uint64_t, const std::string& message) {
  auto* o = static_cast<DecodeOut*>(c);
  o->Flush();
  if (!o->buffer_errors.First(source, o->err.file, message)) return;
  ReportError(&o->err, source, message);
}

int RunDecode(const DecodeOptions& opt) {
  ete_decode::LoadedSnapshot snap;
  OtherKeep keep;
  std::vector<OtherBuffer> others;
  if (!LoadOrReport(opt.input, &snap, &keep, &others, /*list_itm=*/true)) return kExitBadInput;
  DecodeOut out;
  out.jsonl = opt.format == "jsonl";
  std::optional<OutputFile> file = OutputFile::Create(opt.output);
  if (!file) return kExitBadInput;
  out.f = file->get();
  out.err.flush_first = out.f;
  bool any = false;
  bool ok = true;
  for (const ete_decode::DecodeBuffer& b : snap.buffers) {
    out.sources = &b.sources;
    out.only = -1;
    if (!opt.source.empty()) {
      for (size_t i = 0; i < b.sources.size(); ++i)
        if (b.sources[i].name == opt.source) out.only = static_cast<long>(i);
      if (out.only < 0) continue;
    }
    any = true;
    out.err.file = b.buffer.file.string();
    out.err.sources = &b.sources;
    if (!out.jsonl) {
      for (size_t i = 0; i < b.sources.size(); ++i) {
        if (out.only >= 0 && static_cast<long>(i) != out.only) continue;
        out.buf += "# source " + b.sources[i].name + " buffer " + b.buffer.name + " (" + b.buffer.file.string() +
                   ") core " + (b.cores[i].empty() ? "-" : b.cores[i]) + ": " + b.sources[i].Describe() + "\n";
      }
    }
    if (!ete_decode::DecodeBufferFile(b, &OnDecodeElement, &OnDecodeError, &out)) ok = false;
    out.Flush();
  }
  for (const OtherBuffer& b : others) {  // ETMv3 (host/etm3), then PTM (host/ptm) sources
    out.other_names = &b.names;
    out.err.other_names = &b.names;
    out.only = -1;
    if (!opt.source.empty()) {
      for (size_t i = 0; i < b.names.size(); ++i)
        if (b.names[i] == opt.source) out.only = static_cast<long>(i);
      if (out.only < 0) continue;
    }
    any = true;
    out.err.file = b.buffer.file.string();
    if (!out.jsonl) {
      for (size_t i = 0; i < b.names.size(); ++i) {
        if (out.only >= 0 && static_cast<long>(i) != out.only) continue;
        const snapshot::Device* core = snap.snap.CoreOfSource(b.names[i]);
        out.buf += "# source " + b.names[i] + " buffer " + b.buffer.name + " (" + b.buffer.file.string() + ") core " +
                   (core ? core->name : "-") + ": " + b.describe[i] + "\n";
      }
    }
    if (!b.decode(&OnDecodeElement, &OnDecodeError, &out)) ok = false;
    out.Flush();
  }
  out.Flush();
  for (const snapshot::TraceBuffer& buf : snap.snap.buffers) {  // ITM sources: host/itm (itm_cli.h)
    uint64_t itm_errors = 0;
    bool read_ok = true;
    if (ListItmSources(opt.input, buf.name, {true, out.jsonl, opt.source}, out.f, &itm_errors, &read_ok)) any = true;
    out.err.errors += itm_errors;
    if (!read_ok) ok = false;
  }
  if (!any)
    std::fprintf(stderr, "%s: no ETE, ETMv4, ETMv3, PTM or ITM trace source named %s\n", opt.input.c_str(),
                 opt.source.c_str());
  out.Flush();
  if (!file->Finish()) ok = false;
  return (ok && any && !out.err.errors && snap.undecoded.empty()) ? kExitOk : kExitBadInput;
}

// ---- export

void OnExportError(void* c, const ete_decode::DecodeBuffer& buffer, size_t source, const std::string& message) {
  auto* err = static_cast<ErrorSink*>(c);
  err->file = buffer.buffer.file.string();
  err->sources = &buffer.sources;
  err->other_names = nullptr;
  ReportError(err, source, message);
}

// Where the ITM sources go beside the ETE/ETMv4/ETMv3/PTM tracks: process 2,
// named for them ("ITM ITM_0 (trace ID 0x20)"), and their clock. An ITM
// whose timestamps are global (GTS1/GTS2 packets: the CoreSight timestamp
// generator, ITM_TCR.GTSFREQ != 0) counts the same timestamp as the ETM/PTM
// sources (ETMCR.TimestampEnable): it is placed on that clock (the
// timeline's origin and frequency; --clock-hz is not needed). Local
// timestamps (the ITM's own counter of the trace clock, TSENA), none at
// all, or ETM/PTM tracks without timestamps cannot be related: said in
// "itm.clock" and on stderr, and the ITM goes on its own clock from 0
// (--clock-hz applies).
void ItmBeside(const char* cmd, bool other_tracks, const ete_decode::TimestampClock& clock, ItmTimelineJob* job) {
  std::string names, ids;
  for (const itm::ItmInput& in : job->inputs)
    for (const itm::ItmSource& s : in.sources) {
      char id[48];
      std::snprintf(id, sizeof id, "%s (trace ID 0x%02x)", s.name.c_str(), s.trace_id);
      names += (names.empty() ? "" : ", ") + std::string(id);
      ids += (ids.empty() ? "" : ", ") + s.name;
    }
  itm::TimelineOptions& t = job->timeline;
  t.pid = 2;
  t.process_name = "ITM " + names;
  const ItmTimestampKinds k = CountItmTimestamps(*job);
  std::string why;
  if (!other_tracks) {
    t.clock_note = "own: no ETE, ETMv4, ETMv3 or PTM source in the snapshot";
    return;
  }
  if (!clock.timestamps)
    why = "the ETM/PTM tracks have no timestamp to relate them to";
  else if (k.sources_global == 0 && k.sources_local > 0)
    why =
        "its timestamps are local (the ITM's own counter, ITM_TCR.TSENA; no global timestamp: GTSFREQ 0), not "
        "the CoreSight timestamp generator's";
  else if (k.sources_global == 0)
    why = "the ITM trace has no timestamp";
  if (why.empty()) {
    t.global_origin = clock.origin;
    t.origin_ns = clock.origin_ns;
    if (t.clock_hz > 0 && t.clock_hz != clock.hz)
      std::fprintf(stderr, "mabutrace: warning: %s: --clock-hz ignored: %s share the ETM/PTM timestamp clock\n", cmd,
                   ids.c_str());
    t.clock_hz = clock.hz;
    char note[160];
    std::snprintf(note, sizeof note,
                  "shared: CoreSight global timestamp, as the ETM/PTM tracks (timestamp %llu at %llu ns)",
                  static_cast<unsigned long long>(clock.origin), static_cast<unsigned long long>(clock.origin_ns));
    t.clock_note = note;
    return;
  }
  t.clock_note = "own: " + why + "; placed by its own clock from 0" +
                 (t.clock_hz > 0 ? " (--clock-hz)" : " (ticks as ns; --clock-hz gives ns)");
  std::fprintf(stderr, "mabutrace: warning: %s: %s: not on the ETM/PTM clock: %s; placed by its own clock from 0\n",
               cmd, ids.c_str(), why.c_str());
}

// DS-5's trace.ini "[timestamp] frequency=HZ" is the CoreSight timestamp's
// clock; the timeline takes it where no device gives CNTFRQ_EL0
// (ete_decode::SnapshotTimestampHz). When the timeline is timed by
// timestamps at another frequency (CNTFRQ_EL0's), say that the snapshot's
// [timestamp] frequency is not used.
void WarnUnusedTimestampFrequency(const char* cmd, const snapshot::Snapshot& snap, const ete_decode::ExportSummary& s) {
  const unsigned long long hz = snap.timestamp_frequency;
  if (!hz || s.base != ete_decode::TimeBase::kTimestamp || s.timestamp_hz == static_cast<double>(hz)) return;
  std::fprintf(stderr, "mabutrace: warning: %s: %s=%llu not used: the timestamps are at %.0f Hz from %s\n", cmd,
               snap.timestamp_frequency_source.c_str(), hz, s.timestamp_hz, s.timestamp_hz_source.c_str());
}

// The ETE/ETMv4 trace of snapshot `input` into the sink open() gives (the
// arm input kind: `arm export` and `merge`). open() is called once the
// snapshot, the ELFs and the ELF check have passed, so none of those
// problems leaves an output behind. `label` names the result in the summary
// line (the output file, or the merge input).
// The ITM sources (host/itm, through itm_cli.h as `itm export` writes them)
// go on the same timeline, process 2 named for them; their clock is the
// ETM/PTM one when they count the CoreSight global timestamp too, else
// their own (ItmBeside).
ReadResult ReadArm(const std::string& command, const std::string& input, const std::vector<std::string>& elfs,
                   double ts_hz, const ItmTimelineCli& itm_cli, const std::string& label, const SinkOpener& open) {
  ReadResult res;
  res.rc = kExitBadInput;
  ete_decode::LoadedSnapshot snap;
  OtherKeep keep;
  std::vector<OtherBuffer> others;
  if (!LoadOrReport(input, &snap, &keep, &others, /*list_itm=*/true)) return res;
  const char* cmd = command.c_str();
  std::optional<ItmTimelineJob> itm;
  if (HasItmSource(snap.snap)) {
    itm.emplace();
    res.rc = PrepareItmTimeline(input, itm_cli, itm::SessionOptions{}, cmd, &*itm);
    if (res.rc != kExitOk) return res;
    res.rc = kExitBadInput;
  } else if (!itm_cli.ports.empty() || itm_cli.clock_hz > 0 || !itm_cli.elf.empty()) {
    std::fprintf(stderr, "mabutrace: warning: %s: %s has no ITM source: --port, --clock-hz and --itm-elf ignored\n",
                 cmd, input.c_str());
  }
  ete_decode::SymbolTable symbols;
  for (const std::string& spec : elfs) {
    std::string path, error;
    std::optional<uint64_t> at;
    if (!ete_decode::ParseElfSpec(spec, &path, &at)) {
      std::fprintf(stderr, "mabutrace: %s: --elf %s: expected FILE or FILE@ADDR\n", cmd, spec.c_str());
      res.rc = kExitUsage;
      return res;
    }
    if (!symbols.AddElf(path, at, &error)) {
      std::fprintf(stderr, "mabutrace: %s: --elf %s\n", cmd, error.c_str());
      return res;
    }
  }
  if (!elfs.empty() && symbols.empty()) {
    std::fprintf(stderr, "mabutrace: %s: --elf: no function symbol in %zu file(s) (stripped?)\n", cmd, elfs.size());
    return res;
  }
  ete_decode::ExportOptions eopt;
  eopt.timestamp_hz = ts_hz;
  eopt.symbols = elfs.empty() ? nullptr : &symbols;
  ErrorSink err;
  for (const OtherBuffer& b : others) {  // ETMv3 and PTM sources: tracks after the others
    ete_decode::ExportExtra x;
    x.protocol = b.protocol;
    x.file = b.buffer.file.string();
    for (const std::string& name : b.names) {
      const snapshot::Device* core = snap.snap.CoreOfSource(name);
      x.tracks.push_back(core ? core->name + " (" + name + ")" : name);
    }
    x.decode = b.decode;
    const OtherBuffer* buf = &b;
    x.on_error = [buf, &err](size_t source, const std::string& message) {
      err.file = buf->buffer.file.string();
      err.sources = nullptr;
      err.other_names = &buf->names;
      ReportError(&err, source, message);
    };
    eopt.extra.push_back(std::move(x));
  }
  ItmTimelineResult itm_result;
  if (itm)
    eopt.beside = [&](model::EventSink* sink, const ete_decode::TimestampClock& clock) {
      ItmBeside(cmd, !snap.buffers.empty() || !others.empty(), clock, &*itm);
      itm_result = WriteItmTimeline(&*itm, sink, label + " (ITM)");
      return itm_result.ok;
    };
  const ete_decode::ExportSummary s = ete_decode::ExportTimeline(
      snap, input,
      [&]() -> model::EventSink* {
        model::EventSink* sink = open();
        res.opened = sink != nullptr;
        return sink;
      },
      eopt, &OnExportError, &err);
  if (s.elf_mismatch) {
    std::string names;
    for (const std::string& e : elfs) names += (names.empty() ? "" : ", ") + e;
    std::fprintf(stderr,
                 "mabutrace: %s: --elf %s does not match %s: no symbol covers any of its %llu executed ranges "
                 "(another build, or a load address missing: FILE@ADDR); nothing written\n",
                 cmd, names.c_str(), input.c_str(), static_cast<unsigned long long>(s.ranges_without_symbol));
    return res;
  }
  if (!res.opened) return res;
  res.sink_ok = s.write_ok;
  if (s.hz_conflict)
    std::fprintf(stderr,
                 "mabutrace: warning: --ts-hz ignored: the snapshot gives the timestamp frequency (%s = %.0f Hz)\n",
                 s.timestamp_hz_source.c_str(), s.timestamp_hz);
  WarnUnusedTimestampFrequency(cmd, snap.snap, s);
  if (eopt.symbols && s.ranges_without_symbol)
    std::fprintf(stderr, "mabutrace: warning: %llu executed ranges outside every --elf symbol (named by address)\n",
                 static_cast<unsigned long long>(s.ranges_without_symbol));
  if (eopt.symbols) {
    std::fprintf(stderr, "%s: %llu executed ranges in %llu function slices, time base %s\n", label.c_str(),
                 static_cast<unsigned long long>(s.range_slices), static_cast<unsigned long long>(s.function_slices),
                 ete_decode::TimeBaseName(s.base));
  } else {
    std::fprintf(stderr, "%s: %llu range slices, time base %s\n", label.c_str(),
                 static_cast<unsigned long long>(s.range_slices), ete_decode::TimeBaseName(s.base));
  }
  res.rc = (s.read_ok && !s.decode_errors && snap.undecoded.empty()) ? kExitOk : kExitBadInput;
  return res;
}

int RunExport(const ExportOptions& opt) {
  return ExportTo(opt.command.c_str(), opt.format, opt.output, [&](const SinkOpener& open) {
    return ReadArm(opt.command, opt.input, opt.elfs, opt.ts_hz, opt.itm, opt.output, open);
  });
}

// The arm input kind (input_kinds.h): a snapshot with a trace source this
// build decodes.
bool ClaimsArm(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path / "snapshot.ini", ec)) return false;
  std::string error;
  const std::optional<snapshot::Snapshot> snap = snapshot::TryReadSnapshot(path, &error);
  if (!snap) return true;  // a snapshot that does not read: let ReadArm say why
  for (const snapshot::Device& d : snap->devices) {
    const ete::TraceProtocol p = ete::ProtocolOfType(d.type);
    if (ete::InfoOf(p).decoder && p != ete::TraceProtocol::kItm && p != ete::TraceProtocol::kStm) return true;
  }
  return false;
}

ReadResult ReadArmKind(const std::string& path, const std::string& elf, const SinkOpener& open) {
  // Several ELFs (kernel + modules, app + libraries): FILE[@ADDR],FILE...
  std::vector<std::string> elfs;
  for (size_t at = 0; at < elf.size();) {
    const size_t comma = std::min(elf.find(',', at), elf.size());
    if (comma > at) elfs.push_back(elf.substr(at, comma - at));
    at = comma + 1;
  }
  // Messages name the input (this kind is read by merge, stats and convert).
  return ReadArm(path, path, elfs, 0, ItmTimelineCli{}, path, open);
}

InputKindRegistration arm_kind{
    {"arm", "an Arm trace snapshot (ETE, ETMv4, ETMv3, PTM, ITM): its decoded timeline, --elf FILE[@ADDR]", 10,
     &ClaimsArm, &ReadArmKind}};

Runner SetupDecode(CLI::App& app, const char* parent_name) {
  auto o = std::make_shared<DecodeOptions>();
  CLI::App* parent = app.get_subcommand(parent_name);
  auto* cmd = parent->add_subcommand("decode",
                                     "Full decode: executed instruction ranges, exceptions, context, "
                                     "timestamps... (OpenCSD-lister element text or JSON lines)");
  cmd->add_option("SNAPSHOT_DIR", o->input, "snapshot directory (snapshot.ini, trace.ini, memory dumps)")->required();
  cmd->add_option("--format", o->format, "text (default) or jsonl")->check(CLI::IsMember({"text", "jsonl"}));
  cmd->add_option("--source", o->source, "only this trace source (device name in the snapshot)");
  cmd->add_option("-o,--output", o->output, "output file ('-' = stdout, default)");
  return Runner{cmd, [o] { return RunDecode(*o); }};
}

Runner SetupExport(CLI::App& app, const char* parent_name) {
  auto o = std::make_shared<ExportOptions>();
  o->command = std::string(parent_name) + " export";
  CLI::App* parent = app.get_subcommand(parent_name);
  auto* cmd = parent->add_subcommand("export", "Timeline of what each core executed (Perfetto .pftrace or JSON)");
  cmd->add_option("SNAPSHOT_DIR", o->input, "snapshot directory")->required();
  cmd->add_option("-o,--output", o->output, "OUT.json or OUT.pftrace ('-' = stdout with --format)")->required();
  cmd->add_option("--format", o->format, "json or pftrace (default: from the output's extension)")
      ->check(CLI::IsMember({"json", "pftrace"}));
  cmd->add_option("--elf", o->elfs,
                  "FILE[@ADDR]: symbols for per-function slices (repeatable; ADDR = load address of a PIC image)");
  cmd->add_option("--ts-hz", o->ts_hz, "timestamp frequency in Hz when the snapshot has no CNTFRQ_EL0")
      ->check(FrequencyCheck());
  AddItmTimelineOptions(cmd, &o->itm, "--itm-elf");
  return Runner{cmd, [o] { return RunExport(*o); }};
}

// Under `arm` (cmd_ete.cpp, order 36) and its alias `ete` (order 40).
Registration reg_arm_decode{"arm decode", [](CLI::App& app) { return SetupDecode(app, "arm"); }, 37};
Registration reg_arm_export{"arm export", [](CLI::App& app) { return SetupExport(app, "arm"); }, 38};
Registration reg_decode{"ete decode", [](CLI::App& app) { return SetupDecode(app, "ete"); }, 41};
Registration reg_export{"ete export", [](CLI::App& app) { return SetupExport(app, "ete"); }, 42};

}  // namespace
}  // namespace mabutrace::cli
