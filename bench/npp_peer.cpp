// SPDX-License-Identifier: LGPL-2.1-or-later
#include "npp_peer.h"

#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <vector>

#include "equalization.h"
#include "lut_kernels.h"

namespace bench {

namespace {

// The few NPP declarations the peer needs (nppdefs.h, CUDA 13.0), declared here because the
// development machine has no NPP headers.
using NppStatus = int;  // NPP_NO_ERROR == 0; negative errors, positive warnings
struct NppiSize {
  int width;
  int height;
};
struct NppLibraryVersion {
  int major;
  int minor;
  int build;
};
struct NppStreamContext {
  cudaStream_t hStream;
  int nCudaDeviceId;
  int nMultiProcessorCount;
  int nMaxThreadsPerMultiProcessor;
  int nMaxThreadsPerBlock;
  std::size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor;
  int nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
};

using GetLibVersion = const NppLibraryVersion *(*)();
// The size is a size_t since CUDA 12 (an int before); the caller zero-fills it either way.
using HistogramEvenGetBufferSize = NppStatus (*)(NppiSize, int, std::size_t *, NppStreamContext);
using HistogramEven = NppStatus (*)(const std::uint8_t *, int, NppiSize, std::int32_t *, int,
                                    std::int32_t, std::int32_t, std::uint8_t *, NppStreamContext);
using LutLinear = NppStatus (*)(const std::uint8_t *, int, std::uint8_t *, int, NppiSize,
                                const std::int32_t *, const std::int32_t *, int, NppStreamContext);

// 257 levels 0..256: 256 bins of width 1, and a LUT whose every pixel value sits exactly on a
// level, so the linear interpolation returns the table entry unchanged.
constexpr int kLevels = 257;

void *open_first(std::initializer_list<const char *> names, std::string *tried) {
  for (const char *name : names) {
    if (void *h = dlopen(name, RTLD_NOW | RTLD_GLOBAL)) return h;
    *tried += std::string(" ") + name;
  }
  return nullptr;
}

void check_npp(NppStatus status, const char *call) {
  if (status != 0)
    throw Failure(std::string(call) + " returned NppStatus " + std::to_string(status));
}

}  // namespace

struct NppApi {
  std::array<void *, 3> handles{};
  GetLibVersion get_lib_version = nullptr;
  HistogramEvenGetBufferSize buffer_size = nullptr;
  HistogramEven histogram_even = nullptr;
  LutLinear lut_linear = nullptr;
  NppStreamContext context{};
  // The flags of the last stream seen (see context_for).
  bool has_flags = false;
  cudaStream_t flags_stream = nullptr;
  unsigned flags = 0;

  ~NppApi() {
    for (void *h : handles) {
      if (h) dlclose(h);
    }
  }
};

std::unique_ptr<NppPeer> NppPeer::load(std::string *why_not) {
  auto api = std::make_unique<NppApi>();
  std::string tried;
  api->handles[0] =
      open_first({"libnppc.so.13", "/usr/local/cuda/lib64/libnppc.so.13", "libnppc.so"}, &tried);
  api->handles[1] = open_first(
      {"libnppist.so.13", "/usr/local/cuda/lib64/libnppist.so.13", "libnppist.so"}, &tried);
  api->handles[2] = open_first(
      {"libnppicc.so.13", "/usr/local/cuda/lib64/libnppicc.so.13", "libnppicc.so"}, &tried);
  for (void *h : api->handles) {
    if (!h) {
      *why_not = "cannot dlopen" + tried;
      return nullptr;
    }
  }
  api->get_lib_version =
      reinterpret_cast<GetLibVersion>(dlsym(api->handles[0], "nppGetLibVersion"));
  api->buffer_size = reinterpret_cast<HistogramEvenGetBufferSize>(
      dlsym(api->handles[1], "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx"));
  api->histogram_even =
      reinterpret_cast<HistogramEven>(dlsym(api->handles[1], "nppiHistogramEven_8u_C1R_Ctx"));
  api->lut_linear =
      reinterpret_cast<LutLinear>(dlsym(api->handles[2], "nppiLUT_Linear_8u_C1R_Ctx"));
  if (!api->get_lib_version || !api->buffer_size || !api->histogram_even || !api->lut_linear) {
    *why_not = "NPP libraries lack a needed _Ctx symbol";
    return nullptr;
  }
  return std::unique_ptr<NppPeer>(new NppPeer(std::move(api)));
}

NppPeer::NppPeer(std::unique_ptr<NppApi> api) : api_(std::move(api)) {}
NppPeer::~NppPeer() = default;

std::string NppPeer::version() const {
  const NppLibraryVersion *v = api_->get_lib_version();
  if (!v) return "?";
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->build);
}

void NppPeer::prepare(FrameSize size, std::ptrdiff_t pitch, int device) {
  size_ = size;
  pitch_ = pitch;
  device_ = device;
  NppStreamContext &c = api_->context;
  cudaDeviceProp prop{};
  BENCH_CUDA(cudaGetDeviceProperties(&prop, device));
  c.nCudaDeviceId = device;
  c.nMultiProcessorCount = prop.multiProcessorCount;
  c.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  c.nSharedMemPerBlock = prop.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = prop.major;
  c.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  std::size_t bytes = 0;
  check_npp(api_->buffer_size({size.width, size.height}, kLevels, &bytes, c),
            "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx");
  scratch_ = device_buffer(bytes > 0 ? bytes : 1);
  histogram_ = device_buffer(256 * sizeof(std::int32_t));
  values_ = device_buffer(kLevels * sizeof(std::int32_t));
  levels_ = device_buffer(kLevels * sizeof(std::int32_t));
  host_histogram_ = host_buffer(256 * sizeof(std::int32_t));
  host_values_ = host_buffer(kLevels * sizeof(std::int32_t));
  std::vector<std::int32_t> levels(kLevels);
  for (int i = 0; i < kLevels; ++i) levels[std::size_t(i)] = i;
  BENCH_CUDA(cudaMemcpy(levels_.get(), levels.data(), kLevels * sizeof(std::int32_t),
                        cudaMemcpyHostToDevice));
  // Entry 256 only closes the last interval: pixel 255 sits on level 255 and gets entry 255.
  const std::int32_t top = 255;
  BENCH_CUDA(
      cudaMemcpy(values_.as<std::int32_t>() + 256, &top, sizeof(top), cudaMemcpyHostToDevice));
}

namespace {

// cudaStreamGetFlags is not allowed while the stream is being captured into a graph: the
// flags are looked up once per stream, outside capture (each stream is verified, uncaptured,
// before it is timed).
NppStreamContext context_for(NppApi &api, cudaStream_t stream) {
  if (!api.has_flags || stream != api.flags_stream) {
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    BENCH_CUDA(cudaStreamIsCapturing(stream, &capturing));
    if (capturing != cudaStreamCaptureStatusNone)
      throw Failure("NPP: stream flags unknown for a stream first seen while capturing");
    BENCH_CUDA(cudaStreamGetFlags(stream, &api.flags));
    api.flags_stream = stream;
    api.has_flags = true;
  }
  NppStreamContext c = api.context;
  c.hStream = stream;
  c.nStreamFlags = api.flags;
  return c;
}

}  // namespace

void NppPeer::histogram(const std::uint8_t *d_in, cudaStream_t stream) {
  const NppStreamContext c = context_for(*api_, stream);
  check_npp(api_->histogram_even(d_in, int(pitch_), {size_.width, size_.height},
                                 histogram_.as<std::int32_t>(), kLevels, 0, 256, scratch_.get(), c),
            "nppiHistogramEven_8u_C1R_Ctx");
}

void NppPeer::apply(const std::uint8_t *d_in, std::uint8_t *d_out, cudaStream_t stream) {
  const NppStreamContext c = context_for(*api_, stream);
  // 257 levels put every value on a level; should NPP refuse more than 256, the sample's 256
  // levels (0..255) are used from then on (value 255 then sits on the last level).
  NppStatus status =
      api_->lut_linear(d_in, int(pitch_), d_out, int(pitch_), {size_.width, size_.height},
                       values_.as<std::int32_t>(), levels_.as<std::int32_t>(), lut_levels_, c);
  if (status != 0 && lut_levels_ == kLevels) {
    lut_levels_ = kLevels - 1;
    std::fprintf(stderr, "NPP: nppiLUT_Linear_8u_C1R_Ctx refused %d levels (status %d); using %d\n",
                 kLevels, status, lut_levels_);
    status =
        api_->lut_linear(d_in, int(pitch_), d_out, int(pitch_), {size_.width, size_.height},
                         values_.as<std::int32_t>(), levels_.as<std::int32_t>(), lut_levels_, c);
  }
  check_npp(status, "nppiLUT_Linear_8u_C1R_Ctx");
}

void NppPeer::run_sample(const std::uint8_t *d_in, std::uint8_t *d_out, cudaStream_t stream) {
  histogram(d_in, stream);
  BENCH_CUDA(cudaMemcpyAsync(host_histogram_.get(), histogram_.get(), 256 * sizeof(std::int32_t),
                             cudaMemcpyDeviceToHost, stream));
  BENCH_CUDA(cudaStreamSynchronize(stream));
  std::array<std::uint64_t, 256> counts{};
  const std::int32_t *h = host_histogram_.as<std::int32_t>();
  for (int v = 0; v < 256; ++v) counts[std::size_t(v)] = std::uint64_t(std::uint32_t(h[v]));
  std::int32_t *lut = host_values_.as<std::int32_t>();
  histeq::build_equalization_lut(counts.data(), 256, histeq::full_range(8), lut);
  lut[256] = lut[255];
  BENCH_CUDA(cudaMemcpyAsync(values_.get(), lut, kLevels * sizeof(std::int32_t),
                             cudaMemcpyHostToDevice, stream));
  apply(d_in, d_out, stream);
}

void NppPeer::run_device_lut(const std::uint8_t *d_in, std::uint8_t *d_out, cudaStream_t stream) {
  histogram(d_in, stream);
  enqueue_build_lut(reinterpret_cast<const unsigned *>(histogram_.get()), size_.pixels(),
                    histeq::full_range(8), values_.as<std::int32_t>(), stream);
  apply(d_in, d_out, stream);
}

}  // namespace bench
