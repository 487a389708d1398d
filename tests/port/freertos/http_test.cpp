// SPDX-License-Identifier: MIT
// http_test.cpp: src/port/freertos/http_server_esp.cpp on the fake
// esp_http_server: lifecycle and return codes, the routes and their
// responses (page, close-delimited JSON and protobuf), the answers the host
// port gives too (tests/port/http_contract.h, on the bytes a client reads),
// the parser's refusals, a client that goes away mid-export (counted in
// the metadata), a slow but steady reader (bounded by the 5 s budget), and
// deinit stopping the server. The fake dispatches to the registered
// handlers as esp_http_server does, on a local socket pair whose client end
// the test reads (fake_freertos.h, HttpRequest).
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "../http_contract.h"
#include "freertos_test_util.h"

namespace {

using ft::FreeRtosTest;
using ft::Task;
using json = nlohmann::json;

// http_parser's number of a method token.
int MethodNumber(const std::string& token) {
  static const std::map<std::string, int> kMethods = {
      {"GET", HTTP_GET},     {"HEAD", HTTP_HEAD},       {"POST", HTTP_POST},
      {"PUT", HTTP_PUT},     {"DELETE", HTTP_DELETE},   {"OPTIONS", HTTP_OPTIONS},
      {"PATCH", HTTP_PATCH}, {"CONNECT", HTTP_CONNECT}, {"TRACE", HTTP_TRACE}};
  return kMethods.at(token);
}

TEST_F(FreeRtosTest, HttpServerLifecycle) {
  mabutrace_deinit();
  EXPECT_EQ(mabutrace_start_server(8080), MABUTRACE_ERR_NOT_INITIALIZED);
  EXPECT_FALSE(fake::HttpRunning());
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);

  const int starts = fake::HttpStarts(), stops = fake::HttpStops();
  // No "any free port" here: it could not be read back (mabutrace_server_port
  // would say 0 = no server), and 65535 leaves no control port (port + 1).
  EXPECT_EQ(mabutrace_start_server(0), MABUTRACE_ERR_UNSUPPORTED);
  EXPECT_EQ(mabutrace_start_server(65535), MABUTRACE_ERR_INVALID_ARG);
  EXPECT_FALSE(fake::HttpRunning());
  ASSERT_EQ(mabutrace_start_server(8080), MABUTRACE_OK);
  ASSERT_TRUE(fake::HttpRunning());
  EXPECT_EQ(mabutrace_server_port(), 8080);
  const httpd_config_t c = fake::HttpConfig();
  EXPECT_EQ(c.server_port, 8080);
  EXPECT_NE(c.ctrl_port, c.server_port);
  EXPECT_NE(c.ctrl_port, 32768) << "the default control port of the application's own server";
  EXPECT_TRUE(c.lru_purge_enable);
  // esp_http_server routes nothing: every URI reaches the service.
  EXPECT_NE(c.uri_match_fn, nullptr);
  EXPECT_EQ(fake::HttpRoutes(), (std::vector<std::string>{"GET *", "HEAD *"}));
  EXPECT_EQ(fake::HttpErrorHandlers(),
            (std::vector<httpd_err_code_t>{HTTPD_500_INTERNAL_SERVER_ERROR, HTTPD_501_METHOD_NOT_IMPLEMENTED,
                                           HTTPD_505_VERSION_NOT_SUPPORTED, HTTPD_400_BAD_REQUEST,
                                           HTTPD_405_METHOD_NOT_ALLOWED, HTTPD_408_REQ_TIMEOUT, HTTPD_414_URI_TOO_LONG,
                                           HTTPD_431_REQ_HDR_FIELDS_TOO_LARGE}));

  EXPECT_EQ(mabutrace_start_server(8080), MABUTRACE_ERR_ALREADY_RUNNING);
  EXPECT_EQ(mabutrace_start_server_on("0.0.0.0", 8081), MABUTRACE_ERR_ALREADY_RUNNING);
  EXPECT_EQ(mabutrace_start_server_on("127.0.0.1", 8081), MABUTRACE_ERR_UNSUPPORTED);
  EXPECT_EQ(fake::HttpStarts(), starts + 1);

  mabutrace_stop_server();
  EXPECT_FALSE(fake::HttpRunning());
  EXPECT_EQ(mabutrace_server_port(), 0);
  mabutrace_stop_server();  // harmless twice
  EXPECT_EQ(fake::HttpStops(), stops + 1);

  ASSERT_EQ(mabutrace_start_server_on("0.0.0.0", 8090), MABUTRACE_OK);
  EXPECT_EQ(mabutrace_server_port(), 8090);
  mabutrace_deinit();  // stops the server first (it exports from that memory)
  EXPECT_FALSE(fake::HttpRunning());
  EXPECT_EQ(mabutrace_server_port(), 0);
  EXPECT_EQ(fake::HttpStops(), stops + 2);
}

TEST_F(FreeRtosTest, HttpRoutesServeThePageAndTheTrace) {
  Task t("web_task", 1, [] {
    for (int i = 0; i < 300; ++i) {
      TRACE_SCOPE("served");
      TRACE_COUNTER("i", i);
    }
  });
  t.WaitDone();
  ASSERT_EQ(mabutrace_start_server(80), MABUTRACE_OK);

  const fake::HttpResponse page_r = fake::HttpGet("/");
  const http_contract::Wire page = http_contract::ParseWire(page_r.wire, false);
  EXPECT_EQ(page_r.handler_result, ESP_OK);
  EXPECT_FALSE(page_r.session_closed) << "keep-alive for a body of known length";
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.Field("content-type"), "text/html; charset=utf-8");
  EXPECT_TRUE(page.complete);
  EXPECT_FALSE(page.chunked);
  EXPECT_EQ(page.body, std::string(mabutrace::http::kCapturePage));
  EXPECT_EQ(page.Field("referrer-policy"), "no-referrer");
  EXPECT_NE(page.Field("content-security-policy").find("default-src 'none'"), std::string::npos);

  for (const char* uri : {"/trace", "/trace.json"}) {
    const fake::HttpResponse resp = fake::HttpGet(uri);
    const http_contract::Wire r = http_contract::ParseWire(resp.wire, false);
    EXPECT_EQ(resp.handler_result, ESP_OK) << uri;
    EXPECT_TRUE(resp.session_closed) << "the close ends the body";
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.Field("content-type"), "application/json");
    EXPECT_EQ(r.Field("cache-control"), "no-store");
    EXPECT_FALSE(r.chunked);
    EXPECT_EQ(r.Field("connection"), "close");
    const mt_test::TraceInfo tr = mt_test::CheckTrace(mt_test::ParseStrict(r.body));
    ASSERT_TRUE(tr.ok) << uri;
    EXPECT_EQ(ft::Events(tr, ft::TidOf(tr, "web_task"), "B", "served").size(), 300u);
  }

  const fake::HttpResponse pf_r = fake::HttpGet("/trace.pftrace");
  const http_contract::Wire pf = http_contract::ParseWire(pf_r.wire, false);
  EXPECT_EQ(pf_r.handler_result, ESP_OK);
  EXPECT_EQ(pf.Field("content-type"), "application/octet-stream");
  EXPECT_EQ(pf.Field("content-disposition"), "attachment; filename=\"trace.pftrace\"");
  EXPECT_FALSE(pf.chunked);
  ASSERT_GT(pf.body.size(), 1000u);
  EXPECT_EQ(uint8_t(pf.body[0]), 0x0Au) << "Trace.packet (field 1, length-delimited)";
  EXPECT_NE(pf.body.find("web_task"), std::string::npos);

  EXPECT_EQ(http_contract::ParseWire(fake::HttpGet("/nope").wire, false).status, 404);
  mabutrace_stop_server();
}

// The same answers as the host port's (tests/port/http_server_test.cpp):
// every exchange of the contract, checked on the bytes a client reads. An
// export is close-delimited (esp_http_server does not tell the request's
// HTTP-version, and HTTP/1.0 must not get chunked); nothing fails (handler
// result ESP_OK), and only an export's session is closed.
TEST_F(FreeRtosTest, HttpAnswersAsTheHostPortDoes) {
  TRACE_INSTANT("something to export");
  ASSERT_EQ(mabutrace_start_server(80), MABUTRACE_OK);
  for (const http_contract::Exchange& e : http_contract::Exchanges()) {
    const fake::HttpResponse r = fake::HttpRequest(MethodNumber(e.method), e.target.c_str());
    EXPECT_EQ(r.handler_result, ESP_OK) << http_contract::Describe(e);
    const bool streamed = e.body == http_contract::Body::kJson || e.body == http_contract::Body::kProtobuf;
    EXPECT_EQ(r.session_closed, streamed) << http_contract::Describe(e);
    http_contract::CheckExchange(e, http_contract::ParseWire(r.wire, e.method == "HEAD"), {},
                                 http_contract::Streamed::kClose);
  }
  // Methods esp_http_server knows beyond those: its 405, which is ours.
  for (const char* method : {"CONNECT", "TRACE"}) {
    const fake::HttpResponse r = fake::HttpRequest(MethodNumber(method), "/");
    http_contract::CheckExchange(http_contract::Error(method, "/", 405, "Method Not Allowed"),
                                 http_contract::ParseWire(r.wire, false));
  }
  mabutrace_stop_server();
}

// What esp_http_server's parser refuses gets the service's answer for that
// status, as the host's refusals do, and the connection is closed.
TEST_F(FreeRtosTest, HttpParserRefusalsGetTheServiceAnswer) {
  ASSERT_EQ(mabutrace_start_server(80), MABUTRACE_OK);
  const struct {
    httpd_err_code_t error;
    int status;
    const char* reason;
  } kRefusals[] = {
      {HTTPD_400_BAD_REQUEST, 400, "Bad Request"},
      {HTTPD_408_REQ_TIMEOUT, 408, "Request Timeout"},
      {HTTPD_414_URI_TOO_LONG, 414, "URI Too Long"},
      {HTTPD_431_REQ_HDR_FIELDS_TOO_LARGE, 431, "Request Header Fields Too Large"},
      {HTTPD_500_INTERNAL_SERVER_ERROR, 500, "Internal Server Error"},
      {HTTPD_501_METHOD_NOT_IMPLEMENTED, 501, "Not Implemented"},
      {HTTPD_505_VERSION_NOT_SUPPORTED, 505, "HTTP Version Not Supported"},
  };
  for (const auto& refusal : kRefusals) {
    SCOPED_TRACE(refusal.status);
    const fake::HttpResponse r = fake::HttpRefuse(refusal.error);
    EXPECT_EQ(r.handler_result, ESP_FAIL) << "the connection is closed";
    const http_contract::Wire w = http_contract::ParseWire(r.wire, false);
    EXPECT_EQ(w.Field("connection"), "close");
    http_contract::CheckRefusal(w, refusal.status, refusal.reason);
  }
  mabutrace_stop_server();
}

// An HTTP/1.0 client must not get a chunked body (RFC 9112 §6.1), and
// esp_http_server does not tell the version: every export is sent without
// Transfer-Encoding, ended by closing the connection (RFC 9112 §6.3 rule
// 8), which 1.0 and 1.1 clients both read. Mutation shown red: Serve()
// asking the service as HTTP/1.1 again (a chunked export; the old code
// sent it with httpd_resp_send_chunk).
TEST_F(FreeRtosTest, HttpExportIsCloseDelimitedForHttp10Clients) {
  for (int i = 0; i < 100; ++i) TRACE_INSTANT("event");
  ASSERT_EQ(mabutrace_start_server(80), MABUTRACE_OK);
  for (const char* uri : {"/trace.json", "/trace.pftrace"}) {
    SCOPED_TRACE(uri);
    const fake::HttpResponse r = fake::HttpGet(uri);
    const http_contract::Wire w = http_contract::ParseWire(r.wire, false);
    ASSERT_EQ(w.error, "");
    EXPECT_EQ(w.status, 200);
    EXPECT_EQ(w.Count("transfer-encoding"), 0u);
    EXPECT_EQ(w.Count("content-length"), 0u);
    EXPECT_EQ(w.Field("connection"), "close");
    EXPECT_EQ(r.handler_result, ESP_OK);
    EXPECT_TRUE(r.session_closed) << "httpd_sess_trigger_close: the close ends the body";
    if (uri[7] == 'j') {
      EXPECT_TRUE(mt_test::CheckTrace(mt_test::ParseStrict(w.body)).ok);
    }
  }
  // HEAD: the same head, no body, and the session is closed as it says.
  const fake::HttpResponse head = fake::HttpRequest(HTTP_HEAD, "/trace.json");
  const http_contract::Wire w = http_contract::ParseWire(head.wire, true);
  EXPECT_EQ(w.error, "");
  EXPECT_EQ(w.Count("transfer-encoding"), 0u);
  EXPECT_EQ(w.Field("connection"), "close");
  EXPECT_TRUE(head.session_closed);
  mabutrace_stop_server();
}

// A client that reads `limit` bytes and goes away.
fake::HttpClient LeaveAfter(size_t limit) {
  return [limit](int fd, std::string* wire) {
    char buf[1024];
    while (wire->size() < limit) {
      const ssize_t n = ::recv(fd, buf, std::min(sizeof buf, limit - wire->size()), 0);
      if (n <= 0) break;
      wire->append(buf, size_t(n));
    }
    ::shutdown(fd, SHUT_RDWR);
  };
}

// A client that goes away mid-export: the handler fails (esp_http_server
// then closes the socket), the response is counted as cut in the metadata
// of the next export (http_responses_cut), and the next request works.
// Mutation shown red: Send() not calling http::CountCutResponse() (the
// count stays 0).
TEST_F(FreeRtosTest, HttpClientGoneMidExport) {
  Task t("writer", 0, [] {
    for (int i = 0; i < 2000; ++i) TRACE_INSTANT("event");
  });
  t.WaitDone();
  ASSERT_EQ(mabutrace_start_server(80), MABUTRACE_OK);
  EXPECT_EQ(mt_test::ExportAndCheck().Meta("http_responses_cut"), 0u);
  const fake::HttpResponse cut = fake::HttpGet("/trace.json", LeaveAfter(5000));
  EXPECT_EQ(cut.handler_result, ESP_FAIL);
  EXPECT_TRUE(cut.session_closed);
  EXPECT_LE(cut.wire.size(), 5000u);

  const fake::HttpResponse again = fake::HttpGet("/trace.json");
  EXPECT_EQ(again.handler_result, ESP_OK);
  const http_contract::Wire w = http_contract::ParseWire(again.wire, false);
  const mt_test::TraceInfo tr = mt_test::CheckTrace(mt_test::ParseStrict(w.body));
  EXPECT_TRUE(tr.ok);
  EXPECT_EQ(tr.Meta("http_responses_cut"), 1u) << "the cut response, counted";
  EXPECT_EQ(mt_test::ExportAndCheck().Meta("http_responses_cut"), 1u);
  mabutrace_stop_server();
}

// ---- A slow but steady reader (docs/http-server.md, ESP-IDF) --------------------
// An export streams into its socket under the runtime's export lock (no
// RAM for a whole export on the device). A client reading 1 KiB every
// 0.25 s (never 5 s without progress, so no send times out) held the lock
// for its whole download: other exports, mabutrace_flush_output and other
// clients waited. Now a response has 5 s in all, and each send waits at
// most for what is left of it: nothing waits more than 5 s for it.
// Mutation shown red: SendAll() without its budget check and SO_SNDTIMEO
// (the old code's 5 s per send): the export, the flush and the second
// client waited ~19.5 s, until the reader left.
double Seconds(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void DiscardOutput(const uint8_t*, size_t) {}

TEST_F(FreeRtosTest, HttpSlowSteadyReaderDelaysNobodyPastTheBudget) {
  Task t("writer", 0, [] {
    // ~330 KB of JSON: far more than the reader takes in 20 s with the
    // socket's buffers, small enough that the exports queued behind it
    // (each waits for the one before: the lock) stay quick under TSan.
    for (int i = 0; i < 4000; ++i) TRACE_INSTANT("event");
  });
  t.WaitDone();
  ASSERT_EQ(mabutrace_set_output_callback(&DiscardOutput), MABUTRACE_OK);
  ASSERT_EQ(mabutrace_start_server(80), MABUTRACE_OK);

  // 1 KiB every 0.25 s for at most 20 s (80 reads), then it leaves.
  std::atomic<bool> reading{false};
  auto slow = [&reading](int fd, std::string* wire) {
    char buf[1024];
    for (int i = 0; i < 80; ++i) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;  // the server ended the response
      wire->append(buf, size_t(n));
      reading = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    ::shutdown(fd, SHUT_RDWR);
  };
  fake::HttpResponse slow_resp;
  std::thread slow_client([&] { slow_resp = fake::HttpGet("/trace.json", slow); });
  for (int i = 0; i < 1000 && !reading; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(reading.load());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // its response is under way

  // All at once, each against the slow reader: the program's own export,
  // the output stream's flush, a second client's export.
  double export_s = 0, flush_s = 0, client_s = 0;
  size_t exported = 0;
  fake::HttpResponse other;
  std::thread a([&] {
    export_s = Seconds([&] {
      EXPECT_EQ(mabutrace_export_json(
                    [](void* u, const char*, size_t n) {
                      *static_cast<size_t*>(u) += n;
                      return 0;
                    },
                    &exported),
                MABUTRACE_OK);
    });
  });
  std::thread b([&] { flush_s = Seconds([] { EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_OK); }); });
  std::thread c([&] { client_s = Seconds([&] { other = fake::HttpGet("/trace.json"); }); });
  a.join();
  b.join();
  c.join();
  slow_client.join();

  // The budget (5 s) plus margin for a loaded machine under sanitizers;
  // without the budget these are ~19.5 s.
  constexpr double kBound = 5.0 + 2.0;
  EXPECT_LT(export_s, kBound) << "the program's own export";
  EXPECT_LT(flush_s, kBound) << "mabutrace_flush_output";
  EXPECT_LT(client_s, kBound) << "a second client's export";
  EXPECT_GT(exported, size_t(200) << 10);
  EXPECT_EQ(slow_resp.handler_result, ESP_FAIL) << "cut at the budget";
  EXPECT_LT(slow_resp.wire.size(), exported / 4) << "the slow reader did not get it all";
  EXPECT_EQ(other.handler_result, ESP_OK);
  const http_contract::Wire w = http_contract::ParseWire(other.wire, false);
  EXPECT_TRUE(mt_test::CheckTrace(mt_test::ParseStrict(w.body)).ok);
  EXPECT_GE(mt_test::ExportAndCheck().Meta("http_responses_cut"), 1u);
  mabutrace_stop_server();
}

}  // namespace
