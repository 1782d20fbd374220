// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_peer.h"

#include <chrono>
#include <cstring>

#include "timing.h"

namespace bench {

namespace {

histeq::LumaPlane8 plane_of(std::vector<std::uint8_t> &bytes, const HostFrame &frame) {
  return {bytes.data(), frame.size.width, frame.size.height, frame.pitch};
}

}  // namespace

std::vector<std::uint8_t> cpu_reference(const HostFrame &frame, const histeq::Params &params) {
  std::vector<std::uint8_t> out = frame.bytes;
  histeq::CpuEqualizer equalizer(0);
  equalizer.equalize(plane_of(out, frame), histeq::full_range(8), params, true);
  return out;
}

std::vector<double> cpu_us_per_frame(histeq::CpuEqualizer &equalizer, const HostFrame &frame,
                                     int runs, const std::vector<histeq::Params> &settings) {
  std::vector<std::uint8_t> work(frame.bytes.size());
  std::vector<std::vector<double>> us(settings.size());
  for (int i = 0; i <= runs; ++i) {
    for (std::size_t s = 0; s < settings.size(); ++s) {
      std::memcpy(work.data(), frame.bytes.data(), work.size());
      const auto t0 = std::chrono::steady_clock::now();
      equalizer.equalize(plane_of(work, frame), histeq::full_range(8), settings[s]);
      const auto t1 = std::chrono::steady_clock::now();
      if (i > 0) us[s].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
  }
  std::vector<double> medians;
  for (std::vector<double> &of_setting : us) medians.push_back(median(of_setting));
  return medians;
}

}  // namespace bench
