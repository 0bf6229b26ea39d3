#pragma once
// The files a hardware name reads: none for a built-in preset; for a file, the file and every file
// its `extends:` chain reaches (presets in the chain are not files). The CLI refuses an output that
// is any of them, since a calibrated file that extends a base would otherwise let `-o BASE` replace
// the base. Errors as load_hardware's (the chain is read the same way).
#include <string>
#include <vector>

namespace c3sim::hw {

std::vector<std::string> hardware_files(const std::string& name_or_path);

}  // namespace c3sim::hw
