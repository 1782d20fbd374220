// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The contenders that are not the engine: CUB, NPP (when it loads), and the seed-000 baseline,
// for one frame geometry.

#include <memory>
#include <string>
#include <vector>

#include "contenders.h"
#include "frames.h"
#include "npp_peer.h"

namespace bench {

namespace peer_names {
inline const char *const kCub = "CUB HistogramEven + LUT + map";
inline const char *const kNppSample = "NPP (histEqualizationNPP flow)";
inline const char *const kNppDeviceLut = "NPP hist + device LUT + LUT_Linear";
inline const char *const kSeedDevice = "seed-000 baseline";
inline const char *const kSeedPageable = "seed-000 baseline (pageable, sync copies)";
inline const char *const kSeedPinned = "seed-000 baseline (pinned, sync copies)";
}  // namespace peer_names

inline const char *const kSeedDefect = "seed-000 32-bit overflow >16.8 Mpx / divide by zero";

// `npp` may be null (not available).
std::vector<DeviceContender> peer_device_contenders(FrameSize size, std::ptrdiff_t pitch, int sms,
                                                    int device, NppPeer *npp);

// The seed-000 pipeline end to end from pageable memory (as the report ran it) and from pinned
// memory; empty when the frame is not contiguous.
std::vector<EndToEndContender> seed_end_to_end_contenders(const HostFrame &frame);

}  // namespace bench
