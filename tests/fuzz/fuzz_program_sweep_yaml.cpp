// libFuzzer target: sweeps over programs (sim/sweep/sweep_spec.h, sim/sweep/sweep_runner.h). The
// input is a sweep YAML; its relative paths resolve in a folder written at start-up that holds one
// small program file, small.yaml (a GEMM, an all-gather after it on a second stream, a measured
// kernel), so `programs: [{file: small.yaml}]` sweeps a real program. Any input must load or throw
// InputError; what loads must run its first and last task on one thread (run_tasks, as `c3sim
// sweep` does) without any other exception, crash or sanitizer report. Each preset is parsed once
// per process (fuzz_hardware_yaml fuzzes that parser).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "sim/base/errors.h"
#include "sim/sweep/sweep_runner.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/fuzz/fuzz_hardware_cache.h"

namespace {

// The fuzzer's folder for relative paths; written once, never changed (libFuzzer runs one input
// at a time per process).
std::string& program_dir() {
  static std::string dir;
  return dir;
}

constexpr const char* kSmallProgram = R"(program:
  name: small
  gpus: 2
  streams: [{name: compute}, {name: comm, priority: 1}]
  kernels:
    - {name: mm, stream: compute, gemm: {m: 512, n: 512, k: 256, dtype: bf16}}
    - {name: ag, stream: comm, after: [mm], collective: {op: all_gather, bytes: 1 MiB}}
    - {name: tail, stream: compute, measured: {time_us: 3, workgroups: 16}}
)";

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  std::string templ = "/tmp/c3sim-fuzz-programs.XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) std::abort();
  program_dir() = templ;
  std::ofstream(templ + "/small.yaml") << kSmallProgram;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const c3sim::sweep::SweepSpec spec =
        c3sim::sweep::load_sweep_string(text, "<fuzz>", program_dir(), c3sim::fuzz::load_hardware_cached);
    if (spec.tasks() == 0) __builtin_trap();
    c3sim::sweep::RunOptions one_thread;
    one_thread.threads = 1;
    (void)c3sim::sweep::run_tasks(spec, {0, spec.tasks() - 1}, one_thread);
  } catch (const c3sim::InputError&) {
    return 0;
  }
  return 0;
}
