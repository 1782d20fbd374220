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

// One wake-up of L = 100 us and N = 40 us: W - L - N is the gain, so from 140 us of work on.
TEST(WakeCost, AFrameIsWorthItWhereItsWorkPassesTheLatencyAndTheCallersCall) {
  WakeCost cost;
  wake(cost, Clock::now(), microseconds(40), microseconds(100));
  EXPECT_FALSE(cost.worth_waking(microseconds(140)));
  EXPECT_TRUE(cost.worth_waking(microseconds(141)));
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
  EXPECT_FALSE(cost.worth_waking(microseconds(210)));
  EXPECT_TRUE(cost.worth_waking(microseconds(211)));
}

// Each of the last five wake-ups is a gain of W - L - N, or a loss of N where the worker comes
// too late: the sum decides.
TEST(WakeCost, TheGainOverTheLastFiveWakeUpsDecides) {
  const Clock::time_point t = Clock::now();
  const auto measure = [&](WakeCost &cost, std::initializer_list<int> latencies_us, int notify_us) {
    for (int latency : latencies_us) {
      wake(cost, t, microseconds(notify_us), microseconds(latency));
      cost.worth_waking(microseconds(1000000));
    }
  };
  // A virtual machine's vCPUs: every wake-up slow, the caller's call long.
  WakeCost vm;
  measure(vm, {100, 90, 110, 100, 100}, 37);
  EXPECT_FALSE(vm.worth_waking(microseconds(128)));
  EXPECT_TRUE(vm.worth_waking(microseconds(240)));
  // Most wake-ups quick, some slow, the call short: a small frame gains on the quick ones more
  // than it loses on the slow ones.
  WakeCost quick;
  measure(quick, {20, 200, 20, 300, 20}, 3);
  EXPECT_TRUE(quick.worth_waking(microseconds(128)));
  EXPECT_FALSE(quick.worth_waking(microseconds(20)));
  // One very slow wake-up among five does not outweigh the others.
  WakeCost outlier;
  measure(outlier, {100, 100, 50000, 100, 100}, 30);
  EXPECT_TRUE(outlier.worth_waking(microseconds(200)));
  // Only the last five count.
  WakeCost recovered;
  measure(recovered, {50000, 50000, 50000, 50000, 50000, 20, 20, 20, 20, 20}, 30);
  EXPECT_TRUE(recovered.worth_waking(microseconds(60)));
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
