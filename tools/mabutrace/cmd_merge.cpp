// SPDX-License-Identifier: MIT
// cmd_merge.cpp: `mabutrace merge [NAME=]IN... -o OUT [--offset NAME=DUR]...
// [--clock-hz NAME=HZ]... [--clock-domain NAME=DOMAIN]... [--sync DOMAIN]...
// [--elf NAME=FILE]... [--kind NAME=KIND]...` (docs/merge.md): several
// traces on one timeline, each input its own process. Each input is read
// twice, as `convert` reads it (ReadTrace) or as its kind's export does
// (input_kinds.h): once to find its sync points and span (host/merge/
// input_scan.h), so that every input is known good and placed
// (merge_plan.h) before a byte is written, and once into the output
// (input_remap.h). The output is written beside OUT and renamed over it
// at the end: a failed merge leaves no half file.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "cli_io.h"
#include "command.h"
#include "convert.h"
#include "flow_join.h"
#include "formats.h"
#include "input_kinds.h"
#include "input_remap.h"
#include "input_scan.h"
#include "merge_plan.h"

namespace mabutrace::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> inputs, names, offsets, clock_hz, domains, elfs, sync, kinds, joins;
  std::string out, format;
};

struct Input {
  std::string name, path, elf;
  const InputKind* kind = nullptr;  // nullptr: a trace ReadTrace reads (stream, dump, .json, .pftrace)
  std::vector<size_t> senders;      // --join-flows S:this
  bool sender = false;              // --join-flows this:R
};

// One input into the sink open() gives, by its kind.
ReadResult ReadInput(const Input& in, const SinkOpener& open) {
  if (in.kind) return in.kind->read(in.path, in.elf, open);
  if (!NotADirectory(in.path)) return ReadResult{kExitBadInput, false, true};
  auto fin = InputFile::Open(in.path);
  if (!fin) return ReadResult{kExitBadInput, false, true};
  return ReadTrace(*fin, in.elf, open, !in.senders.empty());
}

// "--join-flows A:B" items into the inputs' senders; false after a message.
bool ParseJoins(const std::vector<std::string>& joins, std::vector<Input>& inputs) {
  auto find = [&](const std::string& name) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].name == name) return i;
    return inputs.size();
  };
  for (const std::string& j : joins) {
    const size_t colon = j.find(':');
    const size_t from = colon == std::string::npos ? inputs.size() : find(j.substr(0, colon));
    const size_t to = colon == std::string::npos ? inputs.size() : find(j.substr(colon + 1));
    if (colon == std::string::npos) {
      std::fprintf(stderr, "mabutrace: merge: --join-flows %s: expected SENDER:RECEIVER, two inputs' names\n",
                   j.c_str());
      return false;
    }
    for (const auto& [index, name] : {std::pair{from, j.substr(0, colon)}, std::pair{to, j.substr(colon + 1)}})
      if (index == inputs.size()) {
        std::fprintf(stderr, "mabutrace: merge: --join-flows %s: no input is named '%s'\n", j.c_str(), name.c_str());
        return false;
      }
    if (from == to) {
      std::fprintf(stderr, "mabutrace: merge: --join-flows %s: an input's own arrows join without it\n", j.c_str());
      return false;
    }
    const std::string ext = std::filesystem::path(inputs[to].path).extension().string();
    if (!inputs[to].kind && (ext == ".json" || ext == ".pftrace")) {
      std::fprintf(stderr,
                   "mabutrace: merge: --join-flows %s: %s is a %s: it keeps no link of an unresolved arrow end; "
                   "give the runtime stream or dump it came from\n",
                   j.c_str(), inputs[to].name.c_str(), ext.c_str());
      return false;
    }
    if (inputs[to].kind) {
      std::fprintf(stderr,
                   "mabutrace: merge: --join-flows %s: %s is an input of kind %s; arrows end only in runtime "
                   "streams and dumps\n",
                   j.c_str(), inputs[to].name.c_str(), inputs[to].kind->name);
      return false;
    }
    inputs[from].sender = true;
    if (std::find(inputs[to].senders.begin(), inputs[to].senders.end(), from) == inputs[to].senders.end())
      inputs[to].senders.push_back(from);
  }
  return true;
}

// The order pass 2 reads the inputs in: every sender before its receivers
// (an arrow's end is written after its start), else input order.
std::vector<size_t> WriteOrder(const std::vector<Input>& inputs) {
  std::vector<size_t> order;
  std::vector<bool> done(inputs.size(), false);
  while (order.size() < inputs.size()) {
    size_t pick = inputs.size();
    for (size_t i = 0; i < inputs.size() && pick == inputs.size(); ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (size_t s : inputs[i].senders) ready = ready && done[s];
      if (ready) pick = i;
    }
    if (pick == inputs.size())  // a cycle: its remaining ends come before their starts and are counted
      for (size_t i = 0; i < inputs.size() && pick == inputs.size(); ++i)
        if (!done[i]) pick = i;
    done[pick] = true;
    order.push_back(pick);
  }
  return order;
}

// "NAME=VALUE" → (NAME, VALUE); nullopt when there is no '=' or either side
// is empty.
std::optional<std::pair<std::string, std::string>> SplitNamed(const std::string& s) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) return std::nullopt;
  return std::make_pair(s.substr(0, eq), s.substr(eq + 1));
}

// An input's name from its path: the stem of its last component ("snap/"
// and "./snap/." are "snap"), "input<N>" when that says nothing.
std::string DefaultName(const std::string& path, size_t index) {
  std::filesystem::path p = std::filesystem::path(path).lexically_normal();
  while (!p.empty() && (p.filename().empty() || p.filename() == ".")) p = p.parent_path();
  std::string name = p.stem().string();
  if (name.empty() || name == "." || name == "..") name = "input" + std::to_string(index + 1);
  return name;
}

// Each input is read twice: a file or a directory, and not the output.
bool CheckInputPaths(const std::vector<Input>& inputs, const std::string& out) {
  std::error_code ec;
  for (const Input& in : inputs) {
    const auto st = std::filesystem::status(in.path, ec);
    if (in.path == "-" ||
        (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) && !std::filesystem::is_directory(st))) {
      std::fprintf(stderr,
                   "mabutrace: merge: %s (%s): merge reads each input twice: give a file or a directory, not "
                   "stdin, a pipe or a device\n",
                   in.name.c_str(), in.path.c_str());
      return false;
    }
    if (std::filesystem::exists(out, ec) && std::filesystem::equivalent(in.path, out, ec)) {
      std::fprintf(stderr, "mabutrace: merge: %s is both an input (%s) and the output\n", out.c_str(), in.name.c_str());
      return false;
    }
  }
  return true;
}

// The inputs with their names: "NAME=PATH", the i-th --name for the i-th
// input, or PATH named by its stem. An existing file whose name has '=' is a
// path.
std::optional<std::vector<Input>> ParseInputs(const MergeOptions& o) {
  if (o.names.size() > o.inputs.size()) {
    std::fprintf(stderr, "mabutrace: merge: %zu --name for %zu inputs\n", o.names.size(), o.inputs.size());
    return std::nullopt;
  }
  std::vector<Input> inputs;
  for (const std::string& arg : o.inputs) {
    Input in;
    std::error_code ec;
    const auto named = SplitNamed(arg);
    if (named && !std::filesystem::exists(arg, ec)) {
      in.name = named->first;
      in.path = named->second;
    } else {
      in.path = arg;
      in.name = DefaultName(arg, inputs.size());
    }
    if (inputs.size() < o.names.size()) {
      if (named && !std::filesystem::exists(arg, ec)) {
        std::fprintf(stderr, "mabutrace: merge: %s is named twice (NAME= and --name %s)\n", arg.c_str(),
                     o.names[inputs.size()].c_str());
        return std::nullopt;
      }
      in.name = o.names[inputs.size()];
    }
    if (in.name.empty() || in.name.find_first_of("=:") != std::string::npos) {
      std::fprintf(stderr, "mabutrace: merge: input name '%s': give a non-empty name without '=' or ':'\n",
                   in.name.c_str());
      return std::nullopt;
    }
    for (const Input& other : inputs)
      if (other.name == in.name) {
        std::fprintf(stderr, "mabutrace: merge: two inputs are named '%s': name them, NAME=%s\n", in.name.c_str(),
                     in.path.c_str());
        return std::nullopt;
      }
    inputs.push_back(in);
  }
  return inputs;
}

// Applies "--OPTION NAME=VALUE" items through `set(index, value)`; false
// after a message (unknown name, bad value, the same name twice with
// different values).
template <class Set>
bool ApplyNamed(const char* option, const std::vector<std::string>& items, const std::vector<Input>& inputs, Set set) {
  std::map<std::string, std::string> given;
  for (const std::string& item : items) {
    const auto named = SplitNamed(item);
    if (!named) {
      std::fprintf(stderr, "mabutrace: merge: %s '%s': expected NAME=VALUE\n", option, item.c_str());
      return false;
    }
    size_t index = inputs.size();
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].name == named->first) index = i;
    if (index == inputs.size()) {
      std::fprintf(stderr, "mabutrace: merge: %s %s: no input is named '%s'\n", option, item.c_str(),
                   named->first.c_str());
      return false;
    }
    const auto [it, fresh] = given.emplace(named->first, named->second);
    if (!fresh && it->second != named->second) {
      std::fprintf(stderr, "mabutrace: merge: %s: contradictory values for %s: '%s' and '%s'\n", option,
                   named->first.c_str(), it->second.c_str(), named->second.c_str());
      return false;
    }
    if (!set(index, named->second)) {
      std::fprintf(stderr, "mabutrace: merge: %s %s: bad value '%s'\n", option, item.c_str(), named->second.c_str());
      return false;
    }
  }
  return true;
}

// Pass 1 of one input; false after a message when it cannot be read.
bool Scan(const Input& in, merge::InputScan* scan, int* rc) {
  merge::ScanSink sink(*scan, in.sender);
  const ReadResult r = ReadInput(in, [&]() -> model::EventSink* { return &sink; });
  if (!r.opened) return false;
  if (scan->events == 0) {  // nothing decodable in it
    if (r.rc == kExitOk)
      std::fprintf(stderr, "mabutrace: merge: %s (%s): no events\n", in.name.c_str(), in.path.c_str());
    return false;
  }
  if (r.rc != kExitOk) *rc = kExitBadInput;  // damaged but read: merged, and said
  return true;
}

// stderr to /dev/null while it lives (pass 2: the readers' messages were
// all given in pass 1), then back.
class QuietStderr {
 public:
  QuietStderr() {
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    const int null = ::open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && null >= 0) ::dup2(null, STDERR_FILENO);
    if (null >= 0) ::close(null);
  }
  ~QuietStderr() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      ::dup2(saved_, STDERR_FILENO);
      ::close(saved_);
    }
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_ = -1;
};

// The output being written, removed when the merge is interrupted (SIGINT,
// SIGTERM): nothing half is left behind.
char g_partial[4096];
extern "C" void RemovePartialAndExit(int sig) {
  if (g_partial[0]) ::unlink(g_partial);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int RunMerge(const MergeOptions& o) {
  auto format = PickFormat(o.format, o.out);
  if (!format) return kExitUsage;
  if (*format == Format::kRaw || o.out == "-") {
    std::fprintf(stderr, "mabutrace: merge: the output must be a .json, .pftrace or .txt file (not '-')\n");
    return kExitUsage;
  }
  auto inputs = ParseInputs(o);
  if (!inputs || !CheckInputPaths(*inputs, o.out)) return kExitUsage;
  std::vector<merge::InputSpec> specs(inputs->size());
  for (size_t i = 0; i < inputs->size(); ++i) specs[i].name = (*inputs)[i].name;
  const bool flags_ok =
      ApplyNamed("--offset", o.offsets, *inputs,
                 [&](size_t i, const std::string& v) { return bool(specs[i].offset_ns = ParseDuration(v)); }) &&
      ApplyNamed("--clock-hz", o.clock_hz, *inputs,
                 [&](size_t i, const std::string& v) {
                   char* end = nullptr;
                   const double hz = std::strtod(v.c_str(), &end);
                   if (end != v.c_str() + v.size() || !(hz >= 1) || !std::isfinite(hz)) return false;
                   specs[i].clock_hz = hz;
                   return true;
                 }) &&
      ApplyNamed("--clock-domain", o.domains, *inputs,
                 [&](size_t i, const std::string& v) { return !(specs[i].clock_domain = v).empty(); }) &&
      ApplyNamed("--elf", o.elfs, *inputs,
                 [&](size_t i, const std::string& v) {
                   (*inputs)[i].elf = v;
                   const std::string first = v.substr(0, v.find(','));
                   return std::filesystem::exists(first.substr(0, first.rfind('@')));
                 }) &&
      ApplyNamed("--kind", o.kinds, *inputs, [&](size_t i, const std::string& v) {
        if (v == "trace") return true;
        return ((*inputs)[i].kind = FindInputKind(v)) != nullptr;
      });
  if (!flags_ok) return kExitUsage;
  for (size_t i = 0; i < inputs->size(); ++i) {
    Input& in = (*inputs)[i];
    if (in.kind) continue;  // named with --kind
    bool named_trace = false;
    for (const std::string& k : o.kinds) named_trace = named_trace || k == in.name + "=trace";
    if (!named_trace) in.kind = DetectInputKind(in.path);
  }
  if (!ParseJoins(o.joins, *inputs)) return kExitUsage;
  for (const Input& in : *inputs) {
    std::fprintf(stderr, "mabutrace: merge: %s: %s %s\n", in.name.c_str(), in.kind ? in.kind->name : "trace",
                 in.path.c_str());
  }

  // Pass 1: every input read, or nothing written.
  int rc = kExitOk;
  std::vector<merge::InputScan> scans(inputs->size());
  for (size_t i = 0; i < inputs->size(); ++i) {
    if (!Scan((*inputs)[i], &scans[i], &rc)) {
      std::fprintf(stderr, "mabutrace: merge: %s (%s) cannot be read: nothing written\n", (*inputs)[i].name.c_str(),
                   (*inputs)[i].path.c_str());
      return kExitBadInput;
    }
  }
  std::string error;
  const auto plan = merge::PlanMerge(specs, scans, o.sync, &error);
  if (!plan) {
    std::fprintf(stderr, "mabutrace: merge: %s: nothing written\n", error.c_str());
    return kExitBadInput;
  }
  for (size_t i = 0; i < inputs->size(); ++i)
    std::fprintf(stderr, "mabutrace: merge: %s: %s\n", specs[i].name.c_str(), plan->inputs[i].how.c_str());
  for (size_t i = 0; i < inputs->size(); ++i) {  // Perfetto's timestamps are signed 64-bit ns
    const long double last = plan->inputs[i].total.At(static_cast<long double>(scans[i].last_ns));
    if (scans[i].events && !(last < 9.2e18L)) {
      std::fprintf(stderr, "mabutrace: merge: %s: placed past 2^63 ns (292 years): check its flags; nothing written\n",
                   specs[i].name.c_str());
      return kExitBadInput;
    }
  }

  // Pass 2, beside OUT.
  const std::string partial = o.out + ".partial";
  if (partial.size() < sizeof g_partial) {
    std::memcpy(g_partial, partial.c_str(), partial.size() + 1);
    std::signal(SIGINT, RemovePartialAndExit);
    std::signal(SIGTERM, RemovePartialAndExit);
  }
  auto fout = OutputFile::Create(partial);
  if (!fout) return kExitBadInput;
  auto writer = MakeWriter(*format, exporter::FileWriter(fout->get()));
  merge::MergeOutput out(*writer);
  format::EventSink& sink = out.sink();
  if (scans[0].has_clock) {  // the reference's OS clock at the merged time 0
    const merge::ClockLine back = merge::Invert(plan->inputs[0].total);
    const long double t0 = back.y0 - back.slope * back.x0;
    const long double mono = static_cast<long double>(scans[0].monotonic_at_zero) + t0;
    const long double boot = static_cast<long double>(scans[0].boottime_at_zero) + t0;
    if (mono >= 0 && boot >= 0) sink.OnClock(uint64_t(std::llroundl(mono)), uint64_t(std::llroundl(boot)));
  }
  for (size_t i = 0; i < inputs->size(); ++i) {
    if (!scans[i].events) continue;
    const merge::InputPlan& p = plan->inputs[i];
    sink.OnClockSnapshot(p.clock_id, p.total.Apply(scans[i].first_ns), scans[i].first_ns);
    if (scans[i].last_ns != scans[i].first_ns)
      sink.OnClockSnapshot(p.clock_id, p.total.Apply(scans[i].last_ns), scans[i].last_ns);
  }
  std::vector<uint64_t> joined(inputs->size()), unjoined(inputs->size());
  for (const size_t i : WriteOrder(*inputs)) {
    const Input& in = (*inputs)[i];
    merge::FlowJoin join;
    for (size_t s : in.senders) join.AddSender(s, plan->inputs[s].total, scans[s].flow_outs);
    merge::InputRemap remap(out, i, specs[i].name, plan->inputs[i].total, scans[i].pids.size() > 1,
                            in.senders.empty() ? nullptr : &join);
    // The readers said what they had to say in pass 1: the same lines again
    // would only double the report.
    const ReadResult r = [&] {
      QuietStderr quiet;
      return ReadInput(in, [&]() -> model::EventSink* { return &remap; });
    }();
    if (!r.opened) {
      std::fprintf(stderr, "mabutrace: merge: %s (%s) changed between the two reads: nothing written\n",
                   in.name.c_str(), in.path.c_str());
      std::remove(partial.c_str());
      return kExitBadInput;
    }
    joined[i] = remap.joined();
    unjoined[i] = remap.unjoined();
    if (!in.senders.empty())
      std::fprintf(stderr, "mabutrace: merge: %s: %llu arrows joined from other inputs, %llu ends found no start\n",
                   in.name.c_str(), static_cast<unsigned long long>(joined[i]),
                   static_cast<unsigned long long>(unjoined[i]));
  }
  sink.OnMetadata("merge.inputs", int64_t(inputs->size()));
  sink.OnMetadata("merge.shift_ns", int64_t(plan->shift_ns));
  for (size_t i = 0; i < inputs->size(); ++i) {
    const merge::InputPlan& p = plan->inputs[i];
    const std::string key = "merge." + specs[i].name;
    sink.OnMetadata(key + ".path", (*inputs)[i].path);
    sink.OnMetadata(key + ".placement", p.how);
    sink.OnMetadata(key + ".clock_id", int64_t(p.clock_id));
    if (!(*inputs)[i].senders.empty()) {
      sink.OnMetadata(key + ".flows_joined", int64_t(joined[i]));
      sink.OnMetadata(key + ".flow_ends_unjoined", int64_t(unjoined[i]));
    }
    if (p.placement == merge::Placement::kSyncPoints) {
      sink.OnMetadata(key + ".sync_domain", p.domain);
      sink.OnMetadata(key + ".sync_pairs", int64_t(p.fit.points));
      sink.OnMetadata(key + ".offset_ns", int64_t(std::llroundl(p.fit.line.offset_ns())));
      sink.OnMetadata(key + ".drift_ppb", int64_t(std::llroundl(p.fit.line.drift_ppm() * 1000)));
      sink.OnMetadata(key + ".residual_max_ns", int64_t(std::ceil(p.fit.max_residual_ns)));
    }
  }
  const bool sink_ok = sink.Finish();
  writer.reset();
  if (!sink_ok || !fout->Finish()) {
    std::remove(partial.c_str());
    return kExitBadInput;
  }
  std::error_code ec;
  std::filesystem::rename(partial, o.out, ec);
  if (ec) {
    std::fprintf(stderr, "mabutrace: %s: cannot rename to %s: %s\n", partial.c_str(), o.out.c_str(),
                 ec.message().c_str());
    std::remove(partial.c_str());
    return kExitBadInput;
  }
  return rc;
}

Registration reg{
    "merge",
    [](CLI::App& app) {
      auto o = std::make_shared<MergeOptions>();
      auto* cmd = app.add_subcommand(
          "merge", "Put several traces on one timeline, each its own process: streams, RAM dumps, .json, .pftrace");
      cmd->add_option("IN", o->inputs,
                      "[NAME=]PATH: a binary stream, a raw dump (with --elf NAME=FW), a .json/.pftrace the "
                      "toolkit wrote, an Arm trace snapshot (decoded), an ITM snapshot, a CP_Tracer capture "
                      "(see --kind); NAME (default: the file's stem) names its process. The first is the "
                      "reference clock")
          ->required();
      cmd->add_option("-o,--output", o->out, "output file (.pftrace, .json or .txt)")->required();
      cmd->add_option("--name", o->names, "NAME of the next input, in order (the same as NAME=PATH)")
          ->allow_extra_args(false);
      cmd->add_option("--format", o->format, "json | pftrace | text (default: from OUT's extension)")
          ->check(CLI::IsMember({"json", "pftrace", "text"}, CLI::ignore_case));
      cmd->add_option("--offset", o->offsets, "NAME=DURATION added to the input's times (ns, us, ms, s; e.g. 1.7ms)")
          ->allow_extra_args(false);
      cmd->add_option("--clock-hz", o->clock_hz, "NAME=HZ: the input's times are ticks at HZ (converted to ns)")
          ->allow_extra_args(false);
      cmd->add_option("--clock-domain", o->domains,
                      "NAME=DOMAIN: the input's own clock is the sync domain DOMAIN (e.g. an ETE trace on cntvct)")
          ->allow_extra_args(false);
      cmd->add_option("--sync", o->sync,
                      "DOMAIN: place inputs through these sync domains only (default: every domain found); a "
                      "domain that pairs no two inputs is an error")
          ->allow_extra_args(false);
      cmd->add_option("--elf", o->elfs,
                      "NAME=FW: the firmware ELF of a raw-dump input; of an arm input FILE[@ADDR][,FILE...] "
                      "(function slices), of an itm input (handler names)")
          ->allow_extra_args(false);
      cmd->add_option("--join-flows", o->joins,
                      "SENDER:RECEIVER: a TRACE_FLOW_IN on RECEIVER given a link that TRACE_FLOW_OUT wrote on "
                      "SENDER (sent in a message) ends an arrow from it (runtime streams and dumps)")
          ->allow_extra_args(false);
      cmd->add_option("--kind", o->kinds,
                      "NAME=KIND: read the input as KIND, one of trace, " + InputKindNames() +
                          " (default: from the input: a snapshot by its trace sources, .dcm is cptracer, "
                          "anything else a trace)")
          ->allow_extra_args(false);
      return Runner{cmd, [o] { return RunMerge(*o); }};
    },
    12};

}  // namespace
}  // namespace mabutrace::cli
