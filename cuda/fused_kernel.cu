// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fused_kernel.h"

#include <algorithm>
#include <type_traits>

#include <cooperative_groups.h>

#include "block_tone.cuh"
#include "chunk_pixels.cuh"
#include "cuda_check.h"
#include "device_bins.cuh"
#include "item_walk.cuh"
#include "kernel_shape.cuh"
#include "luma_words.cuh"

namespace histeq::cuda {

namespace {

// kTone: the LUT follows the options of tone.params (block_tone.cuh); without, the classic LUT,
// whose instantiation keeps the registers and shared memory of the classic mapping alone.
// Pixels: how the plane's layout is counted and mapped (chunk_pixels.cuh).
template <bool kWarpVote, bool kTone, class Pixels>
__global__ void __launch_bounds__(kBlock)
    fused(DevicePlane plane, DevicePlane out, OutputRange range, DeviceCount *d_histogram,
          DeviceCount *d_next_histogram, std::uint8_t *d_lut, DeviceTone tone,
          unsigned long long scale) {
  using LutScratch = std::conditional_t<kTone, BlockToneScratch, BlockLutScratch>;
  using PixelChunk = Chunk<Pixels::kVectors>;
  constexpr int kChunkBytes = 16 * Pixels::kVectors;
  constexpr int kCached = fused_cached_chunks(Pixels::kVectors);
  constexpr int kStreamed =
      fused_streamed_chunks(Pixels::kVectors, std::is_same_v<Pixels, LumaPixels>);
  __shared__ unsigned bins[kWarps][kLevels];
  __shared__ unsigned lut[kLevels];
  __shared__ LutScratch lut_scratch;
  __shared__ std::conditional_t<Pixels::kRgbTables, RgbGainTables, char> rgb_tables;

  const int t = threadIdx.x;
  const Pixels pixels(plane.layout);
  constexpr int pixel_bytes = Pixels::kPixelBytes;
  const unsigned long long frame_pixels = (unsigned long long)plane.width * plane.height;
  for (int i = t; i < kWarps * kLevels; i += kBlock) (&bins[0][0])[i] = 0;
  zero_next_bins<kFusedHistogramCopies>(d_next_histogram);
  __syncthreads();

  const Items items(plane, out, kChunkBytes);
  const ItemCursor start(items, plane.height, blockIdx.x * (long long)kBlock + t,
                         (long long)gridDim.x * kBlock);
  unsigned *mine = bins[t / 32];
  PixelChunk cached[kCached];

  auto row_at = [&](const ItemCursor &at) { return plane.data + (std::size_t)at.y * plane.pitch; };
  // `chunk` holds the item's pixels, loaded by the caller, unless the item is a row's tail.
  auto count_item = [&](const ItemCursor &at, const PixelChunk &chunk) {
    const std::uint8_t *row = row_at(at);
    if (at.c < items.chunks) {
      pixels.template count<kWarpVote>(mine, chunk);
    } else {
      for (int x = items.chunks * Pixels::kChunkPixels; x < plane.width; ++x)
        pixels.count_pixel(mine, row + x * pixel_bytes);
    }
  };
  const MapTables tables{lut, reinterpret_cast<const RgbGainTables *>(&rgb_tables)};
  auto map_item = [&](const ItemCursor &at, const PixelChunk &chunk) {
    const std::uint8_t *row = row_at(at);
    std::uint8_t *out_row = out.data + (std::size_t)at.y * out.pitch;
    if (at.c < items.chunks) {
      store_chunk(out_row + at.c * kChunkBytes, pixels.map(chunk, tables));
    } else {
      for (int x = items.chunks * Pixels::kChunkPixels; x < plane.width; ++x)
        pixels.map_pixel(row + x * pixel_bytes, out_row + x * pixel_bytes, tables);
    }
  };

  // Past the cached chunks, a thread loads kStreamed chunks before it counts or maps any of them,
  // so that their loads are in flight together as well.
  auto stream_items = [&](ItemCursor at, auto &&item) {
    while (at.y < plane.height) {
      ItemCursor batch = at;
      PixelChunk loaded[kStreamed];
#pragma unroll
      for (int k = 0; k < kStreamed; ++k, at.next()) {
        if (at.y < plane.height && at.c < items.chunks)
          loaded[k] = load_chunk<Pixels::kVectors>(row_at(at) + at.c * kChunkBytes);
      }
#pragma unroll
      for (int k = 0; k < kStreamed; ++k, batch.next()) {
        if (batch.y < plane.height) item(batch, loaded[k]);
      }
    }
  };

  // Every cached chunk is loaded before any is counted: the loads then overlap in flight instead
  // of each waiting behind the previous chunk's shared atomics.
  ItemCursor at = start;
#pragma unroll
  for (int k = 0; k < kCached; ++k, at.next()) {
    if (at.y < plane.height && at.c < items.chunks)
      cached[k] = load_chunk<Pixels::kVectors>(row_at(at) + at.c * kChunkBytes);
  }
  at = start;
#pragma unroll
  for (int k = 0; k < kCached; ++k, at.next()) {
    if (at.y < plane.height) count_item(at, cached[k]);
  }
  stream_items(at, count_item);
  __syncthreads();
  merge_block_bins<kFusedHistogramCopies>(bins, d_histogram);

  cooperative_groups::this_grid().sync();

  if constexpr (kTone) {
    const unsigned long long before = history_before(tone);
    build_block_tone_lut(sum_bin_copies<kFusedHistogramCopies>(d_histogram), before, frame_pixels,
                         scale, range, tone, lut, lut_scratch, d_lut);
  } else {
    build_block_lut<kFusedHistogramCopies>(d_histogram, range, lut, lut_scratch, d_lut);
  }
  if constexpr (Pixels::kRgbTables) {
    fill_block_rgb_tables(lut, rgb_tables);
    __syncthreads();
  }

  at = start;
#pragma unroll
  for (int k = 0; k < kCached; ++k, at.next()) {
    if (at.y < plane.height) map_item(at, cached[k]);
  }
  stream_items(at, map_item);
}

template <class Pixels>
struct PixelsOf {
  using type = Pixels;
};

// Calls `f` with PixelsOf<the Pixels that walk `layout`>: the 4-byte RGB formats differ only in
// their channels' shifts, the 3-byte ones in which end holds red, packed YUV in which byte of a
// pixel is its luma.
template <class F>
auto with_pixels(const PixelLayout &layout, F &&f) {
  switch (layout.packing) {
    case Packing::kPackedYuv:
      return layout.luma == 0 ? f(PixelsOf<PackedYuvPixels<0>>{})
                              : f(PixelsOf<PackedYuvPixels<1>>{});
    case Packing::kRgb:
      if (layout.pixel_bytes == 4) return f(PixelsOf<Rgb4Pixels>{});
      return layout.red == 0 ? f(PixelsOf<Rgb3Pixels<true>>{}) : f(PixelsOf<Rgb3Pixels<false>>{});
    case Packing::kLuma:
    default:
      return f(PixelsOf<LumaPixels>{});
  }
}

template <bool kWarpVote, bool kTone>
const void *fused_for(const PixelLayout &layout) {
  return with_pixels(layout, [](auto pixels) {
    return (const void *)fused<kWarpVote, kTone, typename decltype(pixels)::type>;
  });
}

const void *fused_kernel(bool warp_vote, bool tone, const PixelLayout &layout) {
  if (tone) return warp_vote ? fused_for<true, true>(layout) : fused_for<false, true>(layout);
  return warp_vote ? fused_for<true, false>(layout) : fused_for<false, false>(layout);
}

int chunk_vectors(const PixelLayout &layout) {
  return with_pixels(layout, [](auto pixels) { return decltype(pixels)::type::kVectors; });
}

}  // namespace

cudaError_t fused_grid_size(int *blocks, bool tone, const PixelLayout &layout) {
  int device = 0, sm_count = 0, per_sm = 0;
  HISTEQ_CUDA_TRY(cudaGetDevice(&device));
  HISTEQ_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  // Both instantiations of the mapping must fit the grid: the smaller of their occupancies.
  int per_sm_vote = 0;
  HISTEQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, fused_kernel(false, tone, layout), kBlock, 0));
  HISTEQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm_vote, fused_kernel(true, tone, layout), kBlock, 0));
  per_sm = std::min(per_sm, per_sm_vote);
  *blocks = sm_count * per_sm;
  return *blocks > 0 ? cudaSuccess : cudaErrorCooperativeLaunchTooLarge;
}

bool same_fused_kernel(const PixelLayout &a, const PixelLayout &b) {
  return fused_kernel(false, false, a) == fused_kernel(false, false, b);
}

int fused_blocks_for(const DevicePlane &plane, int max_blocks, int sm_count) {
  const int vectors = chunk_vectors(plane.layout);
  const long long chunk_bytes = 16LL * vectors;
  const long long chunks =
      ((long long)plane.row_bytes() + chunk_bytes - 1) / chunk_bytes * plane.height;
  const long long per_block = (long long)kBlock * fused_cached_chunks(vectors);
  const long long cached = (chunks + per_block - 1) / per_block;
  const long long one_each = (chunks + kBlock - 1) / kBlock;
  const long long wanted = std::max<long long>(cached, std::min<long long>(sm_count, one_each));
  return int(std::clamp<long long>(wanted, 1, std::max(1, max_blocks)));
}

cudaError_t launch_fused(const FusedLaunch &launch, const DevicePlane &plane,
                         const DevicePlane &out, OutputRange range, const DeviceTone &tone,
                         cudaStream_t stream) {
  DevicePlane plane_arg = plane;
  DevicePlane out_arg = out;
  OutputRange range_arg = range;
  DeviceCount *histogram = launch.d_histogram;
  DeviceCount *next_histogram = launch.d_next_histogram;
  std::uint8_t *lut = launch.d_lut;
  DeviceTone tone_arg = tone;
  // normalized_bin's division, once per frame and off the kernel's path.
  unsigned long long scale = histeq::bin_scale((unsigned long long)plane.width * plane.height);
  void *args[] = {&plane_arg,      &out_arg, &range_arg, &histogram,
                  &next_histogram, &lut,     &tone_arg,  &scale};
  const void *kernel = fused_kernel(launch.warp_vote, !tone.classic(), plane.layout);
  HISTEQ_CUDA_BEFORE_LAUNCH();
  HISTEQ_CUDA_TRY(
      cudaLaunchCooperativeKernel(kernel, dim3(launch.blocks), dim3(kBlock), args, 0, stream));
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace histeq::cuda
