// SPDX-License-Identifier: LGPL-2.1-or-later
#include "row_pool.h"
#include "cpu_affinity.h"
#include "usable_cores.h"

#include <algorithm>
#include <system_error>

namespace histeq {

namespace {

// A run's chunks take 16 bits of the word that publishes it.
constexpr unsigned kMaxChunks = 0xFFFFu;

// The word that publishes a run: its serial (47 bits: it never wraps), whether its threads take
// first the chunks they took in the run before (`again`), and its number of chunks.
struct Work {
  std::uint64_t serial;
  bool again;
  unsigned chunks;

  static Work of(std::uint64_t word) {
    return Work{word >> 17, (word >> 16 & 1) != 0, unsigned(word) & kMaxChunks};
  }
  std::uint64_t word() const { return serial << 17 | std::uint64_t(again) << 16 | chunks; }
};

std::int64_t since_epoch_ns(RowPool::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

int chunk_start(int rows, unsigned chunks, unsigned i) {
  return int(std::int64_t(rows) * i / chunks);
}

// The processor's hint that this thread is spinning: it lets a sibling hyperthread run and costs
// tens of nanoseconds, where a sched_yield system call takes over a microsecond on a virtual
// machine and leaves the waiting thread late for the work it waits for.
inline void spin_hint() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Looks for `ready()` until `deadline()` (which may move), yielding the core every few
// microseconds: a thread woken onto this one's core (as a scheduler may place it, with other
// threads than the pool's workers) then runs within microseconds, where spinning without yielding
// would hold it back. Returns ready().
template <typename Deadline, typename Ready>
bool spin_until(const Deadline &deadline, const Ready &ready) {
  constexpr std::chrono::microseconds kYieldEvery{5};
  constexpr int kHintsPerLook = 16;
  auto next_yield = RowPool::Clock::now() + kYieldEvery;
  while (!ready()) {
    for (int i = 0; i < kHintsPerLook; ++i) spin_hint();
    const auto now = RowPool::Clock::now();
    if (now >= deadline()) return ready();
    if (now >= next_yield) {
      std::this_thread::yield();
      next_yield = now + kYieldEvery;
    }
  }
  return true;
}

}  // namespace

RowPool::RowPool(unsigned threads) {
  if (threads == 0) threads = usable_cores();
  requested_ = threads;
  max_chunks_ =
      unsigned(std::min<std::uint64_t>(std::uint64_t(threads) * kChunksPerThread, kMaxChunks));
  chunks_ = std::make_unique<Chunk[]>(max_chunks_);
  // Workers keep off the creating thread's CPU until a run says where the caller is.
  caller_cpu_.store(current_cpu(), std::memory_order_relaxed);
  // The first frame comes after a gap, as every frame after the pool's last one does.
  frame_end_ = Clock::now();
  frame_ended_ = true;
  // Under a process or memory limit a thread may not start: the pool then runs with the ones
  // that did (at least the caller's), rather than let the exception reach the caller.
  for (unsigned i = 1; i < threads; ++i) {
    try {
      workers_.emplace_back([this, i] { worker_loop(i); });
    } catch (const std::system_error &) {
      break;
    }
  }
}

RowPool::~RowPool() {
  // Workers spinning for the next frame stop looking after kWorkerSpin at most.
  awake_until_ns_.store(0, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto &t : workers_) t.join();
}

void RowPool::run(unsigned threads, int rows, const Band &band, const Finish &finish) {
  threads = std::clamp(threads, 1u, size());
  if (threads > 1 && rows > 1 && frame_ended_) {
    frame_ended_ = false;
    const Clock::time_point start = Clock::now();
    const Clock::duration gap = start - frame_end_;
    linger_ =
        gap <= kMaxLinger ? std::min<Clock::duration>(2 * gap, kMaxLinger) : Clock::duration{};
    // Frames back to back find the workers awake, or keep them so once woken; a frame after an
    // idle gap that finds them all asleep wakes them or not as WakeChoice has learnt.
    const bool choosing =
        gap > kMaxLinger && sleeping_.load(std::memory_order_relaxed) == unsigned(workers_.size());
    if (choosing) {
      if (rows != choice_rows_ || threads != choice_threads_) wake_choice_.forget();
      choice_rows_ = rows;
      choice_threads_ = threads;
      frame_start_ = start;
      alone_ = !wake_choice_.wake();
    }
  }
  if (threads == 1 || rows <= 1 || alone_) {
    band(0, 0, rows);
    if (finish && rows > 0) finish(0);
    return;
  }
  awake_until_ns_.store(0, std::memory_order_relaxed);
  caller_cpu_.store(current_cpu(), std::memory_order_relaxed);
  const unsigned chunks = unsigned(std::min<std::int64_t>(
      {rows, std::int64_t(threads) * kChunksPerThread, std::int64_t(max_chunks_)}));
  // As many rows over as many threads split into the same chunks.
  const bool again = rows == last_rows_ && threads == last_threads_;
  last_rows_ = rows;
  last_threads_ = threads;
  band_.store(&band, std::memory_order_relaxed);
  finish_.store(finish ? &finish : nullptr, std::memory_order_relaxed);
  threads_.store(threads, std::memory_order_relaxed);
  rows_.store(rows, std::memory_order_relaxed);
  chunks_done_.store(0, std::memory_order_relaxed);
  unfinished_.store(0, std::memory_order_relaxed);
  const std::uint64_t word = Work{++serial_, again, chunks}.word();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    work_.store(word, std::memory_order_release);
  }
  wake_.notify_all();
  take_chunks(0, word);

  // A thread counts itself unfinished before it does its first chunk, so once every chunk is
  // done, no thread that did one is missing from unfinished_.
  const auto all_done = [&] {
    return chunks_done_.load(std::memory_order_acquire) == chunks &&
           unfinished_.load(std::memory_order_acquire) == 0;
  };
  const Clock::time_point caller_deadline = Clock::now() + kCallerSpin;
  if (!spin_until([&] { return caller_deadline; }, all_done)) {
    std::unique_lock<std::mutex> lock(mutex_);
    caller_sleeping_ = true;
    done_.wait(lock, all_done);
    caller_sleeping_ = false;
  }
}

void RowPool::end_frame() {
  // The first run on several threads since the last frame's end cleared frame_ended_; a frame
  // done on the caller alone (a small one) keeps no worker awake for the next. A frame that
  // left sleeping workers asleep came after a gap longer than kMaxLinger: its linger_ is 0.
  const Clock::duration linger = frame_ended_ ? Clock::duration{} : linger_;
  frame_end_ = Clock::now();
  frame_ended_ = true;
  alone_ = false;
  // Counted only for a frame that chose (WakeChoice::wake).
  wake_choice_.took(frame_end_ - frame_start_);
  awake_until_ns_.store(since_epoch_ns(frame_end_ + linger), std::memory_order_relaxed);
}

void RowPool::take_chunks(unsigned thread, std::uint64_t word) {
  const Work work = Work::of(word);
  const Band *band = band_.load(std::memory_order_relaxed);
  const Finish *finish = finish_.load(std::memory_order_relaxed);
  const unsigned threads = threads_.load(std::memory_order_relaxed);
  const int rows = rows_.load(std::memory_order_relaxed);
  if (thread >= threads) return;
  // Tells a sleeping caller that the run may be over.
  const auto maybe_done = [this] {
    std::lock_guard<std::mutex> lock(mutex_);
    if (caller_sleeping_) done_.notify_one();
  };
  bool took_any = false;
  // Takes chunk k if no thread has; true when every chunk is done. A chunk is taken only if its
  // run is this one and not yet over (every chunk of an ended run is marked taken in it or
  // later), so the fields above are its own.
  const auto take = [&](unsigned k) {
    Chunk &chunk = chunks_[k];
    std::uint64_t taken_in = chunk.taken_in.load(std::memory_order_relaxed);
    if (taken_in >= work.serial ||
        !chunk.taken_in.compare_exchange_strong(taken_in, work.serial, std::memory_order_acquire,
                                                std::memory_order_relaxed))
      return false;
    if (!took_any) {
      took_any = true;
      unfinished_.fetch_add(1, std::memory_order_relaxed);
    }
    chunk.taken_by[work.serial & 1].store(thread, std::memory_order_relaxed);
    (*band)(thread, chunk_start(rows, work.chunks, k), chunk_start(rows, work.chunks, k + 1));
    return chunks_done_.fetch_add(1, std::memory_order_acq_rel) + 1 == work.chunks;
  };
  const auto take_all = [&] {
    if (work.again) {
      for (unsigned k = 0; k < work.chunks; ++k) {
        if (chunks_[k].taken_by[(work.serial - 1) & 1].load(std::memory_order_relaxed) == thread &&
            take(k))
          return;
      }
    } else {
      for (unsigned k = thread * work.chunks / threads; k < (thread + 1) * work.chunks / threads;
           ++k) {
        if (take(k)) return;
      }
    }
    // The others' chunks from the far end, where their owners come last.
    for (unsigned k = work.chunks; k-- > 0;) {
      if (take(k)) return;
    }
  };
  take_all();
  if (!took_any) return;
  if (finish) (*finish)(thread);
  // The thread that does the last chunk is unfinished until here, so the run is over only
  // after some thread's finish leaves none unfinished.
  if (unfinished_.fetch_sub(1, std::memory_order_acq_rel) == 1) maybe_done();
}

void RowPool::worker_loop(unsigned index) {
  std::uint64_t seen = 0;
  const auto published = [this] { return work_.load(std::memory_order_acquire); };
  CallerCpuAvoidance avoidance;
  for (;;) {
    // A worker the run left out (more threads than its bands) goes straight back to sleep.
    if (seen != 0 && index < threads_.load(std::memory_order_relaxed)) {
      // Awake for kWorkerSpin after its last chunk, for a next run of the same frame, and as long
      // as the frame's end says when frames come back to back.
      const std::int64_t spin_until_ns =
          since_epoch_ns(Clock::now()) + std::chrono::nanoseconds(kWorkerSpin).count();
      const auto deadline = [&] {
        return Clock::time_point(std::chrono::nanoseconds(
            std::max(spin_until_ns, awake_until_ns_.load(std::memory_order_relaxed))));
      };
      spin_until(deadline, [&] { return published() != seen; });
    }
    if (published() != seen) {
      // A run came while it spun (frames back to back): no sleep, so no mask to narrow and
      // widen, four system calls a run.
      seen = published();
    } else {
      avoidance.before_sleep(caller_cpu_.load(std::memory_order_relaxed));
      {
        std::unique_lock<std::mutex> lock(mutex_);
        sleeping_.fetch_add(1, std::memory_order_relaxed);
        wake_.wait(lock, [&] { return stopping_ || published() != seen; });
        sleeping_.fetch_sub(1, std::memory_order_relaxed);
        if (stopping_) return;
        seen = published();
      }
      avoidance.after_wake();
    }
    take_chunks(index, seen);
  }
}

}  // namespace histeq
