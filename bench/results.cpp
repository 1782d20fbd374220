// SPDX-License-Identifier: LGPL-2.1-or-later
#include "results.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <ostream>

namespace bench {

namespace {

bool same_size(FrameSize a, FrameSize b) {
  return a.width == b.width && a.height == b.height;
}

std::string format(const char *fmt, double a, double b = 0) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

const char *ratio_to(Section section) {
  switch (section) {
    case Section::kDevice:
    case Section::kDeviceLaunched:
      return "d2d_copy";
    case Section::kEndToEnd:
      return "pcie_floor";
    case Section::kCpu:
      return "";
  }
  return "";
}

std::string cell(const Row &row) {
  std::string text;
  switch (row.section) {
    case Section::kDevice:
    case Section::kDeviceLaunched:
      text = format(row.us_per_frame < 10 ? "%.2f us" : "%.1f us", row.us_per_frame);
      if (row.ratio > 0) text += format(" %.2fx", row.ratio);
      break;
    case Section::kEndToEnd:
      text = row.ratio > 0 ? format("%.0f fps %.2f", row.fps(), row.ratio)
                           : format("%.0f fps", row.fps());
      break;
    case Section::kCpu:
      text = format("%.0f fps", row.fps());
      break;
  }
  if (row.check.rfind("ERROR", 0) == 0) return "ERROR !!";
  if (row.check.rfind("MISMATCH", 0) == 0) text += " !!";
  if (row.check.rfind("expected-mismatch", 0) == 0) text += " !";
  return text;
}

}  // namespace

const char *section_name(Section section) {
  switch (section) {
    case Section::kDevice:
      return "device";
    case Section::kDeviceLaunched:
      return "device-launched";
    case Section::kEndToEnd:
      return "end-to-end";
    case Section::kCpu:
      return "cpu";
  }
  return "?";
}

void Results::add(Row row) {
  rows_.push_back(std::move(row));
}

void Results::note(const std::string &line) {
  if (std::find(notes_.begin(), notes_.end(), line) == notes_.end()) notes_.push_back(line);
}

const Row *Results::find(Section section, const std::string &variant, Content content,
                         FrameSize size) const {
  for (const Row &r : rows_) {
    if (r.section == section && r.variant == variant && r.content == content &&
        same_size(r.size, size)) {
      return &r;
    }
  }
  return nullptr;
}

void Results::print_cross_product(std::ostream &out, const std::vector<FrameSize> &sizes) const {
  std::vector<std::string> variants;
  for (const Row &r : rows_) {
    if (r.section == Section::kDevice && r.variant.rfind("engine", 0) == 0 &&
        std::find(variants.begin(), variants.end(), r.variant) == variants.end())
      variants.push_back(r.variant);
  }
  if (variants.size() < 2) return;
  std::size_t name_width = 8;
  for (const auto &v : variants) name_width = std::max(name_width, v.size());
  out << "\n== Engine variants, device-resident GPU time (graph replay): x the D2D copy, "
         "natural/uniform/constant (!! = wrong output)\n";
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-*s", int(name_width), "variant (histogram/scan/LUT)");
  out << buf;
  for (FrameSize s : sizes) {
    std::snprintf(buf, sizeof buf, " %17s", s.label().c_str());
    out << buf;
  }
  out << "\n";
  for (const auto &v : variants) {
    std::snprintf(buf, sizeof buf, "%-*s", int(name_width), v.c_str());
    out << buf;
    for (FrameSize s : sizes) {
      std::string text;
      bool wrong = false;
      for (Content c : {Content::kNatural, Content::kUniform, Content::kConstant}) {
        const Row *r = find(Section::kDevice, v, c, s);
        if (!text.empty()) text += "/";
        if (!r)
          text += "-";
        else if (r->check.rfind("ERROR", 0) == 0)
          text += "ERR";
        else
          text += format("%.2f", r->ratio);
        wrong =
            wrong || (r && (r->check.rfind("MISMATCH", 0) == 0 || r->check.rfind("ERROR", 0) == 0));
      }
      if (wrong) text += "!!";
      std::snprintf(buf, sizeof buf, " %17s", text.c_str());
      out << buf;
    }
    out << "\n";
  }
}

void Results::print_tables(std::ostream &out) const {
  std::vector<FrameSize> sizes;
  for (const Row &r : rows_) {
    if (std::none_of(sizes.begin(), sizes.end(), [&](FrameSize s) { return same_size(s, r.size); }))
      sizes.push_back(r.size);
  }
  const char *titles[] = {
      "Device-resident GPU time (each batch of frames replayed as a CUDA graph): median us per "
      "frame, and x the D2D copy of the same plane replayed the same way (same run)",
      "Device-resident, launched call by call on one stream (host launch cost included): median "
      "us per frame, and x the D2D copy launched the same way (same run)",
      "End to end from host memory: frames/s, and the fraction of the PCIe floor (same run)",
      "CPU core (histeq::CpuEqualizer, in place in host memory): frames/s"};
  for (Section section :
       {Section::kDevice, Section::kDeviceLaunched, Section::kEndToEnd, Section::kCpu}) {
    // Rows in first-seen order of (variant, content).
    std::vector<std::pair<std::string, Content>> keys;
    for (const Row &r : rows_) {
      if (r.section != section || r.detail) continue;
      const auto key = std::make_pair(r.variant, r.content);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
    if (keys.empty()) continue;
    std::size_t name_width = 8;
    for (const auto &k : keys) name_width = std::max(name_width, k.first.size());
    out << "\n== " << titles[int(section)] << "\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "%-*s %-9s", int(name_width), "variant", "content");
    out << buf;
    for (FrameSize s : sizes) {
      std::snprintf(buf, sizeof buf, " %19s", s.label().c_str());
      out << buf;
    }
    out << "\n";
    for (const auto &k : keys) {
      std::snprintf(buf, sizeof buf, "%-*s %-9s", int(name_width), k.first.c_str(),
                    content_name(k.second));
      out << buf;
      for (FrameSize s : sizes) {
        const Row *r = find(section, k.first, k.second, s);
        std::snprintf(buf, sizeof buf, " %19s", r ? cell(*r).c_str() : "-");
        out << buf;
      }
      out << "\n";
    }
  }
  print_cross_product(out, sizes);
  for (const std::string &line : notes_) out << "note: " << line << "\n";
  out << "\n(!! = output differs from histeq::CpuEqualizer; ! = the seed-000 baseline's own "
         "documented defect)\n";
  for (const Row &r : rows_) {
    if (r.check.rfind("MISMATCH", 0) == 0 || r.check.rfind("ERROR", 0) == 0 ||
        r.check.rfind("expected-mismatch", 0) == 0) {
      out << "  " << section_name(r.section) << " | " << r.variant << " | "
          << content_name(r.content) << " | " << r.size.label() << ": " << r.check << "\n";
    }
  }
}

namespace {

// The plot script splits on commas: none inside a field.
std::string csv_field(std::string s) {
  std::replace(s.begin(), s.end(), ',', ';');
  std::replace(s.begin(), s.end(), '"', '\'');
  return "\"" + s + "\"";
}

}  // namespace

bool Results::write_csv(const std::string &path) const {
  std::ofstream csv(path);
  if (!csv) return false;
  csv << "section,variant,content,width,height,us_per_frame,fps,ratio,ratio_to,check\n";
  for (const Row &r : rows_) {
    csv << section_name(r.section) << "," << csv_field(r.variant) << "," << content_name(r.content)
        << "," << r.size.width << "," << r.size.height << "," << format("%.3f", r.us_per_frame)
        << "," << format("%.2f", r.fps()) << "," << format("%.4f", r.ratio) << ","
        << (r.ratio > 0 ? ratio_to(r.section) : "") << "," << csv_field(r.check) << "\n";
  }
  return bool(csv);
}

int Results::unexpected_mismatches() const {
  return int(std::count_if(rows_.begin(), rows_.end(), [](const Row &r) {
    return r.check.rfind("MISMATCH", 0) == 0 || r.check.rfind("ERROR", 0) == 0;
  }));
}

}  // namespace bench
