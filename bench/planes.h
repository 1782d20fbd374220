// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The device frames a device-resident measurement runs over. Every timed frame gets its own
// source buffer holding the test frame (the engine works in place, so a reused buffer would
// hold an already equalized picture), and the destinations rotate through enough buffers to
// exceed twice the L2 cache; sources and destinations together come from DRAM, never from the
// previous frame's cache lines.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "frames.h"
#include "resources.h"

namespace bench {

class DevicePlanes {
 public:
  // `frames` source buffers (at least enough to exceed `min_rotation_bytes` too).
  DevicePlanes(const HostFrame &frame, std::size_t min_rotation_bytes, long frames);

  long sources() const { return long(src_.size()); }
  std::uint8_t *src(long i) const { return src_[std::size_t(i % sources())].get(); }
  std::uint8_t *dst(long i) const { return dst_[std::size_t(i % long(dst_.size()))].get(); }
  std::ptrdiff_t pitch() const { return pitch_; }
  FrameSize size() const { return size_; }
  std::size_t plane_bytes() const { return std::size_t(pitch_) * std::size_t(size_.height); }

  // Restores every source to the test frame (device to device from a pristine copy) and fills
  // every destination with a poison byte, so a contender that skips pixels cannot pass.
  void reset(cudaStream_t stream) const;
  // The same for source i and destination i alone.
  void reset_one(long i, cudaStream_t stream) const;
  std::vector<std::uint8_t> download(const std::uint8_t *plane) const;

 private:
  FrameSize size_;
  std::ptrdiff_t pitch_;
  DeviceBuffer pristine_;
  std::vector<DeviceBuffer> src_;
  std::vector<DeviceBuffer> dst_;
};

}  // namespace bench
