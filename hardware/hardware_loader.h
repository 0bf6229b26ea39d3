#pragma once
// Reading hardware files (hardware/*.yaml, presets, calibrated files) into a validated NodeSpec.
//
// A file may say `extends: NAME_OR_RELATIVE_PATH` (a preset name, or a path relative to the
// extending file) and give any subset of keys: maps are deep-merged, base first, before the
// merged result is parsed, so it must still be complete. Chains are allowed, cycles are errors.
// Every error is an InputError naming the file and line where the value was written (the
// override file for an overridden key) and the dotted key.
#include <string>

#include "hardware/hardware_fields.h"
#include "hardware/hardware_source_map.h"
#include "hardware/hardware_validate.h"
#include "hardware/hardware_writer.h"
#include "hardware/node_spec.h"
#include "hardware/preset_registry.h"

namespace c3sim::hw {

// A parsed, validated node and where each of its values came from (for later validate() calls,
// e.g. after set_field overrides).
struct LoadedHardware {
  NodeSpec spec;
  HardwareSourceMap sources;
};

// `name_or_path`: a built-in preset name ("mi300x", "h100-sxm", "h200-sxm", "h200-sxm-x4") or the
// path of a hardware YAML file.
NodeSpec load_hardware(const std::string& name_or_path);
LoadedHardware load_hardware_with_sources(const std::string& name_or_path);

// A hardware YAML given as text; `label` names it in error messages. A relative `extends:` path
// is resolved against the current directory; only regular files are read.
NodeSpec load_hardware_from_string(const std::string& text, const std::string& label);
LoadedHardware load_hardware_from_string_with_sources(const std::string& text, const std::string& label);

}  // namespace c3sim::hw
