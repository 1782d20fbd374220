// SPDX-License-Identifier: LGPL-2.1-or-later
#include "usable_cores.h"
#include "cpu_affinity.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace histeq {

namespace {

// The cores in the calling thread's affinity mask (which threads it starts inherit), or every
// core where the mask cannot be read.
unsigned affinity_cores() {
  const CpuSet allowed = CpuSet::of_this_thread();
  return allowed.valid() ? allowed.count() : std::thread::hardware_concurrency();
}

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Cores' worth of time from a quota and a period in microseconds: the quota over the period,
// rounded up; 0 for no quota ("max" in cgroup v2, -1 in v1).
unsigned quota_cores(const std::string &quota, const std::string &period) {
  long long quota_us = 0, period_us = 0;
  if (!(std::istringstream(quota) >> quota_us) || !(std::istringstream(period) >> period_us) ||
      quota_us <= 0 || period_us <= 0)
    return 0;
  return unsigned(std::min<long long>((quota_us + period_us - 1) / period_us, ~0u));
}

// The limit that the cgroup directory `dir` sets itself: cgroup v2's cpu.max holds
// "<quota> <period>", v1's cpu controller splits them over two files.
unsigned dir_limit(const std::string &dir, bool v2) {
  if (v2) {
    std::istringstream cpu_max(read_file(dir + "/cpu.max"));
    std::string quota, period;
    cpu_max >> quota >> period;
    return quota_cores(quota, period);
  }
  return quota_cores(read_file(dir + "/cpu.cfs_quota_us"), read_file(dir + "/cpu.cfs_period_us"));
}

// Whether a /proc/self/cgroup line's controllers ("cpu,cpuacct") name v1's cpu controller.
bool names_cpu(const std::string &controllers) {
  std::istringstream names(controllers);
  std::string name;
  while (std::getline(names, name, ','))
    if (name == "cpu") return true;
  return false;
}

}  // namespace

unsigned cgroup_cpu_limit(const std::string &root, const std::string &proc_self_cgroup) {
  // Lines are "<id>:<controllers>:<path>": cgroup v2's has id 0 and no controllers; v1's cpu
  // controller is mounted at <root>/cpu. Where both are there, v1's holds the cpu limit.
  std::istringstream lines(proc_self_cgroup);
  std::string line, path, hierarchy;
  bool v2 = false;
  while (std::getline(lines, line)) {
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty() && path.empty()) {
      path = line.substr(second + 1);
      hierarchy = root;
      v2 = true;
    } else if (names_cpu(controllers)) {
      path = line.substr(second + 1);
      hierarchy = root + "/cpu";
      v2 = false;
    }
  }
  // A path outside the cgroup namespace's root ("/../sibling") names no directory under the mount.
  if (path.empty() || path[0] != '/' || (path + "/").find("/../") != std::string::npos) return 0;
  // The cgroup and each of its ancestors may limit it. Inside a container the path names the
  // cgroup as the host sees it, while the container's own cgroup is mounted at the root: the
  // directories that are not there are skipped on the way up to it.
  unsigned limit = 0;
  for (;;) {
    const unsigned cores = dir_limit(hierarchy + (path == "/" ? "" : path), v2);
    if (cores != 0) limit = limit == 0 ? cores : std::min(limit, cores);
    if (path == "/") return limit;
    path.resize(std::max<std::size_t>(path.rfind('/'), 1));
  }
}

unsigned usable_cores() {
  unsigned cores = affinity_cores();
#ifdef __linux__
  const unsigned limit = cgroup_cpu_limit("/sys/fs/cgroup", read_file("/proc/self/cgroup"));
  if (limit != 0) cores = std::min(cores, limit);
#endif
  return std::max(cores, 1u);
}

}  // namespace histeq
