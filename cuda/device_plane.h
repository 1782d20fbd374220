// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstddef>
#include <cstdint>

#include "host_device.h"

namespace histeq::cuda {

// An 8-bit luma plane in memory the device can address (device, mapped pinned or managed);
// `pitch` bytes between rows, of which only `width` are the image.
struct DevicePlane {
  std::uint8_t *data = nullptr;
  int width = 0;
  int height = 0;
  std::size_t pitch = 0;
};

// True when every row starts on a 16-byte boundary, so the kernels can walk rows in 16-byte
// chunks (one uint4 load each); otherwise they walk them byte by byte.
HISTEQ_HOST_DEVICE inline bool rows_in_chunks(const DevicePlane &plane) {
  return reinterpret_cast<std::uintptr_t>(plane.data) % 16 == 0 && plane.pitch % 16 == 0;
}

}  // namespace histeq::cuda
