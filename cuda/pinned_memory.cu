// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pinned_memory.h"

namespace histeq::cuda {

cudaError_t allocate_pinned(std::size_t bytes, void **h_ptr) {
  return cudaHostAlloc(h_ptr, bytes, cudaHostAllocPortable);
}

cudaError_t free_pinned(void *h_ptr) {
  return cudaFreeHost(h_ptr);
}

PinnedView pinned_view(const void *h_ptr) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, h_ptr) != cudaSuccess) {
    cudaGetLastError();  // the query's failure must not stick to the next call
    return {};
  }
  if (attributes.type != cudaMemoryTypeHost) return {};
  return {true, attributes.devicePointer};
}

}  // namespace histeq::cuda
