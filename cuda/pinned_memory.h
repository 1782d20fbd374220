// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Page-locked host memory: the only host memory the copy engines DMA from without a staging
// copy, and what the element offers upstream so frames arrive in it.

#include <cstddef>

#include <cuda_runtime_api.h>

namespace histeq::cuda {

cudaError_t allocate_pinned(std::size_t bytes, void **h_ptr);
cudaError_t free_pinned(void *h_ptr);

// True when `h_ptr` lies in page-locked (allocated or registered) host memory.
bool is_pinned(const void *h_ptr);

}  // namespace histeq::cuda
