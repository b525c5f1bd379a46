// The diff panel's truth-extension box and the caption under it name the same extension.
#include <doctest/doctest.h>

#include <string>

#include "app/gui/truth.h"

using namespace rf;
using namespace rf::gui;

TEST_CASE("truth extension: the box shows what the caption says the truth uses") {
  for (TruthMode mode : {TruthMode::Fir, TruthMode::Padded, TruthMode::OtherExtension})
    for (Extension ext : kAllExtensions)
      for (Extension truth_ext :
           {Extension::Zero, Extension::Clamp, Extension::Repeat, Extension::Mirror}) {
        TruthRequest r;
        r.spec.kind = FilterKind::Gaussian;
        r.spec.ext = ext;
        r.mode = mode;
        r.truth_ext = truth_ext;
        CAPTURE(to_string(mode));
        CAPTURE(to_string(ext));
        CAPTURE(to_string(truth_ext));
        bool chosen = false;
        const Extension shown = truth_extension(r, &chosen);
        const std::string label = truth_label(r);
        CHECK(label.size() > std::string(to_string(shown)).size());
        CHECK(label.compare(label.size() - std::string(to_string(shown)).size(), std::string::npos,
                            to_string(shown)) == 0);
        // The settings choose only when the filter's own extension cannot decide.
        CHECK(chosen == (mode == TruthMode::OtherExtension || ext == Extension::Ignore));
        CHECK(shown == (chosen ? truth_ext : ext));
      }
  // The summed-area table's ignore is its zero extension, whatever the box held.
  TruthRequest sat;
  sat.spec.kind = FilterKind::Sat;
  sat.spec.ext = Extension::Ignore;
  sat.truth_ext = Extension::Mirror;
  CHECK(truth_extension(sat) == Extension::Zero);
}

TEST_CASE("truth: the edge-aware filter is judged by its own reference whatever the mode") {
  for (TruthMode mode : {TruthMode::Fir, TruthMode::Padded, TruthMode::OtherExtension}) {
    TruthRequest r;
    r.spec.kind = FilterKind::EdgeAware;
    r.spec.ext = Extension::Clamp;
    r.mode = mode;
    r.truth_ext = Extension::Mirror;
    CAPTURE(to_string(mode));
    bool chosen = true;
    CHECK(truth_extension(r, &chosen) == Extension::Clamp);
    CHECK_FALSE(chosen);
    CHECK(truth_label(r) == "edge-aware reference in double (algorithm A)");
  }
}
