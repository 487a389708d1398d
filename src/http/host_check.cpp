// SPDX-License-Identifier: MIT
// host_check.cpp: HostIsLoopbackName (host_check.h). The literal parsers
// follow RFC 3986 §3.2.2's ABNF; no inet_pton, which an MCU may not have.
#include "host_check.h"

#include <string.h>

namespace mabutrace {
namespace http {
namespace {

struct Span {
  const char* p;
  size_t n;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool AllDigits(Span s) {
  for (size_t i = 0; i < s.n; ++i) {
    if (!IsDigit(s.p[i])) return false;
  }
  return true;
}

// dec-octet: 0-255 without leading zeros.
bool IsDecOctet(Span s) {
  if (s.n == 0 || s.n > 3 || !AllDigits(s)) return false;
  if (s.n > 1 && s.p[0] == '0') return false;
  unsigned v = 0;
  for (size_t i = 0; i < s.n; ++i) v = v * 10 + unsigned(s.p[i] - '0');
  return v <= 255;
}

// IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet
bool IsIpv4(Span s) {
  size_t octets = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.n; ++i) {
    if (i < s.n && s.p[i] != '.') continue;
    if (!IsDecOctet(Span{s.p + start, i - start})) return false;
    ++octets;
    start = i + 1;
  }
  return octets == 4;
}

// h16 = 1*4HEXDIG
bool IsH16(Span s) {
  if (s.n == 0 || s.n > 4) return false;
  for (size_t i = 0; i < s.n; ++i) {
    if (!IsHexDigit(s.p[i])) return false;
  }
  return true;
}

// IPv6address: eight 16-bit groups separated by ':'; one "::" stands for
// one or more zero groups; the last two groups may be an IPv4address.
bool IsIpv6(Span s) {
  size_t groups = 0;
  bool gap = false;
  size_t i = 0;
  if (s.n >= 2 && s.p[0] == ':' && s.p[1] == ':') {
    gap = true;
    i = 2;
    if (i == s.n) return true;  // "::"
  }
  for (;;) {
    size_t end = i;
    while (end < s.n && s.p[end] != ':') ++end;
    const Span piece{s.p + i, end - i};
    if (memchr(piece.p, '.', piece.n)) {  // ls32 as IPv4: only at the end
      if (end != s.n || !IsIpv4(piece)) return false;
      groups += 2;
      break;
    }
    if (!IsH16(piece)) return false;
    ++groups;
    if (end == s.n) break;
    i = end + 1;  // past ':'
    if (i < s.n && s.p[i] == ':') {
      if (gap) return false;  // "::" at most once
      gap = true;
      if (++i == s.n) break;  // ends with "::"
    } else if (i == s.n) {
      return false;  // ends with a single ':'
    }
  }
  return gap ? groups < 8 : groups == 8;
}

// "localhost" or "<label...>.localhost", any letter case.
bool IsLocalhostName(Span s) {
  static const char kName[] = "localhost";
  const size_t n = sizeof kName - 1;
  if (s.n < n) return false;
  if (s.n > n && (s.n < n + 2 || s.p[s.n - n - 1] != '.')) return false;  // not ".localhost"
  const char* tail = s.p + s.n - n;
  for (size_t i = 0; i < n; ++i) {
    const char c = tail[i] >= 'A' && tail[i] <= 'Z' ? char(tail[i] - 'A' + 'a') : tail[i];
    if (c != kName[i]) return false;
  }
  return true;
}

}  // namespace

bool HostIsLoopbackName(const char* field, size_t size) {
  if (size == 0) return true;
  Span host{field, size};
  Span port{field + size, 0};
  if (host.p[0] == '[') {  // IP-literal, then [":" port]
    const char* close = static_cast<const char*>(memchr(host.p, ']', host.n));
    if (!close) return false;
    const size_t after = size_t(close - host.p) + 1;
    if (after < size && host.p[after] != ':') return false;
    if (after < size) port = Span{host.p + after + 1, size - after - 1};
    return AllDigits(port) && IsIpv6(Span{host.p + 1, after - 2});
  }
  for (size_t i = size; i-- > 0;) {  // a reg-name or IPv4 has no ':'
    if (host.p[i] != ':') continue;
    port = Span{host.p + i + 1, size - i - 1};
    host.n = i;
    break;
  }
  return AllDigits(port) && (IsIpv4(host) || IsLocalhostName(host));
}

}  // namespace http
}  // namespace mabutrace
