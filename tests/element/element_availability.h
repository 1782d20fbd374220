// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Whether an element can run on this machine, for tests parameterized over both elements
// (cudahisteq's cases skip, with the reason, where it is not built or no GPU is), and what its
// pad templates take.

#include <string>

#include <gst/gst.h>
#include <gtest/gtest.h>

#if HISTEQ_HAVE_CUDA
#include "gpu_test_support.h"
#endif

// Why `element` cannot run here, or "".
inline std::string element_unavailable_reason(const std::string &element) {
  if (element != "cudahisteq") return "";
#if HISTEQ_HAVE_CUDA
  return cuda_device_missing_reason();
#else
  return "cudahisteq is not built (no CUDA toolkit)";
#endif
}

#define SKIP_UNLESS_RUNS(element)                                     \
  do {                                                                \
    const std::string reason = element_unavailable_reason(element);   \
    if (!reason.empty()) GTEST_SKIP() << (element) << ": " << reason; \
  } while (0)

// Whether a static pad template of `element` in `direction` takes `caps`; false where the element
// is not installed.
inline bool template_takes(const char *element, GstPadDirection direction, GstCaps *caps) {
  GstElementFactory *factory = gst_element_factory_find(element);
  if (!factory) return false;
  bool takes = false;
  for (const GList *l = gst_element_factory_get_static_pad_templates(factory); l; l = l->next) {
    auto *pad = static_cast<GstStaticPadTemplate *>(l->data);
    if (pad->direction != direction) continue;
    GstCaps *template_caps = gst_static_pad_template_get_caps(pad);
    takes = takes || gst_caps_can_intersect(caps, template_caps);
    gst_caps_unref(template_caps);
  }
  gst_object_unref(factory);
  return takes;
}

inline bool template_takes(const char *element, GstPadDirection direction,
                           const std::string &caps) {
  GstCaps *parsed = gst_caps_from_string(caps.c_str());
  const bool takes = template_takes(element, direction, parsed);
  gst_caps_unref(parsed);
  return takes;
}
