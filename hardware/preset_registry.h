#pragma once
// The built-in hardware files, embedded into the library at build time so a name works from any
// working directory: presets (hardware/presets/*.yaml), each a complete node, and family files
// (hardware/presets/families/*.yaml), each the mechanisms and model parameters that the presets of
// one GPU family share. A family file is only a base for `extends:`; it is not a node by itself.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace c3sim::hw {

struct EmbeddedPreset {
  std::string_view name;  // file stem: "mi300x", "hopper"
  std::string_view path;  // repository path, used as the file name in error messages
  std::string_view text;  // the YAML text, verbatim
  bool family = false;    // a family file: extended by presets, never loaded as a node
};

// Defined in the generated embedded_presets.cpp (build directory). Presets and family files.
std::span<const EmbeddedPreset> embedded_presets();

// A complete preset of this name; nullptr when none (a family file is not a preset).
const EmbeddedPreset* find_preset(std::string_view name);
// A family file of this name; nullptr when none.
const EmbeddedPreset* find_family(std::string_view name);
// The complete presets, the names `load_hardware` accepts; family files are left out.
std::vector<std::string> preset_names();
std::vector<std::string> family_names();

}  // namespace c3sim::hw
