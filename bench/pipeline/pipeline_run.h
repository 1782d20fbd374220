// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// One timed run of `appsrc ! ELEMENT ! fakesink sync=false`: the application pushes into appsrc
// from its own thread, cycling a buffer pool of prepared natural frames: the element's own
// pinned pool (what it answers to the allocation query), an ordinary system-memory video pool
// (an upstream that ignores the proposal) or GstCudaMemory.

#include <string>

#include <gst/video/video.h>

// kCudaPool: frames already in device memory (GstCudaMemory), as nvh264dec or cudaupload hand
// them on, in a context the pipeline shares.
enum class Source { kPinnedPool, kSystemPool, kCudaPool };

// More than appsrc's queue, the frames in flight and the one being pushed together, so the
// pool recycles prepared frames instead of allocating new ones.
constexpr guint kPrepared = 12;
constexpr guint kQueued = 4;  // appsrc max-buffers: pushing blocks beyond this

// Frames per second through `appsrc ! element ! fakesink sync=false`, from the first timed push
// to the EOS message (so the frames in flight are drained and counted), or negative on failure.
// `label` names the run in what it prints on stderr; `intervals` prints there how the times
// between frames reaching the sink spread.
double run_pipeline(const std::string &label, const std::string &element, const GstVideoInfo &info,
                    Source source, int frames, bool intervals);

// NV12 at 30 frames per second.
GstVideoInfo nv12_info(int width, int height);
