// SPDX-License-Identifier: LGPL-2.1-or-later
#include "row_pool.h"

#include <algorithm>
#include <system_error>

namespace histeq {

namespace {

int band_start(int rows, unsigned bands, unsigned i) {
  return int(std::int64_t(rows) * i / bands);
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
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto &t : workers_) t.join();
}

void RowPool::run(unsigned bands, int rows, const Band &band) {
  bands = std::clamp(bands, 1u, size());
  if (bands == 1) {
    band(0, 0, rows);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    band_ = &band;
    bands_ = bands;
    rows_ = rows;
    pending_ = bands - 1;
    ++generation_;
  }
  wake_.notify_all();
  band(0, 0, band_start(rows, bands, 1));
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
  band_ = nullptr;
}

void RowPool::worker_loop(unsigned index) {
  std::uint64_t seen = 0;
  for (;;) {
    const Band *band;
    unsigned bands;
    int rows;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= bands_) continue;
      band = band_;
      bands = bands_;
      rows = rows_;
    }
    (*band)(index, band_start(rows, bands, index), band_start(rows, bands, index + 1));
    std::lock_guard<std::mutex> lock(mutex_);
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace histeq
