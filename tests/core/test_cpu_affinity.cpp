// SPDX-License-Identifier: LGPL-2.1-or-later
// CpuSet and CallerCpuAvoidance: a thread's affinity mask read, cut and applied, and a pool's
// workers kept off the CPU of the thread that runs the pool (row_pool.h).
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

#include "cpu_affinity.h"
#include "pool_waits.h"
#include "row_pool.h"

namespace {

using histeq::CpuSet;

// The first CPU of `set`, or -1.
int first_cpu(const CpuSet &set) {
  for (int cpu = 0; cpu < 1 << 20; ++cpu)
    if (set.has(cpu)) return cpu;
  return -1;
}

// Gives the calling thread its mask back when the test ends, however it ends.
class ThreadMaskKept {
 public:
  ThreadMaskKept() : mask_(CpuSet::of_this_thread()) {}
  ~ThreadMaskKept() { mask_.apply_to_this_thread(); }
  const CpuSet &mask() const { return mask_; }

 private:
  CpuSet mask_;
};

#ifdef __linux__
TEST(CpuSet, TheThreadsMaskHoldsTheCpuItRunsOn) {
  const CpuSet mask = CpuSet::of_this_thread();
  ASSERT_TRUE(mask.valid());
  EXPECT_GE(mask.count(), 1u);
  EXPECT_TRUE(mask.has(histeq::current_cpu()));
  EXPECT_FALSE(mask.has(-1));
  EXPECT_FALSE(mask.has(1 << 24));
}
#endif

TEST(CpuSet, WithoutTakesOutOneCpuAndAppliedItHoldsTheThreadOffIt) {
  const ThreadMaskKept kept;
  const CpuSet &mask = kept.mask();
  if (mask.count() < 2) GTEST_SKIP() << "the thread may run on " << mask.count() << " CPU(s)";
  const int cpu = first_cpu(mask);
  const CpuSet less = mask.without(cpu);
  EXPECT_EQ(less.count(), mask.count() - 1);
  EXPECT_FALSE(less.has(cpu));
  EXPECT_EQ(less.without(cpu).count(), less.count());
  ASSERT_TRUE(less.apply_to_this_thread());
  EXPECT_FALSE(CpuSet::of_this_thread().has(cpu));
  EXPECT_NE(histeq::current_cpu(), cpu);
}

// A sleeping worker keeps off the CPU its caller runs on: asleep, its mask is the one it started
// with less that CPU; woken, it runs elsewhere, with its whole mask again. The caller is held to
// one CPU, so that the CPU its last run recorded is the one it runs on. Each frame follows a frame
// of no work right away, so that it wakes the sleeping worker rather than choose (WakeChoice).
#ifdef __linux__
TEST(RowPool, SleepingWorkersWakeOffTheCallersCpu) {
  const ThreadMaskKept kept;
  const CpuSet &mask = kept.mask();
  if (mask.count() < 2) GTEST_SKIP() << "the thread may run on " << mask.count() << " CPU(s)";
  histeq::RowPool pool(2);
  if (pool.size() < 2) GTEST_SKIP() << "no worker thread could be started";
  const int caller_cpu = first_cpu(mask);
  CpuSet only_caller_cpu = mask;
  for (int cpu = 0; only_caller_cpu.count() > 1; ++cpu)
    if (cpu != caller_cpu) only_caller_cpu = only_caller_cpu.without(cpu);
  if (!only_caller_cpu.apply_to_this_thread()) GTEST_SKIP() << "the thread's mask cannot be set";

  for (int frame = 0; frame < 3; ++frame) {
    std::atomic<bool> worker_ran{false};
    CpuSet awake_mask;
    int worker_cpu = -1;
    long worker_tid = 0;
    // Three tries: a frame comes after a gap where this thread is preempted between the two
    // runs, and may then run alone (one band of every row).
    for (int attempt = 0; attempt < 3 && !worker_ran.load(); ++attempt) {
      ASSERT_TRUE(pool_waits::idle(pool));
      pool.run(1, 8, [](unsigned, int, int) {});
      pool.end_frame();
      pool_waits::WaitOnce caller_waits;
      pool.run(2, 8, [&](unsigned thread, int begin, int end) {
        if (thread == 0) {
          // The caller's chunks wait for the worker's first, so that the worker takes one.
          if (begin != 0 || end != 8) caller_waits([&] { return worker_ran.load(); });
          return;
        }
        if (worker_ran.load()) return;
        awake_mask = CpuSet::of_this_thread();
        worker_cpu = histeq::current_cpu();
        worker_tid = long(::gettid());
        worker_ran = true;
      });
      pool.end_frame();
    }
    SCOPED_TRACE(testing::Message() << "frame " << frame);
    ASSERT_TRUE(worker_ran.load()) << "the worker took no chunk in 10 s";
    EXPECT_TRUE(awake_mask == mask);
    // Its first wake-up comes before any run has told it where the caller is.
    if (frame > 0) {
      EXPECT_NE(worker_cpu, caller_cpu);
    }
    ASSERT_TRUE(pool_waits::workers_fall_asleep(pool));
    const CpuSet asleep_mask = CpuSet::of_thread(worker_tid);
    EXPECT_FALSE(asleep_mask.has(caller_cpu));
    EXPECT_EQ(asleep_mask.count(), mask.count() - 1);
  }
}
#endif

}  // namespace
