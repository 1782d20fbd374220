// SPDX-License-Identifier: LGPL-2.1-or-later
#include "wake_cost.h"

#include <algorithm>

namespace histeq {

namespace {

std::int64_t since_epoch_ns(WakeCost::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

WakeCost::Clock::duration WakeCost::Samples::median() const {
  std::array<Clock::duration, kSamples> sorted = samples;
  const int n = size();
  std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.begin() + n);
  return sorted[std::size_t(n / 2)];
}

void WakeCost::ask(Clock::time_point at) {
  if (pending_) return;
  pending_ = true;
  asked_at_ = at;
  up_ns_.store(0, std::memory_order_relaxed);
}

void WakeCost::asked(Clock::duration notify) {
  notify_.add(notify);
}

void WakeCost::up(Clock::time_point at) {
  std::int64_t none = 0;
  up_ns_.compare_exchange_strong(none, since_epoch_ns(at), std::memory_order_relaxed);
}

bool WakeCost::worth_waking(Clock::duration work) {
  const std::int64_t up = up_ns_.load(std::memory_order_relaxed);
  if (pending_ && up != 0) {
    pending_ = false;
    latency_.add(Clock::time_point(std::chrono::nanoseconds(up)) - asked_at_);
  }
  if (latency_.count == 0 || notify_.count == 0) return true;
  const Clock::duration notify = notify_.median();
  // Twice the gain, summed over the wake-ups.
  Clock::duration gain{};
  for (int i = 0; i < latency_.size(); ++i)
    gain += std::max(work - latency_.samples[std::size_t(i)] - notify, -2 * notify);
  if (gain > Clock::duration{}) {
    not_worth_ = 0;
    return true;
  }
  if (++not_worth_ < kProbeEvery) return false;
  not_worth_ = 0;
  return true;
}

}  // namespace histeq
