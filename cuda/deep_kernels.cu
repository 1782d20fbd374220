// SPDX-License-Identifier: LGPL-2.1-or-later
#include "deep_kernels.h"

#include <algorithm>

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>
#include <cuda_pipeline.h>

#include "cuda_check.h"
#include "dependent_launch.cuh"
#include "item_walk.cuh"
#include "kernel_shape.cuh"
#include "tone_steps.h"

namespace histeq::cuda {

namespace {

// Mapping and the 10 and 12-bit counts: blocks of kWalkThreads, kWalkBlocksPerSm of them per SM
// at most, each thread loading kWalkUnroll chunks before it uses any. Fewer blocks merge fewer
// shared bins into the device bins; more chunks in flight per thread make up for the threads.
// The 16-bit count and map: one block of kWideThreads per SM (its bins or LUT take 128 KiB).
constexpr int kWalkThreads = 512;
constexpr int kWalkBlocksPerSm = 2;
constexpr int kWalkUnroll = 4;
constexpr int kWideThreads = 1024;
// The tone kernel: blocks of kToneThreads threads, each holding ToneShape::kItems levels.
constexpr int kToneThreads = 256;
// A 16-byte chunk holds 8 words.
constexpr int kChunkBytes = 16;
constexpr int kChunkWords = kChunkBytes / 2;

template <int kBits>
struct Depth {
  static constexpr int kLevels = 1 << kBits;
  // 16-bit samples: 65536 levels, whose bins and LUT take 128 KiB of shared memory each.
  static constexpr bool kWide = kBits > 12;
  // 10 and 12-bit counts go to 32 KiB of 32-bit shared bins per block: copies of the bins, warp
  // w counting into copy w % kCopies so that fewer warps collide on a level. 16-bit counts go
  // to 16-bit bins, two to a word.
  static constexpr int kCopies = kWide ? 1 : (8192 >> kBits);
  static constexpr int kBandLevels = kLevels / kSceneBands;
  static_assert(kWide || kCopies * kLevels == 8192, "the shared bins fill 32 KiB");
};

// How the tone kernel's threads hold a depth's levels: kItems consecutive levels each, in
// kBlocks blocks. Blocks of 1024 levels, four a thread, except the classic LUT (no history,
// clip or blend): up to 12 bits one block, 16 levels a thread at 12 bits, whose sums cross no
// blocks; at 16 bits 32 blocks of eight levels a thread, half the blocks to swap sums between.
// With the options, whose history and report take every level through device memory, four
// levels a thread are the faster shape (four 12-bit blocks, 64 16-bit ones).
template <int kBits, bool kClassic>
struct ToneShape {
  static constexpr int kLevels = 1 << kBits;
  static constexpr int kItems = !kClassic ? 4 : kBits <= 12 ? kLevels / kToneThreads : 8;
  static constexpr int kBlockLevels = kToneThreads * kItems;
  static constexpr int kBlocks = kLevels / kBlockLevels;
  static_assert(kItems % 4 == 0, "a thread's levels are whole 16-byte loads of counts");
  static_assert(Depth<kBits>::kBandLevels % kItems == 0, "a thread's levels lie within one band");
  static_assert(kBlocks <= DeepExchange::kMaxBlocks, "the exchange holds every block");
};

// Bytes of the 16-bit count's shared bins, and of the 16-bit map's shared LUT; the map stages
// up to kWalkUnroll chunks a thread in shared memory after its LUT, where the device has room.
constexpr int kWideBinBytes = (1 << 16) * 2;
constexpr int kWideLutBytes = (1 << 16) * 2;
constexpr int kWideStageSlotBytes = kWideThreads * kChunkBytes;
// The 16-bit map's static table: unused (its LUT is in dynamic shared memory), but it still takes
// its bytes of the block's shared memory.
constexpr int kWideStaticTableBytes = 16;

// The first byte of chunk c of row y.
__device__ __forceinline__ const std::uint8_t *chunk_at(const DevicePlane &plane, int y, int c) {
  return plane.data + (std::size_t)y * plane.pitch + c * kChunkBytes;
}

// kUnroll items' chunks, from `at` on, loaded before any is used; `at` moves past them
// (`chunks[k]` is meaningful for items of whole chunks, c < items.chunks).
template <int kUnroll>
struct Round {
  uint4 chunks[kUnroll];
  int ys[kUnroll], cs[kUnroll];

  __device__ __forceinline__ void load(const DevicePlane &plane, const Items &items,
                                       ItemCursor &at) {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k, at.next()) {
      ys[k] = at.y;
      cs[k] = at.c;
      if (at.y < plane.height && at.c < items.chunks)
        chunks[k] = *reinterpret_cast<const uint4 *>(chunk_at(plane, at.y, at.c));
    }
  }
  template <class Visit>
  __device__ __forceinline__ void visit_all(const DevicePlane &plane, Visit visit) const {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      if (ys[k] < plane.height) visit(ys[k], cs[k], chunks[k]);
    }
  }
};

// Visits items first, first + stride, ... (item_walk.cuh) with visit(row, c, chunk), a Round at a
// time, so that kUnroll loads are in flight per thread (a row's tail words are the visitor's to
// read). walk_rounds goes on from `at`; it calls ready() after its first loads unless `started`,
// and stops there when it returns false.
template <int kUnroll, class Visit, class Ready>
__device__ __forceinline__ void walk_rounds(const DevicePlane &plane, const Items &items,
                                            ItemCursor at, bool started, Visit visit, Ready ready) {
  do {
    Round<kUnroll> round;
    round.load(plane, items, at);
    if (!started) {
      started = true;
      if (!ready()) return;
    }
    round.visit_all(plane, visit);
  } while (at.y < plane.height);
}

// walk_rounds over every item of this thread. Every thread calls ready() once, after its first
// loads are issued and before it visits anything.
template <int kUnroll, class Visit, class Ready>
__device__ __forceinline__ void walk_items(const DevicePlane &plane, const Items &items,
                                           long long first, long long stride, Visit visit,
                                           Ready ready) {
  walk_rounds<kUnroll>(plane, items, ItemCursor(items, plane.height, first, stride), false, visit,
                       ready);
}

template <int kUnroll, class Visit>
__device__ __forceinline__ void walk_items(const DevicePlane &plane, const Items &items,
                                           long long first, long long stride, Visit visit) {
  walk_items<kUnroll>(plane, items, first, stride, visit, [] { return true; });
}

// walk_items with `staged` (at most kUnroll) more chunks per thread on their way before ready():
// copied asynchronously into this thread's slots of `staging` in shared memory (slot k at
// k * blockDim.x + threadIdx.x), they are visited after the first kUnroll, and the walk goes on
// from there. A map whose ready() waits for the tone kernel so has as much again of the plane
// loading while the LUT is built, without the registers to hold it.
template <int kUnroll, class Visit, class Ready>
__device__ __forceinline__ void walk_items_staged(const DevicePlane &plane, const Items &items,
                                                  long long first, long long stride, uint4 *staging,
                                                  int staged, Visit visit, Ready ready) {
  ItemCursor at(items, plane.height, first, stride);
  Round<kUnroll> round;
  round.load(plane, items, at);
  const ItemCursor staged_from = at;
  for (int k = 0; k < staged; ++k, at.next()) {
    if (at.y < plane.height && at.c < items.chunks)
      __pipeline_memcpy_async(&staging[k * blockDim.x + threadIdx.x], chunk_at(plane, at.y, at.c),
                              kChunkBytes);
  }
  __pipeline_commit();
  const bool go = ready();
  __pipeline_wait_prior(0);
  if (!go) return;
  round.visit_all(plane, visit);
  ItemCursor back = staged_from;
  for (int k = 0; k < staged; ++k, back.next()) {
    if (back.y < plane.height)
      visit(back.y, back.c,
            back.c < items.chunks ? staging[k * blockDim.x + threadIdx.x] : uint4{});
  }
  if (at.y < plane.height) walk_rounds<kUnroll>(plane, items, at, true, visit, ready);
}

// Calls count(word) for every word of item (y, c) that walk_items visits: a chunk's eight, or the
// row's tail words.
template <class Count>
__device__ __forceinline__ void each_word(const DevicePlane &plane, const Items &items, int y,
                                          int c, const uint4 &chunk, Count count) {
  if (c < items.chunks) {
    const std::uint32_t pairs[4] = {chunk.x, chunk.y, chunk.z, chunk.w};
#pragma unroll
    for (const std::uint32_t two : pairs) {
      count(two & 0xffffu);
      count(two >> 16);
    }
  } else {
    const auto *words =
        reinterpret_cast<const std::uint16_t *>(plane.data + (std::size_t)y * plane.pitch);
    for (int x = items.chunks * kChunkWords; x < plane.width; ++x) count(words[x]);
  }
}

// The whole grid's walk: thread i of the grid takes items i, i + threads, ...
__device__ __forceinline__ long long grid_first() {
  return blockIdx.x * (long long)blockDim.x + threadIdx.x;
}
__device__ __forceinline__ long long grid_stride() {
  return (long long)gridDim.x * blockDim.x;
}

// A count's ready() for walk_items: the block's `words` shared bins zeroed, while its first
// chunks are on their way, before any thread adds to them.
__device__ __forceinline__ bool zero_bins(unsigned *words, int count) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) words[i] = 0;
  __syncthreads();
  return true;
}

// Adds `even` and `odd` to device bins 2 * pair and 2 * pair + 1 with one 64-bit atomic, half
// as many as a 32-bit atomic per bin: each bin's total stays below 2^32 (frames have fewer
// pixels), so no carry crosses from one bin into the other. An odd amount may be negative,
// modulo 2^32 (count_wide): its carry leaves the 64-bit word. The kernels that count in shared
// bins add to the device bins through nothing else, so no 32-bit atomic overlaps these.
__device__ __forceinline__ void add_bin_pair(unsigned *d_histogram, unsigned pair, unsigned even,
                                             unsigned odd) {
  atomicAdd(reinterpret_cast<unsigned long long *>(d_histogram) + pair,
            (unsigned long long)odd << 32 | even);
}

template <int kBits>
__global__ void __launch_bounds__(kWalkThreads)
    count_deep(DevicePlane plane, unsigned *d_histogram) {
  using D = Depth<kBits>;
  __shared__ __align__(8) unsigned bins[D::kCopies][D::kLevels];
  const SampleLayout sample = plane.layout.sample;
  unsigned *mine = bins[(threadIdx.x / kLanes) % D::kCopies];
  const Items items(plane, plane, kChunkBytes);
  walk_items<kWalkUnroll>(
      plane, items, grid_first(), grid_stride(),
      [&](int y, int c, const uint4 &chunk) {
        each_word(plane, items, y, c, chunk,
                  [&](std::uint32_t word) { atomicAdd(&mine[sample.level_of(word)], 1u); });
      },
      [&] { return zero_bins(&bins[0][0], D::kCopies * D::kLevels); });
  __syncthreads();
  for (int pair = threadIdx.x; pair < D::kLevels / 2; pair += blockDim.x) {
    unsigned even = 0, odd = 0;
#pragma unroll
    for (int copy = 0; copy < D::kCopies; ++copy) {
      const uint2 two = reinterpret_cast<const uint2 *>(bins[copy])[pair];
      even += two.x;
      odd += two.y;
    }
    if (even | odd) add_bin_pair(d_histogram, pair, even, odd);
  }
}

// The 16-bit shared bins and LUT keep the two levels of pair p (2p and 2p + 1) in shared word
// wide_slot(p). Video of 8, 10 or 12 bits in 16-bit words (as NVDEC hands it over) has only
// levels whose low 8, 6 or 4 bits are zero; at word p a warp's neighbouring levels would fall in
// one, one or four of the 32 banks. XOR-ing bits 5-9 of p into its bank bits (0-4) spreads them
// over 8, 32 and 32 banks; bits 5-9 stay, so wide_slot is its own inverse.
__device__ __forceinline__ unsigned wide_slot(unsigned pair) {
  return pair ^ (pair >> 5 & 31u);
}

// The shared half of level v: half v % 2 of word wide_slot(v / 2).
__device__ __forceinline__ unsigned wide_half_of(std::uint32_t level) {
  return wide_slot(level >> 1) << 1 | (level & 1u);
}

// Chunk i of the 16-bit LUT (pairs 4i to 4i + 3) to its place in the shared table: wide_slot
// moves the four alike above their two lowest bits (chunk i ^ (x >> 2)) and swaps them within
// by those (word j to j ^ (x & 3)), x the XOR it applies to all four.
__device__ __forceinline__ void store_wide_lut_chunk(uint4 *table_chunks, unsigned i, uint4 lut) {
  const unsigned x = wide_slot(4 * i) ^ (4 * i);
  if (x & 1u) lut = uint4{lut.y, lut.x, lut.w, lut.z};
  if (x & 2u) lut = uint4{lut.z, lut.w, lut.x, lut.y};
  table_chunks[i ^ (x >> 2)] = lut;
}

// 16-bit counts: level v in half v % 2 of shared word wide_slot(v / 2). A block whose band holds
// at most 0xffff pixels (kBandFits) cannot take a half past 0xffff. In a larger band halves wrap,
// and each thread settles what its own atomic did, so the totals are exact in any order the
// threads run: the word's arithmetic is modulo 2^32, and the old value an atomic returns says
// whether that atomic carried out of the word (65536 of the odd level gone to the device bin) or
// took the even half from 0xffff to 0 (65536 of the even level to the device bin, and the carry
// it put into the odd half taken back, which borrows out of the word where the odd half had
// wrapped to 0 meanwhile: -65536 of the odd level, modulo 2^32 in the device bin).
template <bool kBandFits>
__device__ __forceinline__ void count_wide(std::uint32_t word, unsigned *pairs,
                                           unsigned *d_histogram) {
  const unsigned one = 1u << (word & 1u) * 16;
  unsigned *slot = &pairs[wide_slot(word >> 1)];
  if constexpr (kBandFits) {
    atomicAdd(slot, one);
  } else {
    // What a half holds before it wraps: 65536 counts, and the odd half's one in the word.
    constexpr unsigned kWrap = 0x10000u;
    const unsigned old = atomicAdd(slot, one);
    unsigned even = 0, odd = 0;
    if (old > ~0u - one) odd += kWrap;
    if (one == 1u && (old & 0xffffu) == 0xffffu) {
      even += kWrap;
      if (atomicSub(slot, kWrap) < kWrap) odd -= kWrap;
    }
    if (even | odd) add_bin_pair(d_histogram, word >> 1, even, odd);
  }
}

// The most pixels a band may hold for count_deep_wide<true>.
constexpr long long kWideBandPixels = 0xffff;

// The 16-bit count's shared words: a pair of levels each.
constexpr int kWidePairs = kWideBinBytes / 4;

// Adds a block's 16-bit shared bins into the device bins, thread t of the block's kWideThreads
// (count_deep_wide's launch) taking words t, t + kWideThreads, ... Each thread loads all its
// words before it adds any, so that the loads' latencies overlap instead of one following another.
__device__ __forceinline__ void merge_wide_bins(const unsigned *pairs, unsigned *d_histogram) {
  constexpr int kSteps = kWidePairs / kWideThreads;
  static_assert(kSteps * kWideThreads == kWidePairs, "the threads share the pairs evenly");
  unsigned words[kSteps];
#pragma unroll
  for (int s = 0; s < kSteps; ++s) words[s] = pairs[s * kWideThreads + int(threadIdx.x)];
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    const unsigned i = unsigned(s * kWideThreads) + threadIdx.x;
    if (words[s]) add_bin_pair(d_histogram, wide_slot(i), words[s] & 0xffffu, words[s] >> 16);
  }
}

// 16 bits: every word's level is the word (level_of is the identity with no shift and 16 bits).
// Each block counts a band of whole rows: neighbouring pixels share levels, so a band holds fewer
// distinct levels than rows strewn over the frame, and the block merges fewer bins.
template <bool kBandFits>
__global__ void __launch_bounds__(kWideThreads)
    count_deep_wide(DevicePlane plane, unsigned *d_histogram) {
  extern __shared__ unsigned pairs[];
  const int rows = (plane.height + int(gridDim.x) - 1) / int(gridDim.x);
  const int top = min(plane.height, int(blockIdx.x) * rows);
  DevicePlane band = plane;
  band.data += (std::size_t)top * plane.pitch;
  band.height = min(plane.height, top + rows) - top;
  const Items items(band, band, kChunkBytes);
  walk_items<kWalkUnroll>(
      band, items, threadIdx.x, blockDim.x,
      [&](int y, int c, const uint4 &chunk) {
        each_word(band, items, y, c, chunk,
                  [&](std::uint32_t word) { count_wide<kBandFits>(word, pairs, d_histogram); });
      },
      [&] { return zero_bins(pairs, kWidePairs); });
  __syncthreads();
  merge_wide_bins(pairs, d_histogram);
}

// 16 bits without the shared memory for count_deep_wide: every word to its device bin.
__global__ void __launch_bounds__(kWalkThreads)
    count_deep_global(DevicePlane plane, unsigned *d_histogram) {
  const Items items(plane, plane, kChunkBytes);
  walk_items<kWalkUnroll>(
      plane, items, grid_first(), grid_stride(), [&](int y, int c, const uint4 &chunk) {
        each_word(plane, items, y, c, chunk,
                  [&](std::uint32_t word) { atomicAdd(&d_histogram[word], 1u); });
      });
}

// The sum over the block of every thread's `value`, in every thread (`slots`: a word per warp
// of shared memory, not in use by another sum of the same barrier interval).
__device__ __forceinline__ unsigned block_sum(unsigned value, unsigned *slots) {
  const unsigned sum = warp_sum(value);
  if (threadIdx.x % kLanes == 0) slots[threadIdx.x / kLanes] = sum;
  __syncthreads();
  unsigned total = 0;
#pragma unroll
  for (int w = 0; w < kToneThreads / kLanes; ++w) total += slots[w];
  return total;
}

// The sums of every tone block's option values, behind the grid barrier, into *count_excess,
// *smoothed_excess and band_sums (kSceneBands of them, read after a barrier): the loads go out
// at once, one round trip to L2. Warps 0 and 1 take the two excesses; the threads, in groups of
// 16 (one a band), take the band differences of ceil(kBlocks / 16) blocks a group (groups past
// the last block none); each warp adds its two groups, and the first 16 threads the warps.
template <int kBlocks>
__device__ __forceinline__ void read_option_sums(
    const DeepExchange *exchange, unsigned *count_excess, unsigned *smoothed_excess,
    int (&band_slots)[kToneThreads / kLanes][kSceneBands], int *band_sums) {
  static_assert(2 * kSceneBands == kLanes, "a warp holds every band twice");
  constexpr int kGroups = kToneThreads / kSceneBands;
  constexpr int kPerGroup = (kBlocks + kGroups - 1) / kGroups;
  constexpr int kExcessSteps = (kBlocks + kLanes - 1) / kLanes;
  const int t = threadIdx.x;
  const int warp = t / kLanes, lane = t % kLanes;
  const int band = t % kSceneBands, group = t / kSceneBands;
  int difference = 0;
#pragma unroll
  for (int k = 0; k < kPerGroup; ++k) {
    const int other = group * kPerGroup + k;
    if (other < kBlocks) difference += __ldcg(&exchange->band_differences[other][band]);
  }
  if (warp < 2) {
    const unsigned *per_block = warp == 0 ? exchange->count_excess : exchange->smoothed_excess;
    unsigned excess = 0;
#pragma unroll
    for (int step = 0; step < kExcessSteps; ++step) {
      const int other = step * kLanes + lane;
      if (other < kBlocks) excess += __ldcg(&per_block[other]);
    }
    excess = warp_sum(excess);
    if (lane == 0) *(warp == 0 ? count_excess : smoothed_excess) = excess;
  }
  // Lanes l and l + 16 hold the same band.
  difference += __shfl_xor_sync(0xffffffffu, difference, kSceneBands);
  if (lane < kSceneBands) band_slots[warp][band] = difference;
  __syncthreads();
  if (t < kSceneBands) {
    int sum = 0;
#pragma unroll
    for (int w = 0; w < kToneThreads / kLanes; ++w) sum += band_slots[w][t];
    band_sums[t] = sum;
  }
}

// What a tone block takes from the others' scans, behind the grid barrier, into *prefix (the
// totals of blocks [0, b)), *total (every block's) and *cdf_min (the first present level's cdf:
// the first value of the first block with one): every block's two words loaded at once by the
// first warp, one round trip to L2.
template <int kBlocks>
__device__ __forceinline__ void read_scan_seam(const DeepExchange *exchange, int b,
                                               unsigned *prefix, unsigned *total,
                                               unsigned *cdf_min) {
  if (threadIdx.x >= kLanes) return;
  constexpr int kSteps = (kBlocks + kLanes - 1) / kLanes;
  unsigned totals[kSteps], firsts[kSteps];
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const int other = step * kLanes + int(threadIdx.x);
    totals[step] = other < kBlocks ? __ldcg(&exchange->source_total[other]) : 0u;
    firsts[step] = other < kBlocks ? __ldcg(&exchange->first_source[other]) : 0u;
  }
  unsigned before = 0, all = 0, found = 0;
#pragma unroll
  for (int step = kSteps - 1; step >= 0; --step) {
    const int other = step * kLanes + int(threadIdx.x);
    before += other < b ? totals[step] : 0u;
    all += totals[step];
    const unsigned present = __ballot_sync(0xffffffffu, firsts[step] != 0);
    if (present) found = __shfl_sync(0xffffffffu, firsts[step], __ffs(int(present)) - 1);
  }
  before = warp_sum(before);
  all = warp_sum(all);
  if (threadIdx.x == 0) {
    *prefix = before;
    *total = all;
    *cdf_min = found;
  }
}

// The frame's LUT from the device bins, as ToneMap::build makes it on the CPU, by a cooperative
// grid of ToneShape::kBlocks blocks, thread t of block b holding the kItems levels from
// b * kBlockLevels + t * kItems.
// Behind a grid barrier the blocks swap the sums the options need (scene distance per band, the
// clip excess of the counts and of the smoothed histogram; the classic LUT needs none), then
// behind another their scan totals and first present levels, from which each block has its
// levels' cdf and the frame's cdf_min. One block (10 bits; 12 bits without options) has all of
// them itself: no grid barrier, no round trip through device memory.
template <int kBits, bool kClassic>
__global__ void __launch_bounds__(kToneThreads)
    tone_deep(unsigned *d_histogram, unsigned long long pixels, unsigned long long scale,
              OutputRange range, DeviceTone tone, DeepExchange *d_exchange, std::uint16_t *d_lut,
              unsigned *d_identity) {
  using D = Depth<kBits>;
  using BlockScan = cub::BlockScan<unsigned, kToneThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename BlockScan::TempStorage scan;
  __shared__ unsigned sum_slots[2][kToneThreads / kLanes];
  __shared__ int band_sums[kSceneBands];
  __shared__ int band_slots[kToneThreads / kLanes][kSceneBands];
  __shared__ unsigned first_source;
  __shared__ unsigned shared_sums[4];  // excesses, then the prefix and total of the scan
  __shared__ unsigned cdf_min;
  let_next_kernel_start();
  const int t = threadIdx.x;
  const int b = blockIdx.x;
  using Shape = ToneShape<kBits, kClassic>;
  constexpr int kToneItems = Shape::kItems;
  const int first = b * Shape::kBlockLevels + t * kToneItems;
  const Params &params = tone.params;
  const bool keep = params.keep_history;
  const bool followed = keep && tone.d_history_in && !tone.reset;
  if (t < kSceneBands) band_sums[t] = 0;
  if (t == 0) first_source = 0;
  // Launched early, the grid waits here for the count to be complete.
  wait_for_preceding_kernel();
  if (b == 0 && t == 0) *d_identity = 1;

  unsigned count[kToneItems];
#pragma unroll
  for (int i = 0; i < kToneItems; i += 4) {
    auto *four = reinterpret_cast<uint4 *>(&d_histogram[first + i]);
    const uint4 counts4 = *four;
    *four = uint4{0, 0, 0, 0};  // for the next frame
    count[i] = counts4.x;
    count[i + 1] = counts4.y;
    count[i + 2] = counts4.z;
    count[i + 3] = counts4.w;
  }
  // The history's loads go out before the counts are first used, so their latencies overlap.
  unsigned long long before[kToneItems] = {};
  if (followed) {
#pragma unroll
    for (int i = 0; i < kToneItems; ++i) before[i] = tone.d_history_in[first + i];
  }
  unsigned long long now[kToneItems] = {};
  unsigned long long smoothed[kToneItems] = {};
  const unsigned count_ceiling = unsigned(clip_ceiling(pixels, params.clip_limit, D::kLevels));
  const unsigned smoothed_ceiling = unsigned(clip_ceiling(kUnitQ30, params.clip_limit, D::kLevels));
  unsigned count_excess = 0, smoothed_excess = 0;
  int difference = 0;
#pragma unroll
  for (int i = 0; i < kToneItems; ++i) {
    count_excess += unsigned(clip_excess(count[i], count_ceiling));
    if (keep) {
      now[i] = normalized_bin(count[i], scale);
      smoothed[i] = smoothed_bin(before[i], now[i], params.history_weight);
      difference += int(bin_difference(now[i], before[i]));
      smoothed_excess += unsigned(clip_excess(smoothed[i], smoothed_ceiling));
    }
  }
  __syncthreads();  // band_sums and first_source are set
  if (keep) atomicAdd(&band_sums[first / D::kBandLevels], difference);
  // The classic LUT clips nothing and keeps no history: it needs neither sum.
  if constexpr (!kClassic) {
    count_excess = block_sum(count_excess, sum_slots[0]);
    smoothed_excess = block_sum(smoothed_excess, sum_slots[1]);
  }
  // The frame's sums: a lone block with options has them (band_sums too, complete behind
  // block_sum's barriers); more blocks swap theirs. The classic LUT uses none of them.
  if constexpr (Shape::kBlocks > 1 && !kClassic) {
    if (t == 0) {
      d_exchange->count_excess[b] = count_excess;
      d_exchange->smoothed_excess[b] = smoothed_excess;
    }
    if (t < kSceneBands) d_exchange->band_differences[b][t] = band_sums[t];
    cooperative_groups::this_grid().sync();
    read_option_sums<Shape::kBlocks>(d_exchange, &shared_sums[0], &shared_sums[1], band_slots,
                                     band_sums);
    __syncthreads();
    count_excess = shared_sums[0];
    smoothed_excess = shared_sums[1];
  }
  bool restarted = true;
  if (followed) {
    unsigned distance = 0;
#pragma unroll
    for (int band = 0; band < kSceneBands; ++band)
      distance += unsigned(band_distance(band_sums[band]));
    restarted = is_scene_cut(distance, params.scene_threshold);
  }
  const bool smoothed_source = keep && !restarted && params.history_weight != 0;
  const ClipSpread spread = smoothed_source
                                ? clip_spread(smoothed_ceiling, smoothed_excess, D::kLevels)
                                : clip_spread(count_ceiling, count_excess, D::kLevels);
  unsigned source[kToneItems];
#pragma unroll
  for (int i = 0; i < kToneItems; ++i) {
    const int v = first + i;
    source[i] = smoothed_source ? unsigned(smoothed[i]) : count[i];
    if (params.clip_limit) source[i] = unsigned(clipped_bin(source[i], v, spread));
    if (keep) {
      tone.d_history_out[v] = restarted ? now[i] : smoothed[i];
      tone.d_report[1 + v] = count[i];
    }
  }
  if (keep && b == 0 && t == 0) tone.d_report[0] = restarted;
  unsigned cdf[kToneItems];
  unsigned block_total = 0;
  BlockScan(scan).InclusiveSum(source, cdf, block_total);
#pragma unroll
  for (int i = 0; i < kToneItems; ++i) {
    // The block's first present level is the one whose bin is the first with any count.
    if (source[i] && cdf[i] == source[i]) first_source = cdf[i];
  }
  __syncthreads();
  // This block's levels' prefix, the frame's total and its first present level's cdf: a lone
  // block's own; more blocks swap their totals and first present levels.
  unsigned prefix = 0, total = block_total, frame_cdf_min = first_source;
  if constexpr (Shape::kBlocks > 1) {
    if (t == 0) {
      d_exchange->source_total[b] = block_total;
      d_exchange->first_source[b] = first_source;
    }
    cooperative_groups::this_grid().sync();
    read_scan_seam<Shape::kBlocks>(d_exchange, b, &shared_sums[2], &shared_sums[3], &cdf_min);
    __syncthreads();
    prefix = shared_sums[2];
    total = shared_sums[3];
    frame_cdf_min = cdf_min;
  }
  bool identity = true;
  std::uint16_t lut[kToneItems];
#pragma unroll
  for (int i = 0; i < kToneItems; ++i) {
    const std::uint32_t v = std::uint32_t(first + i);
    const std::uint32_t level = equalized_level(v, cdf[i] + prefix, frame_cdf_min, total, range);
    const std::uint32_t blended = blended_level(v, level, params.strength);
    lut[i] = std::uint16_t(blended);
    identity = identity && blended == v;
  }
#pragma unroll
  for (int i = 0; i < kToneItems; i += 4) {
    *reinterpret_cast<uint2 *>(&d_lut[first + i]) =
        uint2{lut[i] | unsigned(lut[i + 1]) << 16, lut[i + 2] | unsigned(lut[i + 3]) << 16};
  }
  // Block 0 set the flag before the first barrier; any block whose levels move clears it.
  if (!__syncthreads_and(identity) && t == 0) *d_identity = 0;
}

// 16-bit samples fill their words: the level is the word (a valid layout's bits and shift add
// up to 16 at most), known at compile time.
struct WholeWordSample {
  __device__ std::uint32_t level_of(std::uint32_t word) const { return word; }
  __device__ std::uint32_t word_of(std::uint32_t level) const { return level; }
};

template <typename Sample, typename Lut>
__device__ __forceinline__ std::uint32_t map_word(std::uint32_t word, const Sample &sample,
                                                  const Lut &lut) {
  return sample.word_of(lut(sample.level_of(word)));
}

template <typename Sample, typename Lut>
__device__ __forceinline__ std::uint32_t map_words(std::uint32_t pair, const Sample &sample,
                                                   const Lut &lut) {
  return map_word(pair & 0xffffu, sample, lut) | map_word(pair >> 16, sample, lut) << 16;
}

// kWideShared: the 16-bit LUT in dynamic shared memory (else read from device memory).
// `staged`: chunks a thread stages in shared memory after the 16-bit LUT (walk_items_staged).
template <int kBits, bool kWideShared>
__global__ void __launch_bounds__(kWideShared ? kWideThreads : kWalkThreads)
    map_deep(DevicePlane plane, DevicePlane out, const std::uint16_t *d_lut,
             const unsigned *d_identity, int staged) {
  using D = Depth<kBits>;
  // Random lookups into a LUT in device memory would split every warp's load over as many cache
  // lines: the LUT goes to shared memory, 128 KiB of dynamic shared memory at 16 bits.
  constexpr bool kSharedTable = !D::kWide || kWideShared;
  __shared__ __align__(16)
      std::uint16_t small_table[D::kWide ? kWideStaticTableBytes / 2 : D::kLevels];
  extern __shared__ __align__(16) std::uint16_t wide_table[];
  std::uint16_t *table = D::kWide ? wide_table : small_table;
  const auto lut = [&](std::uint32_t level) -> std::uint32_t {
    if constexpr (D::kWide && kWideShared) {
      return table[wide_half_of(level)];
    } else if constexpr (kSharedTable) {
      return table[level];
    } else {
      return __ldg(&d_lut[level]);
    }
  };
  const auto sample = [&] {
    if constexpr (D::kWide) {
      return WholeWordSample{};
    } else {
      return plane.layout.sample;
    }
  }();
  const Items items(plane, out, kChunkBytes);
  bool copy_only = false;
  // The LUT, once this thread's first chunks are on their way: the tone kernel may still be
  // building it when this grid starts.
  const auto lut_ready = [&] {
    wait_for_preceding_kernel();
    // The identity leaves the words alone; out of place they are still copied.
    copy_only = *d_identity;
    if (copy_only && out.data == plane.data) return false;
    if constexpr (kSharedTable) {
      // Eight entries a load: one 2-byte load each would keep the block waiting on 128 KiB.
      const auto *lut_chunks = reinterpret_cast<const uint4 *>(d_lut);
      auto *table_chunks = reinterpret_cast<uint4 *>(table);
#pragma unroll 4
      for (int i = threadIdx.x; i < D::kLevels / 8; i += blockDim.x) {
        if constexpr (D::kWide) {
          store_wide_lut_chunk(table_chunks, i, lut_chunks[i]);
        } else {
          table_chunks[i] = lut_chunks[i];
        }
      }
      __syncthreads();
    }
    return true;
  };
  const auto map_item = [&](int y, int c, const uint4 &chunk) {
    std::uint8_t *out_row = out.data + (std::size_t)y * out.pitch;
    if (c < items.chunks) {
      const uint4 mapped =
          copy_only ? chunk
                    : uint4{map_words(chunk.x, sample, lut), map_words(chunk.y, sample, lut),
                            map_words(chunk.z, sample, lut), map_words(chunk.w, sample, lut)};
      *reinterpret_cast<uint4 *>(out_row + c * kChunkBytes) = mapped;
    } else {
      const auto *words =
          reinterpret_cast<const std::uint16_t *>(plane.data + (std::size_t)y * plane.pitch);
      auto *out_words = reinterpret_cast<std::uint16_t *>(out_row);
      for (int x = items.chunks * kChunkWords; x < plane.width; ++x)
        out_words[x] = copy_only ? words[x] : std::uint16_t(map_word(words[x], sample, lut));
    }
  };
  if constexpr (D::kWide && kWideShared) {
    auto *staging = reinterpret_cast<uint4 *>(wide_table + D::kLevels);
    walk_items_staged<kWalkUnroll>(plane, items, grid_first(), grid_stride(), staging, staged,
                                   map_item, lut_ready);
  } else {
    walk_items<kWalkUnroll>(plane, items, grid_first(), grid_stride(), map_item, lut_ready);
  }
}

// The tone kernel of shape ToneShape<kBits, kClassic> for `plane`'s histogram in `scratch`.
template <int kBits, bool kClassic>
cudaError_t launch_tone(const DevicePlane &plane, OutputRange range, const DeviceTone &tone,
                        const DeepScratch &scratch, cudaStream_t stream) {
  using Shape = ToneShape<kBits, kClassic>;
  unsigned *histogram = scratch.d_histogram;
  unsigned long long pixels = (unsigned long long)plane.width * plane.height;
  unsigned long long scale = bin_scale(pixels);
  OutputRange range_arg = range;
  DeviceTone tone_arg = tone;
  DeepExchange *exchange = scratch.d_exchange;
  std::uint16_t *lut = scratch.d_lut;
  unsigned *identity = scratch.d_identity;
  void *args[] = {&histogram, &pixels, &scale, &range_arg, &tone_arg, &exchange, &lut, &identity};
  const void *kernel = reinterpret_cast<const void *>(tone_deep<kBits, kClassic>);
  HISTEQ_CUDA_TRY(launch_dependent(kernel, dim3(Shape::kBlocks), dim3(kToneThreads), 0, stream,
                                   args, scratch.limits.starts_early, Shape::kBlocks > 1));
  return cudaSuccess;
}

template <int kBits>
cudaError_t launch_depth(const DevicePlane &plane, const DevicePlane &out, OutputRange range,
                         const DeviceTone &tone, const DeepScratch &scratch, int sm_count,
                         cudaStream_t stream) {
  using D = Depth<kBits>;
  if (D::kWide && !scratch.limits.wide_tone) return cudaErrorCooperativeLaunchTooLarge;
  const bool wide_shared = D::kWide && scratch.limits.wide_shared;
  const long long chunks = ((long long)plane.row_bytes() + kChunkBytes - 1) / kChunkBytes;
  const long long items = chunks * plane.height;
  const int blocks = int(std::clamp<long long>((items + kWalkThreads - 1) / kWalkThreads, 1,
                                               (long long)sm_count * kWalkBlocksPerSm));
  // One block per SM where each takes 128 KiB of shared memory or more.
  const int wide_blocks =
      int(std::clamp<long long>((items + kWalkThreads - 1) / kWalkThreads, 1, (long long)sm_count));
  unsigned *histogram = scratch.d_histogram;
  HISTEQ_CUDA_BEFORE_LAUNCH();
  if constexpr (D::kWide) {
    if (wide_shared) {
      // Bands of ceil(height / blocks) rows; with one block per SM each fits within
      // kWideBandPixels at 4K.
      const long long band_pixels =
          (long long)plane.width * ((plane.height + wide_blocks - 1) / wide_blocks);
      auto *count = band_pixels <= kWideBandPixels ? count_deep_wide<true> : count_deep_wide<false>;
      count<<<wide_blocks, kWideThreads, kWideBinBytes, stream>>>(plane, histogram);
    } else {
      count_deep_global<<<blocks, kWalkThreads, 0, stream>>>(plane, histogram);
    }
  } else {
    count_deep<kBits><<<blocks, kWalkThreads, 0, stream>>>(plane, histogram);
  }
  HISTEQ_CUDA_TRY_LAUNCH();
  // The classic LUT's own kernel only where its shape differs (12 and 16 bits).
  constexpr bool kClassicShape = ToneShape<kBits, true>::kItems != ToneShape<kBits, false>::kItems;
  if constexpr (kClassicShape) {
    if (tone.classic()) {
      HISTEQ_CUDA_TRY((launch_tone<kBits, true>(plane, range, tone, scratch, stream)));
    } else {
      HISTEQ_CUDA_TRY((launch_tone<kBits, false>(plane, range, tone, scratch, stream)));
    }
  } else {
    HISTEQ_CUDA_TRY((launch_tone<kBits, false>(plane, range, tone, scratch, stream)));
  }
  HISTEQ_CUDA_TRY_LAUNCH();
  // map_deep's parameters, each of its own type.
  DevicePlane map_plane = plane;
  DevicePlane map_out = out;
  const std::uint16_t *lut = scratch.d_lut;
  const unsigned *identity = scratch.d_identity;
  int staged = scratch.limits.wide_staged;
  void *map_args[] = {&map_plane, &map_out, &lut, &identity, &staged};
  if (wide_shared) {
    HISTEQ_CUDA_TRY(launch_dependent(reinterpret_cast<const void *>(map_deep<kBits, true>),
                                     dim3(wide_blocks), dim3(kWideThreads),
                                     kWideLutBytes + staged * kWideStageSlotBytes, stream, map_args,
                                     scratch.limits.starts_early));
  } else {
    HISTEQ_CUDA_TRY(launch_dependent(reinterpret_cast<const void *>(map_deep<kBits, false>),
                                     dim3(blocks), dim3(kWalkThreads), 0, stream, map_args,
                                     scratch.limits.starts_early));
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t deep_limits(DeepLimits *limits) {
  int device = 0, optin = 0, sm_count = 0, tone_per_sm = 0, classic_tone_per_sm = 0;
  HISTEQ_CUDA_TRY(cudaGetDevice(&device));
  HISTEQ_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  HISTEQ_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  HISTEQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tone_per_sm, tone_deep<16, false>,
                                                                kToneThreads, 0));
  HISTEQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &classic_tone_per_sm, tone_deep<16, true>, kToneThreads, 0));
  *limits = DeepLimits{};
  // Every deep kernel is compiled alike: one stands for all.
  HISTEQ_CUDA_TRY(
      may_start_early(reinterpret_cast<const void *>(map_deep<10, false>), &limits->starts_early));
  // The map's static table comes on top of its dynamic one.
  const int beside_lut = optin - kWideLutBytes - kWideStaticTableBytes;
  if (beside_lut >= 0 && optin >= kWideBinBytes) {
    HISTEQ_CUDA_TRY(cudaFuncSetAttribute(
        count_deep_wide<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, kWideBinBytes));
    HISTEQ_CUDA_TRY(cudaFuncSetAttribute(
        count_deep_wide<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, kWideBinBytes));
    limits->wide_staged = std::clamp(beside_lut / kWideStageSlotBytes, 0, kWalkUnroll);
    HISTEQ_CUDA_TRY(
        cudaFuncSetAttribute(map_deep<16, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             kWideLutBytes + limits->wide_staged * kWideStageSlotBytes));
    limits->wide_shared = true;
  }
  // Both 16-bit tone grids are cooperative: every block of each must be resident at once.
  limits->wide_tone = tone_per_sm * sm_count >= ToneShape<16, false>::kBlocks &&
                      classic_tone_per_sm * sm_count >= ToneShape<16, true>::kBlocks;
  return cudaSuccess;
}

DeepScratch deep_scratch_at(void *d_memory, DeepLimits limits) {
  DeepScratch scratch;
  scratch.d_histogram = static_cast<unsigned *>(d_memory);
  scratch.d_exchange = reinterpret_cast<DeepExchange *>(scratch.d_histogram + kMaxLevels);
  scratch.d_lut = reinterpret_cast<std::uint16_t *>(scratch.d_exchange + 1);
  scratch.d_identity = reinterpret_cast<unsigned *>(scratch.d_lut + kMaxLevels);
  scratch.limits = limits;
  return scratch;
}

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
