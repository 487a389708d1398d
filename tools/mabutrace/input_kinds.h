// SPDX-License-Identifier: MIT
// input_kinds.h: the kinds of input a trace can come from besides the
// runtime's own (a stream, a RAM dump, a .json/.pftrace: ReadTrace in
// convert.h), each turned into trace-model events in one place.
//
// A decoder's command registers its kind at static-init time, in its own
// cmd_*.cpp (so a build without that decoder has no such kind):
//
//   static InputKindRegistration kind{{"itm", "ITM/DWT: a snapshot's ITM sources or raw SWO",
//                                      30, &ClaimsItm, &ReadItm}};
//
// The same entry serves the kind's `export` command (it opens the output
// writer in `open`) and `mabutrace merge` (it opens the merge's input
// remapper), so what an export shows and what a merge shows are one code
// path. `read` follows ReadTrace's contract: it calls open() once the input
// is known usable, at most once, feeds the sink and calls its Finish();
// problems go to stderr prefixed with the input's name and, where there is
// one, the byte offset; rc 1 when the input had problems.
#ifndef MABUTRACE_TOOLS_INPUT_KINDS_H
#define MABUTRACE_TOOLS_INPUT_KINDS_H

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "convert.h"

namespace mabutrace::cli {

struct InputKind {
  const char* name;  // "arm", "itm", "cptracer": what --kind NAME=KIND says
  const char* what;  // one line for --help
  int priority;      // DetectInputKind asks lower first
  // Whether `path` is evidently this kind (a snapshot directory with such
  // trace sources, a file extension of its own). Never throws.
  bool (*claims)(const std::filesystem::path& path);
  // Reads `path` into the sink open() gives. `elf`: an ELF for names
  // ("" = none; the kind says what it means, FILE[@ADDR] for arm).
  ReadResult (*read)(const std::string& path, const std::string& elf, const SinkOpener& open);
};

struct InputKindRegistration {
  explicit InputKindRegistration(InputKind kind);
};

// Every registered kind, by priority.
std::vector<InputKind> InputKinds();
// The kind named `name`, or nullptr.
const InputKind* FindInputKind(std::string_view name);
// The first kind (by priority) that claims `path`, or nullptr: a trace
// ReadTrace reads (stream, dump, .json, .pftrace).
const InputKind* DetectInputKind(const std::filesystem::path& path);
// "arm, itm, cptracer" (for messages and --help).
std::string InputKindNames();

// An `export` command's whole run: `format` (or OUT's extension) must be
// json or pftrace (else a usage error naming `who`), `read` gets a sink
// opener that creates OUT.tmp and its writer only when the input is known
// good, then it is finished and renamed to OUT; a bad input, a failed
// write or a reader that gives up after opening leaves no OUT (one from
// before stays). The exit code.
int ExportTo(const char* who, const std::string& format, const std::string& out,
             const std::function<ReadResult(const SinkOpener&)>& read);

// True unless `path` is a directory (which only a kind reads): then false
// after a message saying what it lacks (snapshot.ini, or a source of a kind
// this build reads).
bool NotADirectory(const std::string& path);

// Reads `path` ("-": stdin, always a trace) as `kind` ("" = detected,
// "trace" = ReadTrace's, else a registered kind's name) into the sink
// open() gives. `elf` as the kind takes it (a raw dump's firmware, an arm
// input's FILE[@ADDR], an itm input's handler names). An unknown kind name
// is a usage error (rc 2, after a message).
ReadResult ReadAnyInput(const std::string& path, const std::string& kind, const std::string& elf,
                        const SinkOpener& open);

}  // namespace mabutrace::cli

#endif  // MABUTRACE_TOOLS_INPUT_KINDS_H
