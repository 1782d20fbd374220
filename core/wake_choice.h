// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <array>
#include <chrono>

namespace histeq {

// Whether a frame that finds a pool's workers asleep (after an idle gap, as a live stream's
// frames do) should wake them or run on the caller alone, learnt from such frames' times. Waking
// costs the caller a system call and the frame the time until a worker is up: a few
// microseconds on most machines, over a hundred on a virtual machine whose other vCPUs sleep (the
// hypervisor wakes a vCPU), where a small frame is done sooner alone. Each way's time is the
// median of its last kSamples frames (the lower middle one of two); the faster is taken, and now
// and then the other (a probe), so that a change in either is seen. A probe is itself a slower
// frame (at 4K one thread alone takes up to twice as long as two), a late frame in a live
// pipeline near its budget: probes come kProbeEvery frames apart at first, each that is slower
// than the way taken doubles the wait for the next, up to kProbeEveryMost, and one faster brings
// the next after kProbeEvery again. The first frames try waking, then alone.
class WakeChoice {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kSamples = 3;
  static constexpr int kProbeEvery = 16;
  static constexpr int kProbeEveryMost = 256;

  // Whether the next such frame wakes the workers.
  bool wake();
  // That frame took `time`; nothing where no wake() came since the last took().
  void took(Clock::duration time);
  // Frames of another size come: what was learnt does not hold for them.
  void forget();

 private:
  // The last kSamples times (those taken, where fewer).
  struct Times {
    std::array<Clock::duration, kSamples> samples{};
    int count = 0;  // at most kSamples
    int next = 0;
    void add(Clock::duration time) {
      samples[std::size_t(next)] = time;
      next = (next + 1) % kSamples;
      if (count < kSamples) ++count;
    }
    Clock::duration median() const;
  };

  Times woken_, alone_;
  bool woke_ = false;
  bool pending_ = false;
  int since_probe_ = 0;
  int probe_every_ = kProbeEvery;
  // The pending frame is a probe, to be compared with the median of the way not taken.
  bool probing_ = false;
  Clock::duration probed_against_{};
};

}  // namespace histeq
