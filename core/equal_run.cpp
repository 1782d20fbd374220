// SPDX-License-Identifier: LGPL-2.1-or-later
// equal_run on the widest SIMD target the CPU has (Highway's dynamic dispatch).
#include "equal_run.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "equal_run.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace histeq {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

int EqualRun(const std::uint8_t *HWY_RESTRICT p, int n, std::uint8_t value) {
  const hn::ScalableTag<std::uint8_t> d;
  const int lanes = int(hn::Lanes(d));
  const auto wanted = hn::Set(d, value);
  int x = 0;
  for (; x + lanes <= n; x += lanes) {
    const auto differs = hn::Ne(hn::LoadU(d, p + x), wanted);
    if (!hn::AllFalse(d, differs)) {
      return (x + int(hn::FindFirstTrue(d, differs))) & ~15;
    }
  }
  for (; x < n && p[x] == value; ++x) {
  }
  return x & ~15;
}

}  // namespace HWY_NAMESPACE
}  // namespace histeq
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace histeq {

HWY_EXPORT(EqualRun);

int equal_run(const std::uint8_t *p, int n, std::uint8_t value) {
  return HWY_DYNAMIC_DISPATCH(EqualRun)(p, n, value);
}

int equal_run_scalar(const std::uint8_t *p, int n, std::uint8_t value) {
  int x = 0;
  while (x < n && p[x] == value) ++x;
  return x & ~15;
}

}  // namespace histeq
#endif  // HWY_ONCE
