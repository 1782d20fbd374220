// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace histeq {

// A fixed set of worker threads that share a frame's rows. Threads are created once, not per
// frame: at 60 fps thread start-up would cost more than small frames. The rows go out in chunks,
// taken one at a time by whichever thread is free, the caller's first: a worker that wakes late
// (tens of microseconds on a loaded or virtual machine, a tenth of a 1080p frame) takes fewer
// chunks instead of holding the frame back.
class RowPool {
 public:
  using Clock = std::chrono::steady_clock;
  // band(thread, begin, end): rows [begin, end) on thread `thread` (0: the caller).
  using Band = std::function<void(unsigned thread, int row_begin, int row_end)>;

  // threads == 0 means one per core.
  explicit RowPool(unsigned threads);
  ~RowPool();
  RowPool(const RowPool &) = delete;
  RowPool &operator=(const RowPool &) = delete;

  unsigned size() const { return unsigned(workers_.size()) + 1; }
  // The threads asked for (one per core for 0); size() is fewer when some could not start.
  unsigned requested() const { return requested_; }

  // Runs band(thread, begin, end) over chunks of consecutive rows that cover [0, rows) once
  // each, on threads 0 .. threads - 1 (1..size()), and returns when all are done. A thread may
  // take any number of chunks, in any order, or none; one thread's calls never overlap, so a
  // band may add into a per-thread total. Not re-entrant: one caller at a time.
  // `then`: whether the caller starts another run right after this one (a frame's map after its
  // count), which the workers then wait for awake instead of going to sleep.
  enum class Then { kSleep, kAnotherRun };
  void run(unsigned threads, int rows, const Band &band, Then then = Then::kSleep);

 private:
  // The chunks each thread of a run gets on average: enough for a late worker to leave its
  // share to the others, few enough that a chunk's fixed costs stay small.
  static constexpr unsigned kChunksPerThread = 4;
  // How long a thread looks for work before it sleeps: a sleeping thread takes tens of microseconds
  // to wake, and on a virtual machine often wakes on the caller's core, where it takes the frame
  // over instead of sharing it. The caller waits for chunks that are being done; a worker told that
  // another run follows bridges the few microseconds until it comes.
  static constexpr std::chrono::microseconds kCallerSpin{200};
  static constexpr std::chrono::microseconds kWorkerSpin{50};
  // After a frame's last run, workers stay awake for twice the last gap between frames when that
  // gap was at most kMaxLinger (frames back to back, as a transcode feeds them), so they are
  // there when the next frame comes; a live stream's frames, milliseconds apart, find them asleep
  // and no core is kept busy between its frames.
  static constexpr std::chrono::microseconds kMaxLinger{500};

  void worker_loop(unsigned index);
  // Runs chunks of the run of `generation` on `thread` until none is left.
  void take_chunks(unsigned thread, std::uint64_t generation);

  std::vector<std::thread> workers_;
  unsigned requested_ = 1;
  // A run is published as one word (row_pool.cpp's Work): its generation, its chunks and the
  // next chunk to hand out; a thread takes a chunk by advancing that word. The run's other
  // fields are read before the taking and hold for whoever took a chunk: the next run cannot
  // start before that chunk is done.
  std::atomic<std::uint64_t> work_{0};
  std::atomic<const Band *> band_{nullptr};
  std::atomic<unsigned> threads_{0};
  std::atomic<int> rows_{0};
  std::atomic<bool> another_follows_{false};
  std::atomic<unsigned> chunks_done_{0};
  // How long workers stay awake after a frame's last run (kMaxLinger), in nanoseconds.
  std::atomic<std::int64_t> linger_ns_{0};
  // The caller's: when its last run ended, and whether that run ended a frame.
  Clock::time_point last_end_{};
  bool frame_ended_ = false;
  // mutex_ guards sleeping: workers wait on wake_ for a new generation, the caller on done_.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  bool caller_sleeping_ = false;
  bool stopping_ = false;
};

}  // namespace histeq
