// SPDX-License-Identifier: LGPL-2.1-or-later
#include "report.h"

#include <cstdio>
#include <string>

#include "params.h"

namespace quality {

namespace {

constexpr int kLabelWidth = 40;

std::string number(double value, bool shown, const char *format) {
  if (!shown) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

void print_legend() {
  std::printf(
      "columns (ROI = the clip's region of interest, luma codes 0..255):\n"
      "  flicker     mean over frames of |mean(ROI out, t) - mean(ROI out, t-1)|; the step into\n"
      "              a real cut is left out; the input row is the clip's own\n"
      "  noise gain  std(ROI out) / std(ROI in), mean over frames (flat ROI only: dark noise)\n"
      "  settle      frames after the cut until the ROI mean stays within 1 code of where it\n"
      "              ends (its mean over the last 10 frames); 0 = right at the cut frame\n"
      "  restarts    frames after the first where our history restarted (a scene cut seen);\n"
      "              rows that keep a history only\n"
      "  scene TV    0.5 * sum |p - q| of consecutive input frames' histograms over 16 bands: the\n"
      "              largest inside the clip (the real cut left out) and the one at the cut;\n"
      "              the engine restarts above scene-threshold %.2f (it compares the frame with\n"
      "              its smoothed history, which consecutive frames approximate)\n",
      histeq::Settings{}.scene_threshold);
}

void print_clip(const Clip &clip, const ClipResult &result) {
  std::printf("\n== %s: %s\n", clip.name.c_str(), clip.models.c_str());
  std::printf("   ROI: %s\n", clip.roi_note.c_str());
  std::printf("   scene TV: largest inside the clip %.3f (into frame %d); at the cut ",
              result.max_tv, result.max_tv_frame);
  if (result.has_cut)
    std::printf("%.3f (into frame %d)\n", result.cut_tv, clip.cut);
  else
    std::printf("-\n");
  std::printf("   %-*s %8s %11s %7s %9s  %s\n", kLabelWidth, "setting", "flicker", "noise gain",
              "settle", "restarts", "fed as");
  for (const RowResult &row : result.rows) {
    if (!row.ok) {
      std::printf("   %-*s %s\n", kLabelWidth, row.label.c_str(), row.note.c_str());
      continue;
    }
    std::printf("   %-*s %8.3f %11s %7s %9s  %s\n", kLabelWidth, row.label.c_str(), row.flicker,
                number(row.noise_gain, row.noise_gain >= 0, "%.2fx").c_str(),
                row.settle >= 0 ? std::to_string(row.settle).c_str() : "-",
                row.restarts >= 0 ? std::to_string(row.restarts).c_str() : "-",
                row.note.empty() ? "gray" : row.note.c_str());
  }
}

}  // namespace quality
