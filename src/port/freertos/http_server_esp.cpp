// HTTP server on ESP-IDF's esp_http_server (R-C4): the same routes as the
// host server (docs/http-server.md): "/" the capture page, "/trace" and
// "/trace.json" Chrome JSON, "/trace.pftrace" Perfetto protobuf, streamed with
// chunked encoding from the export workspace (no allocation per request).
// Not built here (no Espressif toolchain): docs/ports.md §5.
// ESP-IDF / Arduino-ESP32 only: the Arduino IDE and PlatformIO compile every
// source under src/ for whatever board they target (src/mabutrace_port_inline.h
// picks the port).
#if defined(ESP_PLATFORM) || defined(ARDUINO_ARCH_ESP32)

#include <string.h>

#include "../../http/capture_page.h"
#include "esp_http_server.h"
#include "mabutrace/mabutrace.h"
#include "../../runtime/ring_buffer.h"  // relative: Arduino builds have only src/ on the path

namespace {

httpd_handle_t g_server = nullptr;
uint16_t g_port = 0;

int SendChunk(void* user, const char* data, size_t len) {
  if (len == 0) return 0;
  return httpd_resp_send_chunk(static_cast<httpd_req_t*>(user), data, ssize_t(len)) == ESP_OK ? 0 : 1;
}

esp_err_t ServeExport(httpd_req_t* req, const char* type, int (*exporter)(mabutrace_write_fn, void*)) {
  if (!mabutrace_is_initialized()) {
    httpd_resp_set_status(req, "503 Service Unavailable");
    return httpd_resp_send(req, "mabutrace is not initialized\n", HTTPD_RESP_USE_STRLEN);
  }
  httpd_resp_set_type(req, type);
  httpd_resp_set_hdr(req, "Cache-Control", "no-store");
  httpd_resp_set_hdr(req, "X-Content-Type-Options", "nosniff");
  if (exporter(&SendChunk, req) != MABUTRACE_OK) {
    // Headers are out: closing without the last chunk tells the client the
    // body is incomplete.
    return ESP_FAIL;
  }
  return httpd_resp_send_chunk(req, nullptr, 0);
}

esp_err_t ServePage(httpd_req_t* req) {
  httpd_resp_set_type(req, "text/html; charset=utf-8");
  httpd_resp_set_hdr(req, "Cache-Control", "no-store");
  httpd_resp_set_hdr(req, "Content-Security-Policy",
                     "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                     "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
                     "frame-ancestors 'none'");
  return httpd_resp_send(req, mabutrace::http::kCapturePage, sizeof mabutrace::http::kCapturePage - 1);
}

esp_err_t ServeJson(httpd_req_t* req) { return ServeExport(req, "application/json", mabutrace_export_json); }

esp_err_t ServePftrace(httpd_req_t* req) {
  httpd_resp_set_hdr(req, "Content-Disposition", "attachment; filename=\"trace.pftrace\"");
  return ServeExport(req, "application/octet-stream", mabutrace_export_perfetto);
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
  config.max_uri_handlers = 4;
  httpd_handle_t server = nullptr;
  if (httpd_start(&server, &config) != ESP_OK) return MABUTRACE_ERR_SERVER;
  static const httpd_uri_t kRoutes[] = {
      {"/", HTTP_GET, ServePage, nullptr},
      {"/trace", HTTP_GET, ServeJson, nullptr},
      {"/trace.json", HTTP_GET, ServeJson, nullptr},
      {"/trace.pftrace", HTTP_GET, ServePftrace, nullptr},
  };
  for (const httpd_uri_t& r : kRoutes) httpd_register_uri_handler(server, &r);
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
