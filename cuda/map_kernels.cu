// SPDX-License-Identifier: LGPL-2.1-or-later
#include "map_kernels.h"

#include <algorithm>

#include "cuda_check.h"
#include "kernel_shape.cuh"
#include "luma_words.cuh"

namespace histeq::cuda {

namespace {

__constant__ std::uint8_t c_luts[kConstantLutSlots][kLevels];

struct ConstantLut {
  int slot;
  __device__ unsigned operator()(unsigned v) const { return c_luts[slot][v]; }
};
struct TextureLut {
  cudaTextureObject_t texture;
  __device__ unsigned operator()(unsigned v) const {
    return tex1Dfetch<unsigned char>(texture, int(v));
  }
};

// Work item = 16 bytes of one row with one uint4 load and store when rows are 16-byte aligned;
// the row tail and unaligned planes go byte by byte.
template <typename Lut>
__device__ void map_plane(const DevicePlane &plane, const Lut &lut) {
  const bool aligned = ((std::uintptr_t)plane.data % 16 == 0) && (plane.pitch % 16 == 0);
  const int chunks = aligned ? plane.width / 16 : 0;
  const int per_row = chunks + (plane.width > chunks * 16 ? 1 : 0);
  const long long items = (long long)per_row * plane.height;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < items;
       i += (long long)gridDim.x * blockDim.x) {
    const int y = int(i / per_row);
    const int c = int(i - (long long)y * per_row);
    std::uint8_t *row = plane.data + (std::size_t)y * plane.pitch;
    if (c < chunks) {
      const uint4 v = *reinterpret_cast<const uint4 *>(row + c * 16);
      *reinterpret_cast<uint4 *>(row + c * 16) = map_chunk(v, lut);
    } else {
      for (int x = chunks * 16; x < plane.width; ++x) row[x] = std::uint8_t(lut(row[x]));
    }
  }
}

__global__ void map_shared(DevicePlane plane, const std::uint8_t *d_lut) {
  __shared__ unsigned table[kLevels];
  for (int v = threadIdx.x; v < kLevels; v += blockDim.x) table[v] = d_lut[v];
  __syncthreads();
  map_plane(plane, SharedLut{table});
}

__global__ void map_constant(DevicePlane plane, int slot) {
  map_plane(plane, ConstantLut{slot});
}

__global__ void map_texture(DevicePlane plane, cudaTextureObject_t texture) {
  map_plane(plane, TextureLut{texture});
}

}  // namespace

cudaError_t launch_map(const LutSource &lut, const DevicePlane &plane, int sm_count,
                       cudaStream_t stream) {
  const long long items = ((long long)plane.width + 15) / 16 * plane.height;
  if (items == 0) return cudaSuccess;
  const int grid = int(std::max<long long>(
      1, std::min<long long>((items + kBlock - 1) / kBlock, (long long)sm_count * 8)));
  HISTEQ_CUDA_BEFORE_LAUNCH();
  switch (lut.memory) {
    case LutMemory::kShared:
      map_shared<<<grid, kBlock, 0, stream>>>(plane, lut.d_lut);
      break;
    case LutMemory::kConstant:
      HISTEQ_CUDA_TRY(cudaMemcpyToSymbolAsync(c_luts, lut.d_lut, kLevels,
                                              std::size_t(lut.constant_slot) * kLevels,
                                              cudaMemcpyDeviceToDevice, stream));
      map_constant<<<grid, kBlock, 0, stream>>>(plane, lut.constant_slot);
      break;
    case LutMemory::kTexture:
      map_texture<<<grid, kBlock, 0, stream>>>(plane, lut.texture);
      break;
  }
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace histeq::cuda
