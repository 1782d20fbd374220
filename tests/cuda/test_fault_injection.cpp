// SPDX-License-Identifier: LGPL-2.1-or-later
// The test-only fault hook (fault_injection.h): its plans, and FrameEngine failing one frame as
// a broken GPU would, the frames before it finishing bit-exact and the engine going on after it.
#include <cstdlib>
#include <string>
#include <vector>

#include "fault_injection.h"
#include "frame_engine.h"
#include "gpu_frames.h"
#include "gpu_test_support.h"
#include "pinned_memory.h"

using histeq::cuda::Fault;
using histeq::cuda::FaultPlan;

// Needs no device.
TEST(FaultPlan, ParsesKindAtFrameAndRefusesAnythingElse) {
  FaultPlan plan;
  ASSERT_TRUE(histeq::cuda::parse_fault_plan("copy@5", &plan));
  EXPECT_EQ(plan.fault, Fault::kCopy);
  EXPECT_EQ(plan.frame, 5u);
  ASSERT_TRUE(histeq::cuda::parse_fault_plan("launch@0", &plan));
  EXPECT_EQ(plan.fault, Fault::kLaunch);
  ASSERT_TRUE(histeq::cuda::parse_fault_plan("out-of-memory@12", &plan));
  EXPECT_EQ(plan.fault, Fault::kOutOfMemory);
  EXPECT_EQ(plan.frame, 12u);
  for (const char *bad : {"", "copy", "copy@", "copy@x", "copy@5x", "@5", "paste@5", "launch@-1",
                          "launch@99999999999999999999999"}) {
    FaultPlan unchanged;
    EXPECT_FALSE(histeq::cuda::parse_fault_plan(bad, &unchanged)) << bad;
    EXPECT_EQ(unchanged.fault, Fault::kNone) << bad;
  }
  EXPECT_FALSE(histeq::cuda::parse_fault_plan(nullptr, &plan));
  EXPECT_EQ(plan.at(Fault::kOutOfMemory, 12), cudaErrorMemoryAllocation);
  EXPECT_EQ(plan.at(Fault::kOutOfMemory, 11), cudaSuccess);
  EXPECT_EQ(plan.at(Fault::kLaunch, 12), cudaSuccess);
}

namespace {

struct FaultCase {
  const char *plan;
  cudaError_t error;
};

class EngineFault : public ::testing::TestWithParam<FaultCase> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
  void TearDown() override { unsetenv(histeq::cuda::kFaultVariable); }
};

}  // namespace

// Frame 3 of 8 fails to submit with the error its plan names; frames 0-2 come back bit-exact,
// and frames 4-7 go through the same engine as if nothing had happened.
TEST_P(EngineFault, OneFrameFailsTheOthersAreEqualized) {
  setenv(histeq::cuda::kFaultVariable, GetParam().plan, 1);
  histeq::cuda::FrameEngine engine;
  ASSERT_CUDA(engine.init(2, {}));
  constexpr int kWidth = 641, kHeight = 361, kFrames = 8, kFailing = 3;
  std::vector<std::vector<std::uint8_t>> frames, expected;
  for (int i = 0; i < kFrames; ++i) {
    frames.push_back(make_frame(Content(i % 6), kWidth, kHeight, unsigned(i)));
    expected.push_back(cpu_equalized(frames.back(), kWidth, kHeight, histeq::full_range(8)));
  }
  std::vector<std::vector<std::uint8_t>> out(kFrames);
  std::vector<std::uint64_t> finished;
  for (int i = 0; i < kFrames; ++i) {
    out[std::size_t(i)] = frames[std::size_t(i)];
    histeq::cuda::HostFrame host;
    host.src = host.dst = out[std::size_t(i)].data();
    host.src_pitch = host.dst_pitch = kWidth;
    host.width = kWidth;
    host.height = kHeight;
    host.tag = std::uint64_t(i);
    if (engine.full()) {
      std::uint64_t tag = 0;
      ASSERT_CUDA(engine.wait(&tag));
      finished.push_back(tag);
    }
    const cudaError_t status = engine.submit(host);
    if (i == kFailing) {
      EXPECT_EQ(status, GetParam().error);
    } else {
      ASSERT_CUDA(status);
    }
  }
  while (engine.in_flight()) {
    std::uint64_t tag = 0;
    ASSERT_CUDA(engine.wait(&tag));
    finished.push_back(tag);
  }
  const std::vector<std::uint64_t> order = {0, 1, 2, 4, 5, 6, 7};
  EXPECT_EQ(finished, order);
  for (std::uint64_t i : order) EXPECT_TRUE(out[i] == expected[i]) << "frame " << i;
  EXPECT_TRUE(out[kFailing] == frames[kFailing]) << "the failed frame is left as it was";
}

INSTANTIATE_TEST_SUITE_P(Faults, EngineFault,
                         ::testing::Values(FaultCase{"launch@3", cudaErrorLaunchFailure},
                                           FaultCase{"copy@3", cudaErrorUnknown},
                                           FaultCase{"out-of-memory@3", cudaErrorMemoryAllocation}),
                         [](const auto &info) {
                           std::string name = info.param.plan;
                           for (char &c : name)
                             if (c == '-' || c == '@') c = '_';
                           return name;
                         });
