// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace histeq {

// One image plane as the engines see it: no ownership, a row pitch in bytes that may be larger
// than width * sizeof(Sample) (padding that must never be written).
template <typename Sample>
struct PlaneView {
  Sample *data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride = 0;

  Sample *row(int y) const {
    using Byte = std::conditional_t<std::is_const_v<Sample>, const std::uint8_t, std::uint8_t>;
    return reinterpret_cast<Sample *>(reinterpret_cast<Byte *>(data) + y * stride);
  }
  std::uint64_t pixels() const { return std::uint64_t(width) * std::uint64_t(height); }
};

using LumaPlane8 = PlaneView<std::uint8_t>;
using ConstLumaPlane8 = PlaneView<const std::uint8_t>;
// Planes of 16-bit words (10, 12 and 16-bit formats; sample_layout.h says where the bits are).
using LumaPlane16 = PlaneView<std::uint16_t>;
using ConstLumaPlane16 = PlaneView<const std::uint16_t>;

}  // namespace histeq
