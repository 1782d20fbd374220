// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstddef>
#include <cstdint>

namespace histeq::cuda {

// An 8-bit luma plane in memory the device can address (device, mapped pinned or managed);
// `pitch` bytes between rows, of which only `width` are the image.
struct DevicePlane {
  std::uint8_t *data = nullptr;
  int width = 0;
  int height = 0;
  std::size_t pitch = 0;
};

}  // namespace histeq::cuda
