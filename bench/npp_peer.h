// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Peer: NVIDIA NPP, as in the CUDA sample histEqualizationNPP: nppiHistogramEven_8u_C1R_Ctx,
// the histogram copied to the host, the LUT built there (with histeq's equalization, so the
// bytes match), copied back, and nppiLUT_Linear_8u_C1R_Ctx. A second form keeps the LUT on the
// device (one small kernel instead of the round trip), the best NPP can do for this job.
//
// NPP is loaded at run time with dlopen (libnppc, libnppist, libnppicc .so.13), so the
// benchmark builds where NPP is not installed and reports "NPP not available" there.

#include <cstdint>
#include <memory>
#include <string>

#include "frames.h"
#include "resources.h"

namespace bench {

struct NppApi;

class NppPeer {
 public:
  // nullptr with `why_not` filled when the libraries or a symbol are missing.
  static std::unique_ptr<NppPeer> load(std::string *why_not);
  ~NppPeer();
  NppPeer(const NppPeer &) = delete;
  NppPeer &operator=(const NppPeer &) = delete;

  std::string version() const;

  // Allocates scratch for frames of this geometry (call before run).
  void prepare(FrameSize size, std::ptrdiff_t pitch, int device);
  // The sample's flow: histogram, host LUT (synchronizes `stream`), LUT_Linear.
  void run_sample(const std::uint8_t *d_in, std::uint8_t *d_out, cudaStream_t stream);
  // Same with the LUT built on the device: no host round trip.
  void run_device_lut(const std::uint8_t *d_in, std::uint8_t *d_out, cudaStream_t stream);

 private:
  explicit NppPeer(std::unique_ptr<NppApi> api);
  void histogram(const std::uint8_t *d_in, cudaStream_t stream);
  void apply(const std::uint8_t *d_in, std::uint8_t *d_out, cudaStream_t stream);

  std::unique_ptr<NppApi> api_;
  FrameSize size_{};
  std::ptrdiff_t pitch_ = 0;
  int device_ = 0;
  int lut_levels_ = 257;
  DeviceBuffer scratch_, histogram_, values_, levels_;
  HostBuffer host_histogram_, host_values_;
};

}  // namespace bench
