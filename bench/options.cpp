// SPDX-License-Identifier: LGPL-2.1-or-later
#include "options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace bench {

namespace {

const char kUsage[] =
    "usage: histeq-bench [--csv PATH] [--quick] [--one-factor] [--device N]\n"
    "                    [--sizes WxH,WxH,...] [--contents natural,uniform,constant]\n"
    "  --csv PATH       write every measurement as CSV (bench/plot.sh draws it)\n"
    "  --quick          fewer repetitions, --one-factor (a smoke run; numbers are noisier)\n"
    "  --one-factor     only the engine variants that differ from the default in one factor\n"
    "                   (histogram method, scan or LUT memory), not the whole cross product\n";

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) parts.push_back(part);
  return parts;
}

}  // namespace

Repeats Options::device_repeats(FrameSize size) const {
  const int per_batch = std::clamp(int(40e6 / double(size.pixels())), 4, 48);
  return quick ? Repeats{1, 5, per_batch} : Repeats{2, 25, per_batch};
}

Repeats Options::end_to_end_repeats(FrameSize size) const {
  const int per_batch = std::clamp(int(400e6 / double(size.pixels())), 12, 64);
  return quick ? Repeats{1, 3, per_batch} : Repeats{1, 9, per_batch};
}

bool parse_options(int argc, char **argv, Options *o, std::string *message) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--csv" && has_value) {
      o->csv_path = argv[++i];
    } else if (arg == "--quick") {
      o->quick = true;
      o->all_variants = false;
    } else if (arg == "--one-factor") {
      o->all_variants = false;
    } else if (arg == "--device" && has_value) {
      o->device = std::atoi(argv[++i]);
    } else if (arg == "--sizes" && has_value) {
      o->sizes.clear();
      for (const std::string &s : split(argv[++i])) {
        FrameSize size{0, 0};
        if (std::sscanf(s.c_str(), "%dx%d", &size.width, &size.height) != 2 || size.width <= 0 ||
            size.height <= 0) {
          *message = "bad size '" + s + "'\n" + kUsage;
          return false;
        }
        o->sizes.push_back(size);
      }
    } else if (arg == "--contents" && has_value) {
      o->contents.clear();
      for (const std::string &c : split(argv[++i])) {
        if (c == "natural") {
          o->contents.push_back(Content::kNatural);
        } else if (c == "uniform") {
          o->contents.push_back(Content::kUniform);
        } else if (c == "constant") {
          o->contents.push_back(Content::kConstant);
        } else {
          *message = "bad content '" + c + "'\n" + kUsage;
          return false;
        }
      }
    } else {
      *message = (arg == "--help" || arg == "-h" ? std::string() : "bad argument '" + arg + "'\n") +
                 kUsage;
      return false;
    }
  }
  return true;
}

}  // namespace bench
