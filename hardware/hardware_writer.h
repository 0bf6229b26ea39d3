#pragma once
// Writing a NodeSpec back as a complete hardware file (calibration emits its fitted parameters
// this way). The output loads back, through load_hardware, to an identical NodeSpec.
#include <string>

#include "hardware/node_spec.h"

namespace c3sim::hw {

std::string to_yaml(const NodeSpec& spec);

}  // namespace c3sim::hw
