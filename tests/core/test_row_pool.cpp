// SPDX-License-Identifier: LGPL-2.1-or-later
// RowPool's contract: every row of a run exactly once, each thread's calls one at a time (so a
// band may add into a per-thread total), and run() back only when every row is done.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "pool_waits.h"
#include "row_pool.h"

namespace {

using histeq::RowPool;
using pool_waits::idle;

struct RunRecord {
  explicit RunRecord(int rows, unsigned threads)
      : visits(std::size_t(rows)), busy(threads), rows_per_thread(threads, 0) {}
  std::vector<std::atomic<int>> visits;
  std::vector<std::atomic<bool>> busy;
  std::vector<int> rows_per_thread;  // written by its own thread alone
  std::atomic<int> overlaps{0};
  std::atomic<int> out_of_range{0};
};

RowPool::Band recording(RunRecord &record, unsigned threads) {
  return [&record, threads](unsigned thread, int begin, int end) {
    if (thread >= threads || begin > end) {
      ++record.out_of_range;
      return;
    }
    if (record.busy[thread].exchange(true)) ++record.overlaps;
    for (int row = begin; row < end; ++row) ++record.visits[std::size_t(row)];
    record.rows_per_thread[thread] += end - begin;
    record.busy[thread] = false;
  };
}

void expect_each_row_once(const RunRecord &record, int rows) {
  EXPECT_EQ(record.overlaps.load(), 0);
  EXPECT_EQ(record.out_of_range.load(), 0);
  int total = 0;
  for (int row = 0; row < rows; ++row) {
    ASSERT_EQ(record.visits[std::size_t(row)].load(), 1) << "row " << row << " of " << rows;
  }
  for (int n : record.rows_per_thread) total += n;
  EXPECT_EQ(total, rows);
}

}  // namespace

TEST(RowPool, EveryRowOnceOnEveryThreadCountAndSize) {
  RowPool pool(4);
  ASSERT_GE(pool.size(), 1u);
  for (unsigned threads = 1; threads <= pool.size(); ++threads) {
    for (int rows : {0, 1, 2, 3, 7, 16, 17, 100, 1080}) {
      for (int repeat = 0; repeat < 20; ++repeat) {
        RunRecord record(rows, threads);
        pool.run(threads, rows, recording(record, threads));
        SCOPED_TRACE(testing::Message() << threads << " threads, " << rows << " rows");
        expect_each_row_once(record, rows);
      }
    }
  }
}

// Runs follow each other with no pause and with pauses long enough for the workers to sleep:
// a worker that wakes late, or not before the run is over, neither loses nor repeats rows.
TEST(RowPool, BackToBackAndAfterSleepingWorkers) {
  RowPool pool(3);
  const unsigned threads = pool.size();
  for (int run = 0; run < 200; ++run) {
    if (run % 50 == 49) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const int rows = 1 + run % 97;
    RunRecord record(rows, threads);
    pool.run(threads, rows, recording(record, threads));
    expect_each_row_once(record, rows);
  }
}

// Frames of one or two runs, with gaps around the longest a worker stays awake for after a
// frame: the workers that wait awake, and those that went to sleep, take each row once, and a
// pool destroyed while its workers wait awake stops.
TEST(RowPool, FramesAtEveryGapAndDestroyedWhileWorkersWaitAwake) {
  for (const int gap_us : {0, 100, 400, 600, 2000}) {
    SCOPED_TRACE(testing::Message() << gap_us << " us between frames");
    RowPool pool(3);
    const unsigned threads = pool.size();
    for (int frame = 0; frame < 20; ++frame) {
      std::this_thread::sleep_for(std::chrono::microseconds(gap_us));
      // A frame of two runs, then one of a single run with fewer threads than the pool's.
      for (int run = 0; run < 2 - frame % 2; ++run) {
        const int rows = 33 + frame;
        const unsigned used = frame % 2 ? std::max(1u, threads - 1) : threads;
        RunRecord record(rows, used);
        pool.run(used, rows, recording(record, used));
        expect_each_row_once(record, rows);
      }
      pool.end_frame();
    }
  }
}

// A run whose caller takes every row before the workers start still returns, and the next run
// (more threads than the last) is done by whoever comes.
TEST(RowPool, SlowWorkersAndMixedThreadCounts) {
  RowPool pool(4);
  for (int run = 0; run < 100; ++run) {
    const unsigned threads = 1 + unsigned(run) % pool.size();
    const int rows = 64;
    RunRecord record(rows, threads);
    RowPool::Band record_band = recording(record, threads);
    pool.run(threads, rows, [&](unsigned thread, int begin, int end) {
      if (thread != 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
      record_band(thread, begin, end);
    });
    expect_each_row_once(record, rows);
  }
}

// Where each thread of a run starts: in its even share of the chunks, or, when the run before
// split as many rows over as many threads, in a chunk it took in that run (a frame's map takes
// the rows its count left in each core's cache). Every thread holds its first chunk until all
// have one, so none can take another's before that one starts.
TEST(RowPool, EachThreadFirstTakesItsShareThenWhatItTookTheRunBefore) {
  RowPool pool(4);
  const unsigned threads = pool.size();
  if (threads < 2) GTEST_SKIP() << "no worker thread could be started";
  const auto run = [&](int rows) {
    std::vector<int> first_row(threads, -1);  // each thread's own
    std::vector<int> taken_by(std::size_t(rows), -1);
    std::atomic<unsigned> started{0};
    pool.run(threads, rows, [&](unsigned thread, int begin, int end) {
      for (int row = begin; row < end; ++row) taken_by[std::size_t(row)] = int(thread);
      if (first_row[thread] >= 0) return;
      first_row[thread] = begin;
      ++started;
      while (started.load() < threads) std::this_thread::yield();
    });
    return std::make_pair(first_row, taken_by);
  };
  for (int frame = 0; frame < 20; ++frame) {
    const int rows = frame % 2 ? 1080 : 720;
    const auto [first_row, taken_by] = run(rows);
    SCOPED_TRACE(testing::Message() << "frame " << frame);
    for (unsigned t = 0; t < threads; ++t) {
      const int share_begin = int(std::int64_t(rows) * t / threads);
      const int share_end = int(std::int64_t(rows) * (t + 1) / threads);
      EXPECT_GE(first_row[t], share_begin) << "thread " << t;
      EXPECT_LT(first_row[t], share_end) << "thread " << t;
    }
    const auto [again_first_row, again_taken_by] = run(rows);
    for (unsigned t = 0; t < threads; ++t) {
      EXPECT_EQ(taken_by[std::size_t(again_first_row[t])], int(t)) << "thread " << t;
    }
  }
}

// Frames after an idle gap (every worker asleep, and longer than they linger: kMaxLinger) wake
// the workers or run on the caller alone as WakeChoice learns: the first wakes them, the second
// runs alone, and then the faster way is taken.
TEST(RowPool, FramesAfterAnIdleGapTakeTheFasterWay) {
  RowPool pool(2);
  if (pool.size() < 2) GTEST_SKIP() << "no worker thread could be started";
  // A frame whose rows each take 5 ms on the caller, while a worker's take none, and whose
  // caller's chunks wait (10 s at most) for a worker's: alone it takes 40 ms, woken much less.
  // Returns the rows the caller did.
  const auto frame = [&] {
    std::atomic<bool> worker_ran{false};
    std::atomic<int> caller_rows{0};
    pool_waits::WaitOnce caller_waits;
    pool.run(2, 8, [&](unsigned thread, int begin, int end) {
      if (thread != 0) {
        worker_ran = true;
        return;
      }
      caller_rows += end - begin;
      if (end - begin == 8) {
        std::this_thread::sleep_for(std::chrono::milliseconds(40));
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5 * (end - begin)));
      caller_waits([&] { return worker_ran.load(); });
    });
    pool.end_frame();
    return caller_rows.load();
  };

  ASSERT_TRUE(idle(pool));
  EXPECT_LT(frame(), 8) << "the first frame after a gap wakes the workers";
  ASSERT_TRUE(idle(pool));
  EXPECT_EQ(frame(), 8) << "the second runs alone";
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(idle(pool));
    EXPECT_LT(frame(), 8) << "then the faster way, waking, frame " << i;
  }
}

// Where frames after idle gaps run on the caller alone (the faster way for frames of no work,
// which one thread finishes before a worker is up), a frame right after another still wakes the
// sleeping workers: frames back to back do not choose.
TEST(RowPool, FramesBackToBackWakeTheWorkersWhereIdleOnesRunAlone) {
  RowPool pool(2);
  if (pool.size() < 2) GTEST_SKIP() << "no worker thread could be started";
  // A frame whose caller's chunks wait for a worker's, unless it runs alone (one band of every
  // row): whether one came. Once one has, a worker that sleeps again has surely been up, so that
  // idle() cannot count it asleep while it is only on its way up.
  const auto frame_a_worker_joins = [&] {
    std::atomic<bool> worker_ran{false};
    pool_waits::WaitOnce caller_waits;
    pool.run(2, 8, [&](unsigned thread, int begin, int end) {
      if (thread != 0) {
        worker_ran = true;
        return;
      }
      if (begin != 0 || end != 8) caller_waits([&] { return worker_ran.load(); });
    });
    pool.end_frame();
    return worker_ran.load();
  };
  // Whether a frame of no work ran on the caller alone: one band of every row (a run on
  // several threads hands out chunks of one row).
  const auto alone_after_a_gap = [&] {
    EXPECT_TRUE(idle(pool));
    std::atomic<int> whole_bands{0};
    pool.run(2, 8, [&](unsigned thread, int begin, int end) {
      if (thread == 0 && begin == 0 && end == 8) ++whole_bands;
    });
    pool.end_frame();
    return whole_bands.load() == 1;
  };
  ASSERT_TRUE(idle(pool));
  ASSERT_TRUE(frame_a_worker_joins()) << "the first frame after a gap wakes the workers";
  EXPECT_TRUE(alone_after_a_gap()) << "then alone";
  EXPECT_TRUE(alone_after_a_gap()) << "and alone, the faster way";

  // A frame right after another: within the workers' linger of its end, unless this thread is
  // preempted in between, when the frame comes after a gap; three tries.
  bool joined = false;
  for (int attempt = 0; attempt < 3 && !joined; ++attempt) {
    ASSERT_TRUE(idle(pool));
    pool.run(1, 8, [](unsigned, int, int) {});
    pool.end_frame();
    joined = frame_a_worker_joins();
  }
  EXPECT_TRUE(joined) << "no frame right after another woke a worker";
}

// Each thread that took a chunk finishes once, after its last chunk and before run() returns,
// however slow its finish; a thread that took none does not finish. Runs back to back, after
// sleeping workers, and on a single thread.
TEST(RowPool, EachThreadThatTookAChunkFinishesOnceBeforeTheRunReturns) {
  RowPool pool(4);
  for (int run = 0; run < 300; ++run) {
    if (run % 100 == 99) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const unsigned threads = 1 + unsigned(run) % pool.size();
    const int rows = 1 + run % 50;
    RunRecord record(rows, threads);
    RowPool::Band record_band = recording(record, threads);
    std::vector<std::atomic<int>> finishes(threads);
    std::atomic<int> after_finish{0};
    pool.run(
        threads, rows,
        [&](unsigned thread, int begin, int end) {
          if (finishes[thread].load() != 0) ++after_finish;
          record_band(thread, begin, end);
        },
        [&](unsigned thread) {
          if (run % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
          ++finishes[thread];
        });
    SCOPED_TRACE(testing::Message() << "run " << run << ", " << threads << " threads");
    expect_each_row_once(record, rows);
    EXPECT_EQ(after_finish.load(), 0);
    for (unsigned t = 0; t < threads; ++t) {
      EXPECT_EQ(finishes[t].load(), record.rows_per_thread[t] > 0 ? 1 : 0) << "thread " << t;
    }
  }
}
