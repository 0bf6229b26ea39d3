#pragma once
// The files a command reads, for check_outputs: its named inputs plus what a hardware name reaches
// (the file and its `extends:` chain; nothing for a preset).
#include <string>
#include <vector>

namespace c3sim::cli {

// `files` followed by the hardware argument and every file its extends chain reads.
std::vector<std::string> inputs_with_hardware(std::vector<std::string> files, const std::string& hardware);

}  // namespace c3sim::cli
