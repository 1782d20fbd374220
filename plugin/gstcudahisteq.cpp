// SPDX-License-Identifier: LGPL-2.1-or-later
// cudahisteq: every frame goes through one GPU engine (CudaFrameEngine), in system memory or in
// GstCudaMemory. submit_input_buffer maps a frame and enqueues its luma (a plane, or packed YUV
// or RGB pixels) on the GPU; the output task (OutputTask) takes the frames back in order and
// pushes each one as soon as the GPU is done with it. The streaming thread only waits when the
// engine is full, so the next frames' uploads are already queued on the GPU behind the ones before
// them, and no frame waits for the next one to arrive.
#include "gstcudahisteq.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "cuda_engine.h"
#include "cuda_enums.h"
#include "frame_engine.h"
#include "frame_qos.h"
#include "luma_frame.h"
#include "output_queue.h"
#include "output_task.h"
#include "pinned_allocator.h"

// Shared with the output task (output_task.cpp).
GST_DEBUG_CATEGORY(gst_cuda_hist_eq_debug);
#define GST_CAT_DEFAULT gst_cuda_hist_eq_debug

namespace {

constexpr gint kDefaultDeviceId = -1;
constexpr guint kDefaultDepth = 2;

enum {
  PROP_0,
  PROP_CUDA_DEVICE_ID,
  PROP_DEVICE_ID,
  PROP_DEPTH,
  PROP_HISTOGRAM_METHOD,
  PROP_SCAN_METHOD
};

struct Settings {
  gint device_id = kDefaultDeviceId;
  guint depth = kDefaultDepth;
  histeq::cuda::KernelConfig kernels;
};

// How the output task finishes a frame: the engine hands it back, then it is unmapped.
class ElementFinisher final : public FrameFinisher {
 public:
  ElementFinisher(GstHistEqBase *element, CudaFrameEngine *engine)
      : element_(element), engine_(engine) {}
  GstFlowReturn finish(PendingFrame &frame, histeq::cuda::FrameReport *report) override {
    const GstFlowReturn ret = engine_->wait(report);
    if (frame.mapped) gst_video_frame_unmap(&frame.frame);
    frame.mapped = false;
    return ret;
  }
  void post_statistics(const PendingFrame &frame,
                       const histeq::cuda::FrameReport &report) override {
    gst_hist_eq_base_post_statistics(element_, frame.settings, report.histogram.data(),
                                     int(report.histogram.size()), report.restarted);
  }

 private:
  GstHistEqBase *element_;
  CudaFrameEngine *engine_;
};

// Created with the element. Between start() and stop() the streaming thread submits to the
// engine while the output task waits on it (one submitter and one waiter), and the task's queue
// carries the frames from one thread to the other, in order. GAP buffers pass through the same
// queue, untouched.
struct CudaHistEqState {
  explicit CudaHistEqState(GstBaseTransform *trans)
      : engine(GST_VIDEO_FILTER(trans)),
        finisher(GST_HIST_EQ_BASE(trans), &engine),
        output(GST_BASE_TRANSFORM_SRC_PAD(trans), &finisher) {}

  Settings settings;  // as of start(): depth and kernels cannot change mid-stream
  CudaFrameEngine engine;
  ElementFinisher finisher;
  OutputTask output;
  GstAllocator *pinned = nullptr;  // offered upstream while started
  bool cuda_caps = false;          // negotiated video/x-raw(memory:CUDAMemory)
  bool negotiated = false;         // the last CAPS event was accepted
  FrameQos qos;
  bool discont_after_drop = false;  // QoS dropped the frame before the next one
};

}  // namespace

struct _GstCudaHistEq {
  GstHistEqBase parent;
  // Guarded by the object lock: the properties, and whether the element is started (a
  // property set then takes effect at the next start).
  Settings settings;
  bool started;
  CudaHistEqState *state;
  // The pipeline's GstCudaContext, shared with nvcodec elements through context queries and
  // set_context (GStreamer's own locking of those; read by the streaming thread once found).
  GstCudaContext *context;
};

G_DEFINE_TYPE(GstCudaHistEq, gst_cuda_hist_eq, GST_TYPE_HIST_EQ_BASE)
GST_ELEMENT_REGISTER_DEFINE(cudahisteq, "cudahisteq", GST_RANK_NONE, GST_TYPE_CUDA_HIST_EQ)

static void gst_cuda_hist_eq_release(PendingFrame &pending) {
  if (pending.mapped) gst_video_frame_unmap(&pending.frame);
  pending.mapped = false;
  gst_buffer_unref(pending.buffer);
  pending.buffer = nullptr;
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
  const int device = state.settings.device_id < 0 ? 0 : state.settings.device_id;
  if (device >= count) {
    GST_ELEMENT_ERROR(
        self, RESOURCE, NOT_FOUND,
        ("CUDA device %d does not exist: this machine has %d (cuda-device-id 0 to %d).", device,
         count, count - 1),
        ("cuda-device-id=%d", state.settings.device_id));
    return FALSE;
  }
  if (!state.engine.start(device, int(state.settings.depth), state.settings.kernels)) return FALSE;
  state.pinned = GST_ALLOCATOR(gst_object_ref_sink(gst_hist_eq_pinned_allocator_new()));
  state.qos.reset();
  state.negotiated = false;
  state.output.forget_position();
  GST_OBJECT_LOCK(self);
  self->started = true;
  GST_OBJECT_UNLOCK(self);
  GST_INFO_OBJECT(self, "CUDA device %d, %u slots, up to %d frames in flight", device,
                  state.settings.depth, state.engine.capacity());
  return TRUE;
}

// Streaming has stopped (the base class holds the sink pad's stream lock), so the frames left
// in flight are the element's alone to wait for and release.
static gboolean gst_cuda_hist_eq_stop(GstBaseTransform *trans) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  CudaHistEqState &state = *self->state;
  state.output.stop();
  state.engine.discard();
  for (PendingFrame &pending : state.output.queue().take_all()) gst_cuda_hist_eq_release(pending);
  state.engine.stop();
  state.cuda_caps = false;
  gst_clear_object(&self->context);
  gst_clear_object(&state.pinned);
  state.discont_after_drop = false;
  GST_OBJECT_LOCK(self);
  self->started = false;
  GST_OBJECT_UNLOCK(self);
  return TRUE;
}

// Blocks until every frame submitted so far has left (serialized events such as EOS, a caps
// change or a GAP; reconfigure; drain queries; a new CUDA context), and returns how the last
// pushes went.
static GstFlowReturn gst_cuda_hist_eq_drain(GstCudaHistEq *self) {
  return self->state->output.queue().wait_until_empty();
}

// Moves the engine into the context of upstream's memory, unless cuda-device-id names another
// GPU than the one that memory lives on. The frames in flight leave first.
static GstFlowReturn gst_cuda_hist_eq_adopt_context(GstCudaHistEq *self, GstCudaContext *owner) {
  CudaHistEqState &state = *self->state;
  const GstFlowReturn ret = gst_cuda_hist_eq_drain(self);
  if (ret != GST_FLOW_OK) return ret;
  const guint device = histeq_cuda_context_device(owner);
  if (state.settings.device_id >= 0 && guint(state.settings.device_id) != device) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED,
                      ("The frames are in the memory of CUDA device %u, but cudahisteq is set to "
                       "cuda-device-id=%d. Set cuda-device-id=%u (or -1), or move the frames with "
                       "cudadownload ! cudaupload between the two.",
                       device, state.settings.device_id, device),
                      ("GstCudaMemory of %" GST_PTR_FORMAT, owner));
    return GST_FLOW_ERROR;
  }
  return state.engine.use_context(owner) ? GST_FLOW_OK : GST_FLOW_ERROR;
}

// After a QoS drop the next frame out is marked DISCONT (writable `buffer`). Marked after the
// frame's settings are taken: upstream's DISCONT restarts the history, a drop of ours does not,
// as in histeq, where the base class marks its output.
static void gst_cuda_hist_eq_mark_discont(GstCudaHistEq *self, GstBuffer *buffer) {
  if (!self->state->discont_after_drop) return;
  GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DISCONT);
  self->state->discont_after_drop = false;
}

// The frame's settings from the base class (`buffer` writable), or an error for a CLAHE grid
// too large for the samples' depth.
static gboolean gst_cuda_hist_eq_begin_frame(GstCudaHistEq *self, GstBuffer *buffer,
                                             HistEqFrame *frame) {
  *frame = gst_hist_eq_base_begin_frame(GST_HIST_EQ_BASE(self), buffer);
  if (!gst_hist_eq_base_check_grid(GST_HIST_EQ_BASE(self), *frame,
                                   histeq_sample_layout(&GST_VIDEO_FILTER(self)->in_info)))
    return FALSE;
  gst_cuda_hist_eq_mark_discont(self, buffer);
  return TRUE;
}

// A frame in GstCudaMemory: equalized in place on the device, in the memory's own context,
// once the engine has room.
static GstFlowReturn gst_cuda_hist_eq_submit_cuda_memory(GstCudaHistEq *self, GstBuffer *input) {
  CudaHistEqState &state = *self->state;
  GstCudaContext *owner = GST_CUDA_MEMORY_CAST(gst_buffer_peek_memory(input, 0))->context;
  GstFlowReturn ret = GST_FLOW_OK;
  if (owner != state.engine.context()) ret = gst_cuda_hist_eq_adopt_context(self, owner);
  if (ret == GST_FLOW_OK)
    ret = state.output.queue().wait_for_room([&] { return !state.engine.full(); });
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref(input);
    return ret;
  }
  PendingFrame pending;
  pending.buffer = gst_buffer_make_writable(input);
  if (!gst_cuda_hist_eq_begin_frame(self, pending.buffer, &pending.settings)) {
    gst_buffer_unref(pending.buffer);
    return GST_FLOW_ERROR;
  }
  ret = state.engine.submit_cuda_memory(&GST_VIDEO_FILTER(self)->in_info, pending.buffer,
                                        pending.settings);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref(pending.buffer);
    return ret;
  }
  GST_LOG_OBJECT(self, "frame %" GST_TIME_FORMAT " submitted in CUDA memory, %d in flight",
                 GST_TIME_ARGS(GST_BUFFER_PTS(pending.buffer)), state.engine.in_flight());
  state.output.queue().append(pending);
  return GST_FLOW_OK;
}

// A frame in system memory: mapped, then its luma goes to the engine once it has room.
static GstFlowReturn gst_cuda_hist_eq_submit_system_memory(GstCudaHistEq *self, GstBuffer *input) {
  CudaHistEqState &state = *self->state;
  PendingFrame pending;
  pending.buffer = gst_buffer_make_writable(input);
  if (!histeq_map_frame(GST_ELEMENT(self), &GST_VIDEO_FILTER(self)->in_info, pending.buffer,
                        &pending.frame)) {
    gst_buffer_unref(pending.buffer);
    return GST_FLOW_ERROR;
  }
  pending.mapped = true;
  GstFlowReturn ret = state.output.queue().wait_for_room([&] { return !state.engine.full(); });
  if (ret == GST_FLOW_OK && !gst_cuda_hist_eq_begin_frame(self, pending.buffer, &pending.settings))
    ret = GST_FLOW_ERROR;
  if (ret == GST_FLOW_OK) ret = state.engine.submit(&pending.frame, pending.settings);
  if (ret != GST_FLOW_OK) {
    gst_cuda_hist_eq_release(pending);
    return ret;
  }
  GST_LOG_OBJECT(self, "frame %" GST_TIME_FORMAT " submitted, %d in flight",
                 GST_TIME_ARGS(GST_BUFFER_PTS(pending.buffer)), state.engine.in_flight());
  state.output.queue().append(pending);
  return GST_FLOW_OK;
}

// Does what the base class's submit would (renegotiation, QoS) in the order frames in flight
// need; a DISCONT from upstream stays on the buffer itself, so the flag argument is not needed.
static GstFlowReturn gst_cuda_hist_eq_submit_input_buffer(GstBaseTransform *trans, gboolean,
                                                          GstBuffer *input) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  CudaHistEqState &state = *self->state;
  GST_LOG_OBJECT(self, "frame %" GST_TIME_FORMAT " in", GST_TIME_ARGS(GST_BUFFER_PTS(input)));
  // Downstream's answer to the last push goes back upstream with the next frame. After EOS or
  // an error the frame is refused; after NOT_LINKED it is taken and offered again, as a
  // relinked pad would get it.
  const GstFlowReturn taken = state.output.queue().flow();
  if (!keeps_pushing(taken)) {
    gst_buffer_unref(input);
    return taken;
  }
  // Downstream asked for new caps (a RECONFIGURE event, as a relinked pad sends): the frames
  // in flight leave first, under their caps. This is the only place the caps are renegotiated
  // for a RECONFIGURE: the base class's own submit, which would do it with frames in flight, is
  // not called (the flag raised after this check waits for the next frame).
  if (gst_pad_needs_reconfigure(GST_BASE_TRANSFORM_SRC_PAD(trans))) {
    GstFlowReturn ret = gst_cuda_hist_eq_drain(self);
    if (ret == GST_FLOW_NOT_LINKED) ret = GST_FLOW_OK;
    if (ret == GST_FLOW_OK && !gst_base_transform_reconfigure(trans))
      ret = GST_PAD_IS_FLUSHING(GST_BASE_TRANSFORM_SRC_PAD(trans)) ? GST_FLOW_FLUSHING
                                                                   : GST_FLOW_NOT_NEGOTIATED;
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref(input);
      return ret;
    }
  }
  // Frames under caps that were refused (or before any) are refused too. The base class's own
  // check never applied here: with neither transform function set it counts as passthrough.
  if (!state.negotiated) {
    gst_buffer_unref(input);
    return GST_PAD_IS_FLUSHING(GST_BASE_TRANSFORM_SRC_PAD(trans)) ? GST_FLOW_FLUSHING
                                                                  : GST_FLOW_NOT_NEGOTIATED;
  }
  // QoS (the qos property): a frame the sink could only show late is dropped with a QoS
  // message, and the next frame out is marked DISCONT.
  FrameQos::Lateness lateness;
  if (gst_base_transform_is_qos_enabled(trans) && trans->segment.format == GST_FORMAT_TIME &&
      state.qos.late(
          gst_segment_to_running_time(&trans->segment, GST_FORMAT_TIME, GST_BUFFER_PTS(input)),
          &lateness)) {
    GST_DEBUG_OBJECT(self, "QoS dropped a late frame at running time %" GST_TIME_FORMAT,
                     GST_TIME_ARGS(lateness.running_time));
    gst_element_post_message(GST_ELEMENT(self),
                             state.qos.dropped(GST_OBJECT(self), lateness, trans->segment,
                                               GST_BUFFER_PTS(input), GST_BUFFER_DURATION(input)));
    state.discont_after_drop = true;
    gst_buffer_unref(input);
    return taken == GST_FLOW_OK ? GST_BASE_TRANSFORM_FLOW_DROPPED : taken;
  }
  state.qos.taken();
  // The sink pad's POSITION (the base class's answer) is the end of the last frame taken in.
  const GstClockTime end = histeq_buffer_end(input);
  if (GST_CLOCK_TIME_IS_VALID(end) && trans->segment.format == GST_FORMAT_TIME)
    trans->segment.position = end;

  // At strength 0 (and nothing to keep) frames pass untouched, behind the ones in flight.
  gst_hist_eq_base_prepare(GST_HIST_EQ_BASE(self), input);
  if (GST_BUFFER_FLAG_IS_SET(input, GST_BUFFER_FLAG_GAP) ||
      gst_base_transform_is_passthrough(trans)) {
    PendingFrame untouched;
    if (state.discont_after_drop) input = gst_buffer_make_writable(input);
    gst_cuda_hist_eq_mark_discont(self, input);
    untouched.buffer = input;
    untouched.done = true;
    state.output.queue().append(untouched);
    return taken;
  }
  // CUDAMemory caps do not promise CUDA memory; anything else is mapped in system memory.
  const GstFlowReturn ret = state.cuda_caps && gst_buffer_n_memory(input) > 0 &&
                                    gst_is_cuda_memory(gst_buffer_peek_memory(input, 0))
                                ? gst_cuda_hist_eq_submit_cuda_memory(self, input)
                                : gst_cuda_hist_eq_submit_system_memory(self, input);
  return ret == GST_FLOW_OK ? taken : ret;
}

// Frames leave from the output task, never from the chain function.
static GstFlowReturn gst_cuda_hist_eq_generate_output(GstBaseTransform *, GstBuffer **outbuf) {
  *outbuf = nullptr;
  return GST_FLOW_OK;
}

static gboolean gst_cuda_hist_eq_sink_event(GstBaseTransform *trans, GstEvent *event) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  CudaHistEqState &state = *self->state;
  // A flush drops the frames in flight: FLUSH_START wakes a streaming thread waiting for room
  // and has the output task drop every frame that came before it; after FLUSH_STOP new frames
  // go out again (it does not wait for the dropping, which may be its own thread's job when a
  // flushing seek comes from downstream's streaming thread). Any other serialized event keeps its
  // place behind the frames that came before it: they leave first (EOS, a caps change, but also a
  // GAP event, a new stream or a tag, which would otherwise overtake them).
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_START:
      state.output.queue().set_flushing(true);
      break;
    case GST_EVENT_FLUSH_STOP:
      state.output.queue().set_flushing(false);
      state.qos.reset();
      state.discont_after_drop = false;
      state.output.forget_position();
      break;
    case GST_EVENT_EOS: {
      // No frame follows to carry a failure of the last pushes upstream: it is posted here.
      const GstFlowReturn ret = gst_cuda_hist_eq_drain(self);
      if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS)
        GST_ELEMENT_ERROR(self, STREAM, FAILED,
                          ("Downstream refused the last equalized frames (%s), so the stream "
                           "ended without them.",
                           gst_flow_get_name(ret)),
                          ("push returned %s before EOS", gst_flow_get_name(ret)));
      break;
    }
    default:
      if (GST_EVENT_IS_SERIALIZED(event)) gst_cuda_hist_eq_drain(self);
      break;
  }
  const bool caps = GST_EVENT_TYPE(event) == GST_EVENT_CAPS;
  const gboolean handled =
      GST_BASE_TRANSFORM_CLASS(gst_cuda_hist_eq_parent_class)->sink_event(trans, event);
  if (caps) state.negotiated = handled;
  return handled;
}

// The sink's QOS events reach our own QoS (the frames are pushed from the output task, which the
// base class's QoS does not count), and go on upstream.
static gboolean gst_cuda_hist_eq_src_event(GstBaseTransform *trans, GstEvent *event) {
  if (GST_EVENT_TYPE(event) == GST_EVENT_QOS) {
    double proportion = 1.0;
    GstClockTimeDiff diff = 0;
    GstClockTime timestamp = GST_CLOCK_TIME_NONE;
    gst_event_parse_qos(event, nullptr, &proportion, &diff, &timestamp);
    GST_CUDA_HIST_EQ(trans)->state->qos.report(proportion, diff, timestamp);
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_hist_eq_parent_class)->src_event(trans, event);
}

// A DRAIN query pushes the frames in flight. The element holds no frame back past the time the
// GPU takes, so it adds no latency to the LATENCY query (the base class forwards it as is). A
// POSITION query at the src pad is the end of the last frame sent out (in stream time); before
// any, and at the sink pad, the base class answers.
static gboolean gst_cuda_hist_eq_query(GstBaseTransform *trans, GstPadDirection direction,
                                       GstQuery *query) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query(GST_ELEMENT(self), query, self->context))
    return TRUE;
  // Upstream wants its buffers back (a decoder before it reuses or frees them): the frames in
  // flight leave first, then the query goes on downstream.
  // An ALLOCATION query drains too: the base class renegotiates the src caps before answering
  // it when downstream asked for that, and frames in flight must leave under their own caps.
  if (direction == GST_PAD_SINK &&
      (GST_QUERY_TYPE(query) == GST_QUERY_DRAIN || GST_QUERY_TYPE(query) == GST_QUERY_ALLOCATION) &&
      gst_cuda_hist_eq_drain(self) != GST_FLOW_OK)
    return FALSE;
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_POSITION) {
    GstFormat format = GST_FORMAT_UNDEFINED;
    gst_query_parse_position(query, &format, nullptr);
    const GstClockTime out = self->state->output.position();
    if (format == GST_FORMAT_TIME && trans->segment.format == GST_FORMAT_TIME &&
        GST_CLOCK_TIME_IS_VALID(out)) {
      gst_query_set_position(
          query, format, gint64(gst_segment_to_stream_time(&trans->segment, GST_FORMAT_TIME, out)));
      return TRUE;
    }
  }
  return GST_BASE_TRANSFORM_CLASS(gst_cuda_hist_eq_parent_class)->query(trans, direction, query);
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

// The formats GStreamer's CUDA allocator lays out (gstcudamemory.c in 1.22 and 1.24); it aborts
// the process on any other when the pool allocates, so no pool is offered for those: an upstream
// that has such frames in CUDA memory allocates them itself.
static bool gst_cuda_hist_eq_cuda_pool_lays_out(GstVideoFormat format) {
  switch (format) {
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_NV21:
    case GST_VIDEO_FORMAT_Y42B:
    case GST_VIDEO_FORMAT_Y444:
    case GST_VIDEO_FORMAT_I420_10LE:
    case GST_VIDEO_FORMAT_I422_10LE:
    case GST_VIDEO_FORMAT_I422_12LE:
    case GST_VIDEO_FORMAT_Y444_16LE:
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
    case GST_VIDEO_FORMAT_YUY2:
    case GST_VIDEO_FORMAT_UYVY:
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      return true;
    default:
      return false;
  }
}

// Configures `pool` (taken) for `buffers` frames of `frame_size` bytes of `caps`, with video
// meta, from `allocator` where given, and adds it to `query`; `what` names it where it refuses.
static void gst_cuda_hist_eq_offer_pool(GstCudaHistEq *self, GstQuery *query, GstBufferPool *pool,
                                        GstCaps *caps, guint frame_size, guint buffers,
                                        GstAllocator *allocator, const char *what) {
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, frame_size, buffers, 0);
  if (allocator) {
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    gst_buffer_pool_config_set_allocator(config, allocator, &params);
  }
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  guint size = 0;
  if (gst_cuda_hist_eq_configure_pool(pool, config, &size)) {
    gst_query_add_allocation_pool(query, pool, size, buffers, 0);
  } else {
    GST_WARNING_OBJECT(self, "the %s buffer pool refused its configuration", what);
  }
  gst_object_unref(pool);
}

// Crop metadata travels on with the frame (the element works in place and equalizes only the
// rectangle), so upstream may crop by metadata only where downstream shows the rectangle too.
static bool gst_cuda_hist_eq_downstream_takes_crop_meta(GstBaseTransform *trans, GstCaps *caps) {
  GstQuery *query = gst_query_new_allocation(caps, FALSE);
  const bool takes = gst_pad_peer_query(GST_BASE_TRANSFORM_SRC_PAD(trans), query) &&
                     gst_query_find_allocation_meta(query, GST_VIDEO_CROP_META_API_TYPE, nullptr);
  gst_query_unref(query);
  return takes;
}

// Offers upstream a pool of page-locked buffers (with GstVideoMeta), enough for the frames in
// flight (two per slot) plus the ones being filled, so frames are DMA'd without a staging copy. It
// has no maximum: the element works in place, so these buffers travel on downstream, where an
// encoder may hold dozens of them, and a cap would stall upstream. Not chained up: the parent would
// forward the query downstream before negotiation, or put its own system-memory pool first.
static gboolean gst_cuda_hist_eq_propose_allocation(GstBaseTransform *trans, GstQuery *,
                                                    GstQuery *query) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(trans);
  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  GstCaps *caps = nullptr;
  gboolean need_pool = FALSE;
  gst_query_parse_allocation(query, &caps, &need_pool);
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps(&info, caps)) return TRUE;
  if (gst_cuda_hist_eq_downstream_takes_crop_meta(trans, caps))
    gst_query_add_allocation_meta(query, GST_VIDEO_CROP_META_API_TYPE, nullptr);
  const guint buffers = 2 * self->state->settings.depth + 2;
  if (gst_caps_features_contains(gst_caps_get_features(caps, 0),
                                 GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY)) {
    if (!need_pool || !self->context) return TRUE;
    const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
    if (!gst_cuda_hist_eq_cuda_pool_lays_out(format)) {
      GST_INFO_OBJECT(self,
                      "no CUDA buffer pool offered for %s: GStreamer's CUDA allocator "
                      "does not lay it out",
                      gst_video_format_to_string(format));
      return TRUE;
    }
    gst_cuda_hist_eq_offer_pool(self, query, gst_cuda_buffer_pool_new(self->context), caps,
                                guint(GST_VIDEO_INFO_SIZE(&info)), buffers, nullptr, "CUDA");
    return TRUE;
  }
  if (!self->state->pinned) return TRUE;

  GstAllocationParams params;
  gst_allocation_params_init(&params);
  gst_query_add_allocation_param(query, self->state->pinned, &params);
  if (need_pool) {
    gst_cuda_hist_eq_offer_pool(self, query, gst_video_buffer_pool_new(), caps,
                                guint(GST_VIDEO_INFO_SIZE(&info)), buffers, self->state->pinned,
                                "pinned");
  }
  return TRUE;
}

static gboolean gst_cuda_hist_eq_configure(GstHistEqBase *base, GstCaps *incaps, GstVideoInfo *) {
  GstCudaHistEq *self = GST_CUDA_HIST_EQ(base);
  CudaHistEqState &state = *self->state;
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
                      ("No CUDA context for cuda-device-id=%d, so frames in CUDA memory cannot be "
                       "equalized.",
                       state.settings.device_id),
                      ("gst_cuda_ensure_element_context failed"));
    return FALSE;
  }
  // The engine moves into that context (after the frames in flight, which the CAPS event
  // drained), so frames in its memory are the engine's to equalize in place.
  return state.engine.use_context(self->context);
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
    case PROP_CUDA_DEVICE_ID:
      self->settings.device_id = g_value_get_int(value);
      break;
    case PROP_DEVICE_ID:
      GST_WARNING_OBJECT(self, "device-id is deprecated: use cuda-device-id");
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
  const bool running = self->started;
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
    case PROP_CUDA_DEVICE_ID:
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
      gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int("cuda-device-id", "CUDA device ID",
                       "CUDA device to run on (-1 = the default device, or the one the frames "
                       "in CUDA memory are on)",
                       -1, G_MAXINT, kDefaultDeviceId, flags));
  g_object_class_install_property(
      gobject_class, PROP_DEVICE_ID,
      g_param_spec_int("device-id", "Device ID (deprecated)",
                       "Deprecated synonym of cuda-device-id, kept for one release", -1, G_MAXINT,
                       kDefaultDeviceId, GParamFlags(flags | G_PARAM_DEPRECATED)));
  g_object_class_install_property(
      gobject_class, PROP_DEPTH,
      g_param_spec_uint("depth", "Depth",
                        "Slots on the GPU, each with its own CUDA streams and an input and an "
                        "output plane: a slot uploads a frame while it downloads the one before, "
                        "and from 2 slots on one frame's equalization also overlaps another's "
                        "copies. Each slot takes a second frame queued behind its own. Frames "
                        "leave as soon as they are done, so depth adds no latency",
                        1, histeq::cuda::FrameEngine::kMaxDepth, kDefaultDepth, flags));
  g_object_class_install_property(
      gobject_class, PROP_HISTOGRAM_METHOD,
      g_param_spec_enum("histogram-method", "Histogram method",
                        "How the histogram of an 8-bit luma plane is counted on the GPU (auto = "
                        "the fastest on the benchmark; packed YUV and RGB always take the single "
                        "kernel, 10 to 16-bit luma its own kernels)",
                        gst_cuda_hist_eq_histogram_method_get_type(),
                        int(histeq::cuda::HistogramMethod::kAuto), flags));
  g_object_class_install_property(
      gobject_class, PROP_SCAN_METHOD,
      g_param_spec_enum("scan-method", "Scan method",
                        "How the histogram of an 8-bit luma plane is prefix-summed into the CDF "
                        "(auto = the fastest on the benchmark; packed YUV and RGB always take the "
                        "single kernel, 10 to 16-bit luma its own kernels)",
                        gst_cuda_hist_eq_scan_method_get_type(),
                        int(histeq::cuda::ScanMethod::kAuto), flags));

  histeq_add_pad_templates(element_class,
                           HISTEQ_LUMA_FORMATS ", " HISTEQ_DEEP_LUMA_FORMATS
                                               ", " HISTEQ_PACKED_YUV_FORMATS
                                               ", " HISTEQ_RGB_FORMATS,
                           GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  element_class->set_context = gst_cuda_hist_eq_set_context;
  gst_element_class_set_static_metadata(
      element_class, "CUDA histogram equalization", "Filter/Effect/Video/Hardware",
      "Stretches the contrast of each frame by equalizing its luma histogram on an NVIDIA GPU, "
      "with several frames in flight; chroma is left untouched (packed RGB: R, G and B scaled "
      "alike, so hue is kept). Same output as histeq",
      "gst-histeq developers");

  trans_class->start = gst_cuda_hist_eq_start;
  trans_class->stop = gst_cuda_hist_eq_stop;
  trans_class->transform = nullptr;
  trans_class->transform_ip = nullptr;
  // Its own submit prepares each frame, after renegotiation and QoS.
  trans_class->before_transform = nullptr;
  trans_class->submit_input_buffer = gst_cuda_hist_eq_submit_input_buffer;
  trans_class->generate_output = gst_cuda_hist_eq_generate_output;
  trans_class->sink_event = gst_cuda_hist_eq_sink_event;
  trans_class->src_event = gst_cuda_hist_eq_src_event;
  trans_class->query = gst_cuda_hist_eq_query;
  trans_class->propose_allocation = gst_cuda_hist_eq_propose_allocation;
  trans_class->transform_caps = gst_cuda_hist_eq_transform_caps;
  GST_HIST_EQ_BASE_CLASS(klass)->configure = gst_cuda_hist_eq_configure;

  gst_type_mark_as_plugin_api(gst_cuda_hist_eq_histogram_method_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(gst_cuda_hist_eq_scan_method_get_type(), GstPluginAPIFlags(0));
  GST_DEBUG_CATEGORY_INIT(gst_cuda_hist_eq_debug, "cudahisteq", 0,
                          "CUDA luma histogram equalization");
}

static void gst_cuda_hist_eq_init(GstCudaHistEq *self) {
  // GObject zero-fills instances; the C++ defaults are set here.
  self->settings = Settings();
  // The output task lives while the src pad is active, like a queue's.
  self->state = new CudaHistEqState(GST_BASE_TRANSFORM(self));
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
