// libFuzzer target: scenario YAML. Any input must either load or throw InputError (bad user
// input); anything else (crash, other exception, sanitizer report) is a bug. What loads must
// also survive to_yaml and load back as the same number of scenarios.
#include <cstddef>
#include <cstdint>
#include <string>

#include "workloads/scenario_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<c3sim::wl::Scenario> scenarios;
  try {
    scenarios = c3sim::wl::load_scenarios_string(text, "<fuzz>");
  } catch (const c3sim::InputError&) {
    return 0;
  }
  const std::vector<c3sim::wl::Scenario> again =
      c3sim::wl::load_scenarios_string(c3sim::wl::to_yaml(scenarios), "<fuzz round trip>");
  if (again.size() != scenarios.size()) __builtin_trap();
  return 0;
}
