// SPDX-License-Identifier: MIT
// http_contract.h: what every port's built-in HTTP server answers, checked
// on the bytes it sends. Both port tests send the requests of Exchanges()
// and check what comes back with CheckExchange():
//   tests/port/http_server_test.cpp        the host port, over loopback sockets
//   tests/port/freertos/http_test.cpp      the ESP-IDF port, on the fake
//                                          esp_http_server (its wire bytes)
// so both show the same statuses, reasons, content types, header fields,
// framing and bodies. The expectations are written out here, not taken from
// src/http: a change to what the service answers must change this file.
//
// Not part of the contract: the fields by which a port manages its
// connection (RFC 9112 §9: Connection, Keep-Alive), and what a port lists
// in `ignored` with its reason.
#ifndef MABUTRACE_TESTS_PORT_HTTP_CONTRACT_H
#define MABUTRACE_TESTS_PORT_HTTP_CONTRACT_H

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../src/http/capture_page.h"

namespace http_contract {

// ---- The wire -------------------------------------------------------------------
// One response as sent: status line, fields (names in lower case, in
// order), and the body, de-chunked.
struct Wire {
  int status = 0;
  std::string reason;
  std::vector<std::pair<std::string, std::string>> fields;
  std::string body;
  bool chunked = false;
  bool complete = false;  // the body ended as its framing says
  std::string error;      // why the bytes are not one well-formed response

  size_t Count(const std::string& name) const {
    return size_t(std::count_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == name; }));
  }
  std::string Field(const std::string& name) const {
    for (const auto& f : fields) {
      if (f.first == name) return f.second;
    }
    return "";
  }
};

inline std::string Lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Parses one response (RFC 9112 §4 status line, §5 fields, §6.3 body
// length). `head_request`: the answer to HEAD, which ends with its head.
inline Wire ParseWire(const std::string& bytes, bool head_request) {
  Wire w;
  const size_t head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string::npos) {
    w.error = "no end of head";
    return w;
  }
  size_t pos = bytes.find("\r\n");
  const std::string status_line = bytes.substr(0, pos);
  if (status_line.rfind("HTTP/1.1 ", 0) != 0 || status_line.size() < 12 || status_line[12] != ' ') {
    w.error = "bad status line: " + status_line;
    return w;
  }
  w.status = std::stoi(status_line.substr(9, 3));
  w.reason = status_line.substr(13);
  while (pos < head_end) {
    const size_t eol = bytes.find("\r\n", pos + 2);
    const std::string line = bytes.substr(pos + 2, eol - pos - 2);
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      w.error = "bad field line: " + line;
      return w;
    }
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t") + 1);
    w.fields.emplace_back(Lower(line.substr(0, colon)), value);
    pos = eol;
  }
  const std::string rest = bytes.substr(head_end + 4);
  w.chunked = Lower(w.Field("transfer-encoding")) == "chunked";
  if (head_request) {
    w.complete = rest.empty();
    if (!rest.empty()) w.error = "bytes after the head of a HEAD answer";
    return w;
  }
  if (!w.chunked) {
    const size_t length = w.Count("content-length") ? std::stoul(w.Field("content-length")) : rest.size();
    w.body = rest.substr(0, length);
    w.complete = rest.size() == length;
    if (rest.size() > length) w.error = "bytes after the body";
    return w;
  }
  for (size_t p = 0;;) {  // chunk-size CRLF data CRLF ... "0" CRLF CRLF (RFC 9112 §7.1)
    const size_t eol = rest.find("\r\n", p);
    if (eol == std::string::npos) return w;  // cut short: not complete
    const size_t n = std::stoul(rest.substr(p, eol - p), nullptr, 16);
    if (n == 0) {
      w.complete = rest.compare(eol + 2, std::string::npos, "\r\n") == 0;
      if (!w.complete) w.error = "bad last chunk";
      return w;
    }
    if (eol + 2 + n + 2 > rest.size()) return w;
    w.body.append(rest, eol + 2, n);
    if (rest.compare(eol + 2 + n, 2, "\r\n") != 0) {
      w.error = "chunk without CRLF";
      return w;
    }
    p = eol + 2 + n + 2;
  }
}

// ---- The contract -----------------------------------------------------------------
enum class Body { kPage, kJson, kProtobuf, kText };

struct Exchange {
  std::string method;
  std::string target;
  int status;
  std::string reason;
  std::string content_type;
  // Every other field but the framing ones, exactly (names in lower case).
  std::vector<std::pair<std::string, std::string>> fields;
  Body body;
};

inline const char* kPagePolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'";

inline std::vector<std::pair<std::string, std::string>> ErrorFields() {
  // Accept-Ranges: none: Range is never applied (RFC 9110 §14.3).
  return {{"x-content-type-options", "nosniff"}, {"referrer-policy", "no-referrer"}, {"accept-ranges", "none"}};
}

// An error answer: the status and its text, nothing cached or sniffed.
inline Exchange Error(const std::string& method, const std::string& target, int status, const std::string& reason) {
  auto fields = ErrorFields();
  if (status == 405) fields.insert(fields.begin(), {"allow", "GET, HEAD"});
  return {method, target, status, reason, "text/plain; charset=utf-8", fields, Body::kText};
}

inline std::vector<Exchange> Exchanges() {
  const std::pair<std::string, std::string> no_store{"cache-control", "no-store"};
  const auto nosniff = ErrorFields();
  std::vector<Exchange> out;
  for (const char* method : {"GET", "HEAD"}) {
    out.push_back({method,
                   "/",
                   200,
                   "OK",
                   "text/html; charset=utf-8",
                   {no_store, {"content-security-policy", kPagePolicy}, nosniff[0], nosniff[1], nosniff[2]},
                   Body::kPage});
    for (const char* target : {"/trace", "/trace.json", "/trace.json?x=1"}) {
      out.push_back(
          {method, target, 200, "OK", "application/json", {no_store, nosniff[0], nosniff[1], nosniff[2]}, Body::kJson});
    }
    out.push_back({method,
                   "/trace.pftrace",
                   200,
                   "OK",
                   "application/octet-stream",
                   {no_store,
                    {"content-disposition", "attachment; filename=\"trace.pftrace\""},
                    nosniff[0],
                    nosniff[1],
                    nosniff[2]},
                   Body::kProtobuf});
    out.push_back(Error(method, "/nope", 404, "Not Found"));
  }
  // Only these paths exist, compared byte for byte (nothing is decoded).
  for (const char* target :
       {"/trace.json/x", "/../etc/passwd", "/%2e%2e/etc/passwd", "/trace%2Ejson", "/trace.pftrace/x", "/traceXjson",
        "//trace.json", "/favicon.ico", "/trace.json%00", "/index.html", "/TRACE.JSON"}) {
    out.push_back(Error("GET", target, 404, "Not Found"));
  }
  // Other methods: 405 where the path exists, 404 where it does not.
  for (const char* method : {"POST", "PUT", "DELETE", "OPTIONS", "PATCH"}) {
    out.push_back(Error(method, "/trace.json", 405, "Method Not Allowed"));
    out.push_back(Error(method, "/", 405, "Method Not Allowed"));
  }
  out.push_back(Error("POST", "/nope", 404, "Not Found"));
  return out;
}

inline std::string Describe(const Exchange& e) { return e.method + " " + e.target; }

// How a port frames an export (RFC 9112 §6.3): chunked (RFC 9112 §7.1), or
// ended by closing the connection (rule 8: what an HTTP/1.0 client must
// get, RFC 9112 §6.1; the ESP-IDF port cannot tell the request's version,
// so it sends every export that way), with Connection: close.
enum class Streamed { kChunked, kClose };

// Checks `w`, the answer to `e`. `ignored`: field names (lower case) this
// port may add, each with its reason at the call.
inline void CheckExchange(const Exchange& e, const Wire& w, const std::set<std::string>& ignored = {},
                          Streamed streamed_framing = Streamed::kChunked) {
  SCOPED_TRACE(Describe(e));
  const bool head = e.method == "HEAD";
  ASSERT_EQ(w.error, "");
  EXPECT_TRUE(w.complete);
  EXPECT_EQ(w.status, e.status);
  EXPECT_EQ(w.reason, e.reason);
  EXPECT_EQ(w.Field("content-type"), e.content_type);

  std::vector<std::pair<std::string, std::string>> fields;
  for (const auto& f : w.fields) {
    if (f.first == "content-type" || f.first == "content-length" || f.first == "transfer-encoding" ||
        f.first == "connection" || f.first == "keep-alive" || ignored.count(f.first)) {
      continue;
    }
    fields.push_back(f);
  }
  auto sorted = [](auto v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(fields), sorted(e.fields));

  // Framing: a fixed body has its length (the same in the answer to HEAD,
  // RFC 9110 §8.6), an export is chunked or close-delimited.
  const bool streamed = e.body == Body::kJson || e.body == Body::kProtobuf;
  EXPECT_EQ(w.chunked, streamed && streamed_framing == Streamed::kChunked);
  if (streamed && streamed_framing == Streamed::kClose) {
    EXPECT_EQ(Lower(w.Field("connection")), "close");
  }
  EXPECT_EQ(w.Count("content-length"), streamed ? 0u : 1u);
  const std::string text = std::to_string(e.status) + " " + e.reason + "\n";
  if (!streamed) {
    const size_t length = e.body == Body::kPage ? sizeof mabutrace::http::kCapturePage - 1 : text.size();
    EXPECT_EQ(w.Field("content-length"), std::to_string(length));
  }
  if (head) {
    EXPECT_EQ(w.body, "");
    return;
  }
  switch (e.body) {
    case Body::kPage: EXPECT_EQ(w.body, mabutrace::http::kCapturePage); break;
    case Body::kJson:  // each port's test parses it strictly
      ASSERT_FALSE(w.body.empty());
      EXPECT_EQ(w.body.front(), '{');
      break;
    case Body::kProtobuf:
      ASSERT_FALSE(w.body.empty());
      EXPECT_EQ(uint8_t(w.body[0]), 0x0Au) << "Trace.packet (field 1, length-delimited)";
      break;
    case Body::kText: EXPECT_EQ(w.body, text); break;
  }
}

// The answer to a request the transport refused itself (too long, too slow,
// unparsable): the same form as any error.
inline void CheckRefusal(const Wire& w, int status, const std::string& reason) {
  CheckExchange(Error("GET", "(refused)", status, reason), w);
}

}  // namespace http_contract

#endif  // MABUTRACE_TESTS_PORT_HTTP_CONTRACT_H
