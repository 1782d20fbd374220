// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <vector>

#include "results.h"

namespace quality {

// Prints one "goal: ... : met/NOT met (numbers)" line per goal; returns how many were not met.
int print_goals(const std::vector<ClipResult> &results);

}  // namespace quality
