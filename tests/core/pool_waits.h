// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// What the RowPool tests wait for, 10 s at most each: a test fails rather than hangs.

#include <chrono>
#include <thread>

#include "row_pool.h"

namespace pool_waits {

constexpr std::chrono::seconds kGiveUp{10};

// Yields until `done()`; returns done().
template <typename Done>
bool yield_until(const Done &done) {
  const auto give_up = std::chrono::steady_clock::now() + kGiveUp;
  while (!done() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  return done();
}

// yield_until the first time it is called, nothing after: a frame whose caller's chunks each
// wait for a worker's gives up after 10 s, not 10 s a chunk.
class WaitOnce {
 public:
  template <typename Done>
  void operator()(const Done &done) {
    if (waited_) return;
    waited_ = true;
    yield_until(done);
  }

 private:
  bool waited_ = false;
};

// Until every worker of `pool` sleeps; false if they do not.
inline bool workers_fall_asleep(const histeq::RowPool &pool) {
  const auto give_up = std::chrono::steady_clock::now() + kGiveUp;
  while (pool.sleeping_workers() < pool.size() - 1) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Until every worker sleeps and the gap since the last frame is longer than they linger
// (row_pool.h: kMaxLinger), so that the next frame comes after an idle gap.
inline bool idle(const histeq::RowPool &pool) {
  const bool asleep = workers_fall_asleep(pool);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return asleep;
}

}  // namespace pool_waits
