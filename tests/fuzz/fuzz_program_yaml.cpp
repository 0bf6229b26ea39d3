// libFuzzer target: program YAML (workloads/program_io.h). Any input must either load or throw
// InputError (bad user input); anything else (crash, other exception, sanitizer report) is a bug.
// What loads has passed validate_program already; it must also pass it again, get a topological
// order covering every kernel, be checked against a node (8 GPUs, 304 CUs: the MI300X preset's
// shape; refusal is an InputError), and survive programs_to_yaml and load back as the same number
// of programs with the same kernel counts.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "workloads/program.h"
#include "workloads/program_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<c3sim::wl::Program> programs;
  try {
    programs = c3sim::wl::load_programs_string(text, "<fuzz>");
  } catch (const c3sim::InputError&) {
    return 0;
  }
  for (const c3sim::wl::Program& p : programs) {
    c3sim::wl::validate_program(p);
    if (c3sim::wl::topological_order(p).size() != p.kernels.size()) __builtin_trap();
    try {
      c3sim::wl::check_program_fits(p, 8, 304);
    } catch (const c3sim::InputError&) {
      continue;
    }
  }
  const std::vector<c3sim::wl::Program> again =
      c3sim::wl::load_programs_string(c3sim::wl::programs_to_yaml(programs), "<fuzz round trip>");
  if (again.size() != programs.size()) __builtin_trap();
  for (size_t i = 0; i < again.size(); ++i) {
    if (again[i].kernels.size() != programs[i].kernels.size()) __builtin_trap();
  }
  return 0;
}
