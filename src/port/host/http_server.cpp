// SPDX-License-Identifier: MIT
// http_server.cpp: the host port's built-in HTTP server (R-C4), on
// cpp-httplib: the transport only. What is served (routes, header fields,
// the Host policy, statuses, the capture page, the bodies) is decided by
// src/http/http_service.h, the same for every port; this file binds and
// accepts, bounds each connection, lets httplib parse the request, and
// sends the service's answer through httplib. Limits and security notes:
// docs/http-server.md.
//
// Why the connection handling is ours: Debian ships cpp-httplib 0.11 as a
// compiled library (libcpp-httplib.so), so its compile-time limits
// (CPPHTTPLIB_REQUEST_URI_MAX_LENGTH, CPPHTTPLIB_HEADER_MAX_LENGTH, ...) are
// fixed inside that library and defining them here would change nothing.
// That version also has no limit on the number of header lines, reads a
// request line into memory until it ends, and lets a client that sends a
// byte every few seconds hold a worker forever. So each connection goes
// through ConnectionStream below, which bounds what a request may cost
// (bytes, total time, per-wait time) before httplib's parser sees it, and
// httplib only parses and routes. One request per connection: the page
// needs a handful of requests, and it keeps the bounds simple.
// Host only: the Arduino IDE and PlatformIO compile every source under src/
// for whatever board they target (src/mabutrace_port_inline.h picks the port).
#if (defined(__linux__) || defined(__APPLE__)) && !defined(ARDUINO) && !defined(ESP_PLATFORM)

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>

#include "../../http/http_service.h"
#include "mabutrace/mabutrace.h"
#include "ring_buffer.h"

namespace mabutrace::host_http {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// ---- Limits (SPEC §9; documented in docs/http-server.md) -----------------
// Request line + headers (+ any body) a client may send on a connection.
// Generous for browsers with cookies for 127.0.0.1 from other local tools;
// small next to anything that could hurt the traced process.
constexpr size_t kMaxRequestBytes = 16 * 1024;
// Request bodies: no route takes one; belt and braces for httplib's reader.
constexpr size_t kMaxPayloadBytes = 4 * 1024;
// The whole request must arrive within this, however slowly it trickles in.
constexpr milliseconds kRequestDeadline{5000};
// A response write that makes no progress for this long ends the connection.
constexpr milliseconds kWriteStall{5000};
// A whole response must be sent within this, from its first byte, however
// steadily a slow client reads: after it the connection is closed (an
// export without its last chunk, so the client knows it is cut). With
// kWorkers, this bounds how long clients can keep a new connection waiting
// for a worker. The runtime's export lock is not held while sending at
// all: an export is rendered into memory first (RenderBody), so a client's
// pace never delays other exports or the output stream.
constexpr milliseconds kResponseBudget{5000};
// Bytes handed to httplib per piece of a held body.
constexpr size_t kSendPiece = 64 * 1024;

// Waits are cut into slices so that stop() is noticed quickly.
constexpr milliseconds kPollSlice{100};
// Connections served at once; more wait in the accept queue. A stalled
// client holds one worker for at most kRequestDeadline.
constexpr size_t kWorkers = 4;

int PollFor(int fd, short events, milliseconds wait) {
  pollfd p{fd, events, 0};
  const int r = ::poll(&p, 1, int(wait.count()));
  if (r < 0) return errno == EINTR ? 0 : -1;
  return r;
}

// ---- One connection, with the bounds applied -------------------------------
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(int fd, const std::atomic<bool>& stopping)
      : fd_(fd), stopping_(stopping), deadline_(Clock::now() + kRequestDeadline) {}

  bool is_readable() const override { return begin_ != end_ || WaitReadable(); }
  bool is_writable() const override { return WaitWritable(); }

  ssize_t read(char* ptr, size_t size) override {
    if (begin_ == end_) {
      const ssize_t n = Fill();
      if (n <= 0) return n;
    }
    const size_t n = std::min(size, end_ - begin_);
    memcpy(ptr, buf_ + begin_, n);
    if (!line_seen_ && memchr(buf_ + begin_, '\n', n)) line_seen_ = true;
    begin_ += n;
    return ssize_t(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (size == 0) return 0;
    if (!writing_) {
      writing_ = true;
      response_deadline_ = Clock::now() + kResponseBudget;
    }
    for (;;) {
      if (!WaitWritable()) return Cut();
      const ssize_t n = ::send(fd_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        wrote_ = true;
        return n;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return Cut();
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) Describe(addr, len, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) Describe(addr, len, ip, port);
  }
  socket_t socket() const override { return fd_; }

  // After httplib gave up on a request without answering: tell the client
  // why, if it sent something (an idle connection is just closed).
  void AnswerRefusal() {
    if (wrote_ || received_ == 0 || stopping_.load(std::memory_order_relaxed)) return;
    uint16_t status = 0;
    if (over_limit_) {
      status = line_seen_ ? 431 : 414;
    } else if (timed_out_) {
      status = 408;
    } else {
      return;
    }
    const http::Response answer = http::ErrorResponse(status);
    char reply[http::kMaxHead + 64];
    size_t n = http::FormatHead(answer, /*close=*/true, reply, sizeof reply);
    if (n == 0 || answer.body.size > sizeof reply - n) return;
    memcpy(reply + n, answer.body.data, answer.body.size);
    n += answer.body.size;
    // Best effort: the client may be gone, and it must not make us wait.
    (void)::send(fd_, reply, n, MSG_NOSIGNAL | MSG_DONTWAIT);
  }

 private:
  // Refills buf_: bytes read, 0 at end of stream, -1 on error, limit,
  // deadline or stop.
  ssize_t Fill() {
    if (received_ >= kMaxRequestBytes) {
      over_limit_ = true;
      return -1;
    }
    for (;;) {
      if (!WaitReadable()) return -1;
      const size_t want = std::min(sizeof buf_, kMaxRequestBytes - received_);
      const ssize_t n = ::recv(fd_, buf_, want, MSG_DONTWAIT);
      if (n > 0) {
        begin_ = 0;
        end_ = size_t(n);
        received_ += size_t(n);
        return n;
      }
      if (n == 0) return 0;
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
    }
  }

  bool WaitReadable() const {
    for (;;) {
      if (stopping_.load(std::memory_order_relaxed)) return false;
      const auto left = std::chrono::duration_cast<milliseconds>(deadline_ - Clock::now());
      if (left.count() <= 0) {
        timed_out_ = true;
        return false;
      }
      const int r = PollFor(fd_, POLLIN, std::min(left, kPollSlice));
      if (r < 0) return false;
      if (r > 0) return true;
    }
  }

  // Writable within kWriteStall and before the response's budget ends.
  bool WaitWritable() const {
    auto give_up = Clock::now() + kWriteStall;
    if (writing_ && response_deadline_ < give_up) give_up = response_deadline_;
    for (;;) {
      if (stopping_.load(std::memory_order_relaxed)) return false;
      const auto left = std::chrono::duration_cast<milliseconds>(give_up - Clock::now());
      if (left.count() <= 0) return false;
      const int r = PollFor(fd_, POLLOUT, std::min(left, kPollSlice));
      if (r < 0) return false;
      if (r > 0) return true;
    }
  }

  // A write of the response failed (budget spent, stalled, client gone,
  // stopping): httplib drops the connection, the response is cut. Counted
  // once per response (keep-alive is off: one response per connection).
  ssize_t Cut() {
    if (!cut_) {
      cut_ = true;
      http::CountCutResponse();
    }
    return -1;
  }

  static void Describe(const sockaddr_storage& addr, socklen_t len, std::string& ip, int& port) {
    char host[NI_MAXHOST];
    char serv[NI_MAXSERV];
    if (::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, host, sizeof host, serv, sizeof serv,
                      NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
      ip = host;
      port = atoi(serv);
    }
  }

  const int fd_;
  const std::atomic<bool>& stopping_;
  const Clock::time_point deadline_;
  char buf_[4096];
  size_t begin_ = 0, end_ = 0;
  size_t received_ = 0;
  bool line_seen_ = false;  // the request line is complete
  bool over_limit_ = false;
  mutable bool timed_out_ = false;
  bool wrote_ = false;
  bool writing_ = false;  // the response has begun: its budget runs
  bool cut_ = false;      // counted by Cut()
  Clock::time_point response_deadline_{};
};

// ---- The server: httplib's parser and router behind our connection bounds --
class GuardedServer final : public httplib::Server {
 public:
  // Call with the listening socket bound.
  bool BoundToLoopback() const {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (::getsockname(svr_sock_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return false;
    if (addr.ss_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
      return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (addr.ss_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
      return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
             (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127);
    }
    return false;
  }

  void BeginStop() {
    stopping_.store(true, std::memory_order_relaxed);
    stop();
  }
  bool stopping() const { return stopping_.load(std::memory_order_relaxed); }

  // Whether requests must pass the service's DNS-rebinding Host check (set
  // once after bind, before the accept thread starts).
  void set_host_policy(http::HostPolicy policy) { host_policy_ = policy; }
  http::HostPolicy host_policy() const { return host_policy_; }

  // Closes the bound socket of a server whose accept loop never ran (httplib
  // only closes it from stop() or the loop).
  void CloseUnused() {
    const socket_t sock = svr_sock_.exchange(INVALID_SOCKET);
    if (sock != INVALID_SOCKET) ::close(sock);
  }

 private:
  // Replaces httplib's per-connection loop (same job as SSLServer's override).
  bool process_and_close_socket(socket_t sock) override {
    bool ok = false;
    if (!stopping()) {
      ConnectionStream stream(sock, stopping_);
      bool closed = false;
      try {
        ok = process_request(stream, /*close_connection=*/true, closed, nullptr);
      } catch (...) {
        ok = false;  // nothing may leave a worker thread
      }
      if (!ok) stream.AnswerRefusal();
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
  }

  std::atomic<bool> stopping_{false};
  http::HostPolicy host_policy_ = http::HostPolicy::kLoopbackNames;
};

// ---- The service's answers, through httplib --------------------------------------
http::Text TextOf(const std::string& s) { return http::Text{s.data(), s.size()}; }

// The body's write callback while rendering: appends to the held body.
int AppendToBody(void* user, const char* data, size_t len) {
  try {
    static_cast<std::string*>(user)->append(data, len);
    return 0;
  } catch (...) {
    return 1;  // out of memory: must not unwind through the exporter
  }
}

// Runs the export of `answer` into memory, holding the runtime's export
// lock only as long as the export itself takes (no socket I/O under it).
// nullptr if it failed (not initialized any more, out of memory).
std::shared_ptr<const std::string> RenderBody(const http::Response& answer) {
  auto body = std::make_shared<std::string>();
  if (http::WriteBody(answer, &AppendToBody, body.get()) != MABUTRACE_OK) return nullptr;
  return body;
}

// Hands the next piece of body[offset ..) to httplib's sink.
bool SendPiece(const std::string& body, size_t offset, httplib::DataSink& sink) {
  if (offset >= body.size()) return true;
  return sink.write(body.data() + offset, std::min(kSendPiece, body.size() - offset));
}

// Puts the service's answer into httplib's response as it stands. httplib
// adds the framing field (Content-Length, or Transfer-Encoding for the
// chunked provider; neither for kClose, which httplib ends by closing) and
// Connection: close, and leaves out the body of an answer to HEAD itself.
void Send(const http::Response& answer, httplib::Response& res) {
  std::shared_ptr<const std::string> body;
  if (answer.framing != http::Framing::kLength && answer.send_body) {
    body = RenderBody(answer);
    // The head is not out yet: a failed export can still say so.
    if (!body) return Send(http::ErrorResponse(mabutrace_is_initialized() ? 500 : 503), res);
  }
  res.status = answer.status;
  for (size_t i = 0; i < answer.header_count; ++i) {
    res.set_header(answer.headers[i].name, answer.headers[i].value);
  }
  if (answer.framing == http::Framing::kLength) {
    res.set_content(answer.body.data, answer.body.size, answer.content_type);
    return;
  }
  // A failed or budget-cut write returns false: httplib drops the
  // connection without the final chunk, so the client knows the body is
  // incomplete. (For HEAD no provider is called: body stays null.)
  auto provider = [body](size_t offset, httplib::DataSink& sink) {
    if (!body) return false;
    if (!SendPiece(*body, offset, sink)) return false;
    if (offset + kSendPiece >= body->size()) sink.done();
    return true;
  };
  if (answer.framing == http::Framing::kClose) {
    res.set_content_provider(answer.content_type, provider);
  } else {
    res.set_chunked_content_provider(answer.content_type, provider);
  }
}

// The service's answer to a request httplib has parsed. httplib would
// apply a Range header to the body (a part of the page, or a plain body
// under Content-Type multipart/byteranges for several ranges); the service
// ignores Range (RFC 9110 §14.2) and says Accept-Ranges: none, so the
// ranges httplib parsed are dropped. (The Request is httplib's own
// non-const object, handed to handlers as const.)
void Serve(const httplib::Request& req, httplib::Response& res, http::HostPolicy policy) {
  auto& mutable_req = const_cast<httplib::Request&>(req);
  mutable_req.ranges.clear();
  // cpp-httplib compresses with brotli at quality 11 when the client accepts
  // it: seconds for a few MB of JSON, past the response budget (browsers
  // all send "br"); gzip takes milliseconds. Offer httplib gzip only.
  auto enc = mutable_req.headers.find("Accept-Encoding");
  if (enc != mutable_req.headers.end() && enc->second.find("br") != std::string::npos) {
    if (enc->second.find("gzip") != std::string::npos) {
      enc->second = "gzip";
    } else {
      mutable_req.headers.erase(enc);
    }
  }
  const std::string host = req.get_header_value("Host");
  const http::Version version = req.version == "HTTP/1.0" ? http::Version::kHttp10 : http::Version::kHttp11;
  const http::Request request{http::MethodFromToken(TextOf(req.method)), TextOf(req.target), TextOf(host), version};
  Send(http::Answer(request, policy), res);
}

// Everything but the bind address; before bind (socket options apply there).
void Configure(GuardedServer& server) {
  server.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  // httplib's default adds SO_REUSEPORT, which would let a second process
  // listen on the same port and receive half of the requests. SO_REUSEADDR
  // only lets us rebind right after a restart (connections in TIME_WAIT).
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_payload_max_length(kMaxPayloadBytes);
  server.set_keep_alive_max_count(1);
  server.set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(kRequestDeadline).count());
  server.set_write_timeout(std::chrono::duration_cast<std::chrono::seconds>(kWriteStall).count());

  // Every request goes to the service as soon as httplib has parsed its
  // head: before httplib reads a body, and instead of httplib's router
  // (whose patterns are regexes: "." would match any byte). The target is
  // passed as received; httplib's decoded path is not used.
  GuardedServer* self = &server;
  server.set_pre_routing_handler([self](const httplib::Request& req, httplib::Response& res) {
    Serve(req, res, self->host_policy());
    return httplib::Server::HandlerResponse::Handled;
  });

  // Errors httplib produces itself (400 for a malformed request, ...) get
  // the service's error answer; exceptions a 500 without the exception
  // text. Its 416 for a malformed Range is no error of ours: Range is
  // ignored (http_service.h), so that request is served as any other.
  server.set_error_handler([self](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 416) {
      res = httplib::Response();
      Serve(req, res, self->host_policy());
      return;
    }
    if (res.body.empty()) Send(http::ErrorResponse(uint16_t(res.status)), res);
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res = httplib::Response();  // nothing half-set by the handler that threw
    Send(http::ErrorResponse(500), res);
  });
}

// ---- Lifecycle ---------------------------------------------------------------
// Set once the State below is destroyed (static destruction at exit); a
// late stop (e.g. mabutrace_deinit from another static destructor) then
// finds nothing to do instead of a destroyed mutex. Trivially destructible.
std::atomic<bool> g_state_gone{false};

struct State {
  std::mutex mutex;  // start/stop may come from any thread
  std::unique_ptr<GuardedServer> server;
  std::thread thread;
  std::atomic<uint16_t> port{0};

  // A process that exits with the server running must not std::terminate on
  // a joinable thread: stop it like mabutrace_stop_server().
  ~State() {
    Stop();
    g_state_gone.store(true);
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!server) return;
    server->BeginStop();
    // Joined under the lock so that a stop (the deinit hook in particular)
    // returns only once no request can touch the runtime any more.
    thread.join();
    server.reset();
    port.store(0, std::memory_order_relaxed);
  }
};

// nullptr after static destruction.
State* GetState() {
  if (g_state_gone.load()) return nullptr;
  static State state;
  return &state;
}

void StopServer() {
  if (State* st = GetState()) st->Stop();
}

std::unique_ptr<GuardedServer> MakeServer() {
  // httplib's constructor sets SIGPIPE to SIG_IGN for the whole process. We
  // never need that (every send uses MSG_NOSIGNAL), so the application's own
  // choice is put back.
  struct sigaction previous {};
  const bool saved = ::sigaction(SIGPIPE, nullptr, &previous) == 0;
  auto server = std::make_unique<GuardedServer>();
  if (saved) ::sigaction(SIGPIPE, &previous, nullptr);
  return server;
}

int Start(const char* bind_address, uint16_t port) {
  if (!bind_address || !*bind_address) return MABUTRACE_ERR_INVALID_ARG;
  State* st = GetState();
  if (!st) return MABUTRACE_ERR_SERVER;  // the process is exiting
  std::lock_guard<std::mutex> lock(st->mutex);
  if (!mabutrace_is_initialized()) return MABUTRACE_ERR_NOT_INITIALIZED;
  if (st->server) return MABUTRACE_ERR_ALREADY_RUNNING;

  auto server = MakeServer();
  Configure(*server);
  int bound = -1;
  if (port == 0) {
    bound = server->bind_to_any_port(bind_address);
  } else if (server->bind_to_port(bind_address, port)) {
    bound = port;
  }
  if (bound <= 0) {
    server->CloseUnused();
    return MABUTRACE_ERR_SERVER;
  }
  server->set_host_policy(server->BoundToLoopback() ? http::HostPolicy::kLoopbackNames : http::HostPolicy::kAnyName);

  SetDeinitHook(&StopServer);
  auto finished = std::make_shared<std::atomic<bool>>(false);
  GuardedServer* raw = server.get();
  std::thread thread;
  try {
    thread = std::thread([raw, finished] {
      try {
        raw->listen_after_bind();
      } catch (...) {
      }
      finished->store(true, std::memory_order_release);
    });
  } catch (...) {
    server->CloseUnused();
    throw;
  }
  // httplib's stop() does nothing until the accept loop runs; wait for it
  // so that a stop right after this start cannot be lost.
  while (!raw->is_running() && !finished->load(std::memory_order_acquire)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  st->server = std::move(server);
  st->thread = std::move(thread);
  st->port.store(uint16_t(bound), std::memory_order_relaxed);
  return MABUTRACE_OK;
}

}  // namespace
}  // namespace mabutrace::host_http

#if defined(__SANITIZE_THREAD__)
// TSan builds only. Debian's libcpp-httplib.so is not instrumented, so TSan
// sees the memcpy/memcmp it makes but not its synchronisation (e.g. the
// inlined fast path of a function-local static's guard) and reports races
// on httplib's own data between worker threads. Ignore what that library
// does; our code around it stays checked. Weak: a program's own
// suppressions replace these.
extern "C" __attribute__((weak)) const char* __tsan_default_suppressions() {
  return "called_from_lib:libcpp-httplib.so\n";
}
#endif

extern "C" {

int mabutrace_start_server(uint16_t port) { return mabutrace_start_server_on("127.0.0.1", port); }

int mabutrace_start_server_on(const char* bind_address, uint16_t port) {
  try {
    return mabutrace::host_http::Start(bind_address, port);
  } catch (const std::bad_alloc&) {
    return MABUTRACE_ERR_NO_MEMORY;
  } catch (...) {
    return MABUTRACE_ERR_SERVER;  // e.g. std::system_error: no thread
  }
}

uint16_t mabutrace_server_port(void) {
  const auto* st = mabutrace::host_http::GetState();
  return st ? st->port.load(std::memory_order_relaxed) : 0;
}

void mabutrace_stop_server(void) {
  try {
    mabutrace::host_http::StopServer();
  } catch (...) {
  }
}

}  // extern "C"

#endif  // host
