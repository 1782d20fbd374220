// SPDX-License-Identifier: LGPL-2.1-or-later
#include "device_equalizer.h"

#include "cuda_check.h"
#include "histogram_kernels.h"
#include "lut_kernels.h"
#include "map_kernels.h"

namespace histeq::cuda {

DeviceEqualizer::~DeviceEqualizer() {
  // Destruction cannot report; the stream using this scratch must have been synchronized.
  if (lut_texture_) cudaDestroyTextureObject(lut_texture_);
  cudaFree(d_histogram_);
}

cudaError_t DeviceEqualizer::init(int constant_slot) {
  if (d_histogram_) return cudaErrorInitializationError;
  if (constant_slot < 0 || constant_slot >= kConstantLutSlots) return cudaErrorInvalidValue;
  constant_slot_ = constant_slot;
  int device = 0;
  HISTEQ_CUDA_TRY(cudaGetDevice(&device));
  HISTEQ_CUDA_TRY(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
  // One allocation: the histogram, then the LUT. The LUT kernel zeroes the histogram after
  // reading it, so only the first frame needs this memset.
  void *scratch = nullptr;
  HISTEQ_CUDA_TRY(cudaMalloc(&scratch, kScratchBytes));
  d_histogram_ = static_cast<unsigned long long *>(scratch);
  d_lut_ = reinterpret_cast<std::uint8_t *>(d_histogram_ + 256);
  HISTEQ_CUDA_TRY(cudaMemset(scratch, 0, kScratchBytes));

  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = d_lut_;
  resource.res.linear.desc = cudaCreateChannelDesc<unsigned char>();
  resource.res.linear.sizeInBytes = 256;
  cudaTextureDesc texture{};
  texture.readMode = cudaReadModeElementType;
  HISTEQ_CUDA_TRY(cudaCreateTextureObject(&lut_texture_, &resource, &texture, nullptr));
  return cudaSuccess;
}

cudaError_t DeviceEqualizer::equalize(const DevicePlane &plane, OutputRange range,
                                      KernelConfig config, cudaStream_t stream) {
  if (!d_histogram_) return cudaErrorInitializationError;
  if (plane.width < 0 || plane.height < 0 ||
      (plane.height > 0 && plane.pitch < std::size_t(plane.width)))
    return cudaErrorInvalidValue;
  config = resolve(config);
  HISTEQ_CUDA_TRY(launch_histogram(config.histogram, plane, d_histogram_, sm_count_, stream));
  HISTEQ_CUDA_TRY(launch_build_lut(config.scan, d_histogram_, range, d_lut_, stream));
  const LutSource lut{config.lut, d_lut_, lut_texture_, constant_slot_};
  return launch_map(lut, plane, sm_count_, stream);
}

}  // namespace histeq::cuda
