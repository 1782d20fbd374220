// SPDX-License-Identifier: LGPL-2.1-or-later
#include "device_equalizer.h"

#include <cstdint>

#include "clahe.h"
#include "cuda_check.h"
#include "fused_kernel.h"
#include "histogram_kernels.h"
#include "lut_kernels.h"
#include "map_kernels.h"

namespace histeq::cuda {

namespace {

// `bytes` of device memory zeroed in `stream` order before anything enqueued after; nothing
// is left allocated on an error.
cudaError_t allocate_zeroed(std::size_t bytes, cudaStream_t stream, void **memory) {
  HISTEQ_CUDA_TRY(cudaMalloc(memory, bytes));
  const cudaError_t zeroed = cudaMemsetAsync(*memory, 0, bytes, stream);
  if (zeroed != cudaSuccess) {
    cudaFree(*memory);
    *memory = nullptr;
  }
  return zeroed;
}

}  // namespace

DeviceEqualizer::~DeviceEqualizer() {
  // Destruction cannot report; the stream using this scratch must have been synchronized.
  if (lut_texture_) cudaDestroyTextureObject(lut_texture_);
  if (owns_scratch_) cudaFree(d_histograms_[0]);
  cudaFree(deep_.d_histogram);
  cudaFree(clahe_.d_tickets);
}

cudaError_t DeviceEqualizer::init() {
  if (d_histograms_[0]) return cudaErrorInitializationError;
  void *scratch = nullptr;
  HISTEQ_CUDA_TRY(cudaMalloc(&scratch, kScratchBytes));
  const cudaError_t status = init(scratch, kScratchBytes);
  if (d_histograms_[0]) {
    owns_scratch_ = true;  // freed by the destructor from now on
  } else {
    cudaFree(scratch);
  }
  return status;
}

cudaError_t DeviceEqualizer::init(void *d_scratch, std::size_t scratch_bytes) {
  if (d_histograms_[0]) return cudaErrorInitializationError;
  if (!d_scratch || scratch_bytes < kScratchBytes ||
      reinterpret_cast<std::uintptr_t>(d_scratch) % 16 != 0)
    return cudaErrorInvalidValue;
  int device = 0;
  HISTEQ_CUDA_TRY(cudaGetDevice(&device));
  HISTEQ_CUDA_TRY(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
  HISTEQ_CUDA_TRY(size_fused_grids(PixelLayout{}));
  HISTEQ_CUDA_TRY(zero_copy_grid_size(&zero_copy_blocks_));
  // Both histograms, then the LUT. Each kernel path leaves the histogram it consumed zero again
  // (the LUT kernel after reading it; the single kernel and the zero-copy kernels through the
  // next-frame buffer), so only this first memset is needed.
  HISTEQ_CUDA_TRY(cudaMemset(d_scratch, 0, kScratchBytes));
  // The memset runs on the legacy stream, which callers' non-blocking streams do not wait for:
  // it must be done before the first frame's kernels read the bins.
  HISTEQ_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
  unsigned long long *histograms = static_cast<unsigned long long *>(d_scratch);
  std::uint8_t *lut = reinterpret_cast<std::uint8_t *>(histograms + 2 * kCountsPerHistogram);

  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = lut;
  resource.res.linear.desc = cudaCreateChannelDesc<unsigned char>();
  resource.res.linear.sizeInBytes = 256;
  cudaTextureDesc texture{};
  texture.readMode = cudaReadModeElementType;
  HISTEQ_CUDA_TRY(cudaCreateTextureObject(&lut_texture_, &resource, &texture, nullptr));
  d_histograms_[0] = histograms;
  d_histograms_[1] = histograms + kCountsPerHistogram;
  d_lut_ = lut;
  return cudaSuccess;
}

cudaError_t DeviceEqualizer::size_fused_grids(const PixelLayout &layout) {
  HISTEQ_CUDA_TRY(fused_grid_size(&fused_blocks_, false, layout));
  HISTEQ_CUDA_TRY(fused_grid_size(&fused_tone_blocks_, true, layout));
  fused_layout_ = layout;
  return cudaSuccess;
}

cudaError_t DeviceEqualizer::equalize(const DevicePlane &plane, OutputRange range,
                                      KernelConfig config, cudaStream_t stream,
                                      const DeviceTone &tone) {
  return equalize(plane, plane, range, config, stream, tone);
}

cudaError_t DeviceEqualizer::equalize(const DevicePlane &plane, const DevicePlane &out,
                                      OutputRange range, KernelConfig config, cudaStream_t stream,
                                      const DeviceTone &tone) {
  if (!d_histograms_[0]) return cudaErrorInitializationError;
  if (plane.width < 0 || plane.height < 0 || !valid_layout(plane.layout) ||
      (plane.height > 0 && plane.pitch < plane.row_bytes()))
    return cudaErrorInvalidValue;
  if (out.width != plane.width || out.height != plane.height ||
      out.layout.pixel_bytes != plane.layout.pixel_bytes ||
      (out.height > 0 && out.pitch < out.row_bytes()))
    return cudaErrorInvalidValue;
  // block_tone.cuh and the deep kernels count in 32-bit words.
  const bool deep = plane.layout.deep();
  if ((deep || !tone.classic()) && (unsigned long long)plane.width * plane.height >> 32)
    return cudaErrorInvalidValue;
  // 16-bit words start on even bytes (a misaligned word would stop the context).
  if (deep && (reinterpret_cast<std::uintptr_t>(plane.data) % 2 || plane.pitch % 2 ||
               reinterpret_cast<std::uintptr_t>(out.data) % 2 || out.pitch % 2))
    return cudaErrorInvalidValue;
  if (tone.params.mode == Mode::kClahe) {
    HISTEQ_CUDA_TRY(reserve_clahe(clahe_tile_bins(plane, tone.params), stream));
    return launch_clahe(plane, out, range, tone, clahe_, sm_count_, stream);
  }
  if (deep) {
    if (!deep_.d_histogram) {
      DeepLimits limits;
      HISTEQ_CUDA_TRY(deep_limits(&limits));
      void *scratch = nullptr;
      HISTEQ_CUDA_TRY(allocate_zeroed(DeepScratch::kBytes, stream, &scratch));
      deep_ = deep_scratch_at(scratch, limits);
    }
    return launch_deep(plane, out, range, tone, deep_, sm_count_, stream);
  }
  config = resolve(config);
  // The separate kernels and their variants walk planes of luma bytes; every other layout has
  // the single kernel.
  if (plane.layout.packing != Packing::kLuma) config.fusion = Fusion::kSingleKernel;
  unsigned long long *d_histogram = d_histograms_[current_histogram_];
  if (config.fusion == Fusion::kSingleKernel) {
    if (!same_fused_kernel(plane.layout, fused_layout_))
      HISTEQ_CUDA_TRY(size_fused_grids(plane.layout));
    FusedLaunch launch;
    launch.blocks =
        fused_blocks_for(plane, tone.classic() ? fused_blocks_ : fused_tone_blocks_, sm_count_);
    launch.d_histogram = d_histogram;
    launch.d_next_histogram = d_histograms_[1 - current_histogram_];
    launch.d_lut = d_lut_;
    HISTEQ_CUDA_TRY(launch_fused(launch, plane, out, range, tone, stream));
    current_histogram_ = 1 - current_histogram_;
    return cudaSuccess;
  }
  // Every constant-memory LUT was taken by equalizers that are still alive.
  if (config.lut == LutMemory::kConstant && constant_slot_.index() < 0)
    return cudaErrorNotSupported;
  HISTEQ_CUDA_TRY(launch_histogram(config.histogram, plane, d_histogram, sm_count_, stream));
  if (tone.classic()) {
    HISTEQ_CUDA_TRY(launch_build_lut(config.scan, d_histogram, range, d_lut_, stream));
  } else {
    const unsigned long long pixels = (unsigned long long)plane.width * plane.height;
    HISTEQ_CUDA_TRY(launch_build_tone_lut(d_histogram, pixels, range, tone, d_lut_, stream));
  }
  const LutSource lut{config.lut, d_lut_, lut_texture_, constant_slot_.index()};
  return launch_map(lut, plane, out, sm_count_, stream);
}

cudaError_t DeviceEqualizer::reserve_clahe(std::size_t tile_bins, cudaStream_t stream) {
  if (tile_bins > kMaxClaheTileBins) return cudaErrorInvalidValue;
  if (tile_bins <= clahe_.tile_bins) return cudaSuccess;
  // This equalizer's frame before may still be using the old scratch on `stream`.
  HISTEQ_CUDA_TRY(cudaStreamSynchronize(stream));
  HISTEQ_CUDA_TRY(cudaFree(clahe_.d_tickets));
  clahe_ = ClaheScratch{};
  void *memory = nullptr;
  HISTEQ_CUDA_TRY(allocate_zeroed(ClaheScratch::bytes(tile_bins), stream, &memory));
  clahe_ = clahe_scratch_at(memory, tile_bins);
  return cudaSuccess;
}

cudaError_t DeviceEqualizer::equalize_zero_copy(const ZeroCopyPlanes &planes, OutputRange range,
                                                cudaStream_t stream) {
  if (!d_histograms_[0]) return cudaErrorInitializationError;
  ZeroCopyLaunch launch;
  launch.blocks = zero_copy_blocks_;
  launch.d_histogram = d_histograms_[current_histogram_];
  launch.d_next_histogram = d_histograms_[1 - current_histogram_];
  launch.d_lut = d_lut_;
  HISTEQ_CUDA_TRY(launch_upload_and_count(launch, planes, stream));
  // The bins hold this frame's counts now, and the other ones are being zeroed: the next frame
  // counts there even if the map below fails to launch.
  current_histogram_ = 1 - current_histogram_;
  return launch_map_to_host(launch, planes, range, stream);
}

}  // namespace histeq::cuda
