// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "wake_choice.h"

namespace histeq {

// A fixed set of worker threads that share a frame's rows. Threads are created once, not per
// frame: at 60 fps thread start-up would cost more than small frames. The rows go out in chunks,
// each thread taking its own first and then, when it has none left, the others' from their far
// end: a worker that wakes late (tens of microseconds on a loaded or virtual machine, a tenth of a
// 1080p frame) takes fewer chunks instead of holding the frame back. Sleeping workers keep off
// the CPU the caller last ran on (CallerCpuAvoidance), so that a woken worker does not wait there
// for the caller to finish the frame. A thread's own chunks are those it took in the run before
// when that run split as many rows over as many threads (a frame's map after its count: the rows
// are still in the cache of the core that counted them, where another core's writes would first
// have to take each line from it), else an even share.
class RowPool {
 public:
  using Clock = std::chrono::steady_clock;
  // band(thread, begin, end): rows [begin, end) on thread `thread` (0: the caller).
  using Band = std::function<void(unsigned thread, int row_begin, int row_end)>;
  // finish(thread): thread `thread` has done its last chunk of the run.
  using Finish = std::function<void(unsigned thread)>;

  // threads == 0 means one per core this process may use (usable_cores).
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
  // band may add into a per-thread total. Each thread that took a chunk then calls `finish`
  // (if given) on itself, before run() returns: where a per-thread total costs something to
  // settle, once a run rather than once a chunk. Not re-entrant: one caller at a time.
  void run(unsigned threads, int rows, const Band &band, const Finish &finish = {});
  // The caller's frame is over (whatever runs it took): workers still awake stay so for the
  // next frame if frames come back to back (kMaxLinger), and sleep after kWorkerSpin if not.
  // A frame that comes after an idle gap (longer than kMaxLinger) and finds every worker
  // asleep wakes them, or leaves them asleep and runs on the caller alone, as WakeChoice has
  // learnt from such frames' times.
  void end_frame();
  // Workers waiting asleep for a run at the moment of the call (one woken but not yet out of its
  // wait still counts).
  unsigned sleeping_workers() const { return sleeping_.load(std::memory_order_relaxed); }

 private:
  // The chunks each thread of a run gets on average: enough for a late worker to leave its
  // share to the others, few enough that a chunk's fixed costs stay small.
  static constexpr unsigned kChunksPerThread = 4;
  // How long a thread looks for work before it sleeps: a sleeping thread takes tens of microseconds
  // to wake, up to a hundred on a virtual machine whose other vCPUs sleep too. The caller waits
  // for chunks that are being done; a worker waits kWorkerSpin after its last chunk, which
  // bridges the few microseconds to a frame's next run.
  static constexpr std::chrono::microseconds kCallerSpin{200};
  static constexpr std::chrono::microseconds kWorkerSpin{50};
  // After a frame's end, workers stay awake for twice the gap between the frame before's end and
  // this frame's first run on several threads, at most kMaxLinger, when that gap was at most
  // kMaxLinger (frames back to back, as a transcode feeds them), so they are there when the next
  // frame comes; a live stream's frames, milliseconds apart, find them asleep.
  static constexpr std::chrono::microseconds kMaxLinger{500};

  // A chunk of a run: which run took it last (a thread takes it by raising this to its run's
  // serial), and the thread that took it in the last two runs (by the serial's parity). A cache
  // line each, so that taking one does not contend with taking its neighbours.
  struct alignas(64) Chunk {
    std::atomic<std::uint64_t> taken_in{0};
    std::atomic<unsigned> taken_by[2] = {0, 0};
  };

  void worker_loop(unsigned index);
  // Runs chunks of the run published as `word` (row_pool.cpp's Work) on `thread` until none is
  // left.
  void take_chunks(unsigned thread, std::uint64_t word);

  std::vector<std::thread> workers_;
  unsigned requested_ = 1;
  std::unique_ptr<Chunk[]> chunks_;
  unsigned max_chunks_ = 0;
  // A run is published as one word (row_pool.cpp's Work): its serial, its chunks and whether
  // threads take the chunks they took in the run before. The run's other fields are read before
  // a thread takes a chunk and hold for whoever took one: the next run cannot start before that
  // chunk is done.
  std::atomic<std::uint64_t> work_{0};
  std::atomic<const Band *> band_{nullptr};
  std::atomic<const Finish *> finish_{nullptr};
  std::atomic<unsigned> threads_{0};
  std::atomic<int> rows_{0};
  std::atomic<unsigned> chunks_done_{0};
  // Threads that took a chunk of the run and have not finished.
  std::atomic<unsigned> unfinished_{0};
  // Workers waiting on wake_.
  std::atomic<unsigned> sleeping_{0};
  // The CPU the caller last ran a run on several threads from (at first the creating thread's;
  // -1 where it cannot be told), which sleeping workers keep off (CallerCpuAvoidance).
  std::atomic<int> caller_cpu_{-1};
  // Until when (steady clock, nanoseconds) workers stay awake after the last frame's end; 0
  // from a frame's first run on several threads to its end.
  std::atomic<std::int64_t> awake_until_ns_{0};
  // The caller's: the last run on several threads (its serial, rows and threads), when its last
  // frame ended, whether no run on several threads has come since, and how long the workers stay
  // awake after a frame (kMaxLinger).
  std::uint64_t serial_ = 0;
  int last_rows_ = 0;
  unsigned last_threads_ = 0;
  Clock::time_point frame_end_{};
  bool frame_ended_ = false;
  Clock::duration linger_{};
  // Whether this frame's runs are done on the caller alone; when a frame WakeChoice chose for
  // began its first run on several threads; and the rows that choice was learnt on (and the
  // threads).
  bool alone_ = false;
  Clock::time_point frame_start_{};
  int choice_rows_ = 0;
  unsigned choice_threads_ = 0;
  WakeChoice wake_choice_;
  // mutex_ guards the waits: workers wait on wake_ for a new run, the caller on done_.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  bool caller_sleeping_ = false;
  bool stopping_ = false;
};

}  // namespace histeq
