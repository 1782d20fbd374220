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
  list.push_back(
      {peer_names::kCub,
       [cub](const std::uint8_t *src, std::uint8_t *dst, cudaStream_t s) { cub->run(src, dst, s); },
       false, "", false});
  if (npp) {
    npp->prepare(size, pitch, device);
    list.push_back({peer_names::kNppSample,
                    [npp](const std::uint8_t *src, std::uint8_t *dst, cudaStream_t s) {
                      npp->run_sample(src, dst, s);
                    },
                    false, "", false});
    list.push_back({peer_names::kNppDeviceLut,
                    [npp](const std::uint8_t *src, std::uint8_t *dst, cudaStream_t s) {
                      npp->run_device_lut(src, dst, s);
                    },
                    false, "", false});
  }
  if (pitch == size.width) {
    auto seed = std::make_shared<Seed000>(size, pitch);
    // The seed runs on the legacy default stream, as it did; the harness times it there.
    list.push_back({peer_names::kSeedDevice,
                    [seed](const std::uint8_t *src, std::uint8_t *dst, cudaStream_t) {
                      seed->run_device(src, dst);
                    },
                    false, kSeedDefect, true});
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
