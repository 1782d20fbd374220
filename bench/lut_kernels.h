// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The two small kernels the library peers (CUB, NPP) are completed with: a LUT built on the
// device from a 256-bin histogram with histeq::equalized_level (the core's one definition, so
// the bytes match the CPU element), and a plain LUT map over a pitched plane.

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "equalization.h"

namespace bench {

// lut[v] for v in 0..255 from histogram[0..255] (32-bit counts, `total` pixels); one block.
// The int32 form feeds NPP's LUT functions, which take Npp32s values.
void enqueue_build_lut(const unsigned *d_histogram, std::uint64_t total, histeq::OutputRange range,
                       std::uint8_t *d_lut, cudaStream_t stream);
void enqueue_build_lut(const unsigned *d_histogram, std::uint64_t total, histeq::OutputRange range,
                       std::int32_t *d_lut, cudaStream_t stream);

// dst = lut[src] over width x height (pitches in bytes); 16 pixels per thread where the rows
// allow 16-byte accesses, one otherwise; a grid-stride loop over at most 8 blocks per SM.
void enqueue_map(const std::uint8_t *d_src, std::ptrdiff_t src_pitch, std::uint8_t *d_dst,
                 std::ptrdiff_t dst_pitch, int width, int height, const std::uint8_t *d_lut,
                 int sms, cudaStream_t stream);

}  // namespace bench
