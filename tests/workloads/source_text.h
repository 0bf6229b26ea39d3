#pragma once
// A file of the source tree as text, for the workloads tests that read committed traces and logs.
#include <fstream>
#include <sstream>
#include <string>

namespace c3sim::wl::testing {

// The file at `rel` (relative to the repository root); "" when it cannot be read.
inline std::string source_text(const std::string& rel) {
  std::ifstream in(std::string(C3SIM_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace c3sim::wl::testing
