#pragma once
// Program output's slowdown attribution (program record kernels' "attribution", written by
// `c3sim run PROGRAM.yaml`) as stacked bars: per policy, the causes summed over the kernels of one
// kind, averaged over the program records of that policy. The same shape as the pair's chart.
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/measurement.h"

namespace c3sim::report {

// {"policies": [...], "causes": ["dispatch delay", "CUs unavailable", "cache", "memory latency",
// "<group> bandwidth"...], "gemm": {cause: [us per policy]}, "collective": {...}}: "gemm" holds the
// GEMM kernels, "collective" every other kernel (collectives, memory, copies, measured). Policies
// in first-appearance order. Null when no program kernel carries an attribution.
nlohmann::json program_attribution(const std::vector<const wl::ProgramRecord*>& runs);

}  // namespace c3sim::report
