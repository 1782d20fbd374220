// SPDX-License-Identifier: LGPL-2.1-or-later
// 10, 12 and 16-bit luma in 16-bit words on the GPU (deep_kernels.h), bit-exact with the CPU core
// (DeepCpuEqualizer on the same planes) frame by frame: every depth LSB- and MSB-aligned, odd and
// large sizes, rows in 16-byte chunks and rows that are not, the classic mapping and every option
// with its history and its reports of 2^bits bins, frames in host memory and in device memory
// through one engine, malformed words, depth changes mid-stream, and out of place. Bytes outside
// the pixels (row padding) are never written, and MSB-aligned words keep their low bits zero.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cpu_equalizer.h"
#include "deep_kernels.h"
#include "fault_injection.h"
#include "device_equalizer.h"
#include "engine_frames.h"
#include "frame_engine.h"
#include "gpu_frames.h"
#include "gpu_test_support.h"
#include "params.h"
#include "sample_layout.h"

using histeq::SampleLayout;
using histeq::cuda::deep_luma_layout;
using histeq::cuda::DevicePlane;
using histeq::cuda::FrameEngine;
using histeq::cuda::FrameReport;
using histeq::cuda::PixelLayout;

namespace {

struct Format {
  const char *name;
  SampleLayout sample;
};

// The luma planes of GStreamer's deep formats: each depth, LSB- and MSB-aligned.
const std::vector<Format> &formats() {
  static const std::vector<Format> all = {
      {"I420_10LE", {10, 0}}, {"P010_10LE", {10, 6}}, {"I420_12LE", {12, 0}},
      {"P012_LE", {12, 4}},   {"GRAY16_LE", {16, 0}},
  };
  return all;
}

histeq::Settings every_option() {
  histeq::Settings s;
  s.strength = 0.8;
  s.clip_limit = 2;
  s.smoothing = 10;
  s.statistics = true;
  return s;
}

// How a frame's rows lie: packed; padded to the next multiple of 16 bytes past the row (the
// kernels walk them in 16-byte chunks, and there is always padding to leave alone); or padded to
// a pitch that is no multiple of 16 (walked word by word).
enum class Rows { kPacked, kChunked, kUnaligned };

struct Size {
  int width, height;
  Rows rows;
};

std::size_t pitch_for(const Size &size) {
  const std::size_t row = std::size_t(size.width) * 2;
  switch (size.rows) {
    case Rows::kPacked:
      return row;
    case Rows::kChunked:
      return (row / 16 + 1) * 16;
    case Rows::kUnaligned:
      return row + (row % 16 == 14 ? 4 : 2);
  }
  return row;
}

std::string size_name(const Size &size) {
  return std::to_string(size.width) + "x" + std::to_string(size.height) + " pitch " +
         std::to_string(pitch_for(size));
}

// Frame `i` of a clip in `sample`'s words: a diagonal gradient with noise over 40% of the levels,
// every third frame from the second on a little darker (the history follows it, no cut), and
// from frame `cut` on a second scene over the upper levels, its gradient the other way (a cut).
// No frame reaches the top level.
PixelFrame deep_frame(SampleLayout sample, int width, int height, std::size_t pitch, int i, int cut,
                      std::mt19937 &rng) {
  PixelFrame frame = random_frame(deep_luma_layout(sample), width, height, pitch, rng);
  const int levels = int(sample.levels());
  const int noise = levels / 64;
  const int span = levels * 2 / 5 - noise;
  const bool second_scene = i >= cut;
  const int base = (second_scene ? levels * 11 / 20 : levels / 8) - (i % 3 == 1 ? levels / 25 : 0);
  const int diagonal = std::max(1, width + height - 2);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const int along = second_scene ? (width - 1 - x) + (height - 1 - y) : x + y;
      const int level = base + span * along / diagonal + int(rng() % unsigned(noise));
      frame.word_row(y)[x] = sample.word_of(std::uint32_t(level));
    }
  return frame;
}

std::vector<PixelFrame> deep_clip(SampleLayout sample, int width, int height, std::size_t pitch,
                                  int frames, int cut) {
  std::mt19937 rng(unsigned(width * 131 + height * 7 + sample.bits * 3 + sample.shift));
  std::vector<PixelFrame> clip;
  for (int i = 0; i < frames; ++i)
    clip.push_back(deep_frame(sample, width, height, pitch, i, cut, rng));
  return clip;
}

// 8-bit frames of one scene (gpu_frames.h's natural content, its noise new in each frame).
std::vector<PixelFrame> byte_clip(int width, int height, std::size_t pitch, int frames) {
  std::mt19937 rng(unsigned(width + height));
  std::vector<PixelFrame> clip;
  for (int i = 0; i < frames; ++i) {
    PixelFrame frame = random_frame(PixelLayout{}, width, height, pitch, rng);
    set_visible_bytes(frame, make_frame(Content::kNatural, width, height, unsigned(i)));
    clip.push_back(std::move(frame));
  }
  return clip;
}

// Visible words with any of the `shift` bits below the sample set: a frame the kernels wrote in
// an MSB-aligned format has none (an LSB-aligned one has no such bits).
std::size_t words_with_low_bits(const PixelFrame &frame) {
  if (!frame.layout.deep()) return 0;
  const std::uint32_t low = (1u << frame.layout.sample.shift) - 1;
  std::size_t count = 0;
  for (int y = 0; y < frame.height; ++y)
    count += std::size_t(std::count_if(frame.word_row(y), frame.word_row(y) + frame.width,
                                       [&](std::uint16_t word) { return (word & low) != 0; }));
  return count;
}

// (format, every option or the classic mapping, large frames or small ones).
class DeepEngine : public ::testing::TestWithParam<std::tuple<std::size_t, bool, bool>> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
  const Format &format() const { return formats()[std::get<0>(GetParam())]; }
  bool options() const { return std::get<1>(GetParam()); }
  bool large() const { return std::get<2>(GetParam()); }
};

}  // namespace

// A clip with a cut in the middle, host frames (even) and device frames (odd) through one engine
// of depth 3: each frame identical with the core's, padding included, and with options each
// report the core's histogram of 2^bits bins and its restart.
TEST_P(DeepEngine, HostAndDeviceFramesEqualTheCore) {
  const SampleLayout sample = format().sample;
  const histeq::Params params = histeq::to_params(options() ? every_option() : histeq::Settings{});
  const std::vector<Size> sizes =
      large() ? std::vector<Size>{{1920, 1080, Rows::kPacked}, {3840, 2160, Rows::kPacked}}
              : std::vector<Size>{{1, 1, Rows::kChunked},     {1, 1, Rows::kUnaligned},
                                  {7, 3, Rows::kChunked},     {7, 3, Rows::kUnaligned},
                                  {67, 33, Rows::kChunked},   {67, 33, Rows::kUnaligned},
                                  {385, 289, Rows::kChunked}, {385, 289, Rows::kUnaligned}};
  for (const Size &size : sizes) {
    // Two 4K frames (a host one, then a device one that cuts) keep the suite short.
    const int frames = size.width == 3840 ? 2 : large() ? 4 : 6;
    const auto clip =
        deep_clip(sample, size.width, size.height, pitch_for(size), frames, frames / 2);
    for (bool limited : {false, true}) {
      SCOPED_TRACE(size_name(size) + (limited ? " limited" : " full"));
      const auto expected = cpu_clip(clip, limited, params);
      // The GPU's restart is compared where the core's happens.
      if (params.keep_history) {
        EXPECT_TRUE(expected[std::size_t(frames / 2)].restarted);
      }
      EngineOutput out;
      ASSERT_NO_FATAL_FAILURE(run_engine(clip, 3, limited, params, &out));
      expect_equal_to_the_core(out, expected, params);
      for (std::size_t i = 0; i < out.frames.size(); ++i)
        EXPECT_EQ(words_with_low_bits(out.frames[i]), 0u) << "frame " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, DeepEngine,
                         ::testing::Combine(::testing::Range<std::size_t>(0, 5), ::testing::Bool(),
                                            ::testing::Bool()),
                         [](const auto &info) {
                           return std::string(formats()[std::get<0>(info.param)].name) +
                                  (std::get<1>(info.param) ? "_every_option" : "_classic") +
                                  (std::get<2>(info.param) ? "_large" : "_small");
                         });

// Words above the top level (only a malformed LSB-aligned frame has them: 0xFFFF in a 10-bit
// format) count as the top level and are mapped as it is (SampleLayout::level_of), on the GPU as
// on the CPU, in 16-byte chunks (host frames, staged) and word by word (device frames).
TEST(DeepSamples, MalformedWordsCountAsTheTopLevel) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const histeq::Params params = histeq::to_params(every_option());
  for (const SampleLayout sample : {SampleLayout{10, 0}, SampleLayout{12, 0}}) {
    SCOPED_TRACE(std::to_string(sample.bits) + " bits");
    const Size size{130, 70, Rows::kUnaligned};
    auto clip = deep_clip(sample, size.width, size.height, pitch_for(size), 4, 2);
    const std::uint32_t top = sample.levels() - 1;
    const std::uint16_t malformed[] = {std::uint16_t(top + 1), std::uint16_t(2 * top + 1), 0x8000,
                                       0xFFFF};
    std::size_t planted = 0;  // in each frame: the same words
    for (PixelFrame &frame : clip) {
      planted = 0;
      for (int y = 0; y < frame.height; ++y)
        for (int x = (3 * y) % 11; x < frame.width; x += 11, ++planted)
          frame.word_row(y)[x] = malformed[(x + y) % 4];
    }
    const auto expected = cpu_clip(clip, false, params);
    EngineOutput out;
    ASSERT_NO_FATAL_FAILURE(run_engine(clip, 2, false, params, &out));
    expect_equal_to_the_core(out, expected, params);
    for (std::size_t i = 0; i < clip.size(); ++i) {
      // The content itself never reaches the top level: its bin holds the malformed words alone.
      ASSERT_EQ(out.reports[i].histogram.size(), std::size_t(top) + 1);
      EXPECT_EQ(out.reports[i].histogram[top], planted) << "frame " << i;
      for (int y = 0; y < out.frames[i].height; ++y) {
        const std::uint16_t *row = out.frames[i].word_row(y);
        ASSERT_LE(*std::max_element(row, row + out.frames[i].width), top)
            << "frame " << i << " row " << y;
      }
    }
  }
}

// An identity LUT (a frame of one level; strength 0 with statistics on) leaves every word as it
// is, as the core does, malformed bits included: the top level's words above it (LSB-aligned)
// and P010's low bits. Out of place the words are copied as they are.
TEST(DeepSamples, AnIdentityLutLeavesEveryWordAsItIs) {
  SKIP_WITHOUT_CUDA_DEVICE();
  histeq::Settings statistics_only;
  statistics_only.strength = 0;
  statistics_only.statistics = true;
  const Size size{130, 70, Rows::kChunked};
  for (const SampleLayout sample : {SampleLayout{10, 0}, SampleLayout{10, 6}}) {
    SCOPED_TRACE("shift " + std::to_string(sample.shift));
    std::mt19937 rng(3);
    // One level: every word of the LSB-aligned frame is 0xFFFF (the top level, bits above it
    // set); every P010 word is level 300 with random low bits.
    PixelFrame flat =
        random_frame(deep_luma_layout(sample), size.width, size.height, pitch_for(size), rng);
    for (int y = 0; y < flat.height; ++y)
      for (int x = 0; x < flat.width; ++x)
        flat.word_row(y)[x] = sample.shift ? std::uint16_t(sample.word_of(300) | (rng() & 0x3f))
                                           : std::uint16_t(0xFFFF);
    // Many levels, malformed bits in every word, equalized at strength 0.
    PixelFrame varied = deep_clip(sample, size.width, size.height, pitch_for(size), 1, 1)[0];
    for (int y = 0; y < varied.height; ++y)
      for (int x = 0; x < varied.width; ++x)
        varied.word_row(y)[x] |= sample.shift ? std::uint16_t(rng() & 0x3f) : std::uint16_t(0);
    for (const auto &[frame, settings] :
         {std::pair{flat, histeq::Settings{}}, std::pair{varied, statistics_only}}) {
      const histeq::Params params = histeq::to_params(settings);
      const std::vector<PixelFrame> clip = {frame, frame};
      const auto expected = cpu_clip(clip, false, params);
      EngineOutput out;
      ASSERT_NO_FATAL_FAILURE(run_engine(clip, 1, false, params, &out));
      expect_equal_to_the_core(out, expected, params);
      for (const PixelFrame &got : out.frames)
        EXPECT_TRUE(visible_bytes(got) == visible_bytes(frame)) << "a word was rewritten";

      GuardedDevicePlane in(int(frame.row_bytes()), frame.height, frame.pitch);
      GuardedDevicePlane copy(int(frame.row_bytes()), frame.height, frame.pitch);
      ASSERT_CUDA(in.upload(visible_bytes(frame)));
      histeq::cuda::DeviceEqualizer equalizer;
      ASSERT_CUDA(equalizer.init());
      ASSERT_CUDA(equalizer.equalize(device_plane(in, frame), device_plane(copy, frame),
                                     histeq::full_range(sample.bits), {}, nullptr));
      ASSERT_CUDA(cudaDeviceSynchronize());
      if (params.strength != 0) {
        std::vector<std::uint8_t> copied;
        bool intact = false;
        ASSERT_CUDA(copy.download(copied, intact));
        EXPECT_TRUE(intact);
        EXPECT_TRUE(copied == visible_bytes(frame)) << "out of place, the words were not copied";
      }
    }
  }
}

// At 16 bits each block counts a band of rows into 16-bit shared bins, the two levels of a pair
// in one word: two levels that most of the frame holds (40000 and 40001, 2:1) fill a band's bins
// to near 0xffff (4K on a GPU of 128 SMs or more, one block per SM: bands of at most 0xffff
// pixels) or wrap them (twice as wide: the even level's; four times: both, the odd level's
// carrying out of the word), and every count still reaches the report and the LUT (the frame
// and its histogram equal the core's).
class SixteenBitBins : public ::testing::TestWithParam<int> {};

TEST_P(SixteenBitBins, ThatFillUpStillCountEveryWord) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const histeq::Params params = histeq::to_params(every_option());
  const SampleLayout sample{16, 0};
  const Size size{GetParam(), 2160, Rows::kPacked};
  auto clip = deep_clip(sample, size.width, size.height, pitch_for(size), 2, 2);
  std::size_t crowded[2] = {};
  for (PixelFrame &frame : clip) {
    crowded[0] = crowded[1] = 0;
    for (int y = 0; y < frame.height; ++y)
      for (int x = 0; x < frame.width; ++x)
        if (const int spot = (x + y) % 10; spot != 0) {
          const int odd = spot > 6;
          frame.word_row(y)[x] = std::uint16_t(40000 + odd);
          ++crowded[odd];
        }
  }
  const auto expected = cpu_clip(clip, false, params);
  EngineOutput out;
  ASSERT_NO_FATAL_FAILURE(run_engine(clip, 2, false, params, &out));
  expect_equal_to_the_core(out, expected, params);
  for (const FrameReport &report : out.reports) {
    ASSERT_EQ(report.histogram.size(), 65536u);
    EXPECT_GE(report.histogram[40000], crowded[0]);
    EXPECT_GE(report.histogram[40001], crowded[1]);
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, SixteenBitBins, ::testing::Values(3840, 7680, 15360));

// Video of 10 or 12 bits in 16-bit words (NVDEC's P016 and Y444_16 outputs: levels whose low 6 or
// 4 bits are zero), whose few levels the 16-bit shared bins and LUT spread over the banks in their
// own order (deep_kernels.cu, wide_slot); the odd frames' words 5 above. Each frame's LUT differs
// from the one before (the scene darkens, then cuts); with the classic mapping and every option,
// 4K and small, every frame equals the core's.
TEST(DeepSamples, VideoInSixteenBitWordsEqualsTheCore) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (const int bits : {10, 12}) {
    for (const bool options : {false, true}) {
      const histeq::Params params =
          histeq::to_params(options ? every_option() : histeq::Settings{});
      for (const Size size : {Size{3840, 2160, Rows::kPacked}, Size{385, 289, Rows::kChunked}}) {
        SCOPED_TRACE(std::to_string(bits) + "-bit video, " + (options ? "every option, " : "") +
                     size_name(size));
        auto clip = deep_clip(SampleLayout{bits, 16 - bits}, size.width, size.height,
                              pitch_for(size), 4, 3);
        for (std::size_t i = 0; i < clip.size(); ++i) {
          PixelFrame &frame = clip[i];
          frame.layout = deep_luma_layout(SampleLayout{16, 0});
          if (i % 2 == 1) {
            for (int y = 0; y < frame.height; ++y)
              for (int x = 0; x < frame.width; ++x) frame.word_row(y)[x] += 5;
          }
        }
        const auto expected = cpu_clip(clip, false, params);
        EngineOutput out;
        ASSERT_NO_FATAL_FAILURE(run_engine(clip, 2, false, params, &out));
        expect_equal_to_the_core(out, expected, params);
      }
    }
  }
}

// GPUs without 128 KiB of shared memory a block count 16-bit words in the device bins and map
// through a LUT in device memory, and those without room beside it stage no chunks in the map:
// the same bytes and report. Where the tone kernel's 64 blocks cannot all be resident, a 16-bit
// frame is refused before anything runs, and the next frame on the same scratch is unaffected.
TEST(DeepSamples, SixteenBitsWithoutWideSharedMemoryGiveTheSameBytes) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const histeq::Params params = histeq::to_params(every_option());
  const SampleLayout sample{16, 0};
  const Size size{1920, 1080, Rows::kChunked};
  const auto clip = deep_clip(sample, size.width, size.height, pitch_for(size), 1, 1);
  const auto expected = cpu_clip(clip, false, params);
  DeviceBytes memory(histeq::cuda::DeepScratch::kBytes);
  ASSERT_CUDA(cudaMemset(memory.data, 0, histeq::cuda::DeepScratch::kBytes));
  DeviceBytes history(2 * std::size_t(histeq::cuda::kMaxLevels) * sizeof(std::uint64_t));
  DeviceBytes report(histeq::cuda::report_words(histeq::cuda::kMaxLevels) * sizeof(std::uint64_t));
  int sm_count = 0, device = 0;
  ASSERT_CUDA(cudaGetDevice(&device));
  ASSERT_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  histeq::cuda::DeviceTone tone;
  tone.params = params;
  tone.reset = true;
  tone.d_history_out = reinterpret_cast<unsigned long long *>(history.data);
  tone.d_report = reinterpret_cast<unsigned long long *>(report.data);
  const auto equalize = [&](histeq::cuda::DeepLimits limits) {
    GuardedDevicePlane plane(int(clip[0].row_bytes()), clip[0].height, clip[0].pitch);
    EXPECT_EQ(plane.upload(visible_bytes(clip[0])), cudaSuccess);
    const histeq::cuda::DeepScratch scratch = histeq::cuda::deep_scratch_at(memory.data, limits);
    const DevicePlane device_frame = device_plane(plane, clip[0]);
    const cudaError_t status = histeq::cuda::launch_deep(
        device_frame, device_frame, histeq::full_range(16), tone, scratch, sm_count, nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    PixelFrame got = clip[0];
    std::vector<std::uint8_t> packed;
    bool intact = false;
    EXPECT_EQ(plane.download(packed, intact), cudaSuccess);
    EXPECT_TRUE(intact);
    set_visible_bytes(got, packed);
    return std::pair{status, got};
  };
  const auto [refused, untouched] = equalize({false, false});
  EXPECT_EQ(refused, cudaErrorCooperativeLaunchTooLarge);
  EXPECT_TRUE(untouched.storage == clip[0].storage) << "a refused frame was written";
  histeq::cuda::DeepLimits unstaged;
  ASSERT_CUDA(histeq::cuda::deep_limits(&unstaged));
  unstaged.wide_staged = 0;
  for (const histeq::cuda::DeepLimits limits : {histeq::cuda::DeepLimits{false, true}, unstaged}) {
    SCOPED_TRACE(limits.wide_shared ? "shared LUT, no chunks staged" : "device bins and LUT");
    const auto [status, got] = equalize(limits);
    ASSERT_CUDA(status);
    EXPECT_TRUE(got.storage == expected[0].frame.storage) << difference(got, expected[0].frame);
    std::vector<std::uint64_t> words(histeq::cuda::report_words(histeq::cuda::kMaxLevels));
    ASSERT_CUDA(cudaMemcpy(words.data(), report.data, words.size() * sizeof(std::uint64_t),
                           cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::equal(words.begin() + 1, words.end(), expected[0].histogram.begin()));
  }
}

// 16-bit words start on even bytes: a plane at an odd address or with an odd pitch is refused
// before any kernel could read a misaligned word.
TEST(DeepSamples, OddAddressesAndPitchesAreRefused) {
  SKIP_WITHOUT_CUDA_DEVICE();
  DeviceBytes memory(4096);
  ASSERT_CUDA(cudaMemset(memory.data, 0, 4096));
  histeq::cuda::DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  auto *data = static_cast<std::uint8_t *>(memory.data);
  const PixelLayout layout = deep_luma_layout({10, 0});
  const DevicePlane odd_pitch{data, 8, 4, 17, layout};
  const DevicePlane odd_address{data + 1, 8, 4, 16, layout};
  EXPECT_EQ(equalizer.equalize(odd_pitch, histeq::full_range(10), {}, nullptr),
            cudaErrorInvalidValue);
  EXPECT_EQ(equalizer.equalize(odd_address, histeq::full_range(10), {}, nullptr),
            cudaErrorInvalidValue);
  const DevicePlane even{data, 8, 4, 16, layout};
  EXPECT_EQ(equalizer.equalize(even, histeq::full_range(10), {}, nullptr), cudaSuccess);
  ASSERT_CUDA(cudaDeviceSynchronize());
}

// A frame of new samples that fails (here an injected launch failure) leaves the history as it
// was: the next frame of those samples restarts it rather than following a history of another
// depth.
TEST(DeepSamples, AFailedFrameOfNewSamplesLeavesNoHistoryBehind) {
  SKIP_WITHOUT_CUDA_DEVICE();
  setenv(histeq::cuda::kFaultVariable, "launch@1", 1);
  FrameEngine engine;
  const cudaError_t started = engine.init(1, {});
  unsetenv(histeq::cuda::kFaultVariable);
  ASSERT_CUDA(started);
  const histeq::Params params = histeq::to_params(every_option());
  const Size size{64, 32, Rows::kChunked};
  PixelFrame p010 = deep_clip({10, 6}, size.width, size.height, pitch_for(size), 1, 1)[0];
  PixelFrame gray16 = deep_clip({16, 0}, size.width, size.height, pitch_for(size), 1, 1)[0];
  const auto submit = [&](PixelFrame &frame) {
    return engine.submit(host_frame(frame, histeq::full_range(frame.layout.sample.bits), params));
  };
  FrameReport report;
  ASSERT_CUDA(submit(p010));
  ASSERT_CUDA(engine.wait(nullptr, &report));
  EXPECT_TRUE(report.restarted);
  PixelFrame failing = gray16;
  EXPECT_NE(submit(failing), cudaSuccess);
  ASSERT_CUDA(submit(gray16));
  ASSERT_CUDA(engine.wait(nullptr, &report));
  EXPECT_TRUE(report.restarted) << "the 16-bit frame followed the 10-bit history";
  EXPECT_EQ(report.histogram.size(), 65536u);
}

// A 10-bit gradient over all 1024 levels keeps more levels than a byte has: the deep path
// equalizes the samples at their own depth, not through 256 bins.
TEST(DeepSamples, TenBitGradientKeepsMoreThan256Levels) {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (const SampleLayout sample : {SampleLayout{10, 0}, SampleLayout{10, 6}}) {
    SCOPED_TRACE("shift " + std::to_string(sample.shift));
    std::mt19937 rng(1);
    PixelFrame gradient = random_frame(deep_luma_layout(sample), 1024, 64, 2048, rng);
    for (int y = 0; y < gradient.height; ++y)
      for (int x = 0; x < gradient.width; ++x)
        gradient.word_row(y)[x] = sample.word_of(std::uint32_t(x));
    // Twice: from host memory, then from device memory.
    const std::vector<PixelFrame> clip = {gradient, gradient};
    const auto expected = cpu_clip(clip, false, histeq::Params{});
    EngineOutput out;
    ASSERT_NO_FATAL_FAILURE(run_engine(clip, 1, false, histeq::Params{}, &out));
    expect_equal_to_the_core(out, expected, histeq::Params{});
    for (std::size_t i = 0; i < clip.size(); ++i) {
      std::set<std::uint32_t> levels;
      for (int y = 0; y < out.frames[i].height; ++y)
        for (int x = 0; x < out.frames[i].width; ++x)
          levels.insert(sample.level_of(out.frames[i].word_row(y)[x]));
      EXPECT_GT(levels.size(), 256u) << "frame " << i;
    }
  }
}

// One engine takes 8-bit luma, then P010 and I420_10LE, then 16-bit, then 8-bit again, with
// statistics and smoothing on (caps changes mid-stream, no reset asked): the history restarts at
// each change of depth or alignment and follows the frames between, each frame equals the core's,
// and each report has one bin per level of its frame's samples.
TEST(DeepSamples, OneEngineRestartsTheHistoryAtEachDepth) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const histeq::Params params = histeq::to_params(every_option());
  const Size size{385, 289, Rows::kUnaligned};
  constexpr int kFramesEach = 3;
  // P010 then I420_10LE: the same depth, aligned the other way, is a new format too.
  const PixelLayout layouts[] = {PixelLayout{}, deep_luma_layout({10, 6}),
                                 deep_luma_layout({10, 0}), deep_luma_layout({16, 0}),
                                 PixelLayout{}};
  std::vector<PixelFrame> clip;
  std::vector<CpuFrame> expected;
  for (const PixelLayout &layout : layouts) {
    const std::size_t pitch = pitch_for(size);
    const auto segment = layout.deep() ? deep_clip(layout.sample, size.width, size.height, pitch,
                                                   kFramesEach, kFramesEach)
                                       : byte_clip(size.width, size.height, pitch, kFramesEach);
    auto cpu = cpu_clip(segment, false, params);
    // The core follows the history within a depth, so a restart after the first frame of one is
    // the change's.
    for (std::size_t i = 1; i < cpu.size(); ++i) EXPECT_FALSE(cpu[i].restarted);
    clip.insert(clip.end(), segment.begin(), segment.end());
    expected.insert(expected.end(), cpu.begin(), cpu.end());
  }
  EngineOutput out;
  ASSERT_NO_FATAL_FAILURE(run_engine(clip, 2, false, params, &out));
  expect_equal_to_the_core(out, expected, params);
  for (std::size_t i = 0; i < clip.size(); ++i) {
    EXPECT_EQ(out.reports[i].histogram.size(), std::size_t(clip[i].layout.levels()))
        << "frame " << i;
    EXPECT_EQ(out.reports[i].restarted, i % kFramesEach == 0) << "frame " << i;
  }
  EXPECT_EQ(out.reports[kFramesEach].histogram.size(), 1024u);
  EXPECT_EQ(out.reports[2 * kFramesEach].histogram.size(), 1024u);
  EXPECT_EQ(out.reports[3 * kFramesEach].histogram.size(), 65536u);
  EXPECT_EQ(out.reports[4 * kFramesEach].histogram.size(), 256u);
}

namespace {

class DeepOutOfPlace : public ::testing::TestWithParam<std::size_t> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

}  // namespace

// Out of place, DeviceEqualizer writes the mapped words to the output and nothing else: the
// input, the output's row padding and the guard bands around both are left as they were, whether
// the rows are walked in 16-byte chunks (both planes' rows aligned) or word by word.
TEST_P(DeepOutOfPlace, LeavesTheInputAndTheOutputsPaddingAlone) {
  const SampleLayout sample = formats()[GetParam()].sample;
  const std::pair<Rows, Rows> pitches[] = {{Rows::kChunked, Rows::kChunked},
                                           {Rows::kChunked, Rows::kUnaligned},
                                           {Rows::kUnaligned, Rows::kChunked}};
  for (const auto &[in_rows, out_rows] : pitches) {
    const Size in_size{385, 289, in_rows}, out_size{385, 289, out_rows};
    SCOPED_TRACE("in " + size_name(in_size) + ", out " + size_name(out_size));
    const auto clip = deep_clip(sample, in_size.width, in_size.height, pitch_for(in_size), 1, 1);
    const auto expected = cpu_clip(clip, false, histeq::Params{});
    const PixelFrame &frame = clip[0];
    const std::vector<std::uint8_t> input = visible_bytes(frame);
    GuardedDevicePlane in(int(frame.row_bytes()), frame.height, pitch_for(in_size));
    GuardedDevicePlane out(int(frame.row_bytes()), frame.height, pitch_for(out_size));
    ASSERT_CUDA(in.upload(input));
    histeq::cuda::DeviceEqualizer equalizer;
    ASSERT_CUDA(equalizer.init());
    ASSERT_CUDA(equalizer.equalize(device_plane(in, frame), device_plane(out, frame),
                                   histeq::full_range(sample.bits), {}, nullptr));
    ASSERT_CUDA(cudaDeviceSynchronize());
    std::vector<std::uint8_t> got, input_after;
    bool out_intact = false, in_intact = false;
    ASSERT_CUDA(out.download(got, out_intact));
    ASSERT_CUDA(in.download(input_after, in_intact));
    EXPECT_TRUE(out_intact) << "the output's padding or guard bands were written";
    EXPECT_TRUE(in_intact && input_after == input) << "the input was written";
    EXPECT_TRUE(got == visible_bytes(expected[0].frame));
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, DeepOutOfPlace, ::testing::Range<std::size_t>(0, 5),
                         [](const auto &info) { return std::string(formats()[info.param].name); });

// Which deep layouts the kernels walk, and their bins; no GPU needed.
TEST(PixelLayouts, DeepLayoutsAreWordsOfTenTwelveOrSixteenBits) {
  using histeq::cuda::valid_layout;
  for (int bits : {10, 12, 16})
    for (int shift = 0; bits + shift <= 16; ++shift) {
      const PixelLayout layout = deep_luma_layout({bits, shift});
      EXPECT_TRUE(valid_layout(layout)) << bits << " bits, shift " << shift;
      EXPECT_TRUE(layout.deep());
      EXPECT_EQ(layout.levels(), 1 << bits);
    }
  EXPECT_FALSE(PixelLayout{}.deep());
  EXPECT_EQ(PixelLayout{}.levels(), 256);
  const auto changed = [](PixelLayout layout, auto change) {
    change(layout);
    return layout;
  };
  const auto with_sample = [&](PixelLayout layout, SampleLayout sample) {
    return changed(layout, [&](PixelLayout &l) { l.sample = sample; });
  };
  const PixelLayout invalid[] = {
      deep_luma_layout({9, 0}),
      deep_luma_layout({11, 0}),
      deep_luma_layout({11, 5}),
      deep_luma_layout({9, 7}),
      deep_luma_layout({10, 7}),
      deep_luma_layout({12, 5}),
      deep_luma_layout({16, 1}),
      deep_luma_layout({10, -1}),
      changed(deep_luma_layout({10, 0}), [](PixelLayout &l) { l.pixel_bytes = 1; }),
      changed(deep_luma_layout({16, 0}), [](PixelLayout &l) { l.pixel_bytes = 4; }),
      with_sample(PixelLayout{}, {8, 2}),
      with_sample(histeq::cuda::packed_yuv_layout(0), {10, 0}),
      with_sample(histeq::cuda::packed_yuv_layout(1), {16, 0}),
      with_sample(
          histeq::cuda::rgb_layout(4, 0, 1, 2, histeq::luma_matrix(histeq::LumaStandard::kBt709)),
          {10, 0}),
      with_sample(
          histeq::cuda::rgb_layout(3, 0, 1, 2, histeq::luma_matrix(histeq::LumaStandard::kBt709)),
          {12, 4}),
  };
  for (const PixelLayout &layout : invalid)
    EXPECT_FALSE(valid_layout(layout))
        << "packing " << int(layout.packing) << ", " << layout.pixel_bytes << " bytes a pixel, "
        << layout.sample.bits << " bits, shift " << layout.sample.shift;
}
