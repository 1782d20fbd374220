// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Error handling for the benchmark program: every CUDA call goes through BENCH_CUDA and every
// kernel launch is followed by BENCH_LAUNCH. A failure throws bench::Failure naming the call,
// the file and the line; main() catches it and returns non-zero. Nothing here exits.

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace bench {

class Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check_cuda(cudaError_t status, const char *call, const char *file, int line) {
  if (status == cudaSuccess) return;
  throw Failure(std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                cudaGetErrorString(status) + ") at " + file + ":" + std::to_string(line));
}

}  // namespace bench

#define BENCH_CUDA(call) ::bench::check_cuda((call), #call, __FILE__, __LINE__)
#define BENCH_LAUNCH(what) ::bench::check_cuda(cudaGetLastError(), what, __FILE__, __LINE__)
