// SPDX-License-Identifier: MIT
// child_process.h: runs a program with its stdout and stderr captured, for
// tests that drive the demo as a user would (flags, output, signals).
#ifndef TESTS_EXAMPLES_CHILD_PROCESS_H
#define TESTS_EXAMPLES_CHILD_PROCESS_H

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

class ChildProcess {
 public:
  // Starts path with args (argv[0] is path). started() says if it worked.
  ChildProcess(const std::string& path, const std::vector<std::string>& args);
  // A child still running is killed (SIGKILL) and reaped: a failed test
  // never leaves a demo behind holding a port.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // The first stdout line starting with prefix, waiting up to timeout;
  // nullopt if it did not come (timeout, or the child closed stdout).
  std::optional<std::string> WaitForLine(const std::string& prefix, std::chrono::milliseconds timeout);
  // True while the child has not exited (and not been reaped).
  bool Running();
  // Exit status, 128 + signal if killed by one; nullopt on timeout (the
  // child keeps running; the destructor kills it).
  std::optional<int> Wait(std::chrono::milliseconds timeout);
  void Signal(int sig);

  // Everything captured so far.
  std::string Stdout() const;
  std::string Stderr() const;

 private:
  void ReadOutput(int out_fd, int err_fd);
  bool Reap(int options);

  pid_t pid_ = -1;
  std::optional<int> status_;
  mutable std::mutex mu_;
  std::condition_variable grew_;
  std::string out_, err_;
  bool out_closed_ = false;
  std::thread reader_;
};

#endif  // TESTS_EXAMPLES_CHILD_PROCESS_H
