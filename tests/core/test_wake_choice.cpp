// SPDX-License-Identifier: LGPL-2.1-or-later
// WakeChoice: whether a frame after an idle gap wakes the pool's workers, learnt from the times
// of such frames each way.
#include <chrono>

#include <gtest/gtest.h>

#include "wake_choice.h"

namespace {

using histeq::WakeChoice;
using std::chrono::microseconds;

// The choice for the next frame, which then takes `woken` or `alone`.
bool next(WakeChoice &choice, int woken_us, int alone_us) {
  const bool wake = choice.wake();
  choice.took(microseconds(wake ? woken_us : alone_us));
  return wake;
}

TEST(WakeChoice, TriesWakingThenAloneThenTakesTheFaster) {
  WakeChoice vm, quick;
  // A small frame where waking costs more than it gains (a virtual machine's sleeping vCPUs)...
  EXPECT_TRUE(next(vm, 166, 120));
  EXPECT_FALSE(next(vm, 166, 120));
  for (int i = 0; i < WakeChoice::kProbeEvery - 1; ++i) EXPECT_FALSE(next(vm, 166, 120));
  // ...and where it gains.
  EXPECT_TRUE(next(quick, 60, 80));
  EXPECT_FALSE(next(quick, 60, 80));
  for (int i = 0; i < WakeChoice::kProbeEvery - 1; ++i) EXPECT_TRUE(next(quick, 60, 80));
}

TEST(WakeChoice, EverySixteenthFrameTriesTheOtherWay) {
  WakeChoice choice;
  next(choice, 166, 120);
  next(choice, 166, 120);
  for (int round = 0; round < 3; ++round) {
    for (int i = 1; i < WakeChoice::kProbeEvery; ++i) EXPECT_FALSE(next(choice, 166, 120));
    EXPECT_TRUE(next(choice, 166, 120)) << "round " << round;
  }
}

// Each way's time is the median of its last three frames: one slow frame does not turn the
// choice, a change that lasts does, once the probes have seen it.
TEST(WakeChoice, FollowsALastingChangeButNotOneSlowFrame) {
  WakeChoice choice;
  next(choice, 60, 80);
  next(choice, 60, 80);
  next(choice, 600, 80);  // woken, one slow frame
  // Every 16th frame that chooses (the third was the first) is a probe, here alone.
  for (int i = 0; i < 2 * WakeChoice::kProbeEvery; ++i) {
    const bool probe = (i + 2) % WakeChoice::kProbeEvery == 0;
    EXPECT_EQ(next(choice, 60, 80), !probe) << "frame " << i;
  }
  // Waking has become slow for good: after the woken frames' median turns, the caller stays alone.
  int alone = 0;
  for (int i = 0; i < 4 * WakeChoice::kProbeEvery; ++i) alone += next(choice, 300, 80) ? 0 : 1;
  EXPECT_GE(alone, 4 * WakeChoice::kProbeEvery - 6);
  // And back, seen by the probes.
  for (int i = 0; i < 3 * WakeChoice::kProbeEvery; ++i) next(choice, 40, 80);
  EXPECT_TRUE(next(choice, 40, 80));
}

TEST(WakeChoice, FramesOfAnotherSizeStartOver) {
  WakeChoice choice;
  next(choice, 166, 120);
  next(choice, 166, 120);
  EXPECT_FALSE(choice.wake());
  choice.forget();
  EXPECT_TRUE(next(choice, 60, 80));
  EXPECT_FALSE(next(choice, 60, 80));
  EXPECT_TRUE(next(choice, 60, 80));
}

}  // namespace
