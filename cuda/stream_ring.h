// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Frames through a ring of double-buffered CUDA streams, so that frame N+1's upload, frame N's
// histogram, scan, LUT and map, and frame N-1's download overlap:
//
//   histeq::cuda::StreamRing ring;
//   ring.init(2, {});                          // two slots on the current device
//   for each frame:
//     if (ring.full()) ring.wait(&tag);        // oldest frame's dst now holds its output
//     ring.submit({src, src_pitch, dst, dst_pitch, width, height, range, tag});
//   while (ring.in_flight()) ring.wait(&tag);  // drain (EOS)
//
// Each of the `depth` slots has an input and an output plane on the device, a stream that
// uploads into the first and equalizes into the second, and a stream that downloads the second:
// a slot's next upload runs beside its last download, so even one slot overlaps them, and two
// keep both directions of PCIe busy. Frame n goes to slot n % depth. The ring takes twice as
// many frames as it has slots (capacity()): a frame given to a busy slot is queued on its
// streams behind the one there, so its upload starts the moment the slot can take it, with no
// host round trip in between (that round trip costs a visible share of every frame at depth 2:
// bench/README.md, "Engine design choices").
//
// One thread may submit while another waits (the cudahisteq element's streaming and output
// threads); init, discard and destruction need the ring to themselves.
//
// Only the luma plane crosses PCIe, in one of two ways (Transfer, methods.h): DMA copies move
// it to and from the slot's device planes around the kernels (the default), or the default
// kernels read and write the pinned host plane themselves (zero-copy, on the slot's first
// stream, its input plane as their staging; rows that are not 16-byte aligned take the copy
// engines). The copy engines are the default because the SMs' own PCIe reads and writes barely
// overlap with traffic the other way (bench/README.md).
// Pageable src/dst are staged through pinned buffers (a CPU copy each way).
//
// The stream's history (smoothing, scene cuts) passes from frame to frame in submit order,
// across slots (DeviceHistory); only the zero-copy variant's kernels do not take options, so
// frames with options cross PCIe by the copy engines. A frame that keeps the history also
// brings its histogram back (FrameReport), for statistics.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <cuda_runtime_api.h>

#include "device_history.h"
#include "device_tone.h"
#include "equalization.h"
#include "methods.h"
#include "params.h"

namespace histeq::cuda {

struct HostFrame {
  const std::uint8_t *src = nullptr;
  std::size_t src_pitch = 0;
  std::uint8_t *dst = nullptr;  // may be src: in place
  std::size_t dst_pitch = 0;
  int width = 0;
  int height = 0;
  OutputRange range = full_range(8);
  Params params;          // the LUT's options (the classic mapping by default)
  bool reset = false;     // the stream's history restarts with this frame
  std::uint64_t tag = 0;  // handed back by wait()
};

class StreamRing {
 public:
  static constexpr int kMaxDepth = 8;

  StreamRing();
  ~StreamRing();  // waits for frames in flight and drops them
  StreamRing(const StreamRing &) = delete;
  StreamRing &operator=(const StreamRing &) = delete;

  // Creates `depth` (1..kMaxDepth) slots on the current device. cudaErrorInvalidValue for
  // Transfer::kZeroCopy with kernels other than the default ones.
  cudaError_t init(int depth, KernelConfig config, Transfer transfer = Transfer::kCopyEngines);

  int depth() const { return int(slots_.size()); }
  // Frames the ring takes before wait() must hand one back: two per slot.
  int capacity() const { return int(queued_.size()); }
  int in_flight() const { return in_flight_.load(std::memory_order_acquire); }
  bool full() const { return in_flight() == capacity(); }

  // Enqueues the frame and returns without waiting for the GPU (cudaErrorNotReady when full).
  cudaError_t submit(const HostFrame &frame);
  // Blocks until the oldest frame is back in its dst; returns its tag and, when `report` is
  // given and the frame kept the history, its report (else report->restarted is 0 and the
  // histogram zero).
  cudaError_t wait(std::uint64_t *tag, FrameReport *report = nullptr);
  // Waits for every frame in flight and forgets them and the history (flush).
  cudaError_t discard();

  // Frames the zero-copy kernels equalized so far (the others went through the copy engines).
  std::uint64_t zero_copy_frames() const { return zero_copy_frames_; }

 private:
  struct Slot;
  struct Queued;
  cudaError_t prepare(Slot &slot, const HostFrame &frame);
  // Stages, uploads, equalizes and downloads the frame on the slot's stream and marks its end.
  cudaError_t enqueue(Slot &slot, Queued &queued, const HostFrame &frame);

  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::unique_ptr<Queued>> queued_;  // frame n in queued_[n % capacity()]
  KernelConfig config_;
  DeviceHistory history_;
  bool zero_copy_ = false;
  std::uint64_t zero_copy_frames_ = 0;
  int next_ = 0;    // queued_ index of the next submit (the submitting thread's)
  int oldest_ = 0;  // queued_ index of the next wait (the waiting thread's)
  std::atomic<int> in_flight_{0};
};

}  // namespace histeq::cuda
