// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Host-side frames for end-to-end measurements: a few input copies of the test frame and as
// many output buffers, in the kind of host memory under test.

#include <cstdint>
#include <memory>
#include <vector>

#include "frames.h"
#include "resources.h"

namespace bench {

enum class HostKind { kPageable, kPinned, kMapped, kManaged };

const char *host_kind_name(HostKind kind);

class HostFrames {
 public:
  // `count` inputs holding the frame and, `with_outputs`, `count` poisoned outputs (in-place
  // contenders need none).
  HostFrames(const HostFrame &frame, HostKind kind, int count, bool with_outputs = true);
  HostKind kind() const { return kind_; }
  int count() const { return int(in_.size()); }
  std::uint8_t *in(long i) const { return in_[std::size_t(i % count())]; }
  std::uint8_t *out(long i) const { return out_[std::size_t(i % long(out_.size()))]; }
  std::ptrdiff_t pitch() const { return pitch_; }
  FrameSize size() const { return size_; }
  // Device pointers of mapped memory (cudaHostGetDevicePointer); the host pointer otherwise.
  std::uint8_t *in_device(long i) const;
  std::uint8_t *out_device(long i) const;

 private:
  HostKind kind_;
  FrameSize size_;
  std::ptrdiff_t pitch_;
  std::vector<std::vector<std::uint8_t>> pageable_;
  std::vector<HostBuffer> pinned_;
  std::vector<DeviceBuffer> managed_;
  std::vector<std::uint8_t *> in_, out_;
};

}  // namespace bench
