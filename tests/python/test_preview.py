# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/preview in its headless mode: N buffers, the latency lines, and the pixels of the
side-by-side snapshot (original left, equalized right, each luma histogram under its picture)."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import support
from histeq_numpy import read_frame

STRIP = 48  # the band of the histograms under 120-row pictures (preview's strip_height)


def histogram_extent(band):
    """Columns from the first to the last one with a bar in a half of the histogram band (the
    bars are light grey; the caption above them and the dim axis under them are left out)."""
    bars = band[15:STRIP - 3]
    columns = np.flatnonzero((bars > 150).any(axis=0))
    return 0 if columns.size == 0 else columns[-1] - columns[0] + 1


def has_gi_cairo():
    done = subprocess.run([sys.executable, "-c", "import gi; gi.require_foreign('cairo')"],
                          capture_output=True, check=False)
    return done.returncode == 0


class Preview(unittest.TestCase):

    def test_headless_runs_n_buffers_prints_latency_and_equalizes_the_right_half(self):
        element = support.element()
        with tempfile.TemporaryDirectory() as tmp:
            snapshot = os.path.join(tmp, "preview.png")
            done = support.run(*support.script("preview"), "--headless", "--source", "test",
                               "--num-buffers", "20", "--size", "160x120", "--element", element,
                               "--snapshot", snapshot)
            self.assertEqual(done.returncode, 0, done.stderr)
            said = re.search(rf"20 frames through {element}; latency reported by {element}: "
                             r"([\d.]+) ms", done.stdout)
            self.assertIsNotNone(said, done.stdout)
            # Neither element holds a frame back for the next one
            self.assertEqual(float(said.group(1)), 0.0)
            self.assertRegex(done.stdout, rf"time inside {element} per frame: median [\d.]+ ms, "
                             r"max [\d.]+ ms")
            # One from the equalizer (its input) and one from the histeq after it, per frame.
            self.assertIn("luma histograms from 40 statistics messages", done.stdout)
            luma = read_frame(snapshot, format="GRAY8")
        self.assertEqual(luma.shape, (120 + STRIP, 320))
        original, equalized = luma[:120, :160], luma[:120, 160:]
        self.assertGreater(support.spread(equalized), 1.5 * support.spread(original))
        if has_gi_cairo():
            # The histograms under the pictures: the equalized one spans more levels.
            before, after = luma[120:, :160], luma[120:, 160:]
            self.assertGreater(histogram_extent(before), 10)
            self.assertGreater(histogram_extent(after), 1.5 * histogram_extent(before))

    @unittest.skipIf(os.path.exists("/dev/video0"), "this machine has a webcam")
    def test_missing_webcam_fails_with_one_line(self):
        done = support.run(*support.script("preview"), "--headless", "--source", "webcam",
                           "--num-buffers", "5", "--element", support.element())
        self.assertNotEqual(done.returncode, 0)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        self.assertTrue(done.stderr.startswith("preview: "), done.stderr)

    def test_window_mode_without_a_display_fails_with_one_line(self):
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        done = subprocess.run([*support.script("preview"), "--num-buffers", "5"], env=env,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr, "preview: no display ($DISPLAY and $WAYLAND_DISPLAY are "
                         "unset); use --headless\n")


def shebang_python_has_the_modules():
    """Whether the scripts' #!/usr/bin/python3 holds what they import (a venv's Python can be the
    same binary with other modules)."""
    done = subprocess.run(["/usr/bin/python3", "-c", "import gi, numpy, matplotlib"],
                          capture_output=True, check=False)
    return done.returncode == 0


@unittest.skipUnless(shebang_python_has_the_modules(),
                     "/usr/bin/python3, the scripts' #! line, lacks gi, numpy or matplotlib")
class Shebang(unittest.TestCase):
    """The other tests run the scripts with sys.executable; users run them by their first line."""

    def test_each_script_runs_as_a_command(self):
        for name in ("preview", "compare", "transcode", "serve"):
            done = support.run(support.script_path(name), "--help")
            self.assertEqual(done.returncode, 0, f"{name}: {done.stderr}")
            self.assertIn("usage:", done.stdout)


if __name__ == "__main__":
    unittest.main()
