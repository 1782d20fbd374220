// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq: the CPU element. Everything but the equalization itself is GstHistEqBase's.
#include "gsthisteq.h"

#include <memory>
#include <new>

#include "cpu_equalizer.h"
#include "luma_frame.h"

GST_DEBUG_CATEGORY_STATIC(gst_hist_eq_debug);
#define GST_CAT_DEFAULT gst_hist_eq_debug

namespace {

constexpr guint kDefaultThreads = 0;
constexpr guint kMaxThreads = 256;

enum { PROP_0, PROP_N_THREADS };

// Streaming-thread state: only the streaming thread (transform_ip, stop) touches it. One engine
// at a time: bytes for 8-bit formats, 16-bit words for deeper ones.
struct HistEqState {
  std::unique_ptr<histeq::CpuEqualizer> bytes;
  std::unique_ptr<histeq::DeepCpuEqualizer> words;
  guint threads = 0;
};

}  // namespace

struct _GstHistEq {
  GstHistEqBase parent;
  // Guarded by the object lock; copied once per frame by the streaming thread.
  guint n_threads;
  HistEqState *state;
};

G_DEFINE_TYPE(GstHistEq, gst_hist_eq, GST_TYPE_HIST_EQ_BASE)
GST_ELEMENT_REGISTER_DEFINE(histeq, "histeq", GST_RANK_NONE, GST_TYPE_HIST_EQ)

static void gst_hist_eq_set_property(GObject *object, guint prop_id, const GValue *value,
                                     GParamSpec *pspec) {
  GstHistEq *self = GST_HIST_EQ(object);
  switch (prop_id) {
    case PROP_N_THREADS:
      GST_OBJECT_LOCK(self);
      self->n_threads = g_value_get_uint(value);
      GST_OBJECT_UNLOCK(self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
}

static void gst_hist_eq_get_property(GObject *object, guint prop_id, GValue *value,
                                     GParamSpec *pspec) {
  GstHistEq *self = GST_HIST_EQ(object);
  switch (prop_id) {
    case PROP_N_THREADS:
      GST_OBJECT_LOCK(self);
      g_value_set_uint(value, self->n_threads);
      GST_OBJECT_UNLOCK(self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
}

// The engine for the caps' samples, made on the first frame. Its worker pool is rebuilt only
// when n-threads changed since the last frame, and its history stays; a new layout (caps) starts
// one afresh, as the caps change restarts the history anyway.
template <typename Equalizer>
static Equalizer &gst_hist_eq_engine(GstHistEq *self, std::unique_ptr<Equalizer> &engine,
                                     histeq::SampleLayout layout) {
  GST_OBJECT_LOCK(self);
  const guint threads = self->n_threads;
  GST_OBJECT_UNLOCK(self);
  HistEqState &state = *self->state;
  if (engine && (engine->layout().bits != layout.bits || engine->layout().shift != layout.shift))
    engine->set_layout(layout);
  if (!engine) {
    engine = std::make_unique<Equalizer>(threads, layout);
  } else if (state.threads != threads) {
    engine->set_threads(threads);
  } else {
    return *engine;
  }
  state.threads = threads;
  GST_INFO_OBJECT(self, "using %u threads", engine->threads());
  if (engine->threads() < engine->requested_threads())
    GST_WARNING_OBJECT(self,
                       "only %u of %u worker threads could start; frames are split over those",
                       engine->threads(), engine->requested_threads());
  return *engine;
}

// Equalizes the luma of a mapped frame with `engine`, then posts its statistics if asked.
template <typename Equalizer, typename View>
static void gst_hist_eq_equalize(GstHistEq *self, Equalizer &engine, const View &luma,
                                 const HistEqFrame &settings) {
  engine.equalize(luma, settings.range, settings.params, settings.reset);
  gst_hist_eq_base_post_statistics(GST_HIST_EQ_BASE(self), settings, engine.histogram().data(),
                                   int(engine.histogram().size()), engine.restarted());
}

// Overrides GstVideoFilter's transform_ip, which only warns and passes a buffer through when it
// cannot be mapped: a frame that does not match its caps is an error here.
static GstFlowReturn gst_hist_eq_transform_ip(GstBaseTransform *trans, GstBuffer *buffer) {
  GstHistEq *self = GST_HIST_EQ(trans);
  if (GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_GAP)) return GST_FLOW_OK;

  HistEqState &state = *self->state;
  const GstVideoInfo *info = &GST_VIDEO_FILTER(self)->in_info;
  const histeq::SampleLayout layout = histeq_sample_layout(info);
  const HistEqFrame settings = gst_hist_eq_base_begin_frame(GST_HIST_EQ_BASE(self), buffer);
  if (!gst_hist_eq_base_check_grid(GST_HIST_EQ_BASE(self), settings, layout)) return GST_FLOW_ERROR;
  GstVideoFrame frame;
  if (!histeq_map_frame(GST_ELEMENT(self), info, buffer, &frame)) return GST_FLOW_ERROR;
  // The engines allocate as a stream needs (tiles' histories, a packed frame's luma); running out
  // of memory is this element's error, not an exception through GStreamer's C.
  try {
    if (layout.bits > 8) {
      state.bytes.reset();
      gst_hist_eq_equalize(self, gst_hist_eq_engine(self, state.words, layout),
                           histeq_luma_plane16(&frame), settings);
    } else {
      state.words.reset();
      histeq::CpuEqualizer &engine = gst_hist_eq_engine(self, state.bytes, layout);
      switch (histeq_packing(info)) {
        case HistEqPacking::kRgb:
          gst_hist_eq_equalize(self, engine, histeq_rgb_view(&frame, settings.luma_matrix),
                               settings);
          break;
        case HistEqPacking::kPackedYuv:
          gst_hist_eq_equalize(self, engine, histeq_packed_yuv_view(&frame), settings);
          break;
        case HistEqPacking::kLumaPlane:
          gst_hist_eq_equalize(self, engine, histeq_luma_plane(&frame), settings);
          break;
      }
    }
  } catch (const std::bad_alloc &) {
    gst_video_frame_unmap(&frame);
    state.bytes.reset();
    state.words.reset();
    GST_ELEMENT_ERROR(
        self, RESOURCE, NO_SPACE_LEFT,
        ("histeq ran out of memory equalizing a %dx%d %s frame%s.", GST_VIDEO_INFO_WIDTH(info),
         GST_VIDEO_INFO_HEIGHT(info), GST_VIDEO_INFO_NAME(info),
         settings.params.mode == histeq::Mode::kClahe ? " in CLAHE mode; fewer tiles need less"
                                                      : ""),
        ("std::bad_alloc in the CPU engine"));
    return GST_FLOW_ERROR;
  }
  gst_video_frame_unmap(&frame);
  return GST_FLOW_OK;
}

// No idle worker pool is kept while the element is stopped.
static gboolean gst_hist_eq_stop(GstBaseTransform *trans) {
  GST_HIST_EQ(trans)->state->bytes.reset();
  GST_HIST_EQ(trans)->state->words.reset();
  return TRUE;
}

static void gst_hist_eq_finalize(GObject *object) {
  delete GST_HIST_EQ(object)->state;
  G_OBJECT_CLASS(gst_hist_eq_parent_class)->finalize(object);
}

static void gst_hist_eq_class_init(GstHistEqClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = gst_hist_eq_set_property;
  gobject_class->get_property = gst_hist_eq_get_property;
  gobject_class->finalize = gst_hist_eq_finalize;

  g_object_class_install_property(
      gobject_class, PROP_N_THREADS,
      g_param_spec_uint(
          "n-threads", "Threads",
          "Worker threads that share the rows of large frames (0 = one per core this process may "
          "use: its CPU affinity and its cgroup's CPU limit)",
          0, kMaxThreads, kDefaultThreads,
          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)));

  histeq_add_pad_templates(element_class, HISTEQ_LUMA_FORMATS ", " HISTEQ_DEEP_LUMA_FORMATS
                                                              ", " HISTEQ_PACKED_YUV_FORMATS
                                                              ", " HISTEQ_RGB_FORMATS);
  gst_element_class_set_static_metadata(
      element_class, "Histogram equalization", "Filter/Effect/Video",
      "Stretches the contrast of each frame by equalizing its luma histogram on the CPU; chroma "
      "is left untouched (packed RGB: R, G and B scaled alike, so hue is kept)",
      "gst-histeq developers");

  // In place only: GstVideoFilter's copying transform is never wanted.
  trans_class->transform = nullptr;
  trans_class->transform_ip = gst_hist_eq_transform_ip;
  trans_class->stop = gst_hist_eq_stop;

  GST_DEBUG_CATEGORY_INIT(gst_hist_eq_debug, "histeq", 0, "CPU luma histogram equalization");
}

static void gst_hist_eq_init(GstHistEq *self) {
  self->n_threads = kDefaultThreads;
  self->state = new HistEqState();
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
