// What the filter panel offers, read from the library's filter table (filters/core/filter_table.h):
// the kinds, the orders a kind's design offers, the extensions it takes, the algorithms the
// running backend offers for it, and slider ranges inside the table's limits. No ImGui here.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "filters/core/spec.h"

namespace rf::gui {

// Every kind with the label its entry shows, in the table's order.
std::vector<std::pair<FilterKind, std::string>> kind_choices();

// The orders to choose from; empty for a kind whose design has one fixed order.
std::vector<int> order_choices(FilterKind kind);

// The extensions the kind takes, and the line that explains one.
std::vector<Extension> extension_choices(FilterKind kind);
std::string extension_hint(Extension ext);

// The derivatives to choose from (none first) with their labels, for a kind that takes one
// (Param::Derivative); empty otherwise. Scale normalisation is a box of its own.
std::vector<std::pair<Derivative, std::string>> derivative_choices(FilterKind kind);

// The extensions a ground truth can take: every one but ignore, which extends nothing.
std::vector<Extension> truth_extension_choices();

// The algorithms the backend that runs offers for the kind, auto first.
std::vector<Algorithm> algorithm_choices(Backend running, FilterKind kind);

std::vector<Backend> backend_choices();

// The sigma slider's range: the useful range of a slider, narrowed to the sigmas the design of
// `kind` at `order` holds.
struct SliderRange {
  float lo = 0.0f, hi = 0.0f;
};
SliderRange sigma_slider(FilterKind kind, int order);

// The spec after the person picked another order: sigma brought inside what that order holds.
FilterSpec with_order(FilterSpec spec, int order);

}  // namespace rf::gui
