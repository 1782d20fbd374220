// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Runs a pipeline script as a child process with its stdout and stderr captured, so tests can
// wait for a line, send it a signal (Ctrl-C is SIGINT) and read what it said.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

class Subprocess {
 public:
  // Starts argv[0] (looked up on PATH) with the current environment. Throws on failure.
  explicit Subprocess(const std::vector<std::string> &argv);
  ~Subprocess();  // kills (SIGKILL) and reaps a child that is still running
  Subprocess(const Subprocess &) = delete;
  Subprocess &operator=(const Subprocess &) = delete;

  // Reads output until stderr holds `text` or `timeout` passes; true when it appeared.
  bool wait_for_stderr(const std::string &text, std::chrono::milliseconds timeout);
  void send_signal(int signal_number);
  // Reads everything left and reaps the child: its exit code, or 128 + signal when killed.
  int wait();

  const std::string &out() const { return out_; }
  const std::string &err() const { return err_; }

 private:
  // One poll() round over both pipes; false when both are closed.
  bool read_some(int timeout_ms);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
};

// Runs to completion; returns the exit code as Subprocess::wait does.
int run_process(const std::vector<std::string> &argv, std::string *out = nullptr,
                std::string *err = nullptr);
