// SPDX-License-Identifier: MIT
// http_request_fuzz.cpp: the HTTP service (src/http) on any request a
// client can send: method token, request-target and Host field taken from
// the input, split at its first two NUL bytes. Answer() under both Host
// policies and both HTTP versions (1.0 never gets a chunked answer), the
// head it formats and every body it would write that needs no trace (the
// page, error answers) must stay in bounds and agree with themselves: a
// head fits kMaxHead, a refusal is an error answer.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cstdlib>
#include <initializer_list>

#include "../src/http/host_check.h"
#include "../src/http/http_service.h"

namespace {

int Discard(void*, const char*, size_t len) { return len == 0 ? 1 : 0; }  // no empty piece

mabutrace::http::Text Piece(const uint8_t*& p, const uint8_t* end) {
  const uint8_t* nul = static_cast<const uint8_t*>(memchr(p, 0, size_t(end - p)));
  const uint8_t* stop = nul ? nul : end;
  mabutrace::http::Text t{reinterpret_cast<const char*>(p), size_t(stop - p)};
  p = nul ? nul + 1 : end;
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mabutrace::http;
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  const Text method = Piece(p, end);
  const Text target = Piece(p, end);
  const Text host = Piece(p, end);
  (void)HostIsLoopbackName(host.data, host.size);
  for (Version version : {Version::kHttp11, Version::kHttp10}) {
    const Request request{MethodFromToken(method), target, host, version};
    for (HostPolicy policy : {HostPolicy::kAnyName, HostPolicy::kLoopbackNames}) {
      const Response r = Answer(request, policy);
      // No transfer coding in an answer to HTTP/1.0 (RFC 9112 §6.1).
      if (version == Version::kHttp10 && r.framing == Framing::kChunked) abort();
      char head[kMaxHead];
      const size_t n = FormatHead(r, true, head, sizeof head);
      if (n == 0 || n > sizeof head) abort();
      if (r.framing == Framing::kLength && r.send_body && WriteBody(r, Discard, nullptr) != 0) abort();
    }
  }
  return 0;
}
