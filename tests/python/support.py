# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the Python tests share: paths, the element under test, clips, the reference formula."""
import os
import subprocess
import sys

import numpy as np

SOURCE_ROOT = os.environ.get("HISTEQ_SOURCE_ROOT",
                             os.path.join(os.path.dirname(__file__), "..", ".."))


def script_path(name):
    return os.path.join(SOURCE_ROOT, "pipelines", name)


def script(name):
    """The command that runs pipelines/NAME with the Python running the tests: the one known to
    hold gi and numpy (on the GPU machine that is not the scripts' #!/usr/bin/python3)."""
    return [sys.executable, script_path(name)]


def element():
    """The element under test: $HISTEQ_ELEMENT (cudahisteq on the GPU machine), else histeq."""
    return os.environ.get("HISTEQ_ELEMENT") or "histeq"


def run(*argv, timeout=60):
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout)


def make_clip(path, frames=20, width=320, height=240):
    """A low-contrast (a third of full contrast) moving zone plate, H.264 in MP4."""
    subprocess.run(
        ["gst-launch-1.0", "-q", "-e", "videotestsrc", "pattern=zone-plate", "kx2=20", "ky2=20",
         "kt=1", f"num-buffers={frames}", "!",
         f"video/x-raw,width={width},height={height},framerate=30/1", "!", "videobalance",
         "contrast=0.3", "brightness=0.05", "!", "videoconvert", "!", "video/x-raw,format=I420",
         "!", "x264enc", "speed-preset=ultrafast", "!", "mp4mux", "!", "filesink",
         f"location={path}"],
        check=True, timeout=60)


def spread(luma):
    """Width of the 5th..95th percentile range of the luma levels."""
    low, high = np.percentile(luma, [5, 95])
    return high - low


def reference_equalize(luma, lo=0, hi=255):
    """numpy re-implementation of core/equalization.h:
    lut[v] = lo + round((cdf(v) - cdf_min) * (hi - lo) / (N - cdf_min)), rounding half up."""
    histogram = np.bincount(luma.ravel(), minlength=256).astype(np.int64)
    cdf = np.cumsum(histogram)
    total = luma.size
    cdf_min = cdf[cdf > 0][0]
    if total == cdf_min:
        return luma.copy()
    numerator = (cdf - cdf_min) * (hi - lo)
    denominator = total - cdf_min
    lut = lo + (2 * numerator + denominator) // (2 * denominator)
    lut[cdf < cdf_min] = lo
    return lut.astype(np.uint8)[luma]
