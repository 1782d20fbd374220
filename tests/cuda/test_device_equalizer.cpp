// SPDX-License-Identifier: LGPL-2.1-or-later
// Every histogram method x scan x LUT memory, bit-exact against the CPU core, on pitched device
// planes with guard bands.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include "constant_lut_slot.h"
#include "device_equalizer.h"
#include "gpu_frames.h"
#include "gpu_test_support.h"

using histeq::cuda::ConstantLutSlot;
using histeq::cuda::DeviceEqualizer;
using histeq::cuda::HistogramMethod;
using histeq::cuda::KernelConfig;
using histeq::cuda::LutMemory;
using histeq::cuda::ScanMethod;

namespace {

struct Size {
  int width, height;
  std::size_t padding;  // pitch = width + padding (rounded to 16 when `aligned`)
  bool aligned;
};

enum class SizeClass { kSmall, kLarge };

std::vector<Size> sizes_of(SizeClass size_class) {
  if (size_class == SizeClass::kSmall)
    return {{1, 1, 0, false},
            {7, 3, 5, false},
            {64, 48, 0, true},
            {385, 289, 40, true},
            {385, 289, 3, false}};
  return {{1920, 1080, 0, true}, {4097, 2161, 31, true}, {8192, 4320, 0, true}};
}

std::size_t pitch_of(const Size &size) {
  const std::size_t pitch = std::size_t(size.width) + size.padding;
  return size.aligned ? (pitch + 15) / 16 * 16 : pitch;
}

// Making an 8K frame and running the CPU oracle on it are the slow parts: each (content, size)
// frame and each (content, size, range) result is computed once for all variants.
const std::vector<std::uint8_t> &input(Content content, const Size &size) {
  static std::map<std::tuple<int, int, int>, std::vector<std::uint8_t>> cache;
  auto key = std::make_tuple(int(content), size.width, size.height);
  auto found = cache.find(key);
  if (found == cache.end())
    found = cache.emplace(key, make_frame(content, size.width, size.height, 1234)).first;
  return found->second;
}

const std::vector<std::uint8_t> &expected(Content content, const Size &size, bool limited) {
  static std::map<std::tuple<int, int, int, bool>, std::vector<std::uint8_t>> cache;
  auto key = std::make_tuple(int(content), size.width, size.height, limited);
  auto found = cache.find(key);
  if (found == cache.end()) {
    const histeq::OutputRange range = limited ? histeq::limited_range(8) : histeq::full_range(8);
    found = cache.emplace(key, cpu_equalized(input(content, size), size.width, size.height, range))
                .first;
  }
  return found->second;
}

using Variant = std::tuple<HistogramMethod, ScanMethod, LutMemory, SizeClass>;

class EveryVariant : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
  KernelConfig config() const {
    return {std::get<0>(GetParam()), std::get<1>(GetParam()), std::get<2>(GetParam())};
  }
};

std::string variant_name(const ::testing::TestParamInfo<Variant> &info) {
  std::string name = std::string(to_string(std::get<0>(info.param))) + "_" +
                     to_string(std::get<1>(info.param)) + "_" + to_string(std::get<2>(info.param));
  for (char &c : name)
    if (c == '-') c = '_';
  return name;
}

}  // namespace

TEST_P(EveryVariant, BitExactWithTheCpuCoreAndNoStrayWrites) {
  DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  for (const Size &size : sizes_of(std::get<3>(GetParam()))) {
    for (Content content : {Content::kUniform, Content::kNatural, Content::kConstant,
                            Content::kTwoValues, Content::kAllLevels}) {
      const bool limited = content == Content::kNatural && size.width % 2 == 1;
      SCOPED_TRACE(content_name(content) + " " + std::to_string(size.width) + "x" +
                   std::to_string(size.height) + " pitch " + std::to_string(pitch_of(size)) +
                   (limited ? " limited" : " full"));
      GuardedDevicePlane plane(size.width, size.height, pitch_of(size));
      ASSERT_CUDA(plane.upload(input(content, size)));
      ASSERT_CUDA(equalizer.equalize(plane.plane(),
                                     limited ? histeq::limited_range(8) : histeq::full_range(8),
                                     config(), nullptr));
      ASSERT_CUDA(cudaStreamSynchronize(nullptr));
      std::vector<std::uint8_t> out;
      bool guards_intact = false;
      ASSERT_CUDA(plane.download(out, guards_intact));
      EXPECT_TRUE(guards_intact);
      ASSERT_TRUE(out == expected(content, size, limited));
    }
  }
}

// Out of place (FrameEngine's slots: input plane in, output plane out): the output matches the
// CPU core, whether its rows are aligned like the input's or not, and the input is untouched.
TEST_P(EveryVariant, OutOfPlaceLeavesItsInputAndIsBitExact) {
  DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  for (const Size &size : sizes_of(std::get<3>(GetParam()))) {
    for (const std::size_t out_pitch : {pitch_of(size) + 16, pitch_of(size) + 3}) {
      SCOPED_TRACE(std::to_string(size.width) + "x" + std::to_string(size.height) + " pitch " +
                   std::to_string(pitch_of(size)) + " into pitch " + std::to_string(out_pitch));
      const auto &frame = input(Content::kNatural, size);
      GuardedDevicePlane in(size.width, size.height, pitch_of(size));
      GuardedDevicePlane out(size.width, size.height, out_pitch);
      ASSERT_CUDA(in.upload(frame));
      ASSERT_CUDA(
          equalizer.equalize(in.plane(), out.plane(), histeq::full_range(8), config(), nullptr));
      ASSERT_CUDA(cudaStreamSynchronize(nullptr));
      std::vector<std::uint8_t> result, kept;
      bool out_guards = false, in_guards = false;
      ASSERT_CUDA(out.download(result, out_guards));
      ASSERT_CUDA(in.download(kept, in_guards));
      EXPECT_TRUE(out_guards && in_guards);
      ASSERT_TRUE(result == expected(Content::kNatural, size, false));
      ASSERT_TRUE(kept == frame);
    }
  }
}

// All 256 one-level frames, the worst case for atomics contention: each maps to itself. One
// small frame size shows it for every variant, so this fixture is instantiated with the small
// class only.
class EveryVariantOnConstantFrames : public EveryVariant {};

TEST_P(EveryVariantOnConstantFrames, EachMapsToItself) {
  DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  GuardedDevicePlane plane(67, 33, 80);
  for (int level = 0; level < 256; ++level) {
    const auto frame = make_frame(Content::kConstant, 67, 33, unsigned(level));
    ASSERT_CUDA(plane.upload(frame));
    ASSERT_CUDA(equalizer.equalize(plane.plane(), histeq::full_range(8), config(), nullptr));
    std::vector<std::uint8_t> out;
    bool guards_intact = false;
    ASSERT_CUDA(plane.download(out, guards_intact));
    ASSERT_TRUE(guards_intact) << "level " << level;
    ASSERT_TRUE(out == frame) << "level " << level;
  }
}

namespace {

// Every histogram method x scan x LUT memory, on frames of one size class.
auto every_variant(SizeClass size_class) {
  return ::testing::Combine(::testing::ValuesIn(histeq::cuda::kHistogramMethods),
                            ::testing::ValuesIn(histeq::cuda::kScanMethods),
                            ::testing::ValuesIn(histeq::cuda::kLutMemories),
                            ::testing::Values(size_class));
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Small, EveryVariant, every_variant(SizeClass::kSmall), variant_name);
INSTANTIATE_TEST_SUITE_P(Small, EveryVariantOnConstantFrames, every_variant(SizeClass::kSmall),
                         variant_name);
INSTANTIATE_TEST_SUITE_P(Large, EveryVariant, every_variant(SizeClass::kLarge), variant_name);

// The default configuration as one cooperative kernel and as three kernels, on every size.
class EveryFusion : public ::testing::TestWithParam<std::tuple<histeq::cuda::Fusion, SizeClass>> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

TEST_P(EveryFusion, BitExactWithTheCpuCoreAndNoStrayWrites) {
  KernelConfig config;
  config.fusion = std::get<0>(GetParam());
  DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  for (const Size &size : sizes_of(std::get<1>(GetParam()))) {
    for (Content content : {Content::kUniform, Content::kNatural, Content::kConstant,
                            Content::kTwoValues, Content::kAllLevels, Content::kFlatTiles}) {
      for (bool limited : {false, true}) {
        SCOPED_TRACE(content_name(content) + " " + std::to_string(size.width) + "x" +
                     std::to_string(size.height) + (limited ? " limited" : " full"));
        GuardedDevicePlane plane(size.width, size.height, pitch_of(size));
        ASSERT_CUDA(plane.upload(input(content, size)));
        // Twice on the same equalizer: the second frame must start from clean bins.
        for (int repeat = 0; repeat < 2; ++repeat) {
          if (repeat) {
            ASSERT_CUDA(plane.upload(input(content, size)));
          }
          ASSERT_CUDA(equalizer.equalize(plane.plane(),
                                         limited ? histeq::limited_range(8) : histeq::full_range(8),
                                         config, nullptr));
          std::vector<std::uint8_t> out;
          bool guards_intact = false;
          ASSERT_CUDA(plane.download(out, guards_intact));
          EXPECT_TRUE(guards_intact);
          ASSERT_TRUE(out == expected(content, size, limited)) << "repeat " << repeat;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fusions, EveryFusion,
                         ::testing::Combine(::testing::ValuesIn(histeq::cuda::kFusions),
                                            ::testing::Values(SizeClass::kSmall,
                                                              SizeClass::kLarge)),
                         [](const auto &info) {
                           std::string name =
                               std::string(to_string(std::get<0>(info.param))) +
                               (std::get<1>(info.param) == SizeClass::kSmall ? "_small" : "_large");
                           for (char &c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// The zero-copy kernels: pinned host source and destination (in place and apart), a device
// staging plane, all with guard bands; every size with its pitch rounded up to 16 (widths under
// 16 are all tail bytes), twice per frame (the second from clean bins). The staging plane must
// hold the input, and the LUT left for statistics must map the input to the output.
class ZeroCopy : public ::testing::TestWithParam<SizeClass> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

TEST_P(ZeroCopy, BitExactWithTheCpuCoreAndNoStrayWrites) {
  using Memory = GuardedDevicePlane::Memory;
  DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  for (Size size : sizes_of(GetParam())) {
    size.aligned = true;
    for (Content content : {Content::kUniform, Content::kNatural, Content::kConstant,
                            Content::kTwoValues, Content::kAllLevels, Content::kFlatTiles}) {
      for (bool in_place : {true, false}) {
        const bool limited = content == Content::kNatural;
        SCOPED_TRACE(content_name(content) + " " + std::to_string(size.width) + "x" +
                     std::to_string(size.height) + (in_place ? " in place" : " apart"));
        GuardedDevicePlane src(size.width, size.height, pitch_of(size), Memory::kPinnedHost);
        GuardedDevicePlane dst(size.width, size.height, pitch_of(size), Memory::kPinnedHost);
        GuardedDevicePlane staging(size.width, size.height, pitch_of(size));
        const GuardedDevicePlane &out_plane = in_place ? src : dst;
        const std::vector<std::uint8_t> &in = input(content, size);
        for (int repeat = 0; repeat < 2; ++repeat) {
          ASSERT_CUDA(src.upload(in));
          ASSERT_CUDA(equalizer.equalize_zero_copy(
              {src.plane(), staging.plane(), out_plane.plane()},
              limited ? histeq::limited_range(8) : histeq::full_range(8), nullptr));
          ASSERT_CUDA(cudaStreamSynchronize(nullptr));
          std::vector<std::uint8_t> out, kept;
          bool guards_intact = false;
          ASSERT_CUDA(out_plane.download(out, guards_intact));
          EXPECT_TRUE(guards_intact);
          ASSERT_TRUE(out == expected(content, size, limited)) << "repeat " << repeat;
          ASSERT_CUDA(staging.download(kept, guards_intact));
          EXPECT_TRUE(guards_intact) << "staging, repeat " << repeat;
          ASSERT_TRUE(kept == in) << "staging, repeat " << repeat;
          std::uint8_t lut[256];
          ASSERT_CUDA(cudaMemcpy(lut, equalizer.d_lut(), sizeof lut, cudaMemcpyDeviceToHost));
          for (std::size_t p = 0; p < in.size(); ++p)
            ASSERT_EQ(lut[in[p]], out[p]) << "LUT at pixel " << p << ", repeat " << repeat;
          if (!in_place) {
            ASSERT_CUDA(src.download(out, guards_intact));
            EXPECT_TRUE(guards_intact);
            ASSERT_TRUE(out == in) << "source written, repeat " << repeat;
          }
        }
      }
    }
  }
}

// Rows the kernels cannot walk in 16-byte chunks, or planes of different sizes, are refused
// before anything is enqueued.
TEST_P(ZeroCopy, RefusesPlanesItCannotWalkInChunks) {
  using Memory = GuardedDevicePlane::Memory;
  DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  GuardedDevicePlane host(385, 289, 400, Memory::kPinnedHost);
  GuardedDevicePlane staging(385, 289, 400);
  const histeq::cuda::DevicePlane good = host.plane();
  histeq::cuda::DevicePlane odd_pitch = good;
  odd_pitch.pitch = 388;
  histeq::cuda::DevicePlane odd_start = good;
  odd_start.data += 8;
  odd_start.width -= 8;
  histeq::cuda::DevicePlane narrower = good;
  narrower.width -= 1;
  const histeq::cuda::ZeroCopyPlanes refused[] = {
      {odd_pitch, staging.plane(), odd_pitch},
      {odd_start, staging.plane(), good},
      {good, staging.plane(), odd_start},
      {good, staging.plane(), narrower},
  };
  for (const histeq::cuda::ZeroCopyPlanes &planes : refused)
    EXPECT_EQ(equalizer.equalize_zero_copy(planes, histeq::full_range(8), nullptr),
              cudaErrorInvalidValue);
  // Nothing refused touched the bins: the plane of guard bytes, one level, maps to itself.
  ASSERT_CUDA(
      equalizer.equalize_zero_copy({good, staging.plane(), good}, histeq::full_range(8), nullptr));
  ASSERT_CUDA(cudaStreamSynchronize(nullptr));
  std::vector<std::uint8_t> out;
  bool guards_intact = false;
  ASSERT_CUDA(host.download(out, guards_intact));
  EXPECT_TRUE(guards_intact);
  EXPECT_TRUE(std::all_of(out.begin(), out.end(),
                          [](std::uint8_t v) { return v == GuardedDevicePlane::kGuard; }));
}

INSTANTIATE_TEST_SUITE_P(Sizes, ZeroCopy, ::testing::Values(SizeClass::kSmall, SizeClass::kLarge),
                         [](const auto &info) {
                           return std::string(info.param == SizeClass::kSmall ? "small" : "large");
                         });

TEST(DeviceEqualizer, RejectsUseBeforeInit) {
  SKIP_WITHOUT_CUDA_DEVICE();
  DeviceEqualizer equalizer;
  EXPECT_EQ(equalizer.equalize({}, histeq::full_range(8), {}, nullptr),
            cudaErrorInitializationError);
}

// Needs no device: the slots are the process's bookkeeping.
TEST(ConstantLutSlot, EachHolderHasItsOwnUntilItIsGone) {
  std::vector<std::unique_ptr<ConstantLutSlot>> held;
  std::set<int> indices;
  for (int i = 0; i < histeq::cuda::kConstantLutSlots; ++i) {
    held.push_back(std::make_unique<ConstantLutSlot>());
    indices.insert(held.back()->index());
  }
  EXPECT_EQ(indices.size(), std::size_t(histeq::cuda::kConstantLutSlots));
  EXPECT_EQ(*indices.begin(), 0);
  EXPECT_EQ(*indices.rbegin(), histeq::cuda::kConstantLutSlots - 1);
  EXPECT_EQ(ConstantLutSlot().index(), -1) << "every slot is held";
  const int freed = held[5]->index();
  held[5].reset();
  EXPECT_EQ(ConstantLutSlot().index(), freed);
}

// Two equalizers with the constant-memory LUT, each on its own stream with frames of different
// content: every map reads its own equalizer's LUT, however the streams interleave. Sharing one
// slot, a map could read the other's LUT, copied in between its own copy and its kernel.
TEST(DeviceEqualizer, ConstantLutsOfEqualizersOnTwoStreamsDoNotMix) {
  SKIP_WITHOUT_CUDA_DEVICE();
  KernelConfig config;
  config.lut = LutMemory::kConstant;
  const Size size{385, 289, 40, true};
  const Content contents[2] = {Content::kNatural, Content::kUniform};
  DeviceEqualizer equalizers[2];
  cudaStream_t streams[2] = {};
  std::vector<std::unique_ptr<GuardedDevicePlane>> planes;
  for (int i = 0; i < 2; ++i) {
    ASSERT_CUDA(equalizers[i].init());
    ASSERT_CUDA(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
  }
  constexpr int kRounds = 16;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < 2; ++i) {
      planes.push_back(
          std::make_unique<GuardedDevicePlane>(size.width, size.height, pitch_of(size)));
      ASSERT_CUDA(planes.back()->upload(input(contents[i], size)));
    }
  }
  for (int round = 0; round < kRounds; ++round)
    for (int i = 0; i < 2; ++i)
      ASSERT_CUDA(equalizers[i].equalize(planes[std::size_t(2 * round + i)]->plane(),
                                         histeq::full_range(8), config, streams[i]));
  for (cudaStream_t stream : streams) {
    ASSERT_CUDA(cudaStreamSynchronize(stream));
    ASSERT_CUDA(cudaStreamDestroy(stream));
  }
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < 2; ++i) {
      std::vector<std::uint8_t> out;
      bool guards_intact = false;
      ASSERT_CUDA(planes[std::size_t(2 * round + i)]->download(out, guards_intact));
      EXPECT_TRUE(guards_intact);
      ASSERT_TRUE(out == expected(contents[i], size, false))
          << "round " << round << ", equalizer " << i;
    }
  }
}

namespace {

// One natural frame in a guarded plane through `equalizer` (limited range), checked against the
// CPU core with its guard bands intact.
void expect_equalizes_natural_frame(DeviceEqualizer &equalizer, const Size &size,
                                    KernelConfig config) {
  GuardedDevicePlane plane(size.width, size.height, pitch_of(size));
  ASSERT_CUDA(plane.upload(input(Content::kNatural, size)));
  ASSERT_CUDA(equalizer.equalize(plane.plane(), histeq::limited_range(8), config, nullptr));
  std::vector<std::uint8_t> out;
  bool guards_intact = false;
  ASSERT_CUDA(plane.download(out, guards_intact));
  EXPECT_TRUE(guards_intact);
  ASSERT_TRUE(out == expected(Content::kNatural, size, true));
}

}  // namespace

// One equalizer through frames of many blocks and of one block, and through both paths: the
// single kernel adds each block's counts into one of several copies of the bins and zeroes every
// copy of the next frame's, with however few blocks it runs; the separate kernels use the first.
TEST(DeviceEqualizer, EveryFrameStartsFromCleanBinsWhateverRanBefore) {
  SKIP_WITHOUT_CUDA_DEVICE();
  DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  const Size many_blocks{385, 289, 40, true};
  const Size one_block{64, 48, 0, true};
  KernelConfig separate;
  separate.fusion = histeq::cuda::Fusion::kSeparateKernels;
  const std::pair<Size, KernelConfig> frames[] = {
      {many_blocks, {}}, {one_block, {}},  {many_blocks, {}}, {many_blocks, {}},
      {one_block, {}},   {one_block, {}},  {many_blocks, {}}, {many_blocks, separate},
      {one_block, {}},   {many_blocks, {}}};
  int index = 0;
  for (const auto &[size, config] : frames) {
    SCOPED_TRACE("frame " + std::to_string(index++));
    expect_equalizes_natural_frame(equalizer, size, config);
  }
}

// The same equalizer on device scratch that the caller allocated and frees.
TEST(DeviceEqualizer, RunsOnCallerOwnedScratch) {
  SKIP_WITHOUT_CUDA_DEVICE();
  void *d_scratch = nullptr;
  ASSERT_CUDA(cudaMalloc(&d_scratch, DeviceEqualizer::kScratchBytes + 16));
  {
    DeviceEqualizer too_small;
    EXPECT_EQ(too_small.init(d_scratch, DeviceEqualizer::kScratchBytes - 1), cudaErrorInvalidValue);
    DeviceEqualizer misaligned;
    EXPECT_EQ(misaligned.init(static_cast<char *>(d_scratch) + 1, DeviceEqualizer::kScratchBytes),
              cudaErrorInvalidValue);
    DeviceEqualizer no_scratch;
    EXPECT_EQ(no_scratch.init(nullptr, DeviceEqualizer::kScratchBytes), cudaErrorInvalidValue);

    DeviceEqualizer equalizer;
    ASSERT_CUDA(equalizer.init(d_scratch, DeviceEqualizer::kScratchBytes));
    EXPECT_EQ(equalizer.init(d_scratch, DeviceEqualizer::kScratchBytes),
              cudaErrorInitializationError);
    const Size size{385, 289, 40, true};
    for (const KernelConfig config :
         {KernelConfig{}, KernelConfig{HistogramMethod::kSharedAtomics, ScanMethod::kBrentKung,
                                       LutMemory::kTexture}}) {
      expect_equalizes_natural_frame(equalizer, size, config);
    }
  }
  ASSERT_CUDA(cudaFree(d_scratch));
}

// A refused allocation leaves its error in the runtime's last error; the next frame's launch
// checks must not mistake it for their own. Its own suite: compute-sanitizer reports the
// deliberate failure, so scripts/gpu-check.sh leaves it out of the sanitizer's filter.
TEST(AfterAFailedCudaCall, TheNextFrameIsEqualizedAndBitExact) {
  SKIP_WITHOUT_CUDA_DEVICE();
  DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  const Size size{64, 48, 0, true};
  for (const KernelConfig config :
       {KernelConfig{}, KernelConfig{HistogramMethod::kSharedAtomics, ScanMethod::kBrentKung,
                                     LutMemory::kConstant}}) {
    void *impossible = nullptr;
    ASSERT_EQ(cudaMalloc(&impossible, std::size_t(1) << 60), cudaErrorMemoryAllocation);
    expect_equalizes_natural_frame(equalizer, size, config);
  }
}

TEST(KernelMethods, NamesRoundTrip) {
  for (HistogramMethod m : histeq::cuda::kHistogramMethods) {
    HistogramMethod parsed{};
    EXPECT_TRUE(histeq::cuda::parse(to_string(m), parsed));
    EXPECT_EQ(parsed, m);
  }
  for (ScanMethod m : histeq::cuda::kScanMethods) {
    ScanMethod parsed{};
    EXPECT_TRUE(histeq::cuda::parse(to_string(m), parsed));
    EXPECT_EQ(parsed, m);
  }
  for (LutMemory m : histeq::cuda::kLutMemories) {
    LutMemory parsed{};
    EXPECT_TRUE(histeq::cuda::parse(to_string(m), parsed));
    EXPECT_EQ(parsed, m);
  }
  for (histeq::cuda::Fusion m : histeq::cuda::kFusions) {
    histeq::cuda::Fusion parsed{};
    EXPECT_TRUE(histeq::cuda::parse(to_string(m), parsed));
    EXPECT_EQ(parsed, m);
  }
  HistogramMethod unknown{};
  EXPECT_FALSE(histeq::cuda::parse("no-such-method", unknown));
}

// With every constant-memory slot held elsewhere, only that variant is refused.
TEST(DeviceEqualizer, WithoutAConstantSlotOnlyTheConstantLutIsRefused) {
  SKIP_WITHOUT_CUDA_DEVICE();
  std::vector<std::unique_ptr<ConstantLutSlot>> held;
  for (int i = 0; i < histeq::cuda::kConstantLutSlots; ++i)
    held.push_back(std::make_unique<ConstantLutSlot>());
  DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  const Size size{385, 289, 40, true};
  GuardedDevicePlane plane(size.width, size.height, pitch_of(size));
  ASSERT_CUDA(plane.upload(input(Content::kNatural, size)));
  KernelConfig constant;
  constant.lut = LutMemory::kConstant;
  EXPECT_EQ(equalizer.equalize(plane.plane(), histeq::full_range(8), constant, nullptr),
            cudaErrorNotSupported);
  expect_equalizes_natural_frame(equalizer, size, {});
}
