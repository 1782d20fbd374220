// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "clahe_tiles.h"
#include "equalization.h"
#include "luma_histogram.h"
#include "lut_map.h"
#include "packed_views.h"
#include "params.h"
#include "plane.h"
#include "row_pool.h"
#include "sample_layout.h"
#include "tone_map.h"

namespace histeq {

// The CPU engine: equalizes the luma planes of one stream in place (histogram, LUT by ToneMap,
// map), keeping the stream's history from frame to frame. Large frames are split by rows over a
// RowPool; small ones stay on the calling thread, where hand-off costs more than the work.
// Samples are bytes (CpuEqualizer: planes, packed 4:2:2 YUV, packed RGB's luma) or 16-bit words
// with a SampleLayout (DeepCpuEqualizer: 2^bits bins, up to 65536).
template <typename Sample>
class BasicCpuEqualizer {
  static constexpr bool kBytes = std::is_same_v<Sample, std::uint8_t>;

 public:
  using Histogram = std::conditional_t<kBytes, LumaHistogram8, std::vector<std::uint64_t>>;
  using Lut =
      std::conditional_t<kBytes, std::array<std::uint8_t, kLevels8>, std::vector<std::uint16_t>>;

  // threads == 0 means one per core this process may use (usable_cores).
  explicit BasicCpuEqualizer(unsigned threads, SampleLayout layout = {});

  unsigned threads() const { return pool_->size(); }
  // The threads asked for; threads() is fewer when some could not start.
  unsigned requested_threads() const { return pool_->requested(); }
  // Replaces the worker pool; the stream's history is kept.
  void set_threads(unsigned threads);
  // Where a word's bits are (16-bit samples); a new layout restarts the history.
  void set_layout(SampleLayout layout);
  SampleLayout layout() const { return layout_; }

  // Equalizes `plane` with `params`; `reset` restarts the history (flush, caps, DISCONT), as
  // does a frame in another mode than the one before (its history is of other histograms).
  // Returns the LUT that was applied (levels to levels); in CLAHE mode (params.mode) every
  // pixel blends four tiles' LUTs and the one returned is the last global one.
  const Lut &equalize(PlaneView<Sample> plane, OutputRange range, const Params &params = {},
                      bool reset = false) {
    return equalize_frame(plane, range, params, reset);
  }
  // The same for the luma of 8-bit packed frames, with one history whatever the layout.
  template <typename S = Sample, typename = std::enable_if_t<std::is_same_v<S, std::uint8_t>>>
  const Lut &equalize(const PackedYuvView &frame, OutputRange range, const Params &params = {},
                      bool reset = false) {
    return equalize_frame(frame, range, params, reset);
  }
  template <typename S = Sample, typename = std::enable_if_t<std::is_same_v<S, std::uint8_t>>>
  const Lut &equalize(const RgbView &frame, OutputRange range, const Params &params = {},
                      bool reset = false) {
    return equalize_frame(frame, range, params, reset);
  }

  // Of the last frame: its histogram before equalization (one bin per level), and whether the
  // history restarted.
  const Histogram &histogram() const { return histogram_; }
  bool restarted() const { return restarted_; }

 private:
  // Counts the frame's luma, builds the LUT and maps the frame, rows split into bands.
  template <typename View>
  const Lut &equalize_frame(const View &frame, OutputRange range, const Params &params, bool reset);
  unsigned bands_for(std::uint64_t pixels, int rows) const;
  // CLAHE mode: the tiles of ClaheTiles over the frame's luma; packed RGB through a luma plane.
  bool equalize_tiles(const PlaneView<Sample> &plane, OutputRange range, const Params &params,
                      bool reset);
  bool equalize_tiles(const PackedYuvView &frame, OutputRange range, const Params &params,
                      bool reset);
  bool equalize_tiles(const RgbView &frame, OutputRange range, const Params &params, bool reset);

  std::unique_ptr<RowPool> pool_;
  SampleLayout layout_;
  std::vector<Histogram> band_histograms_;
  std::vector<LumaCounter> counters_;  // bytes: each thread's count
  Histogram histogram_{};
  std::unique_ptr<ToneMap> tone_;
  Lut lut_{};
  WordLut word_lut_;  // words: lut_ as the SIMD map reads it
  ClaheTiles tiles_;
  std::vector<std::uint64_t> tile_frame_histogram_;
  // Packed RGB: its luma, and under CLAHE its mapped luma.
  std::vector<std::uint8_t> packed_luma_, rgb_mapped_;
  bool restarted_ = false;
  Mode mode_ = Mode::kGlobal;  // of the frame before
};

using CpuEqualizer = BasicCpuEqualizer<std::uint8_t>;
using DeepCpuEqualizer = BasicCpuEqualizer<std::uint16_t>;

extern template class BasicCpuEqualizer<std::uint8_t>;
extern template class BasicCpuEqualizer<std::uint16_t>;

}  // namespace histeq
