#version 330 core
// One triangle covering the viewport; the fragment shader maps each pixel to the image itself.
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
