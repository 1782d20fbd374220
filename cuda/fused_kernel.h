// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "device_plane.h"
#include "device_tone.h"
#include "equalization.h"

namespace histeq::cuda {

// 16-byte chunks each thread of the single kernel keeps in registers between counting and
// mapping: enough for a whole 4K plane on an H100, so the map re-reads nothing there. More
// registers per thread cost occupancy: 2 chunks at 6 blocks per SM measured 13.5 -> 16.1 us
// (4K natural) and 17.4 -> 22.7 us (4K uniform) on the H100 (two runs of one session).
constexpr int kFusedCachedChunks = 4;

// Copies of the device bins the blocks add their counts into (block b into copy b % copies),
// summed by every block after the grid barrier. One copy puts every block's atomics on the same
// 256 addresses: leaving the merge out of the kernel saved 1.8 us at 4K uniform (507 blocks)
// and 0.3 us at 1080p natural (132 blocks) on the H100. Engine GPU time there, 1080p/4K/8K, us:
// 1 copy natural 7.33/13.2/38.5, uniform 8.02/16.5/45.5; 2 copies 7.19/13.1/38.6,
// 7.62/15.3/44.5; 4 copies 7.24/13.3/38.5, 7.60/15.5/44.5; 8 copies 7.26/13.4/38.6,
// 7.68/15.7/44.9. More copies cost the summing reads every block makes after the barrier.
constexpr int kFusedHistogramCopies = 2;

// One cooperative kernel per frame: every block counts its share of the plane (16-byte loads,
// keeping the first chunks in registers), the grid synchronizes once, every block builds the
// LUT from the device bins (their copies summed) in its own shared memory, then maps the same
// share. The plane crosses DRAM about as often as in a copy, and there is one launch instead of
// three.
struct FusedLaunch {
  int blocks = 0;  // co-resident blocks for the whole device, from fused_grid_size()
  // kFusedHistogramCopies x 256 bins each: this frame's, zero on entry, and the next frame's,
  // zeroed here.
  unsigned long long *d_histogram = nullptr;
  unsigned long long *d_next_histogram = nullptr;
  std::uint8_t *d_lut = nullptr;  // receives the LUT (for statistics)
  // Lanes holding the same flat 16 bytes count them with one atomic. Measured on the H100
  // (graph replay, x the D2D copy of the plane): constant 4K 1.44x -> 1.08x, 8K 1.29x -> 0.95x.
  // Only lanes with a flat chunk vote: a vote in every lane cost content without flat chunks
  // 2-5%, and leaving it out of them measured 1080p uniform 8.25 -> 8.05 us, natural 7.49 ->
  // 7.30 us, for constant 6.72 -> 6.85 us (two runs each, one call).
  bool warp_vote = true;
};

// The largest grid whose blocks can all be resident at once on the current device, for the
// classic mapping or (tone) the one with options.
cudaError_t fused_grid_size(int *blocks, bool tone);

// The grid for `plane`: at most `max_blocks` (fused_grid_size), as few as keep each thread's
// chunks in its registers between counting and mapping, and at least one per SM (or one per
// 256 chunks, if that is fewer). The kernel is correct with any grid from 1 to max_blocks.
// Measured on the H100 against one block per 256 chunks: 1080p 11.3 -> 8.3 us (132 blocks
// instead of 507), 720p 7.0 -> 6.1 us; 4K and 8K get about the same grid as before.
int fused_blocks_for(const DevicePlane &plane, int max_blocks, int sm_count);

// Counts `plane` and writes its mapped pixels to `out` (the same size; may be `plane`), with
// the LUT `tone` asks for (launch.blocks from fused_grid_size for the same kind of mapping).
cudaError_t launch_fused(const FusedLaunch &launch, const DevicePlane &plane,
                         const DevicePlane &out, OutputRange range, const DeviceTone &tone,
                         cudaStream_t stream);

}  // namespace histeq::cuda
