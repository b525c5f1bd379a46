#include "app/gui/embedded.h"

#include <stdexcept>
#include <string>

namespace rf::gui {

std::string_view embedded(std::string_view name) {
  for (const EmbeddedFile& f : embedded_files())
    if (name == f.name) return f.bytes();
  throw std::out_of_range("no embedded file named " + std::string(name));
}

std::vector<std::string_view> embedded_names(std::string_view prefix) {
  std::vector<std::string_view> names;
  for (const EmbeddedFile& f : embedded_files()) {
    std::string_view n = f.name;
    if (n.substr(0, prefix.size()) == prefix) names.push_back(n);
  }
  return names;
}

}  // namespace rf::gui
