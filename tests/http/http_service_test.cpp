// SPDX-License-Identifier: MIT
// http_service_test.cpp: src/http/http_service.h without any transport:
// the route table, the order of the decisions (403, 404, 405, 503), the
// header fields of each answer, error answers, the bodies WriteBody()
// produces and the heads FormatHead() writes. What the ports make of it
// on the wire: tests/port/http_contract.h.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "http/capture_page.h"
#include "http/http_service.h"

namespace {

namespace http = mabutrace::http;
using Fields = std::vector<std::pair<std::string, std::string>>;

http::Text TextOf(const std::string& s) { return http::Text{s.data(), s.size()}; }

http::Response Ask(const std::string& method, const std::string& target, const std::string& host = "127.0.0.1",
                   http::HostPolicy policy = http::HostPolicy::kLoopbackNames,
                   http::Version version = http::Version::kHttp11) {
  const http::Request request{http::MethodFromToken(TextOf(method)), TextOf(target), TextOf(host), version};
  return http::Answer(request, policy);
}

Fields FieldsOf(const http::Response& r) {
  Fields out;
  for (size_t i = 0; i < r.header_count; ++i) out.emplace_back(r.headers[i].name, r.headers[i].value);
  return out;
}

std::string BodyOf(const http::Response& r) {
  return r.body.size ? std::string(r.body.data, r.body.size) : std::string();
}

// The fields each answer carries besides Content-Type and framing, in order.
// Accept-Ranges: none on every answer, since Range is never applied (an
// answer without it let cpp-httplib advertise "bytes" to HEAD).
const Fields kErrorFields = {
    {"X-Content-Type-Options", "nosniff"}, {"Referrer-Policy", "no-referrer"}, {"Accept-Ranges", "none"}};
const Fields kNotAllowedFields = {{"Allow", "GET, HEAD"}, kErrorFields[0], kErrorFields[1], kErrorFields[2]};
const Fields kJsonFields = {{"Cache-Control", "no-store"}, kErrorFields[0], kErrorFields[1], kErrorFields[2]};
const Fields kPftraceFields = {{"Cache-Control", "no-store"},
                               {"Content-Disposition", "attachment; filename=\"trace.pftrace\""},
                               kErrorFields[0],
                               kErrorFields[1],
                               kErrorFields[2]};
const Fields kPageFields = {{"Cache-Control", "no-store"},
                            {"Content-Security-Policy",
                             "default-src 'none'; script-src 'unsafe-inline'; style-src "
                             "'unsafe-inline'; connect-src 'self'; img-src data:; base-uri "
                             "'none'; form-action 'none'; frame-ancestors 'none'"},
                            kErrorFields[0],
                            kErrorFields[1],
                            kErrorFields[2]};

// The status, type and fields of `r`.
void ExpectAnswer(const http::Response& r, int status, const char* type, const Fields& fields) {
  EXPECT_EQ(r.status, status);
  EXPECT_STREQ(r.content_type, type);
  EXPECT_EQ(FieldsOf(r), fields);
}

const char kText[] = "text/plain; charset=utf-8";

// Collects what WriteBody() writes, piece by piece; `fail_at` makes that
// piece (0-based) fail.
struct Collector {
  std::vector<std::string> pieces;
  size_t fail_at = SIZE_MAX;

  static int Write(void* user, const char* data, size_t len) {
    auto* c = static_cast<Collector*>(user);
    if (c->pieces.size() == c->fail_at) {
      c->pieces.emplace_back("<failed>");
      return 1;
    }
    c->pieces.emplace_back(data, len);
    return 0;
  }
  std::string All() const {
    std::string out;
    for (const std::string& p : pieces) out += p;
    return out;
  }
};

class HttpService : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
    TRACE_INSTANT("exported");
  }
  void TearDown() override { mabutrace_deinit(); }
};

// ---- Routes --------------------------------------------------------------------

TEST_F(HttpService, ThePageAtRoot) {
  for (const char* method : {"GET", "HEAD"}) {
    const http::Response r = Ask(method, "/");
    ExpectAnswer(r, 200, "text/html; charset=utf-8", kPageFields);
    EXPECT_STREQ(r.status_text, "200 OK");
    EXPECT_EQ(r.framing, http::Framing::kLength);
    EXPECT_EQ(BodyOf(r), mabutrace::http::kCapturePage);
    EXPECT_EQ(r.exporter, nullptr);
    EXPECT_EQ(r.send_body, std::string(method) == "GET") << method;
  }
}

TEST_F(HttpService, TheJsonTraceAtTwoPaths) {
  for (const char* target : {"/trace", "/trace.json", "/trace.json?x=1", "/trace?"}) {
    SCOPED_TRACE(target);
    const http::Response r = Ask("GET", target);
    ExpectAnswer(r, 200, "application/json", kJsonFields);
    EXPECT_EQ(r.framing, http::Framing::kChunked);
    EXPECT_EQ(r.exporter, &mabutrace_export_json) << target;
    EXPECT_TRUE(r.send_body);
  }
  EXPECT_FALSE(Ask("HEAD", "/trace.json").send_body);
}

TEST_F(HttpService, ThePerfettoTraceIsSavedAsAFile) {
  const http::Response r = Ask("GET", "/trace.pftrace");
  ExpectAnswer(r, 200, "application/octet-stream", kPftraceFields);
  EXPECT_EQ(r.framing, http::Framing::kChunked);
  EXPECT_EQ(r.exporter, &mabutrace_export_perfetto);
}

// RFC 9112 §6.1: no Transfer-Encoding in an answer to HTTP/1.0. An export
// to a 1.0 client is close-delimited; the page keeps its Content-Length.
// (Mutation: Serve() choosing kChunked for every export, as it did: red.)
TEST_F(HttpService, AnHttp10ExportIsCloseDelimited) {
  const auto kAny = http::HostPolicy::kLoopbackNames;
  for (const char* target : {"/trace.json", "/trace.pftrace"}) {
    SCOPED_TRACE(target);
    const http::Response r = Ask("GET", target, "127.0.0.1", kAny, http::Version::kHttp10);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.framing, http::Framing::kClose);
    char head[http::kMaxHead];
    const size_t n = http::FormatHead(r, /*close=*/false, head, sizeof head);
    ASSERT_GT(n, 0u);
    const std::string text(head, n);
    EXPECT_EQ(text.find("Transfer-Encoding"), std::string::npos) << text;
    EXPECT_EQ(text.find("Content-Length"), std::string::npos) << text;
    EXPECT_NE(text.find("\r\nConnection: close\r\n"), std::string::npos) << text;
    Collector c;
    EXPECT_EQ(http::WriteBody(r, &Collector::Write, &c), MABUTRACE_OK);
    EXPECT_FALSE(c.All().empty());
  }
  EXPECT_EQ(Ask("GET", "/", "127.0.0.1", kAny, http::Version::kHttp10).framing, http::Framing::kLength);
  EXPECT_EQ(Ask("GET", "/trace.json", "127.0.0.1", kAny, http::Version::kHttp11).framing, http::Framing::kChunked);
}

TEST_F(HttpService, OnlyTheseExactPathsExist) {
  for (const char* target : {"", "*", "/nope", "/trace.json/x", "/trace.jso", "/trace.jsonx", "/../etc/passwd",
                             "/%2e%2e/etc/passwd", "/trace%2Ejson", "//trace.json", "/TRACE.JSON", "/index.html",
                             "http://127.0.0.1/trace.json", "/trace.json#x", "trace.json"}) {
    SCOPED_TRACE(target);
    const http::Response r = Ask("GET", target);
    ExpectAnswer(r, 404, kText, kErrorFields);
    EXPECT_EQ(BodyOf(r), "404 Not Found\n");
  }
  EXPECT_EQ(Ask("GET", std::string("/trace.json\0", 12)).status, 404);
  EXPECT_FALSE(Ask("HEAD", "/nope").send_body);
}

// ---- Methods -------------------------------------------------------------------

TEST_F(HttpService, MethodTokensAreCaseSensitive) {
  EXPECT_EQ(http::MethodFromToken(TextOf("GET")), http::Method::kGet);
  EXPECT_EQ(http::MethodFromToken(TextOf("HEAD")), http::Method::kHead);
  for (const char* token : {"get", "Get", "GETX", "GE", "", "POST", "head", "OPTIONS"}) {
    EXPECT_EQ(http::MethodFromToken(TextOf(token)), http::Method::kOther) << token;
  }
}

TEST_F(HttpService, OtherMethodsAre405WithAllow) {
  for (const char* target : {"/", "/trace", "/trace.json", "/trace.pftrace"}) {
    SCOPED_TRACE(target);
    const http::Response r = Ask("POST", target);
    ExpectAnswer(r, 405, kText, kNotAllowedFields);
    EXPECT_STREQ(r.status_text, "405 Method Not Allowed");
    EXPECT_EQ(BodyOf(r), "405 Method Not Allowed\n");
    EXPECT_TRUE(r.send_body);
  }
}

// ---- The order of the decisions ----------------------------------------------------

TEST_F(HttpService, HostIsCheckedFirstOnLoopback) {
  for (const char* target : {"/", "/trace.json", "/nope"}) {
    for (const char* method : {"GET", "POST"}) {
      SCOPED_TRACE(std::string(method) + " " + target);
      const http::Response r = Ask(method, target, "rebind.example:8080");
      ExpectAnswer(r, 403, kText, kErrorFields);
      EXPECT_EQ(BodyOf(r), "403 Forbidden\n");
    }
  }
  EXPECT_EQ(Ask("GET", "/", "").status, 200) << "no Host (HTTP/1.0)";
  EXPECT_EQ(Ask("GET", "/", "localhost:8080").status, 200);
}

TEST_F(HttpService, NoHostCheckForAnyName) {
  EXPECT_EQ(Ask("GET", "/trace.json", "rebind.example", http::HostPolicy::kAnyName).status, 200);
  EXPECT_EQ(Ask("GET", "/nope", "rebind.example", http::HostPolicy::kAnyName).status, 404);
}

TEST_F(HttpService, AnUnknownPathIs404ForEveryMethod) {
  EXPECT_EQ(Ask("POST", "/nope").status, 404);
  EXPECT_EQ(Ask("DELETE", "/trace.json/x").status, 404);
}

TEST(HttpServiceUninitialized, ExportsAre503ThePageIsServed) {
  ASSERT_FALSE(mabutrace_is_initialized());
  for (const char* target : {"/trace", "/trace.json", "/trace.pftrace"}) {
    SCOPED_TRACE(target);
    const http::Response r = Ask("GET", target);
    ExpectAnswer(r, 503, kText, kErrorFields);
    EXPECT_EQ(BodyOf(r), "503 Service Unavailable\n");
  }
  EXPECT_EQ(Ask("GET", "/").status, 200);
  EXPECT_EQ(Ask("POST", "/trace.json").status, 405) << "the method is wrong whether or not we trace";
}

// ---- Error answers -------------------------------------------------------------------

TEST(HttpServiceErrors, EachStatusNamesItself) {
  const std::vector<std::pair<int, std::string>> known = {{400, "Bad Request"},
                                                          {403, "Forbidden"},
                                                          {404, "Not Found"},
                                                          {405, "Method Not Allowed"},
                                                          {408, "Request Timeout"},
                                                          {413, "Content Too Large"},
                                                          {414, "URI Too Long"},
                                                          {416, "Range Not Satisfiable"},
                                                          {431, "Request Header Fields Too Large"},
                                                          {500, "Internal Server Error"},
                                                          {501, "Not Implemented"},
                                                          {503, "Service Unavailable"},
                                                          {505, "HTTP Version Not Supported"}};
  for (const auto& [code, reason] : known) {
    const http::Response r = http::ErrorResponse(uint16_t(code));
    const std::string text = std::to_string(code) + " " + reason;
    ExpectAnswer(r, code, kText, kErrorFields);
    EXPECT_EQ(r.status_text, text);
    EXPECT_EQ(r.framing, http::Framing::kLength);
    EXPECT_EQ(BodyOf(r), text + "\n");
    EXPECT_TRUE(r.send_body);
  }
  for (int unknown : {0, 200, 418, 599}) {
    EXPECT_EQ(http::ErrorResponse(uint16_t(unknown)).status, 500) << unknown;
  }
}

// esp_http_server keeps at most max_resp_headers (8 by default) fields of
// httpd_resp_set_hdr, and the ESP port adds Connection to refusals.
TEST_F(HttpService, EveryAnswerFitsEspHttpServersDefaultHeaderLimit) {
  for (const char* target : {"/", "/trace", "/trace.json", "/trace.pftrace", "/nope"}) {
    for (const char* method : {"GET", "HEAD", "POST"}) {
      EXPECT_LE(Ask(method, target).header_count + 1, 8u) << method << " " << target;
    }
  }
}

// ---- Bodies ----------------------------------------------------------------------------

TEST_F(HttpService, WriteBodyOfThePageIsThePage) {
  Collector c;
  EXPECT_EQ(http::WriteBody(Ask("GET", "/"), &Collector::Write, &c), MABUTRACE_OK);
  EXPECT_EQ(c.All(), mabutrace::http::kCapturePage);
}

TEST_F(HttpService, WriteBodyOfAnExportIsThatExport) {
  for (const char* target : {"/trace.json", "/trace.pftrace"}) {
    Collector c;
    ASSERT_EQ(http::WriteBody(Ask("GET", target), &Collector::Write, &c), MABUTRACE_OK) << target;
    ASSERT_FALSE(c.pieces.empty());
    if (std::string(target) == "/trace.json") {
      const nlohmann::json trace = nlohmann::json::parse(c.All());
      EXPECT_FALSE(trace.at("traceEvents").empty());
    } else {
      EXPECT_EQ(uint8_t(c.All()[0]), 0x0Au) << "Trace.packet";
    }
  }
}

// An empty piece would end a chunked body early in both HTTP libraries.
int ExportWithEmptyPieces(mabutrace_write_fn write, void* user) {
  for (const char* piece : {"", "a", "", "bc", ""}) {
    if (write(user, piece, strlen(piece)) != 0) return MABUTRACE_ERR_IO;
  }
  return MABUTRACE_OK;
}

TEST(HttpServiceBodies, NoEmptyPieceReachesTheTransport) {
  http::Response r = http::ErrorResponse(500);
  r.framing = http::Framing::kChunked;
  r.exporter = &ExportWithEmptyPieces;
  Collector c;
  EXPECT_EQ(http::WriteBody(r, &Collector::Write, &c), MABUTRACE_OK);
  EXPECT_EQ(c.pieces, (std::vector<std::string>{"a", "bc"}));
}

TEST_F(HttpService, AFailedWriteEndsTheBody) {
  Collector c;
  c.fail_at = 0;
  EXPECT_EQ(http::WriteBody(Ask("GET", "/trace.json"), &Collector::Write, &c), MABUTRACE_ERR_IO);
  EXPECT_EQ(c.pieces, (std::vector<std::string>{"<failed>"})) << "nothing after the failure";

  Collector page;
  page.fail_at = 0;
  EXPECT_EQ(http::WriteBody(Ask("GET", "/"), &Collector::Write, &page), MABUTRACE_ERR_IO);
}

// ---- Heads -------------------------------------------------------------------------------

std::string Head(const http::Response& r, bool close, size_t cap = http::kMaxHead) {
  std::string out(cap, '\0');
  out.resize(http::FormatHead(r, close, &out[0], cap));
  return out;
}

TEST(HttpServiceHeads, AnErrorHead) {
  EXPECT_EQ(Head(http::ErrorResponse(414), true),
            "HTTP/1.1 414 URI Too Long\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: 17\r\n"
            "X-Content-Type-Options: nosniff\r\n"
            "Referrer-Policy: no-referrer\r\n"
            "Accept-Ranges: none\r\n"
            "Connection: close\r\n"
            "\r\n");
}

TEST_F(HttpService, HeadsOfThePageAndAnExport) {
  // The answer to HEAD has the length GET's body has (RFC 9110 §8.6).
  EXPECT_EQ(Head(Ask("HEAD", "/"), false),
            "HTTP/1.1 200 OK\r\n"
            "Content-Type: text/html; charset=utf-8\r\n"
            "Content-Length: " +
                std::to_string(sizeof mabutrace::http::kCapturePage - 1) +
                "\r\n"
                "Cache-Control: no-store\r\n"
                "Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; style-src "
                "'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action "
                "'none'; frame-ancestors 'none'\r\n"
                "X-Content-Type-Options: nosniff\r\n"
                "Referrer-Policy: no-referrer\r\n"
                "Accept-Ranges: none\r\n"
                "\r\n");
  EXPECT_EQ(Head(Ask("HEAD", "/trace.json"), false),
            "HTTP/1.1 200 OK\r\n"
            "Content-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n"
            "Cache-Control: no-store\r\n"
            "X-Content-Type-Options: nosniff\r\n"
            "Referrer-Policy: no-referrer\r\n"
            "Accept-Ranges: none\r\n"
            "\r\n");
}

TEST_F(HttpService, EveryHeadFitsKMaxHead) {
  for (const char* target : {"/", "/trace", "/trace.json", "/trace.pftrace", "/nope"}) {
    for (const char* method : {"GET", "HEAD", "POST"}) {
      EXPECT_GT(Head(Ask(method, target, "evil"), true).size(), 0u) << method << " " << target;
      EXPECT_GT(Head(Ask(method, target), true).size(), 0u) << method << " " << target;
    }
  }
  for (int code : {400, 408, 413, 414, 416, 431, 500, 501, 503, 505}) {
    EXPECT_GT(Head(http::ErrorResponse(uint16_t(code)), true).size(), 0u) << code;
  }
}

TEST(HttpServiceHeads, AHeadThatDoesNotFitIsNotWritten) {
  const http::Response r = http::ErrorResponse(404);
  const size_t n = Head(r, false).size();
  ASSERT_GT(n, 0u);
  EXPECT_EQ(Head(r, false, n).size(), n) << "exactly the room it needs";
  EXPECT_EQ(Head(r, false, n - 1).size(), 0u);
  EXPECT_EQ(Head(r, false, 0).size(), 0u);
}

}  // namespace
