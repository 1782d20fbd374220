// SPDX-License-Identifier: LGPL-2.1-or-later
// WakeCost: the cost of waking a pool's workers from its last wake-ups, and which frames are
// worth it.
#include <chrono>

#include <gtest/gtest.h>

#include "wake_cost.h"

namespace {

using histeq::WakeCost;
using std::chrono::microseconds;
using Clock = WakeCost::Clock;

// One wake-up: asked at `at`, the caller's call taking `notify`, the first worker up `latency`
// after it was asked.
void wake(WakeCost &cost, Clock::time_point at, microseconds notify, microseconds latency) {
  cost.ask(at);
  cost.asked(notify);
  cost.up(at + latency);
}

TEST(WakeCost, EveryFrameIsWorthItBeforeAWakeUpIsMeasured) {
  WakeCost cost;
  EXPECT_TRUE(cost.worth_waking(microseconds(0)));
  cost.ask(Clock::now());
  cost.asked(microseconds(40));
  // Asked, but no worker is up yet.
  EXPECT_TRUE(cost.worth_waking(microseconds(1)));
}

TEST(WakeCost, AFrameIsWorthItFromTheLatencyAndTheCallersCallOn) {
  WakeCost cost;
  wake(cost, Clock::now(), microseconds(40), microseconds(100));
  EXPECT_FALSE(cost.worth_waking(microseconds(139)));
  EXPECT_TRUE(cost.worth_waking(microseconds(140)));
}

TEST(WakeCost, TheLatencyRunsFromTheFirstUnansweredRequest) {
  WakeCost cost;
  const Clock::time_point first = Clock::now();
  cost.ask(first);
  cost.asked(microseconds(10));
  cost.ask(first + microseconds(50));
  cost.asked(microseconds(10));
  cost.up(first + microseconds(200));
  // A second worker up later does not answer again.
  cost.up(first + microseconds(900));
  EXPECT_FALSE(cost.worth_waking(microseconds(209)));
  EXPECT_TRUE(cost.worth_waking(microseconds(210)));
}

TEST(WakeCost, NeitherOneSlowNorOneFastWakeUpAmongTheLastFewDecides) {
  WakeCost cost;
  const Clock::time_point t = Clock::now();
  const auto wake_and_collect = [&](microseconds notify, microseconds latency) {
    wake(cost, t, notify, latency);
    cost.worth_waking(microseconds(1000000));
  };
  for (int i = 0; i < WakeCost::kSamples - 2; ++i)
    wake_and_collect(microseconds(30), microseconds(100));
  wake_and_collect(microseconds(3000), microseconds(50000));
  wake(cost, t, microseconds(1), microseconds(5));
  EXPECT_TRUE(cost.worth_waking(microseconds(130)));
  EXPECT_FALSE(cost.worth_waking(microseconds(129)));
  // Slow wake-ups, once they are most of the last few, do.
  for (int i = 0; i < WakeCost::kSamples / 2 + 1; ++i)
    wake_and_collect(microseconds(3000), microseconds(50000));
  EXPECT_FALSE(cost.worth_waking(microseconds(52999)));
}

TEST(WakeCost, EveryFewFramesNotWorthItWakeTheWorkersAllTheSame) {
  WakeCost cost;
  wake(cost, Clock::now(), microseconds(40), microseconds(100));
  for (int round = 0; round < 3; ++round) {
    for (int i = 1; i < WakeCost::kProbeEvery; ++i)
      EXPECT_FALSE(cost.worth_waking(microseconds(10))) << "frame " << i;
    EXPECT_TRUE(cost.worth_waking(microseconds(10)));
  }
  // A frame worth it starts the count again.
  for (int i = 1; i < WakeCost::kProbeEvery / 2; ++i) cost.worth_waking(microseconds(10));
  EXPECT_TRUE(cost.worth_waking(microseconds(1000)));
  for (int i = 1; i < WakeCost::kProbeEvery; ++i) EXPECT_FALSE(cost.worth_waking(microseconds(10)));
}

}  // namespace
