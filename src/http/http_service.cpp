// SPDX-License-Identifier: MIT
// http_service.cpp: the route table, statuses and header fields behind
// Answer(), and the bodies (http_service.h).
#include "http_service.h"

#include <string.h>

#include "capture_page.h"
#include "host_check.h"

namespace mabutrace {
namespace http {
namespace {

template <typename T, size_t N>
constexpr size_t CountOf(const T (&)[N]) {
  return N;
}

// ---- Header fields ------------------------------------------------------------
// On every response: a browser must not guess a type other than the one we
// name (a trace rendered as HTML would run its strings as script), and our
// URLs are nobody's business when the page links elsewhere.
const Header kNoSniff = {"X-Content-Type-Options", "nosniff"};
const Header kNoReferrer = {"Referrer-Policy", "no-referrer"};
// A trace or page is a snapshot of now: no cache may answer with an older
// one (RFC 9111 §5.2.2.5).
const Header kNoStore = {"Cache-Control", "no-store"};
// The page fetches nothing from anywhere but us and may not be framed
// (capture_page.h: inline script and style only).
const Header kPagePolicy = {"Content-Security-Policy",
                            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                            "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
                            "frame-ancestors 'none'"};
const Header kSaveAsPftrace = {"Content-Disposition", "attachment; filename=\"trace.pftrace\""};
// Every route serves GET and HEAD only; a 405 must say so (RFC 9110 §15.5.6).
const Header kAllow = {"Allow", "GET, HEAD"};
// Range is ignored, so no response may advertise ranges (RFC 9110 §14.3;
// cpp-httplib would otherwise add "bytes" to the answer to HEAD).
const Header kNoRanges = {"Accept-Ranges", "none"};

const Header kPageHeaders[] = {kNoStore, kPagePolicy, kNoSniff, kNoReferrer, kNoRanges};
const Header kJsonHeaders[] = {kNoStore, kNoSniff, kNoReferrer, kNoRanges};
const Header kPftraceHeaders[] = {kNoStore, kSaveAsPftrace, kNoSniff, kNoReferrer, kNoRanges};
const Header kErrorHeaders[] = {kNoSniff, kNoReferrer, kNoRanges};
const Header kNotAllowedHeaders[] = {kAllow, kNoSniff, kNoReferrer, kNoRanges};

// ---- Routes ---------------------------------------------------------------------
// path -> what GET and HEAD get. Only these paths exist: nothing is read
// from a file system, so there is no directory to escape from.
struct Route {
  const char* path;
  const char* content_type;
  const Header* headers;
  size_t header_count;
  Text page;          // a fixed body, or
  Exporter exporter;  // a streamed export
};

const Route kRoutes[] = {
    {"/",
     "text/html; charset=utf-8",
     kPageHeaders,
     CountOf(kPageHeaders),
     {kCapturePage, sizeof kCapturePage - 1},
     nullptr},
    {"/trace", "application/json", kJsonHeaders, CountOf(kJsonHeaders), {nullptr, 0}, mabutrace_export_json},
    {"/trace.json", "application/json", kJsonHeaders, CountOf(kJsonHeaders), {nullptr, 0}, mabutrace_export_json},
    {"/trace.pftrace",
     "application/octet-stream",
     kPftraceHeaders,
     CountOf(kPftraceHeaders),
     {nullptr, 0},
     mabutrace_export_perfetto},
};

// ---- Statuses -------------------------------------------------------------------
// Every status a port sends: the service's own and those of the transports'
// refusals (their HTTP libraries' parse errors). Reason phrases as RFC 9110
// §15 names them (431: RFC 6585 §5). An error's body is its status as text.
struct Status {
  uint16_t code;
  const char* text;  // "404 Not Found"
  const char* body;  // "404 Not Found\n"
};
#define MABUTRACE_HTTP_STATUS(code, reason) \
  { code, #code " " reason, #code " " reason "\n" }
const Status kStatuses[] = {
    MABUTRACE_HTTP_STATUS(200, "OK"),
    MABUTRACE_HTTP_STATUS(400, "Bad Request"),
    MABUTRACE_HTTP_STATUS(403, "Forbidden"),
    MABUTRACE_HTTP_STATUS(404, "Not Found"),
    MABUTRACE_HTTP_STATUS(405, "Method Not Allowed"),
    MABUTRACE_HTTP_STATUS(408, "Request Timeout"),
    MABUTRACE_HTTP_STATUS(413, "Content Too Large"),
    MABUTRACE_HTTP_STATUS(414, "URI Too Long"),
    MABUTRACE_HTTP_STATUS(416, "Range Not Satisfiable"),
    MABUTRACE_HTTP_STATUS(431, "Request Header Fields Too Large"),
    MABUTRACE_HTTP_STATUS(500, "Internal Server Error"),
    MABUTRACE_HTTP_STATUS(501, "Not Implemented"),
    MABUTRACE_HTTP_STATUS(503, "Service Unavailable"),
    MABUTRACE_HTTP_STATUS(505, "HTTP Version Not Supported"),
};
#undef MABUTRACE_HTTP_STATUS

const Status& FindStatus(uint16_t code) {
  const Status* internal_error = nullptr;
  for (const Status& s : kStatuses) {
    if (s.code == code) return s;
    if (s.code == 500) internal_error = &s;
  }
  return *internal_error;
}

bool Equal(Text a, const char* b) {
  const size_t n = strlen(b);
  return a.size == n && (n == 0 || memcmp(a.data, b, n) == 0);
}

// The path of an origin-form target: up to the query (RFC 3986 §3.4).
Text PathOf(Text target) {
  const void* query = target.size ? memchr(target.data, '?', target.size) : nullptr;
  if (query) target.size = size_t(static_cast<const char*>(query) - target.data);
  return target;
}

const Route* FindRoute(Text path) {
  for (const Route& r : kRoutes) {
    if (Equal(path, r.path)) return &r;
  }
  return nullptr;
}

Response Error(uint16_t code, const Header* headers, size_t header_count, Method method) {
  const Status& s = FindStatus(code);
  Response r{};
  r.status = s.code;
  r.status_text = s.text;
  r.content_type = "text/plain; charset=utf-8";
  r.headers = headers;
  r.header_count = header_count;
  r.framing = Framing::kLength;
  r.body = Text{s.body, strlen(s.body)};
  r.send_body = method != Method::kHead;
  return r;
}

Response Serve(const Route& route, Method method, Version version) {
  Response r{};
  r.status = 200;
  r.status_text = FindStatus(200).text;
  r.content_type = route.content_type;
  r.headers = route.headers;
  r.header_count = route.header_count;
  r.framing = !route.exporter ? Framing::kLength : version == Version::kHttp10 ? Framing::kClose : Framing::kChunked;
  r.body = route.page;
  r.exporter = route.exporter;
  r.send_body = method != Method::kHead;
  return r;
}

// ---- Writing ----------------------------------------------------------------------
// The transport's write behind WriteBody: empty pieces never reach it.
struct Sink {
  mabutrace_write_fn write;
  void* user;
};

int WriteNonEmpty(void* user, const char* data, size_t len) {
  const Sink* sink = static_cast<const Sink*>(user);
  return len == 0 ? 0 : sink->write(sink->user, data, len);
}

// Appends to a fixed buffer; remembers whether anything did not fit.
class HeadWriter {
 public:
  HeadWriter(char* out, size_t cap) : out_(out), cap_(cap) {}

  void Add(const char* s) {
    const size_t n = strlen(s);
    if (n > cap_ - len_) {
      full_ = true;
      return;
    }
    memcpy(out_ + len_, s, n);
    len_ += n;
  }
  void AddNumber(size_t v) {
    char text[24];
    char* p = text + sizeof text;
    *--p = '\0';
    do {
      *--p = char('0' + v % 10);
      v /= 10;
    } while (v);
    Add(p);
  }
  void Field(const char* name, const char* value) {
    Add(name);
    Add(": ");
    Add(value);
    Add("\r\n");
  }
  size_t Finish() const { return full_ ? 0 : len_; }

 private:
  char* out_;
  size_t cap_;
  size_t len_ = 0;
  bool full_ = false;
};

}  // namespace

Method MethodFromToken(Text token) {
  if (Equal(token, "GET")) return Method::kGet;
  if (Equal(token, "HEAD")) return Method::kHead;
  return Method::kOther;
}

Response Answer(const Request& request, HostPolicy policy) {
  if (policy == HostPolicy::kLoopbackNames && !HostIsLoopbackName(request.host.data, request.host.size)) {
    return Error(403, kErrorHeaders, CountOf(kErrorHeaders), request.method);
  }
  const Route* route = FindRoute(PathOf(request.target));
  if (!route) return Error(404, kErrorHeaders, CountOf(kErrorHeaders), request.method);
  if (request.method == Method::kOther) {
    return Error(405, kNotAllowedHeaders, CountOf(kNotAllowedHeaders), request.method);
  }
  if (route->exporter && !mabutrace_is_initialized()) {
    return Error(503, kErrorHeaders, CountOf(kErrorHeaders), request.method);
  }
  return Serve(*route, request.method, request.version);
}

Response ErrorResponse(uint16_t status) {
  if (status < 400) status = 500;  // not an error: the transport is confused
  return Error(status, kErrorHeaders, CountOf(kErrorHeaders), Method::kOther);
}

int WriteBody(const Response& response, mabutrace_write_fn write, void* user) {
  Sink sink{write, user};
  if (response.exporter) return response.exporter(&WriteNonEmpty, &sink);
  return WriteNonEmpty(&sink, response.body.data, response.body.size) == 0 ? MABUTRACE_OK : MABUTRACE_ERR_IO;
}

size_t FormatHead(const Response& response, bool close, char* out, size_t cap) {
  HeadWriter head(out, cap);
  head.Add("HTTP/1.1 ");
  head.Add(response.status_text);
  head.Add("\r\n");
  head.Field("Content-Type", response.content_type);
  if (response.framing == Framing::kChunked) {
    head.Field("Transfer-Encoding", "chunked");
  } else if (response.framing == Framing::kLength) {
    head.Add("Content-Length: ");  // the same for HEAD (RFC 9110 §8.6)
    head.AddNumber(response.body.size);
    head.Add("\r\n");
  }
  for (size_t i = 0; i < response.header_count; ++i) {
    head.Field(response.headers[i].name, response.headers[i].value);
  }
  if (close || response.framing == Framing::kClose) head.Field("Connection", "close");
  head.Add("\r\n");
  return head.Finish();
}

}  // namespace http
}  // namespace mabutrace
