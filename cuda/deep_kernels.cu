// SPDX-License-Identifier: LGPL-2.1-or-later
#include "deep_kernels.h"

#include <algorithm>

#include <cub/block/block_scan.cuh>

#include "cuda_check.h"
#include "item_walk.cuh"
#include "tone_steps.h"

namespace histeq::cuda {

namespace {

constexpr int kLanes = 32;
// Counting and mapping: blocks of kWalkThreads, kWalkBlocksPerSm of them per SM at most.
constexpr int kWalkThreads = 512;
constexpr int kWalkBlocksPerSm = 2;
// The tone kernel's one block; every depth's levels are a whole number of its threads.
constexpr int kToneThreads = 1024;
constexpr int kToneWarps = kToneThreads / kLanes;
// A 16-byte chunk holds 8 words.
constexpr int kChunkBytes = 16;

template <int kBits>
struct Depth {
  static constexpr int kLevels = 1 << kBits;
  // 10 and 12-bit counts go to 32 KiB of shared bins per block: copies of the bins, warp w
  // counting into copy w % kCopies so that fewer warps collide on a level.
  static constexpr bool kSharedBins = kBits <= 12;
  static constexpr int kCopies = kSharedBins ? (8192 >> kBits) : 1;
  static constexpr bool kSharedLut = kBits <= 12;
  // The tone kernel takes the levels in rounds of kToneThreads * kItems consecutive ones, kItems
  // per thread: few enough that each round's values stay in registers.
  static constexpr int kItems = kLevels >= 4 * kToneThreads ? 4 : kLevels / kToneThreads;
  static constexpr int kRounds = kLevels / (kToneThreads * kItems);
  static constexpr int kBandLevels = kLevels / kSceneBands;
  // A warp's levels in a round lie within one scene band, so a warp sum is part of one band.
  static_assert(kBandLevels % (kLanes * kItems) == 0, "a warp's levels lie within one band");
  static_assert(kLevels % (kToneThreads * kItems) == 0, "rounds cover the levels");
  static_assert(!kSharedBins || kCopies * kLevels == 8192, "the shared bins fill 32 KiB");
};

__device__ __forceinline__ void count_word(std::uint32_t word, const SampleLayout &sample,
                                           unsigned *bins) {
  atomicAdd(&bins[sample.level_of(word)], 1u);
}

__device__ __forceinline__ void count_words(std::uint32_t pair, const SampleLayout &sample,
                                            unsigned *bins) {
  count_word(pair & 0xffffu, sample, bins);
  count_word(pair >> 16, sample, bins);
}

// Counts every sample of `plane` into `bins` (a block's shared copy, or the device bins).
template <typename BinsOf>
__device__ __forceinline__ void count_plane(const DevicePlane &plane, const SampleLayout &sample,
                                            BinsOf bins_of) {
  const Items items(plane, plane, kChunkBytes);
  unsigned *bins = bins_of();
  for (ItemCursor at(items, plane.height, blockIdx.x * (long long)blockDim.x + threadIdx.x,
                     (long long)gridDim.x * blockDim.x);
       at.y < plane.height; at.next()) {
    const std::uint8_t *row = plane.data + (std::size_t)at.y * plane.pitch;
    if (at.c < items.chunks) {
      const uint4 chunk = *reinterpret_cast<const uint4 *>(row + at.c * kChunkBytes);
      count_words(chunk.x, sample, bins);
      count_words(chunk.y, sample, bins);
      count_words(chunk.z, sample, bins);
      count_words(chunk.w, sample, bins);
    } else {
      const auto *words = reinterpret_cast<const std::uint16_t *>(row);
      for (int x = items.chunks * (kChunkBytes / 2); x < plane.width; ++x)
        count_word(words[x], sample, bins);
    }
  }
}

template <int kBits>
__global__ void __launch_bounds__(kWalkThreads)
    count_deep(DevicePlane plane, unsigned *d_histogram) {
  using D = Depth<kBits>;
  const SampleLayout sample = plane.layout.sample;
  if constexpr (D::kSharedBins) {
    __shared__ unsigned bins[D::kCopies][D::kLevels];
    for (int i = threadIdx.x; i < D::kCopies * D::kLevels; i += blockDim.x) (&bins[0][0])[i] = 0;
    __syncthreads();
    count_plane(plane, sample, [&] { return bins[(threadIdx.x / kLanes) % D::kCopies]; });
    __syncthreads();
    for (int v = threadIdx.x; v < D::kLevels; v += blockDim.x) {
      unsigned sum = 0;
#pragma unroll
      for (int copy = 0; copy < D::kCopies; ++copy) sum += bins[copy][v];
      if (sum) atomicAdd(&d_histogram[v], sum);
    }
  } else {
    count_plane(plane, sample, [&] { return d_histogram; });
  }
}

__device__ __forceinline__ unsigned warp_sum(unsigned value) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, value);
#else
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
#endif
}

// The sum over the block of every thread's `value`, in every thread (`slots`: kToneWarps
// words of shared memory, not in use by another sum of the same barrier interval).
__device__ __forceinline__ unsigned block_sum(unsigned value, unsigned *slots) {
  const unsigned sum = warp_sum(value);
  if (threadIdx.x % kLanes == 0) slots[threadIdx.x / kLanes] = sum;
  __syncthreads();
  unsigned total = 0;
#pragma unroll
  for (int w = 0; w < kToneWarps; ++w) total += slots[w];
  return total;
}

// A level's history step (tone_steps.h, step 1): its share of the frame and its smoothed value.
struct LevelHistory {
  unsigned long long now = 0;
  unsigned long long smoothed = 0;
  unsigned long long before = 0;
};

__device__ __forceinline__ LevelHistory level_history(unsigned count, int v, bool followed,
                                                      unsigned long long scale,
                                                      const DeviceTone &tone) {
  LevelHistory h;
  h.before = followed ? tone.d_history_in[v] : 0;
  h.now = normalized_bin(count, scale);
  h.smoothed = smoothed_bin(h.before, h.now, tone.params.history_weight);
  return h;
}

// The frame's LUT from the device bins, as ToneMap::build makes it on the CPU. Three passes
// over the levels: the sums the options need (the scene distance, the clip excess of the counts
// and of the smoothed histogram); the source of each level (history written, clipped) and its
// running sum, left in the device bins; each level's LUT entry, the bins zeroed behind it.
template <int kBits>
__global__ void __launch_bounds__(kToneThreads)
    tone_deep(unsigned *d_histogram, unsigned long long pixels, unsigned long long scale,
              OutputRange range, DeviceTone tone, std::uint16_t *d_lut, unsigned *d_identity) {
  using D = Depth<kBits>;
  using BlockScan = cub::BlockScan<unsigned, kToneThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename BlockScan::TempStorage scan;
  __shared__ unsigned sum_slots[2][kToneWarps];
  __shared__ int band_sums[kSceneBands];
  __shared__ unsigned cdf_min;

  const int t = threadIdx.x;
  const Params &params = tone.params;
  const bool keep = params.keep_history;
  const bool followed = keep && tone.d_history_in && !tone.reset;
  if (t < kSceneBands) band_sums[t] = 0;
  if (t == 0) cdf_min = 0;
  __syncthreads();

  auto level_at = [](int round, int i) {
    return (round * kToneThreads + int(threadIdx.x)) * D::kItems + i;
  };
  const unsigned count_ceiling = unsigned(clip_ceiling(pixels, params.clip_limit, D::kLevels));
  const unsigned smoothed_ceiling = unsigned(clip_ceiling(kUnitQ30, params.clip_limit, D::kLevels));

  unsigned count_excess = 0;
  unsigned smoothed_excess = 0;
  if (keep || params.clip_limit) {
    for (int round = 0; round < D::kRounds; ++round) {
      int difference = 0;
#pragma unroll
      for (int i = 0; i < D::kItems; ++i) {
        const int v = level_at(round, i);
        const unsigned count = d_histogram[v];
        count_excess += unsigned(clip_excess(count, count_ceiling));
        if (keep) {
          const LevelHistory h = level_history(count, v, followed, scale, tone);
          difference += int(bin_difference(h.now, h.before));
          smoothed_excess += unsigned(clip_excess(h.smoothed, smoothed_ceiling));
        }
      }
      const int warp_difference = int(warp_sum(unsigned(difference)));
      if (keep && t % kLanes == 0)
        atomicAdd(&band_sums[level_at(round, 0) / D::kBandLevels], warp_difference);
    }
    count_excess = block_sum(count_excess, sum_slots[0]);
    smoothed_excess = block_sum(smoothed_excess, sum_slots[1]);
  }

  bool restarted = true;
  if (keep && followed) {
    unsigned distance = 0;
#pragma unroll
    for (int b = 0; b < kSceneBands; ++b) distance += unsigned(band_distance(band_sums[b]));
    restarted = is_scene_cut(distance, params.scene_threshold);
  }
  if (keep && t == 0) tone.d_report[0] = restarted;
  const bool smoothed_source = keep && !restarted && params.history_weight != 0;
  const ClipSpread spread = smoothed_source
                                ? clip_spread(smoothed_ceiling, smoothed_excess, D::kLevels)
                                : clip_spread(count_ceiling, count_excess, D::kLevels);

  unsigned carry = 0;
  for (int round = 0; round < D::kRounds; ++round) {
    unsigned source[D::kItems];
#pragma unroll
    for (int i = 0; i < D::kItems; ++i) {
      const int v = level_at(round, i);
      const unsigned count = d_histogram[v];
      source[i] = count;
      if (keep) {
        const LevelHistory h = level_history(count, v, followed, scale, tone);
        tone.d_history_out[v] = restarted ? h.now : h.smoothed;
        tone.d_report[1 + v] = count;
        if (smoothed_source) source[i] = unsigned(h.smoothed);
      }
      if (params.clip_limit) source[i] = unsigned(clipped_bin(source[i], v, spread));
    }
    unsigned cdf[D::kItems];
    unsigned round_total = 0;
    BlockScan(scan).InclusiveSum(source, cdf, round_total);
#pragma unroll
    for (int i = 0; i < D::kItems; ++i) {
      cdf[i] += carry;
      // The darkest present level is the one whose bin is the first with any count.
      if (source[i] && cdf[i] == source[i]) cdf_min = cdf[i];
      d_histogram[level_at(round, i)] = cdf[i];
    }
    carry += round_total;
    __syncthreads();  // the scan's storage is reused by the next round
  }

  const unsigned total = carry;
  const unsigned first = total ? cdf_min : 0u;
  bool identity = true;
  for (int round = 0; round < D::kRounds; ++round) {
#pragma unroll
    for (int i = 0; i < D::kItems; ++i) {
      const int v = level_at(round, i);
      const unsigned cdf = d_histogram[v];
      d_histogram[v] = 0;
      const std::uint32_t level = equalized_level(std::uint32_t(v), cdf, first, total, range);
      const std::uint32_t blended = blended_level(std::uint32_t(v), level, params.strength);
      d_lut[v] = std::uint16_t(blended);
      identity = identity && blended == std::uint32_t(v);
    }
  }
  identity = __syncthreads_and(identity);
  if (t == 0) *d_identity = identity;
}

template <typename Lut>
__device__ __forceinline__ std::uint32_t map_word(std::uint32_t word, const SampleLayout &sample,
                                                  const Lut &lut) {
  return sample.word_of(lut(sample.level_of(word)));
}

template <typename Lut>
__device__ __forceinline__ std::uint32_t map_words(std::uint32_t pair, const SampleLayout &sample,
                                                   const Lut &lut) {
  return map_word(pair & 0xffffu, sample, lut) | map_word(pair >> 16, sample, lut) << 16;
}

template <int kBits>
__global__ void __launch_bounds__(kWalkThreads)
    map_deep(DevicePlane plane, DevicePlane out, const std::uint16_t *d_lut,
             const unsigned *d_identity) {
  using D = Depth<kBits>;
  // The identity leaves the words alone; out of place they are still copied.
  const bool copy_only = *d_identity;
  if (copy_only && out.data == plane.data) return;
  __shared__ std::uint16_t table[D::kSharedLut ? D::kLevels : 1];
  if constexpr (D::kSharedLut) {
    for (int v = threadIdx.x; v < D::kLevels; v += blockDim.x) table[v] = d_lut[v];
    __syncthreads();
  }
  const auto lut = [&](std::uint32_t level) -> std::uint32_t {
    if constexpr (D::kSharedLut) {
      return table[level];
    } else {
      return __ldg(&d_lut[level]);
    }
  };
  const SampleLayout sample = plane.layout.sample;
  const Items items(plane, out, kChunkBytes);
  for (ItemCursor at(items, plane.height, blockIdx.x * (long long)blockDim.x + threadIdx.x,
                     (long long)gridDim.x * blockDim.x);
       at.y < plane.height; at.next()) {
    const std::uint8_t *row = plane.data + (std::size_t)at.y * plane.pitch;
    std::uint8_t *out_row = out.data + (std::size_t)at.y * out.pitch;
    if (at.c < items.chunks) {
      const uint4 chunk = *reinterpret_cast<const uint4 *>(row + at.c * kChunkBytes);
      const uint4 mapped =
          copy_only ? chunk
                    : uint4{map_words(chunk.x, sample, lut), map_words(chunk.y, sample, lut),
                            map_words(chunk.z, sample, lut), map_words(chunk.w, sample, lut)};
      *reinterpret_cast<uint4 *>(out_row + at.c * kChunkBytes) = mapped;
    } else {
      const auto *words = reinterpret_cast<const std::uint16_t *>(row);
      auto *out_words = reinterpret_cast<std::uint16_t *>(out_row);
      for (int x = items.chunks * (kChunkBytes / 2); x < plane.width; ++x)
        out_words[x] = copy_only ? words[x] : std::uint16_t(map_word(words[x], sample, lut));
    }
  }
}

template <int kBits>
cudaError_t launch_depth(const DevicePlane &plane, const DevicePlane &out, OutputRange range,
                         const DeviceTone &tone, const DeepScratch &scratch, int sm_count,
                         cudaStream_t stream) {
  const long long chunks = ((long long)plane.row_bytes() + kChunkBytes - 1) / kChunkBytes;
  const long long items = chunks * plane.height;
  const int blocks = int(std::clamp<long long>((items + kWalkThreads - 1) / kWalkThreads, 1,
                                               (long long)sm_count * kWalkBlocksPerSm));
  const unsigned long long pixels = (unsigned long long)plane.width * plane.height;
  HISTEQ_CUDA_BEFORE_LAUNCH();
  count_deep<kBits><<<blocks, kWalkThreads, 0, stream>>>(plane, scratch.d_histogram);
  HISTEQ_CUDA_TRY_LAUNCH();
  tone_deep<kBits><<<1, kToneThreads, 0, stream>>>(scratch.d_histogram, pixels, bin_scale(pixels),
                                                   range, tone, scratch.d_lut, scratch.d_identity);
  HISTEQ_CUDA_TRY_LAUNCH();
  map_deep<kBits>
      <<<blocks, kWalkThreads, 0, stream>>>(plane, out, scratch.d_lut, scratch.d_identity);
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace

cudaError_t launch_deep(const DevicePlane &plane, const DevicePlane &out, OutputRange range,
                        const DeviceTone &tone, const DeepScratch &scratch, int sm_count,
                        cudaStream_t stream) {
  switch (plane.layout.sample.bits) {
    case 10:
      return launch_depth<10>(plane, out, range, tone, scratch, sm_count, stream);
    case 12:
      return launch_depth<12>(plane, out, range, tone, scratch, sm_count, stream);
    case 16:
      return launch_depth<16>(plane, out, range, tone, scratch, sm_count, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace histeq::cuda
