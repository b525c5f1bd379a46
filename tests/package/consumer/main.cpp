// Filters a seeded random image with the installed library on the CPU and checks the result
// against the library's double-precision ground truth. Exit status 0 when they agree.
#include <rf/rf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

int main() {
  rf::Image image(37, 29, 4);
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (float& v : image.pixels) v = uniform(rng);

  rf::FilterSpec spec;
  spec.kind = rf::FilterKind::BSpline3;
  spec.ext = rf::Extension::Mirror;
  try {
    std::unique_ptr<rf::Engine> engine = rf::make_engine(rf::Backend::Cpu);
    rf::Image out = image;
    rf::FrameView view = out.view();
    engine->plan(spec, image.width, image.height, view.format);
    engine->run(view, view);

    const rf::Image truth = rf::ground_truth(spec, image);
    double max_error = 0.0;
    for (std::size_t i = 0; i < out.pixels.size(); ++i)
      max_error = std::max(max_error, double(std::fabs(out.pixels[i] - truth.pixels[i])));
    std::printf("rf_consumer: %s on %s, %dx%d RGBA, max error %.3g against the ground truth\n",
                rf::describe(spec).c_str(), engine->description().c_str(), image.width,
                image.height, max_error);
    if (!(max_error < 1e-5)) return 1;

    // Bad parameters arrive as exceptions naming them.
    spec.sigma = -1.0;
    spec.kind = rf::FilterKind::Gaussian;
    try {
      rf::validate(spec);
      std::printf("rf_consumer: sigma -1 was accepted\n");
      return 1;
    } catch (const rf::InvalidParameter& e) {
      std::printf("rf_consumer: refused as expected: %s\n", e.what());
    }
  } catch (const std::exception& e) {
    std::printf("rf_consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
