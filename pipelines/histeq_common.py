# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared by the Python scripts in pipelines/: GStreamer set-up and the choice of element.

    from histeq_common import Gst, pick_element
    element = pick_element("auto")   # "cudahisteq" when a CUDA device works, else "histeq"

The choice: an explicit name ("histeq", "cudahisteq") wins; "auto" (or None) looks at
$HISTEQ_ELEMENT first, then runs a one-buffer pipeline through cudahisteq and falls back to
histeq when that fails (no GPU, no driver, built without CUDA).

The equalization settings every script takes (--mode, --strength, --clip-limit, --smoothing,
--scene-threshold, --tiles) are the elements' properties, checked against the ranges and names
the element itself declares:

    add_settings_arguments(parser)
    values = settings(args, element)            # {"strength": 0.8, ...}, or ScriptError
    apply_settings(equalizer, values)

Shell scripts check theirs with `histeq_common.py settings SCRIPT ELEMENT [--strength X ...]`,
which prints them as gst-launch properties ("strength=0.8 clip-limit=2") or the one-line error.
"""
import argparse
import math
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, GObject, Gst, GstVideo  # noqa: E402,F401  (GstVideo re-exported)

Gst.init(None)

ELEMENTS = ("histeq", "cudahisteq")


class ScriptError(Exception):
    """A failure the scripts report as one line on stderr and a non-zero exit."""


def parse_launch(description):
    """Gst.parse_launch, with a missing element or a syntax error raised as ScriptError."""
    try:
        return Gst.parse_launch(description)
    except GLib.Error as e:
        raise ScriptError(f"cannot build the pipeline: {e.message}") from None


def play(pipeline):
    """Sets `pipeline` to PLAYING. Returns None, or why it could not start (the error it posted,
    else "state change failed"), having set it back to NULL."""
    if pipeline.set_state(Gst.State.PLAYING) != Gst.StateChangeReturn.FAILURE:
        return None
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    return error_text(msg) if msg else "state change failed"


def cuda_works():
    """True when cudahisteq exists and equalizes one frame on this machine."""
    if Gst.ElementFactory.find("cudahisteq") is None:
        return False
    pipeline = Gst.parse_launch(
        "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=64 "
        "! cudahisteq ! fakesink")
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(
        10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    return msg is not None and msg.type == Gst.MessageType.EOS


def pick_element(choice=None):
    """Returns the element name to use for `choice` ("auto", "histeq", "cudahisteq")."""
    if choice in (None, "", "auto"):
        choice = os.environ.get("HISTEQ_ELEMENT") or "auto"
    if choice == "auto":
        choice = "cudahisteq" if cuda_works() else "histeq"
    if choice not in ELEMENTS:
        raise ScriptError(f"unknown element '{choice}': use one of {', '.join(ELEMENTS)} or auto")
    if Gst.ElementFactory.find(choice) is None:
        raise ScriptError(f"GStreamer element '{choice}' not found; build the project and set "
                          "GST_PLUGIN_PATH=$PWD/build/plugin (see README)")
    return choice


def test_scene(width, height, fps, extra=""):
    """gst-launch text of the scripts' live low-contrast test scene: colour bars that scroll, at a
    third of their contrast (a foggy, moving scene), I420 at the given size and rate. `extra`
    goes to videotestsrc (num-buffers=N)."""
    return (f"videotestsrc is-live=true pattern=smpte horizontal-speed=4 {extra} "
            f"! video/x-raw,format=I420,width={width},height={height},framerate={fps}/1 "
            "! videobalance contrast=0.35 brightness=0.1")


def add_element_argument(parser):
    parser.add_argument("--element", choices=("auto",) + ELEMENTS, default="auto",
                        help="equalizer element (default: auto = cudahisteq when a CUDA device "
                        "works and the mode is global, else histeq; $HISTEQ_ELEMENT is read for "
                        "auto)")


# The shared settings: the elements' properties of the same names (see the README's table);
# --tiles sets two, tiles-x and tiles-y.
SETTINGS = {
    "mode": ("MODE", "global: one mapping per frame; clahe: a mapping per tile of a --tiles grid, "
             "blended between tiles (adaptive; OpenCV's CLAHE)"),
    "strength": ("X", "how far each level moves towards its equalized value, 0 (untouched) .. 1 "
                 "(fully)"),
    "clip-limit": ("X", "contrast limit as OpenCV's: a level holds at most this many times the "
                   "average count (0 = off); keeps noise in dark flat areas down"),
    "smoothing": ("X", "time constant in frames of the average histogram the mapping follows "
                  "(0 = every frame on its own); stops flicker and pumping"),
    "scene-threshold": ("X", "0..1: how different a frame must be from the average to restart "
                        "it (a scene cut); matters with --smoothing"),
    "tiles": ("COLSxROWS", "the CLAHE grid, e.g. 8x8 (the default)"),
}


def add_settings_arguments(parser):
    """--mode, --strength, --clip-limit, --smoothing, --scene-threshold, --tiles; each defaults
    to the element's own default. Values stay text until settings() checks them, so a bad one is
    one line."""
    group = parser.add_argument_group("equalization settings (default: the element's defaults)")
    for name, (metavar, meaning) in SETTINGS.items():
        group.add_argument(f"--{name}", metavar=metavar, help=meaning)


def _number(spec, option, text):
    """`text` as the number `spec` (a double or uint property) takes, or ScriptError."""
    integer = spec.value_type == GObject.TYPE_UINT
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        value = math.nan
    if not spec.minimum <= value <= spec.maximum:  # NaN fails here too
        kind = "a whole number" if integer else "a number"
        raise ScriptError(f"--{option} must be {kind} from {spec.minimum:g} to "
                          f"{spec.maximum:g}, not '{text}'")
    return value


def settings(args, element):
    """The settings given in `args` as {property: value} (numbers, and the mode's name), each
    checked against what the element `element` declares for its property (range, or the names
    of the modes); raises ScriptError naming the option."""
    checker = Gst.ElementFactory.make(element)
    values = {}
    for name in SETTINGS:
        text = getattr(args, name.replace("-", "_"), None)
        if text is None:
            continue
        if name == "mode":
            modes = [v.value_nick for v in
                     type(checker.find_property("mode").default_value).__enum_values__.values()]
            if text not in modes:
                raise ScriptError(f"--mode must be {' or '.join(modes)}, not '{text}'")
            values[name] = text
        elif name == "tiles":
            x_spec, y_spec = checker.find_property("tiles-x"), checker.find_property("tiles-y")
            try:
                columns, rows = text.split("x")
                values["tiles-x"] = _number(x_spec, "tiles", columns)
                values["tiles-y"] = _number(y_spec, "tiles", rows)
            except (ValueError, ScriptError):
                raise ScriptError(f"--tiles must be COLUMNSxROWS, each from {x_spec.minimum} to "
                                  f"{x_spec.maximum}, like 8x8, not '{text}'") from None
        else:
            values[name] = _number(checker.find_property(name), name, text)
    return values


def apply_settings(equalizer, values):
    for name, value in values.items():
        if isinstance(value, str):
            Gst.util_set_object_arg(equalizer, name, value)  # an enum, by its name
        else:
            equalizer.set_property(name, value)


def describe_settings(values):
    """"strength=0.8 clip-limit=2": as gst-launch properties, and for the scripts' first line."""
    return " ".join(f"{name}={value:g}" if not isinstance(value, str) else f"{name}={value}"
                    for name, value in values.items())


def fail(script, message, status=1):
    """Prints `script: message` as one line on stderr and exits with `status`."""
    print(f"{script}: {' '.join(str(message).split())}", file=sys.stderr)
    sys.exit(status)


def error_text(msg):
    """One readable sentence from an ERROR message, naming the element that posted it."""
    err, _debug = msg.parse_error()
    return f"{err.message} ({msg.src.get_name()})"


def _settings_command(argv):
    """histeq_common.py settings SCRIPT ELEMENT [--strength X ...]: the check for shell scripts."""
    parser = argparse.ArgumentParser(prog="histeq_common.py settings")
    parser.add_argument("script")
    parser.add_argument("element")
    add_settings_arguments(parser)
    args = parser.parse_args(argv)
    try:
        print(describe_settings(settings(args, pick_element(args.element))))
    except ScriptError as e:
        fail(args.script, e)


if __name__ == "__main__":
    if sys.argv[1:2] != ["settings"]:
        fail("histeq_common.py", "usage: histeq_common.py settings SCRIPT ELEMENT [--mode MODE "
             "--strength X --clip-limit X --smoothing X --scene-threshold X --tiles CxR]", 2)
    _settings_command(sys.argv[2:])
