// SPDX-License-Identifier: LGPL-2.1-or-later
#include "row_pool.h"

#include <algorithm>
#include <system_error>

namespace histeq {

namespace {

// A run's chunks and its next chunk take 16 bits each of the word that publishes it.
constexpr unsigned kMaxChunks = 0xFFFFu;

// The word that publishes a run: its generation, its number of chunks and the next chunk to hand
// out, so that whether a chunk is there to take is known from the word alone.
struct Work {
  std::uint64_t generation;
  unsigned chunks;
  unsigned next;

  static Work of(std::uint64_t word) {
    return Work{word >> 32, unsigned(word >> 16) & kMaxChunks, unsigned(word) & kMaxChunks};
  }
  std::uint64_t word() const { return generation << 32 | std::uint64_t(chunks) << 16 | next; }
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
// microseconds: a thread woken onto this one's core (as a virtual machine's scheduler often places
// it) then runs within microseconds, where spinning without yielding would hold it back. Returns
// ready().
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
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  requested_ = threads;
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

void RowPool::run(unsigned threads, int rows, const Band &band) {
  threads = std::clamp(threads, 1u, size());
  if (threads == 1 || rows <= 1) {
    band(0, 0, rows);
    return;
  }
  if (frame_ended_) {
    frame_ended_ = false;
    const Clock::duration gap = Clock::now() - frame_end_;
    linger_ =
        gap <= kMaxLinger ? std::min<Clock::duration>(2 * gap, kMaxLinger) : Clock::duration{};
  }
  awake_until_ns_.store(0, std::memory_order_relaxed);
  const unsigned chunks = unsigned(std::min<std::int64_t>(
      {rows, std::int64_t(threads) * kChunksPerThread, std::int64_t(kMaxChunks)}));
  band_.store(&band, std::memory_order_relaxed);
  threads_.store(threads, std::memory_order_relaxed);
  rows_.store(rows, std::memory_order_relaxed);
  chunks_done_.store(0, std::memory_order_relaxed);
  // 32 bits of generation: it may wrap, it only has to differ from the last one.
  const std::uint64_t generation =
      (Work::of(work_.load(std::memory_order_relaxed)).generation + 1) & 0xFFFFFFFFu;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    work_.store(Work{generation, chunks, 0}.word(), std::memory_order_release);
  }
  wake_.notify_all();
  take_chunks(0, generation);

  const auto all_done = [&] { return chunks_done_.load(std::memory_order_acquire) == chunks; };
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
  // done on the caller alone (a small one) keeps no worker awake for the next.
  const Clock::duration linger = frame_ended_ ? Clock::duration{} : linger_;
  frame_end_ = Clock::now();
  frame_ended_ = true;
  awake_until_ns_.store(since_epoch_ns(frame_end_ + linger), std::memory_order_relaxed);
}

void RowPool::take_chunks(unsigned thread, std::uint64_t generation) {
  std::uint64_t word = work_.load(std::memory_order_acquire);
  for (;;) {
    const Work work = Work::of(word);
    if (work.generation != generation || work.next >= work.chunks) return;
    const Band *band = band_.load(std::memory_order_relaxed);
    const unsigned threads = threads_.load(std::memory_order_relaxed);
    const int rows = rows_.load(std::memory_order_relaxed);
    if (thread >= threads) return;
    // Taken only if the word still names this run and this chunk: the run cannot have ended, so
    // the fields above are its own.
    if (!work_.compare_exchange_weak(word, word + 1, std::memory_order_acquire,
                                     std::memory_order_acquire))
      continue;
    (*band)(thread, chunk_start(rows, work.chunks, work.next),
            chunk_start(rows, work.chunks, work.next + 1));
    if (chunks_done_.fetch_add(1, std::memory_order_acq_rel) + 1 == work.chunks) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (caller_sleeping_) done_.notify_one();
      return;
    }
    word = work_.load(std::memory_order_acquire);
  }
}

void RowPool::worker_loop(unsigned index) {
  std::uint64_t seen = 0;
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
      spin_until(deadline, [&] {
        return Work::of(work_.load(std::memory_order_acquire)).generation != seen;
      });
    }
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] {
        return stopping_ || Work::of(work_.load(std::memory_order_relaxed)).generation != seen;
      });
      if (stopping_) return;
      seen = Work::of(work_.load(std::memory_order_relaxed)).generation;
    }
    take_chunks(index, seen);
  }
}

}  // namespace histeq
