// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU engine's contenders: histeq::cuda::DeviceEqualizer for every kernel variant
// (device-resident, in place), histeq::cuda::FrameEngine end to end, and DeviceEqualizer on
// mapped and on managed host memory.
#include "engine_contenders.h"

#include <cstring>
#include <memory>
#include <string>

#include "cpu_peer.h"
#include "device_equalizer.h"
#include "frame_engine.h"
#include "host_frames.h"
#include "methods.h"
#include "ring_frame.h"

namespace bench {

namespace {

namespace hc = histeq::cuda;

void check_engine(cudaError_t status, const std::string &what) {
  if (status != cudaSuccess)
    throw Failure("engine: " + what + " returned " + cudaGetErrorName(status) + " (" +
                  cudaGetErrorString(status) + ")");
}

std::string variant_name(hc::KernelConfig c) {
  c = hc::resolve(c);
  return std::string(hc::to_string(c.histogram)) + "/" + hc::to_string(c.scan) + "/" +
         hc::to_string(c.lut) + "/" + hc::to_string(c.fusion);
}

bool same(hc::KernelConfig a, hc::KernelConfig b) {
  a = hc::resolve(a);
  b = hc::resolve(b);
  return a.histogram == b.histogram && a.scan == b.scan && a.lut == b.lut && a.fusion == b.fusion;
}

int differs_in(hc::KernelConfig c) {
  const hc::KernelConfig def = hc::resolve({});
  c = hc::resolve(c);
  return (c.histogram != def.histogram) + (c.scan != def.scan) + (c.lut != def.lut);
}

std::string default_name() {
  return "engine default (" + variant_name(hc::resolve({})) + ")";
}

// The default transfer's rows carry no transfer in their name (the goals read them).
std::string ring_name(int depth, const char *memory,
                      hc::Transfer transfer = hc::Transfer::kCopyEngines, bool options = false) {
  const std::string how =
      transfer == hc::Transfer::kCopyEngines ? "" : std::string(", ") + hc::to_string(transfer);
  return "engine ring depth " + std::to_string(depth) + " (" + memory + how +
         (options ? ", every option" : "") + ")";
}

std::string options_name() {
  return "engine default, every option";
}

// A stream of one frame repeated with every option, after its first frame: the history holds
// the frame's own histogram, which the LUT is built from.
std::vector<std::uint8_t> steady_options_reference(const HostFrame &frame) {
  std::vector<std::uint8_t> out = frame.bytes;
  histeq::CpuEqualizer equalizer(0);
  const histeq::LumaPlane8 plane{out.data(), frame.size.width, frame.size.height, frame.pitch};
  std::vector<std::uint8_t> first = frame.bytes;
  equalizer.equalize(
      histeq::LumaPlane8{first.data(), frame.size.width, frame.size.height, frame.pitch},
      histeq::full_range(8), every_option(), true);
  equalizer.equalize(plane, histeq::full_range(8), every_option(), false);
  return out;
}

// The variants to time: the default, then every other combination (all) or the others that
// differ from the default in one factor only.
std::vector<hc::KernelConfig> variants(bool all) {
  std::vector<hc::KernelConfig> list{hc::KernelConfig{}};
  for (hc::HistogramMethod h : hc::kHistogramMethods) {
    for (hc::ScanMethod s : hc::kScanMethods) {
      for (hc::LutMemory l : hc::kLutMemories) {
        if (h == hc::HistogramMethod::kAuto || s == hc::ScanMethod::kAuto) continue;
        const hc::KernelConfig c{h, s, l, hc::Fusion::kSeparateKernels};
        // Separate kernels throughout; the default's own kernels (differing in nothing but
        // fusion) show what the single kernel saves.
        if (!all && differs_in(c) > 1) continue;
        list.push_back(c);
      }
    }
  }
  return list;
}

// With `options`, every frame keeps the history and brings its report back (every_option()); its
// history restarts with each batch, so a batch's last frame is the frame's steady state.
EndToEndContender ring_contender(const HostFrame &frame, int depth, HostKind kind,
                                 hc::Transfer transfer = hc::Transfer::kCopyEngines,
                                 bool options = false) {
  auto ring = std::make_shared<hc::FrameEngine>();
  check_engine(ring->init(depth, {}, transfer), "FrameEngine::init");
  // More buffers than the ring holds frames, so no frame in flight shares one.
  auto host = std::make_shared<HostFrames>(frame, kind, ring->capacity() + 2);
  EndToEndContender c;
  c.name = ring_name(depth, host_kind_name(kind), transfer, options);
  const histeq::Params params = options ? every_option() : histeq::Params{};
  if (options) c.reference = steady_options_reference;
  // Submit, waiting for the oldest frame whenever the ring is full, then drain. The harness
  // takes the steady state from batches of two lengths, so filling and draining cancel out.
  c.run = [ring, host, transfer, params](long first, int count) {
    std::uint64_t tag = 0;
    hc::FrameReport report;
    const std::uint64_t zero_copied = ring->zero_copy_frames();
    for (long i = first; i < first + count; ++i) {
      if (ring->full()) check_engine(ring->wait(&tag, &report), "FrameEngine::wait");
      hc::HostFrame next = ring_frame(*host, i);
      next.params = params;
      next.reset = i == first;
      check_engine(ring->submit(next), "FrameEngine::submit of frame " + std::to_string(i) + " (" +
                                           std::to_string(ring->in_flight()) + " in flight)");
    }
    while (ring->in_flight() > 0) check_engine(ring->wait(&tag, &report), "FrameEngine::wait");
    if (transfer == hc::Transfer::kZeroCopy &&
        ring->zero_copy_frames() - zero_copied != std::uint64_t(count))
      throw Failure("FrameEngine took the copy engines for zero-copy frames");
  };
  c.output = [host](long i) -> const std::uint8_t * { return host->out(i); };
  c.output_pitch = frame.pitch;
  return c;
}

// DeviceEqualizer in place on host memory the device addresses: mapped (kernels read and write
// over PCIe) or managed (pages migrate on demand; the CPU reads every page of the result, as a
// consumer of the frame would, which brings it back). One frame after another on one stream;
// the inputs are refilled before each batch, untimed.
EndToEndContender in_place_host_contender(const HostFrame &frame, HostKind kind, int frames) {
  struct State {
    hc::DeviceEqualizer equalizer;
    Stream stream;
    std::unique_ptr<HostFrames> host;
  };
  auto state = std::make_shared<State>();
  check_engine(state->equalizer.init(), "DeviceEqualizer::init");
  state->host = std::make_unique<HostFrames>(frame, kind, frames, /*with_outputs=*/false);
  EndToEndContender c;
  c.name = std::string("engine DeviceEqualizer in place on ") +
           (kind == HostKind::kMapped ? "mapped memory (zero-copy)" : "managed memory");
  c.prepare = [state, &frame](long first, int count) {
    for (long i = first; i < first + count; ++i)
      std::memcpy(state->host->in(i), frame.bytes.data(), frame.bytes.size());
  };
  c.run = [state, kind](long first, int count) {
    const HostFrames &host = *state->host;
    for (long i = first; i < first + count; ++i) {
      const hc::DevicePlane plane{host.in_device(i), host.size().width, host.size().height,
                                  std::size_t(host.pitch())};
      check_engine(state->equalizer.equalize(plane, histeq::full_range(8), {}, state->stream.get()),
                   "DeviceEqualizer::equalize");
    }
    state->stream.sync();
    if (kind == HostKind::kManaged) {
      const std::size_t bytes = std::size_t(host.pitch()) * std::size_t(host.size().height);
      for (long i = first; i < first + count; ++i) {
        const volatile std::uint8_t *p = host.in(i);
        for (std::size_t b = 0; b < bytes; b += 4096) (void)p[b];
      }
    }
  };
  c.output = [state](long i) -> const std::uint8_t * { return state->host->in(i); };
  c.output_pitch = frame.pitch;
  return c;
}

// The default kernels with every option, as a stream runs them: each frame follows the history
// of the frame before, held in two buffers that frames take turns to read and write (a frame's
// blocks read theirs while block 0 writes the next). Primed with the test frame, every frame
// follows the frame's own histogram, the steady state of a repeated frame, so graph replays of
// any length see the same history.
DeviceContender options_contender(FrameSize size, std::ptrdiff_t pitch) {
  struct State {
    hc::DeviceEqualizer equalizer;
    unsigned long long *d_history = nullptr;  // two histories of 256 levels
    unsigned long long *d_report = nullptr;
    int next = 0;  // the history the next frame writes
    ~State() {
      cudaFree(d_history);
      cudaFree(d_report);
    }
    void enqueue(FrameSize size, std::ptrdiff_t pitch, std::uint8_t *plane, cudaStream_t s,
                 bool reset) {
      hc::DeviceTone tone;
      tone.params = every_option();
      tone.reset = reset;
      tone.d_history_in = d_history + 256 * (1 - next);
      tone.d_history_out = d_history + 256 * next;
      tone.d_report = d_report;
      next = 1 - next;
      const hc::DevicePlane p{plane, size.width, size.height, std::size_t(pitch)};
      check_engine(equalizer.equalize(p, histeq::full_range(8), {}, s, tone),
                   "DeviceEqualizer::equalize");
    }
  };
  auto state = std::make_shared<State>();
  check_engine(state->equalizer.init(), "DeviceEqualizer::init");
  check_engine(cudaMalloc(reinterpret_cast<void **>(&state->d_history),
                          2 * 256 * sizeof(unsigned long long)),
               "cudaMalloc");
  check_engine(cudaMalloc(reinterpret_cast<void **>(&state->d_report),
                          hc::report_words(256) * sizeof(std::uint64_t)),
               "cudaMalloc");
  DeviceContender c;
  c.name = options_name();
  c.in_place = true;
  c.reference = steady_options_reference;
  c.prime = [state, size, pitch](std::uint8_t *plane, cudaStream_t s) {
    state->enqueue(size, pitch, plane, s, /*reset=*/true);
  };
  c.enqueue = [state, size, pitch](const std::uint8_t *, std::uint8_t *plane, cudaStream_t s) {
    state->enqueue(size, pitch, plane, s, /*reset=*/false);
  };
  return c;
}

}  // namespace

EngineInfo engine_info() {
  return {true,
          "histeq::cuda (cuda/): DeviceEqualizer in place, " +
              std::to_string(hc::kHistogramMethods.size() - 1) + " histogram methods x " +
              std::to_string(hc::kScanMethods.size() - 1) + " scans x " +
              std::to_string(hc::kLutMemories.size()) + " LUT memories; default " +
              variant_name(hc::resolve({})) +
              " (one cooperative kernel; every variant also as three kernels); FrameEngine for "
              "host frames",
          "CUDA Graphs inside the engine's API (each contender's graph-replay row is what "
          "replaying its launches as a graph costs)"};
}

std::vector<DeviceContender> engine_device_contenders(FrameSize size, std::ptrdiff_t pitch,
                                                      bool all) {
  auto equalizer = std::make_shared<hc::DeviceEqualizer>();
  check_engine(equalizer->init(), "DeviceEqualizer::init");
  std::vector<DeviceContender> list;
  for (const hc::KernelConfig &config : variants(all)) {
    DeviceContender c;
    c.name = same(config, hc::KernelConfig{}) ? default_name() : "engine " + variant_name(config);
    c.in_place = true;
    c.detail = differs_in(config) > 1;
    // In place: the harness passes the same buffer as source and destination.
    c.enqueue = [equalizer, config, size, pitch](const std::uint8_t *, std::uint8_t *plane,
                                                 cudaStream_t s) {
      const hc::DevicePlane p{plane, size.width, size.height, std::size_t(pitch)};
      check_engine(equalizer->equalize(p, histeq::full_range(8), config, s),
                   "DeviceEqualizer::equalize");
    };
    list.push_back(std::move(c));
  }
  list.push_back(options_contender(size, pitch));
  return list;
}

std::vector<EndToEndContender> engine_end_to_end_contenders(const HostFrame &frame,
                                                            int frames_per_batch) {
  std::vector<EndToEndContender> list;
  for (int depth : {1, 2, 3}) list.push_back(ring_contender(frame, depth, HostKind::kPinned));
  list.push_back(
      ring_contender(frame, 2, HostKind::kPinned, hc::Transfer::kCopyEngines, /*options=*/true));
  // Seed 004's mapped transfer as a ring: the kernels read and write the pinned frames.
  for (int depth : {1, 2, 3})
    list.push_back(ring_contender(frame, depth, HostKind::kPinned, hc::Transfer::kZeroCopy));
  list.push_back(ring_contender(frame, 2, HostKind::kPageable));
  // The harness's long batches are two batches long: a buffer per frame.
  list.push_back(in_place_host_contender(frame, HostKind::kMapped, 2 * frames_per_batch));
  list.push_back(in_place_host_contender(frame, HostKind::kManaged, 2 * frames_per_batch));
  return list;
}

GoalRows engine_goal_rows() {
  GoalRows rows;
  rows.engine_device = default_name();
  rows.engine_depth1 = ring_name(1, "pinned");
  rows.engine_depth2 = ring_name(2, "pinned");
  rows.engine_device_options = options_name();
  rows.engine_depth2_options = ring_name(2, "pinned", hc::Transfer::kCopyEngines, true);
  return rows;
}

}  // namespace bench
