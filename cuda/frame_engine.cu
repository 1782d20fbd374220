// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_engine.h"

#include <cstring>

#include "cuda_check.h"
#include "device_equalizer.h"
#include "pinned_memory.h"
#include "zero_copy_kernels.h"

namespace histeq::cuda {

namespace {

// A pinned host buffer that grows to the largest frame seen, for staging pageable frames.
struct PinnedStage {
  void *h_data = nullptr;
  void *d_data = nullptr;  // the same memory as the kernels address it
  std::size_t bytes = 0;

  ~PinnedStage() { free_pinned(h_data); }
  cudaError_t reserve(std::size_t needed) {
    if (needed <= bytes) return cudaSuccess;
    HISTEQ_CUDA_TRY(free_pinned(h_data));
    h_data = d_data = nullptr;
    bytes = 0;
    HISTEQ_CUDA_TRY(allocate_pinned(needed, &h_data));
    bytes = needed;
    // Unmapped, the stage still serves the copy engines.
    if (cudaHostGetDevicePointer(&d_data, h_data, 0) != cudaSuccess) {
      cudaGetLastError();
      d_data = nullptr;
    }
    return cudaSuccess;
  }
  std::uint8_t *data() const { return static_cast<std::uint8_t *>(h_data); }
};

// Where a frame's plane is read from or written to on the host: the frame's own memory when
// pinned, else the frame's stage; `d_data` is that memory as the kernels address it (nullptr
// where it is not mapped). One type for both directions: the upload's is only ever read.
struct HostPlane {
  std::uint8_t *h_data = nullptr;
  std::size_t pitch = 0;
  void *d_data = nullptr;
};

// The device's view of a whole host plane of `height` rows of `row_bytes`: `plane.d_data` when
// the plane is mapped pinned memory from its first byte to its last (one running past a
// registered range must not reach the kernels), else nullptr.
void *mapped_plane(const HostPlane &plane, std::size_t row_bytes, int height) {
  if (!plane.d_data || row_bytes == 0 || height == 0) return plane.d_data;
  const std::size_t last = plane.pitch * std::size_t(height - 1) + row_bytes - 1;
  const PinnedView end = pinned_view(plane.h_data + last);
  return end.device == static_cast<std::uint8_t *>(plane.d_data) + last ? plane.d_data : nullptr;
}

// A plane between host and device: one linear copy when both sides are packed rows, else a copy
// of `height` rows (a destination's padding may hold a caller's bytes, so it is never written).
cudaError_t copy_plane_async(void *dst, std::size_t dst_pitch, const void *src,
                             std::size_t src_pitch, std::size_t width, std::size_t height,
                             cudaMemcpyKind kind, cudaStream_t stream) {
  if (width == 0 || height == 0) return cudaSuccess;
  if (dst_pitch == width && src_pitch == width)
    return cudaMemcpyAsync(dst, src, width * height, kind, stream);
  return cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, height, kind, stream);
}

// Rows padded to the kernels' 16-byte chunk (rows_in_chunks).
std::size_t chunked_pitch(std::size_t row_bytes) {
  return (row_bytes + 15) / 16 * 16;
}

void copy_rows(std::uint8_t *dst, std::size_t dst_pitch, const std::uint8_t *src,
               std::size_t src_pitch, std::size_t row_bytes, int height) {
  for (int y = 0; y < height; ++y) std::memcpy(dst + y * dst_pitch, src + y * src_pitch, row_bytes);
}

}  // namespace

// A slot: the device side of every frame queued to it. Double-buffered: `stream` uploads a host
// frame into d_in and equalizes it into d_out, `down_stream` downloads d_out once `mapped`
// says it is written; the next frame's upload into d_in then runs beside that download, and its
// kernel waits for `downloaded` before it writes d_out again. A device frame touches neither
// plane: it is equalized in place on `stream`, in its turn behind the slot's frame before.
struct FrameEngine::Slot {
  cudaStream_t stream = nullptr;
  cudaStream_t down_stream = nullptr;
  cudaEvent_t mapped = nullptr;
  cudaEvent_t downloaded = nullptr;
  DeviceEqualizer equalizer;
  std::uint8_t *d_in = nullptr;
  std::uint8_t *d_out = nullptr;
  std::size_t pitch = 0;  // of both planes
  std::size_t d_row_bytes = 0;
  int d_height = 0;

  cudaError_t synchronize() {
    HISTEQ_CUDA_TRY(cudaStreamSynchronize(stream));
    return cudaStreamSynchronize(down_stream);
  }
  ~Slot() {
    if (stream && down_stream) synchronize();
    cudaFree(d_in);
    cudaFree(d_out);
    if (mapped) cudaEventDestroy(mapped);
    if (downloaded) cudaEventDestroy(downloaded);
    if (stream) cudaStreamDestroy(stream);
    if (down_stream) cudaStreamDestroy(down_stream);
  }
};

// One frame between submit() and wait(), of either path: its end on the GPU, its report (each
// queued frame has its own, so a slot's next frame never waits for the report of the one
// before) and a host frame's stages.
struct FrameEngine::Queued {
  cudaEvent_t done = nullptr;
  unsigned long long *d_report = nullptr;  // report_words(report_capacity) words
  unsigned long long *h_report = nullptr;  // pinned, as many
  int report_capacity = 0;                 // levels
  int levels = 0;                          // of the frame
  bool reported = false;                   // the frame keeps the history: h_report is its report
  std::uint64_t tag = 0;
  PinnedStage stage_in;
  PinnedStage stage_out;
  HostFrame staged;  // a host frame whose output comes back through stage_out (staged_out)
  bool staged_out = false;
  std::size_t stage_pitch = 0;  // of the frame's stages

  ~Queued() {
    if (done) {
      cudaEventSynchronize(done);
      cudaEventDestroy(done);
    }
    cudaFree(d_report);
    free_pinned(h_report);
  }
  // Room for the report of a frame of `frame_levels` levels; the queued frame is not in flight.
  cudaError_t reserve_report(int frame_levels) {
    levels = frame_levels;
    if (frame_levels <= report_capacity) return cudaSuccess;
    HISTEQ_CUDA_TRY(cudaFree(d_report));
    HISTEQ_CUDA_TRY(free_pinned(h_report));
    d_report = h_report = nullptr;
    report_capacity = 0;
    const std::size_t bytes = report_words(frame_levels) * sizeof(*d_report);
    HISTEQ_CUDA_TRY(cudaMalloc(reinterpret_cast<void **>(&d_report), bytes));
    HISTEQ_CUDA_TRY(allocate_pinned(bytes, reinterpret_cast<void **>(&h_report)));
    report_capacity = frame_levels;
    return cudaSuccess;
  }
  std::size_t report_bytes() const { return report_words(levels) * sizeof(*h_report); }
};

FrameEngine::FrameEngine() = default;

FrameEngine::~FrameEngine() {
  discard();
}

cudaError_t FrameEngine::init(int depth, KernelConfig config, Transfer transfer) {
  if (!slots_.empty()) return cudaErrorInitializationError;
  if (depth < 1 || depth > kMaxDepth) return cudaErrorInvalidValue;
  if (transfer == Transfer::kZeroCopy && resolve(config).fusion != Fusion::kSingleKernel)
    return cudaErrorInvalidValue;
  config_ = config;
  zero_copy_ = transfer == Transfer::kZeroCopy;
  faults_ = fault_plan_from_environment();
  submitted_ = 0;
  for (int i = 0; i < depth; ++i) {
    auto slot = std::make_unique<Slot>();
    HISTEQ_CUDA_TRY(cudaStreamCreateWithFlags(&slot->stream, cudaStreamNonBlocking));
    HISTEQ_CUDA_TRY(cudaStreamCreateWithFlags(&slot->down_stream, cudaStreamNonBlocking));
    HISTEQ_CUDA_TRY(cudaEventCreateWithFlags(&slot->mapped, cudaEventDisableTiming));
    HISTEQ_CUDA_TRY(cudaEventCreateWithFlags(&slot->downloaded, cudaEventDisableTiming));
    HISTEQ_CUDA_TRY(slot->equalizer.init());
    slots_.push_back(std::move(slot));
  }
  for (int i = 0; i < 2 * depth; ++i) {
    auto queued = std::make_unique<Queued>();
    HISTEQ_CUDA_TRY(cudaEventCreateWithFlags(&queued->done, cudaEventDisableTiming));
    HISTEQ_CUDA_TRY(queued->reserve_report(PixelLayout{}.levels()));
    queued_.push_back(std::move(queued));
  }
  return history_.init();
}

// Grows the slot's device planes to the frame. A frame queued before may still use the old ones.
// Rows are padded to 16 bytes (the kernels' chunk) rather than cudaMallocPitch's 512, so a
// row of a multiple of 16 bytes (1080p and 4K among them) is packed, and a packed host plane
// crosses PCIe in one linear copy instead of a copy of `height` rows.
cudaError_t FrameEngine::prepare(Slot &slot, const HostFrame &frame) {
  HISTEQ_CUDA_TRY(faults_.at(Fault::kOutOfMemory, submitted_));
  if (frame.row_bytes() > slot.d_row_bytes || frame.height > slot.d_height) {
    HISTEQ_CUDA_TRY(slot.synchronize());
    HISTEQ_CUDA_TRY(cudaFree(slot.d_in));
    HISTEQ_CUDA_TRY(cudaFree(slot.d_out));
    slot.d_in = slot.d_out = nullptr;
    slot.d_row_bytes = 0;
    slot.d_height = 0;
    slot.pitch = chunked_pitch(frame.row_bytes());
    const std::size_t bytes = slot.pitch * std::size_t(frame.height);
    HISTEQ_CUDA_TRY(cudaMalloc(reinterpret_cast<void **>(&slot.d_in), bytes));
    HISTEQ_CUDA_TRY(cudaMalloc(reinterpret_cast<void **>(&slot.d_out), bytes));
    slot.d_row_bytes = frame.row_bytes();
    slot.d_height = frame.height;
  }
  return cudaSuccess;
}

cudaError_t FrameEngine::submit(const HostFrame &frame) {
  if (slots_.empty()) return cudaErrorInitializationError;
  if (full()) return cudaErrorNotReady;
  if (frame.width < 0 || frame.height < 0 || !frame.src || !frame.dst ||
      !valid_layout(frame.layout) || frame.src_pitch < frame.row_bytes() ||
      frame.dst_pitch < frame.row_bytes())
    return cudaErrorInvalidValue;
  // queued_ holds two frames per slot, so frame n's slot is n % depth either way.
  Slot &slot = *slots_[next_ % depth()];
  Queued &queued = *queued_[next_];
  const cudaError_t prepared = prepare(slot, frame);
  if (prepared != cudaSuccess) return refuse(prepared);
  queued.tag = frame.tag;
  queued.reported = frame.params.keep_history;
  queued.staged = frame;
  const cudaError_t reserved = queued.reserve_report(frame.layout.levels());
  if (reserved != cudaSuccess) return refuse(reserved);
  return commit(slot, enqueue(slot, queued, frame));
}

cudaError_t FrameEngine::submit(const DeviceFrame &frame) {
  if (slots_.empty()) return cudaErrorInitializationError;
  if (full()) return cudaErrorNotReady;
  const DevicePlane &plane = frame.plane;
  if (plane.width < 0 || plane.height < 0 || !plane.data || !valid_layout(plane.layout) ||
      plane.pitch < plane.row_bytes())
    return cudaErrorInvalidValue;
  Slot &slot = *slots_[next_ % depth()];
  Queued &queued = *queued_[next_];
  queued.tag = frame.tag;
  queued.reported = frame.params.keep_history;
  queued.staged_out = false;
  const cudaError_t reserved = queued.reserve_report(plane.layout.levels());
  if (reserved != cudaSuccess) return refuse(reserved);
  return commit(slot, enqueue(slot, queued, frame));
}

cudaError_t FrameEngine::refuse(cudaError_t status) {
  ++submitted_;
  return status;
}

cudaError_t FrameEngine::commit(Slot &slot, cudaError_t status) {
  ++submitted_;
  if (status != cudaSuccess) {
    // What was enqueued before the failure may still read or write the frame: it finishes
    // before the caller gets the frame back with the error.
    slot.synchronize();
    return status;
  }
  next_ = (next_ + 1) % capacity();
  in_flight_.fetch_add(1, std::memory_order_release);
  return cudaSuccess;
}

cudaError_t FrameEngine::enqueue(Slot &slot, Queued &queued, const HostFrame &frame) {
  const std::size_t row_bytes = frame.row_bytes();
  const std::size_t height = std::size_t(frame.height);
  // Stages are packed for the copy engines (one linear copy where the device plane is packed too)
  // and keep their rows 16-byte aligned for the zero-copy kernels, so staged frames can go
  // zero-copy too.
  queued.stage_pitch = zero_copy_ ? chunked_pitch(row_bytes) : row_bytes;

  const PinnedView src_view = pinned_view(frame.src);
  HostPlane up{const_cast<std::uint8_t *>(frame.src), frame.src_pitch, src_view.device};
  if (!src_view.pinned) {
    HISTEQ_CUDA_TRY(queued.stage_in.reserve(queued.stage_pitch * height));
    copy_rows(queued.stage_in.data(), queued.stage_pitch, frame.src, frame.src_pitch, row_bytes,
              frame.height);
    up = {queued.stage_in.data(), queued.stage_pitch, queued.stage_in.d_data};
  }

  // Where the output lands: frame.dst when pinned, else the frame's stage (copied back in
  // wait()). In place (the element's case), the source's answer holds for the destination: one
  // cudaPointerGetAttributes per frame instead of two.
  HostPlane down;
  const auto resolve_down = [&]() -> cudaError_t {
    const PinnedView dst_view = frame.dst == frame.src ? src_view : pinned_view(frame.dst);
    queued.staged_out = !dst_view.pinned;
    down = {frame.dst, frame.dst_pitch, dst_view.device};
    if (queued.staged_out) {
      HISTEQ_CUDA_TRY(queued.stage_out.reserve(queued.stage_pitch * height));
      down = {queued.stage_out.data(), queued.stage_pitch, queued.stage_out.d_data};
    }
    return cudaSuccess;
  };

  const DevicePlane in{slot.d_in, frame.width, frame.height, slot.pitch, frame.layout};
  const DevicePlane out{slot.d_out, frame.width, frame.height, slot.pitch, frame.layout};
  // The zero-copy kernels take 8-bit luma planes with the classic mapping.
  const bool zero_copy = zero_copy_ && frame.params.is_classic() &&
                         frame.layout.packing == Packing::kLuma && !frame.layout.deep();
  if (zero_copy) {
    history_.forget();
    HISTEQ_CUDA_TRY(resolve_down());
    const ZeroCopyPlanes planes{
        {static_cast<std::uint8_t *>(mapped_plane(up, row_bytes, frame.height)), frame.width,
         frame.height, up.pitch},
        in,
        {static_cast<std::uint8_t *>(mapped_plane(down, row_bytes, frame.height)), frame.width,
         frame.height, down.pitch}};
    if (planes.src.data && planes.dst.data && rows_in_chunks(planes.src) &&
        rows_in_chunks(planes.dst)) {
      HISTEQ_CUDA_TRY(faults_.at(Fault::kLaunch, submitted_));
      HISTEQ_CUDA_TRY(slot.equalizer.equalize_zero_copy(planes, frame.range, slot.stream));
      ++zero_copy_frames_;
      return cudaEventRecord(queued.done, slot.stream);
    }
  }
  // With the copy engines the upload goes out first: the time from a frame's arrival to its
  // upload can sit on the critical path, and the destination can wait.
  HISTEQ_CUDA_TRY(faults_.at(Fault::kCopy, submitted_));
  HISTEQ_CUDA_TRY(copy_plane_async(slot.d_in, slot.pitch, up.h_data, up.pitch, row_bytes, height,
                                   cudaMemcpyHostToDevice, slot.stream));
  HISTEQ_CUDA_TRY(cudaStreamWaitEvent(slot.stream, slot.downloaded, 0));
  HISTEQ_CUDA_TRY(equalize_in_order(slot, queued, in, out, frame.range, frame.params, frame.reset));
  HISTEQ_CUDA_TRY(cudaEventRecord(slot.mapped, slot.stream));
  if (!zero_copy) HISTEQ_CUDA_TRY(resolve_down());
  HISTEQ_CUDA_TRY(cudaStreamWaitEvent(slot.down_stream, slot.mapped, 0));
  HISTEQ_CUDA_TRY(copy_plane_async(down.h_data, down.pitch, slot.d_out, slot.pitch, row_bytes,
                                   height, cudaMemcpyDeviceToHost, slot.down_stream));
  if (frame.params.keep_history)
    HISTEQ_CUDA_TRY(cudaMemcpyAsync(queued.h_report, queued.d_report, queued.report_bytes(),
                                    cudaMemcpyDeviceToHost, slot.down_stream));
  HISTEQ_CUDA_TRY(cudaEventRecord(slot.downloaded, slot.down_stream));
  return cudaEventRecord(queued.done, slot.down_stream);
}

// The slot's planes stay the host frames': a device frame's kernels follow the slot's frame
// before on `stream` (the equalizer's scratch is the slot's) and need no wait for its download.
cudaError_t FrameEngine::enqueue(Slot &slot, Queued &queued, const DeviceFrame &frame) {
  HISTEQ_CUDA_TRY(equalize_in_order(slot, queued, frame.plane, frame.plane, frame.range,
                                    frame.params, frame.reset));
  if (frame.params.keep_history)
    HISTEQ_CUDA_TRY(cudaMemcpyAsync(queued.h_report, queued.d_report, queued.report_bytes(),
                                    cudaMemcpyDeviceToHost, slot.stream));
  return cudaEventRecord(queued.done, slot.stream);
}

cudaError_t FrameEngine::equalize_in_order(Slot &slot, Queued &queued, const DevicePlane &in,
                                           const DevicePlane &out, OutputRange range,
                                           const Params &params, bool reset) {
  DeviceTone tone;
  tone.params = params;
  tone.reset = reset;
  tone.d_report = queued.d_report;
  HISTEQ_CUDA_TRY(history_.attach(slot.stream, history_shape(in, params), &tone));
  HISTEQ_CUDA_TRY(faults_.at(Fault::kLaunch, submitted_));
  HISTEQ_CUDA_TRY(slot.equalizer.equalize(in, out, range, config_, slot.stream, tone));
  return history_.attached(slot.stream, tone);
}

cudaError_t FrameEngine::wait(std::uint64_t *tag, FrameReport *report) {
  if (in_flight() == 0) return cudaErrorNotReady;
  Queued &queued = *queued_[oldest_];
  const cudaError_t status = cudaEventSynchronize(queued.done);
  if (report) {
    report->histogram.clear();
    report->restarted = false;
    if (status == cudaSuccess && queued.reported) {
      report->restarted = queued.h_report[0] != 0;
      report->histogram.assign(queued.h_report + 1, queued.h_report + 1 + queued.levels);
    }
  }
  if (status == cudaSuccess && queued.staged_out) {
    const HostFrame &frame = queued.staged;
    copy_rows(frame.dst, frame.dst_pitch, queued.stage_out.data(), queued.stage_pitch,
              frame.row_bytes(), frame.height);
  }
  if (tag) *tag = queued.tag;
  // Handed back even on an error, so the submitting thread is never left waiting on it.
  oldest_ = (oldest_ + 1) % capacity();
  in_flight_.fetch_sub(1, std::memory_order_release);
  return status;
}

cudaError_t FrameEngine::discard() {
  cudaError_t first_error = cudaSuccess;
  for (auto &slot : slots_) {
    const cudaError_t status = slot->synchronize();
    if (first_error == cudaSuccess) first_error = status;
  }
  oldest_ = next_;
  in_flight_.store(0, std::memory_order_release);
  history_.forget();
  return first_error;
}

}  // namespace histeq::cuda
