// SPDX-License-Identifier: MIT
// host_check.h: the Host policy of a server that listens on loopback only,
// against DNS rebinding.
//
// Why: a web page on evil.example whose name the attacker re-points at
// 127.0.0.1 (a short DNS TTL, then a second answer) is, for the browser,
// still the origin evil.example: its scripts may fetch "/trace.json" from
// it and read the answer, which now comes from us. The one thing such a
// request cannot hide is its Host field (RFC 9110 §7.2): it carries the
// attacker's name. So a loopback server answers only Host values that no
// DNS answer can point anywhere: IP literals, and "localhost" or names
// under ".localhost", which browsers resolve to loopback themselves
// (RFC 6761 §6.3). A server bound to a network address cannot tell the
// names its clients use, so it does not check (docs/http-server.md).
//
// Pure function, no heap; device-safe (C++11 and later).
#ifndef MABUTRACE_HTTP_HOST_CHECK_H
#define MABUTRACE_HTTP_HOST_CHECK_H

#include <stddef.h>

namespace mabutrace {
namespace http {

// True when the Host field value `field[0 .. size)` (uri-host [":" port],
// RFC 9110 §7.2; the parser has stripped the surrounding whitespace) names
// this machine in a way DNS cannot redirect:
//   - an IPv4 literal, dotted decimal without leading zeros (RFC 3986
//     §3.2.2 IPv4address), e.g. "127.0.0.1:8080";
//   - an IPv6 literal in brackets (RFC 3986 §3.2.2 IP-literal, RFC 4291
//     §2.2 text forms), e.g. "[::1]:8080";
//   - "localhost" or "<anything>.localhost", any letter case (RFC 3986
//     §3.2.2: the host is case-insensitive).
// The port, if any, must be digits (RFC 3986 §3.2.3). An empty value is
// accepted: HTTP/1.0 clients may send no Host (RFC 9112 §3.2 asks it of
// HTTP/1.1 only), and every browser sends one.
bool HostIsLoopbackName(const char* field, size_t size);

}  // namespace http
}  // namespace mabutrace

#endif  // MABUTRACE_HTTP_HOST_CHECK_H
