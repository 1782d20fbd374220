// SPDX-License-Identifier: LGPL-2.1-or-later
// Runs the README's main job (pipelines/equalize-sample) on a short clip with the CPU element,
// then decodes its output with libav* and reads its PNG, checking pixels rather than exit codes.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "libav_video.h"

namespace fs = std::filesystem;

namespace {

constexpr int kFrames = 30;
constexpr int kWidth = 320;
constexpr int kHeight = 240;

struct PngSize {
  unsigned width = 0, height = 0;
};

// Reads width and height from a PNG's IHDR chunk; zero on anything that is not a PNG.
PngSize png_size(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[24] = {};
  if (!in.read(reinterpret_cast<char *>(header), sizeof(header))) return {};
  const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (!std::equal(signature, signature + 8, header) ||
      std::string(header + 12, header + 16) != "IHDR")
    return {};
  auto be32 = [&](int at) {
    return unsigned(header[at]) << 24 | unsigned(header[at + 1]) << 16 |
           unsigned(header[at + 2]) << 8 | unsigned(header[at + 3]);
  };
  return {be32(16), be32(20)};
}

class MainJob : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out_ = fs::temp_directory_path() / ("histeq-main-job-" + std::to_string(::getpid()));
    fs::remove_all(out_);
    const std::string command = "HISTEQ_ELEMENT=histeq SAMPLE_FRAMES=" + std::to_string(kFrames) +
                                " SAMPLE_SIZE=" + std::to_string(kWidth) + "x" +
                                std::to_string(kHeight) + " '" + std::getenv("HISTEQ_SOURCE_ROOT") +
                                "/pipelines/equalize-sample' '" + out_.string() + "'";
    exit_status_ = std::system(command.c_str());
  }
  static void TearDownTestSuite() { fs::remove_all(out_); }

  static fs::path out_;
  static int exit_status_;
};

fs::path MainJob::out_;
int MainJob::exit_status_ = -1;

}  // namespace

TEST_F(MainJob, ScriptSucceeds) {
  EXPECT_EQ(exit_status_, 0);
}

TEST_F(MainJob, EqualizedVideoKeepsEveryFrameAndSize) {
  DecodedVideo before, after;
  std::string error;
  ASSERT_TRUE(decode_video((out_ / "sample.mp4").string(), before, error)) << error;
  ASSERT_TRUE(decode_video((out_ / "equalized.mp4").string(), after, error)) << error;
  EXPECT_EQ(before.frames, kFrames);
  EXPECT_EQ(after.frames, kFrames);
  // 4:2:0 is what every player and hardware decoder takes; x264enc behind a videoconvert
  // would otherwise pick High 4:4:4, which NVDEC and browsers refuse.
  EXPECT_EQ(before.pixel_format, "yuv420p");
  EXPECT_EQ(after.pixel_format, "yuv420p");
  EXPECT_EQ(after.width, kWidth);
  EXPECT_EQ(after.height, kHeight);
  EXPECT_NEAR(after.duration_seconds, kFrames / 30.0, 1.0 / 30.0);
}

TEST_F(MainJob, EqualizedLumaIsSpreadWiderThanTheInput) {
  DecodedVideo before, after;
  std::string error;
  ASSERT_TRUE(decode_video((out_ / "sample.mp4").string(), before, error)) << error;
  ASSERT_TRUE(decode_video((out_ / "equalized.mp4").string(), after, error)) << error;
  const int before_spread = before.luma_spread();
  const int after_spread = after.luma_spread();
  // The sample is made at a third of full contrast; equalization must at least double it.
  EXPECT_GT(after_spread, 2 * before_spread)
      << "5th..95th percentile spread before " << before_spread << ", after " << after_spread;
}

TEST_F(MainJob, BeforeAfterPictureShowsBothSideBySide) {
  const PngSize size = png_size(out_ / "before-after.png");
  EXPECT_EQ(size.width, unsigned(2 * kWidth));
  EXPECT_EQ(size.height, unsigned(kHeight));
}
