// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstdint>

namespace histeq {

// The length of the run of bytes equal to `value` from p on, in whole steps of 16 bytes: the
// largest multiple of 16, at most n, such that bytes [0, length) all equal `value`. On the CPU's
// widest SIMD target: the count takes long runs (flat areas, letterbox bars, black frames,
// screen content) a vector at a time instead of sixteen bytes at a time.
int equal_run(const std::uint8_t *p, int n, std::uint8_t value);

// The same, one byte at a time: the reference equal_run must equal.
int equal_run_scalar(const std::uint8_t *p, int n, std::uint8_t value);

}  // namespace histeq
