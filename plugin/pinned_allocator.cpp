// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pinned_allocator.h"

#include <cstring>

#include <cuda_runtime_api.h>

GST_DEBUG_CATEGORY_STATIC(gst_hist_eq_pinned_allocator_debug);
#define GST_CAT_DEFAULT gst_hist_eq_pinned_allocator_debug

struct _GstHistEqPinnedAllocator {
  GstAllocator parent;
};

namespace {

// `base` is what cudaHostAlloc returned (null for a shared sub-memory, which owns nothing);
// `data` is the aligned start that GstMemory's offset and size count from.
struct PinnedMemory {
  GstMemory memory;
  void *base;
  guint8 *data;
};

PinnedMemory *new_memory(GstAllocator *allocator, GstMemoryFlags flags, GstMemory *parent,
                         void *base, guint8 *data, gsize maxsize, gsize align, gsize offset,
                         gsize size) {
  auto *mem = g_new0(PinnedMemory, 1);
  gst_memory_init(&mem->memory, flags, allocator, parent, maxsize, align, offset, size);
  mem->base = base;
  mem->data = data;
  return mem;
}

gpointer pinned_map(GstMemory *memory, gsize, GstMapFlags) {
  return reinterpret_cast<PinnedMemory *>(memory)->data;
}

void pinned_unmap(GstMemory *) {}

GstMemory *pinned_share(GstMemory *memory, gssize offset, gssize size) {
  auto *mem = reinterpret_cast<PinnedMemory *>(memory);
  GstMemory *parent = memory->parent ? memory->parent : memory;
  if (size == -1) size = gssize(memory->size) - offset;
  const auto flags =
      GstMemoryFlags(GST_MINI_OBJECT_FLAGS(parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY);
  return &new_memory(memory->allocator, flags, parent, nullptr, mem->data, memory->maxsize,
                     memory->align, memory->offset + offset, gsize(size))
              ->memory;
}

// Copies go to ordinary system memory: a copy is made to be written by the CPU.
GstMemory *pinned_copy(GstMemory *memory, gssize offset, gssize size) {
  if (size == -1) size = gssize(memory->size) - offset;
  GstMemory *copy = gst_allocator_alloc(nullptr, gsize(size), nullptr);
  GstMapInfo map;
  if (!gst_memory_map(copy, &map, GST_MAP_WRITE)) {
    gst_memory_unref(copy);
    return nullptr;
  }
  std::memcpy(map.data, reinterpret_cast<PinnedMemory *>(memory)->data + memory->offset + offset,
              gsize(size));
  gst_memory_unmap(copy, &map);
  return copy;
}

}  // namespace

G_DEFINE_TYPE(GstHistEqPinnedAllocator, gst_hist_eq_pinned_allocator, GST_TYPE_ALLOCATOR)

static GstMemory *gst_hist_eq_pinned_allocator_alloc(GstAllocator *allocator, gsize size,
                                                     GstAllocationParams *params) {
  const gsize align = params->align | gst_memory_alignment;
  const gsize maxsize = size + params->prefix + params->padding;
  void *base = nullptr;
  const cudaError_t status = cudaHostAlloc(&base, maxsize + align, cudaHostAllocPortable);
  if (status != cudaSuccess) {
    cudaGetLastError();
    GST_WARNING_OBJECT(allocator, "cudaHostAlloc(%" G_GSIZE_FORMAT "): %s", maxsize + align,
                       cudaGetErrorString(status));
    return nullptr;
  }
  auto *data = static_cast<guint8 *>(base);
  if (const gsize misaligned = gsize(reinterpret_cast<guintptr>(data) & align))
    data += align + 1 - misaligned;
  return &new_memory(allocator, params->flags, nullptr, base, data, maxsize, align, params->prefix,
                     size)
              ->memory;
}

static void gst_hist_eq_pinned_allocator_free(GstAllocator *, GstMemory *memory) {
  auto *mem = reinterpret_cast<PinnedMemory *>(memory);
  if (mem->base) cudaFreeHost(mem->base);
  g_free(mem);
}

static void gst_hist_eq_pinned_allocator_class_init(GstHistEqPinnedAllocatorClass *klass) {
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS(klass);
  allocator_class->alloc = gst_hist_eq_pinned_allocator_alloc;
  allocator_class->free = gst_hist_eq_pinned_allocator_free;
  GST_DEBUG_CATEGORY_INIT(gst_hist_eq_pinned_allocator_debug, "histeqpinned", 0,
                          "Page-locked host memory for cudahisteq");
}

static void gst_hist_eq_pinned_allocator_init(GstHistEqPinnedAllocator *self) {
  GstAllocator *allocator = GST_ALLOCATOR(self);
  allocator->mem_type = HISTEQ_PINNED_MEMORY_TYPE;
  allocator->mem_map = pinned_map;
  allocator->mem_unmap = pinned_unmap;
  allocator->mem_share = pinned_share;
  allocator->mem_copy = pinned_copy;
}

GstAllocator *gst_hist_eq_pinned_allocator_new(void) {
  return GST_ALLOCATOR(g_object_new(GST_TYPE_HIST_EQ_PINNED_ALLOCATOR, nullptr));
}
