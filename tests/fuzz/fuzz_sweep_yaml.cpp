// libFuzzer target: sweep YAML. Any input must either load or throw InputError; anything else
// (crash, other exception, sanitizer report, an overflowing cast) is a bug. What loads must also
// build its first and last task (a variant generated on demand) or refuse it with InputError.
// Relative hardware / scenario_file paths resolve in a folder that does not exist, so the target
// never reads files other than the presets. Each preset is parsed once per process (parsing it
// took about 80% of an input's time; fuzz_hardware_yaml fuzzes that parser); any other name still
// goes to hw::load_hardware and fails there.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/base/errors.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/fuzz/fuzz_hardware_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const c3sim::sweep::SweepSpec spec = c3sim::sweep::load_sweep_string(
        text, "<fuzz>", "/nonexistent-c3sim-fuzz-dir", c3sim::fuzz::load_hardware_cached);
    if (spec.tasks() == 0) __builtin_trap();
    (void)spec.task(spec.tasks() - 1);
  } catch (const c3sim::InputError&) {
    return 0;
  }
  return 0;
}
