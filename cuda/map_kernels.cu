// SPDX-License-Identifier: LGPL-2.1-or-later
#include "map_kernels.h"

#include <algorithm>

#include "cuda_check.h"
#include "item_walk.cuh"
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
__device__ void map_plane(const DevicePlane &src, const DevicePlane &dst, const Lut &lut) {
  const Items items(src, dst);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < items.count;
       i += (long long)gridDim.x * blockDim.x) {
    const int y = int(i / items.per_row);
    const int c = int(i - (long long)y * items.per_row);
    const std::uint8_t *row = src.data + (std::size_t)y * src.pitch;
    std::uint8_t *out_row = dst.data + (std::size_t)y * dst.pitch;
    if (c < items.chunks) {
      const uint4 v = *reinterpret_cast<const uint4 *>(row + c * 16);
      *reinterpret_cast<uint4 *>(out_row + c * 16) = map_chunk(v, lut);
    } else {
      for (int x = items.chunks * 16; x < src.width; ++x) out_row[x] = std::uint8_t(lut(row[x]));
    }
  }
}

__global__ void map_shared(DevicePlane src, DevicePlane dst, const std::uint8_t *d_lut) {
  __shared__ unsigned table[kLevels];
  for (int v = threadIdx.x; v < kLevels; v += blockDim.x) table[v] = d_lut[v];
  __syncthreads();
  map_plane(src, dst, SharedLut{table});
}

__global__ void map_constant(DevicePlane src, DevicePlane dst, int slot) {
  map_plane(src, dst, ConstantLut{slot});
}

__global__ void map_texture(DevicePlane src, DevicePlane dst, cudaTextureObject_t texture) {
  map_plane(src, dst, TextureLut{texture});
}

}  // namespace

cudaError_t launch_map(const LutSource &lut, const DevicePlane &plane, const DevicePlane &out,
                       int sm_count, cudaStream_t stream) {
  const long long items = ((long long)plane.width + 15) / 16 * plane.height;
  if (items == 0) return cudaSuccess;
  const int grid = int(std::max<long long>(
      1, std::min<long long>((items + kBlock - 1) / kBlock, (long long)sm_count * 8)));
  HISTEQ_CUDA_BEFORE_LAUNCH();
  switch (lut.memory) {
    case LutMemory::kShared:
      map_shared<<<grid, kBlock, 0, stream>>>(plane, out, lut.d_lut);
      break;
    case LutMemory::kConstant:
      HISTEQ_CUDA_TRY(cudaMemcpyToSymbolAsync(c_luts, lut.d_lut, kLevels,
                                              std::size_t(lut.constant_slot) * kLevels,
                                              cudaMemcpyDeviceToDevice, stream));
      map_constant<<<grid, kBlock, 0, stream>>>(plane, out, lut.constant_slot);
      break;
    case LutMemory::kTexture:
      map_texture<<<grid, kBlock, 0, stream>>>(plane, out, lut.texture);
      break;
  }
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace histeq::cuda
