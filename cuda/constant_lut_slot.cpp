// SPDX-License-Identifier: LGPL-2.1-or-later
#include "constant_lut_slot.h"

#include <bitset>
#include <mutex>

namespace histeq::cuda {

namespace {

std::mutex slots_lock;
std::bitset<kConstantLutSlots> slots_taken;

}  // namespace

ConstantLutSlot::ConstantLutSlot() {
  const std::lock_guard<std::mutex> lock(slots_lock);
  for (int i = 0; i < kConstantLutSlots; ++i) {
    if (!slots_taken[std::size_t(i)]) {
      slots_taken[std::size_t(i)] = true;
      index_ = i;
      return;
    }
  }
}

ConstantLutSlot::~ConstantLutSlot() {
  if (index_ < 0) return;
  const std::lock_guard<std::mutex> lock(slots_lock);
  slots_taken[std::size_t(index_)] = false;
}

}  // namespace histeq::cuda
