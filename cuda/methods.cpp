// SPDX-License-Identifier: LGPL-2.1-or-later
#include "methods.h"

namespace histeq::cuda {

KernelConfig resolve(KernelConfig config) {
  if (config.fusion == Fusion::kAuto) {
    const bool fusable =
        (config.histogram == HistogramMethod::kAuto ||
         config.histogram == HistogramMethod::kVectorized) &&
        (config.scan == ScanMethod::kAuto || config.scan == ScanMethod::kWarpShuffle) &&
        config.lut == LutMemory::kShared;
    config.fusion = fusable ? Fusion::kSingleKernel : Fusion::kSeparateKernels;
  }
  if (config.histogram == HistogramMethod::kAuto) config.histogram = HistogramMethod::kVectorized;
  if (config.scan == ScanMethod::kAuto) config.scan = ScanMethod::kWarpShuffle;
  return config;
}

const char *to_string(HistogramMethod method) {
  switch (method) {
    case HistogramMethod::kAuto:
      return "auto";
    case HistogramMethod::kGlobalAtomics:
      return "global-atomics";
    case HistogramMethod::kSharedAtomics:
      return "shared-atomics";
    case HistogramMethod::kSharedAggregated:
      return "shared-aggregated";
    case HistogramMethod::kWarpPrivate:
      return "warp-private";
    case HistogramMethod::kReplicated:
      return "replicated";
    case HistogramMethod::kVectorized:
      return "vectorized";
  }
  return "unknown";
}

const char *to_string(ScanMethod method) {
  switch (method) {
    case ScanMethod::kAuto:
      return "auto";
    case ScanMethod::kKoggeStone:
      return "kogge-stone";
    case ScanMethod::kKoggeStoneDoubleBuffer:
      return "kogge-stone-double-buffer";
    case ScanMethod::kBrentKung:
      return "brent-kung";
    case ScanMethod::kWarpShuffle:
      return "warp-shuffle";
  }
  return "unknown";
}

const char *to_string(LutMemory memory) {
  switch (memory) {
    case LutMemory::kShared:
      return "shared";
    case LutMemory::kConstant:
      return "constant";
    case LutMemory::kTexture:
      return "texture";
  }
  return "unknown";
}

const char *to_string(Fusion fusion) {
  switch (fusion) {
    case Fusion::kAuto:
      return "auto";
    case Fusion::kSeparateKernels:
      return "separate-kernels";
    case Fusion::kSingleKernel:
      return "single-kernel";
  }
  return "unknown";
}

const char *to_string(Transfer transfer) {
  switch (transfer) {
    case Transfer::kCopyEngines:
      return "copy-engines";
    case Transfer::kZeroCopy:
      return "zero-copy";
  }
  return "unknown";
}

namespace {

template <typename Enum, std::size_t N>
bool parse_from(std::string_view name, const std::array<Enum, N> &values, Enum &out) {
  for (Enum value : values) {
    if (name == to_string(value)) {
      out = value;
      return true;
    }
  }
  return false;
}

}  // namespace

bool parse(std::string_view name, HistogramMethod &method) {
  return parse_from(name, kHistogramMethods, method);
}
bool parse(std::string_view name, ScanMethod &method) {
  return parse_from(name, kScanMethods, method);
}
bool parse(std::string_view name, LutMemory &memory) {
  return parse_from(name, kLutMemories, memory);
}
bool parse(std::string_view name, Fusion &fusion) {
  return parse_from(name, kFusions, fusion);
}

}  // namespace histeq::cuda
