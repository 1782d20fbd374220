// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// What the libFuzzer harnesses share: their input read as numbers, and their invariants.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace fuzz {

// Reads the fuzzer's bytes front to back; zeros once they run out.
class Bytes {
 public:
  Bytes(const std::uint8_t *data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::uint16_t word() { return std::uint16_t(byte() | byte() << 8); }
  std::uint32_t dword() { return std::uint32_t(word()) | std::uint32_t(word()) << 16; }
  double fraction() { return word() / 65535.0; }
  bool chance(int one_in) { return byte() % one_in == 0; }

 private:
  const std::uint8_t *data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

}  // namespace fuzz

// Aborts with the harness, the failed invariant and its line, so a crash names what broke.
#define FUZZ_CHECK(condition)                                                            \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      std::fprintf(stderr, "%s: %s failed (line %d)\n", __FILE__, #condition, __LINE__); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
