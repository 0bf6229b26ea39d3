// libFuzzer target: PyTorch profiler trace import (workloads/torch_trace_import.h). Any input must
// import or throw InputError (bad user input); anything else (crash, other exception, sanitizer
// report, stack overflow) is a bug. What imports must be what `c3sim run` accepts: its YAML
// (torch_import_yaml, with the unmapped comments) loads back as one program with the same
// kernels, and fits a node of the program's own GPU count (check_program_fits; 8 GPUs when it
// names none) without an exception. The first input byte picks --device 0 and/or --rank 0 when set,
// so both option paths are fuzzed too.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "workloads/program.h"
#include "workloads/program_io.h"
#include "workloads/torch_trace_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  c3sim::wl::TorchImportOptions options;
  if (size > 0 && data[0] == '\x01') options.device = 0;
  if (size > 0 && data[0] == '\x02') options.rank = 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  c3sim::wl::TorchImportResult r;
  std::string yaml;
  try {
    r = c3sim::wl::import_torch_trace(text, "<fuzz>", options);
    yaml = c3sim::wl::torch_import_yaml(r, "<fuzz>");
  } catch (const c3sim::InputError&) {
    return 0;
  }
  const std::vector<c3sim::wl::Program> back = c3sim::wl::load_programs_string(yaml, "<fuzz import>");
  if (back.size() != 1 || back[0].kernels.size() != r.program.kernels.size()) __builtin_trap();
  if (r.gemms + r.collectives + r.measured != static_cast<int>(back[0].kernels.size())) __builtin_trap();
  c3sim::wl::check_program_fits(back[0], back[0].gpus.value_or(8), 304);
  return 0;
}
