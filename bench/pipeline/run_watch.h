// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Watches one benchmark pipeline's bus from a thread of its own while the application pushes
// into appsrc. A push with block=true waits for the pipeline to take the buffer, so a pipeline
// that fails or stalls would hold the benchmark forever (stopping the pipeline does not wake a
// push into an appsrc that never started). On an error message, or when no EOS came within the
// limit, the watch says so on stderr, gives up, and lifts appsrc's queue limit, which wakes a
// blocked push; the pusher then sees gave_up() and stops.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <gst/app/gstappsrc.h>

class RunWatch {
 public:
  using Clock = std::chrono::steady_clock;

  RunWatch(GstElement *pipeline, GstAppSrc *appsrc, std::string name, std::chrono::seconds limit);
  ~RunWatch();  // waits for the thread, if wait_for_eos() did not
  RunWatch(const RunWatch &) = delete;
  RunWatch &operator=(const RunWatch &) = delete;

  // True once the watch gave up on the pipeline: push no more.
  bool gave_up() const { return gave_up_; }
  // Blocks until the pipeline posted EOS (true; `at` gets when) or the watch gave up on it.
  bool wait_for_eos(Clock::time_point *at);

 private:
  void watch(std::chrono::seconds limit);

  GstElement *pipeline_;
  GstAppSrc *appsrc_;
  std::string name_;
  std::atomic<bool> gave_up_{false};
  // Written by the thread before it ends; read after joining it.
  bool eos_ = false;
  Clock::time_point eos_at_;
  std::thread thread_;
};
