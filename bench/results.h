// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Every number the benchmark takes, one row each, printed as tables (one column per frame size)
// and written as CSV for the plot script.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "frames.h"

namespace bench {

enum class Section {
  kDevice,          // device-resident, batches replayed as CUDA graphs (GPU time), us per frame,
                    // ratio = time / D2D copy time (copy replayed the same way)
  kDeviceLaunched,  // the same launched call by call on a stream (host launch cost included)
  kEndToEnd,        // host memory in and out, frames per second, ratio = fps / PCIe floor fps
  kCpu,             // the core on the CPU, in place in host memory, frames per second
};

const char *section_name(Section section);

struct Row {
  Row(Section section_, std::string variant_, Content content_, FrameSize size_)
      : section(section_), variant(std::move(variant_)), content(content_), size(size_) {}

  Section section;
  std::string variant;
  Content content;
  FrameSize size;
  double us_per_frame = 0;
  double ratio = 0;     // 0 when there is nothing to divide by
  std::string check;    // "ok", "MISMATCH ...", "expected-mismatch ...", "-" (not checked)
  bool detail = false;  // only in the cross-product table
  double fps() const { return us_per_frame > 0 ? 1e6 / us_per_frame : 0; }
};

class Results {
 public:
  void add(Row row);
  // A line printed under the tables (a contender that could not be graph-captured, say).
  void note(const std::string &line);
  const std::vector<Row> &rows() const { return rows_; }
  const Row *find(Section section, const std::string &variant, Content content,
                  FrameSize size) const;

  // The headline tables, then the engine's cross product (variants named "engine ...") as
  // ratios to the copy, natural/uniform/constant per size.
  void print_tables(std::ostream &out) const;
  // section,variant,content,width,height,us_per_frame,fps,ratio,ratio_to,check
  bool write_csv(const std::string &path) const;
  // Mismatches that are not the seed's documented defects, and contenders that failed.
  int unexpected_mismatches() const;

 private:
  void print_cross_product(std::ostream &out, const std::vector<FrameSize> &sizes) const;

  std::vector<Row> rows_;
  std::vector<std::string> notes_;
};

}  // namespace bench
