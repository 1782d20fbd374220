// SPDX-License-Identifier: LGPL-2.1-or-later
#include "libav_video.h"

#include <memory>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
}

namespace {

struct FormatCloser {
  void operator()(AVFormatContext *c) const { avformat_close_input(&c); }
};
struct CodecFreer {
  void operator()(AVCodecContext *c) const { avcodec_free_context(&c); }
};
struct FrameFreer {
  void operator()(AVFrame *f) const { av_frame_free(&f); }
};
struct PacketFreer {
  void operator()(AVPacket *p) const { av_packet_free(&p); }
};

std::string av_message(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof(text));
  return text;
}

// The first plane of every planar/semi-planar YUV or GRAY format is luma: bytes, or
// little-endian words with the level `shift` bits up (P010's 6).
bool count_luma(const AVFrame &frame, DecodedVideo &video, std::string &error) {
  const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(AVPixelFormat(frame.format));
  const int bits = desc ? desc->comp[0].depth : 0;
  if (!desc || (desc->flags & AV_PIX_FMT_FLAG_RGB) || (desc->flags & AV_PIX_FMT_FLAG_BE) ||
      bits < 8 || bits > 16) {
    error = "unexpected pixel format " + std::string(desc ? desc->name : "unknown");
    return false;
  }
  if (video.deep_luma_histogram.empty()) {
    video.luma_bits = bits;
    video.deep_luma_histogram.assign(std::size_t(1) << bits, 0);
  }
  for (int y = 0; y < frame.height; ++y) {
    const std::uint8_t *row = frame.data[0] + std::ptrdiff_t(y) * frame.linesize[0];
    for (int x = 0; x < frame.width; ++x) {
      int level = row[x];
      if (bits > 8) {
        const std::uint8_t *word = row + std::ptrdiff_t(x) * desc->comp[0].step;
        level = ((word[0] | word[1] << 8) >> desc->comp[0].shift) & ((1 << bits) - 1);
      }
      video.deep_luma_histogram[std::size_t(level)]++;
      video.luma_histogram[std::size_t(level >> (bits - 8))]++;
    }
  }
  return true;
}

std::unique_ptr<AVFormatContext, FormatCloser> open_media(const std::string &path,
                                                          std::string &error) {
  AVFormatContext *raw_format = nullptr;
  int rc = avformat_open_input(&raw_format, path.c_str(), nullptr, nullptr);
  if (rc < 0) {
    error = "cannot open " + path + ": " + av_message(rc);
    return nullptr;
  }
  std::unique_ptr<AVFormatContext, FormatCloser> format(raw_format);
  if ((rc = avformat_find_stream_info(format.get(), nullptr)) < 0) {
    error = "no stream info: " + av_message(rc);
    return nullptr;
  }
  return format;
}

}  // namespace

int DecodedVideo::luma_percentile(double fraction) const {
  std::uint64_t total = 0;
  for (auto c : luma_histogram) total += c;
  std::uint64_t running = 0;
  for (int v = 0; v < 256; ++v) {
    running += luma_histogram[v];
    if (double(running) >= fraction * double(total)) return v;
  }
  return 255;
}

bool read_audio_packets(const std::string &path, AudioPackets &audio, std::string &error) {
  auto format = open_media(path, error);
  if (!format) return false;
  audio = AudioPackets{};
  const int stream_index =
      av_find_best_stream(format.get(), AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
  if (stream_index < 0) return true;
  const AVStream *stream = format->streams[stream_index];
  audio.present = true;
  audio.codec = avcodec_get_name(stream->codecpar->codec_id);
  audio.sample_rate = stream->codecpar->sample_rate;
  audio.channels = stream->codecpar->ch_layout.nb_channels;
  if (stream->duration != AV_NOPTS_VALUE)
    audio.duration_seconds = stream->duration * av_q2d(stream->time_base);
  std::uint64_t digest = 0xcbf29ce484222325ull;
  std::unique_ptr<AVPacket, PacketFreer> packet(av_packet_alloc());
  int rc;
  while ((rc = av_read_frame(format.get(), packet.get())) >= 0) {
    if (packet->stream_index == stream_index) {
      audio.packets++;
      audio.bytes += std::uint64_t(packet->size);
      for (int i = 0; i < packet->size; ++i) digest = (digest ^ packet->data[i]) * 0x100000001b3ull;
    }
    av_packet_unref(packet.get());
  }
  audio.digest = digest;
  if (rc != AVERROR_EOF) {
    error = "read failed: " + av_message(rc);
    return false;
  }
  return true;
}

bool decode_video(const std::string &path, DecodedVideo &video, std::string &error) {
  auto format = open_media(path, error);
  if (!format) return false;
  int rc = 0;
  const AVCodec *codec = nullptr;
  const int stream_index = av_find_best_stream(format.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
  if (stream_index < 0) {
    error = "no video stream in " + path;
    return false;
  }
  const AVStream *stream = format->streams[stream_index];
  std::unique_ptr<AVCodecContext, CodecFreer> decoder(avcodec_alloc_context3(codec));
  avcodec_parameters_to_context(decoder.get(), stream->codecpar);
  if ((rc = avcodec_open2(decoder.get(), codec, nullptr)) < 0) {
    error = "cannot open decoder: " + av_message(rc);
    return false;
  }
  video = DecodedVideo{};
  video.codec = avcodec_get_name(stream->codecpar->codec_id);
  const char *pixel_format = av_get_pix_fmt_name(AVPixelFormat(stream->codecpar->format));
  video.pixel_format = pixel_format ? pixel_format : "unknown";
  video.width = stream->codecpar->width;
  video.height = stream->codecpar->height;
  if (stream->duration != AV_NOPTS_VALUE)
    video.duration_seconds = stream->duration * av_q2d(stream->time_base);

  std::unique_ptr<AVPacket, PacketFreer> packet(av_packet_alloc());
  std::unique_ptr<AVFrame, FrameFreer> frame(av_frame_alloc());
  auto drain = [&]() {
    while ((rc = avcodec_receive_frame(decoder.get(), frame.get())) >= 0) {
      video.frames++;
      if (!count_luma(*frame, video, error)) return false;
    }
    return rc == AVERROR(EAGAIN) || rc == AVERROR_EOF;
  };
  while (av_read_frame(format.get(), packet.get()) >= 0) {
    if (packet->stream_index == stream_index) {
      rc = avcodec_send_packet(decoder.get(), packet.get());
      av_packet_unref(packet.get());
      if (rc < 0 || !drain()) {
        if (error.empty()) error = "decode failed: " + av_message(rc);
        return false;
      }
    } else {
      av_packet_unref(packet.get());
    }
  }
  avcodec_send_packet(decoder.get(), nullptr);
  if (!drain()) {
    if (error.empty()) error = "decode failed while draining: " + av_message(rc);
    return false;
  }
  return true;
}

int DecodedVideo::distinct_luma_levels() const {
  int levels = 0;
  for (std::uint64_t count : deep_luma_histogram) levels += count != 0;
  return levels;
}
