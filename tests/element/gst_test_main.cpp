// SPDX-License-Identifier: LGPL-2.1-or-later
// The main of the suites that run GStreamer: it is deinitialized after the tests, so that the
// leaks tracer (GST_TRACERS=leaks, meson's `leaks` test setup) reports every object and buffer
// they left alive.
#include <gst/gst.h>
#include <gtest/gtest.h>

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  gst_deinit();
  return result;
}
