// SPDX-License-Identifier: LGPL-2.1-or-later
#include "peers.h"

#include "cub_peer.h"
#include "host_frames.h"
#include "seed000.h"

namespace bench {

std::vector<DeviceContender> peer_device_contenders(FrameSize size, std::ptrdiff_t pitch, int sms,
                                                    int device, NppPeer *npp) {
  std::vector<DeviceContender> list;
  auto cub = std::make_shared<CubPipeline>(size, pitch, sms);
  DeviceContender c;
  c.name = peer_names::kCub;
  c.enqueue = [cub](const std::uint8_t *src, std::uint8_t *dst, cudaStream_t s) {
    cub->run(src, dst, s);
  };
  list.push_back(c);
  if (npp) {
    npp->prepare(size, pitch, device);
    c = DeviceContender{};
    c.name = peer_names::kNppSample;
    c.enqueue = [npp](const std::uint8_t *src, std::uint8_t *dst, cudaStream_t s) {
      npp->run_sample(src, dst, s);
    };
    c.launched_only = true;  // the histogram goes to the host and back within the frame
    list.push_back(c);
    c = DeviceContender{};
    c.name = peer_names::kNppDeviceLut;
    c.enqueue = [npp](const std::uint8_t *src, std::uint8_t *dst, cudaStream_t s) {
      npp->run_device_lut(src, dst, s);
    };
    // Kept out of graph capture: in the one H100 run that captured NPP calls, later calls of
    // other contenders failed with a pending cudaErrorInvalidValue (cause not isolated).
    c.launched_only = true;
    list.push_back(c);
  }
  if (pitch == size.width) {
    auto seed = std::make_shared<Seed000>(size, pitch);
    c = DeviceContender{};
    c.name = peer_names::kSeedDevice;
    c.enqueue = [seed](const std::uint8_t *src, std::uint8_t *dst, cudaStream_t s) {
      seed->run_device(src, dst, s);
    };
    c.known_defect = kSeedDefect;
    c.legacy_default_stream = true;
    list.push_back(c);
  }
  return list;
}

std::vector<EndToEndContender> seed_end_to_end_contenders(const HostFrame &frame) {
  std::vector<EndToEndContender> list;
  if (frame.pitch != frame.size.width) return list;
  auto seed = std::make_shared<Seed000>(frame.size, frame.pitch);
  for (HostKind kind : {HostKind::kPageable, HostKind::kPinned}) {
    auto host = std::make_shared<HostFrames>(frame, kind, 2);
    EndToEndContender c;
    c.name = kind == HostKind::kPageable ? peer_names::kSeedPageable : peer_names::kSeedPinned;
    c.run = [seed, host](long first, int count) {
      for (long i = first; i < first + count; ++i) seed->run_end_to_end(host->in(i), host->out(i));
    };
    c.output = [host](long i) -> const std::uint8_t * { return host->out(i); };
    c.output_pitch = frame.pitch;
    c.known_defect = kSeedDefect;
    list.push_back(std::move(c));
  }
  return list;
}

}  // namespace bench
