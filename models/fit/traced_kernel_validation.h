#pragma once
// A program imported from a trace (wl::Program with kernels' `traced_us`) beside c3sim's prediction
// of it under `base` (the launch order and streams as traced): each GEMM, collective, memory and
// copy kernel's predicted vs traced duration and start, the mean absolute and signed error per
// kind, the step error and the worst kernels. `c3sim validate PROGRAM.yaml` prints it (table or
// JSON) and draws it (--report: sim/report/validation_page.h). A program with every rank's kernel
// list (`ranks:`) is predicted with every rank simulated together (all-GPU mode: collectives wait
// for the last rank to arrive, as traced ones do) and has rows for every rank; one kernel list is
// predicted on one representative GPU.
//
// Durations are execution spans, first workgroup to end, on both sides (the profiler's kernel
// event). A traced collective's span includes waiting for its peers to arrive; a one-GPU
// prediction has no peers to wait for. `measured` kernels run for their traced time by
// construction (alone): they are listed per kind, apart, and left out of the overall figures.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hardware/node_spec.h"
#include "workloads/program.h"

namespace c3sim::models {

struct TracedKernelRow {
  std::string kernel;
  wl::KernelKind kind = wl::KernelKind::gemm;
  std::string what;  // "4096x12288x4096 bf16", "all_gather 386.0 MiB", the measured kernel's source
  std::string stream;
  int rank = 0;
  double traced_us = 0;
  double predicted_us = 0;
  // Starts relative to the start of the rank's first kernel, on each side: the predicted one from
  // the simulation, the traced one from the program's `traced_start_us` (absent in programs
  // imported without it).
  double predicted_start_us = 0;
  std::optional<double> traced_start_us;
  [[nodiscard]] double pct_error() const { return 100.0 * (predicted_us - traced_us) / traced_us; }
};

struct TracedKindSummary {
  wl::KernelKind kind = wl::KernelKind::gemm;
  int kernels = 0;
  double mean_abs_pct_error = 0;  // mean over the kind's kernels of |predicted - traced| / traced
  double mean_pct_error = 0;      // the same, signed: < 0 = predicted fast
  double traced_us = 0;           // sums
  double predicted_us = 0;
};

struct TracedKernelReport {
  std::string program;
  std::string hardware;
  std::string policy = "base";
  double traced_step_us = 0;  // the program's measured_step_us
  double predicted_step_us = 0;
  [[nodiscard]] double step_pct_error() const {
    return 100.0 * (predicted_step_us - traced_step_us) / traced_step_us;
  }
  std::vector<TracedKernelRow> rows;     // rank, then program order; kernels with traced_us > 0
  std::vector<TracedKindSummary> kinds;  // kinds present, in wl::kKernelKinds order
  std::vector<std::size_t> worst;        // rows of modelled kernels (not measured), worst |error| first
  int without_traced = 0;                // kernels with no traced_us (left out)
};

// InputError (at the program) when it has no measured_step_us or no kernel with traced_us: not a
// program imported from a trace. `worst`: how many of the worst kernels to list.
TracedKernelReport validate_traced_kernels(const hw::NodeSpec& spec, const wl::Program& program,
                                           std::size_t worst = 10);

nlohmann::json to_json(const TracedKernelReport& r);
std::string render_summary(const TracedKernelReport& r);

}  // namespace c3sim::models
