// SPDX-License-Identifier: LGPL-2.1-or-later
#include "host_frames.h"

#include <cstring>

namespace bench {

const char *host_kind_name(HostKind kind) {
  switch (kind) {
    case HostKind::kPageable:
      return "pageable";
    case HostKind::kPinned:
      return "pinned";
    case HostKind::kMapped:
      return "mapped";
    case HostKind::kManaged:
      return "managed";
  }
  return "?";
}

HostFrames::HostFrames(const HostFrame &frame, HostKind kind, int count, bool with_outputs)
    : kind_(kind), size_(frame.size), pitch_(frame.pitch) {
  const std::size_t bytes = frame.bytes.size();
  for (int i = 0; i < (with_outputs ? 2 : 1) * count; ++i) {
    std::uint8_t *p = nullptr;
    switch (kind) {
      case HostKind::kPageable:
        pageable_.emplace_back(bytes);
        p = pageable_.back().data();
        break;
      case HostKind::kPinned:
      case HostKind::kMapped:
        pinned_.push_back(host_buffer(
            bytes, kind == HostKind::kMapped ? HostMemory::kMapped : HostMemory::kPinned));
        p = pinned_.back().get();
        break;
      case HostKind::kManaged:
        managed_.push_back(managed_buffer(bytes));
        p = managed_.back().get();
        break;
    }
    // Inputs carry the frame; outputs start as poison, so a skipped pixel cannot pass.
    if (i < count) {
      std::memcpy(p, frame.bytes.data(), bytes);
      in_.push_back(p);
    } else {
      std::memset(p, 0x5A, bytes);
      out_.push_back(p);
    }
  }
}

std::uint8_t *HostFrames::in_device(long i) const {
  if (kind_ != HostKind::kMapped) return in(i);
  void *d = nullptr;
  BENCH_CUDA(cudaHostGetDevicePointer(&d, in(i), 0));
  return static_cast<std::uint8_t *>(d);
}

std::uint8_t *HostFrames::out_device(long i) const {
  if (kind_ != HostKind::kMapped) return out(i);
  void *d = nullptr;
  BENCH_CUDA(cudaHostGetDevicePointer(&d, out(i), 0));
  return static_cast<std::uint8_t *>(d);
}

}  // namespace bench
