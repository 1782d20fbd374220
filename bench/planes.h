// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The device frames a device-resident measurement rotates through: enough source/destination
// pairs that their bytes exceed twice the L2 cache, so every frame comes from DRAM as it would
// in a pipeline, never from the previous iteration's cache lines.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "frames.h"
#include "resources.h"

namespace bench {

class DevicePlanes {
 public:
  // Uploads `frame` into every source buffer. `min_bytes` is the footprint to exceed.
  DevicePlanes(const HostFrame &frame, std::size_t min_bytes);

  int count() const { return int(src_.size()); }
  std::uint8_t *src(long i) const { return src_[std::size_t(i % count())].get(); }
  std::uint8_t *dst(long i) const { return dst_[std::size_t(i % count())].get(); }
  std::ptrdiff_t pitch() const { return pitch_; }
  FrameSize size() const { return size_; }
  std::size_t plane_bytes() const { return std::size_t(pitch_) * std::size_t(size_.height); }

  // Restores every source to the original frame (after an in-place contender) and fills every
  // destination with a poison byte, so a contender that skips pixels cannot pass verification.
  void reset(cudaStream_t stream) const;
  // The same for buffer pair i alone (cheap: one plane each way).
  void reset_one(long i, cudaStream_t stream) const;
  // Copies destination (or source) buffer i to the host.
  std::vector<std::uint8_t> download_dst(long i) const;
  std::vector<std::uint8_t> download_src(long i) const;

 private:
  FrameSize size_;
  std::ptrdiff_t pitch_;
  const HostFrame &frame_;
  std::vector<DeviceBuffer> src_;
  std::vector<DeviceBuffer> dst_;
};

}  // namespace bench
