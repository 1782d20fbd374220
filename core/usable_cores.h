// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <string>

namespace histeq {

// The cores this process may keep busy: those its CPU affinity allows (taskset, a container's
// cpuset), fewer where its cgroup's CPU bandwidth limit (as `docker --cpus` and systemd's
// CPUQuota set it) gives it less time than that many cores, and at least 1.
// std::thread::hardware_concurrency counts every core of the machine: a pool of that many
// threads on a container's two cores would have its spinning workers take turns on them.
unsigned usable_cores();

// The cores' worth of time that CPU bandwidth limits allow the cgroup named in
// `proc_self_cgroup` (the text of /proc/self/cgroup) under the cgroup file systems mounted at
// `root` (cgroup v2's there, v1's cpu controller at root/cpu): the least quota over period,
// rounded up, of the cgroup and its ancestors (v2's cpu.max, v1's cpu.cfs_quota_us and
// cpu.cfs_period_us). 0 where none of them sets a limit or the files cannot be read.
unsigned cgroup_cpu_limit(const std::string &root, const std::string &proc_self_cgroup);

}  // namespace histeq
