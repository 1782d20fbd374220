// SPDX-License-Identifier: LGPL-2.1-or-later
#include "seed000.h"

namespace bench {

namespace {

// The kernels as report 000 prints them (names, loops, launch shapes); only the style differs.
constexpr unsigned kBins = 256;

__global__ void calculate_histogram(const unsigned char *input, unsigned int *histogram,
                                    unsigned int pixel_count) {
  __shared__ unsigned int hist_shared[kBins];
  for (unsigned int bin = threadIdx.x; bin < kBins; bin += blockDim.x) hist_shared[bin] = 0;
  __syncthreads();
  unsigned int accumulator = 0;
  unsigned int prev_bin = kBins;
  const unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned int index = tid; index < pixel_count; index += blockDim.x * gridDim.x) {
    const unsigned int curr_bin = input[index];
    if (curr_bin != prev_bin) {
      if (prev_bin != kBins) atomicAdd(&hist_shared[prev_bin], accumulator);
      accumulator = 1;
      prev_bin = curr_bin;
    } else {
      accumulator++;
    }
  }
  if (accumulator > 0) atomicAdd(&hist_shared[prev_bin], accumulator);
  __syncthreads();
  for (unsigned int bin = threadIdx.x; bin < kBins; bin += blockDim.x) {
    const unsigned int value = hist_shared[bin];
    if (value > 0) atomicAdd(&histogram[bin], value);
  }
}

__global__ void kogge_stone_scan(unsigned int *cdf, const unsigned int *histogram) {
  __shared__ unsigned int cdf_shared[kBins];
  const unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < kBins) cdf_shared[threadIdx.x] = histogram[tid];
  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();
    unsigned int temp = 0;
    if (threadIdx.x >= stride) temp = cdf_shared[threadIdx.x - stride];
    __syncthreads();
    if (threadIdx.x >= stride) cdf_shared[threadIdx.x] += temp;
  }
  if (tid < kBins) cdf[tid] = cdf_shared[threadIdx.x];
}

__global__ void normalize_cdf(unsigned int *cdf, unsigned int pixel_count) {
  __shared__ unsigned int cdf_min_index;
  const unsigned int tid = threadIdx.x;
  if (tid == 0) cdf_min_index = kBins;
  __syncthreads();
  if (tid < kBins && cdf[tid] != 0) atomicMin(&cdf_min_index, tid);
  __syncthreads();
  __shared__ unsigned int cdf_min;
  if (tid == 0) cdf_min = cdf[cdf_min_index];
  __syncthreads();
  if (tid < kBins) {
    cdf[tid] = ((cdf[tid] - cdf_min) * (kBins - 1) + (pixel_count - cdf_min) / 2) /
               (pixel_count - cdf_min);
  }
}

__global__ void equalize_histogram(unsigned char *output, const unsigned char *input,
                                   const unsigned int *cdf, unsigned int pixel_count) {
  __shared__ unsigned int cdf_shared[kBins];
  for (unsigned int bin = threadIdx.x; bin < kBins; bin += blockDim.x) cdf_shared[bin] = cdf[bin];
  __syncthreads();
  const unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned int index = tid; index < pixel_count; index += blockDim.x * gridDim.x) {
    output[index] = cdf_shared[input[index]];
  }
}

}  // namespace

Seed000::Seed000(FrameSize size, std::ptrdiff_t pitch)
    : size_(size),
      pixels_(unsigned(size.pixels())),
      in_(device_buffer(size.pixels())),
      out_(device_buffer(size.pixels())),
      histogram_(device_buffer(kBins * sizeof(unsigned))),
      cdf_(device_buffer(kBins * sizeof(unsigned))) {
  if (pitch != size.width) throw Failure("seed-000 reads contiguous images only (pitch == width)");
}

void Seed000::run_device(const std::uint8_t *d_in, std::uint8_t *d_out, cudaStream_t stream) const {
  const unsigned blocks = (pixels_ + kThreads - 1) / kThreads;
  const unsigned grid = blocks / 4 > 0 ? blocks / 4 : 1;
  unsigned *histogram = histogram_.as<unsigned>();
  unsigned *cdf = cdf_.as<unsigned>();
  BENCH_CUDA(cudaMemsetAsync(histogram, 0, kBins * sizeof(unsigned), stream));
  calculate_histogram<<<grid, kThreads, 0, stream>>>(d_in, histogram, pixels_);
  BENCH_LAUNCH("seed-000 CalculateHistogram");
  kogge_stone_scan<<<1, kBins, 0, stream>>>(cdf, histogram);
  BENCH_LAUNCH("seed-000 KoggeStoneScan");
  normalize_cdf<<<1, kBins, 0, stream>>>(cdf, pixels_);
  BENCH_LAUNCH("seed-000 NormalizeCdf");
  equalize_histogram<<<grid, kThreads, 0, stream>>>(d_out, d_in, cdf, pixels_);
  BENCH_LAUNCH("seed-000 EqualizeHistogram");
}

void Seed000::run_end_to_end(const std::uint8_t *h_in, std::uint8_t *h_out) const {
  BENCH_CUDA(cudaMemcpy(in_.get(), h_in, pixels_, cudaMemcpyHostToDevice));
  run_device(in_.get(), out_.get(), nullptr);
  BENCH_CUDA(cudaMemcpy(h_out, out_.get(), pixels_, cudaMemcpyDeviceToHost));
}

}  // namespace bench
