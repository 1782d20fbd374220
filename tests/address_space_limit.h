// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// For tests of what happens when threads cannot start: limits the process's address space to
// what it maps now plus room for a few 8 MiB thread stacks, so that most new threads fail to
// get a stack. Irreversible: call it in a death test's child. Returns false where the limit
// could not be set.

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

inline bool limit_address_space_to_a_few_thread_stacks() {
  long pages = 0;
  if (FILE *statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
    std::fclose(statm);
  }
  rlimit address_space;
  address_space.rlim_cur = address_space.rlim_max =
      rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE)) + (rlim_t(40) << 20);
  return pages != 0 && setrlimit(RLIMIT_AS, &address_space) == 0;
}
