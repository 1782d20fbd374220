// SPDX-License-Identifier: LGPL-2.1-or-later
#include "side_by_side.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

namespace bench {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

double median_fps(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  return 1.0 / seconds[seconds.size() / 2];
}

std::vector<double> fps_side_by_side(const std::vector<Timed> &contenders, int runs) {
  std::size_t largest = 0;
  for (const Timed &c : contenders) largest = std::max(largest, c.frame->size());
  std::vector<std::uint8_t> work(largest);
  std::vector<std::vector<double>> seconds(contenders.size());
  for (int i = 0; i <= runs; ++i) {
    for (std::size_t turn = 0; turn < contenders.size(); ++turn) {
      const std::size_t c = (std::size_t(i) + turn) % contenders.size();
      const std::vector<std::uint8_t> &frame = *contenders[c].frame;
      std::this_thread::sleep_for(kIdleBeforeTurn);
      std::memcpy(work.data(), frame.data(), frame.size());
      const auto t0 = Clock::now();
      contenders[c].equalize(work.data());
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      if (i > 0) seconds[c].push_back(s);
    }
  }
  std::vector<double> fps;
  for (auto &times : seconds) fps.push_back(median_fps(std::move(times)));
  return fps;
}

std::vector<double> fps_side_by_side(const std::vector<Equalize> &contenders,
                                     const std::vector<std::uint8_t> &frame, int runs) {
  std::vector<Timed> timed;
  for (const Equalize &c : contenders) timed.push_back({c, &frame});
  return fps_side_by_side(timed, runs);
}

std::vector<std::uint8_t> packed_frame(const std::vector<std::uint8_t> &luma, int pixel_bytes,
                                       bool rgb) {
  std::vector<std::uint8_t> bytes(luma.size() * std::size_t(pixel_bytes), 128);
  for (std::size_t i = 0; i < luma.size(); ++i) {
    std::uint8_t *p = &bytes[i * std::size_t(pixel_bytes)];
    if (!rgb) {
      p[0] = luma[i];
      continue;
    }
    const int tint = int(std::uint32_t(i) * 2654435761u >> 27) - 16;
    p[0] = std::uint8_t(std::clamp(luma[i] + tint, 0, 255));
    p[1] = std::uint8_t(std::clamp(luma[i] - tint / 2, 0, 255));
    p[2] = std::uint8_t(std::clamp(luma[i] + tint / 3, 0, 255));
  }
  return bytes;
}

std::vector<std::uint8_t> ten_bit_words(const std::vector<std::uint8_t> &luma) {
  std::vector<std::uint8_t> words(2 * luma.size());
  for (std::size_t i = 0; i < luma.size(); ++i) {
    const std::uint16_t word = std::uint16_t(luma[i] * 4 + (i * 2654435761u >> 30));
    std::memcpy(&words[2 * i], &word, 2);
  }
  return words;
}

}  // namespace bench
