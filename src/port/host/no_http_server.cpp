// SPDX-License-Identifier: MIT
// no_http_server.cpp: the host server API when the library is built without
// the HTTP server (-DMABUTRACE_HTTP_SERVER=OFF: no cpp-httplib dependency).
// Every call is defined, so a program written for the full library still
// links; starting a server says it is not available here. Export through
// mabutrace_export_* and the output callback is unaffected.
// Host builds only (the Arduino IDE compiles every file under src/).
#if (defined(__linux__) || defined(__APPLE__)) && !defined(ARDUINO) && !defined(ESP_PLATFORM)

#include "mabutrace/mabutrace.h"

extern "C" {

int mabutrace_start_server(uint16_t port) {
  (void)port;
  return MABUTRACE_ERR_UNSUPPORTED;
}

int mabutrace_start_server_on(const char* bind_address, uint16_t port) {
  (void)bind_address;
  (void)port;
  return MABUTRACE_ERR_UNSUPPORTED;
}

uint16_t mabutrace_server_port(void) { return 0; }

void mabutrace_stop_server(void) {}

}  // extern "C"

#endif  // host
