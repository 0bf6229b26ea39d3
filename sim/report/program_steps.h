#pragma once
// Program output (c3sim run or sweep on a program file, e.g. examples/dma_architecture_fsdp.yaml)
// as one bar chart: the step time per group (a sweep variant, or the program itself for a plain
// run) and policy, with the program's ideal step (critical path at isolated kernel times) beside
// it. A program sweep writes no c3 records, so without this `c3sim report` had nothing to plot.
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/measurement.h"

namespace c3sim::report {

// {"groups": [label...], "policies": [name...], "step_us": {policy: [per group, null where that
// policy did not run]}, "ideal_us": [per group, null when absent]}. Groups and policies keep the
// records' first-appearance order (the sweep's variant and policy order). A group is
// "program / variant" when the records hold several programs, else the variant's name (a plain
// run: the program's name). Returns null when no record is a program record.
nlohmann::json program_steps(const std::vector<const wl::ProgramRecord*>& runs);

}  // namespace c3sim::report
