// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// How every number in the table is taken: device work between CUDA events, host work (end to
// end, CPU) with the steady clock; warm-up first, then the median of many batches.

#include <algorithm>
#include <chrono>
#include <vector>

#include <cuda_runtime_api.h>

#include "resources.h"

namespace bench {

struct Repeats {
  int warmup_batches;
  int batches;
  int frames_per_batch;
};

// A measurement whose first batch shows it would take longer than this is cut to fewer batches
// (at least kMinBatches), so that one pathological variant (every pixel an atomic on one
// counter, say) cannot eat the run's time budget.
constexpr double kBudgetMsPerMeasurement = 600.0;
constexpr int kMinBatches = 3;

inline int batches_within_budget(const Repeats &r, double first_batch_ms) {
  if (first_batch_ms <= 0) return r.batches;
  const int fit = int(kBudgetMsPerMeasurement / first_batch_ms);
  return std::max(std::min(r.batches, fit), std::min(r.batches, kMinBatches));
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Device time per frame in microseconds: enqueue(i) puts frame i's work on `stream` (i counts
// up across batches so callers rotate buffers with it); each batch of frames_per_batch frames
// runs back to back between two events; the result is the median batch over the frame count.
template <typename Enqueue>
double device_us_per_frame(cudaStream_t stream, const Repeats &r, Enqueue &&enqueue) {
  Event start, stop;
  std::vector<double> per_frame;
  long frame = 0;
  int batches = r.batches;
  for (int b = 0; b < r.warmup_batches + batches; ++b) {
    start.record(stream);
    for (int f = 0; f < r.frames_per_batch; ++f) enqueue(frame++);
    stop.record(stream);
    const double us = 1000.0 * stop.since(start) / r.frames_per_batch;
    if (b == 0) batches = batches_within_budget(r, us * r.frames_per_batch / 1000.0);
    if (b >= r.warmup_batches) per_frame.push_back(us);
  }
  return median(per_frame);
}

// The same, with each batch captured from `stream` into a CUDA graph and replayed once between
// the events: the GPU's time for the frames without the host's launch cost in between (which
// dominates small frames launched call by call). Throws Failure, with the stream no longer
// capturing, when the work cannot be captured (a host synchronization inside, say).
template <typename Enqueue>
double graph_us_per_frame(cudaStream_t stream, const Repeats &r, Enqueue &&enqueue) {
  Event start, stop;
  std::vector<double> per_frame;
  long frame = 0;
  int batches = r.batches;
  for (int b = 0; b < r.warmup_batches + batches; ++b) {
    cudaGraph_t graph = nullptr;
    BENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      for (int f = 0; f < r.frames_per_batch; ++f) enqueue(frame++);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph) cudaGraphDestroy(graph);
      (void)cudaGetLastError();
      throw;
    }
    BENCH_CUDA(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    BENCH_CUDA(instantiated);
    try {
      BENCH_CUDA(cudaGraphUpload(exec, stream));
      start.record(stream);
      BENCH_CUDA(cudaGraphLaunch(exec, stream));
      stop.record(stream);
      const double us = 1000.0 * stop.since(start) / r.frames_per_batch;
      if (b == 0) batches = batches_within_budget(r, us * r.frames_per_batch / 1000.0);
      if (b >= r.warmup_batches) per_frame.push_back(us);
    } catch (...) {
      cudaGraphExecDestroy(exec);
      throw;
    }
    BENCH_CUDA(cudaGraphExecDestroy(exec));
  }
  return median(per_frame);
}

// How device-resident work is issued while it is timed.
enum class Launch {
  kGraph,   // each batch captured as a CUDA graph and replayed: GPU time
  kStream,  // call by call on the stream: host launch cost included
};

template <typename Enqueue>
double us_per_frame(Launch launch, cudaStream_t stream, const Repeats &r, Enqueue &&enqueue) {
  return launch == Launch::kGraph ? graph_us_per_frame(stream, r, enqueue)
                                  : device_us_per_frame(stream, r, enqueue);
}

// Steady-state host wall time per frame in microseconds: batches of n and of 2n frames
// alternate (n = frames_per_batch), and the result is (median long - median short) / n, so a
// pipeline's filling and draining, paid once per batch, cancel out. run(i, k) processes frames
// i..i+k-1 and returns when they are complete; prepare(i, k), when set, runs first, untimed.
template <typename Prepare, typename Run>
double steady_us_per_frame(const Repeats &r, const Prepare &prepare, Run &&run) {
  std::vector<double> short_us, long_us;
  long frame = 0;
  int batches = r.batches;
  for (int b = 0; b < r.warmup_batches + batches; ++b) {
    for (int k = 1; k <= 2; ++k) {
      const int n = k * r.frames_per_batch;
      if (prepare) prepare(frame, n);
      const auto t0 = std::chrono::steady_clock::now();
      run(frame, n);
      const auto t1 = std::chrono::steady_clock::now();
      frame += n;
      const double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
      if (b == 0 && k == 2) batches = batches_within_budget(r, 1.5 * us / 1000.0);
      if (b >= r.warmup_batches) (k == 1 ? short_us : long_us).push_back(us);
    }
  }
  const double steady = (median(long_us) - median(short_us)) / r.frames_per_batch;
  // Noise can make the difference meaningless; then the long batches' average is the estimate.
  return steady > 0 ? steady : median(long_us) / (2.0 * r.frames_per_batch);
}

// Host wall time per frame in microseconds: run(i, n) processes frames i..i+n-1 and returns
// when they are complete; prepare(i, n), when set, runs first, untimed.
template <typename Prepare, typename Run>
double host_us_per_frame(const Repeats &r, const Prepare &prepare, Run &&run) {
  std::vector<double> per_frame;
  long frame = 0;
  int batches = r.batches;
  for (int b = 0; b < r.warmup_batches + batches; ++b) {
    if (prepare) prepare(frame, r.frames_per_batch);
    const auto t0 = std::chrono::steady_clock::now();
    run(frame, r.frames_per_batch);
    const auto t1 = std::chrono::steady_clock::now();
    frame += r.frames_per_batch;
    const double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    if (b == 0) batches = batches_within_budget(r, us / 1000.0);
    if (b >= r.warmup_batches) per_frame.push_back(us / r.frames_per_batch);
  }
  return median(per_frame);
}

}  // namespace bench
