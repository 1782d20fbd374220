// SPDX-License-Identifier: LGPL-2.1-or-later
#include "floors.h"

namespace bench {

double d2d_copy_us(const DevicePlanes &planes, cudaStream_t stream, const Repeats &r) {
  const FrameSize size = planes.size();
  return device_us_per_frame(stream, r, [&](long i) {
    BENCH_CUDA(cudaMemcpy2DAsync(planes.dst(i), planes.pitch(), planes.src(i), planes.pitch(),
                                 size.width, size.height, cudaMemcpyDeviceToDevice, stream));
  });
}

PcieFloor pcie_floor(FrameSize size, std::ptrdiff_t pitch, const Repeats &r) {
  const std::size_t bytes = std::size_t(pitch) * std::size_t(size.height);
  constexpr int kBuffers = 3;
  std::vector<HostBuffer> host_in, host_out;
  std::vector<DeviceBuffer> dev_in, dev_out;
  for (int i = 0; i < kBuffers; ++i) {
    host_in.push_back(host_buffer(bytes));
    host_out.push_back(host_buffer(bytes));
    dev_in.push_back(device_buffer(bytes));
    dev_out.push_back(device_buffer(bytes));
    BENCH_CUDA(cudaMemset(dev_out.back().get(), i, bytes));
  }
  Stream up, down;
  auto h2d = [&](long i) {
    BENCH_CUDA(cudaMemcpy2DAsync(dev_in[i % kBuffers].get(), pitch, host_in[i % kBuffers].get(),
                                 pitch, size.width, size.height, cudaMemcpyHostToDevice, up.get()));
  };
  auto d2h = [&](long i) {
    BENCH_CUDA(cudaMemcpy2DAsync(host_out[i % kBuffers].get(), pitch, dev_out[i % kBuffers].get(),
                                 pitch, size.width, size.height, cudaMemcpyDeviceToHost,
                                 down.get()));
  };
  PcieFloor floor{};
  floor.h2d_us = device_us_per_frame(up.get(), r, h2d);
  floor.d2h_us = device_us_per_frame(down.get(), r, d2h);
  // Both directions: the downstream starts with the upstream's start event and the upstream's
  // stop event waits for the downstream, so the interval covers both.
  Event start, down_done, stop;
  std::vector<double> per_frame;
  long frame = 0;
  for (int b = 0; b < r.warmup_batches + r.batches; ++b) {
    start.record(up.get());
    BENCH_CUDA(cudaStreamWaitEvent(down.get(), start.get(), 0));
    for (int f = 0; f < r.frames_per_batch; ++f, ++frame) {
      h2d(frame);
      d2h(frame);
    }
    down_done.record(down.get());
    BENCH_CUDA(cudaStreamWaitEvent(up.get(), down_done.get(), 0));
    stop.record(up.get());
    const double us = 1000.0 * stop.since(start) / r.frames_per_batch;
    if (b >= r.warmup_batches) per_frame.push_back(us);
  }
  floor.both_us = median(per_frame);
  return floor;
}

}  // namespace bench
