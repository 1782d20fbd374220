// SPDX-License-Identifier: LGPL-2.1-or-later
// cudahisteq: frames go through the engine's ring of CUDA streams. submit_input_buffer maps a
// frame and enqueues its luma plane; generate_output hands frames back in order once the ring
// is full (depth - 1 frames stay in flight), so upload, equalization and download of
// neighbouring frames overlap.
#include "gstcudahisteq.h"

#include <deque>
#include <memory>

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "cuda_enums.h"
#include "cuda_memory_frames.h"
#include "luma_frame.h"
#include "pinned_allocator.h"
#include "stream_ring.h"

GST_DEBUG_CATEGORY_STATIC(gst_cuda_hist_eq_debug);
#define GST_CAT_DEFAULT gst_cuda_hist_eq_debug

namespace {

constexpr gint kDefaultDeviceId = -1;
constexpr guint kDefaultDepth = 2;

enum { PROP_0, PROP_DEVICE_ID, PROP_DEPTH, PROP_HISTOGRAM_METHOD, PROP_SCAN_METHOD };

struct Settings {
  gint device_id = kDefaultDeviceId;
  guint depth = kDefaultDepth;
  histeq::cuda::KernelConfig kernels;
};

// A frame between submit and output. GAP buffers pass through the same queue, untouched, so
// order is kept. Frames in flight are in the ring (system memory) or in CudaMemoryFrames
// (CUDA memory), never both at once: each kind waits for the other's to finish first.
struct PendingFrame {
  GstBuffer *buffer = nullptr;
  GstVideoFrame frame{};
  bool mapped = false;
  bool in_cuda_memory = false;
  bool done = false;
};

// Streaming-thread state (start/stop, set_info, submit, generate, sink events).
struct CudaHistEqState {
  int device = 0;
  Settings settings;  // as of start(): depth and kernels cannot change mid-stream
  std::unique_ptr<histeq::cuda::StreamRing> ring;
  std::deque<PendingFrame> pending;
  histeq::OutputRange range = histeq::full_range(8);
  GstAllocator *pinned = nullptr;  // offered upstream while started
  bool cuda_caps = false;          // negotiated video/x-raw(memory:CUDAMemory)
  CudaMemoryFrames cuda_frames;    // the zero-copy path, in the pipeline's CUDA context
  GstClockTime last_pts = GST_CLOCK_TIME_NONE;  // for frame intervals without a frame rate
  bool discont_after_drop = false;              // QoS dropped the frame before the next one
};

}  // namespace

struct _GstCudaHistEq {
  GstVideoFilter parent;
  // Guarded by the object lock. The ring is built from `settings` at start; `active_depth` is
  // its depth while started (0 when stopped), `fps_n`/`fps_d` the negotiated frame rate (fps_n
  // 0 when unknown) and `frame_interval`, when it is unknown, the longest frame interval seen
  // and an eighth more; all read by latency queries from other threads.
  Settings settings;
  guint active_depth;
  gint fps_n, fps_d;
  GstClockTime frame_interval;
  CudaHistEqState *state;
  // The pipeline's GstCudaContext, shared with nvcodec elements through context queries and
  // set_context (GStreamer's own locking of those; read by the streaming thread once found).
  GstCudaContext *context;
};

G_DEFINE_TYPE(GstCudaHistEq, gst_cuda_hist_eq, GST_TYPE_VIDEO_FILTER)
GST_ELEMENT_REGISTER_DEFINE(cudahisteq, "cudahisteq", GST_RANK_NONE, GST_TYPE_CUDA_HIST_EQ)

static void gst_cuda_hist_eq_release(PendingFrame &pending) {
  if (pending.mapped) gst_video_frame_unmap(&pending.frame);
  pending.mapped = false;
}

static void gst_cuda_hist_eq_drop_pending(GstCudaHistEq *self) {
  CudaHistEqState &state = *self->state;
  if (state.ring) state.ring->discard();
  state.cuda_frames.discard();
  for (PendingFrame &pending : state.pending) {
    gst_cuda_hist_eq_release(pending);
    gst_buffer_unref(pending.buffer);
  }
  state.pending.clear();
}

static GstFlowReturn gst_cuda_hist_eq_cuda_error(GstCudaHistEq *self, const char *call,
                                                 cudaError_t status) {
  if (status == cudaErrorMemoryAllocation) {
    const GstVideoInfo *info = &GST_VIDEO_FILTER(self)->in_info;
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
                      ("CUDA device %d has no memory left for %u frames of %dx%d in flight; free "
                       "GPU memory or lower the depth property.",
                       self->state->device, self->state->settings.depth, GST_VIDEO_INFO_WIDTH(info),
                       GST_VIDEO_INFO_HEIGHT(info)),
                      ("%s returned %s", call, cudaGetErrorName(status)));
    return GST_FLOW_ERROR;
  }
  GST_ELEMENT_ERROR(
      self, RESOURCE, FAILED,
      ("The GPU failed while equalizing a frame (CUDA error: %s).", cudaGetErrorString(status)),
      ("%s returned %s", call, cudaGetErrorName(status)));
  return GST_FLOW_ERROR;
}

// The CUDA runtime's current device is per host thread, and buffers may arrive on any.
static GstFlowReturn gst_cuda_hist_eq_use_device(GstCudaHistEq *self) {
  const cudaError_t status = cudaSetDevice(self->state->device);
  return status == cudaSuccess ? GST_FLOW_OK
                               : gst_cuda_hist_eq_cuda_error(self, "cudaSetDevice", status);
}

static gboolean gst_cuda_hist_eq_start(GstBaseTransform *trans) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  CudaHistEqState &state = *self->state;
  GST_OBJECT_LOCK(self);
  state.settings = self->settings;
  GST_OBJECT_UNLOCK(self);

  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                      ("No CUDA device is available, so cudahisteq cannot run; use histeq, the "
                       "CPU element, instead."),
                      ("cudaGetDeviceCount: %s",
                       status == cudaSuccess ? "no devices" : cudaGetErrorString(status)));
    return FALSE;
  }
  state.device = state.settings.device_id < 0 ? 0 : state.settings.device_id;
  if (state.device >= count) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                      ("CUDA device %d does not exist: this machine has %d (device-id 0 to %d).",
                       state.device, count, count - 1),
                      ("device-id=%d", state.settings.device_id));
    return FALSE;
  }
  state.ring = std::make_unique<histeq::cuda::StreamRing>();
  if ((status = cudaSetDevice(state.device)) != cudaSuccess ||
      (status = state.ring->init(int(state.settings.depth), state.settings.kernels)) !=
          cudaSuccess) {
    state.ring.reset();
    GST_ELEMENT_ERROR(
        self, RESOURCE, OPEN_READ_WRITE,
        ("Could not set up CUDA device %d for cudahisteq (%s).", state.device,
         cudaGetErrorString(status)),
        ("StreamRing::init(depth %u): %s", state.settings.depth, cudaGetErrorName(status)));
    return FALSE;
  }
  state.pinned = GST_ALLOCATOR(gst_object_ref_sink(gst_hist_eq_pinned_allocator_new()));
  GST_OBJECT_LOCK(self);
  self->active_depth = state.settings.depth;
  GST_OBJECT_UNLOCK(self);
  GST_INFO_OBJECT(self, "CUDA device %d, %u frames in flight", state.device, state.settings.depth);
  return TRUE;
}

static gboolean gst_cuda_hist_eq_stop(GstBaseTransform *trans) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  gst_cuda_hist_eq_drop_pending(self);
  self->state->ring.reset();
  self->state->cuda_frames.release();
  self->state->cuda_caps = false;
  gst_clear_object(&self->context);
  gst_clear_object(&self->state->pinned);
  self->state->last_pts = GST_CLOCK_TIME_NONE;
  self->state->discont_after_drop = false;
  GST_OBJECT_LOCK(self);
  self->active_depth = 0;
  self->frame_interval = 0;
  GST_OBJECT_UNLOCK(self);
  return TRUE;
}

static int gst_cuda_hist_eq_in_flight(CudaHistEqState &state, bool in_cuda_memory) {
  if (in_cuda_memory) return state.cuda_frames.in_flight();
  return state.ring ? state.ring->in_flight() : 0;
}

// Waits for the oldest frame in flight of one kind; it is the oldest not-done entry of that
// kind in the queue.
static GstFlowReturn gst_cuda_hist_eq_finish_oldest(GstCudaHistEq *self, bool in_cuda_memory) {
  CudaHistEqState &state = *self->state;
  GstFlowReturn ret = GST_FLOW_OK;
  if (in_cuda_memory) {
    ret = state.cuda_frames.wait_oldest(GST_ELEMENT(self));
  } else if ((ret = gst_cuda_hist_eq_use_device(self)) == GST_FLOW_OK) {
    std::uint64_t tag = 0;
    const cudaError_t status = state.ring->wait(&tag);
    if (status != cudaSuccess) ret = gst_cuda_hist_eq_cuda_error(self, "StreamRing::wait", status);
  }
  if (ret != GST_FLOW_OK) return ret;
  for (PendingFrame &pending : state.pending) {
    if (!pending.done && pending.in_cuda_memory == in_cuda_memory) {
      GST_LOG_OBJECT(self, "frame %" GST_TIME_FORMAT " done",
                     GST_TIME_ARGS(GST_BUFFER_PTS(pending.buffer)));
      pending.done = true;
      gst_cuda_hist_eq_release(pending);
      break;
    }
  }
  return GST_FLOW_OK;
}

static GstFlowReturn gst_cuda_hist_eq_finish_all(GstCudaHistEq *self, bool in_cuda_memory) {
  GstFlowReturn ret = GST_FLOW_OK;
  while (ret == GST_FLOW_OK && gst_cuda_hist_eq_in_flight(*self->state, in_cuda_memory) > 0)
    ret = gst_cuda_hist_eq_finish_oldest(self, in_cuda_memory);
  return ret;
}

// Moves the zero-copy path into the context of upstream's memory, unless device-id names
// another GPU than the one that memory lives on.
static GstFlowReturn gst_cuda_hist_eq_adopt_context(GstCudaHistEq *self, GstCudaContext *owner) {
  CudaHistEqState &state = *self->state;
  const GstFlowReturn ret = gst_cuda_hist_eq_finish_all(self, true);
  if (ret != GST_FLOW_OK) return ret;
  const guint device = histeq_cuda_context_device(owner);
  if (state.settings.device_id >= 0 && guint(state.settings.device_id) != device) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED,
                      ("The frames are in the memory of CUDA device %u, but cudahisteq is set to "
                       "device-id=%d. Set device-id=%u (or -1), or move the frames with "
                       "cudadownload ! cudaupload between the two.",
                       device, state.settings.device_id, device),
                      ("GstCudaMemory of %" GST_PTR_FORMAT, owner));
    return GST_FLOW_ERROR;
  }
  return state.cuda_frames.use_context(GST_ELEMENT(self), owner) ? GST_FLOW_OK : GST_FLOW_ERROR;
}

// A frame in GstCudaMemory: equalized in place on the device, in the memory's own context,
// with up to `depth` such frames in flight, after the ring's (so frames leave in order).
static GstFlowReturn gst_cuda_hist_eq_submit_cuda_memory(GstCudaHistEq *self, GstBuffer *input) {
  CudaHistEqState &state = *self->state;
  GstCudaContext *owner = GST_CUDA_MEMORY_CAST(gst_buffer_peek_memory(input, 0))->context;
  GstFlowReturn ret = gst_cuda_hist_eq_finish_all(self, false);
  if (ret == GST_FLOW_OK && owner != state.cuda_frames.context())
    ret = gst_cuda_hist_eq_adopt_context(self, owner);
  if (ret == GST_FLOW_OK && state.cuda_frames.in_flight() == int(state.settings.depth))
    ret = gst_cuda_hist_eq_finish_oldest(self, true);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref(input);
    return ret;
  }
  PendingFrame pending;
  pending.buffer = gst_buffer_make_writable(input);
  pending.in_cuda_memory = true;
  ret = state.cuda_frames.submit(GST_ELEMENT(self), &GST_VIDEO_FILTER(self)->in_info,
                                 pending.buffer, state.range, state.settings.kernels);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref(pending.buffer);
    return ret;
  }
  GST_LOG_OBJECT(self, "frame %" GST_TIME_FORMAT " submitted in CUDA memory, %d in flight",
                 GST_TIME_ARGS(GST_BUFFER_PTS(pending.buffer)), state.cuda_frames.in_flight());
  state.pending.push_back(pending);
  return GST_FLOW_OK;
}

// Pushes every frame still in flight, in order (serialized events such as EOS, a caps change or
// a GAP; reconfigure; drain queries; a DISCONT buffer; a frame QoS dropped).
static GstFlowReturn gst_cuda_hist_eq_drain(GstCudaHistEq *self) {
  CudaHistEqState &state = *self->state;
  while (!state.pending.empty()) {
    if (!state.pending.front().done) {
      const GstFlowReturn ret =
          gst_cuda_hist_eq_finish_oldest(self, state.pending.front().in_cuda_memory);
      if (ret != GST_FLOW_OK) {
        gst_cuda_hist_eq_drop_pending(self);
        return ret;
      }
    }
    GstBuffer *buffer = state.pending.front().buffer;
    state.pending.pop_front();
    const GstFlowReturn ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), buffer);
    if (ret != GST_FLOW_OK) {
      gst_cuda_hist_eq_drop_pending(self);
      return ret;
    }
  }
  return GST_FLOW_OK;
}

// The latency the frames held in the ring add: depth - 1 frame durations, from the caps' frame
// rate, else from the frame intervals seen. Takes the object lock.
static GstClockTime gst_cuda_hist_eq_added_latency(GstCudaHistEq *self) {
  GST_OBJECT_LOCK(self);
  const guint held = (self->active_depth ? self->active_depth : self->settings.depth) - 1;
  const GstClockTime added =
      self->fps_n > 0 ? gst_util_uint64_scale_int(held * GST_SECOND, self->fps_d, self->fps_n)
                      : held * self->frame_interval;
  GST_OBJECT_UNLOCK(self);
  return added;
}

// Without a frame rate in the caps (a variable-rate camera), the latency the held frames add is
// learned from the frames: each one's duration, else the gap since the previous one. A longer
// interval than any before raises it (by an eighth more, so jitter does not raise it again on
// every frame) and a LATENCY message makes the pipeline ask again. A GAP buffer's duration and
// the gap across a DISCONT (or a GAP, SEGMENT or STREAM_START event, see sink_event) are missing
// time, not a frame interval, and are not counted; nor is an interval over 2^60 ns (36 years), a
// broken timestamp that would overflow the latency sums.
static void gst_cuda_hist_eq_observe_interval(GstCudaHistEq *self, GstBuffer *buffer) {
  CudaHistEqState &state = *self->state;
  const GstClockTime pts = GST_BUFFER_PTS(buffer);
  if (GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_GAP)) {
    state.last_pts = GST_CLOCK_TIME_NONE;
    return;
  }
  if (GST_BUFFER_IS_DISCONT(buffer)) state.last_pts = GST_CLOCK_TIME_NONE;
  GstClockTime interval = GST_BUFFER_DURATION(buffer);
  if (!GST_CLOCK_TIME_IS_VALID(interval) && GST_CLOCK_TIME_IS_VALID(pts) &&
      GST_CLOCK_TIME_IS_VALID(state.last_pts) && pts > state.last_pts)
    interval = pts - state.last_pts;
  state.last_pts = pts;
  if (!GST_CLOCK_TIME_IS_VALID(interval) || interval > (GstClockTime(1) << 60) ||
      state.settings.depth < 2)
    return;
  GST_OBJECT_LOCK(self);
  const bool longer = self->fps_n == 0 && interval > self->frame_interval;
  if (longer) self->frame_interval = interval + interval / 8;
  GST_OBJECT_UNLOCK(self);
  if (longer) {
    GST_DEBUG_OBJECT(self,
                     "no frame rate, a frame interval of %" GST_TIME_FORMAT ": the latency grows",
                     GST_TIME_ARGS(interval));
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
  }
}

static GstFlowReturn gst_cuda_hist_eq_submit_input_buffer(GstBaseTransform *trans,
                                                          gboolean is_discont, GstBuffer *input) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  CudaHistEqState &state = *self->state;
  GST_LOG_OBJECT(self, "frame %" GST_TIME_FORMAT " in", GST_TIME_ARGS(GST_BUFFER_PTS(input)));
  gst_cuda_hist_eq_observe_interval(self, input);
  // Downstream asked for new caps (a RECONFIGURE event). The base class's submit below would
  // answer it with frames still in flight; they leave first, under their caps.
  if (gst_pad_needs_reconfigure(GST_BASE_TRANSFORM_SRC_PAD(trans))) {
    GstFlowReturn ret = gst_cuda_hist_eq_drain(self);
    if (ret == GST_FLOW_OK && !gst_base_transform_reconfigure(trans))
      ret = GST_PAD_IS_FLUSHING(GST_BASE_TRANSFORM_SRC_PAD(trans)) ? GST_FLOW_FLUSHING
                                                                   : GST_FLOW_NOT_NEGOTIATED;
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref(input);
      return ret;
    }
  }
  // The base class marks the next buffer it pushes DISCONT when a DISCONT buffer comes in; with
  // older frames in flight that would be one of them. They leave first, and generate_output
  // hands this one back at once, so the next buffer out is this one, with its own flag.
  if (GST_BUFFER_IS_DISCONT(input)) {
    const GstFlowReturn ret = gst_cuda_hist_eq_drain(self);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref(input);
      return ret;
    }
  }
  // The base class's own submit does QoS (the qos property): it drops a frame the sink would
  // only show late, posts the QoS message and marks the next frame out DISCONT. The frames in
  // flight leave first, so that mark lands on the frame after the dropped one.
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS(gst_cuda_hist_eq_parent_class)
                          ->submit_input_buffer(trans, is_discont, input);
  if (ret == GST_BASE_TRANSFORM_FLOW_DROPPED) {
    GST_DEBUG_OBJECT(self, "QoS dropped a late frame");
    state.discont_after_drop = true;
    const GstFlowReturn drained = gst_cuda_hist_eq_drain(self);
    return drained == GST_FLOW_OK ? ret : drained;
  }
  if (ret != GST_FLOW_OK) return ret;
  input = trans->queued_buf;
  trans->queued_buf = nullptr;
  // The frame after a dropped one carries its own DISCONT flag, so it leaves like any DISCONT
  // frame (see generate_output), even if an event's drain comes in between.
  if (state.discont_after_drop) {
    input = gst_buffer_make_writable(input);
    GST_BUFFER_FLAG_SET(input, GST_BUFFER_FLAG_DISCONT);
    state.discont_after_drop = false;
  }

  PendingFrame pending;
  if (GST_BUFFER_FLAG_IS_SET(input, GST_BUFFER_FLAG_GAP)) {
    pending.buffer = input;
    pending.done = true;
    state.pending.push_back(pending);
    return GST_FLOW_OK;
  }
  // CUDAMemory caps do not promise CUDA memory; anything else goes through the ring.
  if (state.cuda_caps && gst_buffer_n_memory(input) > 0 &&
      gst_is_cuda_memory(gst_buffer_peek_memory(input, 0)))
    return gst_cuda_hist_eq_submit_cuda_memory(self, input);
  ret = gst_cuda_hist_eq_finish_all(self, true);
  if (ret == GST_FLOW_OK && state.ring->full()) ret = gst_cuda_hist_eq_finish_oldest(self, false);
  if (ret == GST_FLOW_OK) ret = gst_cuda_hist_eq_use_device(self);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref(input);
    return ret;
  }
  pending.buffer = gst_buffer_make_writable(input);
  if (!histeq_map_frame(GST_ELEMENT(self), &GST_VIDEO_FILTER(self)->in_info, pending.buffer,
                        &pending.frame)) {
    gst_buffer_unref(pending.buffer);
    return GST_FLOW_ERROR;
  }
  pending.mapped = true;
  const histeq::LumaPlane8 luma = histeq_luma_plane(&pending.frame);
  histeq::cuda::HostFrame host;
  host.src = host.dst = luma.data;
  host.src_pitch = host.dst_pitch = std::size_t(luma.stride);
  host.width = luma.width;
  host.height = luma.height;
  host.range = state.range;
  const cudaError_t status = state.ring->submit(host);
  if (status != cudaSuccess) {
    // Not in the ring, so not queued: the queue's not-done frames are the ring's, in order.
    gst_cuda_hist_eq_release(pending);
    gst_buffer_unref(pending.buffer);
    return gst_cuda_hist_eq_cuda_error(self, "StreamRing::submit", status);
  }
  GST_LOG_OBJECT(self, "frame %" GST_TIME_FORMAT " submitted, %d in flight",
                 GST_TIME_ARGS(GST_BUFFER_PTS(pending.buffer)), state.ring->in_flight());
  state.pending.push_back(pending);
  return GST_FLOW_OK;
}

// Hands back the oldest frame once it is done, once holding it would exceed depth - 1 frames in
// flight, or at once when it is a DISCONT frame.
static GstFlowReturn gst_cuda_hist_eq_generate_output(GstBaseTransform *trans, GstBuffer **outbuf) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  CudaHistEqState &state = *self->state;
  *outbuf = nullptr;
  if (state.pending.empty()) return GST_FLOW_OK;
  const PendingFrame &front = state.pending.front();
  if (!front.done) {
    // A DISCONT frame leaves in the chain call that brought it (the frames before it left first,
    // see submit_input_buffer), so the base class spends its pending DISCONT mark on it. Held,
    // it could leave through a drain instead, and the mark would land on a later frame.
    if (!GST_BUFFER_IS_DISCONT(front.buffer) &&
        gst_cuda_hist_eq_in_flight(state, front.in_cuda_memory) < int(state.settings.depth))
      return GST_FLOW_OK;
    const GstFlowReturn ret = gst_cuda_hist_eq_finish_oldest(self, front.in_cuda_memory);
    if (ret != GST_FLOW_OK) return ret;
  }
  *outbuf = state.pending.front().buffer;
  state.pending.pop_front();
  return GST_FLOW_OK;
}

static gboolean gst_cuda_hist_eq_sink_event(GstBaseTransform *trans, GstEvent *event) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  // A serialized event keeps its place behind the frames that came before it: frames in flight
  // leave first (EOS, a caps change, but also a GAP event, a new stream or a tag, which would
  // otherwise overtake them). A flush drops them instead.
  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
    gst_cuda_hist_eq_drop_pending(self);
    self->state->last_pts = GST_CLOCK_TIME_NONE;
    self->state->discont_after_drop = false;
  } else if (GST_EVENT_IS_SERIALIZED(event) && self->state->ring) {
    gst_cuda_hist_eq_drain(self);
  }
  // The time across a GAP event (frames that never came), into a new segment or a new stream is
  // no frame interval.
  if (GST_EVENT_TYPE(event) == GST_EVENT_GAP || GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT ||
      GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START)
    self->state->last_pts = GST_CLOCK_TIME_NONE;
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_hist_eq_parent_class)->sink_event(trans, event);
}

// Frames held in the ring add depth - 1 frame durations of latency (frame intervals seen, when
// the caps have no frame rate); a DRAIN query pushes them.
static gboolean gst_cuda_hist_eq_query(GstBaseTransform *trans, GstPadDirection direction,
                                       GstQuery *query) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query(GST_ELEMENT(self), query, self->context))
    return TRUE;
  // Upstream wants its buffers back (a decoder before it reuses or frees them): the frames in
  // flight leave first, then the query goes on downstream.
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE(query) == GST_QUERY_DRAIN && self->state->ring &&
      gst_cuda_hist_eq_drain(self) != GST_FLOW_OK)
    return FALSE;
  if (!GST_BASE_TRANSFORM_CLASS(gst_cuda_hist_eq_parent_class)->query(trans, direction, query))
    return FALSE;
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max;
    gst_query_parse_latency(query, &live, &min, &max);
    const GstClockTime added = gst_cuda_hist_eq_added_latency(self);
    min += added;
    if (GST_CLOCK_TIME_IS_VALID(max)) max += added;
    GST_DEBUG_OBJECT(self, "adding %" GST_TIME_FORMAT " of latency", GST_TIME_ARGS(added));
    gst_query_set_latency(query, live, min, max);
  }
  return TRUE;
}

// Sets `config` on `pool`. A pool may answer FALSE after adjusting the configuration (the CUDA
// pool pitches rows its own way and grows the buffer size); the adjusted one is then read back
// and accepted if it still holds the frames. `size` gets the buffer size the pool settled on.
static bool gst_cuda_hist_eq_configure_pool(GstBufferPool *pool, GstStructure *config,
                                            guint *size) {
  GstCaps *caps = nullptr;
  guint min = 0, max = 0;
  gst_buffer_pool_config_get_params(config, &caps, size, &min, &max);
  caps = caps ? gst_caps_ref(caps) : nullptr;
  const guint wanted = *size;
  bool ok = gst_buffer_pool_set_config(pool, config);
  if (!ok) {
    config = gst_buffer_pool_get_config(pool);
    ok = gst_buffer_pool_config_validate_params(config, caps, wanted, min, max) &&
         gst_buffer_pool_set_config(pool, gst_structure_copy(config));
    gst_structure_free(config);
  }
  config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_get_params(config, nullptr, size, nullptr, nullptr);
  gst_structure_free(config);
  if (caps) gst_caps_unref(caps);
  return ok;
}

// Offers upstream a pool of page-locked buffers (with GstVideoMeta), enough for the frames in
// flight plus the ones being filled, so frames are DMA'd without a staging copy. It has no
// maximum: the element works in place, so these buffers travel on downstream, where an encoder
// may hold dozens of them, and a cap would stall upstream.
// Not chained up: the parent would forward the query downstream before negotiation, or put its
// own system-memory pool first.
static gboolean gst_cuda_hist_eq_propose_allocation(GstBaseTransform *trans, GstQuery *,
                                                    GstQuery *query) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  GstCaps *caps = nullptr;
  gboolean need_pool = FALSE;
  gst_query_parse_allocation(query, &caps, &need_pool);
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps(&info, caps)) return TRUE;
  const guint buffers = self->state->settings.depth + 2;
  if (gst_caps_features_contains(gst_caps_get_features(caps, 0),
                                 GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY)) {
    if (need_pool && self->context) {
      GstBufferPool *pool = gst_cuda_buffer_pool_new(self->context);
      GstStructure *config = gst_buffer_pool_get_config(pool);
      gst_buffer_pool_config_set_params(config, caps, guint(GST_VIDEO_INFO_SIZE(&info)), buffers,
                                        0);
      gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
      guint size = 0;
      if (gst_cuda_hist_eq_configure_pool(pool, config, &size)) {
        gst_query_add_allocation_pool(query, pool, size, buffers, 0);
      } else {
        GST_WARNING_OBJECT(self, "the CUDA buffer pool refused its configuration");
      }
      gst_object_unref(pool);
    }
    return TRUE;
  }
  if (!self->state->pinned) return TRUE;

  GstAllocationParams params;
  gst_allocation_params_init(&params);
  gst_query_add_allocation_param(query, self->state->pinned, &params);
  if (need_pool) {
    GstBufferPool *pool = gst_video_buffer_pool_new();
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, guint(GST_VIDEO_INFO_SIZE(&info)), buffers, 0);
    gst_buffer_pool_config_set_allocator(config, self->state->pinned, &params);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    guint size = 0;
    if (gst_cuda_hist_eq_configure_pool(pool, config, &size)) {
      gst_query_add_allocation_pool(query, pool, size, buffers, 0);
    } else {
      GST_WARNING_OBJECT(self, "the pinned buffer pool refused its configuration");
    }
    gst_object_unref(pool);
  }
  return TRUE;
}

static gboolean gst_cuda_hist_eq_set_info(GstVideoFilter *filter, GstCaps *incaps,
                                          GstVideoInfo *in_info, GstCaps *, GstVideoInfo *) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(filter);
  CudaHistEqState &state = *self->state;
  state.range = histeq_output_range(in_info);
  // The frame interval learned without a frame rate is kept: new caps of the same camera (a
  // new size, say) do not make its frames come faster. A frame rate gained or lost changes the
  // latency the held frames add.
  const GstClockTime latency_before = gst_cuda_hist_eq_added_latency(self);
  GST_OBJECT_LOCK(self);
  self->fps_n = GST_VIDEO_INFO_FPS_N(in_info);
  self->fps_d = GST_VIDEO_INFO_FPS_D(in_info);
  GST_OBJECT_UNLOCK(self);
  if (gst_cuda_hist_eq_added_latency(self) != latency_before)
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
  state.cuda_caps = gst_caps_features_contains(gst_caps_get_features(incaps, 0),
                                               GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  if (!state.cuda_caps) return TRUE;
  // GStreamer's CUDA library reaches the driver only once loaded, and its pool allocates only
  // once its allocator is registered (nvcodec does both too, but it may not be loaded yet).
  if (!gst_cuda_load_library()) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                      ("GStreamer's CUDA library could not load the CUDA driver, so frames in CUDA "
                       "memory cannot be equalized."),
                      ("gst_cuda_load_library failed"));
    return FALSE;
  }
  gst_cuda_memory_init_once();
  // Upstream's context when it has one (nvcodec elements answer the query), else our own.
  if (!gst_cuda_ensure_element_context(GST_ELEMENT(self), state.settings.device_id,
                                       &self->context)) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                      ("No CUDA context for device-id=%d, so frames in CUDA memory cannot be "
                       "equalized.",
                       state.settings.device_id),
                      ("gst_cuda_ensure_element_context failed"));
    return FALSE;
  }
  return state.cuda_frames.use_context(GST_ELEMENT(self), self->context);
}

// Both pads carry the same caps (the element works in place), listed with CUDA memory first:
// neighbours such as cudadownload list system memory first, and frames would never stay on the
// GPU if their order won.
static GstCaps *gst_cuda_hist_eq_transform_caps(GstBaseTransform *, GstPadDirection, GstCaps *caps,
                                                GstCaps *filter) {
  if (gst_caps_is_any(caps)) return gst_caps_ref(caps);
  GstCaps *cuda = gst_caps_new_empty();
  GstCaps *other = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstCapsFeatures *features = gst_caps_get_features(caps, i);
    const bool in_cuda =
        features && gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    gst_caps_append_structure_full(in_cuda ? cuda : other,
                                   gst_structure_copy(gst_caps_get_structure(caps, i)),
                                   features ? gst_caps_features_copy(features) : nullptr);
  }
  gst_caps_append(cuda, other);
  if (!filter) return cuda;
  GstCaps *filtered = gst_caps_intersect_full(cuda, filter, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref(cuda);
  return filtered;
}

static void gst_cuda_hist_eq_set_context(GstElement *element, GstContext *context) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(element);
  GST_OBJECT_LOCK(self);
  const gint device_id = self->settings.device_id;
  GST_OBJECT_UNLOCK(self);
  gst_cuda_handle_set_context(element, context, device_id, &self->context);
  GST_ELEMENT_CLASS(gst_cuda_hist_eq_parent_class)->set_context(element, context);
}

static void gst_cuda_hist_eq_set_property(GObject *object, guint prop_id, const GValue *value,
                                          GParamSpec *pspec) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      self->settings.device_id = g_value_get_int(value);
      break;
    case PROP_DEPTH:
      self->settings.depth = g_value_get_uint(value);
      break;
    case PROP_HISTOGRAM_METHOD:
      self->settings.kernels.histogram = histeq::cuda::HistogramMethod(g_value_get_enum(value));
      break;
    case PROP_SCAN_METHOD:
      self->settings.kernels.scan = histeq::cuda::ScanMethod(g_value_get_enum(value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
  const bool running = self->active_depth != 0;
  GST_OBJECT_UNLOCK(self);
  if (running)
    GST_WARNING_OBJECT(self, "%s changed while running: takes effect when the element next starts",
                       pspec->name);
}

static void gst_cuda_hist_eq_get_property(GObject *object, guint prop_id, GValue *value,
                                          GParamSpec *pspec) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      g_value_set_int(value, self->settings.device_id);
      break;
    case PROP_DEPTH:
      g_value_set_uint(value, self->settings.depth);
      break;
    case PROP_HISTOGRAM_METHOD:
      g_value_set_enum(value, int(self->settings.kernels.histogram));
      break;
    case PROP_SCAN_METHOD:
      g_value_set_enum(value, int(self->settings.kernels.scan));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_hist_eq_finalize(GObject *object) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(object);
  delete self->state;
  gst_clear_object(&self->context);
  G_OBJECT_CLASS(gst_cuda_hist_eq_parent_class)->finalize(object);
}

static void gst_cuda_hist_eq_class_init(GstCudaHistEqClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  const auto flags =
      GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gobject_class->set_property = gst_cuda_hist_eq_set_property;
  gobject_class->get_property = gst_cuda_hist_eq_get_property;
  gobject_class->finalize = gst_cuda_hist_eq_finalize;

  g_object_class_install_property(
      gobject_class, PROP_DEVICE_ID,
      g_param_spec_int("device-id", "Device ID", "CUDA device to run on (-1 = the default device)",
                       -1, G_MAXINT, kDefaultDeviceId, flags));
  g_object_class_install_property(
      gobject_class, PROP_DEPTH,
      g_param_spec_uint("depth", "Depth",
                        "Frames in flight on the GPU; each one past the first adds a frame of "
                        "latency and lets upload, equalization and download overlap (1 = "
                        "synchronous)",
                        1, histeq::cuda::StreamRing::kMaxDepth, kDefaultDepth, flags));
  g_object_class_install_property(
      gobject_class, PROP_HISTOGRAM_METHOD,
      g_param_spec_enum("histogram-method", "Histogram method",
                        "How the luma histogram is counted on the GPU (auto = the fastest on the "
                        "benchmark)",
                        gst_cuda_hist_eq_histogram_method_get_type(),
                        int(histeq::cuda::HistogramMethod::kAuto), flags));
  g_object_class_install_property(
      gobject_class, PROP_SCAN_METHOD,
      g_param_spec_enum("scan-method", "Scan method",
                        "How the histogram is prefix-summed into the CDF (auto = the fastest on "
                        "the benchmark)",
                        gst_cuda_hist_eq_scan_method_get_type(),
                        int(histeq::cuda::ScanMethod::kAuto), flags));

  histeq_add_luma_pad_templates(element_class, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  element_class->set_context = gst_cuda_hist_eq_set_context;
  gst_element_class_set_static_metadata(
      element_class, "CUDA histogram equalization", "Filter/Effect/Video/Hardware",
      "Stretches the contrast of each frame by equalizing its luma histogram on an NVIDIA GPU, "
      "with several frames in flight; chroma is left untouched. Same output as histeq",
      "gst-histeq developers");

  trans_class->start = gst_cuda_hist_eq_start;
  trans_class->stop = gst_cuda_hist_eq_stop;
  trans_class->transform = nullptr;
  trans_class->transform_ip = nullptr;
  trans_class->submit_input_buffer = gst_cuda_hist_eq_submit_input_buffer;
  trans_class->generate_output = gst_cuda_hist_eq_generate_output;
  trans_class->sink_event = gst_cuda_hist_eq_sink_event;
  trans_class->query = gst_cuda_hist_eq_query;
  trans_class->propose_allocation = gst_cuda_hist_eq_propose_allocation;
  trans_class->transform_caps = gst_cuda_hist_eq_transform_caps;
  GST_VIDEO_FILTER_CLASS(klass)->set_info = gst_cuda_hist_eq_set_info;

  gst_type_mark_as_plugin_api(gst_cuda_hist_eq_histogram_method_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(gst_cuda_hist_eq_scan_method_get_type(), GstPluginAPIFlags(0));
  GST_DEBUG_CATEGORY_INIT(gst_cuda_hist_eq_debug, "cudahisteq", 0,
                          "CUDA luma histogram equalization");
}

static void gst_cuda_hist_eq_init(GstCudaHistEq *self) {
  // GObject zero-fills instances; the C++ defaults are set here.
  self->settings = Settings();
  self->state = new CudaHistEqState();
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
