// SPDX-License-Identifier: LGPL-2.1-or-later
// WakeChoice: whether a frame after an idle gap wakes the pool's workers, learnt from the times
// of such frames each way.
#include <chrono>
#include <vector>

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

// The frames (counted from the first that chooses) on which the choice tries the other way,
// while waking takes `woken` and running alone `alone`, over `frames` frames.
std::vector<int> probes(WakeChoice &choice, int woken_us, int alone_us, int frames) {
  std::vector<int> at;
  for (int i = 0; i < frames; ++i) {
    if (next(choice, woken_us, alone_us) != (woken_us < alone_us)) at.push_back(i);
  }
  return at;
}

TEST(WakeChoice, ProbesComeLessOftenWhileTheOtherWayStaysSlower) {
  WakeChoice choice;
  next(choice, 166, 120);
  next(choice, 166, 120);
  const int p = WakeChoice::kProbeEvery;
  const int most = WakeChoice::kProbeEveryMost;
  const std::vector<int> expected = {
      p - 1,          p - 1 + 2 * p,         p - 1 + 6 * p,
      p - 1 + 14 * p, p - 1 + 14 * p + most, p - 1 + 14 * p + 2 * most};
  EXPECT_EQ(probes(choice, 166, 120, expected.back() + 1), expected);
}

TEST(WakeChoice, AProbeFasterThanTheWayTakenBringsTheNextSooner) {
  WakeChoice choice;
  next(choice, 166, 120);
  next(choice, 166, 120);
  // Probes at 16 and then 32 frames: the next waits 64.
  ASSERT_EQ(probes(choice, 166, 120, 3 * WakeChoice::kProbeEvery).size(), 2u);
  // Waking gets faster than running alone: the probe 64 frames on finds it, the next comes 16
  // frames after that, and with two of the last three woken frames fast the choice turns.
  int alone = 0;
  while (!next(choice, 100, 120)) ++alone;
  while (!next(choice, 100, 120)) ++alone;
  EXPECT_EQ(alone, 4 * WakeChoice::kProbeEvery - 1 + WakeChoice::kProbeEvery - 1);
  for (int i = 0; i < WakeChoice::kProbeEvery - 1; ++i) EXPECT_TRUE(next(choice, 100, 120));
}

// Each way's time is the median of its last three frames: one slow frame does not turn the
// choice, a change that lasts does, once the probes have seen it.
TEST(WakeChoice, FollowsALastingChangeButNotOneSlowFrame) {
  WakeChoice choice;
  next(choice, 60, 80);
  next(choice, 60, 80);
  next(choice, 600, 80);  // woken, one slow frame
  // The 16th frame that chooses (the third was the first) is a probe, here alone; it is slower
  // than waking, so the next waits 32 frames.
  for (int i = 0; i < 2 * WakeChoice::kProbeEvery; ++i) {
    const bool probe = i + 2 == WakeChoice::kProbeEvery;
    EXPECT_EQ(next(choice, 60, 80), !probe) << "frame " << i;
  }
  // Waking has become slow for good: after the woken frames' median turns, the caller stays alone.
  int alone = 0;
  for (int i = 0; i < 4 * WakeChoice::kProbeEvery; ++i) alone += next(choice, 300, 80) ? 0 : 1;
  EXPECT_GE(alone, 4 * WakeChoice::kProbeEvery - 6);
  // And back, seen by the probes, however far apart they had come.
  for (int i = 0; i < WakeChoice::kProbeEveryMost + 2 * WakeChoice::kProbeEvery; ++i)
    next(choice, 40, 80);
  EXPECT_TRUE(next(choice, 40, 80));
}

TEST(WakeChoice, FramesOfAnotherSizeStartOver) {
  WakeChoice choice;
  next(choice, 166, 120);
  next(choice, 166, 120);
  // Probes 16 and 32 frames apart: the next would wait 64.
  probes(choice, 166, 120, 3 * WakeChoice::kProbeEvery);
  EXPECT_FALSE(choice.wake());
  choice.forget();
  EXPECT_TRUE(next(choice, 60, 80));
  EXPECT_FALSE(next(choice, 60, 80));
  EXPECT_TRUE(next(choice, 60, 80));
  // The probes come 16 frames apart again.
  EXPECT_EQ(probes(choice, 60, 80, WakeChoice::kProbeEvery), std::vector<int>{14});
}

}  // namespace
