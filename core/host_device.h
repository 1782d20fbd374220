// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The equalization math is compiled twice: by the host compiler for the CPU element and by nvcc
// for the CUDA kernels. Marking it host+device keeps one definition, so both agree to the bit.
#if defined(__CUDACC__)
#define HISTEQ_HOST_DEVICE __host__ __device__
#else
#define HISTEQ_HOST_DEVICE
#endif
