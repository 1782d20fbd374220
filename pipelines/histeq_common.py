# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared by the Python scripts in pipelines/: GStreamer set-up and the choice of element.

    from histeq_common import Gst, pick_element
    element = pick_element("auto")   # "cudahisteq" when a CUDA device works, else "histeq"

The choice: an explicit name ("histeq", "cudahisteq") wins; "auto" (or None) looks at
$HISTEQ_ELEMENT first, then runs a one-buffer pipeline through cudahisteq and falls back to
histeq when that fails (no GPU, no driver, built without CUDA).
"""
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstVideo  # noqa: E402,F401  (GstVideo re-exported)

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


def add_element_argument(parser):
    parser.add_argument("--element", choices=("auto",) + ELEMENTS, default="auto",
                        help="equalizer element (default: auto = cudahisteq when a CUDA device "
                        "works, else histeq; $HISTEQ_ELEMENT is read for auto)")


def fail(script, message, status=1):
    """Prints `script: message` as one line on stderr and exits with `status`."""
    print(f"{script}: {' '.join(str(message).split())}", file=sys.stderr)
    sys.exit(status)


def error_text(msg):
    """One readable sentence from an ERROR message, naming the element that posted it."""
    err, _debug = msg.parse_error()
    return f"{err.message} ({msg.src.get_name()})"
