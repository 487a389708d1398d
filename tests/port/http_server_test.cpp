// SPDX-License-Identifier: MIT
// http_server_test.cpp: the host HTTP server (R-C4, SPEC §9 Security) over
// real loopback sockets: lifecycle and return codes, routes, streaming while
// threads write, and what bad clients can and cannot do.
//
// Every wait is bounded (socket timeouts). One test asserts durations, as
// the server's documented bound asks (SlowSteadyReadersDelayNobody).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "http_contract.h"
#include "mabutrace/mabutrace.h"

namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

constexpr int kIoTimeoutMs = 8000;  // upper bound of any single wait here

// ---- Helpers -----------------------------------------------------------------

// A connected TCP socket to 127.0.0.1:port, or -1.
int Connect(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends what it can of `data` (the server may close early on purpose).
void SendAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, kIoTimeoutMs) <= 0) return;
    const ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += size_t(n);
  }
}

// Reads until the peer closes (or errors, or a wait passes `wait_ms`).
std::string ReadAll(int fd, int wait_ms = kIoTimeoutMs) {
  std::string out;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, wait_ms) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, size_t(n));
  }
  return out;
}

// One raw exchange: the status code of the reply, 0 if the server closed
// without one.
struct RawReply {
  int status = 0;
  std::string text;
};
RawReply Raw(uint16_t port, const std::string& request, int wait_ms = kIoTimeoutMs) {
  RawReply r;
  const int fd = Connect(port);
  if (fd < 0) return r;
  SendAll(fd, request);
  r.text = ReadAll(fd, wait_ms);
  ::close(fd);
  int status = 0;
  if (sscanf(r.text.c_str(), "HTTP/1.%*d %d", &status) == 1) r.status = status;
  return r;
}

// A refused request: the connection closed without an answer, or the
// service's answer for a client error (http_contract.h), whichever of the
// bounds (ours or httplib's) caught it.
void ExpectRefused(const RawReply& r) {
  static const std::map<int, std::string> kReasons = {
      {400, "Bad Request"}, {408, "Request Timeout"}, {414, "URI Too Long"}, {431, "Request Header Fields Too Large"}};
  if (r.status == 0) return;
  ASSERT_TRUE(kReasons.count(r.status)) << r.status;
  http_contract::CheckRefusal(http_contract::ParseWire(r.text, false), r.status, kReasons.at(r.status));
}

std::string Get(const std::string& path, const std::string& host = "127.0.0.1") {
  return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
}

httplib::Client MakeClient(uint16_t port) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(8, 0);
  cli.set_write_timeout(8, 0);
  return cli;
}

bool Refused(uint16_t port) {
  const int fd = Connect(port);
  if (fd < 0) return true;
  ::close(fd);
  return false;
}

// Local addresses (hex "AABBCCDD:PPPP" as in /proc/net/tcp*) listening on port.
// Inodes of this process's sockets (/proc/self/fd links "socket:[N]").
std::set<std::string> OwnSocketInodes() {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const std::string link = std::filesystem::read_symlink(fd.path(), ec).string();
    if (link.rfind("socket:[", 0) == 0) out.insert(link.substr(8, link.size() - 9));
  }
  return out;
}

// Local addresses ("HEXIP:PORT") of this process's listening sockets on
// `port`, IPv4 and IPv6. Other processes (tests run in parallel) may listen
// on the same port number in the other address family: they are not ours.
// One entry per socket: a read of /proc/net/tcp racing with other processes'
// socket changes can list the same socket twice.
std::vector<std::string> ListeningAddresses(uint16_t port) {
  const std::set<std::string> own = OwnSocketInodes();
  std::set<std::string> seen;  // inodes already listed
  std::vector<std::string> out;
  char want[8];
  snprintf(want, sizeof want, "%04X", port);
  for (const char* file : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retr, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >> inode;
      const size_t colon = local.rfind(':');
      if (state == "0A" && colon != std::string::npos && local.substr(colon + 1) == want && own.count(inode) &&
          seen.insert(inode).second) {
        out.push_back(local);
      }
    }
  }
  return out;
}

// Two threads that keep recording until destroyed: scopes, instants,
// counters and a flow from one to the other.
class Writers {
 public:
  Writers() {
    for (int i = 0; i < 2; ++i) {
      threads_.emplace_back([this, i] {
        mabutrace_set_thread_name(i == 0 ? "http-writer-a" : "http-writer-b");
        for (int64_t n = 0; !stop_.load(std::memory_order_relaxed); ++n) {
          TRACE_SCOPE(i == 0 ? "produce" : "consume", COLOR_GREEN);
          TRACE_COUNTER("queue", n % 16);
          if (i == 0) {
            uint16_t link = 0;
            TRACE_FLOW_OUT(&link, "handoff");
            link_.store(link, std::memory_order_relaxed);
          } else if (const uint16_t link = link_.exchange(0, std::memory_order_relaxed)) {
            TRACE_FLOW_IN(link, "handoff");
          }
          if (n % 64 == 0) TRACE_INSTANT("tick");
          std::this_thread::sleep_for(50us);
        }
      });
    }
  }
  ~Writers() {
    stop_.store(true);
    for (auto& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint16_t> link_{0};
  std::vector<std::thread> threads_;
};

uint64_t EventsWritten() {
  mabutrace_stats_t stats{};
  if (mabutrace_get_stats(&stats) != MABUTRACE_OK) return 0;
  return stats.events_written;
}

void WaitForEvents(uint64_t at_least) {
  for (int i = 0; i < 2000 && EventsWritten() < at_least; ++i) std::this_thread::sleep_for(1ms);
}

// Parses a Chrome JSON trace strictly; returns the names of threads that
// carry at least one non-metadata event.
std::set<std::string> ActiveThreadNames(const std::string& body) {
  const Json trace = Json::parse(body);  // throws (fails the test) if invalid
  EXPECT_TRUE(trace.is_object());
  const Json& events = trace.at("traceEvents");
  std::map<int64_t, std::string> names;
  std::set<int64_t> active;
  for (const Json& e : events) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") {
      names[e.at("tid").get<int64_t>()] = e.at("args").at("name").get<std::string>();
    } else if (e.contains("tid")) {
      active.insert(e.at("tid").get<int64_t>());
    }
  }
  std::set<std::string> out;
  for (int64_t tid : active) {
    if (auto it = names.find(tid); it != names.end()) out.insert(it->second);
  }
  return out;
}

// ---- Fixture: each test owns the runtime ---------------------------------------
class HttpServer : public ::testing::Test {
 protected:
  void SetUp() override {
    mabutrace_config_t cfg;
    mabutrace_config_default(&cfg);
    cfg.buffer_size = 256 * 1024;
    ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  }
  void TearDown() override { mabutrace_deinit(); }

  uint16_t StartOnFreePort() {
    EXPECT_EQ(mabutrace_start_server(0), MABUTRACE_OK);
    const uint16_t port = mabutrace_server_port();
    EXPECT_NE(port, 0);
    return port;
  }

  // The server serves a complete, valid trace (and tracing still records).
  void ExpectHealthy(uint16_t port) {
    const uint64_t before = EventsWritten();
    TRACE_INSTANT("still recording");
    EXPECT_GT(EventsWritten(), before);
    auto cli = MakeClient(port);
    auto res = cli.Get("/trace.json");
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 200);
    EXPECT_TRUE(Json::accept(res->body));  // strict JSON
  }
};

// ---- Lifecycle and return codes -----------------------------------------------

TEST(HttpServerLifecycle, StartBeforeInitIsNotInitialized) {
  ASSERT_FALSE(mabutrace_is_initialized());
  EXPECT_EQ(mabutrace_start_server(0), MABUTRACE_ERR_NOT_INITIALIZED);
  EXPECT_EQ(mabutrace_start_server_on("127.0.0.1", 0), MABUTRACE_ERR_NOT_INITIALIZED);
  EXPECT_EQ(mabutrace_server_port(), 0);
  mabutrace_stop_server();  // harmless
}

TEST_F(HttpServer, NullOrEmptyAddressIsInvalidArg) {
  EXPECT_EQ(mabutrace_start_server_on(nullptr, 0), MABUTRACE_ERR_INVALID_ARG);
  EXPECT_EQ(mabutrace_start_server_on("", 0), MABUTRACE_ERR_INVALID_ARG);
  EXPECT_EQ(mabutrace_server_port(), 0);
}

TEST_F(HttpServer, UnusableAddressIsServerError) {
  EXPECT_EQ(mabutrace_start_server_on("192.0.2.1", 0), MABUTRACE_ERR_SERVER);  // not ours
  EXPECT_EQ(mabutrace_start_server_on("not an address", 0), MABUTRACE_ERR_SERVER);
  EXPECT_EQ(mabutrace_server_port(), 0);
}

TEST_F(HttpServer, PortZeroPicksAPortBoundToLoopbackOnly) {
  const uint16_t port = StartOnFreePort();
  // A racing read can also miss an entry: read again if ours was not seen.
  auto listening = ListeningAddresses(port);
  for (int i = 0; i < 5 && listening.empty(); ++i) listening = ListeningAddresses(port);
  ASSERT_EQ(listening.size(), 1u) << "listening: " << ::testing::PrintToString(listening);
  EXPECT_EQ(listening[0].substr(0, listening[0].rfind(':')), "0100007F");  // 127.0.0.1
}

TEST_F(HttpServer, StartOnExplicitAddress) {
  ASSERT_EQ(mabutrace_start_server_on("127.0.0.1", 0), MABUTRACE_OK);
  const uint16_t port = mabutrace_server_port();
  ASSERT_NE(port, 0);
  EXPECT_EQ(Raw(port, Get("/")).status, 200);
}

TEST_F(HttpServer, SecondStartIsAlreadyRunning) {
  const uint16_t port = StartOnFreePort();
  EXPECT_EQ(mabutrace_start_server(0), MABUTRACE_ERR_ALREADY_RUNNING);
  EXPECT_EQ(mabutrace_start_server_on("127.0.0.1", port), MABUTRACE_ERR_ALREADY_RUNNING);
  EXPECT_EQ(mabutrace_server_port(), port);
}

TEST_F(HttpServer, PortInUseIsServerError) {
  // The other listener allows port sharing (SO_REUSEPORT): our server must
  // still refuse to share, or it would get only some of the connections.
  const int other = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(other, 0);
  int yes = 1;
  setsockopt(other, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  setsockopt(other, SOL_SOCKET, SO_REUSEPORT, &yes, sizeof yes);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(other, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(other, 4), 0);
  ASSERT_EQ(::getsockname(other, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const uint16_t port = ntohs(addr.sin_port);

  EXPECT_EQ(mabutrace_start_server(port), MABUTRACE_ERR_SERVER);
  EXPECT_EQ(mabutrace_server_port(), 0);
  ::close(other);
}

TEST_F(HttpServer, StopThenStartAgainOnTheSamePort) {
  const uint16_t port = StartOnFreePort();
  EXPECT_EQ(Raw(port, Get("/trace.json")).status, 200);  // leaves TIME_WAIT behind
  mabutrace_stop_server();
  EXPECT_EQ(mabutrace_server_port(), 0);
  EXPECT_TRUE(Refused(port));
  mabutrace_stop_server();  // harmless when stopped

  ASSERT_EQ(mabutrace_start_server(port), MABUTRACE_OK);
  EXPECT_EQ(mabutrace_server_port(), port);
  EXPECT_EQ(Raw(port, Get("/trace.json")).status, 200);
}

TEST_F(HttpServer, DeinitStopsTheServer) {
  const uint16_t port = StartOnFreePort();
  EXPECT_EQ(Raw(port, Get("/")).status, 200);
  mabutrace_deinit();
  EXPECT_EQ(mabutrace_server_port(), 0);
  EXPECT_TRUE(Refused(port));
  // And the runtime comes back with a server of its own.
  ASSERT_EQ(mabutrace_init(), MABUTRACE_OK);
  const uint16_t again = StartOnFreePort();
  EXPECT_EQ(Raw(again, Get("/trace")).status, 200);
}

TEST_F(HttpServer, DeinitDuringExportsIsSafe) {
  {
    Writers writers;  // fill the buffer; writers must stop before deinit (API contract)
    WaitForEvents(2000);
  }
  const uint16_t port = StartOnFreePort();
  std::atomic<bool> go{true};
  std::thread fetcher([&] {
    while (go.load()) (void)Raw(port, Get("/trace.json"));
  });
  std::this_thread::sleep_for(20ms);
  mabutrace_deinit();  // stops the server first; exports end or abort
  go.store(false);
  fetcher.join();
  EXPECT_TRUE(Refused(port));
  EXPECT_FALSE(mabutrace_is_initialized());
}

TEST_F(HttpServer, StartAndStopFromManyThreads) {
  std::vector<std::thread> threads;
  std::atomic<int> unexpected{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 8; ++i) {
        const int rc = mabutrace_start_server(0);
        if (rc != MABUTRACE_OK && rc != MABUTRACE_ERR_ALREADY_RUNNING) unexpected.fetch_add(1);
        (void)mabutrace_server_port();
        mabutrace_stop_server();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(mabutrace_server_port(), 0);
  ExpectHealthy(StartOnFreePort());
}

// ---- Routes --------------------------------------------------------------------

TEST_F(HttpServer, PageHasTheThreeButtonsAndNoExternalResources) {
  auto cli = MakeClient(StartOnFreePort());
  auto res = cli.Get("/");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type").rfind("text/html", 0), 0u);
  EXPECT_NE(res->get_header_value("Content-Security-Policy").find("default-src 'none'"), std::string::npos);
  const std::string& page = res->body;
  for (const char* label : {">Capture trace<", ">Save trace<", ">Open in Perfetto<"}) {
    EXPECT_NE(page.find(label), std::string::npos) << label;
  }
  for (const char* external : {"src=\"http", "src='http", "href=\"http", "@import", "url("}) {
    EXPECT_EQ(page.find(external), std::string::npos) << external;
  }
}

TEST_F(HttpServer, TraceIsChunkedStrictJsonWithBothWriterThreads) {
  Writers writers;
  WaitForEvents(500);
  const uint16_t port = StartOnFreePort();
  auto cli = MakeClient(port);
  for (const char* path : {"/trace.json", "/trace", "/trace.json", "/trace.json?x=1"}) {
    const uint64_t before = EventsWritten();
    auto res = cli.Get(path);
    ASSERT_TRUE(res) << path << ": " << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 200) << path;
    EXPECT_EQ(res->get_header_value("Transfer-Encoding"), "chunked") << path;
    EXPECT_FALSE(res->has_header("Content-Length")) << path;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << path;
    EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store") << path;
    std::set<std::string> names;
    ASSERT_NO_THROW(names = ActiveThreadNames(res->body)) << path;
    EXPECT_TRUE(names.count("http-writer-a")) << path;
    EXPECT_TRUE(names.count("http-writer-b")) << path;
    WaitForEvents(before + 200);  // the writers went on during the fetch
  }
}

// /trace.pftrace streams the Perfetto protobuf export; real protoc with
// Perfetto's schema must parse what arrives over the wire.
TEST_F(HttpServer, PftraceIsChunkedAndParsesWithProtoc) {
  Writers writers;
  WaitForEvents(500);
  const uint16_t port = StartOnFreePort();
  auto cli = MakeClient(port);
  auto res = cli.Get("/trace.pftrace");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Transfer-Encoding"), "chunked");
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/octet-stream");
  ASSERT_GT(res->body.size(), 2u);
  EXPECT_EQ(uint8_t(res->body[0]), 0x0A);  // Trace.packet, length-delimited

  char path[] = "/tmp/mabutrace-http-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, res->body.data(), res->body.size()), ssize_t(res->body.size()));
  close(fd);
  const std::string cmd = std::string("protoc --decode=perfetto.protos.Trace -I ") + MABUTRACE_PERFETTO_PROTO_DIR +
                          " perfetto_trace.proto < " + path;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string text;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  const int rc = pclose(p);
  unlink(path);
  EXPECT_EQ(rc, 0) << "protoc could not parse the served trace";
  EXPECT_NE(text.find("thread_name: \"http-writer-a\""), std::string::npos);
  EXPECT_NE(text.find("TYPE_SLICE_BEGIN"), std::string::npos);
}

TEST_F(HttpServer, TraceOnTheWireIsChunkFramed) {
  const uint16_t port = StartOnFreePort();
  TRACE_INSTANT("on the wire");
  const RawReply r = Raw(port, Get("/trace.json"));
  ASSERT_EQ(r.status, 200);
  const size_t body = r.text.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos);
  // Un-chunk by hand: hex size line, data, CRLF ... "0" CRLF CRLF.
  std::string json;
  size_t pos = body + 4;
  for (;;) {
    const size_t eol = r.text.find("\r\n", pos);
    ASSERT_NE(eol, std::string::npos) << "truncated chunk framing";
    const size_t n = std::stoul(r.text.substr(pos, eol - pos), nullptr, 16);
    if (n == 0) break;
    ASSERT_LE(eol + 2 + n + 2, r.text.size());
    json.append(r.text, eol + 2, n);
    ASSERT_EQ(r.text.compare(eol + 2 + n, 2, "\r\n"), 0);
    pos = eol + 2 + n + 2;
  }
  const Json trace = Json::parse(json);
  EXPECT_GT(trace.at("traceEvents").size(), 0u);
}

TEST_F(HttpServer, HeadHasHeadersOnly) {
  const RawReply r = Raw(StartOnFreePort(), "HEAD /trace.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  const size_t end = r.text.find("\r\n\r\n");
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(r.text.size(), end + 4);
}

TEST_F(HttpServer, UnknownPathsAre404) {
  const uint16_t port = StartOnFreePort();
  for (const char* path : {"/nope", "/trace.json/x", "/../etc/passwd", "/%2e%2e/etc/passwd", "/trace.pftrace/x",
                           "/traceXjson", "//trace.json", "/favicon.ico", "/trace.json%00", "/index.html"}) {
    EXPECT_EQ(Raw(port, Get(path)).status, 404) << path;
  }
}

TEST_F(HttpServer, OtherMethodsAre405) {
  const uint16_t port = StartOnFreePort();
  auto cli = MakeClient(port);
  auto res = cli.Post("/trace.json", "{}", "application/json");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 405);
  EXPECT_NE(res->get_header_value("Allow").find("GET"), std::string::npos);
  for (const char* method : {"PUT", "DELETE", "OPTIONS", "PATCH"}) {
    const std::string req = std::string(method) + " / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    EXPECT_EQ(Raw(port, req).status, 405) << method;
  }
  EXPECT_EQ(Raw(port, "POST /nope HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}").status, 404);
}

// The same answers as the ESP-IDF port's (tests/port/freertos/http_test.cpp):
// every exchange of the contract, on the bytes that arrive.
TEST_F(HttpServer, AnswersAsTheEspIdfPortDoes) {
  TRACE_INSTANT("something to export");
  const uint16_t port = StartOnFreePort();
  for (const http_contract::Exchange& e : http_contract::Exchanges()) {
    const RawReply r =
        Raw(port, e.method + " " + e.target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    // Exactly the contract's fields: "Accept-Ranges: none", not the "bytes"
    // httplib adds to an answer to HEAD that has none.
    http_contract::CheckExchange(e, http_contract::ParseWire(r.text, e.method == "HEAD"));
  }
}

// Range is ignored (RFC 9110 §14.2), and every answer says so with
// Accept-Ranges: none (§14.3): a single range, several ranges and a
// malformed one all get the whole body with its own type. Before, httplib
// answered a multi-range request with Content-Type multipart/byteranges
// around a plain body, applied a single range to the page, refused a
// malformed one with 416 and advertised "Accept-Ranges: bytes" to HEAD.
// (Mutation: the pre-routing handler leaving req.ranges to httplib: red.)
TEST_F(HttpServer, RangeIsIgnoredAndSaidToBe) {
  TRACE_INSTANT("something to export");
  const uint16_t port = StartOnFreePort();
  for (const char* range : {"bytes=0-10", "bytes=0-10,20-30", "bytes=5-", "garbage", "bytes=9-3"}) {
    for (const char* target : {"/", "/trace.json"}) {
      SCOPED_TRACE(std::string(target) + " Range: " + range);
      const RawReply r =
          Raw(port, std::string("GET ") + target +
                        " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nRange: " + range + "\r\n\r\n");
      const http_contract::Wire w = http_contract::ParseWire(r.text, false);
      EXPECT_EQ(w.status, 200);
      EXPECT_TRUE(w.complete);
      EXPECT_EQ(w.Field("accept-ranges"), "none");
      EXPECT_EQ(w.Count("content-range"), 0u);
      if (std::string(target) == "/") {
        EXPECT_EQ(w.Field("content-type"), "text/html; charset=utf-8");
        EXPECT_EQ(w.body, mabutrace::http::kCapturePage);
      } else {
        EXPECT_EQ(w.Field("content-type"), "application/json");
        EXPECT_TRUE(Json::accept(w.body));
      }
    }
  }
  const RawReply head = Raw(port, "HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=0-1\r\n\r\n");
  const http_contract::Wire w = http_contract::ParseWire(head.text, true);
  EXPECT_EQ(w.status, 200);
  EXPECT_EQ(w.Field("accept-ranges"), "none");
  EXPECT_EQ(w.Count("accept-ranges"), 1u);
}

// RFC 9112 §6.1: no Transfer-Encoding in an answer to HTTP/1.0. An export
// to a 1.0 client is close-delimited: no framing field, Connection: close,
// the body until the server closes. (Mutation: the pre-routing handler
// passing Version::kHttp11 for every request, as it did: chunked, red.)
TEST_F(HttpServer, Http10GetsACloseDelimitedExport) {
  Writers writers;
  WaitForEvents(2000);
  const uint16_t port = StartOnFreePort();
  for (const char* target : {"/trace.json", "/trace.pftrace"}) {
    SCOPED_TRACE(target);
    const RawReply r = Raw(port, std::string("GET ") + target + " HTTP/1.0\r\n\r\n");
    const size_t end = r.text.find("\r\n\r\n");
    ASSERT_NE(end, std::string::npos);
    const std::string head = r.text.substr(0, end + 2);
    std::string lower;
    for (char c : head) lower += char(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(lower.find("transfer-encoding"), std::string::npos) << head;
    EXPECT_EQ(lower.find("content-length"), std::string::npos) << head;
    EXPECT_NE(lower.find("\r\nconnection: close\r\n"), std::string::npos) << head;
    const std::string body = r.text.substr(end + 4);
    if (std::string(target) == "/trace.json") {
      EXPECT_TRUE(Json::accept(body)) << body.substr(0, 200);
    } else {
      EXPECT_FALSE(body.empty());
    }
  }
  // The page keeps its Content-Length (fine for HTTP/1.0).
  const http_contract::Wire page = http_contract::ParseWire(Raw(port, "GET / HTTP/1.0\r\n\r\n").text, false);
  EXPECT_EQ(page.status, 200);
  EXPECT_FALSE(page.chunked);
  EXPECT_EQ(page.body, mabutrace::http::kCapturePage);
}

TEST_F(HttpServer, ForeignHostNamesAreRefusedOnLoopback) {
  const uint16_t port = StartOnFreePort();
  const std::string p = std::to_string(port);
  http_contract::CheckExchange(
      http_contract::Error("GET", "/trace.json", 403, "Forbidden"),
      http_contract::ParseWire(Raw(port, Get("/trace.json", "rebind.example:" + p)).text, false));
  EXPECT_EQ(Raw(port, Get("/", "attacker.test")).status, 403);
  const std::vector<std::string> allowed = {"127.0.0.1:" + p, "localhost:" + p, "LocalHost", "[::1]:" + p,
                                            "app.localhost:" + p};
  for (const std::string& ok : allowed) {
    EXPECT_EQ(Raw(port, Get("/", ok)).status, 200) << ok;
  }
}

// ---- Bad clients -----------------------------------------------------------------

TEST_F(HttpServer, HugeUriIsRefused) {
  const uint16_t port = StartOnFreePort();
  const RawReply r = Raw(port, Get("/" + std::string(100 * 1024, 'a')));
  ExpectRefused(r);
  ExpectHealthy(port);
}

TEST_F(HttpServer, HugeHeaderIsRefused) {
  const uint16_t port = StartOnFreePort();
  const std::string req =
      "GET /trace.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(100 * 1024, 'b') + "\r\n\r\n";
  const RawReply r = Raw(port, req);
  ExpectRefused(r);
  ExpectHealthy(port);
}

TEST_F(HttpServer, ManySmallHeadersAreRefused) {
  // Each line is short; only a bound on the whole request catches this.
  const uint16_t port = StartOnFreePort();
  std::string req = "GET /trace.json HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (int i = 0; i < 5000; ++i) req += "X-H" + std::to_string(i) + ": v\r\n";
  req += "\r\n";
  const RawReply r = Raw(port, req);
  ExpectRefused(r);
  ExpectHealthy(port);
}

TEST_F(HttpServer, GarbageGets400OrClose) {
  const uint16_t port = StartOnFreePort();
  std::string junk = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";  // a TLS hello
  junk += std::string("\0\xff\r\n\r\nnot http at all\r\n\r\n", 24);
  for (const std::string& req :
       {junk, std::string("GARBAGE\r\n\r\n"), std::string("GET\r\n\r\n"), std::string("\r\n\r\n")}) {
    const RawReply r = Raw(port, req);
    EXPECT_TRUE(r.status == 0 || r.status == 400) << r.status;
    ExpectRefused(r);
  }
  ExpectHealthy(port);
}

TEST_F(HttpServer, StalledClientsDoNotBlockOthers) {
  Writers writers;
  WaitForEvents(500);
  const uint16_t port = StartOnFreePort();
  // Two clients send half a request each and stall, holding connections.
  std::vector<int> stalled;
  for (int i = 0; i < 2; ++i) {
    const int fd = Connect(port);
    ASSERT_GE(fd, 0);
    SendAll(fd, "GET /trace.json HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    stalled.push_back(fd);
  }
  std::this_thread::sleep_for(20ms);  // let the server pick them up
  auto cli = MakeClient(port);
  for (int i = 0; i < 3; ++i) {
    auto res = cli.Get("/trace.json");
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 200);
    EXPECT_TRUE(Json::accept(res->body));  // strict JSON
  }
  for (int fd : stalled) ::close(fd);
}

// ---- Slow but steady readers (docs/http-server.md, "Defaults and limits") ----
// A client that reads slowly but steadily, so that no write of the server
// ever waits kWriteStall (5 s), held the runtime's export lock for its
// whole download (the export streamed into its socket): other captures,
// the program's own exports and mabutrace_flush_output waited for it, and
// four of them held every worker, so that GET / waited too. Now an export
// is rendered into memory under the lock and sent without it, and a
// response gets kResponseBudget (5 s) in all.
// Mutations shown red: (1) Send() in http_server.cpp streaming WriteBody
// into httplib's chunked sink again, under the lock (the old code): the
// export and the flush waited ~5 s; (2) kResponseBudget 60 s: GET / waited
// for a worker until the readers left (~20 s).
// A client reading /trace.json at 400 KiB/s (8 KiB every 20 ms: a ~7 MB
// export takes it ~17 s, and the server's socket turns writable again
// within ~3 s), again and again, until `until`.
void SlowReader(uint16_t port, std::chrono::steady_clock::time_point until, std::atomic<int>* connections) {
  using SteadyClock = std::chrono::steady_clock;
  while (SteadyClock::now() < until) {
    const int fd = Connect(port);
    if (fd < 0) return;
    connections->fetch_add(1);
    SendAll(fd, Get("/trace.json"));
    std::vector<char> buf(8 * 1024);
    while (SteadyClock::now() < until) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) < 0) break;
      if (p.revents) {
        const ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
        if (n <= 0) break;  // the server ended the response
      }
      std::this_thread::sleep_for(20ms);
    }
    ::close(fd);
  }
}

// Seconds `fn` took.
template <class Fn>
double Seconds(Fn&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void DiscardOutput(const uint8_t*, size_t) {}

TEST(HttpServerSlowReaders, SlowSteadyReadersDelayNobody) {
  // A ring whose export (~6 MB of JSON) is larger than what the kernel
  // buffers of a loopback connection take (~3 MB with autotuning): a slow
  // reader then holds its response, as on a network. No larger: the
  // bounded operations below render it, under ASan+UBSan Debug too.
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 1024 * 1024;
  ASSERT_EQ(mabutrace_init_with_config(&cfg), MABUTRACE_OK);
  ASSERT_EQ(mabutrace_set_output_callback(&DiscardOutput), MABUTRACE_OK);
  {
    Writers writers;
    for (int i = 0; i < 500; ++i) {  // until the ring has wrapped (bounded: 10 s)
      mabutrace_stats_t st{};
      mabutrace_get_stats(&st);
      if (st.events_overwritten > 0) break;
      std::this_thread::sleep_for(20ms);
    }
    ASSERT_EQ(mabutrace_start_server(0), MABUTRACE_OK);
    const uint16_t port = mabutrace_server_port();

    // The bounds, each at least twice what Debug+ASan+UBSan needs on a
    // loaded 2-core machine. The program's own export and the flush wait
    // for no client: at most for an export in progress to render (tens of
    // ms here in RelWithDebInfo). A request may wait for a worker (all 4
    // held by slow readers) until one reader's 5 s response budget ends.
    constexpr double kRequestBound = 5.0 + 5.0;
#if defined(__SANITIZE_THREAD__)
    // Under TSan time cannot tell the fix from the bug: a render of the
    // 4 MiB export takes about a second of CPU there, each reader starts
    // one every 5 s (its response budget), and the program's export may
    // queue behind those in progress on 2 cores (seen: 2.4 s and 3.6 s on
    // the CI machine; the bug waits ~5 s). The bound the fix is about is
    // held by the plain and ASan builds; here the scenario runs for its
    // races, and an export must still not wedge.
    constexpr double kExportBound = kRequestBound;
#else
    constexpr double kExportBound = 2.0;
#endif
    constexpr int kPatienceMs = 20000;

    const auto until = std::chrono::steady_clock::now() + 20s;
    std::atomic<int> connections{0};
    std::vector<std::thread> readers;
    for (int i = 0; i < 4; ++i) readers.emplace_back(SlowReader, port, until, &connections);
    while (connections.load() < 4) std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(500ms);  // the readers' responses are under way

    for (int round = 0; round < 3 && std::chrono::steady_clock::now() + 1s < until; ++round) {
      SCOPED_TRACE(round);
      size_t exported = 0;
      const double export_s = Seconds([&] {
        EXPECT_EQ(mabutrace_export_json(
                      [](void* u, const char*, size_t n) {
                        *static_cast<size_t*>(u) += n;
                        return 0;
                      },
                      &exported),
                  MABUTRACE_OK);
      });
      EXPECT_LT(export_s, kExportBound) << "the program's own export";
      EXPECT_GT(exported, size_t(4) << 20) << "an export the kernel's buffers cannot swallow";
      const double flush_s = Seconds([] { EXPECT_EQ(mabutrace_flush_output(), MABUTRACE_OK); });
      EXPECT_LT(flush_s, kExportBound) << "mabutrace_flush_output";

      RawReply page, trace;
      // (Waiting longer than the bound, so that a miss shows as time.)
      const double page_s = Seconds([&] { page = Raw(port, Get("/"), kPatienceMs); });
      EXPECT_LT(page_s, kRequestBound) << "GET /";
      const double trace_s = Seconds([&] { trace = Raw(port, Get("/trace.json"), kPatienceMs); });
      EXPECT_LT(trace_s, kRequestBound) << "GET /trace.json";
      // Checked after the clock stopped.
      EXPECT_EQ(page.status, 200);
      EXPECT_EQ(trace.status, 200);
      if (round == 0) {
        const http_contract::Wire wire = http_contract::ParseWire(trace.text, false);
        EXPECT_TRUE(wire.complete);
        EXPECT_TRUE(Json::accept(wire.body));
      }
      std::this_thread::sleep_for(1s);
    }
    for (auto& t : readers) t.join();
  }
  mabutrace_stop_server();
  mabutrace_deinit();
}

TEST_F(HttpServer, ClientThatLeavesMidStreamDoesNotWedgeExports) {
  Writers writers;
  WaitForEvents(5000);
  const uint16_t port = StartOnFreePort();
  for (int i = 0; i < 3; ++i) {
    const int fd = Connect(port);
    ASSERT_GE(fd, 0);
    SendAll(fd, Get("/trace.json"));
    char buf[256];
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kIoTimeoutMs) > 0) (void)::recv(fd, buf, sizeof buf, 0);
    ::close(fd);  // with most of the body unread
  }
  ExpectHealthy(port);
}

// metadata.http_responses_cut of an export now (-1 if it has none).
int64_t ResponsesCut() {
  std::string text;
  EXPECT_EQ(mabutrace_export_json(
                [](void* u, const char* d, size_t n) {
                  static_cast<std::string*>(u)->append(d, n);
                  return 0;
                },
                &text),
            MABUTRACE_OK);
  const Json doc = Json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc.contains("metadata") || !doc["metadata"].contains("http_responses_cut")) return -1;
  return doc["metadata"]["http_responses_cut"].get<int64_t>();
}

// A response cut short is counted, not silent: http_responses_cut in the
// metadata of later exports (docs/format.md). Clients with a small receive
// window (so that the server cannot have written the whole export into the
// kernel's buffers) take the head and leave. Mutation shown red:
// ConnectionStream::write returning -1 without Cut() (the count stays 0).
TEST_F(HttpServer, CutResponsesAreCountedInTheMetadata) {
  Writers writers;
  WaitForEvents(5000);
  const uint16_t port = StartOnFreePort();
  EXPECT_EQ(ResponsesCut(), 0);
  for (int i = 0; i < 3; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    const int window = 4096;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &window, sizeof window);  // before connect: the window
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    SendAll(fd, Get("/trace.json"));
    // Wait for the head (a loaded machine may take seconds): closing before
    // the server has read the request would leave it nothing to cut.
    char buf[256];
    ssize_t got = 0;
    for (int tries = 0; tries < 2 && got <= 0; ++tries) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, kIoTimeoutMs) > 0) got = ::recv(fd, buf, sizeof buf, 0);
    }
    ASSERT_GT(got, 0) << "no response head from the server";
    ::close(fd);  // with most of the body unread: a reset
  }
  // Each worker sees its write fail at its next send (bounded wait: 10 s).
  int64_t cut = 0;
  for (int i = 0; i < 200 && cut < 3; ++i) {
    cut = ResponsesCut();
    if (cut < 3) std::this_thread::sleep_for(50ms);
  }
  // Usually 3; a response the kernel's send buffer took whole before the
  // client's reset came back is not cut (seen once on a loaded CI machine:
  // 2), so at least one, at most the three.
  EXPECT_GE(cut, 1);
  EXPECT_LE(cut, 3);
  ExpectHealthy(port);
  EXPECT_EQ(ResponsesCut(), cut) << "a whole response is not counted";
}

}  // namespace
