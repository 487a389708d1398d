// SPDX-License-Identifier: MIT
// uart_stream: streams a small traced workload as the binary stream
// (docs/stream-format.md) to a serial device, as a firmware does on its
// UART (seed 000 §3.4): the output callback writes to the port.
//
//   uart_stream DEVICE [--baud N] [--items N] [--tee FILE]
//
// DEVICE may also be a plain file (the termios setup is skipped), which is
// how the tests make stream files; --tee FILE also writes every byte sent
// to FILE (tests compare it with what a capture received). The workload is deterministic: on thread
// "main", N x { scope "produce" { counter "produced" = i, flow out
// "send" } }, then on thread "worker \u2713" N x { scope "consume" { flow in
// "recv", instant "done" } }. Exit 0 ok, 1 device error, 2 usage.
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mabutrace/mabutrace.h"

namespace {

int g_fd = -1;
FILE* g_tee = nullptr;  // --tee: a copy of every byte sent
bool g_write_failed = false;

// The output callback has no user pointer: the port is a global.
void WriteToPort(const uint8_t* data, size_t len) {
  if (g_tee && std::fwrite(data, 1, len, g_tee) != len) g_write_failed = true;
  while (len && !g_write_failed) {
    const ssize_t n = ::write(g_fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      g_write_failed = true;
      return;
    }
    data += n;
    len -= size_t(n);
  }
}

bool SetRaw(int fd, unsigned baud) {
  termios tio{};
  if (::tcgetattr(fd, &tio) != 0) return true;  // not a tty: a file
  ::cfmakeraw(&tio);
  tio.c_cflag |= CLOCAL | CREAD;
  speed_t s = B115200;
  switch (baud) {
    case 9600: s = B9600; break;
    case 57600: s = B57600; break;
    case 115200: s = B115200; break;
    case 230400: s = B230400; break;
    case 460800: s = B460800; break;
    case 921600: s = B921600; break;
    default: return false;
  }
  ::cfsetispeed(&tio, s);
  ::cfsetospeed(&tio, s);
  return ::tcsetattr(fd, TCSANOW, &tio) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device;
  unsigned baud = 115200;
  int items = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--baud" || a == "--items") && i + 1 < argc) {
      const long v = std::strtol(argv[++i], nullptr, 10);
      if (v <= 0) return 2;
      if (a == "--baud")
        baud = unsigned(v);
      else
        items = int(v);
    } else if (a == "--tee" && i + 1 < argc) {
      g_tee = std::fopen(argv[++i], "wb");
      if (!g_tee) {
        std::fprintf(stderr, "uart_stream: %s: %s\n", argv[i], std::strerror(errno));
        return 1;
      }
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: uart_stream DEVICE [--baud N] [--items N] [--tee FILE]\n");
      return 0;
    } else if (device.empty() && a[0] != '-') {
      device = a;
    } else {
      std::fprintf(stderr, "uart_stream: unexpected '%s'\n", a.c_str());
      return 2;
    }
  }
  if (device.empty()) {
    std::fprintf(stderr, "usage: uart_stream DEVICE [--baud N] [--items N] [--tee FILE]\n");
    return 2;
  }
  g_fd = ::open(device.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_CREAT | O_TRUNC, 0644);
  if (g_fd < 0 || !SetRaw(g_fd, baud)) {
    std::fprintf(stderr, "uart_stream: %s: %s\n", device.c_str(), std::strerror(errno));
    return 1;
  }
  mabutrace_config_t cfg;
  mabutrace_config_default(&cfg);
  cfg.buffer_size = 1 << 20;  // nothing recycled before a flush
  if (mabutrace_init_with_config(&cfg) != MABUTRACE_OK) return 1;
  mabutrace_set_output_callback(WriteToPort);
  mabutrace_set_thread_name("main");

  std::vector<uint16_t> links(size_t(items), 0);
  for (int i = 0; i < items; ++i) {
    TRACE_SCOPE("produce", COLOR_ORANGE);
    TRACE_COUNTER("produced", int64_t(i));
    TRACE_FLOW_OUT(&links[size_t(i)], "send");
  }
  mabutrace_flush_output();
  std::thread worker([&] {
    mabutrace_set_thread_name("worker \xe2\x9c\x93");
    for (int i = 0; i < items; ++i) {
      TRACE_SCOPE("consume");
      TRACE_FLOW_IN(links[size_t(i)], "recv");
      TRACE_INSTANT("done");
    }
  });
  worker.join();
  mabutrace_flush_output();
  mabutrace_deinit();
  ::close(g_fd);
  if (g_tee && std::fclose(g_tee) != 0) g_write_failed = true;
  if (g_write_failed) {
    std::fprintf(stderr, "uart_stream: %s: write failed\n", device.c_str());
    return 1;
  }
  return 0;
}
