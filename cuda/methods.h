// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The kernel variants of the reference reports, selectable so the benchmark can show what
// each costs. `auto` is whichever the benchmark shows fastest.

#include <array>
#include <string_view>

namespace histeq::cuda {

enum class HistogramMethod {
  kAuto,
  kGlobalAtomics,     // every pixel an atomic on the device histogram (seed 004, 001 Global)
  kSharedAtomics,     // one shared-memory histogram per block (seeds 003/004)
  kSharedAggregated,  // shared histogram, runs of equal pixels added once (seed 000)
  kWarpPrivate,       // one shared histogram per warp (seed 001 Large)
  kReplicated,        // several interleaved sub-histograms per block (seed 001 Bins)
  kVectorized,        // 16-byte loads, run-aggregated per-warp histograms, grid sized to SMs
};

enum class ScanMethod {
  kAuto,
  kKoggeStone,              // seed 000
  kKoggeStoneDoubleBuffer,  // seed 000
  kBrentKung,               // seed 000, work-efficient
  kWarpShuffle,             // CUB BlockScan over warp shuffles (seeds 001/003)
};

enum class LutMemory {
  kShared,    // LUT copied into each block's shared memory (default)
  kConstant,  // __constant__ bank (seed 004)
  kTexture,   // texture object over the device LUT (seed 004)
};

enum class Fusion {
  kAuto,             // single kernel unless a separate-kernel variant was asked for
  kSeparateKernels,  // histogram, scan + LUT, map: three launches (the seeds' structure)
  kSingleKernel,     // one cooperative kernel with a grid-wide barrier (fused_kernel.h)
};

// How FrameEngine moves a frame in host memory to the kernels and back (seed 004's pinned and
// mapped transfers).
enum class Transfer {
  kCopyEngines,  // DMA copies of the luma plane up and down around the kernels (default)
  kZeroCopy,     // the kernels read and write the pinned host plane themselves
                 // (zero_copy_kernels.h); only the default kernels run this way
};

// LUTs the constant-LUT variant keeps in constant memory (constant_lut_slot.h): one per
// equalizer alive in the process, 16 KB of the 64 KB bank.
constexpr int kConstantLutSlots = 64;

struct KernelConfig {
  HistogramMethod histogram = HistogramMethod::kAuto;
  ScanMethod scan = ScanMethod::kAuto;
  LutMemory lut = LutMemory::kShared;
  Fusion fusion = Fusion::kAuto;
};

// The concrete variant that `auto` stands for. The single kernel uses the vectorized
// histogram, warp-shuffle scan and shared LUT, so naming another of those picks three kernels.
KernelConfig resolve(KernelConfig config);

inline constexpr std::array<HistogramMethod, 7> kHistogramMethods = {
    HistogramMethod::kAuto,          HistogramMethod::kGlobalAtomics,
    HistogramMethod::kSharedAtomics, HistogramMethod::kSharedAggregated,
    HistogramMethod::kWarpPrivate,   HistogramMethod::kReplicated,
    HistogramMethod::kVectorized};
inline constexpr std::array<ScanMethod, 5> kScanMethods = {
    ScanMethod::kAuto, ScanMethod::kKoggeStone, ScanMethod::kKoggeStoneDoubleBuffer,
    ScanMethod::kBrentKung, ScanMethod::kWarpShuffle};
inline constexpr std::array<Fusion, 3> kFusions = {Fusion::kAuto, Fusion::kSeparateKernels,
                                                   Fusion::kSingleKernel};
inline constexpr std::array<Transfer, 2> kTransfers = {Transfer::kCopyEngines, Transfer::kZeroCopy};
inline constexpr std::array<LutMemory, 3> kLutMemories = {LutMemory::kShared, LutMemory::kConstant,
                                                          LutMemory::kTexture};

// Hyphenated names ("shared-atomics"), as GStreamer enum nicks and benchmark labels.
const char *to_string(HistogramMethod method);
const char *to_string(ScanMethod method);
const char *to_string(LutMemory memory);
const char *to_string(Fusion fusion);
const char *to_string(Transfer transfer);
bool parse(std::string_view name, HistogramMethod &method);
bool parse(std::string_view name, ScanMethod &method);
bool parse(std::string_view name, LutMemory &memory);
bool parse(std::string_view name, Fusion &fusion);

}  // namespace histeq::cuda
