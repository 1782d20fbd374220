// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include "clip.h"
#include "results.h"

namespace quality {

// What the columns mean, once at the top.
void print_legend();
// One clip's block: what it models, its ROI, the scene-threshold study and the table.
void print_clip(const Clip &clip, const ClipResult &result);

}  // namespace quality
