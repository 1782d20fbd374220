#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""histeq from Python: numpy frames in, equalized numpy frames out (PyGObject, gi.repository.Gst).

    import numpy as np
    from histeq_numpy import equalize_frames, equalize_file

    frames = [np.random.default_rng(1).integers(100, 140, (480, 640), dtype=np.uint8)]
    for out in equalize_frames(frames):        # appsrc ! histeq ! appsink, GRAY8
        print(out.min(), out.max())            # 0 255
    for rgb in equalize_file("foggy.mp4"):     # decodebin ! ... ! histeq ! ... ! appsink, RGB
        print(rgb.shape)                       # (height, width, 3)

    GST_PLUGIN_PATH=$PWD/build/plugin pipelines/histeq_numpy.py [VIDEO]   # a demo of both

Frames are 2-D uint8 arrays for GRAY8, (Y, U, V) tuples of 2-D arrays for I420, and (H, W, 3)
arrays for RGB. element=None picks cudahisteq when a CUDA device works, else histeq (see
histeq_common.pick_element); properties={"strength": 0.8, "clip-limit": 2} sets the element's
properties. A feeder thread pushes while the caller pulls, so elements that
hold frames back (cudahisteq keeps `depth` frames in flight) work the same way.
"""
import sys
import threading

import numpy as np

from histeq_common import (Gst, GstVideo, ScriptError, apply_settings, error_text, fail,
                           parse_launch, pick_element, play)

# Per format: each plane's (height divisor, width divisor, bytes per pixel).
PLANES = {"GRAY8": [(1, 1, 1)], "I420": [(1, 1, 1), (2, 2, 1), (2, 2, 1)], "RGB": [(1, 1, 3)]}


def _plane_shapes(format, width, height):
    return [(-(-height // dh), -(-width // dw), bpp) for dh, dw, bpp in PLANES[format]]


def _to_buffer(frame, info, format):
    """numpy frame -> a GstBuffer in GStreamer's default layout for `info` (rows padded)."""
    planes = [frame] if format != "I420" else list(frame)
    data = np.zeros(info.size, np.uint8)
    for p, (plane, (h, w, bpp)) in enumerate(
            zip(planes, _plane_shapes(format, info.width, info.height))):
        rows = data[info.offset[p]:info.offset[p] + info.stride[p] * h].reshape(h, info.stride[p])
        rows[:, :w * bpp] = np.asarray(plane, np.uint8).reshape(h, w * bpp)
    return Gst.Buffer.new_wrapped(data.tobytes())


def _from_sample(sample, format):
    """GstSample -> numpy frame (copied out, so the buffer can go back to its pool)."""
    buffer = sample.get_buffer()
    info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
    meta = GstVideo.buffer_get_video_meta(buffer)
    offsets, strides = (meta.offset, meta.stride) if meta else (info.offset, info.stride)
    ok, mapped = buffer.map(Gst.MapFlags.READ)
    if not ok:
        raise ScriptError("cannot map an output buffer")
    try:
        data = np.frombuffer(mapped.data, np.uint8)
        planes = []
        for p, (h, w, bpp) in enumerate(_plane_shapes(format, info.width, info.height)):
            rows = np.lib.stride_tricks.as_strided(data[offsets[p]:], (h, w * bpp),
                                                   (strides[p], 1)).copy()
            planes.append(rows if bpp == 1 else rows.reshape(h, w, bpp))
    finally:
        buffer.unmap(mapped)
    return tuple(planes) if format == "I420" else planes[0]


def _pull_all(pipeline, sink, format, until=None):
    """Yields every frame from appsink until EOS, or until the frame shown at stream time
    `until` (ns); raises ScriptError on a pipeline error.

    An error elsewhere (decodebin finding no decoder, say) stops the pipeline without an EOS,
    so appsink is polled and the bus read between polls rather than waited on for good. A
    pipeline that stalls with neither an error nor an EOS is still waited on."""
    bus = pipeline.get_bus()
    while True:
        sample = sink.emit("try-pull-sample", Gst.SECOND // 10)
        if sample is not None:
            yield _from_sample(sample, format)
            if until is not None and _ends_after(sample, until):
                return
            continue
        msg = bus.pop_filtered(Gst.MessageType.ERROR)
        if msg is not None:
            raise ScriptError(error_text(msg))
        if sink.get_property("eos"):
            return


def _ends_after(sample, position):
    buffer = sample.get_buffer()
    if buffer.pts == Gst.CLOCK_TIME_NONE:
        return False
    duration = buffer.duration if buffer.duration != Gst.CLOCK_TIME_NONE else 0
    return sample.get_segment().to_stream_time(Gst.Format.TIME, buffer.pts + duration) > position


def equalize_frames(frames, element=None, format="GRAY8", fps=30, properties=None):
    """Pushes numpy frames through appsrc ! <element> ! appsink; yields equalized frames."""
    frames = iter(frames)
    first = next(frames, None)
    if first is None:
        return
    height, width = (first if format != "I420" else first[0]).shape[:2]
    caps = Gst.Caps.from_string(
        f"video/x-raw,format={format},width={width},height={height},framerate={fps}/1")
    info = GstVideo.VideoInfo.new_from_caps(caps)
    element = pick_element(element)
    pipeline = parse_launch(
        f"appsrc name=src format=time block=true max-bytes={4 * info.size} "
        f"! {element} name=equalizer ! appsink name=sink sync=false max-buffers=4")
    apply_settings(pipeline.get_by_name("equalizer"), properties or {})
    source, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    source.set_property("caps", caps)

    def feed():
        for index, frame in enumerate(_chain(first, frames)):
            buffer = _to_buffer(frame, info, format)
            buffer.pts = buffer.dts = index * Gst.SECOND // fps
            buffer.duration = Gst.SECOND // fps
            if source.emit("push-buffer", buffer) != Gst.FlowReturn.OK:
                return  # stopped or failed: the puller reports why
        source.emit("end-of-stream")

    why = play(pipeline)
    if why:
        raise ScriptError(f"cannot start {element}: {why}")
    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        yield from _pull_all(pipeline, sink, format)
    finally:
        pipeline.set_state(Gst.State.NULL)
        feeder.join()


def _chain(first, rest):
    yield first
    yield from rest


def _file_pipeline(path, format, element, properties=None):
    # The equalizer sees I420 (or GRAY8) whatever the file holds; the result is then converted.
    work = "GRAY8" if format == "GRAY8" else "I420"
    middle = f"! {element} name=equalizer " if element else ""
    location = path.replace("\\", "\\\\").replace('"', '\\"')
    pipeline = parse_launch(
        f'filesrc location="{location}" ! decodebin ! videoconvert ! video/x-raw,format={work} '
        f"{middle}! videoconvert ! video/x-raw,format={format} "
        "! appsink name=sink sync=false max-buffers=4")
    if element:
        apply_settings(pipeline.get_by_name("equalizer"), properties or {})
    return pipeline


def decode_file(path, format="RGB", element=None, properties=None, until=None):
    """Yields the frames of a video file as numpy arrays, equalized when `element` is given; all
    of them, or those up to the one shown at stream time `until` (ns)."""
    pipeline = _file_pipeline(path, format, element, properties)
    why = play(pipeline)
    if why:
        raise ScriptError(f"cannot play {path}: {why}")
    try:
        yield from _pull_all(pipeline, pipeline.get_by_name("sink"), format, until)
    finally:
        pipeline.set_state(Gst.State.NULL)


def equalize_file(path, format="RGB", element=None, properties=None):
    """Yields the equalized frames of a video file (RGB by default) as numpy arrays."""
    return decode_file(path, format, pick_element(element), properties)


def read_frame(path, position=0, format="I420"):
    """The frame at `position` (ns) of a video or image file, unequalized."""
    pipeline = _file_pipeline(path, format, None)
    sink = pipeline.get_by_name("sink")
    try:
        pipeline.set_state(Gst.State.PAUSED)
        if pipeline.get_state(10 * Gst.SECOND)[0] != Gst.StateChangeReturn.SUCCESS:
            msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
            raise ScriptError(f"cannot decode {path}: " + (error_text(msg) if msg else "timeout"))
        if position > 0:
            pipeline.seek_simple(Gst.Format.TIME, Gst.SeekFlags.FLUSH | Gst.SeekFlags.ACCURATE,
                                 position)
            pipeline.get_state(10 * Gst.SECOND)
        sample = sink.emit("pull-preroll")
        if sample is None:
            raise ScriptError(f"no frame at {position / Gst.SECOND:g} s in {path}")
        return _from_sample(sample, format)
    finally:
        pipeline.set_state(Gst.State.NULL)


def _spread(luma):
    low, high = np.percentile(luma, [5, 95])
    return f"luma 5th..95th percentile {low:.0f}..{high:.0f}"


def _demo(paths):
    element = pick_element()
    rng = np.random.default_rng(0)
    frames = [rng.normal(120, 8, (240, 320)).clip(0, 255).astype(np.uint8) for _ in range(10)]
    for index, (before, after) in enumerate(zip(frames, equalize_frames(frames, element))):
        print(f"frame {index}: {_spread(before)} -> {_spread(after)} ({element})")
    for path in paths:
        count = 0
        for count, rgb in enumerate(equalize_file(path, element=element), start=1):
            pass
        print(f"{path}: {count} equalized RGB frames of {rgb.shape}" if count else f"{path}: empty")


if __name__ == "__main__":
    try:
        _demo(sys.argv[1:])
    except ScriptError as e:
        fail("histeq_numpy.py", e)
