// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_equalizer.h"

#include <algorithm>

#include "lut_map.h"
#include "packed_map.h"

namespace histeq {

namespace {

// Below this many pixels per band, waking a worker costs more than it saves (~a 360p frame
// takes a few tens of microseconds on one core).
constexpr std::uint64_t kMinPixelsPerBand = 128 * 1024;

void clear(LumaHistogram8 &histogram, SampleLayout) {
  histogram.fill(0);
}

void clear(std::vector<std::uint64_t> &histogram, SampleLayout layout) {
  histogram.assign(layout.levels(), 0);
}

// What one frame's count and map passes read, beyond the rows they are given: planes of bytes
// and packed YUV, their own samples; planes of words, their samples with the layout of a level in
// them; packed RGB, its pixels and the plane its luma is gathered into to be counted, which its
// map reads back.
struct DeepPlane {
  PlaneView<std::uint16_t> plane;
  SampleLayout layout;
};

struct PackedRgb {
  RgbView view;
  std::uint8_t *luma;
  std::ptrdiff_t luma_stride;
};

void count_rows(PlaneView<std::uint8_t> plane, int begin, int end, LumaCounter &counter) {
  counter.count(ConstLumaPlane8{plane.data, plane.width, plane.height, plane.stride}, begin, end);
}

void count_rows(const PackedYuvView &frame, int begin, int end, LumaCounter &counter) {
  counter.count(frame, begin, end);
}

void count_rows(const PackedRgb &frame, int begin, int end, LumaCounter &counter) {
  counter.count(frame.view, begin, end, frame.luma, frame.luma_stride);
}

void count_rows(const DeepPlane &deep, int begin, int end, std::vector<std::uint64_t> &histogram) {
  const PlaneView<std::uint16_t> &plane = deep.plane;
  accumulate_histogram(ConstLumaPlane16{plane.data, plane.width, plane.height, plane.stride}, begin,
                       end, deep.layout, histogram.data());
}

void map_rows(PlaneView<std::uint8_t> plane, int begin, int end, const std::uint8_t *lut) {
  apply_lut(plane, begin, end, lut);
}

void map_rows(const DeepPlane &deep, int begin, int end, const WordLut &lut) {
  apply_lut(deep.plane, begin, end, deep.layout, lut);
}

void map_rows(const PackedYuvView &frame, int begin, int end, const std::uint8_t *lut) {
  apply_lut(frame, begin, end, lut);
}

void map_rows(const PackedRgb &frame, int begin, int end, const std::uint8_t *lut) {
  apply_lut(frame.view, begin, end, lut, frame.luma, frame.luma_stride);
}

// The one level a histogram holds, or -1 where it holds none or several.
template <typename Histogram>
int only_level(const Histogram &histogram, std::uint32_t levels) {
  int level = -1;
  for (std::uint32_t v = 0; v < levels; ++v) {
    if (histogram[v] == 0) continue;
    if (level >= 0) return -1;
    level = int(v);
  }
  return level;
}

// Tells the pool that the frame is over, on every way out of equalize_frame.
struct FrameEnd {
  RowPool &pool;
  ~FrameEnd() { pool.end_frame(); }
};

}  // namespace

template <typename Sample>
BasicCpuEqualizer<Sample>::BasicCpuEqualizer(unsigned threads, SampleLayout layout) {
  set_threads(threads);
  set_layout(layout);
}

template <typename Sample>
void BasicCpuEqualizer<Sample>::set_threads(unsigned threads) {
  pool_.reset();
  pool_ = std::make_unique<RowPool>(threads);
  band_histograms_.assign(pool_->size(), Histogram{});
  if constexpr (kBytes) counters_.resize(pool_->size());
}

template <typename Sample>
void BasicCpuEqualizer<Sample>::set_layout(SampleLayout layout) {
  // Bytes are 8-bit levels; words hold 1..16 of them.
  if constexpr (kBytes) {
    layout = SampleLayout{};
  } else {
    layout.bits = std::clamp(layout.bits, 1, 16);
    layout.shift = std::clamp(layout.shift, 0, 16 - layout.bits);
    lut_.assign(layout.levels(), 0);
  }
  layout_ = layout;
  clear(histogram_, layout_);
  tone_ = std::make_unique<ToneMap>(int(layout_.levels()));
}

template <typename Sample>
unsigned BasicCpuEqualizer<Sample>::bands_for(std::uint64_t pixels, int rows) const {
  const std::uint64_t by_size = std::max<std::uint64_t>(1, pixels / kMinPixelsPerBand);
  const std::uint64_t by_rows = std::max(1, rows);
  return unsigned(std::min<std::uint64_t>({by_size, by_rows, pool_->size()}));
}

template <typename Sample>
template <typename View>
const typename BasicCpuEqualizer<Sample>::Lut &BasicCpuEqualizer<Sample>::equalize_frame(
    const View &frame, OutputRange range, const Params &params, bool reset) {
  const FrameEnd frame_end{*pool_};
  const std::uint32_t levels = layout_.levels();
  reset = reset || params.mode != mode_;
  mode_ = params.mode;
  if (params.mode == Mode::kClahe) {
    restarted_ = equalize_tiles(frame, range, params, reset);
    clear(histogram_, layout_);
    for (std::uint32_t v = 0; v < levels; ++v) histogram_[v] = tile_frame_histogram_[v];
    return lut_;
  }
  const unsigned bands = bands_for(frame.pixels(), frame.height);
  const auto passes = [&] {
    if constexpr (std::is_same_v<View, RgbView>) {
      packed_luma_.resize(std::size_t(frame.pixels()));
      return PackedRgb{frame, packed_luma_.data(), std::ptrdiff_t(frame.width)};
    } else if constexpr (!kBytes) {
      return DeepPlane{frame, layout_};
    } else {
      return frame;
    }
  }();
  for (unsigned thread = 0; thread < bands; ++thread) clear(band_histograms_[thread], layout_);
  if constexpr (kBytes) {
    // Each thread counts its chunks on its own LumaCounter, and adds that to its band's
    // histogram once, in the pool's finish step, on the same thread.
    for (unsigned thread = 0; thread < bands; ++thread)
      counters_[thread].restart(frame.pixels() / bands);
    pool_->run(
        bands, frame.height,
        [&](unsigned thread, int begin, int end) {
          count_rows(passes, begin, end, counters_[thread]);
        },
        [&](unsigned thread) { counters_[thread].add_to(band_histograms_[thread]); });
  } else {
    pool_->run(bands, frame.height, [&](unsigned thread, int begin, int end) {
      count_rows(passes, begin, end, band_histograms_[thread]);
    });
  }
  clear(histogram_, layout_);
  for (unsigned b = 0; b < bands; ++b) {
    for (std::uint32_t v = 0; v < levels; ++v) histogram_[v] += band_histograms_[b][v];
  }
  restarted_ = tone_->build(histogram_.data(), params, range, reset, lut_.data());
  // An identity LUT (a frame of one level, strength 0) leaves the frame as it is: no pass.
  bool identity = true;
  for (std::uint32_t v = 0; v < levels && identity; ++v) identity = lut_[v] == v;
  if (identity) return lut_;
  // A plane of one level (a black frame, a flat slate) maps every sample to one value: its rows
  // are filled with it, with nothing to read or look up.
  if constexpr (std::is_same_v<View, PlaneView<std::uint8_t>>) {
    if (const int level = only_level(histogram_, levels); level >= 0) {
      const std::uint8_t value = lut_[std::size_t(level)];
      pool_->run(bands, frame.height,
                 [&](unsigned, int begin, int end) { fill_rows(frame, begin, end, value); });
      return lut_;
    }
  }
  // Words are mapped from the LUT made over once for the SIMD map, not once per band.
  if constexpr (!kBytes) word_lut_.assign(lut_.data(), layout_);
  pool_->run(bands, frame.height, [&](unsigned, int begin, int end) {
    if constexpr (kBytes) {
      map_rows(passes, begin, end, lut_.data());
    } else {
      map_rows(passes, begin, end, word_lut_);
    }
  });
  return lut_;
}

template <typename Sample>
bool BasicCpuEqualizer<Sample>::equalize_tiles(const PlaneView<Sample> &plane, OutputRange range,
                                               const Params &params, bool reset) {
  if constexpr (kBytes) {
    return tiles_.equalize(ClaheBytes{plane, plane.width, plane.height}, kLevels8, params, range,
                           reset, *pool_, tile_frame_histogram_);
  } else {
    return tiles_.equalize(ClaheWords{plane, layout_, plane.width, plane.height},
                           int(layout_.levels()), params, range, reset, *pool_,
                           tile_frame_histogram_);
  }
}

template <typename Sample>
bool BasicCpuEqualizer<Sample>::equalize_tiles(const PackedYuvView &frame, OutputRange range,
                                               const Params &params, bool reset) {
  return tiles_.equalize(ClahePackedYuv{frame, frame.width, frame.height}, kLevels8, params, range,
                         reset, *pool_, tile_frame_histogram_);
}

template <typename Sample>
bool BasicCpuEqualizer<Sample>::equalize_tiles(const RgbView &frame, OutputRange range,
                                               const Params &params, bool reset) {
  const std::size_t pixels = std::size_t(frame.pixels());
  packed_luma_.resize(pixels);
  gather_luma_rows(frame, 0, frame.height, packed_luma_.data(), std::ptrdiff_t(frame.width));
  rgb_mapped_ = packed_luma_;
  const PlaneView<std::uint8_t> mapped{rgb_mapped_.data(), frame.width, frame.height,
                                       std::ptrdiff_t(frame.width)};
  const bool restarted = tiles_.equalize(ClaheBytes{mapped, frame.width, frame.height}, kLevels8,
                                         params, range, reset, *pool_, tile_frame_histogram_);
  // Each pixel is scaled from its own luma to its own mapped luma.
  pool_->run(bands_for(frame.pixels(), frame.height), frame.height,
             [&](unsigned, int begin, int end) {
               scale_rgb(frame, begin, end, packed_luma_.data(), rgb_mapped_.data(),
                         std::ptrdiff_t(frame.width));
             });
  return restarted;
}

template class BasicCpuEqualizer<std::uint8_t>;
template class BasicCpuEqualizer<std::uint16_t>;
template const CpuEqualizer::Lut &CpuEqualizer::equalize_frame(const PlaneView<std::uint8_t> &,
                                                               OutputRange, const Params &, bool);
template const CpuEqualizer::Lut &CpuEqualizer::equalize_frame(const PackedYuvView &, OutputRange,
                                                               const Params &, bool);
template const CpuEqualizer::Lut &CpuEqualizer::equalize_frame(const RgbView &, OutputRange,
                                                               const Params &, bool);
template const DeepCpuEqualizer::Lut &DeepCpuEqualizer::equalize_frame(
    const PlaneView<std::uint16_t> &, OutputRange, const Params &, bool);

}  // namespace histeq
