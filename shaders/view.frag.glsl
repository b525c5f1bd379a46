#version 330 core
// The canvas: maps each framebuffer pixel through the view transform to an image pixel and shows
// the original, the result, the difference heat map, the split wipe, the 3x3 extension tiles or
// the impulse response. Pixels are fetched exactly (texelFetch): what you see is what was computed.

uniform vec2 u_canvas_origin;  // canvas top-left in framebuffer pixels, y down
uniform float u_framebuffer_height;
uniform float u_zoom;          // canvas pixels per image pixel
uniform vec2 u_offset;         // canvas position of image pixel (0, 0)'s corner
uniform ivec2 u_image_size;
uniform int u_mode;            // 0 original, 1 result, 2 diff, 3 split, 4 tiles, 5 impulse
uniform sampler2D u_original;
uniform sampler2D u_result;
uniform sampler2D u_truth;
uniform bool u_has_truth;
uniform float u_split;         // split-wipe handle, image x in pixels
uniform bool u_diff_log;
uniform float u_amplification;
uniform float u_low_decade;    // log scales: 10^low .. 10^high
uniform float u_high_decade;
uniform int u_extension;       // 0 ignore, 1 zero, 2 clamp, 3 repeat, 4 mirror, 5 reflect101,
                               // 6 constant (filters/core/extension.h)
uniform float u_cval;          // the constant extension's value
uniform bool u_tiles_result;
uniform float u_result_gain;   // display gain of the result (1; 1/area for summed-area tables)
uniform int u_signed_view;     // a derivative: 0 off, 1 diverging, 2 magnitude (view_settings.h)
uniform float u_signed_range;  // the value at either end of its scale

out vec4 frag_color;

// Matplotlib's inferno as Matt Zucker's polynomial fit; the same numbers as app/gui/colormap.h.
vec3 inferno(float t) {
  t = clamp(t, 0.0, 1.0);
  const vec3 c0 = vec3(0.0002189403691192265, 0.001651004631001012, -0.01948089843709184);
  const vec3 c1 = vec3(0.1065134194856116, 0.5639564367884091, 3.932712388889277);
  const vec3 c2 = vec3(11.60249308247187, -3.972853965665698, -15.9423941062914);
  const vec3 c3 = vec3(-41.70399613139459, 17.43639888205313, 44.35414519872813);
  const vec3 c4 = vec3(77.162935699427, -33.40235894210092, -81.80730925738993);
  const vec3 c5 = vec3(-71.31942824499214, 32.62606426397723, 73.20951985803202);
  const vec3 c6 = vec3(25.13112622477341, -12.24266895238567, -23.07032500287172);
  return clamp(c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6))))), 0.0, 1.0);
}

// rf::extend_index (filters/core/extension.h): -1 where the extension is zero or the constant.
int extend_index(int i, int n, int ext) {
  if (i >= 0 && i < n) return i;
  if (ext == 2) return i < 0 ? 0 : n - 1;
  if (ext == 3) {
    int m = i % n;
    return m < 0 ? m + n : m;
  }
  if (ext == 4) {
    int period = 2 * n;
    int m = i % period;
    if (m < 0) m += period;
    return m < n ? m : period - 1 - m;
  }
  if (ext == 5) {
    if (n == 1) return 0;
    int period = 2 * n - 2;
    int m = i % period;
    if (m < 0) m += period;
    return m < n ? m : period - m;
  }
  return -1;
}

vec3 background(vec2 canvas) {
  // A quiet checkerboard marks "no image here" without competing with the picture.
  ivec2 cell = ivec2(floor(canvas / 12.0));
  return ((cell.x + cell.y) & 1) == 0 ? vec3(0.16) : vec3(0.19);
}

// app/gui/colormap.h's diverging scale, t in [-1, 1].
vec3 diverging(float t) {
  t = clamp(t, -1.0, 1.0);
  vec3 end = t < 0.0 ? vec3(0.13, 0.32, 0.78) : vec3(0.80, 0.13, 0.15);
  return mix(vec3(0.93), end, abs(t));
}

vec3 result_at(ivec2 p) {
  vec3 v = texelFetch(u_result, p, 0).rgb * u_result_gain;
  if (u_signed_view == 0) return v;
  float y = dot(v, vec3(0.299, 0.587, 0.114)) / u_signed_range;
  return u_signed_view == 1 ? diverging(y) : inferno(y);
}

float scale_position(float v) {
  if (!u_diff_log) return v * u_amplification;
  if (v <= 0.0) return -1.0;
  return (log(v * u_amplification) / log(10.0) - u_low_decade) / (u_high_decade - u_low_decade);
}

vec3 diff_at(ivec2 p) {
  if (!u_has_truth) return vec3(0.5) * dot(result_at(p), vec3(0.299, 0.587, 0.114));
  vec3 d = abs(texelFetch(u_result, p, 0).rgb - texelFetch(u_truth, p, 0).rgb);
  float t = scale_position(max(d.r, max(d.g, d.b)));
  return t < 0.0 ? vec3(0.0) : inferno(t);
}

void main() {
  vec2 canvas = vec2(gl_FragCoord.x, u_framebuffer_height - gl_FragCoord.y) - u_canvas_origin;
  vec2 q = (canvas - u_offset) / u_zoom;
  ivec2 p = ivec2(floor(q));
  ivec2 n = u_image_size;
  bool inside = all(greaterThanEqual(p, ivec2(0))) && all(lessThan(p, n));
  vec3 color;

  if (u_mode == 4) {
    if (any(lessThan(p, -n)) || any(greaterThanEqual(p, 2 * n))) {
      color = background(canvas);
    } else {
      int i = extend_index(p.x, n.x, u_extension);
      int j = extend_index(p.y, n.y, u_extension);
      if (i < 0 || j < 0) {
        // Zero padding is black, the constant its value; "ignore" extends nothing, so it is
        // hatched as well.
        bool hatch = u_extension == 0 && (int(floor((canvas.x + canvas.y) / 8.0)) & 1) == 0;
        color = hatch ? vec3(0.22, 0.05, 0.05) : vec3(u_extension == 6 ? u_cval : 0.0);
        if (u_extension == 6) color *= 0.8;
      } else {
        ivec2 s = ivec2(i, j);
        color = u_tiles_result ? result_at(s) : texelFetch(u_original, s, 0).rgb;
        if (!inside) color *= 0.8;
      }
    }
  } else if (!inside) {
    color = background(canvas);
  } else if (u_mode == 0) {
    color = texelFetch(u_original, p, 0).rgb;
  } else if (u_mode == 1) {
    color = result_at(p);
  } else if (u_mode == 2) {
    color = diff_at(p);
  } else if (u_mode == 3) {
    color = q.x < u_split ? texelFetch(u_original, p, 0).rgb : result_at(p);
    if (abs(q.x - u_split) * u_zoom < 1.5) color = vec3(1.0, 0.85, 0.2);
  } else {
    float v = abs(texelFetch(u_result, p, 0).r);
    float t = v > 0.0 ? (log(v) / log(10.0) - u_low_decade) / (u_high_decade - u_low_decade) : -1.0;
    color = t < 0.0 ? vec3(0.0) : inferno(t);
  }

  // Pixel grid when zoomed in far enough to read single pixels.
  if (u_zoom >= 16.0 && (inside || u_mode == 4)) {
    vec2 f = fract(q) * u_zoom;
    if (f.x < 1.0 || f.y < 1.0) color = mix(color, vec3(0.5), 0.35);
  }
  frag_color = vec4(color, 1.0);
}
