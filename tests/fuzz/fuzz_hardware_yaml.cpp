// libFuzzer target: arbitrary bytes as a hardware YAML file. Bad input must surface as an
// InputError; any other exception, crash or sanitizer report is a bug in c3sim (or yaml-cpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "hardware/hardware_loader.h"
#include "sim/base/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const c3sim::hw::NodeSpec spec = c3sim::hw::load_hardware_from_string(text, "<fuzz>");
    // A file that loads must also write back and load to the same text (to_yaml round trip).
    const std::string yaml = c3sim::hw::to_yaml(spec);
    const c3sim::hw::NodeSpec again = c3sim::hw::load_hardware_from_string(yaml, "<fuzz-roundtrip>");
    if (c3sim::hw::to_yaml(again) != yaml) __builtin_trap();
  } catch (const c3sim::InputError&) {
    // Expected for malformed or impossible hardware descriptions.
  }
  return 0;
}
