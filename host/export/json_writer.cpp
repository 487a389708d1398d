// json_writer.cpp: see json_writer.h.
#include "json_writer.h"

#include "format/chrome_colors.h"
#include "format/json_out.h"

namespace mabutrace::exporter {
namespace {

constexpr char kCategory[] = "mabutrace";

int WriteThunk(void* user, const char* data, size_t len) {
  return (*static_cast<WriteFn*>(user))(data, len) ? 0 : 1;
}

}  // namespace

JsonWriter::JsonWriter(WriteFn write) : write_(std::move(write)), buf_(64 * 1024) {
  out_ = std::make_unique<JsonOut>(buf_.data(), uint32_t(buf_.size()), &WriteThunk, &write_);
  out_->Raw("{\"traceEvents\":[\n");
}

JsonWriter::~JsonWriter() = default;

void JsonWriter::Str(std::string_view s) {
  // JsonOut::String stops at a NUL: an embedded NUL ends the name, as on the device.
  scratch_.assign(s);
  out_->String(scratch_.c_str());
}

void JsonWriter::Sep() {
  if (!first_) out_->Raw(",\n");
  first_ = false;
}

void JsonWriter::Ids(model::Track t) {
  out_->Raw(",\"pid\":");
  out_->U64(t.pid);
  out_->Raw(",\"tid\":");
  out_->U64(t.tid);
}

void JsonWriter::OnProcess(uint32_t pid, std::string_view name) {
  if (name.empty()) return;  // the viewer shows "Process N" by itself
  Sep();
  out_->Raw("{\"ph\":\"M\",\"name\":\"process_name\"");
  Ids({pid, pid});
  out_->Raw(",\"args\":{\"name\":");
  Str(name);
  out_->Raw("}}");
}

void JsonWriter::OnThread(model::Track t, std::string_view name) {
  Sep();
  out_->Raw("{\"ph\":\"M\",\"name\":\"thread_name\"");
  Ids(t);
  out_->Raw(",\"args\":{\"name\":");
  if (!name.empty()) {
    Str(name);
  } else {
    out_->Raw("\"thread ");
    out_->U64(t.tid);
    out_->Char('"');
  }
  out_->Raw("}}");
}

// `{"ph":..,"name":..,"cat":..,"pid":..,"tid":..,"ts":..` (object left open).
void JsonWriter::Head(model::Track t, char ph, std::string_view name, uint64_t ns) {
  Sep();
  out_->Raw("{\"ph\":\"");
  out_->Char(ph);
  out_->Raw("\",\"name\":");
  Str(name);
  out_->Raw(",\"cat\":\"");
  out_->Raw(kCategory);
  out_->Char('"');
  Ids(t);
  out_->Raw(",\"ts\":");
  out_->Micros(ns);
}

void JsonWriter::Event(model::Track t, char ph, std::string_view name, uint64_t ns, uint32_t cpu,
                       uint32_t color) {
  Head(t, ph, name, ns);
  if (color) {
    out_->Raw(",\"cname\":\"");
    out_->Raw(NearestReservedColor(color & 0xFFFFFF));
    out_->Char('"');
  }
  out_->Raw(",\"args\":{\"cpu\":");
  out_->U64(cpu);
  if (color) {
    out_->Raw(",\"color\":\"");
    out_->Hex6(color & 0xFFFFFF);
    out_->Char('"');
  }
  out_->Char('}');
}

void JsonWriter::OnBegin(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu,
                         uint32_t color) {
  Event(t, 'B', name, ns, cpu, color);
  out_->Char('}');
}

void JsonWriter::OnEnd(model::Track t, std::string_view name, uint64_t ns, std::string_view flag) {
  Head(t, 'E', name, ns);
  if (!flag.empty()) {
    out_->Raw(",\"args\":{");
    Str(flag);
    out_->Raw(":true}");
  }
  out_->Char('}');
}

void JsonWriter::OnInstant(model::Track t, std::string_view name, uint64_t ns, uint32_t cpu,
                           uint32_t color) {
  Event(t, 'i', name, ns, cpu, color);
  out_->Raw(",\"s\":\"t\"}");
}

// Counter args hold only the series (trace-formats.md §1.3).
void JsonWriter::OnCounter(model::Track t, std::string_view name, uint64_t ns, int64_t value) {
  Sep();
  out_->Raw("{\"ph\":\"C\",\"name\":");
  Str(name);
  Ids(t);
  out_->Raw(",\"ts\":");
  out_->Micros(ns);
  out_->Raw(",\"args\":{\"value\":");
  out_->I64(value);
  out_->Raw("}}");
}

// Same name and cat on both ends, numeric id, f bound to the enclosing
// slice (trace-formats.md §1.5).
void JsonWriter::OnFlow(model::Track t, bool start, uint64_t id, uint64_t ns) {
  Sep();
  out_->Raw(start ? "{\"ph\":\"s\"" : "{\"ph\":\"f\"");
  out_->Raw(",\"name\":\"flow\",\"cat\":\"mabutrace.flow\",\"id\":");
  out_->U64(id);
  Ids(t);
  out_->Raw(",\"ts\":");
  out_->Micros(ns);
  out_->Raw(start ? "}" : ",\"bp\":\"e\"}");
}

void JsonWriter::OnMetadata(std::string_view key, int64_t value) {
  meta_.emplace_back(std::string(key), std::to_string(value));
}

void JsonWriter::OnMetadata(std::string_view key, std::string_view value) {
  // Encode now through a throwaway JsonOut so the escaping rules are the same.
  std::string enc;
  char tmp[256];
  WriteFn append = [&enc](const char* d, size_t n) {
    enc.append(d, n);
    return true;
  };
  JsonOut o(tmp, sizeof tmp, &WriteThunk, &append);
  scratch_.assign(value);
  o.String(scratch_.c_str());
  o.Flush();
  meta_.emplace_back(std::string(key), std::move(enc));
}

bool JsonWriter::Finish() {
  if (finished_) return !out_->failed();
  finished_ = true;
  out_->Raw("\n],\"displayTimeUnit\":\"ns\",\"metadata\":{\"producer\":\"mabutrace\",\"format_version\":1");
  for (const auto& [k, v] : meta_) {
    out_->Char(',');
    Str(k);
    out_->Char(':');
    out_->Raw(v.data(), v.size());
  }
  out_->Raw("}}\n");
  out_->Flush();
  return !out_->failed();
}

}  // namespace mabutrace::exporter
