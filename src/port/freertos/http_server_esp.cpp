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
// Refuse(), which sends the service's answer for that status. Bodies are
// streamed from the export workspace, no allocation per request.
// Not built here (no Espressif toolchain): docs/ports.md §5; tested against
// a fake esp_http_server (tests/port/freertos/http_test.cpp).
// ESP-IDF / Arduino-ESP32 only: the Arduino IDE and PlatformIO compile every
// source under src/ for whatever board they target (src/mabutrace_port_inline.h
// picks the port).
#if defined(ESP_PLATFORM) || defined(ARDUINO_ARCH_ESP32)

#include <string.h>

#include "esp_http_server.h"
#include "esp_timer.h"
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

// A streamed body must be sent within this, from its first piece: the
// export holds the runtime's export lock while it streams (the device has
// no RAM to hold a whole export), so this bounds how long a slow but
// steady reader delays other exports and mabutrace_flush_output: by
// kResponseBudgetUs plus one send's wait (send_wait_timeout, 5 s). After
// it the connection is closed without the last chunk, so the client knows
// the body is cut (docs/http-server.md).
constexpr int64_t kResponseBudgetUs = 5 * 1000 * 1000;

struct BodySink {
  httpd_req_t* req;
  int64_t deadline_us;  // esp_timer_get_time() after which writes fail
};

int SendChunk(void* user, const char* data, size_t len) {
  const BodySink* sink = static_cast<const BodySink*>(user);
  if (esp_timer_get_time() > sink->deadline_us) return 1;  // over budget: stops the export
  return httpd_resp_send_chunk(sink->req, data, ssize_t(len)) == ESP_OK ? 0 : 1;
}

// The head alone, for the answer to HEAD: every response call of
// esp_http_server sends a body (httpd_resp_send_chunk at least the last
// chunk, which a HEAD client would read as the start of the next response).
esp_err_t SendHeadOnly(httpd_req_t* req, const http::Response& answer) {
  char head[http::kMaxHead];
  const size_t n = http::FormatHead(answer, /*close=*/false, head, sizeof head);
  if (n == 0) return ESP_FAIL;
  for (size_t sent = 0; sent < n;) {
    const int k = httpd_send(req, head + sent, n - sent);
    if (k <= 0) return ESP_FAIL;  // HTTPD_SOCK_ERR_*: the session is closed
    sent += size_t(k);
  }
  return ESP_OK;
}

// Sends the service's answer as it stands. ESP_FAIL makes esp_http_server
// close the connection.
esp_err_t Send(httpd_req_t* req, const http::Response& answer) {
  if (!answer.send_body) return SendHeadOnly(req, answer);
  httpd_resp_set_status(req, answer.status_text);
  httpd_resp_set_type(req, answer.content_type);
  for (size_t i = 0; i < answer.header_count; ++i) {
    httpd_resp_set_hdr(req, answer.headers[i].name, answer.headers[i].value);
  }
  if (answer.framing == http::Framing::kLength) {
    return httpd_resp_send(req, answer.body.data, ssize_t(answer.body.size));
  }
  // (kClose never comes: esp_http_server does not tell the request's
  // HTTP-version, so Serve() asks as HTTP/1.1.)
  BodySink sink{req, esp_timer_get_time() + kResponseBudgetUs};
  if (http::WriteBody(answer, &SendChunk, &sink) != MABUTRACE_OK) {
    // Headers are out: closing without the last chunk tells the client the
    // body is incomplete.
    return ESP_FAIL;
  }
  return httpd_resp_send_chunk(req, nullptr, 0);
}

// Every request esp_http_server has parsed. No Host check: esp_http_server
// listens on every interface, and on a network address the names clients
// use cannot be known (host_check.h).
esp_err_t Serve(httpd_req_t* req) {
  const http::Request request{
      MethodOf(req->method), {req->uri, strlen(req->uri)}, {nullptr, 0}, http::Version::kHttp11};
  return Send(req, http::Answer(request, http::HostPolicy::kAnyName));
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
  httpd_resp_set_hdr(req, "Connection", "close");
  (void)Send(req, http::ErrorResponse(status));
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
