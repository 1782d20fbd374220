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
    const bool faster = woken_.median() <= alone_.median();
    woke_ = faster;
    probing_ = ++since_probe_ >= probe_every_;
    if (probing_) {
      since_probe_ = 0;
      woke_ = !faster;
      probed_against_ = (faster ? woken_ : alone_).median();
    }
  }
  pending_ = true;
  return woke_;
}

void WakeChoice::took(Clock::duration time) {
  if (!pending_) return;
  pending_ = false;
  if (probing_) {
    probing_ = false;
    probe_every_ =
        time < probed_against_ ? kProbeEvery : std::min(2 * probe_every_, kProbeEveryMost);
  }
  (woke_ ? woken_ : alone_).add(time);
}

void WakeChoice::forget() {
  *this = WakeChoice{};
}

}  // namespace histeq
