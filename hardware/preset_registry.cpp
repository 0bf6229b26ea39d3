#include "hardware/preset_registry.h"

namespace c3sim::hw {
namespace {

const EmbeddedPreset* find_embedded(std::string_view name, bool family) {
  for (const EmbeddedPreset& p : embedded_presets()) {
    if (p.name == name && p.family == family) return &p;
  }
  return nullptr;
}

std::vector<std::string> names_of(bool family) {
  std::vector<std::string> out;
  for (const EmbeddedPreset& p : embedded_presets()) {
    if (p.family == family) out.emplace_back(p.name);
  }
  return out;
}

}  // namespace

const EmbeddedPreset* find_preset(std::string_view name) { return find_embedded(name, false); }

const EmbeddedPreset* find_family(std::string_view name) { return find_embedded(name, true); }

std::vector<std::string> preset_names() { return names_of(false); }

std::vector<std::string> family_names() { return names_of(true); }

}  // namespace c3sim::hw
