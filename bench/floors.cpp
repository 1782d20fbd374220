// SPDX-License-Identifier: LGPL-2.1-or-later
#include "floors.h"

#include <array>
#include <memory>
#include <vector>

namespace bench {

namespace {

// pcie_floor's buffers each way: more than the copies in flight at once on its streams.
constexpr int kBurstBuffers = 4;

struct Transfers {
  FrameSize size;
  std::ptrdiff_t pitch;
  std::size_t bytes;
  int buffers;
  std::vector<HostBuffer> host_in, host_out;
  std::vector<DeviceBuffer> dev_in, dev_out;

  Transfers(FrameSize s, std::ptrdiff_t p, int n)
      : size(s), pitch(p), bytes(std::size_t(p) * std::size_t(s.height)), buffers(n) {
    for (int i = 0; i < buffers; ++i) {
      host_in.push_back(host_buffer(bytes));
      host_out.push_back(host_buffer(bytes));
      dev_in.push_back(device_buffer(bytes));
      dev_out.push_back(device_buffer(bytes));
      BENCH_CUDA(cudaMemset(dev_out.back().get(), i, bytes));
    }
  }

  void copy(long i, bool up, bool two_d, cudaStream_t stream) const {
    const std::size_t b = std::size_t(i % buffers);
    void *dst = up ? static_cast<void *>(dev_in[b].get()) : host_out[b].get();
    const void *src = up ? static_cast<const void *>(host_in[b].get()) : dev_out[b].get();
    const cudaMemcpyKind kind = up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (two_d) {
      BENCH_CUDA(cudaMemcpy2DAsync(dst, pitch, src, pitch, size.width, size.height, kind, stream));
    } else {
      BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, stream));
    }
  }
};

// Microseconds per frame with uploads and downloads at once: `lanes` streams per direction,
// frame i on lane i % lanes. All streams start at one event and the interval ends when the last
// has finished.
double both_directions_us(const Transfers &t, const Repeats &r, int lanes, bool two_d) {
  std::vector<std::unique_ptr<Stream>> up, down;
  for (int l = 0; l < lanes; ++l) {
    up.push_back(std::make_unique<Stream>());
    down.push_back(std::make_unique<Stream>());
  }
  Stream control;
  Event start, stop;
  std::vector<std::unique_ptr<Event>> done;
  for (int l = 0; l < 2 * lanes; ++l) done.push_back(std::make_unique<Event>());
  std::vector<double> per_frame;
  long frame = 0;
  for (int b = 0; b < r.warmup_batches + r.batches; ++b) {
    start.record(control.get());
    for (int l = 0; l < lanes; ++l) {
      BENCH_CUDA(cudaStreamWaitEvent(up[l]->get(), start.get(), 0));
      BENCH_CUDA(cudaStreamWaitEvent(down[l]->get(), start.get(), 0));
    }
    for (int f = 0; f < r.frames_per_batch; ++f, ++frame) {
      t.copy(frame, true, two_d, up[frame % lanes]->get());
      t.copy(frame, false, two_d, down[frame % lanes]->get());
    }
    for (int l = 0; l < lanes; ++l) {
      done[2 * l]->record(up[l]->get());
      done[2 * l + 1]->record(down[l]->get());
      BENCH_CUDA(cudaStreamWaitEvent(control.get(), done[2 * l]->get(), 0));
      BENCH_CUDA(cudaStreamWaitEvent(control.get(), done[2 * l + 1]->get(), 0));
    }
    stop.record(control.get());
    const double us = 1000.0 * stop.since(start) / r.frames_per_batch;
    if (b >= r.warmup_batches) per_frame.push_back(us);
  }
  return median(per_frame);
}

}  // namespace

double d2d_copy_us(const DevicePlanes &planes, cudaStream_t stream, const Repeats &r,
                   Launch launch) {
  const FrameSize size = planes.size();
  return us_per_frame(launch, stream, r, [&](long i) {
    BENCH_CUDA(cudaMemcpy2DAsync(planes.dst(i), planes.pitch(), planes.src(i), planes.pitch(),
                                 size.width, size.height, cudaMemcpyDeviceToDevice, stream));
  });
}

PcieFloor pcie_floor(FrameSize size, std::ptrdiff_t pitch, const Repeats &r) {
  const Transfers t(size, pitch, kBurstBuffers);
  Stream stream;
  PcieFloor floor{};
  floor.h2d_us =
      device_us_per_frame(stream.get(), r, [&](long i) { t.copy(i, true, true, stream.get()); });
  floor.d2h_us =
      device_us_per_frame(stream.get(), r, [&](long i) { t.copy(i, false, true, stream.get()); });
  struct Way {
    int lanes;
    bool two_d;
    const char *how;
  };
  const std::array<Way, 3> ways{{{1, true, "1 stream per direction, 2D copies"},
                                 {1, false, "1 stream per direction, 1D copies"},
                                 {2, true, "2 streams per direction, 2D copies"}}};
  for (const Way &w : ways) {
    const double us = both_directions_us(t, r, w.lanes, w.two_d);
    floor.ways.emplace_back(w.how, us);
    if (floor.both_us == 0 || us < floor.both_us) {
      floor.both_us = us;
      floor.how = w.how;
    }
  }
  return floor;
}

double pcie_stretch_us(FrameSize size, int frames, int host_buffers) {
  const Transfers t(size, size.width, host_buffers);
  both_directions_us(t, Repeats{1, 1, 20}, 1, false);
  return both_directions_us(t, Repeats{0, 1, frames}, 1, false);
}

}  // namespace bench
