// SPDX-License-Identifier: LGPL-2.1-or-later
// pipelines/transcode end to end: its MP4s are read back with libav* (not GStreamer) for frames,
// size, duration, luma spread and the audio packets; Ctrl-C, a missing and a garbage input are
// run as a user would hit them. The element is $HISTEQ_ELEMENT, else histeq (CI has no GPU).

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "libav_video.h"
#include "subprocess.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr int kFrames = 60;  // 2 s at 30 fps
constexpr int kWidth = 320;
constexpr int kHeight = 240;
constexpr int kLongFrames = 900;  // long enough to be interrupted on any machine

std::string script(const char *name) {
  return std::string(std::getenv("HISTEQ_SOURCE_ROOT")) + "/pipelines/" + name;
}

std::string element() {
  const char *forced = std::getenv("HISTEQ_ELEMENT");
  return forced && *forced ? forced : "histeq";
}

// A low-contrast zone plate (a third of full contrast) as gst-launch source text.
std::string foggy_video(int frames, int width, int height) {
  return "videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=" +
         std::to_string(frames) + " ! video/x-raw,width=" + std::to_string(width) +
         ",height=" + std::to_string(height) +
         ",framerate=30/1 ! videobalance contrast=0.3 brightness=0.05 ! videoconvert "
         "! video/x-raw,format=I420 ";
}

// 1470 samples per buffer at 44.1 kHz is one buffer per video frame.
std::string tone(int frames) {
  return "audiotestsrc wave=sine samplesperbuffer=1470 num-buffers=" + std::to_string(frames) +
         " ! audio/x-raw,rate=44100,channels=2 ! audioconvert ";
}

void make_media(const std::string &pipeline) {
  const std::string command = "gst-launch-1.0 -q -e " + pipeline;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

// One line per file checked, for the log (and the closing note of the issue).
void report(const std::string &label, const DecodedVideo &v) {
  std::printf("libav: %-22s %s %s %dx%d, %d frames, %.3f s, luma 5th..95th percentile %d..%d\n",
              label.c_str(), v.codec.c_str(), v.pixel_format.c_str(), v.width, v.height, v.frames,
              v.duration_seconds, v.luma_percentile(0.05), v.luma_percentile(0.95));
}

void report(const std::string &label, const AudioPackets &a) {
  std::printf("libav: %-22s %s %d Hz %d ch, %d packets, %llu bytes, %.3f s, FNV-1a %016llx\n",
              label.c_str(), a.codec.c_str(), a.sample_rate, a.channels, a.packets,
              static_cast<unsigned long long>(a.bytes), a.duration_seconds,
              static_cast<unsigned long long>(a.digest));
}

int count_lines(const std::string &text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

class Transcode : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("histeq-transcode-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // H.264 + AAC in MP4: the AAC must come out byte for byte.
    make_media(foggy_video(kFrames, kWidth, kHeight) +
               "! x264enc speed-preset=ultrafast ! mp4mux name=mux ! filesink location=" +
               (dir_ / "aac.mp4").string() + " " + tone(kFrames) + "! avenc_aac ! mux.");
    status_ = run_process({script("transcode"), (dir_ / "aac.mp4").string(),
                           (dir_ / "aac-out.mp4").string(), "--element", element()},
                          &out_, &err_);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static fs::path dir_;
  static int status_;
  static std::string out_, err_;
};

fs::path Transcode::dir_;
int Transcode::status_ = -1;
std::string Transcode::out_, Transcode::err_;

}  // namespace

TEST_F(Transcode, FinishesWithAProgressBarAndETA) {
  EXPECT_EQ(status_, 0) << err_;
  EXPECT_NE(out_.find("done: " + (dir_ / "aac-out.mp4").string() + ", 60 frames"),
            std::string::npos)
      << out_;
  // Written to a pipe, the bar is one line per tenth; the last one is complete.
  EXPECT_TRUE(std::regex_search(err_, std::regex(R"(100% \[#{30}\] +2\.0 of 2\.0 s .* ETA 0:00)")))
      << err_;
}

TEST_F(Transcode, KeepsEveryFrameTheSizeAndTheDuration) {
  DecodedVideo video;
  std::string error;
  ASSERT_TRUE(decode_video((dir_ / "aac-out.mp4").string(), video, error)) << error;
  report("aac-out.mp4 video", video);
  EXPECT_EQ(video.codec, "h264");
  // 4:2:0 is what every player and hardware decoder takes; x264enc behind a videoconvert
  // would otherwise pick High 4:4:4, which NVDEC and browsers refuse.
  EXPECT_EQ(video.pixel_format, "yuv420p");
  EXPECT_EQ(video.frames, kFrames);
  EXPECT_EQ(video.width, kWidth);
  EXPECT_EQ(video.height, kHeight);
  EXPECT_NEAR(video.duration_seconds, kFrames / 30.0, 1.0 / 30.0);
}

TEST_F(Transcode, SpreadsTheLumaHistogram) {
  DecodedVideo before, after;
  std::string error;
  ASSERT_TRUE(decode_video((dir_ / "aac.mp4").string(), before, error)) << error;
  ASSERT_TRUE(decode_video((dir_ / "aac-out.mp4").string(), after, error)) << error;
  report("aac.mp4 (input) video", before);
  const int before_spread = before.luma_spread();
  const int after_spread = after.luma_spread();
  EXPECT_GT(after_spread, 2 * before_spread)
      << "5th..95th percentile spread before " << before_spread << ", after " << after_spread;
}

TEST_F(Transcode, CopiesAacUntouched) {
  AudioPackets before, after;
  std::string error;
  ASSERT_TRUE(read_audio_packets((dir_ / "aac.mp4").string(), before, error)) << error;
  ASSERT_TRUE(read_audio_packets((dir_ / "aac-out.mp4").string(), after, error)) << error;
  report("aac.mp4 (input) audio", before);
  report("aac-out.mp4 audio", after);
  ASSERT_TRUE(before.present);
  ASSERT_TRUE(after.present);
  EXPECT_EQ(after.codec, "aac");
  EXPECT_EQ(after.sample_rate, before.sample_rate);
  EXPECT_EQ(after.channels, before.channels);
  EXPECT_EQ(after.packets, before.packets);
  EXPECT_EQ(after.bytes, before.bytes);
  EXPECT_EQ(after.digest, before.digest) << "the AAC packets changed on the way through";
  EXPECT_NE(out_.find("audio (audio/mpeg v4) copied untouched"), std::string::npos) << out_;
}

TEST_F(Transcode, ReencodesAudioMp4CannotHold) {
  const fs::path in = dir_ / "vorbis.mkv", out = dir_ / "vorbis-out.mp4";
  make_media(foggy_video(30, kWidth, kHeight) +
             "! x264enc speed-preset=ultrafast ! matroskamux name=mux ! filesink location=" +
             in.string() + " " + tone(30) + "! vorbisenc ! mux.");
  std::string said, err;
  ASSERT_EQ(run_process({script("transcode"), in.string(), out.string(), "--element", element()},
                        &said, &err),
            0)
      << err;
  EXPECT_NE(said.find("audio (audio/x-vorbis) cannot go into MP4 untouched: re-encoding it to AAC"),
            std::string::npos)
      << said;
  AudioPackets audio;
  DecodedVideo video;
  std::string error;
  ASSERT_TRUE(read_audio_packets(out.string(), audio, error)) << error;
  ASSERT_TRUE(decode_video(out.string(), video, error)) << error;
  report("vorbis-out.mp4 video", video);
  report("vorbis-out.mp4 audio", audio);
  EXPECT_TRUE(audio.present);
  EXPECT_EQ(audio.codec, "aac");
  EXPECT_NEAR(audio.duration_seconds, 1.0, 0.1);
  EXPECT_EQ(video.frames, 30);
}

TEST_F(Transcode, CtrlCFinishesAPlayableFileWithEverythingEqualized) {
  const fs::path in = dir_ / "long.mp4", out = dir_ / "long-out.mp4";
  make_media(foggy_video(kLongFrames, 640, 360) +
             "! x264enc speed-preset=ultrafast ! mp4mux name=mux ! filesink location=" +
             in.string() + " " + tone(kLongFrames) + "! avenc_aac ! mux.");
  Subprocess child({script("transcode"), in.string(), out.string(), "--element", element()});
  ASSERT_TRUE(child.wait_for_stderr("% [", 30s)) << child.err();
  child.send_signal(SIGINT);
  EXPECT_EQ(child.wait(), 130) << child.err();
  EXPECT_NE(child.err().find("interrupted: finishing"), std::string::npos) << child.err();

  std::smatch said;
  const std::string out_text = child.out();
  ASSERT_TRUE(std::regex_search(out_text, said, std::regex(R"(holds the first (\d+) frames)")))
      << out_text;
  const int frames_said = std::stoi(said[1]);
  DecodedVideo video;
  std::string error;
  ASSERT_TRUE(decode_video(out.string(), video, error)) << error;
  std::printf("transcode said: holds the first %d frames\n", frames_said);
  report("long-out.mp4 video", video);
  EXPECT_GT(video.frames, 0);
  EXPECT_LT(video.frames, kLongFrames);
  EXPECT_EQ(video.frames, frames_said) << "frames equalized before Ctrl-C went missing";
  EXPECT_NEAR(video.duration_seconds, video.frames / 30.0, 1.0 / 30.0);
  AudioPackets audio;
  ASSERT_TRUE(read_audio_packets(out.string(), audio, error)) << error;
  report("long-out.mp4 audio", audio);
  EXPECT_TRUE(audio.present);
  EXPECT_EQ(audio.codec, "aac");
  EXPECT_GT(audio.duration_seconds, 0.0);
  EXPECT_NEAR(audio.duration_seconds, video.duration_seconds, 0.1) << "audio cut with the video";
  DecodedVideo before;
  ASSERT_TRUE(decode_video(in.string(), before, error)) << error;
  report("long.mp4 (input) video", before);
  EXPECT_GT(video.luma_spread(), 2 * before.luma_spread());
}

TEST_F(Transcode, MissingInputFailsWithOneLine) {
  const fs::path out = dir_ / "missing-out.mp4";
  std::string err;
  EXPECT_NE(run_process({script("transcode"), (dir_ / "no-such.mp4").string(), out.string()},
                        nullptr, &err),
            0);
  EXPECT_EQ(err, "transcode: cannot read " + (dir_ / "no-such.mp4").string() + ": no such file\n");
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Transcode, GarbageInputFailsWithOneLine) {
  const fs::path in = dir_ / "garbage.mp4", out = dir_ / "garbage-out.mp4";
  {
    std::ofstream file(in, std::ios::binary);
    std::uint32_t x = 12345;
    for (int i = 0; i < 65536; ++i) {
      x = x * 1664525u + 1013904223u;
      file.put(char(x >> 24));
    }
  }
  std::string err;
  EXPECT_NE(run_process({script("transcode"), in.string(), out.string(), "--element", element()},
                        nullptr, &err),
            0);
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_EQ(err.rfind("transcode: cannot transcode " + in.string() + ": ", 0), 0u) << err;
  EXPECT_FALSE(fs::exists(out)) << "a failed transcode leaves no half-written output";
}

TEST_F(Transcode, InputWithoutVideoFailsWithOneLine) {
  const fs::path in = dir_ / "audio-only.m4a", out = dir_ / "audio-only-out.mp4";
  make_media(tone(30) + "! avenc_aac ! mp4mux ! filesink location=" + in.string());
  std::string err;
  EXPECT_NE(run_process({script("transcode"), in.string(), out.string(), "--element", element()},
                        nullptr, &err),
            0);
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_NE(err.find("no decodable video stream in " + in.string()), std::string::npos) << err;
}

// A 10 or 12-bit HEVC source (a low-contrast ramp over about 40% of its levels, made here with
// x265) keeps its depth: histeq equalizes it at that depth and x265 writes Main 10 or Main 12, so
// the output keeps more distinct luma levels than 8 bits have. The first line says so.
class DeepTranscode : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("histeq-deep-transcode-" + std::to_string(::getpid()) +
                                        "-" + std::to_string(GetParam()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

TEST_P(DeepTranscode, DeepVideoKeepsItsDepthThroughX265) {
  const int bits = GetParam();
  const std::string depth = std::to_string(bits);
  std::string inspected;
  if (run_process({"gst-inspect-1.0", "x265enc"}, &inspected, nullptr) != 0)
    GTEST_SKIP() << "x265enc (gstreamer1.0-plugins-bad with libx265) is not installed";
  // libx265 builds without its 10 or 12-bit library leave the format out of x265enc's caps.
  if (inspected.find("I420_" + depth + "LE") == std::string::npos)
    GTEST_SKIP() << "this x265enc does not take I420_" << depth << "LE";
  const int width = 160, height = 96, frames = 15, scale = 1 << (bits - 10);
  const fs::path raw = dir_ / ("ramp" + depth + ".yuv"), in = dir_ / ("deep" + depth + ".mp4"),
                 out = dir_ / ("deep" + depth + "-out.mp4");
  {
    std::ofstream file(raw, std::ios::binary);
    std::uint32_t noise = 7;
    const auto put = [&](int word) {
      file.put(char(word & 0xff));
      file.put(char(word >> 8));
    };
    for (int f = 0; f < frames; ++f) {
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          noise = noise * 1664525u + 1013904223u;
          put(scale * (300 + 400 * (x + y) / (width + height)) + int(noise >> (32 - bits + 8)));
        }
      for (int c = 0; c < 2 * (width / 2) * (height / 2); ++c) put(512 * scale);
    }
  }
  make_media(
      "filesrc location=" + raw.string() + " ! rawvideoparse format=i420-" + depth +
      "le width=" + std::to_string(width) + " height=" + std::to_string(height) +
      " framerate=30/1 ! x265enc qp=4 ! h265parse ! mp4mux ! filesink location=" + in.string());
  DecodedVideo before, video;
  std::string error, said, err;
  ASSERT_TRUE(decode_video(in.string(), before, error)) << error;
  ASSERT_EQ(before.luma_bits, bits);
  ASSERT_EQ(run_process({script("transcode"), in.string(), out.string(), "--element", element()},
                        &said, &err),
            0)
      << err;
  const std::string first_line = said.substr(0, said.find('\n'));
  EXPECT_NE(
      first_line.find("with " + element() + ", H.265 Main " + depth + " through x265enc: the " +
                      depth + "-bit source is kept at " + depth + " bits"),
      std::string::npos)
      << said;
  ASSERT_TRUE(decode_video(out.string(), video, error)) << error;
  report(in.filename().string() + " (input)", before);
  report(out.filename().string(), video);
  std::printf("libav: %s %d-bit luma, %d distinct levels (input %d)\n", out.filename().c_str(),
              video.luma_bits, video.distinct_luma_levels(), before.distinct_luma_levels());
  EXPECT_EQ(video.codec, "hevc");
  EXPECT_EQ(video.pixel_format, "yuv420p" + depth + "le");
  EXPECT_EQ(video.luma_bits, bits);
  EXPECT_EQ(video.frames, frames);
  EXPECT_GT(video.distinct_luma_levels(), 256);
  EXPECT_GT(video.luma_spread(), 2 * before.luma_spread());
}

INSTANTIATE_TEST_SUITE_P(Depths, DeepTranscode, ::testing::Values(10, 12),
                         [](const auto &info) { return std::to_string(info.param) + "Bits"; });
