#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""OpenCV's CPU CLAHE (createCLAHE(2, (8, 8)).apply) on all of this machine's cores, timed on the
8-bit frame that histeq-format-bench saved (--save-frame), next to the GPU's device-resident CLAHE
time of that frame from the same run:

    bench/opencv_clahe.py FRAME WIDTHxHEIGHT [--gpu-us US]

Prints OpenCV's milliseconds per frame (the median of 15 runs after 3 warm-ups) and, with
--gpu-us, how many times faster the GPU is, against the goal of 100x."""
import argparse
import os
import statistics
import sys
import time

import cv2
import numpy


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("frame")
    parser.add_argument("size")
    parser.add_argument("--gpu-us", type=float)
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    frame = numpy.fromfile(args.frame, dtype=numpy.uint8)
    if frame.size != width * height:
        sys.exit(f"opencv_clahe: {args.frame} holds {frame.size} bytes, not {width}x{height}")
    frame = frame.reshape(height, width)
    cv2.setNumThreads(os.cpu_count())
    clahe = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))
    times = []
    for run in range(18):
        start = time.perf_counter()
        clahe.apply(frame)
        if run >= 3:
            times.append(time.perf_counter() - start)
    ms = statistics.median(times) * 1e3
    print(f"OpenCV {cv2.__version__} CLAHE 8x8 clip 2, {width}x{height}, {cv2.getNumThreads()} "
          f"threads on {os.cpu_count()} cores: {ms:.3f} ms per frame")
    if args.gpu_us:
        ratio = ms * 1e3 / args.gpu_us
        verdict = "PASS" if ratio >= 100 else "MISS"
        print(f"{verdict}: GPU CLAHE ({args.gpu_us:.1f} us) >= 100x OpenCV's CPU CLAHE "
              f"({ratio:.0f}x)")


if __name__ == "__main__":
    main()
