// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// What main() measures, whoever provides it (the engine, a peer, the seed): a device-resident
// contender enqueues one frame from a device source to a device destination on a stream; an
// end-to-end contender takes frames from host memory and returns them to host memory.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "frames.h"

namespace bench {

struct DeviceContender {
  std::string name;
  // Enqueues frame `src` -> `dst` (pitched like the DevicePlanes) on `stream`. For in-place
  // contenders src == dst is passed; main restores the sources before verification.
  std::function<void(const std::uint8_t *src, std::uint8_t *dst, cudaStream_t stream)> enqueue;
  bool in_place = false;
  // Non-empty when a mismatch is a known defect of a faithfully reproduced baseline.
  std::string known_defect;
  // Launched on the legacy default stream (the seed, as it ran): the harness passes a null
  // stream when it times call-by-call launches (graph capture needs a real stream).
  bool legacy_default_stream = false;
  // Cannot be captured into a CUDA graph (it synchronizes with the host): launched only.
  bool launched_only = false;
  // Shown only in the cross-product table, not the headline one.
  bool detail = false;
  // The bytes it must produce when they are not the classic mapping's (options on).
  std::function<std::vector<std::uint8_t>(const HostFrame &frame)> reference;
  // Optional, untimed, before a test frame's verification: one frame `src` in place, for a
  // contender whose state follows the stream (a history) to take the test frame's.
  std::function<void(std::uint8_t *src, cudaStream_t stream)> prime;
};

struct EndToEndContender {
  std::string name;
  // Processes frames first .. first + count - 1 (the contender rotates its own host buffers by
  // frame number) and returns when all of them are back in host memory.
  std::function<void(long first, int count)> run;
  // Optional, untimed, before each run(): refills inputs that an in-place contender changed.
  std::function<void(long first, int count)> prepare;
  // The output of frame `frame` (valid after run() covered it) and its row pitch.
  std::function<const std::uint8_t *(long frame)> output;
  std::ptrdiff_t output_pitch = 0;
  std::string known_defect;
  // A floor that moves frames without equalizing them: its output must equal its input.
  bool returns_input = false;
  // The bytes it must produce when they are not the classic mapping's (options on).
  std::function<std::vector<std::uint8_t>(const HostFrame &frame)> reference;
};

}  // namespace bench
