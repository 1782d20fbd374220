# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/compare: writes a before/after PNG with both luma histograms."""
import importlib.util
import os
import tempfile
import unittest

import numpy as np

import support
from histeq_numpy import read_frame


@unittest.skipUnless(importlib.util.find_spec("matplotlib"), "needs python3-matplotlib")
class Compare(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.clip = os.path.join(cls.dir.name, "foggy.mp4")
        support.make_clip(cls.clip, frames=30)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_writes_a_png_of_sane_size_with_both_frames(self):
        png = os.path.join(self.dir.name, "before-after.png")
        done = support.run(*support.script("compare"), self.clip, png, "--time", "0.5",
                           "--element", support.element())
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"wrote {png}", done.stdout)
        self.assertTrue(20_000 < os.path.getsize(png) < 2_000_000, os.path.getsize(png))
        luma = read_frame(png, format="GRAY8")
        self.assertEqual(luma.shape, (800, 1200))
        # The top row holds the pictures: the equalized (right) one has the wider luma range.
        # Sampled inside the image axes, away from titles and margins.
        left, right = luma[150:400, 100:500], luma[150:400, 700:1100]
        self.assertGreater(np.percentile(right, 95) - np.percentile(right, 5),
                           1.5 * (np.percentile(left, 95) - np.percentile(left, 5)))

    def test_a_small_palette_png(self):
        png = os.path.join(self.dir.name, "small.png")
        done = support.run(*support.script("compare"), self.clip, png, "--dpi", "60", "--colors",
                           "64", "--element", support.element())
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(png, "rb") as f:
            header = f.read(26)
        self.assertEqual(header[16:24], (720).to_bytes(4, "big") + (480).to_bytes(4, "big"))
        self.assertEqual(header[25], 3)  # PNG colour type 3: a palette
        self.assertEqual(read_frame(png, format="GRAY8").shape, (480, 720))
        done = support.run(*support.script("compare"), self.clip, png, "--colors", "300")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr,
                         "compare: --colors must be a whole number from 2 to 256, not '300'\n")

    def test_missing_input_fails_with_one_line(self):
        png = os.path.join(self.dir.name, "none.png")
        done = support.run(*support.script("compare"), os.path.join(self.dir.name, "nope.mp4"),
                           png)
        self.assertNotEqual(done.returncode, 0)
        self.assertEqual(done.stderr, f"compare: cannot read {self.dir.name}/nope.mp4: no such "
                         "file\n")
        self.assertFalse(os.path.exists(png))


if __name__ == "__main__":
    unittest.main()
