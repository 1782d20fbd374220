// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// CLAHE (core/clahe.h) on the device, every pixel layout and depth, in two launches on one
// stream, each templated on how a pixel keeps its luma:
//   count  each tile's histogram over its padded rectangle (reflect-101), a block per band of a
//          tile's rows, into shared bins (copies of them, one per few warps) merged into the
//          tile's device bins (16-bit samples count in the device bins). The last band of a tile
//          to finish (a ticket per tile) builds its LUT: core/tone_steps.h's steps with the tile's
//          own history (clip limit, smoothing, scene cut, strength), the scan and tile_level, as
//          ClaheTiles' ToneMap per tile does, leaving the tile's bins zero for the next frame.
//          When the frame reports, the tiles add their counts to its histogram and the padding
//          pixels are taken from it;
//   map    a block per strip of a cell, the pixels that lie between the same four tile centres:
//          the cell's four LUTs side by side in shared memory (up to 12 bits; 16-bit LUTs are
//          read from device memory), and clahe.h's blend per pixel, written whole to `out`.
// Byte planes whose rows start on 16-byte boundaries are counted and mapped 16 pixels at a time.
// Frames have fewer than 2^32 pixels, so counts fit 32-bit words.

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "device_plane.h"
#include "device_tone.h"
#include "equalization.h"
#include "params.h"

namespace histeq::cuda {

// Device memory for the tiles of one frame: a ticket per tile (how many of its count blocks are
// done), tiles x bins counts (both zero between frames) and as many LUT entries.
struct ClaheScratch {
  static constexpr std::size_t kTickets = std::size_t(kMaxTiles) * kMaxTiles;
  unsigned *d_tickets = nullptr;
  unsigned *d_counts = nullptr;
  std::uint16_t *d_luts = nullptr;
  std::size_t tile_bins = 0;  // what it holds room for

  static constexpr std::size_t bytes(std::size_t tile_bins) {
    return kTickets * sizeof(unsigned) + tile_bins * (sizeof(unsigned) + sizeof(std::uint16_t));
  }
};

// The scratch laid out in bytes(tile_bins) of device memory at `d_memory` (16-byte aligned,
// zeroed by the caller before the first frame).
ClaheScratch clahe_scratch_at(void *d_memory, std::size_t tile_bins);

// How many tiles x bins a frame of `plane`'s layout needs with tone.params' grid.
std::size_t clahe_tile_bins(const DevicePlane &plane, const Params &params);

// Enqueues the two kernels for `plane` (a layout valid_layout() takes) into `out` (the same
// size and pixel bytes; may be `plane`) with the grid of tone.params on `stream`. The scratch
// holds clahe_tile_bins(plane, tone.params) (cudaErrorInvalidValue otherwise).
cudaError_t launch_clahe(const DevicePlane &plane, const DevicePlane &out, OutputRange range,
                         const DeviceTone &tone, const ClaheScratch &scratch, int sm_count,
                         cudaStream_t stream);

}  // namespace histeq::cuda
