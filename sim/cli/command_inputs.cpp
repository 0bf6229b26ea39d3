#include "sim/cli/command_inputs.h"

#include "hardware/hardware_files.h"

namespace c3sim::cli {

std::vector<std::string> inputs_with_hardware(std::vector<std::string> files, const std::string& hardware) {
  files.push_back(hardware);
  for (auto& f : hw::hardware_files(hardware)) files.push_back(std::move(f));
  return files;
}

}  // namespace c3sim::cli
