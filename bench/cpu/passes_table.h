// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

namespace bench {

// Prints the two passes of a frame timed apart, one thread, natural content, microseconds
// (median of `runs`, in turns): the count and the map of the 8-bit plane, of 10-bit words and of
// packed RGBx and RGB, beside OpenCV's calcHist and LUT on the same plane. Where a layout's
// frame time goes, on the machine it runs on.
void passes_table(int runs);

}  // namespace bench
