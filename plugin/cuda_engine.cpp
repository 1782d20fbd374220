// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_engine.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>

#include "luma_frame.h"

namespace {

// Enters the engine's context on this thread for the scope: pushes its GstCudaContext, or makes
// its device current in the runtime (the device's primary context).
class EngineScope {
 public:
  EngineScope(GstCudaContext *context, int device) : context_(context) {
    if (context) {
      status_ = gst_cuda_context_push(context) ? cudaSuccess : cudaErrorDeviceUninitialized;
    } else {
      status_ = cudaSetDevice(device);
    }
  }
  ~EngineScope() {
    if (context_ && status_ == cudaSuccess) gst_cuda_context_pop(nullptr);
  }
  EngineScope(const EngineScope &) = delete;
  EngineScope &operator=(const EngineScope &) = delete;

  cudaError_t status() const { return status_; }
  const char *call() const { return context_ ? "gst_cuda_context_push" : "cudaSetDevice"; }

 private:
  GstCudaContext *context_;
  cudaError_t status_;
};

// Where the caps' format keeps its luma, as the kernels walk it.
histeq::cuda::PixelLayout pixel_layout(const GstVideoInfo *info, histeq::LumaMatrix matrix) {
  const GstVideoFormatInfo *finfo = info->finfo;
  switch (histeq_packing(info)) {
    case HistEqPacking::kPackedYuv:
      return histeq::cuda::packed_yuv_layout(int(GST_VIDEO_FORMAT_INFO_POFFSET(finfo, 0)));
    case HistEqPacking::kRgb:
      return histeq::cuda::rgb_layout(int(GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, GST_VIDEO_COMP_R)),
                                      int(GST_VIDEO_FORMAT_INFO_POFFSET(finfo, GST_VIDEO_COMP_R)),
                                      int(GST_VIDEO_FORMAT_INFO_POFFSET(finfo, GST_VIDEO_COMP_G)),
                                      int(GST_VIDEO_FORMAT_INFO_POFFSET(finfo, GST_VIDEO_COMP_B)),
                                      matrix);
    case HistEqPacking::kLumaPlane:
    default: {
      const histeq::SampleLayout sample = histeq_sample_layout(info);
      return sample.bits > 8 ? histeq::cuda::deep_luma_layout(sample) : histeq::cuda::PixelLayout{};
    }
  }
}

// A new engine in the context entered, or nullptr with the failure in `status`: a failed one is
// destroyed before this returns, still in that context.
std::unique_ptr<histeq::cuda::FrameEngine> new_engine(int depth, histeq::cuda::KernelConfig kernels,
                                                      cudaError_t *status) {
  auto engine = std::make_unique<histeq::cuda::FrameEngine>();
  *status = engine->init(depth, kernels);
  if (*status != cudaSuccess) engine.reset();
  return engine;
}

constexpr const char *kFrameInCudaMemory = "a frame in CUDA memory";

}  // namespace

guint histeq_cuda_context_device(GstCudaContext *context) {
  guint device = 0;
  g_object_get(context, "cuda-device-id", &device, nullptr);
  return device;
}

CudaFrameEngine::CudaFrameEngine(GstVideoFilter *filter) : filter_(filter) {}

CudaFrameEngine::~CudaFrameEngine() {
  stop();
}

// The engine's memory belongs to its context: freed with it entered.
void CudaFrameEngine::stop() {
  if (engine_) {
    const EngineScope scope(context_, device_);
    engine_.reset();
  }
  gst_clear_object(&context_);
}

gboolean CudaFrameEngine::start(int device, int depth, histeq::cuda::KernelConfig kernels) {
  stop();
  device_ = device;
  depth_ = depth;
  kernels_ = kernels;
  cudaError_t status = cudaSuccess;
  {
    const EngineScope scope(nullptr, device);
    status = scope.status();
    if (status == cudaSuccess) engine_ = new_engine(depth, kernels, &status);
  }
  if (status != cudaSuccess) {
    GST_ELEMENT_ERROR(filter_, RESOURCE, OPEN_READ_WRITE,
                      ("Could not set up CUDA device %d for cudahisteq (%s).", device,
                       cudaGetErrorString(status)),
                      ("FrameEngine::init(depth %d): %s", depth, cudaGetErrorName(status)));
    return FALSE;
  }
  return TRUE;
}

gboolean CudaFrameEngine::use_context(GstCudaContext *context) {
  if (context == context_ && engine_) return TRUE;
  stop();
  // context_ is only set together with its engine: after a failure nothing is half set up, and
  // the next frame from this context tries again.
  const int device = int(histeq_cuda_context_device(context));
  cudaError_t status = cudaErrorDeviceUninitialized;
  {
    const EngineScope scope(context, device);
    if (scope.status() == cudaSuccess) engine_ = new_engine(depth_, kernels_, &status);
  }
  if (status != cudaSuccess) {
    GST_ELEMENT_ERROR(filter_, RESOURCE, OPEN_READ_WRITE,
                      ("Could not set up cudahisteq in the pipeline's CUDA context on device %d "
                       "(%s).",
                       device, cudaGetErrorString(status)),
                      ("FrameEngine::init(depth %d): %s", depth_, cudaGetErrorName(status)));
    return FALSE;
  }
  context_ = GST_CUDA_CONTEXT(gst_object_ref(context));
  device_ = device;
  return TRUE;
}

int CudaFrameEngine::capacity() const {
  return engine_ ? engine_->capacity() : 0;
}

int CudaFrameEngine::in_flight() const {
  return engine_ ? engine_->in_flight() : 0;
}

GstFlowReturn CudaFrameEngine::failed(const char *call, cudaError_t status,
                                      const char *frame) const {
  if (status == cudaErrorMemoryAllocation) {
    const GstVideoInfo *info = &filter_->in_info;
    GST_ELEMENT_ERROR(filter_, RESOURCE, NO_SPACE_LEFT,
                      ("CUDA device %d has no memory left for %d frames of %dx%d in flight; free "
                       "GPU memory or lower the depth property.",
                       device_, depth_, GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info)),
                      ("%s returned %s", call, cudaGetErrorName(status)));
    return GST_FLOW_ERROR;
  }
  GST_ELEMENT_ERROR(
      filter_, RESOURCE, FAILED,
      ("The GPU failed while equalizing %s (CUDA error: %s).", frame, cudaGetErrorString(status)),
      ("%s returned %s", call, cudaGetErrorName(status)));
  return GST_FLOW_ERROR;
}

GstFlowReturn CudaFrameEngine::submit(GstVideoFrame *frame, const HistEqFrame &settings) {
  if (!engine_) return failed("FrameEngine::submit", cudaErrorInitializationError);
  const histeq::LumaPlane8 luma = histeq_luma_plane(frame);
  histeq::cuda::HostFrame host;
  host.src = host.dst = luma.data;
  host.src_pitch = host.dst_pitch = std::size_t(luma.stride);
  host.width = luma.width;
  host.height = luma.height;
  host.layout = pixel_layout(&frame->info, settings.luma_matrix);
  host.range = settings.range;
  host.params = settings.params;
  host.reset = settings.reset;
  const EngineScope scope(context_, device_);
  if (scope.status() != cudaSuccess) return failed(scope.call(), scope.status());
  const cudaError_t status = engine_->submit(host);
  return status == cudaSuccess ? GST_FLOW_OK : failed("FrameEngine::submit", status);
}

GstFlowReturn CudaFrameEngine::submit_cuda_memory(const GstVideoInfo *info, GstBuffer *buffer,
                                                  const HistEqFrame &settings) {
  if (!engine_) return failed("FrameEngine::submit", cudaErrorInitializationError);
  if (!histeq_check_frame_layout(GST_ELEMENT(filter_), info, buffer)) return GST_FLOW_ERROR;
  const EngineScope scope(context_, device_);
  if (scope.status() != cudaSuccess)
    return failed(scope.call(), scope.status(), kFrameInCudaMemory);
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, info, buffer, GstMapFlags(GST_MAP_READWRITE | GST_MAP_CUDA))) {
    GST_ELEMENT_ERROR(filter_, STREAM, FORMAT,
                      ("A frame in CUDA memory could not be mapped on the device as %dx%d %s.",
                       GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info),
                       gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(info))),
                      ("gst_video_frame_map(GST_MAP_CUDA) failed on %" GST_PTR_FORMAT, buffer));
    return GST_FLOW_ERROR;
  }
  if (!histeq_check_luma_alignment(GST_ELEMENT(filter_), &frame)) return GST_FLOW_ERROR;
  const histeq::LumaPlane8 visible = histeq_luma_plane(&frame);
  histeq::cuda::DeviceFrame device;
  device.plane = {visible.data, visible.width, visible.height, std::size_t(visible.stride),
                  pixel_layout(info, settings.luma_matrix)};
  device.range = settings.range;
  device.params = settings.params;
  device.reset = settings.reset;
  const cudaError_t status = engine_->submit(device);
  // The device pointer stays valid while the caller holds the buffer; unmapping only records
  // that the newest bytes are on the device.
  gst_video_frame_unmap(&frame);
  return status == cudaSuccess ? GST_FLOW_OK
                               : failed("FrameEngine::submit", status, kFrameInCudaMemory);
}

GstFlowReturn CudaFrameEngine::wait(histeq::cuda::FrameReport *report) {
  if (!engine_) return failed("FrameEngine::wait", cudaErrorNotReady);
  const EngineScope scope(context_, device_);
  // The engine hands the frame back whatever happens, so that it stays in step with the queue.
  const cudaError_t status = engine_->wait(nullptr, report);
  if (scope.status() != cudaSuccess) return failed(scope.call(), scope.status());
  return status == cudaSuccess ? GST_FLOW_OK : failed("FrameEngine::wait", status);
}

void CudaFrameEngine::discard() {
  if (!engine_) return;
  const EngineScope scope(context_, device_);
  if (scope.status() == cudaSuccess) engine_->discard();
}
