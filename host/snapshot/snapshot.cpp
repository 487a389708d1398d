// SPDX-License-Identifier: MIT
// snapshot.cpp: CoreSight snapshot directory reader (see snapshot.h).
#include "snapshot/snapshot.h"

#include <ini.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace mabutrace::snapshot {
namespace {

constexpr char kColon = '\x01';  // stands for ':' in keys while inih parses

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// Removes surrounding double quotes (file paths may be quoted).
std::string Unquote(std::string_view s) {
  std::string t = Trim(s);
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
  return t;
}

bool IEquals(std::string_view a, std::string_view b) { return a.size() == b.size() && Lower(a) == Lower(b); }

// One key=value line of an .ini file.
struct IniEntry {
  std::string section;  // lower-case
  std::string key;      // as written (trimmed)
  std::string value;    // trimmed, text after ';'/'#' removed
};

struct IniFile {
  std::string path;
  std::vector<std::string> sections;  // lower-case, in file order (first appearance)
  std::vector<IniEntry> entries;
};

struct ParseContext {
  IniFile* file;
  std::string error;
};

int IniHandler(void* user, const char* section, const char* name, const char* value) {
  auto* ctx = static_cast<ParseContext*>(user);
  std::string sec = Lower(Trim(section ? section : ""));
  if (ctx->file->sections.empty() || ctx->file->sections.back() != sec) {
    if (std::find(ctx->file->sections.begin(), ctx->file->sections.end(), sec) == ctx->file->sections.end())
      ctx->file->sections.push_back(sec);
  }
  if (!name) return 1;  // section start notification (INI_CALL_HANDLER_ON_NEW_SECTION)
  std::string v = value ? value : "";
  // Strip comments and CRs that inih kept (inline comments need whitespace
  // before ';' in inih; §7.1 strips from any ';' or '#').
  size_t cut = v.find_first_of(";#\r");
  if (cut != std::string::npos) v.resize(cut);
  std::string key = Trim(name);
  std::replace(key.begin(), key.end(), kColon, ':');
  ctx->file->entries.push_back({sec, key, Trim(v)});
  return 1;
}

IniFile ParseIni(const std::filesystem::path& path) {
  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw SnapshotError(path.string(), "", std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  // inih treats '\r' as part of values on some builds; drop them up front.
  text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
  // inih splits keys at ':' as well as '='; snapshot keys contain ':'
  // ("PC(size:64)"), so hide ':' before the first '=' of each line and
  // restore it in the handler.
  {
    bool in_key = true;
    for (char& c : text) {
      if (c == '\n')
        in_key = true;
      else if (c == '=')
        in_key = false;
      else if (c == ':' && in_key)
        c = kColon;
    }
  }
  IniFile file;
  file.path = path.string();
  ParseContext ctx{&file, {}};
  int rc = ini_parse_string(text.c_str(), IniHandler, &ctx);
  if (rc > 0) throw SnapshotError(file.path, "", "syntax error on line " + std::to_string(rc));
  if (rc < 0) throw SnapshotError(file.path, "", "cannot parse");
  return file;
}

std::string KeyName(const IniEntry& e) { return "[" + e.section + "] " + e.key; }

// Entries of one section, in order.
std::vector<const IniEntry*> Section(const IniFile& f, std::string_view sec) {
  std::vector<const IniEntry*> out;
  std::string s = Lower(sec);
  for (const auto& e : f.entries)
    if (e.section == s) out.push_back(&e);
  return out;
}

bool HasSection(const IniFile& f, std::string_view sec) {
  std::string s = Lower(sec);
  return std::find(f.sections.begin(), f.sections.end(), s) != f.sections.end();
}

// Single-valued key lookup; duplicate keys are an error.
const IniEntry* Find(const IniFile& f, std::string_view sec, std::string_view key) {
  const IniEntry* found = nullptr;
  for (const auto* e : Section(f, sec)) {
    if (IEquals(e->key, key)) {
      if (found) throw SnapshotError(f.path, KeyName(*e), "duplicate key");
      found = e;
    }
  }
  return found;
}

const IniEntry& Require(const IniFile& f, std::string_view sec, std::string_view key) {
  const IniEntry* e = Find(f, sec, key);
  if (!e) throw SnapshotError(f.path, "[" + Lower(sec) + "] " + std::string(key), "missing");
  return *e;
}

uint64_t NumberOf(const IniFile& f, const IniEntry& e) {
  auto v = ParseUnsigned(e.value);
  if (!v) throw SnapshotError(f.path, KeyName(e), "bad number '" + e.value + "'");
  return *v;
}

std::vector<std::string> SplitList(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!Trim(cur).empty()) out.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!Trim(cur).empty()) out.push_back(Trim(cur));
  return out;
}

}  // namespace

SnapshotError::SnapshotError(std::string file, std::string key, const std::string& message)
    : std::runtime_error(file + ": " + (key.empty() ? "" : key + ": ") + message),
      file_(std::move(file)),
      key_(std::move(key)),
      message_(message) {}

std::optional<uint64_t> ParseUnsigned(std::string_view text) {
  std::string t = Trim(text);
  if (t.empty()) return std::nullopt;
  int base = 10;
  size_t pos = 0;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    pos = 2;
  } else if (t.size() > 1 && t[0] == '0') {
    base = 8;
    pos = 1;
  }
  uint64_t v = 0;
  for (; pos < t.size(); ++pos) {
    int d;
    char c = t[pos];
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    if (d >= base) return std::nullopt;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) return std::nullopt;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return v;
}

const char* BufferFormatName(BufferFormat format) {
  switch (format) {
    case BufferFormat::kSourceData: return "source_data";
    case BufferFormat::kCoresight: return "coresight";
    case BufferFormat::kDstreamCoresight: return "dstream_coresight";
  }
  return "?";
}

std::optional<uint64_t> Device::Reg(std::string_view name) const {
  std::string key = Upper(name);
  auto paren = key.find('(');
  if (paren != std::string::npos) key = Trim(key.substr(0, paren));
  auto it = regs.find(key);
  if (it == regs.end()) return std::nullopt;
  return it->second;
}

uint64_t Device::RegOr(std::string_view name, uint64_t fallback) const {
  auto v = Reg(name);
  return v ? *v : fallback;
}

uint32_t Device::RequireReg(std::string_view name, uint32_t valid_bits) const {
  if (!Reg(name)) throw SnapshotError(ini_file.string(), "[regs] " + std::string(name), "missing register");
  return Reg32Or(name, 0, valid_bits);
}

uint32_t Device::Reg32Or(std::string_view name, uint32_t fallback, uint32_t valid_bits) const {
  const std::optional<uint64_t> v = Reg(name);
  if (!v) return fallback;
  if (*v & ~static_cast<uint64_t>(valid_bits)) {
    char text[64];
    std::snprintf(text, sizeof text, "0x%" PRIx64 " sets bits outside 0x%" PRIx32, *v, valid_bits);
    throw SnapshotError(ini_file.string(), "[regs] " + std::string(name), text);
  }
  return static_cast<uint32_t>(*v);
}

Device ReadDeviceIni(const std::filesystem::path& ini_file) {
  IniFile f = ParseIni(ini_file);
  Device d;
  d.ini_file = ini_file;
  if (!HasSection(f, "device")) throw SnapshotError(f.path, "[device]", "missing section");
  d.name = Require(f, "device", "name").value;
  if (d.name.empty()) throw SnapshotError(f.path, "[device] name", "empty");
  if (const auto* e = Find(f, "device", "class")) d.device_class = e->value;
  if (const auto* e = Find(f, "device", "type")) d.type = e->value;
  for (const auto* e : Section(f, "regs")) {
    std::string name = Upper(e->key);
    auto paren = name.find('(');
    if (paren != std::string::npos) name = Trim(name.substr(0, paren));
    if (name.empty()) throw SnapshotError(f.path, KeyName(*e), "empty register name");
    if (d.regs.count(name)) throw SnapshotError(f.path, KeyName(*e), "duplicate register");
    d.regs[name] = NumberOf(f, *e);
  }
  const std::filesystem::path base = ini_file.parent_path();
  for (const auto& sec : f.sections) {
    if (sec.rfind("dump", 0) != 0) continue;
    MemoryDump m;
    m.section = sec;
    m.file = base / Unquote(Require(f, sec, "file").value);
    m.address = NumberOf(f, Require(f, sec, "address"));
    if (const auto* e = Find(f, sec, "length")) m.length = NumberOf(f, *e);
    if (const auto* e = Find(f, sec, "offset")) m.offset = NumberOf(f, *e);
    if (const auto* e = Find(f, sec, "space")) m.space = e->value;
    d.dumps.push_back(std::move(m));
  }
  return d;
}

Snapshot ReadSnapshot(const std::filesystem::path& dir) {
  Snapshot s;
  s.dir = dir;
  const std::filesystem::path snap_ini = dir / "snapshot.ini";
  IniFile f = ParseIni(snap_ini);
  const IniEntry& ver = Require(f, "snapshot", "version");
  if (ver.value != "1.0" && ver.value != "1")
    throw SnapshotError(f.path, KeyName(ver), "unsupported version '" + ver.value + "'");
  s.version = ver.value;
  if (const auto* e = Find(f, "snapshot", "description")) s.description = e->value;
  std::set<std::string> names;
  for (const auto* e : Section(f, "device_list")) {
    Device d = ReadDeviceIni(dir / Unquote(e->value));
    if (!names.insert(d.name).second)
      throw SnapshotError(d.ini_file.string(), "[device] name", "duplicate device name '" + d.name + "'");
    s.devices.push_back(std::move(d));
  }
  const IniEntry* meta = Find(f, "trace", "metadata");
  if (!meta) return s;  // a snapshot without trace data (memory only)
  const std::filesystem::path trace_ini = dir / Unquote(meta->value);
  IniFile t = ParseIni(trace_ini);
  const IniEntry& list = Require(t, "trace_buffers", "buffers");
  std::vector<std::string> listed = SplitList(list.value);
  for (const auto& b : listed)
    if (!HasSection(t, b)) throw SnapshotError(t.path, KeyName(list), "no section [" + b + "]");
  // Buffers in file section order (the order OpenCSD's reader keeps).
  for (const auto& sec : t.sections) {
    bool is_listed = std::any_of(listed.begin(), listed.end(), [&](const std::string& b) { return Lower(b) == sec; });
    if (!is_listed) continue;
    TraceBuffer b;
    b.section = sec;
    b.name = Require(t, sec, "name").value;
    b.file = dir / Unquote(Require(t, sec, "file").value);
    const IniEntry& fmt = Require(t, sec, "format");
    if (IEquals(fmt.value, "source_data"))
      b.format = BufferFormat::kSourceData;
    else if (IEquals(fmt.value, "coresight"))
      b.format = BufferFormat::kCoresight;
    else if (IEquals(fmt.value, "dstream_coresight"))
      b.format = BufferFormat::kDstreamCoresight;
    else
      throw SnapshotError(t.path, KeyName(fmt), "unknown format '" + fmt.value + "'");
    s.buffers.push_back(std::move(b));
  }
  for (const auto* e : Section(t, "source_buffers")) {
    if (!s.FindBuffer(e->value)) throw SnapshotError(t.path, KeyName(*e), "unknown buffer '" + e->value + "'");
    s.source_buffers.emplace_back(e->key, e->value);
  }
  for (const auto* e : Section(t, "core_trace_sources")) s.core_sources.emplace_back(e->key, e->value);
  if (const IniEntry* hz = Find(t, "timestamp", "frequency")) {
    s.timestamp_frequency = NumberOf(t, *hz);
    s.timestamp_frequency_source = t.path + " " + KeyName(*hz);
  }
  return s;
}

std::optional<Snapshot> TryReadSnapshot(const std::filesystem::path& dir, std::string* error) {
  try {
    return ReadSnapshot(dir);
  } catch (const std::exception& e) {  // SnapshotError, and std::filesystem / bad_alloc from reading
    *error = e.what();
    return std::nullopt;
  }
}

const Device* Snapshot::FindDevice(std::string_view name) const {
  for (const auto& d : devices)
    if (d.name == name) return &d;
  return nullptr;
}

const TraceBuffer* Snapshot::FindBuffer(std::string_view name) const {
  for (const auto& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

const TraceBuffer* Snapshot::BufferOfSource(std::string_view source) const {
  for (const auto& [src, buf] : source_buffers)
    if (src == source) return FindBuffer(buf);
  return nullptr;
}

std::vector<const Device*> Snapshot::SourcesOfBuffer(std::string_view buffer_name) const {
  std::vector<const Device*> out;
  for (const auto& [src, buf] : source_buffers)
    if (buf == buffer_name)
      if (const Device* d = FindDevice(src)) out.push_back(d);
  return out;
}

const Device* Snapshot::CoreOfSource(std::string_view source) const {
  for (const auto& [core, src] : core_sources)
    if (src == source) return FindDevice(core);
  return nullptr;
}

std::vector<uint8_t> ReadBinaryFile(const std::filesystem::path& file) {
  // A directory opens as a stream whose end lies at a huge offset: say so
  // here instead of trying to allocate that much.
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw SnapshotError(file.string(), "", std::strerror(EISDIR));
  // A pipe, FIFO or device has no size, and its callers may read it twice
  // (opening a FIFO would even wait for a writer).
  if (std::filesystem::exists(file, ec) && !std::filesystem::is_regular_file(file, ec))
    throw SnapshotError(file.string(), "", "not a regular file (a pipe, FIFO or device): save the trace to a file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SnapshotError(file.string(), "", std::string("cannot open: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) throw SnapshotError(file.string(), "", "cannot determine size");
  in.seekg(0, std::ios::beg);
  std::vector<uint8_t> data(static_cast<size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(data.data()), size))
    throw SnapshotError(file.string(), "", "read error");
  return data;
}

std::vector<uint8_t> ReadDump(const MemoryDump& dump) {
  std::vector<uint8_t> all = ReadBinaryFile(dump.file);
  if (dump.offset > all.size())
    throw SnapshotError(dump.file.string(), "[" + dump.section + "] offset",
                        "offset " + std::to_string(dump.offset) + " beyond file size " + std::to_string(all.size()));
  uint64_t len = dump.length ? dump.length : all.size() - dump.offset;
  if (len > all.size() - dump.offset)
    throw SnapshotError(dump.file.string(), "[" + dump.section + "] length",
                        "file has only " + std::to_string(all.size() - dump.offset) +
                            " bytes after offset, length is " + std::to_string(len));
  return std::vector<uint8_t>(all.begin() + static_cast<std::ptrdiff_t>(dump.offset),
                              all.begin() + static_cast<std::ptrdiff_t>(dump.offset + len));
}

}  // namespace mabutrace::snapshot
