#pragma once
// The validation pass, separate from parsing: every field's own constraint (from the field table)
// plus the rules that relate fields. Throws InputError naming the file and line where the
// offending value was written (looked up in `sources`) and its dotted key.
#include "hardware/hardware_source_map.h"
#include "hardware/node_spec.h"

namespace c3sim::hw {

void validate(const NodeSpec& spec, const HardwareSourceMap& sources);

// For a NodeSpec built or edited in code: errors name spec.source_file without a line.
void validate(const NodeSpec& spec);

}  // namespace c3sim::hw
