// SPDX-License-Identifier: MIT
// cmd_itm.cpp: `mabutrace itm packets|decode|export INPUT` (docs/itm.md):
// Cortex-M ITM / DWT trace of a CoreSight snapshot's ITM sources or of a
// raw SWO capture (host/itm/itm_session.h).
//
//   packets  text: OpenCSD-lister lines "Idx:23; ID:0; [0x19 0xbb ];\tITM_SWIT: ..."
//            jsonl: source, trace_id, offset, raw, type and the fields
//   decode   text: the lister's element lines (with --packets: interleaved
//            with the packet lines, as the lister prints them)
//            jsonl: source, trace_id, offset, elem, itm and the fields
//   export   -o OUT.pftrace|OUT.json: the timeline (itm/itm_timeline.h)
// Decode errors go to stderr as "FILE: SOURCE: byte N: ..."; the exit code is
// then 1, but every packet before and after the error is listed.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_io.h"
#include "command.h"
#include "formats.h"
#include "input_kinds.h"
#include "itm/elf_symbols.h"
#include "itm/itm_packet_text.h"
#include "itm/itm_session.h"
#include "itm/itm_timeline.h"
#include "itm_cli.h"

namespace mabutrace::cli {
namespace {

struct ItmOptions {
  std::string input;
  std::string format;
  std::string output = "-";
  std::string sync = "auto";
  std::optional<uint64_t> tcr;
  std::optional<uint64_t> trace_id;
  bool with_packets = false;
  itm::SessionOptions session;
  ItmTimelineCli timeline;  // export
};

enum class Mode { kPackets, kDecode, kExport };

void Configure(ItmOptions* o) {
  if (o->tcr) o->session.tcr = static_cast<uint32_t>(*o->tcr);
  if (o->trace_id) o->session.trace_id = static_cast<int>(*o->trace_id);
  o->session.sync = o->sync == "async"          ? itm::Sync::kAsync
                    : o->sync == "first-header" ? itm::Sync::kFirstHeader
                                                : itm::Sync::kAuto;
}

// Listing output and the error report, for packets / decode.
class ListSink final : public itm::SessionSink {
 public:
  ListSink(FILE* f, bool jsonl, bool packets, bool elements, std::string file)
      : f_(f), jsonl_(jsonl), packets_(packets), elements_(elements), file_(std::move(file)) {}
  void SetInput(const itm::ItmInput* in) { in_ = in; }
  void OnPacket(size_t s, const itm::ItmPacket& p) override {
    if (!packets_) return;
    if (jsonl_)
      itm::FormatJson(p, in_->sources[s].name, &buf_);
    else
      itm::FormatLine(p, &buf_);
    buf_.push_back('\n');
    MaybeFlush();
  }
  void OnElement(size_t s, const itm::ItmElement& e) override {
    if (!elements_) return;
    if (jsonl_)
      itm::FormatElementJson(e, in_->sources[s].name, &buf_);
    else
      itm::FormatElementLine(e, &buf_);
    buf_.push_back('\n');
    MaybeFlush();
  }
  void OnError(size_t s, uint64_t, const std::string& m) override { Report(s, m, ""); }
  void OnWarning(size_t s, uint64_t, const std::string& m) override { Report(s, m, "warning: "); }
  void Header(const std::string& line) {
    if (!jsonl_) buf_ += line;
  }
  void Flush() {
    if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), f_);
    buf_.clear();
  }

 private:
  void MaybeFlush() {
    if (buf_.size() > (1u << 16)) Flush();
  }
  void Report(size_t s, const std::string& m, const char* kind) {
    Flush();
    std::fflush(f_);
    std::fprintf(stderr, "%s: %s%s%s\n", in_ ? in_->file.string().c_str() : file_.c_str(), kind,
                 (in_ && s < in_->sources.size()) ? (in_->sources[s].name + ": ").c_str() : "", m.c_str());
  }
  FILE* f_;
  bool jsonl_, packets_, elements_;
  std::string file_;
  const itm::ItmInput* in_ = nullptr;
  std::string buf_;
};

std::string Describe(const itm::ItmInput& in, const itm::ItmSource& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "# source %s buffer %s (%s, %s): ITM, TCR 0x%08x, trace ID 0x%02x, TS prescale %u\n",
                s.name.c_str(), in.buffer_name.c_str(), in.file.string().c_str(),
                in.kind != "swo" ? snapshot::BufferFormatName(in.format)
                : in.hsyncs      ? "TPIU-framed SWO"
                                 : "raw SWO",
                s.config.tcr, s.trace_id, s.config.ts_prescale());
  return buf;
}

int RunList(ItmOptions o, Mode mode) {
  Configure(&o);
  std::vector<itm::ItmInput> inputs;
  std::string error;
  if (!itm::OpenItmInput(o.input, o.session, &inputs, &error)) {
    std::fprintf(stderr, "mabutrace: %s\n", error.c_str());
    return kExitBadInput;
  }
  std::optional<OutputFile> file = OutputFile::Create(o.output);
  if (!file) return kExitBadInput;
  const bool jsonl = o.format == "jsonl";
  ListSink sink(file->get(), jsonl, mode == Mode::kPackets || o.with_packets, mode == Mode::kDecode, o.input);
  bool ok = true;
  for (const auto& in : inputs) {
    sink.SetInput(&in);
    for (const auto& s : in.sources) sink.Header(Describe(in, s));
    const itm::InputStats st = itm::DecodeItmInput(in, o.session, &sink);
    sink.Flush();
    ok = ok && st.read_ok && st.errors == 0;
  }
  sink.Flush();
  if (!file->Finish()) return kExitBadInput;
  return ok ? kExitOk : kExitBadInput;
}

class TimelineSink final : public itm::SessionSink {
 public:
  TimelineSink(itm::ItmTimeline* t, size_t base) : t_(t), base_(base) {}
  void SetInput(const itm::ItmInput* in, size_t base) {
    in_ = in;
    base_ = base;
  }
  void OnElement(size_t s, const itm::ItmElement& e) override { t_->OnElement(base_ + s, e); }
  void OnError(size_t s, uint64_t, const std::string& m) override {
    const std::string where = Where(s);
    std::fprintf(stderr, "%s%s\n", where.c_str(), m.c_str());
    t_->OnDecodeError(where + m);
  }
  void OnWarning(size_t s, uint64_t, const std::string& m) override {
    const std::string where = Where(s);
    std::fprintf(stderr, "%swarning: %s\n", where.c_str(), m.c_str());
    t_->OnDecodeWarning(where + m);
  }

 private:
  // "FILE: SOURCE: " (the source left out when the message is the input's).
  std::string Where(size_t s) const {
    return in_->file.string() + ": " + (s < in_->sources.size() ? in_->sources[s].name + ": " : "");
  }
  itm::ItmTimeline* t_;
  size_t base_;
  const itm::ItmInput* in_ = nullptr;
};

// Counts the first timestamp kind of every source (CountItmTimestamps).
class TimestampKindSink final : public itm::SessionSink {
 public:
  explicit TimestampKindSink(size_t n) : first_(n, 0) {}
  void SetBase(size_t base) { base_ = base; }
  void OnElement(size_t s, const itm::ItmElement& e) override {
    if (e.type != itm::ElemType::kItmTrace || !e.IsTimestamp() || base_ + s >= first_.size()) return;
    int& f = first_[base_ + s];
    if (!f) f = e.kind == itm::ItmKind::kTsGlobal ? 1 : 2;
  }
  void OnError(size_t, uint64_t, const std::string&) override {}  // reported by the writing pass
  std::vector<int> first_;                                        // 0 none, 1 global, 2 local
  size_t base_ = 0;
};

// The ITM timeline of `o.input` into the sink open() gives (the itm input
// kind: `itm export` and `merge`). open() is called once the options, the
// ELF and the input have been read. `label` names the result in the
// summary line.
ReadResult ReadItm(ItmOptions o, const std::string& label, const SinkOpener& open) {
  Configure(&o);
  ReadResult res;
  ItmTimelineJob job;
  res.rc = PrepareItmTimeline(o.input, o.timeline, o.session, "itm export", &job);
  if (res.rc != kExitOk) return res;
  res.rc = kExitBadInput;
  job.timeline.process_name = "ITM " + std::filesystem::path(o.input).filename().string();
  model::EventSink* out = open();
  if (!out) return res;
  res.opened = true;
  const ItmTimelineResult r = WriteItmTimeline(&job, out, label);
  res.sink_ok = r.sink_ok;
  res.rc = r.ok ? kExitOk : kExitBadInput;
  return res;
}

int RunExport(const ItmOptions& o) {
  return ExportTo("itm export", o.format, o.output, [&](const SinkOpener& open) { return ReadItm(o, o.output, open); });
}

// The itm input kind (input_kinds.h): a snapshot whose trace sources are
// ITM (and none `arm` decodes: that kind asks first); a raw SWO file only
// when named, --kind NAME=itm.
bool ClaimsItm(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path / "snapshot.ini", ec)) return false;
  std::string error;
  const std::optional<snapshot::Snapshot> snap = snapshot::TryReadSnapshot(path, &error);
  if (!snap) return false;
  for (const snapshot::Device& d : snap->devices)
    if (itm::IsItmDevice(d)) return true;
  return false;
}

ReadResult ReadItmKind(const std::string& path, const std::string& elf, const SinkOpener& open) {
  ItmOptions o;
  o.input = path;
  o.timeline.elf = elf;
  return ReadItm(o, path, open);
}

InputKindRegistration itm_kind{
    {"itm", "Cortex-M ITM/DWT: a snapshot's ITM sources, or a raw SWO file; --elf FW for handler names", 20, &ClaimsItm,
     &ReadItmKind}};

void AddInput(CLI::App* c, ItmOptions* o) {
  c->add_option("INPUT", o->input, "snapshot directory (its ITM sources) or a raw SWO capture file")->required();
  c->add_option("--buffer", o->session.buffer, "snapshot: only this trace buffer (name in trace.ini)");
  c->add_option("--source", o->session.source, "snapshot: only this ITM source (device name)");
  c->add_option("--tcr", o->tcr, "ITM_TCR value (raw SWO default 0; overrides the snapshot's ITMTCR)")
      ->transform(Number(UINT32_MAX));
  c->add_option("--trace-id", o->trace_id, "trace ID of the ITM bytes in CoreSight frames (default: TCR bits[22:16])")
      ->transform(Number(0x7F));
  c->add_option("--sync", o->sync,
                "auto (default: snapshot waits for an A-Sync, raw SWO starts at the first plausible header), "
                "async, first-header")
      ->check(CLI::IsMember({"auto", "async", "first-header"}));
  c->add_flag("--tpiu", o->session.tpiu,
              "raw SWO file: TPIU formatter frames (FSYNC/HSYNC), ITM at --trace-id (default TCR's, else 1)");
  c->add_option("-o,--output", o->output, "output file ('-' = stdout, default)");
}

Registration reg{
    "itm",
    [](CLI::App& app) {
      auto* cmd = app.add_subcommand("itm", "Cortex-M ITM / DWT trace (snapshot or raw SWO): packets, decode, export");
      cmd->require_subcommand(1);
      auto po = std::make_shared<ItmOptions>();
      auto dop = std::make_shared<ItmOptions>();
      auto eo = std::make_shared<ItmOptions>();
      po->format = dop->format = "text";
      auto* pk = cmd->add_subcommand("packets", "List the ITM packets (OpenCSD-lister text or JSON lines)");
      AddInput(pk, po.get());
      pk->add_option("--format", po->format, "text (default) or jsonl")->check(CLI::IsMember({"text", "jsonl"}));
      auto* dc = cmd->add_subcommand("decode", "List the ITM elements: stimulus writes, DWT, timestamps");
      AddInput(dc, dop.get());
      dc->add_option("--format", dop->format, "text (default) or jsonl")->check(CLI::IsMember({"text", "jsonl"}));
      dc->add_flag("--packets", dop->with_packets, "interleave the packet lines, as OpenCSD's lister prints them");
      auto* ex = cmd->add_subcommand("export", "Timeline: stimulus ports, ISR slices, DWT (Perfetto .pftrace or JSON)");
      AddInput(ex, eo.get());
      ex->get_option("-o")->required()->description("OUT.json or OUT.pftrace ('-' = stdout, with --format)");
      ex->add_option("--format", eo->format, "json or pftrace (default: from the output's extension)")
          ->check(CLI::IsMember({"json", "pftrace"}));
      AddItmTimelineOptions(ex, &eo->timeline, "--elf");
      return Runner{cmd, [po, dop, eo, pk, dc] {
                      if (pk->parsed()) return RunList(*po, Mode::kPackets);
                      if (dc->parsed()) return RunList(*dop, Mode::kDecode);
                      return RunExport(*eo);
                    }};
    },
    44};

}  // namespace

// Whether snapshot `dir` has an ITM source (named `source`, if given)
// writing into `buffer`.
static bool HasItmSourceIn(const std::string& dir, const std::string& buffer, const std::string& source) {
  std::string ignored;
  const std::optional<snapshot::Snapshot> snap = snapshot::TryReadSnapshot(dir, &ignored);
  if (!snap) return false;
  for (const snapshot::Device* d : snap->SourcesOfBuffer(buffer))
    if (itm::IsItmDevice(*d) && (source.empty() || d->name == source)) return true;
  return false;
}

size_t ListItmSources(const std::string& dir, const std::string& buffer, const ItmListOptions& opt, FILE* out,
                      uint64_t* errors, bool* read_ok) {
  ItmOptions o;
  o.input = dir;
  Configure(&o);
  std::vector<itm::ItmInput> inputs;
  std::string error;
  if (!itm::OpenItmInput(o.input, o.session, &inputs, &error)) {
    // No ITM source in the snapshot is no error here; a bad ITM source (its
    // ITMTCR) is, once, with the buffer it writes into.
    if (!HasItmSourceIn(dir, buffer, opt.source)) return 0;
    std::fprintf(stderr, "mabutrace: %s\n", error.c_str());
    ++*errors;
    *read_ok = false;
    return 1;
  }
  ListSink sink(out, opt.jsonl, !opt.elements, opt.elements, dir);
  size_t listed = 0;
  for (itm::ItmInput& in : inputs) {
    if (in.buffer_name != buffer) continue;
    if (!opt.source.empty()) {
      std::vector<itm::ItmSource> keep;
      for (auto& s : in.sources)
        if (s.name == opt.source) keep.push_back(s);
      in.sources.swap(keep);
    }
    if (in.sources.empty()) continue;
    listed += in.sources.size();
    sink.SetInput(&in);
    for (const auto& s : in.sources) sink.Header(Describe(in, s));
    const itm::InputStats st = itm::DecodeItmInput(in, o.session, &sink);
    sink.Flush();
    *errors += st.errors;
    if (!st.read_ok) *read_ok = false;
  }
  return listed;
}

void AddItmTimelineOptions(CLI::App* c, ItmTimelineCli* o, const char* elf_flag) {
  c->add_option("--clock-hz", o->clock_hz, "ITM timestamp clock in Hz (default: ticks written as ns)")
      ->check(FrequencyCheck());
  c->add_option("--port", o->ports,
                "N=instant:NAME | N=counter:NAME | N=text:NAME for ITM stimulus channel N "
                "(default: instant 'ITM port N' with the value)");
  c->add_option(elf_flag, o->elf, "firmware ELF: ITM handler names from the vector table, PC samples by function");
}

int PrepareItmTimeline(const std::string& input, const ItmTimelineCli& cli, const itm::SessionOptions& session,
                       const char* command, ItmTimelineJob* job) {
  job->session = session;
  for (const std::string& p : cli.ports) {
    std::string err;
    auto m = itm::ParsePortMapping(p, &err);
    if (!m) {
      std::fprintf(stderr, "%s: --port %s\n", command, err.c_str());
      return kExitUsage;
    }
    job->timeline.ports[m->first] = m->second;
  }
  job->timeline.clock_hz = cli.clock_hz;
  if (!cli.elf.empty()) {
    std::string err;
    job->elf = itm::ElfSymbols::Open(cli.elf, &err);
    if (!job->elf) {
      std::fprintf(stderr, "mabutrace: %s\n", err.c_str());
      return kExitBadInput;
    }
    job->timeline.elf = job->elf.get();
  }
  std::string error;
  if (!itm::OpenItmInput(input, job->session, &job->inputs, &error)) {
    std::fprintf(stderr, "mabutrace: %s\n", error.c_str());
    return kExitBadInput;
  }
  for (const auto& in : job->inputs)
    for (const auto& s : in.sources) job->names.push_back(s.name);
  return kExitOk;
}

ItmTimelineResult WriteItmTimeline(ItmTimelineJob* job, model::EventSink* sink, const std::string& label) {
  ItmTimelineResult r;
  itm::ItmTimeline timeline(sink, job->timeline, job->names);
  TimelineSink ts(&timeline, 0);
  size_t base = 0;
  for (const auto& in : job->inputs) {
    ts.SetInput(&in, base);
    const itm::InputStats st = itm::DecodeItmInput(in, job->session, &ts);
    r.ok = r.ok && st.read_ok && st.errors == 0;
    base += in.sources.size();
  }
  r.sink_ok = timeline.Finish();
  r.stats = timeline.stats();
  const itm::TimelineStats& s = r.stats;
  std::fprintf(stderr, "%s: %llu instants, %llu ISR slices, %llu counter values, %llu PC samples\n", label.c_str(),
               static_cast<unsigned long long>(s.instants), static_cast<unsigned long long>(s.slices),
               static_cast<unsigned long long>(s.counters), static_cast<unsigned long long>(s.pc_samples));
  return r;
}

ItmTimestampKinds CountItmTimestamps(const ItmTimelineJob& job) {
  TimestampKindSink sink(job.names.size());
  size_t base = 0;
  for (const auto& in : job.inputs) {
    sink.SetBase(base);
    itm::DecodeItmInput(in, job.session, &sink);
    base += in.sources.size();
  }
  ItmTimestampKinds k;
  for (int f : sink.first_) ++(f == 1 ? k.sources_global : f == 2 ? k.sources_local : k.sources_none);
  return k;
}

}  // namespace mabutrace::cli
