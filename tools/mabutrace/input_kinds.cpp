// SPDX-License-Identifier: MIT
#include "input_kinds.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "cli_io.h"
#include "formats.h"

namespace mabutrace::cli {
namespace {

// Function-local: registrations run during static init, in any file order.
std::vector<InputKind>& Kinds() {
  static std::vector<InputKind> kinds;
  return kinds;
}

}  // namespace

InputKindRegistration::InputKindRegistration(InputKind kind) { Kinds().push_back(kind); }

std::vector<InputKind> InputKinds() {
  std::vector<InputKind> sorted = Kinds();
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const InputKind& a, const InputKind& b) { return a.priority < b.priority; });
  return sorted;
}

const InputKind* FindInputKind(std::string_view name) {
  for (const InputKind& k : Kinds())
    if (name == k.name) return &k;
  return nullptr;
}

const InputKind* DetectInputKind(const std::filesystem::path& path) {
  const InputKind* best = nullptr;
  for (const InputKind& k : Kinds())
    if ((!best || k.priority < best->priority) && k.claims(path)) best = &k;
  return best;
}

std::string InputKindNames() {
  std::string names;
  for (const InputKind& k : InputKinds()) names += (names.empty() ? "" : ", ") + std::string(k.name);
  return names;
}

int ExportTo(const char* who, const std::string& format, const std::string& out,
             const std::function<ReadResult(const SinkOpener&)>& read) {
  const std::optional<Format> fmt = PickFormat(format, out);
  if (!fmt) return kExitUsage;
  if (*fmt != Format::kJson && *fmt != Format::kPftrace) {
    std::fprintf(stderr, "mabutrace: %s: the output format must be json or pftrace\n", who);
    return kExitUsage;
  }
  // Staged and committed (cli_io.h): no half file, an OUT from before kept.
  std::optional<OutputFile> file;
  std::unique_ptr<model::EventSink> writer;
  const ReadResult r = read([&]() -> model::EventSink* {
    file = OutputFile::CreateStaged(out);
    if (!file) return nullptr;
    writer = MakeWriter(*fmt, file->Writer());
    return writer.get();
  });
  if (!r.opened) return r.rc;
  writer.reset();
  const bool written = file->Finish() && r.sink_ok;
  if (out == "-") return written ? r.rc : kExitBadInput;
  return CommitOutput(who, out, written) ? r.rc : kExitBadInput;
}

bool NotADirectory(const std::string& path) {
  std::error_code ec;
  if (path == "-" || !std::filesystem::is_directory(path, ec)) return true;
  if (!std::filesystem::exists(std::filesystem::path(path) / "snapshot.ini", ec))
    std::fprintf(stderr, "mabutrace: %s: a directory, not a snapshot (no snapshot.ini)\n", path.c_str());
  else
    std::fprintf(stderr,
                 "mabutrace: %s: a snapshot, but none of its trace sources is of a kind this build reads (%s): "
                 "`mabutrace arm decode` names them\n",
                 path.c_str(), InputKindNames().c_str());
  return false;
}

ReadResult ReadAnyInput(const std::string& path, const std::string& kind, const std::string& elf,
                        const SinkOpener& open) {
  const InputKind* k = nullptr;
  if (kind.empty() && path != "-") {
    k = DetectInputKind(path);
  } else if (!kind.empty() && kind != "trace") {
    k = FindInputKind(kind);
    if (!k) {
      std::fprintf(stderr, "mabutrace: --kind %s: not a kind of input (trace, %s)\n", kind.c_str(),
                   InputKindNames().c_str());
      return ReadResult{kExitUsage, false, true};
    }
  }
  if (k) return k->read(path, elf, open);
  if (!NotADirectory(path)) return ReadResult{kExitBadInput, false, true};
  auto fin = InputFile::Open(path);
  if (!fin) return ReadResult{kExitBadInput, false, true};
  return ReadTrace(*fin, elf, open);
}

}  // namespace mabutrace::cli
