// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq-pool-bench: what a second thread of the CPU core's RowPool brings to a frame, on this
// machine. A frame is two runs (count, then map) of eight chunks of fixed busy work each, as a
// 720p frame's passes split over two threads; the caller either sleeps between frames, as a
// live stream leaves it idle, or stays busy, as a stream of back-to-back frames keeps it. Prints
// the median frame time against the same work on one thread, and in how many frames the second
// thread did none, some or all of a run's chunks: where the kernel puts a woken worker on the
// caller's core (or the hypervisor has parked the other one), it does none or all of them. After
// an idle gap the pool runs a frame on the caller alone where such frames have taken less time
// that way (WakeChoice); the worker's "none" counts those frames too.
//   histeq-pool-bench [--chunk-us N] [--frames N]
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "row_pool.h"
#include "usable_cores.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kChunks = 8;
constexpr std::chrono::microseconds kIdle{1000};
constexpr std::chrono::microseconds kBusyBetween{100};

void busy_for(std::chrono::duration<double, std::micro> span) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(span);
  while (Clock::now() < until) {
  }
}

// How many of a run's chunks the worker took, over the frames: none, some, all.
struct Split {
  int none = 0, some = 0, all = 0;
  void add(int chunks) { (chunks == 0 ? none : chunks == kChunks ? all : some)++; }
};

void measure(double chunk_us, int frames, bool idle_between) {
  histeq::RowPool pool(2);
  std::array<Split, 2> splits;
  std::vector<double> frame_us;
  const auto chunk = std::chrono::duration<double, std::micro>(chunk_us);
  for (int f = 0; f < frames; ++f) {
    if (idle_between) {
      std::this_thread::sleep_for(kIdle);
    } else {
      busy_for(kBusyBetween);
    }
    std::array<std::atomic<int>, 2> by_worker{};
    const auto start = Clock::now();
    for (int run = 0; run < 2; ++run) {
      pool.run(2, kChunks, [&](unsigned thread, int begin, int end) {
        if (thread != 0) by_worker[run] += end - begin;
        busy_for(chunk * (end - begin));
      });
    }
    pool.end_frame();
    frame_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    for (int run = 0; run < 2; ++run) splits[run].add(by_worker[run]);
  }
  std::sort(frame_us.begin(), frame_us.end());
  const double alone = 2 * kChunks * chunk_us;
  const double median = frame_us[frame_us.size() / 2];
  std::printf("%-22s %9.0f %9.0f %7.2fx", idle_between ? "1 ms asleep before" : "busy before",
              alone, median, alone / median);
  for (const Split &s : splits) std::printf("   %4d %4d %4d", s.none, s.some, s.all);
  std::printf("\n");
}

}  // namespace

int main(int argc, char **argv) {
  double chunk_us = 15;
  int frames = 301;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--chunk-us") && i + 1 < argc) {
      chunk_us = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) {
      frames = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: histeq-pool-bench [--chunk-us N] [--frames N]\n");
      return 2;
    }
  }
  if (chunk_us <= 0 || frames < 1) {
    std::fprintf(stderr, "histeq-pool-bench: --chunk-us and --frames must be positive\n");
    return 2;
  }
  std::printf(
      "histeq-pool-bench: frames of two runs of %d chunks of %.0f us on two threads, %d frames, "
      "%u cores\n",
      kChunks, chunk_us, frames, histeq::usable_cores());
  std::printf("%-22s %9s %9s %8s   %-14s   %-14s\n", "between frames", "1 thread", "2 threads",
              "speedup", "count: worker", "map: worker");
  std::printf("%-22s %9s %9s %8s   %4s %4s %4s   %4s %4s %4s\n", "", "us", "us (p50)", "", "none",
              "some", "all", "none", "some", "all");
  measure(chunk_us, frames, true);
  measure(chunk_us, frames, false);
  return 0;
}
