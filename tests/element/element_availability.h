// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Whether an element of the plugin can run on this machine, for tests parameterized over both
// elements: cudahisteq's cases skip, with the reason, where it is not built or no GPU is.

#include <string>

#include <gtest/gtest.h>

#if HISTEQ_HAVE_CUDA
#include "gpu_test_support.h"
#endif

// Why `element` cannot run here, or "".
inline std::string element_unavailable_reason(const std::string &element) {
  if (element != "cudahisteq") return "";
#if HISTEQ_HAVE_CUDA
  return cuda_device_missing_reason();
#else
  return "cudahisteq is not built (no CUDA toolkit)";
#endif
}

#define SKIP_UNLESS_RUNS(element)                                     \
  do {                                                                \
    const std::string reason = element_unavailable_reason(element);   \
    if (!reason.empty()) GTEST_SKIP() << (element) << ": " << reason; \
  } while (0)
