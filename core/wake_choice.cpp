// SPDX-License-Identifier: LGPL-2.1-or-later
#include "wake_choice.h"

#include <algorithm>

namespace histeq {

WakeChoice::Clock::duration WakeChoice::Times::median() const {
  std::array<Clock::duration, kSamples> sorted = samples;
  const int n = count;
  // The lower of the two middle ones where there are two.
  std::nth_element(sorted.begin(), sorted.begin() + (n - 1) / 2, sorted.begin() + n);
  return sorted[std::size_t((n - 1) / 2)];
}

bool WakeChoice::wake() {
  if (woken_.count == 0) {
    woke_ = true;
  } else if (alone_.count == 0) {
    woke_ = false;
  } else {
    woke_ = woken_.median() <= alone_.median();
    if (++since_probe_ >= kProbeEvery) {
      since_probe_ = 0;
      woke_ = !woke_;
    }
  }
  pending_ = true;
  return woke_;
}

void WakeChoice::took(Clock::duration time) {
  if (!pending_) return;
  pending_ = false;
  (woke_ ? woken_ : alone_).add(time);
}

void WakeChoice::forget() {
  *this = WakeChoice{};
}

}  // namespace histeq
