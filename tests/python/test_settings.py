# SPDX-License-Identifier: LGPL-2.1-or-later
"""The equalization settings every script takes (--mode, --tiles, --strength, --clip-limit,
--smoothing, --scene-threshold): checked against the element's own properties by histeq_common,
a bad value is one line from each script, and a good one reaches the element."""
import argparse
import os
import subprocess
import tempfile
import unittest

import histeq_common
import support
from histeq_numpy import read_frame

RANGES = {"strength": "0 to 1", "clip-limit": "0 to 1000", "smoothing": "0 to 1000",
          "scene-threshold": "0 to 1"}


def parse(*argv):
    parser = argparse.ArgumentParser()
    histeq_common.add_settings_arguments(parser)
    return parser.parse_args(list(argv))


class Checks(unittest.TestCase):

    def test_values_in_range_become_properties(self):
        values = histeq_common.settings(
            parse("--strength", "0.5", "--clip-limit", "2", "--smoothing", "10",
                  "--scene-threshold", "0.3"), support.element())
        self.assertEqual(values, {"strength": 0.5, "clip-limit": 2.0, "smoothing": 10.0,
                                  "scene-threshold": 0.3})
        self.assertEqual(histeq_common.describe_settings(values),
                         "strength=0.5 clip-limit=2 smoothing=10 scene-threshold=0.3")
        self.assertEqual(histeq_common.settings(parse(), support.element()), {})
        values = histeq_common.settings(parse("--mode", "clahe", "--tiles", "4x3"),
                                        support.element())
        self.assertEqual(values, {"mode": "clahe", "tiles-x": 4, "tiles-y": 3})
        self.assertEqual(histeq_common.describe_settings(values), "mode=clahe tiles-x=4 tiles-y=3")
        for mode in ("global", "clahe"):
            self.assertEqual(histeq_common.settings(parse("--mode", mode), support.element()),
                             {"mode": mode})
        self.assertEqual(histeq_common.settings(parse("--tiles", "64x1"), support.element()),
                         {"tiles-x": 64, "tiles-y": 1})
        # The ends of each range are in it.
        for name, text in RANGES.items():
            low, high = text.split(" to ")
            for value in (low, high):
                self.assertEqual(histeq_common.settings(parse(f"--{name}", value),
                                                        support.element()),
                                 {name: float(value)})

    def test_out_of_range_or_not_a_number_is_one_sentence(self):
        for name, text in RANGES.items():
            for bad in ("-0.01", "1001", "nan", "inf", "x", ""):
                if name in ("strength", "scene-threshold") and bad == "1001":
                    bad = "1.01"
                with self.subTest(option=name, value=bad):
                    with self.assertRaises(histeq_common.ScriptError) as raised:
                        histeq_common.settings(parse(f"--{name}", bad), support.element())
                    self.assertEqual(str(raised.exception),
                                     f"--{name} must be a number from {text}, not '{bad}'")
        for bad in ("adaptive", "CLAHE", ""):
            with self.assertRaises(histeq_common.ScriptError) as raised:
                histeq_common.settings(parse("--mode", bad), support.element())
            self.assertEqual(str(raised.exception), f"--mode must be global or clahe, not '{bad}'")
        for bad in ("8", "0x8", "8x65", "8x8x8", "x", "2.5x2"):
            with self.assertRaises(histeq_common.ScriptError) as raised:
                histeq_common.settings(parse("--tiles", bad), support.element())
            self.assertEqual(str(raised.exception), "--tiles must be COLUMNSxROWS, each from 1 "
                             f"to 64, like 8x8, not '{bad}'")


class Scripts(unittest.TestCase):

    def test_every_python_script_says_a_bad_value_in_one_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            existing = os.path.abspath(__file__)  # the check comes before any decoding
            output = os.path.join(tmp, "out")
            for script, argv, option, value in [
                    ("preview", ["--headless"], "--strength", "1.5"),
                    ("compare", [existing, output], "--clip-limit", "-2"),
                    ("transcode", [existing, output], "--smoothing", "1e9"),
                    ("serve", ["--source", "test", "--port", "0"], "--scene-threshold", "2")]:
                with self.subTest(script=script):
                    done = support.run(*support.script(script), *argv, "--element",
                                       support.element(), option, value)
                    self.assertEqual(done.returncode, 1, done)
                    self.assertEqual(done.stderr, f"{script}: {option} must be a number from "
                                     f"{RANGES[option[2:]]}, not '{value}'\n")
                    self.assertFalse(os.path.exists(output))

    @unittest.skipUnless(subprocess.run(["/usr/bin/python3", "-c", "import gi"],
                                        capture_output=True).returncode == 0,
                         "equalize-sample checks settings with /usr/bin/python3, which lacks gi")
    def test_equalize_sample_checks_its_settings_the_same_way(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            env = dict(os.environ, HISTEQ_ELEMENT=support.element())
            done = subprocess.run([support.script_path("equalize-sample"), "--strength", "2",
                                   out], capture_output=True, text=True, timeout=60, env=env)
            self.assertEqual(done.returncode, 1, done)
            self.assertEqual(done.stderr,
                             "equalize-sample: --strength must be a number from 0 to 1, not '2'\n")
            self.assertFalse(os.path.exists(out))
            done = subprocess.run([support.script_path("equalize-sample"), "--frames", out],
                                  capture_output=True, text=True, timeout=60, env=env)
            self.assertEqual(done.returncode, 2, done)
            self.assertEqual(done.stderr.count("\n"), 1, done.stderr)

    def test_the_settings_reach_the_element(self):
        with tempfile.TemporaryDirectory() as tmp:
            clip = os.path.join(tmp, "foggy.mp4")
            support.make_clip(clip, frames=30)
            spreads = {}
            runs = [("untouched", ["--strength", "0"]), ("clipped", ["--clip-limit", "1.5"]),
                    ("smoothed", ["--smoothing", "10", "--scene-threshold", "0.5"])]
            runs.append(("tiled", ["--mode", "clahe", "--tiles", "4x4"]))
            for name, argv in runs:
                png = os.path.join(tmp, f"{name}.png")
                done = support.run(*support.script("compare"), clip, png, "--time", "0.5",
                                   "--element", support.element(), *argv)
                self.assertEqual(done.returncode, 0, done.stderr)
                luma = read_frame(png, format="GRAY8")
                left, right = luma[150:400, 100:500], luma[150:400, 700:1100]
                spreads[name] = (support.spread(left), support.spread(right))
        before, after = spreads["untouched"]
        self.assertAlmostEqual(after, before, delta=2)
        # A clip limit stretches less than the full mapping, but still stretches.
        before, after = spreads["clipped"]
        self.assertGreater(after, 1.2 * before)
        before, after = spreads["smoothed"]
        self.assertGreater(after, 1.5 * before)
        if "tiled" in spreads:
            before, after = spreads["tiled"]
            self.assertGreater(after, 1.2 * before)


if __name__ == "__main__":
    unittest.main()
