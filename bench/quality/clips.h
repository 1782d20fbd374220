// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <vector>

#include "clip.h"

namespace quality {

// Makes one clip of `frames` frames of `width` x `height` at 30 fps.
using ClipMaker = Clip (*)(int width, int height, int frames);

// The five clips of real-video problems (see clips.cpp for what each models), made one at a
// time so that only one is in memory.
std::vector<ClipMaker> clip_makers();

}  // namespace quality
