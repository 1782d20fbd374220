// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Equalizing a frame that stays in pinned host memory, with the kernels themselves reading and
// writing it over PCIe (zero-copy) instead of DMA copies on either side of the kernel. Counting
// then happens while the frame comes up and mapping while it goes down, so a frame costs its
// two transfers and the LUT, not transfers plus kernel. Two launches per frame, on one stream:
//
//   upload_and_count  reads the host plane (16-byte loads), counts it into the device bins and
//                     leaves it in a device staging plane;
//   map_to_host       builds the LUT from the bins, maps the staging plane and writes the
//                     host destination.
//
// Each launch takes about half of the blocks the device holds at once, so in a ring the next
// frame's upload_and_count can run beside this frame's map_to_host. That gains little: the SMs'
// own PCIe reads and writes reach the copy engines' speed one direction at a time but barely
// overlap with traffic the other way, whether the SMs' or a copy engine's. So FrameEngine
// copies by default and offers this as a variant for the benchmark (bench/README.md, "Engine
// design choices", has the measurements).

#include <cstdint>

#include <cuda_runtime_api.h>

#include "device_plane.h"
#include "equalization.h"

namespace histeq::cuda {

struct ZeroCopyLaunch {
  int blocks = 0;  // per launch, from zero_copy_grid_size()
  // kFusedHistogramCopies x 256 bins each, as for the single kernel: this frame's, zero on
  // entry, and the next frame's, zeroed by upload_and_count.
  unsigned long long *d_histogram = nullptr;
  unsigned long long *d_next_histogram = nullptr;
  std::uint8_t *d_lut = nullptr;  // receives the LUT (for statistics)
};

// Half the blocks of either kernel the current device holds at once (at least one per SM).
cudaError_t zero_copy_grid_size(int *blocks);

// The planes the kernels take: src and dst device pointers to mapped pinned host memory (dst may
// equal src), staging device memory; all of one width and height, all rows_in_chunks() (a
// byte-wise walk over PCIe would be far slower than DMA). cudaErrorInvalidValue otherwise.
struct ZeroCopyPlanes {
  DevicePlane src, staging, dst;
};

// upload_and_count on `stream`: once it is enqueued, launch.d_histogram holds (will hold) this
// frame's counts, whatever happens to the second launch.
cudaError_t launch_upload_and_count(const ZeroCopyLaunch &launch, const ZeroCopyPlanes &planes,
                                    cudaStream_t stream);
// map_to_host on `stream`, after launch_upload_and_count with the same launch and planes.
cudaError_t launch_map_to_host(const ZeroCopyLaunch &launch, const ZeroCopyPlanes &planes,
                               OutputRange range, cudaStream_t stream);

}  // namespace histeq::cuda
