// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// A stream's smoothed histogram on the device, handed from each frame's kernels to the next
// frame's in frame order, whichever streams they run on:
//
//   DeviceTone tone;  tone.params = params;  tone.reset = reset;
//   history.attach(stream, sample, &tone);  // orders `stream` behind the last frame that kept it
//   ...launch the frame's kernels with tone...
//   history.attached(stream, tone);    // marks where this frame's history is complete
//
// Two buffers: a frame reads the one its predecessor wrote and writes the other, so the blocks
// of one kernel never read what another block of it writes. A frame's kernels wait for the last
// kernels that wrote a buffer, even after frames that kept no history (the buffer it writes may
// still be some earlier frame's input); its upload, enqueued before, still overlaps. One
// submitting thread.

#include <cuda_runtime_api.h>

#include "device_tone.h"
#include "sample_layout.h"

namespace histeq::cuda {

class DeviceHistory {
 public:
  DeviceHistory() = default;
  ~DeviceHistory();  // the streams that used it must be done
  DeviceHistory(const DeviceHistory &) = delete;
  DeviceHistory &operator=(const DeviceHistory &) = delete;

  // Allocates the buffers on the current device (or context).
  cudaError_t init();

  // Fills `tone`'s history pointers for a frame whose luma samples are `sample` (2^bits levels)
  // on `stream` and makes the stream wait for the frame before. A frame that does not keep the
  // history leaves none behind: the next one that keeps it starts afresh; so does one whose
  // samples differ (another depth or alignment: a new format, as on the CPU).
  cudaError_t attach(cudaStream_t stream, SampleLayout sample, DeviceTone *tone);
  // After the frame's kernels are enqueued on `stream`.
  cudaError_t attached(cudaStream_t stream, const DeviceTone &tone);
  // Forgets the history (flush, errors): the next frame restarts it.
  void forget() { valid_ = false; }

 private:
  unsigned long long *d_buffers_ = nullptr;  // 2 x kMaxLevels
  int current_ = 0;                          // the buffer the last frame wrote
  SampleLayout sample_;                      // of the frame that wrote it
  SampleLayout attaching_;                   // of the frame between attach and attached
  bool valid_ = false;                       // current_ holds the history of the frame just before
  bool recorded_ = false;          // written_ marks the kernels of the last frame that kept it
  cudaEvent_t written_ = nullptr;  // recorded after the last frame that kept the history
};

}  // namespace histeq::cuda
