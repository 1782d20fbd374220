// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Every frame of a stream through one engine, whether its luma plane is in host memory or
// already on the device, so that frame N+1's upload, frame N's histogram, scan, LUT and map, and
// frame N-1's download overlap, and the stream's history follows frame order:
//
//   histeq::cuda::FrameEngine engine;
//   engine.init(2, {});                            // two slots on the current device or context
//   for each frame:
//     if (engine.full()) engine.wait(&tag, &report);  // the oldest frame is done, whatever path
//     engine.submit(HostFrame{src, src_pitch, dst, dst_pitch, width, height, range, ...});
//     // or, for a plane in device memory, equalized in place:
//     engine.submit(DeviceFrame{plane, range, params, reset, tag});
//   while (engine.in_flight()) engine.wait(&tag, &report);  // drain (EOS)
//
// Each of the `depth` slots has an input and an output plane on the device, a stream that
// uploads into the first and equalizes into the second, and a stream that downloads the second:
// a slot's next upload runs beside its last download, so even one slot overlaps them, and two
// keep both directions of PCIe busy. Frame n goes to slot n % depth, whichever path it takes: a
// device frame is equalized in place on that slot's first stream, with nothing to copy. The
// engine takes twice as many frames as it has slots (capacity()): a frame given to a busy slot
// is queued on its streams behind the one there, so its upload starts the moment the slot can
// take it, with no host round trip in between (that round trip costs a visible share of every
// frame at depth 2: bench/README.md, "Engine design choices").
//
// One thread may submit while another waits (the cudahisteq element's streaming and output
// threads); init, discard and destruction need the engine to themselves. Every call that touches
// the GPU runs in the device or context init() ran in (device frames must live there too).
//
// Only the luma plane of a host frame crosses PCIe (packed YUV and RGB: the whole frame), in one
// of two ways (Transfer, methods.h): DMA copies move it to and from the slot's device planes
// around the kernels (the default), or the default kernels read and write the pinned host plane
// themselves (zero-copy, on the slot's first stream, its input plane as their staging; rows that
// are not 16-byte aligned, and packed frames, take the copy engines). The copy engines are the
// default because the SMs' own PCIe reads and writes barely overlap with traffic the other way
// (bench/README.md). Pageable src/dst are staged through pinned buffers (a CPU copy each way).
//
// The stream's history (smoothing, scene cuts) passes from frame to frame in submit order,
// across slots and across paths (one DeviceHistory); only the zero-copy variant's kernels do not
// take options, so host frames with options cross PCIe by the copy engines. A frame that keeps
// the history also brings its histogram back (FrameReport), for statistics.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <cuda_runtime_api.h>

#include "device_history.h"
#include "device_plane.h"
#include "device_tone.h"
#include "fault_injection.h"
#include "equalization.h"
#include "methods.h"
#include "params.h"

namespace histeq::cuda {

// width x height pixels of `layout` (luma bytes by default), rows of row_bytes() bytes.
struct HostFrame {
  const std::uint8_t *src = nullptr;
  std::size_t src_pitch = 0;
  std::uint8_t *dst = nullptr;  // may be src: in place
  std::size_t dst_pitch = 0;
  int width = 0;
  int height = 0;
  PixelLayout layout;
  OutputRange range = full_range(8);
  Params params;          // the LUT's options (the classic mapping by default)
  bool reset = false;     // the stream's history restarts with this frame
  std::uint64_t tag = 0;  // handed back by wait()

  std::size_t row_bytes() const { return layout.row_bytes(width); }
};

// A plane in device memory of the engine's device or context, equalized in place (its layout
// in plane.layout).
struct DeviceFrame {
  DevicePlane plane;
  OutputRange range = full_range(8);
  Params params;
  bool reset = false;
  std::uint64_t tag = 0;
};

class FrameEngine {
 public:
  static constexpr int kMaxDepth = 8;

  FrameEngine();
  ~FrameEngine();  // waits for frames in flight and drops them
  FrameEngine(const FrameEngine &) = delete;
  FrameEngine &operator=(const FrameEngine &) = delete;

  // Creates `depth` (1..kMaxDepth) slots on the current device or context.
  // cudaErrorInvalidValue for Transfer::kZeroCopy with kernels other than the default ones.
  cudaError_t init(int depth, KernelConfig config, Transfer transfer = Transfer::kCopyEngines);

  int depth() const { return int(slots_.size()); }
  // Frames the engine takes before wait() must hand one back: two per slot, of either path.
  int capacity() const { return int(queued_.size()); }
  int in_flight() const { return in_flight_.load(std::memory_order_acquire); }
  bool full() const { return in_flight() == capacity(); }

  // Enqueue the frame and return without waiting for the GPU (cudaErrorNotReady when full). On
  // an error, what was enqueued of the frame has finished when they return.
  cudaError_t submit(const HostFrame &frame);
  cudaError_t submit(const DeviceFrame &frame);
  // Blocks until the oldest frame, of either path, is done (a host frame back in its dst, a
  // device frame equalized); returns its tag and, when `report` is given and the frame kept the
  // history, its report (else report->restarted is false and the histogram empty). The frame is
  // handed back even on an error.
  cudaError_t wait(std::uint64_t *tag, FrameReport *report = nullptr);
  // Waits for every frame in flight and forgets them and the history (flush).
  cudaError_t discard();

  // Host frames the zero-copy kernels equalized so far (the others went through the copy
  // engines).
  std::uint64_t zero_copy_frames() const { return zero_copy_frames_; }

 private:
  struct Slot;
  struct Queued;
  cudaError_t prepare(Slot &slot, const HostFrame &frame);
  // Stages, uploads, equalizes and downloads the frame on the slot's stream and marks its end.
  cudaError_t enqueue(Slot &slot, Queued &queued, const HostFrame &frame);
  // Equalizes the frame in place on the slot's first stream and marks its end.
  cudaError_t enqueue(Slot &slot, Queued &queued, const DeviceFrame &frame);
  // The frame's kernels on the slot's first stream, after the frame before it in the history
  // and before the next one (`in` may be `out`).
  cudaError_t equalize_in_order(Slot &slot, Queued &queued, const DevicePlane &in,
                                const DevicePlane &out, OutputRange range, const Params &params,
                                bool reset);
  // Counts the frame in flight once `status` says it is enqueued on `slot`; else waits for
  // what was enqueued of it and returns the error.
  cudaError_t commit(Slot &slot, cudaError_t status);
  // Counts a frame that failed before anything of it was enqueued, and returns `status`.
  cudaError_t refuse(cudaError_t status);

  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::unique_ptr<Queued>> queued_;  // frame n in queued_[n % capacity()]
  KernelConfig config_;
  DeviceHistory history_;  // every frame's, in submit order, whichever path it takes
  bool zero_copy_ = false;
  std::uint64_t zero_copy_frames_ = 0;
  FaultPlan faults_;             // the test-only hook (fault_injection.h), read by init()
  std::uint64_t submitted_ = 0;  // frames submitted so far, failed ones too
  int next_ = 0;                 // queued_ index of the next submit (the submitting thread's)
  int oldest_ = 0;               // queued_ index of the next wait (the waiting thread's)
  std::atomic<int> in_flight_{0};
};

}  // namespace histeq::cuda
