// SPDX-License-Identifier: LGPL-2.1-or-later
#include "clips.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "synth.h"

namespace quality {

namespace {

// A camera's temporal noise on an ordinary lit scene, a little under one code.
constexpr double kDaylightNoise = 1.0;

Clip named(const char *name, const char *models, const char *roi_note, int width, int height) {
  Clip clip;
  clip.name = name;
  clip.models = models;
  clip.roi_note = roi_note;
  clip.width = width;
  clip.height = height;
  return clip;
}

Rect fraction(int width, int height, double x0, double y0, double x1, double y1) {
  const int x = int(std::lround(x0 * width)), y = int(std::lround(y0 * height));
  return {x, y, int(std::lround(x1 * width)) - x, int(std::lround(y1 * height)) - y};
}

// A static scene with one square light, about 3% of the frame, switching on (250) and off
// (30) every 8 frames: a warning lamp, a turn signal or a screen in a surveillance or dashcam
// view. Nothing else changes, so any change of the background is the filter's doing.
Clip blinking_light(int width, int height, int frames) {
  Clip clip =
      named("blinking light",
            "a lamp (3% of the frame) toggling 30 <-> 250 every 8 frames over a static scene",
            "background, lower left (never changes)", width, height);
  const Canvas scene = textured_scene(width, height, 60, 140, 48, 11);
  const int side = int(std::lround(std::sqrt(0.03 * width * height)));
  const Rect lamp{int(0.7 * width), int(0.15 * height), side, side};
  const Rect roi = fraction(width, height, 0.05, 0.55, 0.45, 0.95);
  SensorNoise noise(kDaylightNoise, 12);
  for (int t = 0; t < frames; ++t) {
    Canvas frame = scene;
    frame.fill(lamp, (t / 8) % 2 ? 250 : 30);
    clip.frames.push_back(noise.capture(frame, 0, width, height));
    clip.roi.push_back(roi);
  }
  return clip;
}

// A bright vehicle (level ~240, 12% of the frame) driving through a static street scene from
// edge to edge: it hides different background levels as it goes, and enters and leaves.
Clip bright_object(int width, int height, int frames) {
  Clip clip =
      named("bright object crossing",
            "a white truck (240, 12% of the frame) entering, crossing and leaving a static street",
            "top band, above the truck's path", width, height);
  const Canvas scene = textured_scene(width, height, 40, 170, 40, 21);
  const Rect body = fraction(width, height, 0.0, 0.35, 0.2, 0.95);
  const Rect roi = fraction(width, height, 0.05, 0.03, 0.95, 0.3);
  Random paint(22);
  SensorNoise noise(kDaylightNoise, 23);
  for (int t = 0; t < frames; ++t) {
    Canvas frame = scene;
    const int x = -body.width + int(std::lround(double(width + body.width) * t / (frames - 1)));
    for (int y = body.y; y < body.y + body.height; ++y)
      for (int i = std::max(x, 0); i < std::min(x + body.width, width); ++i)
        frame.at(i, y) = 236 + 8 * paint.uniform();
    clip.frames.push_back(noise.capture(frame, 0, width, height));
    clip.roi.push_back(roi);
  }
  return clip;
}

// A camera panning 1.5 pixels a frame (1 and 2 in turn) across a textured landscape while a
// bright window (235) comes into view at the right edge. Whole-frame means would hide the
// problem (equalization holds the frame's mean near mid-grey by design), so the ROI follows
// one patch of the scene: its input brightness never changes, only the filter can move it.
Clip slow_pan(int width, int height, int frames) {
  // At most 30% of the width in all, so the followed patch stays in view on long clips.
  const double speed = std::min(1.5, 0.3 * width / std::max(frames - 1, 1));
  const int travel = int(std::floor(speed * (frames - 1)));
  char models[120];
  std::snprintf(models, sizeof models,
                "a pan of %.2f px a frame bringing a bright window (235) into view at the right",
                speed);
  Clip clip =
      named("slow pan", models, "a patch of the scene followed as it moves (motion-compensated)",
            width, height);
  Canvas world = textured_scene(width + travel, height, 50, 170, 56, 31);
  world.fill(Rect{int(0.98 * width), int(0.2 * height), int(0.3 * width), int(0.5 * height)}, 235);
  const Rect patch = fraction(width, height, 0.35, 0.2, 0.6, 0.8);
  SensorNoise noise(kDaylightNoise, 32);
  for (int t = 0; t < frames; ++t) {
    const int x0 = int(std::floor(speed * t));
    clip.frames.push_back(noise.capture(world, x0, width, height));
    clip.roi.push_back({patch.x - x0, patch.y, patch.width, patch.height});
  }
  return clip;
}

// A dark room at high gain: a flat dark card (20) with sensor noise of sigma 2, and a few
// objects around it, darker and brighter. Stretching the card's few levels over the whole
// range amplifies its noise; that gain is what a clip limit is for.
Clip dark_noise(int width, int height, int frames) {
  Clip clip =
      named("dark noise", "a flat dark card (20) with sensor noise sigma 2 and four patches",
            "the flat card, centre", width, height);
  Canvas scene(width, height, 20);
  scene.fill(fraction(width, height, 0.05, 0.08, 0.22, 0.3), 8);
  scene.fill(fraction(width, height, 0.78, 0.08, 0.95, 0.3), 35);
  scene.fill(fraction(width, height, 0.05, 0.7, 0.22, 0.92), 55);
  scene.fill(fraction(width, height, 0.78, 0.7, 0.95, 0.92), 90);
  const Rect roi = fraction(width, height, 0.3, 0.15, 0.7, 0.85);
  SensorNoise noise(2.0, 41);
  for (int t = 0; t < frames; ++t) {
    clip.frames.push_back(noise.capture(scene, 0, width, height));
    clip.roi.push_back(roi);
  }
  clip.flat_roi = true;
  return clip;
}

// An edit from a dark, foggy exterior (25..75) to a bright interior (110..235) a third of the
// way in; the second shot is held long enough to see where the output settles.
Clip scene_cut(int width, int height, int frames) {
  Clip clip = named("scene cut", "a cut from a dark foggy shot (25..75) to a bright one (110..235)",
                    "centre", width, height);
  const Canvas foggy = textured_scene(width, height, 25, 75, 80, 51);
  const Canvas bright = textured_scene(width, height, 110, 235, 36, 52);
  const Rect roi = fraction(width, height, 0.25, 0.25, 0.75, 0.75);
  clip.cut = frames / 3;
  SensorNoise noise(kDaylightNoise, 53);
  for (int t = 0; t < frames; ++t) {
    clip.frames.push_back(noise.capture(t < clip.cut ? foggy : bright, 0, width, height));
    clip.roi.push_back(roi);
  }
  return clip;
}

}  // namespace

std::vector<ClipMaker> clip_makers() {
  return {blinking_light, bright_object, slow_pan, dark_noise, scene_cut};
}

}  // namespace quality
