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
  std::fprintf(stderr, "  %-10s %-9s %-44s %10.2f us  %s\n", row.size.label().c_str(),
               content_name(row.content), row.variant.c_str(), row.us_per_frame, row.check.c_str());
}

}  // namespace

void measure_device(const DeviceContender &contender, const DevicePlanes &planes,
                    const TestCase &test, const Repeats &repeats, double copy_us,
                    cudaStream_t harness_stream, Results *results) {
  cudaStream_t stream = contender.legacy_default_stream ? nullptr : harness_stream;
  planes.reset_one(0, stream);
  std::uint8_t *out0 = contender.in_place ? planes.src(0) : planes.dst(0);
  contender.enqueue(planes.src(0), out0, stream);
  BENCH_CUDA(cudaStreamSynchronize(stream));
  const std::vector<std::uint8_t> out =
      contender.in_place ? planes.download_src(0) : planes.download_dst(0);
  const std::string check = check_output(out.data(), planes.pitch(), test.frame, test.reference);
  // In-place contenders re-equalize their own output on every later visit of a buffer (the
  // picture stays close to the equalized one, which is what they are timed on); the sources are
  // restored afterwards so that the next contender sees the test frame.
  if (contender.in_place) planes.reset_one(0, stream);
  Row row{Section::kDevice, contender.name, test.content, test.frame.size};
  row.us_per_frame = device_us_per_frame(stream, repeats, [&](long i) {
    contender.enqueue(planes.src(i), contender.in_place ? planes.src(i) : planes.dst(i), stream);
  });
  if (contender.in_place) planes.reset(stream);
  row.ratio = copy_us > 0 ? row.us_per_frame / copy_us : 0;
  row.check = verdict(check, contender.known_defect);
  log_row(row);
  results->add(row);
}

void measure_end_to_end(const EndToEndContender &contender, const TestCase &test,
                        const Repeats &repeats, double floor_us, Results *results) {
  // One full batch first: it warms up and leaves frames to verify.
  contender.run(0, repeats.frames_per_batch);
  const long last = repeats.frames_per_batch - 1;
  const std::string check =
      check_output(contender.output(last), contender.output_pitch, test.frame, test.reference);
  Row row{Section::kEndToEnd, contender.name, test.content, test.frame.size};
  row.us_per_frame = host_us_per_frame(repeats, contender.run);
  row.ratio = floor_us > 0 && row.us_per_frame > 0 ? floor_us / row.us_per_frame : 0;
  row.check = verdict(check, contender.known_defect);
  log_row(row);
  results->add(row);
}

}  // namespace bench
