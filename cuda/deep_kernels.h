// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Equalization of 10, 12 and 16-bit luma in 16-bit words (PixelLayout::deep()), one bin per
// level (2^bits), in three launches on one stream, each templated on the depth:
//   count  the histogram into per-block shared bins merged into the device bins: 32-bit bins at
//          10 and 12 bits; at 16 bits, 65536 16-bit bins (128 KiB), each block over a band of
//          rows: a band of at most 0xffff pixels cannot overflow a bin, and in a larger one each
//          atomic that wraps a bin settles the 65536 with the device bins (GPUs without 128 KiB of
//          shared memory a block count in the device bins). The 16-bit bins and LUT sit in
//          shared memory in an order that spreads video of 8-12 bits in 16-bit words (levels
//          with their low bits zero) over the banks;
//   tone   a cooperative grid of one block per 1024 levels, four per thread, builds the LUT with
//          the options of tone.params (core/tone_steps.h, the steps DeepCpuEqualizer takes):
//          each block's sums and scan total cross to the others through DeepExchange behind
//          grid barriers, so every level's values stay in registers; one block (10 bits, and the
//          classic LUT at 12 bits, 16 levels per thread) swaps nothing, and the classic 16-bit
//          LUT takes one block per 2048 levels, eight per thread, and one barrier. It writes the
//          history and the report, and leaves the device bins zero for the next frame;
//   map    every word to word_of(lut[level_of(word)]), the LUT in shared memory (128 KiB of it
//          at 16 bits, where the GPU has it); nothing when the LUT is the identity. At 16 bits
//          the shared memory left beside the LUT takes up to as many chunks again per thread
//          (DeepLimits::wide_staged), copied asynchronously from compute capability 8.0 on,
//          so that more of the plane is read by the time the LUT is built.
// From compute capability 9.0 on the tone kernel and the map start early (dependent_launch.cuh):
// the tone kernel as the count's last blocks finish, waiting for the count before it reads the
// bins; the map while the tone kernel runs, its first chunks loading while the LUT is built.
// Frames have fewer than 2^32 pixels, so counts and sums fit 32-bit words.

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "device_plane.h"
#include "device_tone.h"
#include "equalization.h"

namespace histeq::cuda {

// What the tone kernel's blocks tell each other: per block, the sums of its levels.
struct DeepExchange {
  static constexpr int kMaxBlocks = kMaxLevels / 1024;
  unsigned count_excess[kMaxBlocks];
  unsigned smoothed_excess[kMaxBlocks];
  int band_differences[kMaxBlocks][16];  // per scene band (kSceneBands)
  unsigned source_total[kMaxBlocks];
  unsigned first_source[kMaxBlocks];  // the block's first non-zero source count, or 0
};

// What the device allows at 16 bits: 128 KiB of shared memory for a block's bins and LUT (else
// the count goes straight to the device bins and the map reads the LUT from device memory), and
// the tone kernel's 64 blocks resident at once (else 16-bit frames are refused).
struct DeepLimits {
  bool wide_shared = false;
  bool wide_tone = false;
  // The tone and map kernels may start before the kernel each follows ends
  // (dependent_launch.cuh): the tone kernel as the count's last blocks finish, the map's first
  // loads overlapping the tone kernel.
  bool starts_early = false;
  // With wide_shared: the 16-bit map's chunks per thread staged in the shared memory beside its
  // LUT, loading while the LUT is built (0 to 4, as the device's shared memory allows).
  int wide_staged = 0;
};

// The current device's limits; also lets the 16-bit kernels take their shared memory there.
cudaError_t deep_limits(DeepLimits *limits);

// A frame's device bins and LUT, sized for the deepest samples; the bins are zero between frames.
// `d_identity` says the LUT maps every level to itself: the map then leaves every word as it is,
// as the CPU does (a word's bits outside its level, set only in malformed words, stay).
struct DeepScratch {
  static constexpr std::size_t kBytes = std::size_t(kMaxLevels) * sizeof(unsigned) +
                                        sizeof(DeepExchange) +
                                        std::size_t(kMaxLevels) * sizeof(std::uint16_t) + 16;
  unsigned *d_histogram = nullptr;
  DeepExchange *d_exchange = nullptr;
  std::uint16_t *d_lut = nullptr;
  unsigned *d_identity = nullptr;
  DeepLimits limits;
};

// The scratch laid out in kBytes of device memory at `d_memory` (16-byte aligned; zeroed by the
// caller before the first frame).
DeepScratch deep_scratch_at(void *d_memory, DeepLimits limits);

// Enqueues the three kernels for `plane` (a deep layout, checked by the caller) into `out` (the
// same size; may be `plane`) on `stream`. cudaErrorCooperativeLaunchTooLarge, before anything is
// enqueued, for 16-bit frames where the limits do not allow the tone kernel.
cudaError_t launch_deep(const DevicePlane &plane, const DevicePlane &out, OutputRange range,
                        const DeviceTone &tone, const DeepScratch &scratch, int sm_count,
                        cudaStream_t stream);

}  // namespace histeq::cuda
