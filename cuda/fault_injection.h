// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// A test-only hook, not a setting: FrameEngine fails one step of one frame as a broken GPU or
// driver would, so the tests can drive every error path of the engine and the element on a
// working GPU. It is armed by the environment variable
//
//   HISTEQ_CUDA_FAULT=KIND@FRAME     KIND: launch, copy or out-of-memory
//
// read when an engine is initialized; FRAME counts the frames submitted to that engine from 0.
// The failing step returns the error the real failure would (cudaErrorLaunchFailure,
// cudaErrorUnknown, cudaErrorMemoryAllocation) instead of running. Frames in device memory have
// no copy and no allocation of their own: only `launch` fails them.

#include <cstdint>

#include <cuda_runtime_api.h>

namespace histeq::cuda {

enum class Fault { kNone, kLaunch, kCopy, kOutOfMemory };

struct FaultPlan {
  Fault fault = Fault::kNone;
  std::uint64_t frame = 0;

  // What `step` of frame `frame` returns: the injected error, or cudaSuccess.
  cudaError_t at(Fault step, std::uint64_t frame_index) const;
};

constexpr const char *kFaultVariable = "HISTEQ_CUDA_FAULT";

// The plan `text` (KIND@FRAME) describes; false, with `plan` left as it was, when it is not one.
bool parse_fault_plan(const char *text, FaultPlan *plan);
// The plan in the environment; none when the variable is unset or not a plan.
FaultPlan fault_plan_from_environment();

}  // namespace histeq::cuda
