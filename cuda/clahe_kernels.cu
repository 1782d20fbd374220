// SPDX-License-Identifier: LGPL-2.1-or-later
#include "clahe_kernels.h"

#include <algorithm>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "clahe.h"
#include "cuda_check.h"
#include "rgb.h"
#include "tone_steps.h"

namespace histeq::cuda {

namespace {

constexpr int kThreads = 256;
// Blocks per SM the count and the map aim for, so that every SM has work at the tile and cell
// edges, where blocks hold fewer pixels.
constexpr int kBlocksPerSm = 4;
// Depths up to 12 bits count in shared bins and map from the cell's LUTs in shared memory
// (4096 levels: 32 KiB of bins with the frame's own, 32 KiB of cell LUTs).
constexpr int kMaxSharedLevels = 4096;

// How each layout keeps its luma: a pixel's level, and the pixel written to `out` with its luma
// mapped from `level` to `mapped` (its other bytes copied, so a frame equalized out of place
// keeps its chroma, alpha and padding; RGB by rgb.h's per-pixel rule).
struct ByteLuma {
  static constexpr bool kRgb = false;
  __device__ unsigned level(const std::uint8_t *pixel) const { return *pixel; }
  __device__ void write(const std::uint8_t *, std::uint8_t *out, unsigned, unsigned mapped,
                        const RgbGainTables &) const {
    *out = std::uint8_t(mapped);
  }
};

struct WordLuma {
  static constexpr bool kRgb = false;
  SampleLayout sample;
  __device__ unsigned level(const std::uint8_t *pixel) const {
    return sample.level_of(*reinterpret_cast<const std::uint16_t *>(pixel));
  }
  __device__ void write(const std::uint8_t *, std::uint8_t *out, unsigned, unsigned mapped,
                        const RgbGainTables &) const {
    *reinterpret_cast<std::uint16_t *>(out) = sample.word_of(mapped);
  }
};

struct PackedYuvLuma {
  static constexpr bool kRgb = false;
  int luma;
  __device__ unsigned level(const std::uint8_t *pixel) const { return pixel[luma]; }
  __device__ void write(const std::uint8_t *pixel, std::uint8_t *out, unsigned, unsigned mapped,
                        const RgbGainTables &) const {
    const std::uint8_t chroma = pixel[1 - luma];
    out[luma] = std::uint8_t(mapped);
    out[1 - luma] = chroma;
  }
};

struct RgbLuma {
  static constexpr bool kRgb = true;
  int pixel_bytes, red, green, blue;
  LumaMatrix matrix;
  __device__ unsigned level(const std::uint8_t *pixel) const {
    return rgb_luma(pixel[red], pixel[green], pixel[blue], matrix);
  }
  __device__ void write(const std::uint8_t *pixel, std::uint8_t *out, unsigned level,
                        unsigned mapped, const RgbGainTables &tables) const {
    std::uint8_t bytes[4];
    for (int i = 0; i < pixel_bytes; ++i) bytes[i] = pixel[i];
    rgb_rescale_pixel(bytes[red], bytes[green], bytes[blue], level, mapped, tables);
    for (int i = 0; i < pixel_bytes; ++i) out[i] = bytes[i];
  }
};

// The frame as the kernels walk it.
struct TileFrame {
  const std::uint8_t *data;
  std::size_t pitch;
  int width, height, pixel_bytes;
  ClaheGrid grid;
  int bins;

  __device__ const std::uint8_t *pixel(int x, int y) const {
    return data + std::size_t(y) * pitch + std::size_t(x) * std::size_t(pixel_bytes);
  }
};

// Visits the `rows` x `columns` pixels of a rectangle, a block's threads side by side along its
// rows, as visit(row, column); no division per pixel.
template <class Visit>
__device__ __forceinline__ void walk_rectangle(int rows, int columns, Visit visit) {
  if (columns <= 0) return;
  const int row_step = kThreads / columns, column_step = kThreads % columns;
  int row = int(threadIdx.x) / columns, column = int(threadIdx.x) % columns;
  while (row < rows) {
    visit(row, column);
    row += row_step;
    column += column_step;
    if (column >= columns) {
      column -= columns;
      ++row;
    }
  }
}

// One block per band of `band_rows` rows of a tile (`bands` per tile): the tile's padded pixels
// into its device bins and, when `frame_counts` is given, the frame's own (those inside it) into
// those. kShared: through shared bins, `bins` of each.
template <class Luma, bool kShared>
__global__ void __launch_bounds__(kThreads)
    count_tiles(TileFrame frame, Luma luma, unsigned *counts, unsigned long long *frame_counts,
                int bands, int band_rows) {
  extern __shared__ unsigned shared_bins[];
  const int tile = int(blockIdx.x) / bands, band = int(blockIdx.x) % bands;
  const ClaheGrid &grid = frame.grid;
  const int bins = frame.bins;
  const int x0 = (tile % grid.tiles_x) * grid.tile_width;
  const int y0 = (tile / grid.tiles_x) * grid.tile_height + band * band_rows;
  const int rows = min(band_rows, (tile / grid.tiles_x + 1) * grid.tile_height - y0);
  unsigned *tile_counts = counts + std::size_t(tile) * std::size_t(bins);
  unsigned *tile_bins = kShared ? shared_bins : tile_counts;
  unsigned *own_bins = shared_bins + bins;
  if constexpr (kShared) {
    const int shared = frame_counts ? 2 * bins : bins;
    for (int v = int(threadIdx.x); v < shared; v += kThreads) shared_bins[v] = 0;
    __syncthreads();
  }
  walk_rectangle(rows, grid.tile_width, [&](int row, int column) {
    const int py = y0 + row, px = x0 + column;
    const int y = py < frame.height ? py : reflect_101(py, frame.height);
    const int x = px < frame.width ? px : reflect_101(px, frame.width);
    const unsigned v = luma.level(frame.pixel(x, y));
    atomicAdd(&tile_bins[v], 1u);
    if (frame_counts && py < frame.height && px < frame.width) {
      if constexpr (kShared) {
        atomicAdd(&own_bins[v], 1u);
      } else {
        atomicAdd(&frame_counts[v], 1ull);
      }
    }
  });
  if constexpr (kShared) {
    __syncthreads();
    for (int v = int(threadIdx.x); v < bins; v += kThreads) {
      if (const unsigned count = tile_bins[v]) atomicAdd(&tile_counts[v], count);
      if (frame_counts) {
        if (const unsigned count = own_bins[v]) atomicAdd(&frame_counts[v], count);
      }
    }
  }
}

// What the tone kernel needs besides the bins.
struct TileTone {
  Params params;
  OutputRange range;
  int bins;
  std::uint64_t area;  // every tile's pixels, padding included: the sum of its counts
  const unsigned long long *history_in;
  unsigned long long *history_out;
  bool reset;
  unsigned long long *report;  // word 0: whether any tile's history restarted
};

// One block per tile, each thread over bins / kThreads consecutive levels (one scene band holds
// them all), as ToneMap::build: the same per-bin functions, the sums and the scan over the
// block. Leaves the tile's bins zero.
__global__ void __launch_bounds__(kThreads)
    tone_tiles(unsigned *counts, std::uint16_t *luts, TileTone t) {
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  using Scan = cub::BlockScan<unsigned long long, kThreads>;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ unsigned long long band_sums[kSceneBands];
  __shared__ unsigned long long excess_sum;

  const Params &params = t.params;
  const int bins = t.bins;
  const std::size_t base = std::size_t(blockIdx.x) * std::size_t(bins);
  const int per_thread = bins / kThreads;
  const int first = int(threadIdx.x) * per_thread, end = first + per_thread;
  unsigned *tile_counts = counts + base;

  // Steps 1 and 2: the tile's history, and the histogram its LUT is built from.
  const unsigned long long *smoothed = nullptr;
  std::uint64_t total = t.area;
  if (params.keep_history) {
    const std::uint64_t scale = bin_scale(t.area);
    const unsigned long long *history_in = t.history_in ? t.history_in + base : nullptr;
    unsigned long long *history_out = t.history_out + base;
    if (threadIdx.x < kSceneBands) band_sums[threadIdx.x] = 0;
    __syncthreads();
    if (history_in) {
      std::int64_t difference = 0;
      for (int v = first; v < end; ++v)
        difference += bin_difference(normalized_bin(tile_counts[v], scale), history_in[v]);
      atomicAdd(&band_sums[scene_band(first, bins)], static_cast<unsigned long long>(difference));
    }
    __syncthreads();
    std::uint64_t distance = 0;
    for (int b = 0; b < kSceneBands; ++b)
      distance += band_distance(static_cast<std::int64_t>(band_sums[b]));
    const bool restarted = t.reset || !history_in || is_scene_cut(distance, params.scene_threshold);
    for (int v = first; v < end; ++v) {
      const std::uint64_t now = normalized_bin(tile_counts[v], scale);
      history_out[v] = restarted ? now : smoothed_bin(history_in[v], now, params.history_weight);
    }
    if (restarted && t.report && threadIdx.x == 0) atomicOr(t.report, 1ull);
    if (!restarted && params.history_weight != 0) {
      smoothed = history_out;
      total = kUnitQ30;
    }
  }
  const auto source = [&](int v) -> std::uint64_t {
    return smoothed ? smoothed[v] : tile_counts[v];
  };

  // Step 3: the clip limit.
  ClipSpread spread;
  const bool clip = params.clip_limit != 0;
  if (clip) {
    const std::uint64_t ceiling = clip_ceiling(total, params.clip_limit, bins);
    unsigned long long excess = 0;
    for (int v = first; v < end; ++v) excess += clip_excess(source(v), ceiling);
    excess = Reduce(temp.reduce).Sum(excess);
    if (threadIdx.x == 0) excess_sum = excess;
    __syncthreads();
    spread = clip_spread(ceiling, excess_sum, bins);
  }
  const auto value = [&](int v) -> std::uint64_t {
    return clip ? clipped_bin(source(v), v, spread) : source(v);
  };

  // Steps 4 and 5: the tile's cdf, its levels and the strength blend.
  unsigned long long own = 0;
  for (int v = first; v < end; ++v) own += value(v);
  unsigned long long cdf = 0;
  Scan(temp.scan).ExclusiveSum(own, cdf);
  std::uint16_t *lut = luts + base;
  for (int v = first; v < end; ++v) {
    cdf += value(v);
    lut[v] = std::uint16_t(
        blended_level(std::uint32_t(v), tile_level(cdf, total, t.range), params.strength));
  }
  for (int v = first; v < end; ++v) tile_counts[v] = 0;
}

// The first index i of [0, size) whose tile_blend has its unclamped first tile at k or later
// (size if none): tile_blend's first tile only grows with i, since every step of it rounds
// monotonically.
__device__ int first_at_or_after(int k, float inverse_tile, int size) {
  int low = 0, high = size;
  while (low < high) {
    const int middle = low + (high - low) / 2;
    const float position = sub_rn(mul_rn(float(middle), inverse_tile), 0.5f);
    const int first = position < 0.0f ? -1 : int(position);
    if (first >= k) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  return low;
}

// What the map needs besides the pixels.
struct TileBlendArgs {
  float inverse_width, inverse_height;
  std::uint32_t top;
  int strips, strip_rows;
};

// One block per strip of `strip_rows` rows of a cell: the pixels whose four nearest tile
// centres are those of cell (blockIdx.x, blockIdx.y / strips), that is whose unclamped first
// tile is one less than the cell along each side. kShared: the cell's four LUTs interleaved in
// shared memory, one 8-byte load per pixel.
template <class Luma, bool kShared>
__global__ void __launch_bounds__(kThreads)
    map_tiles(TileFrame frame, std::uint8_t *out, std::size_t out_pitch, Luma luma,
              const std::uint16_t *luts, TileBlendArgs args) {
  extern __shared__ uint2 cell_luts[];
  __shared__ RgbGainTables tables;
  const ClaheGrid &grid = frame.grid;
  const int cell_x = int(blockIdx.x), cell_y = int(blockIdx.y) / args.strips;
  const int strip = int(blockIdx.y) % args.strips;
  const int x_begin = first_at_or_after(cell_x - 1, args.inverse_width, frame.width);
  const int x_end = first_at_or_after(cell_x, args.inverse_width, frame.width);
  const int cell_top = first_at_or_after(cell_y - 1, args.inverse_height, frame.height);
  const int y_begin = cell_top + strip * args.strip_rows;
  const int y_end =
      min(first_at_or_after(cell_y, args.inverse_height, frame.height), y_begin + args.strip_rows);
  if (x_begin >= x_end || y_begin >= y_end) return;

  const int bins = frame.bins;
  const int left = max(cell_x - 1, 0), right = min(cell_x, grid.tiles_x - 1);
  const int upper = max(cell_y - 1, 0), lower = min(cell_y, grid.tiles_y - 1);
  const std::uint16_t *l11 = luts + std::size_t(upper * grid.tiles_x + left) * bins;
  const std::uint16_t *l12 = luts + std::size_t(upper * grid.tiles_x + right) * bins;
  const std::uint16_t *l21 = luts + std::size_t(lower * grid.tiles_x + left) * bins;
  const std::uint16_t *l22 = luts + std::size_t(lower * grid.tiles_x + right) * bins;
  if constexpr (kShared) {
    for (int v = int(threadIdx.x); v < bins; v += kThreads)
      cell_luts[v] = make_uint2(unsigned(l11[v]) | unsigned(l12[v]) << 16,
                                unsigned(l21[v]) | unsigned(l22[v]) << 16);
  }
  if constexpr (Luma::kRgb) {
    for (int v = int(threadIdx.x); v < 256; v += kThreads) fill_rgb_headroom(v, tables);
  }
  if constexpr (kShared || Luma::kRgb) __syncthreads();

  const float column_first = float(cell_x - 1), row_first = float(cell_y - 1);
  walk_rectangle(y_end - y_begin, x_end - x_begin, [&](int row, int column) {
    const int x = x_begin + column, y = y_begin + row;
    const float x_weight = sub_rn(sub_rn(mul_rn(float(x), args.inverse_width), 0.5f), column_first);
    const float y_weight = sub_rn(sub_rn(mul_rn(float(y), args.inverse_height), 0.5f), row_first);
    const std::uint8_t *pixel = frame.pixel(x, y);
    const unsigned v = luma.level(pixel);
    unsigned mapped;
    if constexpr (kShared) {
      const uint2 four = cell_luts[v];
      mapped = blend_levels(four.x & 0xffffu, four.x >> 16, four.y & 0xffffu, four.y >> 16,
                            x_weight, y_weight, args.top);
    } else {
      mapped = blend_levels(__ldg(&l11[v]), __ldg(&l12[v]), __ldg(&l21[v]), __ldg(&l22[v]),
                            x_weight, y_weight, args.top);
    }
    luma.write(pixel, out + std::size_t(y) * out_pitch + std::size_t(x) * frame.pixel_bytes, v,
               mapped, tables);
  });
}

int ceil_div(long long a, long long b) {
  return int((a + b - 1) / b);
}

template <class Luma>
cudaError_t launch_with(const TileFrame &frame, const DevicePlane &out, Luma luma,
                        OutputRange range, const DeviceTone &tone, const ClaheScratch &scratch,
                        int sm_count, cudaStream_t stream) {
  const ClaheGrid &grid = frame.grid;
  const bool shared = frame.bins <= kMaxSharedLevels;
  unsigned long long *report = tone.params.keep_history ? tone.d_report : nullptr;
  if (report)
    HISTEQ_CUDA_TRY(cudaMemsetAsync(report, 0, report_words(frame.bins) * sizeof(*report), stream));

  const int target_blocks = kBlocksPerSm * sm_count;
  const int bands_wanted = std::max(1, ceil_div(target_blocks, grid.tiles()));
  const int band_rows = ceil_div(grid.tile_height, std::min(bands_wanted, grid.tile_height));
  const int bands = ceil_div(grid.tile_height, band_rows);
  const std::size_t count_shared =
      shared ? std::size_t(report ? 2 : 1) * std::size_t(frame.bins) * sizeof(unsigned) : 0;
  HISTEQ_CUDA_BEFORE_LAUNCH();
  if (shared) {
    count_tiles<Luma, true><<<grid.tiles() * bands, kThreads, count_shared, stream>>>(
        frame, luma, scratch.d_counts, report ? report + 1 : nullptr, bands, band_rows);
  } else {
    count_tiles<Luma, false><<<grid.tiles() * bands, kThreads, 0, stream>>>(
        frame, luma, scratch.d_counts, report ? report + 1 : nullptr, bands, band_rows);
  }
  HISTEQ_CUDA_TRY_LAUNCH();

  TileTone tile_tone{
      tone.params,        range,      frame.bins, grid.tile_area(), tone.d_history_in,
      tone.d_history_out, tone.reset, report};
  tone_tiles<<<grid.tiles(), kThreads, 0, stream>>>(scratch.d_counts, scratch.d_luts, tile_tone);
  HISTEQ_CUDA_TRY_LAUNCH();

  const int cells = (grid.tiles_x + 1) * (grid.tiles_y + 1);
  const int strips_wanted = std::clamp(ceil_div(target_blocks, cells), 1, 512);
  TileBlendArgs args;
  args.inverse_width = 1.0f / float(grid.tile_width);
  args.inverse_height = 1.0f / float(grid.tile_height);
  args.top = std::uint32_t(frame.bins - 1);
  args.strip_rows = ceil_div(grid.tile_height, std::min(strips_wanted, grid.tile_height));
  args.strips = ceil_div(grid.tile_height, args.strip_rows);
  const dim3 map_grid(unsigned(grid.tiles_x + 1), unsigned((grid.tiles_y + 1) * args.strips));
  if (shared) {
    map_tiles<Luma, true><<<map_grid, kThreads, std::size_t(frame.bins) * sizeof(uint2), stream>>>(
        frame, out.data, out.pitch, luma, scratch.d_luts, args);
  } else {
    map_tiles<Luma, false>
        <<<map_grid, kThreads, 0, stream>>>(frame, out.data, out.pitch, luma, scratch.d_luts, args);
  }
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace

ClaheScratch clahe_scratch_at(void *d_memory, std::size_t tile_bins) {
  ClaheScratch scratch;
  scratch.d_counts = static_cast<unsigned *>(d_memory);
  scratch.d_luts = reinterpret_cast<std::uint16_t *>(scratch.d_counts + tile_bins);
  scratch.tile_bins = tile_bins;
  return scratch;
}

std::size_t clahe_tile_bins(const DevicePlane &plane, const Params &params) {
  return std::size_t(params.tiles_x) * std::size_t(params.tiles_y) *
         std::size_t(plane.layout.levels());
}

cudaError_t launch_clahe(const DevicePlane &plane, const DevicePlane &out, OutputRange range,
                         const DeviceTone &tone, const ClaheScratch &scratch, int sm_count,
                         cudaStream_t stream) {
  const Params &params = tone.params;
  if (params.tiles_x < 1 || params.tiles_y < 1 || params.tiles_x > kMaxTiles ||
      params.tiles_y > kMaxTiles || clahe_tile_bins(plane, params) > scratch.tile_bins)
    return cudaErrorInvalidValue;
  const PixelLayout &layout = plane.layout;
  TileFrame frame{
      plane.data,         plane.pitch,
      plane.width,        plane.height,
      layout.pixel_bytes, clahe_grid(plane.width, plane.height, params.tiles_x, params.tiles_y),
      layout.levels()};
  if (plane.width == 0 || plane.height == 0) {
    if (params.keep_history && tone.d_report)
      return cudaMemsetAsync(tone.d_report, 0, report_words(frame.bins) * sizeof(*tone.d_report),
                             stream);
    return cudaSuccess;
  }
  switch (layout.packing) {
    case Packing::kLuma:
      if (layout.deep())
        return launch_with(frame, out, WordLuma{layout.sample}, range, tone, scratch, sm_count,
                           stream);
      return launch_with(frame, out, ByteLuma{}, range, tone, scratch, sm_count, stream);
    case Packing::kPackedYuv:
      return launch_with(frame, out, PackedYuvLuma{layout.luma}, range, tone, scratch, sm_count,
                         stream);
    case Packing::kRgb:
      return launch_with(
          frame, out,
          RgbLuma{layout.pixel_bytes, layout.red, layout.green, layout.blue, layout.matrix}, range,
          tone, scratch, sm_count, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace histeq::cuda
