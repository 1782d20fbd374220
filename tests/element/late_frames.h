// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The QoS scenario both elements are tested with, so they are held to the same one.

#include <random>

#include <gst/check/gstharness.h>
#include <gst/video/video.h>

// Pushes natural frames `first` to `end - 1` of `info`, frame i at i seconds, and before frame 2
// the QoS event a sink sends when it can show nothing earlier than 2.5 s: frame 2 is late, frame
// 3 on time. Returns the first flow return that is not OK, else GST_FLOW_OK.
GstFlowReturn push_frames_with_frame_two_late(GstHarness *h, const GstVideoInfo &info, int first,
                                              int end, std::mt19937 &rng);

// Takes the QoS messages off `bus` and checks each is the scenario's: frame 2 (running time 2 s)
// dropped, with frames 0 and 1 counted as processed before it and it as the first dropped.
// Returns how many there were.
int take_late_frame_messages(GstBus *bus);
