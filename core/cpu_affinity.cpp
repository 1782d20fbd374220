// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_affinity.h"

#include <cerrno>

#ifdef __linux__
#include <sched.h>
#endif

namespace histeq {

#ifdef __linux__
namespace {

cpu_set_t *as_set(std::vector<unsigned long> &words) {
  return reinterpret_cast<cpu_set_t *>(words.data());
}
const cpu_set_t *as_set(const std::vector<unsigned long> &words) {
  return reinterpret_cast<const cpu_set_t *>(words.data());
}

}  // namespace

CpuSet CpuSet::of_thread(long tid) {
  CpuSet set;
  // The kernel refuses a set smaller than its own (EINVAL): 1024 CPUs first, then more.
  for (std::size_t cpus = 1024; cpus <= (std::size_t(1) << 20); cpus *= 2) {
    set.words_.assign(CPU_ALLOC_SIZE(cpus) / sizeof(unsigned long), 0);
    if (sched_getaffinity(pid_t(tid), set.bytes(), as_set(set.words_)) == 0) return set;
    if (errno != EINVAL) break;
  }
  set.words_.clear();
  return set;
}

unsigned CpuSet::count() const {
  return valid() ? unsigned(CPU_COUNT_S(bytes(), as_set(words_))) : 0;
}

bool CpuSet::has(int cpu) const {
  return valid() && cpu >= 0 && std::size_t(cpu) < 8 * bytes() &&
         CPU_ISSET_S(std::size_t(cpu), bytes(), as_set(words_));
}

CpuSet CpuSet::without(int cpu) const {
  CpuSet less = *this;
  if (has(cpu)) CPU_CLR_S(std::size_t(cpu), less.bytes(), as_set(less.words_));
  return less;
}

bool CpuSet::apply_to_this_thread() const {
  return valid() && sched_setaffinity(0, bytes(), as_set(words_)) == 0;
}

int current_cpu() {
  return sched_getcpu();
}
#else
CpuSet CpuSet::of_thread(long) {
  return CpuSet{};
}
unsigned CpuSet::count() const {
  return 0;
}
bool CpuSet::has(int) const {
  return false;
}
CpuSet CpuSet::without(int) const {
  return *this;
}
bool CpuSet::apply_to_this_thread() const {
  return false;
}
int current_cpu() {
  return -1;
}
#endif

void CallerCpuAvoidance::before_sleep(int caller_cpu) {
  narrowed_ = CpuSet{};
  if (caller_cpu < 0) return;
  mask_ = CpuSet::of_this_thread();
  if (!mask_.has(caller_cpu)) return;
  const CpuSet others = mask_.without(caller_cpu);
  // A refused mask (the cpuset changed under the process) leaves the thread where it may run.
  if (others.count() > 0 && others.apply_to_this_thread()) narrowed_ = others;
}

void CallerCpuAvoidance::after_wake() {
  if (!narrowed_.valid()) return;
  if (CpuSet::of_this_thread() == narrowed_) mask_.apply_to_this_thread();
  narrowed_ = CpuSet{};
}

}  // namespace histeq
