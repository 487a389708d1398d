// SPDX-License-Identifier: MIT
// http_service.h: what mabutrace's built-in HTTP server answers (R-C4),
// whichever HTTP library carries it. Routes, limits and security notes:
// docs/http-server.md.
//
// This module owns the protocol: the route table (path and method -> what
// is served), content types, response header fields, the Host policy
// (host_check.h), status codes and reasons, the capture page
// (capture_page.h) and the production of every body. A port keeps only the
// transport (src/port/host/http_server.cpp on cpp-httplib,
// src/port/freertos/http_server_esp.cpp on esp_http_server):
//
//   1. read a request and put its method, request-target and Host field in
//      a Request;
//   2. ask Answer() what to send;
//   3. send the Response as it stands: its status, Content-Type, the framing
//      field Response::framing names, every field of Response::headers and,
//      unless send_body is false (the answer to HEAD), the body WriteBody()
//      produces. The transport adds only what belongs to its connection
//      (Connection, Keep-Alive). A request it could not parse or bound gets
//      ErrorResponse(status).
//
// FormatHead() writes the head of step 3 as bytes, for a transport whose
// library has no call that sends it (esp_http_server cannot send the head
// of a chunked response without a body; the host port answers refusals
// before cpp-httplib has a request).
//
// Bodies are produced on this side of the interface, never in a port, so
// that how they are produced (e.g. copied out of the ring under a short
// lock and sent without it) or framed (e.g. close-delimited for an HTTP/1.0
// client) changes once for every port.
//
// Device-safe: no heap, no exceptions, no RTTI, C++11 and later (the Arduino
// Due build compiles it as gnu++11 and as gnu++17). Everything a Response
// points to is static storage, so a Response may be copied and kept for as
// long as the transport likes. Every function may run on any thread, any
// number at once.
#ifndef MABUTRACE_HTTP_HTTP_SERVICE_H
#define MABUTRACE_HTTP_HTTP_SERVICE_H

#include <stddef.h>
#include <stdint.h>

#include "mabutrace/mabutrace.h"

namespace mabutrace {
namespace http {

// Bytes that need not end in NUL; data may be NULL when size is 0.
struct Text {
  const char* data;
  size_t size;
};

// The methods the service tells apart. Method tokens are case-sensitive
// (RFC 9110 §9.1); every other token is kOther and gets 405.
enum class Method : uint8_t { kGet, kHead, kOther };
Method MethodFromToken(Text token);

// Whether Answer() applies the Host check of host_check.h. A port asks for
// it when its server listens on loopback only.
enum class HostPolicy : uint8_t { kAnyName, kLoopbackNames };

// The HTTP-version of the request line (RFC 9112 §2.3). A transport that
// cannot tell (esp_http_server does not say) leaves kHttp11.
enum class Version : uint8_t { kHttp11, kHttp10 };

struct Request {
  Method method;
  Text target;      // the request-target as received: path ["?" query]
  Text host;        // the Host field value, size 0 if absent; read only
                    // under HostPolicy::kLoopbackNames
  Version version;  // HTTP/1.0 gets no chunked body (kClose)
};

// A response header field; both strings are static.
struct Header {
  const char* name;
  const char* value;
};

// How the body is delimited on the wire (RFC 9112 §6.3).
enum class Framing : uint8_t {
  kLength,   // Content-Length: body.size (RFC 9110 §8.6); bytes in `body`
  kChunked,  // Transfer-Encoding: chunked (RFC 9112 §7.1); an export of
             // unknown length, which `exporter` writes
  kClose,    // neither field: the body ends when the transport closes the
             // connection (RFC 9112 §6.3 rule 8). An export answered to an
             // HTTP/1.0 request, which must not get a transfer coding
             // (RFC 9112 §6.1); `exporter` writes it. The head says
             // Connection: close.
};

// The export a streamed body runs: mabutrace_export_json or _perfetto.
typedef int (*Exporter)(mabutrace_write_fn write, void* user);

struct Response {
  uint16_t status;          // e.g. 404
  const char* status_text;  // "404 Not Found": status-code SP reason-phrase
                            // (RFC 9112 §4), as esp_http_server wants it
  const char* content_type;
  const Header* headers;  // every field besides Content-Type and framing
  size_t header_count;
  Framing framing;
  Text body;          // kLength
  Exporter exporter;  // kChunked
  bool send_body;     // false in the answer to HEAD (RFC 9110 §9.3.2): the
                      // same head as for GET, no body
};

// What to answer `request`, decided in this order:
//   403  `policy` is kLoopbackNames and the Host field fails host_check.h;
//   404  no route has the request's path (the target up to '?', compared
//        byte for byte: nothing is percent-decoded);
//   405  a method other than GET or HEAD, with Allow: GET, HEAD
//        (RFC 9110 §15.5.6);
//   503  an export before mabutrace_init() or after mabutrace_deinit();
//   200  the route's content: kLength for the page, kChunked for an export
//        (kClose when request.version is kHttp10).
// Range is never applied (RFC 9110 §14.2 lets a server ignore it): every
// answer says Accept-Ranges: none (RFC 9110 §14.3) and is the whole body.
Response Answer(const Request& request, HostPolicy policy);

// The answer to a request the transport refused itself (400, 408, 413,
// 414, 431, 500, ...): the status and a short text body that names it. A
// status this module does not know, or one below 400, is answered as 500.
Response ErrorResponse(uint16_t status);

// Counts a response the transport could not send whole (its time budget
// ran out, or the client went away): the runtime's count shows in the
// metadata of later exports (http_responses_cut, docs/format.md). Nothing
// when the runtime is not initialized. Thread-safe, no allocation.
// Defined with the runtime (src/runtime/response_count.cpp), which holds
// the count.
void CountCutResponse();

// Produces the body of `response`: calls write(user, data, len) with its
// bytes in order, in pieces of any size, never an empty one (both HTTP
// libraries read an empty piece as the end of a chunked body). Returns
// MABUTRACE_OK once the body is complete, else the error that ended it
// (MABUTRACE_ERR_IO when `write` returned non-zero, which stops the
// export at once).
int WriteBody(const Response& response, mabutrace_write_fn write, void* user);

// Writes the head of `response` into out[0 .. cap): the status line,
// Content-Type, Content-Length or Transfer-Encoding (neither for kClose),
// every header field, "Connection: close" if `close` or the framing is
// kClose, then the empty line (RFC 9112 §2.1).
// Returns its length, or 0 when it does not fit. kMaxHead fits every head
// this module answers.
size_t FormatHead(const Response& response, bool close, char* out, size_t cap);
constexpr size_t kMaxHead = 512;

}  // namespace http
}  // namespace mabutrace

#endif  // MABUTRACE_HTTP_HTTP_SERVICE_H
