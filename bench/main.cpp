// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq-bench: the GPU engine's variants next to their physical floors (a D2D copy, the PCIe
// transfers), the library peers (CUB, NPP), the seed-000 baseline and the CPU core, on the same
// frames in one run; every GPU output checked against the CPU core. Prints tables and the goal
// summary, writes CSV (--csv). Progress goes to stderr, results to stdout.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "cpu_peer.h"
#include "engine_contenders.h"
#include "floors.h"
#include "goals.h"
#include "one_kernel_floor.h"
#include "ring_chain_floor.h"
#include "options.h"
#include "peers.h"
#include "planes.h"
#include "results.h"
#include "runner.h"

namespace bench {

namespace {

constexpr const char *kCopyRow = "D2D copy (cudaMemcpy2DAsync)";
constexpr const char *kFloorRow = "PCIe floor (H2D + D2H at once; pinned)";
constexpr const char *kOneKernelRow = "one-kernel floor (read, grid barrier, write back)";
// The ring depth the end-to-end goals are set at, and so the depth of the ring chain floors.
constexpr int kGoalDepth = 2;

struct Gpu {
  cudaDeviceProp prop{};
  int driver = 0, runtime = 0;
};

Gpu open_gpu(int device) {
  Gpu gpu;
  BENCH_CUDA(cudaSetDevice(device));
  BENCH_CUDA(cudaGetDeviceProperties(&gpu.prop, device));
  BENCH_CUDA(cudaDriverGetVersion(&gpu.driver));
  BENCH_CUDA(cudaRuntimeGetVersion(&gpu.runtime));
  BENCH_CUDA(cudaFree(nullptr));  // create the context outside any timed region
  return gpu;
}

void print_header(const Gpu &gpu, const Options &o, const EngineInfo &engine,
                  const std::string &npp) {
  std::printf("histeq-bench on %s: %d SMs, %.0f MB L2, driver %d, runtime %d; %u CPU threads\n",
              gpu.prop.name, gpu.prop.multiProcessorCount, gpu.prop.l2CacheSize / 1e6, gpu.driver,
              gpu.runtime, std::thread::hardware_concurrency());
  std::printf("engine: %s\n", engine.description.c_str());
  if (!engine.not_offered.empty())
    std::printf("asked for but not offered by the engine (not measured): %s\n",
                engine.not_offered.c_str());
  std::printf("NPP: %s\n", npp.c_str());
  std::printf("mode: %s; device-resident rotates through > 2x L2 of frames; full range output\n",
              o.quick ? "quick (noisy)" : "full");
}

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::ptrdiff_t pitch_for(FrameSize size) {
  // Contiguous rows when they are 16-byte multiples (every standard size), else padded to 64.
  return size.width % 16 == 0 ? size.width : (size.width + 63) / 64 * 64;
}

void measure_size(FrameSize size, const Options &o, const Gpu &gpu, NppPeer *npp,
                  histeq::CpuEqualizer &cpu_one, histeq::CpuEqualizer &cpu_all, Results *results) {
  const std::ptrdiff_t pitch = pitch_for(size);
  const Repeats device_reps = o.device_repeats(size);
  const Repeats e2e_reps = o.end_to_end_repeats(size);
  Stream stream;
  const double plane_gb = double(pitch) * size.height / 1e9;

  std::vector<DeviceContender> device = engine_device_contenders(size, pitch, o.all_variants);
  for (auto &c : peer_device_contenders(size, pitch, gpu.prop.multiProcessorCount, o.device, npp))
    device.push_back(std::move(c));

  for (Content content : o.contents) {
    const HostFrame frame = make_frame(content, size, pitch, 0x1234u + unsigned(content));
    const std::vector<std::uint8_t> reference = cpu_reference(frame);
    const TestCase test{frame, reference, content};
    const long frames_timed =
        long(device_reps.warmup_batches + device_reps.batches) * device_reps.frames_per_batch;
    const DevicePlanes planes(frame, 2 * std::size_t(gpu.prop.l2CacheSize), frames_timed);

    CopyTimes copy{};
    for (Launch launch : {Launch::kGraph, Launch::kStream}) {
      Row row{launch == Launch::kGraph ? Section::kDevice : Section::kDeviceLaunched, kCopyRow,
              content, size};
      row.us_per_frame = d2d_copy_us(planes, stream.get(), device_reps, launch);
      row.ratio = 1.0;
      row.check = "-";
      results->add(row);
      (launch == Launch::kGraph ? copy.graph_us : copy.launched_us) = row.us_per_frame;
      Row one_kernel{row.section, kOneKernelRow, content, size};
      try {
        one_kernel.us_per_frame = one_kernel_floor_us(planes, stream.get(), device_reps, launch);
      } catch (const Failure &failure) {
        record_failure(row.section, kOneKernelRow, test, failure, results);
        continue;
      }
      one_kernel.ratio = one_kernel.us_per_frame / row.us_per_frame;
      one_kernel.check = "-";
      if (one_kernel.us_per_frame > 0) results->add(one_kernel);
    }
    if (content == o.contents.front()) {
      results->note(size.label() +
                    " D2D copy (graph replay): " + fixed(2 * plane_gb / copy.graph_us * 1e6) +
                    " GB/s counting bytes read and written");
    }
    for (const DeviceContender &c : device)
      measure_device(c, planes, test, device_reps, copy, stream.get(), results);

    for (histeq::CpuEqualizer *cpu : {&cpu_one, &cpu_all}) {
      const std::vector<double> us =
          cpu_us_per_frame(*cpu, frame, o.cpu_runs(), {histeq::Params{}, every_option()});
      for (bool options : {false, true}) {
        Row row{Section::kCpu,
                "CPU core " + std::to_string(cpu->threads()) +
                    (cpu->threads() == 1 ? " thread" : " threads") +
                    (options ? ", every option" : ""),
                content, size};
        row.us_per_frame = us[options];
        row.check = "reference";
        results->add(row);
      }
    }

    if (content != Content::kNatural) continue;
    std::vector<EndToEndContender> e2e =
        engine_end_to_end_contenders(frame, e2e_reps.frames_per_batch);
    for (auto &c : ring_chain_floor_contenders(frame, kGoalDepth)) e2e.push_back(std::move(c));
    for (auto &c : seed_end_to_end_contenders(frame)) e2e.push_back(std::move(c));
    // The floor is measured again in every round; the note gives the round at its median.
    std::vector<PcieFloor> floors;
    const EndToEndFloor floor{kFloorRow, o.end_to_end_rounds(), [&] {
                                std::fprintf(stderr, "%s: PCIe floor...\n", size.label().c_str());
                                floors.push_back(pcie_floor(size, pitch, e2e_reps));
                                return floors.back().both_us;
                              }};
    const double floor_us = measure_end_to_end(e2e, test, e2e_reps, floor, results);
    const PcieFloor &at_median = *std::min_element(
        floors.begin(), floors.end(), [&](const PcieFloor &a, const PcieFloor &b) {
          return std::abs(a.both_us - floor_us) < std::abs(b.both_us - floor_us);
        });
    std::string ways;
    for (const auto &[how, us] : at_median.ways)
      ways += (ways.empty() ? "" : "; ") + how + " " + fixed(us) + " us";
    results->note(size.label() + " PCIe (median of " + std::to_string(floors.size()) +
                  " rounds): H2D alone " + fixed(plane_gb / at_median.h2d_us * 1e6) +
                  " GB/s, D2H alone " + fixed(plane_gb / at_median.d2h_us * 1e6) +
                  " GB/s, both at once " + fixed(plane_gb / at_median.both_us * 1e6) +
                  " GB/s each way (" + at_median.how + "); both at once per frame: " + ways);
    // Torn down here, so that an error in a destructor is seen and named here.
    e2e.clear();
    const cudaError_t pending = cudaGetLastError();
    if (pending != cudaSuccess) {
      results->note(size.label() + ": tearing down the end-to-end contenders left " +
                    cudaGetErrorName(pending) + " pending (cleared)");
    }
  }
}

int run(int argc, char **argv) {
  Options options;
  std::string message;
  if (!parse_options(argc, argv, &options, &message)) {
    std::fputs(message.c_str(), stderr);
    return message.rfind("usage", 0) == 0 ? 0 : 2;
  }
  const Gpu gpu = open_gpu(options.device);
  std::string npp_status;
  std::unique_ptr<NppPeer> npp = NppPeer::load(&npp_status);
  npp_status = npp ? "NPP " + npp->version() : "NPP not available (" + npp_status + ")";
  const EngineInfo engine = engine_info();
  print_header(gpu, options, engine, npp_status);

  histeq::CpuEqualizer cpu_one(1), cpu_all(0);
  Results results;
  for (FrameSize size : options.sizes)
    measure_size(size, options, gpu, npp.get(), cpu_one, cpu_all, &results);

  results.print_tables(std::cout);
  GoalRows goal_rows = engine_goal_rows();
  goal_rows.cub_device = peer_names::kCub;
  goal_rows.seed_device = peer_names::kSeedDevice;
  goal_rows.seed_end_to_end = peer_names::kSeedPageable;
  goal_rows.one_kernel_floor = kOneKernelRow;
  goal_rows.ring_chain_no_kernel = ring_chain_floor_name(kGoalDepth, false);
  goal_rows.ring_chain_empty_kernel = ring_chain_floor_name(kGoalDepth, true);
  const int missed = print_goals(results, goal_rows, std::cout);
  std::cout << missed << " goal(s) missed\n";

  if (!options.csv_path.empty()) {
    if (!results.write_csv(options.csv_path)) {
      std::fprintf(stderr, "histeq-bench: cannot write %s\n", options.csv_path.c_str());
      return 1;
    }
    std::cout << "CSV: " << options.csv_path << "\n";
  }
  const int bad = results.unexpected_mismatches();
  if (bad > 0) {
    std::cout << "\n!!!!!!!! " << bad
              << " GPU result(s) DIFFER FROM histeq::CpuEqualizer: their timings are of wrong "
                 "output !!!!!!!!\n";
    return 3;
  }
  std::cout << "every GPU output matched histeq::CpuEqualizer byte for byte (seed-000's own "
               "defects excepted, listed above)\n";
  return 0;
}

}  // namespace

}  // namespace bench

int main(int argc, char **argv) {
  try {
    return bench::run(argc, argv);
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "histeq-bench: %s\n", e.what());
    return 1;
  }
}
