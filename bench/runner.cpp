// SPDX-License-Identifier: LGPL-2.1-or-later
#include "runner.h"

#include <cstdio>

namespace bench {

namespace {

std::string verdict(const std::string &check, const std::string &known_defect) {
  if (check == "ok" || known_defect.empty()) return check;
  return "expected-mismatch (" + known_defect + "): " + check.substr(sizeof("MISMATCH ") - 1);
}

void log_row(const Row &row) {
  std::fprintf(stderr, "  %-10s %-9s %-15s %-50s %10.2f us  %s\n", row.size.label().c_str(),
               content_name(row.content), section_name(row.section), row.variant.c_str(),
               row.us_per_frame, row.check.c_str());
}

// Runs one frame launched on `stream` into a poisoned destination (for in-place contenders the
// source is the output) and compares it with the reference; restores what it changed.
std::string verify_one(const DeviceContender &contender, const DevicePlanes &planes,
                       const TestCase &test, cudaStream_t stream) {
  planes.reset_one(0, stream);
  std::uint8_t *out0 = contender.in_place ? planes.src(0) : planes.dst(0);
  contender.enqueue(planes.src(0), out0, stream);
  BENCH_CUDA(cudaStreamSynchronize(stream));
  const std::vector<std::uint8_t> out = planes.download(out0);
  if (contender.in_place) planes.reset_one(0, stream);
  return verdict(
      check_output(out.data(), planes.pitch(), test.frame,
                   contender.reference ? contender.reference(test.frame) : test.reference),
      contender.known_defect);
}

void measure_device_or_throw(const DeviceContender &contender, const DevicePlanes &planes,
                             const TestCase &test, const Repeats &repeats, CopyTimes copy,
                             cudaStream_t harness_stream, Results *results) {
  // Call-by-call launches go where the contender launches (the seed: the legacy stream); graph
  // capture needs the harness's stream.
  cudaStream_t launch_stream = contender.legacy_default_stream ? nullptr : harness_stream;
  if (contender.prime) contender.prime(planes.src(0), launch_stream);
  // Checked before the timings and again after them: state a contender keeps between frames
  // (or a graph replay) must not change its output.
  std::string check = verify_one(contender, planes, test, launch_stream);
  const auto recheck = [&] {
    const std::string after = verify_one(contender, planes, test, launch_stream);
    if (after != check && check.rfind("MISMATCH", 0) != 0) check = after + " (after timing)";
  };

  // Each timed frame has a source of its own, so in-place contenders see the test frame every
  // time; the sources they changed are restored after each timing.
  auto frame = [&](cudaStream_t stream) {
    return [&contender, &planes, stream](long i) {
      contender.enqueue(planes.src(i), contender.in_place ? planes.src(i) : planes.dst(i), stream);
    };
  };
  Row graph_row{Section::kDevice, contender.name, test.content, test.frame.size};
  bool captured = false;
  if (!contender.launched_only) {
    try {
      graph_row.us_per_frame = graph_us_per_frame(harness_stream, repeats, frame(harness_stream));
      captured = true;
    } catch (const Failure &failure) {
      results->note(contender.name + ": not timed as a CUDA graph (" + failure.what() +
                    "); launched call by call only");
    }
    if (contender.in_place) planes.reset(harness_stream);
  }
  // Headline contenders, and those that cannot be captured, are also timed launched.
  Row launched_row{Section::kDeviceLaunched, contender.name, test.content, test.frame.size};
  const bool launched = !captured || !contender.detail;
  if (launched) {
    launched_row.us_per_frame = device_us_per_frame(launch_stream, repeats, frame(launch_stream));
    if (contender.in_place) planes.reset(launch_stream);
  }
  recheck();
  if (captured) {
    graph_row.ratio = copy.graph_us > 0 ? graph_row.us_per_frame / copy.graph_us : 0;
    graph_row.check = check;
    graph_row.detail = contender.detail;
    log_row(graph_row);
    results->add(graph_row);
  }
  if (launched) {
    launched_row.ratio = copy.launched_us > 0 ? launched_row.us_per_frame / copy.launched_us : 0;
    launched_row.check = check;
    log_row(launched_row);
    results->add(launched_row);
  }
}

// One full batch: it warms up and leaves frames to compare with the reference.
std::string verify_end_to_end(const EndToEndContender &contender, const TestCase &test,
                              const Repeats &repeats) {
  if (contender.prepare) contender.prepare(0, repeats.frames_per_batch);
  contender.run(0, repeats.frames_per_batch);
  const long last = repeats.frames_per_batch - 1;
  const std::vector<std::uint8_t> expected = contender.returns_input ? test.frame.bytes
                                             : contender.reference ? contender.reference(test.frame)
                                                                   : test.reference;
  return verdict(check_output(contender.output(last), contender.output_pitch, test.frame, expected),
                 contender.known_defect);
}

double time_end_to_end(const EndToEndContender &contender, const Repeats &repeats) {
  // Frame numbers go on from the verification batch.
  const long offset = repeats.frames_per_batch;
  std::function<void(long, int)> prepare;
  if (contender.prepare)
    prepare = [&](long first, int count) { contender.prepare(offset + first, count); };
  return steady_us_per_frame(repeats, prepare,
                             [&](long first, int count) { contender.run(offset + first, count); });
}

// A CUDA error left pending by something earlier would be reported by the next call that
// checks cudaGetLastError, i.e. blamed on the wrong contender: it is cleared and noted.
void clear_pending_error(const std::string &before, Results *results) {
  const cudaError_t pending = cudaGetLastError();
  if (pending == cudaSuccess) return;
  results->note(std::string("a CUDA error was pending before ") + before + ": " +
                cudaGetErrorName(pending) + " (cleared; not counted against it)");
  std::fprintf(stderr, "!! pending CUDA error before %s: %s (cleared)\n", before.c_str(),
               cudaGetErrorName(pending));
}

}  // namespace

void record_failure(Section section, const std::string &name, const TestCase &test,
                    const Failure &failure, Results *results) {
  const cudaError_t sticky = cudaDeviceSynchronize();
  Row row{section, name, test.content, test.frame.size};
  row.check = std::string("ERROR ") + failure.what();
  std::fprintf(stderr, "!! %s %s %s: %s\n", test.frame.size.label().c_str(),
               content_name(test.content), name.c_str(), failure.what());
  results->add(row);
  if (sticky != cudaSuccess) throw;
  (void)cudaGetLastError();
}

void measure_device(const DeviceContender &contender, const DevicePlanes &planes,
                    const TestCase &test, const Repeats &repeats, CopyTimes copy,
                    cudaStream_t harness_stream, Results *results) {
  clear_pending_error(contender.name, results);
  try {
    measure_device_or_throw(contender, planes, test, repeats, copy, harness_stream, results);
  } catch (const Failure &failure) {
    record_failure(Section::kDevice, contender.name, test, failure, results);
  }
}

double measure_end_to_end(const std::vector<EndToEndContender> &contenders, const TestCase &test,
                          const Repeats &repeats, const EndToEndFloor &floor, Results *results) {
  struct Runs {
    std::string check;
    std::vector<double> us;
    bool failed = false;
  };
  std::vector<Runs> runs(contenders.size());
  std::vector<double> floor_us;
  for (int round = 0; round < floor.rounds; ++round) {
    floor_us.push_back(floor.measure_us());
    for (std::size_t i = 0; i < contenders.size(); ++i) {
      const EndToEndContender &contender = contenders[i];
      if (runs[i].failed) continue;
      clear_pending_error(contender.name, results);
      try {
        if (round == 0) runs[i].check = verify_end_to_end(contender, test, repeats);
        runs[i].us.push_back(time_end_to_end(contender, repeats));
      } catch (const Failure &failure) {
        record_failure(Section::kEndToEnd, contender.name, test, failure, results);
        runs[i].failed = true;
      }
    }
  }
  Row floor_row{Section::kEndToEnd, floor.name, test.content, test.frame.size};
  floor_row.us_per_frame = median(floor_us);
  floor_row.ratio = 1.0;
  floor_row.check = "-";
  results->add(floor_row);
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    if (runs[i].failed) continue;
    Row row{Section::kEndToEnd, contenders[i].name, test.content, test.frame.size};
    row.us_per_frame = median(runs[i].us);
    row.ratio = floor_row.us_per_frame > 0 && row.us_per_frame > 0
                    ? floor_row.us_per_frame / row.us_per_frame
                    : 0;
    row.check = runs[i].check;
    log_row(row);
    results->add(row);
  }
  return floor_row.us_per_frame;
}

}  // namespace bench
