// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Watches one benchmark pipeline's bus from a thread of its own while the application pushes
// into appsrc. A push with block=true waits for the pipeline to take the buffer, so a pipeline
// that fails or stalls would hold the benchmark forever (stopping the pipeline does not wake a
// push into an appsrc that never started). On an error message, or when no EOS came within the
// limit of the whole run, the watch says so on stderr, gives up, lifts appsrc's queue limit,
// which wakes a blocked push, and sets the application's buffer pool flushing, which wakes a
// blocked acquire; the pusher then sees gave_up() and stops.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <gst/app/gstappsrc.h>

// An ERROR message as "message (debug details)".
std::string error_text(GstMessage *error);

class RunWatch {
 public:
  using Clock = std::chrono::steady_clock;

  // `name` heads what the watch prints; `pool` is the one the application acquires from.
  RunWatch(GstElement *pipeline, GstAppSrc *appsrc, GstBufferPool *pool, std::string name,
           std::chrono::seconds limit);
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
  GstBufferPool *pool_;
  std::string name_;
  std::atomic<bool> gave_up_{false};
  // Written by the thread before it ends; read after joining it.
  bool eos_ = false;
  Clock::time_point eos_at_;
  std::thread thread_;
};
