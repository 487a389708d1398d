// SPDX-License-Identifier: MIT
// capture_serial.cpp: see capture.h (RunCaptureSerial).
#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "capture.h"
#include "cli_io.h"
#include "convert.h"

namespace mabutrace::cli {
namespace {

std::atomic<bool> g_stop{false};
void OnSigint(int) { g_stop = true; }

std::optional<speed_t> BaudConstant(unsigned baud) {
  switch (baud) {
    case 9600: return B9600;
    case 19200: return B19200;
    case 38400: return B38400;
    case 57600: return B57600;
    case 115200: return B115200;
    case 230400: return B230400;
    case 460800: return B460800;
    case 500000: return B500000;
    case 921600: return B921600;
    case 1000000: return B1000000;
    case 2000000: return B2000000;
    case 3000000: return B3000000;
    case 4000000: return B4000000;
    default: return std::nullopt;
  }
}

}  // namespace

int RunCaptureSerial(const std::string& device, unsigned baud, double seconds, const std::string& out, Format format) {
  const auto speed = BaudConstant(baud);
  if (!speed) {
    std::fprintf(stderr, "mabutrace: capture --serial: unsupported baud rate %u\n", baud);
    return kExitUsage;
  }
  const int fd = ::open(device.c_str(), O_RDONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "mabutrace: %s: %s\n", device.c_str(), std::strerror(errno));
    return kExitBadInput;
  }
  termios tio{};
  if (::tcgetattr(fd, &tio) == 0) {  // not a tty (e.g. a FIFO): read it as is
    ::cfmakeraw(&tio);
    tio.c_cflag |= CLOCAL | CREAD;
    ::cfsetispeed(&tio, *speed);
    ::cfsetospeed(&tio, *speed);
    if (::tcsetattr(fd, TCSANOW, &tio) != 0) {
      std::fprintf(stderr, "mabutrace: %s: %s\n", device.c_str(), std::strerror(errno));
      ::close(fd);
      return kExitBadInput;
    }
  }
  auto f = OutputFile::Create(out);
  if (!f) {
    ::close(fd);
    return kExitBadInput;
  }
  std::unique_ptr<Converter> conv;
  if (format != Format::kRaw) conv = std::make_unique<Converter>(format, f->get(), device);

  g_stop = false;
  struct sigaction sa {
  }, old_sa{};
  sa.sa_handler = OnSigint;  // no SA_RESTART: poll returns EINTR at once
  ::sigaction(SIGINT, &sa, &old_sa);
  const bool progress = ::isatty(STDERR_FILENO);
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t total = 0;
  int rc = kExitOk;
  uint8_t buf[4096];
  while (!g_stop) {
    if (seconds > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= seconds) break;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, 100);
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (r == 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;  // end of file
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno != EIO) {  // EIO: the other end of a pty hung up
        std::fprintf(stderr, "mabutrace: %s: %s\n", device.c_str(), std::strerror(errno));
        rc = kExitBadInput;
      }
      break;
    }
    total += uint64_t(n);
    if (conv) {
      conv->Feed(buf, size_t(n));
    } else if (!f->Write(buf, size_t(n)) || std::fflush(f->get()) != 0) {
      // Flushed per read: a raw capture on disk is complete up to the last
      // byte received, even if the tool is killed.
      break;  // f->Finish says why
    }
    if (progress) std::fprintf(stderr, "\r%llu bytes", static_cast<unsigned long long>(total));
  }
  ::sigaction(SIGINT, &old_sa, nullptr);
  if (progress) std::fprintf(stderr, "\n");
  ::close(fd);
  if (conv) {
    const int crc = conv->Finish();
    if (rc == kExitOk) rc = crc;
  }
  if (!f->Finish()) rc = kExitBadInput;
  return rc;
}

}  // namespace mabutrace::cli
