// SPDX-License-Identifier: LGPL-2.1-or-later
// cudahisteq's OutputQueue on its own (no GPU needed): order, waking, flushes and downstream's
// answers, with a thread standing in for the element's output task where one must wait.
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include <gst/gst.h>
#include <gtest/gtest.h>

#include "output_queue.h"

namespace {

using namespace std::chrono_literals;

class OutputQueueTest : public ::testing::Test {
 protected:
  void SetUp() override { queue.open(); }
  void TearDown() override {
    for (PendingFrame &frame : queue.take_all()) gst_buffer_unref(frame.buffer);
  }
  // Frame `n`, told apart by its PTS.
  void append(int n) {
    PendingFrame frame;
    frame.buffer = gst_buffer_new();
    GST_BUFFER_PTS(frame.buffer) = GstClockTime(n);
    queue.append(frame);
  }
  // Takes the oldest frame as the output task does: its number and whether it would be pushed.
  std::pair<int, bool> take(GstFlowReturn pushed = GST_FLOW_OK) {
    PendingFrame frame;
    bool deliver = false;
    EXPECT_TRUE(queue.front(&frame, &deliver));
    const int n = int(GST_BUFFER_PTS(frame.buffer));
    gst_buffer_unref(frame.buffer);
    queue.pop_front(frame, pushed);
    return {n, deliver};
  }

  OutputQueue queue;
};

TEST_F(OutputQueueTest, FramesLeaveInOrder) {
  for (int n = 0; n < 3; ++n) append(n);
  for (int n = 0; n < 3; ++n) EXPECT_EQ(take(), std::make_pair(n, true));
  EXPECT_EQ(queue.wait_until_empty(), GST_FLOW_OK);
}

TEST_F(OutputQueueTest, AWaitForRoomWakesWhenTheTaskHandsAFrameBack) {
  std::atomic<bool> room{false};
  auto waiting = std::async(std::launch::async,
                            [&] { return queue.wait_for_room([&] { return room.load(); }); });
  EXPECT_EQ(waiting.wait_for(50ms), std::future_status::timeout);
  room = true;
  queue.notify();
  EXPECT_EQ(waiting.get(), GST_FLOW_OK);
}

TEST_F(OutputQueueTest, ADrainWaitsUntilTheLastFrameIsOut) {
  append(0);
  append(1);
  auto draining = std::async(std::launch::async, [&] { return queue.wait_until_empty(); });
  take();
  EXPECT_EQ(draining.wait_for(50ms), std::future_status::timeout);
  take();
  EXPECT_EQ(draining.get(), GST_FLOW_OK);
}

// FLUSH_START drops what came before it, wakes a waiter with FLUSHING; FLUSH_STOP need not wait
// for the dropping: frames after it go out even with older ones still queued.
TEST_F(OutputQueueTest, AFlushDropsOnlyTheFramesBeforeIt) {
  append(0);
  append(1);
  auto waiting =
      std::async(std::launch::async, [&] { return queue.wait_for_room([] { return false; }); });
  queue.set_flushing(true);
  EXPECT_EQ(waiting.get(), GST_FLOW_FLUSHING);
  EXPECT_EQ(queue.flow(), GST_FLOW_FLUSHING);
  queue.set_flushing(false);
  EXPECT_EQ(queue.flow(), GST_FLOW_OK);
  append(2);
  EXPECT_EQ(take(), std::make_pair(0, false));
  EXPECT_EQ(take(), std::make_pair(1, false));
  EXPECT_EQ(take(), std::make_pair(2, true));
}

// A push that was under way when the flush came answers FLUSHING; that says nothing about the
// frames after the flush.
TEST_F(OutputQueueTest, APushTheFlushOvertookLeavesNoMark) {
  append(0);
  PendingFrame frame;
  bool deliver = false;
  ASSERT_TRUE(queue.front(&frame, &deliver));
  EXPECT_TRUE(deliver);
  queue.set_flushing(true);
  queue.set_flushing(false);
  gst_buffer_unref(frame.buffer);
  queue.pop_front(frame, GST_FLOW_FLUSHING);
  EXPECT_EQ(queue.flow(), GST_FLOW_OK);
}

TEST_F(OutputQueueTest, EosFromDownstreamStaysAndDropsTheRest) {
  for (int n = 0; n < 3; ++n) append(n);
  EXPECT_EQ(take(GST_FLOW_EOS), std::make_pair(0, true));
  EXPECT_EQ(queue.flow(), GST_FLOW_EOS);
  EXPECT_EQ(queue.wait_for_room([] { return true; }), GST_FLOW_EOS);
  EXPECT_EQ(take(), std::make_pair(1, false));
  EXPECT_EQ(take(), std::make_pair(2, false));
  EXPECT_EQ(queue.flow(), GST_FLOW_EOS);
  queue.set_flushing(true);
  queue.set_flushing(false);
  EXPECT_EQ(queue.flow(), GST_FLOW_OK) << "a flush forgets it";
}

// NOT_LINKED is reported but not kept: the next frame is offered again, as to a relinked pad.
TEST_F(OutputQueueTest, NotLinkedLastsOnlyUntilAPushSucceeds) {
  append(0);
  append(1);
  EXPECT_EQ(take(GST_FLOW_NOT_LINKED), std::make_pair(0, true));
  EXPECT_EQ(queue.flow(), GST_FLOW_NOT_LINKED);
  EXPECT_EQ(queue.wait_for_room([] { return true; }), GST_FLOW_OK);
  EXPECT_EQ(take(GST_FLOW_OK), std::make_pair(1, true));
  EXPECT_EQ(queue.flow(), GST_FLOW_OK);
}

// Closing (pad deactivation) wakes every waiter, and the task finds no more frames; the ones
// left are taken by the element afterwards.
TEST_F(OutputQueueTest, ClosingWakesEveryoneAndLeavesTheRestToTakeAll) {
  append(0);
  auto draining = std::async(std::launch::async, [&] { return queue.wait_until_empty(); });
  auto waiting =
      std::async(std::launch::async, [&] { return queue.wait_for_room([] { return false; }); });
  EXPECT_EQ(draining.wait_for(50ms), std::future_status::timeout);
  queue.close();
  EXPECT_EQ(draining.get(), GST_FLOW_FLUSHING);
  EXPECT_EQ(waiting.get(), GST_FLOW_FLUSHING);
  PendingFrame frame;
  bool deliver = true;
  ASSERT_TRUE(queue.front(&frame, &deliver)) << "a frame is still there";
  EXPECT_FALSE(deliver);
  auto left = queue.take_all();
  ASSERT_EQ(left.size(), 1u);
  gst_buffer_unref(left.front().buffer);
  EXPECT_FALSE(queue.front(&frame, &deliver)) << "closed and empty";
}

}  // namespace
