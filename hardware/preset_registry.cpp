#include "hardware/preset_registry.h"

namespace c3sim::hw {

const EmbeddedPreset* find_preset(std::string_view name) {
  for (const EmbeddedPreset& p : embedded_presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const EmbeddedPreset& p : embedded_presets()) out.emplace_back(p.name);
  return out;
}

}  // namespace c3sim::hw
