// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// How the single kernel walks a pitched plane, shared with the benchmark's one-kernel floor so
// that the floor moves the plane exactly as the kernel does.

#include <cstdint>

#include <cuda_runtime.h>

#include "device_plane.h"

namespace histeq::cuda {

// Work item i: chunk c of row y (`chunk_bytes` bytes, whole pixels) when c < chunks, else the
// row's tail pixels. Reading `src` and writing `dst` (the same size), rows go in chunks only
// when both allow it.
struct Items {
  int chunks, per_row;
  long long count;
  __device__ Items(const DevicePlane &src, const DevicePlane &dst, int chunk_bytes = 16) {
    const long long row_bytes = (long long)src.row_bytes();
    chunks = rows_in_chunks(src) && rows_in_chunks(dst) ? int(row_bytes / chunk_bytes) : 0;
    per_row = chunks + (row_bytes > (long long)chunks * chunk_bytes ? 1 : 0);
    count = (long long)per_row * src.height;
  }
  __device__ explicit Items(const DevicePlane &p) : Items(p, p) {}
};

// A thread's walk over the items first, first + stride, ... as (row, chunk) positions: each step
// is an add and a compare, where finding the row of every item with a 64-bit division is a
// visible share of the kernel's time (bench/README.md, "Engine design choices"). The separate
// kernels keep their division: at about one item per thread there is nothing to save.
struct ItemCursor {
  int y = 0, c = 0;
  int rows_step = 0, chunks_step = 0, per_row = 0;
  __device__ ItemCursor(const Items &items, int height, long long first, long long stride)
      : per_row(items.per_row) {
    if (first >= items.count) {
      y = height;
      return;
    }
    y = int(first / per_row);
    c = int(first - (long long)y * per_row);
    rows_step = int(stride / per_row);
    chunks_step = int(stride - (long long)rows_step * per_row);
  }
  __device__ void next() {
    y += rows_step;
    c += chunks_step;
    if (c >= per_row) {
      c -= per_row;
      ++y;
    }
  }
};

}  // namespace histeq::cuda
