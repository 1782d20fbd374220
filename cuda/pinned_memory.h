// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Page-locked host memory: the only host memory the copy engines DMA from without a staging
// copy, and what the element offers upstream so frames arrive in it.

#include <cstddef>

#include <cuda_runtime_api.h>

namespace histeq::cuda {

cudaError_t allocate_pinned(std::size_t bytes, void **h_ptr);
cudaError_t free_pinned(void *h_ptr);

// What the device sees of a host address: whether it lies in page-locked (allocated or
// registered) memory, and the address kernels reach it at (nullptr where it is not mapped into
// the device's address space).
struct PinnedView {
  bool pinned = false;
  void *device = nullptr;
};
PinnedView pinned_view(const void *h_ptr);

}  // namespace histeq::cuda
