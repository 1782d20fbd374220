// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fault_injection.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace histeq::cuda {

cudaError_t FaultPlan::at(Fault step, std::uint64_t frame_index) const {
  if (fault != step || frame_index != frame) return cudaSuccess;
  switch (step) {
    case Fault::kLaunch:
      return cudaErrorLaunchFailure;
    case Fault::kCopy:
      return cudaErrorUnknown;
    case Fault::kOutOfMemory:
      return cudaErrorMemoryAllocation;
    case Fault::kNone:
      break;
  }
  return cudaSuccess;
}

bool parse_fault_plan(const char *text, FaultPlan *plan) {
  if (!text) return false;
  const char *at = std::strchr(text, '@');
  if (!at || at[1] < '0' || at[1] > '9') return false;
  const std::size_t kind_length = std::size_t(at - text);
  static constexpr struct {
    const char *name;
    Fault fault;
  } kKinds[] = {
      {"launch", Fault::kLaunch}, {"copy", Fault::kCopy}, {"out-of-memory", Fault::kOutOfMemory}};
  for (const auto &kind : kKinds) {
    if (std::strlen(kind.name) != kind_length || std::strncmp(text, kind.name, kind_length) != 0)
      continue;
    char *end = nullptr;
    errno = 0;
    const unsigned long long frame = std::strtoull(at + 1, &end, 10);
    if (errno != 0 || *end != '\0') return false;
    plan->fault = kind.fault;
    plan->frame = frame;
    return true;
  }
  return false;
}

FaultPlan fault_plan_from_environment() {
  FaultPlan plan;
  parse_fault_plan(std::getenv(kFaultVariable), &plan);
  return plan;
}

}  // namespace histeq::cuda
