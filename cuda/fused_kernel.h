// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "device_plane.h"
#include "device_tone.h"
#include "equalization.h"

namespace histeq::cuda {

// 16-byte chunks each thread of the single kernel keeps in registers between counting and
// mapping: enough for a whole 4K plane on an H100, so the map re-reads nothing there. Fewer
// chunks re-read the plane at 4K, more cost occupancy (bench/README.md, "Engine design
// choices").
constexpr int kFusedCachedChunks = 4;

// The chunks a thread keeps when a layout's chunk is `vectors` 16-byte vectors (packed 3-byte
// RGB: 3): about the same registers as kFusedCachedChunks single vectors.
HISTEQ_HOST_DEVICE constexpr int fused_cached_chunks(int vectors) {
  return kFusedCachedChunks / vectors > 0 ? kFusedCachedChunks / vectors : 1;
}

// Chunks past the cached ones that a thread loads before it counts or maps any of them, so that
// their loads overlap: packed pixels, whose 4K frames are several times what the registers keep,
// four vectors' worth; luma planes one at a time, since the registers more would take cost the
// occupancy that keeps a whole 4K plane on chip (bench/README.md, "Engine design choices").
HISTEQ_HOST_DEVICE constexpr int fused_streamed_chunks(int vectors, bool luma) {
  return luma || 4 / vectors == 0 ? 1 : 4 / vectors;
}

// Copies of the device bins the blocks add their counts into (block b into copy b % copies),
// summed by every block after the grid barrier. One copy puts every block's atomics on the same
// 256 addresses; more copies cost the summing reads every block makes after the barrier. Two
// measured fastest (bench/README.md, "Engine design choices").
constexpr int kFusedHistogramCopies = 2;

// One cooperative kernel per frame: every block counts its share of the plane (16-byte loads of
// whole pixels of its PixelLayout, keeping the first chunks in registers), the grid
// synchronizes once, every block builds the LUT from the device bins (their copies summed) in
// its own shared memory, then maps the same share. The plane crosses DRAM about as often as in a
// copy, and there is one launch instead of three.
struct FusedLaunch {
  int blocks = 0;  // co-resident blocks for the whole device, from fused_grid_size()
  // kFusedHistogramCopies x 256 bins each: this frame's, zero on entry, and the next frame's,
  // zeroed here.
  unsigned long long *d_histogram = nullptr;
  unsigned long long *d_next_histogram = nullptr;
  std::uint8_t *d_lut = nullptr;  // receives the LUT (for statistics)
  // Lanes holding the same flat 16 bytes count them with one atomic, so a constant frame does
  // not serialize on one bin. Only lanes with a flat chunk vote: a vote in every lane costs
  // content without flat chunks (bench/README.md, "Engine design choices").
  bool warp_vote = true;
};

// The largest grid whose blocks can all be resident at once on the current device, for the
// classic mapping or (tone) the one with options, on pixels of `layout` (the luma planes' by
// default).
cudaError_t fused_grid_size(int *blocks, bool tone, const PixelLayout &layout = {});

// Whether the single kernel for pixels of layout `a` is the one for `b` (their grid sizes agree).
bool same_fused_kernel(const PixelLayout &a, const PixelLayout &b);

// The grid for `plane`: at most `max_blocks` (fused_grid_size), as few as keep each thread's
// chunks in its registers between counting and mapping, and at least one per SM (or one per
// 256 chunks, if that is fewer). The kernel is correct with any grid from 1 to max_blocks.
// Fewer, fuller blocks beat one block per 256 chunks at 720p and 1080p (bench/README.md).
int fused_blocks_for(const DevicePlane &plane, int max_blocks, int sm_count);

// Counts `plane` and writes its mapped pixels to `out` (the same size; may be `plane`), with
// the LUT `tone` asks for (launch.blocks from fused_grid_size for the same kind of mapping).
cudaError_t launch_fused(const FusedLaunch &launch, const DevicePlane &plane,
                         const DevicePlane &out, OutputRange range, const DeviceTone &tone,
                         cudaStream_t stream);

}  // namespace histeq::cuda
