#pragma once
// The built-in hardware presets (hardware/presets/*.yaml), embedded into the library at build
// time so a preset name works from any working directory.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace c3sim::hw {

struct EmbeddedPreset {
  std::string_view name;  // file stem: "mi300x"
  std::string_view path;  // repository path, used as the file name in error messages
  std::string_view text;  // the YAML text, verbatim
};

// Defined in the generated embedded_presets.cpp (build directory).
std::span<const EmbeddedPreset> embedded_presets();

// nullptr when no preset has this name.
const EmbeddedPreset* find_preset(std::string_view name);
std::vector<std::string> preset_names();

}  // namespace c3sim::hw
