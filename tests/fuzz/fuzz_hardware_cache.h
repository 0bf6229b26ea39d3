#pragma once
// Hardware for the sweep fuzz targets: presets are parsed once per process (a sweep names them
// over and over, and parsing dominates a run); a file path is loaded each time, as the CLI does.
#include <map>
#include <string>

#include "hardware/hardware_loader.h"
#include "hardware/preset_registry.h"

namespace c3sim::fuzz {

inline hw::NodeSpec load_hardware_cached(const std::string& name) {
  static std::map<std::string, hw::NodeSpec> presets;
  if (hw::find_preset(name) == nullptr) return hw::load_hardware(name);
  auto it = presets.find(name);
  if (it == presets.end()) it = presets.emplace(name, hw::load_hardware(name)).first;
  return it->second;
}

}  // namespace c3sim::fuzz
