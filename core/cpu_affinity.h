// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstddef>
#include <vector>

namespace histeq {

// The CPUs a thread may run on (its affinity mask), read from and applied to the calling
// thread. Where the system has no affinity masks (or the mask cannot be read) a set is invalid,
// and applying it does nothing.
class CpuSet {
 public:
  // The calling thread's mask (taskset's, a container's cpuset, which new threads inherit).
  static CpuSet of_this_thread();

  bool valid() const { return !words_.empty(); }
  unsigned count() const;
  bool has(int cpu) const;
  // This set less `cpu`.
  CpuSet without(int cpu) const;
  // Restricts the calling thread to this set; false where the set is invalid or the kernel
  // refuses it (none of its CPUs is online or in the thread's cpuset).
  bool apply_to_this_thread() const;

 private:
  std::size_t bytes() const { return words_.size() * sizeof(unsigned long); }
  std::vector<unsigned long> words_;
};

// The CPU the calling thread runs on now, or -1 where it cannot be told.
int current_cpu();

// Keeps the calling thread, a pool's worker, off the CPU its caller was last seen on. A worker
// woken while its caller works is often placed on the caller's own CPU by the scheduler (on a
// virtual machine whose other vCPUs sleep, in most frames: see bench/README.md), where it waits
// for the caller to finish instead of sharing the frame; kept off it, it wakes on another.
class CallerCpuAvoidance {
 public:
  // The thread's mask, read on the thread itself.
  CallerCpuAvoidance() : allowed_(CpuSet::of_this_thread()) {}

  // Restricts the thread to its mask less `caller_cpu` (its whole mask where that leaves none, or
  // `caller_cpu` is -1); only when the caller's CPU has changed since the last call, so that
  // calls for the same CPU cost nothing.
  void avoid(int caller_cpu);

 private:
  CpuSet allowed_;
  int avoided_ = -1;
};

}  // namespace histeq
