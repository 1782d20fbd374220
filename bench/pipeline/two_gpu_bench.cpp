// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq-two-gpu-bench: two 4K NV12 pipelines `appsrc ! cudahisteq cuda-device-id=N depth=2 !
// fakesink`, N = 0 and 1, each alone and both at once, against the PCIe floor of its own GPU
// measured alone and on both GPUs at once in the same round. Two GPUs on one host may share a
// PCIe switch or root port, so a pipeline's floor at once can be lower than alone: each
// pipeline is divided by the floor of the same conditions. Run on a machine of two GPUs with
// the plugin on GST_PLUGIN_PATH:
//   histeq-two-gpu-bench [--frames N] [--rounds N] [--width W --height H]
// Exits 77 (skipped) with fewer than two CUDA devices.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>
#include <gst/gst.h>

#include "floors.h"
#include "pipeline_run.h"

namespace {

constexpr int kSkipped = 77;
constexpr int kGpus = 2;

// Frames per second of the PCIe floor of a run of `frames` frames on `device`; 0 on failure.
double stretch_floor(int device, bench::FrameSize size, int frames) {
  try {
    if (cudaSetDevice(device) != cudaSuccess) return 0;
    return 1e6 / bench::pcie_stretch_us(size, frames, int(kPrepared));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "PCIe floor of device %d not measured: %s\n", device, e.what());
    return 0;
  }
}

double pipeline_fps(int device, const GstVideoInfo &info, int frames) {
  const std::string element = "cudahisteq cuda-device-id=" + std::to_string(device) + " depth=2";
  return run_pipeline(element, element, info, Source::kPinnedPool, frames, false);
}

// `measure(device)` on each GPU, one after the other (together = false) or at once.
template <typename Measure>
std::array<double, kGpus> on_each_gpu(bool together, Measure measure) {
  std::array<double, kGpus> result{};
  if (!together) {
    for (int d = 0; d < kGpus; ++d) result[d] = measure(d);
    return result;
  }
  std::vector<std::thread> threads;
  for (int d = 0; d < kGpus; ++d) threads.emplace_back([&, d] { result[d] = measure(d); });
  for (std::thread &t : threads) t.join();
  return result;
}

// A failed measurement (<= 0) sorts first and fails the figure.
double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[0] <= 0 ? values[0] : values[values.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  int frames = 1000, rounds = 5, width = 3840, height = 2160;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--frames")) frames = std::max(2, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--width")) width = std::max(2, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--height")) height = std::max(2, std::atoi(argv[i + 1]));
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < kGpus) {
    std::printf("histeq-two-gpu-bench: needs %d CUDA devices, this machine has %d; skipped\n",
                kGpus, devices);
    return kSkipped;
  }
  for (int d = 0; d < kGpus; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) == cudaSuccess)
      std::printf("device %d: %s, PCI %04x:%02x:%02x\n", d, prop.name, prop.pciDomainID,
                  prop.pciBusID, prop.pciDeviceID);
  }
  const bench::FrameSize size{width, height};
  const GstVideoInfo info = nv12_info(width, height);
  // Per GPU and condition (0: alone, 1: both at once): floors, pipelines, ratios per round.
  std::array<std::array<std::vector<double>, 2>, kGpus> floors, fps, ratios;
  for (int round = 0; round < rounds; ++round) {
    std::fprintf(stderr, "round %d of %d\n", round + 1, rounds);
    for (int together = 0; together < 2; ++together) {
      const auto floor =
          on_each_gpu(together, [&](int d) { return stretch_floor(d, size, frames); });
      const auto run = on_each_gpu(together, [&](int d) { return pipeline_fps(d, info, frames); });
      for (int d = 0; d < kGpus; ++d) {
        floors[d][together].push_back(floor[d]);
        fps[d][together].push_back(run[d]);
        ratios[d][together].push_back(floor[d] > 0 && run[d] > 0 ? run[d] / floor[d] : 0);
        std::fprintf(stderr, "  device %d %s: %.0f fps, floor %.0f fps\n", d,
                     together ? "both at once" : "alone", run[d], floor[d]);
      }
    }
  }
  std::printf(
      "%dx%d NV12, cudahisteq depth=2 with the pinned pool, %d frames a run, median of %d "
      "rounds\n",
      width, height, frames, rounds);
  std::printf("%-8s %-14s %12s %12s %10s\n", "device", "runs", "floor (fps)", "element (fps)",
              "x floor");
  bool failed = false;
  for (int d = 0; d < kGpus; ++d) {
    for (int together = 0; together < 2; ++together) {
      const double element = median(fps[d][together]);
      failed |= element <= 0 || median(floors[d][together]) <= 0;
      std::printf("%-8d %-14s %12.0f %12.0f %10.3f\n", d, together ? "both at once" : "alone",
                  median(floors[d][together]), element, std::max(0.0, median(ratios[d][together])));
    }
  }
  if (failed) std::printf("a run or a floor failed (the reasons are on stderr)\n");
  return failed ? 1 : 0;
}
