// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_a_thread.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

namespace bench {

namespace {

using Clock = std::chrono::steady_clock;

// Every thread of a turn waits here before each frame until all have arrived; threads spin,
// so that none starts its frame late by a wake-up.
class SpinBarrier {
 public:
  explicit SpinBarrier(unsigned threads) : threads_(threads) {}

  void arrive_and_wait() {
    const unsigned phase = phase_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      arrived_.store(0, std::memory_order_relaxed);
      phase_.store(phase + 1, std::memory_order_release);
      return;
    }
    while (phase_.load(std::memory_order_acquire) == phase) std::this_thread::yield();
  }

 private:
  const unsigned threads_;
  std::atomic<unsigned> arrived_{0};
  std::atomic<unsigned> phase_{0};
};

// One turn: `threads` threads, `in_a_row` frames each; the slowest thread's time of each frame
// from the first timed one on.
std::vector<double> turn_seconds(const std::vector<Equalize> &equalizers,
                                 const std::vector<std::uint8_t> &frame, int in_a_row) {
  const auto threads = unsigned(equalizers.size());
  std::vector<std::vector<double>> seconds(threads, std::vector<double>(std::size_t(in_a_row)));
  SpinBarrier barrier(threads);
  const auto run = [&](unsigned t) {
    std::vector<std::uint8_t> work(frame.size());
    for (int k = 0; k < in_a_row; ++k) {
      std::memcpy(work.data(), frame.data(), frame.size());
      barrier.arrive_and_wait();
      const auto t0 = Clock::now();
      equalizers[t](work.data());
      seconds[t][std::size_t(k)] = std::chrono::duration<double>(Clock::now() - t0).count();
    }
  };
  std::vector<std::thread> others;
  for (unsigned t = 1; t < threads; ++t) others.emplace_back(run, t);
  run(0);
  for (std::thread &other : others) other.join();
  std::vector<double> slowest;
  for (int k = 2; k < in_a_row; ++k) {
    double s = 0;
    for (unsigned t = 0; t < threads; ++t) s = std::max(s, seconds[t][std::size_t(k)]);
    slowest.push_back(s);
  }
  return slowest;
}

}  // namespace

std::vector<double> fps_frame_a_thread(const std::vector<ThreadsOfFrames> &contenders,
                                       const std::vector<std::uint8_t> &frame, int runs,
                                       int in_a_row) {
  // The first two frames of a turn are not timed: a third at least is.
  in_a_row = std::max(in_a_row, 3);
  // Made once, so that a pool's threads are as old as they are in a transcode.
  std::vector<std::vector<Equalize>> equalizers(contenders.size());
  for (std::size_t c = 0; c < contenders.size(); ++c)
    for (unsigned t = 0; t < contenders[c].threads; ++t)
      equalizers[c].push_back(contenders[c].make());
  std::vector<std::vector<double>> seconds(contenders.size());
  for (int i = 0; i <= runs; ++i) {
    for (std::size_t turn = 0; turn < contenders.size(); ++turn) {
      const std::size_t c = (std::size_t(i) + turn) % contenders.size();
      std::this_thread::sleep_for(kIdleBeforeTurn);
      const std::vector<double> s = turn_seconds(equalizers[c], frame, in_a_row);
      if (i > 0) seconds[c].insert(seconds[c].end(), s.begin(), s.end());
    }
  }
  std::vector<double> fps;
  for (std::size_t c = 0; c < contenders.size(); ++c)
    fps.push_back(contenders[c].threads * median_fps(std::move(seconds[c])));
  return fps;
}

}  // namespace bench
