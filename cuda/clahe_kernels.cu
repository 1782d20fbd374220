// SPDX-License-Identifier: LGPL-2.1-or-later
#include "clahe_kernels.h"

#include <algorithm>
#include <type_traits>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "clahe.h"
#include "cuda_check.h"
#include "luma_words.cuh"
#include "rgb.h"
#include "tone_steps.h"

namespace histeq::cuda {

namespace {

constexpr int kThreads = 256;
// Blocks per SM the count and the map aim for, so that every SM has work at the tile and cell
// edges, where blocks hold fewer pixels.
constexpr int kBlocksPerSm = 4;
constexpr int kChunkBytes = 16;
// Depths up to 12 bits count in shared bins (4096 levels: 16 KiB); 16-bit samples in the
// device bins.
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

DevicePlane plane_of(const TileFrame &frame) {
  DevicePlane plane;
  plane.data = const_cast<std::uint8_t *>(frame.data);
  plane.pitch = frame.pitch;
  return plane;
}

// Visits the `rows` x `columns` items of a rectangle, a block's threads side by side along its
// rows, as visit(row, column); no division per item.
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

// Columns [begin, end) of a row as a head of single pixels, 16-byte chunks of byte pixels
// (where rows start on 16-byte boundaries, within the frame's own columns below `inside_end`)
// and a tail of single pixels (the frame's reflected padding columns among them).
struct ColumnSplit {
  int begin, chunk_begin, chunk_end, end;

  __device__ ColumnSplit(int first, int last, int inside_end, bool chunked)
      : begin(first), chunk_begin(first), chunk_end(first), end(last) {
    const int from = (first + kChunkBytes - 1) / kChunkBytes * kChunkBytes;
    const int to = min(last, inside_end) / kChunkBytes * kChunkBytes;
    if (chunked && to > from) {
      chunk_begin = from;
      chunk_end = to;
    }
  }
  __device__ int chunks() const { return (chunk_end - chunk_begin) / kChunkBytes; }
  __device__ int singles() const { return (chunk_begin - begin) + (end - chunk_end); }
  __device__ int single_x(int i) const {
    const int head = chunk_begin - begin;
    return i < head ? begin + i : chunk_end + (i - head);
  }
};

// What the tone step needs besides the bins.
struct TileTone {
  Params params;
  OutputRange range;
  int bins;
  std::uint64_t area;  // every tile's pixels, padding included: the sum of its counts
  const unsigned long long *history_in;
  unsigned long long *history_out;
  bool reset;
  // Word 0: whether any tile's history restarted; then the frame's own histogram, which the
  // tiles add their counts to and the padding pixels are taken from.
  unsigned long long *report;
};

// A tile's LUT from its bins, by the block, each thread over bins / kThreads consecutive levels
// (one scene band holds them all), as ToneMap::build: the same per-bin functions, the sums and
// the scan over the block. The bins are read from L2 (other blocks counted them), held in
// registers where a thread has kItems of them (else read again at each step), and left zero.
template <int kItems>
__device__ void tone_tile(int tile, unsigned *counts, std::uint16_t *luts, const TileTone &t) {
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
  const std::size_t base = std::size_t(tile) * std::size_t(bins);
  const int per_thread = bins / kThreads;
  const int first = int(threadIdx.x) * per_thread;
  unsigned *tile_counts = counts + base;
  // Visits this thread's levels as each(v, i), i its place among them.
  const auto for_each_level = [&](auto each) {
    if constexpr (kItems > 0) {
#pragma unroll
      for (int i = 0; i < kItems; ++i) each(first + i, i);
    } else {
      for (int i = 0; i < per_thread; ++i) each(first + i, i);
    }
  };
  unsigned held[kItems > 0 ? kItems : 1];
  if constexpr (kItems > 0)
    for_each_level([&](int v, int i) { held[i] = __ldcg(&tile_counts[v]); });
  const auto count = [&](int v, int i) -> unsigned {
    if constexpr (kItems > 0) {
      return held[i];
    } else {
      return __ldcg(&tile_counts[v]);
    }
  };
  if (t.report) {
    for_each_level([&](int v, int i) {
      if (const unsigned c = count(v, i)) atomicAdd(&t.report[1 + v], (unsigned long long)c);
    });
  }

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
      for_each_level([&](int v, int i) {
        difference += bin_difference(normalized_bin(count(v, i), scale), history_in[v]);
      });
      atomicAdd(&band_sums[scene_band(first, bins)], static_cast<unsigned long long>(difference));
    }
    __syncthreads();
    std::uint64_t distance = 0;
    for (int b = 0; b < kSceneBands; ++b)
      distance += band_distance(static_cast<std::int64_t>(band_sums[b]));
    const bool restarted = t.reset || !history_in || is_scene_cut(distance, params.scene_threshold);
    for_each_level([&](int v, int i) {
      const std::uint64_t now = normalized_bin(count(v, i), scale);
      history_out[v] = restarted ? now : smoothed_bin(history_in[v], now, params.history_weight);
    });
    if (restarted && t.report && threadIdx.x == 0) atomicOr(t.report, 1ull);
    if (!restarted && params.history_weight != 0) {
      smoothed = history_out;
      total = kUnitQ30;
    }
  }
  const auto source = [&](int v, int i) -> std::uint64_t {
    return smoothed ? smoothed[v] : count(v, i);
  };

  // Step 3: the clip limit.
  ClipSpread spread;
  const bool clip = params.clip_limit != 0;
  if (clip) {
    const std::uint64_t ceiling = clip_ceiling(total, params.clip_limit, bins);
    unsigned long long excess = 0;
    for_each_level([&](int v, int i) { excess += clip_excess(source(v, i), ceiling); });
    excess = Reduce(temp.reduce).Sum(excess);
    if (threadIdx.x == 0) excess_sum = excess;
    __syncthreads();
    spread = clip_spread(ceiling, excess_sum, bins);
  }
  const auto value = [&](int v, int i) -> std::uint64_t {
    return clip ? clipped_bin(source(v, i), v, spread) : source(v, i);
  };

  // Steps 4 and 5: the tile's cdf, its levels and the strength blend.
  unsigned long long own = 0;
  for_each_level([&](int v, int i) { own += value(v, i); });
  unsigned long long cdf = 0;
  Scan(temp.scan).ExclusiveSum(own, cdf);
  std::uint16_t *lut = luts + base;
  for_each_level([&](int v, int i) {
    cdf += value(v, i);
    lut[v] = std::uint16_t(
        blended_level(std::uint32_t(v), tile_level(cdf, total, t.range), params.strength));
  });
  for_each_level([&](int v, int) { tile_counts[v] = 0; });
}

// Shared bin copies per block for `bins` levels: a warp counts into copy warp % copies, so fewer
// lanes queue on one address (8 copies of 256 bins, 2 of 1024, one of 4096).
__host__ __device__ constexpr int bin_copies(int bins) {
  return bins <= 256 ? 8 : bins <= 1024 ? 2 : 1;
}

// One block per band of `band_rows` rows of a tile (`bands` per tile): the tile's padded pixels
// into its device bins (kShared: through shared bins, bin_copies(bins) of them) and, when the
// frame reports, each padding pixel taken from the report's histogram. The last block of a tile
// to finish builds the tile's LUT (tone_tile) and hands the tile's ticket back for the next
// frame. Byte pixels go 16 at a time where `chunked`.
template <class Luma, bool kShared>
__global__ void __launch_bounds__(kThreads)
    count_tiles(TileFrame frame, Luma luma, ClaheScratch scratch, int bands, int band_rows,
                bool chunked, TileTone tone) {
  extern __shared__ unsigned shared_bins[];
  __shared__ bool last_of_tile;
  constexpr bool kChunks = std::is_same_v<Luma, ByteLuma>;
  const int tile = int(blockIdx.x) / bands, band = int(blockIdx.x) % bands;
  const ClaheGrid &grid = frame.grid;
  const int bins = frame.bins;
  const int x0 = (tile % grid.tiles_x) * grid.tile_width;
  const int y0 = (tile / grid.tiles_x) * grid.tile_height + band * band_rows;
  const int rows = min(band_rows, (tile / grid.tiles_x + 1) * grid.tile_height - y0);
  unsigned *tile_counts = scratch.d_counts + std::size_t(tile) * std::size_t(bins);
  const int copies = bin_copies(bins);
  unsigned *bins_here =
      kShared ? shared_bins + std::size_t(int(threadIdx.x) / 32 % copies) * bins : tile_counts;
  if constexpr (kShared) {
    for (int v = int(threadIdx.x); v < copies * bins; v += kThreads) shared_bins[v] = 0;
    __syncthreads();
  }
  unsigned long long *padding = tone.report ? tone.report + 1 : nullptr;
  const auto row_of = [&](int py) {
    return py < frame.height ? py : reflect_101(py, frame.height);
  };
  const ColumnSplit columns(x0, x0 + grid.tile_width, frame.width, kChunks && chunked);
  if constexpr (kChunks) {
    walk_rectangle(rows, columns.chunks(), [&](int row, int c) {
      const int py = y0 + row;
      const uint4 chunk = *reinterpret_cast<const uint4 *>(
          frame.pixel(columns.chunk_begin + c * kChunkBytes, row_of(py)));
      count_chunk_voted(bins_here, chunk);
      if (padding && py >= frame.height) {
        for (const unsigned word : {chunk.x, chunk.y, chunk.z, chunk.w})
          for (int k = 0; k < 4; ++k) atomicAdd(&padding[(word >> (8 * k)) & 0xffu], ~0ull);
      }
    });
  }
  walk_rectangle(rows, columns.singles(), [&](int row, int i) {
    const int py = y0 + row, px = columns.single_x(i);
    const int x = px < frame.width ? px : reflect_101(px, frame.width);
    const unsigned v = luma.level(frame.pixel(x, row_of(py)));
    atomicAdd(&bins_here[v], 1u);
    if (padding && (py >= frame.height || px >= frame.width)) atomicAdd(&padding[v], ~0ull);
  });
  if constexpr (kShared) {
    __syncthreads();
    for (int v = int(threadIdx.x); v < bins; v += kThreads) {
      unsigned count = 0;
      for (int k = 0; k < copies; ++k) count += shared_bins[k * bins + v];
      if (count) atomicAdd(&tile_counts[v], count);
    }
  }
  // The tile's other blocks made their counts visible before taking their tickets.
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last_of_tile = atomicAdd(&scratch.d_tickets[tile], 1u) == unsigned(bands - 1);
  }
  __syncthreads();
  if (!last_of_tile) return;
  __threadfence();
  switch (bins) {
    case 256:
      tone_tile<1>(tile, scratch.d_counts, scratch.d_luts, tone);
      break;
    case 1024:
      tone_tile<4>(tile, scratch.d_counts, scratch.d_luts, tone);
      break;
    default:
      tone_tile<0>(tile, scratch.d_counts, scratch.d_luts, tone);
      break;
  }
  if (threadIdx.x == 0) scratch.d_tickets[tile] = 0;
}

// How the map reads a cell's four LUTs: as floats side by side in shared memory (one 16-byte
// load a pixel, no conversion; up to 1024 levels), as 16-bit levels side by side in shared
// memory (one 8-byte load; 4096 levels), or from device memory (65536 levels).
enum class CellLuts { kFloats, kWords, kDevice };

__host__ __device__ constexpr CellLuts cell_luts_for(int bins) {
  return bins <= 1024 ? CellLuts::kFloats : bins <= 4096 ? CellLuts::kWords : CellLuts::kDevice;
}

// What the map needs besides the pixels: the blend's factors, and where each cell starts along
// each side (first_blended_from of the cell's first tile, computed once on the host; cell k
// spans [x[k], x[k + 1]) and [y[k], y[k + 1])).
struct TileBlendArgs {
  float inverse_width, inverse_height;
  std::uint32_t top;
  int strips, strip_rows;
  int x[kMaxTiles + 2];
  int y[kMaxTiles + 2];
};

// One block per strip of `strip_rows` rows of a cell: the pixels whose four nearest tile
// centres are those of cell (blockIdx.x, blockIdx.y / strips), that is whose unclamped first
// tile is one less than the cell along each side. Byte pixels go 16 at a time where `chunked`.
template <class Luma, CellLuts kCell>
__global__ void __launch_bounds__(kThreads)
    map_tiles(TileFrame frame, std::uint8_t *out, std::size_t out_pitch, Luma luma,
              const std::uint16_t *luts, TileBlendArgs args, bool chunked) {
  extern __shared__ uint4 cell_luts[];
  __shared__ RgbGainTables tables;
  constexpr bool kChunks = std::is_same_v<Luma, ByteLuma>;
  const ClaheGrid &grid = frame.grid;
  const int cell_x = int(blockIdx.x), cell_y = int(blockIdx.y) / args.strips;
  const int strip = int(blockIdx.y) % args.strips;
  const int x_begin = args.x[cell_x], x_end = args.x[cell_x + 1];
  const int y_begin = args.y[cell_y] + strip * args.strip_rows;
  const int y_end = min(args.y[cell_y + 1], y_begin + args.strip_rows);
  if (x_begin >= x_end || y_begin >= y_end) return;

  const int bins = frame.bins;
  const int left = max(cell_x - 1, 0), right = min(cell_x, grid.tiles_x - 1);
  const int upper = max(cell_y - 1, 0), lower = min(cell_y, grid.tiles_y - 1);
  const std::uint16_t *l11 = luts + std::size_t(upper * grid.tiles_x + left) * bins;
  const std::uint16_t *l12 = luts + std::size_t(upper * grid.tiles_x + right) * bins;
  const std::uint16_t *l21 = luts + std::size_t(lower * grid.tiles_x + left) * bins;
  const std::uint16_t *l22 = luts + std::size_t(lower * grid.tiles_x + right) * bins;
  float4 *float_luts = reinterpret_cast<float4 *>(cell_luts);
  uint2 *word_luts = reinterpret_cast<uint2 *>(cell_luts);
  for (int v = int(threadIdx.x); kCell != CellLuts::kDevice && v < bins; v += kThreads) {
    if constexpr (kCell == CellLuts::kFloats) {
      float_luts[v] = make_float4(float(l11[v]), float(l12[v]), float(l21[v]), float(l22[v]));
    } else {
      word_luts[v] = make_uint2(unsigned(l11[v]) | unsigned(l12[v]) << 16,
                                unsigned(l21[v]) | unsigned(l22[v]) << 16);
    }
  }
  if constexpr (Luma::kRgb) {
    for (int v = int(threadIdx.x); v < 256; v += kThreads) fill_rgb_headroom(v, tables);
  }
  if constexpr (kCell != CellLuts::kDevice || Luma::kRgb) __syncthreads();

  const float column_first = float(cell_x - 1), row_first = float(cell_y - 1);
  // tile_blend's weight of pixel `i` (given as a float, exactly) in a cell that starts at tile
  // `first` + 1.
  const auto weight = [](float i, float inverse, float first) {
    return sub_rn(sub_rn(mul_rn(i, inverse), 0.5f), first);
  };
  const auto mapped = [&](unsigned v, float x_weight, float y_weight) -> unsigned {
    if constexpr (kCell == CellLuts::kFloats) {
      const float4 four = float_luts[v];
      return blend_level_values(four.x, four.y, four.z, four.w, x_weight, y_weight, args.top);
    } else if constexpr (kCell == CellLuts::kWords) {
      const uint2 four = word_luts[v];
      return blend_levels(four.x & 0xffffu, four.x >> 16, four.y & 0xffffu, four.y >> 16, x_weight,
                          y_weight, args.top);
    } else {
      return blend_levels(__ldg(&l11[v]), __ldg(&l12[v]), __ldg(&l21[v]), __ldg(&l22[v]), x_weight,
                          y_weight, args.top);
    }
  };
  const ColumnSplit columns(x_begin, x_end, x_end, kChunks && chunked);
  if constexpr (kChunks) {
    walk_rectangle(y_end - y_begin, columns.chunks(), [&](int row, int c) {
      const int x = columns.chunk_begin + c * kChunkBytes, y = y_begin + row;
      const float y_weight = weight(float(y), args.inverse_height, row_first);
      // Pixels of a row lie below 2^24: their positions as floats are exact, one addition apart.
      const float fx = float(x);
      uint4 chunk = *reinterpret_cast<const uint4 *>(frame.pixel(x, y));
      unsigned words[] = {chunk.x, chunk.y, chunk.z, chunk.w};
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        unsigned word = 0;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const unsigned v = (words[w] >> (8 * k)) & 0xffu;
          const float x_weight =
              weight(add_rn(fx, float(4 * w + k)), args.inverse_width, column_first);
          word |= mapped(v, x_weight, y_weight) << (8 * k);
        }
        words[w] = word;
      }
      chunk = make_uint4(words[0], words[1], words[2], words[3]);
      *reinterpret_cast<uint4 *>(out + std::size_t(y) * out_pitch + std::size_t(x)) = chunk;
    });
  }
  walk_rectangle(y_end - y_begin, columns.singles(), [&](int row, int i) {
    const int x = columns.single_x(i), y = y_begin + row;
    const std::uint8_t *pixel = frame.pixel(x, y);
    const unsigned v = luma.level(pixel);
    luma.write(pixel, out + std::size_t(y) * out_pitch + std::size_t(x) * frame.pixel_bytes, v,
               mapped(v, weight(float(x), args.inverse_width, column_first),
                      weight(float(y), args.inverse_height, row_first)),
               tables);
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
  const TileTone tile_tone{
      tone.params,        range,      frame.bins, grid.tile_area(), tone.d_history_in,
      tone.d_history_out, tone.reset, report};
  const bool chunked = rows_in_chunks(plane_of(frame));
  HISTEQ_CUDA_BEFORE_LAUNCH();
  if (shared) {
    const std::size_t bytes = std::size_t(bin_copies(frame.bins)) * frame.bins * sizeof(unsigned);
    count_tiles<Luma, true><<<grid.tiles() * bands, kThreads, bytes, stream>>>(
        frame, luma, scratch, bands, band_rows, chunked, tile_tone);
  } else {
    count_tiles<Luma, false><<<grid.tiles() * bands, kThreads, 0, stream>>>(
        frame, luma, scratch, bands, band_rows, chunked, tile_tone);
  }
  HISTEQ_CUDA_TRY_LAUNCH();

  const int cells = (grid.tiles_x + 1) * (grid.tiles_y + 1);
  const int strips_wanted = std::clamp(ceil_div(target_blocks, cells), 1, 512);
  TileBlendArgs args;
  args.inverse_width = 1.0f / float(grid.tile_width);
  args.inverse_height = 1.0f / float(grid.tile_height);
  args.top = std::uint32_t(frame.bins - 1);
  args.strip_rows = ceil_div(grid.tile_height, std::min(strips_wanted, grid.tile_height));
  args.strips = ceil_div(grid.tile_height, args.strip_rows);
  for (int k = 0; k <= grid.tiles_x + 1; ++k)
    args.x[k] = first_blended_from(k - 1, args.inverse_width, frame.width);
  for (int k = 0; k <= grid.tiles_y + 1; ++k)
    args.y[k] = first_blended_from(k - 1, args.inverse_height, frame.height);
  const dim3 map_grid(unsigned(grid.tiles_x + 1), unsigned((grid.tiles_y + 1) * args.strips));
  const bool map_chunked = chunked && rows_in_chunks(out);
  switch (cell_luts_for(frame.bins)) {
    case CellLuts::kFloats:
      map_tiles<Luma, CellLuts::kFloats>
          <<<map_grid, kThreads, std::size_t(frame.bins) * sizeof(float4), stream>>>(
              frame, out.data, out.pitch, luma, scratch.d_luts, args, map_chunked);
      break;
    case CellLuts::kWords:
      map_tiles<Luma, CellLuts::kWords>
          <<<map_grid, kThreads, std::size_t(frame.bins) * sizeof(uint2), stream>>>(
              frame, out.data, out.pitch, luma, scratch.d_luts, args, map_chunked);
      break;
    case CellLuts::kDevice:
      map_tiles<Luma, CellLuts::kDevice><<<map_grid, kThreads, 0, stream>>>(
          frame, out.data, out.pitch, luma, scratch.d_luts, args, map_chunked);
      break;
  }
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace

ClaheScratch clahe_scratch_at(void *d_memory, std::size_t tile_bins) {
  ClaheScratch scratch;
  scratch.d_tickets = static_cast<unsigned *>(d_memory);
  scratch.d_counts = scratch.d_tickets + ClaheScratch::kTickets;
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
