// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace histeq {

// What waking a pool's sleeping workers costs a frame, from the last wake-ups, and whether a
// frame of so much work is worth it. Waking them costs the time L from asking them up until the
// first is up, and the caller's time N in the wake-up's system call, where it does no work (on a
// virtual machine whose other vCPUs sleep, L is 80-130 us and N up to 40: the hypervisor wakes a
// vCPU; elsewhere L can be a few microseconds or, now and then, hundreds, and N a few). A frame
// of work W then takes about L + (W - (L - N)) / 2 on the caller and one worker, (W - L - N) / 2
// less than W alone, or N more where the worker comes too late to help. A frame is worth it
// where that gain, over the last kSamples wake-ups' L and their median N, adds up to more than
// nothing. Every kProbeEvery-th frame found not worth it wakes them all the same, so that a cost
// that has fallen is seen. ask, asked and worth_waking are the caller's, up a worker's.
class WakeCost {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kSamples = 5;
  static constexpr int kProbeEvery = 16;

  // The caller asks sleeping workers up at `at` (before its system call); while an earlier
  // request is unanswered, L is measured from that one.
  void ask(Clock::time_point at);
  // The caller's system call took `notify`.
  void asked(Clock::duration notify);
  // A worker woke at `at`; the first after a request answers it.
  void up(Clock::time_point at);
  // Whether a frame after one of `work` (one thread's time) should wake the workers: yes
  // before any wake-up was measured.
  bool worth_waking(Clock::duration work);

 private:
  // The last kSamples samples (those taken, where fewer).
  struct Samples {
    std::array<Clock::duration, kSamples> samples{};
    int count = 0;
    int size() const { return count < kSamples ? count : kSamples; }
    void add(Clock::duration sample) { samples[std::size_t(count++ % kSamples)] = sample; }
    Clock::duration median() const;
  };

  // When the first worker was up after the pending request (steady clock, nanoseconds; 0: not
  // yet).
  std::atomic<std::int64_t> up_ns_{0};
  Clock::time_point asked_at_{};
  bool pending_ = false;
  Samples latency_, notify_;
  int not_worth_ = 0;
};

}  // namespace histeq
