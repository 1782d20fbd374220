// SPDX-License-Identifier: LGPL-2.1-or-later
#include "stream_ring.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "cuda_check.h"
#include "device_equalizer.h"
#include "pinned_memory.h"

namespace histeq::cuda {

namespace {

// A pinned host buffer that grows to the largest frame seen, for staging pageable frames.
struct PinnedStage {
  void *h_data = nullptr;
  std::size_t bytes = 0;

  ~PinnedStage() { free_pinned(h_data); }
  cudaError_t reserve(std::size_t needed) {
    if (needed <= bytes) return cudaSuccess;
    HISTEQ_CUDA_TRY(free_pinned(h_data));
    h_data = nullptr;
    bytes = 0;
    HISTEQ_CUDA_TRY(allocate_pinned(needed, &h_data));
    bytes = needed;
    return cudaSuccess;
  }
  std::uint8_t *data() const { return static_cast<std::uint8_t *>(h_data); }
};

void copy_rows(std::uint8_t *dst, std::size_t dst_pitch, const std::uint8_t *src,
               std::size_t src_pitch, int width, int height) {
  for (int y = 0; y < height; ++y)
    std::memcpy(dst + y * dst_pitch, src + y * src_pitch, std::size_t(width));
}

// Rows [first, first + count) of band k of n: proportional, so every band has rows when n <=
// height.
struct Band {
  int first, count;
  Band(int height, int k, int n)
      : first(int(std::int64_t(height) * k / n)),
        count(int(std::int64_t(height) * (k + 1) / n) - first) {}
};

}  // namespace

int row_bands(int width, int height) {
  const std::size_t bytes = std::size_t(std::max(width, 0)) * std::size_t(std::max(height, 0));
  const std::size_t bands = bytes / StreamRing::kMinBandBytes;
  return int(
      std::clamp<std::size_t>(bands, 1, std::min(StreamRing::kMaxBands, std::max(height, 1))));
}

struct StreamRing::Slot {
  cudaStream_t stream = nullptr;    // kernels; the whole frame when it is not banded
  cudaStream_t upload = nullptr;    // a banded frame's uploads
  cudaStream_t download = nullptr;  // a banded frame's downloads
  cudaEvent_t done = nullptr;
  std::array<cudaEvent_t, kMaxBands> uploaded{};
  std::array<cudaEvent_t, kMaxBands> mapped{};
  DeviceEqualizer equalizer;
  std::uint8_t *d_plane = nullptr;
  std::size_t d_pitch = 0;
  int d_width = 0;
  int d_height = 0;
  PinnedStage stage_in;
  PinnedStage stage_out;
  HostFrame frame;
  bool staged_out = false;

  std::array<cudaStream_t, 3> streams() const { return {stream, upload, download}; }

  cudaError_t create() {
    for (cudaStream_t *s : {&stream, &upload, &download})
      HISTEQ_CUDA_TRY(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    HISTEQ_CUDA_TRY(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    for (int k = 0; k < kMaxBands; ++k) {
      HISTEQ_CUDA_TRY(cudaEventCreateWithFlags(&uploaded[k], cudaEventDisableTiming));
      HISTEQ_CUDA_TRY(cudaEventCreateWithFlags(&mapped[k], cudaEventDisableTiming));
    }
    return cudaSuccess;
  }

  cudaError_t synchronize() const {
    cudaError_t first_error = cudaSuccess;
    for (cudaStream_t s : streams()) {
      const cudaError_t status = s ? cudaStreamSynchronize(s) : cudaSuccess;
      if (first_error == cudaSuccess) first_error = status;
    }
    return first_error;
  }

  ~Slot() {
    synchronize();
    cudaFree(d_plane);
    for (cudaEvent_t e : uploaded)
      if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : mapped)
      if (e) cudaEventDestroy(e);
    if (done) cudaEventDestroy(done);
    for (cudaStream_t s : streams())
      if (s) cudaStreamDestroy(s);
  }
};

StreamRing::StreamRing() = default;

StreamRing::~StreamRing() {
  discard();
}

cudaError_t StreamRing::init(int depth, KernelConfig config) {
  if (!slots_.empty()) return cudaErrorInitializationError;
  if (depth < 1 || depth > kMaxDepth) return cudaErrorInvalidValue;
  config_ = config;
  for (int i = 0; i < depth; ++i) {
    auto slot = std::make_unique<Slot>();
    HISTEQ_CUDA_TRY(slot->create());
    HISTEQ_CUDA_TRY(slot->equalizer.init(i));
    slots_.push_back(std::move(slot));
  }
  return cudaSuccess;
}

// Grows the slot's device plane to the frame; the slot is idle, so freeing is safe.
cudaError_t StreamRing::prepare(Slot &slot, const HostFrame &frame) {
  if (frame.width > slot.d_width || frame.height > slot.d_height) {
    HISTEQ_CUDA_TRY(cudaFree(slot.d_plane));
    slot.d_plane = nullptr;
    slot.d_width = slot.d_height = 0;
    HISTEQ_CUDA_TRY(cudaMallocPitch(reinterpret_cast<void **>(&slot.d_plane), &slot.d_pitch,
                                    std::size_t(frame.width), std::size_t(frame.height)));
    slot.d_width = frame.width;
    slot.d_height = frame.height;
  }
  return cudaSuccess;
}

cudaError_t StreamRing::submit(const HostFrame &frame) {
  if (slots_.empty()) return cudaErrorInitializationError;
  if (full()) return cudaErrorNotReady;
  if (frame.width < 0 || frame.height < 0 || !frame.src || !frame.dst ||
      frame.src_pitch < std::size_t(frame.width) || frame.dst_pitch < std::size_t(frame.width))
    return cudaErrorInvalidValue;
  Slot &slot = *slots_[next_];
  HISTEQ_CUDA_TRY(prepare(slot, frame));
  const std::size_t width = std::size_t(frame.width);
  const std::size_t height = std::size_t(frame.height);

  const bool stage_in = !is_pinned(frame.src);
  if (stage_in) HISTEQ_CUDA_TRY(slot.stage_in.reserve(width * height));
  slot.staged_out = !is_pinned(frame.dst);
  std::uint8_t *download = frame.dst;
  std::size_t download_pitch = frame.dst_pitch;
  if (slot.staged_out) {
    HISTEQ_CUDA_TRY(slot.stage_out.reserve(width * height));
    download = slot.stage_out.data();
    download_pitch = width;
  }

  const int bands =
      config_.fusion == Fusion::kSingleKernel ? 1 : row_bands(frame.width, frame.height);
  if (bands > 1) {
    HISTEQ_CUDA_TRY(enqueue_banded(slot, frame, bands, stage_in, download, download_pitch));
  } else {
    const std::uint8_t *upload = frame.src;
    std::size_t upload_pitch = frame.src_pitch;
    if (stage_in) {
      copy_rows(slot.stage_in.data(), width, frame.src, frame.src_pitch, frame.width, frame.height);
      upload = slot.stage_in.data();
      upload_pitch = width;
    }
    HISTEQ_CUDA_TRY(enqueue_whole(slot, frame, upload, upload_pitch, download, download_pitch));
  }
  slot.frame = frame;
  next_ = (next_ + 1) % depth();
  ++in_flight_;
  return cudaSuccess;
}

// Upload, equalize and download on the slot's one stream.
cudaError_t StreamRing::enqueue_whole(Slot &slot, const HostFrame &frame,
                                      const std::uint8_t *upload, std::size_t upload_pitch,
                                      std::uint8_t *download, std::size_t download_pitch) {
  const std::size_t width = std::size_t(frame.width);
  const std::size_t height = std::size_t(frame.height);
  if (width && height) {
    HISTEQ_CUDA_TRY(cudaMemcpy2DAsync(slot.d_plane, slot.d_pitch, upload, upload_pitch, width,
                                      height, cudaMemcpyHostToDevice, slot.stream));
  }
  const DevicePlane plane{slot.d_plane, frame.width, frame.height, slot.d_pitch};
  HISTEQ_CUDA_TRY(slot.equalizer.equalize(plane, frame.range, config_, slot.stream));
  if (width && height) {
    HISTEQ_CUDA_TRY(cudaMemcpy2DAsync(download, download_pitch, slot.d_plane, slot.d_pitch, width,
                                      height, cudaMemcpyDeviceToHost, slot.stream));
  }
  return cudaEventRecord(slot.done, slot.stream);
}

// Band k: upload (upload stream) -> count (kernel stream); then the LUT; then band k: map
// (kernel stream) -> download (download stream). A pageable source is staged band by band, so
// the CPU copies band k+1 while band k crosses PCIe.
cudaError_t StreamRing::enqueue_banded(Slot &slot, const HostFrame &frame, int bands, bool stage_in,
                                       std::uint8_t *download, std::size_t download_pitch) {
  const std::size_t width = std::size_t(frame.width);
  auto band_plane = [&](const Band &band) {
    return DevicePlane{slot.d_plane + std::size_t(band.first) * slot.d_pitch, frame.width,
                       band.count, slot.d_pitch};
  };
  for (int k = 0; k < bands; ++k) {
    const Band band(frame.height, k, bands);
    const std::uint8_t *upload = frame.src + std::size_t(band.first) * frame.src_pitch;
    std::size_t upload_pitch = frame.src_pitch;
    if (stage_in) {
      std::uint8_t *staged = slot.stage_in.data() + std::size_t(band.first) * width;
      copy_rows(staged, width, upload, frame.src_pitch, frame.width, band.count);
      upload = staged;
      upload_pitch = width;
    }
    HISTEQ_CUDA_TRY(cudaMemcpy2DAsync(band_plane(band).data, slot.d_pitch, upload, upload_pitch,
                                      width, std::size_t(band.count), cudaMemcpyHostToDevice,
                                      slot.upload));
    HISTEQ_CUDA_TRY(cudaEventRecord(slot.uploaded[k], slot.upload));
    HISTEQ_CUDA_TRY(cudaStreamWaitEvent(slot.stream, slot.uploaded[k], 0));
    HISTEQ_CUDA_TRY(slot.equalizer.count(band_plane(band), config_, slot.stream));
  }
  HISTEQ_CUDA_TRY(slot.equalizer.build_lut(frame.range, config_, slot.stream));
  for (int k = 0; k < bands; ++k) {
    const Band band(frame.height, k, bands);
    HISTEQ_CUDA_TRY(slot.equalizer.map(band_plane(band), config_, slot.stream));
    HISTEQ_CUDA_TRY(cudaEventRecord(slot.mapped[k], slot.stream));
    HISTEQ_CUDA_TRY(cudaStreamWaitEvent(slot.download, slot.mapped[k], 0));
    HISTEQ_CUDA_TRY(cudaMemcpy2DAsync(
        download + std::size_t(band.first) * download_pitch, download_pitch, band_plane(band).data,
        slot.d_pitch, width, std::size_t(band.count), cudaMemcpyDeviceToHost, slot.download));
  }
  return cudaEventRecord(slot.done, slot.download);
}

cudaError_t StreamRing::wait(std::uint64_t *tag) {
  if (in_flight_ == 0) return cudaErrorNotReady;
  Slot &slot = *slots_[(next_ - in_flight_ + depth()) % depth()];
  --in_flight_;
  HISTEQ_CUDA_TRY(cudaEventSynchronize(slot.done));
  const HostFrame &frame = slot.frame;
  if (slot.staged_out) {
    copy_rows(frame.dst, frame.dst_pitch, slot.stage_out.data(), std::size_t(frame.width),
              frame.width, frame.height);
  }
  if (tag) *tag = frame.tag;
  return cudaSuccess;
}

cudaError_t StreamRing::discard() {
  cudaError_t first_error = cudaSuccess;
  for (auto &slot : slots_) {
    const cudaError_t status = slot->synchronize();
    if (first_error == cudaSuccess) first_error = status;
  }
  in_flight_ = 0;
  return first_error;
}

}  // namespace histeq::cuda
