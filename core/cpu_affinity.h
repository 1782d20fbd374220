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
  static CpuSet of_this_thread() { return of_thread(0); }
  // The mask of thread `tid` of this process (gettid's; 0: the calling thread).
  static CpuSet of_thread(long tid);

  bool valid() const { return !words_.empty(); }
  unsigned count() const;
  bool has(int cpu) const;
  bool operator==(const CpuSet &other) const { return words_ == other.words_; }
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

// Keeps the calling thread, a pool's worker, off the CPU its caller was last seen on while it
// sleeps. A worker woken while its caller works is often placed on the caller's own CPU by the
// scheduler (on a virtual machine whose other vCPUs sleep, in most frames: see bench/README.md),
// where it waits for the caller to finish instead of sharing the frame; kept off it, it wakes on
// another. Awake, it may run wherever its mask allows, so that a busy CPU does not hold a chunk
// the caller waits for. A mask set on the thread from outside (taskset, a cpuset) is kept.
class CallerCpuAvoidance {
 public:
  // Before the thread sleeps: its mask (read again) less `caller_cpu`, where that leaves a CPU
  // (nothing for -1).
  void before_sleep(int caller_cpu);
  // After it wakes: its whole mask again, unless the mask was changed from outside meanwhile.
  void after_wake();

 private:
  CpuSet mask_;
  CpuSet narrowed_;
};

}  // namespace histeq
