// SPDX-License-Identifier: MIT
// http_test.cpp: src/port/freertos/http_server_esp.cpp on the fake
// esp_http_server: lifecycle and return codes, the routes and their
// responses (page, chunked JSON, chunked protobuf), the answers the host
// port gives too (tests/port/http_contract.h, on the bytes esp_http_server
// would send), the parser's refusals, a client that goes away mid-export,
// and deinit stopping the server. No socket: the fake dispatches to the
// registered handlers as esp_http_server does (fake_freertos.h, HttpRequest).
#include <map>

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

  const fake::HttpResponse page = fake::HttpGet("/");
  EXPECT_EQ(page.handler_result, ESP_OK);
  EXPECT_EQ(page.status, "200 OK");
  EXPECT_EQ(page.type, "text/html; charset=utf-8");
  EXPECT_TRUE(page.complete);
  EXPECT_FALSE(page.chunked);
  EXPECT_EQ(page.body, std::string(mabutrace::http::kCapturePage));
  EXPECT_EQ(page.headers.at("Referrer-Policy"), "no-referrer");
  EXPECT_NE(page.headers.at("Content-Security-Policy").find("default-src 'none'"), std::string::npos);

  for (const char* uri : {"/trace", "/trace.json"}) {
    const fake::HttpResponse r = fake::HttpGet(uri);
    EXPECT_EQ(r.handler_result, ESP_OK) << uri;
    EXPECT_EQ(r.status, "200 OK");
    EXPECT_EQ(r.type, "application/json");
    EXPECT_EQ(r.headers.at("Cache-Control"), "no-store");
    EXPECT_TRUE(r.chunked);
    EXPECT_TRUE(r.complete) << "the terminating chunk";
    EXPECT_GT(r.chunks, 1) << "streamed in pieces";
    const mt_test::TraceInfo tr = mt_test::CheckTrace(mt_test::ParseStrict(r.body));
    ASSERT_TRUE(tr.ok) << uri;
    EXPECT_EQ(ft::Events(tr, ft::TidOf(tr, "web_task"), "B", "served").size(), 300u);
  }

  const fake::HttpResponse pf = fake::HttpGet("/trace.pftrace");
  EXPECT_EQ(pf.handler_result, ESP_OK);
  EXPECT_EQ(pf.type, "application/octet-stream");
  EXPECT_EQ(pf.headers.at("Content-Disposition"), "attachment; filename=\"trace.pftrace\"");
  EXPECT_TRUE(pf.chunked);
  EXPECT_TRUE(pf.complete);
  ASSERT_GT(pf.body.size(), 1000u);
  EXPECT_EQ(uint8_t(pf.body[0]), 0x0Au) << "Trace.packet (field 1, length-delimited)";
  EXPECT_NE(pf.body.find("web_task"), std::string::npos);

  EXPECT_EQ(fake::HttpGet("/nope").status, "404 Not Found");
  mabutrace_stop_server();
}

// The same answers as the host port's (tests/port/http_server_test.cpp):
// every exchange of the contract, checked on the bytes esp_http_server
// would send. Each keeps the connection open (handler result ESP_OK).
TEST_F(FreeRtosTest, HttpAnswersAsTheHostPortDoes) {
  TRACE_INSTANT("something to export");
  ASSERT_EQ(mabutrace_start_server(80), MABUTRACE_OK);
  for (const http_contract::Exchange& e : http_contract::Exchanges()) {
    const fake::HttpResponse r = fake::HttpRequest(MethodNumber(e.method), e.target.c_str());
    EXPECT_EQ(r.handler_result, ESP_OK) << http_contract::Describe(e);
    http_contract::CheckExchange(e, http_contract::ParseWire(r.wire, e.method == "HEAD"));
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

// A client that goes away mid-export: the handler fails (esp_http_server
// then closes the socket) without sending the terminating chunk, so the
// client can tell the body is cut; the next request works.
TEST_F(FreeRtosTest, HttpClientGoneMidExport) {
  Task t("writer", 0, [] {
    for (int i = 0; i < 2000; ++i) TRACE_INSTANT("event");
  });
  t.WaitDone();
  ASSERT_EQ(mabutrace_start_server(80), MABUTRACE_OK);
  fake::HttpFailAfter(5000);
  const fake::HttpResponse cut = fake::HttpGet("/trace.json");
  fake::HttpFailAfter(SIZE_MAX);
  EXPECT_EQ(cut.handler_result, ESP_FAIL);
  EXPECT_FALSE(cut.complete);
  EXPECT_LE(cut.body.size(), 5000u);

  const fake::HttpResponse again = fake::HttpGet("/trace.json");
  EXPECT_EQ(again.handler_result, ESP_OK);
  EXPECT_TRUE(again.complete);
  EXPECT_TRUE(mt_test::CheckTrace(mt_test::ParseStrict(again.body)).ok);
  mabutrace_stop_server();
}

}  // namespace
