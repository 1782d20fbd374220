// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_enums.h"

#include <vector>

#include "methods.h"

namespace {

// GEnumValue tables built from the engine's lists; the value is the enum's integer value.
template <typename Enum, std::size_t N>
GType register_enum(const char *type_name, const std::array<Enum, N> &values) {
  auto *table = new GEnumValue[N + 1];
  for (std::size_t i = 0; i < N; ++i) {
    const char *nick = histeq::cuda::to_string(values[i]);
    table[i] = GEnumValue{int(values[i]), nick, nick};
  }
  table[N] = GEnumValue{0, nullptr, nullptr};
  return g_enum_register_static(type_name, table);
}

}  // namespace

GType gst_cuda_hist_eq_histogram_method_get_type() {
  static GType type =
      register_enum("GstCudaHistEqHistogramMethod", histeq::cuda::kHistogramMethods);
  return type;
}

GType gst_cuda_hist_eq_scan_method_get_type() {
  static GType type = register_enum("GstCudaHistEqScanMethod", histeq::cuda::kScanMethods);
  return type;
}
