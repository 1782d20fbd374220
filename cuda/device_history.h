// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// A stream's smoothed histogram on the device, handed from each frame's kernels to the next
// frame's in frame order, whichever streams they run on:
//
//   DeviceTone tone;  tone.params = params;  tone.reset = reset;
//   history.attach(stream, shape, &tone);  // orders `stream` behind the last frame that kept it
//   ...launch the frame's kernels with tone...
//   history.attached(stream, tone);    // marks where this frame's history is complete
//
// Two buffers: a frame reads the one its predecessor wrote and writes the other, so the blocks
// of one kernel never read what another block of it writes. A frame's kernels wait for the last
// kernels that wrote a buffer, even after frames that kept no history (the buffer it writes may
// still be some earlier frame's input); its upload, enqueued before, still overlaps. One
// submitting thread.

#include <cstddef>

#include <cuda_runtime_api.h>

#include "clahe.h"
#include "device_plane.h"
#include "device_tone.h"
#include "params.h"
#include "sample_layout.h"

namespace histeq::cuda {

// What a stream's history holds: one smoothed histogram of the samples' levels for the whole
// frame, or one per tile of a CLAHE grid. A frame of another shape (depth, alignment, mode,
// grid or tile size) starts it afresh, as a new format, mode or grid does on the CPU.
struct HistoryShape {
  SampleLayout sample;
  Mode mode = Mode::kGlobal;
  ClaheGrid grid;  // CLAHE's tiles; one in global mode

  std::size_t bins() const { return std::size_t(grid.tiles()) * std::size_t(sample.levels()); }
  bool operator==(const HistoryShape &other) const {
    return sample.bits == other.sample.bits && sample.shift == other.sample.shift &&
           mode == other.mode && grid == other.grid;
  }
};

// The shape of the history of `plane` equalized with `params`.
inline HistoryShape history_shape(const DevicePlane &plane, const Params &params) {
  HistoryShape shape;
  shape.sample = plane.layout.sample;
  shape.mode = params.mode;
  if (params.mode == Mode::kClahe)
    shape.grid = clahe_grid(plane.width, plane.height, params.tiles_x, params.tiles_y);
  return shape;
}

class DeviceHistory {
 public:
  DeviceHistory() = default;
  ~DeviceHistory();  // the streams that used it must be done
  DeviceHistory(const DeviceHistory &) = delete;
  DeviceHistory &operator=(const DeviceHistory &) = delete;

  // Allocates the buffers on the current device (or context).
  cudaError_t init();

  // Fills `tone`'s history pointers for a frame of history `shape` on `stream` and makes the
  // stream wait for the frame before. A frame that does not keep the history leaves none
  // behind: the next one that keeps it starts afresh; so does one of another shape. The
  // buffers grow to the shape's bins (at most kMaxClaheTileBins), once the frames that use
  // them are done.
  cudaError_t attach(cudaStream_t stream, const HistoryShape &shape, DeviceTone *tone);
  // After the frame's kernels are enqueued on `stream`.
  cudaError_t attached(cudaStream_t stream, const DeviceTone &tone);
  // Forgets the history (flush, errors): the next frame restarts it.
  void forget() { valid_ = false; }

 private:
  unsigned long long *d_buffers_ = nullptr;  // 2 x capacity_
  std::size_t capacity_ = 0;                 // bins per buffer
  int current_ = 0;                          // the buffer the last frame wrote
  HistoryShape shape_;                       // of the frame that wrote it
  HistoryShape attaching_;                   // of the frame between attach and attached
  bool valid_ = false;                       // current_ holds the history of the frame just before
  bool recorded_ = false;          // written_ marks the kernels of the last frame that kept it
  cudaEvent_t written_ = nullptr;  // recorded after the last frame that kept the history
};

}  // namespace histeq::cuda
