// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// A slot of the constant-LUT variant's LUTs in constant memory (map_kernels.cu). Constant
// memory is one bank per module, shared by every equalizer of the process, whichever engine or
// element it belongs to: each DeviceEqualizer holds a slot of its own for as long as it lives,
// so no two map with the same slot. When all kConstantLutSlots are held, a new equalizer gets
// none, and only the constant-LUT variant is refused to it.

#include "methods.h"

namespace histeq::cuda {

class ConstantLutSlot {
 public:
  ConstantLutSlot();   // takes the lowest free slot, if any
  ~ConstantLutSlot();  // frees it
  ConstantLutSlot(const ConstantLutSlot &) = delete;
  ConstantLutSlot &operator=(const ConstantLutSlot &) = delete;

  // 0..kConstantLutSlots-1, or -1 when every slot was taken.
  int index() const { return index_; }

 private:
  int index_ = -1;
};

}  // namespace histeq::cuda
