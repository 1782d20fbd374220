# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/serve on a loopback port, read by real clients in other processes: gst-launch-1.0
(rtspsrc, RTP over UDP or TCP) and FFmpeg (ffprobe and ffmpeg, RTP interleaved over the RTSP
connection). The decoded I420 frames are counted, sized and their luma spread compared with the
same scene served at --strength 0. Then two clients at once, one that leaves and comes back, one
killed mid-stream, a file that ends, and the bad input that stops the server at start. Where
FFmpeg is missing (the GPU machine), a second gst-launch-1.0 over TCP takes its place and the
ffprobe test is skipped."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import gi
import numpy as np

import histeq_common
import support

try:
    gi.require_version("GstRtspServer", "1.0")
    HAS_RTSP_SERVER = True
except ValueError:
    HAS_RTSP_SERVER = False
HAS_FFMPEG = bool(shutil.which("ffmpeg") and shutil.which("ffprobe"))
# FFmpeg's decoder through gst-libav, else NVDEC's (the GPU machine carries no libav).
H264_DECODER = next((name for name in ("avdec_h264", "nvh264dec")
                     if histeq_common.Gst.ElementFactory.find(name)), "avdec_h264")

WIDTH, HEIGHT, FPS = 320, 240, 30
FRAME_BYTES = WIDTH * HEIGHT * 3 // 2
TICK = re.compile(r"^serve: (\d+) clients?, (\d+) frames served \((\d+) in the last second\), "
                  r"latency ([\d.]+) ms$")


class Server:
    """pipelines/serve on 127.0.0.1 and a free port; its stdout is read as it comes."""

    def __init__(self, *extra):
        self.process = subprocess.Popen(
            [*support.script("serve"), "--address", "127.0.0.1", "--port", "0", "--element",
             support.element(), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        first = self.wait_for(r"^serve: (rtsp://\S+)$", timeout=30)
        if first is None:
            self.process.kill()
            raise AssertionError(f"serve did not start: {self.process.communicate()}")
        self.url = first.group(1)

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern, timeout=10, start=0):
        """The first line from `start` on that matches, waiting up to `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            for line in self.lines[start:]:
                match = re.search(pattern, line)
                if match:
                    return match
            if time.monotonic() > deadline or self.process.poll() is not None:
                return None
            time.sleep(0.05)

    def mark(self):
        return len(self.lines)

    def since(self, mark):
        return self.lines[mark:]

    def stop(self):
        """Ctrl-C; returns (exit status, stderr) once stdout is read to its end."""
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.join(5)
        stderr = self.process.stderr.read()
        self.process.stdout.close()
        self.process.stderr.close()
        return self.process.returncode, stderr


class Received:
    """What a client decoded: I420 frames of the expected size, read back as luma planes."""

    def __init__(self, data, width, height):
        self.width, self.height = width, height
        frame = width * height * 3 // 2
        self.frames = len(data) // frame
        planes = np.frombuffer(data[:self.frames * frame], np.uint8).reshape(self.frames, frame)
        self.luma = planes[:, :width * height].reshape(self.frames, height, width)

    def spread(self):
        """Median over frames of the 5th..95th percentile width of their luma."""
        return float(np.median([support.spread(luma) for luma in self.luma]))

    def __repr__(self):
        return f"{self.frames} frames of {self.width}x{self.height}"


class GstClient:
    """gst-launch-1.0 reading `url` (rtspsrc, H264_DECODER) into a file of I420 frames; its
    verbose output is read as it comes, for the caps its filesink takes with the first frame."""

    def __init__(self, url, tcp=False):
        fd, self.path = tempfile.mkstemp(suffix=".yuv")
        os.close(fd)
        protocols = ["protocols=tcp"] if tcp else []
        self.process = subprocess.Popen(
            ["gst-launch-1.0", "-e", "-v", "rtspsrc", f"location={url}", "latency=0",
             *protocols, "!", "rtph264depay", "!", "h264parse", "!", H264_DECODER, "!",
             "videoconvert", "!", "video/x-raw,format=I420", "!", "filesink",
             f"location={self.path}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def sink_caps(self):
        """The caps line of the filesink's pad, once the first frame has been decoded."""
        return next((line for line in list(self.lines)
                     if "GstFileSink" in line and " caps = video/x-raw" in line), None)

    def wait_for_first_frame(self, timeout=20):
        """Connecting and starting a decoder take their own time (NVDEC's about a second)."""
        deadline = time.monotonic() + timeout
        while self.sink_caps() is None:
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.kill()
                raise AssertionError("the GStreamer client decoded nothing: "
                                     + "\n".join(self.lines[-20:]))
            time.sleep(0.05)

    def read(self, seconds):
        """Lets the client decode `seconds` from its first frame on, stops it with Ctrl-C
        (EOS) and reads what it wrote."""
        self.wait_for_first_frame()
        time.sleep(seconds)
        self.process.send_signal(signal.SIGINT)
        self._reap()
        with open(self.path, "rb") as f:
            data = f.read()
        os.remove(self.path)
        caps = self.sink_caps()
        fields = {name: re.search(rf"\b{name}=\((?:int|string)\)(\w+)", caps).group(1)
                  for name in ("format", "width", "height")}
        if fields["format"] != "I420":
            raise AssertionError(f"the GStreamer client wrote {caps}")
        return Received(data, int(fields["width"]), int(fields["height"]))

    def kill(self):
        """Gone at once, without a TEARDOWN."""
        self.process.kill()
        self._reap()
        os.remove(self.path)

    def _reap(self):
        """Waits for the stopped process and the end of its output."""
        self.process.wait(timeout=15)
        self.reader.join(5)
        self.process.stdout.close()


def ffmpeg_read(url, seconds):
    """FFmpeg's RTSP client (over TCP) decodes `seconds` of stream time into I420; its warnings
    (a frame it could not decode, two frames of one time) fail the test."""
    done = subprocess.run(
        ["ffmpeg", "-nostdin", "-v", "warning", "-rtsp_transport", "tcp", "-i", url, "-t",
         str(seconds), "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"],
        capture_output=True, timeout=seconds + 30)
    if done.returncode != 0 or done.stderr:
        raise AssertionError(f"ffmpeg said: {done.stderr.decode(errors='replace')}")
    return Received(done.stdout, WIDTH, HEIGHT)


def second_client_read(url, seconds):
    """`seconds` of the stream read by the client that is not gst-launch-1.0 over UDP: FFmpeg's
    where it is installed, else another gst-launch-1.0, over TCP."""
    if HAS_FFMPEG:
        return ffmpeg_read(url, seconds)
    return GstClient(url, tcp=True).read(seconds)


def second_client_name():
    return "ffmpeg" if HAS_FFMPEG else "gst-launch-1.0 (TCP)"


def ffprobe(url):
    done = subprocess.run(
        ["ffprobe", "-v", "error", "-rtsp_transport", "tcp", "-select_streams", "v",
         "-show_entries", "stream=codec_name,profile,width,height,pix_fmt", "-of", "json", url],
        capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise AssertionError(f"ffprobe failed: {done.stderr}")
    return json.loads(done.stdout)["streams"][0]


def say(text):
    """What the clients received goes to the test log (meson's testlog.txt)."""
    print(text, flush=True)


@unittest.skipUnless(HAS_RTSP_SERVER, "needs gir1.2-gst-rtsp-server-1.0 (scripts/install-deps.sh)")
class Serve(unittest.TestCase):
    """One server (the moving low-contrast test scene, default settings) for every client test,
    and one at --strength 0 for the scene as it is."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server("--source", "test", "--size", f"{WIDTH}x{HEIGHT}", "--fps", str(FPS))
        unequalized = Server("--source", "test", "--size", f"{WIDTH}x{HEIGHT}", "--fps",
                             str(FPS), "--strength", "0")
        try:
            cls.unequalized_spread = second_client_read(unequalized.url, 2).spread()
        finally:
            unequalized.stop()

    @classmethod
    def tearDownClass(cls):
        status, stderr = cls.server.stop()
        lines = cls.server.lines
        say("server said:\n  " + "\n  ".join(lines))
        assert status == 0, (status, stderr)
        assert stderr == "", stderr
        assert re.fullmatch(r"serve: stopped; \d+ frames served", lines[-1]), lines[-1]

    def check_picture(self, received, seconds):
        self.assertEqual((received.width, received.height), (WIDTH, HEIGHT))
        # A client needs a moment to connect and its first key frame; none comes twice.
        self.assertGreaterEqual(received.frames, (seconds - 1) * FPS, received)
        self.assertLessEqual(received.frames, (seconds + 1) * FPS, received)
        self.assertGreater(received.spread(), 1.5 * self.unequalized_spread)

    def test_first_lines_name_the_url_and_the_element(self):
        self.assertRegex(self.server.url, r"^rtsp://127\.0\.0\.1:\d+/equalized$")
        self.assertRegex(self.server.lines[1], rf"^serve: the test scene {WIDTH}x{HEIGHT} at "
                         rf"{FPS} fps, equalized by {support.element()} \(default settings\), "
                         r"H\.264 \d+ kbit/s; Ctrl-C to stop$")

    def test_gstreamer_client_decodes_equalized_frames(self):
        mark = self.server.mark()
        received = GstClient(self.server.url).read(4)
        say(f"gst-launch-1.0 rtspsrc (UDP), 4 s: {received}, luma spread "
            f"{received.spread():.0f} (the scene at --strength 0: {self.unequalized_spread:.0f})")
        self.check_picture(received, 4)
        ticks = [TICK.match(line) for line in self.server.since(mark)]
        ticks = [t for t in ticks if t and int(t.group(1)) == 1]
        self.assertTrue(ticks, self.server.since(mark))
        self.assertLess(float(ticks[-1].group(4)), 500)  # what the pipeline reports
        self.assertAlmostEqual(int(ticks[-1].group(3)), FPS, delta=5)

    @unittest.skipUnless(HAS_FFMPEG, "needs FFmpeg's ffmpeg and ffprobe (scripts/install-deps.sh)")
    def test_ffmpeg_client_decodes_constrained_baseline_420(self):
        stream = ffprobe(self.server.url)
        say(f"ffprobe: {stream}")
        self.assertEqual(stream, {"codec_name": "h264", "profile": "Constrained Baseline",
                                  "width": WIDTH, "height": HEIGHT, "pix_fmt": "yuv420p"})
        received = ffmpeg_read(self.server.url, 3)
        say(f"ffmpeg (TCP), 3 s of stream: {received}, luma spread {received.spread():.0f} "
            f"(the scene at --strength 0: {self.unequalized_spread:.0f})")
        self.check_picture(received, 3)

    def test_two_clients_at_once_share_one_stream(self):
        mark = self.server.mark()
        by_gst_tcp = GstClient(self.server.url, tcp=True)
        with_second = {}
        thread = threading.Thread(target=lambda: with_second.update(r=second_client_read(
            self.server.url, 3)))
        thread.start()
        by_gst = by_gst_tcp.read(4)
        thread.join(40)
        by_second = with_second["r"]
        say(f"two at once: gst-launch-1.0 (TCP) {by_gst}, {second_client_name()} {by_second}")
        self.check_picture(by_gst, 4)
        self.check_picture(by_second, 3)
        # One shared stream: one equalizer and one encoder for both, so about FPS frames a
        # second are payloaded, not twice as many.
        both = [TICK.match(line) for line in self.server.since(mark)]
        both = [t for t in both if t and int(t.group(1)) == 2]
        self.assertTrue(both, self.server.since(mark))
        self.assertTrue(all(int(t.group(3)) <= FPS + 5 for t in both), self.server.since(mark))
        started = [line for line in self.server.since(mark) if "starting it" in line]
        self.assertLessEqual(len(started), 1, self.server.since(mark))

    def test_a_client_leaves_and_comes_back(self):
        mark = self.server.mark()
        first = second_client_read(self.server.url, 1.5)
        self.assertIsNotNone(self.server.wait_for(r"^serve: client \S+ left", start=mark))
        again = second_client_read(self.server.url, 1.5)
        say(f"left and came back: {first}, then {again}")
        for received in (first, again):
            self.assertGreaterEqual(received.frames, FPS)
            self.assertGreater(received.spread(), 1.5 * self.unequalized_spread)
        lines = self.server.since(mark)
        self.assertEqual(sum("connected (" in line for line in lines), 2, lines)
        self.assertEqual(sum(" left (" in line for line in lines), 2, lines)

    def test_a_client_killed_mid_stream_leaves_the_others_playing(self):
        mark = self.server.mark()
        doomed = GstClient(self.server.url)
        survivor = {}
        thread = threading.Thread(target=lambda: survivor.update(r=second_client_read(
            self.server.url, 4)))
        thread.start()
        doomed.wait_for_first_frame()
        time.sleep(1)
        doomed.kill()  # no TEARDOWN, the connection simply goes
        thread.join(40)
        say(f"one killed 1 s after its first frame, the other: {survivor['r']}")
        self.check_picture(survivor["r"], 4)
        vanished = self.server.wait_for(r"^serve: client \S+ vanished without TEARDOWN: its "
                                        r"session is closed \(\d+ connected\)$", start=mark)
        self.assertIsNotNone(vanished, self.server.since(mark))
        self.assertIsNone(self.server.process.poll())


def free_port_in_use():
    """A listening socket on a loopback port, as another server would hold it."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    return holder


@unittest.skipUnless(HAS_RTSP_SERVER, "needs gir1.2-gst-rtsp-server-1.0 (scripts/install-deps.sh)")
class BadInput(unittest.TestCase):

    def fails_with_one_line(self, *argv):
        done = support.run(*support.script("serve"), "--address", "127.0.0.1", "--port", "0",
                           "--element", support.element(), *argv, timeout=60)
        self.assertEqual(done.returncode, 1, done)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        self.assertTrue(done.stderr.startswith("serve: "), done.stderr)
        self.assertNotIn("Traceback", done.stdout + done.stderr)
        return done.stderr.rstrip("\n")

    def test_port_in_use(self):
        with free_port_in_use() as holder:
            port = holder.getsockname()[1]
            line = self.fails_with_one_line("--source", "test", "--port", str(port))
        self.assertEqual(line, f"serve: cannot serve on port {port}: Error binding to address "
                         f"127.0.0.1:{port}: Address already in use")

    def test_missing_camera(self):
        line = self.fails_with_one_line("--source", "webcam", "--device", "/dev/no-such-video")
        self.assertRegex(line, r"^serve: no usable camera at /dev/no-such-video: ")

    def test_missing_and_undecodable_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "none.mp4")
            self.assertEqual(self.fails_with_one_line("--source", missing),
                             f"serve: cannot read {missing}: no such file (--source takes "
                             "webcam, test or a video file)")
            garbage = os.path.join(tmp, "garbage.mp4")
            with open(garbage, "wb") as f:
                f.write(b"not a video" * 100)
            self.assertRegex(self.fails_with_one_line("--source", garbage),
                             rf"^serve: cannot decode {garbage}: ")

    def test_settings_out_of_range(self):
        for option, value, line in [
                ("--strength", "1.5", "--strength must be a number from 0 to 1, not '1.5'"),
                ("--clip-limit", "-1", "--clip-limit must be a number from 0 to 1000, not '-1'"),
                ("--smoothing", "ten", "--smoothing must be a number from 0 to 1000, not 'ten'"),
                ("--scene-threshold", "nan", "--scene-threshold must be a number from 0 to 1, "
                 "not 'nan'"),
                ("--size", "321x240", "--size must be WIDTHxHEIGHT in even numbers of pixels "
                 "(4:2:0), like 1280x720, not '321x240'")]:
            with self.subTest(option=option):
                self.assertEqual(self.fails_with_one_line("--source", "test", option, value),
                                 f"serve: {line}")

    def test_a_file_that_ends_starts_again(self):
        with tempfile.TemporaryDirectory() as tmp:
            clip = os.path.join(tmp, "foggy.mp4")
            support.make_clip(clip, frames=20, width=WIDTH, height=HEIGHT)
            server = Server("--source", clip)
            try:
                received = second_client_read(server.url, 2.5)
            finally:
                status, stderr = server.stop()
        say(f"a 20-frame file, read by {second_client_name()} for 2.5 s of stream: {received}")
        self.assertEqual((status, stderr), (0, ""))
        # The file plays in real time, and again from its start at its end: the client sees
        # one unbroken stream.
        self.assertGreaterEqual(received.frames, 2 * FPS)
        self.assertGreater(received.spread(), 100)
        ended = [line for line in server.lines
                 if re.fullmatch(rf"serve: {re.escape(clip)} ended after 20 frames \(0\.\d s\); "
                                 "playing it again from the start", line)]
        self.assertGreaterEqual(len(ended), 2, server.lines)

    @unittest.skipIf(support.element() == "cudahisteq", "the GPU works here")
    @unittest.skipUnless(HAS_FFMPEG, "needs FFmpeg's ffmpeg")
    def test_a_stream_that_fails_is_one_line_and_the_server_goes_on(self):
        if (histeq_common.Gst.ElementFactory.find("cudahisteq") is None
                or histeq_common.cuda_works()):
            self.skipTest("needs cudahisteq built and no usable GPU, so that it fails")
        # cudahisteq forced on a machine without a GPU: each client's stream fails as it starts.
        server = Server("--source", "test", "--size", f"{WIDTH}x{HEIGHT}", "--element",
                        "cudahisteq")
        try:
            for _ in range(2):
                done = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", server.url,
                                       "-t", "1", "-f", "null", "-"], capture_output=True,
                                      timeout=30)
                self.assertNotEqual(done.returncode, 0)
            failed = [line for line in server.lines if "the stream failed" in line]
            self.assertIsNone(server.process.poll())
        finally:
            status, stderr = server.stop()
        self.assertEqual((status, stderr), (0, ""))
        self.assertEqual(len(failed), 2, server.lines)
        self.assertRegex(failed[0], r"^serve: the stream failed: No CUDA device is available")


if __name__ == "__main__":
    unittest.main()
