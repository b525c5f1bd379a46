// The heat map's colour scale, shared by the diff shader (shaders/view.frag.glsl has the same
// polynomial) and the legend the Diff panel draws.
#pragma once

#include <algorithm>

namespace rf::gui {

struct Rgb {
  float r, g, b;
};

// Matplotlib's "inferno" (perceptually uniform, dark to bright, readable in greyscale), as the
// degree-6 polynomial fit by Matt Zucker (shadertoy WlfXRN); t in [0, 1].
inline Rgb inferno(float t) {
  t = std::clamp(t, 0.0f, 1.0f);
  const float c0[3] = {0.0002189403691192265f, 0.001651004631001012f, -0.01948089843709184f};
  const float c1[3] = {0.1065134194856116f, 0.5639564367884091f, 3.932712388889277f};
  const float c2[3] = {11.60249308247187f, -3.972853965665698f, -15.9423941062914f};
  const float c3[3] = {-41.70399613139459f, 17.43639888205313f, 44.35414519872813f};
  const float c4[3] = {77.162935699427f, -33.40235894210092f, -81.80730925738993f};
  const float c5[3] = {-71.31942824499214f, 32.62606426397723f, 73.20951985803202f};
  const float c6[3] = {25.13112622477341f, -12.24266895238567f, -23.07032500287172f};
  float v[3];
  for (int i = 0; i < 3; ++i)
    v[i] = std::clamp(
        c0[i] + t * (c1[i] + t * (c2[i] + t * (c3[i] + t * (c4[i] + t * (c5[i] + t * c6[i]))))),
        0.0f, 1.0f);
  return {v[0], v[1], v[2]};
}

// The diverging scale of signed values (derivatives): blue below zero, near-white at zero, red
// above; t in [-1, 1]. shaders/view.frag.glsl has the same.
inline Rgb diverging(float t) {
  t = std::clamp(t, -1.0f, 1.0f);
  const Rgb mid{0.93f, 0.93f, 0.93f};
  const Rgb end = t < 0.0f ? Rgb{0.13f, 0.32f, 0.78f} : Rgb{0.80f, 0.13f, 0.15f};
  const float a = t < 0.0f ? -t : t;
  return {mid.r + a * (end.r - mid.r), mid.g + a * (end.g - mid.g), mid.b + a * (end.b - mid.b)};
}

// The fixed scales. Log: |d| * amplification from 1e-7 (float rounding) to 1 (the whole range of
// an image on [0, 1]), one colour band per decade. Linear: 0 to 1 / amplification.
inline constexpr float kLogScaleLowDecade = -7.0f;
inline constexpr float kLogScaleHighDecade = 0.0f;
// The impulse probe's scale: the response from 1e-12 to 1.
inline constexpr float kImpulseLowDecade = -12.0f;

}  // namespace rf::gui
