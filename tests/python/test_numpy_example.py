# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/histeq_numpy.py: numpy frames through appsrc ! element ! appsink and video files,
checked bit for bit against a numpy re-implementation of the formula."""
import os
import tempfile
import threading
import unittest

import numpy as np

import support
from histeq_common import ScriptError, parse_launch
from histeq_numpy import decode_file, equalize_file, equalize_frames


class EqualizeFrames(unittest.TestCase):

    def equalize(self, frames, format="GRAY8"):
        return list(equalize_frames(frames, element=support.element(), format=format))

    def test_random_frame_of_odd_size_is_bit_exact(self):
        # 97 is not a multiple of 4: GStreamer pads the rows, the example must not mind.
        frame = np.random.default_rng(6).integers(0, 256, (61, 97), dtype=np.uint8)
        (out,) = self.equalize([frame])
        np.testing.assert_array_equal(out, support.reference_equalize(frame))

    def test_low_contrast_frames_come_back_in_order_bit_exact_and_spread(self):
        rng = np.random.default_rng(7)
        frames = [rng.normal(100 + 10 * i, 6 + i, (480, 640)).clip(0, 255).astype(np.uint8)
                  for i in range(6)]
        out = self.equalize(frames)
        self.assertEqual(len(out), len(frames))
        for before, after in zip(frames, out):
            np.testing.assert_array_equal(after, support.reference_equalize(before))
            self.assertGreater(support.spread(after), 4 * support.spread(before))

    def test_i420_equalizes_luma_into_limited_range_and_keeps_chroma(self):
        rng = np.random.default_rng(8)
        y = rng.integers(60, 120, (120, 160), dtype=np.uint8)
        u = rng.integers(0, 256, (60, 80), dtype=np.uint8)
        v = rng.integers(0, 256, (60, 80), dtype=np.uint8)
        ((out_y, out_u, out_v),) = self.equalize([(y, u, v)], format="I420")
        np.testing.assert_array_equal(out_y, support.reference_equalize(y, 16, 235))
        np.testing.assert_array_equal(out_u, u)
        np.testing.assert_array_equal(out_v, v)

    def test_frame_of_one_level_is_left_alone(self):
        frame = np.full((48, 64), 77, np.uint8)
        (out,) = self.equalize([frame])
        np.testing.assert_array_equal(out, frame)


class EqualizeFile(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.clip = os.path.join(cls.dir.name, "foggy.mp4")
        support.make_clip(cls.clip, frames=20)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_every_frame_of_a_file_is_bit_exact(self):
        before = list(decode_file(self.clip, "GRAY8"))
        after = list(equalize_file(self.clip, "GRAY8", element=support.element()))
        self.assertEqual(len(before), 20)
        self.assertEqual(len(after), 20)
        for original, equalized in zip(before, after):
            self.assertEqual(equalized.shape, (240, 320))
            np.testing.assert_array_equal(equalized, support.reference_equalize(original))

    def test_rgb_frames_come_out_brighter_and_wider(self):
        frames = list(equalize_file(self.clip, element=support.element()))
        self.assertEqual(len(frames), 20)
        self.assertEqual(frames[0].shape, (240, 320, 3))
        original = next(decode_file(self.clip))
        self.assertGreater(support.spread(frames[0]), 2 * support.spread(original))

    def garbage(self):
        """4 KiB of random bytes named .mp4: the pipeline stops on an error and never EOSes."""
        path = os.path.join(self.dir.name, "garbage.mp4")
        with open(path, "wb") as f:
            f.write(np.random.default_rng(2).integers(0, 256, 4096, np.uint8).tobytes())
        return path

    def test_an_undecodable_file_raises_instead_of_hanging(self):
        # In a thread, so that a hang fails this test instead of stalling the whole module.
        raised = []

        def read():
            try:
                list(equalize_file(self.garbage(), element=support.element()))
            except Exception as e:  # noqa: BLE001  (the type is what the test checks)
                raised.append(e)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(30)
        self.assertFalse(reader.is_alive(), "equalize_file still waiting after 30 s")
        self.assertEqual(len(raised), 1)
        self.assertIsInstance(raised[0], ScriptError)

    def test_demo_fails_with_one_line_on_an_undecodable_file(self):
        done = support.run(*support.script("histeq_numpy.py"), self.garbage())
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        self.assertTrue(done.stderr.startswith("histeq_numpy.py: "), done.stderr)

    def test_demo_runs(self):
        done = support.run(*support.script("histeq_numpy.py"), self.clip)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("frame 9: luma 5th..95th percentile", done.stdout)
        self.assertIn("20 equalized RGB frames of (240, 320, 3)", done.stdout)


class ParseLaunch(unittest.TestCase):
    def test_a_pipeline_naming_a_missing_element_raises_script_error(self):
        # GStreamer's sentence is translated; the element's name is not.
        with self.assertRaisesRegex(ScriptError, "nosuchelement"):
            parse_launch("videotestsrc ! nosuchelement ! fakesink")


if __name__ == "__main__":
    unittest.main()
