// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gsthisteqbase.h"

#include "clahe.h"
#include "frame_stats.h"
#include "luma_frame.h"

GST_DEBUG_CATEGORY_STATIC(gst_hist_eq_base_debug);
#define GST_CAT_DEFAULT gst_hist_eq_base_debug

namespace {

enum {
  PROP_0,
  PROP_STRENGTH,
  PROP_CLIP_LIMIT,
  PROP_SMOOTHING,
  PROP_SCENE_THRESHOLD,
  PROP_POST_MESSAGES,
  PROP_LUMA_MATRIX,
  PROP_MODE,
  PROP_TILES_X,
  PROP_TILES_Y,
};

constexpr histeq::LumaStandard kDefaultLumaMatrix = histeq::LumaStandard::kBt709;

struct HistEqBaseState {
  // Guarded by the object lock.
  histeq::Settings settings;
  histeq::LumaStandard luma_matrix = kDefaultLumaMatrix;
  bool restart = true;  // the next frame equalized restarts the history
  // Streaming thread only (set_info, then every frame).
  histeq::OutputRange range = histeq::full_range(8);
};

}  // namespace

struct GstHistEqBasePrivate {
  HistEqBaseState *state;
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(GstHistEqBase, gst_hist_eq_base, GST_TYPE_VIDEO_FILTER)

GType gst_hist_eq_mode_get_type() {
  static const GEnumValue values[] = {
      {int(histeq::Mode::kGlobal), "One mapping for the whole frame", "global"},
      {int(histeq::Mode::kClahe),
       "Contrast-limited adaptive equalization: a mapping per tile, blended between tiles",
       "clahe"},
      {0, nullptr, nullptr}};
  static const GType type = g_enum_register_static("GstHistEqMode", values);
  return type;
}

GType gst_hist_eq_luma_matrix_get_type() {
  static const GEnumValue values[] = {
      {int(histeq::LumaStandard::kBt709), "ITU-R BT.709 (HD)", "bt709"},
      {int(histeq::LumaStandard::kBt601), "ITU-R BT.601 (SD)", "bt601"},
      {int(histeq::LumaStandard::kBt2020), "ITU-R BT.2020 (UHD)", "bt2020"},
      {0, nullptr, nullptr}};
  static const GType type = g_enum_register_static("GstHistEqLumaMatrix", values);
  return type;
}

namespace {

HistEqBaseState &state_of(GstHistEqBase *base) {
  return *static_cast<GstHistEqBasePrivate *>(gst_hist_eq_base_get_instance_private(base))->state;
}

}  // namespace

void gst_hist_eq_base_restart_history(GstHistEqBase *base) {
  GST_OBJECT_LOCK(base);
  state_of(base).restart = true;
  GST_OBJECT_UNLOCK(base);
}

void gst_hist_eq_base_prepare(GstHistEqBase *base, GstBuffer *buffer) {
  GstBaseTransform *trans = GST_BASE_TRANSFORM(base);
  if (trans->segment.format == GST_FORMAT_TIME) {
    const GstClockTime stream_time =
        gst_segment_to_stream_time(&trans->segment, GST_FORMAT_TIME, GST_BUFFER_PTS(buffer));
    if (GST_CLOCK_TIME_IS_VALID(stream_time)) gst_object_sync_values(GST_OBJECT(base), stream_time);
  }
  GST_OBJECT_LOCK(base);
  HistEqBaseState &state = state_of(base);
  const histeq::Params params = histeq::to_params(state.settings);
  const bool passthrough = params.is_identity() && !params.keep_history;
  // The engines see no passthrough frame, so their history would skip it.
  if (passthrough) state.restart = true;
  GST_OBJECT_UNLOCK(base);
  if (passthrough != bool(gst_base_transform_is_passthrough(trans))) {
    GST_DEBUG_OBJECT(base, "passthrough %s", passthrough ? "on" : "off");
    gst_base_transform_set_passthrough(trans, passthrough);
  }
}

HistEqFrame gst_hist_eq_base_begin_frame(GstHistEqBase *base, GstBuffer *buffer) {
  HistEqBaseState &state = state_of(base);
  HistEqFrame frame;
  GST_OBJECT_LOCK(base);
  frame.params = histeq::to_params(state.settings);
  frame.statistics = state.settings.statistics;
  frame.luma_matrix = histeq::luma_matrix(state.luma_matrix);
  frame.reset = state.restart || GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DISCONT);
  state.restart = false;
  GST_OBJECT_UNLOCK(base);
  frame.range = state.range;
  const GstSegment &segment = GST_BASE_TRANSFORM(base)->segment;
  frame.timestamp = GST_BUFFER_PTS(buffer);
  frame.duration = GST_BUFFER_DURATION(buffer);
  if (segment.format == GST_FORMAT_TIME) {
    frame.stream_time = gst_segment_to_stream_time(&segment, GST_FORMAT_TIME, frame.timestamp);
    frame.running_time = gst_segment_to_running_time(&segment, GST_FORMAT_TIME, frame.timestamp);
  }
  return frame;
}

gboolean gst_hist_eq_base_check_grid(GstHistEqBase *base, const HistEqFrame &frame,
                                     histeq::SampleLayout layout) {
  const histeq::Params &params = frame.params;
  const std::uint64_t tile_bins =
      std::uint64_t(params.tiles_x) * std::uint64_t(params.tiles_y) * layout.levels();
  if (params.mode != histeq::Mode::kClahe || tile_bins <= histeq::kMaxClaheTileBins) return TRUE;
  GST_ELEMENT_ERROR(
      base, STREAM, FAILED,
      ("CLAHE with a %dx%d grid on %d-bit video would keep %" G_GUINT64_FORMAT
       " histogram bins; use at most %" G_GUINT64_FORMAT " tiles at this depth.",
       params.tiles_x, params.tiles_y, layout.bits, tile_bins,
       histeq::kMaxClaheTileBins / layout.levels()),
      ("tiles-x %d, tiles-y %d, %u levels", params.tiles_x, params.tiles_y, layout.levels()));
  return FALSE;
}

void gst_hist_eq_base_post_statistics(GstHistEqBase *base, const HistEqFrame &frame,
                                      const std::uint64_t *histogram, int bins, bool restarted) {
  if (!frame.statistics) return;
  const histeq::FrameStats stats = histeq::frame_stats(histogram, bins);
  GValue counts = G_VALUE_INIT;
  gst_value_array_init(&counts, guint(bins));
  for (int v = 0; v < bins; ++v) {
    GValue count = G_VALUE_INIT;
    g_value_init(&count, G_TYPE_UINT64);
    g_value_set_uint64(&count, histogram[v]);
    gst_value_array_append_and_take_value(&counts, &count);
  }
  GstStructure *s = gst_structure_new(
      "histeq", "timestamp", G_TYPE_UINT64, frame.timestamp, "stream-time", G_TYPE_UINT64,
      frame.stream_time, "running-time", G_TYPE_UINT64, frame.running_time, "duration",
      G_TYPE_UINT64, frame.duration, "pixels", G_TYPE_UINT64, stats.pixels, "mean", G_TYPE_DOUBLE,
      stats.mean, "min", G_TYPE_UINT, stats.min, "max", G_TYPE_UINT, stats.max, "restarted",
      G_TYPE_BOOLEAN, gboolean(restarted), "bins", G_TYPE_UINT, guint(bins), nullptr);
  for (std::size_t i = 0; i < stats.percentile.size(); ++i) {
    gchar *name = g_strdup_printf("percentile-%d", histeq::FrameStats::kPercentiles[i]);
    gst_structure_set(s, name, G_TYPE_UINT, stats.percentile[i], nullptr);
    g_free(name);
  }
  gst_structure_take_value(s, "histogram", &counts);
  gst_element_post_message(GST_ELEMENT(base), gst_message_new_element(GST_OBJECT(base), s));
}

static void gst_hist_eq_base_before_transform(GstBaseTransform *trans, GstBuffer *buffer) {
  gst_hist_eq_base_prepare(GST_HIST_EQ_BASE(trans), buffer);
}

static gboolean gst_hist_eq_base_set_info(GstVideoFilter *filter, GstCaps *incaps,
                                          GstVideoInfo *in_info, GstCaps *, GstVideoInfo *) {
  GstHistEqBase *base = GST_HIST_EQ_BASE(filter);
  state_of(base).range = histeq_output_range(in_info);
  gst_hist_eq_base_restart_history(base);
  GST_DEBUG_OBJECT(base, "equalizing %dx%d %s into luma %u..%u", GST_VIDEO_INFO_WIDTH(in_info),
                   GST_VIDEO_INFO_HEIGHT(in_info), GST_VIDEO_INFO_NAME(in_info),
                   state_of(base).range.lo, state_of(base).range.hi);
  GstHistEqBaseClass *klass = GST_HIST_EQ_BASE_GET_CLASS(base);
  return klass->configure ? klass->configure(base, incaps, in_info) : TRUE;
}

static gboolean gst_hist_eq_base_sink_event(GstBaseTransform *trans, GstEvent *event) {
  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP || GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT)
    gst_hist_eq_base_restart_history(GST_HIST_EQ_BASE(trans));
  return GST_BASE_TRANSFORM_CLASS(gst_hist_eq_base_parent_class)->sink_event(trans, event);
}

static void gst_hist_eq_base_set_property(GObject *object, guint prop_id, const GValue *value,
                                          GParamSpec *pspec) {
  GstHistEqBase *base = GST_HIST_EQ_BASE(object);
  GST_OBJECT_LOCK(base);
  histeq::Settings &settings = state_of(base).settings;
  switch (prop_id) {
    case PROP_STRENGTH:
      settings.strength = g_value_get_double(value);
      break;
    case PROP_CLIP_LIMIT:
      settings.clip_limit = g_value_get_double(value);
      break;
    case PROP_SMOOTHING:
      settings.smoothing = g_value_get_double(value);
      break;
    case PROP_SCENE_THRESHOLD:
      settings.scene_threshold = g_value_get_double(value);
      break;
    case PROP_POST_MESSAGES:
      settings.statistics = g_value_get_boolean(value);
      break;
    case PROP_LUMA_MATRIX:
      state_of(base).luma_matrix = histeq::LumaStandard(g_value_get_enum(value));
      break;
    // A new mode or grid follows other histograms: the history restarts, as on a caps change,
    // rather than going on from one kept for the last time this mode or grid ran.
    case PROP_MODE:
      state_of(base).restart |= settings.mode != histeq::Mode(g_value_get_enum(value));
      settings.mode = histeq::Mode(g_value_get_enum(value));
      break;
    case PROP_TILES_X:
      state_of(base).restart |= settings.tiles_x != int(g_value_get_uint(value));
      settings.tiles_x = int(g_value_get_uint(value));
      break;
    case PROP_TILES_Y:
      state_of(base).restart |= settings.tiles_y != int(g_value_get_uint(value));
      settings.tiles_y = int(g_value_get_uint(value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK(base);
}

static void gst_hist_eq_base_get_property(GObject *object, guint prop_id, GValue *value,
                                          GParamSpec *pspec) {
  GstHistEqBase *base = GST_HIST_EQ_BASE(object);
  GST_OBJECT_LOCK(base);
  const histeq::Settings &settings = state_of(base).settings;
  switch (prop_id) {
    case PROP_STRENGTH:
      g_value_set_double(value, settings.strength);
      break;
    case PROP_CLIP_LIMIT:
      g_value_set_double(value, settings.clip_limit);
      break;
    case PROP_SMOOTHING:
      g_value_set_double(value, settings.smoothing);
      break;
    case PROP_SCENE_THRESHOLD:
      g_value_set_double(value, settings.scene_threshold);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean(value, settings.statistics);
      break;
    case PROP_LUMA_MATRIX:
      g_value_set_enum(value, int(state_of(base).luma_matrix));
      break;
    case PROP_MODE:
      g_value_set_enum(value, int(settings.mode));
      break;
    case PROP_TILES_X:
      g_value_set_uint(value, guint(settings.tiles_x));
      break;
    case PROP_TILES_Y:
      g_value_set_uint(value, guint(settings.tiles_y));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK(base);
}

static void gst_hist_eq_base_finalize(GObject *object) {
  delete &state_of(GST_HIST_EQ_BASE(object));
  G_OBJECT_CLASS(gst_hist_eq_base_parent_class)->finalize(object);
}

static void gst_hist_eq_base_class_init(GstHistEqBaseClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  gobject_class->set_property = gst_hist_eq_base_set_property;
  gobject_class->get_property = gst_hist_eq_base_get_property;
  gobject_class->finalize = gst_hist_eq_base_finalize;

  const auto flags = GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                 GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING);
  const histeq::Settings defaults;
  g_object_class_install_property(
      gobject_class, PROP_STRENGTH,
      g_param_spec_double("strength", "Strength",
                          "How far each level moves towards its equalized value (0 = not at "
                          "all: passthrough unless smoothing or messages need the frames, "
                          "1 = fully)",
                          0.0, 1.0, defaults.strength, flags));
  g_object_class_install_property(
      gobject_class, PROP_CLIP_LIMIT,
      g_param_spec_double("clip-limit", "Clip limit",
                          "Contrast limit as OpenCV's: a level holds at most clip-limit times "
                          "the average count, the excess is spread over all levels (0 = off)",
                          0.0, histeq::kMaxClipLimit, defaults.clip_limit, flags));
  g_object_class_install_property(
      gobject_class, PROP_SMOOTHING,
      g_param_spec_double("smoothing", "Smoothing",
                          "Time constant, in frames, of the average histogram the mapping "
                          "follows, so it changes with the scene rather than with single "
                          "frames (0 = every frame on its own)",
                          0.0, histeq::kMaxSmoothing, defaults.smoothing, flags));
  g_object_class_install_property(
      gobject_class, PROP_SCENE_THRESHOLD,
      g_param_spec_double(
          "scene-threshold", "Scene threshold",
          "Total variation distance, over 16 tonal bands, between a frame's histogram and the "
          "average above which the average restarts from that frame (a cut)",
          0.0, 1.0, defaults.scene_threshold, flags));
  g_object_class_install_property(
      gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean("post-messages", "Post messages",
                           "Post an element message named histeq per frame with its luma "
                           "statistics and histogram",
                           defaults.statistics, flags));
  g_object_class_install_property(
      gobject_class, PROP_LUMA_MATRIX,
      g_param_spec_enum(
          "luma-matrix", "Luma matrix",
          "The weights of R, G and B in the luma that packed RGB is equalized by",
          gst_hist_eq_luma_matrix_get_type(), int(kDefaultLumaMatrix),
          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)));
  gst_type_mark_as_plugin_api(gst_hist_eq_luma_matrix_get_type(), GstPluginAPIFlags(0));
  const auto playing =
      GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  g_object_class_install_property(
      gobject_class, PROP_MODE,
      g_param_spec_enum("mode", "Mode",
                        "global: one mapping per frame; clahe: OpenCV's CLAHE, a mapping per tile "
                        "of a tiles-x by tiles-y grid, blended between the nearest four",
                        gst_hist_eq_mode_get_type(), int(defaults.mode), playing));
  gst_type_mark_as_plugin_api(gst_hist_eq_mode_get_type(), GstPluginAPIFlags(0));
  g_object_class_install_property(
      gobject_class, PROP_TILES_X,
      g_param_spec_uint("tiles-x", "Tiles across", "Columns of the CLAHE grid", 1,
                        histeq::kMaxTiles, guint(defaults.tiles_x), playing));
  g_object_class_install_property(
      gobject_class, PROP_TILES_Y,
      g_param_spec_uint("tiles-y", "Tiles down", "Rows of the CLAHE grid", 1, histeq::kMaxTiles,
                        guint(defaults.tiles_y), playing));

  trans_class->before_transform = gst_hist_eq_base_before_transform;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->sink_event = gst_hist_eq_base_sink_event;
  GST_VIDEO_FILTER_CLASS(klass)->set_info = gst_hist_eq_base_set_info;
  GST_DEBUG_CATEGORY_INIT(gst_hist_eq_base_debug, "histeqbase", 0,
                          "Histogram equalization, shared by histeq and cudahisteq");
}

static void gst_hist_eq_base_init(GstHistEqBase *base) {
  static_cast<GstHistEqBasePrivate *>(gst_hist_eq_base_get_instance_private(base))->state =
      new HistEqBaseState();
}
