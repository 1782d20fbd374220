// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Equalizes frames that the device can address (8-bit luma planes; 10, 12 and 16-bit luma in
// 16-bit words; packed YUV and RGB: device_plane.h), in place or into another plane, on a
// caller's stream:
//
//   histeq::cuda::DeviceEqualizer eq;
//   if (eq.init() != cudaSuccess) ...                   // scratch on the current device
//   eq.equalize(plane, histeq::full_range(8), {}, stream);  // enqueues, returns at once
//
//   // or on scratch the caller owns (at least kScratchBytes of device memory, 16-byte aligned,
//   // kept alive and unused by anyone else while the equalizer lives):
//   eq.init(d_scratch, histeq::cuda::DeviceEqualizer::kScratchBytes);
//
// One equalizer serves one frame at a time (its histogram and LUT are the frame's scratch);
// frames in flight on several streams each need their own (FrameEngine's slots do that). Every call
// returns the first failing CUDA call's error; nothing throws or exits.

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "clahe_kernels.h"
#include "constant_lut_slot.h"
#include "deep_kernels.h"
#include "device_plane.h"
#include "device_tone.h"
#include "equalization.h"
#include "fused_kernel.h"
#include "methods.h"
#include "zero_copy_kernels.h"

namespace histeq::cuda {

class DeviceEqualizer {
 public:
  // Device memory init() allocates: two 64-bit histograms (this frame's and, zeroed by the
  // single kernel as it runs, the next frame's), each with the single kernel's copies of the
  // bins (the separate kernels use the first), and the LUT.
  static constexpr std::size_t kCountsPerHistogram = kFusedHistogramCopies * 256;
  static constexpr std::size_t kScratchBytes =
      2 * kCountsPerHistogram * sizeof(unsigned long long) + 256;

  DeviceEqualizer() = default;
  ~DeviceEqualizer();
  DeviceEqualizer(const DeviceEqualizer &) = delete;
  DeviceEqualizer &operator=(const DeviceEqualizer &) = delete;

  // Allocates the scratch on the current device.
  cudaError_t init();
  // The same on `scratch_bytes` (>= kScratchBytes) of device memory at `d_scratch` (16-byte
  // aligned) that the caller owns and frees after this equalizer; init() zeroes it.
  cudaError_t init(void *d_scratch, std::size_t scratch_bytes);

  // Enqueues histogram -> scan + LUT -> map on `stream`, with the LUT `tone` asks for (the
  // classic one by default). Packed YUV and packed RGB take the single kernel whatever `config`
  // says, deep luma the deep kernels (deep_kernels.h: their device bins and LUT are allocated
  // with the first such frame), and in CLAHE mode (tone.params.mode) every layout takes the
  // CLAHE kernels (clahe_kernels.h: their scratch grows with the grid, at most
  // kMaxClaheTileBins tiles x bins); a layout the kernels do not walk (valid_layout) is
  // cudaErrorInvalidValue. The scan variants are the classic mapping's: with options, the
  // separate kernels build the LUT with block_tone.cuh's scan. With options, and for deep luma,
  // a frame has fewer than 2^32 pixels (cudaErrorInvalidValue otherwise).
  cudaError_t equalize(const DevicePlane &plane, OutputRange range, KernelConfig config,
                       cudaStream_t stream, const DeviceTone &tone = {});
  // The same, counting `plane` and writing the mapped pixels to `out` (the same width and
  // height, its own pitch; `plane` is left as it was unless `out` is `plane`).
  cudaError_t equalize(const DevicePlane &plane, const DevicePlane &out, OutputRange range,
                       KernelConfig config, cudaStream_t stream, const DeviceTone &tone = {});

  // Equalizes planes.src into planes.dst (may be src), both mapped pinned host memory given by
  // their device pointers, with the zero-copy kernels, through planes.staging: device memory of
  // the same width and height (zero_copy_kernels.h says what they must be).
  cudaError_t equalize_zero_copy(const ZeroCopyPlanes &planes, OutputRange range,
                                 cudaStream_t stream);

  // The LUT of the last 8-bit frame (device memory; valid once the stream reached it).
  const std::uint8_t *d_lut() const { return d_lut_; }

 private:
  // Room in clahe_ for `tile_bins` tiles x bins (at most kMaxClaheTileBins).
  cudaError_t reserve_clahe(std::size_t tile_bins, cudaStream_t stream);
  // The co-resident grids of the single kernel for the layout it ran on last.
  cudaError_t size_fused_grids(const PixelLayout &layout);

  unsigned long long *d_histograms_[2] = {nullptr, nullptr};
  int current_histogram_ = 0;  // the one that is zero now
  int fused_blocks_ = 0;
  int fused_tone_blocks_ = 0;
  PixelLayout fused_layout_;
  int zero_copy_blocks_ = 0;
  std::uint8_t *d_lut_ = nullptr;
  bool owns_scratch_ = false;
  cudaTextureObject_t lut_texture_ = 0;
  ConstantLutSlot constant_slot_;  // for the constant-LUT variant
  DeepScratch deep_;               // allocated with the first deep frame
  ClaheScratch clahe_;             // allocated with the first CLAHE frame, grown with the grid
  int sm_count_ = 1;
};

}  // namespace histeq::cuda
