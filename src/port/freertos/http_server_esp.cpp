// SPDX-License-Identifier: MIT
// http_server_esp.cpp: the HTTP server on ESP-IDF's esp_http_server (R-C4):
// the transport only. What is served (routes, header fields, statuses, the
// capture page, the bodies) is decided by src/http/http_service.h, the same
// as on the host (docs/http-server.md).
//
// esp_http_server routes by URI and method itself. Here it routes nothing:
// a URI matcher that accepts every URI sends each GET and HEAD to Serve(),
// every other method to its 405 error handler, which is Serve() too, and
// the requests its parser refuses (400, 408, 414, 431, 501, 505, ...) to
// Refuse(), which sends the service's answer for that status. Every
// response goes out through httpd_send() within a time budget (Send());
// bodies are streamed from the export workspace, no allocation per request.
// Not built here (no Espressif toolchain): docs/ports.md §5; tested against
// a fake esp_http_server (tests/port/freertos/http_test.cpp).
// ESP-IDF / Arduino-ESP32 only: the Arduino IDE and PlatformIO compile every
// source under src/ for whatever board they target (src/mabutrace_port_inline.h
// picks the port).
#if defined(ESP_PLATFORM) || defined(ARDUINO_ARCH_ESP32)

#include <string.h>

#include "esp_http_server.h"
#include "esp_timer.h"
#include "lwip/sockets.h"  // setsockopt, SO_SNDTIMEO (ESP-IDF's lwIP)
#include "mabutrace/mabutrace.h"
// Relative: Arduino builds have only src/ on the path.
#include "../../http/http_service.h"
#include "../../runtime/ring_buffer.h"

namespace {

using namespace mabutrace;

httpd_handle_t g_server = nullptr;
uint16_t g_port = 0;

// http_parser's method numbers (esp_http_server's req->method) as the
// service's methods.
http::Method MethodOf(int method) {
  if (method == HTTP_GET) return http::Method::kGet;
  if (method == HTTP_HEAD) return http::Method::kHead;
  return http::Method::kOther;
}

// A whole response must be sent within this, from its first byte: an
// export holds the runtime's export lock while it streams (the device has
// no RAM to hold a whole export, and may not allocate after init), so this
// is the bound on how long a slow but steady reader delays other exports
// and mabutrace_flush_output, and (esp_http_server serves one request at a
// time) other clients. Every send waits at most for what is left of it
// (SO_SNDTIMEO), so the bound holds with one send blocked too: the lock is
// held at most kResponseBudgetUs plus the time to render one piece. After
// it the connection is closed: the response is cut, and counted
// (docs/http-server.md).
constexpr int64_t kResponseBudgetUs = 5 * 1000 * 1000;
// Below this a send timeout cannot be set (a zero SO_SNDTIMEO means "wait
// for ever"): the budget counts as spent.
constexpr int64_t kMinSendWaitUs = 1000;

// One response on its way: raw bytes on the session's socket.
struct Sender {
  httpd_req_t* req;
  int fd;               // httpd_req_to_sockfd(req)
  int64_t deadline_us;  // esp_timer_get_time() at which the budget is spent
};

// Sends data[0 .. len) within the budget. False when the budget is spent or
// the client is gone (httpd_send's HTTPD_SOCK_ERR_*).
bool SendAll(Sender* s, const char* data, size_t len) {
  while (len > 0) {
    const int64_t left = s->deadline_us - esp_timer_get_time();
    if (left < kMinSendWaitUs) return false;
    // esp_http_server set the session's send_wait_timeout (5 s) when it
    // accepted it; lwIP's sockets take SO_SNDTIMEO as a struct timeval.
    timeval wait{};
    wait.tv_sec = time_t(left / 1000000);
    wait.tv_usec = suseconds_t(left % 1000000);
    if (setsockopt(s->fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait) != 0) return false;
    const int k = httpd_send(s->req, data, len);
    if (k <= 0) return false;
    data += k;
    len -= size_t(k);
  }
  return true;
}

int SendPiece(void* user, const char* data, size_t len) {
  return SendAll(static_cast<Sender*>(user), data, len) ? 0 : 1;  // non-zero stops the export
}

// Sends the service's answer as it stands, head and body, with httpd_send:
// esp_http_server's response calls would chunk every streamed body
// (httpd_resp_send_chunk) and do not tell the request's HTTP-version, and
// an HTTP/1.0 client must not get a chunked body (RFC 9112 §6.1). So an
// export is close-delimited (RFC 9112 §6.3 rule 8; valid for HTTP/1.1
// clients too) and its session closed after it (httpd_sess_trigger_close).
// `refusal`: the caller closes the connection itself (ESP_FAIL), so the
// head says Connection: close. ESP_FAIL (the connection is closed) when
// the response could not be sent whole: then it is counted as cut
// (http::CountCutResponse), and the client sees the connection end before
// Content-Length did or, for an export, a body that is not whole JSON or
// protobuf.
esp_err_t Send(httpd_req_t* req, const http::Response& answer, bool refusal) {
  const bool close = refusal || answer.framing == http::Framing::kClose;
  Sender sender{req, httpd_req_to_sockfd(req), esp_timer_get_time() + kResponseBudgetUs};
  char head[http::kMaxHead];
  const size_t n = http::FormatHead(answer, close, head, sizeof head);
  if (n == 0 || sender.fd < 0) return ESP_FAIL;
  bool whole = SendAll(&sender, head, n);
  if (whole && answer.send_body) {
    whole = answer.framing == http::Framing::kLength ? SendAll(&sender, answer.body.data, answer.body.size)
                                                     : http::WriteBody(answer, &SendPiece, &sender) == MABUTRACE_OK;
  }
  if (!whole) {
    http::CountCutResponse();
    return ESP_FAIL;
  }
  if (close && !refusal && httpd_sess_trigger_close(req->handle, sender.fd) != ESP_OK) return ESP_FAIL;
  return ESP_OK;
}

// Every request esp_http_server has parsed. No Host check: esp_http_server
// listens on every interface, and on a network address the names clients
// use cannot be known (host_check.h).
esp_err_t Serve(httpd_req_t* req) {
  // esp_http_server does not tell the request's HTTP-version: asked as
  // HTTP/1.0, the service frames every export by closing (kClose), which
  // both versions read.
  const http::Request request{
      MethodOf(req->method), {req->uri, strlen(req->uri)}, {nullptr, 0}, http::Version::kHttp10};
  return Send(req, http::Answer(request, http::HostPolicy::kAnyName), /*refusal=*/false);
}

// The refusals of esp_http_server's parser, and their statuses.
struct Refusal {
  httpd_err_code_t error;
  uint16_t status;
};
const Refusal kRefusals[] = {
    {HTTPD_400_BAD_REQUEST, 400},           {HTTPD_408_REQ_TIMEOUT, 408},
    {HTTPD_414_URI_TOO_LONG, 414},          {HTTPD_431_REQ_HDR_FIELDS_TOO_LARGE, 431},
    {HTTPD_500_INTERNAL_SERVER_ERROR, 500}, {HTTPD_501_METHOD_NOT_IMPLEMENTED, 501},
    {HTTPD_505_VERSION_NOT_SUPPORTED, 505},
};

// esp_http_server's error handler. A 405 here is a method without a
// handler on a URI that "matched": the service answers it like any other
// request. The others are requests it could not read; the connection is
// closed after the answer.
esp_err_t Refuse(httpd_req_t* req, httpd_err_code_t error) {
  if (error == HTTPD_405_METHOD_NOT_ALLOWED) return Serve(req);
  uint16_t status = 500;
  for (const Refusal& r : kRefusals) {
    if (r.error == error) status = r.status;
  }
  (void)Send(req, http::ErrorResponse(status), /*refusal=*/true);
  return ESP_FAIL;
}

// The service routes, not esp_http_server: every URI matches.
bool MatchEveryUri(const char*, const char*, size_t) { return true; }

esp_err_t Register(httpd_handle_t server) {
  static const httpd_uri_t kHandlers[] = {
      {"*", HTTP_GET, Serve, nullptr},
      {"*", HTTP_HEAD, Serve, nullptr},
  };
  for (const httpd_uri_t& h : kHandlers) {
    if (httpd_register_uri_handler(server, &h) != ESP_OK) return ESP_FAIL;
  }
  for (const Refusal& r : kRefusals) {
    if (httpd_register_err_handler(server, r.error, Refuse) != ESP_OK) return ESP_FAIL;
  }
  return httpd_register_err_handler(server, HTTPD_405_METHOD_NOT_ALLOWED, Refuse);
}

void StopAtDeinit() { mabutrace_stop_server(); }

}  // namespace

extern "C" {

int mabutrace_start_server(uint16_t port) {
  if (g_server) return MABUTRACE_ERR_ALREADY_RUNNING;
  if (!mabutrace_is_initialized()) return MABUTRACE_ERR_NOT_INITIALIZED;
  // Port 0 ("any free port" on the host) cannot be read back here: the
  // server would run while mabutrace_server_port() says 0 (= none), on a
  // control port of 1. 65535 would give control port 0. (Found by
  // tests/port/freertos http_test.cpp.)
  if (port == 0) return MABUTRACE_ERR_UNSUPPORTED;
  if (port == 65535) return MABUTRACE_ERR_INVALID_ARG;
  httpd_config_t config = HTTPD_DEFAULT_CONFIG();
  config.server_port = port;
  config.ctrl_port = uint16_t(port + 1);  // the default 32768 would clash with a second server
  config.lru_purge_enable = true;         // a stuck client cannot hold every socket
  config.max_uri_handlers = 2;            // GET and HEAD, on every URI
  config.uri_match_fn = MatchEveryUri;
  httpd_handle_t server = nullptr;
  if (httpd_start(&server, &config) != ESP_OK) return MABUTRACE_ERR_SERVER;
  if (Register(server) != ESP_OK) {
    httpd_stop(server);
    return MABUTRACE_ERR_SERVER;  // out of heap: esp_http_server copies each handler
  }
  g_server = server;
  g_port = port;
  mabutrace::SetDeinitHook(&StopAtDeinit);
  return MABUTRACE_OK;
}

// esp_http_server listens on every interface of the lwIP stack; it cannot
// bind one address.
int mabutrace_start_server_on(const char* bind_address, uint16_t port) {
  if (bind_address && strcmp(bind_address, "0.0.0.0") != 0) return MABUTRACE_ERR_UNSUPPORTED;
  return mabutrace_start_server(port);
}

uint16_t mabutrace_server_port(void) { return g_server ? g_port : 0; }

void mabutrace_stop_server(void) {
  if (!g_server) return;
  httpd_stop(g_server);
  g_server = nullptr;
  g_port = 0;
}

}  // extern "C"

#endif  // ESP_PLATFORM || ARDUINO_ARCH_ESP32
