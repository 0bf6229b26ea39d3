#pragma once
// `c3sim run --trace FILE`: re-runs each scenario x policy of a run with a trace recorder and
// renders them all into one Chrome/Perfetto trace, one process per run, named
// "<scenario> / <policy> / gpu0" (a sweep policy such as rp_best is traced as the policy it chose,
// "rp_best=rp:64"). Tracing reruns without attribution, so it never changes the run's records.
#include <string>
#include <vector>

#include "hardware/node_spec.h"
#include "models/run/c3_simulator.h"
#include "workloads/runner.h"

namespace c3sim::cli {

std::string trace_runs(const hw::NodeSpec& spec, models::SimOptions options,
                       const std::vector<wl::RunRequest>& requests);

}  // namespace c3sim::cli
