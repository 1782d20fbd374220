// SPDX-License-Identifier: LGPL-2.1-or-later
#include "clahe_kernels.h"

#include <algorithm>
#include <type_traits>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "clahe.h"
#include "cuda_check.h"
#include "dependent_launch.cuh"
#include "luma_words.cuh"
#include "rgb.h"
#include "tone_steps.h"

namespace histeq::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kChunkBytes = 16;
// 16-byte chunks a thread loads before it counts or maps any.
constexpr int kLoadBatch = 4;
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

// A thread's place in a rectangle of `rows` x `columns` items that a block's threads walk side
// by side along its rows: item threadIdx.x first, then every kThreads-th, with no division per
// item. A rectangle with no columns has no items.
struct RectangleCursor {
  int rows, columns, row_step = 0, column_step = 0, row, column = 0;

  __device__ RectangleCursor(int rows_, int columns_) : rows(rows_), columns(columns_), row(rows_) {
    if (columns <= 0) return;
    row_step = kThreads / columns;
    column_step = kThreads % columns;
    row = int(threadIdx.x) / columns;
    column = int(threadIdx.x) % columns;
  }
  __device__ bool inside() const { return row < rows; }
  __device__ void advance() {
    row += row_step;
    column += column_step;
    if (column >= columns) {
      column -= columns;
      ++row;
    }
  }
};

// Visits the thread's items of a rectangle as visit(row, column).
template <class Visit>
__device__ __forceinline__ void walk_rectangle(int rows, int columns, Visit visit) {
  for (RectangleCursor at(rows, columns); at.inside(); at.advance()) visit(at.row, at.column);
}

// walk_rectangle for 16-byte chunks that are loaded first: kLoadBatch chunks' loads are issued
// before any is used, so that as many reads are in flight per thread. The first batch may be
// loaded ahead (load_batch), before the thread waits for what using them needs.
class ChunkWalk {
 public:
  __device__ ChunkWalk(int rows, int columns) : at_(rows, columns) {}

  // Loads the next batch, load(row, column) for each of its chunks.
  template <class Load>
  __device__ void load_batch(Load load) {
#pragma unroll
    for (int k = 0; k < kLoadBatch; ++k) {
      rows_of_[k] = at_.row;
      columns_of_[k] = at_.column;
      if (at_.inside()) chunks_[k] = load(at_.row, at_.column);
      at_.advance();
    }
    loaded_ = true;
  }

  // Visits every chunk as use(row, column, chunk), loading them batch by batch.
  template <class Load, class Use>
  __device__ void run(Load load, Use use) {
    if (!loaded_) load_batch(load);
    while (true) {
#pragma unroll
      for (int k = 0; k < kLoadBatch; ++k)
        if (rows_of_[k] < at_.rows) use(rows_of_[k], columns_of_[k], chunks_[k]);
      if (!at_.inside()) return;
      load_batch(load);
    }
  }

 private:
  RectangleCursor at_;
  bool loaded_ = false;
  int rows_of_[kLoadBatch], columns_of_[kLoadBatch];
  uint4 chunks_[kLoadBatch];
};

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

// The threads that build one tile's LUT together, and their sums and scans over 64-bit values
// (every thread receives the result): the whole block (CUB, behind barriers), or its first warp
// alone (shuffles, no barrier: the fewer steps a small histogram's LUT waits for).
struct BlockGroup {
  static constexpr int kSize = kThreads;
  __device__ static int rank() { return int(threadIdx.x); }
  __device__ static unsigned long long sum(unsigned long long value) {
    using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
    __shared__ typename Reduce::TempStorage temp;
    __shared__ unsigned long long total;
    value = Reduce(temp).Sum(value);
    if (threadIdx.x == 0) total = value;
    __syncthreads();
    value = total;
    __syncthreads();
    return value;
  }
  __device__ static unsigned long long exclusive_sum(unsigned long long value) {
    using Scan = cub::BlockScan<unsigned long long, kThreads>;
    __shared__ typename Scan::TempStorage temp;
    Scan(temp).ExclusiveSum(value, value);
    return value;
  }
};

struct WarpGroup {
  static constexpr int kSize = 32;
  __device__ static int rank() { return int(threadIdx.x) % 32; }
  __device__ static unsigned long long sum(unsigned long long value) {
    for (int step = 1; step < 32; step *= 2) value += __shfl_xor_sync(0xffffffffu, value, step);
    return value;
  }
  __device__ static unsigned long long exclusive_sum(unsigned long long value) {
    const unsigned long long own = value;
    for (int step = 1; step < 32; step *= 2) {
      const unsigned long long before = __shfl_up_sync(0xffffffffu, value, step);
      if (rank() >= step) value += before;
    }
    return value - own;
  }
};

// A tile's LUT from its bins, by a Group of threads, each over bins / Group::kSize consecutive
// levels (one scene band holds them all), as ToneMap::build: the same per-bin functions, the
// sums and the scan over the group. The bins are read from L2 (other blocks counted them), held
// in registers where a thread has kItems of them (else read again at each step), and left zero.
template <class Group, int kItems>
__device__ void tone_tile(int tile, unsigned *counts, std::uint16_t *luts, const TileTone &t) {
  const Params &params = t.params;
  const int bins = t.bins;
  const std::size_t base = std::size_t(tile) * std::size_t(bins);
  const int per_thread = bins / Group::kSize;
  const int first = Group::rank() * per_thread;
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
    bool restarted = t.reset || !history_in;
    if (history_in) {
      // Each scene band's difference over its Group::kSize / kSceneBands threads (neighbouring
      // lanes of one warp), then the sum of the bands' distances, counted by each band's first.
      constexpr int kBandThreads = Group::kSize / kSceneBands;
      static_assert(kBandThreads >= 1 && kBandThreads <= 32, "a band lies within one warp");
      std::int64_t difference = 0;
      for_each_level([&](int v, int i) {
        difference += bin_difference(normalized_bin(count(v, i), scale), history_in[v]);
      });
      for (int step = 1; step < kBandThreads; step *= 2)
        difference += __shfl_xor_sync(0xffffffffu, difference, step);
      const bool band_first = Group::rank() % kBandThreads == 0;
      const std::uint64_t distance = Group::sum(band_first ? band_distance(difference) : 0);
      restarted = restarted || is_scene_cut(distance, params.scene_threshold);
    }
    for_each_level([&](int v, int i) {
      const std::uint64_t now = normalized_bin(count(v, i), scale);
      history_out[v] = restarted ? now : smoothed_bin(history_in[v], now, params.history_weight);
    });
    if (restarted && t.report && Group::rank() == 0) atomicOr(t.report, 1ull);
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
    spread = clip_spread(ceiling, Group::sum(excess), bins);
  }
  const auto value = [&](int v, int i) -> std::uint64_t {
    return clip ? clipped_bin(source(v, i), v, spread) : source(v, i);
  };

  // Steps 4 and 5: the tile's cdf, its levels and the strength blend.
  unsigned long long own = 0;
  for_each_level([&](int v, int i) { own += value(v, i); });
  unsigned long long cdf = Group::exclusive_sum(own);
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
  let_next_kernel_start();
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
    const auto load = [&](int row, int c) {
      return *reinterpret_cast<const uint4 *>(
          frame.pixel(columns.chunk_begin + c * kChunkBytes, row_of(y0 + row)));
    };
    ChunkWalk(rows, columns.chunks()).run(load, [&](int row, int, uint4 chunk) {
      const int py = y0 + row;
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
  // 256 levels: one warp, 8 a lane, with no barrier; deeper samples: the block.
  switch (bins) {
    case 256:
      if (threadIdx.x < WarpGroup::kSize)
        tone_tile<WarpGroup, 256 / WarpGroup::kSize>(tile, scratch.d_counts, scratch.d_luts, tone);
      break;
    case 1024:
      tone_tile<BlockGroup, 1024 / kThreads>(tile, scratch.d_counts, scratch.d_luts, tone);
      break;
    default:
      tone_tile<BlockGroup, 0>(tile, scratch.d_counts, scratch.d_luts, tone);
      break;
  }
  if (threadIdx.x == 0) scratch.d_tickets[tile] = 0;
}

// How the map reads a cell's four LUTs for level v from shared memory: four bytes in one word
// (8-bit samples), or four 16-bit levels in two words (up to 4096 levels); or from device memory
// (65536 levels). Small tables keep shared memory, the map's busiest path, to 4 or 8 bytes a
// pixel.
enum class CellLuts { kBytes, kHalves, kDevice };

__host__ __device__ constexpr CellLuts cell_luts_for(int bins) {
  return bins <= 256 ? CellLuts::kBytes : bins <= 4096 ? CellLuts::kHalves : CellLuts::kDevice;
}

// The level in byte kFirstByte (kBytes 2: that byte and the next) of `word` as a float: the
// level under the exponent of 2^23 (one byte permute) less 2^23, exact, with no conversion
// instruction.
template <int kFirstByte, int kBytes>
__device__ __forceinline__ float level_float(unsigned word) {
  constexpr unsigned kSelect = kBytes == 1
                                   ? (kFirstByte | 4u << 4 | 5u << 8 | 7u << 12)
                                   : (kFirstByte | (kFirstByte + 1u) << 4 | 5u << 8 | 7u << 12);
  return __fsub_rn(__uint_as_float(__byte_perm(word, 0x4B000000u, kSelect)), 8388608.0f);
}

// The map's blocks: a segment of at most kMapSegment columns of a cell and about `block_pixels`
// pixels, so that blocks of narrow and wide cells take alike. Larger blocks spread each block's
// fixed work (its cell's LUTs into shared memory, its columns' weights) over more pixels, but
// too few leave SMs idle: the largest of kMapBlockPixels whose grid still fills every SM's
// resident blocks once, else the smallest (bench/README.md has the measurements).
constexpr int kMapSegment = 512;
constexpr int kMapBlockPixels[] = {16384, 8192};

// What the map needs besides the pixels: the blend's factors, and where each cell starts along
// each side (first_blended_from of the cell's first tile, computed once on the host; cell k
// spans [x[k], x[k + 1]) and [y[k], y[k + 1])), how many segments and strips of rows the grid
// has room for in each cell, and the fewest rows a strip takes.
struct TileBlendArgs {
  float inverse_width, inverse_height;
  std::uint32_t top;
  int segments, strips;
  int block_pixels;
  int min_strip_rows;
  int x[kMaxTiles + 2];
  int y[kMaxTiles + 2];
};

// One block per strip of rows of a segment of a cell: pixels whose four nearest tile centres are
// those of the cell, that is whose unclamped first tile is one less than the cell along each
// side. Byte pixels go 16 at a time where `chunked`.
template <class Luma, CellLuts kCell>
__global__ void __launch_bounds__(kThreads)
    map_tiles(TileFrame frame, std::uint8_t *out, std::size_t out_pitch, Luma luma,
              const std::uint16_t *luts, TileBlendArgs args, bool chunked) {
  extern __shared__ uint4 cell_luts[];
  __shared__ RgbGainTables tables;
  constexpr bool kChunks = std::is_same_v<Luma, ByteLuma>;
  const ClaheGrid &grid = frame.grid;
  const int cell_x = int(blockIdx.x) / args.segments, cell_y = int(blockIdx.y) / args.strips;
  const int x_begin = args.x[cell_x] + int(blockIdx.x) % args.segments * kMapSegment;
  const int x_end = min(args.x[cell_x + 1], x_begin + kMapSegment);
  if (x_begin >= x_end) return;
  const int strip_rows = max(args.min_strip_rows, args.block_pixels / (x_end - x_begin));
  const int y_begin = args.y[cell_y] + int(blockIdx.y) % args.strips * strip_rows;
  const int y_end = min(args.y[cell_y + 1], y_begin + strip_rows);
  if (y_begin >= y_end) return;

  if constexpr (Luma::kRgb) {
    for (int v = int(threadIdx.x); v < 256; v += kThreads) fill_rgb_headroom(v, tables);
  }
  const float column_first = float(cell_x - 1), row_first = float(cell_y - 1);
  // tile_blend's weight of pixel `i` in a cell that starts at tile `first` + 1.
  const auto weight = [](int i, float inverse, float first) {
    return sub_rn(sub_rn(mul_rn(float(i), inverse), 0.5f), first);
  };
  // The weights of the chunks' columns, taken once: pixel k of chunk c has (w, 1 - w) at
  // chunk_weights[k][c], so that lanes on neighbouring chunks read neighbouring words.
  const ColumnSplit columns(x_begin, x_end, x_end, kChunks && chunked);
  __shared__ float2 chunk_weights[kChunks ? kChunkBytes : 1][kMapSegment / kChunkBytes + 1];
  if constexpr (kChunks) {
    for (int i = int(threadIdx.x); i < kChunkBytes * columns.chunks(); i += kThreads) {
      const int k = i / columns.chunks(), c = i % columns.chunks();
      const float w =
          weight(columns.chunk_begin + c * kChunkBytes + k, args.inverse_width, column_first);
      chunk_weights[k][c] = make_float2(w, sub_rn(1.0f, w));
    }
  }
  const auto load = [&](int row, int c) {
    return *reinterpret_cast<const uint4 *>(
        frame.pixel(columns.chunk_begin + c * kChunkBytes, y_begin + row));
  };
  ChunkWalk walk(y_end - y_begin, columns.chunks());
  if constexpr (kChunks) walk.load_batch(load);

  // Everything above overlaps the count's last blocks (programmatic dependent launch, where the
  // GPU has it); the LUTs are complete from here on.
  wait_for_preceding_kernel();
  const int bins = frame.bins;
  const int left = max(cell_x - 1, 0), right = min(cell_x, grid.tiles_x - 1);
  const int upper = max(cell_y - 1, 0), lower = min(cell_y, grid.tiles_y - 1);
  const std::uint16_t *l11 = luts + std::size_t(upper * grid.tiles_x + left) * bins;
  const std::uint16_t *l12 = luts + std::size_t(upper * grid.tiles_x + right) * bins;
  const std::uint16_t *l21 = luts + std::size_t(lower * grid.tiles_x + left) * bins;
  const std::uint16_t *l22 = luts + std::size_t(lower * grid.tiles_x + right) * bins;
  unsigned *byte_luts = reinterpret_cast<unsigned *>(cell_luts);
  uint2 *half_luts = reinterpret_cast<uint2 *>(cell_luts);
  for (int v = int(threadIdx.x); kCell != CellLuts::kDevice && v < bins; v += kThreads) {
    if constexpr (kCell == CellLuts::kBytes) {
      byte_luts[v] = unsigned(l11[v]) | unsigned(l12[v]) << 8 | unsigned(l21[v]) << 16 |
                     unsigned(l22[v]) << 24;
    } else {
      half_luts[v] = make_uint2(unsigned(l11[v]) | unsigned(l12[v]) << 16,
                                unsigned(l21[v]) | unsigned(l22[v]) << 16);
    }
  }
  __syncthreads();

  const auto mapped = [&](unsigned v, float x_weight, float x_weight1, float y_weight,
                          float y_weight1) -> unsigned {
    if constexpr (kCell == CellLuts::kBytes) {
      const unsigned four = byte_luts[v];
      return blend_level_values(level_float<0, 1>(four), level_float<1, 1>(four),
                                level_float<2, 1>(four), level_float<3, 1>(four), x_weight,
                                x_weight1, y_weight, y_weight1, args.top);
    } else if constexpr (kCell == CellLuts::kHalves) {
      const uint2 four = half_luts[v];
      return blend_level_values(level_float<0, 2>(four.x), level_float<2, 2>(four.x),
                                level_float<0, 2>(four.y), level_float<2, 2>(four.y), x_weight,
                                x_weight1, y_weight, y_weight1, args.top);
    } else {
      return blend_level_values(float(__ldcg(&l11[v])), float(__ldcg(&l12[v])),
                                float(__ldcg(&l21[v])), float(__ldcg(&l22[v])), x_weight, x_weight1,
                                y_weight, y_weight1, args.top);
    }
  };
  if constexpr (kChunks) {
    walk.run(load, [&](int row, int c, uint4 chunk) {
      const int x = columns.chunk_begin + c * kChunkBytes, y = y_begin + row;
      const float y_weight = weight(y, args.inverse_height, row_first);
      const float y_weight1 = sub_rn(1.0f, y_weight);
      unsigned words[] = {chunk.x, chunk.y, chunk.z, chunk.w};
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        unsigned word = 0;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const float2 x_weights = chunk_weights[4 * w + k][c];
          word |=
              mapped((words[w] >> (8 * k)) & 0xffu, x_weights.x, x_weights.y, y_weight, y_weight1)
              << (8 * k);
        }
        words[w] = word;
      }
      *reinterpret_cast<uint4 *>(out + std::size_t(y) * out_pitch + std::size_t(x)) =
          make_uint4(words[0], words[1], words[2], words[3]);
    });
  }
  walk_rectangle(y_end - y_begin, columns.singles(), [&](int row, int i) {
    const int x = columns.single_x(i), y = y_begin + row;
    const std::uint8_t *pixel = frame.pixel(x, y);
    const unsigned v = luma.level(pixel);
    const float x_weight = weight(x, args.inverse_width, column_first);
    const float y_weight = weight(y, args.inverse_height, row_first);
    luma.write(pixel, out + std::size_t(y) * out_pitch + std::size_t(x) * frame.pixel_bytes, v,
               mapped(v, x_weight, sub_rn(1.0f, x_weight), y_weight, sub_rn(1.0f, y_weight)),
               tables);
  });
}

int ceil_div(long long a, long long b) {
  return int((a + b - 1) / b);
}

// The map's grid for `frame` (its cells' bounds, segments and strips); false where it would
// need more than CUDA's 65535 blocks down even with strips of `block_pixels` pixels.
bool map_shape(const TileFrame &frame, int block_pixels, TileBlendArgs *args, dim3 *blocks) {
  args->block_pixels = block_pixels;
  const ClaheGrid &grid = frame.grid;
  args->inverse_width = 1.0f / float(grid.tile_width);
  args->inverse_height = 1.0f / float(grid.tile_height);
  args->top = std::uint32_t(frame.bins - 1);
  int widest = 1, tallest = 1;
  for (int k = 0; k <= grid.tiles_x + 1; ++k) {
    args->x[k] = first_blended_from(k - 1, args->inverse_width, frame.width);
    if (k) widest = std::max(widest, args->x[k] - args->x[k - 1]);
  }
  for (int k = 0; k <= grid.tiles_y + 1; ++k) {
    args->y[k] = first_blended_from(k - 1, args->inverse_height, frame.height);
    if (k) tallest = std::max(tallest, args->y[k] - args->y[k - 1]);
  }
  // Strips of at least min_strip_rows rows keep the grid within its limit down; the most strips
  // a cell needs are those of its widest segments, the fewest rows each.
  const int most_strips = 65535 / (grid.tiles_y + 1);
  args->min_strip_rows = ceil_div(tallest, most_strips);
  args->segments = ceil_div(widest, kMapSegment);
  args->strips = ceil_div(
      tallest, std::max(args->min_strip_rows, block_pixels / std::min(widest, kMapSegment)));
  *blocks = dim3(unsigned((grid.tiles_x + 1) * args->segments),
                 unsigned((grid.tiles_y + 1) * args->strips));
  return args->strips <= most_strips;
}

template <class Luma>
cudaError_t launch_with(const TileFrame &frame, const DevicePlane &plane, const DevicePlane &out,
                        Luma luma, OutputRange range, const DeviceTone &tone,
                        const ClaheScratch &scratch, int sm_count, cudaStream_t stream) {
  const ClaheGrid &grid = frame.grid;
  const bool shared = frame.bins <= kMaxSharedLevels;
  const CellLuts cell = cell_luts_for(frame.bins);
  const void *map_kernel = nullptr;
  std::size_t map_shared_bytes = 0;
  switch (cell) {
    case CellLuts::kBytes:
      map_kernel = reinterpret_cast<const void *>(map_tiles<Luma, CellLuts::kBytes>);
      map_shared_bytes = frame.bins * sizeof(unsigned);
      break;
    case CellLuts::kHalves:
      map_kernel = reinterpret_cast<const void *>(map_tiles<Luma, CellLuts::kHalves>);
      map_shared_bytes = frame.bins * sizeof(uint2);
      break;
    case CellLuts::kDevice:
      map_kernel = reinterpret_cast<const void *>(map_tiles<Luma, CellLuts::kDevice>);
      break;
  }
  // The count lets the map's blocks start while its last blocks build the LUTs.
  bool map_early = false;
  HISTEQ_CUDA_TRY(may_start_early(map_kernel, &map_early));
  int map_resident = 0;
  HISTEQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&map_resident, map_kernel, kThreads,
                                                                map_shared_bytes));
  TileBlendArgs args;
  dim3 map_blocks;
  bool fits = false;
  for (const int block_pixels : kMapBlockPixels) {
    fits = map_shape(frame, block_pixels, &args, &map_blocks);
    if (fits && (long long)map_blocks.x * map_blocks.y >= (long long)map_resident * sm_count) break;
  }
  if (!fits) return cudaErrorInvalidValue;
  // The count's blocks in one wave: a partial second wave would leave most SMs idle at its end.
  int resident = 0;
  const std::size_t count_bytes =
      shared ? std::size_t(bin_copies(frame.bins)) * frame.bins * sizeof(unsigned) : 0;
  if (shared) {
    HISTEQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &resident, count_tiles<Luma, true>, kThreads, count_bytes));
  } else {
    HISTEQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &resident, count_tiles<Luma, false>, kThreads, 0));
  }
  const int bands_wanted = std::max(1, std::max(1, resident) * sm_count / grid.tiles());
  const int band_rows = ceil_div(grid.tile_height, std::min(bands_wanted, grid.tile_height));
  const int bands = ceil_div(grid.tile_height, band_rows);

  unsigned long long *report = tone.params.keep_history ? tone.d_report : nullptr;
  if (report)
    HISTEQ_CUDA_TRY(cudaMemsetAsync(report, 0, report_words(frame.bins) * sizeof(*report), stream));
  const TileTone tile_tone{
      tone.params,        range,      frame.bins, grid.tile_area(), tone.d_history_in,
      tone.d_history_out, tone.reset, report};
  const bool chunked = rows_in_chunks(plane);
  HISTEQ_CUDA_BEFORE_LAUNCH();
  if (shared) {
    count_tiles<Luma, true><<<grid.tiles() * bands, kThreads, count_bytes, stream>>>(
        frame, luma, scratch, bands, band_rows, chunked, tile_tone);
  } else {
    count_tiles<Luma, false><<<grid.tiles() * bands, kThreads, 0, stream>>>(
        frame, luma, scratch, bands, band_rows, chunked, tile_tone);
  }
  HISTEQ_CUDA_TRY_LAUNCH();

  // map_tiles' parameters, each of its own type.
  TileFrame map_frame = frame;
  std::uint8_t *out_data = out.data;
  std::size_t out_pitch = out.pitch;
  const std::uint16_t *luts = scratch.d_luts;
  bool map_chunked = chunked && rows_in_chunks(out);
  void *map_args[] = {&map_frame, &out_data, &out_pitch, &luma, &luts, &args, &map_chunked};
  return launch_dependent(map_kernel, map_blocks, dim3(kThreads), map_shared_bytes, stream,
                          map_args, map_early);
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
  // The tone's threads each take whole levels within one scene band: 2^8, 2^10, 2^12 or 2^16.
  const int bins = plane.layout.levels();
  if ((bins != 256 && bins != 1024 && bins != 4096 && bins != 65536) || params.tiles_x < 1 ||
      params.tiles_y < 1 || params.tiles_x > kMaxTiles || params.tiles_y > kMaxTiles ||
      clahe_tile_bins(plane, params) > scratch.tile_bins)
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
        return launch_with(frame, plane, out, WordLuma{layout.sample}, range, tone, scratch,
                           sm_count, stream);
      return launch_with(frame, plane, out, ByteLuma{}, range, tone, scratch, sm_count, stream);
    case Packing::kPackedYuv:
      return launch_with(frame, plane, out, PackedYuvLuma{layout.luma}, range, tone, scratch,
                         sm_count, stream);
    case Packing::kRgb:
      return launch_with(
          frame, plane, out,
          RgbLuma{layout.pixel_bytes, layout.red, layout.green, layout.blue, layout.matrix}, range,
          tone, scratch, sm_count, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace histeq::cuda
