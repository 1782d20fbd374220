// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace histeq {

// A fixed set of worker threads that split a frame's rows into contiguous bands. Threads are
// created once, not per frame: at 60 fps thread start-up would cost more than small frames.
class RowPool {
 public:
  using Band = std::function<void(unsigned band, int row_begin, int row_end)>;

  // threads == 0 means one per core.
  explicit RowPool(unsigned threads);
  ~RowPool();
  RowPool(const RowPool &) = delete;
  RowPool &operator=(const RowPool &) = delete;

  unsigned size() const { return unsigned(workers_.size()) + 1; }
  // The threads asked for (one per core for 0); size() is fewer when some could not start.
  unsigned requested() const { return requested_; }

  // Runs band(i, begin, end) for `bands` (1..size()) bands covering [0, rows), the first on
  // the calling thread, and returns when all are done. Not re-entrant: one caller at a time.
  void run(unsigned bands, int rows, const Band &band);

 private:
  void worker_loop(unsigned index);

  std::vector<std::thread> workers_;
  unsigned requested_ = 1;
  // mutex_ guards everything below; workers sleep on wake_, the caller on done_.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const Band *band_ = nullptr;
  unsigned bands_ = 0;
  int rows_ = 0;
  std::uint64_t generation_ = 0;
  unsigned pending_ = 0;
  bool stopping_ = false;
};

}  // namespace histeq
